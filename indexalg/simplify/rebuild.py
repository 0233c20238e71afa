"""Rebuilding a node whose operands the driver simplified: a product is not expanded where
expanding copies a division.

Sums distribute when a product is built (``expr.mul``), so a Min/Max factor that the ranges
resolve to a sum (``Max(1, s0 - 2) == s0 - 2`` for ``s0 >= 3``) would copy every other
factor of its product: ``(x // 2)*Max(1, s0 - 2)*s1`` becomes ``s0*s1*(x // 2) -
2*s1*(x // 2)``, two divisions for one.  :func:`rebuild_product` tries both forms (the
Min/Max kept, and the expansion) and keeps the cheaper by
:func:`~indexalg.procedures.factored.cost`, divisions first.  Where the expansion pays later,
in the enclosing sum, the procedure :func:`~indexalg.procedures.factored.open_factors` opens
the kept Min/Max there.

This is the driver's own step (it simplifies both forms and records the answer in the
run's table), so it lives with the driver; what it weighs is a pure function of an
expression (``procedures/factored.py``).
"""

from __future__ import annotations

from typing import Protocol

from indexalg.expr import Add, Expr, Max, Min, Mul
from indexalg.procedures.factored import copies_costly, cost

__all__ = ["Driver", "rebuild_product"]

_MINMAX = (Min, Max)


class Driver(Protocol):
    """What :func:`rebuild_product` needs of the simplifier."""

    def visit(self, e: Expr) -> Expr: ...

    def visit_new(self, node: Expr) -> Expr: ...

    def remember(self, node: Expr, out: Expr) -> None: ...


def rebuild_product(driver: Driver, e: Expr, new: tuple[Expr, ...]) -> Expr:
    """``e`` with its operands replaced by their simplified forms ``new`` (``e.rebuild``).
    For a product where a Min/Max operand simplified to a sum and an operand holds a
    division or a Min/Max (which the expansion would copy), both forms are simplified and
    the cheaper by :func:`cost` is returned (the expansion on ties)."""
    expanded = e.rebuild(new)
    if type(e) is not Mul or type(expanded) is not Add:
        return expanded
    kept = list(new)
    any_kept = False
    for i, (a, b) in enumerate(zip(e.args, new)):
        if type(b) is Add and type(a) in _MINMAX:
            # the Min/Max with its operands simplified (two of them, so that
            # open_factors can open it again where the expansion pays)
            k = a.rebuild(tuple([driver.visit(c) for c in a.args]))
            if type(k) in _MINMAX and len(k.args) == 2:
                kept[i] = k
                any_kept = True
    if not any_kept:
        return expanded
    if not any(copies_costly(g) for g in new):
        return expanded  # the expansion copies no division (nor a Min/Max)
    product = e.rebuild(tuple(kept))
    out_kept = driver.visit_new(product)
    out_expanded = driver.visit_new(expanded)
    best = out_kept if cost(out_kept) < cost(out_expanded) else out_expanded
    if product is not e:
        # visit_new took the kept product's Min/Max child as simplified, which it is not:
        # its entry in the run's table is replaced by what simplifying the product itself
        # gives (this same comparison), or a later simplification meeting the product would
        # read the product back unsimplified (a result depending on the order of calls)
        driver.remember(product, best)
    return best
