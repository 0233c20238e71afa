"""``Where(c, a, b)`` in the analyses: decide the condition, else bound each branch under
the ranges narrowed by the condition (or its negation).

These handlers sit above the claim decisions and the refinement they use, and register
themselves into :data:`~indexalg.analysis.interval.INTERVAL_TABLE` and
:data:`~indexalg.analysis.symbolic.SYMBOLIC_TABLE` when this module is imported (the
package ``indexalg.analysis`` imports it), so the lower modules never import upwards.

Refinement nests: a branch's bounds may hold another Where whose condition's bounds hold
another.  :attr:`QueryState.where_depth` (shared by a context and those narrowed from it)
stops refining past :attr:`QueryState.MAX_WHERE_DEPTH`: both branches are then bounded
under the unnarrowed ranges, which is sound and looser.
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.analysis.interval import FULL, INTERVAL_TABLE, Interval, interval
from indexalg.analysis.refine import refine
from indexalg.analysis.symbolic import SYMBOLIC_TABLE, Side, numeric_bound, pick_looser, sym_bound
from indexalg.expr import Expr, Where

__all__ = ["where_interval", "where_sym_bound"]


def _branches(e: Expr, ctx: Context) -> tuple[Context | None, Context | None] | None:
    """The contexts of the two branches (None: unreachable), or None past the depth limit."""
    query = ctx.query
    if query.where_depth >= query.MAX_WHERE_DEPTH:
        return None
    c = e.args[0]
    domain = ctx.domain_of(e)
    query.where_depth += 1
    try:
        return refine(ctx, c, True, domain), refine(ctx, c, False, domain)
    finally:
        query.where_depth -= 1


def where_interval(e: Expr, ctx: Context) -> Interval:
    """Numeric bounds of a Where: the decided branch, else the union of the branches'
    bounds under their narrowed ranges."""
    c, a, b = e.args
    verdict = decide_in(c, ctx)
    if verdict is True:
        return interval(a, ctx)
    if verdict is False:
        return interval(b, ctx)
    contexts = _branches(e, ctx)
    if contexts is None:
        ia_, ib_ = interval(a, ctx), interval(b, ctx)
        return min(ia_[0], ib_[0]), max(ia_[1], ib_[1])
    ctx_a, ctx_b = contexts
    ctx.query.where_depth += 1
    try:
        got_a = None if ctx_a is None else interval(a, ctx_a)
        got_b = None if ctx_b is None else interval(b, ctx_b)
    finally:
        ctx.query.where_depth -= 1
    if got_a is None:
        return FULL if got_b is None else got_b
    if got_b is None:
        return got_a
    return min(got_a[0], got_b[0]), max(got_a[1], got_b[1])


def where_sym_bound(e: Expr, ctx: Context, side: Side) -> Expr | None:
    """A symbolic bound of a Where: the looser of its branches' bounds under their
    narrowed ranges (only a reachable branch counts)."""
    _, a, b = e.args
    contexts = _branches(e, ctx)
    if contexts is None:
        return numeric_bound(e, ctx, side.upper)
    ctx_a, ctx_b = contexts
    ctx.query.where_depth += 1
    try:
        ba = None if ctx_a is None else _branch_bound(a, ctx_a, side)
        bb = None if ctx_b is None else _branch_bound(b, ctx_b, side)
    finally:
        ctx.query.where_depth -= 1
    if ctx_a is None:
        return bb
    if ctx_b is None:
        return ba
    return pick_looser(ba, bb, ctx, side.upper)


def _branch_bound(x: Expr, ctx: Context, side: Side) -> Expr | None:
    return sym_bound(x, ctx, upper=side.upper, depth=side.depth, elim=side.elim)


INTERVAL_TABLE[Where] = where_interval
SYMBOLIC_TABLE[Where] = where_sym_bound
