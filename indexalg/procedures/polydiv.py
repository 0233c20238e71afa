"""Exact division of a polynomial by a monomial."""

from __future__ import annotations

from indexalg.expr import Expr, Integer, Mul, add, mul
from indexalg.procedures.terms import split_terms

__all__ = ["divide_exact"]


def divide_exact(e: Expr, q: Expr) -> Expr | None:
    """``e / q`` when q (a non-zero monomial) divides every term of e exactly, else None."""
    if type(q) is Integer:
        qv: int = q.payload
        terms, const = split_terms(e)
        if qv == 0 or const % qv or any(c % qv for c, _ in terms):
            return None
        return add(const // qv, *(mul(c // qv, m) for c, m in terms))
    qc, qfs = (q.payload, q.args) if type(q) is Mul else (1, (q,))
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
