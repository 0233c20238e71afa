"""The public bounds query: numeric where the ranges are numeric, symbolic in size
symbols where they are not."""

from __future__ import annotations

from indexalg.analysis.context import INF, NEG_INF, Context, context_for, finite
from indexalg.analysis.interval import interval
from indexalg.analysis.symbolic import mentions_dependent, sym_bound
from indexalg.errors import ExprTypeError
from indexalg.expr import Expr, Integer, ModularIndexing, integer
from indexalg.poly import BINARY_DIVISIONS
from indexalg.ranges import RangesLike, as_ranges

__all__ = ["bounds", "bounds_in"]


def bounds_in(e: Expr, ctx: Context) -> tuple[Expr | None, Expr | None]:
    """Inclusive (lo, hi) of ``e`` under ``ctx``: Integer nodes, symbolic expressions over
    size symbols, or None for an unbounded side."""
    lo, hi = interval(e, ctx)
    out_lo: Expr | None = None if lo == NEG_INF else integer(finite(lo))
    out_hi: Expr | None = None if hi == INF else integer(finite(hi))
    symbolic = mentions_dependent(e, ctx, ctx.eliminable)
    if out_lo is None or symbolic:
        out_lo = _prefer(out_lo, _symbolic(e, ctx, upper=False), ctx, upper=False)
    if out_hi is None or symbolic:
        out_hi = _prefer(out_hi, _symbolic(e, ctx, upper=True), ctx, upper=True)
    return out_lo, out_hi


def _prefer(num: Expr | None, sym: Expr | None, ctx: Context, *, upper: bool) -> Expr | None:
    """The symbolic bound unless the numeric one is provably at least as tight."""
    if sym is None:
        return num
    if num is None:
        return sym
    s_lo, s_hi = interval(sym, ctx)
    if upper:
        return num if num.payload <= s_lo else sym
    return num if num.payload >= s_hi else sym


def _symbolic(e: Expr, ctx: Context, *, upper: bool) -> Expr | None:
    b = sym_bound(e, ctx, upper=upper, elim=ctx.eliminable)
    if b is None or b is e:
        return None  # e bounding itself says nothing: that side is unbounded
    if not _defined_everywhere(b):
        # a bound must have a value wherever e has one; a symbolic divisor may be 0 at a
        # point where e (through a Where) never divides by it
        return None
    return b  # an Integer, or an expression over size (and unranged) symbols


def _defined_everywhere(b: Expr) -> bool:
    """Every division in ``b`` is by a non-zero literal (ModularIndexing: literal d, m)."""
    for n in b.walk():
        t = type(n)
        if t in BINARY_DIVISIONS:
            if type(n.args[1]) is not Integer:
                return False
        elif t is ModularIndexing:
            if type(n.args[1]) is not Integer or type(n.args[2]) is not Integer:
                return False
    return True


def bounds(e: Expr, ranges: RangesLike = None) -> tuple[Expr | None, Expr | None]:
    """Inclusive bounds ``(lo, hi)`` of an integer expression under ``ranges``.

    Numeric bounds come back as :class:`~indexalg.expr.Integer` nodes, symbolic ones as
    expressions over size symbols (with ``0 <= x < s0``, ``x + s0`` is in
    ``[s0, 2*s0 - 1]``), and an unbounded side as None.  An entry point: ``ranges``, in
    any accepted form, is normalised here once (:func:`~indexalg.ranges.as_ranges`) before
    the analyses see it.
    """
    if not isinstance(e, Expr) or e.is_bool:
        raise ExprTypeError(f"bounds() takes an integer expression, got {e!r}")
    return bounds_in(e, context_for(as_ranges(ranges)))
