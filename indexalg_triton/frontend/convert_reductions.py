"""Converters of reductions and normalizations, over one or several dimensions flattened
into the kernel's one reduction loop ``r0``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from indexalg_triton.frontend import reductions
from indexalg_triton.frontend.lazy import Lazy, Refused, dims_of
from indexalg_triton.frontend.registry import Call, converts
from indexalg_triton.frontend.tracer import Tracer
from indexalg_triton.spec import is_float

__all__: list[str] = []


@converts("aten.sum", "aten.amax", "aten.amin", "aten.mean", "aten.max", "aten.min")
def reduction(c: Call) -> Any:
    tr, args, kwargs, op, overload, dtype = c.tr, c.args, c.kwargs, c.name, c.overload, c.dtype
    x = args[0]
    dims = dims_of(args[1]) if len(args) > 1 else dims_of(kwargs.get("dim"))
    keepdim = bool(args[2]) if len(args) > 2 else bool(kwargs.get("keepdim", False))
    if op in ("max", "min") and overload == "dim":
        v = minmax(tr, op, x, dims, keepdim, x.dtype)
        return [v, Refused(f"{c.target} (its indices)")]
    if op in ("max", "min", "amax", "amin"):
        if op in ("max", "min") and overload != "default":
            raise c.refuse()
        return minmax(tr, op, x, dims, keepdim, dtype)
    if op == "mean":
        return reductions.mean(tr, x, dims, keepdim, dtype)
    summed = tr.cast(x, dtype) if is_float(dtype) else x
    return reductions.reduce(tr, "sum", summed, dims, keepdim, dtype)


def minmax(
    tr: Tracer, op: str, x: Lazy, dims: Sequence[int] | None, keepdim: bool, dtype: str
) -> Lazy:
    if op in ("max", "amax"):
        return reductions.reduce(tr, "max", x, dims, keepdim, dtype)
    neg = tr.elementwise("neg", [x], x.dtype)
    return tr.elementwise("neg", [reductions.reduce(tr, "max", neg, dims, keepdim, dtype)], dtype)


@converts("aten.var", "aten.std", "aten.var_mean", "aten.std_mean")
def variance(c: Call) -> Any:
    x, overload, dtype = c.args[0], c.overload, c.dtype
    dims = dims_of(c.opt(1, "dim"))
    correction = c.kwargs.get("correction", 1 if overload != "correction" else None)
    if correction is None:
        correction = 1
    if overload == "default":
        correction = 1 if c.opt(1, "unbiased", True) else 0
        dims = None
    keepdim = bool(c.kwargs.get("keepdim", False))
    fdt = dtype if is_float(dtype) else "float32"
    v, m = reductions.var(c.tr, x, dims, float(correction), keepdim, fdt)
    if c.name.startswith("std"):
        v = c.tr.math("sqrt", v, fdt)
    return [v, m] if c.name.endswith("_mean") else v


@converts("aten.logsumexp")
def logsumexp(c: Call) -> Lazy:
    keepdim = bool(c.opt(2, "keepdim", False))
    return reductions.logsumexp(c.tr, c.args[0], dims_of(c.args[1]) or [], keepdim, c.dtype)


@converts("aten._softmax", "aten._log_softmax")
def softmax(c: Call) -> Lazy:
    return reductions.softmax(c.tr, c.args[0], c.args[1], c.dtype, log=c.name == "_log_softmax")


@converts("aten.native_layer_norm")
def layer_norm(c: Call) -> list[Lazy]:
    x, norm_shape, w, b, eps = c.args[:5]
    stat = "float32" if x.dtype in ("float16", "bfloat16") else c.dtype
    out, mean, rstd = reductions.layer_norm(c.tr, x, len(norm_shape), w, b, eps, c.dtype, stat)
    return [out, mean, rstd]
