"""Mathematical notation for rules and expressions: display only, for the rule catalogue
(the canonical text, ``str(e)``, is the definition and is shown beside it).

``⌊a/b⌋`` FloorDiv, ``⌈a/b⌉`` CeilDiv, ``a ÷ b`` CleanDiv, ``a mod b`` Mod (Python's ``%``),
``⌊a/d⌋ mod m`` ModularIndexing, ``min``/``max``, ``(a if c else b)`` Where, ``≤ ≠ ∧ ∨ ¬`` for
claims, and ``a ∣ b`` for the ``a ≠ 0 ∧ b mod a = 0`` that
:func:`indexalg.rules.base.divides` builds.  One handler per node class, like the printers.
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
    integer,
    mul,
)

__all__ = ["MATH_TABLE", "math"]

CMP, SUM, MOD, PROD, UNARY, ATOM = 1, 2, 3, 4, 5, 6
Printed = tuple[str, int]


def _wrap(e: Expr, min_prec: int) -> str:
    s, p = _m(e)
    return s if p >= min_prec else f"({s})"


def _m(e: Expr) -> Printed:
    return MATH_TABLE[type(e)](e)


def _integer(e: Expr) -> Printed:
    v: int = e.payload
    return str(v), (ATOM if v >= 0 else UNARY)


def _name(e: Expr) -> Printed:
    return (e.payload if type(e) is Symbol else e.payload[0]), ATOM


def _mul(e: Expr) -> Printed:
    c: int = e.payload
    body = "·".join(_wrap(f, UNARY) for f in e.args)
    if c == 1:
        return body, PROD
    if c == -1:
        return "-" + body, UNARY
    return f"{c}·{body}", PROD


def _add(e: Expr) -> Printed:
    parts: list[str] = []
    for i, t in enumerate(e.args):
        if type(t) is Mul and t.payload < 0:
            parts.append(("-" if i == 0 else " - ") + _wrap(mul(-1, t), PROD))
        else:
            parts.append(("" if i == 0 else " + ") + _wrap(t, PROD))
    c: int = e.payload
    if c > 0:
        parts.append(f" + {c}")
    elif c < 0:
        parts.append(f" - {-c}")
    return "".join(parts), SUM


def _ratio(a: Expr, b: Expr) -> str:
    return f"{_wrap(a, PROD)}/{_wrap(b, ATOM)}"


def _floordiv(e: Expr) -> Printed:
    return f"⌊{_ratio(*e.args)}⌋", ATOM


def _ceildiv(e: Expr) -> Printed:
    return f"⌈{_ratio(*e.args)}⌉", ATOM


def _cleandiv(e: Expr) -> Printed:
    a, b = e.args
    return f"{_wrap(a, UNARY)} ÷ {_wrap(b, UNARY)}", PROD


def _mod(e: Expr) -> Printed:
    a, b = e.args
    return f"{_wrap(a, UNARY)} mod {_wrap(b, UNARY)}", MOD


def _modular_indexing(e: Expr) -> Printed:
    a, d, m = e.args
    return f"⌊{_ratio(a, d)}⌋ mod {_wrap(m, UNARY)}", MOD


def _call(name: str) -> Callable[[Expr], Printed]:
    def handler(e: Expr) -> Printed:
        return f"{name}({', '.join(_m(a)[0] for a in e.args)})", ATOM

    return handler


def _where(e: Expr) -> Printed:
    c, a, b = e.args
    return f"({_m(a)[0]} if {_m(c)[0]} else {_m(b)[0]})", ATOM


def _compare(op: str, flipped: str) -> Callable[[Expr], Printed]:
    def handler(e: Expr) -> Printed:
        a, b = e.args
        if type(a) is Integer and type(b) is not Integer:  # 0 < y reads better as y > 0
            a, b, o = b, a, flipped
        else:
            o = op
        return f"{_wrap(a, MOD)} {o} {_wrap(b, MOD)}", CMP

    return handler


def _divisibility(args: tuple[Expr, ...]) -> tuple[list[str], list[Expr]]:
    """``a ≠ 0 ∧ b mod a = 0`` pairs (what :func:`~indexalg.rules.base.divides` builds) as
    ``a ∣ b``; the other conjuncts are returned as they are."""
    zero = integer(0)
    nonzero = {
        next(x for x in c.args if x is not zero) for c in args if type(c) is Ne and zero in c.args
    }
    found: list[str] = []
    used: set[Expr] = set()
    for c in args:
        if type(c) is Eq and zero in c.args:
            other = next((x for x in c.args if x is not zero), None)
            if other is not None and type(other) is Mod and other.args[1] in nonzero:
                b, a = other.args
                found.append(f"{_wrap(a, UNARY)} ∣ {_wrap(b, UNARY)}")
                used.update((c, Ne.make(zero, a)))
    rest = [c for c in args if c not in used]
    return found, rest


def _and(e: Expr) -> Printed:
    found, rest = _divisibility(e.args)
    parts = [_wrap(c, CMP) for c in rest] + found
    return " ∧ ".join(parts), (CMP - 1 if len(parts) > 1 else CMP)


def _or(e: Expr) -> Printed:
    return " ∨ ".join(_wrap(a, CMP) for a in e.args), CMP - 1


def _not(e: Expr) -> Printed:
    return f"¬{_wrap(e.args[0], ATOM)}", UNARY


def _bool(e: Expr) -> Printed:
    return ("true" if e.payload else "false"), ATOM


MATH_TABLE: dict[type[Expr], Callable[[Expr], Printed]] = {
    Integer: _integer,
    Symbol: _name,
    Wild: _name,
    Add: _add,
    Mul: _mul,
    FloorDiv: _floordiv,
    CeilDiv: _ceildiv,
    CleanDiv: _cleandiv,
    Mod: _mod,
    ModularIndexing: _modular_indexing,
    Min: _call("min"),
    Max: _call("max"),
    Where: _where,
    BoolConst: _bool,
    Lt: _compare("<", ">"),
    Le: _compare("≤", "≥"),
    Eq: _compare("=", "="),
    Ne: _compare("≠", "≠"),
    And: _and,
    Or: _or,
    Not: _not,
}


def math(e: Expr) -> str:
    """``e`` in mathematical notation (display only: the canonical text is the definition)."""
    return _m(e)[0]
