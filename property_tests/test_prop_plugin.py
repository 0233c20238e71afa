"""The Inductor plug-in fuzzed with a generator of its own (:mod:`indexalg.testing.plugin_fuzz`).

Seed-driven: each test runs a fixed campaign (random ShapeEnvs with guards, replacements and
float symbols; index expressions in torch's sympy functions; calls in random order across
every patched entry point, between memo events) and asserts that the plug-in gave no wrong
answer, in value or in the C++ / Triton code Inductor prints for it.  Stock Inductor's own
wrong answers are counted in the report, not failures here.  About 2,000 calls in all.
"""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("sympy")

from prop_support import SCALE

from indexalg.testing import plugin_fuzz as pf


def _n(calls: int) -> int:
    return max(10, round(calls * SCALE))


#: (seed, calls, float_rate): float symbols in a fifth of the ShapeEnvs, or in every one
CAMPAIGNS = [(seed, 100, 0.2) for seed in range(6)] + [(100 + s, 80, 1.0) for s in range(2)]


def _check(report: pf.PluginFuzzReport) -> None:
    wrong = [f for f in report.findings if f.category == pf.PLUGIN_WRONG]
    assert report.plugin_wrong == 0, (
        report.summary() + "\n" + "\n".join(f.reproducer for f in wrong[:2])
    )
    # an exception inside indexalg is caught (stock answers) but is a bug all the same
    errors = [f for f in report.findings if f.category == pf.PLUGIN_ERROR]
    assert report.plugin_errors == 0, "\n".join(f"{f.detail}\n{f.reproducer}" for f in errors[:2])


@pytest.mark.parametrize(("seed", "calls", "float_rate"), CAMPAIGNS)
def test_plugin_answers_are_right_at_every_point_the_guards_allow(
    seed: int, calls: int, float_rate: float
) -> None:
    report = pf.run(_n(calls), seed=seed, stock_rate=0.1, float_rate=float_rate, max_findings=3)
    assert report.calls == _n(calls)
    _check(report)


@pytest.mark.parametrize("seed", range(2))
def test_simplify_with_ranges_prints_right_in_cpp_and_triton(seed: int) -> None:
    """simplify_with_ranges alone (its result printed by both printers, evaluated in C
    semantics), with the claims it leads to inside."""
    report = pf.run(
        _n(100), seed=1000 + seed, entries=["simplify_with_ranges"], stock_rate=0.1, max_findings=3
    )
    c = report.per_entry["simplify_with_ranges"]
    assert c.checked > 0
    _check(report)


@pytest.mark.parametrize("seed", range(2))
def test_claims_with_memos_shared_across_entry_points(seed: int) -> None:
    """claims and simplifications over the same subterms, so one call's memo meets the next
    (a claim's ``Mod`` then a simplification's ``PythonMod`` of the same dividend)."""
    entries = ["statically_known_multiple_of", "simplify_with_ranges", "maybe_evaluate_static"]
    report = pf.run(_n(90), seed=2000 + seed, entries=entries, stock_rate=0.1, max_findings=3)
    _check(report)


# --- the checker itself -----------------------------------------------------------------


def test_c_semantics_of_the_printed_code() -> None:
    """The evaluators of printed code truncate where C and Triton do."""
    assert pf.c_eval("(-7L) / 2L", {}) == -3
    assert pf.c_eval("(-7L) % 2L", {}) == -1
    assert (
        pf.c_eval("c10::div_floor_integer(static_cast<int64_t>(-7L), static_cast<int64_t>(2L))", {})
        == -4
    )
    assert pf.c_eval("c10::div_mod(-7L, 2L)", {}) == 1
    assert (
        pf.c_eval(
            "x < 3L ? x : std::max(static_cast<int64_t>(x), static_cast<int64_t>(9L))", {"x": 4}
        )
        == 9
    )
    assert pf.c_eval("std::min<int64_t>({a, b, 2L})", {"a": 5, "b": -1}) == -1
    assert pf.triton_eval("(-7) // 2", {}) == -3
    assert pf.triton_eval("(-7) % 2", {}) == -1
    assert pf.triton_eval("triton_helpers.div_floor_integer(-7,  2)", {}) == -4
    assert pf.triton_eval("tl.where(x > 1, x, 0)", {"x": 3}) == 3


def test_checker_sees_a_modular_indexing_printed_wrong() -> None:
    """Inductor prints ModularIndexing(x - 1, 4, 2) with C's %: -1 at x = 0 where the value
    is 1 (issue 26, bug 5): the checker must tell the printed code from the value."""
    import sympy
    from torch._inductor.codegen.cpp_utils import cexpr
    from torch._inductor.codegen.triton import texpr
    from torch.utils._sympy.functions import ModularIndexing, PythonMod

    x = sympy.Symbol("x2", integer=True, nonnegative=True)
    e = ModularIndexing(x - 1, 4, 2)
    assert pf.true_value(e, {x: 0}) == 1
    assert pf.c_eval(cexpr(e), {"x2": 0}) == -1
    assert pf.triton_eval(texpr(e), {"x2": 0}) == 0  # (-1 // 4) truncates to 0
    right = PythonMod(ModularIndexing(x - 1, 4, 2), 2)
    assert pf.c_eval(cexpr(right), {"x2": 0}) == 1


@pytest.mark.parametrize("seed", range(2))
def test_size_hints_are_the_value_at_the_hint_point(seed: int) -> None:
    """optimization_hint and guarding_hint_or_throw alone: every answer the exact int value
    of the expression at the ShapeEnv's hints (guards and replacements taken there)."""
    from torch._inductor.sizevars import SizeVarAllocator

    entries = [
        e for e in ("optimization_hint", "guarding_hint_or_throw") if hasattr(SizeVarAllocator, e)
    ]
    if not entries:
        pytest.skip("this torch has no SizeVarAllocator.optimization_hint")
    report = pf.run(_n(120), seed=3000 + seed, entries=entries, stock_rate=0.2, max_findings=3)
    assert sum(report.per_entry[e].checked for e in entries if e in report.per_entry) > 0
    _check(report)


def test_an_exception_caught_inside_the_plugin_is_a_finding(monkeypatch) -> None:
    """A bug that raises inside indexalg is caught by the fallback wrapper (stock answers,
    so no answer is wrong); the fuzzer still counts it, with the place it was raised."""
    from indexalg.inductor import _entries

    def broken(*args, **kwargs):
        raise AttributeError("injected")

    monkeypatch.setattr(_entries, "_check_printable", broken)
    report = pf.run(30, seed=1000, entries=["simplify_with_ranges"], stock_rate=0.0)
    assert report.plugin_wrong == 0
    assert report.plugin_errors == report.per_entry["simplify_with_ranges"].plugin_error > 0
    (first, *_) = [f for f in report.findings if f.category == pf.PLUGIN_ERROR]
    assert "in broken" in first.detail and "AttributeError: injected" in first.detail
    assert "in _fast_simplify_with_ranges" in first.detail
    assert report.as_json()["plugin_errors"] == report.plugin_errors
