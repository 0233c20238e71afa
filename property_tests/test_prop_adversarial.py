"""The second, independent generator (:mod:`indexalg.testing.adversarial`): shared
subterms, repeated factors, lowered remainders, Where on unused or unranged symbols,
symbolic, singleton and negative ranges, checked at *every* point of small domains.

* ``simplify`` keeps the value at every in-range point (and the other simplifier
  properties);
* ``bounds`` contains every value (symbolic bounds evaluated per point), and how far it is
  from the exact range is recorded (``--hypothesis-show-statistics``);
* ``prove``: a "proved" claim holds at every point, a "disproved" one has a true
  counterexample, a "vacuous" one has no point where it is defined; claims compare with
  constants at the exact bounds;
* ``congruence`` holds at every point;
* ``bounds(exact=True)`` contains every value and its numeric sides are the exact range.
"""

from __future__ import annotations

from typing import Any

from hypothesis import event, given
from prop_support import examples

from indexalg.testing.adversarial import adversarial_cases
from indexalg.testing.exhaustive import bounds_looseness, check_exact_bounds
from indexalg.testing.oracles import check_bounds, check_congruence, check_proof, check_simplify

Case = tuple[Any, dict[str, Any], list[dict[str, int]]]


@examples(120)
@given(adversarial_cases())
def test_simplify_keeps_every_value(case: Case) -> None:
    e, r, points = case
    check_simplify(e, r, points)


@examples(150)
@given(adversarial_cases())
def test_bounds_contain_every_value(case: Case) -> None:
    e, r, points = case
    found = check_bounds(e, r, points)
    kind = bounds_looseness(e, r, found, points)
    if kind is not None:
        event(f"bounds {kind}")


@examples(150)
@given(adversarial_cases(claims=True))
def test_prove_verdicts_agree_with_every_point(case: Case) -> None:
    c, r, points = case
    status = check_proof(c, r, points)
    event(f"prove {status}")


@examples(100)
@given(adversarial_cases())
def test_congruence_holds_at_every_point(case: Case) -> None:
    e, r, points = case
    check_congruence(e, r, points)


@examples(60)
@given(adversarial_cases())
def test_exact_bounds_are_the_exact_range(case: Case) -> None:
    e, r, points = case
    check_exact_bounds(e, r, points)
