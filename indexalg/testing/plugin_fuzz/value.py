"""Evaluation in Python (floor) semantics: the true value of a sympy / torch expression or
claim at a point, the reference every answer is checked against."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ._torch import _T


class Undefined(Exception):
    """A value undefined at a point (a division by zero): the point is left out."""


def _fdiv(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return math.floor(a / b)


def _fmod(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("modulo by zero")
    if isinstance(a, int) and isinstance(b, int):
        return a % b
    return a - b * math.floor(a / b)


def _as_num(v: Any) -> Any:
    if isinstance(v, bool):
        return int(v)
    return v


def true_value(e: Any, point: dict[Any, Any]) -> Any:
    """``e`` (a sympy / torch expression or claim) at ``point`` (Symbol -> int / float), in
    Python semantics: ints stay exact, bools for claims.  Raises :class:`Undefined`."""
    return compile_value(e)(point)


Fn = Callable[[dict[Any, Any]], Any]
_COMPILED: dict[Any, Fn] = {}


def compile_value(e: Any) -> Fn:
    """``e`` as a function of a point (memoised): :func:`true_value` without the walk."""
    hit = _COMPILED.get(e)
    if hit is not None:
        return hit
    _T.load()
    fn = _compile_node(e)
    if len(_COMPILED) > 20_000:
        _COMPILED.clear()
    _COMPILED[e] = fn
    return fn


def _undefined(why: str) -> Fn:
    def f(p: dict[Any, Any]) -> Any:
        raise Undefined(why)

    return f


def _compile_node(n: Any) -> Fn:
    leaf = _compile_leaf(n)
    if leaf is not None:
        return leaf
    name = type(n).__name__
    a = [compile_value(x) for x in n.args] if name != "Piecewise" else []
    for part in (_compile_arithmetic, _compile_function, _compile_logic):
        fn = part(n, name, a)
        if fn is not None:
            return fn
    return _undefined(f"cannot evaluate {name}")


def _compile_leaf(n: Any) -> Fn | None:
    """A symbol or a number; None for anything else."""
    sp = _T.sympy
    if n.is_Symbol:
        sym = n

        def sym_f(p: dict[Any, Any]) -> Any:
            try:
                return p[sym]
            except KeyError:
                raise Undefined(f"no value for {sym}") from None

        return sym_f
    if n is sp.true or n is sp.false:
        c: Any = n is sp.true
        return lambda p: c
    if n.is_Integer:
        c = int(n)
        return lambda p: c
    if n.is_Rational:
        c = sp.Rational(n)  # exact: only ever multiplied / added then floored
        return lambda p: c
    if n.is_Float:
        c = float(n)
        return lambda p: c
    return None


def _compile_arithmetic(n: Any, name: str, a: list[Fn]) -> Fn | None:
    """A sum, a product or a power of the compiled arguments ``a``; None for anything else."""
    if n.is_Add:
        return lambda p: sum((f(p) for f in a), 0)
    if n.is_Mul:

        def mul_f(p: dict[Any, Any]) -> Any:
            out: Any = 1
            for f in a:
                out = out * f(p)
            return out

        return mul_f
    if n.is_Pow:

        def pow_f(p: dict[Any, Any]) -> Any:
            b, k = a[0](p), a[1](p)
            if k < 0 and b == 0:
                raise Undefined("0 to a negative power")
            return b**k

        return pow_f
    return None


def _compile_function(n: Any, name: str, a: list[Fn]) -> Fn | None:
    """torch's and sympy's integer functions (divisions, Min / Max, Where, roundings) of the
    compiled arguments ``a``; None for anything else."""
    if name in ("FloorDiv", "CleanDiv"):
        return lambda p: _fdiv(_as_num(a[0](p)), _as_num(a[1](p)))
    if name == "ModularIndexing":
        return lambda p: _fmod(_fdiv(a[0](p), a[1](p)), a[2](p))
    if name in ("PythonMod", "Mod"):
        return lambda p: _fmod(_as_num(a[0](p)), _as_num(a[1](p)))
    if name == "Min":
        return lambda p: min(f(p) for f in a)
    if name == "Max":
        return lambda p: max(f(p) for f in a)
    if name == "Where":
        return lambda p: a[1](p) if a[0](p) else a[2](p)
    if name in ("FloorToInt", "floor"):
        return lambda p: math.floor(a[0](p))
    if name in ("CeilToInt", "ceiling"):
        return lambda p: math.ceil(a[0](p))
    if name == "TruncToInt":
        return lambda p: math.trunc(a[0](p))
    if name == "ToFloat":
        return lambda p: float(a[0](p))
    if name in ("IntTrueDiv", "FloatTrueDiv"):

        def div_f(p: dict[Any, Any]) -> Any:
            d = a[1](p)
            if d == 0:
                raise Undefined("division by zero")
            return a[0](p) / d

        return div_f
    if name == "Identity":
        return a[0]
    if name == "Abs":
        return lambda p: abs(a[0](p))
    return None


def _compile_logic(n: Any, name: str, a: list[Fn]) -> Fn | None:
    """``Piecewise``, the connectives and the relations; None for anything else."""
    if name == "Piecewise":
        pairs = [(compile_value(v), compile_value(c)) for v, c in n.args]

        def pw_f(p: dict[Any, Any]) -> Any:
            for val, cond in pairs:
                if cond(p):
                    return val(p)
            raise Undefined("no Piecewise branch")

        return pw_f
    if name == "And":
        return lambda p: all(f(p) for f in a)
    if name == "Or":
        return lambda p: any(f(p) for f in a)
    if name == "Not":
        return lambda p: not a[0](p)
    if n.is_Relational:
        rel = _REL[n.rel_op]
        return lambda p: rel(a[0](p), a[1](p))
    return None


_REL: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda x, y: bool(x == y),
    "!=": lambda x, y: bool(x != y),
    "<": lambda x, y: bool(x < y),
    "<=": lambda x, y: bool(x <= y),
    ">": lambda x, y: bool(x > y),
    ">=": lambda x, y: bool(x >= y),
}


def _num(v: Any) -> Any:
    """A value from :func:`true_value` as a plain int / float / bool."""
    if isinstance(v, (bool, int, float)):
        return v
    if getattr(v, "is_Integer", False):
        return int(v)
    if getattr(v, "is_Rational", False):
        return v  # a ratio that is not an integer: compared exactly
    return v
