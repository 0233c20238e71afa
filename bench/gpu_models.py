"""The models suite: memory-bound functions as model code writes them (norms, activations with
residuals, rotary embedding, KV-cache views, pooling, upsampling, pixel shuffle, cat/pad/slice,
int4/int8 unpack, strided and column reductions, softmax over permuted inputs).

Each :class:`Model` is a torch function and a maker of its inputs at a size: ``small`` (the
interpreter tests, tests/triton/test_models_suite.py) or ``large`` (the GPU).  On a GPU,
``python3 -m bench.gpu --suite models --out DIR`` runs, per function and in one process:
eager; ``from_torch`` + the fastest verified config of its space (:func:`tuning_space`);
the three torch.compile configurations of :data:`bench.gpu.COMPILE_CONFIGS`, each checked
against eager; and writes ``gpu_models.json`` after every function.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

_Make = Callable[[str, str, Any], list[Any]]


@dataclass(frozen=True)
class Model:
    """A named memory-bound function from model code."""

    name: str
    fn: Callable[..., Any]
    make: _Make  # (size, device, generator) -> inputs
    reduction: bool = False
    # the fewest bytes a kernel must move, when not every input byte is read once
    moved: Callable[[Sequence[Any], Any], int] | None = None

    def inputs(self, size: str, device: str, seed: int = 0) -> list[Any]:
        import torch

        gen = torch.Generator(device=device).manual_seed(seed)
        return self.make(size, device, gen)

    def bytes_moved(self, xs: Sequence[Any], out: Any) -> int:
        if self.moved is not None:
            return self.moved(xs, out)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        return sum(_nbytes(t) for t in [*xs, *outs])


def _nbytes(t: Any) -> int:
    return int(t.numel() * t.element_size())


def _big(size: str, small: tuple[int, ...], large: tuple[int, ...]) -> tuple[int, ...]:
    return large if size == "large" else small


def _randn(shape: Sequence[int], dev: str, gen: Any, dtype: Any = None) -> Any:
    import torch

    x = torch.randn(tuple(shape), generator=gen, device=dev)
    return x if dtype is None else x.to(dtype)


def _f(*shapes: tuple[tuple[int, ...], tuple[int, ...]], dtype: str = "float32") -> _Make:
    """Inputs of normal floats: ``(small shape, large shape)`` per argument."""

    def make(size: str, dev: str, gen: Any) -> list[Any]:
        import torch

        return [_randn(_big(size, s, lg), dev, gen, getattr(torch, dtype)) for s, lg in shapes]

    return make


# --- the functions ------------------------------------------------------------------------


def rmsnorm(x: Any, w: Any) -> Any:
    """Llama's RMSNorm: float32 statistics, bf16 in and out."""
    import torch

    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    return w * h.to(x.dtype)


def layernorm(x: Any, w: Any, b: Any) -> Any:
    import torch.nn.functional as F

    return F.layer_norm(x, (x.shape[-1],), w, b, 1e-5)


def add_layernorm(x: Any, r: Any, w: Any, b: Any) -> Any:
    """The fused residual add + norm of pre-norm transformers: both results."""
    import torch.nn.functional as F

    h = x + r
    return h, F.layer_norm(h, (h.shape[-1],), w, b, 1e-5)


def var_mean_rows(x: Any) -> Any:
    import torch

    return torch.var_mean(x, -1)


def softmax_scale_mask(x: Any, mask: Any) -> Any:
    """Attention scores: scale, additive mask broadcast over batch and heads, softmax."""
    import torch

    return torch.softmax(x * 0.125 + mask, dim=-1)


def softmax_permuted(x: Any) -> Any:
    """Softmax over the middle dimension: the reduction reads a permuted input."""
    import torch

    return torch.softmax(x.permute(0, 2, 1), dim=-1)


def log_softmax_vocab(x: Any) -> Any:
    import torch.nn.functional as F

    return F.log_softmax(x, dim=-1)


def gelu_bias_residual(h: Any, bias: Any, res: Any) -> Any:
    import torch.nn.functional as F

    return res + F.gelu(h + bias)


def gelu_tanh(x: Any) -> Any:
    import torch.nn.functional as F

    return F.gelu(x, approximate="tanh")


def swiglu(gate: Any, up: Any) -> Any:
    import torch.nn.functional as F

    return F.silu(gate) * up


def swiglu_chunk(x: Any) -> Any:
    import torch.nn.functional as F

    a, b = x.chunk(2, dim=-1)
    return F.silu(a) * b


def rotary_half(q: Any, cos: Any, sin: Any) -> Any:
    """Llama's rotary embedding (rotate_half) on (batch, heads, seq, dim)."""
    import torch

    d = q.shape[-1] // 2
    rot = torch.cat([-q[..., d:], q[..., :d]], dim=-1)
    return q * cos + rot * sin


def kv_heads_transpose(k: Any) -> Any:
    """(batch, seq, heads*dim) -> (batch, heads, seq, dim), contiguous."""
    b, s, _ = k.shape
    return k.view(b, s, 32, -1).transpose(1, 2).contiguous()


def kv_cache_append(cache: Any, new: Any) -> Any:
    import torch

    return torch.cat([cache, new], dim=2)


def repeat_kv(x: Any) -> Any:
    """Grouped-query attention: each KV head repeated for 4 query heads."""
    b, h, s, d = x.shape
    return x[:, :, None].expand(b, h, 4, s, d).reshape(b, h * 4, s, d)


def causal_mask_fill(x: Any) -> Any:
    import torch

    s = x.shape[-1]
    i = torch.arange(s, device=x.device)
    return x.masked_fill(i[None, :] > i[:, None], float("-inf"))


def avg_pool(x: Any) -> Any:
    import torch.nn.functional as F

    return F.avg_pool2d(x, 2)


def max_pool(x: Any) -> Any:
    import torch.nn.functional as F

    return F.max_pool2d(x, 2)


def global_avg_pool(x: Any) -> Any:
    return x.mean((2, 3))


def upsample_nearest(x: Any) -> Any:
    import torch.nn.functional as F

    return F.interpolate(x, scale_factor=2, mode="nearest")


def pixel_shuffle(x: Any) -> Any:
    import torch.nn.functional as F

    return F.pixel_shuffle(x, 2)


def nhwc_bias_relu(x: Any, b: Any) -> Any:
    import torch

    return torch.relu(x + b)


def channels_last_to_contiguous(x: Any) -> Any:
    return x.contiguous() * 0.5


def cat3_odd(a: Any, b: Any, c: Any) -> Any:
    import torch

    return torch.cat([a, b, c], dim=1)


def pad_hw(x: Any) -> Any:
    import torch.nn.functional as F

    return F.pad(x, (1, 1, 1, 1))


def int4_dequant(x: Any, scale: Any) -> Any:
    """Two int4 weights per byte, low nibble first, zero point 8, a scale per row."""
    import torch

    w = torch.stack([x & 15, x >> 4], dim=-1).view(x.shape[0], -1).to(torch.bfloat16)
    return (w - 8) * scale


def int8_dequant(x: Any, scale: Any) -> Any:
    import torch

    return (x.to(torch.float32) * scale).to(torch.bfloat16)


def bitfields_arange(x: Any) -> Any:
    """int32 -> ten 3-bit fields, the shifts from ``torch.arange``."""
    import torch

    shifts = torch.arange(10, device=x.device, dtype=torch.int32) * 3
    return ((x.unsqueeze(-1) >> shifts) & 7).to(torch.uint8)


def embedding(w: Any, idx: Any) -> Any:
    import torch.nn.functional as F

    return F.embedding(idx, w)


def row_sum_strided(x: Any) -> Any:
    return x[:, ::2].sum(1)


def col_mean(x: Any) -> Any:
    return x.float().mean(0)


def transpose_last2_add(x: Any) -> Any:
    return x.transpose(-1, -2) + 1


def rmsnorm_bf16_cast(x: Any, w: Any) -> Any:
    """RMSNorm as model code often writes it (issue 25): the cast names ``torch.bfloat16``, so
    the float64 reference would round there too unless the verifier strips the cast
    (:func:`indexalg_triton.runtime.reference64`)."""
    import torch

    h = x.float()
    h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
    return h.to(torch.bfloat16) * w


def embedding_scaled(table: Any, idx: Any) -> Any:
    """An embedding gather by indexing, scaled (Gemma-style ``* sqrt(hidden)``)."""
    return table[idx] * 45.25


def col_sum_tall(x: Any) -> Any:
    return x.sum(0)


def transpose12_add(t: Any) -> Any:
    return t.transpose(1, 2) + 1.0


def _mask(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    b, h, s = (2, 3, 40) if size == "small" else (8, 16, 1024)
    x = torch.randn((b, h, s, s), generator=gen, device=dev)
    m = torch.randn((s, s), generator=gen, device=dev)
    return [x, m]


def _rotary(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    b, h, s, d = (2, 3, 10, 16) if size == "small" else (8, 32, 2048, 128)
    q = torch.randn((b, h, s, d), generator=gen, device=dev).to(torch.bfloat16)
    ang = torch.rand((s, d // 2), generator=gen, device=dev) * 6.28
    ang = torch.cat([ang, ang], dim=-1)
    return [q, ang.cos().to(torch.bfloat16), ang.sin().to(torch.bfloat16)]


def _channels_last(shape_small: tuple[int, ...], shape_large: tuple[int, ...], bias: bool) -> _Make:
    def make(size: str, dev: str, gen: Any) -> list[Any]:
        import torch

        shape = _big(size, shape_small, shape_large)
        x = torch.randn(shape, generator=gen, device=dev).to(memory_format=torch.channels_last)
        if not bias:
            return [x]
        return [x, torch.randn((shape[1], 1, 1), generator=gen, device=dev)]

    return make


def _int4(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    n, k = (6, 10) if size == "small" else (16384, 8192)
    x = torch.randint(0, 256, (n, k), generator=gen, device=dev, dtype=torch.uint8)
    scale = (torch.rand((n, 1), generator=gen, device=dev) * 0.1).to(torch.bfloat16)
    return [x, scale]


def _int8(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    n, k = (6, 10) if size == "small" else (16384, 8192)
    x = torch.randint(-128, 128, (n, k), generator=gen, device=dev, dtype=torch.int8)
    return [x, torch.rand((n, 1), generator=gen, device=dev) * 0.1]


def _bits(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    shape = (7, 9) if size == "small" else (8192, 4096)
    return [torch.randint(0, 2**30, shape, generator=gen, device=dev, dtype=torch.int32)]


def _embedding(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    v, d, n = (50, 16, 13) if size == "small" else (32000, 4096, 65536)
    w = torch.randn((v, d), generator=gen, device=dev).to(torch.bfloat16)
    return [w, torch.randint(0, v, (n,), generator=gen, device=dev)]


def _embedding_llama3(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    v, d, idx = (50, 16, (3, 5)) if size == "small" else (128256, 2048, (16, 4096))
    w = torch.randn((v, d), generator=gen, device=dev).to(torch.bfloat16)
    return [w, torch.randint(0, v, idx, generator=gen, device=dev)]


def _embedding_bytes(xs: Sequence[Any], out: Any) -> int:
    return 2 * _nbytes(out) + _nbytes(xs[1])


def _strided_bytes(xs: Sequence[Any], out: Any) -> int:
    return _nbytes(xs[0]) // 2 + _nbytes(out)


def _kv(size: str, dev: str, gen: Any) -> list[Any]:
    import torch

    b, h, s, d = (2, 3, 9, 16) if size == "small" else (8, 32, 2047, 128)
    cache = torch.randn((b, h, s, d), generator=gen, device=dev).to(torch.bfloat16)
    return [cache, torch.randn((b, h, 1, d), generator=gen, device=dev).to(torch.bfloat16)]


BF16 = "bfloat16"
MODELS: dict[str, Model] = {
    m.name: m
    for m in [
        Model(
            "rmsnorm",
            rmsnorm,
            _f(((6, 64), (16384, 4096)), ((64,), (4096,)), dtype=BF16),
            reduction=True,
        ),
        Model(
            "layernorm",
            layernorm,
            _f(((6, 64), (16384, 4096)), ((64,), (4096,)), ((64,), (4096,))),
            reduction=True,
        ),
        Model(
            "add_layernorm",
            add_layernorm,
            _f(
                ((6, 64), (16384, 4096)),
                ((6, 64), (16384, 4096)),
                ((64,), (4096,)),
                ((64,), (4096,)),
            ),
            reduction=True,
        ),
        Model("var_mean_rows", var_mean_rows, _f(((6, 100), (32768, 4096))), reduction=True),
        Model("softmax_scale_mask", softmax_scale_mask, _mask, reduction=True),
        Model(
            "softmax_permuted", softmax_permuted, _f(((3, 40, 8), (64, 4096, 256))), reduction=True
        ),
        Model(
            "log_softmax_vocab", log_softmax_vocab, _f(((5, 300), (4096, 32000))), reduction=True
        ),
        Model(
            "gelu_bias_residual",
            gelu_bias_residual,
            _f(((6, 64), (16384, 8192)), ((64,), (8192,)), ((6, 64), (16384, 8192)), dtype=BF16),
        ),
        Model("gelu_tanh", gelu_tanh, _f(((6, 64), (16384, 8192)))),
        Model("swiglu", swiglu, _f(((6, 64), (16384, 8192)), ((6, 64), (16384, 8192)), dtype=BF16)),
        Model("swiglu_chunk", swiglu_chunk, _f(((6, 128), (16384, 16384)), dtype=BF16)),
        Model("rotary_half", rotary_half, _rotary),
        Model(
            "kv_heads_transpose", kv_heads_transpose, _f(((2, 9, 64), (8, 2048, 4096)), dtype=BF16)
        ),
        Model("kv_cache_append", kv_cache_append, _kv),
        Model("repeat_kv", repeat_kv, _f(((2, 2, 9, 16), (8, 8, 2048, 128)), dtype=BF16)),
        Model("causal_mask_fill", causal_mask_fill, _f(((2, 3, 20, 20), (8, 16, 1024, 1024)))),
        Model("avg_pool", avg_pool, _f(((2, 3, 8, 10), (32, 128, 112, 112)))),
        Model("max_pool", max_pool, _f(((2, 3, 8, 10), (32, 128, 112, 112)))),
        Model(
            "global_avg_pool",
            global_avg_pool,
            _f(((2, 3, 5, 7), (128, 2048, 14, 14))),
            reduction=True,
        ),
        Model("upsample_nearest", upsample_nearest, _f(((2, 3, 5, 7), (16, 128, 128, 128)))),
        Model("pixel_shuffle", pixel_shuffle, _f(((2, 8, 5, 7), (16, 256, 128, 128)))),
        Model(
            "nhwc_bias_relu", nhwc_bias_relu, _channels_last((2, 8, 5, 7), (64, 256, 56, 56), True)
        ),
        Model(
            "channels_last_to_contiguous",
            channels_last_to_contiguous,
            _channels_last((2, 8, 5, 7), (64, 256, 56, 56), False),
        ),
        Model(
            "cat3_odd",
            cat3_odd,
            _f(((5, 3), (32768, 1023)), ((5, 7), (32768, 2049)), ((5, 2), (32768, 517))),
        ),
        Model("pad_hw", pad_hw, _f(((2, 3, 5, 7), (32, 64, 224, 224)))),
        Model("int4_dequant", int4_dequant, _int4),
        Model("int8_dequant", int8_dequant, _int8),
        Model("bitfields_arange", bitfields_arange, _bits),
        Model("embedding", embedding, _embedding, moved=_embedding_bytes),
        Model(
            "row_sum_strided",
            row_sum_strided,
            _f(((9, 40), (32768, 2048))),
            reduction=True,
            moved=_strided_bytes,
        ),
        Model("col_mean", col_mean, _f(((40, 9), (16384, 16384)), dtype=BF16), reduction=True),
        Model("transpose_last2_add", transpose_last2_add, _f(((3, 20, 24), (64, 2048, 2048)))),
        # issue 25's functions from model code (the large sizes are the issue's)
        Model(
            "rmsnorm_5120",
            rmsnorm_bf16_cast,
            _f(((3, 5120), (32768, 5120)), ((5120,), (5120,)), dtype=BF16),
            reduction=True,
        ),
        Model("embedding_scaled", embedding_scaled, _embedding_llama3, moved=_embedding_bytes),
        Model("col_sum_tall", col_sum_tall, _f(((70, 12), (65536, 768))), reduction=True),
        Model("transpose12_add", transpose12_add, _f(((3, 20, 24), (96, 384, 384)))),
    ]
}


def tuning_space(spec: Any, *, wide: bool = False, structured: bool = False) -> list[Any]:
    """The configs tuned on the GPU: the configs of ``default_configs`` for a reduction (the
    reduction model's choice first: split, looped or persistent); for a pointwise kernel its
    pointer configs, the two-elements-per-thread blocks of :data:`FEW_PER_THREAD_1D` /
    :data:`FEW_PER_THREAD_2D` and, where the cost model chose a 1-D tiling of a kernel with an N-D
    alternative, the prefer-N-D tiling at :data:`ND_TILES` (torch.compile's prefer-N-D
    configurations beat 1-D kernels on broadcasts over rows).  Structured configs are left
    out: they lost on every function of this suite (in-kernel descriptors 1.2-5.7x slower,
    host-side descriptors tied or lost by up to 4%, bench/RESULTS.md); ``structured`` adds
    the first one back.  ``wide``: the 1-D space broadened (XBLOCK 512 to 8192, 2 to 16
    warps; measured: no function gained more than the noise)."""
    from indexalg_triton.access import supported_kinds
    from indexalg_triton.codegen import Config, default_configs
    from indexalg_triton.codegen.configs import tiling_groups, tiling_groups_nd

    cfgs = default_configs(spec)
    if spec.is_reduction:
        return cfgs
    pointers = [c for c in cfgs if not c.structured]
    extra: list[Any] = []
    one_d = bool(pointers) and not pointers[0].has("YBLOCK")
    if one_d:
        extra = [Config.of(w, False, XBLOCK=x) for x, w in FEW_PER_THREAD_1D]
    elif pointers:
        extra = [Config.of(w, False, XBLOCK=x, YBLOCK=y) for x, y, w in FEW_PER_THREAD_2D]
    if wide and one_d:
        extra += [Config.of(w, False, XBLOCK=x) for x, w in WIDE_1D]
    extra = [c for c in dict.fromkeys(extra) if c not in pointers]
    ks = supported_kinds()
    if one_d and len(tiling_groups_nd(spec, ks)) > 1 and len(tiling_groups(spec, ks)) == 1:
        extra += [Config.of(w, False, nd=True, XBLOCK=x, YBLOCK=y) for x, y, w in ND_TILES]
    first_structured = [c for c in cfgs if c.structured][:1] if structured else []
    return [*pointers, *extra, *first_structured]


#: Pointwise configs with two elements per thread (XBLOCK, warps), as torch.compile picks for
#: large tensors: on the H200 its pooling kernels ran 58.9 µs at XBLOCK=512 with 8 warps
#: against 64.6 µs for the same loads at XBLOCK=1024 with 4 warps (bench.gpu_stragglers).
FEW_PER_THREAD_1D = ((512, 8), (256, 4))
#: The same for 2-D tiles (XBLOCK, YBLOCK, warps): torch.compile's channels_last transpose
#: ran 32 x 8 tiles with 4 warps (96.6 µs) against our 64 x 64 with 8 (99.0 µs).
FEW_PER_THREAD_2D = ((32, 8, 4), (8, 32, 4), (16, 16, 4))
#: The broadened 1-D pointwise configs (XBLOCK, warps) of ``tuning_space(wide=True)``.
WIDE_1D = ((512, 4), (1024, 8), (4096, 16), (8192, 16))
#: The N-D tiles (XBLOCK, YBLOCK, warps) tried on kernels the cost model tiled 1-D.
ND_TILES = ((64, 64, 8), (256, 16, 8), (1024, 4, 8))


def geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
