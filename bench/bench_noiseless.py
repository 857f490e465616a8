"""Step times of the noiseless trainer (``qwem_lib.qwem.noiseless.train_expected``) and of QWEM's eigenbasis flow
(``qwem_lib.qwem.noiseless.eigen_flow``) at the paper's size, V = 10,000, d = 200, on the CPU.

    python bench/bench_noiseless.py                  # 2 threads, 3 timed steps of each model
    python bench/bench_noiseless.py --threads 1 --V 5000

For each of the four runs of the ablation (quartic/logistic × Setting 3.1/word2vec) it builds the exact
expected gradient on the corpus's P_ij (``expected_gradient``: float32 products, float64 W) and times
``--steps`` gradient steps after one warm-up step; QWEM also in float64 and with M*'s negative outlier
deflated. It reports λ₁ and λ_min of each growth matrix (the stable rate is η < 2/|λ_min|) and the time
of the top-``r`` eigenpairs (``mstar_eigenbasis``, read from the cache when present: the first float32
eigensolve at V = 10,000, r = 500 took 193 s on one thread) and of one eigenbasis step. Results go to
``bench/results/noiseless.json`` and a Markdown table is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--V", type=int, default=10_000)
    ap.add_argument("--d", type=int, default=200)
    ap.add_argument("--r", type=int, default=500, help="eigenpairs of the eigenbasis flow")
    ap.add_argument("--corpus", default="enwiki2015_17m")
    args = ap.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    sys.path.insert(0, str(ROOT))

    import torch

    import qwem_lib as q

    torch.set_num_threads(args.threads)
    V, d = args.V, args.d
    t0 = time.perf_counter()
    _, P, pu = q.cooccurrence(q.load_corpus(args.corpus), V)
    t_stats = time.perf_counter() - t0
    rows = []
    W = torch.randn(V, d, generator=torch.Generator().manual_seed(0), dtype=torch.float64) * 0.05
    runs = [
        ("quartic", "setting31", torch.float32, 0),
        ("quartic", "setting31", torch.float64, 0),
        ("quartic", "setting31", torch.float32, 1),
        ("logistic", "word2vec", torch.float32, 0),
        ("logistic", "setting31", torch.float32, 0),
        ("quartic", "word2vec", torch.float32, 0),
    ]
    for loss, rw, dt, deflate in runs:
        t0 = time.perf_counter()
        eg = q.expected_gradient(
            P, pu, loss=loss, reweighting=rw, device="cpu", dtype=dt, deflate=deflate
        )
        t_build = time.perf_counter() - t0
        eg.grad(W)
        t0 = time.perf_counter()
        for _ in range(args.steps):
            eg.grad(W)
        step = (time.perf_counter() - t0) / args.steps
        name = q.resolve_model(None, loss, rw)[0]
        rows.append(
            dict(
                run=name,
                loss=loss,
                reweighting=rw,
                dtype=str(dt).replace("torch.", ""),
                deflate=deflate,
                V=V,
                d=d,
                s_per_step=step,
                build_s=t_build,
                kappa1=eg.kappa1,
                lam_min=eg.lam_min,
                max_lr_kappa1=2.0 * eg.kappa1 / abs(eg.lam_min) if eg.lam_min < 0 else None,
            )  # fmt: skip
        )
        print(rows[-1], flush=True)
        del eg
    # QWEM's eigenbasis flow: the top r eigenpairs once, then r·d² per step
    t0 = time.perf_counter()
    _, lam, Qm = q.mstar_eigenbasis(args.corpus, V, args.r)  # cached after its first computation
    t_eig = time.perf_counter() - t0
    ef = q.eigen_flow(lam, Qm.T @ W.numpy(), lr=0.1 / lam[0], steps=50, log_steps=[0, 50])
    eig = dict(r=args.r, eig_s=t_eig, s_per_step=ef.seconds / 50, lam1=float(lam[0]))
    print(eig, flush=True)
    out = ROOT / "bench" / "results" / "noiseless.json"
    meta = dict(
        corpus=args.corpus, threads=args.threads, loadavg=os.getloadavg(), stats_s=t_stats,
        date=time.strftime("%Y-%m-%d"), torch=torch.__version__,
    )  # fmt: skip
    out.write_text(json.dumps(dict(meta=meta, rows=rows, eigen_flow=eig), indent=1) + "\n")
    print(
        f"\n{args.corpus}, V = {V:,}, d = {d}, {args.threads} threads, load {os.getloadavg()[0]:.1f}"
    )
    print("| run | products | deflated | s / step | build s | κ₁ | λ_min | max ηκ₁ |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        m = "—" if r["max_lr_kappa1"] is None else f"{r['max_lr_kappa1']:.3f}"
        print(
            f"| {r['run']} | {r['dtype']} | {r['deflate']} | {r['s_per_step']:.2f} | "
            f"{r['build_s']:.0f} | {r['kappa1']:.4g} | {r['lam_min']:.4g} | {m} |"
        )
    print(
        f"eigenbasis flow, r = {args.r}: eigenpairs {t_eig:.0f} s, {eig['s_per_step'] * 1e3:.1f} ms/step"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
