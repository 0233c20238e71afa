"""Expr -> C expression text over ``int64_t`` computing the floor semantics of docs/semantics.md.

C's ``/`` and ``%`` truncate toward zero, which equals the floor only when the dividend is
non-negative and the divisor positive.  The printer uses them exactly there: where the
dividend is known non-negative (the ``nonneg`` predicate, or the sound syntactic default of
:func:`~indexalg.printing.common.syntactic_nonneg`) and the divisor is a positive literal
or known positive (``nonneg(b - 1)``).  Everywhere else it calls the exact helpers of
:data:`C_PREAMBLE` (``ia_floordiv``, ``ia_mod``, ``ia_ceildiv``), which the caller emits once
per translation unit:

* ``FloorDiv``/``CleanDiv`` -> ``a / b`` or ``ia_floordiv(a, b)``;
* ``Mod`` -> ``a % b`` or ``ia_mod(a, b)`` (the sign of b, as Python's ``%``);
* ``CeilDiv`` -> ``(a + (c - 1)) / c`` (a known non-negative, c a positive literal) or
  ``ia_ceildiv(a, b)``, exact for either sign of b;
* ``ModularIndexing(a, d, m)`` -> ``a / d % m`` when a is known non-negative (d and m are
  >= 1 wherever it is defined, and C evaluates an operation only where its value is
  needed: ``?:``, ``&&`` and ``||`` skip what they do not select), else
  ``ia_mod(ia_floordiv(a, d), m)``;
* ``Min``/``Max`` -> ``ia_min``/``ia_max`` (each operand evaluated once), ``Where`` -> ``?:``
  (only the selected branch is evaluated), claims -> ``<``, ``&&``, ``||``, ``!`` (0 or 1).

So Inductor's fault, ``ModularIndexing(x0 - 1, 1, 8)`` printed as ``(x0 - 1) % 8`` and
yielding -1 at x0 = 0, cannot happen: ``x0 - 1`` is not known non-negative, and the text is
``ia_mod(x0 - 1, 8)`` = 7.  Symbols are ``int64_t`` variables; literals that do not fit
``int32_t`` print as ``INT64_C(...)``; a literal outside int64 is refused.  Arithmetic is
int64: the caller is responsible for values staying in range.  Evaluating
``ModularIndexing`` with d < 1 or m < 1, or dividing by zero, is undefined in the printed
C as it is an error in the evaluator.
"""

from __future__ import annotations

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
    HELPER_VALUES,
    NOT,
    OR,
    PROD,
    UNARY,
    CodePrinter,
    Handler,
    NonNeg,
    Printed,
    int64_literal,
    native_division,
    print_add,
    print_compare,
    print_mul,
    truncating_division,
    wild_handler,
)

__all__ = ["C_PREAMBLE", "C_TABLE", "to_c"]

#: Helpers the printed C calls: floor division, floor remainder and exact ceiling division
#: for any signs (b != 0), and single-evaluation min/max.  Emit once before the printed code.
C_PREAMBLE = """\
#include <stdint.h>

/* floor(a / b) for b != 0, any signs (Python's a // b). */
static inline int64_t ia_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* a - b * floor(a / b) for b != 0: the sign of b (Python's a % b). */
static inline int64_t ia_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/* ceil(a / b) for b != 0, any signs. */
static inline int64_t ia_ceildiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
}

static inline int64_t ia_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t ia_max(int64_t a, int64_t b) { return a > b ? a : b; }
"""

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1

# C keywords and the names the printed code relies on; a symbol may not take them.
_RESERVED = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "int64_t",
        "INT64_C",
        "ia_floordiv",
        "ia_mod",
        "ia_ceildiv",
        "ia_min",
        "ia_max",
    ]
)


def _literal(v: int) -> str:
    int64_literal(v, "C")
    if _INT32_MIN <= v <= _INT32_MAX:
        return str(v)
    if v == -(2**63):
        return "(-INT64_C(9223372036854775807) - 1)"
    return f"INT64_C({v})"


def _integer(e: Expr, p: CodePrinter) -> Printed:
    v: int = e.payload
    text = _literal(v)
    return text, (UNARY if text.startswith("-") else ATOM)


def _symbol(e: Expr, p: CodePrinter) -> Printed:
    name: str = e.payload
    if name in _RESERVED or not name.isascii():
        raise InvalidOperationError(f"the symbol {name!r} cannot be a C identifier; rename it")
    return name, ATOM


_floordiv, _mod, _ceildiv = truncating_division("/")


def _modular_indexing(e: Expr, p: CodePrinter) -> Printed:
    a, d, m = e.args
    unit = type(d) is Integer and d.payload == 1
    if p.nonneg(a):
        # d >= 1 and m >= 1 wherever ModularIndexing is defined, so a // d >= 0 and both
        # truncating operations are the floor ones.
        if unit:
            return native_division("%", a, m, p)
        p.note(FloorDiv.make(a, d))
        return f"{p.wrap(a, PROD)} / {p.wrap(d, UNARY)} % {p.wrap(m, UNARY)}", PROD
    quotient = p.text(a) if unit else p.call("ia_floordiv", a, d)[0]
    p.note(*HELPER_VALUES["ia_mod"](a if unit else FloorDiv.make(a, d), m))
    return f"ia_mod({quotient}, {p.text(m)})", ATOM


def _fold(name: str) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        args = [p.text(a) for a in e.args]
        text = args[-1]
        for a in reversed(args[:-1]):
            text = f"{name}({a}, {text})"
        return text, ATOM

    return handler


def _where(e: Expr, p: CodePrinter) -> Printed:
    c, a, b = e.args
    return f"({p.text(c)} ? {p.text(a)} : {p.text(b)})", ATOM


def _junction(op: str, prec: int) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        # Operands of || that are && chains get parentheses too (clearer, and no -Wparentheses).
        return f" {op} ".join(p.wrap(a, NOT) for a in e.args), prec

    return handler


def _not(e: Expr, p: CodePrinter) -> Printed:
    return f"!{p.wrap(e.args[0], ATOM)}", UNARY


C_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _symbol,
    Wild: wild_handler("C"),
    Add: lambda e, p: print_add(e, p, _literal),
    Mul: lambda e, p: print_mul(e, p, _literal),
    FloorDiv: _floordiv,
    Mod: _mod,
    ModularIndexing: _modular_indexing,
    CeilDiv: _ceildiv,
    CleanDiv: _floordiv,  # evaluates as ⌊a/b⌋; the unproven exactness claim is not used
    Min: _fold("ia_min"),
    Max: _fold("ia_max"),
    Where: _where,
    BoolConst: lambda e, p: ("1" if e.payload else "0", ATOM),
    Lt: print_compare("<"),
    Le: print_compare("<="),
    Eq: print_compare("=="),
    Ne: print_compare("!="),
    And: _junction("&&", AND),
    Or: _junction("||", OR),
    Not: _not,
}


def to_c(e: Expr, *, nonneg: NonNeg | None = None) -> str:
    """A C expression (``int64_t`` for integers, ``int`` 0/1 for claims) computing ``e``
    with the floor semantics of docs/semantics.md; it may call the helpers of :data:`C_PREAMBLE`.

    ``nonneg(x)`` says x is known non-negative (a fact the caller proved, e.g. from the
    symbols' ranges); it is consulted, together with sound syntactic rules, to print C's
    native ``/`` and ``%`` where they equal the floor operations.  Raises
    :class:`~indexalg.errors.InvalidOperationError` for a pattern variable, a symbol that is
    not a usable C identifier, or a literal outside int64.
    """
    return CodePrinter(C_TABLE, nonneg, "C").text(e)
