"""``indexalg eval EXPR [NAME=VALUE ...] [--env NAME=VALUE ...] [--json]``.

Prints the value of EXPR (an integer, or ``True``/``False`` for a claim) computed by the
reference evaluator, :func:`indexalg.evaluate`, with each symbol bound to an integer.
A symbol with no value, a zero divisor or a ModularIndexing with divisor or modulus below 1
is bad input (exit status 2, one ``error:`` line).  ``--json`` prints
``{"input": ..., "env": {...}, "value": ...}``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from indexalg._bigint import int_from_digits, int_to_str
from indexalg.cli.common import EXIT_OK, CommandError, add_json_option, print_json, read_expr

NAME = "eval"
HELP = "evaluate an expression at integer values of its symbols"
DESCRIPTION = (
    "Evaluate EXPR with the reference evaluator (Python's floor semantics for // and %).\n"
    "Bind every symbol: NAME=VALUE after EXPR, or --env NAME=VALUE."
)
EPILOG = """examples:
  indexalg eval "ModularIndexing(x, 64, 8)" x=1000      # prints 7
  indexalg eval "FloorDiv(FloorDiv(n, 2), -3)" n=7       # prints -1
  indexalg eval -- "-x // 4" x=3                         # '--' before an EXPR starting with -"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("expr", metavar="EXPR", help="the expression or claim to evaluate")
    parser.add_argument(
        "bindings", metavar="NAME=VALUE", nargs="*", help="integer values of the symbols"
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an integer value of a symbol (repeatable)",
    )
    add_json_option(parser)


def read_env(bindings: Sequence[str]) -> dict[str, int]:
    """``["x=3", "y=-1"]`` -> ``{"x": 3, "y": -1}``; raises :class:`CommandError` for a
    malformed binding, a non-integer value or a symbol bound twice."""
    env: dict[str, int] = {}
    for text in bindings:
        name, sep, value = (part.strip() for part in text.partition("="))
        if not sep or not name.isidentifier():
            raise CommandError(f"expected NAME=VALUE, got {text!r}")
        digits = value.removeprefix("-").removeprefix("+")
        if not (digits.isascii() and digits.isdigit()):
            raise CommandError(f"{text[:80]}: the value of {name} must be an integer")
        number = int_from_digits(digits)
        if value.startswith("-"):
            number = -number
        if name in env:
            raise CommandError(f"{text}: {name} is bound twice")
        env[name] = number
    return env


def run(args: argparse.Namespace) -> int:
    from indexalg.evaluate import evaluate

    e = read_expr(args.expr)
    env = read_env([*args.bindings, *args.env])
    value = evaluate(e, env)
    if args.json:
        print_json({"input": str(e), "env": env, "value": value})
    else:
        sys.stdout.write(f"{int_to_str(value) if type(value) is int else value}\n")
    return EXIT_OK
