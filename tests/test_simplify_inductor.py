"""Every simplification PyTorch Inductor's ``test/inductor/test_indexing.py`` asserts, as
table rows indexalg must match or beat.

Each :class:`Case` is one assertion of that file, written in indexalg's syntax: ``before``
(what Inductor is given), ``expected`` (Inductor's answer, spelled in the form torch's own
constructors leave it, e.g. ``FloorDiv(128*i1, 8192)`` is written ``i1 // 64`` because that
is the object Inductor's ``assertEqual`` compares against) and ``ranges`` (Inductor's
``var_ranges``: ``{"i1": 64}`` is ``0 <= i1 < 64``; a sympy ``positive=True`` symbol is
``(1, None)``; a symbol with only ``integer=True`` has no range).  For every row,
``ia.simplify(before, ranges)``

* has the value of ``before`` (and of ``expected``) at every point where ``before`` is
  defined: all points when the ranges are small, else seeded random in-range points with the
  edges of each range over-sampled;
* has no more operations than ``expected``, counted as ``sympy.count_ops`` of the torch
  flavour (``ia.to_sympy(e, flavor="torch")``).  Rows where indexalg still loses carry
  ``missing=...`` and are ``xfail(strict=True)`` on this check only.

Two checks keep the table honest: every ``expected`` is a fixed point of torch's own
constructors (so it is not a weakened spelling), and, with torch's Inductor importable, the
live ``SizeVarAllocator`` (or constructor) returns exactly ``expected``.

Where the file asserts an API indexalg does not have (``expand_floor_div`` returns a
``(numerator, denominator)`` pair; ``_simplify_loops`` merges loop variables), the row tests
the closest behaviour through ``ia.simplify``: the floor-division identity itself, and the
loop join on the fused index that ``_simplify_loops`` produces (the int8-unpack GPU tests).
Inductor answers that are *wrong* are in :data:`INDUCTOR_FAULTS`: indexalg must not copy them.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

import indexalg as ia
from indexalg.errors import InvalidOperationError
from indexalg.expr import Expr, Integer, Symbol
from indexalg.ranges import RangeSpec

# ---------------------------------------------------------------------------------------
# the rows


@dataclass(frozen=True)
class Case:
    """One assertion of Inductor's test file.

    ``inductor`` names how Inductor computes ``expected`` (checked live when torch's Inductor
    imports): ``"simplify_with_ranges"`` (``SizeVarAllocator.simplify_with_ranges`` with the
    integer and symbolic sizes of ``ranges`` as var_ranges), ``"constructor"`` (torch's
    FloorDiv/ModularIndexing evaluation of ``before``), ``"combine_modular_indexing_pairs"``,
    ``"expand_floor_div"`` (``FloorDiv(*expand_floor_div(before, candidates))``),
    ``"expand_floor_div_skipped"`` (it returns False: ``expected`` is ``before``),
    ``"multiple_of"`` (``before`` is ``Mod(a, b)`` and ``statically_known_multiple_of(a, b)``),
    ``"evaluate_min"`` (``before`` is ``Min(a, b)``), ``"guard_or_false"`` (True gives
    ``"True"``, False leaves ``before``), or ``"none"``.
    """

    name: str
    before: str
    expected: str
    ranges: Mapping[str, RangeSpec]
    inductor: str = "simplify_with_ranges"
    candidates: tuple[str, ...] | None = None
    missing: str | None = None


NO_RANGES: Mapping[str, RangeSpec] = {}

# test_indexing_simplification: i0, i1, i2, r3 are integer=True, bounded only by var_ranges.
VR_R3_3: Mapping[str, RangeSpec] = {"i0": 3136, "i1": 64, "i2": 32, "r3": 3}
VR_R3_2: Mapping[str, RangeSpec] = {"i0": 3136, "i1": 64, "i2": 32, "r3": 2}
E_SPLIT = "128*i2 + ModularIndexing(i1, 1, 64) + 64*ModularIndexing(i1 + 64*r3, 64, 2)"

INDEXING_SIMPLIFICATION = [
    # `i1//64` vanishes (i1 < 64); the outer mod 2 stays because r3 reaches 2
    Case(
        "indexing-mod_of_small_base_dropped",
        E_SPLIT,
        "i1 + 128*i2 + 64*ModularIndexing(r3, 1, 2)",
        VR_R3_3,
    ),
    # all ModularIndexing vanish once r3 < 2
    Case("indexing-all_mods_dropped", E_SPLIT, "i1 + 128*i2 + 64*r3", VR_R3_2),
    # a negative base term keeps the remainder
    Case(
        "indexing-negative_base_kept",
        "ModularIndexing(i1 - 15, 1, 64)",
        "ModularIndexing(i1 - 15, 1, 64)",
        VR_R3_2,
    ),
    # small terms stay when the rest is not a multiple of the divisor
    Case(
        "indexing-small_terms_kept", "FloorDiv(r3 + i2 + i1, 32)", "(i1 + i2 + r3) // 32", VR_R3_2
    ),
    Case(
        "indexing-mod_above_base_dropped", "ModularIndexing(2*i2 + r3, 1, 64)", "2*i2 + r3", VR_R3_2
    ),
    # torch's constructors (no ranges): symbolic divisors cancel
    Case(
        "indexing-symbolic_divisor_floordiv",
        "FloorDiv(r3*i0, r3)",
        "i0",
        NO_RANGES,
        inductor="constructor",
    ),
    Case(
        "indexing-symbolic_divisor_modular_indexing",
        "ModularIndexing(r3*i0, r3, 10)",
        "ModularIndexing(i0, 1, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    # (10*i) % 10 == 0, (20*i)//2 % 10 == 0: whole periods vanish
    Case(
        "indexing-whole_period_dropped",
        "ModularIndexing(i0 + i1*10, 1, 10)",
        "ModularIndexing(i0, 1, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    Case(
        "indexing-whole_period_dropped_divisor_2",
        "ModularIndexing(i0 + i1*20, 2, 10)",
        "ModularIndexing(i0, 2, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    Case(
        "indexing-whole_symbolic_period_dropped",
        "ModularIndexing(i0 + i1*i2*r3, i2, r3)",
        "ModularIndexing(i0, i2, r3)",
        NO_RANGES,
        inductor="constructor",
    ),
    # Inductor keeps these (Triton's C remainder, triton#619); with floor semantics
    # indexalg may fold them further, and the value check keeps it honest.
    Case(
        "indexing-negative_term_kept",
        "ModularIndexing(-i0 + i1*20, 2, 10)",
        "ModularIndexing(-i0 + 20*i1, 2, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    Case(
        "indexing-negative_constant_kept",
        "ModularIndexing(-15 + i1*20, 2, 10)",
        "ModularIndexing(20*i1 - 15, 2, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    # constant fold from the divisor into the base
    Case(
        "indexing-divisor_folded_into_base",
        "ModularIndexing(i0*4, 2, 10)",
        "ModularIndexing(2*i0, 1, 10)",
        NO_RANGES,
        inductor="constructor",
    ),
    Case(
        "indexing-floordiv_folded", "FloorDiv(i0*4, 2)", "2*i0", NO_RANGES, inductor="constructor"
    ),
    # nested ModularIndexing (Inductor leaves the first two alone)
    Case(
        "indexing-nested_kept",
        "ModularIndexing(ModularIndexing(121*i1 + i2, 1, 784), 1, 28)",
        "ModularIndexing(ModularIndexing(121*i1 + i2, 1, 784), 1, 28)",
        {"i1": 13, "i2": 121},
    ),
    Case(
        "indexing-nested_plus_one_kept",
        "ModularIndexing(ModularIndexing(121*i1 + i2, 1, 784) + 1, 1, 28)",
        "ModularIndexing(ModularIndexing(121*i1 + i2, 1, 784) + 1, 1, 28)",
        {"i1": 13, "i2": 121},
    ),
    # FloorDiv(ModularIndexing(b, d1, m), d2) -> ModularIndexing(b, d1*d2, m//d2) when d2 | m
    # (older versions of the file expected FloorDiv(ModularIndexing(i2, 1, 28), 7))
    Case(
        "indexing-nested_digit",
        "ModularIndexing(ModularIndexing(i2, 1, 28), 7, 4)",
        "ModularIndexing(i2, 7, 4)",
        {"i2": 784},
    ),
    Case(
        "indexing-nested_digit_plus_one_kept",
        "ModularIndexing(ModularIndexing(i2, 1, 28) + 1, 7, 4)",
        "ModularIndexing(ModularIndexing(i2, 1, 28) + 1, 7, 4)",
        {"i2": 784},
    ),
]

# test_floordiv_modularindexing_simplification: i0 is declared `nonneg=True`, which is not a
# sympy assumption (is_nonnegative stays None), so i0 is any integer.
FLOORDIV_OF_MODULAR_INDEXING = [
    Case(
        "floordiv_mi-digit_8192_by_128",
        "FloorDiv(ModularIndexing(i0, 1, 8192), 128)",
        "ModularIndexing(i0, 128, 64)",
        NO_RANGES,
    ),
    Case(
        "floordiv_mi-digit_120_by_6",
        "FloorDiv(ModularIndexing(i0, 2, 120), 6)",
        "ModularIndexing(i0, 12, 20)",
        NO_RANGES,
    ),
    Case(
        "floordiv_mi-not_dividing_kept",
        "FloorDiv(ModularIndexing(i0, 1, 28), 5)",
        "ModularIndexing(i0, 1, 28) // 5",
        NO_RANGES,
    ),
    Case(
        "floordiv_mi-below_divisor_zero", "FloorDiv(ModularIndexing(i0, 1, 10), 10)", "0", NO_RANGES
    ),
]

# test_remove_zero_terms_generalized (and TestWideExpressionThresholds'
# test_remove_zero_terms_still_works_small): FloorDiv(128*i1, 8192) is FloorDiv(i1, 64) in torch.
REMOVE_ZERO_TERMS = [
    Case("zero_terms-below_gcd_dropped", "FloorDiv(i0 + 128*i1, 8192)", "i1 // 64", {"i0": 128}),
    Case("zero_terms-range_equals_gcd_dropped", "FloorDiv(i0 + 6*i1, 18)", "i1 // 3", {"i0": 6}),
    Case(
        "zero_terms-above_gcd_kept",
        "FloorDiv(i0 + 128*i1, 8192)",
        "(i0 + 128*i1) // 8192",
        {"i0": 129},
    ),
]

# test_indexing_join: i0, i1, i2 integer=True, var_ranges {}.
J4 = "ModularIndexing(i0, 10, i1) + i1*ModularIndexing(i0, 10*i1, i2)"
INDEXING_JOIN = [
    Case(
        "join-two_digits",
        "ModularIndexing(i0, 1, 32) + 32*ModularIndexing(i0, 32, 4)",
        "ModularIndexing(i0, 1, 128)",
        NO_RANGES,
    ),
    Case(
        "join-two_digits_scaled",
        "2*(ModularIndexing(i0, 1, 32) + 32*ModularIndexing(i0, 32, 4))",
        "2*ModularIndexing(i0, 1, 128)",
        NO_RANGES,
    ),
    Case(
        "join-divisor_3",
        "ModularIndexing(i0, 3, 32) + 32*ModularIndexing(i0, 96, 4)",
        "ModularIndexing(i0, 3, 128)",
        NO_RANGES,
    ),
    Case(
        "join-wrong_modulus_kept",
        "ModularIndexing(i0, 1, 30) + 32*ModularIndexing(i0, 32, 4)",
        "ModularIndexing(i0, 1, 30) + 32*ModularIndexing(i0, 32, 4)",
        NO_RANGES,
    ),
    Case("join-symbolic_moduli", J4, "ModularIndexing(i0, 10, i1*i2)", NO_RANGES),
    Case(
        "join-symbolic_moduli_offset",
        f"{J4} + 10",
        "ModularIndexing(i0, 10, i1*i2) + 10",
        NO_RANGES,
    ),
    Case(
        "join-floordiv_and_digit",
        "197*FloorDiv(i0, 197) + ModularIndexing(i0, 1, 197)",
        "i0",
        NO_RANGES,
    ),
    Case(
        "join-floordiv_and_digit_scaled",
        "2*(197*FloorDiv(i0, 197) + ModularIndexing(i0, 1, 197))",
        "2*i0",
        NO_RANGES,
    ),
    Case(
        "join-floordiv_and_digit_divisor_3",
        "197*FloorDiv(i0, 197*3) + ModularIndexing(i0, 3, 197)",
        "i0 // 3",
        NO_RANGES,
    ),
]

# test_modular_indexing_pairs_merged / _not_merged: x is positive=True.
POSITIVE_X: Mapping[str, RangeSpec] = {"x": (1, None)}
MODULAR_INDEXING_PAIRS = [
    Case(
        "pairs-merged",
        "ModularIndexing(ModularIndexing(x, 1, 1024), 1, 32)",
        "ModularIndexing(x, 1, 32)",
        POSITIVE_X,
        inductor="combine_modular_indexing_pairs",
    ),
    Case(
        "pairs-not_merged",
        "ModularIndexing(ModularIndexing(x, 1, 1024), 1, 3)",
        "ModularIndexing(ModularIndexing(x, 1, 1024), 1, 3)",
        POSITIVE_X,
        inductor="combine_modular_indexing_pairs",
    ),
]

# test_expand_floor_div_*: x, y, s are positive=True.  indexalg has no (numerator,
# denominator) API; the rows check the identity expand_floor_div relies on, both ways.
POSITIVE_XY: Mapping[str, RangeSpec] = {"x": (1, None), "y": (1, None)}
POSITIVE_SXY: Mapping[str, RangeSpec] = {"s": (1, None), "x": (1, None), "y": (1, None)}
EXPAND_FLOOR_DIV = [
    Case(
        "expand-two_floordivs_skipped",
        "FloorDiv(x, 2) + FloorDiv(y, 3)",
        "x // 2 + y // 3",
        POSITIVE_XY,
        inductor="expand_floor_div_skipped",
    ),
    # expand_floor_div(5*x + y//3) == (15*x + y, 3); FloorDiv(15*x + y, 3) is 5*x + y//3
    Case(
        "expand-applied",
        "x*5 + FloorDiv(y, 3)",
        "5*x + y // 3",
        POSITIVE_XY,
        inductor="expand_floor_div",
    ),
    Case(
        "expand-applied_expected",
        "FloorDiv(x*15 + y, 3)",
        "5*x + y // 3",
        POSITIVE_XY,
        inductor="constructor",
    ),
    Case(
        "expand-applied_identity",
        "5*x + FloorDiv(y, 3) == FloorDiv(15*x + y, 3)",
        "True",
        POSITIVE_XY,
        inductor="none",
    ),
    Case(
        "expand-symbolic_factor",
        "s*x + FloorDiv(y, 3)",
        "s*x + y // 3",
        POSITIVE_SXY,
        inductor="expand_floor_div",
        candidates=("x", "y"),
    ),
    Case(
        "expand-symbolic_factor_expected",
        "FloorDiv(3*s*x + y, 3)",
        "s*x + y // 3",
        POSITIVE_SXY,
        inductor="constructor",
    ),
    Case(
        "expand-cross_tree_symbolic_factor_skipped",
        "s*x + FloorDiv(y, 3)",
        "s*x + y // 3",
        POSITIVE_SXY,
        inductor="expand_floor_div_skipped",
        candidates=("x",),
    ),
]

# test_int8_unpack / test_int8_unpack_dynamic_shape (GPU codegen tests): the load index
# 5504*x1 + x0//2 over x0 < 11008 must become x2 // 2 on the fused index x2 (x1 = x2 // 11008,
# x0 = x2 % 11008), which Inductor reaches through expand_floor_div and _simplify_loops.
# The dynamic test's sizes are backed symbols (>= 2 after 0/1 specialisation).
DYNAMIC_SIZES: Mapping[str, RangeSpec] = {
    "x2": "2*s0*s1*s2",
    "s0": (2, None),
    "s1": (2, None),
    "s2": (2, None),
}
LOOP_JOIN = [
    Case(
        "int8_unpack-static",
        "5504*FloorDiv(x2, 11008) + FloorDiv(ModularIndexing(x2, 1, 11008), 2)",
        "x2 // 2",
        {"x2": 2 * 4096 * 11008},
    ),
    Case(
        "int8_unpack-dynamic",
        "s2*FloorDiv(x2, 2*s2) + FloorDiv(ModularIndexing(x2, 1, 2*s2), 2)",
        "x2 // 2",
        DYNAMIC_SIZES,
    ),
]

# TestWideExpressionThresholds: sums of 30 / 40 integer=True symbols.
W30 = " + ".join(f"s{i}" for i in range(30))
W40 = " + ".join(f"s{i}" for i in range(40))
WIDE = [
    Case(
        "wide-multiple_of_4096", f"Mod(4096*({W30}), 4096)", "0", NO_RANGES, inductor="multiple_of"
    ),
    Case("wide-multiple_of_32", f"Mod(160*({W30}), 32)", "0", NO_RANGES, inductor="multiple_of"),
    Case("wide-multiple_of_256", f"Mod(({W30})*256, 256)", "0", NO_RANGES, inductor="multiple_of"),
    Case("wide-multiple_of_64", f"Mod(({W30})*256, 64)", "0", NO_RANGES, inductor="multiple_of"),
    Case(
        "wide-multiple_of_4096_nested",
        f"Mod(4096*({W30} + 1), 4096)",
        "0",
        NO_RANGES,
        inductor="multiple_of",
    ),
    Case("wide-multiple_of_96", f"Mod(({W30})*12*8, 96)", "0", NO_RANGES, inductor="multiple_of"),
    Case(
        "wide-floordiv_multiple_of_1",
        f"Mod(FloorDiv(({W30})*160, 160), 1)",
        "0",
        NO_RANGES,
        inductor="multiple_of",
    ),
    Case(
        "wide-floordiv_exact", f"FloorDiv(({W30})*160, 160)", W30, NO_RANGES, inductor="constructor"
    ),
    Case("wide-self_multiple", f"Mod({W30}, {W30})", "0", NO_RANGES, inductor="multiple_of"),
    Case(
        "wide-self_multiple_scaled",
        f"Mod(4*({W30}), 4*({W30}))",
        "0",
        NO_RANGES,
        inductor="multiple_of",
    ),
    Case(
        "wide-modular_indexing_not_decomposed",
        f"ModularIndexing({W40} + 138560, 160, 930)",
        f"ModularIndexing({W40} + 138560, 160, 930)",
        NO_RANGES,
        inductor="constructor",
    ),
    # the test only asks for a result; Inductor's actual answer is the joined sum
    Case(
        "wide-simplify_with_ranges",
        f"ModularIndexing({W40}, 1, 160) + 160*FloorDiv({W40}, 160)",
        W40,
        {"i0": 10},
    ),
]

# TestEvaluateMinMax, sound assertions (u0, u1 unbacked: integer=True, constrained by check()).
SIZEVARS_MIN_MAX = [
    Case(
        "minmax-min_multiple_nonneg",
        "Min(u0, 10*u0)",
        "u0",
        {"u0": (0, None)},
        inductor="evaluate_min",
    ),
    Case("minmax-max_concrete", "Max(-5, 3)", "3", NO_RANGES, inductor="constructor"),
    Case("minmax-min_concrete", "Min(-5, 3)", "-5", NO_RANGES, inductor="constructor"),
    Case(
        "minmax-min_product_both_positive",
        "Min(u0, u0*u1)",
        "u0",
        {"u0": (1, None), "u1": (1, None)},
        inductor="evaluate_min",
    ),
    Case("minmax-le_multiple", "u0 <= 10*u0", "True", {"u0": (0, None)}, inductor="guard_or_false"),
    Case(
        "minmax-le_multiple_reversed_unknown",
        "10*u0 <= u0",
        "10*u0 <= u0",
        {"u0": (0, None)},
        inductor="guard_or_false",
    ),
    Case(
        "minmax-lt_multiple_unknown",
        "u0 < 10*u0",
        "u0 < 10*u0",
        {"u0": (0, None)},
        inductor="guard_or_false",
    ),
]

ALL_CASES: list[Case] = [
    *INDEXING_SIMPLIFICATION,
    *FLOORDIV_OF_MODULAR_INDEXING,
    *REMOVE_ZERO_TERMS,
    *INDEXING_JOIN,
    *MODULAR_INDEXING_PAIRS,
    *EXPAND_FLOOR_DIV,
    *LOOP_JOIN,
    *WIDE,
    *SIZEVARS_MIN_MAX,
]


@dataclass(frozen=True)
class Fault:
    """An answer Inductor gives that is wrong at ``witness``: indexalg must not give it."""

    name: str
    before: str
    inductor_answer: str
    ranges: Mapping[str, RangeSpec]
    witness: Mapping[str, int]
    inductor: str  # "evaluate_min", "evaluate_max" or "constructor"


INDUCTOR_FAULTS = [
    # TestEvaluateMinMax documents these as UNSOUND (u0 may be negative, u1 may be 0)
    Fault("evaluate_min_multiple", "Min(u0, 10*u0)", "u0", NO_RANGES, {"u0": -1}, "evaluate_min"),
    Fault(
        "evaluate_max_multiple", "Max(u0, 10*u0)", "10*u0", NO_RANGES, {"u0": -1}, "evaluate_max"
    ),
    Fault(
        "evaluate_min_product_gcd",
        "Min(u0, u0*u1)",
        "u0",
        NO_RANGES,
        {"u0": 1, "u1": 0},
        "evaluate_min",
    ),
    # torch's FloorDiv folds a negative outer divisor (ANCHORS.md)
    Fault(
        "floordiv_negative_divisor",
        "FloorDiv(FloorDiv(n, 2), -3)",
        "FloorDiv(n, -6)",
        NO_RANGES,
        {"n": 7},
        "constructor",
    ),
]


def _params(cases: Sequence[Case], *, with_missing: bool) -> list[Any]:
    out = []
    for c in cases:
        marks: Any = ()
        if with_missing and c.missing is not None:
            marks = pytest.mark.xfail(strict=True, reason=c.missing)
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def test_case_names_are_unique() -> None:
    names = [c.name for c in ALL_CASES] + [f.name for f in INDUCTOR_FAULTS]
    assert len(names) == len(set(names))


# ---------------------------------------------------------------------------------------
# points: every in-range point of small ranges, else seeded random ones with edges

N_RANDOM = 400
EXHAUSTIVE_LIMIT = 20_000
WINDOW = 2_000  # how far an unbounded side reaches
MIN_DEFINED = 25  # fewer defined random points than this makes a check vacuous


def _names(*es: Expr) -> set[str]:
    return {n.payload for e in es for n in e.walk() if type(n) is Symbol}


def _closure(names: set[str], ranges: ia.Ranges) -> list[Expr]:
    """The symbols to assign: ``names`` and every symbol their bounds mention, ordered so
    that a symbol comes after the symbols of its bounds."""
    todo = sorted(names)
    found: dict[str, Expr] = {}
    while todo:
        name = todo.pop()
        if name in found:
            continue
        (sym,) = ia.symbols(name)
        found[name] = sym
        for b in ranges.get_bounds(sym):
            if b is not None:
                todo.extend(sorted(_names(b) - found.keys()))
    ordered: list[Expr] = []
    placed: set[str] = set()
    pending = sorted(found)
    while pending:
        for name in pending:
            deps: set[str] = set()
            for b in ranges.get_bounds(found[name]):
                if b is not None:
                    deps |= _names(b)
            if deps <= placed:
                ordered.append(found[name])
                placed.add(name)
                pending.remove(name)
                break
        else:  # pragma: no cover - the tables have no cyclic bounds
            raise AssertionError(f"cyclic ranges among {pending}")
    return ordered


def _int_bounds(
    sym: Expr, ranges: ia.Ranges, env: Mapping[str, int]
) -> tuple[int | None, int | None]:
    lo, hi = ranges.get_bounds(sym)
    return (
        None if lo is None else int(ia.evaluate(lo, env)),
        None if hi is None else int(ia.evaluate(hi, env)),
    )


def _pick(rng: random.Random, lo: int | None, hi: int | None) -> int:
    if lo is None and hi is None:
        lo, hi = -WINDOW, WINDOW
    elif lo is None:
        assert hi is not None
        lo = hi - WINDOW
    elif hi is None:
        hi = lo + WINDOW
    r = rng.random()
    if r < 0.1:
        return lo
    if r < 0.2:
        return hi
    if r < 0.25:
        return min(lo + 1, hi)
    if r < 0.3:
        return max(hi - 1, lo)
    return rng.randint(lo, hi)


def points(
    names: set[str], ranges: Mapping[str, RangeSpec], seed: str
) -> tuple[list[dict[str, int]], bool]:
    """(points, exhaustive): every point of small integer ranges, else N_RANDOM seeded random
    ones with the edges of each range over-sampled."""
    r = ia.as_ranges(ranges)
    syms = _closure(names, r)
    keys = [s.payload for s in syms]
    finite: list[range] = []
    for s in syms:
        lo_e, hi_e = r.get_bounds(s)
        if type(lo_e) is not Integer or type(hi_e) is not Integer:
            break
        finite.append(range(lo_e.payload, hi_e.payload + 1))
    else:
        total = 1
        for f in finite:
            total *= len(f)
        if total <= EXHAUSTIVE_LIMIT:
            return [dict(zip(keys, v)) for v in itertools.product(*finite)], True
    rng = random.Random(seed)
    out: list[dict[str, int]] = []
    while len(out) < N_RANDOM:
        env: dict[str, int] = {}
        for s in syms:
            lo, hi = _int_bounds(s, r, env)
            if lo is not None and hi is not None and lo > hi:
                break
            env[s.payload] = _pick(rng, lo, hi)
        else:
            out.append(env)
    return out, False


def _value(e: Expr, env: Mapping[str, int]) -> int | bool | None:
    """The value of ``e`` at ``env``, None where it is undefined (a divisor out of domain)."""
    try:
        return ia.evaluate(e, env)
    except InvalidOperationError:
        return None


def assert_same_values(
    before: Expr, others: Mapping[str, Expr], ranges: Mapping[str, RangeSpec], seed: str
) -> None:
    """Each of ``others`` is defined and equal to ``before`` wherever ``before`` is defined,
    at every point of small ranges or at enough random points (MIN_DEFINED) to mean it."""
    names = _names(before, *others.values())
    envs, exhaustive = points(names, ranges, seed)
    checked = 0
    for env in envs:
        want = _value(before, env)
        if want is None:
            continue
        checked += 1
        for label, e in others.items():
            got = _value(e, env)
            assert got == want, f"{label} {e} is {got} at {env}, but {before} is {want}"
    needed = 1 if exhaustive else MIN_DEFINED
    assert checked >= needed, f"only {checked} points where {before} is defined"


def torch_ops(e: Expr) -> int:
    """Operations of ``e`` as Inductor counts them: sympy.count_ops of the torch flavour."""
    sympy = pytest.importorskip("sympy")
    pytest.importorskip("torch.utils._sympy.functions")
    return int(sympy.count_ops(ia.to_sympy(e, flavor="torch")))


# ---------------------------------------------------------------------------------------
# the checks


@pytest.mark.parametrize("case", _params(ALL_CASES, with_missing=False))
def test_value_preserved(case: Case) -> None:
    """indexalg's answer and Inductor's have the value of the input at every point."""
    before = ia.parse(case.before)
    expected = ia.parse(case.expected)
    out = ia.simplify(before, case.ranges)
    assert_same_values(
        before,
        {"inductor's answer": expected, "indexalg's answer": out},
        case.ranges,
        case.name,
    )


@pytest.mark.parametrize("case", _params(ALL_CASES, with_missing=True))
def test_no_more_ops_than_inductor(case: Case) -> None:
    out = ia.simplify(case.before, case.ranges)
    mine, theirs = torch_ops(out), torch_ops(ia.parse(case.expected))
    assert mine <= theirs, (
        f"{case.before} -> {out} ({mine} ops); Inductor: {case.expected} ({theirs} ops)"
    )


@pytest.mark.parametrize("case", _params(ALL_CASES, with_missing=False))
def test_simplify_is_idempotent(case: Case) -> None:
    out = ia.simplify(case.before, case.ranges)
    assert ia.simplify(out, case.ranges) is out


def _reevaluated(s: Any) -> Any:
    """``s`` rebuilt bottom-up with torch's and sympy's own evaluation."""
    if not s.args or s.is_Symbol or s.is_Integer:
        return s
    return s.func(*[_reevaluated(a) for a in s.args])


def _hints(ranges: Mapping[str, RangeSpec]) -> dict[str, str]:
    """The sympy assumptions Inductor's symbols carried: (1, None) is positive=True, ..."""
    out: dict[str, str] = {}
    for name, spec in ranges.items():
        if isinstance(spec, tuple) and isinstance(spec[0], int) and spec[0] >= 0:
            out[name] = "positive" if spec[0] >= 1 else "nonnegative"
    return out


def _torch(text: str, ranges: Mapping[str, RangeSpec]) -> Any:
    """``text`` as the object Inductor's test builds: torch flavour, torch's evaluation."""
    return _reevaluated(ia.to_sympy(ia.parse(text), flavor="torch", hints=_hints(ranges)))


@pytest.mark.parametrize("case", _params(ALL_CASES, with_missing=False))
def test_expected_is_in_torch_form(case: Case) -> None:
    """``expected`` is spelled as torch's constructors leave it, so its op count is Inductor's."""
    pytest.importorskip("torch.utils._sympy.functions")
    literal = ia.to_sympy(ia.parse(case.expected), flavor="torch", hints=_hints(case.ranges))
    assert _reevaluated(literal) == literal


@pytest.fixture(scope="module")
def inductor() -> Any:
    """torch._inductor.sizevars (imports in several seconds)."""
    return pytest.importorskip("torch._inductor.sizevars")


def _sym(s: Any, name: str) -> Any:
    for f in s.free_symbols:
        if f.name == name:
            return f
    raise AssertionError(f"{name} is not a symbol of {s}")


def _var_ranges(case: Case) -> dict[Any, Any]:
    sympy = pytest.importorskip("sympy")
    hints = _hints(case.ranges)
    out: dict[Any, Any] = {}
    for name, spec in case.ranges.items():
        if isinstance(spec, bool) or not isinstance(spec, (int, str)):
            continue
        extra = {hints[name]: True} if name in hints else {}
        sym = sympy.Symbol(name, integer=True, **extra)
        out[sym] = sympy.Integer(spec) if isinstance(spec, int) else _torch(spec, case.ranges)
    return out


def _unbacked(sizevars: Any, ranges: Mapping[str, RangeSpec], names: set[str]) -> None:
    """Make u0, u1, ... the shape environment's unbacked symbols, checked into their ranges."""
    sympy = pytest.importorskip("sympy")
    count = 1 + max(int(n[1:]) for n in names if n.startswith("u"))
    made = [sizevars.shape_env.create_unbacked_symint().node.expr for _ in range(count)]
    assert [str(u) for u in made] == [f"u{k}" for k in range(count)]
    for name, spec in ranges.items():
        if isinstance(spec, tuple):
            sym = made[int(name[1:])]
            if spec[0] is not None:
                sizevars.check(sympy.Ge(sym, spec[0]))
            if spec[1] is not None:
                sizevars.check(sympy.Le(sym, spec[1]))


def _two_args(text: str, ranges: Mapping[str, RangeSpec]) -> tuple[Any, Any]:
    e = ia.parse(text)
    a, b = e.args
    return _torch(str(a), ranges), _torch(str(b), ranges)


def _inductor_answer(
    inductor: Any, kind: str, before: str, ranges: Mapping[str, RangeSpec], case: Case | None = None
) -> Any:
    """What Inductor returns for ``before``, computed the way ``kind`` says."""
    sympy = pytest.importorskip("sympy")
    fns = pytest.importorskip("torch.utils._sympy.functions")
    sv = inductor.SizeVarAllocator()
    b = _torch(before, ranges)
    if kind == "constructor":
        return b
    if kind == "simplify_with_ranges":
        assert case is not None
        return sv.simplify_with_ranges(b, _var_ranges(case))
    if kind == "combine_modular_indexing_pairs":
        return sv.combine_modular_indexing_pairs(b)
    if kind in ("expand_floor_div", "expand_floor_div_skipped"):
        cands = None
        if case is not None and case.candidates is not None:
            cands = [_sym(b, n) for n in case.candidates]
        res = sv.expand_floor_div(b, cands)
        if res is False:
            return b if kind == "expand_floor_div_skipped" else False
        assert kind == "expand_floor_div", f"expand_floor_div applied: {res}"
        num, den = res
        return fns.FloorDiv(num, den)
    if kind == "multiple_of":
        a, q = _two_args(before, ranges)
        return sympy.Integer(0) if sv.statically_known_multiple_of(a, q) else b
    # unbacked symbols are integer=True only; their ranges live in the shape environment
    _unbacked(sv, ranges, _names(ia.parse(before)))
    plain = _torch(before, NO_RANGES)
    if kind in ("evaluate_min", "evaluate_max"):
        a, q = _two_args(before, NO_RANGES)
        return sv.evaluate_min(a, q) if kind == "evaluate_min" else sv.evaluate_max(a, q)
    if kind == "guard_or_false":
        return sympy.true if sv.guard_or_false(plain) else plain
    raise AssertionError(f"unknown Inductor entry point {kind!r}")


UNBACKED_KINDS = ("evaluate_min", "evaluate_max", "guard_or_false")


def _assumption_ranges(kind: str, ranges: Mapping[str, RangeSpec]) -> Mapping[str, RangeSpec]:
    """The ranges that become sympy assumptions: none for unbacked symbols."""
    return NO_RANGES if kind in UNBACKED_KINDS else ranges


LIVE_CASES = [c for c in ALL_CASES if c.inductor != "none"]


@pytest.mark.parametrize("case", _params(LIVE_CASES, with_missing=False))
def test_expected_is_inductors_answer(inductor: Any, case: Case) -> None:
    """The table transcribes Inductor: its live answer is ``expected``, exactly."""
    got = _inductor_answer(inductor, case.inductor, case.before, case.ranges, case)
    want = _torch(case.expected, _assumption_ranges(case.inductor, case.ranges))
    assert got == want, f"Inductor gives {got}"


# ---------------------------------------------------------------------------------------
# Inductor's wrong answers, and the one assertion about bounds


@pytest.mark.parametrize("fault", [pytest.param(f, id=f.name) for f in INDUCTOR_FAULTS])
def test_inductor_fault_not_repeated(fault: Fault) -> None:
    before = ia.parse(fault.before)
    wrong = ia.parse(fault.inductor_answer)
    assert _value(before, fault.witness) != _value(wrong, fault.witness)
    out = ia.simplify(before, fault.ranges)
    assert _value(out, fault.witness) == _value(before, fault.witness)
    assert_same_values(before, {"indexalg's answer": out}, fault.ranges, fault.name)


@pytest.mark.parametrize("fault", [pytest.param(f, id=f.name) for f in INDUCTOR_FAULTS])
def test_inductor_fault_is_live(inductor: Any, fault: Fault) -> None:
    got = _inductor_answer(inductor, fault.inductor, fault.before, fault.ranges)
    assert got == _torch(fault.inductor_answer, _assumption_ranges(fault.inductor, fault.ranges))


def test_modular_indexing_minus_one_may_be_negative() -> None:
    """test_modular_indexing_positive: ModularIndexing(x, 1, 1024) - 1 is not known
    non-negative (sympy must keep its Abs); indexalg's bounds are exactly [-1, 1022]."""
    e = ia.parse("ModularIndexing(x, 1, 1024) - 1")
    assert ia.bounds(e, POSITIVE_X) == (-1, 1022)
    claim = ia.simplify(ia.parse("ModularIndexing(x, 1, 1024) - 1 >= 0"), POSITIVE_X)
    assert claim is not ia.true and claim is not ia.false
