"""``indexalg-triton plan``: JSON contract, text output, exit statuses, no tracebacks (the
golden files of the whole command are in test_cli_golden.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from indexalg_triton.cli import main

SEED_C = [
    "--index",
    "x0 + 9*x1",
    "--index",
    "x0 + 9*x1",
    "--store",
    "x0 + 7*x1",
    "--range",
    "x0=7",
    "--range",
    "x1=3",
    "--prefer-nd",
]


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    out: dict = json.loads(capsys.readouterr().out)
    return out


def test_seed_c_block_pointers(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(["plan", *SEED_C, "--allow", "block_pointer"], capsys)
    assert out["tiling"]["ndim"] == 2
    assert [ax["loops"] for ax in out["tiling"]["axes"]] == [["x0"], ["x1"]]
    got = [(a["kind"], a["shape"], a["strides"], a["broadcast"]) for a in out["accesses"]]
    assert got == [("block_pointer", [7, 3], [1, 9], False)] * 2 + [
        ("block_pointer", [7, 3], [1, 7], False)
    ]
    for a in out["accesses"]:
        assert {"kind", "shape", "strides", "block_shape", "offsets", "broadcast"} <= set(a)
        assert a["block_shape"] == ["XBLOCK", "YBLOCK"] and a["offsets"] == ["xoffset", "yoffset"]


def test_seed_c_descriptors_only(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(["plan", *SEED_C, "--allow", "tensor_descriptor"], capsys)
    kinds = [a["kind"] for a in out["accesses"]]
    assert kinds == ["pointer"] * 3
    assert out["accesses"][0]["reasons"] == [
        "tensor_descriptor: stride 9 x 4 bytes is not a multiple of 16 bytes"
    ]
    assert out["accesses"][0]["index"] == "xindex + 9*yindex"


def test_seed_a_broadcast(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        [
            "plan",
            "--index",
            "x",
            "--index",
            "8*(x//8)",
            "--range",
            "x=64",
            "--allow",
            "block_pointer,tensor_descriptor",
        ],
        capsys,
    )
    second = out["accesses"][1]
    assert (second["kind"], second["shape"], second["strides"]) == ("block_pointer", [8], [8])
    assert second["broadcast"] is True and second["final_shape"] == ["XBLOCK"]
    assert out["accesses"][0]["kind"] == "tensor_descriptor"


def test_outer_first_and_blocks(capsys: pytest.CaptureFixture[str]) -> None:
    out = _json(
        [
            "plan",
            "--index",
            "x0 + 9*x1",
            "--range",
            "x1=3",
            "--range",
            "x0=7",
            "--outer-first",
            "--prefer-nd",
            "--allow",
            "block_pointer",
            "--block",
            "XBLOCK=8",
            "--block",
            "YBLOCK=4",
        ],
        capsys,
    )
    assert out["accesses"][0]["block_shape"] == [8, 4]
    assert out["accesses"][0]["boundary_check"] == [0, 1]


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", *SEED_C, "--allow", "tensor_descriptor"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("tiling: 2-D")
    assert "why not: tensor_descriptor: stride 9 x 4 bytes" in text


BAD = [
    (["plan", "--index", "x +", "--range", "x=4"], "column 4"),
    (["plan", "--index", "x", "--range", "x=0"], "leaves no values"),
    (["plan", "--index", "x", "--range", "x=4", "--allow", "tma"], "unknown access kind"),
    (["plan", "--index", "x", "--range", "x=4", "--dtype", "f9"], "unknown dtype"),
    (["plan", "--index", "x", "--range", "x=4", "--block", "XBLOCK=3"], "power of two"),
    (["plan", "--index", "x", "--range", "x=4", "--block", "QBLOCK=4"], "XBLOCK=N"),
    (["plan", "--index", "x < 3", "--range", "x=4"], "claim"),
    (["plan", "--range", "x=4"], "at least one"),
    (["plan", "--index", "x"], "no loop variable"),
    (["plan", "--index", "x // 0", "--range", "x=4"], "division by zero"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=lambda v: str(v))
def test_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--index", "x", "--bogus"]) == 2
    assert main(["plan", "--index", "x", "--range", "x=4", "--max-tiles", "0"]) == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments: --bogus" in err and "expected an integer in 1..3" in err


def test_console_script() -> None:
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "indexalg_triton.cli",
            "plan",
            "--index",
            "x",
            "--range",
            "x=64",
            "--json",
            "--allow",
            "none",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["accesses"][0]["kind"] == "pointer"
