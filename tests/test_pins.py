"""Pinned outcomes of pre-registered predictions (qwem_lib.book.pins): a flip fails, whichever way."""

from __future__ import annotations

import json

import pytest

from qwem_lib.book import pins


@pytest.fixture
def pinfile(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_PRESET", "book")
    f = tmp_path / "pins.json"
    f.write_text(json.dumps({"a.held": {"book": True}, "a.failed": {"book": False, "paper": True}}))
    return f


def test_an_outcome_that_equals_its_pin_passes_and_a_flip_fails_either_way(pinfile):
    assert pins.judge("a.held", True, path=pinfile)[0]
    assert pins.judge("a.failed", False, path=pinfile)[0]
    ok, note = pins.judge("a.held", False, path=pinfile)
    assert not ok and "flipped" in note
    ok, note = pins.judge("a.failed", True, path=pinfile)
    assert not ok and "flipped" in note


def test_an_unpinned_outcome_is_recorded_and_says_so(pinfile, monkeypatch):
    ok, note = pins.judge("a.new", False, path=pinfile)
    assert ok and "not yet pinned" in note and "FAILED" in note
    monkeypatch.setenv("QWEM_PRESET", "smoke")  # pins are per preset
    assert pins.pinned("a.held", path=pinfile) is None
    assert pins.pinned("a.failed", "paper", path=pinfile) is True


def test_pin_records_pins_the_outcomes_of_a_records_file_and_of_a_paper_record(tmp_path, pinfile):
    rows = [
        {"id": "b.x", "preset": "paper", "value": {"difference": 1.0, "outcome": True}},
        {"id": "b.y", "preset": "paper", "value": 3.0},
    ]
    rec = tmp_path / "rec.json"
    rec.write_text(json.dumps({"chapter": "99", "claims": rows}))
    assert pins.pin_records(rec, "paper", path=pinfile) == {"b.x": True}
    assert pins.pinned("b.x", "paper", path=pinfile) is True
    assert pins.pinned("a.held", "book", path=pinfile) is True  # other pins kept
    rec.write_text(json.dumps(rows))
    with pytest.raises(ValueError, match="another preset"):
        pins.pin_records(rec, "book", path=pinfile)


def test_bad_pins_and_outcomes_are_refused(tmp_path, pinfile):
    with pytest.raises(TypeError, match="outcome"):
        pins.judge("a.held", 1, path=pinfile)  # type: ignore[arg-type]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"c": {"book": "yes"}}))
    with pytest.raises(ValueError, match="true or false"):
        pins.pinned("c", "book", path=bad)
    bad.write_text(json.dumps(["c"]))
    with pytest.raises(ValueError, match="claim ids"):
        pins.pinned("c", "book", path=bad)


def test_the_committed_pins_name_claims_that_chapters_record():
    """Every committed pin belongs to a claim some chapter or paper record writes (no orphan pins)."""
    from qwem_lib.book import config, report

    committed = report.load_records(config.REPO_ROOT / "reproduction" / "records")
    known = {c["id"] for c in committed} | {
        c["id"] for r in report.load_paper_records().values() for c in r["claims"]
    }
    for cid, by_preset in json.loads(pins.PINS_FILE.read_text()).items():
        assert set(by_preset) <= {"smoke", "book", "paper"}, cid
        if "book" in by_preset or "paper" in by_preset:
            assert cid in known, f"{cid} is pinned but no committed record has it"
