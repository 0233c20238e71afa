"""The architecture, enforced: layers that import one way, no cycles, every op-keyed table
complete, no oversized functions.  docs/architecture.md explains each rule; a failure names
the offending edge, op or function."""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import indexalg
from indexalg.evaluate import EVAL_TABLE
from indexalg.expr import Expr, Wild

ROOT = Path(__file__).resolve().parent.parent

# --- layers --------------------------------------------------------------------------------

#: The core's layers, bottom first.  A module may import its own layer and those below it;
#: an import of a higher layer is an error.  A module not listed takes its package's layer.
CORE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("indexalg.errors", "indexalg.limits", "indexalg._bigint"),
    ("indexalg.expr",),
    ("indexalg.poly",),
    ("indexalg.parse", "indexalg.printing", "indexalg.evaluate"),
    ("indexalg.ranges",),
    ("indexalg.analysis",),
    ("indexalg.rules", "indexalg.rewrite"),
    ("indexalg.procedures",),
    ("indexalg.simplify",),
    ("indexalg.interop",),
    ("indexalg.prove", "indexalg.loops", "indexalg.iter_map", "indexalg.decisions"),
    ("indexalg.verify", "indexalg.analyzer"),
    ("indexalg",),  # the package's __init__: the public re-exports
    ("indexalg.testing", "indexalg.inductor"),
    ("indexalg.cli", "indexalg.__main__"),
    ("indexalg_triton",),
)

#: Inside the analysis package, bottom first (analysis/__init__.py explains why).
ANALYSIS_ORDER = (
    "indexalg.analysis.infinity",
    "indexalg.analysis.context",
    "indexalg.analysis.interval",
    "indexalg.analysis.symbolic",
    "indexalg.analysis.congruence",
    "indexalg.analysis.decide",
    "indexalg.analysis.refine",
    "indexalg.analysis.where",
    "indexalg.analysis.bounds",
    "indexalg.analysis",
)

#: Modules that may import these project modules inside functions: each guards an optional
#: heavy dependency (z3, sympy, torch, triton) or keeps `--help` cheap (the CLI).
LAZY_ALLOWED_TARGETS = ("indexalg.interop", "indexalg.inductor")
LAZY_ALLOWED_SOURCES = ("indexalg.cli", "indexalg.testing", "indexalg.inductor", "indexalg_triton")


def _modules() -> Iterator[tuple[str, Path]]:
    for pkg in ("indexalg", "indexalg_triton"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            yield ".".join(parts), path


def _imports(module: str, path: Path) -> Iterator[tuple[str, int, bool]]:
    """(imported module, line, inside a function) for every project import outside
    ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node: ast.AST, in_function: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                yield from (x for n in child.orelse for x in visit(n, in_function))
                continue
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")
                    base = ".".join(up[: len(up) - child.level + 1] + ([base] if base else []))
                for alias in child.names:
                    target = f"{base}.{alias.name}"
                    name = target if _is_module(target) else base
                    if name.startswith(("indexalg.", "indexalg_triton")) or name == "indexalg":
                        yield name, child.lineno, inner
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] in ("indexalg", "indexalg_triton"):
                        yield alias.name, child.lineno, inner
            yield from visit(child, inner)

    yield from visit(tree, False)


_KNOWN = {name for name, _ in _modules()}


def _is_module(name: str) -> bool:
    return name in _KNOWN


def _layer(module: str) -> int:
    best, best_len = -1, -1
    for i, layer in enumerate(CORE_LAYERS):
        for prefix in layer:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = i, len(prefix)
    assert best >= 0, f"{module} is in no layer of CORE_LAYERS: add it"
    return best


def _edges() -> list[tuple[str, str, int, bool]]:
    return [(m, t, line, lazy) for m, p in _modules() for t, line, lazy in _imports(m, p)]


def test_no_import_from_a_lower_layer_to_a_higher_one() -> None:
    bad = [
        f"{m}:{line} imports {t} (layer {_layer(m)} -> {_layer(t)})"
        for m, t, line, _ in _edges()
        if _layer(t) > _layer(m)
    ]
    assert bad == []


def test_the_analysis_modules_import_downwards() -> None:
    order = {name: i for i, name in enumerate(ANALYSIS_ORDER)}
    bad = [
        f"{m}:{line} imports {t}"
        for m, t, line, _ in _edges()
        if m in order and t in order and order[t] >= order[m] and m != "indexalg.analysis"
    ]
    assert bad == []
    assert set(order) == {m for m, _ in _modules() if m.startswith("indexalg.analysis")}


def test_no_cycles_between_modules() -> None:
    graph: dict[str, set[str]] = {}
    for m, t, _, _ in _edges():
        if t != m:
            graph.setdefault(m, set()).add(t)
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    for root in sorted(graph):
        if state.get(root):
            continue
        path, todo = [root], [sorted(graph.get(root, ()))]
        state[root] = 1
        while todo:
            if not todo[-1]:
                state[path.pop()] = 2
                todo.pop()
                continue
            nxt = todo[-1].pop()
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                todo.append(sorted(graph.get(nxt, ())))
    return None


def test_project_modules_are_imported_at_the_top() -> None:
    bad = [
        f"{m}:{line} imports {t} inside a function"
        for m, t, line, lazy in _edges()
        if lazy
        and not t.startswith(LAZY_ALLOWED_TARGETS)
        and not m.startswith(LAZY_ALLOWED_SOURCES)
    ]
    assert bad == []


def test_the_layer_checker_finds_an_upward_import(tmp_path: Path) -> None:
    src = tmp_path / "probe.py"
    src.write_text("def f():\n    from indexalg.simplify import simplify\n")
    found = list(_imports("indexalg.expr", src))
    assert found == [("indexalg.simplify", 2, True)]
    assert _layer("indexalg.simplify") > _layer("indexalg.expr")
    assert _find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


# --- op tables -----------------------------------------------------------------------------


def op_tables() -> dict[str, dict[type[Expr], Any]]:
    """Every table keyed by op that must cover every op of the evaluator's table."""
    from indexalg.analysis.congruence import CONGRUENCE_TABLE
    from indexalg.analysis.interval import INTERVAL_TABLE
    from indexalg.analysis.symbolic import SYMBOLIC_TABLE
    from indexalg.printing import C_TABLE, PYTHON_TABLE, TEXT_TABLE, TRITON_TABLE

    tables: dict[str, dict[type[Expr], Any]] = {
        "interval": INTERVAL_TABLE,
        "symbolic": SYMBOLIC_TABLE,
        "congruence": CONGRUENCE_TABLE,
        "text printer": TEXT_TABLE,
        "python printer": PYTHON_TABLE,
        "c printer": C_TABLE,
        "triton printer": TRITON_TABLE,
    }
    try:
        from indexalg.interop.z3 import Z3_TABLE
    except ImportError:  # pragma: no cover - z3 is a dev dependency
        pass
    else:
        tables["z3"] = Z3_TABLE
    try:
        from indexalg.interop.sympy import TO_PLAIN_TABLE, TO_TORCH_TABLE
    except ImportError:  # pragma: no cover - sympy is a dev dependency
        pass
    else:
        tables["sympy"] = TO_PLAIN_TABLE
        tables["torch sympy"] = TO_TORCH_TABLE
    return tables


#: Ops a table need not cover: rule-pattern wildcards have no sympy form.
EXEMPT: dict[str, set[type[Expr]]] = {"sympy": {Wild}, "torch sympy": {Wild}}


def uncovered() -> dict[str, list[str]]:
    """Table name -> the evaluator's ops it lacks (empty when complete)."""
    ops = set(EVAL_TABLE)
    out = {}
    for name, table in op_tables().items():
        missing = sorted(t.__name__ for t in ops - set(table) - EXEMPT.get(name, set()))
        if missing:
            out[name] = missing
    return out


def test_every_table_covers_every_op() -> None:
    assert uncovered() == {}


def test_a_half_added_op_is_named_by_every_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = types.ModuleType("probe_ops")
    exec(  # a new op, defined the way expr.py defines its ops, in a module of its own
        "from indexalg.expr import Expr\n"
        "class Frobnicate(Expr):\n"
        "    __slots__ = ()\n",
        mod.__dict__,
    )
    monkeypatch.setitem(sys.modules, "probe_ops", mod)
    monkeypatch.setitem(EVAL_TABLE, mod.Frobnicate, lambda e, ev: 0)
    report = uncovered()
    assert set(report) == set(op_tables())
    assert all(names == ["Frobnicate"] for names in report.values())


# --- sizes ---------------------------------------------------------------------------------

MAX_FUNCTION_LINES = 80
MAX_CLASS_LINES = 250


def test_no_oversized_functions_or_classes() -> None:
    bad = []
    for module, path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            n = (node.end_lineno or node.lineno) - node.lineno + 1 if hasattr(node, "lineno") else 0
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and n > MAX_FUNCTION_LINES:
                bad.append(f"{module}.{node.name}: function of {n} lines")
            elif isinstance(node, ast.ClassDef) and n > MAX_CLASS_LINES:
                bad.append(f"{module}.{node.name}: class of {n} lines")
    assert bad == []


def test_package_is_importable() -> None:
    assert indexalg.__version__
