"""The map of the papers' statements (reproduction/paper_claims.json) agrees with the recorded claims, and
the README quotes its counts. The validator itself is tested on small hand-made maps."""

from __future__ import annotations

import json
import re

import pytest

from qwem_lib import config, paper_map, report
from qwem_lib.book.paper_map import counts_sentence, load_map, validate, verdict_counts

CLAIMS = config.REPO_ROOT / "reproduction" / "claims.json"


SEED = "000_test.txt"
SEEDS = {
    SEED: ["first line", "Theorem 1 (proved). Under Setting 3.1 the loss is a square.", "third"]
}


def _claim(id, kind="finding", passed=True, paper=None, value=0.5):
    return {
        "id": id,
        "chapter": "99_x",
        "kind": kind,
        "passed": passed,
        "paper": paper,
        "value": value,
    }


def _entry(**kw):
    e = {
        "id": "p.1",
        "paper": "QWEM",
        "where": "Theorem 1",
        "statement": "s",
        "quote": {"seed": SEED, "line": 2, "text": "Under Setting 3.1 the loss is a square"},
        "setting": {"paper": "any W", "book": "random instances", "match": "mathematics"},
        "test": [{"claim": "c.f", "null_or_control": "a perturbed target fails it"}],
        "uncertainty": "round-off",
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
    _claim("c.r", kind="record"),
    _claim("c.bad", passed=False),
    _claim("c.nopaper"),
    _claim("c.dict", value={"svd(M*)": 0.514, "list": [0.1, 0.25]}),
]
NYT = dict(verdict="not yet tested", evidence=[], test=[], planned="chapter 25")


def test_a_sound_entry_passes():
    assert validate([_entry(paper_value={"svd": 0.663})], CL, SEEDS) == []
    assert validate([_entry(**NYT)], CL, SEEDS) == []
    # a quote in fragments, over two lines, and a list of quotes
    q = [
        {"seed": SEED, "line": 2, "text": "Theorem 1 … is a square"},
        {"seed": SEED, "line": [2, 3], "text": "square. third"},
    ]
    assert validate([_entry(quote=q, paper_value=0.663)], CL, SEEDS) == []
    # a contradiction at the paper's setting or by a trend is allowed
    for m in ("same", "trend", "mathematics"):
        st = {"paper": "p", "book": "b", "match": m}
        assert validate([_entry(verdict="contradicted", setting=st, paper_value=0.663)], CL) == []


@pytest.mark.parametrize(
    "entry, message",
    [
        (_entry(evidence=["c.missing"], test=[]), "no chapter records"),
        (_entry(evidence=["c.bad"], test=[]), "did not pass"),
        (_entry(evidence=["c.c"], test=[]), "a consistency claim; only findings are evidence"),
        (_entry(evidence=["c.r"], test=[]), "a record claim; only findings are evidence"),
        (_entry(evidence=[], test=[]), "cites no finding"),
        (_entry(verdict="contradicted", evidence=[], test=[]), "cites no finding"),
        (_entry(**dict(NYT, evidence=["c.nopaper"])), "cites evidence"),
        (_entry(**dict(NYT, planned="")), "must say in 'planned'"),
        (_entry(verdict="proved"), "verdict must be one of"),
        (_entry(paper="Other"), "paper must be one of"),
        (_entry(paper_value=0.66), "quotes the paper as 0.663"),
        (_entry(paper_value=None), "quotes the paper as 0.663"),
        ({"id": "p.2"}, "lacks fields"),
        (
            {k: v for k, v in _entry().items() if k not in ("quote", "uncertainty")},
            "lacks fields ['quote', 'uncertainty']",
        ),
        # the quote
        (
            _entry(quote={"seed": SEED, "line": 2, "text": "a fourth-order expansion"}),
            "not found at",
        ),
        (_entry(quote={"seed": SEED, "line": 1, "text": "Under Setting 3.1"}), "not found at"),
        (_entry(quote={"seed": SEED, "line": 2, "text": "square … Theorem 1"}), "not found at"),
        (_entry(quote={"seed": SEED, "line": 9, "text": "x"}), "which has 3 lines"),
        (_entry(quote={"seed": "001_other.txt", "line": 1, "text": "x"}), "not among the seeds"),
        (_entry(quote={"seed": "no.txt", "line": 1, "text": "x"}), "seed file name"),
        (_entry(quote={"seed": SEED, "text": "x"}), "a quote must be"),
        (_entry(quote={"seed": SEED, "line": 0, "text": "x"}), "line number or [first, last]"),
        (_entry(quote=[]), "at least one seed line"),
        # the setting
        (_entry(setting={"paper": "p", "book": "b"}), "setting must be"),
        (_entry(setting={"paper": "p", "book": "b", "match": "close"}), "match must be one of"),
        (_entry(setting={"paper": "", "book": "b", "match": "same"}), "must name the paper's"),
        # verdicts at a reduced setting
        (
            _entry(verdict="contradicted", setting={"paper": "p", "book": "b", "match": "reduced"}),
            "'contradicted' on evidence at a reduced setting",
        ),
        (
            _entry(
                verdict="contradicted", setting={"paper": "p", "book": "b", "match": "different"}
            ),
            "at a different setting without a trend",
        ),
        (
            _entry(setting={"paper": "p", "book": "b", "match": "reduced"}),
            "'reproduced' on evidence at a reduced setting",
        ),
        # the test
        (_entry(test=[]), "names no test"),
        (_entry(test=[{"claim": "c.f"}]), "each test must be"),
        (_entry(test=[{"claim": "c.f", "null_or_control": " "}]), "must name the null or control"),
        (
            _entry(test=[{"claim": "c.nopaper", "null_or_control": "n"}]),
            "which is not in its evidence",
        ),
        # the uncertainty and the templates
        (_entry(uncertainty=""), "uncertainty must say something"),
        (_entry(why="the value {claim:c.nothere}"), "no chapter records"),
        (_entry(why="the value {claim:c.dict[nokey]}"), "no such key"),
        (_entry(uncertainty="{claim:c.dict[svd(M*)]:d}"), "template"),
    ],
)
def test_each_defect_is_caught(entry, message):
    errors = validate([entry], CL, SEEDS)
    assert any(message in e for e in errors), errors


def test_quotes_are_not_checked_without_seeds_but_their_shape_is():
    bad_text = _entry(quote={"seed": SEED, "line": 2, "text": "not there"}, paper_value=0.663)
    assert validate([bad_text], CL) == []
    assert validate([bad_text], CL, SEEDS) != []
    assert any("a quote must be" in e for e in validate([_entry(quote="x")], CL))


def test_templates_render_recorded_values():
    text = "M* {claim:c.dict[svd(M*)]:.1%}, second {claim:c.dict[list][1]}, plain {claim:c.f}."
    assert paper_map.render_text(text, CL) == "M* 51.4%, second 0.25, plain 0.5."
    with pytest.raises(KeyError):
        paper_map.render_text("{claim:c.zzz}", CL)


def test_templates_read_the_paper_records_but_never_as_evidence():
    records = {"26_x": {"claims": [
        _claim("c.f", value=0.71), _claim("c.failed", value=0.2, passed=False)]}}  # fmt: skip
    tc = paper_map.template_claims(CL, records)
    assert paper_map.render_text("{claim:c.f} at book, {claim:c.f@paper:.2f} at paper", tc) == (
        "0.5 at book, 0.71 at paper"
    )
    with pytest.raises(KeyError, match="paper preset"):
        paper_map.render_text("{claim:c.failed@paper}", tc)
    with pytest.raises(KeyError, match="paper preset"):
        paper_map.render_text("{claim:c.f@paper}", CL)
    e = _entry(evidence=["c.f@paper"], test=[{"claim": "c.f@paper", "null_or_control": "x"}],
               paper_value=0.663)  # fmt: skip
    assert any("only findings are evidence" in x for x in validate([e], tc, SEEDS))
    why = _entry(paper_value=0.663, why="book {claim:c.f}, paper {claim:c.f@paper}")
    assert validate([why], tc, SEEDS) == []
    assert any("paper preset" in x for x in validate([why], CL, SEEDS))


def test_quote_source_names_whose_words():
    assert paper_map.quote_source({"seed": "000_a.txt", "line": 4, "text": "t"}).startswith(
        "the summary's words, seed 000 line 4"
    )
    assert "the paper's words" in paper_map.quote_source({"seed": "002_b.txt", "line": [3, 4]})


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


def test_render_shows_the_protocol_fields():
    e = _entry(paper_value=0.663, why="value {claim:c.dict[svd(M*)]:.1%}")
    md = "\n".join(paper_map.render_map([e], CL))
    for part in (
        "the summary's words, seed 000 line 2",
        "**Setting** (mathematics)",
        "*null / control:* a perturbed target fails it",
        "**Uncertainty:** round-off",
        "value 51.4%",
    ):
        assert part in md, part


# -- beyond the papers: the book's own predictions ---------------------------------------------------
def _beyond(**kw):
    e = _entry(
        id="beyond.x.P1",
        paper="beyond",
        where="chapter 52, prediction P1",
        statement="the model ends on the top eigenspace",
        quote=[],
        setting={"paper": "none: the book's own prediction", "book": "chapter 52", "match": "none"},
        verdict="prediction confirmed",
    )
    e.update(kw)
    return e


CLB = CL + [_claim("c.miss", kind="record")]
BOTH = dict(
    evidence=["c.nopaper", "c.miss"],
    test=[
        {"claim": "c.nopaper", "null_or_control": "a shuffled null"},
        {"claim": "c.miss", "null_or_control": "the threshold stated beforehand"},
    ],
)


def test_sound_predictions_pass():
    assert validate([_beyond(evidence=["c.nopaper"], test=BOTH["test"][:1])], CLB, SEEDS) == []
    assert validate([_beyond(verdict="prediction partly confirmed", **BOTH)], CLB, SEEDS) == []
    failed = _beyond(
        verdict="prediction failed",
        evidence=["c.miss"],
        test=[{"claim": "c.miss", "null_or_control": "n"}],
    )
    assert validate([failed], CLB, SEEDS) == []
    # a prediction may quote a seed line where one is relevant; it is checked like any quote
    q = {"seed": SEED, "line": 2, "text": "the loss is a square"}
    assert validate([_beyond(quote=q, paper_value=0.663)], CLB, SEEDS) == []
    bad = {"seed": SEED, "line": 2, "text": "a cube"}
    assert any("not found at" in e for e in validate([_beyond(quote=bad)], CLB, SEEDS))


@pytest.mark.parametrize(
    "entry, message",
    [
        (_beyond(verdict="reproduced"), "verdict must be one of ('prediction confirmed'"),
        (_entry(verdict="prediction confirmed"), "verdict must be one of ('reproduced'"),
        (_beyond(setting={"paper": "p", "book": "b", "match": "same"}), "match must be 'none'"),
        (_entry(setting={"paper": "p", "book": "b", "match": "none"}), "match must be one of"),
        (_entry(quote=[]), "at least one seed line"),
        (_beyond(**BOTH), "'prediction confirmed' but cites records"),
        (
            _beyond(verdict="prediction partly confirmed", evidence=["c.nopaper"], test=[]),
            "needs a finding that held and a record",
        ),
        (
            _beyond(verdict="prediction partly confirmed", evidence=["c.miss"], test=[]),
            "needs a finding that held and a record",
        ),
        (_beyond(verdict="prediction failed"), "cites no record of the miss"),
        (_beyond(evidence=["c.c"], test=[]), "a consistency claim; a prediction's evidence"),
        (_beyond(evidence=["c.bad"], test=[]), "did not pass"),
        (_beyond(evidence=[], test=[]), "cites no finding"),
        (_beyond(test=[]), "names no test"),
        (_beyond(why="{claim:c.zzz}"), "no chapter records"),
        (_entry(evidence=["c.miss"], test=[]), "a record claim; only findings are evidence"),
    ],
)
def test_each_defect_of_a_prediction_is_caught(entry, message):
    errors = validate([entry], CLB, SEEDS)
    assert any(message in e for e in errors), errors


def test_predictions_are_not_counted_among_the_papers_statements():
    es = [_entry(), _beyond(), _beyond(id="beyond.x.P2", verdict="prediction failed")]
    assert counts_sentence(es).startswith("Of 1 statements of the papers: 1 reproduced")
    assert sum(verdict_counts(es).values()) == 1
    assert paper_map.beyond_sentence(es) == (
        "Beyond the papers, 2 predictions of the book's own: 1 confirmed, 0 partly confirmed, 1 failed."
    )
    md = "\n".join(paper_map.render_map(es, CLB))
    head = md.index("### Beyond the papers")
    assert "#### beyond.x.P1" in md[head:] and "#### p.1" in md[:head]
    assert "*Prediction (chapter 52, prediction P1):* the model ends on the top eigenspace" in md


# -- the committed map ------------------------------------------------------------------------------
needs_map = pytest.mark.skipif(not paper_map.MAP_PATH.exists(), reason="no map committed yet")


@needs_map
def test_committed_map_agrees_with_the_committed_claims():
    claims = paper_map.template_claims(json.loads(CLAIMS.read_text()), report.load_paper_records())
    errors = validate(load_map(), claims, paper_map.load_seeds())
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
    if any(e["paper"] == "beyond" for e in load_map()):
        beyond = paper_map.beyond_sentence(load_map())
        assert beyond in readme, f"README.md must quote the predictions' counts: {beyond!r}"
        assert beyond in report, "REPRODUCTION.md is older than the map"


def test_readme_quotes_the_claim_counts():
    """The README's sentence on the evidence (findings, consistency checks, records) is the report's
    count, not a number typed once and left behind when chapters are added."""
    from qwem_lib.book.report import tally

    t = tally(json.loads(CLAIMS.read_text()))
    readme = " ".join((config.REPO_ROOT / "README.md").read_text().split())
    sentence = (
        f"Behind it, **{t['finding'][1]} findings** — claims that could come out otherwise if a paper or the "
        f"mathematics were wrong — all pass at the `book` preset, beside {t['consistency'][1]} consistency "
        f"checks of the code and {t['record'][1]} pinned records"
    )
    assert sentence in readme, f"README.md must say: {sentence!r}"


@needs_map
def test_map_covers_every_named_statement():
    ids = {e["id"] for e in load_map()}
    needed = {f"qwem.C{i}" for i in range(1, 9)}
    assert all(e["paper"] != "beyond" for e in load_map() if e["id"] in needed)
    assert needed <= ids, f"missing entries: {sorted(needed - ids)}"
    assert any(re.match(r"fc\.thm[123]", i) for i in ids)


@needs_map
@pytest.mark.skipif(paper_map.load_seeds() is None, reason="the seed texts are not available")
def test_every_quote_is_found_in_the_seeds():
    seeds = paper_map.load_seeds()
    errors = [e for e in validate(load_map(), [], seeds) if "quote" in e]
    assert not errors, "\n".join(errors)
