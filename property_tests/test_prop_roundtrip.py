"""Round trips: the canonical text (``parse(str(e)) is e``, for expressions and claims) and
the sympy interop in both flavours (``from_sympy(to_sympy(e, flavor))`` has the value of
``e``), plus the sympy forms themselves evaluated by sympy at the same points.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from prop_support import examples

from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import Expr
from indexalg.testing.fuzz import expr_cases
from indexalg.testing.oracles import check_sympy_round_trip, check_text_round_trip
from indexalg.testing.strategies import claims, exprs

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]


@examples(200)
@given(exprs(sizes=("s0",), max_leaves=12))
def test_text_round_trip_of_expressions(e: Expr) -> None:
    check_text_round_trip(e)


@examples(100)
@given(claims(sizes=("s0",)))
def test_text_round_trip_of_claims(c: Expr) -> None:
    check_text_round_trip(c)


def _sympy_value(s_expr: Any, point: dict[str, int]) -> int | bool:
    import sympy

    value = s_expr.xreplace({s: sympy.Integer(point[str(s)]) for s in s_expr.free_symbols})
    if value in (sympy.true, sympy.false):
        return bool(value)
    return int(value)


@examples(100)
@given(expr_cases())
def test_sympy_round_trip_keeps_values(case: Case) -> None:
    pytest.importorskip("sympy")
    from indexalg.interop.sympy import to_sympy

    e, _, points = case
    check_sympy_round_trip(e, points, flavor="sympy")
    s_expr = to_sympy(e, flavor="sympy")
    for p in points:
        try:
            want = evaluate(e, p)
        except IndexAlgError:
            continue
        assert _sympy_value(s_expr, p) == want, (str(e), str(s_expr), p)


@examples(60)
@given(expr_cases())
def test_torch_round_trip_keeps_values(case: Case) -> None:
    pytest.importorskip("torch")
    from indexalg.interop.sympy import to_sympy

    e, _, points = case
    check_sympy_round_trip(e, points, flavor="torch", prop="torch")
    s_expr = to_sympy(e, flavor="torch")
    for p in points:
        try:
            want = evaluate(e, p)
        except IndexAlgError:
            continue
        assert _sympy_value(s_expr, p) == want, (str(e), str(s_expr), p)
