"""Congruence analysis: ``e ≡ r (mod m)``, context-free and cached on the node.

A fact is a pair ``(m, r)`` with ``m >= 0`` and ``0 <= r < m`` (or ``m == 0``: ``e == r``
exactly; ``m == 1``: nothing known).  Facts combine as in abstract interpretation over the
congruence lattice (Granger): sums take the gcd of moduli, products scale them, and
division by a literal that divides the modulus divides it.
"""

from __future__ import annotations

from collections.abc import Callable
from math import gcd

from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Where,
)

__all__ = ["congruence", "Fact"]

Fact = tuple[int, int]
_TOP: Fact = (1, 0)


def _norm(m: int, r: int) -> Fact:
    m = abs(m)
    return (0, r) if m == 0 else (m, r % m)


def _add(a: Fact, b: Fact) -> Fact:
    return _norm(gcd(a[0], b[0]), a[1] + b[1])


def _mul(a: Fact, b: Fact) -> Fact:
    (m1, r1), (m2, r2) = a, b
    return _norm(gcd(m1 * m2, m1 * r2, m2 * r1), r1 * r2)


def _join(a: Fact, b: Fact) -> Fact:
    return _norm(gcd(a[0], b[0], a[1] - b[1]), a[1])


def _floordiv_lit(a: Fact, q: int) -> Fact:
    m, r = a
    if q > 0 and m == 0:
        return 0, r // q
    if q > 0 and m % q == 0:
        # a = m*k + r  =>  a // q = (m/q)*k + r // q
        return _norm(m // q, r // q)
    return _TOP


def _mod_lit(a: Fact, q: int) -> Fact:
    m, r = a
    if m == 0:
        return 0, r % q
    if m % q == 0:
        return 0, r % q  # the residue mod q is fixed
    g = gcd(m, q)
    return _norm(g, r)


def _fact(e: Expr) -> Fact:
    t = type(e)
    if t is Integer:
        return 0, e.payload
    if t is Add:
        f: Fact = (0, e.payload)
        for a in e.args:
            f = _add(f, congruence(a))
        return f
    if t is Mul:
        f = (0, e.payload)
        for a in e.args:
            f = _mul(f, congruence(a))
        return f
    if t is FloorDiv:
        a, q = e.args
        if type(q) is Integer:
            return _floordiv_lit(congruence(a), q.payload)
        return _TOP
    if t is Mod:
        a, q = e.args
        if type(q) is Integer:
            return _mod_lit(congruence(a), q.payload)
        return _TOP
    if t is ModularIndexing:
        a, d, m = e.args
        if type(d) is Integer and type(m) is Integer:
            return _mod_lit(_floordiv_lit(congruence(a), d.payload), m.payload)
        return _TOP
    if t is Min or t is Max:
        f = congruence(e.args[0])
        for a in e.args[1:]:
            f = _join(f, congruence(a))
        return f
    if t is Where:
        return _join(congruence(e.args[1]), congruence(e.args[2]))
    return _TOP


_HANDLER: Callable[[Expr], Fact] = _fact


def congruence(e: Expr, ranges: object = None) -> Fact:
    """``(m, r)`` with ``e ≡ r (mod m)`` at every point where ``e`` is defined.

    Context-free (``ranges`` is accepted for a uniform signature and ignored); cached on
    the interned node.
    """
    facts = e._facts
    if facts is not None:
        c: Fact = facts
        return c
    f = _HANDLER(e) if not e.is_bool else _TOP
    e._facts = f
    return f
