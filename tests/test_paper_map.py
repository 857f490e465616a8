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
        "wording": False,
        "numbers": {"paper": "0.663", "book": "{claim:c.f}", "paper_preset": "not run"},
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
NYT = dict(
    verdict="not yet tested",
    evidence=[],
    test=[],
    planned="chapter 25",
    numbers={"paper": "0.663", "book": "not measured", "paper_preset": "not run"},
)
REDUCED = {"paper": "V = 10,000", "book": "V = 2,000", "match": "reduced"}


def test_a_sound_entry_passes():
    assert validate([_entry(paper_value={"svd": 0.663})], CL, SEEDS) == []
    assert validate([_entry(**NYT)], CL, SEEDS) == []
    # a quote in fragments, over two lines, and a list of quotes
    q = [
        {"seed": SEED, "line": 2, "text": "Theorem 1 … is a square"},
        {"seed": SEED, "line": [2, 3], "text": "square. third"},
    ]
    assert validate([_entry(quote=q, paper_value=0.663)], CL, SEEDS) == []
    # the amended protocol's verdicts, each with what it needs
    ok = dict(paper_value=0.663)
    assert validate([_entry(verdict="reproduced at reduced size", setting=REDUCED,
                            settle="V = 10,000", **ok)], CL, SEEDS) == []  # fmt: skip
    diff = "{claim:c.dict[svd(M*)]:.1%} against the paper's 66.3%"
    assert (
        validate([_entry(verdict="reproduced with differences", difference=diff, **ok)], CL) == []
    )
    unresolved = dict(verdict="not resolved", settle="V = 10,000", evidence=["c.r"],
                      test=[{"claim": "c.r", "null_or_control": "the rule stated beforehand"}])  # fmt: skip
    assert validate([_entry(**unresolved, **ok)], CL, SEEDS) == []
    q2 = {"seed": SEED, "line": 2, "text": "the loss is a square"}
    assert validate([_entry(wording=True, quote=q2, **ok)], CL, SEEDS) == []
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
        # (b) reduced size is not a difference; a difference is named and measured
        (
            _entry(verdict="reproduced at reduced size", setting=REDUCED),
            "must say in 'settle' which size or run would settle it",
        ),
        (
            _entry(verdict="reproduced at reduced size", settle="V = 10,000"),
            "needs a reduced setting",
        ),
        (_entry(verdict="reproduced with differences"), "must name the difference in 'difference'"),
        (
            _entry(verdict="reproduced with differences", difference="a smaller corpus"),
            "names no measured difference",
        ),
        # (c) tested and unresolved is not untested
        (_entry(**dict(NYT, why="measured {claim:c.f}, not resolved")), "a test ran"),
        (
            _entry(**dict(NYT, numbers={"paper": "p", "book": "{claim:c.f}", "paper_preset": "-"})),
            "a test ran",
        ),  # fmt: skip
        (
            _entry(**dict(NYT, test=[{"claim": "c.f", "null_or_control": "n"}])),
            "names a test that ran",
        ),
        (_entry(verdict="not resolved", evidence=[], test=[], settle="s"), "cites no finding"),
        (_entry(verdict="not resolved"), "must say in 'settle'"),
        (
            _entry(verdict="not resolved", settle="s", evidence=["c.c"], test=[]),
            "an unresolved test's",
        ),
        # where, wording, numbers
        (_entry(where="the summary's third bullet"), "where must name the place in the paper"),
        (_entry(wording="yes"), "wording must be true"),
        (
            _entry(wording=True, quote={"seed": "002_p.txt", "line": 1, "text": "x"}),
            "no quote is a summary's",
        ),  # fmt: skip
        (_entry(numbers={"paper": "p", "book": "b"}), "numbers must be"),
        (_entry(numbers={"paper": "", "book": "b", "paper_preset": "-"}), "numbers.paper must say"),
        (
            _entry(numbers={"paper": "p", "book": "{claim:c.f@paper}", "paper_preset": "-"}),
            "numbers.book cites a paper-preset value",
        ),  # fmt: skip
        (
            _entry(numbers={"paper": "p", "book": "b", "paper_preset": "{claim:c.f}"}),
            "numbers.paper_preset cites a book-preset value",
        ),  # fmt: skip
        (
            _entry(numbers={"paper": "p", "book": "{claim:c.zz}", "paper_preset": "-"}),
            "numbers.book: template names claim",
        ),  # fmt: skip
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


def test_templates_read_the_paper_records_and_only_current_findings_are_evidence():
    records = {"26_x": {"claims": [
        _claim("c.f", value=0.71), _claim("c.failed", value=0.2, passed=False),
        _claim("c.rec", kind="record", value=0.3)]}}  # fmt: skip
    tc = paper_map.template_claims(CL, records, drift={"26_x": 0})
    assert paper_map.render_text("{claim:c.f} at book, {claim:c.f@paper:.2f} at paper", tc) == (
        "0.5 at book, 0.71 at paper"
    )
    with pytest.raises(KeyError, match="paper preset"):
        paper_map.render_text("{claim:c.failed@paper}", tc)
    with pytest.raises(KeyError, match="paper preset"):
        paper_map.render_text("{claim:c.f@paper}", CL)
    why = _entry(paper_value=0.663, why="book {claim:c.f}, paper {claim:c.f@paper}")
    assert validate([why], tc, SEEDS) == []
    assert any("paper preset" in x for x in validate([why], CL, SEEDS))
    # (d) a paper-preset finding of a record executed from the current source (drift 0) is evidence at
    # the paper's size: it can make a verdict 'reproduced' although the book preset's setting is reduced
    at_paper = dict(
        evidence=["c.f", "c.f@paper"],
        test=[{"claim": "c.f@paper", "null_or_control": "a shuffled null"}],
        paper_value=0.663,
        setting=REDUCED,
    )
    assert validate([_entry(**at_paper)], tc, SEEDS) == []
    rec = dict(at_paper, evidence=["c.f", "c.rec@paper"], test=[{"claim": "c.rec@paper",
               "null_or_control": "n"}])  # fmt: skip
    assert any(
        "a paper-preset record claim; only findings" in x for x in validate([_entry(**rec)], tc)
    )
    # (a) the same record executed from an earlier version of the chapter is not evidence
    drifted = paper_map.template_claims(CL, records, drift={"26_x": 3})
    errors = validate([_entry(**at_paper)], drifted, SEEDS)
    assert any("earlier version of the chapter (3 code cells differ)" in x for x in errors), errors
    assert any("'reproduced' on evidence at a reduced setting" in x for x in errors), errors
    missing = paper_map.template_claims(CL, records, drift={})
    assert any("notebook is missing" in x for x in validate([_entry(**at_paper)], missing))
    # a drifted value may be shown (a template), marked, but it decides nothing
    shown = _entry(paper_value=0.663, numbers={"paper": "p", "book": "b",
                   "paper_preset": "{claim:c.f@paper}"})  # fmt: skip
    assert validate([shown], drifted, SEEDS) == []
    assert paper_map.number_cells(shown, drifted)[2] == "0.71 " + paper_map.DRIFTED_MARK
    assert paper_map.number_cells(shown, tc)[2] == "0.71"


def test_committed_records_get_their_drift_from_the_sources():
    recs = report.load_paper_records()
    tc = paper_map.template_claims([], recs)
    for ch in recs:
        n = report.paper_record_drift(ch)[0]
        assert all(c["drift"] == n for c in tc if c["chapter"] == ch)


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
    assert counts_sentence(es) == (
        "Of 3 statements of the papers: 1 reproduced, 0 reproduced at reduced size, 0 reproduced with "
        "differences, 2 contradicted, 0 not resolved and 0 not yet tested."
    )


def test_render_shows_the_protocol_fields():
    e = _entry(paper_value=0.663, why="value {claim:c.dict[svd(M*)]:.1%}")
    md = "\n".join(paper_map.render_map([e], CL))
    row = next(x for x in md.splitlines() if x.startswith("| [`p.1`]"))
    assert row.endswith("| **reproduced** | 0.663 | 0.5 | not run |")  # paper / book / paper preset
    assert "| paper | book preset | paper preset |" in md and "quoted from a critical summary" in md
    w = _entry(id="p.2", paper_value=0.663, wording=True, verdict="reproduced with differences",
               difference="{claim:c.f}")  # fmt: skip
    md2 = "\n".join(paper_map.render_map([w], CL))
    assert "**reproduced with differences** *(wording)*" in md2 and "* **Difference:** 0.5" in md2
    block = paper_map.readme_block([e, w], CL)
    assert block[0] == f"**{counts_sentence([e, w])}**"
    assert (
        "| [`p.2`](REPRODUCTION.md#p2) | Theorem 1 | **reproduced with differences** *(wording)* | "
        "0.663 | 0.5 | not run |" in block
    )
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
    """The README's generated block (between its markers) is what the map and the claims give now, and
    REPRODUCTION.md is not older than the map."""
    sentence = counts_sentence(load_map())
    readme = (config.REPO_ROOT / "README.md").read_text()
    text = (config.REPO_ROOT / "REPRODUCTION.md").read_text()
    assert sentence in text, (
        "REPRODUCTION.md is older than the map; run python -m qwem_lib.book.report"
    )
    if any(e["paper"] == "beyond" for e in load_map()):
        assert paper_map.beyond_sentence(load_map()) in text, (
            "REPRODUCTION.md is older than the map"
        )
    assert report.README_BEGIN in readme and report.README_END in readme, (
        "README.md lacks the generated verdict block's markers"
    )
    block = readme.split(report.README_BEGIN, 1)[1].split(report.README_END, 1)[0]
    claims = json.loads(CLAIMS.read_text())
    want = "\n".join(report.readme_summary(claims, load_map()))
    assert block.strip("\n") == want, (
        "README.md's verdict block is stale; run python -m qwem_lib.book.report"
    )


def test_readme_quotes_the_claim_counts():
    """The README's sentence on the evidence (findings, consistency checks, records) is generated inside its
    verdict block from the claims, not typed once and left behind when chapters are added."""
    claims = json.loads(CLAIMS.read_text())
    n = {k: sum(c["kind"] == k for c in claims) for k in ("finding", "consistency", "record")}
    sentence = report.evidence_sentence(claims)
    assert f"**{n['finding']} findings**" in sentence
    assert (
        f"{n['consistency']} consistency checks" in sentence
        and f"{n['record']} pinned records" in sentence
    )
    readme = (config.REPO_ROOT / "README.md").read_text()
    assert sentence in readme and "all pass" in sentence
    failed = [dict(claims[0], passed=False)] + claims[1:]
    assert "1 of the claims do not pass" in report.evidence_sentence(failed)


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
