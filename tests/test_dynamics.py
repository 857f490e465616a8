"""Unit tests for qwem_lib.qwem.dynamics: the flow normalisation, the integrators, the alignment measures."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from qwem_lib.maths.linalg import eig_desc
from qwem_lib.qwem import dynamics as dy
from qwem_lib.qwem.theory import aligned_sigmoid, characteristic_time, procrustes_distance


def small_problem(V=12, top=(3.0, 2.0, 1.2), bulk=0.5, seed=0):
    rng = np.random.default_rng(seed)
    M, lam, Q = dy.synthetic_target(top, V, rng, bulk=bulk)
    return M, lam, Q, rng


def test_synthetic_target_spectrum():
    M, lam, Q, _ = small_problem()
    np.testing.assert_allclose(M, M.T, atol=1e-14)
    lam2, Q2 = eig_desc(M)
    np.testing.assert_allclose(lam2, lam, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.sum(Q2[:, :3] * Q[:, :3], axis=0)), 1.0, atol=1e-10)
    with pytest.raises(ValueError):
        dy.synthetic_target([1.0, 2.0], 5, np.random.default_rng(0))
    with pytest.raises(ValueError):
        dy.synthetic_target([1.0, 0.4], 5, np.random.default_rng(0), bulk=0.5)


def test_gradient_matches_autograd():
    M, _, _, rng = small_problem()
    W = torch.tensor(rng.standard_normal((12, 3)), requires_grad=True)
    Mt = torch.tensor(M)
    L = 0.25 * ((W @ W.T - Mt) ** 2).sum()
    (g,) = torch.autograd.grad(L, W)
    np.testing.assert_allclose(
        dy.factorisation_gradient(W.detach().numpy(), M), g.numpy(), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("method,tol", [("rk4", 1e-9), ("gd", 3e-2)])
def test_aligned_flow_follows_lemma_3_1(method, tol):
    M, lam, Q, rng = small_problem()
    s0 = np.array([1e-2, 2e-2, 5e-3])
    O, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    W0 = dy.aligned_init(Q[:, :3], s0, O)
    T = np.linspace(0, 12, 121)
    tr = dy.train_factorisation(M, W0, T, dt=0.01, method=method, device="cpu", progress=False)
    pred = dy.aligned_singular_values(lam[:3], s0**2, T)
    got = np.sort(tr.sv**2, axis=1)[:, ::-1]
    order = np.argsort(-lam[:3])
    err = np.max(np.abs(got - np.sort(pred, axis=1)[:, ::-1]) / lam[order][None, :])
    assert err < tol


def test_time_scale_one_is_twice_as_fast():
    M, lam, Q, _ = small_problem()
    s0 = np.array([0.05, 0.05, 0.05])
    W0 = dy.aligned_init(Q[:, :3], s0)
    T = np.linspace(0, 4, 41)
    tr = dy.train_factorisation(M, W0, T, dt=0.005, time_scale=1.0, device="cpu", progress=False)
    np.testing.assert_allclose(
        tr.sv**2, dy.aligned_singular_values(lam[:3], s0**2, 2 * T), rtol=1e-8
    )


def test_solve_ivp_reference_matches_closed_form():
    M, lam, Q, _ = small_problem(V=8)
    s0 = np.array([1e-3, 3e-3, 2e-3])
    W0 = dy.aligned_init(Q[:, :3], s0)
    T = np.linspace(0, 15, 31)
    Ws = dy.solve_flow_ivp(M, W0, T)
    sv2 = np.linalg.svd(Ws, compute_uv=False) ** 2
    pred = np.sort(dy.aligned_singular_values(lam[:3], s0**2, T), axis=1)[:, ::-1]
    assert np.max(np.abs(sv2 - pred) / pred) < 1e-7


def test_gd_error_is_first_order():
    M, lam, Q, _ = small_problem()
    s0 = np.array([1e-2, 1e-2, 1e-2])
    W0 = dy.aligned_init(Q[:, :3], s0)
    T = np.linspace(0, 10, 11)
    errs = []
    for dt in (0.02, 0.01, 0.005):
        tr = dy.train_factorisation(M, W0, T, dt=dt, method="gd", device="cpu", progress=False)
        errs.append(np.max(np.abs(tr.sv**2 - dy.aligned_singular_values(lam[:3], s0**2, T))))
    assert 1.8 < errs[0] / errs[1] < 2.2 and 1.8 < errs[1] / errs[2] < 2.2


def test_time_unit_batches_equal_separate_runs():
    M, lam, Q, rng = small_problem()
    W0 = 1e-3 * rng.standard_normal((12, 3))
    T = np.linspace(0, 3, 7)
    both = dy.train_factorisation(
        M,
        np.stack([W0, W0]),
        T,
        dt=0.01,
        time_unit=[1.0, 2.0],
        basis=Q[:, :3],
        device="cpu",
        progress=False,
    )
    one = dy.train_factorisation(
        M, W0, 2 * T, dt=0.02, basis=Q[:, :3], device="cpu", progress=False
    )
    np.testing.assert_allclose(both.flow_times[1], 2 * T)
    np.testing.assert_allclose(both.sv[1], one.sv, rtol=1e-10)
    np.testing.assert_allclose(both.proj[1], one.proj, rtol=1e-8, atol=1e-14)
    assert both.sv.shape == (2, 7, 3) and one.sv.shape == (7, 3)


def test_recorded_projection_and_overlap_are_consistent():
    M, lam, Q, rng = small_problem()
    W0 = 1e-2 * rng.standard_normal((12, 3))
    T = np.linspace(0, 5, 6)
    tr = dy.train_factorisation(
        M, W0, T, dt=0.01, basis=Q, left_overlap=True, keep_W=True, device="cpu", progress=False
    )
    for i in range(len(T)):
        W = tr.W[i]
        np.testing.assert_allclose(tr.proj[i], Q.T @ W, atol=1e-12)
        U, s, _ = np.linalg.svd(W, full_matrices=False)
        np.testing.assert_allclose(np.abs(tr.left_overlap[i]), np.abs(Q.T @ U), atol=1e-9)
        np.testing.assert_allclose(tr.resid_sq[i], 0.0, atol=1e-20)  # full basis: nothing outside


def test_divergence_raises():
    M, lam, Q, rng = small_problem()
    W0 = rng.standard_normal((12, 3))
    with pytest.raises(FloatingPointError):
        dy.train_factorisation(
            M, W0, [0.0, 2000.0], dt=50.0, method="gd", device="cpu", progress=False
        )


def test_bad_inputs_raise():
    M, lam, Q, rng = small_problem()
    with pytest.raises(ValueError):
        dy.train_factorisation(M, np.zeros((5, 2)), [0, 1], dt=0.1, progress=False)
    with pytest.raises(ValueError):
        dy.train_factorisation(M, np.zeros((12, 2)), [1, 0], dt=0.1, progress=False)
    with pytest.raises(ValueError):
        dy.train_factorisation(M, np.zeros((12, 2)), [0, 1], dt=0.1, method="adam", progress=False)
    with pytest.raises(ValueError):
        dy.aligned_init(Q[:, :2], [1.0, 1.0], np.ones((2, 2)))


def test_midpoint_ratio_is_exact_and_tends_to_half():
    lam = 2.0
    for s0 in (1e-1, 1e-3, 1e-9):
        tau = characteristic_time(lam, s0)
        assert math.isclose(
            aligned_sigmoid(lam, s0, tau) / lam, dy.midpoint_ratio(lam, s0), rel_tol=1e-12
        )
    assert abs(dy.midpoint_ratio(lam, 1e-9) - 0.5) < 1e-9


def test_matched_initial_singular_values():
    M, lam, Q, rng = small_problem()
    O, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    s = np.array([0.3, 0.2, 0.1])
    s0, O2 = dy.matched_initial_singular_values(dy.aligned_init(Q[:, :3], s, O), Q[:, :3])
    np.testing.assert_allclose(s0, s, rtol=1e-12)
    np.testing.assert_allclose(np.abs(O2), np.abs(O), atol=1e-12)
    W0 = rng.standard_normal((12, 3))
    s0, Qr = dy.matched_initial_singular_values(W0, Q[:, :3])
    A = Q[:, :3].T @ W0
    L = A @ Qr  # should be lower triangular with diagonal s0
    np.testing.assert_allclose(np.triu(L, 1), 0.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(L), s0, rtol=1e-12)


def test_alignment_distance_is_procrustes():
    M, lam, Q, rng = small_problem()
    W = rng.standard_normal((12, 3))
    s = np.array([1.5, 1.0, 0.3])
    Vd = Q[:, :3]
    P = Vd.T @ W
    resid = np.sum((W - Vd @ P) ** 2)
    got = dy.alignment_distance(P, resid, s)
    assert math.isclose(got, procrustes_distance(Vd * s, W), rel_tol=1e-10)
    # batched over a leading axis
    got2 = dy.alignment_distance(np.stack([P, P]), np.array([resid, resid]), np.stack([s, s]))
    np.testing.assert_allclose(got2, got)
    # zero on the aligned set itself
    O, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    assert dy.alignment_distance(np.diag(s) @ O, 0.0, s) < 1e-12


def test_learning_times_on_exact_sigmoid():
    lam = np.array([3.0, 1.0])
    s0 = np.array([1e-4, 1e-4])
    t = np.linspace(0, 20, 20001)
    s2 = dy.aligned_singular_values(lam, s0, t)
    got = dy.learning_times(t, s2, lam)
    exact = np.log((lam - s0) / s0) / lam  # s² = λ/2 exactly there
    np.testing.assert_allclose(got, exact, atol=1e-5)
    assert np.isnan(dy.learning_times(t[:10], s2[:10], lam)).all()


def test_pair_condition_threshold_by_hand():
    lam = [1.0, 0.8, 0.1]
    rhs = {
        (0, 1): -(0.8 / 0.2) * math.log(0.8 / 0.2),
        (0, 2): -(0.1 / 0.9) * math.log(0.1 / 0.9),
        (1, 2): -(0.08 / 0.7) * math.log(0.1 / 0.7),
    }
    val, pair = dy.pair_condition_threshold(lam)
    assert pair == min(rhs, key=rhs.get) and math.isclose(val, min(rhs.values()))
    # scaling the spectrum by c scales the threshold by c
    val10, _ = dy.pair_condition_threshold(10 * np.asarray(lam))
    assert math.isclose(val10, 10 * val)
    with pytest.raises(ValueError):
        dy.pair_condition_threshold([1.0, 1.0])


def test_gap_exponent():
    assert math.isclose(dy.gap_exponent([5.0, 3.5, 2.45, 0.1], 3), 0.5 * 0.3)
    assert math.isclose(dy.gap_exponent([4.0, 1.0, -1.0], 2), 0.5 * 0.75)
    assert math.isclose(dy.gap_exponent([4.0, -0.5, -1.0], 1), 0.5)  # no close pair: the σ term


def test_triangular_factor_is_the_gram_schmidt_of_the_rows():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 4, 4))
    L = dy.triangular_factor(A)
    assert np.allclose(np.triu(L, 1), 0) and np.all(np.diagonal(L, axis1=1, axis2=2) >= 0)
    O = np.linalg.solve(L, A)  # A = L Oᵀ: the rows of L⁻¹A are orthonormal
    assert np.allclose(O @ np.swapaxes(O, 1, 2), np.eye(4))
    s0, _ = dy.matched_initial_singular_values(A[0], np.eye(4))  # V = d = 4, Q_d = I: A = W0
    assert np.allclose(s0, np.diag(L[0]))  # its diagonal is the matched start s_k(0) = L_kk
    with pytest.raises(ValueError):
        dy.triangular_factor(np.ones((2, 3)))


def test_offdiagonal_exponents_recover_a_power_law():
    s2 = 10.0 ** np.arange(-2, -13, -1.0)
    size = np.stack([np.array([[s**0.15, 3 * s**0.25]]) for s in s2])  # (B, 1, 2)
    got = dy.offdiagonal_exponents(s2, size)
    assert got.shape == (1, 2) and np.allclose(got, [[0.15, 0.25]])
    bent = np.where(s2 > 1e-7, s2**0.5, s2**0.1 * 1e-7**0.4)  # a different law on the larger half
    assert math.isclose(float(dy.offdiagonal_exponents(s2, bent)), 0.1, rel_tol=1e-9)
    assert not math.isclose(float(dy.offdiagonal_exponents(s2, bent, smaller_half=False)), 0.1)
    with pytest.raises(ValueError):
        dy.offdiagonal_exponents(s2, -size)


def test_half_time():
    lam, s0 = 2.0, 1e-3
    t = dy.half_time(lam, s0)
    assert math.isclose(aligned_sigmoid(lam, s0, t), lam / 2, rel_tol=1e-12)
    with pytest.raises(ValueError):
        dy.half_time(1.0, 0.6)


def test_random_init_sweep_small():
    M, lam, Q, rng = small_problem(V=20, top=(4.0, 2.0, 1.0), bulk=0.3)
    Z = rng.standard_normal((20, 3))
    res = dy.random_init_sweep(
        M, lam, Q, 3, [1e-3, 1e-8], Z, n_records=120, device="cpu", progress=False
    )
    assert res.distance.shape == (2, 120) and res.s_aligned_sq.shape == (2, 120, 3)
    # smaller initialisation, closer to the aligned trajectory; and learned in order
    assert res.distance[1].max() < res.distance[0].max()
    assert np.all(np.diff(res.learn[1]) > 0)
    full = dy.random_init_sweep(
        M, lam, Q, 3, [1e-3, 1e-8], Z, n_records=120, full_basis=True, device="cpu", progress=False
    )
    np.testing.assert_allclose(full.distance, res.distance, rtol=1e-8, atol=1e-12)
    # the distance at t = 0 is the Procrustes distance of W0 to the matched aligned start
    s0, _ = dy.matched_initial_singular_values(np.sqrt(1e-3) * Z, Q[:, :3])
    d0 = procrustes_distance(Q[:, :3] * s0, np.sqrt(1e-3) * Z) / math.sqrt(lam[:3].sum())
    assert math.isclose(res.distance[0, 0], d0, rel_tol=1e-10)


# -- step sharpness (chapter 25) ----------------------------------------------------------------
def test_step_sharpness_of_lemma_sigmoid_and_of_a_ramp():
    from qwem_lib.qwem.dynamics import sigmoid_sharpness, step_sharpness
    from qwem_lib.qwem.theory import aligned_sigmoid

    lam = np.array([4.0, 1.5])
    s0 = 1e-6
    t = np.linspace(0, 20, 200_001)
    s_sq = aligned_sigmoid(lam[None, :], s0, t[:, None])
    out = step_sharpness(t, s_sq, lam)
    # Lemma 3.1: t_f = [logit f + ln((λ − s0)/s0)]/λ, so S = ln((λ − s0)/s0)/ln 81, whatever λ
    expect = np.log((lam - s0) / s0) / np.log(81.0)
    np.testing.assert_allclose(out["sharpness"], expect, rtol=1e-4)
    np.testing.assert_allclose(sigmoid_sharpness(lam, s0), expect, rtol=1e-12)
    np.testing.assert_allclose(out["t_mid"], np.log((lam - s0) / s0) / lam, rtol=1e-4)
    # the unit of time does not matter
    np.testing.assert_allclose(
        step_sharpness(7.0 * t, s_sq, lam)["sharpness"], out["sharpness"], rtol=1e-9
    )
    # a linear ramp from 0 to 1 on [0, 1]: t10 = .1, t50 = .5, t90 = .9, S = .5/.8
    tr_ = np.linspace(0, 1, 1001)
    ramp = step_sharpness(tr_, tr_[:, None], [1.0])
    np.testing.assert_allclose(ramp["sharpness"], [0.625], rtol=1e-9)
    # a mode that never reaches its fractions gives NaN
    assert np.isnan(step_sharpness(tr_, tr_[:, None], [2.0])["sharpness"][0])


def test_step_sharpness_validation():
    from qwem_lib.qwem.dynamics import sigmoid_sharpness, step_sharpness

    t = np.linspace(0, 1, 5)
    with pytest.raises(ValueError):
        step_sharpness(t, t[:, None], [1.0], lo=0.6)
    with pytest.raises(ValueError):
        step_sharpness(t, t[:, None], [1.0, 2.0])
    with pytest.raises(ValueError):
        step_sharpness(t, t[:, None], [0.0])
    with pytest.raises(ValueError):
        sigmoid_sharpness(1.0, 0.6)


# -- inputs, caches and faults ------------------------------------------------------------------


def test_train_factorisation_checks_M():
    from qwem_lib.qwem.dynamics import train_factorisation

    M = np.array([[2.0, 0.5], [0.0, 1.0]])
    W0 = np.full((2, 1), 1e-3)
    kw = dict(times=[0.0, 1.0], dt=0.1, progress=False, device="cpu")
    with pytest.raises(ValueError, match="symmetric"):
        train_factorisation(M, W0, **kw)
    with pytest.raises(ValueError, match="NaN"):
        train_factorisation(np.array([[np.nan, 0], [0, 1.0]]), W0, **kw)
    tr = train_factorisation(0.5 * (M + M.T), W0, **kw)
    assert np.isfinite(tr.sv).all()


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def test_train_factorisation_against_an_independent_integrator_and_its_records():
    """RK4 against scipy's adaptive RK45 at tight tolerance on dW/dt = c (M - W W^T) W, with every
    record field checked against its definition: singular values, projections on a basis, the residual
    outside it, left overlaps, the matrices, flow times and the info dictionary."""
    from scipy.integrate import solve_ivp

    rng = np.random.default_rng(2)
    A = rng.standard_normal((6, 6))
    M = A @ A.T / 6
    W0 = 0.1 * rng.standard_normal((6, 2))
    times = np.array([0.0, 0.5, 1.0, 2.0])
    basis = np.linalg.qr(rng.standard_normal((6, 3)))[0]
    tr = dy.train_factorisation(
        M, W0, times, dt=0.01, time_scale=0.7, time_unit=2.0, basis=basis, left_overlap=True,
        keep_W=True, progress=False, device="cpu",
    )  # fmt: skip

    def rhs(t, w):
        W = w.reshape(6, 2)
        return (0.7 * 2.0 * (M @ W - W @ (W.T @ W))).ravel()

    ref = solve_ivp(rhs, (0, 2.0), W0.ravel(), t_eval=times, rtol=1e-11, atol=1e-13).y.T.reshape(
        -1, 6, 2
    )
    np.testing.assert_allclose(tr.W, ref, atol=1e-8)
    np.testing.assert_allclose(tr.flow_times, 2.0 * times)
    for i, W in enumerate(ref):
        U, s, _ = np.linalg.svd(W, full_matrices=False)
        np.testing.assert_allclose(tr.sv[i], s, atol=1e-8)
        np.testing.assert_allclose(tr.proj[i], basis.T @ W, atol=1e-8)
        np.testing.assert_allclose(
            tr.resid_sq[i], np.sum((W - basis @ (basis.T @ W)) ** 2), atol=1e-8
        )
        np.testing.assert_allclose(np.abs(tr.left_overlap[i]), np.abs(basis.T @ U), atol=1e-7)
    assert tr.info == {
        "method": "rk4", "dt": 0.01, "time_scale": 0.7, "steps": tr.info["steps"], "V": 6, "d": 2,
        "B": 1, "dtype": "torch.float64", "device": "cpu",
    }  # fmt: skip
    assert tr.info["steps"] == 200 and tr.W.dtype == np.float64
    plain = dy.train_factorisation(M, W0, times, dt=0.01, progress=False, device="cpu")
    assert (
        plain.proj is None
        and plain.resid_sq is None
        and plain.left_overlap is None
        and plain.W is None
    )
    f32 = dy.train_factorisation(
        M, W0, times, dt=0.01, progress=False, device="cpu", dtype=torch.float32
    )
    assert f32.sv.dtype == np.float32 and f32.info["dtype"] == "torch.float32"


def test_train_factorisation_threads_and_checks():
    import torch

    M, W0 = np.eye(4), 0.1 * np.ones((4, 1))
    before = torch.get_num_threads()
    dy.train_factorisation(M, W0, [0.0, 0.1], dt=0.05, progress=False, device="cpu", threads=1)
    assert torch.get_num_threads() == before  # restored
    for bad, match in (
        (dict(time_unit=0.0), "time_unit must be positive"),
        (dict(times=[0.1, 0.0]), "times"),
        (dict(times=[-0.1, 0.2]), "times must start at a value >= 0, got -0.1"),
        (dict(dt=0.0), "dt"),
        (dict(time_scale=-1.0), "time_scale"),
        (dict(method="euler"), "method must be 'rk4' or 'gd'"),
        (dict(basis=np.eye(3)), r"basis must have shape \(V, k\) with V=4"),
        (
            dict(W0=np.ones((3, 1))),
            r"W0 must have shape \(V, d\) or \(B, V, d\) with V=4, got \(3, 1\)",
        ),
    ):
        kw = dict(M=M, W0=W0, times=[0.0, 0.1], dt=0.05, progress=False, device="cpu") | bad
        with pytest.raises(ValueError, match=match):
            dy.train_factorisation(**kw)
    near = np.eye(4)
    near[0, 1] = 1e-13  # asymmetric by 1e-13 of a unit matrix: within the tolerance
    dy.train_factorisation(near, W0, [0.0, 0.1], dt=0.05, progress=False, device="cpu")
    near[0, 1] = 1e-11
    with pytest.raises(ValueError, match="symmetric"):
        dy.train_factorisation(near, W0, [0.0, 0.1], dt=0.05, progress=False, device="cpu")
    big = 1e6 * np.eye(4)
    big[0, 1] = 1e-7  # relative 1e-13 of a matrix of size 1e6: within the tolerance
    dy.train_factorisation(big, 1e-3 * W0, [0.0, 1e-9], dt=1e-10, progress=False, device="cpu")


def test_learning_times_by_hand():
    t = np.array([0.0, 1.0, 2.0, 2.0, 4.0])  # a repeated time is allowed
    s = np.array([[0.0, 0.0], [0.4, 0.1], [1.2, 0.2], [1.6, 0.2], [2.0, 0.3]])
    got = dy.learning_times(t, s, [2.0, 1.0])
    assert got[0] == pytest.approx(1.0 + 0.6 / 0.8) and np.isnan(
        got[1]
    )  # 1.75; mode 2 never gets to 0.5
    assert dy.learning_times(t, s, [2.0, 1.0], fraction=1.0)[0] == 4.0  # reached exactly at the end
    assert dy.learning_times(t, s, [0.5, 1.0], fraction=0.2)[0] == pytest.approx(
        0.25
    )  # 0 + 0.2/0.8
    assert dy.learning_times(t, np.full((5, 2), 3.0), [2.0, 1.0]).tolist() == [
        0.0,
        0.0,
    ]  # at the start
    for bad in (0.0, 1.5, -0.1):
        with pytest.raises(ValueError, match="fraction"):
            dy.learning_times(t, s, [2.0, 1.0], fraction=bad)
    with pytest.raises(ValueError, match="t"):
        dy.learning_times(t[::-1], s, [2.0, 1.0])
    with pytest.raises(ValueError, match="lam"):
        dy.learning_times(t, s, [2.0, 0.0])


def test_half_time_midpoint_and_sharpness_against_the_sigmoid():
    from qwem_lib.qwem.theory import aligned_sigmoid

    lam, s0 = 2.0, 1e-3
    th = dy.half_time(lam, s0)
    assert aligned_sigmoid(lam, s0, th) == pytest.approx(lam / 2, rel=1e-12)
    assert dy.midpoint_ratio(lam, s0) == pytest.approx(
        aligned_sigmoid(lam, s0, np.log(lam / s0) / lam) / lam, rel=1e-12
    )
    np.testing.assert_allclose(
        dy.half_time(np.array([1.0, 2.0]), 0.1), [np.log(9.0), np.log(19.0) / 2]
    )
    with pytest.raises(ValueError, match="below lam/2"):
        dy.half_time(2.0, 1.0)
    t = np.linspace(0, 20, 20001)
    s = aligned_sigmoid(lam, s0, t)[:, None]
    sh = dy.step_sharpness(t, s, [lam])
    for key, f in (
        ("t_lo", 0.1),
        ("t_mid", 0.5),
        ("t_hi", 0.9),
    ):  # the sigmoid's exact crossing times
        exact = np.log(f * (lam - s0) / (s0 * (1 - f))) / lam
        assert sh[key][0] == pytest.approx(exact, abs=2e-3)
    assert sh["sharpness"][0] == pytest.approx(dy.sigmoid_sharpness(lam, s0), rel=1e-3)
    assert dy.sigmoid_sharpness(lam, s0) == pytest.approx(np.log((lam - s0) / s0) / np.log(81))
    assert dy.sigmoid_sharpness(lam, s0, lo=0.2, hi=0.7) == pytest.approx(
        np.log((lam - s0) / s0) / (np.log(0.7 / 0.3) - np.log(0.2 / 0.8))
    )
    for lo, hi in ((0.0, 0.9), (0.5, 0.9), (0.1, 0.5), (0.1, 1.0)):
        with pytest.raises(ValueError, match="lo|hi"):
            dy.sigmoid_sharpness(lam, s0, lo=lo, hi=hi)
    with pytest.raises(ValueError, match="below end/2"):
        dy.sigmoid_sharpness(2.0, 1.0)


def test_gap_exponent_and_pair_condition_by_hand():
    assert dy.gap_exponent([4.0, 3.0, 1.0], 2) == pytest.approx(0.5 * 0.25)  # min(1, 1/4, 2/3)
    assert dy.gap_exponent([4.0, 3.0, 1.0], 1) == pytest.approx(0.5 * 0.25)  # mode 1 against mode 2
    assert (
        dy.gap_exponent([4.0, -1.0], 1) == 0.5
    )  # a non-positive next eigenvalue contributes nothing
    assert dy.gap_exponent([4.0], 1) == 0.5
    with pytest.raises(ValueError, match="at least d=3"):
        dy.gap_exponent([4.0, 3.0], 3)
    with pytest.raises(ValueError, match="non-increasing"):
        dy.gap_exponent([3.0, 4.0], 1)
    rhs = lambda a, b: -(a * b / (a - b)) * np.log(b / (a - b))  # noqa: E731
    best, pair = dy.pair_condition_threshold([5.0, 4.0, 1.0])
    cands = {(0, 1): rhs(5, 4), (0, 2): rhs(5, 1), (1, 2): rhs(4, 1)}
    assert pair == min(cands, key=cands.get) and best == pytest.approx(min(cands.values()))
    with pytest.raises(ValueError, match="strictly decreasing"):
        dy.pair_condition_threshold([2.0, 2.0])


def test_synthetic_target_has_the_spectrum_asked_for():
    rng = np.random.default_rng(0)
    M, lam, Q = dy.synthetic_target([5.0, 3.0, 2.0], 8, rng, bulk=1.0)
    np.testing.assert_allclose(M, M.T)
    np.testing.assert_allclose(Q.T @ Q, np.eye(8), atol=1e-12)
    np.testing.assert_allclose(M @ Q, Q * lam, atol=1e-12)
    assert lam[:3].tolist() == [5.0, 3.0, 2.0] and np.all(np.abs(lam[3:]) <= 1.0)
    assert np.all(np.diff(lam) <= 0)
    np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(M))[::-1], lam, atol=1e-12)
    M0, lam0, _ = dy.synthetic_target([5.0, 3.0], 4, np.random.default_rng(1))
    assert np.allclose(lam0[2:], 0.0)  # bulk 0: zeros
    full, lamf, _ = dy.synthetic_target([3.0, 2.0, 1.0], 3, np.random.default_rng(2), bulk=5.0)
    assert lamf.tolist() == [3.0, 2.0, 1.0]  # no bulk to stay above
    for top, bulk, match in (
        ([3.0, 3.0], 0.0, "strictly decreasing"),
        ([3.0, 0.5], 1.0, "above bulk"),
        ([1.0] * 5, 0.0, "at most V=4"),
    ):
        with pytest.raises(ValueError, match=match):
            dy.synthetic_target(top, 4, np.random.default_rng(0), bulk=bulk)
    with pytest.raises(ValueError, match="bulk"):
        dy.synthetic_target([3.0], 4, np.random.default_rng(0), bulk=-1.0)


def test_factorisation_gradient_against_finite_differences_in_numpy_and_torch():
    rng = np.random.default_rng(4)
    A = rng.standard_normal((5, 5))
    M, W = (A + A.T) / 2, rng.standard_normal((5, 2))
    loss = lambda X: 0.25 * np.sum((X @ X.T - M) ** 2)  # noqa: E731
    g = np.zeros_like(W)
    for i in range(5):
        for j in range(2):
            E = np.zeros_like(W)
            E[i, j] = 1e-6
            g[i, j] = (loss(W + E) - loss(W - E)) / 2e-6
    np.testing.assert_allclose(dy.factorisation_gradient(W, M), g, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(
        dy.factorisation_gradient(torch.as_tensor(W), torch.as_tensor(M)).numpy(),
        g,
        rtol=1e-6,
        atol=1e-8,
    )
    with pytest.raises(ValueError):
        dy.factorisation_gradient(W[:4], M)


def test_solve_flow_ivp_and_aligned_starts_by_hand():
    lam, s0 = np.array([2.0, 1.0]), np.array([0.1, 0.05])
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((4, 4)))[0]
    M = (Q * np.array([2.0, 1.0, 0.0, -0.5])) @ Q.T
    O = np.array([[0.0, 1.0], [1.0, 0.0]])
    W0 = dy.aligned_init(Q[:, :2], s0, O)
    np.testing.assert_allclose(W0, (Q[:, :2] * s0) @ O.T)
    t = np.array([0.0, 1.0, 3.0])
    W = dy.solve_flow_ivp(M, W0, t, time_scale=0.5)
    # aligned: W(t) = Q_d diag(s(t)) O^T with s_k^2(t) Lemma 3.1's sigmoid at the paper's time t
    s2 = dy.aligned_singular_values(lam, s0**2, t)
    assert s2.shape == (3, 2)
    for i in range(3):
        np.testing.assert_allclose(W[i], (Q[:, :2] * np.sqrt(s2[i])) @ O.T, atol=1e-9)
    for bad in (dict(time_scale=0.0), dict(rtol=0.0), dict(atol=-1.0)):
        with pytest.raises(ValueError):
            dy.solve_flow_ivp(M, W0, t, **bad)
    with pytest.raises(ValueError, match="t_eval"):
        dy.solve_flow_ivp(M, W0, t[::-1])
    with pytest.raises(ValueError, match="orthogonal"):
        dy.aligned_init(Q[:, :2], s0, 2 * O)
    with pytest.raises(ValueError, match="d = len"):
        dy.aligned_init(Q[:, :3], s0)
    np.testing.assert_allclose(
        dy.aligned_init(Q[:, :2], [0.0, 1.0]), Q[:, :2] * [0.0, 1.0]
    )  # zero allowed
    assert dy.midpoint_ratio(2.0, 0.5) == pytest.approx(2.0 / 3.5)
    with pytest.raises(ValueError, match="below lam"):
        dy.midpoint_ratio(1.0, 1.0)


def test_triangular_factor_and_matched_values_by_gram_schmidt():
    """L from Gram-Schmidt on A's rows in order, written out here: L_kk the norm of row k's part
    orthogonal to rows 1..k-1, L_kj its coefficients along the earlier orthonormal directions."""
    rng = np.random.default_rng(5)
    A = rng.standard_normal((3, 3))
    basis, L = [], np.zeros((3, 3))
    for k in range(3):
        r = A[k].copy()
        for j, e in enumerate(basis):
            L[k, j] = r @ e
            r = r - L[k, j] * e
        L[k, k] = np.linalg.norm(r)
        basis.append(r / L[k, k])
    np.testing.assert_allclose(dy.triangular_factor(A), L, atol=1e-12)
    stack = np.stack([A, 2 * A])
    np.testing.assert_allclose(dy.triangular_factor(stack), np.stack([L, 2 * L]), atol=1e-12)
    Q = np.linalg.qr(rng.standard_normal((6, 3)))[0]
    s0, R = dy.matched_initial_singular_values(Q @ A, Q)
    np.testing.assert_allclose(s0, np.diag(L), atol=1e-12)
    np.testing.assert_allclose(L @ R.T, A, atol=1e-12)  # A = L R^T with R orthogonal
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    with pytest.raises(ValueError, match="square"):
        dy.triangular_factor(A[:, :2])
    with pytest.raises(ValueError, match="vecs must be"):
        dy.matched_initial_singular_values(Q @ A, Q[:, :2])


def test_offdiagonal_exponents_fit_the_smaller_half_only():
    s2 = np.logspace(-8, -2, 7)
    size = np.stack([3.0 * s2**0.25, 0.5 * s2**0.75], axis=1)
    np.testing.assert_allclose(dy.offdiagonal_exponents(s2, size), [0.25, 0.75], atol=1e-12)
    bent = size.copy()
    bent[-3:] *= np.array([2.0, 4.0, 8.0])[:, None]  # a kink above the geometric middle
    np.testing.assert_allclose(dy.offdiagonal_exponents(s2, bent), [0.25, 0.75], atol=1e-12)
    assert not np.allclose(dy.offdiagonal_exponents(s2, bent, smaller_half=False), [0.25, 0.75])
    assert dy.offdiagonal_exponents(s2, 2 * s2**0.5).shape == ()
    with pytest.raises(ValueError, match="one row per sigma_sq"):
        dy.offdiagonal_exponents(s2, size[:3])
    with pytest.raises(ValueError, match="fewer than two"):
        dy.offdiagonal_exponents([1e-4, 1.0], [1.0, 2.0])


def test_alignment_distance_is_the_procrustes_minimum():
    """Against a brute-force minimum over rotations in d = 2 (a fine grid of angles and both
    reflections), plus the residual outside the top-d space."""
    rng = np.random.default_rng(6)
    A, s = rng.standard_normal((2, 2)), np.array([1.5, 0.4])
    best = np.inf
    for th in np.linspace(0, 2 * np.pi, 20001):
        for refl in (1, -1):
            O = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]) @ np.diag([1, refl])
            best = min(best, np.sum((A - s[:, None] * O) ** 2))
    got = dy.alignment_distance(A, 0.3, s)
    assert got == pytest.approx(np.sqrt(best + 0.3), rel=1e-6)
    assert dy.alignment_distance(A, -1e-18, s) == pytest.approx(np.sqrt(best), rel=1e-6)  # no NaN
    stack = dy.alignment_distance(np.stack([A, A]), np.array([0.3, 0.0]), np.stack([s, s]))
    np.testing.assert_allclose(stack, [np.sqrt(best + 0.3), np.sqrt(best)], rtol=1e-6)


def test_random_init_sweep_wires_its_pieces_as_documented():
    """Every field of a small sweep against the function it is documented to come from: the
    characteristic time, the matched starts, the common grid in units of tau_1 with its default end, the
    aligned sigmoids, the learning times and the alignment distance (with the full basis too)."""
    from qwem_lib.qwem.theory import characteristic_time

    rng = np.random.default_rng(7)
    M, lam, Q = dy.synthetic_target([3.0, 1.5], 6, rng, bulk=0.2)
    Z = rng.standard_normal((6, 2))
    sig2 = np.array([1e-4, 1e-6])
    r = dy.random_init_sweep(M, lam, Q, 2, sig2, Z, n_records=25, progress=False, device="cpu")
    np.testing.assert_allclose(r.tau1, characteristic_time(3.0, sig2))
    for b, s2 in enumerate(sig2):
        s0, _ = dy.matched_initial_singular_values(np.sqrt(s2) * Z, Q[:, :2])
        np.testing.assert_allclose(r.s0_sq[b], s0**2)
    ext = 10.0 / 1.5
    t_end = max(
        (dy.half_time(1.5, min(r.s0_sq[b, -1], 1.5 / 4)) + ext) / r.tau1[b] for b in range(2)
    )
    np.testing.assert_allclose(r.traj.times, np.linspace(0, t_end, 25))
    np.testing.assert_allclose(r.traj.flow_times, r.tau1[:, None] * r.traj.times[None])
    for b in range(2):
        al = dy.aligned_singular_values(lam[:2], r.s0_sq[b], r.traj.flow_times[b])
        np.testing.assert_allclose(r.s_aligned_sq[b], al)
        np.testing.assert_allclose(
            r.learn[b], dy.learning_times(r.traj.times, r.traj.sv[b] ** 2, lam[:2])
        )
        np.testing.assert_allclose(r.learn_theory[b], dy.learning_times(r.traj.times, al, lam[:2]))
        dist = dy.alignment_distance(r.traj.proj[b], r.traj.resid_sq[b], np.sqrt(al)) / np.sqrt(4.5)
        np.testing.assert_allclose(r.distance[b], dist)
    typ = dy.random_init_sweep(M, lam, Q, 2, sig2, Z, n_records=5, s0_rule="typical", t_end=2.0,
                               progress=False, device="cpu")  # fmt: skip
    np.testing.assert_allclose(typ.s0_sq, np.repeat((sig2 * 6)[:, None], 2, axis=1))
    assert typ.traj.times[-1] == 2.0
    full = dy.random_init_sweep(M, lam, Q, 2, sig2[:1], Z, n_records=5, t_end=2.0, full_basis=True,
                                progress=False, device="cpu")  # fmt: skip
    assert full.traj.proj.shape[-2] == 6  # projections on all six eigenvectors
    part = dy.random_init_sweep(
        M, lam, Q, 2, sig2[:1], Z, n_records=5, t_end=2.0, progress=False, device="cpu"
    )
    np.testing.assert_allclose(full.distance, part.distance, rtol=1e-9, atol=1e-12)  # same distance
    for kw, match in ((dict(s0_rule="median"), "s0_rule"), (dict(n_records=1), "n_records"),
                      (dict(Z=Z[:, :1]), "Z must be"), (dict(steps_per_unit=0.0), "steps_per_unit")):  # fmt: skip
        args = (
            dict(M=M, lam=lam, vecs=Q, d=2, sigma_sq=sig2, Z=Z, progress=False, device="cpu") | kw
        )
        with pytest.raises(ValueError, match=match):
            dy.random_init_sweep(**args)
    with pytest.raises(ValueError, match="positive"):
        dy.random_init_sweep(M, np.array([3.0, -1.0, 0, 0, 0, 0]), Q, 2, sig2, Z, progress=False)


def test_random_init_sweep_with_three_modes_and_its_checks():
    """With d = 3 the last mode (index -1) is not the second (index 1): the default end time follows
    mode d's half time and 10/lambda_d; every argument check names its argument."""
    rng = np.random.default_rng(3)
    M, lam, Q = dy.synthetic_target([3.0, 2.0, 0.8], 7, rng, bulk=0.1)
    Z = rng.standard_normal((7, 3))
    sig2 = np.array([1e-4])
    r = dy.random_init_sweep(M, lam, Q, 3, sig2, Z, n_records=6, progress=False, device="cpu")
    t_end = (dy.half_time(0.8, min(r.s0_sq[0, -1], 0.8 / 4)) + 10.0 / 0.8) / r.tau1[0]
    np.testing.assert_allclose(r.traj.times[-1], t_end)
    ext = dy.random_init_sweep(
        M, lam, Q, 3, 1e-4, Z, n_records=6, extra_time=2.0, progress=False, device="cpu"
    )
    t_end2 = (dy.half_time(0.8, min(ext.s0_sq[0, -1], 0.8 / 4)) + 2.0) / ext.tau1[0]
    np.testing.assert_allclose(ext.traj.times[-1], t_end2)  # a scalar sigma_sq is one run
    assert ext.sigma_sq.shape == (1,) and ext.tau1.shape == (1,)
    one = dy.random_init_sweep(
        M, lam, Q, 1, sig2, Z[:, :1], n_records=2, t_end=1.0, progress=False, device="cpu"
    )
    assert one.s0_sq.shape == (1, 1) and one.traj.times.tolist() == [
        0.0,
        1.0,
    ]  # d = 1 and 2 records
    for kw, match in (
        (dict(lam=lam[None]), "^lam must be"),
        (dict(vecs=Q[None]), "^vecs must be"),
        (dict(Z=Z[None]), "^Z must be"),
        (dict(sigma_sq=np.ones((1, 1)) * 1e-4), "^sigma_sq must be"),
        (dict(d=0), "^d must be"),
        (dict(d=8), "^d must be"),
        (dict(lam=np.array([3.0, 2.0, 0.0, 0, 0, 0, 0])), "top-d eigenvalues must be positive"),
    ):
        args = (
            dict(M=M, lam=lam, vecs=Q, d=3, sigma_sq=sig2, Z=Z, progress=False, device="cpu") | kw
        )
        with pytest.raises(ValueError, match=match):
            dy.random_init_sweep(**args)


def test_helpers_at_their_edges():
    with pytest.raises(ValueError, match="^W must"):
        dy.factorisation_gradient(np.ones((3, 1)), np.eye(4))
    with pytest.raises(ValueError, match="non-increasing with a positive first entry"):
        dy.gap_exponent([0.0, -1.0], 1)
    assert dy.gap_exponent([0.5, 0.25], 1) == pytest.approx(
        0.25
    )  # a first eigenvalue below 1 is fine
    assert dy.gap_exponent([2.0, 2.0, 1.0], 2) == 0.0  # equal eigenvalues are allowed (no gap)
    assert dy.gap_exponent([4.0, 1.0, 0.9], 2) == pytest.approx(0.05)  # the last pair sets it
    assert dy.half_time(1.0, 0.4) == pytest.approx(np.log(0.6 / 0.4))  # any start below lam/2
    assert dy.sigmoid_sharpness(1.0, 0.4) == pytest.approx(np.log(0.6 / 0.4) / np.log(81))
    best, pair = dy.pair_condition_threshold([2.0, 1.0])  # two eigenvalues are enough
    assert pair == (0, 1) and best == pytest.approx(-2.0 * np.log(1.0))
    # a start with no component along one mode: its sign is taken as +1 and R stays orthogonal
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((5, 5)))[0][:, :2]
    W0 = Q @ np.array([[1.0, 0.0], [0.0, 0.0]])
    s0, R = dy.matched_initial_singular_values(W0, Q)
    np.testing.assert_allclose(R.T @ R, np.eye(2), atol=1e-12)
    assert s0.tolist() == pytest.approx([1.0, 0.0])
    L = dy.triangular_factor(np.array([[1.0, 0.0], [0.0, 0.0]]))
    assert np.all(np.isfinite(L)) and L[0, 0] == pytest.approx(1.0) and L[1, 1] == 0.0
    t = np.array([0.0, 1.0, 1.0, 2.0])  # a repeated time is allowed
    sh = dy.step_sharpness(t, np.array([[0.0], [0.3], [0.6], [1.0]]), [1.0])
    assert sh["t_mid"][0] == 1.0  # crossed between the two records at t = 1
    for bad, match in (
        (dict(s_sq=np.ones(4)), "s_sq"),
        (dict(s_sq=np.ones((3, 1))), "s_sq"),
        (dict(end=[1.0, 2.0]), "end"),
        (dict(end=[[1.0]]), "end"),
    ):
        kw = dict(t=t, s_sq=np.ones((4, 1)), end=[1.0]) | bad
        with pytest.raises(ValueError, match=match):
            dy.step_sharpness(**kw)
    with pytest.raises(ValueError, match="^W0 must"):
        dy.solve_flow_ivp(np.eye(3), np.ones((2, 1)), [0.0, 1.0])
    with pytest.raises(ValueError, match="^atol"):
        dy.solve_flow_ivp(np.eye(3), np.ones((3, 1)), [0.0, 1.0], atol=0.0)


# --- edges found by mutation testing (issue 45) ------------------------------------------------
def test_flow_checks_symmetry_with_an_absolute_tolerance():
    W0 = np.ones((2, 1)) * 0.1
    # a relative asymmetry of 1e-6 is refused (no relative slack) ...
    with pytest.raises(ValueError, match="M must be symmetric"):
        dy.train_factorisation(
            np.array([[1.0, 1.0 + 1e-6], [1.0, 1.0]]), W0, [0, 1], dt=0.1, progress=False
        )
    # ... and so is 1.5e-12 at scale 1 (the floor of the scale is 1, not more)
    with pytest.raises(ValueError, match="M must be symmetric"):
        dy.train_factorisation(
            np.array([[1.0, 1.5e-12], [0.0, 1.0]]), W0, [0, 1], dt=0.1, progress=False
        )


def test_one_short_gap_is_one_euler_step():
    """A gap shorter than dt is one step of size gap: W1 = W0 + c·h·(M − W0W0ᵀ)W0 exactly."""
    M = np.array([[2.0, 0.3], [0.3, 1.0]])
    W0 = np.array([[0.3], [0.2]])
    tr = dy.train_factorisation(
        M, W0, [0.0, 0.05], dt=0.1, method="gd", keep_W=True, progress=False
    )
    expect = W0 + dy.FLOW_TIME_SCALE * 0.05 * (M - W0 @ W0.T) @ W0
    np.testing.assert_allclose(tr.W[-1], expect, rtol=1e-14)
    assert tr.info["steps"] == 1


def test_train_factorisation_basis_options():
    M, lam, Q, rng = small_problem()
    W0 = 0.1 * rng.standard_normal((12, 2))
    tr = dy.train_factorisation(M, W0, [0, 1], dt=0.1, basis=Q[:, :2], progress=False)
    assert tr.proj is not None and tr.left_overlap is None  # left_overlap is off by default
    tr32 = dy.train_factorisation(
        M, W0, [0, 1], dt=0.1, basis=Q[:, :2], dtype=torch.float32, progress=False, device="cpu"
    )
    assert tr32.proj.dtype == np.float32  # the basis follows the flow's dtype
    np.testing.assert_allclose(tr32.proj, tr.proj, rtol=1e-4, atol=1e-6)


def test_factorisation_gradient_checks_numpy_inputs():
    M = [[1.0, 0.0], [0.0, 1.0]]  # a list is checked as well
    with pytest.raises(ValueError, match="W"):
        dy.factorisation_gradient(np.array([[np.nan], [1.0]]), M)
    with pytest.raises(ValueError, match="W"):
        dy.factorisation_gradient(np.ones(2), np.eye(2))
    with pytest.raises(ValueError, match="W"):
        dy.factorisation_gradient(np.ones((3, 1)), np.eye(2))


def test_aligned_init_and_singular_value_inputs():
    vecs = np.eye(3)[:, :2]
    with pytest.raises(ValueError, match="vecs"):
        dy.aligned_init(np.ones(3), [1.0])
    th = np.pi / 7
    O = np.array([[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]])
    np.testing.assert_allclose(
        dy.aligned_init(vecs, [2.0, 1.0], O), vecs @ np.diag([2.0, 1.0]) @ O.T
    )
    with pytest.raises(ValueError, match="orthogonal"):
        dy.aligned_init(vecs, [2.0, 1.0], np.array([[1.0, 5e-9], [0.0, 1.0]]))  # OᵀO off by 5e-9
    # a scalar start applies to every mode; an empty time axis gives an empty result
    np.testing.assert_allclose(
        dy.aligned_singular_values([2.0, 1.0], 1e-3, [1.0]),
        dy.aligned_singular_values([2.0, 1.0], [1e-3, 1e-3], [1.0]),
    )
    assert dy.aligned_singular_values([2.0, 1.0], 1e-3, np.array([])).shape == (0, 2)


def test_zero_pivots_keep_the_rotation_orthogonal():
    """A zero row of A = Q_dᵀW0 gives a zero pivot; the rotation must stay orthogonal and L Lᵀ = A Aᵀ."""
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(5, 2)))[0]
    W0 = np.column_stack([np.zeros(5), Q @ [1.0, 2.0]])  # a zero column: A has a zero column
    s0, R = dy.matched_initial_singular_values(W0, Q)
    np.testing.assert_allclose(R.T @ R, np.eye(2), atol=1e-12)
    A = np.array([[0.0, 0.0], [1.0, 2.0]])
    L = dy.triangular_factor(A)
    np.testing.assert_allclose(L @ L.T, A @ A.T, atol=1e-12)
    with pytest.raises(ValueError, match=r"vecs must be V×d = 5×2"):
        dy.matched_initial_singular_values(W0, Q[:, :1])
    with pytest.raises(ValueError, match="vecs"):
        dy.matched_initial_singular_values(W0, np.ones(5))


def test_small_analysis_helpers_at_their_edges():
    assert dy.gap_exponent([2.0, 1.0], 1) == pytest.approx(0.25)  # mode 1 against mode 2 counts
    assert dy.gap_exponent([0.5, 0.5], 1) == 0.0  # ties are allowed (no gap: exponent 0)
    with pytest.raises(ValueError, match="positive first entry"):
        dy.gap_exponent([0.0, -1.0], 1)
    assert dy.half_time(1.0, 0.4) == pytest.approx(np.log(1.5))  # just below λ/2 is allowed
    assert dy.sigmoid_sharpness(2.5, 1.0) == pytest.approx(np.log(1.5) / np.log(81))
    assert dy.pair_condition_threshold([2.0, 1.0])[1] == (0, 1)  # two eigenvalues are enough
    # σ² exactly at the geometric middle of the range is fitted (≤, not <)
    s2 = np.array([1 / 16, 1 / 4, 1.0])
    assert dy.offdiagonal_exponents(s2, s2**0.5) == pytest.approx(0.5)


def test_learning_times_inputs_and_a_mode_that_never_arrives():
    t = np.array([0.0, 1.0, 1.0, 2.0])  # repeated times are allowed
    s_sq = np.array([[0.0, 0.0], [0.1, 0.2], [0.1, 0.6], [0.2, 1.0]])
    out = dy.learning_times(t, s_sq, [1.0, 1.0])
    assert np.isnan(out[0]) and out[1] == pytest.approx(1.0)  # the first mode never gets there
    with pytest.raises(ValueError, match="s_sq"):
        dy.learning_times(t, s_sq[:, 0], [1.0])
    with pytest.raises(ValueError, match="s_sq"):
        dy.learning_times(t, s_sq[:3], [1.0, 1.0])
    with pytest.raises(ValueError, match="lam"):
        dy.learning_times(t, s_sq, [[1.0, 1.0]])
    with pytest.raises(ValueError, match="lam"):
        dy.learning_times(t, s_sq, [1.0])
    sh = dy.step_sharpness(t, s_sq, [1.0, 1.0])
    assert np.isnan(sh["t_mid"][0])
    with pytest.raises(ValueError, match="s_sq"):
        dy.step_sharpness(t, s_sq[:, 0], [1.0])
    with pytest.raises(ValueError, match="s_sq"):
        dy.step_sharpness(t, s_sq[:3], [1.0, 1.0])
    with pytest.raises(ValueError, match="end"):
        dy.step_sharpness(t, s_sq, [[1.0, 1.0]])
    with pytest.raises(ValueError, match="end"):
        dy.step_sharpness(t, s_sq, [1.0])


def test_synthetic_target_edges():
    rng = np.random.default_rng(0)
    M, lam, Q = dy.synthetic_target([3.0], 2, rng)  # V = 2 is allowed
    assert M.shape == (2, 2)
    with pytest.raises(ValueError, match="V"):
        dy.synthetic_target([3.0], 1, rng)
    with pytest.raises(ValueError, match=r"smallest top eigenvalue \(1\.0\)"):
        dy.synthetic_target([3.0, 2.0, 1.0], 6, rng, bulk=1.5)
    with pytest.raises(ValueError, match="above bulk"):
        dy.synthetic_target([3.0, 1.0], 6, rng, bulk=1.0)  # equal to the bulk edge
    _, lam, _ = dy.synthetic_target([3.0], 60, rng, bulk=0.5)
    assert lam[1:].min() < 0 < lam[1:].max()  # the bulk fills [−bulk, bulk]


def test_solve_flow_ivp_checks_w0():
    M, lam, Q, rng = small_problem()
    for bad in (np.ones(12), np.ones((11, 2))):
        with pytest.raises(ValueError, match="W0"):
            dy.solve_flow_ivp(M, bad, [0.0, 1.0])
    with pytest.raises(ValueError, match="atol"):
        dy.solve_flow_ivp(M, np.ones((12, 1)), [0.0, 1.0], atol=0.0)


def test_random_init_sweep_large_start_step_and_what_reaches_the_flow():
    """A start so large that mode d's matched s0² exceeds λ_d/4: the default end uses the half time from
    λ_d/4, ln(3)/λ_d. The step is 1/(steps_per_unit·λ₁) in the paper's time for the slowest run; the flow
    records the left overlaps and runs in the dtype asked."""
    rng = np.random.default_rng(5)
    M, lam, Q = dy.synthetic_target([3.0, 2.0, 0.8], 7, rng, bulk=0.1)
    Z = rng.standard_normal((7, 3))
    sig2 = np.array([0.4])
    r = dy.random_init_sweep(M, lam, Q, 3, sig2, Z, n_records=4, progress=False, device="cpu")
    assert r.s0_sq[0, -1] > 0.8 / 4  # the clamp is active
    t_end = (np.log(3.0) / 0.8 + 10.0 / 0.8) / r.tau1[0]
    np.testing.assert_allclose(r.traj.times[-1], t_end, rtol=1e-12)
    assert r.traj.info["dt"] * r.tau1.max() == pytest.approx(1.0 / (4.0 * 3.0), rel=1e-12)
    assert r.traj.left_overlap is not None and r.traj.left_overlap.shape[-2:] == (3, 3)
    r32 = dy.random_init_sweep(
        M,
        lam,
        Q,
        3,
        1e-4,
        Z,
        n_records=3,
        t_end=1.0,
        dtype=torch.float32,
        progress=False,
        device="cpu",
        steps_per_unit=2.0,
    )
    assert r32.traj.sv.dtype == np.float32
    assert r32.traj.info["dt"] * r32.tau1.max() == pytest.approx(1.0 / (2.0 * 3.0), rel=1e-12)
