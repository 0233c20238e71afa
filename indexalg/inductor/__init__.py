"""indexalg inside ``torch.compile``: a plug-in for PyTorch Inductor's index arithmetic.

```python
import indexalg.inductor

indexalg.inductor.install()          # or: with indexalg.inductor.enabled(): ...
compiled = torch.compile(model)      # Inductor's index arithmetic now goes through indexalg
print(indexalg.inductor.report())    # calls answered, fallbacks per reason, seconds
```

or, without editing code, ``INDEXALG_INDUCTOR=1`` (or ``true``, ``yes``, ``on``; ``0``,
``false``, ``no``, ``off`` leave it off; anything else is an error) in the environment
installs it when this module is imported, and ``python -m indexalg.inductor script.py ARGS``
runs a script with it installed and prints the report at exit.

Entry points (see :data:`ENTRY_POINTS`; :func:`entry_points` says which this torch has):

* ``SizeVarAllocator._simplify_with_ranges``: the uncached worker behind
  ``V.graph.sizevars.simplify_with_ranges`` (every loop body's indices);
* ``stride_at_vec_range``: the CPU (C++) vectoriser's lane-to-lane stride of an index, with
  its ``simplify_index_in_vec_range`` step (both called ``sympy.simplify``);
* ``ShapeEnv._maybe_evaluate_static``: claims (``statically_known_*``, guards) decided for
  every value of their symbols in their ranges;
* ``SizeVarAllocator.optimization_hint`` / ``guarding_hint_or_throw``: size hints, the value
  of an expression over backed sizes at the hint point, evaluated exactly (the same int as
  Inductor's).

Each falls back to Inductor's own function on anything indexalg cannot read or answer
soundly, and on any exception, with a counter per reason.  Importing this module imports
neither torch nor sympy; :func:`install` does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from typing import Any

from . import _entries, _state, _zones
from ._entries import ENTRY_POINTS, expression_keys_supported
from ._state import STATS, EntryStats

__all__ = [
    "ENTRY_POINTS",
    "EntryStats",
    "counters",
    "enabled",
    "entry_points",
    "expression_keys_supported",
    "install",
    "installed",
    "report",
    "reset",
    "uninstall",
]

_INSTALLED: list[str] = []


def install(only: Iterable[str] | None = None) -> list[str]:
    """Route Inductor's index arithmetic through indexalg; returns the entry points patched
    (those this torch has).  ``only`` names a subset of :data:`ENTRY_POINTS` (default: all;
    ``INDEXALG_INDUCTOR_ONLY=a,b`` in the environment does the same).  Idempotent.  Raises
    ImportError without torch, and ValueError naming the valid entry points when ``only``
    names one that does not exist."""
    import torch._inductor.sizevars

    with contextlib.suppress(ImportError):  # the C++ backend's vectoriser, if this torch has it
        import torch._inductor.codegen.cpp  # noqa: F401
    if _INSTALLED:
        return list(_INSTALLED)
    source = "install(only=...)"
    if only is None and os.environ.get("INDEXALG_INDUCTOR_ONLY"):
        only = os.environ["INDEXALG_INDUCTOR_ONLY"].split(",")
        source = "INDEXALG_INDUCTOR_ONLY"
    wanted = None if only is None else _entry_names(only, source)
    for entry in ENTRY_POINTS:
        if wanted is not None and entry.name not in wanted:
            continue
        if entry.install():
            _INSTALLED.append(entry.name)
    if _INSTALLED and _zones.zoned_entries() & set(_INSTALLED):
        for zone in _zones.ZONES:
            zone.install()
    return list(_INSTALLED)


def _entry_names(only: Iterable[str], source: str) -> set[str]:
    """The entry-point names asked for, each checked: a name that is none of
    :data:`ENTRY_POINTS` (a typo installs nothing silently otherwise) is an error listing
    the valid ones."""
    if isinstance(only, str):
        only = only.split(",")
    names = {n.strip() for n in only if n.strip()}
    valid = [e.name for e in ENTRY_POINTS]
    unknown = sorted(names - set(valid))
    if unknown:
        raise ValueError(
            f"{source}: unknown entry point{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(repr(u) for u in unknown)}; valid: {', '.join(valid)}"
        )
    if not names:
        raise ValueError(f"{source}: no entry point named; valid: {', '.join(valid)}")
    return names


#: the spellings of INDEXALG_INDUCTOR that install the plug-in, and those that do not
TRUTHY = frozenset({"1", "true", "yes", "on"})
FALSY = frozenset({"", "0", "false", "no", "off"})


def _switch(value: str) -> bool:
    """``INDEXALG_INDUCTOR``'s value read: the usual truthy / falsy spellings (any case), an
    error naming the value otherwise."""
    v = value.strip().lower()
    if v in TRUTHY:
        return True
    if v in FALSY:
        return False
    raise ValueError(
        f"INDEXALG_INDUCTOR={value!r}: expected one of {', '.join(sorted(TRUTHY))} "
        f"(install) or {', '.join(sorted(FALSY - {''}))} (do not)"
    )


def uninstall() -> None:
    """Give every patched entry point back to Inductor (memos emptied; counters kept)."""
    for entry in ENTRY_POINTS:
        entry.uninstall()
    for zone in _zones.ZONES:
        zone.uninstall()
    _INSTALLED.clear()
    _entries.clear_memos()


def installed() -> bool:
    return bool(_INSTALLED)


@contextlib.contextmanager
def enabled() -> Iterator[list[str]]:
    """``with enabled(): ...`` installs for the block (and restores the previous state)."""
    was = installed()
    names = install()
    try:
        yield names
    finally:
        if not was:
            uninstall()


def entry_points() -> dict[str, str]:
    """Every entry point and where it is on this torch: the patched locations when installed,
    ``"available"`` or ``"missing"`` otherwise."""
    out: dict[str, str] = {}
    for entry in ENTRY_POINTS:
        if entry.patched:
            out[entry.name] = ", ".join(entry.where())
        else:
            out[entry.name] = "available" if entry.resolve() is not None else "missing"
    return out


def counters() -> dict[str, dict[str, Any]]:
    """Per entry point: calls, answered, fallbacks {reason: n}, dropped {reason: n} (facts
    left out: sound, less precise), notes {kind: n}, seconds,
    fallback_seconds, convert_seconds, and errors {``error:<type>``: [where raised]}: the
    places of the first few exceptions indexalg raised (each also a fallback)."""
    return {
        name: {
            "calls": st.calls,
            "answered": st.answered,
            "fallbacks": dict(sorted(st.fallbacks.items())),
            "dropped": dict(sorted(st.dropped.items())),
            "notes": dict(sorted(st.notes.items())),
            "seconds": st.seconds,
            "fallback_seconds": st.fallback_seconds,
            "convert_seconds": st.convert_seconds,
            "errors": {k: list(v) for k, v in sorted(st.errors.items())},
        }
        for name, st in sorted(STATS.items())
    }


def reset() -> None:
    """Zero the counters."""
    _state.reset()


def report() -> str:
    """The counters as text: one block per entry point, fallbacks and dropped facts by reason."""
    lines = ["indexalg.inductor: " + ("installed" if installed() else "not installed")]
    if not STATS:
        lines.append("  no calls")
    for name, c in counters().items():
        share = 100.0 * c["answered"] / c["calls"] if c["calls"] else 0.0
        lines.append(
            f"  {name}: {c['calls']} calls, {c['answered']} answered by indexalg ({share:.1f}%),"
            f" {c['seconds']:.3f} s (of which {c['fallback_seconds']:.3f} s in Inductor's code"
            f" after a fallback, {c['convert_seconds']:.3f} s converting)"
        )
        for reason, n in c["fallbacks"].items():
            lines.append(f"    fallback {reason}: {n}")
            for where in c["errors"].get(reason, ()):
                lines.append(f"      raised at {where}")
        for reason, n in c["dropped"].items():
            lines.append(f"    dropped {reason}: {n}")
        for kind, n in c["notes"].items():
            lines.append(f"    answered, {kind}: {n}")
    return "\n".join(lines)


if _switch(os.environ.get("INDEXALG_INDUCTOR", "")):
    install()
