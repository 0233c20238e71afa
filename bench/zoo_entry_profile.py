"""Where the plug-in's time goes on one zoo model: the compile runs under cProfile and the
report keeps the functions of indexalg, the ShapeEnv and sympy, by cumulative and by own
time, with the entry points' timers and counters.

    python -m bench.zoo_entry_profile mobilenet_v3_small dynamic --device cuda \\
        [--entry maybe_evaluate_static] [--top 40] [--out prof.txt]

cProfile slows every call by a similar factor, so read the shares, not the seconds.
With ``--entry NAME`` only the plug-in's own attempt inside that entry point is profiled
(the replacement function, up to its answer or its fallback; the stock function it falls
back to runs unprofiled), which keeps a claim-heavy compile inside a device call's limit.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import time
from typing import Any


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.zoo_entry_profile")
    p.add_argument("model")
    p.add_argument("shape", choices=("static", "dynamic"))
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--top", type=int, default=40)
    p.add_argument("--out")
    p.add_argument("--entry", help="profile only the plug-in's own attempt in this entry point")
    args = p.parse_args(argv)
    os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")
    import indexalg.inductor as plug
    from bench import zoo
    from bench.zoo_models.registry import BY_NAME

    prof = cProfile.Profile()
    if args.entry:
        by_name = {e.name: e for e in plug.ENTRY_POINTS}
        if args.entry not in by_name:
            p.error(f"--entry: one of {', '.join(sorted(by_name))}")
        _profile_inside(by_name[args.entry], prof)
    zoo._setup("plugin", time.perf_counter)
    if not args.entry:
        prof.enable()
    res = zoo._compile_once(BY_NAME[args.model], zoo.BACKEND[args.device], args.shape, args.device)
    if not args.entry:
        prof.disable()
    buf = io.StringIO()
    ks = res["kernels"]
    buf.write(
        f"{args.model} {args.shape} {args.device}: {len(ks)} kernels,"
        f" {sum(k[1] for k in ks)} div/mod, compile {res['compile_wall_s']:.1f} s under cProfile\n"
    )
    buf.write(f"entry seconds (timer, outermost): {zoo.ENTRY_SECONDS}\n")
    buf.write(f"entry calls: {zoo.ENTRY_CALLS}\n\n{plug.report()}\n")
    stats = pstats.Stats(prof, stream=buf)
    for order in ("cumulative", "tottime"):
        buf.write(f"\n==== indexalg, ShapeEnv and sympy functions, by {order}\n")
        stats.sort_stats(order).print_stats(r"indexalg|symbolic_shapes|sympy", args.top)
    text = buf.getvalue()
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text)
    return 0


def _profile_inside(entry: Any, prof: cProfile.Profile) -> None:
    """Wrap ``entry``'s replacement so that ``prof`` runs only inside it (outermost call)."""
    fast = entry.fast
    depth = [0]

    def profiled(*args: Any, **kwargs: Any) -> Any:
        depth[0] += 1
        if depth[0] == 1:
            prof.enable()
        try:
            return fast(*args, **kwargs)
        finally:
            if depth[0] == 1:
                prof.disable()
            depth[0] -= 1

    entry.fast = profiled


if __name__ == "__main__":
    raise SystemExit(main())
