# The two commands: `make demo` (the main job on a bundled example) and `make test`.
# Both create the virtual environment .venv on first use; nothing else needs installing.
# `make demo` installs the core and z3 only; `make test` adds sympy, torch (the CPU wheel,
# torch==2.13.0), triton, pytest, hypothesis, ruff and mypy.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CORE := $(VENV)/.core-installed
DEV := $(VENV)/.dev-installed

.PHONY: demo test lint typecheck unit wheels test-wheels compiled docs

$(CORE): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[z3]'
	touch $(CORE)

$(DEV): $(CORE)
	$(PY) -m pip install -q -e '.[dev]'
	touch $(DEV)

demo: $(CORE)
	$(VENV)/bin/indexalg demo

lint: $(DEV)
	$(PY) -m ruff check indexalg indexalg_triton tests property_tests bench docs scripts setup.py
	$(PY) -m ruff format --check indexalg indexalg_triton tests property_tests bench docs scripts setup.py

typecheck: $(DEV)
	$(PY) -m mypy

unit: $(DEV)
	$(PY) -m pytest -m "not slow"

# The two wheels (setup.py), from one sdist: the compiled one (mypyc; what `pip install .`
# builds where a C compiler is found) and the pure one (INDEXALG_PURE=1, py3-none-any), into
# build/wheels/dist, each installed in a fresh environment (build/wheels/venv-compiled,
# venv-pure).  Built with `python -m build --no-isolation`: this environment's setuptools and
# the pinned mypy, nothing downloaded.  `--if-changed`: nothing is rebuilt when a hash of the
# sources (indexalg/, indexalg_triton/, setup.py, pyproject.toml, README.md, the script, the
# interpreter, mypy), kept in build/wheels/.source-hash, matches the last build's.
wheels: $(DEV)
	$(PY) scripts/wheels.py --out build/wheels

# Then the tests on each installed wheel (scripts/wheels.py, TESTS), run outside the checkout
# so the installed indexalg is the one imported (tests/test_build_info.py checks it):
# - the compiled wheel: the core tests (simplifier, analyses, procedures, prover, property
#   suite, command line), the code the compiled modules run; not the companion, the Inductor
#   plug-in, docs or packaging tests: pure-Python code around the core, tested by `unit`.
# - the pure wheel: a smoke set (the build check, the CLI's golden files, the semantics): it
#   holds the same files as the source tree, which `unit` tests in full, so only what
#   installing can break is left to check.
# Measured on the 2-core machine (2026-12-02, shared with other jobs, load 5-6): the compiled
# build 527 s, the pure one 5 s, each environment 6 s, the compiled wheel's tests 718 s, the
# pure wheel's 28 s: 21.5 minutes wall, 8.8 minutes of CPU; on an idle machine about 10
# minutes, so `make test` stays near 25 (unit is about 10).  An unchanged rerun skips the
# builds and environments.
test-wheels: $(DEV)
	$(PY) scripts/wheels.py --out build/wheels --if-changed --test

# The compiled modules as an importable tree for the benchmarks' --compiled DIR:
# build/compiled/src (scripts/build_compiled.py; the same modules as the compiled wheel).
compiled: $(DEV)
	$(PY) scripts/build_compiled.py --out build/compiled --if-changed

test: lint typecheck unit test-wheels

# The two variables turn off the end-of-life banners that mkdocs-material and a plugin
# print on every build (about 30 lines); every warning of the build itself still shows,
# and --strict still turns it into an error.
docs: $(DEV)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(VENV)/bin/mkdocs build --strict
