# Two commands on a fresh clone: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.stamp-run
STAMP_DEV := $(VENV)/.stamp-dev

.PHONY: run test venv dev screenshots bench clean

# The tests and benchmarks start many Python processes: each keeps what it compiled (__pycache__, git-ignored),
# even where the environment turns that off (an empty PYTHONDONTWRITEBYTECODE is off), or every process
# recompiles all it imports and pytest rewrites every test module's asserts again in each worker.
test bench: export PYTHONDONTWRITEBYTECODE =

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP_RUN): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@ $(STAMP_RUN)

venv: $(STAMP_RUN)
dev: $(STAMP_DEV)

run: $(STAMP_RUN)
	$(BIN)/cogtui --path modules

test: $(STAMP_DEV)
	$(BIN)/ruff check cogtui tests bench tools
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	.ci/ensure-postgres
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest

screenshots: $(STAMP_DEV)
	$(BIN)/python -m tools.screenshots screenshots

bench: $(STAMP_DEV)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
