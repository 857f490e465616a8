"""Unit tests for the noiseless trainer (qwem_lib.qwem.noiseless.train_expected, expected_gradient, eigen_flow)
and the step measurements of qwem_lib.qwem.measures, each against an independent computation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import qwem_lib as q
from qwem_lib.qwem.theory import aligned_sigmoid


def tiny_stats(V=9, seed=0):
    """A random symmetric joint with Zipf-like marginals (some words rare enough to be subsampled)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    C = rng.random((V, V)) * np.outer(p, p) + np.diag(p) * 0.05
    C = C + C.T
    P = C / C.sum()
    return P, P.sum(1)


def loop_loss(W, P, pu, loss, reweighting, k=1, sample=1e-2, power=0.75):
    """The expected pair loss written as a plain double loop, from the definitions (no library code)."""
    V = pu.size
    if reweighting == "setting31":
        A = [[P[a, b] / (P[a, b] + pu[a] * pu[b]) for b in range(V)] for a in range(V)]
        N = [[pu[a] * pu[b] / (P[a, b] + pu[a] * pu[b]) for b in range(V)] for a in range(V)]
    else:
        rho = [min(1.0, sample / pu[a] + math.sqrt(sample / pu[a])) for a in range(V)]
        A = [[P[a, b] * rho[a] * rho[b] for b in range(V)] for a in range(V)]
        m = [sum(A[a]) for a in range(V)]
        Z = sum(pu[b] ** power for b in range(V))
        N = [[k * m[a] * pu[b] ** power / Z for b in range(V)] for a in range(V)]
    total = 0.0
    for a in range(V):
        for b in range(V):
            x = W[a] @ W[b]
            if loss == "quartic":
                lp, ln = -x + x * x / 4, x + x * x / 4
            else:
                lp, ln = torch.log1p(torch.exp(-x)), torch.log1p(torch.exp(x))
            total = total + A[a][b] * lp + N[a][b] * ln
    return total


@pytest.mark.parametrize("loss", ["quartic", "logistic"])
@pytest.mark.parametrize("reweighting", ["setting31", "word2vec"])
def test_expected_gradient_is_autograd_of_the_loop_loss(loss, reweighting):
    P, pu = tiny_stats()
    rng = np.random.default_rng(1)
    W = torch.tensor(rng.normal(size=(pu.size, 3)) * 0.7, dtype=torch.float64, requires_grad=True)
    ref = loop_loss(W, P, pu, loss, reweighting, sample=1e-2)
    (g_ref,) = torch.autograd.grad(ref, W)
    eg = q.expected_gradient(
        P, pu, loss=loss, reweighting=reweighting, sample=1e-2, device="cpu", dtype=torch.float64
    )
    Wd = W.detach()
    np.testing.assert_allclose(eg.grad(Wd).numpy(), g_ref.numpy(), rtol=1e-10, atol=1e-12)
    # the loss value, exact (the split form of QWEM drops no constant)
    assert eg.loss(Wd) == pytest.approx(float(ref.detach()), rel=1e-10, abs=1e-12)
    assert eg.loss(Wd) == pytest.approx(
        q.population_loss(Wd.numpy(), P, pu, loss=loss, reweighting=reweighting, sample=1e-2),
        rel=1e-10,
        abs=1e-12,
    )


@pytest.mark.parametrize("loss", ["quartic", "logistic"])
def test_the_in_place_slope_is_the_pair_terms_slope_bit_for_bit(loss):
    from qwem_lib.qwem.noiseless import negative_slope_inplace
    from qwem_lib.qwem.pairs import qwem_pair_terms, sgns_pair_terms

    X = torch.linspace(-30.0, 30.0, 10_001, dtype=torch.float32).reshape(73, 137)
    terms = qwem_pair_terms if loss == "quartic" else sgns_pair_terms
    want = terms(X.clone(), False)[1]
    Y = X.clone()
    out = negative_slope_inplace(loss)(Y)
    assert out.data_ptr() == Y.data_ptr()  # in place: no second tensor
    assert torch.equal(out, want)
    with pytest.raises(ValueError, match="loss"):
        negative_slope_inplace("hinge")


@pytest.mark.parametrize("loss, reweighting", [("logistic", "word2vec"), ("quartic", "word2vec"),
                                               ("logistic", "setting31")])  # fmt: skip
def test_the_reused_product_buffer_never_leaks_between_calls(loss, reweighting):
    # grad, loss and value_and_grad share one V × V buffer; in any order of calls on different W they
    # give what a fresh object gives on its first call
    P, pu = tiny_stats(V=12)
    rng = np.random.default_rng(3)
    Ws = [torch.tensor(rng.normal(size=(12, 3)) * s_) for s_ in (0.3, 0.9, 0.5)]

    def fresh():
        return q.expected_gradient(P, pu, loss=loss, reweighting=reweighting, sample=1e-2)

    eg = fresh()
    for W in Ws + Ws[::-1]:
        v, g = eg.value_and_grad(W)
        g2, v2 = eg.grad(W), eg.loss(W)
        assert torch.equal(g, fresh().grad(W)) and torch.equal(g2, g)
        assert v == fresh().loss(W) == v2


def test_deflation_removes_the_most_negative_direction_only():
    P, pu = tiny_stats(V=40, seed=3)
    K = q.growth_matrix(P, pu, loss="quartic", reweighting="setting31")
    lam, Qm = np.linalg.eigh(K)
    eg = q.expected_gradient(
        P, pu, loss="quartic", reweighting="setting31", deflate=1, device="cpu",
        dtype=torch.float64,
    )  # fmt: skip
    assert eg.lam_min == pytest.approx(lam[1], rel=1e-6)
    W = torch.tensor(np.random.default_rng(0).normal(size=(40, 2)), dtype=torch.float64)
    Kd = K - lam[0] * np.outer(Qm[:, 0], Qm[:, 0])
    Wn = W.numpy()
    np.testing.assert_allclose(
        eg.grad(W).numpy(), Wn @ (Wn.T @ Wn) - Kd @ Wn, rtol=1e-9, atol=1e-12
    )


def test_qwem_from_aligned_start_follows_lemma_3_1():
    """From W(0) = Q diag(s0) the modes stay decoupled: s_k² follows Lemma 3.1's sigmoid (small η)."""
    P, pu = tiny_stats(V=30, seed=2)
    M = q.growth_matrix(P, pu, loss="quartic", reweighting="setting31")
    lam, Qm = np.linalg.eigh(M)
    lam, Qm = lam[::-1][:3], Qm[:, ::-1][:, :3]
    s0 = np.sqrt([1e-6, 1e-5, 1e-4])
    lr = 0.002 / lam[0]
    steps = int(2.5 * math.log(lam[2] / 1e-6) / lam[2] / (2 * lr))
    r = q.train_expected(
        (P, pu), 3, steps=steps, lr=lr, W0=Qm * s0, use_cache=False, progress=False,
        dtype=torch.float64, device="cpu",
    )  # fmt: skip
    pred = aligned_sigmoid(lam[None, :], s0[None, :] ** 2, r.times[:, None])
    pred = -np.sort(-pred, axis=1)  # singular values come sorted; a mode may pass another
    # discrete steps shift the sigmoid by O(η λ) relative: compare where s² is above 1 % of λ
    mask = pred > 0.01 * lam
    np.testing.assert_allclose(r.sv[mask] ** 2, pred[mask], rtol=0.03)
    np.testing.assert_allclose(r.sv[-1] ** 2, lam, rtol=1e-3)


def test_eigen_flow_equals_the_full_run_in_the_span_and_approximates_it_outside():
    P, pu = tiny_stats(V=60, seed=4)
    M = q.growth_matrix(P, pu, loss="quartic", reweighting="setting31")
    lam, Qm = np.linalg.eigh(M)
    lam, Qm = lam[::-1], Qm[:, ::-1]
    d, lr, steps = 3, 0.2 / lam[0], 1500
    rng = np.random.default_rng(5)
    W0 = rng.normal(size=(60, d)) * 1e-4
    full = q.train_expected(
        (P, pu), d, steps=steps, lr=lr, W0=W0, use_cache=False, progress=False,
        dtype=torch.float64, device="cpu", log_steps=[0, 500, 1000, 1500],
    )  # fmt: skip
    # r = V: the eigenbasis run is the full run, written in other coordinates
    ef = q.eigen_flow(lam, Qm.T @ W0, lr=lr, steps=steps, log_steps=[0, 500, 1000, 1500])
    np.testing.assert_allclose(ef.sv, full.sv, rtol=1e-8, atol=1e-14)
    np.testing.assert_allclose(Qm @ ef.Y, full.W, rtol=1e-5, atol=1e-6)
    # r = 20 of 60: the dropped start changes only the modes that have not finished
    r = 20
    ef20 = q.eigen_flow(lam[:r], Qm[:, :r].T @ W0, lr=lr, steps=steps, log_steps=[0, 1500])
    np.testing.assert_allclose(ef20.sv[-1], full.sv[-1], rtol=1e-3)


def test_interrupted_run_resumes_to_the_identical_result(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "a"))
    P, pu = tiny_stats(V=25, seed=6)
    kw = dict(
        steps=400, lr=0.05, init_scale=1e-3, seed=3, progress=False, device="cpu", n_logs=40,
        reference=np.eye(25)[:, :4], loss="logistic", reweighting="word2vec", model=None,
    )  # fmt: skip
    with pytest.raises(q.TrainingInterrupted):
        q.train_expected((P, pu), 2, stop_after=137, **kw)
    assert list((tmp_path / "a" / "noiseless").glob("*.ckpt.npz"))
    resumed = q.train_expected((P, pu), 2, **kw)
    assert not resumed.cached and not list((tmp_path / "a" / "noiseless").glob("*.ckpt.npz"))
    again = q.train_expected((P, pu), 2, **kw)
    assert again.cached
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "b"))
    whole = q.train_expected((P, pu), 2, **kw)
    for f in ("W", "steps", "times", "sv", "overlap", "loss"):
        np.testing.assert_array_equal(getattr(resumed, f), getattr(whole, f))
        np.testing.assert_array_equal(getattr(again, f), getattr(whole, f))
    # a different input is a different run
    other = q.train_expected((P, pu), 2, **dict(kw, seed=4))
    assert not np.array_equal(other.W0, whole.W0)


def test_noiseless_start_is_the_sgd_start():
    """Same seed, scale and device: train_expected starts where train_pairs starts."""
    gen = torch.Generator(device="cpu")
    gen.manual_seed(int(q.config.SEED) * 1000 + 7)
    W = q.initial_embeddings(50, 4, 0.1, gen).numpy()
    P, pu = tiny_stats(V=50)
    r = q.train_expected(
        (P, pu), 4, steps=1, lr=1e-3, init_scale=0.1, seed=7, use_cache=False, progress=False,
        device="cpu",
    )  # fmt: skip
    np.testing.assert_array_equal(r.W0, W.astype(np.float32))
    assert np.std(W) == pytest.approx(0.1 / 2, rel=0.15)


def test_log_schedule():
    s = q.log_schedule(10_000, 50)
    assert s[0] == 0 and s[-1] == 10_000 and np.all(np.diff(s) > 0)
    assert {1, 2, 3}.issubset(s)  # log-spaced: dense at the start
    assert np.max(np.diff(s)) <= 10_000 / 25 + 1  # and evenly spaced ones too


def test_step_separation_and_brought_directions():
    t = np.linspace(0, 60, 3001)
    lam = np.array([1.0, 0.8, 0.5])
    s0 = np.array([1e-8, 1e-8, 1e-8])
    s_sq = aligned_sigmoid(lam[None], s0[None], t[:, None])
    sep = q.step_separation(t, s_sq, lam)
    tm = np.log((lam - s0) / s0) / lam
    np.testing.assert_allclose(sep["t_mid"], tm, rtol=2e-3)
    width = np.log(81) / lam  # 10 %–90 % of a logistic of rate λ
    np.testing.assert_allclose(sep["width"], width, rtol=2e-2)
    np.testing.assert_allclose(sep["R"], np.diff(tm) / (0.5 * (width[:-1] + width[1:])), rtol=3e-2)
    # the same three rises at one time: R ≈ 0 though each rise is as sharp
    same = aligned_sigmoid(lam[None], (s0 * np.exp(-(tm[0] - tm) * lam))[None], t[:, None])
    assert np.all(np.abs(q.step_separation(t, same, lam)["R"]) < 0.1)
    # brought directions: a rotation that swaps modes 1 and 2 at all times
    T, r, d = t.size, 5, 3
    ov = np.zeros((T, r, d))
    ov[:, 0, 0] = ov[:, 2, 1] = 1.0
    ov[:, 1, 2] = 1.0
    b = q.brought_directions(ov, t, tm)
    np.testing.assert_array_equal(b["index"], [0, 2, 1])
    np.testing.assert_allclose(b["own"], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(q.brought_directions(ov, t, tm, band=1)["near"], [1.0, 1.0, 1.0])


def test_aligned_gd_is_the_eigen_flow_from_an_aligned_start_and_the_sigmoid_as_lr_vanishes():
    lam = np.array([3.0, 2.0, 0.5, 0.1])
    s0_sq = np.array([1e-6, 4e-6, 1e-5, 2e-5])
    steps = [0, 100, 400, 2000]
    a = q.aligned_gd(lam[:3], s0_sq[:3], lr=0.01, log_steps=steps)
    Y0 = np.zeros((4, 3))
    Y0[np.arange(3), np.arange(3)] = np.sqrt(s0_sq[:3])
    ef = q.eigen_flow(lam, Y0, lr=0.01, steps=2000, log_steps=steps)
    np.testing.assert_allclose(ef.sv**2, -np.sort(-a, axis=1), rtol=1e-10)
    t = np.array([0.0, 1.0, 4.0])
    fine = q.aligned_gd(lam, s0_sq, lr=1e-5, log_steps=(t / 2e-5).astype(int))
    np.testing.assert_allclose(fine, aligned_sigmoid(lam, s0_sq, t[:, None]), rtol=2e-3)


def test_a_diverging_run_raises():
    P, pu = tiny_stats(V=20, seed=8)
    with pytest.raises(FloatingPointError, match="lower the learning rate"):
        q.train_expected(
            (P, pu), 2, steps=2000, lr=50.0, init_scale=1.0, use_cache=False, progress=False,
            device="cpu",
        )  # fmt: skip


def test_authors_rate_scale_is_the_gradient_of_their_normalised_loss():
    """The authors' expected loss, written from its definition (Setting 3.1 weights divided by their
    mean, the batch mean divided by −mean(M*²) and subtracted from 1) and differentiated by autograd,
    is c·(WWᵀ − M*)W with c = authors_rate_scale."""
    P, pu = tiny_stats(V=7, seed=3)
    V = pu.size
    rng = np.random.default_rng(1)
    W = torch.tensor(rng.standard_normal((V, 3)) * 0.3, requires_grad=True)
    G = [[P[a, b] + pu[a] * pu[b] for b in range(V)] for a in range(V)]
    g_mean = sum(map(sum, G)) / V**2
    M = [[2 * (P[a, b] - pu[a] * pu[b]) / G[a][b] for b in range(V)] for a in range(V)]
    min_loss = -sum(m * m for row in M for m in row) / V**2
    X = W @ W.T
    total = 0.0
    for a in range(V):
        for b in range(V):
            psi = g_mean / G[a][b]
            x = X[a, b]
            total = total + P[a, b] * psi * (-x + x**2 / 4) + pu[a] * pu[b] * psi * (x + x**2 / 4)
    loss = 1 - total / min_loss
    loss.backward()
    Mt = torch.tensor(M)
    c = q.authors_rate_scale(P, pu, block=3)
    want = c * ((W @ W.T - Mt) @ W).detach()
    np.testing.assert_allclose(W.grad.numpy(), want.numpy(), rtol=1e-10, atol=1e-14)
    # at W = 0 the authors' loss is 1 (their normalisation), and c = ΣG/‖M*‖² with ΣG = 2 here
    assert c == pytest.approx(2.0 / (-min_loss * V**2), rel=1e-12)


def test_authors_end_time_sums_the_schedule():
    P, pu = tiny_stats(V=6, seed=4)
    c = q.authors_rate_scale(P, pu)
    lrs = np.r_[np.full(300, 5.0), np.full(100, 0.5)]  # a plain per-step schedule
    want = q.sgd_time(c * lrs)[-1]
    got = q.authors_end_time(P, pu, lr=5.0, steps=400, decay_at=300, decay_factor=0.1)
    assert got == pytest.approx(want, rel=1e-12)
    assert q.authors_end_time(P, pu, lr=5.0, steps=400, decay_at=None) == pytest.approx(
        q.sgd_time(c * np.full(400, 5.0))[-1], rel=1e-12
    )
    with pytest.raises(ValueError, match="decay_at"):
        q.authors_end_time(P, pu, steps=10, decay_at=11)
    with pytest.raises(ValueError, match="lr must be a number > 0"):
        q.authors_end_time(P, pu, lr=-1.0)
    with pytest.raises(ValueError, match="V × V"):
        q.authors_rate_scale(P[:3], pu)
    with pytest.raises(ValueError, match="P_unigram must hold positive"):
        q.authors_rate_scale(P, np.zeros_like(pu))
    with pytest.raises(TypeError):
        q.authors_rate_scale(np.ones((6, 6), dtype=int), pu)


# -- chapter 26: the constant direction, the rotation null, tied SGNS's planned run --------------------
def test_without_constant_and_constant_overlap():
    rng = np.random.default_rng(3)
    V = 400
    X = rng.normal(size=(V, 5))
    E = q.without_constant(X)
    # every column is orthogonal to 1 and the projection is idempotent, computed independently
    Pm = np.eye(V) - np.ones((V, V)) / V
    assert np.allclose(E, Pm @ X)
    assert np.allclose(q.without_constant(E), E)
    # a pure offset direction as the dominant feature: overlap 1; random: about 1/V
    off = X.copy()
    off[:, 0] += 50.0
    assert q.constant_overlap(off) > 0.99
    assert q.constant_overlap(X) < 20 / V
    with pytest.raises(ValueError):
        q.without_constant(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError):
        q.constant_overlap(np.ones((1, 3)))


def test_dominance_null_scrambles_the_features_and_keeps_the_subspace():
    rng = np.random.default_rng(4)
    V, k = 300, 8
    Q, _ = np.linalg.qr(rng.normal(size=(V, k)))
    A = Q * np.arange(k, 0, -1.0)  # distinct singular values: features well defined
    B = A @ np.diag(rng.choice([-1.0, 1.0], size=k))  # the same features, signs flipped
    assert q.diagonal_dominance(q.eigen_overlap(A, B, k)) > 0.999
    null = q.dominance_null(A, B, k, np.random.default_rng(0), n=300)
    # a Haar rotation of k features: E[(r_ii)²] = 1/k, so the null's diagonal share is near 1/k
    assert abs(null.mean() - 1 / k) < 0.05
    assert np.quantile(null, 0.99) < 0.6
    # the same generator state gives the same null; the shares are always in [0, 1]
    again = q.dominance_null(A, B, k, np.random.default_rng(0), n=300)
    assert np.array_equal(null, again) and np.all((null >= 0) & (null <= 1))
    with pytest.raises(ValueError):
        q.dominance_null(A, B, k + 1, np.random.default_rng(0))
    with pytest.raises(ValueError):
        q.dominance_null(A, B, k, np.random.default_rng(0), n=0)


def test_tied_sgns_run_plans_from_the_spectra_and_joins_its_two_segments(tmp_path, monkeypatch):
    from corpora import tiny_corpus

    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    c = tiny_corpus(n=20_000, types=40, seed=2)
    V, d = 40, 3
    R = q.tied_sgns_run(c, V, d, horizon=2.0, n_logs=30, progress=False)
    # the schedule of preset_schedule for SGNS, recomputed here from the statistics
    _, P, pu = q.cooccurrence(c, V)
    lam_B = np.linalg.eigvalsh(q.sgns_growth_matrix(P, pu))[::-1][: d + 1]
    lam = np.linalg.eigvalsh(q.mstar_from_stats(P, pu))[::-1][:d]
    assert np.allclose(R.lam_B, lam_B, rtol=1e-6)
    assert math.isclose(R.lr, 0.15 / lam_B[0], rel_tol=1e-6)
    tau = np.log(np.maximum(lam, 1e-8 * math.e) / 1e-8) / lam_B[:d]
    assert np.allclose(R.tau, tau, rtol=1e-5)
    assert 0 <= R.steps - 2.0 * tau[-1] / (2 * R.lr) < 1 + 1e-6  # ceil of horizon·τ_d/(2η)
    # two segments joined: time runs on, t_end = 2η·steps, W_late is the first segment's end
    assert np.all(np.diff(R.times) > 0)
    assert math.isclose(R.t_end, 2 * R.lr * R.steps, rel_tol=1e-9)
    assert math.isclose(R.times[-1], R.t_end, rel_tol=1e-9)
    assert R.sv.shape == (R.times.size, d) and R.overlap.shape == (R.times.size, d, d)
    i_late = int(np.argmin(np.abs(R.times - 2 * R.lr * ((3 * R.steps) // 4))))
    assert np.allclose(R.sv[i_late], np.linalg.svd(R.W_late, compute_uv=False), rtol=1e-4)
    assert np.allclose(R.sv[-1], np.linalg.svd(R.W, compute_uv=False), rtol=1e-4)
    # the loss went down and the run is cached: the same call reads both segments back
    assert R.loss[-1] < R.loss[0]
    again = q.tied_sgns_run(c, V, d, horizon=2.0, n_logs=30, progress=False)
    assert again.cached and np.array_equal(again.W, R.W)
    with pytest.raises(ValueError):
        q.tied_sgns_run(c, V, d, sigma_sq=0.0, progress=False)
    with pytest.raises(ValueError):
        q.tied_sgns_run(c, V, d, horizon=float("nan"), progress=False)


def test_minimise_expected_finds_scipys_minimum_of_the_loop_loss(tmp_path, monkeypatch):
    """L-BFGS on the expected loss lands where an independent minimiser of the plain-loop loss does
    (scipy's L-BFGS-B with autograd gradients), compared through the rotation-free Gram matrix WWᵀ, and
    below the loss that a long gradient-descent run reaches."""
    from scipy.optimize import minimize

    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    P, pu = tiny_stats(V=12, seed=2)
    d = 2
    res = q.minimise_expected(
        (P, pu), d, model=None, loss="logistic", reweighting="word2vec", sample=1e-2, init_scale=0.1,
        seed=1, tol=1e-7, dtype=torch.float64, device="cpu", progress=False,
    )  # fmt: skip
    assert res.converged and res.grad_norm[-1] <= 1e-7 and res.evaluations[-1] > 0

    def f(x):
        Wt = torch.tensor(x.reshape(12, d), dtype=torch.float64, requires_grad=True)
        val = loop_loss(Wt, P, pu, "logistic", "word2vec", sample=1e-2)
        (g,) = torch.autograd.grad(val, Wt)
        return float(val.detach()) * 1e3, g.numpy().ravel() * 1e3

    ref = minimize(f, res.W0.ravel(), jac=True, method="L-BFGS-B",
                   options=dict(maxiter=20_000, ftol=1e-15, gtol=1e-13))  # fmt: skip
    Wr = ref.x.reshape(12, d)
    G, Gr = res.W @ res.W.T, Wr @ Wr.T
    assert np.linalg.norm(G - Gr) <= 1e-4 * np.linalg.norm(Gr)
    assert res.loss[-1] == pytest.approx(ref.fun / 1e3, rel=1e-9)
    gd = q.train_expected(
        (P, pu), d, model=None, loss="logistic", reweighting="word2vec", sample=1e-2, W0=res.W0,
        steps=2000, lr=0.5 / q.expected_gradient(
            P, pu, loss="logistic", reweighting="word2vec", sample=1e-2).kappa1,
        dtype=torch.float64, device="cpu", progress=False, use_cache=False,
    )  # fmt: skip
    assert res.loss[-1] <= gd.loss[-1]
    # the loss falls block by block, and the start is recorded
    assert np.all(np.diff(res.loss) <= 1e-15) and res.evaluations[0] == 0
    assert res.stop == "tol"
    # without the row preconditioner: the same minimum
    plain = q.minimise_expected(
        (P, pu), d, model=None, loss="logistic", reweighting="word2vec", sample=1e-2, W0=res.W0,
        tol=1e-7, precondition=False, dtype=torch.float64, device="cpu", progress=False,
    )  # fmt: skip
    assert q.gram_distance(plain.W, res.W) <= 1e-4


def test_minimise_expected_resumes_caches_and_keys_its_inputs(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "a"))
    P, pu = tiny_stats(V=20, seed=4)
    kw = dict(model="sgns", sample=1e-2, init_scale=0.05, seed=2, tol=1e-10, block=15,
              dtype=torch.float64, device="cpu", progress=False)  # fmt: skip
    with pytest.raises(q.TrainingInterrupted):
        q.minimise_expected((P, pu), 3, stop_after=20, **kw)
    assert list((tmp_path / "a" / "noiseless").glob("min-*.ckpt.npz"))
    resumed = q.minimise_expected((P, pu), 3, **kw)
    assert not resumed.cached and not list((tmp_path / "a" / "noiseless").glob("*.ckpt.npz"))
    again = q.minimise_expected((P, pu), 3, **kw)
    assert again.cached
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "b"))
    whole = q.minimise_expected((P, pu), 3, **kw)
    for f in ("W", "evaluations", "loss", "grad_norm"):
        np.testing.assert_array_equal(getattr(resumed, f), getattr(whole, f))
        np.testing.assert_array_equal(getattr(again, f), getattr(whole, f))
    # every keyed input changes the run
    for change in (dict(seed=3), dict(tol=1e-4), dict(block=10), dict(sample=1e-3), dict(history=5),
                   dict(max_evals=30), dict(precondition=False)):  # fmt: skip
        other = q.minimise_expected((P, pu), 3, **dict(kw, **change))
        assert not other.cached, change
    assert not q.minimise_expected((P, pu), 2, **kw).cached


def test_minimise_expected_resumes_from_a_checkpoint_of_another_budget(tmp_path, monkeypatch):
    """A run with budget B may resume from the checkpoint of the same run with another budget when no
    block before it was cut short by either budget: the result is bit for bit that of a fresh run with
    budget B. A checkpoint past that point is not used (the run then starts afresh, same result)."""
    P, pu = tiny_stats(V=20, seed=4)
    kw = dict(model="sgns", sample=1e-2, init_scale=0.05, seed=2, tol=1e-12, block=4,
              dtype=torch.float64, device="cpu", progress=False)  # fmt: skip
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "fresh"))
    fresh = q.minimise_expected((P, pu), 3, max_evals=40, **kw)
    for stop, used in ((12, True), (60, False)):
        root = tmp_path / f"long{stop}"
        monkeypatch.setenv("QWEM_CACHE_DIR", str(root))
        with pytest.raises(q.TrainingInterrupted):
            q.minimise_expected((P, pu), 3, max_evals=400, stop_after=stop, **kw)
        (ck,) = (root / "noiseless").glob("*-b400.ckpt.npz")
        short = q.minimise_expected((P, pu), 3, max_evals=40, **kw)
        for f in ("W", "evaluations", "loss", "grad_norm"):
            np.testing.assert_array_equal(getattr(short, f), getattr(fresh, f))
        # whether the other budget's checkpoint was used: mark its W, drop the result, run again
        z = dict(np.load(ck))
        z["W"] = z["W"] * (1 + 1e-3)
        np.savez(ck, **z)
        for f in (root / "noiseless").glob("min-*.npz"):
            if not f.name.endswith(".ckpt.npz"):
                f.unlink()
        again = q.minimise_expected((P, pu), 3, max_evals=40, **kw)
        assert (not np.array_equal(again.W, fresh.W)) == used


@pytest.mark.parametrize(
    "bad", [dict(tol=0.0), dict(tol=float("nan")), dict(block=0), dict(max_evals=True),
            dict(history=1.5), dict(d=0)],
)  # fmt: skip
def test_minimise_expected_refuses_bad_inputs(bad, tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    P, pu = tiny_stats(V=9)
    kw = dict(dict(d=2, progress=False, device="cpu"), **bad)
    d = kw.pop("d")
    with pytest.raises(ValueError):
        q.minimise_expected((P, pu), d, **kw)


def test_minimise_expected_stops_when_the_products_precision_is_reached(tmp_path, monkeypatch):
    """In float32 the loss cannot resolve a relative gradient of 1e-12: the run stops as "stalled"
    (not "budget", not "tol"), having spent far less than its budget, and says it did not converge."""
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    P, pu = tiny_stats(V=30, seed=3)
    res = q.minimise_expected((P, pu), 3, model="sgns", sample=1e-2, tol=1e-12, max_evals=5000,
                              block=20, device="cpu", progress=False)  # fmt: skip
    assert res.stop == "stalled" and not res.converged
    assert res.evaluations[-1] < 5000 and res.grad_norm[-1] < 1e-3


def test_gram_distance_is_the_direct_frobenius_distance_and_rotation_free():
    rng = np.random.default_rng(5)
    A, B = rng.normal(size=(40, 4)), rng.normal(size=(40, 4))
    direct = np.linalg.norm(A @ A.T - B @ B.T) / np.linalg.norm(B @ B.T)
    assert q.gram_distance(A, B) == pytest.approx(direct, rel=1e-12)
    O = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    assert q.gram_distance(A @ O, A) < 1e-7
    assert q.gram_distance(A[:, :3], A) == pytest.approx(
        np.linalg.norm(np.outer(A[:, 3], A[:, 3])) / np.linalg.norm(A @ A.T), rel=1e-10
    )
    with pytest.raises(ValueError):
        q.gram_distance(A, np.zeros((40, 2)))
    with pytest.raises(ValueError):
        q.gram_distance(A, B[:30])
