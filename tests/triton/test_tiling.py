"""indexalg_triton.tiling: candidate tilings, axis dimensions and the cost model."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import indexalg as ia
from indexalg.iter_map import decompose
from indexalg_triton.access import Access
from indexalg_triton.planner import choose_tiling, cost_blocks
from indexalg_triton.tiling import axis_dims, candidate_tilings, make_tiling

BP = ("block_pointer",)
TD = ("tensor_descriptor",)


def test_candidates_in_order() -> None:
    loops = [("a", 2), ("b", 3), ("c", 5)]
    got = [[ax.loops for ax in t.axes] for t in candidate_tilings(loops, 3)]
    assert got == [
        [("a", "b", "c")],
        [("b", "c"), ("a",)],
        [("c",), ("a", "b")],
        [("c",), ("b",), ("a",)],
    ]
    assert len(candidate_tilings(loops, 1)) == 1
    with pytest.raises(ia.InvalidOperationError):
        candidate_tilings(loops, 0)
    with pytest.raises(ia.InvalidOperationError, match="power of two"):
        make_tiling(loops, [["a", "b", "c"]], {"XBLOCK": 48})
    with pytest.raises(ia.InvalidOperationError, match="in order"):
        make_tiling(loops, [["b"], ["a", "c"]])


def test_substitution_is_the_loop_digits() -> None:
    t = make_tiling([("a", 2), ("b", 3), ("c", 5)], [["a", "b"], ["c"]])
    s = {str(k): str(v) for k, v in t.substitution().items()}
    assert s == {"a": "yindex // 3", "b": "ModularIndexing(yindex, 1, 3)", "c": "xindex"}
    assert t.axes[1].numel is ia.as_expr(6)


def test_axis_dims_merge_chained_loops() -> None:
    t = make_tiling([("a", 2), ("b", 3), ("c", 5)], [["a", "b"], ["c"]])
    m = decompose("c + 6*b + 18*a", {"a": 2, "b": 3, "c": 5}, ["a", "b", "c"])
    dims = axis_dims(m, t)
    assert [[(str(d.extent), str(d.stride)) for d in ds] for ds in dims] == [
        [("5", "1")],
        [("6", "6")],
    ]


@dataclass(frozen=True)
class Choice:
    name: str
    loops: list[tuple[str, int]]
    accesses: list[Access]
    prefer_nd: bool
    ndim: int
    max_tiles: int = 2
    allow: tuple[str, ...] = BP


INT8 = [Access.of("8192*x1 + x2//2", "uint8"), Access.of("16384*x1 + x2", "bfloat16", store=True)]
TRANSPOSE = [Access.of("x1 + 1024*x0"), Access.of("1024*x1 + x0", store=True)]
VIEW_C = [Access.of("x0 + 9*x1"), Access.of("x0 + 9*x1"), Access.of("x0 + 7*x1", store=True)]

CHOICES = [
    # Inductor's cliff: prefer-N-D makes int8 unpack 7x slower; ours stays 1-D
    Choice("int8 unpack, prefer-nd", [("x1", 16384), ("x2", 16384)], INT8, True, 1),
    Choice("int8 unpack", [("x1", 16384), ("x2", 16384)], INT8, False, 1),
    Choice("int8 unpack, descriptors", [("x1", 16384), ("x2", 16384)], INT8, True, 1, allow=TD),
    Choice("transpose", [("x1", 1024), ("x0", 1024)], TRANSPOSE, False, 2),
    Choice("seed (c), prefer-nd", [("x1", 3), ("x0", 7)], VIEW_C, True, 2),
    Choice("seed (c), max_tiles 1", [("x1", 3), ("x0", 7)], VIEW_C, True, 1, max_tiles=1),
    Choice(
        "contiguous add",
        [("x1", 64), ("x0", 64)],
        [Access.of("64*x1 + x0"), Access.of("64*x1 + x0", store=True)],
        True,
        1,
    ),
    Choice(
        "9x3x5 view, 3 tiles",
        [("a", 9), ("b", 3), ("c", 5)],
        [Access.of("24*a + 6*b + c"), Access.of("15*a + 5*b + c", store=True)],
        True,
        3,
        max_tiles=3,
    ),
]


@pytest.mark.parametrize("c", CHOICES, ids=lambda c: c.name)
def test_choose_tiling(c: Choice) -> None:
    ch = choose_tiling(
        c.loops, c.accesses, max_tiles=c.max_tiles, prefer_nd=c.prefer_nd, allow=c.allow
    )
    assert ch.tiling.ndim == c.ndim, ch.scores
    one_d = ch.scores[0][1]
    assert ch.scores[0][0].startswith("1-D") and ch.cost <= one_d + 1e-3  # never slower


def test_int8_cliff_is_predicted() -> None:
    ch = choose_tiling([("x1", 16384), ("x2", 16384)], INT8, prefer_nd=True, allow=BP)
    one_d, two_d = ch.scores
    assert two_d[1] > one_d[1]  # N-D predicted slower: narrow rows of the uint8 read
    read = ch.plans[0]
    assert read.kind == "block_pointer" and [str(s) for s in read.shape] == ["134217728"]


def test_cost_blocks_share_the_budget() -> None:
    loops = [("x1", 3), ("x0", 7)]
    assert cost_blocks(make_tiling(loops, [["x1"], ["x0"]])) == [8, 4]
    assert cost_blocks(make_tiling(loops, [["x1", "x0"]])) == [32]
    big = [("a", 4096), ("b", 4096)]
    assert cost_blocks(make_tiling(big, [["a"], ["b"]])) == [32, 32]
    assert cost_blocks(make_tiling(big, [["a", "b"]])) == [1024]
    assert cost_blocks(make_tiling(big, [["a"], ["b"]], {"XBLOCK": 256})) == [256, 4]


def test_symbolic_sizes_use_hints() -> None:
    loops = [("x1", 4), ("x0", "s0")]
    ch = choose_tiling(
        loops, [Access.of("x0 + s1*x1")], prefer_nd=True, allow=BP, size_hints={"s0": 100}
    )
    assert ch.tiling.ndim == 2
    p = ch.plans[0]
    assert [str(s) for s in p.shape] == ["s0", "4"] and [str(s) for s in p.strides] == ["1", "s1"]
