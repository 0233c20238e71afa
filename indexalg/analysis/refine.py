"""Narrowing a context by a condition: what ``Where(c, a, b)`` knows inside each branch."""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.expr import And, Eq, Expr, Le, Lt, Max, Min, Not, Or, Symbol, add

__all__ = ["refine"]

_CHECKING: list[bool] = []


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
    from indexalg.analysis.decide import decide_in

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
    from indexalg.analysis.interval import interval

    ranges = ctx.ranges
    changed = False
    for a, b in facts:  # a <= b
        if type(a) is Symbol and a not in b.free_symbols:
            lo, hi = ranges.get_bounds(a)
            hi = b if hi is None else _tighter(hi, b, ctx, upper=True)
            ranges = ranges.with_bounds(a, lo, hi)
            changed = True
        if type(b) is Symbol and b not in a.free_symbols:
            lo, hi = ranges.get_bounds(b)
            lo = a if lo is None else _tighter(lo, a, ctx, upper=False)
            ranges = ranges.with_bounds(b, lo, hi)
            changed = True
    if not changed:
        return ctx
    new = Context(ranges)
    for sym in ranges:
        if domain is not None and sym not in domain:
            continue
        lo_e, hi_e = ranges[sym]
        if lo_e is not None and hi_e is not None:
            if interval(lo_e, new)[0] > interval(hi_e, new)[1]:
                return None
            # the symbolic difference decides emptiness where numbers cannot (not from
            # inside another emptiness check: bounds holding Where would recurse)
            if not _CHECKING:
                from indexalg.analysis.symbolic import sym_bound

                _CHECKING.append(True)
                try:
                    gap = sym_bound(add(hi_e, -lo_e), new, upper=True)
                finally:
                    _CHECKING.pop()
                if gap is not None and interval(gap, new)[1] < 0:
                    return None
    return new
