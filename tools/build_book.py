"""Execute the book: every chapter (or those named) at the active preset, outputs into the .ipynb files.

    python tools/build_book.py                 # all chapters, preset from QWEM_PRESET (default book)
    python tools/build_book.py notebooks/10_*.py
    python tools/build_book.py 23 24           # chapters by number
    QWEM_PRESET=paper python tools/build_book.py 23   # = make book PRESET=paper CHAPTERS="23"

For each ``notebooks/NN_slug.py`` (the source of truth) this regenerates the paired ``.ipynb`` from it,
executes it in the ``notebooks/`` folder with a fresh kernel, and writes the executed notebook back.
At the book preset each chapter's wall time and the datasets it read are entered in
``reproduction/timings.json`` (``--cold``: each chapter from an empty cache, its cold run time; else a lower
bound), from which the README's chapter table and the course plan are generated.
Then it gathers the chapters' claim records into ``reproduction/claims.json``, ``REPRODUCTION.md`` (the
verdicts), ``reproduction/CLAIMS.md`` (the claim log) and the README's generated verdict block.
Only the ``book`` preset writes the committed notebooks and report (the build sets ``QWEM_BOOK_BUILD=1``
for the kernels it starts; a chapter run any other way records into the cache); ``smoke`` runs write theirs under
the cache folder (``.cache/executed-<preset>/``, ``.cache/report-<preset>/``). The ``paper`` preset is for
runs too slow for the book preset (20 minutes to hours; the chapters' long runs checkpoint to the cache,
so running the same command again resumes them): the executed chapter goes to
``reproduction/paper/NN_slug.ipynb`` and its claims, with machine, date, wall time and device, to
``reproduction/records-paper/NN_slug.json`` (both committed, checked by ``tests/test_paper_records.py``);
``REPRODUCTION.md`` is then regenerated from the book's records with the paper-preset value beside each
claim that has one.
It prints a progress bar across chapters and a summary table; it exits non-zero if any chapter failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def chapters(selected: list[str]) -> list[Path]:
    """The chapters named (paths, or bare two-digit numbers like ``23``), else all of them."""
    out = []
    for s in selected:
        if s.isdigit():
            found = sorted((ROOT / "notebooks").glob(f"{int(s):02d}_*.py"))
            if not found:
                raise SystemExit(f"no chapter numbered {s}")
            out += found
        else:
            out.append(Path(s).resolve())
    return out or sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))


def execute(py: Path, timeout: int) -> tuple[bool, float, str]:
    import jupytext
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = jupytext.read(py)
    nb.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    from traitlets.config import Config

    t0 = time.time()
    # IPC (a Unix socket) rather than TCP: nothing listens on a port, and ipykernel does not print its
    # "running over TCP without encryption" warning for every chapter, so real warnings stand out.
    cfg = Config()
    cfg.KernelManager.transport = "ipc"
    sockets = tempfile.mkdtemp(prefix="qwem-kernel-")
    cfg.KernelManager.ip = sockets + "/kernel"  # the socket files live here, not in the repository
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        config=cfg,
        resources={"metadata": {"path": str(py.parent)}},
    )
    ok, err = True, ""
    try:
        client.execute()
    except CellExecutionError as exc:
        ok, err = False, str(exc).strip().splitlines()[-1][:300]
    dt = time.time() - t0
    shutil.rmtree(sockets, ignore_errors=True)
    if ok:
        # an exception raised while *displaying* (e.g. a mathtext error inside plt.show()) leaves an error
        # output without stopping execution: treat it as a failure too
        for cell in nb.cells:
            for out in cell.get("outputs", []):
                if out.get("output_type") == "error":
                    ok, err = (
                        False,
                        f"error output: {out.get('ename')}: {out.get('evalue', '')[:200]}",
                    )
                elif (
                    out.get("output_type") == "stream"
                    and out.get("name") == "stderr"
                    and "Traceback (most recent call last)" in out.get("text", "")
                ):
                    ok, err = False, "a traceback was printed to stderr"
    tidy_streams(nb)
    present(nb)
    # jupytext.write keeps the pairing metadata filters of jupytext.toml; outputs come from execution
    jupytext.write(nb, target_for(py), fmt="ipynb")
    return ok, dt, err


def present(nb) -> None:
    """Presentation derived from the cells (``tools/presentation.py``): folded and hidden inputs, solution
    code marked, repr outputs dropped; and the pairing (``formats``) kept in the notebook's metadata, so a
    downloaded copy stays paired with its ``.py``."""
    sys.path.insert(0, str(ROOT / "tools"))
    import presentation

    presentation.apply(nb)
    nb.metadata.setdefault("jupytext", {})["formats"] = "ipynb,py:percent"


def tidy_streams(nb) -> None:
    """Make progress-bar output readable in the saved notebook.

    Consecutive stream outputs of one cell are merged, and each line keeps only the text after its last
    carriage return (what a terminal or JupyterLab shows in the end), so a tqdm bar is one final line.
    """
    import nbformat

    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        merged = []
        for out in cell.get("outputs", []):
            if (
                out.get("output_type") == "stream"
                and merged
                and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == out.get("name")
            ):
                merged[-1]["text"] += out["text"]
            else:
                merged.append(out)
        for out in merged:
            if out.get("output_type") == "stream":
                lines = out["text"].split("\n")
                out["text"] = "\n".join(line.rsplit("\r", 1)[-1] for line in lines)
        cell["outputs"] = [
            nbformat.from_dict(o)
            for o in merged
            if o.get("output_type") != "stream" or o["text"].strip()
        ]


def cell_timeout(preset: str) -> int:
    """The default per-cell timeout in seconds: one hour, four at the paper preset (chapter 41's K = 1,000
    runs of Figure 4 train for more than an hour in one cell on one core)."""
    return 4 * 3600 if preset == "paper" else 3600


def target_for(py: Path) -> Path:
    """The committed .ipynb for the book preset; a cache copy for the others (never overwrite the book)."""
    from qwem_lib import config

    if config.preset() == "book":
        return py.with_suffix(".ipynb")
    if config.preset() == "paper":
        from qwem_lib.book.report import PAPER_NOTEBOOKS

        PAPER_NOTEBOOKS.mkdir(parents=True, exist_ok=True)
        return PAPER_NOTEBOOKS / py.with_suffix(".ipynb").name
    out = config.cache_dir() / f"executed-{config.preset()}"
    out.mkdir(parents=True, exist_ok=True)
    return out / py.with_suffix(".ipynb").name


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("chapters", nargs="*", help="chapter .py files (default: all)")
    ap.add_argument(
        "--timeout",
        type=int,
        default=None,
        help="per-cell timeout in seconds (default: 3600, and 4 times that at the paper preset, where one "
        "cell may train for hours)",
    )
    ap.add_argument(
        "--no-report", action="store_true", help="do not regenerate the reproduction report"
    )
    ap.add_argument(
        "--cold",
        action="store_true",
        help="run each chapter with a fresh, empty cache (removed afterwards): its time is the cold run "
        "time that reproduction/timings.json records (book preset); without it a run records a lower bound",
    )
    ap.add_argument(
        "--tidy-only",
        action="store_true",
        help="only tidy the stream outputs of the existing .ipynb files (no execution)",
    )
    args = ap.parse_args()
    if args.tidy_only:
        import nbformat

        for py in chapters(args.chapters):
            nb = nbformat.read(py.with_suffix(".ipynb"), as_version=4)
            tidy_streams(nb)
            nbformat.write(nb, py.with_suffix(".ipynb"))
        return 0

    from tqdm import tqdm

    from qwem_lib import config, report

    # Only the build writes the committed records and report (at the book preset): the kernels it starts
    # inherit this, a chapter run by hand or in JupyterLab does not (qwem_lib.book.config.building_book).
    os.environ[config.BUILD_ENV] = "1"
    # The committed notebooks must show their figures: a kernel started with MPLBACKEND=Agg (as the tests
    # set it) would draw every figure off-screen and save none. Let ipykernel choose its inline backend.
    dropped = os.environ.pop("MPLBACKEND", None)
    if dropped:
        print(f"(MPLBACKEND={dropped} ignored: executed chapters keep their figures)")

    sys.path.insert(0, str(ROOT / "tools"))
    import reader_tables

    cache_before = os.environ.get("QWEM_CACHE_DIR")
    machine = f"{config.device_name()}, {os.cpu_count()} CPU threads"
    todo = chapters(args.chapters)
    if args.timeout is None:
        args.timeout = cell_timeout(config.preset())
    print(f"Executing {len(todo)} chapter(s): {config.describe()}")
    rows = []
    bar = tqdm(todo, unit="chapter")
    paper = config.preset() == "paper"
    for py in bar:
        bar.set_description(py.stem)
        if paper:  # the chapter's records go to a fresh folder, then into its paper record
            rec_dir = Path(tempfile.mkdtemp(prefix="qwem-paper-records-"))
            os.environ["QWEM_REPORT_DIR"] = str(rec_dir)
        data_log = Path(tempfile.mkstemp(prefix="qwem-data-log-")[1])
        os.environ["QWEM_DATA_LOG"] = str(data_log)
        cold_cache = Path(tempfile.mkdtemp(prefix="qwem-cold-cache-")) if args.cold else None
        if cold_cache is not None:
            os.environ["QWEM_CACHE_DIR"] = str(cold_cache)
        try:
            ok, dt, err = execute(py, args.timeout)
        finally:
            if cold_cache is not None:
                shutil.rmtree(cold_cache, ignore_errors=True)
                if cache_before is None:
                    os.environ.pop("QWEM_CACHE_DIR", None)
                else:
                    os.environ["QWEM_CACHE_DIR"] = cache_before
        rows.append((py.stem, ok, dt, err))
        datasets = set(data_log.read_text(encoding="utf-8").split())
        data_log.unlink(missing_ok=True)
        if ok and config.preset() == "book" and not args.no_report:
            timed = reader_tables.load_timings()
            if reader_tables.record_run(
                timed,
                py.stem[:2],
                dt / 60,
                cold=args.cold,
                datasets=datasets,
                when=time.strftime("%Y-%m-%d"),
                machine=machine,
            ):
                reader_tables.save_timings(timed)
        if paper:
            got = report.load_records(rec_dir)
            out = report.write_paper_record(py.stem, got, wall_s=dt, executed=ok)
            tqdm.write(f"{py.stem}: {len(got)} claims at the paper preset -> {out}")
            shutil.rmtree(rec_dir, ignore_errors=True)
            os.environ.pop("QWEM_REPORT_DIR", None)
        if not ok:
            tqdm.write(f"FAILED {py.stem}: {err}")
    if paper:
        # the committed report: the book's records, with the paper-preset values beside them
        claims = (
            []
            if args.no_report
            else report.aggregate(ROOT / "reproduction" / "records", out_dir=ROOT)
        )
        paper_claims = [c for py in todo for c in report.load_paper_records()[py.stem]["claims"]]
        return (
            0 if all(ok for _, ok, _, _ in rows) and all(c["passed"] for c in paper_claims) else 1
        )
    claims = [] if args.no_report else report.aggregate()
    if config.preset() == "book" and not args.no_report:
        # the reading times of the README's chapter table and the course plan come from the committed
        # notebooks just written (tools/reader_tables.py; tests/test_reader_tables.py checks them)
        reader_tables.main([])
    print("\n| chapter | status | minutes |\n|---|---|---|")
    for name, ok, dt, err in rows:
        print(f"| {name} | {'ok' if ok else 'FAILED: ' + err} | {dt / 60:.1f} |")
    if claims:
        print(
            f"\nReproduction report: {report.headline(claims)} -> {report.report_root()}/REPRODUCTION.md"
        )
    if config.preset() not in ("book", "paper"):
        print(
            f"(preset {config.preset()}: executed notebooks are in {target_for(todo[0]).parent}, "
            "the committed ones are untouched)"
        )
    return 0 if all(ok for _, ok, _, _ in rows) and all(c["passed"] for c in claims) else 1


if __name__ == "__main__":
    sys.exit(main())
