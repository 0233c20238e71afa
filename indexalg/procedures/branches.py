"""Procedures that decide with the range analysis: claims, Where, n-ary Min/Max."""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in
from indexalg.expr import (
    And,
    Eq,
    Expr,
    Le,
    Lt,
    Max,
    Min,
    Ne,
    Not,
    Or,
    Where,
    false,
    true,
)
from indexalg.procedures.base import Procedure

__all__ = ["BRANCH_PROCEDURES"]


def decide_claim(e: Expr, ctx: Context) -> Expr | None:
    """A claim the analysis proves or refutes becomes True or False."""
    v = decide_in(e, ctx)
    if v is None:
        return None
    return true if v else false


def where_select(e: Expr, ctx: Context) -> Expr | None:
    """Where(c, a, b): a where c is proven, b where refuted, a where a is b; a negated
    condition swaps the branches."""
    c, a, b = e.args
    if a is b:
        return a
    v = decide_in(c, ctx)
    if v is True:
        return a
    if v is False:
        return b
    if type(c) is Not:
        return Where.make(c.args[0], b, a)
    return None


def drop_dominated(e: Expr, ctx: Context) -> Expr | None:
    """Min/Max with more than two arguments: drop every argument another one dominates."""
    args = e.args
    if len(args) <= 2:
        return None
    is_min = type(e) is Min
    keep: list[Expr] = []
    for i, a in enumerate(args):
        dominated = False
        for j, b in enumerate(args):
            if i == j:
                continue
            # Min: a is redundant when b <= a (ties: keep the earlier one)
            claim = Le.make(b, a) if is_min else Le.make(a, b)
            if decide_in(claim, ctx) and not (j > i and decide_in(Eq.make(a, b), ctx)):
                dominated = True
                break
        if not dominated:
            keep.append(a)
    if len(keep) == len(args):
        return None
    return Min.make(*keep) if is_min else Max.make(*keep)


BRANCH_PROCEDURES = (
    Procedure("decide_claim", (Lt, Le, Eq, Ne, And, Or, Not), decide_claim),
    Procedure("where_select", (Where,), where_select),
    Procedure("drop_dominated", (Min, Max), drop_dominated),
)
