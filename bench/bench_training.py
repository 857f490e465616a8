"""Throughput of the SGD trainers of ``qwem_lib.qwem.trainers`` on the CPU: sampled pairs per second.

    python bench/bench_training.py                     # book and paper sizes, 1 thread, 30 timed steps each
    python bench/bench_training.py --threads 2 --steps 50

For each preset's (corpus, V, d) of chapter 23 it times ``--steps`` SGD steps of QWEM and of SGNS (after 3
warm-up steps), reports pairs (positive + negative) per second, and multiplies by the number of steps the
preset's schedule needs (``qwem_lib.qwem.runs.preset_schedule``: chapter 23's schedule from the
spectrum of M*, or of SGNS's
growth matrix, with its polish phase) to give the
expected training time of each run on this CPU. Statistics and eigenvalues come from the cache when
present. Results are merged into ``bench/results/training.json`` (one row per preset and model) and a
Markdown table of all rows is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# the sizes of chapter 23's presets (notebooks/23_training_on_text.py)
SIZES = {
    "smoke": dict(corpus="enwiki2015_1m7", V=300, d=2, batch=20_000, sigma_sq=1e-4),
    "book": dict(corpus="enwiki2015_17m", V=500, d=6, batch=50_000, sigma_sq=1e-4),
    "paper": dict(corpus="enwiki2015_17m", V=2_000, d=20, batch=50_000, sigma_sq=1e-4),
    "paper_scale": dict(corpus="enwiki2015_17m", V=10_000, d=200, batch=50_000, sigma_sq=1e-4),
}


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument(
        "--presets",
        default="smoke,book",
        help="add 'paper' (V = 2,000) or 'paper_scale' (V = 10,000, d = 200: minutes)",
    )
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    sys.path.insert(0, str(ROOT))

    import torch

    import qwem_lib as q
    import qwem_lib as tr

    torch.set_num_threads(args.threads)
    rows = []
    for preset in args.presets.split(","):
        P_ = SIZES[preset]
        corpus = q.load_corpus(P_["corpus"])
        V, d, batch = P_["V"], P_["d"], P_["batch"]
        t0 = time.perf_counter()
        _, P, pu = q.cooccurrence(corpus, V)
        t_stats = time.perf_counter() - t0
        s = tr.make_sampler(corpus.ids, V, device="cpu")
        gen = torch.Generator().manual_seed(0)
        for model in ("qwem", "sgns"):
            t0 = time.perf_counter()
            sch = tr.preset_schedule(model, P, pu, d, lr_factor=0.05, sigma_sq_small=P_["sigma_sq"])
            t_sched = time.perf_counter() - t0
            tables = tr.make_tables(
                model, P, pu, s, dtype=torch.float32 if V > 5000 else torch.float64
            )
            W = torch.randn(V, d, generator=gen, dtype=tables["dtype"]) * 1e-3
            for _ in range(3):
                tr.batch_loss_grad(W, s, tables, gen, batch=batch)
            t0 = time.perf_counter()
            for _ in range(args.steps):
                _, G = tr.batch_loss_grad(W, s, tables, gen, batch=batch)
                W -= 1e-6 * G
            dt = (time.perf_counter() - t0) / args.steps
            pairs = batch * 2
            rows.append(
                dict(
                    preset=preset,
                    corpus=P_["corpus"],
                    V=V,
                    d=d,
                    model=model,
                    batch=batch,
                    s_per_step=dt,
                    pairs_per_s=pairs / dt,
                    steps=int(sch["steps"]),
                    est_wall_s=sch["steps"] * dt,
                    stats_s=t_stats,
                    schedule_s=t_sched,
                )
            )
            print(rows[-1], flush=True)
    out = ROOT / "bench" / "results" / "training.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    for r in rows:
        r.update(threads=args.threads, loadavg=os.getloadavg())
    old = json.loads(out.read_text())["rows"] if out.exists() else []
    keep = [
        r for r in old if (r["preset"], r["model"]) not in {(x["preset"], x["model"]) for x in rows}
    ]
    rows = keep + rows  # earlier presets' rows are kept, this run's replace their own
    out.write_text(json.dumps(dict(rows=rows), indent=1) + "\n")
    print(
        "\n| preset | corpus | V | d | model | batch (positives) | pairs/s | steps (small init) | est. wall time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['preset']} | {r['corpus']} | {r['V']:,} | {r['d']} | {r['model']} | {r['batch']:,} | "
            f"{r['pairs_per_s'] / 1e6:.2f} M | {r['steps']:,} | {r['est_wall_s'] / 60:.1f} min |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
