# make demo: set everything up and run the demo.  make test: set everything up and run the checks.
VENV := .venv
BIN := $(VENV)/bin
UV_VERSION := 0.13.9
PYTHON ?= python3

.PHONY: setup train verl demo test lint typecheck unit clean

setup: $(VENV)/.synced
	@./scripts/install-bwrap.sh

$(VENV)/.synced: pyproject.toml uv.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION)
	UV_PROJECT_ENVIRONMENT=$(VENV) $(BIN)/uv sync --frozen --quiet
	@touch $@

# The trainer integrations' heavy packages (CPU torch, transformers, trl), for their test.
train: setup
	@./scripts/install-train.sh $(VENV)

# verl 0.9 in an environment of its own (it caps transformers below 5.11, and the TRL test runs
# on the newest), for the test that runs assay's rewards inside it.
verl: setup
	@./scripts/install-verl.sh .venv-verl

demo: setup
	$(BIN)/assay demo

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

typecheck: setup
	$(BIN)/mypy

# Only the HTML report's browser tests need Chromium; assay itself does not. Two workers: much of
# the suite waits on sandboxes, emulators and subprocesses (TEST_WORKERS=0 runs it in one process).
TEST_WORKERS ?= 2
unit: setup train verl
	@./scripts/install-chromium.sh
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal --durations=40

test: lint typecheck unit

clean:
	rm -rf $(VENV) .venv-verl demo-out assay.db .pytest_cache .mypy_cache .ruff_cache
