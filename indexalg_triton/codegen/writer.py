"""The emission state of one kernel: its lines, the dtype of each register, the tile axes
each value spans, and the decisions shared by pointwise and reduction kernels (the header,
index dtype, bounds asserts, printing an index under the kernel's ranges).

:mod:`~indexalg_triton.codegen.values`, :mod:`~indexalg_triton.codegen.memory`,
:mod:`~indexalg_triton.codegen.pointwise` and :mod:`~indexalg_triton.codegen.reduction`
write through one :class:`KernelWriter`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from indexalg.analysis import bounds
from indexalg.decisions import bounds_checks, dtype_range, index_dtype
from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import Expr, Integer, Symbol
from indexalg.printing.triton import TRITON_PREAMBLE, to_triton
from indexalg_triton.codegen.configs import Config, KernelSource
from indexalg_triton.codegen.helpers import COMBINE
from indexalg_triton.errors import SpecError
from indexalg_triton.spec import Check, KernelSpec, Load, is_float

#: Re-read buffers above this many bytes (in all) are a working set L2 should keep: then
#: only their loads are marked ``evict_last``, not the kernel's streaming loads.
KEEP_REUSED_BYTES = 1 << 20

#: The keyword argument of a load that asks L2 to keep its lines.
EVICT_LAST = ", eviction_policy='evict_last'"

__all__ = [
    "EVICT_LAST",
    "KernelWriter",
    "IndexRanges",
    "axes_in",
    "axis_names",
    "const",
    "expr_list",
]

#: Inclusive ranges of the symbols an index is printed under.
IndexRanges = Mapping[str, tuple[int, int]]


@dataclass
class _PendingLoad:
    """A load line whose eviction hint goes between ``before`` and ``after`` once the kernel
    is written (:meth:`KernelWriter.emit_load_pending`)."""

    before: str
    after: str
    buffer: str
    along_r: bool
    hint: str = ""

    def __str__(self) -> str:
        return f"{self.before}{self.hint}{self.after}"


class KernelWriter:
    """One kernel being written.  ``allow``: the structured kinds this config may use;
    ``kinds``: the target's (the tiling is chosen with them); ``forced``: an index dtype
    the caller imposes (tests only); ``part``: a combo kernel's part."""

    def __init__(
        self,
        spec: KernelSpec,
        cfg: Config,
        allow: tuple[str, ...],
        kinds: tuple[str, ...],
        forced: str | None,
        *,
        part: bool = False,
    ) -> None:
        self.spec = spec
        self.cfg = cfg
        self.allow = allow
        self.kinds = kinds
        self.forced = forced
        self.part = part
        self.lines: list[str | _PendingLoad] = []
        self._pending: list[_PendingLoad] = []
        self.kinds_used: list[str] = []
        self.asserts: list[str] = []
        self.reg: dict[str, str] = {}  # value -> register dtype
        self.axes_of: dict[str, frozenset[int]] = {}
        self.index_dtype = "int32"
        self.helpers: dict[str, str] = {}  # helper name -> source, in first-use order
        self.guard_flat: dict[str, Expr] = {}  # guarded load -> its guard over the tile axes
        self._reused_bytes: int | None = None  # bytes of the buffers re-read (evict_last)

    def emit(self, line: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + line)

    def emit_load_pending(
        self, before: str, after: str, *, buffer: str, along_r: bool, depth: int = 1
    ) -> None:
        """A load line ``before + hint + after`` whose eviction hint depends on the loads
        written after it (a looped reduction's): ``evict_last`` when the kernel loads
        ``buffer`` again later and this load moves along r (``along_r``: the next pass
        re-reads what this one brought into L2), else none.  Settled in :meth:`finish`."""
        load = _PendingLoad("    " * depth + before, after, buffer, along_r)
        self._pending.append(load)
        self.lines.append(load)

    def _settle_hints(self) -> None:
        for i, load in enumerate(self._pending):
            later = any(p.buffer == load.buffer for p in self._pending[i + 1 :])
            load.hint = EVICT_LAST if later and load.along_r else ""

    def header(self, blocks: Sequence[str], comments: Sequence[str]) -> None:
        """The kernel's comments (what it computes, its buffers, ``comments``) and its
        ``def`` line."""
        args = (
            [b.name for b in self.spec.buffers]
            + (["pid_base"] if self.part else [])
            + [f"{b}: tl.constexpr" for b in blocks]
        )
        self.emit(f"# kernel {self.spec.name}: {self.spec.describe()}", 0)
        for b in self.spec.buffers:
            v = b.view
            sizes = ", ".join(str(s) for s in v.sizes)
            strides = ", ".join(str(s) for s in v.strides)
            role = "output" if b.output else "input"
            self.emit(f"# {role} {b.name}: {v.dtype} sizes ({sizes}) strides ({strides})", 0)
        for c in comments:
            self.emit(f"# {c}", 0)
        self.emit("@triton.jit", 0)
        self.emit(f"def {self.spec.name}({', '.join(args)}):", 0)

    def finish(self, grid: int, dtype: str, reason: str, tiling: str) -> KernelSource:
        self._settle_hints()
        body = "\n".join(str(line) for line in self.lines)
        helpers = (COMBINE if self.spec.is_reduction else "") + "".join(self.helpers.values())
        source = f"{TRITON_PREAMBLE}{helpers}\n\n{body}\n"
        return KernelSource(
            spec=self.spec,
            config=self.cfg,
            source=source,
            kernel_name=self.spec.name,
            grid=grid,
            index_dtype=dtype,
            index_reason=reason,
            kinds=tuple(self.kinds_used),
            tiling=tiling,
            asserts=tuple(self.asserts),
            body=f"{body}\n",
        )

    def print(self, e: Expr, ranges: IndexRanges) -> str:
        """``e`` as Triton, with native ``//`` and ``%`` where ``ranges`` prove the
        dividend non-negative."""
        return to_triton(e, nonneg=_nonneg(ranges))

    def value_ranges(self) -> dict[str, tuple[int, int]]:
        """IndexRanges of integer values used as indices: by their ``check`` (asserted), else by
        their dtype."""
        out: dict[str, tuple[int, int]] = {}
        for o in self.spec.ops:
            if not is_float(o.dtype) and o.dtype != "bool":
                out[o.name] = dtype_range(o.dtype)
        for o in self.spec.ops:
            if isinstance(o, Check):
                v = o.value
                lo, hi = out.get(v, (0, o.size - 1))
                out[v] = (max(lo, 0), min(hi, o.size - 1))
        return out

    def evict_last(self, o: Load) -> bool:
        """Whether a direct load asks L2 to keep its lines (``evict_last``): a re-read load
        (:meth:`reused`) always; a streaming load too, unless the kernel's re-read buffers
        are a working set worth protecting (over :data:`KEEP_REUSED_BYTES`).  Measured on
        the H200 (bench.gpu_stragglers --variants): ``evict_last`` on streaming loads made
        a cat of 3 widths 228.0 -> 220.6 µs, channels_last -> contiguous 103.8 -> 101.1,
        a persistent layer norm (weights 32 KiB) 133.9 -> 129.1, but a softmax whose 4 MiB
        additive mask is re-read by 128 rows 261 -> 267."""
        if self.reused(o):
            return True
        if self._reused_bytes is None:  # each re-read buffer counted once
            names = dict.fromkeys(
                op.buffer for op in self.spec.ops if isinstance(op, Load) and self.reused(op)
            )
            self._reused_bytes = sum(
                self.spec.buffer(n).storage_numel * self.spec.buffer(n).view.itemsize for n in names
            )
        return self._reused_bytes <= KEEP_REUSED_BYTES

    def reused(self, o: Load) -> bool:
        """Whether other programs or other loads read a pointer load's elements again, so
        that L2 should keep them (``eviction_policy='evict_last'``, as Inductor decides): its
        index misses a loop (a broadcast: the same element for every value of that loop) or
        reads no loop at stride 1 (non-coalesced: the neighbours of each element are read by
        other lanes or loads, as in pooling's stride-2 windows)."""
        loops = [*self.spec.loops, *([self.spec.reduction] if self.spec.reduction else [])]
        names = [n for n, size in loops if size > 1]
        free = {s.payload for s in o.index.free_symbols}
        if any(n not in free for n in names):
            return True
        return not any(_stride(o.index, n) == 1 for n in names)

    def decide_dtype(
        self, exprs: list[Expr], ranges: dict[str, tuple[int, int]], numels: list[int]
    ) -> tuple[str, str]:
        """The index dtype and its reason (:func:`indexalg.decisions.index_dtype`)."""
        if self.forced is not None:
            return self.forced, "forced by the caller"
        d = index_dtype(
            exprs,
            ranges=ranges,
            numel=numels,  # type: ignore[arg-type]
            buffer_sizes=[b.storage_numel for b in self.spec.buffers],
        )
        return d.dtype, d.reason

    def check(self, o: Check, mask: str | None, ranges: IndexRanges, depth: int) -> None:
        """A ``check`` op: the sides of ``0 <= v < size`` not proven, asserted (masked-off
        lanes excepted)."""
        v = o.value
        vr = dtype_range(self.spec.op(v).dtype)
        d = bounds_checks(Symbol(v), o.size, ranges={v: vr})
        if not d.asserts:
            self.emit(f"# {v} in [0, {o.size}): proven, no assert", depth)
            return
        for claim in d.asserts:
            text = self.print(claim, ranges)
            cond = f"({text}) | ~({mask})" if mask else text
            self.emit(f'tl.device_assert({cond}, "index out of bounds: {claim}")', depth)
            self.asserts.append(str(claim))

    def digits_comment(self, subst: Mapping[Expr, Expr], depth: int = 1) -> None:
        """The comment that shows each loop as digits of the tile axes."""
        digits = ", ".join(
            f"{k} = {v}" for k, v in sorted(((str(k), str(v)) for k, v in subst.items()))
        )
        self.emit(f"# loops as digits of the tile axes: {digits}", depth)


def _stride(index: Expr, name: str) -> int | None:
    """The step of ``index`` from ``name`` = 0 to 1, every other symbol 0 (Inductor's stride
    hint; None when it cannot be evaluated)."""
    env = {s.payload: 0 for s in index.free_symbols}
    try:
        return int(evaluate(index, {**env, name: 1})) - int(evaluate(index, env))
    except IndexAlgError:
        return None


def _nonneg(ranges: IndexRanges) -> Callable[[Expr], bool]:
    rng = dict(ranges)

    def nonneg(e: Expr) -> bool:
        try:
            lo, _ = bounds(e, rng)  # type: ignore[arg-type]
        except Exception:  # an unanalysable subterm is not known >= 0
            return False
        return lo is not None and type(lo) is Integer and lo.payload >= 0

    return nonneg


def axis_names(n: int) -> tuple[str, ...]:
    return ("x", "y", "z")[:n]


def axes_in(e: Expr, names: Sequence[str]) -> frozenset[int]:
    """The tile axes (by position in ``names``) whose index ``e`` mentions."""
    syms = {s.payload for s in e.free_symbols}
    return frozenset(i for i, n in enumerate(names) if f"{n}index" in syms)


def const(e: Expr) -> int:
    if type(e) is not Integer:
        raise SpecError(f"a kernel spec needs integer sizes, got {e}")
    v: int = e.payload
    return v


def expr_list(xs: Sequence[Expr]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"
