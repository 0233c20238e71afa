"""Symbolic bounds: bound an expression by an expression over size symbols.

With ``0 <= x < s0`` the numeric upper bound of ``x + s0`` is infinite, but its symbolic
bound is ``2*s0 - 1``.  :func:`sym_bound` replaces every *dependent* symbol (one whose range
refers to other symbols) by its bound on the side that maximises (or minimises) the
expression, keeps the other symbols, and lets the canonical sum cancel what cancels:
``s0 - x`` has the lower bound ``s0 - (s0 - 1) = 1``.  Callers then bound the result
numerically.  Sound, not complete: an op it cannot bound gives ``None``.

One handler per op in :data:`SYMBOLIC_TABLE` (``Where``'s is registered by
:mod:`indexalg.analysis.where`); an op without a symbolic rule falls back to its numeric
interval.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from indexalg.analysis.context import OPEN, Context, owner
from indexalg.analysis.infinity import Infinity
from indexalg.analysis.interval import interval
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
    Wild,
    add,
    integer,
    mul,
)

__all__ = [
    "sym_bound",
    "mentions_dependent",
    "SYMBOLIC_TABLE",
    "Side",
    "numeric_bound",
    "pick_looser",
]

_DEPTH = 16


class Side(NamedTuple):
    """Which bound a handler computes: ``upper`` or lower, at recursion ``depth``, over the
    symbols not in ``elim``."""

    upper: bool
    depth: int
    elim: frozenset[Expr]

    def flipped(self) -> Side:
        return Side(not self.upper, self.depth, self.elim)


Handler = Callable[[Expr, Context, Side], "Expr | None"]


def mentions_dependent(e: Expr, ctx: Context, elim: frozenset[Expr] | None = None) -> bool:
    """Whether ``e`` mentions a symbol to eliminate (default: the dependent ones)."""
    syms = ctx.dependent if elim is None else elim
    if not syms:
        return False
    return not syms.isdisjoint(e.symbol_set)


def sym_bound(
    e: Expr,
    ctx: Context,
    *,
    upper: bool,
    depth: int = 0,
    elim: frozenset[Expr] | None = None,
) -> Expr | None:
    """An expression over the symbols not in ``elim`` (default: the dependent symbols)
    bounding ``e`` from above (``upper``) or below at every in-range point; None when no
    such bound is found."""
    return _bound(e, ctx, Side(upper, depth, ctx.dependent if elim is None else elim))


#: (node, side, Where depth, emptiness check running) -> its symbolic bound
SYMBOLIC = owner("symbolic")


def _bound(e: Expr, ctx: Context, side: Side) -> Expr | None:
    if side.depth > _DEPTH:
        return None
    t = type(e)
    if t is Integer:
        return e
    if t is not Symbol and not mentions_dependent(e, ctx, side.elim):
        return e
    # memoised per context on everything the answer reads: the node, the side (with its
    # depth, which cuts the recursion) and the re-entrancy state of the query
    query = ctx.query
    key = (e, side, query.where_depth, query.checking_emptiness)
    memo: dict[tuple[Expr, Side, int, bool], Expr | None] = ctx.memos[SYMBOLIC]
    if key in memo:
        return memo[key]
    inner = Side(side.upper, side.depth + 1, side.elim)
    computed = SYMBOLIC_TABLE[t](e, ctx, inner)
    if ctx.facts and t is not Symbol:
        computed = _with_fact(e, computed, ctx, side)
    memo[key] = computed
    return computed


def numeric_bound(e: Expr, ctx: Context, upper: bool) -> Expr | None:
    """The numeric interval's bound as an Integer, None when that side is unbounded."""
    lo, hi = interval(e, ctx)
    v = hi if upper else lo
    if isinstance(v, Infinity):
        return None
    return integer(v)


def pick_looser(a: Expr | None, b: Expr | None, ctx: Context, upper: bool) -> Expr | None:
    """The looser of two bounds (for a union): max for upper bounds, min for lower."""
    if a is None or b is None:
        return None
    if a is b:
        return a
    ia_, ib_ = interval(a, ctx), interval(b, ctx)
    if upper:
        if ia_[1] <= ib_[0]:
            return b
        if ib_[1] <= ia_[0]:
            return a
        return Max.make(a, b)
    if ia_[1] <= ib_[0]:
        return a
    if ib_[1] <= ia_[0]:
        return b
    return Min.make(a, b)


def _pick_tighter(a: Expr, b: Expr, ctx: Context, upper: bool) -> Expr:
    """Of two bounds on one side, the one provably tighter; ``a`` when neither is."""
    if upper:
        return b if interval(b, ctx)[1] <= interval(a, ctx)[0] else a
    return b if interval(b, ctx)[0] >= interval(a, ctx)[1] else a


# --- ranges keyed by expressions -------------------------------------------------------


def _with_fact(e: Expr, computed: Expr | None, ctx: Context, side: Side) -> Expr | None:
    """``computed`` or a bound from an assumed range of ``e`` itself, or of a sum among
    its terms (``e = ±f + rest``): whichever bounds tighter numerically."""
    best = computed
    fact = ctx.facts.get(e)
    if fact is not None:
        f = fact[1] if side.upper else fact[0]
        if f is not None and not mentions_dependent(f, ctx, side.elim):
            best = _at_least_as_tight(f, best, ctx, side.upper)
    via = _via_sum_fact(e, ctx, side)
    if via is not None:
        best = _at_least_as_tight(via, best, ctx, side.upper)
    return best


def _at_least_as_tight(a: Expr, b: Expr | None, ctx: Context, upper: bool) -> Expr:
    """``a`` (a bound from an assumption) unless ``b`` is provably or numerically tighter."""
    if b is None:
        return a
    la, ha = interval(a, ctx)
    lb, hb = interval(b, ctx)
    if upper:
        return b if (hb <= la or hb < ha) else a
    return b if (lb >= ha or lb > la) else a


def _via_sum_fact(e: Expr, ctx: Context, side: Side) -> Expr | None:
    for f, sign in ctx.sum_facts_in(e):
        fb = ctx.facts[f][1 if (sign > 0) == side.upper else 0]
        if fb is None or mentions_dependent(fb, ctx, side.elim):
            continue
        rb = _bound(add(e, mul(-sign, f)), ctx, Side(side.upper, side.depth + 1, side.elim))
        if rb is not None:
            return add(mul(sign, fb), rb)
    return None


# --- the handlers, one per op ----------------------------------------------------------


def _symbol(e: Expr, ctx: Context, side: Side) -> Expr | None:
    if e not in side.elim:
        return e
    lo, hi = ctx.bounds.get(e, OPEN)
    b = hi if side.upper else lo
    if b is None:
        return None
    return _bound(b, ctx, side)


def _add(e: Expr, ctx: Context, side: Side) -> Expr | None:
    parts: list[Expr] = [integer(e.payload)]
    for term in e.args:
        b = _bound(term, ctx, side)
        if b is None:
            return None
        parts.append(b)
    return add(*parts)


def _mul(e: Expr, ctx: Context, side: Side) -> Expr | None:
    c: int = e.payload
    factors = e.args
    # a negative coefficient bounds the product on the other side
    fside = side.flipped() if c < 0 else side
    if len(factors) == 1:
        b = _bound(factors[0], ctx, fside)
        return None if b is None else mul(c, b)
    if not all(interval(f, ctx)[0] >= 0 for f in factors):
        return numeric_bound(e, ctx, side.upper)
    # Every factor f is >= 0, so the product is monotone in each: upper bounds multiply
    # (each is >= f >= 0), and so do lower bounds once raised to 0 (a bound below 0 is
    # still below f, but two of them multiply to a positive).
    bs: list[Expr] = []
    for f in factors:
        b = _bound(f, ctx, fside)
        if b is None:
            return numeric_bound(e, ctx, side.upper)
        bs.append(b if fside.upper else _at_least_zero(b, ctx))
    return mul(c, *bs)


def _at_least_zero(b: Expr, ctx: Context) -> Expr:
    """``max(b, 0)``: ``b`` itself when it is provably >= 0, ``0`` when provably <= 0."""
    lo, hi = interval(b, ctx)
    if lo >= 0:
        return b
    if hi <= 0:
        return integer(0)
    return Max.make(b, integer(0))


def _division(e: Expr, ctx: Context, side: Side) -> Expr | None:
    """FloorDiv, CleanDiv and CeilDiv by a positive literal are monotone in the dividend."""
    a, q = e.args
    if type(q) is Integer and q.payload > 0:
        b = _bound(a, ctx, side)
        if b is None:
            return None
        return (CeilDiv if type(e) is CeilDiv else FloorDiv).make(b, q)
    return numeric_bound(e, ctx, side.upper)


def _remainder(e: Expr, ctx: Context, side: Side) -> Expr | None:
    """Mod and ModularIndexing: below by 0 (ModularIndexing) or numerically, above by the
    modulus' upper bound minus one where the modulus is >= 1."""
    t = type(e)
    if not side.upper:
        return integer(0) if t is ModularIndexing else numeric_bound(e, ctx, False)
    m = e.args[-1]
    if interval(m, ctx)[0] < 1:
        return numeric_bound(e, ctx, True)
    bm = _bound(m, ctx, side)
    num = numeric_bound(e, ctx, True)
    if bm is None:
        return num
    sym = add(bm, -1)
    return sym if num is None else _pick_tighter(sym, num, ctx, True)


def _min_max(e: Expr, ctx: Context, side: Side) -> Expr | None:
    is_min = type(e) is Min
    bs = [_bound(a, ctx, side) for a in e.args]
    if is_min == side.upper:
        # upper bound of a Min (lower of a Max): any argument's bound will do
        known = [b for b in bs if b is not None]
        if not known:
            return None
        return Min.make(*known) if is_min else Max.make(*known)
    every: list[Expr] = []
    for b in bs:
        if b is None:
            return None
        every.append(b)
    return Min.make(*every) if is_min else Max.make(*every)


def _numeric(e: Expr, ctx: Context, side: Side) -> Expr | None:
    return numeric_bound(e, ctx, side.upper)


def _none(e: Expr, ctx: Context, side: Side) -> Expr | None:
    return None


SYMBOLIC_TABLE: dict[type[Expr], Handler] = {
    Symbol: _symbol,
    Integer: lambda e, ctx, side: e,
    Wild: _none,
    Add: _add,
    Mul: _mul,
    FloorDiv: _division,
    CleanDiv: _division,
    CeilDiv: _division,
    Mod: _remainder,
    ModularIndexing: _remainder,
    Min: _min_max,
    Max: _min_max,
    # Where: registered by indexalg.analysis.where (it refines its condition)
    BoolConst: _numeric,
    Lt: _numeric,
    Le: _numeric,
    Eq: _numeric,
    Ne: _numeric,
    And: _numeric,
    Or: _numeric,
    Not: _numeric,
}
