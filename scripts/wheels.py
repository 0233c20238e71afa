"""Build both wheels of indexalg, install each in a fresh virtual environment, test each.

``make wheels`` and ``make test-wheels`` (called by ``make test``) run this::

    python scripts/wheels.py                         # build both wheels into build/wheels/dist
    python scripts/wheels.py --if-changed --test     # rebuild only if the sources changed;
                                                     # then the tests on each installed wheel

From the same sources, with ``python -m build --no-isolation`` (this environment's setuptools
and mypy, which ``pyproject.toml`` pins, so nothing is downloaded): the sdist, the compiled
wheel from the sdist (``setup.py``; it must come out compiled: a fallback to pure Python
fails here), then the pure wheel from the same sdist with ``INDEXALG_PURE=1``.  Each wheel is
installed with ``pip install --no-index --no-deps`` into its own new environment,
``OUT/venv-compiled`` and ``OUT/venv-pure`` (no pip of their own: this environment's pip
installs into them); a ``.pth`` file puts this environment's ``site-packages`` after theirs,
for the test tools (pytest, hypothesis, z3, sympy), so the installed indexalg comes first and
the source tree is not on the path.  Then each environment runs ``indexalg --version``, a check
that ``indexalg`` is the installed one (and, compiled, that every module of the build is an
extension module), and its tests (:data:`TESTS`), from ``OUT`` (not the checkout), with
``INDEXALG_EXPECT_BUILD`` set, which ``tests/test_build_info.py`` checks from inside pytest.

Nothing is rebuilt with ``--if-changed`` when a hash of the sources (``indexalg/``,
``indexalg_triton/``, ``setup.py``, ``pyproject.toml``, ``README.md``, this script, the
interpreter and mypy's version), kept in ``OUT/.source-hash``, matches the last build's and
both wheels and environments are there.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What each wheel's environment runs (paths under the checkout), and why.
TESTS: dict[str, tuple[str, ...]] = {
    # The compiled wheel: the core tests, the code the compiled modules run (the simplifier,
    # the analyses, node construction and its errors, the procedures, the prover, the
    # property suite) and the command line over them.  Not the companion (indexalg_triton),
    # the Inductor plug-in, the docs or the packaging tests: they run pure-Python code
    # around the core, which `make unit` tests on the source tree.
    "compiled": (
        "tests/test_build_info.py",
        "tests/test_simplify.py",
        "tests/test_simplify_inductor.py",
        "tests/test_analysis.py",
        "tests/test_analysis_exhaustive.py",
        "tests/test_semantics.py",
        "tests/test_procedures.py",
        "tests/test_prove.py",
        "tests/test_cli.py",
        "property_tests",
    ),
    # The pure wheel holds the same files as the source tree, which `make unit` tests in
    # full: here only what installing can break (the files, package data, entry points and
    # the build record): the build check, the command line's golden files and the semantics.
    "pure": (
        "tests/test_build_info.py",
        "tests/test_cli.py",
        "tests/test_semantics.py",
    ),
}

#: What the source hash covers (with this script).
SOURCES = ("indexalg", "indexalg_triton", "setup.py", "pyproject.toml", "README.md")


def source_hash(
    sources: tuple[str, ...] = SOURCES, *, extra: str = "", scripts: tuple[Path, ...] = ()
) -> str:
    """A hash of everything a build is made from: ``sources`` (paths and bytes; folders
    walked), this script and ``scripts``, ``extra``, the interpreter and mypy's version.
    ``scripts/build_compiled.py`` hashes its tree with it too."""
    h = hashlib.sha256()
    try:
        mypy_version = version("mypy")
    except PackageNotFoundError:
        mypy_version = "none"
    h.update(f"{sys.version}\0{mypy_version}\0{extra}\0".encode())
    files: list[Path] = [Path(__file__).resolve(), *(s.resolve() for s in scripts)]
    for name in sources:
        origin = ROOT / name
        if origin.is_dir():
            files += sorted(
                f
                for f in origin.rglob("*")
                if f.is_file() and "__pycache__" not in f.parts and f.suffix not in (".so", ".pyc")
            )
        elif origin.exists():
            files.append(origin)
    for f in files:
        h.update(f.relative_to(ROOT).as_posix().encode() if f.is_relative_to(ROOT) else b"")
        h.update(b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def run(
    cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None, log: Path | None = None
) -> float:
    """Run ``cmd`` in ``cwd``; its wall time in seconds (exits on failure).  With ``log``,
    its output goes there (thousands of compiler lines for a build), and only its warnings
    and, on failure, its last lines are printed."""
    print("+", " ".join(map(str, cmd)), *([f"> {log}"] if log else []), flush=True)
    t0 = time.perf_counter()
    if log is None:
        done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, check=False)
    else:
        with log.open("w", encoding="utf-8") as f:
            done = subprocess.run(
                [str(c) for c in cmd], cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT
            )
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        shown = lines[-60:] if done.returncode else [x for x in lines if "WARNING" in x]
        print("\n".join(shown), flush=True)
    if done.returncode:
        sys.exit(f"wheels: {Path(str(cmd[0])).name} ... failed (exit {done.returncode})")
    return time.perf_counter() - t0


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without PYTHONPATH/PYTHONHOME, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    env.update(extra)
    return env


def wheel_of(dist: Path, kind: str) -> Path | None:
    """The compiled (``cp3XX``) or pure (``py3-none-any``) wheel in ``dist``."""
    found = sorted(dist.glob("indexalg-*.whl"))
    pure = [w for w in found if w.name.endswith("-py3-none-any.whl")]
    picked = pure if kind == "pure" else [w for w in found if w not in pure]
    return picked[0] if len(picked) == 1 else None


def build(dist: Path) -> dict[str, float]:
    """The sdist, then the compiled and the pure wheel from it, into ``dist``."""
    if dist.exists():
        shutil.rmtree(dist)
    dist.mkdir(parents=True)
    py = sys.executable
    times = {}
    times["sdist + compiled wheel"] = run(
        [py, "-m", "build", "--no-isolation", "--outdir", dist, ROOT],
        ROOT,
        clean_env(),
        log=dist.parent / "build-compiled.log",
    )
    sdists = sorted(dist.glob("indexalg-*.tar.gz"))
    if len(sdists) != 1 or wheel_of(dist, "compiled") is None:
        sys.exit(f"wheels: no compiled wheel was built: {sorted(p.name for p in dist.iterdir())}")
    times["pure wheel"] = run(
        [py, "-m", "build", "--no-isolation", "--wheel", "--outdir", dist, sdists[0]],
        dist,
        clean_env(INDEXALG_PURE="1"),
        log=dist.parent / "build-pure.log",
    )
    if wheel_of(dist, "pure") is None:
        sys.exit(f"wheels: no pure wheel was built: {sorted(p.name for p in dist.iterdir())}")
    return times


def make_venv(root: Path, wheel: Path) -> float:
    """A new environment at ``root`` with ``wheel`` installed and this environment's
    site-packages after its own (for the test tools)."""
    t0 = time.perf_counter()
    if root.exists():
        shutil.rmtree(root)
    run([sys.executable, "-m", "venv", "--without-pip", root], ROOT.parent)
    python = root / "bin" / "python"
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            python,
            "install",
            "--quiet",
            "--no-index",
            "--no-deps",
            wheel,
        ],
        root,
        clean_env(),
    )
    import sysconfig

    ours = sysconfig.get_paths()["purelib"]
    site = next((root / "lib").glob("python3*/site-packages"))
    (site / "zz-indexalg-test-tools.pth").write_text(f"{ours}\n", encoding="utf-8")
    return time.perf_counter() - t0


CHECK = """\
import sys
from pathlib import Path
import indexalg, indexalg._build as b
where = Path(indexalg.__file__).resolve()
if not where.is_relative_to(Path(sys.prefix).resolve()):
    sys.exit(f"indexalg is imported from {where}, not from the environment {sys.prefix}")
if b.KIND != sys.argv[1]:
    sys.exit(f"the {sys.argv[1]} wheel says it is {b.KIND}")
if b.KIND == "compiled" and (not b.MODULES or b.compiled_modules() != list(b.MODULES)):
    sys.exit(f"not extension modules: {sorted(set(b.MODULES) - set(b.compiled_modules()))}")
"""


def test(out: Path, kind: str, pytest_args: list[str]) -> int:
    """``indexalg --version``, the import check and the tests in the ``kind`` environment."""
    root = out / f"venv-{kind}"
    env = clean_env(INDEXALG_EXPECT_BUILD=kind)
    run([root / "bin" / "indexalg", "--version"], out, env)
    run([root / "bin" / "python", "-c", CHECK, kind], out, env)
    args = pytest_args or [str(ROOT / t) for t in TESTS[kind]]
    cmd = [str(root / "bin" / "python"), "-m", "pytest", "-m", "not slow"]
    cmd += ["-p", "no:cacheprovider", "--rootdir", str(ROOT), *args]
    print("+", " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    code = subprocess.run(cmd, cwd=out, env=env, check=False).returncode
    print(f"wheels: the {kind} wheel's tests: exit {code} in {time.perf_counter() - t0:.0f} s")
    return code


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python scripts/wheels.py", description=__doc__)
    p.add_argument("--out", type=Path, default=ROOT / "build" / "wheels")
    p.add_argument(
        "--if-changed",
        action="store_true",
        help="keep the wheels and environments when the source hash matches the last build's",
    )
    p.add_argument(
        "--test",
        nargs="*",
        metavar="PYTEST_ARG",
        help="then run the tests (or these pytest arguments) in each wheel's environment",
    )
    p.add_argument("--only", choices=("compiled", "pure"), help="test only this wheel")
    args = p.parse_args(argv)
    out: Path = args.out.resolve()
    dist = out / "dist"
    stamp = out / ".source-hash"
    digest = source_hash()
    kinds = ("compiled", "pure")
    fresh = (
        args.if_changed
        and stamp.exists()
        and stamp.read_text().strip() == digest
        and all(wheel_of(dist, k) for k in kinds)
        and all((out / f"venv-{k}" / "bin" / "indexalg").exists() for k in kinds)
    )
    if fresh:
        print(f"wheels: {dist} is up to date (source hash {digest[:12]}); not rebuilt")
    else:
        out.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        times = build(dist)
        for kind in kinds:
            wheel = wheel_of(dist, kind)
            assert wheel is not None
            times[f"{kind} environment"] = make_venv(out / f"venv-{kind}", wheel)
        stamp.write_text(digest + "\n")
        for step, seconds in times.items():
            print(f"wheels: {step}: {seconds:.0f} s")
        print("wheels:", ", ".join(p.name for p in sorted(dist.iterdir())))
    if args.test is None:
        return 0
    codes = [test(out, k, args.test) for k in kinds if args.only in (None, k)]
    return max(codes)


if __name__ == "__main__":
    raise SystemExit(main())
