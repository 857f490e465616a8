"""The README's chapter table and INSTRUCTORS.md's course plan are generated (tools/reader_tables.py,
issue 44): from the chapters' headings, the notebooks' reading times and reproduction/timings.json."""

import sys

import pytest

from qwem_lib.book import config

sys.path.insert(0, str(config.REPO_ROOT / "tools"))
import reader_tables as rt  # noqa: E402


def test_generated_blocks_are_current():
    assert rt.main(["--check"]) == 0, "run python tools/reader_tables.py"


def test_every_chapter_is_in_the_table_and_the_course():
    readme = (config.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    i, j = rt._block(readme, "chapters")
    summaries = rt.readme_summaries(readme[i:j])
    numbers = [c.number for c in rt.contents.chapters()]
    assert list(summaries) == numbers and all(summaries.values()), "every chapter has a summary"
    course = [n for s in rt.COURSE for n in s.core + s.optional]
    assert sorted(course) == numbers


def test_cold_times_read_and_sum():
    t = {
        "machine": "m",
        "measured": "d",
        "data": {
            "17M": {"dataset": "a", "download_mb": 100},
            "70M": {"dataset": "b", "download_mb": 420},
        },
        "groups": {"g": {"chapters": ["00", "10"], "cold_min": 4, "relation": "~"}},
        "chapters": {
            "00": {"group": "g", "data": ["17M"]},
            "10": {"group": "g", "data": []},
            "20": {"cold_min": 19.5, "relation": "=", "data": ["70M", "17M"]},
            "23": {"cold_min": 53, "relation": ">=", "data": []},
            "46": {"cold_min": 1.7, "relation": "<", "data": []},
            "50": {"cold_min": None, "data": []},
        },
    }
    assert rt.cold_text(t, "00") == "~4 for 00–10"
    assert [rt.cold_text(t, n) for n in ("20", "23", "46", "50")] == [
        "20",
        "≥ 53",
        "< 1.7",
        "not measured",
    ]
    assert rt.cold_sum(t, ("00", "10")) == "~4"  # a group counts once
    assert rt.cold_sum(t, ("00", "20")) == "~24"
    assert rt.cold_sum(t, ("20", "23")) == "≥ 72"
    assert rt.cold_sum(t, ("46",)) == "< 1.7"
    assert rt.cold_sum(t, ("50",)) == "not measured"
    assert rt.cold_sum(t, ("20", "50")) == "≥ 20"
    assert rt.data_text(t, ["20"]) == "17M + 70M (520 MB)" and rt.data_text(t, ["23"]) == "none"


def test_a_stale_table_is_found(tmp_path, monkeypatch):
    readme = tmp_path / "README.md"
    text = (config.REPO_ROOT / "README.md").read_text(encoding="utf-8")
    readme.write_text(text.replace("| 26 |", "| 26 | stale |", 1), encoding="utf-8")
    instructors = tmp_path / "INSTRUCTORS.md"
    instructors.write_text((config.REPO_ROOT / "INSTRUCTORS.md").read_text(encoding="utf-8"))
    monkeypatch.setattr(rt, "README", readme)
    monkeypatch.setattr(rt, "INSTRUCTORS", instructors)
    assert rt.main(["--check"]) == 1
    with pytest.raises(ValueError, match="no <!-- x:begin -->"):
        rt._block("text", "x")


def _timings():
    return {
        "about": "a",
        "data": {
            "17M": {"dataset": "enwiki2015_17m", "download_mb": 100},
            "70M": {"dataset": "enwiki2015_70m", "download_mb": 420},
        },
        "groups": {"g": {"chapters": ["10", "11"], "cold_min": 4, "relation": "~"}},
        "chapters": {
            "10": {"group": "g", "data": []},
            "20": {"cold_min": 4.0, "relation": "=", "data": ["17M"]},
            "21": {"cold_min": None, "data": []},
            "22": {"cold_min": 3.0, "relation": ">=", "data": [], "note": "n"},
        },
    }


def test_a_cold_run_replaces_the_entry_and_its_data():
    t = _timings()
    sets = {
        "enwiki2015_70m",
        "enwiki2015_17m",
        "google_analogy",
    }  # shipped sets are not data to get
    assert rt.record_run(t, "20", 5.04, cold=True, datasets=sets, when="d", machine="m")
    assert t["chapters"]["20"] == {
        "cold_min": 5.0,
        "relation": "=",
        "data": ["17M", "70M"],
        "measured": "d, m, cold",
    }
    assert not rt.record_run(t, "10", 9.0, cold=True, datasets=set(), when="d", machine="m")


def test_a_warm_run_only_raises_a_lower_bound():
    t = _timings()
    # a measured time is never replaced by a warm run's lower bound
    assert not rt.record_run(t, "20", 9.0, cold=False, datasets=set(), when="d", machine="m")
    # an unmeasured chapter gets the lower bound; a larger bound replaces a smaller one, not the reverse
    assert rt.record_run(t, "21", 2.0, cold=False, datasets=set(), when="d", machine="m")
    assert t["chapters"]["21"]["relation"] == ">=" and t["chapters"]["21"]["cold_min"] == 2.0
    assert not rt.record_run(t, "22", 2.0, cold=False, datasets=set(), when="d", machine="m")
    assert rt.record_run(t, "22", 7.0, cold=False, datasets=set(), when="d", machine="m")
    assert t["chapters"]["22"]["cold_min"] == 7.0 and "note" not in t["chapters"]["22"]
    assert rt.cold_text(t, "22") == "≥ 7"


def test_timings_are_written_back_as_read(tmp_path):
    t = rt.load_timings()
    out = tmp_path / "t.json"
    rt.save_timings(t, out)
    assert out.read_text(encoding="utf-8") == rt.TIMINGS.read_text(encoding="utf-8")


def test_fetch_logs_the_datasets_it_is_asked_for(monkeypatch, tmp_path):
    from qwem_lib import data

    log = tmp_path / "log"
    monkeypatch.setenv("QWEM_DATA_LOG", str(log))
    data.fetch("enwiki2015_1m7")
    assert log.read_text(encoding="utf-8").split() == ["enwiki2015_1m7"]


def test_chapters_over_the_budget_are_named():
    t = _timings()
    t["chapters"]["21"] = {"cold_min": 15.5, "relation": ">=", "data": []}
    t["chapters"]["20"]["cold_min"] = 15.0  # at the budget: within it
    assert rt.over_budget(t) == ["21"]
    assert rt.BUDGET_MIN == 15


def test_every_exercise_is_labelled_by_kind_and_difficulty():
    """Every exercise of every chapter opens with its kind and difficulty, which the course plan reads."""
    for c in rt.contents.chapters():
        labels = rt.exercise_labels(c.stem)
        assert labels, f"{c.stem} has no exercises"
        assert all(k in rt.KINDS and 1 <= stars <= 3 for k, stars in labels), (c.stem, labels)
    plan = (config.REPO_ROOT / "INSTRUCTORS.md").read_text(encoding="utf-8")
    kind, stars = rt.exercise_labels("11_weighted_factorisation")[0]
    assert f"11.1 ({kind}, {'★' * stars})" in plan


def test_an_unlabelled_or_unknown_exercise_is_refused(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    monkeypatch.setattr(rt, "ROOT", tmp_path)
    text = (
        "# ## Exercises\n#\n# 1. *(derive, ★★)* Show it.\n# 2. {}Compute it.\n#\n# ## Solutions\n"
    )
    page = tmp_path / "notebooks" / "99_demo.py"
    page.write_text(text.format("*(compute, ★)* "), encoding="utf-8")
    assert rt.exercise_labels("99_demo") == [("derive", 2), ("compute", 1)]
    assert rt.exercise_count("99_demo") == 2
    page.write_text(text.format(""), encoding="utf-8")
    with pytest.raises(ValueError, match="opens with"):
        rt.exercise_labels("99_demo")
    page.write_text(text.format("*(guess, ★)* "), encoding="utf-8")
    with pytest.raises(ValueError, match="unknown exercise kinds"):
        rt.exercise_labels("99_demo")
