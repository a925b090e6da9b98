# One entry point for set-up and checks on a fresh machine.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test check lint pytest tournament mutate clean bytecode

$(STAMP): pyproject.toml
	$(PYTHON) -m venv --without-pip $(VENV)
	@# uv (from PyPI, into .venv/uv) installs the project and its ~70 packages in 3-5 s where pip took 30-40 s, with
	@# 7 s more for ensurepip: most of a fresh machine's set-up. Where uv cannot be had or fails, pip does it. (pip
	@# also compiles all 5,700 modules, 15 s; the bytecode target below compiles the 1,600 the arena runs.)
	@# uv has no dependencies: pip fetches it alone, compiling and caching nothing (4.0 -> 3.2 s, the set-up's first
	@# step, in turns here).
	@# compat: the checkout on sys.path (a .pth line) instead of setuptools' import hook, which costs every Python
	@# process 15-30 ms of imports at start: every bot, referee and CLI the tests start (thousands). Where a future
	@# setuptools drops the mode, the default install serves.
	@# The Debian packages some tests drive (tools/system-packages.sh) install meanwhile: both mostly wait on the
	@# network and the disk. Their output follows; either failing fails the set-up. The packages take longest (~16 s
	@# on a fresh machine, uv ~8 s): the bytecode (below) is compiled in that wait, not after it.
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
# set (as on our CI machines) every process would otherwise compile the modules it imports, every time: 55 ms more
# for each referee, 95 ms for a tournament run (the arena's own modules alone). The set-up above compiles them
# first; here it is a check (0.6 s) that nothing has changed since.
bytecode: $(STAMP)
	@$(BIN)/python tools/bytecode.py

lint: $(STAMP)
	$(BIN)/ruff check arena bots tests
	$(BIN)/ruff format --check arena bots tests
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

# pytest rewrites the test modules' assertions at import and caches the result as bytecode, unless
# PYTHONDONTWRITEBYTECODE is set (as on our CI machines): then every worker rewrites all ~70 modules at every run
# (6 s of processor time each, 2.4 s with the cache). Bytecode is written for the tests' run.
# --capture=sys: what native code in a worker writes to its stderr reaches the log. A worker once died of SIGABRT in
# test_fuzz (faulthandler's tracebacks showed no thread of ours raising it: a ZeroMQ I/O thread's assertion, most
# likely) and the one line naming the failed assertion had gone to pytest's capture file, lost with the process.
# The whole suite's own stray output this way: three lines, from referees told to stop.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest --capture=sys

# The whole suite, three workers on the machine's 2 cores: with two, a core waits whenever both workers' tests wait
# on processes (a third: 149 s against 166 s, 167 against 188 s, same hours, the same processor time; four, 157 s).
# loadfile runs a module's tests in one worker: a module's fixture (a tournament played, a Dask cluster, a browser)
# is built once, not once in each worker. (Not loadgroup: xdist 3.8 groups by rewriting item._nodeid, which
# pytest 9 ignores.)
pytest: $(STAMP) bytecode
	$(PYTEST) -q -n 3 --dist loadfile --no-loadscope-reorder

# The fast part while you work, about a minute (53-57 s here, 72 s when the host is slow): no kills, fuzzing,
# benchmarks, waits on clocks or long matches, and the property tests with a fifth of their cases (Hypothesis
# profile "quick"). Four workers: what is left mostly waits on bot processes (62 s against 92 s with two, same hour).
check: $(STAMP) bytecode
	$(BIN)/ruff check arena bots tests
	HYPOTHESIS_PROFILE=quick $(PYTEST) -q -n 4 --dist loadfile --no-loadscope-reorder -m "not slow"

# Mutation testing (docs/mutation.md): about an hour; not part of make test.
mutate: $(STAMP)
	$(BIN)/python tools/mutate.py --json mutation.json

tournament: $(STAMP) bytecode
	$(BIN)/arena tournament run tournaments/demo.toml

# The linters run beside the suite (mypy takes ~10 s of one core on a fresh clone; the suite rarely keeps both cores
# busy): 206 s against 211 s, same hour. Their lines and pytest's are printed whole; either failing fails the
# target.
test: $(STAMP)
	@$(MAKE) --no-print-directory -j 2 --output-sync=line lint pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
