"""Multi-output operations: one ``mean_var`` operation writes two buffers (a fused mean and
variance), persistent and looped, against torch.var_mean in the interpreter."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from indexalg.errors import ExprTypeError, InvalidOperationError
from indexalg.expr import Symbol, integer
from indexalg_triton.codegen import Config, generate
from indexalg_triton.layout import View
from indexalg_triton.runtime import device, launch
from indexalg_triton.spec import KernelSpec, Load, MultiReduction, SpecBuilder

pytestmark = pytest.mark.skipif(device() != "cpu", reason="interpreter tests (a GPU is present)")


def mean_var_spec(
    rows: int, cols: int, dtype: str = "float32", *, centered: bool = False
) -> KernelSpec:
    b = SpecBuilder("mean_var", loops=[("x1", rows)], reduction=("r0", cols))
    b.buffer("x", View.of([rows, cols], dtype=dtype))
    b.buffer("mean", View.of([rows]), output=True)
    b.buffer("var", View.of([rows]), output=True)
    if centered:
        b.buffer("centered", View.of([rows, cols]), output=True)
    x = b.load("x", f"{cols}*x1 + r0")
    mean, var = b.multi("mean_var", x)
    b.store("mean", "x1", mean)
    b.store("var", "x1", var)
    if centered:
        b.store("centered", f"{cols}*x1 + r0", b.op("sub", x, mean))
    return b.build()


def test_one_operation_writes_two_buffers() -> None:
    spec = mean_var_spec(4, 10)
    op = next(o for o in spec.ops if o.kind == "mean_var")
    assert op.values == ("tmp1_mean", "tmp1_var")
    assert spec.writes(op.name) == ("mean", "var")
    assert spec.op("tmp1_var") is op


@dataclass(frozen=True)
class Case:
    rows: int
    cols: int
    config: Config
    mode: str
    dtype: str = "float32"
    centered: bool = False


CASES = [
    Case(5, 300, Config.of(4, XBLOCK=2, RBLOCK=512), "persistent"),
    Case(5, 300, Config.of(4, XBLOCK=2, RBLOCK=64), "looped"),
    Case(3, 1000, Config.of(4, XBLOCK=1, RBLOCK=128), "looped", "bfloat16"),
    Case(6, 40, Config.of(4, XBLOCK=4, RBLOCK=64), "persistent", centered=True),
    Case(6, 40, Config.of(4, XBLOCK=4, RBLOCK=16), "looped", centered=True),
]


@pytest.mark.parametrize("c", CASES, ids=lambda c: f"{c.rows}x{c.cols}-{c.mode}-{c.dtype}")
def test_mean_var_matches_torch(c: Case) -> None:
    import torch

    spec = mean_var_spec(c.rows, c.cols, c.dtype, centered=c.centered)
    src = generate(spec, c.config, kinds=())
    assert c.mode in src.tiling
    x = (torch.randn(c.rows, c.cols) * 3 + 2).to(getattr(torch, c.dtype))
    ts = {
        "x": x,
        "mean": torch.full((c.rows,), float("nan")),
        "var": torch.full((c.rows,), float("nan")),
        "centered": torch.full((c.rows, c.cols), float("nan")),
    }
    launch(src, ts)
    var, mean = torch.var_mean(x.double(), dim=1, correction=0)
    assert float((ts["mean"].double() - mean).abs().max()) <= 1e-5 * float(mean.abs().max())
    assert float((ts["var"].double() - var).abs().max()) <= 1e-5 * float(var.abs().max())
    if c.centered:
        ref = x.double() - mean[:, None]
        assert float((ts["centered"].double() - ref).abs().max()) <= 1e-5 * float(ref.abs().max())


def test_bad_multi_output_specs() -> None:
    b = SpecBuilder("bad", loops=[("x0", 4)])
    b.buffer("a", View.of([4]))
    with pytest.raises(InvalidOperationError, match="unknown multi-output"):
        b.multi("median", b.load("a", "x0"))
    spec = mean_var_spec(2, 8)
    ops = list(spec.ops)
    load = ops[0]
    assert isinstance(load, Load)
    with pytest.raises(InvalidOperationError, match="defines 2 results, got 1"):
        MultiReduction("m", "mean_var", load.name, "float32", ("m0",))
    with pytest.raises(ExprTypeError, match="float dtype"):
        MultiReduction("m", "mean_var", load.name, "int32", ("tmp1_mean", "tmp1_var"))
    with pytest.raises(InvalidOperationError, match="in a kernel with no reduction"):
        KernelSpec(
            "bad",
            (("x1", 2),),
            None,
            spec.buffers,
            (
                Load("tmp0", "float32", "x", load.index.subs({Symbol("r0"): integer(0)})),
                MultiReduction("m", "mean_var", "tmp0", "float32", ("a1", "a2")),
            ),
            spec.stores,
        )
