"""indexalg <-> sympy (plain and torch flavours): table cases for specific conversions and
seeded random round trips checked by evaluation at integer points (negative ones included)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import pytest

import indexalg as ia
from indexalg.errors import InteropError
from indexalg.expr import ALL_OPS, Expr, Wild
from indexalg.interop.sympy import TO_PLAIN_TABLE, TO_TORCH_TABLE, from_sympy, to_sympy

sp = pytest.importorskip("sympy")

x, y, n = sp.symbols("x y n", integer=True)
NAMES = ("x", "y", "z")
N_RANDOM = 300
POINTS_PER_EXPR = 6


@pytest.fixture(scope="module")
def fns() -> Any:
    """torch.utils._sympy.functions (the torch flavour's node classes)."""
    return pytest.importorskip("torch.utils._sympy.functions")


# ---------------------------------------------------------------------------------------
# evaluating a sympy expression at an integer point


def sympy_value(s: Any, env: Mapping[str, int]) -> int | bool:
    """The value of a sympy expression with its symbols replaced by integers (rebuilding
    every node, so sympy's and torch's own evaluation computes it)."""
    repl = {sym: sp.Integer(env[sym.name]) for sym in s.free_symbols}
    r = s.xreplace(repl)
    if r is sp.true or r is sp.false:
        return bool(r)
    assert isinstance(r, sp.Integer), f"{s} at {env} gave the non-integer {r}"
    return int(r)


# ---------------------------------------------------------------------------------------
# from_sympy: specific forms


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Any], Any]  # torch functions module (or None) -> sympy object
    expected: str  # indexalg text


PLAIN_FROM = [
    Case("integer", lambda F: sp.Integer(-5), "-5"),
    Case("python int", lambda F: 7, "7"),
    Case("affine", lambda F: 64 * n * y + x, "64*n*y + x"),
    Case("power", lambda F: x**3 + 2, "x*x*x + 2"),
    Case("floor by literal", lambda F: sp.floor(x / 8), "x // 8"),
    Case("floor of rational sum", lambda F: sp.floor(x / 4 + y / 2), "(x + 2*y) // 4"),
    Case("floor by symbol", lambda F: sp.floor(x / y), "x // y"),
    Case("floor by sum", lambda F: sp.floor(x / (y + 1)), "x // (y + 1)"),
    Case("nested floor", lambda F: sp.floor(sp.floor(x / 2) / 3), "x // 2 // 3"),
    Case("ceiling", lambda F: sp.ceiling(x / 8), "CeilDiv(x, 8)"),
    Case("mod", lambda F: sp.Mod(x, y), "x % y"),
    Case("mod negative divisor", lambda F: sp.Mod(x, -3), "x % -3"),
    Case("mod of floor", lambda F: sp.Mod(sp.floor(x / 64), 8), "ModularIndexing(x, 64, 8)"),
    Case("min", lambda F: sp.Min(x, y + 1), "Min(x, y + 1)"),
    Case("max", lambda F: sp.Max(x, 2 * y), "Max(x, 2*y)"),
    Case("abs", lambda F: sp.Abs(x), "Max(x, -x)"),
    Case(
        "piecewise chain",
        lambda F: sp.Piecewise((x, x < 0), (y, y < 3), (x + y, True)),
        "Where(x < 0, x, Where(y < 3, y, x + y))",
    ),
    Case("gt", lambda F: sp.Gt(x, y), "y < x"),
    Case("ge", lambda F: sp.Ge(x, y), "y <= x"),
    Case("lt rational side", lambda F: sp.Lt(x / 2, y), "x < 2*y"),
    Case("eq symbolic denominator", lambda F: sp.Eq(x / y, 2), "x == 2*y"),
    Case("ne", lambda F: sp.Ne(x, y), "x != y"),
    Case(
        "and or",
        lambda F: sp.And(x < y, sp.Or(y < 3, sp.Eq(x, 1))),
        "And(x < y, Or(y < 3, x == 1))",
    ),
    Case("not", lambda F: sp.Not(sp.Eq(x, 1), evaluate=False), "Not(x == 1)"),
    Case("not evaluated by sympy", lambda F: sp.Not(sp.Eq(x, 1)), "x != 1"),
    Case("true", lambda F: sp.true, "True"),
    Case("false", lambda F: sp.false, "False"),
]

TORCH_FROM = [
    Case("ModularIndexing", lambda F: F.ModularIndexing(x, 1, 64), "ModularIndexing(x, 1, 64)"),
    Case("ModularIndexing d>1", lambda F: F.ModularIndexing(x, 64, 8), "ModularIndexing(x, 64, 8)"),
    Case("FloorDiv", lambda F: F.FloorDiv(x, 8), "x // 8"),
    # torch's own evaluation pulls the multiple of 64 out: (x + 128*y) // 64 -> 2*y + x // 64
    Case("FloorDiv of sum", lambda F: F.FloorDiv(x + 128 * y, 64), "2*y + x // 64"),
    Case("FloorDiv of sum unevaluated", lambda F: F.FloorDiv(x + 3 * y, 64), "(x + 3*y) // 64"),
    Case("PythonMod", lambda F: F.PythonMod(x, 8), "x % 8"),
    Case("Mod", lambda F: F.Mod(x, 8), "x % 8"),
    Case("CleanDiv", lambda F: F.CleanDiv(x, 8), "CleanDiv(x, 8)"),
    Case("Min", lambda F: F.Min(x, y), "Min(x, y)"),
    Case("Max", lambda F: F.Max(x, 4), "Max(x, 4)"),
    Case("Where", lambda F: F.Where(x < 4, x, 0), "Where(x < 4, x, 0)"),
    Case("Identity", lambda F: F.Identity(x + 1), "x + 1"),
    Case("FloorToInt of ratio", lambda F: F.FloorToInt(x / 8), "x // 8"),
    Case("CeilToInt of ratio", lambda F: F.CeilToInt(x / 8), "CeilDiv(x, 8)"),
    Case(
        "TruncToInt of ratio", lambda F: F.TruncToInt(x / 8), "Where(0 <= x, x // 8, CeilDiv(x, 8))"
    ),
    Case("PowByNatural", lambda F: F.PowByNatural(x, 2), "x*x"),
    Case("LShift", lambda F: F.LShift(x, 3), "8*x"),
    Case("RShift", lambda F: F.RShift(x, 3), "x // 8"),
    Case(
        "nested torch FloorDiv kept",
        lambda F: F.FloorDiv(F.FloorDiv(n, 2), -3, evaluate=False),
        "n // 2 // -3",
    ),
]


@pytest.mark.parametrize("case", PLAIN_FROM, ids=lambda c: c.name)
def test_from_plain_sympy(case: Case) -> None:
    assert from_sympy(case.build(None)) is ia.parse(case.expected)


@pytest.mark.parametrize("case", TORCH_FROM, ids=lambda c: c.name)
def test_from_torch_sympy(case: Case, fns: Any) -> None:
    assert from_sympy(case.build(fns)) is ia.parse(case.expected)


# ---------------------------------------------------------------------------------------
# to_sympy: specific forms (compared structurally with the sympy expected)


@dataclass(frozen=True)
class ToCase:
    text: str
    flavor: str
    expected: Callable[[Any], Any]  # torch functions module (or None) -> sympy object


def _unevaluated(fn: Any, *args: Any) -> Any:
    return fn(*args, evaluate=False)


TO_CASES = [
    ToCase("x // 8", "sympy", lambda F: _unevaluated(sp.floor, x / 8)),
    ToCase("CeilDiv(x, y)", "sympy", lambda F: _unevaluated(sp.ceiling, x / y)),
    ToCase("x % y", "sympy", lambda F: _unevaluated(sp.Mod, x, y)),
    ToCase(
        "ModularIndexing(x, 64, 8)",
        "sympy",
        lambda F: _unevaluated(sp.Mod, _unevaluated(sp.floor, x / 64), 8),
    ),
    ToCase("ModularIndexing(x, 1, 64)", "sympy", lambda F: _unevaluated(sp.Mod, x, 64)),
    ToCase("Where(x < 0, x + y, x)", "sympy", lambda F: sp.Piecewise((x + y, x < 0), (x, True))),
    ToCase(
        "ModularIndexing(x, 1, 64)", "torch", lambda F: _unevaluated(F.ModularIndexing, x, 1, 64)
    ),
    ToCase("x // 8", "torch", lambda F: _unevaluated(F.FloorDiv, x, 8)),
    ToCase("x % 8", "torch", lambda F: _unevaluated(F.PythonMod, x, 8)),
    ToCase("CleanDiv(x, 8)", "torch", lambda F: _unevaluated(F.CleanDiv, x, 8)),
    ToCase("CeilDiv(x, 8)", "torch", lambda F: _unevaluated(F.FloorDiv, x + 7, 8)),
    ToCase("CeilDiv(x, -8)", "torch", lambda F: -_unevaluated(F.FloorDiv, -x, -8)),
    ToCase("CeilDiv(x, y)", "torch", lambda F: -_unevaluated(F.FloorDiv, -x, y)),
    ToCase("Where(x < 0, x + y, x)", "torch", lambda F: _unevaluated(F.Where, x < 0, x + y, x)),
    ToCase("Min(x, y)", "torch", lambda F: _unevaluated(F.Min, x, y)),
]


@pytest.mark.parametrize("case", TO_CASES, ids=lambda c: f"{c.flavor}:{c.text}")
def test_to_sympy_forms(case: ToCase, request: pytest.FixtureRequest) -> None:
    F = request.getfixturevalue("fns") if case.flavor == "torch" else None
    assert to_sympy(ia.parse(case.text), case.flavor) == case.expected(F)


@dataclass(frozen=True)
class ValueCase:
    text: str
    env: Mapping[str, int]
    value: int


# Values that a sloppy translation gets wrong: torch folds FloorDiv(FloorDiv(n, 2), -3) to
# n // -6 (-2 at n = 7, not -1); torch's CeilDiv rewrite is wrong for negative divisors.
VALUE_CASES = [
    ValueCase("n // 2 // -3", {"n": 7}, -1),
    ValueCase("CeilDiv(x, -2)", {"x": 5}, -2),
    ValueCase("CeilDiv(x, y)", {"x": 5, "y": -2}, -2),
    ValueCase("CeilDiv(x, 8)", {"x": -9}, -1),
    ValueCase("x % 8", {"x": -3}, 5),
    ValueCase("x % -8", {"x": 3}, -5),
    ValueCase("ModularIndexing(x, 1, 8)", {"x": -1}, 7),
    ValueCase("ModularIndexing(x, 4, 8)", {"x": -5}, 6),
]


@pytest.mark.parametrize("flavor", ["sympy", "torch"])
@pytest.mark.parametrize("case", VALUE_CASES, ids=lambda c: c.text)
def test_to_sympy_values(case: ValueCase, flavor: str, request: pytest.FixtureRequest) -> None:
    if flavor == "torch":
        request.getfixturevalue("fns")
    e = ia.parse(case.text)
    assert ia.evaluate(e, case.env) == case.value
    assert sympy_value(to_sympy(e, flavor), case.env) == case.value


@pytest.mark.parametrize("table", [TO_PLAIN_TABLE, TO_TORCH_TABLE], ids=["sympy", "torch"])
def test_tables_cover_every_op(table: Mapping[type[Expr], object]) -> None:
    """A new node class cannot be half-added: both flavours convert every op of the IR."""
    assert set(table) == set(ALL_OPS)


def test_symbol_hints() -> None:
    e = ia.parse("x + y + z")
    s = to_sympy(e, hints={"x": "positive", "y": "nonnegative"})
    by_name = {sym.name: sym for sym in s.free_symbols}
    assert by_name["x"].is_positive is True
    assert by_name["y"].is_nonnegative is True and by_name["y"].is_positive is None
    assert by_name["z"].is_integer is True and by_name["z"].is_nonnegative is None


# ---------------------------------------------------------------------------------------
# errors


@pytest.mark.parametrize(
    ("build", "fragment"),
    [
        (lambda: x / 2, "not an integer expression"),
        (lambda: sp.Rational(1, 3), "rational"),
        (lambda: sp.Float(1.5), "float"),
        (lambda: sp.oo, "Infinity"),
        (lambda: 2**x, "exponent"),
        (lambda: x**-1, "negative power"),
        (lambda: sp.Piecewise((x, x < 0)), "not total"),
        (lambda: sp.Symbol("a[0]", integer=True), "not an identifier"),
        (lambda: sp.Symbol("r", integer=False), "non-integer"),
        (lambda: sp.Lt(x / y, 1), "unknown sign"),
        (lambda: sp.sin(x), "sin"),
        (lambda: "x", "expects a sympy expression"),
    ],
)
def test_from_sympy_refuses(build: Callable[[], Any], fragment: str) -> None:
    with pytest.raises(InteropError, match=fragment):
        from_sympy(build())


def test_from_torch_refuses_true_division(fns: Any) -> None:
    with pytest.raises(InteropError, match="IntTrueDiv"):
        from_sympy(fns.IntTrueDiv(x, y))


def test_from_sympy_bad_modular_indexing(fns: Any) -> None:
    with pytest.raises(InteropError, match="ModularIndexing"):
        from_sympy(fns.ModularIndexing(x, 0, 8, evaluate=False))


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: to_sympy(ia.parse("x"), "numpy"), "unknown flavor"),
        (lambda: to_sympy(ia.parse("x"), hints={"x": "even"}), "unknown hint"),
        (lambda: to_sympy(Wild("w") + 1), "Wild"),
        (lambda: to_sympy("x"), "expects an indexalg Expr"),  # type: ignore[arg-type]
    ],
)
def test_to_sympy_refuses(call: Callable[[], Any], fragment: str) -> None:
    with pytest.raises(InteropError, match=fragment):
        call()


# ---------------------------------------------------------------------------------------
# identity round trips on canonical forms sympy does not rewrite

IDENTITY_BOTH = [
    "x + 1",
    "64*n*y + x",
    "-x",
    "x*x",
    "x // 8",
    "x // y",
    "(x + 128*y) // 64",
    "x % y",
    "ModularIndexing(x, 64, 8)",
    "Min(x, y)",
    "Max(x, 3*y)",
    "Where(x < 0, x + y, x)",
    "x < y",
    "x <= 3",
    "x == y",
    "x != y + 1",
    "And(x < y, y <= 3)",
    "Or(x < y, Not(x == y))",
]
IDENTITY_PLAIN_ONLY = ["CeilDiv(x, y)", "CeilDiv(x + 1, 8)"]
IDENTITY_TORCH_ONLY = ["ModularIndexing(x, 1, 64)", "CleanDiv(x, 8)", "n // 2 // -3"]


@pytest.mark.parametrize("text", IDENTITY_BOTH + IDENTITY_PLAIN_ONLY)
def test_identity_round_trip_plain(text: str) -> None:
    e = ia.parse(text)
    assert from_sympy(to_sympy(e, "sympy")) is e


@pytest.mark.parametrize("text", IDENTITY_BOTH + IDENTITY_TORCH_ONLY)
def test_identity_round_trip_torch(text: str, fns: Any) -> None:
    e = ia.parse(text)
    assert from_sympy(to_sympy(e, "torch")) is e


# ---------------------------------------------------------------------------------------
# seeded random round trips, checked by evaluation


class ExprGen:
    """Random integer expressions over ``x, y, z`` with every integer op of the IR.

    Divisors are never zero at any point (non-zero literals, ``Max(v, 1) + k``,
    ``Min(v, -1) - k``, ``v*v + 1``) and ModularIndexing's divisor and modulus are always
    positive, so every expression has a value everywhere, in every branch.
    """

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.syms = ia.symbols(" ".join(NAMES))

    def leaf(self) -> Expr:
        if self.rng.random() < 0.6:
            return self.rng.choice(self.syms)
        return ia.as_expr(self.rng.randint(-9, 9))

    def divisor(self) -> Expr:
        r = self.rng.random()
        v = self.rng.choice(self.syms)
        k = self.rng.randint(0, 3)
        if r < 0.55:
            return ia.as_expr(self.rng.choice([-9, -4, -3, -2, -1, 1, 2, 3, 4, 8, 16]))
        if r < 0.75:
            return ia.Max(v, 1) + k
        if r < 0.9:
            return ia.Min(v, -1) - k
        return v * v + 1

    def positive(self) -> Expr:
        if self.rng.random() < 0.8:
            return ia.as_expr(self.rng.choice([1, 2, 3, 4, 8, 16, 64]))
        return ia.Max(self.rng.choice(self.syms), 1)

    def claim(self, depth: int) -> Expr:
        r = self.rng.random()
        if depth <= 0 or r < 0.6:
            make = self.rng.choice([ia.Lt, ia.Le, ia.Eq, ia.Ne])
            return make(self.value(depth - 1), self.value(depth - 1))
        if r < 0.75:
            return ia.And(self.claim(depth - 1), self.claim(depth - 1))
        if r < 0.9:
            return ia.Or(self.claim(depth - 1), self.claim(depth - 1))
        return ia.Not(self.claim(depth - 1))

    def value(self, depth: int) -> Expr:
        if depth <= 0 or self.rng.random() < 0.2:
            return self.leaf()
        d = depth - 1
        op = self.rng.randrange(12)
        if op == 0:
            return self.value(d) + self.value(d)
        if op == 1:
            return self.value(d) - self.rng.randint(-3, 3) * self.value(d)
        if op == 2:
            return self.value(d) * self.leaf()
        if op == 3:
            return ia.FloorDiv(self.value(d), self.divisor())
        if op == 4:
            return ia.Mod(self.value(d), self.divisor())
        if op == 5:
            return ia.CeilDiv(self.value(d), self.divisor())
        if op == 6:
            return ia.CleanDiv(self.value(d), self.divisor())
        if op == 7:
            return ia.ModularIndexing(self.value(d), self.positive(), self.positive())
        if op == 8:
            return ia.Min(self.value(d), self.value(d))
        if op == 9:
            return ia.Max(self.value(d), self.value(d))
        if op == 10:
            return ia.Where(self.claim(d), self.value(d), self.value(d))
        return ia.FloorDiv(self.value(d), self.divisor()) + self.value(d)

    def expr(self) -> Expr:
        if self.rng.random() < 0.15:
            return self.claim(3)
        return self.value(4)

    def env(self) -> dict[str, int]:
        return {name: self.rng.randint(-40, 40) for name in NAMES}


def _check_round_trips(flavor: str, seed: int) -> tuple[int, int]:
    """Returns (expressions, points) checked."""
    gen = ExprGen(seed)
    points = 0
    for _ in range(N_RANDOM):
        e = gen.expr()
        s = to_sympy(e, flavor)
        back = from_sympy(s)
        for _ in range(POINTS_PER_EXPR):
            env = gen.env()
            want = ia.evaluate(e, env)
            assert sympy_value(s, env) == want, f"to_sympy({e}) = {s} at {env}"
            assert ia.evaluate(back, env) == want, f"from_sympy({s}) = {back} at {env}"
            points += 1
    return N_RANDOM, points


def test_random_round_trips_plain() -> None:
    assert _check_round_trips("sympy", seed=20240601) == (N_RANDOM, N_RANDOM * POINTS_PER_EXPR)


def test_random_round_trips_torch(fns: Any) -> None:
    assert _check_round_trips("torch", seed=20240602) == (N_RANDOM, N_RANDOM * POINTS_PER_EXPR)


def _reevaluated(s: Any) -> Any:
    """``s`` rebuilt bottom-up with sympy's automatic evaluation on (the forms a sympy user
    who built the same expression would hold)."""
    if not s.args or s.is_Atom:
        return s
    if isinstance(s, sp.Piecewise):
        return sp.Piecewise(*[(_reevaluated(v), _reevaluated(c)) for v, c in s.args])
    return s.func(*[_reevaluated(a) for a in s.args])


def test_random_sympy_evaluated_forms() -> None:
    """from_sympy reads what plain sympy's own evaluation makes of our expressions (floor of
    distributed rational sums, pulled-out integer parts, merged Mods ...): the value is kept
    wherever the result is representable, and most results are."""
    gen = ExprGen(20240603)
    converted = 0
    for _ in range(N_RANDOM):
        e = gen.expr()
        s = _reevaluated(to_sympy(e, "sympy"))
        try:
            back = from_sympy(s)
        except InteropError:
            continue
        converted += 1
        for _ in range(POINTS_PER_EXPR):
            env = gen.env()
            want = ia.evaluate(e, env)
            assert sympy_value(s, env) == want, f"sympy changed the value of {e}: {s}"
            assert ia.evaluate(back, env) == want, f"from_sympy({s}) = {back} at {env}"
    assert converted >= 0.9 * N_RANDOM
