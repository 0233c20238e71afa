"""Stock zones: Inductor functions inside which the plug-in gives Inductor's own answers.

Inductor's Triton tiling (``SIMDScheduling.select_tiling`` / ``get_tiling_and_scores`` and
the memory-coalescing analysis behind them) asks the ShapeEnv whether a candidate tiling
fits every node (``statically_known_*`` -> ``_maybe_evaluate_static``).  indexalg decides
more of those claims than sympy does (``Ne(((s0 - 1)//2), 0)`` among the guards gives
``((s0 - 1)//2) + 1 > 1``), so a candidate stock rejects can be accepted and the kernel
tiled differently: sound, the same output, but a 1-D kernel where stock had a 2-D one
decomposes its index with more divisions (the dynamic pooling kernels on CUDA, +2).  The
tiling is a heuristic choice, not index arithmetic, so inside it the plug-in answers as
Inductor does: the covered entry points listed by ``INDEXALG_INDUCTOR_STOCK_TILING``
(``maybe_evaluate_static``; ``all``: every entry point; ``off``, the default: none) fall
back with the reason ``stock_zone``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any

__all__ = ["DEPTH", "ZONES", "Zone", "in_zone", "zoned_entries"]

#: the entry points zoned when ``INDEXALG_INDUCTOR_STOCK_TILING`` is not set
DEFAULT = "off"

#: how many zone functions are on the stack
DEPTH = [0]


def in_zone() -> bool:
    return DEPTH[0] > 0


def zoned_entries() -> frozenset[str]:
    """The entry points that answer as Inductor inside a zone."""
    v = os.environ.get("INDEXALG_INDUCTOR_STOCK_TILING", DEFAULT).strip()
    if v == "off":
        return frozenset()
    if v == "all":
        return ZONABLE
    names = frozenset(p.strip() for p in v.split(",") if p.strip())
    unknown = sorted(names - ZONABLE)
    if unknown:
        raise ValueError(
            f"INDEXALG_INDUCTOR_STOCK_TILING: unknown entry point {', '.join(map(repr, unknown))}; "
            f"valid: off, all, {', '.join(sorted(ZONABLE))}"
        )
    return names


#: the entry points a zone can hand to Inductor
ZONABLE = frozenset({"simplify_with_ranges", "stride_at_vec_range", "maybe_evaluate_static"})


def _wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
    def zoned(*args: Any, **kwargs: Any) -> Any:
        DEPTH[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            DEPTH[0] -= 1

    zoned.__name__ = getattr(fn, "__name__", "zoned")
    zoned.__qualname__ = getattr(fn, "__qualname__", "zoned")
    zoned.__doc__ = getattr(fn, "__doc__", None)
    zoned.__wrapped__ = fn  # type: ignore[attr-defined]
    return zoned


def locate(owner: str, attr: str) -> tuple[Any, str] | None:
    """(the object holding ``owner``'s dotted ``attr``, the attribute's last name), or None
    when this torch lacks the module or a step of the path."""
    try:
        holder: Any = importlib.import_module(owner)
    except ImportError:
        return None
    *path, last = attr.split(".")
    for part in path:
        holder = getattr(holder, part, None)
        if holder is None:
            return None
    return holder, last


class Zone:
    """``owner`` a module, ``attr`` ``Class.method`` (a plain, class or static method) or a
    module function (looked up on the module at call time by Inductor)."""

    def __init__(self, owner: str, attr: str) -> None:
        self.owner = owner
        self.attr = attr
        self.saved: tuple[Any, str, Any] | None = None

    def install(self) -> bool:
        if self.saved is not None:
            return True
        found = locate(self.owner, self.attr)
        if found is None:
            return False
        holder, last = found
        raw = vars(holder).get(last) if isinstance(holder, type) else getattr(holder, last, None)
        if raw is None:
            return False
        if isinstance(raw, classmethod):
            new: Any = classmethod(_wrap(raw.__func__))
        elif isinstance(raw, staticmethod):
            new = staticmethod(_wrap(raw.__func__))
        elif callable(raw):
            new = _wrap(raw)
        else:
            return False
        setattr(holder, last, new)
        self.saved = (holder, last, raw)
        return True

    def uninstall(self) -> None:
        if self.saved is not None:
            holder, last, raw = self.saved
            setattr(holder, last, raw)
            self.saved = None


ZONES: tuple[Zone, ...] = (
    Zone("torch._inductor.codegen.simd", "SIMDScheduling.select_tiling"),
    Zone("torch._inductor.codegen.simd", "SIMDScheduling.get_tiling_and_scores"),
    Zone("torch._inductor.tiling_utils", "_analyze_memory_coalescing"),
    Zone("torch._inductor.tiling_utils", "analyze_memory_coalescing"),
)
