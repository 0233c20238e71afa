"""Tilings of a pointwise iteration space, and the choice of one by a cost model.

The iteration space is a list of loops ``(name, size)``, outermost first (sizes may be
symbolic).  A :class:`Tiling` splits it into 1 to 3 groups of adjacent loops; each group is
fused into one tile axis (``x`` for the innermost group, then ``y``, then ``z``) of ``numel``
= the product of its loop sizes, with index ``xindex`` in ``[0, numel)``, block size
``XBLOCK`` and offset ``xoffset`` (a multiple of XBLOCK).  Inside a group, loop ``l`` is the
digit ``(xindex // S_l) mod n_l`` (S_l: the product of the sizes of the loops inside l in the
group); the group's outermost loop is ``xindex // S_l``.  The tile value has one axis per tile
axis, ``x`` first (Inductor's order: ``xindex[:, None]``, ``yindex[None, :]``).

:func:`axis_dims` maps an index's decomposition over the loops (indexalg.iter_map) onto the
axes: each axis' dimensions outermost first, adjacent ones that chain merged, so a
discontiguous view read under a tiling that separates its discontiguous loops gets one
dimension per axis (``x + 9*y``), while one read across a discontinuity keeps several
(a reshaped block).

:func:`choose_tiling` scores every candidate tiling with :func:`tiling_cost` (see there) and
never returns one it predicts slower than 1-D.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from indexalg.errors import InvalidOperationError, RangeError
from indexalg.expr import Expr, FloorDiv, Integer, ModularIndexing, Symbol, as_expr, integer, mul
from indexalg.iter_map import IterMap

if TYPE_CHECKING:
    from indexalg_triton.access import Access, AccessPlan

__all__ = [
    "AXIS_NAMES",
    "AxisDim",
    "TileAxis",
    "Tiling",
    "TilingChoice",
    "axis_dims",
    "candidate_tilings",
    "choose_tiling",
    "tiling_cost",
    "make_tiling",
]

AXIS_NAMES = ("x", "y", "z")
_ONE = integer(1)
_ZERO = integer(0)


@dataclass(frozen=True)
class TileAxis:
    """One tile axis: the loops fused into it (outermost first) and its number of points."""

    name: str
    loops: tuple[str, ...]
    numel: Expr

    @property
    def index(self) -> Expr:
        return Symbol(f"{self.name}index")

    @property
    def offset(self) -> Expr:
        return Symbol(f"{self.name}offset")

    @property
    def block_symbol(self) -> Expr:
        return Symbol(f"{self.name.upper()}BLOCK")


@dataclass(frozen=True)
class AxisDim:
    """A dimension of an access under a tiling: ``(axis_index // divisor) mod extent``
    read with ``stride``; ``top`` for the axis' outermost digit."""

    axis: int
    divisor: Expr
    extent: Expr
    stride: Expr
    top: bool


@dataclass(frozen=True)
class Tiling:
    """Tile axes (``x`` first) over loops (outermost first); ``block_sizes`` holds the
    block sizes known at planning time (``{"XBLOCK": 64}``), others stay symbolic."""

    axes: tuple[TileAxis, ...]
    loops: tuple[tuple[str, Expr], ...]
    block_sizes: tuple[tuple[str, int], ...] = ()

    @property
    def ndim(self) -> int:
        return len(self.axes)

    def block(self, axis: int) -> Expr:
        """The block size of an axis: its known value, else the symbol ``XBLOCK``."""
        sym = self.axes[axis].block_symbol
        known = dict(self.block_sizes).get(sym.payload)
        return sym if known is None else integer(known)

    def loop_place(self) -> dict[str, tuple[int, Expr, bool]]:
        """loop name -> (axis, S_l, outermost in its axis)."""
        sizes = dict(self.loops)
        out: dict[str, tuple[int, Expr, bool]] = {}
        for a, ax in enumerate(self.axes):
            scale: Expr = _ONE
            for i, name in enumerate(reversed(ax.loops)):
                out[name] = (a, scale, i == len(ax.loops) - 1)
                scale = mul(scale, sizes[name])
        return out

    def substitution(self) -> dict[Expr, Expr]:
        """Loop variable -> its value as a digit of its axis index."""
        sizes = dict(self.loops)
        out: dict[Expr, Expr] = {}
        for name, (a, scale, top) in self.loop_place().items():
            idx = self.axes[a].index
            if top:
                out[Symbol(name)] = idx if scale is _ONE else FloorDiv.make(idx, scale)
            else:
                out[Symbol(name)] = ModularIndexing.make(idx, scale, sizes[name])
        return out

    def describe(self) -> str:
        parts = [f"{ax.name}=({', '.join(ax.loops)}) numel {ax.numel}" for ax in self.axes]
        return f"{self.ndim}-D: " + "; ".join(parts)

    def to_json(self) -> dict[str, object]:
        return {
            "ndim": self.ndim,
            "axes": [
                {"name": ax.name, "loops": list(ax.loops), "numel": _jsonable(ax.numel),
                 "block": _jsonable(self.block(a))}
                for a, ax in enumerate(self.axes)
            ],
        }


def _jsonable(e: Expr) -> int | str:
    return e.payload if type(e) is Integer else str(e)


def make_tiling(
    loops: Sequence[tuple[str, object]],
    groups: Sequence[Sequence[str]],
    block_sizes: Mapping[str, int] | None = None,
) -> Tiling:
    """A tiling from loop groups given outermost first (the last group becomes ``x``)."""
    lp = _check_loops(loops)
    order = [n for n, _ in lp]
    flat = [n for g in groups for n in g]
    if flat != order:
        raise InvalidOperationError(
            f"tile groups must split the loops {order} in order, got {[list(g) for g in groups]}"
        )
    if not 1 <= len(groups) <= len(AXIS_NAMES) or any(not g for g in groups):
        raise InvalidOperationError(f"a tiling has 1 to 3 non-empty groups, got {len(groups)}")
    sizes = dict(lp)
    axes = []
    for name, g in zip(AXIS_NAMES, reversed(groups)):
        axes.append(TileAxis(name, tuple(g), mul(*(sizes[n] for n in g))))
    known = tuple(sorted((block_sizes or {}).items()))
    for k, v in known:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
            raise InvalidOperationError(f"block size {k} must be a power of two, got {v!r}")
    return Tiling(tuple(axes), tuple(lp), known)


def _check_loops(loops: Sequence[tuple[str, object]]) -> list[tuple[str, Expr]]:
    if not loops:
        raise RangeError("the iteration space needs at least one loop")
    out: list[tuple[str, Expr]] = []
    for name, size in loops:
        e = as_expr(size) if not isinstance(size, str) else _parse_size(size)
        if type(e) is Integer and e.payload < 1:
            raise RangeError(f"loop {name} needs a positive size, got {e}")
        out.append((name, e))
    if len({n for n, _ in out}) != len(out):
        raise RangeError(f"loop names repeat: {[n for n, _ in out]}")
    return out


def _parse_size(text: str) -> Expr:
    from indexalg.parse import parse

    return parse(text)


def candidate_tilings(
    loops: Sequence[tuple[str, object]],
    max_tiles: int = 2,
    block_sizes: Mapping[str, int] | None = None,
) -> list[Tiling]:
    """Every split of the loops into 1..min(max_tiles, 3) groups of adjacent loops, fewest
    axes first, then by split position (deterministic)."""
    if isinstance(max_tiles, bool) or not isinstance(max_tiles, int) or max_tiles < 1:
        raise InvalidOperationError(f"max_tiles must be a positive int, got {max_tiles!r}")
    lp = _check_loops(loops)
    names = [n for n, _ in lp]
    out: list[Tiling] = []
    for k in range(1, min(max_tiles, len(AXIS_NAMES), len(names)) + 1):
        for cuts in itertools.combinations(range(1, len(names)), k - 1):
            bounds = (0, *cuts, len(names))
            groups = [names[bounds[i] : bounds[i + 1]] for i in range(k)]
            out.append(make_tiling(lp, groups, block_sizes))
    return out


def axis_dims(m: IterMap, tiling: Tiling) -> list[list[AxisDim]]:
    """Per axis (``x`` first), the index's dimensions outermost first, chained ones merged.

    ``m`` decomposes the index over the tiling's loops (every loop a variable)."""
    place = tiling.loop_place()
    per_axis: list[list[AxisDim]] = [[] for _ in tiling.axes]
    for d in m.dims:
        a, scale, outer_loop = place[d.var.payload]
        top = d.top and outer_loop
        per_axis[a].append(AxisDim(a, mul(scale, d.divisor), d.extent, d.stride, top))
    # loops are listed outermost first and so are each loop's digits: already in order
    return [_merge(dims) for dims in per_axis]


def _merge(dims: list[AxisDim]) -> list[AxisDim]:
    out: list[AxisDim] = []
    for d in dims:
        prev = out[-1] if out else None
        if prev is not None and (
            (prev.stride is _ZERO and d.stride is _ZERO)
            or (d.stride is not _ZERO and prev.stride is mul(d.stride, d.extent))
        ):
            out[-1] = AxisDim(d.axis, d.divisor, mul(prev.extent, d.extent), d.stride, prev.top)
        else:
            out.append(d)
    return out


# ---------------------------------------------------------------------------------------
# Cost model

#: bytes-equivalent per element of one div/mod/min/max op in a flat index
OP_COST = 0.5
#: per reshape or broadcast step of a structured access
CHAIN_STEP_COST = 0.25
#: per access, per lane launched (masked-off lanes included), per useful element
LANE_COST = 0.25
#: per tile axis beyond the first (program-id decomposition, an extra mask dimension)
AXIS_COST = 0.25
#: memory transaction size in bytes (a DRAM sector)
SECTOR = 32
#: elements per program a tiling may use (Inductor's largest pointwise block)
TILE_BUDGET = 1024
#: N-D must beat 1-D by this fraction to be chosen when N-D is not preferred
ND_MARGIN = 0.10
#: value assumed for a size symbol with no hint
DEFAULT_SIZE_HINT = 64


@dataclass(frozen=True)
class TilingChoice:
    """The chosen tiling, its plans, and the score of every candidate (for reports)."""

    tiling: Tiling
    plans: tuple[AccessPlan, ...]
    cost: float
    scores: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    reason: str = ""


def _hint(e: Expr, hints: Mapping[str, int]) -> int:
    if type(e) is Integer:
        v: int = e.payload
        return v
    from indexalg.evaluate import evaluate

    env = {s.payload: hints.get(s.payload, DEFAULT_SIZE_HINT) for s in e.free_symbols}
    return int(evaluate(e, env))  # type: ignore[arg-type]


def _pow2_at_least(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def cost_blocks(tiling: Tiling, hints: Mapping[str, int] | None = None) -> list[int]:
    """Block sizes the cost model assumes: the known ones, else the tile budget shared out
    by doubling the smallest block (``x`` first on ties) while an axis still has room."""
    h = hints or {}
    numels = [_hint(ax.numel, h) for ax in tiling.axes]
    known = [tiling.block(a) for a in range(tiling.ndim)]
    blocks = [k.payload if type(k) is Integer else 1 for k in known]
    free = [type(k) is not Integer for k in known]
    caps = [_pow2_at_least(max(n, 1)) for n in numels]
    while True:
        total = 1
        for b in blocks:
            total *= b
        open_axes = [a for a in range(tiling.ndim) if free[a] and blocks[a] < caps[a]]
        if not open_axes or total * 2 > TILE_BUDGET:
            return blocks
        a = min(open_axes, key=lambda i: (blocks[i], i))
        blocks[a] *= 2


def tiling_cost(
    tiling: Tiling,
    accesses: Sequence[Access],
    plans: Sequence[AccessPlan],
    hints: Mapping[str, int] | None = None,
) -> float:
    """Predicted cost per iteration point, in bytes-equivalent (lower is faster).

    Per access: its unique bytes per point (element size x distinct addresses / points)
    divided by the sector efficiency of its longest contiguous run within one tile (a run of
    ``r`` bytes uses ``r / (32*ceil(r/32))`` of the sectors it touches); plus ``OP_COST`` per
    div/mod/min/max op of a flat-pointer index, ``CHAIN_STEP_COST`` per reshape/broadcast
    step of a structured access, and ``LANE_COST`` times the launched lanes per point (masks
    waste lanes where block sizes overshoot the axes).  Plus ``AXIS_COST`` per axis beyond
    the first.  Block sizes as :func:`cost_blocks`.
    """
    h = hints or {}
    blocks = cost_blocks(tiling, h)
    numels = [_hint(ax.numel, h) for ax in tiling.axes]
    points = 1
    lanes = 1
    for n, b in zip(numels, blocks):
        points *= n
        lanes *= -(-n // b) * b
    total = AXIS_COST * (tiling.ndim - 1)
    for acc, plan in zip(accesses, plans):
        total += LANE_COST * lanes / points
        if plan.dims is None:  # no decomposition: a gather, one element per sector
            total += SECTOR + OP_COST * plan.ops
            continue
        from indexalg_triton.layout import dtype_bytes

        size = dtype_bytes(acc.dtype)
        footprint = 1
        for dims in plan.dims:
            for d in dims:
                if d.stride is not _ZERO:
                    footprint *= _hint(d.extent, h)
        unique = size * footprint / points
        run = _run_bytes(plan.dims, blocks, size, h)
        eff = run / (SECTOR * -(-run // SECTOR))
        total += unique / eff
        total += OP_COST * plan.ops if plan.kind == "pointer" else CHAIN_STEP_COST * plan.steps
    return total


def _run_bytes(
    dims: Sequence[Sequence[AxisDim]], blocks: Sequence[int], size: int, h: Mapping[str, int]
) -> int:
    """Bytes of the longest contiguous run in one tile: from the stride-1 dimension, every
    dimension whose stride continues the run, while blocks cover whole extents."""
    flat: list[tuple[int, int, int]] = []  # (|stride|, extent, block)
    for dims_a in dims:
        for d in dims_a:
            if d.stride is _ZERO or type(d.stride) is not Integer:
                continue
            ext = _hint(d.extent, h)
            blk = max(1, min(ext, -(-blocks[d.axis] // _hint(d.divisor, h))))
            flat.append((abs(d.stride.payload), ext, blk))
    run = 1
    expected = 1
    while True:
        hit = next((f for f in flat if f[0] == expected), None)
        if hit is None:
            return run * size
        _, ext, blk = hit
        run *= min(ext, blk)
        if blk < ext:
            return run * size
        expected *= ext


def choose_tiling(
    loops: Sequence[tuple[str, object]],
    accesses: Sequence[Access],
    *,
    max_tiles: int = 2,
    prefer_nd: bool = False,
    allow: Sequence[str] | None = None,
    block_sizes: Mapping[str, int] | None = None,
    size_hints: Mapping[str, int] | None = None,
) -> TilingChoice:
    """Score every candidate tiling and pick one; never one predicted slower than 1-D.

    ``prefer_nd``: the candidate with the most axes among those predicted no slower than
    1-D (ties: lower cost, then earlier candidate).  Otherwise: the lowest cost, where an
    N-D tiling must beat 1-D by ``ND_MARGIN``.  ``allow``: the structured access kinds the
    target supports (default: what the installed Triton supports).
    """
    from indexalg_triton.access import plan_accesses

    scored: list[tuple[Tiling, tuple[AccessPlan, ...], float]] = []
    for t in candidate_tilings(loops, max_tiles, block_sizes):
        plans = tuple(plan_accesses(accesses, t, allow=allow))
        scored.append((t, plans, tiling_cost(t, accesses, plans, size_hints)))
    base = scored[0]
    scores = tuple((t.describe(), round(c, 4)) for t, _, c in scored)
    if prefer_nd:
        ok = [s for s in scored if s[2] <= base[2] + 1e-9]
        best = max(ok, key=lambda s: (s[0].ndim, -s[2]))
        why = "prefer-N-D: most axes among tilings predicted no slower than 1-D"
    else:
        best = min(scored, key=lambda s: (s[2] if s[0].ndim == 1 else s[2] / (1 - ND_MARGIN)))
        why = "lowest predicted cost (N-D must beat 1-D by 10%)"
    return TilingChoice(best[0], best[1], best[2], scores, why)
