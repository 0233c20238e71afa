"""sympy <-> indexalg for the plug-in, memoised, with Inductor's own symbols kept.

* :func:`to_ia` converts with one long-lived converter of :mod:`indexalg.interop.sympy`
  whose memo holds every sympy *subexpression* met (sympy objects hash by structure and by
  their symbols' assumptions, so one key is one meaning): the loop indices, sizes and
  ``FloorDiv`` terms Inductor's expressions share are converted once.  Every symbol met is
  recorded by name; a second symbol with the same name but other assumptions is refused
  (the plug-in then falls back), so a name always maps back to one sympy Symbol.
* Only integer symbols are read: a symbol whose sympy assumptions do not say
  ``integer=True`` (a ``SymFloat``'s ``real=True`` symbol, a plain ``Symbol("x")``) is
  refused with the reason ``non_integer_symbol``, so ``FloorToInt(f)`` never becomes ``f``.
* :func:`to_torch` builds the torch flavour (``FloorDiv``, ``ModularIndexing``,
  ``PythonMod``, ...) with the table of :mod:`indexalg.interop.sympy`, using the recorded
  Symbol objects (name *and* assumptions), memoised on the interned indexalg node; a node
  that came from Inductor's own sympy object is answered with that object (no sympy
  construction for the parts of an answer Inductor already had).  The form follows the
  semantics Inductor's printers give it, not the object met first: indexalg's ``Mod`` is
  always torch's ``PythonMod`` (never torch's ``Mod``, which prints as C's ``%`` and means
  Python's only on non-negative operands), and a ``ModularIndexing`` whose operands are not
  proven ``a >= 0, d >= 1, m >= 1`` (``unsafe``) is built as ``PythonMod(FloorDiv(a, d), m)``,
  which prints right for every sign, and is never served from or stored in the memo.

Both memos are process-wide, bounded, and cleared by :func:`clear`.
"""

from __future__ import annotations

from typing import Any

from indexalg.errors import InteropError
from indexalg.expr import Add, Expr, Mul, Symbol, add, mul
from indexalg.interop.sympy import (
    TO_TORCH_TABLE,
    _FromSympy,
    _import_torch_functions,
    _ToSympy,
)

from ._state import Fallback

__all__ = ["to_ia", "to_torch", "clear", "is_faithful", "symbol_for", "MEMO_LIMIT"]

#: Entries per memo before it is emptied (a compile of a large model meets a few thousand).
MEMO_LIMIT = 200_000

_FROM: dict[Any, Expr] = {}
_TO: dict[Expr, Any] = {}
_SYMBOLS: dict[str, Any] = {}
_CX: list[_ToSympy] = []
_FX: list[_FastFromSympy] = []


class _Builder(_ToSympy):
    """The torch-flavour builder of the interop module, answering symbols from the record."""

    __slots__ = ()

    def symbol(self, name: str) -> Any:
        s = _SYMBOLS.get(name)
        if s is None:
            raise Fallback("unknown_symbol")
        return s


def clear() -> None:
    _FAITHFUL.clear()
    _FROM.clear()
    _TO.clear()
    _SYMBOLS.clear()
    _FX.clear()


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
    e = _convert(s)
    if len(_FROM) >= MEMO_LIMIT:
        _FROM.clear()
    _FROM[s] = e
    return e


def _convert(s: Any) -> Expr:
    """``from_sympy(s)`` through the long-lived converter; its new memo entries also map
    back (indexalg node -> Inductor's sympy object) for :func:`to_torch`."""
    if not hasattr(s, "func"):
        raise Fallback("unreadable")  # Python ints and bools: not Inductor's index input
    if not _FX or len(_FX[0].memo) >= MEMO_LIMIT:
        import sympy

        if not _SP_ADD:
            _SP_ADD[:] = [sympy.Add, sympy.Mul]
        cx = _FastFromSympy(sympy)
        cx.memo = _Recording()
        _FX[:] = [cx]
    cx = _FX[0]
    memo = cx.memo
    new = memo.new  # type: ignore[attr-defined]
    new.clear()
    try:
        cx.prefill(s)
        e = cx.conv(s)
    except BaseException as exc:
        # the parts converted before the failure were never recorded (symbols, the map
        # back): forget them, so that a later conversion records them
        for obj, _ in new:
            memo.pop(obj, None)
        new.clear()
        if isinstance(exc, (InteropError, RecursionError)):
            raise Fallback("unreadable") from None
        raise
    try:  # a symbol is new to the converter's memo once: recorded then (a clash raises
        # before anything maps back, and forgets the memo that holds the clashing symbol);
        # a function of one that reads as the symbol itself (``TruncToInt(x0)``,
        # ``Identity(x0)``: x0 is an integer) is no symbol to record
        for obj, node in new:
            if type(node) is Symbol and obj.is_Symbol:
                register_symbol(obj)
    except Fallback:
        _FX.clear()
        raise
    if len(_FAITHFUL) >= MEMO_LIMIT:
        _FAITHFUL.clear()
    for obj, node in new:
        if _faithful(obj, node):
            _FAITHFUL.add(obj)
            _TO.setdefault(node, obj)
    return e


#: sympy objects whose own structure is their indexalg node's (a sum of the same terms, a
#: product of the same factors, the same function of the same arguments), all the way down
_FAITHFUL: set[Any] = set()

#: sympy / torch function name -> the indexalg node kind it converts to structurally
_SAME_KIND = {
    "FloorDiv": "FloorDiv",
    "ModularIndexing": "ModularIndexing",
    "CleanDiv": "CleanDiv",
    "PythonMod": "Mod",
    # not torch's Mod (C's % when printed): indexalg's Mod maps back to PythonMod only
    "Min": "Min",
    "Max": "Max",
    "Where": "Where",
}


def is_faithful(s: Any) -> bool:
    """Whether the sympy object ``s`` already has the form of its indexalg node: Inductor's
    own object is then the answer for that node.  Not so for ``s0*(2*q1 + 1)`` (indexalg's
    node is the expanded ``2*q1*s0 + s0``, the form ``SizeVarAllocator.simplify`` gives and
    Inductor's stride and tiling analyses read) nor for ``x**2``."""
    return s in _FAITHFUL


def _faithful(obj: Any, node: Expr) -> bool:
    args = obj.args
    if not args:
        return True
    if any(a not in _FAITHFUL for a in args):
        return False
    kind = type(node)
    if obj.is_Add:
        return kind is Add and len(args) == len(node.args) + (node.payload != 0)
    if obj.is_Mul:
        return kind is Mul and len(args) == len(node.args) + (node.payload != 1)
    want = _SAME_KIND.get(type(obj).__name__)
    return want == kind.__name__ and len(args) == len(node.args)


class _FastFromSympy(_FromSympy):
    """The interop converter with a short path for the sums and products of integer terms
    that make up most of Inductor's indices (``x0 + 3*x1 + 12*FloorDiv(x2, 4)``): their
    parts are converted and added / multiplied directly, skipping the exact-ratio reading
    that a rational coefficient or a power needs (those take the interop module's path)."""

    __slots__ = ()

    def conv(self, s: Any) -> Expr:
        done = self.memo.get(s)
        if done is not None:
            return done
        if s.is_Symbol and s.is_integer is not True:
            raise Fallback("non_integer_symbol")
        kind = type(s)
        if kind is _SP_ADD[0] or kind is _SP_ADD[1]:
            if all(_integral_term(a) for a in s.args):
                parts = [self.conv(a) for a in s.args]
                if not any(p.is_bool for p in parts):
                    out = add(*parts) if kind is _SP_ADD[0] else mul(*parts)
                    self.memo[s] = out
                    return out
        return super().conv(s)


#: (sympy.Add, sympy.Mul), filled on the first conversion
_SP_ADD: list[Any] = []


def _integral_term(a: Any) -> bool:
    """A sum's term or a product's factor read as an integer expression by itself: not a
    ratio, not a power, not a product holding either."""
    if a.is_Rational:
        return bool(a.is_Integer)
    if a.is_Pow:
        return False
    if a.is_Mul:
        return all(not (f.is_Pow or (f.is_Rational and not f.is_Integer)) for f in a.args)
    return True


class _Recording(dict[Any, Expr]):
    """The converter's memo, recording the entries added since the last ``new.clear()``."""

    __slots__ = ("new",)

    def __init__(self) -> None:
        super().__init__()
        self.new: list[tuple[Any, Expr]] = []

    def __setitem__(self, key: Any, value: Expr) -> None:
        self.new.append((key, value))
        super().__setitem__(key, value)


def to_torch(e: Expr, unsafe: frozenset[Expr] = frozenset()) -> Any:
    """The torch-flavour sympy expression of ``e`` over the recorded symbols (memoised).

    ``unsafe``: the ``ModularIndexing`` nodes of ``e`` that Inductor's printers would print
    wrongly (operands not proven ``a >= 0, d >= 1, m >= 1``); each is built as
    ``PythonMod(FloorDiv(a, d), m)``, and no node holding one is memoised."""
    if not _CX:
        import sympy

        _CX.append(_Builder(sympy, _import_torch_functions(), {}))
    cx = _CX[0]
    memo = _TO
    tainted: set[Expr] = set()
    if unsafe:
        clean: set[Expr] = set()

        def mark(node: Expr) -> bool:
            if node in tainted:
                return True
            if node in clean:
                return False
            bad = any([mark(a) for a in node.args]) or node in unsafe
            (tainted if bad else clean).add(node)
            return bad

        mark(e)
    else:
        hit = memo.get(e)
        if hit is not None:
            return hit
    local: dict[Expr, Any] = {}

    def go(node: Expr) -> Any:
        table = local if node in tainted else memo
        done = table.get(node)
        if done is not None:
            return done
        args = [go(a) for a in node.args]
        if node in unsafe:
            out = _python_mod_form(cx, args)
        else:
            handler = TO_TORCH_TABLE.get(type(node))
            if handler is None:
                raise Fallback("unprintable")
            out = handler(cx, node, args)
        table[node] = out
        return out

    if len(_TO) >= MEMO_LIMIT:
        _TO.clear()
    return go(e)


def _python_mod_form(cx: _ToSympy, args: list[Any]) -> Any:
    """``ModularIndexing(a, d, m)`` as ``PythonMod(FloorDiv(a, d), m)`` (``PythonMod(a, m)``
    when ``d`` is 1): floor semantics in every Inductor printer, whatever the signs."""
    a, d, m = args
    q = a if d == 1 else cx.build(cx.fns.FloorDiv, a, d)
    return cx.build(cx.fns.PythonMod, q, m)
