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
