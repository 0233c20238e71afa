"""Text -> Expr, without ``eval``.

Reads the canonical form that :func:`indexalg.printing.to_text` prints and the forms
Inductor prints: ``ModularIndexing(x, 1, 64)``, ``FloorDiv(a, b)``, ``x // 64 % 8`` (read as
``ModularIndexing(x, 64, 8)``), ``PythonMod(a, b)``, ``Min(a, b)``, ``Where(c, a, b)``,
``floor(x/8)``, ``x**2``.  Errors are :class:`~indexalg.errors.ParseError` carrying the
1-based column of the offending token.

Grammar (Python's precedence)::

    claim   := disj
    disj    := conj ('or' conj)*
    conj    := neg ('and' neg)*
    neg     := 'not' neg | cmp
    cmp     := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '//' | '%') unary)*
    unary   := ('-' | '+') unary | power
    power   := atom ('**' INT)?
    atom    := INT | NAME | NAME '(' claim (',' claim)* ')' | '(' claim ')' | True | False
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexalg.errors import IndexAlgError, ParseError
from indexalg.expr import (
    And,
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
    Ne,
    Not,
    Or,
    Where,
    add,
    false,
    integer,
    mul,
    symbols,
    true,
)

__all__ = ["parse"]

_TOKEN = re.compile(
    r"\s*(?:(?P<int>\d+)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\*\*|//|<=|>=|==|!=|[-+*/%<>(),]))"
)

_KEYWORDS = {"and", "or", "not", "True", "False"}


class _Token:
    __slots__ = ("kind", "text", "col")

    def __init__(self, kind: str, text: str, col: int) -> None:
        self.kind = kind
        self.text = text
        self.col = col


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            ch = text[pos]
            hint = ""
            if ch in "&|^~":
                hint = " (bitwise operators are not index operations)"
            elif ch == "=":
                hint = " (use == for an equality claim)"
            raise ParseError(f"unexpected character {ch!r}{hint}", text, pos + 1)
        kind = m.lastgroup or "op"
        start = m.start(kind)
        tok_text = m.group(kind)
        if kind == "name" and tok_text in _KEYWORDS:
            kind = "kw"
        tokens.append(_Token(kind, tok_text, start + 1))
        pos = m.end()
    tokens.append(_Token("end", "", n + 1))
    return tokens


class _Ratio:
    """``a / b`` inside ``floor(...)``/``ceiling(...)``: the only place true division may be."""

    __slots__ = ("num", "den", "col")

    def __init__(self, num: Expr, den: Expr, col: int) -> None:
        self.num = num
        self.den = den
        self.col = col


Value = "Expr | _Ratio"


def _mod_or_modular_indexing(a: Expr, m: Expr) -> Expr:
    """``a // d % m`` with positive literal d and m is Inductor's printed ModularIndexing."""
    if (
        type(a) is FloorDiv
        and type(a.args[1]) is Integer
        and a.args[1].payload >= 1
        and type(m) is Integer
        and m.payload >= 1
    ):
        return ModularIndexing.make(a.args[0], a.args[1], m)
    return Mod.make(a, m)


def _identity(a: Expr) -> Expr:
    return a


# name -> (arity or -1 for variadic >= 1, constructor)
_FUNCTIONS: dict[str, tuple[int, Callable[..., Expr]]] = {
    "FloorDiv": (2, FloorDiv.make),
    "Mod": (2, Mod.make),
    "PythonMod": (2, Mod.make),
    "ModularIndexing": (3, ModularIndexing.make),
    "CeilDiv": (2, CeilDiv.make),
    "CleanDiv": (2, CleanDiv.make),
    "Min": (-1, Min.make),
    "Max": (-1, Max.make),
    "min": (-1, Min.make),
    "max": (-1, Max.make),
    "Where": (3, Where.make),
    "Identity": (1, _identity),
    "Eq": (2, Eq.make),
    "Ne": (2, Ne.make),
    "Lt": (2, Lt.make),
    "Le": (2, Le.make),
    "Gt": (2, lambda a, b: Lt.make(b, a)),
    "Ge": (2, lambda a, b: Le.make(b, a)),
    "And": (-1, And.make),
    "Or": (-1, Or.make),
    "Not": (1, Not.make),
}

_COMPARE: dict[str, Callable[[Expr, Expr], Expr]] = {
    "<": Lt.make,
    "<=": Le.make,
    ">": lambda a, b: Lt.make(b, a),
    ">=": lambda a, b: Le.make(b, a),
    "==": Eq.make,
    "!=": Ne.make,
}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    # --- helpers -----------------------------------------------------------------------

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: _Token | None = None) -> ParseError:
        t = tok or self.tok
        return ParseError(message, self.text, t.col)

    def expect(self, text: str) -> _Token:
        t = self.tok
        if t.text != text or t.kind not in ("op", "kw"):
            found = "end of input" if t.kind == "end" else repr(t.text)
            raise self.error(f"expected {text!r}, found {found}")
        self.i += 1
        return t

    def build(self, tok: _Token, fn: Callable[..., Expr], *args: object) -> Expr:
        for a in args:
            if isinstance(a, _Ratio):
                raise ParseError(
                    "true division '/' is only read inside floor(a/b) or ceiling(a/b); "
                    "use // for floor division",
                    self.text,
                    a.col,
                )
        try:
            return fn(*args)
        except IndexAlgError as err:
            raise ParseError(str(err), self.text, tok.col) from None

    def integer_value(self, v: Expr | _Ratio) -> Expr:
        if isinstance(v, _Ratio):
            raise ParseError(
                "true division '/' is only read inside floor(a/b) or ceiling(a/b); "
                "use // for floor division",
                self.text,
                v.col,
            )
        return v

    # --- grammar -----------------------------------------------------------------------

    def parse(self) -> Expr:
        if self.tok.kind == "end":
            raise self.error("empty expression")
        e = self.integer_value(self.disj())
        if self.tok.kind != "end":
            raise self.error(f"unexpected {self.tok.text!r} after a complete expression")
        return e

    def disj(self) -> Expr | _Ratio:
        left = self.conj()
        while self.tok.kind == "kw" and self.tok.text == "or":
            t = self.tok
            self.i += 1
            left = self.build(t, Or.make, left, self.conj())
        return left

    def conj(self) -> Expr | _Ratio:
        left = self.neg()
        while self.tok.kind == "kw" and self.tok.text == "and":
            t = self.tok
            self.i += 1
            left = self.build(t, And.make, left, self.neg())
        return left

    def neg(self) -> Expr | _Ratio:
        if self.tok.kind == "kw" and self.tok.text == "not":
            t = self.tok
            self.i += 1
            return self.build(t, Not.make, self.neg())
        return self.cmp()

    def cmp(self) -> Expr | _Ratio:
        left = self.sum()
        t = self.tok
        if t.kind == "op" and t.text in _COMPARE:
            self.i += 1
            right = self.sum()
            nxt = self.tok
            if nxt.kind == "op" and nxt.text in _COMPARE:
                raise self.error("chained comparisons are not supported; use And(a < b, b < c)")
            return self.build(t, _COMPARE[t.text], left, right)
        return left

    def sum(self) -> Expr | _Ratio:
        left = self.product()
        while self.tok.kind == "op" and self.tok.text in ("+", "-"):
            t = self.tok
            self.i += 1
            right = self.product()
            if t.text == "+":
                left = self.build(t, add, left, right)
            else:
                left = self.build(t, lambda a, b: add(a, mul(-1, b)), left, right)
        return left

    def product(self) -> Expr | _Ratio:
        left: Expr | _Ratio = self.unary()
        while self.tok.kind == "op" and self.tok.text in ("*", "//", "%", "/"):
            t = self.tok
            self.i += 1
            right = self.unary()
            if t.text == "*":
                left = self.build(t, mul, left, right)
            elif t.text == "//":
                left = self.build(t, FloorDiv.make, left, right)
            elif t.text == "%":
                left = self.build(t, _mod_or_modular_indexing, left, right)
            else:
                num = self.integer_value(left)
                left = _Ratio(num, self.integer_value(right), t.col)
        return left

    def unary(self) -> Expr | _Ratio:
        t = self.tok
        if t.kind == "op" and t.text in ("-", "+"):
            self.i += 1
            operand = self.unary()
            if t.text == "+":
                return self.build(t, _identity, operand)
            return self.build(t, lambda a: mul(-1, a), operand)
        return self.power()

    def power(self) -> Expr | _Ratio:
        base = self.atom()
        t = self.tok
        if t.kind == "op" and t.text == "**":
            self.i += 1
            exp_tok = self.tok
            if exp_tok.kind != "int":
                raise self.error("the exponent of ** must be a non-negative integer literal")
            self.i += 1
            n = int(exp_tok.text)
            if n > 64:
                raise self.error("exponent too large (at most 64)", exp_tok)
            b = self.integer_value(base)
            return self.build(t, lambda x: mul(*([x] * n)) if n else integer(1), b)
        return base

    def atom(self) -> Expr | _Ratio:
        t = self.tok
        if t.kind == "int":
            self.i += 1
            return integer(int(t.text))
        if t.kind == "kw" and t.text in ("True", "False"):
            self.i += 1
            return true if t.text == "True" else false
        if t.kind == "op" and t.text == "(":
            self.i += 1
            inner = self.disj()
            self.expect(")")
            return inner
        if t.kind == "name":
            self.i += 1
            if self.tok.kind == "op" and self.tok.text == "(":
                return self.call(t)
            return symbols(t.text)[0]
        if t.kind == "end":
            raise self.error("unexpected end of input")
        raise self.error(f"unexpected {t.text!r}")

    def call(self, name: _Token) -> Expr:
        open_tok = self.expect("(")
        args: list[Expr | _Ratio] = []
        if not (self.tok.kind == "op" and self.tok.text == ")"):
            args.append(self.disj())
            while self.tok.kind == "op" and self.tok.text == ",":
                self.i += 1
                args.append(self.disj())
        if self.tok.kind == "end":
            raise self.error(f"unclosed '(' opened at column {open_tok.col}")
        self.expect(")")
        fname = name.text
        if fname in ("floor", "ceiling", "ceil"):
            if len(args) != 1:
                raise self.error(f"{fname} takes 1 argument, got {len(args)}", name)
            a = args[0]
            if isinstance(a, _Ratio):
                fn = FloorDiv.make if fname == "floor" else CeilDiv.make
                return self.build(name, fn, a.num, a.den)
            return a  # floor of an integer is itself
        spec = _FUNCTIONS.get(fname)
        if spec is None:
            raise self.error(f"unknown function {fname!r}", name)
        arity, fn = spec
        if arity >= 0 and len(args) != arity:
            plural = "s" if arity != 1 else ""
            raise self.error(f"{fname} takes {arity} argument{plural}, got {len(args)}", name)
        if arity < 0 and not args:
            raise self.error(f"{fname} takes at least 1 argument", name)
        return self.build(name, fn, *args)


def parse(text: str) -> Expr:
    """Read an expression or claim from text (canonical or Inductor form); never evaluates.

    >>> import indexalg as ia
    >>> ia.parse("x // 64 % 8")
    ia.parse('ModularIndexing(x, 64, 8)')
    """
    if not isinstance(text, str):
        from indexalg.errors import ExprTypeError

        raise ExprTypeError(f"parse() takes a string, got {type(text).__name__}")
    return _Parser(text).parse()
