"""The Python, C and Triton printers, checked by executing what they print.

Every printed form is run (Python: ``eval``; C: one gcc-compiled program; Triton: generated
``@triton.jit`` kernels under ``TRITON_INTERPRET=1`` in a subprocess) over many symbol
assignments, negative operands and divisors included, and compared with ``ia.evaluate``:
a table of cases per op, Inductor's two known faults, and a few hundred seeded random
expressions, each under the default (syntactic) non-negativity facts and under caller
facts that let the printers use native truncating division.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

import indexalg as ia
from indexalg.errors import DivisionByZeroError, InvalidOperationError
from indexalg.evaluate import EVAL_TABLE
from indexalg.expr import ALL_OPS
from indexalg.printing.c import C_PREAMBLE, C_TABLE, to_c
from indexalg.printing.common import syntactic_nonneg
from indexalg.printing.python import PYTHON_TABLE, to_python
from indexalg.printing.triton import TRITON_PREAMBLE, TRITON_TABLE, to_triton

NAMES = ("x", "y", "z", "w")
x, y, z, w = ia.symbols("x y z w")
n, x0 = y, x  # Inductor's fault reports name them n and x0

Env = dict[str, int]
NonNegFn = Callable[[ia.Expr], bool]


# ---------------------------------------------------------------------------------------
# Cases: one or more per op, negative operands and divisors included


@dataclass(frozen=True)
class Case:
    name: str
    expr: ia.Expr


CASES: tuple[Case, ...] = (
    Case("integer", ia.Integer(5)),
    Case("negative integer", ia.Integer(-5)),
    Case("int64 min", ia.Integer(-(2**63))),
    Case("claim true", ia.true),
    Case("claim false", ia.false),
    Case("symbol", x),
    Case("sum", 2 * x - 3 * y + 5),
    Case("sum leading negative", -x + y - 7),
    Case("negated floordiv term", y - x // 3),
    Case("negated leading floordiv", -(x // 3) - y),
    Case("product", x * y * z),
    Case("negated product", -x * y),
    Case("square", x * x - y),
    Case("big literals", x * 2**40 + 2**40),
    Case("int64-min constant", ia.Where(x < 0, x, x - 2**63)),
    Case("floordiv pos literal", ia.FloorDiv(x, 3)),
    Case("floordiv neg literal", ia.FloorDiv(x, -3)),
    Case("floordiv symbolic", ia.FloorDiv(x, y)),
    Case("floordiv literal dividend", ia.FloorDiv(-7, y)),
    Case("floordiv of sums", ia.FloorDiv(x + 1, y - 2)),
    Case("floordiv of product", ia.FloorDiv(2 * x, 3)),
    Case("inductor floordiv chain", ia.FloorDiv(ia.FloorDiv(n, 2), -3)),
    Case("mod pos literal", ia.Mod(x, 3)),
    Case("mod neg literal", ia.Mod(x, -3)),
    Case("mod symbolic", ia.Mod(x, y)),
    Case("mod literal dividend", ia.Mod(7, y)),
    Case("mod of mod", ia.Mod(ia.Mod(x, 8), -3)),
    Case("mod of floordiv", ia.Mod(ia.FloorDiv(x, 2), 3)),
    Case("ceildiv pos literal", ia.CeilDiv(x, 2)),
    Case("ceildiv neg literal", ia.CeilDiv(x, -2)),
    Case("ceildiv symbolic", ia.CeilDiv(x, y)),
    Case("ceildiv literal dividend", ia.CeilDiv(5, y)),
    Case("ceildiv negated dividend", ia.CeilDiv(-x - 1, y)),
    Case("cleandiv literal", ia.CleanDiv(x, 4)),
    Case("cleandiv symbolic", ia.CleanDiv(x, -y)),
    Case("inductor modular indexing", ia.ModularIndexing(x0 - 1, 1, 8)),
    Case("modular indexing", ia.ModularIndexing(x, 4, 3)),
    Case("modular indexing negated", ia.ModularIndexing(-x, 1, 8)),
    Case("modular indexing symbolic d", ia.ModularIndexing(x, y, 5)),
    Case("modular indexing symbolic m", ia.ModularIndexing(x, 2, y)),
    Case("modular indexing nested", ia.ModularIndexing(ia.ModularIndexing(x, 1, 64), 2, 8)),
    # Unselected where d or m < 1: Triton computes that branch anyway, and it feeds a
    # native division (ModularIndexing + 1 is known positive); it must not divide by zero.
    Case(
        "modular indexing guarded d",
        ia.Where(z > 0, ia.FloorDiv(w, ia.ModularIndexing(x, z, 8) + 1), 0),
    ),
    Case(
        "modular indexing guarded m",
        ia.Where(z > 0, ia.FloorDiv(w, ia.ModularIndexing(x, 2, z) + 1), 0),
    ),
    Case("min", ia.Min(x, y)),
    Case("min3", ia.Min(x, y, -2)),
    Case("max", ia.Max(x, y, z)),
    Case("max literal", ia.Max(x, 3)),
    Case("where", ia.Where(x < 0, x + y, x)),
    Case("where guarded division", ia.Where(ia.Eq(y, 0), 0, ia.FloorDiv(x, y))),
    Case("where nested", ia.Where(x < y, ia.Where(y < z, z, y), -x)),
    Case("times where", 3 * ia.Where(x < 0, ia.Mod(x, 5), -1)),
    Case("lt", x < y),
    Case("le", x <= -y),
    Case("gt", x > ia.FloorDiv(y, -2)),
    Case("eq", ia.Eq(x, 2 * y)),
    Case("ne", ia.Ne(x, y)),
    Case("and", ia.And(x < y, y < z)),
    Case("or", ia.Or(x < 0, ia.Not(y < 0))),
    Case("not and", ia.Not(ia.And(x < y, ia.Or(z < 0, ia.Eq(w, 1))))),
    Case("or of ands", ia.Or(ia.And(x < 0, y < 0), ia.And(z < 0, w < 0))),
)


# ---------------------------------------------------------------------------------------
# Random expressions (a small local generator; the public strategies live elsewhere)


class RandomExprs:
    """Seeded random integer expressions and claims over NAMES with small literals, every
    op represented, divisors of both signs (literal or symbolic, so possibly zero at a
    point), depth-bounded so values stay far inside int64."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def _nonzero(self) -> int:
        return self.rng.choice([v for v in range(-9, 10) if v != 0])

    def _leaf(self) -> ia.Expr:
        if self.rng.random() < 0.75:
            return ia.Symbol(self.rng.choice(NAMES))
        return ia.Integer(self.rng.randint(-12, 12))

    def integer(self, depth: int) -> ia.Expr:
        r = self.rng
        if depth <= 0 or r.random() < 0.15:
            return self._leaf()

        def sub() -> ia.Expr:
            return self.integer(depth - 1)

        def divisor() -> ia.Expr:
            return ia.Integer(self._nonzero()) if r.random() < 0.6 else sub()

        k = r.randrange(12)
        if k == 0:
            return sub() + sub()
        if k == 1:
            return sub() - sub()
        if k == 2:
            return sub() * (self._nonzero() if r.random() < 0.6 else self._leaf())
        if k == 3:
            return ia.FloorDiv(sub(), divisor())
        if k == 4:
            return ia.Mod(sub(), divisor())
        if k == 5:
            return ia.CeilDiv(sub(), divisor())
        if k == 6:
            return ia.CleanDiv(sub(), divisor())
        if k == 7:
            d = ia.Integer(r.choice([1, 2, 3, 8])) if r.random() < 0.85 else sub()
            m = ia.Integer(r.choice([1, 2, 5, 8])) if r.random() < 0.85 else sub()
            return ia.ModularIndexing(sub(), d, m)
        if k == 8:
            return ia.Min(*[sub() for _ in range(r.randint(2, 3))])
        if k == 9:
            return ia.Max(*[sub() for _ in range(r.randint(2, 3))])
        if k == 10:
            return ia.Where(self.claim(depth - 1), sub(), sub())
        return -sub()

    def claim(self, depth: int) -> ia.Expr:
        r = self.rng
        k = r.randrange(7) if depth > 0 else r.randrange(4)
        a, b = self.integer(depth - 1), self.integer(depth - 1)
        if k == 0:
            return a < b
        if k == 1:
            return a <= b
        if k == 2:
            return ia.Eq(a, b)
        if k == 3:
            return ia.Ne(a, b)
        if k == 4:
            return ia.And(self.claim(depth - 1), self.claim(depth - 1))
        if k == 5:
            return ia.Or(self.claim(depth - 1), self.claim(depth - 1))
        return ia.Not(self.claim(depth - 1))

    def draw(self) -> ia.Expr:
        """One expression (a claim one time in six); retries builds that fold to an error
        (a literal zero divisor)."""
        while True:
            try:
                if self.rng.random() < 1 / 6:
                    return self.claim(3)
                return self.integer(4)
            except InvalidOperationError:
                continue


@cache
def random_exprs() -> tuple[ia.Expr, ...]:
    gen = RandomExprs(20240607)
    out: list[ia.Expr] = []
    seen: set[ia.Expr] = set()
    while len(out) < 320:
        e = gen.draw()
        if e not in seen and e.args:
            seen.add(e)
            out.append(e)
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Assignments and the two fact configurations


def _points(seed: int, *, nonneg_xy: bool) -> tuple[Env, ...]:
    """64 assignments: corner points first, then seeded random values in [-12, 12]
    (x and y in [0, 12] when the configuration claims they are non-negative)."""
    rng = random.Random(seed)
    lo = 0 if nonneg_xy else -12
    corners = [
        {"x": 0, "y": 0, "z": 0, "w": 0},
        {"x": 0, "y": 7, "z": -1, "w": 1},
        {"x": 7, "y": 2, "z": -3, "w": -8},
        {"x": 1, "y": 3, "z": 8, "w": -1},
    ]
    if not nonneg_xy:
        corners += [
            {"x": -1, "y": -2, "z": 5, "w": 0},
            {"x": -7, "y": 2, "z": 2, "w": 3},
            {"x": 7, "y": -2, "z": -2, "w": -5},
            {"x": -7, "y": -2, "z": 0, "w": 9},
        ]
    pts = list(corners)
    while len(pts) < 64:
        pts.append(
            {
                "x": rng.randint(lo, 12),
                "y": rng.randint(lo, 12),
                "z": rng.randint(-12, 12),
                "w": rng.randint(-12, 12),
            }
        )
    return tuple(pts)


def _xy_nonneg(e: ia.Expr) -> bool:
    """Caller facts for the second configuration: x >= 0 and y >= 0."""
    return e is x or e is y


@dataclass(frozen=True)
class Config:
    name: str
    nonneg: NonNegFn | None
    points: tuple[Env, ...]


CONFIGS = (
    Config("default", None, _points(1, nonneg_xy=False)),
    Config("x,y>=0", _xy_nonneg, _points(2, nonneg_xy=True)),
)


@dataclass(frozen=True)
class Item:
    """One printed expression to execute: where it came from and its expected values
    (None where the evaluator raises)."""

    label: str
    expr: ia.Expr
    config: Config
    expected: tuple[int | None, ...]


def _expected(e: ia.Expr, points: Sequence[Env]) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for env in points:
        try:
            out.append(int(ia.evaluate(e, env)))
        except InvalidOperationError:
            out.append(None)
    return tuple(out)


@cache
def items() -> tuple[Item, ...]:
    out: list[Item] = []
    for cfg in CONFIGS:
        for case in CASES:
            out.append(
                Item(f"{case.name} [{cfg.name}]", case.expr, cfg, _expected(case.expr, cfg.points))
            )
        for i, e in enumerate(random_exprs()):
            out.append(Item(f"random #{i} [{cfg.name}]", e, cfg, _expected(e, cfg.points)))
    return tuple(out)


def _mismatches(item: Item, got: Sequence[int | None], code: str) -> list[str]:
    bad = []
    for env, want, have in zip(item.config.points, item.expected, got, strict=True):
        if want is not None and want != have:
            bad.append(
                f"{item.label}: {item.expr}  at {env}: evaluate={want}, code={have}\n    {code}"
            )
    return bad


def _report(bad: list[str], total: int) -> str:
    return f"{len(bad)} mismatches of {total} checks; first:\n" + "\n".join(bad[:8])


# ---------------------------------------------------------------------------------------
# Table coverage and printed text


@pytest.mark.parametrize("table", [PYTHON_TABLE, C_TABLE, TRITON_TABLE], ids=["py", "c", "triton"])
def test_printer_table_covers_the_evaluator_ops(table: dict[type, object]) -> None:
    assert set(table) == set(EVAL_TABLE)
    assert set(ALL_OPS) <= set(table)


@pytest.mark.parametrize("printer", [to_python, to_c, to_triton])
def test_printers_refuse_pattern_variables(printer: Callable[[ia.Expr], str]) -> None:
    from indexalg.expr import Wild

    with pytest.raises(InvalidOperationError, match="pattern variable"):
        printer(ia.FloorDiv(Wild("a"), 2))


@pytest.mark.parametrize(
    ("printer", "name"),
    [
        (to_python, "lambda"),
        (to_python, "min"),
        (to_c, "int"),
        (to_c, "ia_mod"),
        (to_triton, "tl"),
        (to_triton, "if"),
    ],
)
def test_printers_refuse_symbols_that_clash_with_the_target(
    printer: Callable[[ia.Expr], str], name: str
) -> None:
    with pytest.raises(InvalidOperationError, match=name):
        printer(ia.Symbol(name) + 1)


@pytest.mark.parametrize("printer", [to_c, to_triton])
def test_literals_outside_int64_are_refused(printer: Callable[[ia.Expr], str]) -> None:
    with pytest.raises(InvalidOperationError, match="int64"):
        printer(x + 2**63)


@dataclass(frozen=True)
class TextCase:
    expr: ia.Expr
    python: str
    c: str
    triton: str
    nonneg: NonNegFn | None = None


TEXT_CASES = (
    # Inductor's fault: x0 - 1 is not known non-negative even when x0 is.
    TextCase(
        ia.ModularIndexing(x0 - 1, 1, 8),
        "(x - 1) % 8",
        "ia_mod(x - 1, 8)",
        "ia_mod(x - 1, 8)",
        _xy_nonneg,
    ),
    TextCase(ia.ModularIndexing(x, 64, 8), "x // 64 % 8", "x / 64 % 8", "x // 64 % 8", _xy_nonneg),
    TextCase(
        ia.ModularIndexing(x, 64, 8),
        "x // 64 % 8",
        "ia_mod(ia_floordiv(x, 64), 8)",
        "ia_mod(ia_floordiv(x, 64), 8)",
    ),
    TextCase(ia.ModularIndexing(z, 1, 8), "z % 8", "ia_mod(z, 8)", "ia_mod(z, 8)"),
    # A symbolic d or m: C's ?: never evaluates an unselected branch, so d, m >= 1 where
    # the op is defined suffices there; Triton computes every branch, so only a known-positive
    # d divides natively (the helpers guard a zero divisor) and an unproven m is clamped.
    TextCase(
        ia.ModularIndexing(x, y, 8),
        "x // y % 8",
        "x / y % 8",
        "ia_mod(ia_floordiv(x, y), 8)",
        _xy_nonneg,
    ),
    TextCase(
        ia.ModularIndexing(x, y + 1, z),
        "x // (y + 1) % z",
        "x / (y + 1) % z",
        "ia_mod(x // (y + 1), tl.maximum(z, 1))",
        _xy_nonneg,
    ),
    # Inductor's other fault: the chain is not folded and the negative divisor is exact.
    TextCase(
        ia.FloorDiv(ia.FloorDiv(n, 2), -3),
        "y // 2 // -3",
        "ia_floordiv(y / 2, -3)",
        "ia_floordiv(y // 2, -3)",
        _xy_nonneg,
    ),
    TextCase(
        ia.FloorDiv(x + 3 * y, 4), "(x + 3*y) // 4", "(x + 3*y) / 4", "(x + 3*y) // 4", _xy_nonneg
    ),
    TextCase(
        ia.FloorDiv(x - y, 4),
        "(x - y) // 4",
        "ia_floordiv(x - y, 4)",
        "ia_floordiv(x - y, 4)",
        _xy_nonneg,
    ),
    TextCase(ia.Mod(x, -4), "x % -4", "ia_mod(x, -4)", "ia_mod(x, -4)", _xy_nonneg),
    TextCase(ia.Mod(x, y + 1), "x % (y + 1)", "x % (y + 1)", "x % (y + 1)", _xy_nonneg),
    TextCase(ia.Mod(x, y), "x % y", "ia_mod(x, y)", "ia_mod(x, y)", _xy_nonneg),  # y may be 0
    TextCase(
        ia.Mod(ia.ModularIndexing(z, 1, 64), 8),
        "z % 64 % 8",
        "ia_mod(z, 64) % 8",
        "ia_mod(z, 64) % 8",
    ),
    TextCase(ia.CeilDiv(x, 8), "(-(-x // 8))", "(x + 7) / 8", "(x + 7) // 8", _xy_nonneg),
    TextCase(
        ia.CeilDiv(x, -2), "(-(-x // -2))", "ia_ceildiv(x, -2)", "ia_ceildiv(x, -2)", _xy_nonneg
    ),
    TextCase(ia.CleanDiv(z * z, 4), "z*z // 4", "z*z / 4", "z*z // 4"),
    TextCase(
        ia.Min(x, y, 3),
        "min(3, x, y)",
        "ia_min(3, ia_min(x, y))",
        "tl.minimum(3, tl.minimum(x, y))",
    ),
    TextCase(ia.Max(x, -1), "max(-1, x)", "ia_max(-1, x)", "tl.maximum(-1, x)"),
    TextCase(
        ia.Where(x < 0, x + 8, x),
        "(x + 8 if x < 0 else x)",
        "(x < 0 ? x + 8 : x)",
        "tl.where(x < 0, x + 8, x)",
    ),
    TextCase(
        ia.Not(ia.And(x < 3, ia.Or(y < 2, z < 1))),
        "not (x < 3 and (y < 2 or z < 1))",
        "!(x < 3 && (y < 2 || z < 1))",
        "~((x < 3) & ((y < 2) | (z < 1)))",
    ),
    TextCase(y - x // 3, "y - x // 3", "y - ia_floordiv(x, 3)", "y - ia_floordiv(x, 3)"),
    TextCase(-(x // 3) - y, "-y - x // 3", "-y - ia_floordiv(x, 3)", "-y - ia_floordiv(x, 3)"),
    TextCase(-(x // 3), "-(x // 3)", "-ia_floordiv(x, 3)", "-ia_floordiv(x, 3)"),
    TextCase(
        2 * x * 2**40 - 5,
        "2199023255552*x - 5",
        "INT64_C(2199023255552)*x - 5",
        "2199023255552*x - 5",
    ),
)


@pytest.mark.parametrize("case", TEXT_CASES, ids=[c.python for c in TEXT_CASES])
def test_printed_text(case: TextCase) -> None:
    assert to_python(case.expr, nonneg=case.nonneg) == case.python
    assert to_c(case.expr, nonneg=case.nonneg) == case.c
    assert to_triton(case.expr, nonneg=case.nonneg) == case.triton


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (ia.Integer(0), True),
        (ia.Integer(-1), False),
        (x, False),
        (-x, False),
        (x * x, True),
        (-(x * x), False),
        (3 * x * x * y * y, True),
        (x * x * x, False),
        (ia.ModularIndexing(x, 1, 8), True),
        (ia.ModularIndexing(x, y, z), True),
        (ia.Mod(x, 3), True),
        (ia.Mod(x, -3), False),
        (ia.Mod(x, y), False),
        (ia.Mod(x, 3) + ia.ModularIndexing(y, 2, 4) + 1, True),
        (ia.Mod(x, 3) - 1, False),
        (ia.FloorDiv(ia.Mod(x, 8), 2), True),
        (ia.FloorDiv(ia.Mod(x, 8), -2), False),
        (ia.CeilDiv(ia.Mod(x, 8), 3), True),
        (ia.CleanDiv(x * x, 4), True),
        (ia.Min(ia.Mod(x, 8), 0), True),
        (ia.Min(x, 0), False),
        (ia.Max(x, 0), True),
        (ia.Where(x < 0, 1, ia.Mod(x, 4)), True),
        (ia.Where(x < 0, -1, ia.Mod(x, 4)), False),
    ],
    ids=lambda v: to_python(v) if isinstance(v, ia.Expr) else str(v),
)
def test_syntactic_nonneg(expr: ia.Expr, expected: bool) -> None:
    assert syntactic_nonneg(expr) is expected


def test_syntactic_nonneg_is_sound_on_random_expressions() -> None:
    checked = 0
    for e in random_exprs():
        if e.is_bool or not syntactic_nonneg(e):
            continue
        for env, v in zip(CONFIGS[0].points, _expected(e, CONFIGS[0].points), strict=True):
            assert v is None or v >= 0, f"{e} at {env} = {v}"
            checked += 1
    assert checked > 500


def test_printer_modules_import_no_heavy_dependency() -> None:
    code = (
        "import sys, indexalg.printing.python, indexalg.printing.c, indexalg.printing.triton\n"
        "bad = [m for m in ('sympy', 'z3', 'torch', 'triton', 'numpy') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_random_expressions_cover_every_op() -> None:
    kinds = {type(node) for e in random_exprs() for node in e.walk()}
    missing = set(ALL_OPS) - kinds - {ia.BoolConst}  # constant claims fold away
    assert not missing, missing
    assert len(random_exprs()) >= 300


# ---------------------------------------------------------------------------------------
# Python: eval the printed text


def test_python_printer_matches_the_evaluator() -> None:
    bad: list[str] = []
    total = 0
    for item in items():
        code = to_python(item.expr, nonneg=item.config.nonneg)
        compiled = compile(code, "<printed>", "eval")
        got: list[int | None] = []
        for env in item.config.points:
            try:
                got.append(
                    int(eval(compiled, {"__builtins__": {"min": min, "max": max}}, dict(env)))
                )
            except ZeroDivisionError:
                got.append(None)
        for env, want, have in zip(item.config.points, item.expected, got, strict=True):
            if want is None:
                try:
                    ia.evaluate(item.expr, env)
                except DivisionByZeroError:
                    if have is not None:
                        bad.append(
                            f"{item.label}: {item.expr} at {env}: expected ZeroDivisionError"
                        )
                except InvalidOperationError:
                    pass  # ModularIndexing with d < 1 or m < 1: Python prints a value
        bad += _mismatches(item, got, code)
        total += len(item.config.points)
    assert not bad, _report(bad, total)


# ---------------------------------------------------------------------------------------
# C: one translation unit, one gcc run


def _c_text(it: Item) -> str:
    return to_c(it.expr, nonneg=it.config.nonneg)


def _c_program(batch: Sequence[Item]) -> tuple[str, list[tuple[int, int]]]:
    """The C source computing every (item, point) pair whose value is defined, and those
    pairs in the order the program prints them."""
    params = ", ".join(f"int64_t {s}" for s in NAMES)
    args = ", ".join(f"p[{i}]" for i in range(len(NAMES)))
    funcs = [
        f"static int64_t f{i}({params}) {{ return (int64_t)({_c_text(it)}); }}"
        for i, it in enumerate(batch)
    ]
    configs = list(CONFIGS)
    pairs = [
        (i, j)
        for i, it in enumerate(batch)
        for j, want in enumerate(it.expected)
        if want is not None
    ]
    point_rows = [
        "{" + ", ".join(str(env[s]) for s in NAMES) + "}" for cfg in configs for env in cfg.points
    ]
    npts = len(configs[0].points)
    calls = "\n".join(f"        case {i}: v = f{i}({args}); break;" for i in range(len(batch)))
    pair_rows = ", ".join(f"{{{i}, {configs.index(batch[i].config) * npts + j}}}" for i, j in pairs)
    main = f"""
#include <stdio.h>
static const int64_t POINTS[][{len(NAMES)}] = {{ {", ".join(point_rows)} }};
static const int PAIRS[][2] = {{ {pair_rows} }};
int main(void) {{
    for (size_t k = 0; k < sizeof PAIRS / sizeof PAIRS[0]; k++) {{
        const int64_t *p = POINTS[PAIRS[k][1]];
        int64_t v = 0;
        switch (PAIRS[k][0]) {{
{calls}
        }}
        printf("%lld\\n", (long long)v);
    }}
    return 0;
}}
"""
    return C_PREAMBLE + "\n" + "\n".join(funcs) + "\n" + main, pairs


def test_c_printer_matches_the_evaluator(tmp_path: Path) -> None:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed")
    batch = items()
    source, pairs = _c_program(batch)
    (tmp_path / "printed.c").write_text(source)
    exe = tmp_path / "printed"
    # Warnings are errors (the printed C is clean; constructors keep ``x < x``, hence the
    # one exception), and UBSan traps signed overflow and division by zero.
    flags = ["-std=c99", "-O0", "-Wall", "-Wextra", "-Werror"]
    flags += ["-Wno-unused-parameter", "-Wno-tautological-compare"]
    ubsan = ["-fsanitize=undefined", "-fno-sanitize-recover=all"]
    build = subprocess.run(
        [gcc, *flags, *ubsan, "printed.c", "-o", str(exe)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    if build.returncode != 0 and "sanitize" in build.stderr:
        build = subprocess.run(
            [gcc, *flags, "printed.c", "-o", str(exe)], cwd=tmp_path, capture_output=True, text=True
        )
    assert build.returncode == 0, build.stderr[:4000]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr[:4000]
    values = [int(v) for v in run.stdout.split()]
    assert len(values) == len(pairs)
    got: dict[int, list[int | None]] = {i: [None] * len(it.expected) for i, it in enumerate(batch)}
    for (i, j), v in zip(pairs, values, strict=True):
        got[i][j] = v
    bad: list[str] = []
    for i, it in enumerate(batch):
        bad += _mismatches(it, got[i], _c_text(it))
    assert not bad, _report(bad, len(pairs))


# ---------------------------------------------------------------------------------------
# Triton: generated kernels under TRITON_INTERPRET=1, in a subprocess

_KERNEL_BATCH = 40

_DRIVER = """
import json, os, sys, warnings
warnings.filterwarnings("ignore")
import numpy
numpy.seterr(all="ignore")
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import printed_kernels as K

spec = json.load(open(sys.argv[1]))
results = []
for batch in spec["batches"]:
    pts = spec["points"][batch["config"]]
    cols = [torch.tensor([p[s] for p in pts], dtype=torch.int64) for s in spec["names"]]
    npts = len(pts)
    out = torch.zeros(batch["count"] * npts, dtype=torch.int64)
    getattr(K, batch["kernel"])[(1,)](*cols, out, N=npts)
    results.append(out.view(batch["count"], npts).tolist())
json.dump(results, open(sys.argv[2], "w"))
"""


def _triton_module(batches: Sequence[Sequence[Item]]) -> str:
    params = ", ".join(f"{s}_ptr" for s in NAMES)
    kernels = []
    for b, batch in enumerate(batches):
        body = [f"    {s} = tl.load({s}_ptr + i)" for s in NAMES]
        body.append("    zero = tl.zeros([N], dtype=tl.int64)")
        for k, it in enumerate(batch):
            text = to_triton(it.expr, nonneg=it.config.nonneg)
            body.append(f"    tl.store(out_ptr + {k} * N + i, zero + ({text}))")
        kernels.append(
            f"@triton.jit\ndef kernel_{b}({params}, out_ptr, N: tl.constexpr):\n"
            "    i = tl.arange(0, N)\n" + "\n".join(body) + "\n"
        )
    return TRITON_PREAMBLE + "\n\n" + "\n\n".join(kernels)


def _triton_unavailable() -> str | None:
    for module in ("triton", "torch", "numpy"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (TRITON_INTERPRET=1 needs triton, torch, numpy)"
    return None


def test_triton_printer_matches_the_evaluator(tmp_path: Path) -> None:
    reason = _triton_unavailable()
    if reason:
        pytest.skip(reason)
    all_items = items()
    # One kernel batch never mixes configurations: a batch runs over one set of points.
    batches: list[list[Item]] = []
    for cfg in CONFIGS:
        mine = [it for it in all_items if it.config is cfg]
        batches += [mine[i : i + _KERNEL_BATCH] for i in range(0, len(mine), _KERNEL_BATCH)]
    (tmp_path / "printed_kernels.py").write_text(_triton_module(batches))
    (tmp_path / "driver.py").write_text(_DRIVER)
    spec = {
        "names": list(NAMES),
        "points": [list(cfg.points) for cfg in CONFIGS],
        "batches": [
            {"kernel": f"kernel_{b}", "count": len(batch), "config": CONFIGS.index(batch[0].config)}
            for b, batch in enumerate(batches)
        ],
    }
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run(
        [sys.executable, "driver.py", "spec.json", "out.json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, textwrap.shorten(run.stderr[-4000:], 4000)
    results = json.loads((tmp_path / "out.json").read_text())
    bad: list[str] = []
    total = 0
    for batch, rows in zip(batches, results, strict=True):
        for it, row in zip(batch, rows, strict=True):
            bad += _mismatches(it, row, to_triton(it.expr, nonneg=it.config.nonneg))
            total += sum(v is not None for v in it.expected)
    assert not bad, _report(bad, total)
