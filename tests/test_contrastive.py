"""Tests of qwem_lib.beyond.contrastive against independent computations (explicit pair sums, Monte Carlo)."""

import numpy as np
import pytest
import torch

from qwem_lib.beyond import contrastive as cl
from qwem_lib.qwem.theory import aligned_sigmoid


def _model(n=5, seed=0):
    rng = np.random.default_rng(seed)
    U, _ = np.linalg.qr(rng.standard_normal((n, n)))
    return cl.GaussianAugmentation(U, rng.uniform(0.5, 2.0, n), rng.uniform(0.1, 1.0, n)), rng


def test_population_kernel_and_sample_moments():
    m, rng = _model()
    Sig, C = m.moments()
    K = cl.augmentation_kernel(Sig, C)
    assert np.allclose(K, m.kernel())
    assert np.allclose(np.sort(np.linalg.eigvalsh(K)), np.sort(m.kappa))
    X1, X2 = m.sample(200_000, rng)
    S_hat, C_hat = cl.view_moments(X1, X2)
    assert np.abs(S_hat - Sig).max() < 0.05 and np.abs(C_hat - C).max() < 0.05


def test_whitening_gives_identity_and_kernel():
    m, rng = _model(4, 1)
    X1, X2 = m.sample(3000, rng)
    Y1, Y2 = cl.whiten_views(X1, X2)
    S, C = cl.view_moments(Y1, Y2)
    assert np.allclose(S, np.eye(4), atol=1e-10)
    Xc1, Xc2 = X1 - (X1.mean(0) + X2.mean(0)) / 2, X2 - (X1.mean(0) + X2.mean(0)) / 2
    K_hat = cl.augmentation_kernel(*cl.view_moments(Xc1, Xc2))
    assert np.allclose(np.linalg.eigvalsh(C), np.linalg.eigvalsh(K_hat), atol=1e-10)


def test_losses_against_explicit_pair_sums():
    rng = np.random.default_rng(2)
    N, d = 30, 3
    Z1 = rng.standard_normal((N, d)) * 0.3
    Z2 = rng.standard_normal((N, d)) * 0.3
    Z = np.vstack([Z1, Z2])
    sp = lambda x: np.log1p(np.exp(x))  # noqa: E731
    pos = np.array([Z1[a] @ Z2[a] for a in range(N)])
    neg = np.array([[Z[u] @ Z[v] for v in range(2 * N)] for u in range(2 * N)])
    ref = {
        "spectral": -2 * pos.mean() + (neg**2).mean(),
        "logistic": sp(-pos).mean() + sp(neg).mean(),
    }
    S = Z1 @ Z2.T
    lse_r = np.log(np.exp(S).sum(1))
    lse_c = np.log(np.exp(S).sum(0))
    ref["infonce"] = np.mean(0.5 * (lse_r + lse_c) - pos) - np.log(N)
    for kind, v in ref.items():
        got = float(cl.contrastive_loss(torch.tensor(Z1), torch.tensor(Z2), kind))
        assert got == pytest.approx(v, rel=1e-10), kind
    with pytest.raises(ValueError):
        cl.contrastive_loss(torch.tensor(Z1), torch.tensor(Z2), "hinge")


def test_spectral_loss_moments_equals_sample_loss_and_factorisation():
    m, rng = _model(4, 3)
    X1, X2 = m.sample(500, rng)
    W = rng.standard_normal((4, 2)) * 0.5
    Sig, C = cl.view_moments(X1, X2)
    Z1, Z2 = torch.tensor(X1 @ W), torch.tensor(X2 @ W)
    assert cl.spectral_loss_moments(W, Sig, C) == pytest.approx(
        float(cl.contrastive_loss(Z1, Z2, "spectral")), rel=1e-10
    )
    Y1, Y2 = cl.whiten_views(X1, X2)
    S, K = cl.view_moments(Y1, Y2)
    A = W @ W.T
    assert cl.spectral_loss_moments(W, S, K) == pytest.approx(
        ((A - K) ** 2).sum() - (K**2).sum(), rel=1e-9
    )


def test_trainer_and_aligned_dynamics():
    # one mode, aligned: gradient descent on the sample loss follows Lemma 3.1's sigmoid in time 8ηk
    n = 3
    U = np.eye(n)
    m = cl.GaussianAugmentation(U, np.array([3.0, 1.0, 1.0]), np.array([1.0, 3.0, 9.0]))
    X1, X2 = cl.whiten_views(*m.sample(4000, np.random.default_rng(5)))
    _, K = cl.view_moments(X1, X2)
    kap, Uk = np.linalg.eigh(K)
    enc = cl.make_encoder(n, 1, init_scale=1.0, seed=0)
    with torch.no_grad():
        enc.weight.copy_(torch.tensor(1e-3 * Uk[:, -1][None, :]))
    lr = 0.002
    run = cl.train_contrastive(X1, X2, enc, "spectral", lr=lr, steps=3000, record_every=100)
    a = (run["probe"][:, :, 0] ** 2).sum(1)
    th = aligned_sigmoid(kap[-1], 1e-6, 8 * lr * run["step"])
    assert np.max(np.abs(a - th)) < 0.01 * kap[-1]
    th2 = cl.aligned_contrastive_dynamics(
        np.array([kap[-1]]), np.array([1e-6]), 8 * lr * run["step"] * 1.0, "spectral"
    )
    assert np.allclose(th2[:, 0], th)
    # logistic quartic: a single mode's plateau is κ/(1 + κ²)·2 … check the fixed point of the rhs
    k = np.array([0.6])
    a_end = cl.aligned_contrastive_dynamics(
        k, np.array([1e-4]), np.linspace(0, 400, 50), "logistic_quartic"
    )[-1, 0]
    # fixed point of κ/4 − a/4 − κ²a/8 − aκ²/8 = 0  ⇒  a = κ/(1 + κ²)
    assert a_end == pytest.approx(0.6 / 1.36, rel=1e-6)


def test_hermite_eigenfunctions_are_eigenfunctions():
    rng = np.random.default_rng(6)
    kap = np.array([0.8, 0.5])
    N = 400_000
    Y = rng.standard_normal((N, 2))
    Yp = kap * Y + np.sqrt(1 - kap**2) * rng.standard_normal((N, 2))
    Phi, names, eig = cl.hermite_eigenfunctions(Y, kap)
    Phip, _, _ = cl.hermite_eigenfunctions(Yp, kap)
    # E[φ(y) φ(y')] = eigenvalue, and the functions are orthonormal
    cross = Phi.T @ Phip / N
    assert np.allclose(np.diag(cross), eig, atol=0.01)
    assert np.allclose(Phi.T @ Phi / N, np.eye(len(names)), atol=0.02)
    assert names[0] == "y1" and names[1] == "He2(y1)"


def test_validation():
    with pytest.raises(ValueError):
        cl.GaussianAugmentation(np.ones((2, 2)), np.ones(2), np.ones(2))
    with pytest.raises(ValueError):
        cl.augmentation_kernel(np.zeros((2, 2)), np.eye(2))
    with pytest.raises(ValueError):
        cl.view_moments(np.ones((3, 2)), np.ones((4, 2)))
    with pytest.raises(ValueError):
        cl.make_encoder(3, 0, init_scale=1.0, seed=0)
