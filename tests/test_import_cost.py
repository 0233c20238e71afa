"""``import indexalg`` (and the companion ``indexalg_triton``) must import only the standard
library: sympy, z3, torch and triton are imported inside the functions that use them."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

HEAVY = ("sympy", "z3", "torch", "triton", "mpmath")


@dataclass(frozen=True)
class Case:
    statement: str


CASES = [
    Case("import indexalg"),
    Case("import indexalg_triton"),
    Case("import indexalg, indexalg_triton"),
    Case("import indexalg.interop"),
    Case("import indexalg.interop.sympy"),
    Case("from indexalg import parse; parse('ModularIndexing(x, 64, 8) + x // 3')"),
]

_PROBE = """
import json, sys
{statement}
heavy = {heavy!r}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def loaded_heavy_modules(statement: str) -> list[str]:
    """The heavy modules in sys.modules of a fresh interpreter after ``statement``."""
    code = _PROBE.format(statement=statement, heavy=HEAVY)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    loaded: list[str] = json.loads(proc.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.statement)
def test_import_leaves_heavy_libraries_out(case: Case) -> None:
    assert loaded_heavy_modules(case.statement) == []


def test_probe_sees_a_heavy_import() -> None:
    """The probe itself works: importing sympy directly is reported."""
    pytest.importorskip("sympy")
    assert "sympy" in loaded_heavy_modules("import sympy")
