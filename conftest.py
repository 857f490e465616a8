"""pytest configuration shared by the unit tests and the nbval notebook run.

The notebooks run in kernels that inherit this process's environment, so the preset, the plotting
backend and the report folder are set here, before any kernel starts:
- QWEM_PRESET defaults to ``smoke`` (override: ``QWEM_PRESET=book make test``);
- claim records go to a temporary folder, so a test run never overwrites the book's records;
- figures use the non-interactive Agg backend.
"""

import os
import tempfile

import pytest

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
