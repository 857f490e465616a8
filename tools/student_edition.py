"""The student edition: every chapter with its exercises and without their solutions (``make student``).

    python tools/student_edition.py                # writes _student/notebooks/NN_slug.ipynb (+ .py)
    python tools/student_edition.py --out DIR

Solutions are the source, as in a course whose exercise sheets are written from the solution sheets: each
chapter's ``<details><summary>Solution N</summary>`` Markdown cells are removed together with the code
cells that follow them (their checks and outputs; ``tools/presentation.py`` marks them), and the
"Solutions" heading becomes a line saying where they are. Everything else — the text, the checks, the
figures and the exercises — is kept as committed. The committed notebooks, the claim records and the
book's claim counts are untouched: the solution checks belong to the instructor edition (the book), and a
student edition writes any records it makes to its own folder (first cell, ``QWEM_REPORT_DIR``).
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import presentation  # noqa: E402

SOLUTIONS_HEAD = re.compile(r"^## Solutions[ \t]*$.*", re.M | re.S)
NOTE = (
    "## Solutions\n\n*This is the student edition: the solutions are in the instructor edition (the book's "
    "own notebooks).*"
)
SETUP = (
    "# Student edition: claim records go to a folder of their own, never to the book's.\n"
    "import os\n\n"
    'os.environ.setdefault("QWEM_REPORT_DIR", os.path.abspath("student-records"))'
)


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def solution_cells(nb: dict) -> list[int]:
    """Indices of the cells a student edition removes: solution Markdown and the code under it."""
    tags = presentation.cell_tags(nb["cells"])
    return [
        i
        for i, (c, t) in enumerate(zip(nb["cells"], tags))
        if presentation.is_solution_markdown(c) or "solution" in t
    ]


def student_notebook(nb: dict) -> dict:
    out = copy.deepcopy(nb)
    drop = set(solution_cells(out))
    cells = []
    for i, c in enumerate(out["cells"]):
        if i in drop:
            m = presentation.SOLUTION_RE.search(_src(c)) if c["cell_type"] == "markdown" else None
            if not (m and _src(c)[: m.start()].strip()):
                continue
            c["source"] = _src(c)[: m.start()]  # a cell that opens with the exercises keeps them
        if c["cell_type"] == "markdown" and SOLUTIONS_HEAD.search(_src(c)):
            c["source"] = SOLUTIONS_HEAD.sub(NOTE, _src(c))
        cells.append(c)
    setup = {
        "cell_type": "code",
        "execution_count": None,
        "metadata": {"tags": ["student-setup"]},
        "outputs": [],
        "source": SETUP,
    }
    if out.get("nbformat_minor", 0) >= 5:
        setup["id"] = "student-edition-setup"
    first_code = next((i for i, c in enumerate(cells) if c["cell_type"] == "code"), len(cells))
    cells.insert(first_code, setup)
    if not any(SOLUTIONS_HEAD.search(_src(c)) for c in cells if c["cell_type"] == "markdown"):
        cells.append({"cell_type": "markdown", "metadata": {}, "source": NOTE})
        if out.get("nbformat_minor", 0) >= 5:
            cells[-1]["id"] = "student-edition-note"
    out["cells"] = cells
    out.setdefault("metadata", {})["qwem_edition"] = "student"
    return out


def build(out_dir: Path, notebooks: list[Path] | None = None) -> list[Path]:
    import jupytext
    import nbformat

    paths = notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    (out_dir / "notebooks").mkdir(parents=True, exist_ok=True)
    written = []
    for p in paths:
        nb = json.loads(p.read_text(encoding="utf-8"))
        student = nbformat.reads(json.dumps(student_notebook(nb)), as_version=4)
        target = out_dir / "notebooks" / p.name
        nbformat.write(student, str(target))
        jupytext.write(student, str(target.with_suffix(".py")), fmt="py:percent")
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--out", type=Path, default=ROOT / "_student", help="output folder (default _student/)"
    )
    ap.add_argument("notebooks", nargs="*", type=Path)
    args = ap.parse_args(argv)
    written = build(args.out, args.notebooks or None)
    n_sol = sum(
        len(solution_cells(json.loads(p.read_text(encoding="utf-8"))))
        for p in (args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")))
    )
    print(
        f"student edition: {len(written)} chapters in {args.out / 'notebooks'} ({n_sol} solution cells removed)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
