"""Divisions by a literal read through the residues of their dividend's coefficients.

For ``a // c`` and ``a % c`` (``c > 1`` a literal, ``a = sum(q*t) + b``):

* **balanced remainder**: each coefficient is ``q = c*k + r`` with ``r`` either residue
  (``q mod c`` or ``q mod c - c``); when some choice puts ``R = sum(r*t) + K`` (``K`` the
  constant congruent to ``b`` that starts R at 0 or above) inside ``[0, c - 1]`` on the
  ranges, ``a % c`` is ``R`` and ``a // c`` is ``sum(k*t) + (b - K)/c`` (tinygrad's
  ``(3 + 3*a) % 4`` is ``3 - a`` and ``(9 + 19*x + 18*y) // 10`` is ``2*x + 2*y`` for small
  ``x``, ``y``);
* **common factor**: with ``g`` the gcd of the coefficients and ``g | c``,
  ``(g*s + b) // c`` is ``(s + b // g) // (c/g)`` (TVM's ``(8*x + 39) // 16`` is
  ``(x + 4) // 2``);
* **reduced coefficients**: ``ModularIndexing(a, 1, c)`` depends on each coefficient and
  the constant only modulo ``c``: each is replaced by its residue of the same sign
  (``(x*360 + y) % 16`` is ``(x*8 + y) % 16``).

For a symbolic modulus, ``a % m`` is 0 when ``a`` is an integer multiple of ``m`` as a
polynomial (``((p + 1)*64) % ((p + 1)*32)``), and ``a - q*m`` where the ranges pin the
quotient ``a // m`` to ``q``.  An expression of one symbol with few values in range is the
affine function it equals there, where it is one.  Every result measures less than its input.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from math import gcd
from typing import Any

from indexalg.analysis.context import Context
from indexalg.analysis.interval import interval
from indexalg.errors import IndexAlgError
from indexalg.evaluate import EVAL_TABLE, evaluate
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    Mod,
    ModularIndexing,
    Mul,
    add,
    integer,
    mul,
)
from indexalg.poly import scaled, split_terms
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.size import _NONPOLY, size

__all__ = ["RESIDUE_PROCEDURES"]

_ONE = Integer(1)
#: The most terms whose two residues are all tried (2**n choices).
_MAX_TERMS = 6


def _literal_divisor(e: Expr) -> tuple[Expr, int] | None:
    """(dividend, c) of ``a // c`` or ``ModularIndexing(a, 1, c)`` with a literal c > 1."""
    if type(e) is FloorDiv:
        a, c = e.args
    elif type(e) is ModularIndexing and e.args[1] is _ONE:
        a, c = e.args[0], e.args[2]
    else:
        return None
    if type(c) is not Integer or c.payload <= 1:
        return None
    return a, c.payload


def balanced_remainder(e: Expr, ctx: Context) -> Expr | None:
    """``a // c`` or ``a % c`` with no division left (see the module docstring)."""
    split = _literal_divisor(e)
    if split is None:
        return None
    a, c = split
    terms, b = split_terms(a)
    if not terms or len(terms) > _MAX_TERMS:
        return None
    span = -1
    if len(terms) == 1 and not ctx.facts and terms[0][0] % c:
        # one term q*m, each residue r non-zero: the interval of r*m is m's scaled by r,
        # with an infinite side where m's has one (no candidate is bounded)
        lo_m, hi_m = interval(terms[0][1], ctx)
        if type(lo_m) is not int or type(hi_m) is not int:
            return None
        # and its width |r| times m's: where that is over c - 1, so is the width of the
        # interval of the node r*m (that one, if cached looser, only wider)
        span = hi_m - lo_m
        if span > c - 1:
            return None
    options = [sorted({q % c, q % c - c} if q % c else {0}, key=abs) for q, _ in terms]
    best: Expr | None = None
    for rs in itertools.product(*options):
        if span > 0 and abs(rs[0]) * span > c - 1:
            continue
        if len(rs) == 1:
            rest = scaled(rs[0], terms[0][1])  # what add() of the one term gives
        else:
            rest = add(*(scaled(r, m) for r, (_, m) in zip(rs, terms)))
        lo, hi = interval(rest, ctx)
        if type(lo) is not int or type(hi) is not int or hi - lo > c - 1:
            continue
        k0 = b + c * (-((lo + b) // c))  # the constant = b (mod c) with k0 + lo in [0, c)
        if k0 + hi > c - 1:
            continue
        if type(e) is ModularIndexing:
            out = add(rest, k0)
        else:
            whole = [mul((q - r) // c, m) for r, (q, m) in zip(rs, terms)]
            out = add((b - k0) // c, *whole)
        if size(out) < size(e) and (best is None or size(out) < size(best)):
            best = out
    return best


def common_factor_of_dividend(e: Expr, ctx: Context) -> Expr | None:
    """``(g*s + b) // c`` is ``(s + b // g) // (c/g)`` for ``g`` the coefficients' gcd,
    ``g | c`` (floor(floor(v/g)/(c/g)) == floor(v/c), and floor(v/g) = s + b // g)."""
    if type(e) is not FloorDiv:
        return None
    split = _literal_divisor(e)
    if split is None:
        return None
    a, c = split
    terms, b = split_terms(a)
    g = 0
    for q, _ in terms:
        g = gcd(g, q)
    if not terms or g <= 1 or c % g:
        return None
    s = add(b // g, *(mul(q // g, m) for q, m in terms))
    out = FloorDiv.make(s, c // g)
    return out if size(out) < size(e) else None


def _same_sign_residue(q: int, c: int) -> int:
    return q % c if q >= 0 else -((-q) % c)


def _reduced(a: Expr, c: int) -> bool:
    """Whether the constant and every coefficient of ``a`` lie strictly between ``-c`` and
    ``c`` (each its own residue of the same sign), read from the canonical form; ``c > 1``,
    so a coefficient 1 does."""
    if type(a) is Integer or type(a) is Mul:
        return bool(-c < a.payload < c)
    if type(a) is not Add:
        return True
    if not -c < a.payload < c:
        return False
    for t in a.args:
        if type(t) is Mul and not -c < t.payload < c:
            return False
    return True


def reduced_coefficients(e: Expr, ctx: Context) -> Expr | None:
    """``ModularIndexing(a, 1, c)`` with each coefficient and the constant of ``a``
    replaced by its residue modulo ``c`` of the same sign."""
    if type(e) is not ModularIndexing:
        return None
    split = _literal_divisor(e)
    if split is None:
        return None
    a, c = split
    if _reduced(a, c):
        return None  # every residue is its coefficient: the rebuilt dividend is ``a``
    terms, b = split_terms(a)
    new = add(_same_sign_residue(b, c), *(mul(_same_sign_residue(q, c), m) for q, m in terms))
    if new is a:
        return None
    out = ModularIndexing.make(new, 1, c)
    # strictly smaller (a term or the constant gone): terminates.  Only coefficients made
    # smaller would hide the dividend from a digit of the same index in the same sum
    # (ModularIndexing(14678*d0 + d1, 1, 129) + 129*ModularIndexing(14678*d0 + d1, 129,
    # 1024) joins into one remainder mod 132096; with 101*d0 in the first it cannot)
    return out if size(out) < size(e) else None


def multiple_of_modulus(e: Expr, ctx: Context) -> Expr | None:
    """``a % m`` (or ``ModularIndexing(a, 1, m)``) is 0 when ``a == k*m`` as polynomials
    for an integer ``k`` (the ratio of their first coefficients)."""
    if type(e) is Mod:
        a, m = e.args
    elif type(e) is ModularIndexing and e.args[1] is _ONE:
        a, m = e.args[0], e.args[2]
    else:
        return None
    if type(m) is Integer:
        return None
    ta, _ = split_terms(a)
    tm, _ = split_terms(m)
    if not ta or not tm or ta[0][1] is not tm[0][1] or ta[0][0] % tm[0][0]:
        return None
    k = ta[0][0] // tm[0][0]
    diff = add(a, mul(-k, m))
    return integer(0) if type(diff) is Integer and diff.payload == 0 else None


def constant_quotient(e: Expr, ctx: Context) -> Expr | None:
    """``a % m`` is ``a - q*m`` where the ranges pin ``a // m`` to one value ``q``
    (tinygrad's ``x % y`` for ``x`` in ``[20, 23]``, ``y`` in ``[8, 10]`` is ``x - 2*y``)."""
    if type(e) is Mod:
        a, m = e.args
    elif type(e) is ModularIndexing and e.args[1] is _ONE:
        a, m = e.args[0], e.args[2]
    else:
        return None
    lo, hi = interval(FloorDiv.make(a, m), ctx)
    if type(lo) is not int or lo != hi:
        return None
    out = add(a, mul(-lo, m))
    return out if size(out) < size(e) else None


#: The most values of the one symbol :func:`affine_on_few_values` evaluates at.
_FEW = 16
#: The deepest expression :func:`_affine_line` evaluates by plain recursion (as
#: :func:`~indexalg.evaluate.evaluate` does up to this depth).
_SHALLOW = 24


def affine_on_few_values(e: Expr, ctx: Context) -> Expr | None:
    """An expression of one symbol ``s`` with at most 16 values in its range, whose value is
    affine in ``s`` there (checked at every value), is that affine function: division-free
    (tinygrad's ``gidx // 4 + (gidx + 2) // 4 + (gidx + 3) // 4 + (gidx + 1) // 4`` is
    ``gidx`` for ``gidx`` in ``[0, 2]``)."""
    syms = e.symbol_set
    if len(syms) != 1:
        return None
    (sym,) = syms
    lo, hi = interval(sym, ctx)
    if type(lo) is not int or type(hi) is not int or hi - lo + 1 > _FEW:
        return None
    # a FloorDiv or ModularIndexing is itself a division; a sum needs one among its nodes
    if type(e) is Add and not _has_division(e):
        return None
    line = _affine_line(e, sym, lo, hi)
    if line is None:
        return None
    v0, slope = line
    # the result is division-free, so it measures less than ``e`` (which holds a division)
    return add(v0 - slope * lo, mul(slope, sym))


def _has_division(e: Expr) -> bool:
    """Whether ``e`` holds a node :func:`size` counts as non-polynomial (``size(e)[0] > 0``)."""
    stack = [e]
    while stack:
        x = stack.pop()
        if type(x) in _NONPOLY:
            return True
        stack.extend(x.args)
    return False


def _affine_line(e: Expr, sym: Expr, lo: int, hi: int) -> tuple[int, int] | None:
    """(value at ``lo``, slope) where ``e``, of the one symbol ``sym``, evaluates at every
    value in ``[lo, hi]`` to an affine function of it; None where one value is off the
    line of the first two or an evaluation fails (stopping at the first such value)."""
    at = _evaluator(e, sym)
    v0 = slope = 0
    for i in range(hi - lo + 1):
        try:
            v: int = at(lo + i)
        except IndexAlgError:
            return None
        if i == 0:
            v0 = v
        elif i == 1:
            slope = v - v0
        elif v != v0 + slope * i:
            return None
    return v0, slope


def _evaluator(e: Expr, sym: Expr) -> Callable[[int], Any]:
    """``e``'s value with its one symbol ``sym`` at a given value: :func:`evaluate` for a
    deep ``e`` (it evaluates those without deep recursion), else the handlers of
    :data:`EVAL_TABLE` over a memo that holds ``sym``'s value (what ``evaluate`` finds by
    the name, without re-reading an environment at each value).  Values are typed Any,
    which mypyc leaves as Python objects (it would read the evaluator's int | bool as
    int)."""
    if e.depth > _SHALLOW:
        name = sym.payload
        return lambda v: evaluate(e, {name: v})
    memo: dict[Expr, Any] = {}

    def ev(x: Expr) -> Any:
        hit = memo.get(x)
        if hit is not None:
            return hit
        r = EVAL_TABLE[type(x)](x, ev)
        memo[x] = r
        return r

    def at(v: int) -> Any:
        memo.clear()
        memo[sym] = v
        return ev(e)

    return at


_DOC = _module_doc(__name__)

RESIDUE_PROCEDURES = (
    Procedure("balanced_remainder", (FloorDiv, ModularIndexing), balanced_remainder, _DOC),
    Procedure("common_factor_of_dividend", (FloorDiv,), common_factor_of_dividend, _DOC),
    Procedure("reduced_coefficients", (ModularIndexing,), reduced_coefficients, _DOC),
    Procedure("multiple_of_modulus", (Mod, ModularIndexing), multiple_of_modulus, _DOC),
    Procedure("constant_quotient", (Mod, ModularIndexing), constant_quotient, _DOC),
    Procedure("affine_on_few_values", (Add, FloorDiv, ModularIndexing), affine_on_few_values, _DOC),
)
