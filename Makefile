# Needs only python3 and make: the first target run creates .venv and installs ctxnotes into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-ctxnotes
HOST   ?= 127.0.0.1
PORT   ?= 8765

.PHONY: install serve test bench bench-quick clean

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/ctxnotes --workspace workspace serve --http --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

bench-quick: $(STAMP)
	$(BIN)/python -m bench --quick

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
