"""``indexalg verify-rules [--rules MODULE] [--json] [--rlimit N] [--bounded-range N]
[--strict-termination]``.

Proves every rewrite rule sound with Z3 (:func:`indexalg.verify.verify_rules`): one row per
rule with its status (``proved``; ``bounded``, proved for every value of its nonlinear
variables in a stated range; ``FAILED``, with a counterexample the evaluator confirms;
``UNKNOWN``) and the time it took, then the totals, the counterexamples and the rules that do
not decrease the reduction order.  ``--rules`` verifies a user's rule module instead of the
built-in table: a dotted module name or a ``.py`` file exposing ``RULES`` (a RuleSet or an
iterable of Rule).

Exit status 0 when every rule is proved or bounded (and, with ``--strict-termination``, every
rule decreases), 4 otherwise, 2 for a rule module that cannot be loaded.
"""

from __future__ import annotations

import argparse
import sys

from indexalg.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    CommandError,
    add_json_option,
    print_json,
)

NAME = "verify-rules"
HELP = "prove every rewrite rule sound with Z3 and check termination"
DESCRIPTION = (
    "Prove each rewrite rule sound under its condition (Z3, including definedness: no\n"
    "division by zero on the right-hand side), print a counterexample for an unsound rule,\n"
    "and check that every rule decreases a reduction order."
)
EPILOG = """examples:
  indexalg verify-rules
  indexalg verify-rules --rules my_project.index_rules --json
  indexalg verify-rules --rules ./my_rules.py --bounded-range 32"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        metavar="MODULE",
        default=None,
        help="a rule module (dotted name or .py file) exposing RULES; default: indexalg.rules.ALL",
    )
    add_json_option(parser)
    parser.add_argument(
        "--rlimit", type=int, default=None, metavar="N", help="Z3 resource limit per query"
    )
    parser.add_argument(
        "--bounded-range",
        type=int,
        default=None,
        metavar="N",
        help="constants range over [-N, N] in bounded proofs (default 64)",
    )
    parser.add_argument(
        "--strict-termination",
        action="store_true",
        help="fail when a rule does not decrease the reduction order",
    )


def run(args: argparse.Namespace) -> int:
    from indexalg.verify import (
        DEFAULT_BOUNDED_RANGE,
        DEFAULT_RLIMIT,
        load_rules,
        summary,
        verify_rules,
    )

    rlimit = DEFAULT_RLIMIT if args.rlimit is None else args.rlimit
    bound = DEFAULT_BOUNDED_RANGE if args.bounded_range is None else args.bounded_range
    if rlimit < 1:
        raise CommandError(f"--rlimit {rlimit}: must be at least 1")
    if bound < 1:
        raise CommandError(f"--bounded-range {bound}: must be at least 1")
    if args.rules is None:
        from indexalg.rules import ALL

        rules = list(ALL)
    else:
        rules = load_rules(args.rules)
    verdicts = verify_rules(rules, rlimit=rlimit, bounded_range=bound)
    totals = summary(verdicts)
    ok = all(v.sound for v in verdicts)
    if args.strict_termination:
        ok = ok and all(v.decreasing for v in verdicts)
    if args.json:
        print_json({"rules": [v.as_dict() for v in verdicts], "totals": totals, "ok": ok})
        return EXIT_OK if ok else EXIT_FAILED
    width = max((len(v.name) for v in verdicts), default=4)
    out = [f"{'rule'.ljust(width)}  {'status'.ljust(11)}  time"]
    for v in verdicts:
        status = v.status if v.sound else v.status.upper()
        if v.status == "bounded":
            status += f" ±{v.bound}"
        out.append(f"{v.name.ljust(width)}  {status.ljust(11)}  {v.seconds:6.3f}s")
    seconds = sum(v.seconds for v in verdicts)
    out.append(
        f"{totals['total']} rules: {totals['proved']} proved, {totals['bounded']} bounded, "
        f"{totals['failed']} failed, {totals['unknown']} unknown; "
        f"{totals['non_decreasing']} not decreasing; {seconds:.2f}s"
    )
    for v in verdicts:
        if v.status == "bounded":
            out.append(f"bounded {v.name}: {v.reason}")
    for v in verdicts:
        if v.counterexample is not None:
            point = ", ".join(f"{k}={x}" for k, x in v.counterexample.items())
            out.append(f"counterexample {v.name}: {point} ({v.reason})")
        elif not v.sound:
            out.append(f"unknown {v.name}: {v.reason}")
    for v in verdicts:
        if not v.decreasing:
            out.append(f"not decreasing {v.name}: {v.order}")
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK if ok else EXIT_FAILED
