"""The book's table of contents, read from the chapters themselves so that it cannot go stale.

Each chapter ``notebooks/NN_slug.py`` opens with a Markdown heading ``# NN · Title``; the parts are named
by the chapter number's first digit (:data:`PARTS`). Chapter 00 prints :func:`chapter_map`; the README's
chapter table and the course plan (``tools/reader_tables.py``) and the website use the same list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from . import config

__all__ = ["PARTS", "ChapterInfo", "chapter_map", "chapters"]

PARTS: dict[str, str] = {
    "0": "Introduction",
    "1": "QWEM: the theory",
    "2": "QWEM on real text",
    "3": "Linear structure",
    "4": "Feature collapse",
    "5": "Beyond the papers",
}
"""The parts of the book, by the first digit of a chapter's number."""

_NAME_RE = re.compile(r"^(\d\d)_[A-Za-z0-9_]+\.py$")
_HEADING_RE = re.compile(r"^# # (.+?)\s*$", re.M)


@dataclass(frozen=True)
class ChapterInfo:
    """One chapter: its two-digit number, file stem (``10_word2vec_to_qwem``) and title (without the
    number)."""

    number: str
    stem: str
    title: str

    @property
    def part(self) -> str:
        """The name of the part the chapter belongs to."""
        return PARTS.get(self.number[0], f"Part {self.number[0]}")


def chapters(notebooks: Path | str | None = None) -> list[ChapterInfo]:
    """Every chapter of the book in order, with the title of its first heading.

    Parameters
    ----------
    notebooks : Path or str, optional
        The folder of ``NN_slug.py`` chapters; default the repository's ``notebooks/``.

    Returns
    -------
    list of ChapterInfo
        Sorted by number.

    Raises
    ------
    ValueError
        If the folder holds no chapter, two chapters share a number, or a chapter has no ``# NN · Title``
        heading whose number matches its file name.
    """
    folder = Path(notebooks) if notebooks is not None else config.REPO_ROOT / "notebooks"
    if not folder.is_dir():
        raise ValueError(f"no chapter folder at {folder}")
    out: list[ChapterInfo] = []
    for path in sorted(folder.glob("*.py")):
        m = _NAME_RE.match(path.name)
        if not m:
            continue
        heading = _HEADING_RE.search(path.read_text(encoding="utf-8"))
        if heading is None:
            raise ValueError(f"{path}: no '# # NN · Title' heading")
        number, sep, title = heading.group(1).partition(" · ")
        if not sep or number != m.group(1) or not title.strip():
            raise ValueError(
                f"{path}: the first heading must read '{m.group(1)} · Title', got {heading.group(1)!r}"
            )
        out.append(ChapterInfo(number=number, stem=path.stem, title=title.strip()))
    if not out:
        raise ValueError(f"no NN_slug.py chapter in {folder}")
    numbers = [c.number for c in out]
    dup = sorted({n for n in numbers if numbers.count(n) > 1})
    if dup:
        raise ValueError(f"chapter numbers used twice in {folder}: {dup}")
    return out


def chapter_map(notebooks: Path | str | None = None) -> str:
    """The book's map as a Markdown table: one row per chapter, its part named on the part's first row.

    Parameters
    ----------
    notebooks : Path or str, optional
        As in :func:`chapters`.

    Returns
    -------
    str
        ``| part | chapter |`` table, e.g. ``| QWEM: the theory | 10 · From word2vec to QWEM: Theorem 1 |``.
    """
    rows = ["| part | chapter |", "|---|---|"]
    last = None
    for c in chapters(notebooks):
        part = f"{c.number[0]} · {c.part}" if c.part != last else ""
        last = c.part
        rows.append(f"| {part} | {c.number} · {c.title} |")
    return "\n".join(rows)
