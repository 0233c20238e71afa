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
anything else).  A literal spec dict is memoised (a repeated call costs one lookup), and the
common forms (an int, ``(lo, hi)`` of ints or None, a symbol's name) are read without the
parser.
Ranges given through each other in a cycle (``x`` in ``[0, y)``, ``y`` in ``[0, x)``) are a
:class:`~indexalg.errors.RangeError` naming the cycle.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Union

from indexalg.errors import IndexAlgError, ParseError, RangeError
from indexalg.expr import Expr, Integer, Symbol, _symbol, add, as_expr, integer
from indexalg.memo import Memo
from indexalg.parse import parse

__all__ = ["Ranges", "RangeSpec", "RangesLike", "as_ranges", "parse_range_arg"]

Bound = Union[Expr, None]
RangeSpec = Union[int, str, Expr, tuple[Union[int, str, Expr, None], Union[int, str, Expr, None]]]
RangesLike = Union["Ranges", Mapping[str, RangeSpec], Mapping[Expr, RangeSpec], None]


class Ranges(Mapping[Expr, tuple[Bound, Bound]]):
    """An immutable, ordered mapping from symbols to inclusive ``(lo, hi)`` bounds, plus
    :attr:`facts`: inclusive bounds of whole expressions (Inductor's ``var_ranges`` keyed
    by ``x2 + 3*y1``), which are assumptions the analyses use wherever that expression
    occurs.  The mapping itself holds the symbols only."""

    __slots__ = ("_items", "_key", "_hash", "facts", "bounds")

    def __init__(
        self,
        items: Mapping[Expr, tuple[Bound, Bound]] | None = None,
        facts: Mapping[Expr, tuple[Bound, Bound]] | None = None,
    ) -> None:
        ordered = sorted(items.items(), key=_by_name) if items else []
        self._items: dict[Expr, tuple[Bound, Bound]] = dict(ordered)
        #: symbol -> inclusive (lo, hi), the mapping's own table (read it, never write it):
        #: what the analyses read, with no call into this module
        self.bounds: dict[Expr, tuple[Bound, Bound]] = self._items
        fact_items = sorted(facts.items(), key=_by_text) if facts else []
        #: expression -> inclusive (lo, hi): assumed at every point
        self.facts: dict[Expr, tuple[Bound, Bound]] = dict(fact_items)
        self._key = (
            tuple([(k, lo, hi) for k, (lo, hi) in ordered]),
            tuple([(k, lo, hi) for k, (lo, hi) in fact_items]),
        )
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


def _by_name(item: tuple[Expr, tuple[Bound, Bound]]) -> str:
    name: str = item[0].payload
    return name


def _by_text(item: tuple[Expr, tuple[Bound, Bound]]) -> str:
    return str(item[0])


def _spec_bound(b: Bound) -> int | str | None:
    if b is None:
        return None
    if type(b) is Integer:
        v: int = b.payload
        return v
    return str(b)


#: text of a range bound -> its expression
_PARSED_BOUNDS: Memo[str, Expr] = Memo("ranges.bound_texts", 4096)


def _is_name(v: str) -> bool:
    """Whether ``v`` is read by the parser as the symbol of that name (and only then)."""
    return v.isidentifier() and v.isascii() and not keyword.iskeyword(v)


def _bound_expr(v: object, what: str) -> Bound:
    if v is None:
        return None
    if type(v) is int:
        return integer(v)
    if isinstance(v, Expr):
        return _checked_int_expr(v, what)
    if isinstance(v, str):
        if _is_name(v):
            return _symbol(v)  # what the parser reads, without it
        hit = _PARSED_BOUNDS.get(v)
        if hit is not None:
            return hit
        try:
            e = _checked_int_expr(parse(v), what)
        except ParseError as err:
            raise RangeError(f"{what}: {err.one_line()} in {v!r}") from None
        _PARSED_BOUNDS.put(v, e)
        return e
    try:
        return _checked_int_expr(as_expr(v), what)
    except IndexAlgError as err:
        raise RangeError(f"{what}: {err}") from None


def _checked_int_expr(e: Expr, what: str) -> Expr:
    if e.is_bool:
        raise RangeError(f"{what}: a range bound must be an integer expression, got {e}")
    return e


def _range_key(k: object) -> Expr:
    """A symbol, or an integer expression whose range is an assumption (a fact)."""
    if isinstance(k, Expr):
        if type(k) is Symbol:
            return k
        if k.is_bool or not k.free_symbols:
            raise RangeError(
                f"ranges are keyed by symbols or integer expressions of symbols, got {k}"
            )
        return k
    if isinstance(k, str):
        if k.isidentifier():
            try:
                return _symbol(k)
            except IndexAlgError:
                raise RangeError(f"not a symbol name: {k!r}") from None

        try:
            e = parse(k)
        except ParseError as err:
            raise RangeError(f"range key {k!r}: {err.one_line()}") from None
        return _range_key(e)
    raise RangeError(f"ranges are keyed by symbol names or expressions, got {k!r}")


def _normalise_one(name: str, spec: object) -> tuple[Bound, Bound]:
    what = f"range of {name}"
    if type(spec) is tuple and len(spec) == 2:  # the common form, read first
        return _pair(spec[0], spec[1], what)
    if isinstance(spec, bool):
        raise RangeError(f"{what}: expected a size, (lo, hi) or a symbolic size, got {spec!r}")
    if isinstance(spec, int):
        if spec < 1:
            raise RangeError(f"{what}: size {spec} leaves no values (0 <= {name} < {spec})")
        return integer(0), integer(spec - 1)
    if isinstance(spec, (str, Expr)):
        size = _bound_expr(spec, what)
        assert size is not None
        if type(size) is Integer and size.payload < 1:
            raise RangeError(f"{what}: size {size} leaves no values")
        return integer(0), add(size, -1)
    if isinstance(spec, (tuple, list)) and len(spec) == 2:
        return _pair(spec[0], spec[1], what)
    raise RangeError(f"{what}: expected a size, (lo, hi) or a symbolic size, got {spec!r}")


def _pair(lo_spec: object, hi_spec: object, what: str) -> tuple[Bound, Bound]:
    lo = _bound_expr(lo_spec, what)
    hi = _bound_expr(hi_spec, what)
    if type(lo) is Integer and type(hi) is Integer and lo.payload > hi.payload:
        raise RangeError(f"{what}: empty range [{lo}, {hi}]")
    return lo, hi


#: a literal spec dict (its items with their value types) -> its Ranges
_BY_SPEC: Memo[tuple[object, ...], Ranges] = Memo("ranges.specs", 256)


def _spec_key(ranges: dict[object, object]) -> tuple[object, ...]:
    """A memo key for a literal ranges dict; the value types are part of it, so that
    ``{"x": True}`` and ``{"x": 1.0}`` never share ``{"x": 1}``'s entry.  Raises TypeError
    for unhashable specs."""
    return tuple(
        (k, v, tuple(map(type, v)) if type(v) is tuple else type(v)) for k, v in ranges.items()
    )


def as_ranges(ranges: RangesLike) -> Ranges:
    """Normalise any accepted ranges form into :class:`Ranges` (raises :class:`RangeError`):
    the one place a ranges spec is read.  :class:`Ranges` and None cost nothing; a literal
    dict is memoised on its items."""
    if ranges is None:
        return _EMPTY
    if type(ranges) is dict:
        try:
            key = _spec_key(ranges)
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
    out: dict[Expr, tuple[Bound, Bound]] = {}
    facts: dict[Expr, tuple[Bound, Bound]] = {}
    for k, spec in ranges.items():
        key = _range_key(k)
        if type(key) is Symbol:
            out[key] = _normalise_one(key.payload, spec)
        else:
            facts[key] = _normalise_one(str(key), spec)
    cycle = _find_cycle(out) if _may_cycle(out) else None
    if cycle is not None:
        path = " -> ".join(str(s) for s in cycle)
        raise RangeError(f"the ranges refer to each other in a cycle: {path}")
    return Ranges(out, facts)


def _may_cycle(ranges: Mapping[Expr, tuple[Bound, Bound]]) -> bool:
    """Whether a cycle is possible: every symbol of a cycle has a bound that mentions the
    next, so some bound must mention a symbol whose own range has a non-literal bound."""
    linked = {sym: pair for sym, pair in ranges.items() if _non_literal(pair)}
    for lo, hi in linked.values():
        if lo is not None and not lo.symbol_set.isdisjoint(linked):
            return True
        if hi is not None and not hi.symbol_set.isdisjoint(linked):
            return True
    return False


def _non_literal(pair: tuple[Bound, Bound]) -> bool:
    lo, hi = pair
    return (lo is not None and type(lo) is not Integer) or (
        hi is not None and type(hi) is not Integer
    )


def _find_cycle(ranges: Mapping[Expr, tuple[Bound, Bound]]) -> list[Expr] | None:
    """A cycle of symbols whose ranges are given through each other (``x`` in ``[0, y)``,
    ``y`` in ``[0, x)``), as the path ``[x, y, x]``; None when there is none."""
    deps: dict[Expr, list[Expr]] = {}
    for sym, (lo, hi) in ranges.items():
        found: set[Expr] = set()
        for b in (lo, hi):
            if b is not None:
                found.update(s for s in b.symbol_set if s in ranges)
        deps[sym] = sorted(found, key=lambda s: str(s.payload))
    state: dict[Expr, int] = {}  # 1: on the current path, 2: done
    for root in sorted(ranges, key=lambda s: str(s.payload)):
        if state.get(root):
            continue
        path: list[Expr] = [root]
        todo: list[list[Expr]] = [list(deps[root])]
        state[root] = 1
        while todo:  # an explicit stack: ranges can be long chains
            if not todo[-1]:
                state[path.pop()] = 2
                todo.pop()
                continue
            nxt = todo[-1].pop()
            st = state.get(nxt)
            if st == 1:
                return [*path[path.index(nxt) :], nxt]
            if st is None:
                state[nxt] = 1
                path.append(nxt)
                todo.append(list(deps[nxt]))
    return None


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
