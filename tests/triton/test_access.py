"""indexalg_triton.access: per-access plans under a tiling.

Besides the exact plans of the seed kernels (../shared/seed), every structured plan is
*executed* by a small emulator of block pointers / tensor descriptors (offsets, block
shapes, padding, permute, reshape -> broadcast -> reshape, slices) at known block sizes and
compared, point by point, with the original index; every pointer plan's flat index is
evaluated at every tile point against the original index at the corresponding loop values.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

import indexalg as ia
from indexalg_triton.access import Access, AccessPlan, parse_allow, plan_access, supported_kinds
from indexalg_triton.layout import View
from indexalg_triton.tiling import Tiling, make_tiling

BP = ("block_pointer",)
TD = ("tensor_descriptor",)
BOTH = ("tensor_descriptor", "block_pointer")


def _ints(xs: Sequence[ia.Expr]) -> list[int | str]:
    return [x.payload if type(x) is ia.Integer else str(x) for x in xs]


# --- an emulator of the plans --------------------------------------------------------------


def _ev(e: ia.Expr, env: dict[str, int]) -> int:
    v = ia.evaluate(e, env)
    assert isinstance(v, int)
    return v


def _reshape(shape: list[int], data: list[int | None], new: list[int]) -> tuple[list[int], list]:
    n = 1
    for s in new:
        n *= s
    assert n == len(data), (shape, new)
    return new, data


def _broadcast(shape: list[int], data: list, new: list[int]) -> tuple[list[int], list]:
    assert len(shape) == len(new)
    out = []
    for idx in itertools.product(*map(range, new)):
        src = 0
        for i, s in zip(idx, shape):
            assert s in (1, i + 1) or s >= i + 1
            src = src * s + (0 if s == 1 else i)
        out.append(data[src])
    return new, out


def _run_structured(plan: AccessPlan, env: dict[str, int], tile: list[int]) -> list:
    """The addresses a structured plan yields for the tile at ``env`` (offsets bound), as a
    flat row-major list over the tile shape ``tile`` (None where padded)."""
    shape = [_ev(x, env) for x in plan.shape]
    blocks = [_ev(x, env) for x in plan.block_shape]
    offs = [_ev(x, env) for x in plan.offsets]
    strides = [_ev(x, env) for x in plan.strides]
    base = _ev(plan.base_offset, env)
    data: list[int | None] = []
    for idx in itertools.product(*map(range, blocks)):
        pos = [o + i for o, i in zip(offs, idx)]
        inside = all(0 <= p < s for p, s in zip(pos, shape))
        data.append(base + sum(p * s for p, s in zip(pos, strides)) if inside else None)
    cur = blocks
    if plan.permute is not None:
        new_shape = [cur[p] for p in plan.permute]
        out = []
        for idx in itertools.product(*map(range, new_shape)):
            src = [0] * len(idx)
            for k, p in enumerate(plan.permute):
                src[p] = idx[k]
            flat = 0
            for i, s in zip(src, cur):
                flat = flat * s + i
            out.append(data[flat])
        cur, data = new_shape, out
    if plan.reshape is not None:
        cur, data = _reshape(cur, data, [_ev(x, env) for x in plan.reshape])
    if plan.broadcast_shape is not None:
        cur, data = _broadcast(cur, data, [_ev(x, env) for x in plan.broadcast_shape])
    if plan.final_shape is not None:
        cur, data = _reshape(cur, data, [_ev(x, env) for x in plan.final_shape])
    if plan.slices is not None:
        cur = [1 if part == "None" else cur.pop(0) for part in plan.slices[1:-1].split(", ")]
    if cur != tile:
        cur, data = _broadcast(cur, data, tile)
    return data


def check_plan(access: Access, tiling: Tiling, plan: AccessPlan) -> None:
    """Execute the plan on every tile of the iteration space and compare with the index."""
    numels = [_ev(ax.numel, {}) for ax in tiling.axes]
    blocks = [_ev(tiling.block(a), {}) for a in range(tiling.ndim)]
    subs = tiling.substitution()
    for starts in itertools.product(*(range(0, n, b) for n, b in zip(numels, blocks))):
        env = {ax.offset.payload: s for ax, s in zip(tiling.axes, starts)}
        got = _run_structured(plan, env, blocks) if plan.kind != "pointer" else None
        for k, idx in enumerate(itertools.product(*map(range, blocks))):
            point = {ax.index.payload: s + i for ax, s, i in zip(tiling.axes, starts, idx)}
            if any(point[ax.index.payload] >= n for ax, n in zip(tiling.axes, numels)):
                continue
            loops = {name: _ev(subs[ia.Symbol(name)], point) for name, _ in tiling.loops}
            want = _ev(access.index, loops)
            assert _ev(plan.flat_index, point) == want, (point, plan.flat_index)
            if got is not None:
                assert got[k] == want, (plan.kind, env, idx, got[k], want)


# --- the seed's three kernels ----------------------------------------------------------------

SEED_A = make_tiling([("x", 64)], [["x"]])
SEED_B = make_tiling([("y0", 8), ("x1", 8)], [["y0"], ["x1"]])
SEED_C = make_tiling([("x1", 3), ("x0", 7)], [["x1"], ["x0"]])


def test_seed_a_column_read_is_1d_block_with_broadcast() -> None:
    a = Access.of("8*(x//8)")
    p = plan_access(a, SEED_A, allow=BP)
    assert p.kind == "block_pointer"
    assert (_ints(p.shape), _ints(p.strides)) == ([8], [8])  # no stride-0 dimension
    assert _ints(p.block_shape) == ["CeilDiv(XBLOCK, 8)"]
    assert _ints(p.offsets) == ["xoffset // 8"] and p.boundary_check == (0,)
    assert p.broadcast
    assert _ints(p.reshape or ()) == ["CeilDiv(XBLOCK, 8)", 1]
    assert _ints(p.broadcast_shape or ()) == ["CeilDiv(XBLOCK, 8)", "Min(8, XBLOCK)"]
    assert _ints(p.final_shape or ()) == ["XBLOCK"]
    plain = plan_access(Access.of("x"), SEED_A, allow=BP)
    assert plain.kind == "block_pointer" and not plain.broadcast and plain.reshape is None
    assert (_ints(plain.shape), _ints(plain.strides)) == ([64], [1])


def test_seed_b_row_read_needs_a_slice_not_a_broadcast() -> None:
    p0 = plan_access(Access.of("x1 + 8*y0"), SEED_B, allow=BP)
    assert (_ints(p0.shape), _ints(p0.strides)) == ([8, 8], [1, 8])
    assert _ints(p0.block_shape) == ["XBLOCK", "YBLOCK"] and p0.boundary_check == (0, 1)
    p1 = plan_access(Access.of("8*y0"), SEED_B, allow=BP)
    assert p1.kind == "block_pointer"
    assert (_ints(p1.shape), _ints(p1.strides), _ints(p1.block_shape)) == ([8], [8], ["YBLOCK"])
    assert p1.slices == "[None, :]" and not p1.broadcast and p1.reshape is None


def test_seed_c_discontiguous_views_get_strided_blocks() -> None:
    loads = [Access.of("x0 + 9*x1"), Access.of("x0 + 9*x1")]
    store = Access.of("x0 + 7*x1", store=True)
    for a in loads:
        p = plan_access(a, SEED_C, allow=BP)
        assert (p.kind, _ints(p.shape), _ints(p.strides)) == ("block_pointer", [7, 3], [1, 9])
    p = plan_access(store, SEED_C, allow=BP)
    assert (p.kind, _ints(p.shape), _ints(p.strides)) == ("block_pointer", [7, 3], [1, 7])


def test_seed_c_with_only_descriptors_falls_back_and_says_why() -> None:
    p = plan_access(Access.of("x0 + 9*x1"), SEED_C, allow=TD)
    assert p.kind == "pointer" and _ints(p.block_shape) == ["XBLOCK", "YBLOCK"]
    assert p.reasons == ("tensor_descriptor: stride 9 x 4 bytes is not a multiple of 16 bytes",)
    assert str(p.flat_index) == "xindex + 9*yindex" and p.mask == ("xmask", "ymask")
    # strides (1, 8) in float32: 32 bytes, a descriptor once transposed to (8, 1)
    q = plan_access(Access.of("x1 + 8*y0"), SEED_B, allow=TD)
    assert q.kind == "tensor_descriptor"
    assert (_ints(q.shape), _ints(q.strides), _ints(q.block_shape)) == (
        [8, 8],
        [8, 1],
        ["YBLOCK", "XBLOCK"],
    )
    assert q.permute == (1, 0) and q.requirements == ("XBLOCK >= 4", "XBLOCK*YBLOCK <= 1048576")
    col = plan_access(Access.of("8*y0"), SEED_B, allow=TD)
    assert col.kind == "pointer" and "no dimension has stride 1" in col.reasons[0]


# --- views: odd shapes, discontiguous dims -----------------------------------------------------


@dataclass(frozen=True)
class ViewCase:
    name: str
    base: tuple[int, ...]  # the contiguous tensor the view slices
    view: tuple[int, ...]  # sizes of the view (a leading slice of each dim)
    groups: tuple[int, ...]  # tile groups: number of loops per group, outermost first
    shape: list[int]
    strides: list[int]


VIEWS = [
    ViewCase("odd (5,7)", (5, 9), (5, 7), (1, 1), [7, 5], [1, 9]),
    ViewCase("odd (9,3,5)", (9, 4, 6), (9, 3, 5), (1, 1, 1), [5, 3, 9], [1, 6, 24]),
    ViewCase("3-D, one discontiguous dim", (4, 6, 10), (4, 6, 8), (2, 1), [8, 24], [1, 10]),
    ViewCase("4-D, one discontiguous dim", (2, 3, 4, 16), (2, 3, 4, 8), (3, 1), [8, 24], [1, 16]),
]


def _view_tiling(v: ViewCase, blocks: dict[str, int] | None = None) -> tuple[Access, Tiling]:
    view = View.of(v.view, View.of(v.base).strides)
    loops = view.loops()
    names = [n for n, _ in loops]
    groups, i = [], 0
    for g in v.groups:
        groups.append(names[i : i + g])
        i += g
    return Access(view.index()), make_tiling(loops, groups, blocks)


@pytest.mark.parametrize("v", VIEWS, ids=lambda v: v.name)
def test_discontiguous_views(v: ViewCase) -> None:
    a, t = _view_tiling(v)
    p = plan_access(a, t, allow=BP)
    assert (p.kind, _ints(p.shape), _ints(p.strides)) == ("block_pointer", v.shape, v.strides)
    a, t = _view_tiling(v, {"XBLOCK": 4, "YBLOCK": 4, "ZBLOCK": 2})
    for allow in (BP, BOTH, ()):
        check_plan(a, t, plan_access(a, t, allow=allow))


def test_5d_two_discontiguous_dims_2d_tiling_flat_index() -> None:
    view = View.of((2, 3, 3, 5, 4), View.of((2, 4, 3, 6, 4)).strides)  # dims 1, 3 sliced
    loops = view.loops()
    names = [n for n, _ in loops]
    a = Access(view.index())
    t = make_tiling(loops, [names[:3], names[3:]], {"XBLOCK": 8, "YBLOCK": 4})
    p = plan_access(a, t, allow=BOTH)
    assert p.kind == "pointer" and "not a power of two" in p.reasons[0]
    check_plan(a, t, p)  # the flat index is right at every point
    out = Access(View.of((2, 3, 3, 5, 4)).index(), store=True)
    check_plan(out, t, plan_access(out, t, allow=BOTH))


# --- emulated plans on more shapes ----------------------------------------------------------------

EMULATED = [
    ("column of 8x8", [("x", 64)], [["x"]], "8*(x//8)"),
    ("row broadcast", [("x", 64)], [["x"]], "ModularIndexing(x, 1, 8)"),
    ("int8 unpack read 1-D", [("x1", 4), ("x2", 16)], [["x1", "x2"]], "8*x1 + x2//2"),
    ("int8 unpack read 2-D", [("x1", 4), ("x2", 16)], [["x1"], ["x2"]], "8*x1 + x2//2"),
    ("transpose 2-D", [("i", 8), ("j", 12)], [["i"], ["j"]], "i + 8*j"),
    ("offset view", [("i", 4), ("j", 8)], [["i"], ["j"]], "16*i + j + 4"),
    ("broadcast 3-D", [("a", 2), ("b", 4), ("c", 8)], [["a"], ["b"], ["c"]], "4*a + b"),
]


@pytest.mark.parametrize("case", EMULATED, ids=lambda c: c[0])
@pytest.mark.parametrize(
    "blocks", [{"XBLOCK": 4, "YBLOCK": 2, "ZBLOCK": 2}, {"XBLOCK": 16, "YBLOCK": 8, "ZBLOCK": 1}]
)
@pytest.mark.parametrize("allow", [BP, TD, ()], ids=["bp", "td", "none"])
def test_emulated(case: tuple, blocks: dict[str, int], allow: tuple[str, ...]) -> None:
    _, loops, groups, index = case
    t = make_tiling(loops, groups, blocks)
    a = Access.of(index)
    check_plan(a, t, plan_access(a, t, allow=allow))


def test_known_block_sizes_fold_min_and_ceildiv() -> None:
    t = make_tiling([("x", 64)], [["x"]], {"XBLOCK": 32})
    p = plan_access(Access.of("8*(x//8)"), t, allow=BP)
    assert _ints(p.block_shape) == [4] and _ints(p.broadcast_shape or ()) == [4, 8]
    assert p.boundary_check == ()  # 32 divides 64: no block leaves the range
    small = make_tiling([("x", 64)], [["x"]], {"XBLOCK": 4})
    q = plan_access(Access.of("8*(x//8)"), small, allow=BP)
    assert _ints(q.block_shape) == [1] and _ints(q.broadcast_shape or ()) == [1, 4]


def test_store_with_stride_zero_is_a_pointer_store() -> None:
    p = plan_access(Access.of("x//2", store=True), SEED_A, allow=BOTH)
    assert p.kind == "pointer" and "store" in p.reasons[0]


def test_descriptor_rules() -> None:
    t = make_tiling([("y", 4), ("x", 16)], [["y"], ["x"]])
    cases = [
        ("x + 16*y + 2", "base offset 2 x 4 bytes is not 16-byte aligned"),
        ("2*x + 32*y", "no dimension has stride 1"),
        ("x + 6*y", "stride 6 x 4 bytes is not a multiple of 16 bytes"),
        ("16 - x + 16*y", "stride -1 is negative"),
    ]
    for index, why in cases:
        p = plan_access(Access.of(index), t, allow=TD)
        assert p.kind == "pointer" and why in " ".join(p.reasons), (index, p.reasons)
    ok = plan_access(
        Access.of("x + 4*y", "bfloat16"),
        make_tiling([("y", 4), ("x", 4)], [["y"], ["x"]]),
        allow=TD,
    )
    assert ok.kind == "pointer" and "no dimension" not in ok.reasons[0]  # 8 bytes per row
    tiny = make_tiling([("y", 4), ("x", 2)], [["y"], ["x"]], {"XBLOCK": 2, "YBLOCK": 4})
    p = plan_access(Access.of("x + 4*y"), tiny, allow=TD)
    assert p.kind == "pointer" and "under 16 bytes" in p.reasons[0]


def test_allow_parsing_and_probe() -> None:
    assert parse_allow("tensor_descriptor, block_pointer") == BOTH
    assert parse_allow("none") == ()
    with pytest.raises(ia.InvalidOperationError, match="unknown access kind"):
        parse_allow("tma")
    kinds = supported_kinds()
    assert set(kinds) <= set(BOTH)
    import triton.language as tl

    assert ("tensor_descriptor" in kinds) == hasattr(tl, "make_tensor_descriptor")
