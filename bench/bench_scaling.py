"""How the closed-form pipeline's cost grows with the corpus and the vocabulary: time and peak memory
of each stage for every (corpus, V) on a grid.

    python bench/bench_scaling.py                         # 1.7M, 17M, 70M tokens x V = 2,000, 10,000, 20,000
    python bench/bench_scaling.py --corpora enwiki2015_1m7 --V 2000 10000   # a part of the grid

Each grid point runs in a fresh process with a cold cache (a new temporary ``QWEM_CACHE_DIR``), so
nothing is reused between points. Stages: read + tokenise, count co-occurrences, build M* (float32), top-d
eigenpairs. Peak memory per stage is measured with ``tracemalloc`` (NumPy reports its array allocations
to it; the compiled counting kernel writes into a NumPy array), reset between stages; the process's
maximum resident size is recorded too. Results: ``bench/results/scaling.json`` and ``scaling.png``; a
Markdown table is printed for ``bench/README.md``.
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


def one(corpus: str, V: int, d: int) -> dict:
    import resource
    import tracemalloc

    os.environ["QWEM_CACHE_DIR"] = tempfile.mkdtemp(prefix="qwem-scaling-")
    sys.path.insert(0, str(ROOT))
    import numpy as np

    import qwem_lib as q

    q.cooccurrence_counts(np.array([0, 1, 0, 1]), 2, 2)  # compile the counting kernel outside the timing
    out: dict = dict(corpus=corpus, V=V, d=d, time_s={}, peak_mib={})
    tracemalloc.start()

    def stage(name, fn):
        tracemalloc.reset_peak()
        t0 = time.perf_counter()
        r = fn()
        out["time_s"][name] = time.perf_counter() - t0
        out["peak_mib"][name] = tracemalloc.get_traced_memory()[1] / 2**20
        return r

    c = stage("tokenise", lambda: q.load_corpus(corpus))
    out["tokens"] = c.n_tokens
    words, P, pu = stage("count", lambda: q.cooccurrence(c, V, use_cache=False))
    M = stage("M*", lambda: q.mstar_from_stats(P, pu, dtype=np.float32))
    del P
    lam, U = stage("eigensolve", lambda: q.top_eigenpairs(M, d))
    out["maxrss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=["enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"])
    ap.add_argument("--V", nargs="+", type=int, default=[2000, 10_000, 20_000])
    ap.add_argument("--d", type=int, default=200)
    ap.add_argument("--one", nargs=2, metavar=("CORPUS", "V"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), args.d)))
        return 0
    rows = []
    for corpus in args.corpora:
        for V in args.V:
            proc = subprocess.run([sys.executable, __file__, "--one", corpus, str(V), "--d", str(args.d)],
                                  capture_output=True, text=True)
            if proc.returncode:
                print(f"{corpus} V={V}: failed\n{proc.stderr[-2000:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(r)
            print(f"{corpus:16s} V={V:6,d} " + "  ".join(
                f"{s} {r['time_s'][s]:6.1f}s/{r['peak_mib'][s]:6.0f}MiB" for s in STAGES), flush=True)
    res_dir = ROOT / "bench" / "results"
    res_dir.mkdir(parents=True, exist_ok=True)
    (res_dir / "scaling.json").write_text(json.dumps(dict(loadavg_end=os.getloadavg(), rows=rows), indent=1) + "\n")
    print("\n| corpus (tokens) | V | " + " | ".join(f"{s} s / peak MiB" for s in STAGES) + " | max RSS MiB |")
    print("|---|---|" + "---|" * (len(STAGES) + 1))
    for r in rows:
        print(f"| {r['corpus']} ({r['tokens'] / 1e6:.1f}M) | {r['V']:,} | " + " | ".join(
            f"{r['time_s'][s]:.1f} / {r['peak_mib'][s]:,.0f}" for s in STAGES) + f" | {r['maxrss_mib']:,.0f} |")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(ROOT))
    from qwem_lib import plotting

    plotting.use_style()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for corpus in args.corpora:
        rs = [r for r in rows if r["corpus"] == corpus]
        if not rs:
            continue
        for s, ls in zip(("count", "eigensolve"), ("-", "--")):
            axes[0].plot([r["V"] for r in rs], [r["time_s"][s] for r in rs], ls, marker="o",
                         label=f"{s}, {rs[0]['tokens'] / 1e6:.0f}M tokens")
        axes[1].plot([r["V"] for r in rs], [max(r["peak_mib"].values()) for r in rs], marker="o",
                     label=f"{rs[0]['tokens'] / 1e6:.0f}M tokens")
    axes[0].set(xscale="log", yscale="log", xlabel="vocabulary size V", ylabel="wall time (s)",
                title="Counting and eigensolve time")
    axes[1].set(xscale="log", yscale="log", xlabel="vocabulary size V", ylabel="peak traced memory (MiB)",
                title="Peak memory of the largest stage")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(res_dir / "scaling.png", dpi=120)
    print(f"\nresults: {res_dir / 'scaling.json'}, {res_dir / 'scaling.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
