"""``indexalg prove CLAIM [--range NAME=SPEC ...] [--json] [--smtlib] [--rlimit N] [--tiers T,...]``

Decides CLAIM (``x // 64 < 64``, ``ModularIndexing(x, 1, 2*s0) == x``, ``a < b and c != 0``)
for every value of its symbols inside their ranges, with :func:`indexalg.prove`'s tiers
(interval, congruence, simplify, z3).  Prints ``proved (TIER)``, ``disproved (TIER)`` with a
counterexample line ``counterexample: x=7, y=0`` (checked with the evaluator), or
``unknown: REASON``, or ``vacuous: REASON`` when the ranges admit no point.  Exit status:
0 proved, 1 disproved, 3 unknown, 6 vacuous, 2 bad input (an empty or unknown ``--tiers``
too), 5 internal error.

``--json`` prints ``{"status", "claim", "ranges", "tier", "counterexample", "reason"}``.
``--smtlib`` prints the Z3 tier's query as an SMT-LIB 2 script (``unsat`` means proved) and
does not decide the claim (exit status 0), so ``indexalg prove ... --smtlib | z3 -in`` replays
it.
"""

from __future__ import annotations

import argparse
import sys

from indexalg._bigint import int_to_str
from indexalg.cli.common import (
    EXIT_DISPROVED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VACUOUS,
    CommandError,
    EmptyRangeError,
    add_json_option,
    add_range_option,
    print_json,
    read_expr,
    read_ranges,
)
from indexalg.errors import ExprTypeError
from indexalg.expr import Expr

NAME = "prove"
HELP = "prove or disprove a claim for all values in the ranges"
DESCRIPTION = (
    "Decide CLAIM for every value of its symbols inside their ranges: proved, disproved\n"
    "(with a counterexample checked by the evaluator), unknown, or vacuous (the ranges admit\n"
    "no point).  Exit status 0 proved, 1 disproved, 3 unknown, 6 vacuous, 2 bad input."
)
EPILOG = """examples:
  indexalg prove "ModularIndexing(x, 1, 2*s0) == x" --range x=s0 --range s0=1..
  indexalg prove "FloorDiv(FloorDiv(n, 2), -3) == n // -6"      # disproved: n=1
  indexalg prove "x - x // 2 <= 512" --range x=1024 --json
  indexalg prove "x // (s0 + 1) == 0" --range x=s0 --range s0=1.. --smtlib | z3 -in"""

#: Exit status per proof status.
STATUS_EXIT = {
    "proved": EXIT_OK,
    "disproved": EXIT_DISPROVED,
    "unknown": EXIT_UNKNOWN,
    "vacuous": EXIT_VACUOUS,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("claim", metavar="CLAIM", help="a claim, e.g. 'x // 64 < 64'")
    add_range_option(parser)
    add_json_option(parser)
    parser.add_argument(
        "--smtlib",
        action="store_true",
        help="print the Z3 query as an SMT-LIB 2 script instead of deciding the claim",
    )
    parser.add_argument(
        "--rlimit", type=int, default=None, metavar="N", help="Z3 resource limit per query"
    )
    parser.add_argument(
        "--tiers",
        default=None,
        metavar="T,...",
        help="comma-separated tiers to try (default: interval,congruence,simplify,z3)",
    )


def run(args: argparse.Namespace) -> int:
    claim = read_expr(args.claim)
    if not claim.is_bool:
        raise ExprTypeError(
            f"prove takes a claim such as 'e < n' or 'a == b', got the integer expression {claim}"
        )
    try:
        ranges = read_ranges(args.ranges)
    except EmptyRangeError as err:  # no point, as when the ranges are empty together
        return _vacuous(claim, err, as_json=args.json)
    from indexalg.prove import DEFAULT_RLIMIT, TIERS, prove, smtlib_query

    rlimit = DEFAULT_RLIMIT if args.rlimit is None else args.rlimit
    if rlimit < 1:
        raise CommandError(f"--rlimit {rlimit}: must be at least 1")
    tiers = TIERS
    if args.tiers is not None:
        tiers = tuple(t.strip() for t in args.tiers.split(",") if t.strip())
        if not tiers:  # (an unknown name is refused by prove itself)
            raise CommandError(f"--tiers: no tier given; choose from {','.join(TIERS)}")
    if args.smtlib:
        sys.stdout.write(smtlib_query(claim, ranges, rlimit=rlimit))
        return EXIT_OK
    proof = prove(claim, ranges, rlimit=rlimit, tiers=tiers)
    if args.json:
        print_json(proof.as_dict())
        return STATUS_EXIT[proof.status]
    if proof.status == "unknown":
        sys.stdout.write(f"unknown: {proof.reason}\n")
    elif proof.status == "vacuous":
        sys.stdout.write(f"vacuous: {proof.reason or 'the ranges admit no point'}\n")
    else:
        sys.stdout.write(f"{proof.status} ({proof.tier})\n")
    if proof.counterexample is not None:
        point = ", ".join(f"{k}={int_to_str(v)}" for k, v in proof.counterexample.items())
        sys.stdout.write(f"counterexample: {point}\n")
    return STATUS_EXIT[proof.status]


def _vacuous(claim: Expr, err: EmptyRangeError, *, as_json: bool) -> int:
    """The answer for a range that admits no value by itself: ``vacuous``, in the words and
    the JSON form that :func:`indexalg.prove` gives when the ranges admit no point together
    (its interval tier finds that; here the range alone shows it)."""
    reason = f"the ranges admit no point: {err.why}"
    if as_json:
        ranges: dict[str, object] = {k: list(v) for k, v in err.others.as_spec().items()}
        ranges[err.name] = [err.lo, err.hi]
        print_json(
            {
                "status": "vacuous",
                "claim": str(claim),
                "ranges": ranges,
                "tier": "interval",
                "counterexample": None,
                "reason": reason,
            }
        )
    else:
        sys.stdout.write(f"vacuous: {reason}\n")
    return EXIT_VACUOUS
