"""Every chapter is a committed pair; the .py (jupytext percent format) is the source of truth.

A stale .ipynb — one whose cells differ from what its .py says — fails here, so CI catches an edit made
to one side only. (`jupytext --sync` is not used: it trusts modification times, which a git checkout
scrambles.) The fix for a failure is `python tools/build_book.py notebooks/NN_slug.py`.
"""

from pathlib import Path

import jupytext
import nbformat
import pytest

NB = Path(__file__).resolve().parent.parent / "notebooks"
PAIRS = sorted(NB.glob("[0-9][0-9]_*.py"))


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def test_there_are_chapters():
    assert PAIRS, "no chapters found in notebooks/"


def test_no_orphan_notebooks():
    orphans = [p.name for p in NB.glob("[0-9][0-9]_*.ipynb") if not p.with_suffix(".py").exists()]
    assert not orphans, f"notebooks without a .py source: {orphans}"


@pytest.mark.parametrize("py", PAIRS, ids=[p.stem for p in PAIRS])
def test_pair_in_sync(py: Path):
    ipynb = py.with_suffix(".ipynb")
    assert ipynb.exists(), f"{py.name} has no paired {ipynb.name}; run tools/build_book.py {py}"
    src = _cells(jupytext.read(py))
    nb = nbformat.read(ipynb, as_version=4)
    assert _cells(nb) == src, (
        f"{ipynb.name} is stale: its cells differ from {py.name} (the .py wins)"
    )


@pytest.mark.parametrize("py", PAIRS, ids=[p.stem for p in PAIRS])
def test_chapter_is_executed_and_percent_format(py: Path):
    text = py.read_text()
    assert "# %%" in text and "kernelspec" in text, (
        f"{py.name} must be jupytext percent format with a kernelspec"
    )
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code), (
        f"{py.stem}.ipynb is not fully executed; readers would see no outputs"
    )
    errors = [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors, f"{py.stem}.ipynb was committed with an error output"


@pytest.mark.parametrize("py", PAIRS, ids=[p.stem for p in PAIRS])
def test_chapter_uses_report_and_presets(py: Path):
    text = py.read_text()
    assert "Report(" in text, f"{py.name} records no claims"
    assert "config.sizes(" in text or "config.knobs(" in text, (
        f"{py.name} does not size itself through the presets"
    )
    assert "## Exercises" in text, f"{py.name} has no exercises"


@pytest.mark.parametrize("py", PAIRS, ids=[p.stem for p in PAIRS])
def test_figures_are_saved(py: Path):
    """A chapter that shows figures must carry them in its committed notebook (a run with MPLBACKEND=Agg
    saves none, and readers on GitHub would see no figure)."""
    shows = py.read_text().count("plt.show()")
    if not shows:
        return
    nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
    images = sum(
        1
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "image/png" in o.get("data", {})
    )
    assert images > 0, (
        f"{py.stem}.ipynb calls plt.show() {shows} times but saves no figure; re-run tools/build_book.py"
    )


def test_the_paper_preset_gets_a_longer_cell_timeout():
    """A paper-preset cell may train for more than an hour on one core (chapter 41's K = 1,000 runs): the
    build's default cell timeout scales with the preset instead of stopping it at nbclient's hour."""
    import sys

    sys.path.insert(0, str(NB.parent / "tools"))
    import build_book

    assert build_book.cell_timeout("book") == build_book.cell_timeout("smoke") == 3600
    assert build_book.cell_timeout("paper") >= 3 * 3600
