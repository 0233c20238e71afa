"""Floor divisions and remainders traded for each other where terms cancel.

``c*(x // c) == x - x % c`` for any ``c != 0``: in a sum, a term ``q*(x // c)`` with ``c | q``
becomes ``(q/c)*x - (q/c)*(x % c)`` where the ``x`` cancels against the rest of the sum
(TVM's ``y - ((y - 6) // 5)*5`` is ``(y - 6) % 5 + 6``).  In the dividend of a division or
remainder by ``c``, a term ``k*(x % d)`` becomes ``k*x - k*d*(x // d)`` where that leaves
multiples of ``c`` to pull out (``(x - x % 21) // 21`` is ``x // 21``; ``(x - x % y) % y``
is 0).  :func:`without_floors` is the first trade for any sum (the comparison normal form
uses it on ``b - a``); every result measures less than its input.
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    Mod,
    ModularIndexing,
    add,
    mul,
)
from indexalg.poly import divide_exact, split_terms, term_parts
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.size import size

__all__ = ["FLOOR_PROCEDURES", "without_floors"]

_ONE = Integer(1)


def _remainder(x: Expr, c: Expr) -> Expr:
    if type(c) is Integer and c.payload > 0:
        return ModularIndexing.make(x, 1, c)
    return Mod.make(x, c)


def without_floors(s: Expr) -> Expr:
    """``s`` with each ``q*(x // c)`` (literal ``c``, ``c | q``) read as
    ``(q/c)*(x - x % c)`` where that makes the sum smaller; ``s`` itself otherwise."""
    if type(s) is not Add:
        return s
    best: Expr = s
    for t in s.args:
        k, m = term_parts(t)
        if type(m) is not FloorDiv:
            continue
        x, c = m.args
        if type(c) is not Integer or c.payload == 0 or k % c.payload:
            continue
        r = k // c.payload
        cand = add(s, mul(-k, m), mul(r, x), mul(-r, _remainder(x, c)))
        if size(cand) < size(best):
            best = cand
    return best


def floors_in_sum(e: Expr, ctx: Context) -> Expr | None:
    """A sum's ``q*(x // c)`` traded for ``x % c`` (see the module docstring)."""
    out = without_floors(e)
    return None if out is e else out


def remainders_in_dividend(e: Expr, ctx: Context) -> Expr | None:
    """A dividend's ``k*(x % d)`` traded for ``k*x - k*d*(x // d)`` where multiples of the
    divisor come out of it."""
    if type(e) is ModularIndexing:
        a, d, c = e.args
        if d is not _ONE:
            return None
    else:
        a, c = e.args
    if type(a) is not Add:
        return None
    best: Expr | None = None
    for t in a.args:
        k, m = term_parts(t)
        if type(m) is ModularIndexing and m.args[1] is _ONE:
            x, dd = m.args[0], m.args[2]
        elif type(m) is Mod:
            x, dd = m.args
        else:
            continue
        cand_a = add(a, mul(-k, m), mul(k, x), mul(-k, dd, FloorDiv.make(x, dd)))
        cand = _pull(e, cand_a, c)
        if cand is not None and size(cand) < size(best if best is not None else e):
            best = cand
    return best


def _pull(e: Expr, a: Expr, c: Expr) -> Expr | None:
    """``e``'s operation on ``a`` with the multiples of ``c`` taken out of ``a`` (None when
    there are none)."""
    terms, const = split_terms(a)
    whole: list[Expr] = []
    rest: list[Expr] = []
    for k, m in terms:
        q = divide_exact(mul(k, m), c)
        if q is None:
            rest.append(mul(k, m))
        else:
            whole.append(q)
    if type(c) is Integer and const % c.payload == 0:
        whole.append(Integer(const // c.payload))
    else:
        rest.append(Integer(const))
    if not whole:
        return None
    r = add(*rest)
    if type(r) is Integer and r.payload == 0 and type(e) is not FloorDiv:
        return r  # 0 % c is 0 wherever e is defined
    if type(e) is FloorDiv:
        return add(*whole, FloorDiv.make(r, c))
    return ModularIndexing.make(r, 1, c) if type(e) is ModularIndexing else Mod.make(r, c)


FLOOR_PROCEDURES = (
    Procedure("floors_in_sum", (Add,), floors_in_sum, _module_doc(__name__)),
    Procedure(
        "remainders_in_dividend",
        (FloorDiv, Mod, ModularIndexing),
        remainders_in_dividend,
        _module_doc(__name__),
    ),
)
