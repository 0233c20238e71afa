"""Triton source for a :class:`~indexalg_triton.spec.KernelSpec`: deterministic and readable.

:func:`generate` turns a spec and a :class:`Config` (known block sizes, warps, whether
structured accesses are allowed) into a :class:`KernelSource`: one ``@triton.jit`` kernel,
preceded by the floor-division helpers of :data:`indexalg.printing.triton.TRITON_PREAMBLE`.
The decisions it rests on, each recorded in the source as a comment:

* **tiling** (pointwise kernels): :func:`~indexalg_triton.tiling.choose_tiling` picks the
  loop groups once, with symbolic block sizes, so every config of a kernel shares them; the
  accesses are then planned (:func:`~indexalg_triton.access.plan_access`) at the config's
  block sizes, which fold every block shape and offset to numbers.  A reduction kernel fuses
  its pointwise loops into ``x`` and reads the reduction loop as ``r``, in a
  ``[XBLOCK, RBLOCK]`` tile: *persistent* (one chunk, each value computed once) when
  ``RBLOCK >= rnumel``, else one loop over ``r`` per reduction (and one for stores of inner
  values), each recomputing the inner values it needs;
* **index dtype**: :func:`indexalg.decisions.index_dtype` over every access' index (at loop
  and tile level), the launched (padded) iteration space and the buffers' extents.  With
  int64 the program id is widened first; a structured access whose coordinates could pass
  int32 (a descriptor dimension over 2^31 elements) becomes a pointer access;
* **bounds checks** (indirect loads): :func:`indexalg.decisions.bounds_checks` per ``check``
  op, with the index value ranged by its dtype; only unproven sides are asserted
  (``tl.device_assert``, active when Triton runs in debug mode or the interpreter).

The modules, in the order they depend on each other: ``configs`` (configs, the shared tiling),
``helpers`` (jit helper sources), ``writer`` (the emission state, header, index dtype,
asserts), ``values`` (elementwise values and casts), ``memory`` (loads and stores by their
access plans: one emitter for structured accesses), ``pointwise`` and ``reduction`` (the two
kernel shapes) and ``kernel`` (:func:`generate`).

Every access is preceded by a comment with its index expression, its kind and (for a
structured one) the reason a richer kind was not used.  Output is byte-identical across runs
and ``PYTHONHASHSEED`` values: nothing is iterated in set order.
"""

from __future__ import annotations

from indexalg_triton.codegen.configs import Config, KernelSource, default_configs, tiling_groups
from indexalg_triton.codegen.kernel import generate

__all__ = [
    "Config",
    "KernelSource",
    "default_configs",
    "generate",
    "tiling_groups",
]
