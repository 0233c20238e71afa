"""A long campaign of the plug-in fuzzer (:mod:`indexalg.testing.plugin_fuzz`) in parallel
worker processes.

    python -m bench.plugin_fuzz --calls 1000000 --workers 16 --seed 0 --out DIR
        [--chunk 2000] [--stock-rate 1.0] [--seconds S] [--max-findings 20]

The calls are cut into chunks of ``--chunk`` calls, each with its own seed derived from
``--seed`` and its index (so a campaign is the same for any ``--workers``); each worker is
one long-lived process that runs chunk after chunk, as a compiler process meets ShapeEnv
after ShapeEnv (the plug-in's memos live across chunks; each chunk creates and collects
its own ShapeEnvs).  Every finished chunk is merged into ``DIR/summary.json`` (the counts
per entry point, the wrong answers of the plug-in and of stock Inductor apart, the first
reproducers) and every reproducer is appended to ``DIR/reproducers.py``, so an interrupted
campaign keeps what it found.  ``--seconds`` stops starting chunks after that wall time.

Needs torch and sympy only (no hypothesis, no z3): for the GPU machine's torch 2.11.
Exit status 0 when the plug-in gave no wrong answer, 1 when it did.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any

#: chunk seed = seed * SEED_STRIDE + chunk index
SEED_STRIDE = 1_000_003


def _chunk(seed: int, calls: int, stock_rate: float, max_findings: int, deadline: float) -> Any:
    """One chunk in a worker: the report as JSON."""
    from indexalg.testing.plugin_fuzz import run

    rep = run(
        calls,
        seed=seed,
        stock_rate=stock_rate,
        max_findings=max_findings,
        deadline=deadline if deadline > 0 else None,
    )
    return rep.as_json()


def _init_worker() -> None:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import torch

    torch.set_num_threads(1)


class Summary:
    """The merged counts of the finished chunks."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.per_entry: dict[str, dict[str, int]] = {}
        self.memo_events: dict[str, int] = {}
        self.findings: list[dict[str, Any]] = []
        self.not_kept: dict[str, int] = {}
        self.calls = 0
        self.cpu = 0.0
        self.envs = 0
        self.chunks = 0
        self.torch = ""
        self.t0 = time.time()

    def add(self, chunk_seed: int, rep: dict[str, Any]) -> list[dict[str, Any]]:
        self.chunks += 1
        self.calls += int(rep["calls"])
        self.cpu += float(rep.get("cpu_seconds", 0.0))
        self.envs += int(rep["envs"])
        self.torch = self.torch or str(rep.get("torch", ""))
        for name, counts in rep["per_entry"].items():
            mine = self.per_entry.setdefault(name, {})
            for k, v in counts.items():
                mine[k] = mine.get(k, 0) + int(v)
        for k, v in rep["memo_events"].items():
            self.memo_events[k] = self.memo_events.get(k, 0) + int(v)
        new: list[dict[str, Any]] = []
        for f in rep["findings"]:
            f = {**f, "chunk_seed": chunk_seed}
            kept = sum(1 for g in self.findings if g["category"] == f["category"])
            if kept < self.args.max_findings:
                self.findings.append(f)
            else:
                self.not_kept[f["category"]] = self.not_kept.get(f["category"], 0) + 1
            new.append(f)
        for k, v in rep.get("findings_not_kept", {}).items():
            self.not_kept[k] = self.not_kept.get(k, 0) + int(v)
        return new

    def total(self, key: str) -> int:
        return sum(c.get(key, 0) for c in self.per_entry.values())

    def as_json(self) -> dict[str, Any]:
        seconds = time.time() - self.t0
        return {
            "torch": self.torch,
            "python": sys.version.split()[0],
            "seed": self.args.seed,
            "calls_asked": self.args.calls,
            "calls": self.calls,
            "chunks": self.chunks,
            "chunk": self.args.chunk,
            "workers": self.args.workers,
            "stock_rate": self.args.stock_rate,
            "envs": self.envs,
            "seconds": round(seconds, 1),
            "seconds_per_1000_calls": round(1000 * seconds * self.args.workers / self.calls, 2)
            if self.calls
            else None,
            "cpu_seconds": round(self.cpu, 1),
            "cpu_seconds_per_1000_calls": round(1000 * self.cpu / self.calls, 2)
            if self.calls
            else None,
            "plugin_wrong": self.total("plugin_wrong"),
            "both_wrong": self.total("both_wrong"),
            "stock_wrong": self.total("stock_wrong"),
            "points": self.total("points"),
            "per_entry": dict(sorted(self.per_entry.items())),
            "memo_events": dict(sorted(self.memo_events.items())),
            "findings": self.findings,
            "findings_not_kept": self.not_kept,
        }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.plugin_fuzz", description=__doc__)
    ap.add_argument("--calls", type=int, default=100_000, help="plug-in calls in all")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, required=True, help="folder for summary.json")
    ap.add_argument("--chunk", type=int, default=2000, help="calls per chunk (one seed each)")
    ap.add_argument(
        "--stock-rate",
        type=float,
        default=1.0,
        help="share of right plug-in answers also asked of stock (wrong ones always are)",
    )
    ap.add_argument("--seconds", type=float, default=0.0, help="stop after this wall time")
    ap.add_argument("--max-findings", type=int, default=20, help="reproducers kept a category")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    if args.calls < 1 or args.workers < 1 or args.chunk < 1:
        ap.error("--calls, --workers and --chunk must be at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    summary_path = args.out / "summary.json"
    repro_path = args.out / "reproducers.py"
    repro_path.write_text("# plug-in fuzz reproducers (one per block)\n")
    deadline = time.time() + args.seconds if args.seconds > 0 else 0.0
    chunks: list[tuple[int, int]] = []
    left, i = args.calls, 0
    while left > 0:
        n = min(args.chunk, left)
        chunks.append((args.seed * SEED_STRIDE + i, n))
        left -= n
        i += 1
    summary = Summary(args)

    def write() -> None:
        tmp = summary_path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(summary.as_json(), indent=1))
        tmp.replace(summary_path)

    ctx = mp.get_context("spawn")
    pending: dict[Future[Any], int] = {}
    queue = list(reversed(chunks))
    last = 0.0
    with ProcessPoolExecutor(args.workers, mp_context=ctx, initializer=_init_worker) as ex:
        while queue or pending:
            while queue and len(pending) < 2 * args.workers:
                if deadline and time.time() > deadline:
                    queue.clear()
                    break
                s, n = queue.pop()
                pending[ex.submit(_chunk, s, n, args.stock_rate, args.max_findings, deadline)] = s
            if not pending:
                break
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for fut in done:
                s = pending.pop(fut)
                try:
                    rep = fut.result()
                except Exception as exc:  # a worker died: counted, the campaign goes on
                    summary.not_kept["worker_error"] = summary.not_kept.get("worker_error", 0) + 1
                    print(f"chunk {s}: {type(exc).__name__}: {exc}", file=sys.stderr)
                    continue
                for f in summary.add(s, rep):
                    with repro_path.open("a") as fh:
                        fh.write(
                            f"\n# --- {f['category']} at {f['entry']} ({f['check']}),"
                            f" chunk seed {s}\n# {f['detail']}\n{f['reproducer']}"
                        )
                write()
                now = time.time()
                if not args.quiet and now - last > 30:
                    last = now
                    j = summary.as_json()
                    print(
                        f"{j['calls']}/{args.calls} calls, {j['seconds']:.0f} s: plug-in wrong"
                        f" {j['plugin_wrong']}, both {j['both_wrong']}, stock {j['stock_wrong']}",
                        file=sys.stderr,
                        flush=True,
                    )
    write()
    j = summary.as_json()
    print(
        f"{j['calls']} calls ({j['chunks']} chunks, {j['workers']} workers, torch {j['torch']})"
        f" in {j['seconds']} s: plug-in wrong {j['plugin_wrong']}, both wrong"
        f" {j['both_wrong']}, stock wrong {j['stock_wrong']}"
    )
    for name, c in j["per_entry"].items():
        print(
            f"  {name}: {c.get('calls', 0)} calls, {c.get('checked', 0)} checked,"
            f" {c.get('points', 0)} points, plug-in wrong {c.get('plugin_wrong', 0)},"
            f" both {c.get('both_wrong', 0)}, stock {c.get('stock_wrong', 0)},"
            f" fallbacks {c.get('fallbacks', 0)}"
        )
    print(f"summary: {summary_path}; reproducers: {repro_path}")
    return 1 if j["plugin_wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
