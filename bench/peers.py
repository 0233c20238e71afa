"""The peers' simplifier suites as a conformance corpus: TVM, tinygrad and PyTorch cases.

Run from the repository root::

    python -m bench.peers                 # every case of bench/peers/*.txt, the table
    python -m bench.peers --misses        # also each case not reached, with indexalg's answer
    python -m bench.peers --no-z3         # check by evaluation only (faster)
    python -m bench.peers --json          # one JSON object instead of the table

Each case of ``bench/peers/*.txt`` is one peer test case translated into indexalg's text
(the files say how, and cite the peer's repository, commit, file and test).  Per case:

1. **The peer's expected answer is checked equal to its input** under the case's ranges:
   by evaluation at every point of small ranges (else the corners and seeded random
   points), and by Z3 where it answers.  A case whose expected answer is not equal is
   reported under "peer wrong" and left out of the counts.
2. ``ia.simplify(input, ranges)`` runs.  An exception is a **crash**.
3. The result is checked equal to the input the same way; a difference is **wrong**.
4. The result **reached** the expected answer when it is the same node, or when it is no
   larger by :func:`indexalg.procedures.size.size`: ``(div/mod/min/max/where nodes,
   nodes)`` compared lexicographically, where a node is an operation, a symbol, a
   literal, or a non-zero constant term or a coefficient other than 1 inside a sum or
   product (``ModularIndexing(x, 1, m)``, indexalg's spelling of ``x % m``, counts as
   ``x % m``).
   Otherwise it is **weaker**.

The counts are printed per category (``divmod``; ``linear``: Min/Max/Where and linear
arithmetic; ``compare``: comparisons and boolean claims; ``solve``: isolating a symbol)
and per suite (file).  Translation gaps (``!skip`` lines) are counted with their reasons.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import indexalg as ia
from indexalg.cli.common import read_ranges
from indexalg.expr import Expr
from indexalg.procedures.size import size
from indexalg.ranges import Ranges
from indexalg.testing.oracles import corner_points, exhaustive_points, resolution_order

HERE = Path(__file__).resolve().parent / "peers"
CATEGORIES = ("divmod", "linear", "compare", "solve")
N_RANDOM = 200
WINDOW = 1_000
RLIMIT = 400_000


@dataclass(frozen=True)
class Case:
    suite: str  # the data file's stem
    source: str  # repository@commit path
    test: str
    category: str
    before: str
    expected: str
    ranges: tuple[str, ...]
    line: int

    @property
    def where(self) -> str:
        return f"{self.suite}.txt:{self.line}"


@dataclass(frozen=True)
class Skip:
    suite: str
    test: str
    reason: str
    what: str


@dataclass
class Outcome:
    case: Case
    status: str  # reached | weaker | wrong | crash | peer-wrong
    result: str = ""
    detail: str = ""


@dataclass
class Corpus:
    cases: list[Case] = field(default_factory=list)
    skips: list[Skip] = field(default_factory=list)


# --- reading the corpus ---------------------------------------------------------------------


def read_corpus(paths: Iterable[Path]) -> Corpus:
    """Every case and skip of the given data files, in file order."""
    out = Corpus()
    for path in paths:
        _read_file(path, out)
    return out


def _read_file(path: Path, out: Corpus) -> None:
    suite = path.stem
    source = test = ""
    category = "divmod"
    for n, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@source "):
            source = line[len("@source ") :].strip()
        elif line.startswith("@test "):
            test = line[len("@test ") :].strip()
        elif line.startswith("@category "):
            category = line[len("@category ") :].strip()
            if category not in CATEGORIES:
                raise ValueError(f"{path.name}:{n}: unknown category {category!r}")
        elif line.startswith("!skip "):
            reason, _, what = line[len("!skip ") :].partition("::")
            out.skips.append(Skip(suite, test, reason.strip(), what.strip()))
        else:
            body, _, rng = line.partition(" | ")
            before, sep, expected = body.partition(" -> ")
            if not sep:
                raise ValueError(f"{path.name}:{n}: expected 'INPUT -> EXPECTED', got {line!r}")
            out.cases.append(
                Case(
                    suite,
                    source,
                    test,
                    category,
                    before.strip(),
                    expected.strip(),
                    tuple(rng.split()),
                    n,
                )
            )


# --- checking equality ----------------------------------------------------------------------


def points(e: Expr, ranges: Ranges, seed: str) -> list[dict[str, int]]:
    """Every point of small ranges, else the corners and seeded random points."""
    names = sorted({s.payload for s in e.free_symbols} | {s.payload for s in ranges})
    every = exhaustive_points(ranges, variables=names)
    if every is not None:
        return every
    order = resolution_order(ranges, names)
    rng = random.Random(seed)
    out = corner_points(ranges, variables=names)
    tries = 0
    while len(out) < N_RANDOM and tries < 4 * N_RANDOM:
        tries += 1
        env: dict[str, int] = {}
        for sym, lo_e, hi_e in order:
            try:
                lo = None if lo_e is None else int(ia.evaluate(lo_e, env))
                hi = None if hi_e is None else int(ia.evaluate(hi_e, env))
            except ia.IndexAlgError:
                break
            lo = (hi - WINDOW if hi is not None else -WINDOW) if lo is None else lo
            hi = lo + WINDOW if hi is None else hi
            if lo > hi:
                break
            env[sym.payload] = rng.choice((lo, hi, rng.randint(lo, hi), rng.randint(lo, hi)))
        else:
            out.append(env)
    return out


def _value(e: Expr, point: Mapping[str, int]) -> object:
    try:
        return ia.evaluate(e, point)
    except ia.IndexAlgError:
        return None


def differs(a: Expr, b: Expr, ranges: Ranges, seed: str, *, z3: bool) -> str:
    """The empty string when ``b`` equals ``a`` wherever ``a`` is defined in the ranges (as
    far as the evaluation and Z3 can tell), else a description of a point where they
    differ."""
    for p in points(ia.And(a, b) if a.is_bool else a + b, ranges, seed):
        va = _value(a, p)
        if va is None:
            continue
        vb = _value(b, p)
        if vb != va:
            return f"at {p}: {va} vs {vb}"
    if not z3 or a is b:
        return ""
    claim = ia.Eq(a, b) if not a.is_bool else ia.Or(ia.And(a, b), ia.And(ia.Not(a), ia.Not(b)))
    try:
        proof = ia.prove(claim, ranges, tiers=("z3",), rlimit=RLIMIT)
    except ia.IndexAlgError:
        return ""
    if proof.status == "disproved":
        return f"z3: at {proof.counterexample}"
    return ""


# --- running ---------------------------------------------------------------------------------


def run_case(case: Case, *, z3: bool) -> Outcome:
    try:
        before = ia.parse(case.before)
        expected = ia.parse(case.expected)
        ranges = read_ranges(case.ranges)
    except ia.IndexAlgError as err:
        return Outcome(case, "peer-wrong", detail=f"cannot read the case: {err}")
    bad = differs(before, expected, ranges, case.where, z3=z3)
    if bad:
        return Outcome(case, "peer-wrong", detail=f"expected answer differs {bad}")
    try:
        out = ia.simplify(before, ranges)
    except Exception as err:  # a crash is what this counts
        return Outcome(case, "crash", detail=f"{type(err).__name__}: {err}")
    bad = differs(before, out, ranges, case.where + ":result", z3=z3)
    if bad:
        return Outcome(case, "wrong", str(out), f"result differs {bad}")
    if out is expected or size(out) <= size(expected):
        return Outcome(case, "reached", str(out))
    return Outcome(case, "weaker", str(out), f"size {size(out)} > expected {size(expected)}")


STATUSES = ("reached", "weaker", "wrong", "crash", "peer-wrong")


def tally(outcomes: Sequence[Outcome], key: str) -> dict[str, dict[str, int]]:
    rows: dict[str, dict[str, int]] = {}
    for o in outcomes:
        k = o.case.category if key == "category" else o.case.suite
        row = rows.setdefault(k, dict.fromkeys(STATUSES, 0))
        row[o.status] += 1
    return rows


def format_table(title: str, rows: Mapping[str, Mapping[str, int]], order: Sequence[str]) -> str:
    head = (
        f"{title:<28} {'N':>5} {'reached':>12} {'weaker':>7} {'wrong':>6} {'crash':>6}"
        f" {'peer wrong':>10}"
    )
    lines = [head, "-" * len(head)]
    total = dict.fromkeys(STATUSES, 0)
    for k in [*(o for o in order if o in rows), *sorted(set(rows) - set(order))]:
        r = rows[k]
        for s in STATUSES:
            total[s] += r[s]
        lines.append(_row(k, r))
    lines.append(_row("all", total))
    return "\n".join(lines)


def _row(name: str, r: Mapping[str, int]) -> str:
    n = r["reached"] + r["weaker"] + r["wrong"] + r["crash"]
    share = f"{100 * r['reached'] / n:5.1f}%" if n else "   - "
    return (
        f"{name:<28} {n:>5} {r['reached']:>5} {share:>6} {r['weaker']:>7} {r['wrong']:>6}"
        f" {r['crash']:>6} {r['peer-wrong']:>10}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.peers", description=__doc__.split("\n")[0])
    ap.add_argument("--no-z3", action="store_true", help="check equality by evaluation only")
    ap.add_argument("--misses", action="store_true", help="list every case not reached")
    ap.add_argument("--category", choices=CATEGORIES, help="only the cases of one category")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("files", nargs="*", type=Path, help="data files (default bench/peers/*.txt)")
    args = ap.parse_args(argv)
    files = args.files or sorted(HERE.glob("*.txt"))
    corpus = read_corpus(files)
    cases = [c for c in corpus.cases if args.category in (None, c.category)]
    t0 = time.perf_counter()
    outcomes = [run_case(c, z3=not args.no_z3) for c in cases]
    seconds = time.perf_counter() - t0
    by_cat = tally(outcomes, "category")
    by_suite = tally(outcomes, "suite")
    if args.json:
        print(
            json.dumps(
                {
                    "by_category": by_cat,
                    "by_suite": by_suite,
                    "skipped": len(corpus.skips),
                    "seconds": round(seconds, 2),
                    "misses": [_miss(o) for o in outcomes if o.status != "reached"],
                },
                indent=1,
                sort_keys=True,
            )
        )
    else:
        print(format_table("category", by_cat, CATEGORIES))
        print()
        print(format_table("suite", by_suite, ()))
        print()
        reasons: dict[str, int] = {}
        for s in corpus.skips:
            reasons[s.reason] = reasons.get(s.reason, 0) + 1
        print(f"translation gaps (!skip lines): {len(corpus.skips)}")
        for reason, k in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {k:>3}  {reason}")
        bad = [o for o in outcomes if o.status in ("wrong", "crash", "peer-wrong")]
        for o in bad:
            print(f"{o.status.upper()}: {o.case.where} {o.case.before} -> {o.result}  {o.detail}")
        if args.misses:
            for o in outcomes:
                if o.status == "weaker":
                    print(
                        f"weaker: {o.case.where} [{o.case.category}] {o.case.before}"
                        f"  want {o.case.expected}  got {o.result}"
                    )
        print(f"\n{len(outcomes)} cases in {seconds:.1f} s")
    failed = any(o.status in ("wrong", "crash") for o in outcomes)
    return 1 if failed else 0


def _miss(o: Outcome) -> dict[str, object]:
    c = o.case
    return {
        "where": c.where,
        "status": o.status,
        "category": c.category,
        "input": c.before,
        "expected": c.expected,
        "result": o.result,
        "detail": o.detail,
    }


if __name__ == "__main__":
    sys.exit(main())
