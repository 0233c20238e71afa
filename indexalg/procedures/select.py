"""Where algebra: a Where that is a Min or Max, nested Wheres, and Wheres that share their
condition.

* ``Where(q < p, p, q)`` is ``Max(p, q)`` and ``Where(p < q, p, q)`` is ``Min(p, q)``
  (also with ``<=``), the condition compared in the normal form of
  :mod:`indexalg.procedures.compare` (tinygrad's ``Where(x < 0, 0, x)`` is ``Max(x, 0)``);
* ``Where(c1, Where(c2, a, b), b)`` is ``Where(And(c1, c2), a, b)`` and
  ``Where(c1, a, Where(c2, a, b))`` is ``Where(Or(c1, c2), a, b)``;
* in a sum, ``k1*Where(c, a1, b1) + k2*Where(c, a2, b2)`` is
  ``Where(c, k1*a1 + k2*a2, k1*b1 + k2*b2)``; a Min or Max of Wheres on one condition is
  the Where of the Mins or Maxes.

Every result measures less than its input.
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.expr import (
    Add,
    And,
    Expr,
    Le,
    Lt,
    Max,
    Min,
    Or,
    Where,
    add,
    mul,
)
from indexalg.poly import has_term_of, term_parts
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.compare import normalise_comparison
from indexalg.procedures.size import size

__all__ = ["SELECT_PROCEDURES"]


def _normal(c: Expr, ctx: Context) -> Expr:
    out = normalise_comparison(c, ctx)
    return c if out is None else out


def where_algebra(e: Expr, ctx: Context) -> Expr | None:
    """A Where as a Min or Max, or nested Wheres merged (see the module docstring)."""
    c, a, b = e.args
    if type(c) in (Lt, Le):
        nc = _normal(c, ctx)
        for cand, out in (
            (Lt.make(b, a), Max.make(a, b)),
            (Le.make(b, a), Max.make(a, b)),
            (Lt.make(a, b), Min.make(a, b)),
            (Le.make(a, b), Min.make(a, b)),
        ):
            if cand.is_bool and cand.args and _normal(cand, ctx) is nc:
                return out
    if type(a) is Where and a.args[2] is b:
        return Where.make(And.make(c, a.args[0]), a.args[1], b)
    if type(b) is Where and b.args[1] is a:
        return Where.make(Or.make(c, b.args[0]), a, b.args[2])
    return None


def wheres_in_sum(e: Expr, ctx: Context) -> Expr | None:
    """Two Where terms of a sum on the same condition, as one Where."""
    if not has_term_of(e, (Where,)):
        return None
    terms = [term_parts(t) for t in e.args]
    for i, (k1, w1) in enumerate(terms):
        if type(w1) is not Where:
            continue
        for j in range(i + 1, len(terms)):
            k2, w2 = terms[j]
            if type(w2) is not Where or w2.args[0] is not w1.args[0]:
                continue
            merged = Where.make(
                w1.args[0],
                add(mul(k1, w1.args[1]), mul(k2, w2.args[1])),
                add(mul(k1, w1.args[2]), mul(k2, w2.args[2])),
            )
            rest = [mul(k, t) for n, (k, t) in enumerate(terms) if n not in (i, j)]
            out = add(e.payload, merged, *rest)
            return out if size(out) < size(e) else None
    return None


def minmax_of_wheres(e: Expr, ctx: Context) -> Expr | None:
    """``Min(Where(c, a1, b1), Where(c, a2, b2))`` is ``Where(c, Min(a1, a2), Min(b1, b2))``."""
    args = e.args
    if not all(type(w) is Where for w in args):
        return None
    c = args[0].args[0]
    if any(w.args[0] is not c for w in args):
        return None
    make = Min.make if type(e) is Min else Max.make
    out = Where.make(c, make(*(w.args[1] for w in args)), make(*(w.args[2] for w in args)))
    return out if size(out) < size(e) else None


SELECT_PROCEDURES = (
    Procedure("where_algebra", (Where,), where_algebra, _module_doc(__name__)),
    Procedure("wheres_in_sum", (Add,), wheres_in_sum, _module_doc(__name__)),
    Procedure("minmax_of_wheres", (Min, Max), minmax_of_wheres, _module_doc(__name__)),
)
