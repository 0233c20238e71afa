"""The analysis context: ranges plus the caches that depend on them.

A :class:`Context` is built once per distinct :class:`~indexalg.ranges.Ranges` (and reused:
:func:`context_for` keeps a small LRU of them), so repeated simplifications under the same
ranges share their interval cache.  Facts that do not depend on ranges (congruence) are
cached on the interned node itself.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator

from indexalg.analysis.infinity import INF, NEG_INF, Infinity, Num, finite
from indexalg.expr import Add, Expr, Integer, Symbol, mul
from indexalg.ranges import Ranges, RangesLike, as_ranges

__all__ = [
    "Context",
    "QueryState",
    "context_for",
    "clear_contexts",
    "normalised_ranges",
    "MAX_CACHE_ENTRIES",
    "Infinity",
    "Num",
    "INF",
    "NEG_INF",
    "finite",
]


_MAX_DOMAINS = 4096


class QueryState:
    """What one query in progress shares between a context and the contexts narrowed from
    it (a Where's branches): how deep Where refinement is nested, and whether an emptiness
    check is running.  Both end recursions that would otherwise not end."""

    __slots__ = ("where_depth", "checking_emptiness")

    #: Where refinement nested deeper than this bounds the branches without refining
    MAX_WHERE_DEPTH = 2

    def __init__(self) -> None:
        self.where_depth = 0
        self.checking_emptiness = False


class Context:
    """Ranges with their derived facts and memo tables: the one object every analysis
    handler receives.  It owns the caches (bounded: :meth:`trim`) and the re-entrancy
    state of the query in progress (:class:`QueryState`)."""

    __slots__ = (
        "ranges",
        "num_cache",
        "simp_cache",
        "decided",
        "sym_cache",
        "size_symbols",
        "dependent",
        "eliminable",
        "query",
        "facts",
        "sum_facts",
        "bounded_cache",
        "sym_num",
        "busy",
        "_domains",
        "_empty",
        "parent",
    )

    def __init__(self, ranges: Ranges, query: QueryState | None = None) -> None:
        self.ranges = ranges
        #: node -> (lo, hi) numeric interval under these ranges
        self.num_cache: dict[Expr, tuple[Num, Num]] = {}
        #: node -> simplified node under these ranges (default rule set only)
        self.simp_cache: dict[Expr, Expr] = {}
        #: (claim, wanted truth value) -> whether the analyses prove it has that value
        #: (:func:`indexalg.analysis.decide.holds_in`)
        self.decided: dict[tuple[Expr, bool], bool] = {}
        #: (node, side, Where depth, emptiness check running) -> its symbolic bound
        #: (:func:`indexalg.analysis.symbolic.sym_bound`)
        self.sym_cache: dict[tuple[Expr, object, int, bool], Expr | None] = {}
        referenced: set[Expr] = set()
        dependent: set[Expr] = set()
        for sym, (lo, hi) in ranges.items():
            for b in (lo, hi):
                if b is None or (not b.args and type(b) is not Symbol):
                    continue
                syms = b.symbol_set
                if syms:
                    dependent.add(sym)
                    referenced.update(syms)
        #: symbols other ranges are expressed in (sizes): kept in symbolic bounds
        self.size_symbols: frozenset[Expr] = frozenset(referenced)
        #: symbols whose range refers to other symbols: eliminated in symbolic bounds
        self.dependent: frozenset[Expr] = frozenset(dependent)
        #: symbols public bounds are not expressed in: every ranged symbol except sizes
        self.eliminable: frozenset[Expr] = frozenset(s for s in ranges if s not in referenced)
        #: the re-entrancy state, shared with the contexts narrowed from this one
        self.query: QueryState = QueryState() if query is None else query
        #: expression -> inclusive (lo, hi) assumed at every point (ranges keyed by an
        #: expression); empty for plain ranges
        self.facts: dict[Expr, tuple[Expr | None, Expr | None]] = ranges.facts
        #: the facts about sums, for sums that hold the fact's terms (or their negations)
        #: among their own: (fact, its terms, its terms negated)
        self.sum_facts: tuple[tuple[Expr, frozenset[Expr], frozenset[Expr]], ...] = tuple(
            (f, frozenset(f.args), frozenset(mul(-1, t) for t in f.args))
            for f in ranges.facts
            if type(f) is Add and f.args
        )
        #: memo of :func:`indexalg.analysis.interval.bounded_symbols`
        self.bounded_cache: frozenset[Expr] | None = None
        #: memo of :func:`indexalg.analysis.interval.symbol_interval`, and the symbols
        #: whose numeric bounds are being computed (a cycle through narrowed ranges)
        self.sym_num: dict[Expr, tuple[Num, Num]] = {}
        self.busy: set[Expr] = set()
        self._domains: dict[Expr, frozenset[Expr]] = {}
        self._empty: frozenset[Expr] | None = None
        #: the context this one was narrowed from (a Where's branch), else None
        self.parent: Context | None = None

    def sum_facts_in(self, e: Expr) -> Iterator[tuple[Expr, int]]:
        """The assumed sums ``f`` among the terms of the sum ``e``: ``(f, 1)`` when
        ``e == f + rest``, ``(f, -1)`` when ``e == -f + rest``."""
        if type(e) is not Add or not self.sum_facts:
            return
        terms = frozenset(e.args)
        for f, pos, neg in self.sum_facts:
            if f is e:
                continue
            if pos <= terms:
                yield f, 1
            elif neg <= terms:
                yield f, -1

    def narrow(self, ranges: Ranges) -> Context:
        """A context for narrowed ranges within the same query (a Where's branch)."""
        child = Context(ranges, self.query)
        child.parent = self
        return child

    def domain_of(self, e: Expr) -> frozenset[Expr]:
        """The symbols a point of ``e`` assigns: those of ``e`` and, transitively, of the
        range bounds they depend on.  Only their ranges constrain ``e``'s points: a ranged
        symbol ``e`` does not reach says nothing about ``e``."""
        hit = self._domains.get(e)
        if hit is not None:
            return hit
        out = self.ranges.closure(e.symbol_set)
        if len(self._domains) < _MAX_DOMAINS:
            self._domains[e] = out
        return out

    def empty_symbols(self, is_empty: Callable[[Expr], bool]) -> frozenset[Expr]:
        """The ranged symbols whose ranges ``is_empty`` proves empty (computed once)."""
        if self._empty is None:
            self._empty = frozenset()  # while computing: no recursion through here
            # a range given by literals was checked when the ranges were read; a range open
            # on a side is never empty: only two-sided symbolic ranges need the analysis
            self._empty = frozenset(
                s
                for s, (lo, hi) in self.ranges.items()
                if lo is not None
                and hi is not None
                and (type(lo) is not Integer or type(hi) is not Integer)
                and is_empty(s)
            )
        return self._empty

    def trim(self) -> None:
        """Drop the memo tables once they pass :data:`MAX_CACHE_ENTRIES` (called between
        top-level queries, never inside one: a query relies on its own entries)."""
        if self.query.where_depth:  # inside a Where's analysis: its re-entrancy marks stay
            return
        if len(self.num_cache) > MAX_CACHE_ENTRIES:
            self.num_cache.clear()
        if len(self.simp_cache) > MAX_CACHE_ENTRIES:
            self.simp_cache.clear()
        if len(self.decided) > MAX_CACHE_ENTRIES:
            self.decided.clear()
        if len(self.sym_cache) > MAX_CACHE_ENTRIES:
            self.sym_cache.clear()
        if len(self._domains) >= _MAX_DOMAINS:
            self._domains.clear()


#: The most entries one context's memo tables hold between queries; with
#: :data:`_MAX_CONTEXTS` contexts kept, this bounds the memory of the caches.
MAX_CACHE_ENTRIES = 20_000

_CONTEXTS: OrderedDict[Ranges, Context] = OrderedDict()
_MAX_CONTEXTS = 256


def clear_contexts() -> None:
    """Forget every cached context, normalised ranges spec and emptiness answer."""
    _CONTEXTS.clear()
    _BY_SPEC.clear()
    _EMPTY_RANGES.clear()


#: (symbol, the ranges of its closure) -> whether its range is provably empty
_EMPTY_RANGES: dict[
    tuple[Expr, tuple[tuple[Expr, tuple[Expr | None, Expr | None]], ...]], bool
] = {}


def _by_name(s: Expr) -> str:
    name: str = s.payload
    return name


_BY_SPEC: OrderedDict[tuple[object, ...], Ranges] = OrderedDict()


def _spec_key(ranges: dict[object, object]) -> tuple[object, ...]:
    """A memo key for a literal ranges dict; the value types are part of it, so that
    ``{"x": True}`` and ``{"x": 1.0}`` never share ``{"x": 1}``'s entry.  Raises TypeError
    for unhashable specs."""
    return tuple(
        (k, v, tuple(map(type, v)) if type(v) is tuple else type(v)) for k, v in ranges.items()
    )


def normalised_ranges(ranges: RangesLike) -> Ranges:
    """``as_ranges`` memoised on the literal spec."""
    if isinstance(ranges, Ranges) or ranges is None or type(ranges) is not dict:
        return as_ranges(ranges)
    try:
        key = _spec_key(ranges)
        hit = _BY_SPEC.get(key)
    except TypeError:  # unhashable spec values: not memoised
        return as_ranges(ranges)
    if hit is not None:
        return hit
    r = as_ranges(ranges)
    _BY_SPEC[key] = r
    if len(_BY_SPEC) > _MAX_CONTEXTS:
        _BY_SPEC.popitem(last=False)
    return r


def context_for(ranges: RangesLike) -> Context:
    """The shared :class:`Context` for these ranges (normalised first)."""
    r = normalised_ranges(ranges)
    ctx = _CONTEXTS.get(r)
    if ctx is not None:
        _CONTEXTS.move_to_end(r)
        ctx.trim()
        return ctx
    ctx = Context(r)
    _CONTEXTS[r] = ctx
    if len(_CONTEXTS) > _MAX_CONTEXTS:
        _CONTEXTS.popitem(last=False)
    return ctx
