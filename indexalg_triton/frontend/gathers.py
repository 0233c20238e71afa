"""Pooling as unrolled windows, and indirect reads: a load at an index loaded from memory,
behind a bounds check on that index.  Each is a function of the :class:`Tracer`."""

from __future__ import annotations

from collections.abc import Sequence

from indexalg.expr import Symbol, add, mul
from indexalg_triton.errors import FrontendError
from indexalg_triton.frontend.lazy import (
    Coords,
    Lazy,
    norm_dim,
)
from indexalg_triton.frontend.tracer import Tracer
from indexalg_triton.spec import Operand

__all__ = ["gather", "index_select", "pool2d"]


def pool2d(
    tr: Tracer,
    kind: str,
    x: Lazy,
    kernel: Sequence[int],
    stride: Sequence[int],
    out_shape: Sequence[int],
    dtype: str,
) -> Lazy:
    """An unrolled window (no padding): the mean or the max of ``kh * kw`` loads."""
    kh, kw = (kernel[0], kernel[-1])
    sh, sw = (stride[0], stride[-1]) if stride else (kh, kw)
    n = len(x.shape)

    def at(c: Coords) -> Operand:
        acc: Operand | None = None
        for i in range(kh):
            for j in range(kw):
                cs = [*c[: n - 2], add(mul(sh, c[n - 2]), i), add(mul(sw, c[n - 1]), j)]
                v = x.at(cs)
                if acc is None:
                    acc = v
                else:
                    acc = tr.builder.op("add" if kind == "avg" else "maximum", acc, v, dtype=dtype)
        assert acc is not None
        if kind == "avg":
            return tr.builder.op("mul", acc, 1.0 / (kh * kw), dtype=dtype)
        return acc

    return Lazy(tuple(out_shape), dtype, at)


def _indirect(tr: Tracer, x: Lazy, d: int, i: Operand, what: str) -> Symbol:
    if not isinstance(i, str):
        raise FrontendError(f"{what} needs a tensor of indices")
    tr.builder.check(i, x.shape[d])
    return Symbol(i)


def index_select(
    tr: Tracer, x: Lazy, dim: int, idx: Lazy, *, wrap: bool = False, what: str = "index_select"
) -> Lazy:
    """``x`` with dimension ``dim`` indexed by ``idx`` (any shape; its dimensions take
    the place of ``dim``); ``wrap``: negative indices count from the end."""
    d = norm_dim(dim, len(x.shape))
    k = len(idx.shape)

    def at(c: Coords) -> Operand:
        i = idx.at(list(c[d : d + k]))
        if wrap and isinstance(i, str):
            neg = tr.builder.op("lt", i, 0)
            i = tr.builder.op("where", neg, tr.builder.op("add", i, x.shape[d]), i)
        cs = [*c[:d], _indirect(tr, x, d, i, what), *c[d + k :]]
        return x.at(cs)

    return Lazy(x.shape[:d] + idx.shape + x.shape[d + 1 :], x.dtype, at)


def gather(tr: Tracer, x: Lazy, dim: int, idx: Lazy) -> Lazy:
    d = norm_dim(dim, len(x.shape))

    def at(c: Coords) -> Operand:
        cs = list(c)
        cs[d] = _indirect(tr, x, d, idx.at(c), "gather")
        return x.at(cs)

    return Lazy(idx.shape, x.dtype, at)
