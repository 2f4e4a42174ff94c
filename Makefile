# `make run` / `make test` work on a bare machine: they create ./.venv and use it, unless PYTHON
# names another interpreter (CI passes its own fresh venv's). torch is installed first, pinned,
# so pip takes the CPU wheel and never resolves a multi-GB CUDA build.
VENV ?= .venv
PYTHON ?= $(VENV)/bin/python
PIP = $(PYTHON) -m pip
TORCH_PIN ?= torch==2.13.0

.PHONY: install install-base run test test-slow test-workloads test-all bench docs

$(VENV)/bin/python:
	python3 -m venv $(VENV)

# What the first run needs and no more: ding's own dependencies, CPU torch, gymnasium's
# classic-control envs and matplotlib for `ding plot` (0.90 GB; the test extra alone is over 1 GB
# more). --no-compile: Python compiles only the modules a run imports, not all of torch's (184 MB).
install-base: $(PYTHON)
	$(PIP) install -q --no-compile "$(TORCH_PIN)"
	$(PIP) install -q --no-compile -e ".[plot]"

# With the test extra: the test suite drives every env family, Ray, optuna, onnx, wandb...
install: $(PYTHON)
	$(PIP) install -q "$(TORCH_PIN)"
	$(PIP) install -q -e ".[test]"

# The same path as `ding train`, so ./cartpole_dqn_seed0/ is a run directory that `ding plot`,
# `ding eval` and `ding resume` take (a second `make run` writes a new, time-stamped one).
run: install-base
	$(PYTHON) -m ding.entry.cli train --algo dqn --env CartPole-v0 --exp-name cartpole_dqn_seed0

# The newcomer's check: every test but the long learning runs (about 2.5 minutes on 2 cores).
test: install
	$(PYTHON) -m pytest -q -m "not slow" tests

# The learning runs: every algorithm family, the 3-seed bars and determinism (CI runs these too).
# They run on one pytest-xdist worker per core, at most 4: each test uses one torch thread, so on
# CI's 2 cores the set takes about half the time. Tests that start Ray run on one worker (tests/conftest.py).
SLOW_WORKERS ?= $(shell python3 -c "import os; print(min(4, len(os.sched_getaffinity(0))))")
test-slow: install
	$(PYTHON) -m pytest -q -m "slow and not workload" -n $(SLOW_WORKERS) --durations=25 tests

# Real-workload learning runs, minutes each (MinAtar Breakout DQN to its stop value on 3 held-out seeds).
test-workloads: install
	$(PYTHON) -m pytest -q -m workload -n $(SLOW_WORKERS) --durations=25 tests

test-all: install
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) benchmarks/throughput/framework_overhead.py

# The documentation site, offline, warnings as errors; the reference pages are generated while it builds.
docs: install
	$(PIP) install -q -e ".[docs]"
	NO_MKDOCS_2_WARNING=1 $(PYTHON) -m mkdocs build --strict --site-dir build/site
