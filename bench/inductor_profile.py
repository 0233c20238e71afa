"""Where torch.compile's sympy time goes, stock and with indexalg.inductor: a stack sampler.

    python -m bench.inductor_profile                          # TABLE workloads, Triton path
    python -m bench.inductor_profile --backends cpp --shapes dynamic --workloads group_norm

Each (workload, backend, shape, mode) compiles in a fresh process (caches off, as in
``bench.inductor``) while a thread samples the compiling thread's stack every
``--interval`` ms, during the timed compile only (``bench.inductor.COMPILE_HOOKS``).  A
sample is *sympy* when a frame of ``sympy`` (or of
``torch.utils._sympy``) is on the stack; it is attributed to the caller that asked for it:
the innermost frame outside sympy, indexalg and ``torch.utils._sympy``, by subsystem
(dynamo, AOT autograd / functionalization, the ShapeEnv, Inductor's sizevars, lowering/IR,
scheduler, codegen, ...).  Samples whose innermost caller is indexalg (the plug-in's own work
and the sympy it calls to convert) are counted apart (``indexalg``); a fallback to
Inductor's own code counts as Inductor's.
Prints, per mode, the share of the compile's samples in each bucket, summed over the
workloads.  Sampling is statistical (about 1 ms resolution) and costs a few per cent.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import Counter
from typing import Any

#: (path fragment, bucket) in order: the first fragment found in a caller's file names it
CALLERS: tuple[tuple[str, str], ...] = (
    ("fx/experimental/symbolic_shapes", "ShapeEnv"),
    ("fx/experimental/sym_node", "ShapeEnv"),
    ("torch/_dynamo", "dynamo"),
    ("torch/_functorch", "AOT autograd"),
    ("torch/_subclasses", "AOT autograd"),
    ("torch/_refs", "AOT autograd"),
    ("torch/_decomp", "AOT autograd"),
    ("torch/_prims", "AOT autograd"),
    ("fx/experimental/proxy_tensor", "AOT autograd"),
    ("torch/_inductor/sizevars", "Inductor sizevars"),
    ("torch/_inductor/codegen", "Inductor codegen"),
    ("torch/_inductor/scheduler", "Inductor scheduler"),
    ("torch/_inductor/ir", "Inductor IR / lowering"),
    ("torch/_inductor/lowering", "Inductor IR / lowering"),
    ("torch/_inductor/dependencies", "Inductor IR / lowering"),
    ("torch/_inductor/graph", "Inductor IR / lowering"),
    ("torch/_inductor/fx_passes", "Inductor fx passes"),
    ("torch/_inductor", "Inductor other"),
    ("torch/fx", "fx"),
)


def _bucket(filename: str) -> str:
    for frag, name in CALLERS:
        if frag in filename:
            return name
    return "other"


def _in_sympy(filename: str) -> bool:
    return "/sympy/" in filename or "torch/utils/_sympy" in filename


class Sampler:
    """Samples one thread's stack every ``interval`` seconds while running."""

    def __init__(self, thread_id: int, interval: float) -> None:
        self.thread_id = thread_id
        self.interval = interval
        self.samples: Counter[str] = Counter()
        self.callers: Counter[str] = Counter()  # "module.function" of each sympy sample's caller
        self.total = 0
        self.active = False  # counting only while the timed compile runs
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if not self.active:
                continue
            frame = sys._current_frames().get(self.thread_id)
            if frame is None:
                continue
            self.total += 1
            bucket, caller = self.classify(frame)
            self.samples[bucket] += 1
            if caller:
                self.callers[caller] += 1

    @staticmethod
    def classify(frame: Any) -> tuple[str, str]:
        """(bucket, caller).  From the innermost frame out: sympy frames (and the standard
        library's, such as functools' cache wrappers) are skipped; the first frame of torch
        or indexalg is the caller.  Bucket ``indexalg`` when that is indexalg (its own work
        and the sympy it calls to convert); ``sympy: <caller bucket>`` when sympy frames were
        skipped on the way (caller: the torch file and function); else ``not sympy``."""
        saw_sympy = False
        f = frame
        while f is not None:
            code = f.f_code
            fn = code.co_filename
            if _in_sympy(fn):
                saw_sympy = True
            elif "/indexalg/" in fn and "/bench/" not in fn:
                return "indexalg", ""
            elif "/torch/" in fn:
                if not saw_sympy:
                    return "not sympy", ""
                where = fn.split("/torch/")[-1].removesuffix(".py").replace("/", ".")
                return f"sympy: {_bucket(fn)}", f"{where}.{code.co_name}"
            f = f.f_back
        return ("sympy: other" if saw_sympy else "not sympy"), ""


def _worker(name: str, backend: str, shape: str, mode: str, interval: float) -> dict[str, Any]:
    import torch  # noqa: F401  (imported before sampling, as bench.inductor's workers do)

    from bench import inductor

    sampler = Sampler(threading.get_ident(), interval)

    def hook(on: bool) -> None:
        sampler.active = on

    inductor.COMPILE_HOOKS.append(hook)
    with sampler:
        result = inductor._worker(name, backend, shape, mode)
    return {
        "workload": name,
        "backend": backend,
        "shape": shape,
        "mode": mode,
        "compile_s": result.get("compile_s"),
        "error": result.get("error"),
        "total": sampler.total,
        "samples": dict(sampler.samples),
        "callers": dict(sampler.callers.most_common(40)),
    }


def run_one(name: str, backend: str, shape: str, mode: str, interval: float) -> dict[str, Any]:
    from bench import inductor

    return inductor.run_one(
        name,
        backend,
        shape,
        mode,
        900.0,
        module="bench.inductor_profile",
        extra=("--interval", str(interval * 1000)),
    )


def table(rows: list[dict[str, Any]]) -> str:
    """Per mode, each bucket's share of all samples (summed over the workloads)."""
    modes = sorted({r["mode"] for r in rows}, key=lambda m: m != "stock")
    totals = {m: sum(r["total"] for r in rows if r["mode"] == m) for m in modes}
    buckets: Counter[str] = Counter()
    for r in rows:
        buckets.update(r["samples"])
    names = sorted(buckets, key=lambda b: (b == "not sympy", -buckets[b]))
    out = [
        "| samples in | " + " | ".join(f"{m} %" for m in modes) + " |",
        "|---|" + "---:|" * len(modes),
    ]
    for b in names:
        cells = []
        for m in modes:
            n = sum(r["samples"].get(b, 0) for r in rows if r["mode"] == m)
            cells.append(f"{100 * n / max(totals[m], 1):.1f}")
        out.append(f"| {b} | " + " | ".join(cells) + " |")
    sympy = {
        m: sum(
            n
            for r in rows
            if r["mode"] == m
            for b, n in r["samples"].items()
            if b.startswith("sympy")
        )
        for m in modes
    }
    out.append(
        "| **all sympy** | "
        + " | ".join(f"**{100 * sympy[m] / max(totals[m], 1):.1f}**" for m in modes)
        + " |"
    )
    for m in modes:
        callers: Counter[str] = Counter()
        for r in rows:
            if r["mode"] == m:
                callers.update(r.get("callers", {}))
        top = ", ".join(
            f"{c} {100 * n / max(totals[m], 1):.1f}%" for c, n in callers.most_common(8)
        )
        out.append(f"\n{m}: sympy's largest callers: {top}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.inductor_profile", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--worker", nargs=4, metavar=("WORKLOAD", "BACKEND", "SHAPE", "MODE"))
    p.add_argument("--workloads", nargs="*", default=None)
    p.add_argument("--backends", nargs="*", default=["triton"], choices=["cpp", "triton"])
    p.add_argument(
        "--shapes", nargs="*", default=["static", "dynamic"], choices=["static", "dynamic"]
    )
    p.add_argument("--interval", type=float, default=1.0, help="sampling interval, ms")
    p.add_argument("--json", help="write every worker's samples here")
    args = p.parse_args(argv)
    interval = args.interval / 1000.0
    if args.worker:
        print(json.dumps(_worker(*args.worker, interval)))
        return 0
    from bench.inductor_workloads import TABLE

    rows = []
    t0 = time.time()
    for backend in args.backends:
        for shape in args.shapes:
            sel = []
            for name in args.workloads or TABLE:
                for mode in ("stock", "plugin"):
                    r = run_one(name, backend, shape, mode, interval)
                    if r.get("error"):
                        print(f"{name} {mode}: {str(r['error'])[:200]}", flush=True)
                        continue
                    sel.append(r)
            rows.extend(sel)
            print(
                f"\n{backend} {shape}: {len(sel) // 2} workloads, share of compile samples "
                f"[{time.time() - t0:.0f}s]"
            )
            print(table(sel), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
