# Every target creates .venv when it is missing and is safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
BENCH_INSTALLED := $(VENV)/.bench-installed
# What the tests take from npm, into .node/: the MicroPython WebAssembly port the
# firmware tests run the firmware on, and TypeScript's compiler, which checks the
# pages' scripts (tsconfig.json). npm keeps only the packages of its last install in a
# folder, so they are installed together, and again when a version here changes.
MICROPYTHON_VERSION := 1.27.0
TYPESCRIPT_VERSION := 5.9.3
NODE_PACKAGES := @micropython/micropython-webassembly-pyscript@$(MICROPYTHON_VERSION) typescript@$(TYPESCRIPT_VERSION)
NODE_INSTALLED := .node/installed-micropython-$(MICROPYTHON_VERSION)-typescript-$(TYPESCRIPT_VERSION)
TSC := .node/node_modules/.bin/tsc

.PHONY: install bytecode micropython typescript test test-fast bench demo clean

install: $(INSTALLED)

# The project's modules compiled to bytecode, as a regular install (pip, and so
# systemd/install.sh on a Pi) leaves them; an editable install does not, and where
# PYTHONDONTWRITEBYTECODE is set every start would compile them from source again.
# Only modules whose source changed are compiled again.
bytecode: $(INSTALLED)
	@$(PY) -m compileall -q -j 0 boardref engines firmware_bridge hardware vision

$(PY):
	$(PYTHON) -m venv $(VENV) || { apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip

# `world`: Mitsuba 3, which the camera's bench traces its test world with; the suite
# runs that bench in smoke mode (tests/bench)
$(INSTALLED): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev,world]'
	touch $@

$(BENCH_INSTALLED): pyproject.toml | $(INSTALLED)
	$(PY) -m pip install --quiet -e '.[dev,bench,world]'
	touch $@

micropython typescript: $(NODE_INSTALLED)

$(NODE_INSTALLED):
	command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm; }
	rm -f .node/installed-*
	npm install --prefix .node --no-save --no-package-lock --no-audit --no-fund $(NODE_PACKAGES)
	touch $@

# pytest keeps the test modules it rewrote for its assertions beside them, as
# bytecode: where PYTHONDONTWRITEBYTECODE is set it would rewrite all of them on every
# run (about 4 s of CPU), so it is unset for the run. The suite runs on
# TEST_WORKERS processes (pytest-xdist), each taking whole test files, so a file's
# shared browser and table stay in one process: make test TEST_WORKERS=1 runs it in one.
TEST_WORKERS ?= 2
test: bytecode micropython typescript
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(TSC) -p tsconfig.json
	$(PY) tests/types_ratchet.py
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

# The fast tier: every test that starts no browser, broker or other process and is
# not marked slow (tests/conftest.py), engines, vision, hardware and firmware_bridge
# included; no lint, no MicroPython. pytest's exit status is make's, so a run that
# selects nothing (status 5) fails too.
FAST_TIER := not browser and not broker and not process and not slow
test-fast: bytecode
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n $(TEST_WORKERS) -m "$(FAST_TIER)"

# Every bench in turn, its wall and CPU time, then one summary of every budget
# (bench/budgets.toml); BENCH_ARGS=--full runs the long forms.
bench: $(BENCH_INSTALLED) bytecode
	@$(PY) bench/run.py $(BENCH_ARGS)

# The port the demo's panel listens on: make demo PORT=8001
PORT ?= 8000

demo: bytecode
	@echo "boardref: the virtual board is at http://127.0.0.1:$(PORT) (Ctrl-C stops it)"
	$(VENV)/bin/boardref serve --sim --port $(PORT)

clean:
	rm -rf $(VENV) .node .pytest_cache .ruff_cache .mypy_cache .hypothesis
