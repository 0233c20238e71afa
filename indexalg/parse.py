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

from indexalg._bigint import int_from_digits
from indexalg.errors import ExprTypeError, IndexAlgError, ParseError
from indexalg.expr import (
    OP_RECORDS,
    And,
    CeilDiv,
    Eq,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Mod,
    ModularIndexing,
    Ne,
    Not,
    Or,
    add,
    false,
    integer,
    mul,
    symbols,
    true,
)
from indexalg.memo import Memo

__all__ = ["parse", "clear_parsed"]

# ASCII only: ``\d`` would also read other scripts' digits ("١" as 1) as numbers.
_TOKEN = re.compile(
    r"\s*(?:(?P<int>[0-9]+)|(?P<name>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<op>\*\*|//|<=|>=|==|!=|[-+*/%<>(),]))"
)

_KEYWORDS = {"and", "or", "not", "True", "False"}

#: Why a digit of another script (``"١"``, ``"²"``) is refused: numbers are ASCII only.
NOT_ASCII_DIGIT = "numbers are written with the ASCII digits 0-9"


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
            elif ch.isdigit():
                hint = f" ({NOT_ASCII_DIGIT})"
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


# name -> (arity or -1 for variadic >= 1, constructor): every name an op's record gives
# (indexalg.ops), and the names that build no op of their own.
_FUNCTIONS: dict[str, tuple[int, Callable[..., Expr]]] = {
    **{name: (op.arity, cls.make) for cls, op in OP_RECORDS for name in op.parse},
    "Identity": (1, _identity),
    "Gt": (2, lambda a, b: Lt.make(b, a)),
    "Ge": (2, lambda a, b: Le.make(b, a)),
}

_COMPARE: dict[str, Callable[[Expr, Expr], Expr]] = {
    "<": Lt.make,
    "<=": Le.make,
    ">": lambda a, b: Lt.make(b, a),
    ">=": lambda a, b: Le.make(b, a),
    "==": Eq.make,
    "!=": Ne.make,
}


# Binding strengths (higher binds tighter), Python's.
_OR, _AND, _NOT, _CMP, _SUM, _PROD, _UNARY = 1, 2, 3, 4, 5, 6, 7

_BINARY_PREC: dict[str, int] = {
    "or": _OR,
    "and": _AND,
    "+": _SUM,
    "-": _SUM,
    "*": _PROD,
    "//": _PROD,
    "%": _PROD,
    "/": _PROD,
    **{op: _CMP for op in _COMPARE},
}

_RATIO_MESSAGE = (
    "true division '/' is only read inside floor(a/b) or ceiling(a/b); use // for floor division"
)


class _Chain:
    """A run of one associative operator (``a + b - c``, ``a * b``, ``a and b``) read so
    far: its operands are collected and the canonical node is built once, when the run ends,
    so reading n terms costs O(n log n), not O(n^2)."""

    __slots__ = ("op", "items")

    def __init__(self, op: str, first: Expr) -> None:
        self.op = op  # "+" (also for "-"), "*", "and", "or"
        self.items: list[Expr] = [first]


Operand = "Expr | _Ratio | _Chain"


class _Frame:
    """An open parenthesis or call: where its operators and operands start on the stacks."""

    __slots__ = ("open_tok", "name", "args", "ops_base", "vals_base")

    def __init__(self, open_tok: _Token, name: _Token | None, ops_base: int, vals_base: int):
        self.open_tok = open_tok
        self.name = name  # the function's name token; None for a parenthesis
        self.args: list[Expr | _Ratio] = []
        self.ops_base = ops_base
        self.vals_base = vals_base


class _NodeBuilder:
    """Building nodes from parsed operands, with errors that carry the column: the part of
    the parser that knows the IR (functions, chains, ratios) but not the grammar."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = _tokenize(text)
        self.i = 0

    @property
    def tok(self) -> _Token:
        return self.tokens[self.i]

    def error(self, message: str, tok: _Token | None = None) -> ParseError:
        t = tok or self.tok
        return ParseError(message, self.text, t.col)

    def build(self, tok: _Token, fn: Callable[..., Expr], *args: Expr | _Ratio) -> Expr:
        for a in args:
            if isinstance(a, _Ratio):
                raise ParseError(_RATIO_MESSAGE, self.text, a.col)
        try:
            return fn(*args)
        except IndexAlgError as err:
            raise ParseError(str(err), self.text, tok.col) from None

    def integer_value(self, v: Expr | _Ratio) -> Expr:
        if isinstance(v, _Ratio):
            raise ParseError(_RATIO_MESSAGE, self.text, v.col)
        return v

    def finish(self, v: Expr | _Ratio | _Chain) -> Expr | _Ratio:
        """A finished operand: a chain becomes its canonical node."""
        if not isinstance(v, _Chain):
            return v
        # Every item was checked when it joined the chain, so building cannot fail.
        if v.op == "+":
            return add(*v.items)
        if v.op == "*":
            return mul(*v.items)
        if v.op == "and":
            return And.make(*v.items)
        return Or.make(*v.items)

    def chain_item(self, tok: _Token, op: str, v: Expr | _Ratio) -> Expr:
        """``v`` checked as an operand of the chain operator ``op`` (errors at ``tok``)."""
        if isinstance(v, _Ratio):
            raise ParseError(_RATIO_MESSAGE, self.text, v.col)
        if op in ("+", "*"):
            if v.is_bool:
                self.build(tok, add if op == "+" else mul, v)  # raises the operand error
            return v
        if not v.is_bool:
            self.build(tok, And.make if op == "and" else Or.make, v)
        return v

    def call(self, name: _Token, args: list[Expr | _Ratio]) -> Expr:
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


class _Parser(_NodeBuilder):
    """Operator precedence parsing with explicit stacks (no recursion), so nesting depth is
    limited only by the expressions' :data:`~indexalg.expr.MAX_DEPTH`, reported with the
    column where the too-deep node was built."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        # operator stack entries: (token, precedence, is_prefix)
        self.ops: list[tuple[_Token, int, bool]] = []
        self.vals: list[Expr | _Ratio | _Chain] = []
        self.frames: list[_Frame] = []

    # --- reduction ---------------------------------------------------------------------

    def reduce(self) -> None:
        """Apply the operator on top of the stack to its operands."""
        tok, _, prefix = self.ops.pop()
        op = tok.text
        if prefix:
            v = self.finish(self.vals.pop())
            if op == "not":
                self.vals.append(self.build(tok, Not.make, v))
            elif op == "-":
                self.vals.append(self.build(tok, _negate, v))
            else:
                self.vals.append(self.build(tok, _identity, v))
            return
        right = self.finish(self.vals.pop())
        left = self.vals.pop()
        if op in ("+", "-", "*", "and", "or"):
            kind = "+" if op == "-" else op
            if op == "-":
                right = self.build(tok, _negate, right)
            item = self.chain_item(tok, kind, right)
            if isinstance(left, _Chain) and left.op == kind:
                left.items.append(item)
                self.vals.append(left)
                return
            chain = _Chain(kind, self.chain_item(tok, kind, self.finish(left)))
            chain.items.append(item)
            self.vals.append(chain)
            return
        lhs = self.finish(left)
        if op == "//":
            self.vals.append(self.build(tok, FloorDiv.make, lhs, right))
        elif op == "%":
            self.vals.append(self.build(tok, _mod_or_modular_indexing, lhs, right))
        elif op == "/":
            num = self.integer_value(lhs)
            self.vals.append(_Ratio(num, self.integer_value(right), tok.col))
        else:
            self.vals.append(self.build(tok, _COMPARE[op], lhs, right))

    def reduce_frame(self) -> Expr | _Ratio:
        """Reduce every operator of the innermost open frame (or of the whole input)."""
        base = self.frames[-1].ops_base if self.frames else 0
        while len(self.ops) > base:
            self.reduce()
        return self.finish(self.vals.pop())

    # --- the loop ----------------------------------------------------------------------

    def parse(self) -> Expr:
        if self.tok.kind == "end":
            raise self.error("empty expression")
        while True:
            self.operand()
            if self.operator():
                break
        if len(self.vals) != 1:  # pragma: no cover - the loop leaves exactly one value
            raise self.error("internal parser error")
        return self.integer_value(self.finish(self.vals[0]))

    def operand(self) -> None:
        """Read prefix operators and one atom (opening frames as needed) into the stacks."""
        while True:
            t = self.tok
            if t.kind == "op" and t.text in ("-", "+"):
                self.i += 1
                self.ops.append((t, _UNARY, True))
                continue
            if t.kind == "kw" and t.text == "not":
                if self.ops and self.ops[-1][1] > _NOT and self.ops_in_frame():
                    raise self.error("unexpected 'not'")
                self.i += 1
                self.ops.append((t, _NOT, True))
                continue
            if t.kind == "int":
                self.i += 1
                self.vals.append(integer(int_from_digits(t.text)))
            elif t.kind == "kw" and t.text in ("True", "False"):
                self.i += 1
                self.vals.append(true if t.text == "True" else false)
            elif (
                t.kind == "name"
                and self.tokens[self.i + 1].text == "("
                and (self.tokens[self.i + 1].kind == "op")
            ):
                self.i += 2
                self.open_frame(self.tokens[self.i - 1], t)
                if self.tok.kind == "op" and self.tok.text == ")":
                    self.close_frame()  # an empty argument list
                    self.power()
                    return
                continue
            elif t.kind == "name":
                self.i += 1
                self.vals.append(symbols(t.text)[0])
            elif t.kind == "op" and t.text == "(":
                self.i += 1
                self.open_frame(t, None)
                continue
            elif t.kind == "end":
                raise self.error("unexpected end of input")
            else:
                raise self.error(f"unexpected {t.text!r}")
            self.power()
            return

    def ops_in_frame(self) -> bool:
        base = self.frames[-1].ops_base if self.frames else 0
        return len(self.ops) > base

    def open_frame(self, open_tok: _Token, name: _Token | None) -> None:
        self.frames.append(_Frame(open_tok, name, len(self.ops), len(self.vals)))

    def power(self) -> None:
        """``atom ** INT`` right after an atom (``**`` binds tighter than unary minus)."""
        t = self.tok
        if not (t.kind == "op" and t.text == "**"):
            return
        self.i += 1
        exp_tok = self.tok
        if exp_tok.kind != "int":
            raise self.error("the exponent of ** must be a non-negative integer literal")
        self.i += 1
        if len(exp_tok.text.lstrip("0")) > 2 or int(exp_tok.text) > 64:
            raise self.error("exponent too large (at most 64)", exp_tok)
        n = int(exp_tok.text)
        b = self.integer_value(self.vals.pop())  # type: ignore[arg-type]
        self.vals.append(self.build(t, lambda x: mul(*([x] * n)) if n else integer(1), b))

    def operator(self) -> bool:
        """Read what follows an operand: a binary operator (True: go on reading operands
        is False), a closing parenthesis or comma, or the end (returns True)."""
        while True:
            t = self.tok
            if t.kind in ("op", "kw") and t.text in _BINARY_PREC:
                prec = _BINARY_PREC[t.text]
                base = self.frames[-1].ops_base if self.frames else 0
                while len(self.ops) > base and self.ops[-1][1] >= prec:
                    top = self.ops[-1][0]
                    if prec == _CMP and self.ops[-1][1] == _CMP and not self.ops[-1][2]:
                        raise self.error(
                            "chained comparisons are not supported; use And(a < b, b < c)"
                        )
                    del top
                    self.reduce()
                self.i += 1
                self.ops.append((t, prec, False))
                return False
            if t.kind == "op" and t.text == ")" and self.frames:
                self.vals.append(self.reduce_frame())
                self.i += 1
                self.close_frame()
                self.power()
                continue
            if t.kind == "op" and t.text == "," and self.frames and self.frames[-1].name:
                self.frames[-1].args.append(self.reduce_frame())
                self.i += 1
                return False
            if self.frames:
                frame = self.frames[-1]
                if t.kind == "end" and frame.name is not None:
                    raise self.error(f"unclosed '(' opened at column {frame.open_tok.col}")
                found = "end of input" if t.kind == "end" else repr(t.text)
                raise self.error(f"expected ')', found {found}")
            if t.kind == "end":
                self.vals.append(self.reduce_frame())
                return True
            raise self.error(f"unexpected {t.text!r} after a complete expression")

    def close_frame(self) -> None:
        """Pop the innermost frame; its value (a group's, or the call's) is pushed."""
        frame = self.frames.pop()
        if frame.name is None:
            return  # a parenthesised group: its value is already on the stack
        if (
            self.tok.kind == "op"
            and self.tok.text == ")"
            and not frame.args
            and (len(self.vals) == frame.vals_base)
        ):
            self.i += 1  # the ')' of an empty argument list
        else:
            frame.args.append(self.vals.pop())  # type: ignore[arg-type]
        self.vals.append(self.call(frame.name, frame.args))


def _negate(a: Expr) -> Expr:
    return mul(-1, a)


def parse(text: str) -> Expr:
    """Read an expression or claim from text (canonical or Inductor form); never evaluates.

    >>> import indexalg as ia
    >>> ia.parse("x // 64 % 8")
    ia.parse('ModularIndexing(x, 64, 8)')
    """
    hit = _PARSED.get(text) if type(text) is str else None
    if hit is not None:
        return hit
    if not isinstance(text, str):
        raise ExprTypeError(f"parse() takes a string, got {type(text).__name__}")
    out = _Parser(text).parse()
    if type(text) is str:
        _PARSED.put(text, out)
    return out


#: text -> its expression (nodes are immutable and interned, so the memo is exact)
_PARSED: Memo[str, Expr] = Memo("parse.texts", 4096)


def clear_parsed() -> None:
    """Forget the memo of parsed texts (``ia.clear_caches()`` does it with every memo)."""
    _PARSED.clear()
