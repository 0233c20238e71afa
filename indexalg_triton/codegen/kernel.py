"""Generation of one kernel: a spec and a config to a :class:`KernelSource`."""

from __future__ import annotations

from collections.abc import Sequence

from indexalg_triton.codegen.configs import Config, KernelSource, default_configs, resolve_kinds
from indexalg_triton.codegen.pointwise import emit_pointwise
from indexalg_triton.codegen.reduction import emit_reduction
from indexalg_triton.codegen.split import split_specs, splittable
from indexalg_triton.codegen.writer import KernelWriter
from indexalg_triton.debug import record_kernel
from indexalg_triton.errors import ConfigError
from indexalg_triton.spec import KernelSpec

__all__ = ["generate"]


def generate(
    spec: KernelSpec,
    config: Config | None = None,
    *,
    kinds: Sequence[str] | None = None,
    index_dtype: str | None = None,
    part: bool = False,
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
        raise ConfigError(
            f"kernel {spec.name}: only pointwise kernels can be parts of a combo kernel"
        )
    if cfg.has("SPLIT"):
        return _generate_split(spec, cfg, ks, index_dtype)
    w = KernelWriter(spec, cfg, ks if cfg.structured else (), ks, index_dtype, part=part)
    src = emit_reduction(w) if spec.is_reduction else emit_pointwise(w)
    if not part:
        record_kernel(src.kernel_name)
    return src


def _generate_split(
    spec: KernelSpec, cfg: Config, ks: tuple[str, ...], index_dtype: str | None
) -> KernelSource:
    """A split reduction (:mod:`~indexalg_triton.codegen.split`): the partial kernel under
    the config's ``XBLOCK``/``RBLOCK``/warps (``RBLOCK`` capped at the chunk), the combine
    kernel one persistent chunk of the ``SPLIT`` partials per column block."""
    if not spec.is_reduction:
        raise ConfigError(f"kernel {spec.name}: SPLIT needs a reduction kernel")
    why = splittable(spec)
    assert spec.reduction is not None
    n = cfg.block("SPLIT")
    if why is not None or n < 2 or spec.reduction[1] % n:
        raise ConfigError(
            f"kernel {spec.name} cannot be split {n} ways: "
            f"{why or f'{n} does not divide the reduction length {spec.reduction[1]}'}"
        )
    sp = split_specs(spec, n)
    rb = min(cfg.block("RBLOCK"), 1 << max(0, (sp.chunk - 1).bit_length()))
    first = generate(
        sp.partial,
        Config.of(cfg.num_warps, XBLOCK=cfg.block("XBLOCK"), RBLOCK=rb),
        kinds=ks,
        index_dtype=index_dtype,
    )
    xnumel = sp.workspaces[0].view.sizes[1].payload  # type: ignore[attr-defined]
    xb2 = min(max(1, 1024 // n), max(1, 1 << max(0, (xnumel // 264).bit_length() - 1)))
    second = generate(
        sp.combine, Config.of(4, XBLOCK=xb2, RBLOCK=n), kinds=ks, index_dtype=index_dtype
    )
    stages = (first, second)
    dtype = "int64" if "int64" in (first.index_dtype, second.index_dtype) else "int32"
    record_kernel(spec.name)
    return KernelSource(
        spec=spec,
        config=cfg,
        source=first.source + second.source,
        kernel_name=spec.name,
        grid=first.grid,
        index_dtype=dtype,
        index_reason=f"partial: {first.index_reason}; combine: {second.index_reason}",
        kinds=first.kinds + second.kinds,
        tiling=f"split reduction r={spec.reduction[1]} into {n} chunks of {sp.chunk}: "
        f"{first.tiling}, then {second.tiling}",
        asserts=first.asserts + second.asserts,
        body=first.body + second.body,
        stages=stages,
        workspaces=sp.workspaces,
    )
