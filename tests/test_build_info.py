"""Which build runs (``indexalg._build``, ``indexalg --version``) and what ``setup.py`` compiles.

In the source tree (``make unit``) the build is the pure source tree.  ``scripts/wheels.py``
(``make test-wheels``) runs this module again in each wheel's fresh environment with
``INDEXALG_EXPECT_BUILD`` set to ``compiled`` or ``pure``: there the tests check that the
``indexalg`` under test is the installed wheel, not the checkout, and that it is the build it
claims to be.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import indexalg
import indexalg._build as build
from indexalg.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXPECTED = os.environ.get("INDEXALG_EXPECT_BUILD", "")

#: ``indexalg --version``: the version, then the build in parentheses.
VERSION_LINE = re.compile(
    r"indexalg (?P<version>\S+) \((?:compiled: mypyc (?P<mypyc>\S+), (?P<n>\d+) of (?P<m>\d+) "
    r"modules|pure Python: (?P<reason>[^)]+))\)\n"
)


def _setup_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("indexalg_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # main() runs only as __main__
    return module


def test_version_says_which_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    found = VERSION_LINE.fullmatch(out)
    assert found, out
    assert found["version"] == indexalg.__version__
    assert out == f"indexalg {indexalg.__version__} ({build.describe()})\n"
    if build.KIND == "compiled":
        assert found["n"] == found["m"] and int(found["m"]) > 0, out
        assert found["mypyc"] == build.MYPYC
    else:
        assert found["reason"] == build.REASON


def test_version_from_the_command(tmp_path: Path) -> None:
    """``python -m indexalg --version`` run outside the checkout, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "indexalg", "--version"],
        cwd=tmp_path if EXPECTED else ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"indexalg {indexalg.__version__} ({build.describe()})\n"


@pytest.mark.skipif(bool(EXPECTED), reason="runs on the source tree")
def test_the_source_tree_is_pure() -> None:
    assert Path(indexalg.__file__).resolve().is_relative_to(ROOT)
    assert (build.KIND, build.REASON, build.MYPYC, build.MODULES) == ("pure", "source tree", "", ())
    assert build.describe() == "pure Python: source tree"  # no extension module beside it


@pytest.mark.skipif(not EXPECTED, reason="runs in a wheel's environment (scripts/wheels.py)")
def test_the_installed_wheel_is_the_build_expected() -> None:
    where = Path(indexalg.__file__).resolve()
    # the environments may live inside the checkout (make test-wheels: build/wheels/venv-*),
    # so the test is that the package is not the checkout's own source folder
    assert not where.is_relative_to(ROOT / "indexalg"), (
        f"the checkout's indexalg is under test: {where}"
    )
    assert where.is_relative_to(Path(sys.prefix).resolve()), where
    assert build.KIND == EXPECTED
    if EXPECTED == "compiled":
        assert build.MODULES and build.compiled_modules() == list(build.MODULES)
        assert build.is_extension("indexalg.expr")
        wanted = [
            m.removesuffix(".py").replace("/", ".") for m in _setup_module().compiled_modules()
        ]
        assert list(build.MODULES) == wanted  # setup.py's list, read off this checkout
    else:
        assert build.REASON == "wheel built with INDEXALG_PURE=1"
        assert not build.is_extension("indexalg.expr")


def test_setup_compiles_the_hot_path_not_the_api_layer() -> None:
    setup = _setup_module()
    modules = setup.compiled_modules()
    assert modules == sorted(set(modules), key=modules.index)  # no duplicates
    for hot in ("indexalg/expr.py", "indexalg/poly.py", "indexalg/rewrite.py"):
        assert hot in modules
    assert "indexalg/analysis/interval.py" in modules
    for api in ("indexalg/__init__.py", "indexalg/parse.py", "indexalg/ranges.py"):
        assert api not in modules
    assert "indexalg/_build.py" not in modules
    assert not any(m.endswith("/__init__.py") for m in modules)
    assert all((ROOT / m).is_file() for m in modules)
    stale = sorted(m for m in setup.EXCLUDED if not (ROOT / m).is_file())
    assert not stale, f"setup.py's EXCLUDED names modules that do not exist: {stale}"


def test_setup_writes_the_build_record() -> None:
    setup = _setup_module()
    text = setup._build_info("compiled", "", "9.9", ["indexalg/expr.py", "indexalg/analysis/x.py"])
    namespace: dict[str, object] = {}
    exec(compile(text, "_build.py", "exec"), namespace)
    assert namespace["KIND"] == "compiled" and namespace["MYPYC"] == "9.9"
    assert namespace["MODULES"] == ("indexalg.expr", "indexalg.analysis.x")
    assert "def describe" in text


def test_mypyc_checks_only_the_compiled_modules_for_errors() -> None:
    """mypyc's type check reads pyproject's mypy settings plus ``ignore_errors`` for every
    module it does not compile (``make typecheck`` reports those)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    setup = _setup_module()
    modules = setup.compiled_modules()
    config = tomllib.loads(setup.mypyc_config(modules).read_text(encoding="utf-8"))
    mypy = config["tool"]["mypy"]
    assert mypy["strict"] is True
    last = mypy["overrides"][-1]
    assert last["ignore_errors"] is True
    ignored = set(last["module"])
    assert {"indexalg", "indexalg.prove", "indexalg.parse", "indexalg.cli"} <= ignored
    assert not ignored & {m.removesuffix(".py").replace("/", ".") for m in modules}
