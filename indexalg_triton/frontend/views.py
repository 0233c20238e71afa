"""Views and data movement, each a new index map over its input (no copies): permutes,
slices, reshapes, broadcasts, repeats, flips, rolls, stacks, ``cat`` and padding (guarded
loads), pixel shuffles, nearest upsampling.  Each is a function of the :class:`Tracer`."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from indexalg.expr import And, Expr, ModularIndexing, add, as_expr, integer, mul
from indexalg_triton.errors import FrontendError
from indexalg_triton.frontend.lazy import (
    Coords,
    Lazy,
    contiguous_strides,
    digits,
    norm_dim,
)
from indexalg_triton.frontend.tracer import Tracer
from indexalg_triton.spec import Operand, is_float

__all__ = [
    "cat",
    "expand",
    "flip",
    "pad",
    "permute",
    "pixel_shuffle",
    "pixel_unshuffle",
    "remap",
    "repeat",
    "reshape",
    "roll",
    "select",
    "slice_",
    "split",
    "squeeze",
    "stack",
    "unsqueeze",
    "upsample_nearest",
]


def permute(tr: Tracer, x: Lazy, dims: Sequence[int]) -> Lazy:
    n = len(x.shape)
    dims = [norm_dim(d, n) for d in dims]

    def at(c: Coords) -> Operand:
        old: list[Expr] = [integer(0)] * n
        for k, d in enumerate(dims):
            old[d] = c[k]
        return x.at(old)

    return Lazy(tuple(x.shape[d] for d in dims), x.dtype, at)


def remap(
    tr: Tracer,
    x: Lazy,
    shape: Sequence[int],
    fn: Callable[[list[Expr]], list[Expr]],
    dtype: str | None = None,
) -> Lazy:
    """A view: element ``c`` of the result is element ``fn(c)`` of ``x``."""

    def at(c: Coords) -> Operand:
        return x.at(fn(list(c)))

    return Lazy(tuple(shape), dtype or x.dtype, at)


def slice_(tr: Tracer, x: Lazy, dim: int, start: int | None, end: int | None, step: int) -> Lazy:
    d = norm_dim(dim, len(x.shape))
    size = x.shape[d]
    lo, hi, st = slice(start, end, step).indices(size)
    n = max(0, -(-(hi - lo) // st))

    def fn(c: list[Expr]) -> list[Expr]:
        c[d] = add(lo, mul(st, c[d]))
        return c

    return remap(tr, x, (*x.shape[:d], n, *x.shape[d + 1 :]), fn)


def select(tr: Tracer, x: Lazy, dim: int, index: int) -> Lazy:
    d = norm_dim(dim, len(x.shape))
    i = index % x.shape[d]
    return remap(tr, x, x.shape[:d] + x.shape[d + 1 :], lambda c: [*c[:d], integer(i), *c[d:]])


def split(tr: Tracer, x: Lazy, sizes: Sequence[int], dim: int) -> list[Lazy]:
    out = []
    start = 0
    for s in sizes:
        out.append(slice_(tr, x, dim, start, start + s, 1))
        start += s
    return out


def reshape(tr: Tracer, x: Lazy, shape: Sequence[int]) -> Lazy:
    new = list(shape)
    total = math.prod(x.shape)
    if new.count(-1) == 1:
        known = math.prod(s for s in new if s != -1)
        new[new.index(-1)] = total // max(known, 1)
    if math.prod(new) != total:
        raise FrontendError(f"cannot view {x.shape} as {tuple(shape)}")
    new_strides = contiguous_strides(new)

    def fn(c: list[Expr]) -> list[Expr]:
        flat = add(*(mul(s, ci) for s, ci in zip(new_strides, c)))
        return digits(flat, x.shape)

    return remap(tr, x, new, fn)


def unsqueeze(tr: Tracer, x: Lazy, dim: int) -> Lazy:
    d = dim % (len(x.shape) + 1)
    return remap(tr, x, (*x.shape[:d], 1, *x.shape[d:]), lambda c: c[:d] + c[d + 1 :])


def squeeze(tr: Tracer, x: Lazy, dims: Sequence[int] | None) -> Lazy:
    n = len(x.shape)
    ds = (
        [i for i in range(n) if x.shape[i] == 1]
        if dims is None
        else [norm_dim(d, n) for d in dims if x.shape[norm_dim(d, n)] == 1]
    )

    def fn(c: list[Expr]) -> list[Expr]:
        it = iter(c)
        return [integer(0) if i in ds else next(it) for i in range(n)]

    return remap(tr, x, tuple(s for i, s in enumerate(x.shape) if i not in ds), fn)


def expand(tr: Tracer, x: Lazy, sizes: Sequence[int]) -> Lazy:
    lead = len(sizes) - len(x.shape)
    shape = tuple(x.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    return tr.broadcast(x, shape)


def repeat(tr: Tracer, x: Lazy, repeats: Sequence[int]) -> Lazy:
    lead = len(repeats) - len(x.shape)
    if lead < 0:
        raise FrontendError("repeat needs at least one count per dimension")
    shape = [*repeats[:lead], *(r * s for r, s in zip(repeats[lead:], x.shape))]

    def fn(c: list[Expr]) -> list[Expr]:
        out: list[Expr] = []
        for ci, r, s in zip(c[lead:], repeats[lead:], x.shape):
            out.append(integer(0) if s == 1 else ci if r == 1 else ModularIndexing.make(ci, 1, s))
        return out

    return remap(tr, x, shape, fn)


def flip(tr: Tracer, x: Lazy, dims: Sequence[int]) -> Lazy:
    ds = {norm_dim(d, len(x.shape)) for d in dims}

    def fn(c: list[Expr]) -> list[Expr]:
        return [add(x.shape[i] - 1, mul(-1, ci)) if i in ds else ci for i, ci in enumerate(c)]

    return remap(tr, x, x.shape, fn)


def roll(tr: Tracer, x: Lazy, shifts: Sequence[int], dims: Sequence[int]) -> Lazy:
    if not dims:
        flat = reshape(tr, x, [-1])
        return reshape(tr, roll(tr, flat, shifts, [0]), list(x.shape))
    if len(shifts) != len(dims):
        raise FrontendError("roll needs one shift per dimension")
    by = {norm_dim(d, len(x.shape)): s for s, d in zip(shifts, dims)}

    def fn(c: list[Expr]) -> list[Expr]:
        out = []
        for i, ci in enumerate(c):
            n = x.shape[i]
            k = (-by.get(i, 0)) % n
            out.append(ModularIndexing.make(add(ci, k), 1, n) if k else ci)
        return out

    return remap(tr, x, x.shape, fn)


def stack(tr: Tracer, xs: Sequence[Lazy], dim: int) -> Lazy:
    shape = xs[0].shape
    d = dim % (len(shape) + 1)
    dtype = xs[0].dtype

    def at(c: Coords) -> Operand:
        k = c[d]
        rest = list(c[:d]) + list(c[d + 1 :])
        val = xs[-1].at(rest)
        for i in range(len(xs) - 2, -1, -1):
            cond = tr.builder.index(k <= i)
            val = tr.builder.op("where", cond, xs[i].at(rest), val, dtype=dtype)
        return val

    return Lazy((*shape[:d], len(xs), *shape[d:]), dtype, at)


def cat(tr: Tracer, xs: Sequence[Lazy], dim: int, dtype: str) -> Lazy:
    """Each piece is read under the guard that the coordinate is in its range."""
    pieces = [x for x in xs if not (len(x.shape) == 1 and x.shape[0] == 0)]
    if not pieces:
        raise FrontendError("cat of empty tensors")
    ref = pieces[0].shape
    d = norm_dim(dim, len(ref))
    offsets = [0]
    for x in pieces:
        if len(x.shape) != len(ref) or x.shape[:d] + x.shape[d + 1 :] != ref[:d] + ref[d + 1 :]:
            raise FrontendError(f"cat of shapes {[p.shape for p in pieces]}")
        offsets.append(offsets[-1] + x.shape[d])

    def at(c: Coords) -> Operand:
        k = c[d]
        val: Operand | None = None
        for i in range(len(pieces) - 1, -1, -1):
            lo, hi = offsets[i], offsets[i + 1]
            claims = ([k >= lo] if i > 0 else []) + ([k < hi] if i < len(pieces) - 1 else [])
            cs = list(c)
            cs[d] = add(k, -lo)
            with tr.guarded(claims):
                v = pieces[i].at(cs)
            if val is None:
                val = v
            else:
                cond = tr.builder.index(k < hi)
                val = tr.builder.op("where", cond, v, val, dtype=dtype)
        assert val is not None
        return val

    shape = (*ref[:d], offsets[-1], *ref[d + 1 :])
    return Lazy(shape, dtype, at)


def pad(tr: Tracer, x: Lazy, pads: Sequence[int], value: Any, dtype: str) -> Lazy:
    """``constant_pad_nd``: ``pads`` pairs (before, after) from the last dimension."""
    n = len(x.shape)
    if len(pads) % 2 or len(pads) // 2 > n:
        raise FrontendError(f"constant_pad_nd with pads {list(pads)}")
    before = [0] * n
    after = [0] * n
    for j in range(len(pads) // 2):
        before[n - 1 - j], after[n - 1 - j] = pads[2 * j], pads[2 * j + 1]
    shape = tuple(s + b + a for s, b, a in zip(x.shape, before, after))
    if any(s < 0 for s in shape):
        raise FrontendError(f"constant_pad_nd with pads {list(pads)}")
    lit = float(value) if is_float(dtype) else int(value)

    def at(c: Coords) -> Operand:
        src = [add(ci, -b) for ci, b in zip(c, before)]
        claims: list[Expr] = []
        for s, b, a, si in zip(x.shape, before, after, src):
            if b > 0:
                claims.append(si >= 0)
            if a > 0:
                claims.append(si < s)
        with tr.guarded(claims):
            v = x.at(src)
        if not claims:
            return v
        cond = tr.builder.index(And.make(*claims))
        return tr.builder.op("where", cond, v, lit, dtype=dtype)

    return Lazy(shape, dtype, at)


def pixel_shuffle(tr: Tracer, x: Lazy, r: int) -> Lazy:
    *lead, ch, h, w = x.shape
    if ch % (r * r):
        raise FrontendError(f"pixel_shuffle of {ch} channels by {r}")
    k = len(lead)

    def fn(c: list[Expr]) -> list[Expr]:
        cc, hh, ww = c[k], c[k + 1], c[k + 2]
        chan = add(
            mul(r * r, cc), mul(r, ModularIndexing.make(hh, 1, r)), ModularIndexing.make(ww, 1, r)
        )
        return [*c[:k], chan, as_expr(hh) // r, as_expr(ww) // r]

    return remap(tr, x, (*lead, ch // (r * r), h * r, w * r), fn)


def pixel_unshuffle(tr: Tracer, x: Lazy, r: int) -> Lazy:
    *lead, ch, h, w = x.shape
    if h % r or w % r:
        raise FrontendError(f"pixel_unshuffle of {h}x{w} by {r}")
    k = len(lead)

    def fn(c: list[Expr]) -> list[Expr]:
        cc, hh, ww = c[k], c[k + 1], c[k + 2]
        i = ModularIndexing.make(cc, r, r)
        j = ModularIndexing.make(cc, 1, r)
        return [*c[:k], as_expr(cc) // (r * r), add(mul(r, hh), i), add(mul(r, ww), j)]

    return remap(tr, x, (*lead, ch * r * r, h // r, w // r), fn)


def upsample_nearest(tr: Tracer, x: Lazy, out_shape: Sequence[int]) -> Lazy:
    k = len(out_shape) - len(x.shape)
    ratios = []
    for i, (o, s) in enumerate(zip(out_shape, x.shape)):
        if o % s:
            raise FrontendError(
                f"upsample_nearest with a non-integer ratio ({s} -> {o}, dimension {i})"
            )
        ratios.append(o // s)
    del k

    def fn(c: list[Expr]) -> list[Expr]:
        return [ci if r == 1 else as_expr(ci) // r for ci, r in zip(c, ratios)]

    return remap(tr, x, tuple(out_shape), fn)
