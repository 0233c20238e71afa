"""The analysis context: ranges plus the caches that depend on them.

A :class:`Context` is built once per distinct :class:`~indexalg.ranges.Ranges` (and reused:
:func:`context_for` keeps a small LRU of them), so repeated simplifications under the same
ranges share their interval cache.  Facts that do not depend on ranges (congruence) are
cached on the interned node itself.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Union

from indexalg.expr import Add, Expr, Symbol, mul
from indexalg.ranges import Ranges, RangesLike, as_ranges

__all__ = [
    "Context",
    "context_for",
    "clear_contexts",
    "MAX_CACHE_ENTRIES",
    "Infinity",
    "Num",
    "INF",
    "NEG_INF",
    "finite",
]



class Infinity:
    """An exact infinite bound, ``INF`` or ``NEG_INF``: ordered against every int however
    large (floats are not: ``10**400 + float("inf")`` overflows), closed under adding ints
    and under multiplying by non-zero ints.  ``inf - inf`` and ``0 * inf`` have no value
    and raise :class:`ArithmeticError`: a caller that reaches them has a bug."""

    __slots__ = ("sign",)

    def __init__(self, sign: int) -> None:
        self.sign = sign

    def __repr__(self) -> str:
        return "inf" if self.sign > 0 else "-inf"

    def __hash__(self) -> int:
        return hash(("Infinity", self.sign))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Infinity) and other.sign == self.sign

    def __lt__(self, other: object) -> bool:
        if isinstance(other, Infinity):
            return self.sign < other.sign
        if isinstance(other, int):
            return self.sign < 0
        return NotImplemented

    def __le__(self, other: object) -> bool:
        return self == other or self < other

    def __gt__(self, other: object) -> bool:
        if isinstance(other, Infinity):
            return self.sign > other.sign
        if isinstance(other, int):
            return self.sign > 0
        return NotImplemented

    def __ge__(self, other: object) -> bool:
        return self == other or self > other

    def __neg__(self) -> Infinity:
        return NEG_INF if self.sign > 0 else INF

    def __abs__(self) -> Infinity:
        return INF

    def __add__(self, other: Num) -> Infinity:
        if isinstance(other, Infinity) and other.sign != self.sign:
            raise ArithmeticError("inf - inf has no value")
        return self

    __radd__ = __add__

    def __sub__(self, other: Num) -> Infinity:
        return self + (-other)

    def __rsub__(self, other: Num) -> Infinity:
        return -self + other

    def __mul__(self, other: Num) -> Infinity:
        s = other.sign if isinstance(other, Infinity) else (other > 0) - (other < 0)
        if s == 0:
            raise ArithmeticError("0 * inf has no value")
        return self if s > 0 else -self

    __rmul__ = __mul__


#: A numeric bound: an int, or ``NEG_INF`` / ``INF`` for an unbounded side.
Num = Union[int, Infinity]
INF: Infinity = Infinity(1)
NEG_INF: Infinity = Infinity(-1)


def finite(v: Num) -> int:
    """``v`` as an int; :class:`ArithmeticError` when it is infinite."""
    if isinstance(v, Infinity):
        raise ArithmeticError(f"{v!r} is not a finite bound")
    return v


_MAX_DOMAINS = 4096


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
        "_domains",
        "_empty",
        "facts",
        "sum_facts",
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
        self._domains: dict[Expr, frozenset[Expr]] = {}
        self._empty: frozenset[Expr] | None = None
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

    @property
    def bounded(self) -> frozenset[Expr]:
        """Dependent symbols plus those with finite ranges on both sides (not sizes)."""
        if self._bounded is None:
            self._bounded = self.dependent  # while computing: no recursion through here
            self._bounded = self.dependent | frozenset(
                s for s in self.eliminable if INF not in map(abs, self.symbol_interval(s))
            )
        return self._bounded

    def domain_of(self, e: Expr) -> frozenset[Expr]:
        """The symbols a point of ``e`` assigns: those of ``e`` and, transitively, of the
        range bounds they depend on.  Only their ranges constrain ``e``'s points: a ranged
        symbol ``e`` does not reach says nothing about ``e``."""
        hit = self._domains.get(e)
        if hit is not None:
            return hit
        seen: set[Expr] = set()
        stack = list(e.symbol_set)
        while stack:
            sym = stack.pop()
            if sym in seen:
                continue
            seen.add(sym)
            for b in self.ranges.get_bounds(sym):
                if b is not None:
                    stack.extend(x for x in b.symbol_set if x not in seen)
        out = frozenset(seen)
        if len(self._domains) < _MAX_DOMAINS:
            self._domains[e] = out
        return out

    def empty_symbols(self, is_empty: Callable[[Expr], bool]) -> frozenset[Expr]:
        """The ranged symbols whose ranges ``is_empty`` proves empty (computed once)."""
        if self._empty is None:
            self._empty = frozenset()  # while computing: no recursion through here
            self._empty = frozenset(s for s in self.ranges if is_empty(s))
        return self._empty

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

    def trim(self) -> None:
        """Drop the memo tables once they pass :data:`MAX_CACHE_ENTRIES` (called between
        top-level queries, never inside one: a query relies on its own entries)."""
        if len(self.num_cache) > MAX_CACHE_ENTRIES:
            from indexalg.analysis.interval import _WHERE_DEPTH

            if _WHERE_DEPTH:  # inside a Where's analysis: its re-entrancy marks stay
                return
            self.num_cache.clear()
        if len(self.simp_cache) > MAX_CACHE_ENTRIES:
            self.simp_cache.clear()
        if len(self._domains) >= _MAX_DOMAINS:
            self._domains.clear()

    def narrowed(self, sym: Expr, lo: Expr | None, hi: Expr | None) -> Context:
        """A new context where ``sym`` has the given bounds (None keeps the old side)."""
        old_lo, old_hi = self.ranges.get_bounds(sym)
        return Context(self.ranges.with_bounds(sym, lo or old_lo, hi or old_hi))


#: The most entries one context's memo tables hold between queries; with
#: :data:`_MAX_CONTEXTS` contexts kept, this bounds the memory of the caches.
MAX_CACHE_ENTRIES = 20_000

_CONTEXTS: OrderedDict[Ranges, Context] = OrderedDict()
_MAX_CONTEXTS = 256


def clear_contexts() -> None:
    """Forget every cached context and normalised ranges spec."""
    _CONTEXTS.clear()
    _BY_SPEC.clear()


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
        ctx.trim()
        return ctx
    ctx = Context(r)
    _CONTEXTS[r] = ctx
    if len(_CONTEXTS) > _MAX_CONTEXTS:
        _CONTEXTS.popitem(last=False)
    return ctx
