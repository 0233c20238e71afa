"""The ``indexalg`` command: golden input/output files, exit statuses, the subcommand registry.

Golden files live in ``tests/cli_golden/NAME.out``: the exit status, then stdout and stderr.
Regenerate them after an intended change with ``INDEXALG_UPDATE_GOLDEN=1 pytest tests/test_cli.py``
and review the diff.  Simplifier output changes as rules land, so it is not golden: those
tests compare the command's output with the library call made here.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import indexalg as ia
import indexalg.cli as cli
from indexalg.cli import common, main
from indexalg.cli.demo import Example, read_examples
from indexalg.cli.evaluate import read_env
from indexalg.errors import RangeError
from indexalg.ranges import as_ranges, parse_range_arg

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "cli_golden"
UPDATE = os.environ.get("INDEXALG_UPDATE_GOLDEN") == "1"


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]


def run_main(
    argv: tuple[str, ...] | list[str], capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- golden files ---------------------------------------------------------------------------

_BIG = "1" + "0" * 5000  # 10**5000: past Python's 4,300-digit int/str conversion limit
_SUM_5000 = " + ".join(f"x{i}" for i in range(5000))

GOLDEN_CASES = [
    # eval: values under Python's floor semantics
    Case("eval_modular_indexing", ("eval", "ModularIndexing(x, 64, 8)", "x=1000")),
    Case("eval_nested_floordiv_negative", ("eval", "FloorDiv(FloorDiv(n, 2), -3)", "n=7")),
    Case("eval_mod_negative_dividend", ("eval", "ModularIndexing(x0 - 1, 1, 8)", "x0=0")),
    Case("eval_ceildiv_negative_divisor", ("eval", "CeilDiv(a, b)", "a=5", "--env", "b=-2")),
    Case("eval_claim", ("eval", "x // 64 < 8", "x=511")),
    Case("eval_where", ("eval", "Where(i < 0, i + n, i)", "i=-3", "n=10")),
    Case("eval_json", ("eval", "x // 64 % 8", "x=1000", "--json")),
    Case("eval_leading_minus", ("eval", "--", "-x // 4", "x=3")),
    # eval: bad input, one error line, exit 2
    Case("eval_unbound_symbol", ("eval", "x + y", "x=3")),
    Case("eval_zero_divisor_at_runtime", ("eval", "x // y", "x=3", "y=0")),
    Case("eval_zero_divisor_literal", ("eval", "x // 0")),
    Case("eval_zero_modulus", ("eval", "ModularIndexing(x, 1, m)", "x=5", "m=0")),
    Case("eval_bad_binding_value", ("eval", "x", "x=abc")),
    Case("eval_bad_binding_form", ("eval", "x", "x")),
    Case("eval_bound_twice", ("eval", "x", "x=1", "--env", "x=2")),
    # malformed expressions: column, text, caret; never a traceback
    Case("parse_unclosed_paren", ("simplify", "ModularIndexing(x, 1, 64")),
    Case("parse_bitwise_operator", ("simplify", "x & 3")),
    Case("parse_unknown_function", ("simplify", "Foo(x) + 1")),
    Case("parse_wrong_arity", ("simplify", "ModularIndexing(x, 1)")),
    Case("parse_empty", ("simplify", "")),
    Case("parse_true_division", ("bounds", "x / 2")),
    # ranges
    Case("range_empty_size", ("simplify", "x", "--range", "x=0")),
    Case("range_inverted", ("simplify", "x", "--range", "x=5..2")),
    Case("range_no_equals", ("simplify", "x", "--range", "x")),
    Case("range_bad_name", ("simplify", "x", "--range", "2x=4")),
    Case("range_bad_symbolic", ("simplify", "x", "--range", "z=s0+")),
    Case("range_given_twice", ("simplify", "x", "--range", "x=4", "--range", "x=8")),
    Case("bounds_of_claim", ("bounds", "x < 3", "--range", "x=8")),
    # demo input files
    Case("demo_missing_file", ("demo", "--file", "tests/cli_golden/no_such_file.txt")),
    Case("demo_bad_line", ("demo", "--file", "tests/cli_golden/bad_examples.txt")),
    Case("no_command", ()),
    # issue 16: inputs that used to end in a traceback; a value or one error line, in a second
    Case("big_literal_simplify", ("simplify", "x // " + _BIG, "-r", "x=4096")),
    Case("big_literal_eval", ("eval", "x // " + _BIG, "x=5")),
    Case("big_literal_eval_value", ("eval", "x + " + _BIG, "x=-1")),
    Case("big_literal_bounds", ("bounds", "x // " + _BIG, "-r", "x=4096")),
    Case("big_literal_prove", ("prove", "x // " + _BIG + " < 1", "-r", "x=4096")),
    Case("big_literal_range", ("bounds", "x // " + _BIG, "--range", "x=" + _BIG)),
    Case("big_literal_binding", ("eval", "x // 7", "x=" + _BIG)),
    Case("big_literal_json", ("eval", "x", "x=" + _BIG, "--json")),
    Case("big_literal_times_symbol", ("simplify", "9" * 400 + " * x")),
    Case("big_literal_bounds_unranged", ("bounds", "x + " + "9" * 400)),
    Case("deep_parentheses", ("simplify", "(" * 110 + "x" + ")" * 110)),
    Case("deep_parentheses_10000", ("eval", "(" * 10_000 + "x" + ")" * 10_000, "x=3")),
    Case("deep_floordiv_100", ("eval", "(" * 100 + "x" + " // 1)" * 100, "x=3")),
    Case("deep_floordiv_10000", ("simplify", "(" * 10_000 + "x" + " // 2)" * 10_000)),
    Case("deep_unary_minus_5000", ("simplify", "--", "-" * 5000 + "x")),
    Case("deep_unary_minus_5001", ("eval", "--", "x + " + "-" * 5001 + "x", "x=4")),
    Case("deep_not_200", ("prove", "not " * 200 + "x < 1", "-r", "x=4")),
    Case("long_sum_5000", ("simplify", _SUM_5000 + " - (" + _SUM_5000 + ") + 1")),
    Case("prove_empty_tiers", ("prove", "x == 5", "--tiers", "")),
    Case("prove_unknown_tier", ("prove", "x == 5", "--tiers", "interval,magic")),
    Case("empty_range_option", ("simplify", "x", "--range", "")),
    # issue 16 item 7: cyclic ranges are bad input; an empty domain is reported, not used
    Case("range_cycle_self", ("prove", "x == 5", "--range", "x=x")),
    Case("range_cycle_pair", ("prove", "x == 5", "--range", "x=y", "--range", "y=x")),
    Case("range_cycle_bounds", ("bounds", "x", "--range", "x=x")),
    Case("prove_vacuous", ("prove", "x == 5", "-r", "x=s0", "-r", "s0=0..0")),
    Case("simplify_empty_domain", ("simplify", "x // s0", "-r", "x=s0", "-r", "s0=..-1")),
    Case("bounds_empty_domain", ("bounds", "x + 1", "-r", "x=s0", "-r", "s0=0..0")),
    # issue 22 item 5: one standard for the core commands
    Case("fuzz_journal_missing_directory", ("fuzz", "--journal", "/nonexistent/dir/j.jsonl")),
    Case("fuzz_journal_is_a_directory", ("fuzz", "--journal", "tests")),
    Case("fuzz_rules_missing_module", ("fuzz", "--rules", "no.such.module")),
    Case("usage_unknown_option", ("simplify", "x", "--bogus")),
    Case("usage_unknown_command", ("frobnicate", "x")),
    Case("usage_missing_value", ("simplify", "x", "-r")),
    Case("usage_leading_minus", ("simplify", "-x")),
    Case("usage_leading_minus_with_options", ("simplify", "-x", "-r", "x=8", "--json")),
    Case("usage_leading_minus_eval", ("eval", "-x", "x=3")),
    Case("verify_rules_bad_bounded_range", ("verify-rules", "--bounded-range", "-1")),
    Case("verify_rules_bad_rlimit", ("verify-rules", "--rlimit", "0", "--bounded-range", "8")),
    Case("prove_bad_rlimit", ("prove", "x == 5", "--rlimit", "0")),
    Case("prove_inverted_range", ("prove", "x == 5", "-r", "x=5..2")),
    Case("prove_empty_size", ("prove", "x == 5", "-r", "x=0", "-r", "y=4")),
    Case("prove_inverted_range_json", ("prove", "x < y", "-r", "x=5..2", "-r", "y=4", "--json")),
    Case("bounds_inverted_range", ("bounds", "x + 1", "-r", "x=5..2")),
    Case("parse_non_ascii_digit", ("simplify", "\u0661 + x")),
    Case("parse_non_ascii_digit_in_a_number", ("eval", "x + 1\u0662", "x=1")),
    Case("range_non_ascii_digit", ("simplify", "x", "--range", "x=\u0661\u0660")),
    Case("help_top_level", ("--help",)),
    Case("help_demo", ("demo", "--help")),
]


def _render(code: int, out: str, err: str) -> str:
    """The golden text; trailing spaces are dropped so that editors cannot break it."""
    text = f"exit: {code}\n--- stdout\n{out}--- stderr\n{err}"
    return "\n".join(line.rstrip() for line in text.split("\n"))


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=lambda c: c.name)
def test_golden(
    case: Case, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps --help to the terminal's width
    code, out, err = run_main(case.argv, capsys)
    got = _render(code, out, err)
    path = GOLDEN / f"{case.name}.out"
    if UPDATE:
        path.write_text(got, encoding="utf-8")
    assert "Traceback" not in err
    assert got == path.read_text(encoding="utf-8")


def test_every_golden_file_has_a_case() -> None:
    names = {c.name for c in GOLDEN_CASES}
    stale = sorted(p.stem for p in GOLDEN.glob("*.out") if p.stem not in names)
    assert stale == []


BAD_INPUT_CASES = [c for c in GOLDEN_CASES if c.name.startswith(("parse_", "range_"))]


@pytest.mark.parametrize("case", BAD_INPUT_CASES, ids=lambda c: c.name)
def test_bad_input_is_one_error_line_and_status_2(
    case: Case, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(case.argv, capsys)
    assert code == common.EXIT_BAD_INPUT
    assert out == ""
    assert err.startswith("error: ")
    if case.name.startswith("parse_"):
        assert re.match(r"error: column \d+: ", err)
        assert len(err.splitlines()) == 3  # message, text, caret


USAGE_CASES = [c for c in GOLDEN_CASES if c.name.startswith("usage_")]


@pytest.mark.parametrize("case", USAGE_CASES, ids=lambda c: c.name)
def test_a_usage_error_is_one_error_line_then_a_hint(
    case: Case, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(case.argv, capsys)
    error, hint = err.splitlines()
    assert (code, out) == (common.EXIT_BAD_INPUT, "")
    assert error.startswith("error: ") and "usage:" not in err
    assert hint.startswith(("see 'indexalg", "an expression that starts with '-' goes after"))


@pytest.mark.parametrize(
    ("argv", "fixed"),
    [
        (("simplify", "-x"), ("simplify", "--", "-x")),
        (
            ("simplify", "-x", "-r", "x=4", "--json"),
            ("simplify", "-r", "x=4", "--json", "--", "-x"),
        ),
        (("simplify", "-r=x=4", "-x"), ("simplify", "-r=x=4", "--", "-x")),
        (("eval", "-x//4", "x=3", "--env", "y=1"), ("eval", "--env", "y=1", "--", "-x//4", "x=3")),
        (("prove", "-x<1", "--tiers=z3"), ("prove", "--tiers=z3", "--", "-x<1")),
        (("bounds", "-(x+1)//2"), ("bounds", "--", "-(x+1)//2")),
    ],
)
def test_an_expression_taken_for_an_option_is_shown_after_double_dash(
    argv: tuple[str, ...], fixed: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_main(argv, capsys)
    dash = fixed.index("--")
    shown = " ".join(["indexalg", *fixed[: dash + 1], f'"{fixed[dash + 1]}"', *fixed[dash + 2 :]])
    assert code == common.EXIT_BAD_INPUT
    assert err.splitlines()[1] == f"an expression that starts with '-' goes after '--': {shown}"
    assert run_main(fixed, capsys)[0] in (common.EXIT_OK, common.EXIT_DISPROVED)


@pytest.mark.parametrize("argv", [("simplify", "x", "--bogus"), ("simplify", "--bogus", "x")])
def test_an_unknown_option_gets_no_double_dash_hint(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, err = run_main(argv, capsys)
    assert err.splitlines() == [
        "error: unrecognized arguments: --bogus",
        "see 'indexalg simplify --help'",
    ]


def test_parse_error_caret_points_at_the_column(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(("simplify", "x + (y // 0)"), capsys)
    first, text, caret = err.splitlines()
    column = int(re.match(r"error: column (\d+):", first).group(1))  # type: ignore[union-attr]
    assert code == 2
    assert text == "  x + (y // 0)"
    assert caret == "  " + " " * (column - 1) + "^"
    assert text[2 + column - 1 : 2 + column + 1] == "//"


# --- simplify: compared with the library call, not with frozen text ------------------------


@dataclass(frozen=True)
class SimplifyCase:
    expr: str
    ranges: tuple[str, ...] = ()


SIMPLIFY_CASES = [
    SimplifyCase("ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)", ("x=4096",)),
    SimplifyCase("197*FloorDiv(x, 197) + ModularIndexing(x, 1, 197)", ("x=50432",)),
    SimplifyCase("ModularIndexing(x, 1, 32) + 32*ModularIndexing(x, 32, 4)", ("x=128",)),
    SimplifyCase("x // 64 % 8", ("x=0..511",)),
    SimplifyCase("ModularIndexing(x, 1, 2*s0)", ("x=s0", "s0=1..")),
    SimplifyCase("Min(1, CeilDiv(XBLOCK, 64))", ("XBLOCK=1..",)),
    SimplifyCase("FloorDiv(FloorDiv(n, 2), -3)"),
    SimplifyCase("x1*1024 + x2//2", ("x1=64", "x2=2048", "unused=7")),
]


def _expected(case: SimplifyCase) -> ia.Expr:
    from indexalg.simplify import simplify

    ranges = as_ranges(dict(parse_range_arg(s) for s in case.ranges))
    return simplify(ia.parse(case.expr), ranges)


def _range_argv(case: SimplifyCase) -> list[str]:
    return [a for spec in case.ranges for a in ("--range", spec)]


@pytest.mark.parametrize("case", SIMPLIFY_CASES, ids=lambda c: c.expr)
def test_simplify_prints_the_library_result(
    case: SimplifyCase, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_main(["simplify", case.expr, *_range_argv(case)], capsys)
    assert code == 0
    assert out == f"{_expected(case)}\n"
    assert ia.parse(out.strip()) is _expected(case)


@pytest.mark.parametrize("case", SIMPLIFY_CASES, ids=lambda c: c.expr)
def test_simplify_json(case: SimplifyCase, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["simplify", case.expr, *_range_argv(case), "--json"], capsys)
    data = json.loads(out)
    before, after = ia.parse(case.expr), _expected(case)
    assert code == 0
    assert out == json.dumps(data, sort_keys=True) + "\n"
    assert data["input"] == str(before)
    assert data["output"] == str(after)
    assert data["ops_before"] == before.count_ops()
    assert data["ops_after"] == after.count_ops()
    assert data["divmod_before"] == common.divmod_ops(before)
    assert data["divmod_after"] == common.divmod_ops(after)
    assert sorted(data["ranges"]) == sorted(s.split("=")[0] for s in case.ranges)
    assert set(data) == {
        "input",
        "output",
        "ranges",
        "ops_before",
        "ops_after",
        "divmod_before",
        "divmod_after",
    }


def test_simplify_json_ranges_are_inclusive_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simplify", "x + y + z", "-r", "x=4096", "-r", "y=0..63", "-r", "s0=1..", "-r", "z=s0"]
    _, out, _ = run_main([*argv, "--json"], capsys)
    assert json.loads(out)["ranges"] == {
        "s0": [1, None],
        "x": [0, 4095],
        "y": [0, 63],
        "z": [0, "s0 - 1"],
    }


def test_simplify_explain_and_stats(capsys: pytest.CaptureFixture[str]) -> None:
    expr, rng = "ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)", "x=4096"
    code, out, _ = run_main(["simplify", expr, "-r", rng, "--explain", "--stats"], capsys)
    lines = out.splitlines()
    assert code == 0
    assert lines[0] == str(_expected(SimplifyCase(expr, (rng,))))
    assert re.fullmatch(r"explain: \d+ rewrites?", lines[1])
    assert any(re.fullmatch(r"stats: \d+ rules? fired, \d+ hits?", line) for line in lines)
    _, out, _ = run_main(["simplify", expr, "-r", rng, "--explain", "--stats", "--json"], capsys)
    data = json.loads(out)
    assert isinstance(data["stats"], dict)
    assert all(set(step) == {"rule", "before", "after"} for step in data["trace"])


# --- bounds ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("bounds", "x // 64 % 8", "-r", "x=4096"), "[0, 7]\n"),
        (("bounds", "ModularIndexing(x, 1, 8) + 8", "-r", "x=-100..100"), "[8, 15]\n"),
        (("bounds", "x + y", "-r", "x=3"), "[y, y + 2]\n"),
        (("bounds", "x + 1", "-r", "x=1.."), "[2, inf]\n"),
    ],
)
def test_bounds(argv: tuple[str, ...], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(argv, capsys)
    assert (code, out) == (0, expected)


def test_bounds_json(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(("bounds", "x // 64 % 8", "-r", "x=4096", "--json"), capsys)
    assert json.loads(out) == {
        "exact": False,
        "hi": 7,
        "input": "ModularIndexing(x, 64, 8)",
        "lo": 0,
        "ranges": {"x": [0, 4095]},
    }


def test_bounds_exact(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("z3")
    code, out, _ = run_main(("bounds", "x - x // 2", "-r", "x=1024", "--exact"), capsys)
    assert (code, out) == (0, "[0, 512]\n")


# --- demo ------------------------------------------------------------------------------------


def test_demo_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(("demo", "--no-prove"), capsys)
    lines = out.splitlines()
    bundled = (ROOT / "indexalg/examples/inductor_indices.txt").read_text(encoding="utf-8")
    examples = read_examples(bundled)
    assert code == 0
    assert err == ""
    assert lines[0] == (
        f"indexalg demo: {len(examples)} index expressions "
        "from indexalg/examples/inductor_indices.txt"
    )
    for ex in examples:
        e = ia.parse(ex.expr)
        assert any(
            line.endswith(f"  {e}" + (f"   [{'; '.join(ex.ranges)}]" if ex.ranges else ""))
            for line in lines
        ), ex
    summary = lines[-1]
    assert re.fullmatch(
        rf"summary: {len(examples)} expressions, \d+ simplified, div/mod ops \d+ -> \d+, .*"
        r"; proofs skipped \(--no-prove\)",
        summary,
    )
    before = sum(common.divmod_ops(ia.parse(ex.expr)) for ex in examples)
    assert f"div/mod ops {before} -> " in summary


def test_demo_simplifies_as_the_library_does(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run_main(("demo", "--no-prove"), capsys)
    bundled = (ROOT / "indexalg/examples/inductor_indices.txt").read_text(encoding="utf-8")
    afters = [line.strip()[3:] for line in out.splitlines() if line.strip().startswith("-> ")]
    for ex, after in zip(read_examples(bundled), afters, strict=True):
        expected = _expected(SimplifyCase(ex.expr, ex.ranges))
        assert after == ("(unchanged)" if expected is ia.parse(ex.expr) else str(expected))


def test_demo_proves_every_result_without_the_simplify_tier(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("z3")
    prove_module = importlib.import_module("indexalg.prove")  # ia.prove is the function
    tiers_used: list[tuple[str, ...]] = []
    real_prove = prove_module.prove

    def spy(claim: ia.Expr, ranges: object, *, tiers: tuple[str, ...]) -> object:
        tiers_used.append(tuple(tiers))
        return real_prove(claim, ranges, tiers=tiers)  # type: ignore[arg-type]

    monkeypatch.setattr(prove_module, "prove", spy)
    code, out, _ = run_main(("demo",), capsys)
    rows = [line for line in out.splitlines() if re.match(r"\s*\d+  ", line)]
    assert code == common.EXIT_OK
    assert rows and all(re.search(r"  proved \((interval|congruence|z3)\)  ", r) for r in rows)
    assert set(tiers_used) == {("interval", "congruence", "z3")}
    assert len(tiers_used) == len(rows)
    assert re.search(rf"; proofs: {len(rows)} proved, 0 unknown, 0 failed in ", out)


def test_demo_reports_a_wrong_simplification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("z3")
    simplify_module = importlib.import_module("indexalg.simplify")  # ia.simplify: the function
    path = tmp_path / "one.txt"
    path.write_text("x // 2 ; x=8\n", encoding="utf-8")
    monkeypatch.setattr(simplify_module, "simplify", lambda e, ranges: e + 1)
    code, out, _ = run_main(("demo", "--file", str(path)), capsys)
    assert code == common.EXIT_FAILED
    assert "  DISPROVED  x // 2   [x=8]" in out
    assert "-> x // 2 + 1" in out
    assert "0 proved, 0 unknown, 1 failed" in out


def test_demo_reports_a_simplifier_error_as_a_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    simplify_module = importlib.import_module("indexalg.simplify")

    def runaway(e: ia.Expr, ranges: object) -> ia.Expr:
        raise ia.RewriteLimitError("step limit 10000 exceeded")

    path = tmp_path / "one.txt"
    path.write_text("x // 2 ; x=8\n", encoding="utf-8")
    monkeypatch.setattr(simplify_module, "simplify", runaway)
    code, out, err = run_main(("demo", "--file", str(path), "--no-prove"), capsys)
    assert (code, err) == (common.EXIT_FAILED, "")
    assert "  error  x // 2   [x=8]" in out
    assert "step limit 10000 exceeded" in out


@dataclass(frozen=True)
class ExampleFileCase:
    text: str
    expected: list[Example]


@pytest.mark.parametrize(
    "case",
    [
        ExampleFileCase("", []),
        ExampleFileCase("# only a comment\n\n   \n", []),
        ExampleFileCase("x // 2 ; x=8", [Example(1, "x // 2", ("x=8",))]),
        ExampleFileCase(
            "\n a + b ;a=1..; b = s0 ;  # comment ; c=3\nq",
            [Example(2, "a + b", ("a=1..", "b = s0")), Example(3, "q", ())],
        ),
    ],
)
def test_read_examples(case: ExampleFileCase) -> None:
    assert read_examples(case.text) == case.expected


def test_bundled_examples_parse_and_have_ranges() -> None:
    text = (ROOT / "indexalg/examples/inductor_indices.txt").read_text(encoding="utf-8")
    examples = read_examples(text)
    assert len(examples) >= 25
    for ex in examples:
        ia.parse(ex.expr)
        common.read_ranges(ex.ranges)


# --- shared pieces ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("specs", "expected"),
    [
        ((), {}),
        (("x=4096",), {"x": (0, 4095)}),
        (("y=0..63",), {"y": (0, 63)}),
        (("s0=1..",), {"s0": (1, None)}),
        (("n=..-1",), {"n": (None, -1)}),
        (("z=s0", "s0=1.."), {"s0": (1, None), "z": (0, "s0 - 1")}),
        (("b=2*s0 + 1",), {"b": (0, "2*s0")}),
    ],
)
def test_read_ranges(specs: tuple[str, ...], expected: dict[str, object]) -> None:
    assert common.read_ranges(specs).as_spec() == expected


@pytest.mark.parametrize(
    "spec",
    [
        "x=0",
        "x=-3",
        "x=3..1",
        "x",
        "=3",
        "x=",
        "x=s0+",
        "1x=3",
        "x=\u0661\u0660",
        "x=1_0",
        "x=0..\u0661",
    ],
)
def test_read_ranges_rejects(spec: str) -> None:
    with pytest.raises(RangeError):
        common.read_ranges([spec])


@pytest.mark.parametrize(
    ("bindings", "expected"),
    [([], {}), (["x=3", "y=-1"], {"x": 3, "y": -1}), ([" n = 7 "], {"n": 7})],
)
def test_read_env(bindings: list[str], expected: dict[str, int]) -> None:
    assert read_env(bindings) == expected


@pytest.mark.parametrize("binding", ["x", "x=", "x=1.5", "=3", "3=3", "x=y"])
def test_read_env_rejects(binding: str) -> None:
    with pytest.raises(common.CommandError):
        read_env([binding])


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("x + 1", 0),
        ("ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)", 2),
        ("FloorDiv(x, 2) + Mod(x, 3) + CeilDiv(x, 4) + CleanDiv(x, 5)", 4),
        ("FloorDiv(x, 2) + 3*FloorDiv(x, 2)", 1),  # one shared node
        ("Min(x // 2, y // 3)", 2),
    ],
)
def test_divmod_ops(text: str, count: int) -> None:
    assert common.divmod_ops(ia.parse(text)) == count


def test_exit_statuses_are_distinct() -> None:
    statuses = [
        common.EXIT_OK,
        common.EXIT_DISPROVED,
        common.EXIT_BAD_INPUT,
        common.EXIT_UNKNOWN,
        common.EXIT_FAILED,
    ]
    assert statuses == [0, 1, 2, 3, 4]
    assert common.EXIT_PROVED == common.EXIT_OK


# --- registry and entry points ---------------------------------------------------------------


def test_registered_modules_follow_the_protocol() -> None:
    available = cli.available_subcommands()
    assert [n for n, _ in available][:3] == ["simplify", "eval", "bounds"]
    for name, module in available:
        mod = importlib.import_module(module)
        assert name == mod.NAME
        assert isinstance(mod.HELP, str) and mod.HELP
        assert callable(mod.add_arguments) and callable(mod.run)


def test_missing_module_is_not_offered(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(
        cli, "SUBCOMMANDS", (*cli.SUBCOMMANDS, ("ghost", "indexalg.cli.ghost_not_written"))
    )
    assert "ghost" not in [n for n, _ in cli.available_subcommands()]
    code, out, _ = run_main(("--help",), capsys)
    assert code == 0
    assert "simplify" in out and "ghost" not in out
    code, _, err = run_main(("ghost",), capsys)
    assert code == 2 and "ghost" in err


def test_only_the_requested_subcommand_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded: list[str] = []
    real = cli._load

    def spy(name: str, module: str) -> cli.Subcommand:
        loaded.append(name)
        return real(name, module)

    monkeypatch.setattr(cli, "_load", spy)
    cli.build_parser(only="eval")
    assert loaded == ["eval"]


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(("--version",), capsys)
    assert code == 0 and out.startswith(f"indexalg {ia.__version__} (")  # test_build_info
    code, out, _ = run_main(("simplify", "--help"), capsys)
    assert code == 0 and "--range NAME=SPEC" in out and "--explain" in out


def test_unknown_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(("frobnicate", "x"), capsys)
    assert (code, out) == (2, "")
    assert "frobnicate" in err and "Traceback" not in err


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_main(("simplify", "x", "--no-such-option"), capsys)
    assert code == 2 and "--no-such-option" in err


def _subprocess(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "status", "stdout", "stderr_start"),
    [
        (("-m", "indexalg", "eval", "x // 64 % 8", "x=1000"), 0, "7\n", ""),
        (("-m", "indexalg.cli", "eval", "x // 0"), 2, "", "error: column 3: division by zero"),
        (("-m", "indexalg", "eval", "x + y", "x=1"), 2, "", "error: symbol 'y' has no value"),
        (("-m", "indexalg", "simplify", "x", "-r", "x=0"), 2, "", "error: --range x=0: size 0"),
        (("-m", "indexalg", "frobnicate"), 2, "", "error: argument COMMAND: invalid choice"),
    ],
)
def test_exit_status_in_a_subprocess(
    args: tuple[str, ...], status: int, stdout: str, stderr_start: str
) -> None:
    done = _subprocess(*args)
    assert (done.returncode, done.stdout) == (status, stdout)
    assert done.stderr.startswith(stderr_start)
    assert "Traceback" not in done.stderr


def test_building_the_parser_imports_no_heavy_library() -> None:
    code = (
        "import sys\n"
        "from indexalg.cli import build_parser\n"
        "build_parser().format_help()\n"
        "print(sorted(m for m in ('sympy', 'z3', 'torch', 'triton') if m in sys.modules))\n"
    )
    done = _subprocess("-c", code)
    assert (done.returncode, done.stdout) == (0, "[]\n"), done.stderr


# --- exit statuses for bugs and for vacuous claims (issue 16) --------------------------------


def _crash(args: object) -> int:
    raise RuntimeError("boom\nsecond line")


def test_an_unexpected_exception_is_exit_5_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexalg.cli.evaluate as evaluate_cmd

    monkeypatch.setattr(evaluate_cmd, "run", _crash)
    code, out, err = run_main(("eval", "x", "x=1"), capsys)
    assert (code, out, err) == (
        common.EXIT_INTERNAL,
        "",
        "error: internal error: RuntimeError: boom\n",
    )
    code, out, err = run_main(("eval", "x", "x=1", "--debug"), capsys)
    assert code == common.EXIT_INTERNAL
    assert err.startswith("Traceback") and "RuntimeError: boom" in err
    assert err.endswith("error: internal error: RuntimeError: boom\n")


def test_a_recursion_error_is_an_internal_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexalg.cli.evaluate as evaluate_cmd

    def recurse(args: object) -> int:
        return recurse(args)

    monkeypatch.setattr(evaluate_cmd, "run", recurse)
    code, _, err = run_main(("eval", "x"), capsys)
    assert code == common.EXIT_INTERNAL
    assert err.startswith("error: internal error: RecursionError: maximum recursion depth")
    assert len(err.splitlines()) == 1


def test_a_vacuous_proof_is_exit_6(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    prove_module = importlib.import_module("indexalg.prove")

    def vacuous(claim: ia.Expr, ranges: object, **kwargs: object) -> object:
        return prove_module.Proof(
            status="vacuous",
            claim=claim,
            ranges=as_ranges({"x": "s0", "s0": (0, 0)}),
            tier="interval",
            reason="the ranges admit no point: x in [0, -1]",
        )

    monkeypatch.setattr(prove_module, "prove", vacuous)
    code, out, err = run_main(("prove", "x == 5", "-r", "x=s0", "-r", "s0=0..0"), capsys)
    assert (code, out, err) == (
        common.EXIT_VACUOUS,
        "vacuous: the ranges admit no point: x in [0, -1]\n",
        "",
    )
    code, out, _ = run_main(("prove", "x == 5", "-r", "x=s0", "-r", "s0=0..0", "--json"), capsys)
    assert code == common.EXIT_VACUOUS and json.loads(out)["status"] == "vacuous"


@pytest.mark.parametrize(
    "argv",
    [
        ("prove", "x == 5", "--tiers", ""),
        ("prove", "x == 5", "--tiers", " , "),
        ("simplify", "x", "--range", "x=4", "--range", " "),
        ("bounds", "x", "-r", ""),
    ],
)
def test_empty_or_unknown_option_values_are_bad_input(
    argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(argv, capsys)
    assert (code, out) == (common.EXIT_BAD_INPUT, "")
    assert err.startswith("error: --") and len(err.splitlines()) == 1


def test_long_input_errors_show_an_excerpt_around_the_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "x + " * 1000 + "* y"
    code, _, err = run_main(("simplify", text), capsys)
    message, shown, caret = err.splitlines()
    assert code == common.EXIT_BAD_INPUT and message == "error: column 4001: unexpected '*'"
    assert len(shown) < 140 and shown.startswith("  ...")
    assert shown[caret.index("^")] == "*"


# --- make docs (issue 22 item 5) -------------------------------------------------------------


def test_make_docs_turns_off_the_upstream_banners_not_the_warnings() -> None:
    """``make docs`` sets the two variables that silence the ~30 lines of end-of-life banners
    mkdocs-material and a plugin print (the same ones tests/test_docs.py builds with), and
    keeps ``--strict``, so that a warning of the build itself still fails it."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("\ndocs: ", 1)[1].splitlines()[1]
    assert recipe.startswith("\t")
    assert "NO_MKDOCS_2_WARNING=1" in recipe and "DISABLE_MKDOCS_2_WARNING=true" in recipe
    assert recipe.rstrip().endswith("mkdocs build --strict")
    assert " -q" not in recipe and "--quiet" not in recipe and "2>" not in recipe
