"""Untied QWEM (qwem_lib.beyond.untied): each quantity against an independent computation — autograd on the
minibatch-free expected loss, a dense SVD, a plain loop, a case worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from qwem_lib.beyond import untied as ut
from qwem_lib.qwem.noiseless import TrainingInterrupted


@pytest.fixture
def stats():
    rng = np.random.default_rng(3)
    V = 12
    C = rng.gamma(0.6, 1.0, (V, V))
    C = C + C.T + 0.05
    P = C / C.sum()
    return P, P.sum(1)


def _loop_masses(P, pu, k, power):
    """word2vec's masses by a plain loop over ordered pairs (no subsampling)."""
    V = len(pu)
    Q = pu**power / np.sum(pu**power)
    A = np.zeros((V, V))
    N = np.zeros((V, V))
    for a in range(V):
        for b in range(V):
            A[a, b] = P[a, b]
            N[a, b] = k * sum(P[a, c] for c in range(V)) * Q[b]
    return A, N


def test_masses_match_a_loop(stats):
    P, pu = stats
    A, N = ut.word2vec_masses(P, pu, k=3, power=0.75)
    A2, N2 = _loop_masses(P, pu, 3, 0.75)
    np.testing.assert_allclose(A, A2, rtol=1e-12)
    np.testing.assert_allclose(N, N2, rtol=1e-12)
    assert np.abs(N - N.T).max() > 1e-6  # P^0.75 negatives are asymmetric


def test_loss_is_weighted_factorisation_plus_constant(stats):
    P, pu = stats
    A, N = ut.word2vec_masses(P, pu)
    G, T = ut.untied_target(A, N)
    rng = np.random.default_rng(0)
    consts = []
    for _ in range(3):
        W, Wp = rng.normal(size=(12, 3)), rng.normal(size=(12, 3))
        consts.append(ut.untied_loss(W, Wp, A, N) - ut.untied_factorisation_loss(W, Wp, G, T))
    np.testing.assert_allclose(consts, consts[0], rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(consts[0], -0.25 * np.sum(G * T * T), rtol=1e-10)


def test_gradient_matches_autograd(stats):
    P, pu = stats
    A, N = ut.word2vec_masses(P, pu, k=2)
    rng = np.random.default_rng(1)
    W, Wp = rng.normal(size=(12, 4)) * 0.3, rng.normal(size=(12, 4)) * 0.3
    gW, gWp = ut.untied_gradient(W, Wp, A, N)
    Wt = torch.tensor(W, requires_grad=True)
    Wpt = torch.tensor(Wp, requires_grad=True)
    X = Wt @ Wpt.T
    At, Nt = torch.tensor(A), torch.tensor(N)
    loss = (At * (-X + X**2 / 4) + Nt * (X + X**2 / 4)).sum()
    loss.backward()
    np.testing.assert_allclose(gW, Wt.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(gWp, Wpt.grad.numpy(), rtol=1e-10, atol=1e-14)
    assert ut.untied_loss(W, Wp, A, N) == pytest.approx(float(loss.detach()), rel=1e-12)


def test_unweighted_masses_give_unit_weights_and_same_target(stats):
    P, pu = stats
    A0, N0 = ut.word2vec_masses(P, pu)
    A, N = ut.unweighted_masses(A0, N0)
    G, T = ut.untied_target(A, N)
    np.testing.assert_allclose(G, 1.0, rtol=1e-12)
    np.testing.assert_allclose(T, ut.untied_target(A0, N0)[1], rtol=1e-10, atol=1e-12)


def test_svd_factors_minimise_among_random_rank_d(stats):
    P, pu = stats
    G, T = ut.untied_target(*ut.word2vec_masses(P, pu))
    W, Wp, s = ut.svd_factors(T, 3)
    best = np.sum((W @ Wp.T - T) ** 2)
    np.testing.assert_allclose(
        best, np.sum(np.linalg.svd(T, compute_uv=False)[3:] ** 2), rtol=1e-10
    )
    rng = np.random.default_rng(2)
    for _ in range(20):
        X = rng.normal(size=(12, 3)) @ rng.normal(size=(3, 12))
        assert np.sum((X - T) ** 2) > best
    np.testing.assert_allclose(W.T @ W, Wp.T @ Wp, atol=1e-10)  # balanced


def test_rank_one_optimum_and_als_agree(stats):
    P, pu = stats
    _, T = ut.untied_target(*ut.word2vec_masses(P, pu))
    rng = np.random.default_rng(4)
    g, h = rng.uniform(0.2, 3, 12), rng.uniform(0.2, 3, 12)
    X = ut.rank_one_weighted_optimum(g, h, T, 2)
    W, Wp, hist = ut.weighted_lowrank(np.outer(g, h), T, 2, iters=2000, tol=1e-14)
    np.testing.assert_allclose(W @ Wp.T, X, rtol=1e-5, atol=1e-6)
    assert np.all(np.diff(hist) <= 1e-12)  # ALS never increases the loss
    # constant weights: ALS stays at the SVD
    W1, Wp1, _ = ut.weighted_lowrank(np.ones((12, 12)), T, 2, iters=5)
    Ws, Wps, _ = ut.svd_factors(T, 2)
    np.testing.assert_allclose(W1 @ Wp1.T, Ws @ Wps.T, atol=1e-8)


def test_balanced_product_solves_the_scalar_flow_and_half_time():
    sigma, p0 = 3.0, 1e-4
    # Euler integration of dπ/dt = ½(σ − π)π in a plain loop
    dt, p, t = 1e-4, p0, 0.0
    while t < 8.0:
        p += dt * 0.5 * (sigma - p) * p
        t += dt
    assert ut.balanced_product(8.0, sigma, p0) == pytest.approx(p, rel=1e-3)
    th = ut.balanced_half_time(sigma, p0)
    assert ut.balanced_product(th, sigma, p0) == pytest.approx(sigma / 2, rel=1e-10)
    with pytest.raises(ValueError):
        ut.balanced_half_time(1.0, 0.6)


def test_trainer_follows_aligned_balanced_dynamics(tmp_path, monkeypatch):
    """A balanced aligned start on an exactly known target: each mode's product follows the scalar
    gradient-descent recursion (plain loop) and the end point is the truncated SVD."""
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(5)
    V, d = 10, 3
    U = np.linalg.qr(rng.normal(size=(V, V)))[0]
    Vv = np.linalg.qr(rng.normal(size=(V, V)))[0]
    s = np.array([4.0, 2.5, 1.5, 0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01])
    T = (U * s) @ Vv.T
    A, N = (1 + T / 2) / 2, (1 - T / 2) / 2  # G = 1, target T
    a0 = 1e-3
    W0, Wp0 = U[:, :d] * a0, Vv[:, :d] * a0
    lr, steps = 0.02, 1500
    run = ut.train_untied(A, N, d, steps=steps, lr=lr, W0=W0, Wp0=Wp0, log_steps=[0, 500, steps],
                          reference=(U[:, :d], Vv[:, :d]), use_cache=False)  # fmt: skip
    a = np.full(d, a0)
    want = {}
    for n in range(steps + 1):
        if n in (0, 500, steps):
            want[n] = a * a
        a = a + lr * 0.5 * (s[:d] - a * a) * a  # one step on W = u a, W′ = v a
    for i, n in enumerate(run.steps):
        np.testing.assert_allclose(run.modes[i], want[int(n)], rtol=1e-8)
    X = run.W @ run.Wp.T
    np.testing.assert_allclose(X, (U[:, :d] * s[:d]) @ Vv[:, :d].T, atol=1e-6)
    np.testing.assert_allclose(run.imbalance, 0.0, atol=1e-10)
    # the weighted path (non-constant G) gives the same numbers when G happens to be 1 everywhere
    loss = ut.untied_loss(run.W, run.Wp, A, N)
    assert run.loss[-1] == pytest.approx(loss, rel=1e-9)


def test_trainer_resumes_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(6)
    V = 8
    A = rng.uniform(0, 1, (V, V))
    N = rng.uniform(0, 1, (V, V))  # a weighted, asymmetric case
    kw = dict(steps=60, lr=0.05, init_scale=0.1, n_logs=10)
    full = ut.train_untied(A, N, 2, use_cache=False, **kw)
    with pytest.raises(TrainingInterrupted):
        ut.train_untied(A, N, 2, stop_after=25, **kw)
    resumed = ut.train_untied(A, N, 2, **kw)
    np.testing.assert_allclose(resumed.W, full.W, rtol=1e-12)
    np.testing.assert_allclose(resumed.loss, full.loss, rtol=1e-12)
    again = ut.train_untied(A, N, 2, **kw)
    assert again.cached and np.array_equal(again.Wp, full.Wp)
    # the logged loss is the exact expected loss
    assert full.loss[-1] == pytest.approx(ut.untied_loss(full.W, full.Wp, A, N), rel=1e-10)


def test_acquisition_times_interpolate_and_offset_overlap():
    t = np.array([0.0, 1.0, 2.0, 3.0])
    modes = np.array([[0.0, 0.0], [0.5, 0.1], [1.5, 0.2], [2.0, 0.3]])
    got = ut.untied_acquisition_times(t, modes, np.array([2.0, 2.0]))
    assert got[0] == pytest.approx(1.5) and np.isnan(got[1])
    W = np.ones((50, 2)) * np.array([3.0, 0.0]) + np.eye(50, 2) * 0.01
    assert ut.offset_overlap(W) > 0.99
    assert ut.random_start_product(0.1) == pytest.approx(0.005)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ut.untied_target(np.ones((3, 3)), np.ones((3, 4))),
        lambda: ut.untied_target(np.full((3, 3), np.nan), np.ones((3, 3))),
        lambda: ut.untied_target(-np.ones((3, 3)), np.ones((3, 3))),
        lambda: ut.svd_factors(np.eye(4), 5),
        lambda: ut.word2vec_masses(np.eye(3) / 3, np.ones(3) / 3, k=0),
        lambda: ut.word2vec_masses(np.eye(3) / 3, np.ones(4) / 4),
        lambda: ut.unweighted_masses(np.zeros((3, 3)), np.zeros((3, 3))),
        lambda: ut.train_untied(np.ones((4, 4)), np.ones((4, 4)), 2, steps=0, lr=0.1),
        lambda: ut.train_untied(np.ones((4, 4)), np.ones((4, 4)), 2, steps=5, lr=-1.0),
        lambda: ut.balanced_product(1.0, -1.0, 0.1),
    ],
)
def test_bad_inputs_refused(call):
    with pytest.raises(ValueError):
        call()


def test_wrong_types_refused():
    with pytest.raises(TypeError):
        ut.untied_target("abc", np.ones((3, 3)))
    with pytest.raises(TypeError):
        ut.untied_target(np.array([["a", "b"], ["c", "d"]]), np.ones((2, 2)))


def test_competing_starts_match_qr():
    rng = np.random.default_rng(8)
    V, d, r = 15, 4, 3
    W0, Wp0 = rng.normal(size=(V, d)), rng.normal(size=(V, d))
    U = np.linalg.qr(rng.normal(size=(V, r)))[0]
    Vr = np.linalg.qr(rng.normal(size=(V, r)))[0]
    got = ut.competing_starts(W0, Wp0, U, Vr)
    C = (W0.T @ U + Wp0.T @ Vr) / np.sqrt(2)
    R = np.linalg.qr(C)[1]
    np.testing.assert_allclose(got, np.diag(R) ** 2 / 2, rtol=1e-10)
    assert got[0] == pytest.approx(C[:, 0] @ C[:, 0] / 2)
    with pytest.raises(ValueError):
        ut.competing_starts(W0, Wp0, np.eye(V, d + 1), np.eye(V, d + 1))
