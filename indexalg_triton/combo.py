"""Combo kernels: independent pointwise kernels fused horizontally into one launch.

The foreach case: the same operation over many tensors of different sizes (an optimizer step
over every parameter) costs one launch per tensor; a combo kernel does them all in one.
:func:`combine` takes pointwise :class:`~indexalg_triton.spec.KernelSpec` s and generates

* one ``@triton.jit`` function per *part* (``{name}_p{i}``), the part's own kernel as
  :func:`~indexalg_triton.codegen.generate` writes it with ``part=True``: its own loop sizes
  (``xnumel``), index expressions, masks **and tiling and block sizes**, its program ids
  ``tl.program_id(0) - pid_base``:

  - a part the planner tiles 1-D gets its own size class: ``XBLOCK`` the next power of two
    of its size within ``[MIN_XBLOCK, max_xblock]``, so a 7-element part is one program of
    a 32-element block (not a 1024-element block mostly masked) and a large part runs at
    ``max_xblock``;
  - a part the planner tiles 2-D (a transpose, a channels_last copy) keeps its 2-D tiling:
    ``XBLOCK`` x ``YBLOCK`` tiles, each axis's block the next power of two of that axis's
    size within ``[MIN_TILE, MAX_TILE]``; its program id is mapped to the (x, y) tile as in
    a kernel of its own;
  - ``configs`` may give any part its own :class:`~indexalg_triton.codegen.Config` instead.

* one kernel ``{name}`` (arguments: every part's buffers, nothing else) whose programs are
  split into consecutive ranges, one per part, the parts with the largest blocks first
  (then in the order given), and which finds the part of its program id by a binary search
  over the constant range starts: nested ``if pid < start:`` of depth ``ceil(log2(parts))``,
  the part's block sizes passed to its function as literal constants.

Arguments are every part's buffers in part order, renamed ``p{i}_{buffer}``.  Parts share
nothing but the launch (and ``num_warps``); their outputs must not alias each other or another
part's inputs (independence is the caller's promise, as it is for Inductor's combo kernels).

Launching (both through :func:`~indexalg_triton.runtime.run_kernel` the first time, where
Triton compiles, then without Triton's JIT on a GPU; see
:class:`~indexalg_triton.runtime.DirectLauncher`):

* :func:`launch_combo` takes the tensors on each call: one name lookup, ``data_ptr()``,
  dtype and alignment check per tensor, then the compiled launcher;
* :meth:`ComboKernel.bind` does all of that once and returns a
  :class:`~indexalg_triton.runtime.BoundLaunch`: calling it launches with the argument tuple,
  grid and compiled-kernel handle precomputed (no per-call hashing, lookup or allocation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from indexalg.printing.triton import TRITON_PREAMBLE
from indexalg_triton import runtime
from indexalg_triton.codegen import Config, KernelSource, generate
from indexalg_triton.codegen.configs import tiling_groups
from indexalg_triton.debug import record_kernel
from indexalg_triton.errors import ConfigError, LaunchError, SpecError
from indexalg_triton.layout import View
from indexalg_triton.spec import KernelSpec, SpecBuilder

__all__ = [
    "MAX_TILE",
    "MIN_TILE",
    "MIN_XBLOCK",
    "ComboKernel",
    "ComboPart",
    "combine",
    "foreach_add_spec",
    "launch_combo",
    "part_config",
    "transpose_add_spec",
]

#: The smallest 1-D block of a part (one warp's lanes).
MIN_XBLOCK = 32
#: The per-axis block range of a 2-D part.
MIN_TILE = 16
MAX_TILE = 64


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

    @property
    def blocks(self) -> tuple[tuple[str, int], ...]:
        """The part's block sizes (``XBLOCK``, and ``YBLOCK`` for a 2-D part)."""
        return self.source.config.blocks


@dataclass(frozen=True)
class ComboKernel:
    """A generated combo kernel (see the module docstring); ``parts`` in the order given,
    ``order`` the part indices in program order."""

    name: str
    parts: tuple[ComboPart, ...]
    source: str
    num_warps: int
    order: tuple[int, ...]
    # the direct launcher of the last specialisation launch_combo compiled (no tensors held)
    _direct: list[runtime.DirectLauncher] = field(
        default_factory=list, compare=False, hash=False, repr=False
    )

    @property
    def grid(self) -> int:
        return sum(p.programs for p in self.parts)

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(f"p{i}_{b.name}" for i, p in enumerate(self.parts) for b in p.spec.buffers)

    def bind(self, tensors: Sequence[Mapping[str, Any]]) -> runtime.BoundLaunch:
        """A launch of this kernel on ``tensors`` (``tensors[i]`` maps part i's buffer
        names to tensors) with everything but the launch itself done once: call the result
        to launch.  The tensors are held, and must keep their storage."""
        args = _combo_args(self, tensors)
        dev = str(args[0][1].device.type)
        kernel = runtime.compile_source(self.source, self.name, interpret=dev == "cpu")
        return runtime.bind_kernel(
            self.name, kernel, (self.grid,), args, {"num_warps": self.num_warps}
        )


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _clamp_pow2(n: int, lo: int, hi: int) -> int:
    return min(hi, max(lo, _pow2_at_least(n)))


def part_config(spec: KernelSpec, *, num_warps: int = 4, max_xblock: int = 1024) -> Config:
    """The config of a combo part (pointer accesses only): 2-D tiles where the planner tiles
    ``spec`` 2-D, else 1-D; block sizes by size class (see the module docstring)."""
    groups = tiling_groups(spec, ())
    if len(groups) == 1:
        return Config.of(
            num_warps,
            structured=False,
            flat=True,
            XBLOCK=_clamp_pow2(spec.numel(), MIN_XBLOCK, max_xblock),
        )
    sizes = dict(spec.loops)
    numels = []
    for g in groups:
        n = 1
        for loop in g:
            n *= int(sizes[loop])
        numels.append(n)
    # groups are outermost first; the x axis (the tile's first) is the innermost group
    x, y = numels[-1], numels[0]
    return Config.of(
        num_warps,
        structured=False,
        XBLOCK=_clamp_pow2(x, MIN_TILE, MAX_TILE),
        YBLOCK=_clamp_pow2(y, MIN_TILE, MAX_TILE),
    )


def combine(
    specs: Sequence[KernelSpec],
    *,
    name: str = "combo",
    xblock: int | None = None,
    num_warps: int = 4,
    index_dtype: str | None = None,
    max_xblock: int = 1024,
    configs: Sequence[Config | None] | None = None,
) -> ComboKernel:
    """One combo kernel over ``specs`` (pointwise, at least one).  Each part's config is
    ``configs[i]`` when given, else ``Config.of(num_warps, XBLOCK=xblock)`` 1-D for every
    part when ``xblock`` (a power of two) is given, else :func:`part_config`."""
    if not specs:
        raise SpecError("a combo kernel needs at least one kernel spec")
    if not name.isidentifier():
        raise ConfigError(f"combo kernel name {name!r} is not an identifier")
    if configs is not None and len(configs) != len(specs):
        raise ConfigError(f"combo {name}: {len(specs)} specs, {len(configs)} configs")
    for s in specs:
        if s.is_reduction:
            raise SpecError(
                f"kernel {s.name} is a reduction; combo kernels fuse pointwise kernels only"
            )
    sources: list[tuple[KernelSpec, KernelSource]] = []
    for i, s in enumerate(specs):
        cfg = configs[i] if configs is not None else None
        if cfg is None:
            cfg = (
                Config.of(num_warps, structured=False, flat=True, XBLOCK=xblock)
                if xblock is not None
                else part_config(s, num_warps=num_warps, max_xblock=max_xblock)
            )
        part_spec = replace(s, name=f"{name}_p{i}")
        sources.append(
            (part_spec, generate(part_spec, cfg, kinds=(), index_dtype=index_dtype, part=True))
        )
    # program order: the largest blocks first (the longest programs start first), then as given
    order = tuple(sorted(range(len(specs)), key=lambda i: (-_block_elems(sources[i][1]), i)))
    starts: dict[int, int] = {}
    start = 0
    for i in order:
        starts[i] = start
        start += sources[i][1].grid
    parts = tuple(ComboPart(sp, src, starts[i], src.grid) for i, (sp, src) in enumerate(sources))
    args = [f"p{i}_{b.name}" for i, p in enumerate(parts) for b in p.spec.buffers]
    lines = [
        f"# combo kernel {name}: {len(parts)} parts, {start} programs, num_warps={num_warps}",
        "# parts in program order (start, programs, blocks):",
        *(
            f"#   part {i}: {parts[i].start} +{parts[i].programs} "
            f"{' '.join(f'{k}={v}' for k, v in parts[i].blocks)}"
            for i in order
        ),
        "@triton.jit",
        f"def {name}({', '.join(args)}):",
        "    pid = tl.program_id(0)",
    ]
    _dispatch(lines, [parts[i] for i in order], [i for i in order], 1)
    bodies = "\n\n".join(p.source.body for p in parts)
    source = f"{TRITON_PREAMBLE}\n\n{bodies}\n\n" + "\n".join(lines) + "\n"
    record_kernel(name)
    return ComboKernel(name, parts, source, num_warps, order)


def _block_elems(src: KernelSource) -> int:
    n = 1
    for _, v in src.config.blocks:
        n *= v
    return n


def _dispatch(lines: list[str], parts: list[ComboPart], index: list[int], depth: int) -> None:
    """The binary search over the parts' program ranges (consecutive, in ``parts`` order)."""
    pad = "    " * depth
    if len(parts) == 1:
        p, i = parts[0], index[0]
        call = (
            [f"p{i}_{b.name}" for b in p.spec.buffers]
            + [str(p.start)]
            + [str(v) for _, v in p.blocks]
        )
        lines.append(f"{pad}# part {i}: {p.spec.describe()}")
        lines.append(f"{pad}{p.spec.name}({', '.join(call)})")
        return
    mid = len(parts) // 2
    lines.append(f"{pad}if pid < {parts[mid].start}:")
    _dispatch(lines, parts[:mid], index[:mid], depth + 1)
    lines.append(f"{pad}else:")
    _dispatch(lines, parts[mid:], index[mid:], depth + 1)


def _combo_args(combo: ComboKernel, tensors: Sequence[Mapping[str, Any]]) -> list[tuple[str, Any]]:
    """The kernel's ``(name, tensor)`` arguments in order."""
    if len(tensors) != len(combo.parts):
        raise LaunchError(
            f"combo {combo.name} has {len(combo.parts)} parts, got {len(tensors)} tensor sets"
        )
    args: list[tuple[str, Any]] = []
    for i, (p, ts) in enumerate(zip(combo.parts, tensors)):
        for b in p.spec.buffers:
            if b.name not in ts:
                raise LaunchError(f"combo {combo.name} part {i}: no tensor for {b.name!r}")
            args.append((f"p{i}_{b.name}", ts[b.name]))
    return args


def launch_combo(combo: ComboKernel, tensors: Sequence[Mapping[str, Any]]) -> None:
    """One launch of ``combo``; ``tensors[i]`` maps part i's buffer names to tensors.

    The first launch goes through Triton's JIT (:func:`~indexalg_triton.runtime.run_kernel`);
    later ones go to the compiled launcher directly
    (:meth:`~indexalg_triton.runtime.DirectLauncher.launch`) when the tensors have the
    dtypes and pointer alignment it was compiled for, else through the JIT again.  For
    repeated launches on the same tensors, :meth:`ComboKernel.bind` once and call that."""
    if len(tensors) == len(combo.parts) and combo._direct:
        try:
            values = [tensors[i][b.name] for i, p in enumerate(combo.parts) for b in p.spec.buffers]
        except (KeyError, TypeError, IndexError):
            values = []
        if values and combo._direct[0].launch(values):
            return
    args = _combo_args(combo, tensors)
    dev = str(args[0][1].device.type)
    kernel = runtime.compile_source(combo.source, combo.name, interpret=dev == "cpu")
    compiled = runtime.run_kernel(
        combo.name, kernel, (combo.grid,), args, {"num_warps": combo.num_warps}
    )
    direct = runtime.direct_launcher(kernel, compiled, (combo.grid,), [v for _, v in args])
    if direct is not None:
        combo._direct[:] = [direct]


def foreach_add_spec(
    name: str, shape: Sequence[int], alpha: float = 1.0, dtype: str = "float32"
) -> KernelSpec:
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


def transpose_add_spec(
    name: str, rows: int, cols: int, alpha: float = 1.0, dtype: str = "float32"
) -> KernelSpec:
    """``out = a.t() + alpha * b``: ``a`` contiguous ``(cols, rows)``, ``b`` and ``out``
    contiguous ``(rows, cols)`` (a transposed read: the planner tiles it 2-D)."""
    view = View.of([rows, cols], dtype=dtype)
    at = View.of([rows, cols], [1, rows], dtype=dtype)  # a.t() of a contiguous (cols, rows)
    b = SpecBuilder(name, loops=[(n, s) for n, s in zip(view.loop_names(), (rows, cols))])
    b.buffer("a", View.of([cols, rows], dtype=dtype))
    b.buffer("b", view)
    b.buffer("out", view, output=True)
    idx = view.index()
    scaled = b.op("mul", b.load("b", idx), alpha)
    b.store("out", idx, b.op("add", b.load("a", at.index()), scaled))
    return b.build()
