"""Min/Max algebra: absorption, distribution, common terms, division, sums and products.

On a Min (Max is the mirror image, Min and Max swapped):

* absorption: ``Min(a, Max(a, b), ...)`` drops the Max (it is at least ``a``);
* factoring: ``Min(Max(s, a), Max(s, b))`` is ``Max(s, Min(a, b))`` (a distributive lattice);
* common terms: ``Min(t + a, t + b)`` is ``t + Min(a, b)`` for a term or constant ``t`` in
  every argument; ``Min(-a, -b)`` is ``-Max(a, b)`` where that is smaller;
* division: ``Min(a // c, b // c)`` is ``Min(a, b) // c`` for ``c > 0`` and
  ``Max(a, b) // c`` for ``c < 0`` (floor division is monotone in its dividend).

On a sum: ``Min(a, b) + Max(a, b)`` is ``a + b``, and a term ``±Min(...)`` takes the rest of
the sum into its arguments where that is smaller (``Min(x, y - z) + z`` is ``Min(x + z, y)``;
``x - Max(x + y, 0)`` is ``Min(-y, x)``).  On a product: ``Min(a, b)*Max(a, b)`` is ``a*b``.
Every result measures less than its input (:func:`~indexalg.procedures.size.size`).
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    Lt,
    Max,
    Min,
    Mul,
    add,
    mul,
)
from indexalg.poly import has_term_of, split_terms, term_parts
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.size import size

__all__ = ["MINMAX_PROCEDURES"]


def _dual(cls: type[Expr]) -> type[Expr]:
    return Max if cls is Min else Min


def _make(cls: type[Expr], args: list[Expr]) -> Expr:
    return Min.make(*args) if cls is Min else Max.make(*args)


def _smaller(e: Expr, out: Expr | None) -> Expr | None:
    if out is None or out is e or size(out) >= size(e):
        return None
    return out


def minmax_algebra(e: Expr, ctx: Context) -> Expr | None:
    """Absorption, factoring, common terms and division on a Min or Max node."""
    for step in (_absorb, _factor, _common_terms, _negate, _through_division):
        out = _smaller(e, step(e, ctx))
        if out is not None:
            return out
    return None


def _absorb(e: Expr, ctx: Context) -> Expr | None:
    dual = _dual(type(e))
    args = e.args
    keep = [a for a in args if not (type(a) is dual and any(b in a.args for b in args))]
    return _make(type(e), keep) if len(keep) < len(args) else None


def _factor(e: Expr, ctx: Context) -> Expr | None:
    dual = _dual(type(e))
    if not all(type(a) is dual for a in e.args):
        return None
    common = [s for s in e.args[0].args if all(s in a.args for a in e.args[1:])]
    if not common:
        return None
    if any(all(s in common for s in a.args) for a in e.args):
        return _make(dual, common)  # Min(Max(S), Max(S, A)) is Max(S)
    rests = [_make(dual, [s for s in a.args if s not in common]) for a in e.args]
    return _make(dual, [*common, _make(type(e), rests)])


def _common_terms(e: Expr, ctx: Context) -> Expr | None:
    split = [split_terms(a) for a in e.args]
    shared = [t for t in split[0][0] if all(t in terms for terms, _ in split[1:])]
    consts = {c for _, c in split}
    const = consts.pop() if len(consts) == 1 else 0
    if not shared and const == 0:
        return None
    pulled = add(const, *(mul(c, m) for c, m in shared))
    return add(pulled, _make(type(e), [add(a, mul(-1, pulled)) for a in e.args]))


def _negate(e: Expr, ctx: Context) -> Expr | None:
    return mul(-1, _make(_dual(type(e)), [mul(-1, a) for a in e.args]))


def _through_division(e: Expr, ctx: Context) -> Expr | None:
    args = e.args
    if not all(type(a) is FloorDiv for a in args):
        return None
    c = args[0].args[1]
    if any(a.args[1] is not c for a in args):
        return None
    if type(c) is Integer:
        positive: bool | None = c.payload > 0
    else:
        positive = decide_in(Lt.make(0, c), ctx)
        if positive is None:
            negative = decide_in(Lt.make(c, 0), ctx)
            positive = None if negative is None else not negative
    if positive is None:
        return None
    cls = type(e) if positive else _dual(type(e))
    return FloorDiv.make(_make(cls, [a.args[0] for a in args]), c)


def minmax_in_sum(e: Expr, ctx: Context) -> Expr | None:
    """``Min(a, b) + Max(a, b)``, and a ``±Min/Max`` term absorbing the rest of the sum."""
    if not has_term_of(e, (Min, Max)):
        return None
    terms = [term_parts(t) for t in e.args]
    for i, (c, m) in enumerate(terms):
        if type(m) is not Min or len(m.args) != 2:
            continue
        for j, (c2, m2) in enumerate(terms):
            if type(m2) is Max and c2 == c and m2.args == m.args:
                others = [mul(k, t) for n, (k, t) in enumerate(terms) if n not in (i, j)]
                return add(e.payload, *others, mul(c, add(*m.args)))
    shifted = _shifted_pair(e, terms)
    if shifted is not None:
        return shifted
    best: Expr | None = None
    for i, (c, m) in enumerate(terms):
        if c not in (1, -1) or type(m) not in (Min, Max):
            continue
        rest = add(e.payload, *(mul(k, t) for n, (k, t) in enumerate(terms) if n != i))
        cls = type(m) if c == 1 else _dual(type(m))
        cand = _make(cls, [add(rest, mul(c, a)) for a in m.args])
        if size(cand) < size(e) and (best is None or size(cand) < size(best)):
            best = cand
    return best


def _shifted_pair(e: Expr, terms: list[tuple[int, Expr]]) -> Expr | None:
    """``k*Min(a + s, b + s) - k*Min(a, b)`` is ``k*s``: two Min (or Max) terms of opposite
    coefficients whose arguments differ pairwise by one constant."""
    for i, (c, m) in enumerate(terms):
        if type(m) not in (Min, Max):
            continue
        for j, (c2, m2) in enumerate(terms):
            if j == i or c2 != -c or type(m2) is not type(m) or len(m2.args) != len(m.args):
                continue
            shift = _common_shift(m.args, m2.args)
            if shift is not None:
                rest = [mul(k, t) for n, (k, t) in enumerate(terms) if n not in (i, j)]
                return add(e.payload, *rest, c * shift)
    return None


def _common_shift(xs: tuple[Expr, ...], ys: tuple[Expr, ...]) -> int | None:
    """The constant s with ``{x - s for x in xs} == set(ys)``, or None."""
    shift: int | None = None
    left = list(ys)
    for x in xs:
        for y in left:
            d = add(x, mul(-1, y))
            if type(d) is Integer and (shift is None or d.payload == shift):
                shift = d.payload
                left.remove(y)
                break
        else:
            return None
    return shift


def minmax_product(e: Expr, ctx: Context) -> Expr | None:
    """``Min(a, b)*Max(a, b)`` is ``a*b``."""
    for m in e.args:
        if type(m) is Min:
            break
    else:
        return None  # no Min factor (the common product)
    args = list(e.args)
    for i, m in enumerate(args):
        if type(m) is not Min or len(m.args) != 2:
            continue
        for j, m2 in enumerate(args):
            if type(m2) is Max and m2.args == m.args:
                rest = [a for n, a in enumerate(args) if n not in (i, j)]
                return mul(e.payload, *rest, *m.args)
    return None


MINMAX_PROCEDURES = (
    Procedure("minmax_algebra", (Min, Max), minmax_algebra, _module_doc(__name__)),
    Procedure("minmax_in_sum", (Add,), minmax_in_sum, _module_doc(__name__)),
    Procedure("minmax_product", (Mul,), minmax_product, _module_doc(__name__)),
)
