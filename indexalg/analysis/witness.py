"""Witness points: a few concrete in-range points per context, to refute before proving.

A claim that is false at one point of the ranges cannot be proven true; a claim that is
true at one point and false at another is undecidable outright.  The interval and symbolic
passes of :mod:`indexalg.analysis.decide` cost tens to hundreds of microseconds on a large
symbolic sum, and most rule conditions tried on such sums are false: evaluating the claim's
difference at two points first answers those in a few microseconds.

Soundness rests on one property, checked when the points are built: each point satisfies
every range of the context (bounds evaluated at the point) and every range keyed by an
expression (``ctx.facts``).  The analyses derive their answers from exactly those ranges and
facts, so no claim they could prove true is false at such a point; a point only ever skips a
proof attempt that would have failed.  A point where the expression has no value (a divisor
that is 0 there) says nothing, and a context whose ranges mention a symbol with no range of
its own gets no points.
"""

from __future__ import annotations

from indexalg.analysis.context import Context, owner
from indexalg.errors import IndexAlgError
from indexalg.evaluate import EVAL_TABLE
from indexalg.expr import Add, Expr, FloorDiv, Integer, ModularIndexing, Mul, Symbol
from indexalg.ops import Value

__all__ = ["witness_values", "witness_points", "points_disagree"]

#: None -> the context's points; ("memo", i) -> the values met at point i;
#: an expression -> its values at the points (None where it has none)
WITNESS = owner("witness", 4_000)
#: an open side of a range is replaced by a value this far past the other side (a size
#: symbol ``s >= 2`` is tried at 2 and at 2 + _REACH); odd, so that the two corners of a
#: size differ in parity (``x < 2*(s // 2)`` for ``x`` in ``[0, s - 1]`` is false at odd
#: sizes only)
_REACH = 7
#: deeper expressions are not evaluated (the evaluator recurses)
_MAX_DEPTH = 60

Point = dict[Expr, int]


def witness_points(ctx: Context) -> tuple[Point, ...]:
    """Up to two points of ``ctx``'s ranges (the lower and the upper corner), each
    satisfying every range and fact; empty when none could be built."""
    table = ctx.memos[WITNESS]
    hit: tuple[Point, ...] | None = table.get(None)
    if hit is None:
        hit = table[None] = _build(ctx)
    return hit


def witness_values(e: Expr, ctx: Context) -> tuple[Value | None, ...]:
    """The value of ``e`` (an int, or a bool for a claim) at each witness point of ``ctx``
    (None at a point where it has none); empty when there are no points or ``e`` mentions a
    symbol without a range."""
    table = ctx.memos[WITNESS]
    hit: tuple[Value | None, ...] | None = table.get(e)
    if hit is not None:
        return hit
    points = witness_points(ctx)
    out: tuple[Value | None, ...] = ()
    if points and e.depth <= _MAX_DEPTH and e.symbol_set <= points[0].keys():
        vals: list[Value | None] = []
        for i, point in enumerate(points):
            memo: dict[Expr, Value] | None = table.get(("memo", i))
            if memo is None or len(memo) > 20_000:
                memo = table[("memo", i)] = {}
            vals.append(_value(e, point, memo))
        out = tuple(vals)
    table[e] = out
    return out


def points_disagree(claim: Expr, ctx: Context) -> bool:
    """True when the claim is true at one witness point and false at another: no analysis
    or rewrite can prove it either way under ``ctx``'s ranges (it is undecidable there)."""
    seen = {v for v in witness_values(claim, ctx) if v is not None}
    return True in seen and False in seen


class _NoValue(Exception):
    """The expression has no value at the point (a zero divisor there)."""


def _value(e: Expr, point: Point, memo: dict[Expr, Value]) -> Value | None:
    try:
        return _ev(e, point, memo)
    except (_NoValue, IndexAlgError):
        return None


def _ev(e: Expr, point: Point, memo: dict[Expr, Value]) -> Value:
    """The reference semantics (:data:`indexalg.evaluate.EVAL_TABLE`), with the common
    integer ops inlined: this runs on every claim the analyses could not settle cheaply."""
    t = type(e)
    if t is Symbol:
        return point[e]
    if t is Integer:
        v: Value = e.payload
        return v
    got = memo.get(e)
    if got is not None:
        return got
    if t is Add:
        total: int = e.payload
        for a in e.args:
            total += _ev(a, point, memo)
        v = total
    elif t is Mul:
        prod: int = e.payload
        for a in e.args:
            prod *= _ev(a, point, memo)
        v = prod
    elif t is FloorDiv:
        x, y = e.args
        num = _ev(x, point, memo)
        den = _ev(y, point, memo)
        if den == 0:
            raise _NoValue
        v = num // den
    elif t is ModularIndexing:
        x, y, z = e.args
        num = _ev(x, point, memo)
        den = _ev(y, point, memo)
        m = _ev(z, point, memo)
        if den < 1 or m < 1:
            raise _NoValue
        v = (num // den) % m
    else:
        v = EVAL_TABLE[t](e, lambda x: _ev(x, point, memo))
    memo[e] = v
    return v


def _build(ctx: Context) -> tuple[Point, ...]:
    order = _resolution_order(ctx)
    if order is None:
        return ()
    points: list[Point] = []
    for pick in ("lo", "hi"):
        point = _point(ctx, order, pick)
        if point is not None and point not in points and _satisfies_facts(ctx, point):
            points.append(point)
    return tuple(points)


def _resolution_order(ctx: Context) -> list[Expr] | None:
    """The ranged symbols, each after the symbols its bounds mention (None when a bound
    mentions a symbol with no range)."""
    bounds = ctx.bounds
    order: list[Expr] = []
    placed: set[Expr] = set()
    pending = list(bounds)
    while pending:
        rest: list[Expr] = []
        for s in pending:
            if all(x in placed for b in bounds[s] if b is not None for x in b.symbol_set):
                order.append(s)
                placed.add(s)
            else:
                rest.append(s)
        if len(rest) == len(pending):
            return None
        pending = rest
    return order


def _point(ctx: Context, order: list[Expr], pick: str) -> Point | None:
    point: Point = {}
    memo: dict[Expr, Value] = {}
    for s in order:
        lo_e, hi_e = ctx.bounds[s]
        lo = None if lo_e is None else _value(lo_e, point, memo)
        hi = None if hi_e is None else _value(hi_e, point, memo)
        if (lo_e is not None and type(lo) is not int) or (hi_e is not None and type(hi) is not int):
            return None
        assert lo is None or type(lo) is int
        assert hi is None or type(hi) is int
        if lo is not None and hi is not None and lo > hi:
            return None
        point[s] = _pick(pick, lo, hi)
    return point


def _pick(pick: str, lo: int | None, hi: int | None) -> int:
    """The lower corner takes each lower bound (0 for an open one, clamped to the upper),
    the upper corner each upper bound (_REACH past the lower one for an open one)."""
    if pick == "lo":
        if lo is not None:
            return lo
        return 0 if hi is None or hi >= 0 else hi
    if hi is not None:
        return hi
    return _REACH if lo is None else lo + _REACH


def _satisfies_facts(ctx: Context, point: Point) -> bool:
    memo: dict[Expr, Value] = {}
    for key, (lo_e, hi_e) in ctx.facts.items():
        if not key.symbol_set <= point.keys():
            return False
        v = _value(key, point, memo)
        if type(v) is not int:
            return False
        for b, below in ((lo_e, False), (hi_e, True)):
            if b is None:
                continue
            if not b.symbol_set <= point.keys():
                return False
            w = _value(b, point, memo)
            if type(w) is not int or (v > w if below else v < w):
                return False
    return True
