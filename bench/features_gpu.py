"""Kernel-level features end to end on the GPU, in one run (issue 9).

Run on the GPU machine from the source tree (``PYTHONPATH=.``, z3 available)::

    python3 -m bench.features_gpu --out DIR

Writes ``DIR/features_gpu.json`` (every number), ``DIR/debug_print.txt`` (the printer's output)
and prints a short table last.  Parts (each guarded: a failure is recorded, the rest runs):

* ``debug``: the value printer on a generated kernel and a user-defined ``@triton.jit`` kernel
  (through the central launch path), a kernel-name filter, ``.pt`` files read back.
* ``combo``: 100 foreach-add tensors of mixed sizes (two size sets) and a set of 2-D members
  (transposes beside 1-D members), each as one combo with one XBLOCK for all parts and with
  per-part blocks/tiles, verified against ``torch._foreach_add``; timed launched per call
  (``launch_combo``), as a bound launch (``ComboKernel.bind``) and as CUDA-graph replays,
  against ``torch._foreach_add`` (``do_bench`` medians and host µs per call).
* ``combo_host``: the host cost of the combo launch's Python path, on the CPU (runs without a
  GPU: ``--parts combo_host``).
* ``reduction``: a short (32768 x 256) and a long (128 x 131072) row sum as multi-kernels:
  both variants timed (``do_bench`` median), the choice, the cache hit, the result verified.
* ``template``: the matmul template with a fused bias + ReLU epilogue and a post-store ``raw``
  output (1024 x 1024 x 1024 float32, ``input_precision="ieee"``), against torch.
* ``multi_output``: ``mean_var`` (one operation, two outputs) persistent and looped against
  ``torch.var_mean``.
* ``host_descriptors``: the models suite's transposes with pointer tiles against host-side
  ``TensorDescriptor`` loads (and stores), built once per launch (issue 14).
* ``eviction``: the cache hints of the generated loads measured on and off, and split
  col_mean tile shapes (issue 14).
* ``determinism``: every kernel kind generated in subprocesses under two ``PYTHONHASHSEED``
  values, with this machine's Triton (block pointers included where it has them).
"""

from __future__ import annotations

import argparse
import functools
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _bench(fn: Callable[[], Any], rep: int = 200) -> float:
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=25, rep=rep, return_mode="median"))


def _graph_ms(fn: Callable[[], Any], replays: int = 50) -> float:
    """Median milliseconds of one replay of a CUDA graph capturing ``fn``."""
    import torch

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return _bench(g.replay, rep=replays)


def part_debug(out: Path) -> dict[str, Any]:
    import torch
    import triton
    import triton.language as tl

    from indexalg_triton.codegen import generate
    from indexalg_triton.combo import foreach_add_spec
    from indexalg_triton.debug import available_kernels, debug_printing
    from indexalg_triton.runtime import launch, launch_user_kernel

    @triton.jit
    def user_scale(x, y, n, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
        i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y + i, tl.load(x + i, i < n) * 3.0, i < n)

    src = generate(foreach_add_spec("gpu_dbg_add", (6,), alpha=2.0), kinds=())
    ts = {
        "a": torch.randn(6, device="cuda"),
        "b": torch.randn(6, device="cuda"),
        "out": torch.full((6,), float("nan"), device="cuda"),
    }
    x = torch.randn(1000, device="cuda")
    y = torch.empty_like(x)
    buf = io.StringIO()
    save = Path(tempfile.mkdtemp())
    with debug_printing(stream=buf, save_dir=save):
        launch(src, ts)
        launch_user_kernel(user_scale, (4,), x, y, 1000, BLOCK=256)
    filtered = io.StringIO()
    with debug_printing(stream=filtered, kernels=["user_scale"]):
        launch(src, ts)
        launch_user_kernel(user_scale, (4,), x, y, 1000, BLOCK=256)
    text = buf.getvalue()
    (out / "debug_print.txt").write_text(text)
    files = sorted(os.listdir(save))
    back = torch.load(save / files[-1])
    return {
        "ok": (
            "[ after_launch - gpu_dbg_add - out ]:" in text
            and "[ after_launch - user_scale - y ]:" in text
            and "device: cuda:0" in text
            and "gpu_dbg_add" not in filtered.getvalue()
            and "user_scale" in filtered.getvalue()
            and torch.equal(back, y.cpu())
        ),
        "printed_lines": len(text.splitlines()),
        "saved_files": len(files),
        "kernel_names_logged": list(available_kernels()),
        "excerpt": text.split("[ after_launch - gpu_dbg_add - out ]:")[1].splitlines()[:11],
    }


def _host_us(fn: Callable[[], Any], calls: int = 300) -> float:
    """Host microseconds per call of ``fn`` (``calls`` back to back, one synchronisation
    before; the GPU queue absorbs the launches, so this is the Python + launcher cost)."""
    import torch

    fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    return host


def _combo_ways(
    combo: Any, ts: list[dict[str, Any]], foreach: Callable[[], Any]
) -> dict[str, float]:
    """One combo launched three ways (through Triton's JIT every call, as ``launch_combo``
    did before; per-call ``launch_combo``; a bound launch) against ``foreach``: do_bench
    medians and host µs per call, and CUDA-graph replays (device time), all in µs."""
    from indexalg_triton import runtime
    from indexalg_triton.combo import _combo_args, launch_combo

    bound = combo.bind(ts)
    bound()
    kernel = runtime.compile_source(combo.source, combo.name)
    args, grid, meta = _combo_args(combo, ts), (combo.grid,), {"num_warps": combo.num_warps}
    ways = {
        "jit": lambda: runtime.run_kernel(combo.name, kernel, grid, args, meta),
        "launch_combo": lambda: launch_combo(combo, ts),
        "bound": bound,
        "torch_foreach": foreach,
    }
    out: dict[str, float] = {}
    for way, fn in ways.items():
        out[f"{way}_us"] = _bench(fn) * 1e3
        out[f"{way}_host_us"] = _host_us(fn)
    for way in ("bound", "torch_foreach"):
        try:
            out[f"{way}_graph_us"] = _graph_ms(ways[way]) * 1e3
        except Exception:  # recorded as missing
            out[f"{way}_graph_us"] = float("nan")
    out["bound_fast_path"] = float(bound.fast)
    out["launch_combo_fast_path"] = float(bool(combo._direct))
    return out


def part_combo(n_tensors: int = 100) -> dict[str, Any]:
    """100 foreach-add tensors of mixed sizes (the earlier 1,000..31,999 set, and 1..514,643
    elements), and 2-D members (transposes beside 1-D members), against ``torch._foreach_add``."""
    import torch

    from indexalg_triton.combo import combine, foreach_add_spec, launch_combo

    sets = {
        "sizes_1k_32k": [1000 + (i * 7919) % 31000 for i in range(n_tensors)],
        "sizes_1_512k": [max(1, (i * 104729) % (1 << (1 + i % 19))) for i in range(n_tensors)],
    }
    res: dict[str, Any] = {"ok": True}
    for label, sizes in sets.items():
        specs = [foreach_add_spec(f"fe{i}", (n,), alpha=0.5) for i, n in enumerate(sizes)]
        ts = [
            {
                "a": torch.randn(n, device="cuda"),
                "b": torch.randn(n, device="cuda"),
                "out": torch.full((n,), float("nan"), device="cuda"),
            }
            for n in sizes
        ]
        a_list, b_list = [t["a"] for t in ts], [t["b"] for t in ts]
        refs = torch._foreach_add(a_list, b_list, alpha=0.5)
        for how, kw in (("one_xblock", {"xblock": 1024}), ("per_part", {})):
            t0 = time.perf_counter()
            combo = combine(specs, name=f"fe_{label}_{how}", **kw)  # type: ignore[arg-type]
            gen_s = time.perf_counter() - t0
            for t in ts:
                t["out"].fill_(float("nan"))
            t0 = time.perf_counter()
            launch_combo(combo, ts)
            torch.cuda.synchronize()
            ok = all(torch.allclose(t["out"], r, rtol=1e-6, atol=0) for t, r in zip(ts, refs))
            row: dict[str, Any] = {
                "ok": ok,
                "programs": combo.grid,
                "codegen_s": gen_s,
                "first_launch_s": time.perf_counter() - t0,
            }
            row.update(
                _combo_ways(
                    combo, ts, functools.partial(torch._foreach_add, a_list, b_list, alpha=0.5)
                )
            )
            res[f"{label} {how}"] = row
            res["ok"] = res["ok"] and ok
            print(
                label,
                how,
                {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()},
                flush=True,
            )
        res[f"{label} elements"] = sum(sizes)
    res.update(_combo_2d())
    return res


def _combo_2d() -> dict[str, Any]:
    """20 transposes (``out = a.t() + 0.5*b``, 2-D tiles where the planner tiles 2-D) and 20
    contiguous 1-D members in one combo, against ``torch._foreach_add`` on the same views."""
    import torch

    from indexalg_triton.combo import combine, foreach_add_spec, launch_combo, transpose_add_spec

    shapes = [(96 + 37 * i, 100 + 53 * i) for i in range(20)]
    flat = [1 + (i * 7919) % 30000 for i in range(20)]
    specs = [transpose_add_spec(f"tr{i}", r, c, alpha=0.5) for i, (r, c) in enumerate(shapes)]
    specs += [foreach_add_spec(f"fl{i}", (n,), alpha=0.5) for i, n in enumerate(flat)]
    ts = [
        {
            "a": torch.randn(c, r, device="cuda"),
            "b": torch.randn(r, c, device="cuda"),
            "out": torch.empty(r, c, device="cuda"),
        }
        for r, c in shapes
    ]
    ts += [
        {
            "a": torch.randn(n, device="cuda"),
            "b": torch.randn(n, device="cuda"),
            "out": torch.empty(n, device="cuda"),
        }
        for n in flat
    ]
    a_list = [t["a"].t() if t["a"].dim() == 2 else t["a"] for t in ts]
    b_list = [t["b"] for t in ts]
    refs = torch._foreach_add(a_list, b_list, alpha=0.5)
    out: dict[str, Any] = {}
    for how, kw in (("one_xblock_1d", {"xblock": 1024}), ("per_part_2d", {})):
        combo = combine(specs, name=f"tr_{how}", **kw)  # type: ignore[arg-type]
        for t in ts:
            t["out"].fill_(float("nan"))
        launch_combo(combo, ts)
        torch.cuda.synchronize()
        ok = all(torch.allclose(t["out"], r, rtol=1e-6, atol=0) for t, r in zip(ts, refs))
        row: dict[str, Any] = {
            "ok": ok,
            "programs": combo.grid,
            "parts_2d": sum("YBLOCK" in dict(p.blocks) for p in combo.parts),
        }
        row.update(_combo_ways(combo, ts, lambda: torch._foreach_add(a_list, b_list, alpha=0.5)))
        out[f"2d {how}"] = row
        print(
            "2d",
            how,
            {k: round(v, 2) if isinstance(v, float) else v for k, v in row.items()},
            flush=True,
        )
    return out


def part_combo_host(n_tensors: int = 100, calls: int = 2000) -> dict[str, Any]:
    """Host cost of a combo launch's Python path, on the CPU (no GPU needed): building the
    named argument list (what every call did before), binding once, and a per-call
    ``launch_combo`` and a bound call of the direct path against a launcher that does
    nothing (µs per call)."""
    import torch

    from indexalg_triton import runtime
    from indexalg_triton.combo import _combo_args, combine, foreach_add_spec, launch_combo

    sizes = [1000 + (i * 7919) % 31000 for i in range(n_tensors)]
    combo = combine(
        [foreach_add_spec(f"fe{i}", (n,)) for i, n in enumerate(sizes)], name="host_combo"
    )
    ts = [{"a": torch.empty(n), "b": torch.empty(n), "out": torch.empty(n)} for n in sizes]

    def per_call(fn: Callable[[], Any]) -> float:
        fn()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        return (time.perf_counter() - t0) / calls * 1e6

    class _Noop:  # a compiled kernel whose launcher does nothing
        function, packed_metadata = 0, ()

        @staticmethod
        def run(*args: Any) -> None:
            return None

    class _Param:
        is_constexpr = False

    class _Kernel:
        params = [_Param()] * (3 * n_tensors)

        def __getitem__(self, grid: Any) -> Any:
            return lambda *a, **k: _Noop()

    args = _combo_args(combo, ts)
    saved = runtime._stream_getter
    runtime._stream_getter = lambda: lambda device: 0  # type: ignore[assignment]
    try:
        bound = runtime.bind_kernel("host_combo", _Kernel(), (combo.grid,), args, {})
        bound()
        direct = runtime.direct_launcher(_Kernel(), _Noop(), (combo.grid,), [v for _, v in args])
        assert direct is not None
        combo._direct[:] = [direct]
        res = {
            "ok": bound.fast,
            "tensors": n_tensors,
            "arguments": len(args),
            "launch_combo_us_noop_launcher": per_call(lambda: launch_combo(combo, ts)),
            "build_args_us": per_call(lambda: _combo_args(combo, ts)),
            "bind_us": per_call(
                lambda: runtime.bind_kernel(
                    "host_combo", _Kernel(), (combo.grid,), _combo_args(combo, ts), {}
                )
            ),
            "bound_call_us_noop_launcher": per_call(bound),
        }
    finally:
        runtime._stream_getter = saved  # type: ignore[assignment]
    print(res, flush=True)
    return res


def part_reduction() -> dict[str, Any]:
    import torch

    from indexalg_triton.layout import View
    from indexalg_triton.multikernel import MultiKernel
    from indexalg_triton.spec import SpecBuilder

    out: dict[str, Any] = {}
    for label, rows, cols in [("short", 32768, 256), ("long", 128, 131072)]:
        b = SpecBuilder(f"row_sum_{label}", loops=[("x1", rows)], reduction=("r0", cols))
        b.buffer("x", View.of([rows, cols]))
        b.buffer("out", View.of([rows]), output=True)
        b.store("out", "x1", b.reduce("sum", b.load("x", f"{cols}*x1 + r0")))
        try:
            mk = MultiKernel(b.build())
            x = torch.randn(rows, cols, device="cuda")
            o = torch.full((rows,), float("nan"), device="cuda")
            args = {"x": x, "out": o}
            t0 = time.perf_counter()
            c = mk.run(args)
            first_s = time.perf_counter() - t0
            torch.cuda.synchronize()
            ref = x.double().sum(1)
            err = float((o.double() - ref).abs().max() / ref.abs().max())
            o.fill_(float("nan"))
            t0 = time.perf_counter()
            c2 = mk.run(args)
            torch.cuda.synchronize()
            cached_s = time.perf_counter() - t0
            gb = (rows * cols + rows) * 4 / 1e9
            out[label] = {
                "shape": [rows, cols],
                "persistent_ms": c.persistent_ms,
                "looped_ms": c.looped_ms,
                "chosen": c.chosen,
                "cache_hit": c2 is c,
                "first_run_s": first_s,
                "cached_run_s": cached_s,
                "rel_error": err,
                "ok": err <= 1e-4 and c2 is c,
                "persistent_config": mk.variants["persistent"].config.describe(),
                "looped_config": mk.variants["looped"].config.describe(),
                "gbs_chosen": gb / (min(c.persistent_ms, c.looped_ms) * 1e-3),
                "same_signature": mk.variants["persistent"].arg_names
                == mk.variants["looped"].arg_names,
            }
        except Exception as err:
            out[label] = {"ok": False, "error": f"{type(err).__name__}: {err}"[:500]}
    return out


def part_template() -> dict[str, Any]:
    import torch

    from indexalg_triton.template import launch_template, matmul_template

    m = n = k = 1024
    hooks = ["body:post_store", "store_output", "def_kernel", "body:inner", "body:prologue"]
    t = matmul_template(
        m, n, k, bias=True, relu=True, raw=True, order=hooks, blocks=(64, 64, 32), num_warps=4
    )
    same = (
        t.source
        == matmul_template(
            m, n, k, bias=True, relu=True, raw=True, blocks=(64, 64, 32), num_warps=4
        ).source
    )
    a, b = torch.randn(m, k, device="cuda"), torch.randn(k, n, device="cuda")
    bias = torch.randn(n, device="cuda")
    out = torch.full((m, n), float("nan"), device="cuda")
    raw = torch.full((m, n), float("nan"), device="cuda")
    tensors = {"a": a, "b": b, "out": out, "bias": bias, "raw": raw}
    launch_template(t, tensors)
    torch.cuda.synchronize()
    mm = a.double() @ b.double()
    ref = (mm + bias.double()).relu()
    err_out = float((out.double() - ref).abs().max() / ref.abs().max())
    err_raw = float((raw.double() - mm).abs().max() / mm.abs().max())
    ms = _bench(lambda: launch_template(t, tensors))
    torch.backends.cuda.matmul.allow_tf32 = False
    ms_torch = _bench(lambda: torch.relu(torch.addmm(bias, a, b)))
    return {
        "ok": err_out <= 1e-5 and err_raw <= 1e-5 and same,
        "rel_error_out": err_out,
        "rel_error_raw": err_raw,
        "order_independent": same,
        "ms": ms,
        "ms_torch_fp32_addmm_relu": ms_torch,
        "args": list(t.arg_names),
    }


def part_multi_output() -> dict[str, Any]:
    import torch

    from indexalg_triton.codegen import Config, generate
    from indexalg_triton.layout import View
    from indexalg_triton.runtime import launch
    from indexalg_triton.spec import SpecBuilder

    rows, cols = 4096, 4096
    b = SpecBuilder("mean_var_gpu", loops=[("x1", rows)], reduction=("r0", cols))
    b.buffer("x", View.of([rows, cols]))
    b.buffer("mean", View.of([rows]), output=True)
    b.buffer("var", View.of([rows]), output=True)
    mean, var = b.multi("mean_var", b.load("x", f"{cols}*x1 + r0"))
    b.store("mean", "x1", mean)
    b.store("var", "x1", var)
    spec = b.build()
    x = torch.randn(rows, cols, device="cuda") * 3 + 2
    v64, m64 = torch.var_mean(x.double(), dim=1, correction=0)
    res: dict[str, Any] = {"ok": True}
    for label, cfg in [
        ("persistent", Config.of(8, XBLOCK=1, RBLOCK=4096)),
        ("looped", Config.of(8, XBLOCK=1, RBLOCK=1024)),
    ]:
        src = generate(spec, cfg, kinds=())
        ts = {
            "x": x,
            "mean": torch.full((rows,), float("nan"), device="cuda"),
            "var": torch.full((rows,), float("nan"), device="cuda"),
        }
        launch(src, ts)
        torch.cuda.synchronize()
        em = float((ts["mean"].double() - m64).abs().max() / m64.abs().max())
        ev = float((ts["var"].double() - v64).abs().max() / v64.abs().max())
        ms = _bench(lambda src=src, ts=ts: launch(src, ts))
        res[label] = {
            "rel_error_mean": em,
            "rel_error_var": ev,
            "ms": ms,
            "gbs": rows * cols * 4 / (ms * 1e-3) / 1e9,
        }
        res["ok"] = res["ok"] and em <= 1e-5 and ev <= 1e-5
    res["ms_torch_var_mean"] = _bench(lambda: torch.var_mean(x, dim=1, correction=0))
    return res


def part_determinism() -> dict[str, Any]:
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "tests" / "triton"))
    from test_determinism import SCRIPT

    script = SCRIPT.replace(
        'TD = ("tensor_descriptor",)',
        "from indexalg_triton.access import supported_kinds\nTD = supported_kinds()",
    )
    outs = []
    for seed in ("0", "977"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        r = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=400,
            check=False,
        )
        if r.returncode:
            return {"ok": False, "error": r.stderr[-800:]}
        outs.append(r.stdout)
    last = outs[0].splitlines()[-1].split()
    return {"ok": outs[0] == outs[1], "kernels": int(last[-1]), "digest": last[1]}


# --- host-side tensor descriptors (issue 14) -----------------------------------------------


@functools.lru_cache(maxsize=1)
def host_descriptor_kernels() -> dict[str, Any]:
    """Batched transposes ``out[b, n, m] = in[b, m, n] * alpha + beta`` (the shape of
    transpose_last2_add and channels_last -> contiguous) and the KV-heads transpose
    ``out[b, h, s, :] = in[b, s, h, :]``, each with plain pointer tiles (what indexalg's
    generated kernels do), with a host-side ``TensorDescriptor`` for the load (built once per
    launch, passed as an argument, no in-kernel descriptor creation) and with host-side
    descriptors for both the load and the store."""
    import triton
    import triton.language as tl

    @triton.jit
    def tr_pointers(x, y, M, N, alpha, beta, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        b = tl.program_id(2).to(tl.int64)
        m = pm * BM + tl.arange(0, BM)[:, None]
        n = pn * BN + tl.arange(0, BN)[None, :]
        mask = (m < M) & (n < N)
        v = tl.load(x + b * M * N + m * N + n, mask) * alpha + beta
        tl.store(y + b * M * N + n * M + m, v, mask)

    @triton.jit
    def tr_desc_load(xd, y, M, N, alpha, beta, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        b = tl.program_id(2)
        v = xd.load([b, pm * BM, pn * BN]).reshape(BM, BN) * alpha + beta
        m = pm * BM + tl.arange(0, BM)[:, None]
        n = pn * BN + tl.arange(0, BN)[None, :]
        tl.store(y + b.to(tl.int64) * M * N + n * M + m, v, (m < M) & (n < N))

    @triton.jit
    def tr_desc_both(xd, yd, M, N, alpha, beta, BM: tl.constexpr, BN: tl.constexpr):  # type: ignore[no-untyped-def]
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        b = tl.program_id(2)
        v = xd.load([b, pm * BM, pn * BN]).reshape(BM, BN) * alpha + beta
        yd.store([b, pn * BN, pm * BM], tl.trans(v).reshape(1, BN, BM))

    @triton.jit
    def kv_pointers(x, y, S, H, D: tl.constexpr, SB: tl.constexpr):  # type: ignore[no-untyped-def]
        ps = tl.program_id(0)
        h = tl.program_id(1).to(tl.int64)
        b = tl.program_id(2).to(tl.int64)
        s = ps * SB + tl.arange(0, SB)[:, None]
        d = tl.arange(0, D)[None, :]
        v = tl.load(x + ((b * S + s) * H + h) * D + d, s < S)
        tl.store(y + ((b * H + h) * S + s) * D + d, v, s < S)

    @triton.jit
    def kv_desc_both(xd, yd, S, H, D: tl.constexpr, SB: tl.constexpr):  # type: ignore[no-untyped-def]
        ps = tl.program_id(0)
        h = tl.program_id(1)
        b = tl.program_id(2)
        v = xd.load([b, ps * SB, h, 0]).reshape(SB, D)
        yd.store([b, h, ps * SB, 0], v.reshape(1, 1, SB, D))

    return {
        "tr_pointers": tr_pointers,
        "tr_desc_load": tr_desc_load,
        "tr_desc_both": tr_desc_both,
        "kv_pointers": kv_pointers,
        "kv_desc_both": kv_desc_both,
    }


def run_transpose(
    kind: str, x: Any, y: Any, alpha: float, beta: float, bm: int, bn: int, num_warps: int = 4
) -> None:
    """``y = x.transpose(1, 2) * alpha + beta`` (x, y contiguous 3-D) with the kernel of
    ``kind``: ``pointers``, ``desc_load`` or ``desc_both``; descriptors built here, once."""
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor

    k = host_descriptor_kernels()
    b, m, n = x.shape
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn), b)
    xa: Any = x
    ya: Any = y
    if kind != "pointers":
        xa = TensorDescriptor.from_tensor(x, [1, bm, bn])
    if kind == "desc_both":
        ya = TensorDescriptor.from_tensor(y, [1, bn, bm])
    k[f"tr_{kind}"][grid](xa, ya, m, n, alpha, beta, BM=bm, BN=bn, num_warps=num_warps)


def run_kv(kind: str, x: Any, y: Any, sb: int, num_warps: int = 4) -> None:
    """``y = x.transpose(1, 2).contiguous()`` for x (B, S, H, D), y (B, H, S, D)."""
    import triton
    from triton.tools.tensor_descriptor import TensorDescriptor

    k = host_descriptor_kernels()
    b, s, h, d = x.shape
    grid = (triton.cdiv(s, sb), h, b)
    if kind == "pointers":
        k["kv_pointers"][grid](x, y, s, h, D=d, SB=sb, num_warps=num_warps)
        return
    xd = TensorDescriptor.from_tensor(x, [1, sb, 1, d])
    yd = TensorDescriptor.from_tensor(y, [1, 1, sb, d])
    k["kv_desc_both"][grid](xd, yd, s, h, D=d, SB=sb, num_warps=num_warps)


def part_host_descriptors() -> dict[str, Any]:
    """The three transposes of the models suite with pointers vs host-side descriptors: each
    variant checked against torch (exact: a transpose, a scale and a shift), then timed."""
    import torch

    out: dict[str, Any] = {}
    cases = [
        ("transpose_last2_add", (64, 2048, 2048), 1.0, 1.0),
        ("channels_last_to_contiguous", (64, 3136, 256), 0.5, 0.0),
    ]
    for name, shape, alpha, beta in cases:
        x = torch.randn(shape, device="cuda")
        ref = (x.transpose(1, 2) * alpha + beta).contiguous()
        y = torch.empty_like(ref)
        row: dict[str, Any] = {"bytes": 2 * x.numel() * 4}
        for kind in ("pointers", "desc_load", "desc_both"):
            for bm, bn, w in ((64, 64, 8), (64, 64, 4)):
                key = f"{kind} {bm}x{bn} warps={w}"
                try:
                    y.fill_(float("nan"))
                    run_transpose(kind, x, y, alpha, beta, bm, bn, w)
                    ok = bool(torch.equal(y, ref))
                    ms = _bench(
                        lambda k=kind, x=x, y=y, a=alpha, b=beta, bm=bm, bn=bn, w=w: run_transpose(
                            k, x, y, a, b, bm, bn, w
                        )
                    )
                    row[key] = {"us": ms * 1e3, "ok": ok}
                except Exception as err:  # recorded
                    row[key] = {"ok": False, "error": f"{type(err).__name__}: {err}"[:300]}
                print(f"{name} {key}: {row[key]}", flush=True)
        out[name] = row
        del x, y, ref
    x = torch.randn((8, 2048, 32, 128), device="cuda").to(torch.bfloat16)
    ref = x.transpose(1, 2).contiguous()
    y = torch.empty_like(ref)
    row = {"bytes": 2 * x.numel() * 2}
    for kind in ("pointers", "desc_both"):
        for sb, w in ((64, 4), (64, 8)):
            key = f"{kind} SB={sb} warps={w}"
            try:
                y.fill_(float("nan"))
                run_kv(kind, x, y, sb, w)
                ok = bool(torch.equal(y, ref))
                ms = _bench(lambda k=kind, x=x, y=y, sb=sb, w=w: run_kv(k, x, y, sb, w))
                row[key] = {"us": ms * 1e3, "ok": ok}
            except Exception as err:  # recorded
                row[key] = {"ok": False, "error": f"{type(err).__name__}: {err}"[:300]}
            print(f"kv_heads_transpose {key}: {row[key]}", flush=True)
    out["kv_heads_transpose"] = row
    for r in out.values():
        best = {
            k: min(
                (
                    v["us"]
                    for kk, v in r.items()
                    if isinstance(v, dict) and kk.startswith(k) and v.get("ok")
                ),
                default=None,
            )
            for k in ("pointers", "desc_load", "desc_both")
        }
        r["best_us"] = best
    out["ok"] = all(
        v.get("ok", True)
        for r in out.values()
        if isinstance(r, dict)
        for v in r.values()
        if isinstance(v, dict) and "ok" in v
    )
    return out


def _launch_paths(name: str, src: Any, ts: dict[str, Any]) -> dict[str, float]:
    """One ~70 µs kernel timed through ``runtime.launch``, through its ``@triton.jit``
    function called directly, and as a CUDA-graph replay (device time only); and the host
    time of one ``launch`` (1000 launches, one synchronisation)."""
    import torch

    from indexalg_triton.runtime import compile_kernel, launch

    kernel = compile_kernel(src)
    args = [ts[n] for n in src.arg_names]
    meta = {**dict(src.config.blocks), "num_warps": src.config.num_warps}
    grid = (src.grid,)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(1000):
        launch(src, ts)
    torch.cuda.synchronize()
    host_us = (time.perf_counter() - t0) * 1e3
    return {
        f"{name} via launch": _bench(lambda: launch(src, ts)) * 1e3,
        f"{name} direct": _bench(lambda: kernel[grid](*args, **meta)) * 1e3,
        f"{name} graph replay": _graph_ms(lambda: launch(src, ts)) * 1e3,
        f"{name} 1000 launches back to back, us each": host_us,
    }


def part_eviction() -> dict[str, Any]:
    """The models suite's reductions and pointwise stragglers, each config timed with the
    generated cache hints, without ``evict_first``, without ``evict_last`` and with none (the
    same kernel otherwise); and the split col_mean's partial kernel alone and other split
    tile shapes."""
    import dataclasses

    import torch

    from bench.gpu_models import MODELS
    from indexalg_triton import from_torch
    from indexalg_triton.codegen import Config, generate
    from indexalg_triton.runtime import launch, make_outputs

    cases = {
        "layernorm": [Config.of(8, XBLOCK=1, RBLOCK=4096), Config.of(16, XBLOCK=1, RBLOCK=4096)],
        "softmax_scale_mask": [
            Config.of(1, XBLOCK=1, RBLOCK=1024),
            Config.of(8, XBLOCK=4, RBLOCK=1024),
        ],
        "softmax_permuted": [Config.of(16, XBLOCK=8, RBLOCK=4096)],
        "avg_pool": [Config.of(4, False, XBLOCK=1024)],
        "rotary_half": [Config.of(4, False, XBLOCK=1024)],
        "gelu_bias_residual": [Config.of(8, False, XBLOCK=4096)],
        "col_mean": [Config.of(8, XBLOCK=64, RBLOCK=64, SPLIT=4)],
    }
    strip = {
        "hints": (),
        "no_first": (", eviction_policy='evict_first'",),
        "no_last": (", eviction_policy='evict_last'",),
        "none": (", eviction_policy='evict_first'", ", eviction_policy='evict_last'"),
    }
    out: dict[str, Any] = {}

    def variant(src: Any, cut: tuple[str, ...]) -> Any:
        def drop(text: str) -> str:
            for c in cut:
                text = text.replace(c, "")
            return text

        stages = tuple(dataclasses.replace(s, source=drop(s.source)) for s in src.stages)
        return dataclasses.replace(src, source=drop(src.source), stages=stages)

    for name, cfgs in cases.items():
        m = MODELS[name]
        xs = m.inputs("large", "cuda", seed=2)
        spec = from_torch(m.fn, *xs, name=name)
        ts = dict(zip([b.name for b in spec.inputs], xs))
        ts.update(make_outputs(spec, "cuda"))
        if name == "col_mean":
            cfgs = cfgs + [
                Config.of(w, XBLOCK=xb, RBLOCK=rb, SPLIT=n)
                for n in (4, 8)
                for xb, rb, w in (
                    (64, 128, 8),
                    (128, 64, 8),
                    (256, 32, 8),
                    (32, 256, 8),
                    (64, 32, 4),
                )
            ]
        for cfg in cfgs:
            src = generate(spec, cfg)
            for label, cut in strip.items():
                if label != "hints" and cfg not in cases[name]:
                    continue
                v = variant(src, cut)
                try:
                    launch(v, ts)
                    ms = _bench(lambda v=v, ts=ts: launch(v, ts), rep=100)
                    out[f"{name} {cfg.describe()} {label}"] = ms * 1e3
                except Exception as err:  # recorded
                    out[f"{name} {cfg.describe()} {label}"] = f"{type(err).__name__}: {err}"[:200]
            if src.stages:
                st = src.stages[0]
                launch(src, ts)
                ws = {
                    w.name: torch.empty([int(d.payload) for d in w.view.sizes], device="cuda")
                    for w in src.workspaces
                }
                ms = _bench(lambda st=st, ws=ws, ts=ts: launch(st, {**ts, **ws}), rep=100)
                out[f"{name} {cfg.describe()} partial alone"] = ms * 1e3
        if name in ("avg_pool", "rotary_half"):
            out.update(_launch_paths(name, generate(spec, cfgs[0]), ts))
        for k, val in out.items():
            if k.startswith(name + " "):
                print(k, val, flush=True)
        del xs, ts
        torch.cuda.empty_cache()
    out["ok"] = True
    return out


PARTS: dict[str, Callable[..., dict[str, Any]]] = {
    "debug": part_debug,
    "combo": part_combo,
    "combo_host": part_combo_host,
    "reduction": part_reduction,
    "template": part_template,
    "multi_output": part_multi_output,
    "determinism": part_determinism,
    "host_descriptors": part_host_descriptors,
    "eviction": part_eviction,
}


def main(argv: list[str] | None = None) -> int:
    import torch
    import triton

    from indexalg_triton.access import supported_kinds

    ap = argparse.ArgumentParser(prog="bench.features_gpu")
    ap.add_argument("--out", required=True)
    ap.add_argument("--parts", default=",".join(PARTS))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = {
        "env": {
            "torch": torch.__version__,
            "triton": triton.__version__,
            "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else "none (CPU)",
            "kinds": list(supported_kinds()),
        }
    }
    for name in args.parts.split(","):
        t0 = time.perf_counter()
        try:
            data[name] = PARTS[name](out) if name == "debug" else PARTS[name]()
        except Exception as err:
            data[name] = {
                "ok": False,
                "error": f"{type(err).__name__}: {err}"[:800],
                "trace": traceback.format_exc()[-2000:],
            }
        data[name]["wall_s"] = time.perf_counter() - t0
        (out / "features_gpu.json").write_text(json.dumps(data, indent=1, sort_keys=True))
        print(f"{name}: ok={data[name].get('ok')} ({data[name]['wall_s']:.1f} s)", flush=True)
    print(json.dumps(data, indent=1, sort_keys=True)[-6000:])
    return (
        0
        if all(
            data[p].get("ok", all(v.get("ok") for v in data[p].values() if isinstance(v, dict)))
            for p in args.parts.split(",")
        )
        else 1
    )


if __name__ == "__main__":
    sys.exit(main())
