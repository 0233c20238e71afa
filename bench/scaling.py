"""How simplification time grows with the length of a sum (issue 27 item 4).

The input is the issue's: ``'+'.join(f'x//{i+600}%7' for i in range(n))`` with ``x < 4096``,
a valid sum of n div/mod terms, each of which folds to one floor division (and those past
``x // 4095`` to 0).  Per n: the time of ``ia.simplify`` after ``ia.clear_caches()`` (thread
CPU time, the fastest of ``--repeat``; parsing is not timed), the rewrite steps taken, the
step limit the default gives an input of that size, and the time per term::

    python -m bench.scaling                      # n = 1000, 2000, 4000, 10000
    python -m bench.scaling --terms 1000 3000 --repeat 3
    python -m bench.scaling --step-limit 10000   # a fixed limit: the 10,000-term case is refused

Run it from the repository root; the markdown table goes to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Row", "long_sum", "measure", "main"]

DEFAULT_TERMS = (1000, 2000, 4000, 10000)


def long_sum(n: int) -> str:
    """The issue's input of ``n`` terms."""
    return "+".join(f"x//{i + 600}%7" for i in range(n))


@dataclass(frozen=True)
class Row:
    """One size: its terms, distinct nodes, step limit, steps taken, fastest time, and the
    limit error when it was refused."""

    n: int
    nodes: int
    limit: int
    steps: int
    seconds: float
    error: str = ""


def measure(n: int, *, repeat: int = 1, step_limit: int | None = None) -> Row:
    """The fastest of ``repeat`` fresh simplifications of :func:`long_sum` ``(n)``."""
    import indexalg as ia
    from indexalg.analysis.context import context_for
    from indexalg.simplify import DEFAULT_STEP_LIMIT, simplify_in

    try:
        from indexalg.limits import step_limit_for
    except ImportError:  # before issue 27: a fixed default limit

        def step_limit_for(nodes: int) -> int:
            return DEFAULT_STEP_LIMIT

    e = ia.parse(long_sum(n))
    nodes = sum(1 for _ in e.walk())
    limit = DEFAULT_STEP_LIMIT if step_limit is None else step_limit
    best = -1
    steps = 0
    error = ""
    for _ in range(repeat):
        ia.clear_caches()
        t0 = time.thread_time_ns()
        try:
            _, res = simplify_in(e, context_for(ia.as_ranges({"x": 4096})), step_limit=limit)
            steps = res.steps
        except ia.RewriteLimitError as err:
            error = str(err).split(" (last:")[0]
        dt = time.thread_time_ns() - t0
        best = dt if best < 0 else min(best, dt)
    shown = step_limit_for(nodes) if step_limit is None else step_limit
    return Row(n, nodes, shown, steps, best / 1e9, error)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.scaling", description=__doc__.split("\n")[0])
    p.add_argument("--terms", type=int, nargs="+", default=list(DEFAULT_TERMS), metavar="N")
    p.add_argument("--repeat", type=int, default=1, help="runs per size; the fastest is kept")
    p.add_argument("--step-limit", type=int, default=None, help="a fixed limit (default: grows)")
    args = p.parse_args(argv)
    print("| terms | nodes | step limit | steps | time (s) | µs per term | note |")
    print("|---:|---:|---:|---:|---:|---:|---|")
    for n in args.terms:
        r = measure(n, repeat=args.repeat, step_limit=args.step_limit)
        note = f"refused: {r.error}" if r.error else ""
        print(
            f"| {n} | {r.nodes} | {r.limit} | {r.steps} | {r.seconds:.2f} "
            f"| {r.seconds * 1e6 / n:.0f} | {note} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
