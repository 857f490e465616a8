"""Unit tests for qwem_lib.qwem.theory: hand-worked 2×2 cases, identities on random inputs, failure modes."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import qwem_lib as q
from qwem_lib.qwem import theory as th

# A hand-worked 2×2 table: P = [[.3, .1], [.1, .5]], row sums p = (.4, .6), ppᵀ = [[.16, .24], [.24, .36]].
P2 = np.array([[0.3, 0.1], [0.1, 0.5]])
P2_M = np.array([[14 / 23, -14 / 17], [-14 / 17, 14 / 43]])  # 2(P - ppᵀ)/(P + ppᵀ), by hand


def rand_problem(V=9, seed=0, **kw):
    rng = np.random.default_rng(seed)
    return th.synthetic_joint(V, rng, **kw), rng


def rand_sym_psi(V, rng, low=0.5, high=2.0):
    A = rng.uniform(low, high, size=(V, V))
    return (A + A.T) / 2


# --- target matrix and weights ---------------------------------------------------------------
def test_target_matrix_2x2_by_hand():
    np.testing.assert_allclose(q.target_matrix(P2, 1.0, 1.0), P2_M, rtol=0, atol=1e-15)
    # the equal reweighting 1/(P + ppᵀ) gives the same M* (only the ratio Ψ⁺/Ψ⁻ matters) and G = 1
    psi = q.equal_reweighting(P2)
    np.testing.assert_allclose(q.target_matrix(P2, psi, psi), P2_M, atol=1e-15)
    np.testing.assert_allclose(q.weight_matrix(P2, psi, psi), np.ones((2, 2)), atol=1e-15)


def test_target_matrix_explicit_marginal_and_unequal_psi():
    p = np.array([0.5, 0.5])
    # Ψ⁺ = 2, Ψ⁻ = 1: M_11 = (2·.3 − .25)/(.5(.6 + .25)) = .35/.425
    M = q.target_matrix(P2, 2.0, 1.0, P_marginal=p)
    assert M[0, 0] == pytest.approx(0.35 / 0.425, abs=1e-15)
    assert M[0, 1] == pytest.approx((0.2 - 0.25) / (0.5 * 0.45), abs=1e-15)
    assert M[1, 1] == pytest.approx((1.0 - 0.25) / (0.5 * 1.25), abs=1e-15)


def test_target_matrix_bounded_and_extremes():
    P = np.array([[0.5, 0.0], [0.0, 0.5]])  # words never co-occur: M*_12 = −2 exactly
    M = q.target_matrix(P, 1.0, 1.0)
    assert M[0, 1] == -2.0
    Pr, _ = rand_problem(15, seed=3)
    Mr = q.target_matrix(Pr, 1.0, 1.0)
    assert Mr.min() >= -2 and Mr.max() <= 2
    np.testing.assert_allclose(Mr, Mr.T, atol=1e-14)


# --- the loss and Theorem 1 / Proposition 2 --------------------------------------------------
def test_qwem_loss_2x2_by_hand():
    W = np.array([[1.0], [0.0]])  # x = [[1, 0], [0, 0]]
    # only (1,1) contributes: .3(1/4 − 1) + .16(1/4 + 1) = −.225 + .2
    assert q.qwem_loss(W, P2, 1.0, 1.0) == pytest.approx(-0.025, abs=1e-15)
    assert q.qwem_loss(np.zeros((2, 3)), P2, 1.0, 1.0) == 0.0


def test_theorem1_identity_constant_g():
    P, rng = rand_problem(10, seed=1)
    for g in (1.0, 3.7):
        psi = g * q.equal_reweighting(P)
        M = q.target_matrix(P, psi, psi)
        c = q.qwem_loss_constant(P, psi, psi)
        assert c == pytest.approx(-g / 4 * np.sum(M * M), rel=1e-13)
        for _ in range(5):
            W = rng.standard_normal((10, 3))
            lhs = q.qwem_loss(W, P, psi, psi) - g / 4 * np.linalg.norm(W @ W.T - M) ** 2
            assert lhs == pytest.approx(c, rel=1e-11)


def test_proposition2_identity_general_G():
    P, rng = rand_problem(8, seed=2)
    pp, pm = rand_sym_psi(8, rng), rand_sym_psi(8, rng)
    G = q.weight_matrix(P, pp, pm)
    assert G.std() > 1e-3  # genuinely non-constant
    M = q.target_matrix(P, pp, pm)
    c = q.qwem_loss_constant(P, pp, pm)
    for _ in range(4):
        W = rng.standard_normal((8, 2))
        assert q.qwem_loss(W, P, pp, pm) - q.weighted_factorisation_loss(W, M, G) == pytest.approx(
            c, rel=1e-11
        )


def test_gradient_matches_autograd_and_finite_difference():
    import torch

    P, rng = rand_problem(7, seed=4)
    pp, pm = rand_sym_psi(7, rng), rand_sym_psi(7, rng)
    W = rng.standard_normal((7, 3))
    g = q.qwem_gradient(W, P, pp, pm)
    Wt = torch.tensor(W, requires_grad=True)
    A = torch.tensor(pp * P)
    B = torch.tensor(pm * np.outer(P.sum(1), P.sum(1)))
    X = Wt @ Wt.T
    L = torch.sum(A * (X * X / 4 - X) + B * (X * X / 4 + X))
    L.backward()
    np.testing.assert_allclose(g, Wt.grad.numpy(), rtol=1e-12, atol=1e-14)
    E = rng.standard_normal(W.shape)
    h = 1e-6
    fd = (q.qwem_loss(W + h * E, P, pp, pm) - q.qwem_loss(W - h * E, P, pp, pm)) / (2 * h)
    assert fd == pytest.approx(np.sum(g * E), rel=1e-7)


def test_optimal_embeddings_by_hand():
    W = q.optimal_embeddings(np.array([[2.0, 1.0], [1.0, 2.0]]), 1)  # λ = 3 on (1, 1)/√2
    np.testing.assert_allclose(np.abs(W), np.sqrt(1.5) * np.ones((2, 1)), atol=1e-14)
    W2 = q.optimal_embeddings(np.diag([1.0, 3.0]), 2)
    np.testing.assert_allclose(W2 @ W2.T, np.diag([1.0, 3.0]), atol=1e-14)
    np.testing.assert_allclose(np.abs(W2[:, 0]), [0, np.sqrt(3)], atol=1e-14)  # largest first


def test_optimal_embeddings_is_theorem1_minimum():
    P, rng = rand_problem(12, seed=5)
    M = q.target_matrix(P, 1.0, 1.0)
    d = 3
    W = q.optimal_embeddings(M, d)
    best = q.weighted_factorisation_loss(W, M, 1.0)
    assert best == pytest.approx(q.factorisation_minimum(M, d), rel=1e-12)
    for _ in range(20):  # no nearby W does better
        assert q.weighted_factorisation_loss(W + 1e-3 * rng.standard_normal(W.shape), M) >= best
    # invariance: L(WO) = L(W)
    O, _ = np.linalg.qr(rng.standard_normal((d, d)))
    assert q.qwem_loss(W @ O, P, 1.0, 1.0) == pytest.approx(q.qwem_loss(W, P, 1.0, 1.0), rel=1e-13)


def test_optimal_embeddings_negative_eigenvalue_raises():
    with pytest.raises(ValueError, match="not all non-negative"):
        q.optimal_embeddings(np.diag([1.0, -2.0]), 2)
    with pytest.raises(ValueError, match="not all non-negative"):
        q.optimal_embeddings(np.diag([-1.0, -2.0]), 1)
    np.testing.assert_allclose(
        np.abs(q.optimal_embeddings(np.diag([1.0, -2.0]), 1)), [[1.0], [0.0]]
    )
    # the true minimiser drops the negative part
    np.testing.assert_allclose(q.psd_truncation(np.diag([1.0, -2.0]), 2), np.diag([1.0, 0.0]))
    assert q.factorisation_minimum(np.diag([1.0, -2.0]), 2) == pytest.approx(1.0)  # ¼·(−2)²


def test_psd_truncation_is_not_eckart_young():
    """With a negative eigenvalue of large |λ| the best PSD rank-d fit keeps the largest *signed* eigenvalues,
    while Eckart–Young (any rank-d matrix) would keep the largest |λ|; gradient flow on W finds the former."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    lam = np.array([3.0, 1.0, 0.5, 0.2, -0.3, -4.0])
    M = (Q * lam) @ Q.T
    M = (M + M.T) / 2
    X = q.psd_truncation(M, 2)
    np.testing.assert_allclose(X, (Q[:, :2] * lam[:2]) @ Q[:, :2].T, atol=1e-12)
    ey = (Q[:, [0, 5]] * lam[[0, 5]]) @ Q[:, [0, 5]].T  # Eckart–Young: |λ| = 4 and 3
    assert np.linalg.norm(ey - M) < np.linalg.norm(
        X - M
    )  # better unconstrained, but not a Gram matrix
    assert np.linalg.eigvalsh(ey).min() < -1.0
    # brute force over Gram matrices: no random rank-2 WWᵀ beats the PSD truncation
    best = 0.25 * np.linalg.norm(X - M) ** 2
    assert best == pytest.approx(q.factorisation_minimum(M, 2), rel=1e-12)
    for _ in range(200):
        W = q.optimal_embeddings(X + 1e-12 * np.eye(6), 2) + 0.05 * rng.standard_normal((6, 2))
        assert 0.25 * np.linalg.norm(W @ W.T - M) ** 2 >= best


@pytest.mark.parametrize("d", [0, 3, 2.5])
def test_d_out_of_range(d):
    with pytest.raises(ValueError, match="d must"):
        q.optimal_embeddings(np.eye(2), d)


def test_rank_one_weighted_minimizer_by_hand():
    M = np.diag([1.0, 2.0])
    g = np.array([4.0, 1.0])
    # ΓMΓ = diag(4, 2) → keep diag(4, 0) → Γ⁻¹ · Γ⁻¹ = diag(1, 0); unweighted would keep diag(0, 2)
    np.testing.assert_allclose(
        q.rank_one_weighted_minimizer(M, g, 1), np.diag([1.0, 0.0]), atol=1e-14
    )
    G = np.outer(g, g)
    assert q.weighted_factorisation_loss(np.array([[1.0], [0.0]]), M, G) == pytest.approx(1.0)
    assert q.weighted_factorisation_loss(np.array([[0.0], [np.sqrt(2)]]), M, G) == pytest.approx(
        4.0
    )
    # g constant reduces to the unweighted truncation; full rank PSD M is returned as is
    np.testing.assert_allclose(
        q.rank_one_weighted_minimizer(M, np.ones(2), 1), np.diag([0.0, 2.0]), atol=1e-14
    )
    np.testing.assert_allclose(q.rank_one_weighted_minimizer(M, g, 2), M, atol=1e-14)


def test_rank_one_weighted_minimizer_is_a_minimum():
    P, rng = rand_problem(10, seed=6)
    M = q.target_matrix(P, 1.0, 1.0)
    g = rng.uniform(0.3, 3.0, size=10)
    G = np.outer(g, g)
    X = q.rank_one_weighted_minimizer(M, g, 2)
    lam, U = np.linalg.eigh(X)
    W = U[:, -2:] * np.sqrt(np.clip(lam[-2:], 0, None))
    np.testing.assert_allclose(W @ W.T, X, atol=1e-12)
    best = q.weighted_factorisation_loss(W, M, G)
    for _ in range(20):
        assert q.weighted_factorisation_loss(W + 1e-3 * rng.standard_normal(W.shape), M, G) >= best
    with pytest.raises(ValueError, match="strictly positive"):
        q.rank_one_weighted_minimizer(M, -g, 2)
    with pytest.raises(ValueError, match="length V"):
        q.rank_one_weighted_minimizer(M, g[:3], 2)


# --- Lemma 3.1 ---------------------------------------------------------------------------------
def test_aligned_sigmoid_values_and_ode():
    lam, s0 = 2.0, 1e-3
    assert q.aligned_sigmoid(lam, s0, 0.0) == pytest.approx(s0, rel=1e-15)
    tau = q.characteristic_time(lam, s0)
    assert tau == pytest.approx(np.log(2.0 / 1e-3) / 2.0)
    # at t = τ: s² = λ²/(2λ − s0²) ≈ λ/2
    assert q.aligned_sigmoid(lam, s0, tau) == pytest.approx(lam**2 / (2 * lam - s0), rel=1e-12)
    t = np.linspace(0, 10, 101)
    s = q.aligned_sigmoid(lam, s0, t)
    h = 1e-6
    ds = (q.aligned_sigmoid(lam, s0, t + h) - q.aligned_sigmoid(lam, s0, t - h)) / (2 * h)
    np.testing.assert_allclose(ds, s * (lam - s), rtol=1e-5, atol=1e-8)


def test_aligned_sigmoid_overflow_and_edge_cases():
    with np.errstate(all="raise"):
        assert q.aligned_sigmoid(10.0, 1e-12, 1e4) == pytest.approx(10.0, rel=1e-15)
        assert q.aligned_sigmoid(-3.0, 0.5, 1e4) == 0.0
    assert q.aligned_sigmoid(0.0, 0.5, 2.0) == pytest.approx(0.5 / (1 + 0.5 * 2.0))
    # negative λ: decays, matching the closed form
    lam, s0, t = -1.0, 0.3, 0.7
    closed = s0 * lam * np.exp(lam * t) / (lam + s0 * (np.exp(lam * t) - 1))
    assert q.aligned_sigmoid(lam, s0, t) == pytest.approx(closed, rel=1e-13)
    out = q.aligned_sigmoid(np.array([1.0, 2.0]), 1e-4, np.array([[0.0], [50.0]]))
    assert out.shape == (2, 2)
    with pytest.raises(ValueError):
        q.aligned_sigmoid(1.0, 0.0, 1.0)
    with pytest.raises(ValueError):
        q.characteristic_time(-1.0, 1e-3)


# --- Procrustes ---------------------------------------------------------------------------------
def test_procrustes_by_hand():
    assert q.procrustes_distance(np.eye(2), np.array([[0.0, 1.0], [-1.0, 0.0]])) == pytest.approx(
        0, abs=1e-15
    )
    assert q.procrustes_distance(np.eye(2), np.diag([1.0, -1.0])) == pytest.approx(0, abs=1e-15)
    assert q.procrustes_distance(
        np.array([[1.0], [0.0]]), np.array([[0.0], [1.0]])
    ) == pytest.approx(np.sqrt(2))
    rng = np.random.default_rng(7)
    A = rng.standard_normal((10, 3))
    O, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    assert q.procrustes_distance(A, A @ O) < 1e-13
    B = rng.standard_normal((10, 3))
    d = q.procrustes_distance(A, B)
    for _ in range(20):  # no orthogonal matrix does better
        R, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        assert np.linalg.norm(A @ R - B) >= d - 1e-12
    with pytest.raises(ValueError, match="same shape"):
        q.procrustes_distance(A, B[:, :2])


# --- M* and PMI ---------------------------------------------------------------------------------
def test_pmi_series_exact_coefficients():
    c = q.pmi_series_coefficients(7)
    assert {k: Fraction(str(v)) for k, v in c.items()} == {
        1: 1,
        3: Fraction(1, 12),
        5: Fraction(1, 80),
        7: Fraction(1, 448),
    }


def test_pmi_mstar_maps_and_series():
    P, _ = rand_problem(10, seed=8)
    p = P.sum(1)
    M = q.target_matrix(P, 1.0, 1.0)
    np.testing.assert_allclose(q.pmi_from_mstar(M), np.log(P / np.outer(p, p)), atol=1e-12)
    np.testing.assert_allclose(q.mstar_from_pmi(np.log(P / np.outer(p, p))), M, atol=1e-13)
    assert q.mstar_from_pmi(-np.inf) == -2.0
    x = np.linspace(-1, 1, 201)
    for order in (1, 3, 5):
        err = np.abs(q.pmi_from_mstar(x) - q.mstar_series(x, order))
        assert np.all(err <= q.mstar_series_remainder_bound(x, order) + 1e-15)
    assert q.mstar_series(0.5, 3) == pytest.approx(0.5 + 0.125 / 12)
    with pytest.raises(ValueError):
        q.mstar_series_remainder_bound(2.0)


def test_logistic_taylor():
    import sympy as sp

    x = sp.symbols("x")
    assert (
        sp.simplify(q.logistic_loss_taylor(+1, 4) - (sp.log(2) - x / 2 + x**2 / 8 - x**4 / 192))
        == 0
    )
    assert sp.simplify(q.logistic_loss_taylor(-1, 2) - (sp.log(2) + x / 2 + x**2 / 8)) == 0
    with pytest.raises(ValueError):
        q.logistic_loss_taylor(0)


# --- gradient descent -------------------------------------------------------------------------
def test_gradient_descent_reaches_theorem1_minimiser():
    P, _ = rand_problem(10, seed=9)
    psi = q.equal_reweighting(P)
    M = q.target_matrix(P, psi, psi)
    r = q.gradient_descent_qwem(
        P, psi, psi, 2, init_scale=1e-3, max_steps=50_000, gtol=1e-11, seed=1, device="cpu"
    )
    assert r.converged
    W = q.optimal_embeddings(M, 2)
    assert q.procrustes_distance(r.W, W) / np.linalg.norm(W) < 1e-8
    assert r.loss[-1] == pytest.approx(
        q.qwem_loss_constant(P, psi, psi) + q.factorisation_minimum(M, 2), rel=1e-12
    )
    # same seed, same numbers
    r2 = q.gradient_descent_qwem(
        P, psi, psi, 2, init_scale=1e-3, max_steps=50_000, gtol=1e-11, seed=1, device="cpu"
    )
    np.testing.assert_array_equal(r.W, r2.W)


# --- failure modes ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "P, msg",
    [
        (np.array([[0.3, 0.2], [0.0, 0.5]]), "symmetric"),
        (np.array([[0.6, -0.1], [-0.1, 0.6]]), "negative"),
        (np.array([[0.3, 0.1], [0.1, 0.4]]), "sum to 1"),
        (np.ones(4) / 4, "P_joint must be 2-D"),
        (np.array([[np.nan, 0.1], [0.1, 0.5]]), "P_joint must hold finite"),
    ],
)
def test_bad_joint(P, msg):
    with pytest.raises(ValueError, match=msg):
        q.target_matrix(P, 1.0, 1.0)


def test_bad_marginal_psi_W_and_zero_G():
    with pytest.raises(ValueError, match="length V"):
        q.target_matrix(P2, 1.0, 1.0, P_marginal=np.ones(3) / 3)
    with pytest.raises(ValueError, match="sum to 1"):
        q.target_matrix(P2, 1.0, 1.0, P_marginal=np.array([0.5, 0.6]))
    with pytest.raises(ValueError, match="psi_plus"):
        q.target_matrix(P2, np.ones((3, 3)), 1.0)
    with pytest.raises(ValueError, match="psi_minus"):
        q.target_matrix(P2, 1.0, -1.0)
    with pytest.raises(ValueError, match="symmetric"):
        q.target_matrix(P2, np.array([[1.0, 2.0], [1.0, 1.0]]), 1.0)
    with pytest.raises(ValueError, match="W must"):
        q.qwem_loss(np.ones((3, 2)), P2, 1.0, 1.0)
    Pz = np.array([[1.0, 0.0], [0.0, 0.0]])  # word 2 never occurs: G_22 = 0
    with pytest.raises(ValueError, match="undefined"):
        q.target_matrix(Pz, 1.0, 1.0)
    with pytest.raises(ValueError, match="undefined"):
        q.equal_reweighting(Pz)
    with pytest.raises(ValueError, match="symmetric"):
        q.optimal_embeddings(np.array([[1.0, 2.0], [0.0, 1.0]]), 1)
    with pytest.raises(ValueError, match="d must"):
        q.gradient_descent_qwem(P2, 1.0, 1.0, 3)


def test_hessian_matches_finite_differences_of_gradient():
    P, rng = rand_problem(5, seed=10)
    pp, pm = rand_sym_psi(5, rng), rand_sym_psi(5, rng)
    W = rng.standard_normal((5, 2))
    H = q.qwem_hessian(W, P, pp, pm)
    assert H.shape == (10, 10)
    np.testing.assert_allclose(H, H.T, atol=1e-12)
    E = rng.standard_normal(W.shape)
    h = 1e-6
    fd = (q.qwem_gradient(W + h * E, P, pp, pm) - q.qwem_gradient(W - h * E, P, pp, pm)) / (2 * h)
    np.testing.assert_allclose(H @ E.ravel(), fd.ravel(), rtol=1e-6, atol=1e-9)


def test_synthetic_joint_is_a_valid_table():
    rng = np.random.default_rng(11)
    P = q.synthetic_joint(15, rng, rank=3)
    assert P.shape == (15, 15) and np.all(P > 0)
    assert P.sum() == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_array_equal(P, P.T)
    q.target_matrix(P, 1.0, 1.0)  # passes validation
    with pytest.raises(ValueError, match="V must be an integer >= 2"):
        q.synthetic_joint(1, rng)


def test_gradient_descent_options_and_errors():
    P, rng = rand_problem(6, seed=12)
    W0 = 0.1 * rng.standard_normal((6, 2))
    r = q.gradient_descent_qwem(
        P,
        1.0,
        1.0,
        2,
        W0=W0,
        max_steps=30,
        gtol=0.0,
        record_every=10,
        device="cpu",
        track=lambda W: (W**2).sum(),
    )
    assert list(r.steps) == [0, 10, 20, 30] and not r.converged
    assert r.tracked.shape == (4,) and r.tracked[0] == pytest.approx(np.sum(W0**2))
    assert r.loss[0] == pytest.approx(q.qwem_loss(W0, P, 1.0, 1.0), rel=1e-14)
    with pytest.raises(ValueError, match="W0 must have d=3"):
        q.gradient_descent_qwem(P, 1.0, 1.0, 3, W0=W0, device="cpu")
    with pytest.raises(FloatingPointError, match="diverged"):
        q.gradient_descent_qwem(P, 1.0, 1.0, 2, W0=10 * W0 + 5, lr=1e3, max_steps=200, device="cpu")
    with pytest.raises(ValueError, match="shape of M"):
        q.weighted_factorisation_loss(W0, np.eye(6), np.ones((3, 3)))


# -- issue 45: mutation-testing survivors, each against an independent computation ------------------------------


def test_mstar_series_default_order_and_remainder_bound_against_artanh():
    import math

    x = 0.3
    # default order 3: x + x³/12, written out by hand
    assert th.mstar_series(x) == pytest.approx(x + x**3 / 12, rel=1e-15)
    assert isinstance(th.mstar_series(x), float)
    assert th.mstar_series(x, order=5) == pytest.approx(x + x**3 / 12 + x**5 / 80, rel=1e-15)
    for order, first in ((3, x**5 / 80), (5, x**7 / 448)):  # the first omitted term, 1/(4^k (2k+1))
        true = abs(2 * math.atanh(x / 2) - th.mstar_series(x, order))
        bound = th.mstar_series_remainder_bound(x, order)
        assert isinstance(bound, float)
        assert true <= bound  # a bound
        assert bound == pytest.approx(first / (1 - x * x / 4), rel=1e-12)  # and the one documented
        assert (
            bound <= 1.01 * true
        )  # tight at small x: the remainder is dominated by its first term
    assert th.mstar_series_remainder_bound(-x) == th.mstar_series_remainder_bound(x)
    np.testing.assert_allclose(th.mstar_series(np.array([0.0, x])), [0.0, x + x**3 / 12])


def test_pmi_from_mstar_accepts_the_closed_interval_only():
    assert th.pmi_from_mstar(2.0) == np.inf and th.pmi_from_mstar(-2.0) == -np.inf
    assert isinstance(th.pmi_from_mstar(0.5), float)
    import math

    assert th.pmi_from_mstar(0.5) == pytest.approx(math.log(2.5 / 1.5), rel=1e-14)
    for bad in (2.0 + 1e-12, -2.5, np.nan):
        with pytest.raises(ValueError, match="M\\* values in \\[-2, 2\\]"):
            th.pmi_from_mstar(bad)
    # the message names an offending value when only one entry is wrong (NaN or out of range)
    with pytest.raises(ValueError, match=r"e\.g\. (np\.float64\()?2\.5"):
        th.pmi_from_mstar(np.array([0.1, 2.5]))
    with pytest.raises(ValueError, match=r"e\.g\. (np\.float64\()?nan"):
        th.pmi_from_mstar(np.array([0.1, np.nan]))
    with pytest.raises(ValueError, match=r"e\.g\. (np\.float64\()?3\.0"):
        th.pmi_from_mstar(np.array([[0.1], [3.0]]))


def test_characteristic_time_edges_and_value():
    import math

    assert th.characteristic_time(2.0, 0.5) == pytest.approx(math.log(4.0) / 2.0)
    assert isinstance(th.characteristic_time(2.0, 0.5), float)
    assert th.characteristic_time(1e-9, 1e-12) > 0  # tiny positive values are fine
    for lam, s0, name in (
        (0.0, 0.5, "lam"),
        (2.0, 0.0, "s0_sq"),
        (-1.0, 0.5, "lam"),
        (2.0, -0.1, "s0_sq"),
    ):
        with pytest.raises(ValueError, match=f"{name} must hold positive numbers"):
            th.characteristic_time(lam, s0)


def test_aligned_sigmoid_at_zero_rate_and_after_overflow():
    # λ = 0: ds²/dt = −s⁴, so s²(t) = s0² / (1 + s0² t)
    assert th.aligned_sigmoid(0.0, 0.5, 2.0) == pytest.approx(0.5 / (1 + 0.5 * 2.0), rel=1e-14)
    np.testing.assert_allclose(
        th.aligned_sigmoid(np.array([0.0, 0.0]), 0.25, np.array([0.0, 4.0])), [0.25, 0.125]
    )
    # λ < 0 with |λt| beyond exp's range: the mode has decayed to 0 (not NaN, not 1)
    assert th.aligned_sigmoid(-1000.0, 0.5, 10.0) == 0.0
    assert isinstance(th.aligned_sigmoid(1.0, 0.5, 1.0), float)
    with pytest.raises(ValueError, match="s0_sq must hold positive numbers"):
        th.aligned_sigmoid(1.0, 0.0, 1.0)


# -- inputs, caches and faults ------------------------------------------------------------------


def test_qwem_loss_refuses_nan_W():
    from qwem_lib.qwem import theory

    P = np.full((3, 3), 1 / 9)
    psi = np.ones((3, 3))
    W = np.ones((3, 2))
    assert np.isfinite(theory.qwem_loss(W, P, psi, psi))
    W[1, 1] = np.nan
    with pytest.raises(ValueError, match="W must hold finite"):
        theory.qwem_loss(W, P, psi, psi)


def test_pmi_from_mstar_domain():
    from qwem_lib.qwem.theory import mstar_from_pmi, pmi_from_mstar

    assert pmi_from_mstar(mstar_from_pmi(1.3)) == pytest.approx(1.3)
    assert pmi_from_mstar(-2.0) == -np.inf  # an unseen pair: documented
    for bad in (2.5, -3.0, np.nan, [0.0, 2.1]):
        with pytest.raises(ValueError, match=r"\[-2, 2\]"):
            pmi_from_mstar(bad)


def test_gradient_descent_record_every():
    from qwem_lib.qwem.theory import gradient_descent_qwem

    P = np.array([[0.3, 0.1], [0.1, 0.5]])
    psi = np.ones((2, 2))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="record_every"):
            gradient_descent_qwem(P, psi, psi, 1, record_every=bad, max_steps=5)


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def test_gradient_descent_records_what_it_says_against_an_independent_loss():
    """The recorded losses and gradient norms are those of the QWEM loss (written out here term by term
    with numpy, and differentiated by finite differences) at the recorded steps; the defaults: seed 0,
    init_scale 1e-3, a record every 10 steps, the default step from M*; P_marginal is used when given."""
    import torch

    rng = np.random.default_rng(3)
    V, d = 5, 2
    P = rng.random((V, V))
    P = (P + P.T) / (P + P.T).sum()
    pp, pm = np.ones((V, V)), np.ones((V, V))
    pu = P.sum(1)
    r = th.gradient_descent_qwem(
        P, pp, pm, d, max_steps=35, device="cpu", track=lambda W: W.clone()
    )
    assert r.steps.tolist() == [0, 10, 20, 30, 35] and not r.converged
    assert r.info == {"V": V, "d": d, "init_scale": 1e-3, "seed": 0}
    M = th.target_matrix(P, pp, pm)
    G = P * pp + np.outer(pu, pu) * pm
    assert r.lr == pytest.approx(0.25 / (G.max() * max(np.abs(np.linalg.eigvalsh(M)).max(), 1.0)))

    def loss(W):
        X = W @ W.T
        return float(np.sum(P * pp * (X * X / 4 - X) + np.outer(pu, pu) * pm * (X * X / 4 + X)))

    for i, W in enumerate(r.tracked):
        assert r.loss[i] == pytest.approx(loss(W), rel=1e-12, abs=1e-15)
        eps, g = 1e-7, np.zeros_like(W)
        for a in range(V):
            for b in range(d):
                E = np.zeros_like(W)
                E[a, b] = eps
                g[a, b] = (loss(W + E) - loss(W - E)) / (2 * eps)
        assert r.grad_norm[i] == pytest.approx(np.linalg.norm(g), rel=1e-5)
    gen = torch.Generator().manual_seed(0)
    np.testing.assert_array_equal(
        r.tracked[0], 1e-3 * torch.randn(V, d, generator=gen, dtype=torch.float64).numpy()
    )
    same = th.gradient_descent_qwem(
        P, pp, pm, d, max_steps=35, device="cpu", seed=0, init_scale=1e-3, record_every=10
    )
    np.testing.assert_array_equal(same.W, r.W)
    other_marginal = th.gradient_descent_qwem(
        P, pp, pm, d, max_steps=35, device="cpu", P_marginal=np.full(V, 1 / V)
    )
    assert not np.allclose(other_marginal.loss, r.loss)
    conv = th.gradient_descent_qwem(P, pp, pm, d, max_steps=50, device="cpu", gtol=1e30)
    assert conv.converged and conv.steps.tolist() == [0]  # stops at once, and records that step
    for name in ("record_every", "max_steps"):
        for bad in (0, True, 1.5):
            with pytest.raises(ValueError, match=f"{name} must be a positive integer"):
                th.gradient_descent_qwem(P, pp, pm, d, device="cpu", **{name: bad})
    th.gradient_descent_qwem(
        P, pp, pm, d, device="cpu", max_steps=1, record_every=1
    )  # 1 is allowed


def test_aligned_sigmoid_solves_its_ode_for_every_sign_of_lambda():
    from scipy.integrate import solve_ivp

    for lam in (2.0, 0.0, -1.0):
        t = np.linspace(0, 6, 13)
        ref = solve_ivp(
            lambda _, s, lam=lam: s * (lam - s), (0, 6), [0.05], t_eval=t, rtol=1e-11, atol=1e-14
        ).y[0]
        np.testing.assert_allclose(th.aligned_sigmoid(lam, 0.05, t), ref, rtol=1e-8)
    assert isinstance(th.aligned_sigmoid(2.0, 0.05, 1.0), float)
    assert th.aligned_sigmoid(2.0, 0.05, 1000.0) == pytest.approx(2.0)  # no overflow: the plateau
    assert th.aligned_sigmoid(-3.0, 0.05, 1000.0) == 0.0  # decays to 0, not NaN
    assert th.aligned_sigmoid(0.0, 0.5, 2.0) == pytest.approx(
        0.5 / (1 + 0.5 * 2.0)
    )  # lam = 0: 1/(1/s0 + t)
    np.testing.assert_allclose(th.aligned_sigmoid(np.array([1.0, 2.0]), 0.1, 0.0), [0.1, 0.1])
    with pytest.raises(ValueError, match="s0_sq"):
        th.aligned_sigmoid(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="s0_sq"):
        th.aligned_sigmoid(1.0, -0.1, 1.0)


def test_characteristic_time_and_pmi_from_mstar_by_hand():
    assert th.characteristic_time(2.0, 1e-3) == pytest.approx(np.log(2000) / 2)
    np.testing.assert_allclose(
        th.characteristic_time(np.array([1.0, 4.0]), 0.5), [np.log(2), np.log(8) / 4]
    )
    assert isinstance(th.characteristic_time(2.0, 1e-3), float)
    for lam, s0 in ((0.0, 1.0), (-1.0, 1.0), (1.0, 0.0)):
        with pytest.raises(ValueError):
            th.characteristic_time(lam, s0)
    assert th.pmi_from_mstar(1.0) == pytest.approx(np.log(3.0))
    assert th.pmi_from_mstar(2.0) == np.inf and th.pmi_from_mstar(-2.0) == -np.inf
    np.testing.assert_allclose(th.pmi_from_mstar(np.array([0.0, -1.0])), [0.0, -np.log(3.0)])
    for bad in (2.0001, -3.0, np.nan):
        with pytest.raises(ValueError, match=r"\[-2, 2\]"):
            th.pmi_from_mstar(bad)


def test_mstar_series_remainder_bound_bounds_the_true_remainder():
    """For every order and |x| < 2 the bound holds, and it is tight: at most 1/(1 - x²/4) times the
    true remainder's first omitted term."""
    x = np.linspace(-1.9, 1.9, 39)
    exact = 2 * np.arctanh(x / 2)
    for order in (1, 3, 5, 7):
        rem = np.abs(exact - th.mstar_series(x, order))
        bound = th.mstar_series_remainder_bound(x, order)
        assert np.all(rem <= bound * (1 + 1e-12) + 1e-15), order
        K = (order - 1) // 2
        first = np.abs(x) ** (2 * K + 3) / (4.0 ** (K + 1) * (2 * K + 3))
        np.testing.assert_allclose(bound, first / (1 - x * x / 4), rtol=1e-14)
        assert np.all(rem >= first * (1 - 1e-9))  # the remainder is at least its first term
    assert isinstance(th.mstar_series_remainder_bound(1.0), float)
    with pytest.raises(ValueError, match=r"\|x\| < 2"):
        th.mstar_series_remainder_bound(2.0)
    with pytest.raises(ValueError, match="order"):
        th.mstar_series_remainder_bound(1.0, order=0)


def test_gradient_descent_uses_the_marginal_it_is_given():
    """With P_marginal = q the negative term's weight is q_i q_j, in the loss, its gradient and the default
    step (checked against the loss written out with q, and the step computed from q's M* and G)."""
    rng = np.random.default_rng(8)
    V, d = 5, 2
    P = rng.random((V, V))
    P = (P + P.T) / (P + P.T).sum()
    q = np.array([0.3, 0.25, 0.2, 0.15, 0.1])
    one = np.ones((V, V))
    r = th.gradient_descent_qwem(P, one, one, d, P_marginal=q, max_steps=20, record_every=5, device="cpu",
                                 track=lambda W: W.clone())  # fmt: skip
    B = np.outer(q, q)
    for i, W in enumerate(r.tracked):
        X = W @ W.T
        want = np.sum(P * (X * X / 4 - X) + B * (X * X / 4 + X))
        assert r.loss[i] == pytest.approx(want, rel=1e-12)
    M = th.target_matrix(P, one, one, q)
    G = P + B
    assert r.lr == pytest.approx(0.25 / (G.max() * max(np.abs(np.linalg.eigvalsh(M)).max(), 1.0)))


def test_synthetic_joint_is_its_documented_formula():
    """P_ij ∝ p_i p_j exp(Σ_k a_k V u_ik u_jk + ε_ij), p_i ∝ (i+1)^-zipf, a_k = strength·decay^k, ε symmetric
    of scale noise; without structure or noise it is the outer product of the Zipf marginals."""
    import math

    P0 = th.synthetic_joint(6, np.random.default_rng(0), rank=0, noise=0.0, zipf=1.5)
    p = np.arange(1, 7.0) ** -1.5
    np.testing.assert_allclose(P0, np.outer(p, p) / np.outer(p, p).sum(), rtol=1e-12)
    rng = np.random.default_rng(5)
    got = th.synthetic_joint(7, rng, rank=2, strength=0.7, noise=0.3, zipf=0.5, decay=0.6)
    rng = np.random.default_rng(5)
    U = np.linalg.qr(rng.standard_normal((7, 2)))[0]
    S = 7 * (U * np.array([0.7, 0.7 * 0.6])) @ U.T
    E = rng.standard_normal((7, 7))
    E = 0.3 * (E + E.T) / math.sqrt(2.0)
    q = np.arange(1, 8.0) ** -0.5
    want = np.outer(q, q) * np.exp(S + E)
    np.testing.assert_allclose(got, want / want.sum(), rtol=1e-12)
    defaults = th.synthetic_joint(7, np.random.default_rng(5))
    explicit = th.synthetic_joint(
        7, np.random.default_rng(5), rank=4, strength=1.0, noise=0.2, zipf=1.0, decay=0.8
    )
    np.testing.assert_array_equal(defaults, explicit)
    assert th.synthetic_joint(3, np.random.default_rng(0), rank=3).shape == (3, 3)  # rank up to V
    with pytest.raises(ValueError, match="rank"):
        th.synthetic_joint(3, np.random.default_rng(0), rank=4)


def test_gradient_descent_tracks_numpy_values_too():
    rng = np.random.default_rng(1)
    P = rng.random((4, 4))
    P = (P + P.T) / (P + P.T).sum()
    one = np.ones((4, 4))
    r = th.gradient_descent_qwem(P, one, one, 2, max_steps=4, record_every=2, device="cpu",
                                 track=lambda W: W.numpy().sum(axis=0))  # fmt: skip
    assert r.tracked.shape == (3, 2) and r.tracked.dtype == np.float64


def test_every_loss_function_uses_the_marginal_it_is_given():
    """With P_marginal = q the negative weights are psi- q_i q_j in the weight matrix, the target, the loss,
    its gradient (by finite differences), its Hessian and the constant (each written out with q)."""
    rng = np.random.default_rng(2)
    V, d = 4, 2
    P = rng.random((V, V))
    P = (P + P.T) / (P + P.T).sum()
    q = np.array([0.4, 0.3, 0.2, 0.1])
    pp, pm = np.full((V, V), 1.5), np.full((V, V), 0.5)
    A, B = pp * P, pm * np.outer(q, q)
    np.testing.assert_allclose(th.weight_matrix(P, pp, pm, q), A + B)
    M = (A - B) / (0.5 * (A + B))
    np.testing.assert_allclose(th.target_matrix(P, pp, pm, q), M)
    W = rng.standard_normal((V, d))

    def loss(X):
        G = X @ X.T
        return float(np.sum(A * (G * G / 4 - G) + B * (G * G / 4 + G)))

    assert q_loss(W, P, pp, pm, q) == pytest.approx(loss(W), rel=1e-12)
    g = np.zeros_like(W)
    for i in range(V):
        for j in range(d):
            E = np.zeros_like(W)
            E[i, j] = 1e-6
            g[i, j] = (loss(W + E) - loss(W - E)) / 2e-6
    np.testing.assert_allclose(th.qwem_gradient(W, P, pp, pm, q), g, rtol=1e-6, atol=1e-9)
    H = th.qwem_hessian(W, P, pp, pm, q)
    e = 1e-5
    H_fd = np.zeros((V * d, V * d))
    for k in range(V * d):
        E = np.zeros(V * d)
        E[k] = e
        H_fd[:, k] = (
            th.qwem_gradient(W + E.reshape(V, d), P, pp, pm, q)
            - th.qwem_gradient(W - E.reshape(V, d), P, pp, pm, q)
        ).ravel() / (2 * e)
    np.testing.assert_allclose(H, H_fd, rtol=1e-5, atol=1e-8)
    assert th.qwem_loss_constant(P, pp, pm, q) == pytest.approx(-0.25 * np.sum((A + B) * M * M))


def q_loss(W, P, pp, pm, q):
    return th.qwem_loss(W, P, pp, pm, q)


def test_reweightings_and_weights_may_hold_zeros():
    rng = np.random.default_rng(0)
    P = rng.random((3, 3))
    P = (P + P.T) / (P + P.T).sum()
    pp = np.ones((3, 3))
    pm = np.ones((3, 3))
    pm[0, 1] = pm[1, 0] = 0.0  # a pair with no negative weight: allowed
    assert np.isfinite(th.weight_matrix(P, pp, pm)).all()
    assert np.isfinite(th.weight_matrix(P, 0.0, pm)).all()  # a scalar zero reweighting too
    W = rng.standard_normal((3, 1))
    G0 = np.ones((3, 3))
    G0[0, 0] = 0.0
    assert th.weighted_factorisation_loss(W, np.eye(3), G0) >= 0  # zero weights are allowed
    assert th.weighted_factorisation_loss(W, np.eye(3)) == pytest.approx(
        0.25 * np.sum((W @ W.T - np.eye(3)) ** 2)
    )
    with pytest.raises(ValueError, match="non-negative weights, got -1.0"):
        th.weighted_factorisation_loss(W, np.eye(3), -G0)


def test_theorem_1_minimiser_at_its_tolerance_and_scale():
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]

    def sym(ev):
        return (Q * np.asarray(ev)) @ Q.T

    M = sym([0.5, 0.2, -0.1, -0.3])  # eigenvalues below 1: no floor at 1 in the square root
    W = th.optimal_embeddings(M, 2)
    np.testing.assert_allclose(W @ W.T, th.psd_truncation(M, 2), atol=1e-12)
    # the tolerance on a negative d-th eigenvalue is 1e-12 times the largest |eigenvalue|
    th.optimal_embeddings(sym([100.0, -5e-11, -1.0, -2.0]), 2)  # 5e-11 < 1e-10: round-off, accepted
    with pytest.raises(ValueError, match="M has 1 positive eigenvalues"):
        th.optimal_embeddings(sym([100.0, -5e-9, -1.0, -2.0]), 2)
    with pytest.raises(ValueError, match="not all non-negative"):
        th.optimal_embeddings(sym([1e-6, -1e-15, -1e-6, -2e-6]), 2)  # 1e-15 > 1e-18 at this scale
    with pytest.raises(ValueError, match="^M must be symmetric"):
        th.optimal_embeddings(M + np.triu(np.ones((4, 4)), 1) * 1e-3, 2)


def test_probability_and_reweighting_checks_name_their_argument():
    rng = np.random.default_rng(0)
    P = rng.random((3, 3))
    P = (P + P.T) / (P + P.T).sum()
    one = np.ones((3, 3))
    bad = P.copy()
    bad[0, 1] += 1e-3
    bad /= bad.sum()
    with pytest.raises(ValueError, match="^P_joint must be symmetric"):
        th.target_matrix(bad, one, one)
    asym = one.copy()
    asym[0, 1] = 2.0
    with pytest.raises(ValueError, match="^psi_plus must be symmetric"):
        th.target_matrix(P, asym, one)
    th.target_matrix(P, one, one, np.array([0.5, 0.5, 0.0]))  # a zero marginal is allowed
    for marg in (np.array([0.6, 0.6, -0.2]), np.array([0.5, np.nan, 0.5])):
        with pytest.raises(ValueError, match="P_marginal"):
            th.target_matrix(P, one, one, marg)
    tiny = 1e-10 * (P + P.T)
    tiny[0, 1] += (
        1e-17  # relative asymmetry 1e-7 at scale 1e-10: refused (a floor of 1 on the scale would pass it)
    )
    with pytest.raises(ValueError, match="^M must be symmetric"):
        th.psd_truncation(tiny, 1)
    tiny[0, 1] -= 1e-17 - 1e-21  # relative 1e-11: round-off, accepted
    th.psd_truncation(tiny, 1)


def test_small_edges_of_the_series_and_sigmoid_helpers():
    import sympy as sp

    assert th.aligned_sigmoid(np.array([]), 1.0, np.array([])).shape == (0,)
    assert th.aligned_sigmoid(1.0, 0.5, -1000.0) == 0.0  # the far past: 0, not NaN
    assert th.pmi_from_mstar(np.array([])).shape == (0,)
    assert th.mstar_series_remainder_bound(np.array([])).shape == (0,)
    np.testing.assert_allclose(
        th.mstar_series_remainder_bound(1.0, 4), th.mstar_series_remainder_bound(1.0, 3)
    )
    x = sp.Symbol("x")
    assert sp.simplify(th.logistic_loss_taylor() - th.logistic_loss_taylor(order=4)) == 0
    assert sp.simplify(th.logistic_loss_taylor(order=0) - sp.log(2)) == 0
    p5 = sp.Poly(th.logistic_loss_taylor(order=5), x)
    assert p5.degree() <= 5


# --- edges found by mutation testing (issue 45) ------------------------------------------------
def test_synthetic_joint_follows_its_documented_law():
    """``P ∝ p pᵀ exp(S + E)``, checked piece by piece with the other pieces switched off."""
    rng = np.random.default_rng(3)
    # rank 0, no noise: P = p pᵀ with the Zipf marginal p_i ∝ i^(−zipf)
    p = np.arange(1, 7, dtype=float) ** -1.5
    p /= p.sum()
    P = th.synthetic_joint(6, rng, rank=0, noise=0.0, zipf=1.5)
    np.testing.assert_allclose(P, np.outer(p, p), rtol=1e-13)
    # full rank, no noise, uniform marginal: log P + c = S = V U diag(a) Uᵀ, whose eigenvalues are V·a_k
    V, s, dec = 5, 0.3, 0.5
    L = np.log(th.synthetic_joint(V, rng, rank=V, strength=s, noise=0.0, zipf=0.0, decay=dec))
    a = s * dec ** np.arange(V)
    c = (V * a.sum() - np.trace(L)) / V  # tr S = V Σa fixes the constant
    np.testing.assert_allclose(np.linalg.eigvalsh(L + c)[::-1], V * a, rtol=1e-10, atol=1e-12)
    # rank 0, noise only: log P = E − const with E = noise·(G + Gᵀ)/√2, G standard normal:
    # off-diagonal entries have standard deviation `noise`, the diagonal √2·noise
    V, noise = 400, 0.2
    L = np.log(th.synthetic_joint(V, np.random.default_rng(4), rank=0, noise=noise, zipf=0.0))
    off = L[np.triu_indices(V, 1)]
    diag = np.diag(L)
    # standard errors of a sample std: σ/√(2n) — 0.0005 off the diagonal, 0.01 on it
    assert abs(off.std() - noise) < 5 * noise / np.sqrt(2 * off.size)
    assert abs(diag.std() - np.sqrt(2) * noise) < 5 * np.sqrt(2) * noise / np.sqrt(2 * V)


def test_synthetic_joint_defaults_and_rank_range():
    a = th.synthetic_joint(12, np.random.default_rng(0))
    b = th.synthetic_joint(
        12, np.random.default_rng(0), rank=4, strength=1.0, noise=0.2, zipf=1.0, decay=0.8
    )
    np.testing.assert_array_equal(a, b)  # the documented defaults
    assert th.synthetic_joint(3, np.random.default_rng(0), rank=0).shape == (3, 3)
    assert th.synthetic_joint(3, np.random.default_rng(0), rank=3).shape == (3, 3)
    with pytest.raises(ValueError, match="rank"):
        th.synthetic_joint(3, np.random.default_rng(0), rank=4)


def test_symmetry_check_is_relative_at_its_edge():
    # max|M| = 1 and |M − Mᵀ| = 1e-10 = tol·scale exactly: accepted (the check is strict)
    th.optimal_embeddings(np.array([[1.0, 1e-10], [0.0, 1.0]]), 1)
    # the tolerance scales with max|M|: relative asymmetry 5e-11 at scale 4 passes ...
    th.optimal_embeddings(np.array([[4.0, 2e-10], [0.0, 4.0]]), 1)
    # ... and a relative 1e-8 at scale 1e-6 fails (no absolute floor of 1 on the scale)
    with pytest.raises(ValueError, match=r"M must be symmetric.*relative 1e-08"):
        th.optimal_embeddings(1e-6 * np.array([[1.0, 1e-8], [0.0, 1.0]]), 1)
    with pytest.raises(ValueError, match=r"relative 1e-08"):
        th.optimal_embeddings(100 * np.array([[1.0, 1e-8], [0.0, 1.0]]), 1)


def test_input_checks_name_the_input_and_accept_their_edges():
    P = P2
    asym = np.array([[0.3, 0.1 + 1e-6], [0.1, 0.5 - 1e-6]])
    with pytest.raises(ValueError, match="P_joint must be symmetric"):
        q.target_matrix(asym, 1.0, 1.0)
    # a marginal with a negative entry is refused even when it sums to 1; a zero entry is allowed
    with pytest.raises(ValueError, match="non-negative"):
        q.target_matrix(P, 1.0, 1.0, P_marginal=[1.5, -0.5])
    assert np.isfinite(q.weight_matrix(P, 1.0, 1.0, P_marginal=[1.0, 0.0])).all()
    # Ψ: zero and fractional scalars are valid; negative or infinite ones are named
    np.testing.assert_allclose(q.weight_matrix(P, 1.0, 0.0), P)
    np.testing.assert_allclose(q.weight_matrix(P, 0.5, 0.0), 0.5 * P)
    with pytest.raises(ValueError, match="psi_plus must be a finite non-negative scalar"):
        q.weight_matrix(P, np.inf, 1.0)
    with pytest.raises(ValueError, match="psi_minus must be finite and non-negative"):
        q.weight_matrix(P, 1.0, np.full((2, 2), np.inf))
    with pytest.raises(ValueError, match="psi_minus must be finite and non-negative"):
        q.weight_matrix(P, 1.0, np.array([[1.0, -0.5], [-0.5, 1.0]]))
    np.testing.assert_allclose(
        q.weight_matrix(P, np.zeros((2, 2)), 1.0), np.outer([0.4, 0.6], [0.4, 0.6])
    )
    with pytest.raises(ValueError, match="psi_plus must be symmetric"):
        q.weight_matrix(P, np.array([[1.0, 2.0], [1.0, 1.0]]), 1.0)


def test_a_given_marginal_enters_every_function_as_psi_minus_times_p_p():
    """The negative term depends on Ψ⁻ and the marginal only through Ψ⁻∘ppᵀ: a marginal p different from
    the row sums r of P is the same as Ψ⁻' = Ψ⁻∘ppᵀ/(rrᵀ) with the row sums."""
    P, rng = rand_problem(V=5, seed=2)
    r = P.sum(axis=1)
    p = rng.dirichlet(np.ones(5))
    psi_m = rand_sym_psi(5, rng)
    psi_m2 = psi_m * np.outer(p, p) / np.outer(r, r)
    W = rng.normal(size=(5, 2))
    a, b = (P, 1.3, psi_m), (P, 1.3, psi_m2)
    np.testing.assert_allclose(q.weight_matrix(*a, P_marginal=p), q.weight_matrix(*b), rtol=1e-12)
    np.testing.assert_allclose(th.qwem_loss(W, *a, P_marginal=p), th.qwem_loss(W, *b), rtol=1e-12)
    np.testing.assert_allclose(
        th.qwem_gradient(W, *a, P_marginal=p), th.qwem_gradient(W, *b), rtol=1e-12
    )
    np.testing.assert_allclose(
        th.qwem_hessian(W, *a, P_marginal=p), th.qwem_hessian(W, *b), rtol=1e-10, atol=1e-14
    )
    np.testing.assert_allclose(
        th.qwem_loss_constant(*a, P_marginal=p), th.qwem_loss_constant(*b), rtol=1e-12
    )
    ga = th.gradient_descent_qwem(*a, 2, P_marginal=p, max_steps=50, init_scale=0.1)
    gb = th.gradient_descent_qwem(*b, 2, max_steps=50, init_scale=0.1)
    assert ga.lr == pytest.approx(gb.lr, rel=1e-12)
    np.testing.assert_allclose(ga.W, gb.W, rtol=1e-10)


def test_gradient_descent_default_step_and_tracked_values():
    P, _ = rand_problem(V=6, seed=5, strength=0.05, noise=0.05)
    psi = q.equal_reweighting(P)  # G = 1
    lam = np.abs(np.linalg.eigvalsh(q.target_matrix(P, psi, psi))).max()
    assert lam < 1  # so the documented floor max(|λ|, 1) = 1 applies
    G = q.weight_matrix(P, psi, psi)
    r = th.gradient_descent_qwem(P, psi, psi, 1, max_steps=20, record_every=5, track=lambda W: 1.5)
    assert r.lr == pytest.approx(0.25 / G.max(), rel=1e-12)
    # a track returning a plain number (not a tensor) is stacked as it is
    np.testing.assert_array_equal(r.tracked, np.full(len(r.steps), 1.5))


def test_optimal_embeddings_tolerance_on_the_top_eigenvalues():
    # a negative eigenvalue within 1e-12·max|λ| of 0 counts as 0 (clipped, no NaN) ...
    W = th.optimal_embeddings(np.diag([1e6, -1e-9]), 2)
    np.testing.assert_array_equal(W[:, 1], 0.0)
    assert np.isfinite(W).all()
    W = th.optimal_embeddings(np.diag([1.0, -1e-12]), 2)  # exactly at −tol
    assert np.isfinite(W).all()
    th.optimal_embeddings(np.diag([1.0, 0.0]), 2)
    # ... relative to the matrix's own scale, with no floor of 1
    with pytest.raises(ValueError, match=r"λ_2 = -1e-25"):
        th.optimal_embeddings(np.diag([1e-20, -1e-25]), 2)
    # the message counts the eigenvalues above the tolerance (1e-12 itself is not above)
    with pytest.raises(ValueError, match=r"λ_3 = -0\.5; M has 1 positive eigenvalues"):
        th.optimal_embeddings(np.diag([1.0, 1e-12, -0.5]), 3)
    with pytest.raises(ValueError, match="M must be symmetric"):
        th.optimal_embeddings(np.array([[1.0, 0.5], [0.0, 1.0]]), 1)
    # eigenvalues below 1 are kept as they are: W Wᵀ = M for a PSD M of rank d
    M = np.diag([0.25, 0.09])
    W = th.optimal_embeddings(M, 2)
    np.testing.assert_allclose(W @ W.T, M, atol=1e-15)


def test_weighted_factorisation_loss_weights():
    M = np.array([[1.0, 0.5], [0.5, 2.0]])
    W = np.array([[1.0], [0.0]])
    R2 = (W @ W.T - M) ** 2
    assert th.weighted_factorisation_loss(W, M) == pytest.approx(0.25 * R2.sum())  # default G = 1
    G = np.array([[0.0, 1.0], [1.0, 0.0]])  # zero weights are valid
    assert th.weighted_factorisation_loss(W, M, G) == pytest.approx(0.25 * (G * R2).sum())
    with pytest.raises(ValueError, match=r"non-negative weights, got -1\.0"):
        th.weighted_factorisation_loss(W, M, np.array([[0.5, -1.0], [-1.0, 0.5]]))
    with pytest.raises(ValueError, match=r"got -2\.0"):
        th.weighted_factorisation_loss(W, M, np.array([[1.0, 1.0], [1.0, -2.0]]))


def test_rank_one_weighted_minimizer_refuses_a_zero_weight():
    with pytest.raises(ValueError, match="strictly positive"):
        th.rank_one_weighted_minimizer(np.eye(2), [1.0, 0.0], 1)


def test_procrustes_needs_matrices():
    with pytest.raises(ValueError, match="A must be 2-D"):
        th.procrustes_rotation(np.ones(3), np.ones((3, 1)))
    with pytest.raises(ValueError, match="B must be 2-D"):
        th.procrustes_rotation(np.ones((3, 1)), np.ones(3))


def test_series_helpers_edges():
    empty = np.array([])
    assert th.pmi_from_mstar(empty).shape == (0,)
    assert th.mstar_series_remainder_bound(empty).shape == (0,)
    assert th.aligned_sigmoid(empty, 1.0, 1.0).shape == (0,)
    assert th.aligned_sigmoid(1.0, empty, 1.0).shape == (0,)
    assert th.aligned_sigmoid(1.0, 1.0, empty).shape == (0,)
    # far back in time (λt → −∞) the sigmoid has decayed to 0, where both terms overflow
    assert th.aligned_sigmoid(1.0, 0.5, -1000.0) == 0.0
    with pytest.raises(ValueError, match=r"e\.g\. 3\.0"):
        th.pmi_from_mstar(np.array([2.0, 3.0]))
    # the series of 2 artanh(x/2) has only odd powers: an even order bounds like the odd order below
    x = np.array([0.5, 1.5])
    np.testing.assert_array_equal(
        th.mstar_series_remainder_bound(x, 4), th.mstar_series_remainder_bound(x, 3)
    )
    # the sympy series stop at the order asked for
    assert max(th.pmi_series_coefficients(8)) == 7
    assert th.pmi_series_coefficients(1) == {1: 1}
    import sympy as sp

    assert sp.Poly(th.logistic_loss_taylor(order=5), sp.symbols("x")).degree() <= 5
    assert th.logistic_loss_taylor(order=0) == sp.log(2)


def test_target_matrix_names_where_g_vanishes_and_pmi_ends_are_silent():
    P = np.array([[0.5, 0.25], [0.25, 0.0]])  # with Ψ⁻ = 0, G = P vanishes at (1, 1) only
    with pytest.raises(ValueError, match=r"is 0 at \(1, 1\)"):
        q.target_matrix(P, 1.0, 0.0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the ends ±2 map to ±∞ without a division warning
        assert th.pmi_from_mstar(2.0) == np.inf and th.pmi_from_mstar(-2.0) == -np.inf


def test_gradient_descent_reports_false_when_it_stops_unconverged():
    P, _ = rand_problem(V=5, seed=1)
    psi = q.equal_reweighting(P)
    r = th.gradient_descent_qwem(P, psi, psi, 2, max_steps=1)
    assert r.converged is False and r.steps.tolist() == [0, 1]
