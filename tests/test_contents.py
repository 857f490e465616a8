"""The table of contents is read from the chapters' headings (qwem_lib.book.contents, issue 44)."""

import pytest

from qwem_lib.book import config, contents


def _chapter(folder, stem, heading):
    (folder / f"{stem}.py").write_text(
        f"# ---\n# jupyter:\n# ---\n\n# %% [markdown]\n# # {heading}\n"
    )


def test_chapters_read_titles_in_order(tmp_path):
    _chapter(tmp_path, "10_b", "10 · Second: a title")
    _chapter(tmp_path, "00_a", "00 · First")
    _chapter(tmp_path, "41_c", "41 · Third")
    (tmp_path / "helper.py").write_text("x = 1\n")  # not a chapter
    got = contents.chapters(tmp_path)
    assert [(c.number, c.stem, c.title) for c in got] == [
        ("00", "00_a", "First"),
        ("10", "10_b", "Second: a title"),
        ("41", "41_c", "Third"),
    ]
    assert [c.part for c in got] == ["Introduction", "QWEM: the theory", "Feature collapse"]
    table = contents.chapter_map(tmp_path).splitlines()
    assert table[:3] == ["| part | chapter |", "|---|---|", "| 0 · Introduction | 00 · First |"]
    assert table[-1] == "| 4 · Feature collapse | 41 · Third |"


def test_bad_chapters_are_refused(tmp_path):
    with pytest.raises(ValueError, match="no chapter folder"):
        contents.chapters(tmp_path / "missing")
    with pytest.raises(ValueError, match="no NN_slug.py chapter"):
        contents.chapters(tmp_path)
    _chapter(tmp_path, "12_x", "13 · Wrong number")
    with pytest.raises(ValueError, match="must read '12 · Title'"):
        contents.chapters(tmp_path)
    (tmp_path / "12_x.py").write_text("# %% [markdown]\n# no heading\n")
    with pytest.raises(ValueError, match="no '# # NN · Title' heading"):
        contents.chapters(tmp_path)


def test_the_book_map_lists_every_chapter():
    """Chapter 00's map cannot go stale: it is every notebooks/NN_*.py, by its own heading."""
    files = sorted(p.stem for p in (config.REPO_ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    got = contents.chapters()
    assert [c.stem for c in got] == files
    table = contents.chapter_map()
    assert all(f"| {c.number} · {c.title} |" in table for c in got)
    assert {c.number[0] for c in got} <= set(contents.PARTS)
