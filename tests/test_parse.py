"""The parser: ``parse(str(e)) is e`` over many generated expressions, Inductor's printed
forms, and errors that name the column."""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest

import indexalg as ia
from indexalg.errors import InvalidOperationError, ParseError
from indexalg.expr import ALL_OPS

x, y, z, a, b = ia.symbols("x y z a b")
x0, x1, x2, s0, ks0 = ia.symbols("x0 x1 x2 s0 ks0")

# ---------------------------------------------------------------------------------------
# Generated round trips


class RandomExprs:
    """Seeded random expressions and claims for round trips: every op, negative constants
    (small and beyond 64 bits), nested div/mod chains, Inductor-like symbol names."""

    NAMES = ("x", "y", "x0", "x1", "s0", "ks0", "xindex")

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def literal(self) -> int:
        r = self.rng
        if r.random() < 0.05:
            return r.choice([-1, 1]) * r.randint(2**31, 2**70)
        return r.randint(-70, 70)

    def leaf(self) -> ia.Expr:
        if self.rng.random() < 0.7:
            return ia.Symbol(self.rng.choice(self.NAMES))
        return ia.Integer(self.literal())

    def integer(self, depth: int) -> ia.Expr:
        r = self.rng
        if depth <= 0 or r.random() < 0.15:
            return self.leaf()

        def sub() -> ia.Expr:
            return self.integer(depth - 1)

        def divisor() -> ia.Expr:
            return ia.Integer(r.choice([-8, -3, -1, 1, 2, 3, 64])) if r.random() < 0.6 else sub()

        k = r.randrange(14)
        if k == 0:
            return sub() + sub()
        if k == 1:
            return sub() - sub()
        if k == 2:
            return sub() * (self.literal() if r.random() < 0.5 else sub())
        if k == 3:
            return ia.FloorDiv(sub(), divisor())
        if k == 4:
            return ia.Mod(sub(), divisor())
        if k == 5:
            return ia.CeilDiv(sub(), divisor())
        if k == 6:
            return ia.CleanDiv(sub(), divisor())
        if k == 7:
            d = r.choice([1, 2, 64]) if r.random() < 0.8 else sub()
            m = r.choice([1, 8, 128]) if r.random() < 0.8 else sub()
            return ia.ModularIndexing(sub(), d, m)
        if k == 8:
            return ia.Min(*[sub() for _ in range(r.randint(2, 3))])
        if k == 9:
            return ia.Max(*[sub() for _ in range(r.randint(2, 3))])
        if k == 10:
            return ia.Where(self.claim(depth - 1), sub(), sub())
        if k == 11:  # a nested division/remainder chain, Inductor's favourite
            e = sub()
            for _ in range(r.randint(2, 3)):
                e = (ia.FloorDiv if r.random() < 0.5 else ia.Mod)(e, r.choice([2, 8, 64, -4]))
            return e
        if k == 12:
            return ia.Mod(ia.FloorDiv(sub(), r.choice([2, 64])), r.choice([4, 8]))
        return -sub()

    def claim(self, depth: int) -> ia.Expr:
        r = self.rng
        k = r.randrange(9) if depth > 0 else r.randrange(6)
        if k < 6:
            lhs, rhs = self.integer(depth - 1), self.integer(depth - 1)
            return (ia.Lt, ia.Le, ia.Eq, ia.Ne, ia.Lt, ia.Le)[k](lhs, rhs)
        if k == 6:
            return ia.And(*[self.claim(depth - 1) for _ in range(r.randint(2, 3))])
        if k == 7:
            return ia.Or(*[self.claim(depth - 1) for _ in range(r.randint(2, 3))])
        return ia.Not(self.claim(depth - 1))

    def draw(self) -> ia.Expr:
        while True:
            try:
                return self.claim(3) if self.rng.random() < 0.25 else self.integer(4)
            except InvalidOperationError:  # a literal zero divisor after folding
                continue


def generated(count: int, seed: int = 7) -> list[ia.Expr]:
    gen = RandomExprs(seed)
    return [gen.draw() for _ in range(count)]


def _round_trip_failures(exprs: list[ia.Expr]) -> list[str]:
    bad = []
    for e in exprs:
        text = str(e)
        try:
            back = ia.parse(text)
        except ParseError as err:
            bad.append(f"{text!r}: {err.one_line()}")
            continue
        if back is not e:
            bad.append(f"{text!r} read back as {str(back)!r}")
    return bad


def test_generated_expressions_cover_every_op() -> None:
    kinds = {type(n) for e in generated(1200) for n in e.walk()}
    assert set(ALL_OPS) - kinds <= {ia.BoolConst}  # constant claims fold away


def test_round_trip_1200_generated_expressions() -> None:
    bad = _round_trip_failures(generated(1200))
    assert not bad, f"{len(bad)} of 1200 fail; first: " + "\n".join(bad[:5])


@pytest.mark.parametrize(
    "expr",
    [-x + y, y - x, y - x // 3, 5 - ia.Min(x, y), -(x // 3) + y, x - ia.Mod(y, 8) + 1],
    ids=["-x + y", "y - x", "y - x // 3", "5 - Min", "-(x // 3) + y", "x - y % 8 + 1"],
)
def test_negated_term_in_a_sum_round_trips(expr: ia.Expr) -> None:
    assert ia.parse(str(expr)) is expr


@pytest.mark.parametrize(
    "expr",
    [
        ia.ModularIndexing(x, 64, 8),
        ia.Mod(ia.FloorDiv(x, 64), 8),  # not ModularIndexing: prints in function form
        ia.Mod(ia.FloorDiv(x, -64), 8),
        ia.Mod(ia.FloorDiv(x, 64), -8),
        ia.Mod(ia.FloorDiv(x, s0), 8),
        ia.FloorDiv(ia.FloorDiv(x, 2), -3),
        ia.FloorDiv(x, ia.FloorDiv(y, 2)),
        ia.Mod(x, ia.Mod(y, 3)),
        ia.FloorDiv(-3, x),
        ia.FloorDiv(x, -3),
        -2 * ia.FloorDiv(x, 3),
        -x * y,
        2 * ia.Mod(ia.FloorDiv(x, 2), 3),
        x * x * x,
        ia.Integer(-(2**80)),
        x + 2**64,
        ia.Eq(3, x),
        ia.And(x < 3, ia.Or(y <= 2, ia.Not(ia.Eq(x, y)))),
        ia.Where(ia.Ne(x, 0), ia.CeilDiv(y, -x), ia.CleanDiv(y, 4)),
        ia.true,
        ia.false,
    ],
    ids=str,
)
def test_round_trip_tricky_forms(expr: ia.Expr) -> None:
    assert ia.parse(str(expr)) is expr


@pytest.mark.parametrize("name", ["and", "not", "True", "é"])
def test_unreadable_symbol_names_are_refused(name: str) -> None:
    """Every name Symbol() accepts parses back; keywords and non-ASCII names are refused."""
    with pytest.raises(ia.InvalidOperationError, match="identifiers"):
        ia.Symbol(name)


# ---------------------------------------------------------------------------------------
# Inductor's printed forms


@dataclass(frozen=True)
class Form:
    text: str
    expected: ia.Expr


INDUCTOR_FORMS = [
    Form("ModularIndexing(x, 1, 64)", ia.ModularIndexing(x, 1, 64)),
    Form(
        "ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)",
        ia.ModularIndexing(ia.ModularIndexing(x, 1, 64), 1, 8),
    ),
    Form("FloorDiv(a, b)", ia.FloorDiv(a, b)),
    Form("x // 64 % 8", ia.ModularIndexing(x, 64, 8)),
    Form("(x // 64) % 8", ia.ModularIndexing(x, 64, 8)),
    Form("x // 1 % 8", ia.ModularIndexing(x, 1, 8)),
    Form("x // -64 % 8", ia.Mod(ia.FloorDiv(x, -64), 8)),
    Form("x // 64 % -8", ia.Mod(ia.FloorDiv(x, 64), -8)),
    Form("x // s0 % 8", ia.Mod(ia.FloorDiv(x, s0), 8)),
    Form("Mod(x // 64, 8)", ia.Mod(ia.FloorDiv(x, 64), 8)),
    Form("Min(a, b)", ia.Min(a, b)),
    Form("Max(a, b, 0)", ia.Max(a, b, 0)),
    Form("min(a, b)", ia.Min(a, b)),
    Form("(x1 + 9*x2)", x1 + 9 * x2),
    Form("x1 + 9*x2", x1 + 9 * x2),
    Form("PythonMod(a, b)", ia.Mod(a, b)),
    Form("PythonMod(x, -3)", ia.Mod(x, -3)),
    Form("floor(x/8)", ia.FloorDiv(x, 8)),
    Form("floor(x / 8)", ia.FloorDiv(x, 8)),
    Form("ceiling(x/8)", ia.CeilDiv(x, 8)),
    Form("CeilDiv(x, 8)", ia.CeilDiv(x, 8)),
    Form("CleanDiv(x, 8)", ia.CleanDiv(x, 8)),
    Form("Identity(x0 + 1)", x0 + 1),
    Form("64*ks0*x1 + x0", 64 * ks0 * x1 + x0),
    Form("x**2", x * x),
    Form("Where(x < 0, x + 64, x)", ia.Where(x < 0, x + 64, x)),
    Form("Gt(x, 2)", ia.Lt(2, x)),
    Form("Ge(x, 2)", ia.Le(2, x)),
    Form("x > 2", ia.Lt(2, x)),
    Form("Eq(x, 2)", ia.Eq(x, 2)),
    Form("x == 2", ia.Eq(x, 2)),
    Form("x != 2", ia.Ne(x, 2)),
    Form("x < 3 and y < 2 or not z == 0", ia.Or(ia.And(x < 3, y < 2), ia.Not(ia.Eq(z, 0)))),
    Form("-x // 3", ia.FloorDiv(-x, 3)),  # unary minus binds tighter than //, as in Python
    Form("-(x // 3)", -ia.FloorDiv(x, 3)),
    Form("2 - -3", ia.Integer(5)),
    Form("7 // -2", ia.Integer(-4)),  # folded with floor semantics
    Form("-7 % 3", ia.Integer(2)),
    Form("  x  +  1  ", x + 1),
]


@pytest.mark.parametrize("form", INDUCTOR_FORMS, ids=lambda f: f.text)
def test_reads_inductor_forms(form: Form) -> None:
    assert ia.parse(form.text) is form.expected


# ---------------------------------------------------------------------------------------
# Errors name the column


@dataclass(frozen=True)
class Bad:
    text: str
    column: int
    message: str


BAD_INPUTS = [
    Bad("", 1, "empty expression"),
    Bad("x +", 4, "unexpected end of input"),
    Bad("x + * y", 5, "unexpected '*'"),
    Bad("x y", 3, "after a complete expression"),
    Bad("(x + y", 7, "expected ')'"),
    Bad("Min(x, (y + 1)", 15, "unclosed '(' opened at column 4"),
    Bad("Foo(x)", 1, "unknown function 'Foo'"),
    Bad("x + Foo(x)", 5, "unknown function 'Foo'"),
    Bad("x // 0", 3, "division by zero"),
    Bad("x + y % 0", 7, "remainder by zero"),
    Bad("ModularIndexing(x, 0, 8)", 1, "divisor must be >= 1"),
    Bad("1 + ModularIndexing(x, 1, -8)", 5, "modulus must be >= 1"),
    Bad("ModularIndexing(x, 1)", 1, "takes 3 arguments, got 2"),
    Bad("Min()", 1, "at least 1 argument"),
    Bad("x & y", 3, "bitwise"),
    Bad("x = y", 3, "use =="),
    Bad("x $ y", 3, "unexpected character '$'"),
    Bad("__import__('os')", 12, "unexpected character"),
    Bad("x / 8", 3, "true division"),
    Bad("x + y / 8", 7, "true division"),
    Bad("floor(x/8, 2)", 1, "floor takes 1 argument"),
    Bad("x < y < z", 7, "chained comparisons"),
    Bad("x ** y", 6, "exponent"),
    Bad("x ** 65", 6, "exponent too large"),
    Bad("1 + True", 3, "booleans are not integers"),
    Bad("x + (y < 2)", 3, "booleans are not integers"),
    Bad("Where(x, 1, 2)", 1, "expected a claim"),
    Bad("Not(x)", 1, "expected a claim"),
    Bad("x < 3 and 4", 7, "expected a claim"),
    # issue 22: only the ASCII digits make numbers (\d would read "١" as 1)
    Bad("\u0661 + x", 1, "unexpected character '\u0661' (numbers are written with the ASCII"),
    Bad("x + 1\u0662", 6, "unexpected character '\u0662'"),
    Bad("x // \uff18", 6, "unexpected character '\uff18' (numbers are written"),
    Bad("x**\u00b2", 4, "unexpected character '\u00b2'"),
]


@pytest.mark.parametrize("text", ["0123456789", "x + 10", "x // 64 % 8"])
def test_ascii_digits_are_numbers(text: str) -> None:
    assert ia.parse(text) is ia.parse(text.replace(" ", ""))


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=lambda b: b.text or "<empty>")
def test_parse_error_names_the_column(bad: Bad) -> None:
    with pytest.raises(ParseError) as info:
        ia.parse(bad.text)
    err = info.value
    assert err.column == bad.column, err.one_line()
    assert bad.message in err.message
    assert err.text == bad.text
    assert err.one_line() == f"column {bad.column}: {err.message}"
    # The full message shows the text with a caret under the column.
    lines = str(err).splitlines()
    assert lines[1] == "  " + bad.text and lines[2] == "  " + " " * (bad.column - 1) + "^"


def test_parse_refuses_non_text() -> None:
    with pytest.raises(TypeError, match="string"):
        ia.parse(64)  # type: ignore[arg-type]
