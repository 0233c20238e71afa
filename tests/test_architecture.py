"""The architecture, enforced: layers that import one way, no cycles, every op-keyed table
complete, no oversized functions.  docs/architecture.md explains each rule; a failure names
the offending edge, op or function."""

from __future__ import annotations

import ast
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import indexalg
from indexalg import ops
from indexalg.evaluate import EVAL_TABLE
from indexalg.expr import (
    Add,
    Expr,
    Integer,
    Mul,
    Symbol,
    Wild,
)

ROOT = Path(__file__).resolve().parent.parent

# --- layers --------------------------------------------------------------------------------

#: The core's layers, bottom first.  A module may import its own layer and those below it;
#: an import of a higher layer is an error.  A module not listed takes its package's layer.
CORE_LAYERS: tuple[tuple[str, ...], ...] = (
    ("indexalg.errors", "indexalg.limits", "indexalg._bigint", "indexalg.memo"),
    ("indexalg.ops",),
    ("indexalg.expr",),
    ("indexalg.poly",),
    ("indexalg.parse", "indexalg.printing", "indexalg.evaluate"),
    ("indexalg.ranges", "indexalg._rangespec"),
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
    "indexalg.analysis.witness",
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
# An op is a concrete subclass of Expr.  Every op is in the registry (ALL_OPS) and has a
# record of its own in indexalg.ops (the class's ``op``), from which the mechanical tables
# are derived (the evaluator, the text and Python printers, the parser's names, the sympy
# conversions, the division kinds, the termination weights, what a product must not copy,
# the strategies' ops).  The analyses, the C and Triton printers and the Z3 encoding are
# handler tables of their own, and each must hold every op.  A derived table lacks an op only
# where its record gives no spelling and the module has no handler of its own for it.  The
# report names, for each op, every place still to fill.


def concrete_ops() -> set[type[Expr]]:
    """Every concrete ``Expr`` subclass that exists: a class whose name starts with ``_`` is
    a shared base (``_Division``), and ``Wild`` is a rule-pattern variable, not an op.  A
    class that its module no longer holds (a test's probe, after the test) does not count."""
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


def handler_tables() -> dict[str, dict[type[Expr], Any]]:
    """Every table of handlers keyed by op that must cover every op (written by hand)."""
    from indexalg.analysis.congruence import CONGRUENCE_TABLE
    from indexalg.analysis.interval import INTERVAL_TABLE
    from indexalg.analysis.symbolic import SYMBOLIC_TABLE
    from indexalg.printing import C_TABLE, TRITON_TABLE

    tables: dict[str, dict[type[Expr], Any]] = {
        "indexalg.analysis.interval.INTERVAL_TABLE": INTERVAL_TABLE,
        "indexalg.analysis.symbolic.SYMBOLIC_TABLE": SYMBOLIC_TABLE,
        "indexalg.analysis.congruence.CONGRUENCE_TABLE": CONGRUENCE_TABLE,
        "indexalg.printing.C_TABLE": C_TABLE,
        "indexalg.printing.TRITON_TABLE": TRITON_TABLE,
    }
    try:
        from indexalg.interop.z3 import Z3_TABLE
    except ImportError:  # pragma: no cover - z3 is a dev dependency
        pass
    else:
        tables["indexalg.interop.z3.Z3_TABLE"] = Z3_TABLE
    return tables


@dataclass(frozen=True)
class DerivedTable:
    """A table derived from the records: ``table`` holds an op the record ``spells`` or
    that the module handles its own way (``table`` itself, for an op added after import)."""

    table: dict[type[Expr], Any]
    spells: Callable[[ops.Op], bool]


def derived_tables() -> dict[str, DerivedTable]:
    """Every table keyed by op that is derived from the records, with what makes a record
    fill it."""
    from indexalg.printing import PYTHON_TABLE, TEXT_TABLE

    tables = {
        "indexalg.evaluate.EVAL_TABLE": DerivedTable(EVAL_TABLE, lambda op: True),
        "indexalg.printing.TEXT_TABLE": DerivedTable(TEXT_TABLE, lambda op: op.text is not None),
        "indexalg.printing.PYTHON_TABLE": DerivedTable(
            PYTHON_TABLE, lambda op: op.python is not None
        ),
    }
    try:
        from indexalg.interop.sympy import TO_PLAIN_TABLE, TO_TORCH_TABLE
    except ImportError:  # pragma: no cover - sympy is a dev dependency
        pass
    else:
        tables["indexalg.interop.sympy.TO_PLAIN_TABLE"] = DerivedTable(
            TO_PLAIN_TABLE, lambda op: op.sympy is not None
        )
        tables["indexalg.interop.sympy.TO_TORCH_TABLE"] = DerivedTable(
            TO_TORCH_TABLE, lambda op: op.sympy is not None or op.torch is not None
        )
    return tables


def op_tables() -> dict[str, dict[type[Expr], Any]]:
    """Every table keyed by op that must cover every op, handler and derived."""
    return {
        **{name: t.table for name, t in derived_tables().items()},
        **handler_tables(),
    }


def own_record(op: type[Expr]) -> ops.Op | None:
    """The op's record, if its class names one of its own (not a base's)."""
    record = op.__dict__.get("op")
    return record if isinstance(record, ops.Op) and record.name == op.__name__ else None


#: The registry: every op is in ALL_OPS, through INTEGER_OPS or BOOL_OPS.
REGISTRY = "indexalg.expr.ALL_OPS (through INTEGER_OPS or BOOL_OPS)"
#: Where an op's record goes.
RECORD = "indexalg.ops (a record, in RECORDS, named by the class's `op`)"
#: What a derived table lacking an op asks for.
SPELLING = "a spelling in its record, or a handler of its own"


def missing_places() -> dict[str, list[str]]:
    """Op name -> every place that does not hold it yet, in a fixed order (empty when done).
    The tables derived from the records are named only for an op that has a record (else
    the record is the place to fill)."""
    import indexalg.expr as expr_module

    registry = set(expr_module.ALL_OPS)
    handlers = handler_tables()
    derived = derived_tables()
    out: dict[str, list[str]] = {}
    for op in sorted(concrete_ops(), key=lambda c: c.__name__):
        record = own_record(op)
        places = [REGISTRY] if op not in registry else []
        if record is None or record not in ops.RECORDS:
            places.append(RECORD)
        if record is not None:
            places += [
                f"{name} ({SPELLING})"
                for name, t in derived.items()
                if op not in t.table and not t.spells(record)
            ]
        places += [name for name, table in handlers.items() if op not in table]
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


def test_the_records_are_the_ops() -> None:
    """One record per op, each named by its class, and the derived pairs are all of them."""
    import indexalg.expr as expr_module

    assert [op.name for op in ops.RECORDS] == list(ops.BY_NAME)
    assert set(ops.BY_NAME) == {cls.__name__ for cls in expr_module.ALL_OPS}
    assert tuple((cls, cls.op) for cls in expr_module.ALL_OPS) == expr_module.OP_RECORDS
    assert all(ops.BY_NAME[cls.__name__] is cls.op for cls in expr_module.ALL_OPS)


def test_a_spelled_op_has_no_handler_of_its_own() -> None:
    """A printer writes an op its own way only where the record gives no spelling (else one
    of the two would be dead)."""
    from indexalg.printing import python, text

    for module, field in ((text, "text"), (python, "python")):
        both = [cls.__name__ for cls in module._OWN if getattr(own_record(cls), field, None)]
        assert both == [], module.__name__


def test_the_termination_tables_agree() -> None:
    """Exactly the polynomial ops and the claims weigh 0: an op of weight 0 would let a rule
    that rewrites into it be judged decreasing; every division counts."""
    import indexalg.expr as expr_module
    from indexalg.poly import BINARY_DIVISIONS, DIVISION_KINDS
    from indexalg.verify import NONPOLYNOMIAL, WEIGHTS

    weightless = {cls for cls, op in expr_module.OP_RECORDS if op.weight == 0}
    assert weightless == {cls for cls in expr_module.ALL_OPS if cls.is_bool} | POLYNOMIAL
    assert set(WEIGHTS) == set(NONPOLYNOMIAL)
    assert all(w >= 1 for w in WEIGHTS.values())
    assert set(BINARY_DIVISIONS) <= set(DIVISION_KINDS) <= set(NONPOLYNOMIAL)


#: The ops of integer polynomials (the canonical sums and products and their leaves).
POLYNOMIAL = frozenset({Integer, Symbol, Add, Mul})


def test_the_derived_tables_are_the_records() -> None:
    """Each table derived from the records holds exactly what they say."""
    import indexalg.expr as expr_module
    from indexalg.parse import _FUNCTIONS
    from indexalg.poly import BINARY_DIVISIONS, DIVISION_KINDS
    from indexalg.procedures.factored import _COSTLY
    from indexalg.testing.strategies import OPS
    from indexalg.verify import WEIGHTS

    pairs = expr_module.OP_RECORDS
    assert all(EVAL_TABLE[cls] is op.evaluate for cls, op in pairs)
    names = {name: (op.arity, cls) for cls, op in pairs for name in op.parse}
    assert all(_FUNCTIONS[n][0] == a and _FUNCTIONS[n][1] == c.make for n, (a, c) in names.items())
    assert set(DIVISION_KINDS) == {cls for cls, op in pairs if op.division}
    assert set(BINARY_DIVISIONS) == {cls for cls, op in pairs if op.division == "binary"}
    assert {cls: op.weight for cls, op in pairs if op.weight} == WEIGHTS
    assert {cls for cls, op in pairs if op.costly} == _COSTLY
    classes = {cls.__name__: cls for cls in expr_module.ALL_OPS}
    generated = [op.name for op in ops.RECORDS if op.arity and not classes[op.name].is_bool]
    assert list(OPS) == generated


#: A new op, defined the way expr.py defines FloorDiv, in a module of its own (the class
#: alone: no record, in no table).
_PROBE = """
from indexalg.expr import _Division

class Frobnicate(_Division):
    \"\"\"Frobnicate(a, b): a probe.\"\"\"

    __slots__ = ()
"""


def _probe(monkeypatch: pytest.MonkeyPatch) -> type[Expr]:
    mod = types.ModuleType("probe_ops")
    exec(_PROBE, mod.__dict__)
    monkeypatch.setitem(sys.modules, "probe_ops", mod)
    op: type[Expr] = mod.Frobnicate
    return op


def _probe_record() -> ops.Op:
    """The probe's record, as a new op's author writes it (spelled in text and Python)."""
    return ops.Op(
        name="Frobnicate",
        arity=2,
        evaluate=lambda e, ev: 0,
        text=ops.call("Frobnicate"),
        python=ops.call("frobnicate"),
        parse=("Frobnicate",),
        sympy=None,
        torch=None,
        division=None,
        weight=1,
        costly=False,
    )


def test_an_op_added_as_a_class_alone_is_named_by_every_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The class alone: the registry, the record and every handler table name it (the
    derived tables follow from the record)."""
    _probe(monkeypatch)
    every_place = [REGISTRY, RECORD, *handler_tables()]
    report = missing_places()
    assert report == {"Frobnicate": every_place}
    message = describe(report)
    assert message.startswith("op Frobnicate is half added; add it to:\n")
    assert all(f"  - {place}\n" in message for place in every_place)


def test_a_half_added_op_is_named_by_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """The op in the registry with its record (the issue's BitAnd, in ALL_OPS and in the
    evaluator): a derived table its record does not spell names it, and so does every
    handler table; with a handler in each, it is complete."""
    import indexalg.expr as expr_module

    op = _probe(monkeypatch)
    record = _probe_record()
    monkeypatch.setattr(expr_module, "ALL_OPS", (*expr_module.ALL_OPS, op))
    monkeypatch.setattr(op, "op", record, raising=False)
    monkeypatch.setattr(ops, "RECORDS", (*ops.RECORDS, record))
    unspelled = [
        f"{name} ({SPELLING})" for name in derived_tables() if name.startswith("indexalg.interop")
    ]
    assert missing_places() == {"Frobnicate": [*unspelled, *handler_tables()]}
    for table in op_tables().values():
        monkeypatch.setitem(table, op, None)
    assert missing_places() == {}


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
