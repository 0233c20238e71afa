"""Conversion between indexalg expressions and sympy, both ways, in two flavours.

* ``flavor="sympy"``: plain sympy.  ``FloorDiv(a, b)`` is ``floor(a/b)``, ``CeilDiv(a, b)`` is
  ``ceiling(a/b)``, ``Mod`` is sympy's ``Mod`` (Python semantics: the sign of the divisor),
  ``ModularIndexing(a, d, m)`` is ``Mod(floor(a/d), m)``, ``CleanDiv`` is ``floor(a/b)`` and
  ``Where(c, a, b)`` is ``Piecewise((a, c), (b, True))``.
* ``flavor="torch"``: the functions of ``torch.utils._sympy.functions`` that Inductor uses:
  ``FloorDiv``, ``ModularIndexing``, ``CleanDiv``, ``PythonMod`` (our ``Mod``: torch's own
  ``Mod`` is defined only for a non-negative dividend), ``Min``, ``Max``, ``Where``.  torch
  has no ceiling-division node (its ``CeilDiv`` builds ``FloorDiv(a + b - 1, b)``, wrong for
  b < 0), so ``CeilDiv(a, b)`` is printed as ``FloorDiv(a + b - 1, b)`` only when b is a
  positive literal, and as ``-FloorDiv(-a, b)`` (exact for any sign) otherwise.

:func:`to_sympy` builds every function node with ``evaluate=False`` (a node over constants
only is computed at once): sympy's and torch's automatic evaluation may not change what it is
given (torch folds ``FloorDiv(FloorDiv(n, 2), -3)`` to ``n // -6``, wrong at n = 7).  Sums and
products are built normally (sympy's arithmetic on them is exact).  Symbols are
``integer=True``, with ``nonnegative`` or ``positive`` added where ``hints`` asks for it.

:func:`from_sympy` reads both flavours (and the forms sympy's own evaluation produces:
``floor(x/2 + y/4)``, ``floor(x/y)``, ``Mod(floor(x/8), 4)``, ``Piecewise`` chains, relations
with rational sides).  What has no exact indexalg equivalent (rationals outside ``floor`` /
``ceiling``, floats, infinities, ``IntTrueDiv``, a ``Piecewise`` with no ``True`` branch,
...) raises :class:`~indexalg.errors.InteropError` naming the object.

sympy (and torch, for its flavour) is imported inside the functions: importing this module
costs nothing.  Both directions are tables keyed by class.
"""

from __future__ import annotations

import functools
import math
import sys
from collections.abc import Callable, Mapping
from typing import Any

from indexalg.errors import DepthError, IndexAlgError, InteropError
from indexalg.expr import (
    OP_RECORDS,
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
    add,
    false,
    integer,
    mul,
    postorder,
    true,
)

__all__ = ["FLAVORS", "HINTS", "TO_PLAIN_TABLE", "TO_TORCH_TABLE", "from_sympy", "to_sympy"]

#: The accepted values of ``to_sympy(..., flavor=...)``.
FLAVORS: tuple[str, ...] = ("sympy", "torch")
#: The accepted values of ``to_sympy(..., hints={name: hint})``: sympy assumptions added to
#: ``integer=True`` on that symbol.
HINTS: Mapping[str, Mapping[str, bool]] = {
    "integer": {},
    "nonnegative": {"nonnegative": True},
    "positive": {"positive": True},
}

_TORCH_FUNCTIONS = "torch.utils._sympy.functions"
_ONE = integer(1)

# =======================================================================================
# indexalg -> sympy


class _ToSympy:
    """One conversion: the sympy module, torch's functions (torch flavour) and caches."""

    __slots__ = ("fns", "hints", "memo", "sp", "symbols")

    def __init__(self, sp: Any, fns: Any, hints: Mapping[str, str]) -> None:
        self.sp = sp
        self.fns = fns
        self.hints = hints
        self.symbols: dict[str, Any] = {}
        self.memo: dict[Expr, Any] = {}

    def symbol(self, name: str) -> Any:
        s = self.symbols.get(name)
        if s is None:
            extra = HINTS[self.hints.get(name, "integer")]
            s = self.sp.Symbol(name, integer=True, **extra)
            self.symbols[name] = s
        return s

    def ratio(self, a: Any, b: Any) -> Any:
        """The exact rational ``a/b`` as a sympy expression (the argument of floor/ceiling)."""
        return self.sp.Mul(a, self.sp.Pow(b, -1))

    def build(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` unevaluated, except over constants (sympy can cancel a subtree to
        one, e.g. ``floor(a/b) - floor(a/b)``): substituting values never rebuilds a constant
        node, so it is computed now, which on literals is exact."""
        if any(_free(a) for a in args):
            return fn(*args, evaluate=False)
        return fn(*args)


def _free(arg: Any) -> bool:
    """Whether a builder argument (a sympy object or a Piecewise pair) has a symbol."""
    if isinstance(arg, tuple):
        return any(_free(a) for a in arg)
    return bool(arg.free_symbols)


ToHandler = Callable[[_ToSympy, Expr, list[Any]], Any]


def _t_integer(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.sp.Integer(e.payload)


def _t_symbol(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.symbol(e.payload)


def _t_add(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.sp.Add(*args, cx.sp.Integer(e.payload))


def _t_mul(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.sp.Mul(cx.sp.Integer(e.payload), *args)


def _t_bool(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.sp.true if e.payload else cx.sp.false


def _sympy_call(name: str) -> ToHandler:
    """``sympy.<name>(*args)``, unevaluated."""

    def handler(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
        return cx.build(getattr(cx.sp, name), *args)

    return handler


def _torch_call(name: str) -> ToHandler:
    """``torch.utils._sympy.functions.<name>(*args)``, unevaluated."""

    def handler(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
        return cx.build(getattr(cx.fns, name), *args)

    return handler


def _t_floor(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.build(cx.sp.floor, cx.ratio(*args))


def _t_ceiling(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    return cx.build(cx.sp.ceiling, cx.ratio(*args))


def _t_plain_modular_indexing(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    a, d, m = args
    if e.args[1] is _ONE:
        return cx.build(cx.sp.Mod, a, m)
    return cx.build(cx.sp.Mod, cx.build(cx.sp.floor, cx.ratio(a, d)), m)


def _t_piecewise(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    c, a, b = args
    return cx.build(cx.sp.Piecewise, (a, c), (b, cx.sp.true))


def _t_torch_ceildiv(cx: _ToSympy, e: Expr, args: list[Any]) -> Any:
    a, b = args
    divisor = e.args[1]
    floordiv = cx.fns.FloorDiv
    if type(divisor) is Integer and divisor.payload > 0:
        # ⌈a/b⌉ = ⌊(a + b − 1)/b⌋ holds for b ≥ 1 only.
        return cx.build(floordiv, cx.sp.Add(a, cx.sp.Integer(divisor.payload - 1)), b)
    # ⌈a/b⌉ = −⌊−a/b⌋ for any non-zero b.
    return cx.sp.Mul(-1, cx.build(floordiv, cx.sp.Mul(-1, a), b))


#: The ops converted their own way in both flavours (their records name no sympy function).
_TO_OWN: dict[type[Expr], ToHandler] = {
    Integer: _t_integer,
    Symbol: _t_symbol,
    Add: _t_add,
    Mul: _t_mul,
    BoolConst: _t_bool,
}

#: indexalg node class -> plain sympy builder: the record's sympy function, or this module's
#: own conversion.
TO_PLAIN_TABLE: dict[type[Expr], ToHandler] = {
    **{cls: _sympy_call(op.sympy) for cls, op in OP_RECORDS if op.sympy is not None},
    **_TO_OWN,
    FloorDiv: _t_floor,
    CleanDiv: _t_floor,
    CeilDiv: _t_ceiling,
    ModularIndexing: _t_plain_modular_indexing,
    Where: _t_piecewise,
}

#: indexalg node class -> torch.utils._sympy builder: the record's torch function, else its
#: plain sympy function, or this module's own conversion.
TO_TORCH_TABLE: dict[type[Expr], ToHandler] = {
    **{cls: _sympy_call(op.sympy) for cls, op in OP_RECORDS if op.sympy is not None},
    **{cls: _torch_call(op.torch) for cls, op in OP_RECORDS if op.torch is not None},
    **_TO_OWN,
    CeilDiv: _t_torch_ceildiv,
}


def _import_sympy() -> Any:
    try:
        import sympy
    except ImportError as exc:  # pragma: no cover - sympy is installed in development
        raise InteropError("sympy interop needs sympy: pip install 'indexalg[sympy]'") from exc
    return sympy


def _import_torch_functions() -> Any:
    try:
        import torch.utils._sympy.functions as fns
    except ImportError as exc:
        raise InteropError(
            "flavor='torch' needs torch (torch.utils._sympy.functions): "
            "pip install 'indexalg[torch]'"
        ) from exc
    return fns


def to_sympy(e: Expr, flavor: str = "sympy", *, hints: Mapping[str, str] | None = None) -> Any:
    """The sympy expression with the value of ``e`` at every integer point.

    ``flavor`` is ``"sympy"`` (plain sympy: floor, ceiling, Mod, Piecewise) or ``"torch"``
    (``torch.utils._sympy.functions``: FloorDiv, ModularIndexing, PythonMod, Where, ...).
    ``hints`` maps a symbol name to ``"integer"`` (the default), ``"nonnegative"`` or
    ``"positive"``: the sympy assumptions its Symbol carries besides ``integer=True``.
    Function nodes are built with ``evaluate=False`` (unless all their arguments are
    constants), so neither sympy nor torch rewrites them on the way.  Raises
    :class:`~indexalg.errors.InteropError` for a bad flavour or hint, a missing library, or a
    node with no equivalent (a rule's pattern variable).
    """
    if not isinstance(e, Expr):
        raise InteropError(f"to_sympy expects an indexalg Expr, got {type(e).__name__} {e!r}")
    if flavor not in FLAVORS:
        raise InteropError(f"unknown flavor {flavor!r}; expected one of {', '.join(FLAVORS)}")
    hint_map = dict(hints or {})
    for name, hint in sorted(hint_map.items()):
        if hint not in HINTS:
            raise InteropError(
                f"unknown hint {hint!r} for symbol {name!r}; expected one of {', '.join(HINTS)}"
            )
    sp = _import_sympy()
    if flavor == "torch":
        cx = _ToSympy(sp, _import_torch_functions(), hint_map)
        table = TO_TORCH_TABLE
    else:
        cx = _ToSympy(sp, None, hint_map)
        table = TO_PLAIN_TABLE

    # Bottom-up without recursion: every node's children are converted before it.
    for node in postorder(e):
        handler = table.get(type(node))
        if handler is None:
            raise InteropError(f"{type(node).__name__} node {node} has no {flavor} equivalent")
        try:
            cx.memo[node] = handler(cx, node, [cx.memo[a] for a in node.args])
        except RecursionError:
            # sympy's own constructors recurse into their arguments
            raise InteropError(
                f"sympy cannot build an expression nested {node.depth} deep "
                "(it recursed past Python's limit)"
            ) from None
    return cx.memo[e]


# =======================================================================================
# sympy -> indexalg


class _FromSympy:
    """One conversion: the sympy module and a memo of converted subexpressions."""

    __slots__ = ("memo", "sp")

    def __init__(self, sp: Any) -> None:
        self.sp = sp
        self.memo: dict[Any, Expr] = {}

    def prefill(self, s: Any) -> None:
        """Convert the subexpressions of a deep sympy tree bottom-up, every
        ``_PREFILL_STEP`` levels, so that converting ``s`` recurses only a few levels.
        Best effort: a subexpression that fails alone (``x/2`` outside ``floor``) is
        converted again, in context, by its parent."""
        order: list[Any] = []
        depth: dict[Any, int] = {}
        stack: list[tuple[Any, bool]] = [(s, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                depth[node] = 1 + max((depth.get(a, 1) for a in node.args), default=0)
                order.append(node)
                continue
            if node in depth or node in self.memo:
                continue
            depth[node] = 0  # visiting
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args) if a not in depth)
        if depth.get(s, 0) <= _PREFILL_DEPTH:
            return
        for node in order:
            if depth[node] % _PREFILL_STEP == 0:
                try:
                    self.conv(node)
                except DepthError:
                    raise  # the parent contains this conversion: it is deeper still
                except (IndexAlgError, RecursionError):
                    pass  # (sympy's printer recurses when a message names a deep subterm)

    def conv(self, s: Any) -> Expr:
        """Any integer expression or claim."""
        done = self.memo.get(s)
        if done is not None:
            return done
        handler = _handler_for(type(s))
        if handler is None:
            raise InteropError(f"{type(s).__name__} has no indexalg equivalent: {s}")
        try:
            out = handler(self, s)
        except InteropError:
            raise
        except IndexAlgError as exc:
            raise InteropError(f"cannot convert {s}: {exc}") from exc
        self.memo[s] = out
        return out

    def value(self, s: Any) -> Expr:
        """An integer-valued expression (claims refused)."""
        out = self.conv(s)
        if out.is_bool:
            raise InteropError(f"a claim where an integer belongs: {s}")
        return out

    def claim(self, s: Any) -> Expr:
        """A claim (integers refused)."""
        out = self.conv(s)
        if not out.is_bool:
            raise InteropError(f"an integer where a claim belongs: {s}")
        return out

    def frac(self, s: Any) -> tuple[Expr, Expr]:
        """``s`` as an exact ratio ``(num, den)`` of integer expressions, den never zero.

        Reads rational coefficients and negative integer powers through sums, products and
        powers; anything else is an integer expression over 1.
        """
        sp = self.sp
        if isinstance(s, sp.Rational):
            return integer(int(s.p)), integer(int(s.q))
        if isinstance(s, sp.Add):
            num, den = integer(0), _ONE
            for a in s.args:
                num, den = _frac_add(num, den, *self.frac(a))
            return num, den
        if isinstance(s, sp.Mul):
            nums: list[Expr] = []
            dens: list[Expr] = []
            for a in s.args:
                n, d = self.frac(a)
                nums.append(n)
                dens.append(d)
            return mul(*nums), mul(*dens)
        if isinstance(s, sp.Pow):
            k = _literal_exponent(s)
            n, d = self.frac(s.base)
            if k < 0:
                n, d = d, n
            return mul(*([n] * abs(k))), mul(*([d] * abs(k)))
        return self.value(s), _ONE

    def whole(self, s: Any) -> Expr:
        """An integer-valued sum, product or power (rational parts refused)."""
        num, den = self.frac(s)
        if den is not _ONE:
            raise InteropError(
                f"{s} is not an integer expression (a ratio with denominator {den}); "
                "true division is representable only inside floor() or ceiling()"
            )
        return num


def _frac_add(n1: Expr, d1: Expr, n2: Expr, d2: Expr) -> tuple[Expr, Expr]:
    """``n1/d1 + n2/d2`` as one ratio (literal denominators over their lcm)."""
    if d1 is d2:
        return add(n1, n2), d1
    if type(d1) is Integer and type(d2) is Integer:
        lcm = math.lcm(d1.payload, d2.payload)
        return add(mul(n1, lcm // d1.payload), mul(n2, lcm // d2.payload)), integer(lcm)
    return add(mul(n1, d2), mul(n2, d1)), mul(d1, d2)


def _literal_exponent(s: Any) -> int:
    exp = s.exp
    if not getattr(exp, "is_Integer", False):
        raise InteropError(f"power with a non-integer or symbolic exponent: {s}")
    return int(exp)


FromHandler = Callable[[_FromSympy, Any], Expr]


def _f_integer(cx: _FromSympy, s: Any) -> Expr:
    return integer(int(s))


def _f_symbol(cx: _FromSympy, s: Any) -> Expr:
    if s.is_integer is False:
        raise InteropError(f"symbol {s.name!r} is declared non-integer")
    try:
        return Symbol(str(s.name))
    except IndexAlgError as exc:
        raise InteropError(f"symbol name {s.name!r} is not an identifier") from exc


def _f_whole(cx: _FromSympy, s: Any) -> Expr:
    return cx.whole(s)


def _f_power(cx: _FromSympy, s: Any) -> Expr:
    if _literal_exponent(s) < 0:
        raise InteropError(f"negative power outside floor()/ceiling(): {s}")
    return cx.whole(s)


def _f_refuse(what: str) -> FromHandler:
    def handler(cx: _FromSympy, s: Any) -> Expr:
        raise InteropError(f"{s} is {what}; indexalg expressions are integers")

    return handler


def _f_floor(cx: _FromSympy, s: Any) -> Expr:
    num, den = cx.frac(s.args[0])
    return num if den is _ONE else FloorDiv.make(num, den)


def _f_ceiling(cx: _FromSympy, s: Any) -> Expr:
    num, den = cx.frac(s.args[0])
    return num if den is _ONE else CeilDiv.make(num, den)


def _f_trunc(cx: _FromSympy, s: Any) -> Expr:
    num, den = cx.frac(s.args[0])
    if den is _ONE:
        return num
    # trunc(n/d) is ⌊n/d⌋ where n/d ≥ 0 (that is, n·d ≥ 0) and ⌈n/d⌉ elsewhere.
    sign_probe = num if type(den) is Integer and den.payload > 0 else mul(num, den)
    return Where.make(Le.make(0, sign_probe), FloorDiv.make(num, den), CeilDiv.make(num, den))


def _f_sympy_mod(cx: _FromSympy, s: Any) -> Expr:
    a, m = (cx.value(x) for x in s.args)
    # Mod(floor(a/d), m) with literal d ≥ 1 and m ≥ 1 is the plain form of ModularIndexing.
    if (
        type(a) is FloorDiv
        and type(a.args[1]) is Integer
        and a.args[1].payload >= 1
        and type(m) is Integer
        and m.payload >= 1
    ):
        return ModularIndexing.make(a.args[0], a.args[1], m)
    return Mod.make(a, m)


def _f_int_call(make: Callable[..., Expr]) -> FromHandler:
    def handler(cx: _FromSympy, s: Any) -> Expr:
        return make(*(cx.value(a) for a in s.args))

    return handler


def _f_bool_call(make: Callable[..., Expr]) -> FromHandler:
    def handler(cx: _FromSympy, s: Any) -> Expr:
        return make(*(cx.claim(a) for a in s.args))

    return handler


def _f_abs(cx: _FromSympy, s: Any) -> Expr:
    a = cx.value(s.args[0])
    return Max.make(a, mul(-1, a))


def _f_identity(cx: _FromSympy, s: Any) -> Expr:
    return cx.conv(s.args[0])


def _f_where(cx: _FromSympy, s: Any) -> Expr:
    c, a, b = s.args
    return Where.make(cx.claim(c), cx.value(a), cx.value(b))


def _f_piecewise(cx: _FromSympy, s: Any) -> Expr:
    pieces = list(s.args)
    last_value, last_cond = pieces[-1].args
    if last_cond is not cx.sp.true:
        raise InteropError(f"Piecewise without a final True branch is not total: {s}")
    out = cx.value(last_value)
    for piece in reversed(pieces[:-1]):
        value, cond = piece.args
        out = Where.make(cx.claim(cond), cx.value(value), out)
    return out


def _f_ite(cx: _FromSympy, s: Any) -> Expr:
    # The claim "b if c else d" (sympy writes relations over a Piecewise this way).
    c, b, d = (cx.claim(a) for a in s.args)
    return Or.make(And.make(c, b), And.make(Not.make(c), d))


def _f_implies(cx: _FromSympy, s: Any) -> Expr:
    a, b = (cx.claim(a) for a in s.args)
    return Or.make(Not.make(a), b)


def _f_shift(left: bool) -> FromHandler:
    def handler(cx: _FromSympy, s: Any) -> Expr:
        a, k = s.args
        if not getattr(k, "is_Integer", False) or int(k) < 0:
            raise InteropError(f"shift by a non-literal or negative amount: {s}")
        base = cx.value(a)
        scale = 1 << int(k)
        return mul(base, scale) if left else FloorDiv.make(base, scale)

    return handler


def _f_pow_by_natural(cx: _FromSympy, s: Any) -> Expr:
    b, k = s.args
    if not getattr(k, "is_Integer", False) or int(k) < 0:
        raise InteropError(f"PowByNatural with a non-literal exponent: {s}")
    return mul(*([cx.value(b)] * int(k)))


def _compare(make: Callable[[Expr, Expr], Expr], *, swap: bool, ordered: bool) -> FromHandler:
    """A sympy relation ``lhs OP rhs``; rational sides are cleared of their denominators
    (for an ordering only when both denominators are literal, hence positive)."""

    def handler(cx: _FromSympy, s: Any) -> Expr:
        n1, d1 = cx.frac(s.args[0])
        n2, d2 = cx.frac(s.args[1])
        if d1 is not _ONE or d2 is not _ONE:
            if ordered and not (
                type(d1) is Integer and d1.payload > 0 and type(d2) is Integer and d2.payload > 0
            ):
                raise InteropError(f"relation with a denominator of unknown sign: {s}")
            n1, n2 = mul(n1, d2), mul(n2, d1)
        return make(n2, n1) if swap else make(n1, n2)

    return handler


@functools.cache
def _plain_table() -> dict[type, FromHandler]:
    sp = _import_sympy()
    return {
        sp.Integer: _f_integer,
        sp.Rational: _f_refuse("a non-integer rational"),
        sp.Float: _f_refuse("a float"),
        sp.Symbol: _f_symbol,
        sp.Add: _f_whole,
        sp.Mul: _f_whole,
        sp.Pow: _f_power,
        sp.floor: _f_floor,
        sp.ceiling: _f_ceiling,
        sp.Mod: _f_sympy_mod,
        sp.Min: _f_int_call(Min.make),
        sp.Max: _f_int_call(Max.make),
        sp.Abs: _f_abs,
        sp.Piecewise: _f_piecewise,
        sp.StrictLessThan: _compare(Lt.make, swap=False, ordered=True),
        sp.LessThan: _compare(Le.make, swap=False, ordered=True),
        sp.StrictGreaterThan: _compare(Lt.make, swap=True, ordered=True),
        sp.GreaterThan: _compare(Le.make, swap=True, ordered=True),
        sp.Equality: _compare(Eq.make, swap=False, ordered=False),
        sp.Unequality: _compare(Ne.make, swap=False, ordered=False),
        sp.And: _f_bool_call(And.make),
        sp.Or: _f_bool_call(Or.make),
        sp.Not: _f_bool_call(Not.make),
        sp.ITE: _f_ite,
        sp.Implies: _f_implies,
        type(sp.true): lambda cx, s: true,
        type(sp.false): lambda cx, s: false,
    }


@functools.cache
def _torch_table() -> dict[type, FromHandler]:
    """The plain table plus torch.utils._sympy.functions (names looked up with getattr, so
    a torch without one of them still works)."""
    fns = _import_torch_functions()
    by_name: dict[str, FromHandler] = {
        "FloorDiv": _f_int_call(FloorDiv.make),
        "CleanDiv": _f_int_call(CleanDiv.make),
        "ModularIndexing": _f_int_call(ModularIndexing.make),
        "PythonMod": _f_int_call(Mod.make),
        "Mod": _f_int_call(Mod.make),  # torch's Mod: Python's % on its non-negative domain
        "Min": _f_int_call(Min.make),
        "Max": _f_int_call(Max.make),
        "Where": _f_where,
        "Identity": _f_identity,
        "FloorToInt": _f_floor,
        "CeilToInt": _f_ceiling,
        "TruncToInt": _f_trunc,
        "PowByNatural": _f_pow_by_natural,
        "LShift": _f_shift(left=True),
        "RShift": _f_shift(left=False),
    }
    table = dict(_plain_table())
    for name, handler in by_name.items():
        cls = getattr(fns, name, None)
        if isinstance(cls, type):
            table[cls] = handler
    return table


_HANDLERS: dict[type, FromHandler] = {}


def _handler_for(cls: type) -> FromHandler | None:
    """The handler of the nearest class in ``cls``'s MRO (torch's classes once torch's
    sympy functions are loaded: an object of one of them means they are)."""
    hit = _HANDLERS.get(cls)
    if hit is not None:
        return hit
    table = _torch_table() if _TORCH_FUNCTIONS in sys.modules else _plain_table()
    for base in cls.__mro__:
        handler = table.get(base)
        if handler is not None:
            _HANDLERS[cls] = handler
            return handler
    return None


def from_sympy(s: Any) -> Expr:
    """The indexalg expression (or claim) with the value of the sympy expression ``s`` at
    every integer point.

    Reads plain sympy (Integer, Symbol, Add, Mul, Pow with a literal exponent ≥ 0,
    ``floor``/``ceiling`` of exact ratios, Mod, Min, Max, Abs, total Piecewise, relations,
    And/Or/Not/ITE/Implies, true/false) and torch's ``torch.utils._sympy.functions`` (FloorDiv,
    ModularIndexing, CleanDiv, PythonMod, Mod, Min, Max, Where, Identity, FloorToInt,
    CeilToInt, TruncToInt, PowByNatural, LShift, RShift).  ``Mod(floor(a/d), m)`` with literal
    d ≥ 1 and m ≥ 1 becomes ``ModularIndexing(a, d, m)``.  A Python int or bool is accepted.
    Raises :class:`~indexalg.errors.InteropError` naming the first object with no exact
    equivalent.
    """
    if type(s) is bool:
        return true if s else false
    if type(s) is int:
        return integer(s)
    sp = _import_sympy()
    if not isinstance(s, sp.Basic):
        raise InteropError(f"from_sympy expects a sympy expression, got {type(s).__name__} {s!r}")
    cx = _FromSympy(sp)
    try:
        cx.prefill(s)
        return cx.conv(s)
    except RecursionError:
        # sympy's own methods (its printer, its arithmetic) recurse over deep trees
        raise InteropError(
            "the sympy expression is nested too deeply for sympy itself to handle "
            "(it recursed past Python's limit)"
        ) from None


_PREFILL_DEPTH = 24
_PREFILL_STEP = 8
