"""Compile time and kernel quality of torch.compile with and without indexalg.inductor.

    python -m bench.inductor                       # the TABLE workloads, C++ and Triton paths
    python -m bench.inductor --workloads all --backends cpp --shapes static dynamic
    python -m bench.inductor --backends triton --repeat 3 --clock cpu --json out.json
    python3 -m bench.inductor --workloads all --repeat 5 --clock cpu --jobs 8   # 16 cores

Each (workload, backend, shape mode, stock | plug-in) compiles in a fresh process with
caches disabled (``TORCHINDUCTOR_FORCE_DISABLE_CACHES=1``), ``--repeat`` times per mode,
stock and plug-in interleaved (stock, plug-in, plug-in, stock, ...); a row gives the median
seconds and the ratio of the minima.  ``--clock cpu`` counts CPU seconds of the compiling
process and of g++ (one compile thread, so g++ is a waited-for child), steadier than wall
time on a loaded machine.  ``INDEXALG_BENCH_DUMP=DIR`` writes every kernel's source.
A worker reports: first-call seconds (compile, for C++ also the g++ run), the
seconds inside index arithmetic (``bench.inductor_timing``: the covered entry points, and
the rest), the plug-in's counters, the div/mod count of every generated kernel (from its
source), and whether the output equals eager (C++; the Triton path only generates code on
this CPU machine: ``cpu_backend="triton"``, stopped after code generation, as the corpus
harvester does).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

BACKENDS = ("cpp", "triton")
SHAPES = ("static", "dynamic")
MODES = ("stock", "plugin")

# Division / remainder in generated source: C++ (``c10::div_floor_integer``, ``c10::div_mod``,
# ModularIndexing's ``%``) and Triton (``//``, ``%``, ``triton_helpers`` floor helpers).
_DIVMOD = re.compile(r"div_floor_integer|div_mod\(|remainder_integer| // | % ")


def divmod_count(src: str) -> int:
    """Division / remainder operators in a kernel's source (comment lines aside)."""
    n = 0
    for line in src.splitlines():
        if line.lstrip().startswith(("#", "//")):
            continue
        n += len(_DIVMOD.findall(line))
    return n


def _kernels_from_cpp_wrapper(code: str) -> list[tuple[str, str]]:
    """(name, source) of each C++ kernel in an Inductor output module."""
    out = []
    for m in re.finditer(
        r"(\w+) = async_compile\.cpp_pybinding\(\[[^\]]*\], r?'''(.*?)'''\)", code, re.S
    ):
        out.append((m.group(1), m.group(2)))
    if not out:
        for m in re.finditer(
            r"(\w+) = async_compile\.cpp_pybinding\(\[[^\]]*\], (?:r)?\"\"\"(.*?)\"\"\"", code, re.S
        ):
            out.append((m.group(1), m.group(2)))
    return out


def cpu_seconds() -> float:
    """CPU seconds of this process and of its waited-for children (g++), user + system."""
    import resource

    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + ch.ru_utime + ch.ru_stime


# =======================================================================================
# worker: one compile in this process


#: Called with True as a worker's timed compile starts and False as it ends (the stack
#: sampler of ``bench.inductor_profile`` counts only in between).
COMPILE_HOOKS: list[Any] = []


def _worker(name: str, backend: str, shape: str, mode: str) -> dict[str, Any]:
    import torch

    from bench import inductor_timing
    from bench.inductor_workloads import BY_NAME

    if mode == "plugin":
        import indexalg.inductor as plug

        plug.install()
    inductor_timing.install()
    from torch._inductor import config

    w = BY_NAME[name]
    inputs = w.inputs()
    result: dict[str, Any] = {"workload": name, "backend": backend, "shape": shape, "mode": mode}
    kernels: list[tuple[str, str]] = []
    torch._dynamo.reset()
    compiled = torch.compile(w.fn, dynamic=(shape == "dynamic"), fullgraph=False)
    # one compile thread: g++ runs as a waited-for child, so its CPU seconds are counted
    config.compile_threads = 1
    for hook in COMPILE_HOOKS:
        hook(True)
    t0, c0 = time.perf_counter(), cpu_seconds()
    if backend == "triton":
        import torch._inductor.codegen.triton as triton_codegen
        import torch._inductor.graph as inductor_graph
        import torch.utils._triton as utils_triton

        class CodegenComplete(Exception):
            pass

        utils_triton.triton_hash_with_backend = lambda: "INDEXALG-BENCH"
        orig_define = triton_codegen.TritonScheduling.define_kernel

        def define_kernel(self: Any, src_code: str, node_schedule: Any, kernel: Any) -> Any:
            name_out = orig_define(self, src_code, node_schedule, kernel)
            kernels.append((str(name_out), src_code))
            return name_out

        def stop(self: Any, wrapper_code: Any) -> Any:
            raise CodegenComplete()

        triton_codegen.TritonScheduling.define_kernel = define_kernel
        inductor_graph.GraphLowering._compile_to_module_lines = stop
        with config.patch(cpu_backend="triton", compile_threads=1), torch.no_grad():
            try:
                compiled(*inputs)
                result["error"] = "codegen did not stop"
            except Exception as exc:  # the stop signal, wrapped by dynamo
                chain: BaseException | None = exc
                while chain is not None and not isinstance(chain, CodegenComplete):
                    chain = chain.__cause__ or chain.__context__
                if chain is None:
                    result["error"] = f"{type(exc).__name__}: {exc}"[:500]
        result["equal_eager"] = None
    else:
        from torch._inductor.utils import run_and_get_code

        with torch.no_grad():
            out, codes = run_and_get_code(compiled, *inputs)
        for code in codes:
            kernels.extend(_kernels_from_cpp_wrapper(code))
        with torch.no_grad():
            ref = w.fn(*inputs)
        try:
            torch.testing.assert_close(out, ref, atol=w.atol, rtol=w.rtol, equal_nan=True)
            result["equal_eager"] = True
        except AssertionError as exc:
            result["equal_eager"] = False
            result["mismatch"] = str(exc)[:300]
        result["output_digest"] = _digest(out)
    result["compile_wall_s"] = time.perf_counter() - t0
    result["compile_cpu_s"] = cpu_seconds() - c0
    for hook in COMPILE_HOOKS:
        hook(False)
    result["compile_s"] = result[f"compile_{inductor_timing.CLOCK_NAME}_s"]
    result["clock"] = inductor_timing.CLOCK_NAME
    result["index_s"] = dict(inductor_timing.SECONDS)
    result["index_calls"] = dict(inductor_timing.CALLS)
    result["index_by_function"] = dict(sorted(inductor_timing.BY_FUNCTION.items()))
    result["kernels"] = [(k, divmod_count(src)) for k, src in kernels]
    dump = os.environ.get("INDEXALG_BENCH_DUMP")
    if dump:  # every kernel's source, to read a div/mod difference
        os.makedirs(dump, exist_ok=True)
        for k, src in kernels:
            with open(os.path.join(dump, f"{name}.{backend}.{shape}.{mode}.{k}.src"), "w") as fh:
                fh.write(src)
    result["missing_timers"] = list(inductor_timing.MISSING)
    if mode == "plugin":
        import indexalg.inductor as plug

        result["plugin"] = plug.counters()
    return result


def _digest(out: Any) -> list[Any]:
    """The outputs as nested lists of floats (to compare stock and plug-in exactly)."""
    import torch

    if isinstance(out, torch.Tensor):
        return [out.detach().double().flatten().tolist()]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _digest(o)]
    return []


# =======================================================================================
# driver


def run_one(
    name: str,
    backend: str,
    shape: str,
    mode: str,
    timeout: float,
    clock: str = "wall",
    *,
    module: str = "bench.inductor",
    extra: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One compile in a fresh process, caches off: ``python -m MODULE --worker ... EXTRA``
    (this module's worker, or another's with the same worker arguments); the last JSON line
    it prints, or an ``error``."""
    env = dict(os.environ)
    env["TORCHINDUCTOR_FORCE_DISABLE_CACHES"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env["INDEXALG_BENCH_CLOCK"] = clock
    env.pop("INDEXALG_INDUCTOR", None)
    cmd = [sys.executable, "-m", module, "--worker", name, backend, shape, mode, *extra]
    try:
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {
            "workload": name,
            "backend": backend,
            "shape": shape,
            "mode": mode,
            "error": "timeout",
        }
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith("{"):
            return dict(json.loads(line))
    tail = (proc.stderr or proc.stdout)[-800:]
    return {"workload": name, "backend": backend, "shape": shape, "mode": mode, "error": tail}


def run_repeated(
    name: str, backend: str, shape: str, repeat: int, timeout: float, clock: str
) -> dict[str, list[dict[str, Any]]]:
    """``repeat`` fresh-process compiles per mode, interleaved (stock, plug-in, plug-in,
    stock, ...) so that a change in the machine's load falls on both alike."""
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in MODES}
    for i in range(repeat):
        for mode in MODES if i % 2 == 0 else tuple(reversed(MODES)):
            runs[mode].append(run_one(name, backend, shape, mode, timeout, clock))
    return runs


def aggregate(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One mode's repeated runs as one result: the first run's kernels, outputs and
    counters; compile and index seconds as the median (``*_min``: the minimum)."""
    bad = [r for r in runs if "error" in r]
    if bad:
        return bad[0]
    out = dict(runs[0])
    times = [r["compile_s"] for r in runs]
    out["compile_s"] = statistics.median(times)
    out["compile_min_s"] = min(times)
    out["compile_all_s"] = times
    out["index_s"] = {
        g: statistics.median(r["index_s"][g] for r in runs) for g in runs[0]["index_s"]
    }
    by_fn: dict[str, list[float]] = {}
    for r in runs:
        for fn, sec in r["index_by_function"].items():
            by_fn.setdefault(fn, []).append(sec)
    out["index_by_function"] = {
        fn: statistics.median(v + [0.0] * (len(runs) - len(v))) for fn, v in sorted(by_fn.items())
    }
    out["kernels_differ_between_repeats"] = any(r["kernels"] != runs[0]["kernels"] for r in runs)
    return out


def compare(stock: dict[str, Any], plug: dict[str, Any]) -> dict[str, Any]:
    """Ratios and checks of one (workload, backend, shape) pair."""
    row: dict[str, Any] = {k: stock[k] for k in ("workload", "backend", "shape")}
    for tag, r in (("stock", stock), ("plugin", plug)):
        if "error" in r:
            row[f"{tag}_error"] = r["error"]
    if "error" in stock or "error" in plug:
        return row
    row["compile_stock"] = stock["compile_s"]
    row["compile_plugin"] = plug["compile_s"]
    row["compile_ratio"] = plug["compile_s"] / stock["compile_s"]
    if "compile_min_s" in stock and "compile_min_s" in plug:
        row["compile_min_stock"] = stock["compile_min_s"]
        row["compile_min_plugin"] = plug["compile_min_s"]
        row["compile_min_ratio"] = plug["compile_min_s"] / stock["compile_min_s"]
        row["compile_all_stock"] = stock["compile_all_s"]
        row["compile_all_plugin"] = plug["compile_all_s"]
    row["index_by_function_stock"] = stock.get("index_by_function", {})
    row["index_by_function_plugin"] = plug.get("index_by_function", {})
    row["covered_stock"] = stock["index_s"]["covered"]
    row["covered_plugin"] = plug["index_s"]["covered"]
    row["other_stock"] = stock["index_s"]["other"]
    row["other_plugin"] = plug["index_s"]["other"]
    sk, pk = stock["kernels"], plug["kernels"]
    row["kernels"] = len(pk)
    row["divmod_stock"] = sum(n for _, n in sk)
    row["divmod_plugin"] = sum(n for _, n in pk)
    same_kernels = [a[0] for a in sk] == [b[0] for b in pk]
    row["kernel_names_match"] = same_kernels
    row["kernels_worse"] = [a[0] for a, b in zip(sk, pk) if b[1] > a[1]] if same_kernels else None
    row["equal_eager"] = plug.get("equal_eager")
    row["stock_equal_eager"] = stock.get("equal_eager")
    if "output_digest" in stock:
        import math

        a, b = stock["output_digest"], plug["output_digest"]
        row["equal_stock"] = len(a) == len(b) and all(
            len(x) == len(y)
            and all(
                u == v or (math.isnan(u) and math.isnan(v)) or abs(u - v) <= 1e-5 * (1 + abs(u))
                for u, v in zip(x, y)
            )
            for x, y in zip(a, b)
        )
    row["plugin"] = plug.get("plugin", {})
    return row


def _fmt_table(rows: list[dict[str, Any]]) -> str:
    head = (
        "| workload | backend | shapes | compile stock s | plug-in s | ratio | min ratio |"
        " covered stock s | covered plug-in s | covered ratio | other index s (stock / plug-in) |"
        " div/mod stock → plug-in |"
    )
    lines = [head, "|" + "---|" * 12]
    for r in rows:
        if "compile_stock" not in r:
            lines.append(
                f"| {r['workload']} | {r['backend']} | {r['shape']} | error | | | | | | | | |"
            )
            continue
        cov_ratio = (
            r["covered_stock"] / r["covered_plugin"] if r["covered_plugin"] else float("inf")
        )
        min_ratio = f"{r['compile_min_ratio']:.3f}" if "compile_min_ratio" in r else ""
        lines.append(
            f"| {r['workload']} | {r['backend']} | {r['shape']} | {r['compile_stock']:.2f} |"
            f" {r['compile_plugin']:.2f} | {r['compile_ratio']:.3f} | {min_ratio} |"
            f" {r['covered_stock']:.3f} | {r['covered_plugin']:.3f} | {cov_ratio:.1f}× |"
            f" {r['other_stock']:.3f} / {r['other_plugin']:.3f} |"
            f" {r['divmod_stock']} → {r['divmod_plugin']} |"
        )
    return "\n".join(lines)


def summarise(rows: list[dict[str, Any]]) -> str:
    out = []
    for backend in BACKENDS:
        for shape in SHAPES:
            sel = [
                r
                for r in rows
                if r["backend"] == backend and r["shape"] == shape and "compile_stock" in r
            ]
            if sel:
                out.append(_summary_line(backend, shape, sel))
    return "\n".join(out)


def _summary_line(backend: str, shape: str, sel: list[dict[str, Any]]) -> str:
    ratios = [r["compile_ratio"] for r in sel]
    min_ratios = [r.get("compile_min_ratio", r["compile_ratio"]) for r in sel]
    cov_s = sum(r["covered_stock"] for r in sel)
    cov_p = sum(r["covered_plugin"] for r in sel)
    oth_s = sum(r["other_stock"] for r in sel)
    oth_p = sum(r["other_plugin"] for r in sel)
    worse = [r["workload"] for r in sel if r["kernels_worse"]]
    return (
        f"{backend} {shape}: {len(sel)} workloads; median compile stock "
        f"{statistics.median(r['compile_stock'] for r in sel):.2f} s, plug-in "
        f"{statistics.median(r['compile_plugin'] for r in sel):.2f} s; median ratio "
        f"{statistics.median(ratios):.3f} (change {100 * (statistics.median(ratios) - 1):+.1f}%;"
        f" max {max(ratios):.3f}, {sum(x > 1 for x in ratios)} above 1); median of min ratios "
        f"{statistics.median(min_ratios):.3f} ({sum(x > 1 for x in min_ratios)} above 1);"
        f" covered entry points {cov_s:.2f} s -> {cov_p:.2f} s "
        f"({cov_s / cov_p if cov_p else float('inf'):.1f}x); other index arithmetic "
        f"{oth_s:.2f} s -> {oth_p:.2f} s; div/mod {sum(r['divmod_stock'] for r in sel)} -> "
        f"{sum(r['divmod_plugin'] for r in sel)}; kernels with more div/mod: "
        f"{', '.join(worse) if worse else 'none'}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.inductor", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--worker", nargs=4, metavar=("WORKLOAD", "BACKEND", "SHAPE", "MODE"))
    p.add_argument("--workloads", nargs="*", default=None, help="names, or 'all' (default: TABLE)")
    p.add_argument("--backends", nargs="*", default=list(BACKENDS), choices=BACKENDS)
    p.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=SHAPES)
    p.add_argument("--repeat", type=int, default=3, help="fresh-process compiles per mode")
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="cpu: CPU seconds of the compiling process and g++ (steadier on a loaded machine)",
    )
    p.add_argument("--timeout", type=float, default=600.0)
    p.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="rows compiled at once (a machine with cores to spare: the GPU machine's 16)",
    )
    p.add_argument("--json", help="write every worker result and comparison here")
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(*args.worker)))
        return 0
    from bench.inductor_workloads import TABLE, WORKLOADS

    if args.workloads == ["all"]:
        names = [w.name for w in WORKLOADS]
    else:
        names = list(args.workloads or TABLE)
    keys = [(n, b, s) for n in names for b in args.backends for s in args.shapes]

    def one(key: tuple[str, str, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        runs = run_repeated(*key, args.repeat, args.timeout, args.clock)
        row = compare(aggregate(runs["stock"]), aggregate(runs["plugin"]))
        print(_fmt_table([row]).splitlines()[-1], flush=True)
        return row, runs["stock"] + runs["plugin"]

    # --jobs rows at once (each its own interleaved fresh processes); the table keeps the
    # order of the keys whatever order they finish in
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        done = list(pool.map(one, keys))
    rows = [row for row, _ in done]
    raw = [r for _, runs in done for r in runs]
    print()
    print(
        f"clock: {args.clock}; {args.repeat} fresh-process compiles per mode, interleaved;"
        f" {args.jobs} row(s) at once"
    )
    print("compile and index seconds: medians; min ratio: fastest plug-in / fastest stock")
    print(_fmt_table(rows))
    print()
    print(summarise(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "raw": raw}, fh, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
