"""The plug-in's preimage of a guard on a one-symbol expression (``_axioms.preimage``) against
brute force: for a non-decreasing expression of ``s`` and any bounds on it, the range it gives
``s`` holds exactly the values of ``s`` in its base range where the expression lies in the
bounds (so every guard-satisfying size stays inside, and nothing else does); for a
non-monotone expression it gives nothing."""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st
from prop_support import examples

from indexalg.evaluate import evaluate
from indexalg.expr import (
    CeilDiv,
    Expr,
    FloorDiv,
    Max,
    Min,
    ModularIndexing,
    Symbol,
    add,
    integer,
    mul,
)
from indexalg.inductor._axioms import non_decreasing, preimage

S = Symbol("s")
WINDOW = 300


@st.composite
def monotone(draw: st.DrawFn, depth: int = 3) -> Expr:
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return S if draw(st.booleans()) else add(S, integer(draw(st.integers(-9, 9))))
    kind = draw(st.sampled_from(["add", "mul", "floor", "ceil", "min", "max"]))
    a = draw(monotone(depth - 1))
    if kind == "add":
        return add(a, draw(st.one_of(st.integers(-20, 20).map(integer), monotone(depth - 1))))
    if kind == "mul":
        return mul(integer(draw(st.integers(1, 5))), a)
    if kind in ("floor", "ceil"):
        k = integer(draw(st.integers(1, 7)))
        return FloorDiv.make(a, k) if kind == "floor" else CeilDiv.make(a, k)
    b = draw(st.one_of(st.integers(-20, 40).map(integer), monotone(depth - 1)))
    return Min.make(a, b) if kind == "min" else Max.make(a, b)


def _brute(e: Expr, lo_s: int, hi_s: int, lo_e: int | None, hi_e: int | None) -> list[int]:
    out = []
    for v in range(lo_s, hi_s + 1):
        x = int(evaluate(e, {"s": v}))
        if (lo_e is None or x >= lo_e) and (hi_e is None or x <= hi_e):
            out.append(v)
    return out


@examples(300)
@given(
    monotone(),
    st.integers(-10, 40),
    st.integers(0, WINDOW),
    st.one_of(st.none(), st.integers(-30, 200)),
    st.one_of(st.none(), st.integers(-30, 200)),
)
def test_preimage_is_exact_on_a_bounded_range(
    e: Expr, lo_s: int, width: int, lo_e: int | None, hi_e: int | None
) -> None:
    assume(e.symbol_set == frozenset({S}))
    assert non_decreasing(e, S)
    hi_s = lo_s + width
    got = preimage(e, S, (lo_s, hi_s), (lo_e, hi_e))
    want = _brute(e, lo_s, hi_s, lo_e, hi_e)
    if not want:
        assert got is None
        return
    assert got is not None and want == list(range(got[0], got[1] + 1)), (str(e), got, want[:5])


@examples(200)
@given(monotone(), st.integers(-10, 40), st.integers(-30, 200), st.integers(0, 200))
def test_preimage_of_an_unbounded_range_keeps_every_value(
    e: Expr, lo_s: int, lo_e: int, span: int
) -> None:
    """Base range ``[lo_s, oo)``: the preimage's values agree with brute force as far as the
    window looks, and it is unbounded above exactly when no value passes the upper bound."""
    assume(e.symbol_set == frozenset({S}))
    hi_e = lo_e + span
    got = preimage(e, S, (lo_s, None), (lo_e, hi_e))
    want = _brute(e, lo_s, lo_s + 4 * WINDOW, lo_e, hi_e)
    if got is None:
        assert not want
        return
    lo, hi = got
    inside = [v for v in range(lo_s, lo_s + 4 * WINDOW + 1) if v >= lo and (hi is None or v <= hi)]
    if hi is not None and hi <= lo_s + 4 * WINDOW:
        assert inside == want, (str(e), got, want[:5])
    else:  # unbounded or beyond the window: the window's part must agree
        assert inside[: len(want)] == want or set(want) <= set(inside), (str(e), got)
        assert set(want) <= set(inside)


def test_non_monotone_expressions_are_left_alone() -> None:
    for e in (
        mul(integer(-1), S),
        add(integer(10), mul(integer(-2), S)),
        ModularIndexing.make(S, integer(1), integer(4)),
        mul(S, Symbol("t")),
    ):
        assert not non_decreasing(e, S)
        assert preimage(e, S, (0, 100), (3, 3)) is None


def test_the_conv_guard_decides_the_pooling_claims() -> None:
    """``(s87 - 3)//2 == 2`` (a guard a dynamic conv block took) bounds ``s87`` to 7..8."""
    e = FloorDiv.make(add(S, integer(-3)), integer(2))
    assert preimage(e, S, (2, None), (2, 2)) == (7, 8)
    assert preimage(e, S, (2, None), (2, None)) == (7, None)
    assert preimage(e, S, (2, None), (None, 1)) == (2, 6)


def test_cleandiv_facts_and_claims_meet_as_floor_divisions() -> None:
    """A guard on ``CleanDiv(2*s, s // 4)`` and a claim on ``2*s // (s // 4)`` name the same
    value once both are read with floor divisions."""
    from indexalg import parse
    from indexalg.expr import CleanDiv
    from indexalg.inductor._axioms import floor_for_clean

    q = FloorDiv.make(S, integer(4))
    clean = add(integer(1), CleanDiv.make(mul(integer(2), S), q))
    assert floor_for_clean(clean) == add(integer(1), FloorDiv.make(mul(integer(2), S), q))
    plain = parse("2*s // (s // 4) + 1")
    assert floor_for_clean(plain) is plain
    for v in range(4, 200, 4):  # the same values where the producer's divisibility holds
        assert evaluate(clean, {"s": v}) == evaluate(floor_for_clean(clean), {"s": v})
