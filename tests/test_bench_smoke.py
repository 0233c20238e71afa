"""bench.simplify: the side-by-side simplifier benchmark, on tiny inputs and without TVM.

Covers the pieces whose mistakes would silently corrupt the published numbers: the
operation counter (one counter for every system), the reading of corpus records, the
in-range sampler, the mismatch detector, the statistics, the RESULTS.md insertion, and one
end-to-end run through the command line (indexalg only, in a worker process).
"""

from __future__ import annotations

import importlib.util
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import indexalg as ia
from bench._timing import percentile, summarise
from bench.simplify import (
    SYSTEMS,
    Case,
    append_results,
    cases_from_corpus,
    find_mismatch,
    generate_cases,
    main,
    op_counts,
    quick_subset,
    run_benchmark,
    sample_points,
)


@dataclass(frozen=True)
class Count:
    text: str
    divmod: int
    total: int


COUNTS = [
    Count("x", 0, 0),
    Count("x + 1", 0, 1),
    Count("x + y + 3", 0, 2),
    Count("-x", 0, 0),  # negation is free
    Count("24*x", 0, 1),
    Count("24*x*y + z", 0, 3),
    Count("x // 8", 1, 1),
    Count("x % 8", 1, 1),
    Count("ModularIndexing(x, 1, 8)", 1, 1),
    Count("ModularIndexing(x, 64, 8)", 2, 2),
    Count("(x // 64) % 8", 2, 2),  # TVM's spelling of the line above counts the same
    Count("ModularIndexing(x, s0, 8)", 2, 2),
    Count("CeilDiv(x, 4)", 1, 1),
    Count("24*ModularIndexing(x, 1, 10) + x // 10", 2, 4),
    # a repeated subexpression counts each time it occurs
    Count("(x // 8) + 2*(x // 8)*y", 2, 5),
    Count("Min(x, 3, y)", 0, 2),
    Count("Where(x < 0, x + 8, x)", 0, 3),
]


def test_distinct_divmod_counts_a_repeated_subexpression_once() -> None:
    counts = op_counts(ia.parse("(x // 8) + 2*(x // 8)*y + ModularIndexing(x, 8, 4)"))
    assert (counts.divmod, counts.divmod_distinct) == (4, 3)


@pytest.mark.parametrize("row", COUNTS, ids=[c.text for c in COUNTS])
def test_op_counts(row: Count) -> None:
    assert op_counts(ia.parse(row.text))[:2] == (row.divmod, row.total)


RECORD: dict[str, Any] = {
    "workload": "add_permute_3d",
    "dynamic": True,
    "expr": "n0 + n1*s27*s77",
    "expr_fn": "n0 + n1*s27*s77",
    "srepr": "Add(Symbol('n0', integer=True, nonnegative=True), Mul(Symbol('n1', "
    "integer=True, nonnegative=True), Symbol('s27', positive=True, integer=True), "
    "Symbol('s77', positive=True, integer=True)))",
    "var_ranges": {"n1": [0, "s53 - 1"], "n0": [0, "s27*s77 - 1"]},
    "var_sizes": {"n1": "s53", "n0": "s27*s77"},
    "symbols": {
        "s77": {"range": [2, None], "hint": 9},
        "s27": {"range": [2, None], "hint": 3},
        "s53": {"range": [2, 10], "hint": 5},
    },
}


def test_cases_from_corpus_reads_the_documented_fields() -> None:
    (case,) = cases_from_corpus([RECORD])
    assert case.text == "n0 + n1*s27*s77"
    # size symbols first (sorted), then loop variables (sorted), inclusive bounds
    assert case.ranges == (
        ("s27", 2, None),
        ("s53", 2, 10),
        ("s77", 2, None),
        ("n0", 0, "s27*s77 - 1"),
        ("n1", 0, "s53 - 1"),
    )
    assert case.loop_sizes == (("n0", "s27*s77"), ("n1", "s53"))
    assert case.srepr == RECORD["srepr"]
    assert (case.workload, case.dynamic) == ("add_permute_3d", True)
    assert Case.from_json(case.to_json()) == case


def test_sample_points_stay_in_range_with_symbolic_sizes() -> None:
    (case,) = cases_from_corpus([RECORD])
    points = sample_points(case, ia.parse(case.text), 40, random.Random(1))
    assert len(points) == 40
    for env in points:
        assert 2 <= env["s27"] <= 2 + 63 and 2 <= env["s77"] <= 2 + 63
        assert 2 <= env["s53"] <= 10
        assert 0 <= env["n0"] <= env["s27"] * env["s77"] - 1
        assert 0 <= env["n1"] <= env["s53"] - 1
    # the two corner points: every symbol at its lower bound, then at its (capped) upper
    assert points[0] == {"s27": 2, "s53": 2, "s77": 2, "n0": 0, "n1": 0}
    assert points[1]["n0"] == points[1]["s27"] * points[1]["s77"] - 1


def test_find_mismatch_catches_a_wrong_output_and_passes_a_right_one() -> None:
    case = Case("ModularIndexing(x0, 1, 8)", (("x0", 0, 15),), (("x0", 16),))
    e = ia.parse(case.text)
    expected = [(env, ia.evaluate(e, env)) for env in ({"x0": v} for v in range(16))]
    assert find_mismatch("s", case, expected, ia.parse("x0 - 8*(x0 // 8)")) is None
    bad = find_mismatch("s", case, expected, ia.parse("x0"))
    assert bad is not None and bad.point == {"x0": 8} and bad.expected == 0 and bad.got == "8"
    # an output that fails where the input has a value is a mismatch too
    # ((x0 - 3) // (x0 - 3) is 1 except at x0 = 3, where it divides by zero)
    output = ia.parse("x0 % 8 + (x0 - 3) // (x0 - 3) - 1")
    failing = find_mismatch("s", case, expected, output)
    assert failing is not None and failing.point == {"x0": 3}
    assert failing.got.startswith("error")


def test_generated_cases_are_seeded_and_well_formed() -> None:
    a = generate_cases(24, seed=3)
    assert a == generate_cases(24, seed=3)
    assert a != generate_cases(24, seed=4)
    assert len({c.workload for c in a}) == 8
    for c in a:
        ia.parse(c.text)
        ia.as_ranges(c.ranges_spec())
        assert {n for n, _ in c.loop_sizes} <= {n for n, _, _ in c.ranges}


def test_quick_subset_is_every_kth_case() -> None:
    cases = generate_cases(40)
    assert quick_subset(cases, 10) == cases[::4]
    assert quick_subset(cases[:5], 10) == cases[:5]


def test_statistics() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 100) == 4.0
    s = summarise([1000, 3000, 2000, 100_000])
    assert (s.n, s.median_us, s.mean_us) == (4, 2.5, 26.5)
    assert s.p99_us == pytest.approx(97.09)


def test_append_results_puts_the_newest_run_first(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    append_results("## run 1\n\nfirst\n", path)
    append_results("## run 2\n\nsecond\n", path)
    text = path.read_text()
    assert text.startswith("# Benchmark results\n")
    assert text.index("## run 2") < text.index("## run 1")
    assert "\n\n\n" not in text


def test_append_results_above_a_section_at_the_top_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "RESULTS.md"
    path.write_text("## another benchmark\n\nits table\n")
    append_results("## run 1\n\nfirst\n", path)
    assert path.read_text() == "## run 1\n\nfirst\n\n## another benchmark\n\nits table\n"


def test_in_process_run_of_indexalg_has_no_mismatch() -> None:
    cases = generate_cases(16, seed=5)
    systems = [s for s in SYSTEMS if s.key == "indexalg"]
    bench = run_benchmark(cases, systems, source="smoke", points=8, in_process=True)
    (rep,) = bench.reports
    assert rep.count("ok") == 16 and not rep.mismatches
    assert bench.common() == list(range(16))
    table = bench.table()
    assert "| indexalg ia.simplify | fresh (caches cleared, ranges timed) | 16 |" in table
    # the generated nested ModularIndexing and split dims leave fewer div/mod than the input
    dm_in = sum(bench.input_counts[i].divmod for i in range(16))
    dm_out = sum(rep.counts[i].divmod for i in range(16))
    assert dm_out < dm_in


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
@pytest.mark.slow
def test_in_process_run_of_inductor_reads_its_outputs_back() -> None:
    cases = generate_cases(8, seed=6)
    systems = [s for s in SYSTEMS if s.key == "inductor"]
    bench = run_benchmark(cases, systems, source="smoke", points=8, in_process=True)
    (rep,) = bench.reports
    assert rep.count("ok") == 8 and not rep.mismatches and rep.unreadable == 0


def test_command_line_prints_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--generated", "8", "--no-tvm", "--no-inductor", "--points", "4"]
    # two rows, each in its worker process, taking turns by chunks of 3 cases, two rounds
    assert main([*argv, "--rounds", "2", "--chunk", "3"]) == 0
    out = capsys.readouterr().out
    assert "generated corpus (8 expressions, seed 0)" in out
    assert "| indexalg ia.simplify | fresh (caches cleared, ranges timed) | 8 | 0 | 0 |" in out
    row = "| indexalg ia.simplify, in-compile | caches carried (ranges untimed) | 8 | 0 | 0 |"
    assert row in out
    assert "| input (8 common of 8) |" in out


# --- bench.compare -----------------------------------------------------------------------


def test_compare_generator_is_seeded_distinct_and_well_formed() -> None:
    from bench.compare import FAMILIES, NAMED, all_cases, generate

    a = generate(40, seed=1)
    assert a == generate(40, seed=1) and a != generate(40, seed=2)
    assert len({(c.text, c.ranges) for c in a}) == 40
    assert len({c.workload for c in a}) == len({f.__name__ for f in FAMILIES})
    cases = all_cases(12, seed=0)
    assert cases[: len(NAMED)] == list(NAMED) and len(cases) == len(NAMED) + 12
    for c in cases:
        e = ia.parse(c.text)
        ia.as_ranges(c.ranges_spec())
        assert "Div" in c.text or "Mod" in c.text, c.text
        assert {s.name for s in e.free_symbols} <= {n for n, _, _ in c.ranges}
        assert {n for n, _ in c.loop_sizes} <= {n for n, _, _ in c.ranges}


def test_compare_finds_losses_against_another_system() -> None:
    from bench.compare import NAMED, losses, losses_markdown, report
    from bench.simplify import CaseResult, System, SystemReport

    cases = list(NAMED[:4])
    systems = [s for s in SYSTEMS if s.key == "indexalg"]
    bench = run_benchmark(cases, systems, source="smoke", points=8, in_process=True)
    (rep,) = bench.reports
    assert rep.count("ok") == 4 and not rep.mismatches
    # a made-up system that answers 0 div/mod everywhere: indexalg loses where it keeps one
    other = SystemReport(
        System("other", "Other", "cold", "warm", "indexalg"),
        [CaseResult("ok", "x", cold_ns=1, warm_ns=1) for _ in cases],
    )
    for i in range(len(cases)):
        other.outputs[i] = ia.parse("x")
        other.counts[i] = op_counts(other.outputs[i])
    bench.reports.append(other)
    lost = losses(bench, "other")
    assert [x.index for x in lost] == [i for i in range(4) if rep.counts[i].divmod > 0]
    text = report(bench, command="smoke", commit="abc")
    assert "| Other | 4 | 0 | 0 | 0 (0) |" in text
    assert f"Where indexalg leaves more div/mod than other ({len(lost)} expressions)" in text
    md = losses_markdown(bench, commit="abc", command="smoke")
    assert f"## Losses to Other: {len(lost)}" in md and "### named" in md


def test_compare_command_line_without_tvm(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bench.compare import main as compare_main

    out_jsonl, out_md = tmp_path / "per.jsonl", tmp_path / "losses.md"
    argv = ["-n", "6", "--no-tvm", "--no-inductor", "--in-process", "--points", "4"]
    argv += ["--per-expression", str(out_jsonl), "--losses-md", str(out_md)]
    assert compare_main(argv) == 0
    out = capsys.readouterr().out
    assert "| input (14 common of 14) |" in out
    assert "| indexalg ia.simplify | 14 | 0 | 0 |" in out
    lines = out_jsonl.read_text().splitlines()
    assert len(lines) == 14
    assert json.loads(lines[0])["indexalg"]["status"] == "ok"
    assert out_md.read_text().startswith("# bench.compare")


def test_a_bound_indexalg_cannot_read_skips_the_case_without_failing_the_run() -> None:
    cases = [
        Case(
            "FloorDiv(x0, 2)",
            (("s0", 2, None), ("x0", 0, "4*TruncToInt(0.5*ToFloat(s0)) - 1")),
            (("x0", "4*TruncToInt(0.5*ToFloat(s0))"),),
        ),
        Case("FloorDiv(x0, 2)", (("x0", 0, 15),), (("x0", 16),)),
    ]
    systems = [s for s in SYSTEMS if s.key == "indexalg"]
    bench = run_benchmark(cases, systems, source="smoke", points=4, in_process=True)
    (rep,) = bench.reports
    assert [r.status for r in rep.results] == ["skipped", "ok"]
    assert bench.common() == [1] and not rep.mismatches


# --- the dynamic-shape corpus (harvest --dynamic-heavy) ------------------------------------


def test_has_symbolic_ranges_reads_loop_bounds_and_size_symbols() -> None:
    from bench.corpus.harvest import has_symbolic_ranges

    sym = {"range": [2, None], "range_source": "shape_env", "hint": 3}
    assert has_symbolic_ranges({"var_ranges": {"x0": [0, "s0 - 1"]}, "symbols": {}})
    assert has_symbolic_ranges({"var_ranges": {"x0": [0, 7]}, "symbols": {"s0": sym}})
    indirect = {"range": [0, None], "range_source": "default"}
    assert not has_symbolic_ranges({"var_ranges": {"x0": [0, 7]}, "symbols": {"tmp0": indirect}})


def test_exclude_entries_leaves_out_the_other_corpus(tmp_path: Path) -> None:
    from bench.corpus.harvest import exclude_entries, write_jsonl_gz

    sym = {"range": [2, None], "range_source": "shape_env"}
    a = {"expr": "x0 + 1", "var_ranges": {"x0": [0, 7]}, "symbols": {}}
    b = {"expr": "x0 + s0", "var_ranges": {"x0": [0, 7]}, "symbols": {"s0": {**sym, "hint": 3}}}
    c = {"expr": "x0 + 1", "var_ranges": {"x0": [0, 8]}, "symbols": {}}
    # the same entry with another hint is the same entry
    write_jsonl_gz(tmp_path / "main.jsonl.gz", [a, {**b, "symbols": {"s0": {**sym, "hint": 9}}}])
    kept, dropped = exclude_entries([a, b, c], tmp_path / "main.jsonl.gz")
    assert kept == [c] and dropped == 2


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="needs torch")
def test_dynamic_heavy_cases_use_symbolic_shape_modes_only() -> None:
    from bench.corpus.harvest import DYNAMIC_HEAVY_SHAPE_MODES, MODES, PLAN, build_cases

    cases = build_cases(None, list(MODES), DYNAMIC_HEAVY_SHAPE_MODES, "dynamic")
    assert {c.shape_mode for c in cases} == {"dynamic", "mark_dynamic_dims"}
    assert {c.workload_set for c in cases} == {"dynamic"}
    assert all(c.workload.startswith("dyn_") for c in cases)
    assert all(c.mode in PLAN[c.shape_mode] for c in cases)
    assert len(build_cases(None, list(MODES), ("static", "dynamic", "mark_dynamic"))) == 1200


def test_bench_ab_compares_a_tree_with_itself() -> None:
    """bench.ab on the checkout against itself (20 cases, one round): both sides run, the
    outputs agree, and a ratio is printed for each corpus."""
    from bench.ab import compare

    root = str(Path(__file__).resolve().parent.parent)
    lines = compare(root, root, "static", rounds=1, limit=20)
    assert lines[-1].endswith("outputs differing: 0"), lines
    assert lines[0].split(",")[-1] == lines[1].split(",")[-1]  # the same outputs digest
    assert "B/A: median" in lines[-1]
