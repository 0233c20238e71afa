"""The prover's tier benchmark: which tier answers in-bounds claims of real index expressions,
and how fast.

Run from the repository root::

    python -m bench.prove                       # the harvested corpus (bench/corpus), 600 exprs
    python -m bench.prove --corpus PATH         # another corpus file (same format)
    python -m bench.prove --generated 600       # a seeded Inductor-style set instead
    python -m bench.prove --limit 1000 --json

Claims.  For each expression ``e`` with its ranges, the two claims a code generator asks
before it drops a bounds mask or an assert: ``LO <= e`` and ``e < SIZE``, with ``LO`` the
tightest lower bound and ``SIZE`` one past the tightest upper bound (the extent of a buffer
the index exactly fills).  Tight bounds are found once, untimed: the analysis's bounds where a
point attains them, else :func:`indexalg.prove.exact_bounds` (Z3); a symbolic side (dynamic
shapes) keeps the analysis's symbolic bound.  Every claim is therefore true, the hardest true
claim of its kind: a prover that answers it from loose bounds cannot answer it at all.

Timing.  A fresh interpreter parses every claim, normalises every range and proves one
unrelated claim to import the tiers' modules (all untimed), then times one
``ia.prove(claim, ranges)`` per claim, in corpus order, with the default tiers (interval,
congruence, simplify, z3) and resource limit.  Reported per tier: the share of claims it
answered and the median and 99th percentile latency of those claims (µs).
Target: at least 95% answered without Z3, with a median under 50 µs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from bench._timing import machine_info, run_worker, summarise

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_LIMIT = 600
NO_Z3_TARGET = 0.95
P50_TARGET_US = 50.0

Spec = dict[str, list[Any]]  # name -> [lo, hi] (ints, text of symbolic bounds, or None)


# --- building the claims (untimed) --------------------------------------------------------------


def _cases(args: argparse.Namespace) -> tuple[str, list[tuple[str, Spec]]]:
    """(source description, [(expression text, ranges)]) in a deterministic order."""
    from bench.simplify import cases_from_corpus, generate_cases

    if args.generated:
        cases = generate_cases(args.generated, seed=args.seed)
        source = f"generated Inductor-style set ({args.generated}, seed {args.seed})"
    else:
        from bench.corpus.load import CORPUS_PATH, load_corpus

        path = Path(args.corpus) if args.corpus else CORPUS_PATH
        if not path.exists():
            n = args.limit
            cases = generate_cases(n, seed=args.seed)
            source = f"generated Inductor-style set ({n}, seed {args.seed}; no corpus at {path})"
        else:
            cases = cases_from_corpus(load_corpus(path))
            source = f"corpus {path.name} ({len(cases)} records)"
    import indexalg as ia
    from indexalg.errors import IndexAlgError

    unique: dict[tuple[str, Any], tuple[str, Spec]] = {}
    unreadable = 0
    for c in cases:
        try:
            if ia.parse(c.text).is_bool:
                continue
        except IndexAlgError:  # e.g. sympy's Abs, which indexalg does not represent
            unreadable += 1
            continue
        spec = {name: [lo, hi] for name, lo, hi in c.ranges}
        unique.setdefault((c.text, c.ranges), (c.text, spec))
    items = list(unique.values())
    if unreadable:
        source += f", {unreadable} not expressible skipped"
    if len(items) > args.limit:
        rng = random.Random(args.seed)
        keep = sorted(rng.sample(range(len(items)), args.limit))
        items = [items[i] for i in keep]
    return source, items


def _ranges(spec: Spec) -> Any:
    from indexalg.ranges import as_ranges

    return as_ranges({k: (v[0], v[1]) for k, v in spec.items()})


def _attained(e: Any, r: Any, value: Any) -> bool:
    """Whether a cheap point (corners, zero) reaches the numeric bound ``value``."""
    from indexalg.errors import IndexAlgError
    from indexalg.evaluate import evaluate
    from indexalg.prove import _candidate_points

    if value is None or value.args or value.free_symbols:
        return False
    for point in _candidate_points(e < 0, r):
        try:
            if evaluate(e, point) == value.payload:
                return True
        except IndexAlgError:
            continue
    return False


def build_claims(items: Sequence[tuple[str, Spec]]) -> list[dict[str, Any]]:
    """The two in-bounds claims of every expression (see the module docstring)."""
    import indexalg as ia
    from indexalg.analysis import bounds
    from indexalg.prove import exact_bounds

    claims: list[dict[str, Any]] = []
    for text, spec in items:
        e = ia.parse(text)
        r = _ranges(spec)
        lo, hi = bounds(e, r)
        if not (_attained(e, r, lo) and _attained(e, r, hi)):
            lo, hi = exact_bounds(e, r)
        if lo is not None:
            claims.append({"claim": str(ia.Le(lo, e)), "ranges": spec, "side": "lower"})
        if hi is not None:
            claims.append({"claim": str(ia.Lt(e, hi + 1)), "ranges": spec, "side": "upper"})
    return claims


# --- the timed worker (a fresh interpreter) -----------------------------------------------------


def _worker(src: Path, dst: Path) -> None:
    import indexalg as ia

    claims = json.loads(src.read_text(encoding="utf-8"))
    prepared = [(ia.parse(c["claim"]), _ranges(c["ranges"])) for c in claims]
    ia.prove("w < 1", {"w": 1})  # imports the tiers' modules (not part of any claim's time)
    out: list[dict[str, Any]] = []
    clock = time.perf_counter_ns
    for claim, r in prepared:
        t0 = clock()
        proof = ia.prove(claim, r)
        t1 = clock()
        out.append({"status": proof.status, "tier": proof.tier or "unknown", "ns": t1 - t0})
    dst.write_text(json.dumps(out), encoding="utf-8")


# --- the report ------------------------------------------------------------------------------

TIER_ORDER = ("literal", "interval", "congruence", "simplify", "z3", "unknown")


def summarise_results(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per-tier shares and latencies, the no-Z3 totals and the statuses."""
    n = len(results)
    by_tier: dict[str, list[int]] = {}
    statuses: dict[str, int] = {}
    for r in results:
        by_tier.setdefault(r["tier"], []).append(r["ns"])
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    tiers = {}
    for t in sorted(by_tier, key=lambda t: TIER_ORDER.index(t) if t in TIER_ORDER else 99):
        s = summarise(by_tier[t])
        tiers[t] = {
            "claims": s.n,
            "share": s.n / n if n else 0.0,
            "p50_us": s.median_us,
            "p99_us": s.p99_us,
        }
    no_z3 = [ns for t, v in by_tier.items() if t not in ("z3", "unknown") for ns in v]
    s = summarise(no_z3)
    return {
        "claims": n,
        "tiers": tiers,
        "without_z3": {
            "claims": s.n,
            "share": s.n / n if n else 0.0,
            "p50_us": s.median_us,
            "p99_us": s.p99_us,
        },
        "statuses": dict(sorted(statuses.items())),
    }


def format_table(source: str, summary: Mapping[str, Any]) -> str:
    lines = [
        f"prover tiers on {summary['claims']} in-bounds claims from {source}",
        "",
        "| tier | claims | share | p50 µs | p99 µs |",
        "|---|---:|---:|---:|---:|",
    ]
    for t, row in summary["tiers"].items():
        lines.append(
            f"| {t} | {row['claims']} | {100 * row['share']:.1f}% | {row['p50_us']:.1f} "
            f"| {row['p99_us']:.1f} |"
        )
    w = summary["without_z3"]
    lines.append(
        f"| **without Z3** | {w['claims']} | {100 * w['share']:.1f}% | {w['p50_us']:.1f} "
        f"| {w['p99_us']:.1f} |"
    )
    ok_share = w["share"] >= NO_Z3_TARGET
    ok_p50 = w["p50_us"] < P50_TARGET_US
    lines += [
        "",
        f"statuses: {', '.join(f'{k} {v}' for k, v in summary['statuses'].items())}",
        f"target >= {100 * NO_Z3_TARGET:.0f}% without Z3: {'met' if ok_share else 'MISSED'}; "
        f"p50 without Z3 < {P50_TARGET_US:.0f} µs: {'met' if ok_p50 else 'MISSED'}",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.prove", description=__doc__.split("\n")[0])
    p.add_argument(
        "--corpus", default=None, help="corpus file (default bench/corpus/corpus.jsonl.gz)"
    )
    p.add_argument(
        "--generated",
        type=int,
        default=0,
        metavar="N",
        help="use N generated expressions instead of the corpus",
    )
    p.add_argument(
        "--limit",
        type=int,
        default=DEFAULT_LIMIT,
        metavar="N",
        help=f"at most N distinct expressions, sampled with --seed (default {DEFAULT_LIMIT})",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--in", dest="src", default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", dest="dst", default=None, help=argparse.SUPPRESS)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        _worker(Path(args.src), Path(args.dst))
        return 0
    source, items = _cases(args)
    t0 = time.perf_counter()
    claims = build_claims(items)
    setup_s = time.perf_counter() - t0
    results = run_worker("bench.prove", ["--worker"], claims, timeout_s=3600, cwd=ROOT)
    summary = summarise_results(results)
    summary["source"] = source
    summary["setup_s"] = round(setup_s, 1)
    summary["machine"] = machine_info()
    if args.json:
        sys.stdout.write(json.dumps(summary, sort_keys=True, indent=1) + "\n")
    else:
        sys.stdout.write(format_table(source, summary) + "\n")
        sys.stdout.write(f"(claims built in {setup_s:.1f}s, untimed)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
