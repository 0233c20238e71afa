"""The analysis context: ranges plus the caches that depend on them.

A :class:`Context` is built once per distinct :class:`~indexalg.ranges.Ranges` (and reused:
:func:`context_for` keeps a small LRU of them), so repeated simplifications under the same
ranges share their interval cache.  Facts that do not depend on ranges (congruence) are
cached on the interned node itself.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Union

from indexalg.expr import Expr, Symbol
from indexalg.ranges import Ranges, RangesLike, as_ranges

__all__ = ["Context", "context_for", "Num", "INF", "NEG_INF"]

#: A numeric bound: an int, or ``-inf`` / ``inf`` (floats) for an unbounded side.
Num = Union[int, float]
INF: float = float("inf")
NEG_INF: float = float("-inf")


class Context:
    """Ranges with their derived facts: numeric symbol bounds and memo tables."""

    __slots__ = (
        "ranges",
        "num_cache",
        "simp_cache",
        "size_symbols",
        "dependent",
        "eliminable",
        "_bounded",
        "_sym_num",
        "_busy",
    )

    def __init__(self, ranges: Ranges) -> None:
        self.ranges = ranges
        #: node -> (lo, hi) numeric interval under these ranges
        self.num_cache: dict[Expr, tuple[Num, Num]] = {}
        #: node -> simplified node under these ranges (default rule set only)
        self.simp_cache: dict[Expr, Expr] = {}
        referenced: set[Expr] = set()
        dependent: set[Expr] = set()
        for sym, (lo, hi) in ranges.items():
            for b in (lo, hi):
                if b is None or (not b.args and type(b) is not Symbol):
                    continue
                syms = [n for n in b.walk() if type(n) is Symbol]
                if syms:
                    dependent.add(sym)
                    referenced.update(syms)
        #: symbols other ranges are expressed in (sizes): kept in symbolic bounds
        self.size_symbols: frozenset[Expr] = frozenset(referenced)
        #: symbols whose range refers to other symbols: eliminated in symbolic bounds
        self.dependent: frozenset[Expr] = frozenset(dependent)
        #: symbols public bounds are not expressed in: every ranged symbol except sizes
        self.eliminable: frozenset[Expr] = frozenset(
            s for s in ranges if s not in referenced
        )
        self._sym_num: dict[Expr, tuple[Num, Num]] = {}
        self._busy: set[Expr] = set()
        self._bounded: frozenset[Expr] | None = None

    @property
    def bounded(self) -> frozenset[Expr]:
        """Dependent symbols plus those with finite ranges on both sides (not sizes)."""
        if self._bounded is None:
            self._bounded = self.dependent  # while computing: no recursion through here
            self._bounded = self.dependent | frozenset(
                s for s in self.eliminable if INF not in map(abs, self.symbol_interval(s))
            )
        return self._bounded

    def symbol_interval(self, sym: Expr) -> tuple[Num, Num]:
        """Numeric bounds of a symbol (its range's bounds, themselves bounded numerically)."""
        hit = self._sym_num.get(sym)
        if hit is not None:
            return hit
        lo_e, hi_e = self.ranges.get_bounds(sym)
        if sym in self._busy:  # a cycle in the ranges: give up on this side
            return NEG_INF, INF
        self._busy.add(sym)
        try:
            from indexalg.analysis.interval import interval

            lo: Num = NEG_INF if lo_e is None else interval(lo_e, self)[0]
            hi: Num = INF if hi_e is None else interval(hi_e, self)[1]
        finally:
            self._busy.discard(sym)
        self._sym_num[sym] = (lo, hi)
        return lo, hi

    def narrowed(self, sym: Expr, lo: Expr | None, hi: Expr | None) -> Context:
        """A new context where ``sym`` has the given bounds (None keeps the old side)."""
        old_lo, old_hi = self.ranges.get_bounds(sym)
        return Context(self.ranges.with_bounds(sym, lo or old_lo, hi or old_hi))


_CONTEXTS: OrderedDict[Ranges, Context] = OrderedDict()
_MAX_CONTEXTS = 2048


_BY_SPEC: OrderedDict[tuple[object, ...], Ranges] = OrderedDict()


def _spec_key(ranges: dict[object, object]) -> tuple[object, ...]:
    """A memo key for a literal ranges dict; the value types are part of it, so that
    ``{"x": True}`` and ``{"x": 1.0}`` never share ``{"x": 1}``'s entry.  Raises TypeError
    for unhashable specs."""
    return tuple(
        (k, v, tuple(map(type, v)) if type(v) is tuple else type(v)) for k, v in ranges.items()
    )


def _normalised(ranges: RangesLike) -> Ranges:
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
    r = _normalised(ranges)
    ctx = _CONTEXTS.get(r)
    if ctx is not None:
        _CONTEXTS.move_to_end(r)
        return ctx
    ctx = Context(r)
    _CONTEXTS[r] = ctx
    if len(_CONTEXTS) > _MAX_CONTEXTS:
        _CONTEXTS.popitem(last=False)
    return ctx
