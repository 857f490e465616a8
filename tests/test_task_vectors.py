"""Tests of qwem_lib.qwem.task_vectors against independent computations (quadrature, simulation, hand cases)."""

import math

import numpy as np
import pytest

from qwem_lib.maths import random_matrix as rm
from qwem_lib.qwem import task_vectors as tv


def test_snr_and_overlap_hand_cases():
    R = np.outer(np.ones(5), [1.0, 2.0, 0.0])  # rank one: SNR = rank * lam / tr = 1
    assert tv.task_snr(R + 0.0) == pytest.approx(1.0)
    assert tv.task_snr(np.diag([2.0, 1.0, 1.0])) == pytest.approx(4.0 * 3 / 6.0)
    rng = np.random.default_rng(7)
    R3, mu = rm.spiked_matrix(50, np.full(100, 1e-6), 10.0, rng)
    assert tv.mean_overlap(R3) == pytest.approx(1.0, abs=1e-6)
    Q, _ = np.linalg.qr(rng.standard_normal((6, 6)))
    with pytest.raises(ValueError, match="mean task vector is zero"):
        tv.mean_overlap(np.vstack([Q[:3], -Q[:3]]))


def test_parallelogram_cosine_exact_for_exact_analogy():
    W = np.array([[1.0, 0, 0], [0, 1.0, 0], [1.0, 0, 1e-9], [0, 1.0, 1e-9]])
    assert tv.parallelogram_cosines(W, np.array([[0, 1, 2, 3]]))[0] == pytest.approx(1.0)


def test_task_vector_matrices_and_null_model():
    words = ["athens", "greece", "paris", "france", "rome", "italy", "berlin", "germany"]
    W = np.arange(len(words) * 3, dtype=float).reshape(-1, 3) ** 1.5
    path_lines = (
        ": capital-common-countries\nathens greece paris france\nrome italy berlin germany\n"
        "athens greece rome italy\n"
    )
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write(path_lines)
    out = tv.task_vector_matrices(words, W, fh.name)
    P, R = out["capital-common-countries"]
    assert P.tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    np.testing.assert_allclose(R, W[P[:, 1]] - W[P[:, 0]])
    rng = np.random.default_rng(0)
    Pn, Rn = tv.random_pair_matrix(W, 20, rng)
    assert (Pn[:, 0] != Pn[:, 1]).all() and Rn.shape == (20, 3)
    with pytest.raises(ValueError):
        tv.truncate(R, 0)


def test_bbp_overlaps_against_simulation():
    rng = np.random.default_rng(16)
    N, D = 200, 800
    for f in (2.0, 4.0):
        ell = f * rm.bbp_threshold(1.0, N, D)
        pred = rm.bbp_overlaps(ell, 1.0, N, D)
        meas = {"left": [], "right": [], "mean": []}
        for _ in range(10):
            R, mu = rm.spiked_matrix(N, np.ones(D), ell, rng)
            U, _, Vt = np.linalg.svd(R, full_matrices=False)
            meas["left"].append((U[:, 0] @ np.ones(N)) ** 2 / N)
            meas["right"].append((Vt[0] @ mu) ** 2 / (mu @ mu))
            meas["mean"].append(tv.mean_overlap(R))
        for k in meas:
            assert np.mean(meas[k]) == pytest.approx(pred[k], abs=0.03)
    assert rm.bbp_overlaps(0.5 * rm.bbp_threshold(1.0, N, D), 1.0, N, D)["mean"] == 0.0
    with pytest.raises(ValueError):
        rm.bbp_overlaps(-1.0, 1.0, N, D)


def test_random_pair_null_and_nearest_neighbour_cosine():
    rng = np.random.default_rng(18)
    W = rng.standard_normal((40, 6))
    a = tv.random_pair_null(W, 5, 7, tv.task_snr, np.random.default_rng(1))
    b = tv.random_pair_null(W, 5, 7, tv.task_snr, np.random.default_rng(1))
    assert a.shape == (7,) and np.array_equal(a, b)
    c = tv.random_pair_null(W, 5, 3, lambda R: tv.snr_curve(R, [2, 4]), rng)
    assert c.shape == (3, 2)
    with pytest.raises(ValueError):
        tv.random_pair_null(W, 2, 3, tv.task_snr, rng)
    with pytest.raises(TypeError):
        tv.random_pair_null(W, 5, 3, "snr", rng)
    ids = np.array([0, 7, 39])
    nn = tv.nearest_neighbour_cosine(W, ids, batch=2)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    for k, i in enumerate(ids):
        assert nn[k] == pytest.approx(max(Wn[i] @ Wn[j] for j in range(40) if j != i))


def test_analogy_margins_agree_with_analogy_accuracy():
    from qwem_lib.qwem.evaluation import _analogy_hits, normalize_rows

    rng = np.random.default_rng(10)
    W = rng.standard_normal((60, 8))
    items = np.array([rng.choice(60, 4, replace=False) for _ in range(200)])
    t, r = tv.analogy_margins(W, items, batch=64)
    np.testing.assert_array_equal(t > r, _analogy_hits(normalize_rows(W), items))
    # brute force for one item
    a, b, a2, b2 = items[0]
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    qv = Wn[b] - Wn[a] + Wn[a2]
    cos = Wn @ qv / np.linalg.norm(qv)
    others = [i for i in range(60) if i not in (a, b, a2, b2)]
    assert t[0] == pytest.approx(cos[b2]) and r[0] == pytest.approx(cos[others].max())


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def test_random_pair_matrix_draws_distinct_pairs_from_the_pool():
    rng = np.random.default_rng(0)
    W = rng.standard_normal((7, 3)).astype(np.float32)
    P, R = tv.random_pair_matrix(W, 400, np.random.default_rng(1))
    assert P.shape == (400, 2) and R.shape == (400, 3) and R.dtype == np.float64
    assert (P[:, 0] != P[:, 1]).all() and set(P.ravel()) == set(
        range(7)
    )  # every word, never a self-pair
    np.testing.assert_array_equal(R, W[P[:, 1]].astype(np.float64) - W[P[:, 0]].astype(np.float64))
    P2, _ = tv.random_pair_matrix(W, 300, np.random.default_rng(2), among=[5, 2, 2, 5])
    assert (
        set(P2.ravel()) == {2, 5} and (P2[:, 0] != P2[:, 1]).all()
    )  # two words: always (2,5) or (5,2)
    P3, _ = tv.random_pair_matrix(W, 1, np.random.default_rng(3), among=[0, 1])
    assert P3.shape == (1, 2)
    with pytest.raises(ValueError, match="among must hold at least two words to pair, got 1"):
        tv.random_pair_matrix(W, 5, rng, among=[3, 3])
    with pytest.raises(ValueError, match="n must be"):
        tv.random_pair_matrix(W, 0, rng)


def test_random_pair_null_stacks_one_statistic_per_draw():
    W = np.random.default_rng(0).standard_normal((9, 4))
    null = tv.random_pair_null(
        W, 3, 5, lambda R: [R.shape[0], R.sum()], np.random.default_rng(4), among=[1, 2, 3]
    )
    assert null.shape == (5, 2) and null.dtype == np.float64 and (null[:, 0] == 3).all()
    rng = np.random.default_rng(4)
    again = [tv.random_pair_matrix(W, 3, rng, among=[1, 2, 3])[1].sum() for _ in range(5)]
    np.testing.assert_allclose(
        null[:, 1], again
    )  # the same draws, in order, from the same generator
    for N in (2, 2.0, "3"):
        with pytest.raises(ValueError, match="N must be an integer >= 3"):
            tv.random_pair_null(W, N, 5, np.sum, np.random.default_rng(0))
    with pytest.raises(TypeError, match="stat must be"):
        tv.random_pair_null(W, 3, 5, 1.0, np.random.default_rng(0))


def test_task_snr_and_its_rank_tolerance():
    R = np.diag([3.0, 1.0, 1.0])  # eigenvalues of R R^T: 9, 1, 1
    assert tv.task_snr(R) == pytest.approx(9 * 3 / 11)
    R2 = np.diag([3.0, 1.0, 1e-6])  # the third eigenvalue 1e-12 is within rtol 1e-10 of 9: rank 2
    assert tv.task_snr(R2) == pytest.approx(9 * 2 / (10 + 1e-12))
    assert tv.task_snr(R2, rtol=1e-14) == pytest.approx(9 * 3 / (10 + 1e-12))
    assert tv.task_snr(np.diag([3.0, 3.0, 3.0])) == pytest.approx(1.0)  # flat
    for rtol in (0.0, 1.0, 2.0, -1e-3):
        with pytest.raises(ValueError, match="rtol"):
            tv.task_snr(R, rtol=rtol)


def test_mean_overlap_by_hand_and_its_zero_mean_check():
    R = np.array([[2.0, 0.0], [2.0, 0.0], [2.0, 1e-9]])
    assert tv.mean_overlap(R) == pytest.approx(1.0)
    R2 = np.array([[1.0, 3.0], [1.0, -3.0], [1.0, 0.0]])  # mean (1, 0); top direction (0, 1)
    assert tv.mean_overlap(R2) == pytest.approx(0.0, abs=1e-20)
    with pytest.raises(ValueError, match="mean task vector is zero"):
        tv.mean_overlap(np.array([[1.0, 2.0], [-1.0, -2.0], [0.0, 0.0]]))
    tiny_mean = np.array([[1e6, 0.0], [-1e6, 0.0], [3e-7, 0.0]])  # |mean| 1e-7 <= 1e-12 * 1e6: zero
    with pytest.raises(ValueError, match="zero"):
        tv.mean_overlap(tiny_mean)
    tiny_mean[2, 0] = 3e-5  # |mean| 1e-5 > 1e-6: a direction
    assert tv.mean_overlap(tiny_mean) == pytest.approx(1.0)


def test_truncate_keeps_the_first_columns_and_checks_d():
    R = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(tv.truncate(R, 4), R)
    for d in (0, 5):
        with pytest.raises(ValueError, match="d must be"):
            tv.truncate(R, d)


def test_task_vector_matrices_by_hand(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(": caps\na b c d\ne f a b\n: two\na c e g\n")
    words = list("abcdefg")
    W = np.arange(14.0).reshape(7, 2).astype(np.float32)
    out = tv.task_vector_matrices(words, W, p)
    assert set(out) == {"caps"}  # 'two' has 2 pairs, below min_pairs = 3
    P, R = out["caps"]
    assert P.tolist() == [[0, 1], [2, 3], [4, 5]] and R.dtype == np.float64
    np.testing.assert_array_equal(R, W[P[:, 1]].astype(np.float64) - W[P[:, 0]])
    assert set(tv.task_vector_matrices(words, W, p, min_pairs=3)) == {"caps"}  # exactly 3 is enough
    assert tv.task_vector_matrices(words, W, p, min_pairs=4) == {}
    with pytest.raises(ValueError, match="W must have one row per word: 7 words"):
        tv.task_vector_matrices(words, W[:6], p)
    with pytest.raises(ValueError, match="min_pairs"):
        tv.task_vector_matrices(words, W, p, min_pairs=2)


def test_parallelogram_cosines_by_hand():
    W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [-1.0, 3.0]])
    c = tv.parallelogram_cosines(W, np.array([[0, 1, 2, 3], [0, 1, 2, 2]]))
    q = W[1] / np.sqrt(2) - W[0] + W[2]
    q = q / np.linalg.norm(q)
    np.testing.assert_allclose(c, [q @ W[3] / np.linalg.norm(W[3]), q @ W[2]], rtol=1e-6)
    assert np.isfinite(tv.parallelogram_cosines(W, np.array([[0, 0, 1, 2]]))).all()


def test_analogy_margins_and_nearest_neighbours_by_hand():
    W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 2.0], [-1.0, 0.2], [0.6, 0.8]])
    items = np.array([[0, 1, 2, 3], [0, 1, 2, 4]])
    t, r = tv.analogy_margins(W, items)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    q = Wn[1] - Wn[0] + Wn[2]
    q /= np.linalg.norm(q)
    np.testing.assert_allclose(t, [q @ Wn[3], q @ Wn[4]], rtol=1e-6)
    np.testing.assert_allclose(r, [max(q @ Wn[4], q @ Wn[5]), max(q @ Wn[3], q @ Wn[5])], rtol=1e-6)
    for batch in (1, 2):
        t2, r2 = tv.analogy_margins(W, items, batch=batch)
        np.testing.assert_array_equal(t2, t)
        np.testing.assert_array_equal(r2, r)
    nn = tv.nearest_neighbour_cosine(W, [0, 3, 5])
    C = Wn @ Wn.T
    np.fill_diagonal(C, -np.inf)
    np.testing.assert_allclose(nn, C[[0, 3, 5]].max(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(tv.nearest_neighbour_cosine(W, [0, 3, 5], batch=1), nn)
    np.testing.assert_allclose(tv.nearest_neighbour_cosine(W[:2], [0, 1]), [C[0, 1]] * 2, rtol=1e-6)
    with pytest.raises(ValueError, match="at least 2 rows"):
        tv.nearest_neighbour_cosine(W[:1], [0])
    with pytest.raises(ValueError, match=r"ids must hold word ids in 0\.\.5, got 0\.\.6"):
        tv.nearest_neighbour_cosine(W, [0, 6])
    with pytest.raises(ValueError, match=r"ids must be an array of word ids of shape \(n,\)"):
        tv.nearest_neighbour_cosine(W, [[0, 1]])
    with pytest.raises(
        ValueError,
        match=r"items must be an array of word ids of shape \(n, 4\), got shape \(2, 3\)",
    ):
        tv.analogy_margins(W, items[:, :3])
    with pytest.raises(ValueError, match="integer word ids"):
        tv.analogy_margins(W, items.astype(float))
    for bad in (0, 1.5):
        with pytest.raises(ValueError, match="batch"):
            tv.nearest_neighbour_cosine(W, [0], batch=bad)
    assert tv.nearest_neighbour_cosine(W, np.array([5], dtype=np.int32)).shape == (1,)


def test_snr_rank_and_mean_overlap_thresholds_are_relative_to_the_right_scale():
    # the rank counts eigenvalues above rtol times the largest: 1e-9 is below 1e-10 x 100 (rank 2) although
    # it is above 1e-10 / 100
    R = np.diag([10.0, 1.0, math.sqrt(1e-9)])
    assert tv.task_snr(R) == pytest.approx(100.0 * 2 / (101.0 + 1e-9))
    # the zero-mean threshold is 1e-12 times the largest row norm (1e6 here), not the matrix's norm (1.4e6)
    R2 = np.array([[1e6, 0.0], [-1e6, 0.0], [3.6e-6, 0.0]])  # |mean| = 1.2e-6 > 1e-6
    assert tv.mean_overlap(R2) == pytest.approx(1.0)


def test_parallelogram_cosines_against_a_loop():
    rng = np.random.default_rng(9)
    W = rng.standard_normal((12, 3))
    items = np.array([rng.choice(12, 4, replace=False) for _ in range(5)])
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    want = []
    for a, b, a2, b2 in items:
        q = Wn[b] - Wn[a] + Wn[a2]
        want.append(q @ Wn[b2] / np.linalg.norm(q))
    np.testing.assert_allclose(tv.parallelogram_cosines(W, items), want, rtol=1e-6)


# --- edges found by mutation testing (issue 45) ------------------------------------------------
def test_parallelogram_cosines_and_margins_against_a_direct_cosine():
    """Many items at once (so no shape coincidence) and queries shorter than 1, checked against the cosine
    computed directly; both are unchanged when W is scaled."""
    rng = np.random.default_rng(0)
    W = rng.normal(size=(12, 5))
    W[9] = -W[1] / np.linalg.norm(W[1]) + 0.2 * W[0] / np.linalg.norm(
        W[0]
    )  # a short query: b̂ − â + â' ≈ −0.8â
    items = np.array([rng.choice(12, 4, replace=False) for _ in range(7)] + [[0, 1, 9, 3]])
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    q = Wn[items[:, 1]] - Wn[items[:, 0]] + Wn[items[:, 2]]
    assert (np.linalg.norm(q, axis=1) < 1).any()  # some queries are shorter than a unit vector
    want = np.einsum("ij,ij->i", q, Wn[items[:, 3]]) / np.linalg.norm(q, axis=1)
    # normalize_rows works in float32: agreement to its rounding
    np.testing.assert_allclose(tv.parallelogram_cosines(W, items), want, rtol=0, atol=1e-6)
    np.testing.assert_allclose(tv.parallelogram_cosines(1e-3 * W, items), want, rtol=0, atol=1e-6)
    target, rival = tv.analogy_margins(W, items)
    np.testing.assert_allclose(target, want, rtol=0, atol=1e-6)  # normalize_rows works in float32
    np.testing.assert_allclose(tv.analogy_margins(1e3 * W, items)[0], want, rtol=0, atol=1e-6)


def test_random_pairs_are_uniform_over_the_other_words():
    """Given its first word, a random pair's second word is uniform over the others (collisions are
    redrawn one by one, not all to one shared word)."""
    W = np.eye(3)
    P, R = tv.random_pair_matrix(W, 30_000, np.random.default_rng(1))
    assert np.all(P[:, 0] != P[:, 1])
    for a in range(3):
        b = P[P[:, 0] == a, 1]
        share = np.mean(b == min(set(range(3)) - {a}))
        assert abs(share - 0.5) < 0.03  # standard error about 0.005
    np.testing.assert_array_equal(R, W[P[:, 1]] - W[P[:, 0]])


def test_task_snr_is_scale_free():
    R = np.random.default_rng(2).normal(size=(8, 20))
    R[:, 0] += 3.0
    for c in (1e-4, 1e4):
        assert tv.task_snr(c * R) == pytest.approx(tv.task_snr(R), rel=1e-10)
