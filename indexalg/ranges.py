"""Variable ranges: the context every analysis, simplification and proof runs under.

Accepted forms (docs/quickstart.md, docs/cli.md#ranges), per symbol:
* ``n`` (int): ``0 <= v < n`` (Inductor's var_ranges);
* ``(lo, hi)``: inclusive bounds, ints or expressions, ``None`` for an unbounded side;
* a string or an :class:`~indexalg.expr.Expr`: ``0 <= v < that`` (a symbolic size);
* on the command line, ``"4096"``, ``"0..63"``, ``"1.."``, ``"..-1"``, ``"s0"``.

A symbol with no range is any integer.  A key may also be an integer expression of
symbols (an :class:`~indexalg.expr.Expr` or its text): ``{x2 + 3*y1: 15}`` is the assumption
``0 <= x2 + 3*y1 < 15`` (Inductor's ``var_ranges`` hold such keys), used by the analyses
wherever that expression, or a sum holding its terms, occurs, and by the prover.

Ranges are normalised once, here, into :class:`Ranges`, an immutable mapping
``Symbol -> (lo, hi)`` with inclusive ``Expr | None`` bounds, plus :attr:`Ranges.facts` for
expression keys: :func:`as_ranges` is called by the entry point that received the spec
(``ia.simplify``, an :class:`~indexalg.Analyzer`, ``ia.prove``...), and the simplifier and
the analyses take the :class:`Ranges` value only (``analysis.context.context_for`` refuses
anything else).  A literal spec dict is memoised (a repeated call costs one lookup); each
entry is read by :func:`indexalg._rangespec.read_spec` (compiled in the compiled build), where
the common forms (an int, ``(lo, hi)`` of ints, expressions or None, a symbol's name) are read
without the parser.
Ranges given through each other in a cycle (``x`` in ``[0, y)``, ``y`` in ``[0, x)``) are a
:class:`~indexalg.errors.RangeError` naming the cycle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Union

from indexalg._rangespec import Bound, ordered_table, read_spec, spec_key
from indexalg.errors import RangeError
from indexalg.expr import Expr, Integer
from indexalg.memo import Memo

__all__ = ["Bound", "Ranges", "RangeSpec", "RangesLike", "as_ranges", "parse_range_arg"]
RangeSpec = Union[int, str, Expr, tuple[Union[int, str, Expr, None], Union[int, str, Expr, None]]]
RangesLike = Union["Ranges", Mapping[str, RangeSpec], Mapping[Expr, RangeSpec], None]


class Ranges(Mapping[Expr, tuple[Bound, Bound]]):
    """An immutable, ordered mapping from symbols to inclusive ``(lo, hi)`` bounds, plus
    :attr:`facts`: inclusive bounds of whole expressions (Inductor's ``var_ranges`` keyed
    by ``x2 + 3*y1``), which are assumptions the analyses use wherever that expression
    occurs.  The mapping itself holds the symbols only."""

    __slots__ = ("_items", "_key", "_hash", "facts", "bounds", "literal")

    def __init__(
        self,
        items: Mapping[Expr, tuple[Bound, Bound]] | None = None,
        facts: Mapping[Expr, tuple[Bound, Bound]] | None = None,
    ) -> None:
        table, key, literal = ordered_table(items, False)
        self._items: dict[Expr, tuple[Bound, Bound]] = table
        #: symbol -> inclusive (lo, hi), the mapping's own table (read it, never write it):
        #: what the analyses read, with no call into this module
        self.bounds: dict[Expr, tuple[Bound, Bound]] = table
        #: whether every bound is a literal or None (no range refers to a symbol)
        self.literal: bool = literal
        fact_table, fact_key, _ = ordered_table(facts, True)
        #: expression -> inclusive (lo, hi): assumed at every point
        self.facts: dict[Expr, tuple[Bound, Bound]] = fact_table
        self._key = (key, fact_key)
        self._hash = hash(self._key)

    def __getitem__(self, key: Expr) -> tuple[Bound, Bound]:
        return self._items[key]

    def get_bounds(self, sym: Expr) -> tuple[Bound, Bound]:
        return self._items.get(sym, (None, None))

    def __iter__(self) -> Iterator[Expr]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, Ranges) and other._hash == self._hash and other._key == self._key
        )

    def __repr__(self) -> str:
        parts = []
        for k, (lo, hi) in (*self._items.items(), *self.facts.items()):
            parts.append(f"{k}: [{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]")
        return "Ranges({" + ", ".join(parts) + "})"

    def closure(self, symbols: Iterable[Expr]) -> frozenset[Expr]:
        """``symbols`` and, transitively, the symbols of their range bounds: the symbols a
        point of an expression over ``symbols`` assigns."""
        seen: set[Expr] = set()
        stack = list(symbols)
        while stack:
            sym = stack.pop()
            if sym in seen:
                continue
            seen.add(sym)
            for b in self.get_bounds(sym):
                if b is not None:
                    stack.extend(x for x in b.symbol_set if x not in seen)
        return frozenset(seen)

    def with_bounds(self, sym: Expr, lo: Bound, hi: Bound) -> Ranges:
        d = dict(self._items)
        d[sym] = (lo, hi)
        return Ranges(d, self.facts)

    def as_spec(self) -> dict[str, tuple[int | str | None, int | str | None]]:
        """A JSON-friendly form: name (or expression text) -> [lo, hi] with ints, strings
        or None."""
        out: dict[str, tuple[int | str | None, int | str | None]] = {}
        for k, (lo, hi) in self._items.items():
            out[k.payload] = (_spec_bound(lo), _spec_bound(hi))
        for k, (lo, hi) in self.facts.items():
            out[str(k)] = (_spec_bound(lo), _spec_bound(hi))
        return out


def _spec_bound(b: Bound) -> int | str | None:
    if b is None:
        return None
    if type(b) is Integer:
        v: int = b.payload
        return v
    return str(b)


#: a literal spec dict (its items with their value types) -> its Ranges
_BY_SPEC: Memo[tuple[object, ...], Ranges] = Memo("ranges.specs", 256)


def as_ranges(ranges: RangesLike) -> Ranges:
    """Normalise any accepted ranges form into :class:`Ranges` (raises :class:`RangeError`):
    the one place a ranges spec is read.  :class:`Ranges` and None cost nothing; a literal
    dict is memoised on its items."""
    if ranges is None:
        return _EMPTY
    if type(ranges) is dict:
        try:
            key = spec_key(ranges)
            hit = _BY_SPEC.get(key)
        except TypeError:  # unhashable spec values: not memoised
            return _normalised(ranges)
        if hit is not None:
            return hit
        r = _normalised(ranges)
        _BY_SPEC.put(key, r)
        return r
    if isinstance(ranges, Ranges):
        return ranges
    if not isinstance(ranges, Mapping):
        raise RangeError(f"ranges must be a mapping from symbol names, got {type(ranges).__name__}")
    return _normalised(ranges)


def _normalised(ranges: Mapping[str, RangeSpec] | Mapping[Expr, RangeSpec]) -> Ranges:
    return Ranges(*read_spec(ranges))


_EMPTY = Ranges()


def parse_range_arg(text: str) -> tuple[str, RangeSpec]:
    """Parse a command-line ``NAME=SPEC`` (``x=4096``, ``y=0..63``, ``s0=1..``, ``z=s0``)."""
    name, sep, spec = text.partition("=")
    name = name.strip()
    spec = spec.strip()
    if not sep or not name:
        raise RangeError(f"expected NAME=RANGE, got {text!r}")
    if not name.isidentifier():
        raise RangeError(f"not a symbol name: {name!r}")
    if not spec:
        raise RangeError(f"empty range for {name!r}")
    if ".." in spec:
        lo_s, _, hi_s = spec.partition("..")
        lo_s, hi_s = lo_s.strip(), hi_s.strip()
        lo: int | str | None = None if not lo_s else _int_or_text(lo_s)
        hi: int | str | None = None if not hi_s else _int_or_text(hi_s)
        return name, (lo, hi)
    v = _int_or_text(spec)
    return name, v


_ASCII_INT = re.compile(r"[+-]?[0-9]+")


def _int_or_text(s: str) -> int | str:
    """An integer written with the ASCII digits (``int`` alone would also read ``"١٠"`` and
    ``"1_0"`` as 10), else the text, which the parser reads as a symbolic bound."""
    if _ASCII_INT.fullmatch(s):
        try:
            return int(s)
        except ValueError:  # over Python's digit limit: the parser reads it in full
            return s
    return s
