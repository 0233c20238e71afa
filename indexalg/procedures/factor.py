"""Divisions that share structure with their operands: nested divisions merged across a
sum, common factors cancelled, a remainder of a multiple scaled out, ceiling divisions that
cancel floor divisions.

The math, for integers and ``w > 0``:

* ``floor(x/y) + z == floor((x + y*z) / y)`` for any ``y != 0``, and
  ``floor(floor(X/y) / w) == floor(X / (y*w))``; so ``(x // y + z) // w == (x + y*z) // (y*w)``
  (TVM merges these; pulling the constant out of the inner division first, as
  ``(y + 6) // 3 // 7 -> (y // 3 + 2) // 7``, would lose the merge).  The same with
  ModularIndexing's division for ``y > 0``.
* ``(g*A) // (g*B) == A // B``, ``ceil(g*A / (g*B)) == ceil(A / B)`` and
  ``(g*A) mod (g*B) == g * (A mod B)`` for any ``g != 0`` (a literal or a common factor).
* ``(c*A) mod m == c * (A mod (m/c))`` for ``c > 0`` dividing ``m``: a remainder of a
  multiple keeps only the digits above ``c``.
* ``ceil(b/d) == -floor(-b/d)`` (and ``== -floor(b/-d)`` for a negative literal ``d``): a
  ceiling division beside the floor division it negates cancels it.

Each procedure fires only when it removes a division or (the remainder scaling) shrinks a
modulus, so the rewriting terminates.
"""

from __future__ import annotations

from math import gcd

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.analysis.interval import interval
from indexalg.expr import (
    Add,
    CeilDiv,
    Expr,
    FloorDiv,
    Integer,
    Lt,
    Mod,
    ModularIndexing,
    Mul,
    add,
    integer,
    mul,
)
from indexalg.poly import divide_exact, division_count, has_term_of, split_terms, term_factors
from indexalg.procedures.base import Procedure

__all__ = ["FACTOR_PROCEDURES"]

_ONE = integer(1)


def _inner_division(
    a: Expr, ctx: Context, *, remainders: bool = True
) -> tuple[Expr, Expr, Expr] | None:
    """``a == x // y + z`` (a coefficient-1 floor division term, or ``a`` itself): (x, y, z).
    A ceiling division ``CeilDiv(b, y)`` with ``y > 0`` counts as ``(b + y - 1) // y``, and
    (with ``remainders``) a term ``ModularIndexing(b, d, m)`` with ``d > 1`` beside others
    as ``ModularIndexing(b, 1, d*m) // d`` (``(b // d) mod m == (b mod d*m) // d``: TVM's
    ``(x % 16 + 6) // 16`` for ``(ModularIndexing(x, 2, 8) + 3) // 8``)."""
    if type(a) is Add:
        kinds: tuple[type[Expr], ...] = (FloorDiv, CeilDiv)
        if remainders:
            kinds = (FloorDiv, CeilDiv, ModularIndexing)
        candidates = [(i, t) for i, t in enumerate(a.args) if type(t) in kinds]
    elif type(a) in (FloorDiv, CeilDiv):
        candidates = [(-1, a)]
    else:
        return None
    for i, t in candidates:
        if type(t) is ModularIndexing:
            b, d, m = t.args
            if d is _ONE or not _positive(d, ctx):
                continue
            x, y = ModularIndexing.make(b, 1, mul(d, m)), d
        else:
            x, y = t.args
        if type(t) is CeilDiv:
            if not _positive(y, ctx):
                continue
            x = add(x, y, -1)
        if i < 0:
            return x, y, integer(0)
        return x, y, add(a.payload, *(u for j, u in enumerate(a.args) if j != i))
    return None


def _inner_ceildiv(a: Expr) -> tuple[Expr, Expr, Expr] | None:
    """``a == CeilDiv(x, y) + z`` (a coefficient-1 term, or ``a`` itself): (x, y, z)."""
    if type(a) is CeilDiv:
        return a.args[0], a.args[1], integer(0)
    if type(a) is Add:
        for i, t in enumerate(a.args):
            if type(t) is CeilDiv:
                rest = add(a.payload, *(u for j, u in enumerate(a.args) if j != i))
                return t.args[0], t.args[1], rest
    return None


def merge_nested_division(e: Expr, ctx: Context) -> Expr | None:
    """``(x // y + z) // w -> (x + y*z) // (y*w)`` for ``w > 0``; in ModularIndexing,
    ``ModularIndexing(x // y + z, d, m) -> ModularIndexing(x + y*z, y*d, m)`` for ``y > 0``;
    ``CeilDiv(CeilDiv(x, y) + z, w) -> CeilDiv(x + y*z, y*w)`` for ``w > 0`` (the mirror
    image, ``ceil(v) == -floor(-v)``) and ``CeilDiv(x // y + z, w) -> (x + y*(z + w - 1)) //
    (y*w)``.  An inner ``CeilDiv(b, y)`` with ``y > 0`` is
    ``(b + y - 1) // y`` for the floor forms, an inner ``ModularIndexing(b, d, m)`` beside
    other terms ``ModularIndexing(b, 1, d*m) // d``."""
    t = type(e)
    if t is CeilDiv:
        w = e.args[1]
        inner = _inner_ceildiv(e.args[0])
        if inner is None:
            return _ceildiv_of_floordiv(e.args[0], w, ctx)
        if not _positive(w, ctx):
            return None
        x, y, z = inner
        return CeilDiv.make(add(x, mul(y, z)), mul(y, w))
    # an inner remainder pays only where the outer division divides (not MI(., 1, m))
    found = _inner_division(
        e.args[0], ctx, remainders=t is not ModularIndexing or e.args[1] is not _ONE
    )
    if found is None:
        return None
    x, y, z = found
    if t is FloorDiv:
        w = e.args[1]
        if not _positive(w, ctx):
            return None
        return FloorDiv.make(add(x, mul(y, z)), mul(y, w))
    _, d, m = e.args
    if not _positive(y, ctx):
        return None
    return ModularIndexing.make(add(x, mul(y, z)), mul(y, d), m)


def _ceildiv_of_floordiv(a: Expr, w: Expr, ctx: Context) -> Expr | None:
    """``CeilDiv(x // y + z, w) -> (x + y*(z + w - 1)) // (y*w)`` for ``w > 0``: a ceiling
    division by a positive ``w`` is ``(a + w - 1) // w``, and the floor divisions merge
    (``CeilDiv(x // 3 + 1, 16) -> (x + 48) // 48``, then ``x // 48 + 1``)."""
    found = _inner_division(a, ctx)
    if found is None or not _positive(w, ctx):
        return None
    x, y, z = found
    return FloorDiv.make(add(x, mul(y, add(z, w, -1))), mul(y, w))


def _positive(v: Expr, ctx: Context) -> bool:
    if type(v) is Integer:
        return bool(v.payload > 0)
    return decide_in(Lt.make(integer(0), v), ctx) is True


def _common_factor(a: Expr, b: Expr) -> Expr | None:
    """The largest monomial (positive integer content times the factors every term shares)
    dividing both ``a`` and ``b``; None when it is 1."""
    ta, ca = _terms(a)
    tb, cb = _terms(b)
    terms = ta + tb
    g = gcd(ca, cb, *(term_factors(t)[0] for t in terms))
    shared: list[Expr] | None = None
    if ca == 0 and cb == 0 and terms:
        for t in terms:
            factors = list(term_factors(t)[1])  # the factors of the term's monomial
            if shared is None:
                shared = factors
                continue
            kept = []
            for f in shared:
                if f in factors:
                    factors.remove(f)
                    kept.append(f)
            shared = kept
    monomial = mul(g, *(shared or ()))
    if g == 0 or monomial is integer(1) or monomial is integer(-1):
        return None
    return monomial


def _terms(e: Expr) -> tuple[tuple[Expr, ...], int]:
    """The terms and the constant of ``e`` as they are (what ``split_terms`` splits)."""
    if type(e) is Integer:
        return (), e.payload
    if type(e) is Add:
        return e.args, e.payload
    return (e,), 0


def _content(e: Expr) -> tuple[int, int]:
    """(gcd of the term coefficients, constant) of ``e``, read without splitting terms."""
    if type(e) is Integer:
        return 0, e.payload
    if type(e) is Add:
        g = 0
        for t in e.args:
            g = gcd(g, t.payload if type(t) is Mul else 1)
        return g, e.payload
    return abs(e.payload) if type(e) is Mul else 1, 0


def cancel_common_factor(e: Expr, ctx: Context) -> Expr | None:
    """``(g*A) // (g*B) -> A // B`` (also CeilDiv) and ``(g*A) mod (g*B) -> g*(A mod B)``."""
    a, b = e.args
    ga, ca = _content(a)
    gb, cb = _content(b)
    if gcd(ga, gb, ca, cb) == 1 and (ca != 0 or cb != 0):
        # :func:`_common_factor` would find content 1 and, with a constant, no shared factor
        return None
    g = _common_factor(a, b)
    if g is None:
        return None
    na, nb = divide_exact(a, g), divide_exact(b, g)
    if na is None or nb is None:
        return None
    if type(e) is Mod:
        return mul(g, Mod.make(na, nb))
    if type(e) is CeilDiv:
        return CeilDiv.make(na, nb)
    return FloorDiv.make(na, nb)


def scale_out_remainder(e: Expr, ctx: Context) -> Expr | None:
    """``ModularIndexing(c*A, 1, m) -> c*ModularIndexing(A, 1, m/c)`` for a literal
    ``m`` and the positive content ``c`` of ``A`` dividing it; and with a low part
    ``0 <= B < c``, ``ModularIndexing(c*A + B, 1, m) -> c*ModularIndexing(A, 1, m/c) + B``
    (the low digits pass through: a vector lane ``b < 16`` of ``16*a + b`` mod 48)."""
    a, d, m = e.args
    if d is not integer(1) or type(m) is not Integer:
        return None
    terms, const = split_terms(a)
    mv: int = m.payload
    c = gcd(gcd(const, *(k for k, _ in terms)), mv)
    if c > 1:
        inner = divide_exact(a, integer(c))
        if inner is None:
            return None
        return mul(c, ModularIndexing.make(inner, integer(1), integer(mv // c)))
    return _split_low_digits(terms, const, mv, ctx)


def _split_low_digits(
    terms: list[tuple[int, Expr]], const: int, m: int, ctx: Context
) -> Expr | None:
    for c in sorted({gcd(k, m) for k, _ in terms}, reverse=True):
        if c <= 1:
            break
        high = [(k // c, t) for k, t in terms if k % c == 0]
        low = add(const, *(mul(k, t) for k, t in terms if k % c != 0))
        if not high:
            continue
        lo, hi = interval(low, ctx)
        if lo >= 0 and hi < c:
            inner = add(*(mul(k, t) for k, t in high))
            return add(mul(c, ModularIndexing.make(inner, integer(1), integer(m // c))), low)
    return None


def cancel_ceil_floor(e: Expr, ctx: Context) -> Expr | None:
    """A sum's ``k*CeilDiv(b, d)`` written as ``-k*FloorDiv(-b, d)`` (``-k*FloorDiv(b, -d)``
    for a negative literal ``d``) where that cancels another term's division, or as
    ``k*FloorDiv(b + d - 1, d)`` for a literal ``d > 0`` where the sum holds a floor
    division ``b2 // d`` with ``b + d - 1 - b2`` a multiple ``q*d`` of ``d``: the term becomes
    ``k*(b2 // d + q)`` and meets the other (``CeilDiv(x, 8) - (x + 7) // 8 == 0``)."""
    if not has_term_of(e, (CeilDiv,)):
        return None  # the loop below reads only a multiple of one CeilDiv
    before = -1
    for i, t in enumerate(e.args):
        k, factors = term_factors(t)
        if len(factors) != 1 or type(factors[0]) is not CeilDiv:
            continue
        if before < 0:
            before = division_count(e)
        b, d = factors[0].args
        rest = tuple(u for j, u in enumerate(e.args) if j != i)
        if type(d) is Integer and d.payload < 0:
            floor = FloorDiv.make(b, integer(-d.payload))
        else:
            floor = FloorDiv.make(mul(-1, b), d)
        out = add(e.payload, mul(-k, floor), *rest)
        if division_count(out) < before:
            return out
        if type(d) is Integer and d.payload > 0:
            met = _meeting_floordiv(add(b, d.payload - 1), d.payload, rest)
            if met is not None:
                floor2, q = met
                return add(e.payload, mul(k, floor2), k * q, *rest)
    return None


def _meeting_floordiv(num: Expr, d: int, terms: tuple[Expr, ...]) -> tuple[Expr, int] | None:
    """A term's floor division ``b2 // d`` with ``num - b2 == q*d``: (that division, q)."""
    for t in terms:
        factors = term_factors(t)[1]
        if len(factors) != 1 or type(factors[0]) is not FloorDiv:
            continue
        b2, d2 = factors[0].args
        if type(d2) is not Integer or d2.payload != d:
            continue
        delta = add(num, mul(-1, b2))
        if type(delta) is Integer and delta.payload % d == 0:
            return factors[0], delta.payload // d
    return None


FACTOR_PROCEDURES = (
    Procedure("merge_nested_division", (FloorDiv, ModularIndexing, CeilDiv), merge_nested_division),
    Procedure("cancel_common_factor", (FloorDiv, CeilDiv, Mod), cancel_common_factor),
    Procedure("scale_out_remainder", (ModularIndexing,), scale_out_remainder),
    Procedure("cancel_ceil_floor", (Add,), cancel_ceil_floor),
)
