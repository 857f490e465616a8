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

#: Parts of the book, by the first digit of a chapter's number (README, "Chapters").
PARTS = {
    "0": "Introduction",
    "1": "QWEM: the theory",
    "2": "QWEM on real text",
    "3": "Linear structure",
    "4": "Feature collapse",
    "5": "Beyond the papers",
}
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
            note(mod, node)
            for a in node.names:
                obj = getattr(mod, a.name, None)
                if obj is None and a.name != "*":
                    obj = importlib.import_module(f"{node.module}.{a.name}")
                if obj is not None:
                    aliases[a.asname or a.name] = obj
                    note(obj, node)
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


def chapter_header(ch: Chapter, first_here: list[str]) -> str:
    """The Markdown cell put under a chapter's title: its sources and the library it uses."""
    lines = [
        f"**Source of this chapter:** {{download}}`{ch.stem}.ipynb <../_raw/notebooks/{ch.stem}.ipynb>` "
        f"(the notebook, with the book preset's outputs) · "
        f"{{download}}`{ch.stem}.py <../_raw/notebooks/{ch.stem}.py>` (jupytext source of truth)."
    ]
    if ch.modules:
        mods = ", ".join(f"[`{m}`](../api/{m}.md)" for m in ch.modules)
        lines.append(f"**Library modules used:** {mods}.")
    if first_here:
        objs = ", ".join(f"{{py:obj}}`{s.rsplit('.', 1)[1]} <{s}>`" for s in first_here)
        lines.append(f"**First use in the book:** {objs}.")
    return "\n\n".join(lines)


def stage_chapter(ch: Chapter, src: Path, first_here: list[str]) -> None:
    nb = json.loads(ch.path.read_text(encoding="utf-8"))
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
    (src / "notebooks" / ch.path.name).write_text(
        json.dumps(nb, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    raw = src / "_raw" / "notebooks"
    shutil.copy2(ch.path, raw / ch.path.name)
    py = ch.path.with_suffix(".py")
    if py.exists():
        shutil.copy2(py, raw / py.name)


def _readme_summaries(readme: str) -> dict[str, str]:
    """README's chapter table: number -> the "result" column."""
    out = {}
    for m in re.finditer(r"^\|\s*(\d\d)\s*\|[^|]*\|\s*(.*?)\s*\|\s*$", readme, re.M):
        out[m.group(1)] = m.group(2)
    return out


def chapter_map(chapters: list[Chapter]) -> str:
    """The index's chapter map: one table and one toctree per part."""
    blocks = []
    for digit in sorted({c.number[0] for c in chapters}):
        part = [c for c in chapters if c.number[0] == digit]
        name = PARTS.get(digit, f"Part {digit}")
        rows = "\n".join(
            f"| {c.number} | [{c.title}](notebooks/{c.stem}.ipynb) | {c.summary} |" for c in part
        )
        toc = "\n".join(f"notebooks/{c.stem}" for c in part)
        blocks.append(
            f"### Part {digit} · {name}\n\n| | chapter | result |\n|---|---|---|\n{rows}\n\n"
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
    seen: set[str] = set()
    for ch in chapters:
        nb = json.loads(ch.path.read_text(encoding="utf-8"))
        ch.title = _title(nb, ch.stem)
        ch.summary = summaries.get(ch.number, "")
        ch.symbols, ch.modules = library_use(nb, index, modules)
        first_here = [s for s in ch.symbols if s not in seen]
        seen.update(ch.symbols)
        stage_chapter(ch, src, first_here)

    staged: set[Path] = set()
    docs: list[str] = []
    stage_linked(readme, Path("."), src, staged, docs)
    for ch in chapters:  # what the chapters link to (e.g. ../REPRODUCTION.md)
        nb = json.loads(ch.path.read_text(encoding="utf-8"))
        md = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        stage_linked(md, Path("notebooks"), src, staged, docs)
    for extra in ("REPRODUCTION.md", "data/README.md"):
        if (ROOT / extra).is_file() and Path(extra) not in staged:
            stage_linked(f"[x]({extra})", Path("."), src, staged, docs)
    (src / "index.md").write_text(stage_index(readme, chapters, docs), encoding="utf-8")
    stage_api(src, modules)
    return chapters


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out", type=Path, default=ROOT / "_site", help="build folder (default: _site/)"
    )
    ap.add_argument("--jobs", default="1", help="sphinx-build -j (default 1)")
    args = ap.parse_args(argv)
    out = args.out.resolve()
    src, html = out / "src", out / "html"
    chapters = stage(src)
    print(f"staged {len(chapters)} chapters under {src}")
    if html.exists():
        shutil.rmtree(html)
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
