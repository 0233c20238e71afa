"""Paired A/B of indexalg's fresh path in two source trees (issue 27's measuring tool).

    python -m bench.ab TREE_A TREE_B [--corpus static|dynamic|both] [--rounds 3] [--limit N]

Each tree is a checkout (``git worktree add /tmp/base HEAD~1``); a tree may be written
``TREE:DIR`` to put ``DIR`` (compiled modules, e.g. ``build/compiled/src`` or a compiled
wheel's site-packages) first on the path.  Per round, each tree runs in its own process, A
then B: before each expression ``ia.clear_caches()`` (untimed), then timed together
``ia.as_ranges(spec)`` and ``ia.simplify(e, ranges)`` on thread CPU time: the fresh row of
:mod:`bench.simplify`, read from each tree's own ``bench/simplify.py``.  Every expression
keeps its fastest time over the rounds; the medians and means of those, their ratio B/A,
and how many outputs differ (must be 0 for a speed change) are printed.

The two trees alternate, so a machine's load falls on both alike; still, run it in both
orders before believing a change under 3%: one order alone has shown 3–6% that the other
did not.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["CORPORA", "main", "run_tree"]

#: name -> (corpus file inside a tree, how many of its cases)
CORPORA: dict[str, tuple[str, int]] = {
    "static": ("bench/corpus/corpus.jsonl.gz", 3000),
    "dynamic": ("bench/corpus/dynamic.jsonl.gz", 1500),
}

_WORKER = r"""
import gzip, json, sys, time
tree, extra, corpus, limit = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, tree)
if extra:
    sys.path.insert(0, extra)
from bench import simplify as bs
import indexalg as ia
with gzip.open(tree + "/" + corpus, "rt") as f:
    cases = bs.cases_from_corpus(json.loads(line) for line in f)[:limit]
clock = time.thread_time_ns
times, outputs = [], []
for x in bs._indexalg_inputs(cases):
    if isinstance(x, str):
        times.append(None)
        outputs.append("skipped")
        continue
    e, spec = x
    ia.clear_caches()
    t = clock()
    try:
        out = str(ia.simplify(e, ia.as_ranges(spec)))
    except ia.IndexAlgError as err:
        out = "error " + type(err).__name__
    times.append(clock() - t)
    outputs.append(out)
print(json.dumps([times, outputs]))
"""


@dataclass
class TreeRun:
    """One tree's times (ns, None where skipped) and outputs over a corpus."""

    times: list[int | None]
    outputs: list[str]


def run_tree(spec: str, corpus: str, limit: int, python: str = sys.executable) -> TreeRun:
    """The fresh path of the tree ``spec`` (``TREE`` or ``TREE:COMPILED_DIR``) on ``corpus``."""
    tree, _, extra = spec.partition(":")
    proc = subprocess.run(
        [python, "-c", _WORKER, tree, extra, corpus, str(limit)],
        capture_output=True,
        text=True,
        cwd=tree,
        check=False,
    )
    if proc.returncode:
        raise SystemExit(f"bench.ab: {spec} failed:\n{proc.stderr[-3000:]}")
    times, outputs = json.loads(proc.stdout)
    return TreeRun(times, outputs)


def _fastest(a: list[int | None], b: list[int | None]) -> list[int | None]:
    return [None if x is None or y is None else min(x, y) for x, y in zip(a, b)]


def compare(a: str, b: str, name: str, rounds: int, limit: int | None) -> list[str]:
    """The report lines for one corpus: each tree's median and mean, and B/A."""
    corpus, default_limit = CORPORA[name]
    n = default_limit if limit is None else limit
    best: dict[str, list[int | None]] = {}
    outputs: dict[str, list[str]] = {}
    for _ in range(rounds):
        for spec in (a, b):
            r = run_tree(spec, corpus, n)
            best[spec] = r.times if spec not in best else _fastest(best[spec], r.times)
            outputs[spec] = r.outputs
    lines = []
    stats: dict[str, tuple[float, float]] = {}
    for spec in (a, b):
        us = [t / 1000 for t in best[spec] if t is not None]
        stats[spec] = (statistics.median(us), statistics.fmean(us))
        digest = hashlib.sha1(json.dumps(outputs[spec]).encode()).hexdigest()[:10]
        lines.append(
            f"{name:8s} {spec}: median {stats[spec][0]:7.1f} µs, mean {stats[spec][1]:7.1f} µs,"
            f" outputs {digest}"
        )
    differing = sum(1 for x, y in zip(outputs[a], outputs[b]) if x != y)
    (ma, mean_a), (mb, mean_b) = stats[a], stats[b]
    lines.append(
        f"{name:8s} B/A: median {mb / ma:.3f}, mean {mean_b / mean_a:.3f}; "
        f"outputs differing: {differing}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.ab", description=__doc__.split("\n")[0])
    p.add_argument("a", help="tree A (TREE or TREE:COMPILED_DIR)")
    p.add_argument("b", help="tree B")
    p.add_argument("--corpus", choices=[*CORPORA, "both"], default="both")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--limit", type=int, default=None, help="the first N cases of each corpus")
    args = p.parse_args(argv)
    names = list(CORPORA) if args.corpus == "both" else [args.corpus]
    differing = False
    for name in names:
        lines = compare(args.a, args.b, name, args.rounds, args.limit)
        print("\n".join(lines), flush=True)
        differing |= not lines[-1].endswith("outputs differing: 0")
    return 1 if differing else 0


if __name__ == "__main__":
    raise SystemExit(main())
