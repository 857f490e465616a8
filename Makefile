# Two commands for a fresh Linux machine with Python 3.11+:
#   make book   set up .venv if needed, execute every chapter at the book preset, regenerate REPRODUCTION.md
#   make test   set up .venv if needed, run the unit tests and re-execute every chapter at the smoke preset
#   make site   render the committed notebooks (no execution) into the website _site/html/index.html
#   make site-test  build the site, then check it in headless Chromium (needs /usr/bin/chromium, chromedriver)
#   make student    the student edition: every chapter without its solutions, in _student/notebooks/
#   make pdf        the whole book as one PDF, _site/book.pdf (after make site; Chromium prints it, no TeX)
PYTHON ?= python3
VENV   ?= .venv
PY      = $(VENV)/bin/python
PRESET ?= book

.PHONY: book test env clean-cache bench mutants site site-test student pdf

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

book: env
	QWEM_PRESET=$(PRESET) $(PY) tools/build_book.py

test: env
	MPLBACKEND=Agg $(PY) -m pytest

bench: env
	$(PY) bench/run_bench.py

mutants: env
	$(PY) tools/mutants.py

clean-cache:
	rm -rf .cache
