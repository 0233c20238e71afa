"""``indexalg-triton``: ``plan`` (the tiling and one access plan per index), ``emit`` (a
built-in workload's Triton source), ``verify`` (run built-in workloads on the GPU, else in the
Triton interpreter, and compare with torch eager; exit 0 only if all match) and ``bench``
(the GPU benchmark, ``bench/gpu.py``).

::

    indexalg-triton plan --index EXPR [--index EXPR ...] [--store EXPR ...]
        --range x0=7 --range x1=3 [--prefer-nd] [--max-tiles N] [--dtype float32]
        [--allow tensor_descriptor,block_pointer] [--block XBLOCK=64] [--outer-first] [--json]

Loop variables are the ranged symbols of the indices with a ``NAME=N`` (or ``NAME=EXPR``)
range that no other range refers to; they are listed innermost first, as Inductor numbers
them (``x0`` is the innermost loop), unless ``--outer-first``.  Other ranges (``s0=1..``)
describe size symbols.  ``--store`` indices are stores, ``--index`` ones loads.  ``--allow``
names the structured kinds the target supports (default: what the installed Triton
supports, found by probing it; ``none`` for none).  Exit 0 on success, 2 on bad input (one
``error:`` line, never a traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from indexalg.errors import IndexAlgError, RangeError
from indexalg.expr import Expr, Integer, integer

__all__ = ["main", "build_parser"]

_ZERO = integer(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="indexalg-triton", description="Triton tiling and access plans")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("plan", help="choose a tiling and plan every access")
    p.add_argument("--index", action="append", default=[], metavar="EXPR", help="a load")
    p.add_argument("--store", action="append", default=[], metavar="EXPR", help="a store")
    p.add_argument("-r", "--range", dest="ranges", action="append", default=[],
                   metavar="NAME=SPEC", help="loop NAME=N (0 <= NAME < N) or a size range")
    p.add_argument("--prefer-nd", action="store_true", help="prefer N-D tilings")
    p.add_argument("--max-tiles", type=int, default=2, metavar="N", help="at most N axes (1-3)")
    p.add_argument("--dtype", default="float32", help="element type of every access")
    p.add_argument("--allow", default=None, metavar="KINDS",
                   help="comma-separated structured kinds (default: the installed Triton's)")
    p.add_argument("--block", action="append", default=[], metavar="XBLOCK=N",
                   help="a known block size (power of two)")
    p.add_argument("--outer-first", action="store_true", help="loops are listed outermost first")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    e = sub.add_parser("emit", help="print a built-in workload's Triton source")
    e.add_argument("--workload", required=True, metavar="NAME")
    e.add_argument("--size", default="small", help="small, medium or large (default small)")
    e.add_argument("--allow", default=None, metavar="KINDS",
                   help="comma-separated structured kinds (default: the installed Triton's)")
    v = sub.add_parser("verify", help="run built-in workloads and compare with torch eager")
    v.add_argument("--workload", action="append", default=[], metavar="NAME",
                   help="one workload (repeatable; default: all)")
    v.add_argument("--size", default="small", help="small or medium (default small)")
    v.add_argument("--all-configs", action="store_true", help="every autotuning config")
    b = sub.add_parser("bench", help="the GPU benchmark (bench/gpu.py)")
    b.add_argument("args", nargs=argparse.REMAINDER, help="passed to bench.gpu")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "emit":
            return _emit(args)
        if args.command == "verify":
            return _verify(args)
        if args.command == "bench":
            return _bench(args)
        return _plan(args)
    except IndexAlgError as err:
        from indexalg.cli.common import report_error

        report_error(err)
        return 2


def _plan(args: argparse.Namespace) -> int:
    from indexalg.cli.common import print_json, read_expr, read_ranges
    from indexalg.ranges import parse_range_arg
    from indexalg_triton.access import Access, parse_allow
    from indexalg_triton.layout import dtype_bytes
    from indexalg_triton.planner import choose_tiling

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
    choice = choose_tiling(
        loops, accesses, max_tiles=args.max_tiles, prefer_nd=args.prefer_nd, allow=allow,
        block_sizes=_blocks(args.block),
    )
    out = {
        "tiling": {**choice.tiling.to_json(), "cost": round(choice.cost, 4),
                   "candidates": [{"tiling": d, "cost": c} for d, c in choice.scores],
                   "reason": choice.reason},
        "accesses": [
            {"input": str(a.index), "store": a.store, "dtype": a.dtype, **p.to_json()}
            for a, p in zip(accesses, choice.plans)
        ],
    }
    if args.json:
        print_json(out)
        return 0
    print(f"tiling: {choice.tiling.describe()} (cost {choice.cost:.3f})")
    for a, p in zip(accesses, choice.plans):
        what = "store" if a.store else "load"
        print(f"{what} {a.index}: {p.kind}")
        if p.kind != "pointer":
            print(f"  shape {_t(p.shape)} strides {_t(p.strides)} block {_t(p.block_shape)} "
                  f"offsets {_t(p.offsets)}"
                  + (f" base +{p.base_offset}" if p.base_offset != _ZERO else ""))
            for label, v in (("reshape", p.reshape), ("broadcast_to", p.broadcast_shape),
                             ("then reshape", p.final_shape)):
                if v is not None:
                    print(f"  {label} {_t(v)}")
            if p.slices:
                print(f"  value{p.slices}")
        else:
            print(f"  ptr + {p.flat_index}" + (f" mask {' & '.join(p.mask)}" if p.mask else ""))
        for q in p.requirements:
            print(f"  requires {q}")
        for r in p.reasons:
            print(f"  why not: {r}")
    return 0


def _emit(args: argparse.Namespace) -> int:
    from indexalg_triton.access import parse_allow
    from indexalg_triton.codegen import generate
    from indexalg_triton.workloads import get

    spec = get(args.workload).spec(args.size)
    kinds = None if args.allow is None else parse_allow(args.allow)
    sys.stdout.write(generate(spec, kinds=kinds).source)
    return 0


def _verify(args: argparse.Namespace) -> int:
    """Exit 0 only if every kernel matches torch eager."""
    from indexalg_triton.codegen import default_configs
    from indexalg_triton.runtime import device, verify
    from indexalg_triton.workloads import WORKLOADS, get

    dev = device()
    names = args.workload or list(WORKLOADS)
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
    return 0 if failures == 0 else 1


def _bench(args: argparse.Namespace) -> int:
    import importlib

    try:
        gpu = importlib.import_module("bench.gpu")
    except ImportError:
        raise RangeError("bench needs the source tree's bench/ package on the path "
                         "(run from the repository root)") from None
    rc: int = gpu.main(args.args)
    return rc


def _t(xs: Sequence[Expr]) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def _blocks(specs: Sequence[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for s in specs:
        name, sep, val = s.partition("=")
        if not sep or name.strip() not in ("XBLOCK", "YBLOCK", "ZBLOCK"):
            raise RangeError(f"--block {s}: expected XBLOCK=N, YBLOCK=N or ZBLOCK=N")
        try:
            out[name.strip()] = int(val)
        except ValueError:
            raise RangeError(f"--block {s}: {val!r} is not an integer") from None
    return out


def _loops(
    ranges: object, order: Sequence[str], indices: Sequence[Expr], *, outer_first: bool
) -> list[tuple[str, Expr]]:
    """The loop variables in the order given (see the module docstring)."""
    from indexalg.expr import Symbol, add
    from indexalg.ranges import Ranges

    assert isinstance(ranges, Ranges)
    referenced = {s for lo_hi in ranges.values() for b in lo_hi if b is not None
                  for s in b.free_symbols}
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


if __name__ == "__main__":
    raise SystemExit(main())
