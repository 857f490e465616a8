"""Unit tests of the stiff-safe flow integrator (qwem_lib.flow) and of train_expected(method="rkc"),
each against an independent computation: the Taylor series of the exponential, SciPy's DOP853 at tight
tolerance (qwem_lib.qwem.dynamics.solve_flow_ivp), Lemma 3.1's closed form. Gradient descent at the book's
c = 0.2 is the control: it must fail the accuracy test that the integrator passes."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import qwem_lib as q
from qwem_lib.flow import (
    FlowState,
    hermite,
    integrate_flow,
    rkc_coefficients,
    rkc_stability_bound,
    rkc_stages,
    spectral_radius,
)
from qwem_lib.qwem.dynamics import solve_flow_ivp
from qwem_lib.qwem.theory import aligned_sigmoid


def stability_polynomial(s: int, z: np.ndarray) -> np.ndarray:
    """R(z) of the s-stage method, by running its recurrence on y' = λy (z = hλ), y0 = 1."""
    c = rkc_coefficients(s)
    prev, cur = np.ones_like(z), 1.0 + c["mu_t"][1] * z
    for j in range(2, s + 1):
        nxt = (
            (1 - c["mu"][j] - c["nu"][j])
            + c["mu"][j] * cur
            + c["nu"][j] * prev
            + c["mu_t"][j] * z * cur
            + c["gamma_t"][j] * z
        )
        prev, cur = cur, nxt
    return cur


@pytest.mark.parametrize("s", [2, 3, 7, 20])
def test_rkc_is_second_order(s):
    """R(z) = 1 + z + z²/2 + O(z³): the error shrinks by 8 when z halves (not by 4: not first order)."""
    z = np.array([1e-2, 5e-3])
    err = np.abs(stability_polynomial(s, z) - np.exp(z))
    assert 6.0 < err[0] / err[1] < 10.0
    assert err[0] < 0.2 * z[0] ** 2  # the z² term is right, not just small


@pytest.mark.parametrize("s", [2, 5, 12, 30])
def test_rkc_is_stable_on_its_interval_and_not_beyond(s):
    beta = rkc_stability_bound(s)
    z = np.linspace(-beta, 0.0, 4001)
    assert np.max(np.abs(stability_polynomial(s, z))) <= 1.0 + 1e-10
    assert abs(stability_polynomial(s, np.array([-1.1 * beta]))[0]) > 1.0
    # the interval grows like s²: about 0.65 s² (Sommeijer et al. 1997, with damping 2/13)
    assert 0.6 * (s**2 - 1) < beta < 0.67 * s**2
    # the stage rule always holds hρ inside the interval
    for hrho in (0.1, 3.0, 50.0, 1e4):
        assert rkc_stability_bound(rkc_stages(hrho, 1.0)) >= hrho


def test_hermite_is_exact_for_cubics():
    t0, h = 0.3, 0.7
    y = lambda t: 2 * t**3 - t**2 + 4 * t - 1  # noqa: E731
    dy = lambda t: 6 * t**2 - 2 * t + 4  # noqa: E731
    for th in (0.0, 0.25, 0.5, 0.9, 1.0):
        got = hermite(th, h, y(t0), dy(t0), y(t0 + h), dy(t0 + h))
        assert got == pytest.approx(y(t0 + th * h), rel=1e-13, abs=1e-13)


def test_spectral_radius_finds_the_largest_eigenvalue_in_modulus():
    rng = np.random.default_rng(1)
    Q, _ = np.linalg.qr(rng.normal(size=(30, 30)))
    lam = np.linspace(-2.0, 5.0, 30)
    lam[3] = -40.0
    A = torch.tensor((Q * lam) @ Q.T)
    y = torch.tensor(rng.normal(size=(30, 2)))
    rho, _, n = spectral_radius(lambda x: A @ x, y, A @ y, None, eps=2.2e-16)
    assert rho == pytest.approx(40.0, rel=0.02)
    assert n <= 50


def stiff_stats(V=60, seed=0, zero=0.8):
    """Co-occurrences with 80 % of the pairs unseen: M*'s negative outlier λ_V ≈ −7.6 λ₁, the paper's
    stiffness at V = 10,000 (λ_V ≈ −7.25 λ₁)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, V + 1) ** 1.1
    p /= p.sum()
    C = rng.random((V, V)) * np.outer(p, p)
    mask = rng.random((V, V)) < zero
    C[mask | mask.T] = 0.0
    C = C + C.T + np.diag(p) * 0.05
    P = C / C.sum()
    return P, P.sum(1)


def step_times(t: np.ndarray, sv2: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """When each sorted s_k² first reaches half its end value λ_k (linear interpolation in log s²)."""
    out = []
    for k in range(sv2.shape[1]):
        x = np.log(sv2[:, k] / (0.5 * lam[k]))
        i = int(np.argmax(x >= 0))
        out.append(t[i - 1] + (t[i] - t[i - 1]) * (-x[i - 1]) / (x[i] - x[i - 1]))
    return np.asarray(out)


@pytest.fixture(scope="module")
def stiff_run():
    P, pu = stiff_stats()
    M = q.growth_matrix(P, pu, loss="quartic", reweighting="setting31")
    lam = np.linalg.eigvalsh(M)[::-1]
    assert lam[-1] / lam[0] < -7.0  # the instance is as stiff as the paper's
    d, kappa = 3, lam[0]
    lr = 0.2 / kappa  # the book's GD rate; the flow's time axis t = 2·lr·step
    steps = 2000  # u = κ₁t to 800: every mode has stepped and settled
    W0 = np.random.default_rng(2).normal(size=(P.shape[0], d)) * 1e-3 / math.sqrt(d)
    log = np.arange(0, steps + 1, 2)
    t = 2 * lr * log
    ref = solve_flow_ivp(M, W0, t, rtol=1e-11, atol=1e-16)
    ref_sv2 = np.linalg.svd(ref, compute_uv=False) ** 2
    kw = dict(
        steps=steps, lr=lr, W0=W0, log_steps=log, use_cache=False, progress=False, device="cpu",
        dtype=torch.float64,
    )  # fmt: skip
    return dict(P=P, pu=pu, lam=lam[:d], t=t, ref_sv2=ref_sv2, kw=kw, ref_W=ref[-1])


def relative_step_time_error(run, sv: np.ndarray) -> float:
    lam = run["lam"]
    tr = step_times(run["t"], run["ref_sv2"], lam)
    tg = step_times(run["t"], sv**2, lam)
    return float(np.max(np.abs(tg - tr) / tr))


def test_rkc_follows_the_flow_on_a_stiff_instance_and_gd_at_the_books_rate_does_not(stiff_run):
    r = q.train_expected(
        (stiff_run["P"], stiff_run["pu"]), 3, method="rkc", rtol=1e-4, **stiff_run["kw"]
    )
    err_rkc = relative_step_time_error(stiff_run, r.sv)
    assert err_rkc < 2e-3
    np.testing.assert_allclose(r.sv[-1] ** 2, stiff_run["lam"], rtol=1e-4)
    # the control: gradient descent at c = 0.2 is a first-order method, several per cent off the flow
    g = q.train_expected((stiff_run["P"], stiff_run["pu"]), 3, method="gd", **stiff_run["kw"])
    err_gd = relative_step_time_error(stiff_run, g.sv)
    assert err_gd > 2e-2
    # and the integrator is cheaper than the steps it replaces
    assert r.gradients < g.gradients / 2


def test_rkc_error_falls_as_the_tolerance_does(stiff_run):
    """Local error ∝ h³ and h ∝ rtol^(1/3) per step: the global error scales about as rtol^(2/3), a factor
    of about 4.6 per decade (3–7 accepted), not as rtol (×10, a solver that ignores its estimate)."""
    errs = []
    for rtol in (1e-3, 1e-4):
        r = q.train_expected(
            (stiff_run["P"], stiff_run["pu"]), 3, method="rkc", rtol=rtol, **stiff_run["kw"]
        )
        errs.append(relative_step_time_error(stiff_run, r.sv))
    assert 3.0 < errs[0] / errs[1] < 7.0


def test_rkc_from_an_aligned_start_follows_lemma_3_1():
    """From W(0) = Q diag(s0) each mode follows Lemma 3.1's sigmoid exactly: the flow, not GD, is what the
    lemma describes, so the tolerance is the integrator's (1e-4 at rtol 1e-8; the global error scales as
    rtol^(2/3)), not a step-size bias (3 % for GD at a small rate)."""
    P, pu = stiff_stats(V=30, seed=2, zero=0.5)
    M = q.growth_matrix(P, pu, loss="quartic", reweighting="setting31")
    lam, Qm = np.linalg.eigh(M)
    lam, Qm = lam[::-1][:3], Qm[:, ::-1][:, :3]
    s0 = np.sqrt([1e-6, 1e-5, 1e-4])
    lr = 0.2 / lam[0]
    steps = int(2.5 * math.log(lam[2] / 1e-6) / lam[2] / (2 * lr))
    r = q.train_expected(
        (P, pu), 3, steps=steps, lr=lr, W0=Qm * s0, use_cache=False, progress=False,
        dtype=torch.float64, device="cpu", method="rkc", rtol=1e-8,
    )  # fmt: skip
    pred = -np.sort(-aligned_sigmoid(lam[None, :], s0[None, :] ** 2, r.times[:, None]), axis=1)
    mask = pred > 0.01 * lam
    np.testing.assert_allclose(r.sv[mask] ** 2, pred[mask], rtol=1e-4)


def test_an_interrupted_flow_resumes_bit_for_bit(tmp_path, monkeypatch):
    P, pu = stiff_stats(V=25, seed=6, zero=0.5)
    K = q.growth_matrix(P, pu, loss="logistic", reweighting="word2vec")
    kw = dict(
        steps=400, lr=0.2 / np.linalg.eigvalsh(K)[-1], init_scale=1e-3, seed=3, progress=False, device="cpu", n_logs=40,
        reference=np.eye(25)[:, :4], loss="logistic", reweighting="word2vec", model=None,
        method="rkc", checkpoint_s=0.0,
    )  # fmt: skip
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "a"))
    with pytest.raises(q.TrainingInterrupted):
        q.train_expected((P, pu), 2, stop_after=5, **kw)
    ck = list((tmp_path / "a" / "noiseless").glob("*.ckpt.npz"))
    assert ck and "flow_t" in np.load(ck[0])
    resumed = q.train_expected((P, pu), 2, **kw)
    assert not resumed.cached and not list((tmp_path / "a" / "noiseless").glob("*.ckpt.npz"))
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "b"))
    whole = q.train_expected((P, pu), 2, **kw)
    for f in ("W", "steps", "times", "sv", "overlap", "loss"):
        np.testing.assert_array_equal(getattr(resumed, f), getattr(whole, f))
    assert resumed.gradients == whole.gradients


def test_the_method_and_tolerance_are_part_of_the_cache_key(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    P, pu = stiff_stats(V=20, seed=1, zero=0.5)
    kw = dict(steps=200, lr=0.02, init_scale=1e-3, progress=False, device="cpu", n_logs=10)
    a = q.train_expected((P, pu), 2, method="rkc", rtol=1e-3, **kw)
    b = q.train_expected((P, pu), 2, method="rkc", rtol=1e-5, **kw)
    c = q.train_expected((P, pu), 2, method="gd", **kw)
    assert not (a.cached or b.cached or c.cached)
    assert a.config["rtol"] != b.config["rtol"] and "method" not in c.config
    assert q.train_expected((P, pu), 2, method="rkc", rtol=1e-5, **kw).cached


@pytest.mark.parametrize(
    "bad",
    [dict(method="euler"), dict(method="rkc", rtol=0.0), dict(method="rkc", rtol=float("nan"))],
)
def test_train_expected_refuses_an_unknown_method_or_tolerance(bad):
    P, pu = stiff_stats(V=10, seed=1, zero=0.5)
    with pytest.raises(ValueError, match="method|rtol"):
        q.train_expected((P, pu), 2, steps=10, lr=0.01, use_cache=False, progress=False, **bad)


def test_integrate_flow_refuses_bad_inputs():
    y = torch.ones(3, 1, dtype=torch.float64)
    with pytest.raises(ValueError, match="t_out"):
        integrate_flow(lambda x: -x, y, np.array([0.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match="rtol"):
        integrate_flow(lambda x: -x, y, np.array([0.0, 1.0]), rtol=2.0)
    with pytest.raises(FloatingPointError):
        integrate_flow(lambda x: -x, y * float("nan"), np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="stages"):
        rkc_coefficients(1)


def test_flow_state_round_trips_exactly():
    st = FlowState(
        t=0.1, y=torch.rand(4, 2, dtype=torch.float64), f=torch.rand(4, 2, dtype=torch.float64),
        h=0.01, rho=3.3, v=torch.rand(4, 2, dtype=torch.float64), steps=5, evaluations=40,
        stage_counts=[2, 3, 3],
    )  # fmt: skip
    back = FlowState.from_arrays(st.to_arrays(), "cpu")
    for k in ("t", "h", "rho", "steps", "evaluations", "stage_counts"):
        assert getattr(back, k) == getattr(st, k)
    assert torch.equal(back.y, st.y) and torch.equal(back.v, st.v)


def test_the_modules_examples_run():
    import doctest

    import qwem_lib.flow

    assert doctest.testmod(qwem_lib.flow, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0


def test_the_flows_logged_singular_values_are_lapacks():
    from qwem_lib.qwem.noiseless import _left_singular

    W = torch.tensor(np.random.default_rng(0).normal(size=(200, 6)) * np.logspace(0, -3, 6))
    U, s = _left_singular(W)
    U0, s0, _ = torch.linalg.svd(W, full_matrices=False)
    np.testing.assert_allclose(s.numpy(), s0.numpy(), rtol=1e-9)
    np.testing.assert_allclose(np.abs((U.T @ U0).numpy()).diagonal(), 1.0, atol=1e-8)


def test_observe_logs_the_inner_product_with_the_gram_matrix():
    P, pu = stiff_stats(V=30, seed=3, zero=0.6)
    O = np.random.default_rng(1).random((30, 30))
    r = q.train_expected(
        (P, pu), 3, steps=300, lr=0.2 / np.linalg.eigvalsh(q.mstar_from_stats(P, pu))[-1],
        init_scale=1e-2, method="rkc", observe=O, log_loss=False, use_cache=False, progress=False,
        device="cpu", n_logs=20,
    )  # fmt: skip
    W = r.W.astype(np.float64)
    assert r.observed.shape == r.steps.shape and np.all(np.isnan(r.loss))
    np.testing.assert_allclose(r.observed[-1], np.sum(O * (W @ W.T)), rtol=1e-5)
    with pytest.raises(ValueError, match="observe"):
        q.train_expected(
            (P, pu), 3, steps=10, lr=0.01, observe=O[:5], use_cache=False, progress=False
        )
