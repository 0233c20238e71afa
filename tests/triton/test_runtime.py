"""indexalg_triton.runtime: every kind of generated kernel runs in Triton's interpreter
(tensor descriptors on any Triton; block pointers only where the installed Triton has them)
and matches torch eager; the tolerances; the kernel cache; the verify and emit commands."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from indexalg_triton.access import supported_kinds
from indexalg_triton.codegen import Config, default_configs, generate
from indexalg_triton.runtime import compare, compile_kernel, device, verify
from indexalg_triton.workloads import WORKLOADS, get

pytestmark = pytest.mark.skipif(device() != "cpu", reason="interpreter tests (a GPU is present)")

TD = ("tensor_descriptor",)
NO_BLOCK_POINTERS = "block_pointer" not in supported_kinds()
WHY_NO_BP = (
    "the installed Triton has no block pointers (tl.make_block_ptr was removed in "
    "Triton 3.9); they run on the GPU benchmark machine (Triton 3.6)"
)


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_small_default_config(name: str) -> None:
    w = get(name)
    xs = w.make_inputs("small")
    v = verify(name, w.fn, xs, w.spec("small"), kinds=TD)
    assert v.ok, v.line()


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_medium_every_config(name: str) -> None:
    """N-D tilings, descriptor transposes, looped reductions, 1-D fallbacks."""
    w = get(name)
    xs = w.make_inputs("medium")
    spec = w.spec("medium")
    for cfg in default_configs(spec, TD):
        v = verify(name, w.fn, xs, spec, cfg, kinds=TD)
        assert v.ok, v.line()


@pytest.mark.parametrize("name", ["int8_unpack", "transpose_add", "row_sum", "index_select"])
def test_int64_indexing_runs_too(name: str) -> None:
    w = get(name)
    xs = w.make_inputs("medium")
    v = verify(name, w.fn, xs, w.spec("medium"), kinds=TD, index_dtype="int64")
    assert v.ok and v.index_dtype == "int64", v.line()


def test_kinds_cover_descriptors_and_pointers() -> None:
    seen: set[str] = set()
    for name in WORKLOADS:
        spec = get(name).spec("medium")
        for cfg in default_configs(spec, TD):
            seen |= set(generate(spec, cfg, kinds=TD).kinds)
    assert seen == {"tensor_descriptor", "pointer"}


@pytest.mark.skipif(NO_BLOCK_POINTERS, reason=WHY_NO_BP)
@pytest.mark.parametrize("name", ["strided_views", "transpose_add", "broadcast_add"])
def test_block_pointer_kernels(name: str) -> None:  # pragma: no cover - Triton <= 3.8 only
    w = get(name)
    xs = w.make_inputs("medium")
    spec = w.spec("medium")
    for cfg in default_configs(spec, ("block_pointer",)):
        v = verify(name, w.fn, xs, spec, cfg, kinds=("block_pointer",))
        assert v.ok, v.line()


# --- tolerances -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareCase:
    name: str
    out: list[float]
    ref: list[float]
    dtype: str
    reduction: bool
    ok: bool


COMPARE = [
    CompareCase("exact ints", [1, 2, 3], [1, 2, 3], "int32", False, True),
    CompareCase("one int off", [1, 2, 4], [1, 2, 3], "int32", False, False),
    CompareCase("fp32 within 1e-5", [1.000001, 2.0], [1.0, 2.0], "float32", False, True),
    CompareCase("fp32 past 1e-5", [1.0001, 2.0], [1.0, 2.0], "float32", False, False),
    CompareCase("reduction within 1e-4", [100.005, 1.0], [100.0, 1.0], "float32", True, True),
    CompareCase("reduction past 1e-4", [100.05, 1.0], [100.0, 1.0], "float32", True, False),
    CompareCase("unwritten (poisoned)", [float("nan"), 1.0], [0.0, 1.0], "float32", False, False),
    CompareCase("bf16 one ulp", [1.0078125], [1.0], "bfloat16", False, True),
    CompareCase("bf16 two ulps", [1.015625], [1.0], "bfloat16", False, False),
]


@pytest.mark.parametrize("case", COMPARE, ids=lambda c: c.name)
def test_compare(case: CompareCase) -> None:
    import torch

    dt = getattr(torch, case.dtype)
    out = torch.tensor(case.out, dtype=dt)
    eager = torch.tensor(case.ref, dtype=dt)
    ref64 = torch.tensor(case.ref, dtype=torch.float64 if dt.is_floating_point else dt)
    assert compare(out, ref64, eager, reduction=case.reduction).ok is case.ok


# --- cache and CLI ----------------------------------------------------------------------------


def test_compiled_kernels_are_cached() -> None:
    src = generate(get("outer_add").spec("small"), Config.of(4, XBLOCK=1024), kinds=TD)
    assert compile_kernel(src, interpret=True) is compile_kernel(src, interpret=True)


def test_cli_emit_and_verify(capsys: pytest.CaptureFixture[str]) -> None:
    from indexalg_triton.cli import main

    assert main(["emit", "--workload", "int8_unpack", "--allow", "tensor_descriptor"]) == 0
    out = capsys.readouterr().out
    assert "@triton.jit\ndef int8_unpack(in0, out0, XBLOCK: tl.constexpr):" in out
    assert main(["verify", "--workload", "int8_unpack", "--workload", "row_sum"]) == 0
    assert "2/2 kernels match torch eager (in the Triton interpreter)" in capsys.readouterr().out
    assert main(["emit", "--workload", "nope"]) == 2
    assert "invalid choice: 'nope'" in capsys.readouterr().err
