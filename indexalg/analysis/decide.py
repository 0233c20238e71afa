"""Deciding claims with the analyses alone (the prover's first two tiers).

``decide_in(claim, ctx)`` answers True (proven), False (disproven) or None (unknown) from
interval bounds (numeric, then symbolic) and congruence facts.  Never guesses.
"""

from __future__ import annotations

from indexalg.analysis.congruence import congruence
from indexalg.analysis.context import Context, context_for, owner
from indexalg.analysis.interval import bounded_symbols, interval
from indexalg.analysis.symbolic import mentions_dependent, sym_bound
from indexalg.analysis.witness import witness_values
from indexalg.errors import ExprTypeError
from indexalg.expr import (
    Add,
    And,
    BoolConst,
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
    add,
    mul,
)
from indexalg.poly import divide_exact
from indexalg.ranges import RangesLike, as_ranges

__all__ = ["decide", "decide_in", "exact_divides", "holds_in"]


def exact_divides(d: Expr, e: Expr) -> bool:
    """True when ``d`` divides ``e``: for a literal d, by the congruence of e; otherwise as
    polynomials (every term of e a multiple of the monomial d).  Sound; False means "not
    shown"."""
    if type(d) is Integer:
        q: int = d.payload
        if q == 0:
            return False
        m, r = congruence(e)
        return (m % q == 0 and r % q == 0) if m else r % q == 0
    return divide_exact(e, d) is not None


def _without_floors(d: Expr) -> Expr:
    """The sum ``d`` with each term ``q*(x // c)`` (literal ``c > 0`` dividing ``q``) read
    as ``(q/c)*x - (q/c)*(x mod c)``: the same value (``c*(x // c) == x - x mod c``), whose
    interval is tighter where the ``x`` cancels (``4*((x + 3) // 4) - x`` is
    ``3 - (x + 3) mod 4``, in ``[0, 3]``)."""
    if type(d) is not Add:
        return d
    out: Expr = d
    for t in d.args:
        q, m = (t.payload, t.args[0]) if type(t) is Mul and len(t.args) == 1 else (1, t)
        if type(m) is not FloorDiv or type(m.args[1]) is not Integer:
            continue
        x, c = m.args[0], m.args[1].payload
        if c <= 0 or q % c:
            continue
        r = q // c
        out = add(out, mul(-q, m), mul(r, x), mul(-r, ModularIndexing.make(x, 1, c)))
    return out


def _lower_ge(d: Expr, k: int, ctx: Context) -> bool:
    """Proven: d >= k at every in-range point."""
    lo, _ = interval(d, ctx)
    if lo >= k:
        return True
    plain = _without_floors(d)
    if plain is not d and interval(plain, ctx)[0] >= k:
        return True
    passes = _symbolic_passes(d, ctx)
    if passes and any(v is not None and v < k for v in witness_values(d, ctx)):
        return False  # d < k at a point of the ranges: no bound can prove d >= k
    for elim in passes:
        b = sym_bound(d, ctx, upper=False, elim=elim)
        if b is not None and interval(b, ctx)[0] >= k:
            return True
    if k >= 0 and type(d) is Add:
        split = _common_factor(d)
        if split is not None:
            f, g = split
            # f >= 1 and g >= k >= 0 give f*g >= g >= k; f >= 0 and g >= 0 give f*g >= 0
            if k == 0 and _lower_ge(f, 0, ctx) and _lower_ge(g, 0, ctx):
                return True
            if _lower_ge(f, 1, ctx) and _lower_ge(g, k, ctx):
                return True
    return False


def _upper_le(d: Expr, k: int, ctx: Context) -> bool:
    """Proven: d <= k at every in-range point."""
    _, hi = interval(d, ctx)
    if hi <= k:
        return True
    plain = _without_floors(d)
    if plain is not d and interval(plain, ctx)[1] <= k:
        return True
    passes = _symbolic_passes(d, ctx)
    if passes and any(v is not None and v > k for v in witness_values(d, ctx)):
        return False  # d > k at a point of the ranges: no bound can prove d <= k
    for elim in passes:
        b = sym_bound(d, ctx, upper=True, elim=elim)
        if b is not None and interval(b, ctx)[1] <= k:
            return True
    return _lower_ge(mul(-1, d), -k, ctx) if k <= 0 and type(d) is Add else False


def _symbolic_passes(d: Expr, ctx: Context) -> list[frozenset[Expr]]:
    """The symbol sets worth eliminating symbolically for ``d``: the dependent symbols,
    then also the symbols with finite ranges (keeping the unbounded ones, so that
    ``n - Where(i < 0, i + n, i)`` cancels n)."""
    passes: list[frozenset[Expr]] = []
    if mentions_dependent(d, ctx):
        passes.append(ctx.dependent)
    bounded = bounded_symbols(ctx)
    if bounded and bounded != ctx.dependent and mentions_dependent(d, ctx, bounded):
        if not d.symbol_set <= bounded:
            passes.append(bounded)
    return passes


def _common_factor(d: Expr) -> tuple[Expr, Expr] | None:
    """``d == f * g`` with f a non-constant factor common to every term, or None."""
    if d.payload != 0:
        return None
    first = d.args[0]
    candidates = list(first.args) if type(first) is Mul else [first]
    for f in candidates:
        if type(f) is Integer:
            continue
        g = divide_exact(d, f)
        if g is not None:
            return f, g
    return None


def _decide_eq(a: Expr, b: Expr, ctx: Context) -> tuple[bool | None, str]:
    d = add(a, -1 * b) if type(b) is not Integer else add(a, -b.payload)
    if type(d) is Integer:
        return d.payload == 0, "interval"
    if type(d) is Mod and exact_divides(d.args[1], d.args[0]):
        return True, "congruence"
    if _lower_ge(d, 1, ctx) or _upper_le(d, -1, ctx):
        return False, "interval"
    if _lower_ge(d, 0, ctx) and _upper_le(d, 0, ctx):
        return True, "interval"
    m, r = congruence(d)
    if m == 0:
        return r == 0, "congruence"
    if r != 0:
        return False, "congruence"
    return None, ""


def _decide(claim: Expr, ctx: Context) -> tuple[bool | None, str]:
    t = type(claim)
    if t is BoolConst:
        return bool(claim.payload), "interval"
    if t is Lt or t is Le:
        a, b = claim.args
        d = add(b, -1 * a) if type(a) is not Integer else add(b, -a.payload)
        k = 1 if t is Lt else 0
        if _lower_ge(d, k, ctx):
            return True, "interval"
        if _upper_le(d, k - 1, ctx):
            return False, "interval"
        v = _split_minmax(claim, ctx)
        return v, ("" if v is None else "interval")
    if t is Eq or t is Ne:
        v, tier = _decide_eq(claim.args[0], claim.args[1], ctx)
        if v is None:
            return None, ""
        return (v if t is Eq else not v), tier
    if t is Not:
        v, tier = _decide(claim.args[0], ctx)
        return (None, "") if v is None else (not v, tier)
    if t is And or t is Or:
        unknown = False
        tiers: list[str] = []
        for a in claim.args:
            v, tier = _decide(a, ctx)
            if v is None:
                unknown = True
                continue
            tiers.append(tier)
            if v is (t is Or):  # And: a False decides; Or: a True decides
                return v, tier
        if unknown:
            return None, ""
        return (t is And), ("congruence" if "congruence" in tiers else "interval")
    return None, ""


def _split_minmax(claim: Expr, ctx: Context) -> bool | None:
    """A comparison with a Min or Max side, decided part by part: ``Max(a, b) <= c`` is
    ``a <= c and b <= c``, ``Min(a, b) <= c`` is ``a <= c or b <= c`` (and mirrored)."""
    a, b = claim.args
    make = Lt.make if type(claim) is Lt else Le.make
    for side, on_left in ((a, True), (b, False)):
        if type(side) is not Min and type(side) is not Max:
            continue
        parts = [make(x, b) if on_left else make(a, x) for x in side.args]
        every = (type(side) is Max) == on_left  # Max on the left, Min on the right: all
        values = [_decide(p, ctx)[0] for p in parts]
        if every:
            if all(v is True for v in values):
                return True
            if any(v is False for v in values):
                return False
        else:
            if any(v is True for v in values):
                return True
            if all(v is False for v in values):
                return False
    return None


#: (claim, wanted truth value) -> whether the analyses prove it has that value
DECIDED = owner("decide")


def holds_in(claim: Expr, ctx: Context, want: bool) -> bool:
    """``decide_in(claim, ctx) is want``, memoised per context.  For a comparison only the
    side asked for is computed (a rule's condition is wanted True: its disproof is never
    needed); False is still answered only where True is not proven."""
    key = (claim, want)
    memo: dict[tuple[Expr, bool], bool] = ctx.memos[DECIDED]
    hit = memo.get(key)
    if hit is not None:
        return hit
    t = type(claim)
    if t is Lt or t is Le:
        a, b = claim.args
        d = add(b, -1 * a) if type(a) is not Integer else add(b, -a.payload)
        k = 1 if t is Lt else 0
        if want:
            out = _lower_ge(d, k, ctx) or _split_minmax(claim, ctx) is True
        else:
            # False only when not proven True (an empty domain proves both)
            out = _upper_le(d, k - 1, ctx) and not _lower_ge(d, k, ctx)
    else:
        out = _decide(claim, ctx)[0] is want
    memo[key] = out
    return out


def decide_in(claim: Expr, ctx: Context) -> bool | None:
    """True / False / None (unknown) for a claim under a context."""
    return _decide(claim, ctx)[0]


def decide(claim: Expr, ranges: RangesLike = None) -> tuple[bool | None, str]:
    """Tiers 1-2 of the prover: ``(True|False, tier)`` when intervals or congruence decide
    the claim, ``(None, "")`` otherwise; ``tier`` is ``"interval"`` or ``"congruence"``.
    An entry point: ``ranges``, in any accepted form, is normalised here once
    (:func:`~indexalg.ranges.as_ranges`) before the analyses see it."""
    if not isinstance(claim, Expr) or not claim.is_bool:
        raise ExprTypeError(f"decide() takes a claim, got {claim!r}")
    return _decide(claim, context_for(as_ranges(ranges)))
