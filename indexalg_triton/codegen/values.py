"""Computed values: operands, elementwise ops and casts, with the register dtype of each.

16-bit floats are computed in float32 (loads widen them, stores narrow them back); a cast to
bfloat16 kept in float32 rounds by bits, as torch and the GPU do.  Each function records the
register dtype of the value it writes in ``w.reg``.
"""

from __future__ import annotations

import math

from indexalg.decisions import dtype_range
from indexalg_triton.codegen.helpers import HELPERS
from indexalg_triton.codegen.writer import KernelWriter
from indexalg_triton.errors import SpecError
from indexalg_triton.spec import ELEMENTWISE, ElementwiseOp, Operand, Reduction, is_float

__all__ = [
    "TL_DTYPE",
    "accumulator",
    "elementwise",
    "load_cast",
    "operand",
    "operand_axes",
    "store_cast",
]

TL_DTYPE = {
    "bool": "tl.int1",
    "int8": "tl.int8",
    "uint8": "tl.uint8",
    "int16": "tl.int16",
    "uint16": "tl.uint16",
    "int32": "tl.int32",
    "uint32": "tl.uint32",
    "int64": "tl.int64",
    "uint64": "tl.uint64",
    "float16": "tl.float16",
    "bfloat16": "tl.bfloat16",
    "float32": "tl.float32",
    "float64": "tl.float64",
}
#: Kinds computed in float32 for 16-bit float results.
_FLOAT_ARITH = frozenset(k for k, e in ELEMENTWISE.items() if e.family in ("arith", "math"))
_HALF = ("float16", "bfloat16")


def operand(w: KernelWriter, a: Operand, want_float: bool) -> str:
    """An operand as text; a 16-bit register widened to float32 when ``want_float``."""
    if isinstance(a, bool):
        return "True" if a else "False"
    if isinstance(a, int):
        return str(a)
    if isinstance(a, float):
        if math.isinf(a):
            return 'float("inf")' if a > 0 else 'float("-inf")'
        if math.isnan(a):
            return 'float("nan")'
        return repr(a)
    reg = w.reg[a]
    if want_float and reg in _HALF:
        return f"{a}.to(tl.float32)"
    return a


def elementwise(w: KernelWriter, o: ElementwiseOp) -> str:
    """The right-hand side of an elementwise op (a cast included)."""
    row = ELEMENTWISE[o.kind]  # the spec's table; the spec validates kinds
    if row.family == "cast":
        return _cast(w, o)
    fl = o.kind in _FLOAT_ARITH and is_float(o.dtype)
    args = [operand(w, a, fl) for a in o.args]
    if row.family == "select":
        regs = {w.reg[a] for a in o.args[1:] if isinstance(a, str)}
        if len(regs) > 1 and is_float(o.dtype):
            args = [args[0]] + [operand(w, a, True) for a in o.args[1:]]
        text = f"tl.where({args[0]}, {args[1]}, {args[2]})"
    elif row.triton:
        if row.helper:
            w.helpers.setdefault(row.helper, HELPERS[row.helper])
        text = row.triton.format(*args)
    else:  # pragma: no cover - every other kind has a Triton form in the table
        raise SpecError(f"no Triton form for {o.kind}")
    w.reg[o.name] = _result_register(w, o)
    return text


def _result_register(w: KernelWriter, o: ElementwiseOp) -> str:
    """16-bit results stay in float32; a ``where`` of two equal registers keeps theirs."""
    select = ELEMENTWISE[o.kind].family == "select"
    if o.dtype in _HALF and not select:
        return "float32"
    if select and o.dtype in _HALF:
        regs = [w.reg[a] for a in o.args[1:] if isinstance(a, str)]
        return regs[0] if regs and all(r == regs[0] for r in regs) else "float32"
    return o.dtype


def _cast(w: KernelWriter, o: ElementwiseOp) -> str:
    src = o.args[0]
    arg = operand(w, src, False)
    src_reg = w.reg.get(src, "") if isinstance(src, str) else ""
    src_dtype = w.spec.op(src).dtype if isinstance(src, str) else ""
    if o.dtype == src_reg or (o.dtype == src_dtype == "bfloat16"):
        text = arg
    elif o.dtype == "bfloat16" and src_reg == "float32":
        # a value rounded to bfloat16 and kept in float32 (the next op computes in
        # float32 anyway): round-to-nearest-even by bits, as torch and the GPU round
        # (Triton's interpreter truncates a float32 -> bfloat16 conversion)
        w.helpers.setdefault("ia_round_bf16", HELPERS["ia_round_bf16"])
        w.reg[o.name] = "float32"
        return f"ia_round_bf16({arg})"
    elif o.dtype in _HALF and not is_float(src_reg):
        # through float32, as torch converts integers to 16-bit floats (and the
        # interpreter would reinterpret the bits of a direct conversion)
        text = f"{arg}.to(tl.float32).to({TL_DTYPE[o.dtype]})"
    else:
        text = f"{arg}.to({TL_DTYPE[o.dtype]})"
    w.reg[o.name] = o.dtype
    return text


def operand_axes(w: KernelWriter, o: ElementwiseOp) -> frozenset[int]:
    """The tile axes an elementwise result spans: those of its operands."""
    out: frozenset[int] = frozenset()
    for a in o.args:
        if isinstance(a, str):
            out |= w.axes_of.get(a, frozenset())
    return out


def store_cast(w: KernelWriter, value: str, dtype: str) -> str:
    reg = w.reg[value]
    return value if reg == dtype else f"{value}.to({TL_DTYPE[dtype]})"


def load_cast(w: KernelWriter, name: str, dtype: str) -> str:
    """The suffix that widens a loaded 16-bit float; records the register dtype."""
    if dtype in _HALF:
        w.reg[name] = "float32"
        return ".to(tl.float32)"
    w.reg[name] = dtype
    return ""


def accumulator(o: Reduction) -> tuple[str, str]:
    """Accumulator dtype and initial value of a reduction."""
    if is_float(o.dtype):
        return "float32", "0.0" if o.kind == "sum" else 'float("-inf")'
    if o.kind == "sum":
        return "int64", "0"
    return o.dtype, str(dtype_range(o.dtype)[0])
