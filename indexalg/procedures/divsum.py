"""Division and remainder of a sum: pull out whole multiples, factor the gcd, drop the
terms that cannot change the result under the ranges.

For q > 0 and integers A, B (all exact, any signs of A and B):
* ``(q*A + B) // q == A + B // q`` and ``(q*A + B) mod q == B mod q`` (also for a symbolic
  monomial q != 0 dividing every term of q*A);
* ``(g*L + S) // q == L // (q/g)`` when g | q, g divides every coefficient of L and
  ``0 <= S < g`` (S is too small to carry into the next multiple of g): this is Inductor's
  ``simplify_with_ranges`` term dropping, generalised to any gcd;
* ModularIndexing(a, d, m) drops terms that are multiples of d*m and applies the gcd step
  to its inner division.
"""

from __future__ import annotations

from math import gcd

from indexalg.analysis.context import Context
from indexalg.analysis.decide import decide_in, exact_divides
from indexalg.analysis.interval import interval
from indexalg.expr import (
    Add,
    And,
    CeilDiv,
    Expr,
    FloorDiv,
    Integer,
    Le,
    Lt,
    Mod,
    ModularIndexing,
    add,
    mul,
)
from indexalg.poly import divide_exact, scaled, split_terms, term_factors
from indexalg.procedures.base import Procedure, _module_doc

__all__ = ["DIVSUM_PROCEDURES"]


def _sum(terms: list[tuple[int, Expr]], const: int = 0) -> Expr:
    if const == 0 and len(terms) == 1:
        c, m = terms[0]
        return scaled(c, m)  # what add() of the one term (a monomial's multiple) gives
    return add(const, *(scaled(c, m) for c, m in terms))


def _pull_multiples(a: Expr, q: Expr, *, remainder: bool = False) -> tuple[Expr, Expr] | None:
    """Split ``a`` into (A, B) with a == q*A + B, A != 0; None when nothing moves.

    The constant's multiple of q (truncated toward zero, so ``x - 1`` stays) moves when it
    costs no operation: always for a remainder, for a division only when a term moves too
    or the constant disappears."""
    if type(q) is Integer:
        terms, const = split_terms(a)
        return _pull_literal(terms, const, q.payload, remainder)
    if not _may_divide_a_term(q, a):
        return None
    terms, const = split_terms(a)
    quotients: list[Expr] = []  # of the terms q divides exactly
    others: list[tuple[int, Expr]] = []
    for c, m in terms:
        quotient = divide_exact(mul(c, m), q)
        if quotient is None:
            others.append((c, m))
        else:
            quotients.append(quotient)
    if not quotients:
        return None
    return add(*quotients), _sum(others, const)


def _pull_literal(
    terms: list[tuple[int, Expr]], const: int, qv: int, remainder: bool
) -> tuple[Expr, Expr] | None:
    """:func:`_pull_multiples` for a literal ``q`` (``qv``), from the split dividend."""
    whole = [(c // qv, m) for c, m in terms if c % qv == 0]
    k = abs(const) // abs(qv) * (1 if (const >= 0) == (qv > 0) else -1)
    r = const - k * qv
    if not (remainder or whole or r == 0):
        k, r = 0, const
    if not whole and k == 0:
        return None
    rest = [(c, m) for c, m in terms if c % qv != 0]
    return _sum(whole, k), _sum(rest, r)


def _may_divide_a_term(q: Expr, a: Expr) -> bool:
    """Whether the monomial ``q`` may divide a term of ``a`` exactly: its coefficient divides
    the term's and each of its factors is among the term's (what :func:`divide_exact` needs),
    read from the terms as they are, without building their monomials."""
    qc, qfs = term_factors(q)
    if type(a) is Integer:
        return False
    for t in a.args if type(a) is Add else (a,):
        c, fs = term_factors(t)
        if c % qc:
            continue
        for f in qfs:
            if f not in fs:
                break
        else:
            return True
    return False


def _gcd_split_terms(
    terms: list[tuple[int, Expr]], const: int, q: int, ctx: Context
) -> tuple[Expr, int] | None:
    """(L', g) with ``a // q == L' // (q/g)`` for ``a`` split as ``(terms, const)``:
    a == g*L' + S, 0 <= S < g, g | q, g > 1."""
    if not terms:
        return None
    if len(terms) == 1 and gcd(q, terms[0][0]) <= 1:
        return None  # the one candidate set, all the terms, has no common factor with q
    order = sorted(range(len(terms)), key=lambda i: -abs(terms[i][0]))
    for k in range(len(order), 0, -1):
        large = [terms[i] for i in order[:k]]
        g = q
        for c, _ in large:
            g = gcd(g, c)
        if g <= 1:
            continue
        small = [terms[i] for i in order[k:]]
        s = _sum(small, const)
        lo, hi = interval(s, ctx)
        if lo >= 0 and hi <= g - 1:
            return _sum([(c // g, m) for c, m in large]), g
    return None


def _exact_quotient_by_range(a: Expr, q: int, ctx: Context) -> Expr | None:
    """``a // q`` as a polynomial when the remainders cannot carry: with every coefficient
    split as c = q*k + r (0 <= r < q), ``a // q == sum(k*t) + (sum(r*t) + r0) // q`` exactly,
    and the last term is 0 when ``0 <= sum(r*t) + r0 < q`` (TVM's ``16*x // 5 -> 3*x`` for
    ``0 <= x <= 4``)."""
    terms, const = split_terms(a)
    return _exact_quotient_terms(terms, const, q, ctx)


def _exact_quotient_terms(
    terms: list[tuple[int, Expr]], const: int, q: int, ctx: Context
) -> Expr | None:
    """:func:`_exact_quotient_by_range` of the split dividend."""
    for c, _ in terms:
        if c // q != 0:
            break
    else:
        return None  # no term has a whole multiple of q (nor has a dividend of no terms)
    whole = [(c // q, m) for c, m in terms]
    rest = _sum([(c % q, m) for c, m in terms], const % q)
    lo, hi = interval(rest, ctx)
    if lo >= 0 and hi < q:
        return _sum(whole, const // q)
    return None


def floordiv_of_sum(e: Expr, ctx: Context) -> Expr | None:
    a, q = e.args
    if type(q) is not Integer:
        split = _pull_multiples(a, q)
        if split is not None:
            whole, rest = split
            return add(whole, FloorDiv.make(rest, q))
        return None
    qv: int = q.payload
    if qv < 0:
        return None
    terms, const = split_terms(a)  # once, for the three steps
    split = _pull_literal(terms, const, qv, False)
    if split is not None:
        whole, rest = split
        return add(whole, FloorDiv.make(rest, q))
    if qv > 1:
        g = _gcd_split_terms(terms, const, qv, ctx)
        if g is not None:
            inner, gv = g
            return FloorDiv.make(inner, qv // gv)
        return _exact_quotient_terms(terms, const, qv, ctx)
    return None


def ceildiv_of_sum(e: Expr, ctx: Context) -> Expr | None:
    """``CeilDiv(q*A + B, q) == A + CeilDiv(B, q)``; and for a literal ``q > 1``,
    ``CeilDiv(a, q) == -((-a) // q)`` read as a polynomial where the remainders cannot
    carry (TVM's ``x % 3`` for ``CeilDiv(3*(x % 3), 4)``)."""
    a, q = e.args
    if type(q) is Integer and q.payload < 0:
        return None
    split = _pull_multiples(a, q)
    if split is None:
        if type(q) is Integer and q.payload > 1:
            linear = _exact_quotient_by_range(mul(-1, a), q.payload, ctx)
            if linear is not None:
                return mul(-1, linear)
        return None
    whole, rest = split
    return add(whole, CeilDiv.make(rest, q))


def mod_of_sum(e: Expr, ctx: Context) -> Expr | None:
    a, q = e.args
    split = _pull_multiples(a, q, remainder=True)
    if split is None:
        return None
    return Mod.make(split[1], q)


def modular_indexing_of_sum(e: Expr, ctx: Context) -> Expr | None:
    a, d, m = e.args
    period = mul(d, m)
    terms, const = split_terms(a)  # once, for every step with a literal divisor
    if type(period) is Integer:
        split = _pull_literal(terms, const, period.payload, True)
    else:
        split = _pull_multiples(a, period, remainder=True)
    if split is not None:
        return ModularIndexing.make(split[1], d, m)
    if type(d) is Integer and d.payload > 1:
        g = _gcd_split_terms(terms, const, d.payload, ctx)
        if g is not None:
            inner, gv = g
            return ModularIndexing.make(inner, d.payload // gv, m)
        linear = _exact_quotient_terms(terms, const, d.payload, ctx)
        if linear is not None:
            return ModularIndexing.make(linear, 1, m)
    if d is not _ONE:
        # (d*A + B) // d == A + B // d; worth it only when B // d vanishes (0 <= B < d)
        if type(d) is Integer:
            split = _pull_literal(terms, const, d.payload, False)
        else:
            split = _pull_multiples(a, d)
        if split is not None and _below(split[1], d, ctx):
            return ModularIndexing.make(split[0], 1, m)
    # c*MI(x, 1, M) == c*x - c*M*(x // M): drop the multiple of c*M when d*m divides it
    for i, (c, t) in enumerate(terms):
        if type(t) is ModularIndexing and t.args[1] is _ONE:
            if exact_divides(period, mul(c, t.args[2])):
                rest = [*terms[:i], (c, t.args[0]), *terms[i + 1 :]]
                return ModularIndexing.make(_sum(rest, const), d, m)
    return None


_ONE = Integer(1)


def _below(b: Expr, d: Expr, ctx: Context) -> bool:
    """Proven 0 <= b < d."""
    if type(b) is Integer and b.payload == 0:
        return True
    lo, hi = interval(b, ctx)
    if lo >= 0 and hi < interval(d, ctx)[0]:
        return True

    return decide_in(And.make(Le.make(0, b), Lt.make(b, d)), ctx) is True


DIVSUM_PROCEDURES = (
    Procedure("floordiv_of_sum", (FloorDiv,), floordiv_of_sum, _module_doc(__name__)),
    Procedure("ceildiv_of_sum", (CeilDiv,), ceildiv_of_sum),
    Procedure("mod_of_sum", (Mod,), mod_of_sum),
    Procedure("modular_indexing_of_sum", (ModularIndexing,), modular_indexing_of_sum),
)
