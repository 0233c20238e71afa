"""The size measure the procedures compare results by (and ``bench.peers`` reports).

``size(e)`` is ``(non-polynomial nodes, nodes)`` of the tree, compared lexicographically,
each occurrence counted: a non-polynomial node is a FloorDiv, Mod, ModularIndexing, CeilDiv,
CleanDiv, Min, Max or Where; a node is an operation, a symbol or a literal, and a sum's
non-zero constant and a product's coefficient other than 1 count as one node each.
``ModularIndexing(x, 1, m)``, the canonical spelling of ``x % m``, counts as ``x % m``.
"""

from __future__ import annotations

from indexalg.expr import (
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
    Where,
)

__all__ = ["size"]

_NONPOLY = (FloorDiv, Mod, ModularIndexing, CeilDiv, CleanDiv, Min, Max, Where)
_ONE = Integer(1)


def size(e: Expr) -> tuple[int, int]:
    """``(non-polynomial nodes, nodes)`` of ``e`` (see the module docstring)."""
    d = n = 0
    stack = [e]
    while stack:
        x = stack.pop()
        n += 1
        t = type(x)
        if t in _NONPOLY:
            d += 1
        elif (t is Add and x.payload != 0) or (t is Mul and x.payload != 1):
            n += 1
        if t is ModularIndexing and x.args[1] is _ONE:
            stack.extend((x.args[0], x.args[2]))
            continue
        stack.extend(x.args)
    return d, n
