"""Benchmark corpus of index expressions harvested from torch Inductor.

``load_corpus()`` reads ``corpus.jsonl.gz``; ``load_blocks()`` reads
``blocks.jsonl.gz``.  Both need only the standard library.  Regenerate with
``python -m bench.corpus.harvest`` (needs torch); see README.md.
"""

from bench.corpus.load import load_blocks, load_corpus, to_sympy

__all__ = ["load_blocks", "load_corpus", "to_sympy"]
