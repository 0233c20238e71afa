"""Iterator decomposition: an index over iteration variables as a strided block.

:func:`decompose` writes an index expression ``e`` over iteration variables ``v`` (each
ranging over ``[0, n_v)``, ``n_v`` an integer or a symbolic size) as

    e  ==  offset + sum_k stride_k * digit_k

where every digit is one mixed-radix digit of one variable, ``digit = (v // d) mod extent``
(the outermost digit of a variable is ``v // d``), and the digits of each variable tile it
exactly: innermost divisor 1, each next divisor the product of the extents below, the product
of all extents ``n_v``.  A digit the index does not read is a *stride-0* dimension (a
broadcast).  So with ``0 <= x < 65536``

    4096*(x // 256) + 32*ModularIndexing(x, 16, 16) + ModularIndexing(x, 1, 16)

is the 3-D block of extents (256, 16, 16) and strides (4096, 32, 1), and ``8*(x // 8)`` with
``0 <= x < 64`` is extents (8, 8), strides (8, 0).  A *fused* iterator is two variables (or
two digits of one) whose dimensions chain (``stride_outer == stride_inner * extent_inner``,
see :meth:`IterMap.coalesced`); a *split* iterator is one variable read as several digits.

Offsets and strides may be symbolic in symbols that are not iteration variables (``s0*x +
y*s1 + 5``).  When ``e`` does not decompose, the result says why (:attr:`IterMap.why`).
Injectivity (no two points of the iteration space share an address) and bijectivity (onto a
contiguous range of addresses) are decided exactly for numeric strides and extents, and by
proof where they are symbolic (None when neither settles it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from indexalg.analysis.bounds import bounds
from indexalg.errors import ExprTypeError, RangeError
from indexalg.expr import (
    Add,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Mod,
    ModularIndexing,
    Symbol,
    add,
    integer,
    mul,
)
from indexalg.parse import parse
from indexalg.poly import divide_exact, term_factors
from indexalg.prove import prove
from indexalg.ranges import Ranges, RangesLike, as_ranges
from indexalg.simplify import simplify as _simplify

__all__ = ["IterDim", "IterMap", "decompose", "variable_sizes"]

_ENUMERATE_LIMIT = 1 << 16


@dataclass(frozen=True)
class IterDim:
    """One dimension: the digit ``(var // divisor) mod extent`` read with ``stride``.

    ``top`` is True for a variable's outermost digit (``var // divisor``)."""

    var: Expr
    divisor: Expr
    extent: Expr
    stride: Expr
    top: bool

    @property
    def digit(self) -> Expr:
        """The digit as an expression of its variable."""
        if self.top:
            return self.var if self.divisor is _ONE else FloorDiv.make(self.var, self.divisor)
        return ModularIndexing.make(self.var, self.divisor, self.extent)


_ONE = integer(1)
_ZERO = integer(0)


@dataclass(frozen=True)
class IterMap:
    """The result of :func:`decompose`.

    ``dims``: variables in the order given, each variable's digits outermost first (stride-0
    digits included, extent-1 digits dropped); ``offset``: the part of the index that no
    iteration variable changes; ``why``: None when the index decomposed, else the reason it
    did not (then ``dims`` is empty)."""

    index: Expr
    dims: tuple[IterDim, ...]
    offset: Expr
    sizes: tuple[tuple[Expr, Expr], ...]  # (variable, size) in the order given
    why: str | None = None

    @property
    def ok(self) -> bool:
        return self.why is None

    @property
    def extents(self) -> tuple[Expr, ...]:
        return tuple(d.extent for d in self.dims)

    @property
    def strides(self) -> tuple[Expr, ...]:
        return tuple(d.stride for d in self.dims)

    def recompose(self) -> Expr:
        """``offset + sum(stride * digit)``: equal to the index on the ranges."""
        return add(self.offset, *(mul(d.stride, d.digit) for d in self.dims))

    def coalesced(self) -> IterMap:
        """Adjacent digits of one variable merged where they chain (an outer stride equal to
        the inner stride times the inner extent, or both strides 0)."""
        out: list[IterDim] = []
        for d in self.dims:
            prev = out[-1] if out else None
            if prev is not None and prev.var is d.var and _chains(prev, d):
                out[-1] = IterDim(d.var, d.divisor, mul(prev.extent, d.extent), d.stride, prev.top)
            else:
                out.append(d)
        return IterMap(self.index, tuple(out), self.offset, self.sizes, self.why)

    def injective(self) -> bool | None:
        """True when no two points of the iteration space give the same value."""
        _require_ok(self)
        return _injective(self.dims, self.sizes)

    def bijective(self) -> bool | None:
        """True when the index is a bijection from the iteration space onto a contiguous
        range of integers (``[lo, lo + N)``, N the number of points)."""
        _require_ok(self)
        dims = [d for d in self.dims if d.stride is not _ZERO or d.extent is _ONE]
        if len(dims) != len(self.dims):
            return False
        order = _stride_order(dims)
        if order is None:
            return None
        expected: Expr = _ONE
        for d in order:
            s = d.stride
            if s is not expected and mul(-1, s) is not expected:
                return False if _numeric(s, expected) else None
            expected = mul(expected, d.extent)
        return True


def _chains(outer: IterDim, inner: IterDim) -> bool:
    if outer.stride is _ZERO and inner.stride is _ZERO:
        return True
    return outer.stride is mul(inner.stride, inner.extent) and inner.stride is not _ZERO


def _require_ok(m: IterMap) -> None:
    if not m.ok:
        raise RangeError(f"{m.index} does not decompose: {m.why}")


def _numeric(*es: Expr) -> bool:
    return all(type(e) is Integer for e in es)


def variable_sizes(ranges: Ranges, variables: Sequence[Expr]) -> list[tuple[Expr, Expr]]:
    """``(variable, size)`` for iteration variables ranging over ``[0, size)``."""
    out: list[tuple[Expr, Expr]] = []
    for v in variables:
        lo, hi = ranges.get_bounds(v)
        if lo is not _ZERO or hi is None:
            raise RangeError(
                f"iteration variable {v} needs a range [0, n), got "
                f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"
            )
        out.append((v, add(hi, 1)))
    return out


def decompose(
    index: Expr | str,
    ranges: RangesLike,
    variables: Sequence[str | Expr] | None = None,
    *,
    simplify: bool = True,
) -> IterMap:
    """Decompose ``index`` over the iteration ``variables`` (default: the ranged symbols of
    the index, in name order) into dimensions; see the module docstring.

    ``simplify=True`` first simplifies the index under ``ranges`` (so ``x - 7*(x // 7)`` is
    read as ``ModularIndexing(x, 1, 7)``).  Raises :class:`~indexalg.errors.RangeError` when a
    variable has no ``[0, n)`` range; an index that does not decompose is not an error: the
    result's ``why`` says what was wrong.
    """

    e = parse(index) if isinstance(index, str) else index
    if not isinstance(e, Expr) or e.is_bool:
        raise ExprTypeError(f"decompose() takes an integer index expression, got {index!r}")
    r = as_ranges(ranges)
    if variables is None:
        vs: list[Expr] = [s for s in e.free_symbols if s in r]
    else:
        vs = [Symbol(v) if isinstance(v, str) else v for v in variables]
    sizes = variable_sizes(r, vs)
    if simplify:
        e = _simplify(e, r)
    return _decompose(e, sizes, r)


def _fail(e: Expr, sizes: list[tuple[Expr, Expr]], why: str) -> IterMap:
    return IterMap(e, (), e, tuple(sizes), why)


def _decompose(e: Expr, sizes: list[tuple[Expr, Expr]], r: Ranges) -> IterMap:
    size_of = dict(sizes)
    offset_terms: list[Expr] = []
    # var -> {(divisor, modulus or None): stride}
    digits: dict[Expr, dict[tuple[Expr, Expr | None], Expr]] = {v: {} for v in size_of}
    if type(e) is Add:
        const: int = e.payload
        summands: tuple[Expr, ...] = e.args
    elif type(e) is Integer:
        const, summands = e.payload, ()
    else:
        const, summands = 0, (e,)
    for t in summands:
        coeff, factors = term_factors(t)
        hits = [f for f in factors if _mentions(f, size_of)]
        if not hits:
            offset_terms.append(t)
            continue
        if len(hits) > 1:
            return _fail(e, sizes, f"term {t} is not linear in the iteration variables")
        f = hits[0]
        if len(factors) == 1:
            rest = integer(coeff)
        else:
            rest = mul(coeff, *(g for g in factors if g is not f))
        dig = _digit(f, size_of, r)
        if isinstance(dig, str):
            return _fail(e, sizes, f"term {t}: {dig}")
        v, d, m = dig
        slot = digits[v]
        old = slot.get((d, m))
        slot[(d, m)] = rest if old is None else add(old, rest)
    dims: list[IterDim] = []
    for v, n in sizes:
        chain = _tile(v, n, digits[v])
        if isinstance(chain, str):
            return _fail(e, sizes, chain)
        dims.extend(chain)
    offset = add(const, *offset_terms) if offset_terms else integer(const)
    return IterMap(e, tuple(dims), offset, tuple(sizes))


def _digit(
    f: Expr, size_of: Mapping[Expr, Expr], r: Ranges
) -> tuple[Expr, Expr, Expr | None] | str:
    """(variable, divisor, modulus or None) for a digit factor, else why it is not one."""
    shape = "x, x // d, ModularIndexing(x, d, m) or x % m"
    tf = type(f)
    if tf is Symbol:
        return f, _ONE, None
    if tf not in (FloorDiv, CleanDiv, ModularIndexing, Mod):
        return f"{f} is not a digit of one iteration variable ({shape})"
    v = f.args[0]
    if v not in size_of:
        return f"{f} divides {v}, not a bare iteration variable ({shape})"
    params = f.args[1:]
    if any(_mentions(p, size_of) for p in params):
        return f"{f} has an iteration variable in its divisor or modulus"
    for p in params:
        if not _positive(p, r):
            return f"{f}: cannot show that {p} is positive"
    if tf is ModularIndexing:
        d, m = params
        if type(m) is Integer and m.payload == 1:
            return "a digit of extent 1 is always 0"
        return v, d, _clamp(v, d, m, size_of[v])
    if tf is Mod:
        m = params[0]
        if type(m) is Integer and m.payload == 1:
            return "a digit of extent 1 is always 0"
        return v, _ONE, _clamp(v, _ONE, m, size_of[v])
    return v, params[0], None


def _mentions(e: Expr, variables: Mapping[Expr, Expr]) -> bool:
    """Whether ``e`` contains one of ``variables`` (a short recursive walk)."""
    if type(e) is Symbol:
        return e in variables
    return any(_mentions(a, variables) for a in e.args)


def _clamp(v: Expr, d: Expr, m: Expr, n: Expr) -> Expr | None:
    """None (a top digit) when ``d*m`` reaches past the variable's size (numeric only)."""
    if (
        type(d) is Integer
        and type(m) is Integer
        and type(n) is Integer
        and (d.payload * m.payload >= n.payload)
    ):
        return None
    return m


def _positive(p: Expr, r: Ranges) -> bool:
    if type(p) is Integer:
        return bool(p.payload >= 1)

    lo = bounds(p, r)[0]
    return lo is not None and type(lo) is Integer and lo.payload >= 1


def _times(a: Expr, b: Expr) -> Expr:
    if type(a) is Integer and type(b) is Integer:
        return integer(a.payload * b.payload)
    return mul(a, b)


def _tile(v: Expr, n: Expr, found: Mapping[tuple[Expr, Expr | None], Expr]) -> list[IterDim] | str:
    """The digits of ``v`` outermost first, with stride-0 digits filling the gaps."""
    remaining = dict(found)
    inner_first: list[IterDim] = []
    cur: Expr = _ONE
    # Each step reads one digit (or a gap) and moves ``cur`` up, or splits the top digit
    # once at ``cur``; a step that did neither would repeat forever, so the loop is bounded
    # and gives up (no decomposition, never a wrong one) past the bound.
    budget = 4 * len(remaining) + 8
    while remaining:
        budget -= 1
        if budget < 0:
            return f"the digits of {v} could not be ordered (no progress)"
        top = (cur, None)
        if top in remaining and len(remaining) > 1:
            # v // cur == ModularIndexing(v, cur, q) + q * (v // (cur*q)): split the
            # floor division at the next digit up (x + 3*(x // 7) is 10*(x // 7) + x % 7)
            t = remaining.pop(top)
            mods = [k[1] for k in remaining if k[0] is cur]
            q: Expr
            if mods and mods[0] is not None:
                q = mods[0]
            else:
                gap = _next_gap(v, cur, remaining)
                if isinstance(gap, str):
                    return gap
                q = gap
            if type(q) is Integer and q.payload == 1:
                # splitting at an extent-1 digit would rebuild the same key
                return f"{_describe(v, (cur, q))}: a digit of extent 1 is always 0"
            low = (cur, q)
            remaining[low] = add(remaining.get(low, _ZERO), t)
            high = (mul(cur, q), None)
            remaining[high] = add(remaining.get(high, _ZERO), mul(t, q))
            continue
        here = [k for k in remaining if k[0] is cur]
        if len(here) > 1:
            return f"{v} is read through overlapping digits at divisor {cur}"
        if here:
            key = here[0]
            d, m = key
            stride = remaining.pop(key)
            if m is None:
                if remaining:
                    other = _describe(v, next(iter(remaining)))
                    return f"{other} overlaps {v} // {d}"
                ext = divide_exact(n, d)
                if ext is None:
                    return f"the size of {v} ({n}) is not a multiple of {d}: {v} // {d} is ragged"
                inner_first.append(IterDim(v, d, ext, stride, True))
                return _outer_first(inner_first)
            inner_first.append(IterDim(v, d, m, stride, False))
            cur = _times(d, m)
            continue
        gap = _next_gap(v, cur, remaining)
        if isinstance(gap, str):
            return gap
        if type(gap) is Integer and gap.payload == 1:
            return f"{v}: digits overlap at divisor {cur}"
        inner_first.append(IterDim(v, cur, gap, _ZERO, False))
        cur = _times(cur, gap)
    ext = divide_exact(n, cur)
    if ext is None:
        return f"the size of {v} ({n}) is not a multiple of {cur}, the span of its digits"
    inner_first.append(IterDim(v, cur, ext, _ZERO, True))
    return _outer_first(inner_first)


def _next_gap(v: Expr, cur: Expr, remaining: Mapping[tuple[Expr, Expr | None], Expr]) -> Expr | str:
    """The extent of the unread digit between ``cur`` and the next divisor read."""
    best: Expr | None = None
    for d, _ in remaining:
        q = divide_exact(d, cur)
        if q is None or (type(q) is Integer and q.payload < 1):
            return f"{_describe(v, (d, _))} does not start at a multiple of {cur}: digits overlap"
        if best is None or (_numeric(q, best) and q.payload < best.payload):
            best = q
        elif not _numeric(q, best) and q is not best:
            return f"cannot order the digits of {v} with symbolic divisors ({cur} then {d})"
    assert best is not None
    return best


def _describe(v: Expr, key: tuple[Expr, Expr | None]) -> str:
    d, m = key
    if m is None:
        return f"{v} // {d}"
    return f"ModularIndexing({v}, {d}, {m})"


def _outer_first(inner_first: list[IterDim]) -> list[IterDim]:
    return [d for d in reversed(inner_first) if d.extent is not _ONE]


def _stride_order(dims: Sequence[IterDim]) -> list[IterDim] | None:
    """Dimensions by ascending |stride| (None when a symbolic stride leaves it open)."""
    if all(type(d.stride) is Integer for d in dims):
        return sorted(dims, key=lambda d: abs(d.stride.payload))
    return None if len(dims) > 1 else list(dims)


def _injective(dims: Sequence[IterDim], sizes: Sequence[tuple[Expr, Expr]]) -> bool | None:
    live = [d for d in dims if d.extent is not _ONE]
    if any(d.stride is _ZERO for d in live):
        return False
    if all(_numeric(d.stride, d.extent) for d in live):
        order = sorted(live, key=lambda d: abs(d.stride.payload))
        reach = 0
        for d in order:
            if abs(d.stride.payload) <= reach:
                break
            reach += abs(d.stride.payload) * (d.extent.payload - 1)
        else:
            return True
        return _enumerate_injective(live)
    return _prove_injective(live, sizes)


def _enumerate_injective(dims: Sequence[IterDim]) -> bool | None:
    total = 1
    for d in dims:
        total *= d.extent.payload
    if total > _ENUMERATE_LIMIT:
        return None
    values = [0]
    for d in dims:
        s = d.stride.payload
        values = [b + s * k for b in values for k in range(d.extent.payload)]
    return len(set(values)) == len(values)


def _prove_injective(dims: Sequence[IterDim], sizes: Sequence[tuple[Expr, Expr]]) -> bool | None:
    """Mixed-radix test in the order given by the strides' lower bounds, by proof."""

    size_syms = {s for _, n in sizes for s in n.free_symbols}
    size_syms |= {s for d in dims for x in (d.stride, d.extent) for s in x.free_symbols}
    rng: dict[Expr, tuple[int, None]] = {s: (1, None) for s in sorted(size_syms, key=str)}

    def lower(d: IterDim) -> tuple[int, int]:
        if type(d.stride) is Integer:
            return 0, abs(d.stride.payload)
        lo = bounds(d.stride, rng)[0]
        return 1, (lo.payload if lo is not None and type(lo) is Integer else 0)

    reach: Expr = _ZERO
    for d in sorted(dims, key=lower):
        claim = (reach + 1) <= d.stride
        if prove(claim, rng).status != "proved":
            return None
        reach = add(reach, mul(d.stride, add(d.extent, -1)))
    return True
