"""Soundness of the prover: a claim it proves holds at every in-range point (where it is
defined); a claim it disproves comes with a counterexample inside the ranges where the
claim is false.  "unknown" is always allowed.

Random claims are mostly false, so a second test builds claims that are true by
construction (``lo <= e`` and ``e <= hi`` with the analysis' own bounds, ``e == simplify(e)``)
which the prover must never disprove.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import event, given
from prop_support import examples

from indexalg.expr import Eq, Expr, Le
from indexalg.testing.fuzz import claim_cases, expr_cases
from indexalg.testing.oracles import check_proof

pytest.importorskip("z3")
from indexalg.analysis import bounds
from indexalg.simplify import simplify

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]


@examples(60)
@given(claim_cases())
def test_proofs_and_counterexamples_are_sound(case: Case) -> None:
    claim, r, points = case
    event(check_proof(claim, r, points))


@examples(40)
@given(expr_cases(sizes=("s0",), max_leaves=6))
def test_true_claims_are_never_disproved(case: Case) -> None:
    e, r, points = case
    lo, hi = bounds(e, r)
    claims: list[Expr] = [Eq(e, simplify(e, r))]
    if lo is not None:
        claims.append(Le(lo, e))
    if hi is not None:
        claims.append(Le(e, hi))
    for claim in claims:
        status = check_proof(claim, r, points)
        assert status != "disproved", f"{claim} is true by construction"
        event(status)
