"""``from_torch(fn, *example_inputs)``: a torch function traced with torch.fx into a spec.

The function is traced to ATen ops on the example inputs (the graph ``make_fx`` records, by a
dispatch mode that needs no ``torch._dynamo``: :mod:`~indexalg_triton.frontend.capture`); each
call node goes through the converter registered for its op (:func:`converts`, in
:mod:`~indexalg_triton.frontend.registry`; :func:`supported_ops` lists them) and becomes a
*lazy tensor* (:class:`~indexalg_triton.frontend.lazy.Lazy`): a shape, a dtype and a rule
that, given coordinates (index expressions over the kernel's loop variables), emits the ops
computing that element into a :class:`~indexalg_triton.spec.SpecBuilder` (equal ops are
shared).  So views never copy:

* inputs: ``load(input, offset-free sum(coord * stride))`` with the example's strides (the
  kernel argument is the tensor itself, so its storage offset is in its data pointer);
* views and data movement as coordinate maps: ``permute``/``t``/``transpose``, ``slice``
  (``start + step * coord``), ``select``, ``split``/``chunk``/``unbind``, ``unsqueeze``,
  ``squeeze``, ``expand``/``repeat`` and broadcasting (coordinate 0 on size-1 dimensions,
  ``coord mod size`` for a repeat), ``view``/``reshape`` (coordinates through the flat
  index: ``(flat // stride) mod size``), ``flip`` (``n - 1 - coord``), ``roll``
  (``(coord - shift) mod n``), ``pixel_shuffle``/``pixel_unshuffle``,
  ``upsample_nearest2d`` with an integer ratio (``coord // ratio``),
  ``clone``/``contiguous``/``alias``;
* ``cat`` and ``constant_pad_nd``: each piece (or the padded input) is read by *guarded*
  loads (read only where its coordinate range holds, 0 elsewhere, so no address leaves a
  buffer) and selected with ``where``;
* constants: ``arange`` (an index expression), ``full``/``zeros``/``ones`` (and their
  ``_like`` forms) and ``scalar_tensor`` (literals);
* elementwise ``add sub rsub mul div neg exp abs maximum minimum relu bitwise_and/or/xor/not
  __lshift__ __rshift__ eq ne lt le gt ge where masked_fill clamp clamp_min clamp_max
  hardtanh leaky_relu sigmoid tanh erf rsqrt sqrt log sin cos floor reciprocal pow`` (integer
  and half-integer exponents), ``gelu`` (exact and tanh), ``silu``, logical ops, and type
  conversions (``_to_copy``);
* ``stack``: a select on the new coordinate; ``index_select``, ``embedding``, ``gather`` and
  one-tensor advanced indexing (``x[idx]``, negative indices wrapped): indirect loads with a
  bounds check on the index;
* pooling ``avg_pool2d`` and ``max_pool2d`` (values; no padding) as unrolled windows;
* reductions ``sum``, ``mean``, ``amax``, ``amin``, ``max``/``min`` (values), ``var``,
  ``std``, ``var_mean``, ``logsumexp``, ``_softmax``, ``_log_softmax`` and
  ``native_layer_norm`` (output, mean, rstd) over one or several dimensions, flattened into
  one reduction loop ``r0`` (each reduced coordinate a digit of ``r0``).

A kernel has one reduction loop: every reduction must reduce the same dimensions of the same
shape (mean and variance, softmax's max and sum, layer norm's statistics do).  The function
may return several tensors (``out0, out1, ...``, each laid out as eager torch lays it out
where that is a dense permutation, else contiguous; see ``layout``): all of one shape, or, with a
reduction, each either the reduction input's shape (stored per element) or its reduced shape
(stored once per row).  The package: :mod:`~indexalg_triton.frontend.trace` (``from_torch``),
the converters (``convert_math``, ``convert_views``, ``convert_gather``,
``convert_reductions``), the registry, one :class:`~indexalg_triton.frontend.tracer.Tracer`
and the lazy tensors.  Any other op raises :class:`~indexalg_triton.errors.UnsupportedOp`
naming it; anything else the front end cannot follow (shapes, results that are not tensors),
:class:`~indexalg_triton.errors.FrontendError`.
"""

from __future__ import annotations

# The converter modules register their ops when imported.
from indexalg_triton.frontend import (  # noqa: F401
    convert_gather,
    convert_math,
    convert_reductions,
    convert_views,
)
from indexalg_triton.frontend.registry import Call, converts, supported_ops
from indexalg_triton.frontend.trace import from_torch

__all__ = ["Call", "converts", "from_torch", "supported_ops"]
