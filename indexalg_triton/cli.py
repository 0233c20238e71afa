"""``indexalg-triton`` (also ``python -m indexalg_triton``): ``plan`` (the tiling and one
access plan per index), ``emit`` (a built-in workload's Triton source) and ``verify`` (run
built-in workloads on the GPU, else in the Triton interpreter, and compare with torch eager).

The GPU benchmark is not a subcommand: it lives in the source tree's ``bench/`` (``python -m
bench.gpu``, run from the repository root), which the installed package does not ship.

The command follows the ``indexalg`` command's conventions (:mod:`indexalg.cli`): exit
statuses from :mod:`indexalg.cli.common` (0 ok, 2 bad input, 4 a kernel did not match, 5
internal error), one ``error:`` line on stderr for bad input and never a traceback (``--debug``
shows one for an internal error), ``--json`` output with sorted keys, empty option values
refused, and every option checked: values in their ranges and choices, and options that do not
apply to what was asked refused with the reason.  An expression that starts with ``-`` may
follow ``--index``/``--store`` as its own word (``--index -x``).  Errors go through the core
command's error shell, :func:`indexalg.cli.common.run_command`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from indexalg import __version__
from indexalg.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    CommandError,
    print_json,
    read_expr,
    read_ranges,
    run_command,
)
from indexalg.errors import RangeError
from indexalg.expr import Expr, Integer, Symbol, add, integer
from indexalg.ranges import Ranges, parse_range_arg
from indexalg_triton.access import STRUCTURED_KINDS, Access, AccessPlan, parse_allow
from indexalg_triton.codegen import default_configs, generate
from indexalg_triton.layout import DTYPE_BYTES, dtype_bytes
from indexalg_triton.planner import TilingChoice, choose_tiling
from indexalg_triton.runtime import device, verify
from indexalg_triton.tiling import AXIS_NAMES
from indexalg_triton.workloads import WORKLOADS, get

__all__ = ["main", "build_parser"]

_ZERO = integer(0)
_EXPR_OPTIONS = ("--index", "--store")
_BLOCKS = {f"{n.upper()}BLOCK": i for i, n in enumerate(AXIS_NAMES)}  # name -> axis
_EXIT_TEXT = (
    "Exit statuses: 0 ok, 2 bad input, 4 a kernel did not match torch eager, 5 internal error."
)

_PLAN_DESCRIPTION = """\
Choose a tiling of the loop nest and plan every access under it: a tensor descriptor, a
block pointer, or a pointer with masks, with the reason each richer kind was not used.

Loop variables are the ranged symbols of the indices with a NAME=N (or NAME=EXPR) range that
no other range refers to; they are listed innermost first, as Inductor numbers them (x0 is
the innermost loop), unless --outer-first.  Other ranges (s0=1..) describe size symbols.
--store indices are stores, --index ones loads.  The text output shows every field of the
JSON output: the candidate tilings, and per access its flat index, its structured block and
the steps (permute, reshape, broadcast, slices) that bring a loaded block to the tile."""

_PLAN_EPILOG = """\
examples:
  indexalg-triton plan --index "x0 + 9*x1" --store "x0 + 7*x1" -r x0=7 -r x1=3 --prefer-nd
  indexalg-triton plan --index "ModularIndexing(x, 1, 64)*64 + x // 64" -r x=4096
  indexalg-triton plan --index -x0 -r x0=64 --allow none --json
  indexalg-triton plan --index "x0 + s0*x1" -r x0=s0 -r x1=8 -r s0=1.. --block XBLOCK=64
"""

_EMIT_DESCRIPTION = """\
Print the Triton source generated for a built-in workload at its default config, with the
decisions behind it (tiling, index dtype, each access' kind and why not a richer one) as
comments."""

_VERIFY_DESCRIPTION = """\
Run built-in workloads on the GPU, else in Triton's interpreter (TRITON_INTERPRET=1), and
compare each kernel's outputs with torch eager; exit 0 only if every kernel matches."""

_EMIT_EPILOG = """\
examples:
  indexalg-triton emit --workload transpose_add
  indexalg-triton emit --workload softmax --size medium --allow none
"""

_VERIFY_EPILOG = """\
examples:
  indexalg-triton verify
  indexalg-triton verify --workload row_sum --workload softmax --size medium --all-configs
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _int_in(lo: int, hi: int) -> Callable[[str], int]:
    def read(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer in {lo}..{hi}, got {text!r}"
            ) from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"expected an integer in {lo}..{hi}, got {v}")
        return v

    return read


def _subparser(
    sub: argparse._SubParsersAction[_Parser],
    name: str,
    help_text: str,
    description: str,
    epilog: str,
) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help_text,
        description=description,
        epilog=f"{epilog}\n{_EXIT_TEXT}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="indexalg-triton",
        description="Triton tiling and access plans from index expressions, and the "
        "built-in workloads' kernels: their source and their check against torch eager.",
        epilog="Run 'indexalg-triton COMMAND --help' for a command's options and examples. "
        + _EXIT_TEXT,
    )
    parser.add_argument("--version", action="version", version=f"indexalg-triton {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an internal error, print the traceback (accepted anywhere on the line)",
    )
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    _add_plan(
        _subparser(
            sub, "plan", "choose a tiling and plan every access", _PLAN_DESCRIPTION, _PLAN_EPILOG
        )
    )
    _add_emit(
        _subparser(
            sub,
            "emit",
            "print a built-in workload's Triton source",
            _EMIT_DESCRIPTION,
            _EMIT_EPILOG,
        )
    )
    _add_verify(
        _subparser(
            sub,
            "verify",
            "run built-in workloads and compare with torch eager",
            _VERIFY_DESCRIPTION,
            _VERIFY_EPILOG,
        )
    )
    return parser


def _allow_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow",
        default=None,
        metavar="KINDS",
        help="comma-separated structured kinds the target supports, of "
        f"{', '.join(STRUCTURED_KINDS)}; 'none' for none (default: what the "
        "installed Triton supports)",
    )


def _add_plan(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", action="append", default=[], metavar="EXPR", help="a load")
    p.add_argument("--store", action="append", default=[], metavar="EXPR", help="a store")
    p.add_argument(
        "-r",
        "--range",
        dest="ranges",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="loop NAME=N (0 <= NAME < N) or a size range (NAME=LO..HI, either side may be empty)",
    )
    p.add_argument(
        "--prefer-nd",
        action="store_true",
        help="the tiling with the most axes among those predicted no slower "
        "than 1-D (needs --max-tiles 2 or 3)",
    )
    p.add_argument(
        "--max-tiles",
        type=_int_in(1, len(AXIS_NAMES)),
        default=2,
        metavar="N",
        help="at most N tile axes, 1-3 (default 2)",
    )
    p.add_argument(
        "--dtype",
        default="float32",
        metavar="DTYPE",
        help=f"element type of every access, one of {', '.join(DTYPE_BYTES)} (default float32)",
    )
    _allow_option(p)
    p.add_argument(
        "--block",
        action="append",
        default=[],
        metavar="NAME=N",
        help="a known block size (a power of two) of XBLOCK, YBLOCK or ZBLOCK; "
        "YBLOCK and ZBLOCK only where the tiling has that axis",
    )
    p.add_argument("--outer-first", action="store_true", help="loops are listed outermost first")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")


def _add_emit(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workload",
        required=True,
        choices=list(WORKLOADS),
        metavar="NAME",
        help=f"one of {', '.join(WORKLOADS)}",
    )
    p.add_argument(
        "--size",
        default="small",
        choices=["small", "medium", "large", "int64"],
        help="small, medium, large, or int64 (int8_unpack only; default small)",
    )
    _allow_option(p)


def _add_verify(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--workload",
        action="append",
        default=[],
        choices=list(WORKLOADS),
        metavar="NAME",
        help=f"one of {', '.join(WORKLOADS)} (repeatable; default: all)",
    )
    p.add_argument(
        "--size",
        default="small",
        choices=["small", "medium"],
        help="small or medium (default small)",
    )
    p.add_argument(
        "--all-configs",
        action="store_true",
        help="every config of the autotuning space, not only the default",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``indexalg-triton`` on ``argv`` (default ``sys.argv[1:]``); returns the exit
    status instead of exiting, so it can be called in-process."""
    words = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in words
    words = [w for w in words if w != "--debug"]
    parser = build_parser()
    try:
        args = parser.parse_args(_join_negative_values(words, parser))
    except SystemExit as stop:  # --help, --version and usage errors
        return stop.code if isinstance(stop.code, int) else EXIT_OK

    def command() -> int:
        _refuse_empty_values(args)
        run = {"plan": _plan, "emit": _emit, "verify": _verify}[args.command]
        return run(args)

    return run_command(command, debug=debug)  # the core command's error shell


def _join_negative_values(words: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``--index -x`` -> ``--index=-x``: argparse takes a word that starts with ``-`` for an
    option, so an expression like ``-x`` is glued to its option unless it is one."""
    options = {s for a in _all_actions(parser) for s in a.option_strings}
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        nxt = words[i + 1] if i + 1 < len(words) else None
        if (
            w in _EXPR_OPTIONS
            and nxt is not None
            and nxt.startswith("-")
            and nxt.split("=")[0] not in options
            and nxt != "--"
        ):
            out.append(f"{w}={nxt}")
            i += 2
            continue
        out.append(w)
        i += 1
    return out


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    out = list(parser._actions)
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for child in a.choices.values():
                out += _all_actions(child)
    return out


def _refuse_empty_values(args: argparse.Namespace) -> None:
    """An option given an empty value (``--allow ""``, ``--index ""``) is bad input."""
    for dest, value in sorted(vars(args).items()):
        values = value if isinstance(value, list) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            flag = "--range" if dest == "ranges" else f"--{dest.replace('_', '-')}"
            raise CommandError(f"{flag}: empty value")


# --- plan -------------------------------------------------------------------------------------


def _plan(args: argparse.Namespace) -> int:
    if not args.index and not args.store:
        raise RangeError("plan needs at least one --index or --store")
    dtype_bytes(args.dtype)
    accesses = [Access(read_expr(t), args.dtype) for t in args.index]
    accesses += [Access(read_expr(t), args.dtype, store=True) for t in args.store]
    for a in accesses:
        if a.index.is_bool:
            raise RangeError(f"an index is an integer expression, got the claim {a.index}")
    ranges = read_ranges(args.ranges)
    order = [parse_range_arg(spec)[0] for spec in args.ranges]
    loops = _loops(ranges, order, [a.index for a in accesses], outer_first=args.outer_first)
    allow = None if args.allow is None else parse_allow(args.allow)
    blocks = _blocks(args.block, args.max_tiles)
    if args.prefer_nd and args.max_tiles == 1:
        raise CommandError("--prefer-nd does not apply with --max-tiles 1 (every tiling is 1-D)")
    choice = choose_tiling(
        loops,
        accesses,
        max_tiles=args.max_tiles,
        prefer_nd=args.prefer_nd,
        allow=allow,
        block_sizes=blocks,
    )
    _check_blocks_apply(blocks, choice)
    if args.json:
        print_json(_plan_json(choice, accesses))
    else:
        _print_plan(choice, accesses)
    return EXIT_OK


def _plan_json(choice: TilingChoice, accesses: Sequence[Access]) -> dict[str, object]:
    return {
        "tiling": {
            **choice.tiling.to_json(),
            "cost": round(choice.cost, 4),
            "candidates": [{"tiling": d, "cost": c} for d, c in choice.scores],
            "reason": choice.reason,
        },
        "accesses": [
            {"input": str(a.index), "store": a.store, "dtype": a.dtype, **p.to_json()}
            for a, p in zip(accesses, choice.plans)
        ],
    }


def _print_plan(choice: TilingChoice, accesses: Sequence[Access]) -> None:
    """The text form: every field of :func:`_plan_json`."""
    t = choice.tiling
    print(f"tiling: {t.describe()} (cost {choice.cost:.3f})")
    print(f"  blocks {', '.join(f'{ax.name}: {t.block(i)}' for i, ax in enumerate(t.axes))}")
    print(f"  chosen by {choice.reason}")
    for desc, cost in choice.scores:
        print(f"  candidate {desc}: cost {cost}")
    for a, p in zip(accesses, choice.plans):
        print(f"{'store' if a.store else 'load'} {a.index}: {p.kind} ({a.dtype})")
        for line in _plan_lines(p):
            print(f"  {line}")


def _plan_lines(p: AccessPlan) -> list[str]:
    """One access plan, in the order the generated code does it."""
    out: list[str] = []
    if p.kind == "pointer":
        out.append(f"ptr + {p.flat_index}" + (f" mask {' & '.join(p.mask)}" if p.mask else ""))
        if p.shape:
            out.append(f"dimensions {_t(p.shape)} strides {_t(p.strides)}")
    else:
        out.append(f"index {p.flat_index}")
        out.append(
            f"shape {_t(p.shape)} strides {_t(p.strides)} block {_t(p.block_shape)} "
            f"offsets {_t(p.offsets)}"
            + (f" base +{p.base_offset}" if p.base_offset != _ZERO else "")
        )
        if p.kind == "block_pointer":
            out.append(f"order {list(p.order)} boundary_check {list(p.boundary_check)}")
        if p.permute is not None:
            out.append(f"permute {tuple(p.permute)}")
        for label, v in (
            ("reshape", p.reshape),
            ("broadcast_to", p.broadcast_shape),
            ("then reshape", p.final_shape),
        ):
            if v is not None:
                out.append(f"{label} {_t(v)}")
        if p.slices:
            out.append(f"value{p.slices}")
    out += [f"requires {q}" for q in p.requirements]
    out += [f"why not: {r}" for r in p.reasons]
    return out


def _t(xs: Sequence[Expr]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _blocks(specs: Sequence[str], max_tiles: int) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in specs:
        name, sep, val = (part.strip() for part in s.partition("="))
        if not sep or name not in _BLOCKS:
            raise RangeError(f"--block {s}: expected XBLOCK=N, YBLOCK=N or ZBLOCK=N")
        try:
            out_val = int(val)
        except ValueError:
            raise RangeError(f"--block {s}: {val!r} is not an integer") from None
        if name in out:
            raise RangeError(f"--block {s}: {name} is given twice")
        if _BLOCKS[name] >= max_tiles:
            raise CommandError(
                f"--block {s}: a tiling of at most {max_tiles} axes "
                f"(--max-tiles {max_tiles}) has no {AXIS_NAMES[_BLOCKS[name]]} "
                "axis"
            )
        out[name] = out_val
    return out


def _check_blocks_apply(blocks: dict[str, int], choice: TilingChoice) -> None:
    """A block size of an axis the chosen tiling does not have would be silently ignored."""
    for name, v in sorted(blocks.items()):
        if _BLOCKS[name] >= choice.tiling.ndim:
            raise CommandError(
                f"--block {name}={v} does not apply: the chosen tiling is "
                f"{choice.tiling.describe()}, with no {AXIS_NAMES[_BLOCKS[name]]} axis "
                "(--prefer-nd favours tilings with more axes)"
            )


def _loops(
    ranges: Ranges, order: Sequence[str], indices: Sequence[Expr], *, outer_first: bool
) -> list[tuple[str, Expr]]:
    """The loop variables in the order given (see ``plan --help``)."""
    referenced = {
        s for lo_hi in ranges.values() for b in lo_hi if b is not None for s in b.free_symbols
    }
    used = {s for e in indices for s in e.free_symbols}
    loops: list[tuple[str, Expr]] = []
    for sym in (Symbol(n) for n in order):
        lo, hi = ranges[sym]
        if sym in referenced or hi is None or type(lo) is not Integer or lo.payload != 0:
            continue
        if sym in used or type(hi) is Integer:
            loops.append((sym.payload, add(hi, 1)))
    if not loops:
        raise RangeError("no loop variable: give each one a range NAME=N")
    return loops if outer_first else list(reversed(loops))


# --- emit and verify --------------------------------------------------------------------------


def _emit(args: argparse.Namespace) -> int:
    w = get(args.workload)
    w.check_size(args.size)  # options first: tracing the workload imports torch
    kinds = None if args.allow is None else parse_allow(args.allow)
    spec = w.spec(args.size)
    sys.stdout.write(generate(spec, kinds=kinds).source)
    return EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    """Exit 0 only if every kernel matches torch eager."""
    names = list(dict.fromkeys(args.workload)) or list(WORKLOADS)
    for name in names:  # options first: device() and the workloads import torch
        get(name).check_size(args.size)
    dev = device()
    failures = 0
    total = 0
    for name in names:
        w = get(name)
        xs = w.make_inputs(args.size, dev)
        spec = w.spec(args.size)
        for cfg in default_configs(spec) if args.all_configs else [None]:
            v = verify(name, w.fn, xs, spec, cfg)
            print(v.line(), flush=True)
            total += 1
            failures += not v.ok
    where = "on the GPU" if dev == "cuda" else "in the Triton interpreter"
    print(f"{total - failures}/{total} kernels match torch eager ({where})")
    return EXIT_OK if failures == 0 else EXIT_FAILED


if __name__ == "__main__":
    raise SystemExit(main())
