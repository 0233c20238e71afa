"""Simplification quality, indexalg vs TVM vs Inductor, on generated div/mod expressions.

Run from the repository root::

    python -m bench.compare                      # 1,200 generated + the named cases
    python -m bench.compare -n 200 --seed 3      # fewer, another seed
    python -m bench.compare --no-tvm             # without TVM (also when it is not installed)
    python -m bench.compare --per-expression out.jsonl --losses-md losses.md
    python -m bench.compare --append-results     # also prepend the report to bench/RESULTS.md

The cases: the issue's named expressions (:data:`NAMED`), then ``-n`` expressions from a
seeded generator (:func:`generate`, families in rotation, :data:`FAMILIES`): nested
FloorDiv / ModularIndexing / Mod / CeilDiv over sums, with constant and symbolic divisors
(``s0``, ``2*s0``, ``s0*s1``), loop variables bounded by constants or by size symbols, and
random trees of those operations.  The same ``--seed`` gives the same cases.

Each system runs in a fresh interpreter through bench.simplify's workers (indexalg
``ia.simplify``, Inductor ``simplify_with_ranges``, TVM ``Analyzer.simplify``; TVM is left
out when ``apache-tvm`` is not installed).  Outputs are read back into indexalg and counted
with ``bench.simplify.op_counts`` (``ModularIndexing(a, d, m)`` = 2 div/mod ops, 1 when
d = 1); each output is evaluated against its input at ``--points`` in-range points, as
bench.simplify does.  The report: totals per system over the expressions every system took,
per family, and every expression where indexalg leaves more div/mod operations than TVM or
than Inductor, with both outputs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._timing import machine_info
from bench.simplify import (
    CLOCKS,
    RESULTS_PATH,
    Benchmark,
    Bound,
    Case,
    append_results,
    available_systems,
    git_commit,
    run_benchmark,
)

__all__ = ["NAMED", "FAMILIES", "generate", "all_cases", "Loss", "losses", "report", "main"]

DEFAULT_N = 1200

Ranges = tuple[tuple[str, Bound, Bound], ...]
Sizes = tuple[tuple[str, int | str], ...]


def _case(text: str, ranges: Ranges, sizes: Sizes, family: str) -> Case:
    dynamic = any(n.startswith("s") for n, _, _ in ranges)
    return Case(text, ranges, sizes, workload=family, dynamic=dynamic)


#: The expressions issue 13 names (TVM simplifies each; indexalg did not), as cases.
NAMED: tuple[Case, ...] = (
    _case("FloorDiv(FloorDiv(y + 6, 3), 7)", (("y", 0, 63),), (("y", 64),), "named"),
    _case(
        "ModularIndexing(2*FloorDiv(ModularIndexing(x, 1, 32), 2), 1, 8)",
        (("x", 0, 1023),),
        (("x", 1024),),
        "named",
    ),
    _case("CeilDiv(x, -3) + FloorDiv(x, 3)", (("x", 0, 1023),), (("x", 1024),), "named"),
    _case("FloorDiv(-x, 2) + CeilDiv(x, 2)", (("x", 0, 1023),), (("x", 1024),), "named"),
    _case("CeilDiv(x, -3) + FloorDiv(x, 3)", (("x", -100, 100),), (), "named"),
    _case(
        "FloorDiv(2*x, 2*s0)",
        (("s0", 1, None), ("s1", 1, None), ("x", 0, "s0*s1 - 1")),
        (("x", "s0*s1"),),
        "named",
    ),
    _case("Mod(4*x, 32)", (("x", 0, 1023),), (("x", 1024),), "named"),
    _case("Mod(6*x + 12*y, 24)", (("x", 0, 99), ("y", 0, 99)), (("x", 100), ("y", 100)), "named"),
)

# ---------------------------------------------------------------------------------------
# The generator

_SMALL = (2, 3, 4, 5, 6, 7, 8, 16)
_SIZES = (7, 16, 33, 64, 100, 128, 1024)


def _mi(a: str, d: int | str, m: int | str) -> str:
    return f"ModularIndexing({a}, {d}, {m})"


def _loop(rng: random.Random, names: Sequence[str] = ("x",)) -> tuple[Ranges, Sizes]:
    """Loop variables with constant sizes."""
    sizes = [(n, rng.choice(_SIZES)) for n in names]
    return tuple((n, 0, s - 1) for n, s in sizes), tuple(sizes)


def _symbolic(rng: random.Random, names: Sequence[str] = ("x",)) -> tuple[Ranges, Sizes]:
    """Size symbols s0, s1 (lower bound 1 or 2, unbounded or bounded above) and loop
    variables bounded by them: x < s0*s1, y < s0 (or s1)."""
    lo = rng.choice((1, 2))
    hi = rng.choice((None, None, 64))
    ranges: list[tuple[str, Bound, Bound]] = [("s0", lo, hi), ("s1", 1, hi)]
    sizes: list[tuple[str, int | str]] = []
    for i, n in enumerate(names):
        size = "s0*s1" if i == 0 else rng.choice(("s0", "s1", "s0*s1"))
        ranges.append((n, 0, f"{size} - 1"))
        sizes.append((n, size))
    return tuple(ranges), tuple(sizes)


def _signed(rng: random.Random, name: str = "x") -> tuple[Ranges, Sizes]:
    """A variable of either sign (not a loop variable: Inductor gets its range from the
    shape environment)."""
    k = rng.choice((16, 64, 1000))
    return ((name, -k, k - 1),), ()


def _gen_nested_floordiv(rng: random.Random) -> Case:
    a, b = rng.choice(_SMALL), rng.choice(_SMALL)
    k = rng.randint(0, 3 * a)
    inner = f"FloorDiv(x + {k}, {a})" if k else f"FloorDiv(x, {a})"
    j = rng.choice((0, 0, 1, 2, 5))
    text = f"FloorDiv({inner} + {j}, {b})" if j else f"FloorDiv({inner}, {b})"
    ranges, sizes = _signed(rng) if rng.random() < 0.2 else _loop(rng)
    return _case(text, ranges, sizes, "nested_floordiv")


def _gen_nested_floordiv_symbolic(rng: random.Random) -> Case:
    ranges, sizes = _symbolic(rng, ("x", "y"))
    c = rng.choice((2, 3, 4))
    text = rng.choice(
        (
            "FloorDiv(FloorDiv(x, s0), s1)",
            f"FloorDiv(FloorDiv(x, s0), {c})",
            f"FloorDiv(FloorDiv(x, {c}), s0)",
            "FloorDiv(FloorDiv(x + s0*y, s0), s1)",
            f"FloorDiv(FloorDiv(x + {c}*s0, s0), {c})",
            f"FloorDiv(FloorDiv(x, {c}*s0), s1)",
            "ModularIndexing(FloorDiv(x, s0), 1, s1)",
        )
    )
    return _case(text, ranges, sizes, "nested_floordiv_symbolic")


def _gen_mod_of_scaled_div(rng: random.Random) -> Case:
    c = rng.choice((2, 4, 8))
    m2 = c * rng.choice((1, 2, 4))
    m1 = m2 * rng.choice((1, 2, 4, 8))
    ranges, sizes = _loop(rng)
    text = rng.choice(
        (
            _mi(f"{c}*FloorDiv({_mi('x', 1, m1)}, {c})", 1, m2),
            f"Mod({c}*FloorDiv(x, {c}), {m2})",
            _mi(f"{c}*{_mi('x', c, m1 // c)}", 1, m2),
            f"Mod({c}*FloorDiv(Mod(x, {m1}), {c}), {m2})",
        )
    )
    return _case(text, ranges, sizes, "mod_of_scaled_div")


def _gen_ceil_floor_pair(rng: random.Random) -> Case:
    d = rng.choice((2, 3, 4, 5, 7, 8))
    k = rng.choice((0, 0, 1, 3))
    a = f"x + {k}" if k else "x"
    neg = f"-x - {k}" if k else "-x"
    scale = rng.choice(("", "", "2*", "3*"))
    text = rng.choice(
        (
            f"{scale}CeilDiv({a}, -{d}) + {scale}FloorDiv({a}, {d})",
            f"{scale}FloorDiv({neg}, {d}) + {scale}CeilDiv({a}, {d})",
            f"CeilDiv({a}, {d}) + FloorDiv({neg}, {d}) + FloorDiv(y, {d})",
            f"-CeilDiv({a}, {d}) - FloorDiv({neg}, {d})",
            f"CeilDiv({a}, {d}) - FloorDiv(x + {k + d - 1}, {d})",
        )
    )
    if rng.random() < 0.5:
        ranges, sizes = _loop(rng, ("x", "y"))
    else:
        ranges = (*_signed(rng)[0], ("y", 0, 63))
        sizes = (("y", 64),)
    return _case(text, ranges, sizes, "ceil_floor_pair")


def _gen_ceil_floor_symbolic(rng: random.Random) -> Case:
    ranges, sizes = _symbolic(rng, ("x", "y"))
    d = rng.choice(("s0", "s1", "2*s0", "s0*s1", "s0 + 1"))
    a = rng.choice(("x", "x + 1", "x + y", "x + 3*y"))
    text = rng.choice(
        (
            f"CeilDiv({a}, {d}) + FloorDiv(-({a}), {d})",
            f"FloorDiv({a} + {d} - 1, {d}) - CeilDiv({a}, {d})",
            f"CeilDiv({a}, {d}) + FloorDiv(-({a}), {d}) + FloorDiv(y, {d})",
            f"CeilDiv(-({a}), {d}) + FloorDiv({a}, {d})",
        )
    )
    return _case(text, ranges, sizes, "ceil_floor_symbolic")


def _gen_nested_ceildiv(rng: random.Random) -> Case:
    a, b = rng.choice(_SMALL), rng.choice(_SMALL)
    k = rng.choice((0, 0, 1, 3, a - 1))
    x = f"x + {k}" if k else "x"
    if rng.random() < 0.3:
        ranges, sizes = _symbolic(rng, ("x", "y"))
        b_s: int | str = rng.choice(("s0", "s1", b))
    else:
        ranges, sizes = _signed(rng) if rng.random() < 0.2 else _loop(rng)
        b_s = b
    text = rng.choice(
        (
            f"CeilDiv(CeilDiv({x}, {a}), {b_s})",
            f"CeilDiv(FloorDiv({x}, {a}), {b_s})",
            f"FloorDiv(CeilDiv({x}, {a}), {b_s})",
            f"CeilDiv(CeilDiv({x}, {a}) + 1, {b_s})",
            f"ModularIndexing(CeilDiv({x}, {a}), {b_s}, {b})",
        )
    )
    return _case(text, ranges, sizes, "nested_ceildiv")


def _gen_common_factor(rng: random.Random) -> Case:
    c = rng.choice((2, 3, 4, 8))
    d = rng.choice((3, 5, 7, 16))
    if rng.random() < 0.5:
        ranges, sizes = _symbolic(rng, ("x", "y"))
        text = rng.choice(
            (
                f"FloorDiv({c}*x, {c}*s0)",
                f"FloorDiv({c}*x + {c}*y, {c}*s0)",
                f"Mod({c}*x, {c}*s0)",
                f"FloorDiv({c}*x + {c}, {c}*s0)",
                f"{_mi(f'{c}*x', c, 's0')}",
                f"FloorDiv({c}*x*s1, {c}*s0*s1)",
            )
        )
    else:
        ranges, sizes = _loop(rng, ("x", "y"))
        text = rng.choice(
            (
                f"FloorDiv({c}*x, {c * d})",
                f"FloorDiv({c}*x + {c}*y, {c * d})",
                f"Mod({c}*x + {c * d}*y, {c * d})",
                f"{_mi(f'{c}*x', c * d, 4)}",
            )
        )
    return _case(text, ranges, sizes, "common_factor")


def _gen_mod_scaled(rng: random.Random) -> Case:
    c = rng.choice((2, 3, 4, 6, 8))
    m = c * rng.choice((2, 3, 4, 8))
    ranges, sizes = _loop(rng, ("x", "y"))
    a = rng.choice(("x", "x + y", f"x + {rng.randint(1, 9)}*y", "x + 5"))
    text = rng.choice((f"Mod({c}*({a}), {m})", _mi(f"{c}*({a})", 1, m)))
    return _case(text, ranges, sizes, "mod_scaled")


def _gen_recombine(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        d: int | str = rng.choice((3, 4, 7, 16))
        ranges, sizes = _loop(rng, ("x", "y"))
    else:
        d = rng.choice(("s0", "s1"))
        ranges, sizes = _symbolic(rng, ("x", "y"))
    extra = rng.choice(("", " + y", " + 3"))
    text = rng.choice(
        (
            f"{d}*FloorDiv(x, {d}) + {_mi('x', 1, d)}{extra}",
            f"{d}*FloorDiv(x, {d}) + Mod(x, {d}){extra}",
            f"x - {d}*FloorDiv(x, {d}){extra}",
            f"x - {_mi('x', 1, d)}{extra}",
            f"{d}*{_mi('x', d, 4)} + {_mi('x', 1, d)}{extra}",
        )
    )
    return _case(text, ranges, sizes, "recombine")


def _gen_div_of_bounded_sum(rng: random.Random) -> Case:
    if rng.random() < 0.5:
        c = rng.choice((4, 8, 16, 12))
        k = rng.randint(0, c)
        ny = rng.choice((8, 64))
        ranges: Ranges = (("x", 0, c - 1), ("y", 0, ny - 1))
        sizes: Sizes = (("x", c), ("y", ny))
        text = rng.choice(
            (
                f"FloorDiv(x + {c}*y, {c})",
                f"Mod(x + {c}*y, {c})",
                _mi(f"x + {c}*y", 1, c),
                f"FloorDiv(x + {c}*y + {k}, {c})",
                _mi(f"x + {c}*y", c, 8),
            )
        )
    else:
        ranges = (("s0", rng.choice((1, 2)), None), ("s1", 1, None))
        ranges += (("x", 0, "s0 - 1"), ("y", 0, "s1 - 1"))
        sizes = (("x", "s0"), ("y", "s1"))
        text = rng.choice(
            (
                "FloorDiv(x + s0*y, s0)",
                _mi("x + s0*y", 1, "s0"),
                _mi("x + s0*y", "s0", "s1"),
                "Mod(x + s0*y, s0)",
                "FloorDiv(x, s0 + 1)",
                _mi("x", 1, "2*s0"),
            )
        )
    return _case(text, ranges, sizes, "div_of_bounded_sum")


def _gen_nested_modind(rng: random.Random) -> Case:
    d2, m2 = rng.choice((1, 1, 2, 3, 4)), rng.choice((2, 3, 4, 5, 8))
    m1 = d2 * m2 * rng.choice((1, 2, 4)) + rng.choice((0, 0, 0, 1, -1))
    d1 = rng.choice((1, 2, 3, 8))
    ranges, sizes = _loop(rng)
    inner = _mi("x", d1, m1) if rng.random() < 0.8 else f"Mod(FloorDiv(x, {d1}), {m1})"
    text = _mi(inner, d2, m2) if rng.random() < 0.8 else f"Mod(FloorDiv({inner}, {d2}), {m2})"
    if rng.random() < 0.3:
        text = f"{rng.choice((2, 8, 64))}*{text} + {_mi('x', 1, d1 * m1)}"
    return _case(text, ranges, sizes, "nested_modind")


def _gen_nested_modind_symbolic(rng: random.Random) -> Case:
    ranges, sizes = _symbolic(rng, ("x", "y"))
    c = rng.choice((2, 3, 4))
    text = rng.choice(
        (
            _mi(_mi("x", 1, f"{c}*s0"), 1, "s0"),
            _mi(_mi("x", 1, "s0*s1"), "s0", "s1"),
            _mi(_mi("x", "s0", f"{c}*s1"), 1, "s1"),
            _mi(_mi("x", 1, "s0"), 1, f"{c}*s0"),
            f"s0*{_mi('x', 's0', 's1')} + {_mi('x', 1, 's0')}",
            f"Mod(Mod(x, {c}*s0), s0)",
            _mi(f"x + {c}*s0*y", 1, f"{c}*s0"),
        )
    )
    return _case(text, ranges, sizes, "nested_modind_symbolic")


def _gen_recombine_nested_divisor(rng: random.Random) -> Case:
    """``d*(x // d) + ModularIndexing(x, 1, d)`` where d is itself a FloorDiv or a
    difference of sizes (the dynamic corpus's reshapes, unfold and strided slices)."""
    d, lo = rng.choice(
        (("FloorDiv(s0, 4)", 4), ("FloorDiv(s0, 2)", 2), ("s0 - 1", 2), ("s0 - 2", 3)),
    )
    d = rng.choice((d, d, "FloorDiv(s0 - 3, 2) + 1")) if lo >= 3 else d
    hi = rng.choice((None, 4096))
    c = rng.choice((1, 4))
    k = "" if c == 1 else f"{c}*"
    text = rng.choice(
        (
            f"{k}({d})*FloorDiv(x, {d}) + {k}ModularIndexing(x, 1, {d}) + y",
            f"FloorDiv(x, {d})*Max(1, {d}) + ModularIndexing(x, 1, {d})",
            f"{k}FloorDiv(x, {d})*({d}) + {k}Mod(x, {d})",
            f"s0*({d})*FloorDiv(FloorDiv(x, s0), {d}) + s0*ModularIndexing(x, s0, {d})"
            " + ModularIndexing(x, 1, s0)",
        )
    )
    size = f"s0*s1*({d})" if text.startswith("s0*") else f"s1*({d})"
    ranges: Ranges = (("s0", lo, hi), ("s1", 2, hi), ("x", 0, f"{size} - 1"), ("y", 0, 3))
    sizes: Sizes = (("x", size), ("y", 4))
    return _case(text, ranges, sizes, "recombine_nested_divisor")


def _gen_factored_product(rng: random.Random) -> Case:
    """A div/mod times a sum, Min or Max (expanding it copies the div/mod)."""
    ranges, sizes = _symbolic(rng, ("x", "y"))
    ranges = (("s0", 3, ranges[0][2]), *ranges[1:])
    c = rng.choice((2, 4, 8))
    a = rng.choice(("FloorDiv(x, s0)", f"FloorDiv(x, {c})", f"ModularIndexing(x, 1, {c})"))
    text = rng.choice(
        (
            f"{a}*Max(1, s0 - 1) + ModularIndexing(x, 1, s0)",
            f"{a}*(s1 + 2) + y",
            f"({a} + 1)*(y + 1)",
            f"{a}*Max(1, s0 - 2)*s1",
            f"Min(16, 2*{a} + 2)*Max(0, 2*ModularIndexing(y, 1, {c}) - 1)",
            f"{a}*(FloorDiv(s0 - 3, 2) + 1)",
        )
    )
    return _case(text, ranges, sizes, "factored_product")


_LEAVES_CONST = ("x", "y", "x + y", "2*x", "x + 3", "4*y + x")
_LEAVES_SYM = ("x", "y", "x + y", "s0*y + x", "x + s0")


def _tree(rng: random.Random, depth: int, symbolic: bool) -> str:
    leaves = _LEAVES_SYM if symbolic else _LEAVES_CONST
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(leaves)
    a = _tree(rng, depth - 1, symbolic)
    divisors: list[str] = [str(v) for v in (2, 3, 4, 8, 16)]
    if symbolic:
        divisors += ["s0", "s0", "s1", "2*s0"]
    d = rng.choice(divisors)
    op = rng.randrange(7)
    if op == 0:
        return f"FloorDiv({a}, {d})"
    if op == 1:
        return f"Mod({a}, {d})"
    if op == 2:
        return _mi(a, rng.choice(("1", "1", d)), rng.choice(divisors))
    if op == 3:
        return f"CeilDiv({a}, {d})"
    if op == 4:
        return f"{rng.choice((2, 3, 4))}*{a}"
    if op == 5:
        return f"{a} + {_tree(rng, depth - 1, symbolic)}"
    return f"{a} + {rng.randint(1, 9)}"


def _gen_random_tree(rng: random.Random) -> Case:
    symbolic = rng.random() < 0.5
    ranges, sizes = _symbolic(rng, ("x", "y")) if symbolic else _loop(rng, ("x", "y"))
    text = _tree(rng, 3, symbolic)
    while "Div" not in text and "Mod" not in text:  # at least one div/mod
        text = _tree(rng, 3, symbolic)
    return _case(text, ranges, sizes, "random_tree")


#: The generator's families, used in rotation (the random trees three times per round).
FAMILIES: tuple[Callable[[random.Random], Case], ...] = (
    _gen_nested_floordiv,
    _gen_nested_floordiv_symbolic,
    _gen_mod_of_scaled_div,
    _gen_ceil_floor_pair,
    _gen_ceil_floor_symbolic,
    _gen_common_factor,
    _gen_mod_scaled,
    _gen_recombine,
    _gen_div_of_bounded_sum,
    _gen_nested_modind,
    _gen_nested_ceildiv,
    _gen_nested_modind_symbolic,
    _gen_recombine_nested_divisor,
    _gen_factored_product,
    _gen_random_tree,
    _gen_random_tree,
    _gen_random_tree,
)


#: draws a family gets to produce a case not seen before, before its turn passes
_TRIES = 30


def generate(n: int, seed: int = 0) -> list[Case]:
    """``n`` distinct generated cases (expression and ranges), the same for a given
    ``seed``: the families take turns, each drawing until it yields a new case (a family
    whose draws keep repeating passes its turn)."""
    rng = random.Random(seed)
    seen: set[tuple[str, Ranges]] = set()
    out: list[Case] = []
    turn = 0
    while len(out) < n and turn < 100 * max(n, 1):
        family = FAMILIES[turn % len(FAMILIES)]
        turn += 1
        for _ in range(_TRIES):
            c = family(rng)
            if (c.text, c.ranges) not in seen:
                seen.add((c.text, c.ranges))
                out.append(c)
                break
    return out


def all_cases(n: int = DEFAULT_N, seed: int = 0) -> list[Case]:
    """The named cases, then ``n`` generated ones."""
    return [*NAMED, *generate(n, seed)]


# ---------------------------------------------------------------------------------------
# The report


@dataclass(frozen=True)
class Loss:
    """A case where indexalg leaves more div/mod operations than another system."""

    index: int
    other: str
    case: Case
    ours: str
    ours_divmod: int
    theirs: str
    theirs_divmod: int


def losses(bench: Benchmark, other: str) -> list[Loss]:
    """Every common case where indexalg leaves more div/mod operations than ``other``."""
    base, rep = bench.report("indexalg"), bench.report(other)
    if base is None or rep is None:
        return []
    out = []
    for i in bench.common():
        a, b = base.counts[i].divmod, rep.counts[i].divmod
        if a > b:
            out.append(
                Loss(i, other, bench.cases[i], str(base.outputs[i]), a, str(rep.outputs[i]), b)
            )
    return out


def _ranges_text(c: Case) -> str:
    return ", ".join(
        f"{'' if lo is None else f'{lo} <= '}{n}{'' if hi is None else f' <= {hi}'}"
        for n, lo, hi in c.ranges
    )


def totals_table(bench: Benchmark) -> str:
    """Per system, over the common cases: div/mod and ops left, and how many it took."""
    common = bench.common()
    dm_in = sum(bench.input_counts[i].divmod for i in common)
    dist_in = sum(bench.input_counts[i].divmod_distinct for i in common)
    ops_in = sum(bench.input_counts[i].total for i in common)
    lines = [
        "| system | took | skipped | errors | div/mod left (distinct) | ops left "
        "| cases with 0 div/mod | mismatches | median µs (cold) |",
        "|---|---|---|---|---|---|---|---|---|",
        f"| input ({len(common)} common of {len(bench.cases)}) | | | | {dm_in} ({dist_in}) "
        f"| {ops_in} | {sum(bench.input_counts[i].divmod == 0 for i in common)} | | |",
    ]
    for rep in bench.reports:
        c = rep.totals(common)
        zero = sum(rep.counts[i].divmod == 0 for i in common)
        med = rep.timing("cold_ns", common).median_us
        lines.append(
            f"| {rep.system.label} | {rep.count('ok')} | {rep.count('skipped')} "
            f"| {rep.count('error') + rep.unreadable} | {c.divmod} ({c.divmod_distinct}) "
            f"| {c.total} | {zero} | {len(rep.mismatches)} | {med:.1f} |"
        )
    return "\n".join(lines)


def family_table(bench: Benchmark) -> str:
    """Div/mod left per family, and indexalg's losses per family."""
    common = bench.common()
    fams: dict[str, list[int]] = {}
    for i in common:
        fams.setdefault(bench.cases[i].workload, []).append(i)
    others = [r for r in bench.reports if r.system.key != "indexalg"]
    base = bench.report("indexalg")
    head = "| family | cases | input | " + " | ".join(r.system.key for r in bench.reports)
    head += "".join(f" | indexalg more / fewer than {r.system.key}" for r in others) + " |"
    lines = [head, "|" + "---|" * (3 + len(bench.reports) + len(others))]
    for fam, idx in fams.items():
        row = f"| {fam} | {len(idx)} | {sum(bench.input_counts[i].divmod for i in idx)} | "
        row += " | ".join(str(sum(r.counts[i].divmod for i in idx)) for r in bench.reports)
        for r in others:
            assert base is not None
            more = sum(base.counts[i].divmod > r.counts[i].divmod for i in idx)
            fewer = sum(base.counts[i].divmod < r.counts[i].divmod for i in idx)
            row += f" | {more} / {fewer}"
        lines.append(row + " |")
    return "\n".join(lines)


def report(bench: Benchmark, *, command: str, commit: str, examples: int | None = None) -> str:
    """The markdown report (a ``## `` section): header, totals, families, losses."""
    m = machine_info()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        f"## {when}: bench.compare, {bench.source}",
        "",
        f"`{command}`; indexalg at commit {commit}; machine: {m['nproc']} CPUs, Python "
        f"{m['python']}, torch {m['torch']}, sympy {m['sympy']}, apache-tvm {m['tvm']}; "
        f"{bench.points} points per expression; run took {bench.seconds:.0f} s; load average "
        f"{bench.load[0]:.1f} at the start, {bench.load[1]:.1f} at the end.",
        "",
        totals_table(bench),
        "",
        "Div/mod left per family (common expressions):",
        "",
        family_table(bench),
        "",
    ]
    base = bench.report("indexalg")
    common = bench.common()
    for rep in bench.reports:
        if rep is base or base is None:
            continue
        fewer = sum(base.counts[i].divmod < rep.counts[i].divmod for i in common)
        more = sum(base.counts[i].divmod > rep.counts[i].divmod for i in common)
        lines.append(
            f"- div/mod left, indexalg vs {rep.system.label}: fewer on {fewer}, more on "
            f"{more}, equal on {len(common) - fewer - more} expressions"
        )
        lines.append(
            f"- target: indexalg leaves no more div/mod than {rep.system.key} on any expression: "
            f"{'met' if more == 0 else f'NOT met ({more} expressions)'}"
        )
    if base is not None:
        bad = len(base.mismatches)
        verdict = "met" if bad == 0 else f"NOT met ({bad})"
        lines.append(f"- target: 0 value mismatches for indexalg: {verdict}")
    for rep in bench.reports:
        for mm in rep.mismatches[:5]:
            lines.append(
                f"- MISMATCH {mm.system} [{mm.case.workload}]: `{mm.case.text}` with "
                f"`{_ranges_text(mm.case)}` -> `{mm.output}`; at {mm.point}: expected "
                f"{mm.expected}, got {mm.got}"
            )
    lines.append("")
    for rep in bench.reports:
        if rep is base:
            continue
        ls = losses(bench, rep.system.key)
        if not ls:
            continue
        shown = ls if examples is None else ls[:examples]
        lines.append(
            f"Where indexalg leaves more div/mod than {rep.system.key} ({len(ls)} expressions"
            + (f", the first {len(shown)}" if len(shown) < len(ls) else "")
            + "):"
        )
        lines.append("")
        for loss in shown:
            lines.append(_loss_line(loss))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def _loss_line(loss: Loss) -> str:
    c = loss.case
    return (
        f"- [{c.workload}] `{c.text}` with `{_ranges_text(c)}`: indexalg "
        f"({loss.ours_divmod}) `{loss.ours}`; {loss.other} ({loss.theirs_divmod}) "
        f"`{loss.theirs}`"
    )


def losses_markdown(bench: Benchmark, *, commit: str, command: str) -> str:
    """Every loss, grouped by family, for whoever fixes the simplifier."""
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# bench.compare: where indexalg leaves more div/mod than TVM or Inductor",
        "",
        f"{when}; `{command}`; indexalg at commit {commit}. Counts by "
        "`bench.simplify.op_counts` (ModularIndexing(a, d, m) = 2, 1 when d = 1). "
        "Reproduce one: `ia.simplify(ia.parse(TEXT), RANGES)`.",
        "",
        totals_table(bench),
        "",
    ]
    for rep in bench.reports:
        if rep.system.key == "indexalg":
            continue
        ls = losses(bench, rep.system.key)
        lines.append(f"## Losses to {rep.system.label}: {len(ls)}")
        lines.append("")
        groups: dict[str, list[Loss]] = {}
        for loss in ls:
            groups.setdefault(loss.case.workload, []).append(loss)
        for fam, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"### {fam} ({len(items)})")
            lines.append("")
            lines += [_loss_line(x) for x in items]
            lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def per_expression(bench: Benchmark) -> list[dict[str, Any]]:
    """One record per case: the input, and each system's output and div/mod count."""
    out = []
    for i, c in enumerate(bench.cases):
        rec: dict[str, Any] = {
            "index": i,
            "family": c.workload,
            "text": c.text,
            "ranges": [list(r) for r in c.ranges],
            "input_divmod": bench.input_counts[i].divmod if i in bench.input_counts else None,
        }
        for rep in bench.reports:
            res = rep.results[i]
            rec[rep.system.key] = {
                "status": res.status,
                "out": res.out if res.status == "ok" else res.why,
                "divmod": rep.counts[i].divmod if i in rep.counts else None,
            }
        out.append(rec)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__.split("\n")[0])
    p.add_argument("-n", type=int, default=DEFAULT_N, help="generated cases (besides the named)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--points", type=int, default=32, help="in-range points per expression")
    p.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    p.add_argument("--no-tvm", action="store_true")
    p.add_argument("--no-inductor", action="store_true")
    p.add_argument("--in-process", action="store_true", help="run the systems in this process")
    p.add_argument("--per-expression", metavar="PATH", help="write one JSON line per case")
    p.add_argument("--losses-md", metavar="PATH", help="write the losses, grouped by family")
    p.add_argument("--examples", type=int, default=None, help="losses listed per system")
    p.add_argument("--append-results", action="store_true", help="prepend to bench/RESULTS.md")
    p.add_argument(
        "--results-file", type=Path, default=RESULTS_PATH, help="the file --append-results edits"
    )
    p.add_argument(
        "--commit", help="the commit measured, for the report (default: this checkout's HEAD)"
    )
    args = p.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    cases = all_cases(args.n, args.seed)
    systems = available_systems(tvm=not args.no_tvm, inductor=not args.no_inductor)
    commit = args.commit or git_commit()
    bench = run_benchmark(
        cases,
        systems,
        source=f"{len(NAMED)} named + {args.n} generated expressions (seed {args.seed})",
        points=args.points,
        seed=args.seed,
        in_process=args.in_process,
        clock=args.clock,
        log=log,
    )
    command = "python -m bench.compare" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    text = report(bench, command=command, commit=commit, examples=args.examples)
    print(text)
    for rep in bench.reports:
        for r in [r for r in rep.results if r.status == "error"][:3]:
            print(f"{rep.system.key} error: {r.why[:300]}")
    if args.per_expression:
        with open(args.per_expression, "w", encoding="utf-8") as f:
            for rec in per_expression(bench):
                f.write(json.dumps(rec) + "\n")
        log(f"wrote {args.per_expression}")
    if args.losses_md:
        Path(args.losses_md).write_text(
            losses_markdown(bench, commit=commit, command=command), encoding="utf-8"
        )
        log(f"wrote {args.losses_md}")
    if args.append_results:
        append_results(
            report(bench, command=command, commit=commit, examples=10), args.results_file
        )
        log(f"appended to {args.results_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
