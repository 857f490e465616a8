"""How a chapter's cells are presented: derived from their content, never typed by hand.

    python tools/presentation.py                    # every committed notebooks/NN_*.ipynb, in place
    python tools/presentation.py notebooks/10_*.ipynb
    python tools/presentation.py --check            # exit 1 if a notebook lacks its presentation

The chapters' ``.py`` sources stay free of presentation metadata; this module derives it from what the
cells contain, and ``tools/build_book.py`` applies it to every notebook it writes (the website build
applies it again to its staged copies, so the site never depends on a notebook having been re-written):

* a code cell whose code is only ``prose(...)`` calls gets the tag ``remove-input`` (the site shows the
  text it prints, not the f-string that made it); a cell that computes and then calls ``prose`` gets
  ``hide-input`` (its code folded behind a toggle, its text shown);
* a long verification cell (a claim through ``rep.``, more than :data:`LONG_CELL` lines) gets
  ``hide-input``: folded by default, its ``[PASS]`` lines always shown;
* the code cells that follow a solution (a Markdown cell opening ``<details><summary>Solution``) get the
  tag ``solution`` and are hidden with it;
* in JupyterLab the same cells open folded: ``metadata.jupyter.source_hidden`` (and ``outputs_hidden``
  for a solution's code), which JupyterLab reads;
* ``execute_result`` outputs that are an object's repr and nothing a reader needs — a ``Claim(...)`` that
  repeats the ``[PASS]`` line above it, ``<matplotlib.legend.Legend at 0x…>``, ``np.float64(…)`` — are
  dropped, and a NumPy scalar's repr inside printed text (``{np.float64(0.1): …}``) is shown as the
  number.

Every step is idempotent: applying it twice gives the same notebook.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: A verification cell longer than this (lines of code) is folded.
LONG_CELL = 15
#: Tags this module owns (it removes them where they no longer apply, and leaves every other tag alone).
DERIVED_TAGS = ("remove-input", "hide-input", "solution")

#: A NumPy scalar's repr inside printed text (``print({np.float64(0.1): …})``): shown as the bare number.
NUMPY_SCALAR_RE = re.compile(r"\bnp\.(float|int|uint|complex)\d*\(([^()]*)\)")
CAPTION_RE = re.compile(r"^\s*\*\*Figure \d\d\.\d+\*\*")
SOLUTION_RE = re.compile(r"<details>\s*<summary>\s*Solution\b", re.I)
#: Reprs that say nothing to a reader: a Claim (its [PASS] line is printed above it), a matplotlib
#: artist (``<matplotlib.legend.Legend at 0x7f…>``, lists of them), a NumPy scalar's repr.
REPR_RE = re.compile(
    r"^\s*(Claim\(|\[?<matplotlib\.[\w.]+ (object )?at 0x[0-9a-f]+>|"
    r"\(?np\.(float|int|bool_|complex)\w*\(|<Figure size [^>]*>$|Text\(-?[\d.e+-]+, -?[\d.e+-]+, )",
    re.S,
)


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _is_prose_call(node: ast.AST) -> bool:
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    f = node.value.func
    return (isinstance(f, ast.Name) and f.id == "prose") or (
        isinstance(f, ast.Attribute) and f.attr == "prose"
    )


def prose_kind(code: str) -> str | None:
    """``'pure'`` if the cell is only ``prose(...)`` calls, ``'mixed'`` if it also computes, else None."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    if not tree.body:
        return None
    calls = [n for n in ast.walk(tree) if _is_prose_call(n)]
    if not calls:
        return None
    return "pure" if all(_is_prose_call(s) for s in tree.body) else "mixed"


def is_claim_cell(code: str) -> bool:
    return bool(re.search(r"\brep\.(close|below|above|ordered|check)\(", code))


def is_solution_markdown(cell: dict) -> bool:
    return cell.get("cell_type") == "markdown" and bool(SOLUTION_RE.search(_source(cell)))


def is_repr_output(out: dict) -> bool:
    """An ``execute_result`` that only shows an object's repr (no image, no HTML, no Markdown)."""
    if out.get("output_type") != "execute_result":
        return False
    data = out.get("data", {})
    if set(data) - {"text/plain"}:
        return False
    text = data.get("text/plain", "")
    text = "".join(text) if isinstance(text, list) else text
    return bool(REPR_RE.match(text))


def cell_tags(cells: list[dict]) -> list[set[str]]:
    """The derived tags of every cell, in order (empty sets for cells that get none)."""
    tags: list[set[str]] = []
    in_solution = False
    for cell in cells:
        t: set[str] = set()
        if cell.get("cell_type") == "markdown":
            if in_solution and CAPTION_RE.match(_source(cell)):
                t.add("solution")  # a figure drawn by a solution's code: its caption belongs to it
            else:
                in_solution = is_solution_markdown(cell)
        elif cell.get("cell_type") == "code":
            code = _source(cell)
            kind = prose_kind(code)
            if in_solution:
                t.add("solution")
            if kind == "pure":
                t.add("remove-input")
            elif kind == "mixed":
                t.add("hide-input")
            elif is_claim_cell(code) and len(code.strip().splitlines()) > LONG_CELL:
                t.add("hide-input")
        tags.append(t)
    return tags


def apply(nb: dict) -> dict:
    """Set the derived tags and JupyterLab's folding on ``nb`` (a notebook as a dict), drop repr outputs."""
    for cell, derived in zip(nb["cells"], cell_tags(nb["cells"])):
        md = cell.setdefault("metadata", {})
        kept = [t for t in md.get("tags", []) if t not in DERIVED_TAGS]
        tags = kept + [t for t in DERIVED_TAGS if t in derived]
        if tags:
            md["tags"] = tags
        else:
            md.pop("tags", None)
        if cell.get("cell_type") != "code":
            continue
        jl = {
            k: v
            for k, v in md.get("jupyter", {}).items()
            if k not in ("source_hidden", "outputs_hidden")
        }
        if derived & {"remove-input", "hide-input", "solution"}:
            jl["source_hidden"] = True
        if "solution" in derived:
            jl["outputs_hidden"] = True
        if jl:
            md["jupyter"] = jl
        else:
            md.pop("jupyter", None)
        if "outputs" in cell:
            cell["outputs"] = [o for o in cell["outputs"] if not is_repr_output(o)]
            for o in cell["outputs"]:
                if o.get("output_type") == "stream":
                    text = "".join(o["text"]) if isinstance(o["text"], list) else o["text"]
                    o["text"] = NUMPY_SCALAR_RE.sub(r"\2", text)
    return nb


def apply_file(path: Path, check: bool = False) -> bool:
    """Apply to one .ipynb in place; return True if it changed (with ``check``, only report)."""
    text = path.read_text(encoding="utf-8")
    nb = json.loads(text)
    before = json.dumps(nb, sort_keys=True)
    apply(nb)
    changed = json.dumps(nb, sort_keys=True) != before
    if changed and not check:
        import nbformat

        nbformat.write(nbformat.from_dict(nb), str(path))
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--check", action="store_true", help="report, do not write; exit 1 on a change")
    args = ap.parse_args(argv)
    paths = args.notebooks or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    changed = [p for p in paths if apply_file(p, check=args.check)]
    for p in changed:
        print(("needs presentation: " if args.check else "presented: ") + p.name)
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
