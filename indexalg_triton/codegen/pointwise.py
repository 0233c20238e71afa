"""Pointwise kernels: the shared tiling at the config's block sizes, one plan per direct
access, the index dtype over every index, then the program ids, the masks and the ops in
spec order (loads by their plans, indirect loads as pointers), then the stores."""

from __future__ import annotations

import math
from dataclasses import dataclass

from indexalg.expr import Expr, Symbol
from indexalg.simplify import simplify
from indexalg_triton.access import AccessPlan, plan_access
from indexalg_triton.codegen import memory
from indexalg_triton.codegen.configs import (
    KernelSource,
    direct_accesses,
    tiling_groups,
    tiling_groups_nd,
)
from indexalg_triton.codegen.values import elementwise, load_cast, operand_axes
from indexalg_triton.codegen.writer import KernelWriter, axes_in, axis_names, const
from indexalg_triton.errors import SpecError
from indexalg_triton.spec import Check, ElementwiseOp, IndexValue, Load, Store
from indexalg_triton.tiling import Tiling, make_tiling

__all__ = ["emit_pointwise"]


@dataclass
class _Tile:
    """The tiling at this config's block sizes and what the body is written under."""

    tiling: Tiling
    names: tuple[str, ...]  # tile axes, x first
    blocks: dict[str, int]  # XBLOCK, ... -> size
    numels: list[int]
    progs: list[int]  # programs per axis
    ranges: dict[str, tuple[int, int]]  # the tile indices and offsets, and index values
    masks: list[str]  # the axes' masks, where a block can overshoot

    @property
    def tile(self) -> list[str]:
        return [f"{n.upper()}BLOCK" for n in self.names]

    @property
    def all_mask(self) -> str | None:
        return " & ".join(self.masks) if self.masks else None


def emit_pointwise(w: KernelWriter) -> KernelSource:
    spec = w.spec
    t = _tile(w)
    accesses, owners = direct_accesses(spec)
    plans = [
        memory.no_unit_block_pointer(a, plan_access(a, t.tiling, allow=_allow(w, ow)), t.tiling)
        for a, ow in zip(accesses, owners)
    ]
    flat = _indirect_indices(w, t)
    padded = [p * t.blocks[b] for p, b in zip(t.progs, t.tile)]
    exprs: list[Expr] = [a.index for a in accesses] + [p.flat_index for p in plans]
    for name, f in flat.items():
        index = _indexed(spec.op(name)).index
        if not index.is_bool:
            exprs += [index, f]
    loop_r = {n: (0, s - 1) for n, s in spec.loops}
    dtype, reason = w.decide_dtype(exprs, {**loop_r, **t.ranges}, [*padded, math.prod(padded)])
    w.index_dtype = dtype
    if dtype == "int64":
        plans = [memory.fit_int32(a, p, t.tiling) for a, p in zip(accesses, plans)]
    w.header(
        list(t.blocks),
        [
            f"tiling: {t.tiling.describe()}; config {w.cfg.describe()}",
            f"index dtype: {dtype} ({reason})",
        ],
    )
    _prologue(w, t)
    _body(w, t, {id(ow): p for ow, p in zip(owners, plans)}, flat)
    return w.finish(math.prod(t.progs), dtype, reason, t.tiling.describe())


def _allow(w: KernelWriter, owner: object) -> tuple[str, ...]:
    """Structured kinds allowed for one access: none for a guarded load (its guard is a
    mask a descriptor or block pointer cannot apply)."""
    return () if isinstance(owner, Load) and owner.guard is not None else w.allow


def _tile(w: KernelWriter) -> _Tile:
    spec = w.spec
    groups = tiling_groups(spec, w.kinds)
    if w.cfg.flat:
        groups = (tuple(n for n, _ in spec.loops),)
    elif w.cfg.nd:
        groups = tiling_groups_nd(spec, w.kinds)
    names = axis_names(len(groups))
    blocks = {f"{n.upper()}BLOCK": w.cfg.block(f"{n.upper()}BLOCK") for n in names}
    tiling = make_tiling(list(spec.loops), [list(g) for g in groups], blocks)
    numels = [const(ax.numel) for ax in tiling.axes]
    bl = [blocks[f"{n.upper()}BLOCK"] for n in names]
    progs = [-(-n // b) for n, b in zip(numels, bl)]
    padded = [p * b for p, b in zip(progs, bl)]
    ranges: dict[str, tuple[int, int]] = {f"{n}index": (0, p - 1) for n, p in zip(names, padded)}
    ranges.update({f"{n}offset": (0, p - 1) for n, p in zip(names, padded)})
    ranges.update(w.value_ranges())
    masks = [f"{n}mask" for n, num, b in zip(names, numels, bl) if num % b]
    return _Tile(tiling, names, blocks, numels, progs, ranges, masks)


def _indirect_indices(w: KernelWriter, t: _Tile) -> dict[str, Expr]:
    """The indices of indirect loads, then of ``index`` ops, over the tile axes (by op
    name); sets the guards of guarded loads likewise."""
    spec = w.spec
    subst = t.tiling.substitution()
    out: dict[str, Expr] = {}
    indirect: list[Load | IndexValue] = [
        o for o in spec.ops if isinstance(o, Load) and spec.indirect_symbols(o)
    ]
    for o in [*indirect, *(o for o in spec.ops if isinstance(o, IndexValue))]:
        out[o.name] = simplify(o.index.subs(subst), t.ranges)  # type: ignore[arg-type]
    w.guard_flat = {
        o.name: simplify(o.guard.subs(subst), t.ranges)  # type: ignore[arg-type]
        for o in spec.ops
        if isinstance(o, Load) and o.guard is not None
    }
    return out


def _indexed(o: object) -> Load | IndexValue:
    assert isinstance(o, (Load, IndexValue))
    return o


def _prologue(w: KernelWriter, t: _Tile) -> None:
    """Numels, the program id and the tile indices, the masks, the loops as digits."""
    for n, num in zip(t.names, t.numels):
        w.emit(f"{n}numel = {num}")
    pid = "tl.program_id(0)" + (".to(tl.int64)" if w.index_dtype == "int64" else "")
    if w.part:
        pid += " - pid_base"
    w.emit(f"pid = {pid}")
    if len(t.names) == 1:
        w.emit("xoffset = pid * XBLOCK")
        w.emit("xindex = xoffset + tl.arange(0, XBLOCK)")
    else:
        w.emit(f"xoffset = (pid % {t.progs[0]}) * XBLOCK")
        w.emit(f"yoffset = (pid // {t.progs[0]}) * YBLOCK")
        w.emit("xindex = xoffset + tl.arange(0, XBLOCK)[:, None]")
        w.emit("yindex = yoffset + tl.arange(0, YBLOCK)[None, :]")
    for n in t.names:
        if f"{n}mask" in t.masks:
            w.emit(f"{n}mask = {n}index < {n}numel")
    w.digits_comment(t.tiling.substitution())


def _body(w: KernelWriter, t: _Tile, plan_of: dict[int, AccessPlan], flat: dict[str, Expr]) -> None:
    """The ops in spec order, then the stores."""
    for o in w.spec.ops:
        if isinstance(o, Load) and id(o) in plan_of:
            memory.load(w, o, plan_of[id(o)], t.tile, t.ranges, t.names)
        elif isinstance(o, Load):
            _indirect_load(w, t, o, flat[o.name])
        elif isinstance(o, IndexValue):
            w.emit(f"# index {o.index}")
            w.emit(f"{o.name} = {w.print(flat[o.name], t.ranges)}")
            w.reg[o.name] = o.dtype if o.dtype == "bool" else w.index_dtype
            w.axes_of[o.name] = axes_in(flat[o.name], t.names)
        elif isinstance(o, Check):
            w.check(o, t.all_mask, t.ranges, 1)
        elif isinstance(o, ElementwiseOp):
            w.emit(f"{o.name} = {elementwise(w, o)}")
            w.axes_of[o.name] = operand_axes(w, o)
        else:  # pragma: no cover - a pointwise spec has no reductions (KernelSpec checks)
            raise SpecError(f"{o.kind} {o.name} in a pointwise kernel")
    for st in w.spec.stores:
        assert isinstance(st, Store)
        memory.store(w, st, plan_of[id(st)], t.tile, t.ranges, t.names)


def _indirect_load(w: KernelWriter, t: _Tile, o: Load, flat: Expr) -> None:
    """A load whose index reads loaded values: a pointer load, masked by the masks of the
    axes it spans (all of them if none)."""
    mask = (
        " & ".join(
            f"{n}mask"
            for n in t.names
            if f"{n}mask" in t.masks and Symbol(f"{n}index") in flat.free_symbols
        )
        or t.all_mask
    )
    w.emit(f"# load {o.buffer}[{o.index}]: pointer (indirect)")
    if o.guard is not None:
        g = w.print(w.guard_flat[o.name], t.ranges)
        mask = f"{mask} & ({g})" if mask else f"({g})"
    m = f", {mask}, other=0" if o.guard is not None else (f", {mask}" if mask else "")
    cast = load_cast(w, o.name, o.dtype)
    w.emit(f"{o.name} = tl.load({o.buffer} + ({w.print(flat, t.ranges)}){m}){cast}")
    w.kinds_used.append("pointer")
    w.axes_of[o.name] = axes_in(flat, names=t.names)
