"""The simplifier's entry points and its result memo.

Every simplification goes through :func:`run`, which alone consults the process-wide result
memo (:data:`RESULTS`): ``ia.simplify``, :meth:`indexalg.Analyzer.simplify`, the module
functions below and :func:`simplify_in` all reach it, and none looks the answer up itself.
The cache policy is decided here, once: the default rules and procedures under the default
step limit, on ranges that are not a Where's branch, are memoised by (ranges, expression);
anything else runs afresh (with a table of its own for custom rules).

Ranges arrive normalised (:func:`indexalg.ranges.as_ranges`, called once by the caller that
received them); the analyses see only the :class:`~indexalg.ranges.Ranges` value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Literal, overload

from indexalg.analysis.context import Context, context_for, owner
from indexalg.analysis.refine import require_points
from indexalg.errors import ExprTypeError
from indexalg.expr import Expr
from indexalg.memo import GroupedMemo
from indexalg.parse import parse
from indexalg.procedures import PROCEDURES, Procedure
from indexalg.ranges import Ranges, RangesLike, as_ranges
from indexalg.rewrite import RuleIndex
from indexalg.simplify.driver import DEFAULT_STEP_LIMIT, Simplifier, SimplifyResult, default_index

if TYPE_CHECKING:
    from indexalg.rules.base import Rule, RuleSet

__all__ = ["RESULTS", "MAX_RESULTS", "run", "simplify_in", "simplify", "simplify_result"]

#: The most (expression, ranges) results :data:`RESULTS` holds; when full, the tables of
#: the oldest ranges are dropped until a quarter is free.
MAX_RESULTS = 1 << 16

#: (ranges, expression) -> the expression simplified by the default rules and procedures
#: under those ranges (assumptions are part of the ranges: :meth:`Analyzer.assume` narrows
#: them).  Unlike a context's own table it survives the eviction of the context, so a
#: repeated call costs two lookups.
RESULTS: GroupedMemo[Ranges, Expr, Expr] = GroupedMemo("simplify.results", MAX_RESULTS)
#: node -> its simplified form under a context's ranges (default rules and procedures): the
#: context's table for the simplifier, which a Where's branches have too
SIMPLIFIED = owner("simplify")


def run(
    x: Expr,
    ranges: Ranges,
    ctx: Context | None,
    *,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    record: bool = False,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> tuple[Expr, SimplifyResult | None]:
    """Simplify ``x`` under ``ranges``: the one place the result memo is read and written.
    With ``ctx`` None the shared context of ``ranges`` is taken and ``x`` checked to have
    points in it (on a memo miss only: a hit was checked when it was computed); a given
    ``ctx`` (its ranges are ``ranges``) is used as it is.  The run's record comes second
    (always with ``record``); None when the memo answered."""
    default = rules is None and procedures is None and not record
    memo = (
        default
        and step_limit == DEFAULT_STEP_LIMIT
        and (ctx is None or (ctx.parent is None and not ctx.query.where_depth))
    )
    if memo:
        inner = RESULTS.groups.get(ranges)  # RESULTS.get, inlined: the warm path's cost
        hit = None if inner is None else inner.get(x)
        if hit is not None:
            return hit, None
    if ctx is None:
        ctx = context_for(ranges)
        require_points(x, ctx)
    if default:
        cache: dict[Expr, Expr] = ctx.memos[SIMPLIFIED]
        index = default_index()
    else:
        cache = {}
        index = default_index() if rules is None else RuleIndex(tuple(rules))
    procs = PROCEDURES if procedures is None else tuple(procedures)
    s = Simplifier(
        ctx,
        index,
        procs,
        cache,
        record=record,
        step_limit=step_limit,
        scale_with=x if step_limit == DEFAULT_STEP_LIMIT else None,
    )
    out = s.visit(x)
    if memo:
        RESULTS.put(ranges, x, out)
    s.result.expr = out
    s.result.steps = s.steps
    return out, s.result


def simplify_in(
    e: Expr,
    ctx: Context,
    *,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    record: bool = False,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> tuple[Expr, SimplifyResult]:
    """Simplify under an existing context, as it is (no check of its points)."""
    out, result = run(
        e,
        ctx.ranges,
        ctx,
        rules=rules,
        procedures=procedures,
        record=record,
        step_limit=step_limit,
    )
    return out, SimplifyResult(expr=out) if result is None else result


def recorded(result: SimplifyResult | None) -> SimplifyResult:
    """The record of a run made with ``record=True`` (the memo never answers those)."""
    assert result is not None
    return result


def expression(e: object) -> Expr:
    """``e`` as an expression: parsed when it is text; anything else is refused."""
    if type(e) is str:
        return parse(e)
    if not isinstance(e, Expr):
        raise ExprTypeError(f"simplify() takes an expression, got {type(e).__name__}")
    return e


def simplify_result(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> SimplifyResult:
    """:func:`simplify` with its record: the result's ``.expr``, the hit and attempt counts
    per rule and procedure, and the trace of rewrites in order."""
    x = expression(e)
    return recorded(
        run(
            x,
            as_ranges(ranges),
            None,
            rules=rules,
            procedures=procedures,
            record=True,
            step_limit=step_limit,
        )[1]
    )


@overload
def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: Literal[False] = False,
    explain: Literal[False] = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr: ...


@overload
def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: bool = False,
    explain: bool = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr | SimplifyResult: ...


def simplify(
    e: Expr | str,
    ranges: RangesLike = None,
    *,
    stats: bool = False,
    explain: bool = False,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> Expr | SimplifyResult:
    """The simplest form of ``e`` found, equal to ``e`` at every in-range point where ``e``
    is defined.

    ``ranges`` in any form :func:`indexalg.ranges.as_ranges` reads (docs/quickstart.md:
    ``{"x": 4096, "y": (0, 63), "z": "s0", "s0": (1, None)}``); what "equal" means is
    docs/semantics.md.  ``rules`` replaces the default rule set (``indexalg.rules.ALL``);
    ``procedures`` the named procedures.  :func:`simplify_result` returns the statistics and
    the trace too; ``stats=True`` / ``explain=True`` are the older spelling of that call
    (kept for compatibility) and return its :class:`SimplifyResult`.
    """
    if stats or explain:
        return simplify_result(e, ranges, rules=rules, procedures=procedures, step_limit=step_limit)
    x = expression(e)
    return run(
        x, as_ranges(ranges), None, rules=rules, procedures=procedures, step_limit=step_limit
    )[0]
