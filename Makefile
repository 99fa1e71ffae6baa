# Two commands on a fresh machine with python3 and pip:
#   make run    - the web table (embedded SQLite) at http://127.0.0.1:8000
#   make test   - the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean e2e-deps

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[web,dev,fast]'
	# compile the hand kernel once now (numba caches it on disk), not at the first move
	GINRUMMY_KERNEL=numba $(BIN)/python -c "import ginrummy.kernel as k; print('hand kernel:', k.name())"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/ginrummy serve

test: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy
	$(BIN)/pytest

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/ginrummy bench

# Chromium (Debian's package) for the browser tests; Playwright comes with the dev extra.
e2e-deps: $(STAMP)
	PYTHON=$(BIN)/python bash scripts/e2e_deps.sh

clean:
	rm -rf $(VENV) build *.egg-info
