"""Loop-level procedures: floor-division expansion and loop joining.

``expand_floor_div``: ``A + B // q == (q*A + B) // q`` for integer-valued A and q > 0.  On
its own it changes nothing worth having; it pays when the expanded numerator is a fused
index.  That is what loop joining finds: Inductor's int8 unpack reads ``x1*1024 + x2//2``
while writing ``2048*x1 + x2``; joining (x1, x2) into one loop variable z turns the read
into ``z // 2`` and the write into ``z`` (the transformation that made Inductor's kernel
1.54x faster).

``join_loops`` merges adjacent loop variables (outer x_i of size n_i, inner x_j of size n_j)
into z in [0, n_i*n_j) by substituting ``x_i = z // n_j`` and ``x_j = z mod n_j`` into every
index and simplifying; a join is kept only when no index gets more operations.  Each kept
join is exact (a bijection of the iteration space), and the tests check it by translation
validation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from indexalg.errors import RangeError
from indexalg.expr import (
    Add,
    Expr,
    FloorDiv,
    Integer,
    ModularIndexing,
    Mul,
    Symbol,
    add,
    mul,
)
from indexalg.simplify import simplify

__all__ = ["expand_floor_div", "join_loops", "LoopJoin"]


def expand_floor_div(e: Expr) -> tuple[Expr, Expr] | None:
    """``(numerator, q)`` with ``e == numerator // q`` when e is a sum with exactly one
    floor-division term ``B // q`` (coefficient 1, literal q > 0); None otherwise."""
    if type(e) is not Add:
        return None
    div: Expr | None = None
    rest: list[Expr] = []
    for t in e.args:
        if type(t) is FloorDiv and type(t.args[1]) is Integer and t.args[1].payload > 0:
            if div is not None:
                return None
            div = t
        else:
            rest.append(t)
    if div is None:
        return None
    b, q = div.args
    return add(mul(q, add(e.payload, *rest)), b), q


@dataclass
class LoopJoin:
    """The result of :func:`join_loops`."""

    #: loop variable -> size, outermost first, after joining
    ranges: dict[str, int]
    #: the indices rewritten over the joined variables
    indices: list[Expr]
    #: (outer, inner, joined) names for each join made, in order
    joined: list[tuple[str, str, str]] = field(default_factory=list)


def join_loops(indices: Sequence[Expr], loops: Mapping[str, int]) -> LoopJoin:
    """Join adjacent loops (``loops``: name -> size, outermost first) wherever every index
    keeps or lowers its operation count."""

    names = list(loops)
    sizes = dict(loops)
    for n, s in sizes.items():
        if not isinstance(s, int) or isinstance(s, bool) or s < 1:
            raise RangeError(f"loop {n!r} needs a positive integer size, got {s!r}")
    current = [simplify(e, sizes) for e in indices]
    joined: list[tuple[str, str, str]] = []
    i = 0
    while i + 1 < len(names):
        outer, inner = names[i], names[i + 1]
        n_inner = sizes[inner]
        z_name = _fresh(f"{outer}_{inner}", sizes)
        z = Symbol(z_name)
        mapping: dict[Expr, Expr] = {
            Symbol(outer): FloorDiv.make(z, n_inner),
            Symbol(inner): ModularIndexing.make(z, 1, n_inner),
        }
        new_sizes = {k: v for k, v in sizes.items() if k not in (outer, inner)}
        new_sizes[z_name] = sizes[outer] * n_inner
        trial = [simplify(e.subs(dict(mapping)), new_sizes) for e in current]
        if all(_cost(t) <= _cost(e) for t, e in zip(trial, current)) and any(
            _cost(t) < _cost(e) for t, e in zip(trial, current)
        ):
            current = trial
            names[i : i + 2] = [z_name]
            sizes = {n: (new_sizes[n]) for n in names}
            joined.append((outer, inner, z_name))
            continue  # try joining z with the next loop
        i += 1
    return LoopJoin({n: sizes[n] for n in names}, current, joined)


def _cost(e: Expr) -> tuple[int, int]:
    divmods = sum(1 for n in e.walk() if n.args and type(n) not in (Add, Mul))
    return divmods, e.count_ops()


def _fresh(base: str, taken: Mapping[str, int]) -> str:
    name = base
    k = 0
    while name in taken:
        k += 1
        name = f"{base}_{k}"
    return name
