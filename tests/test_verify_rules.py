"""The rule verifier (indexalg.verify): every rule of the default table proven sound in CI,
wrong rules caught with counterexamples the evaluator confirms, bounded proofs, the
reduction order, user rule modules and the ``verify-rules`` command."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("z3")

import indexalg as ia
from indexalg.cli import main
from indexalg.cli.common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from indexalg.errors import IndexAlgError, InvalidOperationError
from indexalg.rules.base import (
    Rule,
    consts,
    divides,
    le,
    lt,
    nonneg,
    pattern_vars,
    pos,
    wilds,
)
from indexalg.verify import (
    RuleVerdict,
    decreases,
    load_rules,
    measure,
    summary,
    verify_rule,
    verify_rules,
)

x, y = wilds("x y")
a, b, c1, c2 = consts("a b c1 c2")


def _default_rules() -> list[Rule]:
    try:
        from indexalg.rules import ALL
    except ImportError:  # pragma: no cover - the rule table is part of the core
        return []
    return list(ALL)


DEFAULT_RULES = _default_rules()


def confirms(rule: Rule, point: dict[str, int]) -> bool:
    """The evaluator's own check of a counterexample: ``when`` holds, ``lhs`` evaluates and
    ``rhs`` raises or differs (pattern variables instantiated as symbols of their names)."""
    mapping = {w: ia.symbols(w.payload[0])[0] for w in pattern_vars(rule.lhs)}
    when, lhs, rhs = (e.subs(mapping) for e in (rule.when, rule.lhs, rule.rhs))
    if ia.evaluate(when, point) is not True:
        return False
    left = ia.evaluate(lhs, point)
    try:
        return ia.evaluate(rhs, point) != left
    except IndexAlgError:
        return True


# --- every rule of the default table -------------------------------------------------------


@pytest.mark.skipif(not DEFAULT_RULES, reason="indexalg.rules.ALL does not exist yet")
@pytest.mark.parametrize("rule", DEFAULT_RULES, ids=lambda r: r.name)
def test_default_rule_is_sound(rule: Rule) -> None:
    verdict = verify_rule(rule)
    assert verdict.sound, f"{rule}: {verdict.status}: {verdict.reason}"
    if verdict.status == "bounded":
        assert verdict.bound is not None and verdict.bound >= 4


#: Rules of the default table known not to decrease the reduction order (a pattern
#: variable duplicated on the right).  A new rule must decrease: add it here only with a
#: termination argument.
KNOWN_NON_DECREASING = {
    # d2 and z occur twice on the right; they are divisors, literals in practice.
    "modular_indexing_nested_short",
    "floordiv_of_modular_indexing",
    # d occurs twice on the right, but the inner remainder there has divisor 1 and the
    # rules fire only for d != 1: each firing removes a divisor-not-1 remainder.
    "modular_indexing_nested_low",
    "floordiv_of_modular_indexing_low",
}


@pytest.mark.skipif(not DEFAULT_RULES, reason="indexalg.rules.ALL does not exist yet")
def test_default_rules_decrease_the_reduction_order() -> None:
    offenders = {r.name: decreases(r)[1] for r in DEFAULT_RULES if not decreases(r)[0]}
    unexpected = {k: v for k, v in offenders.items() if k not in KNOWN_NON_DECREASING}
    assert unexpected == {}


# --- wrong rules are caught ------------------------------------------------------------------


@dataclass(frozen=True)
class Wrong:
    rule: Rule
    detail: str  # a fragment of the verdict's reason


WRONG_RULES = [
    # Inductor's combine_modular_indexing_pairs needs a | b: without it the rule is wrong
    Wrong(
        Rule(
            "nested_modular_indexing_without_divides",
            ia.ModularIndexing(ia.ModularIndexing(x, 1, a), 1, b),
            ia.ModularIndexing(x, 1, b),
        ),
        "lhs = ",
    ),
    # Inductor's real bug: FloorDiv(FloorDiv(n, 2), -3) -> n // -6
    Wrong(
        Rule(
            "nested_floordiv_without_positive_divisor",
            ia.FloorDiv(ia.FloorDiv(x, c1), c2),
            ia.FloorDiv(x, c1 * c2),
        ),
        "lhs = ",
    ),
    Wrong(Rule("mul_div_drops_a_term", ia.FloorDiv(x * c1 + y, c1), x), "lhs = "),
    # the right side divides by y where the left side never did: undefined at y = 0
    Wrong(Rule("introduces_a_division", x * y, ia.FloorDiv(x * y * y, y)), "rhs raises"),
    # evaluates the branch the left side skipped
    Wrong(
        Rule("where_evaluates_both", ia.Where(lt(x, 0), ia.FloorDiv(1, y), x), ia.FloorDiv(1, y)),
        "rhs raises",
    ),
    # ceil(x/y) == -floor(-x/y) but not floor((x + y - 1)/y) for y < 0 (torch's CeilDiv)
    Wrong(Rule("torch_ceildiv", ia.CeilDiv(x, y), ia.FloorDiv(x + y - 1, y)), "lhs = "),
    # a condition that is too weak: 0 <= x is missing
    Wrong(Rule("mod_below_without_nonneg", ia.Mod(x, y), x, when=lt(x, y)), "lhs = "),
]


@pytest.mark.parametrize("case", WRONG_RULES, ids=lambda c: c.rule.name)
def test_wrong_rule_is_caught_with_a_confirmed_counterexample(case: Wrong) -> None:
    verdict = verify_rule(case.rule)
    assert verdict.status == "failed"
    assert not verdict.sound
    assert verdict.counterexample is not None
    assert set(verdict.counterexample) == {w.payload[0] for w in pattern_vars(case.rule.lhs)}
    assert case.detail in verdict.reason
    if "raises" not in case.detail:
        assert confirms(case.rule, verdict.counterexample)


def test_inductor_counterexample_n7_is_one() -> None:
    rule = WRONG_RULES[1].rule
    assert confirms(rule, {"x": 7, "c1": 2, "c2": -3})


# --- sound rules: proved, or bounded -------------------------------------------------------


@dataclass(frozen=True)
class Sound:
    rule: Rule
    status: str
    bound: int | None = None


SOUND_RULES = [
    Sound(
        Rule("div_div", ia.FloorDiv(ia.FloorDiv(x, c1), c2), ia.FloorDiv(x, c1 * c2), when=pos(c2)),
        "proved",
    ),
    Sound(Rule("mul_div", ia.FloorDiv(x * c1, c1), x), "proved"),
    Sound(Rule("mod_mul", ia.Mod(x * c1, c1), ia.Integer(0)), "proved"),
    Sound(Rule("mod_below", ia.Mod(x, y), x, when=nonneg(x) & lt(x, y)), "proved"),
    Sound(
        Rule(
            "join_split",
            ia.ModularIndexing(x, 1, c1) + c1 * ia.ModularIndexing(x, c1, c2),
            ia.ModularIndexing(x, 1, c1 * c2),
            when=pos(c1) & pos(c2),
        ),
        "proved",
    ),
    Sound(Rule("min_ordered", ia.Min(x, y), x, when=le(x, y)), "proved"),
    Sound(
        Rule(
            "nested_mi",
            ia.ModularIndexing(ia.ModularIndexing(x, 1, a), 1, b),
            ia.ModularIndexing(x, 1, b),
            when=divides(b, a),
        ),
        "bounded",
        64,
    ),
    Sound(
        Rule("mod_mod", ia.Mod(ia.Mod(x, c1), c2), ia.Mod(x, c2), when=divides(c2, c1)),
        "bounded",
        64,
    ),
]


@pytest.mark.parametrize("case", SOUND_RULES, ids=lambda c: c.rule.name)
def test_sound_rule_is_proved(case: Sound) -> None:
    verdict = verify_rule(case.rule)
    assert (verdict.status, verdict.bound) == (case.status, case.bound), verdict.reason
    assert verdict.counterexample is None
    if case.status == "bounded":
        assert f"[-{case.bound}, {case.bound}]" in verdict.reason


def test_bounded_range_is_stated_and_honoured() -> None:
    rule = SOUND_RULES[-1].rule
    verdict = verify_rule(rule, bounded_range=8)
    assert (verdict.status, verdict.bound) == ("bounded", 8)
    assert "c1, c2 in [-8, 8]" in verdict.reason


def test_verify_rules_keeps_order_and_counts() -> None:
    rules = [SOUND_RULES[0].rule, WRONG_RULES[2].rule, SOUND_RULES[1].rule]
    verdicts = verify_rules(rules)
    assert [v.name for v in verdicts] == ["div_div", "mul_div_drops_a_term", "mul_div"]
    assert all(isinstance(v, RuleVerdict) for v in verdicts)
    assert summary(verdicts) == {
        "bounded": 0,
        "failed": 1,
        "non_decreasing": 0,
        "proved": 2,
        "total": 3,
        "unknown": 0,
    }


def test_bad_arguments() -> None:
    with pytest.raises(InvalidOperationError, match="bounded_range"):
        verify_rules([], bounded_range=0)
    with pytest.raises(InvalidOperationError, match="takes a Rule"):
        verify_rule("x -> x")  # type: ignore[arg-type]


def test_verdicts_are_deterministic() -> None:
    rule = WRONG_RULES[0].rule
    first, second = verify_rule(rule), verify_rule(rule)
    assert first.counterexample == second.counterexample
    assert first.reason == second.reason


# --- the reduction order ---------------------------------------------------------------------


@dataclass(frozen=True)
class Order:
    rule: Rule
    decreasing: bool
    why: str


ORDER_CASES = [
    Order(Rule("drop_div", ia.FloorDiv(x * c1, c1), x), True, "(0, 0, 0) < (1, 2, 4)"),
    Order(
        Rule("mod_to_mi", ia.Mod(x, y), ia.ModularIndexing(x, 1, y), when=pos(y)),
        True,
        "(1, 3, 2) < (1, 4, 1)",
    ),
    Order(Rule("cleandiv", ia.CleanDiv(x, y), ia.FloorDiv(x, y)), True, "(1, 2, 1) < (1, 5, 1)"),
    # constants fold: FloorDiv(x, c1*c2) is one division over a literal
    Order(
        Rule("div_div", ia.FloorDiv(ia.FloorDiv(x, c1), c2), ia.FloorDiv(x, c1 * c2)),
        True,
        "(1, 2, 2) < (2, 4, 4)",
    ),
    Order(
        Rule("duplicates", ia.FloorDiv(x, 2), x - ia.FloorDiv(x + 1, 2)),
        False,
        "x occurs more often",
    ),
    Order(
        Rule("grows", ia.FloorDiv(x, 4), ia.FloorDiv(ia.FloorDiv(x, 2), 2)), False, "not smaller"
    ),
    Order(Rule("swap", ia.Min(x, y), ia.Max(x, y)), False, "not smaller"),
]


@pytest.mark.parametrize("case", ORDER_CASES, ids=lambda c: c.rule.name)
def test_reduction_order(case: Order) -> None:
    ok, why = decreases(case.rule)
    assert ok is case.decreasing
    assert case.why in why


def test_measure_counts_variables_apart() -> None:
    m, occ = measure(ia.FloorDiv(x, c1) + ia.Mod(x, y) * y)
    assert occ == {"x": 2, "y": 2}
    # Add, FloorDiv, c1, Mul, Mod: two non-polynomial nodes of weights 2 and 4
    assert m == (2, 6, 5)


# --- user rule modules and the command ------------------------------------------------------

GOOD_MODULE = """
import indexalg as ia
from indexalg.rules.base import Rule, RuleSet, consts, pos, wilds
x, = wilds("x")
c1, c2 = consts("c1 c2")
RULES = RuleSet("MINE", [
    Rule("div_div", ia.FloorDiv(ia.FloorDiv(x, c1), c2), ia.FloorDiv(x, c1 * c2), when=pos(c2)),
    Rule("mul_div", ia.FloorDiv(x * c1, c1), x),
])
"""

BAD_MODULE = """
import indexalg as ia
from indexalg.rules.base import Rule, consts, wilds
x, = wilds("x")
c1, c2 = consts("c1 c2")
RULES = [Rule("div_div", ia.FloorDiv(ia.FloorDiv(x, c1), c2), ia.FloorDiv(x, c1 * c2))]
"""


def _module(tmp_path: Path, text: str, name: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return str(path)


def test_load_rules_from_a_file(tmp_path: Path) -> None:
    rules = load_rules(_module(tmp_path, GOOD_MODULE, "good_rules"))
    assert [r.name for r in rules] == ["div_div", "mul_div"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("X = 1\n", "defines no RULES"),
        ("RULES = 3\n", "must be a RuleSet or an iterable of Rule"),
        ("RULES = [1]\n", "non-rule"),
    ],
)
def test_load_rules_rejects_bad_modules(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(InvalidOperationError, match=message):
        load_rules(_module(tmp_path, text, "bad"))


def test_load_rules_missing_module() -> None:
    with pytest.raises(InvalidOperationError, match="no_such_rules_module"):
        load_rules("no_such_rules_module")
    with pytest.raises(InvalidOperationError, match="no such file"):
        load_rules("/nonexistent/rules.py")


def test_cli_verify_rules_good_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["verify-rules", "--rules", _module(tmp_path, GOOD_MODULE, "good")])
    out = capsys.readouterr().out
    assert status == EXIT_OK
    assert out.splitlines()[0].split() == ["rule", "status", "time"]
    assert "div_div" in out and "proved" in out
    assert "2 rules: 2 proved, 0 bounded, 0 failed, 0 unknown; 0 not decreasing" in out


def test_cli_verify_rules_bad_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["verify-rules", "--rules", _module(tmp_path, BAD_MODULE, "bad")])
    out = capsys.readouterr().out
    assert status == EXIT_FAILED
    assert "FAILED" in out
    assert "counterexample div_div: c1=" in out


def test_cli_verify_rules_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["verify-rules", "--rules", _module(tmp_path, BAD_MODULE, "bad"), "--json"])
    obj = json.loads(capsys.readouterr().out)
    assert status == EXIT_FAILED
    assert obj["ok"] is False
    assert obj["totals"]["failed"] == 1
    (row,) = obj["rules"]
    assert row["status"] == "failed"
    rule = load_rules(_module(tmp_path, BAD_MODULE, "bad2"))[0]
    assert confirms(rule, row["counterexample"])


def test_cli_verify_rules_unloadable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify-rules", "--rules", "no_such_rules_module"]) == EXIT_BAD_INPUT
    assert "error: rule module no_such_rules_module" in capsys.readouterr().err
