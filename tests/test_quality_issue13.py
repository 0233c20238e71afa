"""Issue 13, phase ordering and factored products: the named cases, and one case per family
of bench.compare where indexalg used to leave more div/mod than TVM or Inductor.

Each case is checked three ways: the expected output (and its div/mod count), the value at
every point of a small box inside the ranges (translation validation by enumeration), and
idempotence (simplifying the output gives the output)."""

from __future__ import annotations

import itertools
from typing import NamedTuple

import pytest

import indexalg as ia
from indexalg.procedures.factored import cost

Spec = dict[str, object]


class Case(NamedTuple):
    before: str
    ranges: Spec
    after: str
    #: the largest value of each free symbol enumerated (the box is the ranges cut there)
    box: int = 24


_SIZES: Spec = {"s0": (3, None), "s1": (1, None), "x": (0, "s0*s1 - 1"), "y": (0, "s0 - 1")}
_NESTED: Spec = {"s0": (4, None), "s1": (2, None), "x": (0, "s1*((s0 - 3) // 2 + 1) - 1")}

CASES = [
    # the named cases
    Case("FloorDiv(FloorDiv(y + 6, 3), 7)", {"y": (0, 63)}, "(y + 6) // 21", 64),
    Case(
        "ModularIndexing(FloorDiv(ModularIndexing(x, 1, 32), 2)*2, 1, 8)",
        {"x": (0, None)},
        "2*ModularIndexing(x, 2, 4)",
        70,
    ),
    Case("CeilDiv(x, -3) + FloorDiv(x, 3)", {}, "0"),
    Case("-x // 2 + CeilDiv(x, 2)", {}, "0"),
    Case("(2*x) // (2*s0)", {"s0": (1, None)}, "x // s0"),
    Case("Mod(6*a, 12)", {}, "6*ModularIndexing(a, 1, 2)"),
    # factored products: expanding would copy the division (or the Max holding one)
    Case("FloorDiv(x, 2)*Max(1, s0 - 2)*s1", _SIZES, "s1*(x // 2)*Max(1, s0 - 2)", 12),
    Case(
        "FloorDiv(x, 4)*Max(1, s0 - 1) + ModularIndexing(x, 1, s0)",
        _SIZES,
        "(x // 4)*Max(1, s0 - 1) + ModularIndexing(x, 1, s0)",
        12,
    ),
    Case(
        "Min(16, 2*ModularIndexing(x, 1, 2) + 2)*Max(0, 2*ModularIndexing(y, 1, 2) - 1)",
        _SIZES,
        "Min(16, 2*ModularIndexing(x, 1, 2) + 2)*Max(0, 2*ModularIndexing(y, 1, 2) - 1)",
        12,
    ),
    # ... but expanded where the expansion cancels
    Case("FloorDiv(x, 2)*Max(1, s0 - 2) - s0*FloorDiv(x, 2)", _SIZES, "-2*(x // 2)", 12),
    Case("s1*Max(1, s0 - 2)", _SIZES, "s0*s1 - 2*s1", 12),
    # a quotient and its remainder recombine where the divisor is a sum
    Case(
        "FloorDiv(x, s0 - 1)*Max(1, s0 - 1) + ModularIndexing(x, 1, s0 - 1)",
        {"s0": (2, None), "s1": (2, None), "x": (0, "s1*(s0 - 1) - 1")},
        "x",
        12,
    ),
    Case(
        "FloorDiv(x, FloorDiv(s0 - 3, 2) + 1)*(FloorDiv(s0 - 3, 2) + 1)"
        " + Mod(x, FloorDiv(s0 - 3, 2) + 1)",
        _NESTED,
        "x",
        14,
    ),
    Case(
        "4*(FloorDiv(s0 - 3, 2) + 1)*FloorDiv(x, FloorDiv(s0 - 3, 2) + 1)"
        " + 4*ModularIndexing(x, 1, FloorDiv(s0 - 3, 2) + 1) + y",
        {**_NESTED, "y": (0, 3)},
        "4*x + y",
        12,
    ),
    Case(
        "FloorDiv(x, FloorDiv(s0 - 3, 2) + 1)*Max(1, FloorDiv(s0 - 3, 2) + 1)"
        " + ModularIndexing(x, 1, FloorDiv(s0 - 3, 2) + 1)",
        _NESTED,
        "x",
        14,
    ),
    # (the kept Max opens where the expansion merges with another term)
    Case(
        "2*s0*(x // (2*s0)) + ModularIndexing(x, 2, s0) + (x // (2*s0))*Max(1, s0 - 1)",
        {"s0": (2, None), "x": (0, None)},
        "3*s0*(x // (2*s0)) - x // (2*s0) + ModularIndexing(x, 2, s0)",
        40,
    ),
    # ... only where the quotient goes: a transpose's two digits stay digits
    Case(
        "x // 64 + 64*ModularIndexing(x, 1, 64)",
        {"x": (0, 4095)},
        "x // 64 + 64*ModularIndexing(x, 1, 64)",
        4095,
    ),
    # nested remainders read the low digits of x directly
    Case(
        "ModularIndexing(ModularIndexing(x, 3, 21), 4, 5)",
        {"x": (0, 127)},
        "ModularIndexing(ModularIndexing(x, 1, 63), 12, 5)",
        127,
    ),
    Case(
        "ModularIndexing(ModularIndexing(x, 3, 33), 2, 8)",
        {"x": (0, 99)},
        "ModularIndexing(ModularIndexing(x, 1, 99), 6, 8)",
        99,
    ),
    Case(
        "64*ModularIndexing(ModularIndexing(x, 8, 3), 2, 2) + ModularIndexing(x, 1, 24)",
        {"x": (0, 1023)},
        "64*(ModularIndexing(x, 1, 24) // 16) + ModularIndexing(x, 1, 24)",
        1023,
    ),
    # a ceiling division of a value in (-y, 0] is 0; a ceiling of a floor division merges
    Case(
        "CeilDiv(-(x), s0*s1) + FloorDiv(x, s0*s1)",
        {"s0": (2, 64), "s1": (1, 64), "x": (0, "s0*s1 - 1")},
        "0",
        10,
    ),
    Case("CeilDiv(FloorDiv(x + 3, 3), 16)", {"x": (0, None)}, "x // 48 + 1", 200),
    # (bench.compare --seed 1) a remainder's division merges with the one around it; a
    # ceiling division of a bit is the bit
    Case(
        "ModularIndexing(ModularIndexing(2*x, 4, 8) + 3, 8, 4)",
        {"x": (0, 127)},
        "(ModularIndexing(x, 1, 16) + 6) // 16",
        127,
    ),
    Case("CeilDiv(ModularIndexing(2*x, 1, 4), 4)", {"x": (0, 99)}, "ModularIndexing(x, 1, 2)", 99),
    Case("CeilDiv(3*Mod(x + 3, 3), 4)", {"x": (0, 99)}, "ModularIndexing(x, 1, 3)", 99),
    # (the dynamic-shape corpus) a quotient joins its remainder where only the remainder's
    # definedness proves the divisor positive
    Case(
        "y + 4*(s0 // 4)*(x // (s0 // 4)) + 4*ModularIndexing(x, 1, s0 // 4)",
        {"s0": (2, None), "s1": (2, None), "x": (0, "s1*(s0 // 4) - 1"), "y": (0, 3)},
        "4*x + y",
        16,
    ),
]


def _box(e: ia.Expr, ranges: Spec, top: int) -> list[dict[str, int]]:
    """The points of ``e``'s symbols in ``[lo, min(hi, top)]`` (a missing lower bound is
    ``-top``) that satisfy the ranges (symbolic bounds evaluated at the point)."""
    names = sorted(_closure({str(s) for s in e.free_symbols}, ranges))
    axes = []
    for n in names:
        lo, hi = ranges.get(n, (None, None))  # type: ignore[misc]
        lo_v = lo if isinstance(lo, int) else (0 if lo is not None else -top)
        hi_v = hi if isinstance(hi, int) else top
        axes.append(range(lo_v, min(hi_v, top) + 1))
    points = []
    for values in itertools.product(*axes):
        point = dict(zip(names, values))
        if _inside(point, ranges):
            points.append(point)
    return points


def _closure(names: set[str], ranges: Spec) -> set[str]:
    """``names`` and the symbols their symbolic bounds mention, transitively."""
    todo = list(names)
    while todo:
        for bound in ranges.get(todo.pop(), (None, None)):  # type: ignore[attr-defined]
            if isinstance(bound, str):
                for s in ia.parse(bound).free_symbols:
                    if str(s) not in names:
                        names.add(str(s))
                        todo.append(str(s))
    return names


def _inside(point: dict[str, int], ranges: Spec) -> bool:
    for n, v in point.items():
        lo, hi = ranges.get(n, (None, None))  # type: ignore[misc]
        for bound, below in ((lo, True), (hi, False)):
            if bound is None:
                continue
            b = ia.evaluate(ia.parse(str(bound)), point) if isinstance(bound, str) else bound
            if (v < b) if below else (v > b):
                return False
    return True


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.before)
def test_output(case: Case) -> None:
    out = ia.simplify(ia.parse(case.before), case.ranges)
    assert out is ia.parse(case.after), str(out)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.before)
def test_value_on_a_box_and_idempotence(case: Case) -> None:
    before = ia.parse(case.before)
    out = ia.simplify(before, case.ranges)
    checked = 0
    for point in _box(before, case.ranges, case.box):
        try:
            want = ia.evaluate(before, point)
        except ia.IndexAlgError:
            continue
        assert ia.evaluate(out, point) == want, point
        checked += 1
    assert checked >= 10
    assert ia.simplify(out, case.ranges) is out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.before)
def test_never_more_divisions(case: Case) -> None:
    before, after = ia.parse(case.before), ia.parse(case.after)
    assert cost(after)[0] <= cost(before)[0]


def test_cost_counts_each_occurrence() -> None:
    assert cost(ia.parse("s0*(x // 2) - 2*(x // 2)"))[0] == 2
    assert cost(ia.parse("ModularIndexing(x, 4, 8) + ModularIndexing(x, 1, 8)"))[0] == 3


def test_expansion_kept_where_nothing_is_copied() -> None:
    """A product whose other factors hold no division or Min/Max expands as before."""
    out = ia.simplify("(x + 1)*Max(1, s0 - 2)", {"s0": (3, None)})
    assert out is ia.parse("s0*x + s0 - 2*x - 2")
