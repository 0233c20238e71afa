"""The analysis context: ranges plus the memo tables that depend on them.

A :class:`Context` is built once per distinct :class:`~indexalg.ranges.Ranges` (and reused:
:func:`context_for` keeps a bounded LRU of them, a :class:`~indexalg.memo.Memo`), so
repeated simplifications under the same ranges share their tables.  The context takes
ranges already normalised (:func:`indexalg.ranges.as_ranges`, called by the entry point that
received them): nothing here reads a ranges spec.  Facts that do not depend on ranges
(congruence) are cached on the interned node itself.

Each analysis keeps its table in ``ctx.memos[KEY]``, ``KEY = owner("its name")`` (registered
at import), not in a slot of the context: an analysis added needs no change here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from indexalg.analysis.infinity import INF, NEG_INF, Infinity, Num, finite
from indexalg.expr import Add, Expr, Integer, Symbol, mul
from indexalg.memo import Memo
from indexalg.ranges import Ranges

__all__ = [
    "Context",
    "QueryState",
    "OWNERS",
    "OPEN",
    "owner",
    "context_for",
    "clear_contexts",
    "MAX_CACHE_ENTRIES",
    "Infinity",
    "Num",
    "INF",
    "NEG_INF",
    "finite",
]


#: The most entries one context's table holds between queries (:meth:`Context.trim`);
#: with :data:`MAX_CONTEXTS` contexts kept, this bounds the memory of the tables.
MAX_CACHE_ENTRIES = 20_000
#: the owners of the context tables, by index (:func:`owner`), and each one's limit
OWNERS: list[str] = []
_LIMITS: list[int] = []
_MADE = [False]  # whether a Context exists (owners register before: at import)


def owner(name: str, limit: int = MAX_CACHE_ENTRIES) -> int:
    """Register a context table by its owner's name, with the most entries it keeps between
    queries; returns its index: the owner's table is ``ctx.memos[index]`` (a list index on
    the hot path, as fast as a slot).  Called at import, before any context is made."""
    if name in OWNERS:  # a module imported again
        return OWNERS.index(name)
    if _MADE[0]:
        raise RuntimeError(f"context table {name!r} registered after a Context was made")
    OWNERS.append(name)
    _LIMITS.append(limit)
    return len(OWNERS) - 1


#: the bounds of a symbol with no range
OPEN: tuple[None, None] = (None, None)

#: the symbols a point of an expression assigns (:meth:`Context.domain_of`)
DOMAINS = owner("context.domains", 4096 - 1)
#: the ranged symbols whose ranges are provably empty (:meth:`Context.empty_symbols`)
EMPTY = owner("context.empty")


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
        "bounds",
        "size_symbols",
        "dependent",
        "symbolic",
        "eliminable",
        "query",
        "facts",
        "sum_facts",
        "busy",
        "memos",
        "parent",
    )

    def __init__(self, ranges: Ranges, query: QueryState | None = None) -> None:
        self.ranges = ranges
        #: symbol -> inclusive (lo, hi): the ranges' own table, read as a dict
        self.bounds: dict[Expr, tuple[Expr | None, Expr | None]] = ranges.bounds
        #: each owner's memo table under these ranges (the analyses', the simplifier's),
        #: by the index :func:`owner` gave it
        self.memos: list[dict[Any, Any]] = [{} for _ in OWNERS]
        _MADE[0] = True
        referenced: set[Expr] = set()
        dependent: set[Expr] = set()
        if not ranges.literal:  # literal bounds refer to no symbol
            for sym, (lo, hi) in self.bounds.items():
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
        #: the symbols of symbolic ranges: those ranged through others and those they
        #: refer to (a claim over none of them is decided by its sides' intervals)
        self.symbolic: frozenset[Expr] = self.size_symbols | self.dependent
        #: symbols public bounds are not expressed in: every ranged symbol except sizes
        self.eliminable: frozenset[Expr] = (
            frozenset(self.bounds)
            if not referenced
            else frozenset(s for s in self.bounds if s not in referenced)
        )
        #: the re-entrancy state, shared with the contexts narrowed from this one
        self.query: QueryState = QueryState() if query is None else query
        #: expression -> inclusive (lo, hi) assumed at every point (ranges keyed by an
        #: expression); empty for plain ranges
        self.facts: dict[Expr, tuple[Expr | None, Expr | None]] = ranges.facts
        #: the facts about sums, for sums that hold the fact's terms (or their negations)
        #: among their own: (fact, its terms, its terms negated)
        self.sum_facts: tuple[tuple[Expr, frozenset[Expr], frozenset[Expr]], ...] = tuple(
            (f, frozenset(f.args), frozenset(mul(-1, t) for t in f.args))
            for f in self.facts
            if type(f) is Add and f.args
        )
        #: the symbols whose numeric bounds are being computed (a cycle through narrowed
        #: ranges: :func:`indexalg.analysis.interval.symbol_interval`)
        self.busy: set[Expr] = set()
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

    def closure(self, symbols: Iterable[Expr]) -> frozenset[Expr]:
        """``symbols`` and, transitively, the symbols of their range bounds
        (:meth:`indexalg.ranges.Ranges.closure`, read from :attr:`bounds`)."""
        bounds = self.bounds
        seen: set[Expr] = set()
        stack = list(symbols)
        while stack:
            sym = stack.pop()
            if sym in seen:
                continue
            seen.add(sym)
            for b in bounds.get(sym, OPEN):
                if b is not None:
                    stack.extend(x for x in b.symbol_set if x not in seen)
        return frozenset(seen)

    def domain_of(self, e: Expr) -> frozenset[Expr]:
        """The symbols a point of ``e`` assigns: those of ``e`` and, transitively, of the
        range bounds they depend on.  Only their ranges constrain ``e``'s points: a ranged
        symbol ``e`` does not reach says nothing about ``e``."""
        table: dict[Expr, frozenset[Expr]] = self.memos[DOMAINS]
        hit = table.get(e)
        if hit is not None:
            return hit
        out = self.closure(e.symbol_set)
        if len(table) <= _LIMITS[DOMAINS]:
            table[e] = out
        return out

    def empty_symbols(self, is_empty: Callable[[Expr], bool]) -> frozenset[Expr]:
        """The ranged symbols whose ranges ``is_empty`` proves empty (computed once)."""
        table: dict[None, frozenset[Expr]] = self.memos[EMPTY]
        hit = table.get(None)
        if hit is None:
            table[None] = frozenset()  # while computing: no recursion through here
            # a range given by literals was checked when the ranges were read; a range open
            # on a side is never empty: only two-sided symbolic ranges need the analysis
            hit = table[None] = frozenset(
                s
                for s, (lo, hi) in self.bounds.items()
                if lo is not None
                and hi is not None
                and (type(lo) is not Integer or type(hi) is not Integer)
                and is_empty(s)
            )
        return hit

    def trim(self) -> None:
        """Empty each table that holds more than its owner's limit (called between
        top-level queries, never inside one: a query relies on its own entries)."""
        if self.query.where_depth:  # inside a Where's analysis: its re-entrancy marks stay
            return
        for table, limit in zip(self.memos, _LIMITS):
            if len(table) > limit:
                table.clear()


#: The most contexts :func:`context_for` keeps (least recently used go first).
MAX_CONTEXTS = 256
_CONTEXTS: Memo[Ranges, Context] = Memo("analysis.contexts", MAX_CONTEXTS, lru=True)


def clear_contexts() -> None:
    """Forget every shared context (and with them their tables)."""
    _CONTEXTS.clear()


def context_for(ranges: Ranges) -> Context:
    """The shared :class:`Context` for these ranges (normalised already: a spec is
    refused, so that no analysis ever reads one)."""
    if type(ranges) is not Ranges:
        raise TypeError(
            f"context_for() takes Ranges (indexalg.ranges.as_ranges makes them), "
            f"got {type(ranges).__name__}"
        )
    ctx = _CONTEXTS.get(ranges)
    if ctx is not None:
        ctx.trim()
        return ctx
    ctx = Context(ranges)
    _CONTEXTS.put(ranges, ctx)
    return ctx
