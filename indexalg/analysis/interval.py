"""Numeric interval bounds: for every op, ``[lo, hi]`` with ints or ±inf, sound under the
context's ranges (every value the expression takes at an in-range point where it is
defined lies inside).  One handler per node class in :data:`INTERVAL_TABLE`; results cached
per context.  ``Where``'s handler lives in :mod:`indexalg.analysis.where`, above the
claim decisions it needs, and registers itself here."""

from __future__ import annotations

from collections.abc import Callable

from indexalg.analysis.context import OPEN, Context, owner
from indexalg.analysis.infinity import INF, NEG_INF, Infinity, Num
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
    Wild,
    add,
    mul,
)
from indexalg.poly import term_factors

__all__ = [
    "interval",
    "INTERVAL_TABLE",
    "FULL",
    "Interval",
    "bounded_symbols",
    "symbol_interval",
    "imul",
    "iscale",
    "ipow",
    "ifloordiv",
    "imod",
]

Interval = tuple[Num, Num]
Handler = Callable[[Expr, Context], Interval]

FULL: Interval = (NEG_INF, INF)
_BOOL: Interval = (0, 1)


#: node -> (lo, hi) numeric interval under the context's ranges
INTERVALS = owner("interval")
#: symbol -> the numeric interval of its range (:func:`symbol_interval`)
SYMBOL_INTERVALS = owner("interval.symbols")
#: the symbols :func:`bounded_symbols` finds (one entry, under None)
BOUNDED = owner("interval.bounded")


def interval(e: Expr, ctx: Context) -> Interval:
    """Numeric bounds of ``e`` under ``ctx`` (claims: within [0, 1])."""
    cache: dict[Expr, Interval] = ctx.memos[INTERVALS]
    hit = cache.get(e)
    if hit is not None:
        return hit
    t = type(e)
    if not ctx.facts:
        if t is Symbol:
            # memoised there (and, once known, here), with its own cycle guard
            return symbol_interval(e, ctx)
        if t is Integer:
            v: int = e.payload
            hit = cache[e] = (v, v)
            return hit
    # A re-entrant query on the same node (a Where whose condition's bounds need the Where
    # itself) sees the trivial interval: sound, and it ends the recursion.
    cache[e] = FULL
    r = INTERVAL_TABLE[t](e, ctx)
    if ctx.facts:
        r = _with_facts(e, r, ctx)
    cache[e] = r
    return r


def _with_facts(e: Expr, r: Interval, ctx: Context) -> Interval:
    """``r`` narrowed by the assumed ranges of expressions (``{x2 + 3*y1: 15}``): of ``e``
    itself, and of a sum among ``e``'s terms (``e = fact + rest``)."""
    fact = ctx.facts.get(e)
    if fact is not None:
        r = _meet(r, _fact_interval(fact, ctx))
    for f, sign in ctx.sum_facts_in(e):
        rest = interval(add(e, mul(-sign, f)), ctx)
        flo, fhi = _fact_interval(ctx.facts[f], ctx)
        if sign > 0:  # e = f + rest
            r = _meet(r, (flo + rest[0], fhi + rest[1]))
        else:  # e = -f + rest
            r = _meet(r, (rest[0] - fhi, rest[1] - flo))
    return r


def _fact_interval(fact: tuple[Expr | None, Expr | None], ctx: Context) -> Interval:
    """The numeric interval between an inclusive pair of bound expressions (None: open)."""
    lo_e, hi_e = fact
    lo: Num = NEG_INF if lo_e is None else interval(lo_e, ctx)[0]
    hi: Num = INF if hi_e is None else interval(hi_e, ctx)[1]
    return lo, hi


def _meet(a: Interval, b: Interval) -> Interval:
    return max(a[0], b[0]), min(a[1], b[1])


def _mul_num(a: Num, b: Num) -> Num:
    """A product of bounds; 0 times an infinite bound is 0 (the bound is never reached)."""
    if (type(a) is int and a == 0) or (type(b) is int and b == 0):
        return 0
    return a * b


def imul(a: Interval, b: Interval) -> Interval:
    """Product of two intervals."""
    a0, a1 = a
    b0, b1 = b
    if type(a0) is int and type(b0) is int:
        if type(a1) is int and type(b1) is int:
            p, q, r, s = a0 * b0, a0 * b1, a1 * b0, a1 * b1
            return min(p, q, r, s), max(p, q, r, s)
        if (
            a0 >= 0
            and b0 >= 0
            and (a1 is INF or (type(a1) is int and a1 >= a0))
            and (b1 is INF or (type(b1) is int and b1 >= b0))
        ):
            # both non-negative (a size times a size): the products of the ends, with no
            # comparison of an infinite bound (``_mul_num(a1, b1)``, written out)
            hi: Num
            if type(a1) is int:
                if a1 == 0:
                    hi = 0
                else:
                    hi = a1 * b1 if type(b1) is int else INF
            else:
                hi = 0 if type(b1) is int and b1 == 0 else INF
            return a0 * b0, hi
    if a0 == a1 == 0 or b0 == b1 == 0:
        return 0, 0
    cs = (_mul_num(a0, b0), _mul_num(a0, b1), _mul_num(a1, b0), _mul_num(a1, b1))
    return min(cs), max(cs)


def iscale(a: Interval, c: int) -> Interval:
    """``a`` times the int ``c``: ``imul(a, (c, c))``, without its four products where an
    end is an int and the other one an int or the infinity on its side."""
    lo, hi = a
    if type(lo) is int:
        if type(hi) is int:
            p, q = lo * c, hi * c
            return (p, q) if p <= q else (q, p)
        if hi is INF and c:
            return (lo * c, INF) if c > 0 else (NEG_INF, lo * c)
    elif lo is NEG_INF and type(hi) is int and c:
        return (NEG_INF, hi * c) if c > 0 else (hi * c, INF)
    return imul(a, (c, c))


def _fdiv(a: Num, b: Num) -> Num:
    """floor(a / b) for b > 0 finite or infinite, a possibly infinite."""
    if type(a) is int and type(b) is int:
        return a // b
    if isinstance(a, Infinity):
        return a if not isinstance(b, Infinity) else (0 if a.sign > 0 else -1)
    if isinstance(b, Infinity):
        return 0 if a >= 0 else -1
    return a // b


def _floordiv_pos(a: Interval, b: Interval) -> Interval:
    """floor(a / b) for b in [b0, b1] with b0 >= 1."""
    a0, a1 = a
    b0, b1 = b
    # an int end compares with ints only (no Infinity operator methods on the hot path)
    if type(a0) is int:
        lo = _fdiv(a0, b1) if a0 >= 0 else _fdiv(a0, b0)
    else:
        lo = a0 if a0 == NEG_INF else (_fdiv(a0, b1) if a0 >= 0 else _fdiv(a0, b0))
    if type(a1) is int:
        hi = _fdiv(a1, b0) if a1 >= 0 else _fdiv(a1, b1)
    else:
        hi = a1 if a1 == INF else (_fdiv(a1, b0) if a1 >= 0 else _fdiv(a1, b1))
    return lo, hi


def ifloordiv(a: Interval, b: Interval) -> Interval:
    """floor(a / b) over the non-zero divisors in ``b``."""
    b0, b1 = b
    if type(b0) is int and b0 >= 1 and (b1 is INF or (type(b1) is int and b1 >= 1)):
        return _floordiv_pos(a, b)  # positive divisors only (the usual case)
    parts: list[Interval] = []
    if b[1] >= 1:
        parts.append(_floordiv_pos(a, (max(b[0], 1), b[1])))
    if b[0] <= -1:
        # floor(a / b) = floor(-a / -b)
        parts.append(_floordiv_pos((-a[1], -a[0]), (-min(b[1], -1), -b[0])))
    if not parts:
        return FULL  # only b == 0: undefined everywhere
    return min(p[0] for p in parts), max(p[1] for p in parts)


def imod(a: Interval, b: Interval) -> Interval:
    """a mod b (sign of b) over the non-zero divisors in ``b``."""
    fast = _imod_pos(a, b)
    if fast is not None:
        return fast
    parts: list[Interval] = []
    if b[1] >= 1:
        b0, b1 = max(b[0], 1), b[1]
        if a[0] >= 0 and a[1] < b0:
            parts.append(a)  # already reduced
        elif a[0] != NEG_INF and a[1] != INF and b0 == b1 and _fdiv(a[0], b0) == _fdiv(a[1], b0):
            k = _fdiv(a[0], b0)
            parts.append((a[0] - k * b0, a[1] - k * b0))
        else:
            hi = b1 - 1
            if a[0] >= 0 and a[1] < hi:
                hi = a[1]
            parts.append((0, hi))
    if b[0] <= -1:
        b0, b1 = b[0], min(b[1], -1)
        if a[1] <= 0 and a[0] > b1:
            parts.append(a)
        else:
            lo = b0 + 1
            if a[1] <= 0 and a[0] > lo:
                lo = a[0]
            parts.append((lo, 0))
    if not parts:
        return FULL
    return min(p[0] for p in parts), max(p[1] for p in parts)


def _imod_pos(a: Interval, b: Interval) -> Interval | None:
    """:func:`imod` where ``a``'s lower end and ``b``'s ends are ints (or INF above) and
    the divisors are positive (the usual case), with int comparisons only; None
    otherwise."""
    a0, a1 = a
    b0, b1 = b
    if type(a0) is not int or type(b0) is not int or b0 < 1:
        return None
    if type(a1) is int:
        if type(b1) is int:
            if b1 < 1:
                return None
            if a0 >= 0 and a1 < b0:
                return a0, a1  # already reduced
            if b0 == b1 and a0 // b0 == a1 // b0:
                k = a0 // b0
                return a0 - k * b0, a1 - k * b0
            return 0, (a1 if a0 >= 0 and a1 < b1 - 1 else b1 - 1)
        if b1 is INF:
            if a0 >= 0 and a1 < b0:
                return a0, a1
            return 0, (a1 if a0 >= 0 else INF)
        return None
    if a1 is INF:
        if type(b1) is int:
            return None if b1 < 1 else (0, b1 - 1)
        if b1 is INF:
            return 0, INF
    return None


def _integer(e: Expr, ctx: Context) -> Interval:
    v: int = e.payload
    return v, v


def _symbol(e: Expr, ctx: Context) -> Interval:
    return symbol_interval(e, ctx)


def symbol_interval(sym: Expr, ctx: Context) -> Interval:
    """Numeric bounds of a symbol (its range's bounds, themselves bounded numerically)."""
    table: dict[Expr, Interval] = ctx.memos[SYMBOL_INTERVALS]
    hit = table.get(sym)
    if hit is not None:
        return hit
    lo_e, hi_e = ctx.bounds.get(sym, OPEN)
    facts = ctx.facts
    if (
        not facts
        and (lo_e is None or type(lo_e) is Integer)
        and (hi_e is None or type(hi_e) is Integer)
    ):
        # literal bounds (most ranges): no recursion, no cycle to guard
        got: Interval = (
            NEG_INF if lo_e is None else lo_e.payload,
            INF if hi_e is None else hi_e.payload,
        )
        table[sym] = ctx.memos[INTERVALS][sym] = got
        return got
    if sym in ctx.busy:
        # a cycle through narrowed ranges (a branch bounded a symbol by another whose range
        # mentions it): the unnarrowed context's bounds still hold, narrowing only shrinks
        return FULL if ctx.parent is None else symbol_interval(sym, ctx.parent)
    ctx.busy.add(sym)
    try:
        got = _fact_interval((lo_e, hi_e), ctx)
    finally:
        ctx.busy.discard(sym)
    table[sym] = got
    if not facts:  # what interval() answers for it from now on
        ctx.memos[INTERVALS][sym] = got
    return got


def bounded_symbols(ctx: Context) -> frozenset[Expr]:
    """Dependent symbols plus those with finite ranges on both sides (not sizes)."""
    table: dict[None, frozenset[Expr]] = ctx.memos[BOUNDED]
    hit = table.get(None)
    if hit is None:
        table[None] = ctx.dependent  # while computing: no recursion through here
        hit = table[None] = ctx.dependent | frozenset(
            s for s in ctx.eliminable if all(type(v) is int for v in symbol_interval(s, ctx))
        )
    return hit


def _add(e: Expr, ctx: Context) -> Interval:
    quad = _quadratic(e, ctx)
    if quad is not None:
        return quad
    lo: int = e.payload
    hi: int = e.payload
    # ints are summed directly; an infinite side makes the sum's side infinite (a lower
    # bound of +inf only comes from an empty interval: read it as -inf, which is sound)
    lo_inf = hi_inf = False
    terms = e.args
    paired = _decorrelate(terms, ctx)
    cache: dict[Expr, Interval] = ctx.memos[INTERVALS]
    if paired is not None:
        part, used = paired
        terms = tuple(t for i, t in enumerate(terms) if i not in used)
        parts = [part]
    else:
        parts = []
    for t in terms:
        # a term's interval from the node table where it is there (as interval() reads it)
        hit = cache.get(t)
        parts.append(interval(t, ctx) if hit is None else hit)
    for tl, th in parts:
        if type(tl) is int:
            lo += tl
        else:
            lo_inf = True
        if type(th) is int:
            hi += th
        else:
            hi_inf = True
    return (NEG_INF if lo_inf else lo), (INF if hi_inf else hi)


def _quadratic(e: Expr, ctx: Context) -> Interval | None:
    """A sum ``a*v*v + b*v + c`` of one subexpression ``v`` bounded exactly: its extremes over
    the integers of ``v``'s interval lie at the ends and beside the vertex ``-b / 2a``
    (the terms are correlated; bounding them apart gives ``(x - 4)*(x - 4)``, expanded,
    on [0, 63] the bounds [-488, 3985] instead of [0, 3481])."""
    for t in e.args:  # fast exit: no square term
        if type(t) is Mul and len(t.args) == 2 and t.args[0] is t.args[1]:
            break
    else:
        return None
    base: Expr | None = None
    a = b = 0
    for t in e.args:
        if type(t) is Mul:
            k: int = t.payload
            fs = t.args
        else:
            k, fs = 1, (t,)
        v = fs[0]
        if len(fs) > 2 or (len(fs) == 2 and fs[1] is not v) or (base is not None and v is not base):
            return None
        base = v
        if len(fs) == 2:
            a += k
        else:
            b += k
    if base is None or a == 0:
        return None
    c: int = e.payload
    lo, hi = interval(base, ctx)

    def p(x: int) -> int:
        return a * x * x + b * x + c

    # towards an infinite end the square term dominates, with the sign of a
    far: Num = INF if a > 0 else NEG_INF
    values: list[Num] = []
    for end in (lo, hi):
        values.append(far if isinstance(end, Infinity) else p(end))
    vertex = -b // (2 * a)  # floor of the real vertex; the integer optimum is it or next
    for x in (vertex, vertex + 1):
        if lo <= x <= hi:
            values.append(p(x))
    return min(values), max(values)


def _split_term(t: Expr) -> tuple[int, Expr]:
    """``c*m`` with a single factor ``m`` as ``(c, m)``; any other term as ``(1, t)``."""
    c, factors = term_factors(t)
    return (c, factors[0]) if len(factors) == 1 else (1, t)


def _decorrelate(terms: tuple[Expr, ...], ctx: Context) -> tuple[Interval, set[int]] | None:
    """``a*x + b*(x // c)`` bounded as ``(a*c + b)*(x // c) + a*(x mod c)``: the two terms
    are correlated, so bounding them separately is loose (Inductor gives ``x - x//2`` on
    [0, 1023] the bounds [-511, 1023]; the pair gives [0, 512])."""
    if len(terms) < 2:
        return None
    for t in terms:  # fast exit: no term c*(x // c') with a literal c' >= 1
        q = t.args[0] if type(t) is Mul and len(t.args) == 1 else t
        if type(q) is FloorDiv:
            cdiv = q.args[1]
            if type(cdiv) is Integer and cdiv.payload >= 1:
                break
    else:
        return None
    for j, t in enumerate(terms):
        # t = b*q with q a division by a literal c >= 1 (as _split_term reads a term)
        if type(t) is Mul:
            if len(t.args) != 1:
                continue
            b: int = t.payload
            q = t.args[0]
        else:
            b, q = 1, t
        if type(q) is not FloorDiv:
            continue
        x, cdiv = q.args
        if type(cdiv) is not Integer or cdiv.payload < 1:
            continue
        hit = _term_of(terms, x)
        if hit is None:
            continue
        i, a = hit
        c = cdiv.payload
        qi = interval(q, ctx)
        k = a * c + b
        part = imul(qi, (k, k))
        # x mod c over x's interval: exact when that interval lies in one block of c
        rem = imul(imod(interval(x, ctx), (c, c)), (a, a))
        paired = part[0] + rem[0], part[1] + rem[1]
        # both bounds hold: keep the tighter side of each (the pair is looser than the two
        # terms apart on a narrow x, e.g. x - x // 16 on [2, 16])
        ti, tj = interval(terms[i], ctx), interval(terms[j], ctx)
        naive = ti[0] + tj[0], ti[1] + tj[1]
        return (max(paired[0], naive[0]), min(paired[1], naive[1])), {i, j}
    return None


def _term_of(terms: tuple[Expr, ...], x: Expr) -> tuple[int, int] | None:
    """``(i, a)`` for the last term ``terms[i]`` that :func:`_split_term` reads as
    ``a*x``, or None."""
    hit = None
    for i, t in enumerate(terms):
        if type(t) is Mul and len(t.args) == 1:
            if t.args[0] is x:
                hit = (i, t.payload)
        elif t is x:
            hit = (i, 1)
    return hit


def _mul(e: Expr, ctx: Context) -> Interval:
    c: int = e.payload
    args = e.args
    cache: dict[Expr, Interval] = ctx.memos[INTERVALS]
    if len(args) == 1:
        f = args[0]
        hit = cache.get(f)  # as interval() reads it
        return iscale(interval(f, ctx) if hit is None else hit, c)
    acc: Interval = (1, 1)
    if len(set(args)) == len(args):
        for f in args:
            hit = cache.get(f)
            acc = imul(acc, interval(f, ctx) if hit is None else hit)
        return iscale(acc, c)
    # a factor repeated k times is a power: bounded exactly (x*x is >= 0), not as a product
    # of independent factors (which gives x*x on [-3, 3] the bounds [-9, 9])
    powers: dict[Expr, int] = {}
    for f in e.args:
        powers[f] = powers.get(f, 0) + 1
    for f, k in powers.items():
        iv = interval(f, ctx)
        acc = imul(acc, ipow(iv, k) if k > 1 else iv)
    return iscale(acc, c)


def ipow(a: Interval, k: int) -> Interval:
    """``v ** k`` for ``v`` in ``a`` and ``k >= 1``: exact (monotone for odd k; for even k
    the minimum is 0 when the interval spans 0)."""
    lo, hi = a
    if k % 2 or lo >= 0:
        return _pow(lo, k), _pow(hi, k)
    if hi <= 0:
        return _pow(hi, k), _pow(lo, k)
    return 0, max(_pow(lo, k), _pow(hi, k))


def _pow(v: Num, k: int) -> Num:
    if isinstance(v, Infinity):
        return INF if (v.sign > 0 or k % 2 == 0) else NEG_INF
    out: int = v**k
    return out


def _floordiv(e: Expr, ctx: Context) -> Interval:
    a, b = e.args
    if a is b:  # x // x == 1 wherever it is defined
        return 1, 1
    cache: dict[Expr, Interval] = ctx.memos[INTERVALS]
    ia = cache.get(a)  # the operands' intervals from the node table, as interval() reads it
    ib = cache.get(b)
    return ifloordiv(interval(a, ctx) if ia is None else ia, interval(b, ctx) if ib is None else ib)


def _ceildiv(e: Expr, ctx: Context) -> Interval:
    a, b = e.args
    lo, hi = interval(a, ctx)
    q = ifloordiv((-hi, -lo), interval(b, ctx))
    return -q[1], -q[0]


def _mod(e: Expr, ctx: Context) -> Interval:
    a, b = e.args
    if a is b:  # x mod x == 0 wherever it is defined
        return 0, 0
    return imod(interval(a, ctx), interval(b, ctx))


def _modular_indexing(e: Expr, ctx: Context) -> Interval:
    a, d, m = e.args
    dv = interval(d, ctx)
    mv = interval(m, ctx)
    # max(end, 1) of each divisor end; an int end without Infinity's methods
    d0, d1 = dv
    m0, m1 = mv
    if not (type(d0) is int and d0 >= 1):
        d0 = max(d0, 1)
    if not (type(d1) is int and d1 >= 1):
        d1 = max(d1, 1)
    if not (type(m0) is int and m0 >= 1):
        m0 = max(m0, 1)
    if not (type(m1) is int and m1 >= 1):
        m1 = max(m1, 1)
    return imod(ifloordiv(interval(a, ctx), (d0, d1)), (m0, m1))


def _min(e: Expr, ctx: Context) -> Interval:
    ivs = [interval(a, ctx) for a in e.args]
    return min(i[0] for i in ivs), min(i[1] for i in ivs)


def _max(e: Expr, ctx: Context) -> Interval:
    ivs = [interval(a, ctx) for a in e.args]
    return max(i[0] for i in ivs), max(i[1] for i in ivs)


def _bool(e: Expr, ctx: Context) -> Interval:
    return _BOOL


def _wild(e: Expr, ctx: Context) -> Interval:
    return FULL


INTERVAL_TABLE: dict[type[Expr], Handler] = {
    Integer: _integer,
    Symbol: _symbol,
    Wild: _wild,
    Add: _add,
    Mul: _mul,
    FloorDiv: _floordiv,
    CleanDiv: _floordiv,
    CeilDiv: _ceildiv,
    Mod: _mod,
    ModularIndexing: _modular_indexing,
    Min: _min,
    Max: _max,
    # Where: registered by indexalg.analysis.where (it decides and refines its condition)
    BoolConst: _bool,
    Lt: _bool,
    Le: _bool,
    Eq: _bool,
    Ne: _bool,
    And: _bool,
    Or: _bool,
    Not: _bool,
}
