# Two commands on a fresh machine with python3 and pip:
#   make run    - the web table (embedded SQLite) at http://127.0.0.1:8000
#   make test   - the whole test suite
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Two stamps: `make run` installs what the web table needs and nothing more; `make test`
# adds the development tools and the research extra (PyTorch, sb3-contrib, pyarrow, ...).
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
# keeps pip on PyTorch's CPU build for the test install (see the file)
CONSTRAINTS := constraints-test.txt

.PHONY: run test lint bench clean e2e-deps

$(RUN_STAMP): pyproject.toml
	test -d $(VENV) || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[web,fast]'
	# compile the hand kernel once now (numba caches it on disk), not at the first move
	GINRUMMY_KERNEL=numba $(BIN)/python -c "import ginrummy.kernel as k; print('hand kernel:', k.name())"
	touch $(RUN_STAMP)

$(TEST_STAMP): $(RUN_STAMP) pyproject.toml $(CONSTRAINTS)
	$(BIN)/pip install -q -e '.[web,fast,dev,research]' -c $(CONSTRAINTS)
	touch $(TEST_STAMP)

run: $(RUN_STAMP)
	$(BIN)/ginrummy serve

test: $(TEST_STAMP)
	$(BIN)/ruff check src tests scripts examples
	$(BIN)/mypy
	$(BIN)/pytest

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests scripts examples
	$(BIN)/mypy

bench: $(TEST_STAMP)
	$(BIN)/ginrummy bench

# Chromium (Debian's package) for the browser tests; Playwright comes with the dev extra.
e2e-deps: $(TEST_STAMP)
	PYTHON=$(BIN)/python bash scripts/e2e_deps.sh

clean:
	rm -rf $(VENV) build *.egg-info
