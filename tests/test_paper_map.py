"""The map of the papers' statements (reproduction/paper_claims.json) agrees with the recorded claims, and
the README quotes its counts. The validator itself is tested on small hand-made maps."""

from __future__ import annotations

import json
import re

import pytest

from qwem_lib import config, paper_map
from qwem_lib.book.paper_map import counts_sentence, load_map, validate, verdict_counts

CLAIMS = config.REPO_ROOT / "reproduction" / "claims.json"


def _claim(id, kind="finding", passed=True, paper=None):
    return {"id": id, "chapter": "99_x", "kind": kind, "passed": passed, "paper": paper}


def _entry(**kw):
    e = {
        "id": "p.1",
        "paper": "QWEM",
        "where": "Theorem 1",
        "statement": "s",
        "paper_value": None,
        "verdict": "reproduced",
        "evidence": ["c.f"],
        "why": "w",
        "planned": "",
    }
    e.update(kw)
    return e


CL = [
    _claim("c.f", paper=0.663),
    _claim("c.c", kind="consistency"),
    _claim("c.bad", passed=False),
    _claim("c.nopaper"),
]


def test_a_sound_entry_passes():
    assert validate([_entry(paper_value={"svd": 0.663})], CL) == []
    assert validate([_entry(verdict="not yet tested", evidence=[], planned="chapter 25")], CL) == []


@pytest.mark.parametrize(
    "entry, message",
    [
        (_entry(evidence=["c.missing"]), "no chapter records"),
        (_entry(evidence=["c.bad"]), "did not pass"),
        (_entry(evidence=["c.c"]), "only findings are evidence"),
        (_entry(evidence=[]), "cites no finding"),
        (_entry(verdict="contradicted", evidence=[]), "cites no finding"),
        (_entry(verdict="not yet tested", evidence=["c.f"], planned="x"), "cites evidence"),
        (_entry(verdict="not yet tested", evidence=[]), "must say in 'planned'"),
        (_entry(verdict="proved"), "verdict must be one of"),
        (_entry(paper="Other"), "paper must be one of"),
        (_entry(paper_value=0.66), "quotes the paper as 0.663"),
        (_entry(paper_value=None), "quotes the paper as 0.663"),
        ({"id": "p.2"}, "lacks fields"),
    ],
)
def test_each_defect_is_caught(entry, message):
    errors = validate([entry], CL)
    assert any(message in e for e in errors), errors


def test_duplicate_ids_are_caught():
    assert any("used twice" in e for e in validate([_entry(), _entry()], CL))


def test_counts():
    es = [
        _entry(),
        _entry(id="p.2", verdict="contradicted"),
        _entry(id="p.3", verdict="contradicted"),
    ]
    assert verdict_counts(es)["contradicted"] == 2
    assert counts_sentence(es).startswith(
        "Of 3 statements of the papers: 1 reproduced, 0 reproduced with"
    )


# -- the committed map ------------------------------------------------------------------------------
needs_map = pytest.mark.skipif(not paper_map.MAP_PATH.exists(), reason="no map committed yet")


@needs_map
def test_committed_map_agrees_with_the_committed_claims():
    errors = validate(load_map(), json.loads(CLAIMS.read_text()))
    assert not errors, "\n".join(errors)


@needs_map
def test_readme_and_report_quote_the_map_counts():
    sentence = counts_sentence(load_map())
    readme = (config.REPO_ROOT / "README.md").read_text()
    report = (config.REPO_ROOT / "REPRODUCTION.md").read_text()
    assert sentence in readme, f"README.md must quote the map's counts: {sentence!r}"
    assert sentence in report, (
        "REPRODUCTION.md is older than the map; run python -m qwem_lib.book.report"
    )


@needs_map
def test_map_covers_every_named_statement():
    ids = {e["id"] for e in load_map()}
    needed = {f"qwem.C{i}" for i in range(1, 9)}
    assert needed <= ids, f"missing entries: {sorted(needed - ids)}"
    assert any(re.match(r"fc\.thm[123]", i) for i in ids)
