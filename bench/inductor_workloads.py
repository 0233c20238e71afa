"""The workloads of the Inductor plug-in's tests and benchmark (``bench.inductor``).

Plain torch functions and small models, no downloads: most are the corpus harvester's
workloads (``bench.corpus.workloads``, one size each), plus whole blocks written here
(conv/bn/relu, a transformer block, an MLP, int4 unpack, pixel shuffle alone).  Each has a
seeded input builder and a tolerance; ``CI`` names the few compiled in the fast test set
(C++ backend, static and dynamic), ``TABLE`` the ones in the default benchmark table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from bench.corpus import workloads as corpus

Tensor = torch.Tensor


@dataclasses.dataclass(frozen=True)
class Workload:
    name: str
    kind: str
    fn: Callable[..., object]
    make: Callable[[], tuple[Tensor, ...]]
    atol: float = 1e-4
    rtol: float = 1e-4

    def inputs(self, seed: int = 0) -> tuple[Tensor, ...]:
        torch.manual_seed(seed)
        return self.make()


# --- from the corpus harvester: (name, size) ----------------------------------------------

_FROM_CORPUS: dict[str, tuple[int, ...]] = {
    "add_transpose_2d": (33, 17),
    "add_permute_3d": (9, 3, 5),
    "permute_3d_all_orders": (4, 6, 10),
    "nchw_to_nhwc": (2, 3, 5, 7),
    "channels_last_add": (2, 3, 5, 7),
    "strided_slices": (20, 31),
    "strided_input_view": (33, 17),
    "broadcast_add_3d": (9, 3, 5),
    "expand_stride0": (33, 17),
    "broadcast_channel_stats": (2, 3, 5, 7),
    "reshape_view_chain": (4, 6, 10),
    "repeat_tile": (5, 7),
    "roll_flip": (33, 17),
    "channel_shuffle": (2, 12, 3, 3),
    "pixel_shuffle_roundtrip": (1, 8, 6, 6),
    "diagonal_triangle": (9, 7),
    "unfold_windows": (8, 32),
    "as_strided_windows": (64,),
    "sum_each_dim": (4, 6, 10),
    "reduce_permuted": (9, 3, 5),
    "var_mean_rows_cols": (33, 17),
    "cumsum_rows": (9, 33),
    "channels_last_reduce": (2, 3, 5, 7),
    "softmax_dims": (4, 33, 65),
    "log_softmax_transposed": (33, 17),
    "layer_norm_last": (4, 6, 64),
    "group_norm": (2, 6, 5, 7),
    "batch_norm_channels_last": (2, 3, 5, 7),
    "cat_dims": (16, 33),
    "stack_dims": (4, 6, 10),
    "pad_modes": (2, 3, 5, 7),
    "rotary_embedding": (2, 5, 3, 8),
    "interleave_pairs": (33, 17),
    "index_select_dims": (33, 17, 9),
    "gather_rows": (33, 17, 9),
    "embedding_positional": (97, 33, 3, 5),
    "unpack_interleave": (16, 32),
    "unpack_cat_columns": (16, 32),
    "unpack_dequant_groups": (16, 32, 16),
    "conv_bias_relu": (2, 8, 6, 6, 5),
    "max_pool_variants": (1, 3, 9, 7),
    "avg_pool_variants": (1, 3, 9, 7),
    "adaptive_pool": (1, 3, 9, 7),
    "interpolate_modes": (1, 3, 9, 7),
    "im2col_unfold": (2, 4, 8, 8),
    "multi_head_attention": (2, 7, 3, 8),
    "causal_attention": (2, 3, 16, 16),
    "grouped_query_attention": (1, 4, 2, 7, 8),
}


#: Larger sizes for the GPU kernel-time comparison (``bench.inductor_gpu``): memory-bound
#: kernels where the index arithmetic of the hot loop can show.
BIG: dict[str, tuple[int, ...]] = {
    "add_permute_3d": (512, 384, 257),
    "nchw_to_nhwc": (16, 67, 96, 96),
    "channel_shuffle": (8, 64, 56, 56),
    "pixel_shuffle_roundtrip": (8, 64, 66, 66),
    "repeat_tile": (1024, 513),
    "roll_flip": (2048, 1537),
    "strided_slices": (2048, 2047),
    "cat_dims": (1024, 1023),
    "interleave_pairs": (2048, 1023),
    "reduce_permuted": (256, 128, 257),
    "softmax_dims": (8, 255, 513),
    "group_norm": (8, 64, 56, 57),
    "im2col_unfold": (8, 16, 64, 64),
    "adaptive_pool": (8, 32, 67, 65),
    "interpolate_modes": (8, 16, 67, 65),
    "unpack_interleave": (4096, 2048),
    "unpack_dequant_groups": (2048, 2048, 64),
    "embedding_positional": (50000, 256, 32, 127),
}


def big_inputs(name: str, seed: int = 0) -> tuple[Tensor, ...]:
    """Inputs of :data:`BIG`'s size for a corpus workload."""
    torch.manual_seed(seed)
    w = next(w for w in corpus.WORKLOADS if w.name == name)
    return w.make_inputs(BIG[name])


def _corpus_workloads() -> list[Workload]:
    by_name = {w.name: w for w in corpus.WORKLOADS}
    out = []
    for name, size in _FROM_CORPUS.items():
        w = by_name[name]
        out.append(
            Workload(
                name,
                w.kind,
                w.fn,
                lambda w=w, size=size: w.make_inputs(size),  # type: ignore[misc]
                atol=1e-2 if w.kind == "int8_unpack" else 1e-4,
                rtol=1e-2 if w.kind == "int8_unpack" else 1e-4,
            )
        )
    return out


# --- written here ----------------------------------------------------------------------------


class ConvBnRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(6, 10, 3, padding=1)
        self.bn = nn.BatchNorm2d(10)
        self.conv2 = nn.Conv2d(10, 10, 3, stride=2, groups=2)
        self.bn2 = nn.BatchNorm2d(10)

    def forward(self, x: Tensor) -> Tensor:
        y = F.relu(self.bn(self.conv(x)))
        return F.relu(self.bn2(self.conv2(y)))[..., :3, :3] + F.avg_pool2d(y, 2)[..., :3, :3]


class TransformerBlock(nn.Module):
    def __init__(self, width: int = 24, heads: int = 3) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.proj = nn.Linear(width, width)
        self.ln2 = nn.LayerNorm(width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x: Tensor) -> Tensor:
        b, s, w = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, self.heads, w // self.heads).unbind(2)
        a = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        x = x + self.proj(a.transpose(1, 2).reshape(b, s, w))
        return x + self.mlp(self.ln2(x))


def _module(make: Callable[[], nn.Module]) -> Callable[..., object]:
    """A fixed, seeded module in eval mode, called as a function."""
    cache: list[nn.Module] = []

    def fn(*args: Tensor) -> object:
        if not cache or next(cache[0].parameters()).device != args[0].device:
            torch.manual_seed(1234)
            cache[:] = [make().eval().to(args[0].device)]
        return cache[0](*args)

    return fn


def int4_unpack_dequant(packed: Tensor, scales: Tensor) -> Tensor:
    """Two signed int4 per byte (low nibble first), group-wise scales of 8."""
    lo = (packed & 15).to(torch.int8)
    hi = (packed >> 4).to(torch.int8)
    lo = torch.where(lo > 7, lo - 16, lo)
    hi = torch.where(hi > 7, hi - 16, hi)
    q = torch.stack([lo, hi], dim=-1).reshape(packed.shape[0], -1).float()
    g = q.view(q.shape[0], -1, 8) * scales.unsqueeze(-1)
    return g.reshape(q.shape)


def pixel_shuffle_conv(x: Tensor, w: Tensor) -> Tensor:
    return F.pixel_shuffle(F.conv2d(x, w, padding=1), 2).sigmoid()


def upsample_add(x: Tensor, y: Tensor) -> Tensor:
    return F.interpolate(x, scale_factor=2, mode="nearest") + y


def mlp_gelu(x: Tensor, w1: Tensor, w2: Tensor) -> Tensor:
    return F.gelu(x @ w1).t() @ w2


def slice_scatter_views(x: Tensor) -> Tensor:
    y = x.clone()
    y[:, 1::2] = x[:, ::2] * 2
    return torch.cat([y[:, :3], F.pad(y, (1, 2))[:, 4:]], dim=1)


_HERE: list[Workload] = [
    Workload(
        "conv_bn_relu_block",
        "conv_pool",
        _module(ConvBnRelu),
        lambda: (torch.randn(2, 6, 9, 7),),
    ),
    Workload(
        "transformer_block",
        "attention",
        _module(TransformerBlock),
        lambda: (torch.randn(2, 7, 24),),
        atol=1e-3,
        rtol=1e-3,
    ),
    Workload(
        "int4_unpack_dequant",
        "int8_unpack",
        int4_unpack_dequant,
        lambda: (torch.randint(0, 256, (6, 12), dtype=torch.uint8), torch.rand(6, 3)),
    ),
    Workload(
        "pixel_shuffle_conv",
        "conv_pool",
        pixel_shuffle_conv,
        lambda: (torch.randn(1, 4, 5, 7), torch.randn(8, 4, 3, 3)),
    ),
    Workload(
        "upsample_add",
        "conv_pool",
        upsample_add,
        lambda: (torch.randn(2, 3, 5, 7), torch.randn(2, 3, 10, 14)),
    ),
    Workload(
        "mlp_gelu",
        "attention",
        mlp_gelu,
        lambda: (torch.randn(9, 16), torch.randn(16, 20), torch.randn(9, 5)),
        atol=1e-3,
        rtol=1e-3,
    ),
    Workload(
        "slice_scatter_views",
        "cat_pad",
        slice_scatter_views,
        lambda: (torch.randn(5, 12),),
    ),
]

WORKLOADS: list[Workload] = _corpus_workloads() + _HERE
BY_NAME: dict[str, Workload] = {w.name: w for w in WORKLOADS}

#: Workloads that build CPU tensors inside the function (not run by ``bench.inductor_gpu``).
CPU_ONLY: tuple[str, ...] = ("unfold_windows", "batch_norm_channels_last", "causal_attention")

#: Compiled in the fast tests (C++ backend, static and dynamic): cheap, and between them
#: they reach both covered entry points with div/mod-heavy indices.
CI: tuple[str, ...] = ("pixel_shuffle_conv", "add_permute_3d", "int4_unpack_dequant")

#: The default benchmark table: one or two per kind, the heavier index arithmetic.
TABLE: tuple[str, ...] = (
    "conv_bn_relu_block",
    "transformer_block",
    "adaptive_pool",
    "pixel_shuffle_roundtrip",
    "cat_dims",
    "interpolate_modes",
    "im2col_unfold",
    "int4_unpack_dequant",
    "embedding_positional",
    "group_norm",
    "softmax_dims",
    "strided_slices",
)
