"""Memory of long-running use: RSS while simplifying many distinct expressions in one
process (a compiler process that never restarts).

Run as ``python -m bench.memory [--n 1000000]``.  The expressions are Inductor-style index
expressions, all distinct (the constants change); most are simplified under one range
context, and every ``--ranges-every``-th under ranges of its own (a new context each, as a
dynamic-shape compile sees), so that the context LRU and the process-wide result memo
(:data:`indexalg.simplify.MAX_RESULTS` entries, keyed by expression and ranges) fill and
trim too.  RSS is read from ``/proc/self/status`` at checkpoints; the peak is the kernel's
high-water mark (``VmHWM``).  The caches are bounded
(:data:`indexalg.analysis.context.MAX_CACHE_ENTRIES` entries per context, 256 contexts,
the result memo, the interned nodes being weakly held), so RSS should level off;
``ia.clear_caches()`` at the end shows what the caches held.  Issue 13's target: peak RSS
under 1 GiB for 10^6 expressions.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import time

import indexalg as ia
from indexalg.memo import registered

RANGES = {"x": 4096, "y": (0, 63), "z": "s0", "s0": (1, None)}

TEMPLATES = (
    "ModularIndexing(x + {a}*y, {d}, {m}) + (x + {a}) // {k}",
    "Min(x // {d} + {a}, z + {k}) * {m} + ModularIndexing(z, 1, {d})",
    "Where(x < {a}, x + {k}*y, (x - {a}) // {d}) + {m}*z",
)

#: the target of issue 13, in MiB
TARGET_MIB = 1024


def _status_mb(field: str) -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def rss_mb() -> float:
    """Resident set size of this process in MiB."""
    return _status_mb("VmRSS")


def peak_rss_mb() -> float:
    """The most resident memory this process has had, in MiB (``VmHWM``)."""
    return _status_mb("VmHWM")


def expression(i: int) -> ia.Expr:
    t = TEMPLATES[i % len(TEMPLATES)]
    j = i // len(TEMPLATES)
    return ia.parse(t.format(a=j + 1, d=2 + j % 7, m=3 + j % 11, k=5 + j % 13))


def ranges_for(i: int, every: int) -> dict[str, object]:
    """The shared ranges, or for every ``every``-th expression ranges of its own."""
    if every and i % every == 0:
        return {**RANGES, "x": 4096 + i // every}
    return RANGES


def cache_sizes() -> str:
    """Entries in the process-wide tables, for the report."""
    memos = registered()
    contexts = importlib.import_module("indexalg.analysis.context")._CONTEXTS.table
    per_ctx = sum(len(t) for c in contexts.values() for t in c.memos)
    return (
        f"result memo {len(memos['simplify.results'])}, contexts {len(contexts)} "
        f"({per_ctx} memo entries)"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200_000, help="distinct expressions")
    p.add_argument(
        "--ranges-every",
        type=int,
        default=10,
        help="every k-th expression under ranges of its own (0: all under one context)",
    )
    args = p.parse_args(argv)
    checkpoints = sorted({max(1, args.n // 10) * k for k in range(1, 11)} | {args.n})
    gc.collect()
    base = rss_mb()
    print(f"RSS at start: {base:.1f} MiB")
    print(f"{'expressions':>12} {'RSS MiB':>9} {'µs/expr':>8}  caches")
    t0 = time.perf_counter()
    done = 0
    for c in checkpoints:
        while done < c:
            ia.simplify(expression(done), ranges_for(done, args.ranges_every))
            done += 1
        rate = 1e6 * (time.perf_counter() - t0) / done
        print(f"{done:>12} {rss_mb():>9.1f} {rate:>8.1f}  {cache_sizes()}", flush=True)
    peak = peak_rss_mb()
    ia.clear_caches()
    gc.collect()
    print(f"after ia.clear_caches(): {rss_mb():.1f} MiB (peak {peak:.1f} MiB, start {base:.1f})")
    verdict = "met" if peak < TARGET_MIB else "NOT met"
    target = f"peak RSS < {TARGET_MIB} MiB for {args.n} expressions"
    print(f"issue 13: {target}: {peak:.1f} MiB: {verdict}")


if __name__ == "__main__":
    main()
