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

#: None -> the context's points; _MEMOS -> the values met at each point;
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
#: the key of the per-point tables of the values met (one per witness point)
_MEMOS = ("memo",)


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
    points: tuple[Point, ...] | None = table.get(None)
    if points is None:
        points = table[None] = _build(ctx)
    out: tuple[Value | None, ...] = ()
    if points:
        t = type(e)
        if t is Integer:
            v: int = e.payload
            out = (v,) * len(points)
        elif t is Symbol:
            if e in points[0]:  # every point assigns the same symbols
                out = tuple([p[e] for p in points])
        elif e.depth <= _MAX_DEPTH and e.symbol_set <= points[0].keys():
            memos: list[dict[Expr, Value]] | None = table.get(_MEMOS)
            if memos is None:
                memos = table[_MEMOS] = [{} for _ in points]
            vals: list[Value | None] = []
            for i, point in enumerate(points):
                memo = memos[i]
                if len(memo) > 20_000:
                    memo = memos[i] = {}
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
    corners = _corners(ctx)
    if corners is None:
        return ()
    points: list[Point] = []
    facts = bool(ctx.facts)
    for point in corners:
        if point is None or point in points:
            continue
        if not facts or _satisfies_facts(ctx, point):
            points.append(point)
    return tuple(points)


def _corners(ctx: Context) -> tuple[Point | None, Point | None] | None:
    """The lower and the upper corner (None for one where a range has no value), built
    together, each symbol after the symbols its bounds mention; None when no corner can be
    built (a bound mentions a symbol with no range, or neither corner exists).  A range
    between literals (most are) is read off directly."""
    low: Point = {}
    high: Point = {}
    pending: list[Expr] = []
    for s, (lo_e, hi_e) in ctx.bounds.items():
        if (lo_e is None or type(lo_e) is Integer) and (hi_e is None or type(hi_e) is Integer):
            lo: int | None = None if lo_e is None else lo_e.payload
            hi: int | None = None if hi_e is None else hi_e.payload
            if lo is not None and hi is not None and lo > hi:
                return None
            low[s] = _pick_low(lo, hi)
            high[s] = _pick_high(lo, hi)
        else:
            pending.append(s)
    if pending:
        return _resolve(ctx, pending, low, high)
    return low, high


def _resolve(
    ctx: Context, pending: list[Expr], low: Point, high: Point
) -> tuple[Point | None, Point | None] | None:
    """The corners extended by the symbols whose bounds mention other symbols (see
    :func:`_corners`), in rounds: a symbol is placed once its bounds' symbols are."""
    bounds = ctx.bounds
    placed = set(low)
    corners: list[Point | None] = [low, high]
    memos: list[dict[Expr, Value]] = [{}, {}]
    while pending:
        rest: list[Expr] = []
        for s in pending:
            lo_e, hi_e = bounds[s]
            if (lo_e is not None and not lo_e.symbol_set <= placed) or (
                hi_e is not None and not hi_e.symbol_set <= placed
            ):
                rest.append(s)
                continue
            placed.add(s)
            for i in (0, 1):
                point = corners[i]
                if point is not None:
                    corners[i] = _place(s, lo_e, hi_e, point, memos[i], i == 1)
        if len(rest) == len(pending):
            return None
        pending = rest
    if corners[0] is None and corners[1] is None:
        return None
    return corners[0], corners[1]


def _place(
    s: Expr, lo_e: Expr | None, hi_e: Expr | None, point: Point, memo: dict[Expr, Value], up: bool
) -> Point | None:
    """``point`` with ``s`` at its corner's bound (evaluated at the point), or None when
    a bound has no value there or the range is empty there."""
    lo: Value | None = None
    hi: Value | None = None
    if lo_e is not None:
        lo = lo_e.payload if type(lo_e) is Integer else _value(lo_e, point, memo)
    if hi_e is not None:
        hi = hi_e.payload if type(hi_e) is Integer else _value(hi_e, point, memo)
    if (lo_e is not None and type(lo) is not int) or (hi_e is not None and type(hi) is not int):
        return None
    assert lo is None or type(lo) is int
    assert hi is None or type(hi) is int
    if lo is not None and hi is not None and lo > hi:
        return None
    point[s] = _pick_high(lo, hi) if up else _pick_low(lo, hi)
    return point


def _pick_low(lo: int | None, hi: int | None) -> int:
    """The lower corner takes each lower bound (0 for an open one, clamped to the upper)."""
    if lo is not None:
        return lo
    return 0 if hi is None or hi >= 0 else hi


def _pick_high(lo: int | None, hi: int | None) -> int:
    """The upper corner takes each upper bound (_REACH past the lower one for an open
    one)."""
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
