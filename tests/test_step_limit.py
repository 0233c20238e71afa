"""The rewrite-step limit: by default it grows with the input (indexalg.limits.step_limit_for),
an explicit ``step_limit`` is fixed, and the CLI sets it with ``--step-limit``.  No timings here
(speed is measured by ``python -m bench.scaling``)."""

from __future__ import annotations

import importlib

import pytest

import indexalg as ia
from indexalg.cli import main
from indexalg.limits import STEP_LIMIT_BASE, STEP_LIMIT_PER_NODE, step_limit_for
from indexalg.simplify import DEFAULT_STEP_LIMIT


def _long_sum(n: int) -> str:
    """The issue's input: n div/mod terms, each folding to one floor division under x < 4096
    (one rewrite step per term)."""
    return "+".join(f"x//{i + 600}%7" for i in range(n))


def test_the_default_limit_is_a_base_plus_an_allowance_per_node() -> None:
    assert DEFAULT_STEP_LIMIT == STEP_LIMIT_BASE == 10_000
    assert STEP_LIMIT_PER_NODE == 10
    assert step_limit_for(0) == 10_000
    assert step_limit_for(1) == 10_010
    assert step_limit_for(20_002) == 210_020


def test_an_explicit_limit_is_fixed() -> None:
    with pytest.raises(ia.RewriteLimitError, match=r"more than 100 rewrite steps \("):
        ia.simplify(_long_sum(150), {"x": 4096}, step_limit=100)


@pytest.mark.slow
def test_without_the_allowance_the_long_sum_is_refused_naming_its_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    driver = importlib.import_module("indexalg.simplify.driver")
    monkeypatch.setattr(driver, "step_limit_for", lambda nodes: STEP_LIMIT_BASE)
    e = ia.parse(_long_sum(10_050))
    nodes = sum(1 for _ in e.walk())
    with pytest.raises(ia.RewriteLimitError, match=f"rewrite steps for an input of {nodes} nodes"):
        ia.simplify(e, {"x": 4096})


def test_cli_step_limit(capsys: pytest.CaptureFixture[str]) -> None:
    # cold: a result already in the memo (an earlier test simplified the same input) is
    # answered without rewriting, so no step limit is met
    ia.clear_caches()
    args = ["simplify", "x//600%7 + x//601%7", "--range", "x=4096"]
    assert main([*args, "--step-limit", "1"]) == 2
    assert "more than 1 rewrite steps" in capsys.readouterr().err
    assert main([*args, "--step-limit", "2"]) == 0
    assert capsys.readouterr().out == "x // 600 + x // 601\n"
    assert main([*args, "--step-limit", "0"]) == 2
    assert "--step-limit: must be at least 1" in capsys.readouterr().err


@pytest.mark.slow
def test_a_10000_term_sum_is_within_the_default_limit() -> None:
    """Issue 27 item 4: refused with "more than 10000 rewrite steps" before the limit grew
    with the input (about one step per term; the input has about 20,000 nodes)."""
    out = ia.simplify(_long_sum(10_000), {"x": 4096})
    assert out is ia.parse("+".join(f"x//{d}" for d in range(600, 4096)))  # x // 4096.. is 0
