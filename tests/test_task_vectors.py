"""Tests of qwem_lib.qwem.task_vectors against independent computations (quadrature, simulation, hand cases)."""

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
