# Card Arena. `make demo` and `make test` work on a fresh clone: they create .venv first.
# The Python the venvs are made from: a CPython 3.11+ whose executable holds the interpreter
# (not a shared libpython: 10% slower here), python3 on PATH first (scripts/venv_python.py);
# `make venv PY=/path/to/python3` chooses another.
ifeq ($(origin PY),undefined)
PY := $(shell python3 scripts/venv_python.py 2>/dev/null || echo python3)
endif
VENV := .venv
BIN := $(VENV)/bin
PROTOS := $(wildcard protos/cardarena/v1/*.proto)

.PHONY: venv install proto demo test bench bench-env clean browser sandbox-tools screenshots wirec

# Both packages, editable: the author's (card-arena-sdk: the core and the SDK) and the platform's.
# The author's editable install also compiles the C wire encoder and the C copier (its hatch_build.py; optional):
# a change to its source installs again.
SDK_PKG := packages/card-arena-sdk
$(BIN)/activate: pyproject.toml $(SDK_PKG)/pyproject.toml cardarena/wire/_wirec.c arbiter/hosting/_copyc.c
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e $(SDK_PKG) -e '.[dev]'
	touch $(BIN)/activate

venv install: $(BIN)/activate

## Regenerate the committed Python stubs in cardarena/v1 from protos/.
## The C wire encoder (cardarena/wire/_wirec.c; optional: without a compiler the Python one
## serves, the same bytes) and the C copier of an in-process bot's values (arbiter/hosting/
## _copyc.c, likewise), built where one is missing or older than its source: a checkout
## cleaned with `git clean -x` keeps its venv but loses the compiled file, which the venv's
## install would only make again when the source changes.
wirec: $(BIN)/activate
	@for c in cardarena/wire/_wirec.c arbiter/hosting/_copyc.c; do \
	  so=$$(ls $${c%.c}*.so 2>/dev/null | head -1); \
	  if [ -z "$$so" ] || [ $$c -nt "$$so" ]; then $(BIN)/python $(SDK_PKG)/hatch_build.py .; break; fi; \
	done

proto: $(BIN)/activate
	$(BIN)/python -m grpc_tools.protoc -I protos --python_out=. --pyi_out=. --grpc_python_out=. $(PROTOS)

## A round-robin Spades tournament between the bundled bots over gRPC, then standings (8 deals:
## the fewest whose standings give three bots' ratings an interval, docs/strength.md).
demo: $(BIN)/activate wirec
	$(BIN)/arbiter tournament run --game spades --bots random,greedy,heuristic --deals 8 --transport grpc --db .demo.sqlite --fresh
	@echo "In a browser, with a seat to play at /play: $(BIN)/arbiter web (it serves .demo.sqlite while there is no arena.sqlite)"

## Debian's chromium and chromedriver, for the browser tests (tests/e2e/test_web.py, test_table.py). Idempotent;
## CI runs as root, elsewhere it asks sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium chromium-driver; }

## bubblewrap confines the bot processes the arbiter hosts (network and file isolation);
## installed when missing and we are root with apt (CI, a fresh Debian machine). Without
## it bots still run, under resource limits only (`arbiter bots sandbox` says what holds).
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get install -y -qq bubblewrap >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; }; } ; } || \
	  echo "note: bubblewrap is not installed: hosted bots run under resource limits only"

## The layer contracts (pyproject.toml [tool.importlinter]), then the whole test suite
## (installs what the browser and sandbox tests need first), its wall time and its ten
## slowest tests. The budget (README "Tests"): 300 s of pytest on 2 idle cores. Most tests
## wait on the processes they start (arbiters, bots, browsers), so twice as many workers as
## cores keeps the cores busy; TEST_WORKERS=2 for a machine shared with other work.
TEST_WORKERS ?= 4
test: $(BIN)/activate wirec browser sandbox-tools bench-env
	$(BIN)/lint-imports
	@start=$$(date +%s); $(BIN)/python -m pytest -q -n $(TEST_WORKERS) --durations=10; rc=$$?; \
		echo "make test: pytest took $$(( $$(date +%s) - start )) s of wall time (budget: 300 s on 2 idle cores)"; exit $$rc

## The benchmark: one table with targets, JSON in bench-results.json. Its store section
## generates a million matches in a temporary folder (8.4 GB, removed after; most of its time).
## OpenSpiel (the reference engine) lives in its own environment, .venv-bench, never in .venv;
## if open-spiel cannot be installed the bench still runs and marks its row unavailable.
BENCH_VENV := .venv-bench
## The bench's own environment with open-spiel (about 15 s to install); `make test` needs it
## too, for the OpenSpiel wrappers' test (tests/envs/test_openspiel.py).
bench-env:
	@test -f $(BENCH_VENV)/.ok || { $(PY) -m venv $(BENCH_VENV) && $(BENCH_VENV)/bin/pip install -q open-spiel && touch $(BENCH_VENV)/.ok; } \
		|| echo "open-spiel could not be installed: the OpenSpiel bench row is unavailable and its test skips"
## sandbox-tools too: the isolation rows measure the default sandbox (bubblewrap's fork servers);
## without bubblewrap every `deal` and `match` bot is a fresh interpreter and those rows fall
## to about 0.43x and 0.13x `shared` (a fresh machine, 6 December 2026), a measurement of a
## fallback rather than of the platform.
bench: $(BIN)/activate wirec bench-env sandbox-tools
	ARENA_BENCH_PYTHON=$$(test -f $(BENCH_VENV)/.ok && echo $(BENCH_VENV)/bin/python || echo /nonexistent) $(BIN)/python -m arbiter.tools.bench

## The two wheels (and sdists) in dist/: card-arena-sdk for bot authors, card-arena the platform.
.PHONY: wheels
wheels: $(BIN)/activate
	rm -rf build *.egg-info  # an old egg-info's file list would carry the core into the platform's sdist
	$(BIN)/python -m build $(SDK_PKG) -o dist
	$(BIN)/python -m build . -o dist

## The browser tests, their screenshots of every page (1280x800 and 390x844) into
## docs/screenshots/ (the README shows two); `make test` writes them to tests/artifacts/screenshots/.
screenshots: $(BIN)/activate browser
	ARENA_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -n 0 tests/e2e/test_table.py tests/e2e/test_web.py tests/e2e/test_arena_web.py tests/e2e/test_accessibility.py

clean:
	rm -rf $(VENV) $(BENCH_VENV) .demo.sqlite *.egg-info dist

## Reliability campaigns (issue #20; not part of `make test`). The fuzz campaign: 100,000+
## hostile bot messages against a real `arbiter serve` and a running tournament's arbiter,
## on loopback, honest matches alongside; about a minute or two on 2 cores.
## `make fuzz FUZZ_ARGS=--big` sends ten times as many.
.PHONY: fuzz chaos
fuzz: $(BIN)/activate
	$(BIN)/python scripts/fuzz_campaign.py $(FUZZ_ARGS)

## The chaos campaign: `arbiter tournament run` SIGKILLed at 28 seeded moments (mid-commit,
## mid bot start-up, with its bots...), on a loopback Dask cluster too, resumed each time and
## checked against an uninterrupted run; a few minutes. `make chaos CHAOS_ARGS=--big`: 4x.
chaos: $(BIN)/activate
	$(BIN)/python scripts/chaos_campaign.py $(CHAOS_ARGS)

## The reference tournament (issue 43): OpenSpiel's IS-MCTS (examples/openspiel-ismcts, open-spiel
## installed once into its own cached environment), `search`, `dds` and `heuristic`, a Spades
## round-robin of duplicate one-deal matches, no clock (each bot's own budget: the result replays
## exactly), stored in reference.sqlite. REF_DEALS=4 (48 matches) took 4.5 minutes on the shared
## 2 cores, REF_DEALS=8 7.6; more deals narrow the intervals (docs/strength.md).
REF_DEALS ?= 4
.PHONY: reference-tournament
reference-tournament: $(BIN)/activate
	ARENA_INSTALL_BOT_ENVS=1 $(BIN)/arbiter tournament run --game spades \
	    --bots ismcts=examples/openspiel-ismcts,search,dds,heuristic --format round-robin \
	    --deals $(REF_DEALS) --seed 1 -o deals=1 --decision-ms 0 --bank-ms 0 \
	    --db reference.sqlite --name reference --fresh

## Every section of the bench once at its smallest size, no target judged (about a minute):
## a check that the bench still runs. `make test` runs it (tests/arbiter/tools/test_bench_smoke.py).
.PHONY: bench-smoke
bench-smoke: $(BIN)/activate bench-env
	ARENA_BENCH_PYTHON=$$(test -f $(BENCH_VENV)/.ok && echo $(BENCH_VENV)/bin/python || echo /nonexistent) $(BIN)/python -m arbiter.tools.bench --smoke --json bench-smoke.json
