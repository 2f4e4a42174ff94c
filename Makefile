# `make run` / `make test` work on a bare machine: they create ./.venv and use it, unless PYTHON
# names another interpreter (CI passes its own fresh venv's). torch is installed first, pinned,
# so pip takes the CPU wheel and never resolves a multi-GB CUDA build.
VENV ?= .venv
PYTHON ?= $(VENV)/bin/python
PIP = $(PYTHON) -m pip
TORCH_PIN ?= torch==2.13.0

.PHONY: install run test test-slow test-all bench docs

$(VENV)/bin/python:
	python3 -m venv $(VENV)

# With the test extra, so that one install serves `make run`, `make test` and the test tools.
install: $(PYTHON)
	$(PIP) install -q "$(TORCH_PIN)"
	$(PIP) install -q -e ".[test]"

run: install
	$(PYTHON) -m dizoo.classic_control.cartpole.entry.cartpole_dqn_main

# The newcomer's check: every test but the long learning runs (under two minutes).
test: install
	$(PYTHON) -m pytest -q -m "not slow" tests

# The learning runs: every algorithm family, the 3-seed bars and determinism (CI runs these too).
# They run on one pytest-xdist worker per core, at most 4: each test uses one torch thread, so on
# CI's 2 cores the set takes about half the time. Tests that start Ray share one worker (tests/conftest.py).
SLOW_WORKERS ?= $(shell python3 -c "import os; print(min(4, len(os.sched_getaffinity(0))))")
test-slow: install
	$(PYTHON) -m pytest -q -m slow -n $(SLOW_WORKERS) --dist loadgroup --durations=25 tests

test-all: install
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) benchmarks/framework_overhead.py

# The documentation site, offline, warnings as errors; the reference pages are generated while it builds.
docs: install
	$(PIP) install -q -e ".[docs]"
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict --site-dir build/site
