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
from collections.abc import Callable

from indexalg._bigint import int_to_str
from indexalg.errors import InvalidOperationError
from indexalg.expr import (
    OP_RECORDS,
    Add,
    BoolConst,
    CeilDiv,
    Expr,
    Integer,
    ModularIndexing,
    Mul,
    Not,
    Symbol,
    Where,
    Wild,
)
from indexalg.ops import Spelling
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


def _infix(op: str) -> Handler:
    return print_infix(op, PROD)


def _junction_word(word: str) -> Handler:
    return _junction(word, AND if word == "and" else OR)


#: The spellings of :class:`~indexalg.ops.Spelling` this printer writes.
_FORMS: dict[str, Callable[[str], Handler]] = {
    "call": _function,
    "infix": _infix,
    "compare": print_compare,
    "junction": _junction_word,
}

#: The ops this printer writes its own way (their records' ``python`` is None).
_OWN: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _symbol,
    Wild: wild_handler("Python"),
    Add: lambda e, p: print_add(e, p, _literal),
    Mul: lambda e, p: print_mul(e, p, _literal),
    ModularIndexing: _modular_indexing,
    CeilDiv: _ceildiv,
    Where: _where,
    BoolConst: lambda e, p: ("True" if e.payload else "False", ATOM),
    Not: _not,
}


def _spelled(s: Spelling) -> Handler:
    return _FORMS[s.form](s.word)


#: Every op: its record's spelling, or this printer's own handler.
PYTHON_TABLE: dict[type[Expr], Handler] = {
    **{cls: _spelled(op.python) for cls, op in OP_RECORDS if op.python is not None},
    **_OWN,
}


def to_python(e: Expr, *, nonneg: NonNeg | None = None) -> str:
    """Python source computing ``e`` with its symbols as Python ints in scope.

    ``nonneg`` is accepted for symmetry with the C and Triton printers and ignored: Python's
    ``//`` and ``%`` already have the floor semantics.  Raises
    :class:`~indexalg.errors.InvalidOperationError` for a pattern variable or a symbol named
    like a Python keyword, ``min`` or ``max``.
    """
    return CodePrinter(PYTHON_TABLE, None, "Python").text(e)
