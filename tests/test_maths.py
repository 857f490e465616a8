"""Unit tests for qwem_lib.maths (linalg and stats), each against an independent computation: SciPy's
principal angles and eigensolver, dense projectors, plain loops, order statistics worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from scipy.stats import spearmanr

from qwem_lib.maths import linalg as la
from qwem_lib.maths import stats as st


def _pair(V: int = 30, a: int = 3, b: int = 5, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two random matrices whose column spaces share one direction (so the angles are spread out)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((V, a))
    B = rng.standard_normal((V, b))
    B[:, 0] = A @ rng.standard_normal(a)
    return A, B


# -- principal angles ---------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [(3, 5), (5, 3), (4, 4), (1, 6)])
def test_principal_angles_match_scipy(a, b):
    A, B = _pair(a=a, b=b, seed=a + 10 * b)
    theta = scipy.linalg.subspace_angles(A, B)  # descending angles, an independent algorithm
    cos = np.sort(np.cos(theta))[::-1]
    np.testing.assert_allclose(la.principal_cosines(A, B), cos, atol=1e-12)
    assert la.subspace_overlap(A, B) == pytest.approx(np.mean(cos**2), abs=1e-12)
    # sin θ from its cosine: near θ = 0 a rounding δ of the cosine gives sin θ ≈ √(2δ), about 1e-8 (SciPy
    # switches to sines there; the book's measures never need more than that)
    assert la.subspace_sine(A, B) == pytest.approx(math.sin(theta.max()), abs=1e-7)
    assert la.principal_cosines(A, B)[0] == pytest.approx(1.0, abs=1e-12)  # the shared direction


def test_principal_angles_of_hand_worked_subspaces():
    e = np.eye(5)
    A = e[:, :2]
    assert la.subspace_overlap(A, A @ np.array([[1.0, 2.0], [3.0, 1.0]])) == pytest.approx(1.0)
    assert la.subspace_overlap(A, e[:, 2:4]) == pytest.approx(0.0)
    th = 0.3
    u = np.array([[math.cos(th)], [math.sin(th)], [0.0], [0.0], [0.0]])
    assert la.subspace_sine(e[:, :1], u) == pytest.approx(math.sin(th), abs=1e-12)
    # v at angle θ from span(e1, e2); e5 orthogonal to it
    v = math.cos(th) * e[:, 0] + math.sin(th) * e[:, 2]
    np.testing.assert_allclose(
        la.principal_cosines(e[:, :2], np.c_[v, e[:, 4]]), [math.cos(th), 0.0], atol=1e-15
    )
    # containment: the narrower space inside the wider one has every angle zero (to √δ, as above)
    mix = np.array([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 3.0]])  # invertible
    assert la.subspace_sine(e[:, :1], e[:, :3] @ mix) < 1e-7
    assert la.subspace_sine(e[:, 3:4], e[:, :3] @ mix) == pytest.approx(1.0)


def test_subspace_distance_is_the_projectors_spectral_distance():
    A, B = _pair(a=4, b=4, seed=3)
    PA = A @ np.linalg.pinv(A)
    PB = B @ np.linalg.pinv(B)
    assert la.subspace_distance(A, B) == pytest.approx(np.linalg.norm(PA - PB, 2), abs=1e-10)
    e = np.eye(4)
    assert la.subspace_distance(e[:, :2], e[:, [1, 0]] @ np.array([[2.0, 1.0], [0.0, 1.0]])) < 1e-12
    assert la.subspace_distance(e[:, :2], e[:, 2:]) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="same shape"):
        la.subspace_distance(e[:, :1], e[:, :2])


@pytest.mark.parametrize(
    "f", [la.principal_cosines, la.subspace_overlap, la.subspace_sine, la.subspace_distance]
)
def test_principal_angle_measures_refuse_bad_inputs(f):
    with pytest.raises(ValueError):
        f(np.ones((3, 1)), np.ones((4, 1)))  # different rows
    with pytest.raises(ValueError):
        f(np.array([[1.0], [np.nan], [0.0]]), np.ones((3, 1)))
    with pytest.raises(ValueError):
        f(np.ones(3), np.ones((3, 1)))


# -- eigenpairs, unit rows, the constant direction ------------------------------------------------------
def test_eig_desc_matches_scipy_and_refuses_a_nonsymmetric_matrix():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((7, 7))
    M = X + X.T
    lam, U = la.eig_desc(M)
    ref = scipy.linalg.eigh(M, eigvals_only=True)[::-1]
    np.testing.assert_allclose(lam, ref, atol=1e-12)
    assert np.all(np.diff(lam) <= 0)
    np.testing.assert_allclose(U @ np.diag(lam) @ U.T, M, atol=1e-12)
    np.testing.assert_allclose(U.T @ U, np.eye(7), atol=1e-12)
    N = np.array([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        la.eig_desc(N)
    with pytest.raises(ValueError, match="square"):
        la.eig_desc(np.ones((2, 3)))
    # unchecked, only the lower triangle is read: the eigenvalues of [[1, 0], [0, 1]]
    np.testing.assert_allclose(la.eig_desc(N, check_symmetric=False)[0], [1.0, 1.0])


def test_unit_rows_against_a_loop():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((6, 3))
    ref = np.array([[x / math.sqrt(sum(v * v for v in row)) for x in row] for row in X])
    np.testing.assert_allclose(la.unit_rows(X), ref, rtol=1e-15)
    assert la.unit_rows(X).dtype == np.float64
    X[2] = 0.0
    with pytest.raises(ValueError, match="norm 0"):
        la.unit_rows(X)
    kept = la.unit_rows(X, zero_rows="keep", dtype=np.float32)
    assert kept.dtype == np.float32 and np.all(kept[2] == 0)
    np.testing.assert_allclose(np.delete(kept, 2, 0), np.delete(ref, 2, 0), rtol=1e-6)
    with pytest.raises(ValueError):
        la.unit_rows(np.ones(3))
    with pytest.raises(ValueError):
        la.unit_rows(X, zero_rows="skip")  # type: ignore[arg-type]


def test_constant_overlap_against_the_gram_eigenvector():
    rng = np.random.default_rng(3)
    V = 200
    X = rng.standard_normal((V, 4))
    u = scipy.linalg.eigh(X @ X.T)[1][:, -1]  # the first left singular vector, independently
    assert la.constant_overlap(X) == pytest.approx(u.sum() ** 2 / V, rel=1e-9)
    assert la.constant_overlap(X) < 20 / V  # a random direction: about 1/V
    off = X.copy()
    off[:, 0] += 50.0
    assert la.constant_overlap(off) > 0.99  # the offset is the dominant direction
    with pytest.raises(ValueError):
        la.constant_overlap(np.ones((1, 3)))
    with pytest.raises(ValueError):
        la.constant_overlap(np.array([[1.0, np.inf], [0.0, 1.0]]))


# -- statistics ----------------------------------------------------------------------------------------
def test_gap_se_by_hand():
    assert st.gap_se(0.5, 0.5, 100) == pytest.approx(math.sqrt(0.5 / 100))
    assert st.gap_se(0.0, 1.0, 10) == 0.0
    with pytest.raises(ValueError):
        st.gap_se(1.2, 0.5, 10)
    with pytest.raises(ValueError):
        st.gap_se(0.2, 0.5, 0)


def test_replicate_means_against_a_loop():
    rng = np.random.default_rng(4)
    w = rng.integers(0, 4, size=(5, 9)).astype(float)
    w[:, 0] += 1  # no replicate without weight
    h = rng.random(9) < 0.5
    ref = [sum(wi * hi for wi, hi in zip(row, h)) / sum(row) for row in w]
    np.testing.assert_allclose(st.replicate_means(w, h), ref, rtol=1e-15)
    np.testing.assert_allclose(st.replicate_means(np.ones((1, 9)), h), [h.mean()])
    for bad in (np.ones((5, 8)), -w, np.zeros((2, 9))):
        with pytest.raises(ValueError):
            st.replicate_means(bad, h)
    with pytest.raises(ValueError):
        st.replicate_means(w, np.full(9, np.nan))
    with pytest.raises(TypeError):
        st.replicate_means(w, np.array(["a"] * 9))


def test_bootstrap_gap_against_order_statistics():
    rng = np.random.default_rng(5)
    a = rng.normal(0.6, 0.02, 11)
    b = a - 0.05 + rng.normal(0, 0.01, 11)
    out = st.bootstrap_gap(0.6, 0.55, a, b)
    d = sorted(a - b)
    mean = sum(d) / len(d)
    assert out["gap"] == pytest.approx(0.05, abs=1e-15)
    assert out["se"] == pytest.approx(
        math.sqrt(sum((x - mean) ** 2 for x in d) / len(d)), rel=1e-12
    )
    # the 2.5% and 97.5% points by linear interpolation between order statistics: h = (n − 1) q
    for q, key in ((0.025, "lo"), (0.975, "hi")):
        h = (len(d) - 1) * q
        i = math.floor(h)
        assert out[key] == pytest.approx(d[i] + (h - i) * (d[i + 1] - d[i]), rel=1e-12)
    # paired: a shared shift of every replicate cancels; the interval is the point
    same = st.bootstrap_gap(1.0, 0.5, a, a - 0.5)
    assert same["se"] == pytest.approx(0.0, abs=1e-15)
    assert same["lo"] == pytest.approx(0.5) and same["hi"] == pytest.approx(0.5)
    with pytest.raises(ValueError):
        st.bootstrap_gap(0.6, 0.5, a, b[:5])
    with pytest.raises(ValueError):
        st.bootstrap_gap(0.6, np.nan, a, b)
    with pytest.raises(ValueError):
        st.bootstrap_gap(0.6, 0.5, a, b, quantiles=(0.9, 0.1))


def test_paired_spearman_keeps_shared_noise_shared():
    rng = np.random.default_rng(5)
    x = np.arange(8.0)
    noise = rng.standard_normal((200, 8))
    X = x + noise
    Y = 2 * x + 2 * noise  # the same noise in both: every paired replicate has ρ = 1
    out = st.paired_spearman(x, 2 * x, X, Y)
    assert out["rho"] == pytest.approx(1.0) and out["lo"] == pytest.approx(1.0) and out["m"] == 200
    Y2 = 2 * x + 2 * rng.standard_normal((200, 8))
    ref = np.quantile([spearmanr(a, b).statistic for a, b in zip(X, Y2)], [0.025, 0.975])
    out2 = st.paired_spearman(x, 2 * x, X, Y2)
    assert (out2["lo"], out2["hi"]) == pytest.approx(tuple(ref))
    X[3, 2] = np.nan
    assert st.paired_spearman(x, 2 * x, X, Y2)["m"] == 199
    with pytest.raises(ValueError):
        st.paired_spearman(x, x[:5], X, Y2)


def test_permutation_null_exhaustive_and_sampled():
    n = 5
    null, p = st.permutation_null(lambda q: float(q[0] == 0), n)
    assert null.size == 120 and p == pytest.approx(24 / 120)
    null, p = st.permutation_null(
        lambda q: float(np.all(q == np.arange(9))), 9, n_perm=99, rng=np.random.default_rng(0)
    )
    assert null.size == 99 and p == pytest.approx((1 + null.sum()) / 100)
    with pytest.raises(ValueError):
        st.permutation_null(lambda q: 0.0, 2)
