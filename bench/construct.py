"""Construction cost of index expressions: indexalg against sympy, side by side.

Run as ``python -m bench.construct [--n 10000] [--repeats 5]``.

Both libraries build the same Inductor-style expressions with Python operators and their
constructors (on the sympy side torch's ``FloorDiv``/``ModularIndexing``/``Min``/``Max``/
``Where`` when torch is installed, as Inductor does, else plain ``floor``/``Mod``/``Min``/
``Max``/``Piecewise``); sympy symbols are ``integer=True, nonnegative=True`` like Inductor's.

* **cold**: every expression is new to the process: each repeat uses symbols with names
  never used before (made outside the timed region), so no cache or intern table can hit.
* **warm**: the same expressions are rebuilt while the first build is still alive, so
  indexalg's intern table and sympy's caches can answer.

Each cell is the median over the repeats of (time to build the template's expressions) /
(number of expressions), with the garbage collector paused while timing.  ``ns/node``
divides by the number of distinct nodes of indexalg's form of the expressions.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import indexalg as ia

SYMBOL_NAMES = ("x0", "x1", "y0", "r0", "s0", "s1")


@dataclass(frozen=True)
class Library:
    """The constructors one library builds the expressions with."""

    name: str
    symbol: Callable[[str], Any]
    floordiv: Callable[[Any, Any], Any]
    modular_indexing: Callable[[Any, Any, Any], Any]
    min: Callable[[Any, Any], Any]
    max: Callable[[Any, Any], Any]
    where: Callable[[Any, Any, Any], Any]


def indexalg_library() -> Library:
    return Library(
        name="indexalg",
        symbol=ia.Symbol,
        floordiv=ia.FloorDiv,
        modular_indexing=ia.ModularIndexing,
        min=ia.Min,
        max=ia.Max,
        where=ia.Where,
    )


def sympy_library() -> Library:
    """sympy with torch's index functions when torch is installed, plain sympy otherwise."""
    import sympy

    def symbol(name: str) -> Any:
        return sympy.Symbol(name, integer=True, nonnegative=True)

    try:
        import torch.utils._sympy.functions as fns
    except ImportError:
        return Library(
            name="sympy",
            symbol=symbol,
            floordiv=lambda a, b: sympy.floor(a / b),
            modular_indexing=lambda a, d, m: sympy.Mod(sympy.floor(a / d), m),
            min=sympy.Min,
            max=sympy.Max,
            where=lambda c, a, b: sympy.Piecewise((a, c), (b, True)),
        )
    return Library(
        name="sympy+torch",
        symbol=symbol,
        floordiv=fns.FloorDiv,
        modular_indexing=fns.ModularIndexing,
        min=fns.Min,
        max=fns.Max,
        where=fns.Where,
    )


# ---------------------------------------------------------------------------------------
# Templates: expression k of a template differs from expression j != k (constants vary).

Syms = Sequence[Any]
Template = Callable[[Library, Syms, int], Any]


def _affine(L: Library, s: Syms, k: int) -> Any:
    x0, _, y0, _, s0, _ = s
    return 64 * (k + 1) * s0 * y0 + x0


def _modular(L: Library, s: Syms, k: int) -> Any:
    return L.modular_indexing(s[0], k + 1, 8)


def _floordiv_sum(L: Library, s: Syms, k: int) -> Any:
    x0, _, y0, _, _, _ = s
    return L.floordiv(x0 + (k + 1) * y0, 64)


def _mixed(L: Library, s: Syms, k: int) -> Any:
    x0, x1, y0, _, _, _ = s
    return x0 + (k + 1) * L.modular_indexing(y0, 8, 16) + 1024 * L.floordiv(x1, k + 2)


def _strided(L: Library, s: Syms, k: int) -> Any:
    x0, _, y0, r0, s0, s1 = s
    return x0 + s1 * (y0 + s0 * r0) + k


def _min_bound(L: Library, s: Syms, k: int) -> Any:
    x0, _, _, _, s0, _ = s
    return L.min(x0 + k, s0 - 1)


def _where(L: Library, s: Syms, k: int) -> Any:
    x0, _, _, _, s0, _ = s
    return L.where(x0 < s0 + k, x0, x0 - s0)


TEMPLATES: tuple[tuple[str, str, Template], ...] = (
    ("affine", "64*(k+1)*s0*y0 + x0", _affine),
    ("modular", "ModularIndexing(x0, k+1, 8)", _modular),
    ("floordiv_sum", "FloorDiv(x0 + (k+1)*y0, 64)", _floordiv_sum),
    ("mixed", "x0 + (k+1)*MI(y0, 8, 16) + 1024*FD(x1, k+2)", _mixed),
    ("strided", "x0 + s1*(y0 + s0*r0) + k", _strided),
    ("min", "Min(x0 + k, s0 - 1)", _min_bound),
    ("where", "Where(x0 < s0 + k, x0, x0 - s0)", _where),
)


# ---------------------------------------------------------------------------------------
# Measurement


def _timed_build(L: Library, template: Template, syms: Syms, ks: range) -> tuple[float, list[Any]]:
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        out = [template(L, syms, k) for k in ks]
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
    return elapsed, out


@dataclass
class Cell:
    cold: float  # median seconds per expression
    warm: float


def measure(L: Library, template: Template, count: int, repeats: int, tag: str) -> Cell:
    ks = range(count)
    # One untimed build of a few expressions, so one-time costs of the process (imports,
    # class set-up, sympy's assumption tables) are not charged to the first cold repeat.
    _timed_build(L, template, [L.symbol(f"{n}_{tag}_prime") for n in SYMBOL_NAMES], range(8))
    cold: list[float] = []
    for r in range(repeats):
        syms = [L.symbol(f"{n}_{tag}_cold{r}") for n in SYMBOL_NAMES]
        elapsed, _ = _timed_build(L, template, syms, ks)
        cold.append(elapsed / count)
    syms = [L.symbol(f"{n}_{tag}_warm") for n in SYMBOL_NAMES]
    _, alive = _timed_build(L, template, syms, ks)  # the first build stays alive
    warm: list[float] = []
    for _ in range(repeats):
        elapsed, _ = _timed_build(L, template, syms, ks)
        warm.append(elapsed / count)
    del alive
    return Cell(statistics.median(cold), statistics.median(warm))


def node_count(template: Template, count: int) -> int:
    """Distinct nodes, summed over the template's expressions (indexalg's form)."""
    L = indexalg_library()
    syms = [L.symbol(f"{n}_count") for n in SYMBOL_NAMES]
    return sum(sum(1 for _ in template(L, syms, k).walk()) for k in range(count))


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f}"


def _ratio(a: float, b: float) -> str:
    return f"{b / a:.1f}x"


def run(n: int, repeats: int) -> str:
    """The report: a markdown table, one row per template and a total row."""
    ours, theirs = indexalg_library(), sympy_library()
    per = max(1, n // len(TEMPLATES))
    s = theirs.name
    lines = [
        f"| template | nodes/expr | indexalg cold µs | {s} cold µs | cold ratio "
        f"| indexalg warm µs | {s} warm µs | warm ratio |",
        "|" + "---|" * 8,
    ]
    # Totals in seconds over all expressions: indexalg cold, sympy cold, indexalg warm,
    # sympy warm; and the node count.
    totals = [0.0, 0.0, 0.0, 0.0]
    nodes_total = 0
    for name, _, template in TEMPLATES:
        a = measure(ours, template, per, repeats, f"{name}_ia")
        b = measure(theirs, template, per, repeats, f"{name}_sp")
        nodes = node_count(template, per)
        for i, v in enumerate((a.cold, b.cold, a.warm, b.warm)):
            totals[i] += v * per
        nodes_total += nodes
        lines.append(_row(name, nodes / per, a.cold, b.cold, a.warm, b.warm))
    count = per * len(TEMPLATES)
    ia_cold, sp_cold, ia_warm, sp_warm = (t / count for t in totals)
    lines.append(_row(f"**all {count}**", nodes_total / count, ia_cold, sp_cold, ia_warm, sp_warm))
    ns = [t / nodes_total * 1e9 for t in totals]
    per_node = (
        f"ns/node (all): indexalg cold {ns[0]:.0f}, {s} cold {ns[1]:.0f}; "
        f"indexalg warm {ns[2]:.0f}, {s} warm {ns[3]:.0f}"
    )
    templates = "\n".join(f"  {name}: {text}" for name, text, _ in TEMPLATES)
    return "\n".join([_environment(n=count, repeats=repeats), templates, "", *lines, "", per_node])


def _row(
    name: str, nodes: float, ia_cold: float, sp_cold: float, ia_warm: float, sp_warm: float
) -> str:
    return (
        f"| {name} | {nodes:.1f} | {_us(ia_cold)} | {_us(sp_cold)} | {_ratio(ia_cold, sp_cold)} "
        f"| {_us(ia_warm)} | {_us(sp_warm)} | {_ratio(ia_warm, sp_warm)} |"
    )


def _environment(*, n: int, repeats: int) -> str:
    import sympy

    try:
        import torch

        torch_version = str(torch.__version__)
    except ImportError:
        torch_version = "not installed"
    return (
        f"construction of {n} expressions, median of {repeats} repeats, gc paused while timing; "
        f"python {platform.python_version()}, sympy {sympy.__version__}, torch {torch_version}\n"
        "templates (k = 0, 1, ...):"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.construct", description=__doc__)
    parser.add_argument("--n", type=int, default=10_000, help="expressions in all (default 10000)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    args = parser.parse_args(argv)
    if args.n < 1 or args.repeats < 1:
        parser.error("--n and --repeats must be positive")
    print(run(args.n, args.repeats))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
