"""Sums as lists of (coefficient, monomial) terms: the view the procedures work on."""

from __future__ import annotations

from indexalg.expr import Add, Expr, Integer, Mul, _make_term

__all__ = ["split_terms", "term_parts"]


def term_parts(t: Expr) -> tuple[int, Expr]:
    """A non-sum term as (integer coefficient, monomial with coefficient 1)."""
    if type(t) is Mul:
        return t.payload, _make_term(1, t.args)
    return 1, t


def split_terms(e: Expr) -> tuple[list[tuple[int, Expr]], int]:
    """``e`` as ([(coeff, monomial), ...], constant)."""
    if type(e) is Integer:
        return [], e.payload
    if type(e) is Add:
        return [term_parts(t) for t in e.args], e.payload
    return [term_parts(e)], 0
