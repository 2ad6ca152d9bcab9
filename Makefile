# Two commands on a fresh clone: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP_RUN := $(VENV)/.stamp-run
STAMP_DEV := $(VENV)/.stamp-dev

.PHONY: run test test-mypy test-imports test-pytest fuzz venv dev screenshots bench clean

# The tests and benchmarks start many Python processes: each keeps what it compiled (__pycache__, git-ignored),
# even where the environment turns that off (an empty PYTHONDONTWRITEBYTECODE is off), or every process
# recompiles all it imports and pytest rewrites every test module's asserts again in each worker.
test test-pytest fuzz bench: export PYTHONDONTWRITEBYTECODE =

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

# ruff first (0.2 s: a style slip stops the run at once), then the type and import checks beside pytest: mypy
# takes ~1 s with its cache and ~26 s of CPU without (a fresh clone, the tests included), time the cores had while
# pytest starts its workers. Each check prints its output only if it fails; make then fails naming the check's target.
test: $(STAMP_DEV)
	$(BIN)/ruff check cogtui tests bench tools
	$(BIN)/ruff format --check .
	.ci/ensure-postgres
	@$(MAKE) --no-print-directory -j3 test-mypy test-imports test-pytest

# A check that prints its output only when it fails, and says so.
quiet = @$(1) > $(VENV)/$@.out 2>&1 || { cat $(VENV)/$@.out; echo "make test: $@ failed"; exit 1; }

test-mypy: $(STAMP_DEV)
	$(call quiet,$(BIN)/mypy)

test-imports: $(STAMP_DEV)
	$(call quiet,$(BIN)/lint-imports --no-cache)

test-pytest: $(STAMP_DEV)
	$(BIN)/python -m pytest

# The property tests with random examples, 20 times as many per test (tests/hypothesis_profiles.py): `make test`
# runs the same derandomized examples every time. A failure found here becomes an @example on its test.
fuzz: $(STAMP_DEV)
	$(BIN)/python -m pytest -m hypothesis --hypothesis-profile=fuzz

screenshots: $(STAMP_DEV)
	$(BIN)/python -m tools.screenshots screenshots

bench: $(STAMP_DEV)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
