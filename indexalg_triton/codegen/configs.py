"""Configs and the tiling every config of a kernel shares.

:class:`Config` is one compiled variant (block sizes, warps, whether structured accesses
may be used), :func:`default_configs` the small autotuning space of a spec, and
:func:`tiling_groups` the loop groups of a pointwise kernel's tiling, chosen once by the
planner with symbolic block sizes.  :class:`KernelSource` is what generation returns.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from indexalg.expr import Expr, Integer, Symbol, integer
from indexalg.simplify import simplify
from indexalg_triton.access import Access, plan_accesses, supported_kinds
from indexalg_triton.codegen.split import splittable
from indexalg_triton.errors import ConfigError
from indexalg_triton.layout import dtype_bytes
from indexalg_triton.planner import ReductionPlan, choose_tiling, plan_reduction, tiling_cost
from indexalg_triton.spec import Buffer, KernelSpec, Load
from indexalg_triton.tiling import candidate_tilings

__all__ = [
    "Config",
    "KernelSource",
    "default_configs",
    "direct_accesses",
    "reduction_plan",
    "resolve_kinds",
    "tiling_groups",
    "tiling_groups_nd",
]


@dataclass(frozen=True)
class Config:
    """One compiled variant: block sizes by name (``XBLOCK``, ``YBLOCK``, ``RBLOCK``), warps,
    and whether structured accesses (descriptors, block pointers) may be used."""

    blocks: tuple[tuple[str, int], ...]
    num_warps: int = 4
    structured: bool = True
    flat: bool = False  # a pointwise kernel tiled 1-D whatever the cost model chose
    nd: bool = False  # a pointwise kernel tiled N-D (the prefer-N-D choice) whatever it chose

    @staticmethod
    def of(
        num_warps: int = 4,
        structured: bool = True,
        flat: bool = False,
        nd: bool = False,
        **blocks: int,
    ) -> Config:
        """``Config.of(8, XBLOCK=64, YBLOCK=64)``; see :meth:`make`."""
        return Config.make(blocks, num_warps, structured, flat, nd)

    @staticmethod
    def make(
        blocks: Mapping[str, int],
        num_warps: int = 4,
        structured: bool = True,
        flat: bool = False,
        nd: bool = False,
    ) -> Config:
        """A config; block sizes must be powers of two, warps a power of two <= 32."""
        for k, v in blocks.items():
            if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
                raise ConfigError(f"block size {k} must be a power of two, got {v!r}")
        if num_warps not in (1, 2, 4, 8, 16, 32):
            raise ConfigError(f"num_warps must be a power of two <= 32, got {num_warps}")
        if flat and nd:
            raise ConfigError("a config is either 1-D (flat) or N-D (nd), not both")
        return Config(tuple(sorted(blocks.items())), num_warps, structured, flat, nd)

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.blocks)

    def block(self, name: str) -> int:
        for k, v in self.blocks:
            if k == name:
                return v
        raise ConfigError(f"config {self.describe()} has no {name}")

    def describe(self) -> str:
        b = " ".join(f"{k}={v}" for k, v in self.blocks)
        return (
            f"{b} warps={self.num_warps}"
            + ("" if self.structured else " pointers-only")
            + (" 1-D" if self.flat else "")
            + (" N-D" if self.nd else "")
        )


@dataclass(frozen=True, kw_only=True)
class KernelSource:
    """Generated source and the decisions behind it (built by keyword only)."""

    spec: KernelSpec
    config: Config
    source: str
    kernel_name: str
    grid: int
    index_dtype: str
    index_reason: str
    kinds: tuple[str, ...]  # the access kind of each load/store, in source order
    tiling: str
    asserts: tuple[str, ...] = field(default_factory=tuple)
    body: str = ""  # the kernel definition alone, without the helper preamble
    # a split reduction: the kernels launched in order (each a one-kernel source) and the
    # float32 workspaces they share, allocated per launch; ``source`` holds them all
    stages: tuple[KernelSource, ...] = ()
    workspaces: tuple[Buffer, ...] = ()

    @property
    def arg_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.spec.buffers)


# --- the tiling, shared by every config ----------------------------------------------------


def direct_accesses(spec: KernelSpec) -> tuple[list[Access], list[object]]:
    """The direct loads and the stores as Access objects, with the op/store they belong to
    (the accesses the tiling is chosen for)."""
    acc: list[Access] = []
    owners: list[object] = []
    for o in spec.ops:
        if isinstance(o, Load) and not spec.indirect_symbols(o):
            acc.append(Access(o.index, o.dtype))
            owners.append(o)
    for st in spec.stores:
        acc.append(Access(st.index, spec.buffer(st.buffer).dtype, store=True))
        owners.append(st)
    return acc, owners


@functools.lru_cache(maxsize=256)
def tiling_groups(spec: KernelSpec, kinds: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The loop groups (outermost first) of a pointwise kernel's tiling, chosen by the cost
    model with symbolic block sizes; a reduction kernel has one group."""
    if spec.is_reduction:
        return (tuple(n for n, _ in spec.loops),)
    accesses, _ = direct_accesses(spec)
    choice = choose_tiling(list(spec.loops), accesses, max_tiles=2, allow=kinds)
    return tuple(reversed([ax.loops for ax in choice.tiling.axes]))


@functools.lru_cache(maxsize=256)
def tiling_groups_nd(spec: KernelSpec, kinds: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The loop groups of the prefer-N-D tiling (the tiling with the most axes among those
    the cost model predicts no slower than 1-D; where none is, the N-D candidate it predicts
    fastest), for configs with ``nd``."""
    accesses, _ = direct_accesses(spec)
    choice = choose_tiling(list(spec.loops), accesses, max_tiles=2, prefer_nd=True, allow=kinds)
    tiling = choice.tiling
    if tiling.ndim == 1:
        nd = [t for t in candidate_tilings(list(spec.loops), 2) if t.ndim > 1]
        if nd:
            tiling = min(
                nd, key=lambda t: tiling_cost(t, accesses, plan_accesses(accesses, t, allow=kinds))
            )
    return tuple(reversed([ax.loops for ax in tiling.axes]))


def default_configs(spec: KernelSpec, kinds: tuple[str, ...] | None = None) -> list[Config]:
    """The small autotuning space: the first entry is the default config."""
    ks = resolve_kinds(kinds)
    if spec.is_reduction:
        return _reduction_configs(spec)
    ndim = len(tiling_groups(spec, ks))
    shapes: list[dict[str, int]]
    if ndim == 1:
        shapes = [{"XBLOCK": 1024}, {"XBLOCK": 2048}, {"XBLOCK": 4096}]
        warps = [4, 8, 8]
    else:
        shapes = [
            {"XBLOCK": 64, "YBLOCK": 64},
            {"XBLOCK": 32, "YBLOCK": 32},
            {"XBLOCK": 128, "YBLOCK": 32},
            {"XBLOCK": 32, "YBLOCK": 128},
        ]
        warps = [8, 4, 8, 8]
    out = [Config.make(s, w, True) for s, w in zip(shapes, warps)]
    if ks:
        out += [Config.make(s, w, False) for s, w in zip(shapes, warps)]
    if ndim > 1:  # the 1-D tiling stays in the space: tuning can never end slower than it
        out += [Config.of(4, False, True, XBLOCK=1024), Config.of(8, False, True, XBLOCK=2048)]
    return out


def _reduction_configs(spec: KernelSpec) -> list[Config]:
    """The reduction model's configs (:func:`~indexalg_triton.planner.plan_reduction`), its
    choice first."""
    return [Config.make(b, w) for w, b in reduction_plan(spec).configs]


def reduction_plan(spec: KernelSpec) -> ReductionPlan:
    """The reduction model's plan for ``spec``: rows and r, whether r is read contiguously,
    the widest element read, whether the spec can be split."""
    assert spec.reduction is not None
    xnumel = 1
    for _, s in spec.loops:
        xnumel *= s
    sizes = [dtype_bytes(o.dtype) for o in spec.ops if isinstance(o, Load)] or [4]
    return plan_reduction(
        xnumel,
        spec.reduction[1],
        contiguous=_reduces_contiguously(spec),
        itemsize=min(sizes),
        splittable=splittable(spec) is None,
    )


def _unique(cs: list[Config]) -> list[Config]:
    return list(dict.fromkeys(cs))


def _reduces_contiguously(spec: KernelSpec) -> bool:
    """Whether some load reads along the reduction variable innermost (a row reduction):
    stride 1, or a small stride below every pointwise loop's (``x[:, ::2].sum(1)`` is a
    row reduction read at stride 2, not a column reduction)."""
    assert spec.reduction is not None
    r = Symbol(spec.reduction[0])
    ranges: dict[str, object] = dict(spec.loops)

    def stride(index: Expr, v: Expr) -> int | None:
        c = simplify(index.subs({v: integer(1)}) - index.subs({v: integer(0)}), ranges)  # type: ignore[arg-type]
        return c.payload if type(c) is Integer else None

    for o in spec.ops:
        if isinstance(o, Load) and r in o.index.free_symbols:
            sr = stride(o.index, r)
            if sr == 1:
                return True
            if sr is None or not 1 < sr <= 8:
                continue
            others = [
                stride(o.index, Symbol(n))
                for n, _ in spec.loops
                if Symbol(n) in o.index.free_symbols
            ]
            if all(s is not None and abs(s) > sr for s in others):
                return True
    return False


def resolve_kinds(kinds: Sequence[str] | None) -> tuple[str, ...]:
    """The structured kinds asked for; None: the installed Triton's."""
    if kinds is None:
        return supported_kinds()
    return tuple(kinds)
