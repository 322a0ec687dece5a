# The two commands of the README: `make demo` (the main job) and `make test` (what CI runs).
# Each builds its own virtual environment on first use.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint bench clean install

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/companion play seises --players 4 companion/games/seises.txt
	$(BIN)/companion play sexto-set companion/games/sexto-set.txt

lint: $(BIN)/.installed
	$(BIN)/ruff check companion tests bench
	$(BIN)/ruff format --check companion tests bench
	$(BIN)/mypy

test: lint
	$(BIN)/pytest -q

bench: $(BIN)/.installed
	$(BIN)/python -m bench

install:
	systemd/install.sh

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
