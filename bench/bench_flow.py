"""The gradient flow by the Runge–Kutta–Chebyshev integrator against gradient descent: gradients and wall
time per loss (issue 42; ``qwem_lib.flow``, ``train_expected(method="rkc")``).

    python bench/bench_flow.py                              # V = 1,000, d = 12 on the CPU: both methods run
    python bench/bench_flow.py --V 10000 --d 150 --no-gd    # the paper's size: RKC only, GD estimated

For each of the four losses of chapter 25 (quartic/logistic × Setting 3.1/word2vec) it builds the exact
expected gradient, times ``--grads`` gradients (float64 products, as the chapter's flows use) after a
warm-up, integrates the flow from one small start to ``u = κ₁t = --u-end`` at ``--rtol`` and counts its
gradients. Gradient descent at ``c = 0.2`` (the book's earlier noiseless runs) takes ``u_end/(2c)`` steps;
it is run too unless ``--no-gd`` (then its time is that many gradients at the measured cost). The results
go to ``--out`` (default ``bench/results/flow-<device>-V<V>-d<d>.json``) and a Markdown table is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--V", type=int, default=1000)
    ap.add_argument("--d", type=int, default=12)
    ap.add_argument("--u-end", type=float, default=1000.0)
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--grads", type=int, default=10, help="timed gradients per loss")
    ap.add_argument("--corpus", default="enwiki2015_17m")
    ap.add_argument("--no-gd", action="store_true", help="estimate GD from the gradient's cost")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))

    import numpy as np
    import torch

    import qwem_lib as q
    from qwem_lib.book import config

    dev = config.device()
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    V, d, c = args.V, args.d, 0.2
    t0 = time.perf_counter()
    _, P, pu = q.cooccurrence(q.load_corpus(args.corpus), V)
    t_stats = time.perf_counter() - t0
    W0 = q.initial_embeddings(V, d, 1e-3, torch.Generator().manual_seed(0)).numpy()
    steps = int(np.ceil(args.u_end / (2 * c)))
    rows = []
    for lo, rw in [(lo, rw) for lo in q.LOSSES for rw in q.REWEIGHTINGS]:
        t0 = time.perf_counter()
        eg = q.expected_gradient(P, pu, loss=lo, reweighting=rw, device=dev, dtype=torch.float64)
        t_build = time.perf_counter() - t0
        W = torch.as_tensor(W0 * 100, device=dev)
        eg.grad(W)
        sync()
        t0 = time.perf_counter()
        for _ in range(args.grads):
            eg.grad(W)
        sync()
        t_grad = (time.perf_counter() - t0) / args.grads
        kw = dict(
            model=None, loss=lo, reweighting=rw, steps=steps, lr=c / eg.kappa1, W0=W0, use_cache=False,
            progress=False, n_logs=100, log_loss=False, dtype=torch.float64,
        )  # fmt: skip
        del eg
        t0 = time.perf_counter()
        r = q.train_expected((P, pu), d, method="rkc", rtol=args.rtol, **kw)
        t_rkc = time.perf_counter() - t0
        row = dict(loss=lo, reweighting=rw, seconds_per_gradient=t_grad, build_s=t_build,
                   rkc_gradients=r.gradients, rkc_s=t_rkc, gd_steps=steps)  # fmt: skip
        if args.no_gd:
            row["gd_s_estimated"] = steps * t_grad
        else:
            t0 = time.perf_counter()
            q.train_expected((P, pu), d, method="gd", **kw)
            row["gd_s"] = time.perf_counter() - t0
        rows.append(row)
        print(json.dumps(row), flush=True)
    res = dict(
        device=str(dev), gpu=torch.cuda.get_device_name(0) if dev.type == "cuda" else None,
        torch=torch.__version__, V=V, d=d, u_end=args.u_end, rtol=args.rtol, stats_s=t_stats,
        date=time.strftime("%Y-%m-%d"), rows=rows,
    )  # fmt: skip
    out = args.out or ROOT / "bench" / "results" / f"flow-{dev.type}-V{V}-d{d}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(res, indent=1) + "\n")
    print(
        f"\n{res['gpu'] or 'CPU'}, V = {V:,}, d = {d}, to u = {args.u_end:g}, rtol {args.rtol:g}\n"
    )
    print("| loss | s / gradient | RKC gradients | RKC s | GD steps | GD s |")
    print("|---|---|---|---|---|---|")
    for x in rows:
        gd = f"{x['gd_s']:.1f}" if "gd_s" in x else f"≈ {x['gd_s_estimated']:.0f} (estimated)"
        print(
            f"| {x['loss']} × {x['reweighting']} | {x['seconds_per_gradient']:.4f} | {x['rkc_gradients']:,} | "
            f"{x['rkc_s']:.1f} | {x['gd_steps']:,} | {gd} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
