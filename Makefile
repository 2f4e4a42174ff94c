# torch is installed first, pinned, so pip takes the local CPU wheel and never resolves a CUDA build.
PYTHON ?= python3
PIP = $(PYTHON) -m pip
TORCH_PIN ?= torch==2.13.0

.PHONY: install run test test-all bench

install:
	$(PIP) install -q "$(TORCH_PIN)"
	$(PIP) install -q -e ".[test]"

run: install
	$(PYTHON) -m dizoo.classic_control.cartpole.entry.cartpole_dqn_main

test: install
	$(PYTHON) -m pytest -q -m "not slow" tests

test-all: install
	$(PYTHON) -m pytest -q tests

bench: install
	$(PYTHON) benchmarks/framework_overhead.py
