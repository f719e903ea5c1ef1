# Two commands for a newcomer: `make run` (agent on the demo catalog) and `make test`.
# What is installed comes from the hash-locked requirements.txt (`--require-hashes`), exactly what Cloud
# Build installs for the function; `make lock` refreshes it from requirements.in.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8080

.PHONY: run test test-fast lint fmt bench lock clean data

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt
	touch $@

# Test tools are pinned but not hashed; the runtime pins constrain them so no test tool moves a runtime package.
$(VENV)/.dev: $(VENV)/.runtime requirements-dev.txt
	grep -E '^[A-Za-z0-9_.-]+==' requirements.txt | sed 's/ .*//' > $(VENV)/runtime-pins.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt -c $(VENV)/runtime-pins.txt
	touch $@

# The BigQuery emulator (tests only) in its own venv inside the test venv: its pins conflict with the
# runtime lock and the test tools (requirements-bqemu.txt says which); tests/bigquery_emulator.py runs it.
$(VENV)/bqemu/.ready: requirements-bqemu.txt | $(VENV)/bin/python
	$(PY) -m venv $(VENV)/bqemu
	$(VENV)/bqemu/bin/python -m pip install --quiet --no-deps -r requirements-bqemu.txt
	touch $@

# The preview page (a browser at the URL) is on here; deploy.sh leaves PREVIEW unset, so it is off in a deployment.
run: $(VENV)/.runtime
	PREVIEW=$${PREVIEW:-1} PUBLIC_URL=$${PUBLIC_URL:-http://$(HOST):$(PORT)/} $(VENV)/bin/functions-framework --target=a2a --host=$(HOST) --port=$(PORT)

test: lint $(VENV)/bqemu/.ready
	$(PY) -m pytest $(PYTEST_ARGS)

# The fast subset: no server process, emulator, browser or Node (the `unit` marker, tests/conftest.py).
test-fast: $(VENV)/.dev
	$(PY) -m pytest -q -m unit $(PYTEST_ARGS)

# ruff (lint and format check) and mypy on agent/, as configured in pyproject.toml; `make test` runs it first.
lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

# Apply what lint can fix: import order, unused imports, then the formatter.
fmt: $(VENV)/.dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# Regenerate data/taxonomy/derived.marshal (the name index's lookups, precomputed) after a taxonomy file or the
# name matcher's word rules change; tests/test_namematch_lazy.py fails while it is stale. Then the planner's
# taxonomy index (data/taxonomy/vocabulary-index.marshal; tests/test_vocabulary_table.py fails while it is stale), and the demo
# catalog normalised (data/demo/catalog.arrow; tests/test_demo_bundle.py), also after any agent/catalog edit.
data: $(VENV)/.runtime
	$(PY) -c "from agent.catalog import namematch; namematch.write_table()"
	$(PY) -c "from agent.analysis import vocabulary_table; vocabulary_table.write_table()"
	$(PY) -c "from agent.catalog import demo_bundle; demo_bundle.write_demo()"

bench: $(VENV)/.dev
	$(PY) bench/run_all.py

# Re-resolve requirements.in into requirements.txt: the whole runtime closure, pinned, with every file's hash.
lock: $(VENV)/.dev
	$(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
	  --no-emit-find-links --output-file=requirements.txt requirements.in

clean:
	rm -rf $(VENV) .node .pytest_cache .mypy_cache .ruff_cache

# The suite must never flake: run it N times in a row, then once on a single CPU (taskset -c 0).
N ?= 10
.PHONY: test-repeat
test-repeat: $(VENV)/.dev $(VENV)/bqemu/.ready
	@for i in $$(seq 1 $(N)); do echo "== run $$i of $(N)"; $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS) || exit 1; done
	@echo "== one CPU (taskset -c 0)"; taskset -c 0 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)
