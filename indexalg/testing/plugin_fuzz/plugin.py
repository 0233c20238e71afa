"""The plug-in's state (its call and fallback counters), stock Inductor for a block (the
plug-in's patches lifted, its memos kept), and the ShapeEnv caches emptied."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ._torch import _T


def _plugin() -> Any:
    import indexalg.inductor as plug

    return plug


def _calls_total(name: str) -> int:
    from indexalg.inductor._state import STATS

    st = STATS.get(name)
    return 0 if st is None else st.calls


def _fallback_total(name: str) -> int:
    from indexalg.inductor._state import STATS

    st = STATS.get(name)
    return 0 if st is None else sum(st.fallbacks.values())


def _caught_errors() -> tuple[int, list[str]]:
    """Exceptions indexalg raised inside any entry point (each caught by the fallback
    wrapper, so Inductor's answer was used), and the places the plug-in kept for them."""
    from indexalg.inductor._state import STATS

    n = sum(k for st in STATS.values() for r, k in st.fallbacks.items() if r.startswith("error:"))
    return n, [w for st in STATS.values() for ws in st.errors.values() for w in ws]


#: patched attribute -> the plug-in entry point counted for it
_PATCHES = (
    ("torch._inductor.sizevars", "SizeVarAllocator", "_simplify_with_ranges"),
    ("torch.fx.experimental.symbolic_shapes", "ShapeEnv", "_maybe_evaluate_static"),
    ("torch._inductor.sizevars", None, "stride_at_vec_range"),
    ("torch._inductor.sizevars", "SizeVarAllocator", "optimization_hint"),
    ("torch._inductor.sizevars", "SizeVarAllocator", "guarding_hint_or_throw"),
)


@contextlib.contextmanager
def stock() -> Iterator[None]:
    """Inductor's own functions for the block, the plug-in's memos kept: every patched
    attribute that carries ``__wrapped_original__`` is put back for the block (when the
    plug-in is not installed this does nothing)."""
    import importlib

    swapped: list[tuple[Any, str, Any]] = []
    try:
        for mod_name, cls_name, attr in _PATCHES:
            holder: Any = importlib.import_module(mod_name)
            if cls_name is not None:
                holder = getattr(holder, cls_name)
            current = holder.__dict__.get(attr) if cls_name else getattr(holder, attr, None)
            original = getattr(current, "__wrapped_original__", None)
            if original is not None:
                setattr(holder, attr, original)
                swapped.append((holder, attr, current))
        yield
    finally:
        for holder, attr, current in reversed(swapped):
            setattr(holder, attr, current)


def _clear_shape_env_caches() -> None:
    """Empty the ShapeEnv methods' lru caches, whose keys hold every ShapeEnv asked (as a
    version bump of any ShapeEnv does in a compiler process): a dropped ShapeEnv is then
    freed by the next collection, and the next one created can take its address."""
    for value in list(vars(_T.ShapeEnv).values()):
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            with contextlib.suppress(Exception):
                clear()
