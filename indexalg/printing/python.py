"""Expr -> plain Python source.

Python's ``//`` and ``%`` are the floor operations of docs/semantics.md, so every
operation prints natively: ``//``, ``%``, ``min``, ``max``, ``(a if c else b)``,
``and``/``or``/``not``.  Evaluating the printed text with the symbols bound to ints gives
exactly :func:`indexalg.evaluate`'s value, with one exception: ``ModularIndexing(a, d, m)``
prints as ``a // d % m`` and so yields a value (or ``ZeroDivisionError``) where the evaluator
raises for d < 1 or m < 1.  ``Where`` evaluates only the branch it selects, as the evaluator
does; a zero divisor raises ``ZeroDivisionError``.
"""

from __future__ import annotations

import keyword

from indexalg._bigint import int_to_str
from indexalg.errors import InvalidOperationError
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
from indexalg.printing.common import (
    AND,
    ATOM,
    NOT,
    OR,
    PROD,
    UNARY,
    CodePrinter,
    Handler,
    NonNeg,
    Printed,
    negated,
    print_add,
    print_compare,
    print_infix,
    print_mul,
    wild_handler,
)

__all__ = ["PYTHON_TABLE", "to_python"]


def _literal(v: int) -> str:
    return int_to_str(v)


def _integer(e: Expr, p: CodePrinter) -> Printed:
    v: int = e.payload
    return int_to_str(v), (ATOM if v >= 0 else UNARY)


def _symbol(e: Expr, p: CodePrinter) -> Printed:
    name: str = e.payload
    if keyword.iskeyword(name) or name in ("min", "max"):
        raise InvalidOperationError(
            f"the symbol {name!r} clashes with a Python keyword or the builtin the printed "
            "code calls; rename it"
        )
    return name, ATOM


def _modular_indexing(e: Expr, p: CodePrinter) -> Printed:
    a, d, m = e.args
    if type(d) is Integer and d.payload == 1:
        return f"{p.wrap(a, PROD)} % {p.wrap(m, UNARY)}", PROD
    return f"{p.wrap(a, PROD)} // {p.wrap(d, UNARY)} % {p.wrap(m, UNARY)}", PROD


def _ceildiv(e: Expr, p: CodePrinter) -> Printed:
    # ⌈a/b⌉ = −⌊−a/b⌋ for either sign of b.
    a, b = e.args
    return f"(-({p.wrap(negated(a), PROD)} // {p.wrap(b, UNARY)}))", ATOM


def _function(name: str) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        return p.call(name, *e.args)

    return handler


def _where(e: Expr, p: CodePrinter) -> Printed:
    c, a, b = e.args
    return f"({p.text(a)} if {p.text(c)} else {p.text(b)})", ATOM


def _junction(word: str, prec: int) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        return f" {word} ".join(p.wrap(a, prec + 1) for a in e.args), prec

    return handler


def _not(e: Expr, p: CodePrinter) -> Printed:
    return f"not {p.wrap(e.args[0], NOT)}", NOT


PYTHON_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _symbol,
    Wild: wild_handler("Python"),
    Add: lambda e, p: print_add(e, p, _literal),
    Mul: lambda e, p: print_mul(e, p, _literal),
    FloorDiv: print_infix("//", PROD),
    Mod: print_infix("%", PROD),
    ModularIndexing: _modular_indexing,
    CeilDiv: _ceildiv,
    CleanDiv: print_infix("//", PROD),
    Min: _function("min"),
    Max: _function("max"),
    Where: _where,
    BoolConst: lambda e, p: ("True" if e.payload else "False", ATOM),
    Lt: print_compare("<"),
    Le: print_compare("<="),
    Eq: print_compare("=="),
    Ne: print_compare("!="),
    And: _junction("and", AND),
    Or: _junction("or", OR),
    Not: _not,
}


def to_python(e: Expr, *, nonneg: NonNeg | None = None) -> str:
    """Python source computing ``e`` with its symbols as Python ints in scope.

    ``nonneg`` is accepted for symmetry with the C and Triton printers and ignored: Python's
    ``//`` and ``%`` already have the floor semantics.  Raises
    :class:`~indexalg.errors.InvalidOperationError` for a pattern variable or a symbol named
    like a Python keyword, ``min`` or ``max``.
    """
    return CodePrinter(PYTHON_TABLE, None, "Python").text(e)
