"""What the code printers (Python, C, Triton) share: operator precedence, the recursive
printing context, the sign facts that decide where a truncating target may use its native
division, and the arithmetic printers that read the same in all three languages.

Every code printer is a table keyed by node class whose handlers take ``(node, printer)`` and
return ``(text, precedence)``; the :class:`CodePrinter` recurses through the table, memoises
per node (shared subtrees print once) and puts parentheses where precedence requires them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping

from indexalg._bigint import int_summary
from indexalg.errors import InvalidOperationError
from indexalg.expr import (
    Add,
    CeilDiv,
    CleanDiv,
    Expr,
    FloorDiv,
    Integer,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Mul,
    Where,
    add,
    mul,
    postorder,
)
from indexalg.poly import term_factors

__all__ = [
    "AND",
    "ATOM",
    "BAND",
    "BOR",
    "CMP",
    "NOT",
    "OR",
    "PROD",
    "SUM",
    "UNARY",
    "CodePrinter",
    "Handler",
    "NonNeg",
    "Printed",
    "syntactic_nonneg",
    "computed_values",
    "postorder",
    "HELPER_VALUES",
]

#: A predicate saying an expression is known to be non-negative (callers pass facts they
#: proved, e.g. from interval analysis over the symbols' ranges).  It must be sound: a wrong
#: ``True`` makes truncating targets print native division where floor division is needed.
NonNeg = Callable[[Expr], bool]

# Precedence levels, higher binds tighter.  One scale for the three languages: Python's
# (``or`` < ``and`` < ``not`` < comparisons < ``|`` < ``&`` < ``+ -`` < ``* // %`` < unary);
# C's ``||``, ``&&``, comparisons, ``+ -``, ``* / %`` and unary fall on the same levels.
OR, AND, NOT, CMP, BOR, BAND, SUM, PROD, UNARY, ATOM = range(1, 11)

Printed = tuple[str, int]
Handler = Callable[[Expr, "CodePrinter"], Printed]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


class CodePrinter:
    """One printing run: a backend table, the non-negativity facts, and a per-node memo."""

    def __init__(
        self, table: Mapping[type[Expr], Handler], nonneg: NonNeg | None, target: str
    ) -> None:
        self.table = table
        self.target = target
        self._user = nonneg
        self._memo: dict[Expr, Printed] = {}
        self._sign_memo: dict[Expr, bool] = {}
        #: When a dict, every integer value the printed code computes is noted in it (see
        #: :func:`computed_values`): the printed nodes, partial sums and products, and the
        #: values computed inside the helpers.
        self.record: dict[Expr, None] | None = None

    def note(self, *values: Expr) -> None:
        """Note integer values the printed code computes (when recording)."""
        if self.record is not None:
            for v in values:
                if not v.is_bool:
                    self.record[v] = None

    # --- text ------------------------------------------------------------------------

    def print(self, e: Expr) -> Printed:
        """``(text, precedence)`` of ``e``."""
        hit = self._memo.get(e)
        if hit is not None:
            return hit
        handler = self.table.get(type(e))
        if handler is None:
            raise InvalidOperationError(
                f"the {self.target} printer has no rule for {type(e).__name__}: {e}"
            )
        out = handler(e, self)
        self._memo[e] = out
        self.note(e)
        return out

    def wrap(self, e: Expr, min_prec: int) -> str:
        """The text of ``e``, parenthesised unless it binds at least as tightly as min_prec."""
        text, prec = self.print(e)
        return text if prec >= min_prec else f"({text})"

    def text(self, e: Expr) -> str:
        if e.depth > _PREFILL_DEPTH and e not in self._memo:
            self._prefill(e)
        return self.print(e)[0]

    def _prefill(self, e: Expr) -> None:
        """Print (and sign) the subterms of a deep expression bottom-up, so that printing
        ``e`` recurses only into memoised children: the stack stays shallow at any depth.
        Best effort: a subterm that fails is printed again (and fails) if the real print
        reaches it."""
        for node in postorder(e):
            if node.depth % _PREFILL_STEP:
                continue
            with contextlib.suppress(InvalidOperationError):
                if not node.is_bool:
                    self.nonneg(node)
                self.print(node)

    def call(self, name: str, *args: Expr) -> Printed:
        helper = HELPER_VALUES.get(name)
        if helper is not None and self.record is not None:
            self.note(*helper(*args))
        return f"{name}({', '.join(self.text(a) for a in args)})", ATOM

    # --- sign facts --------------------------------------------------------------------

    def nonneg(self, e: Expr) -> bool:
        """``e >= 0`` is known: the caller's predicate, or the syntactic rules applied over
        subterms for which the caller's predicate (or the rules again) says so."""
        hit = self._sign_memo.get(e)
        if hit is not None:
            return hit
        self._sign_memo[e] = False  # guard against cycles through positive()'s ``e - 1``
        out = (self._user is not None and bool(self._user(e))) or _structural_nonneg(e, self.nonneg)
        self._sign_memo[e] = out
        return out

    def positive(self, e: Expr) -> bool:
        """``e >= 1`` is known: a positive literal, or ``e - 1`` known non-negative."""
        if type(e) is Integer:
            return bool(e.payload >= 1)
        return self.nonneg(add(e, -1))

    def native_division_ok(self, a: Expr, b: Expr) -> bool:
        """Truncating ``a / b`` and ``a % b`` equal the floor ones: a >= 0 and b >= 1."""
        return self.nonneg(a) and self.positive(b)


#: Deeper expressions are printed bottom-up (:meth:`CodePrinter._prefill`), every
#: ``_PREFILL_STEP`` levels, so no print recurses more than that many levels.
_PREFILL_DEPTH = 24
_PREFILL_STEP = 8


def _helper_floordiv(a: Expr, b: Expr) -> list[Expr]:
    # q = a / b (truncated: between the floor and the ceiling), then q - 1.
    if type(b) is Integer and b.payload == 0:
        return []
    q = FloorDiv.make(a, b)
    return [q, CeilDiv.make(a, b), add(q, -1)]


def _helper_mod(a: Expr, b: Expr) -> list[Expr]:
    # q and r = a % b truncated (|r| < |b|), then r + b, computed in every lane by
    # tl.where: |r + b| < |2*b|.
    if type(b) is Integer and b.payload == 0:
        return []
    return [FloorDiv.make(a, b), CeilDiv.make(a, b), mul(2, b)]


def _helper_ceildiv(a: Expr, b: Expr) -> list[Expr]:
    # q = a / b truncated, then q + 1 (at most the ceiling plus one).
    if type(b) is Integer and b.payload == 0:
        return []
    c = CeilDiv.make(a, b)
    return [FloorDiv.make(a, b), c, add(c, 1)]


#: The values each floor-semantics helper of the C and Triton preambles computes besides
#: its arguments and result, as expressions whose ranges bound them (for
#: :func:`computed_values`).
HELPER_VALUES: dict[str, Callable[..., list[Expr]]] = {
    "ia_floordiv": _helper_floordiv,
    "ia_mod": _helper_mod,
    "ia_ceildiv": _helper_ceildiv,
}


def _always(e: Expr) -> bool:
    return True


def computed_values(e: Expr, table: Mapping[type[Expr], Handler], target: str) -> list[Expr]:
    """Every integer value the code that ``table``'s printer emits for ``e`` computes,
    as expressions, in a deterministic order: the printed subterms (including rewritten
    ones, such as ``a + (c - 1)`` for a native ceiling division), the partial sums and
    products in printed order, and the values inside the floor-semantics helpers.

    Which lowering a printer picks depends on its non-negativity facts, which the caller
    of the printer supplies; the values of both extremes (no facts beyond the syntactic
    ones, and every native lowering) are returned, which covers every choice in between:
    each node's choice changes only the values of that node's own lowering.
    """
    out: dict[Expr, None] = {}
    for nonneg in (None, _always):
        p = CodePrinter(table, nonneg, target)
        p.record = out
        # unprintable (a literal beyond int64, a reserved name): no code at all
        with contextlib.suppress(InvalidOperationError):
            p.text(e)
    return list(out)


def _structural_nonneg(e: Expr, nonneg: NonNeg) -> bool:
    """Sound, context-free sign rules; ``nonneg`` decides the subterms."""
    t = type(e)
    if t is Integer:
        return bool(e.payload >= 0)
    if t is ModularIndexing:
        return True  # in [0, m) wherever it is defined (d >= 1, m >= 1)
    if t is Mod:
        # Python % takes the sign of the divisor: a positive literal divisor gives [0, b).
        b = e.args[1]
        return type(b) is Integer and b.payload > 0
    if t is Add:
        return bool(e.payload >= 0) and all(nonneg(a) for a in e.args)
    if t is Mul:
        if e.payload < 0:
            return False
        # A factor repeated an even number of times is a square: non-negative whatever its
        # sign.  Factors are sorted, so repeats are adjacent.
        counts: dict[Expr, int] = {}
        for f in e.args:
            counts[f] = counts.get(f, 0) + 1
        return all(n % 2 == 0 or nonneg(f) for f, n in counts.items())
    if t is FloorDiv or t is CleanDiv or t is CeilDiv:
        a, b = e.args
        return type(b) is Integer and b.payload > 0 and nonneg(a)
    if t is Min:
        return all(nonneg(a) for a in e.args)
    if t is Max:
        return any(nonneg(a) for a in e.args)
    if t is Where:
        return nonneg(e.args[1]) and nonneg(e.args[2])
    return False  # symbols, and anything whose sign depends on context


def syntactic_nonneg(e: Expr) -> bool:
    """The default non-negativity predicate: context-free and sound.

    True for non-negative integer literals, ``ModularIndexing`` (its value lies in [0, m)),
    ``Mod`` by a positive literal, sums of such terms with a non-negative constant, products
    with a positive coefficient whose factors are such terms or appear an even number of
    times, floor/ceiling divisions of such a term by a positive literal, ``Min`` of such
    terms, ``Max`` with one such term, and ``Where`` whose two branches are such terms.
    Symbols are not known non-negative: their ranges are context, which callers supply
    through the printers' ``nonneg`` argument.
    """
    memo: dict[Expr, bool] = {}

    def go(x: Expr) -> bool:
        hit = memo.get(x)
        if hit is None:
            hit = _structural_nonneg(x, go)
            memo[x] = hit
        return hit

    return go(e)


# ---------------------------------------------------------------------------------------
# Arithmetic that prints alike in Python, C and Triton


def int64_literal(v: int, target: str) -> None:
    """Refuse a literal that a 64-bit target cannot hold."""
    if not INT64_MIN <= v <= INT64_MAX:
        raise InvalidOperationError(
            f"the literal {int_summary(v)} does not fit the {target} printer's int64"
        )


def print_product(coeff: int, factors: tuple[Expr, ...], p: CodePrinter, lit: str) -> Printed:
    """``coeff*f1*f2``; ``lit`` is the coefficient's text.  A factor binding less tightly
    than unary is parenthesised (so ``2*(x // 3)``, never ``2*x // 3``)."""
    if coeff == 1 and len(factors) == 1:
        return p.print(factors[0])
    if p.record is not None:
        # the running products c*f1, c*f1*f2, ... (printed left to right)
        acc = factors[0] if coeff == 1 else mul(coeff, factors[0])
        p.note(acc)
        for f in factors[1:]:
            acc = mul(acc, f)
            p.note(acc)
    body = "*".join(p.wrap(f, UNARY) for f in factors)
    if coeff == 1:
        return body, PROD
    if coeff == -1:
        return "-" + body, PROD if len(factors) > 1 else UNARY
    return f"{lit}*{body}", PROD


def print_mul(e: Expr, p: CodePrinter, literal: Callable[[int], str]) -> Printed:
    return print_product(e.payload, e.args, p, literal(e.payload))


def print_add(e: Expr, p: CodePrinter, literal: Callable[[int], str]) -> Printed:
    """``t1 + t2 - t3 + c``; a term with a negative coefficient prints after ``-`` with the
    coefficient negated, so no text ever holds ``- -``."""
    if p.record is not None and len(e.args) > 1:
        acc = e.args[0]
        for t in e.args[1:]:  # the running sums, in printed order
            acc = add(acc, t)
            p.note(acc)
    parts: list[str] = []
    for i, t in enumerate(e.args):
        coeff, factors = term_factors(t)
        if i > 0 and coeff < 0 and _printable(literal, -coeff):
            text, prec = print_product(-coeff, factors, p, literal(-coeff))
            parts.append(" - " + (text if prec > SUM else f"({text})"))
        else:
            text, prec = print_product(coeff, factors, p, literal(coeff))
            sep = "" if i == 0 else " + "
            parts.append(sep + (text if prec >= SUM else f"({text})"))
    c: int = e.payload
    if c < 0 and _printable(literal, -c):
        parts.append(" - " + literal(-c))
    elif c != 0:
        text = literal(c)
        parts.append(" + " + (f"({text})" if text.startswith("-") else text))
    return "".join(parts), SUM


def _printable(literal: Callable[[int], str], v: int) -> bool:
    """Whether the target can write the literal ``v`` (-INT64_MIN cannot be in int64)."""
    try:
        literal(v)
    except InvalidOperationError:
        return False
    return True


def print_compare(op: str) -> Handler:
    """``a OP b`` with integer operands (each a sum or tighter)."""

    def handler(e: Expr, p: CodePrinter) -> Printed:
        a, b = e.args
        return f"{p.wrap(a, SUM)} {op} {p.wrap(b, SUM)}", CMP

    return handler


def print_infix(op: str, prec: int) -> Handler:
    """``a OP b`` at ``prec`` (left-associative): the right operand binds tighter."""

    def handler(e: Expr, p: CodePrinter) -> Printed:
        a, b = e.args
        return f"{p.wrap(a, prec)} {op} {p.wrap(b, prec + 1)}", prec

    return handler


def negated(e: Expr) -> Expr:
    """``-e`` (a canonical product; used where a printer needs the negated operand)."""
    return mul(-1, e)


def wild_handler(target: str) -> Handler:
    def handler(e: Expr, p: CodePrinter) -> Printed:
        raise InvalidOperationError(
            f"the {target} printer cannot print the pattern variable {e}; substitute it first"
        )

    return handler


def native_division(op: str, a: Expr, b: Expr, p: CodePrinter) -> Printed:
    """``a op b`` with the target's native (truncating) operator."""
    if p.record is not None and not (type(b) is Integer and b.payload == 0):
        p.note(FloorDiv.make(a, b))  # the quotient (also computed by a native %)
    return f"{p.wrap(a, PROD)} {op} {p.wrap(b, UNARY)}", PROD


def truncating_division(div: str) -> tuple[Handler, Handler, Handler]:
    """FloorDiv, Mod and CeilDiv handlers for a target whose integer division operator
    ``div`` (C's ``/``, Triton's ``//``) and ``%`` truncate toward zero.  The native
    operators are used only where they agree with floor semantics (a known non-negative
    dividend, a known-positive divisor); elsewhere the ``ia_floordiv`` / ``ia_mod`` /
    ``ia_ceildiv`` helpers that the target's preamble defines."""

    def floordiv(e: Expr, p: CodePrinter) -> Printed:
        a, b = e.args
        if p.native_division_ok(a, b):
            return native_division(div, a, b, p)
        return p.call("ia_floordiv", a, b)

    def mod(e: Expr, p: CodePrinter) -> Printed:
        a, b = e.args
        if p.native_division_ok(a, b):
            return native_division("%", a, b, p)
        return p.call("ia_mod", a, b)

    def ceildiv(e: Expr, p: CodePrinter) -> Printed:
        a, b = e.args
        if type(b) is Integer and b.payload >= 1 and p.nonneg(a):
            # ⌈a/c⌉ = ⌊(a + c − 1)/c⌋, and a + c − 1 >= 0 truncates as it floors.
            return native_division(div, add(a, b.payload - 1), b, p)
        return p.call("ia_ceildiv", a, b)

    return floordiv, mod, ceildiv
