# Developer entry points. `make run` and `make test` work on a fresh machine that has
# only Python 3.11, make and bash: the virtualenv and the package are set up on demand.

SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV        ?= .venv
PYTHON      ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
BROKER_PORT ?= 9092
DASHBOARD_PORT ?= 8501
DASHBOARD_DB   ?= out/ledger.duckdb
PIP_FLAGS   ?= --quiet --disable-pip-version-check

VPY := $(VENV)/bin/python
BIN := $(VENV)/bin

.PHONY: help run shell test bench broker dashboard demo-stream

help:
	@echo "make run          set up .venv and run the demo job (baccarat-audit demo)"
	@echo "make shell        a shell with .venv activated, so baccarat-audit is on PATH"
	@echo "make test         ruff, mypy and pytest (parallel, pytest-xdist)"
	@echo "make bench        run every benchmarks/bench_*.py"
	@echo "make broker       local in-memory Kafka-protocol broker on port $(BROKER_PORT) (BROKER_PORT=)"
	@echo "make demo-stream  the live path: broker, simulate -> Kafka, stream -> $(DEMO_STREAM_OUT)/ledger.duckdb"
	@echo "make dashboard    Streamlit dashboards on http://127.0.0.1:$(DASHBOARD_PORT) over $(DASHBOARD_DB)"
	@echo "                  (DASHBOARD_PORT=, DASHBOARD_DB=)"
	@echo "The command itself: $(BIN)/baccarat-audit --help (after make run), or make shell."

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
	@echo "first install of the dependencies into $(VENV): about 2 minutes, once"
	$(call pip_install,.)
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VPY)
	$(call pip_install,.[dev])
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/baccarat-audit demo

# An interactive shell with the virtualenv first on PATH; `exit` returns.
shell: $(VENV)/.installed
	@echo "baccarat-audit is on PATH in this shell; exit to leave"
	@PATH="$(abspath $(BIN)):$$PATH" VIRTUAL_ENV="$(abspath $(VENV))" $(SHELL) -i

# pytest runs three workers for every two cores: the broker, browser and subprocess tests
# spend much of their time waiting on other processes, which left two cores with a worker
# each idle 20 % of the dashboard tests' run and 43 % of the stream tests' (the whole suite
# on 2 cores: 26 min 11 s with 2 workers, 21 min 25 s with 3, one after the other).
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n * 3 / 2 > 2 ? n * 3 / 2 : 2 )))

# Runs every check even when an earlier one fails, then fails if any did. mypy (one core,
# about 40 s without its cache) runs beside pytest and reports after it. The project's own
# modules are compiled to bytecode first: where PYTHONDONTWRITEBYTECODE is set (as on the CI
# machines) no import writes it, and each of the hundreds of processes the tests start (the
# command line, Streamlit servers, stream workers) compiled them again (the command-line
# tests: 170 s of CPU without, 148 s with).
test: $(VENV)/.installed-dev
	@status=0; \
	$(VPY) -m compileall -q pipeline dashboards flows tests benchmarks || status=1; \
	echo "== ruff check"; $(BIN)/ruff check --quiet --output-format concise . || status=1; \
	echo "== ruff format --check"; $(BIN)/ruff format --check --output-format concise . || status=1; \
	mypy_log=$$(mktemp); $(BIN)/mypy >"$$mypy_log" 2>&1 & mypy=$$!; \
	echo "== pytest ($(PYTEST_WORKERS) workers)"; \
	$(BIN)/pytest -q -n $(PYTEST_WORKERS) --dist loadgroup || status=1; \
	echo "== mypy"; wait $$mypy || status=1; cat "$$mypy_log"; rm -f "$$mypy_log"; \
	exit $$status

bench: $(VENV)/.installed
	@shopt -s nullglob; benches=(benchmarks/bench_*.py); \
	if [ $${#benches[@]} -eq 0 ]; then echo "no benchmarks/bench_*.py yet"; exit 0; fi; \
	for bench in "$${benches[@]}"; do \
		echo "== $$bench"; $(VPY) "$$bench" || exit 1; \
	done

broker: $(VENV)/.installed
	$(BIN)/baccarat-audit broker --port $(BROKER_PORT)

# Live streaming demo: the bundled broker on $(DEMO_STREAM_PORT), the emulator publishing a
# 4-table, 2-hour day with every fault kind, the exactly-once consumer loading it into
# $(DEMO_STREAM_OUT)/ledger.duckdb, then the top exceptions. The broker is stopped on exit.
DEMO_STREAM_PORT ?= 19092
DEMO_STREAM_OUT  ?= out/stream
STREAM_CMD       ?= $(BIN)/baccarat-audit stream

.PHONY: demo-stream
demo-stream: $(VENV)/.installed
	@set -euo pipefail; \
	mkdir -p $(DEMO_STREAM_OUT); \
	rm -f $(DEMO_STREAM_OUT)/ledger.duckdb $(DEMO_STREAM_OUT)/ledger.duckdb.wal; \
	$(BIN)/baccarat-audit broker --port $(DEMO_STREAM_PORT) & broker=$$!; \
	trap 'kill $$broker 2>/dev/null; wait $$broker 2>/dev/null || true' EXIT; \
	for _ in $$(seq 1 100); do \
		(exec 3<>/dev/tcp/127.0.0.1/$(DEMO_STREAM_PORT)) 2>/dev/null && break; sleep 0.1; \
	done; \
	kill -0 $$broker 2>/dev/null || { echo "the broker did not start" >&2; exit 1; }; \
	echo "== simulate -> Kafka"; \
	$(BIN)/baccarat-audit simulate --tables 4 --hours 2 --faults all --seed 7 \
		--kafka 127.0.0.1:$(DEMO_STREAM_PORT) --out $(DEMO_STREAM_OUT); \
	echo "== stream -> $(DEMO_STREAM_OUT)/ledger.duckdb"; \
	$(STREAM_CMD) --bootstrap 127.0.0.1:$(DEMO_STREAM_PORT) \
		--db $(DEMO_STREAM_OUT)/ledger.duckdb --until-idle 10; \
	echo "== exceptions"; \
	$(BIN)/baccarat-audit exceptions --db $(DEMO_STREAM_OUT)/ledger.duckdb --limit 10

# The dashboards read the ledger through read-only snapshots; a 6-hour demo day is made first
# when there is no ledger yet. Acknowledgements go to the journal next to the ledger, signed
# in the demo's installation beside it unless BACCARAT_INSTALLATION names another.
dashboard: $(VENV)/.installed
	@! (exec 3<>/dev/tcp/127.0.0.1/$(DASHBOARD_PORT)) 2>/dev/null || { echo "port \
	$(DASHBOARD_PORT) is in use (another dashboard?); choose another: make dashboard \
	DASHBOARD_PORT=8502" >&2; exit 2; }
	@test -f "$(DASHBOARD_DB)" || { $(BIN)/baccarat-audit demo --out "$(dir $(DASHBOARD_DB))" \
		--hours 6 || true; test -f "$(DASHBOARD_DB)"; }
	BACCARAT_INSTALLATION="$${BACCARAT_INSTALLATION:-$(abspath $(dir $(DASHBOARD_DB)))/installation}" \
		$(BIN)/python -m dashboards.server --db "$(DASHBOARD_DB)" --port $(DASHBOARD_PORT)
