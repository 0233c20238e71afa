"""A reduction kernel's tile, one op or store at a time: loads (masked, with their cache
hints), index values, bounds checks, reductions (``tl.reduce`` over the tile, or of the loop's
accumulator), a persistent ``mean_var``, elementwise values, and the stores.  Which ops run
where (once, or in a loop over ``r``) is :mod:`~indexalg_triton.codegen.reduction`'s
schedule; :class:`ReductionBody` writes what it is told, under the kernel's masks."""

from __future__ import annotations

from collections.abc import Mapping

from indexalg.expr import Expr, Symbol
from indexalg_triton.codegen.values import (
    TL_DTYPE,
    accumulator,
    elementwise,
    load_cast,
    operand,
    store_cast,
)
from indexalg_triton.codegen.writer import EVICT_LAST, KernelWriter
from indexalg_triton.spec import (
    Check,
    ElementwiseOp,
    IndexValue,
    Load,
    MultiReduction,
    Op,
    Reduction,
    Store,
    is_float,
)

__all__ = ["ReductionBody"]


class ReductionBody:
    """The emission state of a reduction kernel's ``[XBLOCK, RBLOCK]`` tile: ``flat``, every
    index over the tile axes (by the id of its op or store); ``inner_mask`` and
    ``outer_mask``, the masks of inner and outer values; ``done``, the values computed and
    still live (a loop over r forgets its inner values when it ends)."""

    def __init__(
        self,
        w: KernelWriter,
        flat: dict[int, Expr],
        ranges: Mapping[str, tuple[int, int]],
        inner_mask: str | None,
        outer_mask: str | None,
        dtype: str,
    ) -> None:
        self.w = w
        self.flat = flat
        self.ranges = ranges
        self.inner_mask = inner_mask
        self.outer_mask = outer_mask
        self.index_dtype = dtype
        self.done: set[str] = set()
        self.inner = w.spec.inner_values()

    def value(self, o: Op, depth: int, *, persistent: bool) -> None:
        """Op ``o`` at ``depth``; a reduction over the whole tile when ``persistent``, else
        of the accumulator a loop over r filled."""
        w = self.w
        if isinstance(o, Load):
            self._load(o, depth, persistent)
        elif isinstance(o, IndexValue):
            w.emit(f"# index {o.index}", depth)
            w.emit(f"{o.name} = {w.print(self.flat[id(o)], self.ranges)}", depth)
            w.reg[o.name] = o.dtype if o.dtype == "bool" else self.index_dtype
        elif isinstance(o, Check):
            mask = self.inner_mask if o.value in self.inner else self.outer_mask
            w.check(o, mask, self.ranges, depth)
        elif isinstance(o, Reduction):
            self._reduction(o, depth, persistent)
        elif isinstance(o, MultiReduction):  # mean_var, persistent (looped: the schedule's)
            self._mean_var(o, depth)
        else:
            assert isinstance(o, ElementwiseOp)
            w.emit(f"{o.name} = {elementwise(w, o)}", depth)
        self.done.add(o.name)

    def _load(self, o: Load, depth: int, persistent: bool) -> None:
        w = self.w
        f = self.flat[id(o)]
        mask = self.inner_mask if o.name in self.inner else self.outer_mask
        if o.guard is not None:
            gtext = f"({w.print(w.guard_flat[o.name], self.ranges)})"
            mask = f"{mask} & {gtext}" if mask else gtext
        m = f", {mask}, other=0" if mask else ""
        hint = self._eviction(o, persistent)
        w.emit(f"# load {o.buffer}[{o.index}]: pointer", depth)
        w.kinds_used.append("pointer")
        cast = load_cast(w, o.name, o.dtype)
        before = f"{o.name} = tl.load({o.buffer} + ({w.print(f, self.ranges)}){m}"
        if hint is not None:
            w.emit(f"{before}{hint}){cast}", depth)
        else:  # settled by the writer once every load is written
            w.emit_load_pending(
                before, f"){cast}", buffer=o.buffer, along_r=self._along_r(o), depth=depth
            )

    def _reduction(self, o: Reduction, depth: int, persistent: bool) -> None:
        w = self.w
        src = o.value
        acc_dtype, init = accumulator(o)
        w.reg[o.name] = acc_dtype
        comb = "ia_sum_combine" if o.kind == "sum" else "ia_max_combine"
        v = operand(w, src, True) if is_float(acc_dtype) else src
        if is_float(acc_dtype) and w.reg[src] != acc_dtype:
            v = f"{src}.to({TL_DTYPE[acc_dtype]})"
        if persistent:
            if self.inner_mask:
                v = f"tl.where({self.inner_mask}, {v}, {init})"
            w.emit(f"{o.name} = tl.reduce({v}, 1, {comb}, keep_dims=True)", depth)
        else:
            w.emit(f"{o.name} = tl.reduce({o.name}_acc, 1, {comb}, keep_dims=True)", depth)

    def _mean_var(self, o: MultiReduction, depth: int) -> None:
        """``mean_var`` over one chunk of r: the mean, then the mean squared deviation."""
        w = self.w
        mean, var = o.results
        x = self.as_f32(o.value)
        w.emit(f"# {o.kind} of {o.value}: one operation, results {mean}, {var}", depth)
        w.emit(f"{o.name}_x = {self.masked(x, '0.0')}", depth)
        w.emit(f"{mean} = tl.reduce({o.name}_x, 1, ia_sum_combine, keep_dims=True) / rnumel", depth)
        w.emit(f"{o.name}_d = {self.masked(f'{o.name}_x - {mean}', '0.0')}", depth)
        w.emit(
            f"{var} = tl.reduce({o.name}_d * {o.name}_d, 1, ia_sum_combine, "
            "keep_dims=True) / rnumel",
            depth,
        )
        w.reg[mean] = w.reg[var] = "float32"

    def _eviction(self, o: Load, persistent: bool) -> str | None:
        """The cache hint of a load: ``evict_last`` in a persistent kernel as in a pointwise
        one (:meth:`KernelWriter.evict_last`), when other programs or loads read its elements
        (:meth:`KernelWriter.reused`) or when this kernel loads the buffer again later along
        r (a looped reduction's next pass: None here, the writer settles it once every load
        is written, :meth:`KernelWriter.emit_load_pending`), else none: on a looped
        kernel's streaming loads
        ``evict_last`` cost 6% (layer norm looped 191.5 -> 203.9 µs).  Inductor marks the
        remaining loads ``evict_first``; measured on the H200 that hint cost 2-22% (softmax
        over a permuted input 226 vs 185 µs, layer norm 140 vs 135 µs, bench.features_gpu
        part eviction), so it is never emitted."""
        if self.w.reused(o) or (persistent and self.w.evict_last(o)):
            return EVICT_LAST
        return None

    def _along_r(self, o: Load) -> bool:
        """Whether a load moves with r (its index names r, or an index loaded from memory)."""
        assert self.w.spec.reduction is not None
        return Symbol(self.w.spec.reduction[0]) in o.index.free_symbols or bool(
            self.w.spec.indirect_symbols(o)
        )

    def as_f32(self, src: str) -> str:
        """Value ``src`` as float32."""
        reg = self.w.reg[src]
        return src if reg == "float32" else f"{src}.to(tl.float32)"

    def masked(self, v: str, other: str) -> str:
        """``v`` where the inner mask holds, ``other`` elsewhere."""
        return f"tl.where({self.inner_mask}, {v}, {other})" if self.inner_mask else v

    def store(self, st: Store, depth: int) -> None:
        """A store, a pointer store under the mask of its value (inner or outer)."""
        w = self.w
        buf = w.spec.buffer(st.buffer)
        mask = self.inner_mask if st.value in self.inner else self.outer_mask
        f = self.flat[id(st)]
        w.emit(f"# store {st.buffer}[{st.index}]: pointer", depth)
        w.kinds_used.append("pointer")
        val = store_cast(w, st.value, buf.dtype)
        m = f", {mask}" if mask else ""
        inner = st.value in self.inner
        syms = {s.payload for s in f.free_symbols}
        spread = ""  # an index missing a tile axis (a scalar result) needs the value's shape
        if "xindex" not in syms or (inner and "rindex" not in syms):
            spread = f" + tl.full([XBLOCK, {'RBLOCK' if inner else 1}], 0, tl.int32)"
        w.emit(f"tl.store({st.buffer} + ({w.print(f, self.ranges)}){spread}, {val}{m})", depth)
