"""A result may not depend on what was simplified before it in the process.

The library memoises between calls (contexts per ranges with their interval, condition and
simplification tables; a process-wide result memo).  A memo that stores a one-sided or
query-state-dependent answer under a key too coarse for it makes a result depend on the
order of the calls: sound, perhaps, but not deterministic.  Here the same calls are made in
three orders, with every cache cleared before each order, and the outputs must be equal.
The calls mix ranged and range-free simplifications, and the lane-to-lane differences
``f(v + 1) - f(v)`` / ``f(1) - f(0)`` that the Triton companion asks for, which share
subexpressions with the ranged calls.
"""

from __future__ import annotations

import random
from typing import Any

from prop_support import fixed_cases

import indexalg as ia
from indexalg.expr import Expr, Integer, Symbol

COUNT = 400

Call = tuple[Expr, Any]


def calls() -> list[Call]:
    """COUNT generated cases, each with its lane differences, the same on every run."""
    out: list[Call] = []
    for e, r in fixed_cases(COUNT):
        out.append((e, r))
        if e.is_bool:
            continue
        for v in sorted(e.free_symbols, key=lambda s: s.name)[:2]:
            assert type(v) is Symbol
            try:  # a substituted value may divide by zero
                out.append((e.subs({v: Integer(1)}) - e.subs({v: Integer(0)}), None))
                out.append((e.subs({v: v + 1}) - e, r))
            except ia.IndexAlgError:
                continue
    return out


def run(calls: list[Call], order: list[int]) -> list[str]:
    """The outputs of ``calls`` made in ``order``, listed in the calls' own order."""
    ia.clear_caches()
    out = [""] * len(calls)
    for i in order:
        e, r = calls[i]
        try:
            out[i] = str(ia.simplify(e, r))
        except ia.IndexAlgError as err:
            out[i] = "error: " + type(err).__name__
    return out


def test_results_do_not_depend_on_the_order_of_calls() -> None:
    base = calls()
    assert len(base) > COUNT
    forward = run(base, list(range(len(base))))
    for seed in (1, 2):
        order = list(range(len(base)))
        random.Random(seed).shuffle(order)
        other = run(base, order)
        diff = [i for i, (a, b) in enumerate(zip(forward, other)) if a != b]
        assert not diff, (
            f"{len(diff)} results changed with the order of calls (seed {seed}); the first: "
            f"{base[diff[0]][0]} under {base[diff[0]][1]!r}: {forward[diff[0]]} / {other[diff[0]]}"
        )
    ia.clear_caches()
