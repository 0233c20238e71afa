"""Reduction kernels: the pointwise loops fused into ``x``, the reduction loop read as
``r``, in an ``[XBLOCK, RBLOCK]`` tile.

*Persistent* when ``RBLOCK >= rnumel`` (one chunk, each value computed once), else one loop
over ``r`` per reduction (and one for stores of inner values), each recomputing the inner
values it needs.  ``mean_var`` takes two passes (mean, then squared deviations).  Every
access of a reduction kernel is a pointer access.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from indexalg.expr import Expr, Symbol
from indexalg.simplify import simplify
from indexalg_triton.codegen.configs import KernelSource
from indexalg_triton.codegen.values import (
    TL_DTYPE,
    accumulator,
    elementwise,
    load_cast,
    operand,
    store_cast,
)
from indexalg_triton.codegen.writer import EVICT_LAST, KernelWriter, const
from indexalg_triton.spec import MULTI_OUTPUT, REDUCTIONS, KernelSpec, Op, Store, is_float
from indexalg_triton.tiling import make_tiling

__all__ = ["emit_reduction"]


def emit_reduction(w: KernelWriter) -> KernelSource:
    spec = w.spec
    assert spec.reduction is not None
    rname, rnumel = spec.reduction
    xb, rb = w.cfg.block("XBLOCK"), w.cfg.block("RBLOCK")
    tiling = make_tiling(list(spec.loops), [[n for n, _ in spec.loops]], {"XBLOCK": xb})
    xnumel = const(tiling.axes[0].numel)
    progs = -(-xnumel // xb)
    persistent = rb >= rnumel
    rpad = rb if persistent else -(-rnumel // rb) * rb
    subst = {**tiling.substitution(), Symbol(rname): Symbol("rindex")}
    ranges = {"xindex": (0, progs * xb - 1), "rindex": (0, rpad - 1),
              "xoffset": (0, progs * xb - 1), "roffset": (0, rpad - 1),
              **w.value_ranges()}
    flat, exprs = _flat_indices(w, subst, ranges)
    loop_r = {n: (0, s - 1) for n, s in [*spec.loops, spec.reduction]}
    dtype, reason = w.decide_dtype(exprs, {**loop_r, **ranges},
                                   [progs * xb, rpad, progs * xb * rpad])
    mode = "persistent (one chunk of r)" if persistent else "looped over r"
    w.header(["XBLOCK", "RBLOCK"], [
        f"reduction tiling: x=({', '.join(n for n, _ in spec.loops)}) numel {xnumel}; "
        f"r=({rname}) numel {rnumel}; {mode}; config {w.cfg.describe()}",
        f"index dtype: {dtype} ({reason})",
    ])
    xmask = xnumel % xb != 0
    rmask = rnumel % rb != 0 and not (persistent and rb == rnumel)
    _prologue(w, xnumel, rnumel, xmask, dtype)
    w.digits_comment(subst)
    inner_mask = " & ".join(m for m, on in (("xmask", xmask), ("rmask", rmask)) if on) or None
    env = _ReductionBody(w, flat, ranges, inner_mask, "xmask" if xmask else None, dtype)
    if persistent:
        env.persistent(spec, rmask)
    else:
        env.looped(spec, rmask)
    return w.finish(progs, dtype, reason, f"reduction x={xnumel} r={rnumel} {mode}")


def _flat_indices(w: KernelWriter, subst: Mapping[Expr, Expr], ranges: Mapping[str, object]
                  ) -> tuple[dict[int, Expr], list[Expr]]:
    """Every index over the tile axes (by the id of its op or store), and the indices the
    index dtype is decided over; sets the guards of guarded loads likewise."""
    spec = w.spec
    flat: dict[int, Expr] = {}
    exprs: list[Expr] = []
    for o in spec.ops:
        if o.index is not None:
            flat[id(o)] = simplify(o.index.subs(subst), ranges)  # type: ignore[arg-type]
            if not o.index.is_bool:
                exprs += [o.index, flat[id(o)]]
    for st in spec.stores:
        flat[id(st)] = simplify(st.index.subs(subst), ranges)  # type: ignore[arg-type]
        exprs += [st.index, flat[id(st)]]
    w.guard_flat = {o.name: simplify(o.guard.subs(subst), ranges)  # type: ignore[arg-type]
                    for o in spec.ops if o.guard is not None}
    return flat, exprs


def _prologue(w: KernelWriter, xnumel: int, rnumel: int, xmask: bool, dtype: str) -> None:
    w.emit(f"xnumel = {xnumel}")
    w.emit(f"rnumel = {rnumel}")
    pid = "tl.program_id(0)" + (".to(tl.int64)" if dtype == "int64" else "")
    w.emit(f"xoffset = {pid} * XBLOCK")
    w.emit("xindex = xoffset + tl.arange(0, XBLOCK)[:, None]")
    if xmask:
        w.emit("xmask = xindex < xnumel")
    w.emit("rbase = tl.arange(0, RBLOCK)[None, :]")


class _ReductionBody:
    """Emission state of a reduction kernel."""

    def __init__(self, w: KernelWriter, flat: dict[int, Expr],
                 ranges: Mapping[str, tuple[int, int]], inner_mask: str | None,
                 outer_mask: str | None, dtype: str) -> None:
        self.w = w
        self.flat = flat
        self.ranges = ranges
        self.inner_mask = inner_mask
        self.outer_mask = outer_mask
        self.index_dtype = dtype
        self.done: set[str] = set()
        self.inner = w.spec.inner_values()

    def value(self, o: Op, depth: int, *, persistent: bool) -> None:
        w = self.w
        if o.kind == "load":
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
                w.emit_load_pending(before, f"){cast}", buffer=str(o.buffer),
                                    along_r=self._along_r(o), depth=depth)
        elif o.kind == "index":
            w.emit(f"# index {o.index}", depth)
            w.emit(f"{o.name} = {w.print(self.flat[id(o)], self.ranges)}", depth)
            w.reg[o.name] = o.dtype if o.dtype == "bool" else self.index_dtype
        elif o.kind == "check":
            mask = self.inner_mask if str(o.args[0]) in self.inner else self.outer_mask
            w.check(o, mask, self.ranges, depth)
        elif o.kind in REDUCTIONS:
            src = str(o.args[0])
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
        elif o.kind in MULTI_OUTPUT:  # mean_var, persistent (the looped form is in looped())
            mean, var = o.results
            x = self._as_f32(str(o.args[0]))
            w.emit(f"# {o.kind} of {o.args[0]}: one operation, results {mean}, {var}", depth)
            w.emit(f"{o.name}_x = {self._masked(x, '0.0')}", depth)
            w.emit(f"{mean} = tl.reduce({o.name}_x, 1, ia_sum_combine, keep_dims=True) / rnumel",
                   depth)
            w.emit(f"{o.name}_d = {self._masked(f'{o.name}_x - {mean}', '0.0')}", depth)
            w.emit(f"{var} = tl.reduce({o.name}_d * {o.name}_d, 1, ia_sum_combine, "
                   "keep_dims=True) / rnumel", depth)
            w.reg[mean] = w.reg[var] = "float32"
        else:
            w.emit(f"{o.name} = {elementwise(w, o)}", depth)
        self.done.add(o.name)

    def _eviction(self, o: Op, persistent: bool) -> str | None:
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

    def _along_r(self, o: Op) -> bool:
        """Whether a load moves with r (its index names r, or an index loaded from memory)."""
        assert o.index is not None and self.w.spec.reduction is not None
        return Symbol(self.w.spec.reduction[0]) in o.index.free_symbols or bool(
            self.w.spec.indirect_symbols(o))

    def _as_f32(self, src: str) -> str:
        reg = self.w.reg[src]
        return src if reg == "float32" else f"{src}.to(tl.float32)"

    def _masked(self, v: str, other: str) -> str:
        return f"tl.where({self.inner_mask}, {v}, {other})" if self.inner_mask else v

    def store(self, st: object, depth: int) -> None:
        assert isinstance(st, Store)
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

    def _deps(self, names: Sequence[str], expand: str | None = None) -> list[Op]:
        """The ops needed to compute ``names``, in spec order; a reduction's operands are
        followed only for ``expand`` (others are computed once, outside)."""
        spec = self.w.spec
        values = {v for p in spec.ops for v in p.values}
        need: dict[str, None] = {}  # operation names
        stack = list(names)
        while stack:
            o = spec.op(stack.pop())
            if o.name in need:
                continue
            need[o.name] = None
            if o.reduces and o.name != expand:
                continue
            stack += [a for a in o.args if isinstance(a, str)]
            if o.index is not None:
                stack += [s.payload for s in o.index.free_symbols if s.payload in values]
        return [o for o in spec.ops if o.name in need]

    def _checks_for(self, names: set[str]) -> list[Op]:
        return [o for o in self.w.spec.ops if o.kind == "check" and str(o.args[0]) in names]

    def _pass(self, deps: list[Op], rmask: bool, acc: str, init: str, acc_dtype: str,
              update: Callable[[], str], pre: Callable[[], str] | None = None) -> None:
        """One loop over r: the inner values of ``deps`` recomputed, then ``acc = update()``
        (``acc`` initialised first unless ``init`` is empty)."""
        w = self.w
        if init:
            w.emit(f"{acc} = tl.full([XBLOCK, RBLOCK], {init}, {TL_DTYPE[acc_dtype]})")
        w.emit("for roffset in range(0, rnumel, RBLOCK):")
        w.emit("rindex = roffset + rbase", 2)
        if rmask:
            w.emit("rmask = rindex < rnumel", 2)
        body = [o for o in deps if o.name in self.inner]
        names = {o.name for o in body}
        body += [c for c in self._checks_for(names) if c not in body]
        for o in w.spec.ops:
            if o in body:
                self.value(o, 2, persistent=False)
        if pre is not None:
            w.emit(pre(), 2)
        w.emit(f"{acc} = {update()}", 2)
        for o in body:
            self.done.discard(o.name)

    def _mean_var_looped(self, red: Op, deps: list[Op], rmask: bool) -> None:
        """mean_var over a loop: one pass for the mean, a second for the squared deviations
        from it (numerically the two-pass formula, not E[x^2] - E[x]^2)."""
        w = self.w
        src = str(red.args[0])
        mean, var = red.results
        w.emit(f"# {red.kind} of {src}: one operation, results {mean}, {var} (two passes over r)")
        self._pass(deps, rmask, f"{red.name}_sum", "0.0", "float32",
                   lambda: f"{red.name}_sum + {self._masked(self._as_f32(src), '0.0')}")
        w.emit(f"{mean} = tl.reduce({red.name}_sum, 1, ia_sum_combine, keep_dims=True) / rnumel")
        w.reg[mean] = "float32"
        w.emit(f"{red.name}_m2 = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)")
        self._pass(deps, rmask, f"{red.name}_m2", "", "float32",
                   lambda: f"{red.name}_m2 + {red.name}_d * {red.name}_d",
                   pre=lambda: f"{red.name}_d = "
                   f"{self._masked(f'{self._as_f32(src)} - {mean}', '0.0')}")
        w.emit(f"{var} = tl.reduce({red.name}_m2, 1, ia_sum_combine, keep_dims=True) / rnumel")
        w.reg[var] = "float32"
        self.done.add(red.name)

    def persistent(self, spec: KernelSpec, rmask: bool) -> None:
        """One chunk of r: every value computed once, then the stores."""
        self.w.emit("rindex = rbase")
        if rmask:
            self.w.emit("rmask = rindex < rnumel")
        for o in spec.ops:
            self.value(o, 1, persistent=True)
        for st in spec.stores:
            self.store(st, 1)

    def looped(self, spec: KernelSpec, rmask: bool) -> None:
        w = self.w
        reductions = [o for o in spec.ops if o.reduces]
        for red in reductions:
            deps = self._deps([red.name], red.name)
            for o in deps:  # outer values the loop body needs, computed once before it
                if o.name not in self.inner and o.name != red.name and o.name not in self.done:
                    self.value(o, 1, persistent=False)
            if red.kind in MULTI_OUTPUT:
                self._mean_var_looped(red, deps, rmask)
                continue
            acc_dtype, init = accumulator(red)

            def update(red: Op = red, acc_dtype: str = acc_dtype, init: str = init) -> str:
                src = str(red.args[0])
                v = f"{src}.to({TL_DTYPE[acc_dtype]})" if w.reg[src] != acc_dtype else src
                v = self._masked(v, init)
                if red.kind == "sum":
                    return f"{red.name}_acc + {v}"
                return f"tl.maximum({red.name}_acc, {v})"

            self._pass(deps, rmask, f"{red.name}_acc", init, acc_dtype, update)
            self.value(red, 1, persistent=False)
        outer_stores = [st for st in spec.stores if st.value not in self.inner]
        inner_stores = [st for st in spec.stores if st.value in self.inner]
        for st in outer_stores:
            for o in self._deps([st.value]):
                if o.name not in self.done:
                    self.value(o, 1, persistent=False)
            self.store(st, 1)
        if inner_stores:
            need: dict[str, None] = {}
            for st in inner_stores:
                for o in self._deps([st.value]):
                    need[o.name] = None
            for o in spec.ops:
                if o.name in need and o.name not in self.inner and o.name not in self.done:
                    self.value(o, 1, persistent=False)
            w.emit("for roffset in range(0, rnumel, RBLOCK):")
            w.emit("rindex = roffset + rbase", 2)
            if rmask:
                w.emit("rmask = rindex < rnumel", 2)
            body = [o for o in spec.ops if o.name in need and o.name in self.inner]
            names = {o.name for o in body}
            body += [c for c in self._checks_for(names) if c not in body]
            for o in spec.ops:
                if o in body:
                    self.value(o, 2, persistent=False)
            for st in inner_stores:
                self.store(st, 2)
