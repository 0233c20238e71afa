"""Ranges are read once, in ranges.py, before the simplifier or any analysis sees them
(issue 22): the trace of ``bench/ranges_trace.py`` on a cold ``ia.simplify``."""

from __future__ import annotations

import indexalg as ia
from bench.ranges_trace import DEFAULT_EXPR, DEFAULT_SPEC, Trace, render, trace


def _cold_trace() -> Trace:
    spec = dict(DEFAULT_SPEC)
    e = ia.parse(DEFAULT_EXPR)
    ia.clear_caches()
    return trace(lambda: ia.simplify(e, spec), spec)


def test_ranges_enter_ranges_py_once_and_the_analyses_never_call_back() -> None:
    t = _cold_trace()
    norm = [c for c in t.into_ranges if c.normalising]
    entered = [c for c in norm if not any(o.depth < c.depth for o in norm)]
    assert [c.function for c in entered] == ["as_ranges"], render(t)
    assert [c for c in norm if c.inner] == [], render(t)
    # below the entry the value is only hashed (memo keys), never read through ranges.py
    reads = {c.function for c in t.into_ranges if c.inner and not c.normalising}
    assert reads <= {"Ranges.__hash__", "Ranges.__eq__"}, render(t)
    assert t.returns(lookups=False) == 0, render(t)


def test_a_warm_call_does_not_normalise_again() -> None:
    spec = dict(DEFAULT_SPEC)
    ia.simplify(DEFAULT_EXPR, spec)
    t = trace(lambda: ia.simplify(DEFAULT_EXPR, spec), spec)
    assert [c.function for c in t.into_ranges if c.normalising] == ["as_ranges", "spec_key"]
