"""The tracer: lazy tensors in, spec ops out (:class:`Tracer`)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from indexalg.expr import And, Expr, add, integer, mul
from indexalg_triton.errors import FrontendError
from indexalg_triton.frontend.lazy import (
    Coords,
    Lazy,
    broadcast_shapes,
)
from indexalg_triton.spec import Operand, SpecBuilder, is_float

__all__ = ["Tracer"]


class Tracer:
    """The one tracer of :func:`~indexalg_triton.frontend.from_torch`: the traced kernel's
    state (its builder, the reduction, the guards) and what the converters build with it:
    operands, elementwise ops, casts and constants; views (each a new index map over its
    input, no copies); data movement over several inputs or blocks; pooling; indirect reads;
    reductions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.b: SpecBuilder | None = None
        # the reduction: (reduced dims, input shape)
        self.reduction: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.guards: list[Expr] = []  # claims every load emitted now is guarded by

    # -- helpers -------------------------------------------------------------------------

    @property
    def builder(self) -> SpecBuilder:
        assert self.b is not None
        return self.b

    @contextmanager
    def guarded(self, claims: Sequence[Expr]) -> Iterator[None]:
        """Loads emitted inside read only where every claim (and any outer one) holds."""
        n = len(self.guards)
        self.guards.extend(claims)
        try:
            yield
        finally:
            del self.guards[n:]

    def guard(self) -> Expr | None:
        return And.make(*self.guards) if self.guards else None

    def broadcast(self, x: Lazy, shape: tuple[int, ...]) -> Lazy:
        if x.shape == shape:
            return x
        lead = len(shape) - len(x.shape)
        if lead < 0:
            raise FrontendError(f"cannot broadcast {x.shape} to {shape}")
        for s, t in zip(x.shape, shape[lead:]):
            if s not in (1, t):
                raise FrontendError(f"cannot broadcast {x.shape} to {shape}")
        src = x

        def at(c: Coords) -> Operand:
            cs = [integer(0) if s == 1 else ci for s, ci in zip(src.shape, c[lead:])]
            return src.at(cs)

        return Lazy(shape, x.dtype, at)

    def operand(self, a: Any, shape: tuple[int, ...]) -> Lazy | Operand:
        if isinstance(a, Lazy):
            return self.broadcast(a, shape)
        if isinstance(a, (bool, int, float)):
            return a
        raise FrontendError(f"unsupported operand {a!r}")

    def elementwise(self, kind: str, args: Sequence[Any], dtype: str) -> Lazy:
        shapes = [a.shape for a in args if isinstance(a, Lazy)]
        shape = broadcast_shapes(shapes)
        ops = [self.operand(a, shape) for a in args]

        def at(c: Coords) -> Operand:
            vals = [o.at(c) if isinstance(o, Lazy) else o for o in ops]
            return self.builder.op(kind, *vals, dtype=dtype)

        return Lazy(shape, dtype, at)

    def cast(self, x: Lazy, dtype: str) -> Lazy:
        if x.dtype == dtype:
            return x
        return self.elementwise("cast", [x], dtype)

    def cast_any(self, x: Any, dtype: str) -> Any:
        """A lazy tensor converted to ``dtype``; a literal as it is."""
        return self.cast(x, dtype) if isinstance(x, Lazy) else x

    def math(self, kind: str, x: Lazy, dtype: str) -> Lazy:
        """Float math on ``x`` (an integer or bool ``x`` is converted to ``dtype`` first)."""
        if not is_float(x.dtype):
            x = self.cast(x, dtype)
        return self.elementwise(kind, [x], dtype)

    def where(self, cond: Any, a: Any, b: Any, dtype: str) -> Lazy:
        return self.elementwise("where", [cond, a, b], dtype)

    def clamp(self, x: Lazy, lo: Any, hi: Any, dtype: str) -> Lazy:
        out = self.cast(x, dtype)
        if lo is not None:
            out = self.elementwise("maximum", [out, lo], dtype)
        if hi is not None:
            out = self.elementwise("minimum", [out, hi], dtype)
        return out

    def constant(self, shape: Sequence[int], value: Any, dtype: str) -> Lazy:
        if isinstance(value, (bool, int, float)):
            v: Operand = (
                bool(value)
                if dtype == "bool"
                else (float(value) if is_float(dtype) else int(value))
            )
        else:
            raise FrontendError(f"a constant tensor of {value!r}")

        def at(c: Coords) -> Operand:
            return v

        return Lazy(tuple(shape), dtype, at)

    def arange(self, start: Any, end: Any, step: Any, dtype: str) -> Lazy:
        n = max(0, math.ceil((end - start) / step))
        if not is_float(dtype) and all(isinstance(v, int) for v in (start, step)):

            def at(c: Coords) -> Operand:
                return self.builder.index(add(start, mul(step, c[0])), dtype)

            return Lazy((n,), dtype, at)

        def at_f(c: Coords) -> Operand:
            i = self.builder.index(c[0], "int64")
            f = self.builder.op("cast", i, dtype="float64" if dtype == "float64" else "float32")
            return self.builder.op(
                "add", self.builder.op("mul", f, float(step)), float(start), dtype=dtype
            )

        return Lazy((n,), dtype, at_f)
