"""The fixpoint driver: ``simplify(e, ranges)`` never changes a value on the ranges.

Bottom-up: children first, then at each node the table rules indexed by its class, then
the named procedures for its class, then folding by range (a node whose interval is one
point is that constant; a claim the analysis decides is True or False).  A rewritten node
is simplified again until nothing fires.  Results are memoised per context, so repeated
subexpressions (and repeated calls under the same ranges) cost one dictionary lookup.

A step limit turns a runaway rule set into :class:`~indexalg.errors.RewriteLimitError`.  The
default one grows with the input (:func:`indexalg.limits.step_limit_for`: a base plus an
allowance per node, worked out only once the base is passed); an explicit ``step_limit``
other than :data:`DEFAULT_STEP_LIMIT` is a fixed limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, overload

from indexalg.analysis.context import Context, context_for, finite, normalised_ranges
from indexalg.analysis.interval import interval
from indexalg.analysis.refine import require_points
from indexalg.errors import ExprTypeError, InvalidOperationError, RewriteLimitError
from indexalg.expr import Expr, Integer, Symbol, Wild, integer
from indexalg.limits import STEP_LIMIT_BASE, step_limit_for
from indexalg.parse import parse
from indexalg.procedures import PROCEDURES, Procedure, rebuild_product
from indexalg.ranges import Ranges, RangesLike
from indexalg.rewrite import (
    COMMUTATIVE_OPS,
    RuleIndex,
    condition_holds,
    instantiate,
    match,
    match_all,
)
from indexalg.rules import ALL

if TYPE_CHECKING:
    from indexalg.rules.base import Rule, RuleSet

__all__ = [
    "simplify",
    "simplify_result",
    "simplify_in",
    "SimplifyResult",
    "Simplifier",
    "DEFAULT_STEP_LIMIT",
    "MAX_RESULTS",
    "cached_simplify",
    "clear_results",
]

#: The default ``step_limit``: it stands for the limit that grows with the input
#: (:func:`indexalg.limits.step_limit_for`), of which it is the base.
DEFAULT_STEP_LIMIT = STEP_LIMIT_BASE
#: How many rewrites at one node may be in progress at once, each rewriting the result of the
#: one before (a result is visited again while its rewrite is on the stack): past this, a rule
#: chain is taken to recurse without end.  Not :data:`indexalg.expr.MAX_DEPTH`, the nesting
#: of an expression.
_MAX_NESTED_REWRITES = 200


@dataclass
class SimplifyResult:
    """What :func:`simplify_result` returns (and ``simplify(..., stats=True)``)."""

    expr: Expr
    #: rule or procedure name -> number of times it fired
    stats: dict[str, int] = field(default_factory=dict)
    #: rule or procedure name -> number of times it was tried
    attempts: dict[str, int] = field(default_factory=dict)
    #: (name, before, after) for each rewrite, in order
    trace: list[tuple[str, Expr, Expr]] = field(default_factory=list)
    steps: int = 0


class Simplifier:
    """One simplification run: a rule index, procedures, a context and bookkeeping."""

    __slots__ = (
        "ctx",
        "index",
        "procs",
        "cache",
        "record",
        "result",
        "steps",
        "limit",
        "depth",
        "scale_with",
    )

    def __init__(
        self,
        ctx: Context,
        index: RuleIndex,
        procedures: Iterable[Procedure],
        cache: dict[Expr, Expr],
        *,
        record: bool = False,
        step_limit: int = DEFAULT_STEP_LIMIT,
        scale_with: Expr | None = None,
    ) -> None:
        self.ctx = ctx
        self.index = index
        self.procs = _by_class(tuple(procedures))
        self.cache = cache
        self.record = record
        self.result = SimplifyResult(expr=integer(0))
        self.steps = 0
        self.limit = step_limit
        self.depth = 0
        #: the input whose size raises the limit once it is passed (None: a fixed limit)
        self.scale_with = scale_with

    # --- driver ------------------------------------------------------------------------

    def visit(self, e: Expr) -> Expr:
        hit = self.cache.get(e)
        if hit is not None:
            return hit
        if not e.args:
            out = self._atom(e)
        else:
            args = e.args
            new = tuple([self.visit(a) for a in args])
            node = e
            for a, b in zip(args, new):
                if a is not b:
                    try:
                        node = rebuild_product(self, e, new)
                    except InvalidOperationError:
                        # a pinned range folds a divisor to 0 (or a ModularIndexing divisor
                        # below 1): e has no value anywhere in range; keep it as written
                        self.cache[e] = e
                        return e
                    break
            out = self._at_node(node) if node is e else self.visit_new(node)
        self.cache[e] = out
        return out

    def visit_new(self, node: Expr) -> Expr:
        """A node built by a rewrite: its children are simplified but it may not be."""
        hit = self.cache.get(node)
        if hit is not None:
            return hit
        if not node.args:
            out = self._atom(node)
        else:
            out = self._at_node(node)
        self.cache[node] = out
        return out

    def remember(self, node: Expr, out: Expr) -> None:
        """Record ``out`` as the simplified form of ``node`` (see ``rebuild_product``)."""
        self.cache[node] = out

    def _atom(self, e: Expr) -> Expr:
        if type(e) is Wild:
            raise ExprTypeError("simplify() takes expressions, not patterns with wildcards")
        if type(e) is Symbol:
            lo, hi = interval(e, self.ctx)
            if lo == hi:
                return self._fired("fold_by_range", e, integer(finite(lo)))
        return e

    def _at_node(self, node: Expr) -> Expr:
        new = self._rewrite_once(node)
        if new is None:
            return node
        self.depth += 1
        if self.depth > _MAX_NESTED_REWRITES:
            raise RewriteLimitError(f"rewriting nests deeper than {_MAX_NESTED_REWRITES} at {node}")
        try:
            return self.visit(new)
        finally:
            self.depth -= 1

    def _fired(self, name: str, before: Expr, after: Expr) -> Expr:
        self.steps += 1
        if self.steps > self.limit:
            self._past_limit(name, before)
        if self.record:
            r = self.result
            r.stats[name] = r.stats.get(name, 0) + 1
            r.trace.append((name, before, after))
        return after

    def _past_limit(self, name: str, before: Expr) -> None:
        """The step limit is passed: raise, unless it is the default limit's base, which
        then becomes the limit for the input's size (counted now, not on every call)."""
        root = self.scale_with
        size = ""
        if root is not None:
            self.scale_with = None
            nodes = sum(1 for _ in root.walk())
            self.limit = max(self.limit, step_limit_for(nodes))
            if self.steps <= self.limit:
                return
            size = f" for an input of {nodes} nodes"
        raise RewriteLimitError(
            f"more than {self.limit} rewrite steps{size} (last: {name} on {before}); "
            "the rule set may not terminate (step_limit=N, or --step-limit N on the command line, "
            "sets another limit)"
        )

    def _tried(self, name: str) -> None:
        a = self.result.attempts
        a[name] = a.get(name, 0) + 1

    def _rewrite_once(self, node: Expr) -> Expr | None:
        cls = type(node)
        record = self.record
        for rule in self.index.candidates(node):
            if record:
                self._tried(rule.name)
            lhs = rule.lhs
            if type(lhs) in COMMUTATIVE_OPS:
                bindings: Iterable[dict[Expr, Expr]] = match_all(lhs, node)
            else:
                b0: dict[Expr, Expr] = {}
                if not match(lhs, node, b0):
                    continue
                bindings = (b0,)
            for b in bindings:
                if rule.when.args and not condition_holds(rule.when, b, self.ctx):
                    continue
                try:
                    out = instantiate(rule.rhs, b)
                except InvalidOperationError:
                    continue
                if out is node:
                    continue
                return self._fired(rule.name, node, out)
        for proc in self.procs.get(cls, ()):
            if record:
                self._tried(proc.name)
            out2 = proc.fn(node, self.ctx)
            if out2 is not None and out2 is not node:
                return self._fired(proc.name, node, out2)
        if not node.is_bool and cls is not Integer:
            lo, hi = interval(node, self.ctx)
            if lo == hi:
                return self._fired("fold_by_range", node, integer(finite(lo)))
        return None


_DEFAULT_PROCS: list[dict[type[Expr], tuple[Procedure, ...]]] = []
_PROCS_BY_CLASS: dict[tuple[Procedure, ...], dict[type[Expr], tuple[Procedure, ...]]] = {}


def _by_class(procedures: tuple[Procedure, ...]) -> dict[type[Expr], tuple[Procedure, ...]]:
    """Procedures grouped by the node classes they apply to (memoised per tuple)."""
    if procedures is PROCEDURES and _DEFAULT_PROCS:
        return _DEFAULT_PROCS[0]
    hit = _PROCS_BY_CLASS.get(procedures)
    if hit is not None:
        return hit
    by_class: dict[type[Expr], list[Procedure]] = {}
    for p in procedures:
        for cls in p.applies_to:
            by_class.setdefault(cls, []).append(p)
    out = {k: tuple(v) for k, v in by_class.items()}
    if procedures is PROCEDURES:
        _DEFAULT_PROCS.append(out)
    if len(_PROCS_BY_CLASS) < 64:
        _PROCS_BY_CLASS[procedures] = out
    return out


_DEFAULT_INDEX: RuleIndex | None = None


def _default_index() -> RuleIndex:
    global _DEFAULT_INDEX
    if _DEFAULT_INDEX is None:
        _DEFAULT_INDEX = RuleIndex(ALL)
    return _DEFAULT_INDEX


# --- the process-wide result memo --------------------------------------------------------

#: The most (expression, ranges) results :data:`_RESULTS` holds; when full, the tables of
#: the oldest ranges are dropped until a quarter is free.
MAX_RESULTS = 1 << 16


class _ResultMemo:
    """(expression, ranges) -> the expression simplified by the default rules and
    procedures under those ranges (assumptions are part of the ranges:
    :meth:`Analyzer.assume` narrows them).  Unlike a context's ``simp_cache`` it survives
    the eviction of the context, so a repeated call costs two lookups.  Stored as ranges
    -> {expression: result}: no key tuple per entry, so the cyclic garbage collector has
    fewer objects to scan (a full collection in a cold pass costs more than the memo)."""

    __slots__ = ("by_ranges", "size")

    def __init__(self) -> None:
        self.by_ranges: dict[Ranges, dict[Expr, Expr]] = {}
        self.size = 0

    def get(self, x: Expr, r: Ranges) -> Expr | None:
        inner = self.by_ranges.get(r)
        return None if inner is None else inner.get(x)

    def put(self, x: Expr, r: Ranges, out: Expr) -> None:
        inner = self.by_ranges.get(r)
        if inner is None:
            inner = self.by_ranges[r] = {}
        if x not in inner:
            self.size += 1
        inner[x] = out
        if self.size > MAX_RESULTS:
            self._trim(r, x, out)

    def _trim(self, r: Ranges, x: Expr, out: Expr) -> None:
        """Drop the tables of the oldest other ranges until a quarter is free; then, if
        need be, all of ``r``'s but the entry just made."""
        keep = MAX_RESULTS - MAX_RESULTS // 4
        for old in list(self.by_ranges):  # oldest ranges first
            if self.size <= keep:
                return
            if old is not r:
                dropped = self.by_ranges.pop(old, None)
                self.size -= 0 if dropped is None else len(dropped)
        if self.size > keep:
            self.by_ranges[r] = {x: out}
            self.size = sum(len(t) for t in self.by_ranges.values())

    def clear(self) -> None:
        self.by_ranges.clear()
        self.size = 0

    def __len__(self) -> int:
        return self.size

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        inner = self.by_ranges.get(key[1])
        return inner is not None and key[0] in inner


_RESULTS = _ResultMemo()


def clear_results() -> None:
    """Forget every memoised simplification result."""
    _RESULTS.clear()


def cached_simplify(e: object, ranges: RangesLike) -> Expr | None:
    """The memoised result of the default simplification of ``e`` under ``ranges``, or
    None when there is none (the caller then simplifies).  Ranges are normalised first, so
    invalid ranges raise as the full call would.  ``e`` is whatever the caller was given
    (typed ``object``: in the compiled build a narrower type would be checked on entry, and a
    wrong value would raise ``TypeError`` here instead of the caller's own error)."""
    r = ranges if type(ranges) is Ranges else normalised_ranges(ranges)
    x = parse(e) if type(e) is str else e
    if not isinstance(x, Expr):
        return None
    return _RESULTS.get(x, r)


def simplify_in(
    e: Expr,
    ctx: Context,
    *,
    rules: RuleSet | Iterable[Rule] | None = None,
    procedures: Iterable[Procedure] | None = None,
    record: bool = False,
    step_limit: int = DEFAULT_STEP_LIMIT,
) -> tuple[Expr, SimplifyResult]:
    """Simplify under an existing context (the Analyzer's entry point).  The default
    simplification of a top-level context is memoised process-wide (:data:`_RESULTS`)."""
    default = rules is None and procedures is None and not record
    memo = (
        default
        and step_limit == DEFAULT_STEP_LIMIT
        and ctx.parent is None
        and not ctx.query.where_depth
    )
    if memo:
        hit = _RESULTS.get(e, ctx.ranges)
        if hit is not None:
            return hit, SimplifyResult(expr=hit)
    if default:
        cache = ctx.simp_cache
        index = _default_index()
    else:
        cache = {}
        index = _default_index() if rules is None else RuleIndex(tuple(rules))
    procs = PROCEDURES if procedures is None else tuple(procedures)
    scale_with = e if step_limit == DEFAULT_STEP_LIMIT else None
    s = Simplifier(
        ctx, index, procs, cache, record=record, step_limit=step_limit, scale_with=scale_with
    )
    out = s.visit(e)
    if memo:
        _RESULTS.put(e, ctx.ranges, out)
    s.result.expr = out
    s.result.steps = s.steps
    return out, s.result


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
    x, ctx = _prepared(e, ranges)
    return simplify_in(
        x, ctx, rules=rules, procedures=procedures, record=True, step_limit=step_limit
    )[1]


def _prepared(e: Expr | str, ranges: RangesLike) -> tuple[Expr, Context]:
    if isinstance(e, str):
        e = parse(e)
    if not isinstance(e, Expr):
        raise ExprTypeError(f"simplify() takes an expression, got {type(e).__name__}")
    ctx = context_for(ranges)
    require_points(e, ctx)
    return e, ctx


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

    ``ranges`` as in DESIGN.md (``{"x": 4096, "y": (0, 63), "z": "s0", "s0": (1, None)}``).
    ``rules`` replaces the default rule set (``indexalg.rules.ALL``); ``procedures`` the
    named procedures.  :func:`simplify_result` returns the statistics and the trace too;
    ``stats=True`` / ``explain=True`` are the older spelling of that call (DESIGN.md's
    contract keeps them) and return its :class:`SimplifyResult`.
    """
    if stats or explain:
        return simplify_result(e, ranges, rules=rules, procedures=procedures, step_limit=step_limit)
    x, ctx = _prepared(e, ranges)
    return simplify_in(x, ctx, rules=rules, procedures=procedures, step_limit=step_limit)[0]
