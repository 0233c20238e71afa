"""Polynomial views of canonical expressions, below every analysis and procedure.

A canonical sum is a constant plus terms, each term an integer coefficient times a monomial
(a product of non-literal factors with coefficient 1).  This module is the one place that
splits terms, divides a polynomial exactly by a monomial, and names the division ops.
"""

from __future__ import annotations

from indexalg.expr import (
    OP_RECORDS,
    Add,
    Expr,
    Integer,
    Mul,
    _make_term,
    add,
    integer,
    mul,
    term_factors,
)

__all__ = [
    "DIVISION_KINDS",
    "BINARY_DIVISIONS",
    "term_factors",
    "term_parts",
    "has_term_of",
    "constant_difference",
    "split_terms",
    "scaled",
    "divide_exact",
    "division_count",
]

#: Every op that divides (its divisor must be non-zero where it is evaluated): the ops whose
#: record (:mod:`indexalg.ops`) names a division kind.
DIVISION_KINDS: tuple[type[Expr], ...] = tuple(cls for cls, op in OP_RECORDS if op.division)

#: The two-operand divisions ``op(dividend, divisor)``.
BINARY_DIVISIONS: tuple[type[Expr], ...] = tuple(
    cls for cls, op in OP_RECORDS if op.division == "binary"
)


def term_parts(t: Expr) -> tuple[int, Expr]:
    """A non-sum term as (integer coefficient, monomial with coefficient 1)."""
    if type(t) is Mul:
        return t.payload, _make_term(1, t.args)
    return 1, t


def has_term_of(e: Expr, classes: tuple[type[Expr], ...]) -> bool:
    """Whether a term of the sum ``e`` is a multiple of one node of ``classes`` (its
    monomial is of one of them), read without building a monomial: the check a procedure
    that rewrites such terms makes first, on every sum."""
    for t in e.args:
        if type(t) is Mul:
            if len(t.args) == 1 and type(t.args[0]) in classes:
                return True
        elif type(t) in classes:
            return True
    return False


def constant_difference(a: Expr, b: Expr) -> int | None:
    """``a - b`` when the two differ by a literal (the same terms), else None; read from
    the canonical forms, without building the difference."""
    ta, ca = (a.args, a.payload) if type(a) is Add else _as_sum(a)
    tb, cb = (b.args, b.payload) if type(b) is Add else _as_sum(b)
    if ta != tb:
        return None
    return ca - cb


def _as_sum(e: Expr) -> tuple[tuple[Expr, ...], int]:
    """A term or a literal as a sum's (terms, constant)."""
    if type(e) is Integer:
        return (), e.payload
    return (e,), 0


def scaled(c: int, m: Expr) -> Expr:
    """``mul(c, m)``: for a term ``m`` that is not a product, a sum, a literal or a claim,
    the node :func:`~indexalg.expr.mul` builds, without its general path."""
    t = type(m)
    if t is Mul or t is Add or t is Integer or m.is_bool:
        return mul(c, m)
    if c == 0:
        return integer(0)
    return _make_term(c, (m,))


def split_terms(e: Expr) -> tuple[list[tuple[int, Expr]], int]:
    """``e`` as ([(coeff, monomial), ...], constant)."""
    if type(e) is Integer:
        return [], e.payload
    if type(e) is Add:
        return [term_parts(t) for t in e.args], e.payload
    return [term_parts(e)], 0


def divide_exact(e: Expr, q: Expr) -> Expr | None:
    """``e / q`` when q (a non-zero monomial) divides every term of e exactly, else None."""
    if type(q) is Integer:
        qv: int = q.payload
        terms, const = split_terms(e)
        if qv == 0 or const % qv or any(c % qv for c, _ in terms):
            return None
        return add(const // qv, *(mul(c // qv, m) for c, m in terms))
    qc, qfs = term_factors(q)
    terms, const = split_terms(e)
    if const:
        return None
    out: list[Expr] = []
    for c, m in terms:
        if c % qc:
            return None
        factors = list(m.args) if type(m) is Mul else [m]
        for f in qfs:
            if f in factors:
                factors.remove(f)
            else:
                return None
        out.append(mul(c // qc, *factors))
    return add(*out)


def division_count(e: Expr) -> int:
    """The number of division nodes (:data:`DIVISION_KINDS`) in ``e``, shared subtrees
    counted once: the figure the demo, the benchmarks and the procedures compare."""
    return sum(1 for node in e.walk() if type(node) in DIVISION_KINDS)
