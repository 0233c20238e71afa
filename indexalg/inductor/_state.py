"""Counters of the Inductor plug-in: per entry point, calls answered by indexalg, calls sent
back to Inductor's own code (per reason), precision given up (per reason) and seconds.

Plain dictionaries guarded by nothing: Inductor compiles a graph on one thread (its worker
processes compile C++/Triton source, they do not run index arithmetic).
"""

from __future__ import annotations

import os
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["IN_STOCK", "Fallback", "EntryStats", "STATS", "stats_for", "reset", "clock"]

clock = time.perf_counter


class Fallback(Exception):
    """Raised inside the plug-in to hand one call back to Inductor's code, with a reason."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class EntryStats:
    """What happened at one entry point since the last :func:`reset`."""

    calls: int = 0
    answered: int = 0
    #: reason -> calls handed to Inductor's own code
    fallbacks: Counter[str] = field(default_factory=Counter)
    #: reason -> calls answered with less information than Inductor had (sound, less precise)
    dropped: Counter[str] = field(default_factory=Counter)
    #: kind -> answered calls worth telling apart (e.g. a stride that varies across lanes)
    notes: Counter[str] = field(default_factory=Counter)
    #: seconds inside the entry point (indexalg's work plus any fallback to Inductor)
    seconds: float = 0.0
    #: seconds of the above spent in Inductor's own code after a fallback
    fallback_seconds: float = 0.0
    #: seconds converting sympy <-> indexalg (cache misses only cost anything)
    convert_seconds: float = 0.0
    #: ``error:<type>`` reason -> where the first distinct errors of that type were raised
    #: (at most :data:`ERROR_SAMPLES`): a bug report from a run that only counts
    errors: dict[str, list[str]] = field(default_factory=dict)

    def record_error(self, reason: str, exc: BaseException) -> None:
        """Keep where ``exc`` was raised, unless :data:`ERROR_SAMPLES` places are kept."""
        seen = self.errors.setdefault(reason, [])
        if len(seen) < ERROR_SAMPLES:
            where = raised_at(exc)
            if where not in seen:
                seen.append(where)


#: distinct places kept per error type and entry point
ERROR_SAMPLES = 3

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def raised_at(exc: BaseException) -> str:
    """Where ``exc`` was raised (``file:line in function``), then the innermost frame of
    indexalg's own code it passed through when that is another (paths from the package's
    parent folder), and the message."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if os.path.abspath(f.filename).startswith(_PACKAGE + os.sep)]
    root = os.path.dirname(_PACKAGE)
    places = dict.fromkeys(
        f"{os.path.relpath(f.filename, root)}:{f.lineno} in {f.name}"
        for f in frames[-1:] + ours[-1:]
    )
    message = " ".join(str(exc).split())[:200]
    return f"{' <- '.join(places)}: {type(exc).__name__}: {message}"


STATS: dict[str, EntryStats] = {}

#: how many fallbacks to Inductor's own code are on the stack: while one runs, every entry
#: point hands its calls to Inductor too (the reason ``inside_stock_fallback``)
IN_STOCK = [0]


def stats_for(name: str) -> EntryStats:
    st = STATS.get(name)
    if st is None:
        st = STATS[name] = EntryStats()
    return st


def reset() -> None:
    """Zero every counter."""
    STATS.clear()
