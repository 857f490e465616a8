"""`make student`: every chapter without its solutions (prose, code, output), exercises and checks kept.

Builds the student edition from the committed notebooks into a temporary folder and checks that no
solution survives in it: no solution Markdown, no cell of a solution's code, no solution claim id, no
output a solution cell printed, and every chapter still has its exercises. The presentation rules that find
the solutions (tools/presentation.py) are checked on a small notebook too.
"""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
_spec = importlib.util.spec_from_file_location(
    "student_edition", ROOT / "tools" / "student_edition.py"
)
student = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(student)
import presentation  # noqa: E402

CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _src(c) -> str:
    s = c.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _outputs_text(c) -> list[str]:
    out = []
    for o in c.get("outputs", []):
        t = (
            o.get("text")
            or o.get("data", {}).get("text/plain")
            or o.get("data", {}).get("text/markdown")
        )
        if t:
            out.append("".join(t) if isinstance(t, list) else t)
    return out


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    out = tmp_path_factory.mktemp("student")
    student.build(out)
    return out / "notebooks"


@pytest.mark.parametrize("nb_path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_solution_survives(nb_path, edition):
    book = json.loads(nb_path.read_text(encoding="utf-8"))
    ed_path = edition / nb_path.name
    assert ed_path.is_file() and ed_path.with_suffix(".py").is_file(), f"{nb_path.name} not written"
    ed = json.loads(ed_path.read_text(encoding="utf-8"))
    removed = [book["cells"][i] for i in student.solution_cells(book)]
    assert removed, (
        f"{nb_path.name}: no solution found to remove (the book's chapters all have some)"
    )
    text = "\n".join(_src(c) for c in ed["cells"])
    outs = "\n".join(t for c in ed["cells"] for t in _outputs_text(c))
    assert "<summary>Solution" not in text and "<summary>Solution" not in outs
    assert ".solution." not in text and ".solution." not in outs, "a solution check survives"
    for c in removed:
        body = _src(c)
        m = presentation.SOLUTION_RE.search(body) if c["cell_type"] == "markdown" else None
        body = (body[m.start() :] if m else body).strip()
        assert body not in text, f"{nb_path.name}: a solution cell survives: {body[:80]!r}"
        for t in _outputs_text(c):
            if len(t.strip()) > 40:
                assert t.strip() not in outs, (
                    f"{nb_path.name}: a solution's output survives: {t[:80]!r}"
                )
    assert "## Exercises" in text, f"{nb_path.name}: the exercises were lost"
    assert "student edition" in text
    kept = len(book["cells"]) - len(removed)
    assert kept + 1 <= len(ed["cells"]) <= kept + 3, (
        "only the solution cells go (a setup cell is added)"
    )


def test_book_is_untouched(edition):
    """Building the edition changes no committed file (records, notebooks)."""
    import subprocess

    status = subprocess.run(
        ["git", "status", "--porcelain", "notebooks", "reproduction"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if status.returncode != 0:
        pytest.skip("not a git checkout")
    before = status.stdout
    student.build(edition.parent)
    after = subprocess.run(
        ["git", "status", "--porcelain", "notebooks", "reproduction"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    assert before == after


def _nb(cells):
    return {
        "cells": [
            {"cell_type": t, "metadata": {}, "source": s, **({"outputs": o} if t == "code" else {})}
            for t, s, o in cells
        ]
    }


def test_presentation_rules():
    claim_out = {"output_type": "execute_result", "data": {"text/plain": "Claim(id='a', ...)"}}
    legend = {
        "output_type": "execute_result",
        "data": {"text/plain": "<matplotlib.legend.Legend at 0x7f0>"},
    }
    number = {"output_type": "execute_result", "data": {"text/plain": "3.5"}}
    nb = _nb(
        [
            ("code", 'prose(f"x = {x}")', []),
            ("code", 'x = 1\nprose(f"x = {x}")', []),
            (
                "code",
                "\n".join(["y = 1"] * 20)
                + "\nrep.close('a', 's', value=1, target=1, tol=0, kind='record')",
                [claim_out],
            ),
            ("code", "ax.legend()", [legend]),
            ("code", "x + 2.5", [number]),
            ("markdown", "<details><summary>Solution 1</summary>\n\nText.\n\n</details>", None),
            ("code", "z = 2", []),
            ("markdown", "**Figure 10.3** — drawn by the solution.", None),
            ("code", "w = 3", []),
            ("markdown", "## Next", None),
            ("code", "v = 4", []),
        ]
    )
    tags = presentation.cell_tags(nb["cells"])
    assert tags[0] == {"remove-input"} and tags[1] == {"hide-input"} and tags[2] == {"hide-input"}
    assert tags[6] == {"solution"} and tags[7] == {"solution"} and tags[8] == {"solution"}
    assert tags[10] == set()
    presentation.apply(nb)
    again = json.loads(json.dumps(nb))
    presentation.apply(again)
    assert again == nb, "presentation is idempotent"
    assert nb["cells"][2]["outputs"] == [] and nb["cells"][3]["outputs"] == []
    assert nb["cells"][4]["outputs"] == [number], "a real value is kept"
    assert nb["cells"][0]["metadata"]["jupyter"] == {"source_hidden": True}
    assert nb["cells"][6]["metadata"]["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
