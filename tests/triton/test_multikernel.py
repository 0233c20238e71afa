"""indexalg_triton.multikernel: persistent and looped variants with one argument list, the
run-time choice by timing, cached per shape; both variants verified in the interpreter."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from indexalg.errors import InvalidOperationError
from indexalg_triton.layout import View
from indexalg_triton.multikernel import (
    MultiKernel,
    choices,
    clear_choices,
    looped_config,
    persistent_config,
)
from indexalg_triton.runtime import device
from indexalg_triton.spec import SpecBuilder
from indexalg_triton.workloads import get

pytestmark = pytest.mark.skipif(device() != "cpu", reason="interpreter tests (a GPU is present)")


@dataclass(frozen=True)
class ConfigCase:
    rnumel: int
    persistent: str
    looped: str


CONFIGS = [
    ConfigCase(300, "RBLOCK=512 XBLOCK=4 warps=4", "RBLOCK=128 XBLOCK=4 warps=4"),
    ConfigCase(5000, "RBLOCK=8192 XBLOCK=1 warps=16", "RBLOCK=2048 XBLOCK=1 warps=8"),
    ConfigCase(2, "RBLOCK=2 XBLOCK=1024 warps=4", "RBLOCK=1 XBLOCK=512 warps=4"),
]


def _row_sum(rnumel: int, rows: int = 3, extra_input: bool = False) -> object:
    b = SpecBuilder(f"rs{rnumel}", loops=[("x1", rows)], reduction=("r0", rnumel))
    b.buffer("x", View.of([rows, rnumel]))
    if extra_input:
        b.buffer("unused", View.of([rows]))
    b.buffer("out", View.of([rows]), output=True)
    b.store("out", "x1", b.reduce("sum", b.load("x", f"{rnumel}*x1 + r0")))
    return b.build()


@pytest.mark.parametrize("c", CONFIGS, ids=lambda c: str(c.rnumel))
def test_configs(c: ConfigCase) -> None:
    spec = _row_sum(c.rnumel)
    assert persistent_config(spec).describe() == c.persistent  # type: ignore[arg-type]
    assert looped_config(spec).describe() == c.looped  # type: ignore[arg-type]


def _fake_timer(ms: dict[str, float], seen: list[str]) -> Callable[[Callable[[], None]], float]:
    order = iter(["persistent", "looped"] * 10)

    def timer(fn: Callable[[], None]) -> float:
        fn()
        which = next(order)
        seen.append(which)
        return ms[which]

    return timer


@pytest.mark.parametrize("winner", ["persistent", "looped"])
def test_choice_by_timing_cached_per_shape(winner: str) -> None:
    import torch

    clear_choices()
    mk = MultiKernel(get("row_sum").spec("small"))
    ms = (
        {"persistent": 1.0, "looped": 2.0}
        if winner == "persistent"
        else {"persistent": 3.0, "looped": 0.5}
    )
    seen: list[str] = []
    x = torch.randn(13, 300)
    out = torch.full((13,), float("nan"))
    args = dict(zip(mk.arg_names, [x, out]))
    c = mk.run(args, timer=_fake_timer(ms, seen))
    assert (c.chosen, c.persistent_ms, c.looped_ms) == (winner, ms["persistent"], ms["looped"])
    assert seen == ["persistent", "looped"]
    assert torch.allclose(out, x.sum(1), rtol=1e-5, atol=1e-4)
    out.fill_(float("nan"))
    assert mk.run(args, timer=_fake_timer(ms, seen)) is c  # cached: no timing
    assert seen == ["persistent", "looped"]
    assert torch.allclose(out, x.sum(1), rtol=1e-5, atol=1e-4)
    assert mk.choice(args) is c and len(choices()) == 1
    # another shape (a non-contiguous x) is timed afresh
    xt = torch.randn(300, 13).t()
    mk.run({"in0": xt, "out0": out}, timer=_fake_timer(ms, seen))
    assert len(choices()) == 2 and len(seen) == 4


@pytest.mark.parametrize("name", ["row_sum", "softmax", "col_sum"])
def test_both_variants_verify_with_one_signature(name: str) -> None:
    from indexalg_triton.runtime import verify

    w = get(name)
    spec = w.spec("small")
    mk = MultiKernel(spec)
    assert mk.variants["persistent"].arg_names == mk.variants["looped"].arg_names
    assert "persistent" in mk.variants["persistent"].tiling
    assert "looped" in mk.variants["looped"].tiling
    xs = w.make_inputs("small")
    for v in mk.variants.values():
        res = verify(name, w.fn, xs, spec, v.config, kinds=())
        assert res.ok, res.line()


def test_buffers_a_variant_does_not_use_are_kept() -> None:
    spec = _row_sum(300, extra_input=True)
    mk = MultiKernel(spec)  # type: ignore[arg-type]
    assert mk.arg_names == ("x", "unused", "out")
    assert mk.unused == {"persistent": ("unused",), "looped": ("unused",)}


def test_bad_input() -> None:
    from indexalg_triton.codegen import Config

    with pytest.raises(InvalidOperationError, match="no reduction"):
        MultiKernel(get("broadcast_add").spec("small"))
    spec = get("row_sum").spec("small")
    with pytest.raises(InvalidOperationError, match="does not cover"):
        MultiKernel(spec, persistent=Config.of(4, XBLOCK=1, RBLOCK=128))
    with pytest.raises(InvalidOperationError, match="does not loop"):
        MultiKernel(spec, looped=Config.of(4, XBLOCK=1, RBLOCK=512))
