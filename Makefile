# Developer entry points. `make run` and `make test` work on a fresh machine that has
# only Python 3.11, make and bash: the virtualenv and the package are set up on demand.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV        ?= .venv
PYTHON      ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
BROKER_PORT ?= 9092
PIP_FLAGS   ?= --quiet --disable-pip-version-check

VPY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: help run test lint bench broker

help:
	@echo "make run     set up .venv and run the demo job (baccarat-audit demo)"
	@echo "make test    ruff, mypy and pytest (parallel, pytest-xdist)"
	@echo "make bench   run every benchmarks/bench_*.py"
	@echo "make broker  local in-memory Kafka-protocol broker on port $(BROKER_PORT)"

$(VPY):
	@test -n "$(PYTHON)" || { echo "python3.11 not found on PATH" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

# Reinstall only when pyproject.toml changes (or the venv was recreated).
# pip's output goes to $(PIP_LOG) and is shown only when the install fails.
PIP_LOG := $(VENV)/pip-install.log
define pip_install
	@echo "pip install -e '$(1)' (log: $(PIP_LOG))"
	@$(VPY) -m pip install $(PIP_FLAGS) -e '$(1)' >$(PIP_LOG) 2>&1 \
		|| { tail -n 40 $(PIP_LOG) >&2; echo "pip install failed; full log: $(PIP_LOG)" >&2; exit 1; }
endef

$(VENV)/.installed: pyproject.toml | $(VPY)
	$(call pip_install,.)
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VPY)
	$(call pip_install,.[dev])
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/baccarat-audit demo

# Runs every check even when an earlier one fails, then fails if any did.
test: $(VENV)/.installed-dev
	@status=0; \
	echo "== ruff check"; $(BIN)/ruff check --quiet --output-format concise . || status=1; \
	echo "== ruff format --check"; $(BIN)/ruff format --check --output-format concise . || status=1; \
	echo "== mypy"; $(BIN)/mypy || status=1; \
	echo "== pytest"; $(BIN)/pytest -q -n auto || status=1; \
	exit $$status

bench: $(VENV)/.installed
	@shopt -s nullglob; benches=(benchmarks/bench_*.py); \
	if [ $${#benches[@]} -eq 0 ]; then echo "no benchmarks/bench_*.py yet"; exit 0; fi; \
	for bench in "$${benches[@]}"; do \
		echo "== $$bench"; $(VPY) "$$bench" || exit 1; \
	done

broker: $(VENV)/.installed
	$(BIN)/baccarat-audit broker --port $(BROKER_PORT)
