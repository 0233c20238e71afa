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

:func:`candidate_tilings` lists every tiling of a loop nest; the choice among them (a cost
model over the access plans of each) is :mod:`indexalg_triton.planner`'s.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from indexalg.errors import RangeError
from indexalg.expr import Expr, FloorDiv, Integer, ModularIndexing, Symbol, as_expr, integer, mul
from indexalg.iter_map import IterMap
from indexalg_triton.errors import ConfigError

__all__ = [
    "AXIS_NAMES",
    "AxisDim",
    "TileAxis",
    "Tiling",
    "axis_dims",
    "candidate_tilings",
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
                {
                    "name": ax.name,
                    "loops": list(ax.loops),
                    "numel": _jsonable(ax.numel),
                    "block": _jsonable(self.block(a)),
                }
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
        raise ConfigError(
            f"tile groups must split the loops {order} in order, got {[list(g) for g in groups]}"
        )
    if not 1 <= len(groups) <= len(AXIS_NAMES) or any(not g for g in groups):
        raise ConfigError(f"a tiling has 1 to 3 non-empty groups, got {len(groups)}")
    sizes = dict(lp)
    axes = []
    for name, g in zip(AXIS_NAMES, reversed(groups)):
        axes.append(TileAxis(name, tuple(g), mul(*(sizes[n] for n in g))))
    known = tuple(sorted((block_sizes or {}).items()))
    for k, v in known:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
            raise ConfigError(f"block size {k} must be a power of two, got {v!r}")
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
        raise ConfigError(f"max_tiles must be a positive int, got {max_tiles!r}")
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
