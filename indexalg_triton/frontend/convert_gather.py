"""Converters of pooling (unrolled windows) and indirect reads (a load at an index loaded
from memory, with a bounds check on that index)."""

from __future__ import annotations

from typing import Any

from indexalg_triton.frontend import gathers
from indexalg_triton.frontend.lazy import Lazy, Refused
from indexalg_triton.frontend.registry import Call, converts

__all__: list[str] = []


@converts("aten.avg_pool2d", "aten.max_pool2d_with_indices", "aten.max_pool2d")
def pool2d(c: Call) -> Any:
    assert c.shape is not None
    args, op = c.args, c.name
    kernel = args[1]
    stride = c.opt(2, "stride", [])
    padding = c.opt(3, "padding", [0])
    rest = args[4:] if op == "avg_pool2d" else []
    dilation = c.opt(4, "dilation", [1]) if op != "avg_pool2d" else [1]
    ceil_mode = c.opt(5, "ceil_mode", False) if op != "avg_pool2d" else c.opt(4, "ceil_mode", False)
    if (
        any(p != 0 for p in padding)
        or any(d != 1 for d in dilation)
        or ceil_mode
        or (op == "avg_pool2d" and len(rest) > 2 and rest[2] is not None)
    ):
        raise c.refuse("padding, dilation, ceil_mode or a divisor override")
    kind = "avg" if op == "avg_pool2d" else "max"
    kernel = [kernel] if isinstance(kernel, int) else kernel
    stride = [stride] if isinstance(stride, int) else stride
    vals = gathers.pool2d(c.tr, kind, args[0], kernel, stride, c.shape, c.dtype)
    if op == "max_pool2d_with_indices":
        return [vals, Refused("max_pool2d_with_indices (its indices)")]
    return vals


@converts("aten.index_select")
def index_select(c: Call) -> Lazy:
    return gathers.index_select(c.tr, c.args[0], c.args[1], c.args[2])


@converts("aten.embedding")
def embedding(c: Call) -> Lazy:
    return gathers.index_select(c.tr, c.args[0], 0, c.args[1], what="embedding")


@converts("aten.index")
def index(c: Call) -> Lazy:
    """``x[idx]``: one index tensor (negative indices wrapped), not a bool mask."""
    if c.overload != "Tensor":
        raise c.refuse()
    idx = c.args[1]
    present = [i for i, t in enumerate(idx) if t is not None]
    if len(present) != 1:
        raise c.refuse(f"indexing with {len(present)} tensors")
    t = idx[present[0]]
    if t.dtype == "bool":
        raise c.refuse("a bool mask")
    return gathers.index_select(c.tr, c.args[0], present[0], t, wrap=True, what="index")


@converts("aten.gather")
def gather(c: Call) -> Lazy:
    return gathers.gather(c.tr, c.args[0], c.args[1], c.args[2])
