"""Loads and stores of a pointwise kernel, by their access plans.

A pointer access is ``ptr + flat_index`` with the plan's masks.  A structured access (a
tensor descriptor or a block pointer) goes through one emitter, :func:`structured`, for
loads and stores alike; the chain that brings a loaded block to the tile's shape (permute,
reshape, broadcast, slices) is undone, in reverse, before a structured store.  Every access
is preceded by a comment with its index, its kind and why each richer kind was not used.

Two adjustments of the planner's choice happen here, where the config is known:
:func:`no_unit_block_pointer` (block pointers Triton 3.6 fails to compile) and
:func:`fit_int32` (structured coordinates are int32).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from indexalg.expr import Expr, Integer
from indexalg_triton.access import Access, AccessPlan, plan_access
from indexalg_triton.codegen.values import load_cast, store_cast
from indexalg_triton.codegen.writer import (
    EVICT_LAST,
    IndexRanges,
    KernelWriter,
    axes_in,
    expr_list,
)
from indexalg_triton.spec import Load, Store
from indexalg_triton.tiling import Tiling

__all__ = ["fit_int32", "load", "no_unit_block_pointer", "store", "structured"]

_INT32_MAX = 2**31 - 1


def no_unit_block_pointer(a: Access, p: AccessPlan, tiling: Tiling) -> AccessPlan:
    """A block pointer whose block holds one element fails to compile on Triton 3.6
    (TritonRewriteTensorPointer: "mask type matches ptr type", seen on an H200); such an
    access is a pointer access.  So is a 16-bit block-pointer load whose broadcast is
    restored by reshapes (gelu_bias_residual's bf16 bias: "PassManager::run failed" on
    Triton 3.6, H200)."""
    if p.kind != "block_pointer":
        return p
    if all(type(b) is Integer and b.payload == 1 for b in p.block_shape):
        why = "a one-element block (Triton 3.6 fails to compile it)"
    elif p.broadcast_shape is not None and a.dtype in ("bfloat16", "float16"):
        why = "a 16-bit block restored by reshape and broadcast (Triton 3.6 fails to compile it)"
    else:
        return p
    q = plan_access(a, tiling, allow=())
    return replace(q, reasons=(*p.reasons, f"block_pointer: {why}"))


def fit_int32(a: Access, p: AccessPlan, tiling: Tiling) -> AccessPlan:
    """A structured plan in an int64 kernel stays only if its coordinates fit int32."""
    if p.kind == "pointer":
        return p
    if all(type(s) is Integer and s.payload <= _INT32_MAX for s in p.shape):
        return p
    q = plan_access(a, tiling, allow=())
    return replace(
        q,
        reasons=(
            *q.reasons,
            f"{p.kind}: a dimension passes int32 coordinates in this int64 kernel",
        ),
    )


def _plan_comment(w: KernelWriter, what: str, p: AccessPlan, depth: int) -> None:
    w.emit(f"# {what}: {p.kind}", depth)
    for r in p.reasons:
        w.emit(f"#   why not: {r}", depth)


def _offsets(w: KernelWriter, p: AccessPlan, ranges: IndexRanges) -> str:
    """Structured-access coordinates are int32 in Triton; in an int64 kernel they are
    narrowed (each fits: :func:`fit_int32` kept only such plans)."""
    texts = [w.print(o, ranges) for o in p.offsets]
    if w.index_dtype == "int64":
        texts = [
            t if type(o) is Integer else f"({t}).to(tl.int32)" for t, o in zip(texts, p.offsets)
        ]
    return ", ".join(texts)


def _spread(p: AccessPlan, tile: Sequence[str], names: Sequence[str]) -> str:
    """A masked pointer access whose index mentions no tile axis (a loop of size 1 folds
    the index to a constant) needs a pointer tile the mask's shape: `` + tl.full(...)``
    (not ``tl.zeros``: a jit function, which the interpreter cannot call when triton was
    imported before ``TRITON_INTERPRET`` was set)."""
    if not p.mask or axes_in(p.flat_index, names):
        return ""
    return _full(tile)


def _full(tile: Sequence[str]) -> str:
    return f" + tl.full([{', '.join(tile)}], 0, tl.int32)"


def _base(buffer: str, p: AccessPlan) -> str:
    if type(p.base_offset) is Integer and p.base_offset.payload == 0:
        return buffer
    return f"{buffer} + {p.base_offset}"


def structured(
    w: KernelWriter,
    p: AccessPlan,
    buffer: str,
    ranges: IndexRanges,
    name: str,
    *,
    value: str | None = None,
) -> None:
    """One structured access of ``buffer`` by plan ``p``: a load into ``name``, or (with
    ``value``) a store of ``value``; a descriptor is named ``{name}_desc``."""
    args = f"{_base(buffer, p)}, shape={expr_list(p.shape)}, strides={expr_list(p.strides)}"
    block = expr_list(p.block_shape)
    offs = _offsets(w, p, ranges)
    if p.kind == "tensor_descriptor":
        w.emit(f"{name}_desc = tl.make_tensor_descriptor({args}, block_shape={block})")
        w.emit(
            f"{name} = {name}_desc.load([{offs}])"
            if value is None
            else f"{name}_desc.store([{offs}], {value})"
        )
        return
    ptr = f"tl.make_block_ptr({args}, offsets=[{offs}], block_shape={block}, order={list(p.order)})"
    if not p.boundary_check:
        # a block wholly inside its tensor: no check and no padding (Triton 3.6 fails to
        # compile a padding option without a boundary check: "'tt.load' op failed to
        # verify that mask type matches ptr type", seen on nhwc_bias_relu's bias load)
        w.emit(f"{name} = tl.load({ptr})" if value is None else f"tl.store({ptr}, {value})")
        return
    check = f"boundary_check={list(p.boundary_check)}"
    w.emit(
        f'{name} = tl.load({ptr}, {check}, padding_option="zero")'
        if value is None
        else f"tl.store({ptr}, {value}, {check})"
    )


def load(
    w: KernelWriter,
    o: Load,
    p: AccessPlan,
    tile: list[str],
    ranges: IndexRanges,
    names: Sequence[str],
) -> None:
    """A direct load by its plan; records the tile axes the loaded value spans."""
    _plan_comment(w, f"load {o.buffer}[{o.index}]", p, 1)
    w.kinds_used.append(p.kind)
    cast = load_cast(w, o.name, o.dtype)
    if p.kind == "pointer":
        _pointer_load(w, o, p, tile, ranges, names, cast)
        return
    v = o.name
    structured(w, p, o.buffer, ranges, v)
    for step in _after_load(p, v):
        w.emit(f"{v} = {step}")
    if cast:
        w.emit(f"{v} = {v}{cast}")
    if p.slices is not None:
        parts = p.slices[1:-1].split(", ")
        w.axes_of[v] = frozenset(i for i, s in enumerate(parts) if s != "None")
    else:
        w.axes_of[v] = frozenset(range(len(tile)))


def _after_load(p: AccessPlan, v: str) -> list[str]:
    """The steps that bring the loaded block ``v`` to the tile's shape."""
    steps = []
    if p.permute is not None:
        steps.append(f"tl.permute({v}, {tuple(p.permute)})")
    if p.reshape is not None:
        steps.append(f"tl.reshape({v}, {expr_list(p.reshape)})")
    if p.broadcast_shape is not None:
        steps.append(f"tl.broadcast_to({v}, {expr_list(p.broadcast_shape)})")
    if p.final_shape is not None:
        steps.append(f"tl.reshape({v}, {expr_list(p.final_shape)})")
    if p.slices is not None:
        steps.append(f"{v}{p.slices}")
    return steps


def _pointer_load(
    w: KernelWriter,
    o: Load,
    p: AccessPlan,
    tile: list[str],
    ranges: IndexRanges,
    names: Sequence[str],
    cast: str,
) -> None:
    masks = list(p.mask)
    spread = _spread(p, tile, names)
    if o.guard is not None:
        gflat = w.guard_flat[o.name]
        masks.append(f"({w.print(gflat, ranges)})")
        if not axes_in(gflat, names) <= axes_in(p.flat_index, names):
            spread = _full(tile)
    m = f", {' & '.join(masks)}" if masks else ""
    if o.guard is not None:
        m += ", other=0"
    if w.evict_last(o):
        m += EVICT_LAST
    w.emit(f"{o.name} = tl.load({o.buffer} + ({w.print(p.flat_index, ranges)}){spread}{m}){cast}")
    w.axes_of[o.name] = frozenset(range(len(tile))) if spread else axes_in(p.flat_index, names)


def store(
    w: KernelWriter,
    st: Store,
    p: AccessPlan,
    tile: list[str],
    ranges: IndexRanges,
    names: Sequence[str],
) -> None:
    """A store by its plan: the value broadcast to the tile, then the load-side chain
    undone (tile -> the kept blocks in tile order -> descriptor order)."""
    buf = w.spec.buffer(st.buffer)
    _plan_comment(w, f"store {st.buffer}[{st.index}]", p, 1)
    w.kinds_used.append(p.kind)
    val = store_cast(w, st.value, buf.dtype)
    if p.kind == "pointer":
        m = f", {' & '.join(p.mask)}" if p.mask else ""
        spread = _spread(p, tile, names)
        w.emit(f"tl.store({st.buffer} + ({w.print(p.flat_index, ranges)}){spread}, {val}{m})")
        return
    v = f"{st.value}_out"
    full = w.axes_of.get(st.value, frozenset()) == frozenset(range(len(tile)))
    w.emit(f"{v} = {val}" if full else f"{v} = tl.broadcast_to({val}, [{', '.join(tile)}])")
    for step in _before_store(p, v):
        w.emit(f"{v} = {step}")
    structured(w, p, st.buffer, ranges, v, value=v)


def _before_store(p: AccessPlan, v: str) -> list[str]:
    """The load-side chain undone, for a store of ``v``."""
    steps = []
    tile_order: list[Expr] = list(p.block_shape)
    if p.permute is not None:
        tile_order = [p.block_shape[i] for i in p.permute]
    if p.final_shape is not None:
        steps.append(f"tl.reshape({v}, {expr_list(tuple(tile_order))})")
    if p.permute is not None:
        perm = p.permute
        inv = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
        steps.append(f"tl.permute({v}, {inv})")
    return steps
