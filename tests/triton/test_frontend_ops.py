"""from_torch's model-code ops, each traced, generated and run in Triton's interpreter
against torch eager (fresh inputs, poisoned outputs); ops outside the set are refused by name."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")
torch = pytest.importorskip("torch")
pytest.importorskip("triton")
F = torch.nn.functional

from indexalg.errors import InvalidOperationError  # noqa: E402
from indexalg_triton import from_torch, generate  # noqa: E402
from indexalg_triton.runtime import verify  # noqa: E402

r = torch.randn
CASES: dict[str, tuple[Callable[..., Any], list[Any]]] = {
    "cat3": (lambda a, b, c: torch.cat([a, b * 2, c], 1), [r(5, 3), r(5, 7), r(5, 2)]),
    "cat0": (lambda a, b: torch.cat([a, b], 0) + 1, [r(3, 8), r(5, 8)]),
    "pad": (lambda x: F.pad(x, (1, 2, 3, 0), value=0.5), [r(4, 6)]),
    "pad_neg": (lambda x: F.pad(x, (-1, 2)), [r(4, 6)]),
    "arange": (lambda x: x + torch.arange(8), [r(4, 8)]),
    "bitfields": (
        lambda x: ((x.unsqueeze(-1) >> (torch.arange(10, dtype=torch.int32) * 3)) & 7).to(
            torch.uint8
        ),
        [torch.randint(0, 2**30, (6, 5), dtype=torch.int32)],
    ),
    "full": (lambda x: torch.full_like(x, 2.0) * x + torch.ones(8) + torch.zeros(4, 1), [r(4, 8)]),
    "flip_roll_repeat": (lambda x: x.flip(-1).roll(2, 0).repeat(2, 1), [r(4, 8)]),
    "roll_flat": (lambda x: x.roll(3), [r(4, 5)]),
    "expand": (lambda x: x.expand(3, 4, 8) * 2, [r(4, 8)]),
    "where_mask": (
        lambda x, m: torch.where(m, x, 0.0) + x.masked_fill(~m, -1.0),
        [r(4, 8), torch.rand(4, 8) > 0.5],
    ),
    "clamp": (lambda x: x.clamp(-0.5, 0.5) + x.clamp(min=0) + F.hardtanh(x), [r(4, 8)]),
    "types": (
        lambda x: x.half().float() + x.to(torch.int32) + x.to(torch.bfloat16).to(torch.int64),
        [r(4, 8) * 10],
    ),
    "math": (
        lambda x: x.sigmoid() + x.tanh() + F.gelu(x) + F.gelu(x, approximate="tanh") + F.silu(x),
        [r(4, 8)],
    ),
    "math2": (lambda x: x.abs().rsqrt() + x.abs().log() + x.abs().sqrt(), [r(4, 8)]),
    "tanh_small": (lambda x: torch.tanh(x), [r(64, 64) * 0.03]),
    "var_mean": (lambda x: torch.var_mean(x, -1), [r(6, 50)]),
    "var_keep": (lambda x: x.var(1, keepdim=True) + x.std(1, keepdim=True), [r(6, 50)]),
    "softmax": (lambda x: F.softmax(x, -1), [r(6, 50)]),
    "log_softmax": (lambda x: F.log_softmax(x, 0), [r(30, 5)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (40,), w, b), [r(6, 40), r(40), r(40)]),
    "layer_norm_stats": (
        lambda x, w, b: torch.native_layer_norm(x, (40,), w, b, 1e-5),
        [r(6, 40), r(40), r(40)],
    ),
    "rms_norm": (
        lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
        [r(6, 40), r(40)],
    ),
    "multi_out": (lambda x, y: (x + y, x * y, (x - y).relu()), [r(4, 8), r(4, 8)]),
    "embedding": (lambda w, i: F.embedding(i, w), [r(20, 8), torch.randint(0, 20, (3, 5))]),
    "index_neg": (lambda w, i: w[i], [r(20, 8), torch.randint(-20, 20, (7,))]),
    "gather": (lambda x, i: torch.gather(x, 1, i), [r(5, 9), torch.randint(0, 9, (5, 4))]),
    "pixel_shuffle": (lambda x: F.pixel_shuffle(x, 2), [r(2, 8, 3, 5)]),
    "pixel_unshuffle": (lambda x: F.pixel_unshuffle(x, 2), [r(2, 3, 4, 6)]),
    "upsample": (lambda x: F.interpolate(x, scale_factor=2, mode="nearest"), [r(2, 3, 4, 5)]),
    "avgpool": (lambda x: F.avg_pool2d(x, 2), [r(2, 3, 4, 6)]),
    "maxpool": (lambda x: F.max_pool2d(x, 2), [r(2, 3, 4, 6)]),
    "mean_hw": (lambda x: x.mean((2, 3)), [r(2, 3, 4, 6)]),
    "amax_win": (lambda x: x.view(2, 3, 2, 2, 3, 2).amax(dim=(3, 5)), [r(2, 3, 4, 6)]),
    "chunk_rotary": (
        lambda x, c, s: x * c + torch.cat([-x[..., 4:], x[..., :4]], -1) * s,
        [r(2, 3, 8), r(3, 8), r(3, 8)],
    ),
    "chunk": (lambda x: x.chunk(2, -1)[0] * x.chunk(2, -1)[1], [r(4, 8)]),
    "logsumexp": (lambda x: torch.logsumexp(x, -1), [r(6, 30)]),
    "amin": (lambda x: x.amin(0) + x.max(0).values, [r(6, 30)]),
    "col_sum_strided": (lambda x: x[:, ::2].sum(1), [r(10, 32)]),
    "softmax_perm": (lambda x: F.softmax(x.permute(0, 2, 1), -1), [r(2, 16, 5)]),
    "bf16_softmax": (lambda x: F.softmax(x.float(), -1).to(torch.bfloat16), [r(6, 50).bfloat16()]),
    "int4_unpack": (
        lambda x: torch.stack([x & 15, x >> 4], -1).view(x.shape[0], -1).to(torch.bfloat16) - 8,
        [torch.randint(0, 256, (5, 6), dtype=torch.uint8)],
    ),
    "sum_all": (lambda x: x.sum(), [r(5, 7)]),
    "bool_ops": (
        lambda x, y: (torch.logical_and(x > 0, y > 0) | ~(x > 1)).float(),
        [r(4, 8), r(4, 8)],
    ),
    "pow_recip": (
        lambda x: x.pow(3) + (x.abs() + 1).reciprocal() + (x.abs() + 1) ** -0.5,
        [r(4, 8)],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_matches_eager(name: str) -> None:
    torch.manual_seed(0)
    fn, xs = CASES[name]
    spec = from_torch(fn, *xs, name=name)
    v = verify(name, fn, xs, spec)
    assert v.ok, v.line()


def test_cat_reads_each_piece_under_a_guard() -> None:
    fn, xs = CASES["cat3"]
    src = generate(from_torch(fn, *xs, name="cat3"))
    loads = [line for line in src.body.splitlines() if "tl.load(" in line]
    assert len(loads) == 3 and all("other=0" in line for line in loads), src.body


def test_pad_border_is_a_where_not_a_read() -> None:
    fn, xs = CASES["pad"]
    spec = from_torch(fn, *xs, name="pad")
    assert [o.guard is not None for o in spec.ops if o.kind == "load"] == [True]


def test_several_reductions_share_one_loop() -> None:
    fn, xs = CASES["layer_norm_stats"]
    spec = from_torch(fn, *xs, name="ln")
    assert spec.reduction == ("r0", 40)
    assert [b.name for b in spec.outputs] == ["out0", "out1", "out2"]


@pytest.mark.parametrize(
    ("fn", "op"),
    [
        (lambda x: torch.cumsum(x, 0), "cumsum"),
        (lambda x: x.sort(-1).values, "sort"),
        (lambda x: F.max_pool2d(x, 2, return_indices=True)[1].float(), "max_pool2d_with_indices"),
        (lambda x: x.pow(1.7), "exponent 1.7"),
    ],
)
def test_unknown_ops_are_refused_by_name(fn: Callable[..., Any], op: str) -> None:
    with pytest.raises(InvalidOperationError, match=op):
        from_torch(fn, torch.randn(2, 3, 4, 6))


def test_two_reduction_shapes_are_refused() -> None:
    with pytest.raises(InvalidOperationError, match="one reduction loop"):
        from_torch(lambda x: x.sum(0)[:4] + x.sum(1)[:4], torch.randn(6, 8))
