"""Block matching: indexalg.iter_map.decompose vs Inductor's BlockPatternMatcher.

Run from the repository root::

    python -m bench.blocks                  # the harvested corpus if present, else generated
    python -m bench.blocks --generated 300  # a seeded set of strided-view accesses

Each case is a flat (1-D tiled) access index over ``x`` in ``[0, numel)``, the input of
``BlockPatternMatcher.match_mod_div_block_expr`` (torch/_inductor/codegen/block_analysis.py).
From bench/corpus/blocks.jsonl.gz: every recorded ``mod_div`` matcher call (its own input,
``num_dims`` and ``numel``).  Generated: views of a contiguous base (rank 2-5, odd and
power-of-two sizes, dims sliced, permuted or expanded with stride 0), flattened in row-major
order and simplified by indexalg (the same expression goes to both systems).

Columns: **hit** = a block decomposition found (Inductor: a match; indexalg: ``ok``);
**µs/access** median of one call per case: Inductor *cold* after ``sympy.core.cache.
clear_cache()``, *warm* a second identical call; indexalg *raw* ``decompose(...,
simplify=False)`` on a fresh process's first call per expression, and with its simplifier
first (``simplify=True``).  Every indexalg decomposition is checked by evaluating its
recomposition at 16 points; ``wrong`` counts disagreements (must be 0).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import types
from dataclasses import dataclass
from typing import Any

import indexalg as ia
from indexalg.iter_map import decompose


@dataclass(frozen=True)
class Case:
    index: ia.Expr
    numel: int
    num_dims: int | None  # None: Inductor's own count


def generated(n: int, seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    out: list[Case] = []
    while len(out) < n:
        rank = rng.randint(2, 5)
        sizes = [rng.choice([2, 3, 4, 5, 7, 8, 9, 16, 32]) for _ in range(rank)]
        base = [s + rng.choice([0, 0, 1, 3]) for s in sizes]
        strides = [1] * rank
        for k in range(rank - 2, -1, -1):
            strides[k] = strides[k + 1] * base[k + 1]
        if rng.random() < 0.2:
            i, j = rng.sample(range(rank), 2)
            strides[i], strides[j] = strides[j], strides[i]
        if rng.random() < 0.2:
            strides[rng.randrange(rank)] = 0
        numel = 1
        for s in sizes:
            numel *= s
        x = ia.Symbol("x")
        terms: list[ia.Expr] = []
        inner = 1
        for k in range(rank - 1, -1, -1):
            digit = (x // inner) if k == 0 else ia.ModularIndexing(x, inner, sizes[k])
            terms.append(strides[k] * digit)
            inner *= sizes[k]
        e = ia.simplify(ia.Add(*terms), {"x": numel})
        out.append(Case(e, numel, None))
    return out


def from_corpus() -> list[Case] | None:
    try:
        from bench.corpus.load import BLOCKS_PATH, load_blocks
    except ImportError:
        return None
    if not BLOCKS_PATH.exists():
        return None
    cases: dict[tuple[str, str, int], Case] = {}
    for rec in load_blocks():
        for call in rec.get("matcher_calls") or []:
            if call.get("matcher") != "mod_div":
                continue
            try:
                e = ia.parse(call["index"]).subs({ia.Symbol(call["index_var"]): ia.Symbol("x")})
                numel = int(call["numel"])
            except (ia.IndexAlgError, ValueError):
                continue
            key = (str(e), call["numel"], int(call["num_dims"]))
            cases.setdefault(key, Case(e, numel, int(call["num_dims"])))
    return list(cases.values())


def _inductor(cases: list[Case]) -> tuple[list[bool], list[float], list[float]]:
    import sympy
    from torch._inductor.codegen.block_analysis import BlockPatternMatcher
    from torch._inductor.sizevars import SizeVarAllocator
    from torch._inductor.virtualized import V
    from torch.utils._sympy.functions import FloorDiv, ModularIndexing

    x = sympy.Symbol("x", integer=True, nonnegative=True)
    hits: list[bool] = []
    cold: list[float] = []
    warm: list[float] = []
    with V.set_graph_handler(types.SimpleNamespace(sizevars=SizeVarAllocator())):  # type: ignore[arg-type]
        for c in cases:
            s = ia.to_sympy(c.index, flavor="torch")
            s = s.subs({v: x for v in s.free_symbols if str(v) == "x"})
            nd = c.num_dims
            if nd is None:
                nd = max(
                    2,
                    sum(
                        1
                        for a in sympy.preorder_traversal(s)
                        if isinstance(a, (FloorDiv, ModularIndexing)) and a.args[0] == x
                    ),
                )
            sympy.core.cache.clear_cache()
            times = []
            result: Any = None
            for _ in range(2):
                t0 = time.perf_counter_ns()
                try:
                    result = BlockPatternMatcher.match_mod_div_block_expr(
                        s, x, sympy.Integer(c.numel), nd
                    )
                except Exception:  # an assertion inside the matcher counts as a miss
                    result = None
                times.append((time.perf_counter_ns() - t0) / 1000)
            hits.append(result is not None)
            cold.append(times[0])
            warm.append(times[1])
    return hits, cold, warm


def _ours(cases: list[Case], *, simplify: bool) -> tuple[list[bool], list[float], int]:
    hits: list[bool] = []
    times: list[float] = []
    wrong = 0
    rng = random.Random(1)
    for c in cases:
        ranges = {"x": c.numel}
        t0 = time.perf_counter_ns()
        m = decompose(c.index, ranges, ["x"], simplify=simplify)
        times.append((time.perf_counter_ns() - t0) / 1000)
        hits.append(m.ok)
        if m.ok:
            whole = m.recompose()
            params = [s.name for s in c.index.free_symbols if s.name != "x"]
            for _ in range(16):
                # symbolic strides and sizes (size symbols >= 1) get small random values
                env = {"x": rng.randrange(c.numel), **{p: rng.randint(1, 9) for p in params}}
                try:
                    want = ia.evaluate(c.index, env)
                except ia.IndexAlgError:
                    continue
                wrong += ia.evaluate(whole, env) != want
    return hits, times, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generated", type=int, default=0, help="use N generated cases")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cases = None if args.generated else from_corpus()
    source = "corpus (bench/corpus/blocks.jsonl.gz)"
    if cases is None:
        cases = generated(args.generated or 300, args.seed)
        source = f"generated ({len(cases)} strided views, seed {args.seed})"
    raw_hits, raw_t, wrong = _ours(cases, simplify=False)
    simp_hits, simp_t, wrong2 = _ours(cases, simplify=True)
    ind_hits, ind_cold, ind_warm = _inductor(cases)
    med = statistics.median
    both = sum(a and b for a, b in zip(raw_hits, ind_hits))
    only_ind = sum(b and not a for a, b in zip(raw_hits, ind_hits))
    print(f"source: {source}; {len(cases)} accesses")
    print("| system | hits | hit rate | median µs/access | mean µs/access |")
    print("|---|---|---|---|---|")
    rows = [
        ("Inductor BlockPatternMatcher, cold", ind_hits, ind_cold),
        ("Inductor BlockPatternMatcher, warm", ind_hits, ind_warm),
        ("indexalg decompose (raw)", raw_hits, raw_t),
        ("indexalg decompose (simplify first)", simp_hits, simp_t),
    ]
    for name, hits, times in rows:
        print(
            f"| {name} | {sum(hits)} | {sum(hits) / len(hits):.1%} | {med(times):.1f} | "
            f"{statistics.fmean(times):.1f} |"
        )
    print(f"both hit: {both}; Inductor only: {only_ind}; wrong decompositions: {wrong + wrong2}")
    print(
        f"speed-up (median, raw vs Inductor cold / warm): {med(ind_cold) / med(raw_t):.0f}x / "
        f"{med(ind_warm) / med(raw_t):.0f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
