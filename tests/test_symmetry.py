"""Tests of qwem_lib.beyond.symmetry against independent computations (loops, dense tables, worked cases)."""

import itertools

import numpy as np
import pytest

from qwem_lib.beyond import symmetry as sy
from qwem_lib.qwem.corpus_stats import cooccurrence_counts


def _random_circulant(n, rng):
    c = rng.standard_normal(n // 2 + 1)
    i, j = np.indices((n, n))
    k = np.abs(i - j)
    return c[np.minimum(k, n - k)]


def test_set_counts_match_full_table():
    rng = np.random.default_rng(1)
    ids = rng.zipf(1.3, size=6000) - 1
    ids = np.minimum(ids, 400).astype(np.int64)
    V, sv = 60, 200  # stream vocabulary 200: ids 200..400 are removed before windowing
    members = np.array([3, 17, 5, 41, 8])
    C, total = sy.set_counts(ids, members, V, window=5, stream_vocab=sv)
    table = cooccurrence_counts(ids, V, 5, stream_vocab=sv)
    assert np.array_equal(C, table[np.ix_(members, members)])
    assert total == table.sum()


def test_set_counts_plain_loop():
    ids = np.array([0, 1, 2, 0, 9, 1, 2, 2, 0, 1])
    C, total = sy.set_counts(ids, np.array([0, 1, 2]), V=3, window=2, stream_vocab=5)
    s = [x for x in ids if x < 5]  # 9 removed
    ref = np.zeros((3, 3))
    tot = 0
    for j in (1, 2):
        for a, b in zip(s[:-j], s[j:]):
            if a < 3 and b < 3:
                ref[a, b] += 3 - j
                ref[b, a] += 3 - j
                tot += 2 * (3 - j)
    assert np.array_equal(C, ref) and total == tot


def test_set_counts_validation():
    with pytest.raises(ValueError):
        sy.set_counts(np.arange(10), np.array([1, 1]), 5)
    with pytest.raises(ValueError):
        sy.set_counts(np.arange(10), np.array([1, 7]), 5)
    with pytest.raises(ValueError):
        sy.set_counts(np.arange(10), np.array([1, 2]), 50, stream_vocab=20)


def test_r2_statistics():
    rng = np.random.default_rng(2)
    B = _random_circulant(9, rng)
    assert sy.cyclic_r2(B) == pytest.approx(1.0)
    i, j = np.indices((9, 9))
    T = np.abs(i - j).astype(float) ** 1.5
    assert sy.linear_r2(T) == pytest.approx(1.0)
    assert sy.cyclic_r2(T) < 0.99
    N = rng.standard_normal((9, 9))
    N = N + N.T
    # a plain two-pass computation of the cyclic-distance R² on the off-diagonal entries
    groups = {}
    for a in range(9):
        for b in range(9):
            if a != b:
                groups.setdefault(min(abs(a - b), 9 - abs(a - b)), []).append(N[a, b])
    allv = np.concatenate([np.array(v) for v in groups.values()])
    within = sum(((np.array(v) - np.mean(v)) ** 2).sum() for v in groups.values())
    assert sy.cyclic_r2(N) == pytest.approx(1 - within / ((allv - allv.mean()) ** 2).sum())
    with pytest.raises(ValueError):
        sy.cyclic_r2(np.ones((2, 2)))
    with pytest.raises(ValueError):
        sy.cyclic_r2(np.full((4, 4), np.nan))


@pytest.mark.parametrize("n", [5, 6, 7, 12])
def test_fourier_basis_orthonormal_and_diagonalises_circulants(n):
    F, freq = sy.fourier_basis(n)
    assert np.allclose(F.T @ F, np.eye(n))
    assert freq.max() == n // 2 and np.bincount(freq).sum() == n
    B = _random_circulant(n, np.random.default_rng(n))
    D = F.T @ B @ F
    assert np.allclose(D, np.diag(np.diag(D)), atol=1e-10)
    # eigenvalue of frequency m is the cosine transform of the first row (the dense DFT)
    lam_dft = np.real(np.fft.fft(B[0]))
    assert np.allclose(np.diag(D), lam_dft[freq])


def test_fourier_power_and_block_modes():
    n = 12
    t = np.arange(n)
    v = np.cos(2 * np.pi * 3 * t / n + 0.4)
    p = sy.fourier_power(v)
    assert p.shape == (7,) and p[3] == pytest.approx(1.0)
    # a circulant with decreasing profile has frequency-ordered eigenvectors
    i, j = np.indices((n, n))
    k = np.abs(i - j)
    B = np.exp(-np.minimum(k, n - k) / 2.0)
    lam, power = sy.block_modes(B)
    assert np.all(np.diff(lam) <= 1e-12)
    dom = power.argmax(axis=0)
    assert list(dom[:5]) == [0, 1, 1, 2, 2]
    with pytest.raises(ValueError):
        sy.block_modes(np.triu(B))


def test_circle_and_angle_scores():
    n = 12
    th = 2 * np.pi * np.arange(n) / n
    X = np.stack([3 * np.cos(th), np.sin(th), np.zeros(n)], axis=1) + 5.0  # an ellipse, shifted
    assert sy.circle_score(X) == pytest.approx(1.0)
    assert sy.adjacent_in_angle(X) == n
    assert sy.adjacent_in_angle(X[::-1]) == n
    perm = np.array([0, 5, 2, 7, 4, 9, 6, 11, 8, 1, 10, 3])
    assert sy.circle_score(X[perm]) < 0.5
    # the null mean of the circle score over all orders of a small set is 2/(n − 1) (exhaustive check)
    m = 5
    th5 = 2 * np.pi * np.arange(m) / m
    Y = np.stack([np.cos(th5), np.sin(th5)], axis=1)
    vals = [sy.circle_score(Y[list(p)]) for p in itertools.permutations(range(m))]
    assert np.mean(vals) == pytest.approx(2 / (m - 1))
    with pytest.raises(ValueError):
        sy.circle_score(np.ones((4, 2)))


def test_frequency_energy_and_acquisition():
    rng = np.random.default_rng(4)
    V, n = 40, 6
    Q, _ = np.linalg.qr(rng.standard_normal((V, V)))
    E = sy.frequency_energy(Q[:n])
    F, freq = sy.fourier_basis(n)
    assert np.allclose(E.sum(axis=1), np.bincount(freq))  # complete basis: all the energy
    lam = np.linspace(3.0, 0.1, V)
    r = sy.acquisition_ranks(E, lam)
    cum = np.cumsum(E * lam, axis=1)
    for m in range(E.shape[0]):  # plain search
        k = next(k for k in range(V) if cum[m, k] >= 0.5 * cum[m, -1])
        assert r[m] == k + 1
    # one mode per frequency: acquisition time = that mode's exact half time (1/λ) ln((λ − s0²)/s0²)
    E1 = np.zeros((3, 3))
    E1[[0, 1, 2], [2, 0, 1]] = 1.0
    lam1 = np.array([2.0, 1.0, 0.5])
    t = np.linspace(0, 60, 60001)
    ta = sy.acquisition_times(E1, lam1, 1e-6, t)
    half = np.log((lam1 - 1e-6) / 1e-6) / lam1
    assert np.allclose(ta, half[[2, 0, 1]], atol=1e-5)


def test_mstar_block_matches_full_mstar_and_jackknife():
    import qwem_lib as q

    c = q.load_corpus("enwiki2015_1m7")
    words = ["january", "february", "march", "the", "of"]
    V = 800
    B = sy.mstar_block(c, words, V=V, window=16)
    w, P, pu = q.cooccurrence(c, V, window=16)
    idx = [w.index(x) for x in words]
    M = q.mstar_from_stats(P, pu)
    assert np.allclose(B, M[np.ix_(idx, idx)], rtol=0, atol=1e-12)
    Bp = sy.mstar_block(c, words, V=V, target="pmi")
    assert np.allclose(Bp, q.pmi_from_stats(P, pu)[np.ix_(idx, idx)], atol=1e-10)
    ids = np.asarray(c.ids)[:200_000]
    jk = sy.jackknife_blocks(ids, np.array(idx), V, n_chunks=4)
    # leave-one-out block 0 = the block of the stream without its first quarter (up to cut pairs)
    rest = np.array_split(ids, 4)
    Cr, tr = sy.set_counts(np.concatenate(rest[1:]), np.array(idx), V)
    u = np.bincount(np.concatenate(rest[1:])[np.concatenate(rest[1:]) < V], minlength=V) / 1.0
    pr = (u / u.sum())[idx]
    ref = 2 * (Cr / tr - np.outer(pr, pr)) / (Cr / tr + np.outer(pr, pr))
    assert len(jk) == 4 and np.allclose(jk[0], ref, atol=2e-3)
