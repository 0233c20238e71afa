"""A model zoo compiled stock and with indexalg.inductor: correctness, kernels, div/mod,
layout copies, compile time and the time inside every patched entry point.

    python -m bench.zoo                                   # every model, CPU (C++ backend)
    python -m bench.zoo --models convnext_tiny,llama --samples 3 --out /tmp/zoo
    python -m bench.zoo --quick                           # registry.QUICK, one sample
    python -m bench.zoo --device cuda --workers 12 --out $OUT   # the GPU machine (Triton)

Models (:mod:`bench.zoo_models.registry`) come from torchvision / transformers when they
import, else from :mod:`bench.zoo_models` (the same architectures written here: tiny
configs, random weights).  Each model is compiled static (``dynamic=False``) and dynamic
(``dynamic=True``, its batch / sequence / spatial dimensions marked dynamic); each compile
in a fresh process with caches off and one compile thread (``bench.inductor.run_one``),
``--samples`` per mode, stock and plug-in interleaved.  A worker reports the first call's
seconds (compile; wall and CPU), every kernel's name, div/mod count and whether it is a
plain copy, the outputs checked against eager (and, dynamic, on a second size), and the
seconds inside each patched entry point (``ENTRY_POINTS``: wrapped with a timer around
Inductor's function in stock, around the plug-in's replacement otherwise; inclusive,
the outermost call of each entry point only) with the plug-in's own counters.

**Never worse than stock**: the exit status is 1 when, on any model and shape mode, the
plug-in gives more kernels, more div/mod, more copy kernels, or outputs that differ from
eager or from stock's (``--no-check`` reports only).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.inductor import MODES, _kernels_from_cpp_wrapper, cpu_seconds, divmod_count, run_one

#: static: ``dynamic=False``; dynamic: ``dynamic=True`` (duck sizing: equal sizes share a
#: symbol, as a user's square images do); marked: ``dynamic=True`` and the model's batch /
#: sequence / spatial dimensions marked dynamic (``maybe_mark_dynamic``: a symbol each)
SHAPES = ("static", "dynamic", "marked")
BACKEND = {"cpu": "cpp", "cuda": "triton"}
#: outputs against eager: the model's own tolerance, times this on the device (TF32 convs)
TOL_SCALE = {"cpu": 1.0, "cuda": 10.0}
#: outputs of the plug-in against stock's (the same kernels up to index arithmetic)
STOCK_TOL = 1e-4
_TRITON_KERNEL = re.compile(r"(\w+) = async_compile\.triton\('(\w+)', '''(.*?)'''", re.S)
_DIGEST_VALUES = 2048


# =======================================================================================
# timers around the patched entry points


ENTRY_SECONDS: dict[str, float] = {}
ENTRY_CALLS: dict[str, int] = {}


def _timed(name: str, fn: Callable[..., Any], clock: Callable[[], float]) -> Callable[..., Any]:
    depth = [0]
    ENTRY_SECONDS.setdefault(name, 0.0)
    ENTRY_CALLS.setdefault(name, 0)

    def timed(*args: Any, **kwargs: Any) -> Any:
        if depth[0]:
            return fn(*args, **kwargs)
        depth[0] = 1
        t0 = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            ENTRY_SECONDS[name] += clock() - t0
            ENTRY_CALLS[name] += 1
            depth[0] = 0

    for attr in ("__name__", "__qualname__", "__doc__", "cache_clear", "cache_info"):
        if hasattr(fn, attr):
            setattr(timed, attr, getattr(fn, attr))
    return timed


def install_entry_timers(clock: Callable[[], float]) -> list[str]:
    """A timer around whatever each entry point is now (Inductor's, or the plug-in's
    replacement when installed), at its definition and where it was imported by name."""
    import torch._inductor.sizevars

    with contextlib.suppress(ImportError):
        import torch._inductor.codegen.cpp  # noqa: F401
    from indexalg.inductor._entries import ENTRY_POINTS

    done = []
    for entry in ENTRY_POINTS:
        found = entry.resolve()
        if found is None:
            continue
        holder, last, current = found
        wrapped = _timed(entry.name, current, clock)
        setattr(holder, last, wrapped)
        if entry.by_name:
            for mod_name, mod in sorted(sys.modules.items(), key=lambda kv: kv[0]):
                if mod_name.startswith("torch._inductor") and getattr(mod, last, None) is current:
                    setattr(mod, last, wrapped)
        done.append(entry.name)
    return done


# =======================================================================================
# generated code


def kernels_of(codes: list[str], backend: str) -> list[tuple[str, str]]:
    """(name, source) of every kernel in Inductor's output modules."""
    if backend == "triton":
        return [(m.group(2), m.group(3)) for c in codes for m in _TRITON_KERNEL.finditer(c)]
    return [k for c in codes for k in _kernels_from_cpp_wrapper(c)]


def is_copy_kernel(src: str) -> bool:
    """A kernel that only moves one input to one output (a layout copy): one input pointer,
    one output pointer, and the loaded value stored as it is (no ``tmp1``)."""
    ins = set(re.findall(r"\bin_ptr\d+\b", src))
    outs = set(re.findall(r"\bout_ptr\d+\b", src)) | set(re.findall(r"\bin_out_ptr\d+\b", src))
    return len(ins) == 1 and len(outs) == 1 and "tmp0" in src and "tmp1" not in src


def kernel_rows(kernels: list[tuple[str, str]]) -> list[tuple[str, int, bool]]:
    return [(k, divmod_count(src), is_copy_kernel(src)) for k, src in kernels]


# =======================================================================================
# outputs


def _flat(out: Any) -> list[Any]:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    if isinstance(out, dict):
        return [t for o in out.values() for t in _flat(o)]
    return []


def digest(out: Any) -> list[list[float]]:
    """Per output tensor: up to 2048 evenly spaced values, then the sum and the sum of |x|."""
    res = []
    for t in _flat(out):
        f = t.detach().double().flatten().cpu()
        step = max(1, f.numel() // _DIGEST_VALUES)
        res.append([*f[::step][:_DIGEST_VALUES].tolist(), float(f.sum()), float(f.abs().sum())])
    return res


def close(a: Any, b: Any, atol: float, rtol: float) -> tuple[bool, str]:
    import torch

    fa, fb = _flat(a), _flat(b)
    if len(fa) != len(fb):
        return False, f"{len(fa)} outputs vs {len(fb)}"
    for x, y in zip(fa, fb):
        try:
            torch.testing.assert_close(x, y, atol=atol, rtol=rtol, equal_nan=True)
        except AssertionError as exc:
            return False, str(exc)[:300]
    return True, ""


def digests_close(a: list[list[float]], b: list[list[float]], tol: float = STOCK_TOL) -> bool:
    import math

    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if len(x) != len(y):
            return False
        for u, v in zip(x, y):
            if not (
                u == v or (math.isnan(u) and math.isnan(v)) or abs(u - v) <= tol * (1 + abs(u))
            ):
                return False
    return True


# =======================================================================================
# worker: one compile in this process


def _setup(mode: str, clock: Callable[[], float]) -> None:
    if mode == "plugin":
        import indexalg.inductor as plug

        plug.install()
    install_entry_timers(clock)


def _compile_once(
    spec: Any, backend: str, shape: str, device: str, mode: str = "plugin"
) -> dict[str, Any]:
    import torch
    from torch._inductor import config
    from torch._inductor.utils import run_and_get_code

    model, source = spec.build(prefer_library=os.environ.get("INDEXALG_ZOO_LOCAL") != "1")
    model = model.to(device)
    inputs = spec.inputs(device)
    dynamic = shape != "static"
    if shape == "marked":
        for d in spec.dynamic:
            torch._dynamo.maybe_mark_dynamic(inputs[0], d)
    torch._dynamo.reset()
    config.compile_threads = 1
    compiled = torch.compile(model, dynamic=dynamic)
    t0, c0 = time.perf_counter(), cpu_seconds()
    with torch.no_grad():
        out, codes = run_and_get_code(compiled, *inputs)
        if device == "cuda":
            torch.cuda.synchronize()
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - c0
    tol = TOL_SCALE[device]
    res: dict[str, Any] = {"source": source, "compile_wall_s": wall, "compile_cpu_s": cpu}
    with torch.no_grad():
        ok, why = close(out, model(*inputs), spec.atol * tol, spec.rtol * tol)
        res["equal_eager"], res["mismatch"] = ok, why
        res["output_digest"] = digest(out)
        if dynamic:  # the dynamic kernels at a second size (a recompile is counted)
            frames0 = _frames()
            x2 = spec.inputs(device, second=True)
            ok2, why2 = close(compiled(*x2), model(*x2), spec.atol * tol, spec.rtol * tol)
            res["equal_eager_second_size"], res["mismatch_second_size"] = ok2, why2
            res["recompiled_second_size"] = _frames() > frames0
    res["kernels"] = kernel_rows(kernels_of(codes, backend))
    dump = os.environ.get("INDEXALG_BENCH_DUMP")
    if dump:
        os.makedirs(dump, exist_ok=True)
        with open(os.path.join(dump, f"{spec.name}.{backend}.{shape}.{mode}.code.py"), "w") as fh:
            fh.write("\n\n# ======== next module\n\n".join(codes))
    return res


def _frames() -> int:
    from torch._dynamo.utils import counters

    return int(sum(counters["stats"].values())) if "stats" in counters else 0


def _worker(name: str, backend: str, shape: str, mode: str) -> dict[str, Any]:
    from bench.zoo_models.registry import BY_NAME

    clock_name = "cpu" if os.environ.get("INDEXALG_BENCH_CLOCK") == "cpu" else "wall"
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    _setup(mode, clock)
    device = "cuda" if backend == "triton" else "cpu"
    result: dict[str, Any] = {"workload": name, "backend": backend, "shape": shape, "mode": mode}
    result.update(_compile_once(BY_NAME[name], backend, shape, device, mode))
    result["clock"] = clock_name
    result["compile_s"] = result[f"compile_{clock_name}_s"]
    result["entry_s"] = dict(ENTRY_SECONDS)
    result["entry_calls"] = dict(ENTRY_CALLS)
    if mode == "plugin":
        import indexalg.inductor as plug

        result["plugin"] = plug.counters()
    return result


# =======================================================================================
# driver


def _schedule(models: list[str], backend: str, samples: int) -> list[tuple[str, str, str, int]]:
    """Every compile, (model, shape, mode, sample), interleaved: per model and shape, stock
    then plug-in on even samples, plug-in then stock on odd ones, samples after samples."""
    jobs = []
    for i in range(samples):
        for name in models:
            for shape in SHAPES:
                for mode in MODES if i % 2 == 0 else tuple(reversed(MODES)):
                    jobs.append((name, shape, mode, i))
    return jobs


Runs = dict[tuple[str, str], dict[str, list[dict[str, Any]]]]


def run_all(
    models: list[str],
    backend: str,
    samples: int,
    workers: int,
    timeout: float,
    clock: str,
    raw_path: str | None = None,
) -> Runs:
    """Every compile of the schedule, ``workers`` at once; each result is appended to
    ``raw_path`` (JSON lines) as it comes, so that a run stopped early leaves what it did
    (``--report RAW`` builds the table from it)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    jobs = _schedule(models, backend, samples)
    lock = threading.Lock()

    def one(job: tuple[str, str, str, int]) -> dict[str, Any]:
        name, shape, mode, _ = job
        r = run_one(name, backend, shape, mode, timeout, clock, module="bench.zoo")
        tag = "ok" if "error" not in r else "ERROR " + str(r["error"])[-200:]
        print(
            f"  {name} {shape} {mode}: {r.get('compile_s', float('nan')):.2f} s {tag}", flush=True
        )
        if raw_path:
            with lock, open(raw_path, "a") as fh:
                fh.write(json.dumps(r, default=str) + "\n")
        return r

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(one, jobs))
    return group(results)


def group(results: list[dict[str, Any]]) -> Runs:
    """Worker results by (model, shape) and mode, in the order given."""
    runs: Runs = {}
    for r in results:
        key = (r["workload"], r["shape"])
        runs.setdefault(key, {m: [] for m in MODES})[r["mode"]].append(r)
    return runs


def _spread(xs: list[float]) -> str:
    if len(xs) == 1:
        return f"{xs[0]:.2f}"
    return f"{statistics.median(xs):.2f} [{min(xs):.2f}–{max(xs):.2f}]"


def compare_pair(
    name: str, shape: str, stock: list[dict[str, Any]], plug: list[dict[str, Any]]
) -> dict[str, Any]:
    """One (model, shape) row: checks and medians from the samples of both modes."""
    row: dict[str, Any] = {"model": name, "shape": shape}
    errs = [r for r in stock + plug if "error" in r]
    if errs or not stock or not plug:
        row["error"] = str(errs[0]["error"])[-500:] if errs else "no samples"
        row["worse"] = ["error"]
        return row
    s0, p0 = stock[0], plug[0]
    row["source"] = s0["source"]
    sk, pk = s0["kernels"], p0["kernels"]
    row.update(
        kernels_stock=len(sk),
        kernels_plugin=len(pk),
        divmod_stock=sum(k[1] for k in sk),
        divmod_plugin=sum(k[1] for k in pk),
        copies_stock=sum(k[2] for k in sk),
        copies_plugin=sum(k[2] for k in pk),
        equal_eager_stock=all(r["equal_eager"] for r in stock),
        equal_eager_plugin=all(r["equal_eager"] for r in plug),
        equal_stock=all(digests_close(s0["output_digest"], r["output_digest"]) for r in plug),
        kernels_vary=any(r["kernels"] != sk for r in stock)
        or any(r["kernels"] != pk for r in plug),
    )
    if shape != "static":
        row["equal_eager_second_size"] = all(
            r.get("equal_eager_second_size", True) for r in stock + plug
        )
    for tag, rs in (("stock", stock), ("plugin", plug)):
        row[f"compile_{tag}"] = [r["compile_s"] for r in rs]
        entries = sorted({e for r in rs for e in r["entry_s"]})
        row[f"entry_{tag}"] = {
            e: statistics.median(r["entry_s"].get(e, 0.0) for r in rs) for e in entries
        }
    row["compile_ratio"] = statistics.median(row["compile_plugin"]) / statistics.median(
        row["compile_stock"]
    )
    row["fallback_s"] = {
        e: statistics.median(r["plugin"].get(e, {}).get("fallback_seconds", 0.0) for r in plug)
        for e in p0.get("plugin", {})
    }
    row["plugin"] = p0.get("plugin", {})
    row["worse"] = _worse(row)
    return row


def _worse(row: dict[str, Any]) -> list[str]:
    """What makes the plug-in worse than stock on this row (empty: never worse)."""
    out = []
    for what in ("kernels", "divmod", "copies"):
        if row[f"{what}_plugin"] > row[f"{what}_stock"]:
            out.append(f"{what} {row[f'{what}_stock']}→{row[f'{what}_plugin']}")
    if not row["equal_eager_plugin"]:
        out.append("output≠eager")
    if not row["equal_stock"]:
        out.append("output≠stock")
    if not row.get("equal_eager_second_size", True):
        out.append("output≠eager at a second size")
    return out


_ENTRY_SHORT = (
    ("simplify_with_ranges", "swr"),
    ("stride_at_vec_range", "savr"),
    ("maybe_evaluate_static", "mes"),
    ("optimization_hint", "oh"),
    ("guarding_hint_or_throw", "ghot"),
)


def _ok(row: dict[str, Any]) -> str:
    marks = [
        "eager" if row["equal_eager_plugin"] and row["equal_eager_stock"] else "EAGER✗",
        "stock" if row["equal_stock"] else "STOCK✗",
    ]
    if row["shape"] != "static":
        marks.append("2nd" if row["equal_eager_second_size"] else "2ND✗")
    return "=" + ",".join(marks)


def format_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| model | shapes | outputs | kernels s→p | div/mod s→p | copies s→p |"
        " compile s stock | compile s plug-in | ratio |"
        + "".join(f" {short} s s→p |" for _, short in _ENTRY_SHORT)
        + " verdict |"
    )
    lines = [head, "|" + "---|" * (10 + len(_ENTRY_SHORT))]
    for r in rows:
        if "error" in r:
            lines.append(
                f"| {r['model']} | {r['shape']} | error: {r['error'][-80:]!r} |" + " |" * 9
            )
            continue
        ent = ""
        for full, _ in _ENTRY_SHORT:
            s, p = r["entry_stock"].get(full), r["entry_plugin"].get(full)
            fb = r["fallback_s"].get(full, 0.0)
            ent += " |" if s is None else f" {s:.3f}→{p or 0.0:.3f} ({fb:.3f}) |"
        counts = " |".join(
            f" {r[f'{w}_stock']}→{r[f'{w}_plugin']}" for w in ("kernels", "divmod", "copies")
        )
        verdict = "WORSE: " + "; ".join(r["worse"]) if r["worse"] else "ok"
        lines.append(
            f"| {r['model']} | {r['shape']} | {_ok(r)} |{counts} |"
            f" {_spread(r['compile_stock'])} | {_spread(r['compile_plugin'])} |"
            f" {r['compile_ratio']:.3f} |{ent} {verdict} |"
        )
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> str:
    out = []
    for shape in SHAPES:
        sel = [r for r in rows if r["shape"] == shape and "error" not in r]
        if not sel:
            continue
        ratios = sorted(r["compile_ratio"] for r in sel)
        q = statistics.quantiles(ratios, n=4) if len(ratios) >= 2 else [ratios[0]] * 3
        ent = []
        for full, short in _ENTRY_SHORT:
            s = sum(r["entry_stock"].get(full, 0.0) for r in sel)
            p = sum(r["entry_plugin"].get(full, 0.0) for r in sel)
            fb = sum(r["fallback_s"].get(full, 0.0) for r in sel)
            x = s / p if p else float("inf")
            ent.append(f"{short} {s:.2f}→{p:.2f} s ({x:.2f}x; fallback {fb:.2f} s)")

        def tot(key: str, sel: list[dict[str, Any]] = sel) -> str:
            return f"{sum(r[key + '_stock'] for r in sel)}→{sum(r[key + '_plugin'] for r in sel)}"

        out.append(
            f"{shape}: {len(sel)} models; compile ratio plug-in/stock median"
            f" {statistics.median(ratios):.3f} (quartiles {q[0]:.3f}–{q[2]:.3f},"
            f" min {ratios[0]:.3f}, max {ratios[-1]:.3f}); kernels {tot('kernels')},"
            f" div/mod {tot('divmod')}, copies {tot('copies')};"
            f" entry points (zoo total): {'; '.join(ent)}"
        )
    bad = [f"{r['model']}/{r['shape']}: {'; '.join(r['worse'])}" for r in rows if r["worse"]]
    out.append("never worse than stock: " + ("yes" if not bad else "NO — " + " | ".join(bad)))
    out.append(_errors_caught(rows))
    return "\n".join(out)


def _errors_caught(rows: list[dict[str, Any]]) -> str:
    """The exceptions indexalg raised inside an entry point (each answered by Inductor's own
    code, so the outputs stay right, but each a bug), per entry point and type, with the
    models and the places the plug-in kept (first plug-in sample of each model)."""
    count: Counter[str] = Counter()
    models: dict[str, list[str]] = {}
    places: dict[str, dict[str, None]] = {}
    for r in rows:
        for entry, c in sorted(r.get("plugin", {}).items()):
            for reason, n in sorted(c.get("fallbacks", {}).items()):
                if not reason.startswith("error:"):
                    continue
                key = f"{entry} {reason}"
                count[key] += n
                models.setdefault(key, []).append(f"{r['model']}/{r['shape']}")
                places.setdefault(key, {}).update(
                    dict.fromkeys(c.get("errors", {}).get(reason, []))
                )
    if not count:
        return "errors caught by the fallback wrapper: none"
    lines = ["errors caught by the fallback wrapper (Inductor's answer used; each a bug):"]
    for key in sorted(count):
        lines.append(f"  {key}: {count[key]} ({', '.join(models[key])})")
        lines.extend(f"    raised at {where}" for where in places[key])
    return "\n".join(lines)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.zoo", description=__doc__.split("\n\n")[0])
    p.add_argument("--worker", nargs=4, metavar=("MODEL", "BACKEND", "SHAPE", "MODE"))
    p.add_argument("--models", help="comma-separated names (default: all)")
    p.add_argument("--samples", type=int, default=3, help="fresh-process compiles per mode")
    p.add_argument("--device", choices=tuple(BACKEND), default="cpu")
    p.add_argument("--quick", action="store_true", help="the QUICK models, one sample")
    p.add_argument("--out", help="directory for zoo.json and zoo.md")
    p.add_argument("--workers", type=int, default=1, help="compiles at once (fresh processes)")
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="cpu",
        help="cpu: CPU seconds of the compiling process and its children",
    )
    p.add_argument("--shapes", default=",".join(SHAPES), help="of static,dynamic,marked")
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--no-check", action="store_true", help="exit 0 even where worse than stock")
    p.add_argument("--report", metavar="RAW", help="the table from a run's zoo_*_raw.jsonl")
    return p.parse_args(argv)


def _names(args: argparse.Namespace) -> list[str]:
    from bench.zoo_models.registry import BY_NAME, MODELS, QUICK

    if args.models:
        names = args.models.split(",")
    else:
        names = list(QUICK) if args.quick else [m.name for m in MODELS]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown models {unknown}; known: {', '.join(BY_NAME)}")
    return names


def _report(runs: Runs, args: argparse.Namespace) -> int:
    """Print the table and the summary, write them (and every result) under ``--out``;
    the exit status of the never-worse check."""
    rows = [compare_pair(n, s, r["stock"], r["plugin"]) for (n, s), r in runs.items()]
    table, text = format_table(rows), summary(rows)
    print()
    print(
        f"compile seconds ({args.clock} clock): median [min–max] of the samples; ratio of"
        " medians; entry-point seconds (swr: simplify_with_ranges, savr: stride_at_vec_range,"
        " mes: maybe_evaluate_static, oh: optimization_hint, ghot: guarding_hint_or_throw;"
        " outermost call timed, inclusive): median stock→plug-in"
        " (in parentheses: the plug-in's own fallback_seconds counter, which counts a nested"
        " call at each level and so can exceed the outermost time)"
    )
    print(table)
    print()
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        raw = [r for v in runs.values() for m in MODES for r in v[m]]
        with open(os.path.join(args.out, f"zoo_{args.device}.json"), "w") as fh:
            json.dump({"rows": rows, "raw": raw, "argv": sys.argv}, fh, indent=1, default=str)
        with open(os.path.join(args.out, f"zoo_{args.device}.md"), "w") as fh:
            fh.write(table + "\n\n" + text + "\n")
    return 1 if any(r["worse"] for r in rows) and not args.no_check else 0


def main(argv: list[str] | None = None) -> int:
    global SHAPES
    args = _parse(argv)
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return 0
    if args.report:  # the table again from a run's JSON lines (one stopped early, too)
        with open(args.report) as fh:
            results = [json.loads(line) for line in fh if line.strip()]
        SHAPES = tuple(s for s in SHAPES if any(r["shape"] == s for r in results))
        return _report(group(results), args)
    names = _names(args)
    samples = 1 if args.quick and args.samples == 3 else args.samples
    SHAPES = tuple(s for s in args.shapes.split(",") if s in SHAPES)
    backend = BACKEND[args.device]
    print(
        f"bench.zoo: {len(names)} models × {SHAPES} × {samples} samples per mode, {args.device}"
        f" ({backend}), clock {args.clock}, {args.workers} at once",
        flush=True,
    )
    raw_path = None
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        raw_path = os.path.join(args.out, f"zoo_{args.device}_raw.jsonl")
        open(raw_path, "w").close()
    runs = run_all(names, backend, samples, args.workers, args.timeout, args.clock, raw_path)
    return _report(runs, args)


if __name__ == "__main__":
    raise SystemExit(main())
