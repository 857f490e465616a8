# Two commands for a fresh Linux machine with Python 3.11+:
#   make book   set up .venv if needed, execute every chapter at the book preset, regenerate REPRODUCTION.md
#               (make book PRESET=paper CHAPTERS="23": chosen chapters at the paper preset, kept as records)
#   make test   set up .venv if needed, run the unit tests and re-execute every chapter at the smoke preset
#   make lint   ruff (lint + format check), mypy on qwem_lib, and the import contracts of pyproject.toml
#   make site   render the committed notebooks (no execution) into the website _site/html/index.html
#   make site-test  build the site, then check it in headless Chromium (needs /usr/bin/chromium, chromedriver)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PRESET ?= book
CHAPTERS ?=

.PHONY: book test env lint format clean-cache bench mutants site site-test

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	touch $@

env: $(VENV)/.installed

# The website's stack (pyproject's optional group `site`) goes into the same .venv, only when asked for.
$(VENV)/.site-installed: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet -e '.[site]'
	touch $@

# The maintainer's checks (pyproject's optional group `dev`): lint, format, types, the import contracts.
$(VENV)/.dev-installed: $(VENV)/.installed pyproject.toml
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: $(VENV)/.dev-installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

site: $(VENV)/.site-installed
	$(PY) website/build.py

site-test: site
	$(PY) -m pytest -p no:cacheprovider -p no:nbval website/test_site.py

# make book PRESET=paper CHAPTERS="23 24": chosen chapters at the paper preset, resumable; the executed
# notebooks go to reproduction/paper/, their claim records to reproduction/records-paper/ (commit both)
book: env
	QWEM_PRESET=$(PRESET) $(PY) tools/build_book.py $(CHAPTERS)

test: env $(VENV)/.dev-installed
	MPLBACKEND=Agg $(PY) -m pytest

bench: env
	$(PY) bench/run_bench.py

mutants: env
	$(PY) tools/mutants.py

clean-cache:
	rm -rf .cache
