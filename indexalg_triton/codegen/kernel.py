"""Generation of one kernel: a spec and a config to a :class:`KernelSource`."""

from __future__ import annotations

from collections.abc import Sequence

from indexalg.errors import InvalidOperationError
from indexalg_triton.codegen.configs import Config, KernelSource, default_configs, resolve_kinds
from indexalg_triton.codegen.pointwise import emit_pointwise
from indexalg_triton.codegen.reduction import emit_reduction
from indexalg_triton.codegen.writer import KernelWriter
from indexalg_triton.debug import record_kernel
from indexalg_triton.spec import KernelSpec

__all__ = ["generate"]


def generate(
    spec: KernelSpec, config: Config | None = None, *, kinds: Sequence[str] | None = None,
    index_dtype: str | None = None, part: bool = False,
) -> KernelSource:
    """The Triton source of ``spec`` under ``config`` (default: the first of
    :func:`default_configs`).  ``kinds``: the structured access kinds the target supports
    (default: the installed Triton's); ``index_dtype`` forces ``"int32"`` or ``"int64"``
    (tests only; the decision is otherwise proven).  ``part`` (pointwise kernels only): a
    ``@triton.jit`` function for a combo kernel, with a ``pid_base`` argument after the
    buffers; its programs are ``tl.program_id(0) - pid_base`` (see
    :mod:`indexalg_triton.combo`).  Every generated name is recorded for the debug printer's
    kernel filter (:func:`indexalg_triton.debug.record_kernel`)."""
    ks = resolve_kinds(kinds)
    cfg = config or default_configs(spec, ks)[0]
    if part and spec.is_reduction:
        raise InvalidOperationError(f"kernel {spec.name}: only pointwise kernels can be parts "
                                    "of a combo kernel")
    w = KernelWriter(spec, cfg, ks if cfg.structured else (), ks, index_dtype, part=part)
    src = emit_reduction(w) if spec.is_reduction else emit_pointwise(w)
    if not part:
        record_kernel(src.kernel_name)
    return src
