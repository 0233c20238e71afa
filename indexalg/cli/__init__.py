"""The ``indexalg`` command: a thin ``main`` over the library, one module per subcommand.

Adding a subcommand
-------------------
A subcommand is a module of this package that defines::

    NAME: str                      # the command word, e.g. "verify-rules"
    HELP: str                      # one line for ``indexalg --help``
    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...   # returns an exit status

and may define ``DESCRIPTION`` (the text of ``indexalg NAME --help``; default ``HELP``)
and ``EPILOG`` (examples printed after the options, layout kept).  Register it by adding
``(NAME, module name)`` to :data:`SUBCOMMANDS`; ``prove``, ``verify-rules`` and ``fuzz``
are registered already, so their authors only write ``prove.py``, ``verify_rules.py`` and
``fuzz.py``.  A registered module that does not exist yet is simply not offered.

Rules a subcommand follows:

* **Cheap import.**  At module level import only the standard library, ``indexalg``'s
  pure-Python core and :mod:`indexalg.cli.common`; import sympy, z3, torch, triton (and
  heavy parts of indexalg) inside ``run``.  ``indexalg --help`` imports every registered
  module; a test checks that none of them pulls in sympy, z3, torch or triton.
* **Exit statuses** are the names in :mod:`indexalg.cli.common`: ``EXIT_OK`` (also
  "proved"), ``EXIT_DISPROVED``, ``EXIT_BAD_INPUT``, ``EXIT_UNKNOWN``, ``EXIT_FAILED``,
  ``EXIT_INTERNAL``, ``EXIT_VACUOUS``.
* **Errors.**  For bad input, raise an :class:`indexalg.errors.IndexAlgError` (or
  :class:`indexalg.cli.common.CommandError`) and let it escape ``run``: ``main`` prints
  ``error: ...`` (for a parse error: the column, then the text and a caret) on stderr and
  exits with ``EXIT_BAD_INPUT``, never with a traceback.  Other exceptions are bugs:
  ``main`` prints one line ``error: internal error: TYPE: MESSAGE`` and exits with
  ``EXIT_INTERNAL`` (5); the traceback follows only with ``indexalg --debug``.
* **Usage errors** (an unknown option, a missing argument) are bad input too: one
  ``error: ...`` line first, then a hint (``see 'indexalg NAME --help'``, or the command
  again with ``--`` when an expression that starts with ``-`` was taken for an option).
* **Empty option values** (``--tiers ""``) are bad input: ``main`` refuses them before
  ``run`` (exit 2), naming the option.
* **Shared options** come from :mod:`indexalg.cli.common`: ``add_range_option`` (repeated
  ``--range NAME=SPEC``, read with ``read_ranges(args.ranges)``) and ``add_json_option``
  (one JSON object with sorted keys, via ``print_json``).
* **Deterministic output**: never print in the iteration order of a set.

Only the module of the requested subcommand is imported; ``indexalg --help`` and an unknown
command import all registered modules to list them.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import shlex
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn, Protocol, cast

from indexalg.cli.common import EXIT_BAD_INPUT, EXIT_OK, run_command
from indexalg.errors import IndexAlgError
from indexalg.parse import parse

__all__ = ["SUBCOMMANDS", "Subcommand", "available_subcommands", "build_parser", "main"]

#: (command word, module) for every subcommand, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[tuple[str, str], ...] = (
    ("simplify", "indexalg.cli.simplify"),
    ("eval", "indexalg.cli.evaluate"),
    ("bounds", "indexalg.cli.bounds"),
    ("prove", "indexalg.cli.prove"),
    ("verify-rules", "indexalg.cli.verify_rules"),
    ("fuzz", "indexalg.cli.fuzz"),
    ("demo", "indexalg.cli.demo"),
)


class Subcommand(Protocol):
    """The interface of a subcommand module (modules satisfy it structurally)."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


if TYPE_CHECKING:  # mypy checks that these modules satisfy the protocol; nothing runs
    from indexalg.cli import bounds, demo, evaluate, simplify

    _CHECKED: tuple[Subcommand, ...] = (simplify, evaluate, bounds, demo)


def available_subcommands() -> list[tuple[str, str]]:
    """The registered subcommands whose module exists, found without importing them."""
    return [(name, mod) for name, mod in SUBCOMMANDS if _module_exists(mod)]


def _module_exists(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _load(name: str, module: str) -> Subcommand:
    mod: ModuleType = importlib.import_module(module)
    for attr in ("NAME", "HELP", "add_arguments", "run"):
        if not hasattr(mod, attr):
            raise TypeError(f"subcommand module {module} does not define {attr}")
    if name != mod.NAME:
        raise TypeError(f"subcommand module {module} has NAME {mod.NAME!r}, not {name!r}")
    return cast(Subcommand, mod)


def _version() -> str:
    """``indexalg VERSION (BUILD)``: BUILD says whether the mypyc-compiled wheel or pure
    Python runs (:func:`indexalg._build.describe`)."""
    from indexalg import __version__
    from indexalg._build import describe

    return f"indexalg {__version__} ({describe()})"


class UsageError(Exception):
    """A command line that argparse refuses: ``message`` is argparse's text, ``prog`` the
    (sub)command whose parser refused it (``indexalg`` or ``indexalg simplify``)."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.message = message
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that raises :class:`UsageError` instead of printing the usage
    and exiting, so that ``main`` can print the ``error:`` line first."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


EPILOG = """examples:
  indexalg simplify "ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)" --range x=4096
  indexalg eval "FloorDiv(FloorDiv(n, 2), -3)" n=7
  indexalg eval -- "-x // 4" x=3          # '--' before an expression that starts with '-'
  indexalg bounds "x // 64 % 8" --range x=4096
  indexalg prove "ModularIndexing(x, 1, 2*s0) == x" --range x=s0 --range s0=1..
  indexalg demo
  indexalg COMMAND --help                  # each command's options and examples

ranges: --range NAME=N (0 <= NAME < N), NAME=LO..HI (inclusive; a side may be empty),
NAME=EXPR (0 <= NAME < EXPR); a symbol without a range is any integer.

exit statuses: 0 ok/proved, 1 disproved, 2 bad input, 3 unknown, 4 check failed,
5 internal error, 6 vacuous (prove: the ranges admit no point)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, just that subcommand's module is imported.
    It raises :class:`UsageError` for a command line it refuses (``--help`` and
    ``--version`` still print and raise ``SystemExit(0)``)."""
    parser = _Parser(
        prog="indexalg",
        description="Simplify, bound, evaluate and prove integer index expressions\n"
        "(FloorDiv, ModularIndexing, CeilDiv, Min, Max, Where, ...).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an internal error, print the traceback (accepted anywhere on the line)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in available_subcommands():
        if only is not None and name != only:
            continue
        sub = _load(name, module)
        child = subparsers.add_parser(
            name,
            help=sub.HELP,
            description=getattr(sub, "DESCRIPTION", sub.HELP),
            epilog=getattr(sub, "EPILOG", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        sub.add_arguments(child)
        options = {
            a.dest: a.option_strings[-1]
            for a in child._actions
            if a.option_strings and a.dest != "help"
        }
        child.set_defaults(_run=sub.run, _options=options)
    return parser


def _requested(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line, if it is registered and exists."""
    word = next((a for a in argv if not a.startswith("-")), None)
    if word is None:
        return None
    return word if any(word == name for name, _ in available_subcommands()) else None


def _status(code: object) -> int:
    if code is None:
        return EXIT_OK
    if isinstance(code, int):
        return code
    return EXIT_BAD_INPUT


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``indexalg`` command on ``argv`` (default ``sys.argv[1:]``); returns the exit
    status instead of exiting, so it can be called in-process."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    args_list = [a for a in args_list if a != "--debug"]
    requested = _requested(args_list)
    parser = build_parser(only=requested)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as stop:  # --help and --version
        return _status(stop.code)
    except UsageError as err:
        _report_usage_error(parser, requested, args_list, err)
        return EXIT_BAD_INPUT
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "_run", None)
    if run is None:
        sys.stderr.write("error: a command is required\nsee 'indexalg --help'\n")
        return EXIT_BAD_INPUT

    def run_args() -> int:
        _refuse_empty_options(args)
        return int(run(args))

    return run_command(run_args, debug=debug)


def _report_usage_error(
    parser: argparse.ArgumentParser, command: str | None, argv: list[str], err: UsageError
) -> None:
    """``error: MESSAGE`` on its own first line, then one line of help: the command again
    with ``--`` when an expression starting with ``-`` was read as an option, else where
    the full usage is."""
    sys.stderr.write(f"error: {err.message}\n")
    fixed = _with_double_dash(parser, command, argv)
    if fixed is not None:
        sys.stderr.write(f"an expression that starts with '-' goes after '--': {fixed}\n")
        return
    where = f"indexalg {command}" if command is not None else "indexalg"
    sys.stderr.write(f"see '{where} --help'\n")


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser | None = action.choices.get(command)
            return found
    return None


def _with_double_dash(
    parser: argparse.ArgumentParser, command: str | None, argv: list[str]
) -> str | None:
    """The command line with ``--`` before its first positional argument, when that argument
    starts with ``-`` (``indexalg simplify "-x"`` -> ``indexalg simplify -- "-x"``), else None.

    The options (with their values) go before ``--`` and the positional arguments after it,
    in their order."""
    sub = None if command is None else _subparser(parser, command)
    if sub is None or command not in argv or "--" in argv:
        return None
    rest = argv[argv.index(command) + 1 :]
    takes = {
        flag: (0 if action.nargs == 0 else 1)
        for action in sub._actions
        for flag in action.option_strings
    }
    options: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        flag = word.split("=", 1)[0]
        if flag in takes:
            n = 0 if "=" in word else takes[flag]
            options += rest[i : i + 1 + n]
            i += 1 + n
            continue
        positionals.append(word)
        i += 1
    if not positionals or not _looks_like_an_expression(positionals[0]):
        return None
    expr, *more = positionals
    words = ["indexalg", command, *options, "--"]
    return " ".join([*map(shlex.quote, words), _quote_expression(expr), *map(shlex.quote, more)])


def _looks_like_an_expression(word: str) -> bool:
    """A word starting with one ``-`` that parses as an expression (``-x``, ``-x // 4``)."""
    if not word.startswith("-") or word.startswith("--"):
        return False
    try:
        parse(word)
    except IndexAlgError:
        return False
    return True


def _quote_expression(word: str) -> str:
    """An expression as the docs write it on a command line: in double quotes."""
    if any(c in word for c in '"$`\\!'):
        return shlex.quote(word)
    return f'"{word}"'


def _refuse_empty_options(args: argparse.Namespace) -> None:
    """An option given an empty value (``--tiers ""``, ``--range ""``) is bad input."""
    from indexalg.cli.common import CommandError

    options: dict[str, str] = getattr(args, "_options", {})
    for dest, flag in sorted(options.items()):
        value = getattr(args, dest, None)
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            raise CommandError(f"{flag}: empty value")
