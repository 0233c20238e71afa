"""Side-by-side simplifier benchmark: indexalg, Inductor and TVM on the same corpus, one run.

Run from the repository root::

    python -m bench.simplify                 # the harvested corpus, every system
    python -m bench.simplify --quick         # a fixed subset (about 150 cases)
    python -m bench.simplify --generated 300 # a seeded Inductor-style corpus instead
    python -m bench.simplify --no-tvm --no-inductor --profile
    python -m bench.simplify --clock cpu     # time with thread CPU time (a shared machine)
    python -m bench.simplify --rounds 1 --no-in-compile   # one pass, the fresh row only
    python -m bench.simplify --profile-expr "s27*ModularIndexing(n0, 1, s77) + n0//s77" \
        --range s27=2.. --range s77=2.. --range n0=0..s27*s77-1   # cProfile of one fresh call
    python -m bench.simplify --append-results   # also prepend the table to bench/RESULTS.md

Without ``--corpus`` or ``--generated`` it reads ``bench/corpus/corpus.jsonl.gz`` (falling back
to 300 generated cases when that file is missing).

What each row measures.  Every system runs in a worker process of its own, all alive at
once and taking turns: chunk by chunk (``--chunk``, 200 cases), the order of the systems
rotated from chunk to chunk, so that a change in the machine's load falls on all of them alike;
``--rounds`` passes (3), each case keeping its fastest time.  Read the ratios between rows
measured in one run; ``--clock cpu`` times thread CPU time (a shared machine).

* **indexalg fresh** (the row every ratio is taken against, and the like-for-like one):
  per expression ``ia.clear_caches()`` (untimed), then timed together
  ``ia.as_ranges(spec)`` (bounds given as parsed expressions, as TVM's row gets them) and
  ``ia.simplify(e, ranges)``.  **warm**: a second ``ia.simplify(e, ranges)`` right after.
* **indexalg in-compile**: the memo tables carried from one expression to the next in corpus
  order, as inside one torch.compile (this was the row called "cold" before issue 27); every
  range normalised before the pass (untimed), each ``ia.simplify(e, ranges)`` timed; a pass
  from the first case starts from ``ia.clear_caches()``.  **warm**: the chunk again.
* **Inductor cold**: per expression, ``sympy.core.cache.clear_cache()``, the sympy expression
  rebuilt from its ``srepr`` (fresh objects), a new ``SizeVarAllocator`` (a new ShapeEnv
  holding the size symbols' ranges), ``clear_cache()`` again, then one timed
  ``simplify_with_ranges(expr, var_ranges)``.  **cached**: the second, identical call.
* **TVM**: per expression, timed together: a new ``tvm.sym.Analyzer``, int64 ``tirx.Var``s,
  ``bind(v, ir.Range(lo, hi + 1))`` for two-sided ranges (``constraint_scope`` for one-sided
  ones), the expression tree built from indexalg's, ``analyzer.simplify``.  **warm**: a second
  ``simplify`` of the same tree by the same analyzer.

Quality, counted the same way for every system: each output is converted to indexalg
(Inductor's with ``ia.from_sympy``, TVM's by walking its tree) and counted by
:func:`op_counts`.  Value mismatches: input and output evaluated with ``ia.evaluate`` at
``--points`` in-range points per expression (size symbols drawn first, unbounded sides capped
at 64 values; two corner points, the rest random with a bias to the bounds).  A point where
the input has no value (a zero divisor) is skipped; an output that fails where the input
does not is a mismatch.

Timing and quality columns are computed on the expressions every enabled system took, so
ratios compare like with like; ``skipped`` (the system cannot represent the input) and
``errors`` (it raised, or its output could not be read back) are counted per system, and
mismatches are counted on everything a system took.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import importlib
import importlib.util
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Union

from bench._timing import Summary, machine_info, run_worker, summarise

__all__ = [
    "Case",
    "CaseResult",
    "SYSTEMS",
    "OpCounts",
    "op_counts",
    "cases_from_corpus",
    "generate_cases",
    "quick_subset",
    "sample_points",
    "run_benchmark",
    "main",
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS_PATH = HERE / "RESULTS.md"
QUICK_SIZE = 150

Bound = Union[int, str, None]

# ---------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    """One benchmark input: an expression with the ranges of its symbols.

    ``ranges`` lists ``(name, lo, hi)`` with inclusive bounds (ints, expression text, or
    None for an unbounded side), size symbols first; ``loop_sizes`` lists Inductor's
    ``var_ranges`` (loop variable -> exclusive size); ``srepr`` rebuilds the sympy expression
    Inductor was given (None for generated cases, which go through ``ia.to_sympy``).
    """

    text: str
    ranges: tuple[tuple[str, Bound, Bound], ...]
    loop_sizes: tuple[tuple[str, int | str], ...]
    srepr: str | None = None
    workload: str = "generated"
    dynamic: bool = False

    def ranges_spec(self) -> dict[str, tuple[Bound, Bound]]:
        """The ranges in indexalg's accepted form (``ia.as_ranges`` reads it)."""
        return {name: (lo, hi) for name, lo, hi in self.ranges}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Case:
        return Case(
            text=d["text"],
            ranges=tuple((n, lo, hi) for n, lo, hi in d["ranges"]),
            loop_sizes=tuple((n, s) for n, s in d["loop_sizes"]),
            srepr=d.get("srepr"),
            workload=d.get("workload", "generated"),
            dynamic=bool(d.get("dynamic", False)),
        )


def cases_from_corpus(records: Iterable[Mapping[str, Any]]) -> list[Case]:
    """Cases from ``bench.corpus.load.load_corpus()`` records (in their order).

    The expression is ``expr`` (sympy's ``str``, which ``ia.parse`` reads as the ``srepr``
    reads through ``ia.from_sympy``; ``expr_fn`` is not used: it prints torch's ``Identity``
    as ``I``); size symbols take ``symbols[name]["range"]``, loop variables
    ``var_ranges[name]`` (inclusive ``[0, size - 1]``).
    """
    out: list[Case] = []
    for r in records:
        ranges: list[tuple[str, Bound, Bound]] = []
        for name in sorted(r.get("symbols", {})):
            lo, hi = r["symbols"][name]["range"]
            ranges.append((name, lo, hi))
        for name in sorted(r["var_ranges"]):
            lo, hi = r["var_ranges"][name]
            ranges.append((name, lo, hi))
        sizes = r.get("var_sizes") or {
            n: (hi + 1 if isinstance(hi, int) else f"{hi} + 1")
            for n, (_, hi) in r["var_ranges"].items()
        }
        out.append(
            Case(
                text=r["expr"],
                ranges=tuple(ranges),
                loop_sizes=tuple(sorted(sizes.items())),
                srepr=r.get("srepr"),
                workload=r.get("workload", "?"),
                dynamic=bool(r.get("dynamic", False)),
            )
        )
    return out


def quick_subset(cases: Sequence[Case], size: int = QUICK_SIZE) -> list[Case]:
    """Every k-th case, k chosen so that about ``size`` remain (deterministic)."""
    step = max(1, len(cases) // size)
    return list(cases[::step])


# --- a seeded generator of Inductor-style index expressions ------------------------------

_DIMS = (2, 3, 4, 5, 7, 8, 9, 10, 12, 16, 24, 32, 64, 128, 197, 256)


def _mi(a: str, d: int | str, m: int | str) -> str:
    return f"ModularIndexing({a}, {d}, {m})"


def _permuted_view(rng: random.Random, var: str) -> tuple[str, int]:
    """A flat index over a permuted contiguous tensor: sum of stride * (x // inner % dim)."""
    dims = [rng.choice(_DIMS) for _ in range(rng.randint(2, 4))]
    perm = list(range(len(dims)))
    rng.shuffle(perm)
    strides = [1] * len(dims)
    acc = 1
    for p in reversed(perm):  # contiguous strides of the permuted tensor
        strides[p] = acc
        acc *= dims[p]
    terms = []
    inner = 1
    for i in reversed(range(len(dims))):
        if i == 0:
            t = f"FloorDiv({var}, {inner})" if inner > 1 else var
        else:
            t = _mi(var, inner, dims[i])
        terms.append(t if strides[i] == 1 else f"{strides[i]}*{t}")
        inner *= dims[i]
    return " + ".join(terms), inner


def _flat(text: str, size: int, workload: str) -> Case:
    return Case(text, (("x0", 0, size - 1),), (("x0", size),), workload=workload)


def _gen_permute(rng: random.Random) -> Case:
    text, size = _permuted_view(rng, "x0")
    return _flat(text, size, "gen_permute")


def _gen_nested(rng: random.Random) -> Case:
    b = rng.choice((2, 4, 8, 16, 3, 5))
    a = b * rng.choice((1, 2, 4, 8, 3, 7))
    d1 = rng.choice((1, 1, 2, 4, 16))
    d2 = rng.choice((1, 1, 2))
    size = d1 * a * rng.choice((1, 2, 4)) * d2
    text = f"{rng.choice((1, 3, 64))}*{_mi(_mi('x0', d1, a), d2, b)} + {_mi('x0', 1, 4)}"
    return _flat(text, size, "gen_nested")


def _gen_join(rng: random.Random) -> Case:
    c1 = rng.choice((4, 8, 32, 197, 6))
    c2 = rng.choice((2, 4, 3, 16))
    terms = [_mi("x0", 1, c1), f"{c1}*{_mi('x0', c1, c2)}"]
    if rng.random() < 0.5:
        terms.append(f"{c1 * c2}*FloorDiv(x0, {c1 * c2})")
    text = f"{rng.choice((1, 1, 2))}*({' + '.join(terms)})"
    return _flat(text, c1 * c2 * rng.choice((1, 2, 8)), "gen_join")


def _gen_divsum(rng: random.Random) -> Case:
    k = rng.choice((2, 4, 8, 16))
    n1 = rng.choice((4, 16, 64, 1024))
    size1 = rng.choice((8, 32, 128))
    text = f"{n1}*x1 + FloorDiv(x0 + {k * rng.choice((1, 4, 8))}*x2, {k})"
    ranges = (("x0", 0, k - 1), ("x1", 0, size1 - 1), ("x2", 0, 15))
    return Case(text, ranges, (("x0", k), ("x1", size1), ("x2", 16)), workload="gen_divsum")


#: symbolic-size templates: (expression, ranges, Inductor's var_ranges)
_SYMBOLIC: tuple[
    tuple[str, tuple[tuple[str, Bound, Bound], ...], tuple[tuple[str, str], ...]], ...
] = (
    (
        f"{_mi('x0', 1, 's0')} + s0*FloorDiv(x0, s0)",
        (("s0", 1, None), ("s1", 1, None), ("x0", 0, "s0*s1 - 1")),
        (("x0", "s0*s1"),),
    ),
    (
        f"{_mi('x0', 1, '2*s0')} + FloorDiv(x0, s0 + 1)",
        (("s0", 1, None), ("x0", 0, "s0 - 1")),
        (("x0", "s0"),),
    ),
    (
        f"s1*{_mi('x0', 's0', 's1')} + {_mi('x0', 1, 's0')}",
        (("s0", 2, None), ("s1", 2, None), ("x0", 0, "s0*s1 - 1")),
        (("x0", "s0*s1"),),
    ),
    (
        f"x1 + s0*{_mi('x0', 1, 's0')} + FloorDiv(x0, s0)*s0*s1",
        (("s0", 2, None), ("s1", 1, None), ("x0", 0, "s0 - 1"), ("x1", 0, "s0 - 1")),
        (("x0", "s0"), ("x1", "s0")),
    ),
)


def _gen_symbolic(rng: random.Random) -> Case:
    text, ranges, sizes = rng.choice(_SYMBOLIC)
    return Case(text, ranges, sizes, workload="gen_symbolic", dynamic=True)


def _gen_pad(rng: random.Random) -> Case:
    w = rng.choice((8, 16, 30, 64))
    h = rng.choice((4, 8, 9))
    p = rng.choice((1, 2))
    text = f"-{p} + {_mi('x0', 1, w + 2 * p)} + {w}*{_mi('x0', w + 2 * p, h)}"
    return _flat(text, (w + 2 * p) * h * 2, "gen_pad")


def _gen_indirect(rng: random.Random) -> Case:
    rows = rng.choice((64, 1000, 50257))
    dim = rng.choice((16, 128, 768))
    text = f"x0 + {dim}*Where(tmp0 < 0, tmp0 + {rows}, tmp0)"
    ranges = (("tmp0", -rows, rows - 1), ("x0", 0, dim - 1))
    return Case(text, ranges, (("x0", dim),), workload="gen_indirect")


def _gen_minmax(rng: random.Random) -> Case:
    c = rng.choice((63, 64, 127))
    size = rng.choice((64, 128))
    return _flat(f"Min({c}, x0) + Max(0, x0 - {size})", size, "gen_minmax")


#: The generator's templates, used in rotation.
GENERATORS: tuple[Callable[[random.Random], Case], ...] = (
    _gen_permute,
    _gen_nested,
    _gen_join,
    _gen_divsum,
    _gen_symbolic,
    _gen_pad,
    _gen_indirect,
    _gen_minmax,
)


def generate_cases(n: int, seed: int = 0) -> list[Case]:
    """``n`` Inductor-style expressions with ranges, the same for a given ``seed``.

    Templates (:data:`GENERATORS`), in rotation: permuted views (sums of scaled
    ModularIndexing / FloorDiv of one flat index), nested ModularIndexing, split-and-fused
    dimensions, floor division over a sum of loop variables, symbolic sizes (``x < s0``,
    ``x < s0*s1``), padding offsets, wrapped negative indices (``Where``) and Min/Max clamps.
    """
    rng = random.Random(seed)
    return [GENERATORS[i % len(GENERATORS)](rng) for i in range(n)]


# ---------------------------------------------------------------------------------------
# Counting operations (one counter for every system's output)


class OpCounts(NamedTuple):
    """What :func:`op_counts` returns."""

    #: div/mod operations, every occurrence counted
    divmod: int
    #: all operations, every occurrence counted
    total: int
    #: div/mod operations of the distinct subexpressions (what code with CSE computes)
    divmod_distinct: int


def _own_ops(n: Any) -> tuple[int, int]:
    """(div/mod, total) operations of one node, not counting its children."""
    import indexalg as ia

    cls = type(n)
    args = n.args
    if cls is ia.Add:
        return 0, len(args) + (n.payload != 0) - 1
    if cls is ia.Mul:
        return 0, len(args) + (n.payload not in (1, -1)) - 1
    if cls is ia.ModularIndexing:
        dm = 1 if args[1] is ia.Integer(1) else 2
        return dm, dm
    if cls in (ia.FloorDiv, ia.CeilDiv, ia.CleanDiv, ia.Mod):
        return 1, 1
    if cls in (ia.Min, ia.Max, ia.And, ia.Or):
        return 0, len(args) - 1
    return (0, 1) if args else (0, 0)


def op_counts(e: Any) -> OpCounts:
    """The operations of an indexalg expression, counted on the expression as a tree (a
    repeated subexpression counts each time it occurs), and its distinct div/mod operations.

    div/mod: FloorDiv, CeilDiv, CleanDiv and Mod count 1; ``ModularIndexing(a, d, m)``
    counts 2 (a division and a remainder), or 1 when d is the literal 1; so
    ``Mod(FloorDiv(a, 64), 8)`` and ``ModularIndexing(a, 64, 8)`` count the same.
    total: the div/mod operations, plus ``k - 1`` for a sum of k summands (a non-zero
    constant counts as a summand), ``k - 1`` for a product of k factors (a coefficient other
    than 1 and -1 counts as a factor: negation is free), ``k - 1`` for an n-ary Min, Max,
    And, Or, and 1 for each Where, comparison and Not.
    """
    memo: dict[Any, tuple[int, int]] = {}

    def go(n: Any) -> tuple[int, int]:
        hit = memo.get(n)
        if hit is not None:
            return hit
        dm, tot = _own_ops(n)
        for a in n.args:
            d, t = go(a)
            dm += d
            tot += t
        memo[n] = (dm, tot)
        return dm, tot

    dm, tot = go(e)
    distinct = sum(_own_ops(n)[0] for n in memo)
    return OpCounts(dm, tot, distinct)


# ---------------------------------------------------------------------------------------
# Points in range, and value mismatches

_SPAN = 64  # values drawn on an unbounded side


def sample_points(case: Case, expr: Any, k: int, rng: random.Random) -> list[dict[str, int]]:
    """Up to ``k`` assignments inside ``case.ranges`` (every free symbol of ``expr`` bound).

    Point 0 puts every symbol at its lower bound, point 1 at its upper bound (each side
    capped to ``_SPAN`` values when unbounded); the others draw each symbol at its lower
    bound (1/4), its upper bound (1/4) or uniformly (1/2).  Bounds that are expressions are
    evaluated once the symbols they mention are drawn (size symbols first).  An empty range
    at a draw drops that point.
    """
    import indexalg as ia

    bounds: dict[str, tuple[Any, Any]] = {}
    for name, lo, hi in case.ranges:
        bounds[name] = (_bound_expr(lo), _bound_expr(hi))
    for s in expr.free_symbols:
        bounds.setdefault(s.name, (None, None))
    points: list[dict[str, int]] = []
    for attempt in range(3 * k):
        if len(points) >= k:
            break
        mode = attempt if attempt < 2 else 2
        env: dict[str, int] = {}
        pending = list(bounds)
        ok = True
        while pending and ok:
            progressed = False
            for name in list(pending):
                lo_e, hi_e = bounds[name]
                try:
                    lo = None if lo_e is None else ia.evaluate(lo_e, env)
                    hi = None if hi_e is None else ia.evaluate(hi_e, env)
                except ia.UnboundSymbolError:
                    continue
                except ia.IndexAlgError:
                    ok = False
                    break
                assert not isinstance(lo, bool) and not isinstance(hi, bool)
                if lo is None:
                    lo = (hi if hi is not None else _SPAN) - _SPAN
                if hi is None:
                    hi = lo + _SPAN - 1
                if lo > hi:
                    ok = False
                    break
                r = rng.random()
                if mode == 0 or (mode == 2 and r < 0.25):
                    env[name] = lo
                elif mode == 1 or r < 0.5:
                    env[name] = hi
                else:
                    env[name] = rng.randint(lo, hi)
                pending.remove(name)
                progressed = True
            if not progressed:
                ok = False  # a cycle among the bounds
        if ok:
            points.append(env)
    return points


def _bound_expr(b: Bound) -> Any:
    import indexalg as ia

    if b is None:
        return None
    return ia.parse(b) if isinstance(b, str) else ia.Integer(b)


@dataclass
class Mismatch:
    """An output that differs from its input at an in-range point."""

    system: str
    case: Case
    output: str
    point: dict[str, int]
    expected: int | bool
    got: str


def find_mismatch(
    system: str, case: Case, expected: Sequence[tuple[dict[str, int], Any]], out: Any
) -> Mismatch | None:
    """The first point where ``out`` does not evaluate to the input's value, if any."""
    import indexalg as ia

    for env, want in expected:
        try:
            got: Any = ia.evaluate(out, env)
        except ia.IndexAlgError as err:
            got = f"error: {err}"
        if got != want or type(got) is not type(want):
            return Mismatch(system, case, str(out), env, want, str(got))
    return None


# ---------------------------------------------------------------------------------------
# Workers: each runs in a fresh interpreter and returns one result per case


@dataclass
class CaseResult:
    """One system on one case: ``status`` is "ok", "skipped" (the system cannot represent
    the input) or "error" (it raised, or its output could not be read back); times in ns."""

    status: str
    out: str = ""
    why: str = ""
    cold_ns: int = 0
    warm_ns: int = 0


#: A runner times one chunk of a worker's cases: ``run(lo, hi)`` returns the results of
#: ``cases[lo:hi]``.  A worker builds its runner once (imports, parsing: untimed) and the parent
#: calls it chunk by chunk, alternating the systems (see :func:`run_benchmark`).
Runner = Callable[[int, int], list[CaseResult]]


def _indexalg_inputs(cases: Sequence[Case]) -> list[tuple[Any, dict[str, Any]] | str]:
    """Per case, the parsed expression and its ranges spec with every textual bound parsed
    (so that the timed ``ia.as_ranges`` gets what TVM's row gets: expressions, not text), or
    the reason it is skipped."""
    import indexalg as ia

    out: list[tuple[Any, dict[str, Any]] | str] = []
    for c in cases:
        try:
            e = ia.parse(c.text)
            spec = {n: (_bound_expr(lo), _bound_expr(hi)) for n, lo, hi in c.ranges}
            ia.as_ranges(spec)  # invalid ranges are skipped, as a parse error is
            out.append((e, spec))
        except ia.IndexAlgError as err:
            out.append(f"{type(err).__name__}: {err}")
    return out


def _runner_indexalg_fresh(cases: Sequence[Case], clock: str = "wall") -> Runner:
    """indexalg as a new user meets it: before each expression ``ia.clear_caches()``
    (untimed); timed together, ``ia.as_ranges(spec)`` and ``ia.simplify(e, ranges)``.  warm: a
    second ``ia.simplify(e, ranges)`` with the same ranges (the result memo)."""
    import indexalg as ia

    prepared = _indexalg_inputs(cases)
    perf = CLOCKS[clock]
    simplify, as_ranges, clear = ia.simplify, ia.as_ranges, ia.clear_caches

    def run(lo: int, hi: int) -> list[CaseResult]:
        gc.collect()
        results: list[CaseResult] = []
        for prep in prepared[lo:hi]:
            if isinstance(prep, str):
                results.append(CaseResult("skipped", why=prep))
                continue
            e, spec = prep
            clear()
            try:
                t0 = perf()
                r = as_ranges(spec)
                out = simplify(e, r)
                t1 = perf()
                simplify(e, r)
                t2 = perf()
            except ia.IndexAlgError as err:
                results.append(CaseResult("error", why=f"{type(err).__name__}: {err}"))
                continue
            results.append(CaseResult("ok", str(out), cold_ns=t1 - t0, warm_ns=t2 - t1))
        return results

    return run


def _runner_indexalg_in_compile(cases: Sequence[Case], clock: str = "wall") -> Runner:
    """indexalg as inside one torch.compile: the memo tables carried from one expression to
    the next in corpus order (a pass starting at case 0 starts from ``ia.clear_caches()``);
    every range normalised before the pass (untimed); each ``ia.simplify(e, ranges)`` timed.
    warm: the chunk again (memo tables populated)."""
    import indexalg as ia

    prepared: list[tuple[Any, Any] | str] = []
    for prep in _indexalg_inputs(cases):
        prepared.append(prep if isinstance(prep, str) else (prep[0], ia.as_ranges(prep[1])))
    perf = CLOCKS[clock]
    simplify = ia.simplify

    def run(lo: int, hi: int) -> list[CaseResult]:
        if lo == 0:
            ia.clear_caches()
        gc.collect()
        results = [
            CaseResult("skipped", why=p) if isinstance(p, str) else CaseResult("ok")
            for p in prepared[lo:hi]
        ]
        for attr in ("cold_ns", "warm_ns"):
            for res, prep in zip(results, prepared[lo:hi]):
                if isinstance(prep, str) or res.status != "ok":
                    continue
                e, r = prep
                t0 = perf()
                try:
                    out = simplify(e, r)
                except ia.IndexAlgError as err:
                    res.status, res.why = "error", f"{type(err).__name__}: {err}"
                    continue
                setattr(res, attr, perf() - t0)
                res.out = str(out)
        return results

    return run


def _worker_indexalg(cases: Sequence[Case], clock: str = "wall") -> list[CaseResult]:
    """The fresh row on every case, in one go."""
    return _runner_indexalg_fresh(cases, clock)(0, len(cases))


def _worker_profile(cases: Sequence[Case], top: int = 25, repeat: int = 1) -> str:
    """cProfile of the fresh path (what the fresh row times: ``ia.as_ranges`` and
    ``ia.simplify`` after ``ia.clear_caches()``, which is left out), ``repeat`` times per case;
    the top ``top`` entries by cumulative and by own time."""
    import cProfile
    import io
    import pstats

    import indexalg as ia

    prepared = [p for p in _indexalg_inputs(cases) if not isinstance(p, str)]
    prof = cProfile.Profile()
    for _ in range(repeat):
        for e, spec in prepared:
            ia.clear_caches()
            prof.enable()
            with contextlib.suppress(ia.IndexAlgError):
                ia.simplify(e, ia.as_ranges(spec))
            prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return buf.getvalue()


def _sympy_namespace() -> dict[str, Any]:
    import sympy

    fns = importlib.import_module("torch.utils._sympy.functions")
    ns: dict[str, Any] = {k: v for k, v in vars(sympy).items() if not k.startswith("_")}
    ns.update({k: getattr(fns, k) for k in dir(fns) if not k.startswith("_")})
    return ns


def _inductor_inputs(c: Case, ns: dict[str, Any]) -> tuple[Any, dict[Any, Any], dict[Any, Any]]:
    """(sympy expression, var_ranges, size symbol -> ValueRanges) for one case."""
    import sympy

    import indexalg as ia

    vr = importlib.import_module("torch.utils._sympy.value_ranges")
    int_oo = importlib.import_module("torch.utils._sympy.numbers").int_oo
    loops = {n for n, _ in c.loop_sizes}
    lower = {n: lo for n, lo, _ in c.ranges if isinstance(lo, int)}
    if c.srepr is not None:
        expr = eval(c.srepr, {"__builtins__": {}}, ns)
    else:
        hints = {
            n: ("positive" if lo >= 1 else "nonnegative") for n, lo in lower.items() if lo >= 0
        }
        expr = ia.to_sympy(ia.parse(c.text), "torch", hints=hints)
    syms: dict[str, Any] = {str(s): s for s in expr.free_symbols}

    def sym(name: str) -> Any:
        if name not in syms:
            # Inductor's assumptions: loop variables nonnegative, sizes positive
            lo = 0 if name in loops else lower.get(name)
            kind = {} if lo is None or lo < 0 else {"nonnegative": True}
            if lo is not None and lo >= 1:
                kind = {"positive": True}
            syms[name] = sympy.Symbol(name, integer=True, **kind)
        return syms[name]

    for name, _, _ in c.ranges:
        sym(name)
    var_ranges = {sym(n): sympy.sympify(s, locals=syms) for n, s in c.loop_sizes}
    size_ranges: dict[Any, Any] = {}
    for name, lo, hi in c.ranges:
        if name in loops:
            continue
        lo_v = -int_oo if lo is None else sympy.sympify(lo, locals=syms)
        hi_v = int_oo if hi is None else sympy.sympify(hi, locals=syms)
        size_ranges[sym(name)] = vr.ValueRanges(lo_v, hi_v)
    return expr, var_ranges, size_ranges


def _runner_inductor(cases: Sequence[Case], clock: str = "wall") -> Runner:
    import indexalg as ia

    clear_cache = importlib.import_module("sympy.core.cache").clear_cache
    allocator = importlib.import_module("torch._inductor.sizevars").SizeVarAllocator
    ns = _sympy_namespace()
    perf = CLOCKS[clock]

    def run(lo: int, hi: int) -> list[CaseResult]:
        gc.collect()
        results: list[CaseResult] = []
        for c in cases[lo:hi]:
            clear_cache()
            try:
                expr, var_ranges, size_ranges = _inductor_inputs(c, ns)
            except Exception as err:
                results.append(CaseResult("skipped", why=f"{type(err).__name__}: {err}"))
                continue
            sv = allocator()
            sv.shape_env.var_to_range.update(size_ranges)
            clear_cache()
            try:
                t0 = perf()
                out = sv.simplify_with_ranges(expr, var_ranges)
                t1 = perf()
                sv.simplify_with_ranges(expr, var_ranges)
                t2 = perf()
            except Exception as err:
                results.append(CaseResult("error", why=f"{type(err).__name__}: {err}"))
                continue
            try:
                text = str(ia.from_sympy(out))
            except Exception as err:
                results.append(
                    CaseResult("error", why=f"output {out}: {type(err).__name__}: {err}")
                )
                continue
            results.append(CaseResult("ok", text, cold_ns=t1 - t0, warm_ns=t2 - t1))
        return results

    return run


def _worker_inductor(cases: Sequence[Case], clock: str = "wall") -> list[CaseResult]:
    return _runner_inductor(cases, clock)(0, len(cases))


class _TVM:
    """Conversion between indexalg and TVM's ``tirx`` expressions (int64 throughout)."""

    def __init__(self) -> None:
        import indexalg as ia

        self.ia = ia
        self.tirx = importlib.import_module("tvm.tirx")
        self.ir = importlib.import_module("tvm.ir")
        self.sym = importlib.import_module("tvm.sym")
        t = self.tirx
        op = importlib.import_module("tvm.ir.prim._ffi_api")  # what tirx.floordiv etc. call
        self.int64 = self.ir.PrimType("int64")
        self.ir_api = importlib.import_module("tvm.ir._ffi_api")

        def binary(fn: Callable[[Any, Any, Any], Any]) -> Callable[[Any, list[Any]], Any]:
            return lambda n, a: fn(a[0], a[1], None)

        def fold(fn: Callable[[Any, Any, Any], Any]) -> Callable[[Any, list[Any]], Any]:
            def go(n: Any, a: list[Any]) -> Any:
                acc = a[0]
                for x in a[1:]:
                    acc = fn(acc, x, None)
                return acc

            return go

        self.op = op
        self.build_table: dict[type, Callable[[Any, list[Any]], Any]] = {
            ia.Add: self._add,
            ia.Mul: self._mul,
            ia.FloorDiv: binary(op._OpFloorDiv),
            ia.CleanDiv: binary(op._OpFloorDiv),
            ia.Mod: binary(op._OpFloorMod),
            ia.ModularIndexing: self._modular_indexing,
            # exact for any sign of the divisor: ceil(a / b) = -floor(-a / b)
            ia.CeilDiv: self._ceildiv,
            ia.Min: fold(op._OpMin),
            ia.Max: fold(op._OpMax),
            ia.Where: lambda n, a: t.Select(a[0], a[1], a[2]),
            ia.Lt: binary(op._OpLT),
            ia.Le: binary(op._OpLE),
            ia.Eq: binary(op._OpEQ),
            ia.Ne: binary(op._OpNE),
            ia.And: fold(op._OpAnd),
            ia.Or: fold(op._OpOr),
            ia.Not: lambda n, a: t.Not(a[0]),
            ia.BoolConst: lambda n, a: t.const(bool(n.payload), "bool"),
        }
        self.read_table: dict[str, Callable[[Any], Any]] = {
            "IntImm": self._read_int,
            "Var": lambda n: ia.Symbol(n.name),
            "Add": lambda n: self.read(n.a) + self.read(n.b),
            "Sub": lambda n: self.read(n.a) - self.read(n.b),
            "Mul": lambda n: self.read(n.a) * self.read(n.b),
            "FloorDiv": lambda n: ia.FloorDiv(self.read(n.a), self.read(n.b)),
            "FloorMod": lambda n: ia.Mod(self.read(n.a), self.read(n.b)),
            "Min": lambda n: ia.Min(self.read(n.a), self.read(n.b)),
            "Max": lambda n: ia.Max(self.read(n.a), self.read(n.b)),
            "Select": lambda n: ia.Where(
                self.read(n.condition), self.read(n.true_value), self.read(n.false_value)
            ),
            "LT": lambda n: self.read(n.a) < self.read(n.b),
            "LE": lambda n: self.read(n.a) <= self.read(n.b),
            "GT": lambda n: self.read(n.a) > self.read(n.b),
            "GE": lambda n: self.read(n.a) >= self.read(n.b),
            "EQ": lambda n: ia.Eq(self.read(n.a), self.read(n.b)),
            "NE": lambda n: ia.Ne(self.read(n.a), self.read(n.b)),
            "And": lambda n: ia.And(self.read(n.a), self.read(n.b)),
            "Or": lambda n: ia.Or(self.read(n.a), self.read(n.b)),
            "Not": lambda n: ia.Not(self.read(n.a)),
            "Cast": self._read_cast,
        }

    def _const(self, v: int) -> Any:
        if not -(2**63) <= v < 2**63:
            raise OverflowError(f"{v} does not fit in int64")
        return self.tirx.const(v, "int64")

    def _add(self, n: Any, a: list[Any]) -> Any:
        add = self.op._OpAdd
        acc = a[0]
        for t in a[1:]:
            acc = add(acc, t, None)
        return add(acc, self._const(n.payload), None) if n.payload else acc

    def _mul(self, n: Any, a: list[Any]) -> Any:
        mul = self.op._OpMul
        acc = a[0]
        for t in a[1:]:
            acc = mul(acc, t, None)
        return mul(acc, self._const(n.payload), None) if n.payload != 1 else acc

    def _modular_indexing(self, n: Any, a: list[Any]) -> Any:
        op = self.op
        base = a[0] if n.args[1] is self.ia.Integer(1) else op._OpFloorDiv(a[0], a[1], None)
        return op._OpFloorMod(base, a[2], None)

    def _ceildiv(self, n: Any, a: list[Any]) -> Any:
        op, zero = self.op, self._const(0)
        return op._OpSub(zero, op._OpFloorDiv(op._OpSub(zero, a[0], None), a[1], None), None)

    def var(self, name: str) -> Any:
        """An int64 ``Var`` (through the constructor ``tirx.Var`` calls: its Python wrapper
        costs about 4 µs of argument conversion per variable)."""
        return self.ir_api.Var(name, self.int64, None)

    def all_of(self, claims: list[Any]) -> Any:
        acc = claims[0]
        for c in claims[1:]:
            acc = self.op._OpAnd(acc, c, None)
        return acc

    def build(self, e: Any, env: dict[Any, Any]) -> Any:
        """The TVM tree of an indexalg expression; ``env`` maps Symbols to tirx Vars and is
        also the memo table."""
        hit = env.get(e)
        if hit is not None:
            return hit
        cls = type(e)
        if cls is self.ia.Integer:
            out = self._const(e.payload)
        elif cls is self.ia.Symbol:
            raise KeyError(f"no Var for symbol {e}")
        else:
            fn = self.build_table.get(cls)
            if fn is None:
                raise TypeError(f"TVM has no counterpart of {cls.__name__}")
            out = fn(e, [self.build(a, env) for a in e.args])
        env[e] = out
        return out

    def read(self, n: Any) -> Any:
        """The indexalg expression of a TVM tree."""
        fn = self.read_table.get(type(n).__name__)
        if fn is None:
            raise TypeError(f"cannot read TVM node {type(n).__name__}: {n}")
        return fn(n)

    def _read_int(self, n: Any) -> Any:
        if str(n.ty) == "bool":
            return self.ia.true if n.value else self.ia.false
        return self.ia.Integer(int(n.value))

    def _read_cast(self, n: Any) -> Any:
        if not str(n.ty).startswith("int"):
            raise TypeError(f"cannot read a cast to {n.ty}: {n}")
        return self.read(n.value)


def _runner_tvm(cases: Sequence[Case], clock: str = "wall") -> Runner:
    import indexalg as ia

    tvm = _TVM()
    Range, Analyzer, op = tvm.ir.Range, tvm.sym.Analyzer, tvm.op
    perf = CLOCKS[clock]

    def run(lo: int, hi: int) -> list[CaseResult]:
        gc.collect()
        results: list[CaseResult] = []
        for c in cases[lo:hi]:
            try:
                e = ia.parse(c.text)
                bounds = [
                    (ia.Symbol(n), _bound_expr(lo), _bound_expr(hi)) for n, lo, hi in c.ranges
                ]
            except ia.IndexAlgError as err:
                results.append(CaseResult("skipped", why=f"{type(err).__name__}: {err}"))
                continue
            names = sorted({s for s, _, _ in bounds} | set(e.free_symbols), key=lambda s: s.name)
            try:
                t0 = perf()
                analyzer = Analyzer()
                env: dict[Any, Any] = {s: tvm.var(s.name) for s in names}
                facts: list[Any] = []
                for s, lo, hi in bounds:
                    v = env[s]
                    if lo is not None and hi is not None:
                        analyzer.bind(v, Range(tvm.build(lo, env), tvm.build(hi + 1, env)))
                    elif lo is not None:
                        facts.append(op._OpGE(v, tvm.build(lo, env), None))
                    elif hi is not None:
                        facts.append(op._OpLE(v, tvm.build(hi, env), None))
                tree = tvm.build(e, env)
                if facts:
                    with analyzer.constraint_scope(tvm.all_of(facts)):
                        out = analyzer.simplify(tree)
                        t1 = perf()
                        analyzer.simplify(tree)
                        t2 = perf()
                else:
                    out = analyzer.simplify(tree)
                    t1 = perf()
                    analyzer.simplify(tree)
                    t2 = perf()
            except (TypeError, OverflowError) as err:
                results.append(CaseResult("skipped", why=f"{type(err).__name__}: {err}"))
                continue
            except Exception as err:
                results.append(CaseResult("error", why=f"{type(err).__name__}: {err}"))
                continue
            try:
                text = str(tvm.read(out))
            except Exception as err:
                results.append(
                    CaseResult("error", why=f"output {out}: {type(err).__name__}: {err}")
                )
                continue
            results.append(CaseResult("ok", text, cold_ns=t1 - t0, warm_ns=t2 - t1))
        return results

    return run


def _worker_tvm(cases: Sequence[Case], clock: str = "wall") -> list[CaseResult]:
    return _runner_tvm(cases, clock)(0, len(cases))


#: The clocks a run can time with: wall time, or the CPU time of the worker's thread (which
#: leaves out the time other processes hold the CPU, at about 1-2 µs per reading).
CLOCKS: dict[str, Callable[[], int]] = {
    "wall": time.perf_counter_ns,
    "cpu": time.thread_time_ns,
}

#: key -> the function that builds a system's runner in its worker process.
RUNNERS: dict[str, Callable[[Sequence[Case], str], Runner]] = {
    "indexalg": _runner_indexalg_fresh,
    "indexalg-in-compile": _runner_indexalg_in_compile,
    # the same runners, with the compiled build first on sys.path (see main, --compiled)
    "indexalg-compiled": _runner_indexalg_fresh,
    "indexalg-compiled-in-compile": _runner_indexalg_in_compile,
    "inductor": _runner_inductor,
    "tvm": _runner_tvm,
}


#: key -> every case in one go (in-process use, and the compatibility of older callers).
def _whole(key: str) -> Callable[[Sequence[Case], str], list[CaseResult]]:
    def work(cases: Sequence[Case], clock: str = "wall") -> list[CaseResult]:
        return RUNNERS[key](cases, clock)(0, len(cases))

    return work


WORKERS: dict[str, Callable[[Sequence[Case], str], list[CaseResult]]] = {
    k: _whole(k) for k in RUNNERS
}


@dataclass(frozen=True)
class System:
    """A simplifier under test: its worker and how its two timing columns are named."""

    key: str
    label: str
    cold: str
    warm: str
    #: the module the system needs; a system whose module is not installed is left out
    requires: str
    #: another row of indexalg (its in-compile row, the compiled build): a row of its own,
    #: left out of the comparisons between systems
    variant: bool = False
    #: runs the compiled build (``--compiled DIR``)
    compiled: bool = False


SYSTEMS: tuple[System, ...] = (
    System(
        "indexalg",
        "indexalg ia.simplify",
        "fresh (caches cleared, ranges timed)",
        "warm (2nd call)",
        "indexalg",
    ),
    System(
        "inductor",
        "Inductor simplify_with_ranges",
        "cold (fresh caches)",
        "cached (2nd call)",
        "torch",
    ),
    System("tvm", "TVM Analyzer.simplify", "build+simplify", "simplify again", "tvm"),
)

#: indexalg's caches carried from one expression to the next, as inside one torch.compile
#: (the row ``bench.simplify`` called "cold" before issue 27): a row of its own, on by default
#: in the command line (``--no-in-compile`` leaves it out).
IN_COMPILE = System(
    "indexalg-in-compile",
    "indexalg ia.simplify, in-compile",
    "caches carried (ranges untimed)",
    "warm (2nd pass)",
    "indexalg",
    variant=True,
)

#: The compiled build (scripts/build_compiled.py) as rows of its own (``--compiled DIR``).
COMPILED = System(
    "indexalg-compiled",
    "indexalg (compiled)",
    "fresh (caches cleared, ranges timed)",
    "warm (2nd call)",
    "indexalg",
    variant=True,
    compiled=True,
)
COMPILED_IN_COMPILE = System(
    "indexalg-compiled-in-compile",
    "indexalg (compiled), in-compile",
    "caches carried (ranges untimed)",
    "warm (2nd pass)",
    "indexalg",
    variant=True,
    compiled=True,
)


def use_compiled(path: str) -> None:
    """Put the compiled build at ``path`` first on ``sys.path`` (before indexalg is imported)
    and check that it is the one imported."""
    sys.path.insert(0, str(Path(path).resolve()))
    import indexalg.expr

    if indexalg.expr.__file__ is None or indexalg.expr.__file__.endswith(".py"):
        raise SystemExit(f"--compiled {path}: indexalg.expr is not compiled there")


def available_systems(*, tvm: bool = True, inductor: bool = True) -> list[System]:
    """The systems asked for whose module is installed (one line on stderr per missing one)."""
    out = []
    for s in SYSTEMS:
        if (s.key == "tvm" and not tvm) or (s.key == "inductor" and not inductor):
            continue
        if importlib.util.find_spec(s.requires) is None:
            print(f"{s.label}: {s.requires} is not installed; left out", file=sys.stderr)
            continue
        out.append(s)
    return out


# ---------------------------------------------------------------------------------------
# The run and its table


@dataclass
class SystemReport:
    """One system's results, with its outputs read back into indexalg."""

    system: System
    results: list[CaseResult]
    #: case index -> the output as an indexalg Expr
    outputs: dict[int, Any] = field(default_factory=dict)
    #: case index -> op_counts of the output
    counts: dict[int, OpCounts] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)
    unreadable: int = 0

    def count(self, status: str) -> int:
        return sum(1 for r in self.results if r.status == status)

    def totals(self, indices: Iterable[int]) -> OpCounts:
        """The op counts left on these cases, summed."""
        return _sum_counts(self.counts[i] for i in indices)

    def timing(self, attr: str, indices: Iterable[int]) -> Summary:
        return summarise([getattr(self.results[i], attr) for i in indices])


@dataclass
class Benchmark:
    """Everything one run measured; :meth:`table` renders it."""

    source: str
    cases: list[Case]
    inputs: dict[int, Any]
    input_counts: dict[int, OpCounts]
    reports: list[SystemReport]
    points: int
    seconds: float = 0.0
    profile: str = ""
    #: 1-minute load average at the start and at the end of the run
    load: tuple[float, float] = (0.0, 0.0)
    #: the clock the workers timed with (a key of CLOCKS)
    clock: str = "wall"

    def common(self) -> list[int]:
        """Indices of the cases every system simplified (and whose output reads back)."""
        return [i for i in sorted(self.inputs) if all(i in r.outputs for r in self.reports)]

    def report(self, key: str) -> SystemReport | None:
        return next((r for r in self.reports if r.system.key == key), None)

    def table(self) -> str:
        """The markdown table: timing and ops over the common cases, per system."""
        common = self.common()
        base = self.report("indexalg")
        base_cold = base.timing("cold_ns", common) if base else None
        c_in = _sum_counts(self.input_counts[i] for i in common)
        head = (
            "| system | timing | took | skipped | errors | median µs | mean µs | p99 µs "
            "| × indexalg fresh (median / mean) | div/mod left (distinct) | ops left "
            "| mismatches |"
        )
        lines = [head, "|" + "---|" * 12]
        lines.append(
            f"| input ({len(common)} common of {len(self.cases)}) | | | | | | | | "
            f"| {c_in.divmod} ({c_in.divmod_distinct}) | {c_in.total} | |"
        )
        for rep in self.reports:
            c = rep.totals(common)
            dm, ops = f"{c.divmod} ({c.divmod_distinct})", c.total
            errors = rep.count("error") + rep.unreadable
            first = (
                f"| {rep.system.label} | {rep.system.cold} | {rep.count('ok')} "
                f"| {rep.count('skipped')} | {errors} "
            )
            second = f"| | {rep.system.warm} | | | "
            for row, attr, tail in (
                (first, "cold_ns", f"| {dm} | {ops} | {len(rep.mismatches)} |"),
                (second, "warm_ns", "| | | |"),
            ):
                s = rep.timing(attr, common)
                lines.append(
                    f"{row}| {s.median_us:.1f} | {s.mean_us:.1f} | {s.p99_us:.1f} "
                    f"| {_ratio(s, base_cold)} {tail}"
                )
        return "\n".join(lines)

    def targets(self) -> list[str]:
        """The issue's targets, each with its measured value and met / NOT met."""
        base = self.report("indexalg")
        if base is None:
            return []
        common = self.common()
        ia_cold = base.timing("cold_ns", common)
        ia_c = base.totals(common)
        out = []
        ind = self.report("inductor")
        if ind is not None and ia_cold.median_us > 0:
            s = ind.timing("cold_ns", common)
            med, mean = s.median_us / ia_cold.median_us, s.mean_us / ia_cold.mean_us
            out.append(
                "speed of indexalg fresh vs Inductor cold (target >= 100x faster): "
                f"{med:.0f}x (median), {mean:.0f}x (mean): {_met(min(med, mean) >= 100)}"
            )
        tvm = self.report("tvm")
        if tvm is not None:
            s = tvm.timing("cold_ns", common)
            med = ia_cold.median_us / s.median_us if s.median_us else 0.0
            mean = ia_cold.mean_us / s.mean_us if s.mean_us else 0.0
            out.append(
                "speed vs TVM build+simplify (target: indexalg fresh within 3x): indexalg takes "
                f"{med:.2f}x (median), {mean:.2f}x (mean) TVM's time: "
                f"{_met(max(med, mean) <= 3)}"
            )
        others = [r for r in self.reports if r is not base and not r.system.variant]
        if others:
            totals = {r.system.key: r.totals(common) for r in others}
            left = ", ".join(
                f"{k} {c.divmod} ({c.divmod_distinct} distinct)" for k, c in totals.items()
            )
            fewer = all(ia_c.divmod < c.divmod for c in totals.values())
            out.append(
                "div/mod left (target: fewer than every other system): indexalg "
                f"{ia_c.divmod} ({ia_c.divmod_distinct} distinct), {left}: {_met(fewer)}"
            )
        out.append(
            f"value mismatches (target 0): indexalg {len(base.mismatches)}: "
            f"{_met(not base.mismatches)}"
        )
        return out

    def targets_issue13(self) -> list[str]:
        """Issue 13's stricter targets: indexalg cold <= TVM build+simplify (median and mean),
        >= 150x Inductor cold on the mean, warm <= 5 µs median, div/mod left <= TVM's and
        <= Inductor's on every expression."""
        base = self.report("indexalg")
        if base is None:
            return []
        common = self.common()
        cold = base.timing("cold_ns", common)
        warm = base.timing("warm_ns", common)
        tvm, ind = self.report("tvm"), self.report("inductor")
        out = self._cold_target_lines("issue 13: indexalg fresh", cold, tvm, ind)
        out.append(
            f"issue 13: warm (fresh row's 2nd call) <= 5 µs median: {warm.median_us:.1f} µs: "
            f"{_met(warm.median_us <= 5)}"
        )
        out += self._compiled_lines(cold, tvm, ind)
        for rep in (tvm, ind):
            if rep is None:
                continue
            more = sum(base.counts[i].divmod > rep.counts[i].divmod for i in common)
            out.append(
                f"issue 13: div/mod left <= {rep.system.key}'s on every expression: more on "
                f"{more}: {_met(more == 0)}"
            )
        return out

    def targets_issue27(self) -> list[str]:
        """Issue 27's targets, per indexalg row against TVM build+simplify (median and mean):
        the pure build's fresh row <= 1.3x TVM, the compiled build's fresh row <= TVM; the
        in-compile rows' ratios beside them (no target)."""
        tvm = self.report("tvm")
        if tvm is None:
            return []
        common = self.common()
        t = tvm.timing("cold_ns", common)
        if not t.median_us or not t.mean_us:
            return []
        out = []
        rows = (
            ("indexalg", "pure Python, fresh", 1.3),
            (IN_COMPILE.key, "pure Python, in-compile", None),
            (COMPILED.key, "compiled build, fresh", 1.0),
            (COMPILED_IN_COMPILE.key, "compiled build, in-compile", None),
        )
        for key, what, bar in rows:
            rep = self.report(key)
            if rep is None:
                continue
            s = rep.timing("cold_ns", common)
            med, mean = s.median_us / t.median_us, s.mean_us / t.mean_us
            line = f"issue 27: {what} / TVM build+simplify: {med:.2f}x (median), {mean:.2f}x (mean)"
            if bar is not None:
                line += f" (target <= {bar}x on both): {_met(max(med, mean) <= bar)}"
            out.append(line)
        return out

    def _compiled_lines(
        self, cold: Summary, tvm: SystemReport | None, ind: SystemReport | None
    ) -> list[str]:
        """The compiled build's timing against the pure build's and TVM's."""
        comp = self.report(COMPILED.key)
        if comp is None:
            return []
        common = self.common()
        c, w = comp.timing("cold_ns", common), comp.timing("warm_ns", common)
        out = [
            f"compiled build: fresh median {c.median_us:.1f} µs, mean {c.mean_us:.1f} µs "
            f"({_ratio(cold, c)} the pure build's speed), warm median {w.median_us:.1f} µs"
        ]
        return out + self._cold_target_lines("issue 13: compiled build fresh", c, tvm, ind)

    def _cold_target_lines(
        self, label: str, cold: Summary, tvm: SystemReport | None, ind: SystemReport | None
    ) -> list[str]:
        """Issue 13's cold targets for one build's ``cold`` timing: <= TVM build+simplify
        on the median and the mean, >= 150x Inductor cold on the mean."""
        common = self.common()
        out = []
        if tvm is not None:
            t = tvm.timing("cold_ns", common)
            ok = cold.median_us <= t.median_us and cold.mean_us <= t.mean_us
            out.append(
                f"{label} <= TVM build+simplify: median {cold.median_us:.1f} vs "
                f"{t.median_us:.1f} µs, mean {cold.mean_us:.1f} vs {t.mean_us:.1f} µs: {_met(ok)}"
            )
        if ind is not None and cold.mean_us > 0:
            ratio = ind.timing("cold_ns", common).mean_us / cold.mean_us
            out.append(
                f"{label} >= 150x Inductor cold on the mean: {ratio:.0f}x: {_met(ratio >= 150)}"
            )
        return out

    def comparisons(self) -> list[str]:
        """Per other system: on how many common cases indexalg leaves fewer / more div/mod."""
        common = self.common()
        base = self.report("indexalg")
        if base is None:
            return []
        out = []
        for rep in self.reports:
            if rep is base or rep.system.variant:
                continue
            fewer = sum(base.counts[i].divmod < rep.counts[i].divmod for i in common)
            more = sum(base.counts[i].divmod > rep.counts[i].divmod for i in common)
            out.append(
                f"div/mod left, indexalg vs {rep.system.label}: fewer on {fewer}, "
                f"more on {more}, equal on {len(common) - fewer - more} expressions"
            )
        return out

    def worse_examples(self, limit: int = 5) -> list[str]:
        """Per other system, up to ``limit`` cases where indexalg leaves more div/mod
        operations than that system, the largest differences first."""
        base = self.report("indexalg")
        if base is None:
            return []
        out: list[str] = []
        for rep in self.reports:
            if rep is base or rep.system.variant:
                continue
            rows: list[tuple[int, int]] = []
            for i in self.common():
                a, b = base.counts[i].divmod, rep.counts[i].divmod
                if a > b:
                    rows.append((b - a, i))
            rows.sort()
            if rows:
                out.append(
                    f"Where indexalg leaves more div/mod operations than {rep.system.key}"
                    f" ({len(rows)} expressions; the {min(limit, len(rows))} largest):"
                )
            for _, i in rows[:limit]:
                c = self.cases[i]
                out.append(
                    f"  [{c.workload}] {c.text}  ranges {_ranges_text(c)}\n"
                    f"    indexalg ({base.counts[i].divmod}): {base.outputs[i]}\n"
                    f"    {rep.system.key} ({rep.counts[i].divmod}): {rep.outputs[i]}"
                )
        return out

    def slowest(self, key: str = "indexalg", limit: int = 5) -> list[str]:
        """The ``limit`` cases that took ``key``'s timed (fresh) pass longest, slowest first."""
        rep = self.report(key)
        if rep is None:
            return []
        done = [i for i, r in enumerate(rep.results) if r.status == "ok"]
        done.sort(key=lambda i: -rep.results[i].cold_ns)
        total = sum(rep.results[i].cold_ns for i in done) or 1
        top = done[:limit]
        share = sum(rep.results[i].cold_ns for i in done[: max(1, len(done) // 100)]) / total
        out = [
            f"Slowest {key} timed simplifications (the slowest 1% take {share:.0%} of the "
            "timed pass):"
        ]
        for i in top:
            c = self.cases[i]
            out.append(
                f"  {rep.results[i].cold_ns / 1000:.0f} µs [{c.workload}] {c.text}  ranges "
                f"{_ranges_text(c)}"
            )
        return out


def _sum_counts(counts: Iterable[OpCounts]) -> OpCounts:
    dm = tot = distinct = 0
    for c in counts:
        dm += c.divmod
        tot += c.total
        distinct += c.divmod_distinct
    return OpCounts(dm, tot, distinct)


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _ratio(s: Summary, base: Summary | None) -> str:
    if base is None or base.median_us == 0 or base.mean_us == 0:
        return ""
    return f"{s.median_us / base.median_us:.2f}× / {s.mean_us / base.mean_us:.2f}×"


def _ranges_text(c: Case) -> str:
    parts = []
    for name, lo, hi in c.ranges:
        parts.append(f"{name}={'' if lo is None else lo}..{'' if hi is None else hi}")
    return " ".join(parts)


#: Cases per turn of a system in an interleaved run.
DEFAULT_CHUNK = 200


def _fastest(passes: list[list[CaseResult]]) -> list[CaseResult]:
    """One result per case: the first pass's, with the fastest cold and warm time of the
    passes where the case succeeded."""
    out = passes[0]
    for other in passes[1:]:
        for res, r2 in zip(out, other):
            if res.status == "ok" and r2.status == "ok":
                res.cold_ns = min(res.cold_ns, r2.cold_ns)
                res.warm_ns = min(res.warm_ns, r2.warm_ns)
    return out


_REPLY = "@@bench.simplify "


class _Worker:
    """A worker process (``--worker KEY --serve``) that holds its system's runner and runs
    the chunks it is sent on stdin (``LO HI``), answering one JSON line each on stdout."""

    def __init__(self, key: str, src: Path, clock: str, compiled: str | None) -> None:
        cmd = [sys.executable, "-m", "bench.simplify", "--worker", key, "--clock", clock]
        cmd += ["--in", str(src), "--serve"] + (["--compiled", compiled] if compiled else [])
        self.key = key
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def _reply(self) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(_REPLY):
                return line[len(_REPLY) :]
        raise RuntimeError(f"worker {self.key} exited with status {self.proc.wait()}")

    def ready(self) -> None:
        self._reply()

    def run(self, lo: int, hi: int) -> list[CaseResult]:
        assert self.proc.stdin is not None
        self.proc.stdin.write(f"{lo} {hi}\n")
        self.proc.stdin.flush()
        return [CaseResult(**d) for d in json.loads(self._reply())]

    def close(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _run_interleaved(
    payload: list[dict[str, Any]],
    systems: Sequence[System],
    *,
    clock: str,
    rounds: int,
    chunk: int,
    compiled: str | None,
    timeout_s: float,
    log: Callable[[str], None],
) -> dict[str, list[CaseResult]]:
    """Every system in its own worker process, the chunks of every round in turn."""
    import tempfile

    n = len(payload)
    starts = list(range(0, n, max(1, chunk))) or [0]
    with tempfile.TemporaryDirectory(prefix="indexalg-bench-") as tmp:
        src = Path(tmp) / "in.json"
        src.write_text(json.dumps(payload), encoding="utf-8")
        workers = [_Worker(s.key, src, clock, compiled if s.compiled else None) for s in systems]
        try:
            for w in workers:
                w.ready()
            passes: dict[str, list[list[CaseResult]]] = {s.key: [] for s in systems}
            t0 = time.perf_counter()
            for rnd in range(rounds):
                got: dict[str, list[CaseResult]] = {s.key: [] for s in systems}
                for j, lo in enumerate(starts):
                    hi = min(n, lo + chunk)
                    k = (j + rnd) % len(workers)
                    for w in workers[k:] + workers[:k]:
                        got[w.key] += w.run(lo, hi)
                    if time.perf_counter() - t0 > timeout_s:
                        raise RuntimeError(f"the run took longer than {timeout_s:.0f} s")
                for key, res in got.items():
                    passes[key].append(res)
                log(f"  round {rnd + 1}/{rounds} done at {time.perf_counter() - t0:.0f} s")
        finally:
            for w in workers:
                w.close()
    return {key: _fastest(p) for key, p in passes.items()}


def run_benchmark(
    cases: list[Case],
    systems: Sequence[System],
    *,
    source: str,
    points: int = 16,
    seed: int = 0,
    in_process: bool = False,
    clock: str = "wall",
    profile: bool = False,
    timeout_s: float = 1800,
    compiled: str | None = None,
    rounds: int = 1,
    chunk: int = DEFAULT_CHUNK,
    log: Callable[[str], None] = lambda s: None,
) -> Benchmark:
    """Run ``systems`` on ``cases`` and check every output against its input at ``points``
    in-range points.

    Each system runs in a fresh interpreter of its own (unless ``in_process``), all of them
    alive at once and taking turns: chunk by chunk of ``chunk`` cases, the systems in an order
    rotated from one chunk to the next, so that a change of the machine's load falls on every
    system alike; ``rounds`` passes over the corpus, each case keeping its fastest cold and
    warm times (its output is the first round's)."""
    import indexalg as ia

    t_start = time.perf_counter()
    load_start = os.getloadavg()[0]
    payload = [c.to_json() for c in cases]
    raw: dict[str, list[CaseResult]] = {}
    if in_process:
        # one system after another: interleaving in one process would let the fresh row's
        # clear_caches() empty the in-compile row's tables between its chunks
        for sysm in systems:
            log(f"running {sysm.label} on {len(cases)} expressions ...")
            runner = RUNNERS[sysm.key](cases, clock)
            raw[sysm.key] = _fastest([runner(0, len(cases)) for _ in range(rounds)])
    else:
        raw = _run_interleaved(
            payload,
            systems,
            clock=clock,
            rounds=rounds,
            chunk=chunk,
            compiled=compiled,
            timeout_s=timeout_s,
            log=log,
        )

    inputs: dict[int, Any] = {}
    for i, c in enumerate(cases):
        with contextlib.suppress(ia.IndexAlgError):
            inputs[i] = ia.parse(c.text)
    reports = [SystemReport(s, raw[s.key]) for s in systems]
    log("checking values ...")
    for i, e in inputs.items():
        rng = random.Random(f"{seed}:{i}")
        expected: list[tuple[dict[str, int], Any]] = []
        try:
            envs = sample_points(cases[i], e, points, rng)
        except ia.IndexAlgError:  # a bound indexalg cannot read (TruncToInt(0.5*ToFloat(s0)))
            envs = []
        for env in envs:
            try:
                expected.append((env, ia.evaluate(e, env)))
            except ia.IndexAlgError:
                continue
        for rep in reports:
            res = rep.results[i]
            if res.status != "ok":
                continue
            try:
                out = ia.parse(res.out)
            except ia.IndexAlgError:
                rep.unreadable += 1
                continue
            rep.outputs[i] = out
            rep.counts[i] = op_counts(out)
            bad = find_mismatch(rep.system.key, cases[i], expected, out)
            if bad is not None:
                rep.mismatches.append(bad)
    input_counts = {i: op_counts(e) for i, e in inputs.items()}
    bench = Benchmark(source, cases, inputs, input_counts, reports, points)
    if profile:
        log("profiling indexalg's fresh path ...")
        if in_process:
            bench.profile = _worker_profile(cases)
        else:
            bench.profile = run_worker(
                "bench.simplify", ["--worker", "profile"], payload, timeout_s=timeout_s, cwd=ROOT
            )
    bench.seconds = time.perf_counter() - t_start
    bench.load = (load_start, os.getloadavg()[0])
    bench.clock = clock
    return bench


def git_commit(root: Path = ROOT) -> str:
    """The commit checked out at ``root`` (short hash), marked when ``indexalg/`` has
    uncommitted changes; "unknown" outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "log", "-1", "--format=%h"],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "indexalg"],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with uncommitted changes under indexalg/)" if dirty else "")


def render(bench: Benchmark, *, command: str, commit: str | None = None) -> str:
    """The report: header, machine, table, comparisons, mismatches."""
    m = machine_info()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    common = bench.common()
    at = f"indexalg at commit {commit}; " if commit else ""
    lines = [
        f"## {when}: {bench.source}",
        "",
        f"`{command}`; {at}machine: {m['nproc']} CPUs ({m['cpu']}), Python {m['python']}, "
        f"torch {m['torch']}, sympy {m['sympy']}, apache-tvm {m['tvm']}; "
        f"{len(bench.cases)} expressions, {len(common)} taken by every system; "
        f"{bench.points} points per expression; timed with "
        f"{'wall-clock time' if bench.clock == 'wall' else 'thread CPU time'}; "
        f"run took {bench.seconds:.0f} s; "
        f"load average {bench.load[0]:.1f} at the start, {bench.load[1]:.1f} at the end.",
        "",
        bench.table(),
        "",
        "Timing and quality columns over the common expressions; mismatches over every "
        "expression a system took. Ops counted by `bench.simplify.op_counts` on each output "
        "converted to indexalg (ModularIndexing(a, d, m) = 2 div/mod ops, 1 when d = 1).",
        "",
    ]
    lines += [f"- {s}" for s in bench.targets()]
    lines += [f"- {s}" for s in bench.targets_issue13()]
    lines += [f"- {s}" for s in bench.targets_issue27()]
    lines += [f"- {s}" for s in bench.comparisons()]
    for rep in bench.reports:
        for mm in rep.mismatches[:5]:
            lines.append(
                f"- MISMATCH {mm.system} [{mm.case.workload}]: `{mm.case.text}` with "
                f"`{_ranges_text(mm.case)}` -> `{mm.output}`; at {mm.point}: "
                f"expected {mm.expected}, got {mm.got}"
            )
    return "\n".join(lines) + "\n"


RESULTS_INTRO = (
    "# Benchmark results\n\n"
    "Runs of the benchmarks in bench/, newest first. `python -m bench.simplify "
    "--append-results` inserts its run above the first `## ` section (see bench/simplify.py "
    "for what each column measures).\n\n"
)


def append_results(text: str, path: Path = RESULTS_PATH) -> None:
    """Insert ``text`` (a ``## `` section) above the first ``## `` section of ``path``
    (newest first), creating the file with :data:`RESULTS_INTRO` when it does not exist."""
    old = path.read_text(encoding="utf-8") if path.exists() else RESULTS_INTRO
    at = 0 if old.startswith("## ") else old.find("\n## ") + 1
    if at == 0 and not old.startswith("## "):
        new = old.rstrip("\n") + "\n\n" + text
    else:
        new = old[:at] + text.rstrip("\n") + "\n\n" + old[at:]
    path.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------------------------------
# Command line


def _worker_main(kind: str, src: str, dst: str | None, clock: str, serve: bool) -> int:
    cases = [Case.from_json(d) for d in json.loads(Path(src).read_text(encoding="utf-8"))]
    result: Any
    if kind == "profile":
        result = _worker_profile(cases)
    elif serve:
        run = RUNNERS[kind](cases, clock)
        out = sys.stdout
        out.write(_REPLY + "ready\n")
        out.flush()
        for line in sys.stdin:
            lo, hi = (int(x) for x in line.split())
            out.write(_REPLY + json.dumps([asdict(r) for r in run(lo, hi)]) + "\n")
            out.flush()
        return 0
    else:
        result = [asdict(r) for r in WORKERS[kind](cases, clock)]
    assert dst is not None
    Path(dst).write_text(json.dumps(result), encoding="utf-8")
    return 0


def profile_expression(
    text: str, ranges: Sequence[tuple[str, Bound, Bound]], *, repeat: int = 200, top: int = 25
) -> str:
    """cProfile of the fresh path on one expression, ``repeat`` times (caches cleared
    before each), with its fresh time (the fastest of ``repeat``, thread CPU time) first."""
    import indexalg as ia

    case = Case(text, tuple(ranges), ())
    prep = _indexalg_inputs([case])[0]
    if isinstance(prep, str):
        raise SystemExit(f"--profile-expr: {prep}")
    e, spec = prep
    best = None
    for _ in range(repeat):
        ia.clear_caches()
        t0 = time.thread_time_ns()
        ia.simplify(e, ia.as_ranges(spec))
        dt = time.thread_time_ns() - t0
        best = dt if best is None else min(best, dt)
    assert best is not None
    head = (
        f"fresh path on {text} with {_ranges_text(case)}: fastest of {repeat} "
        f"{best / 1000:.0f} µs (thread CPU time, without the profiler)\n"
    )
    return head + _worker_profile([case], top=top, repeat=repeat)


def _parse_range_arg(arg: str) -> tuple[str, Bound, Bound]:
    """``NAME=LO..HI`` (either side may be empty) or ``NAME=N`` (0..N-1)."""
    name, _, spec = arg.partition("=")

    def bound(t: str) -> Bound:
        t = t.strip()
        if not t:
            return None
        try:
            return int(t)
        except ValueError:
            return t

    if ".." in spec:
        lo, hi = spec.split("..", 1)
        return name.strip(), bound(lo), bound(hi)
    n = bound(spec)
    if isinstance(n, int):
        return name.strip(), 0, n - 1
    return name.strip(), 0, f"{n} - 1"


def load_cases(args: argparse.Namespace, log: Callable[[str], None]) -> tuple[list[Case], str]:
    """The cases a command line asks for, and a one-line description of them."""
    if args.generated is not None:
        cases = generate_cases(args.generated, args.seed)
        source = f"generated corpus ({args.generated} expressions, seed {args.seed})"
    else:
        from bench.corpus.load import CORPUS_PATH, load_corpus

        path = Path(args.corpus) if args.corpus else CORPUS_PATH
        if not path.exists():
            log(f"no corpus at {path}; using --generated 300 (see bench.corpus.harvest)")
            cases = generate_cases(300, args.seed)
            source = f"generated corpus (300 expressions, seed {args.seed})"
        else:
            cases = cases_from_corpus(load_corpus(path))
            kind = "dynamic-shape corpus" if path.name.startswith("dynamic") else "corpus"
            source = f"Inductor {kind} {path.name} ({len(cases)} expressions)"
    if args.quick:
        cases = quick_subset(cases)
        source += f", quick subset of {len(cases)}"
    if args.limit is not None:
        cases = cases[: args.limit]
        source += f", first {len(cases)}"
    return cases, source


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.simplify", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help=f"about {QUICK_SIZE} cases of the corpus")
    p.add_argument("--generated", type=int, metavar="N", help="N generated cases, not the corpus")
    p.add_argument("--corpus", help="a corpus.jsonl.gz other than bench/corpus's")
    p.add_argument("--limit", type=int, help="only the first N cases (after --quick)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--points", type=int, default=16, help="in-range points per expression")
    p.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall time (default) or the workers' thread CPU time (for a loaded machine)",
    )
    p.add_argument("--no-tvm", action="store_true")
    p.add_argument("--no-inductor", action="store_true")
    p.add_argument(
        "--no-in-compile",
        action="store_true",
        help="leave out indexalg's in-compile row (caches carried from expression to expression)",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="passes over the corpus, each case keeping its fastest time (default 3)",
    )
    p.add_argument(
        "--chunk",
        type=int,
        default=DEFAULT_CHUNK,
        help=f"cases per turn of a system (the systems alternate; default {DEFAULT_CHUNK})",
    )
    p.add_argument("--profile", action="store_true", help="cProfile indexalg's fresh path")
    p.add_argument(
        "--profile-expr",
        metavar="EXPR",
        help="only profile the fresh path on EXPR (with --range NAME=LO..HI), and exit",
    )
    p.add_argument("--range", dest="ranges", action="append", default=[], metavar="NAME=SPEC")
    p.add_argument(
        "--compiled",
        metavar="DIR",
        help="also time the compiled build in DIR (scripts/build_compiled.py: build/compiled/src)",
    )
    p.add_argument(
        "--examples",
        type=int,
        default=5,
        metavar="N",
        help="print up to N cases per system where indexalg leaves more div/mod (default 5)",
    )
    p.add_argument("--append-results", action="store_true", help="prepend to bench/RESULTS.md")
    p.add_argument(
        "--results-file", type=Path, default=RESULTS_PATH, help="the file --append-results edits"
    )
    p.add_argument(
        "--commit", help="the commit measured, for the report (default: this checkout's HEAD)"
    )
    p.add_argument("--worker", choices=[*WORKERS, "profile"], help=argparse.SUPPRESS)
    p.add_argument("--in", dest="src", help=argparse.SUPPRESS)
    p.add_argument("--out", dest="dst", help=argparse.SUPPRESS)
    p.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        if args.compiled:
            use_compiled(args.compiled)
        return _worker_main(args.worker, args.src, args.dst, args.clock, args.serve)
    if args.profile_expr:
        if args.compiled:
            use_compiled(args.compiled)
        ranges = [_parse_range_arg(a) for a in args.ranges]
        print(profile_expression(args.profile_expr, ranges))
        return 0

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    cases, source = load_cases(args, log)
    systems = available_systems(tvm=not args.no_tvm, inductor=not args.no_inductor)
    extra = [] if args.no_in_compile else [IN_COMPILE]
    if args.compiled:
        extra += [COMPILED] + ([] if args.no_in_compile else [COMPILED_IN_COMPILE])
    systems[1:1] = extra
    bench = run_benchmark(
        cases,
        systems,
        source=source,
        points=args.points,
        seed=args.seed,
        profile=args.profile,
        clock=args.clock,
        compiled=args.compiled,
        rounds=args.rounds,
        chunk=args.chunk,
        log=log,
    )
    command = "python -m bench.simplify" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    text = render(bench, command=command, commit=args.commit or git_commit())
    print(text)
    for line in [*bench.worse_examples(args.examples), *bench.slowest()]:
        print(line)
    for rep in bench.reports:
        errs = [r.why for r in rep.results if r.status == "error"][:3]
        for why in errs:
            print(f"{rep.system.key} error: {why[:300]}")
    if bench.profile:
        print("\ncProfile of indexalg's fresh path (top 25 by cumulative and by own time):")
        print(bench.profile)
    if args.append_results:
        append_results(text, args.results_file)
        log(f"appended to {args.results_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
