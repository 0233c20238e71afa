"""Why a models-suite function is behind torch.compile: both kernels side by side.

    python3 -m bench.gpu_stragglers --out DIR [--names avg_pool,layernorm] [--rounds 5]

Per function (default: the ones more than 2% behind in the last models run), on a GPU:

* indexalg_triton's fastest verified config over the suite's tuning space, as
  ``bench.gpu --suite models`` picks it, and the generated source (``DIR/NAME.ours.py``);
* torch.compile's default configuration and every kernel it generated
  (``DIR/NAME.inductor.py``);
* both profiled once with ``torch.profiler``: each CUDA kernel's name, grid, block
  (so warps), registers per thread, shared memory and device time;
* both timed ``--rounds`` times, interleaved (ours, compile, ours, ...), each a
  ``do_bench`` median, so the gap can be read against each side's own spread.

Writes ``DIR/stragglers.json`` and prints one line per function.

``--variants``: instead, hand-made textual variants of our kernel at a few configs, each
timed (``do_bench`` median, 3 rounds) to find what the torch.compile kernel does better:

* ``yx``: a 2-D pointwise tile laid out ``[YBLOCK, XBLOCK]`` (x, the output-contiguous
  axis, last, as torch.compile lays its tiles out) instead of ``[XBLOCK, YBLOCK]``;
* ``hoisted``: every ``xindex // n`` and ``xindex % n`` computed once into a variable;
* ``evict_last``: every load without a hint given ``evict_last`` (torch.compile's loads);
* ``evict_first``: every load without a hint given ``evict_first`` (torch.compile's hint on
  a looped reduction's last read of a value);
* ``cast_bf16``: each ``ia_round_bf16(v)`` call replaced by the round trip through
  ``tl.bfloat16`` (what the helper itself is on a GPU since it was measured here, so the
  variant now times like ``as_generated`` there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

#: more than 2% behind the best torch.compile configuration in the last models run
DEFAULT = (
    "avg_pool",
    "layernorm",
    "max_pool",
    "nhwc_bias_relu",
    "channels_last_to_contiguous",
    "kv_cache_append",
    "rotary_half",
    "cat3_odd",
)


def _trace_kernels(fn: Callable[[], Any], path: Path) -> list[dict[str, Any]]:
    """The CUDA kernels one call of ``fn`` runs: name, device time, grid, block, registers,
    shared memory (from the exported Chrome trace, where the launch shape lives)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
        fn()
        torch.cuda.synchronize()
    prof.export_chrome_trace(str(path))
    events = json.loads(path.read_text()).get("traceEvents", [])
    out = []
    for ev in events:
        if ev.get("cat") != "kernel":
            continue
        a = ev.get("args", {})
        out.append(
            {
                "name": str(ev.get("name", ""))[:120],
                "us": ev.get("dur"),
                "grid": a.get("grid"),
                "block": a.get("block"),
                "regs": a.get("registers per thread"),
                "smem": a.get("shared memory"),
                "occupancy": a.get("est. achieved occupancy %"),
            }
        )
    return out


def run(names: Sequence[str], out: Path, rounds: int) -> list[dict[str, Any]]:
    import torch
    from triton.testing import do_bench

    from bench.gpu import _call, _close_model, _meta
    from bench.gpu_models import MODELS, tuning_space
    from indexalg_triton import from_torch
    from indexalg_triton.codegen import generate
    from indexalg_triton.runtime import autotune, launch, make_outputs, verify

    rows = []
    for name in names:
        t0 = time.time()
        m = MODELS[name]
        xs = m.inputs("large", "cuda", seed=2)
        ref = m.fn(*xs)
        nbytes = m.bytes_moved(xs, ref)
        spec = from_torch(m.fn, *[_meta(x) for x in xs], name=name)
        tensors = dict(zip([b.name for b in spec.inputs], xs))
        tensors.update(make_outputs(spec, "cuda"))
        _, timings = autotune(spec, tensors, configs=tuning_space(spec))
        best = None
        for cfg, _t in sorted(timings, key=lambda ct: ct[1]):
            if verify(f"{name}/large", m.fn, xs, spec, cfg).ok:
                best = cfg
                break
        row: dict[str, Any] = {
            "name": name,
            "bytes": nbytes,
            "tuning_us": {
                c.describe(): round(t * 1e3, 2) for c, t in sorted(timings, key=lambda ct: ct[1])
            },
        }
        if best is None:
            row["error"] = "no config verified"
            rows.append(row)
            continue
        src = generate(spec, best)
        (out / f"{name}.ours.py").write_text(src.source)
        row["ours_config"] = best.describe()
        row["ours_grid"] = src.grid

        def ours(src: Any = src, tensors: dict[str, Any] = tensors) -> None:
            launch(src, tensors)

        torch._dynamo.reset()
        from torch._inductor.utils import run_and_get_code

        cf = torch.compile(m.fn)
        got, codes = run_and_get_code(cf, *xs)
        row["compile_verified"] = _close_model(got, ref, xs, m)
        (out / f"{name}.inductor.py").write_text("\n\n# ----\n\n".join(codes))
        theirs = _call(cf, xs)
        row["ours_kernels"] = _trace_kernels(ours, out / f"{name}.ours.trace.json")
        row["compile_kernels"] = _trace_kernels(theirs, out / f"{name}.inductor.trace.json")
        o_us: list[float] = []
        c_us: list[float] = []
        for _ in range(rounds):
            o_us.append(1e3 * float(do_bench(ours, warmup=25, rep=200, return_mode="median")))
            c_us.append(1e3 * float(do_bench(theirs, warmup=25, rep=200, return_mode="median")))
        row["ours_us"] = [round(v, 2) for v in o_us]
        row["compile_us"] = [round(v, 2) for v in c_us]
        om, cm = statistics.median(o_us), statistics.median(c_us)
        row["pct_of_compile"] = round(100 * cm / om, 1)
        print(
            f"{name}: ours {om:.1f} us [{min(o_us):.1f}-{max(o_us):.1f}] "
            f"{best.describe()}, compile {cm:.1f} us [{min(c_us):.1f}-{max(c_us):.1f}], "
            f"{row['pct_of_compile']}% | ours {row['ours_kernels']} | compile "
            f"{row['compile_kernels']} [{time.time() - t0:.0f}s]",
            flush=True,
        )
        rows.append(row)
        del xs, ref
        torch.cuda.empty_cache()
        (out / "stragglers.json").write_text(json.dumps(rows, indent=1, default=str))
    return rows


def _variant(source: str, kind: str) -> str | None:
    """``source`` changed as ``kind`` says (see the module docstring), or None where the
    change does not apply."""
    import re

    if kind == "as_generated":
        return source
    if kind == "yx":
        a = "xindex = xoffset + tl.arange(0, XBLOCK)[:, None]"
        b = "yindex = yoffset + tl.arange(0, YBLOCK)[None, :]"
        if a not in source or b not in source:
            return None
        return source.replace(a, a.replace("[:, None]", "[None, :]")).replace(
            b, b.replace("[None, :]", "[:, None]")
        )
    if kind == "hoisted":
        terms = sorted(set(re.findall(r"xindex (?://|%) \d+", source)))
        if not terms:
            return None
        names = {t: f"hx{k}" for k, t in enumerate(terms)}
        head, sep, body = source.partition("xindex = xoffset + tl.arange(0, XBLOCK)\n")
        if not sep:
            return None
        lines = "".join(f"    {n} = {t}\n" for t, n in names.items())
        for t, n in names.items():
            body = body.replace(t, n)
        return head + sep + lines + body
    if kind in ("evict_last", "evict_first"):
        out = "".join(_hinted(line, kind) for line in source.splitlines(keepends=True))
        return out if out != source else None
    if kind == "cast_bf16":
        out = re.sub(
            r"(?<!def )ia_round_bf16\((\w+)\)", r"\1.to(tl.bfloat16).to(tl.float32)", source
        )
        return out if out != source else None
    raise ValueError(kind)


def _hinted(line: str, hint: str) -> str:
    """``line`` with ``eviction_policy=hint`` added to its ``tl.load`` call (the parenthesis
    that closes the load, not a ``.to(...)`` after it) where the load has no hint."""
    start = line.find("tl.load(")
    if start < 0 or "eviction_policy" in line:
        return line
    depth = 0
    for k in range(start + len("tl.load"), len(line)):
        depth += {"(": 1, ")": -1}.get(line[k], 0)
        if depth == 0:
            return f"{line[:k]}, eviction_policy='{hint}'{line[k:]}"
    return line


def _same_as_eager(fn: Callable[..., Any], xs: Sequence[Any], spec: Any, src: Any) -> bool:
    """``src`` launched on ``xs`` (poisoned outputs) gives what ``fn`` gives in eager."""
    import torch

    from indexalg_triton.runtime import launch, make_outputs

    tensors = dict(zip([b.name for b in spec.inputs], xs))
    outs = make_outputs(spec, str(xs[0].device))
    tensors.update(outs)
    launch(src, tensors)
    ref = fn(*xs)
    refs = list(ref) if isinstance(ref, (tuple, list)) else [ref]
    return all(
        torch.allclose(outs[f"out{k}"].float(), r.float(), rtol=1e-4, atol=1e-5)
        for k, r in enumerate(refs)
    )


VARIANTS = ("as_generated", "yx", "hoisted", "evict_last", "evict_first", "cast_bf16")


def variants(names: Sequence[str], out: Path) -> list[dict[str, Any]]:
    """Each function's kernel at its suite configs, as generated and as each variant."""
    import torch
    from triton.testing import do_bench

    from bench.gpu import _meta
    from bench.gpu_models import MODELS, tuning_space
    from indexalg_triton import from_torch
    from indexalg_triton.codegen import generate
    from indexalg_triton.runtime import launch, make_outputs

    rows = []
    for name in names:
        m = MODELS[name]
        xs = m.inputs("large", "cuda", seed=2)
        spec = from_torch(m.fn, *[_meta(x) for x in xs], name=name)
        tensors = dict(zip([b.name for b in spec.inputs], xs))
        tensors.update(make_outputs(spec, "cuda"))
        for cfg in tuning_space(spec)[:8]:
            src = generate(spec, cfg)
            for kind in VARIANTS:
                text = _variant(src.source, kind)
                if text is None:
                    continue
                vsrc = replace(src, source=text)
                try:  # the variant must still compute the function
                    ok = _same_as_eager(m.fn, xs, spec, vsrc)
                    us = [
                        1e3
                        * float(
                            do_bench(
                                lambda s=vsrc, t=tensors: launch(s, t),
                                warmup=25,
                                rep=100,
                                return_mode="median",
                            )
                        )
                        for _ in range(3)
                    ]
                except Exception as err:  # a variant that does not compile is recorded
                    rows.append(
                        {
                            "name": name,
                            "config": cfg.describe(),
                            "variant": kind,
                            "error": f"{type(err).__name__}: {str(err)[:200]}",
                        }
                    )
                    continue
                row = {
                    "name": name,
                    "config": cfg.describe(),
                    "variant": kind,
                    "us": round(statistics.median(us), 2),
                    "spread": round(max(us) - min(us), 2),
                    "verified": ok,
                }
                rows.append(row)
                print(
                    f"{name:28s} {cfg.describe():45s} {kind:13s} {row['us']:8.1f} us "
                    f"+-{row['spread']:.1f} {'ok' if ok else 'WRONG'}",
                    flush=True,
                )
        del tensors, xs
        torch.cuda.empty_cache()
        (out / "variants.json").write_text(json.dumps(rows, indent=1))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench/gpu_out/stragglers")
    ap.add_argument("--names", default=",".join(DEFAULT))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--variants", action="store_true", help="time textual kernel variants")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    names = [n for n in a.names.split(",") if n]
    if a.variants:
        variants(names, out)
    else:
        run(names, out, a.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
