"""The library's docstring examples run, as written (``>>>`` lines and their printed results).

Every module of ``qwem_lib`` is imported and its doctests executed with NumPy's printing fixed, so an example
in a docstring is a test: a changed result, or an example that no longer runs, fails here. (The examples are
run by this file rather than by pytest's ``--doctest-modules``, which would also import the chapters'
sources under ``notebooks/`` as modules and so execute them.)
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import qwem_lib

MODULES = sorted(info.name for info in pkgutil.walk_packages(qwem_lib.__path__, prefix="qwem_lib."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    with np.printoptions(precision=6, suppress=True, legacy=False):
        result = doctest.testmod(
            module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
        )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"


def test_the_examples_exist():
    """The examples are not an empty promise: the library carries some, and the shared maths has them."""
    finder = doctest.DocTestFinder()
    counts = {
        name: sum(len(t.examples) for t in finder.find(importlib.import_module(name)))
        for name in MODULES
    }
    assert sum(counts.values()) >= 3, counts
    assert counts["qwem_lib.book.cache"] >= 3, counts
