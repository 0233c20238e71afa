"""One record per op: the facts about an op that the mechanical tables are read from.

An op's class in :mod:`indexalg.expr` states what the op means (its docstring) and builds
it; its :class:`Op` record here says the rest, as data: how many operands it takes, its value
(the evaluator's handler), how the text and Python printers spell it, the names the parser
reads, the sympy and torch functions it converts to, whether it divides, its weight in the
termination order and whether expanding a product must not copy it.  The tables keyed by op
that follow from these facts are derived from the records, each where it is used:

* ``evaluate.EVAL_TABLE`` from ``evaluate``;
* ``printing.TEXT_TABLE`` and ``printing.PYTHON_TABLE`` from ``text`` and ``python``, beside
  the handlers of the ops each printer writes its own way (``None`` here);
* ``parse._FUNCTIONS`` from ``parse`` and ``arity``;
* ``interop.sympy.TO_PLAIN_TABLE`` / ``TO_TORCH_TABLE`` from ``sympy`` and ``torch``;
* ``poly.DIVISION_KINDS`` / ``BINARY_DIVISIONS`` from ``division``;
* ``verify.NONPOLYNOMIAL`` / ``WEIGHTS`` from ``weight``;
* ``procedures.factored._COSTLY`` from ``costly``;
* ``testing.strategies.OPS`` from the order of :data:`RECORDS`.

The analyses (interval, symbolic, congruence), the Z3 encoding and the C and Triton printers
are handler tables of their own: what they do for an op is not a fact to write down but code,
and ``tests/test_architecture.py`` checks that each covers every op.

This module sits below :mod:`indexalg.expr` (the classes point at their records) and imports
only the standard library and :mod:`indexalg.errors` / :mod:`indexalg._bigint`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Union

from indexalg._bigint import int_summary
from indexalg.errors import DivisionByZeroError, ExprTypeError, InvalidOperationError

if TYPE_CHECKING:
    from indexalg.expr import Expr

__all__ = [
    "Op",
    "Spelling",
    "Division",
    "VARIADIC",
    "RECORDS",
    "BY_NAME",
    "Value",
    "Evaluator",
    "floordiv",
    "mod",
    "ceildiv",
    "lt",
    "le",
    "eq",
    "ne",
]

#: A value of the evaluator: an int, or a bool for a claim.
Value = Union[int, bool]
#: The evaluator's handler of an op: ``(node, ev) -> value``, where ``ev`` gives the value of
#: a child (evaluated on demand, so ``Where`` and the junctions evaluate only what they need).
Evaluator = Callable[["Expr", Callable[["Expr"], Value]], Value]

#: ``arity`` of an op that takes any number of operands (at least one).
VARIADIC = -1

#: Which kind of division an op is: ``"binary"`` is ``op(dividend, divisor)``,
#: ``"indexing"`` is ``ModularIndexing(a, d, m)``'s two divisors.
Division = Literal["binary", "indexing"]


@dataclass(frozen=True)
class Spelling:
    """How a printer writes an op from its operands.

    ``form`` is ``"call"`` (``word(a, b, ...)``), ``"infix"`` (``a word b`` at product
    precedence: ``//``, ``%``), ``"compare"`` (``a word b`` between sums) or ``"junction"``
    (``a word b word c``: Python's ``and`` / ``or``)."""

    form: Literal["call", "infix", "compare", "junction"]
    word: str


def call(word: str) -> Spelling:
    return Spelling("call", word)


def infix(word: str) -> Spelling:
    return Spelling("infix", word)


def compare(word: str) -> Spelling:
    return Spelling("compare", word)


def junction(word: str) -> Spelling:
    return Spelling("junction", word)


@dataclass(frozen=True, kw_only=True)
class Op:
    """The record of one op.  Every field is stated for every op (no defaults): a new op's
    author decides each one."""

    #: The class's name in :mod:`indexalg.expr`.
    name: str
    #: How many operands (children) it takes; :data:`VARIADIC` for n-ary ops.
    arity: int
    #: Its value, as the evaluator's handler (the one semantics; docs/semantics.md).
    evaluate: Evaluator
    #: The text printer's spelling; None where printing.text writes it its own way.
    text: Spelling | None
    #: The Python printer's spelling; None where printing.python writes it its own way.
    python: Spelling | None
    #: The names :func:`indexalg.parse` reads as ``Name(args)`` for this op.
    parse: tuple[str, ...]
    #: The plain sympy function called with the converted operands; None where
    #: interop.sympy converts it its own way.
    sympy: str | None
    #: The ``torch.utils._sympy.functions`` function called with the converted operands;
    #: None where the torch flavour uses plain sympy (``sympy``) or its own conversion.
    torch: str | None
    #: Whether it divides (its divisor must be non-zero where it is evaluated), and how.
    division: Division | None
    #: Its weight in the termination order of verify (0: polynomial ops and claims, which the
    #: order does not count; at least 1 for every other op).
    weight: int
    #: Whether expanding a product must not copy it (procedures.factored keeps such
    #: products factored where expanding would duplicate the op).
    costly: bool


# --- integer functions shared by the evaluator and the constructors ------------------------


def floordiv(a: int, b: int) -> int:
    """⌊a / b⌋; b = 0 raises :class:`DivisionByZeroError`."""
    if b == 0:
        raise DivisionByZeroError(f"division by zero: {int_summary(a)} // 0")
    return a // b


def mod(a: int, b: int) -> int:
    """a − b·⌊a / b⌋ (sign of b); b = 0 raises :class:`DivisionByZeroError`."""
    if b == 0:
        raise DivisionByZeroError(f"remainder by zero: {int_summary(a)} % 0")
    return a % b


def ceildiv(a: int, b: int) -> int:
    """⌈a / b⌉ for any sign of b."""
    if b == 0:
        raise DivisionByZeroError(f"division by zero: CeilDiv({int_summary(a)}, 0)")
    return -((-a) // b)


# --- the evaluator's handlers ----------------------------------------------------------------


def _int(v: Value, e: Expr) -> int:
    if isinstance(v, bool):  # pragma: no cover - constructors forbid it
        raise ExprTypeError(f"a claim where an integer belongs: {e}")
    return v


def _payload(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    v: int = e.payload
    return v


def _lookup(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    return ev(e)  # a symbol: resolved by the environment lookup in evaluate()


def _add(e: Expr, ev: Callable[[Expr], Value]) -> int:
    total: int = e.payload
    for t in e.args:
        total += _int(ev(t), t)
    return total


def _mul(e: Expr, ev: Callable[[Expr], Value]) -> int:
    prod: int = e.payload
    for f in e.args:
        prod *= _int(ev(f), f)
    return prod


def _binary(fn: Callable[[int, int], Value]) -> Evaluator:
    def handler(e: Expr, ev: Callable[[Expr], Value]) -> Value:
        a, b = e.args
        return fn(_int(ev(a), a), _int(ev(b), b))

    return handler


def _modular_indexing(e: Expr, ev: Callable[[Expr], Value]) -> int:
    a, d, m = (_int(ev(x), x) for x in e.args)
    if d < 1:
        raise InvalidOperationError(
            f"ModularIndexing divisor must be >= 1, got {int_summary(d)} in {e}"
        )
    if m < 1:
        raise InvalidOperationError(
            f"ModularIndexing modulus must be >= 1, got {int_summary(m)} in {e}"
        )
    return (a // d) % m


def _min(e: Expr, ev: Callable[[Expr], Value]) -> int:
    return min(_int(ev(a), a) for a in e.args)


def _max(e: Expr, ev: Callable[[Expr], Value]) -> int:
    return max(_int(ev(a), a) for a in e.args)


def _where(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    c, a, b = e.args
    return ev(a) if ev(c) else ev(b)


def _bool(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    return bool(e.payload)


def _and(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    return all(ev(a) for a in e.args)


def _or(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    return any(ev(a) for a in e.args)


def _not(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    return not ev(e.args[0])


# the comparisons, also the folding of the claim classes in expr.py


def lt(a: int, b: int) -> bool:
    return a < b


def le(a: int, b: int) -> bool:
    return a <= b


def eq(a: int, b: int) -> bool:
    return a == b


def ne(a: int, b: int) -> bool:
    return a != b


# --- the records -----------------------------------------------------------------------------
# Leaves, sums and products, and claims: no division, nothing the termination order counts.

INTEGER: Op = Op(
    name="Integer", arity=0, evaluate=_payload, text=None, python=None, parse=(),
    sympy=None, torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
SYMBOL: Op = Op(
    name="Symbol", arity=0, evaluate=_lookup, text=None, python=None, parse=(),
    sympy=None, torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
ADD: Op = Op(
    name="Add", arity=VARIADIC, evaluate=_add, text=None, python=None, parse=(),
    sympy=None, torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
MUL: Op = Op(
    name="Mul", arity=VARIADIC, evaluate=_mul, text=None, python=None, parse=(),
    sympy=None, torch=None, division=None, weight=0, costly=False,
)  # fmt: skip

# Divisions.  CleanDiv evaluates, prints in Python and converts to plain sympy as FloorDiv.

FLOORDIV: Op = Op(
    name="FloorDiv", arity=2, evaluate=_binary(floordiv), text=infix("//"),
    python=infix("//"), parse=("FloorDiv",), sympy=None, torch="FloorDiv",
    division="binary", weight=2, costly=True,
)  # fmt: skip
MODULAR_INDEXING: Op = Op(
    name="ModularIndexing", arity=3, evaluate=_modular_indexing,
    text=call("ModularIndexing"), python=None, parse=("ModularIndexing",), sympy=None,
    torch="ModularIndexing", division="indexing", weight=3, costly=True,
)  # fmt: skip
MOD: Op = Op(
    name="Mod", arity=2, evaluate=_binary(mod), text=None, python=infix("%"),
    parse=("Mod", "PythonMod"), sympy="Mod", torch="PythonMod", division="binary",
    weight=4, costly=True,
)  # fmt: skip
CEILDIV: Op = Op(
    name="CeilDiv", arity=2, evaluate=_binary(ceildiv), text=call("CeilDiv"), python=None,
    parse=("CeilDiv",), sympy=None, torch=None, division="binary", weight=3, costly=True,
)  # fmt: skip
CLEANDIV: Op = Op(
    name="CleanDiv", arity=2, evaluate=_binary(floordiv), text=call("CleanDiv"),
    python=infix("//"), parse=("CleanDiv",), sympy=None, torch="CleanDiv",
    division="binary", weight=5, costly=True,
)  # fmt: skip

# Min, Max and Where hold divisions: expanding a product must not copy them either.

MIN: Op = Op(
    name="Min", arity=VARIADIC, evaluate=_min, text=call("Min"), python=call("min"),
    parse=("Min", "min"), sympy="Min", torch="Min", division=None, weight=1, costly=True,
)  # fmt: skip
MAX: Op = Op(
    name="Max", arity=VARIADIC, evaluate=_max, text=call("Max"), python=call("max"),
    parse=("Max", "max"), sympy="Max", torch="Max", division=None, weight=1, costly=True,
)  # fmt: skip
WHERE: Op = Op(
    name="Where", arity=3, evaluate=_where, text=call("Where"), python=None,
    parse=("Where",), sympy=None, torch="Where", division=None, weight=1, costly=True,
)  # fmt: skip

# Claims.

BOOL_CONST: Op = Op(
    name="BoolConst", arity=0, evaluate=_bool, text=None, python=None, parse=(),
    sympy=None, torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
LT: Op = Op(
    name="Lt", arity=2, evaluate=_binary(lt), text=compare("<"), python=compare("<"),
    parse=("Lt",), sympy="Lt", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
LE: Op = Op(
    name="Le", arity=2, evaluate=_binary(le), text=compare("<="), python=compare("<="),
    parse=("Le",), sympy="Le", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
EQ: Op = Op(
    name="Eq", arity=2, evaluate=_binary(eq), text=compare("=="), python=compare("=="),
    parse=("Eq",), sympy="Eq", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
NE: Op = Op(
    name="Ne", arity=2, evaluate=_binary(ne), text=compare("!="), python=compare("!="),
    parse=("Ne",), sympy="Ne", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
AND: Op = Op(
    name="And", arity=VARIADIC, evaluate=_and, text=call("And"), python=junction("and"),
    parse=("And",), sympy="And", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
OR: Op = Op(
    name="Or", arity=VARIADIC, evaluate=_or, text=call("Or"), python=junction("or"),
    parse=("Or",), sympy="Or", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip
NOT: Op = Op(
    name="Not", arity=1, evaluate=_not, text=call("Not"), python=None, parse=("Not",),
    sympy="Not", torch=None, division=None, weight=0, costly=False,
)  # fmt: skip

#: Every record.  The integer ops come in the order the strategies' examples shrink through
#: (:data:`indexalg.testing.strategies.OPS`: a failing ``Where`` example is tried again as
#: a sum first), then the claims.
RECORDS: tuple[Op, ...] = (
    INTEGER, SYMBOL, ADD, MUL, FLOORDIV, MODULAR_INDEXING, MOD, CEILDIV, CLEANDIV,
    MIN, MAX, WHERE, BOOL_CONST, LT, LE, EQ, NE, AND, OR, NOT,
)  # fmt: skip

#: Each record by its op's class name.
BY_NAME: Mapping[str, Op] = {op.name: op for op in RECORDS}
