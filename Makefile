# Two commands for a newcomer: `make run` (agent on the demo catalog) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
HOST   ?= 127.0.0.1
PORT   ?= 8080

.PHONY: run test bench clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(VENV)/bin/python
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $(VENV)/.runtime $@

run: $(VENV)/.runtime
	PUBLIC_URL=$${PUBLIC_URL:-http://$(HOST):$(PORT)/} $(VENV)/bin/functions-framework --target=a2a --host=$(HOST) --port=$(PORT)

test: $(VENV)/.dev
	$(PY) -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.dev
	$(PY) bench/run_all.py

clean:
	rm -rf $(VENV) .node .pytest_cache

# The suite must never flake: run it N times in a row, then once on a single CPU (taskset -c 0).
N ?= 10
.PHONY: test-repeat
test-repeat: $(VENV)/.dev
	@for i in $$(seq 1 $(N)); do echo "== run $$i of $(N)"; $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS) || exit 1; done
	@echo "== one CPU (taskset -c 0)"; taskset -c 0 $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_ARGS)
