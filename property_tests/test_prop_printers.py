"""The code printers agree with the reference evaluator.

* Python: the printed text, executed, gives the evaluator's value wherever the evaluator
  has one.
* C: a batch of printed expressions is compiled with the system C compiler and run; each
  printed value must be the evaluator's (int64 arithmetic, so only points where every
  intermediate value fits are used).  Printed twice: with the default, context-free
  non-negativity facts and with facts from ``bounds`` under the example's ranges (valid at
  in-range points, which is where the points are).
* Triton (slow): the same, run by Triton's interpreter (``TRITON_INTERPRET=1``).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.strategies import SearchStrategy
from prop_support import SCALE, examples

from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import Add, Expr, Mul
from indexalg.printing import C_PREAMBLE, TRITON_PREAMBLE, to_c, to_python, to_triton
from indexalg.testing.fuzz import expr_cases

Case = tuple[Expr, dict[str, Any], list[dict[str, int]]]
LIMIT = 2**62


@examples(200)
@given(expr_cases())
def test_python_printer_agrees_with_the_evaluator(case: Case) -> None:
    e, _, points = case
    code = compile(to_python(e), "<printed>", "eval")
    for p in points:
        try:
            want = evaluate(e, p)
        except IndexAlgError:
            continue
        assert eval(code, {"__builtins__": {"min": min, "max": max}}, dict(p)) == want


def collect(strategy: SearchStrategy[Any], n: int) -> list[Any]:
    """n examples of ``strategy``, the same ones on every run."""
    out: list[Any] = []

    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def gather(x: Any) -> None:
        out.append(x)

    gather()
    return out


def fits_int64(e: Expr, point: dict[str, int], *, strict: bool) -> bool:
    """Every intermediate value of ``e`` at ``point`` (products and sums included) stays well
    inside int64; with ``strict``, every subexpression is also defined there (Triton's
    ``tl.where`` computes both branches)."""
    for node in e.walk():
        if node.is_bool:
            continue
        try:
            v = evaluate(node, point)
        except IndexAlgError:
            if strict:
                return False
            continue
        assert isinstance(v, int)
        if abs(v) >= LIMIT:
            return False
        if type(node) in (Mul, Add):
            try:
                parts = [abs(int(evaluate(a, point))) for a in node.args]
            except IndexAlgError:
                continue
            total = math.prod([abs(node.payload), *parts]) if type(node) is Mul else sum(parts)
            if total >= LIMIT:
                return False
    return True


def checked_points(
    cases: list[Case], *, strict: bool
) -> list[tuple[Expr, dict[str, Any], dict[str, int], int]]:
    rows = []
    for e, r, points in cases:
        for p in points:
            try:
                want = evaluate(e, p)
            except IndexAlgError:
                continue
            assert isinstance(want, int)
            if fits_int64(e, p, strict=strict):
                rows.append((e, r, p, want))
    return rows


def bounds_nonneg(r: dict[str, Any]) -> Callable[[Expr], bool]:
    from indexalg.analysis import bounds
    from indexalg.expr import Integer

    def nonneg(a: Expr) -> bool:
        lo, _ = bounds(a, r)
        return type(lo) is Integer and lo.payload >= 0

    return nonneg


def test_c_printer_agrees_with_the_evaluator(tmp_path: Path) -> None:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    rows = checked_points(collect(expr_cases(), max(20, round(150 * SCALE))), strict=False)
    blocks = []
    expected = []
    for e, r, p, want in rows:
        for text in (to_c(e), to_c(e, nonneg=bounds_nonneg(r))):
            decls = " ".join(
                f"int64_t {name} = INT64_C({v}); (void){name};" for name, v in p.items()
            )
            blocks.append(f'  {{ {decls} printf("%lld\\n", (long long)({text})); }}')
            expected.append(want)
    source = C_PREAMBLE + "#include <stdio.h>\nint main(void) {\n" + "\n".join(blocks)
    source += "\n  return 0;\n}\n"
    (tmp_path / "printed.c").write_text(source)
    exe = tmp_path / "printed"
    subprocess.run(
        [cc, "-O1", "-fwrapv", "-w", "-o", str(exe), str(tmp_path / "printed.c")], check=True
    )
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == len(expected)
    wrong = [
        (str(rows[i // 2][0]), rows[i // 2][2], w, int(g))
        for i, (w, g) in enumerate(zip(expected, got))
        if int(g) != w
    ]
    assert not wrong, wrong[:5]


TRITON_DRIVER = """
import json, sys
import torch
import printed

results = []
for i, (n, columns) in enumerate(json.load(open(sys.argv[1]))):
    block = 1
    while block < n:
        block *= 2
    args = [torch.tensor(c + [c[0]] * (block - n), dtype=torch.int64) for c in columns]
    out = torch.zeros(block, dtype=torch.int64)
    getattr(printed, f"k{i}")[(1,)](out, *args, BLOCK=block)
    results.append(out[:n].tolist())
json.dump(results, sys.stdout)
"""


@pytest.mark.slow
def test_triton_printer_agrees_with_the_evaluator(tmp_path: Path) -> None:
    pytest.importorskip("triton")
    pytest.importorskip("torch")
    rows = checked_points(collect(expr_cases(), max(10, round(40 * SCALE))), strict=True)
    by_expr: dict[Expr, list[tuple[dict[str, Any], dict[str, int], int]]] = {}
    for e, r, p, want in rows:
        by_expr.setdefault(e, []).append((r, p, want))
    kernels = [TRITON_PREAMBLE]
    inputs = []
    expected = []
    for i, (e, items) in enumerate(by_expr.items()):
        names = [s.payload for s in e.free_symbols]
        params = "".join(f"{n}_ptr, " for n in names)
        loads = "".join(f"    {n} = tl.load({n}_ptr + offs)\n" for n in names)
        kernels.append(
            f"@triton.jit\ndef k{i}(out_ptr, {params}BLOCK: tl.constexpr):\n"
            f"    offs = tl.arange(0, BLOCK)\n{loads}"
            f"    value = {to_triton(e)}\n"
            f"    tl.store(out_ptr + offs, value + tl.zeros([BLOCK], tl.int64))\n"
        )
        inputs.append((len(items), [[p[n] for _, p, _ in items] for n in names]))
        expected.append([w for _, _, w in items])
    (tmp_path / "printed.py").write_text("\n\n".join(kernels))
    (tmp_path / "driver.py").write_text(TRITON_DRIVER)
    (tmp_path / "inputs.json").write_text(json.dumps(inputs))
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONPATH=str(tmp_path))
    run = subprocess.run(
        [sys.executable, str(tmp_path / "driver.py"), str(tmp_path / "inputs.json")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout)
    exprs = list(by_expr)
    wrong = [(str(exprs[i]), g, w) for i, (g, w) in enumerate(zip(got, expected)) if g != w]
    assert not wrong, wrong[:5]


def _adversarial_rows(
    n: int, per_case: int
) -> list[tuple[Expr, dict[str, Any], dict[str, int], int]]:
    from indexalg.testing.adversarial import adversarial_cases

    cases = [
        (e, r, pts[:: max(1, len(pts) // per_case)])
        for e, r, pts in collect(adversarial_cases(), n)
    ]
    return checked_points(cases, strict=False)


def test_c_printer_agrees_on_adversarial_cases(tmp_path: Path) -> None:
    """The adversarial generator's shapes (shared subterms, lowered remainders, negative and
    symbolic ranges) printed as C with the non-negativity facts ``bounds`` gives: a wrong
    bound that calls a negative operand non-negative prints a truncating ``/`` or ``%``."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    rows = _adversarial_rows(max(20, round(150 * SCALE)), 12)
    blocks = []
    expected = []
    printed = []
    for e, r, p, want in rows:
        try:
            text = to_c(e, nonneg=bounds_nonneg(r))
        except IndexAlgError:
            continue  # a literal past int64 (2**64 + 1, 10**40): the C printer refuses it
        decls = " ".join(f"int64_t {name} = INT64_C({v}); (void){name};" for name, v in p.items())
        blocks.append(f'  {{ {decls} printf("%lld\\n", (long long)({text})); }}')
        expected.append(want)
        printed.append((e, r, p))
    source = C_PREAMBLE + "#include <stdio.h>\nint main(void) {\n" + "\n".join(blocks)
    source += "\n  return 0;\n}\n"
    (tmp_path / "printed.c").write_text(source)
    exe = tmp_path / "printed"
    subprocess.run(
        [cc, "-O1", "-fwrapv", "-w", "-o", str(exe), str(tmp_path / "printed.c")], check=True
    )
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    assert len(got) == len(expected) > 20
    wrong = [
        (str(printed[i][0]), printed[i][1], printed[i][2], w, int(g))
        for i, (w, g) in enumerate(zip(expected, got))
        if int(g) != w
    ]
    assert not wrong, wrong[:5]
