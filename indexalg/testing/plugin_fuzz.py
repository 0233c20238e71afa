"""A fuzzer of the Inductor plug-in (:mod:`indexalg.inductor`), with a generator of its own.

Not the core's strategies: everything here is built the way Inductor builds it.  Random
``ShapeEnv`` objects get size symbols (``create_symbol`` with hints), float symbols
(``create_symfloatnode``, read through ``math.floor`` / ``math.ceil`` as ``FloorToInt`` /
``CeilToInt``), ranges narrowed directly in ``var_to_range``, and guards recorded through
``ShapeEnv.evaluate_expr`` at the hints: divisibility (``Eq(Mod(s, k), 0)``), comparisons,
``Ne``, ``CleanDiv``, conjunctions, replacements (``Eq(s1, s0)``).  Index expressions are
built from torch's sympy functions (``FloorDiv``, ``ModularIndexing``, ``PythonMod``,
``Mod``, ``CleanDiv``, ``CeilDiv``, ``Min``, ``Max``, ``Where``, with negative offsets such as
``x0 - 1``) with var_ranges, some keyed by expressions.  Calls go in random order to every
patched entry point (``SizeVarAllocator.simplify_with_ranges``, ``statically_known_true`` /
``leq`` / ``multiple_of``, ``ShapeEnv._maybe_evaluate_static``, ``stride_at_vec_range``,
``ShapeEnv.evaluate_expr`` itself while guards are taken), between memo events (the plug-in
uninstalled and installed again, ``indexalg.clear_caches()``, ShapeEnvs created and
garbage-collected in the same process).

Every answer is checked by brute force at points that satisfy every recorded guard (small
values of the size symbols within their ranges, loop indices within var_ranges): a claim
answered True must hold at every point, False must fail at every one; a
``simplify_with_ranges`` result must keep the input's value at every point, and so must its
printed code: Inductor's C++ printer (``cexpr``) and Triton printer (``texpr``) output is
parsed and evaluated in C semantics (truncating ``/`` and ``%``, ``c10::div_floor_integer``,
Triton's ``//`` and ``%`` on integers truncating) against the input's true (Python floor
semantics) value.  Every call is made again with stock Inductor (the plug-in's patches
lifted for the call, its memos kept): a plug-in answer counts as wrong only where stock's
is right; stock's own wrong answers and those both get wrong are counted apart.

Needs torch and sympy, nothing else (no hypothesis, no z3): :func:`run` is what the property
tests, ``indexalg fuzz --target plugin`` and ``python -m bench.plugin_fuzz`` call.  Importing
``indexalg.testing`` does not import this module.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import math
import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ENTRY_POINTS",
    "EntryCounts",
    "Finding",
    "PluginFuzzReport",
    "PluginFuzzer",
    "c_eval",
    "run",
    "triton_eval",
]

#: the entry points a call can go to (the names used in the report)
ENTRY_POINTS = (
    "simplify_with_ranges",
    "statically_known_true",
    "statically_known_leq",
    "statically_known_multiple_of",
    "maybe_evaluate_static",
    "stride_at_vec_range",
    "evaluate_expr",
)

#: the categories a wrong answer is counted in
PLUGIN_WRONG = "plugin_wrong"  # the plug-in wrong where stock is right (what must be 0)
BOTH_WRONG = "both_wrong"  # the same check failed for stock too
STOCK_WRONG = "stock_wrong"  # stock wrong where the plug-in is right


class Undefined(Exception):
    """A value undefined at a point (a division by zero): the point is left out."""


class Unprintable(Exception):
    """A printer's output this module cannot evaluate."""


# =======================================================================================
# torch and sympy, imported on first use


class _T:
    """torch and sympy names, imported once."""

    loaded = False
    sympy: Any
    F: Any  # torch.utils._sympy.functions
    ShapeEnv: Any
    DimDynamic: Any
    ConstantSource: Any
    ValueRanges: Any
    SizeVarAllocator: Any
    sizevars: Any
    cexpr: Callable[[Any], str] | None
    texpr: Callable[[Any], str] | None
    V: Any

    @classmethod
    def load(cls) -> None:
        if cls.loaded:
            return
        import sympy
        import torch._inductor.sizevars as sizevars
        import torch.utils._sympy.functions as functions
        from torch._dynamo.source import ConstantSource
        from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
        from torch.utils._sympy.value_ranges import ValueRanges

        cls.sympy = sympy
        cls.F = functions
        cls.ShapeEnv = ShapeEnv
        cls.DimDynamic = DimDynamic
        cls.ConstantSource = ConstantSource
        cls.ValueRanges = ValueRanges
        cls.SizeVarAllocator = sizevars.SizeVarAllocator
        cls.sizevars = sizevars
        try:
            from torch._inductor.codegen.cpp_utils import cexpr

            cls.cexpr = cexpr
        except Exception:  # pragma: no cover - a torch without the C++ backend
            cls.cexpr = None
        try:
            from torch._inductor.codegen.triton import texpr

            cls.texpr = texpr
        except Exception:  # pragma: no cover - a torch without the Triton backend
            cls.texpr = None
        try:
            from torch._inductor.virtualized import V

            cls.V = V
        except Exception:  # pragma: no cover
            cls.V = None
        cls.loaded = True


# =======================================================================================
# Evaluation in Python (floor) semantics: the true value


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
    name = type(n).__name__
    a = [compile_value(x) for x in n.args] if name != "Piecewise" else []
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
    return _undefined(f"cannot evaluate {name}")


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


# =======================================================================================
# Evaluation of printed C++ (C semantics)


def _c_div(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def _c_rem(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("modulo by zero")
    if isinstance(a, int) and isinstance(b, int):
        return a - b * _c_div(a, b)
    return math.fmod(a, b)


_C_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)|\d+)(?:LL|L|UL|ULL)?"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*(?:::[A-Za-z_][A-Za-z_0-9]*)*)"
    r"|(?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()?:,<>!{}]))"
)


def _c_tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _C_TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise Unprintable(f"cannot read C++ at {text[pos:pos + 20]!r}")
        out.append(m.group(m.lastgroup or "op"))
        pos = m.end()
    return out


_C_BINARY = {
    "||": 1,
    "&&": 2,
    "==": 3,
    "!=": 3,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "<<": 5,
    ">>": 5,
    "+": 6,
    "-": 6,
    "*": 7,
    "/": 7,
    "%": 7,
}

_C_TYPES = {
    "int64_t": int,
    "int32_t": int,
    "long": int,
    "int": int,
    "double": float,
    "float": float,
}


def _c_cast(kind: Any, v: Any) -> Any:
    if kind is int:
        if isinstance(v, float):
            if math.isnan(v) or math.isinf(v):
                raise Undefined("cast of a non-finite value")
            return int(v)  # truncates, as a C cast
        return int(v)
    return float(v)


def _c_floor_div(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return math.floor(a / b)


def _c_min_max(pick: Callable[..., Any]) -> Callable[..., Any]:
    def f(*args: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], list):
            return pick(args[0])
        return pick(args)

    return f


_C_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "c10::div_floor_integer": _c_floor_div,
    "div_floor_integer": _c_floor_div,
    "c10::div_floor_floating": lambda a, b: (
        math.floor(a / b) if b != 0 else (_ for _ in ()).throw(Undefined("division by zero"))
    ),
    "c10::div_mod": _fmod,
    "div_mod": _fmod,
    "std::min": _c_min_max(min),
    "std::max": _c_min_max(max),
    "std::floor": lambda a: float(math.floor(a)),
    "std::ceil": lambda a: float(math.ceil(a)),
    "std::trunc": lambda a: float(math.trunc(a)),
    "std::abs": abs,
}


class _CParser:
    """A Pratt parser compiling one C++ expression, as Inductor's C++ printer writes it, to a
    function of the names' values."""

    def __init__(self, tokens: list[str]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise Unprintable(f"expected {want!r}, got {tok!r}")
        self.i += 1
        return tok

    def parse(self) -> Fn:
        v = self.expr()
        if self.peek() is not None:
            raise Unprintable(f"trailing {self.peek()!r}")
        return v

    def expr(self) -> Fn:
        c = self.binary(1)
        if self.peek() == "?":
            self.take("?")
            p = self.expr()
            self.take(":")
            q = self.expr()
            return lambda env: p(env) if c(env) else q(env)
        return c

    def binary(self, level: int) -> Fn:
        lhs = self.unary()
        while True:
            op = self.peek() or ""
            prec = _C_BINARY.get(op)
            if prec is None or prec < level:
                return lhs
            self.take()
            rhs = self.binary(prec + 1)
            lhs = self.apply(op, lhs, rhs)

    @staticmethod
    def apply(op: str, a: Fn, b: Fn) -> Fn:
        if op == "&&":
            return lambda env: int(bool(a(env)) and bool(b(env)))
        if op == "||":
            return lambda env: int(bool(a(env)) or bool(b(env)))
        if op == "+":
            return lambda env: a(env) + b(env)
        if op == "-":
            return lambda env: a(env) - b(env)
        if op == "*":
            return lambda env: a(env) * b(env)
        if op == "/":
            return lambda env: _c_div(a(env), b(env))
        if op == "%":
            return lambda env: _c_rem(a(env), b(env))
        if op == "<<":
            return lambda env: a(env) << b(env)
        if op == ">>":
            return lambda env: a(env) >> b(env)
        rel = _REL[op]
        return lambda env: int(rel(a(env), b(env)))

    def unary(self) -> Fn:
        tok = self.peek()
        if tok == "-":
            self.take()
            v = self.unary()
            return lambda env: -v(env)
        if tok == "+":
            self.take()
            return self.unary()
        if tok == "!":
            self.take()
            v = self.unary()
            return lambda env: int(not v(env))
        return self.primary()

    def args(self, close: str) -> list[Fn]:
        out: list[Fn] = []
        if self.peek() == close:
            self.take(close)
            return out
        while True:
            out.append(self.expr())
            tok = self.take()
            if tok == close:
                return out
            if tok != ",":
                raise Unprintable(f"expected ',' or {close!r}, got {tok!r}")

    def primary(self) -> Fn:
        tok = self.take()
        if tok == "(":
            v = self.expr()
            self.take(")")
            return v
        if tok == "{":
            items = self.args("}")
            return lambda env: [f(env) for f in items]
        if tok[0].isdigit():
            text = tok.rstrip("LU")
            c: Any = float(text) if ("." in text or "e" in text or "E" in text) else int(text)
            return lambda env: c
        if tok[0].isalpha() or tok[0] == "_":
            kind: Any = None
            if self.peek() == "<" and self.i + 2 < len(self.t) and self.t[self.i + 2] == ">":
                tname = self.t[self.i + 1]
                if tname in _C_TYPES:
                    kind = _C_TYPES[tname]
                    self.i += 3
            if self.peek() == "(":
                self.take("(")
                vals = self.args(")")
                if tok == "static_cast":
                    if kind is None or len(vals) != 1:
                        raise Unprintable("static_cast without a type")
                    v0 = vals[0]
                    return lambda env: _c_cast(kind, v0(env))
                fn = _C_FUNCTIONS.get(tok)
                if fn is None:
                    raise Unprintable(f"unknown C++ function {tok}")
                as_int = kind is int and tok in ("std::min", "std::max")

                def call_f(env: dict[Any, Any]) -> Any:
                    out = fn(*[f(env) for f in vals])
                    return int(out) if as_int else out

                return call_f
            if tok in ("true", "false"):
                c = int(tok == "true")
                return lambda env: c
            name = tok

            def name_f(env: dict[Any, Any]) -> Any:
                try:
                    return env[name]
                except KeyError:
                    raise Unprintable(f"unknown name {name}") from None

            return name_f
        raise Unprintable(f"unexpected {tok!r}")


_C_COMPILED: dict[str, Fn] = {}


def compile_c(text: str) -> Fn:
    """C++ printed by Inductor's ``cexpr`` as a function of the names' values (name ->
    value), in C semantics: ``/`` and ``%`` truncate on integers, ``c10::div_floor_integer``
    floors, ``c10::div_mod`` is Python's ``%``, ``std::min`` / ``std::max``, ternaries."""
    hit = _C_COMPILED.get(text)
    if hit is None:
        hit = _CParser(_c_tokens(text)).parse()
        if len(_C_COMPILED) > 20_000:
            _C_COMPILED.clear()
        _C_COMPILED[text] = hit
    return hit


def c_eval(text: str, env: dict[str, Any]) -> Any:
    """:func:`compile_c` of ``text`` at ``env``."""
    return compile_c(text)(env)


# =======================================================================================
# Evaluation of printed Triton (C semantics on integers)


class _TritonCompiler:
    """Compiles the Python AST of ``texpr`` output: ``//`` and ``%`` truncate on integers
    (as Triton's do), ``triton_helpers.div_floor_integer`` / ``remainder_integer`` floor,
    ``tl.where``, ``libdevice.floor/ceil/trunc(...).to(...)``, comparisons as 0 / 1."""

    def run(self, text: str) -> Fn:
        import ast

        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError as exc:
            raise Unprintable(f"cannot parse Triton {text!r}") from exc
        return self.go(tree.body)

    def go(self, n: Any) -> Fn:
        import ast

        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool):
                c: Any = int(n.value)
            elif isinstance(n.value, (int, float)):
                c = n.value
            else:
                raise Unprintable(f"constant {n.value!r}")
            return lambda env: c
        if isinstance(n, ast.Name):
            name = n.id

            def name_f(env: dict[Any, Any]) -> Any:
                try:
                    return env[name]
                except KeyError:
                    raise Unprintable(f"unknown name {name}") from None

            return name_f
        if isinstance(n, ast.UnaryOp):
            v = self.go(n.operand)
            if isinstance(n.op, ast.USub):
                return lambda env: -v(env)
            if isinstance(n.op, ast.UAdd):
                return v
            if isinstance(n.op, ast.Not):
                return lambda env: int(not v(env))
            raise Unprintable("unary op")
        if isinstance(n, ast.BinOp):
            a, b = self.go(n.left), self.go(n.right)
            return self.binop(n.op, a, b)
        if isinstance(n, ast.Compare):
            left = self.go(n.left)
            ops = []
            for op, right_node in zip(n.ops, n.comparators):
                sym = _PY_CMP.get(type(op).__name__)
                if sym is None:
                    raise Unprintable("comparison")
                ops.append((_REL[sym], self.go(right_node)))

            def cmp_f(env: dict[Any, Any]) -> Any:
                lv = left(env)
                for rel, right in ops:
                    rv = right(env)
                    if not rel(lv, rv):
                        return 0
                    lv = rv
                return 1

            return cmp_f
        if isinstance(n, ast.BoolOp):
            vals = [self.go(v) for v in n.values]
            if isinstance(n.op, ast.And):
                return lambda env: int(all(f(env) for f in vals))
            return lambda env: int(any(f(env) for f in vals))
        if isinstance(n, ast.IfExp):
            t, b, o = self.go(n.test), self.go(n.body), self.go(n.orelse)
            return lambda env: b(env) if t(env) else o(env)
        if isinstance(n, ast.Call):
            return self.call(n)
        raise Unprintable(f"Triton node {type(n).__name__}")

    @staticmethod
    def binop(op: Any, a: Fn, b: Fn) -> Fn:
        kind = type(op).__name__
        if kind == "Add":
            return lambda env: a(env) + b(env)
        if kind == "Sub":
            return lambda env: a(env) - b(env)
        if kind == "Mult":
            return lambda env: a(env) * b(env)
        if kind == "FloorDiv":
            return lambda env: _t_floordiv(a(env), b(env))
        if kind == "Mod":
            return lambda env: _t_mod(a(env), b(env))
        if kind == "Div":
            return lambda env: _t_truediv(a(env), b(env))
        if kind == "Pow":
            return lambda env: a(env) ** b(env)
        raise Unprintable(f"binary op {kind}")

    def call(self, n: Any) -> Fn:
        import ast

        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "to":  # x.to(dtype)
            v = self.go(f.value)
            dtype = ast.unparse(n.args[0]) if n.args else ""
            to_int = "int" in dtype

            def to_f(env: dict[Any, Any]) -> Any:
                x = v(env)
                if to_int:
                    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
                        raise Undefined("cast of a non-finite value")
                    return int(x)
                return float(x)

            return to_f
        name = ast.unparse(f)
        args = [self.go(a) for a in n.args]
        if name == "tl.where":
            if len(args) != 3:
                raise Unprintable("tl.where arity")
            c, p, q = args
            return lambda env: p(env) if c(env) else q(env)
        fn = _T_FUNCTIONS.get(name)
        if fn is None:
            raise Unprintable(f"unknown Triton function {name}")
        return lambda env: fn(*[g(env) for g in args])


_PY_CMP = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}


def _t_floordiv(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return _c_div(a, b)
    if b == 0:
        raise Undefined("division by zero")
    return float(math.floor(a / b))


def _t_mod(a: Any, b: Any) -> Any:
    if isinstance(a, int) and isinstance(b, int):
        return _c_rem(a, b)
    return _c_rem(float(a), float(b))


def _t_truediv(a: Any, b: Any) -> Any:
    if b == 0:
        raise Undefined("division by zero")
    return a / b


_T_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "triton_helpers.div_floor_integer": _c_floor_div,
    "triton_helpers.remainder_integer": _fmod,
    "libdevice.floor": lambda a: float(math.floor(a)),
    "tl.floor": lambda a: float(math.floor(a)),
    "libdevice.ceil": lambda a: float(math.ceil(a)),
    "tl.ceil": lambda a: float(math.ceil(a)),
    "libdevice.trunc": lambda a: float(math.trunc(a)),
    "tl_math.abs": abs,
    "abs": abs,
    "min": lambda *a: min(a),
    "max": lambda *a: max(a),
}

_T_COMPILED: dict[str, Fn] = {}


def compile_triton(text: str) -> Fn:
    """Triton printed by Inductor's ``texpr`` as a function of the names' values (integers
    in C semantics)."""
    hit = _T_COMPILED.get(text)
    if hit is None:
        hit = _TritonCompiler().run(text)
        if len(_T_COMPILED) > 20_000:
            _T_COMPILED.clear()
        _T_COMPILED[text] = hit
    return hit


def triton_eval(text: str, env: dict[str, Any]) -> Any:
    """:func:`compile_triton` of ``text`` at ``env``."""
    return compile_triton(text)(env)


class _KernelStub:
    """What the Triton printer reads from ``V.kernel`` (the index dtype)."""

    index_dtype = "tl.int64"


@contextlib.contextmanager
def _printing() -> Iterator[None]:
    V = _T.V
    if V is None or not hasattr(V, "set_kernel_handler"):
        yield
        return
    with V.set_kernel_handler(_KernelStub()):
        yield


def _printed(printer: Callable[[Any], str] | None, e: Any) -> str | None:
    if printer is None:
        return None
    try:
        with _printing():
            return printer(e)
    except Exception:
        return None


# =======================================================================================
# The scenario: a ShapeEnv with sizes, guards and points


@dataclass
class SizeSym:
    sym: Any
    hint: Any  # int or float
    lo: Any
    hi: Any
    is_float: bool
    source: str
    node: Any = None  # the SymFloat of a float symbol


@dataclass
class Scenario:
    """One ShapeEnv with its symbols, the guards recorded and the points they allow."""

    ident: int
    shape_env: Any
    sizes: list[SizeSym]
    #: recorded guards (sympy booleans true at the hints), in the order taken
    guards: list[Any] = field(default_factory=list)
    #: the steps that built it, as Python source lines (for reproducers)
    recipe: list[str] = field(default_factory=list)
    #: points over the size symbols that satisfy every guard
    points: list[dict[Any, Any]] = field(default_factory=list)
    #: for a recompile: the dropped ShapeEnv's recipe and calls (reproducer source)
    prelude: list[str] = field(default_factory=list)

    @property
    def int_sizes(self) -> list[Any]:
        return [s.sym for s in self.sizes if not s.is_float]

    @property
    def float_sizes(self) -> list[SizeSym]:
        return [s for s in self.sizes if s.is_float]


_SYMBOL_SREPR = re.compile(r"Symbol\('([A-Za-z_][A-Za-z_0-9]*)'(?:, [a-z_]+=(?:True|False))*\)")


def _srepr(e: Any) -> str:
    """``sympy.srepr`` with each Symbol written as its name (the reproducer binds every
    name: the ShapeEnv's symbols from ``create_symbol``, the loop indices ``x0``..``x2``)."""
    return _SYMBOL_SREPR.sub(r"\1", str(_T.sympy.srepr(e)))


# =======================================================================================
# Findings and the report


@dataclass
class Finding:
    """One wrong answer: where, which check, the category and a reproducer."""

    entry: str
    check: str  # "value", "claim", "cpp", "triton", "stride"
    category: str
    detail: str
    reproducer: str

    def as_json(self) -> dict[str, str]:
        return {
            "entry": self.entry,
            "check": self.check,
            "category": self.category,
            "detail": self.detail,
            "reproducer": self.reproducer,
        }


@dataclass
class EntryCounts:
    calls: int = 0
    reached: int = 0  # calls that reached the plug-in (stock can answer before asking it)
    checked: int = 0  # answers checked at one point or more
    points: int = 0
    plugin_wrong: int = 0
    both_wrong: int = 0
    stock_wrong: int = 0
    fallbacks: int = 0  # the plug-in's fallback counters moved during the call
    unchecked: int = 0  # no point to check at / an answer with fresh symbols
    stock_calls: int = 0  # calls also made with stock (all, or a sample and every wrong one)
    errors: int = 0  # an exception escaped the entry point (plug-in installed)

    def as_json(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class PluginFuzzReport:
    """Counts per entry point and the first reproducers of each category."""

    seed: int = 0
    calls: int = 0
    envs: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's CPU time (the machine may be shared)
    memo_events: dict[str, int] = field(default_factory=dict)
    per_entry: dict[str, EntryCounts] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    #: findings beyond the kept ones, per category
    dropped: dict[str, int] = field(default_factory=dict)
    torch_version: str = ""
    max_findings: int = 20

    def entry(self, name: str) -> EntryCounts:
        c = self.per_entry.get(name)
        if c is None:
            c = self.per_entry[name] = EntryCounts()
        return c

    def add(self, f: Finding) -> None:
        kept = sum(1 for g in self.findings if g.category == f.category)
        if kept >= self.max_findings:
            self.dropped[f.category] = self.dropped.get(f.category, 0) + 1
            return
        self.findings.append(f)

    @property
    def plugin_wrong(self) -> int:
        return sum(c.plugin_wrong for c in self.per_entry.values())

    @property
    def stock_wrong(self) -> int:
        return sum(c.stock_wrong for c in self.per_entry.values())

    @property
    def both_wrong(self) -> int:
        return sum(c.both_wrong for c in self.per_entry.values())

    def merge(self, other: PluginFuzzReport) -> None:
        self.calls += other.calls
        self.envs += other.envs
        self.seconds = max(self.seconds, other.seconds)
        self.cpu_seconds += other.cpu_seconds
        for k, v in other.memo_events.items():
            self.memo_events[k] = self.memo_events.get(k, 0) + v
        for name, c in other.per_entry.items():
            mine = self.entry(name)
            for k, v in c.__dict__.items():
                setattr(mine, k, getattr(mine, k) + v)
        for f in other.findings:
            self.add(f)
        for k, v in other.dropped.items():
            self.dropped[k] = self.dropped.get(k, 0) + v
        self.torch_version = self.torch_version or other.torch_version

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "calls": self.calls,
            "envs": self.envs,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "torch": self.torch_version,
            "plugin_wrong": self.plugin_wrong,
            "both_wrong": self.both_wrong,
            "stock_wrong": self.stock_wrong,
            "memo_events": dict(sorted(self.memo_events.items())),
            "per_entry": {k: v.as_json() for k, v in sorted(self.per_entry.items())},
            "findings": [f.as_json() for f in self.findings],
            "findings_not_kept": dict(self.dropped),
        }

    def summary(self) -> str:
        lines = [
            f"plug-in fuzz (torch {self.torch_version}, seed {self.seed}): {self.calls} calls on"
            f" {self.envs} ShapeEnvs in {self.seconds:.1f} s ({self.cpu_seconds:.1f} s CPU);"
            f" plug-in wrong {self.plugin_wrong}, both wrong {self.both_wrong},"
            f" stock wrong {self.stock_wrong}"
        ]
        head = (
            f"  {'entry point':<30}{'calls':>8}{'reached':>8}{'checked':>9}{'points':>10}"
            f"{'plugin':>8}"
            f"{'both':>6}{'stock':>7}{'fallbk':>8}{'unchk':>7}{'errors':>7}"
        )
        lines.append(head)
        for name, c in sorted(self.per_entry.items()):
            lines.append(
                f"  {name:<30}{c.calls:>8}{c.reached:>8}{c.checked:>9}{c.points:>10}"
                f"{c.plugin_wrong:>8}"
                f"{c.both_wrong:>6}{c.stock_wrong:>7}{c.fallbacks:>8}{c.unchecked:>7}"
                f"{c.errors:>7}"
            )
        if self.memo_events:
            ev = ", ".join(f"{k} {v}" for k, v in sorted(self.memo_events.items()))
            lines.append(f"  memo events: {ev}")
        for i, f in enumerate(self.findings, 1):
            lines.append(f"\n[{i}] {f.category} at {f.entry} ({f.check}): {f.detail}")
            lines.append(f.reproducer)
        return "\n".join(lines)


# =======================================================================================
# The plug-in's state


def _plugin() -> Any:
    import indexalg.inductor as plug

    return plug


def _calls_total(name: str) -> int:
    from indexalg.inductor._state import STATS

    st = STATS.get(name)
    return 0 if st is None else st.calls


def _fallback_total(name: str) -> int:
    from indexalg.inductor._state import STATS

    st = STATS.get(name)
    return 0 if st is None else sum(st.fallbacks.values())


#: patched attribute -> the plug-in entry point counted for it
_PATCHES = (
    ("torch._inductor.sizevars", "SizeVarAllocator", "_simplify_with_ranges"),
    ("torch.fx.experimental.symbolic_shapes", "ShapeEnv", "_maybe_evaluate_static"),
    ("torch._inductor.sizevars", None, "stride_at_vec_range"),
)


@contextlib.contextmanager
def stock() -> Iterator[None]:
    """Inductor's own functions for the block, the plug-in's memos kept: every patched
    attribute that carries ``__wrapped_original__`` is put back for the block (when the
    plug-in is not installed this does nothing)."""
    import importlib

    swapped: list[tuple[Any, str, Any]] = []
    try:
        for mod_name, cls_name, attr in _PATCHES:
            holder: Any = importlib.import_module(mod_name)
            if cls_name is not None:
                holder = getattr(holder, cls_name)
            current = holder.__dict__.get(attr) if cls_name else getattr(holder, attr, None)
            original = getattr(current, "__wrapped_original__", None)
            if original is not None:
                setattr(holder, attr, original)
                swapped.append((holder, attr, current))
        yield
    finally:
        for holder, attr, current in reversed(swapped):
            setattr(holder, attr, current)


# =======================================================================================
# The generator


class _Gen:
    """Random ShapeEnvs, expressions and claims, from one ``random.Random``."""

    def __init__(self, rng: random.Random, float_rate: float = 0.2) -> None:
        self.rng = rng
        self.float_rate = float_rate
        #: subterms built so far, reused as leaves (in any ShapeEnv whose symbols they use)
        self.pool: list[Any] = []
        sp = _T.sympy
        self.loops = [sp.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(3)]

    # --- ShapeEnvs -----------------------------------------------------------------------

    def scenario(
        self,
        ident: int,
        on_guard: Callable[[Scenario, Any, Any], None],
        like: Sequence[tuple[str, int]] = (),
        shape_env: Any = None,
    ) -> Scenario:
        """A new ShapeEnv; ``like``: a recompile of that one (the same sources, so the same
        symbols, some hints changed, guards drawn anew)."""
        r = self.rng
        sp, F = _T.sympy, _T.F
        se = _T.ShapeEnv() if shape_env is None else shape_env
        # sources from a small pool: a recompile meets the same names (and so the same
        # symbols) in a new ShapeEnv, often at a freed one's address
        pool = r.sample(_SOURCES, len(_SOURCES))
        old_hints = [h for _, h in like]
        if like:
            sources = [src for src, _ in like]
            pool = sources + [x for x in pool if x not in sources]
        recipe = ["se = ShapeEnv()"]
        sizes: list[SizeSym] = []
        n = len(old_hints) if old_hints else r.choice((1, 2, 2, 3, 3))
        for i in range(n):
            hint: int
            if old_hints and r.random() < 0.5:
                hint = int(old_hints[i])
            elif sizes and r.random() < 0.2:
                hint = int(r.choice(sizes).hint) if not sizes[-1].is_float else 8
            else:
                hint = r.choice((2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 32, 64))
            src = pool[i]
            sym = _create_symbol(se, hint, src)
            recipe.append(
                f"{_pyname(sym)} = se.create_symbol({hint}, ConstantSource({src!r}),"
                " dynamic_dim=DimDynamic.DYNAMIC)"
            )
            lo, hi = 2, math.inf
            vr = getattr(se, "var_to_range", {}).get(sym)
            if vr is not None:
                lo = max(lo, _bound(vr.lower, 2))
                hi = min(hi, _bound(vr.upper, math.inf))
            if r.random() < 0.25:  # a range narrowed directly, as tests and export do
                nlo = r.randint(2, int(hint))
                nhi = int(hint) + r.choice((0, 1, 3, 8, 30))
                try:
                    se.var_to_range[sym] = _T.ValueRanges(nlo, nhi)
                    recipe.append(f"se.var_to_range[{_pyname(sym)}] = ValueRanges({nlo}, {nhi})")
                    lo, hi = nlo, nhi
                except Exception:
                    pass
            sizes.append(SizeSym(sym, hint, lo, hi, False, src))
        if r.random() < self.float_rate:
            fhint = r.choice((0.5, 1.5, 2.5, 3.25, 2.0, 4.75))
            src = pool[-1]
            try:
                fsym = _create_symbol(se, fhint, src)
                node = se.create_symfloatnode(fsym, hint=fhint)
                recipe.append(
                    f"{_pyname(fsym)} = se.create_symbol({fhint}, ConstantSource({src!r}),"
                    " dynamic_dim=DimDynamic.DYNAMIC)"
                )
                recipe.append(
                    f"{_pyname(fsym)}_node = se.create_symfloatnode({_pyname(fsym)},"
                    f" hint={fhint})"
                )
                sizes.append(SizeSym(fsym, fhint, 0.0, math.inf, True, src, node))
            except Exception:
                pass
        sc = Scenario(ident, se, sizes, recipe=recipe)
        for _ in range(r.choice((0, 1, 2, 3, 4, 5))):
            g = self.guard(sc)
            if g is None or g in (sp.true, sp.false):
                continue
            on_guard(sc, g, F)
        sc.points = self.size_points(sc)
        return sc

    def guard(self, sc: Scenario) -> Any:
        r = self.rng
        sp, F = _T.sympy, _T.F
        ints = sc.int_sizes
        if not ints:
            return None
        s = r.choice(ints)
        hint = {z.sym: z.hint for z in sc.sizes}
        h = int(hint[s])
        kind = r.choice(
            ("div", "div", "cmp", "cmp", "ne", "clean", "and", "repl", "expr_cmp", "float")
        )
        if kind == "div":
            divs = [k for k in (2, 3, 4, 8, 16) if h % k == 0] or [2, 3, 4]
            k = r.choice(divs)
            return sp.Eq(sp.Mod(s, k), 0)
        if kind == "cmp":
            c = h + r.choice((-3, -1, 0, 1, 2, 5, 20))
            return r.choice((sp.Le, sp.Lt, sp.Ge, sp.Gt))(s, c)
        if kind == "ne":
            c = r.choice((h - 1, h + 1, 2, 3, 4))
            if r.random() < 0.5:
                return sp.Ne(s, c)
            return sp.Ne(F.FloorDiv(s, r.choice((2, 4))), r.choice((0, 1, 2)))
        if kind == "clean":
            k = r.choice([k for k in (2, 4) if h % k == 0] or [1])
            if k == 1:
                return sp.Ne(s, h + 1)
            return r.choice(
                (
                    sp.Eq(F.CleanDiv(s, k) * k, s),
                    sp.Ge(F.CleanDiv(s, k), r.choice((1, 2, h // k))),
                    sp.Ne(F.CleanDiv(s, k), r.choice((1, h // k + 1))),
                )
            )
        if kind == "and":
            a = r.choice((sp.Le, sp.Lt))(s, h + r.choice((0, 1, 6)))
            b = r.choice((sp.Ge, sp.Gt))(s, max(2, h - r.choice((0, 1, 4))) - 1)
            return sp.And(a, b)
        if kind == "repl":
            others = [t for t in ints if t is not s]
            if not others:
                return sp.Eq(sp.Mod(s, 2), 0)
            t = r.choice(others)
            ht = int(hint[t])
            if ht == h:
                return sp.Eq(s, t)
            if ht == 2 * h:
                return sp.Eq(t, 2 * s)
            return r.choice((sp.Le, sp.Ge, sp.Ne))(s, t)
        if kind == "expr_cmp":
            e = self.size_expr(sc, depth=1)
            if e.is_number:
                return None
            return r.choice((sp.Le, sp.Ge, sp.Ne, sp.Lt))(e, r.randint(0, 2 * h + 4))
        # float
        fl = sc.float_sizes
        if not fl:
            return sp.Ge(s, 2)
        if r.random() < 0.3:
            fa, fb = _float_int(fl[0], True), _float_int(fl[0], False)
            return r.choice((sp.Ne, sp.Eq, sp.Lt))(fa, fb)
        if r.random() < 0.3:
            return r.choice((sp.Ge, sp.Le, sp.Ne))(2 * fl[0].sym, r.choice((1, 3, 5, 6)))
        fx = _float_int(fl[0], r.random() < 0.5)
        return r.choice((sp.Ge, sp.Le, sp.Ne))(fx, r.choice((0, 1, 2, 3)))

    def size_points(self, sc: Scenario) -> list[dict[Any, Any]]:
        """Points over the size symbols within their ranges satisfying every guard: the
        hints, a small box and random values."""
        r = self.rng
        cands: list[list[Any]] = []
        for z in sc.sizes:
            if z.is_float:
                vals: set[Any] = {z.hint}
                vals |= {k / 4 for k in range(1, 28)}
                vals |= {r.uniform(0.01, 8.0) for _ in range(4)}
                vals = {v for v in vals if z.lo <= v <= z.hi and v > 0}
            else:
                hi = z.hi if z.hi != math.inf else z.lo + 40
                box = set(range(int(z.lo), int(min(hi, z.lo + 14)) + 1))
                box |= {int(z.hint)}
                box |= {r.randint(int(z.lo), int(hi)) for _ in range(6)}
                box |= {v for v in (int(z.hint) * 2, int(z.hint) * 3) if v <= hi}
                vals = box
            cands.append(sorted(vals))
        total = 1
        for c in cands:
            total *= len(c)
        syms = [z.sym for z in sc.sizes]
        combos: Sequence[tuple[Any, ...]]
        if total <= 3000:
            combos = list(itertools.product(*cands))
        else:
            combos = [tuple(r.choice(c) for c in cands) for _ in range(3000)]
        hint_combo = tuple(z.hint for z in sc.sizes)
        out: list[dict[Any, Any]] = []
        seen: set[tuple[Any, ...]] = set()
        for combo in [hint_combo, *combos]:
            if combo in seen:
                continue
            seen.add(combo)
            pt = dict(zip(syms, combo))
            ok = True
            for g in sc.guards:
                try:
                    if not true_value(g, pt):
                        ok = False
                        break
                except Undefined:
                    ok = False
                    break
            if ok:
                out.append(pt)
        if len(out) > 48:
            out = out[:1] + r.sample(out[1:], 47)
        return out

    # --- expressions ---------------------------------------------------------------------

    def leaf(self, sc: Scenario, loops: Sequence[Any]) -> Any:
        r = self.rng
        roll = r.random()
        if self.pool and roll < 0.15:  # a subterm met before (Inductor asks about the same)
            old = r.choice(self.pool)
            if old.free_symbols <= {*loops, *(z.sym for z in sc.sizes)}:
                return old
        roll = r.random()
        if loops and roll < 0.45:
            v = r.choice(loops)
            if r.random() < 0.3:
                return v + r.choice((-1, -2, 1, 3))
            return v
        if roll < 0.7 and sc.int_sizes:
            s = r.choice(sc.int_sizes)
            return s + r.choice((0, 0, 0, -1, 1, -2))
        if roll < 0.76 and sc.float_sizes:
            return _float_int(sc.float_sizes[0], r.random() < 0.5)
        return _T.sympy.Integer(r.choice((0, 1, 2, 3, 4, 7, 8, 16, -1, -3)))

    def divisor(self, sc: Scenario) -> Any:
        r = self.rng
        sp = _T.sympy
        if sc.int_sizes and r.random() < 0.35:
            s = r.choice(sc.int_sizes)
            return r.choice((s, s, s + 1, 2 * s))
        return sp.Integer(r.choice((1, 2, 3, 4, 4, 8, 8, 16, 5, 64)))

    def expr(self, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        r = self.rng
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(sc, loops)
        if loops and r.random() < 0.25:
            try:
                return self.idiom(sc, loops, depth)
            except Exception:  # sympy's own evaluation can fail
                pass
        kind = r.choice(
            (
                "add",
                "add",
                "mul",
                "floordiv",
                "floordiv",
                "modidx",
                "modidx",
                "modidx",
                "pymod",
                "pymod",
                "mod",
                "clean",
                "ceildiv",
                "min",
                "max",
                "where",
                "lin",
            )
        )
        a = self.expr(sc, loops, depth - 1)
        out = self._node(kind, a, sc, loops, depth)
        if not out.is_number and len(self.pool) < 64:
            self.pool.append(out)
        elif not out.is_number:
            self.pool[r.randrange(64)] = out
        return out

    def _node(self, kind: str, a: Any, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        r = self.rng
        sp, F = _T.sympy, _T.F
        try:
            if kind == "add":
                return a + self.expr(sc, loops, depth - 1)
            if kind == "mul":
                return a * r.choice((2, 3, 4, 8, -1)) if r.random() < 0.7 else a * self.leaf(
                    sc, ()
                )
            if kind == "lin":
                b = self.expr(sc, loops, depth - 1)
                return r.choice((1, 2, 4, 16)) * a + r.choice((1, 3, 8)) * b + r.choice(
                    (0, -1, 2, -4)
                )
            if kind == "floordiv":
                return F.FloorDiv(a, self.divisor(sc))
            if kind == "modidx":
                return F.ModularIndexing(a, self.divisor(sc), self.divisor(sc))
            if kind == "pymod":
                return F.PythonMod(a, self.divisor(sc))
            if kind == "mod":
                return F.Mod(a, self.divisor(sc))
            if kind == "clean":
                d = self.divisor(sc)
                return F.CleanDiv(d * a, d) if r.random() < 0.8 else F.CleanDiv(a, d)
            if kind == "ceildiv":
                return F.CeilDiv(a, self.divisor(sc))
            if kind == "min":
                return F.Min(a, self.expr(sc, loops, depth - 1))
            if kind == "max":
                return F.Max(a, self.expr(sc, loops, depth - 1))
            if kind == "where":
                c = r.choice((sp.Lt, sp.Ge, sp.Eq))(a, self.leaf(sc, loops))
                return F.Where(
                    c, self.expr(sc, loops, depth - 1), self.expr(sc, loops, depth - 1)
                )
            if kind == "float" and sc.float_sizes:
                f = sc.float_sizes[0].sym
                return r.choice((2, 3, 4)) * f + a  # a float symbol itself, not floored
        except Exception:  # sympy's own evaluation can fail (a recursion, a division by 0)
            return a
        return a

    def idiom(self, sc: Scenario, loops: Sequence[Any], depth: int) -> Any:
        """The shapes Inductor's indexing builds (views, padding, pooling windows, flips):
        a loop index split by a divisor and a modulus, often shifted below zero, under an
        outer ``PythonMod`` / ``FloorDiv`` / recombination with the same constants."""
        r = self.rng
        F = _T.F
        v = r.choice(loops)
        shift = r.choice((0, -1, -1, -2, 1, -3))
        x = v + shift
        d = r.choice((1, 1, 2, 4, 8)) if r.random() < 0.8 else self.divisor(sc)
        m = self.divisor(sc) if r.random() < 0.3 else _T.sympy.Integer(r.choice((2, 4, 8, 16)))
        mi = F.ModularIndexing(x, d, m)
        kind = r.choice(("pymod_mi", "floordiv_mi", "recombine", "pymod_x", "mi_mi", "mi_off"))
        if kind == "pymod_mi":
            k = r.choice((m, 2 * m, m, r.choice(sc.int_sizes) if sc.int_sizes else m))
            return F.PythonMod(mi, k)
        if kind == "floordiv_mi":
            q = r.choice(sc.int_sizes) if sc.int_sizes else m
            return F.FloorDiv(mi, q) + r.choice((0, -1, 1))
        if kind == "recombine":
            return m * F.FloorDiv(F.FloorDiv(x, d), m) + mi + r.choice((0, 2, -1))
        if kind == "pymod_x":
            k = r.choice(sc.int_sizes) if sc.int_sizes else m
            other = self.expr(sc, loops, depth - 1)
            return F.PythonMod(x, k) + other + 8 * F.ModularIndexing(v, 64, 4)
        if kind == "mi_mi":
            return F.ModularIndexing(mi, r.choice((1, 2)), r.choice((m, 2 * m, 4)))
        return mi + self.leaf(sc, loops)

    def size_expr(self, sc: Scenario, depth: int) -> Any:
        return self.expr(sc, (), depth)

    def var_ranges(self, sc: Scenario, loops: Sequence[Any]) -> dict[Any, Any]:
        r = self.rng
        sp = _T.sympy
        out: dict[Any, Any] = {}
        for v in loops:
            roll = r.random()
            if roll < 0.55 or not sc.int_sizes:
                out[v] = sp.Integer(r.choice((1, 2, 3, 4, 5, 8, 12, 16, 64)))
            elif roll < 0.85:
                out[v] = r.choice(sc.int_sizes)
            else:
                s = r.choice(sc.int_sizes)
                out[v] = r.choice((2 * s, s * s, 4 * s, s + 1, _T.F.FloorDiv(s, 2) + 1))
        if len(loops) >= 2 and r.random() < 0.2:
            a, b = loops[0], loops[1]
            na, nb = out[a], out[b]
            if na.is_Integer and nb.is_Integer:
                key = a + int(na) * b
                out[key] = sp.Integer(int(na) * int(nb))
        return out

    def claim(self, sc: Scenario, with_loops: bool) -> Any:
        r = self.rng
        sp = _T.sympy
        loops = self.loops[:1] if with_loops else ()
        a = self.expr(sc, loops, r.choice((1, 2, 2, 3)))
        roll = r.random()
        if roll < 0.5:
            b: Any = sp.Integer(r.randint(-2, 20))
        elif roll < 0.8 and sc.int_sizes:
            b = self.leaf(sc, ())
        else:
            b = self.expr(sc, loops, 1)
        if sc.float_sizes and r.random() < 0.15:
            a = self._node("float", a, sc, loops, 1)
            b = sp.Integer(r.randint(0, 12))
        rel = r.choice((sp.Eq, sp.Ne, sp.Lt, sp.Le, sp.Gt, sp.Ge))
        try:
            return rel(a, b)
        except (TypeError, ValueError):
            return sp.Eq(a, b)


#: the sources size symbols are created from (their names decide the symbols' names)
_SOURCES = (
    "L['x'].size()[0]",
    "L['x'].size()[1]",
    "L['y'].size()[0]",
    "L['w'].size()[2]",
    "L['scale']",
)


def _float_int(z: SizeSym, floor: bool) -> Any:
    """``math.floor`` / ``math.ceil`` of a float symbol's SymFloat, as Dynamo reads them
    (``FloorToInt(f)`` / ``CeilToInt(f)``); built directly where the node does not give one."""
    if z.node is not None:
        try:
            out = (math.floor(z.node) if floor else math.ceil(z.node)).node.expr
            if getattr(out, "free_symbols", None):
                return out
        except Exception:
            pass
    F = _T.F
    return F.FloorToInt(z.sym) if floor else F.CeilToInt(z.sym)


def _bound(v: Any, default: Any) -> Any:
    try:
        if getattr(v, "is_Integer", False) or isinstance(v, int):
            return int(v)
        if getattr(v, "is_Number", False) and v.is_finite:
            return float(v)
    except Exception:
        pass
    return default


def _pyname(sym: Any) -> str:
    return str(sym.name)


def _create_symbol(se: Any, hint: Any, src: str) -> Any:
    """``create_symbol`` as every torch since 2.1 has it (DYNAMIC, so 0/1 specialise but
    equal hints do not duck-share a symbol)."""
    source = _T.ConstantSource(src)
    dyn = _T.DimDynamic.DYNAMIC
    try:
        return se.create_symbol(hint, source, dynamic_dim=dyn)
    except TypeError:
        return se.create_symbol(hint, source, dyn)


# =======================================================================================
# The fuzzer


_PRELUDE = """\
import gc, math, sympy, torch
from sympy import *  # the names sympy.srepr writes
from torch._dynamo.source import ConstantSource
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.functions import (CeilDiv, CeilToInt, CleanDiv, FloorDiv, FloorToInt,
    Max, Min, Mod, ModularIndexing, PythonMod, Where)
from torch.utils._sympy.value_ranges import ValueRanges
from torch._inductor import sizevars
from torch._inductor.sizevars import SizeVarAllocator
from torch._inductor.codegen.cpp_utils import cexpr
import indexalg, indexalg.inductor
x0, x1, x2 = (sympy.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(3))
"""


@dataclass
class _Call:
    entry: str
    sc: Scenario
    args: tuple[Any, ...]
    source: str  # the call as Python source, with ``se`` the ShapeEnv


class PluginFuzzer:
    """A campaign in this process: :meth:`run` makes ``calls`` calls (and returns the
    report); ``seed`` fixes everything."""

    def __init__(
        self,
        seed: int = 0,
        *,
        max_envs: int = 4,
        max_findings: int = 20,
        entries: Sequence[str] | None = None,
        minimise: bool = True,
        stock_rate: float = 1.0,
        float_rate: float = 0.2,
    ) -> None:
        _T.load()
        self.stock_rate = stock_rate
        self.seed = seed
        self.rng = random.Random(seed)
        self.gen = _Gen(self.rng, float_rate)
        self.report = PluginFuzzReport(seed=seed, max_findings=max_findings)
        self.envs: list[Scenario] = []
        self.max_envs = max_envs
        self.entries = tuple(
            e
            for e in (entries or ENTRY_POINTS)
            if e != "stride_at_vec_range" or hasattr(_T.sizevars, "stride_at_vec_range")
        ) or ("simplify_with_ranges",)
        self.history: list[_Call] = []  # calls since the plug-in's memos were last emptied
        self.queue: list[_Call] = []  # calls to make next (a recompile's)
        self.addresses: set[int] = set()  # id() of every ShapeEnv created
        self.minimise = minimise
        self.env_ids = itertools.count()
        import torch

        self.report.torch_version = str(torch.__version__)

    # --- memo and environment events -----------------------------------------------------

    def _event(self, name: str) -> None:
        self.report.memo_events[name] = self.report.memo_events.get(name, 0) + 1

    def _memo_event(self) -> None:
        r = self.rng
        plug = _plugin()
        roll = r.random()
        if roll < 0.3:
            import indexalg

            indexalg.clear_caches()
            self._event("clear_caches")
        elif roll < 0.5:
            plug.uninstall()
            plug.install()
            self.history.clear()
            self._event("reinstall")
        elif roll < 0.65:
            self._new_env()
        elif roll < 0.85 and self.envs:
            self._recompile(r.randrange(len(self.envs)))
        else:
            if self.envs:
                self._forget(self.envs.pop(r.randrange(len(self.envs))))
            gc.collect(1)
            self._event("collect")

    def _new_env(self) -> Scenario:
        plug = _plugin()
        if not plug.installed():
            plug.install()
        sc = self.gen.scenario(next(self.env_ids), self._take_guard)
        self.report.envs += 1
        self._event("new_env")
        self._seen(sc)
        self.envs.append(sc)
        while len(self.envs) > self.max_envs:
            self._forget(self.envs.pop(0))
            gc.collect(1)
        return sc

    def _seen(self, sc: Scenario) -> None:
        """Count a ShapeEnv at an address an earlier (collected) one had."""
        addr = id(sc.shape_env)
        if addr in self.addresses:
            self._event("address_reused")
        self.addresses.add(addr)

    def _forget(self, old: Scenario) -> None:
        """No reference to ``old`` left here (so its ShapeEnv can be collected)."""
        self.history = [c for c in self.history if c.sc is not old]
        self.queue = [c for c in self.queue if c.sc is not old]
        _clear_shape_env_caches()

    def _recompile(self, index: int) -> None:
        """``old`` dropped and collected, a new ShapeEnv from the same sources (often at the
        freed one's address) and ``old``'s recent calls asked again there, as a recompile of
        the same graph under other guards asks them."""
        # popped here: an argument would stay on the caller's stack, the ShapeEnv alive
        old = self.envs.pop(index)
        again = [(c.entry, c.args, c.source) for c in self.history if c.sc is old][-8:]
        like = [(z.source, int(z.hint)) for z in old.sizes if not z.is_float]
        self.history = [c for c in self.history if c.sc is not old]
        self.queue = [c for c in self.queue if c.sc is not old]
        _clear_shape_env_caches()
        prelude = [*old.recipe, *(f"try: {src}\nexcept Exception: pass" for _, _, src in again)]
        prelude.append(
            "del se; [getattr(v, 'cache_clear', lambda: None)() for v in list(vars(ShapeEnv)"
            ".values()) if callable(getattr(v, 'cache_clear', None))]; gc.collect()"
        )
        del old
        gc.collect()  # a full collection: a long-lived ShapeEnv is in the oldest generation
        se = _T.ShapeEnv()  # first, so it can take the freed one's address
        sc = self.gen.scenario(next(self.env_ids), self._take_guard, like=like, shape_env=se)
        del se
        sc.prelude = prelude
        self.report.envs += 1
        self._event("recompile")
        self._seen(sc)
        self.envs.append(sc)
        for entry, args, source in again:
            self.queue.append(_Call(entry, sc, args, source))

    def _take_guard(self, sc: Scenario, g: Any, F: Any) -> None:
        """Record ``g`` in the ShapeEnv the way Dynamo does (``evaluate_expr`` at the hints),
        through the plug-in; the truth at the hints is checked as an answer too."""
        hints = {z.sym: z.hint for z in sc.sizes}
        try:
            want = bool(true_value(g, hints))
        except Undefined:
            return
        counts = self.report.entry("evaluate_expr")
        counts.calls += 1
        before = _fallback_total("maybe_evaluate_static")
        calls_before = _calls_total("maybe_evaluate_static")
        try:
            got = sc.shape_env.evaluate_expr(g)
        except Exception:
            counts.errors += 1
            return
        counts.fallbacks += int(_fallback_total("maybe_evaluate_static") != before)
        counts.reached += int(_calls_total("maybe_evaluate_static") != calls_before)
        counts.checked += 1
        counts.points += 1
        sp = _T.sympy
        got_b: bool | None
        if got is sp.true or got is True:
            got_b = True
        elif got is sp.false or got is False:
            got_b = False
        else:
            got_b = None
        taken = g if want else sp.Not(g)
        if got_b is not None and got_b != want:
            counts.plugin_wrong += 1
            src = "\n".join(
                [*sc.recipe, "indexalg.inductor.install()", f"print(se.evaluate_expr({_srepr(g)}))"]
            )
            self.report.add(
                Finding(
                    "evaluate_expr",
                    "claim",
                    PLUGIN_WRONG,
                    f"evaluate_expr({g}) = {got} at the hints {hints}, where it is {want}",
                    _PRELUDE + src + f"\n# the hints give {want}\n",
                )
            )
            return
        sc.guards.append(taken)
        sc.recipe.append(f"se.evaluate_expr({_srepr(g)})  # {want} at the hints")

    # --- calls ---------------------------------------------------------------------------

    def _make_call(self, sc: Scenario) -> _Call:
        r = self.rng
        sp, F = _T.sympy, _T.F
        entry = r.choice(self.entries)
        if entry == "evaluate_expr":
            entry = "maybe_evaluate_static"
        if entry == "simplify_with_ranges":
            loops = self.gen.loops[: r.choice((1, 1, 2, 2, 3))]
            e = self.gen.expr(sc, loops, r.choice((1, 2, 2, 3, 3, 4)))
            vr = self.gen.var_ranges(sc, [v for v in loops if v in e.free_symbols] or loops)
            src = f"SizeVarAllocator(se).simplify_with_ranges({_srepr(e)}, {_vr_src(vr)})"
            return _Call(entry, sc, (e, vr), src)
        if entry == "stride_at_vec_range":
            loops = self.gen.loops[: r.choice((1, 2, 2))]
            e = self.gen.expr(sc, loops, r.choice((1, 2, 3)))
            var = r.choice(loops)
            vec = r.choice((None, 4, 8, 16))
            src = f"sizevars.stride_at_vec_range({_srepr(e)}, {_srepr(var)}, {vec})"
            return _Call(entry, sc, (e, var, vec), src)
        with_loops = r.random() < 0.25
        if entry == "statically_known_leq":
            one = self.gen.loops[:1] if with_loops else []
            a = self.gen.expr(sc, one, r.choice((1, 2, 3)))
            b = self.gen.expr(sc, (), r.choice((0, 1, 2))) if r.random() < 0.5 else sp.Integer(
                r.randint(0, 40)
            )
            src = f"SizeVarAllocator(se).statically_known_leq({_srepr(a)}, {_srepr(b)})"
            return _Call(entry, sc, (a, b), src)
        if entry == "statically_known_multiple_of":
            one = self.gen.loops[:1] if with_loops else []
            a = self.gen.expr(sc, one, r.choice((1, 2, 3)))
            if r.random() < 0.3:
                a = a - 1
            if r.random() < 0.25:  # a shifted loop index, as a padded kernel asks of it
                a = r.choice(self.gen.loops[:2]) + r.choice((-1, -2, 1))
            d: Any = (
                r.choice(sc.int_sizes)
                if sc.int_sizes and r.random() < 0.5
                else sp.Integer(r.choice((2, 3, 4, 8, 16)))
            )
            src = f"SizeVarAllocator(se).statically_known_multiple_of({_srepr(a)}, {_srepr(d)})"
            return _Call(entry, sc, (a, d), src)
        claim = self.gen.claim(sc, with_loops)
        if entry == "statically_known_true":
            src = f"SizeVarAllocator(se).statically_known_true({_srepr(claim)})"
            return _Call(entry, sc, (claim,), src)
        # maybe_evaluate_static: a claim, sometimes a value, with flag variations
        flags: dict[str, Any] = {}
        roll = r.random()
        if roll < 0.15:
            flags["size_oblivious"] = True
        elif roll < 0.25:
            flags["axioms"] = ()
        target = claim
        if r.random() < 0.1:
            target = self.gen.size_expr(sc, 2)
            if F is None:
                target = claim
        kw = "".join(f", {k}={v!r}" for k, v in flags.items())
        src = f"se._maybe_evaluate_static({_srepr(target)}{kw})"
        return _Call(entry, sc, (target, flags), src)

    @staticmethod
    def _invoke(call: _Call) -> Any:
        sc = call.sc
        if call.entry == "simplify_with_ranges":
            e, vr = call.args
            return _T.SizeVarAllocator(sc.shape_env).simplify_with_ranges(e, vr)
        if call.entry == "stride_at_vec_range":
            e, var, vec = call.args
            return _T.sizevars.stride_at_vec_range(e, var, vec)
        if call.entry == "statically_known_true":
            return _T.SizeVarAllocator(sc.shape_env).statically_known_true(call.args[0])
        if call.entry == "statically_known_leq":
            return _T.SizeVarAllocator(sc.shape_env).statically_known_leq(*call.args)
        if call.entry == "statically_known_multiple_of":
            return _T.SizeVarAllocator(sc.shape_env).statically_known_multiple_of(*call.args)
        target, flags = call.args
        try:
            return sc.shape_env._maybe_evaluate_static(target, **flags)
        except TypeError:
            if not flags:
                raise
            # a torch without these keyword arguments: the claim alone (for both sides)
            return sc.shape_env._maybe_evaluate_static(target)

    # --- points --------------------------------------------------------------------------

    def _points(self, call: _Call) -> list[dict[Any, Any]]:
        """Points of the call's symbols: size points of its ShapeEnv times loop-index values
        within var_ranges (simplify_with_ranges) or free non-negative values (the rest)."""
        r = self.rng
        sc = call.sc
        if call.entry == "simplify_with_ranges":
            e, vr = call.args
            loop_keys = [k for k in vr if getattr(k, "is_Symbol", False)]
            expr_keys = [(k, v) for k, v in vr.items() if not getattr(k, "is_Symbol", False)]
            free = [v for v in self.gen.loops if v in e.free_symbols and v not in vr]
            out: list[dict[Any, Any]] = []
            for spt in sc.points[:8]:
                sizes: list[list[int]] = []
                ok = True
                for k in loop_keys:
                    try:
                        n = int(true_value(vr[k], spt))
                    except (Undefined, TypeError, ValueError):
                        ok = False
                        break
                    if n < 1:
                        ok = False
                        break
                    sizes.append(list(range(n)))
                if not ok:
                    continue
                for _v in free:
                    sizes.append(list(range(12)))
                keys = [*loop_keys, *free]
                total = 1
                for s in sizes:
                    total *= len(s)
                if total <= 96:
                    combos: Sequence[tuple[int, ...]] = list(itertools.product(*sizes))
                else:
                    combos = [tuple(r.choice(s) for s in sizes) for _ in range(64)]
                    combos = [
                        *combos,
                        tuple(s[0] for s in sizes),
                        tuple(s[-1] for s in sizes),
                    ]
                for combo in combos:
                    pt = dict(spt)
                    pt.update(zip(keys, combo))
                    good = True
                    for k, n in expr_keys:
                        try:
                            kv, nv = true_value(k, pt), true_value(n, pt)
                        except Undefined:
                            good = False
                            break
                        if not 0 <= kv < nv:
                            good = False
                            break
                    if good:
                        out.append(pt)
            return out
        if call.entry == "stride_at_vec_range":
            e, var, vec = call.args
            others = [v for v in self.gen.loops if v in e.free_symbols and v != var]
            out = []
            n = vec or 1
            for spt in sc.points[:12]:
                for _ in range(12):
                    pt = dict(spt)
                    for v in others:
                        pt[v] = r.randrange(20)
                    base = n * r.randrange(12)
                    lane = r.randrange(max(n - 1, 1))
                    pt[var] = base + lane
                    out.append(pt)
            return out
        # claims: loop indices (non-negative by assumption) take small values
        syms = set()
        for a in call.args:
            if hasattr(a, "free_symbols"):
                syms |= a.free_symbols
        loops = [v for v in self.gen.loops if v in syms]
        out = []
        for spt in sc.points:
            if not loops:
                out.append(spt)
                continue
            for val in (0, 1, 2, 3, 5, 7, 8, 12, 15, 16, 31, 33, r.randrange(200)):
                pt = dict(spt)
                for v in loops:
                    pt[v] = val
                out.append(pt)
        return out

    # --- checks --------------------------------------------------------------------------

    def _verdicts(self, call: _Call, ans: Any, pts: list[dict[Any, Any]]) -> dict[str, str]:
        """check -> a failure description ("" when right) for one answer; "unchecked" when
        there was nothing to check."""
        sp = _T.sympy
        if call.entry == "simplify_with_ranges":
            e, _vr = call.args
            cpp = _printed(_T.cexpr, ans)
            tri = _printed(_T.texpr, ans)
            out = {"value": "", "cpp": "", "triton": ""}
            n = 0
            for pt in pts:
                try:
                    want = _num(true_value(e, pt))
                except Undefined:
                    continue
                n += 1
                env = {str(k): v for k, v in pt.items()}
                if not out["value"]:
                    try:
                        got = _num(true_value(ans, pt))
                    except Undefined:
                        got = "undefined"
                    if got != want:
                        out["value"] = f"{ans} is {got} at {_pt(pt)}, the input {want}"
                for check, text, evaluator in (
                    ("cpp", cpp, c_eval),
                    ("triton", tri, triton_eval),
                ):
                    if text is None or out[check]:
                        continue
                    try:
                        got = evaluator(text, env)
                    except Undefined:
                        got = "undefined"
                    except Unprintable:
                        continue
                    if got != want:
                        out[check] = f"{text} is {got} at {_pt(pt)}, the input {want}"
            if n == 0:
                return {"value": "unchecked"}
            return out
        if call.entry == "stride_at_vec_range":
            e, var, _vec = call.args
            if not hasattr(ans, "free_symbols"):
                return {"stride": "unchecked"}
            known = {var, *(z.sym for z in call.sc.sizes), *self.gen.loops}
            if not ans.free_symbols <= known:
                return {"stride": "unchecked"}  # stock's fresh lane symbols
            n = 0
            for pt in pts:
                try:
                    a = true_value(e, pt)
                    nxt = dict(pt)
                    nxt[var] = pt[var] + 1
                    b = true_value(e, nxt)
                    want = _num(b - a)
                except Undefined:
                    continue
                n += 1
                try:
                    got = _num(true_value(ans, pt))
                except Undefined:
                    got = "undefined"
                if got != want:
                    return {"stride": f"{ans} is {got} at {_pt(pt)}, the stride {want}"}
            return {"stride": "" if n else "unchecked"}
        # claims
        if call.entry == "maybe_evaluate_static":
            target = call.args[0]
            if ans is None:
                return {"claim": "unchecked"}
            is_claim = bool(getattr(target, "is_Relational", False) or target.is_Boolean)
            if is_claim and ans not in (sp.true, sp.false):
                if getattr(ans, "is_Boolean", False) or getattr(ans, "is_Relational", False):
                    # a rewritten claim: equal truth at every point
                    return self._same_truth(target, ans, pts)
                return {"claim": "unchecked"}
            if not is_claim:
                return self._same_value(target, ans, pts)
            want_true = ans is sp.true
            claim = target
        else:
            if ans is not True:
                return {"claim": "unchecked"}
            want_true = True
            if call.entry == "statically_known_true":
                claim = call.args[0]
            elif call.entry == "statically_known_leq":
                claim = sp.Le(call.args[0], call.args[1])
            else:
                claim = sp.Eq(sp.Mod(call.args[0], call.args[1]), 0)
            if claim in (sp.true, sp.false):
                claim = call.args[0] if call.entry == "statically_known_true" else claim
        n = 0
        for pt in pts:
            try:
                v = bool(true_value(claim, pt))
            except Undefined:
                continue
            n += 1
            if v != want_true:
                return {"claim": f"{claim} answered {want_true}, is {v} at {_pt(pt)}"}
        return {"claim": "" if n else "unchecked"}

    @staticmethod
    def _same_truth(a: Any, b: Any, pts: list[dict[Any, Any]]) -> dict[str, str]:
        n = 0
        for pt in pts:
            try:
                va, vb = bool(true_value(a, pt)), bool(true_value(b, pt))
            except Undefined:
                continue
            n += 1
            if va != vb:
                return {"claim": f"{a} rewritten to {b}: {va} vs {vb} at {_pt(pt)}"}
        return {"claim": "" if n else "unchecked"}

    @staticmethod
    def _same_value(a: Any, b: Any, pts: list[dict[Any, Any]]) -> dict[str, str]:
        n = 0
        for pt in pts:
            try:
                va = _num(true_value(a, pt))
            except Undefined:
                continue
            try:
                vb: Any = _num(true_value(b, pt))
            except Undefined:
                vb = "undefined"
            n += 1
            if va != vb:
                return {"value": f"{a} answered {b}: {va} vs {vb} at {_pt(pt)}"}
        return {"value": "" if n else "unchecked"}

    # --- one call ------------------------------------------------------------------------

    def _one_call(self) -> None:
        r = self.rng
        if not self.envs:
            self._new_env()
        if self.queue:
            call = self.queue.pop(0)
            sc = call.sc
        else:
            sc = r.choice(self.envs)
            call = self._make_call(sc)
        counts = self.report.entry(call.entry)
        counts.calls += 1
        self.report.calls += 1
        plug = _plugin()
        if not plug.installed():
            plug.install()
        fb_name = {
            "simplify_with_ranges": "simplify_with_ranges",
            "stride_at_vec_range": "stride_at_vec_range",
        }.get(call.entry, "maybe_evaluate_static")
        stock_first = r.random() < 0.5 * self.stock_rate
        stock_always = stock_first or r.random() < self.stock_rate
        ans_stock: Any = None
        stock_err = False
        if stock_first:
            ans_stock, stock_err = self._stock_answer(call)
        before = _fallback_total(fb_name)
        calls_before = _calls_total(fb_name)
        try:
            ans = self._invoke(call)
        except Exception as exc:
            counts.errors += 1
            self.history.append(call)
            if not stock_first:
                ans_stock, stock_err = self._stock_answer(call)
            if not stock_err:
                self._report_error(call, exc)
            return
        fell_back = _fallback_total(fb_name) != before
        counts.fallbacks += int(fell_back)
        counts.reached += int(_calls_total(fb_name) != calls_before)
        self.history.append(call)
        if len(self.history) > 64:
            del self.history[:-64]
        pts = self._points(call)
        ours = self._verdicts(call, ans, pts)
        wrong = any(v and v != "unchecked" for v in ours.values())
        if not stock_first and (stock_always or wrong):
            ans_stock, stock_err = self._stock_answer(call)
        asked = stock_first or stock_always or wrong
        theirs = self._verdicts(call, ans_stock, pts) if asked and not stock_err else {}
        if asked:
            counts.stock_calls += 1
        if all(v == "unchecked" for v in ours.values()):
            counts.unchecked += 1
        else:
            counts.checked += 1
            counts.points += len(pts)
        # one count per call and category; the checks that failed are named in the finding
        found: dict[str, list[tuple[str, str, str]]] = {}
        for check, why in ours.items():
            if not why or why == "unchecked":
                continue
            stock_why = theirs.get(check, "")
            cat = BOTH_WRONG if stock_why and stock_why != "unchecked" else PLUGIN_WRONG
            found.setdefault(cat, []).append((check, why, stock_why))
        for check, stock_why in theirs.items():
            if stock_why and stock_why != "unchecked" and not ours.get(check):
                found.setdefault(STOCK_WRONG, []).append((check, stock_why, stock_why))
        for cat, items in found.items():
            setattr(counts, cat, getattr(counts, cat) + 1)
            checks = "+".join(c for c, _, _ in items)
            why = "; ".join(w for _, w, _ in items)
            stock_why = "; ".join(sw for _, _, sw in items if sw and sw != "unchecked")
            if cat != STOCK_WRONG and fell_back:
                why += " (the plug-in fell back to stock)"
            self._report(call, checks, cat, why, ans, ans_stock, stock_why)

    def _stock_answer(self, call: _Call) -> tuple[Any, bool]:
        try:
            with stock():
                return self._invoke(call), False
        except Exception:
            return None, True

    # --- reproducers ---------------------------------------------------------------------

    def _report(
        self,
        call: _Call,
        check: str,
        category: str,
        why: str,
        ans: Any,
        ans_stock: Any,
        stock_why: str,
    ) -> None:
        cat_kept = sum(1 for f in self.report.findings if f.category == category)
        if cat_kept >= self.report.max_findings:
            self.report.dropped[category] = self.report.dropped.get(category, 0) + 1
            return
        detail = f"{call.entry}: {why}; plug-in {ans}, stock {ans_stock}"
        if stock_why and category == PLUGIN_WRONG:
            detail += f" (stock: {stock_why})"
        alone = category != PLUGIN_WRONG or not self.minimise or self._alone(call, check)
        self.report.add(
            Finding(call.entry, check, category, detail, self._reproducer(call, alone))
        )

    def _alone(self, call: _Call, check: str) -> bool:
        """Whether the wrong answer comes back with the plug-in's memos emptied and the call
        made alone (then the reproducer needs no history)."""
        plug = _plugin()
        import indexalg

        plug.uninstall()
        indexalg.clear_caches()
        plug.install()
        self.history.clear()
        self._event("reinstall")
        try:
            ans = self._invoke(call)
        except Exception:
            return True
        pts = self._points(call)
        verdicts = self._verdicts(call, ans, pts)
        return any(verdicts.get(c) not in (None, "", "unchecked") for c in check.split("+"))

    def _reproducer(self, call: _Call, alone: bool) -> str:
        lines = [_PRELUDE.rstrip(), "indexalg.inductor.install()"]
        if not alone and call.sc.prelude:
            lines.append("# the ShapeEnv this one recompiles, its calls, then collected:")
            lines.extend(call.sc.prelude)
        lines.extend(call.sc.recipe)
        if not alone:
            lines.append("# the calls before it since the plug-in's memos were emptied:")
            for prev in self.history[-24:-1]:
                if prev.sc is call.sc:
                    lines.append(f"try: {prev.source}\nexcept Exception: pass")
                else:
                    lines.append(f"# (on another ShapeEnv) {prev.source}")
        lines.append(f"out = {call.source}")
        lines.append("print(out)")
        if call.entry == "simplify_with_ranges":
            lines.append("print(cexpr(out))")
        return "\n".join(lines) + "\n"

    def _report_error(self, call: _Call, exc: Exception) -> None:
        self.report.add(
            Finding(
                call.entry,
                "error",
                PLUGIN_WRONG,
                f"{type(exc).__name__}: {exc} (stock answers)",
                self._reproducer(call, True),
            )
        )

    # --- the campaign --------------------------------------------------------------------

    def run(self, calls: int, *, deadline: float | None = None) -> PluginFuzzReport:
        """``calls`` calls (fewer if ``deadline``, a ``time.time()``, passes first)."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        plug = _plugin()
        was = plug.installed()
        plug.install()
        try:
            done = 0
            while done < calls:
                if deadline is not None and time.time() > deadline:
                    break
                if not self.envs or self.rng.random() < 0.06:
                    self._memo_event()
                    continue
                self._one_call()
                done += 1
        finally:
            if not was:
                plug.uninstall()
            self.envs.clear()
            gc.collect()
        self.report.seconds += time.perf_counter() - t0
        self.report.cpu_seconds += time.process_time() - c0
        return self.report


def _clear_shape_env_caches() -> None:
    """Empty the ShapeEnv methods' lru caches, whose keys hold every ShapeEnv asked (as a
    version bump of any ShapeEnv does in a compiler process): a dropped ShapeEnv is then
    freed by the next collection, and the next one created can take its address."""
    for value in list(vars(_T.ShapeEnv).values()):
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            with contextlib.suppress(Exception):
                clear()


def _pt(pt: dict[Any, Any]) -> str:
    items = sorted(pt.items(), key=lambda kv: str(kv[0]))
    return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"


def _vr_src(vr: dict[Any, Any]) -> str:
    return "{" + ", ".join(f"{_srepr(k)}: {_srepr(v)}" for k, v in vr.items()) + "}"


def run(
    calls: int,
    seed: int = 0,
    *,
    entries: Sequence[str] | None = None,
    max_findings: int = 20,
    deadline: float | None = None,
    minimise: bool = True,
    stock_rate: float = 1.0,
    float_rate: float = 0.2,
) -> PluginFuzzReport:
    """``calls`` plug-in calls from ``seed``; each is made with stock Inductor too when the
    plug-in's answer is wrong, and at ``stock_rate`` (a share) when it is right."""
    fz = PluginFuzzer(
        seed,
        entries=entries,
        max_findings=max_findings,
        minimise=minimise,
        stock_rate=stock_rate,
        float_rate=float_rate,
    )
    return fz.run(calls, deadline=deadline)


# =======================================================================================
# Parallel campaigns and ``indexalg fuzz --target plugin``

#: chunk seed = seed * SEED_STRIDE + chunk index (the same for any number of jobs)
SEED_STRIDE = 1_000_003


def _report_from_json(j: dict[str, Any]) -> PluginFuzzReport:
    rep = PluginFuzzReport(seed=int(j["seed"]), calls=int(j["calls"]), envs=int(j["envs"]))
    rep.seconds = float(j["seconds"])
    rep.cpu_seconds = float(j.get("cpu_seconds", 0.0))
    rep.torch_version = str(j.get("torch", ""))
    rep.memo_events = {k: int(v) for k, v in j["memo_events"].items()}
    for name, counts in j["per_entry"].items():
        c = rep.entry(name)
        for k, v in counts.items():
            setattr(c, k, int(v))
    rep.findings = [Finding(**f) for f in j["findings"]]
    rep.dropped = {k: int(v) for k, v in j.get("findings_not_kept", {}).items()}
    return rep


def _chunk_json(seed: int, calls: int, stock_rate: float, max_findings: int) -> dict[str, Any]:
    return run(calls, seed=seed, stock_rate=stock_rate, max_findings=max_findings).as_json()


def run_parallel(
    calls: int,
    seed: int = 0,
    *,
    jobs: int = 1,
    chunk: int = 2000,
    stock_rate: float = 1.0,
    max_findings: int = 20,
) -> PluginFuzzReport:
    """``calls`` calls in chunks of ``chunk`` (each its own seed, derived from ``seed``), on
    ``jobs`` worker processes (``spawn``: each a long-lived process, as a compiler is)."""
    chunks: list[tuple[int, int]] = []
    left, i = calls, 0
    while left > 0:
        n = min(chunk, left)
        chunks.append((seed * SEED_STRIDE + i, n))
        left -= n
        i += 1
    total = PluginFuzzReport(seed=seed, max_findings=max_findings)
    t0 = time.perf_counter()
    if jobs <= 1:
        parts = [_chunk_json(s, n, stock_rate, max_findings) for s, n in chunks]
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as ex:
            futs = [ex.submit(_chunk_json, s, n, stock_rate, max_findings) for s, n in chunks]
            parts = [f.result() for f in futs]
    for part in parts:
        total.merge(_report_from_json(part))
    total.seconds = time.perf_counter() - t0
    return total


def cli_main(args: Any) -> int:
    """``indexalg fuzz --target plugin``: ``--examples`` plug-in calls from ``--seed`` on
    ``--jobs`` processes; the report (or ``--json``) on stdout; exit 4 on a plug-in wrong
    answer.  Needs torch (not hypothesis)."""
    import json

    from indexalg.cli.common import EXIT_FAILED, EXIT_OK, CommandError

    try:
        import torch  # noqa: F401
    except ImportError:
        raise CommandError("indexalg fuzz --target plugin needs torch") from None
    if args.examples < 1 or args.jobs < 1:
        raise CommandError("--examples and --jobs must be at least 1")
    chunk = getattr(args, "chunk", None) or 2000
    rep = run_parallel(args.examples, args.seed, jobs=args.jobs, chunk=chunk)
    if getattr(args, "json", False):
        print(json.dumps(rep.as_json(), indent=1))
    else:
        print(rep.summary())
    return EXIT_FAILED if rep.plugin_wrong else EXIT_OK
