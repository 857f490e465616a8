# For readers:
#   make lab    set up .venv if needed, then open JupyterLab on the chapters (notebooks/)
# Two commands for a fresh Linux machine with Python 3.11+:
#   make book   set up .venv if needed, execute every chapter at the book preset, regenerate REPRODUCTION.md
#               (make book PRESET=paper CHAPTERS="23": chosen chapters at the paper preset, kept as records)
#   make test   set up .venv if needed, run the unit tests and re-execute every chapter at the smoke preset
#   make lint   ruff (lint + format check), mypy on qwem_lib, and the import contracts of pyproject.toml
# The environment (issue 27):
#   make env          .venv from requirements.lock: the tested versions, pinned with hashes (the default)
#   make env-latest   .venv-latest with the newest versions pyproject.toml allows (VENV_LATEST=.venv for yours)
#   make test-latest  the unit tests in .venv-latest (CI runs them too, to see an upstream change first)
#   make lock         regenerate requirements.lock and requirements-site.lock from pyproject.toml (pip-compile)
#   make site   render the committed notebooks (no execution) into the website _site/html/index.html
#   make site-test  build the site, then check it in headless Chromium (needs /usr/bin/chromium, chromedriver)
#   make student    the student edition: every chapter without its solutions, in _student/notebooks/
#   make pdf        the whole book as one PDF, _site/book.pdf (after make site; Chromium prints it, no TeX)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PRESET ?= book
CHAPTERS ?=
TEST_JOBS ?= 2
XDIST = $(if $(filter-out 0 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadfile)
VENV_LATEST ?= .venv-latest
PY_LATEST    = $(VENV_LATEST)/bin/python
LOCK        ?= requirements.lock
SITE_LOCK   ?= requirements-site.lock
DEV_LOCK    ?= requirements-dev.lock
# pip-compile's options for both locks: every file hashed; no index or wheel-folder lines (pip's own
# configuration says where packages come from); pip and setuptools pinned as well (--allow-unsafe)
COMPILE = --quiet --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links \
          --no-emit-trusted-host $(PIP_COMPILE_ARGS)

.PHONY: book test env env-latest test-latest lock lint format clean-cache bench mutants site site-test student pdf device-check

# The locked environment: exactly the pins of requirements.lock, each file checked against its hash, and
# nothing else (--no-deps: the lock is complete; `pip check` confirms it). The package itself is installed
# editable without build isolation, so its build uses the locked setuptools and downloads nothing.
$(VENV)/.installed: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m pip check
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	echo $(LOCK) > $@

# The newest versions pyproject.toml allows, resolved afresh at every call (torch stays at its pin), with the
# dev group (pinned) because tests/test_architecture.py reads the import graph with grimp (import-linter's).
env-latest:
	test -x $(PY_LATEST) || $(PYTHON) -m venv $(VENV_LATEST)
	$(PY_LATEST) -m pip install --quiet --upgrade --upgrade-strategy eager -e '.[dev]'
	$(PY_LATEST) -m pip check
	$(PY_LATEST) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (ipykernel)" >/dev/null
	echo latest > $(VENV_LATEST)/.installed

test-latest: env-latest
	MPLBACKEND=Agg QWEM_PRESET=smoke $(PY_LATEST) -m pytest -p no:nbval $(XDIST) tests

lock:
	test -x .venv-lock/bin/pip-compile || ($(PYTHON) -m venv .venv-lock && \
	  .venv-lock/bin/pip install --quiet pip-tools==7.6.2)
	.venv-lock/bin/pip-compile $(COMPILE) --output-file $(LOCK) pyproject.toml
	.venv-lock/bin/pip-compile $(COMPILE) --extra site --output-file $(SITE_LOCK) pyproject.toml
	.venv-lock/bin/pip-compile $(COMPILE) --extra dev --output-file $(DEV_LOCK) pyproject.toml

env: $(VENV)/.installed

# The website's stack (pyproject's optional group `site`) goes into the same .venv, only when asked for.
$(VENV)/.site-installed: $(VENV)/.installed pyproject.toml $(SITE_LOCK)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(SITE_LOCK)
	$(PY) -m pip check
	touch $@

# The maintainer's checks (pyproject's optional group `dev`): lint, format, types, the import contracts.
$(VENV)/.dev-installed: $(VENV)/.installed pyproject.toml $(DEV_LOCK)
	$(PY) -m pip install --quiet --require-hashes --no-deps -r $(DEV_LOCK)
	$(PY) -m pip check
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

student: env
	$(PY) tools/student_edition.py --out _student
	$(PY) -m pytest -q -p no:cacheprovider -p no:nbval tests/test_student_edition.py

pdf: site
	$(PY) website/pdf.py
	$(PY) -m pytest -q -p no:cacheprovider -p no:nbval website/test_pdf.py

# make book PRESET=paper CHAPTERS="23 24": chosen chapters at the paper preset, resumable; the executed
# notebooks go to reproduction/paper/, their claim records to reproduction/records-paper/ (commit both)
# make book COLD=1: each chapter from an empty cache, so that the time it records in reproduction/timings.json
# is the cold run time (without COLD a run records only a lower bound)
book: env
	QWEM_PRESET=$(PRESET) $(PY) tools/build_book.py $(if $(COLD),--cold) $(CHAPTERS)

# TEST_JOBS parallel workers (pytest-xdist): each takes a whole test file or notebook at a time (nbval runs
# a notebook's cells in order in one kernel), files with the most tests first; TEST_JOBS=1 runs in one process
test: env $(VENV)/.dev-installed
	MPLBACKEND=Agg $(PY) -m pytest $(XDIST)

bench: env
	$(PY) bench/run_bench.py

# Mutation testing (issue 45; not in CI: hours on 2 cores): mutmut on each core module in turn, then the
# hand-written semantic mutants; resumable; writes bench/mutation-report.md (commit it).
# make mutants MODULES="theory book.cache": some modules only (their dotted names below qwem_lib).
MODULES ?=
# The co-occurrence tests read the corpus that ships with the book; mutmut's copy of the tree has no
# data/shipped, so they read it from the shared data folder (as CI does) unless QWEM_DATA_DIR is set.
mutants: env $(VENV)/.dev-installed
	QWEM_DATA_DIR="$${QWEM_DATA_DIR:-$(abspath ../shared/data)}" nice -n 15 $(PY) tools/mutation.py $(MODULES)

# make device-check: the book on a lent GPU machine, one prepared run with no set-up there (no venv, no
# Jupyter: tools/device_check.py runs the CUDA tests, then chapter 25's paper preset by its own cell runner;
# README, "On a GPU"). DEVICE_OUT gets the executed notebook, the paper record and device_check.json;
# DEVICE_BUDGET is in minutes. make test runs the same script at its tiny size on the CPU.
DEVICE_OUT    ?= .cache/device-check
DEVICE_BUDGET ?= 8
device-check:
	$(PYTHON) tools/device_check.py --out $(DEVICE_OUT) --budget-min $(DEVICE_BUDGET) $(DEVICE_ARGS)

clean-cache:
	rm -rf .cache

# The reader's command (README, "Open the book"): the locked environment if it is not there yet, then
# JupyterLab on the chapters. QWEM_PRESET passes through (QWEM_PRESET=smoke make lab: toy sizes, offline).
.PHONY: lab
lab: env
	$(VENV)/bin/jupyter lab notebooks/
