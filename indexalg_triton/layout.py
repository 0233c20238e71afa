"""Tensor views and element types: what an index expression addresses.

A :class:`View` is a strided view of a buffer: ``sizes`` and ``strides`` (in elements,
outermost dimension first), an element ``offset`` and a dtype.  :meth:`View.index` is the
index expression a pointwise kernel uses for it: with loop variables ``x_d`` for dimension d,
``offset + sum(stride_d * x_d)``.  Sizes, strides and offsets may be symbolic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from indexalg.expr import Expr, ExprLike, Symbol, add, as_expr, integer, mul
from indexalg_triton.errors import SpecError

__all__ = ["DTYPE_BYTES", "View", "dtype_bytes", "contiguous_strides"]

_ZERO = integer(0)

#: Element size in bytes of the dtypes a Triton kernel loads and stores.
DTYPE_BYTES: dict[str, int] = {
    "bool": 1,
    "int8": 1,
    "uint8": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int16": 2,
    "uint16": 2,
    "float16": 2,
    "bfloat16": 2,
    "int32": 4,
    "uint32": 4,
    "float32": 4,
    "int64": 8,
    "uint64": 8,
    "float64": 8,
}


def dtype_bytes(dtype: str) -> int:
    """The element size of ``dtype`` (a name of :data:`DTYPE_BYTES`; ``torch.`` prefix ok)."""
    name = dtype.removeprefix("torch.")
    try:
        return DTYPE_BYTES[name]
    except KeyError:
        known = ", ".join(DTYPE_BYTES)
        raise SpecError(f"unknown dtype {dtype!r} (known: {known})") from None


def contiguous_strides(sizes: Sequence[ExprLike]) -> tuple[Expr, ...]:
    """Row-major strides of a contiguous tensor of these sizes."""
    out: list[Expr] = []
    acc: Expr = integer(1)
    for s in reversed(sizes):
        out.append(acc)
        acc = mul(acc, s)
    return tuple(reversed(out))


@dataclass(frozen=True)
class View:
    """A strided view: ``sizes``, ``strides`` and ``offset`` in elements, a ``dtype``."""

    sizes: tuple[Expr, ...]
    strides: tuple[Expr, ...]
    offset: Expr = _ZERO
    dtype: str = "float32"

    @staticmethod
    def of(
        sizes: Sequence[ExprLike],
        strides: Sequence[ExprLike] | None = None,
        offset: ExprLike = 0,
        dtype: str = "float32",
    ) -> View:
        """A view from plain ints or expressions (contiguous strides by default)."""
        sz = tuple(as_expr(s) for s in sizes)
        st = contiguous_strides(sz) if strides is None else tuple(as_expr(s) for s in strides)
        if len(st) != len(sz):
            raise SpecError(f"a view needs one stride per size: {len(sz)} sizes, {len(st)} strides")
        dtype_bytes(dtype)
        return View(sz, st, as_expr(offset), dtype)

    @property
    def itemsize(self) -> int:
        return dtype_bytes(self.dtype)

    def loop_names(self, prefix: str = "x") -> tuple[str, ...]:
        """Loop variable names, outermost dimension first, numbered as Inductor does (the
        innermost dimension is ``x0``)."""
        n = len(self.sizes)
        return tuple(f"{prefix}{n - 1 - d}" for d in range(n))

    def loops(self, prefix: str = "x") -> list[tuple[str, Expr]]:
        """``(name, size)`` per dimension, outermost first."""
        return list(zip(self.loop_names(prefix), self.sizes))

    def index(self, loop_vars: Sequence[str | Expr] | None = None) -> Expr:
        """``offset + sum(stride_d * var_d)`` over ``loop_vars`` (outermost first; default
        :meth:`loop_names`)."""
        names = self.loop_names() if loop_vars is None else loop_vars
        if len(names) != len(self.sizes):
            raise SpecError(
                f"a {len(self.sizes)}-D view needs {len(self.sizes)} loop variables, "
                f"got {len(names)}"
            )
        syms = [Symbol(v) if isinstance(v, str) else v for v in names]
        return add(self.offset, *(mul(s, v) for s, v in zip(self.strides, syms)))
