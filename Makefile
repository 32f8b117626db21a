# Shelfwise: `make demo` sets up and runs the main job on the bundled demo catalog; `make test` tests.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install demo demo-marc test test-fast bench report server screenshots clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/shelfwise catalog import config/demo/catalog.jsonl
	$(BIN)/shelfwise index build
	$(BIN)/shelfwise run config/demo/themes.yaml
	$(BIN)/shelfwise status

# The same library from its MARC export (no vocabulary tags: enrichment derives them), in its own workspace.
demo-marc: export SHELFWISE__WORKSPACE = var/demo-marc
demo-marc: export SHELFWISE__OUTPUTS_DIR = outputs/marc
demo-marc: $(STAMP)
	$(BIN)/shelfwise catalog import config/demo/catalog.mrc
	$(BIN)/shelfwise index build
	$(BIN)/shelfwise run config/demo/themes.yaml
	$(BIN)/shelfwise status

# Three workers on 2 cores: the suite waits on Prefect servers and subprocesses much of the time (5.5 min in one
# process, 3.6 min in two, when it was smaller; at 1,376 tests, quiet machine: two 4:42 wall and 6:23 of CPU, three
# 4:05 and 7:21, a third worker's own session costing less than the waits it fills); each worker has its own demo
# workspace and Prefect server. worksteal: a worker whose queue is empty takes half of another's (under the default
# `load`, in file order, one worker ran the flow tests alone for 4.5 of 8.2 min while the other idled).
# Bytecode written even where PYTHONDONTWRITEBYTECODE is set: each worker collects every test module, and pytest
# rewriting their asserts again on every run is 2.5 s of CPU a worker (the caches are in ignored __pycache__/).
test: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n 3 --dist worksteal

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

# docs/quality.md and the README's marked tables from `shelfwise eval --json`, the judged and fragment benchmarks
# (Gutenberg too where SHELFWISE_REAL_CATALOGS stages it) and timed `shelfwise try` runs (tens of minutes);
# labelled sets too with REPORT_ARGS="--data DIR [--limit N]".
REPORT_ARGS ?=
report: $(STAMP)
	$(BIN)/shelfwise catalog import config/demo/catalog.jsonl
	$(BIN)/shelfwise index build
	$(BIN)/python scripts/quality_report.py --readme README.md $(REPORT_ARGS)

server: $(STAMP)
	$(BIN)/shelfwise server

screenshots: $(STAMP)
	$(BIN)/python scripts/ui_screenshots.py

bench: $(STAMP)
	$(BIN)/python benchmarks/build_indexes_100k.py

clean:
	rm -rf var .pytest_cache
