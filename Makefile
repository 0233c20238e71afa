# The two commands: `make demo` (the main job on a bundled example) and `make test`.
# Both create the virtual environment .venv on first use; nothing else needs installing.
# `make demo` installs the core and z3 only; `make test` adds sympy, torch (the CPU wheel,
# torch==2.13.0), triton, pytest, hypothesis, ruff and mypy.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
CORE := $(VENV)/.core-installed
DEV := $(VENV)/.dev-installed

.PHONY: demo test lint typecheck unit test-compiled compiled docs

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
	$(PY) -m ruff check indexalg indexalg_triton tests property_tests bench docs scripts
	$(PY) -m ruff format --check indexalg indexalg_triton tests property_tests bench docs scripts

typecheck: $(DEV)
	$(PY) -m mypy

unit: $(DEV)
	$(PY) -m pytest -m "not slow"

# The optional compiled build (mypyc; scripts/build_compiled.py) in build/compiled: the core
# tests run against it too (the pure package, tested by `unit`, stays the reference).  The
# build (minutes) is redone only when a hash of its sources (indexalg/, indexalg_triton/,
# pyproject.toml, README.md, the script, the interpreter, mypy) differs from the last one's,
# kept in build/compiled/.source-hash.
test-compiled: $(DEV)
	$(PY) scripts/build_compiled.py --out build/compiled --if-changed --test

# The compiled wheel: build/compiled/dist/indexalg-*.whl
compiled: $(DEV)
	$(PY) scripts/build_compiled.py --out build/compiled --wheel

test: lint typecheck unit test-compiled

# The two variables turn off the end-of-life banners that mkdocs-material and a plugin
# print on every build (about 30 lines); every warning of the build itself still shows,
# and --strict still turns it into an error.
docs: $(DEV)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(VENV)/bin/mkdocs build --strict
