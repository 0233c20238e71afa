"""The three simplifier properties (docs/fuzzing.md, check_simplify), on Inductor-style expressions:

* value preservation: at every in-range point where the input evaluates, the result has the
  same value (points: one drawn inside the ranges plus the lower and upper corners; for
  small ranges, every point);
* idempotence: ``simplify(simplify(e, r), r) is simplify(e, r)``;
* no rule fired (stats record no hit) => the very same node back.
"""

from __future__ import annotations

from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from prop_support import examples

from indexalg.expr import Expr
from indexalg.simplify import SimplifyResult, simplify
from indexalg.testing.fuzz import expr_cases
from indexalg.testing.oracles import check_simplify, exhaustive_points
from indexalg.testing.strategies import exprs, ranges

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]


@examples(150)
@given(expr_cases())
def test_value_preserved_idempotent_and_identity_on_no_op(case: Case) -> None:
    e, r, points = case
    check_simplify(e, r, points)


@examples(60)
@given(
    exprs(variables=("x", "y"), sizes=("s0",), max_leaves=8),
    ranges(("x", "y"), sizes=("s0",), max_extent=12, allow_unbounded=False),
)
def test_value_preserved_at_every_point_of_small_ranges(e: Expr, r: dict[str, Any]) -> None:
    points = exhaustive_points(r, variables=e.free_symbols)
    assume(points is not None)
    assert points is not None
    check_simplify(e, r, points)


@examples(80)
@given(expr_cases(sizes=("s0",)))
def test_idempotent(case: Case) -> None:
    e, r, _ = case
    once = simplify(e, r)
    assert simplify(once, r) is once


@examples(80)
@given(expr_cases(sizes=()), st.booleans())
def test_same_node_when_no_rule_fired(case: Case, resimplify: bool) -> None:
    e, r, _ = case
    if resimplify:  # a simplified expression is a fixpoint: nothing should fire on it
        e = simplify(e, r)
    result = simplify(e, r, stats=True)
    assert isinstance(result, SimplifyResult)
    hits = sum(result.stats.values())
    if hits == 0:
        assert result.expr is e
    if resimplify:
        assert result.expr is e
