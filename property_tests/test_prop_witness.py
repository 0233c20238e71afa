"""Witness points (indexalg.analysis.witness) only ever skip proof attempts that would fail.

* every witness point satisfies every range and fact of its context;
* ``decide_in`` and ``holds_in`` give the same answer with the witnesses as without them
  (the refutation is a shortcut, never a change of answer), on ranges with symbolic sizes,
  open sides and ranges keyed by expressions;
* ``simplify`` gives the same result with and without them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis import assume, given
from hypothesis import strategies as st
from prop_support import examples

import indexalg as ia
import indexalg.analysis.decide
from indexalg.analysis.context import context_for
from indexalg.analysis.decide import decide_in, holds_in
from indexalg.analysis.witness import witness_points
from indexalg.errors import IndexAlgError
from indexalg.expr import Expr
from indexalg.prove import in_ranges
from indexalg.ranges import as_ranges
from indexalg.testing.strategies import claims, exprs, ranges

decide_mod = sys.modules["indexalg.analysis.decide"]

_VARS = ("x", "y")
_SIZES = ("s0", "s1")


@contextmanager
def _without_witnesses() -> Iterator[None]:
    saved = decide_mod.witness_values
    decide_mod.witness_values = lambda e, ctx: ()
    try:
        ia.clear_caches()
        yield
    finally:
        decide_mod.witness_values = saved
        ia.clear_caches()


@st.composite
def _ranges_with_fact(draw: st.DrawFn) -> dict[Any, Any]:
    r: dict[Any, Any] = draw(ranges(_VARS, sizes=_SIZES, max_extent=64))
    if draw(st.booleans()):
        lo = draw(st.integers(-8, 8))
        r["x + y"] = (lo, lo + draw(st.integers(0, 40)))
    return r


def _ctx(r: dict[Any, Any]) -> Any:
    try:
        return context_for(as_ranges(r))
    except IndexAlgError:
        assume(False)


@examples(200)
@given(_ranges_with_fact())
def test_every_witness_point_is_in_the_ranges(r: dict[Any, Any]) -> None:
    ctx = _ctx(r)
    ranges_ = as_ranges(r)
    for point in witness_points(ctx):
        named = {str(k.payload): v for k, v in point.items()}
        assert in_ranges(named, ranges_), (r, named)


@examples(300)
@given(claims(variables=_VARS, sizes=_SIZES, max_leaves=6, max_atoms=2), _ranges_with_fact())
def test_decisions_are_the_same_without_witnesses(claim: Expr, r: dict[Any, Any]) -> None:
    ia.clear_caches()
    ctx = _ctx(r)
    try:
        with_w = (decide_in(claim, ctx), holds_in(claim, ctx, True), holds_in(claim, ctx, False))
    except IndexAlgError:
        assume(False)
    with _without_witnesses():
        ctx = _ctx(r)
        without = (decide_in(claim, ctx), holds_in(claim, ctx, True), holds_in(claim, ctx, False))
    assert with_w == without, (claim, r)


@examples(120)
@given(exprs(variables=_VARS, sizes=_SIZES, max_leaves=8), _ranges_with_fact())
def test_simplify_is_the_same_without_witnesses(e: Expr, r: dict[Any, Any]) -> None:
    ia.clear_caches()
    try:
        out = ia.simplify(e, r)
    except IndexAlgError:
        assume(False)
    with _without_witnesses():
        assert ia.simplify(e, r) is out, (e, r)
