"""Unit tests for qwem_lib.fc_theory: the constants of the Feature Collapse theorems."""

import math

import numpy as np
import pytest

import qwem_lib
from qwem_lib.fc.theory import (
    ExactRisk,
    H,
    H_star,
    all_latents,
    collapse_risk_latents,
    collapse_weights,
    dH,
    equiangular,
    hamming_counts,
    layernorm,
    minimise_exact,
    thm1_eta,
    thm1_norms,
    thm1_tau,
    thm2_lambda_bound,
    thm2_residuals,
    thm2_solve,
    thm3_tau,
    thm3_u_norm,
    type3_weights,
    zero_threshold,
)


def test_theory_names_live_in_their_module_not_the_top_namespace():
    """Issue 40: FC's theory is read as ``qwem_lib.fc.theory.<name>`` (the chapters import it so); the top
    namespace that QWEM chapters use as ``q.<name>`` does not carry it."""
    import qwem_lib.fc.theory as fct

    for name in (
        "thm1_tau",
        "thm1_norms",
        "thm3_tau",
        "thm3_u_norm",
        "thm2_solve",
        "H",
        "H_star",
    ):
        assert hasattr(fct, name), name
        assert not hasattr(qwem_lib, name), name


# -- the paper's numbers ----------------------------------------------------------------------
def test_paper_norm_k1000():
    w, _ = thm1_norms(3, 1200, 15, 1000, 1e-3)
    assert round(w, 5) == 1.42214


def test_paper_norm_k50():
    w, _ = thm1_norms(3, 1200, 15, 50, 1e-3)
    assert round(w, 5) == 0.61602


# -- Theorem 1 ------------------------------------------------------------------------------
def test_tau_is_stationary_and_minimal():
    args = (3, 1200, 15, 1000, 1e-3)
    tau = thm1_tau(*args)
    assert abs(dH(tau, *args)) < 1e-12
    ts = tau * np.array([0.9, 0.99, 1.01, 1.1])
    assert np.all(H(ts, *args) > H(tau, *args))


def test_norms_relation():
    tau = thm1_tau(3, 12, 4, 81, 0.01)
    w, u = thm1_norms(3, 12, 4, 81, 0.01)
    assert math.isclose(w, math.sqrt(tau / 12)) and math.isclose(u, math.sqrt(tau / (81 * 4)))


def test_H_limits():
    # t = 0: every logit is 0. With all latents (K = nc^L) the risk is log K; for K < nc^L the
    # symmetry assumption counts K - K/nc^L competing classes instead of K - 1
    assert math.isclose(float(H(0.0, 3, 12, 4, 81, 0.1)), math.log(81), rel_tol=1e-14)
    assert math.isclose(float(H(0.0, 3, 12, 4, 50, 0.1)), math.log(1 + 50 - 50 / 81), rel_tol=1e-14)
    # t -> infinity: data term -> 0, H ~ lam t
    assert math.isclose(float(H(1e9, 3, 12, 4, 50, 0.1)), 1e8, rel_tol=1e-12)
    # all latents (K = nc^L): H = L log(1 + (nc-1) e^{-eta t}) + lam t
    t, nc, nw, L = 7.0, 3, 6, 3
    K = nc**L
    eta = nc / (nc - 1) / math.sqrt(nw * K * L)
    assert math.isclose(
        float(H(t, nc, nw, L, K, 0.01)),
        L * math.log1p((nc - 1) * math.exp(-eta * t)) + 0.01 * t,
        rel_tol=1e-13,
    )


def test_tau_zero_above_threshold():
    # H'(0) = lam - eta K L (nc-1)/nc / (1 + K - K/nc^L): tau = 0 exactly when this is >= 0
    nc, nw, L, K = 3, 1200, 15, 1000
    lam0 = thm1_eta(nc, nw, L, K) * K * L * (nc - 1) / nc / (1 + K - K / nc**L)
    assert thm1_tau(nc, nw, L, K, 1.01 * lam0) == 0.0
    assert thm1_tau(nc, nw, L, K, 0.99 * lam0) > 0.0


def test_tau_decreases_with_lambda():
    taus = [thm1_tau(3, 1200, 15, 1000, lam) for lam in (1e-4, 1e-3, 2e-3)]
    assert taus[0] > taus[1] > taus[2] > 0


# -- Theorem 3 ------------------------------------------------------------------------------
def test_thm3_stationary():
    tau = thm3_tau(3, 15, 1000, 100, 1e-3)
    h = 1e-4 * tau
    H = lambda t: float(H_star(t, 3, 15, 1000, 100, 1e-3))  # noqa: E731
    assert H(tau) < H(tau - h) and H(tau) < H(tau + h)
    assert math.isclose(thm3_u_norm(3, 15, 1000, 100, 1e-3), tau / math.sqrt(15000))


# -- Theorem 2 ------------------------------------------------------------------------------
def test_thm2_solution_solves_system_and_is_monotone():
    mu = 1 / np.arange(1, 9)
    mu /= mu.sum()
    c, r = thm2_solve(mu, 3, 4, 0.01)
    assert np.max(np.abs(thm2_residuals(c, r, mu, 3, 4, 0.01))) < 1e-10
    assert np.all(np.diff(r) < 0) and c > 0


def test_thm2_uniform_matches_thm1():
    # uniform mu, K = nc^L: the type-III critical point is the type-I collapse of Theorem 1
    nc, sc, L, lam = 3, 4, 3, 0.01
    c, r = thm2_solve(np.full(sc, 1 / sc), nc, L, lam)
    w, u = thm1_norms(nc, nc * sc, L, nc**L, lam)
    assert np.allclose(r, w, rtol=1e-9) and math.isclose(c, u, rel_tol=1e-9)


def test_thm2_bound_raises():
    mu = np.full(4, 0.25)
    b = thm2_lambda_bound(mu, 3, 3)
    assert math.isclose(b, math.sqrt(3 * 0.25 / 3**4))
    with pytest.raises(ValueError, match="bound"):
        thm2_solve(mu, 3, 3, 1.0001 * b)
    thm2_solve(mu, 3, 3, 0.5 * b)


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: thm1_tau(3, 1201, 15, 1000, 1e-3),  # nw not divisible by nc
        lambda: thm1_tau(3, 1200, 15, 1000, 0.0),  # lam = 0
        lambda: thm1_tau(3, 1200, 15, 1000, -1.0),  # lam < 0
        lambda: thm1_tau(1, 1200, 15, 1000, 1e-3),  # one concept
        lambda: thm1_tau(3, 12, 2, 10, 1e-3),  # K > nc^L
        lambda: thm3_tau(3, 15, 1000, 1, 1e-3),  # d too small
        lambda: thm2_solve([0.5, 0.4], 3, 3, 1e-3),  # mu does not sum to 1
        lambda: thm2_solve([1.2, -0.2], 3, 3, 1e-3),  # negative frequency
        lambda: thm2_solve([0.5, 0.5], 3, 3, float("nan")),
    ],
)
def test_bad_input(call):
    with pytest.raises(ValueError):
        call()


# -- geometry and the exact risk ---------------------------------------------------------------
def test_equiangular():
    for mz in (False, True):
        F = equiangular(4, 7, mean_zero=mz, rng=np.random.default_rng(0))
        G = F.T @ F
        assert np.allclose(G, 4 / 3 * np.eye(4) - 1 / 3, atol=1e-12)
        assert np.allclose(F.sum(1), 0, atol=1e-12)
        if mz:
            assert np.allclose(F.sum(0), 0, atol=1e-12)


def test_hamming_counts_all_latents():
    z = all_latents(3, 4)
    counts = hamming_counts(z)
    expect = [math.comb(4, r) * 2**r for r in range(5)]
    assert np.all(counts == np.array(expect))


def test_exact_risk_equals_H_at_collapse():
    nc, sc, L, lam, d = 3, 2, 3, 0.01, 5
    z = all_latents(nc, L)
    K, nw = len(z), nc * sc
    R = ExactRisk(z, np.full(sc, 1 / sc), lam, nc=nc)
    F = equiangular(nc, d, rng=np.random.default_rng(1))
    for t in (0.5, 20.0):
        W, U = collapse_weights(
            F, z, sc, word_norm=math.sqrt(t / nw), u_norm=math.sqrt(t / (K * L))
        )
        assert math.isclose(float(R(W, U)), float(H(t, nc, nw, L, K, lam)), rel_tol=1e-12)
        assert math.isclose(
            float(collapse_risk_latents(z, t, nc=nc, nw=nw, lam=lam)[0]),
            float(H(t, nc, nw, L, K, lam)),
            rel_tol=1e-12,
        )


def test_exact_risk_layernorm_equals_H_star():
    nc, sc, L, lam, d = 3, 2, 2, 0.01, 5
    z = all_latents(nc, L)
    K = len(z)
    R = ExactRisk(z, np.array([0.8, 0.2]), lam, layernorm=True, nc=nc)
    F = equiangular(nc, d, mean_zero=True, rng=np.random.default_rng(2))
    t = 4.0
    W, U = collapse_weights(
        F, z, sc, word_norm=math.sqrt(d), u_norm=t / math.sqrt(K * L), layernorm=True
    )
    assert np.allclose(layernorm(W), W)
    assert math.isclose(float(R(W, U)), float(H_star(t, nc, L, K, d, lam)), rel_tol=1e-12)


def test_exact_risk_known_value_at_zero():
    z = all_latents(2, 2)
    R = ExactRisk(z, np.array([0.5, 0.5]), 0.1, nc=2)
    assert math.isclose(float(R(np.zeros((4, 3)), np.zeros((4, 2, 3)))), math.log(4), rel_tol=1e-14)


def test_exact_risk_rejects_repeated_latents():
    with pytest.raises(ValueError, match="distinct"):
        ExactRisk(np.array([[0, 1], [0, 1]]), np.array([1.0]), 0.1, nc=2)


def test_type3_critical_point_is_critical():
    import torch

    nc, L, lam = 2, 3, 0.02
    mu = np.array([0.6, 0.3, 0.1])
    c, r = thm2_solve(mu, nc, L, lam)
    z = all_latents(nc, L)
    R = ExactRisk(z, mu, lam, nc=nc)
    W, U = type3_weights(equiangular(nc, 4), z, r, c)
    Wt = torch.tensor(W, requires_grad=True)
    Ut = torch.tensor(U, requires_grad=True)
    R(Wt, Ut).backward()
    gn = math.sqrt(float((Wt.grad**2).sum() + (Ut.grad**2).sum()))
    assert gn < 1e-12


def test_minimiser_reaches_theorem1():
    nc, sc, L, lam, d = 2, 2, 3, 0.02, 6
    z = all_latents(nc, L)
    R = ExactRisk(z, np.full(sc, 1 / sc), lam, nc=nc)
    out = minimise_exact(R, d, seed=0)
    w, u = thm1_norms(nc, nc * sc, L, len(z), lam)
    assert np.allclose(np.linalg.norm(out["W"], axis=1), w, rtol=1e-6)
    assert np.allclose(np.linalg.norm(out["U"], axis=2), u, rtol=1e-6)


def test_zero_threshold_equals_thm2_bound_for_all_latents():
    mu = np.array([0.5, 0.3, 0.2])
    assert math.isclose(
        zero_threshold(all_latents(3, 3), mu, nc=3),
        thm2_lambda_bound(mu, 3, 3),
        rel_tol=1e-12,
    )


def test_zero_threshold_is_sharp_for_exact_risk():
    # just above the threshold the exact minimiser is 0, just below it is not
    nc, L = 2, 2
    mu = np.array([0.75, 0.25])
    z = all_latents(nc, L)
    lam0 = zero_threshold(z, mu, nc=nc)
    norms = []
    for lam in (1.2 * lam0, 0.8 * lam0):
        out = minimise_exact(ExactRisk(z, mu, lam, nc=nc), 4, seed=1)
        norms.append(np.linalg.norm(out["W"]))
    assert norms[0] < 1e-4 and norms[1] > 1e-2


def test_thm2_solve_refuses_a_lambda_beyond_float64():
    import pytest

    from qwem_lib.fc import theory as fc_theory

    mu = [0.5, 0.3, 0.2]
    with pytest.raises(
        ValueError, match="too small"
    ):  # L mu / (lam nc) overflows (issue 27: 1e-200
        fc_theory.thm2_solve(mu, 3, 3, 5e-324)  # solves, see test_thm2_solve_at_tiny_weight_decay)


def test_nc_is_explicit_and_checked():
    """nc is never inferred from the latents: an unused concept used to change it silently."""
    z = all_latents(2, 2)  # concepts 0 and 1 only
    mu = np.array([0.5, 0.5])
    with pytest.raises(TypeError, match="nc="):
        ExactRisk(z, mu, 0.1)
    with pytest.raises(TypeError, match="nc="):
        zero_threshold(z, mu, nc=None)
    # with nc = 3 (concept 2 unused) the risk differs from nc = 2: the third concept's words exist
    assert ExactRisk(z, mu, 0.1, nc=3).nw == 6 and ExactRisk(z, mu, 0.1, nc=2).nw == 4
    with pytest.raises(ValueError, match="0..1"):
        ExactRisk(z + 1, mu, 0.1, nc=2)  # a concept id beyond nc
    with pytest.raises(ValueError, match="divisible"):
        collapse_risk_latents(z, 1.0, nc=2, nw=5, lam=0.1)
    with pytest.raises(ValueError, match="whole numbers"):
        zero_threshold(z + 0.5, mu, nc=3)


# -- inputs, caches and faults ------------------------------------------------------------------


def _thm2_independent(mu, nc, L, lam, dps=40):
    """Theorem 2's system solved for (c, r) directly in r (not through rho = r / c), in mpmath."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = dps
    lam, k = mp.mpf(lam), mp.mpf(nc) / (nc - 1)

    def r_of(c):  # (7): lam r / (L c) (nc - 1 + exp(k c r)) = mu_b, increasing in r
        out = []
        for m in mu:
            f = lambda r, m=m: (  # noqa: E731
                mp.log(lam * r / (L * c)) + mp.log(nc - 1 + mp.exp(k * c * r)) - mp.log(m)
            )
            hi = mp.mpf(1)
            while f(hi) < 0:
                hi *= 2
            out.append(mp.findroot(f, (mp.mpf("1e-30"), hi), solver="anderson"))
        return out

    def g(c):  # (8)
        return mp.log(sum((x / c) ** 2 for x in r_of(c)) / (L * nc ** (L - 1)))

    hi = mp.mpf(1)
    while g(hi) > 0:
        hi *= 2
    c = mp.findroot(g, (mp.mpf("0.01"), hi), solver="anderson")
    return float(c), np.array([float(x) for x in r_of(c)])


@pytest.mark.parametrize("lam", [1e-2, 1e-20, 1e-58, 1e-62, 1e-300])
def test_thm2_solve_at_tiny_weight_decay(lam):
    """At lam = 1e-58 the old bisection left a 6% residual; at lam <= 1e-62 it gave up. The issue's
    independent solve: c = 8.18 at 1e-62 and 18.03 at 1e-300 (mu = 0.5, 0.3, 0.2; nc = 3; L = 2)."""
    mu, nc, L = [0.5, 0.3, 0.2], 3, 2
    c, r = thm2_solve(mu, nc, L, lam)
    assert np.max(np.abs(thm2_residuals(c, r, mu, nc, L, lam))) < 1e-11
    ci, ri = _thm2_independent(mu, nc, L, lam)
    assert math.isclose(c, ci, rel_tol=1e-10) and np.allclose(r, ri, rtol=1e-10)
    if lam == 1e-62:
        assert round(c, 2) == 8.18
    if lam == 1e-300:
        assert round(c, 2) == 18.03


def test_zero_threshold_ignores_a_position_every_latent_shares():
    """A position with the same concept in every latent carries no information: the gradient at 0 has no
    component there, so the threshold is that of the other positions (centred concept matrix)."""
    rng = np.random.default_rng(0)
    mu = np.array([0.6, 0.4])
    z = rng.integers(0, 3, size=(7, 2))
    for const in (0, 2):
        z2 = np.concatenate([z, np.full((7, 1), const)], axis=1)
        assert math.isclose(
            zero_threshold(z2, mu, nc=3), zero_threshold(z, mu, nc=3), rel_tol=1e-12
        )
    zall = all_latents(3, 2)
    assert zero_threshold(np.concatenate([zall, zall[:1]]), mu, nc=3) > 0


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def _risk_and_grad_norm(risk, W, U):
    """The risk and the Euclidean norm of its full gradient at (W, U), by torch autograd afresh."""
    import torch

    Wt = torch.as_tensor(W, dtype=torch.float64).requires_grad_(True)
    Ut = torch.as_tensor(U, dtype=torch.float64).requires_grad_(True)
    f = risk(Wt, Ut)
    gW, gU = torch.autograd.grad(f, (Wt, Ut))
    return float(f), math.sqrt(float((gW**2).sum()) + float((gU**2).sum()))


def test_minimise_exact_reports_its_own_minimum_truthfully(monkeypatch):
    """The returned risk and gradient norm are those of the returned weights (recomputed here), the
    start is seeded (same seed, same answer; another seed, another start), and ``evals`` counts the
    risk evaluations of the L-BFGS phases."""
    z = all_latents(2, 3)
    risk = ExactRisk(z, [0.6, 0.4], 0.01, nc=2)
    calls = {"n": 0}
    original = ExactRisk.__call__

    def counted(self, W, U):
        calls["n"] += 1
        return original(self, W, U)

    monkeypatch.setattr(ExactRisk, "__call__", counted)
    out = minimise_exact(risk, 3, seed=4, max_iter=60, polish_iter=20)
    n_calls = calls["n"]
    assert set(out) == {"risk", "grad_norm", "W", "U", "evals"}
    assert out["W"].shape == (4, 3) and out["U"].shape == (8, 3, 3)
    f, gn = _risk_and_grad_norm(risk, out["W"], out["U"])
    assert out["risk"] == pytest.approx(f, rel=1e-14)
    assert out["grad_norm"] == pytest.approx(gn, rel=1e-10)
    assert out["grad_norm"] > 0  # a W-only or U-only norm, or a difference of the two, would differ
    # the evaluations outside the two L-BFGS phases: a gradient after each phase, and one at the end
    assert out["evals"] == n_calls - 3
    again = minimise_exact(risk, 3, seed=4, max_iter=60, polish_iter=20)
    np.testing.assert_array_equal(again["W"], out["W"])
    other = minimise_exact(risk, 3, seed=5, max_iter=1, polish_iter=0)
    start = minimise_exact(risk, 3, seed=4, max_iter=1, polish_iter=0)
    assert not np.allclose(other["W"], start["W"])


def test_minimise_exact_starts_at_init_scale_times_a_seeded_normal():
    """With no iteration the answer is the start: init_scale · N(0, 1) from torch's generator seeded with
    ``seed``, W drawn first, then U."""
    import torch

    risk = ExactRisk(all_latents(2, 2), [0.5, 0.5], 0.1, nc=2)
    out = minimise_exact(risk, 2, seed=3, init_scale=0.25, max_iter=1, polish_iter=0, tol=1e300)
    g = torch.Generator().manual_seed(3)
    W0 = 0.25 * torch.randn(4, 2, generator=g, dtype=torch.float64)
    U0 = 0.25 * torch.randn(4, 2, 2, generator=g, dtype=torch.float64)
    np.testing.assert_array_equal(out["W"], W0.numpy())
    np.testing.assert_array_equal(out["U"], U0.numpy())


def test_minimise_exact_polish_keeps_only_an_improvement(monkeypatch):
    """The polish's steps are kept only if they lower the gradient without raising the risk: a polish
    that makes things worse (here: its optimiser replaced by one that scales the weights up) is undone."""
    import torch

    risk = ExactRisk(all_latents(2, 2), [0.5, 0.5], 0.05, nc=2)
    plain = minimise_exact(risk, 2, seed=1, max_iter=5, polish_iter=0)
    real = torch.optim.LBFGS

    class Worse(real):
        def step(self, closure):
            if self.defaults["line_search_fn"] is None:  # the polish
                with torch.no_grad():
                    for p in self.param_groups[0]["params"]:
                        p.mul_(3.0)
                return closure()
            return super().step(closure)

    monkeypatch.setattr(torch.optim, "LBFGS", Worse)  # fc.theory imports torch where it uses it
    undone = minimise_exact(risk, 2, seed=1, max_iter=5, polish_iter=10)
    np.testing.assert_array_equal(undone["W"], plain["W"])
    np.testing.assert_array_equal(undone["U"], plain["U"])


def test_equiangular_gram_matrix_and_its_options():
    for nc, d in ((2, 2), (3, 2), (4, 3), (5, 7)):
        F = equiangular(nc, d)  # default: not mean-zero, so d = nc - 1 is enough
        G = np.full((nc, nc), -1.0 / (nc - 1)) + np.eye(nc) * (1 + 1.0 / (nc - 1))
        np.testing.assert_allclose(F.T @ F, G, atol=1e-12)
        np.testing.assert_allclose(F.sum(1), 0.0, atol=1e-12)  # F 1 = 0
    Fz = equiangular(3, 3, mean_zero=True)
    np.testing.assert_allclose(Fz.sum(0), 0.0, atol=1e-12)  # every column orthogonal to 1_d
    np.testing.assert_allclose(Fz.T @ Fz, equiangular(3, 2).T @ equiangular(3, 2), atol=1e-12)
    assert np.abs(equiangular(3, 3).sum(0)).max() > 1e-3  # without mean_zero the columns are not
    Fr = equiangular(3, 4, rng=np.random.default_rng(0))
    np.testing.assert_allclose(
        Fr.T @ Fr, G[:3, :3] if False else equiangular(3, 4).T @ equiangular(3, 4), atol=1e-12
    )
    assert not np.allclose(Fr, equiangular(3, 4))  # a random rotation
    with pytest.raises(ValueError, match=r"d=2 is too small for 3 mean-zero equiangular"):
        equiangular(3, 2, mean_zero=True)
    with pytest.raises(ValueError, match=r"d=2 is too small for 4 equiangular"):
        equiangular(4, 2)
    for bad in (dict(nc=1, d=3), dict(nc=3, d=1)):
        with pytest.raises(
            ValueError,
            match=rf"{next(k for k, v in bad.items() if v == 1)} must be an integer >= 2",
        ):
            equiangular(**bad)


def test_layernorm_is_the_population_standardisation_in_numpy_and_torch():
    import torch

    X = np.random.default_rng(2).standard_normal((5, 6)) * 3 + 1
    Y = (X - X.mean(1, keepdims=True)) / X.std(1, ddof=0, keepdims=True)
    np.testing.assert_allclose(layernorm(X), Y, rtol=1e-12)
    np.testing.assert_allclose(layernorm(torch.as_tensor(X)).numpy(), Y, rtol=1e-12)
    np.testing.assert_allclose(layernorm(X[None]), Y[None], rtol=1e-12)  # rows: the last axis
    assert layernorm([[1, 2, 3]]).dtype == np.float64


def test_collapse_weights_by_hand_and_the_type_ii_check():
    F = equiangular(3, 2)
    z = np.array([[0, 2], [1, 0]])
    W, U = collapse_weights(F, z, 2, word_norm=2.0, u_norm=0.5)
    np.testing.assert_allclose(W, 2.0 * F[:, [0, 0, 1, 1, 2, 2]].T)
    np.testing.assert_allclose(U[0, 1], 0.5 * F[:, 2])
    np.testing.assert_allclose(U[1, 0], 0.5 * F[:, 1])
    with pytest.raises(
        ValueError, match="mean-zero equiangular"
    ):  # F 1 = 0, but its columns are not mean-zero
        collapse_weights(F, z, 2, word_norm=2.0, u_norm=0.5, layernorm=True)
    Fz = equiangular(3, 3, mean_zero=True)
    W2, _ = collapse_weights(Fz, z, 2, word_norm=math.sqrt(3), u_norm=1.0, layernorm=True)
    np.testing.assert_allclose(
        layernorm(W2), math.sqrt(3) * Fz[:, [0, 0, 1, 1, 2, 2]].T, atol=1e-12
    )
    big = 1e6 * Fz
    big[:, 0] += 1e-5  # a column sum of 3e-5 is round-off at this scale (relative 1e-11): accepted
    collapse_weights(big, z, 2, word_norm=1.0, u_norm=1.0, layernorm=True)
    big[:, 0] += 1e-3  # relative 1e-9: refused
    with pytest.raises(ValueError, match="mean-zero"):
        collapse_weights(big, z, 2, word_norm=1.0, u_norm=1.0, layernorm=True)


def test_all_latents_and_hamming_counts_by_hand():
    z = all_latents(2, 1)
    assert z.tolist() == [[0], [1]] and z.dtype == np.int64
    z3 = all_latents(3, 2)
    assert z3.shape == (9, 2) and z3[5].tolist() == [1, 2]
    counts = hamming_counts(z3)
    assert counts.dtype.kind in "iu" and counts.shape == (9, 3)
    np.testing.assert_array_equal(
        counts[0], [1, 4, 4]
    )  # itself; 2+2 at distance 1; 4 at distance 2
    with pytest.raises(ValueError, match="L must be an integer >= 1"):
        all_latents(2, 0)


def test_theorem_1_tau_to_full_precision():
    """tau, the root of H', to 1e-13 against a root found in 50-digit arithmetic (a looser root finder,
    e.g. brentq's default tolerance 2e-12, fails this)."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    nc, nw, L, K, lam = 3, 30, 4, 20, 1e-3
    a = mp.mpf(K) / nc**L
    eta = mp.mpf(nc) / (nc - 1) / mp.sqrt(nw * K * L)

    def dH_exact(t):
        s = (nc - 1) * mp.exp(-eta * t)
        return eta * (-a * L * (1 + s) ** (L - 1) * s / (1 + a * ((1 + s) ** L - 1))) + lam

    tau = mp.findroot(dH_exact, thm1_tau(nc, nw, L, K, lam))
    assert thm1_tau(nc, nw, L, K, lam) == pytest.approx(float(tau), rel=1e-13)


def test_hamming_counts_in_chunks_match_brute_force():
    """More than 512 latents are counted in blocks of 512 rows: every row of every block, against the
    full distance matrix."""
    z = all_latents(3, 6)  # 729 latents
    d = (z[:, None, :] != z[None, :, :]).sum(-1)
    want = np.stack([(d == r).sum(1) for r in range(7)], axis=1)
    got = hamming_counts(z)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, want)


def test_thm2_weight_decay_bounds_are_strict():
    mu = [0.5, 0.3, 0.2]
    bound = thm2_lambda_bound(mu, 3, 2)
    assert bound == pytest.approx(math.sqrt(2 * 0.38 / 27))
    thm2_solve(mu, 3, 2, bound * (1 - 1e-6))  # just inside: solves
    for lam in (bound, 0.0, -1e-3, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="lam"):
            thm2_solve(mu, 3, 2, lam)
    assert thm2_lambda_bound([1.0], 2, 1) == pytest.approx(math.sqrt(1 / 4))  # L = 1 is allowed


def test_zero_threshold_by_hand():
    """Two latents differing in their one position: the centred concept matrix has sigma_max = 1, so the
    threshold is sqrt(sum mu^2) / K. Two identical latents: the gradient at the origin vanishes, so the
    threshold is 0 (a floor under sigma_max would give a positive one)."""
    assert zero_threshold(np.array([[0], [1]]), [0.6, 0.4], nc=2) == pytest.approx(
        math.sqrt(0.52) / 2
    )
    assert zero_threshold(np.array([[1], [1]]), [0.6, 0.4], nc=2) == 0.0


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: H(1.0, 1, 30, 4, 20, 1e-3),
            "nc (number of concepts) must be an integer >= 2, got 1",
        ),
        (
            lambda: H(1.0, 3, 30, 0, 20, 1e-3),
            "L (sentence length) must be an integer >= 1, got 0",
        ),
        (
            lambda: H(1.0, 3, 30, 4, 1, 1e-3),
            "K (number of classes) must be an integer >= 2, got 1",
        ),
        (lambda: H(1.0, 3, 31, 4, 20, 1e-3), "nw=31 is not divisible by nc=3"),
        (
            lambda: H(1.0, 3, 0, 4, 20, 1e-3),
            "nw (number of words) must be an integer >= 1, got 0",
        ),
        (
            lambda: H_star(1.0, 3, 4, 20, 1, 1e-3),
            "d (embedding dimension) must be an integer >= 2, got 1",
        ),
        (
            lambda: thm2_lambda_bound([1.0], 1, 2),
            "nc (number of concepts) must be an integer >= 2, got 1",
        ),
        (
            lambda: thm2_lambda_bound([1.0], 2, 0),
            "L (sentence length) must be an integer >= 1, got 0",
        ),
        (
            lambda: thm2_solve([1.0], 1, 2, 1e-3),
            "nc (number of concepts) must be an integer >= 2, got 1",
        ),
        (
            lambda: thm2_solve([1.0], 2, 0, 1e-3),
            "L (sentence length) must be an integer >= 1, got 0",
        ),
        (
            lambda: collapse_risk_latents(all_latents(2, 2), 1.0, nc=2, nw=0, lam=1e-3),
            "nw (number of words) must be an integer >= 1, got 0",
        ),
        (
            lambda: H(1.0, 2, 8, 2, 5, 1e-3),
            "K=5 distinct latent variables cannot exceed nc^L = 2^2 = 4",
        ),
        (  # nc^L, not nc·L (equal at 2, 2)
            lambda: H(1.0, 2, 8, 3, 9, 1e-3),
            "K=9 distinct latent variables cannot exceed nc^L = 2^3 = 8",
        ),
        (
            lambda: collapse_risk_latents(all_latents(2, 2), 1.0, nc=1, nw=2, lam=1e-3),
            "nc (number of concepts) must be an integer >= 2, got 1",
        ),
        (lambda: all_latents(1, 2), "nc must be an integer >= 2, got 1"),
        (
            lambda: __import__("qwem_lib.fc.theory", fromlist=["x"]).dH_star(1.0, 2, 1, 2, 1, 1e-3),
            "d (embedding dimension) must be an integer >= 2, got 1",
        ),
        (  # a whole number is required, not only one at least the bound
            lambda: H(1.0, 2.5, 30, 4, 20, 1e-3),
            "nc (number of concepts) must be an integer >= 2, got 2.5",
        ),
    ],
)
def test_theory_messages_name_the_argument(call, message):
    with pytest.raises(ValueError, match="^" + __import__("re").escape(message)):
        call()


def test_smallest_admissible_sizes_are_accepted():
    assert np.isfinite(H(1.0, 2, 2, 1, 2, 1e-3))  # nc = 2, L = 1, K = 2, nw = 2
    from qwem_lib.fc.theory import dH_star

    assert np.isfinite(H_star(1.0, 2, 1, 2, 2, 1e-3)) and np.isfinite(
        dH_star(1.0, 2, 1, 2, 2, 1e-3)
    )
    assert thm2_lambda_bound([1.0], 2, 1) > 0
    assert collapse_risk_latents(all_latents(2, 1), 1.0, nc=2, nw=2, lam=1e-3).shape == (1,)


def test_tau_below_one():
    """A weight decay just under the threshold puts tau below 1: the bracket starts at t = 0."""
    nc, nw, L, K = 3, 30, 4, 20
    lam = -(float(dH(0.5, nc, nw, L, K, 1e-300)) - 1e-300)  # H'(0.5) = 0 at this lam
    tau = thm1_tau(nc, nw, L, K, lam)
    assert tau == pytest.approx(0.5, rel=1e-10)


def test_thm2_solve_refuses_a_solution_whose_residual_is_past_its_tolerance(monkeypatch):
    import qwem_lib.fc.theory as fct

    mu = [0.5, 0.3, 0.2]
    lam = 0.5 * thm2_lambda_bound(mu, 3, 2)
    for res, ok in ((0.99e-8, True), (1.0e-8, False), (1e-6, False)):
        monkeypatch.setattr(fct, "thm2_residuals", lambda *a, res=res: np.array([res, -res / 2]))
        if ok:
            fct.thm2_solve(mu, 3, 2, lam)
        else:
            with pytest.raises(ArithmeticError, match="cannot be trusted"):
                fct.thm2_solve(mu, 3, 2, lam)


def test_layernorm_of_a_stack_in_torch_and_collapse_weights_tolerance():
    import torch

    X = np.random.default_rng(0).standard_normal((2, 3, 5))
    Y = (X - X.mean(-1, keepdims=True)) / X.std(-1, keepdims=True)
    np.testing.assert_allclose(
        layernorm(torch.as_tensor(X)).numpy(), Y, rtol=1e-12
    )  # the last axis
    Fz = equiangular(3, 3, mean_zero=True)  # unit-scale columns
    z = np.array([[0, 2], [1, 0]])
    off = Fz.copy()
    off[:, 0] += 1.5e-10 / 3  # a column sum of 1.5e-10: above 1e-10 x max(1, max|F|), refused
    with pytest.raises(ValueError, match="mean-zero"):
        collapse_weights(off, z, 2, word_norm=1.0, u_norm=1.0, layernorm=True)


def test_hamming_counts_beyond_two_blocks():
    z = all_latents(2, 11)  # 2,048 latents: four blocks of 512
    d = (z[:, None, :] != z[None, :, :]).sum(-1)
    got = hamming_counts(z)
    for r in (0, 1, 5, 11):
        np.testing.assert_array_equal(got[:, r], (d == r).sum(1))


def test_latent_and_frequency_checks_at_their_edges():
    assert zero_threshold(np.array([[0.0, 1.0], [1.0, 1.0]]), [0.5, 0.5], nc=2) > 0  # whole floats
    assert zero_threshold(np.array([[0, 1]]), [0.5, 0.5], nc=2) == 0.0  # K = 1 is a valid table
    for bad, err, match in (
        (np.array([[0.5, 1.0]]), ValueError, "whole numbers"),
        (np.array([[np.nan, 1.0]]), ValueError, "whole numbers"),
        (np.array([[0, 1]]).astype(complex), TypeError, "latents must be an integer array"),
        (np.zeros((0, 2), dtype=int), ValueError, r"non-empty \(K, L\) array, got shape \(0, 2\)"),
        (np.zeros((2, 0), dtype=int), ValueError, r"non-empty \(K, L\) array, got shape \(2, 0\)"),
        (np.array([0, 1]), ValueError, r"non-empty \(K, L\) array, got shape \(2,\)"),
    ):
        with pytest.raises(err, match=match):
            zero_threshold(bad, [0.5, 0.5], nc=2)
    for mu, match in (
        ([0.5, 0.5, 0.0], "strictly positive"),
        ([1.5, -0.5], "strictly positive"),
        ([[0.5, 0.5]], "non-empty 1-D"),
        ([], "non-empty 1-D"),
        ([0.5, 0.6], "sum to 1"),
        ([0.5, np.inf], "strictly positive"),
    ):
        with pytest.raises(ValueError, match=match):
            thm2_lambda_bound(mu, 2, 1)
    assert thm2_lambda_bound([0.5, 0.5 + 5e-10], 2, 1) > 0  # a sum off by 5e-10 is round-off
    assert thm2_lambda_bound(np.array([1, 0, 0])[:1], 2, 1) > 0  # integer frequencies are floats


def test_minimise_exact_default_start_scale_is_one_half():
    import torch

    risk = ExactRisk(all_latents(2, 2), [0.5, 0.5], 0.1, nc=2)
    out = minimise_exact(risk, 2, seed=3, max_iter=1, polish_iter=0, tol=1e300)
    g = torch.Generator().manual_seed(3)
    np.testing.assert_array_equal(
        out["W"], 0.5 * torch.randn(4, 2, generator=g, dtype=torch.float64).numpy()
    )


def test_exact_risk_with_layernorm_at_an_arbitrary_point_and_its_size_limits():
    import torch

    z = all_latents(2, 2)
    mu = [0.6, 0.4]
    rng = np.random.default_rng(0)
    W, U = rng.standard_normal((4, 3)), rng.standard_normal((4, 2, 3))
    plain = ExactRisk(z, mu, 0.1, nc=2)
    ln = ExactRisk(z, mu, 0.1, nc=2, layernorm=True)
    Wt, Ut = torch.as_tensor(W), torch.as_tensor(U)
    assert float(ln.data_risk(Wt, Ut)) == pytest.approx(
        float(plain.data_risk(layernorm(Wt), Ut)), rel=1e-12
    )
    assert float(ln.data_risk(Wt, Ut)) != pytest.approx(float(plain.data_risk(Wt, Ut)), rel=1e-6)
    assert float(ln(W, U)) == pytest.approx(
        float(ln.data_risk(Wt, Ut)) + 0.05 * np.sum(U**2), rel=1e-12
    )
    assert float(plain(W, U)) == pytest.approx(
        float(plain.data_risk(Wt, Ut)) + 0.05 * (np.sum(W**2) + np.sum(U**2))
    )
    for lam in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="lam must be positive"):
            ExactRisk(z, mu, lam, nc=2)
    big = np.array([[0] * 5, [1] * 5])  # K = 2, L = 5, sc = 100: 2 x 100^5 sentences x 2 classes
    with pytest.raises(ValueError, match="too many to enumerate"):
        ExactRisk(big, np.full(100, 0.01), 0.1, nc=2)


def test_minimise_exact_polishes_only_when_asked_and_needed(monkeypatch):
    """The polish phase runs when ``polish_iter > 0`` and the gradient is above ``tol``, and then lowers the
    gradient without raising the risk; otherwise it costs nothing (no extra gradient evaluation)."""
    risk = ExactRisk(all_latents(2, 3), [0.6, 0.4], 0.01, nc=2)
    calls = {"n": 0}
    original = ExactRisk.__call__

    def counted(self, W, U):
        calls["n"] += 1
        return original(self, W, U)

    monkeypatch.setattr(ExactRisk, "__call__", counted)

    def run(**kw):
        calls["n"] = 0
        out = minimise_exact(risk, 3, seed=2, max_iter=5, **kw)
        return out, calls["n"] - out["evals"]  # evaluations outside the L-BFGS phases

    rough, extra0 = run(polish_iter=0)
    assert extra0 == 2  # the gradient after the first phase, and the final one
    _, extra_tol = run(polish_iter=20, tol=1e300)  # the gradient is already below tol: no polish
    assert extra_tol == 2
    one, extra1 = run(polish_iter=1)  # one polish step is a polish phase
    assert extra1 == 3 and one["evals"] > rough["evals"]
    polished, _ = run(polish_iter=200)
    assert polished["grad_norm"] < rough["grad_norm"]
    assert polished["risk"] <= rough["risk"] + 1e-13 * max(1.0, abs(rough["risk"]))


def test_phi_solves_its_equation_across_scales():
    """rho = phi(c) solves x (1 + gam e^{(1+gam) c² x}) / (1 + gam) = target to float64 precision, for
    targets below and above e (both brackets) and for a small c, where the tighter bracket's second
    bound, log(log t / (2a)), is the larger one and log t / 2 must be used."""
    from qwem_lib.fc.theory import _phi

    for c, nc in ((0.01, 2), (0.7, 3), (2.0, 2)):
        gam = 1.0 / (nc - 1)
        a = (1 + gam) * c * c
        target = np.array([0.3, 1.5, np.e**10, 1e40])
        x = _phi(c, target, nc)
        g = x * (1 + gam * np.exp(a * x)) / (1 + gam) if a * x.max() < 700 else None
        if g is not None:
            np.testing.assert_allclose(g, target, rtol=1e-12)
        # in log form (no overflow): log g(c, e^y) = log t
        y = _phi(c, target, nc, log=True)
        lg = y + np.logaddexp(0.0, np.log(gam) + a * np.exp(y)) - np.log1p(gam)
        assert np.all(np.abs(lg - np.log(target)) <= 1e-13 * np.maximum(1, np.abs(np.log(target))))
        # a root below 1 alone (every bracket end negative): the stopping rule is on hi − lo
        y1 = _phi(c, np.array([0.3]), nc, log=True)
        lg1 = y1 + np.logaddexp(0.0, np.log(gam) + a * np.exp(y1)) - np.log1p(gam)
        assert abs(lg1[0] - np.log(0.3)) <= 1e-13


def test_exact_risk_against_a_loop_over_every_sentence():
    """R(W, U) for L = 2 by an explicit loop over classes k and frequencies (β₁, β₂): the sentence of
    class k has words z_kl·sc + β_l with probability Π mu_β / K, and its loss is the cross-entropy of
    the logits Σ_l ⟨U_jl, W_word⟩; plus ½λ(‖W‖² + ‖U‖²). Integer inputs are read as floats."""
    import itertools

    z = np.array([[0, 1], [1, 1], [1, 0]])
    mu = np.array([0.7, 0.3])
    lam = 0.05
    rng = np.random.default_rng(0)
    W = rng.normal(size=(4, 2))
    U = rng.normal(size=(3, 2, 2))
    want = 0.0
    for k in range(3):
        for b in itertools.product(range(2), repeat=2):
            words = [z[k, l] * 2 + b[l] for l in range(2)]
            logits = np.array([sum(U[j, l] @ W[words[l]] for l in range(2)) for j in range(3)])
            ce = np.log(np.exp(logits).sum()) - logits[k]
            want += mu[b[0]] * mu[b[1]] / 3 * ce
    want += 0.5 * lam * ((W**2).sum() + (U**2).sum())
    risk = ExactRisk(z, mu, lam, nc=2)
    assert float(risk(W, U)) == pytest.approx(want, rel=1e-12)
    Wi, Ui = np.ones((4, 2), dtype=int), np.ones((3, 2, 2), dtype=int)
    assert float(risk(Wi, Ui)) == pytest.approx(float(risk(Wi.astype(float), Ui.astype(float))))


def test_exact_risk_size_limit_is_on_sentences_times_classes():
    """6·10⁸ (sentence, class) pairs are allowed, one more is not: with one frequency per concept and
    L = 1, K = 10,000 classes of 6 sentences each make 60,000 × 10,000 = 6·10⁸ exactly."""
    z = np.arange(10_000)[:, None]
    ExactRisk(z, np.full(6, 1 / 6), 0.1, nc=10_000)  # exactly at the limit: allowed
    with pytest.raises(ValueError, match="too many to enumerate"):
        ExactRisk(np.arange(10_001)[:, None], np.full(6, 1 / 6), 0.1, nc=10_001)
