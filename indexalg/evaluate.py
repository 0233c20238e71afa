"""The reference evaluator: the ground truth every test, analysis and printer is checked
against.  One table keyed by node class implements the semantics of docs/semantics.md exactly."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Union

from indexalg._bigint import int_summary
from indexalg.errors import (
    DivisionByZeroError,
    ExprTypeError,
    IndexAlgError,
    InvalidOperationError,
    UnboundSymbolError,
)
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
    postorder,
)

__all__ = ["evaluate", "EVAL_TABLE", "floordiv", "mod", "ceildiv"]

Value = Union[int, bool]
Env = Mapping[str, int]
Handler = Callable[[Expr, Callable[[Expr], Value]], Value]


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


def _int(v: Value, e: Expr) -> int:
    if isinstance(v, bool):  # pragma: no cover - constructors forbid it
        raise ExprTypeError(f"a claim where an integer belongs: {e}")
    return v


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


def _where(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    c, a, b = e.args
    return ev(a) if ev(c) else ev(b)


def _wild(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    raise InvalidOperationError(f"cannot evaluate the pattern variable {e}")


def _binary(fn: Callable[[int, int], Value]) -> Handler:
    def handler(e: Expr, ev: Callable[[Expr], Value]) -> Value:
        a, b = e.args
        return fn(_int(ev(a), a), _int(ev(b), b))

    return handler


EVAL_TABLE: dict[type[Expr], Handler] = {
    Integer: lambda e, ev: e.payload,  # type: ignore[no-any-return]
    Symbol: lambda e, ev: ev(e),  # resolved by the environment lookup in evaluate()
    Wild: _wild,
    Add: _add,
    Mul: _mul,
    FloorDiv: _binary(floordiv),
    Mod: _binary(mod),
    CeilDiv: _binary(ceildiv),
    CleanDiv: _binary(floordiv),
    ModularIndexing: _modular_indexing,
    Min: lambda e, ev: min(_int(ev(a), a) for a in e.args),
    Max: lambda e, ev: max(_int(ev(a), a) for a in e.args),
    Where: _where,
    BoolConst: lambda e, ev: bool(e.payload),
    Lt: _binary(lambda a, b: a < b),
    Le: _binary(lambda a, b: a <= b),
    Eq: _binary(lambda a, b: a == b),
    Ne: _binary(lambda a, b: a != b),
    And: lambda e, ev: all(ev(a) for a in e.args),
    Or: lambda e, ev: any(ev(a) for a in e.args),
    Not: lambda e, ev: not ev(e.args[0]),
}


def evaluate(e: Expr, env: Mapping[str, int] | Mapping[Expr, int] | None = None) -> Value:
    """The value of ``e`` (an int, or a bool for a claim) with symbols bound by ``env``.

    ``env`` maps symbol names (or Symbol nodes) to ints.  Raises
    :class:`~indexalg.errors.UnboundSymbolError` for a symbol with no value,
    :class:`~indexalg.errors.DivisionByZeroError` for a zero divisor and
    :class:`~indexalg.errors.InvalidOperationError` for ModularIndexing with d < 1 or m < 1.
    ``Where`` evaluates only the branch it selects.
    """
    values: dict[str, int] = {}
    for k, v in (env or {}).items():
        name = k.payload if isinstance(k, Expr) and type(k) is Symbol else k
        if not isinstance(name, str):
            raise ExprTypeError(f"environment keys must be symbol names, got {k!r}")
        if isinstance(v, bool) or not isinstance(v, int):
            raise ExprTypeError(f"value of {name!r} must be an int, got {v!r}")
        values[name] = int(v)
    memo: dict[Expr, Value] = {}

    def ev(x: Expr) -> Value:
        if type(x) is Symbol:
            try:
                return values[x.payload]
            except KeyError:
                raise UnboundSymbolError(x.payload) from None
        hit = memo.get(x)
        if hit is not None:
            return hit
        r = EVAL_TABLE[type(x)](x, ev)
        memo[x] = r
        return r

    if e.depth > _PREFILL_DEPTH:
        # Evaluate a deep expression bottom-up, every _PREFILL_STEP levels, so that no
        # evaluation recurses deeply.  Best effort: a subterm that fails (a branch Where
        # does not select may divide by zero) is evaluated again, and fails, only if the
        # real evaluation reaches it.
        for node in postorder(e):
            if node.depth % _PREFILL_STEP == 0:
                with contextlib.suppress(IndexAlgError):
                    ev(node)
    return ev(e)


_PREFILL_DEPTH = 24
_PREFILL_STEP = 8
