"""Where a ranges spec goes in ``ia.simplify``: every call that receives it, in order.

Run as ``python -m bench.ranges_trace [EXPR] [--range NAME=SPEC ...]`` (the default is a
cold ``ia.simplify("x // 64 % 64 * 64 + x % 64 + y // s0", {...})`` with every common form of
range).  ``sys.setprofile`` sees each call of a function of the package; a call is listed
when one of its parameters is the spec dict or a :class:`~indexalg.ranges.Ranges` (the spec
normalised, or a range narrowed from it), with the module it runs in (its "room").  Below
the list:

* the rooms the ranges pass through, and how often a call returns to a room already left
  (issue 22 counted 31 such returns in 39 stays before ranges were normalised in one place);
* every call of a normalising function of ``indexalg/ranges.py`` (a module-level function:
  ``as_ranges`` and the helpers that read a spec), with whether an analysis, the simplifier
  or a procedure was on the stack: ranges enter ``ranges.py`` to be read once, from the
  entry point, and the analyses never call back into it;
* every other call into ``ranges.py`` while an analysis is on the stack (methods of the
  ``Ranges`` value: hashing for a memo key, or building a range narrowed by a Where).

``tests/test_ranges_trace.py`` asserts the two properties on the default call.
"""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import indexalg as ia
from indexalg.ranges import Ranges, parse_range_arg

__all__ = ["Call", "Trace", "trace", "main"]

DEFAULT_EXPR = "x // 64 % 64 * 64 + x % 64 + y // s0"
DEFAULT_SPEC: dict[str, Any] = {"x": 4096, "y": (0, "4*s0 - 1"), "s0": (1, None), "z": "s0"}

#: Modules whose frames mean "inside an analysis, the simplifier or a procedure" (the
#: simplifier's entry points, ``indexalg.simplify.entry``, are not inside: they receive the
#: ranges from the caller; before issue 22 the driver and its entry shared one module).
INNER = (
    "indexalg.analysis",
    "indexalg.procedures",
    "indexalg.rewrite",
    "indexalg.simplify.driver",
    "indexalg.simplify.rebuild",
)

#: The modules that read ranges: ``ranges.py`` and the per-entry reading it calls
#: (``_rangespec.py``, apart only to be compiled in the compiled build), one room.
RANGES_MODULES = ("indexalg.ranges", "indexalg._rangespec")


def _room(module: str) -> str:
    return "indexalg.ranges" if module in RANGES_MODULES else module


@dataclass(frozen=True)
class Call:
    depth: int
    module: str
    function: str
    params: tuple[str, ...]  # the parameters that held the ranges
    inner: bool  # an analysis / simplifier / procedure frame below it on the stack
    normalising: bool  # a module-level function of indexalg/ranges.py or _rangespec.py


@dataclass
class Trace:
    calls: list[Call]
    #: every call into indexalg/ranges.py, ranges as a parameter or not
    into_ranges: list[Call]

    def rooms(self, *, lookups: bool = True) -> list[str]:
        """The modules of the listed calls, consecutive repeats merged; without
        ``lookups``, leaving out the memo tables' own methods and the hashing or comparing
        of a Ranges (a dict lookup keyed by it), which read the value and pass it nowhere."""
        out: list[str] = []
        for c in self.calls:
            if not lookups and _is_lookup(c):
                continue
            room = _room(c.module)
            if not out or out[-1] != room:
                out.append(room)
        return out

    def returns(self, *, lookups: bool = True) -> int:
        """Stays in a room already left before."""
        rooms = self.rooms(lookups=lookups)
        return sum(1 for i, r in enumerate(rooms) if r in rooms[:i])


def _is_lookup(c: Call) -> bool:
    return c.module == "indexalg.memo" or c.function.endswith(("__hash__", "__eq__"))


def _is_ranges(v: object, spec: object) -> bool:
    return v is spec or isinstance(v, Ranges)


def _normalising(code: types.CodeType, module: str) -> bool:
    return module in RANGES_MODULES and "." not in code.co_qualname


def trace(run: Callable[[], object], spec: Mapping[str, object]) -> Trace:
    """The calls ``run()`` makes that receive ``spec`` (or a Ranges)."""
    calls: list[Call] = []
    into: list[Call] = []
    depth = [0]

    def prof(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "return":
            depth[0] -= 1
            return
        if event != "call":
            return
        depth[0] += 1
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("indexalg"):
            return
        code = frame.f_code
        n = code.co_argcount + code.co_kwonlyargcount
        local = frame.f_locals
        params = tuple(p for p in code.co_varnames[:n] if _is_ranges(local.get(p), spec))
        inner = False
        f = frame.f_back
        while f is not None:
            if f.f_globals.get("__name__", "").startswith(INNER):
                inner = True
                break
            f = f.f_back
        call = Call(depth[0], module, code.co_qualname, params, inner, _normalising(code, module))
        if params:
            calls.append(call)
        if module in RANGES_MODULES:
            into.append(call)

    sys.setprofile(prof)
    try:
        run()
    finally:
        sys.setprofile(None)
    return Trace(calls, into)


def render(t: Trace) -> str:
    base = min((c.depth for c in t.calls), default=0)
    lines = ["calls that receive the ranges (indent = call depth):"]
    for c in t.calls:
        mark = "  [normalises]" if c.normalising else ""
        mark += "  [under an analysis/simplifier frame]" if c.inner else ""
        lines.append(
            f"  {'  ' * min(c.depth - base, 30)}{c.module}.{c.function}({', '.join(c.params)})"
            f"{mark}"
        )
    for lookups in (True, False):
        rooms = t.rooms(lookups=lookups)
        lines.append("")
        lines.append(
            f"rooms{'' if lookups else ' without memo lookups and hashing'} ({len(rooms)} stays, "
            f"{t.returns(lookups=lookups)} returns to a room already left):"
        )
        lines.append("  " + " -> ".join(r.removeprefix("indexalg.") for r in rooms))
    norm = [c for c in t.into_ranges if c.normalising]
    top = [c for c in norm if not any(o.depth < c.depth for o in norm)]
    lines.append("")
    lines.append(
        f"normalising functions of indexalg/ranges.py: {len(norm)} calls, "
        f"{len(top)} entered from outside ranges.py "
        f"({', '.join(c.function for c in top)}); "
        f"under an analysis/simplifier frame: {sum(c.inner for c in norm)}"
    )
    other = [c for c in t.into_ranges if c.inner and not c.normalising]
    names = sorted({c.function for c in other})
    lines.append(
        f"other calls into ranges.py under an analysis/simplifier frame: {len(other)}"
        + (f" ({', '.join(names)})" if names else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("expr", nargs="?", default=DEFAULT_EXPR)
    p.add_argument("--range", dest="ranges", action="append", default=[], metavar="NAME=SPEC")
    args = p.parse_args(argv)
    spec: dict[str, Any] = dict(parse_range_arg(r) for r in args.ranges) or dict(DEFAULT_SPEC)
    e = ia.parse(args.expr)
    ia.clear_caches()
    t = trace(lambda: ia.simplify(e, spec), spec)
    print(f"ia.simplify({args.expr!r}, {spec!r}), cold:")
    print(render(t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
