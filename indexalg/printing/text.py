"""The canonical text form: Python-like infix for arithmetic, function form for the rest.

``parse(to_text(e)) is e`` for every expression.  The one subtlety: the parser reads
``a // d % m`` (positive literal d and m) as ``ModularIndexing(a, d, m)``, as Inductor prints it,
so a ``Mod`` of such a ``FloorDiv`` prints in function form, ``Mod(a // d, m)``.
"""

from __future__ import annotations

from collections.abc import Callable

from indexalg._bigint import int_to_str
from indexalg.expr import (
    OP_RECORDS,
    Add,
    BoolConst,
    Expr,
    FloorDiv,
    Integer,
    Mod,
    Mul,
    Symbol,
    Wild,
    mul,
    set_text_printer,
)
from indexalg.ops import Spelling
from indexalg.printing.common import postorder

__all__ = ["to_text", "TEXT_TABLE"]

# Precedence levels (higher binds tighter).
CMP, SUM, PROD, UNARY, ATOM = 1, 2, 3, 4, 5

Printed = tuple[str, int]
Handler = Callable[[Expr, "_Printer"], Printed]

# Deeper expressions print bottom-up, every _STEP levels, so no print recurses deeply.
_PREFILL_DEPTH = 24
_STEP = 8


class _Printer:
    """One printing run: memoised per node (shared subtrees print once)."""

    def __init__(self) -> None:
        self.memo: dict[Expr, Printed] = {}

    def print(self, e: Expr) -> Printed:
        hit = self.memo.get(e)
        if hit is None:
            hit = TEXT_TABLE[type(e)](e, self)
            self.memo[e] = hit
        return hit

    def wrap(self, e: Expr, min_prec: int) -> str:
        s, p = self.print(e)
        return s if p >= min_prec else f"({s})"

    def call(self, name: str, e: Expr) -> Printed:
        return f"{name}({', '.join([self.print(a)[0] for a in e.args])})", ATOM


def _integer(e: Expr, p: _Printer) -> Printed:
    v: int = e.payload
    return int_to_str(v), (ATOM if v >= 0 else UNARY)


def _mul(e: Expr, p: _Printer) -> Printed:
    c: int = e.payload
    body = "*".join(p.wrap(f, ATOM) for f in e.args)
    if c == 1:
        return body, PROD
    if c == -1:
        return "-" + body, PROD
    return f"{int_to_str(c)}*{body}", PROD


def _add(e: Expr, p: _Printer) -> Printed:
    parts: list[str] = []
    for i, t in enumerate(e.args):
        if type(t) is Mul and t.payload < 0:
            neg = _neg_term(t)
            # -2*x reads as (-2)*x, the same node; anything else leading needs -(...)
            text = _mul(neg, p)[0] if type(neg) is Mul else p.wrap(neg, UNARY if i == 0 else PROD)
            parts.append(("-" if i == 0 else " - ") + text)
        else:
            parts.append(("" if i == 0 else " + ") + p.wrap(t, PROD))
    c: int = e.payload
    if c > 0:
        parts.append(f" + {int_to_str(c)}")
    elif c < 0:
        parts.append(f" - {int_to_str(-c)}")
    return "".join(parts), SUM


def _neg_term(t: Expr) -> Expr:
    return mul(-1, t)


def _infix(op: str) -> Handler:
    def handler(e: Expr, p: _Printer) -> Printed:
        a, b = e.args
        return f"{p.wrap(a, PROD)} {op} {p.wrap(b, UNARY)}", PROD

    return handler


def _mod(e: Expr, p: _Printer) -> Printed:
    a, b = e.args
    if (
        type(a) is FloorDiv
        and type(a.args[1]) is Integer
        and a.args[1].payload >= 1
        and type(b) is Integer
        and b.payload >= 1
    ):
        return p.call("Mod", e)
    return f"{p.wrap(a, PROD)} % {p.wrap(b, UNARY)}", PROD


def _compare(op: str) -> Handler:
    def handler(e: Expr, p: _Printer) -> Printed:
        a, b = e.args
        return f"{p.wrap(a, SUM)} {op} {p.wrap(b, SUM)}", CMP

    return handler


def _named(name: str) -> Handler:
    def handler(e: Expr, p: _Printer) -> Printed:
        return p.call(name, e)

    return handler


def _bool(e: Expr, p: _Printer) -> Printed:
    return ("True" if e.payload else "False"), ATOM


def _name(e: Expr, p: _Printer) -> Printed:
    return (e.payload if type(e) is Symbol else e.payload[0]), ATOM


#: The spellings of :class:`~indexalg.ops.Spelling` this printer writes.
_FORMS: dict[str, Callable[[str], Handler]] = {
    "call": _named,
    "infix": _infix,
    "compare": _compare,
}

#: The ops this printer writes its own way (their records' ``text`` is None).
_OWN: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _name,
    Wild: _name,
    Add: _add,
    Mul: _mul,
    Mod: _mod,
    BoolConst: _bool,
}


def _spelled(s: Spelling) -> Handler:
    return _FORMS[s.form](s.word)


#: Every op: its record's spelling, or this printer's own handler.
TEXT_TABLE: dict[type[Expr], Handler] = {
    **{cls: _spelled(op.text) for cls, op in OP_RECORDS if op.text is not None},
    **_OWN,
}


def to_text(e: Expr) -> str:
    """The canonical text of ``e``; :func:`indexalg.parse` reads it back to ``e`` itself."""
    p = _Printer()
    if e.depth > _PREFILL_DEPTH:
        for node in postorder(e):
            if node.depth % _STEP == 0:
                p.print(node)
    return p.print(e)[0]


set_text_printer(to_text)
