"""Load the harvested corpora (standard library only)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS_PATH = HERE / "corpus.jsonl.gz"
BLOCKS_PATH = HERE / "blocks.jsonl.gz"


def _read_jsonl_gz(path: str | Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_corpus(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Entries of corpus.jsonl.gz (see README.md for the fields)."""
    return _read_jsonl_gz(CORPUS_PATH if path is None else path)


def load_blocks(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Records of blocks.jsonl.gz (see README.md for the fields)."""
    return _read_jsonl_gz(BLOCKS_PATH if path is None else path)


def to_sympy(srepr: str, functions: list[str] | tuple[str, ...] = ()) -> Any:
    """Rebuild a sympy expression from an entry's ``srepr`` / ``simplified_srepr``.

    Needs sympy and torch (``torch.utils._sympy.functions``).  Pass the entry's
    ``functions`` so that names srepr leaves ambiguous (``Mod``) resolve to the
    recorded classes.
    """
    import importlib

    import sympy
    import torch.utils._sympy.functions as torch_functions

    namespace: dict[str, Any] = dict(vars(sympy))
    namespace.update({k: v for k, v in vars(torch_functions).items() if not k.startswith("_")})
    for qualified in functions:
        module, name = qualified.rsplit(".", 1)
        namespace[name] = getattr(importlib.import_module(module), name)
    return eval(srepr, {"__builtins__": {}}, namespace)
