"""`make pdf`'s check: the PDF (``_site/book.pdf``, or ``QWEM_PDF``) has every chapter.

Reads the PDF's text with pypdf and finds each chapter's number and the plain words of its title, in
order; checks the outline (bookmarks) names every chapter when Chromium wrote one, and that the figures and
the reproduction report are in. Not part of `make test`; CI does not build the PDF (several minutes).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PDF = Path(os.environ.get("QWEM_PDF", ROOT / "_site" / "book.pdf"))
_spec = importlib.util.spec_from_file_location("qwem_site_build_pdf", ROOT / "website" / "build.py")
site_build = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = site_build
_spec.loader.exec_module(site_build)


def _norm(s: str) -> str:
    s = s.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", s).strip().lower()


def _plain_words(title: str) -> str:
    """The longest run of plain words in a title (maths and symbols dropped): what the PDF's text shows."""
    runs = re.split(r"\$[^$]*\$|[·:—–()]", title)
    return max((r.strip() for r in runs), key=len)


@pytest.fixture(scope="module")
def pdf():
    if not PDF.is_file():
        pytest.fail(f"no PDF at {PDF}: run `make pdf`")
    from pypdf import PdfReader

    return PdfReader(str(PDF))


def test_every_chapter_is_in_the_pdf(pdf):
    import json

    text = _norm(" ".join(page.extract_text() or "" for page in pdf.pages))
    pos = 0
    for ch in site_build.find_chapters(ROOT):
        nb = json.loads(ch.path.read_text(encoding="utf-8"))
        title = site_build._title(nb, ch.stem)
        words = _norm(_plain_words(title.split("·", 1)[-1]))
        at = text.find(words, pos)
        assert at >= 0, f"chapter {ch.number} ({title!r}) is not in the PDF, or not in order"
        pos = at
    assert "reproduction report" in text and "references" in text


def test_outline_and_figures(pdf):
    def titles(outline):
        for item in outline:
            if isinstance(item, list):
                yield from titles(item)
            else:
                yield item.title

    names = _norm(" | ".join(titles(pdf.outline)))
    if names:
        for ch in site_build.find_chapters(ROOT):
            assert f"{ch.number} ·" in names, f"the outline lacks chapter {ch.number}"
    n_images = sum(len(page.images) for page in pdf.pages[: min(len(pdf.pages), 400)])
    assert n_images > 20, f"only {n_images} images in the PDF"
    assert len(pdf.pages) > 50
