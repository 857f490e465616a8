"""Build the book's website: ``python website/build.py`` (what ``make site`` runs).

Stages the sources under ``_site/src`` and renders them with Sphinx into ``_site/html``:

* one page per chapter, from the committed ``notebooks/NN_*.ipynb`` (never re-executed), grouped into
  parts by the chapter number's first digit, with a header that links the chapter's ``.ipynb`` and
  ``.py`` and the API pages of the library it uses;
* the index: README.md, whose chapter table is replaced by the chapter map by part;
* every Markdown file the README links to (REPRODUCTION.md, data/README.md, …), and the other files it
  links to as downloads;
* an API reference: one page per module of ``qwem_lib``, found by walking the package.

Warnings are errors (``sphinx-build -W``). Nothing is fetched: see ``website/conf.py``.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import pkgutil
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF_DIR = ROOT / "website"
sys.path.insert(0, str(CONF_DIR))
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
import apparatus  # noqa: E402  (website/apparatus.py)
import presentation  # noqa: E402  (tools/presentation.py)
import reader_tables  # noqa: E402  (tools/reader_tables.py)

from qwem_lib.book import contents, report  # noqa: E402

#: Parts of the book, by the first digit of a chapter's number (qwem_lib.book.contents, which chapter 00's
#: map uses too).
PARTS = contents.PARTS
CHAPTER_RE = re.compile(r"^(\d\d)_[A-Za-z0-9_]+\.ipynb$")
LINK_RE = re.compile(
    r"\]\(([^)\s]+)\)|<img\b[^>]*\bsrc=[\"']([^\"']+)"
)  # [..](x), ![..](x), <img src=x>


@dataclass
class Chapter:
    number: str
    path: Path  # the committed notebook
    title: str = ""
    summary: str = ""  # README's "result" column, when the README lists the chapter
    symbols: list[str] = field(default_factory=list)  # qwem_lib objects used, canonical names
    modules: list[str] = field(default_factory=list)  # qwem_lib modules used
    minutes: int = 0  # reading time
    status: dict = field(default_factory=dict)  # execution status (apparatus.execution_status)
    cites: list[str] = field(default_factory=list)  # bibliography keys
    run: str = ""  # cold run time and data at the book preset (reproduction/timings.json)

    @property
    def stem(self) -> str:
        return self.path.stem


def find_chapters(root: Path = ROOT) -> list[Chapter]:
    """Every ``notebooks/NN_slug.ipynb``, in chapter order."""
    chapters = [
        Chapter(m.group(1), p)
        for p in sorted((root / "notebooks").glob("*.ipynb"))
        if (m := CHAPTER_RE.match(p.name))
    ]
    if not chapters:
        raise SystemExit("no notebooks/NN_*.ipynb found")
    return chapters


def part_of(chapter: Chapter) -> str:
    return PARTS.get(chapter.number[0], f"Part {chapter.number[0]}")


def _title(nb: dict, fallback: str) -> str:
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            m = re.search(r"^#\s+(.+)$", "".join(cell["source"]), re.M)
            if m:
                return m.group(1).strip()
    return fallback


# ------------------------------------------------------------------------------------------------
# The library: modules and the objects each documents
# ------------------------------------------------------------------------------------------------


def library_modules(package: str = "qwem_lib") -> list[str]:
    """Every importable module of the package (sub-packages included), by walking it."""
    pkg = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(pkg.__path__, prefix=package + "."):
        if info.name.rsplit(".", 1)[-1].startswith("_"):
            continue
        importlib.import_module(info.name)
        names.append(info.name)
    return sorted(names)


def documented_members(modname: str) -> list[str]:
    """The public objects a module defines itself (its ``__all__``, less what it re-exports).

    Re-exported names are documented once, on the page of the module that defines them, so that
    Sphinx never sees two descriptions of one object.
    """
    mod = importlib.import_module(modname)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in vars(mod) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(mod, name, None)
        if obj is None or isinstance(obj, type(sys)):
            continue
        home = getattr(obj, "__module__", None)
        if callable(obj) or isinstance(obj, type):
            if home != modname:
                continue
        elif getattr(mod, "__all__", None) is None or name not in _assigned_names(mod):
            continue  # data: documented where the source assigns it, not where re-exported
        out.append(name)
    return out


def _assigned_names(mod) -> set[str]:
    """Names a module's own source assigns at top level (``X = …``, ``X: T = …``)."""
    import inspect

    try:
        tree = ast.parse(inspect.getsource(mod))
    except (OSError, TypeError, SyntaxError):
        return set()
    names = set()
    for node in tree.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    names.add(n.id)
    return names


def symbol_index(modules: list[str]) -> dict[int, str]:
    """``id(object) -> 'module.name'`` for every documented object (to link chapters to the API)."""
    index: dict[int, str] = {}
    for modname in modules:
        mod = importlib.import_module(modname)
        for name in documented_members(modname):
            obj = getattr(mod, name)
            if callable(obj) or isinstance(obj, type):
                index[id(obj)] = f"{modname}.{name}"
    return index


def _code_of(nb: dict) -> str:
    lines = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            lines.append("" if line.lstrip().startswith(("%", "!")) else line)
    return "\n".join(lines)


def library_use(nb: dict, index: dict[int, str], modules: list[str]) -> tuple[list[str], list[str]]:
    """The documented ``qwem_lib`` objects and modules a notebook's code uses, in order of first use."""
    try:
        tree = ast.parse(_code_of(nb))
    except SyntaxError:
        return [], []
    aliases: dict[str, object] = {}
    first: dict[str, tuple[int, int]] = {}  # canonical name -> (line, column) of first use
    mods: dict[str, tuple[int, int]] = {}

    def note(obj, node) -> None:
        at = (node.lineno, node.col_offset)
        if isinstance(obj, type(sys)):
            if obj.__name__ in modules:
                mods[obj.__name__] = min(mods.get(obj.__name__, at), at)
        elif id(obj) in index:
            name = index[id(obj)]
            first[name] = min(first.get(name, at), at)
            home = name.rsplit(".", 1)[0]
            mods[home] = min(mods.get(home, at), at)

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "qwem_lib":
                    mod = importlib.import_module(a.name)
                    aliases[a.asname or a.name] = mod
                    note(mod, node)
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.module.split(".")[0] == "qwem_lib"
        ):
            mod = importlib.import_module(node.module)
            for a in node.names:
                obj = getattr(mod, a.name, None)
                if obj is None and a.name != "*":
                    obj = importlib.import_module(f"{node.module}.{a.name}")
                if obj is not None:
                    aliases[a.asname or a.name] = obj
                    note(obj, node)
                if not isinstance(obj, type(sys)):
                    note(mod, node)  # a name (or *) read from the package, not only its submodules
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            base = aliases.get(node.value.id)
            if isinstance(base, type(sys)):
                obj = getattr(base, node.attr, None)
                if obj is not None:
                    note(obj, node)
    return sorted(first, key=first.get), sorted(mods, key=mods.get)


# ------------------------------------------------------------------------------------------------
# Staging
# ------------------------------------------------------------------------------------------------


def repository() -> str:
    """The repository's public address: the one setting every source, launch and edit link uses.

    ``QWEM_REPOSITORY`` if set, else ``[project.urls] Repository`` in pyproject.toml, else empty (no
    such links: the site never guesses an address).
    """
    import os
    import tomllib

    env = os.environ.get("QWEM_REPOSITORY", "").strip()
    if env:
        return env.rstrip("/")
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(meta.get("project", {}).get("urls", {}).get("Repository", "")).rstrip("/")


def book_version() -> str:
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(meta.get("project", {}).get("version", "0"))


STATUS_HEAD = "| preset | executed | wall time | device | library | claims passed |\n|---|---|---|---|---|---|\n"


def run_text(timings: dict, number: str) -> str:
    """A chapter's cold run time at the book preset and the data it downloads, as its header prints them
    (the numbers ``make book`` recorded in ``reproduction/timings.json``; the README's table reads the same)."""
    if number not in timings["chapters"]:
        return ""
    cold = reader_tables.cold_text(timings, number)
    if cold == "not measured":
        minutes = cold
    elif " for " in cold:  # a group measured together: "~4 for 00–14"
        t, group = cold.split(" for ", 1)
        minutes = f"{t} minutes cold on 2 CPU cores for chapters {group} together"
    else:
        minutes = f"{cold} minutes cold on 2 CPU cores"
    return f"{minutes}; data beyond what ships: {reader_tables.data_text(timings, [number])}"


def chapter_header(ch: Chapter, first_here: list[str]) -> str:
    """The Markdown cell put under a chapter's title: sources, citations, notation, reading time,
    execution status and the library it uses."""
    lines = [
        f"**Source of this chapter:** {{download}}`{ch.stem}.ipynb <../_raw/notebooks/{ch.stem}.ipynb>` "
        f"(the notebook, with the book preset's outputs) · "
        f"{{download}}`{ch.stem}.py <../_raw/notebooks/{ch.stem}.py>` (jupytext source of truth)."
    ]
    repo = repository()
    if repo:
        nb_path = f"notebooks/{ch.stem}.ipynb"
        gh = re.match(r"https://github\.com/([^/]+/[^/]+)", repo)
        launch = [f"[source]({repo}/blob/main/notebooks/{ch.stem}.py)"]
        launch.append(f"[edit this page]({repo}/edit/main/notebooks/{ch.stem}.py)")
        if gh:
            launch.append(
                f"[Binder](https://mybinder.org/v2/gh/{gh.group(1)}/main?labpath={nb_path})"
            )
            launch.append(
                f"[Colab](https://colab.research.google.com/github/{gh.group(1)}/blob/main/{nb_path})"
            )
        lines.append(
            "**Run it elsewhere:** "
            + " · ".join(launch)
            + f'; outside a clone, first `pip install "qwem-lib @ git+{repo}"`.'
        )
    if ch.cites:
        paper = [k for k in ch.cites if k in ("karkada2025qwem", "laurent2024collapse")]
        other = [k for k in ch.cites if k not in paper]
        text = f"**Reproduces** {{cite:p}}`{','.join(paper)}`" if paper else ""
        if other:
            text += ("; " if text else "") + f"**relies on** {{cite:p}}`{','.join(other)}`"
        lines.append(text + ". Symbols as in the [notation](../notation.md) page.")
    else:
        lines.append("Symbols as in the [notation](../notation.md) page.")
    if ch.minutes:
        lines.append(f"**Reading time:** about {ch.minutes} minutes.")
    if ch.run:
        lines.append(f"**Run time at the book preset:** {ch.run}.")
    if ch.modules:
        mods = ", ".join(f"[`{m}`](../api/{m}.md)" for m in ch.modules)
        lines.append(f"**Library modules used:** {mods}.")
    if first_here:
        objs = ", ".join(f"{{py:obj}}`{s.rsplit('.', 1)[1]} <{s}>`" for s in first_here)
        lines.append(f"**First use in the book:** {objs}.")
    if ch.status:
        lines.append(
            "**Execution status** (the committed outputs; [all chapters](../execution.md)):\n\n"
            + STATUS_HEAD
            + "| "
            + apparatus.status_row(ch.status)
            + " |"
        )
    return "\n\n".join(lines)


def _md_cell(source: str, cid: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": source, "id": cid}


def transform_chapter(nb: dict, ch: Chapter, ctx: dict) -> dict:
    """The staged chapter: presentation tags, apparatus (statements, exercises, solutions, figure
    anchors, chapter and figure links), the chapter 00 map generated."""
    presentation.apply(nb)
    stems, fig_labels = ctx["stems"], ctx["fig_labels"]
    cells = nb["cells"]
    # Exercises first: the solutions need their labels.
    labels: set[str] = set()
    for c in cells:
        if c["cell_type"] == "markdown":
            src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            src = apparatus.link_mentions(
                src, stems, ch.number, fig_labels, ctx.get("results"), ctx.get("eq_labels")
            )
            c["source"] = src
            new, found = apparatus.exercise_blocks(src, ch.stem)
            if found:
                c["source"] = new
                labels.update(found)
    out: list[dict] = []
    open_solution = False
    n_end = 0
    equations: list[str] = []  # the chapter's numbered equations so far (apparatus.equation_labels)
    for c in cells:
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        in_sol = "solution" in c.get("metadata", {}).get("tags", [])
        if c["cell_type"] == "markdown":
            if open_solution and not in_sol:
                n_end += 1
                out.append(_md_cell(apparatus.SOLUTION_END, f"site-solution-end-{n_end}"))
                open_solution = False
            if ch.number == "00" and "chapter_map" in ctx:
                src = replace_chapter_map(src, ctx["chapter_map"])
            src = apparatus.equation_labels(src, ch.number, equations)
            src = apparatus.link_mentions(
                src, stems, ch.number, fig_labels, ctx.get("results"), ctx.get("eq_labels")
            )
            src = apparatus.anchor_caption(src)
            src = apparatus.statement_blocks(src, ch.stem, ctx["statements"])
            start = apparatus.solution_start(src, ch.stem, labels)
            if start is not None:
                src = start
                open_solution = True
            c["source"] = src
        else:
            for o in c.get("outputs", []):
                md = o.get("data", {}).get("text/markdown")
                if md is not None:
                    md = "".join(md) if isinstance(md, list) else md
                    o["data"]["text/markdown"] = apparatus.link_mentions(
                        md, stems, ch.number, fig_labels, ctx.get("results"), ctx.get("eq_labels")
                    )
            if "solution" in c.get("metadata", {}).get("tags", []) and not open_solution:
                # a solution whose exercise was not found: fold the whole cell at least
                c["metadata"]["tags"] = c["metadata"]["tags"] + ["hide-cell"]
        out.append(c)
    if open_solution:
        out.append(_md_cell(apparatus.SOLUTION_END, "site-solution-end-last"))
    nb["cells"] = out
    return nb


def named_results(chapters: list[Chapter], nbs: dict[str, dict]) -> dict[tuple[str, str], str]:
    """(paper, "Lemma 3.1") -> the label of the block that states it, for names stated exactly once."""
    seen: dict[tuple[str, str], list[str]] = {}
    for ch in chapters:
        paper = apparatus.PAPER_KEY.get(ch.number[0])
        if not paper:
            continue
        k = 0
        for c in nbs[ch.stem]["cells"]:
            if c["cell_type"] != "markdown":
                continue
            src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for name, label in apparatus.statement_names(src, ch.stem, k):
                seen.setdefault((paper, name), []).append(label)
            k += len(apparatus.STATEMENT.findall(src))
    return {key: labels[0] for key, labels in seen.items() if len(labels) == 1}


def replace_chapter_map(md: str, table: str) -> str:
    """Chapter 00's "## Chapter map" table -> the generated one (every chapter, every part)."""
    m = re.search(r"^## Chapter map\n(.*?)(?=^## |\Z)", md, re.M | re.S)
    if not m:
        return md
    t = re.search(r"^\|.*$(?:\n\|.*$)*", m.group(1), re.M)
    if not t:
        return md
    body = m.group(1)
    body = body[: t.start()] + table + body[t.end() :]
    return md[: m.start(1)] + body + md[m.end(1) :]


def chapter_table(chapters: list[Chapter], prefix: str = "") -> str:
    rows = "\n".join(
        f"| {c.number} | [{c.title}]({prefix}{c.stem}.ipynb) | {c.summary} | {c.minutes} min |"
        for c in chapters
    )
    return "| | chapter | what it shows | reading |\n|---|---|---|---|\n" + rows


def stage_chapter(ch: Chapter, src: Path, first_here: list[str], ctx: dict) -> None:
    nb = json.loads(ch.path.read_text(encoding="utf-8"))
    nb = transform_chapter(nb, ch, ctx)
    header = {"cell_type": "markdown", "metadata": {}, "source": chapter_header(ch, first_here)}
    if nb.get("nbformat", 4) >= 4 and nb.get("nbformat_minor", 0) >= 5:
        header["id"] = "site-chapter-header"
    at = next(
        (
            i + 1
            for i, c in enumerate(nb["cells"])
            if c["cell_type"] == "markdown" and re.search(r"^#\s", "".join(c["source"]), re.M)
        ),
        0,
    )
    nb["cells"].insert(at, header)
    if nb.get("nbformat_minor", 0) < 5:
        for c in nb["cells"]:
            c.pop("id", None)
    (src / "notebooks" / ch.path.name).write_text(
        json.dumps(nb, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    raw = src / "_raw" / "notebooks"
    (raw / ch.path.name).write_text(
        downloadable_ipynb(ch.path.read_text(encoding="utf-8")), encoding="utf-8"
    )
    py = ch.path.with_suffix(".py")
    if py.exists():
        (raw / py.name).write_text(
            downloadable_py(py.read_text(encoding="utf-8")), encoding="utf-8"
        )


INSTALL_CELL_ID = "site-install-qwem-lib"


def install_note(repo: str | None = None) -> str:
    """The first cell of a chapter downloaded from the site: how to install ``qwem_lib`` outside a clone.

    With the repository's address set (:func:`repository`), the exact ``pip install`` from it; without,
    a ``pip install`` from a copy of the repository (the site never guesses an address).
    """
    repo = repository() if repo is None else repo
    version = book_version()
    if repo:
        how = (
            f'`pip install "qwem-lib @ git+{repo}"` (in the notebook itself: '
            f'`%pip install "qwem-lib @ git+{repo}"`, then restart the kernel)'
        )
    else:
        how = (
            "`pip install path/to/the/repository` from a copy of the book's repository (this site was "
            "built without the repository's address, so it names none)"
        )
    return (
        f"**Running this notebook outside a clone of the book's repository?** It imports the book's library "
        f"`qwem_lib` (version {version}, Python 3.11 or newer): install it first with {how}. Inside a "
        "clone, `make env` has installed it already. The data a chapter reads are described in the "
        "repository's `data/README.md` (the folder is `QWEM_DATA_DIR`); the preset is `QWEM_PRESET` "
        "(`smoke`, `book`, `paper`)."
    )


def downloadable_ipynb(text: str, repo: str | None = None) -> str:
    """The committed notebook as the site serves it: :func:`install_note` as its first cell, the rest
    unchanged (outputs and the jupytext pairing included)."""
    nb = json.loads(text)
    cell = {"cell_type": "markdown", "metadata": {}, "source": install_note(repo)}
    if (nb.get("nbformat", 4), nb.get("nbformat_minor", 0)) >= (4, 5):
        cell["id"] = INSTALL_CELL_ID
    nb["cells"].insert(0, cell)
    return json.dumps(nb, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def downloadable_py(text: str, repo: str | None = None) -> str:
    """The jupytext source as the site serves it: :func:`install_note` as a Markdown cell after the
    header, the rest byte for byte."""
    m = re.match(r"(# ---\n(?:#.*\n)*?# ---\n)", text)
    head, rest = (m.group(1), text[m.end() :]) if m else ("", text)
    note = "\n".join("# " + ln if ln else "#" for ln in _wrap(install_note(repo)))
    return f"{head}\n# %% [markdown]\n{note}\n" + ("" if rest.startswith("\n") else "\n") + rest


def _wrap(text: str, width: int = 98) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width, break_long_words=False, break_on_hyphens=False)


def _readme_summaries(readme: str) -> dict[str, str]:
    """README's chapter table: number -> its third column, the one-line summary (the columns after it,
    reading and run times, are the README's own; an escaped ``\\|`` inside maths does not end a cell)."""
    out = {}
    for m in re.finditer(r"^\|\s*(\d\d)\s*\|[^|]*\|\s*((?:[^|\\]|\\.)*?)\s*\|", readme, re.M):
        out[m.group(1)] = m.group(2)
    return out


def chapter_map(chapters: list[Chapter]) -> str:
    """The index's chapter map: one table and one toctree per part."""
    blocks = []
    for digit in sorted({c.number[0] for c in chapters}):
        part = [c for c in chapters if c.number[0] == digit]
        name = PARTS.get(digit, f"Part {digit}")
        rows = "\n".join(
            f"| {c.number} | [{c.title}](notebooks/{c.stem}.ipynb) | {c.summary} | "
            f"{f'{c.minutes} min' if c.minutes else ''} |"
            for c in part
        )
        toc = "\n".join(f"notebooks/{c.stem}" for c in part)
        blocks.append(
            f"### Part {digit} · {name}\n\n| | chapter | result | reading |\n|---|---|---|---|\n{rows}\n\n"
            f"```{{toctree}}\n:caption: {digit} · {name}\n:hidden:\n\n{toc}\n```\n"
        )
    return "\n".join(blocks)


def stage_index(readme: str, chapters: list[Chapter], extra_docs: list[str]) -> str:
    """README with its chapter table replaced by the chapter map by part, and the site's toctrees."""
    m = re.search(r"^## Chapters\n(.*?)(?=^## )", readme, re.M | re.S)
    table = re.search(r"^\|.*$(?:\n\|.*$)*", m.group(1), re.M) if m else None
    cmap = (
        "*The chapters by part; each page links its notebook and its `.py` source.*\n\n"
        + chapter_map(chapters)
    )
    if m and table:
        body = m.group(1)
        body = body[: table.start()] + cmap + body[table.end() :]
        readme = readme[: m.start(1)] + body + readme[m.end(1) :]
    else:
        readme = readme.rstrip() + "\n\n## Chapters\n\n" + cmap
    ref = "\n".join(extra_docs + ["api/index"])
    return readme.rstrip() + f"\n\n```{{toctree}}\n:caption: Reference\n:hidden:\n\n{ref}\n```\n"


def table_math(text: str) -> str:
    """Maths inside a Markdown table cell: ``\\|W\\|_F`` would lose its backslashes to the table's ``|``
    escape and render as ``|W|_F``; ``\\Vert`` says the same and survives."""
    return re.sub(r"\$[^$\n]*\$", lambda m: m.group(0).replace("\\|", "\\Vert "), text)


def readme_page(readme: str, chapters: list[Chapter]) -> str:
    """README as a reference page: its chapter table replaced by the generated one (no toctree)."""
    m = re.search(r"^## Chapters\n(.*?)(?=^## )", readme, re.M | re.S)
    table = re.search(r"^\|.*$(?:\n\|.*$)*", m.group(1), re.M) if m else None
    if m and table:
        body = m.group(1)
        body = body[: table.start()] + chapter_table(chapters, "notebooks/") + body[table.end() :]
        readme = readme[: m.start(1)] + body + readme[m.end(1) :]
    # the site's REPRODUCTION page is generated (stage_reproduction) and has no per-statement headings:
    # the README's links into the repository's REPRODUCTION.md go to the page itself
    return re.sub(r"\]\(REPRODUCTION\.md#[^)]*\)", "](REPRODUCTION.md)", readme)


#: A Markdown link to a paper-preset notebook (``reproduction/paper/NN_slug.ipynb``, from any folder).
PAPER_NB_LINK = re.compile(r"\[([^\]]+)\]\(((?:\.\./)*(?:reproduction/)?paper/[^)\s]+\.ipynb)\)")


def stage_linked(text: str, rel_dir: Path, src: Path, staged: set[Path], docs: list[str]) -> None:
    """Stage what a Markdown file links to: .md files as pages (recursively), other files as downloads."""
    for md_target, img_target in LINK_RE.findall(text):
        target = (md_target or img_target).split("#", 1)[0]
        if not target or re.match(r"^[a-z]+:", target) or target.startswith("/"):
            continue
        rel = rel_dir / target
        path = (ROOT / rel).resolve()
        try:
            rel = path.relative_to(ROOT)
        except ValueError:
            continue
        if rel in staged or not path.is_file():
            continue  # missing files stay broken links: Sphinx reports them
        if rel.parts[0] == "notebooks" and path.suffix == ".ipynb":
            continue  # chapters are staged on their own
        staged.add(rel)
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, src / rel)
        if path.suffix == ".md":
            # a link to a paper-preset notebook is a download, not a page (conf.py excludes them)
            page = src / rel
            page.write_text(
                PAPER_NB_LINK.sub(r"{download}`\1 <\2>`", page.read_text("utf-8")), "utf-8"
            )
            docs.append(str(rel.with_suffix("")))
            stage_linked(path.read_text(encoding="utf-8"), rel.parent, src, staged, docs)


def stage_api(src: Path, modules: list[str]) -> None:
    api = src / "api"
    api.mkdir()
    for modname in modules:
        members = documented_members(modname)
        opts = f"   :members: {', '.join(members)}\n" if members else ""
        (api / f"{modname}.md").write_text(
            f"# `{modname}`\n\n```{{eval-rst}}\n.. automodule:: {modname}\n{opts}   :show-inheritance:\n```\n",
            encoding="utf-8",
        )
    rows = []
    for modname in modules:
        doc = (
            (importlib.import_module(modname).__doc__ or "")
            .strip()
            .split("\n\n")[0]
            .replace("\n", " ")
        )
        doc = doc.replace("|", "\\|")
        rows.append(f"| [`{modname}`]({modname}.md) | {_md_inline(doc)} |")
    toc = "\n".join(modules)
    (api / "index.md").write_text(
        "# API reference: `qwem_lib`\n\nThe library every chapter imports, one page per module, generated from its "
        "docstrings. The module list is found by walking the package, so a new module appears here by itself.\n\n"
        "| module | what it is |\n|---|---|\n"
        + "\n".join(rows)
        + f"\n\n```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{toc}\n```\n",
        encoding="utf-8",
    )


def _md_inline(text: str) -> str:
    """A docstring's first paragraph as table text: RST double back-quotes become code spans."""
    return re.sub(r"``(.+?)``", r"`\1`", text)


def _esc(text: str) -> str:
    """Plain text (claim statements, written in Unicode pseudo-maths) safe inside Markdown."""
    return re.sub(r"([\\`*_\[\]<>|$#])", r"\\\1", str(text))


def _value(v) -> str:
    """How the report prints a recorded value (:func:`qwem_lib.book.formatting.plain`)."""
    from qwem_lib.book.formatting import plain

    return plain(v)


VERDICT_MARK = {
    "reproduced": "**reproduced**",
    "reproduced at reduced size": "**reproduced at reduced size**",
    "reproduced with differences": "**reproduced with differences**",
    "contradicted": "**contradicted**",
    "not resolved": "*not resolved*",
    "not yet tested": "*not yet tested*",
}


def _filled(text: str, claims: list[dict]) -> str:
    """A map entry's text with its ``{claim:ID:fmt}`` templates replaced by the recorded values, as
    REPRODUCTION.md prints them (qwem_lib.book.paper_map.render_text); left as written if one is unknown."""
    from qwem_lib.book.paper_map import render_text

    try:
        return render_text(text, claims)
    except (KeyError, ValueError):
        return text


def paper_preset_values(stem: str, root: Path = ROOT) -> dict[str, dict]:
    """A chapter's claim records at the ``paper`` preset (``reproduction/records-paper/NN_slug.json``,
    written by ``make book PRESET=paper``), by claim id; empty when the chapter has not been run at it."""
    from qwem_lib.book.report import load_paper_records

    rec = load_paper_records(root / "reproduction" / "records-paper").get(stem)
    return {c["id"]: c for c in rec.get("claims", [])} if rec else {}


def load_paper_record(stem: str, root: Path = ROOT) -> dict:
    """A chapter's whole paper-preset record (machine, date, wall time, device, claims); empty if none."""
    from qwem_lib.book.report import load_paper_records

    return load_paper_records(root / "reproduction" / "records-paper").get(stem) or {}


def stage_reproduction(src: Path, chapters: list[Chapter]) -> list[str]:
    """REPRODUCTION as a front page (the verdict map) and one page of claims per chapter."""
    claims_path = ROOT / "reproduction" / "claims.json"
    map_path = ROOT / "reproduction" / "paper_claims.json"
    claims = json.loads(claims_path.read_text(encoding="utf-8")) if claims_path.is_file() else []
    entries = json.loads(map_path.read_text(encoding="utf-8")) if map_path.is_file() else []
    from qwem_lib.book.paper_map import template_claims
    from qwem_lib.book.report import load_paper_records

    # the map's {claim:ID@paper} templates read the committed paper-preset records
    tclaims = template_claims(claims, load_paper_records())
    by_stem = {c.stem: c for c in chapters}
    chapter_of = {c["id"]: c["chapter"] for c in claims}
    (src / "reproduction").mkdir(parents=True, exist_ok=True)
    for data in (claims_path, map_path):  # linked from the page below: downloads
        if data.is_file():
            shutil.copy2(data, src / "reproduction" / data.name)
    lines = [
        "# Reproduction report",
        "",
        "Every statement of the two papers the book judges, with its verdict, then every claim the chapters",
        "check, chapter by chapter. The chapters record their claims when they are executed (`make book`);",
        "the same data are in [reproduction/claims.json](reproduction/claims.json) and",
        "[reproduction/paper_claims.json](reproduction/paper_claims.json). A **finding** could come out",
        "otherwise if the paper or the mathematics were wrong; a **consistency** check guards the code; a",
        "**record** pins one of the book's own measurements. Only findings are evidence about the papers.",
        "",
    ]
    if claims:
        passed = sum(bool(c["passed"]) for c in claims)
        fnd = [c for c in claims if c["kind"] == "finding"]
        lines += [
            f"**{sum(bool(c['passed']) for c in fnd)} of {len(fnd)} findings pass; {passed} of "
            f"{len(claims)} claims in all.**",
            "",
        ]
    if entries:
        from qwem_lib.book.paper_map import (
            DRIFTED_MARK,
            SOURCES_NOTE,
            beyond_sentence,
            counts_sentence,
            number_cells,
        )

        lines += [
            "## The verdict map",
            "",
            f"{counts_sentence(entries)} {beyond_sentence(entries)}",
            "",
            SOURCES_NOTE
            + f" {DRIFTED_MARK}: from a paper-preset record executed from an earlier version of its "
            "chapter (shown, not evidence).",
            "",
            "| statement | verdict | paper | book preset | paper preset | chapters |",
            "|---|---|---|---|---|---|",
        ]
        for e in entries:
            stems = sorted(
                {
                    chapter_of[i.removesuffix("@paper")]
                    for i in e.get("evidence", [])
                    if i.removesuffix("@paper") in chapter_of
                },
                key=str,
            )
            links = (
                ", ".join(f"[{s[:2]}](notebooks/{s}.ipynb)" for s in stems if s in by_stem) or "—"
            )
            paper, book, at_paper = (
                number_cells(e, tclaims, escape=False)
                if e["paper"] != "beyond"
                else ("—", "—", "—")
            )
            lines.append(
                f"| **{_esc(e['paper'])}, {_esc(e['where'])}.** "
                f"{apparatus.md_math(_filled(e['statement'], tclaims), table=True)} | "
                f"{VERDICT_MARK.get(e['verdict'], e['verdict'])}"
                + (" *(wording)*" if e.get("wording") else "")
                + " | "
                + " | ".join(apparatus.md_math(x, table=True) for x in (paper, book, at_paper))
                + f" | {links} |"
            )
        lines.append("")
    lines += [
        "## Claims by chapter",
        "",
        "| chapter | findings | consistency | records |",
        "|---|---|---|---|",
    ]
    pages = []
    for ch in chapters:
        rows = [c for c in claims if c["chapter"] == ch.stem]
        if not rows:
            continue
        t = {
            k: (
                sum(bool(c["passed"]) for c in rows if c["kind"] == k),
                sum(c["kind"] == k for c in rows),
            )
            for k in ("finding", "consistency", "record")
        }
        lines.append(
            f"| [{apparatus.md_math(ch.title, table=True)}](reproduction/{ch.stem}.md) | "
            + " | ".join(f"{p}/{n}" for p, n in t.values())
            + " |"
        )
        at_paper = paper_preset_values(ch.stem)
        body = [
            f"# {ch.title}: the claims",
            "",
            f"Recorded by [the chapter](../notebooks/{ch.stem}.ipynb) when it was last executed. "
            f"Findings {t['finding'][0]}/{t['finding'][1]}, consistency checks "
            f"{t['consistency'][0]}/{t['consistency'][1]}, records {t['record'][0]}/{t['record'][1]}. "
            "Each claim gives the book's value (at the preset the chapter was executed with), its value at "
            "the `paper` preset when the chapter has been run at it (`reproduction/records-paper/`; "
            + (
                f"{len(at_paper)} claims here"
                if at_paper
                else "not yet for this chapter: shown as —"
            )
            + ") and the paper's value where it states one.",
            "",
        ]
        if at_paper and (ROOT / "reproduction" / "paper" / f"{ch.stem}.ipynb").is_file():
            from qwem_lib.book.report import drift_note

            rec = load_paper_record(ch.stem)
            (src / "reproduction" / "paper").mkdir(parents=True, exist_ok=True)
            shutil.copy2(
                ROOT / "reproduction" / "paper" / f"{ch.stem}.ipynb",
                src / "reproduction" / "paper" / f"{ch.stem}.ipynb",
            )
            body += [
                f"At the `paper` preset the chapter ran on {rec.get('machine', '?')} "
                f"({rec.get('device', '?')}), {str(rec.get('date', '?'))[:10]}, in "
                f"{apparatus.fmt_wall(rec.get('wall_s'))}: "
                "{download}`the executed notebook at the paper preset "
                f"<paper/{ch.stem}.ipynb>` (a download). " + drift_note(ch.stem),
                "",
            ]
        for k in ("finding", "consistency", "record"):
            ks = [c for c in rows if c["kind"] == k and not report.is_solution(c)]
            if not ks:
                continue
            body += [f"## {k.capitalize()}s" if k != "consistency" else "## Consistency checks", ""]
            for c in ks:
                mark = "**pass**" if c["passed"] else "**FAIL**"
                paper = (
                    f" · paper: **{_esc(_value(c['paper']))}**" if c["paper"] is not None else ""
                )
                pp = at_paper.get(c["id"])
                pp_text = (
                    f"**{_esc(_value(pp.get('value')))}** ({'pass' if pp.get('passed') else 'FAIL'})"
                    if pp
                    else "—"
                )
                body += [
                    f"- {mark} {apparatus.md_math(c['statement'])}",
                    "",
                    f"  book: **{_esc(_value(c['value']))}** · paper preset: {pp_text}{paper} · "
                    f"tolerance: {_esc(_value(c['tolerance']))} · "
                    f"{c['preset']} / {c['device']} · `{c['id']}`",
                    "",
                ]
        answers = [c for c in rows if report.is_solution(c)]
        if answers:
            body += [
                f"The chapter also checks its exercises' solutions ({sum(bool(c['passed']) for c in answers)} "
                f"of {len(answers)} pass); they are not listed here, since they are the answers.",
                "",
            ]
        (src / "reproduction" / f"{ch.stem}.md").write_text("\n".join(body), encoding="utf-8")
        pages.append(f"reproduction/{ch.stem}")
    toc = "\n".join(pages)
    lines += ["", f"```{{toctree}}\n:hidden:\n:maxdepth: 1\n\n{toc}\n```", ""]
    (src / "REPRODUCTION.md").write_text("\n".join(lines), encoding="utf-8")
    return pages


def notation_page(src: Path, intro_nb: dict | None) -> None:
    """The notation page: chapter 00's "## Notation" table, linked from every chapter."""
    table = ""
    if intro_nb is not None:
        md = "\n\n".join(
            ("".join(c["source"]) if isinstance(c["source"], list) else c["source"])
            for c in intro_nb["cells"]
            if c["cell_type"] == "markdown"
        )
        m = re.search(r"^## Notation\n(.*?)(?=^## |\Z)", md, re.M | re.S)
        if m:
            t = re.search(r"^\|.*$(?:\n\|.*$)*", m.group(1), re.M)
            table = t.group(0) if t else ""
    (src / "notation.md").write_text(
        "# Notation\n\nEvery chapter uses these symbols, and only in these meanings. The table is the one "
        "of [chapter 00](notebooks/00_introduction.ipynb), which the book treats as the reference "
        '(CONTRIBUTING, "Notation").\n\n' + (table or "*Chapter 00 has no notation table.*") + "\n",
        encoding="utf-8",
    )


def execution_page(src: Path, chapters: list[Chapter]) -> None:
    rows = "\n".join(
        f"| [{c.number}](notebooks/{c.stem}.ipynb) | " + apparatus.status_row(c.status) + " |"
        for c in chapters
        if c.status
    )
    total = sum(c.status.get("wall_s") or 0 for c in chapters)
    (src / "execution.md").write_text(
        "# Execution statistics\n\nHow each chapter's committed outputs were made: the preset and device "
        "its claims were recorded with, when it was executed and how long it took (from the notebook's own "
        "cell timings), the library version, and the claims that passed (all kinds; findings in brackets). "
        "The site renders these outputs and executes nothing.\n\n"
        "| chapter | preset | executed | wall time | device | library | claims passed |\n"
        "|---|---|---|---|---|---|---|\n"
        + rows
        + f"\n\nTotal wall time: {apparatus.fmt_wall(total)}.\n",
        encoding="utf-8",
    )


def references_page(src: Path) -> None:
    shutil.copy2(CONF_DIR / "references.bib", src / "references.bib")
    (src / "references.md").write_text(
        "# References\n\nThe papers the book reproduces, the authors' code it compares with, and the works "
        "the chapters rely on. Each chapter cites what it uses at its top.\n\n```{bibliography}\n:all:\n```\n",
        encoding="utf-8",
    )


def preface(chapters: list[Chapter], docs: list[str]) -> str:
    """The index: website/preface.md with the chapter map (reading times computed) and the toctrees."""
    text = (CONF_DIR / "preface.md").read_text(encoding="utf-8")
    total = sum(c.minutes for c in chapters)
    text = text.replace("{{VERSION}}", book_version())
    text = text.replace("{{TOTAL_HOURS}}", f"{total / 60:.0f}")
    text = text.replace("{{CHAPTER_MAP}}", chapter_map(chapters))
    minutes = {c.number: c.minutes for c in chapters}
    text = re.sub(
        r"\{\{MINUTES (\d\d)((?: \d\d)*)\}\}",
        lambda m: str(sum(minutes.get(n, 0) for n in [m.group(1)] + m.group(2).split())),
        text,
    )
    ref = "\n".join(["README", *docs, "notation", "execution", "references", "api/index"])
    return text.rstrip() + f"\n\n```{{toctree}}\n:caption: Reference\n:hidden:\n\n{ref}\n```\n"


def stage(src: Path) -> list[Chapter]:
    if src.exists():
        shutil.rmtree(src)
    (src / "notebooks").mkdir(parents=True)
    (src / "_raw" / "notebooks").mkdir(parents=True)
    sys.path.insert(0, str(ROOT))
    modules = library_modules()
    index = symbol_index(modules)

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    summaries = _readme_summaries(readme)
    chapters = find_chapters()
    version = book_version()
    timings = reader_tables.load_timings()
    nbs = {}
    for ch in chapters:
        nb = json.loads(ch.path.read_text(encoding="utf-8"))
        nbs[ch.stem] = nb
        ch.title = _title(nb, ch.stem)
        ch.summary = table_math(summaries.get(ch.number, ""))
        ch.minutes = apparatus.reading_minutes(nb)
        ch.status = apparatus.execution_status(nb, apparatus.load_records(ROOT, ch.stem), version)
        ch.run = run_text(timings, ch.number)
        text = "\n".join(
            "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in nb["cells"]
        )
        ch.cites = apparatus.citations_for(ch.number, text)
    ctx = {
        "stems": {c.number: c.stem for c in chapters},
        "fig_labels": {
            lab
            for nb in nbs.values()
            for c in nb["cells"]
            if c["cell_type"] == "markdown"
            and (
                lab := apparatus.caption_label(
                    "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                )
            )
        },
        "eq_labels": {
            lab
            for nb in nbs.values()
            for c in nb["cells"]
            if c["cell_type"] == "markdown"
            for lab in apparatus.equation_tags(
                "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            )
        },
        "statements": [],
        "chapter_map": chapter_table(chapters),
        "results": named_results(chapters, nbs),
    }
    seen: set[str] = set()
    for ch in chapters:
        ch.symbols, ch.modules = library_use(nbs[ch.stem], index, modules)
        first_here = [s for s in ch.symbols if s not in seen]
        seen.update(ch.symbols)
        stage_chapter(ch, src, first_here, ctx)

    staged: set[Path] = set()
    docs: list[str] = []
    stage_linked(readme, Path("."), src, staged, docs)
    for ch in chapters:  # what the chapters link to (e.g. ../REPRODUCTION.md)
        nb = nbs[ch.stem]
        md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        stage_linked(md, Path("notebooks"), src, staged, docs)
    for extra in ("REPRODUCTION.md", "data/README.md"):
        if (ROOT / extra).is_file() and Path(extra) not in staged:
            stage_linked(f"[x]({extra})", Path("."), src, staged, docs)
    # The README is a reference page (the readers' front door, linking the developers' guide,
    # CONTRIBUTING.md, staged above as a page it links); the index is the preface.
    (src / "README.md").write_text(readme_page(readme, chapters), encoding="utf-8")
    stage_linked(
        (CONF_DIR / "preface.md").read_text(encoding="utf-8"), Path("."), src, staged, docs
    )
    stage_linked("[x](LICENSE) [x](LICENSE-text.md)", Path("."), src, staged, docs)
    stage_reproduction(src, chapters)
    intro = next((nbs[c.stem] for c in chapters if c.number == "00"), None)
    notation_page(src, intro)
    execution_page(src, chapters)
    references_page(src)
    (src / "index.md").write_text(preface(chapters, docs), encoding="utf-8")
    stage_api(src, modules)
    return chapters


def sync_tree(fresh: Path, dest: Path) -> int:
    """Move a freshly staged tree onto ``dest``, touching only files whose bytes changed.

    Sphinx decides what to re-read by modification times: files left alone keep theirs, so a second
    ``make site`` re-renders only what changed. Returns the number of files written or removed.
    """
    n = 0
    dest.mkdir(parents=True, exist_ok=True)
    for f in fresh.rglob("*"):
        if f.is_dir():
            continue
        rel = f.relative_to(fresh)
        target = dest / rel
        if target.is_file() and target.read_bytes() == f.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
        n += 1
    for f in sorted(dest.rglob("*"), reverse=True):
        rel = f.relative_to(dest)
        if not (fresh / rel).exists():
            if f.is_dir():
                f.rmdir()
            else:
                f.unlink()
                n += 1
    shutil.rmtree(fresh)
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out", type=Path, default=ROOT / "_site", help="build folder (default: _site/)"
    )
    ap.add_argument("--jobs", default="1", help="sphinx-build -j (default 1)")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    src, html = out / "src", out / "html"
    fresh = out / "src.new"
    chapters = stage(fresh)
    changed = sync_tree(fresh, src)
    print(f"staged {len(chapters)} chapters under {src} ({changed} files changed)")
    cmd = [
        sys.executable,
        "-m",
        "sphinx",
        "-W",
        "--keep-going",
        "-q",
        "-b",
        "html",
        "-j",
        str(args.jobs),
        "-c",
        str(CONF_DIR),
        "-d",
        str(out / "doctrees"),
        str(src),
        str(html),
    ]
    rc = subprocess.call(cmd, cwd=ROOT)
    if rc == 0:
        print(f"site built: {html / 'index.html'}")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
