"""And / Or of comparisons on the same linear form, merged into one range per form.

Each comparison argument is read in the normal form of :mod:`indexalg.procedures.compare`
and keyed by its terms (sign fixed so that the first coefficient is positive): it says the
form ``Q`` lies in an interval, or (``!=``) avoids a point.  Under And the intervals of one
form intersect (empty: False), under Or they unite when they touch (everything: True), and
an excluded point inside or outside the range is dropped or decides the claim.

Under And two facts of integer division join the ranges: ``x // c == q`` with
``lo <= x % c <= hi`` is ``c*q + lo <= x <= c*q + hi`` (TVM's ``x == 28``), and a range of
``x`` is narrowed to the values whose remainder ``x % c`` is allowed.  A result is kept
only when it measures less than the claim (:func:`size`), so merging terminates.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import gcd

from indexalg.analysis.context import Context
from indexalg.expr import (
    And,
    Expr,
    FloorDiv,
    Integer,
    Lt,
    ModularIndexing,
    Ne,
    Or,
    add,
    false,
    mul,
    true,
)
from indexalg.poly import split_terms
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.compare import claim_from_form, linear_form
from indexalg.procedures.size import size

__all__ = ["JUNCTION_PROCEDURES"]

Key = tuple[tuple[int, Expr], ...]
#: An interval with None for an open side, and the points excluded from it.
Bound = tuple[int | None, int | None]


class _Group:
    __slots__ = ("lo", "hi", "holes")

    def __init__(self) -> None:
        self.lo: int | None = None
        self.hi: int | None = None
        self.holes: list[int] = []


def _read(e: Expr, ctx: Context) -> tuple[Key, Bound | None, int | None] | None:
    """(key, interval, None) or (key, None, excluded point) for a comparison."""
    form = linear_form(e, ctx)
    if form is None or isinstance(form, bool):
        return None
    terms, kind, k = form
    s = 1 if terms[0][0] > 0 else -1
    key = tuple((c * s, m) for c, m in terms)
    if kind == "eq":
        m = k * s
        return (key, None, m) if type(e) is Ne else (key, (m, m), None)
    return key, ((k, None) if s == 1 else (None, -k)), None


def _claims(key: Key, lo: int | None, hi: int | None) -> list[Expr]:
    """The comparisons saying ``lo <= Q <= hi`` (the upper one as ``Q < hi + 1``)."""
    if lo is not None and lo == hi:
        return [claim_from_form((key, "eq", lo))]
    out = []
    if lo is not None:
        out.append(claim_from_form((key, "ge", lo)))
    if hi is not None:
        out.append(claim_from_form((tuple((-c, m) for c, m in key), "ge", -hi), prefer=Lt))
    return out


def _max(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else max(a, b)


def _min(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _and_groups(groups: dict[Key, _Group]) -> bool:
    """Intersect in place; False when some form has no value left."""
    for g in groups.values():
        changed = True
        while changed:
            changed = False
            for h in list(g.holes):
                if (g.lo is not None and h < g.lo) or (g.hi is not None and h > g.hi):
                    g.holes.remove(h)
                elif h == g.lo:
                    g.lo, changed = h + 1, True
                    g.holes.remove(h)
                elif h == g.hi:
                    g.hi, changed = h - 1, True
                    g.holes.remove(h)
        if g.lo is not None and g.hi is not None and g.lo > g.hi:
            return False
    return True


def merge_and(e: Expr, ctx: Context) -> Expr | None:
    """And of comparisons: one range per linear form (see the module docstring)."""
    groups: dict[Key, _Group] = {}
    others: list[Expr] = []
    for a in e.args:
        r = _read(a, ctx)
        if r is None:
            others.append(a)
            continue
        key, bound, hole = r
        g = groups.setdefault(key, _Group())
        if bound is None:
            g.holes.append(hole)  # type: ignore[arg-type]
        else:
            g.lo, g.hi = _max(g.lo, bound[0]), _min(g.hi, bound[1])
    if not _and_groups(groups):
        return false
    _join_quotient_remainder(groups)
    _narrow_by_remainder(groups)
    parts = list(others)
    for key, g in groups.items():
        parts.extend(_claims(key, g.lo, g.hi))
        parts.extend(Ne.make(add(*(mul(c, m) for c, m in key)), h) for h in sorted(g.holes))
    return _smaller(e, And.make(*parts))


def _smaller(e: Expr, out: Expr) -> Expr | None:
    if out is e or (out.args and size(out) >= size(e)):
        return None
    return out


def _single(key: Key) -> Expr | None:
    return key[0][1] if len(key) == 1 and key[0][0] == 1 else None


def _join_quotient_remainder(groups: dict[Key, _Group]) -> None:
    """``x // c == q`` and ``lo <= x % c <= hi``: ``c*q + lo <= x <= c*q + hi``."""
    for key in list(groups):
        q = _single(key)
        g = groups.get(key)
        if q is None or g is None or type(q) is not FloorDiv or g.holes:
            continue
        x, c = q.args
        if type(c) is not Integer or c.payload <= 0 or g.lo is None or g.lo != g.hi:
            continue
        cv: int = c.payload
        rkey: Key = ((1, ModularIndexing.make(x, 1, cv)),)
        r = groups.get(rkey)
        xkey = _key_of(x)
        if r is None or r.holes or xkey is None:
            continue
        lo = cv * g.lo + max(0, r.lo if r.lo is not None else 0)
        hi = cv * g.lo + min(cv - 1, r.hi if r.hi is not None else cv - 1)
        (s, const), xk = xkey
        del groups[key], groups[rkey]
        xg = groups.setdefault(xk, _Group())
        # Q = s*(x - const): x in [lo, hi]  <=>  Q in s*[lo - const, hi - const]
        lo_q, hi_q = (lo - const, hi - const) if s == 1 else (const - hi, const - lo)
        xg.lo, xg.hi = _max(xg.lo, lo_q), _min(xg.hi, hi_q)


def _key_of(x: Expr) -> tuple[tuple[int, int], Key] | None:
    """``((s, const), key)`` with ``x == s*Q + const`` and Q the form of ``key`` (gcd 1)."""
    terms, const = split_terms(x)
    if not terms:
        return None
    g = 0
    for c, _ in terms:
        g = gcd(g, c)
    if g != 1:
        return None
    s = 1 if terms[0][0] > 0 else -1
    return (s, const), tuple((c * s, m) for c, m in terms)


def _narrow_by_remainder(groups: dict[Key, _Group]) -> None:
    """A range of a single term ``x`` narrowed to the values whose ``x % c`` is allowed."""
    for key, r in list(groups.items()):
        q = _single(key)
        if q is None or type(q) is not ModularIndexing or r.holes:
            continue
        x, d, cm = q.args
        if type(d) is not Integer or d.payload != 1 or type(cm) is not Integer:
            continue
        g = groups.get(((1, x),))
        if g is None:
            continue
        c: int = cm.payload
        rlo = max(0, r.lo if r.lo is not None else 0)
        rhi = min(c - 1, r.hi if r.hi is not None else c - 1)
        if rlo > rhi:
            continue
        if g.hi is not None:
            g.hi = _nearest(g.hi, -1, rlo, rhi, c)
        if g.lo is not None:
            g.lo = _nearest(g.lo, 1, rlo, rhi, c)


def _nearest(v: int, step: int, rlo: int, rhi: int, c: int) -> int:
    """The first value from ``v`` in direction ``step`` whose remainder mod c is allowed."""
    for _ in range(c):
        if rlo <= v % c <= rhi:
            return v
        v += step
    return v


def merge_or(e: Expr, ctx: Context) -> Expr | None:
    """Or of comparisons: ranges of one linear form united where they touch."""
    ranges: dict[Key, list[Bound]] = {}
    holes: dict[Key, list[int]] = {}
    others: list[Expr] = []
    for a in e.args:
        r = _read(a, ctx)
        if r is None:
            others.append(a)
        elif r[1] is None:
            holes.setdefault(r[0], []).append(r[2])  # type: ignore[arg-type]
        else:
            ranges.setdefault(r[0], []).append(r[1])
    parts = list(others)
    for key in [*ranges, *(k for k in holes if k not in ranges)]:
        united = _unite(ranges.get(key, []))
        hs = sorted(set(holes.get(key, ())))
        if len(hs) > 1 or any(_covers(united, h) for h in hs) or (None, None) in united:
            return true
        if hs:
            parts.append(Ne.make(add(*(mul(c, m) for c, m in key)), hs[0]))
            continue
        for lo, hi in united:
            claims = _claims(key, lo, hi)
            parts.append(claims[0] if len(claims) == 1 else And.make(*claims))
    return _smaller(e, Or.make(*parts))


def _covers(united: Iterable[Bound], h: int) -> bool:
    return any((lo is None or lo <= h) and (hi is None or h <= hi) for lo, hi in united)


def _unite(bounds: list[Bound]) -> list[Bound]:
    """Union of integer intervals, touching ones merged, ordered by lower end."""
    order = sorted(bounds, key=lambda b: (b[0] is not None, b[0] or 0))
    out: list[Bound] = []
    for lo, hi in order:
        if out:
            plo, phi = out[-1]
            if phi is None or lo is None or lo <= phi + 1:
                out[-1] = (plo, None if phi is None or hi is None else max(phi, hi))
                continue
        out.append((lo, hi))
    return out


JUNCTION_PROCEDURES = (
    Procedure("merge_and", (And,), merge_and, _module_doc(__name__)),
    Procedure("merge_or", (Or,), merge_or, _module_doc(__name__)),
)
