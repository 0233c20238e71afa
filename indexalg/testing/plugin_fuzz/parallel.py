"""Parallel campaigns: chunks with seeds derived from one seed, on worker processes, their
reports merged (the same for any number of workers)."""

from __future__ import annotations

import time
from typing import Any

from .fuzzer import run
from .report import PluginFuzzReport, _report_from_json

#: chunk seed = seed * SEED_STRIDE + chunk index (the same for any number of jobs)
SEED_STRIDE = 1_000_003


def _chunk_json(seed: int, calls: int, stock_rate: float, max_findings: int) -> dict[str, Any]:
    return run(calls, seed=seed, stock_rate=stock_rate, max_findings=max_findings).as_json()


def run_parallel(
    calls: int,
    seed: int = 0,
    *,
    jobs: int = 1,
    chunk: int = 2000,
    stock_rate: float = 1.0,
    max_findings: int = 20,
) -> PluginFuzzReport:
    """``calls`` calls in chunks of ``chunk`` (each its own seed, derived from ``seed``), on
    ``jobs`` worker processes (``spawn``: each a long-lived process, as a compiler is)."""
    chunks: list[tuple[int, int]] = []
    left, i = calls, 0
    while left > 0:
        n = min(chunk, left)
        chunks.append((seed * SEED_STRIDE + i, n))
        left -= n
        i += 1
    total = PluginFuzzReport(seed=seed, max_findings=max_findings)
    t0 = time.perf_counter()
    if jobs <= 1:
        parts = [_chunk_json(s, n, stock_rate, max_findings) for s, n in chunks]
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs, mp_context=mp.get_context("spawn")) as ex:
            futs = [ex.submit(_chunk_json, s, n, stock_rate, max_findings) for s, n in chunks]
            parts = [f.result() for f in futs]
    for part in parts:
        total.merge(_report_from_json(part))
    total.seconds = time.perf_counter() - t0
    return total
