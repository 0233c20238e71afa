"""``indexalg fuzz``: a short fixed-seed slice of the campaign (what CI runs), a user rule
module with a wrong rule (found, shrunk and printed as a reproducing command), the
deterministic chunk plan, and bad options."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import indexalg as ia
from indexalg.cli import main
from indexalg.cli.common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from indexalg.evaluate import evaluate
from indexalg.ranges import parse_range_arg
from indexalg.rules.base import RuleSet
from indexalg.simplify import simplify
from indexalg.testing.fuzz import Chunk, derive_seed, load_rules, plan, run_campaign


def test_fixed_seed_slice_finds_no_failure() -> None:
    result = run_campaign(examples=300, seed=0, properties=["combined"], chunk=150)
    assert result.examples >= 300
    assert not result.failures, "\n".join(f.describe() for f in result.failures)


WRONG_RULES = """
from indexalg.expr import Mod
from indexalg.rules.base import Rule, RuleSet, consts, pos, wilds

x, = wilds("x")
c, = consts("c")

# Wrong: x % c is x only when 0 <= x < c.
RULES = RuleSet("wrong", [Rule("mod_is_dividend", Mod(x, c), x, when=pos(c))])
"""


@pytest.fixture
def wrong_rules(tmp_path: Path) -> str:
    path = tmp_path / "wrong_rules.py"
    path.write_text(textwrap.dedent(WRONG_RULES))
    return str(path)


def test_a_wrong_user_rule_is_found_and_reproduced(wrong_rules: str) -> None:
    result = run_campaign(examples=400, seed=3, rules=wrong_rules, chunk=400)
    changed = [f for f in result.failures if f.kind == "value changed"]
    assert changed, [f.describe() for f in result.failures]
    case = changed[0]
    assert case.command.startswith("python -c ") and "rules=m.RULES" in case.command
    # The minimal case reproduces: simplifying with the rule changes the value at the point.
    e = ia.parse(case.expr)
    ranges = dict(parse_range_arg(arg) for arg in case.ranges)
    assert case.point is not None
    point = dict(case.point)
    rules = load_rules(wrong_rules)
    assert isinstance(rules, RuleSet)
    out = simplify(e, ranges, rules=rules)
    assert evaluate(out, point) != evaluate(e, point)
    assert len(case.expr) <= len("x % 2"), "the case is shrunk"


def test_cli_exit_status_and_output_for_a_wrong_rule(
    wrong_rules: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["fuzz", "--examples", "200", "--seed", "3", "--rules", wrong_rules, "--quiet"])
    out = capsys.readouterr().out
    assert status == EXIT_FAILED
    assert "examples/s" in out and "failure 1: [simplify] value changed" in out
    assert "$ python -c" in out and "$ indexalg eval" in out


def test_cli_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["fuzz", "--examples", "40", "--property", "bounds", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == (EXIT_FAILED if report["failures"] else EXIT_OK)
    assert report["examples"] >= 40 and report["properties"] == ["bounds"]
    assert set(report) >= {"examples", "seconds", "examples_per_second", "failures", "seed"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--property", "nope"], "unknown property"),
        (["--rules", "no_such_module_for_indexalg"], "--rules no_such_module_for_indexalg"),
        (["--rules", "json"], "has no RULES"),
        (["--examples", "0"], "--examples 0"),
        (["--jobs", "0"], "--jobs 0"),
        (["--generator", "nope"], "unknown generator"),
        (["--journal", " "], "--journal"),
    ],
)
def test_cli_bad_options(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", *argv]) == EXIT_BAD_INPUT
    assert message in capsys.readouterr().err


def test_plan_splits_examples_evenly_and_interleaves_properties() -> None:
    chunks = plan(10, 7, ["simplify", "bounds"], chunk=3)
    assert [(c.prop, c.index, c.examples) for c in chunks] == [
        ("simplify", 0, 3),
        ("bounds", 0, 3),
        ("simplify", 1, 2),
        ("bounds", 1, 2),
    ]
    assert chunks[0].seed == derive_seed(7, "simplify", 0)
    assert len({c.seed for c in chunks}) == 4


def test_a_stopped_chunk_continues_with_a_new_seed() -> None:
    first = Chunk("simplify", 4, derive_seed(1, "simplify", 4), 100, None, 1)
    nxt = first.continuation(30)
    assert nxt is not None
    assert (nxt.examples, nxt.attempt, nxt.index) == (70, 1, 4)
    assert nxt.seed == derive_seed(1, "simplify", 4, 1) != first.seed
    assert first.continuation(100) is None


def test_adversarial_slice_checks_every_point_and_reports_looseness() -> None:
    result = run_campaign(
        examples=300,
        seed=0,
        properties=["combined", "prove"],
        generators=["adversarial"],
        chunk=150,
    )
    assert not result.failures, "\n".join(f.describe() for f in result.failures)
    assert result.examples >= 300
    # every point of each domain, three checks per point for combined
    assert result.points > 10 * result.examples
    counts = dict(result.looseness)
    assert set(counts) <= {"exact", "within 1", "within 2x", "worse", "unbounded"}
    assert counts.get("exact", 0) > 0
    assert {k for k, _, _ in result.per_property} == {
        "adversarial/combined",
        "adversarial/prove",
    }


def test_plan_splits_over_generators_with_their_own_seeds() -> None:
    chunks = plan(8, 7, ["bounds"], chunk=4, generators=["compiler", "adversarial"])
    assert [(c.generator, c.examples) for c in chunks] == [("compiler", 4), ("adversarial", 4)]
    assert chunks[0].seed == derive_seed(7, "bounds", 0)  # the default keeps its seeds
    assert chunks[1].seed == derive_seed(7, "bounds", 0, 0, "adversarial") != chunks[0].seed


def test_a_journal_resumes_a_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = str(tmp_path / "run.jsonl")
    argv = ["fuzz", "--examples", "60", "--chunk", "20", "--property", "bounds", "--quiet"]
    argv += ["--generator", "all", "--journal", journal]
    assert main(argv) == EXIT_OK
    first = capsys.readouterr().out
    lines = Path(journal).read_text().splitlines()
    assert len(lines) == 4  # 30 + 30 examples in chunks of 20: 20 + 10 per generator
    assert main(argv) == EXIT_OK  # everything is in the journal: nothing runs again
    again = capsys.readouterr().out
    assert "4 chunks from the journal" in again
    assert Path(journal).read_text().splitlines() == lines
    assert first.split(" in ")[0] == again.split(" in ")[0]  # same examples and points
