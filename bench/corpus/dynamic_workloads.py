"""The dynamic-shape-heavy workload set of the corpus harvester (``--dynamic-heavy``).

Plain torch, no downloads, like ``bench.corpus.workloads``; these workloads are compiled
only with symbolic sizes (``dynamic=True``, and ``torch._dynamo.mark_dynamic`` on several
dims of every input, see :func:`default_marks`), so that the harvested expressions carry
size symbols: symbolic strides of views and slices, pooling / interpolation / unfold
windows over symbolic spatial sizes, cat / pad / narrow / roll with symbolic offsets,
reductions over permuted inputs, attention with a symbolic sequence length, reshapes that
split a symbolic dim (``s0 // 4``).  Sizes are odd and at least 2 on every marked dim (a
size-0/1 dim would be specialised).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

from bench.corpus.workloads import Size, Tensor, Workload, rand

#: (input position, dims) to mark dynamic
Marks = tuple[tuple[int, tuple[int, ...]], ...]


def default_marks(inputs: Sequence[Tensor]) -> Marks:
    """Every dim of size >= 2 of every input except the innermost (a hidden or head dim
    is usually static while batch, sequence and spatial sizes vary); a 1-D input's only
    dim is marked."""
    out: list[tuple[int, tuple[int, ...]]] = []
    for i, t in enumerate(inputs):
        if t.dim() == 0:
            continue
        dims = range(t.dim()) if t.dim() == 1 else range(t.dim() - 1)
        chosen = tuple(d for d in dims if t.shape[d] >= 2)
        if chosen:
            out.append((i, chosen))
    return tuple(out)


@dataclasses.dataclass(frozen=True)
class DynamicWorkload(Workload):
    """A workload with the dims the ``mark_dynamic_dims`` shape mode marks."""

    marks: Callable[[Sequence[Tensor]], Marks] = default_marks


WORKLOADS: list[Workload] = []


def workload(
    kind: str,
    sizes: Sequence[Size],
    make_inputs: Callable[[Size], tuple[Tensor, ...]],
    marks: Callable[[Sequence[Tensor]], Marks] = default_marks,
) -> Callable[
    [Callable[..., Tensor | tuple[Tensor, ...]]], Callable[..., Tensor | tuple[Tensor, ...]]
]:
    """Register the decorated function as a workload named ``dyn_`` + its name; every size
    is used in both dynamic shape modes."""

    def register(
        fn: Callable[..., Tensor | tuple[Tensor, ...]],
    ) -> Callable[..., Tensor | tuple[Tensor, ...]]:
        sz = tuple(tuple(s) for s in sizes)
        WORKLOADS.append(
            DynamicWorkload(
                name="dyn_" + fn.__name__,
                kind=kind,
                fn=fn,
                make_inputs=make_inputs,
                sizes=sz,
                dynamic_sizes=sz,
                marks=marks,
            )
        )
        return fn

    return register


def mark_all(inputs: Sequence[Tensor]) -> Marks:
    """Every dim of size >= 2 of every input."""
    return tuple(
        (i, tuple(d for d in range(t.dim()) if t.shape[d] >= 2))
        for i, t in enumerate(inputs)
        if any(t.shape[d] >= 2 for d in range(t.dim()))
    )


def one(shape: Size) -> tuple[Tensor, ...]:
    return (rand(*shape),)


def two(shape: Size) -> tuple[Tensor, ...]:
    return (rand(*shape), rand(*shape))


def strided_base(shape: Size) -> tuple[Tensor, ...]:
    a, b, c = shape
    base = rand(a + 1, b + 2, 2 * c + 1)
    # a non-contiguous input with a storage offset: its strides are symbolic too
    return (base[1:, 1:-1, ::2],)


def cat_inputs(shape: Size) -> tuple[Tensor, ...]:
    a, b, c = shape
    return (rand(a, b, c), rand(a, b + 2, c), rand(a, b, c + 3))


def qkv(shape: Size) -> tuple[Tensor, ...]:
    batch, heads, seq, head_dim = shape
    return tuple(rand(batch, heads, seq, head_dim) for _ in range(3))


def rope(shape: Size) -> tuple[Tensor, ...]:
    batch, seq, heads, head_dim = shape
    return (rand(batch, seq, heads, head_dim), rand(2 * seq + 3, head_dim // 2))


def tokens(shape: Size) -> tuple[Tensor, ...]:
    vocab, batch, seq, dim = shape
    return (rand(vocab, dim), torch.randint(0, vocab, (batch, seq)), rand(seq, dim))


def uint8_rows(shape: Size) -> tuple[Tensor, ...]:
    m, n = shape
    return (torch.randint(0, 256, (m, n), dtype=torch.uint8), rand(m, 2))


SIZES_3D = [(5, 7, 6), (3, 9, 10)]
SIZES_4D = [(2, 3, 7, 10), (3, 5, 9, 6)]
POOL = [(2, 3, 11, 9), (3, 2, 14, 13)]

# ---------------------------------------------------------------------------
# views, strides, permutes
# ---------------------------------------------------------------------------


@workload("elementwise", SIZES_3D, one, mark_all)
def permute_views(x: Tensor) -> tuple[Tensor, ...]:
    return (
        x.permute(2, 0, 1).contiguous() * 2,
        x.transpose(0, 1).reshape(x.shape[1], -1) + 1,
        x.permute(1, 2, 0) + x.permute(1, 2, 0).flip(0),
    )


@workload("elementwise", SIZES_3D, strided_base, mark_all)
def symbolic_strides(x: Tensor) -> tuple[Tensor, ...]:
    return x * 2 + 1, x.permute(2, 1, 0).contiguous(), x[:, ::2].sum(1)


@workload("elementwise", [(4, 6, 8), (6, 10, 12)], one, mark_all)
def split_dims(x: Tensor) -> tuple[Tensor, ...]:
    a, b, c = x.shape
    y = x.reshape(a, b // 2, 2, c).transpose(1, 2).contiguous()
    z = x.reshape(a * b, c // 4, 4).permute(2, 0, 1).contiguous()
    return y + 1, z * 3, x.flatten(0, 1).t().contiguous()


@workload("elementwise", SIZES_3D, one, mark_all)
def slices_steps(x: Tensor) -> tuple[Tensor, ...]:
    return (
        x[:, 1:-1, ::2] * 2,
        x[..., 2:].transpose(-1, -2).contiguous(),
        x[1:, :, 1::3] + 1,
        torch.narrow(x, 1, 1, x.shape[1] - 2) * 3,
    )


@workload("elementwise", [(7, 10), (9, 12)], one, mark_all)
def roll_shift(x: Tensor) -> tuple[Tensor, ...]:
    return torch.roll(x, 3, 1) + 1, torch.roll(x, (2, -1), (0, 1)), x.flip(1) * 2


@workload("elementwise", [(2, 6, 5, 7), (3, 8, 4, 3)], one, mark_all)
def channel_shuffle(x: Tensor) -> tuple[Tensor, ...]:
    n, c, h, w = x.shape
    shuffled = x.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
    return shuffled + 1, x.to(memory_format=torch.channels_last) * 2


@workload("elementwise", [(2, 4, 6, 6), (1, 4, 10, 8)], one, mark_all)
def pixel_shuffle(x: Tensor) -> tuple[Tensor, ...]:
    return F.pixel_shuffle(x, 2) * 2, F.pixel_unshuffle(x, 2) + 1


@workload("elementwise", [(9, 12), (11, 10)], one, mark_all)
def unfold_strided(x: Tensor) -> tuple[Tensor, ...]:
    return x.unfold(1, 3, 2) * 2, x.unfold(0, 4, 3).sum(-1), x.as_strided((3, 4), (2, 1)) + 1


@workload("elementwise", [(6, 9), (10, 7)], one, mark_all)
def repeat_expand(x: Tensor) -> tuple[Tensor, ...]:
    return (
        x.repeat(2, 3) + 1,
        x.repeat_interleave(2, dim=1) * 2,
        x[:, None, :].expand(-1, 3, -1).reshape(-1, x.shape[1]) - 1,
    )


@workload("elementwise", [(7, 9), (12, 5)], one, mark_all)
def triangle_diag(x: Tensor) -> tuple[Tensor, ...]:
    return torch.tril(x, -1) + torch.triu(x, 2), torch.diagonal(x, 1) * 2


# ---------------------------------------------------------------------------
# cat / pad / slices
# ---------------------------------------------------------------------------


@workload("cat_pad", SIZES_3D, cat_inputs, mark_all)
def cat_symbolic(x: Tensor, y: Tensor, z: Tensor) -> tuple[Tensor, ...]:
    return (
        torch.cat([x, y], 1) * 2,
        torch.cat([x, z], 2) + 1,
        torch.cat([x, x.flip(0)], 0),
        torch.stack([x, x * 2], 2).flatten(2),
        torch.cat([x[:, 1:], y[:, :-1]], 1),
    )


@workload("cat_pad", [(2, 3, 7, 9), (1, 4, 6, 11)], one, mark_all)
def pad_symbolic(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.pad(x, (1, 2, 3, 0)) * 2,
        F.pad(x, (2, 2, 1, 1), mode="reflect"),
        F.pad(x, (1, 3, 2, 0), mode="replicate"),
        F.pad(x, (2, 1, 1, 2), mode="circular"),
        F.pad(x, (-1, 1, 0, -2)) + 1,
    )


@workload("cat_pad", [(2, 7, 3, 8), (3, 9, 2, 12)], rope)
def rope_cache_slice(x: Tensor, cache: Tensor) -> Tensor:
    seq = x.shape[1]
    cos = cache[:seq].cos()[None, :, None, :]
    sin = cache[:seq].sin()[None, :, None, :]
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)


@workload("cat_pad", [(5, 8), (7, 10)], one, mark_all)
def chunk_split(x: Tensor) -> tuple[Tensor, ...]:
    a, b = x.chunk(2, 1)
    c, d = x.split([2, x.shape[0] - 2], 0)
    return a * b, torch.cat([d, c], 0) + 1


# ---------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------


@workload("reduction", SIZES_3D, one, mark_all)
def reduce_permuted(x: Tensor) -> tuple[Tensor, ...]:
    p = x.permute(2, 0, 1)
    return (
        p.sum(0),
        p.sum(1),
        p.amax(2),
        x.transpose(0, 2).mean((0, 1)),
        x.permute(1, 0, 2)[:, 1:].sum(-1),
    )


@workload("reduction", [(6, 40), (5, 77)], one, mark_all)
def split_reduction(x: Tensor) -> tuple[Tensor, ...]:
    return x.sum(), x.t().sum(0), torch.var_mean(x, 1)[0]


@workload("reduction", SIZES_4D, one)
def norm_over_dims(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.layer_norm(x, x.shape[-1:]),
        F.group_norm(x.transpose(1, 3).contiguous(), 1),
        torch.softmax(x.permute(0, 3, 1, 2), dim=1),
        torch.cumsum(x.transpose(-1, -2), -1),
    )


# ---------------------------------------------------------------------------
# pooling / interpolation / im2col
# ---------------------------------------------------------------------------


@workload("conv_pool", POOL, one)
def pool_symbolic(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.max_pool2d(x, 3, stride=2, padding=1),
        F.avg_pool2d(x, 2),
        F.avg_pool2d(x, 3, stride=2, ceil_mode=True, count_include_pad=False),
        F.max_pool2d(x.to(memory_format=torch.channels_last), 2),
    )


@workload("conv_pool", POOL, one, mark_all)
def pool_symbolic_all(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.max_pool2d(x, (3, 2), stride=(2, 1)),
        F.avg_pool2d(x, 3, stride=1, padding=1),
        F.adaptive_avg_pool2d(x, (3, 4)),
    )


@workload("conv_pool", POOL, one)
def interpolate_symbolic(x: Tensor) -> tuple[Tensor, ...]:
    return (
        F.interpolate(x, scale_factor=2, mode="nearest"),
        F.interpolate(x, scale_factor=0.5, mode="nearest"),
        F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
        F.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True),
    )


@workload("conv_pool", [(1, 3, 9, 8), (2, 2, 7, 11)], one)
def im2col_symbolic(x: Tensor) -> tuple[Tensor, ...]:
    return F.unfold(x, 3, padding=1) * 2, F.unfold(x, (2, 3), stride=2)


@workload("conv_pool", [(1, 2, 5, 6, 7), (2, 2, 6, 5, 8)], one)
def pool_3d_symbolic(x: Tensor) -> tuple[Tensor, ...]:
    return F.max_pool3d(x, 2), F.avg_pool3d(x, (1, 3, 3), stride=1, padding=(0, 1, 1))


# ---------------------------------------------------------------------------
# attention, embeddings, int8
# ---------------------------------------------------------------------------


@workload("attention", [(2, 3, 7, 8), (1, 2, 13, 16)], qkv)
def attention_symbolic_seq(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, ...]:
    b, h, seq, d = q.shape
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d)
    mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    attn = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    out = (attn @ v).transpose(1, 2).reshape(b, seq, h * d)
    return out, F.scaled_dot_product_attention(q, k, v, is_causal=True)


@workload("attention", [(2, 6, 9, 8), (1, 4, 11, 16)], qkv)
def attention_heads_split(q: Tensor, k: Tensor, v: Tensor) -> tuple[Tensor, ...]:
    b, h, seq, d = q.shape
    kk = k[:, : h // 2].repeat_interleave(2, dim=1)
    scores = torch.softmax(q @ kk.transpose(-2, -1), dim=-1)
    merged = (scores @ v).permute(0, 2, 1, 3).reshape(b, seq, h * d)
    return merged.view(b, seq, 2, h * d // 2).transpose(1, 2).contiguous(), scores.sum(1)


@workload("gather", [(50, 2, 7, 8), (40, 3, 9, 16)], tokens)
def embedding_symbolic(table: Tensor, ids: Tensor, pos: Tensor) -> tuple[Tensor, ...]:
    e = F.embedding(ids, table) + pos
    return e, e.transpose(1, 2).contiguous(), torch.gather(pos, 1, ids % pos.shape[1])


@workload("int8_unpack", [(6, 8), (9, 14)], uint8_rows)
def unpack_symbolic(x: Tensor, scale: Tensor) -> tuple[Tensor, ...]:
    lo, hi = (x & 15).to(torch.float32), (x >> 4).to(torch.float32)
    inter = torch.stack([lo, hi], -1).flatten(-2)
    rows = torch.cat([lo, hi], 0)
    return inter * scale[:, :1], rows.t().contiguous(), inter.view(x.shape[0], -1, 4).sum(-1)
