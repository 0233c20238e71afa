"""What the subcommands share: exit statuses, the ``--range`` and ``--json`` options,
reading expressions and ranges from the command line, error reporting.

Exit statuses (every subcommand uses these names, never bare numbers):

====================  =====  ===========================================================
name                  value  meaning
====================  =====  ===========================================================
``EXIT_OK``           0      success; for ``prove``, the claim is proved
``EXIT_DISPROVED``    1      the claim is false for some values in the ranges
``EXIT_BAD_INPUT``    2      malformed expression, range, binding or usage; a zero divisor
``EXIT_UNKNOWN``      3      the prover could not decide the claim
``EXIT_FAILED``       4      a check ran and found a failure (verify-rules, fuzz, demo)
``EXIT_INTERNAL``     5      internal error: a bug in indexalg (one ``error: internal
                             error: ...`` line; the traceback only with ``--debug``)
``EXIT_VACUOUS``      6      ``prove``: the ranges admit no point, so the claim holds
                             vacuously (a contradiction in the ranges, not a proof)
====================  =====  ===========================================================

This module imports only the standard library and indexalg's pure-Python core.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import TextIO

from indexalg._bigint import int_to_str
from indexalg.errors import IndexAlgError, ParseError, RangeError
from indexalg.expr import Expr, Integer
from indexalg.poly import DIVISION_KINDS, division_count
from indexalg.ranges import Ranges, RangeSpec, as_ranges, parse_range_arg

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_DISPROVED",
    "EXIT_FAILED",
    "EXIT_INTERNAL",
    "EXIT_VACUOUS",
    "EXIT_OK",
    "EXIT_PROVED",
    "EXIT_UNKNOWN",
    "CommandError",
    "EmptyRangeError",
    "add_json_option",
    "add_range_option",
    "bound_json",
    "bound_text",
    "divmod_ops",
    "print_json",
    "read_expr",
    "read_ranges",
    "report_error",
    "internal_error_line",
    "run_command",
]

EXIT_OK = 0
EXIT_PROVED = EXIT_OK
EXIT_DISPROVED = 1
EXIT_BAD_INPUT = 2
EXIT_UNKNOWN = 3
EXIT_FAILED = 4
EXIT_INTERNAL = 5
EXIT_VACUOUS = 6


class CommandError(IndexAlgError):
    """Bad command-line input that is neither an expression nor a range (a malformed
    ``NAME=VALUE`` binding, a file that cannot be read, a missing optional dependency).
    ``main`` reports it as ``error: <message>`` and exits with ``EXIT_BAD_INPUT``."""


# --- options ------------------------------------------------------------------------------

RANGE_HELP = (
    "range of a symbol (repeatable): NAME=N means 0 <= NAME < N; NAME=LO..HI is inclusive, "
    "either side may be empty (unbounded); NAME=EXPR means 0 <= NAME < EXPR (symbolic). "
    "A symbol with no range is any integer."
)


def add_range_option(parser: argparse.ArgumentParser) -> None:
    """``--range NAME=SPEC`` (repeatable), collected as strings in ``args.ranges``."""
    parser.add_argument(
        "-r",
        "--range",
        dest="ranges",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help=RANGE_HELP,
    )


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: one JSON object on stdout, keys sorted."""
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (sorted keys) on stdout"
    )


# --- reading input ------------------------------------------------------------------------


def read_expr(text: str) -> Expr:
    """Parse a command-line expression (raises :class:`~indexalg.errors.ParseError`)."""
    from indexalg.parse import parse

    return parse(text)


def read_ranges(specs: Sequence[str]) -> Ranges:
    """Turn ``--range`` strings into :class:`indexalg.ranges.Ranges`.

    Raises :class:`~indexalg.errors.RangeError` naming the offending ``--range`` for a
    malformed range, a symbolic bound that does not parse, a number written with other
    than the ASCII digits, or a symbol given twice; then :class:`EmptyRangeError` for a range
    that admits no value on its own (``x=5..2``, ``x=0``), once the others are known to be
    well formed.  Symbols that the expression does not mention are allowed.
    """
    table: dict[str, RangeSpec] = {}
    seen: set[str] = set()
    empty: list[tuple[str, str, tuple[int, int]]] = []  # (name, message, (lo, hi))
    for spec in specs:
        name, value, message = _read_range(spec)
        if name in seen:
            raise RangeError(f"--range {spec}: a range for {name!r} was already given")
        seen.add(name)
        if message is None:
            table[name] = value
            continue
        bounds = _constant_bounds(value)
        if bounds is None or bounds[0] <= bounds[1]:
            raise RangeError(f"--range {spec}: {message}")
        empty.append((name, f"--range {spec}: {message}", bounds))
    ranges = as_ranges(table)
    if empty:
        name, message, (lo, hi) = empty[0]
        raise EmptyRangeError(message, name=name, lo=lo, hi=hi, others=ranges)
    return ranges


def _read_range(spec: str) -> tuple[str, RangeSpec, str | None]:
    """``(name, value, None)`` for a well-formed ``NAME=SPEC`` that admits a value; the
    message of the library's RangeError as the third item when ``as_ranges`` refuses it."""
    try:
        name, value = parse_range_arg(spec)
    except RangeError as err:
        raise RangeError(f"--range {spec}: {err}") from None
    try:
        as_ranges({name: value})  # checks this one range, so the error can name it
    except ParseError as err:
        raise RangeError(f"--range {spec}: {err.one_line()}") from None
    except RangeError as err:
        return name, value, str(err).removeprefix(f"range of {name}: ")
    return name, value, None


def _constant_bounds(value: RangeSpec) -> tuple[int, int] | None:
    """The inclusive (lo, hi) of a range spec whose both bounds are integer constants."""
    if isinstance(value, tuple):
        lo, hi = (_constant(b) for b in value)
    else:
        size = _constant(value)
        lo, hi = (None, None) if size is None else (0, size - 1)
    return None if lo is None or hi is None else (lo, hi)


def _constant(b: object) -> int | None:
    if type(b) is int:
        return b
    if isinstance(b, str):
        try:
            b = read_expr(b)
        except IndexAlgError:
            return None
    return b.payload if type(b) is Integer else None


class EmptyRangeError(RangeError):
    """A ``--range`` that admits no value by itself (``x=5..2``, ``x=0``): the ranges admit
    no point, as when they do not together (``x=s0`` with ``s0=0..0``).  ``simplify`` and
    ``bounds`` report both as bad input; ``prove`` answers ``vacuous`` to both
    (docs/cli.md, "Ranges that admit no point").  ``others`` are the other ranges."""

    def __init__(self, message: str, *, name: str, lo: int, hi: int, others: Ranges) -> None:
        super().__init__(message)
        self.name = name
        self.lo = lo
        self.hi = hi
        self.others = others

    @property
    def why(self) -> str:
        """``x in [5, 2] is empty``: the words the prover uses for an empty domain."""
        return f"{self.name} in [{int_to_str(self.lo)}, {int_to_str(self.hi)}] is empty"


# --- reporting ----------------------------------------------------------------------------


def report_error(err: IndexAlgError, *, where: str = "", stream: TextIO | None = None) -> None:
    """Print ``err`` for a person: one line ``error: [WHERE: ]MESSAGE`` first; for a
    :class:`~indexalg.errors.ParseError` the line names the column and is followed by the
    text and a caret under the offending token."""
    out = sys.stderr if stream is None else stream
    prefix = f"error: {where}: " if where else "error: "
    if isinstance(err, ParseError):
        text, column = _excerpt(err.text, err.column)
        caret = " " * (column - 1) + "^"
        out.write(f"{prefix}{err.one_line()}\n  {text}\n  {caret}\n")
        return
    message = str(err).splitlines()[0] if str(err) else type(err).__name__
    out.write(f"{prefix}{message}\n")


def run_command(command: Callable[[], int], *, debug: bool = False) -> int:
    """The error shell of a command's ``main`` (``indexalg`` and ``indexalg-triton``):
    ``command()``'s exit status; an :class:`~indexalg.errors.IndexAlgError` is bad input
    (:func:`report_error`, ``EXIT_BAD_INPUT``); Ctrl-C prints ``interrupted`` (130); any
    other exception is a bug: one line ``error: internal error: TYPE: MESSAGE``
    (``EXIT_INTERNAL``), after the traceback only with ``debug``."""
    try:
        return int(command())
    except IndexAlgError as err:
        report_error(err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except Exception as err:  # a bug: one line, the traceback only when asked for
        if debug:
            traceback.print_exc()
        sys.stderr.write(f"error: internal error: {internal_error_line(err)}\n")
        return EXIT_INTERNAL


def internal_error_line(err: BaseException) -> str:
    """``TYPE: first line of the message``, the message cut at 300 characters."""
    text = str(err).splitlines()[0] if str(err) else ""
    if len(text) > 300:
        text = text[:300] + "..."
    name = type(err).__name__
    return f"{name}: {text}" if text else name


_EXCERPT = 60


def _excerpt(text: str, column: int) -> tuple[str, int]:
    """A long input cut to the ``_EXCERPT`` characters either side of ``column`` (marked
    with ``...``), and the column within the excerpt."""
    if len(text) <= 2 * _EXCERPT + 20:
        return text, column
    start = max(0, column - 1 - _EXCERPT)
    end = min(len(text), column - 1 + _EXCERPT)
    head = "..." if start > 0 else ""
    tail = "..." if end < len(text) else ""
    return head + text[start:end] + tail, column - start + len(head)


def print_json(obj: object) -> None:
    """One JSON object on stdout with sorted keys (deterministic); integers of any size are
    written as JSON numbers (``json`` alone refuses ints over 4,300 digits)."""
    big: list[int] = []

    def swap(o: object) -> object:
        if type(o) is int and o.bit_length() > 10_000:
            big.append(o)
            return f"@@indexalg-bigint-{len(big) - 1}@@"
        if isinstance(o, dict):
            return {k: swap(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [swap(v) for v in o]
        return o

    text = json.dumps(swap(obj), sort_keys=True)
    for i, v in enumerate(big):
        text = text.replace(f'"@@indexalg-bigint-{i}@@"', int_to_str(v), 1)
    sys.stdout.write(text + "\n")


# --- measuring and printing results -------------------------------------------------------

DIVMOD_KINDS: tuple[type[Expr], ...] = DIVISION_KINDS


#: Number of division-like nodes in an expression (:func:`indexalg.poly.division_count`).
divmod_ops = division_count


def bound_text(b: object, *, upper: bool) -> str:
    """A bound for people: None (unbounded) prints as ``-inf`` below and ``inf`` above."""
    if b is None:
        return "inf" if upper else "-inf"
    if type(b) is int:
        return int_to_str(b)
    return str(b)


def bound_json(b: object) -> int | str | None:
    """A bound for JSON: an int, the canonical text of a symbolic bound, or null."""
    if b is None:
        return None
    if isinstance(b, bool):
        raise TypeError(f"a bound must be an integer, got {b!r}")
    if isinstance(b, int):
        return b
    if type(b) is Integer:
        v: int = b.payload
        return v
    return str(b)
