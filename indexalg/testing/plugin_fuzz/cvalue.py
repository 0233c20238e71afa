"""Evaluation of printed code: Inductor's C++ printer (``cexpr``) and Triton printer
(``texpr``) output, parsed and evaluated in C semantics (``/`` and ``%`` truncating on
integers, ``c10::div_floor_integer`` flooring, Triton's ``//`` and ``%`` on integers
truncating)."""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Callable, Iterator
from typing import Any

from ._torch import _T
from .value import _REL, Fn, Undefined, _fmod


class Unprintable(Exception):
    """A printer's output this module cannot evaluate."""


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
            raise Unprintable(f"cannot read C++ at {text[pos : pos + 20]!r}")
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
