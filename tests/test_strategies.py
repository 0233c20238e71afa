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


# --- the adversarial generator (indexalg.testing.adversarial) ------------------------------

from indexalg.testing import adversarial, exhaustive  # noqa: E402
from indexalg.testing.adversarial import (  # noqa: E402
    adversarial_cases,
    adversarial_claims,
    adversarial_exprs,
    adversarial_ranges,
)


def test_adversarial_exports_four_documented_strategies() -> None:
    assert sorted(adversarial.__all__) == [
        "adversarial_cases",
        "adversarial_claims",
        "adversarial_exprs",
        "adversarial_ranges",
    ]
    for name in adversarial.__all__:
        doc = getattr(adversarial, name).__doc__ or ""
        assert len(doc.strip()) > 80, name


@FAST
@given(adversarial_cases())
def test_adversarial_cases_hold_every_point_of_the_domain(case: Any) -> None:
    e, r, points = case
    assert isinstance(e, ia.Expr) and not e.is_bool
    assert {s.payload for s in e.free_symbols} <= {"x", "y", "s0", "u"}
    dom = exhaustive.domain_points(r, variables=e.free_symbols, window=4)
    assert dom is not None and dom[0] == points
    assert len(points) <= adversarial.MAX_POINTS
    for p in points:
        assert _in_range(p, {k: v for k, v in r.items() if k in p})
    # sizes: a literal lower bound, >= 1 but for the odd ranges, or no range at all
    lo, _ = as_ranges(r).get_bounds(Symbol("s0"))
    assert lo is None or (type(lo) is Integer and lo.payload >= -2)


@FAST
@given(adversarial_cases(claims=True))
def test_adversarial_claims_are_claims(case: Any) -> None:
    assert case[0].is_bool


def test_adversarial_exprs_share_subterms() -> None:
    """Some expression holds a node twice as a direct product factor (a square)."""

    def square(e: ia.Expr) -> bool:
        return any(
            type(n) is ia.Mul and len(n.args) >= 2 and len(set(n.args)) < len(n.args)
            for n in e.walk()
        )

    e = find(adversarial_exprs(), square, settings=settings(database=None, max_examples=2000))
    assert square(e)


def test_adversarial_exprs_emit_inductors_lowered_remainder() -> None:
    e = find(
        adversarial_exprs(),
        lambda e: "x - 2*(x // 2)" in str(e),
        settings=settings(database=None, max_examples=3000),
    )
    assert "x - 2*(x // 2)" in str(e)


SHRINKS_ADV = [
    Shrink(adversarial_ranges(), {"x": (0, 0), "y": (0, 0), "s0": (1, 4)}),
    Shrink(adversarial_exprs(), ia.parse("x*x")),
]


@pytest.mark.parametrize("case", SHRINKS_ADV, ids=lambda c: repr(c.minimal))
def test_adversarial_examples_shrink(case: Shrink) -> None:
    assert minimal(case.strategy, case.condition) == case.minimal


BAD_ADV = [
    Bad(lambda: adversarial_exprs(max_steps=0), "max_steps=0"),
    Bad(lambda: adversarial_exprs(variables=()), "at least one symbol"),
    Bad(lambda: adversarial_exprs(variables=("x",), sizes=("x",)), "disjoint"),
    Bad(lambda: adversarial_claims(free="u"), "sequence of symbol names"),
    Bad(lambda: adversarial_ranges(sizes=("s", "s")), "twice"),
    Bad(lambda: adversarial_cases(claims=1), "claims=1"),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("case", BAD_ADV, ids=lambda c: c.message)
def test_adversarial_bad_arguments_raise_invalid_argument(case: Bad) -> None:
    test_bad_arguments_raise_invalid_argument_on_first_use(case)


# --- exhaustive evaluation (indexalg.testing.exhaustive) -----------------------------------


@FAST
@given(exprs(variables=("x", "y"), max_leaves=8), st.integers(-5, 5), st.integers(-5, 5))
def test_compiled_expressions_agree_with_the_evaluator(e: ia.Expr, vx: int, vy: int) -> None:
    fn = exhaustive.compile_expr(e, ("x", "y"))
    try:
        want: object = evaluate(e, {"x": vx, "y": vy})
    except IndexAlgError:
        want = "undefined"
    try:
        got: object = fn(vx, vy)
    except exhaustive.Undefined:
        got = "undefined"
    assert got == want


def test_domain_points_follow_the_domain_of_the_variables() -> None:
    r: dict[str, Any] = {"x": "s0", "s0": (1, 3), "q": (5, 4 + 1)}
    pts, full = exhaustive.domain_points(r, variables=("x",)) or ([], False)
    assert full and len(pts) == 1 + 2 + 3 and all(set(p) == {"x", "s0"} for p in pts)
    pts, full = exhaustive.domain_points({"x": (2, None)}, variables=("x", "u"), window=1) or (
        [],
        True,
    )
    assert not full and len(pts) == 2 * 3
    assert exhaustive.domain_points({"x": 100, "y": 100}, variables=("x", "y"), limit=999) is None


@pytest.mark.parametrize(
    ("bound", "exact", "kind"),
    [
        ((0, 9), (0, 9), "exact"),
        ((-1, 10), (0, 9), "within 1"),
        ((-5, 9), (0, 9), "within 2x"),
        ((-11, 9), (0, 9), "worse"),
        ((0, 0), (0, 0), "exact"),
        ((0, 1), (0, 0), "within 1"),
        ((0, 3), (0, 0), "worse"),
        ((None, 9), (0, 9), "unbounded"),
    ],
)
def test_looseness_categories(bound: Any, exact: tuple[int, int], kind: str) -> None:
    assert exhaustive.looseness(bound, exact) == kind


def test_bounds_looseness_measures_symbolic_bounds_per_size() -> None:
    e = ia.parse("x + s0")  # bounds [s0, 2*s0 - 1]: exact for every s0
    r: dict[str, Any] = {"x": "s0", "s0": (1, 4)}
    pts, _ = exhaustive.domain_points(r, variables=e.free_symbols) or ([], False)
    assert exhaustive.bounds_looseness(e, r, ia.bounds(e, r), pts) == "exact"
    loose = (ia.Integer(0), ia.parse("2*s0 + 5"))
    assert exhaustive.bounds_looseness(e, r, loose, pts) == "worse"
    assert exhaustive.bounds_looseness(e, {"x": (0, None)}, (0, None), pts) is None


def test_check_exact_bounds_reports_a_slow_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from indexalg.testing.oracles import PropertyFailure

    def slow(e: Any, r: Any = None, *, exact: bool = False) -> tuple[int, int]:
        time.sleep(5)
        return (0, 0)

    monkeypatch.setattr(ia, "bounds", slow)
    start = time.perf_counter()
    with pytest.raises(PropertyFailure) as info:
        exhaustive.check_exact_bounds(ia.parse("x"), {"x": 1}, [{"x": 0}], timeout=0.5)
    assert time.perf_counter() - start < 3
    assert info.value.case.kind == "exact bounds too slow"
    assert info.value.case.command.endswith("--exact")


def test_check_exact_bounds_wants_the_exact_range_on_finite_domains(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from indexalg.testing.oracles import PropertyFailure

    monkeypatch.setattr(ia, "bounds", lambda e, r=None, *, exact=False: (-1, 9))
    points = [{"x": v} for v in range(4)]
    with pytest.raises(PropertyFailure, match="the exact lo is 0"):
        exhaustive.check_exact_bounds(ia.parse("x*x"), {"x": 4}, points)


def test_check_exact_bounds_reads_the_exact_range_from_the_whole_domain() -> None:
    # the compiler generator's points are a sample: x*x on [-1, 1] sampled at -1 and 1 has
    # the sample range [1, 1], but the exact lo is 0 (x = 0), which exact=True rightly gives
    lo, hi = exhaustive.check_exact_bounds(ia.parse("x*x"), {"x": (-1, 1)}, [{"x": -1}, {"x": 1}])
    assert (getattr(lo, "payload", lo), getattr(hi, "payload", hi)) == (0, 1)
