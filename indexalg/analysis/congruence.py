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
    And,
    BoolConst,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    Wild,
)

__all__ = ["congruence", "Fact", "CONGRUENCE_TABLE"]

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


def _integer(e: Expr) -> Fact:
    return 0, e.payload


def _sum(e: Expr) -> Fact:
    f: Fact = (0, e.payload)
    for a in e.args:
        f = _add(f, congruence(a))
    return f


def _product(e: Expr) -> Fact:
    f: Fact = (0, e.payload)
    for a in e.args:
        f = _mul(f, congruence(a))
    return f


def _floordiv(e: Expr) -> Fact:
    a, q = e.args
    if type(q) is Integer:
        return _floordiv_lit(congruence(a), q.payload)
    return _TOP


def _mod(e: Expr) -> Fact:
    a, q = e.args
    if type(q) is Integer:
        return _mod_lit(congruence(a), q.payload)
    return _TOP


def _modular_indexing(e: Expr) -> Fact:
    a, d, m = e.args
    if type(d) is Integer and type(m) is Integer:
        return _mod_lit(_floordiv_lit(congruence(a), d.payload), m.payload)
    return _TOP


def _join_args(e: Expr) -> Fact:
    """Min and Max take one of their arguments' values: the join of their facts."""
    f = congruence(e.args[0])
    for a in e.args[1:]:
        f = _join(f, congruence(a))
    return f


def _where(e: Expr) -> Fact:
    return _join(congruence(e.args[1]), congruence(e.args[2]))


def _top(e: Expr) -> Fact:
    return _TOP


#: One handler per op.  Ops with no congruence rule (symbols, CeilDiv, CleanDiv, claims)
#: know nothing: ``(1, 0)``.
CONGRUENCE_TABLE: dict[type[Expr], Callable[[Expr], Fact]] = {
    Integer: _integer,
    Symbol: _top,
    Wild: _top,
    Add: _sum,
    Mul: _product,
    FloorDiv: _floordiv,
    CleanDiv: _top,
    CeilDiv: _top,
    Mod: _mod,
    ModularIndexing: _modular_indexing,
    Min: _join_args,
    Max: _join_args,
    Where: _where,
    BoolConst: _top,
    Lt: _top,
    Le: _top,
    Eq: _top,
    Ne: _top,
    And: _top,
    Or: _top,
    Not: _top,
}


def congruence(e: Expr, ranges: object = None) -> Fact:
    """``(m, r)`` with ``e ≡ r (mod m)`` at every point where ``e`` is defined.

    Context-free (``ranges`` is accepted for a uniform signature and ignored); cached on
    the interned node.
    """
    facts = e._congruence
    if facts is not None:
        c: Fact = facts
        return c
    f = CONGRUENCE_TABLE[type(e)](e)
    e._congruence = f
    return f
