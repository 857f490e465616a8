"""The book on a GPU, in one prepared run: ``make device-check`` (issue 42).

    python tools/device_check.py --out DIR [--budget-min 8] [--tiny] [--chapters 25 30]

A GPU machine is lent to this project rarely, for about fifteen minutes, on a bare image (python3 with
torch, numpy, scipy, matplotlib, seaborn, numba, sympy, pytest; no Jupyter, gensim or pooch; no network).
This script is everything such a run does, so that it needs no preparation there:

1. It records the machine: torch and CUDA versions, the device's name and memory.
2. It runs the unit tests that exercise the CUDA paths (``tests/test_cuda.py``: the same computations on
   the GPU and the CPU agree) and the integrator's tests, with pytest.
3. It executes chapters at the ``paper`` preset, in order of value (``--chapters``; by default the one a
   GPU changes most, chapter 25's Figure 7 at V = 10,000), each started only while the budget lasts.
   A chapter's ``.py`` is plain Python, so it runs without a Jupyter kernel: the cell runner of this
   file executes the paired notebook's code cells in order in one namespace and keeps each cell's printed
   output, figures and last value, as a kernel would. The executed notebook goes to ``DIR/NN_slug.ipynb``
   and its claims, with machine, date and wall time, to ``DIR/records-paper/NN_slug.json``
   (``qwem_lib.book.report.write_paper_record``): what ``make book PRESET=paper`` writes, to be
   committed after review.
4. It writes ``DIR/device_check.json``: the machine, the tests' outcome and the minutes of every step.

With ``--tiny`` (what ``make test`` runs, on the CPU, so that the script cannot rot) the chapters run at
the ``smoke`` preset and the claim records go to ``DIR`` only. Exit status: 0 when every step that ran
passed.
"""

from __future__ import annotations

import argparse
import ast
import base64
import contextlib
import io
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Chapters in the order a GPU run should take them, with the minutes each is expected to need there.
DEFAULT_CHAPTERS = {"25": 6.0}


def machine() -> dict[str, Any]:
    """What this run computes on."""
    import torch

    out: dict[str, Any] = {
        "host": platform.node(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "cpus": os.cpu_count(),
        "cuda": bool(torch.cuda.is_available()),
    }
    if torch.cuda.is_available():
        p = torch.cuda.get_device_properties(0)
        out.update(
            device=p.name,
            memory_gib=round(p.total_memory / 2**30, 1),
            cuda_version=torch.version.cuda,
        )
    else:
        out["device"] = "cpu"
    return out


def run_tests(out: Path, tiny: bool) -> dict[str, Any]:
    """The CUDA-path tests and the integrator's, with pytest, in a subprocess; their log to ``out``."""
    files = ["tests/test_cuda.py"] + ([] if tiny else ["tests/test_flow.py"])
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval", *files]
    t0 = time.time()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    log = proc.stdout + proc.stderr
    (out / "tests.log").write_text(log)
    tail = [line for line in log.strip().splitlines() if line.strip()][-1:] or [""]
    return {
        "files": files,
        "passed": proc.returncode == 0,
        "summary": tail[0],
        "seconds": time.time() - t0,
    }


# -- the cell runner --------------------------------------------------------------------------------
def _figures() -> list[dict[str, Any]]:
    """Every open matplotlib figure as a display_data output (PNG), then closed: a kernel's inline backend."""
    import matplotlib.pyplot as plt

    outs = []
    for num in plt.get_fignums():
        fig = plt.figure(num)
        buf = io.BytesIO()
        fig.savefig(buf, format="png", bbox_inches="tight", dpi=fig.dpi)
        outs.append(
            {
                "output_type": "display_data",
                "data": {
                    "image/png": base64.b64encode(buf.getvalue()).decode(),
                    "text/plain": [f"<Figure size {fig.get_figwidth():g}x{fig.get_figheight():g}>"],
                },
                "metadata": {},
            }
        )
    plt.close("all")
    return outs


def _stream(name: str, text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": name, "text": text}


def run_cell(source: str, ns: dict[str, Any]) -> tuple[list[dict[str, Any]], BaseException | None]:
    """Execute one code cell in ``ns`` as a kernel would: printed text, figures shown (at ``plt.show()``
    and at the cell's end), the value of a last bare expression; an exception stops the cell and becomes
    an error output. Returns the outputs and the exception (or None)."""
    import matplotlib.pyplot as plt

    outputs: list[dict[str, Any]] = []
    so, se = io.StringIO(), io.StringIO()

    def flush() -> None:
        for name, buf in (("stdout", so), ("stderr", se)):
            if buf.getvalue():
                outputs.append(_stream(name, buf.getvalue()))
                buf.seek(0)
                buf.truncate()

    def show(*_a: Any, **_k: Any) -> None:
        flush()
        outputs.extend(_figures())

    tree = ast.parse(source)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    body = ast.Module(body=tree.body[:-1] if last else tree.body, type_ignores=[])
    error: BaseException | None = None
    old_show = plt.show
    plt.show = show  # type: ignore[assignment]
    try:
        with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
            exec(compile(body, "<cell>", "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), ns)
                if value is not None:
                    flush()
                    outputs.append(
                        {
                            "output_type": "execute_result",
                            "data": {"text/plain": [repr(value)]},
                            "metadata": {},
                            "execution_count": None,
                        }
                    )
    except BaseException as exc:  # noqa: BLE001 - a cell's failure is reported, as a kernel reports it
        error = exc
    finally:
        plt.show = old_show  # type: ignore[assignment]
    flush()
    outputs.extend(_figures())
    if error is not None:
        outputs.append(
            {
                "output_type": "error",
                "ename": type(error).__name__,
                "evalue": str(error),
                "traceback": traceback.format_exception(type(error), error, error.__traceback__),
            }
        )
    return outputs, error


def execute_notebook(ipynb: Path, target: Path) -> tuple[bool, float, str]:
    """Run the code cells of ``ipynb`` (a paired chapter) in order in one namespace, from ``notebooks/``;
    write the executed notebook to ``target``. Returns ``(ok, seconds, error)``."""
    import matplotlib

    matplotlib.use("Agg")
    nb = json.loads(ipynb.read_text())
    ns: dict[str, Any] = {"__name__": "__main__"}
    cwd = os.getcwd()
    os.chdir(ipynb.parent)
    t0 = time.time()
    ok, err, count = True, "", 0
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            if not ok:
                cell["outputs"], cell["execution_count"] = [], None
                continue
            count += 1
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            outputs, exc = run_cell(src, ns)
            for o in outputs:
                if o["output_type"] == "execute_result":
                    o["execution_count"] = count
            cell["outputs"], cell["execution_count"] = outputs, count
            if exc is not None:
                ok, err = False, f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        os.chdir(cwd)
    seconds = time.time() - t0
    nb.setdefault("metadata", {})["qwem_runner"] = {
        "runner": "tools/device_check.py (cell runner, no Jupyter kernel)",
        "seconds": round(seconds, 1),
    }
    target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")
    return ok, seconds, err


def run_chapter(number: str, out: Path, tiny: bool) -> dict[str, Any]:
    """One chapter at the active preset: its executed notebook and (paper preset) its paper record."""
    from qwem_lib.book import report

    found = sorted((ROOT / "notebooks").glob(f"{int(number):02d}_*.ipynb"))
    if not found:
        raise SystemExit(f"no chapter numbered {number}")
    ipynb = found[0]
    rec_dir = out / f"records-{ipynb.stem}"
    rec_dir.mkdir(parents=True, exist_ok=True)
    os.environ["QWEM_REPORT_DIR"] = str(rec_dir)
    ok, seconds, err = execute_notebook(ipynb, out / ipynb.name)
    claims = report.load_records(rec_dir)
    result: dict[str, Any] = {
        "chapter": ipynb.stem,
        "executed": ok,
        "error": err,
        "minutes": round(seconds / 60, 2),
        "claims": len(claims),
        "claims_failed": [c["id"] for c in claims if not c["passed"]],
    }
    if not tiny:
        path = report.write_paper_record(
            ipynb.stem, claims, wall_s=seconds, executed=ok, directory=out / "records-paper"
        )
        rec = json.loads(path.read_text())
        rec["runner"] = "tools/device_check.py (cell runner, no Jupyter kernel)"
        path.write_text(json.dumps(rec, indent=1) + "\n")
    for f in rec_dir.glob("*.json"):  # the book-form records are in the paper record; keep one copy
        f.unlink()
    rec_dir.rmdir()
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--out", type=Path, required=True, help="the folder for everything the run writes"
    )
    ap.add_argument(
        "--budget-min", type=float, default=8.0, help="minutes for the whole run (default 8)"
    )
    ap.add_argument(
        "--tiny", action="store_true", help="the smoke preset on any machine (make test)"
    )
    ap.add_argument(
        "--chapters", nargs="*", default=None, help="chapter numbers, in order of value"
    )
    ap.add_argument("--no-tests", action="store_true", help="skip the unit tests")
    args = ap.parse_args(argv)
    t_start = time.time()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.environ["QWEM_PRESET"] = "smoke" if args.tiny else "paper"
    os.environ.setdefault("MPLBACKEND", "Agg")
    sys.path.insert(0, str(ROOT))
    summary: dict[str, Any] = {
        "machine": machine(),
        "preset": os.environ["QWEM_PRESET"],
        "steps": [],
    }

    def save() -> None:
        summary["minutes"] = round((time.time() - t_start) / 60, 2)
        (out / "device_check.json").write_text(json.dumps(summary, indent=1) + "\n")

    print(json.dumps(summary["machine"]), flush=True)
    save()
    ok = True
    if not args.no_tests:
        tests = run_tests(out, args.tiny)
        summary["tests"] = tests
        ok &= tests["passed"]
        print(f"tests: {tests['summary']} ({tests['seconds']:.0f} s)", flush=True)
        save()
    order = args.chapters if args.chapters is not None else list(DEFAULT_CHAPTERS)
    for number in order:
        left = args.budget_min - (time.time() - t_start) / 60
        need = 0.2 if args.tiny else DEFAULT_CHAPTERS.get(number, 5.0)
        if need > left:
            summary["steps"].append(
                {"chapter": number, "skipped": f"needs ~{need} min, {left:.1f} left"}
            )
            print(f"chapter {number}: skipped ({left:.1f} min left, ~{need} needed)", flush=True)
            save()
            continue
        step = run_chapter(number, out, args.tiny)
        summary["steps"].append(step)
        ok &= step["executed"] and not step["claims_failed"]
        print(
            f"chapter {step['chapter']}: {'ran' if step['executed'] else 'FAILED: ' + step['error']}, "
            f"{step['claims']} claims, {len(step['claims_failed'])} failed, {step['minutes']:.1f} min",
            flush=True,
        )
        save()
    summary["passed"] = bool(ok)
    save()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
