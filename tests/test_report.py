import json

import pytest

from qwem_lib import report
from qwem_lib.book.report import KEYS, Report


@pytest.fixture
def records(monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path / "rec"))
    monkeypatch.setenv("QWEM_PRESET", "smoke")
    return tmp_path / "rec"


def test_close_records_and_passes(records):
    rep = Report("99_test", quiet=True)
    c = rep.close(
        "t.one",
        "one is about one",
        value=1.0 + 1e-9,
        target=1.0,
        tol=1e-6,
        paper=1.0,
        kind="finding",
    )
    assert c.passed
    rows = json.loads((records / "99_test.json").read_text())
    assert [r["id"] for r in rows] == ["t.one"]
    assert set(rows[0]) == set(KEYS) | {"versions"}
    assert rows[0]["preset"] == "smoke" and rows[0]["paper"] == 1.0


def test_failed_claim_is_recorded_then_raises(records):
    rep = Report("99_test", quiet=True)
    with pytest.raises(AssertionError, match="t.bad"):
        rep.close("t.bad", "two is one", value=2.0, target=1.0, tol=0.5, kind="finding")
    rows = json.loads((records / "99_test.json").read_text())
    assert rows[0]["passed"] is False


def test_relative_tolerance_and_bounds(records):
    rep = Report("99_test", quiet=True)
    rep.close("t.rel", "rel", value=101.0, target=100.0, tol=0.02, rel=True, kind="finding")
    with pytest.raises(AssertionError):
        rep.close("t.rel2", "rel", value=103.0, target=100.0, tol=0.02, rel=True, kind="finding")
    rep.below("t.below", "small", value=1e-12, bound=1e-10, kind="consistency")
    with pytest.raises(AssertionError):
        rep.above("t.above", "big", value=float("nan"), bound=0.0, kind="record")
    rep.ordered("t.ord", "ordered", names=["a", "b", "c"], values=[3, 2, 1], kind="finding")
    with pytest.raises(AssertionError):
        rep.ordered("t.ord2", "ordered", names=["a", "b"], values=[1, 2], kind="finding")


def test_duplicate_ids_rejected(records):
    rep = Report("99_test", quiet=True)
    rep.below("t.x", "x", value=0, bound=1, kind="consistency")
    with pytest.raises(ValueError, match="twice"):
        rep.below("t.x", "x", value=0, bound=1, kind="consistency")


def test_new_report_clears_old_records(records):
    Report("99_test", quiet=True).below("t.x", "x", value=0, bound=1, kind="consistency")
    Report("99_test", quiet=True)
    assert json.loads((records / "99_test.json").read_text()) == []


def test_numpy_values_are_serialised(records):
    import numpy as np

    rep = Report("99_test", quiet=True)
    rep.check("t.np", "numpy", value=np.array([1.5, 2.5]), passed=np.bool_(True), kind="record")
    rows = json.loads((records / "99_test.json").read_text())
    assert rows[0]["value"] == [1.5, 2.5]


def test_aggregate_writes_json_and_markdown(records, tmp_path):
    Report("98_a", quiet=True).close("a.x", "x", value=1, target=1, tol=0, kind="consistency")
    Report("99_b", quiet=True).close(
        "b.y", "y | with bar", value=2, target=2, tol=0, paper=2.1, kind="finding"
    )
    claims = report.aggregate(records, tmp_path / "out")
    assert [c["id"] for c in claims] == ["a.x", "b.y"]
    data = json.loads((tmp_path / "out" / "reproduction" / "claims.json").read_text())
    assert all(set(d) == set(KEYS) | {"versions"} for d in data) and all(d["passed"] for d in data)
    md = (tmp_path / "out" / "REPRODUCTION.md").read_text()
    assert "1 of 1 findings pass; so do 1 of 1 consistency checks and 0 of 0 pinned records" in md
    assert "reproduction/CLAIMS.md" in md and "### 99_b" not in md  # the claims have their own log
    log = (tmp_path / "out" / "reproduction" / "CLAIMS.md").read_text()
    assert "### 99_b" in log and "\\|" in log and "| `b.y` | finding |" in log
    assert "(../notebooks/99_b.ipynb)" in log and "(../REPRODUCTION.md)" in log


def test_readme_block_is_rewritten_between_its_markers_only(tmp_path):
    readme = tmp_path / "README.md"
    assert not report.update_readme(readme, ["x"])  # no README
    readme.write_text("# Title\n\nhand-written\n")
    assert not report.update_readme(readme, ["x"])  # no markers: left alone
    assert readme.read_text() == "# Title\n\nhand-written\n"
    text = f"top\n{report.README_BEGIN}\nold line\n{report.README_END}\nbottom\n"
    readme.write_text(text)
    assert report.update_readme(readme, ["new one", "new two"])
    assert readme.read_text() == (
        f"top\n{report.README_BEGIN}\nnew one\nnew two\n{report.README_END}\nbottom\n"
    )


def test_aggregate_rejects_ids_shared_between_chapters(records, tmp_path):
    Report("98_a", quiet=True).below("same.id", "x", value=0, bound=1, kind="consistency")
    Report("99_b", quiet=True).below("same.id", "x", value=0, bound=1, kind="consistency")
    with pytest.raises(ValueError, match="more than one chapter"):
        report.aggregate(records, tmp_path)


def test_bad_chapter_name():
    with pytest.raises(ValueError):
        Report("a/b", quiet=True)


def test_only_the_book_build_writes_committed_records(monkeypatch, tmp_path):
    from qwem_lib import config

    monkeypatch.delenv("QWEM_REPORT_DIR", raising=False)
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("QWEM_PRESET", "book")
    monkeypatch.delenv(config.BUILD_ENV, raising=False)
    # a reader running a chapter (JupyterLab, a script) at the default preset: into the cache
    assert report.records_dir() == tmp_path / "records-book"
    assert report.report_root() == tmp_path / "report-book"
    monkeypatch.setenv(config.BUILD_ENV, "1")
    assert report.records_dir() == config.REPO_ROOT / "reproduction" / "records"
    assert report.report_root() == config.REPO_ROOT
    monkeypatch.setenv("QWEM_PRESET", "smoke")
    assert report.records_dir() == tmp_path / "records-smoke"
    assert report.report_root() == tmp_path / "report-smoke"


def test_records_carry_the_versions(records, tmp_path):
    from qwem_lib import config

    Report("99_v", quiet=True).below("v.x", "x", value=0, bound=1, kind="consistency")
    (row,) = json.loads((records / "99_v.json").read_text())
    assert row["versions"] == config.package_versions()
    assert set(config.VERSIONED) | {"python", "blas"} == set(row["versions"])
    import numpy
    import torch

    assert row["versions"]["numpy"] == numpy.__version__
    assert row["versions"]["torch"] == torch.__version__
    claims = report.aggregate(records, tmp_path / "out")
    assert claims[0]["versions"] == row["versions"]
    md = (tmp_path / "out" / "reproduction" / "CLAIMS.md").read_text()
    assert f"Versions: python {row['versions']['python']}, numpy {numpy.__version__}" in md
    line = config.versions()
    assert "\n" not in line and f"numpy={numpy.__version__}" in line


def test_header_prints_the_versions(records, capsys):
    from qwem_lib import config

    Report("99_h")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"99_h: {config.describe()}" and out[1] == "versions: " + config.versions()


def _write_records_in_a_process(args):
    """One process of the concurrency test: many Report writes to one chapter's record."""
    directory, name, n = args
    import os

    os.environ["QWEM_REPORT_DIR"] = directory
    os.environ["QWEM_PRESET"] = "smoke"
    from qwem_lib.book.report import Report

    rep = Report(name, quiet=True)
    for i in range(n):
        rep.below(f"c.{i}", "x", value=0, bound=1, kind="consistency")
    return n


def test_two_processes_write_one_record_at_once(tmp_path):
    """Two builds of one chapter at once (issue 27): neither dies, and the file is always whole JSON."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(2) as pool:
        done = pool.map(_write_records_in_a_process, [(str(tmp_path), "99_c", 200)] * 2)
    assert done == [200, 200]
    rows = json.loads((tmp_path / "99_c.json").read_text())
    assert [r["id"] for r in rows] == [f"c.{i}" for i in range(200)]
    assert [p.name for p in tmp_path.iterdir()] == ["99_c.json"]  # no temporary file left behind


def test_kind_is_required_and_validated(records):
    rep = Report("99_test", quiet=True)
    with pytest.raises(TypeError):
        rep.below("t.nokind", "x", value=0, bound=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="kind must be one of"):
        rep.below("t.badkind", "x", value=0, bound=1, kind="evidence")
    assert json.loads((records / "99_test.json").read_text()) == []


def test_records_without_kind_are_refused(records, tmp_path):
    records.mkdir(parents=True, exist_ok=True)
    row = {k: None for k in KEYS if k != "kind"} | {
        "id": "old.claim",
        "chapter": "97_old",
        "passed": True,
    }
    (records / "97_old.json").write_text(json.dumps([row]))
    with pytest.raises(ValueError, match="lacks keys"):
        report.load_records(records)
    (records / "97_old.json").write_text(json.dumps([row | {"kind": "proof"}]))
    with pytest.raises(ValueError, match="has kind"):
        report.load_records(records)


def test_headline_counts_kinds_separately(records, tmp_path):
    rep = Report("99_b", quiet=True)
    rep.below("f.1", "x", value=0, bound=1, kind="finding")
    rep.below("c.1", "x", value=0, bound=1, kind="consistency")
    rep.below("c.2", "x", value=0, bound=1, kind="consistency")
    with pytest.raises(AssertionError):
        rep.below("f.2", "fails", value=2, bound=1, kind="finding")
    claims = report.load_records(records)
    assert report.tally(claims) == {"finding": (1, 2), "consistency": (2, 2), "record": (0, 0)}
    assert report.headline(claims).startswith("1 of 2 findings pass")


def test_prose_prints_outside_a_notebook(capsys):
    report.prose("The value is 3.")
    assert capsys.readouterr().out.strip() == "The value is 3."


def test_prediction_by_its_first_outcome(records):
    """A prediction that held is a finding that fails if it stops holding; one that failed is a pinned
    record that fails if it starts holding; one never run is recorded, whatever it shows."""
    rep = Report("99_test", quiet=True)
    held = rep.prediction("p.held", "P1", holds=True, value=1, outcome=True)
    failed = rep.prediction("p.failed", "P2", holds=False, value=2, outcome=False)
    new = rep.prediction("p.new", "P3", holds=False, value=3, outcome=None)
    assert (held.kind, failed.kind, new.kind) == ("finding", "record", "record")
    assert held.passed and failed.passed and new.passed
    assert "FAILS" in failed.statement and "first run" in new.statement
    with pytest.raises(AssertionError, match="p.stopped"):
        rep.prediction("p.stopped", "P4", holds=False, value=4, outcome=True)
    with pytest.raises(AssertionError, match="p.started"):
        rep.prediction("p.started", "P5", holds=True, value=5, outcome=False)


# -- the printed check lines (issue 44) ---------------------------------------------------------------
def _lines(capsys) -> list[str]:
    return capsys.readouterr().out.splitlines()


def test_check_line_is_short_and_rounded(records, capsys):
    rep = Report("99_test", quiet=True)
    statement = "a long statement " * 20
    rep.below("t.est", statement, value=0.5520183493460803, bound=4, kind="consistency")
    rep.close("t.near", "x", value=1.0 + 1e-9, target=1.0, tol=1e-6, kind="finding", paper=1.0)
    rep.close("t.wide", "x", value=0.613, target=0.61602, tol=0.01, kind="finding")
    rep.close("t.exact", "x", value=16_941_169, target=16_941_169, tol=0, kind="consistency")
    rep.ordered("t.ord", "x", names=["a", "b"], values=[0.31415926, 0.2], kind="finding")
    rep.check("t.gen", "x", value={"k": 0.123456}, passed=True, kind="record", tolerance="pinned")
    out = _lines(capsys)
    assert out == [
        "[PASS] consistency t.est: 0.552 (< 4)",
        "[PASS] finding t.near: 1, Δ = 1e-9 (|Δ| ≤ 1e-6); paper 1",
        "[PASS] finding t.wide: 0.613 (0.616 ± 0.01)",
        "[PASS] consistency t.exact: 16,941,169 (exactly 16,941,169)",
        "[PASS] finding t.ord: a 0.314 > b 0.2 (decreasing)",
        "[PASS] record t.gen: {k: 0.123} (pinned)",
    ]
    # the statement is not printed; the record keeps it whole, and the unrounded value
    rows = json.loads((records / "99_test.json").read_text())
    assert rows[0]["statement"] == statement and rows[0]["value"] == 0.5520183493460803
    assert all("outcome" not in r for r in rows)


def test_a_failed_prediction_is_never_marked_pass(records, capsys):
    rep = Report("99_test", quiet=True)
    rep.prediction("p.held", "P1", holds=True, value=0.97123, outcome=True)
    rep.prediction("p.failed", "P2", holds=False, value=-0.3812, outcome=False)
    rep.prediction("p.new", "P3", holds=False, value=3, outcome=None)
    rep.prediction("p.newheld", "P4", holds=True, value=4, outcome=None)
    with pytest.raises(AssertionError, match="no longer fails"):
        rep.prediction("p.started", "P5", holds=True, value=5, outcome=False)
    out = _lines(capsys)
    assert out[0] == "[PASS] finding p.held: 0.971 (the prediction holds)"
    assert out[1] == "[FAILS, pinned] record p.failed: -0.381 (the prediction fails, as pinned)"
    assert out[2] == "[FAILS, recorded] record p.new: 3 (first run, recorded)"
    assert out[3].startswith("[PASS] record p.newheld")
    assert out[4].startswith("[FAIL] record p.started") and "HOLDS" in out[4]
    assert not any(line.startswith("[PASS]") and "fail" in line.lower() for line in out)
    rows = {r["id"]: r for r in json.loads((records / "99_test.json").read_text())}
    assert rows["p.failed"]["outcome"] == "pinned failure" and rows["p.failed"]["passed"] is True
    assert rows["p.new"]["outcome"] == "fails" and rows["p.held"]["outcome"] == "holds"
    # the records stay readable by every consumer of the schema
    claims = report.load_records(records)
    assert {c["id"] for c in claims} == set(rows)


def test_outcome_is_validated(records):
    rep = Report("99_test", quiet=True)
    with pytest.raises(ValueError, match="outcome must be one of"):
        rep.check("t.o", "x", value=1, passed=True, kind="record", outcome="maybe")
    with pytest.raises(ValueError, match="pinned failure is a record"):
        rep.check("t.p", "x", value=1, passed=True, kind="finding", outcome="pinned failure")
    with pytest.raises(ValueError, match="outcome must be one of"):
        report.check_mark(True, "nope")
    assert report.check_mark(False, "pinned failure") == "FAIL"
    assert report.check_mark(True, None) == "PASS"


def test_aggregate_keeps_the_outcome(records, tmp_path):
    Report("99_b", quiet=True).prediction("p.f", "P", holds=False, value=1, outcome=False)
    Report("98_a", quiet=True).below("a.x", "x", value=0, bound=1, kind="consistency")
    report.aggregate(records, tmp_path / "out")
    data = {
        d["id"]: d
        for d in json.loads((tmp_path / "out" / "reproduction" / "claims.json").read_text())
    }
    assert data["p.f"]["outcome"] == "pinned failure" and "outcome" not in data["a.x"]


def test_paper_record_keeps_the_outcome(records, tmp_path):
    rep = Report("99_p", quiet=True)
    rep.prediction("p.f", "P", holds=False, value=1, outcome=False)
    rep.below("a.x", "x", value=0, bound=1, kind="consistency")
    rows = json.loads((records / "99_p.json").read_text())
    out = report.write_paper_record("99_p", rows, wall_s=1.0, executed=True, directory=tmp_path)
    got = report.load_paper_records(tmp_path)["99_p"]["claims"]
    assert out.is_file() and got[0]["outcome"] == "pinned failure" and "outcome" not in got[1]


def test_sig_and_short():
    from qwem_lib.book.formatting import short, sig

    assert [sig(x) for x in (0.5520183493460803, 3.2e-12, 12345.6, 19_544, 0.15, -0.38)] == [
        "0.552",
        "3.2e-12",
        "12,300",
        "19,544",
        "0.15",
        "-0.38",
    ]
    assert sig(float("nan")) == "nan" and sig(0.0) == "0" and sig(2.5e7) == "2.5e7"
    assert short({"a": 0.123456, "b": [1.23456, 2]}) == "{a: 0.123, b: [1.23, 2]}"
    assert len(short("x" * 100, 20)) == 20 and short(None) == "—"
    with pytest.raises(ValueError):
        sig(1.0, 0)
    with pytest.raises(ValueError):
        short(1.0, 3)


def test_a_pinned_prediction_that_failed_never_prints_as_a_pass(tmp_path, monkeypatch, capsys):
    """A claim whose value carries its outcome (qwem_lib.book.pins) shows a failed prediction as one."""
    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path))
    from qwem_lib.book.report import Report

    rep = Report("99_pins")
    rep.check("x.failed", "predicted > 0", value={"difference": -1.0, "outcome": False}, passed=True,
              kind="finding")  # fmt: skip
    rep.check("x.held", "predicted > 0", value={"difference": 1.0, "outcome": True}, passed=True,
              kind="finding")  # fmt: skip
    out = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[")]
    assert out[0].startswith("[FAILS, recorded]") and out[1].startswith("[PASS]")
    assert [c.outcome for c in rep.claims] == ["fails", "holds"]


def test_the_claim_log_withholds_the_exercises_answers():
    """A solution's claim (its id holds ".solution.") is counted in the log, never printed: its statement and
    value are the exercise's answer."""
    base = dict(
        chapter="99_demo", kind="record", paper=None, tolerance="> 0", preset="book", device="cpu"
    )
    shown = dict(base, id="x.one", statement="a claim", value=1.5, passed=True)
    answer = dict(
        base, id="x.solution.1.secret", statement="the answer is 42", value=42.0, passed=True
    )
    md = report.render_claims([shown, answer])
    assert "`x.one`" in md and "a claim" in md
    assert "x.solution.1.secret" not in md and "the answer is 42" not in md and "| 42 |" not in md
    assert "And 1 checks of the exercises' solutions (1 pass), not listed" in md
    assert report.is_solution(answer) and not report.is_solution(shown)


def test_found_lists_findings_and_predictions_with_their_word(records, capsys):
    rep = Report("99_found", quiet=True)
    rep.below("t.f", "a finding", value=0.01, bound=0.1, kind="finding")
    rep.close("t.c", "a consistency check", value=1.0, target=1.0, tol=1e-9, kind="consistency")
    rep.prediction("t.pin", "a pinned failure", holds=False, value=0.3, outcome=False)
    rep.prediction("t.new", "a first run", holds=True, value=0.5, outcome=None)
    rep.prediction("t.bad", "a first failure", holds=False, value=0.7, outcome=None)
    capsys.readouterr()
    lines = rep.found()
    assert lines[0].endswith("1 held, 2 failed, 1 open")
    words = [row.split()[0] for row in lines[1:-1]]
    assert words == ["held", "failed", "open", "failed"]
    assert "a pinned failure: 0.3" in lines[2] and "—" not in lines[2]
    assert lines[-1] == "  (and 1 consistency checks and records of the book's own values)"
    assert capsys.readouterr().out.splitlines() == lines


def test_found_with_labels_lists_those_claims_in_order_and_refuses_unknown_ids(records):
    rep = Report("99_found", quiet=True)
    rep.above("t.a", "first", value=2.0, bound=1.0, kind="finding")
    rep.above("t.b", "second", value=3.0, bound=1.0, kind="consistency")
    lines = rep.found({"t.b": "B", "t.a": "A"})
    assert [row.split()[1] for row in lines[1:]] == ["B:", "A:"]
    assert lines[1] == "  held    B: 3 (> 1)"
    with pytest.raises(ValueError, match="t.zzz"):
        rep.found({"t.zzz": "missing"})


# -- inputs, caches and faults ------------------------------------------------------------------


def test_relative_tolerance_is_relative_to_the_target(monkeypatch, tmp_path):
    from qwem_lib.book.report import Report

    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path))
    rep = Report("99_hard", quiet=True)
    rep.close("h.ok", "s", value=1.5, target=1.0, tol=0.6, rel=True, kind="record")
    with pytest.raises(AssertionError, match="h.bad"):  # |2 - 1| = 1 > 0.6 * |1|
        rep.close("h.bad", "s", value=2.0, target=1.0, tol=0.6, rel=True, kind="record")
