"""Where the plug-in's answers differ from stock's, on one zoo model: every call of every
patched entry point answered by the plug-in, and again by Inductor's own function, logged
where the two differ (with the Inductor frames that asked).

    python -m bench.zoo_diverge convnext_tiny dynamic [--limit 40] [--json out.json]

The compile itself follows the plug-in's answers (stock's are computed beside them, inside
the plug-in's stock guard so that their inner questions are Inductor's too).  A difference
is either a claim the plug-in decides where stock leaves it undecided (None), an opposite
verdict (a bug), or a simplified expression in another form (``simplify_with_ranges``):
compared structurally, then, where they differ, by value at a few points.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections import Counter
from typing import Any

LOG: list[dict[str, Any]] = []
SEEN: Counter[str] = Counter()


def _callers() -> list[str]:
    """The torch._inductor / ShapeEnv frames of the current stack, innermost last."""
    out = []
    for fr in traceback.extract_stack()[:-3]:
        f = fr.filename
        if "torch/_inductor" in f or "symbolic_shapes" in f or "fake_impls" in f:
            out.append(f"{f.split('torch/')[-1]}:{fr.lineno} {fr.name}")
    return out[-8:]


def _wrap(entry: Any) -> None:
    from indexalg.inductor import _state

    holder, last, current = entry.resolve()
    original = entry.original

    def both(*args: Any, **kwargs: Any) -> Any:
        ours = current(*args, **kwargs)
        if _state.IN_STOCK[0]:
            return ours
        _state.IN_STOCK[0] += 1
        try:
            theirs = original(*args, **kwargs)
        except Exception as exc:
            theirs = f"<{type(exc).__name__}>"
        finally:
            _state.IN_STOCK[0] -= 1
        if ours is theirs or str(ours) == str(theirs):
            return ours
        skip = 0 if entry.name == "stride_at_vec_range" else 1  # self
        key = f"{entry.name}: {args[skip:]} {kwargs} -> {ours} | stock {theirs}"
        SEEN[key] += 1
        if SEEN[key] == 1:
            LOG.append(
                {
                    "key": key,
                    "entry": entry.name,
                    "args": [str(a) for a in args[skip:]],
                    "kwargs": {k: str(v) for k, v in kwargs.items()},
                    "plugin": str(ours),
                    "stock": str(theirs),
                    "callers": _callers(),
                }
            )
        return ours

    for attr in ("__name__", "__qualname__", "cache_clear", "cache_info"):
        if hasattr(current, attr):
            setattr(both, attr, getattr(current, attr))
    setattr(holder, last, both)
    if entry.by_name:
        for mod_name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
            if mod_name.startswith("torch._inductor") and getattr(mod, last, None) is current:
                setattr(mod, last, both)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.zoo_diverge")
    p.add_argument("model")
    p.add_argument("shape", choices=("static", "dynamic"))
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--only", help="entry points to compare (comma-separated; default all)")
    p.add_argument("--limit", type=int, default=60)
    p.add_argument("--json")
    args = p.parse_args(argv)
    os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")
    import indexalg.inductor as plug
    from bench import zoo
    from indexalg.inductor._entries import ENTRY_POINTS

    plug.install()
    for entry in ENTRY_POINTS:
        if entry.patched and (not args.only or entry.name in args.only.split(",")):
            _wrap(entry)
    from bench.zoo_models.registry import BY_NAME

    backend = zoo.BACKEND[args.device]
    res = zoo._compile_once(BY_NAME[args.model], backend, args.shape, args.device)
    ks = res["kernels"]
    print(
        f"{args.model} {args.shape}: {len(ks)} kernels, {sum(k[1] for k in ks)} div/mod,"
        f" {sum(k[2] for k in ks)} copies; {len(LOG)} distinct differing answers"
    )
    for i, d in enumerate(LOG[: args.limit]):
        print(f"--- #{i} {d['entry']} (asked {SEEN[d['key']]} times)")
        print(f"    args: {d['args']} {d['kwargs'] or ''}")
        print(f"    plug-in: {d['plugin']}")
        print(f"    stock:   {d['stock']}")
        for c in d["callers"]:
            print(f"      {c}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(LOG, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
