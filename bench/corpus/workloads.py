"""Workloads compiled by the corpus harvester, in plain torch.

Each ``Workload`` has a function of tensors, a way to build its inputs from a
size tuple and a few sizes.  Sizes are small and odd on purpose: Inductor's
index expressions depend on shapes and strides, not on the amount of data.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

Tensor = torch.Tensor
Size = tuple[int, ...]


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    kind: str
    fn: Callable[..., Tensor | tuple[Tensor, ...]]
    make_inputs: Callable[[Size], tuple[Tensor, ...]]
    sizes: tuple[Size, ...]
    # Sizes used for the dynamic-shape runs (default: the first size).
    dynamic_sizes: tuple[Size, ...] | None = None

    def sizes_for(self, dynamic: bool) -> tuple[Size, ...]:
        if not dynamic:
            return self.sizes
        return self.dynamic_sizes if self.dynamic_sizes is not None else self.sizes[:1]


WORKLOADS: list[Workload] = []


def workload(
    kind: str,
    sizes: Sequence[Size],
    make_inputs: Callable[[Size], tuple[Tensor, ...]],
    dynamic_sizes: Sequence[Size] | None = None,
) -> Callable[
    [Callable[..., Tensor | tuple[Tensor, ...]]], Callable[..., Tensor | tuple[Tensor, ...]]
]:
    """Register the decorated function as a workload named after it."""

    def register(
        fn: Callable[..., Tensor | tuple[Tensor, ...]],
    ) -> Callable[..., Tensor | tuple[Tensor, ...]]:
        WORKLOADS.append(
            Workload(
                name=fn.__name__,
                kind=kind,
                fn=fn,
                make_inputs=make_inputs,
                sizes=tuple(tuple(s) for s in sizes),
                dynamic_sizes=None
                if dynamic_sizes is None
                else tuple(tuple(s) for s in dynamic_sizes),
            )
        )
        return fn

    return register


# ---------------------------------------------------------------------------
# Input builders
# ---------------------------------------------------------------------------


def rand(*shape: int) -> Tensor:
    return torch.randn(*shape)


def one(shape: Size) -> tuple[Tensor, ...]:
    return (rand(*shape),)


def two(shape: Size) -> tuple[Tensor, ...]:
    return (rand(*shape), rand(*shape))


def transposed_pair(shape: Size) -> tuple[Tensor, ...]:
    a, b = shape
    return (rand(a, b), rand(b, a))


def permuted_pair(shape: Size) -> tuple[Tensor, ...]:
    a, b, c = shape
    return (rand(a, b, c), rand(c, a, b))


def channels_last_pair(shape: Size) -> tuple[Tensor, ...]:
    x = rand(*shape).to(memory_format=torch.channels_last)
    return (x, rand(*shape))


def broadcast_triple(shape: Size) -> tuple[Tensor, ...]:
    a, b, c = shape
    return (rand(a, 1, c), rand(1, b, 1), rand(c))


def stride0_input(shape: Size) -> tuple[Tensor, ...]:
    a, b = shape
    # A graph input whose second dim has stride 0, and one with stride 0 in dim 0.
    return (rand(a, 1).expand(a, b), rand(1, b).expand(a, b), rand(a, b))


def strided_view_input(shape: Size) -> tuple[Tensor, ...]:
    a, b = shape
    base = rand(a + 2, 2 * b + 3)
    # Non-contiguous input with a storage offset.
    return (base[1:-1, 3::2], rand(b, a))


def uint8_matrix(shape: Size) -> tuple[Tensor, ...]:
    return (torch.randint(0, 256, shape, dtype=torch.uint8),)


def uint8_with_scales(shape: Size) -> tuple[Tensor, ...]:
    m, n, group = shape
    return (
        torch.randint(0, 256, (m, n), dtype=torch.uint8),
        rand(m, (2 * n) // group).to(torch.bfloat16),
    )


def index_select_inputs(shape: Size) -> tuple[Tensor, ...]:
    a, b, k = shape
    return (rand(a, b), torch.randint(0, a, (k,)), torch.randint(0, b, (k,)))


def gather_inputs(shape: Size) -> tuple[Tensor, ...]:
    a, b, k = shape
    return (rand(a, b), torch.randint(0, b, (a, k)))


def embedding_inputs(shape: Size) -> tuple[Tensor, ...]:
    vocab, dim, batch, seq = shape
    return (rand(vocab, dim), torch.randint(0, vocab, (batch, seq)), rand(seq, dim))


def scatter_inputs(shape: Size) -> tuple[Tensor, ...]:
    a, b, k = shape
    return (rand(a, b), torch.randint(0, a, (k,)), rand(k, b))


def conv_inputs(shape: Size) -> tuple[Tensor, ...]:
    n, c, h, w, k = shape
    return (rand(n, c, h, w), rand(k, c, 3, 3), rand(k))


def attention_inputs(shape: Size) -> tuple[Tensor, ...]:
    batch, seq, heads, head_dim = shape
    width = heads * head_dim
    return (rand(batch, seq, width), rand(3 * width, width), rand(width, width))


def qkv_inputs(shape: Size) -> tuple[Tensor, ...]:
    batch, heads, seq, head_dim = shape
    return tuple(rand(batch, heads, seq, head_dim) for _ in range(3))


def gqa_inputs(shape: Size) -> tuple[Tensor, ...]:
    batch, q_heads, kv_heads, seq, head_dim = shape
    return (
        rand(batch, q_heads, seq, head_dim),
        rand(batch, kv_heads, seq, head_dim),
        rand(batch, kv_heads, seq, head_dim),
    )


def norm_inputs(shape: Size) -> tuple[Tensor, ...]:
    *lead, last = shape
    return (rand(*lead, last), rand(last), rand(last))


def rope_inputs(shape: Size) -> tuple[Tensor, ...]:
    batch, seq, heads, head_dim = shape
    return (rand(batch, seq, heads, head_dim), rand(seq, head_dim), rand(seq, head_dim))


# ---------------------------------------------------------------------------
# Elementwise on views
# ---------------------------------------------------------------------------

SIZES_2D = [(5, 7), (33, 17), (64, 48), (3, 128)]
SIZES_3D = [(9, 3, 5), (4, 6, 10), (7, 5, 3), (16, 2, 8)]
SIZES_4D = [(2, 3, 5, 7), (1, 8, 6, 6), (2, 16, 3, 5), (3, 4, 9, 2)]


@workload("elementwise", SIZES_2D, transposed_pair)
def add_transpose_2d(x: Tensor, y: Tensor) -> Tensor:
    return (x.t() + y).sin()


@workload("elementwise", SIZES_3D, permuted_pair)
def add_permute_3d(x: Tensor, y: Tensor) -> Tensor:
    return x.permute(2, 0, 1) * y + 1.0


@workload("elementwise", SIZES_3D, one)
def permute_3d_all_orders(x: Tensor) -> tuple[Tensor, ...]:
    return (
        x.permute(1, 2, 0).contiguous() * 2,
        x.permute(2, 1, 0).contiguous() - 1,
        x.permute(0, 2, 1).contiguous().exp(),
    )


@workload("elementwise", SIZES_4D, one)
def nchw_to_nhwc(x: Tensor) -> Tensor:
    return x.permute(0, 2, 3, 1).contiguous().relu()


@workload("elementwise", SIZES_4D, channels_last_pair)
def channels_last_add(x: Tensor, y: Tensor) -> Tensor:
    return torch.relu(x + y) * 0.5


@workload("elementwise", [(9, 13), (20, 31), (64, 65), (7, 5)], one)
def strided_slices(x: Tensor) -> tuple[Tensor, ...]:
    return x[::2, 1::3] + 1, x[1:-1, 2:] * 3, x[2:, :-1:2].cos()


@workload("elementwise", SIZES_2D, strided_view_input)
def strided_input_view(x: Tensor, y: Tensor) -> Tensor:
    return x * 2 + y.t()


@workload("broadcast", SIZES_3D, broadcast_triple)
def broadcast_add_3d(x: Tensor, y: Tensor, z: Tensor) -> Tensor:
    return (x + y) * z


@workload("broadcast", SIZES_2D, stride0_input)
def expand_stride0(x: Tensor, y: Tensor, z: Tensor) -> Tensor:
    return x * y + z


@workload("broadcast", SIZES_4D, one)
def broadcast_channel_stats(x: Tensor) -> Tensor:
    mean = x.mean(dim=(0, 2, 3), keepdim=True)
    return (x - mean) * x[:, :1]


@workload("elementwise", SIZES_3D, one)
def reshape_view_chain(x: Tensor) -> Tensor:
    a, b, c = x.shape
    return x.reshape(a, b * c).t().reshape(b, c, a).sin() + 1


@workload("elementwise", SIZES_2D, one)
def repeat_tile(x: Tensor) -> tuple[Tensor, ...]:
    return x.repeat(2, 3) * 2, torch.tile(x, (3, 1, 2)) + 1


@workload("elementwise", SIZES_2D, one)
def roll_flip(x: Tensor) -> Tensor:
    return torch.roll(x, shifts=(1, -2), dims=(0, 1)) + x.flip(1) - x.flip(0)


@workload("elementwise", [(1, 6, 5, 7), (2, 12, 3, 3), (1, 8, 4, 9)], one)
def channel_shuffle(x: Tensor) -> Tensor:
    n, c, h, w = x.shape
    return x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w) * 2


@workload("elementwise", [(1, 8, 6, 6), (2, 12, 5, 3), (1, 4, 7, 7)], one)
def pixel_shuffle_roundtrip(x: Tensor) -> tuple[Tensor, ...]:
    shuffled = F.pixel_shuffle(x, 2)
    return shuffled * 2, F.pixel_unshuffle(shuffled.relu(), 2) + 1


@workload("elementwise", [(6, 6), (9, 7), (16, 33)], one)
def diagonal_triangle(x: Tensor) -> tuple[Tensor, ...]:
    return torch.triu(x, 1) + torch.tril(x, -1) * 2, x.diagonal().exp(), x.diagonal(1) * 3


@workload("elementwise", [(5, 17), (8, 32), (3, 65)], one)
def unfold_windows(x: Tensor) -> Tensor:
    return (x.unfold(1, 4, 3) * torch.arange(4, dtype=x.dtype)).sum(-1)


@workload("elementwise", [(5, 7), (16, 9), (2, 64)], transposed_pair)
def where_mixed_dtype(x: Tensor, y: Tensor) -> Tensor:
    return torch.where(x.t() > 0, x.t(), y).to(torch.float16)


@workload("elementwise", [(11,), (64,), (129,), (7,)], one)
def as_strided_windows(x: Tensor) -> Tensor:
    n = x.shape[0]
    windows = torch.as_strided(x, (n - 2, 3), (1, 1))
    return windows * 2 + windows.flip(1)


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


@workload("reduction", SIZES_3D, one)
def sum_each_dim(x: Tensor) -> tuple[Tensor, ...]:
    return x.sum(0), x.sum(1), x.sum(2), x.mean(dim=(0, 2))


@workload("reduction", SIZES_3D, one)
def reduce_permuted(x: Tensor) -> tuple[Tensor, ...]:
    y = x.permute(2, 0, 1)
    return y.sum(-1), y.amax(1), x.transpose(0, 1).amin(0)


@workload("reduction", SIZES_2D, one)
def var_mean_rows_cols(x: Tensor) -> tuple[Tensor, ...]:
    return (*torch.var_mean(x, dim=1), *torch.var_mean(x, dim=0))


@workload("reduction", SIZES_3D, one)
def argmax_dims(x: Tensor) -> tuple[Tensor, ...]:
    return x.argmax(dim=0), x.argmin(dim=2)


@workload(
    "reduction", [(257, 300), (1024, 129), (64, 2048)], one, dynamic_sizes=[(257, 300), (64, 2048)]
)
def split_reductions(x: Tensor) -> tuple[Tensor, ...]:
    return x.sum(), x.abs().amax(0), x.t().sum(0)


@workload("reduction", [(5, 7), (9, 33), (3, 64)], one)
def cumsum_rows(x: Tensor) -> tuple[Tensor, ...]:
    return torch.cumsum(x, dim=1), torch.cumsum(x.t(), dim=1)


@workload("reduction", SIZES_4D, channels_last_pair)
def channels_last_reduce(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return (x * y).sum(dim=(2, 3)), x.amax(dim=1)


# ---------------------------------------------------------------------------
# Softmax and normalisation
# ---------------------------------------------------------------------------


@workload("softmax", [(5, 7), (9, 3, 5), (4, 33, 65), (2, 3, 1024)], one)
def softmax_dims(x: Tensor) -> tuple[Tensor, ...]:
    return tuple(torch.softmax(x, dim=d) for d in range(x.dim()))


@workload("softmax", SIZES_2D, transposed_pair)
def log_softmax_transposed(x: Tensor, y: Tensor) -> Tensor:
    return torch.log_softmax(x.t() + y, dim=-1)


@workload("norm", [(5, 7), (9, 3, 5), (4, 6, 64), (2, 17, 33)], norm_inputs)
def layer_norm_last(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return F.layer_norm(x, (x.shape[-1],), w, b)


@workload("norm", [(4, 6, 10), (2, 9, 3, 5), (3, 4, 8, 16)], one)
def layer_norm_last_two(x: Tensor) -> Tensor:
    return F.layer_norm(x, tuple(x.shape[-2:]))


@workload("norm", [(5, 7), (4, 6, 64), (2, 17, 33)], norm_inputs)
def rms_norm(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


@workload("norm", [(2, 6, 5, 7), (1, 8, 6, 6), (2, 16, 3, 5)], one)
def group_norm(x: Tensor) -> Tensor:
    return F.group_norm(x, 2)


@workload("norm", SIZES_4D, channels_last_pair)
def batch_norm_channels_last(x: Tensor, y: Tensor) -> Tensor:
    c = x.shape[1]
    mean, var = y.mean(dim=(0, 2, 3)), y.var(dim=(0, 2, 3))
    return F.batch_norm(x, mean, var, torch.ones(c), torch.zeros(c), training=False)


# ---------------------------------------------------------------------------
# cat / stack / pad
# ---------------------------------------------------------------------------


@workload("cat_pad", [(5, 7), (9, 3), (16, 33), (4, 64)], transposed_pair)
def cat_dims(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return (
        torch.cat([x, y.t(), x * 2], dim=0),
        torch.cat([x, y.t()[:, :3]], dim=1),
        torch.cat([x.t(), y], dim=1).exp(),
    )


@workload("cat_pad", SIZES_3D, two)
def stack_dims(x: Tensor, y: Tensor) -> tuple[Tensor, ...]:
    return (
        torch.stack([x, y], dim=0) + 1,
        torch.stack([x, y.relu()], dim=-1),
        torch.stack([x, y], dim=1) * 2,
    )


@workload("cat_pad", SIZES_4D, one)
def pad_modes(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.pad(x, (1, 2, 3, 0)),
        F.pad(x, (-1, 1, 0, -1)),
        F.pad(x, (1, 1, 1, 1), mode="reflect"),
        F.pad(x, (2, 0, 1, 1), mode="replicate"),
        F.pad(x, (1, 0, 0, 1), mode="circular"),
    )


@workload("cat_pad", [(2, 5, 3, 8), (1, 7, 4, 16), (2, 3, 2, 6)], rope_inputs)
def rotary_embedding(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    half = x.shape[-1] // 2
    rotated = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos[:, None, :] + rotated * sin[:, None, :]


@workload("cat_pad", SIZES_2D, two)
def interleave_pairs(x: Tensor, y: Tensor) -> Tensor:
    return torch.stack([x, y], dim=-1).flatten(-2) * 2


# ---------------------------------------------------------------------------
# Indexing: index_select / gather / embedding / scatter
# ---------------------------------------------------------------------------


@workload("gather", [(5, 7, 3), (33, 17, 9), (64, 48, 16)], index_select_inputs)
def index_select_dims(x: Tensor, i: Tensor, j: Tensor) -> tuple[Tensor, ...]:
    return torch.index_select(x, 0, i) * 2, torch.index_select(x, 1, j) + 1, x[i, j]


@workload("gather", [(5, 7, 3), (33, 17, 9), (8, 64, 5)], gather_inputs)
def gather_rows(x: Tensor, idx: Tensor) -> tuple[Tensor, ...]:
    return torch.gather(x, 1, idx) * 2, torch.take_along_dim(x.t(), idx.t(), dim=0)


@workload("gather", [(50, 16, 2, 7), (97, 33, 3, 5), (128, 8, 1, 12)], embedding_inputs)
def embedding_positional(table: Tensor, ids: Tensor, pos: Tensor) -> Tensor:
    return F.embedding(ids, table) + pos


@workload("gather", [(9, 5, 4), (33, 17, 12), (64, 3, 7)], scatter_inputs)
def scatter_index_add(x: Tensor, idx: Tensor, src: Tensor) -> tuple[Tensor, ...]:
    return x.index_add(0, idx, src), x.t().index_add(1, idx, src.t() * 2)


# ---------------------------------------------------------------------------
# int8 unpack: uint8 -> two 4-bit values -> bfloat16
# ---------------------------------------------------------------------------

UINT8_SIZES = [(5, 7), (16, 33), (64, 48), (3, 128)]


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_interleave_uint8(x: Tensor) -> Tensor:
    # On a CPU device Inductor lowers a cat / stack of only uint8 inputs to
    # aten.cat (see lowering.cat); kept as the literal pattern.
    lo, hi = x & 15, x >> 4
    return torch.stack([lo, hi], dim=-1).view(x.shape[0], 2 * x.shape[1]).to(torch.bfloat16)


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_interleave(x: Tensor) -> Tensor:
    lo, hi = (x & 15).to(torch.bfloat16), (x >> 4).to(torch.bfloat16)
    return torch.stack([lo, hi], dim=-1).view(x.shape[0], 2 * x.shape[1])


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_repeat_interleave(x: Tensor) -> Tensor:
    wide = x.repeat_interleave(2, dim=1)
    odd = torch.arange(wide.shape[1]) % 2 == 1
    return torch.where(odd, wide >> 4, wide & 15).to(torch.bfloat16)


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_cat_columns(x: Tensor) -> Tensor:
    return torch.cat([(x & 15).to(torch.bfloat16), (x >> 4).to(torch.bfloat16)], dim=1)


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_cat_rows(x: Tensor) -> Tensor:
    return torch.cat([(x & 15).to(torch.int16), (x >> 4).to(torch.int16)], dim=0).to(torch.bfloat16)


@workload("int8_unpack", UINT8_SIZES, uint8_matrix)
def unpack_interleave_rows_transposed(x: Tensor) -> Tensor:
    both = torch.stack([(x & 15).to(torch.bfloat16), (x >> 4).to(torch.bfloat16)], dim=1)
    return both.reshape(2 * x.shape[0], x.shape[1]).t().contiguous()


@workload("int8_unpack", [(5, 8, 4), (16, 32, 16), (64, 48, 32), (3, 64, 8)], uint8_with_scales)
def unpack_dequant_groups(x: Tensor, scales: Tensor) -> Tensor:
    lo, hi = (x & 15).to(torch.bfloat16), (x >> 4).to(torch.bfloat16)
    q = torch.stack([lo, hi], dim=-1).view(x.shape[0], 2 * x.shape[1])
    group = q.shape[1] // scales.shape[1]
    return (q - 8) * scales.repeat_interleave(group, dim=1)


# ---------------------------------------------------------------------------
# conv / pooling / resampling
# ---------------------------------------------------------------------------

POOL_SIZES = [(2, 3, 9, 7), (1, 8, 16, 16), (2, 4, 5, 11)]


@workload("conv_pool", [(1, 3, 9, 7, 4), (2, 8, 6, 6, 5), (1, 4, 16, 12, 8)], conv_inputs)
def conv_bias_relu(x: Tensor, w: Tensor, b: Tensor) -> tuple[Tensor, ...]:
    y = F.conv2d(x, w, None, padding=1)
    z = F.conv2d(x.to(memory_format=torch.channels_last), w, None, stride=2)
    return torch.relu(y + b[:, None, None]), z * b[:, None, None]


@workload("conv_pool", POOL_SIZES, one)
def max_pool_variants(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.max_pool2d(x, 3, stride=2, padding=1),
        *F.max_pool2d(x, 2, stride=2, return_indices=True),
        F.max_pool2d(x.to(memory_format=torch.channels_last), (3, 2), stride=(1, 2)),
    )


@workload("conv_pool", POOL_SIZES, one)
def avg_pool_variants(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.avg_pool2d(x, 2),
        F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
        F.avg_pool2d(x, 3, stride=2, ceil_mode=True),
    )


@workload("conv_pool", POOL_SIZES, one)
def adaptive_pool(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.adaptive_avg_pool2d(x, (3, 5)),
        F.adaptive_max_pool2d(x, (2, 3))[0],
        F.adaptive_avg_pool2d(x, 1),
    )


@workload("conv_pool", POOL_SIZES, one)
def interpolate_modes(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, size=(5, 9), mode="nearest"),
        F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
        F.interpolate(x, size=(4, 6), mode="bilinear", align_corners=True),
    )


@workload("conv_pool", [(1, 3, 9, 7), (2, 4, 8, 8), (1, 2, 5, 13)], one)
def im2col_unfold(x: Tensor) -> tuple[Tensor, ...]:
    return F.unfold(x, 3, padding=1) * 2, F.unfold(x, (2, 3), stride=2)


@workload("conv_pool", [(1, 2, 6, 5, 7), (2, 3, 4, 8, 8)], one)
def pool_3d(x: Tensor) -> tuple[Tensor, ...]:
    return F.max_pool3d(x, 2), F.avg_pool3d(x, (1, 3, 3), stride=1, padding=(0, 1, 1))


# ---------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------


@workload("attention", [(2, 7, 3, 8), (1, 16, 4, 16), (2, 5, 2, 32)], attention_inputs)
def multi_head_attention(x: Tensor, w_qkv: Tensor, w_out: Tensor) -> Tensor:
    batch, seq, width = x.shape
    heads = 2 if width % 2 == 0 else 1
    qkv = (x @ w_qkv.t()).view(batch, seq, 3, heads, width // heads).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(width // heads))
    attn = torch.softmax(scores, dim=-1)
    out = (attn @ v).transpose(1, 2).reshape(batch, seq, width)
    return out @ w_out.t()


@workload("attention", [(1, 2, 7, 8), (2, 3, 16, 16), (1, 4, 33, 8)], qkv_inputs)
def causal_attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    seq = q.shape[-2]
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(seq, seq, dtype=torch.bool).triu(1)
    scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


@workload("attention", [(1, 4, 2, 7, 8), (2, 6, 3, 16, 16), (1, 8, 2, 5, 32)], gqa_inputs)
def grouped_query_attention(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    group = q.shape[1] // k.shape[1]
    k = k.repeat_interleave(group, dim=1)
    v = v[:, :, None].expand(-1, -1, group, -1, -1).reshape(q.shape[0], q.shape[1], *v.shape[2:])
    scores = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1]), dim=-1)
    return (scores @ v).transpose(1, 2).flatten(2)
