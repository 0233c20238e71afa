"""The converters of :func:`~indexalg_triton.frontend.from_torch`, registered per torch op.

A converter turns one call node of the traced graph (a :class:`Call`: its arguments already
converted to lazy tensors or Python values) into a lazy tensor, a list of them (an op with
several results) or a :class:`~indexalg_triton.frontend.lazy.Refused` result.  It is
registered for the ops it converts by their torch names, namespace and op without the
overload::

    @converts("aten.relu")
    def relu(c: Call) -> Lazy:
        return c.tr.elementwise("maximum", [c.args[0], 0], c.dtype)

An op of the graph with no converter is refused with
:class:`~indexalg_triton.errors.UnsupportedOp`, naming it; so is an overload (or an argument)
that a converter does not handle.  :func:`supported_ops` lists the registry (the documentation
prints it), and a converter module registers its ops when it is imported
(:mod:`indexalg_triton.frontend` imports them all).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from indexalg_triton.errors import UnsupportedOp
from indexalg_triton.frontend.tracer import Tracer

__all__ = ["CONVERTERS", "Call", "Converter", "converter_for", "converts", "supported_ops"]


@dataclass(frozen=True)
class Call:
    """One call node, its arguments converted: what each converter reads.  ``op`` is the
    registered name (``aten.relu``), ``overload`` the overload (``default``, ``Tensor``),
    ``dtype`` and ``shape`` those of torch's result (its first result for an op with
    several)."""

    tr: Tracer
    args: list[Any]
    kwargs: dict[str, Any]
    target: Any
    op: str
    overload: str
    dtype: str
    shape: tuple[int, ...] | None

    @property
    def name(self) -> str:
        """The op without its namespace (``relu``)."""
        return self.op.rpartition(".")[2]

    def opt(self, i: int, key: str, default: Any = None) -> Any:
        """Argument ``i``, else keyword ``key``, else ``default``."""
        return self.args[i] if len(self.args) > i else self.kwargs.get(key, default)

    def refuse(self, detail: str | None = None) -> UnsupportedOp:
        """The refusal of this call: its target and ``detail`` (default: the overload)."""
        return UnsupportedOp(str(self.target), self.overload if detail is None else detail)


Converter = Callable[[Call], Any]

#: op name (``aten.relu``) -> its converter.
CONVERTERS: dict[str, Converter] = {}


def converts(*ops: str) -> Callable[[Converter], Converter]:
    """Register the decorated function as the converter of ``ops`` (``"aten.relu"``, ...);
    an op registered twice is a programming error."""
    for op in ops:
        if op.count(".") != 1 or not all(part for part in op.split(".")):
            raise ValueError(f"converts: {op!r} is not NAMESPACE.OP (e.g. 'aten.relu')")

    def register(fn: Converter) -> Converter:
        for op in ops:
            if op in CONVERTERS:
                raise ValueError(
                    f"converts: {op} has a converter already ({CONVERTERS[op].__qualname__})"
                )
            CONVERTERS[op] = fn
        return fn

    return register


def converter_for(op: str) -> Converter | None:
    """The converter registered for ``op`` (``aten.relu``), or None."""
    return CONVERTERS.get(op)


def supported_ops() -> list[str]:
    """Every op a converter is registered for, sorted."""
    return sorted(CONVERTERS)
