"""Wall-clock wrappers around Inductor's index arithmetic, for ``bench.inductor``.

``install()`` wraps each function below (at its definition and in every ``torch._inductor``
module that imported it by name) with a timer.  Only the outermost wrapped call on the
stack is timed, so a covered entry point that calls ``sympy`` helpers listed here counts
once, under its own group.  Groups:

* ``covered``: the entry points indexalg.inductor replaces (timed around the replacement
  when the plug-in is installed, around Inductor's code otherwise);
* ``other``: index arithmetic the plug-in does not replace: ``simplify_loops``,
  ``SizeVarAllocator.simplify`` / ``stride_vars`` / ``statically_known_*`` /
  ``combine_modular_indexing_pairs`` / ``expand_floor_div``, ``join_dimensions``,
  ``ShapeEnv._maybe_evaluate_static`` and ``bound_sympy``.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

GROUPS: dict[str, list[tuple[str, str]]] = {
    "covered": [
        ("torch._inductor.sizevars", "SizeVarAllocator._simplify_with_ranges"),
        ("torch._inductor.sizevars", "stride_at_vec_range"),
        ("torch._inductor.sizevars", "simplify_index_in_vec_range"),
    ],
    "other": [
        ("torch._inductor.sizevars", "SizeVarAllocator._simplify_loops_impl"),
        ("torch._inductor.sizevars", "SizeVarAllocator.simplify"),
        ("torch._inductor.sizevars", "SizeVarAllocator._stride_vars"),
        ("torch._inductor.sizevars", "SizeVarAllocator.statically_known_true"),
        ("torch._inductor.sizevars", "SizeVarAllocator.statically_known_equals"),
        ("torch._inductor.sizevars", "SizeVarAllocator.statically_known_leq"),
        ("torch._inductor.sizevars", "SizeVarAllocator.statically_known_lt"),
        ("torch._inductor.sizevars", "SizeVarAllocator.statically_known_multiple_of"),
        ("torch._inductor.sizevars", "SizeVarAllocator.combine_modular_indexing_pairs"),
        ("torch._inductor.sizevars", "SizeVarAllocator.expand_floor_div"),
        ("torch._inductor.sizevars", "join_dimensions"),
        ("torch._inductor.sizevars", "stride_at"),
        ("torch.fx.experimental.symbolic_shapes", "ShapeEnv._maybe_evaluate_static"),
        ("torch.utils._sympy.value_ranges", "bound_sympy"),
    ],
}

#: ``INDEXALG_BENCH_CLOCK=cpu`` (set by ``bench.inductor --clock cpu``) times CPU seconds of
#: this process instead of wall-clock seconds
CLOCK_NAME = "cpu" if os.environ.get("INDEXALG_BENCH_CLOCK") == "cpu" else "wall"
_clock = time.process_time if CLOCK_NAME == "cpu" else time.perf_counter

SECONDS: dict[str, float] = {g: 0.0 for g in GROUPS}
CALLS: dict[str, int] = {g: 0 for g in GROUPS}
#: outermost seconds per wrapped function ("module.attr")
BY_FUNCTION: dict[str, float] = {}
MISSING: list[str] = []
_depth = [0]


def _wrap(group: str, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        if _depth[0]:
            return fn(*args, **kwargs)
        _depth[0] = 1
        t0 = _clock()
        try:
            return fn(*args, **kwargs)
        finally:
            dt = _clock() - t0
            SECONDS[group] += dt
            BY_FUNCTION[label] = BY_FUNCTION.get(label, 0.0) + dt
            CALLS[group] += 1
            _depth[0] = 0

    for attr in ("__name__", "__qualname__", "__doc__", "cache_clear", "cache_info"):
        if hasattr(fn, attr):
            setattr(timed, attr, getattr(fn, attr))
    return timed


def install() -> None:
    """Wrap every function of :data:`GROUPS` this torch has (call after the plug-in)."""
    import torch._inductor.codegen.cpp  # noqa: F401  (imports stride_at_vec_range by name)

    for group, entries in GROUPS.items():
        for module, attr in entries:
            try:
                holder: Any = importlib.import_module(module)
            except ImportError:
                MISSING.append(f"{module}.{attr}")
                continue
            *path, last = attr.split(".")
            for part in path:
                holder = getattr(holder, part, None)
            current = getattr(holder, last, None) if holder is not None else None
            if current is None:
                MISSING.append(f"{module}.{attr}")
                continue
            wrapped = _wrap(group, attr, current)
            setattr(holder, last, wrapped)
            if not path:  # a module function: also where it was imported by name
                for name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
                    if name.startswith("torch.") and getattr(mod, last, None) is current:
                        setattr(mod, last, wrapped)
