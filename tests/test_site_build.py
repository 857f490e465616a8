"""The website's staging (website/build.py), without Sphinx: new chapters are picked up and filed by part,
README's chapter table becomes the chapter map, and chapters are linked to the library they use.

The rendering and the browser checks are `make site-test` (website/test_site.py), outside `make test`.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location(
    "qwem_site_build_for_tests", ROOT / "website" / "build.py"
)
build = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = build
_spec.loader.exec_module(build)


def _notebook(path: Path, cells: list[tuple[str, str]]) -> None:
    nb = {
        "cells": [
            {
                "cell_type": t,
                "metadata": {},
                "source": s,
                **({"outputs": [], "execution_count": None} if t == "code" else {}),
            }
            for t, s in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path.write_text(json.dumps(nb))


@pytest.fixture
def book(tmp_path):
    (tmp_path / "notebooks").mkdir()
    for name in [
        "44_fc_new.ipynb",
        "00_intro.ipynb",
        "31_linear.ipynb",
        "draft.ipynb",
        "7_bad.ipynb",
    ]:
        _notebook(
            tmp_path / "notebooks" / name,
            [("markdown", f"# {name[:2]} · Title of {name}\n\nText.")],
        )
    return tmp_path


def test_chapters_found_by_number_and_filed_by_part(book):
    chapters = build.find_chapters(book)
    assert [c.stem for c in chapters] == ["00_intro", "31_linear", "44_fc_new"]
    assert [build.part_of(c) for c in chapters] == [
        "Introduction",
        "Linear structure",
        "Feature collapse",
    ]


def test_unknown_part_digit_gets_a_generic_name(tmp_path):
    (tmp_path / "notebooks").mkdir()
    _notebook(tmp_path / "notebooks" / "90_appendix.ipynb", [("markdown", "# Appendix")])
    assert build.part_of(build.find_chapters(tmp_path)[0]) == "Part 9"


def test_no_chapter_is_an_error(tmp_path):
    (tmp_path / "notebooks").mkdir()
    with pytest.raises(SystemExit):
        build.find_chapters(tmp_path)


def test_index_replaces_readme_table_by_the_chapter_map(book):
    chapters = build.find_chapters(book)
    for c in chapters:
        c.title = f"Title {c.number}"
    readme = (
        "# Book\n\nIntro.\n\n## Chapters\n\n| | chapter | result |\n|---|---|---|\n"
        "| 00 | [Intro](notebooks/00_intro.ipynb) | old row |\n\nAfter the table.\n\n## Next\n\nMore.\n"
    )
    index = build.stage_index(readme, chapters, ["REPRODUCTION"])
    assert "old row" not in index
    assert "After the table." in index and "## Next" in index and "Intro." in index
    for digit, name in [
        ("0", "Introduction"),
        ("3", "Linear structure"),
        ("4", "Feature collapse"),
    ]:
        assert f"### Part {digit} · {name}" in index
        assert f":caption: {digit} · {name}" in index
    assert "notebooks/31_linear\n" in index and "[Title 44](notebooks/44_fc_new.ipynb)" in index
    assert index.rstrip().endswith("REPRODUCTION\napi/index\n```")


def test_readme_summaries_read_the_real_table():
    summaries = build._readme_summaries((ROOT / "README.md").read_text(encoding="utf-8"))
    assert "Lemma 3.1" in summaries["12"]


def test_library_modules_walk_the_package():
    modules = build.library_modules()
    assert (
        "qwem_lib" in modules
        and "qwem_lib.book.report" in modules
        and "qwem_lib.qwem.theory" in modules
    )
    assert all(m == "qwem_lib" or m.startswith("qwem_lib.") for m in modules)


def test_reexports_are_documented_once_where_defined():
    from qwem_lib.book.report import Report

    assert "Report" in build.documented_members("qwem_lib.book.report")
    assert "Report" not in build.documented_members("qwem_lib")
    assert Report.__module__ == "qwem_lib.book.report"


def test_library_use_resolves_aliases_and_from_imports():
    modules = build.library_modules()
    index = build.symbol_index(modules)
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "source": "%matplotlib inline\nimport qwem_lib as q\n"
                "from qwem_lib.book.report import Report\nfrom qwem_lib.qwem import theory as th\n"
                "rep = Report('x')\nM = th.target_matrix(P, 1, 1)\nq.not_a_name\n",
            }
        ]
    }
    symbols, used = build.library_use(nb, index, modules)
    assert symbols == [
        "qwem_lib.book.report.Report",
        "qwem_lib.qwem.theory.target_matrix",
    ]  # in order of first use
    assert used == ["qwem_lib", "qwem_lib.book.report", "qwem_lib.qwem.theory"]


def test_chapter_header_links_sources_and_first_uses(book):
    ch = build.find_chapters(book)[1]
    ch.modules = ["qwem_lib.qwem.theory"]
    header = build.chapter_header(ch, ["qwem_lib.qwem.theory.target_matrix"])
    assert "31_linear.ipynb <../_raw/notebooks/31_linear.ipynb>" in header
    assert "31_linear.py <../_raw/notebooks/31_linear.py>" in header
    assert "[`qwem_lib.qwem.theory`](../api/qwem_lib.qwem.theory.md)" in header
    assert "{py:obj}`target_matrix <qwem_lib.qwem.theory.target_matrix>`" in header


def test_files_a_page_links_are_staged(tmp_path, monkeypatch):
    root = tmp_path / "repo"
    (root / "notebooks" / "figures").mkdir(parents=True)
    (root / "notebooks" / "figures" / "a.png").write_bytes(b"png")
    (root / "notebooks" / "figures" / "b.svg").write_text("<svg/>")
    (root / "data").mkdir()
    (root / "data" / "README.md").write_text("# Data\n\nSee [the table](table.json).\n")
    (root / "data" / "table.json").write_text("{}")
    monkeypatch.setattr(build, "ROOT", root)
    src, staged, docs = tmp_path / "src", set(), []
    md = (
        '![a](figures/a.png) <img src="figures/b.svg" width=3> [data](../data/README.md#top) '
        "[gone](figures/missing.png) [web](https://example.org/x.png) [other](12_other.ipynb)"
    )
    build.stage_linked(md, Path("notebooks"), src, staged, docs)
    assert (src / "notebooks" / "figures" / "a.png").read_bytes() == b"png"
    assert (src / "notebooks" / "figures" / "b.svg").is_file()
    assert (src / "data" / "README.md").is_file() and (src / "data" / "table.json").is_file()
    assert docs == ["data/README"]
    assert not (
        src / "notebooks" / "figures" / "missing.png"
    ).exists()  # left broken: Sphinx reports it


def test_data_is_documented_where_assigned_not_where_reexported(tmp_path, monkeypatch):
    pkg = tmp_path / "fakepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(
        '"""Fake."""\nfrom .core import LIMIT, f\n__all__ = ["LIMIT", "f", "TOP"]\nTOP = 1\n'
    )
    (pkg / "core.py").write_text(
        '"""Core."""\n__all__ = ["LIMIT", "f"]\nLIMIT: int = 5\n\ndef f():\n    """F."""\n'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert build.library_modules("fakepkg") == ["fakepkg", "fakepkg.core"]
    assert build.documented_members("fakepkg") == ["TOP"]
    assert build.documented_members("fakepkg.core") == ["LIMIT", "f"]


# ------------------------------------------------------------------------------------------------
# The apparatus (website/apparatus.py) and the chapter transform, on small hand-made cells
# ------------------------------------------------------------------------------------------------

ap = build.apparatus


def test_statement_becomes_a_numbered_block():
    md = (
        "# 12 · Title\n\n**Statement (Karkada et al. 2025, Lemma 3.1).** Let $M$ be\n\n$$x = 1$$\n\n"
        "and more.\n\n**Intuition.** Because."
    )
    found = []
    out = ap.statement_blocks(md, "12_x", found)
    assert ":::{prf:lemma} Karkada et al. 2025, Lemma 3.1\n:label: stmt-12-1" in out
    assert "$$x = 1$$\n\nand more.\n:::" in out and out.endswith("**Intuition.** Because.")
    assert found == [
        {
            "stem": "12_x",
            "label": "stmt-12-1",
            "kind": "lemma",
            "title": "Karkada et al. 2025, Lemma 3.1",
        }
    ]
    assert ap.statement_kind("Karkada et al. 2025, Result 3 — derived, not proved") == "conjecture"
    assert ap.statement_kind("Laurent et al. 2024, Figure 4") == "observation"


def test_exercises_and_gated_solutions():
    md = "Text.\n\n## Exercises\n\n1. First, with\n   a second line.\n2. Second.\n\n## Solutions\n"
    out, labels = ap.exercise_blocks(md, "12_x")
    assert labels == ["ex-12-1", "ex-12-2"]
    assert ":::{exercise}\n:label: ex-12-1\n\nFirst, with\na second line.\n:::" in out
    assert out.rstrip().endswith("## Solutions")
    sol = ap.solution_start(
        "<details><summary>Solution 2</summary>\n\nBecause.\n\n</details>", "12_x", set(labels)
    )
    assert sol.startswith(":::{solution-start} ex-12-2\n:label: sol-12-2\n:class: dropdown\n:::")
    assert "Because." in sol and "details" not in sol
    assert (
        ap.solution_start("<details><summary>Solution 9</summary>x</details>", "12_x", set(labels))
        is None
    )


def test_mentions_become_links_outside_maths_and_code():
    stems = {"10": "10_a", "12": "12_b", "13": "13_c"}
    md = "See chapter 12, chapters 10 and 13, `chapter 12` and $chapter 12$; Figure 12.3 and Figure 12.9."
    out = ap.link_mentions(md, stems, "13", {"fig-12-3"})
    assert "[chapter 12](12_b.ipynb)" in out
    assert "chapters [10](10_a.ipynb) and 13" in out  # no link to the page itself
    assert "`chapter 12`" in out and "$chapter 12$" in out
    assert "{ref}`Figure 12.3 <fig-12-3>`" in out and "Figure 12.9." in out
    assert (
        ap.anchor_caption("**Figure 12.3** — A caption.")
        == "(fig-12-3)=\n**Figure 12.3** — A caption."
    )


def test_reading_time_status_and_citations():
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": "word " * 300},
            {
                "cell_type": "code",
                "source": "x = 1\n" * 20,
                "metadata": {
                    "execution": {
                        "iopub.execute_input": "2026-11-30T14:17:14.3Z",
                        "shell.execute_reply": "2026-11-30T14:19:14.3Z",
                    }
                },
                "outputs": [],
            },
        ]
    }
    assert ap.reading_minutes(nb) == round(
        300 / ap.WORDS_PER_MINUTE + 20 / ap.CODE_LINES_PER_MINUTE
    )
    recs = [
        {"kind": "finding", "passed": True, "preset": "book", "device": "cpu"},
        {"kind": "record", "passed": True, "preset": "book", "device": "cpu"},
    ]
    st = ap.execution_status(nb, recs, "0.1.0")
    assert st["wall_s"] == 120 and st["date"] == "2026-11-30 14:17 UTC" and st["passed"] == 2
    assert (
        "book | 2026-11-30 14:17 UTC | 2.0 min | cpu | 0.1.0 | 2/2 (1/1 findings)"
        == ap.status_row(st)
    )
    assert ap.citations_for("41", "LayerNorm and the authors' notebook")[:2] == [
        "laurent2024collapse",
        "bresson2024code",
    ]
    keys = ap.citations_for("21", "word2vec on text8, MEN and WS353, as Levy and Goldberg")
    for k in (
        "karkada2025qwem",
        "mikolov2013distributed",
        "mahoney2011text8",
        "bruni2014multimodal",
        "finkelstein2002placing",
        "levy2014neural",
    ):
        assert k in keys


def test_solution_code_is_inside_its_block(book):
    ch = build.find_chapters(book)[1]
    nb = {
        "cells": [
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "# 31 · T\n\n## Exercises\n\n1. Do it.\n\n## Solutions",
            },
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "<details><summary>Solution 1</summary>\n\nDone.\n\n</details>",
            },
            {
                "cell_type": "code",
                "metadata": {},
                "source": "rep.check('a.solution.1')",
                "outputs": [],
            },
            {
                "cell_type": "markdown",
                "metadata": {},
                "source": "**Figure 31.4** — what the solution drew.",
            },
            {"cell_type": "markdown", "metadata": {}, "source": "After."},
        ]
    }
    ctx = {"stems": {"31": ch.stem}, "fig_labels": {"fig-31-4"}, "statements": []}
    out = build.transform_chapter(nb, ch, ctx)["cells"]
    kinds = [(c["cell_type"], c["source"].split("\n")[0]) for c in out]
    assert kinds == [
        ("markdown", "# 31 · T"),
        ("markdown", ":::{solution-start} ex-31-1"),
        ("code", "rep.check('a.solution.1')"),
        ("markdown", "(fig-31-4)="),
        ("markdown", ":::{solution-end}"),
        ("markdown", "After."),
    ]


def test_named_results_link_to_their_statement():
    md = "**Statement (Karkada et al. 2025, Lemma 3.1).** Text."
    assert ap.statement_names(md, "12_x") == [("Lemma 3.1", "stmt-12-1")]
    assert (
        ap.statement_names("**Statement (Laurent 2024, Section 2.1 and Theorem 1).** T.", "40_x")
        == []
    )
    results = {("qwem", "Lemma 3.1"): "stmt-12-1"}
    out = ap.link_mentions("By Lemma 3.1 and Theorem 9.", {}, "13", set(), results)
    assert out == "By {prf:ref}`Lemma 3.1 <stmt-12-1>` and Theorem 9."
    assert (
        ap.link_mentions("By Lemma 3.1.", {}, "41", set(), results) == "By Lemma 3.1."
    )  # other paper
    assert ap.link_mentions(md, {}, "12", set(), results) == md  # the statement's own title


def test_repository_address_is_one_setting(book, monkeypatch):
    ch = build.find_chapters(book)[1]
    monkeypatch.delenv("QWEM_REPOSITORY", raising=False)
    if not build.repository():  # pyproject.toml names none: no source, launch or edit links at all
        assert "Binder" not in build.chapter_header(ch, [])
    monkeypatch.setenv("QWEM_REPOSITORY", "https://github.com/someone/book/")
    header = build.chapter_header(ch, [])
    assert "[source](https://github.com/someone/book/blob/main/notebooks/31_linear.py)" in header
    assert (
        "[edit this page](https://github.com/someone/book/edit/main/notebooks/31_linear.py)"
        in header
    )
    assert "mybinder.org/v2/gh/someone/book/main?labpath=notebooks/31_linear.ipynb" in header
    assert (
        "colab.research.google.com/github/someone/book/blob/main/notebooks/31_linear.ipynb"
        in header
    )
    assert 'pip install "qwem-lib @ git+https://github.com/someone/book"' in header


def test_verdict_map_page_shows_each_statements_numbers(tmp_path):
    """The website's verdict map: per statement the paper's number, the book preset's and the paper
    preset's (issue 43), the counts of the map, and the drifted-record mark where one is shown."""
    from qwem_lib.book.paper_map import DRIFTED_MARK, counts_sentence, load_map

    build.stage_reproduction(tmp_path, build.find_chapters(ROOT))
    page = (tmp_path / "REPRODUCTION.md").read_text(encoding="utf-8")
    assert "| statement | verdict | paper | book preset | paper preset | chapters |" in page
    assert counts_sentence(load_map()) in page
    fig4b = next(line for line in page.splitlines() if "Figure 4b" in line)
    assert "**reproduced**" in fig4b and "45%" in fig4b and "K = 1,000" in fig4b
    # the mark shows where a cited paper record is drifted, and nowhere when every record is current
    from qwem_lib.book.paper_map import paper_record_drift

    records = sorted((ROOT / "reproduction" / "records-paper").glob("*.json"))
    drifted = [f.stem for f in records if paper_record_drift(f.stem)[0] != 0]
    shown = any(DRIFTED_MARK in line for line in page.splitlines() if line.startswith("| "))
    assert shown == bool(drifted), (drifted, shown)


def test_chapter_header_prints_the_recorded_run_time_and_data(book):
    timings = {
        "data": {"17M": {"dataset": "enwiki2015_17m", "download_mb": 100}},
        "groups": {"g": {"chapters": ["10", "11"], "cold_min": 4, "relation": "~"}},
        "chapters": {
            "10": {"group": "g", "data": []},
            "31": {"cold_min": 12.04, "relation": ">=", "data": ["17M"]},
            "40": {"cold_min": None, "data": []},
        },
    }
    assert build.run_text(timings, "31") == (
        "≥ 12 minutes cold on 2 CPU cores; data beyond what ships: 17M (100 MB)"
    )
    assert build.run_text(timings, "10").startswith(
        "~4 minutes cold on 2 CPU cores for chapters 10–11"
    )
    assert build.run_text(timings, "40") == "not measured; data beyond what ships: none"
    assert build.run_text(timings, "99") == ""
    ch = build.find_chapters(book)[1]
    ch.run = build.run_text(timings, "31")
    assert "**Run time at the book preset:** ≥ 12 minutes" in build.chapter_header(ch, [])
