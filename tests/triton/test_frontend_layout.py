"""from_torch's result layout: eager torch's strides where they are a dense permutation (a
pointwise op on a channels_last or transposed input keeps that layout, as eager and
torch.compile do, and the kernel then walks memory in order), row-major otherwise or when
asked; each kernel run in Triton's interpreter against eager."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")
pytest.importorskip("triton")

from indexalg.errors import InvalidOperationError  # noqa: E402
from indexalg_triton import from_torch, generate  # noqa: E402
from indexalg_triton.codegen import Config  # noqa: E402
from indexalg_triton.runtime import verify  # noqa: E402


def _strides(spec: object, name: str) -> tuple[int, ...]:
    return tuple(s.value for s in spec.buffer(name).view.strides)  # type: ignore[attr-defined]


def _nhwc_relu(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.relu(x + b)


def _inputs() -> list[torch.Tensor]:
    x = torch.randn(2, 8, 5, 7).to(memory_format=torch.channels_last)
    return [x, torch.randn(8, 1, 1)]


def test_channels_last_result_keeps_eager_strides() -> None:
    xs = _inputs()
    spec = from_torch(_nhwc_relu, *xs)
    assert _strides(spec, "out0") == _nhwc_relu(*xs).stride() == (280, 1, 56, 8)
    # loops in memory order: the channel loop innermost, so the store is the flat index
    assert [n for n, _ in spec.loops] == ["x3", "x2", "x1", "x0"]
    assert [s for _, s in spec.loops] == [2, 5, 7, 8]
    src = generate(spec, Config.of(4, False, XBLOCK=128)).source
    assert "tl.store(out0 + (xindex), " in src
    assert verify("nhwc_relu", _nhwc_relu, xs, spec, Config.of(4, False, XBLOCK=128)).ok


def test_transposed_input_gives_transposed_result() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return x.transpose(-1, -2) + 1

    xs = [torch.randn(3, 20, 24)]
    spec = from_torch(fn, *xs)
    assert _strides(spec, "out0") == fn(*xs).stride() == (480, 1, 24)
    cfg = Config.of(4, False, XBLOCK=256)
    assert "tl.store(out0 + (xindex), " in generate(spec, cfg).source
    assert verify("transpose_add", fn, xs, spec, cfg).ok


def test_contiguous_layout_on_request_and_for_non_dense_results() -> None:
    xs = _inputs()
    spec = from_torch(_nhwc_relu, *xs, layout="contiguous")
    assert _strides(spec, "out0") == (280, 35, 7, 1)
    assert verify("nhwc_relu_c", _nhwc_relu, xs, spec).ok

    def expand(x: torch.Tensor) -> torch.Tensor:  # eager: a stride-0 view, not dense
        return x.expand(3, 4, 8)

    ys = [torch.randn(4, 8)]
    assert expand(*ys).stride() == (0, 8, 1)
    spec = from_torch(expand, *ys)
    assert _strides(spec, "out0") == (32, 8, 1)
    assert verify("expand", expand, ys, spec).ok


def test_two_results_each_keep_their_own_layout() -> None:
    def fn(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x * 2, (x + 1).contiguous()

    xs = [torch.randn(2, 8, 5, 7).to(memory_format=torch.channels_last)]
    spec = from_torch(fn, *xs)
    a, b = fn(*xs)
    assert _strides(spec, "out0") == a.stride() == (280, 1, 56, 8)
    assert _strides(spec, "out1") == b.stride() == (280, 35, 7, 1)
    assert verify("two_layouts", fn, xs, spec).ok


def test_reductions_keep_contiguous_results() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        return x.sum(1)

    xs = [torch.randn(2, 8, 5, 7).to(memory_format=torch.channels_last)]
    spec = from_torch(fn, *xs)
    assert _strides(spec, "out0") == (35, 7, 1)
    assert verify("sum_cl", fn, xs, spec).ok


def test_unknown_layout_is_refused_by_name() -> None:
    with pytest.raises(InvalidOperationError, match="layout must be 'torch' or 'contiguous'"):
        from_torch(_nhwc_relu, *_inputs(), layout="nhwc")


def test_block_pointer_wholly_inside_has_no_padding_option() -> None:
    """The bias of a channels_last kernel is one block that fits its tensor exactly: its
    block-pointer load carries neither a boundary check nor a padding option (Triton 3.6
    refuses to compile a padding option without a check)."""
    from dataclasses import replace

    from indexalg_triton.codegen import default_configs

    xs = _inputs()
    spec = from_torch(_nhwc_relu, *xs)
    cfg = replace(default_configs(spec, ("block_pointer",))[0], structured=True)
    lines = generate(spec, cfg, kinds=("block_pointer",)).source.splitlines()
    bias = [ln for ln in lines if "tl.make_block_ptr(in1" in ln]
    assert bias and all("boundary_check" not in ln and "padding_option" not in ln for ln in bias)
    checked = [ln for ln in lines if "tl.make_block_ptr(in0" in ln]
    assert checked and all('boundary_check=[0], padding_option="zero"' in ln for ln in checked)
