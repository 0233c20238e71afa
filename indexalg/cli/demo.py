"""``indexalg demo [--file PATH] [--no-prove]``: the library's main job on a bundled example.

Reads index expressions with their ranges (by default the bundled
``indexalg/examples/inductor_indices.txt``; the format is described at the top of that file
and in :func:`read_examples`), simplifies each one and prints a before/after table with the
number of division/modulo operations.  When z3 is installed, each result is proved equal
to its input under the ranges by :func:`indexalg.prove` with the tiers :data:`CHECK_TIERS`
(``proved (TIER)``, ``unknown``, or ``DISPROVED`` with a counterexample).  The last line is
a summary: expressions, div/mod operations before -> after, time.

Exit status: ``EXIT_OK``; ``EXIT_FAILED`` if a proof found a result that differs from its
input (a simplifier bug) or the simplifier or prover raised an error; ``EXIT_BAD_INPUT``
for a file that cannot be read or a line that does not parse (reported as
``error: PATH:LINE: ...``).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass

from indexalg.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    CommandError,
    divmod_ops,
    read_expr,
    read_ranges,
    report_error,
)
from indexalg.errors import IndexAlgError
from indexalg.expr import Eq, Expr
from indexalg.ranges import Ranges

NAME = "demo"
HELP = "simplify (and prove) a bundled set of Inductor index expressions"
DESCRIPTION = (
    "Simplify every expression of an example file under its ranges, print a before/after\n"
    "table with division/modulo counts and, when z3 is installed, prove each result equal\n"
    "to its input (with the prover's interval, congruence and Z3 tiers, not the simplifier)."
)
EPILOG = """examples:
  indexalg demo                            # the bundled Inductor index expressions
  indexalg demo --no-prove                 # the table only, without the proofs
  indexalg demo --file my_indices.txt      # your own examples

example file (one example a line; '#' starts a comment):
  ModularIndexing(ModularIndexing(x, 1, 64), 1, 8) ; x=4096
  ModularIndexing(x, 1, 2*s0) ; x=s0 ; s0=1..     # ranges as in --range NAME=SPEC"""
BUNDLED = "indexalg/examples/inductor_indices.txt"


@dataclass(frozen=True)
class Example:
    """One line of an example file: ``EXPR ; NAME=SPEC ; ...  # comment``."""

    line: int
    expr: str
    ranges: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    before: Expr
    after: Expr
    specs: tuple[str, ...]
    status: str  # proved (TIER) | unknown | DISPROVED | error | - (proofs skipped)
    detail: str  # counterexample or error message, else ""


def read_examples(text: str) -> list[Example]:
    """Split an example file into examples (nothing is parsed here).

    Each non-blank line, after removing everything from ``#`` on, is
    ``EXPR ; NAME=SPEC ; NAME=SPEC ...``: an expression, then ``--range`` specifications
    separated by ``;``.  Line numbers are 1-based.
    """
    examples: list[Example] = []
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        expr, *specs = (part.strip() for part in body.split(";"))
        examples.append(Example(number, expr, tuple(s for s in specs if s)))
    return examples


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--file", metavar="PATH", help=f"an example file (default: the bundled {BUNDLED})"
    )
    parser.add_argument("--no-prove", action="store_true", help="skip the proofs")


def _load_text(path: str | None) -> tuple[str, str]:
    if path is None:
        from importlib.resources import files

        return BUNDLED, files("indexalg").joinpath("examples/inductor_indices.txt").read_text(
            encoding="utf-8"
        )
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise CommandError(f"cannot read {path}: {getattr(err, 'strerror', None) or err}") from None


#: The prover's tiers the demo uses: all but "simplify", so that no result is checked by
#: the simplifier that produced it (translation validation must be independent).
CHECK_TIERS = ("interval", "congruence", "z3")


def _proofs_skipped(no_prove: bool) -> str:
    """Why the proofs are skipped, or "" when they run."""
    if no_prove:
        return "proofs skipped (--no-prove)"
    if importlib.util.find_spec("z3") is None:
        return "proofs skipped: z3 is not installed (pip install 'indexalg[z3]')"
    return ""


def _check(before: Expr, after: Expr, ranges: Ranges) -> tuple[str, str]:
    """Prove ``before == after`` under ``ranges``: (status column, detail line)."""
    from indexalg.prove import prove

    try:
        proof = prove(Eq.make(before, after), ranges, tiers=CHECK_TIERS)
    except IndexAlgError as err:
        return "error", str(err).splitlines()[0]
    if proof.status == "disproved":
        point = ", ".join(f"{k}={v}" for k, v in sorted((proof.counterexample or {}).items()))
        return "DISPROVED", f"counterexample: {point}"
    if proof.status == "proved":
        return f"proved ({proof.tier})", ""
    return "unknown", ""


def run(args: argparse.Namespace) -> int:
    where, text = _load_text(args.file)
    examples = read_examples(text)
    if not examples:
        raise CommandError(f"{where}: no examples")
    parsed: list[tuple[Example, Expr, Ranges]] = []
    for ex in examples:
        try:
            parsed.append((ex, read_expr(ex.expr), read_ranges(ex.ranges)))
        except IndexAlgError as err:
            report_error(err, where=f"{where}:{ex.line}")
            return EXIT_BAD_INPUT
    from indexalg.simplify import simplify  # imported here: the timing is of calls only

    skipped = _proofs_skipped(args.no_prove)
    rows: list[Row] = []
    simplify_s = prove_s = 0.0
    for ex, before, ranges in parsed:
        t0 = time.perf_counter()
        try:
            after = simplify(before, ranges)
        except IndexAlgError as err:  # e.g. a runaway rule set: a failure, not bad input
            rows.append(Row(before, before, ex.ranges, "error", str(err).splitlines()[0]))
            continue
        t1 = time.perf_counter()
        status, detail = ("-", "") if skipped else _check(before, after, ranges)
        prove_s += time.perf_counter() - t1
        simplify_s += t1 - t0
        rows.append(Row(before, after, ex.ranges, status, detail))
    out = sys.stdout
    out.write(f"indexalg demo: {len(rows)} index expressions from {where}\n")
    out.write(_table(rows))
    out.write(_summary(rows, simplify_s, prove_s, skipped) + "\n")
    failed = any(r.status in ("DISPROVED", "error") for r in rows)
    return EXIT_FAILED if failed else EXIT_OK


def _table(rows: list[Row]) -> str:
    counts = [f"{divmod_ops(r.before)} -> {divmod_ops(r.after)}" for r in rows]
    cw = max(len("div/mod"), *(len(c) for c in counts))
    sw = max(len("proof"), *(len(r.status) for r in rows))
    nw = max(len("#"), len(str(len(rows))))
    indent = " " * (nw + 2 + cw + 2 + sw + 2)
    lines = [f"{'#'.rjust(nw)}  {'div/mod'.rjust(cw)}  {'proof'.ljust(sw)}  before / after"]
    for i, (r, c) in enumerate(zip(rows, counts, strict=True), 1):
        where = f"   [{'; '.join(r.specs)}]" if r.specs else ""
        lines.append(f"{str(i).rjust(nw)}  {c.rjust(cw)}  {r.status.ljust(sw)}  {r.before}{where}")
        lines.append(f"{indent}-> {'(unchanged)' if r.after is r.before else r.after}")
        if r.detail:
            lines.append(f"{indent}   {r.detail}")
    return "\n".join(lines) + "\n"


def _summary(rows: list[Row], simplify_s: float, prove_s: float, skipped: str) -> str:
    """The last line: expressions, div/mod operations before -> after, time, proofs."""
    before = sum(divmod_ops(r.before) for r in rows)
    after = sum(divmod_ops(r.after) for r in rows)
    changed = sum(1 for r in rows if r.after is not r.before)
    ms = simplify_s * 1000
    text = (
        f"summary: {len(rows)} expressions, {changed} simplified, "
        f"div/mod ops {before} -> {after}, "
        f"simplify {ms:.1f} ms in all, cold ({ms / len(rows):.2f} ms each)"
    )
    if skipped:
        return f"{text}; {skipped}"
    proved = sum(1 for r in rows if r.status.startswith("proved"))
    unknown = sum(1 for r in rows if r.status == "unknown")
    failed = len(rows) - proved - unknown
    return f"{text}; proofs: {proved} proved, {unknown} unknown, {failed} failed in {prove_s:.2f} s"
