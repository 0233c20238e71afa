"""The fixpoint driver: one :class:`Simplifier` run rewrites an expression bottom-up.

Children first, then at each node the table rules indexed by its class, then the named
procedures for its class, then folding by range (a node whose interval is one point is that
constant; a claim the analysis decides is True or False).  A rewritten node is simplified
again until nothing fires.  A node whose operands changed is rebuilt by
:func:`indexalg.simplify.rebuild.rebuild_product`.  The run's table (``cache``) maps every
node visited to its simplified form, so repeated subexpressions cost one lookup; the entry
points (:mod:`indexalg.simplify.entry`) give it the context's table for the default rules.

A step limit turns a runaway rule set into :class:`~indexalg.errors.RewriteLimitError`.  The
default one grows with the input (:func:`indexalg.limits.step_limit_for`: a base plus an
allowance per node, worked out only once the base is passed); an explicit ``step_limit``
other than :data:`DEFAULT_STEP_LIMIT` is a fixed limit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from indexalg.analysis.context import Context, Num, finite
from indexalg.analysis.interval import interval
from indexalg.errors import ExprTypeError, InvalidOperationError, RewriteLimitError
from indexalg.expr import Expr, Integer, Symbol, Wild, integer
from indexalg.limits import STEP_LIMIT_BASE, step_limit_for
from indexalg.memo import Memo
from indexalg.procedures import PROCEDURES, Procedure
from indexalg.rewrite import (
    COMMUTATIVE_OPS,
    RuleIndex,
    condition_holds,
    instantiate,
    match,
    match_all,
)
from indexalg.rules import ALL
from indexalg.simplify.rebuild import rebuild_product

__all__ = ["Simplifier", "SimplifyResult", "DEFAULT_STEP_LIMIT", "default_index", "by_class"]

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
        self.procs = by_class(tuple(procedures))
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
        """Record ``out`` as the simplified form of ``node`` (see :func:`rebuild_product`)."""
        self.cache[node] = out

    def _atom(self, e: Expr) -> Expr:
        if type(e) is Wild:
            raise ExprTypeError("simplify() takes expressions, not patterns with wildcards")
        if type(e) is Symbol:
            lo, hi = interval(e, self.ctx)
            if _one_point(lo, hi):
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
            if _one_point(lo, hi):
                return self._fired("fold_by_range", node, integer(finite(lo)))
        return None


def _one_point(lo: Num, hi: Num) -> bool:
    """``lo == hi`` for the ends of an interval; an int end compares without Infinity's
    ``__eq__`` (an int never equals an infinite bound)."""
    if type(lo) is int:
        return type(hi) is int and lo == hi
    return lo == hi


_DEFAULT_PROCS: list[dict[type[Expr], tuple[Procedure, ...]]] = []
#: procedures tuple -> its procedures grouped by node class (a caller's own tuples)
_PROCS_BY_CLASS: Memo[tuple[Procedure, ...], dict[type[Expr], tuple[Procedure, ...]]] = Memo(
    "simplify.procedures_by_class", 64
)


def by_class(procedures: tuple[Procedure, ...]) -> dict[type[Expr], tuple[Procedure, ...]]:
    """Procedures grouped by the node classes they apply to (memoised per tuple)."""
    if procedures is PROCEDURES and _DEFAULT_PROCS:
        return _DEFAULT_PROCS[0]
    hit = _PROCS_BY_CLASS.get(procedures)
    if hit is not None:
        return hit
    grouped: dict[type[Expr], list[Procedure]] = {}
    for p in procedures:
        for cls in p.applies_to:
            grouped.setdefault(cls, []).append(p)
    out = {k: tuple(v) for k, v in grouped.items()}
    if procedures is PROCEDURES:
        _DEFAULT_PROCS.append(out)
    _PROCS_BY_CLASS.put(procedures, out)
    return out


_DEFAULT_INDEX: list[RuleIndex] = []


def default_index() -> RuleIndex:
    """The rule index of the default rule set (built on first use)."""
    if not _DEFAULT_INDEX:
        _DEFAULT_INDEX.append(RuleIndex(ALL))
    return _DEFAULT_INDEX[0]
