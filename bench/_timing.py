"""Timing helpers for the benchmarks: summary statistics, the machine line, worker runs.

Standard library only, so that a worker process pays for nothing it does not time.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Summary", "summarise", "percentile", "machine_info", "run_worker"]


@dataclass(frozen=True)
class Summary:
    """Median, mean and 99th percentile of a sample of durations, in microseconds."""

    n: int
    median_us: float
    mean_us: float
    p99_us: float


def percentile(sorted_values: list[float], q: float) -> float:
    """The ``q``-th percentile (0 <= q <= 100) of an ascending sample, by linear
    interpolation between closest ranks (numpy's default); 0.0 for an empty sample."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile must be in [0, 100], got {q}")
    if not sorted_values:
        return 0.0
    pos = (len(sorted_values) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] * (1 - frac) + sorted_values[hi] * frac


def summarise(durations_ns: list[int]) -> Summary:
    """Median, mean and p99 of durations given in nanoseconds, reported in microseconds."""
    values = sorted(d / 1000 for d in durations_ns)
    if not values:
        return Summary(0, 0.0, 0.0, 0.0)
    return Summary(
        n=len(values),
        median_us=percentile(values, 50),
        mean_us=sum(values) / len(values),
        p99_us=percentile(values, 99),
    )


def _version(module: str) -> str:
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:
        return "not installed"


def machine_info() -> dict[str, str]:
    """The machine and versions a result was measured with (package versions are read
    from installed metadata, without importing the packages)."""
    return {
        "nproc": str(os.cpu_count()),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "sympy": _version("sympy"),
        "tvm": _version("apache-tvm"),
    }


def run_worker(
    module: str, args: list[str], payload: Any, *, timeout_s: float, cwd: Path | None = None
) -> Any:
    """Run ``python -m module ARGS --in FILE --out FILE`` in a fresh interpreter (in
    directory ``cwd``), with ``payload`` written to the input file as JSON; return the JSON
    the worker wrote.

    The worker's stderr passes through; a non-zero exit raises RuntimeError.
    """
    with tempfile.TemporaryDirectory(prefix="indexalg-bench-") as tmp:
        src = Path(tmp) / "in.json"
        dst = Path(tmp) / "out.json"
        src.write_text(json.dumps(payload), encoding="utf-8")
        cmd = [sys.executable, "-m", module, *args, "--in", str(src), "--out", str(dst)]
        proc = subprocess.run(cmd, timeout=timeout_s, check=False, cwd=cwd)
        if proc.returncode != 0:
            raise RuntimeError(f"worker {' '.join(args)} exited with status {proc.returncode}")
        return json.loads(dst.read_text(encoding="utf-8"))
