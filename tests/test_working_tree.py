"""A reader cannot damage the book (issue 27): running a chapter, the tests or the benchmark writes nothing in
the working tree outside the cache and data folders, and a chapter run by hand leaves its committed record
intact (only ``tools/build_book.py`` writes the committed records)."""

from __future__ import annotations

import os
import subprocess
import sys

import jupytext
import pytest

from conftest import ROOT, tree_changes, tree_snapshot
from qwem_lib import config


def _reader_env(tmp_path, **extra) -> dict[str, str]:
    """The environment of a reader: no report folder or build flag of the tests', a cache of its own."""
    env = {k: v for k, v in os.environ.items() if k not in ("QWEM_REPORT_DIR", config.BUILD_ENV)}
    env.update(QWEM_CACHE_DIR=str(tmp_path / "cache"), MPLBACKEND="Agg", **extra)
    env.pop("NUMBA_CACHE_DIR", None)  # as a reader has it: the library chooses (under the cache)
    return env


def _first_code_cell(chapter: str) -> str:
    nb = jupytext.read(ROOT / "notebooks" / f"{chapter}.py")
    return next(c.source for c in nb.cells if c.cell_type == "code")


def test_first_cell_outside_the_build_leaves_the_committed_record_intact(tmp_path):
    chapter = "00_introduction"
    record = ROOT / "reproduction" / "records" / f"{chapter}.json"
    before_bytes, before_stat = record.read_bytes(), record.stat().st_mtime_ns
    cell = _first_code_cell(chapter)
    assert f'Report("{chapter}")' in cell
    env = _reader_env(tmp_path)
    env.pop("QWEM_PRESET", None)  # JupyterLab's default: the book preset, as the committed record
    tree = tree_snapshot()
    run = subprocess.run(
        [sys.executable, "-c", cell],
        cwd=ROOT / "notebooks",
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert record.read_bytes() == before_bytes and record.stat().st_mtime_ns == before_stat
    assert (tmp_path / "cache" / "records-book" / f"{chapter}.json").read_text().strip() == "[]"
    assert (
        run.stdout.splitlines()[1] == "versions: " + config.versions()
    )  # the header's second line
    assert tree_changes(tree, tree_snapshot()) == []


def test_chapter_tests_and_benchmark_write_only_cache_and_data(tmp_path):
    """A smoke chapter through the build, a few unit-test files and the benchmark's quick mode."""
    env = _reader_env(tmp_path, QWEM_PRESET="smoke", OMP_NUM_THREADS="1")
    tree = tree_snapshot()
    steps = {
        "chapter": [sys.executable, "tools/build_book.py", "notebooks/00_introduction.py"],
        "unit tests": [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:nbval",
            "tests/test_report.py",
            "tests/test_config.py",
        ],
        "benchmark": [sys.executable, "bench/run_bench.py", "--quick", "--threads", "1"],
    }
    for what, cmd in steps.items():
        run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        assert run.returncode == 0, f"{what} failed:\n{run.stdout[-1500:]}\n{run.stderr[-1500:]}"
        changed = tree_changes(tree, tree_snapshot())
        assert changed == [], f"{what} wrote outside the cache and data folders:\n" + "\n".join(
            changed
        )
    assert (tmp_path / "cache" / "bench" / "enwiki2015_1m7-V1000-d50.json").exists()
    assert (tmp_path / "cache" / "report-smoke" / "REPRODUCTION.md").exists()


@pytest.mark.parametrize("name", ["REPRODUCTION.md", "reproduction/claims.json"])
def test_the_report_outside_the_build_goes_to_the_cache(tmp_path, monkeypatch, name):
    from qwem_lib import report

    monkeypatch.delenv(config.BUILD_ENV, raising=False)
    monkeypatch.setenv("QWEM_PRESET", "book")
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    assert report.report_root() == tmp_path / "report-book"
    assert not str(report.report_root() / name).startswith(str(ROOT / name))
