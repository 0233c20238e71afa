"""Every memo the library keeps between calls is a registered :class:`indexalg.memo.Memo`,
so ``ia.clear_caches()`` empties them all by construction.

The check finds the caches by what they do: it runs the library's queries (simplify, bounds,
prove, an Analyzer with an assumption, ranges written every way) and looks at every table
held by a module of the package, or by one of its classes, that filled up on the way.  Each
must be a registered memo, or one of the few tables below that are not memos of answers.
"""

from __future__ import annotations

import importlib
import pkgutil
import types
import weakref
from collections.abc import Iterator
from typing import Any

import pytest

import indexalg as ia
from indexalg.memo import GroupedMemo, Memo, clear_all, registered

#: Packages left out of the scan: they load torch/hypothesis, or are the command line.
SKIPPED = ("indexalg.inductor", "indexalg.testing", "indexalg.cli")

#: Tables that fill up but hold no answers, each with the reason.
NOT_MEMOS = {
    "indexalg.expr": "the node store: interning, weakly held (a node is not an answer)",
    "indexalg._rangespec._INTERNED": "the node store of indexalg.expr, read for symbols by name",
    "indexalg.simplify.driver._DEFAULT_PROCS": "derived once from the default procedures",
    "indexalg.simplify.driver._DEFAULT_INDEX": "derived once from the default rules",
}

_SIZED = (dict, list, set, weakref.WeakKeyDictionary, weakref.WeakValueDictionary)


def _modules() -> list[types.ModuleType]:
    out = [ia]
    for info in pkgutil.walk_packages(ia.__path__, "indexalg."):
        if not info.name.startswith(SKIPPED):
            out.append(importlib.import_module(info.name))
    return out


def _tables() -> Iterator[tuple[str, object]]:
    """(dotted name, value) of every module- and class-level attribute of the package."""
    for m in _modules():
        for name, value in list(vars(m).items()):
            yield f"{m.__name__}.{name}", value
            if isinstance(value, type) and value.__module__ == m.__name__:
                for attr, inner in list(vars(value).items()):
                    yield f"{m.__name__}.{name}.{attr}", inner


def _size(value: object) -> int | None:
    if isinstance(value, (Memo, GroupedMemo)):
        return None  # a memo: checked through the registry
    if isinstance(value, _SIZED):
        return len(value)
    info = getattr(value, "cache_info", None)  # functools.lru_cache / cache
    if callable(info):
        return int(info().currsize)
    return None


def _sizes() -> dict[str, int]:
    return {name: n for name, value in _tables() if (n := _size(value)) is not None}


def _workload() -> None:
    cases: list[tuple[str, dict[Any, Any]]] = [
        ("x // 64 % 64 * 64 + x % 64", {"x": 4096}),
        ("x // s0 + x % s0", {"x": (0, "4*s0 - 1"), "s0": (1, None)}),
        ("Where(x < 4, x // 2, x % 3)", {"x": "s0 + 1", "s0": (1, 9)}),
        ("Max(1, s0 - 2)*(x // 2)*s1", {"x": 64, "s0": (3, None), "s1": (1, None)}),
        ("x + y", {ia.parse("x + y"): 15, "x": 8, "y": 8}),
    ]
    for text, spec in cases:
        ranges = ia.as_ranges(spec)
        for r in (spec, ranges):
            ia.simplify(text, r)
            ia.bounds(text, r)
        ia.simplify_result(text, ranges)
        an = ia.Analyzer(ranges)
        with an.assume("x < 8"):
            an.simplify(text)
            an.bounds(text)
        an.bind("x", (0, 3))
        an.simplify(text)
    ia.simplify("x // 4", {"x": 64}, rules=(), procedures=())
    ia.prove("x // 4 < 16", {"x": 64}, tiers=("interval", "congruence"))


def test_every_table_a_run_fills_is_a_registered_memo() -> None:
    ia.clear_caches()
    before = _sizes()
    _workload()
    after = _sizes()
    grown = sorted(name for name, n in after.items() if n > before.get(name, 0))
    unregistered = [
        name
        for name in grown
        if name not in NOT_MEMOS and not any(name.startswith(k + ".") for k in NOT_MEMOS)
    ]
    assert unregistered == [], (
        "tables that remember answers but are no indexalg.memo.Memo (ia.clear_caches would "
        f"miss them): {unregistered}"
    )
    memos = registered()
    assert {
        "simplify.results",
        "analysis.contexts",
        "ranges.specs",
        "analyzer.bounds",
        "parse.texts",
    } <= set(memos)
    assert any(len(m) for m in memos.values())
    ia.clear_caches()
    assert {name: len(m) for name, m in registered().items() if len(m)} == {}


def test_a_new_memo_is_cleared_by_clear_caches() -> None:
    memo: Memo[str, int] = Memo("test.probe", 8)
    grouped: GroupedMemo[str, str, int] = GroupedMemo("test.grouped_probe", 8)
    memo.put("a", 1)
    grouped.put("g", "a", 1)
    assert registered()["test.probe"] is memo
    ia.clear_caches()
    assert len(memo) == 0 and len(grouped) == 0 and memo.get("a") is None
    del memo, grouped
    assert "test.probe" not in registered()  # held weakly: a dropped memo goes


def test_a_full_memo_drops_its_oldest_quarter() -> None:
    memo: Memo[int, int] = Memo("test.bounded", 8)
    for k in range(8):
        memo.put(k, k)
    memo.put(8, 8)
    assert list(memo) == [2, 3, 4, 5, 6, 7, 8]
    lru: Memo[int, int] = Memo("test.lru", 4, lru=True)
    for k in range(4):
        lru.put(k, k)
    assert lru.get(0) == 0  # used: now the youngest
    lru.put(4, 4)
    assert list(lru) == [2, 3, 0, 4]
    clear_all()


def test_context_for_takes_ranges_only() -> None:
    from indexalg.analysis.context import context_for

    with pytest.raises(TypeError, match="as_ranges"):
        context_for({"x": 4})  # type: ignore[arg-type]
    assert context_for(ia.as_ranges({"x": 4})).ranges is ia.as_ranges({"x": 4})
