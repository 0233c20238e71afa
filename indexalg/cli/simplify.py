"""``indexalg simplify EXPR [--range NAME=SPEC ...] [--json] [--explain] [--stats]``.

Prints the simplified expression in canonical text (it parses back to the same expression).
The result has the value of EXPR for every assignment of the symbols inside their ranges.

``--explain`` adds the rewrites that fired, in order (rule, before, after); ``--stats`` the
hits per rule.  ``--step-limit N`` fixes the rewrite-step limit at N (by default it grows with
the size of EXPR: :func:`indexalg.limits.step_limit_for`); past it the command reports the
limit error (exit status 2).  ``--json`` prints one object with sorted keys::

    {"input": ..., "output": ..., "ranges": {name: [lo, hi]}, "ops_before": ..., "ops_after": ...,
     "divmod_before": ..., "divmod_after": ...}

plus ``"stats"`` / ``"trace"`` when asked for.  ``ops_*`` is :meth:`Expr.count_ops`,
``divmod_*`` the number of FloorDiv/Mod/ModularIndexing/CeilDiv/CleanDiv nodes.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

from indexalg.cli.common import (
    EXIT_OK,
    add_json_option,
    add_range_option,
    divmod_ops,
    print_json,
    read_expr,
    read_ranges,
)
from indexalg.expr import Expr
from indexalg.ranges import Ranges

NAME = "simplify"
HELP = "simplify an expression under variable ranges"
DESCRIPTION = (
    "Simplify EXPR under the given ranges and print the result in canonical text.\n"
    "The result equals EXPR for every value of the symbols inside their ranges."
)
EPILOG = """examples:
  indexalg simplify "ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)" --range x=4096
  indexalg simplify "x // 64 % 8" --range x=0..511 --json
  indexalg simplify "ModularIndexing(x, 1, 2*s0)" --range x=s0 --range s0=1.. --explain"""


@dataclass(frozen=True)
class Outcome:
    """A simplification: the result, hits per rule and the rewrites in order (the last two
    filled only when asked for)."""

    expr: Expr
    stats: dict[str, int] = field(default_factory=dict)
    trace: list[tuple[str, Expr, Expr]] = field(default_factory=list)


def simplify_expr(
    e: Expr,
    ranges: Ranges,
    *,
    stats: bool = False,
    explain: bool = False,
    step_limit: int | None = None,
) -> Outcome:
    """:func:`indexalg.simplify.simplify` of ``e`` under ``ranges``, as an :class:`Outcome`
    (``step_limit`` None: the default limit, which grows with the input)."""
    from indexalg.simplify import DEFAULT_STEP_LIMIT, simplify, simplify_result

    limit = DEFAULT_STEP_LIMIT if step_limit is None else step_limit
    if stats or explain:
        result = simplify_result(e, ranges, step_limit=limit)
        return Outcome(result.expr, dict(result.stats), list(result.trace))
    return Outcome(simplify(e, ranges, step_limit=limit))


def _step_limit(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expr", metavar="EXPR", help="the expression, e.g. 'x // 64 %% 8'")
    add_range_option(parser)
    add_json_option(parser)
    parser.add_argument("--explain", action="store_true", help="list the rewrites that fired")
    parser.add_argument("--stats", action="store_true", help="count the hits of each rule")
    parser.add_argument(
        "--step-limit",
        type=_step_limit,
        default=None,
        metavar="N",
        help="stop after N rewrite steps (default: 10000 plus 10 per node of EXPR)",
    )


def run(args: argparse.Namespace) -> int:
    e = read_expr(args.expr)
    ranges = read_ranges(args.ranges)
    out = simplify_expr(
        e, ranges, stats=args.stats, explain=args.explain, step_limit=args.step_limit
    )
    if args.json:
        print_json(_json(e, ranges, out, stats=args.stats, explain=args.explain))
        return EXIT_OK
    lines = [str(out.expr)]
    if args.explain:
        lines.append(f"explain: {_count(len(out.trace), 'rewrite')}")
        lines += [f"  {i}. {r}: {b} -> {a}" for i, (r, b, a) in enumerate(out.trace, 1)]
    if args.stats:
        fired = sorted(((n, h) for n, h in out.stats.items() if h), key=lambda t: (-t[1], t[0]))
        total = sum(h for _, h in fired)
        lines.append(f"stats: {_count(len(fired), 'rule')} fired, {_count(total, 'hit')}")
        width = max((len(n) for n, _ in fired), default=0)
        lines += [f"  {n.ljust(width)}  {h}" for n, h in fired]
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _json(e: Expr, ranges: Ranges, out: Outcome, *, stats: bool, explain: bool) -> object:
    obj: dict[str, object] = {
        "input": str(e),
        "output": str(out.expr),
        "ranges": ranges.as_spec(),
        "ops_before": e.count_ops(),
        "ops_after": out.expr.count_ops(),
        "divmod_before": divmod_ops(e),
        "divmod_after": divmod_ops(out.expr),
    }
    if stats:
        obj["stats"] = dict(out.stats)
    if explain:
        obj["trace"] = [{"rule": r, "before": str(b), "after": str(a)} for r, b, a in out.trace]
    return obj
