"""Converters of constants, aranges, views and data movement: each an index map over its
input (:class:`~indexalg_triton.frontend.tracer.Tracer`'s views), never a copy."""

from __future__ import annotations

from typing import Any

from indexalg_triton.frontend import views
from indexalg_triton.frontend.lazy import Lazy, dims_of, norm_dim
from indexalg_triton.frontend.registry import Call, converts

__all__: list[str] = []

_FILLS = {"zeros": 0, "zeros_like": 0, "new_zeros": 0, "ones": 1, "ones_like": 1, "new_ones": 1}


@converts(
    "aten.full",
    "aten.full_like",
    "aten.zeros",
    "aten.ones",
    "aten.zeros_like",
    "aten.ones_like",
    "aten.scalar_tensor",
    "aten.new_full",
    "aten.new_zeros",
    "aten.new_ones",
)
def constant(c: Call) -> Lazy:
    assert c.shape is not None
    value = _FILLS.get(c.name)
    if value is None:
        value = (
            c.args[0]
            if c.name == "scalar_tensor"
            else c.args[1]
            if c.name in ("full_like", "full")
            else c.args[2]
        )
    return c.tr.constant(c.shape, value, c.dtype)


@converts("aten.arange")
def arange(c: Call) -> Lazy:
    if c.overload == "default":
        start, end, step = 0, c.args[0], 1
    else:
        start, end = c.args[0], c.args[1]
        step = c.opt(2, "step", 1) if c.overload == "start_step" else 1
    return c.tr.arange(start, end, step, c.dtype)


@converts("aten.permute")
def permute(c: Call) -> Lazy:
    return views.permute(c.tr, c.args[0], c.args[1])


@converts("aten.t", "aten.numpy_T")
def transpose_all(c: Call) -> Lazy:
    n = len(c.args[0].shape)
    return views.permute(c.tr, c.args[0], list(range(n))[::-1])


@converts("aten.transpose")
def transpose(c: Call) -> Lazy:
    n = len(c.args[0].shape)
    d0, d1 = norm_dim(c.args[1], n), norm_dim(c.args[2], n)
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return views.permute(c.tr, c.args[0], perm)


@converts("aten.slice")
def slice_(c: Call) -> Lazy:
    return views.slice_(
        c.tr, c.args[0], c.opt(1, "dim", 0), c.opt(2, "start"), c.opt(3, "end"), c.opt(4, "step", 1)
    )


@converts("aten.select")
def select(c: Call) -> Lazy:
    return views.select(c.tr, c.args[0], c.args[1], c.args[2])


@converts("aten.split", "aten.split_with_sizes")
def split(c: Call) -> list[Lazy]:
    x, size, dim = c.args[0], c.args[1], c.opt(2, "dim", 0)
    d = norm_dim(dim, len(x.shape))
    if isinstance(size, int):
        n = x.shape[d]
        size = [min(size, n - s) for s in range(0, n, size)]
    return views.split(c.tr, x, size, d)


@converts("aten.unbind")
def unbind(c: Call) -> list[Lazy]:
    x, dim = c.args[0], c.opt(1, "dim", 0)
    return [views.select(c.tr, x, dim, i) for i in range(x.shape[norm_dim(dim, len(x.shape))])]


@converts("aten.view", "aten.reshape", "aten._unsafe_view")
def reshape(c: Call) -> Lazy:
    return views.reshape(c.tr, c.args[0], c.args[1])


@converts("aten.unsqueeze")
def unsqueeze(c: Call) -> Lazy:
    return views.unsqueeze(c.tr, c.args[0], c.args[1])


@converts("aten.squeeze")
def squeeze(c: Call) -> Lazy:
    args = c.args
    dims = None if len(args) < 2 else (args[1] if isinstance(args[1], list) else [args[1]])
    return views.squeeze(c.tr, args[0], dims)


@converts("aten.expand")
def expand(c: Call) -> Lazy:
    return views.expand(c.tr, c.args[0], c.args[1])


@converts("aten.repeat")
def repeat(c: Call) -> Lazy:
    return views.repeat(c.tr, c.args[0], c.args[1])


@converts("aten.flip")
def flip(c: Call) -> Lazy:
    return views.flip(c.tr, c.args[0], c.args[1])


@converts("aten.roll")
def roll(c: Call) -> Lazy:
    shifts, dims = dims_of(c.args[1]) or [], dims_of(c.opt(2, "dims", [])) or []
    return views.roll(c.tr, c.args[0], shifts, dims)


@converts("aten.stack")
def stack(c: Call) -> Lazy:
    return views.stack(c.tr, c.args[0], c.args[1] if len(c.args) > 1 else 0)


@converts("aten.cat")
def cat(c: Call) -> Lazy:
    return views.cat(c.tr, c.args[0], c.opt(1, "dim", 0), c.dtype)


@converts("aten.constant_pad_nd")
def pad(c: Call) -> Lazy:
    return views.pad(c.tr, c.args[0], c.args[1], c.opt(2, "value", 0), c.dtype)


@converts("aten.pixel_shuffle")
def pixel_shuffle(c: Call) -> Lazy:
    return views.pixel_shuffle(c.tr, c.args[0], c.args[1])


@converts("aten.pixel_unshuffle")
def pixel_unshuffle(c: Call) -> Lazy:
    return views.pixel_unshuffle(c.tr, c.args[0], c.args[1])


@converts("aten.upsample_nearest1d", "aten.upsample_nearest2d", "aten.upsample_nearest3d")
def upsample_nearest(c: Call) -> Any:
    assert c.shape is not None
    return views.upsample_nearest(c.tr, c.args[0], c.shape)
