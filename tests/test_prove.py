"""The tiered prover (indexalg.prove): Inductor's blind spots proved, counterexamples the
evaluator confirms, tiers and statistics, SMT-LIB export, exact bounds, soundness under
hypothesis, and the ``prove`` command."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

z3 = pytest.importorskip("z3")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import indexalg as ia  # noqa: E402
from indexalg.cli import main  # noqa: E402
from indexalg.cli.common import (  # noqa: E402
    EXIT_BAD_INPUT,
    EXIT_DISPROVED,
    EXIT_OK,
    EXIT_UNKNOWN,
)
from indexalg.errors import (  # noqa: E402
    ExprTypeError,
    IndexAlgError,
    InvalidOperationError,
    ParseError,
)
from indexalg.prove import (  # noqa: E402
    STATS,
    TIERS,
    Proof,
    domain_symbols,
    exact_bounds,
    in_ranges,
    prove,
    smtlib_query,
)
from indexalg.ranges import RangeSpec, as_ranges  # noqa: E402
from indexalg.testing.strategies import assignments, claims, ranges  # noqa: E402

Spec = dict[str, RangeSpec]
SIZED: Spec = {"x": "s0", "s0": (1, None)}


@dataclass(frozen=True)
class Case:
    claim: str
    ranges: Spec = field(default_factory=dict)
    status: str = "proved"


# Inductor's blind spots (ANCHORS.md) and their neighbours.
ANCHOR_CASES = [
    # knowing x < s0: ModularIndexing(x, 1, 2*s0) and x // (s0 + 1)
    Case("ModularIndexing(x, 1, 2*s0) == x", SIZED),
    Case("ModularIndexing(x, 1, s0) == x", SIZED),
    Case("x // (s0 + 1) == 0", SIZED),
    Case("ModularIndexing(x, 1, s0 - 1) == x", {"x": "s0", "s0": (2, None)}, "disproved"),
    # FloorDiv(FloorDiv(n, 2), -3) is not n // -6 (Inductor folded it)
    Case("FloorDiv(FloorDiv(n, 2), -3) == n // -6", {}, "disproved"),
    Case("FloorDiv(FloorDiv(n, 2), 3) == n // 6", {}, "proved"),
    # Min(1, CeilDiv(XBLOCK, 64)) survives into Inductor's kernels
    Case("Min(1, CeilDiv(XBLOCK, 64)) == 1", {"XBLOCK": (1, None)}),
    Case("Min(1, CeilDiv(XBLOCK, 64)) == 1", {"XBLOCK": (0, None)}, "disproved"),
    # x - x//2 is in [0, 512] for x in [0, 1023] (Inductor: [-511, 1023])
    Case("0 <= x - x // 2", {"x": (0, 1023)}),
    Case("x - x // 2 <= 512", {"x": (0, 1023)}),
    Case("x - x // 2 <= 511", {"x": (0, 1023)}, "disproved"),
    # ModularIndexing folds with Python %: never negative, 7 at x0 = 0
    Case("0 <= ModularIndexing(x0 - 1, 1, 8)", {"x0": 64}),
    Case("ModularIndexing(x0 - 1, 1, 8) < 7", {"x0": 64}, "disproved"),
    # range analysis that uses Where's condition (negative-index wrapping)
    Case("0 <= Where(i < 0, i + 64, i)", {"i": (-64, 63)}),
    Case("Where(i < 0, i + 64, i) < 64", {"i": (-64, 63)}),
    Case("0 <= Where(i < 0, i + 64, i)", {"i": (-65, 63)}, "disproved"),
    # torch's CeilDiv(a, b) = (a + b - 1) // b is wrong for b < 0
    Case("CeilDiv(a, b) == (a + b - 1) // b", {"b": (1, None)}),
    Case("CeilDiv(a, b) == (a + b - 1) // b", {"b": (None, -1)}, "disproved"),
    # joined split dimensions
    Case("ModularIndexing(x, 1, 32) + 32*ModularIndexing(x, 32, 4) == ModularIndexing(x, 1, 128)"),
    Case("197*(x // 197) + ModularIndexing(x, 1, 197) == x"),
    # an in-bounds claim of a strided index
    Case("x0 + 64*x1 < 64*s1", {"x0": 64, "x1": "s1", "s1": (1, None)}),
    Case("x0 + 64*x1 < 64*s1", {"x0": 65, "x1": "s1", "s1": (1, None)}, "disproved"),
    # claims a divisor makes undefined somewhere hold where they are defined
    Case("0 <= x // y", {"x": (0, 100), "y": (0, 5)}),
    Case("0 <= x // y", {"x": (0, 100), "y": (-3, 5)}, "disproved"),
    Case("x < 5 or 5 <= x"),
    Case("x < 5 and 5 <= x", {}, "disproved"),
]


@pytest.mark.parametrize("case", ANCHOR_CASES, ids=lambda c: f"{c.claim} {c.ranges}")
def test_anchor(case: Case) -> None:
    proof = prove(case.claim, case.ranges)
    assert proof.status == case.status, proof.reason
    assert proof.tier in TIERS or proof.tier == "literal"
    if case.status == "disproved":
        cex = proof.counterexample
        assert cex is not None
        assert list(cex) == sorted(cex)
        assert in_ranges(cex, as_ranges(case.ranges))
        assert ia.evaluate(ia.parse(case.claim), cex) is False
    else:
        assert proof.counterexample is None


def test_inductor_fold_counterexample_n7() -> None:
    claim = ia.parse("FloorDiv(FloorDiv(n, 2), -3) == n // -6")
    assert ia.evaluate(claim, {"n": 7}) is False
    assert ia.evaluate(ia.parse("FloorDiv(FloorDiv(n, 2), -3)"), {"n": 7}) == -1
    assert ia.evaluate(ia.parse("n // -6"), {"n": 7}) == -2


@pytest.mark.parametrize(
    ("e", "spec", "expected"),
    [
        ("x - x // 2", {"x": (0, 1023)}, (0, 512)),
        ("ModularIndexing(x0 - 1, 1, 8)", {"x0": 64}, (0, 7)),
        ("x // 64 % 8", {"x": 4096}, (0, 7)),
        ("Where(i < 0, i + 64, i)", {"i": (-64, 63)}, (0, 63)),
        ("3*x - 2*y", {"x": (0, 10), "y": (-5, 5)}, (-10, 40)),
        ("Min(x, 7) + Max(y, -3)", {"x": (0, 10), "y": (-5, 5)}, (-3, 12)),
    ],
)
def test_exact_bounds(e: str, spec: Spec, expected: tuple[int, int]) -> None:
    lo, hi = exact_bounds(e, spec)
    assert (lo, hi) == (ia.Integer(expected[0]), ia.Integer(expected[1]))


def test_exact_bounds_unbounded_and_symbolic_sides() -> None:
    # numeric where z3 finds it, the analysis' symbolic bound where z3 says unbounded
    assert exact_bounds("x + s0", SIZED) == (ia.Integer(1), ia.parse("2*s0 - 1"))
    assert exact_bounds("x", {"x": (0, None)}) == (ia.Integer(0), None)
    assert exact_bounds("7", {}) == (ia.Integer(7), ia.Integer(7))
    with pytest.raises(ExprTypeError, match="integer expression"):
        exact_bounds("x < 1", {})


def test_bounds_exact_through_the_public_api() -> None:
    lo, hi = ia.bounds("x - x // 2", {"x": 1024}, exact=True)
    assert (str(lo), str(hi)) == ("0", "512")


# --- tiers, statistics, determinism -----------------------------------------------------------


def test_tiers_answer_in_order() -> None:
    assert prove("x < 64", {"x": 64}).tier == "interval"
    assert prove("x // 2 * 2 + ModularIndexing(x, 1, 2) != 1", {}, tiers=("z3",)).tier == "z3"
    # (the interval tier proves x // 2 * 2 + ModularIndexing(x, 1, 2) == x: 2*(x // 2) is read
    # as x - x mod 2 there)
    only_intervals = prove("(x + y) % 2 == (x - y) % 2", {}, tiers=("interval",))
    assert only_intervals.status == "unknown"
    assert prove("(x + y) % 2 == (x - y) % 2", {}, tiers=("z3",)).proved


def test_literal_claims() -> None:
    assert prove(ia.true).tier == "literal"
    p = prove(ia.false)
    assert (p.status, p.counterexample) == ("disproved", {})


def test_statistics_count_each_tier() -> None:
    STATS.reset()
    prove("x < 64", {"x": 64})
    prove("x < 0", {"x": 64})
    prove("x*x*x + y*y*y != 0 or x == 0 or y == 0 or x == -y", {}, rlimit=2_000)
    prove("x // 3 * 3 <= x", {}, tiers=("z3",))
    snap = STATS.as_dict()
    assert snap["answered"] == {"interval": 2, "z3": 1}
    assert snap["unknown"] == 1
    assert snap["total"] == 4
    assert set(STATS.time_ns) == {"interval", "z3"}


def test_unknown_is_never_a_wrong_answer() -> None:
    p = prove("x*x*x + y*y*y != z*z*z or x*y*z == 0", {}, rlimit=5_000, tiers=("z3",))
    assert p.status == "unknown"
    assert p.counterexample is None
    assert "rlimit 5000" in p.reason


def test_counterexamples_are_deterministic() -> None:
    claim = "x0 + 64*x1 < 64*s1 - 1"
    spec: Spec = {"x0": 64, "x1": "s1", "s1": (1, None)}
    first = prove(claim, spec, tiers=("z3",))
    prove("x*y != 12", {"x": (1, 10), "y": (1, 10)})  # other queries in between
    second = prove(claim, spec, tiers=("z3",))
    assert first.status == "disproved"
    assert first.counterexample == second.counterexample


def test_bad_input() -> None:
    with pytest.raises(ExprTypeError, match="integer expression x \\+ 1"):
        prove("x + 1")
    with pytest.raises(ParseError):
        prove("x <")
    with pytest.raises(InvalidOperationError, match="unknown prover tier 'smt'"):
        prove("x < 1", tiers=("smt",))
    with pytest.raises(InvalidOperationError, match="rlimit"):
        prove("x < 1", rlimit=0)
    with pytest.raises(IndexAlgError):
        prove("x < 1", {"x": "1..0"})


def test_domain_symbols_follow_symbolic_bounds() -> None:
    spec: Spec = {"x": "s0", "s0": (1, "s1"), "s1": (1, 8), "z": 4}
    r = as_ranges(spec)
    assert [s.payload for s in domain_symbols(ia.parse("x < 3"), r)] == ["s0", "s1", "x"]


# --- SMT-LIB export -----------------------------------------------------------------------------


def test_smtlib_reproduces_the_query() -> None:
    proof = prove("ModularIndexing(x, 1, 2*s0) == x", SIZED)
    script = proof.smtlib()
    assert script.startswith("; indexalg prove: x == ModularIndexing(x, 1, 2*s0)\n")
    assert "(declare-const s0 Int)\n(declare-const x Int)\n" in script
    assert "(set-option :rlimit 2000000)" in script
    assert "(check-sat)" in script
    solver = z3.Solver()
    solver.from_string(script)
    assert solver.check() == z3.unsat
    assert script == smtlib_query("ModularIndexing(x, 1, 2*s0) == x", SIZED)


def test_smtlib_of_a_false_claim_is_satisfiable() -> None:
    solver = z3.Solver()
    solver.from_string(prove("x // 2 < 500", {"x": 1024}).smtlib())
    assert solver.check() == z3.sat


# --- soundness under hypothesis ---------------------------------------------------------------


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_prover_is_sound(data: st.DataObject) -> None:
    claim = data.draw(claims(variables=("x", "y"), sizes=("s0",), max_leaves=4), label="claim")
    spec = data.draw(ranges(("x", "y"), sizes=("s0",), max_extent=256), label="ranges")
    proof = prove(claim, spec, rlimit=200_000)
    r = as_ranges(spec)
    if proof.status == "disproved":
        cex = proof.counterexample
        assert cex is not None
        assert in_ranges(cex, r)
        assert ia.evaluate(claim, cex) is False
    elif proof.status == "proved":
        for _ in range(8):
            point = data.draw(assignments(spec, variables=claim.free_symbols), label="point")
            try:
                value = ia.evaluate(claim, point)
            except IndexAlgError:
                continue  # undefined points are outside the claim's domain
            assert value is True, (str(claim), point)


# --- the command ---------------------------------------------------------------------------------


def test_cli_prove_proved(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["prove", "ModularIndexing(x, 1, 2*s0) == x", "-r", "x=s0", "-r", "s0=1.."])
    assert status == EXIT_OK
    assert capsys.readouterr().out.startswith("proved (")


def test_cli_prove_disproved(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["prove", "FloorDiv(FloorDiv(n, 2), -3) == n // -6"])
    out = capsys.readouterr().out.splitlines()
    assert status == EXIT_DISPROVED
    assert out[0] == "disproved (z3)"
    n = int(out[1].removeprefix("counterexample: n="))
    assert ia.evaluate(ia.parse("FloorDiv(FloorDiv(n, 2), -3) == n // -6"), {"n": n}) is False


def test_cli_prove_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    claim = "x*x*x + y*y*y != z*z*z or x*y*z == 0"
    assert main(["prove", claim, "--rlimit", "5000", "--tiers", "z3"]) == EXIT_UNKNOWN
    assert capsys.readouterr().out.startswith("unknown: z3: ")


def test_cli_prove_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "x - x // 2 <= 511", "-r", "x=1024", "--json"]) == EXIT_DISPROVED
    obj = json.loads(capsys.readouterr().out)
    assert obj["status"] == "disproved"
    assert obj["ranges"] == {"x": [0, 1023]}
    assert ia.evaluate(ia.parse("x - x // 2 <= 511"), obj["counterexample"]) is False


def test_cli_prove_smtlib(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["prove", "x // (s0 + 1) == 0", "-r", "x=s0", "-r", "s0=1..", "--smtlib"]) == 0
    solver = z3.Solver()
    solver.from_string(capsys.readouterr().out)
    assert solver.check() == z3.unsat


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["prove", "x + 1"], "got the integer expression x + 1"),
        (["prove", "x <"], "column 4"),
        (["prove", "x < 1", "--tiers", "smt"], "unknown prover tier"),
        (["prove", "x < 1", "--rlimit", "0"], "--rlimit 0: must be at least 1"),
    ],
)
def test_cli_prove_bad_input(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ")
    assert message in err


def test_proof_text() -> None:
    p = prove("x < 3", {"x": 8})
    assert isinstance(p, Proof)
    assert str(p).startswith("disproved: x < 3 [")
    assert str(p).endswith("counterexample: x=7") or "counterexample: x=" in str(p)


def test_tiers_without_z3_never_ask_z3_for_a_counterexample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # refuted by the interval tier; a counterexample is sought among candidate points only
    import importlib

    prove_mod = importlib.import_module("indexalg.prove")  # ia.prove is the function

    def no_z3(*args: object, **kwargs: object) -> None:
        raise AssertionError("z3 asked although it is not among the tiers")

    monkeypatch.setattr(prove_mod, "_z3_counterexample", no_z3)
    p = ia.prove("Eq(s23 // 4, 1)", {"s23": (8, None)}, tiers=("interval",))
    assert p.status == "disproved" and p.counterexample is not None
    assert p.counterexample["s23"] // 4 != 1
    p = ia.prove("x*x != 2*y + 7", {"x": (-50, 50), "y": (-50, 50)}, tiers=("interval", "simplify"))
    assert p.status in ("unknown", "disproved")


# Issue 26: exact bounds that took 10-166 s on small symbolic domains (the search galloped
# towards 2**256 on an unbounded side, one Z3 check at a time, each slow on the non-linear
# term).  Each must end under its budget and stay sound (no value outside the bounds).
SLOW_EXACT = [
    (
        "Min(x, 2)*((x + 5) // (1 - s0)) - Min(x, 2)*s0*((x + 5) // ((1 - s0)*s0))",
        {"s0": (-3, 3), "x": (None, 0)},
    ),
    (
        "(x // Max(1, s0))*Max(1, s0) + ModularIndexing(x, 1, Max(1, s0))",
        {"s0": (-3, 3), "x": (None, 0)},
    ),
    (
        "(Max(x, s0 - 2)*((y - 1) // ((s0 - 3) // 2 + 1)) - s0*((y - 1) // ((s0 - 3) // 2 + 1)))**2"
        " + Min(y, x)*Min(y, y)",
        {"s0": (2, None), "x": (0, 3), "y": (None, 0)},
    ),
]


@pytest.mark.parametrize(("text", "spec"), SLOW_EXACT)
def test_exact_bounds_honour_their_time_limit_and_stay_sound(text: str, spec: Spec) -> None:
    import itertools
    import time

    e = ia.parse(text)
    t0 = time.monotonic()
    lo, hi = ia.bounds(e, spec, exact=True)
    # a hang detector, not a benchmark: each side's budget is under a second
    assert time.monotonic() - t0 < 20
    names = sorted(s.payload for s in e.free_symbols)
    window = {
        n: range(
            max(-6 if spec[n][0] is None else spec[n][0], -6),
            min(8 if spec[n][1] is None else spec[n][1], 8) + 1,
        )
        for n in names
    }
    for values in itertools.product(*(window[n] for n in names)):
        point = dict(zip(names, values))
        try:
            v = ia.evaluate(e, point)
        except ia.IndexAlgError:
            continue  # a zero divisor there
        if isinstance(lo, ia.Integer):
            assert v >= lo.payload, (point, v, lo)
        if isinstance(hi, ia.Integer):
            assert v <= hi.payload, (point, v, hi)


def test_exact_bounds_stop_at_the_side_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    prove_mod = importlib.import_module("indexalg.prove")
    monkeypatch.setattr(prove_mod, "_SIDE_SECONDS", 0.0)
    # no time at all: both sides keep the analysis's bounds (sound, not tightened)
    spec: Spec = {"x": (0, 1000), "y": (0, 1000)}
    text = "x*y + (1000 - x)*(1000 - y)"
    loose = ia.bounds(text, spec)
    assert loose == (-1_000_000, 3_000_000)  # loose: the exact bounds are 0 and 10**6
    lo, hi = exact_bounds(text, spec)
    assert (lo.payload, hi.payload) == loose
