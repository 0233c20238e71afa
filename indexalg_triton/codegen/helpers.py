"""The ``@triton.jit`` helper functions a kernel may need, as source text.

Each is written into the kernel's own module, ahead of the kernel, only when used (the
combine functions in every reduction kernel); the reasons each exists are on it.
"""

from __future__ import annotations

__all__ = ["COMBINE", "HELPERS", "ROUND_BF16", "TANH"]


#: Combine functions of the reductions, defined in the kernel's own module (``tl.sum`` and
#: ``tl.max`` are jit functions bound when triton was imported, which breaks the
#: interpreter when triton was imported before ``TRITON_INTERPRET`` was set).
COMBINE = """

@triton.jit
def ia_sum_combine(a, b):
    return a + b


@triton.jit
def ia_max_combine(a, b):
    return tl.maximum(a, b)
"""


#: tanh without libdevice (which the interpreter lacks): (1 - e) / (1 + e) with
#: e = exp(-2|x|), odd; below |x| = 0.05 its cancellation would cost digits, so the Taylor
#: series x - x^3/3 + 2x^5/15 - 17x^7/315 (truncation < 1e-9 relative there).
TANH = """

@triton.jit
def ia_tanh(x):
    a = tl.abs(x)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    x2 = x * x
    small = x * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333
                                                        - x2 * 0.05396825396825397)))
    return tl.where(a < 0.05, small, tl.where(x < 0, -t, t))
"""


#: float32 -> the nearest bfloat16 (ties to even), as a float32; NaN stays NaN.  By bits
#: where the kernel runs in Triton's interpreter (which truncates a float32 -> bfloat16 cast,
#: ``fp_downcast_rounding="rtne"`` or not); on a GPU the cast itself, which rounds to nearest
#: even and is cheaper (H200, rmsnorm over 5120 bf16: 161-175 µs against 187-202 µs by bits,
#: bench.gpu_stragglers --variants cast_bf16).  The choice is made when the module is
#: imported, as ``triton.jit`` makes its own: the source text is the same for both.
ROUND_BF16 = """

@triton.jit
def ia_round_bf16(x):
    b = x.to(tl.uint32, bitcast=True)
    b = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    return tl.where(x != x, x, b.to(tl.float32, bitcast=True))


if type(ia_round_bf16).__name__ != "InterpretedFunction":

    @triton.jit
    def ia_round_bf16(x):  # noqa: F811
        return x.to(tl.bfloat16).to(tl.float32)
"""


#: The helpers by name: those the spec's elementwise table names (its ``helper`` field) and
#: the bfloat16 rounding of casts.
HELPERS = {"ia_tanh": TANH, "ia_round_bf16": ROUND_BF16}
