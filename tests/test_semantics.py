"""The semantics of docs/semantics.md, op by op, through the reference evaluator; and the canonical
forms the constructors build (the only simplification they do)."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
from dataclasses import dataclass

import pytest

import indexalg as ia
from indexalg.errors import (
    DivisionByZeroError,
    ExprTypeError,
    InvalidOperationError,
    UnboundSymbolError,
)
from indexalg.expr import Mul, Wild

a, b, c, d, m, n = ia.symbols("a b c d m n")
x, y, z = ia.symbols("x y z")
p, q = x < 0, y < 0


@dataclass(frozen=True)
class Case:
    expr: ia.Expr
    env: dict[str, int]
    expected: int | bool


def _ab(op: type[ia.Expr], rows: list[tuple[int, int, int]]) -> list[Case]:
    return [Case(op(a, b), {"a": va, "b": vb}, want) for va, vb, want in rows]


VALUE_CASES: list[Case] = [
    # FloorDiv = ⌊a/b⌋ (Python //) for every sign.
    *_ab(ia.FloorDiv, [(7, 2, 3), (-7, 2, -4), (7, -2, -4), (-7, -2, 3), (0, -3, 0)]),
    *_ab(ia.FloorDiv, [(6, -3, -2), (-1, 8, -1), (-8, 8, -1), (-9, 8, -2)]),
    # Mod = a − b·⌊a/b⌋: the sign of the divisor.
    *_ab(ia.Mod, [(7, 2, 1), (-7, 2, 1), (7, -2, -1), (-7, -2, -1), (-1, 8, 7)]),
    *_ab(ia.Mod, [(6, -3, 0), (1, -8, -7), (0, -5, 0)]),
    # CeilDiv = ⌈a/b⌉ for either sign of b (torch's a + b - 1 trick gives -1 at (5, -2)).
    *_ab(ia.CeilDiv, [(5, 2, 3), (-5, 2, -2), (5, -2, -2), (-5, -2, 3), (6, 3, 2)]),
    *_ab(ia.CeilDiv, [(0, -4, 0), (1, 64, 1), (-1, 64, 0), (7, -1, -7)]),
    # CleanDiv evaluates as ⌊a/b⌋ whether or not b divides a.
    *_ab(ia.CleanDiv, [(8, -2, -4), (-7, 2, -4), (7, 2, 3)]),
    # ModularIndexing(a, d, m) = (a // d) % m, in [0, m).
    Case(ia.ModularIndexing(a - 1, 1, 8), {"a": 0}, 7),  # Inductor printed -1 here
    Case(ia.ModularIndexing(a, 64, 8), {"a": -1}, 7),
    Case(ia.ModularIndexing(a, 64, 8), {"a": 1000}, 7),
    Case(ia.ModularIndexing(a, 64, 8), {"a": -65}, 6),
    Case(ia.ModularIndexing(a, d, m), {"a": 100, "d": 3, "m": 7}, 5),
    Case(ia.ModularIndexing(a, d, m), {"a": -100, "d": 3, "m": 7}, 1),
    Case(ia.ModularIndexing(a, 1, m), {"a": 5, "m": 1}, 0),
    # Inductor folded FloorDiv(FloorDiv(n, 2), -3) into n // -6: -2 at n = 7, not -1.
    Case(ia.FloorDiv(ia.FloorDiv(n, 2), -3), {"n": 7}, -1),
    Case(ia.FloorDiv(ia.FloorDiv(n, 2), -3), {"n": -7}, 1),
    Case(ia.FloorDiv(ia.FloorDiv(n, 2), -3), {"n": 5}, -1),
    # Min / Max, n-ary.
    Case(ia.Min(a, b, c), {"a": 3, "b": -4, "c": 0}, -4),
    Case(ia.Max(a, b, c), {"a": 3, "b": -4, "c": 0}, 3),
    Case(ia.Min(a, -2), {"a": -1}, -2),
    Case(ia.Max(a, -2), {"a": -5}, -2),
    # Where selects; the wrap-around idiom.
    Case(ia.Where(a < 0, a + n, a), {"a": -3, "n": 10}, 7),
    Case(ia.Where(a < 0, a + n, a), {"a": 4, "n": 10}, 4),
    # Sums and products.
    Case(2 * a * b - 3, {"a": -2, "b": 5}, -23),
    Case(a * a * a, {"a": -3}, -27),
    Case(-a + 4 * b - 1, {"a": 2, "b": -1}, -7),
    # Claims.
    Case(a < b, {"a": -1, "b": 0}, True),
    Case(a < b, {"a": 0, "b": 0}, False),
    Case(a <= b, {"a": 0, "b": 0}, True),
    Case(a > b, {"a": 1, "b": 0}, True),
    Case(a >= b, {"a": -1, "b": 0}, False),
    Case(ia.Eq(a, 2 * b), {"a": -4, "b": -2}, True),
    Case(ia.Ne(a, 2 * b), {"a": -4, "b": -2}, False),
    Case(ia.And(a < b, b < c), {"a": 1, "b": 2, "c": 3}, True),
    Case(ia.And(a < b, b < c), {"a": 1, "b": 2, "c": 2}, False),
    Case(ia.Or(a < 0, b < 0), {"a": 1, "b": -2}, True),
    Case(ia.Or(a < 0, b < 0), {"a": 1, "b": 2}, False),
    Case(ia.Not(a < 0), {"a": -1}, False),
    Case(ia.true, {}, True),
    Case(ia.false, {}, False),
]


@pytest.mark.parametrize("case", VALUE_CASES, ids=lambda c: f"{c.expr} @ {c.env}")
def test_value(case: Case) -> None:
    got = ia.evaluate(case.expr, case.env)
    assert got == case.expected
    assert type(got) is type(case.expected)  # claims are bools, integers are ints


@dataclass(frozen=True)
class ErrorCase:
    expr: ia.Expr
    env: dict[str, int]
    error: type[Exception]
    match: str


ERROR_CASES: list[ErrorCase] = [
    ErrorCase(ia.FloorDiv(a, b), {"a": 1, "b": 0}, DivisionByZeroError, "division by zero"),
    ErrorCase(ia.Mod(a, b), {"a": 1, "b": 0}, DivisionByZeroError, "remainder by zero"),
    ErrorCase(ia.CeilDiv(a, b), {"a": 1, "b": 0}, DivisionByZeroError, "division by zero"),
    ErrorCase(ia.CleanDiv(a, b), {"a": 0, "b": 0}, DivisionByZeroError, "division by zero"),
    ErrorCase(ia.FloorDiv(7, b - 2), {"b": 2}, DivisionByZeroError, "division by zero"),
    ErrorCase(ia.ModularIndexing(a, d, 8), {"a": 5, "d": 0}, InvalidOperationError, "divisor"),
    ErrorCase(ia.ModularIndexing(a, d, 8), {"a": 5, "d": -2}, InvalidOperationError, "divisor"),
    ErrorCase(ia.ModularIndexing(a, 2, m), {"a": 5, "m": 0}, InvalidOperationError, "modulus"),
    ErrorCase(ia.ModularIndexing(a, 2, m), {"a": 5, "m": -8}, InvalidOperationError, "modulus"),
    ErrorCase(a + b, {"a": 1}, UnboundSymbolError, "'b'"),
    ErrorCase(ia.Where(c < 0, 1, 2), {}, UnboundSymbolError, "'c'"),
    ErrorCase(Wild("w") + 1, {}, InvalidOperationError, "pattern variable"),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: f"{c.expr} @ {c.env}")
def test_evaluation_error(case: ErrorCase) -> None:
    with pytest.raises(case.error, match=case.match):
        ia.evaluate(case.expr, case.env)


def test_unbound_symbol_error_names_the_symbol() -> None:
    with pytest.raises(UnboundSymbolError) as info:
        ia.evaluate(x * y, {"x": 1})
    assert info.value.name == "y"


@pytest.mark.parametrize(
    ("expr", "env", "expected"),
    [
        # The unselected branch would divide by zero / has an unbound symbol: not evaluated.
        (ia.Where(ia.Eq(b, 0), 0, ia.FloorDiv(a, b)), {"a": 5, "b": 0}, 0),
        (ia.Where(ia.Eq(b, 0), 0, ia.FloorDiv(a, b)), {"a": 5, "b": -2}, -3),
        (ia.Where(a < 0, ia.ModularIndexing(a, d, 8), 1), {"a": 1, "d": 0}, 1),
        (ia.Where(a < 0, z, 1), {"a": 1}, 1),
        (ia.Where(a < 0, 1, z), {"a": -1}, 1),
    ],
)
def test_where_evaluates_only_the_selected_branch(
    expr: ia.Expr, env: dict[str, int], expected: int
) -> None:
    assert ia.evaluate(expr, env) == expected


def test_environment_accepts_symbol_keys_and_refuses_non_integers() -> None:
    assert ia.evaluate(x + 2 * y, {x: 1, y: -3}) == -5
    with pytest.raises(ExprTypeError, match="int"):
        ia.evaluate(x + 1, {"x": True})
    with pytest.raises(ExprTypeError, match="int"):
        ia.evaluate(x + 1, {"x": 1.5})  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# Constructor canonical forms


@pytest.mark.parametrize(
    ("built", "canonical"),
    [
        # like terms combined, zero terms dropped
        (x + x, 2 * x),
        (x - x, ia.Integer(0)),
        (3 * x + y - 3 * x, y),
        (x * y - y * x, ia.Integer(0)),
        # order of operands does not matter (sorted structurally)
        (y + x, x + y),
        (y * x * z, x * z * y),
        (ia.Min(y, x, 3), ia.Min(3, x, y)),
        (ia.Max(y, ia.Max(x, y)), ia.Max(x, y)),
        (ia.And(q, p), ia.And(p, q)),
        (ia.Eq(y, x), ia.Eq(x, y)),
        (ia.Ne(3, x), ia.Ne(x, 3)),
        # products of sums are expanded
        ((x + 1) * (x - 1), x * x - 1),
        (2 * (x + y), 2 * x + 2 * y),
        (-(x - y + 3), y - x - 3),
        ((x + y) * (x + y), x * x + 2 * x * y + y * y),
        # literal folding, with the one semantics
        (ia.FloorDiv(7, -2), ia.Integer(-4)),
        (ia.Mod(-7, 2), ia.Integer(1)),
        (ia.Mod(7, -2), ia.Integer(-1)),
        (ia.CeilDiv(5, -2), ia.Integer(-2)),
        (ia.CeilDiv(-5, 2), ia.Integer(-2)),
        (ia.CleanDiv(-7, 2), ia.Integer(-4)),
        (ia.ModularIndexing(-1, 1, 8), ia.Integer(7)),
        (ia.ModularIndexing(-65, 64, 8), ia.Integer(6)),
        (ia.Min(3, x, 1), ia.Min(1, x)),
        (ia.Max(3, 7), ia.Integer(7)),
        (ia.Min(x), x),
        (x * 0, ia.Integer(0)),
        (ia.Lt(2, 3), ia.true),
        (ia.Le(4, 3), ia.false),
        (ia.Eq(3, 3), ia.true),
        # claims: flattened, deduplicated, units and absorbing elements
        (ia.And(p, ia.And(q, p)), ia.And(p, q)),
        (ia.And(p, ia.true), p),
        (ia.And(p, ia.false), ia.false),
        (ia.Or(p, ia.true), ia.true),
        (ia.Or(p, ia.false), p),
        (ia.Not(ia.true), ia.false),
        (ia.Where(ia.true, x, y), x),
        (ia.Where(ia.Lt(3, 2), x, y), y),
    ],
    ids=lambda e: str(e),
)
def test_constructor_canonical_form(built: ia.Expr, canonical: ia.Expr) -> None:
    assert built is canonical


@pytest.mark.parametrize(
    ("expr", "kind"),
    [
        # constructors do no simplification beyond literals and canonical sums/products
        (ia.FloorDiv(x, 1), ia.FloorDiv),
        (ia.Mod(x, 1), ia.Mod),
        (ia.ModularIndexing(x, 1, 1), ia.ModularIndexing),
        (ia.Mod(ia.Mod(x, 8), 4), ia.Mod),
        (ia.FloorDiv(2 * x, 2), ia.FloorDiv),
        (x < x, ia.Lt),
        (ia.Not(ia.Not(p)), ia.Not),
        (x * x, Mul),
    ],
    ids=str,
)
def test_constructors_do_not_simplify(expr: ia.Expr, kind: type[ia.Expr]) -> None:
    assert type(expr) is kind


def test_canonical_payloads() -> None:
    s = 3 * x * y + 2 * z - 5
    assert type(s) is ia.Add and s.payload == -5
    assert [str(t) for t in s.args] == ["3*x*y", "2*z"]
    t = -4 * y * x
    assert type(t) is Mul and t.payload == -4 and t.args == (x, y)
    assert (x * x).args == (x, x)  # repeats kept


def test_interning_gives_identity() -> None:
    e = ia.ModularIndexing(x + 2 * y, 64, 8)
    assert e is ia.ModularIndexing(2 * y + x, 64, 8)
    assert e is ia.parse("ModularIndexing(x + 2*y, 64, 8)")
    assert e is ia.parse("(x + 2*y) // 64 % 8")
    assert ia.Symbol("x") is x and ia.Integer(10**30) is ia.Integer(10**30)
    assert pickle.loads(pickle.dumps(e)) is e
    assert copy.deepcopy(e) is e and copy.copy(e) is e
    assert hash(e) == hash(ia.ModularIndexing(x + 2 * y, 64, 8))


def test_equality_is_identity_and_claims_are_built_explicitly() -> None:
    assert (x == y) is False
    assert (x + 1 == 1 + x) is True
    assert (x != y) is True
    assert type(ia.Eq(x, y)) is ia.Eq
    assert type(x < y) is ia.Lt and type(x > y) is ia.Lt
    assert (x > y) is ia.Lt(y, x) and (x >= y) is ia.Le(y, x)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: bool(x < y), ExprTypeError, "truth value"),
        (lambda: (x < 1) + 1, ExprTypeError, "booleans are not integers"),
        (lambda: x + True, ExprTypeError, "booleans are not integers"),
        (lambda: x * 1.5, ExprTypeError, "float"),  # type: ignore[operator]
        (lambda: ia.Where(x, 1, 2), ExprTypeError, "claim"),
        (lambda: ia.Not(x), ExprTypeError, "claim"),
        (lambda: ia.FloorDiv(x, 0), DivisionByZeroError, "division by zero"),
        (lambda: ia.Mod(x, 0), DivisionByZeroError, "remainder by zero"),
        (lambda: ia.CeilDiv(x, 0), DivisionByZeroError, "division by zero"),
        (lambda: ia.CleanDiv(x, 0), DivisionByZeroError, "division by zero"),
        (lambda: ia.ModularIndexing(x, 0, 8), InvalidOperationError, "divisor must be >= 1"),
        (lambda: ia.ModularIndexing(x, 2, -1), InvalidOperationError, "modulus must be >= 1"),
        (lambda: ia.Min(), InvalidOperationError, "at least one"),
        (lambda: ia.Symbol("1x"), InvalidOperationError, "identifier"),
    ],
)
def test_bad_construction_raises_a_library_error(
    build: object, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        build()  # type: ignore[operator]


def test_canonical_order_does_not_depend_on_the_hash_seed() -> None:
    code = (
        "import indexalg as ia\n"
        "x, y, z, s0 = ia.symbols('x y z s0')\n"
        "e = ia.Min(z, y, x) + 64*s0*y + ia.ModularIndexing(x, 1, s0) + 5*z*x"
        " + ia.Where(ia.Or(z < x, y < s0, ia.Eq(s0, x)), x + y, ia.Max(s0, z))\n"
        "print(e, [str(a) for a in e.args], ia.And(x < y, z < s0 + 1, ia.Ne(y, z)))\n"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outputs.add(run.stdout)
    assert len(outputs) == 1
