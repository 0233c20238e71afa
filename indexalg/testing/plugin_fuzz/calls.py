"""One call to an entry point: made at random from the generator, invoked, and written as
Python source for reproducers."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._torch import _T
from .generate import _Gen
from .scenario import Scenario, _srepr

#: the entry points a call can go to (the names used in the report)
ENTRY_POINTS = (
    "simplify_with_ranges",
    "statically_known_true",
    "statically_known_leq",
    "statically_known_multiple_of",
    "maybe_evaluate_static",
    "stride_at_vec_range",
    "evaluate_expr",
    "optimization_hint",
    "guarding_hint_or_throw",
)

#: the size-hint entry points (``SizeVarAllocator`` methods; skipped on a torch without them)
HINT_ENTRIES = ("optimization_hint", "guarding_hint_or_throw")

#: the start of every reproducer
_PRELUDE = """\
import gc, math, sympy, torch
from sympy import *  # the names sympy.srepr writes
from torch._dynamo.source import ConstantSource
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.functions import (CeilDiv, CeilToInt, CleanDiv, FloorDiv, FloorToInt,
    Max, Min, Mod, ModularIndexing, PythonMod, Where)
from torch.utils._sympy.value_ranges import ValueRanges
from torch._inductor import sizevars
from torch._inductor.sizevars import SizeVarAllocator
from torch._inductor.codegen.cpp_utils import cexpr
import indexalg, indexalg.inductor
x0, x1, x2 = (sympy.Symbol(f"x{i}", integer=True, nonnegative=True) for i in range(3))
"""


@dataclass
class _Call:
    entry: str
    sc: Scenario
    args: tuple[Any, ...]
    source: str  # the call as Python source, with ``se`` the ShapeEnv


def make_call(gen: _Gen, r: random.Random, entries: Sequence[str], sc: Scenario) -> _Call:
    """A random call on ``sc`` to one of ``entries``, its arguments from ``gen``."""
    sp, F = _T.sympy, _T.F
    entry = r.choice(entries)
    if entry == "evaluate_expr":
        entry = "maybe_evaluate_static"
    if entry == "simplify_with_ranges":
        loops = gen.loops[: r.choice((1, 1, 2, 2, 3))]
        e = gen.expr(sc, loops, r.choice((1, 2, 2, 3, 3, 4)))
        vr = gen.var_ranges(sc, [v for v in loops if v in e.free_symbols] or loops)
        src = f"SizeVarAllocator(se).simplify_with_ranges({_srepr(e)}, {_vr_src(vr)})"
        return _Call(entry, sc, (e, vr), src)
    if entry == "stride_at_vec_range":
        loops = gen.loops[: r.choice((1, 2, 2))]
        e = gen.expr(sc, loops, r.choice((1, 2, 3)))
        var = r.choice(loops)
        vec = r.choice((None, 4, 8, 16))
        src = f"sizevars.stride_at_vec_range({_srepr(e)}, {_srepr(var)}, {vec})"
        return _Call(entry, sc, (e, var, vec), src)
    if entry in HINT_ENTRIES:
        # an expression over the sizes (now and then a loop index: no hint, Inductor's)
        loops = gen.loops[:1] if r.random() < 0.1 else []
        e = gen.expr(sc, loops, r.choice((1, 2, 3))) if loops else gen.size_expr(sc, 3)
        if r.random() < 0.3:
            e = e - r.choice((1, 2, 7))
        src = f"SizeVarAllocator(se).{entry}({_srepr(e)})"
        return _Call(entry, sc, (e,), src)
    with_loops = r.random() < 0.25
    if entry == "statically_known_leq":
        one = gen.loops[:1] if with_loops else []
        a = gen.expr(sc, one, r.choice((1, 2, 3)))
        b = (
            gen.expr(sc, (), r.choice((0, 1, 2)))
            if r.random() < 0.5
            else sp.Integer(r.randint(0, 40))
        )
        src = f"SizeVarAllocator(se).statically_known_leq({_srepr(a)}, {_srepr(b)})"
        return _Call(entry, sc, (a, b), src)
    if entry == "statically_known_multiple_of":
        one = gen.loops[:1] if with_loops else []
        a = gen.expr(sc, one, r.choice((1, 2, 3)))
        if r.random() < 0.3:
            a = a - 1
        if r.random() < 0.25:  # a shifted loop index, as a padded kernel asks of it
            a = r.choice(gen.loops[:2]) + r.choice((-1, -2, 1))
        d: Any = (
            r.choice(sc.int_sizes)
            if sc.int_sizes and r.random() < 0.5
            else sp.Integer(r.choice((2, 3, 4, 8, 16)))
        )
        src = f"SizeVarAllocator(se).statically_known_multiple_of({_srepr(a)}, {_srepr(d)})"
        return _Call(entry, sc, (a, d), src)
    claim = gen.claim(sc, with_loops)
    if entry == "statically_known_true":
        src = f"SizeVarAllocator(se).statically_known_true({_srepr(claim)})"
        return _Call(entry, sc, (claim,), src)
    # maybe_evaluate_static: a claim, sometimes a value, with flag variations
    flags: dict[str, Any] = {}
    roll = r.random()
    if roll < 0.15:
        flags["size_oblivious"] = True
    elif roll < 0.25:
        flags["axioms"] = ()
    target = claim
    if r.random() < 0.1:
        target = gen.size_expr(sc, 2)
        if F is None:
            target = claim
    kw = "".join(f", {k}={v!r}" for k, v in flags.items())
    src = f"se._maybe_evaluate_static({_srepr(target)}{kw})"
    return _Call(entry, sc, (target, flags), src)


def invoke(call: _Call) -> Any:
    """Make the call (with whatever is installed: the plug-in, or stock in :func:`stock`)."""
    sc = call.sc
    if call.entry == "simplify_with_ranges":
        e, vr = call.args
        return _T.SizeVarAllocator(sc.shape_env).simplify_with_ranges(e, vr)
    if call.entry == "stride_at_vec_range":
        e, var, vec = call.args
        return _T.sizevars.stride_at_vec_range(e, var, vec)
    if call.entry in HINT_ENTRIES:
        return getattr(_T.SizeVarAllocator(sc.shape_env), call.entry)(call.args[0])
    if call.entry == "statically_known_true":
        return _T.SizeVarAllocator(sc.shape_env).statically_known_true(call.args[0])
    if call.entry == "statically_known_leq":
        return _T.SizeVarAllocator(sc.shape_env).statically_known_leq(*call.args)
    if call.entry == "statically_known_multiple_of":
        return _T.SizeVarAllocator(sc.shape_env).statically_known_multiple_of(*call.args)
    target, flags = call.args
    try:
        return sc.shape_env._maybe_evaluate_static(target, **flags)
    except TypeError:
        if not flags:
            raise
        # a torch without these keyword arguments: the claim alone (for both sides)
        return sc.shape_env._maybe_evaluate_static(target)


def _vr_src(vr: dict[Any, Any]) -> str:
    return "{" + ", ".join(f"{_srepr(k)}: {_srepr(v)}" for k, v in vr.items()) + "}"
