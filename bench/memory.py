"""Memory of long-running use: RSS while simplifying many distinct expressions under one
range context (a compiler process that never restarts).

Run as ``python -m bench.memory [--n 200000]``.  The expressions are Inductor-style index
expressions, all distinct (the constants change), simplified under the same ranges; RSS
is read from ``/proc/self/status`` at checkpoints.  The caches are bounded
(:data:`indexalg.analysis.context.MAX_CACHE_ENTRIES` entries per context), so RSS should
level off; ``ia.clear_caches()`` at the end shows what the caches held.
"""

from __future__ import annotations

import argparse
import gc
import time

import indexalg as ia

RANGES = {"x": 4096, "y": (0, 63), "z": "s0", "s0": (1, None)}

TEMPLATES = (
    "ModularIndexing(x + {a}*y, {d}, {m}) + (x + {a}) // {k}",
    "Min(x // {d} + {a}, z + {k}) * {m} + ModularIndexing(z, 1, {d})",
    "Where(x < {a}, x + {k}*y, (x - {a}) // {d}) + {m}*z",
)


def rss_mb() -> float:
    """Resident set size of this process in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def expression(i: int) -> ia.Expr:
    t = TEMPLATES[i % len(TEMPLATES)]
    j = i // len(TEMPLATES)
    return ia.parse(t.format(a=j + 1, d=2 + j % 7, m=3 + j % 11, k=5 + j % 13))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200_000, help="distinct expressions")
    args = p.parse_args(argv)
    checkpoints = sorted({max(1, args.n // 10) * k for k in range(1, 11)} | {args.n})
    gc.collect()
    base = rss_mb()
    print(f"RSS at start: {base:.1f} MiB")
    print(f"{'expressions':>12} {'RSS MiB':>9} {'µs/expr':>8}")
    t0 = time.perf_counter()
    done = 0
    for c in checkpoints:
        while done < c:
            ia.simplify(expression(done), RANGES)
            done += 1
        print(f"{done:>12} {rss_mb():>9.1f} {1e6 * (time.perf_counter() - t0) / done:>8.1f}")
    peak = rss_mb()
    ia.clear_caches()
    gc.collect()
    print(f"after ia.clear_caches(): {rss_mb():.1f} MiB (peak {peak:.1f} MiB, start {base:.1f})")


if __name__ == "__main__":
    main()
