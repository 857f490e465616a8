"""pytest configuration shared by the unit tests and the nbval notebook run.

The notebooks run in kernels that inherit this process's environment, so the preset, the plotting
backend and the report folder are set here, before any kernel starts:
- QWEM_PRESET defaults to ``smoke`` (override: ``QWEM_PRESET=book make test``);
- claim records go to a temporary folder, so a test run never overwrites the book's records;
- figures use the non-interactive Agg backend.

With ``QWEM_TREE_GUARD=1`` (CI sets it) the session also fails if it wrote anything in the working tree
outside the cache and data folders (:func:`tree_snapshot`; issue 27).
"""

import os
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
# Folders that running the book may write into: the default cache and data folders, the virtual
# environments, git's own. Python's bytecode (__pycache__/*.pyc, ignored by git) is not counted either.
WRITABLE = (".cache", "data", ".venv", ".venv-latest", ".git")
# hypothesis keeps its examples and constants under the book's cache, not in a `.hypothesis` at the top
os.environ.setdefault(
    "HYPOTHESIS_STORAGE_DIRECTORY",
    str(Path(os.environ.get("QWEM_CACHE_DIR") or ROOT / ".cache") / "hypothesis"),
)


def tree_snapshot(root: Path = ROOT) -> dict[str, tuple[int, int]]:
    """``{path: (size, mtime_ns)}`` of every file of the working tree outside :data:`WRITABLE`."""
    out: dict[str, tuple[int, int]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        if rel == Path("."):
            dirnames[:] = [d for d in dirnames if d not in WRITABLE]
        for f in filenames:
            p = Path(dirpath) / f
            if rel.name == "__pycache__" and f.endswith(".pyc"):
                continue
            try:
                st = p.lstat()
            except FileNotFoundError:  # removed while we walk
                continue
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def tree_changes(before: dict, after: dict) -> list[str]:
    """What changed between two snapshots, one line per file: added, removed or rewritten."""
    lines = [f"added     {p}" for p in sorted(after.keys() - before.keys())]
    lines += [f"removed   {p}" for p in sorted(before.keys() - after.keys())]
    lines += [
        f"rewritten {p}" for p in sorted(before.keys() & after.keys()) if before[p] != after[p]
    ]
    return lines


# `make test` runs the tests in parallel (pytest-xdist, one notebook or test file per worker at a time).
# Each worker — and every notebook kernel it starts, which inherits this environment — gets an equal
# share of the cores for its BLAS, OpenMP, torch and numba threads, so that the workers do not
# oversubscribe the machine. A thread count set by the caller is kept.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
if _WORKERS > 1:
    _share = str(max(1, (os.cpu_count() or 1) // _WORKERS))
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(_var, _share)

os.environ.setdefault("QWEM_PRESET", "smoke")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("QWEM_REPORT_DIR", tempfile.mkdtemp(prefix="qwem-records-"))


@pytest.fixture
def data_env(monkeypatch, tmp_path):
    """An empty, offline data directory and cache in ``tmp_path``; datasets registered by the test are
    removed afterwards. Yields ``tmp_path``."""
    from qwem_lib import data

    monkeypatch.setenv("QWEM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QWEM_OFFLINE", "1")
    data.files._VERIFIED.clear()
    before = dict(data.REGISTRY)
    yield tmp_path
    data.REGISTRY.clear()
    data.REGISTRY.update(before)


@pytest.fixture
def tiny(data_env):
    """A registered Zipfian corpus of 3,000 tokens over 14 words, in an empty data folder and cache
    (``data_env``)."""
    # tests/corpora.py: tests/ is on the path once the test module that asks for this fixture is imported
    from corpora import register_text, zipf_text

    from qwem_lib import data

    register_text(data_env, "hard_tiny", zipf_text())
    return data.load_corpus("hard_tiny")


def pytest_configure(config):
    """Plain ``pytest`` re-executes every notebook: nbval in lax mode, in this environment.

    Set here rather than in ``addopts`` so that ``pytest -p no:nbval tests/`` (unit tests only) still works.
    """
    if config.pluginmanager.hasplugin("nbval"):
        config.option.nbval_lax = True
        config.option.nbval_current_env = True
        if (
            not getattr(config.option, "nbval_cell_timeout", None)
            or config.option.nbval_cell_timeout == 2000
        ):
            config.option.nbval_cell_timeout = 900


_TREE_BEFORE: dict = {}


def _guarding() -> bool:
    """The tree guard runs in the controlling process (or the only one), not in xdist's workers: it
    snapshots the tree before any worker starts and after all have finished."""
    return os.environ.get("QWEM_TREE_GUARD") == "1" and "PYTEST_XDIST_WORKER" not in os.environ


def pytest_sessionstart(session):
    if _guarding():
        _TREE_BEFORE.update(tree_snapshot())


def pytest_sessionfinish(session, exitstatus):
    if not _guarding():
        return
    _TREE_CHANGED[:] = tree_changes(_TREE_BEFORE, tree_snapshot())
    if _TREE_CHANGED:
        session.exitstatus = 1


_TREE_CHANGED: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if _TREE_CHANGED:
        terminalreporter.section("QWEM_TREE_GUARD", red=True)
        terminalreporter.write_line(
            "the run wrote in the working tree outside the cache and data folders (this fails it):"
        )
        for line in _TREE_CHANGED:
            terminalreporter.write_line("  " + line)
