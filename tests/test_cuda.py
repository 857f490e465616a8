"""The CUDA paths against the CPU: the same computation on the GPU and on the CPU agrees (skipped without a
GPU; ``make device-check`` runs this file on the GPU machine)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import qwem_lib as q

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


def stats(V=120, seed=0):
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    C = rng.random((V, V)) * np.outer(p, p)
    C[rng.random((V, V)) < 0.5] = 0.0
    C = C + C.T + np.diag(p) * 0.05
    P = C / C.sum()
    return P, P.sum(1)


@cuda
@pytest.mark.parametrize("loss", q.LOSSES)
@pytest.mark.parametrize("reweighting", q.REWEIGHTINGS)
def test_the_expected_gradient_is_the_same_on_the_gpu(loss, reweighting):
    P, pu = stats()
    W = (
        torch.randn(P.shape[0], 5, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        * 0.3
    )
    kw = dict(loss=loss, reweighting=reweighting, dtype=torch.float64)
    g_cpu = q.expected_gradient(P, pu, device="cpu", **kw).grad(W)
    g_gpu = q.expected_gradient(P, pu, device="cuda", **kw).grad(W.cuda()).cpu()
    np.testing.assert_allclose(g_gpu.numpy(), g_cpu.numpy(), rtol=1e-10, atol=1e-13)


@cuda
def test_the_flow_is_the_same_on_the_gpu():
    P, pu = stats(seed=2)
    kw = dict(
        steps=500, lr=0.2 / q.growth_matrix(P, pu, loss="logistic", reweighting="word2vec").max(),
        init_scale=1e-3, model=None, loss="logistic", reweighting="word2vec", method="rkc",
        use_cache=False, progress=False, n_logs=30, W0=np.random.default_rng(3).normal(size=(120, 3)) * 1e-3,
    )  # fmt: skip
    a = q.train_expected((P, pu), 3, device="cpu", **kw)
    b = q.train_expected((P, pu), 3, device="cuda", **kw)
    # float64 on both: the step controller sees the same errors up to rounding, so the same steps
    np.testing.assert_allclose(b.sv, a.sv, rtol=1e-7, atol=1e-12)


@cuda
def test_top_eigenpairs_on_the_gpu_match_lapack():
    rng = np.random.default_rng(4)
    A = rng.normal(size=(3500, 3500))
    M = (A + A.T) / 2
    lam, U = q.top_eigenpairs(M, 4)
    ref = np.linalg.eigvalsh(M)[::-1][:4]
    np.testing.assert_allclose(lam, ref, rtol=1e-6)
    np.testing.assert_allclose(np.abs(np.sum(U * (M @ U), axis=0)), np.abs(ref), rtol=1e-6)


@cuda
def test_sgd_runs_on_the_gpu():
    corpus = q.load_corpus("enwiki2015_1m7")
    r = q.train_pairs(corpus, 100, 3, steps=50, lr=0.002, batch=2000, device="cuda", progress=False)
    assert np.all(np.isfinite(r.W)) and r.config["device"] == "cuda"
