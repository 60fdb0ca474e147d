# Card Arena. `make demo` and `make test` work on a fresh clone: they create .venv first.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
PROTOS := $(wildcard protos/cardarena/v1/*.proto)

.PHONY: venv install proto demo test bench clean

$(BIN)/activate: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $(BIN)/activate

venv install: $(BIN)/activate

## Regenerate the committed Python stubs in cardarena/v1 from protos/.
proto: $(BIN)/activate
	$(BIN)/python -m grpc_tools.protoc -I protos --python_out=. --pyi_out=. --grpc_python_out=. $(PROTOS)

## A round-robin Spades tournament between the bundled bots over gRPC, then standings.
demo: $(BIN)/activate
	$(BIN)/arbiter tournament run --game spades --bots random,greedy,heuristic --deals 2 --db .demo.sqlite --fresh

## The whole test suite.
test: $(BIN)/activate
	$(BIN)/python -m pytest -q -n 2

bench: $(BIN)/activate
	$(BIN)/arbiter bench

clean:
	rm -rf $(VENV) .demo.sqlite *.egg-info
