"""Unit tests for qwem_lib.maths.random_matrix: the Marchenko–Pastur law, the BBP outlier, the spiked
fit and its nulls, checked against numerical integration, simulation and closed forms; and the rank
statistics of qwem_lib.maths.stats that Part III uses."""

import math

import numpy as np
import pytest
from scipy.integrate import quad

from qwem_lib.maths import random_matrix as rm
from qwem_lib.maths import stats as st


def _median_and_se(x):
    """Sample median and its standard error from the order statistics (ranks n/2 ± √n/2: a ±1 SE
    interval for any continuous law, no normality assumed)."""
    x = np.sort(np.asarray(x))
    n, h = len(x), int(math.ceil(math.sqrt(len(x)) / 2))
    return float(np.median(x)), float((x[min(n - 1, n // 2 + h)] - x[max(0, n // 2 - h)]) / 2)


def _traces(rng, n, cv, draws):
    Z = rng.standard_normal((draws, n, len(cv))) * np.sqrt(cv)
    G = Z @ np.swapaxes(Z, 1, 2)
    return np.einsum("bii->b", G), (G**2).sum(axis=(1, 2))


@pytest.mark.parametrize("N,D", [(30, 100), (100, 30), (50, 50), (30, 7.5)])
def test_mp_cdf_matches_quadrature_of_pdf(N, D):
    lo, hi = rm.mp_support(2.0, N, D)
    atom = max(0.0, 1 - D / N)
    for x in np.linspace(lo, hi, 7)[1:-1]:
        num = quad(lambda t: float(rm.mp_pdf(t, 2.0, N, D)), lo, x, limit=200)[0] + atom
        assert float(rm.mp_cdf(x, 2.0, N, D)) == pytest.approx(num, abs=1e-8)
    assert float(rm.mp_cdf(hi * 1.01, 2.0, N, D)) == 1.0
    assert float(rm.mp_cdf(-1.0, 2.0, N, D)) == 0.0
    assert float(rm.mp_cdf(0.0, 2.0, N, D)) == pytest.approx(atom)


def test_mp_law_against_large_simulation():
    rng = np.random.default_rng(0)
    N, D, s2 = 400, 1000, 0.5
    Z = rng.standard_normal((N, D)) * math.sqrt(s2)
    lam = np.linalg.eigvalsh(Z @ Z.T)
    grid = np.quantile(lam, [0.1, 0.3, 0.5, 0.7, 0.9])
    emp = np.searchsorted(np.sort(lam), grid, side="right") / N
    assert np.max(np.abs(emp - rm.mp_cdf(grid, s2, N, D))) < 0.02
    lo, hi = rm.mp_support(s2, N, D)
    assert lam.min() == pytest.approx(lo, rel=0.1) and lam.max() == pytest.approx(hi, rel=0.03)


def test_spike_eigenvalue_roundtrip_and_simulation():
    N, D = 50, 400
    bbp = rm.bbp_threshold(1.0, N, D)
    assert bbp == pytest.approx(math.sqrt(N * D))
    assert rm.spike_eigenvalue(0.5 * bbp, 1.0, N, D) == pytest.approx(rm.mp_support(1.0, N, D)[1])
    assert rm.spike_from_eigenvalue(rm.mp_support(1.0, N, D)[1] * 0.99, 1.0, N, D) is None
    ell = 4 * bbp
    lam = rm.spike_eigenvalue(ell, 1.0, N, D)
    assert rm.spike_from_eigenvalue(lam, 1.0, N, D) == pytest.approx(ell, rel=1e-10)
    rng = np.random.default_rng(1)
    tops = [rm.gram_spectrum(rm.spiked_matrix(N, np.ones(D), ell, rng)[0])[0] for _ in range(40)]
    assert np.mean(tops) == pytest.approx(lam, rel=0.03)


def test_gram_spectrum_matches_dense_eigh():
    rng = np.random.default_rng(2)
    for shape in ((10, 4), (6, 20)):
        R = rng.standard_normal(shape)
        ref = np.sort(np.linalg.eigvalsh(R @ R.T))[::-1]
        np.testing.assert_allclose(rm.gram_spectrum(R), np.clip(ref, 0, None), atol=1e-10)


@pytest.mark.parametrize(
    "bad,msg",
    [
        (np.ones((2, 5)), "at least 3"),
        (np.zeros((5, 4)), "all zeros"),
        (np.array([[1.0, np.nan], [0, 1], [1, 1]]), "R must hold finite"),
        (np.ones(5), "R must be 2-D"),
    ],
)
def test_fit_rejects_degenerate_input(bad, msg):
    with pytest.raises(ValueError, match=msg):
        rm.fit_spiked_mp(bad)


def test_fit_rejects_flat_spectrum_and_non_array():
    with pytest.raises(ValueError, match="all equal"):
        rm.fit_spiked_mp(np.eye(5))  # every eigenvalue is 1: no spread to fit
    with pytest.raises(TypeError):
        rm.fit_spiked_mp([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])


def test_fit_recovers_equal_variance_parameters_over_draws():
    rng = np.random.default_rng(3)
    N, d, s2 = 40, 300, 0.7
    fits = [
        rm.fit_spiked_mp(
            rm.spiked_matrix(N, np.full(d, s2), 4 * s2 * math.sqrt(N * d), rng)[0], n_null=100
        )
        for _ in range(60)
    ]
    assert all(f.outlier is not None for f in fits)
    for v, truth in (([f.sigma2 for f in fits], s2), ([f.d_eff for f in fits], d)):
        se = np.std(v) / math.sqrt(len(v))
        assert abs(np.mean(v) - truth) < 4 * se  # unbiased to a few standard errors
    assert np.mean([f.spike for f in fits]) == pytest.approx(4 * s2 * math.sqrt(N * d), rel=0.08)
    assert np.median([f.ks for f in fits]) < 0.1


def test_fit_recovers_unequal_variance_effective_values():
    rng = np.random.default_rng(4)
    N, cv = 40, np.linspace(0.1, 2.0, 500) ** 2
    s2, de = (cv**2).sum() / cv.sum(), cv.sum() ** 2 / (cv**2).sum()
    fits = [rm.fit_spiked_mp(rm.spiked_matrix(N, cv, 0.0, rng)[0], n_null=100) for _ in range(60)]
    for v, truth in (([f.sigma2 for f in fits], s2), ([f.d_eff for f in fits], de)):
        se = np.std(v) / math.sqrt(len(v))
        assert abs(np.mean(v) - truth) < 4 * se
    assert de < 0.7 * len(cv)  # the effective dimension really is below d here


@pytest.mark.parametrize("profile", ["equal", "decaying"])
def test_moment_fit_exact_finite_n_expectations(profile):
    """The fit solves E S1 = n Σs², E S1^2 = n^2 A + 2 n B, E S2 = n A + n(n+1) B (A = (Σs²)², B = Σs⁴):
    check them by simulation (a plain trace of ZZ^T and of its square, not the estimator) at n = 5, for
    equal and decaying column variances."""
    rng = np.random.default_rng(12)
    n = 5
    cv = np.ones(4) * 1.5 if profile == "equal" else np.arange(1, 17) ** -0.5
    A, B = cv.sum() ** 2, (cv**2).sum()
    S1, S2 = [], []
    for _ in range(20_000):
        Z = rng.standard_normal((n, len(cv))) * np.sqrt(cv)
        G = Z @ Z.T
        S1.append(np.trace(G))
        S2.append(np.trace(G @ G))
    S1sq = np.array(S1) ** 2
    for v, expect in (
        (S1, n * cv.sum()),
        (S1sq, n * n * A + 2 * n * B),
        (S2, n * A + n * (n + 1) * B),
    ):
        assert abs(np.mean(v) - expect) < 4 * np.std(v) / math.sqrt(len(v))
    # the asymptotic MP moment (N + 1 → N) is measurably off at n = 5
    assert abs(np.mean(S2) - (n * A + n * n * B)) > 4 * np.std(S2) / math.sqrt(len(S2))
    # and the old asymptotic n/excess is off by n/(n+1): its mean over draws misses, the exact one not
    rng = np.random.default_rng(13)
    N, d = 25, 1024
    fits, old = [], []
    for _ in range(200):
        lam = rm.gram_spectrum(rng.standard_normal((N, d)))
        fits.append(rm.moment_fit(lam)[1])
        old.append(N / ((lam**2).mean() / lam.mean() ** 2 - 1))
    se = np.std(fits) / math.sqrt(len(fits))
    assert abs(np.median(fits) - d) < 3 * 1.25 * se  # the median's standard error ≈ 1.25 mean's
    assert abs(np.mean(old) - d * N / (N + 1)) < 4 * np.std(old) / math.sqrt(len(old))
    assert abs(np.mean(old) - d) > 4 * np.std(old) / math.sqrt(len(old))
    with pytest.raises(ValueError):
        rm.moment_fit(np.array([1.0]))


@pytest.mark.parametrize("n,d", [(5, 16), (5, 64), (10, 16)])
def test_median_centred_moment_fit_is_median_unbiased_under_mp(n, d):
    """Equal variances (the MP model), few eigenvalues: the medians of σ̂² and d̂ over 20,000 Monte Carlo
    draws are within 3 standard errors of the truth; the uncorrected ratio estimator is not (its d̂ is high
    at n = 5), nor is a σ̂² whose two independent factors are median-corrected one by one."""

    rng = np.random.default_rng([25, n, d])
    S1, S2 = _traces(rng, n, np.full(d, 2.0), 20_000)  # σ² = 2
    s2, D = rm.moment_fit_traces(S1, S2, n)
    for v, truth in ((s2, 2.0), (D, float(d))):
        med, se = _median_and_se(v / truth)
        assert abs(med - 1) < 3 * se, (med, se)
    # one fit at a time gives the same numbers
    lam = rm.gram_spectrum(rng.standard_normal((n, d)))
    one = rm.moment_fit(lam)
    vec = rm.moment_fit_traces(np.array([lam.sum()]), np.array([(lam**2).sum()]), n)
    assert one == pytest.approx((float(vec[0][0]), float(vec[1][0])), rel=1e-12)
    if n == 5:
        s2m, Dm = rm.moment_fit_traces(S1, S2, n, center="mean")
        med, se = _median_and_se(Dm / d)
        assert med - 1 > 3 * se  # the ratio of unbiased moments has a high median
        assert abs(np.mean(1 / Dm) - 1 / d) < 4 * np.std(1 / Dm) / math.sqrt(len(Dm))
    if (n, d) == (5, 16):
        # at n d = 20 the mean eigenvalue's own χ²_{nD} spread matters: (S1/n)/D̂ alone has a median
        # about 5% low; the Cornish–Fisher factor brings σ̂² closer to the truth by more than 3 SE
        S1, S2 = _traces(rng, 5, np.full(4, 2.0), 20_000)
        s2, D = rm.moment_fit_traces(S1, S2, 5)
        (new, se_n), (old, se_o) = (_median_and_se(v / 2.0) for v in (s2, (S1 / 5) / D))
        assert abs(new - 1) < abs(old - 1) - 3 * math.hypot(se_n, se_o), (new, old)
    with pytest.raises(ValueError, match="center"):
        rm.moment_fit(np.array([1.0, 2.0, 3.0]), center="mode")
    with pytest.raises(ValueError, match="n must be"):
        rm.moment_fit_traces(1.0, 0.5, 1)


def test_unequal_row_norms_bias_the_moment_fit_not_column_deff():
    rng = np.random.default_rng(14)
    N, cv = 30, np.arange(1, 257) ** -0.5
    de = cv.sum() ** 2 / (cv**2).sum()
    spec, col, col_eq = [], [], []
    for _ in range(100):
        Z = rng.standard_normal((N, len(cv))) * np.sqrt(cv)
        Zr = Z * np.exp(0.3 * rng.standard_normal((N, 1)))
        spec.append(rm.moment_fit(rm.gram_spectrum(Zr))[1])
        col.append(
            rm.column_deff(Zr + rng.standard_normal(len(cv)))
        )  # a common mean changes nothing
        col_eq.append(rm.column_deff(Z))
    assert np.median(spec) < 0.8 * de  # row-norm spread is read as bulk spread
    for v in (col, col_eq):
        assert abs(np.median(v) / de - 1) < 0.05


def test_fit_outlier_detection_below_and_above_bbp():
    rng = np.random.default_rng(5)
    N, d = 30, 200
    bbp = math.sqrt(N * d)
    below = np.mean(
        [
            rm.fit_spiked_mp(rm.spiked_matrix(N, np.ones(d), 0.3 * bbp, rng)[0], n_null=100).outlier
            is not None
            for _ in range(60)
        ]
    )
    above = np.mean(
        [
            rm.fit_spiked_mp(rm.spiked_matrix(N, np.ones(d), 4 * bbp, rng)[0], n_null=100).outlier
            is not None
            for _ in range(60)
        ]
    )
    assert below < 0.15 and above > 0.97


def test_fit_works_with_fewer_columns_than_rows():
    rng = np.random.default_rng(6)
    f = rm.fit_spiked_mp(rm.spiked_matrix(100, np.ones(40), 0.0, rng)[0])
    assert f.d_eff == pytest.approx(40, rel=0.1) and f.ks < 0.1


def test_tw_null_and_argument_validation():
    rng = np.random.default_rng(8)
    N, d = 30, 200
    fa = np.mean(
        [
            rm.fit_spiked_mp(rm.spiked_matrix(N, np.ones(d), 0.0, rng)[0], null="tw").outlier
            is not None
            for _ in range(100)
        ]
    )
    assert fa < 0.15  # nominal 1%; the leave-top-out bulk is a little narrow at N = 30
    R = rm.spiked_matrix(N, np.ones(d), 0.0, rng)[0]
    with pytest.raises(ValueError, match="level"):
        rm.fit_spiked_mp(R, level=2.0)
    with pytest.raises(ValueError, match="null"):
        rm.fit_spiked_mp(R, null="bogus")
    with pytest.raises(ValueError, match="cannot resolve"):
        rm.fit_spiked_mp(R, n_null=10)


def test_columns_null_keeps_its_false_alarm_rate_for_unequal_variances():
    rng = np.random.default_rng(9)
    cv = np.arange(1, 201) ** -0.5
    fa = np.mean(
        [
            rm.fit_spiked_mp(rm.spiked_matrix(30, cv, 0.0, rng)[0], n_null=100, rng=rng).outlier
            is not None
            for _ in range(60)
        ]
    )
    fa_tw = np.mean(
        [
            rm.fit_spiked_mp(rm.spiked_matrix(30, cv, 0.0, rng)[0], null="tw").outlier is not None
            for _ in range(100)
        ]
    )
    assert fa < 0.07 and fa_tw > 0.3  # the MP/TW rule fails here; the simulated null does not


def test_signflip_enumeration_matches_brute_force_and_keeps_its_level():
    import itertools

    rng = np.random.default_rng(15)
    R = rng.standard_normal((5, 7)) + 0.3
    out = rm.mean_signflip_test(R)
    T = np.sum(R.sum(axis=0) ** 2)
    Ts = [
        np.sum((np.array(e)[:, None] * R).sum(axis=0) ** 2)
        for e in itertools.product((-1, 1), repeat=5)
    ]
    assert out["T"] == pytest.approx(T) and out["exact"]
    assert out["p"] == pytest.approx(np.mean(np.array(Ts) >= T - 1e-9))  # the global sign pairs up
    assert out["min_p"] == pytest.approx(1 / 16)
    # level under very unequal row norms (log-sd 0.6), exact (N = 12) and Monte Carlo (N = 30)
    for N, n in ((12, 400), (30, 300)):
        rej = []
        for _ in range(n):
            Z = rng.standard_normal((N, 50)) * np.exp(0.6 * rng.standard_normal((N, 1)))
            rej.append(rm.mean_signflip_test(Z, n_flip=199, rng=rng)["p"] <= 0.05)
        assert abs(np.mean(rej) - 0.05) < 3 * math.sqrt(0.05 * 0.95 / n)
    # power at twice the BBP threshold, N = 30, d = 200, unequal row norms
    hits = []
    for _ in range(50):
        R, mu = rm.spiked_matrix(30, np.ones(200), 2 * math.sqrt(30 * 200), rng)
        R = mu + (R - mu) * np.exp(0.3 * rng.standard_normal((30, 1)))  # unequal noise norms
        hits.append(rm.mean_signflip_test(R, n_flip=199, rng=rng)["p"] <= 0.01)
    assert np.mean(hits) == 1.0


def test_ks_bootstrap_critical_value_has_its_level():
    from scipy.stats import kstwo

    rng = np.random.default_rng(17)
    n, D = 20, 60
    crit = rm.ks_critical_bootstrap(n, D, n_boot=400, rng=rng)
    assert crit < float(kstwo.ppf(0.95, n))  # fitting two parameters shrinks the KS distance
    rej = []
    for _ in range(400):
        lam = rm.gram_spectrum(rng.standard_normal((n, D)) * 3.0)
        s2, De = rm.moment_fit(lam)
        rej.append(rm._ks(lam, s2, De) > crit)  # fresh null draws, another σ²
    assert abs(np.mean(rej) - 0.05) < 3 * math.sqrt(0.05 * 0.95 / 400) + 0.01
    with pytest.raises(ValueError):
        rm.ks_critical_bootstrap(2, 10.0)


def test_authors_estimate_on_pure_noise():
    rng = np.random.default_rng(19)
    R = rng.standard_normal((50, 400)) * math.sqrt(2.0)
    s2, D = rm.authors_mp_estimate(R)
    assert s2 == pytest.approx(
        2.0 * 49 / 50, rel=0.02
    )  # centring removes one of 50 degrees of freedom
    assert 400 < D < 1.5 * 400  # λ₂ sits a little inside the edge at N = 50: D comes out high
    lam2 = np.sort(np.linalg.eigvalsh(R @ R.T))[-2]  # by hand: λ₂/d = σ²(1 + √(N/D))²
    assert lam2 / 400 == pytest.approx(s2 * (1 + math.sqrt(50 / D)) ** 2, rel=1e-10)


def test_partial_spearman_against_the_recursion_formula():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(20)
    z = rng.standard_normal(30)
    x, y = z + rng.standard_normal(30), z + rng.standard_normal(30)
    r = lambda a, b: spearmanr(a, b).statistic  # noqa: E731
    rxy, rxz, ryz = r(x, y), r(x, z), r(y, z)
    formula = (rxy - rxz * ryz) / math.sqrt((1 - rxz**2) * (1 - ryz**2))
    assert st.partial_spearman(x, y, z) == pytest.approx(formula, abs=1e-10)
    with pytest.raises(ValueError):
        st.partial_spearman(x[:3], y[:3], z[:3])


def test_spearman_with_uncertainty():
    x = np.arange(10.0)
    out = st.spearman_with_uncertainty(x, x**3, n_boot=200, n_perm=500)
    assert out["rho"] == pytest.approx(1.0) and out["p"] < 0.01 and out["n"] == 10
    rng = np.random.default_rng(0)
    out = st.spearman_with_uncertainty(
        rng.standard_normal(12), rng.standard_normal(12), n_boot=200, n_perm=500
    )
    assert out["lo"] < out["rho"] < out["hi"]
    with pytest.raises(ValueError):
        st.spearman_with_uncertainty([1, 2, 3], [1, 2, 3])
    # within-unit replicates widen the interval
    x, y = np.arange(12.0), np.arange(12.0) + rng.standard_normal(12)
    plain = st.spearman_with_uncertainty(x, y, n_boot=400, n_perm=200, rng=np.random.default_rng(2))
    noisy = st.spearman_with_uncertainty(
        x,
        y,
        n_boot=400,
        n_perm=200,
        rng=np.random.default_rng(2),
        y_draws=y[None, :] + 4 * rng.standard_normal((50, 12)),
    )
    assert noisy["hi"] - noisy["lo"] > plain["hi"] - plain["lo"]
    with pytest.raises(ValueError):
        st.spearman_with_uncertainty(x, y, y_draws=np.ones((3, 5)))


def test_mp_ks_distance_matches_scipy_kstest():
    from scipy.stats import kstest

    rng = np.random.default_rng(21)
    lam = rm.gram_spectrum(rng.standard_normal((15, 60)))
    s2, D = rm.moment_fit(lam)
    ref = kstest(lam, lambda x: rm.mp_cdf(x, s2, 15, D)).statistic
    assert rm.mp_ks_distance(lam, s2, D) == pytest.approx(ref, abs=1e-12)
    with pytest.raises(ValueError):
        rm.mp_ks_distance(np.array([]), 1.0, 3.0)


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def test_bbp_overlaps_match_a_simulated_spiked_matrix():
    """The three large-size overlaps against their empirical values on R = 1 mu^T + Z (N = 400, D = 800,
    theta^2 = 2, so c = 1/2), averaged over four draws; each formula is at least 0.07 away from every
    other candidate the tests would have to tell apart."""
    N, D, sigma2 = 400, 800, 1.0
    ell = 2.0 * sigma2 * D
    got = rm.bbp_overlaps(ell, sigma2, N, D)
    assert got == pytest.approx({"left": 3.5 / 5.0, "right": 3.5 / 6.0, "mean": 1 - 0.5 / 4})
    emp = {"left": [], "right": [], "mean": []}
    for seed in range(4):
        R, mu = rm.spiked_matrix(N, np.full(D, sigma2), ell, np.random.default_rng(seed))
        U, s, Vt = np.linalg.svd(R, full_matrices=False)
        rbar = R.mean(axis=0)
        emp["left"].append((U[:, 0] @ np.ones(N) / math.sqrt(N)) ** 2)
        emp["right"].append((Vt[0] @ mu / np.linalg.norm(mu)) ** 2)
        emp["mean"].append((Vt[0] @ rbar / np.linalg.norm(rbar)) ** 2)
    for k, v in emp.items():
        assert np.mean(v) == pytest.approx(got[k], abs=0.03), k
    # at and below the threshold theta^4 = c every overlap is 0; just above it they are small and positive
    at = 2.0 * 100  # N = D = 100 (c = 1), sigma2 = 2: theta^2 = 1 exactly at ell = sigma2 * D
    assert rm.bbp_overlaps(at, 2.0, 100, 100) == {"left": 0.0, "right": 0.0, "mean": 0.0}
    assert rm.bbp_overlaps(0.5 * at, 2.0, 100, 100) == {"left": 0.0, "right": 0.0, "mean": 0.0}
    above = rm.bbp_overlaps(1.01 * at, 2.0, 100, 100)
    assert all(0 < v < 0.05 for v in above.values())


def test_column_deff_by_hand_and_at_large_size():
    """d_eff from the columns' sample variances with the Gaussian corrections of the docstring, computed by
    hand on a 3 x 2 matrix; and near (sum s^2)^2 / sum s^4 for many rows of known column variances."""
    R = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 4.0]])
    v = np.array([4.0, 3.0])  # sample variances (ddof 1) of the two columns
    B = (16.0 + 9.0) * 2 / 4
    A = 49.0 - 2.0 * B / 2
    assert rm.column_deff(R) == pytest.approx(A / B, rel=1e-14)
    assert v.sum() == 7.0
    s2 = np.array([1.0, 1.0, 4.0, 0.25, 2.0])
    Z = np.random.default_rng(0).standard_normal((20000, 5)) * np.sqrt(s2)
    assert rm.column_deff(Z + 3.0) == pytest.approx(s2.sum() ** 2 / (s2**2).sum(), rel=0.02)
    with pytest.raises(ValueError, match="constant"):
        rm.column_deff(np.ones((4, 3)))


def test_column_deff_corrections_remove_the_small_sample_bias():
    """At N = 4 rows the naive (Σŝ²)²/Σŝ⁴ is biased low; the corrected numerator and denominator are
    unbiased, so over many draws the ratio of their means is d_eff (checked through the estimator's value
    times the corrected denominator, which the function's formula pins down)."""
    s2 = np.array([1.0, 2.0, 3.0])
    truth = s2.sum() ** 2 / (s2**2).sum()
    rng = np.random.default_rng(5)
    vals = [rm.column_deff(rng.standard_normal((4, 3)) * np.sqrt(s2)) for _ in range(4000)]
    naive = []
    rng = np.random.default_rng(5)
    for _ in range(4000):
        v = (rng.standard_normal((4, 3)) * np.sqrt(s2)).var(axis=0, ddof=1)
        naive.append(v.sum() ** 2 / (v**2).sum())
    assert np.median(vals) > np.median(
        naive
    )  # the correction raises the estimate towards the truth
    assert abs(np.median(vals) - truth) < abs(np.median(naive) - truth)


def test_mean_signflip_test_by_hand():
    """Three equal rows (D = 1): T = 9; the four sign patterns (first sign fixed) give 9, 1, 1, 1, so the
    exact p-value is 1/4 (the identity pattern ties with T and counts), z = (9 - 3)/sqrt(12)."""
    out = rm.mean_signflip_test(np.ones((3, 1)))
    assert out["T"] == 9.0 and out["exact"] is True
    assert out["p"] == 0.25 and out["min_p"] == 0.25
    assert out["z"] == pytest.approx(6 / math.sqrt(12))
    # orthogonal rows: every pattern gives the same T: p = 1 and z undefined
    flat = rm.mean_signflip_test(np.eye(4))
    assert flat["p"] == 1.0 and math.isnan(flat["z"]) and flat["min_p"] == 1 / 8
    # 12 rows are still enumerated (2^11 patterns); 13 are sampled, with the default 9,999 draws
    R12 = np.random.default_rng(0).standard_normal((12, 3)) + 0.2
    assert rm.mean_signflip_test(R12)["exact"] is True
    assert rm.mean_signflip_test(R12)["min_p"] == 1 / 2**11
    R13 = np.random.default_rng(0).standard_normal((13, 3)) + 0.2
    s = rm.mean_signflip_test(R13)
    assert s["exact"] is False and s["min_p"] == 1 / 10_000
    assert rm.mean_signflip_test(R13) == s  # the default generator is seeded
    from qwem_lib.book import config

    same = rm.mean_signflip_test(R13, rng=np.random.default_rng([config.SEED, 30_004]))
    assert same == s
    other = rm.mean_signflip_test(R13, rng=np.random.default_rng(1))
    assert other["p"] != s["p"] or other["z"] != s["z"]
    # the Monte Carlo p-value: (1 + #{T(eps) >= T}) / (1 + n_flip), checked against a loop
    rng = np.random.default_rng(7)
    got = rm.mean_signflip_test(R13, n_flip=99, rng=np.random.default_rng(7))
    E = rng.choice(np.array([-1.0, 1.0]), size=(99, 13))
    T = float(np.sum(R13.sum(0) ** 2))
    Tf = np.array([np.sum((e @ R13) ** 2) for e in E])
    assert got["T"] == pytest.approx(T)
    assert got["p"] == pytest.approx((1 + np.sum(Tf >= T - 1e-9 * T)) / 100)
    assert got["z"] == pytest.approx((T - Tf.mean()) / Tf.std())
    with pytest.raises(ValueError, match="n_flip"):
        rm.mean_signflip_test(R13, n_flip=98)


def test_authors_mp_estimate_by_hand():
    """sigma^2 is the mean square of the column-centred entries; the MP law of the Gram matrix over d is
    placed with its upper edge at the second eigenvalue: lambda_2/d = sigma^2 (1 + sqrt(N/d_eff))^2."""
    rng = np.random.default_rng(0)
    R = rng.standard_normal((6, 40)) + np.linspace(0, 1, 40)  # a common mean: removed by centring
    s2, d_eff = rm.authors_mp_estimate(R)
    Rc = R - R.mean(axis=0)
    assert s2 == pytest.approx(np.mean(Rc**2), rel=1e-12)
    lam2 = np.sort(np.linalg.eigvalsh(R @ R.T))[::-1][1]
    assert lam2 / 40 == pytest.approx(s2 * (1 + math.sqrt(6 / d_eff)) ** 2, rel=1e-10)
    flat = np.eye(3) * 1e-3  # lambda_2/d at or below sigma^2: d_eff is infinite
    flat[0, 0] = 1.0
    assert rm.authors_mp_estimate(flat)[1] == math.inf


def test_tw_scale_is_johnstones():
    mu, s = rm._tw_scale(11, 25.0)
    a, b = math.sqrt(10), 5.0
    assert mu == pytest.approx((a + b) ** 2) and s == pytest.approx(
        (a + b) * (1 / a + 1 / b) ** (1 / 3)
    )
    assert rm._tw_scale(1, 4.0)[0] == pytest.approx((1 + 2) ** 2)  # N - 1 floored at 1


def test_spike_from_eigenvalue_inverts_spike_eigenvalue():
    for N, D, s2, ell in ((50, 200, 1.0, 500.0), (200, 100, 2.0, 3000.0)):
        lam = rm.spike_eigenvalue(ell, s2, N, D)
        assert rm.spike_from_eigenvalue(lam, s2, N, D) == pytest.approx(ell, rel=1e-10)
    edge = 1.0 * 200 * (1 + math.sqrt(50 / 200)) ** 2
    assert rm.spike_from_eigenvalue(edge, 1.0, 50, 200) is None  # at the edge
    assert rm.spike_from_eigenvalue(0.5 * edge, 1.0, 50, 200) is None


def test_ks_critical_bootstrap_is_a_seeded_quantile_of_refitted_ks_distances():
    got = rm.ks_critical_bootstrap(8, 20.0, level=0.1, n_boot=10)
    rng = np.random.default_rng([rm.config.SEED, 30_003])
    ks = []
    for _ in range(10):
        lam = rm.gram_spectrum(rng.standard_normal((8, 20)))
        s2, De = rm._moments(lam)
        ks.append(rm._ks(lam, s2, De))
    assert got == pytest.approx(np.quantile(ks, 0.9), rel=1e-12)
    assert (
        rm.ks_critical_bootstrap(8, 20.0, level=0.1, n_boot=10) == got
    )  # the default generator is seeded
    assert rm.ks_critical_bootstrap(3, 1.0, level=0.5, n_boot=2) >= 0  # the smallest sizes
    for kw in (dict(n=2), dict(d_eff=0.5), dict(n_boot=9), dict(level=1.0)):
        with pytest.raises(ValueError):
            rm.ks_critical_bootstrap(**(dict(n=8, d_eff=20.0, level=0.1, n_boot=10) | kw))


def test_moment_fit_refuses_a_flat_bulk_and_checks_center():
    with pytest.raises(ValueError, match="all equal"):
        rm.moment_fit(np.full(5, 2.0))
    with pytest.raises(ValueError, match="center must be"):
        rm.moment_fit(np.array([1.0, 2.0, 3.0]), center="mode")
    s2a, Da = rm.moment_fit(np.array([1.0, 2.0, 3.0]), center="mean")
    s2b, Db = rm.moment_fit(np.array([1.0, 2.0, 3.0]))  # the default is the median correction
    assert Da != Db and s2a != s2b
    assert rm.moment_fit(np.array([1.0, 4.0])) is not None  # two eigenvalues are enough
    with pytest.raises(ValueError, match="1-d array of >= 2"):
        rm.moment_fit(np.array([1.0]))
    with pytest.raises(ValueError, match=">= 2 non-negative"):
        rm.moment_fit(np.array([1.0, -1e-6]))
    rm.moment_fit(np.array([1.0, 3.0, -1e-10]))  # round-off below zero is clipped


def test_fit_spiked_mp_fields_agree_with_their_definitions():
    """The reported eigenvalues, edge, BBP threshold, p-value and outlier of a fit, each against its
    definition in the docstring; the default generator is seeded; the fitted law's cdf is mp_cdf's."""
    rng = np.random.default_rng(3)
    R, _ = rm.spiked_matrix(30, np.ones(60), 400.0, rng)
    fit = rm.fit_spiked_mp(R, n_null=99, level=0.01)
    lam = np.sort(np.linalg.eigvalsh(R @ R.T))[::-1]
    np.testing.assert_allclose(fit.eigenvalues, lam, rtol=1e-10)
    assert fit.n_rows == 30 and fit.outlier == pytest.approx(lam[0]) and fit.n_bulk == 29
    assert fit.edge == pytest.approx(fit.sigma2 * (math.sqrt(fit.d_eff) + math.sqrt(30)) ** 2)
    assert fit.bbp == pytest.approx(rm.bbp_threshold(fit.sigma2, 30, fit.d_eff))
    assert fit.p_value == pytest.approx(1 / 100)  # above every one of the 99 null draws
    again = rm.fit_spiked_mp(R, n_null=99, level=0.01)
    assert again.null_quantile == fit.null_quantile and again.p_value == fit.p_value
    x = np.linspace(0, 1.2 * fit.edge, 7)
    np.testing.assert_allclose(fit.cdf(x), rm.mp_cdf(x, fit.sigma2, fit.n_bulk, fit.d_eff))
    noise = rm.fit_spiked_mp(
        np.random.default_rng(4).standard_normal((30, 60)), n_null=99, level=0.01
    )
    assert noise.outlier is None and noise.n_bulk == 30 and noise.p_value > 0.01
    tw = rm.fit_spiked_mp(R, null="tw")
    assert math.isnan(tw.p_value) and tw.outlier is not None
    with pytest.raises(
        ValueError, match="n_null=98 simulations cannot resolve level=0.01 \\(need >= 99\\)"
    ):
        rm.fit_spiked_mp(R, n_null=98, level=0.01)
    rm.fit_spiked_mp(R, n_null=99, level=0.01)  # exactly 1/level - 1 is enough
    with pytest.raises(ValueError, match="tw"):
        rm.fit_spiked_mp(R, null="tw", level=0.05)


def test_mp_pdf_of_nothing_and_at_the_edges():
    assert rm.mp_pdf(np.array([]), 1.0, 10, 40).shape == (0,)
    a, b = (1 - math.sqrt(0.25)) ** 2 * 40, (1 + math.sqrt(0.25)) ** 2 * 40
    np.testing.assert_allclose(rm.mp_pdf(np.array([a, b]), 1.0, 10, 40), 0.0, atol=1e-12)
    assert rm.mp_pdf(np.array([(a + b) / 2]), 1.0, 10, 40)[0] > 0


# --- edges found by mutation testing (issue 45) ------------------------------------------------
@pytest.mark.parametrize("N,D", [(20, 80), (50, 50), (80, 20)])  # y = N/D below, at and above 1
def test_mp_cdf_is_the_integral_of_the_density_plus_the_atom(N, D):
    s2 = 0.7
    lo, hi = rm.mp_support(s2, N, D)
    atom = max(0.0, 1.0 - D / N)
    xs = np.concatenate([[-1.0, 0.0], np.linspace(lo, hi, 9), [0.5 * (lo + hi), 1.5 * hi]])

    def density(t):
        return float(rm.mp_pdf(t, s2, N, D))

    for x in xs:
        want = 0.0 if x < 0 else atom + quad(density, lo, min(max(x, lo), hi), limit=200)[0]
        assert float(rm.mp_cdf(x, s2, N, D)) == pytest.approx(want, abs=1e-7)
    assert np.all(rm.mp_pdf(np.array([0.5 * lo, 1.01 * hi]), s2, N, D) == 0.0)  # no mass outside
    assert rm.mp_cdf(np.array([]), s2, N, D).shape == (0,)


def test_spiked_fit_pdf_edge_and_null_quantile():
    rng = np.random.default_rng(8)
    R = rng.standard_normal((30, 60)) * np.sqrt(rng.uniform(0.5, 1.5, 60))  # pure noise
    fit = rm.fit_spiked_mp(R, rng=np.random.default_rng(1))
    assert fit.outlier is None
    assert fit.edge == pytest.approx(rm.mp_support(fit.sigma2, 30, fit.d_eff)[1], rel=1e-12)
    mass = quad(lambda x: float(fit.pdf(x)), 0.0, 2 * fit.edge, limit=200, points=[fit.edge])[0]
    assert mass == pytest.approx(
        min(1.0, fit.d_eff / fit.n_bulk), abs=1e-6
    )  # the bulk's MP density
    assert isinstance(fit.null_quantile, float) and np.isfinite(fit.null_quantile)
    assert (
        fit.eigenvalues[0] <= fit.null_quantile
    )  # not an outlier: the top sits below the null's quantile


def test_the_null_uses_unbiased_column_variances(monkeypatch):
    """The simulated null draws columns with the unbiased variances of R's columns (ddof = 1): averaged
    over many small matrices they match the true variances (ddof = 0 would be 20% low at N = 5)."""
    seen = []

    def fake(col_var, N, n_null, rng, batch=32):
        seen.append(np.asarray(col_var) / true)
        return np.zeros(n_null)

    monkeypatch.setattr(rm, "_null_top_eigenvalues", fake)
    rng = np.random.default_rng(2)
    true = rng.uniform(0.5, 2.0, 40)
    for _ in range(300):
        rm.fit_spiked_mp(rng.standard_normal((5, 40)) * np.sqrt(true), rng=np.random.default_rng(0))
    ratio = np.mean(seen)
    assert abs(ratio - 1.0) < 0.03  # standard error about 0.004


def test_spiked_matrix_mean_and_edges():
    rng = np.random.default_rng(4)
    R, mu = rm.spiked_matrix(4000, np.full(6, 0.25), 4000 * 0.09, rng)
    np.testing.assert_allclose(R.mean(axis=0), mu, atol=5 * 0.5 / np.sqrt(4000))  # R = 1μᵀ + Z
    assert np.linalg.norm(mu) == pytest.approx(0.3)
    R1, _ = rm.spiked_matrix(1, np.array([1.0, 0.0]), 1.0, rng)  # one row; a zero-variance column
    assert R1.shape == (1, 2)


def test_ks_bootstrap_uses_the_stream_given_and_row_count_message():
    a = rm.ks_critical_bootstrap(12, 6.0, level=0.25, n_boot=8, rng=np.random.default_rng(1))
    b = rm.ks_critical_bootstrap(12, 6.0, level=0.25, n_boot=8, rng=np.random.default_rng(2))
    assert a != b  # the stream given is used
    assert rm.ks_critical_bootstrap(12, 6.0, level=0.25, n_boot=8) == rm.ks_critical_bootstrap(
        12, 6.0, level=0.25, n_boot=8
    )  # the default stream is fixed
    with pytest.raises(ValueError, match="got 2$"):
        rm.checked_rows(np.ones((2, 5)))  # the rows are counted, not the columns


def test_ks_distance_is_scale_free_and_fit_uses_its_stream():
    """The KS distance to the MP law does not change when the eigenvalues and σ² are scaled together (even
    below 1), and it counts an atom of exact zeros when N > D."""
    rng = np.random.default_rng(6)
    lam = rm.gram_spectrum(rng.standard_normal((30, 20)))  # N > D: ten zero eigenvalues
    for c in (1e-12, 1e-4, 1.0, 50.0, 1e6):
        assert rm.mp_ks_distance(c * lam, c * 1.0, 20) == pytest.approx(
            rm.mp_ks_distance(lam, 1.0, 20), abs=1e-12
        )
    R = rng.standard_normal((20, 40))
    p1 = rm.fit_spiked_mp(R, rng=np.random.default_rng(1)).p_value
    p2 = rm.fit_spiked_mp(R, rng=np.random.default_rng(2)).p_value
    assert p1 != p2  # the stream given is used (not the default one)


@pytest.mark.parametrize("n,D0", [(5, 4.0), (10, 30.0), (5, 40.0)])
def test_median_centring_factors_against_their_definitions(n, D0):
    """``center="median"`` multiplies D by median(χ²_k)/k, k = (n+2)(n−1)/2 (the docstring's 0.953 at
    n = 5, 0.988 at n = 10), and divides σ² by exp(median of log F₁F₂), F₁ = χ²_{nD}/(nD) and F₂ = χ²_k/k
    independent — here estimated by simulation (2·10⁶ draws; standard error about 4e-4)."""
    from scipy.stats import chi2

    S1 = float(n)  # S₁/n = 1, and S₂ chosen so that the uncorrected D is D0
    S2 = ((n + 1) * S1**2 + D0 * S1**2) / (2 + D0 * n)
    s_mean, D_mean = rm.moment_fit_traces(S1, S2, n, center="mean")
    s_med, D_med = rm.moment_fit_traces(S1, S2, n, center="median")
    assert float(D_mean) == pytest.approx(D0, rel=1e-12)
    k = (n + 2) * (n - 1) / 2
    assert float(D_med / D_mean) == pytest.approx(chi2.median(k) / k, rel=1e-12)
    assert float(D_med / D_mean) == pytest.approx({5: 0.953, 10: 0.988}[n], abs=5e-4)
    rng = np.random.default_rng(0)
    nu = n * float(D_med)
    logs = np.log(rng.chisquare(nu, 2_000_000) / nu) + np.log(rng.chisquare(k, 2_000_000) / k)
    assert float(s_med / s_mean) == pytest.approx(np.exp(-np.median(logs)), rel=2e-3)


def test_moment_fit_is_scale_equivariant_and_refuses_equal_eigenvalues_at_any_scale():
    lam = rm.gram_spectrum(np.random.default_rng(3).standard_normal((8, 30)))
    s2, D = rm.moment_fit(lam)
    for c in (1e-9, 1e-3, 1e6):
        s2c, Dc = rm.moment_fit(c * lam)
        assert s2c == pytest.approx(c * s2, rel=1e-10) and Dc == pytest.approx(D, rel=1e-10)
        with pytest.raises(ValueError, match="all equal"):
            rm.moment_fit(np.full(6, c / 3))


def test_signflip_test_is_scale_free():
    """p and z do not depend on the unit of R: at 1e8 the unflipped pattern's T(ε) differs from T by
    rounding (2048 here, from summing in another order) and must still count as a tie; at 1e-3 the
    flip distribution's standard deviation is far below 1 and z must still be finite."""
    R = np.random.default_rng(0).normal(size=(6, 5)) + 3.0  # a strong common mean
    base = rm.mean_signflip_test(R)
    assert base["exact"] and base["p"] == base["min_p"] == 1 / 32  # only the unflipped pattern
    for c in (1e8, 1e-3):
        out = rm.mean_signflip_test(c * R)
        assert out["p"] == base["p"]
        assert np.isfinite(out["z"]) and out["z"] == pytest.approx(base["z"], rel=1e-9)


def test_ks_bootstrap_with_one_column_does_not_depend_on_the_draws():
    """d_eff = 1 simulates n × 1 matrices: each spectrum is one positive eigenvalue and n − 1 zeros, and the
    moment fit is scale-free, so every draw has the same KS distance and the quantile is the same for any
    random stream (with two columns it would vary)."""
    a = rm.ks_critical_bootstrap(6, 1.2, level=0.25, n_boot=8, rng=np.random.default_rng(1))
    b = rm.ks_critical_bootstrap(6, 1.2, level=0.25, n_boot=8, rng=np.random.default_rng(2))
    assert a == pytest.approx(b, rel=1e-9)
    c = rm.ks_critical_bootstrap(6, 2.0, level=0.25, n_boot=8, rng=np.random.default_rng(1))
    d = rm.ks_critical_bootstrap(6, 2.0, level=0.25, n_boot=8, rng=np.random.default_rng(2))
    assert c != pytest.approx(d, rel=1e-9)  # the control: two columns do depend on the draws
