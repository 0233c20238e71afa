"""The planner: a tiling and an access plan per access, chosen together by a cost model.

It sits above :mod:`indexalg_triton.tiling` (the candidate tilings) and
:mod:`indexalg_triton.access` (one plan per access under a tiling): :func:`choose_tiling`
plans every access under every candidate tiling, scores each candidate with
:func:`tiling_cost` (see there) and never returns one it predicts slower than 1-D.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from indexalg.evaluate import evaluate
from indexalg.expr import Expr, Integer, integer
from indexalg_triton.access import Access, AccessPlan, plan_accesses
from indexalg_triton.layout import dtype_bytes
from indexalg_triton.tiling import AxisDim, Tiling, candidate_tilings

__all__ = [
    "AXIS_COST",
    "CHAIN_STEP_COST",
    "DEFAULT_SIZE_HINT",
    "LANE_COST",
    "MIN_PROGRAMS_PER_SM",
    "MIN_SPLIT_CHUNK",
    "ND_MARGIN",
    "OP_COST",
    "SECTOR",
    "SM_COUNT",
    "SPLIT_PROGRAMS_PER_SM",
    "TILE_BUDGET",
    "ReductionPlan",
    "TilingChoice",
    "choose_tiling",
    "cost_blocks",
    "plan_reduction",
    "split_factor",
    "tiling_cost",
]

_ZERO = integer(0)


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
        total += LANE_COST * (lanes / points)  # int / int: exact for sizes past float range
        if plan.dims is None:  # no decomposition: a gather, one element per sector
            total += SECTOR + OP_COST * plan.ops
            continue
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
        best = min(scored, key=lambda s: s[2] if s[0].ndim == 1 else s[2] / (1 - ND_MARGIN))
        why = "lowest predicted cost (N-D must beat 1-D by 10%)"
    return TilingChoice(best[0], best[1], best[2], scores, why)


# --- reductions ----------------------------------------------------------------------------

#: streaming multiprocessors the reduction model plans for (an H200 has 132)
SM_COUNT = 132
#: programs per SM below which a reduction is split (too few loads in flight per SM; on the
#: H200, 512 column programs reached 104% of the copy ceiling, 256 reached 73%)
MIN_PROGRAMS_PER_SM = 3
#: programs per SM a split aims at
SPLIT_PROGRAMS_PER_SM = 8
#: the shortest chunk of r a split program reduces
MIN_SPLIT_CHUNK = 512

#: One reduction config: warps and block sizes by name.
ReductionConfig = tuple[int, dict[str, int]]


@dataclass(frozen=True)
class ReductionPlan:
    """The configs of a reduction, the model's choice first, and why it was chosen."""

    configs: tuple[ReductionConfig, ...]
    reason: str


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def split_factor(programs: int, rnumel: int) -> int:
    """The split that brings ``programs`` to about :data:`SPLIT_PROGRAMS_PER_SM` per SM: a
    power of two dividing ``rnumel`` with chunks of at least :data:`MIN_SPLIT_CHUNK`; 1 when
    the programs already suffice or no split fits."""
    if programs >= MIN_PROGRAMS_PER_SM * SM_COUNT:
        return 1
    want = _pow2(-(-SPLIT_PROGRAMS_PER_SM * SM_COUNT // max(1, programs)))
    n = 1
    while n < want and rnumel % (2 * n) == 0 and rnumel // (2 * n) >= MIN_SPLIT_CHUNK:
        n *= 2
    return n


def plan_reduction(
    xnumel: int, rnumel: int, *, contiguous: bool, itemsize: int, splittable: bool
) -> ReductionPlan:
    """The reduction model: row reductions (r contiguous) persistent while one program holds
    a row (``RBLOCK`` = r padded to a power of two, up to 32768), looped otherwise; column
    reductions looped over r in ``[XBLOCK, RBLOCK]`` tiles of 4096 elements; either split
    (:func:`split_factor`) when its programs are fewer than :data:`MIN_PROGRAMS_PER_SM` per
    SM and the spec allows it.  The alternatives timed after it: other warps and block shapes
    (Inductor's one warp per 32 elements of a row for short rows), persistent column tiles
    of up to 32768 elements (each value read once instead of once per pass), other splits."""
    rpow = _pow2(rnumel)
    if contiguous:
        out: list[ReductionConfig] = []
        if rpow <= 32768:
            out.append((16 if rpow >= 8192 else 8, {"XBLOCK": 1, "RBLOCK": rpow}))
            if rpow <= 4096:
                out.append((8, {"XBLOCK": max(1, 4096 // rpow), "RBLOCK": rpow}))
        out += [
            (8, {"XBLOCK": 1, "RBLOCK": min(rpow, 4096)}),
            (8, {"XBLOCK": 4, "RBLOCK": min(rpow, 1024)}),
            (4, {"XBLOCK": 8, "RBLOCK": min(rpow, 512)}),
        ]
        if 512 <= rpow <= 4096:  # one warp per 32 elements (Inductor's short-row rule)
            out.append((max(1, rpow // 1024), {"XBLOCK": 1, "RBLOCK": rpow}))
        if 2048 <= rpow <= 4096:
            out.append((16, {"XBLOCK": 1, "RBLOCK": rpow}))
        if rpow > 4096:  # long rows looped one row per program with 16 warps, Inductor's
            # shape (rmsnorm over 5120 bf16 on the H200: its kernel 177.7 µs; ours at that shape
            # 174.4 µs, at RBLOCK=4096 with 8 warps 161.3 µs: timed, not the default)
            out += [(16, {"XBLOCK": 1, "RBLOCK": 2048}), (16, {"XBLOCK": 1, "RBLOCK": 1024})]
        reason = (
            "row reduction: persistent, one program per row"
            if rpow <= 32768
            else "row reduction: looped (a row exceeds one program's 32768 elements)"
        )
        few_long = rpow > 32768 or (xnumel < SM_COUNT and rnumel >= 16 * MIN_SPLIT_CHUNK)
        n = split_factor(xnumel, rnumel) if splittable and few_long else 1
        if n > 1:
            split = (16, {"XBLOCK": 1, "RBLOCK": min(4096, _pow2(rnumel // n)), "SPLIT": n})
            out.insert(0, split)
            reason = (
                f"row reduction with {xnumel} rows for {SM_COUNT} SMs: split {n} ways "
                f"(chunks of {rnumel // n})"
            )
        return ReductionPlan(tuple(_unique(out)), reason)
    looped: list[ReductionConfig] = [
        (8, {"XBLOCK": 64, "RBLOCK": min(rpow, 64)}),
        (8, {"XBLOCK": 128, "RBLOCK": min(rpow, 32)}),
        (4, {"XBLOCK": 32, "RBLOCK": min(rpow, 64)}),
        (8, {"XBLOCK": 256, "RBLOCK": min(rpow, 16)}),
        (8, {"XBLOCK": 32, "RBLOCK": min(rpow, 128)}),
        (4, {"XBLOCK": 16, "RBLOCK": min(rpow, 128)}),
    ]
    persistent: list[ReductionConfig] = []
    if 64 < rpow <= 4096:  # one read of each value; rows of >= 32 bytes per tile row
        for elems, warps in ((16384, 8), (32768, 16)):
            xb = elems // rpow
            if xb * itemsize >= 32:
                persistent.append((warps, {"XBLOCK": xb, "RBLOCK": rpow}))
    programs = -(-xnumel // 64)
    n = split_factor(programs, rnumel) if splittable else 1
    if n > 1:
        # tiles of 8192 elements (on the H200, col_mean's partial kernel took 138 µs at
        # 64 x 128 or 128 x 64 and 141 µs at 64 x 64, splits of 4 and 8 alike)
        splits = [
            (8, {"XBLOCK": 64, "RBLOCK": 128, "SPLIT": n}),
            (8, {"XBLOCK": 128, "RBLOCK": 64, "SPLIT": n}),
            (8, {"XBLOCK": 64, "RBLOCK": 64, "SPLIT": n}),
        ]
        if n >= 4:
            splits.append((8, {"XBLOCK": 64, "RBLOCK": 128, "SPLIT": n // 2}))
        return ReductionPlan(
            tuple(_unique([*splits, *looped, *persistent])),
            f"column reduction: {programs} programs of 64 columns for "
            f"{SM_COUNT} SMs: split {n} ways (chunks of {rnumel // n})",
        )
    return ReductionPlan(
        tuple(_unique([*looped, *persistent])), "column reduction: looped over r in 64 x 64 tiles"
    )


def _unique(cs: list[ReductionConfig]) -> list[ReductionConfig]:
    out: list[ReductionConfig] = []
    seen: set[tuple[int, tuple[tuple[str, int], ...]]] = set()
    for w, b in cs:
        key = (w, tuple(sorted(b.items())))
        if key not in seen:
            seen.add(key)
            out.append((w, b))
    return out
