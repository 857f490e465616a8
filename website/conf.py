"""Sphinx configuration of the book's website (``make site``; README, "The book as a website").

``website/build.py`` stages the sources (the committed notebooks, README, REPRODUCTION.md, the data
sheet, one API page per ``qwem_lib`` module) into ``_site/src`` and runs Sphinx with this folder as its
configuration directory. Nothing is executed and nothing is fetched: the notebooks are rendered with the
outputs they were committed with, the theme ships with its Python package, and MathJax is copied into
the site from the ``django-static-mathjax`` wheel (a plain copy of the MathJax 3.2.2 distribution).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
from pathlib import Path

project = "How neural networks learn features"
author = "the book's authors"
copyright = "the book's authors; text and code under the repository's licence"

extensions = [
    "myst_nb",
    "sphinx_proof",  # theorem, lemma, … blocks (website/apparatus.py writes them from the chapters)
    "sphinx_exercise",  # exercise and solution blocks; a solution's code cells sit inside it
    "sphinx_togglebutton",  # solutions folded until opened
    "sphinxcontrib.bibtex",  # references.bib, {cite} roles, the References page
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
]

# --- notebooks: render what is committed, never execute --------------------------------------------
nb_execution_mode = "off"
nb_output_stderr = "remove"  # tqdm progress bars and other stderr residue
nb_merge_streams = True  # one block per cell for the claim lines printed to stdout
nb_render_markdown_format = "myst"  # the prose() outputs carry $…$ math: parse them like the cells
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "html_image"]
myst_dmath_double_inline = True  # `$$…$$` inside a paragraph is display math too
myst_heading_anchors = (
    4  # README's `[Data](#data)` style links; REPRODUCTION.md's statements are level-4 headings
)

# The paper-preset notebooks (reproduction/paper/) are downloads beside their claim pages, not pages: their
# outputs come from long runs the site does not re-render, and they are linked from the reproduction report.
exclude_patterns = ["_raw/**", "**/.ipynb_checkpoints", "reproduction/paper/**"]

# --- apparatus: numbered blocks, figures, citations -------------------------------------------------
numfig = True
bibtex_bibfiles = ["references.bib"]
bibtex_default_style = "plain"
bibtex_reference_style = "author_year"
proof_minimal_theme = False
# Solutions are hidden until opened; the toggle button's text says what it opens.
togglebutton_hint = "Show the solution"
togglebutton_hint_hide = "Hide the solution"
# Cosmetic only, never a broken reference or a missing image: widget views of tqdm.auto (if a notebook ever
# has one), and a chapter whose headings skip a level (e.g. # then ###).
suppress_warnings = ["mystnb.unknown_mime_type", "myst.header"]

# --- API reference ----------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = True
napoleon_numpy_docstring = True


def _rst_problems(text: str, env=None) -> list[str]:
    """docutils' warnings and errors for a docstring read as reStructuredText, Sphinx's roles aside."""
    import io

    from docutils.core import publish_doctree
    from docutils.utils import SystemMessage

    text = re.sub(r":[\w:+-]+:`([^`]*)`", r"``\1``", text)  # :func:`x` and friends need Sphinx
    stream = io.StringIO()
    try:
        publish_doctree(
            text,
            settings_overrides={
                "report_level": 2,
                "halt_level": 5,
                "warning_stream": stream,
                "file_insertion_enabled": False,
                "raw_enabled": False,
                "env": env,
            },
        )
    except SystemMessage as exc:  # pragma: no cover - halt_level 5 never halts
        return [str(exc)]
    lines = [
        ln
        for ln in stream.getvalue().splitlines()
        if re.match(r"^<string>:\d+: \((WARNING|ERROR|SEVERE)", ln)
    ]
    return [
        ln
        for ln in lines
        if "Unknown interpreted text role" not in ln and "Unknown directive type" not in ln
    ]


def _has_section_title(lines: list[str]) -> bool:
    """A text line underlined with ``---``/``===``/… : a section title, which autodoc cannot place."""
    return any(
        prev.strip() and re.fullmatch(r"\s*([=\-~^\"'`#*+])\1{2,}\s*", line)
        for prev, line in zip(lines, lines[1:])
    )


def _plain_docstrings(app, what, name, obj, options, lines: list[str]) -> None:
    """Show a docstring that is plain text, not reStructuredText, verbatim (a literal block).

    The library's docstrings are written for ``help()``: indented continuation lines, ``|x|`` for
    absolute values and the like are warnings or errors to docutils. Rather than reformat every
    docstring (or lose -W), such a docstring is shown exactly as written; docstrings that are valid
    reStructuredText are rendered as such.
    """
    if lines and (_rst_problems("\n".join(lines), app.env) or _has_section_title(lines)):
        body = [("    " + ln) if ln.strip() else "" for ln in lines]
        lines[:] = ["::", ""] + body + [""]
    elif lines:
        # Plain-text maths with scripts (λ_k, Q_[d], e^{λt}) typeset as :math: (website/apparatus.py).
        lines[:] = _build_module().apparatus.rst_math_lines(lines)


# --- MathJax, from a local copy ---------------------------------------------------------------------
# Relative to _static/; the files are copied there when the build finishes (see _copy_mathjax).
mathjax_path = "mathjax/tex-mml-chtml.js"
# An undefined macro is an error (MathJax's `noundefined` would print it in red and carry on), so the
# browser test sees it as a MathJax error.
mathjax3_config = {"tex": {"packages": {"[-]": ["noundefined"]}}}


def _mathjax_es5() -> Path:
    """The ``es5`` folder (MathJax's browser build) inside the installed django-static-mathjax wheel."""
    spec = importlib.util.find_spec("mathjax")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "MathJax is missing: install the site's dependencies with `pip install -e .[site]`"
        )
    es5 = Path(next(iter(spec.submodule_search_locations))) / "static" / "mathjax" / "es5"
    if not (es5 / "tex-mml-chtml.js").is_file():
        raise RuntimeError(f"MathJax's tex-mml-chtml.js not found under {es5}")
    return es5


def _build_module():
    """website/build.py, for the settings it owns (repository address, version)."""
    import sys

    if "qwem_site_build" not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            "qwem_site_build", Path(__file__).resolve().parent / "build.py"
        )
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
    return sys.modules["qwem_site_build"]


# --- theme ------------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = project
html_static_path = ["_static"]
html_css_files = ["book.css"]
# The search page's snippets are the pages' text, TeX source included (MathJax typesets in the browser):
# search-math.js reads the maths in them as plain text (\\(h^\\star\\) -> h⋆). Deferred, so it runs after
# Sphinx's searchtools.js has defined Search and before the search starts.
html_js_files = [("search-math.js", {"defer": "defer"})]
html_show_sourcelink = False  # each chapter links its .ipynb and .py itself, at the top
html_theme_options = {
    "use_download_button": False,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "home_page_in_toc": True,
}
# The repository's address is one setting ([project.urls] Repository in pyproject.toml, or the
# QWEM_REPOSITORY variable; website/build.py, repository()): when set, the theme links it and every chapter
# links its source, Binder, Colab and "edit this page". When empty, no such link is made (nothing guessed).
_repo = _build_module().repository()
if _repo:
    html_theme_options.update({"repository_url": _repo, "use_repository_button": True})
version = release = _build_module().book_version()
html_title = f"{project} · v{version}"
html_last_updated_fmt = "%Y-%m-%d"  # the footer says when the site was built


def _copy_mathjax(app, exception) -> None:
    if exception is None and app.builder.format == "html":
        dest = Path(app.outdir) / "_static" / "mathjax"
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(_mathjax_es5(), dest)


def _number_by_chapter(app, env) -> list[str]:
    """Number theorem-like blocks and exercises within their chapter: "Lemma 12.1", "Exercise 12.3".

    Without a numbered toctree Sphinx counts enumerable nodes across the whole site (the fifth exercise of
    the book would be "Exercise 5" in chapter 10). Here each chapter's blocks are renumbered from 1, with
    the chapter's number in front; pages that are not chapters keep Sphinx's numbers.
    """
    for docname, by_type in env.toc_fignumbers.items():
        m = re.match(r"notebooks/(\d\d)_", docname)
        if not m:
            continue
        chapter = int(m.group(1))
        for figtype, ids in by_type.items():
            order = sorted(ids, key=lambda i: tuple(ids[i]))
            for k, node_id in enumerate(order, 1):
                ids[node_id] = (chapter, k)
    return []


def setup(app):
    app.connect("env-get-updated", _number_by_chapter, priority=900)  # after the toctree collector
    app.set_html_assets_policy(
        "always"
    )  # MathJax on every page: chapter titles with math in the sidebar
    _mathjax_es5()  # fail early, with a clear message, when MathJax is not installed
    app.connect("build-finished", _copy_mathjax)
    app.connect(
        "autodoc-process-docstring", _plain_docstrings, priority=600
    )  # after napoleon (500)
