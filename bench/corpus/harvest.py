"""Harvest Inductor's index expressions into a benchmark corpus.

Run from the repository root::

    python -m bench.corpus.harvest --out bench/corpus/corpus.jsonl.gz

Every workload of ``bench.corpus.workloads`` is compiled with torch.compile
(Inductor, Triton codegen on the CPU) for each of its sizes, each codegen mode
(``MODES``) and each shape mode (static, ``dynamic=True``, ``maybe_mark_dynamic``
on dim 0).  Nothing is compiled by Triton or run: ``bench.corpus.hooks`` stops
each graph once its code is generated and records, on the way, every
``simplify_with_ranges`` call and every Triton load/store access.

Outputs (gzip'd JSON lines, sorted, byte-for-byte deterministic for a given
torch version):

* ``--out``: unique (expression, ranges) entries with Inductor's simplification;
* ``--blocks-out``: unique kernel accesses in the block-pointer / tensor-descriptor
  modes, with the BlockPatternMatcher calls and Inductor's decision;
* ``--stats-out``: counts, per-case timings and failures.

``--dynamic-heavy`` harvests the other workload set, ``bench.corpus.dynamic_workloads``,
with symbolic sizes only (shape modes ``dynamic`` and ``mark_dynamic_dims``:
``torch._dynamo.mark_dynamic`` on several dims of every input), into
``dynamic.jsonl.gz`` / ``dynamic_blocks.jsonl.gz`` / ``dynamic_stats.json``, leaving out
the entries already in ``corpus.jsonl.gz`` (``--exclude``)::

    python -m bench.corpus.harvest --dynamic-heavy
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import logging
import multiprocessing
import os
import sys
import time
import traceback
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# Inductor config patches per codegen mode.  "default" is Inductor as it
# configures itself for a CPU device.  The other modes decide block pointers
# (``triton.use_block_ptr``) or tensor descriptors (``triton.use_tensor_descriptor``
# with ``assume_aligned_inputs`` and an emulated sm90 device, see hooks.py), with
# 1-D tiling (the matcher must recover N-D blocks from ModularIndexing /
# FloorDiv) or N-D tiling.  They also force pointwise cat, which Inductor
# disables on CPU devices but uses on GPUs.
MODES: dict[str, dict[str, Any]] = {
    "default": {},
    "block_ptr_1d": {
        "triton.use_block_ptr": True,
        "triton.max_tiles": 1,
        "force_pointwise_cat": True,
    },
    "block_ptr_nd": {
        "triton.use_block_ptr": True,
        "triton.prefer_nd_tiling": True,
        "triton.tile_reductions": True,
        "force_pointwise_cat": True,
    },
    "tensor_descriptor_nd": {
        "triton.use_tensor_descriptor": True,
        "assume_aligned_inputs": True,
        "triton.prefer_nd_tiling": True,
        "triton.tile_reductions": True,
        "force_pointwise_cat": True,
    },
}
BLOCK_MODES = frozenset(m for m, p in MODES.items() if p)
SHAPE_MODES = ("static", "dynamic", "mark_dynamic")
# The shape modes of the dynamic-heavy set: ``mark_dynamic_dims`` marks the dims chosen by
# the workload's ``marks`` (``torch._dynamo.mark_dynamic``; where Inductor specialises a
# marked dim, the case is compiled again with ``maybe_mark_dynamic``).
DYNAMIC_HEAVY_SHAPE_MODES = ("dynamic", "mark_dynamic_dims")
ALL_SHAPE_MODES = (*SHAPE_MODES, "mark_dynamic_dims")

# Workload sets: the module whose ``WORKLOADS`` list a case's workload is taken from.
WORKLOAD_SETS: dict[str, str] = {
    "default": "bench.corpus.workloads",
    "dynamic": "bench.corpus.dynamic_workloads",
}


def workloads_of(workload_set: str) -> list[Any]:
    """The ``WORKLOADS`` list of a workload set."""
    import importlib

    module: Any = importlib.import_module(WORKLOAD_SETS[workload_set])
    return list(module.WORKLOADS)


# Config shared by every case.
BASE_CONFIG: dict[str, Any] = {
    "cpu_backend": "triton",
    "compile_threads": 1,
    "force_disable_caches": True,
    "fx_graph_cache": False,
    "fx_graph_remote_cache": False,
    "autotune_local_cache": False,
}


@dataclasses.dataclass(frozen=True)
class Case:
    index: int
    workload: str
    kind: str
    size: tuple[int, ...]
    shape_mode: str
    mode: str
    workload_set: str = "default"

    @property
    def dynamic(self) -> bool:
        return self.shape_mode != "static"

    def label(self) -> str:
        size = "x".join(map(str, self.size))
        return f"{self.workload}[{size}]/{self.shape_mode}/{self.mode}"


@dataclasses.dataclass
class CaseResult:
    case: Case
    status: str  # "ok", "failed" or "no_graph"
    seconds: float
    cpu_seconds: float
    simplifications: list[dict[str, Any]]
    accesses: list[dict[str, Any]]
    tiling_matches: list[dict[str, Any]]
    kernels: int = 0
    block_ptr_kernels: int = 0
    tensor_descriptor_kernels: int = 0
    error: str | None = None
    # mark_dynamic_dims: the marked dims were specialised, compiled with maybe_mark_dynamic
    mark_fallback: bool = False


# ---------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------


def _init_worker() -> None:
    warnings.filterwarnings("ignore")
    import torch
    import torch._inductor.config as inductor_config

    from bench.corpus import hooks

    torch.set_num_threads(1)
    for name, value in BASE_CONFIG.items():
        setattr(inductor_config, name, value)
    hooks.install()
    hooks.install_tma_log_capture()
    # Errors are caught and reported per case; keep stderr readable.
    for name in ("torch._inductor", "torch._dynamo", "torch.fx", "torch._inductor.utils"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _find(exc: BaseException | None, kind: type[BaseException]) -> bool:
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, kind):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def run_case(case: Case) -> CaseResult:
    result = _run_case(case, strict_marks=True)
    if case.shape_mode == "mark_dynamic_dims" and result.status == "failed":
        result = _run_case(case, strict_marks=False)
        result.mark_fallback = True
    return result


def _run_case(case: Case, strict_marks: bool) -> CaseResult:
    import torch
    import torch._inductor.config as inductor_config

    from bench.corpus import hooks

    workload = next(w for w in workloads_of(case.workload_set) if w.name == case.workload)
    recorder = hooks.RECORDER
    torch._dynamo.reset()
    recorder.reset()
    torch.manual_seed(0)
    inputs = workload.make_inputs(case.size)
    if case.shape_mode == "mark_dynamic":
        for tensor in inputs:
            if tensor.dim() > 0 and tensor.shape[0] > 1:
                torch._dynamo.maybe_mark_dynamic(tensor, 0)
    elif case.shape_mode == "mark_dynamic_dims":
        mark = torch._dynamo.mark_dynamic if strict_marks else torch._dynamo.maybe_mark_dynamic
        for position, dims in workload.marks(inputs):
            for dim in dims:
                mark(inputs[position], dim)
    compiled = torch.compile(
        workload.fn, fullgraph=True, dynamic=True if case.shape_mode == "dynamic" else None
    )

    start, cpu_start = time.perf_counter(), time.process_time()
    status, error = "no_graph", None
    try:
        with inductor_config.patch(MODES[case.mode]), torch.no_grad():
            compiled(*inputs)
    except Exception as exc:
        if _find(exc, hooks.CodegenComplete):
            status = "ok"
        else:
            status = "failed"
            lines = traceback.format_exception_only(type(exc), exc)
            error = "".join(lines).strip().splitlines()[0][:500]
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    sources = recorder.kernel_sources
    result = CaseResult(
        case=case,
        status=status,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        simplifications=[s for s in recorder.simplifications if "error" not in s],
        accesses=[a for a in recorder.accesses if "error" not in a],
        tiling_matches=list(recorder.tiling_matches),
        kernels=len(sources),
        block_ptr_kernels=sum("tl.make_block_ptr" in s for s in sources),
        tensor_descriptor_kernels=sum("tl.make_tensor_descriptor" in s for s in sources),
        error=error,
    )
    torch._dynamo.reset()
    return result


# ---------------------------------------------------------------------------
# Merging
# ---------------------------------------------------------------------------


def _ranges_key(record: dict[str, Any]) -> str:
    """The (ranges) part of the dedup key: loop var ranges and symbol ranges."""
    symbols = {
        name: {k: v for k, v in info.items() if k != "hint"}
        for name, info in record["symbols"].items()
    }
    return json.dumps([record["var_ranges"], symbols], sort_keys=True)


def _without_hints(value: Any) -> Any:
    """``value`` with the "hint" entries of every "symbols" dict removed."""
    if isinstance(value, dict):
        return {
            k: (
                {n: {f: x for f, x in info.items() if f != "hint"} for n, info in v.items()}
                if k == "symbols"
                else _without_hints(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_without_hints(v) for v in value]
    return value


def _case_fields(case: Case) -> dict[str, Any]:
    return {
        "workload": case.workload,
        "kind": case.kind,
        "dynamic": case.dynamic,
        "shape_mode": case.shape_mode,
        "mode": case.mode,
        "size": list(case.size),
    }


@dataclasses.dataclass
class _Entry:
    record: dict[str, Any]
    workloads: set[str] = dataclasses.field(default_factory=set)
    modes: set[str] = dataclasses.field(default_factory=set)
    callers: set[str] = dataclasses.field(default_factory=set)
    simplified_other: set[str] = dataclasses.field(default_factory=set)
    occurrences: int = 0


def merge_corpus(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """Unique (expression, ranges) entries, sorted by workload then expression."""
    entries: dict[tuple[str, str], _Entry] = {}
    # Block decisions of kernel accesses, per dedup key and mode family.
    decisions: dict[tuple[str, str], dict[str, set[bool]]] = defaultdict(
        lambda: {"block_ptr": set(), "tensor_descriptor": set(), "kernel": set()}
    )
    for result in results:
        case = result.case
        for rec in result.simplifications:
            key = (rec["expr"], _ranges_key(rec))
            entry = entries.get(key)
            if entry is None:
                record = {
                    **_case_fields(case),
                    "expr": rec["expr"],
                    "expr_fn": rec["expr_fn"],
                    "srepr": rec["srepr"],
                    "var_ranges": rec["var_ranges"],
                    "var_sizes": rec["var_sizes"],
                    "symbols": rec["symbols"],
                    "simplified": rec["simplified"],
                    "simplified_fn": rec["simplified_fn"],
                    "simplified_srepr": rec["simplified_srepr"],
                    "changed": rec["simplified"] != rec["expr"],
                    "divmod_ops": rec["divmod_ops"],
                    "simplified_divmod_ops": rec["simplified_divmod_ops"],
                    "functions": rec["functions"],
                }
                entry = entries[key] = _Entry(record)
            elif rec["simplified"] != entry.record["simplified"]:
                entry.simplified_other.add(rec["simplified"])
            entry.workloads.add(case.workload)
            entry.modes.add(case.mode)
            entry.callers.add(rec["caller"])
            entry.occurrences += 1
        for acc in result.accesses:
            kind = acc["decision"]["kind"]
            # The access as Inductor passed it, and flattened onto the tree roots.
            for form in (acc, acc["flat"]):
                slot = decisions[(form["expr"], _ranges_key(form))]
                slot["kernel"].add(True)
                if MODES[case.mode].get("triton.use_block_ptr"):
                    slot["block_ptr"].add(kind == "block_ptr")
                if MODES[case.mode].get("triton.use_tensor_descriptor"):
                    slot["tensor_descriptor"].add(kind == "tensor_descriptor")

    out: list[dict[str, Any]] = []
    for key, entry in entries.items():
        record = dict(entry.record)
        slot = decisions.get(key, {})
        record["kernel_access"] = bool(slot.get("kernel"))
        for family in ("block_ptr", "tensor_descriptor"):
            seen = slot.get(family, set())
            record[family] = (True in seen) if seen else None
        record["callers"] = sorted(entry.callers)
        record["modes"] = sorted(entry.modes, key=list(MODES).index)
        record["workloads"] = sorted(entry.workloads)
        record["occurrences"] = entry.occurrences
        if entry.simplified_other:
            record["simplified_alternatives"] = sorted(entry.simplified_other)
        out.append(record)
    out.sort(key=lambda r: (r["workload"], r["expr"], _ranges_key(r)))
    return out


_ACCESS_FIELDS = (
    "expr",
    "expr_fn",
    "srepr",
    "var_ranges",
    "var_sizes",
    "symbols",
    "flat",
    "range_trees",
    "access",
    "dtype",
    "index_dtype",
    "indirect",
    "load_mask",
    "block_ptr_requested",
    "tma_checker",
    "matcher_calls",
    "tma_rejections",
    "decision",
)


def merge_blocks(results: Sequence[CaseResult]) -> list[dict[str, Any]]:
    """Unique kernel accesses (and tiling-analysis matches) of the block modes."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for result in results:
        case = result.case
        if case.mode not in BLOCK_MODES:
            continue
        for acc in result.accesses:
            body = {f: acc.get(f) for f in _ACCESS_FIELDS}
            key = json.dumps([case.mode, _without_hints(body)], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            out.append({**_case_fields(case), "source": "kernel_access", **body})
        for match in result.tiling_matches:
            key = json.dumps([case.mode, match], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            out.append(
                {
                    **_case_fields(case),
                    "source": "tiling_analysis",
                    "expr": match["index"],
                    "matcher_calls": [match],
                }
            )
    out.sort(
        key=lambda r: (
            r["workload"],
            r["mode"],
            r["source"],
            r["expr"],
            json.dumps(r, sort_keys=True),
        )
    )
    return out


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


# Codegen modes run per shape mode: static shapes get every mode, dynamic shapes
# too (on fewer sizes, see Workload.sizes_for: their expressions depend little on
# the size hints), mark_dynamic two.  About 1,200 cases, ~9 CPU-minutes.
PLAN: dict[str, tuple[str, ...]] = {
    "static": tuple(MODES),
    "dynamic": tuple(MODES),
    "mark_dynamic": ("default", "block_ptr_1d"),
    "mark_dynamic_dims": ("default", "block_ptr_1d", "block_ptr_nd"),
}


def build_cases(
    workload_names: Iterable[str] | None,
    modes: Sequence[str],
    shape_modes: Sequence[str],
    workload_set: str = "default",
) -> list[Case]:
    wanted = set(workload_names) if workload_names else None
    cases: list[Case] = []
    for workload in workloads_of(workload_set):
        if wanted is not None and workload.name not in wanted:
            continue
        for shape_mode in shape_modes:
            for size in workload.sizes_for(shape_mode != "static"):
                for mode in PLAN[shape_mode]:
                    if mode in modes:
                        cases.append(
                            Case(
                                len(cases),
                                workload.name,
                                workload.kind,
                                size,
                                shape_mode,
                                mode,
                                workload_set,
                            )
                        )
    return cases


def write_jsonl_gz(path: Path, records: Iterable[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        for record in records:
            gz.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")


def compute_stats(
    corpus: Sequence[dict[str, Any]],
    blocks: Sequence[dict[str, Any]],
    results: Sequence[CaseResult],
    seconds: float,
    workload_set: str = "default",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    kind_of = {w.name: w.kind for w in workloads_of(workload_set)}
    failures = [{"case": r.case.label(), "error": r.error} for r in results if r.status == "failed"]
    no_graph = [r.case.label() for r in results if r.status == "no_graph"]
    kernel_blocks = [b for b in blocks if b["source"] == "kernel_access"]
    stats = {
        "entries": len(corpus),
        "entries_changed_by_inductor": sum(r["changed"] for r in corpus),
        "entries_with_divmod": sum(r["divmod_ops"] > 0 for r in corpus),
        "entries_dynamic_shapes": sum(r["dynamic"] for r in corpus),
        "entries_with_size_symbols": sum(
            any(
                i["range_source"] == "shape_env" or "precomputed" in i
                for i in r["symbols"].values()
            )
            for r in corpus
        ),
        "entries_with_indirect_symbols": sum(
            any(name.startswith("tmp") for name in r["symbols"]) for r in corpus
        ),
        "entries_with_simplified_alternatives": sum("simplified_alternatives" in r for r in corpus),
        "entries_per_kind": dict(sorted(Counter(r["kind"] for r in corpus).items())),
        "entries_per_workload": dict(sorted(Counter(r["workload"] for r in corpus).items())),
        "entries_per_shape_mode": dict(sorted(Counter(r["shape_mode"] for r in corpus).items())),
        "entries_per_mode": dict(sorted(Counter(r["mode"] for r in corpus).items())),
        "entries_seen_per_kind": dict(
            sorted(
                Counter(
                    kind for r in corpus for kind in {kind_of[w] for w in r["workloads"]}
                ).items()
            )
        ),
        "block_records": len(blocks),
        "block_kernel_accesses": len(kernel_blocks),
        "block_decisions": dict(
            sorted(Counter(f"{b['mode']}:{b['decision']['kind']}" for b in kernel_blocks).items())
        ),
        "cases": len(results),
        "cases_ok": sum(r.status == "ok" for r in results),
        "cases_failed": len(failures),
        "cases_no_graph": no_graph,
        "kernels": sum(r.kernels for r in results),
        "block_ptr_kernels": sum(r.block_ptr_kernels for r in results),
        "tensor_descriptor_kernels": sum(r.tensor_descriptor_kernels for r in results),
        "failures": failures,
        "harvest_seconds": round(seconds, 1),
        "compile_cpu_seconds": round(sum(r.cpu_seconds for r in results), 1),
        "compile_cpu_seconds_per_workload": {
            name: round(sum(r.cpu_seconds for r in results if r.case.workload == name), 1)
            for name in sorted({r.case.workload for r in results})
        },
    }
    if workload_set != "default":
        stats["entries_with_symbolic_ranges"] = sum(map(has_symbolic_ranges, corpus))
        stats["entries_with_divmod_and_symbolic_ranges"] = sum(
            r["divmod_ops"] > 0 and has_symbolic_ranges(r) for r in corpus
        )
        stats["distinct_expressions"] = len({r["expr"] for r in corpus})
        stats["cases_mark_fallback"] = [r.case.label() for r in results if r.mark_fallback]
    stats.update(extra or {})
    return stats


def has_symbolic_ranges(record: dict[str, Any]) -> bool:
    """A loop variable's bound is an expression, or a size symbol (from the shape env, or
    precomputed) occurs in the expression or its bounds."""
    return any(isinstance(b, str) for lo_hi in record["var_ranges"].values() for b in lo_hi) or any(
        i["range_source"] == "shape_env" or "precomputed" in i for i in record["symbols"].values()
    )


def exclude_entries(corpus: list[dict[str, Any]], path: Path) -> tuple[list[dict[str, Any]], int]:
    """``corpus`` without the entries (same expression and ranges) of the corpus at ``path``;
    and how many were left out."""
    from bench.corpus.load import load_corpus

    known = {(r["expr"], _ranges_key(r)) for r in load_corpus(path)}
    kept = [r for r in corpus if (r["expr"], _ranges_key(r)) not in known]
    return kept, len(corpus) - len(kept)


def harvest(cases: Sequence[Case], jobs: int) -> list[CaseResult]:
    # Inductor's output can depend on set iteration order: fix the hash seed of
    # the (spawned) workers.
    os.environ["PYTHONHASHSEED"] = "0"
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    context = multiprocessing.get_context("spawn")
    results: list[CaseResult] = []
    start = time.perf_counter()
    with context.Pool(jobs, initializer=_init_worker) as pool:
        for done, result in enumerate(pool.imap_unordered(run_case, cases), 1):
            results.append(result)
            note = f" FAILED: {result.error}" if result.status == "failed" else ""
            print(
                f"[{done}/{len(cases)} {time.perf_counter() - start:6.0f}s] "
                f"{result.case.label()}: {result.status}, "
                f"{len(result.simplifications)} exprs, {result.kernels} kernels, "
                f"{result.seconds:.1f}s ({result.cpu_seconds:.1f}s cpu){note}",
                file=sys.stderr,
                flush=True,
            )
    results.sort(key=lambda r: r.case.index)
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dynamic-heavy",
        action="store_true",
        help="the dynamic-shape workload set (bench.corpus.dynamic_workloads), symbolic "
        "shape modes only, into dynamic*.json[l.gz], without corpus.jsonl.gz's entries",
    )
    parser.add_argument(
        "--exclude",
        type=Path,
        default=None,
        help="leave out the entries of this corpus (default with --dynamic-heavy: corpus.jsonl.gz)",
    )
    parser.add_argument("--out", type=Path, default=None, help="default: corpus.jsonl.gz")
    parser.add_argument(
        "--blocks-out", type=Path, default=None, help="default: blocks.jsonl.gz next to --out"
    )
    parser.add_argument(
        "--stats-out", type=Path, default=None, help="default: corpus_stats.json next to --out"
    )
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--workloads", nargs="*", default=None, help="only these workloads")
    parser.add_argument("--modes", nargs="*", default=list(MODES), choices=list(MODES))
    parser.add_argument("--shape-modes", nargs="*", default=None, choices=ALL_SHAPE_MODES)
    args = parser.parse_args(argv)

    heavy = args.dynamic_heavy
    workload_set = "dynamic" if heavy else "default"
    prefix = "dynamic" if heavy else ""
    out = args.out or HERE / ("dynamic.jsonl.gz" if heavy else "corpus.jsonl.gz")
    blocks_out = args.blocks_out or out.with_name(f"{prefix}{'_' if prefix else ''}blocks.jsonl.gz")
    stats_out = args.stats_out or out.with_name(f"{prefix or 'corpus'}_stats.json")
    shape_modes = args.shape_modes or list(DYNAMIC_HEAVY_SHAPE_MODES if heavy else SHAPE_MODES)
    exclude = args.exclude or (HERE / "corpus.jsonl.gz" if heavy else None)

    start = time.perf_counter()
    cases = build_cases(args.workloads, args.modes, shape_modes, workload_set)
    print(f"{len(cases)} cases, {args.jobs} workers", file=sys.stderr)
    results = harvest(cases, args.jobs)
    corpus = merge_corpus(results)
    extra: dict[str, Any] = {}
    if exclude is not None and exclude.exists() and exclude.resolve() != out.resolve():
        corpus, dropped = exclude_entries(corpus, exclude)
        extra = {"excluded_from": exclude.name, "entries_excluded": dropped}
    blocks = merge_blocks(results)
    write_jsonl_gz(out, corpus)
    write_jsonl_gz(blocks_out, blocks)
    stats = compute_stats(corpus, blocks, results, time.perf_counter() - start, workload_set, extra)
    stats_out.write_text(json.dumps(stats, indent=1) + "\n")

    print(
        f"{stats['entries']} unique entries -> {out}; {stats['block_records']} block "
        f"records -> {blocks_out}; {stats['cases_failed']} failed cases; "
        f"{stats['harvest_seconds']}s",
        file=sys.stderr,
    )
    for failure in stats["failures"]:
        print(f"  failed: {failure['case']}: {failure['error']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
