"""Access plans: how one load or store reads its index under a tiling.

Per access, the richest kind the target allows and the access satisfies:

* ``tensor_descriptor`` (``tl.make_tensor_descriptor``): rank <= 5; after ordering the
  dimensions by descending stride (a transpose, undone by ``tl.permute`` after the load) the
  last stride is 1 and every other stride times the element size is a multiple of 16 bytes;
  the base offset is 16-byte aligned; block dimensions are powers of two with the innermost
  block at least 16 bytes and at most 2^20 elements (conditions on symbolic block sizes are
  returned as ``requirements``); out-of-range elements are padded, so no boundary checks;
* ``block_pointer`` (``tl.make_block_ptr``): any strides, boundary checks per dimension;
* ``pointer``: ``ptr + flat_index`` with masks (always possible).

Structured kinds need the access to decompose (indexalg.iter_map) with non-negative strides,
and each tile axis read through several dimensions (a reshaped block) to have power-of-two
inner extents (a power-of-two block reshapes into them).  Stride-0 dimensions are removed from
the structured access and restored after the load: by ``[None, :]`` slices where a whole
tile axis is missing, else by reshape -> broadcast -> reshape, each step emitted only when it
changes the shape.  A store cannot broadcast: a store with stride-0 dimensions is a pointer
store.  Boundary checks go only on dimensions that can leave their range (an axis' outermost
dimension, unless its known block size divides its numel).  Block shapes and offsets are
simplified, so known block sizes fold ``Min`` and ``CeilDiv``.  ``reasons`` says why each
richer kind was not used.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from indexalg.expr import (
    CeilDiv,
    Expr,
    FloorDiv,
    Integer,
    Max,
    Min,
    Mod,
    ModularIndexing,
    Where,
    as_expr,
    integer,
    mul,
)
from indexalg.iter_map import IterMap, decompose
from indexalg.parse import parse
from indexalg.poly import divide_exact
from indexalg.ranges import RangeSpec
from indexalg.simplify import simplify
from indexalg_triton.errors import ConfigError
from indexalg_triton.layout import dtype_bytes
from indexalg_triton.tiling import AxisDim, Tiling, axis_dims

__all__ = [
    "KINDS",
    "STRUCTURED_KINDS",
    "Access",
    "AccessPlan",
    "parse_allow",
    "plan_access",
    "plan_accesses",
    "supported_kinds",
]

STRUCTURED_KINDS = ("tensor_descriptor", "block_pointer")
KINDS = (*STRUCTURED_KINDS, "pointer")
_ZERO = integer(0)
_ONE = integer(1)
_Shape = tuple[Expr, ...]
_OPS = (FloorDiv, Mod, ModularIndexing, CeilDiv, Min, Max, Where)
_MAX_DESCRIPTOR_RANK = 5
_MAX_DESCRIPTOR_BLOCK = 1 << 20


@functools.lru_cache(maxsize=1)
def supported_kinds() -> tuple[str, ...]:
    """The structured kinds the installed Triton supports, found by probing the feature:
    ``tl.make_tensor_descriptor`` exists; ``tl.make_block_ptr`` exists and does not raise
    NotImplementedError (Triton 3.9 removed block pointers but kept the name).  () without
    Triton."""
    try:
        import triton.language as tl
    except ImportError:
        return ()
    out: list[str] = []
    if hasattr(tl, "make_tensor_descriptor"):
        out.append("tensor_descriptor")
    if hasattr(tl, "make_block_ptr"):
        try:
            tl.make_block_ptr(None, [], [], [], [], [], _semantic=object())
        except NotImplementedError:
            pass
        except Exception:  # any other failure: the builtin exists and did real work
            out.append("block_pointer")
        else:
            out.append("block_pointer")
    return tuple(out)


def parse_allow(text: str) -> tuple[str, ...]:
    """``"tensor_descriptor,block_pointer"`` -> the kinds (``""`` or ``"none"``: none)."""
    names = [p.strip() for p in text.split(",") if p.strip()]
    if names == ["none"]:
        return ()
    for n in names:
        if n not in STRUCTURED_KINDS:
            raise ConfigError(
                f"unknown access kind {n!r} in --allow (known: {', '.join(STRUCTURED_KINDS)})"
            )
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class Access:
    """A load (or store, ``store=True``) of ``dtype`` elements at ``index``."""

    index: Expr
    dtype: str = "float32"
    store: bool = False

    @staticmethod
    def of(index: Expr | str, dtype: str = "float32", *, store: bool = False) -> Access:
        e = parse(index) if isinstance(index, str) else as_expr(index)
        dtype_bytes(dtype)
        return Access(e, dtype, store)


@dataclass(frozen=True)
class AccessPlan:
    """How one access is done.  Structured fields are in the access' dimension order (for a
    descriptor: after the transpose ``permute``); for a pointer plan ``shape``/``strides``
    list the decomposed dimensions (if any), ``block_shape`` the tile and ``offsets`` is empty.
    """

    kind: str
    flat_index: Expr
    shape: tuple[Expr, ...]
    strides: tuple[Expr, ...]
    block_shape: tuple[Expr, ...]
    offsets: tuple[Expr, ...]
    base_offset: Expr = _ZERO
    order: tuple[int, ...] = ()
    boundary_check: tuple[int, ...] = ()
    permute: tuple[int, ...] | None = None
    reshape: tuple[Expr, ...] | None = None
    broadcast_shape: tuple[Expr, ...] | None = None
    final_shape: tuple[Expr, ...] | None = None
    slices: str | None = None
    mask: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()
    dims: tuple[tuple[AxisDim, ...], ...] | None = field(default=None, compare=False)
    ops: int = 0

    @property
    def broadcast(self) -> bool:
        """Whether a ``tl.broadcast_to`` restores removed (stride-0) dimensions."""
        return self.broadcast_shape is not None

    @property
    def steps(self) -> int:
        """Reshape, broadcast and permute steps after the load."""
        chain = (self.reshape, self.broadcast_shape, self.final_shape, self.permute)
        return sum(1 for s in chain if s is not None)

    def to_json(self) -> dict[str, object]:
        def exprs(xs: Sequence[Expr] | None) -> list[int | str] | None:
            return None if xs is None else [_jsonable(x) for x in xs]

        return {
            "kind": self.kind,
            "shape": exprs(self.shape),
            "strides": exprs(self.strides),
            "block_shape": exprs(self.block_shape),
            "offsets": exprs(self.offsets),
            "base_offset": _jsonable(self.base_offset),
            "order": list(self.order),
            "boundary_check": list(self.boundary_check),
            "permute": None if self.permute is None else list(self.permute),
            "broadcast": self.broadcast,
            "reshape": exprs(self.reshape),
            "broadcast_shape": exprs(self.broadcast_shape),
            "final_shape": exprs(self.final_shape),
            "slices": self.slices,
            "index": str(self.flat_index),
            "mask": list(self.mask),
            "reasons": list(self.reasons),
            "requirements": list(self.requirements),
        }


def _jsonable(e: Expr) -> int | str:
    return e.payload if type(e) is Integer else str(e)


def _size_ranges(tiling: Tiling) -> dict[str, RangeSpec]:
    syms = sorted({s.payload for _, n in tiling.loops for s in n.free_symbols})
    return {s: (1, None) for s in syms}


def plan_accesses(
    accesses: Sequence[Access], tiling: Tiling, *, allow: Sequence[str] | None = None
) -> list[AccessPlan]:
    """:func:`plan_access` for each access."""
    return [plan_access(a, tiling, allow=allow) for a in accesses]


def plan_access(
    access: Access, tiling: Tiling, *, allow: Sequence[str] | None = None
) -> AccessPlan:
    """The plan for one access under ``tiling``; ``allow`` lists the structured kinds the
    target supports (None: :func:`supported_kinds`)."""
    kinds = supported_kinds() if allow is None else tuple(allow)
    for k in kinds:
        if k not in STRUCTURED_KINDS:
            raise ConfigError(f"unknown access kind {k!r}")
    sizes = _size_ranges(tiling)
    loop_ranges: dict[str, RangeSpec] = {**sizes, **{n: s for n, s in tiling.loops}}
    axis_ranges: dict[str, RangeSpec] = dict(sizes)
    axis_ranges.update({ax.index.payload: ax.numel for ax in tiling.axes})
    flat = simplify(access.index.subs(tiling.substitution()), axis_ranges)
    ops = sum(1 for n in flat.walk() if type(n) in _OPS)
    mask = tuple(f"{ax.name}mask" for a, ax in enumerate(tiling.axes) if _may_overshoot(tiling, a))
    tile_blocks = tuple(tiling.block(a) for a in range(tiling.ndim))
    m = decompose(access.index, loop_ranges, [n for n, _ in tiling.loops])
    if not m.ok:
        return AccessPlan(
            "pointer",
            flat,
            (),
            (),
            tile_blocks,
            (),
            mask=mask,
            reasons=(f"no block: {m.why}",),
            ops=ops,
        )
    dims = axis_dims(m, tiling)
    all_dims = [d for ds in dims for d in ds]
    pointer = AccessPlan(
        "pointer",
        flat,
        tuple(d.extent for d in all_dims),
        tuple(d.stride for d in all_dims),
        tile_blocks,
        (),
        mask=mask,
        dims=tuple(tuple(ds) for ds in dims),
        ops=ops,
    )
    why = _structured_obstacle(access, dims)
    if why is not None:
        return _with_reasons(pointer, [why] if kinds else [])
    block = _Block.build(tiling, dims, m)
    reasons: list[str] = []
    for kind in STRUCTURED_KINDS:
        if kind not in kinds:
            continue
        plan = block.plan(kind, access, pointer, reasons)
        if plan is not None:
            return plan
    return _with_reasons(pointer, reasons)


def _with_reasons(p: AccessPlan, reasons: Sequence[str]) -> AccessPlan:
    return replace(p, reasons=tuple(reasons))


def _may_overshoot(tiling: Tiling, a: int) -> bool:
    """Whether the last block of axis ``a`` can pass its numel."""
    b = tiling.block(a)
    n = tiling.axes[a].numel
    return not (type(b) is Integer and type(n) is Integer and n.payload % b.payload == 0)


def _structured_obstacle(access: Access, dims: list[list[AxisDim]]) -> str | None:
    """Why no structured access can do this one (None: nothing in the way)."""
    for ds in dims:
        for d in ds:
            if type(d.stride) is Integer and d.stride.payload < 0:
                return f"stride {d.stride} is negative"
    if access.store and any(d.stride is _ZERO for ds in dims for d in ds):
        return "a store through a stride-0 dimension writes one address from several lanes"
    if all(d.stride is _ZERO for ds in dims for d in ds):
        return "the access reads one address per tile (a scalar load)"
    for ds in dims:
        for d in ds[1:]:
            e = d.extent
            if type(e) is not Integer or e.payload & (e.payload - 1):
                shape = ", ".join(str(x.extent) for x in ds)
                return (
                    f"a tile axis reads a ({shape}) block whose inner extent {e} is not a "
                    "power of two: a power-of-two block cannot be reshaped into it"
                )
    return None


@dataclass
class _Block:
    """The structured block: full dimensions per axis, the kept ones, their blocks."""

    tiling: Tiling
    dims: list[list[AxisDim]]
    blocks: list[list[Expr]]
    offsets: list[list[Expr]]
    base: Expr

    @staticmethod
    def build(tiling: Tiling, dims: list[list[AxisDim]], m: IterMap) -> _Block:
        blocks: list[list[Expr]] = []
        offsets: list[list[Expr]] = []
        for a, ds in enumerate(dims):
            b = tiling.block(a)
            off = tiling.axes[a].offset
            rng: dict[Expr, object] = {off: (0, None)}
            if type(b) is not Integer:
                rng[b] = (1, None)
            bl: list[Expr] = []
            of: list[Expr] = []
            for k, d in enumerate(ds):
                s = d.divisor
                if len(ds) == 1:
                    bl.append(b)
                    of.append(off)
                    continue
                per = b if s is _ONE else CeilDiv.make(b, s)
                bl.append(per if k == 0 else Min.make(d.extent, per))
                if k == 0:
                    of.append(off if s is _ONE else FloorDiv.make(off, s))
                elif type(b) is Integer and b.payload % _int(mul(s, d.extent), 0) == 0:
                    of.append(_ZERO)  # the offset is a multiple of the block: digit 0
                else:
                    of.append(ModularIndexing.make(off, s, d.extent))
            blocks.append([simplify(x, rng) for x in bl])  # type: ignore[arg-type]
            offsets.append([simplify(x, rng) for x in of])  # type: ignore[arg-type]
        return _Block(tiling, dims, blocks, offsets, m.offset)

    def kept(self) -> list[tuple[AxisDim, Expr, Expr, bool]]:
        """(dim, block, offset, needs a boundary check) of the non-stride-0 dims, in order."""
        out = []
        for a, ds in enumerate(self.dims):
            for k, d in enumerate(ds):
                if d.stride is _ZERO:
                    continue
                check = k == 0 and _may_overshoot(self.tiling, a)
                out.append((d, self.blocks[a][k], self.offsets[a][k], check))
        return out

    def plan(
        self, kind: str, access: Access, pointer: AccessPlan, reasons: list[str]
    ) -> AccessPlan | None:
        kept = self.kept()
        perm = list(range(len(kept)))
        requirements: list[str] = []
        size = dtype_bytes(access.dtype)
        if kind == "tensor_descriptor":
            perm = sorted(perm, key=lambda i: _stride_key(kept[i][0].stride), reverse=True)
            why = _descriptor_obstacle([kept[i] for i in perm], self.base, size, requirements)
            if access.dtype == "bool":  # Triton's descriptors have no 1-bit element type
                why = "bool elements (Triton's descriptors take no i1 blocks)"
            if why is not None:
                reasons.append(f"tensor_descriptor: {why}")
                return None
        ordered = [kept[i] for i in perm]
        order = tuple(sorted(range(len(ordered)), key=lambda i: _stride_key(ordered[i][0].stride)))
        reshape, bshape, final, slices = self._restore()
        inverse = None
        if perm != sorted(perm):
            inverse = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
        return AccessPlan(
            kind,
            pointer.flat_index,
            tuple(d.extent for d, _, _, _ in ordered),
            tuple(d.stride for d, _, _, _ in ordered),
            tuple(b for _, b, _, _ in ordered),
            tuple(o for _, _, o, _ in ordered),
            base_offset=self.base,
            order=order if kind == "block_pointer" else (),
            boundary_check=tuple(i for i, k in enumerate(ordered) if k[3])
            if kind == "block_pointer"
            else (),
            permute=inverse,
            reshape=reshape,
            broadcast_shape=bshape,
            final_shape=final,
            slices=slices,
            reasons=tuple(reasons),
            requirements=tuple(requirements),
            dims=pointer.dims,
            ops=0,
        )

    def _restore(
        self,
    ) -> tuple[_Shape | None, _Shape | None, _Shape | None, str | None]:
        """(reshape, broadcast_to, final reshape, slices) after the load."""
        loaded: list[Expr] = []
        inter: list[Expr] = []
        target: list[Expr] = []
        final: list[Expr] = []
        absent: list[bool] = []
        for a, ds in enumerate(self.dims):
            live = [k for k, d in enumerate(ds) if d.stride is not _ZERO]
            absent.append(not live)
            if not live:
                inter.append(_ONE)
                target.append(_ONE)
                final.append(_ONE)
                continue
            for k in range(len(ds)):
                blk = self.blocks[a][k]
                loaded.extend([blk] if k in live else [])
                inter.append(blk if k in live else _ONE)
                target.append(blk)
            final.append(self.tiling.block(a))
        simple = all(len(ds) <= 1 for ds in self.dims)
        if simple:
            if not any(absent):
                return None, None, None, None
            return None, None, None, "[" + ", ".join("None" if x else ":" for x in absent) + "]"
        reshape = tuple(inter) if inter != loaded else None
        changed = any(i is not t and not _is_one(t) for i, t in zip(inter, target))
        bshape = tuple(target) if changed else None
        fin = tuple(final) if final != (target if changed else inter) else None
        return reshape, bshape, fin, None


def _is_one(e: Expr) -> bool:
    return e is _ONE


def _int(e: Expr, default: int) -> int:
    return e.payload if type(e) is Integer else default  # type: ignore[no-any-return]


def _stride_key(s: Expr) -> tuple[int, int]:
    """Order of strides: numeric by value; a symbolic stride counts as larger than any."""
    return (0, abs(s.payload)) if type(s) is Integer else (1, 0)


def _multiple_of_16(e: Expr) -> bool:
    if type(e) is Integer:
        return bool(e.payload % 16 == 0)
    return divide_exact(e, integer(16)) is not None


def _descriptor_obstacle(
    dims: list[tuple[AxisDim, Expr, Expr, bool]], base: Expr, size: int, requirements: list[str]
) -> str | None:
    if len(dims) > _MAX_DESCRIPTOR_RANK:
        return f"rank {len(dims)} exceeds {_MAX_DESCRIPTOR_RANK}"
    last = dims[-1][0].stride
    if last is not _ONE:
        return f"no dimension has stride 1 (smallest stride {last})"
    for d, _, _, _ in dims[:-1]:
        if not _multiple_of_16(mul(d.stride, size)):
            return f"stride {d.stride} x {size} bytes is not a multiple of 16 bytes"
    if not _multiple_of_16(mul(base, size)):
        return f"base offset {base} x {size} bytes is not 16-byte aligned"
    inner = dims[-1][1]
    if type(inner) is Integer:
        if inner.payload * size < 16:
            return f"innermost block {inner} x {size} bytes is under 16 bytes"
    elif type(inner) is Min and any(
        type(x) is Integer and x.payload * size < 16 for x in inner.args
    ):
        return f"innermost block {inner} can be under 16 bytes ({size}-byte elements)"
    else:
        requirements.append(f"{inner} >= {-(-16 // size)}")
    total: Expr = mul(*(b for _, b, _, _ in dims))
    if type(total) is Integer:
        if total.payload > _MAX_DESCRIPTOR_BLOCK:
            return f"block of {total} elements exceeds 2^20"
    else:
        requirements.append(f"{total} <= {_MAX_DESCRIPTOR_BLOCK}")
    return None
