"""Narrowing a context by a condition: what ``Where(c, a, b)`` knows inside each branch."""

from __future__ import annotations

from indexalg.analysis.context import OPEN, Context
from indexalg.analysis.decide import decide_in
from indexalg.analysis.interval import interval
from indexalg.analysis.symbolic import mentions_dependent, sym_bound
from indexalg.errors import RangeError
from indexalg.expr import And, Eq, Expr, Integer, Le, Lt, Max, Min, Not, Or, Symbol, add

__all__ = ["refine", "range_is_empty", "empty_domain", "require_points"]


def _atoms(cond: Expr, truth: bool) -> list[tuple[Expr, Expr]] | None:
    """The condition (or its negation) as a conjunction of ``a <= b`` facts, when it is one."""
    t = type(cond)
    if t is Not:
        return _atoms(cond.args[0], not truth)
    if (t is And and truth) or (t is Or and not truth):
        out: list[tuple[Expr, Expr]] = []
        for a in cond.args:
            sub = _atoms(a, truth)
            if sub is None:
                return None
            out.extend(sub)
        return out
    if t is Lt:
        a, b = cond.args
        return [(a, add(b, -1))] if truth else [(b, a)]
    if t is Le:
        a, b = cond.args
        return [(a, b)] if truth else [(add(b, 1), a)]
    if t is Eq and truth:
        a, b = cond.args
        return [(a, b), (b, a)]
    return None


def _tighter(old: Expr, new: Expr, ctx: Context, *, upper: bool) -> Expr:
    """The tighter of two bounds on one side when provable, else their Min/Max."""
    if decide_in(Le.make(new, old), ctx):
        return new if upper else old
    if decide_in(Le.make(old, new), ctx):
        return old if upper else new
    return Min.make(old, new) if upper else Max.make(old, new)


def refine(
    ctx: Context, cond: Expr, truth: bool, domain: frozenset[Expr] | None = None
) -> Context | None:
    """``ctx`` narrowed by ``cond == truth`` on symbols compared directly; None when the
    branch is unreachable under the ranges.  Facts it cannot use are ignored (sound).

    ``domain`` is the set of symbols a point assigns (:meth:`Context.domain_of` of the
    expression being analysed): only their ranges can make the branch unreachable.  A
    ranged symbol outside it constrains nothing (``{"y": "s1"}`` does not make ``s1 >= 1``
    where ``y`` is not used).  None checks every ranged symbol (an assumption about the
    whole context)."""
    facts = _atoms(cond, truth)
    if not facts:
        return ctx

    ranges = ctx.ranges
    changed = False
    for a, b in facts:  # a <= b
        # a bound that reaches back to its own symbol through the ranges would make them
        # cyclic (s0 <= y + 1 with y in [s0 - 3, 5]): such a fact is ignored, which is sound
        if type(a) is Symbol and a not in ranges.closure(b.symbol_set):
            lo, hi = ranges.get_bounds(a)
            hi = b if hi is None else _tighter(hi, b, ctx, upper=True)
            ranges = ranges.with_bounds(a, lo, hi)
            changed = True
        if type(b) is Symbol and b not in ranges.closure(a.symbol_set):
            lo, hi = ranges.get_bounds(b)
            lo = a if lo is None else _tighter(lo, a, ctx, upper=False)
            ranges = ranges.with_bounds(b, lo, hi)
            changed = True
    if not changed:
        return ctx
    new = ctx.narrow(ranges)
    for sym in ranges:
        if domain is not None and sym not in domain:
            continue
        if range_is_empty(new, sym):
            return None
    return new


def range_is_empty(ctx: Context, sym: Expr) -> bool:
    """Proven: no value of ``sym`` lies in its range, whatever values the symbols its bounds
    mention take in theirs (numerically, then by the symbolic difference ``hi - lo``)."""
    lo_e, hi_e = ctx.bounds.get(sym, OPEN)
    if lo_e is None or hi_e is None:
        return False

    if type(lo_e) is Integer and type(hi_e) is Integer:
        return bool(lo_e.payload > hi_e.payload)
    if interval(lo_e, ctx)[0] > interval(hi_e, ctx)[1]:
        return True
    if type(lo_e) is Integer or type(hi_e) is Integer:
        return False  # the difference's bounds are the numeric check's
    gap = add(hi_e, -lo_e)  # the canonical difference cancels what the bounds share
    if interval(gap, ctx)[1] < 0:
        return True
    if not mentions_dependent(gap, ctx):
        return False
    # the symbolic difference decides emptiness where numbers cannot (not from inside
    # another emptiness check: bounds holding Where would recurse)
    query = ctx.query
    if query.checking_emptiness:
        return False
    query.checking_emptiness = True
    try:
        gap_bound = sym_bound(gap, ctx, upper=True)
    finally:
        query.checking_emptiness = False
    return gap_bound is not None and interval(gap_bound, ctx)[1] < 0


def require_points(e: Expr, ctx: Context) -> None:
    """Raise :class:`RangeError` when the ranges provably admit no point of ``e``: an answer
    about no points (any bound, any rewrite) would be true and useless."""
    why = empty_domain(e, ctx)
    if why is not None:
        raise RangeError(f"the ranges admit no point: {why}")


def empty_domain(e: Expr, ctx: Context) -> str | None:
    """Why the points of ``e`` under ``ctx`` provably do not exist (a symbol of ``e``'s
    domain whose range is empty), or None when emptiness is not proven."""
    empty = ctx.empty_symbols(lambda s: range_is_empty(ctx, s))
    if not empty:
        return None
    hit = sorted(ctx.domain_of(e) & empty, key=lambda s: str(s.payload))
    if not hit:
        return None
    sym = hit[0]
    lo, hi = ctx.bounds[sym]
    return f"{sym} in [{lo}, {hi}] is empty"
