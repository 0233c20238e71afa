"""Witness points: which points a context gets, and the proof attempts they skip."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import indexalg as ia
import indexalg.analysis.decide
from indexalg.analysis.context import context_for
from indexalg.analysis.decide import decide_in, holds_in
from indexalg.analysis.witness import witness_points, witness_values
from indexalg.parse import parse
from indexalg.ranges import as_ranges

decide_mod = sys.modules["indexalg.analysis.decide"]

_HEADS = {
    "s0": (2, None),
    "s33": (2, None),
    "s34": (4, None),
    "xindex": (0, "4*s34 - 1"),
    "yindex": (0, "2*s0*s33 - 1"),
}


def _ctx(r: dict[str, Any]) -> Any:
    ia.clear_caches()
    return context_for(as_ranges(r))


def _named(ctx: Any) -> list[dict[str, int]]:
    return [{str(k.payload): v for k, v in p.items()} for p in witness_points(ctx)]


def test_corners_follow_the_symbolic_bounds() -> None:
    # sizes first; an open upper side is taken 7 past its lower bound (odd: the corners
    # differ in parity)
    assert _named(_ctx(_HEADS)) == [
        {"s0": 2, "s33": 2, "s34": 4, "xindex": 0, "yindex": 0},
        {"s0": 9, "s33": 9, "s34": 11, "xindex": 43, "yindex": 161},
    ]


def test_a_corner_outside_a_fact_is_left_out() -> None:
    ctx = _ctx({"x": (0, 10), "y": (0, 10), "x + y": (0, 3)})
    assert _named(ctx) == [{"x": 0, "y": 0}]


def test_no_points_when_a_bound_mentions_a_symbol_without_a_range() -> None:
    ctx = _ctx({"x": (0, "n - 1")})
    assert witness_points(ctx) == ()
    assert witness_values(parse("x"), ctx) == ()


def test_an_empty_range_gives_no_point() -> None:
    # n in [1, 3] and x in [n, 2]: the upper corner (n = 3) leaves x no value
    assert _named(_ctx({"n": (1, 3), "x": ("n", 2)})) == [{"n": 1, "x": 1}]


def test_a_point_with_a_zero_divisor_says_nothing() -> None:
    ctx = _ctx({"s": (0, 4), "x": (0, 9)})
    assert witness_values(parse("x // s"), ctx) == (None, 2)
    assert witness_values(parse("y + x"), ctx) == ()  # y has no range


def test_a_claim_false_at_a_corner_skips_the_symbolic_passes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ctx = _ctx(_HEADS)
    calls: list[Any] = []

    def counting(*args: Any, **kw: Any) -> Any:
        calls.append(args)
        return None

    monkeypatch.setattr(decide_mod, "sym_bound", counting)
    # yindex < 2*s0 is true at the lower corner and false at the upper (127 >= 16)
    assert holds_in(parse("yindex < 2*s0"), ctx, True) is False
    assert decide_in(parse("yindex < 2*s0"), ctx) is None
    assert calls == []
    # a claim the corners do not refute still gets its symbolic passes: xindex < 4*s34
    ia.clear_caches()
    ctx = context_for(as_ranges(_HEADS))
    holds_in(parse("xindex < 4*s34"), ctx, True)
    assert calls


def test_the_symbolic_proof_still_answers_true_claims() -> None:
    ctx = _ctx(_HEADS)
    assert holds_in(parse("xindex < 4*s34"), ctx, True) is True
    assert holds_in(parse("yindex < 2*s0*s33"), ctx, True) is True
    assert decide_in(parse("yindex >= 2*s0*s33"), ctx) is False


def test_points_disagree_only_on_claims_true_somewhere_and_false_elsewhere() -> None:
    from indexalg.analysis.witness import points_disagree

    ctx = _ctx(_HEADS)
    assert points_disagree(parse("yindex < 2*s0"), ctx)
    assert not points_disagree(parse("xindex < 4*s34"), ctx)  # true everywhere
    assert not points_disagree(parse("yindex < 0"), ctx)  # false everywhere
    assert not points_disagree(parse("z < 2"), ctx)  # z has no range: no points


def test_the_plugin_answers_a_disagreeing_claim_undecided_without_simplifying(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from indexalg.inductor import _entries

    asked: list[Any] = []
    real = ia.simplify

    def spy(*args: Any, **kw: Any) -> Any:
        asked.append(args[0])
        return real(*args, **kw)

    monkeypatch.setattr(ia, "simplify", spy)
    r = as_ranges(_HEADS)
    assert _entries._decide_claim(parse("yindex < 2*s0"), r) is None
    assert asked == []
    # a claim the corners agree on still gets the simplifier's attempt
    assert _entries._decide_claim(parse("ModularIndexing(yindex, 1, s0) < s0 + 1"), r) is True
    assert _entries._decide_claim(parse("Eq(xindex + yindex, 3)"), r) is None
    assert asked == [parse("Eq(xindex + yindex, 3)")]  # false at both corners: simplified
