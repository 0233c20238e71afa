"""indexalg_triton.template: isolated bodies, hooks finalised in any order, a body after the
store of the output, and the matmul template with fused epilogues run in the interpreter."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from indexalg.errors import InvalidOperationError
from indexalg_triton.runtime import device
from indexalg_triton.template import (
    PartialRender,
    TemplateKernel,
    launch_template,
    matmul_template,
)

HOOKS = ["def_kernel", "body:prologue", "body:inner", "store_output", "body:post_store"]


def test_every_finalize_order_gives_the_same_source() -> None:
    sources = {
        matmul_template(20, 24, 40, bias=True, relu=True, raw=True, order=list(o)).source
        for o in itertools.permutations(HOOKS)
    }
    assert len(sources) == 1


def test_hooks_read_bodies_written_after_the_template_text() -> None:
    t = matmul_template(20, 24, 40, bias=True, raw=True)
    # bias and raw were registered by bodies filled after def_kernel's placeholder was placed
    assert t.arg_names == ("a", "b", "out", "bias", "raw")
    assert "def mm_template(a, b, out, bias, raw, BLOCK_M: tl.constexpr" in t.source
    store_out = t.source.index("tl.store(out + ")
    store_raw = t.source.index("tl.store(raw + ")
    assert store_out < t.source.index("# body post_store") < store_raw


def test_bodies_are_isolated() -> None:
    k = TemplateKernel("k")
    with k.set_subgraph_body("one"):
        k.emit("x = 1")
        with k.set_subgraph_body("two"):
            k.emit("y = 2")
        k.emit("z = 3")
    assert k.bodies == {"one": ["x = 1", "z = 3"], "two": ["y = 2"]}


@dataclass(frozen=True)
class BadCase:
    name: str
    action: str
    message: str


BAD = [
    BadCase("emit with no body", "emit", "outside set_subgraph_body"),
    BadCase("finalize twice", "twice", "already finalized"),
    BadCase("unknown hook", "unknown", "no hook"),
    BadCase("argument after def_kernel", "late_arg", "after def_kernel was finalized"),
    BadCase("write to a rendered body", "late_body", "already rendered"),
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: c.name)
def test_misuse_raises_a_library_error(case: BadCase) -> None:
    k = TemplateKernel("k")
    text = f"{k.def_kernel('a')}\n{k.body('b', 1)}\n"
    r = k.partial(text)
    with pytest.raises(InvalidOperationError, match=case.message):
        if case.action == "emit":
            k.emit("x = 1")
        elif case.action == "twice":
            r.finalize_hook("def_kernel")
            r.finalize_hook("def_kernel")
        elif case.action == "unknown":
            r.finalize_hook("nope")
        elif case.action == "late_arg":
            r.finalize_hook("def_kernel")
            k.add_input("late")
        else:
            r.finalize_hook("body:b")
            with k.set_subgraph_body("b"):
                k.emit("x = 1")


def test_partial_render_needs_placeholders() -> None:
    with pytest.raises(InvalidOperationError, match="no placeholder"):
        PartialRender("no hooks here", {"h": lambda: ""})


@dataclass(frozen=True)
class MMCase:
    m: int
    n: int
    k: int
    bias: bool
    relu: bool
    scale: float | None
    raw: bool
    relu_a: bool


MM = [
    MMCase(50, 40, 70, True, True, 0.5, True, False),
    MMCase(32, 32, 32, False, False, None, False, False),
    MMCase(17, 33, 20, True, False, 2.0, False, True),
]


@pytest.mark.skipif(device() != "cpu", reason="interpreter test")
@pytest.mark.parametrize("c", MM, ids=lambda c: f"{c.m}x{c.n}x{c.k}")
def test_matmul_template_with_fused_epilogue_matches_torch(c: MMCase) -> None:
    import torch

    t = matmul_template(
        c.m,
        c.n,
        c.k,
        bias=c.bias,
        relu=c.relu,
        scale=c.scale,
        raw=c.raw,
        relu_a=c.relu_a,
        order=list(reversed(HOOKS)),
    )
    a, b, bias = torch.randn(c.m, c.k), torch.randn(c.k, c.n), torch.randn(c.n)
    out = torch.full((c.m, c.n), float("nan"))
    raw = torch.full((c.m, c.n), float("nan"))
    launch_template(t, {"a": a, "b": b, "out": out, "bias": bias, "raw": raw})
    a64 = a.double().relu() if c.relu_a else a.double()
    mm = a64 @ b.double()
    ref = mm + bias.double() if c.bias else mm
    ref = ref.relu() if c.relu else ref
    ref = ref * c.scale if c.scale is not None else ref
    scale = float(ref.abs().max())
    assert float((out.double() - ref).abs().max()) <= 1e-5 * scale
    if c.raw:
        assert float((raw.double() - mm).abs().max()) <= 1e-5 * float(mm.abs().max())
    else:
        assert bool(torch.isnan(raw).all())  # raw is no argument: untouched
