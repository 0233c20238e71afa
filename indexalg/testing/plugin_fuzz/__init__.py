"""A fuzzer of the Inductor plug-in (:mod:`indexalg.inductor`), with a generator of its own.

Not the core's strategies: everything here is built the way Inductor builds it.  Random
``ShapeEnv`` objects get size symbols (``create_symbol`` with hints), float symbols
(``create_symfloatnode``, read through ``math.floor`` / ``math.ceil`` as ``FloorToInt`` /
``CeilToInt``), ranges narrowed directly in ``var_to_range``, and guards recorded through
``ShapeEnv.evaluate_expr`` at the hints: divisibility (``Eq(Mod(s, k), 0)``), comparisons,
``Ne``, ``CleanDiv``, conjunctions, replacements (``Eq(s1, s0)``).  Index expressions are
built from torch's sympy functions (``FloorDiv``, ``ModularIndexing``, ``PythonMod``,
``Mod``, ``CleanDiv``, ``CeilDiv``, ``Min``, ``Max``, ``Where``, with negative offsets such as
``x0 - 1``) with var_ranges, some keyed by expressions.  Calls go in random order to every
patched entry point (``SizeVarAllocator.simplify_with_ranges``, ``statically_known_true`` /
``leq`` / ``multiple_of``, ``ShapeEnv._maybe_evaluate_static``, ``stride_at_vec_range``,
the size hints ``SizeVarAllocator.optimization_hint`` / ``guarding_hint_or_throw`` (checked
at the hint point: the exact int value),
``ShapeEnv.evaluate_expr`` itself while guards are taken), between memo events (the plug-in
uninstalled and installed again, ``indexalg.clear_caches()``, ShapeEnvs created and
garbage-collected in the same process).

Every answer is checked by brute force at points that satisfy every recorded guard (small
values of the size symbols within their ranges, loop indices within var_ranges): a claim
answered True must hold at every point, False must fail at every one; a
``simplify_with_ranges`` result must keep the input's value at every point, and so must its
printed code: Inductor's C++ printer (``cexpr``) and Triton printer (``texpr``) output is
parsed and evaluated in C semantics (truncating ``/`` and ``%``, ``c10::div_floor_integer``,
Triton's ``//`` and ``%`` on integers truncating) against the input's true (Python floor
semantics) value.  Every call is made again with stock Inductor (the plug-in's patches
lifted for the call, its memos kept): a plug-in answer counts as wrong only where stock's
is right; stock's own wrong answers and those both get wrong are counted apart.

Needs torch and sympy, nothing else (no hypothesis, no z3): :func:`run` is what the property
tests, ``indexalg fuzz --target plugin`` and ``python -m bench.plugin_fuzz`` call.  Importing
``indexalg.testing`` does not import this package.

The package's modules, bottom first: ``_torch`` (torch and sympy, imported on first use),
``value`` (the true value, floor semantics), ``cvalue`` (printed C++ and Triton, C
semantics), ``scenario`` (a ShapeEnv with its symbols, guards and points), ``report`` (findings
and counts), ``plugin`` (the plug-in's counters, :func:`stock`), ``generate`` (the
generator), ``calls`` (one call: made, invoked, written as source), ``checks`` (points and
verdicts), ``environments`` (ShapeEnvs and memo events), ``fuzzer`` (:class:`PluginFuzzer`,
:func:`run`), ``parallel`` (:func:`run_parallel`).  ``indexalg fuzz --target plugin`` is
:mod:`indexalg.cli.fuzz`.
"""

from __future__ import annotations

from .calls import ENTRY_POINTS
from .cvalue import Unprintable, c_eval, compile_c, compile_triton, triton_eval
from .fuzzer import PluginFuzzer, run
from .parallel import SEED_STRIDE, run_parallel
from .plugin import stock
from .report import (
    BOTH_WRONG,
    PLUGIN_ERROR,
    PLUGIN_WRONG,
    STOCK_WRONG,
    EntryCounts,
    Finding,
    PluginFuzzReport,
)
from .scenario import Scenario, SizeSym
from .value import Undefined, compile_value, true_value

__all__ = [
    "BOTH_WRONG",
    "ENTRY_POINTS",
    "PLUGIN_ERROR",
    "PLUGIN_WRONG",
    "SEED_STRIDE",
    "STOCK_WRONG",
    "EntryCounts",
    "Finding",
    "PluginFuzzReport",
    "PluginFuzzer",
    "Scenario",
    "SizeSym",
    "Undefined",
    "Unprintable",
    "c_eval",
    "compile_c",
    "compile_triton",
    "compile_value",
    "run",
    "run_parallel",
    "stock",
    "triton_eval",
    "true_value",
]
