"""Floor divisions and remainders traded for each other where terms cancel.

``c*(x // c) == x - x % c`` for any ``c != 0``: in a sum, a term ``q*(x // c)`` with ``c | q``
becomes ``(q/c)*x - (q/c)*(x % c)`` where the ``x`` cancels or merges with the rest of the sum
(TVM's ``y - ((y - 6) // 5)*5`` is ``(y - 6) % 5 + 6``).  In the dividend of a division or
remainder by ``c``, a term ``k*(x % d)`` becomes ``k*x - k*d*(x // d)`` where that leaves
multiples of ``c`` to pull out (``(x - x % 21) // 21`` is ``x // 21``; ``(x - x % y) % y``
is 0).  :func:`without_floors` is the first trade for any sum (the comparison normal form
uses it on ``b - a``); every result measures less than its input.
"""

from __future__ import annotations

from indexalg.analysis.context import Context
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    Mod,
    ModularIndexing,
    add,
    mul,
)
from indexalg.poly import divide_exact, has_term_of, split_terms, term_factors, term_parts
from indexalg.procedures.base import Procedure, _module_doc
from indexalg.procedures.size import size

__all__ = ["FLOOR_PROCEDURES", "without_floors"]

_ONE = Integer(1)
_TWO = Integer(2)


def _remainder(x: Expr, c: Expr) -> Expr:
    if type(c) is Integer and c.payload > 0:
        return ModularIndexing.make(x, 1, c)
    return Mod.make(x, c)


def without_floors(s: Expr) -> Expr:
    """``s`` with each ``q*(x // c)`` (literal ``c``, ``c | q``) read as
    ``(q/c)*(x - x % c)`` where that makes the sum smaller; ``s`` itself otherwise."""
    if type(s) is not Add or not has_term_of(s, (FloorDiv,)):
        return s
    best: Expr = s
    for t in s.args:
        k, m = term_parts(t)
        if type(m) is not FloorDiv:
            continue
        x, c = m.args
        if type(c) is not Integer or c.payload == 0 or k % c.payload:
            continue
        r = k // c.payload
        rest = add(s, mul(-k, m))
        if not _meets(rest, mul(r, x)):
            continue
        cand = add(rest, mul(r, x), mul(-r, _remainder(x, c)))
        if size(cand) < size(best):
            best = cand
    return best


def _meets(rest: Expr, part: Expr) -> bool:
    """Whether some term of ``part`` cancels or merges with a term of ``rest``: the trade
    is for sums where the dividend meets the rest.  A digit ``4096*(x // 256)`` beside
    ``x % 256`` alone would become ``16*x - 15*(x % 256)``: one division fewer, but the
    mixed-radix form that code generators read strides and contiguity from is lost (a
    Triton load of ``256*r + 4096*x - 4095*(x % 256)`` runs 1.5x slower on an H200 than
    the same load of ``256*r + 1048576*(x // 256) + x % 256``: issue 25's models suite)."""
    rest_terms, _ = split_terms(rest)
    part_terms, _ = split_terms(part)
    joined, _ = split_terms(add(rest, part))
    return len(joined) < len(rest_terms) + len(part_terms)


def floors_in_sum(e: Expr, ctx: Context) -> Expr | None:
    """A sum's ``q*(x // c)`` traded for ``x % c`` (see the module docstring)."""
    out = without_floors(e)
    return None if out is e else out


def remainders_in_dividend(e: Expr, ctx: Context) -> Expr | None:
    """A dividend's ``k*(x % d)`` traded for ``k*x - k*d*(x // d)`` where multiples of the
    divisor come out of it."""
    if type(e) is ModularIndexing:
        a, d, c = e.args
        if d is not _ONE:
            return None
    else:
        a, c = e.args
    if type(a) is not Add or not has_term_of(a, (ModularIndexing, Mod)):
        return None  # the loop below reads only a multiple of one remainder
    best: Expr | None = None
    for t in a.args:
        k, m = term_parts(t)
        if type(m) is ModularIndexing and m.args[1] is _ONE:
            x, dd = m.args[0], m.args[2]
        elif type(m) is Mod:
            x, dd = m.args
        else:
            continue
        cand_a = add(a, mul(-k, m), mul(k, x), mul(-k, dd, FloorDiv.make(x, dd)))
        cand = _pull(e, cand_a, c)
        if cand is not None and size(cand) < size(best if best is not None else e):
            best = cand
    return best


def _pull(e: Expr, a: Expr, c: Expr) -> Expr | None:
    """``e``'s operation on ``a`` with the multiples of ``c`` taken out of ``a`` (None when
    there are none)."""
    terms, const = split_terms(a)
    whole: list[Expr] = []
    rest: list[Expr] = []
    for k, m in terms:
        q = divide_exact(mul(k, m), c)
        if q is None:
            rest.append(mul(k, m))
        else:
            whole.append(q)
    if type(c) is Integer and const % c.payload == 0:
        whole.append(Integer(const // c.payload))
    else:
        rest.append(Integer(const))
    if not whole:
        return None
    r = add(*rest)
    if type(r) is Integer and r.payload == 0 and type(e) is not FloorDiv:
        return r  # 0 % c is 0 wherever e is defined
    if type(e) is FloorDiv:
        return add(*whole, FloorDiv.make(r, c))
    return ModularIndexing.make(r, 1, c) if type(e) is ModularIndexing else Mod.make(r, c)


def _floor_terms(e: Expr) -> list[tuple[int, int, Expr, int, int]]:
    """(index, coefficient, dividend's terms as a sum, dividend's constant, c) of each
    ``k*(a // c)`` term of the sum ``e`` with a literal ``c > 1`` whose ``c`` another such
    term shares: a term alone with its ``c`` is in no Hermite group (of c >= 2 members) and
    no shifted pair, so its dividend is not rebuilt."""
    found: list[tuple[int, int, Expr, int]] = []
    for i, t in enumerate(e.args):
        k, m = term_factors(t)
        if len(m) != 1:
            continue
        f = m[0]
        if type(f) is FloorDiv and type(f.args[1]) is Integer and f.args[1].payload > 1:
            found.append((i, k, f.args[0], f.args[1].payload))
    out: list[tuple[int, int, Expr, int, int]] = []
    if len(found) < 2:
        return out
    divisors = [c for _, _, _, c in found]
    for i, k, a, c in found:
        if divisors.count(c) > 1:
            terms, const = split_terms(a)
            out.append((i, k, add(*(mul(q, x) for q, x in terms)), const, c))
    return out


def floor_sums(e: Expr, ctx: Context) -> Expr | None:
    """Sums of floor divisions of one sum shifted by constants.

    Hermite's identity: ``(x + a_1) // c + ... + (x + a_c) // c`` with the ``a_i`` covering
    every residue mod c is ``x + sum((a_i - (a_i mod c)) / c)`` (tinygrad's unrolled
    aranges); and ``(x + a) // c - (x + b) // c`` with ``a > b`` is
    ``((x + b) % c + a - b) // c``, read without a division when that is affine in the
    remainder (``(x + 1) // 2 - x // 2`` is ``x % 2``)."""
    if type(e) is not Add or not has_term_of(e, (FloorDiv, ModularIndexing)):
        return None  # no floor division (Hermite, shifted floors), no remainder mod 2
    floors = _floor_terms(e)
    groups: dict[tuple[int, Expr, int], list[tuple[int, int]]] = {}
    for i, k, x, const, c in floors:
        groups.setdefault((k, x, c), []).append((i, const))
    for (k, x, c), members in groups.items():
        residues = {const % c for _, const in members}
        if len(members) == c and len(residues) == c:
            drop = {i for i, _ in members}
            shift = sum((const - const % c) // c for _, const in members)
            out = add(_without(e, drop), mul(k, add(x, shift)))
            if size(out) < size(e):
                return out
    for (k, x, c), members in groups.items():
        for i, a in members:
            for j, b in groups.get((-k, x, c), []):
                if a > b:
                    out = add(_without(e, {i, j}), mul(k, _shifted_floor(x, b, a - b, c)))
                    if size(out) < size(e):
                        return out
    return _mod_two_pairs(e)


def _without(e: Expr, drop: set[int]) -> Expr:
    return add(e.payload, *(t for n, t in enumerate(e.args) if n not in drop))


def _shifted_floor(x: Expr, b: int, d: int, c: int) -> Expr:
    """``(r + d) // c`` for ``r = (x + b) % c`` in ``[0, c - 1]``: affine in r when the
    values are, else as written."""
    r = ModularIndexing.make(add(x, b), 1, c)
    values = [(v + d) // c for v in range(c)]
    slope = values[1] - values[0]
    if all(values[v] == values[0] + slope * v for v in range(c)):
        return add(values[0], mul(slope, r))
    return FloorDiv.make(add(r, d), c)


def _mod_two_pairs(e: Expr) -> Expr | None:
    """``k*((x + a) % 2) + k*((x + b) % 2)`` with ``a - b`` odd is ``k``."""
    n_mods = 0
    for t in e.args:
        fs = term_factors(t)[1]
        if len(fs) == 1 and _is_mod_two(fs[0]):
            n_mods += 1
    if n_mods < 2:
        return None  # no pair: build no dividend
    mods = []
    for i, t in enumerate(e.args):
        k, m = term_parts(t)
        if _is_mod_two(m):
            terms, const = split_terms(m.args[0])
            mods.append((i, k, add(*(mul(q, y) for q, y in terms)), const))
    for n, (i, k, x, a) in enumerate(mods):
        for j, k2, x2, b in mods[n + 1 :]:
            if k2 == k and x2 is x and (a - b) % 2:
                return add(_without(e, {i, j}), k)
    return None


def _is_mod_two(m: Expr) -> bool:
    return type(m) is ModularIndexing and m.args[1] is _ONE and m.args[2] is _TWO


FLOOR_PROCEDURES = (
    Procedure("floors_in_sum", (Add,), floors_in_sum, _module_doc(__name__)),
    Procedure("floor_sums", (Add,), floor_sums, _module_doc(__name__)),
    Procedure(
        "remainders_in_dividend",
        (FloorDiv, Mod, ModularIndexing),
        remainders_in_dividend,
        _module_doc(__name__),
    ),
)
