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
