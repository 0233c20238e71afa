"""The architecture, enforced: layers that import one way, no cycles, every op-keyed table
complete, no oversized functions.  docs/architecture.md explains each rule; a failure names
the offending edge, op or function."""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import indexalg
from indexalg.evaluate import EVAL_TABLE
from indexalg.expr import (
    Add,
    And,
    BoolConst,
    Eq,
    Expr,
    Integer,
    Le,
    Lt,
    Max,
    Min,
    ModularIndexing,
    Mul,
    Ne,
    Not,
    Or,
    Symbol,
    Where,
    Wild,
)

ROOT = Path(__file__).resolve().parent.parent

# --- layers --------------------------------------------------------------------------------

#: The core's layers, bottom first.  A module may import its own layer and those below it;
#: an import of a higher layer is an error.  A module not listed takes its package's layer.
CORE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("indexalg.errors", "indexalg.limits", "indexalg._bigint", "indexalg.memo"),
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


#: Inside the simplifier's package, bottom first: the rebuild step, the driver that uses
#: it, the entry points that own the result memo, the package's re-exports.
SIMPLIFY_ORDER = (
    "indexalg.simplify.rebuild",
    "indexalg.simplify.driver",
    "indexalg.simplify.entry",
    "indexalg.simplify",
)


def test_the_simplify_modules_import_downwards() -> None:
    order = {name: i for i, name in enumerate(SIMPLIFY_ORDER)}
    bad = [
        f"{m}:{line} imports {t}"
        for m, t, line, _ in _edges()
        if m in order and t in order and order[t] >= order[m] and m != "indexalg.simplify"
    ]
    assert bad == []
    assert set(order) == {m for m, _ in _modules() if m.startswith("indexalg.simplify")}


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
#
# An op is a concrete subclass of Expr.  Every place keyed by op must hold every op: the
# registry (ALL_OPS), the evaluator, each analysis, printer and converter.  Some places hold
# only some ops on purpose (only divisions are DIVISION_KINDS); each of those has its set of
# ops left out here, and an op must be in the place or in that set, not both: a new op makes
# someone decide.  The report names, for each op, every place still to fill.


def concrete_ops() -> set[type[Expr]]:
    """Every concrete ``Expr`` subclass that exists: a class whose name starts with ``_`` is
    a shared base (``_Binary``), and ``Wild`` is a rule-pattern variable, not an op.  A class
    that its module no longer holds (a test's probe, after the test) does not count."""
    found: set[type[Expr]] = set()
    todo = list(Expr.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__name__.startswith("_") or cls is Wild:
            continue
        if getattr(sys.modules.get(cls.__module__), cls.__qualname__, None) is cls:
            found.add(cls)
    return found


def op_tables() -> dict[str, dict[type[Expr], Any]]:
    """Every table keyed by op that must cover every op."""
    from indexalg.analysis.congruence import CONGRUENCE_TABLE
    from indexalg.analysis.interval import INTERVAL_TABLE
    from indexalg.analysis.symbolic import SYMBOLIC_TABLE
    from indexalg.printing import C_TABLE, PYTHON_TABLE, TEXT_TABLE, TRITON_TABLE

    tables: dict[str, dict[type[Expr], Any]] = {
        "indexalg.evaluate.EVAL_TABLE": EVAL_TABLE,
        "indexalg.analysis.interval.INTERVAL_TABLE": INTERVAL_TABLE,
        "indexalg.analysis.symbolic.SYMBOLIC_TABLE": SYMBOLIC_TABLE,
        "indexalg.analysis.congruence.CONGRUENCE_TABLE": CONGRUENCE_TABLE,
        "indexalg.printing.TEXT_TABLE": TEXT_TABLE,
        "indexalg.printing.PYTHON_TABLE": PYTHON_TABLE,
        "indexalg.printing.C_TABLE": C_TABLE,
        "indexalg.printing.TRITON_TABLE": TRITON_TABLE,
    }
    try:
        from indexalg.interop.z3 import Z3_TABLE
    except ImportError:  # pragma: no cover - z3 is a dev dependency
        pass
    else:
        tables["indexalg.interop.z3.Z3_TABLE"] = Z3_TABLE
    try:
        from indexalg.interop.sympy import TO_PLAIN_TABLE, TO_TORCH_TABLE
    except ImportError:  # pragma: no cover - sympy is a dev dependency
        pass
    else:
        tables["indexalg.interop.sympy.TO_PLAIN_TABLE"] = TO_PLAIN_TABLE
        tables["indexalg.interop.sympy.TO_TORCH_TABLE"] = TO_TORCH_TABLE
    return tables


#: Ops written as literals or operators, not as ``Name(args)``.
NO_FUNCTION_FORM = frozenset({Integer, Symbol, Add, Mul, BoolConst})
#: The ops of polynomials and of claims: no division, nothing the termination order counts.
POLYNOMIAL_OR_CLAIM = frozenset(
    {Integer, Symbol, Add, Mul, BoolConst, Lt, Le, Eq, Ne, And, Or, Not}
)
LEAVES_AND_CLAIMS = frozenset({Integer, Symbol, BoolConst, Lt, Le, Eq, Ne, And, Or, Not})


@dataclass(frozen=True)
class PartialTable:
    """A place that holds only some ops: ``held`` gives them, ``left_out`` the others."""

    held: frozenset[type[Expr]]
    left_out: frozenset[type[Expr]]


def _by_name(names: Iterable[str]) -> frozenset[type[Expr]]:
    """The ops of a table keyed by class name (the parser's, the strategies')."""
    return frozenset(op for op in concrete_ops() if op.__name__ in set(names))


def partial_tables() -> dict[str, PartialTable]:
    """Every place that holds only some ops, with the ops it leaves out on purpose."""
    from indexalg.parse import _FUNCTIONS
    from indexalg.poly import BINARY_DIVISIONS, DIVISION_KINDS
    from indexalg.procedures.factored import _COSTLY
    from indexalg.verify import NONPOLYNOMIAL, WEIGHTS

    nondividing = POLYNOMIAL_OR_CLAIM | {Min, Max, Where}
    tables = {
        "indexalg.parse._FUNCTIONS": PartialTable(_by_name(_FUNCTIONS), NO_FUNCTION_FORM),
        "indexalg.poly.DIVISION_KINDS": PartialTable(frozenset(DIVISION_KINDS), nondividing),
        "indexalg.poly.BINARY_DIVISIONS": PartialTable(
            frozenset(BINARY_DIVISIONS), nondividing | {ModularIndexing}
        ),
        "indexalg.verify.NONPOLYNOMIAL": PartialTable(
            frozenset(NONPOLYNOMIAL), POLYNOMIAL_OR_CLAIM
        ),
        "indexalg.verify.WEIGHTS": PartialTable(frozenset(WEIGHTS), POLYNOMIAL_OR_CLAIM),
        "indexalg.procedures.factored._COSTLY": PartialTable(_COSTLY, POLYNOMIAL_OR_CLAIM),
    }
    try:
        from indexalg.testing.strategies import OPS
    except ImportError:  # pragma: no cover - hypothesis is a dev dependency
        pass
    else:
        tables["indexalg.testing.strategies.OPS"] = PartialTable(_by_name(OPS), LEAVES_AND_CLAIMS)
    return tables


#: The registry: every op is in ALL_OPS, through INTEGER_OPS or BOOL_OPS.
REGISTRY = "indexalg.expr.ALL_OPS (through INTEGER_OPS or BOOL_OPS)"
#: Where the sets of ops left out of the partial tables are kept.
LEFT_OUT_HERE = "its left-out set in tests/test_architecture.py"


def missing_places(partial: dict[str, PartialTable] | None = None) -> dict[str, list[str]]:
    """Op name -> every place that does not hold it yet, in a fixed order (empty when done).
    A partial table (``partial``, default :func:`partial_tables`) lacks an op that is
    neither in it nor in its left-out set."""
    import indexalg.expr as expr_module

    registry = set(expr_module.ALL_OPS)
    tables = op_tables()
    partial = partial_tables() if partial is None else partial
    out: dict[str, list[str]] = {}
    for op in sorted(concrete_ops(), key=lambda c: c.__name__):
        places = [REGISTRY] if op not in registry else []
        places += [name for name, table in tables.items() if op not in table]
        places += [
            f"{name} (or {LEFT_OUT_HERE})"
            for name, t in partial.items()
            if op not in t.held and op not in t.left_out
        ]
        if places:
            out[op.__name__] = places
    return out


def describe(missing: dict[str, list[str]]) -> str:
    """The report for people: one paragraph per op, one place a line."""
    return "\n".join(
        f"op {op} is half added; add it to:\n" + "".join(f"  - {p}\n" for p in places)
        for op, places in missing.items()
    )


def test_all_ops_is_every_concrete_expr_class() -> None:
    import indexalg.expr as expr_module

    assert set(expr_module.ALL_OPS) == concrete_ops()
    assert len(expr_module.ALL_OPS) == len(set(expr_module.ALL_OPS))
    assert {op for op in expr_module.ALL_OPS if op.is_bool} == set(expr_module.BOOL_OPS)


def test_every_op_has_a_docstring_of_its_own() -> None:
    """Each op's class states what it means (that the words are exact is for review)."""
    import indexalg.expr as expr_module

    bare = [
        op.__name__ for op in expr_module.ALL_OPS if not (op.__dict__.get("__doc__") or "").strip()
    ]
    assert bare == []


def test_every_table_covers_every_op() -> None:
    missing = missing_places()
    assert missing == {}, describe(missing)


def test_the_left_out_sets_are_exact() -> None:
    """An op a partial table holds is not also in its left-out set (the sets say what each
    table means, so they must not drift from it)."""
    both = {
        name: sorted(op.__name__ for op in t.held & t.left_out)
        for name, t in partial_tables().items()
        if t.held & t.left_out
    }
    assert both == {}


def test_the_termination_tables_agree() -> None:
    """Every non-polynomial op has a weight of at least 1: an op of weight 0 would let a
    rule that rewrites into it be judged decreasing."""
    from indexalg.poly import BINARY_DIVISIONS, DIVISION_KINDS
    from indexalg.verify import NONPOLYNOMIAL, WEIGHTS

    assert set(WEIGHTS) == set(NONPOLYNOMIAL)
    assert all(w >= 1 for w in WEIGHTS.values())
    assert set(BINARY_DIVISIONS) <= set(DIVISION_KINDS) <= set(NONPOLYNOMIAL)


#: A new op, defined the way expr.py defines FloorDiv, in a module of its own.
_PROBE = """
from indexalg.expr import _Binary

class Frobnicate(_Binary):
    __slots__ = ()
"""


def _probe(monkeypatch: pytest.MonkeyPatch) -> type[Expr]:
    mod = types.ModuleType("probe_ops")
    exec(_PROBE, mod.__dict__)
    monkeypatch.setitem(sys.modules, "probe_ops", mod)
    op: type[Expr] = mod.Frobnicate
    return op


def _every_place() -> list[str]:
    return [
        REGISTRY,
        *op_tables(),
        *(f"{name} (or {LEFT_OUT_HERE})" for name in partial_tables()),
    ]


def test_an_op_added_as_a_class_alone_is_named_by_every_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _probe(monkeypatch)
    report = missing_places()
    assert report == {"Frobnicate": _every_place()}
    message = describe(report)
    assert message.startswith("op Frobnicate is half added; add it to:\n")
    assert all(f"  - {place}\n" in message for place in _every_place())


def test_a_half_added_op_is_named_by_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The op in the registry and the evaluator only (the issue's BitAnd): every other place
    names it; put in every table and left-out set, it is complete."""
    import indexalg.expr as expr_module

    op = _probe(monkeypatch)
    monkeypatch.setattr(expr_module, "ALL_OPS", (*expr_module.ALL_OPS, op))
    monkeypatch.setitem(EVAL_TABLE, op, lambda e, ev: 0)
    rest = [p for p in _every_place() if p not in (REGISTRY, "indexalg.evaluate.EVAL_TABLE")]
    assert missing_places() == {"Frobnicate": rest}
    for table in op_tables().values():
        monkeypatch.setitem(table, op, None)
    decided = {
        name: PartialTable(t.held, t.left_out | {op}) for name, t in partial_tables().items()
    }
    assert missing_places(decided) == {}


# --- procedures ----------------------------------------------------------------------------


def test_every_procedure_is_registered() -> None:
    """A module of procedures/ lists its procedures in a tuple; every such tuple's
    procedures are in ``procedures.PROCEDURES``, which the simplifier runs."""
    import importlib
    import pkgutil

    import indexalg.procedures as package
    from indexalg.procedures.base import Procedure

    registered = set(package.PROCEDURES)
    unregistered = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, tuple) and value and all(isinstance(p, Procedure) for p in value):
                unregistered += [
                    f"{module.__name__}.{name}: {p.name}" for p in value if p not in registered
                ]
    assert unregistered == []


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
