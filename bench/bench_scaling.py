"""How the closed-form pipeline's cost grows with the corpus and the vocabulary: time and peak memory
of each stage for every (corpus, V) on a grid.

    python bench/bench_scaling.py                         # 1.7M, 17M, 70M tokens x V = 2,000, 10,000, 20,000
    python bench/bench_scaling.py --corpora enwiki2015_1m7 --V 2000 10000   # a part of the grid
    python bench/bench_scaling.py --update --corpora enwiki2015_70m --V 2000  # re-measure one point, keep the rest

Each grid point runs in a fresh process with a cold cache (a new temporary ``QWEM_CACHE_DIR``), so
nothing is reused between points; the compiled kernels are loaded before the timing. Stages: read +
tokenise, count co-occurrences, build M* (float32, in the count table's memory), top-d eigenpairs. Peak
memory per stage is the process's peak *resident* memory during that stage (Linux ``VmHWM``, reset before
each stage through ``/proc/self/clear_refs``): everything resident counts, including the interpreter and
the arrays of earlier stages still held, and the compiled kernels' own allocations, which ``tracemalloc``
would miss. The process's maximum resident size is recorded too. Results: ``bench/results/scaling.json``
and ``scaling.png``; a Markdown table is printed for ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("tokenise", "count", "M*", "eigensolve")


def _reset_peak_rss() -> bool:
    """Reset the kernel's record of this process's peak resident memory (Linux: ``/proc/self/clear_refs``)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _peak_rss_mib() -> float:
    """This process's peak resident memory since the last reset (``VmHWM``), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def one(corpus: str, V: int, d: int) -> dict:
    import resource

    os.environ["QWEM_CACHE_DIR"] = tempfile.mkdtemp(prefix="qwem-scaling-")
    sys.path.insert(0, str(ROOT))
    import numpy as np

    import qwem_lib as q

    q.warm_up_kernels()  # the compiled kernels, loaded outside the timing (as in run_bench.py)
    out: dict = dict(corpus=corpus, V=V, d=d, time_s={}, peak_mib={})

    def stage(name, fn):
        _reset_peak_rss()
        t0 = time.perf_counter()
        r = fn()
        out["time_s"][name] = time.perf_counter() - t0
        out["peak_mib"][name] = _peak_rss_mib()
        return r

    c = stage("tokenise", lambda: q.load_corpus(corpus))
    out["tokens"] = c.n_tokens
    words, C, pu = stage("count", lambda: q.cooccurrence_table(c, V, use_cache=False))
    M = stage(
        "M*",
        lambda: q.target_from_counts(
            C,
            pu,
            "mstar",
            dtype=np.float32,
            out=C.view(np.float32) if C.dtype == np.int32 else None,
        ),
    )
    del C
    lam, U = stage("eigensolve", lambda: q.top_eigenpairs(M, d))
    out["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--corpora", nargs="+", default=["enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"]
    )
    ap.add_argument("--V", nargs="+", type=int, default=[2000, 10_000, 20_000])
    ap.add_argument("--d", type=int, default=200)
    ap.add_argument(
        "--update",
        action="store_true",
        help="keep the other rows of bench/results/scaling.json and replace only the points run now",
    )
    ap.add_argument(
        "--replot", action="store_true", help="redraw the table and plot from scaling.json only"
    )
    ap.add_argument("--one", nargs=2, metavar=("CORPUS", "V"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.d)))
        return 0
    rows = []
    res_dir = ROOT / "bench" / "results"
    if args.replot:
        rows = json.loads((res_dir / "scaling.json").read_text())["rows"]
        return report(rows, list(dict.fromkeys(r["corpus"] for r in rows)), res_dir)
    for corpus in args.corpora:
        for V in args.V:
            proc = subprocess.run(
                [sys.executable, __file__, "--one", corpus, str(V), "--d", str(args.d)],
                capture_output=True,
                text=True,
            )
            if proc.returncode:
                print(f"{corpus} V={V}: failed\n{proc.stderr[-2000:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(r)
            print(
                f"{corpus:16s} V={V:6,d} "
                + "  ".join(
                    f"{s} {r['time_s'][s]:6.1f}s/{r['peak_mib'][s]:6.0f}MiB" for s in STAGES
                ),
                flush=True,
            )
    res_dir.mkdir(parents=True, exist_ok=True)
    if args.update and (res_dir / "scaling.json").exists():
        new = {(r["corpus"], r["V"]) for r in rows}
        old = [
            r
            for r in json.loads((res_dir / "scaling.json").read_text())["rows"]
            if (r["corpus"], r["V"]) not in new
        ]
        rows = sorted(old + rows, key=lambda r: (r["tokens"], r["V"]))
        args.corpora = list(dict.fromkeys(r["corpus"] for r in rows))
    (res_dir / "scaling.json").write_text(
        json.dumps(dict(loadavg_end=os.getloadavg(), rows=rows), indent=1) + "\n"
    )
    return report(rows, args.corpora, res_dir)


def report(rows: list[dict], corpora: list[str], res_dir: Path) -> int:
    """Print the Markdown table and draw ``scaling.png`` from the measured rows."""
    print(
        "\n| corpus (tokens) | V | "
        + " | ".join(f"{s} s / peak MiB" for s in STAGES)
        + " | max RSS MiB |"
    )
    print("|---|---|" + "---|" * (len(STAGES) + 1))
    for r in rows:
        print(
            f"| {r['corpus']} ({r['tokens'] / 1e6:.1f}M) | {r['V']:,} | "
            + " | ".join(f"{r['time_s'][s]:.1f} / {r['peak_mib'][s]:,.0f}" for s in STAGES)
            + f" | {r['maxrss_mib']:,.0f} |"
        )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(ROOT))
    from qwem_lib import plotting

    plotting.use_style()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for i, corpus in enumerate(corpora):
        rs = [r for r in rows if r["corpus"] == corpus]
        if not rs:
            continue
        tag = f"{rs[0]['tokens'] / 1e6:.1f}M tokens"
        for ax, key in zip(axes, ("time_s", "peak_mib")):
            for s, ls in zip(("count", "eigensolve"), ("-", "--")):
                ax.plot(
                    [r["V"] for r in rs],
                    [r[key][s] for r in rs],
                    ls,
                    marker="o",
                    color=f"C{i}",
                    label=f"{s}, {tag}",
                )
    axes[0].set(
        xscale="log",
        yscale="log",
        xlabel="vocabulary size V",
        ylabel="wall time (s)",
        title="Time of the count and of the eigensolve",
    )
    axes[1].set(
        xscale="log",
        yscale="log",
        xlabel="vocabulary size V",
        ylabel="peak resident memory (MiB, process)",
        title="Peak memory during each stage",
    )
    Vs = sorted({r["V"] for r in rows})
    for ax, ticks in zip(axes, ((0.1, 0.3, 1, 3, 10, 30), (250, 500, 1000, 2000, 4000, 8000))):
        ax.set_xticks(Vs, [f"{v:,}" for v in Vs])
        lo, hi = ax.get_ylim()
        ax.set_yticks(
            [t for t in ticks if lo <= t <= hi], [f"{t:,g}" for t in ticks if lo <= t <= hi]
        )
        ax.minorticks_off()
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(res_dir / "scaling.png", dpi=120)
    print(f"\nresults: {res_dir / 'scaling.json'}, {res_dir / 'scaling.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
