"""indexalg.testing.strategies: every exported strategy is documented, generates valid
values (well-formed expressions, ranges as_ranges accepts, points inside their ranges),
shrinks towards what its docstring says, and rejects bad arguments with InvalidArgument on
first use, as Hypothesis's own strategies do."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, Verbosity, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import indexalg as ia
from indexalg.errors import IndexAlgError
from indexalg.evaluate import evaluate
from indexalg.expr import Integer, ModularIndexing, Symbol
from indexalg.ranges import RangeSpec, as_ranges
from indexalg.testing import strategies
from indexalg.testing.strategies import OPS, assignments, claims, exprs, ranges

FAST = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
STRATEGY_FUNCTIONS = [n for n in strategies.__all__ if callable(getattr(strategies, n))]


def test_all_lists_the_four_strategies_and_ops() -> None:
    assert sorted(strategies.__all__) == ["OPS", "assignments", "claims", "exprs", "ranges"]


@pytest.mark.parametrize("name", STRATEGY_FUNCTIONS)
def test_every_exported_strategy_is_documented(name: str) -> None:
    doc = getattr(strategies, name).__doc__ or ""
    assert len(doc.strip()) > 80
    assert "shrink" in doc, f"{name}'s docstring must say what examples shrink towards"


# --- valid, in-range values ------------------------------------------------------------------


def _in_range(point: dict[str, int], r: Any) -> bool:
    for sym, (lo, hi) in as_ranges(r).items():
        v = point[sym.payload]
        if lo is not None and v < evaluate(lo, point):
            return False
        if hi is not None and v > evaluate(hi, point):
            return False
    return True


@FAST
@given(exprs(variables=("a", "b"), sizes=("n",), max_leaves=12))
def test_exprs_are_integer_expressions_over_the_given_symbols(e: ia.Expr) -> None:
    assert isinstance(e, ia.Expr) and not e.is_bool
    assert {s.payload for s in e.free_symbols} <= {"a", "b", "n"}
    for node in e.walk():  # literal ModularIndexing divisors and moduli are >= 1
        if type(node) is ModularIndexing:
            for arg in node.args[1:]:
                assert type(arg) is not Integer or arg.payload >= 1


@FAST
@given(exprs(variables=("a", "b"), sizes=("n",)), st.integers(1, 50), st.data())
def test_exprs_with_sizes_are_defined_when_sizes_are_positive(
    e: ia.Expr, n: int, data: st.DataObject
) -> None:
    r: dict[str, RangeSpec] = {"a": (-9, 9), "b": 20, "n": (n, n)}
    point = data.draw(assignments(r))
    evaluate(e, point)  # symbolic divisors come from the positive size: never undefined


@FAST
@given(exprs(ops=["ModularIndexing"], max_leaves=6))
def test_exprs_ops_restricts_the_operations(e: ia.Expr) -> None:
    assert all(type(n) in (Symbol, Integer, ModularIndexing, ia.Add, ia.Mul) for n in e.walk())


@FAST
@given(claims(sizes=("s0",)))
def test_claims_are_claims(c: ia.Expr) -> None:
    assert c.is_bool


@FAST
@given(ranges(("x", "y"), sizes=("s0", "s1"), max_extent=100))
def test_ranges_are_accepted_and_sizes_are_positive(r: dict[str, Any]) -> None:
    normal = as_ranges(r)
    assert set(r) <= {"x", "y", "s0", "s1"} and {"s0", "s1"} <= set(r)
    for name in ("s0", "s1"):
        lo, hi = normal[Symbol(name)]
        assert type(lo) is Integer and lo.payload >= 1
        assert hi is None or (type(hi) is Integer and lo.payload <= hi.payload <= 100)


@FAST
@given(ranges(("x", "y"), allow_negative=False, allow_unbounded=False))
def test_ranges_without_negative_or_unbounded_sides(r: dict[str, Any]) -> None:
    for lo, hi in as_ranges(r).values():
        assert type(lo) is Integer and lo.payload >= 0 and hi is not None


@FAST
@given(st.data())
def test_assignments_are_inside_their_ranges(data: st.DataObject) -> None:
    r = data.draw(ranges(("x", "y", "z"), sizes=("s0",)))
    point = data.draw(assignments(r, variables=("w",)))
    assert set(point) >= set(r) | {"w"}
    assert _in_range(point, r)


def test_assignments_reach_both_corners_of_each_range() -> None:
    r: dict[str, RangeSpec] = {"x": (-3, 5), "y": 7}
    seen: set[tuple[int, int]] = set()

    @settings(max_examples=200, database=None, derandomize=True)
    @given(assignments(r))
    def collect(p: dict[str, int]) -> None:
        seen.add((p["x"], p["y"]))

    collect()
    assert {(-3, 0), (5, 6), (-3, 6), (5, 0)} <= seen


# --- shrinking -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shrink:
    strategy: Any
    minimal: Any
    condition: Callable[[Any], bool] = field(default=lambda _: True)


SYMBOLIC: dict[str, RangeSpec] = {"x": (3, 9), "y": "s", "s": (2, 5)}
SHRINKS = [
    Shrink(exprs(), ia.parse("x")),
    Shrink(exprs(variables=("i", "j")), ia.parse("i")),
    Shrink(exprs(), ia.parse("x // 1"), lambda e: type(e) is ia.FloorDiv),
    Shrink(claims(), ia.parse("x < 0")),
    Shrink(ranges(), {}),
    Shrink(ranges(allow_unbounded=False), {"x": 1, "y": 1, "z": 1}),
    Shrink(ranges(("a",), sizes=("s",)), {"s": (1, None)}),
    Shrink(ranges(("a",), sizes=("s",), allow_unbounded=False), {"a": 1, "s": (1, 1)}),
    Shrink(assignments(SYMBOLIC), {"s": 2, "x": 3, "y": 0}),
    Shrink(assignments({"x": (None, -2)}), {"x": -2}),
    Shrink(assignments({}, variables=("u",)), {"u": 0}),
    # Off the lower corner, the upper corner is simpler than any value between.
    Shrink(assignments({"x": 10}), {"x": 9}, lambda p: p["x"] > 0),
    Shrink(assignments({"x": 10}), {"x": 1}, lambda p: 0 < p["x"] < 9),
]


class _Found(Exception):
    pass


def minimal(strategy: Any, condition: Callable[[Any], bool]) -> Any:
    """The example Hypothesis shrinks to among those satisfying ``condition``."""
    seen: list[Any] = []

    @settings(
        database=None,
        max_examples=500,
        phases=[Phase.generate, Phase.shrink],
        verbosity=Verbosity.quiet,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def search(x: Any) -> None:
        if condition(x):
            seen.append(x)
            raise _Found

    with pytest.raises(_Found):
        search()
    return seen[-1]  # the last failing call replays the minimal example


@pytest.mark.parametrize("case", SHRINKS, ids=lambda c: repr(c.minimal))
def test_examples_shrink_as_documented(case: Shrink) -> None:
    assert minimal(case.strategy, case.condition) == case.minimal


# --- bad arguments ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Bad:
    build: Callable[[], Any]
    message: str


BAD = [
    Bad(lambda: exprs(max_leaves=0), "max_leaves=0"),
    Bad(lambda: exprs(max_leaves="3"), "max_leaves='3'"),  # type: ignore[arg-type]
    Bad(lambda: exprs(max_leaves=True), "max_leaves=True"),
    Bad(lambda: exprs(variables=()), "at least one symbol"),
    Bad(lambda: exprs(variables="xy"), "sequence of symbol names"),
    Bad(lambda: exprs(variables=("x", "x")), "twice"),
    Bad(lambda: exprs(variables=("1x",)), "symbol names"),
    Bad(lambda: exprs(variables=("x",), sizes=("x",)), "disjoint"),
    Bad(lambda: exprs(ops=["Pow"]), "not one of"),
    Bad(lambda: exprs(ops="Add"), "collection of operations"),
    Bad(lambda: exprs(constants=[1, 2]), "SearchStrategy"),  # type: ignore[arg-type]
    Bad(lambda: exprs(constants=st.just("1")), "must generate ints"),  # type: ignore[arg-type]
    Bad(lambda: claims(max_atoms=0), "max_atoms=0"),
    Bad(lambda: ranges(max_extent=0), "max_extent=0"),
    Bad(lambda: ranges(allow_negative=1), "allow_negative=1"),  # type: ignore[arg-type]
    Bad(lambda: ranges(("x",), sizes=("x",)), "disjoint"),
    Bad(lambda: assignments({"x": 0}), "not a valid range table"),
    Bad(lambda: assignments({"x": (5, 1)}), "not a valid range table"),
    Bad(lambda: assignments({"x": ("y", 9), "y": ("x", 9)}), "cycle"),
    Bad(lambda: assignments({"x": 4}, spread=-1), "spread=-1"),
    Bad(lambda: assignments([1, 2]), "not a valid range table"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("case", BAD, ids=lambda c: c.message)
def test_bad_arguments_raise_invalid_argument_on_first_use(case: Bad) -> None:
    strategy = case.build()  # building is lazy, as Hypothesis's own strategies are
    with pytest.raises(InvalidArgument, match=case.message.replace("(", r"\(")):
        find(strategy, lambda _: True, settings=settings(database=None, max_examples=5))


def test_ops_names_every_integer_operation_but_leaves() -> None:
    from indexalg.expr import INTEGER_OPS

    assert set(OPS) == {c.__name__ for c in INTEGER_OPS} - {"Integer", "Symbol"}


def test_strategies_have_readable_reprs() -> None:
    assert repr(exprs(max_leaves=5)) == "deferred(exprs(max_leaves=5))"
    assert repr(ranges()) == "deferred(ranges())"


def test_undefined_points_are_left_to_the_property() -> None:
    # A symbolic divisor from the variables can be zero inside the ranges: assignments does
    # not avoid it, and evaluation says so with a library error.
    e = ia.parse("x // y")
    with pytest.raises(IndexAlgError):
        evaluate(e, find(assignments({"x": 4, "y": 3}), lambda p: p["y"] == 0))
