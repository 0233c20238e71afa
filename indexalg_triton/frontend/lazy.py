"""Lazy tensors and the shape helpers the tracer and the converters share.

A :class:`Lazy` is what every traced node becomes: a shape, a dtype and a rule ``at`` that,
given coordinates (index expressions over the kernel's loop variables), emits the ops
computing that element into the tracer's :class:`~indexalg_triton.spec.SpecBuilder`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from indexalg.expr import Expr, ModularIndexing, as_expr, integer
from indexalg_triton.errors import FrontendError
from indexalg_triton.spec import Operand

__all__ = [
    "At",
    "Coords",
    "Lazy",
    "Refused",
    "broadcast_shapes",
    "contiguous_strides",
    "count",
    "digits",
    "dims_of",
    "dtype_name",
    "insert_coords",
    "norm_dim",
    "squeezed",
]

Coords = Sequence[Expr]
At = Callable[[Coords], Operand]


@dataclass(frozen=True)
class Lazy:
    """A traced tensor: its shape and dtype, and ``at(coords)``, the operand of one element
    (a value of the spec being built, or a literal)."""

    shape: tuple[int, ...]
    dtype: str
    at: At


def dtype_name(dt: Any) -> str:
    return str(dt).removeprefix("torch.")


def contiguous_strides(shape: Sequence[int]) -> list[int]:
    out = []
    acc = 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return list(reversed(out))


def norm_dim(d: int, n: int) -> int:
    if not -n <= d < max(n, 1):
        raise FrontendError(f"dimension {d} out of range for {n} dimensions")
    return d % n if n else 0


def digits(flat: Expr, sizes: Sequence[int]) -> list[Expr]:
    """The row-major coordinates of ``flat`` over ``sizes``: ``(flat // stride) mod size``."""
    strides = contiguous_strides(sizes)
    out: list[Expr] = []
    for k, (size, stride) in enumerate(zip(sizes, strides)):
        if size == 1:
            out.append(integer(0))
        elif k == 0:
            out.append(flat if stride == 1 else as_expr(flat) // stride)
        else:
            out.append(ModularIndexing.make(flat, stride, size))
    return out


def squeezed(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(s for s in shape if s != 1)


def count(shape: Sequence[int], dims: Sequence[int] | None) -> int:
    n = len(shape)
    ds = range(n) if not dims else {norm_dim(d, n) for d in dims}
    return math.prod(shape[d] for d in ds)


def insert_coords(c: Coords, at: Sequence[int], values: Sequence[Expr]) -> list[Expr]:
    """``c`` with ``values`` inserted so that they sit at positions ``at`` (sorted)."""
    out = list(c)
    for d, v in zip(at, values):
        out.insert(d, v)
    return out


def broadcast_shapes(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    n = max((len(s) for s in shapes), default=0)
    out = [1] * n
    for s in shapes:
        for i, v in enumerate(s):
            j = n - len(s) + i
            if v != 1:
                if out[j] not in (1, v):
                    raise FrontendError(f"shapes {list(shapes)} do not broadcast")
                out[j] = v
    return tuple(out)


def dims_of(a: Any) -> list[int] | None:
    if a is None:
        return None
    return [a] if isinstance(a, int) else list(a)


@dataclass(frozen=True)
class Refused:
    """A result the front end cannot compute (e.g. the indices of ``max_pool2d``): refused
    when something uses it."""

    what: str
