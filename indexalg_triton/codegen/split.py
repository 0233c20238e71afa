"""Split reductions: several programs per block of x, each reducing one chunk of r.

A reduction with few programs (a column reduction over many rows, a few long rows) leaves
most streaming multiprocessors idle or with too few loads in flight.  A *split* reduction
runs it as two kernels over a float32 workspace ``ws[s, x]`` (``s < SPLIT``):

1. the *partial* kernel: the spec with a new outermost pointwise loop ``s`` and the
   reduction loop cut into ``SPLIT`` chunks (``r = s*chunk + r'``, ``r' < chunk``); it
   computes every reduction over its chunk and stores it into the reduction's workspace;
2. the *combine* kernel: the spec's pointwise loops, a reduction over ``s``: it loads the
   partials, reduces them with the same kind (a sum of partial sums, a max of partial
   maxima) and computes the rest of the spec (the values after the reductions) and its
   stores, unchanged.

No atomics: every partial is written once and read once, in a fixed order, so the result is
deterministic (the summation order differs from the one-kernel reduction's, as any blocking
does).  :func:`splittable` says when the rewrite is exact in this sense: every reduction a
float ``sum`` or ``max`` of an inner value, no inner value stored or computed from a
reduction result (a softmax normalises inner values by its reductions: not splittable), no
reduction of a reduction, and ``SPLIT`` dividing the reduction's length.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from indexalg.expr import Expr, Symbol, add, integer, mul
from indexalg_triton.layout import View
from indexalg_triton.spec import Buffer, Check, KernelSpec, Load, Op, Reduction, Store, is_float

__all__ = ["SplitSpecs", "split_specs", "splittable"]


@dataclass(frozen=True)
class SplitSpecs:
    """The two kernels of a split reduction and the workspaces between them (outputs of
    ``partial``, inputs of ``combine``, allocated per launch)."""

    partial: KernelSpec
    combine: KernelSpec
    workspaces: tuple[Buffer, ...]
    split: int
    chunk: int


def splittable(spec: KernelSpec) -> str | None:
    """None when :func:`split_specs` applies to ``spec`` (for some split), else the reason."""
    if spec.reduction is None:
        return "not a reduction"
    inner = spec.inner_values()
    reductions = [o for o in spec.ops if o.reduces]
    for o in reductions:
        if not isinstance(o, Reduction):
            return f"{o.kind} {o.name} is not a sum or max"
        if not is_float(o.dtype):
            return f"{o.kind} {o.name} is not a float reduction"
    red_values = {o.name for o in reductions}
    after = _closure(spec, red_values)
    for o in spec.ops:
        if o.name in after and o.name in inner:
            return f"the inner value {o.name} depends on a reduction"
        if o.reduces and any(a in after for a in o.args if isinstance(a, str)):
            return f"{o.name} reduces a value computed from a reduction"
    for st in spec.stores:
        if st.value in inner:
            return f"the inner value {st.value} is stored"
    return None


def _closure(spec: KernelSpec, roots: set[str]) -> set[str]:
    """The values computed from ``roots`` (the roots included)."""
    out = set(roots)
    for o in spec.ops:
        syms = {s.payload for e in o.expressions for s in e.free_symbols}
        if any(isinstance(a, str) and a in out for a in o.args) or syms & out:
            out.add(o.name)
    return out


def _needed(spec: KernelSpec, roots: list[str], stop_at_reductions: bool) -> list[Op]:
    """The ops the values ``roots`` are computed from, in spec order (a reduction's operands
    are not followed when ``stop_at_reductions``)."""
    values = {v for p in spec.ops for v in p.values}
    need: set[str] = set()
    stack = list(roots)
    while stack:
        o = spec.op(stack.pop())
        if o.name in need:
            continue
        need.add(o.name)
        if o.reduces and stop_at_reductions:
            continue
        stack += [a for a in o.args if isinstance(a, str)]
        stack += [s.payload for e in o.expressions for s in e.free_symbols if s.payload in values]
    checks = [o.name for o in spec.ops if isinstance(o, Check) and o.value in need]
    need |= set(checks)
    return [o for o in spec.ops if o.name in need]


def _reads(o: Op, buffer: str) -> bool:
    return isinstance(o, Load) and o.buffer == buffer


def _fresh(spec: KernelSpec, base: str, taken: set[str]) -> str:
    name = base
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _taken(spec: KernelSpec) -> set[str]:
    names = {spec.name, *(n for n, _ in spec.loops), *(b.name for b in spec.buffers)}
    if spec.reduction is not None:
        names.add(spec.reduction[0])
    for o in spec.ops:
        names |= set(o.values) | {o.name}
    return names


def _x_flat(spec: KernelSpec) -> tuple[Expr, int]:
    """The row-major flat index of the pointwise loops, and their number of points."""
    e: Expr = integer(0)
    n = 1
    for name, size in reversed(spec.loops):
        e = add(e, mul(integer(n), Symbol(name)))
        n *= size
    return e, n


def split_specs(spec: KernelSpec, split: int) -> SplitSpecs:
    """The partial and combine kernels of ``spec`` split ``split`` ways (see the module
    docstring); :func:`splittable` must hold and ``split`` divide the reduction's length."""
    why = splittable(spec)
    assert spec.reduction is not None and why is None, why
    rname, rnumel = spec.reduction
    assert split >= 2 and rnumel % split == 0, (split, rnumel)
    chunk = rnumel // split
    taken = _taken(spec)
    s = _fresh(spec, "rsplit", taken)
    xflat, xnumel = _x_flat(spec)
    reductions = [o for o in spec.ops if o.reduces]
    ws = tuple(
        Buffer(_fresh(spec, f"ws{i}", taken), View.of([split, xnumel]), False)
        for i in range(len(reductions))
    )
    ws_index = add(mul(integer(xnumel), Symbol(s)), xflat)
    # 1. partial: r = s*chunk + r', every reduction stored into its workspace
    shift: dict[Expr, Expr | int] = {
        Symbol(rname): add(mul(integer(chunk), Symbol(s)), Symbol(rname))
    }
    ops1: list[Op] = []
    for o in _needed(spec, [o.name for o in reductions], stop_at_reductions=False):
        o = o.subs(shift)
        if isinstance(o, Reduction):
            o = replace(o, dtype="float32")  # the accumulator, not rounded
        ops1.append(o)
    bufs1 = tuple(b for b in spec.inputs if any(_reads(o, b.name) for o in ops1))
    partial = KernelSpec(
        _fresh(spec, f"{spec.name}_partial", taken),
        ((s, split), *spec.loops),
        (rname, chunk),
        (*bufs1, *(Buffer(w.name, w.view, True) for w in ws)),
        tuple(ops1),
        tuple(Store(w.name, ws_index, o.name) for w, o in zip(ws, reductions)),
    )
    # 2. combine: a reduction over s of each workspace, then the rest of the spec
    ops2: list[Op] = []
    by_red = dict(zip((o.name for o in reductions), ws))
    for o in _needed(spec, [st.value for st in spec.stores], stop_at_reductions=True):
        if isinstance(o, Reduction):
            w = by_red[o.name]
            load = _fresh(spec, f"{o.name}_part", taken)
            ops2.append(Load(load, "float32", w.name, ws_index))
            ops2.append(Reduction(o.name, o.kind, load, o.dtype))
        else:
            ops2.append(o)
    used = {o.buffer for o in ops2 if isinstance(o, Load)} | {st.buffer for st in spec.stores}
    bufs2 = tuple(b for b in spec.buffers if b.name in used)
    combine = KernelSpec(
        _fresh(spec, f"{spec.name}_combine", taken),
        spec.loops,
        (s, split),
        (*ws, *bufs2),
        tuple(ops2),
        spec.stores,
    )
    return SplitSpecs(partial, combine, ws, split, chunk)
