"""Reading a ranges spec, symbol by symbol: the per-entry work of
:func:`indexalg.ranges.as_ranges` (the accepted forms are listed there).

Kept apart from :mod:`indexalg.ranges` so that it is compiled in the compiled build
(``setup.py``): a fresh simplification reads its spec once, and in pure Python this reading
was a sixth of a compiled simplification's time.  The functions take the user's values as
``object`` and check them here, so the compiled build raises the same
:class:`~indexalg.errors.RangeError` as the pure one.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, Union

from indexalg.errors import IndexAlgError, ParseError, RangeError
from indexalg.expr import _DATA as _INTERNED
from indexalg.expr import Expr, Integer, Symbol, _symbol, add, as_expr, integer
from indexalg.memo import Memo
from indexalg.parse import parse

__all__ = ["Bound", "ordered_table", "read_spec", "spec_key"]

Bound = Union[Expr, None]


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
    if isinstance(k, str) and k.isidentifier():  # the common form, read first
        try:
            return _symbol(k)
        except IndexAlgError:
            raise RangeError(f"not a symbol name: {k!r}") from None
    if isinstance(k, Expr):
        if type(k) is Symbol:
            return k
        if k.is_bool or not k.free_symbols:
            raise RangeError(
                f"ranges are keyed by symbols or integer expressions of symbols, got {k}"
            )
        return k
    if isinstance(k, str):
        try:
            e = parse(k)
        except ParseError as err:
            raise RangeError(f"range key {k!r}: {err.one_line()}") from None
        return _range_key(e)
    raise RangeError(f"ranges are keyed by symbol names or expressions, got {k!r}")


def _normalise_one(name: str, spec: object) -> tuple[Bound, Bound]:
    if type(spec) is tuple and len(spec) == 2:  # the common form, read first
        lo, hi = spec
        # bounds given as integer expressions or None are taken as they are
        if lo is not None and (not isinstance(lo, Expr) or lo.is_bool):
            lo = _bound_expr(lo, f"range of {name}")
        if hi is not None and (not isinstance(hi, Expr) or hi.is_bool):
            hi = _bound_expr(hi, f"range of {name}")
        if type(lo) is Integer and type(hi) is Integer and lo.payload > hi.payload:
            raise RangeError(f"range of {name}: empty range [{lo}, {hi}]")
        return lo, hi
    what = f"range of {name}"
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


def read_spec(
    ranges: Mapping[Any, object],
) -> tuple[dict[Expr, tuple[Bound, Bound]], dict[Expr, tuple[Bound, Bound]]]:
    """A ranges spec read: its symbols' and its expression keys' inclusive ``(lo, hi)``
    bounds, in the spec's order (:class:`~indexalg.ranges.Ranges` sorts them).  Raises
    :class:`RangeError` naming what is wrong, a cycle of ranges included."""
    out: dict[Expr, tuple[Bound, Bound]] = {}
    facts: dict[Expr, tuple[Bound, Bound]] = {}
    #: the symbols with a bound other than a literal (only they can be in a cycle)
    linked: dict[Expr, tuple[Bound, Bound]] = {}
    for k, spec in ranges.items():
        ref = _INTERNED.get((Symbol, k, ())) if type(k) is str else None
        key = ref() if ref is not None else None  # a symbol made before: its name is valid
        if key is None:
            key = _range_key(k)
        if type(key) is Symbol:
            if type(spec) is tuple and len(spec) == 2:  # (lo, hi) of expressions or None: as given
                lo, hi = spec
                if (lo is None or type(lo) is Integer) and (hi is None or type(hi) is Integer):
                    if lo is not None and hi is not None and lo.payload > hi.payload:
                        raise RangeError(f"range of {key.payload}: empty range [{lo}, {hi}]")
                    out[key] = spec
                    continue
                if (lo is None or (isinstance(lo, Expr) and not lo.is_bool)) and (
                    hi is None or (isinstance(hi, Expr) and not hi.is_bool)
                ):  # integer expressions, one at least not a literal
                    out[key] = linked[key] = spec
                    continue
            pair = out[key] = _normalise_one(key.payload, spec)
            lo, hi = pair
            if (lo is not None and type(lo) is not Integer) or (
                hi is not None and type(hi) is not Integer
            ):
                linked[key] = pair
        else:
            facts[key] = _normalise_one(str(key), spec)
    cycle = _find_cycle(out) if linked and _may_cycle(linked) else None
    if cycle is not None:
        path = " -> ".join(str(s) for s in cycle)
        raise RangeError(f"the ranges refer to each other in a cycle: {path}")
    return out, facts


def _may_cycle(linked: Mapping[Expr, tuple[Bound, Bound]]) -> bool:
    """Whether a cycle is possible among ``linked``, the symbols with a non-literal bound:
    every symbol of a cycle has a bound that mentions the next, so some bound must mention
    a symbol whose own range has a non-literal bound."""
    for lo, hi in linked.values():
        if lo is not None and not lo.symbol_set.isdisjoint(linked):
            return True
        if hi is not None and not hi.symbol_set.isdisjoint(linked):
            return True
    return False


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


def spec_key(ranges: Mapping[object, object]) -> tuple[object, ...]:
    """A memo key for a literal ranges dict.  An entry ``(lo, hi)`` of expressions or None is
    keyed by itself (expressions are interned: equal means the same); any other value with
    its types too, so that ``{"x": True}`` and ``{"x": 1.0}`` never share ``{"x": 1}``'s
    entry (a tagged entry has three parts, an untagged one two: they never meet).  Raises
    TypeError for unhashable specs."""
    out: list[object] = []
    for k, v in ranges.items():
        if type(v) is tuple and len(v) == 2:
            lo, hi = v
            if (lo is None or isinstance(lo, Expr)) and (hi is None or isinstance(hi, Expr)):
                out.append((k, v))
                continue
            out.append((k, v, tuple(map(type, v))))
        else:
            out.append((k, v, type(v)))
    return tuple(out)


def ordered_table(
    items: Mapping[Expr, tuple[Bound, Bound]] | None, facts: bool
) -> tuple[dict[Expr, tuple[Bound, Bound]], tuple[tuple[Expr, Bound, Bound], ...], bool]:
    """The table of a :class:`~indexalg.ranges.Ranges` (symbols by name, or ``facts``' keys
    by their text), its part of the ranges' identity (``(key, lo, hi)`` in that order) and
    whether every bound is a literal or None."""
    if not items:
        return {}, (), True
    pairs = list(items.items())
    if facts or not _by_name_already(pairs):
        pairs.sort(key=_by_text if facts else _by_name)
    table: dict[Expr, tuple[Bound, Bound]] = {}
    key: list[tuple[Expr, Bound, Bound]] = []
    literal = True
    for k, pair in pairs:
        table[k] = pair
        lo, hi = pair
        key.append((k, lo, hi))
        if (lo is not None and type(lo) is not Integer) or (
            hi is not None and type(hi) is not Integer
        ):
            literal = False
    return table, tuple(key), literal


def _by_name_already(pairs: list[tuple[Expr, tuple[Bound, Bound]]]) -> bool:
    """Whether the symbols are in name order already (a spec usually is: no sort then)."""
    prev = ""
    for k, _ in pairs:
        name: str = k.payload
        if name <= prev:
            return False
        prev = name
    return True


def _by_name(item: tuple[Expr, tuple[Bound, Bound]]) -> str:
    name: str = item[0].payload
    return name


def _by_text(item: tuple[Expr, tuple[Bound, Bound]]) -> str:
    return str(item[0])
