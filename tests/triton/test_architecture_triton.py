"""The companion's internal layers (docs/triton.md#architecture), checked on its imports.

The layers are read from the architecture block of docs/triton.md, top to bottom, so the page
and the check cannot drift apart: a module imports only modules of its own layer or of layers
below it (every import, at module level or inside a function), imports within a layer form no
cycle, every module of the package is in exactly one layer, and nothing imports ``bench``.
``tests/test_architecture.py`` places the companion as a whole above the core.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "indexalg_triton"
DOC = ROOT / "docs" / "triton.md"

#: The package's entry points stand above every layer: ``__init__`` re-exports, ``__main__``
#: runs the CLI.
ENTRY_POINTS = ("", "__main__")


def documented_layers() -> list[tuple[str, ...]]:
    """The architecture block's layers, top to bottom, as module names relative to the
    package (``codegen.kernel``; ``codegen`` for the package ``codegen/``), the core left
    out.  A name column that ends with a comma continues on the next line; lines indented
    two spaces are modules of the package above them (``codegen/``); deeper lines continue a
    description."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("\n## Architecture\n") :]
    block = section[section.index("```\n") + 4 :]
    block = block[: block.index("```")]
    layers: list[list[str]] = []
    continued = False
    package = ""
    for line in block.splitlines():
        m = re.match(r"^( *)(\S.*?)(?:\s{2,}.*)?$", line)
        if m is None or len(m.group(1)) > 2:
            continue  # blank, or a description going on
        names_text = m.group(2)
        if not m.group(1) and names_text.endswith("/"):
            package = names_text.rstrip("/")
        prefix = f"{package}." if len(m.group(1)) == 2 else ""
        names = [prefix + n.strip().rstrip("/") for n in names_text.split(",") if n.strip()]
        if names == ["indexalg"]:
            break
        if continued:
            layers[-1] += names
        else:
            layers.append(names)
        continued = names_text.endswith(",")
    return [tuple(layer) for layer in layers]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_imports() -> dict[str, dict[str, int]]:
    """Each module -> the package modules it imports (relative names) -> the first line."""
    out: dict[str, dict[str, int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        deps: dict[str, int] = {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for a in node.names:  # from pkg import module: the module itself
                    full = f"{node.module}.{a.name}"
                    is_module = (ROOT / (full.replace(".", "/") + ".py")).exists() or (
                        ROOT / full.replace(".", "/") / "__init__.py"
                    ).exists()
                    targets.append(full if is_module else node.module)
            for t in targets:
                top = t.split(".")[0]
                if top == "bench":
                    deps["bench"] = node.lineno
                if top == "indexalg_triton":
                    deps.setdefault(t.removeprefix("indexalg_triton").lstrip("."), node.lineno)
        out[module_name(path)] = deps
    return out


def test_the_layers_are_read_from_the_docs() -> None:
    layers = documented_layers()
    assert layers[0] == ("cli",)
    assert ("spec", "layout") in layers
    assert (
        "frontend.convert_math",
        "frontend.convert_views",
        "frontend.convert_gather",
        "frontend.convert_reductions",
    ) in layers
    assert ("codegen.pointwise", "codegen.reduction") in layers


def test_every_module_is_in_one_layer() -> None:
    placed = [m for layer in documented_layers() for m in layer]
    assert len(placed) == len(set(placed)), "a module is in two layers"
    modules = sorted(set(package_imports()) - set(ENTRY_POINTS))
    assert sorted(placed) == modules, "docs/triton.md#architecture and the package differ"


def test_no_module_imports_a_layer_above_it() -> None:
    level = {m: i for i, layer in enumerate(documented_layers()) for m in layer}
    level.update({m: -1 for m in ENTRY_POINTS})
    upward = [
        f"{mod} (layer {level[mod]}) imports {dep} (layer {level[dep]}), line {line}"
        for mod, deps in package_imports().items()
        for dep, line in sorted(deps.items())
        if dep != "bench" and dep != mod and level[dep] < level[mod]
    ]
    assert upward == []


def test_imports_within_a_layer_form_no_cycle() -> None:
    level = {m: i for i, layer in enumerate(documented_layers()) for m in layer}
    graph = {
        mod: sorted(d for d in deps if d in level and d != mod and level.get(mod) == level[d])
        for mod, deps in package_imports().items()
        if mod in level
    }
    state: dict[str, int] = {}  # 1 on the path, 2 done

    def visit(m: str, path: list[str]) -> list[str] | None:
        if state.get(m) == 1:
            return [*path, m]
        if state.get(m) == 2:
            return None
        state[m] = 1
        for d in graph[m]:
            cycle = visit(d, [*path, m])
            if cycle:
                return cycle
        state[m] = 2
        return None

    for m in sorted(graph):
        assert visit(m, []) is None


def test_nothing_imports_bench() -> None:
    assert [m for m, deps in package_imports().items() if "bench" in deps] == []
