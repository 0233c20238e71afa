"""A second, independent generator: expressions built to break analyses, on small domains.

:mod:`indexalg.testing.strategies` generates the shapes compilers emit.  This module
generates the shapes that break range analyses, written without looking at what the
analyses handle:

* **shared subterms and repeated factors**: an expression is a sequence of steps, each
  combining earlier results (``t3 = t1 * t1``, ``t4 = t3 - t1 // 2``), so one node occurs
  many times and products have equal or correlated factors;
* **products of Min / Max / div / mod terms**, and the **lowered forms** Inductor prints
  for remainders and halves (``t - 2*(t // 2)``, ``t - 8*(t // 8)``, ``t - t // 2``,
  ``c*(t // c) + t % c``);
* **Where** whose condition compares a symbol the branches do not use, a size symbol or an
  unranged symbol;
* ranges that are **small** (so every point can be enumerated), **singleton** and
  **negative**, **symbolic** in size symbols whose lower bounds are >= 1 (``x < s0``,
  ``s0 - 2 <= x <= s0 + 1``, ``-s0 <= x <= s0``), ranges that depend on another
  variable (``x - 2 <= y <= x``), open sides and unranged symbols.

Strategies (Hypothesis house style: arguments checked on first use, InvalidArgument):

* :func:`adversarial_exprs`, :func:`adversarial_claims`, :func:`adversarial_ranges`;
* :func:`adversarial_cases`: ``(expr or claim, ranges, points)`` with *every* point of the
  expression's domain (:func:`indexalg.testing.exhaustive.domain_points`; an open side or
  an unranged symbol windowed), the form :mod:`indexalg.testing.fuzz` checks.

Examples shrink towards one step (a square of the first variable, ``x*x``), constants
towards 0 and numeric ranges near 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from indexalg.errors import IndexAlgError
from indexalg.expr import (
    And,
    CeilDiv,
    CleanDiv,
    Eq,
    Expr,
    FloorDiv,
    Le,
    Lt,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    integer,
)
from indexalg.ranges import RangeSpec
from indexalg.testing.exhaustive import domain_points, exact_range
from indexalg.testing.strategies import _call_text, _check_int_at_least, _lazy, _symbol_names

__all__ = [
    "adversarial_cases",
    "adversarial_claims",
    "adversarial_exprs",
    "adversarial_ranges",
]

_VARIABLES = ("x", "y")
_SIZES = ("s0",)
_FREE = ("u",)

#: How many points a case may have (more: the ranges are drawn again).
MAX_POINTS = 4000

_SMALL = st.integers(-3, 3)
# Constants of steps: mostly small, sometimes past int32 / int64 or hundreds of digits (no
# float, no digit limit anywhere in the library).
_BIG = (2**31, 2**31 - 1, -(2**63), 2**64 + 1, 10**40, -(10**400) - 7)
_CONST = st.one_of(_SMALL, _SMALL, _SMALL, st.sampled_from(_BIG))
_DIV = st.sampled_from((2, 3, 4, 8, 1, -1, -2, -3, 5, 16))
_POS = st.sampled_from((2, 3, 4, 8, 1, 5, 16))
_COEF = st.sampled_from((1, -1, 2, -2, 3, 8))
_CMPS: tuple[Callable[[Expr, Expr], Expr], ...] = (Lt.make, Le.make, Eq.make, Ne.make)
_CMP = st.sampled_from(_CMPS)


class _Pool:
    """The leaves and the steps built so far; picks favour the latest entries."""

    def __init__(self, leaves: list[Expr]) -> None:
        self.items = list(leaves)

    def pick(self, draw: st.DrawFn) -> Expr:
        # Generation favours the latest entries (chains of shared subterms); examples
        # shrink towards the first leaf.
        if draw(st.booleans()):
            return self.items[-1]
        return self.items[draw(st.integers(0, len(self.items) - 1))]


def _lowered(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    a = p.pick(draw)
    c = draw(_POS)
    form = draw(st.integers(0, 3))
    if form == 0:
        return a - c * FloorDiv(a, c)  # Inductor's a % c
    if form == 1:
        return a - FloorDiv(a, c)  # decorrelation
    if form == 2:
        return c * FloorDiv(a, c) + Mod(a, c)  # == a
    return a - c * FloorDiv(a, c) + FloorDiv(a, c)


def _product(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    a = p.pick(draw)
    b = a if draw(st.booleans()) else p.pick(draw)  # a repeated factor half the time
    return a * b if draw(st.integers(0, 3)) else draw(_COEF) * a * b


def _linear(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    return draw(_COEF) * p.pick(draw) + draw(_COEF) * p.pick(draw) + draw(_CONST)


def _division(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    a = p.pick(draw)
    kind = draw(st.integers(0, 4))
    form = draw(st.integers(0, 2))
    if form == 0:
        d: Expr = integer(draw(_DIV if kind != 3 else _POS))
    elif form == 1 and g.sizes:
        d = draw(st.sampled_from(g.sizes))
    else:
        d = p.pick(draw)  # may be 0 somewhere: those points are undefined
    if kind == 0:
        return FloorDiv(a, d)
    if kind == 1:
        return Mod(a, d)
    if kind == 2:
        return CeilDiv(a, d)
    if kind == 3:
        m = (
            integer(draw(_POS))
            if draw(st.booleans()) or not g.sizes
            else draw(st.sampled_from(g.sizes))
        )
        return ModularIndexing(a, d, m)
    return CleanDiv(a * d, d) if draw(st.booleans()) else CleanDiv(a, d)


def _minmax(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    a = p.pick(draw)
    b = p.pick(draw) if draw(st.booleans()) else integer(draw(_CONST))
    return Min(a, b) if draw(st.booleans()) else Max(a, b)


def _condition(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    lhs = draw(st.sampled_from(g.cond_symbols)) if draw(st.booleans()) else p.pick(draw)
    rhs = integer(draw(_SMALL)) if draw(st.booleans()) else p.pick(draw)
    c = draw(_CMP)(lhs, rhs)
    form = draw(st.integers(0, 5))
    if form == 4:
        return Not.make(c)
    if form == 5:
        other = draw(_CMP)(draw(st.sampled_from(g.cond_symbols)), integer(draw(_SMALL)))
        return And.make(c, other) if draw(st.booleans()) else Or.make(c, other)
    return c


def _where(draw: st.DrawFn, p: _Pool, g: _Gen) -> Expr:
    c = _condition(draw, p, g)
    return Where(c, p.pick(draw), p.pick(draw))


_STEPS: tuple[Callable[[st.DrawFn, _Pool, _Gen], Expr], ...] = (
    _product,
    _linear,
    _lowered,
    _division,
    _minmax,
    _where,
)
_STEP = st.sampled_from(_STEPS)


class _Gen:
    def __init__(
        self, variables: tuple[str, ...], sizes: tuple[str, ...], free: tuple[str, ...]
    ) -> None:
        self.variables = tuple(Symbol(n) for n in variables)
        self.sizes = tuple(Symbol(n) for n in sizes)
        self.free = tuple(Symbol(n) for n in free)
        self.cond_symbols = self.variables + self.sizes + self.free
        self.leaves = [*self.variables, *self.sizes]


@st.composite
def _expr(draw: st.DrawFn, g: _Gen, steps: int) -> Expr:
    pool = _Pool(list(g.leaves))
    n = draw(st.integers(1, steps))
    for _ in range(n):
        try:
            pool.items.append(draw(_STEP)(draw, pool, g))
        except IndexAlgError:  # a step folded to a literal divisor 0 (or < 1 for ModIdx)
            reject()
    last = pool.items[-1]
    if draw(st.integers(0, 2)) == 2:
        # combine the result with an entry: a shared subterm occurs twice
        other = pool.pick(draw)
        last = last * other if draw(st.booleans()) else last - other
    return last


def _check_gen(
    variables: object, sizes: object, free: object, max_steps: object
) -> tuple[_Gen, int]:
    names = _symbol_names(variables, "variables", allow_empty=False)
    size_names = _symbol_names(sizes, "sizes", allow_empty=True)
    free_names = _symbol_names(free, "free", allow_empty=True)
    from hypothesis.errors import InvalidArgument

    every = [*names, *size_names, *free_names]
    if len(set(every)) != len(every):
        raise InvalidArgument(
            f"variables, sizes and free must be disjoint, got {names}, {size_names}, {free_names}"
        )
    steps = _check_int_at_least(max_steps, 1, "max_steps")
    return _Gen(names, size_names, free_names), steps


def adversarial_exprs(
    *,
    variables: Sequence[str | Expr] = _VARIABLES,
    sizes: Sequence[str | Expr] = _SIZES,
    free: Sequence[str | Expr] = _FREE,
    max_steps: int = 6,
) -> SearchStrategy[Expr]:
    """Integer expressions built in at most ``max_steps`` steps (``>= 1``), each step
    combining the leaves (``variables`` and ``sizes``) and earlier steps: sums, products
    (often of a step with itself), lowered remainders and halves (``t - 2*(t // 2)``,
    ``t - t // 4``), divisions by literals of either sign, by sizes and by other steps
    (which may be 0 somewhere), ModularIndexing, Min/Max and Where; constants are small,
    sometimes past int32 and int64 or hundreds of digits long.  Where conditions
    compare a variable, a size, a ``free`` symbol (meant to stay unranged) or a step with a
    constant or a step.  Shrinks towards one step, a square of the first variable (``x*x``).
    """
    call = _call_text(
        "adversarial_exprs",
        [
            ("variables", variables, _VARIABLES),
            ("sizes", sizes, _SIZES),
            ("free", free, _FREE),
            ("max_steps", max_steps, 6),
        ],
    )

    def build() -> SearchStrategy[Expr]:
        g, steps = _check_gen(variables, sizes, free, max_steps)
        return _expr(g, steps)

    return _lazy(call, build)


@st.composite
def _claim(draw: st.DrawFn, g: _Gen, steps: int) -> Expr:
    e = draw(_expr(g, steps))
    cmp = draw(_CMP)
    form = draw(st.integers(0, 3))
    if form == 0:
        other: Expr = draw(_expr(g, steps))
    else:
        other = integer(draw(_SMALL))  # replaced by a tight constant in adversarial_cases
    c = cmp(e, other)
    if draw(st.integers(0, 4)) == 0:
        c = Not.make(c)
    return c


def adversarial_claims(
    *,
    variables: Sequence[str | Expr] = _VARIABLES,
    sizes: Sequence[str | Expr] = _SIZES,
    free: Sequence[str | Expr] = _FREE,
    max_steps: int = 4,
) -> SearchStrategy[Expr]:
    """Comparisons (``<``, ``<=``, ``==``, ``!=``, sometimes negated) of an expression from
    :func:`adversarial_exprs` with another or with a small constant."""
    call = _call_text(
        "adversarial_claims",
        [
            ("variables", variables, _VARIABLES),
            ("sizes", sizes, _SIZES),
            ("free", free, _FREE),
            ("max_steps", max_steps, 4),
        ],
    )

    def build() -> SearchStrategy[Expr]:
        g, steps = _check_gen(variables, sizes, free, max_steps)
        return _claim(g, steps)

    return _lazy(call, build)


# --- ranges -------------------------------------------------------------------------------

_SIZE_RANGES: tuple[RangeSpec, ...] = (
    (1, 4),
    (1, 1),
    (3, 3),
    (2, 5),
    (1, None),
    (3, None),
    (1, 6),
    (2, 8),
    (1, 12),
)


def _variable_range(
    draw: st.DrawFn, name: str, earlier: Sequence[str], sizes: Sequence[str]
) -> RangeSpec | None:
    form = draw(st.integers(0, 7))
    if form <= 2 or (form >= 5 and not sizes):
        lo = draw(st.integers(-8, 8))
        return (lo, lo + draw(st.integers(0, 16)))  # small, singleton or negative
    if form == 3:
        return draw(st.integers(1, 16))  # 0 <= v < n
    if form == 4:
        open_lo = draw(st.booleans())
        k = draw(st.integers(-3, 3))
        return (None, k) if open_lo else (k, None)
    s = draw(st.sampled_from(sizes))
    if form == 5:
        shapes: tuple[RangeSpec, ...] = (
            s,
            (1, s),
            (f"{s} - 2", f"{s} + 1"),
            (f"-{s}", s),
            (f"1 - {s}", 0),
            (s, f"2*{s}"),
            # non-linear bounds
            (0, f"{s}*{s} - 1"),
            (f"-({s} // 2)", f"CeilDiv({s}, 3)"),
            (f"{s} % 3", f"Min({s}, 4)"),
            (f"Max(1, {s} - 4)", f"{s}*{s} // 3"),
        )
        return draw(st.sampled_from(shapes))
    if form == 6 and earlier:
        v = draw(st.sampled_from(earlier))
        over: tuple[RangeSpec, ...] = (
            (f"{v} - 2", v),
            (v, f"{v} + 3"),
            (0, v),
            (f"-{v}", f"{v} // 2"),
            (0, f"{v}*{v}"),
        )
        return draw(st.sampled_from(over))
    return (f"{s} - 3", draw(st.integers(-1, 2)))  # may be empty for some sizes


#: Rarely, a size with no range (any integer: issue 16's {"y": "s1"}) or one reaching below 1.
_ODD_SIZES: tuple[RangeSpec | None, ...] = (None, (-2, 3), (0, 2))


@st.composite
def _ranges(
    draw: st.DrawFn, variables: tuple[str, ...], sizes: tuple[str, ...]
) -> dict[str, RangeSpec]:
    out: dict[str, RangeSpec] = {}
    for i, n in enumerate(variables):
        spec = _variable_range(draw, n, variables[:i], sizes)
        if spec is not None:
            out[n] = spec
    for s in sizes:
        if draw(st.integers(0, 7)) == 7:
            odd = draw(st.sampled_from(_ODD_SIZES))
            if odd is not None:
                out[s] = odd
            continue
        out[s] = draw(st.sampled_from(_SIZE_RANGES))
    return out


def adversarial_ranges(
    variables: Sequence[str | Expr] = _VARIABLES,
    *,
    sizes: Sequence[str | Expr] = _SIZES,
) -> SearchStrategy[dict[str, RangeSpec]]:
    """Ranges for ``variables`` and ``sizes`` (free symbols get none): small numeric
    intervals (singletons, negative), ``0 <= v < n``, one open side, symbolic shapes in a
    size (``v < s0``, ``s0 - 2 <= v <= s0 + 1``, ``-s0 <= v <= s0``, and non-linear ones:
    ``v <= s0*s0 - 1``, ``-(s0 // 2) <= v <= CeilDiv(s0, 3)``, ...), a range over an earlier
    variable (``x - 2 <= y <= x``, ``0 <= y <= x*x``) and ranges empty for some sizes.  Sizes mostly
    get a lower bound >= 1: ``(1, 4)``, singletons, ``(1, None)``, ``(3, None)``; one in eight
    gets no range (any integer), ``(-2, 3)`` or ``(0, 2)``."""
    call = _call_text(
        "adversarial_ranges",
        [("variables", variables, _VARIABLES), ("sizes", sizes, _SIZES)],
    )

    def build() -> SearchStrategy[dict[str, RangeSpec]]:
        names = _symbol_names(variables, "variables", allow_empty=True)
        size_names = _symbol_names(sizes, "sizes", allow_empty=True)
        return _ranges(names, size_names)

    return _lazy(call, build)


# --- cases --------------------------------------------------------------------------------

Case = tuple[Expr, dict[str, RangeSpec], list[dict[str, int]]]


@st.composite
def _case(
    draw: st.DrawFn,
    terms: SearchStrategy[Expr],
    table: SearchStrategy[dict[str, RangeSpec]],
    tighten: bool,
) -> Case:
    e = draw(terms)
    r = draw(table)
    dom = domain_points(r, variables=e.free_symbols, window=4, limit=MAX_POINTS)
    if dom is None:
        reject()
    assert dom is not None
    points = dom[0]
    if tighten and len(e.args) == 2 and type(e).__name__ in ("Lt", "Le", "Eq", "Ne"):
        # compare with a constant at (or next to) the exact bound: the claims an unsound
        # analysis gets wrong
        lhs, rhs = e.args
        if not rhs.free_symbols and points:
            ex = exact_range(lhs, points, tuple(sorted(points[0])))
            if ex is not None:
                k = draw(st.sampled_from((ex[0], ex[1], ex[0] - 1, ex[1] + 1, ex[0] + 1)))
                e = type(e).make(lhs, k)  # type: ignore[attr-defined]
    return e, r, points


def adversarial_cases(
    *,
    claims: bool = False,
    variables: Sequence[str | Expr] = _VARIABLES,
    sizes: Sequence[str | Expr] = _SIZES,
    free: Sequence[str | Expr] = _FREE,
    max_steps: int = 5,
) -> SearchStrategy[Case]:
    """``(expression, ranges, points)`` (a claim when ``claims``) with every point of the
    expression's domain (open sides and unranged symbols windowed to 4 values beyond;
    ranges giving more than :data:`MAX_POINTS` points are drawn again).  A claim comparing
    with a constant compares with one at or next to the exact bound of the other side."""
    call = _call_text(
        "adversarial_cases",
        [
            ("claims", claims, False),
            ("variables", variables, _VARIABLES),
            ("sizes", sizes, _SIZES),
            ("free", free, _FREE),
            ("max_steps", max_steps, 5),
        ],
    )

    def build() -> SearchStrategy[Case]:
        if not isinstance(claims, bool):
            from hypothesis.errors import InvalidArgument

            raise InvalidArgument(f"Expected bool but got claims={claims!r}")
        kw: dict[str, Any] = {"variables": variables, "sizes": sizes, "free": free}
        terms = (
            adversarial_claims(max_steps=max_steps, **kw)
            if claims
            else adversarial_exprs(max_steps=max_steps, **kw)
        )
        return _case(terms, adversarial_ranges(variables, sizes=sizes), claims)

    return _lazy(call, build)
