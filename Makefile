# Firefight build. Every target sets up what it needs on a fresh machine (Python 3.11, Node 20,
# Debian) and is quick when that is already done: progress is kept in stamp files.
#
#   make setup    .venv (dev tools + the engine, editable), node_modules, chromium
#   make runtime  runtime/wheels/ + manifest.json, runtime/pyodide/ (what the browser loads)
#   make examples the example plugins' wheels (examples/<module>/wheels/, docs/extending.md)
#   make packs    compendium packs: packs/_source/<pack>/ -> packs/<pack>-<system>/ (LevelDB)
#   make table    everything, then serve the sandbox table on http://127.0.0.1:30000 (PORT=...)
#   make test     everything, then ruff, mypy, engine tests on CPython and in Pyodide, shim, browser
#   make test-foundry  opt-in: your Foundry v13 (FOUNDRY_ZIP=... FOUNDRY_LICENSE=... FOUNDRY_SYSTEMS=...)
#   make bench    figures (no limits): Pyodide boot and import, resolves/s and odds per ruleset, the balance lab, the zip, RSS, the browser (boot ratios, click -> card, tab memory)
#   make clean    remove what the build made (distclean: also .venv and node_modules)

SHELL := /bin/bash
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:

PYTHON ?= python3
# make table PORT=30001: the sandbox table's port (Foundry's own default is 30000).
PORT ?= 30000
VENV := .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

VENV_STAMP := $(VENV)/.firefight-setup
NPM_STAMP := node_modules/.firefight-npm
WHEELS_STAMP := runtime/wheels/manifest.json
PYODIDE_STAMP := runtime/pyodide/.firefight-copied
TEST_WHEELS_STAMP := build/pyodide-test-wheels/manifest.json
PACKS_STAMP := build/stamps/packs

# The project wheel is rebuilt when anything under these changes (directories included, so a
# deleted file counts too).
PROJECT_SOURCES := pyproject.toml $(wildcard README.md) $(shell find py templates lang \
	\( -name __pycache__ -o -name '*.pyc' -o -name '.*' \) -prune -o -print 2>/dev/null)
PACK_SOURCES := $(shell find packs/_source -print 2>/dev/null) $(wildcard tools/build_packs.mjs)

.PHONY: help setup chromium runtime test-wheels examples packs table test test-foundry module bench clean distclean

help:
	@sed -n 's/^#   make /make /p' Makefile

# --- setup -------------------------------------------------------------------------------------

setup: $(VENV_STAMP) $(NPM_STAMP) chromium

$(VENV_STAMP): tools/requirements-dev.txt pyproject.toml
	@# Debian's own python3 needs python3-venv for this; install it if venv fails.
	test -x $(PY) || $(PYTHON) -m venv $(VENV) || { rm -rf $(VENV) && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv && \
		$(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --quiet --disable-pip-version-check -r tools/requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-build-isolation -e .
	touch $@

# npm's warning that install scripts are disabled is harmless: the only package with one is
# classic-level (LevelDB for the pack compiler), whose script just picks its bundled prebuilt
# binary (prebuilds/linux-x64), which it also finds at run time without the script.
$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

chromium:
	@if [ ! -x /usr/bin/chromium ]; then \
		echo "installing chromium (apt)"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

# --- runtime -----------------------------------------------------------------------------------

runtime: $(WHEELS_STAMP) $(PYODIDE_STAMP)

$(WHEELS_STAMP): $(PROJECT_SOURCES) tools/build_runtime.py $(VENV_STAMP)
	$(PY) tools/build_runtime.py wheels

$(PYODIDE_STAMP): $(NPM_STAMP) tools/build_runtime.py $(VENV_STAMP)
	$(PY) tools/build_runtime.py pyodide
	touch $@

# pytest, hypothesis and their deps as pure wheels, for the engine tests inside Pyodide.
test-wheels: $(TEST_WHEELS_STAMP)

$(TEST_WHEELS_STAMP): tools/build_runtime.py $(VENV_STAMP)
	$(PY) tools/build_runtime.py test-wheels

# The example plugins' wheels (examples/<module>/wheels/, never committed), each built by the
# standard PEP 517 build from its python/ folder; the tool rebuilds only a stale one.
examples: $(VENV_STAMP)
	$(PY) tools/build_examples.py

# --- packs -------------------------------------------------------------------------------------

packs: $(PACKS_STAMP)

# One pack per game system for each Actor/Item source (types from js-shim/systems/); the build
# also keeps module.json's packs and packFolders in step with tools/build_packs.mjs.
$(PACKS_STAMP): $(PACK_SOURCES) $(wildcard js-shim/systems/*.mjs) $(NPM_STAMP)
	@if [ -f tools/build_packs.mjs ]; then \
		node tools/build_packs.mjs && mkdir -p $(@D) && touch $@; \
	else \
		echo "packs: tools/build_packs.mjs does not exist yet, skipping"; \
	fi

# --- use ---------------------------------------------------------------------------------------

table: setup runtime examples packs
	@if [ -f tools/serve.py ]; then \
		exec $(PY) tools/serve.py --port $(PORT); \
	else \
		echo "table: tools/serve.py does not exist yet" >&2; exit 1; \
	fi

test: setup runtime test-wheels examples packs
	$(PY) tools/run_tests.py

# The real-Foundry tier (docs/building.md, "Real Foundry tier"): the play matrix in a temporary
# copy of your own licensed Foundry v13. Without FOUNDRY_ZIP and FOUNDRY_LICENSE it prints one
# skip line and succeeds; with them it builds dist/firefight.zip first (unless
# FOUNDRY_MODULE_ZIP names another).
test-foundry: setup
	@if [ -n "$$FOUNDRY_ZIP" ] && [ -n "$$FOUNDRY_LICENSE" ] && [ -z "$$FOUNDRY_MODULE_ZIP" ]; then \
		$(MAKE) --no-print-directory module; \
	fi
	$(PY) -m pytest tests/foundry -rs -p no:cacheprovider

# make module BASE_URL=https://host/firefight/0.1.0 [MANIFEST_URL=...] [PROJECT_URL=...]: the
# release's address in module.json (url, manifest, download); README "Hosting a release".
BASE_URL ?=
MANIFEST_URL ?=
PROJECT_URL ?=
module: runtime packs
	$(PY) tools/build_module.py --base-url "$(BASE_URL)" --manifest-url "$(MANIFEST_URL)" --project-url "$(PROJECT_URL)"

bench: setup chromium module
	$(PY) tools/bench.py

clean:
	rm -rf runtime build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis test-results
	rm -rf examples/*/wheels
	find packs -mindepth 1 -maxdepth 1 -type d ! -name _source -exec rm -rf {} +
	find py tests tools -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) node_modules
