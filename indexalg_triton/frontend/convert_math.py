"""Converters of arithmetic, comparisons, logic, float math, activations, ``where`` and
casts: elementwise ops of the spec.  The torch ops that are one elementwise kind each are read
from the spec's table (:data:`indexalg_triton.spec.ELEMENTWISE`, its ``torch`` names)."""

from __future__ import annotations

from typing import Any

from indexalg_triton.frontend.lazy import Lazy
from indexalg_triton.frontend.registry import Call, converts
from indexalg_triton.spec import ELEMENTWISE

__all__: list[str] = []

#: torch op (``aten.add``) -> the spec's elementwise kind it converts to one to one, from
#: the spec's table (:data:`indexalg_triton.spec.ELEMENTWISE`).
KINDS = {op: kind for kind, e in ELEMENTWISE.items() for op in e.torch}
_BINARY = [op for op, kind in KINDS.items() if ELEMENTWISE[kind].arity == 2]
_MATH = [op for op, kind in KINDS.items() if ELEMENTWISE[kind].family == "math"]
_UNARY = [op for op, kind in KINDS.items() if ELEMENTWISE[kind].arity == 1 and op not in _MATH]
_SQRT1_2 = 0.7071067811865476
_SQRT_2_PI = 0.7978845608028654


@converts(
    "aten.clone",
    "aten.contiguous",
    "aten.alias",
    "aten.lift_fresh_copy",
    "aten.detach",
    "aten.dropout",
)
def identity(c: Call) -> Any:
    return c.args[0]


@converts(*_BINARY)
def binary(c: Call) -> Lazy:
    tr, dtype = c.tr, c.dtype
    x, y = c.args[0], c.args[1]
    alpha = c.kwargs.get("alpha", 1)
    if alpha != 1:
        y = tr.elementwise("mul", [y, alpha], dtype) if isinstance(y, Lazy) else y * alpha
    kind = KINDS[c.op]
    if ELEMENTWISE[kind].family == "compare":
        return tr.elementwise(kind, [x, y], "bool")
    if ELEMENTWISE[kind].true_div:  # integer operands divide as floats
        x, y = tr.cast_any(x, dtype), tr.cast_any(y, dtype)
    return tr.elementwise(kind, [x, y], dtype)


@converts("aten.rsub")
def rsub(c: Call) -> Lazy:
    alpha = c.opt(2, "alpha", 1)
    y = c.tr.elementwise("mul", [c.args[0], alpha], c.dtype) if alpha != 1 else c.args[0]
    return c.tr.elementwise("sub", [c.args[1], y], c.dtype)


@converts(*_UNARY)
def unary(c: Call) -> Lazy:
    return c.tr.elementwise(KINDS[c.op], [c.args[0]], c.dtype)


@converts(*_MATH)
def float_math(c: Call) -> Lazy:
    """Float math (an integer operand converted to the result's dtype first)."""
    return c.tr.math(KINDS[c.op], c.args[0], c.dtype)


@converts("aten.reciprocal")
def reciprocal(c: Call) -> Lazy:
    return c.tr.elementwise("truediv", [1.0, c.tr.cast(c.args[0], c.dtype)], c.dtype)


@converts("aten.bitwise_not", "aten.logical_not")
def negation(c: Call) -> Lazy:
    tr, x = c.tr, c.args[0]
    if c.name == "logical_not" and x.dtype != "bool":
        x = tr.elementwise("ne", [x, 0], "bool")
    return tr.cast(tr.elementwise("not", [x], x.dtype), c.dtype)


@converts("aten.logical_and", "aten.logical_or", "aten.logical_xor")
def logical(c: Call) -> Lazy:
    tr = c.tr
    xs = [a if a.dtype == "bool" else tr.elementwise("ne", [a, 0], "bool") for a in c.args[:2]]
    return tr.elementwise(c.name.removeprefix("logical_"), xs, "bool")


@converts("aten.pow")
def power_op(c: Call) -> Lazy:
    if c.overload != "Tensor_Scalar":
        raise c.refuse()
    return power(c, c.args[0], c.args[1])


def power(c: Call, x: Lazy, e: Any) -> Lazy:
    """``x ** e`` for the exponents models use: small integers by multiplication, 0.5 and
    -0.5 by sqrt and rsqrt, -1 by division."""
    tr, dtype = c.tr, c.dtype
    if isinstance(e, float) and e.is_integer():
        e = int(e)
    if isinstance(e, int) and 1 <= e <= 4:
        out = x
        for _ in range(e - 1):
            out = tr.elementwise("mul", [out, x], dtype)
        return tr.cast(out, dtype)
    if e == 0:
        return tr.constant(x.shape, 1, dtype)
    if e == -1:
        return tr.elementwise("truediv", [1.0, tr.cast(x, dtype)], dtype)
    if e == 0.5:
        return tr.math("sqrt", x, dtype)
    if e == -0.5:
        return tr.math("rsqrt", x, dtype)
    raise c.refuse(f"exponent {e}")


@converts("aten.relu")
def relu(c: Call) -> Lazy:
    return c.tr.elementwise("maximum", [c.args[0], 0], c.dtype)


@converts("aten.clamp", "aten.clamp_min", "aten.clamp_max", "aten.hardtanh")
def clamp(c: Call) -> Lazy:
    if c.name == "hardtanh":
        lo, hi = c.opt(1, "min_val", -1.0), c.opt(2, "max_val", 1.0)
    elif c.name == "clamp_max":
        lo, hi = None, c.args[1]
    else:
        lo, hi = c.opt(1, "min"), c.opt(2, "max")
    return c.tr.clamp(c.args[0], lo, hi, c.dtype)


@converts("aten.leaky_relu")
def leaky_relu(c: Call) -> Lazy:
    tr, x, dtype = c.tr, c.args[0], c.dtype
    slope = float(c.opt(1, "negative_slope", 0.01))
    return tr.where(
        tr.elementwise("gt", [x, 0], "bool"), x, tr.elementwise("mul", [x, slope], dtype), dtype
    )


@converts("aten.silu")
def silu(c: Call) -> Lazy:
    x = c.args[0]
    return c.tr.elementwise("mul", [x, c.tr.math("sigmoid", x, c.dtype)], c.dtype)


@converts("aten.gelu")
def gelu(c: Call) -> Lazy:
    tr, x, dtype = c.tr, c.args[0], c.dtype
    half = tr.elementwise("mul", [x, 0.5], dtype)
    if c.kwargs.get("approximate", c.opt(1, "approximate", "none")) == "tanh":
        cube = tr.elementwise("mul", [tr.elementwise("mul", [x, x], dtype), x], dtype)
        inner = tr.elementwise(
            "mul",
            [
                tr.elementwise("add", [x, tr.elementwise("mul", [cube, 0.044715], dtype)], dtype),
                _SQRT_2_PI,
            ],
            dtype,
        )
        t = tr.math("tanh", inner, dtype)
    else:
        t = tr.math("erf", tr.elementwise("mul", [x, _SQRT1_2], dtype), dtype)
    return tr.elementwise("mul", [half, tr.elementwise("add", [t, 1.0], dtype)], dtype)


@converts("aten.where")
def where(c: Call) -> Lazy:
    if c.overload == "ScalarOther" or len(c.args) < 3:
        raise c.refuse()
    return c.tr.where(c.args[0], c.args[1], c.args[2], c.dtype)


@converts("aten.masked_fill")
def masked_fill(c: Call) -> Lazy:
    return c.tr.where(c.args[1], c.args[2], c.args[0], c.dtype)


@converts(
    "aten._to_copy",
    "aten.to",
    "aten._convert_element_type",
    "aten.convert_element_type",
    "prims.convert_element_type",
    "aten.type_as",
)
def cast(c: Call) -> Lazy:
    return c.tr.cast(c.args[0], c.dtype)
