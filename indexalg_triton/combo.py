"""Combo kernels: independent pointwise kernels fused horizontally into one launch.

The foreach case: the same operation over many tensors of different sizes (an optimizer step
over every parameter) costs one launch per tensor; a combo kernel does them all in one.
:func:`combine` takes pointwise :class:`~indexalg_triton.spec.KernelSpec` s and generates

* one ``@triton.jit`` function per *part* (``{name}_p{i}``), the part's own kernel as
  :func:`~indexalg_triton.codegen.generate` writes it with ``part=True``: its own loop sizes
  (``xnumel``), index expressions and masks, tiled 1-D with the combo's ``XBLOCK``, its
  program ids ``tl.program_id(0) - pid_base``;
* one kernel ``{name}`` whose programs are split into consecutive ranges, one per part:
  part i owns programs ``[start_i, start_i + ceil(numel_i / XBLOCK))`` and the kernel calls
  its function when ``start_i <= pid < end_i``.

Arguments are every part's buffers in part order, renamed ``p{i}_{buffer}``.  Parts share
nothing but the launch; their outputs must not alias each other or another part's inputs
(independence is the caller's promise, as it is for Inductor's combo kernels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from indexalg.errors import InvalidOperationError
from indexalg.printing.triton import TRITON_PREAMBLE
from indexalg_triton import runtime
from indexalg_triton.codegen import Config, KernelSource, generate
from indexalg_triton.debug import record_kernel
from indexalg_triton.layout import View
from indexalg_triton.spec import KernelSpec, SpecBuilder

__all__ = [
    "ComboKernel",
    "ComboPart",
    "combine",
    "foreach_add_spec",
    "launch_combo",
]


@dataclass(frozen=True)
class ComboPart:
    """One sub-kernel: its spec, its generated function and the programs it owns."""

    spec: KernelSpec
    source: KernelSource
    start: int
    programs: int

    @property
    def end(self) -> int:
        return self.start + self.programs


@dataclass(frozen=True)
class ComboKernel:
    """A generated combo kernel (see the module docstring)."""

    name: str
    parts: tuple[ComboPart, ...]
    source: str
    xblock: int
    num_warps: int

    @property
    def grid(self) -> int:
        return self.parts[-1].end

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(f"p{i}_{b.name}" for i, p in enumerate(self.parts) for b in p.spec.buffers)


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def combine(specs: Sequence[KernelSpec], *, name: str = "combo", xblock: int | None = None,
            num_warps: int = 4, index_dtype: str | None = None) -> ComboKernel:
    """One combo kernel over ``specs`` (pointwise, at least one).  ``xblock`` (a power of
    two) defaults to the next power of two of the largest part's size, within [128, 1024]."""
    if not specs:
        raise InvalidOperationError("a combo kernel needs at least one kernel spec")
    if not name.isidentifier():
        raise InvalidOperationError(f"combo kernel name {name!r} is not an identifier")
    for s in specs:
        if s.is_reduction:
            raise InvalidOperationError(f"kernel {s.name} is a reduction; combo kernels fuse "
                                        "pointwise kernels only")
    if xblock is None:
        xblock = min(1024, max(128, _pow2_at_least(max(s.numel() for s in specs))))
    cfg = Config.of(num_warps, structured=False, flat=True, XBLOCK=xblock)
    parts: list[ComboPart] = []
    start = 0
    for i, s in enumerate(specs):
        part_spec = replace(s, name=f"{name}_p{i}")
        src = generate(part_spec, cfg, kinds=(), index_dtype=index_dtype, part=True)
        parts.append(ComboPart(part_spec, src, start, src.grid))
        start += src.grid
    args = [f"p{i}_{b.name}" for i, p in enumerate(parts) for b in p.spec.buffers]
    lines = [
        f"# combo kernel {name}: {len(parts)} parts, {start} programs, XBLOCK={xblock}",
        "@triton.jit",
        f"def {name}({', '.join([*args, 'XBLOCK: tl.constexpr'])}):",
        "    pid = tl.program_id(0)",
    ]
    for i, p in enumerate(parts):
        cond = f"pid < {p.end}" if p.start == 0 else f"(pid >= {p.start}) & (pid < {p.end})"
        call_args = [f"p{i}_{b.name}" for b in p.spec.buffers] + [str(p.start), "XBLOCK"]
        lines.append(f"    if {cond}:  # part {i}: {p.spec.describe()}")
        lines.append(f"        {p.spec.name}({', '.join(call_args)})")
    bodies = "\n\n".join(p.source.body for p in parts)
    source = f"{TRITON_PREAMBLE}\n\n{bodies}\n\n" + "\n".join(lines) + "\n"
    record_kernel(name)
    return ComboKernel(name, tuple(parts), source, xblock, num_warps)


def launch_combo(combo: ComboKernel, tensors: Sequence[Mapping[str, Any]]) -> None:
    """One launch of ``combo``; ``tensors[i]`` maps part i's buffer names to tensors."""
    if len(tensors) != len(combo.parts):
        raise InvalidOperationError(
            f"combo {combo.name} has {len(combo.parts)} parts, got {len(tensors)} tensor sets")
    args: list[tuple[str, Any]] = []
    for i, (p, ts) in enumerate(zip(combo.parts, tensors)):
        for b in p.spec.buffers:
            if b.name not in ts:
                raise InvalidOperationError(f"combo {combo.name} part {i}: no tensor for "
                                            f"{b.name!r}")
            args.append((f"p{i}_{b.name}", ts[b.name]))
    dev = str(args[0][1].device.type)
    kernel = runtime.compile_source(combo.source, combo.name, interpret=dev == "cpu")
    runtime.run_kernel(combo.name, kernel, (combo.grid,), args,
               {"XBLOCK": combo.xblock, "num_warps": combo.num_warps})


def foreach_add_spec(name: str, shape: Sequence[int], alpha: float = 1.0,
                     dtype: str = "float32") -> KernelSpec:
    """``out = a + alpha * b`` over contiguous tensors of ``shape`` (one part of
    ``torch._foreach_add(as, bs, alpha=alpha)``)."""
    view = View.of(list(shape), dtype=dtype)
    loops = [(n, int(s)) for n, s in zip(view.loop_names(), shape)]
    b = SpecBuilder(name, loops=loops)
    b.buffer("a", view)
    b.buffer("b", view)
    b.buffer("out", view, output=True)
    idx = view.index()
    scaled = b.op("mul", b.load("b", idx), alpha)
    b.store("out", idx, b.op("add", b.load("a", idx), scaled))
    return b.build()
