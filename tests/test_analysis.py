"""Interval, symbolic and congruence analysis: table-driven cases plus exhaustive checks."""

from __future__ import annotations

import itertools
from typing import NamedTuple

import pytest

import indexalg as ia
from indexalg.analysis import congruence, decide
from indexalg.analysis.context import Context
from indexalg.ranges import as_ranges

S0 = {"x": "s0", "s0": (1, None)}


class Case(NamedTuple):
    expr: str
    ranges: dict[str, object]
    lo: int | str | None
    hi: int | str | None


BOUNDS = [
    Case("x", {"x": 64}, 0, 63),
    Case("x - x//2", {"x": 1024}, 0, 512),  # Inductor: [-511, 1023]
    Case("2*x - 3*y + 1", {"x": 8, "y": (-2, 5)}, -14, 21),
    Case("x // 8", {"x": (-17, 40)}, -3, 5),
    Case("x // -3", {"x": (-7, 7)}, -3, 2),
    Case("CeilDiv(x, 4)", {"x": (-9, 9)}, -2, 3),
    Case("ModularIndexing(x, 1, 64)", {"x": 40}, 0, 39),
    Case("ModularIndexing(x, 4, 8)", {}, 0, 7),
    Case("x % -8", {}, -7, 0),
    Case("Min(x, 5) + Max(y, 2)", {"x": 10, "y": 10}, 2, 14),
    Case("Where(i < 0, i + 100, i)", {"i": (-100, 99)}, 0, 99),
    Case("x + s0", S0, "s0", "2*s0 - 1"),
    Case("x // 64", S0, 0, "(s0 - 1) // 64"),
    Case("64*y + x", {"x": 64, "y": "s0", "s0": (1, None)}, 0, "64*s0 - 1"),
    Case("x + y", {"x": 3}, "y", "y + 2"),
    Case("x + y", {"x": (0, None), "y": 4}, 0, None),
]


@pytest.mark.parametrize("case", BOUNDS, ids=lambda c: c.expr)
def test_bounds_table(case: Case) -> None:
    lo, hi = ia.bounds(case.expr, case.ranges)
    want_lo = ia.parse(case.lo) if isinstance(case.lo, str) else case.lo
    want_hi = ia.parse(case.hi) if isinstance(case.hi, str) else case.hi
    assert (lo, hi) == (want_lo, want_hi)


def _points(ranges: dict[str, tuple[int, int]]) -> list[dict[str, int]]:
    names = sorted(ranges)
    spaces = [range(ranges[n][0], ranges[n][1] + 1) for n in names]
    return [dict(zip(names, vals)) for vals in itertools.product(*spaces)]


EXHAUSTIVE = [
    "x - x//2",
    "3*x - 2*(x // 3) + y",
    "ModularIndexing(x + 5*y, 2, 6) - y",
    "Min(x, y) * 2 - Max(x - 3, y // 2)",
    "(x * y) // 3",
    "x % (y + 5)",
    "CeilDiv(x - 7, 3) + Where(x < y, x, y)",
    "x*x - y",
]


@pytest.mark.parametrize("text", EXHAUSTIVE)
def test_bounds_sound_exhaustively(text: str) -> None:
    r = {"x": (-9, 20), "y": (-4, 11)}
    lo, hi = ia.bounds(text, r)
    e = ia.parse(text)
    values = [ia.evaluate(e, p) for p in _points(r)]
    assert lo is not None and hi is not None
    assert lo <= min(values) and max(values) <= hi


CONGRUENCES = [
    ("64*x + 8*y + 3", (8, 3)),
    ("(64*x + 8) // 8", (8, 1)),
    ("ModularIndexing(16*x + 4, 2, 8)", (0, 2)),
    ("x", (1, 0)),
    ("Min(4*x + 2, 4*y + 6)", (4, 2)),
    ("6*x + 9*y", (3, 0)),
]


@pytest.mark.parametrize(("text", "fact"), CONGRUENCES)
def test_congruence_table(text: str, fact: tuple[int, int]) -> None:
    assert congruence(ia.parse(text)) == fact


@pytest.mark.parametrize(("text", "fact"), CONGRUENCES)
def test_congruence_sound(text: str, fact: tuple[int, int]) -> None:
    e = ia.parse(text)
    m, r = fact
    for p in _points({"x": (-6, 6), "y": (-6, 6)}):
        v = ia.evaluate(e, p)
        assert (v == r) if m == 0 else (v % m == r)


DECISIONS = [
    ("x < 64", {"x": 64}, True),
    ("64 <= x", {"x": 64}, False),
    ("x < 2*s0", S0, True),
    ("x < s0 + 1", S0, True),
    ("x == 64*y + 1", {}, None),
    ("8*x + 3 == 8*y", {}, False),  # congruence: 3 vs 0 mod 8
    ("1 <= CeilDiv(XBLOCK, 64)", {"XBLOCK": (1, None)}, True),
    ("And(0 <= x, x < 10)", {"x": 10}, True),
    ("Or(x < 0, 20 <= x)", {"x": 10}, False),
]


@pytest.mark.parametrize(("text", "ranges", "want"), DECISIONS)
def test_decide_table(text: str, ranges: dict[str, object], want: bool | None) -> None:
    assert decide(ia.parse(text), ranges)[0] is want


def test_context_classifies_symbols() -> None:
    ctx = Context(as_ranges({"x": "s0", "y": 8, "s0": (1, None)}))
    assert ctx.dependent == frozenset(ia.symbols("x"))
    assert ctx.size_symbols == frozenset(ia.symbols("s0"))
