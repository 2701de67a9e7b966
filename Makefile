# Every target creates .venv when it is missing and is safe to run again.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
BENCH_INSTALLED := $(VENV)/.bench-installed

.PHONY: install test bench demo clean

install: $(INSTALLED)

$(PY):
	$(PYTHON) -m venv $(VENV) || { apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --upgrade pip

$(INSTALLED): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

$(BENCH_INSTALLED): pyproject.toml | $(INSTALLED)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	touch $@

test: install
	$(VENV)/bin/ruff check .
	$(PY) -m pytest

bench: $(BENCH_INSTALLED)
	@for f in bench/bench_*.py; do $(PY) $$f || exit 1; done

demo: install
	@echo "boardref: the virtual board is at http://127.0.0.1:8000 (Ctrl-C stops it)"
	$(VENV)/bin/boardref serve --sim

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
