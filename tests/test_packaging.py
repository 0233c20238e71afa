"""Packaging: the wheel and the sdist build, the sdist builds the wheel, and the wheel installed
into a fresh virtual environment runs the quick start.

The wheel built here is the pure one (``INDEXALG_PURE=1``, ``py3-none-any``): compiling takes
minutes, and the compiled wheel is built, installed and tested by ``make test-wheels``
(``scripts/wheels.py``).  What is checked here of the build script itself: the pure wheel's tag
and build record, and the fallback: with no usable C compiler, ``setup.py`` warns and builds
the pure wheel.

Everything is offline.  The build uses the current environment's setuptools
(``python -m build --no-isolation`` when the ``build`` package is installed, else, or with
``INDEXALG_TEST_BUILD_HOOKS=1``, setuptools' PEP 517 hooks called directly; both build the
wheel from the sdist).  A setuptools that cannot build a wheel offline (older than 70.1 without
the ``wheel`` package) skips the module, saying so.  The fresh environment
gets the wheel with ``pip install --no-index --no-deps``; indexalg's core needs nothing else.
The quick start also uses the optional z3 and sympy: they are linked into the fresh
environment from this one (a ``.pth`` file naming a folder of symlinks to exactly those
packages), so no index is needed and nothing else of this environment is visible.  The quick
start is docs/quickstart.md, run by docs/doc_examples.py with the fresh interpreter.

The module builds once for all its tests (module-scoped fixtures); the whole module takes
about 20 s on two cores (the fresh environment's ``ensurepip`` is most of it), so it is not
marked ``slow``.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: Not part of a source tree that gets built (caches, environments, earlier builds).
IGNORED = (
    ".git",
    ".venv",
    "__pycache__",
    "build",
    "dist",
    "site",
    "*.egg-info",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hypothesis",
)
#: Optional dependencies the quick start uses, as (import name, distribution name).
QUICKSTART_EXTRAS = (("z3", "z3_solver"), ("sympy", "sympy"), ("mpmath", "mpmath"))


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Fresh:
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    def bin(self, name: str) -> Path:
        return self.root / "bin" / name

    def run(self, *args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        env["PYTHONNOUSERSITE"] = "1"
        return subprocess.run(
            [str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600
        )


def _copy_source(dst: Path) -> None:
    """The files a checkout would have: git's tracked and untracked-but-not-ignored files
    (a fresh clone in CI), else the tree without caches and build outputs."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            timeout=60,
        )
        if shutil.which("git")
        else None
    )
    if listed is None or listed.returncode != 0:
        shutil.copytree(ROOT, dst, ignore=shutil.ignore_patterns(*IGNORED))
        return
    for name in sorted(set(listed.stdout.decode().split("\0")) - {""}):
        source = ROOT / name
        if source.is_file():  # a deleted but still tracked file is skipped
            target = dst / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _backend_ready() -> str:
    """Why setuptools cannot build a wheel here without downloading anything, or ""."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("setuptools")
    except PackageNotFoundError:
        return "setuptools is not installed"
    parts = tuple(int(p) for p in found.split(".")[:2] if p.isdigit())
    if parts >= (70, 1) or importlib.util.find_spec("wheel") is not None:
        return ""  # setuptools >= 70.1 has bdist_wheel built in; older ones need `wheel`
    return f"setuptools {found} needs the wheel package (or setuptools>=70.1) to build offline"


def _build(src: Path, out: Path, *, use_build: bool) -> None:
    """sdist, then the wheel from the sdist, into ``out``, offline."""
    if use_build:
        cmd = [
            sys.executable,
            "-m",
            "build",
            "--no-isolation",
            "--skip-dependency-check",
            "--outdir",
            str(out),
            str(src),
        ]
    else:
        hooks = (
            "import os, sys, tarfile, setuptools.build_meta as b; out = sys.argv[1]; "
            "sdist = b.build_sdist(out); tarfile.open(os.path.join(out, sdist)).extractall(out); "
            "os.chdir(os.path.join(out, sdist[:-len('.tar.gz')])); b.build_wheel(out)"
        )
        cmd = [sys.executable, "-c", hooks, str(out)]
    env = dict(os.environ, INDEXALG_PURE="1")
    done = subprocess.run(cmd, cwd=src, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"
    _copy_source(src)
    out = tmp / "dist"
    out.mkdir()
    why_not = _backend_ready()
    if why_not:
        pytest.skip(why_not)
    use_build = os.environ.get("INDEXALG_TEST_BUILD_HOOKS") != "1"
    _build(src, out, use_build=use_build and importlib.util.find_spec("build") is not None)
    wheels = sorted(out.glob("indexalg-*.whl"))
    sdists = sorted(out.glob("indexalg-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(p.name for p in out.iterdir())
    return Built(wheels[0], sdists[0])


@pytest.fixture(scope="module")
def fresh(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Fresh:
    root = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(root)
    env = Fresh(root)
    done = env.run(
        env.python,
        "-m",
        "pip",
        "install",
        "--no-index",
        "--no-deps",
        "--quiet",
        built.wheel,
        cwd=root,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return env


def _link_extras(env: Fresh) -> None:
    """Symlinks to z3, sympy and mpmath (packages and metadata) of this environment, in one
    folder that a .pth file adds to the fresh environment's path."""
    for name, _ in QUICKSTART_EXTRAS:
        if importlib.util.find_spec(name) is None:
            pytest.skip(f"{name} is not installed here")
    folder = env.root / "linked-extras"
    if folder.exists():
        return
    folder.mkdir()
    for name, dist in QUICKSTART_EXTRAS:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        package = Path(spec.origin).parent
        site = package.parent
        (folder / name).symlink_to(package, target_is_directory=True)
        for meta in sorted(site.glob(f"{dist}-*.dist-info")):
            (folder / meta.name).symlink_to(meta, target_is_directory=True)
    site_packages = next((env.root / "lib").glob("python3*/site-packages"))
    (site_packages / "indexalg-test-extras.pth").write_text(f"{folder}\n", encoding="utf-8")


# --- what the archives hold ---------------------------------------------------------------------


@dataclass(frozen=True)
class Member:
    path: str
    wanted: bool  # True: must be in the archive; False: must not be


WHEEL_MEMBERS = [
    Member("indexalg/__init__.py", True),
    Member("indexalg/py.typed", True),
    Member("indexalg/_build.py", True),  # the build record (setup.py writes it)
    Member("indexalg/examples/inductor_indices.txt", True),  # the demo's input (package data)
    Member("indexalg/cli/__init__.py", True),
    Member("indexalg/rules/divmod.py", True),
    Member("indexalg_triton/__init__.py", True),
    Member("indexalg_triton/py.typed", True),
    Member("tests/test_docs.py", False),
    Member("bench/simplify.py", False),
    Member("docs/gen_pages.py", False),
]


@pytest.mark.parametrize("member", WHEEL_MEMBERS, ids=lambda m: m.path)
def test_wheel_contents(built: Built, member: Member) -> None:
    names = set(zipfile.ZipFile(built.wheel).namelist())
    assert (member.path in names) is member.wanted


def test_wheel_is_the_pure_one(built: Built) -> None:
    assert built.wheel.name == "indexalg-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(built.wheel) as whl:
        names = whl.namelist()
        record = whl.read("indexalg/_build.py").decode()
    assert not [n for n in names if n.endswith((".so", ".pyd", ".c"))]
    assert "KIND = 'pure'\n" in record
    assert "REASON = 'wheel built with INDEXALG_PURE=1'\n" in record


def test_without_a_c_compiler_the_build_warns_and_is_pure(built: Built, tmp_path: Path) -> None:
    """The compiled wheel is the default; with no C compiler (``CC`` names none) setup.py
    warns on stderr and builds the pure wheel, which records why."""
    with tarfile.open(built.sdist) as sdist:
        sdist.extractall(tmp_path, filter="data")
    src = next(p for p in tmp_path.iterdir() if p.is_dir())
    out = tmp_path / "out"
    out.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "INDEXALG_PURE"}
    env["CC"] = str(tmp_path / "no-such-cc")
    hooks = "import sys, setuptools.build_meta as b; print(b.build_wheel(sys.argv[1]))"
    done = subprocess.run(
        [sys.executable, "-c", hooks, str(out)],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.splitlines()[-1] == "indexalg-0.1.0-py3-none-any.whl"
    assert "WARNING: indexalg: no C compiler" in done.stderr, done.stderr[-3000:]
    assert "PURE-PYTHON wheel" in done.stderr
    with zipfile.ZipFile(out / "indexalg-0.1.0-py3-none-any.whl") as whl:
        record = whl.read("indexalg/_build.py").decode()
    assert "REASON = 'wheel built without a C compiler'\n" in record


def test_wheel_declares_both_commands(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as whl:
        entry = next(n for n in whl.namelist() if n.endswith(".dist-info/entry_points.txt"))
        text = whl.read(entry).decode()
    assert "indexalg = indexalg.cli:main" in text
    assert "indexalg-triton = indexalg_triton.cli:main" in text


SDIST_MEMBERS = [
    "pyproject.toml",
    "setup.py",
    "README.md",
    "indexalg/__init__.py",
    "indexalg/py.typed",
    "indexalg/examples/inductor_indices.txt",
    "indexalg_triton/__init__.py",
]


@pytest.mark.parametrize("path", SDIST_MEMBERS)
def test_sdist_contents(built: Built, path: str) -> None:
    with tarfile.open(built.sdist) as sdist:
        top = sdist.getnames()[0].split("/")[0]
        assert f"{top}/{path}" in sdist.getnames()


# --- the wheel in a fresh environment -------------------------------------------------------------


def test_fresh_environment_imports_the_installed_wheel(fresh: Fresh, tmp_path: Path) -> None:
    code = (
        "import sys, indexalg; print(indexalg.__file__); "
        "print(sorted(m for m in ('sympy', 'z3', 'torch', 'triton') if m in sys.modules))"
    )
    done = fresh.run(fresh.python, "-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where, heavy = done.stdout.splitlines()
    assert Path(where).is_relative_to(fresh.root), where  # not the source tree
    assert heavy == "[]"


def test_fresh_environment_core_needs_nothing_else(fresh: Fresh, tmp_path: Path) -> None:
    """Before z3 and sympy are linked in: the core works, the prover degrades to its
    analysis tiers, and the commands run."""
    code = (
        "import indexalg as ia\n"
        "e = ia.simplify(ia.parse('ModularIndexing(ModularIndexing(x, 1, 64), 1, 8)'), {'x': 4096})\n"
        "assert str(e) == 'ModularIndexing(x, 1, 8)', e\n"
        "assert ia.bounds('x // 64 % 8', {'x': 4096}) == (0, 7)\n"
        "assert ia.prove('x // 64 < 64', {'x': 4096}).status == 'proved'\n"
    )
    if (fresh.root / "linked-extras").exists():
        pytest.skip("the extras were linked in by an earlier test")
    done = fresh.run(fresh.python, "-c", code, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = fresh.run(
        fresh.bin("indexalg"), "simplify", "x // 64 % 8", "--range", "x=0..511", cwd=tmp_path
    )
    assert (done.returncode, done.stdout) == (0, "x // 64\n"), done.stderr


def test_fresh_environment_says_which_build(fresh: Fresh, tmp_path: Path) -> None:
    done = fresh.run(fresh.bin("indexalg"), "--version", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (
        0,
        "indexalg 0.1.0 (pure Python: wheel built with INDEXALG_PURE=1)\n",
    ), done.stderr


def test_fresh_environment_runs_the_demo(fresh: Fresh, tmp_path: Path) -> None:
    _link_extras(fresh)
    done = fresh.run(fresh.bin("indexalg"), "demo", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "summary:" in done.stdout


def test_fresh_environment_runs_the_quick_start(fresh: Fresh, tmp_path: Path) -> None:
    _link_extras(fresh)
    done = fresh.run(
        fresh.python,
        ROOT / "docs" / "doc_examples.py",
        ROOT / "docs" / "quickstart.md",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.startswith("ok ")
