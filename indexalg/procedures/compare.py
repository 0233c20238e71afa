"""Comparisons in one linear normal form, and comparisons solved through ``//`` and Min/Max.

A comparison ``a < b``, ``a <= b``, ``a == b``, ``a != b`` is read as ``P >= k`` (``P == k``)
with ``P`` the terms of ``b - a`` and ``k`` an integer (integers: ``a < b`` is
``b - a >= 1``).  :func:`linear_form` divides ``P`` by the gcd of its coefficients (rounding
``k`` up for an inequality; an equality whose constant the gcd does not divide is False),
and drops a bounded small part ``R`` of ``P`` when every value of ``R`` gives the same bound
on the rest (``8*x + y < 16`` with ``0 <= y <= 7`` is ``x <= 1``).  The claim is then
written back with the negative terms on the left and the positive ones on the right, the
constant on the side where it is positive (``Lt(L, R)`` when ``k`` is 1).

:func:`solve_through_floordiv` isolates the dividend of a lone ``e // c`` (``c > 0``):
``e // c >= k`` is ``e >= c*k`` and ``e // c <= k`` is ``e < c*(k + 1)``; an equality
becomes the range ``c*k <= e < c*(k + 1)`` when the ranges decide one of its two sides
(PyTorch's ``try_solve``: ``(a + 10) // 3 == 3`` with ``a >= 1`` is ``a < 2``).
:func:`split_minmax_comparison` distributes a comparison over a Min or Max side into
And/Or and keeps it only when the ranges decide every part but one.
"""

from __future__ import annotations

from math import gcd

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.analysis.interval import interval
from indexalg.expr import (
    Add,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Ne,
    add,
    false,
    mul,
    true,
)
from indexalg.poly import split_terms
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.floors import without_floors

__all__ = ["COMPARE_PROCEDURES", "linear_form", "claim_from_form", "Form"]

#: (terms, kind, k): the claim ``sum(c*m) >= k`` (kind "ge") or ``== k`` (kind "eq").
Form = tuple[tuple[tuple[int, Expr], ...], str, int]

#: The most terms of a bounded part tried when tightening a bound.
_MAX_TERMS = 8


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


def raw_form(e: Expr) -> Form | None:
    """``e`` (a comparison) as ``P >= k`` or ``P == k`` (``Ne``: the form of its negation),
    before any division; None for other claims or a constant difference."""
    t = type(e)
    if t not in (Lt, Le, Eq, Ne):
        return None
    a, b = e.args
    terms, const = split_terms(without_floors(add(b, mul(-1, a))))
    if not terms:
        return None
    if t is Lt or t is Le:
        return tuple(terms), "ge", (1 if t is Lt else 0) - const
    return tuple(terms), "eq", -const


def linear_form(e: Expr, ctx: Context) -> Form | bool | None:
    """The normal form of the comparison ``e`` (see the module docstring): a :data:`Form`,
    or True / False when dividing decides it (``2*x == 3``), or None for other claims."""
    raw = raw_form(e)
    if raw is None:
        return None
    terms, kind, k = raw
    g = 0
    for c, _ in terms:
        g = gcd(g, c)
    if kind == "eq":
        if k % g:
            return type(e) is Ne
        return tuple((c // g, m) for c, m in terms), "eq", k // g
    terms, k = tuple((c // g, m) for c, m in terms), _ceil_div(k, g)
    return _unit_coefficients(_tighten(terms, k, ctx), ctx)


def _unit_coefficients(form: Form, ctx: Context) -> Form:
    """Non-negative terms of one sign: ``3*a + 4*b >= k`` with ``1 <= k <= 3`` holds when
    some term is at least 1, as ``a + b >= 1`` does (and ``-3*a - 4*b >= k`` with
    ``-3 < k <= 0`` when every term is 0, as ``-a - b >= 0``) -- tinygrad's simplex rule."""
    terms, kind, k = form
    if len(terms) < 2 or all(abs(c) == 1 for c, _ in terms):
        return form
    signs = {c > 0 for c, _ in terms}
    if len(signs) != 1 or any(interval(m, ctx)[0] < 0 for _, m in terms):
        return form
    least = min(abs(c) for c, _ in terms)
    if signs == {True} and 1 <= k <= least:
        return tuple((1, m) for _, m in terms), kind, 1
    if signs == {False} and -least < k <= 0:
        return tuple((-1, m) for _, m in terms), kind, 0
    return form


def _tighten(terms: tuple[tuple[int, Expr], ...], k: int, ctx: Context) -> Form:
    """``P >= k`` with a bounded part of P dropped where every value it takes gives the same
    bound on the rest (the largest such divisor G first)."""
    if len(terms) < 2 or len(terms) > _MAX_TERMS:
        return terms, "ge", k
    for big in sorted({abs(c) for c, _ in terms if abs(c) > 1}, reverse=True):
        whole = [(c, m) for c, m in terms if c % big == 0]
        rest = [(c, m) for c, m in terms if c % big != 0]
        if not whole or not rest:
            continue
        lo, hi = interval(add(*(mul(c, m) for c, m in rest)), ctx)
        if type(lo) is not int or type(hi) is not int:
            continue
        # G*Q + R >= k  <=>  Q >= ceil((k - R)/G): the same for every R in [lo, hi]?
        bound = _ceil_div(k - hi, big)
        if bound != _ceil_div(k - lo, big):
            continue
        q = tuple((c // big, m) for c, m in whole)
        g = 0
        for c, _ in q:
            g = gcd(g, c)
        return _tighten(tuple((c // g, m) for c, m in q), _ceil_div(bound, g), ctx)
    return terms, "ge", k


def claim_from_form(form: Form, negated: bool = False, prefer: type[Expr] = Le) -> Expr:
    """The comparison a :data:`Form` stands for (``negated``: its negation, for ``Ne``):
    negative terms on the left, positive ones on the right, the constant where it is
    positive (alone on its side when the other side has every term).  ``P >= k`` is
    written with ``<=`` or ``<``, whichever leaves no constant, else as ``prefer``."""
    terms, kind, k = form
    left = add(*(mul(-c, m) for c, m in terms if c < 0))
    right = add(*(mul(c, m) for c, m in terms if c > 0))
    if kind == "eq":
        return _placed(Ne if negated else Eq, left, right, k)
    # left + k <= right  <=>  left + (k - 1) < right
    le, lt = _placed(Le, left, right, k), _placed(Lt, left, right, k - 1)
    if _constant_free(le) != _constant_free(lt):
        return le if _constant_free(le) else lt
    return lt if prefer is Lt else le


def _placed(cls: type[Expr], left: Expr, right: Expr, k: int) -> Expr:
    """``cls(left + k, right)`` with the constant on the side where it is positive."""
    make = cls.make  # type: ignore[attr-defined]
    if type(left) is Integer:
        out: Expr = make(k, right)
    elif type(right) is Integer:
        out = make(left, -k)
    else:
        out = make(add(left, k), right) if k >= 0 else make(left, add(right, -k))
    return out


def _constant_free(e: Expr) -> bool:
    """No non-zero constant on either side of the comparison ``e``."""
    return not any(
        (type(a) is Integer and a.payload != 0) or (type(a) is Add and a.payload != 0)
        for a in e.args
    )


def normalise_comparison(e: Expr, ctx: Context) -> Expr | None:
    """A comparison in the linear normal form of the module docstring."""
    form = linear_form(e, ctx)
    if form is None:
        return None
    if isinstance(form, bool):
        return true if form else false
    out = claim_from_form(form, negated=type(e) is Ne, prefer=type(e))
    return None if out is e else out


def _positive(c: Expr, ctx: Context) -> bool:
    if type(c) is Integer:
        return bool(c.payload > 0)
    return decide_in(Lt.make(0, c), ctx) is True


def solve_through_floordiv(e: Expr, ctx: Context) -> Expr | None:
    """A comparison of a lone ``e // c`` (``c > 0``) with a constant, as one on ``e``."""
    form = linear_form(e, ctx)
    if form is None or isinstance(form, bool) or len(form[0]) != 1:
        return None
    ((s, q),), kind, k = form
    if type(q) is not FloorDiv or s not in (1, -1) or not _positive(q.args[1], ctx):
        return None
    x, c = q.args
    if kind == "ge":
        # q >= k  <=>  x >= c*k;   -q >= k  <=>  q <= -k  <=>  x < c*(1 - k)
        return Le.make(mul(c, k), x) if s == 1 else Lt.make(x, mul(c, 1 - k))
    # q == m  <=>  c*m <= x < c*(m + 1), kept when the ranges decide one side
    m = k if s == 1 else -k
    low, high = Le.make(mul(c, m), x), Lt.make(x, mul(c, m + 1))
    vl, vh = decide_in(low, ctx), decide_in(high, ctx)
    if type(e) is Ne:
        low, high = Lt.make(x, mul(c, m)), Le.make(mul(c, m + 1), x)
        vl = None if vl is None else not vl
        vh = None if vh is None else not vh
        return _pick(vl, vh, low, high, junction=False)
    return _pick(vl, vh, low, high, junction=True)


def _pick(vl: bool | None, vh: bool | None, a: Expr, b: Expr, *, junction: bool) -> Expr | None:
    """And(a, b) (``junction``) or Or(a, b) when the values decide at least one side."""
    if vl is None and vh is None:
        return None
    absorbing = not junction  # And: False decides; Or: True decides
    if vl is absorbing or vh is absorbing:
        return true if absorbing else false
    if vl is None:
        return a
    if vh is None:
        return b
    return true if junction else false


def split_minmax_comparison(e: Expr, ctx: Context) -> Expr | None:
    """``Min(a, b) <= c`` is ``Or(a <= c, b <= c)`` (and the other three cases), kept when
    the ranges decide every part but at most one."""
    if type(e) not in (Lt, Le):
        return None
    lhs, rhs = e.args
    make = Lt.make if type(e) is Lt else Le.make
    for side, other, on_left in ((lhs, rhs, True), (rhs, lhs, False)):
        t = type(side)
        if t is not Min and t is not Max:
            continue
        parts = [make(a, other) if on_left else make(other, a) for a in side.args]
        # Min on the left or Max on the right: some argument suffices (Or)
        any_one = (t is Min) == on_left
        out = _decided_junction(parts, ctx, any_one=any_one)
        if out is not None:
            return out
    return None


def _decided_junction(parts: list[Expr], ctx: Context, *, any_one: bool) -> Expr | None:
    undecided: list[Expr] = []
    for p in parts:
        v = decide_in(p, ctx)
        if v is None:
            undecided.append(p)
        elif v is any_one:
            return true if any_one else false
    if len(undecided) > 1:
        return None
    if not undecided:
        return false if any_one else true
    return undecided[0]


_CLAIMS = (Lt, Le, Eq, Ne)

COMPARE_PROCEDURES = (
    Procedure("split_minmax_comparison", (Lt, Le), split_minmax_comparison, _module_doc(__name__)),
    Procedure("solve_through_floordiv", _CLAIMS, solve_through_floordiv, _module_doc(__name__)),
    Procedure("normalise_comparison", _CLAIMS, normalise_comparison, _module_doc(__name__)),
)
