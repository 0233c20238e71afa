"""The canonical text form: Python-like infix for arithmetic, function form for the rest.

``parse(to_text(e)) is e`` for every expression.  The one subtlety: the parser reads
``a // d % m`` (positive literal d and m) as ``ModularIndexing(a, d, m)``, as Inductor prints it,
so a ``Mod`` of such a ``FloorDiv`` prints in function form, ``Mod(a // d, m)``.
"""

from __future__ import annotations

from collections.abc import Callable

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
)

__all__ = ["to_text", "TEXT_TABLE"]

# Precedence levels (higher binds tighter).
CMP, SUM, PROD, UNARY, ATOM = 1, 2, 3, 4, 5

Printed = tuple[str, int]
Handler = Callable[[Expr], Printed]


def _p(e: Expr) -> Printed:
    return TEXT_TABLE[type(e)](e)


def _wrap(e: Expr, min_prec: int) -> str:
    s, p = _p(e)
    return s if p >= min_prec else f"({s})"


def _call(name: str, e: Expr) -> Printed:
    return f"{name}({', '.join(_p(a)[0] for a in e.args)})", ATOM


def _integer(e: Expr) -> Printed:
    v: int = e.payload
    return str(v), (ATOM if v >= 0 else UNARY)


def _mul(e: Expr) -> Printed:
    c: int = e.payload
    body = "*".join(_wrap(f, ATOM) for f in e.args)
    if c == 1:
        return body, PROD
    if c == -1:
        return "-" + body, PROD
    return f"{c}*{body}", PROD


def _add(e: Expr) -> Printed:
    parts: list[str] = []
    for i, t in enumerate(e.args):
        if type(t) is Mul and t.payload < 0:
            neg = _neg_term(t)
            # -2*x reads as (-2)*x, the same node; anything else leading needs -(...)
            text = _mul(neg)[0] if type(neg) is Mul else _wrap(neg, UNARY if i == 0 else PROD)
            parts.append(("-" if i == 0 else " - ") + text)
        else:
            parts.append(("" if i == 0 else " + ") + _wrap(t, PROD))
    c: int = e.payload
    if c > 0:
        parts.append(f" + {c}")
    elif c < 0:
        parts.append(f" - {-c}")
    return "".join(parts), SUM


def _neg_term(t: Expr) -> Expr:
    from indexalg.expr import mul

    return mul(-1, t)


def _floordiv(e: Expr) -> Printed:
    a, b = e.args
    return f"{_wrap(a, PROD)} // {_wrap(b, UNARY)}", PROD


def _mod(e: Expr) -> Printed:
    a, b = e.args
    if (
        type(a) is FloorDiv
        and type(a.args[1]) is Integer
        and a.args[1].payload >= 1
        and type(b) is Integer
        and b.payload >= 1
    ):
        return _call("Mod", e)
    return f"{_wrap(a, PROD)} % {_wrap(b, UNARY)}", PROD


def _compare(op: str) -> Handler:
    def handler(e: Expr) -> Printed:
        a, b = e.args
        return f"{_wrap(a, SUM)} {op} {_wrap(b, SUM)}", CMP

    return handler


def _named(name: str) -> Handler:
    def handler(e: Expr) -> Printed:
        return _call(name, e)

    return handler


def _bool(e: Expr) -> Printed:
    return ("True" if e.payload else "False"), ATOM


def _name(e: Expr) -> Printed:
    return (e.payload if type(e) is Symbol else e.payload[0]), ATOM


TEXT_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _name,
    Wild: _name,
    Add: _add,
    Mul: _mul,
    FloorDiv: _floordiv,
    Mod: _mod,
    ModularIndexing: _named("ModularIndexing"),
    CeilDiv: _named("CeilDiv"),
    CleanDiv: _named("CleanDiv"),
    Min: _named("Min"),
    Max: _named("Max"),
    Where: _named("Where"),
    BoolConst: _bool,
    Lt: _compare("<"),
    Le: _compare("<="),
    Eq: _compare("=="),
    Ne: _compare("!="),
    And: _named("And"),
    Or: _named("Or"),
    Not: _named("Not"),
}


def to_text(e: Expr) -> str:
    """The canonical text of ``e``; :func:`indexalg.parse` reads it back to ``e`` itself."""
    return _p(e)[0]
