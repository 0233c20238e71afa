"""The process-wide memos (results, parsed texts): exact, keyed by everything the answer
depends on, bounded, and cleared by ``ia.clear_caches()`` (tests/test_caches.py checks that
every memo is a registered :class:`indexalg.memo.Memo`)."""

from __future__ import annotations

import importlib

import pytest

import indexalg as ia
from indexalg.analysis.context import clear_contexts, context_for
from indexalg.analysis.decide import DECIDED
from indexalg.simplify import RESULTS, simplify_in
from indexalg.simplify.driver import default_index

# the package's parse function shadows its module's name
parse_mod = importlib.import_module("indexalg.parse")


@pytest.fixture(autouse=True)
def _cold() -> None:
    ia.clear_caches()


def test_repeated_call_is_memoised_and_equal() -> None:
    r = {"x": 4096}
    first = ia.simplify("x // 64 % 64 * 64 + x % 64", r)
    assert str(first) == "x"
    assert len(RESULTS) >= 1
    assert ia.simplify("x // 64 % 64 * 64 + x % 64", r) is first
    assert ia.simplify(ia.parse("x // 64 % 64 * 64 + x % 64"), r) is first


def test_result_depends_on_the_ranges() -> None:
    e = ia.parse("x // 64")
    assert str(ia.simplify(e, {"x": 64})) == "0"
    assert str(ia.simplify(e, {"x": 4096})) == "x // 64"
    assert str(ia.simplify(e, {"x": 64})) == "0"
    assert str(ia.simplify(e)) == "x // 64"


def test_assumptions_are_part_of_the_key() -> None:
    an = ia.Analyzer({"x": 4096})
    assert str(an.simplify("x // 64")) == "x // 64"
    with an.assume("x < 64"):
        assert str(an.simplify("x // 64")) == "0"
        with an.assume("x < 1"):
            assert str(an.simplify("x + 1")) == "1"
        assert str(an.simplify("x + 1")) == "x + 1"
    assert str(an.simplify("x // 64")) == "x // 64"
    assert str(ia.simplify("x // 64", {"x": 4096})) == "x // 64"


def test_custom_rules_procedures_and_step_limits_bypass_the_memo() -> None:
    r = {"x": 4096}
    e = "x // 64 % 64 * 64 + x % 64"
    assert str(ia.simplify(e, r)) == "x"
    assert str(ia.simplify(e, r, rules=(), procedures=())) != "x"
    clear_contexts()  # the memoised result stays; a context's own table does not
    with pytest.raises(ia.RewriteLimitError):
        ia.simplify(e, r, step_limit=0)
    res = ia.simplify_result(e, r)
    assert str(res.expr) == "x" and res.steps > 0


def test_errors_are_not_memoised() -> None:
    with pytest.raises(ia.ParseError):
        ia.simplify("x +", {"x": 4})
    with pytest.raises(ia.ParseError):
        ia.simplify("x +", {"x": 4})
    with pytest.raises(ia.RangeError):
        ia.simplify("x", {"x": (5, 2)})
    with pytest.raises(ia.ExprTypeError):
        ia.simplify(3.5, {"x": 4})  # type: ignore[arg-type]


def test_narrowed_contexts_are_not_memoised() -> None:
    ctx = context_for(ia.as_ranges({"x": 4096}))
    child = ctx.narrow(ia.as_ranges({"x": 64}))
    out, _ = simplify_in(ia.parse("x // 64"), child)
    assert str(out) == "0"
    assert (ia.parse("x // 64"), child.ranges) not in RESULTS
    assert str(ia.simplify("x // 64", {"x": 4096})) == "x // 64"


def test_result_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(RESULTS, "limit", 16)
    r = {"x": 4096}
    for k in range(100):
        assert str(ia.simplify(f"x // 64 + {k}", r)) == (f"x // 64 + {k}" if k else "x // 64")
        assert len(RESULTS) <= 16
    # the newest entry survives a trim; the tables of other ranges go first
    assert (ia.parse("x // 64 + 99"), ia.as_ranges(r)) in RESULTS
    other = {"x": 64}
    assert str(ia.simplify("x // 64", other)) == "0"
    assert (ia.parse("x // 64"), ia.as_ranges(other)) in RESULTS
    for k in range(100, 120):
        ia.simplify(f"x // 64 + {k}", r)
        assert len(RESULTS) <= 16
    assert (ia.parse("x // 64"), ia.as_ranges(other)) not in RESULTS
    assert (ia.parse("x // 64 + 119"), ia.as_ranges(r)) in RESULTS
    assert str(ia.simplify("x // 64", other)) == "0"  # recomputed, same answer


def test_clear_caches_empties_the_memos() -> None:
    ia.simplify("x // 64", {"x": 4096})
    assert RESULTS and parse_mod._PARSED
    ia.clear_caches()
    assert not RESULTS and not parse_mod._PARSED
    assert str(ia.simplify("x // 64", {"x": 64})) == "0"


def test_parse_memo_is_exact_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    a = ia.parse("x // 64 % 8")
    assert ia.parse("x // 64 % 8") is a
    monkeypatch.setattr(parse_mod._PARSED, "limit", 8)
    for k in range(40):
        assert str(ia.parse(f"x + {k}")) == (f"x + {k}" if k else "x")
        assert len(parse_mod._PARSED) <= 8
    with pytest.raises(ia.ExprTypeError):
        ia.parse(3)  # type: ignore[arg-type]


def test_rule_candidates_skip_roots_that_cannot_match() -> None:
    index = default_index()
    names = [r.name for r in index.candidates(ia.parse("x // s0"))]
    assert "floordiv_by_one" not in names and "floordiv_of_floordiv" not in names
    assert "floordiv_below_divisor" in names and "floordiv_self" in names
    by_one = ia.FloorDiv.make(ia.parse("x"), ia.parse("1"))
    if type(by_one) is ia.FloorDiv:  # the constructor may fold it already
        assert "floordiv_by_one" in [r.name for r in index.candidates(by_one)]
    nested = ia.parse("ModularIndexing(ModularIndexing(x, 1, 32), 2, 8)")
    assert "modular_indexing_nested" in [r.name for r in index.candidates(nested)]
    flat = ia.parse("ModularIndexing(x, 2, 8)")
    assert "modular_indexing_nested" not in [r.name for r in index.candidates(flat)]
    # the candidates keep table order
    order = [r.name for r in index.by_class[type(nested)]]
    got = [r.name for r in index.candidates(nested)]
    assert got == [n for n in order if n in got]


@pytest.mark.parametrize(
    ("claim", "ranges"),
    [
        ("x < s0", {"x": "s0", "s0": (1, None)}),
        ("x <= s0", {"x": (0, "s0"), "s0": (1, None)}),
        ("s0 < x", {"x": "s0", "s0": (1, None)}),
        ("x < 8", {"x": 16}),
        ("x < 16", {"x": 16}),
        ("x + y < s0 + 4", {"x": "s0", "y": 4, "s0": (1, None)}),
        ("x == 3", {"x": (3, 3)}),
        ("x % 4 == 1", {"x": 64}),
    ],
)
def test_holds_in_is_decide_in(claim: str, ranges: dict[str, object]) -> None:
    from indexalg.analysis.decide import decide_in, holds_in

    c = ia.parse(claim)
    ctx = context_for(ia.as_ranges(ranges))  # type: ignore[arg-type]
    v = decide_in(c, ctx)
    for want in (True, False):
        assert holds_in(c, ctx, want) is (v is want)
        assert holds_in(c, ctx, want) is (v is want)  # memoised
    assert (c, True) in ctx.memos[DECIDED]


def test_bounds_memo_keys_on_ranges_and_assumptions(monkeypatch: pytest.MonkeyPatch) -> None:
    analyzer_mod = importlib.import_module("indexalg.analyzer")
    assert ia.bounds("x // 64", {"x": 4096}) == (0, 63)
    assert ia.bounds("x // 64", {"x": 4096}) == (0, 63)
    assert ia.bounds("x // 64", {"x": 64}) == (0, 0)
    an = ia.Analyzer({"x": 4096})
    with an.assume("x < 128"):
        assert an.bounds("x // 64") == (0, 1)
    assert an.bounds("x // 64") == (0, 63)
    lo, hi = ia.bounds("x + s0", {"x": "s0", "s0": (1, None)})
    assert str(lo) == "s0" and str(hi) == "2*s0 - 1"
    assert ia.bounds("x + s0", {"x": "s0", "s0": (1, None)}) == (lo, hi)
    assert analyzer_mod._BOUNDS
    ia.clear_caches()
    assert not analyzer_mod._BOUNDS
    monkeypatch.setattr(analyzer_mod._BOUNDS, "limit", 4)
    for k in range(20):
        assert ia.bounds(f"x + {k}", {"x": 8}) == (k, k + 7)
        assert len(analyzer_mod._BOUNDS) <= 4
    with pytest.raises(ia.RangeError):
        ia.bounds("x", {"x": (5, 2)})
