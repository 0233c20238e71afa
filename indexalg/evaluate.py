"""The reference evaluator: the ground truth every test, analysis and printer is checked
against.  One table keyed by node class implements the semantics of docs/semantics.md exactly;
each op's handler is its record's (:mod:`indexalg.ops`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping

from indexalg.errors import ExprTypeError, IndexAlgError, InvalidOperationError, UnboundSymbolError
from indexalg.expr import OP_RECORDS, Expr, Symbol, Wild, postorder
from indexalg.ops import Evaluator, Value, ceildiv, floordiv, mod

__all__ = ["evaluate", "EVAL_TABLE", "floordiv", "mod", "ceildiv"]

Env = Mapping[str, int]
Handler = Evaluator


def _wild(e: Expr, ev: Callable[[Expr], Value]) -> Value:
    raise InvalidOperationError(f"cannot evaluate the pattern variable {e}")


#: Every op's record's handler, and the pattern variable's refusal.
EVAL_TABLE: dict[type[Expr], Handler] = {
    **{cls: op.evaluate for cls, op in OP_RECORDS},
    Wild: _wild,
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
