"""``indexalg bounds EXPR [--range NAME=SPEC ...] [--exact] [--json]``.

Prints ``[LO, HI]``: inclusive bounds of EXPR over the ranges, each an integer, a symbolic
expression in the size symbols, or ``-inf``/``inf`` where no bound is known: the result of
:func:`indexalg.bounds` (interval analysis: fast, may be loose; with ``--exact``, the
tightest bounds, found with Z3).
``--json`` prints ``{"input": ..., "ranges": {...}, "lo": ..., "hi": ..., "exact": ...}``
with null for an unbounded side and the canonical text of a symbolic bound.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from indexalg.cli.common import (
    EXIT_OK,
    CommandError,
    add_json_option,
    add_range_option,
    bound_json,
    bound_text,
    print_json,
    read_expr,
    read_ranges,
)
from indexalg.errors import ExprTypeError

NAME = "bounds"
HELP = "inclusive lower and upper bounds of an expression under variable ranges"
DESCRIPTION = (
    "Print [LO, HI], inclusive bounds of EXPR over the ranges (interval analysis;\n"
    "--exact for the tightest bounds, found with Z3)."
)
EPILOG = """examples:
  indexalg bounds "x // 64 % 8" --range x=4096                # [0, 7]
  indexalg bounds "x - x // 2" --range x=1024 --exact          # [0, 512]
  indexalg bounds "64*y + x" --range x=64 --range y=s0 --range s0=1.."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expr", metavar="EXPR", help="an integer expression")
    add_range_option(parser)
    parser.add_argument(
        "--exact", action="store_true", help="the tightest bounds, from the Z3 prover"
    )
    add_json_option(parser)


def run(args: argparse.Namespace) -> int:
    e = read_expr(args.expr)
    ranges = read_ranges(args.ranges)
    if e.is_bool:
        raise ExprTypeError(f"bounds takes an integer expression, got the claim {e}")
    if args.exact and importlib.util.find_spec("z3") is None:
        raise CommandError("--exact needs z3: pip install 'indexalg[z3]'")
    from indexalg import bounds

    lo, hi = bounds(e, ranges, exact=args.exact)
    if args.json:
        print_json(
            {
                "input": str(e),
                "ranges": ranges.as_spec(),
                "lo": bound_json(lo),
                "hi": bound_json(hi),
                "exact": bool(args.exact),
            }
        )
    else:
        sys.stdout.write(f"[{bound_text(lo, upper=False)}, {bound_text(hi, upper=True)}]\n")
    return EXIT_OK
