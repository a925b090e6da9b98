# One entry point for set-up and checks on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test check lint pytest tournament mutate clean bytecode

$(STAMP): pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	@# uv (from PyPI, into .venv/uv, alone: it has no dependencies) installs the project, far faster than pip; where
	@# uv cannot be had or fails, pip does it. compat: the checkout on sys.path (a .pth line) instead of setuptools'
	@# import hook, which every Python process would pay for at start; where a future setuptools drops the mode, the
	@# default install serves. The Debian packages some tests drive (tools/system-packages.sh) install meanwhile, and
	@# the bytecode is compiled in that wait; their output follows, and either failing fails the set-up. The timings
	@# behind these choices: docs/performance.md.
	@tools/system-packages.sh >$(VENV)/system-packages.log 2>&1 & packages=$$!; \
	{ { test -x $(VENV)/uv/bin/uv \
		|| $(PYTHON) -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
			--no-compile --no-cache-dir --target $(VENV)/uv uv; } \
	&& $(VENV)/uv/bin/uv pip install --quiet --python $(BIN)/python \
		--config-setting editable_mode=compat -e '.[test,dask]' \
	|| { $(BIN)/python -m ensurepip --upgrade --default-pip \
		&& { $(BIN)/pip install --quiet -e '.[test,dask]' --config-settings editable_mode=compat \
			|| $(BIN)/pip install --quiet -e '.[test,dask]'; }; }; } && $(BIN)/python tools/bytecode.py; python=$$?; \
	wait $$packages; system=$$?; cat $(VENV)/system-packages.log; \
	test $$python = 0 -a $$system = 0
	touch $(STAMP)

# The package and its run-time dependencies compiled ahead (tools/bytecode.py): where PYTHONDONTWRITEBYTECODE is
# set (as on our CI machines) every process would otherwise compile the modules it imports, every time. The set-up
# above compiles them first; here it is a check that nothing has changed since.
bytecode: $(STAMP)
	@$(BIN)/python tools/bytecode.py

lint: $(STAMP)
	$(BIN)/ruff check arena bots tests
	$(BIN)/ruff format --check arena bots tests
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# Bytecode is written for the tests' run (pytest caches its rewritten test modules as bytecode, which
# PYTHONDONTWRITEBYTECODE, set on our CI machines, would make every worker redo). --capture=sys: what native code in
# a worker writes to its stderr (a library's failed assertion before an abort) reaches the log instead of a capture
# file lost with the process.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest --capture=sys

# The whole suite, three workers on the machine's 2 cores: with two, a core waits whenever both workers' tests wait
# on processes. loadfile runs a module's tests in one worker: a module's fixture (a tournament played, a Dask
# cluster, a browser) is built once, not once in each worker. (Not loadgroup: xdist 3.8 groups by rewriting
# item._nodeid, which pytest 9 ignores.)
pytest: $(STAMP) bytecode
	$(PYTEST) -q -n 3 --dist loadfile --no-loadscope-reorder

# The fast part while you work, about a minute: no kills, fuzzing, benchmarks, waits on clocks or long matches, and
# the property tests with a fifth of their cases (Hypothesis profile "quick"). Four workers: what is left mostly
# waits on bot processes.
check: $(STAMP) bytecode
	$(BIN)/ruff check arena bots tests
	HYPOTHESIS_PROFILE=quick $(PYTEST) -q -n 4 --dist loadfile --no-loadscope-reorder -m "not slow"

# Mutation testing (docs/mutation.md): about an hour; not part of make test.
mutate: $(STAMP)
	$(BIN)/python tools/mutate.py --json mutation.json

tournament: $(STAMP) bytecode
	$(BIN)/arena tournament run tournaments/demo.toml

# The linters run beside the suite (the suite rarely keeps both cores busy). Their lines and pytest's are printed
# whole; either failing fails the target.
test: $(STAMP)
	@$(MAKE) --no-print-directory -j 2 --output-sync=line lint pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
