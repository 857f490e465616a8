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


# -- issue 45: the edges of the statistics' checks, and the rank statistics against independent formulas --
def test_gap_se_uses_each_sides_own_count():
    # two different counts: the variance of each side divides by its own n (a formula by hand)
    assert st.gap_se(0.5, 0.2, 100, 400) == pytest.approx(math.sqrt(0.25 / 100 + 0.16 / 400))
    assert st.gap_se(0.5, 0.2, 100, 400) != pytest.approx(st.gap_se(0.5, 0.2, 100))


def test_replicate_means_accepts_a_row_whose_weights_sum_to_one():
    # the check refuses rows summing to zero, not rows summing to one (the edge of "> 0")
    out = st.replicate_means(np.array([[0.5, 0.5, 0.0]]), np.array([1.0, 3.0, 7.0]))
    np.testing.assert_allclose(out, [2.0])


def test_bootstrap_gap_edges():
    a, b = np.array([0.6, 0.7]), np.array([0.5, 0.5])
    out = st.bootstrap_gap(0.65, 0.5, a, b)  # two replicates: the fewest accepted
    assert out["se"] == pytest.approx(0.05)
    with pytest.raises(ValueError, match="paired replicates"):
        st.bootstrap_gap(0.65, 0.5, a[:1], b[:1])  # one replicate
    with pytest.raises(ValueError, match="paired replicates"):
        st.bootstrap_gap(0.65, 0.5, np.r_[a, 0.8], b)  # shapes differ, both large enough
    # the quantiles' bounds are inclusive at 0 and 1; equal quantiles are refused
    full = st.bootstrap_gap(0.65, 0.5, a, b, quantiles=(0.0, 1.0))
    assert (full["lo"], full["hi"]) == pytest.approx((0.1, 0.2))
    for bad in ((0.5, 0.5), (0.1, 1.5), (-0.1, 0.9)):
        with pytest.raises(ValueError, match="quantiles"):
            st.bootstrap_gap(0.65, 0.5, a, b, quantiles=bad)


def test_paired_spearman_edges_and_skipped_rows():
    rng = np.random.default_rng(8)
    x = np.array([1.0, 2.0, 3.0])  # three units: the fewest accepted
    X, Y = x + rng.normal(size=(50, 3)), x + rng.normal(size=(50, 3))
    assert st.paired_spearman(x, x, X, Y)["m"] <= 50
    with pytest.raises(ValueError, match="length >= 3"):
        st.paired_spearman(x[:2], x[:2], X[:, :2], Y[:, :2])
    with pytest.raises(ValueError, match="same length"):
        st.paired_spearman(np.arange(4.0), np.arange(5.0), X, Y)  # both long enough, lengths differ
    with pytest.raises(ValueError, match=r"\(m, 3\)"):
        st.paired_spearman(x, x, X, Y[:, :2])
    x8 = np.arange(8.0)
    X8, Y8 = x8 + rng.normal(size=(20, 8)), x8 + rng.normal(size=(20, 8))
    Y8[4, 1] = np.nan  # a row non-finite in y_draws only is skipped too
    X8[7, 0] = np.inf
    out = st.paired_spearman(x8, x8, X8, Y8)
    assert out["m"] == 18
    ok = np.r_[np.arange(4), np.arange(5, 7), np.arange(8, 20)]
    ref = np.quantile([spearmanr(a, b).statistic for a, b in zip(X8[ok], Y8[ok])], [0.025, 0.975])
    assert (out["lo"], out["hi"]) == pytest.approx(tuple(ref))
    # one finite row is enough; none is refused
    X1, Y1 = np.full((3, 8), np.nan), np.full((3, 8), np.nan)
    X1[0], Y1[0] = x8, x8[::-1]
    one = st.paired_spearman(x8, x8, X1, Y1)
    assert one["m"] == 1 and one["lo"] == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="no finite"):
        st.paired_spearman(x8, x8, np.full((3, 8), np.nan), Y1)


def test_permutation_null_edges_ties_and_defaults():
    # exhaustive up to and including exhaustive_up_to: every order, the identity among them
    null, p = st.permutation_null(lambda q: float(q[0] == 0), 4, exhaustive_up_to=4)
    assert null.size == 24 and null.dtype == np.float64 and p == pytest.approx(6 / 24)
    # ties count as "at least as high", exhaustively and by sampling: a constant statistic has p = 1
    assert st.permutation_null(lambda q: 1, 5)[1] == 1.0
    null, p = st.permutation_null(lambda q: 1, 9, n_perm=50)
    assert p == 1.0 and null.dtype == np.float64
    # a null value a hair below the observed one (within 1e-12) still counts as a tie
    _, p = st.permutation_null(lambda q: 1.0 - 5e-13, 9, observed=1.0, n_perm=10)
    assert p == 1.0
    _, p = st.permutation_null(lambda q: 1.0 - 5e-12, 9, observed=1.0, n_perm=10)
    assert p == pytest.approx(1 / 11)
    # the sampled orders are permutations; the default generator is default_rng(0); 10,000 by default
    seen = []
    null, _ = st.permutation_null(lambda q: seen.append(np.sort(q)) or 0.0, 9)
    assert null.size == 10_000 and all(np.array_equal(s, np.arange(9)) for s in seen[:50])
    a = st.permutation_null(lambda q: float(q[0]), 9, n_perm=30)[0]
    b = st.permutation_null(lambda q: float(q[0]), 9, n_perm=30, rng=np.random.default_rng(0))[0]
    np.testing.assert_array_equal(a, b)
    # sizes at their edges
    assert st.permutation_null(lambda q: 0.0, 3)[0].size == 6
    assert st.permutation_null(lambda q: 0.0, 9, n_perm=1)[0].size == 1
    with pytest.raises(ValueError, match="n_perm"):
        st.permutation_null(lambda q: 0.0, 9, n_perm=0)


def _partial_by_formula(x, y, z):
    """The first-order partial correlation from the three pairwise Spearman correlations (an identity
    for least squares on z's ranks with an intercept)."""
    rxy, rxz, ryz = (spearmanr(a, b).statistic for a, b in ((x, y), (x, z), (y, z)))
    return (rxy - rxz * ryz) / math.sqrt((1 - rxz**2) * (1 - ryz**2))


def test_partial_spearman_against_the_formula():
    rng = np.random.default_rng(11)
    for n in (4, 9, 40):  # four units: the fewest accepted
        z = rng.normal(size=n)
        x = z + rng.normal(size=n)
        y = -z + 0.5 * x + rng.normal(size=n)
        assert st.partial_spearman(x, y, z) == pytest.approx(
            _partial_by_formula(x, y, z), rel=1e-10
        )
    # x and y driven only by z: their raw ρ is high, the partial one is not
    z = np.arange(60.0)
    x, y = z + rng.normal(0, 6.0, 60), z + rng.normal(0, 6.0, 60)
    assert spearmanr(x, y).statistic > 0.8 and abs(st.partial_spearman(x, y, z)) < 0.3
    with pytest.raises(ValueError, match="length >= 4"):
        st.partial_spearman([1.0, 2, 3], [3.0, 1, 2], [1.0, 2, 3])
    # x with z's ranks (a monotone function of z): refused, not a correlation of rounding errors
    with pytest.raises(ValueError, match="function of z"):
        st.partial_spearman(z + rng.normal(0, 0.01, 60), rng.normal(size=60), z)
    with pytest.raises(ValueError, match="function of z"):
        st.partial_spearman(rng.normal(size=60), np.exp(z / 10), z)


def test_spearman_with_uncertainty_against_scipy_and_an_exact_permutation_test():
    import itertools

    rng = np.random.default_rng(12)
    x, y = rng.normal(size=6), rng.normal(size=6)
    out = st.spearman_with_uncertainty(
        x, y, n_boot=200, n_perm=20_000, rng=np.random.default_rng(1)
    )
    assert out["rho"] == pytest.approx(spearmanr(x, y).statistic, abs=1e-12) and out["n"] == 6
    # the exact one-sided p over all 720 orders of y's ranks (ties of ρ counted as "at least")
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    r0 = np.corrcoef(rx, ry)[0, 1]
    exact = np.mean([np.corrcoef(rx, p)[0, 1] >= r0 - 1e-12 for p in itertools.permutations(ry)])
    assert out["p"] == pytest.approx(exact, abs=0.015)  # 20,000 draws: SE ≤ 0.0036
    assert out["lo"] <= out["rho"] <= out["hi"]
    # monotone data: every resample with spread has ρ = 1; anti-monotone: p = 1
    m = np.arange(10.0)
    mono = st.spearman_with_uncertainty(m, m**3, n_boot=100, n_perm=500)
    assert mono["lo"] == pytest.approx(1.0) and mono["hi"] == pytest.approx(1.0)
    assert mono["p"] == pytest.approx(1 / 501)
    assert st.spearman_with_uncertainty(m, -m, n_boot=20, n_perm=200)["p"] == 1.0
    # the same call twice gives the same numbers (the default generator is seeded)
    assert st.spearman_with_uncertainty(x, y, n_boot=50, n_perm=50) == st.spearman_with_uncertainty(
        x, y, n_boot=50, n_perm=50
    )


def test_spearman_with_uncertainty_draws_add_the_units_own_noise():
    rng = np.random.default_rng(13)
    x = np.arange(12.0)
    y = x + rng.normal(0, 1.0, 12)
    plain = st.spearman_with_uncertainty(x, y, n_boot=1000, n_perm=10, rng=np.random.default_rng(2))
    noisy = st.spearman_with_uncertainty(
        x, y, n_boot=1000, n_perm=10, rng=np.random.default_rng(2),
        x_draws=x + rng.normal(0, 4.0, (300, 12)), y_draws=y + rng.normal(0, 4.0, (300, 12)),
    )  # fmt: skip
    assert noisy["rho"] == plain["rho"]  # the point estimate does not use the draws
    assert noisy["hi"] - noisy["lo"] > 1.5 * (plain["hi"] - plain["lo"])
    # draws that repeat the point estimates change nothing but the random stream
    same = st.spearman_with_uncertainty(
        x, y, n_boot=2000, n_perm=10, x_draws=np.tile(x, (5, 1)), y_draws=np.tile(y, (5, 1))
    )
    assert same["lo"] == pytest.approx(plain["lo"], abs=0.08)
    assert same["hi"] == pytest.approx(plain["hi"], abs=0.08)
    for bad in (np.ones((3, 11)), np.ones(12), np.full((3, 12), np.nan)):
        with pytest.raises(ValueError, match="x_draws"):
            st.spearman_with_uncertainty(x, y, x_draws=bad)
        with pytest.raises(ValueError, match="y_draws"):
            st.spearman_with_uncertainty(x, y, y_draws=bad)
    with pytest.raises(ValueError, match="length >= 4"):
        st.spearman_with_uncertainty(x[:3], y[:3])
    with pytest.raises(ValueError, match="same length"):
        st.spearman_with_uncertainty(x[:5], y[:6])


# -- issue 45: the linear-algebra helpers at their checks' edges ------------------------------------------------
def test_eig_desc_symmetry_tolerance_is_absolute_and_scaled():
    # np.allclose's relative part is no help at a zero entry: there only the scaled absolute tolerance acts
    unit = np.array([[1.0, 0.0], [1.5e-12, 1.0]])  # scale 1: atol 1e-12
    with pytest.raises(ValueError, match="symmetric"):
        la.eig_desc(unit)
    with pytest.raises(ValueError, match="symmetric"):
        la.eig_desc(np.array([[1.0, 0.0], [5e-9, 1.0]]))
    big = np.array([[1e3, 0.0], [5e-10, 1e3]])  # scale 1e3: atol 1e-9, so 5e-10 is rounding
    lam, _ = la.eig_desc(big)
    np.testing.assert_allclose(lam, [1e3, 1e3])


def test_principal_cosines_never_exceed_one_and_refuse_vectors():
    A = np.random.default_rng(21).normal(size=(40, 6))
    cos = la.principal_cosines(A, A @ np.random.default_rng(22).normal(size=(6, 6)))
    assert cos.max() <= 1.0 and cos.min() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="A"):
        la.principal_cosines(A[:, 0], A)
    with pytest.raises(ValueError, match="B"):
        la.principal_cosines(A, A[:, 0])


def test_constant_overlap_and_unit_rows_at_their_edges():
    # two rows: the fewest accepted; the constant vector itself has overlap one
    assert la.constant_overlap(np.array([[1.0], [1.0]])) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="V >= 2"):
        la.constant_overlap(np.array([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="X"):
        la.unit_rows(np.ones(3))  # a vector, not a 2-D array; the message names X
    with pytest.raises(ValueError, match="W"):
        la.unit_rows(np.full((2, 2), np.nan), name="W")


# -- issue 45, second round: what the first mutation run of maths.stats / maths.linalg left alive -----------
def test_the_statistics_refuse_arrays_of_the_wrong_dimension():
    v, M = np.arange(6.0), np.ones((3, 6))
    for call, name, ndim in (
        (lambda: st.bootstrap_gap(0.5, 0.4, M, M), "draws_a", 1),
        (lambda: st.bootstrap_gap(0.5, 0.4, v, M), "draws_b", 1),
        (lambda: st.paired_spearman(M, v, M, M), "x", 1),
        (lambda: st.paired_spearman(v, M, M, M), "y", 1),
        (lambda: st.paired_spearman(v, v, v, M), "x_draws", 2),
        (lambda: st.paired_spearman(v, v, M, v), "y_draws", 2),
        (lambda: st.spearman_with_uncertainty(M, v), "x", 1),
        (lambda: st.spearman_with_uncertainty(v, M), "y", 1),
    ):
        with pytest.raises(ValueError, match=rf"^{name} must be {ndim}-D"):
            call()
    with pytest.raises((ValueError, TypeError), match=r"^y_draws\b"):
        st.paired_spearman(v, v, M, np.array([["a"] * 6] * 3))


def test_error_messages_say_what_is_wrong():
    with pytest.raises(ValueError, match="n must be an integer >= 3"):
        st.permutation_null(lambda q: 0.0, 2)
    with pytest.raises(ValueError, match=r"need weights \(m, n\)"):
        st.replicate_means(np.ones((2, 3)), np.ones(4))
    with pytest.raises(ValueError, match=r"^A and B must have the same number of rows"):
        la.principal_cosines(np.ones((4, 2)), np.ones((5, 2)))
    with pytest.raises(ValueError, match="zero_rows must be 'raise' or 'keep'"):
        la.unit_rows(np.ones((2, 2)), zero_rows="drop")
    with pytest.raises(ValueError, match=r"^X must be 2-D"):
        la.unit_rows(np.ones(3))


def test_permutation_null_keeps_a_float_null_and_uses_the_given_generator():
    null, _ = st.permutation_null(lambda q: int(q[0] == 0), 4)  # an integer statistic, exhaustive
    assert null.dtype == np.float64
    a = st.permutation_null(lambda q: float(q[0]), 9, n_perm=30, rng=np.random.default_rng(5))[0]
    b = st.permutation_null(lambda q: float(q[0]), 9, n_perm=30)[0]
    assert not np.array_equal(a, b)


def test_partial_spearman_refuses_a_constant_sequence():
    z = np.arange(10.0)
    with pytest.raises(ValueError, match="function of z"):
        st.partial_spearman(np.ones(10), np.random.default_rng(3).normal(size=10), z)


def test_spearman_with_uncertainty_defaults_and_generator():
    from qwem_lib.book import config

    rng = np.random.default_rng(14)
    x, y = rng.normal(size=8), rng.normal(size=8)
    default = st.spearman_with_uncertainty(x, y)
    assert default == st.spearman_with_uncertainty(
        x, y, n_boot=2000, n_perm=10_000, rng=np.random.default_rng([config.SEED, 30_002])
    )
    assert default != st.spearman_with_uncertainty(x, y, rng=np.random.default_rng(1))
    m = np.arange(8.0)
    assert st.spearman_with_uncertainty(m, m)["p"] == pytest.approx(1 / 10_001)
    four = st.spearman_with_uncertainty(
        m[:4], m[:4] ** 2, n_boot=50, n_perm=50
    )  # four units: accepted
    assert four["n"] == 4


def test_spearman_with_uncertainty_resamples_every_unit_and_every_replicate():
    # unit 0 alone breaks the monotone order: resamples that never draw it would all give ρ = 1
    x, y = np.arange(5.0), np.array([4.0, 0.0, 1.0, 2.0, 3.0])
    out = st.spearman_with_uncertainty(x, y, n_boot=400, n_perm=10, rng=np.random.default_rng(3))
    assert out["lo"] < 0.9
    # two replicates per unit, the order itself and its reverse: each unit draws its own replicate, so
    # the resampled orders are mixed (never all one replicate, which would give ρ = ±1 exactly)
    u = np.arange(12.0)
    both = np.stack([u, u[::-1]])
    for kw in (dict(x_draws=both), dict(y_draws=both)):
        r = st.spearman_with_uncertainty(
            u, u, n_boot=400, n_perm=10, rng=np.random.default_rng(4), **kw
        )
        assert -0.999 < r["lo"] < 0 < r["hi"] < 0.999
    # each side's draws widen the interval on their own
    y2 = u + rng_normal(15, 12)
    plain = st.spearman_with_uncertainty(u, y2, n_boot=800, n_perm=10, rng=np.random.default_rng(5))
    for kw in (
        dict(x_draws=u + 5 * rng_normal(16, (200, 12))),
        dict(y_draws=y2 + 5 * rng_normal(17, (200, 12))),
    ):
        r = st.spearman_with_uncertainty(
            u, y2, n_boot=800, n_perm=10, rng=np.random.default_rng(5), **kw
        )
        assert r["hi"] - r["lo"] > 1.5 * (plain["hi"] - plain["lo"])
    # values of any scale: small spreads are spreads (a resample is skipped only when one side is constant)
    small = st.spearman_with_uncertainty(u * 1e-3, y2 * 1e-3, n_boot=100, n_perm=10)
    assert np.isfinite(small["lo"]) and np.isfinite(small["hi"])
    # the draws' names in their messages
    with pytest.raises(ValueError, match=r"\bx_draws must"):
        st.spearman_with_uncertainty(u, u, x_draws=np.ones((2, 5)))
    with pytest.raises(ValueError, match=r"\by_draws must"):
        st.spearman_with_uncertainty(u, u, y_draws=np.ones((2, 5)))


def rng_normal(seed, size):
    return np.random.default_rng(seed).normal(size=size)


# -- inputs, caches and faults ------------------------------------------------------------------


def test_gap_se_uses_each_side_s_own_count():
    from qwem_lib.maths.stats import gap_se

    assert gap_se(0.5, 0.2, 100, 400) == pytest.approx(np.sqrt(0.25 / 100 + 0.16 / 400), rel=1e-12)
    assert gap_se(0.2, 0.5, 400, 100) == pytest.approx(np.sqrt(0.16 / 400 + 0.25 / 100), rel=1e-12)


def test_eig_desc_refuses_a_nonsymmetric_matrix():
    from qwem_lib.maths.linalg import eig_desc

    M = np.array([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        eig_desc(M)
    lam, _ = eig_desc(0.5 * (M + M.T))
    assert np.allclose(lam, [2.0, 0.0])
