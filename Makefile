# Set-up and checks on a fresh machine (README, "Two commands"). CI runs `make test` (.ci/run).
PYTHON ?= python3
BIN := .venv/bin
STAMP := .venv/.installed

# pytest writes bytecode for its workers even where CI sets PYTHONDONTWRITEBYTECODE; --capture=sys lets what native
# code writes to stderr before an abort reach the log. loadfile: a module's tests (and its costly fixtures) stay in
# one worker, modules handed out in tests/conftest.py's order.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest --capture=sys -q --dist loadfile --no-loadscope-reorder

.PHONY: test check lint pytest tournament mutate clean

$(STAMP): pyproject.toml
	PYTHON=$(PYTHON) tools/setup.sh
	touch $(STAMP)

# Everything CI checks: the linters beside the suite (which rarely keeps both cores busy).
test: $(STAMP)
	@$(MAKE) --no-print-directory -j 2 --output-sync=line lint pytest

lint: $(STAMP)
	$(BIN)/ruff check arena bots tests
	$(BIN)/ruff format --check arena bots tests
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Three workers on two cores: with two, a core idles whenever both workers wait on bot processes.
pytest: $(STAMP)
	$(PYTEST) -n 3

# The fast part while you work, about a minute: no tests marked slow, property tests with a fifth of their cases.
check: $(STAMP)
	$(BIN)/ruff check arena bots tests
	HYPOTHESIS_PROFILE=quick $(PYTEST) -n 4 -m "not slow"

tournament: $(STAMP)
	$(BIN)/arena tournament run tournaments/demo.toml

# Mutation testing (docs/mutation.md): about an hour; not part of make test.
mutate: $(STAMP)
	$(BIN)/python tools/mutate.py --json mutation.json

clean:
	rm -rf .venv .pytest_cache .mypy_cache .ruff_cache .hypothesis
