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
from indexalg_triton.codegen.reduction_body import ReductionBody
from indexalg_triton.codegen.values import TL_DTYPE, accumulator
from indexalg_triton.codegen.writer import KernelWriter, const
from indexalg_triton.spec import Check, IndexValue, KernelSpec, Load, MultiReduction, Op, Reduction
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
    ranges = {
        "xindex": (0, progs * xb - 1),
        "rindex": (0, rpad - 1),
        "xoffset": (0, progs * xb - 1),
        "roffset": (0, rpad - 1),
        **w.value_ranges(),
    }
    flat, exprs = _flat_indices(w, subst, ranges)
    loop_r = {n: (0, s - 1) for n, s in [*spec.loops, spec.reduction]}
    dtype, reason = w.decide_dtype(
        exprs, {**loop_r, **ranges}, [progs * xb, rpad, progs * xb * rpad]
    )
    mode = "persistent (one chunk of r)" if persistent else "looped over r"
    w.header(
        ["XBLOCK", "RBLOCK"],
        [
            f"reduction tiling: x=({', '.join(n for n, _ in spec.loops)}) numel {xnumel}; "
            f"r=({rname}) numel {rnumel}; {mode}; config {w.cfg.describe()}",
            f"index dtype: {dtype} ({reason})",
        ],
    )
    xmask = xnumel % xb != 0
    rmask = rnumel % rb != 0 and not (persistent and rb == rnumel)
    _prologue(w, xnumel, rnumel, xmask, dtype)
    w.digits_comment(subst)
    inner_mask = " & ".join(m for m, on in (("xmask", xmask), ("rmask", rmask)) if on) or None
    body = ReductionBody(w, flat, ranges, inner_mask, "xmask" if xmask else None, dtype)
    if persistent:
        _persistent(body, rmask)
    else:
        _looped(body, rmask)
    return w.finish(progs, dtype, reason, f"reduction x={xnumel} r={rnumel} {mode}")


def _flat_indices(
    w: KernelWriter, subst: Mapping[Expr, Expr], ranges: Mapping[str, object]
) -> tuple[dict[int, Expr], list[Expr]]:
    """Every index over the tile axes (by the id of its op or store), and the indices the
    index dtype is decided over; sets the guards of guarded loads likewise."""
    spec = w.spec
    flat: dict[int, Expr] = {}
    exprs: list[Expr] = []
    for o in spec.ops:
        if isinstance(o, (Load, IndexValue)):
            flat[id(o)] = simplify(o.index.subs(subst), ranges)  # type: ignore[arg-type]
            if not o.index.is_bool:
                exprs += [o.index, flat[id(o)]]
    for st in spec.stores:
        flat[id(st)] = simplify(st.index.subs(subst), ranges)  # type: ignore[arg-type]
        exprs += [st.index, flat[id(st)]]
    w.guard_flat = {
        o.name: simplify(o.guard.subs(subst), ranges)  # type: ignore[arg-type]
        for o in spec.ops
        if isinstance(o, Load) and o.guard is not None
    }
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


# --- the schedule: which ops run where -------------------------------------------------------


def _persistent(b: ReductionBody, rmask: bool) -> None:
    """One chunk of r: every value computed once, then the stores."""
    b.w.emit("rindex = rbase")
    if rmask:
        b.w.emit("rmask = rindex < rnumel")
    for o in b.w.spec.ops:
        b.value(o, 1, persistent=True)
    for st in b.w.spec.stores:
        b.store(st, 1)


def _looped(b: ReductionBody, rmask: bool) -> None:
    """A loop over r per reduction (two for ``mean_var``), each recomputing the inner values
    it needs (the outer ones computed once, before it); then the stores of outer values, and
    one more loop for the stores of inner values."""
    spec = b.w.spec
    for red in [o for o in spec.ops if o.reduces]:
        deps = _deps(spec, [red.name], red.name)
        for o in deps:  # outer values the loop body needs, computed once before it
            if o.name not in b.inner and o.name != red.name and o.name not in b.done:
                b.value(o, 1, persistent=False)
        if isinstance(red, MultiReduction):
            _mean_var_looped(b, red, deps, rmask)
        else:
            assert isinstance(red, Reduction)
            _reduction_looped(b, red, deps, rmask)
    for st in spec.stores:
        if st.value not in b.inner:
            for o in _deps(spec, [st.value]):
                if o.name not in b.done:
                    b.value(o, 1, persistent=False)
            b.store(st, 1)
    inner_stores = [st for st in spec.stores if st.value in b.inner]
    if inner_stores:
        need: dict[str, None] = {}
        for st in inner_stores:
            for o in _deps(spec, [st.value]):
                need[o.name] = None
        ops = [o for o in spec.ops if o.name in need]
        for o in ops:
            if o.name not in b.inner and o.name not in b.done:
                b.value(o, 1, persistent=False)
        _open_loop(b, ops, rmask)
        for st in inner_stores:
            b.store(st, 2)


def _reduction_looped(b: ReductionBody, red: Reduction, deps: list[Op], rmask: bool) -> None:
    """A sum or max over a loop: an accumulator tile updated per chunk, reduced after."""
    acc_dtype, init = accumulator(red)

    def update() -> str:
        src = red.value
        v = f"{src}.to({TL_DTYPE[acc_dtype]})" if b.w.reg[src] != acc_dtype else src
        v = b.masked(v, init)
        if red.kind == "sum":
            return f"{red.name}_acc + {v}"
        return f"tl.maximum({red.name}_acc, {v})"

    _pass(b, deps, rmask, f"{red.name}_acc", init, acc_dtype, update)
    b.value(red, 1, persistent=False)


def _mean_var_looped(b: ReductionBody, red: MultiReduction, deps: list[Op], rmask: bool) -> None:
    """mean_var over a loop: one pass for the mean, a second for the squared deviations
    from it (numerically the two-pass formula, not E[x^2] - E[x]^2)."""
    w = b.w
    src = red.value
    mean, var = red.results
    w.emit(f"# {red.kind} of {src}: one operation, results {mean}, {var} (two passes over r)")
    _pass(
        b,
        deps,
        rmask,
        f"{red.name}_sum",
        "0.0",
        "float32",
        lambda: f"{red.name}_sum + {b.masked(b.as_f32(src), '0.0')}",
    )
    w.emit(f"{mean} = tl.reduce({red.name}_sum, 1, ia_sum_combine, keep_dims=True) / rnumel")
    w.reg[mean] = "float32"
    w.emit(f"{red.name}_m2 = tl.full([XBLOCK, RBLOCK], 0.0, tl.float32)")
    _pass(
        b,
        deps,
        rmask,
        f"{red.name}_m2",
        "",
        "float32",
        lambda: f"{red.name}_m2 + {red.name}_d * {red.name}_d",
        pre=lambda: f"{red.name}_d = {b.masked(f'{b.as_f32(src)} - {mean}', '0.0')}",
    )
    w.emit(f"{var} = tl.reduce({red.name}_m2, 1, ia_sum_combine, keep_dims=True) / rnumel")
    w.reg[var] = "float32"
    b.done.add(red.name)


def _pass(
    b: ReductionBody,
    deps: list[Op],
    rmask: bool,
    acc: str,
    init: str,
    acc_dtype: str,
    update: Callable[[], str],
    pre: Callable[[], str] | None = None,
) -> None:
    """One loop over r: the inner values of ``deps`` recomputed, then ``acc = update()``
    (``acc`` initialised first unless ``init`` is empty)."""
    w = b.w
    if init:
        w.emit(f"{acc} = tl.full([XBLOCK, RBLOCK], {init}, {TL_DTYPE[acc_dtype]})")
    body = _open_loop(b, deps, rmask)
    if pre is not None:
        w.emit(pre(), 2)
    w.emit(f"{acc} = {update()}", 2)
    for o in body:
        b.done.discard(o.name)


def _open_loop(b: ReductionBody, ops: list[Op], rmask: bool) -> list[Op]:
    """A loop over r and, in it, the inner values of ``ops`` (spec order) and the checks on
    them: the ops written in the loop."""
    w = b.w
    w.emit("for roffset in range(0, rnumel, RBLOCK):")
    w.emit("rindex = roffset + rbase", 2)
    if rmask:
        w.emit("rmask = rindex < rnumel", 2)
    body = [o for o in ops if o.name in b.inner]
    names = {o.name for o in body}
    body += [c for c in w.spec.ops if isinstance(c, Check) and c.value in names and c not in body]
    for o in w.spec.ops:
        if o in body:
            b.value(o, 2, persistent=False)
    return body


def _deps(spec: KernelSpec, names: Sequence[str], expand: str | None = None) -> list[Op]:
    """The ops needed to compute ``names``, in spec order; a reduction's operands are
    followed only for ``expand`` (others are computed once, outside)."""
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
        stack += [s.payload for e in o.expressions for s in e.free_symbols if s.payload in values]
    return [o for o in spec.ops if o.name in need]
