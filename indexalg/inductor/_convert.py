"""sympy <-> indexalg for the plug-in, memoised, with Inductor's own symbols kept.

* :func:`to_ia` memoises :func:`indexalg.from_sympy` on the sympy object (sympy objects hash
  by structure and by their symbols' assumptions, so one key is one meaning).  Every symbol
  met is recorded by name; a second symbol with the same name but other assumptions is
  refused (the plug-in then falls back), so a name always maps back to one sympy Symbol.
* :func:`to_torch` builds the torch flavour (``FloorDiv``, ``ModularIndexing``,
  ``PythonMod``, ...) with the table of :mod:`indexalg.interop.sympy`, using the recorded
  Symbol objects (name *and* assumptions), memoised on the interned indexalg node.

Both memos are process-wide, bounded, and cleared by :func:`clear`.
"""

from __future__ import annotations

from typing import Any

from indexalg.errors import InteropError
from indexalg.expr import Expr
from indexalg.interop.sympy import TO_TORCH_TABLE, _import_torch_functions, _ToSympy
from indexalg.interop.sympy import from_sympy as _from_sympy

from ._state import Fallback

__all__ = ["to_ia", "to_torch", "clear", "symbol_for", "MEMO_LIMIT"]

#: Entries per memo before it is emptied (a compile of a large model meets a few thousand).
MEMO_LIMIT = 200_000

_FROM: dict[Any, Expr] = {}
_TO: dict[Expr, Any] = {}
_SYMBOLS: dict[str, Any] = {}
_CX: list[_ToSympy] = []


class _Builder(_ToSympy):
    """The torch-flavour builder of the interop module, answering symbols from the record."""

    __slots__ = ()

    def symbol(self, name: str) -> Any:
        s = _SYMBOLS.get(name)
        if s is None:
            raise Fallback("unknown_symbol")
        return s


def clear() -> None:
    _FROM.clear()
    _TO.clear()
    _SYMBOLS.clear()


def symbol_for(name: str) -> Any:
    """The sympy Symbol recorded under ``name`` (None if never met)."""
    return _SYMBOLS.get(name)


def register_symbol(sym: Any) -> None:
    """Record a sympy Symbol by name (a clash of assumptions raises :class:`Fallback`)."""
    name = str(sym.name)
    old = _SYMBOLS.setdefault(name, sym)
    if old is not sym and old != sym:
        raise Fallback("symbol_name_clash")


def to_ia(s: Any) -> Expr:
    """The indexalg expression of a sympy / torch expression (memoised).

    Raises :class:`Fallback` with reason ``"unreadable"`` when indexalg has no equivalent.
    """
    hit = _FROM.get(s)
    if hit is not None:
        return hit
    try:
        e = _from_sympy(s)
    except InteropError:
        raise Fallback("unreadable") from None
    for sym in getattr(s, "free_symbols", ()):
        register_symbol(sym)
    if len(_FROM) >= MEMO_LIMIT:
        _FROM.clear()
    _FROM[s] = e
    return e


def to_torch(e: Expr) -> Any:
    """The torch-flavour sympy expression of ``e`` over the recorded symbols (memoised)."""
    hit = _TO.get(e)
    if hit is not None:
        return hit
    if not _CX:
        import sympy

        _CX.append(_Builder(sympy, _import_torch_functions(), {}))
    cx = _CX[0]
    memo = _TO

    def go(node: Expr) -> Any:
        done = memo.get(node)
        if done is not None:
            return done
        handler = TO_TORCH_TABLE.get(type(node))
        if handler is None:
            raise Fallback("unprintable")
        out = handler(cx, node, [go(a) for a in node.args])
        memo[node] = out
        return out

    if len(_TO) >= MEMO_LIMIT:
        _TO.clear()
    return go(e)
