"""The Z3 encoding (indexalg.interop.z3): every IR op covered, the floor semantics of
docs/semantics.md for every sign of divisor, and the evaluator's error semantics as ``defined``."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

z3 = pytest.importorskip("z3")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import indexalg as ia  # noqa: E402
from indexalg.errors import InteropError, InvalidOperationError  # noqa: E402
from indexalg.expr import ALL_OPS, Wild  # noqa: E402
from indexalg.interop.z3 import Z3_TABLE, Z3Encoder, missing_ops  # noqa: E402
from indexalg.rules.base import consts, wilds  # noqa: E402
from indexalg.testing.strategies import exprs  # noqa: E402

a, b, c, x, y, z = ia.symbols("a b c x y z")


def z3_value(e: ia.Expr, env: dict[str, int], *, flatten: bool = False) -> tuple[bool, object]:
    """(defined, value) of ``e`` at ``env`` through the encoding: the encoded term with the
    values substituted, simplified by Z3 to a literal."""
    enc = Z3Encoder(flatten_divisions=flatten)
    term, defined = enc.term(e), enc.defined(e)
    pairs = [(enc.var(s), z3.IntVal(env[s.payload])) for s in e.free_symbols]
    d = z3.simplify(z3.substitute(defined, *pairs)) if pairs else z3.simplify(defined)
    assert z3.is_true(d) or z3.is_false(d), f"definedness of {e} did not fold: {d}"
    v = z3.simplify(z3.substitute(term, *pairs)) if pairs else z3.simplify(term)
    if not z3.is_true(d):
        return False, None
    if z3.is_true(v) or z3.is_false(v):
        return True, z3.is_true(v)
    return True, v.as_long()


def reference(e: ia.Expr, env: dict[str, int]) -> tuple[bool, object]:
    try:
        return True, ia.evaluate(e, env)
    except InvalidOperationError:
        return False, None


def test_every_ir_op_has_an_encoding() -> None:
    assert missing_ops() == ()
    assert set(ALL_OPS) | {Wild} == set(Z3_TABLE)


@dataclass(frozen=True)
class Case:
    expr: ia.Expr
    env: dict[str, int]
    expected: int | bool | None  # None: undefined (the evaluator raises)


def _ab(op: type[ia.Expr], rows: list[tuple[int, int, int | None]]) -> list[Case]:
    return [Case(op(a, b), {"a": va, "b": vb}, want) for va, vb, want in rows]


CASES: list[Case] = [
    # floor division and Python remainder for every sign (SMT-LIB's div/mod are Euclidean)
    *_ab(ia.FloorDiv, [(7, 2, 3), (-7, 2, -4), (7, -2, -4), (-7, -2, 3), (7, 0, None)]),
    *_ab(ia.Mod, [(7, 2, 1), (-7, 2, 1), (7, -2, -1), (-7, -2, -1), (7, -3, -2), (5, 0, None)]),
    *_ab(ia.CeilDiv, [(5, 2, 3), (-5, 2, -2), (5, -2, -2), (-5, -2, 3), (1, 0, None)]),
    *_ab(ia.CleanDiv, [(8, -2, -4), (-7, 2, -4), (3, 0, None)]),
    Case(ia.ModularIndexing(a - 1, 1, 8), {"a": 0}, 7),
    Case(ia.ModularIndexing(a, b, c), {"a": -100, "b": 3, "c": 7}, 1),
    Case(ia.ModularIndexing(a, b, c), {"a": 5, "b": 0, "c": 7}, None),
    Case(ia.ModularIndexing(a, b, c), {"a": 5, "b": -1, "c": 7}, None),
    Case(ia.ModularIndexing(a, b, c), {"a": 5, "b": 1, "c": -7}, None),
    # Inductor's fold FloorDiv(FloorDiv(n, 2), -3) -> n // -6 differs at 7
    Case(ia.FloorDiv(ia.FloorDiv(a, 2), -3), {"a": 7}, -1),
    Case(ia.FloorDiv(a, -6), {"a": 7}, -2),
    Case(ia.Min(a, b, c), {"a": 3, "b": -1, "c": 2}, -1),
    Case(ia.Max(a, 2 * b), {"a": 3, "b": 4}, 8),
    # Where evaluates only the branch it takes
    Case(ia.Where(a < 0, a + 8, a), {"a": -3}, 5),
    Case(ia.Where(ia.Eq(b, 0), a, ia.FloorDiv(a, b)), {"a": 5, "b": 0}, 5),
    Case(ia.Where(ia.Ne(b, 0), a, ia.FloorDiv(a, b)), {"a": 5, "b": 0}, None),
    # claims, and And/Or stopping at the argument that decides them
    Case(ia.And(a < b, ia.Ne(b, 3)), {"a": 1, "b": 3}, False),
    Case(ia.Or(a < 0, ia.Eq(ia.Mod(a, b), 0)), {"a": -1, "b": 0}, True),
    Case(ia.Not(a <= b), {"a": 1, "b": 1}, False),
    Case(ia.true, {}, True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.expr))
def test_encoding_matches_the_semantics(case: Case) -> None:
    defined, value = z3_value(case.expr, case.env)
    assert reference(case.expr, case.env) == (defined, value if defined else None)
    if case.expected is None:
        assert not defined
    else:
        assert defined and value == case.expected


RANDOM_EXPRS = [
    ia.FloorDiv(x, y),
    ia.Mod(x, y),
    ia.CeilDiv(x, y),
    ia.CleanDiv(x + 3, y),
    ia.ModularIndexing(x, y, z),
    ia.FloorDiv(ia.FloorDiv(x, y), z),
    ia.ModularIndexing(ia.FloorDiv(x, y), z, 5),
    ia.FloorDiv(x, y * z),
    ia.Min(x, y, z) + ia.Max(x, 2 * y),
    ia.Where(x < y, ia.FloorDiv(z, x), ia.Mod(z, y)),
    x - ia.FloorDiv(x, 2),
    ia.Mod(3 * x - y, -7) + ia.CeilDiv(x * y, -5),
]


@pytest.mark.parametrize("flatten", [False, True], ids=["plain", "flattened"])
@pytest.mark.parametrize("e", RANDOM_EXPRS, ids=str)
def test_encoding_agrees_with_the_evaluator_at_random_points(e: ia.Expr, flatten: bool) -> None:
    rng = random.Random(str(e))
    for _ in range(150):
        env = {s.payload: rng.randint(-12, 12) for s in e.free_symbols}
        assert z3_value(e, env, flatten=flatten) == reference(e, env), env


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    exprs(variables=("x", "y", "z"), max_leaves=6),
    st.lists(st.integers(-40, 40), min_size=3, max_size=3),
)
def test_encoding_agrees_with_the_evaluator_on_generated_expressions(
    e: ia.Expr, values: list[int]
) -> None:
    env = dict(zip(("x", "y", "z"), values))
    assert z3_value(e, env) == reference(e, env)
    assert z3_value(e, env, flatten=True) == reference(e, env)


def test_symbol_and_wild_of_one_name_get_distinct_variables() -> None:
    (wx,) = wilds("x")
    enc = Z3Encoder()
    assert str(enc.var(x)) == "x"
    assert str(enc.var(wx)) == "x!2"
    assert enc.names["x!2"] is wx


def test_wild_definedness_flags_only_for_non_constant_wilds() -> None:
    (wx,) = wilds("x")
    (c1,) = consts("c1")
    enc = Z3Encoder(wild_definedness=True)
    assert z3.is_true(enc.defined(c1))
    flag = enc.defined(wx)
    assert str(flag) == "defined!x"
    assert enc.wild_flags == {wx: flag}
    assert z3.is_true(Z3Encoder().defined(wx))


def test_literal_divisors_need_no_if() -> None:
    enc = Z3Encoder()
    assert enc.term(ia.FloorDiv(x, -3)).sexpr() == "(div (- x) 3)"
    assert enc.term(ia.FloorDiv(x, 8)).sexpr() == "(div x 8)"
    assert "ite" in enc.term(ia.FloorDiv(x, y)).sexpr()


def test_only_symbols_and_wilds_are_variables() -> None:
    with pytest.raises(InteropError, match="only symbols and pattern variables"):
        Z3Encoder().var(x + 1)


def test_fresh_contexts_are_independent() -> None:
    e1 = Z3Encoder(ctx=z3.Context())
    e2 = Z3Encoder(ctx=z3.Context())
    t1, t2 = e1.term(x + 1), e2.term(x + 1)
    assert t1.ctx is not t2.ctx
    assert t1.sexpr() == t2.sexpr() == "(+ x 1)"
