"""Soundness of the range analyses.

* ``bounds(e, r) = (lo, hi)``: every value of ``e`` at an in-range point (where it is defined)
  lies in ``[lo, hi]``, symbolic bounds evaluated at the same point; on small ranges, at
  every point.
* ``congruence(e, r) = (m, r0)``: every such value is ``r0`` (m = 0) or ``≡ r0 (mod m)``.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, event, given
from prop_support import examples

from indexalg.analysis import bounds
from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import Expr, Integer
from indexalg.ranges import RangeSpec
from indexalg.testing.fuzz import expr_cases
from indexalg.testing.oracles import check_bounds, check_congruence, exhaustive_points
from indexalg.testing.strategies import exprs, ranges

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]


@examples(150)
@given(expr_cases())
def test_bounds_contain_every_sampled_value(case: Case) -> None:
    e, r, points = case
    check_bounds(e, r, points)


@examples(60)
@given(
    exprs(variables=("x", "y"), max_leaves=8),
    ranges(("x", "y"), max_extent=16, allow_unbounded=False),
)
def test_numeric_bounds_contain_every_value_of_small_ranges(e: Expr, r: dict[str, Any]) -> None:
    points = exhaustive_points(r, variables=e.free_symbols)
    assume(points is not None)
    assert points is not None
    lo, hi = check_bounds(e, r, points)
    values = []
    for p in points:
        try:
            values.append(evaluate(e, p))
        except IndexAlgError:
            continue
    # How tight the analysis is (not a failure): shown by --hypothesis-show-statistics.
    if values and type(lo) is Integer and type(hi) is Integer:
        exact = lo.payload == min(values) and hi.payload == max(values)
        event("bounds exact" if exact else "bounds loose")


@examples(150)
@given(expr_cases())
def test_congruence_holds_at_every_sampled_value(case: Case) -> None:
    e, r, points = case
    check_congruence(e, r, points)


@examples(40)
@given(
    exprs(variables=("x", "y"), max_leaves=8),
    ranges(("x", "y"), max_extent=16, allow_unbounded=False),
)
def test_congruence_holds_at_every_point_of_small_ranges(e: Expr, r: dict[str, Any]) -> None:
    points = exhaustive_points(r, variables=e.free_symbols)
    assume(points is not None)
    assert points is not None
    check_congruence(e, r, points)


def test_bounds_are_checked_against_symbolic_sizes() -> None:
    # x < s0 gives x + s0 the bounds [s0, 2*s0 - 1] (issue 3): evaluated per point.
    from indexalg.parse import parse

    e = parse("x + s0")
    r: dict[str, RangeSpec] = {"x": "s0", "s0": (1, 8)}
    points = exhaustive_points(r, variables=e.free_symbols)
    assert points is not None and len(points) == 36
    lo, hi = check_bounds(e, r, points)
    assert bounds(e, r) == (lo, hi)
