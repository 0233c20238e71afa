"""``indexalg fuzz --examples N --seed S [--jobs J] [--rules MODULE] [--property NAME]
[--generator NAME] [--journal FILE]``.

Runs a property-based fuzz campaign (:mod:`indexalg.testing.fuzz`): Hypothesis generates
Inductor-style expressions, ranges and points, checks them against the reference evaluator
and shrinks every failure to a minimal case, printed as a command that reproduces it.
Exit status ``EXIT_OK`` when nothing failed, ``EXIT_FAILED`` when something did,
``EXIT_BAD_INPUT`` for bad options (an unknown property, a rules module that does not load).
``--json`` prints one object: ``examples``, ``points``, ``seconds``, ``examples_per_second``,
``failures`` (each with its command), ``properties``, ``generators``, ``per_property``,
``looseness``, ``seed``, ``jobs``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import TYPE_CHECKING

from indexalg.cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    CommandError,
    add_json_option,
    print_json,
)

if TYPE_CHECKING:
    from indexalg.testing.fuzz import CampaignResult
    from indexalg.testing.oracles import Case

NAME = "fuzz"
HELP = "fuzz the simplifier (or your own rules) with Hypothesis; print minimal failing cases"
DESCRIPTION = (
    "Run a property-based fuzz campaign: generated expressions, ranges and points are checked\n"
    "against the reference evaluator; failures are shrunk to minimal cases and printed as\n"
    "commands that reproduce them.  The same seed gives the same campaign for any --jobs."
)
EPILOG = """properties:
  simplify    values kept at in-range points, idempotent, same node when no rule fired
  bounds      every value within bounds(e, ranges)
  congruence  every value satisfies congruence(e, ranges)
  prove       proved claims hold; disproved ones come with a true counterexample
  combined    simplify, bounds and congruence on the same examples (cheapest for all three)
  exact       every value within bounds(e, exact=True); exact on finite domains (adversarial)
  text        parse(str(e)) is e
  all         every property above (combined excluded: it repeats the first three)

generators:
  compiler     the shapes compilers emit; a sampled point and the corners (default)
  adversarial  shared subterms, repeated factors, lowered remainders, Where on unused or
               unranged symbols, symbolic/singleton/negative ranges; every point of a small
               domain, and the looseness of bounds against the exact range
  all          both

examples:
  indexalg fuzz --examples 2000 --seed 0
  indexalg fuzz --examples 100000 --generator adversarial --property all --journal run.jsonl
  indexalg fuzz --examples 1000000 --seed 1 --jobs 2 --property all
  indexalg fuzz --examples 50000 --rules myproject.index_rules   # a module exposing RULES"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--examples", type=int, default=10_000, metavar="N", help="examples to run (default 10000)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, metavar="S", help="campaign seed (default 0)"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, metavar="J", help="worker processes (default 1)"
    )
    parser.add_argument(
        "--rules",
        metavar="MODULE",
        default=None,
        help="simplify with RULES from this module (import name or path to a .py file)",
    )
    parser.add_argument(
        "--property",
        dest="properties",
        action="append",
        default=[],
        metavar="NAME",
        help="property to check (repeatable; default: simplify; 'all' for every one)",
    )
    parser.add_argument(
        "--chunk",
        type=int,
        default=None,
        metavar="N",
        help="examples per Hypothesis run (default 2000): each run has its own derived seed",
    )
    parser.add_argument(
        "--generator",
        dest="generators",
        action="append",
        default=[],
        metavar="NAME",
        help="where examples come from: compiler (default), adversarial, all (repeatable)",
    )
    parser.add_argument(
        "--journal",
        default=None,
        metavar="FILE",
        help="record finished chunks in FILE; run again with it to resume the campaign",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--target",
        choices=("core", "plugin"),
        default="core",
        help="core: the library (default); plugin: the Inductor plug-in, --examples calls",
    )
    add_json_option(parser)


def _properties(names: list[str]) -> list[str]:
    from indexalg.testing.fuzz import DEFAULT_PROPERTIES, PROPERTIES, available

    if not names:
        return list(DEFAULT_PROPERTIES)
    chosen: list[str] = []
    for name in names:
        if name == "all":
            picks = [p for p in PROPERTIES if p != "combined" and available(p)]
        elif name in PROPERTIES:
            if not available(name):
                raise CommandError(f"--property {name}: the library has no {name} yet")
            picks = [name]
        else:
            raise CommandError(
                f"--property {name}: unknown property; choose from {', '.join(PROPERTIES)}, all"
            )
        chosen.extend(p for p in picks if p not in chosen)
    return chosen


def _generators(names: list[str]) -> list[str]:
    from indexalg.testing.fuzz import DEFAULT_GENERATOR, GENERATORS

    if not names:
        return [DEFAULT_GENERATOR]
    chosen: list[str] = []
    for name in names:
        if name == "all":
            picks = list(GENERATORS)
        elif name in GENERATORS:
            picks = [name]
        else:
            raise CommandError(
                f"--generator {name}: unknown generator; choose from {', '.join(GENERATORS)}, all"
            )
        chosen.extend(p for p in picks if p not in chosen)
    return chosen


def _check_journal(path: str) -> None:
    """Refuse a journal that the campaign could not read or append to, naming the path
    (it is created, empty, when it does not exist: the campaign would create it anyway)."""
    if not path.strip():
        raise CommandError("--journal: empty file name")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise CommandError(f"--journal {path}: no such directory {folder}")
    if os.path.isdir(path):
        raise CommandError(f"--journal {path}: is a directory")
    try:
        with open(path, "a", encoding="utf-8"):
            pass
        with open(path, encoding="utf-8") as f:
            for _ in f:
                pass
    except (OSError, UnicodeDecodeError) as err:
        reason = getattr(err, "strerror", None) or str(err)
        raise CommandError(f"--journal {path}: cannot be read and appended to: {reason}") from None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _run_plugin(args: argparse.Namespace) -> int:
    """``indexalg fuzz --target plugin``: ``--examples`` plug-in calls from ``--seed`` on
    ``--jobs`` processes (:func:`indexalg.testing.plugin_fuzz.run_parallel`); the report (or
    ``--json``) on stdout; exit 4 on a plug-in wrong answer.  Needs torch (not hypothesis)."""
    import json

    try:
        import torch  # noqa: F401
    except ImportError:
        raise CommandError("indexalg fuzz --target plugin needs torch") from None
    if args.examples < 1 or args.jobs < 1:
        raise CommandError("--examples and --jobs must be at least 1")
    from indexalg.testing.plugin_fuzz import run_parallel

    chunk = getattr(args, "chunk", None) or 2000
    rep = run_parallel(args.examples, args.seed, jobs=args.jobs, chunk=chunk)
    if getattr(args, "json", False):
        print(json.dumps(rep.as_json(), indent=1))
    else:
        print(rep.summary())
    return EXIT_FAILED if rep.plugin_wrong or rep.plugin_errors else EXIT_OK


def run(args: argparse.Namespace) -> int:
    if args.target == "plugin":  # indexalg.testing.plugin_fuzz: torch, not hypothesis
        return _run_plugin(args)
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        raise CommandError("indexalg fuzz needs hypothesis: pip install hypothesis") from None
    from indexalg.testing.fuzz import DEFAULT_CHUNK, load_rules, run_campaign

    # Every option is checked before the banner: bad input is one error line and nothing else.
    if args.examples < 1:
        raise CommandError(f"--examples {args.examples}: must be at least 1")
    if args.jobs < 1:
        raise CommandError(f"--jobs {args.jobs}: must be at least 1")
    chunk = DEFAULT_CHUNK if args.chunk is None else args.chunk
    if chunk < 1:
        raise CommandError(f"--chunk {chunk}: must be at least 1")
    props = _properties(args.properties)
    gens = _generators(args.generators)
    if args.rules is not None:
        load_rules(args.rules)  # raises RulesError (bad input) for a module that cannot load
    if args.journal is not None:
        _check_journal(args.journal)
    if not args.quiet and not args.json:
        sys.stderr.write(
            f"indexalg fuzz: {args.examples} examples of {', '.join(props)} from "
            f"{', '.join(gens)}, seed {args.seed}, "
            f"{args.jobs} job{'s' if args.jobs != 1 else ''}\n"
        )
    last = [0.0]

    def progress(done: int, total: int, failures: int, seconds: float) -> None:
        if args.quiet or args.json or seconds - last[0] < 10.0:
            return
        last[0] = seconds
        rate = done / seconds if seconds > 0 else 0.0
        sys.stderr.write(
            f"  {done}/{total} examples, {failures} failure{'s' if failures != 1 else ''}, "
            f"{rate:.0f} examples/s\n"
        )

    def found(case: Case) -> None:
        if not args.quiet and not args.json:
            sys.stderr.write(f"  found: {case.describe()}\n")

    # ``kill PID`` (SIGTERM) ends a campaign like Ctrl-C: with the partial result.  A shell
    # starts background jobs with SIGINT ignored, so SIGTERM is the way to stop one.
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        result = run_campaign(
            examples=args.examples,
            seed=args.seed,
            jobs=args.jobs,
            properties=props,
            rules=args.rules,
            chunk=chunk,
            progress=progress,
            on_failure=found,
            generators=gens,
            journal=args.journal,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.json:
        print_json(_summary_json(result, args, props, gens))
    else:
        _print_summary(result)
    return EXIT_FAILED if result.failures else EXIT_OK


def _looseness_report(counts: tuple[tuple[str, int], ...]) -> str:
    """How far bounds are from the exact ranges: one line per category."""
    total = sum(n for _, n in counts) or 1
    lines = [f"looseness of bounds against the exact range ({total} examples):"]
    for kind, n in counts:
        lines.append(f"  {kind:<10} {n:>9}  {100.0 * n / total:5.1f}%")
    return "\n".join(lines)


def _summary_json(
    result: CampaignResult, args: argparse.Namespace, props: list[str], gens: list[str]
) -> dict[str, object]:
    """The campaign as one JSON object (``--json``)."""
    return {
        "examples": result.examples,
        "points": result.points,
        "seconds": round(result.seconds, 3),
        "examples_per_second": round(result.examples_per_second, 1),
        "failures": [f.as_json() for f in result.failures],
        "properties": props,
        "generators": gens,
        "per_property": {k: {"examples": n, "points": p} for k, n, p in result.per_property},
        "looseness": dict(result.looseness),
        "resumed_chunks": result.resumed,
        "seed": args.seed,
        "jobs": args.jobs,
        "interrupted": result.interrupted,
    }


def _print_summary(result: CampaignResult) -> None:
    """The campaign for people: counts, points per property, looseness, each failure."""
    n = len(result.failures)
    verdict = "no failures" if n == 0 else f"{n} failure{'s' if n != 1 else ''}"
    stopped = " (interrupted)" if result.interrupted else ""
    resumed = f", {result.resumed} chunks from the journal" if result.resumed else ""
    print(
        f"ran {result.examples} examples ({result.points} points checked) in "
        f"{result.seconds:.1f} s ({result.examples_per_second:.0f} examples/s){resumed}"
        f"{stopped}: {verdict}"
    )
    if len(result.per_property) > 1:
        for key, k, p in result.per_property:
            print(f"  {key}: {k} examples, {p} points")
    if result.looseness:
        print(_looseness_report(result.looseness))
    for i, case in enumerate(result.failures, 1):
        print(f"\nfailure {i}: {case.describe()}")
