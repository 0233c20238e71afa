"""Reductions over the kernel's one reduction loop ``r0`` (each reduced coordinate a digit
of it), and what is built on them: mean, variance, softmax, logsumexp, layer norm.  Each is a
function of the :class:`Tracer`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from indexalg.expr import Symbol, integer
from indexalg_triton.errors import FrontendError
from indexalg_triton.frontend import views
from indexalg_triton.frontend.lazy import (
    Coords,
    Lazy,
    count,
    digits,
    insert_coords,
    norm_dim,
)
from indexalg_triton.frontend.tracer import Tracer
from indexalg_triton.spec import Operand

__all__ = ["layer_norm", "logsumexp", "mean", "reduce", "softmax", "squeeze_dims", "var"]


def _note_reduction(tr: Tracer, x: Lazy, ds: tuple[int, ...]) -> None:
    if tr.reduction is None:
        tr.reduction = (ds, x.shape)
    elif tr.reduction != (ds, x.shape):
        raise FrontendError(
            "a kernel has one reduction loop: every reduction must reduce the same "
            f"dimensions of the same shape ({tr.reduction[1]} dims "
            f"{list(tr.reduction[0])} vs {x.shape} dims {list(ds)})"
        )


def reduce(
    tr: Tracer, kind: str, x: Lazy, dims: Sequence[int] | None, keepdim: bool, dtype: str
) -> Lazy:
    n = len(x.shape)
    all_ds = list(range(n)) if not dims else sorted({norm_dim(d, n) for d in dims})
    ds = tuple(d for d in all_ds if x.shape[d] != 1)
    if keepdim:
        shape = tuple(1 if i in all_ds else s for i, s in enumerate(x.shape))
    else:
        shape = tuple(s for i, s in enumerate(x.shape) if i not in all_ds)
    if not ds:  # reducing size-1 dimensions: the value itself

        def at_one(c: Coords) -> Operand:
            cs = list(c) if keepdim else insert_coords(c, all_ds, [integer(0)] * len(all_ds))
            return tr.cast(x, dtype).at(cs)

        return Lazy(shape, dtype, at_one)
    _note_reduction(tr, x, ds)
    rc = digits(Symbol("r0"), [x.shape[d] for d in ds])

    def at(c: Coords) -> Operand:
        if keepdim:
            cs = list(c)
            for d, e in zip(ds, rc):
                cs[d] = e
        else:
            zeros = {d: integer(0) for d in all_ds}
            zeros.update(dict(zip(ds, rc)))
            cs = insert_coords(c, all_ds, [zeros[d] for d in all_ds])
        v = x.at(cs)
        if not isinstance(v, str):
            raise FrontendError(f"{kind} of a constant")
        return tr.builder.reduce(kind, v, dtype)

    return Lazy(shape, dtype, at)


def mean(tr: Tracer, x: Lazy, dims: Sequence[int] | None, keepdim: bool, dtype: str) -> Lazy:
    s = reduce(tr, "sum", tr.cast(x, dtype), dims, keepdim, dtype)
    return tr.elementwise("truediv", [s, float(count(x.shape, dims))], dtype)


def var(
    tr: Tracer, x: Lazy, dims: Sequence[int] | None, correction: float, keepdim: bool, dtype: str
) -> tuple[Lazy, Lazy]:
    """(variance, mean): the two-pass formula, sum((x - mean)^2) / (n - correction)."""
    xf = tr.cast(x, dtype)
    m = mean(tr, xf, dims, True, dtype)
    dev = tr.elementwise("sub", [xf, m], dtype)
    sq = tr.elementwise("mul", [dev, dev], dtype)
    n = count(x.shape, dims)
    denom = max(n - correction, 0)
    s = reduce(tr, "sum", sq, dims, keepdim, dtype)
    v = (
        tr.elementwise("truediv", [s, float(denom)], dtype)
        if denom
        else tr.elementwise("mul", [s, float("nan")], dtype)
    )
    return v, m if keepdim else mean(tr, xf, dims, False, dtype)


def softmax(tr: Tracer, x: Lazy, dim: int, dtype: str, *, log: bool = False) -> Lazy:
    d = norm_dim(dim, len(x.shape))
    xf = tr.cast(x, dtype)
    mx = reduce(tr, "max", xf, [d], True, dtype)
    shifted = tr.elementwise("sub", [xf, mx], dtype)
    e = tr.elementwise("exp", [shifted], dtype)
    s = reduce(tr, "sum", e, [d], True, dtype)
    if log:
        return tr.elementwise("sub", [shifted, tr.elementwise("log", [s], dtype)], dtype)
    return tr.elementwise("truediv", [e, s], dtype)


def logsumexp(tr: Tracer, x: Lazy, dims: Sequence[int], keepdim: bool, dtype: str) -> Lazy:
    xf = tr.cast(x, dtype)
    mx = reduce(tr, "max", xf, dims, True, dtype)
    # an all -inf row: torch gives -inf; x - max would be nan, so shift by 0 there
    safe = tr.where(tr.elementwise("eq", [mx, float("-inf")], "bool"), 0.0, mx, dtype)
    e = tr.elementwise("exp", [tr.elementwise("sub", [xf, safe], dtype)], dtype)
    s = reduce(tr, "sum", e, dims, keepdim, dtype)
    m = safe if keepdim else squeeze_dims(tr, safe, dims)
    return tr.elementwise("add", [tr.elementwise("log", [s], dtype), m], dtype)


def squeeze_dims(tr: Tracer, x: Lazy, dims: Sequence[int]) -> Lazy:
    n = len(x.shape)
    return views.squeeze(tr, x, sorted({norm_dim(d, n) for d in dims}))


def layer_norm(
    tr: Tracer, x: Lazy, k: int, w: Any, b: Any, eps: float, dtype: str, stat_dtype: str
) -> tuple[Lazy, Lazy, Lazy]:
    n = len(x.shape)
    dims = list(range(n - k, n))
    variance, mu = var(tr, x, dims, 0, True, stat_dtype)
    rstd = tr.math("rsqrt", tr.elementwise("add", [variance, float(eps)], stat_dtype), stat_dtype)
    out = tr.elementwise(
        "mul", [tr.elementwise("sub", [tr.cast(x, stat_dtype), mu], stat_dtype), rstd], stat_dtype
    )
    if isinstance(w, Lazy):
        out = tr.elementwise("mul", [out, w], stat_dtype)
    if isinstance(b, Lazy):
        out = tr.elementwise("add", [out, b], stat_dtype)
    return tr.cast(out, dtype), mu, rstd
