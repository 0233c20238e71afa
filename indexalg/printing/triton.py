"""Expr -> Triton expression text for the body of a ``@triton.jit`` kernel, computing
the floor semantics of docs/semantics.md.

On integer tensors Triton's ``//`` and ``%`` truncate toward zero as C's ``/`` and ``%`` do
(checked in Triton 3.9's interpreter and its compiled code), so the printer uses them only
where the dividend is known non-negative (the ``nonneg`` predicate, or the sound syntactic
default) and the divisor is a positive literal or known positive (``nonneg(b - 1)``).
Everywhere else it calls the exact ``@triton.jit`` helpers of :data:`TRITON_PREAMBLE`
(``ia_floordiv``, ``ia_mod``, ``ia_ceildiv``, built on ``tl.where``), which the generated
module defines once:

* ``FloorDiv``/``CleanDiv`` -> ``a // b`` or ``ia_floordiv(a, b)``;
* ``Mod`` -> ``a % b`` or ``ia_mod(a, b)``;
* ``CeilDiv`` -> ``(a + (c - 1)) // c`` (a known non-negative, c a positive literal) or
  ``ia_ceildiv(a, b)``;
* ``ModularIndexing(a, d, m)`` -> ``a // d % m`` when a is known non-negative and d and m
  are positive literals or known positive, else the helpers for the unproven steps, e.g.
  ``ia_mod(ia_floordiv(a, d), m)``, with an unproven m clamped by ``tl.maximum(m, 1)`` so
  that the value is in [0, m) on every lane, even one where the op is undefined;
* ``Min``/``Max`` -> ``tl.minimum``/``tl.maximum``, ``Where`` -> ``tl.where``, claims ->
  comparisons joined by ``&``, ``|`` and ``~`` (each operand parenthesised).

Symbols are names bound in the kernel (tensors or scalars).  ``tl.where`` computes both
branches and ``&``/``|`` both operands, so the printed code must not divide by zero even
where the value is not selected: the compiler treats a zero divisor as undefined behaviour
and may then drop the very condition that guarded it (on an H200, Triton 3.6 compiled
``tl.where(y == 0, 0, x // y)`` to garbage at y = 0).  So native ``//`` and ``%`` take only
non-zero literal or known-positive divisors, and the helpers replace a zero divisor by 1
(their value there is unspecified; the evaluator raises).  A literal outside int64 is
refused.
"""

from __future__ import annotations

import keyword

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
    ATOM,
    BAND,
    BOR,
    HELPER_VALUES,
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

__all__ = ["TRITON_PREAMBLE", "TRITON_TABLE", "to_triton"]

#: The ``@triton.jit`` helpers the printed text may call: floor division, floor remainder
#: and exact ceiling division for any signs (b != 0).  Emit once at module level of the
#: generated kernel source, before the kernels.
TRITON_PREAMBLE = '''\
import triton
import triton.language as tl


@triton.jit
def ia_floordiv(a, b):
    """floor(a / b), any signs (Triton's // truncates).  A zero divisor is replaced by 1:
    no lane ever divides by zero (undefined behaviour the compiler may exploit), and the
    value there is unspecified (the evaluator raises)."""
    b = tl.where(b == 0, 1, b)
    q = a // b
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), q - 1, q)


@triton.jit
def ia_mod(a, b):
    """a - b * floor(a / b): the sign of b (Triton's % takes the sign of a).  A zero
    divisor is replaced by 1, as in ia_floordiv."""
    b = tl.where(b == 0, 1, b)
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)


@triton.jit
def ia_ceildiv(a, b):
    """ceil(a / b), any signs.  A zero divisor is replaced by 1, as in ia_floordiv."""
    b = tl.where(b == 0, 1, b)
    q = a // b
    r = a % b
    return tl.where((r != 0) & ((r < 0) == (b < 0)), q + 1, q)
'''

_RESERVED = frozenset({"tl", "triton", "ia_floordiv", "ia_mod", "ia_ceildiv"})


def _literal(v: int) -> str:
    int64_literal(v, "Triton")
    if v == -(2**63):
        return "(-9223372036854775807 - 1)"  # 9223372036854775808 itself is not an int64
    return str(v)


def _integer(e: Expr, p: CodePrinter) -> Printed:
    text = _literal(e.payload)
    return text, (UNARY if text.startswith("-") else ATOM)


def _symbol(e: Expr, p: CodePrinter) -> Printed:
    name: str = e.payload
    if keyword.iskeyword(name) or name in _RESERVED:
        raise InvalidOperationError(
            f"the symbol {name!r} clashes with a name of the Triton kernel; rename it"
        )
    return name, ATOM


_floordiv, _mod, _ceildiv = truncating_division("//")


def _modular_indexing(e: Expr, p: CodePrinter) -> Printed:
    # tl.where computes unselected branches too, where d or m may be < 1.  The value there
    # is free, but it must cause no undefined behaviour and, since the syntactic rules call
    # ModularIndexing non-negative, must be >= 0 (it may feed a native division elsewhere).
    # So: native // only by a known-positive d, native % only of a known non-negative
    # quotient by a known-positive m, and an unproven m is clamped to >= 1.
    a, d, m = e.args
    if type(d) is Integer and d.payload == 1:
        quotient, quotient_nonneg = p.print(a), p.nonneg(a)
    elif p.native_division_ok(a, d):
        quotient, quotient_nonneg = native_division("//", a, d, p), True
    else:
        quotient, quotient_nonneg = p.call("ia_floordiv", a, d), False
    quotient_value = a if type(d) is Integer and d.payload == 1 else FloorDiv.make(a, d)
    p.note(quotient_value)
    if p.positive(m):
        if quotient_nonneg:
            text = quotient[0] if quotient[1] >= PROD else f"({quotient[0]})"
            p.note(FloorDiv.make(quotient_value, m))
            return f"{text} % {p.wrap(m, UNARY)}", PROD
        p.note(*HELPER_VALUES["ia_mod"](quotient_value, m))
        return f"ia_mod({quotient[0]}, {p.text(m)})", ATOM
    m1 = Max.make(m, 1)
    p.note(m1, *HELPER_VALUES["ia_mod"](quotient_value, m1))
    return f"ia_mod({quotient[0]}, tl.maximum({p.text(m)}, 1))", ATOM


def _fold(name: str) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        args = [p.text(a) for a in e.args]
        text = args[-1]
        for a in reversed(args[:-1]):
            text = f"{name}({a}, {text})"
        return text, ATOM

    return handler


def _junction(op: str, prec: int) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        # & and | bind tighter than comparisons: every comparison operand is parenthesised
        # (wrapping at BAND also parenthesises an | chain inside &).
        return f" {op} ".join(p.wrap(a, BAND) for a in e.args), prec

    return handler


def _not(e: Expr, p: CodePrinter) -> Printed:
    return f"~{p.wrap(e.args[0], ATOM)}", UNARY


TRITON_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _symbol,
    Wild: wild_handler("Triton"),
    Add: lambda e, p: print_add(e, p, _literal),
    Mul: lambda e, p: print_mul(e, p, _literal),
    FloorDiv: _floordiv,
    Mod: _mod,
    ModularIndexing: _modular_indexing,
    CeilDiv: _ceildiv,
    CleanDiv: _floordiv,  # evaluates as ⌊a/b⌋; the unproven exactness claim is not used
    Min: _fold("tl.minimum"),
    Max: _fold("tl.maximum"),
    Where: lambda e, p: p.call("tl.where", *e.args),
    BoolConst: lambda e, p: ("True" if e.payload else "False", ATOM),
    Lt: print_compare("<"),
    Le: print_compare("<="),
    Eq: print_compare("=="),
    Ne: print_compare("!="),
    And: _junction("&", BAND),
    Or: _junction("|", BOR),
    Not: _not,
}


def to_triton(e: Expr, *, nonneg: NonNeg | None = None) -> str:
    """Triton expression text computing ``e`` inside a ``@triton.jit`` kernel, with
    the floor semantics of docs/semantics.md; it may call the helpers of :data:`TRITON_PREAMBLE`.

    ``nonneg(x)`` says x is known non-negative (a fact the caller proved); it is consulted,
    together with sound syntactic rules, to print Triton's native ``//`` and ``%`` where
    they equal the floor operations.  Raises :class:`~indexalg.errors.InvalidOperationError`
    for a pattern variable, a symbol named like a keyword or a kernel name, or a literal
    outside int64.
    """
    return CodePrinter(TRITON_TABLE, nonneg, "Triton").text(e)
