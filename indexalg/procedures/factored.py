"""Factored products: a product is not expanded where expanding copies a division.

Sums distribute when a product is built (``expr.mul``), so a Min/Max factor that the ranges
resolve to a sum (``Max(1, s0 - 2) == s0 - 2`` for ``s0 >= 3``) would copy every other
factor of its product: ``(x // 2)*Max(1, s0 - 2)*s1`` becomes ``s0*s1*(x // 2) -
2*s1*(x // 2)``, two divisions for one.  The driver rebuilds a product through
:func:`indexalg.simplify.rebuild.rebuild_product`, which tries both forms (the Min/Max
kept, and the expansion) and keeps the cheaper by :func:`cost`, divisions first.  Where the
expansion pays later, in the enclosing sum (terms cancel, or a quotient meets its remainder and
:func:`~indexalg.procedures.join.join_split_dims` joins them), :func:`open_factors` opens
the kept Min/Max there.

The math: ``Max(a, b) == b`` where ``a <= b`` is proven, ``Min(a, b) == a`` likewise.
Each rewrite of :func:`open_factors` lowers :func:`cost`, so the rewriting terminates.
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.expr import (
    OP_RECORDS,
    Add,
    CeilDiv,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    add,
    mul,
)
from indexalg.poly import term_factors
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.join import join_split_dims
from indexalg.rewrite import condition_holds
from indexalg.rules.base import le, wilds

__all__ = ["FACTORED_PROCEDURES", "copies_costly", "cost", "open_factors"]

_DIVISIONS = (FloorDiv, CeilDiv, CleanDiv, Mod)
#: what expanding a product must not copy: divisions, and Min/Max/Where (which hold them),
#: as the ops' records say (indexalg.ops)
_COSTLY = frozenset(cls for cls, op in OP_RECORDS if op.costly)
_ONE = Integer(1)
_MINMAX = (Min, Max)
_A, _B = wilds("a b")
_LE = le(_A, _B)


def cost(e: Expr) -> tuple[int, int]:
    """(div/mod operations, nodes) of ``e`` as a tree: a repeated subexpression counts each
    time it occurs.  ``ModularIndexing(a, d, m)`` is two operations (one when ``d`` is 1),
    as in the benchmarks' count."""
    memo: dict[Expr, tuple[int, int]] = {}

    def go(n: Expr) -> tuple[int, int]:
        hit = memo.get(n)
        if hit is not None:
            return hit
        t = type(n)
        dm = 1 if t in _DIVISIONS else 0
        if t is ModularIndexing:
            dm = 1 if n.args[1] is _ONE else 2
        size = 1
        for a in n.args:
            d, s = go(a)
            dm += d
            size += s
        memo[n] = (dm, size)
        return dm, size

    return go(e)


def copies_costly(e: Expr) -> bool:
    """Whether ``e`` holds a node that expanding a product must not copy (:data:`_COSTLY`)."""
    return any(type(n) in _COSTLY for n in e.walk())


def _winner(m: Expr, ctx: Context) -> Expr | None:
    """The argument a two-argument Min/Max is equal to where the ranges order them."""
    if len(m.args) != 2:
        return None
    a, b = m.args
    # decided as the rules min_of_ordered / max_of_ordered decide it (memoised per context)
    if condition_holds(_LE, {_A: a, _B: b}, ctx):
        return a if type(m) is Min else b
    if condition_holds(_LE, {_A: b, _B: a}, ctx):
        return b if type(m) is Min else a
    return None


def _opened(e: Expr, ctx: Context) -> Expr | None:
    """``e`` with every ordered Min/Max factor of its terms replaced by its winner."""
    terms: list[Expr] = []
    changed = False
    for t in e.args:
        coeff, factors = term_factors(t)
        if type(t) is not Mul or not any(type(f) in _MINMAX for f in factors):
            terms.append(t)
            continue
        opened = []
        for f in factors:
            w = _winner(f, ctx) if type(f) in _MINMAX else None
            opened.append(f if w is None else w)
            changed = changed or w is not None
        terms.append(mul(coeff, *opened))
    return add(e.payload, *terms) if changed else None


def open_factors(e: Expr, ctx: Context) -> Expr | None:
    """A sum with its kept Min/Max factors opened (each replaced by the argument it equals
    under the ranges), where that lowers the cost: terms cancel, or a quotient meets its
    remainder (``(x // D)*Max(1, D) + ModularIndexing(x, 1, D) -> x``)."""
    for t in e.args:  # the driver keeps a Min/Max only as a factor of a product
        if type(t) is Mul:
            for f in t.args:
                if type(f) is Min or type(f) is Max:
                    break
            else:
                continue
            break
    else:
        return None
    opened = _opened(e, ctx)
    if opened is None:
        return None
    candidates = [opened]
    if type(opened) is Add:
        joined = join_split_dims(opened, ctx)
        if joined is not None:
            candidates.append(joined)
    best, best_cost = None, cost(e)
    for c in candidates:
        k = cost(c)
        if k < best_cost:
            best, best_cost = c, k
    return best


FACTORED_PROCEDURES = (Procedure("open_factors", (Add,), open_factors, _module_doc(__name__)),)
