"""Determinism of code generation: no iteration over plain sets in the codegen modules (an
AST lint), and every kernel kind generated in subprocesses under different PYTHONHASHSEED
values gives byte-identical sources."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CODEGEN_MODULES = [
    "access.py",
    "codegen/__init__.py",
    "codegen/configs.py",
    "codegen/helpers.py",
    "codegen/kernel.py",
    "codegen/memory.py",
    "codegen/pointwise.py",
    "codegen/reduction.py",
    "codegen/split.py",
    "codegen/values.py",
    "codegen/writer.py",
    "combo.py",
    "debug.py",
    "layout.py",
    "multikernel.py",
    "planner.py",
    "spec.py",
    "template.py",
    "tiling.py",
]

# --- the lint ---------------------------------------------------------------------------------

_SET_CALLS = frozenset({"set", "frozenset"})
_ITERATING_CALLS = frozenset(
    {"list", "tuple", "enumerate", "zip", "iter", "next", "map", "filter", "reversed"}
)


def _annotation_is_set(a: ast.expr | None) -> bool:
    if a is None:
        return False
    base = a.value if isinstance(a, ast.Subscript) else a
    name = (
        base.id
        if isinstance(base, ast.Name)
        else base.attr
        if isinstance(base, ast.Attribute)
        else ""
    )
    return name in ("set", "frozenset", "Set", "FrozenSet", "AbstractSet", "MutableSet")


class SetIterationLint(ast.NodeVisitor):
    """Flags iteration over an expression that is syntactically a set: a set literal or
    comprehension, ``set(...)``/``frozenset(...)``, a set operator on one, a call of a
    function annotated to return one, or a name bound to one or annotated as one in the same
    function (``self.attribute``: anywhere in the module).  Iteration: ``for``,
    comprehensions, ``str.join``, ``dict.fromkeys`` and the calls of :data:`_ITERATING_CALLS`;
    ``sorted(...)``, ``len`` and membership are fine."""

    def __init__(self, global_names: set[str]) -> None:
        self.set_names: set[str] = set(global_names)
        self.problems: list[str] = []
        self.top: ast.AST | None = None

    def collect(self, scope: ast.AST) -> None:
        """Bindings in ``scope``, nested functions excluded."""
        stack = list(ast.iter_child_nodes(scope))
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if isinstance(node, ast.Lambda):
                    continue
                for a in [*node.args.args, *node.args.kwonlyargs]:
                    if node is scope and _annotation_is_set(a.annotation):
                        self.set_names.add(a.arg)
                continue
            if isinstance(node, ast.Assign) and self.is_set(node.value):
                for t in node.targets:
                    self._bind(t)
            elif isinstance(node, ast.AnnAssign) and (
                _annotation_is_set(node.annotation)
                or (node.value is not None and self.is_set(node.value))
            ):
                self._bind(node.target)
            stack.extend(ast.iter_child_nodes(node))
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in [*scope.args.args, *scope.args.kwonlyargs]:
                if _annotation_is_set(a.annotation):
                    self.set_names.add(a.arg)

    def _bind(self, t: ast.expr) -> None:
        if isinstance(t, ast.Name):
            self.set_names.add(t.id)

    def is_set(self, e: ast.expr) -> bool:
        if isinstance(e, (ast.Set, ast.SetComp)):
            return True
        if isinstance(e, ast.Call):
            f = e.func
            if isinstance(f, ast.Name) and (f.id in _SET_CALLS or f"{f.id}()" in self.set_names):
                return True
            return isinstance(f, ast.Attribute) and f"{f.attr}()" in self.set_names
        if isinstance(e, ast.BinOp) and isinstance(
            e.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)
        ):
            return self.is_set(e.left) or self.is_set(e.right)
        if isinstance(e, ast.Name):
            return e.id in self.set_names
        if isinstance(e, ast.Attribute):
            return f".{e.attr}" in self.set_names
        return False

    def flag(self, e: ast.expr, how: str) -> None:
        if self.is_set(e):
            self.problems.append(f"line {e.lineno}: {how} over a set: {ast.unparse(e)}")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if node is self.top:
            self.generic_visit(node)  # nested functions are linted in their own scope

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_For(self, node: ast.For) -> None:
        self.flag(node.iter, "for loop")
        self.generic_visit(node)

    def visit_comprehension(self, node: ast.comprehension) -> None:
        self.flag(node.iter, "comprehension")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Name) and f.id in _ITERATING_CALLS:
            for a in node.args:
                self.flag(a, f"{f.id}()")
        if isinstance(f, ast.Attribute) and f.attr in ("join", "fromkeys", "extend", "update"):
            for a in node.args:
                self.flag(a, f".{f.attr}()")
        self.generic_visit(node)


def _global_set_names(tree: ast.AST) -> set[str]:
    """``self.attr`` bound to or annotated as a set, and functions returning one."""
    out: set[str] = set()
    probe = SetIterationLint(set())
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _annotation_is_set(
            node.returns
        ):
            out.add(f"{node.name}()")
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign) and probe.is_set(node.value):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign) and (
            _annotation_is_set(node.annotation)
            or (node.value is not None and probe.is_set(node.value))
        ):
            targets = [node.target]
        out |= {f".{t.attr}" for t in targets if isinstance(t, ast.Attribute)}
    return out


def lint(source: str) -> list[str]:
    """Problems found, module scope first, then each function in source order."""
    tree = ast.parse(source)
    glob = _global_set_names(tree)
    scopes: list[ast.AST] = [
        tree,
        *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))),
    ]
    problems: list[str] = []
    for scope in scopes:
        v = SetIterationLint(glob)
        v.collect(scope)
        v.top = scope
        v.visit(scope)
        problems += v.problems
    return sorted(dict.fromkeys(problems), key=lambda p: int(p.split()[1].rstrip(":")))


@dataclass(frozen=True)
class LintCase:
    code: str
    flagged: bool


LINT_CASES = [
    LintCase("for x in {1, 2}: pass", True),
    LintCase("s = set()\nfor x in s: pass", True),
    LintCase("s: set[str] = f()\nout = [x for x in s]", True),
    LintCase("def f(s: frozenset[int]) -> list[int]:\n    return list(s)", True),
    LintCase("x = ', '.join({a for a in b})", True),
    LintCase(
        "class A:\n    def f(self):\n        self.seen = set()\n"
        "        for x in self.seen | other: pass",
        True,
    ),
    LintCase("def g() -> set[int]: ...\nfor x in g(): pass", True),
    LintCase("def f():\n    names = {1}\ndef g(names):\n    return list(names)", False),
    LintCase("s = set()\nfor x in sorted(s): pass", False),
    LintCase("s = set()\nif 3 in s: pass\nn = len(s)", False),
    LintCase("d = dict.fromkeys(xs)\nfor x in d: pass", False),
    LintCase("for x in [1, 2]: pass", False),
]


@pytest.mark.parametrize("case", LINT_CASES, ids=lambda c: c.code.replace("\n", "; ")[:40])
def test_lint_itself(case: LintCase) -> None:
    assert bool(lint(case.code)) == case.flagged


@pytest.mark.parametrize("module", CODEGEN_MODULES)
def test_codegen_modules_never_iterate_sets(module: str) -> None:
    path = ROOT / "indexalg_triton" / module
    assert lint(path.read_text()) == []


# --- every kernel kind under several hash seeds -------------------------------------------------

SCRIPT = r"""
import hashlib
from indexalg_triton.codegen import default_configs, generate
from indexalg_triton.combo import combine, foreach_add_spec
from indexalg_triton.layout import View
from indexalg_triton.multikernel import MultiKernel
from indexalg_triton.spec import SpecBuilder
from indexalg_triton.template import matmul_template
from indexalg_triton.workloads import get

TD = ("tensor_descriptor",)
out = []
for name in ["transpose_add", "broadcast_add", "permute3d_add", "strided_views",
             "int8_unpack", "index_select", "row_sum", "col_sum", "softmax"]:
    spec = get(name).spec("medium")
    for cfg in default_configs(spec, TD):
        out.append((f"{name} {cfg.describe()}", generate(spec, cfg, kinds=TD).source))
    out.append((f"{name} int64", generate(spec, kinds=TD, index_dtype="int64").source))
from indexalg_triton.codegen import Config
out.append(("split col_sum", generate(get("col_sum").spec("medium"),
                                       Config.of(4, XBLOCK=16, RBLOCK=16, SPLIT=4)).source))
out.append(("N-D broadcast_add", generate(get("broadcast_add").spec("medium"),
                                          Config.of(8, False, nd=True, XBLOCK=64,
                                                    YBLOCK=64)).source))
b = SpecBuilder("mv", loops=[("x1", 5)], reduction=("r0", 300))
b.buffer("x", View.of([5, 300]))
b.buffer("mean", View.of([5]), output=True)
b.buffer("var", View.of([5]), output=True)
m, v = b.multi("mean_var", b.load("x", "300*x1 + r0"))
b.store("mean", "x1", m)
b.store("var", "x1", v)
for kind, src in MultiKernel(b.build()).variants.items():
    out.append((f"mean_var {kind}", src.source))
for kind, src in MultiKernel(get("softmax").spec("medium")).variants.items():
    out.append((f"multi-kernel softmax {kind}", src.source))
specs = [foreach_add_spec(f"fe{i}", s) for i, s in enumerate([(5,), (7, 9), (300,), (2, 3, 4)])]
out.append(("combo", combine(specs).source))
out.append(("template", matmul_template(50, 40, 70, bias=True, relu=True, raw=True,
                                        relu_a=True).source))
for label, src in out:
    print(label, hashlib.sha256(src.encode()).hexdigest())
print("ALL", hashlib.sha256("".join(s for _, s in out).encode()).hexdigest(), len(out))
"""


def test_every_kernel_kind_is_byte_identical_across_hash_seeds() -> None:
    outputs = []
    for seed in ("0", "1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, "-c", SCRIPT],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=600,
            check=False,
        )
        assert res.returncode == 0, res.stderr[-2000:]
        outputs.append(res.stdout)
    assert outputs[0] == outputs[1] == outputs[2]
    kinds = outputs[0].splitlines()
    assert int(kinds[-1].split()[-1]) >= 40  # every workload config, int64, multi, combo, template
