"""Minimal cases found by the property suite and ``indexalg fuzz``, kept as regression tests.

Each row names the property that found it.  Simplifier rows: ``simplify`` must not raise
on a well-formed expression, and must keep its value wherever it is defined in the ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import indexalg as ia
from indexalg.testing.oracles import (
    check_bounds,
    check_simplify,
    check_text_round_trip,
    exhaustive_points,
)


@dataclass(frozen=True)
class Case:
    expr: str
    ranges: dict[str, Any]
    found_by: str


# A range that pins a symbol to one value makes a symbolic divisor a literal zero (or a
# ModularIndexing divisor below 1): the input has no value there, and folding the pinned
# value into the divisor must not make simplify raise.
SIMPLIFY_CASES = [
    Case("x // x", {"x": (0, 0), "y": (0, 0), "z": (0, 0)}, "indexalg fuzz --seed 0"),
    Case("y // x", {"x": (0, 0)}, "indexalg fuzz --seed 0 (variant)"),
    Case("ModularIndexing(x, x, 1)", {"x": 1}, "test_same_node_when_no_rule_fired"),
    Case("ModularIndexing(y, x, 4)", {"x": (0, 0)}, "variant of the above"),
    Case("y % (x - 3)", {"x": (3, 3)}, "variant of the above"),
]


@pytest.mark.parametrize("case", SIMPLIFY_CASES, ids=lambda c: c.expr)
def test_simplify_regressions(case: Case) -> None:
    e = ia.parse(case.expr)
    points = exhaustive_points(case.ranges, variables=e.free_symbols, limit=64)
    check_simplify(e, case.ranges, points or [])


# Text round trips: parse(str(e)) is e.  Built with constructors, not parsed, since the
# printed text is what is under test.
x, y = ia.symbols("x y")
TEXT_CASES = [
    (x - y, "property text: a negated symbol term printed as 'x - y*'"),
    (1 - x, "property text: '-x* + 1'"),
    (x - ia.Min(x, y), "strategies smoke run: 'x - None*x*y'"),
]


@pytest.mark.parametrize("e", [c[0] for c in TEXT_CASES], ids=[c[1] for c in TEXT_CASES])
def test_text_round_trip_regressions(e: ia.Expr) -> None:
    check_text_round_trip(e)


# Bounds, found by the 1,000,000-example campaign (`indexalg fuzz --seed 1 --property
# combined`).  bounds must not raise, and a symbolic bound must have a value wherever the
# expression has one: here the Where selects the defined branch at z = 0, but the bounds
# returned were Min(0, z // z) / Max(0, z // z), which have no value there.
@dataclass(frozen=True)
class BoundsCase:
    expr: str
    ranges: dict[str, Any]
    points: tuple[dict[str, int], ...]
    found_by: str


BOUNDS_CASES = [
    BoundsCase(
        "Where(s1 < Where(x < 0, x, x), 0, 1)",
        {"s1": (1, None), "x": "s1"},
        ({"s1": 1, "x": 0}, {"s1": 3, "x": 2}),
        "campaign seed 1: RecursionError in bounds (shrunk by hand from the campaign's case)",
    ),
    BoundsCase(
        "Where(s1 < Where(x < 0, x, x), x, x)",
        {"s0": (1, None), "s1": (1, None), "x": (0, "s1 - 1")},
        ({"s0": 1, "s1": 1, "x": 0},),
        "campaign seed 1: RecursionError in bounds",
    ),
    BoundsCase(
        "Where(x < 1, x, z // z)",
        {"x": (0, 1)},
        ({"x": 0, "z": 0}, {"x": 1, "z": 1}),
        "campaign seed 1: bound has no value at x=0 z=0",
    ),
    BoundsCase(
        "Where(y < x, x, CleanDiv(z*z, z))",
        {"x": (0, 1), "y": (0, 0)},
        ({"x": 1, "y": 0, "z": 0},),
        "campaign seed 1: bound has no value at x=1 y=0 z=0",
    ),
]


@pytest.mark.parametrize("case", BOUNDS_CASES, ids=lambda c: c.expr)
def test_bounds_regressions(case: BoundsCase) -> None:
    check_bounds(ia.parse(case.expr), case.ranges, case.points)
