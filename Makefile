# The two commands: `make demo` (the main job on a bundled example) and `make test`.
# Both create the virtual environment .venv on first use; nothing else needs installing.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/indexalg demo

lint: $(STAMP)
	$(PY) -m ruff check indexalg indexalg_triton tests property_tests bench

typecheck: $(STAMP)
	$(PY) -m mypy

unit: $(STAMP)
	$(PY) -m pytest -m "not slow"

test: lint typecheck unit
