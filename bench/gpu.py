"""GPU benchmark: the built-in workloads as torch eager, torch.compile (default; prefer-N-D
tiling with block pointers; prefer-N-D tiling with tensor descriptors) and indexalg_triton.

Run on a GPU machine from the source tree (``PYTHONPATH=.``)::

    python3 -m bench.gpu --parts verify,ours,int64 --out DIR    # indexalg_triton side
    python3 -m bench.gpu --parts torch --out DIR                # eager and torch.compile
    python3 -m bench.gpu --report DIR [DIR ...]                 # merge into a markdown table
    python3 -m bench.gpu --suite models --out DIR               # bench.gpu_models, one run
    python3 -m bench.gpu --suite models --report DIR            # its table

Each part measures the copy ceiling in its own run (a 1 GiB device-to-device copy, bytes
read plus written over the ``do_bench`` median) and writes ``gpu_<part>.json`` to ``--out``
after every workload (a run cut short keeps what it measured).  Times are
``triton.testing.do_bench`` medians; GB/s counts the fewest bytes the workload must move
(:meth:`indexalg_triton.workloads.Workload.bytes_moved`).

* ``verify``: every workload at the ``small`` size with its default config and at the
  ``medium`` size with every config of its autotuning space (so every access kind the GPU's
  Triton supports runs), against torch eager with poisoned outputs.
* ``ours``: every workload at the ``large`` size: autotuned over the configs that verified,
  the winner verified again at this size, then timed; eager timed alongside.
* ``int64``: int8 unpack with a result of more than 2^31 elements (index dtype int64, checked
  against eager) and the same kernel at the small size (int32).
* ``torch``: eager and the three torch.compile configurations, each checked against eager.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

COMPILE_CONFIGS: dict[str, dict[str, bool]] = {
    "compile": {},
    "compile_nd_bp": {"triton.prefer_nd_tiling": True, "triton.use_block_ptr": True},
    "compile_nd_td": {"triton.prefer_nd_tiling": True, "triton.use_tensor_descriptor": True},
}
COLUMNS = ["eager", "compile", "compile_nd_bp", "compile_nd_td", "indexalg"]


def _bench(fn: Callable[[], Any], rep: int = 200) -> float:
    """Median milliseconds."""
    from triton.testing import do_bench

    return float(do_bench(fn, warmup=25, rep=rep, return_mode="median"))


def copy_ceiling() -> dict[str, float]:
    import torch

    n = (1 << 30) // 4
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    ms = _bench(lambda: dst.copy_(src))
    return {"ms": ms, "gbs": 2 * (1 << 30) / (ms * 1e-3) / 1e9}


class Results:
    def __init__(self, out: Path, part: str) -> None:
        import torch
        import triton

        from indexalg_triton.access import supported_kinds

        self.path = out / f"gpu_{part}.json"
        self.data: dict[str, Any] = {
            "part": part,
            "env": {
                "torch": torch.__version__,
                "triton": triton.__version__,
                "gpu": torch.cuda.get_device_name(),
                "kinds": list(supported_kinds()),
            },
            "rows": {},
            "verify": [],
            "notes": [],
        }
        out.mkdir(parents=True, exist_ok=True)

    def save(self) -> None:
        self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True))

    def row(self, workload: str) -> dict[str, Any]:
        rows: dict[str, dict[str, Any]] = self.data["rows"]
        return rows.setdefault(workload, {})

    def note(self, text: str) -> None:
        print(text, flush=True)
        self.data["notes"].append(text)


def _entry(ms: float, nbytes: int, ceiling: float, **extra: Any) -> dict[str, Any]:
    gbs = nbytes / (ms * 1e-3) / 1e9
    return {"us": ms * 1e3, "gbs": gbs, "pct": 100 * gbs / ceiling, **extra}


def part_verify(res: Results, names: Sequence[str]) -> None:
    from indexalg_triton import workloads as W
    from indexalg_triton.codegen import default_configs
    from indexalg_triton.runtime import verify

    bad_configs: dict[str, list[str]] = {}
    for name in names:
        w = W.get(name)
        for size in ("small", "medium"):
            xs = w.make_inputs(size, "cuda")
            spec = w.spec(size)
            cfgs = default_configs(spec) if size == "medium" else [None]
            for c in cfgs:
                v = verify(f"{name}/{size}", w.fn, xs, spec, c)
                print(v.line(), flush=True)
                res.data["verify"].append(
                    {
                        "line": v.line(),
                        "ok": v.ok,
                        "workload": name,
                        "size": size,
                        "config": v.config,
                    }
                )
                if size == "medium" and not v.ok:
                    bad_configs.setdefault(name, []).append(v.config)
        res.save()
    res.data["failed_configs"] = bad_configs
    res.save()


def part_ours(
    res: Results, names: Sequence[str], ceiling: float, failed: dict[str, list[str]] | None
) -> None:
    import torch

    from indexalg_triton import workloads as W
    from indexalg_triton.codegen import default_configs, generate
    from indexalg_triton.runtime import autotune, bench_kernel, verify

    for name in names:
        w = W.get(name)
        t0 = time.time()
        xs = w.make_inputs("large", "cuda")
        eager_out = w.fn(*xs)
        nbytes = w.bytes_moved(xs, eager_out)
        row = res.row(name)
        row["bytes"] = nbytes
        row["eager"] = _entry(_bench(_call(w.fn, xs)), nbytes, ceiling)
        del eager_out
        spec = w.spec("large")
        # configs that failed at the medium size are left out (the spaces match where the
        # tiling has the same number of axes); the fastest config must then verify here
        bad = set((failed or {}).get(name, []))
        cfgs = [c for c in default_configs(spec) if c.describe() not in bad]
        tensors = dict(zip([b.name for b in spec.inputs], xs))
        from indexalg_triton.runtime import make_outputs

        tensors.update(make_outputs(spec, "cuda"))
        _, timings = autotune(spec, tensors, configs=cfgs)
        best = None
        for cfg, _t in sorted(timings, key=lambda ct: ct[1]):
            v = verify(f"{name}/large", w.fn, xs, spec, cfg)
            print(v.line(), flush=True)
            res.data["verify"].append(
                {
                    "line": v.line(),
                    "ok": v.ok,
                    "workload": name,
                    "size": "large",
                    "config": v.config,
                }
            )
            if v.ok:
                best = cfg
                break
        if best is None:
            res.note(f"{name}: no config verified at the large size; skipped")
            continue
        src = generate(spec, best)
        ms = bench_kernel(src, tensors)
        row["indexalg"] = _entry(
            ms,
            nbytes,
            ceiling,
            config=best.describe(),
            kinds=sorted(set(src.kinds)),
            tiling=src.tiling,
            index_dtype=src.index_dtype,
            verified=v.ok,
            tuning={c.describe(): t * 1e3 for c, t in timings},
        )
        print(
            f"{name}: eager {row['eager']['us']:.1f} us, indexalg {ms * 1e3:.1f} us "
            f"({row['indexalg']['pct']:.1f}% of copy) {best.describe()} "
            f"[{time.time() - t0:.0f}s]",
            flush=True,
        )
        del xs, tensors
        torch.cuda.empty_cache()
        res.save()


def part_int64(res: Results, ceiling: float) -> None:
    import torch

    from indexalg_triton import workloads as W
    from indexalg_triton.codegen import generate
    from indexalg_triton.runtime import autotune, bench_kernel, make_outputs, verify

    w = W.get("int8_unpack")
    out: dict[str, Any] = {}
    for size in ("small", "int64"):
        spec = w.spec(size)
        xs = w.make_inputs(size, "cuda")
        cfg = None
        if size == "int64":
            tensors = dict(zip([b.name for b in spec.inputs], xs))
            tensors.update(make_outputs(spec, "cuda"))
            cfg, _ = autotune(spec, tensors)
            del tensors
        src = generate(spec, cfg)
        v = verify(f"int8_unpack/{size}", w.fn, xs, spec, cfg)
        print(v.line(), flush=True)
        numel = spec.numel()
        entry: dict[str, Any] = {
            "numel": numel,
            "over_2^31": numel > 2**31 - 1,
            "index_dtype": src.index_dtype,
            "reason": src.index_reason,
            "ok": v.ok,
            "line": v.line(),
            "kinds": sorted(set(src.kinds)),
            "config": src.config.describe(),
        }
        if size == "int64":
            tensors = dict(zip([b.name for b in spec.inputs], xs))
            tensors.update(make_outputs(spec, "cuda"))
            ms = bench_kernel(src, tensors, rep=100)
            nbytes = xs[0].numel() + 2 * numel
            entry.update(_entry(ms, nbytes, ceiling))
            del tensors
        out[size] = entry
        del xs
        torch.cuda.empty_cache()
    res.data["int64"] = out
    res.save()


def part_torch(res: Results, names: Sequence[str], ceiling: float) -> None:
    import torch
    import torch._inductor.config as iconfig

    from indexalg_triton import workloads as W

    for key, patch in COMPILE_CONFIGS.items():
        missing = [k for k in patch if not _has_config(iconfig, k)]
        if missing:
            res.note(f"{key}: torch {torch.__version__} has no inductor config {missing}")
    for name in names:
        w = W.get(name)
        xs = w.make_inputs("large", "cuda")
        ref = w.fn(*xs)
        nbytes = w.bytes_moved(xs, ref)
        row = res.row(name)
        row["bytes"] = nbytes
        row["eager"] = _entry(_bench(_call(w.fn, xs)), nbytes, ceiling)
        for key, patch in COMPILE_CONFIGS.items():
            if any(not _has_config(iconfig, k) for k in patch):
                continue
            t0 = time.time()
            torch._dynamo.reset()
            try:
                with iconfig.patch(patch):
                    cf = torch.compile(w.fn)
                    got = cf(*xs)
                    ok = _close(got, ref, xs, w)
                    ms = _bench(_call(cf, xs))
                row[key] = _entry(ms, nbytes, ceiling, verified=ok)
                print(
                    f"{name} {key}: {ms * 1e3:.1f} us ({row[key]['pct']:.1f}%) ok={ok} "
                    f"[{time.time() - t0:.0f}s]",
                    flush=True,
                )
            except Exception as err:  # recorded; the others still run
                res.note(f"{name} {key}: {type(err).__name__}: {str(err)[:200]}")
        del xs, ref
        torch.cuda.empty_cache()
        res.save()


def _meta(t: Any) -> Any:
    import torch

    return torch.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=t.dtype, device="meta")


def part_models(
    res: Results,
    names: Sequence[str],
    ceiling: float,
    deadline: float,
    *,
    dev: str = "cuda",
    size: str = "large",
    space: str = "default",
) -> None:
    """The models suite (bench.gpu_models), one function at a time, everything in one row:
    the small-size verification of every access kind this Triton has (the default config
    with its structured kinds, block pointers alone, pointers alone), then at the large
    size eager, indexalg_triton (tuned over :func:`bench.gpu_models.tuning_space`, the
    fastest config verified again before timing) and the three torch.compile
    configurations, each checked against eager."""
    import torch
    import torch._inductor.config as iconfig

    from bench.gpu_models import MODELS, tuning_space
    from indexalg_triton import from_torch
    from indexalg_triton.access import supported_kinds
    from indexalg_triton.codegen import default_configs, generate
    from indexalg_triton.runtime import autotune, bench_kernel, make_outputs, verify

    kinds = supported_kinds()
    for name in names:
        if time.time() > deadline:
            res.note(f"{name}: skipped (the run's time budget is spent)")
            continue
        m = MODELS[name]
        t0 = time.time()
        row = res.row(name)
        try:
            xs = m.inputs("small", dev, seed=1)
            spec = from_torch(m.fn, *xs, name=name)
            for ks, structured in [(kinds, True), (("block_pointer",), True), ((), False)]:
                if ks and not set(ks) <= set(kinds):
                    continue
                # the tiling (so the block names) can depend on the kinds allowed
                cfg = replace(default_configs(spec, tuple(ks))[0], structured=structured)
                v = verify(f"{name}/small", m.fn, xs, spec, cfg, kinds=ks)
                print(v.line(), flush=True)
                res.data["verify"].append(
                    {
                        "line": v.line(),
                        "ok": v.ok,
                        "workload": name,
                        "size": "small",
                        "config": v.config,
                        "kinds": list(ks),
                    }
                )
            xs = m.inputs(size, dev, seed=2)
            ref = m.fn(*xs)
            nbytes = m.bytes_moved(xs, ref)
            row["bytes"] = nbytes
            row["eager"] = _entry(_bench(_call(m.fn, xs)), nbytes, ceiling)
            spec = from_torch(m.fn, *[_meta(x) for x in xs], name=name)
            tensors = dict(zip([b.name for b in spec.inputs], xs))
            tensors.update(make_outputs(spec, dev))
            _, timings = autotune(
                spec,
                tensors,
                configs=tuning_space(spec, wide=space == "wide", structured=space == "structured"),
            )
            best = None
            for cfg, _t in sorted(timings, key=lambda ct: ct[1]):
                v = verify(f"{name}/{size}", m.fn, xs, spec, cfg)
                print(v.line(), flush=True)
                res.data["verify"].append(
                    {
                        "line": v.line(),
                        "ok": v.ok,
                        "workload": name,
                        "size": size,
                        "config": v.config,
                    }
                )
                if v.ok:
                    best = cfg
                    break
            if best is None:
                res.note(f"{name}: no config verified at the large size")
            else:
                src = generate(spec, best)
                ms = bench_kernel(src, tensors)
                structured_us = [t * 1e3 for c, t in timings if c.structured]
                pointer_us = [t * 1e3 for c, t in timings if not c.structured]
                row["indexalg"] = _entry(
                    ms,
                    nbytes,
                    ceiling,
                    config=best.describe(),
                    kinds=sorted(set(src.kinds)),
                    tiling=src.tiling,
                    index_dtype=src.index_dtype,
                    tuning={c.describe(): t * 1e3 for c, t in timings},
                    best_structured_us=min(structured_us) if structured_us else None,
                    best_pointer_us=min(pointer_us) if pointer_us else None,
                )
            del tensors
            for key, patch in COMPILE_CONFIGS.items():
                torch._dynamo.reset()
                try:
                    with iconfig.patch(patch):
                        cf = torch.compile(m.fn)
                        got = cf(*xs)
                        ok = _close_model(got, ref, xs, m)
                        cms = _bench(_call(cf, xs))
                    row[key] = _entry(cms, nbytes, ceiling, verified=ok)
                except Exception as err:  # recorded; the others still run
                    res.note(f"{name} {key}: {type(err).__name__}: {str(err)[:200]}")
            ours = row.get("indexalg", {}).get("us")
            best_c = min((row[k]["us"] for k in COMPILE_CONFIGS if k in row), default=None)
            print(
                f"{name}: eager {row['eager']['us']:.1f} us, indexalg "
                f"{ours if ours is None else round(ours, 1)} us, best compile "
                f"{best_c if best_c is None else round(best_c, 1)} us "
                f"[{time.time() - t0:.0f}s]",
                flush=True,
            )
            del xs, ref
        except Exception as err:  # one function's failure does not end the run
            res.note(f"{name}: {type(err).__name__}: {str(err)[:300]}")
        torch.cuda.empty_cache()
        res.save()


def _close_model(got: Any, eager: Any, xs: Sequence[Any], m: Any) -> bool:
    from indexalg_triton.runtime import compare, reference64

    ref64 = reference64(m.fn, xs)
    gots = list(got) if isinstance(got, (tuple, list)) else [got]
    eagers = list(eager) if isinstance(eager, (tuple, list)) else [eager]
    refs = list(ref64) if isinstance(ref64, (tuple, list)) else [ref64]
    return all(compare(g, r, e, reduction=m.reduction).ok for g, r, e in zip(gots, refs, eagers))


def report_models(d: Path) -> str:
    """The models suite's table: time and % of the copy ceiling per column, indexalg
    against the best torch.compile configuration, geometric means."""
    from bench.gpu_models import geomean

    data = json.loads((d / "gpu_models.json").read_text())
    env = data["env"]
    ceil = data.get("copy_ceiling", {}).get("gbs", float("nan"))
    lines = [
        f"{env['gpu']}, torch {env['torch']}, triton {env['triton']}, kinds "
        f"{env['kinds']}; copy ceiling {ceil:.0f} GB/s",
        "",
        "| function | MB | " + " | ".join(COLUMNS) + " | indexalg vs best compile | "
        "best structured vs best pointers |",
        "|---|---:|" + "---:|" * len(COLUMNS) + "---:|---:|",
    ]
    ratios: list[float] = []
    pcts: list[float] = []
    for name, r in data["rows"].items():
        cells = [
            (
                "-"
                if r.get(c) is None
                else f"{r[c]['us']:.0f} µs {r[c]['pct']:.0f}%"
                + ("" if r[c].get("verified", True) else " (wrong)")
            )
            for c in COLUMNS
        ]
        compiles = [r[c]["us"] for c in COLUMNS[1:4] if c in r and r[c].get("verified", True)]
        vs = "-"
        sp = "-"
        e = r.get("indexalg")
        if compiles and e:
            ratio = min(compiles) / e["us"]
            ratios.append(ratio)
            pcts.append(e["pct"])
            vs = f"{100 * ratio:.1f}%"
        if e and e.get("best_structured_us") and e.get("best_pointer_us"):
            sp = f"{e['best_structured_us'] / e['best_pointer_us']:.2f}x"
        lines.append(
            f"| {name} | {r.get('bytes', 0) / 1e6:.0f} | " + " | ".join(cells) + f" | {vs} | {sp} |"
        )
    lines.append("")
    lines.append(
        f"indexalg speed as % of the best torch.compile configuration (best time / "
        f"indexalg time): geometric mean {100 * geomean(ratios):.1f}% over "
        f"{len(ratios)} functions, worst {100 * min(ratios, default=float('nan')):.1f}%;"
        f" indexalg's % of the copy ceiling: geometric mean {geomean(pcts):.1f}%"
    )
    lines.append("")
    lines.append("| function | indexalg config | tiling | access kinds | index dtype |")
    lines.append("|---|---|---|---|---|")
    for name, r in data["rows"].items():
        e = r.get("indexalg")
        if e:
            lines.append(
                f"| {name} | {e['config']} | {e['tiling']} | "
                f"{', '.join(e['kinds'])} | {e['index_dtype']} |"
            )
    ok = [v for v in data["verify"]]
    lines.append("")
    lines.append(f"verify: {sum(v['ok'] for v in ok)}/{len(ok)} ok")
    for v in ok:
        if not v["ok"]:
            lines.append(f"    {v['line']}")
    for n in data.get("notes", []):
        lines.append(f"note: {n}")
    return "\n".join(lines)


def _call(fn: Callable[..., Any], xs: Sequence[Any]) -> Callable[[], Any]:
    def run() -> Any:
        return fn(*xs)

    return run


def _has_config(iconfig: Any, dotted: str) -> bool:
    obj = iconfig
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def _close(got: Any, eager: Any, xs: Sequence[Any], w: Any) -> bool:
    """The tolerances indexalg's kernels are held to (indexalg_triton.runtime.compare)."""
    from indexalg_triton.runtime import compare, reference64

    ref64 = reference64(w.fn, xs)
    return compare(got, ref64, eager, reduction=w.reduction).ok


# --- the report -----------------------------------------------------------------------------


def report(dirs: Sequence[Path]) -> str:
    parts: dict[str, dict[str, Any]] = {}
    for d in dirs:
        for p in sorted(d.glob("gpu_*.json")):
            data = json.loads(p.read_text())
            parts[data["part"]] = data
    rows: dict[str, dict[str, Any]] = {}
    for key in ("torch", "ours"):
        for name, r in parts.get(key, {}).get("rows", {}).items():
            rows.setdefault(name, {}).update(r)
    lines = []
    for key in ("ours", "torch", "verify", "int64"):
        if key in parts:
            env = parts[key]["env"]
            ceil = parts[key].get("copy_ceiling", {})
            lines.append(
                f"- part `{key}`: {env['gpu']}, torch {env['torch']}, triton "
                f"{env['triton']}, kinds {env['kinds']}; copy ceiling "
                f"{ceil.get('gbs', float('nan')):.0f} GB/s"
            )
    lines.append("")
    lines.append("| workload | MB moved | " + " | ".join(COLUMNS) + " | indexalg vs best compile |")
    lines.append("|---|---:|" + "---:|" * len(COLUMNS) + "---:|")
    pcts: list[float] = []
    for name, r in rows.items():
        cells = []
        for c in COLUMNS:
            e = r.get(c)
            cells.append(
                "-" if e is None else f"{e['us']:.0f} µs, {e['gbs']:.0f} GB/s, {e['pct']:.0f}%"
            )
        compiles = [r[c]["us"] for c in COLUMNS[1:4] if c in r]
        vs = "-"
        if compiles and "indexalg" in r:
            vs = f"{100 * (r['indexalg']['us'] / min(compiles) - 1):+.1f}%"
            pcts.append(r["indexalg"]["pct"])
        lines.append(
            f"| {name} | {r.get('bytes', 0) / 1e6:.0f} | " + " | ".join(cells) + f" | {vs} |"
        )
    if pcts:
        gm = math.exp(sum(math.log(p) for p in pcts) / len(pcts))
        lines.append("")
        lines.append(
            f"Geometric mean of indexalg's % of the copy ceiling over "
            f"{len(pcts)} memory-bound workloads: {gm:.1f}%"
        )
    lines.append("")
    lines.append("| workload | indexalg config | tiling | access kinds | index dtype |")
    lines.append("|---|---|---|---|---|")
    for name, r in rows.items():
        e = r.get("indexalg")
        if e:
            lines.append(
                f"| {name} | {e['config']} | {e['tiling']} | "
                f"{', '.join(e['kinds'])} | {e['index_dtype']} |"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench.gpu", description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="verify,ours,int64,torch")
    ap.add_argument("--out", default="bench/gpu_out")
    ap.add_argument("--workloads", default=None, help="comma-separated (default: all)")
    ap.add_argument("--report", nargs="*", default=None, metavar="DIR")
    ap.add_argument(
        "--suite",
        default="builtin",
        choices=["builtin", "models"],
        help="builtin: indexalg_triton.workloads; models: bench.gpu_models",
    )
    ap.add_argument(
        "--space",
        default="default",
        choices=["default", "wide", "structured"],
        help="models suite: bench.gpu_models.tuning_space as is, with the 1-D space "
        "broadened (wide), or with the first structured config (structured)",
    )
    ap.add_argument(
        "--budget",
        type=float,
        default=1e9,
        help="seconds after which the models suite skips the remaining functions",
    )
    args = ap.parse_args(argv)
    if args.report is not None:
        if args.suite == "models":
            print(report_models(Path((args.report or [args.out])[0])))
        else:
            print(report([Path(d) for d in (args.report or [args.out])]))
        return 0
    import torch

    if not torch.cuda.is_available():
        print("bench.gpu needs a GPU (torch.cuda.is_available() is False)", file=sys.stderr)
        return 2
    if args.suite == "models":
        from bench.gpu_models import MODELS

        deadline = time.time() + args.budget
        names = args.workloads.split(",") if args.workloads else list(MODELS)
        out = Path(args.out)
        res = Results(out, "models")
        ceil = copy_ceiling()
        res.data["copy_ceiling"] = ceil
        print(f"== models suite: copy ceiling {ceil['gbs']:.0f} GB/s", flush=True)
        res.data["space"] = args.space
        part_models(res, names, ceil["gbs"], deadline, space=args.space)
        res.save()
        print(report_models(out))
        return 0 if all(v["ok"] for v in res.data["verify"]) else 1
    from indexalg_triton import workloads as W

    names = args.workloads.split(",") if args.workloads else list(W.WORKLOADS)
    out = Path(args.out)
    parts = args.parts.split(",")
    bad: dict[str, list[str]] | None = None
    failed = False
    for part in ("verify", "ours", "int64", "torch"):
        if part not in parts:
            continue
        res = Results(out, part)
        ceil = copy_ceiling()
        res.data["copy_ceiling"] = ceil
        print(
            f"== part {part}: copy ceiling {ceil['gbs']:.0f} GB/s ({ceil['ms'] * 1e3:.0f} us "
            "per GiB copied)",
            flush=True,
        )
        if part == "verify":
            part_verify(res, names)
            bad = res.data.get("failed_configs", {})
            failed |= not all(v["ok"] for v in res.data["verify"])
        elif part == "ours":
            part_ours(res, names, ceil["gbs"], bad)
        elif part == "int64":
            part_int64(res, ceil["gbs"])
        else:
            part_torch(res, names, ceil["gbs"])
        res.save()
    print(report([out]))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
