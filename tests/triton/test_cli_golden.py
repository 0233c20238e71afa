"""``indexalg-triton``: golden input/output files, exit statuses, ``python -m``.

Golden files live in ``tests/triton/cli_golden/NAME.out``: the exit status, then stdout and
stderr (the core command's format, tests/test_cli.py).  Regenerate them after an intended
change with ``INDEXALG_UPDATE_GOLDEN=1 pytest tests/triton/test_cli_golden.py`` and review the
diff.  Every case names its ``--allow`` kinds, so nothing depends on the installed Triton.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from indexalg_triton.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "cli_golden"
UPDATE = os.environ.get("INDEXALG_UPDATE_GOLDEN") == "1"
PERMUTED = "ModularIndexing(x, 1, 64)*64 + x // 64"
SEED_C = ("--index", "x0 + 9*x1", "--store", "x0 + 7*x1", "-r", "x0=7", "-r", "x1=3")


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]


GOLDEN_CASES = [
    # the command itself
    Case("version", ("--version",)),
    Case("help", ("--help",)),
    Case("plan_help", ("plan", "--help")),
    Case("emit_help", ("emit", "--help")),
    Case("verify_help", ("verify", "--help")),
    Case("no_command", ()),
    # plan: the text output shows every step of the JSON output
    Case(
        "plan_permute",
        ("plan", "--index", PERMUTED, "-r", "x=4096", "--allow", "tensor_descriptor"),
    ),
    Case(
        "plan_permute_json",
        ("plan", "--index", PERMUTED, "-r", "x=4096", "--allow", "tensor_descriptor", "--json"),
    ),
    Case(
        "plan_broadcast",
        (
            "plan",
            "--index",
            "x",
            "--index",
            "8*(x//8)",
            "-r",
            "x=64",
            "--allow",
            "block_pointer,tensor_descriptor",
        ),
    ),
    Case(
        "plan_block_pointers_2d",
        (
            "plan",
            "--index",
            "x0 + 9*x1",
            "-r",
            "x1=3",
            "-r",
            "x0=7",
            "--outer-first",
            "--prefer-nd",
            "--allow",
            "block_pointer",
            "--block",
            "XBLOCK=8",
            "--block",
            "YBLOCK=4",
        ),
    ),
    Case(
        "plan_block_not_applying_prefer_nd",
        (
            "plan",
            *SEED_C,
            "--prefer-nd",
            "--allow",
            "block_pointer",
            "--block",
            "XBLOCK=8",
            "--block",
            "YBLOCK=4",
        ),
    ),
    Case("plan_pointers", ("plan", *SEED_C, "--allow", "none")),
    Case(
        "plan_negative_index",
        ("plan", "--index", "-x0", "--store", "-x0 + 63", "-r", "x0=64", "--allow", "none"),
    ),
    Case("plan_negative_index_equals", ("plan", "--index=-x0", "-r", "x0=64", "--allow", "none")),
    # plan: range checks and options that do not apply
    Case("plan_max_tiles_out_of_range", ("plan", "--index", "x", "-r", "x=64", "--max-tiles", "9")),
    Case(
        "plan_max_tiles_not_integer", ("plan", "--index", "x", "-r", "x=64", "--max-tiles", "two")
    ),
    Case(
        "plan_block_not_applying",
        (
            "plan",
            "--index",
            "x0 + 7*x1",
            "-r",
            "x0=64",
            "-r",
            "x1=3",
            "--allow",
            "none",
            "--block",
            "YBLOCK=64",
        ),
    ),
    Case(
        "plan_block_beyond_max_tiles",
        ("plan", "--index", "x", "-r", "x=64", "--max-tiles", "1", "--block", "YBLOCK=64"),
    ),
    Case(
        "plan_block_twice",
        ("plan", "--index", "x", "-r", "x=64", "--block", "XBLOCK=64", "--block", "XBLOCK=32"),
    ),
    Case(
        "plan_block_not_power_of_two", ("plan", "--index", "x", "-r", "x=64", "--block", "XBLOCK=3")
    ),
    Case(
        "plan_prefer_nd_one_tile",
        ("plan", "--index", "x", "-r", "x=64", "--max-tiles", "1", "--prefer-nd"),
    ),
    Case("plan_empty_allow", ("plan", "--index", "x", "-r", "x=64", "--allow", "")),
    Case("plan_unknown_kind", ("plan", "--index", "x", "-r", "x=64", "--allow", "tma")),
    Case("plan_unknown_dtype", ("plan", "--index", "x", "-r", "x=64", "--dtype", "f9")),
    Case("plan_parse_error", ("plan", "--index", "x +", "-r", "x=64")),
    Case("plan_no_access", ("plan", "-r", "x=64")),
    # sizes beyond a float's range are exact integers all the way (was OverflowError, exit 5)
    Case(
        "plan_size_beyond_float",
        ("plan", "--index", "x0", "-r", f"x0={10**309}", "--allow", "none"),
    ),
    Case(
        "plan_size_beyond_float_2d",
        (
            "plan",
            "--index",
            "x0 + 3*x1",
            "--store",
            "x1 + x0*s",
            "-r",
            "x0=3",
            "-r",
            "x1=s",
            "-r",
            f"s={10**309}..",
            "--allow",
            "none",
            "--prefer-nd",
            "--json",
        ),
    ),
    # emit and verify
    Case("emit_unknown_workload", ("emit", "--workload", "nope")),
    Case("emit_size_missing", ("emit", "--workload", "softmax", "--size", "int64")),
    Case("emit_unknown_kind", ("emit", "--workload", "transpose_add", "--allow", "bogus")),
    Case("verify_large_refused", ("verify", "--size", "large")),
]


def _render(code: int, out: str, err: str) -> str:
    """The golden text; trailing spaces are dropped so that editors cannot break it."""
    text = f"exit: {code}\n--- stdout\n{out}--- stderr\n{err}"
    return "\n".join(line.rstrip() for line in text.split("\n"))


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=lambda c: c.name)
def test_golden(
    case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")
    capsys.readouterr()
    code = main(list(case.argv))
    out, err = capsys.readouterr()
    got = _render(code, out, err)
    path = GOLDEN / f"{case.name}.out"
    if UPDATE:
        path.write_text(got, encoding="utf-8")
    assert "Traceback" not in err
    assert got == path.read_text(encoding="utf-8")


def test_every_golden_file_has_a_case() -> None:
    names = {c.name for c in GOLDEN_CASES}
    assert sorted(p.stem for p in GOLDEN.glob("*.out") if p.stem not in names) == []


def test_bad_input_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    for case in GOLDEN_CASES:
        capsys.readouterr()
        if main(list(case.argv)) != 2:
            continue
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if line.startswith("error: ")]
        assert len(errors) == 1, (case.name, err)


def test_emit_prints_the_generated_source(capsys: pytest.CaptureFixture[str]) -> None:
    """Kernel source follows the core's printer, so it is compared with the library call
    rather than kept golden."""
    from indexalg_triton.codegen import generate
    from indexalg_triton.workloads import get

    capsys.readouterr()
    assert main(["emit", "--workload", "transpose_add", "--allow", "tensor_descriptor"]) == 0
    spec = get("transpose_add").spec("small")
    assert capsys.readouterr().out == generate(spec, kinds=("tensor_descriptor",)).source


def test_python_dash_m() -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "indexalg_triton",
            "plan",
            "--index",
            "-x",
            "-r",
            "x=64",
            "--allow",
            "none",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert r.returncode == 0, r.stderr
    assert '"kind": "pointer"' in r.stdout
    r = subprocess.run(
        [sys.executable, "-m", "indexalg_triton", "--version"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert r.returncode == 0 and r.stdout.startswith("indexalg-triton ")


def test_internal_error_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexalg_triton.cli as cli

    def boom(*args: object, **kwargs: object) -> object:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(cli, "choose_tiling", boom)
    assert main(["plan", "--index", "x", "-r", "x=64"]) == 5
    err = capsys.readouterr().err
    assert err == "error: internal error: ZeroDivisionError: boom\n"
    assert main(["plan", "--index", "x", "-r", "x=64", "--debug"]) == 5
    assert "Traceback" in capsys.readouterr().err


_IMPORTS = """
import sys
from indexalg_triton.cli import main
code = main(sys.argv[1:])
heavy = [m for m in ("torch", "triton", "z3", "sympy") if m in sys.modules]
print(f"exit {code} heavy {','.join(heavy) or 'none'}")
"""


@pytest.mark.parametrize(
    "argv",
    [
        ("plan", "--index", "x0 + 9*x1", "-r", "x0=7", "-r", "x1=3", "--allow", "none"),
        ("emit", "--workload", "transpose_add", "--size", "int64"),
        ("emit", "--workload", "transpose_add", "--allow", "bogus"),
        ("verify", "--workload", "int8_unpack", "--workload", "softmax", "--size", "large"),
    ],
    ids=["plan", "emit_bad_size", "emit_bad_allow", "verify_bad_size"],
)
def test_commands_import_only_what_they_need(argv: tuple[str, ...]) -> None:
    """``plan`` imports neither torch nor triton; bad ``emit``/``verify`` options are refused
    before the workload is traced (which imports torch: 19-31 s on the GPU machine)."""
    r = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        timeout=120,
    )
    code = 0 if argv[0] == "plan" else 2
    assert r.stdout.splitlines()[-1] == f"exit {code} heavy none", r.stderr
