"""Joining split dimensions: digits of one index recombined.

With s a scale (any expression), d >= 1 and m1, m2 >= 1 (literal or symbolic), for any x:
* ``s*MI(x, d, m1) + s*m1*MI(x, d*m1, m2)  ==  s*MI(x, d, m1*m2)``
* ``s*MI(x, d, m1) + s*m1*(x // (d*m1))    ==  s*(x // d)``
* ``s*(x // d) - s*m*(x // (d*m))          ==  s*MI(x, d, m)``
* ``s*x - s*c*(x // c)                     ==  s*MI(x, 1, c)``   (c > 0)
* ``s*(x // 2) + s*MI(x, 1, 2)              ==  s*((x + 1) // 2)``  (x//2 + x%2 = ceil(x/2))

(m1 may be a sum, ``(s0 - 3) // 2 + 1``: then ``s*m1*(x // (d*m1))`` was expanded into
several terms, whose scales add up to ``s*m1``.)

(MI is ModularIndexing; each is the digit identity x//d == (x//d mod m) + m*(x//(d*m)).)
So ``ModularIndexing(x,1,32) + 32*ModularIndexing(x,32,4)`` is ``ModularIndexing(x,1,128)``
and ``197*FloorDiv(x,197) + ModularIndexing(x,1,197)`` is ``x``.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd
from typing import NamedTuple

from indexalg.analysis.context import Context
from indexalg.analysis.interval import interval
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    ModularIndexing,
    Mul,
    _make_term,
    add,
    integer,
    mul,
)
from indexalg.poly import divide_exact, scaled, term_factors, term_parts
from indexalg.procedures.base import Procedure, _module_doc

__all__ = ["JOIN_PROCEDURES", "join_split_dims"]


class _Digit(NamedTuple):
    pos: int  # position of the term in the sum
    scale: Expr  # the term is scale * atom
    base: Expr  # x
    d: Expr
    m: Expr | None  # None: a floor division (no upper digit bound)
    #: d >= 1 proven (a ModularIndexing's always is, where it is defined); a floor division
    #: by d not proven positive still joins a remainder ModularIndexing(x, d0, m) with
    #: d0*m == d, whose definedness makes d positive
    positive: bool = True


def _digits(terms: tuple[Expr, ...], indices: set[Expr], ctx: Context) -> list[_Digit]:
    """Every way of reading a term as scale * digit of one of ``indices``: a term such as
    ``6*(s53 // 2)*(y // 6)`` offers both floor divisions, since either may be the digit
    and the other part of the scale."""
    out: list[_Digit] = []
    for i, t in enumerate(terms):
        coeff, factors = term_factors(t)
        for j, f in enumerate(factors):
            tf = type(f)
            if j and f is factors[j - 1]:
                continue  # a repeated factor offers the same reading
            if (tf is ModularIndexing or tf is FloorDiv) and f.args[0] in indices:
                if len(factors) == 1:
                    scale = integer(coeff)  # what mul() of the coefficient alone gives
                elif len(factors) == 2:
                    scale = scaled(coeff, factors[1 - j])
                else:
                    scale = mul(coeff, *factors[:j], *factors[j + 1 :])
                if tf is ModularIndexing:
                    out.append(_Digit(i, scale, f.args[0], f.args[1], f.args[2]))
                else:
                    positive = _positive(f.args[1], ctx)
                    out.append(_Digit(i, scale, f.args[0], f.args[1], None, positive))
    return out


_ONE = Integer(1)
_TWO = Integer(2)


def _positive(q: Expr, ctx: Context) -> bool:
    if type(q) is Integer:
        return bool(q.payload > 0)
    return interval(q, ctx)[0] >= 1


def _plain_terms(terms: tuple[Expr, ...]) -> dict[Expr, tuple[int, int]]:
    """monomial -> (index, coefficient) for every term."""
    out: dict[Expr, tuple[int, int]] = {}
    for i, t in enumerate(terms):
        if type(t) is Mul:
            out[_make_term(1, t.args)] = (i, t.payload)
        else:
            out[t] = (i, 1)
    return out


def _rebuild(e: Expr, drop: tuple[int, ...], extra: Expr) -> Expr:
    keep = [t for i, t in enumerate(e.args) if i not in drop]
    return add(e.payload, extra, *keep)


#: From this many digit readings on, the searches take their candidates from tables keyed by
#: what a pair must share; below it every pair is tried (cheaper than building the tables).
_TABLES_FROM = 12


def _by_key(digits: list[_Digit], key: Callable[[_Digit], object]) -> dict[object, list[_Digit]]:
    """The digits grouped by ``key`` (None: left out), each group in the digits' order."""
    out: dict[object, list[_Digit]] = {}
    for g in digits:
        k = key(g)
        if k is not None:
            out.setdefault(k, []).append(g)
    return out


def _ratio_key(g: _Digit, sign: int = 1) -> tuple[Expr, Expr | None, int, int] | None:
    """For a floor division ``c*mono*(x // d)`` with a literal d and a scale that is not a
    sum: (x, mono, sign*c/d as a reduced fraction p, q with q > 0).
    ``s*(x // d) - s*m*(x // (d*m))`` needs the upper digit's c'/d' to be minus the lower's
    c/d (c' = -m*c, d' = m*d), so equal keys (``sign=-1`` for the upper digit) are necessary
    for a pair; a sum as scale (``mul`` distributes over it) or a symbolic d has no key."""
    d, scale = g.d, g.scale
    if type(d) is not Integer or not d.payload or type(scale) is Add:
        return None
    if type(scale) is Integer:
        c, mono = scale.payload, None
    else:
        c, mono = term_parts(scale)
    num, den = sign * c, d.payload
    if den < 0:
        num, den = -num, -den
    k = gcd(num, den)
    return g.base, mono, num // k, den // k


def _pairable(terms: tuple[Expr, ...]) -> set[Expr]:
    """The indices a join below can pair, read without building a node: those with a
    ModularIndexing digit and another reading, those with floor divisions by two divisors
    (by one divisor the pair's scales would be opposite, and its two terms one monomial),
    and those of a floor division that are the monomial of a term (``s*x`` with
    ``s*c*(x // c)``).  A digit of any other index pairs with nothing, and reading it would
    build its scale."""
    readings: dict[Expr, int] = {}
    remainders: set[Expr] = set()
    floors: dict[Expr, set[Expr]] = {}  # index -> the divisors of its floor divisions
    for t in terms:
        for f in term_factors(t)[1]:
            tf = type(f)
            if tf is ModularIndexing:
                remainders.add(f.args[0])
            elif tf is FloorDiv:
                floors.setdefault(f.args[0], set()).add(f.args[1])
            else:
                continue
            readings[f.args[0]] = readings.get(f.args[0], 0) + 1
    out = {x for x in remainders if readings[x] > 1}
    out.update(x for x, divisors in floors.items() if len(divisors) > 1)
    if floors:
        monomials = {term_factors(t)[1] for t in terms}
        for x in floors:
            c, factors = term_factors(x)
            if c == 1 and factors in monomials:
                out.add(x)
    return out


def _has_digit(terms: tuple[Expr, ...]) -> bool:
    """Whether a term has a ModularIndexing or FloorDiv factor (a reading for
    :func:`_pairable`), read without building anything."""
    for t in terms:
        if type(t) is Mul:
            for f in t.args:
                if type(f) is ModularIndexing or type(f) is FloorDiv:
                    return True
        elif type(t) is ModularIndexing or type(t) is FloorDiv:
            return True
    return False


def _product(a: Expr, b: Expr) -> Expr:
    """``mul(a, b)``; two literals multiplied directly (the literal mul gives)."""
    if type(a) is Integer and type(b) is Integer:
        return integer(a.payload * b.payload)
    return mul(a, b)


def _another_of(digits: list[_Digit], g: _Digit, d: Expr | None = None) -> bool:
    """Whether a reading of another term has the base of ``g`` (and the divisor ``d``,
    where one is given)."""
    for h in digits:
        if h.pos != g.pos and h.base is g.base and (d is None or h.d is d):
            return True
    return False


def join_split_dims(e: Expr, ctx: Context) -> Expr | None:
    # Every search below is "the first lo, then the first hi that pairs with it" over the
    # digits in order.  In a long sum the candidates come from tables keyed by what a pair
    # must share (the checks stay the same), so a sum of n terms costs O(n), not O(n^2): the
    # same pair is found, and a 10,000-term sum no longer takes minutes.
    terms = e.args
    if not _has_digit(terms):
        return None
    indices = _pairable(terms)
    if not indices:
        return None
    digits = _digits(terms, indices, ctx)
    big = len(digits) >= _TABLES_FROM
    joined_upper = _join_upper_digit(e, digits, big)
    if joined_upper is not None:
        return joined_upper
    floors = _by_key(digits, lambda g: (g.base, g.d) if g.m is None else None) if big else None
    joined_sum = _join_sum_modulus(e, digits, floors)
    if joined_sum is not None:
        return joined_sum
    digits = [g for g in digits if g.positive]
    # s*(x // 2) + s*MI(x, 1, 2) == s*((x + 1) // 2): the two halves of an interleave
    halves = (
        _by_key(digits, lambda g: (g.base, g.scale) if g.m is None and g.d is _TWO else None)
        if big
        else None
    )
    for lo in digits:
        if lo.m is not _TWO or lo.d is not _ONE:
            continue
        for hi in digits if halves is None else halves.get((lo.base, lo.scale), []):
            if hi.m is None and hi.d is _TWO and hi.base is lo.base and hi.scale is lo.scale:
                joined = FloorDiv.make(add(lo.base, 1), 2)
                return _rebuild(e, (lo.pos, hi.pos), mul(lo.scale, joined))
    # s*(x // d) - s*m*(x // (d*m)) == s*MI(x, d, m); s*x - s*c*(x // c) == s*MI(x, 1, c)
    plain: dict[Expr, tuple[int, int]] | None = None  # built at its first use
    same_base: dict[object, list[_Digit]] | None = None
    by_ratio: dict[object, list[_Digit]] | None = None
    if big:
        lowers = [g for g in digits if g.m is None]
        same_base = _by_key(lowers, lambda g: g.base)
        by_ratio = _by_key(lowers, _ratio_key)
    for hi in digits:
        if hi.m is not None:
            continue
        los = digits
        if same_base is not None and by_ratio is not None:
            # a pair's lower digit has a literal divisor and a scale that is not a sum too
            # (x // d' by a literal d' has no literal multiple of a symbolic d)
            key = _ratio_key(hi, -1)
            los = same_base.get(hi.base, []) if key is None else by_ratio.get(key, [])
        for lo in los:
            if lo.pos == hi.pos or lo.m is not None or lo.base is not hi.base:
                continue
            m = divide_exact(hi.d, lo.d)
            if m is None or interval(m, ctx)[0] < 1:
                continue
            if hi.scale is mul(-1, lo.scale, m):
                mi = ModularIndexing.make(lo.base, lo.d, m)
                return _rebuild(e, (lo.pos, hi.pos), mul(lo.scale, mi))
        if type(hi.d) is not Integer:
            continue
        if plain is None:
            plain = _plain_terms(terms)
        hit = plain.get(hi.base)
        if hit is not None:
            i, c = hit
            if hi.scale is mul(-c, hi.d):
                mi = ModularIndexing.make(hi.base, 1, hi.d)
                return _rebuild(e, (i, hi.pos), mul(c, mi))
    return None


def _join_upper_digit(e: Expr, digits: list[_Digit], big: bool) -> Expr | None:
    """``s*MI(x, d, m1) + s*m1*MI(x, d*m1, m2) == s*MI(x, d, m1*m2)`` and
    ``s*MI(x, d, m1) + s*m1*(x // (d*m1)) == s*(x // d)``: the first lower digit, then the
    first upper one that pairs with it."""
    by_upper = _by_key(digits, lambda g: (g.base, g.d, g.scale)) if big else None
    for lo in digits:
        if lo.m is None:
            continue
        if by_upper is None and not _another_of(digits, lo):
            continue  # no candidate passes the first test below: build no upper digit
        upper_d = _product(lo.d, lo.m)
        if by_upper is None and not _another_of(digits, lo, upper_d):
            continue  # nor one with the upper divisor: build no upper scale
        upper_scale = mul(lo.scale, lo.m)
        his = digits if by_upper is None else by_upper.get((lo.base, upper_d, upper_scale), [])
        for hi in his:
            if hi.pos == lo.pos or hi.base is not lo.base or hi.d is not upper_d:
                continue
            if hi.scale is not upper_scale:
                continue
            if hi.m is None:
                joined = FloorDiv.make(lo.base, lo.d)
            else:
                joined = ModularIndexing.make(lo.base, lo.d, mul(lo.m, hi.m))
            return _rebuild(e, (lo.pos, hi.pos), mul(lo.scale, joined))
    return None


def _join_sum_modulus(
    e: Expr, digits: list[_Digit], floors: dict[object, list[_Digit]] | None
) -> Expr | None:
    """``s*MI(x, d, m) + s*m*(x // (d*m)) == s*(x // d)`` for a sum ``m`` (a divisor such
    as ``(s0 - 3) // 2 + 1``): the product ``s*m*(x // (d*m))`` was expanded into several
    terms, one digit reading each, whose scales add up to ``s*m``."""
    for lo in digits:
        if lo.m is None or type(lo.m) is not Add:
            continue
        upper_d = mul(lo.d, lo.m)
        cands = digits if floors is None else floors.get((lo.base, upper_d), [])
        his = [
            hi
            for hi in cands
            if hi.m is None and hi.base is lo.base and hi.d is upper_d and hi.pos != lo.pos
        ]
        if not his or add(*(hi.scale for hi in his)) is not mul(lo.scale, lo.m):
            continue
        whole = lo.base if lo.d is _ONE else FloorDiv.make(lo.base, lo.d)
        return _rebuild(e, (lo.pos, *(hi.pos for hi in his)), mul(lo.scale, whole))
    return None


JOIN_PROCEDURES = (Procedure("join_split_dims", (Add,), join_split_dims, _module_doc(__name__)),)
