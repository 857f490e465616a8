"""The paper-preset records (``make book PRESET=paper CHAPTERS=...``): every committed one is complete and
its claims passed; passes vacuously when none is committed. Also the writer and the report's paper column."""

from __future__ import annotations

import json

import nbformat
import pytest

from qwem_lib import config, report

RECORDS = sorted(report.PAPER_RECORDS.glob("*.json")) if report.PAPER_RECORDS.is_dir() else []


def test_every_committed_paper_record_is_complete_and_passed():
    for path in RECORDS:  # none committed: nothing to check
        check_record(path)


def check_record(path):
    rec = json.loads(path.read_text())
    missing = [k for k in report.PAPER_RECORD_KEYS if k not in rec]
    assert not missing, f"{path.name} lacks {missing}"
    assert rec["chapter"] == path.stem and rec["preset"] == "paper"
    assert rec["executed"], f"{path.name}: the chapter did not run to its end"
    assert rec["machine"] and rec["date"] and rec["device"] and rec["wall_s"] > 0
    assert rec["claims"], f"{path.name} records no claim"
    for c in rec["claims"]:
        assert not [k for k in report.KEYS if k not in c], c.get("id")
        assert c["kind"] in report.KINDS and c["preset"] == "paper", c["id"]
        assert c["passed"], f"{path.name}: claim {c['id']} failed at the paper preset"
    nb_path = report.PAPER_NOTEBOOKS / f"{path.stem}.ipynb"
    assert nb_path.exists(), f"no executed notebook {nb_path}"
    nb = nbformat.read(nb_path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(c.get("execution_count") for c in code if c.source.strip())
    assert not [o for c in code for o in c.get("outputs", []) if o.get("output_type") == "error"]


def test_paper_record_writer_and_report_column(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_PRESET", "paper")
    claim = dict(
        id="x.one", chapter="99_demo", kind="finding", statement="s", paper=1.0, value=1.01,
        tolerance=0.05, passed=True, preset="paper", device="cpu",
    )  # fmt: skip
    out = report.write_paper_record("99_demo", [claim], wall_s=1234.5, executed=True,
                                    directory=tmp_path)  # fmt: skip
    recs = report.load_paper_records(tmp_path)
    assert out.name == "99_demo.json" and recs["99_demo"]["wall_s"] == 1234.5
    assert recs["99_demo"]["preset"] == "paper" and recs["99_demo"]["machine"]
    book = dict(claim, value=0.9, preset="book")
    only_paper = dict(claim, id="x.two", value=7.0)
    recs["99_demo"]["claims"].append(only_paper)
    md = report.render_claims([book], recs)
    row = next(line for line in md.splitlines() if line.startswith("| `x.one`"))
    assert "| 0.9 |" in row and row.rstrip().endswith("| 1.01 | ✅ |")
    assert any(line.startswith("| `x.two`") and "| 7 |" in line for line in md.splitlines())
    assert "../reproduction/paper/99_demo.ipynb" in md
    # without paper records the table keeps its book-only shape
    assert "| paper preset |" not in report.render_claims([book])
    (tmp_path / "bad.json").write_text(json.dumps({"chapter": "bad"}))
    with pytest.raises(ValueError, match="lacks"):
        report.load_paper_records(tmp_path)
    assert config.preset() == "paper"


def test_drift_tells_a_record_of_the_current_source_from_an_older_one(tmp_path):
    """The report says when a paper record was executed from an earlier version of its chapter's code;
    compared with a hand-built pair: the same cells (0 of 2 code cells differ), one code cell edited (1),
    one added (1). Prose computes nothing: an edited markdown cell leaves the drift at 0, and the note
    says the prose is newer than the record."""
    import jupytext

    nbs, paper = tmp_path / "notebooks", tmp_path / "paper"
    nbs.mkdir()
    paper.mkdir()
    src = "# %% [markdown]\n# A chapter.\n\n# %%\nx = 1\n\n# %%\nprint(x)\n"
    (nbs / "99_demo.py").write_text(src)
    jupytext.write(jupytext.reads(src, fmt="py:percent"), paper / "99_demo.ipynb")
    where = dict(notebooks=nbs, paper=paper)
    assert report.paper_record_drift("99_demo", **where) == (0, 2)
    assert report.paper_record_prose_drift("99_demo", **where) == (0, 1)
    assert report.drift_note("99_demo", **where) == "Executed from the chapter's current source."
    (nbs / "99_demo.py").write_text(src.replace("A chapter.", "A chapter, renumbered."))
    assert report.paper_record_drift("99_demo", **where) == (0, 2)
    assert report.paper_record_prose_drift("99_demo", **where) == (1, 1)
    note = report.drift_note("99_demo", **where)
    assert "current code" in note and "prose was edited since in 1 cell " in note
    (nbs / "99_demo.py").write_text(src.replace("x = 1", "x = 2"))
    assert report.paper_record_drift("99_demo", **where) == (1, 2)
    note = report.drift_note("99_demo", **where)
    assert "earlier version" in note and "1 of its 2 code cells" in note
    (nbs / "99_demo.py").write_text(src + "\n# %%\nx + 1\n")
    assert report.paper_record_drift("99_demo", **where) == (1, 3)
    # a markdown cell added before the code moves no code cell: still the same computation
    (nbs / "99_demo.py").write_text("# %% [markdown]\n# Preface.\n\n" + src)
    assert report.paper_record_drift("99_demo", **where) == (0, 2)
    assert report.paper_record_prose_drift("99_demo", **where) == (2, 2)
    assert report.paper_record_drift("98_none", **where) == (-1, 0)
    assert report.paper_record_prose_drift("98_none", **where) == (-1, 0)


def test_report_says_which_committed_records_are_current():
    """The claim log carries, for each committed paper record, the sentence the current sources give."""
    text = (config.REPO_ROOT / report.CLAIMS_LOG).read_text(encoding="utf-8")
    for path in RECORDS:
        assert report.drift_note(path.stem) in text, path.stem
