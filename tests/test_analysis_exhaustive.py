"""Every transfer function of the analyses verified exhaustively on small domains.

This is the analyses' equivalent of ``verify-rules`` (issue 16, item 2).  For each op of the
interval analysis (through the real entry points ``interval(e, ctx)`` and ``bounds``, and
the helpers ``imul``, ``ifloordiv``, ``imod``), of the symbolic bounds (``sym_bound`` and
``bounds`` over size symbols, instantiated with concrete sizes), of the claim decisions
(``decide_in``) and of the congruence analysis, for every combination of input intervals
inside a small box, the computed result must contain every concrete result.  The ground
truth is the semantics of docs/semantics.md written directly in Python (floor division, Python ``%``,
exact ``CeilDiv`` for any sign, ``ModularIndexing(a, d, m) = (a // d) % m`` for d, m >= 1);
a meta-test checks it against :func:`indexalg.evaluate`.

Two tiers: the fast box (operands in [-5, 5], divisors in [-4, 4]) runs in CI; the full
box (operands in [-9, 9], divisors and moduli in [-6, 6]) is marked ``slow``.  Each test
prints its count of cases (input-interval combinations) and points (``pytest -s``).

A failure lists the smallest failing inputs: expression, ranges, the computed result and
the exact one.  Known, not yet fixed soundness bugs are ``xfail(strict=True)`` with their
reproducer, so the suite flips when they are fixed.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import pytest

import indexalg as ia
from indexalg.analysis.bounds import bounds_in
from indexalg.analysis.congruence import congruence
from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.analysis.interval import INTERVAL_TABLE, ifloordiv, imod, imul, interval
from indexalg.analysis.symbolic import sym_bound
from indexalg.errors import IndexAlgError
from indexalg.evaluate import EVAL_TABLE, evaluate
from indexalg.expr import (
    Add,
    And,
    BoolConst,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    Wild,
    false,
    integer,
    true,
)
from indexalg.ops import VARIADIC
from indexalg.parse import parse
from indexalg.ranges import as_ranges
from indexalg.testing.exhaustive import SOURCE_TABLE, Undefined, compile_expr, domain_points

Value = Union[int, bool]
Interval = tuple[int, int]

x, y, z = Symbol("x"), Symbol("y"), Symbol("z")
s0, s1 = Symbol("s0"), Symbol("s1")


@dataclass(frozen=True)
class Box:
    """The domains of one tier: operands, divisors (any sign), ModularIndexing's divisor and
    modulus, and operands of three-symbol expressions."""

    operand: Interval
    divisor: Interval
    positive: Interval
    triple: Interval


FAST = Box(operand=(-5, 5), divisor=(-4, 4), positive=(-1, 4), triple=(-2, 2))
FULL = Box(operand=(-9, 9), divisor=(-6, 6), positive=(-1, 6), triple=(-5, 5))
TIERS = [
    pytest.param(FAST, id="fast"),
    pytest.param(FULL, id="full", marks=pytest.mark.slow),
]


def sub_intervals(box: Interval) -> list[Interval]:
    lo, hi = box
    return [(a, b) for a in range(lo, hi + 1) for b in range(a, hi + 1)]


# --- the semantics, written directly ------------------------------------------------------


def _fdiv(a: int, b: int) -> int:
    if b == 0:
        raise Undefined
    return a // b


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise Undefined
    return a % b


def _cdiv(a: int, b: int) -> int:
    if b == 0:
        raise Undefined
    return -((-a) // b)


def _mi(a: int, d: int, m: int) -> int:
    if d < 1 or m < 1:
        raise Undefined
    return (a // d) % m


# --- reporting ----------------------------------------------------------------------------


@dataclass
class Tally:
    """Counts of one exhaustive check and the failures it found (smallest first)."""

    name: str
    cases: int = 0
    points: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)
    start: float = field(default_factory=time.perf_counter)

    def fail(self, size: int, text: str) -> None:
        self.failures.append((size, text))

    def report(self) -> None:
        took = time.perf_counter() - self.start
        print(f"\n[{self.name}] {self.cases} cases, {self.points} points, {took:.2f} s")
        if self.failures:
            self.failures.sort()
            shown = "\n".join(t for _, t in self.failures[:8])
            pytest.fail(f"{len(self.failures)} unsound results in {self.name}:\n{shown}")


def _show(iv: object) -> str:
    if isinstance(iv, tuple):
        return "[" + ", ".join(str(v) for v in iv) + "]"
    return str(iv)


# --- numeric ops: every combination of sub-intervals --------------------------------------


@dataclass(frozen=True)
class OpCase:
    """``expr`` over ``names``, whose values range over the boxes named by ``kinds``
    (``operand``, ``divisor``, ``positive``, ``triple``); ``fn`` computes its value."""

    expr: Expr
    names: tuple[str, ...]
    kinds: tuple[str, ...]
    fn: Callable[..., Value]

    @property
    def label(self) -> str:
        return str(self.expr)


def _case(expr: Expr, kinds: str, fn: Callable[..., Value]) -> OpCase:
    names = tuple(sorted(s.payload for s in expr.free_symbols))
    assert len(names) == len(kinds.split()), (expr, kinds)
    return OpCase(expr, names, tuple(kinds.split()), fn)


def _literal_cases(
    build: Callable[[int], Expr], fn: Callable[[int, int], Value], values: Sequence[int]
) -> list[OpCase]:
    return [
        _case(build(c), "operand", lambda a, c=c: fn(a, c))  # type: ignore[misc]
        for c in values
    ]


_LITERAL_DIVISORS = (-6, -4, -3, -2, -1, 1, 2, 3, 4, 5, 6)


def _cmp_cases(cls: Callable[[Expr, Expr], Expr], fn: Callable[[int, int], bool]) -> list[OpCase]:
    return [
        _case(cls(x, y), "operand operand", fn),
        _case(cls(x, integer(2)), "operand", lambda a: fn(a, 2)),
        _case(cls(x - y, integer(-1)), "operand operand", lambda a, b: fn(a - b, -1)),
    ]


#: Per node class, the expressions that exercise its transfer functions.  A class of the
#: evaluator's table missing here fails test_every_op_is_covered.
OP_CASES: dict[type[Expr], list[OpCase]] = {
    Integer: [_case(integer(c), "", lambda c=c: c) for c in (-3, 0, 7)],  # type: ignore[misc]
    Symbol: [_case(x, "operand", lambda a: a)],
    Add: [
        _case(x + y, "operand operand", lambda a, b: a + b),
        _case(x - y, "operand operand", lambda a, b: a - b),
        _case(2 * x - 3 * y + 1, "operand operand", lambda a, b: 2 * a - 3 * b + 1),
        _case(x - y + z, "triple triple triple", lambda a, b, c: a - b + c),
    ],
    Mul: [
        _case(x * y, "operand operand", lambda a, b: a * b),
        _case(-3 * x, "operand", lambda a: -3 * a),
        _case(-2 * x * y, "operand operand", lambda a, b: -2 * a * b),
        _case(x * x, "operand", lambda a: a * a),
        _case(-1 * x * x, "operand", lambda a: -a * a),
        _case(x * x * x, "operand", lambda a: a * a * a),
        _case(x * x * y, "operand operand", lambda a, b: a * a * b),
        _case(x * x * y * y, "operand operand", lambda a, b: a * a * b * b),
        _case(x * y * z, "triple triple triple", lambda a, b, c: a * b * c),
    ],
    FloorDiv: [
        _case(FloorDiv(x, y), "operand divisor", _fdiv),
        _case(FloorDiv(7, y), "divisor", lambda b: _fdiv(7, b)),
        _case(FloorDiv(-7, y), "divisor", lambda b: _fdiv(-7, b)),
        *_literal_cases(lambda c: FloorDiv(x, c), _fdiv, _LITERAL_DIVISORS),
    ],
    CleanDiv: [
        _case(CleanDiv(x, y), "operand divisor", _fdiv),
        *_literal_cases(lambda c: CleanDiv(x, c), _fdiv, (-3, -1, 2, 4)),
    ],
    CeilDiv: [
        _case(CeilDiv(x, y), "operand divisor", _cdiv),
        _case(CeilDiv(-7, y), "divisor", lambda b: _cdiv(-7, b)),
        *_literal_cases(lambda c: CeilDiv(x, c), _cdiv, _LITERAL_DIVISORS),
    ],
    Mod: [
        _case(Mod(x, y), "operand divisor", _mod),
        _case(Mod(5, y), "divisor", lambda b: _mod(5, b)),
        _case(Mod(-5, y), "divisor", lambda b: _mod(-5, b)),
        *_literal_cases(lambda c: Mod(x, c), _mod, _LITERAL_DIVISORS),
    ],
    ModularIndexing: [
        _case(ModularIndexing(x, y, z), "operand positive positive", _mi),
        *(
            _case(ModularIndexing(x, d, m), "operand", lambda a, d=d, m=m: _mi(a, d, m))
            for d in (1, 2, 3, 5)
            for m in (1, 2, 3, 4, 6)
        ),
        _case(ModularIndexing(x, 2, y), "operand positive", lambda a, m: _mi(a, 2, m)),
        _case(ModularIndexing(x, y, 3), "operand positive", lambda a, d: _mi(a, d, 3)),
    ],
    Min: [
        _case(Min(x, y), "operand operand", min),
        _case(Min(x, 2), "operand", lambda a: min(a, 2)),
        _case(Min(x, y, z), "triple triple triple", min),
        _case(Min(x, -x), "operand", lambda a: min(a, -a)),
    ],
    Max: [
        _case(Max(x, y), "operand operand", max),
        _case(Max(x, -3), "operand", lambda a: max(a, -3)),
        _case(Max(x, y, z), "triple triple triple", max),
        _case(Max(x, -x), "operand", lambda a: max(a, -a)),
    ],
    Where: [
        _case(Where(x < y, x, y), "operand operand", lambda a, b: a if a < b else b),
        _case(Where(x < 0, -x, x), "operand", abs),
        _case(Where(x <= y, y - x, x - y), "operand operand", lambda a, b: abs(a - b)),
        _case(Where(Eq(x, y), 0, x), "operand operand", lambda a, b: 0 if a == b else a),
        _case(Where(Ne(x, 1), y, x), "operand operand", lambda a, b: b if a != 1 else a),
        _case(
            Where(And(x < y, y >= 0), x, y),
            "operand operand",
            lambda a, b: a if a < b and b >= 0 else b,
        ),
        _case(
            Where(Or(x < -1, y < x), y, x + 1),
            "operand operand",
            lambda a, b: b if a < -1 or b < a else a + 1,
        ),
        _case(Where(Not(x < y), x, 5), "operand operand", lambda a, b: a if not a < b else 5),
        # a condition on a symbol the branches do not use
        _case(Where(z < 0, x, y), "triple triple triple", lambda a, b, c: a if c < 0 else b),
        _case(
            Where(x < y, FloorDiv(x, y), y),
            "operand divisor",
            lambda a, b: _fdiv(a, b) if a < b else b,
        ),
    ],
    BoolConst: [_case(true, "", lambda: True), _case(false, "", lambda: False)],
    Lt: _cmp_cases(Lt, lambda a, b: a < b),
    Le: _cmp_cases(Le, lambda a, b: a <= b),
    Eq: _cmp_cases(Eq, lambda a, b: a == b),
    Ne: _cmp_cases(Ne, lambda a, b: a != b),
    And: [
        _case(And(x < y, y <= 2), "operand operand", lambda a, b: a < b and b <= 2),
        _case(And(x <= y, y <= x), "operand operand", lambda a, b: a == b),
    ],
    Or: [
        _case(Or(x < y, y < x), "operand operand", lambda a, b: a != b),
        _case(Or(x < -2, x > 3), "operand", lambda a: a < -2 or a > 3),
    ],
    Not: [
        _case(Not(x < y), "operand operand", lambda a, b: not a < b),
        _case(Not(Eq(x, 0)), "operand", lambda a: a != 0),
    ],
}

#: Node classes with no value to check: pattern variables never reach an analysis.
NOT_EVALUATED = {Wild}


def _record_cases(op: type[Expr]) -> list[OpCase]:
    """The check of an op with no cases above, from its record: the op over fresh symbols
    (an n-ary op over two), a division's divisors over the divisor boxes (ModularIndexing's
    kind: positive), checked against the record's value.  An op over claims, or with more
    than three operands, needs cases of its own."""
    record = op.op
    arity = 2 if record.arity == VARIADIC else record.arity
    assert 1 <= arity <= 3 and not op.is_bool, f"{op.__name__}: write its OP_CASES"
    kinds = ["operand"] * arity
    if record.division == "binary":
        kinds[1] = "divisor"
    elif record.division == "indexing":
        kinds[1:] = ["positive"] * (arity - 1)
    operands = (x, y, z)[:arity]
    expr = op.make(*operands)

    def fn(*values: int) -> Value:
        try:
            return evaluate(expr, {s.payload: v for s, v in zip(operands, values)})
        except IndexAlgError:
            raise Undefined(str(expr)) from None

    return [_case(expr, " ".join(kinds), fn)]


for _op in sorted(set(EVAL_TABLE) - NOT_EVALUATED - set(OP_CASES), key=lambda c: c.__name__):
    OP_CASES[_op] = _record_cases(_op)


def test_every_op_is_covered() -> None:
    ops = set(EVAL_TABLE) - NOT_EVALUATED
    assert ops - set(OP_CASES) == set(), "ops with no exhaustive check"
    assert ops - set(INTERVAL_TABLE) == set(), "ops the interval analysis does not handle"
    # the fast evaluator the composite checks use writes only ops that exist
    assert set(SOURCE_TABLE) <= ops


def test_an_op_without_cases_is_checked_from_its_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """What a new op gets: its record's cases find an unsound transfer function, and the
    fast evaluator falls back to the evaluator for an op it does not write."""
    (case,) = _record_cases(CeilDiv)
    assert case.kinds == ("operand", "divisor")
    tally = Tally("CeilDiv from its record")
    _check_op(case, FAST, tally)
    tally.report()
    monkeypatch.setitem(INTERVAL_TABLE, CeilDiv, lambda e, ctx: (0, 0))
    wrong = Tally("CeilDiv, unsound")
    _check_op(case, FAST, wrong)
    assert wrong.failures
    monkeypatch.delitem(SOURCE_TABLE, CeilDiv)
    fast = compile_expr(CeilDiv(x, y), ("x", "y"))
    assert fast(7, 2) == 4
    with pytest.raises(Undefined):
        fast(7, 0)


def test_direct_semantics_agree_with_the_evaluator() -> None:
    """The ``fn`` of every case (the ground truth here) is the evaluator's semantics."""
    checked = 0
    for cases in OP_CASES.values():
        for case in cases:
            boxes = [range(-4, 5)] * len(case.names)
            for vals in itertools.product(*boxes):
                env = dict(zip(case.names, vals))
                try:
                    want: Value | None = evaluate(case.expr, env)
                except Exception:
                    want = None
                try:
                    got: Value | None = case.fn(*vals)
                except Undefined:
                    got = None
                assert got == want, (case.label, env)
                fast = compile_expr(case.expr, case.names)
                try:
                    again: Value | None = fast(*vals)
                except Undefined:
                    again = None
                assert again == want, (case.label, env)
                checked += 1
    assert checked > 5000


def _boxes(case: OpCase, box: Box) -> list[list[Interval]]:
    return [sub_intervals(getattr(box, k)) for k in case.kinds]


def _table(case: OpCase, box: Box) -> dict[tuple[int, ...], Value | None]:
    spans = [range(getattr(box, k)[0], getattr(box, k)[1] + 1) for k in case.kinds]
    out: dict[tuple[int, ...], Value | None] = {}
    for vals in itertools.product(*spans):
        try:
            out[vals] = case.fn(*vals)
        except Undefined:
            out[vals] = None
    return out


def _exact(
    table: dict[tuple[int, ...], Value | None], ivs: Sequence[Interval]
) -> tuple[int, int, int] | None:
    """(min, max, points) of the defined values over the sub-box, or None."""
    lo: int | None = None
    hi: int | None = None
    n = 0
    for vals in itertools.product(*(range(a, b + 1) for a, b in ivs)):
        n += 1
        v = table[vals]
        if v is None:
            continue
        iv = int(v)
        if lo is None or iv < lo:
            lo = iv
        if hi is None or iv > hi:
            hi = iv
    if lo is None or hi is None:
        return None
    return lo, hi, n


def _bound_int(b: Expr | None) -> int | None:
    if b is None:
        return None
    assert type(b) is Integer, f"numeric ranges gave the symbolic bound {b}"
    v: int = b.payload
    return v


def _check_op(case: OpCase, box: Box, tally: Tally) -> None:
    table = _table(case, box)
    is_claim = case.expr.is_bool
    for ivs in itertools.product(*_boxes(case, box)):
        r = dict(zip(case.names, ivs))
        ctx = Context(as_ranges(r))
        tally.cases += 1
        ex = _exact(table, ivs)
        if ex is None:
            continue
        lo, hi, n = ex
        tally.points += n
        size = sum(b - a for a, b in ivs)
        got = interval(case.expr, ctx)
        if not (got[0] <= lo and hi <= got[1]):
            tally.fail(size, f"interval({case.label}) on {r} = {_show(got)}, exact [{lo}, {hi}]")
        if is_claim:
            verdict = decide_in(case.expr, ctx)
            if verdict is not None and not (lo == hi == int(verdict)):
                tally.fail(size, f"decide({case.label}) on {r} = {verdict}, values [{lo}, {hi}]")
            continue
        b_lo, b_hi = bounds_in(case.expr, ctx)
        blo, bhi = _bound_int(b_lo), _bound_int(b_hi)
        if (blo is not None and blo > lo) or (bhi is not None and bhi < hi):
            tally.fail(size, f"bounds({case.label}) on {r} = [{blo}, {bhi}], exact [{lo}, {hi}]")


@pytest.mark.parametrize("box", TIERS)
@pytest.mark.parametrize("op", list(OP_CASES), ids=lambda t: t.__name__)
def test_interval_transfer_function(op: type[Expr], box: Box) -> None:
    """interval(e, ctx), bounds_in(e, ctx) and, for claims, decide_in(c, ctx) contain
    every concrete result, for every combination of sub-intervals of the box."""
    tally = Tally(f"{op.__name__} {'fast' if box is FAST else 'full'}")
    for case in OP_CASES[op]:
        _check_op(case, box, tally)
    tally.report()


# --- the helpers --------------------------------------------------------------------------

Helper = Callable[[Any, Any], Any]
HELPERS: list[tuple[str, Helper, Callable[[int, int], int], str]] = [
    ("imul", imul, lambda a, b: a * b, "operand"),
    ("ifloordiv", ifloordiv, _fdiv, "divisor"),
    ("imod", imod, _mod, "divisor"),
]


@pytest.mark.parametrize("box", TIERS)
@pytest.mark.parametrize("helper", HELPERS, ids=lambda h: h[0])
def test_interval_helper(
    helper: tuple[str, Helper, Callable[[int, int], int], str], box: Box
) -> None:
    name, fn, concrete, second = helper
    case = _case(x * y, f"operand {second}", concrete)  # the table only: fn's values
    table = _table(case, box)
    tally = Tally(f"{name} {'fast' if box is FAST else 'full'}")
    for a, b in itertools.product(sub_intervals(box.operand), sub_intervals(getattr(box, second))):
        tally.cases += 1
        ex = _exact(table, (a, b))
        if ex is None:
            continue
        lo, hi, n = ex
        tally.points += n
        got = fn(a, b)
        if not (got[0] <= lo and hi <= got[1]):
            tally.fail(
                a[1] - a[0] + b[1] - b[0], f"{name}({a}, {b}) = {_show(got)}, exact [{lo}, {hi}]"
            )
    tally.report()


# --- open sides -----------------------------------------------------------------------------


def _open_intervals(box: Interval) -> Iterator[tuple[int | None, int | None]]:
    lo, hi = box
    yield None, None
    for k in range(lo, hi + 1):
        yield None, k
        yield k, None


def test_open_sides_are_sound() -> None:
    """One operand with an open side (or none), the other a sub-interval: the result
    contains every value over a window of 24 values beyond the bounded side."""
    tally = Tally("open sides")
    reach = 24
    for cases in OP_CASES.values():
        for case in cases:
            if len(case.names) != 2:
                continue
            first = [iv for iv in _open_intervals((-3, 3))]
            second = sub_intervals(getattr(FAST, case.kinds[1]))
            for (a0, a1), b in itertools.product(first, second):
                r: dict[str, tuple[int | None, int | None]] = {case.names[0]: (a0, a1)}
                r[case.names[1]] = b
                ctx = Context(as_ranges(r))
                tally.cases += 1
                got = interval(case.expr, ctx)
                wlo = a0 if a0 is not None else (a1 if a1 is not None else 0) - reach
                whi = a1 if a1 is not None else (a0 if a0 is not None else 0) + reach
                vals = []
                for va in range(wlo, whi + 1):
                    for vb in range(b[0], b[1] + 1):
                        try:
                            vals.append(int(case.fn(va, vb)))
                        except Undefined:
                            continue
                tally.points += (whi - wlo + 1) * (b[1] - b[0] + 1)
                if vals and not (got[0] <= min(vals) and max(vals) <= got[1]):
                    tally.fail(
                        b[1] - b[0],
                        f"interval({case.label}) on {r} = {_show(got)}, "
                        f"window values [{min(vals)}, {max(vals)}]",
                    )
    tally.report()


# --- symbolic bounds: size symbols instantiated -------------------------------------------

#: Range shapes of a variable, ``S`` standing for a size symbol.
SHAPES: tuple[tuple[str, str], ...] = (
    ("0", "S - 1"),
    ("1", "S"),
    ("S - 3", "S + 1"),
    ("-S", "S"),
    ("2 - S", "2"),
    ("-3", "S - 4"),
    ("S", "2*S"),
    ("-2*S", "1 - S"),
    ("-2", "3"),
)
#: Size ranges: lower bounds >= 1; an open top is enumerated over a window of 6 sizes.
SIZE_RANGES: dict[str, tuple[tuple[int, int | None], ...]] = {
    "fast": ((1, 5), (1, None)),
    "full": ((1, 5), (1, None), (3, 6), (2, 2)),
}
SIZE_TIERS = [
    pytest.param("fast", id="fast"),
    pytest.param("full", id="full", marks=pytest.mark.slow),
]


def _shape(shape: tuple[str, str], size: str) -> tuple[str, str]:
    return shape[0].replace("S", size), shape[1].replace("S", size)


_COMPILED: dict[tuple[Expr, tuple[str, ...]], Callable[..., Value]] = {}


def _compiled(e: Expr, names: tuple[str, ...]) -> Callable[..., Value]:
    fn = _COMPILED.get((e, names))
    if fn is None:
        fn = compile_expr(e, names)
        if len(_COMPILED) > 20_000:
            _COMPILED.clear()
        _COMPILED[(e, names)] = fn
    return fn


def check_exhaustively(e: Expr, r: dict[str, Any], tally: Tally, *, label: str = "") -> None:
    """Every analysis of ``e`` under ``r`` against every point of ``r`` (windowed where a
    side is open): interval(e, ctx) and bounds_in(e, ctx) (public: a bound must have a
    value wherever e has one), sym_bound both ways (default elimination) and, for a claim,
    decide_in."""
    ctx = Context(as_ranges(r))
    dom = domain_points(r, variables=e.free_symbols, window=6)
    assert dom is not None, (e, r)
    points, _ = dom
    tally.cases += 1
    if not points:
        return
    names = tuple(sorted(points[0]))
    fn = _compiled(e, names)
    iv = interval(e, ctx)
    checks: list[tuple[str, Expr | None, bool, bool]] = []  # (what, bound, upper, public)
    verdict: bool | None = None
    if e.is_bool:
        verdict = decide_in(e, ctx)
    else:
        b_lo, b_hi = bounds_in(e, ctx)
        checks += [("bounds lo", b_lo, False, True), ("bounds hi", b_hi, True, True)]
        passes: list[tuple[str, frozenset[Expr] | None]] = [("dependent", None)]
        for attr in ("bounded", "eliminable"):  # decide's second pass, bounds' elimination
            elim = getattr(ctx, attr, None)
            if isinstance(elim, frozenset):
                passes.append((attr, elim))
        for upper in (False, True):
            for which, elim in passes:
                sb = sym_bound(e, ctx, upper=upper, elim=elim)
                what = f"sym_bound({'upper' if upper else 'lower'}, elim={which})"
                checks.append((what, sb, upper, False))
    compiled: list[tuple[str, Expr, Callable[..., Value], bool, bool]] = []
    for what, b, upper, public in checks:
        if b is None:
            continue
        try:
            compiled.append((what, b, _compiled(b, names), upper, public))
        except ValueError:
            tally.fail(len(points), f"{what} of {label or e} on {r} is {b}: unknown symbols")
    size = len(points) + len(str(e))
    for p in points:
        vals = tuple(p[n] for n in names)
        try:
            v = int(fn(*vals))
        except Undefined:
            continue
        tally.points += 1
        if not (iv[0] <= v <= iv[1]):
            tally.fail(
                size, f"interval({label or e}) on {r} = {_show(iv)}; at {p} the value is {v}"
            )
            return
        if verdict is not None and bool(v) != verdict:
            tally.fail(size, f"decide({label or e}) on {r} = {verdict}; false at {p}")
            return
        for what, b, bfn, upper, public in compiled:
            try:
                bv = int(bfn(*vals))
            except Undefined:
                if public:
                    tally.fail(size, f"{what} of {label or e} on {r} is {b}: no value at {p}")
                    return
                continue
            if (v > bv) if upper else (v < bv):
                tally.fail(
                    size, f"{what} of {label or e} on {r} is {b} = {bv} at {p}; the value is {v}"
                )
                return


def _symbolic_ops() -> list[Expr]:
    """Ops over x, y (both with symbolic shapes), and ops with literal operands."""
    return [
        x + y,
        x - y,
        2 * x - 3 * y + 1,
        x * y,
        -1 * x * y,
        x * x,
        FloorDiv(x, y),
        CleanDiv(x, y),
        CeilDiv(x, y),
        Mod(x, y),
        ModularIndexing(x, y, 3),
        ModularIndexing(x, 2, y),
        Min(x, y),
        Max(x, y),
        Where(x < y, x, y),
        Where(y <= 0, x, y),
    ]


def _literal_symbolic_ops() -> list[Expr]:
    out: list[Expr] = [-3 * x, 2 * x + 5, Min(x, 1), Max(x, -1), x * x * x]
    for c in (-3, -2, -1, 1, 2, 3, 4):
        out += [FloorDiv(x, c), CeilDiv(x, c), Mod(x, c), CleanDiv(x, c)]
    for d in (1, 2, 3):
        for m in (1, 2, 3, 5):
            out.append(ModularIndexing(x, d, m))
    return out


def _size_operand_ops() -> list[Expr]:
    """Ops whose operand is a size symbol itself."""
    return [
        FloorDiv(x, s0),
        Mod(x, s0),
        CeilDiv(x, s0),
        CleanDiv(x, s1),
        ModularIndexing(x, 1, s0),
        ModularIndexing(x, s1, s0),
        ModularIndexing(x, s0, 2),
        x * s0,
        x * s1 - s0,
        Min(x, s0),
        Max(x, s1),
        s0 - x,
        FloorDiv(s0 - x, 2),
        Where(x < s1, x, s0),
        Where(s0 < x, s1, x),
    ]


@pytest.mark.parametrize("tier", SIZE_TIERS)
def test_symbolic_transfer_functions(tier: str) -> None:
    """bounds and sym_bound over size symbols: instantiated at every size in the size
    range (a window of 6 for an open top), the bounds contain every value."""
    tally = Tally(f"symbolic {tier}")
    sizes = SIZE_RANGES[tier]
    shapes = SHAPES if tier == "full" else SHAPES[:7]
    for e in _symbolic_ops():
        for sx, sy, other, s_range in itertools.product(shapes, shapes, ("s0", "s1"), sizes):
            r: dict[str, Any] = {"x": _shape(sx, "s0"), "y": _shape(sy, other), "s0": s_range}
            if other == "s1":
                r["s1"] = (2, 4)
            check_exhaustively(e, r, tally)
    for e in _literal_symbolic_ops():
        for sx, s_range in itertools.product(shapes, sizes):
            check_exhaustively(e, {"x": _shape(sx, "s0"), "s0": s_range}, tally)
    for e in _size_operand_ops():
        for sx, s_range, s1_range in itertools.product(shapes, sizes, ((1, 3), (2, None))):
            r = {"x": _shape(sx, "s0"), "s0": s_range, "s1": s1_range}
            check_exhaustively(e, r, tally)
    tally.report()


# --- congruence ---------------------------------------------------------------------------


def _fact_leaves(sym: Expr) -> list[Expr]:
    """``m*sym + r`` for every fact (m, r) with m <= 6, and constants (m = 0)."""
    out: list[Expr] = [integer(r) for r in range(-4, 5)]
    for m in range(1, 7):
        out += [m * sym + r for r in range(m)]
        out.append(-m * sym + 1)
    return out


def _congruence_exprs() -> Iterator[Expr]:
    xs, ys = _fact_leaves(x), _fact_leaves(y)
    for a, b in itertools.product(xs, ys):
        yield a + b
        yield a - b
        yield a * b
        yield Min(a, b)
        yield Max(a, b)
        yield Where(x < y, a, b)
        if b.free_symbols:
            yield FloorDiv(a, b)
            yield Mod(a, b)
    for a in xs:
        if not a.free_symbols:
            continue
        yield a * a
        yield a + 3 * a * a
        for c in _LITERAL_DIVISORS:
            yield FloorDiv(a, c)
            yield Mod(a, c)
            yield CeilDiv(a, c)
            yield CleanDiv(a, c)
        for d in range(1, 7):
            for m in range(1, 7):
                yield ModularIndexing(a, d, m)
        yield FloorDiv(Mod(a, 4), 2)
        yield Mod(FloorDiv(a, 2), 3) + 2 * ModularIndexing(a, 3, 2)


@pytest.mark.parametrize("box", TIERS)
def test_congruence_transfer_functions(box: Box) -> None:
    """congruence(e) = (m, r) is well formed and every value of e is ≡ r (mod m) (== r
    when m == 0), for operands of every fact m*x + r with m <= 6, over x, y in the box."""
    tally = Tally(f"congruence {'fast' if box is FAST else 'full'}")
    lo, hi = box.operand
    grid = list(itertools.product(range(lo, hi + 1), repeat=2))
    for e in _congruence_exprs():
        tally.cases += 1
        m, r = congruence(e)
        if m < 0 or (m > 0 and not 0 <= r < m):
            tally.fail(0, f"congruence({e}) = ({m}, {r}) is not normalised")
            continue
        fn = _compiled(e, ("x", "y"))
        for vx, vy in grid:
            try:
                v = int(fn(vx, vy))
            except Undefined:
                continue
            tally.points += 1
            if (v != r) if m == 0 else ((v - r) % m != 0):
                tally.fail(
                    len(str(e)), f"congruence({e}) = ({m}, {r}); at x={vx}, y={vy} it is {v}"
                )
                break
    tally.report()


# --- composite procedures -----------------------------------------------------------------

_COEFFS = (-3, -2, -1, 1, 2, 3)


def _decorrelation_exprs() -> Iterator[Expr]:
    """``a*x + b*(x // c)`` (interval._add pairs the two terms), with a third term."""
    for a, b, c in itertools.product(_COEFFS, _COEFFS, range(1, 7)):
        base = a * x + b * FloorDiv(x, c)
        yield base
        if c in (2, 3) and a in (-1, 2) and b in (-2, 1):
            yield base + 1
            yield base + y
            yield base - 2 * FloorDiv(x, 4)
            yield base + b * Mod(x, c)
            yield base + a * FloorDiv(y, c)


def _numeric_ranges(names: Sequence[str], box: Interval) -> Iterator[dict[str, Any]]:
    for ivs in itertools.product(sub_intervals(box), repeat=len(names)):
        yield dict(zip(names, ivs))


def _symbolic_ranges(names: Sequence[str], tier: str) -> Iterator[dict[str, Any]]:
    shapes = SHAPES if tier == "full" else SHAPES[:7]
    for s_range in SIZE_RANGES[tier]:
        for combo in itertools.product(shapes, repeat=len(names)):
            r: dict[str, Any] = {n: _shape(sh, "s0") for n, sh in zip(names, combo)}
            r["s0"] = s_range
            yield r


@pytest.mark.parametrize("box", TIERS)
def test_decorrelation(box: Box) -> None:
    tally = Tally(f"decorrelation {'fast' if box is FAST else 'full'}")
    tier = "fast" if box is FAST else "full"
    for e in _decorrelation_exprs():
        names = tuple(sorted(s.payload for s in e.free_symbols))
        small = box.operand if len(names) == 1 else box.triple
        for r in _numeric_ranges(names, small):
            check_exhaustively(e, r, tally)
        if len(names) == 1:
            for r in _symbolic_ranges(names, tier):
                check_exhaustively(e, r, tally)
    tally.report()


#: Products with repeated or correlated factors (squares are >= 0; factors >= 0 only
#: through decorrelation).
PRODUCTS: tuple[Expr, ...] = (
    x * x,
    (x - 4) * (x - 4),
    (x - y) * (x - y),
    x * x * FloorDiv(x, 4),
    FloorDiv(x, 2) * FloorDiv(x, 2),
    Mod(x, 3) * Mod(x, 3) - Mod(x, 3),
    Min(x, y) * Min(x, y),
    Min(x, y) * Max(x, y),
    Max(x, 2) * x,
    ModularIndexing(x, 1, 4) * FloorDiv(x, 4),
    (x - FloorDiv(x, 2)) * (x - FloorDiv(x, 2)),
    (x - 2 * FloorDiv(x, 2)) * y,
    (x - 2 * FloorDiv(x, 3)) * (x - 2 * FloorDiv(x, 3)),
    Min(y, x - FloorDiv(x, 2)) * (x - FloorDiv(x, 2)),
    Max(0, x - FloorDiv(x, 2)) * Min(3, y),
    CeilDiv(x, 2) * FloorDiv(x, 2),
)

#: Issue 16, bug 1 (fixed): sym_bound multiplied the symbolic lower bounds of factors known
#: >= 0 only numerically; two negative symbolic bounds gave a positive one.
NONNEGATIVE_PRODUCTS = (
    Min(1, x - FloorDiv(x, 2)) * Min(1, x - FloorDiv(x, 2)),
    Min(0, x - FloorDiv(x, 2)) * Min(0, x - FloorDiv(x, 2)),
    Min(s0, x - 2 * FloorDiv(x, 3)) * Min(s0, x - 2 * FloorDiv(x, 3)),
)


@pytest.mark.parametrize("box", TIERS)
def test_products_of_correlated_factors(box: Box) -> None:
    tally = Tally(f"products {'fast' if box is FAST else 'full'}")
    tier = "fast" if box is FAST else "full"
    for e in PRODUCTS:
        names = tuple(sorted(s.payload for s in e.free_symbols))
        small = box.operand if len(names) == 1 else box.triple
        for r in _numeric_ranges(names, small):
            check_exhaustively(e, r, tally)
        for r in _symbolic_ranges(names, tier):
            check_exhaustively(e, r, tally)
    tally.report()


def test_products_of_factors_nonnegative_through_decorrelation() -> None:
    tally = Tally("nonnegative products")
    for e in NONNEGATIVE_PRODUCTS:
        for r in _symbolic_ranges(("x",), "fast"):
            check_exhaustively(e, r, tally)
        for r in _numeric_ranges(("x",), FAST.operand):
            check_exhaustively(e, r, tally)
    tally.report()


#: Where with conditions on symbols the branches do not use, on size symbols, on symbols
#: whose ranges depend on others, nested Where and conditions refining shared subterms.
WHERES: tuple[Expr, ...] = (
    Where(s0 < 0, s0, 5),  # issue 16, bug 2: an unused ranged symbol made a branch dead
    Where(s0 < 2, x, y),
    Where(x < y, x, y),
    Where(x < s0, x - s0, s0 - x),
    Where(Eq(x, y), y, z),
    Where(And(x < s0, y <= x), y - x, x),
    Where(x < 2, Where(y < x, y, x), x),
    Where(x < y, Where(y < x, 100, x), y),  # the inner then-branch is dead
    Where(Not(x <= y), FloorDiv(x, 2), y),
    Where(Or(x < 0, y < 0), Min(x, y), x * y),
    Where(x - FloorDiv(x, 2) < 2, x, -x),
    Where(z < x, z, x) + Where(z < x, x, z),
)


def _where_ranges(e: Expr, tier: str) -> Iterator[dict[str, Any]]:
    names = tuple(sorted(s.payload for s in e.free_symbols if s.payload != "s0"))
    small = (-2, 2) if tier == "fast" else (-3, 3)
    for r in _numeric_ranges(names, small):
        if s0 in e.free_symbols:
            for s_range in ((-2, 2), (1, 3)):
                yield {**r, "s0": s_range}
            yield {**r, "q": "s0"}  # s0 unranged; q unused but its range mentions s0
        else:
            yield r
    for r in _symbolic_ranges(names, tier):
        yield r
        yield {**r, "q": ("s0", "s0 - 1")}  # an unused symbol with an empty range
    if "z" in names:
        yield {"x": (-2, 3), "y": "x", "z": ("x - 2", "x + 1")}


@pytest.mark.parametrize("tier", SIZE_TIERS)
def test_refinement_through_where(tier: str) -> None:
    tally = Tally(f"where {tier}")
    for e in WHERES:
        for r in _where_ranges(e, tier):
            check_exhaustively(e, r, tally)
    tally.report()


# --- generated expressions with shared subterms -------------------------------------------


def _generated(examples: int, seed_: int) -> Tally:
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from indexalg.testing.adversarial import adversarial_cases

    tally = Tally(f"generated x{examples}")

    @seed(seed_)
    @settings(
        max_examples=examples,
        derandomize=False,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
    )
    @given(adversarial_cases(), adversarial_cases(claims=True))
    def run(case: Any, claim: Any) -> None:
        for e, r, _ in (case, claim):
            check_exhaustively(e, r, tally)
        e = case[0]
        m, r0 = congruence(e)
        for p in case[2]:
            names = tuple(sorted(p))
            try:
                v = int(_compiled(e, names)(*(p[n] for n in names)))
            except Undefined:
                continue
            if (v != r0) if m == 0 else ((v - r0) % m != 0):
                tally.fail(len(str(e)), f"congruence({e}) = ({m}, {r0}); at {p} it is {v}")
                break

    run()
    return tally


def test_generated_expressions_fast() -> None:
    """Expressions and claims from indexalg.testing.adversarial (shared subterms, repeated
    factors, lowered remainders, Where on unused symbols, symbolic ranges): interval,
    bounds, sym_bound, decide and congruence against every point of their domains."""
    _generated(1500, 20261201).report()


@pytest.mark.slow
def test_generated_expressions_full() -> None:
    _generated(40_000, 16).report()


def test_decorrelation_is_never_looser_than_the_naive_sum() -> None:
    tally = Tally("decorrelation tightness")
    for e in _decorrelation_exprs():
        if len(e.free_symbols) != 1:
            continue
        for r in _numeric_ranges(("x",), FAST.operand):
            ctx = Context(as_ranges(r))
            tally.cases += 1
            lo, hi = e.payload, e.payload
            for t in e.args:
                tl, th = interval(t, ctx)
                lo, hi = lo + tl, hi + th
            got = interval(e, ctx)
            if got[0] < lo or got[1] > hi:
                tally.fail(
                    r["x"][1] - r["x"][0],
                    f"interval({e}) on {r} = {_show(got)}, naive [{lo}, {hi}]",
                )
    tally.report()


# --- every small expression: depth two, shared subterms -----------------------------------

_LEAVES: tuple[Expr, ...] = (x, y, s0, integer(1), integer(-2), integer(3))
u = Symbol("u")


def _ops(a: Expr, b: Expr) -> list[Expr]:
    out = [
        a + b,
        a - b,
        a * b,
        Min(a, b),
        Max(a, b),
        Where(a < b, a, b),
        Where(u < 0, a, b),  # u: no range, not in the branches
        Where(Eq(a, 1), b, a),
        a - 2 * FloorDiv(a, 2),  # Inductor's a % 2
        a - FloorDiv(b, 2),
    ]
    if not (type(b) is Integer and b.payload == 0):
        out += [FloorDiv(a, b), Mod(a, b), CeilDiv(a, b)]
    if not (type(b) is Integer and b.payload < 1):
        out.append(ModularIndexing(a, 2, b))
    return out


def small_expressions() -> list[Expr]:
    """Every ``op(a, b)`` over the leaves, then every ``op(t, b)`` and ``op(b, t)`` for such
    a ``t`` and ``b`` a leaf or ``t`` itself (a shared subterm): 37,882 expressions."""
    first: set[Expr] = set()
    for a, b in itertools.product(_LEAVES, repeat=2):
        first.update(_ops(a, b))
    second: set[Expr] = set()
    for t in sorted(first, key=lambda e: e.key):
        for b in (*_LEAVES, t):
            second.update(_ops(t, b))
            second.update(_ops(b, t))
    return sorted(second, key=lambda e: e.key)


SMALL_RANGES: tuple[dict[str, Any], ...] = (
    {"x": (-3, 3), "y": (0, 4), "s0": (1, 4)},
    {"x": (2, 2), "y": (-4, -1), "s0": (2, 2)},
    {"x": "s0", "y": ("s0 - 3", "s0 + 1"), "s0": (1, 5)},
    {"x": ("-s0", "s0"), "y": ("x - 2", "x"), "s0": (1, 4)},
    {"x": (0, "s0*s0 - 1"), "y": (1, "s0"), "s0": (1, 3)},
    {"x": (0, 5), "y": "s0"},  # s0 unranged
    {"x": ("s0 - 3", -1), "y": (-2, 2), "s0": (1, None)},
    {"x": (-5, -1), "y": (-3, 3), "s0": (-2, 3)},
)


@pytest.mark.parametrize("tier", SIZE_TIERS)
def test_every_small_expression(tier: str) -> None:
    """Bounded-exhaustive: every expression of depth two over the leaves (shared subterms
    included) under eight range tables (numeric, singleton, negative, symbolic, non-linear,
    dependent, unranged size, sizes reaching below 1), at every point.  The fast tier takes
    every 25th expression."""
    exprs = small_expressions()
    assert len(exprs) == 37_882
    step = 25 if tier == "fast" else 1
    tally = Tally(f"small expressions {tier}")
    for e in exprs[::step]:
        for r in SMALL_RANGES:
            check_exhaustively(e, r, tally)
    tally.report()


# --- exact bounds -------------------------------------------------------------------------


def test_exact_bounds_of_an_unbounded_square_answer_in_time() -> None:
    from indexalg.testing.exhaustive import check_exact_bounds

    m = "Max(40, 9*s0 + 1)"
    e = parse(f"(3*({m} // 3) + {m} % 3)*(3*({m} // 3) + {m} % 3)")  # == m*m
    points = [{"s0": s} for s in range(1, 40)]
    assert check_exact_bounds(e, {"s0": (1, None)}, points, timeout=5) == (1600, None)


@pytest.mark.parametrize(
    ("text", "ranges"),
    [
        ("x*(x // s0) - x*(x // s0 // 2)", {"s0": (1, None), "x": (0, None)}),
        ("9*(s0 // 3)*(s0 // 3) + 6*(s0 // 3)*(s0 % 3) + (s0 % 3)*(s0 % 3)", {"s0": (1, None)}),
        (
            "x*ModularIndexing(y*Max(0, x), s0, s0) + y",
            {"s0": (1, None), "x": (0, None), "y": (0, None)},
        ),
    ],
)
def test_exact_bounds_stop_on_an_unbounded_side(text: str, ranges: dict[str, object]) -> None:
    """The campaign's S1 cases: the search stops (deterministic budget, bounded magnitude) and
    the unbounded side is None; the finite side is exact (checked on a sample of points)."""
    pytest.importorskip("z3")
    lo, hi = ia.bounds(text, ranges, exact=True)  # type: ignore[arg-type]
    assert hi is None and isinstance(lo, int)
    e = parse(text)
    names = sorted(str(s) for s in e.free_symbols)
    for values in itertools.product(range(1, 9), repeat=len(names)):
        assert ia.evaluate(e, dict(zip(names, values))) >= lo
