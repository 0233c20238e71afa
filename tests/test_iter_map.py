"""indexalg.iter_map: decomposition of an index into (extent, stride) dimensions.

Every decomposition is checked by evaluation: ``offset + sum(stride * digit)`` equals the
index at every point of the (small) iteration space, and the injectivity / bijectivity
answers agree with counting the distinct values.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pytest

import indexalg as ia
from indexalg.iter_map import IterMap, decompose


@dataclass(frozen=True)
class Case:
    name: str
    index: str
    ranges: Mapping[str, object]
    variables: Sequence[str] | None
    extents: tuple[int | str, ...]
    strides: tuple[int | str, ...]
    offset: int | str = 0
    injective: bool | None = True
    bijective: bool | None = False


CASES = [
    Case(
        "issue 3-D split",
        "4096*(x//256) + 32*ModularIndexing(x,16,16) + ModularIndexing(x,1,16)",
        {"x": 65536},
        None,
        (256, 16, 16),
        (4096, 32, 1),
    ),
    Case("contiguous", "x", {"x": 64}, None, (64,), (1,), bijective=True),
    Case(
        "column of 8x8: stride-0 inner digit",
        "8*(x//8)",
        {"x": 64},
        None,
        (8, 8),
        (8, 0),
        injective=False,
    ),
    Case(
        "stride-0 outer digit",
        "ModularIndexing(x, 1, 8)",
        {"x": 64},
        None,
        (8, 8),
        (0, 1),
        injective=False,
    ),
    Case(
        "two loops, view (3,7) strides (9,1)",
        "x0 + 9*x1",
        {"x0": 7, "x1": 3},
        ["x1", "x0"],
        (3, 7),
        (9, 1),
    ),
    Case(
        "fused loops", "x0 + 7*x1", {"x0": 7, "x1": 3}, ["x1", "x0"], (3, 7), (7, 1), bijective=True
    ),
    Case(
        "unused loop is a broadcast",
        "5*x1 + 2",
        {"x0": 4, "x1": 3},
        ["x1", "x0"],
        (3, 4),
        (5, 0),
        offset=2,
        injective=False,
    ),
    Case(
        "int8 unpack read",
        "8192*y + x//2",
        {"x": 16, "y": 4},
        ["y", "x"],
        (4, 8, 2),
        (8192, 1, 0),
        injective=False,
    ),
    Case(
        "transposed 2-D",
        "ModularIndexing(x, 1, 4)*5 + x//4",
        {"x": 20},
        None,
        (5, 4),
        (1, 5),
        bijective=True,
    ),
    Case(
        "simplifier reads x - 7*(x//7) as a digit",
        "x - 7*(x//7) + 10*(x//7)",
        {"x": 21},
        None,
        (3, 7),
        (10, 1),
    ),
    Case(
        "digit gap in the middle",
        "ModularIndexing(x, 1, 4) + 100*(x//16)",
        {"x": 64},
        None,
        (4, 4, 4),
        (100, 0, 1),
        injective=False,
    ),
    Case("Mod as the inner digit", "x % 8 + 16*(x//8)", {"x": 32}, None, (4, 8), (16, 1)),
    Case(
        "modulus reaching past the size is a top digit",
        "ModularIndexing(x, 4, 64)",
        {"x": 16},
        None,
        (4, 4),
        (1, 0),
        injective=False,
    ),
    Case("negative stride", "63 - x", {"x": 64}, None, (64,), (-1,), offset=63, bijective=True),
    Case(
        "overlapping strides, injective by enumeration",
        "2*a + 3*b",
        {"a": 2, "b": 2},
        ["a", "b"],
        (2, 2),
        (2, 3),
    ),
    Case(
        "overlapping strides, not injective",
        "a + b",
        {"a": 3, "b": 3},
        ["a", "b"],
        (3, 3),
        (1, 1),
        injective=False,
    ),
    Case(
        "symbolic offset",
        "x + 4*s0",
        {"x": 8, "s0": (0, None)},
        ["x"],
        (8,),
        (1,),
        offset="4*s0",
        bijective=True,
    ),
    Case(
        "symbolic size and stride",
        "s1*(x//s0) + ModularIndexing(x, 1, s0)",
        {"x": "s0*s2", "s0": (1, None), "s1": (1, None), "s2": (1, None)},
        ["x"],
        ("s2", "s0"),
        ("s1", 1),
        injective=None,
        bijective=None,
    ),
    Case(
        "symbolic size, fused exactly",
        "s0*(x//s0) + ModularIndexing(x, 1, s0)",
        {"x": "s0*s2", "s0": (1, None), "s2": (1, None)},
        ["x"],
        ("s2*s0",),
        (1,),
        bijective=True,
    ),
]


def _expr(v: int | str) -> ia.Expr:
    return ia.parse(str(v))


def _points(m: IterMap, size_env: Mapping[str, int]) -> list[dict[str, int]]:
    names = [v.payload for v, _ in m.sizes]
    sizes = [int(ia.evaluate(n, size_env)) for _, n in m.sizes]  # type: ignore[call-overload]
    return [{**size_env, **dict(zip(names, p))} for p in itertools.product(*map(range, sizes))]


def _check_by_evaluation(m: IterMap, size_env: Mapping[str, int]) -> None:
    whole = m.recompose()
    values = []
    for env in _points(m, size_env):
        got = ia.evaluate(m.index, env)
        assert ia.evaluate(whole, env) == got, env
        values.append(got)
    distinct = len(set(values)) == len(values)
    inj = m.injective()
    if inj is not None:
        assert inj == distinct
    bij = m.bijective()
    if bij:
        assert distinct and max(values) - min(values) + 1 == len(values)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_decompose(case: Case) -> None:
    m = decompose(case.index, case.ranges, case.variables)
    assert m.ok, m.why
    assert m.extents == tuple(_expr(e) for e in case.extents)
    assert m.strides == tuple(_expr(s) for s in case.strides)
    assert m.offset is _expr(case.offset)
    assert m.injective() == case.injective
    assert m.bijective() == case.bijective
    size_envs = [{"s0": 3, "s1": 5, "s2": 2}, {"s0": 4, "s1": 4, "s2": 3}]
    for env in size_envs if m.index.free_symbols != () else [{}]:
        _check_by_evaluation(m, env)


def test_symbolic_injective_by_proof() -> None:
    m = decompose("s0*s1*y + x", {"x": "s0", "y": 4, "s0": (1, None), "s1": (1, None)}, ["y", "x"])
    assert m.ok and m.injective() is True


@dataclass(frozen=True)
class Bad:
    index: str
    ranges: Mapping[str, object]
    why: str


BAD = [
    Bad("x*x", {"x": 8}, "not linear"),
    Bad("(x + 1)//2", {"x": 8}, "not a bare iteration variable"),
    Bad("x//3", {"x": 10}, "not a multiple of 3"),
    Bad("ModularIndexing(x, 1, 8) + ModularIndexing(x, 4, 8)", {"x": 64}, "overlap"),
    Bad("Where(x < 3, x, 0)", {"x": 8}, "not a digit"),
    Bad("x // y", {"x": 8, "y": 4}, "iteration variable in its divisor"),
    Bad("ModularIndexing(x, 1, 3) + ModularIndexing(x, 1, 5)", {"x": 15}, "overlapping digits"),
]


@pytest.mark.parametrize("bad", BAD, ids=lambda b: b.index)
def test_explains_failure(bad: Bad) -> None:
    m = decompose(bad.index, bad.ranges)
    assert not m.ok and bad.why in (m.why or "")
    with pytest.raises(ia.RangeError, match="does not decompose"):
        m.injective()


def test_coalesced_merges_chained_digits() -> None:
    m = decompose("x0 + 7*x1 + 100*x2", {"x0": 7, "x1": 3, "x2": 2}, ["x2", "x1", "x0"])
    assert m.extents == tuple(map(ia.as_expr, (2, 3, 7)))
    c = decompose(
        "ModularIndexing(x, 1, 7) + 7*ModularIndexing(x, 7, 3) + 100*(x//21)",
        {"x": 42},
        simplify=False,
    ).coalesced()
    assert c.extents == tuple(map(ia.as_expr, (2, 21)))
    assert c.strides == tuple(map(ia.as_expr, (100, 1)))
    assert ia.evaluate(c.recompose(), {"x": 30}) == ia.evaluate(c.index, {"x": 30})


def test_variable_needs_zero_based_range() -> None:
    with pytest.raises(ia.RangeError, match="needs a range"):
        decompose("x", {"x": (1, 8)})
    with pytest.raises(ia.ExprTypeError):
        decompose("x < 3", {"x": 8})


# --- extent-1 digits never loop (issue 16, bug 4) -----------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["y + y % 1", "y % 1", "3*(y % 1) + y", "y + ModularIndexing(y, 1, 1)", "y // 2 + y % 1"],
)
def test_a_digit_of_extent_one_is_refused_not_looped_on(text: str) -> None:
    m = decompose(ia.parse(text), {"y": 4}, simplify=False)
    assert not m.ok
    assert "extent 1" in (m.why or "")


def test_divisor_one_is_the_variable_itself() -> None:
    m = decompose(ia.parse("y + y // 1"), {"y": 4}, simplify=False)
    assert m.ok and [(d.divisor, d.extent, d.stride) for d in m.dims] == [
        (ia.Integer(1), ia.Integer(4), ia.Integer(2))
    ]
