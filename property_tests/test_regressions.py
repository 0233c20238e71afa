"""Minimal cases found by the property suite and ``indexalg fuzz``, kept as regression tests.

Each row names the property that found it.  Simplifier rows: ``simplify`` must not raise
on a well-formed expression, and must keep its value wherever it is defined in the ranges.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

import indexalg as ia
from indexalg.testing.oracles import check_simplify, check_text_round_trip, exhaustive_points


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
