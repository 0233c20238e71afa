"""The Analyzer facade: bindings and assumptions over the analyses, the simplifier and the
prover (TVM's ``arith.Analyzer``).  The module-level ``ia.simplify`` / ``ia.bounds`` /
``ia.prove`` are thin wrappers over a fresh one.

    >>> import indexalg as ia
    >>> an = ia.Analyzer({"x": 4096})
    >>> an.simplify("x // 64 % 64 * 64 + x % 64")
    ia.parse('x')
    >>> with an.assume("x < 64"):
    ...     an.simplify("x // 64")
    ia.parse('0')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from indexalg.analysis.bounds import bounds_in
from indexalg.analysis.context import Context, context_for
from indexalg.analysis.refine import refine, require_points
from indexalg.errors import ExprTypeError, RangeError
from indexalg.expr import And, Expr, Integer, Not, Or, Symbol, true
from indexalg.limits import DEFAULT_RLIMIT
from indexalg.memo import Memo
from indexalg.parse import parse
from indexalg.procedures import Procedure
from indexalg.prove import TIERS, Proof, exact_bounds, prove
from indexalg.ranges import Ranges, RangesLike, RangeSpec, as_ranges
from indexalg.rules.base import Rule, RuleSet
from indexalg.simplify.driver import DEFAULT_STEP_LIMIT, SimplifyResult
from indexalg.simplify.entry import recorded, run

__all__ = ["Analyzer", "MAX_BOUNDS"]

#: The most (expression, ranges) answers of :meth:`Analyzer.bounds` remembered;
#: assumptions narrow the ranges, so they are part of the key.
MAX_BOUNDS = 1 << 14
_BOUNDS: Memo[tuple[Expr, Ranges], tuple[Expr | None, Expr | None]] = Memo(
    "analyzer.bounds", MAX_BOUNDS
)


def _expr(e: Expr | str) -> Expr:
    if isinstance(e, str):
        return parse(e)
    if not isinstance(e, Expr):
        raise ExprTypeError(f"expected an expression or its text, got {type(e).__name__}")
    return e


class Analyzer:
    """Ranges and assumptions, with bounds / simplify / prove under them.

    ``bind`` sets a symbol's range; ``assume`` narrows ranges for a ``with`` block (claims
    comparing a symbol with an expression narrow its range; every assumption is also handed
    to the prover's Z3 tier); ``copy`` forks the state.
    """

    __slots__ = ("_ranges", "_assumptions", "_ctx")

    def __init__(self, ranges: RangesLike = None) -> None:
        self._ranges: Ranges = as_ranges(ranges)  # the one normalisation of the spec
        self._ctx: Context | None = None  # the shared context, taken on first use
        self._assumptions: tuple[Expr, ...] = ()

    def _context(self) -> Context:
        ctx = self._ctx
        if ctx is None:
            ctx = self._ctx = context_for(self._ranges)
        return ctx

    @property
    def ranges(self) -> Ranges:
        return self._ranges

    @property
    def assumptions(self) -> tuple[Expr, ...]:
        return self._assumptions

    def bind(self, symbol: Expr | str, spec: RangeSpec) -> None:
        """Give ``symbol`` the range ``spec`` (any form :func:`as_ranges` accepts)."""
        name = symbol.payload if isinstance(symbol, Expr) and type(symbol) is Symbol else symbol
        if not isinstance(name, str):
            raise RangeError(f"bind() takes a symbol or its name, got {symbol!r}")
        one = as_ranges({name: spec})
        (sym,) = one
        lo, hi = one[sym]
        self._set(self._ranges.with_bounds(sym, lo, hi))

    def _set(self, ranges: Ranges) -> None:
        self._ranges = ranges
        self._ctx = None

    @contextmanager
    def assume(self, claim: Expr | str) -> Iterator[Analyzer]:
        """Within the block, ``claim`` holds."""
        c = _expr(claim)
        if not c.is_bool:
            raise ExprTypeError(f"assume() takes a claim, got {c}")
        saved = (self._ranges, self._assumptions, self._ctx)
        narrowed = refine(self._context(), c, True)
        if narrowed is None:
            raise RangeError(f"the assumption {c} contradicts the ranges")
        self._ranges = narrowed.ranges
        self._ctx = None
        self._assumptions = (*self._assumptions, c)
        try:
            yield self
        finally:
            self._ranges, self._assumptions, self._ctx = saved

    def copy(self) -> Analyzer:
        other = Analyzer(self._ranges)
        other._assumptions = self._assumptions
        return other

    # --- queries -----------------------------------------------------------------------

    def bounds(self, e: Expr | str, *, exact: bool = False) -> tuple[Any, Any]:
        """Inclusive (lo, hi): ints, symbolic Exprs, or None for an unbounded side.
        ``exact=True`` asks Z3's optimiser for the tightest numeric bounds."""
        x = _expr(e)
        if x.is_bool:
            raise ExprTypeError(f"bounds() takes an integer expression, got {x}")
        if exact:
            self._query(x)
            lo, hi = exact_bounds(x, self._ranges)
            return _public(lo), _public(hi)
        key = (x, self._ranges)
        hit = _BOUNDS.get(key)
        if hit is None:
            self._query(x)
            hit = bounds_in(x, self._context())
            _BOUNDS.put(key, hit)
        return _public(hit[0]), _public(hit[1])

    def simplify(
        self,
        e: Expr | str,
        *,
        rules: RuleSet | Iterable[Rule] | None = None,
        procedures: Iterable[Procedure] | None = None,
        step_limit: int = DEFAULT_STEP_LIMIT,
        stats: bool = False,
        explain: bool = False,
    ) -> Any:
        """The simplest form found of ``e``, equal to it at every point of the ranges
        (an :class:`Expr`; ``stats``/``explain`` give :meth:`simplify_result`'s record)."""
        if stats or explain:
            return self.simplify_result(
                e, rules=rules, procedures=procedures, step_limit=step_limit
            )
        x = _expr(e)
        # the shared context of the ranges, checked on a memo miss (entry.run)
        return run(
            x, self._ranges, None, rules=rules, procedures=procedures, step_limit=step_limit
        )[0]

    def simplify_result(
        self,
        e: Expr | str,
        *,
        rules: RuleSet | Iterable[Rule] | None = None,
        procedures: Iterable[Procedure] | None = None,
        step_limit: int = DEFAULT_STEP_LIMIT,
    ) -> SimplifyResult:
        """:meth:`simplify` with its record: ``.expr``, hits and attempts per rule and
        procedure, and the trace of rewrites in order."""
        x = _expr(e)
        return recorded(
            run(
                x,
                self._ranges,
                None,
                rules=rules,
                procedures=procedures,
                record=True,
                step_limit=step_limit,
            )[1]
        )

    def prove(
        self, claim: Expr | str, *, rlimit: int = DEFAULT_RLIMIT, tiers: Iterable[str] = TIERS
    ) -> Proof:
        """Decide ``claim`` at every point of the ranges, with the assumptions as
        hypotheses (see :func:`indexalg.prove`)."""
        c = _expr(claim)
        if self._assumptions:
            # (assumptions -> claim), decided over the narrowed ranges
            hyp = true
            for a in self._assumptions:
                hyp = And.make(hyp, a)
            c = Or.make(Not.make(hyp), c)
        return prove(c, self._ranges, rlimit=rlimit, tiers=tiers)

    def _query(self, e: Expr | str) -> Expr:
        """``e`` read and checked for a query: caches trimmed between queries, and the
        ranges shown to admit points of ``e``."""
        x = _expr(e)
        self._check(x)
        return x

    def _check(self, x: Expr) -> None:
        ctx = self._context()
        ctx.trim()
        require_points(x, ctx)


def _public(b: Expr | None) -> Any:
    if b is None:
        return None
    if type(b) is Integer:
        return b.payload
    return b
