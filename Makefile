# Two commands for a fresh clone (see README):  make run [DATASET=…]   and   make test
PY ?= python3
VENV := .venv
PYTHON := $(VENV)/bin/python
DATASET ?= greekbar

.PHONY: install run test lint bench

$(VENV)/.installed: requirements.txt requirements-dev.txt
	$(PY) -m venv $(VENV)
	$(PYTHON) -m pip install --disable-pip-version-check -q -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed
	# headless Chromium: the report test renders the HTML report and checks the screenshot (skips without it)
	-command -v chromium >/dev/null 2>&1 || apt-get install -y chromium chromium-driver

# The main job: start the local node unless OPENSEARCH_URL names a cluster, index, evaluate BM25.
run: install
	$(PYTHON) cli.py server start
	$(PYTHON) cli.py index --dataset $(DATASET)
	$(PYTHON) cli.py eval --method bm25 --dataset $(DATASET)

lint: install
	$(PYTHON) -m ruff check .

# Tests start a real node of their own (port 9250) once per session and stop it at the end.
test: lint
	$(PYTHON) -m pytest -q -ra

bench: install
	$(PYTHON) bench/bm25_vs_paper.py --dataset $(or $(filter-out greekbar,$(DATASET)),../shared/data/greek-statutes)
