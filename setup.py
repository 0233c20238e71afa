"""indexalg's build: setuptools, with the simplifier's hot modules compiled by mypyc.

One source tree gives two wheels (``pyproject.toml`` has the metadata; this file only adds the
extension modules):

* the **compiled** wheel (``indexalg-VERSION-cp3XX-cp3XX-PLATFORM.whl``), the default: the
  modules of :func:`compiled_modules` compiled with mypyc (pinned in ``pyproject.toml``'s
  ``build-system.requires``) into extension modules that sit next to their ``.py`` sources
  (Python imports the extension first);
* the **pure** wheel (``indexalg-VERSION-py3-none-any.whl``): the same files without the
  extensions.  It is built when ``INDEXALG_PURE=1`` is set, and, with a warning, when mypyc
  cannot be imported (a ``--no-build-isolation`` build in an environment without mypy) or no
  C compiler can build against the Python headers.

So ``pip install .`` compiles where a C compiler is found and falls back to pure Python where
not (pip shows the backend's warning with ``pip install -v .``; ``python -m build`` always
shows it).  An editable install (``pip install -e .``) is always pure: the tests import the
source tree.  ``indexalg --version`` says which build runs: this file writes
``indexalg/_build.py`` into each wheel it builds (see that module).

What is compiled: every module of :data:`COMPILED_FROM`'s folders (not recursive) except
:data:`EXCLUDED` and ``__init__.py`` files, so a module added to those folders is compiled
without being listed here.  The modules form one group (one shared library,
``indexalg_compiled__mypyc``, a top-level module: inside the package it would be taken for
one of indexalg's modules), compiled with ``separate`` set, which turns off mypyc's
whole-program optimisations: with them, mypyc compiles ``isinstance(x, Expr)`` as an exact
type test, because it does not record the subclasses of the expression classes (Python
classes in the compiled build, see ``indexalg.expr._python_class``).

What differs in the compiled build (nothing the core tests see): compiled modules, their
functions and the expression classes keep no docstrings (``help()`` shows signatures); the API
reference is built from the pure package.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import setup  # type: ignore[import-untyped]
from setuptools.command.build_py import build_py  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent

#: The folders whose modules are compiled (``*.py`` directly in them): the simplifier's hot
#: path as the profile shows it (``python -m bench.simplify --profile``): node construction,
#: polynomials, the analyses, the rewrite engine, the simplifier loop and its procedures.
COMPILED_FROM = ("indexalg", "indexalg/analysis", "indexalg/procedures", "indexalg/simplify")

#: Modules of those folders that stay pure Python, and why.
EXCLUDED: dict[str, str] = {
    # The API layer takes user values, and a compiled function checks its arguments' declared
    # types on entry: a bad argument would raise a plain TypeError there, not indexalg's error.
    "indexalg/analyzer.py": "API layer",
    "indexalg/parse.py": "API layer",
    "indexalg/ranges.py": "API layer (its per-entry reading is indexalg/_rangespec.py, compiled)",
    "indexalg/errors.py": "API layer (the exception classes)",
    "indexalg/__main__.py": "the command's entry point",
    "indexalg/_build.py": "written by this file into each wheel",
    # Not on the simplifier's hot path (the profile), so compiling them buys nothing but
    # build time; the prover and the rule verifier spend their time in Z3.
    "indexalg/_bigint.py": "cold",
    "indexalg/decisions.py": "cold",
    "indexalg/evaluate.py": "cold (the reference evaluator)",
    "indexalg/ops.py": "cold (the evaluator's handlers; mypyc reads their int | bool as int)",
    "indexalg/iter_map.py": "cold",
    "indexalg/limits.py": "cold",
    "indexalg/loops.py": "cold",
    "indexalg/prove.py": "cold (Z3)",
    "indexalg/verify.py": "cold (Z3)",
    "indexalg/analysis/bounds.py": "cold",
    "indexalg/analysis/congruence.py": "cold",
    "indexalg/analysis/where.py": "cold",
    "indexalg/analysis/witness.py": "the evaluator's int | bool values (as ops.py)",
    "indexalg/procedures/base.py": "cold",
    "indexalg/procedures/branches.py": "cold",
}

#: The group's name: its shared library is the top-level module ``indexalg_compiled__mypyc``.
GROUP = "indexalg_compiled"

#: ``INDEXALG_PURE`` set to anything but "" or "0" builds the pure wheel.
PURE_VARIABLE = "INDEXALG_PURE"

#: The commands (``setup.py COMMAND``, as the PEP 517 backend calls them) that build what goes
#: into a wheel; the others (``egg_info``, ``dist_info``, ``sdist``) need no extensions.
BUILDING = ("bdist_wheel", "build", "build_ext", "install")
EDITABLE = ("editable_wheel", "develop")


def compiled_modules(root: Path = HERE) -> list[str]:
    """The module files compiled (paths relative to ``root``, sorted): every ``*.py`` of
    :data:`COMPILED_FROM` but :data:`EXCLUDED` and ``__init__.py``."""
    found: list[str] = []
    for folder in COMPILED_FROM:
        for path in sorted((root / folder).glob("*.py")):
            name = path.relative_to(root).as_posix()
            if path.name != "__init__.py" and name not in EXCLUDED:
                found.append(name)
    return found


def mypyc_config(modules: list[str], root: Path = HERE) -> Path:
    """A mypy configuration for mypyc's own type check: ``pyproject.toml``'s, plus
    ``ignore_errors`` for every module that is not compiled.  mypyc reads those modules only
    for their types; their errors are ``make typecheck``'s to report (mypyc's check, whose
    order of processing differs, has reported errors there that ``mypy`` does not, e.g.
    ``from indexalg.analysis import bounds`` read as the submodule in ``prove.py``)."""
    compiled = {m.removesuffix(".py").replace("/", ".") for m in modules}
    names = (
        ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for path in (root / "indexalg").rglob("*.py")
        if "__pycache__" not in path.parts
    )
    others = sorted(name for name in names if name not in compiled)
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    text += "\n[[tool.mypy.overrides]]\nmodule = [\n"
    text += "".join(f'    "{name}",\n' for name in [*others, "indexalg_triton.*"])
    text += "]\nignore_errors = true\n"
    target = root / "build" / "mypyc-mypy.toml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    return target


def compiler_problem() -> str:
    """Why no C extension can be built here ("" when one can): a tiny C file that includes
    ``Python.h`` is compiled with the compiler setuptools would use."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.errors import CCompilerError, DistutilsError
    from setuptools._distutils.sysconfig import customize_compiler, get_python_inc

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "probe.c")
        source.write_text("#include <Python.h>\nint indexalg_probe(void) { return 0; }\n")
        try:
            compiler = new_compiler()
            customize_compiler(compiler)
            compiler.compile([str(source)], output_dir=tmp, include_dirs=[get_python_inc()])
        except (CCompilerError, DistutilsError, OSError) as err:
            return f"{type(err).__name__}: {err}".strip()
    return ""


def pure_reason() -> str:
    """Why this build is pure ("" for a compiled one), warning on stderr for a fallback."""
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return f"wheel built with {PURE_VARIABLE}=1"
    try:
        import mypyc.build  # noqa: F401
    except ImportError as err:
        _warn(f"mypyc cannot be imported ({err}); install the mypy of build-system.requires")
        return "wheel built without mypyc"
    problem = compiler_problem()
    if problem:
        _warn(f"no C compiler can build against the Python headers ({problem})")
        return "wheel built without a C compiler"
    return ""


def _warn(why: str) -> None:
    print(
        f"WARNING: indexalg: {why}.\n"
        "WARNING: indexalg: building the PURE-PYTHON wheel (py3-none-any), about 1.5-2x "
        "slower;\nWARNING: indexalg: with a C compiler (gcc, clang, MSVC) the wheel is "
        f"compiled with mypyc. Set {PURE_VARIABLE}=1 to choose the pure wheel silently.",
        file=sys.stderr,
        flush=True,
    )


def _mypy_version() -> str:
    from importlib.metadata import version

    return version("mypy")


def _build_info(kind: str, reason: str, mypyc: str, modules: list[str]) -> str:
    """The text of ``indexalg/_build.py`` in a wheel: the source tree's module with this
    build's values."""
    text = (HERE / "indexalg" / "_build.py").read_text(encoding="utf-8")
    dotted = tuple(m.removesuffix(".py").replace("/", ".") for m in modules)
    values = {
        "KIND = ": repr(kind),
        "REASON = ": repr(reason),
        "MYPYC = ": repr(mypyc),
        "MODULES: tuple[str, ...] = ": repr(dotted),
    }
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        for prefix, value in values.items():
            if line.startswith(prefix):
                lines[i] = f"{prefix}{value}\n"
    return "".join(lines)


class BuildPy(build_py):  # type: ignore[misc]
    """``build_py`` that writes this build's ``indexalg/_build.py`` (not in editable mode,
    where the source tree's module is the one imported)."""

    info = ""

    def run(self) -> None:
        super().run()
        if self.info and not getattr(self, "editable_mode", False):
            target = Path(self.build_lib, "indexalg", "_build.py")
            target.write_text(self.info, encoding="utf-8")


def main() -> None:
    commands = set(sys.argv[1:])
    options: dict[str, Any] = {}
    if commands.intersection(BUILDING) and not commands.intersection(EDITABLE):
        modules = compiled_modules()
        reason = pure_reason()
        if reason:
            BuildPy.info = _build_info("pure", reason, "", [])
        else:
            from mypyc.build import mypycify

            BuildPy.info = _build_info("compiled", "", _mypy_version(), modules)
            config = mypyc_config(modules)
            options["ext_modules"] = mypycify(
                [f"--config-file={config}", *modules],
                opt_level="3",
                separate=[(modules, GROUP)],
            )
    setup(cmdclass={"build_py": BuildPy}, **options)


if __name__ == "__main__":
    main()
