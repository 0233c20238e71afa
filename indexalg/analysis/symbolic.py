"""Symbolic bounds: bound an expression by an expression over size symbols.

With ``0 <= x < s0`` the numeric upper bound of ``x + s0`` is infinite, but its symbolic
bound is ``2*s0 - 1``.  :func:`sym_bound` replaces every *dependent* symbol (one whose range
refers to other symbols) by its bound on the side that maximises (or minimises) the
expression, keeps the other symbols, and lets the canonical sum cancel what cancels:
``s0 - x`` has the lower bound ``s0 - (s0 - 1) = 1``.  Callers then bound the result
numerically.  Sound, not complete: an op it cannot bound gives ``None``.
"""

from __future__ import annotations

from indexalg.analysis.context import INF, NEG_INF, Context, finite
from indexalg.expr import (
    Add,
    CeilDiv,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Symbol,
    Where,
    add,
    integer,
    mul,
)

__all__ = ["sym_bound", "mentions_dependent"]

_DEPTH = 16


def mentions_dependent(e: Expr, ctx: Context, elim: frozenset[Expr] | None = None) -> bool:
    """Whether ``e`` mentions a symbol to eliminate (default: the dependent ones)."""
    syms = ctx.dependent if elim is None else elim
    if not syms:
        return False
    return not syms.isdisjoint(e.symbol_set)


def _pick(a: Expr | None, b: Expr | None, ctx: Context, upper: bool) -> Expr | None:
    """The looser of two bounds (for a union): max for upper bounds, min for lower."""
    from indexalg.analysis.interval import interval

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


def _numeric(e: Expr, ctx: Context, upper: bool) -> Expr | None:
    from indexalg.analysis.interval import interval

    lo, hi = interval(e, ctx)
    v = hi if upper else lo
    if v == INF or v == NEG_INF:
        return None
    return integer(finite(v))


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
    if elim is None:
        elim = ctx.dependent
    if depth > _DEPTH:
        return None
    t = type(e)
    if t is Integer:
        return e
    if t is Symbol:
        if e not in elim:
            return e
        lo, hi = ctx.ranges.get_bounds(e)
        b = hi if upper else lo
        if b is None:
            return None
        return sym_bound(b, ctx, upper=upper, depth=depth + 1, elim=elim)
    if not mentions_dependent(e, ctx, elim):
        return e
    if ctx.facts:
        fact = ctx.facts.get(e)
        if fact is not None:
            f = fact[1] if upper else fact[0]
            if f is not None and not mentions_dependent(f, ctx, elim):
                # an assumed bound of e itself (a range keyed by this expression)
                computed = _sym_bound_op(e, ctx, upper=upper, depth=depth, elim=elim)
                if computed is None:
                    return f
                if upper:
                    return _pick_tighter(f, computed, ctx)
                return _pick_tighter_low(f, computed, ctx)
    return _sym_bound_op(e, ctx, upper=upper, depth=depth, elim=elim)


def _via_sum_fact(
    e: Expr, ctx: Context, *, upper: bool, depth: int, elim: frozenset[Expr]
) -> Expr | None:
    """A bound of the sum ``e = ±f + rest`` from the assumed range of the sum ``f`` (a
    range keyed by ``f``) and a bound of ``rest``; None when no fact applies."""
    terms = frozenset(e.args)
    for f, pos, neg in ctx.sum_facts:
        if f is e:
            continue
        sign = 1 if pos <= terms else (-1 if neg <= terms else 0)
        if not sign:
            continue
        fb = ctx.facts[f][1 if (sign > 0) == upper else 0]
        if fb is None or mentions_dependent(fb, ctx, elim):
            continue
        rest = add(e, mul(-sign, f))
        rb = sym_bound(rest, ctx, upper=upper, depth=depth + 1, elim=elim)
        if rb is not None:
            return add(mul(sign, fb), rb)
    return None


def _pick_tighter_low(a: Expr, b: Expr, ctx: Context) -> Expr:
    """Of two lower bounds, the one provably larger; ``a`` when neither is."""
    from indexalg.analysis.interval import interval

    if interval(b, ctx)[0] >= interval(a, ctx)[1]:
        return b
    return a


def _sym_bound_op(
    e: Expr, ctx: Context, *, upper: bool, depth: int, elim: frozenset[Expr]
) -> Expr | None:
    """:func:`sym_bound` of a compound expression, by its op."""
    t = type(e)
    if t is Add and ctx.sum_facts:
        via = _via_sum_fact(e, ctx, upper=upper, depth=depth, elim=elim)
        if via is not None:
            return via
    if t is Add:
        parts: list[Expr] = [integer(e.payload)]
        for term in e.args:
            b = sym_bound(term, ctx, upper=upper, depth=depth + 1, elim=elim)
            if b is None:
                return None
            parts.append(b)
        return add(*parts)
    if t is Mul:
        c: int = e.payload
        flip = c < 0
        factors = e.args
        if len(factors) == 1:
            b = sym_bound(factors[0], ctx, upper=upper != flip, depth=depth + 1, elim=elim)
            return None if b is None else mul(c, b)
        from indexalg.analysis.interval import interval

        if all(interval(f, ctx)[0] >= 0 for f in factors):
            # Every factor f is >= 0, so the product is monotone in each: upper bounds
            # multiply (each is >= f >= 0), and so do lower bounds once raised to 0 (a
            # bound below 0 is still below f, but two of them multiply to a positive).
            side = upper != flip
            bs: list[Expr] = []
            for f in factors:
                b = sym_bound(f, ctx, upper=side, depth=depth + 1, elim=elim)
                if b is None:
                    return _numeric(e, ctx, upper)
                if not side:
                    b = _at_least_zero(b, ctx)
                bs.append(b)
            return mul(c, *bs)
        return _numeric(e, ctx, upper)
    if t is FloorDiv or t is CleanDiv:
        a, q = e.args
        if type(q) is Integer and q.payload > 0:
            b = sym_bound(a, ctx, upper=upper, depth=depth + 1, elim=elim)
            return None if b is None else FloorDiv.make(b, q)
        return _numeric(e, ctx, upper)
    if t is CeilDiv:
        a, q = e.args
        if type(q) is Integer and q.payload > 0:
            b = sym_bound(a, ctx, upper=upper, depth=depth + 1, elim=elim)
            return None if b is None else CeilDiv.make(b, q)
        return _numeric(e, ctx, upper)
    if t is ModularIndexing or t is Mod:
        if not upper:
            if t is ModularIndexing:
                return integer(0)
            return _numeric(e, ctx, upper)
        m = e.args[-1]
        from indexalg.analysis.interval import interval

        if interval(m, ctx)[0] >= 1:
            bm = sym_bound(m, ctx, upper=True, depth=depth + 1, elim=elim)
            num = _numeric(e, ctx, True)
            if bm is None:
                return num
            sym = add(bm, -1)
            return sym if num is None else _pick_tighter(sym, num, ctx)
        return _numeric(e, ctx, upper)
    if t is Min or t is Max:
        mbs = [sym_bound(a, ctx, upper=upper, depth=depth + 1, elim=elim) for a in e.args]
        if (t is Min) == upper:
            # upper bound of a Min (lower of a Max): any argument's bound will do
            known = [b for b in mbs if b is not None]
            if not known:
                return None
            return Min.make(*known) if t is Min else Max.make(*known)
        if any(b is None for b in mbs):
            return None
        return Min.make(*mbs) if t is Min else Max.make(*mbs)  # type: ignore[arg-type]
    if t is Where:
        from indexalg.analysis.interval import _MAX_WHERE_DEPTH, _WHERE_DEPTH
        from indexalg.analysis.refine import refine

        cond, a, b = e.args
        if len(_WHERE_DEPTH) >= _MAX_WHERE_DEPTH:
            return _numeric(e, ctx, upper)
        _WHERE_DEPTH.append(True)
        try:
            domain = ctx.domain_of(e)
            ca = refine(ctx, cond, True, domain)
            cb = refine(ctx, cond, False, domain)
            ba = None if ca is None else sym_bound(a, ca, upper=upper, depth=depth + 1, elim=elim)
            bb = None if cb is None else sym_bound(b, cb, upper=upper, depth=depth + 1, elim=elim)
        finally:
            _WHERE_DEPTH.pop()
        if ca is None:
            return bb
        if cb is None:
            return ba
        return _pick(ba, bb, ctx, upper)
    return _numeric(e, ctx, upper)


def _at_least_zero(b: Expr, ctx: Context) -> Expr:
    """``max(b, 0)``: ``b`` itself when it is provably >= 0, ``0`` when provably <= 0."""
    from indexalg.analysis.interval import interval

    lo, hi = interval(b, ctx)
    if lo >= 0:
        return b
    if hi <= 0:
        return integer(0)
    return Max.make(b, integer(0))


def _pick_tighter(a: Expr, b: Expr, ctx: Context) -> Expr:
    """Of two upper bounds, the one provably smaller; ``a`` when neither is."""
    from indexalg.analysis.interval import interval

    if interval(b, ctx)[1] <= interval(a, ctx)[0]:
        return b
    return a
