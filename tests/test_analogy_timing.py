"""Tests of qwem_lib.beyond.analogy_timing (and evaluation.analogy_hits, evaluation.pair_bootstrap_weights) against
independent computations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import qwem_lib as q
from qwem_lib.beyond import analogy_timing as at


def _pairs_items(n_pairs_by_cat, rng, V=40):
    """Items in the layout of the "pairs" protocol: every ordered pair of distinct word pairs."""
    items, cat = [], []
    for c, k in enumerate(n_pairs_by_cat):
        words = rng.choice(V, size=2 * k, replace=False)
        P = words.reshape(k, 2)
        for i, j in itertools.permutations(range(k), 2):
            items.append([*P[i], *P[j]])
            cat.append(c)
    return np.array(items, dtype=np.int64), np.array(cat, dtype=np.int64)


def test_lemma_embeddings_solve_the_aligned_ode():
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.standard_normal((12, 3)))[0]
    lam = np.array([3.0, 1.5, 0.4])
    s0 = np.array([1e-3, 2e-3, 5e-4])
    t = 4.0
    # Lemma 3.1 for one aligned mode: d(s²)/dt = s²(λ − s²), integrated numerically
    ref = [
        solve_ivp(lambda _t, y, L=L: y * (L - y), (0, t), [s], rtol=1e-10, atol=1e-14).y[0, -1]
        for L, s in zip(lam, s0)
    ]
    W = at.lemma_embeddings(Q, lam, s0, t)
    np.testing.assert_allclose(W.T @ W, np.diag(ref), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(W @ W.T, (Q * ref) @ Q.T, rtol=1e-6, atol=1e-12)
    with pytest.raises(ValueError):
        at.lemma_embeddings(Q, -lam, s0, t)
    with pytest.raises(ValueError):
        at.lemma_embeddings(Q, lam[:2], s0[:2], t)
    with pytest.raises(ValueError):
        at.lemma_embeddings(Q, lam, 0.0, t)


def test_analogy_hits_brute_force():
    rng = np.random.default_rng(1)
    V, d = 30, 5
    W = rng.standard_normal((V, d))
    items = np.array([rng.choice(V, 4, replace=False) for _ in range(60)])
    # plant a few exact analogies so that some items are answered right
    for it in items[:20]:
        W[it[3]] = W[it[1]] - W[it[0]] + W[it[2]]
    hits = q.analogy_hits(W, items)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    ref = []
    for a, b, a2, b2 in items:
        x = Wn[b] - Wn[a] + Wn[a2]
        best, best_w = -np.inf, -1
        for w in range(V):
            if w in (a, b, a2):
                continue
            s = float(Wn[w] @ x)
            if s > best:
                best, best_w = s, w
        ref.append(best_w == b2)
    assert np.array_equal(hits, np.array(ref))
    assert 0 < hits.sum() < len(hits)  # both outcomes occur
    with pytest.raises(ValueError):
        q.analogy_hits(W, items.astype(float))
    with pytest.raises(ValueError):
        q.analogy_hits(W, items + V)
    W0 = W.copy()
    W0[items[0, 0]] = 0
    with pytest.raises(ValueError, match="all-zero"):
        q.analogy_hits(W0, items)


def test_hit_curves_and_category_curves_loop():
    rng = np.random.default_rng(2)
    items, cat = _pairs_items([4, 3, 5], rng)
    Ws = [rng.standard_normal((40, 6)) for _ in range(3)]
    H = at.hit_curves(Ws, items)
    assert H.shape == (3, len(items))
    for t, W in enumerate(Ws):
        assert np.array_equal(H[t], q.analogy_hits(W, items))
    w = rng.random(len(items))
    A = at.category_curves(H, cat, [2, 0], weights=w)
    for t in range(3):
        for j, c in enumerate([2, 0]):
            num = sum(w[i] * H[t, i] for i in range(len(items)) if cat[i] == c)
            den = sum(w[i] for i in range(len(items)) if cat[i] == c)
            assert A[t, j] == pytest.approx(num / den)
    assert np.isnan(at.category_curves(H, cat, [7])).all()


def test_pair_bootstrap_weights_count_the_analogies_of_the_resampled_pairs():
    rng = np.random.default_rng(3)
    items, cat = _pairs_items([4, 6], rng)
    idx, n_pairs = q.pair_index(items, cat)
    assert n_pairs == {0: 4, 1: 6}
    for i, (c, it) in enumerate(zip(cat, items)):  # the indices name the item's own pairs
        uniq = np.unique(np.concatenate([items[cat == c, :2], items[cat == c, 2:]]), axis=0)
        assert tuple(uniq[idx[i, 0]]) == tuple(it[:2]) and tuple(uniq[idx[i, 1]]) == tuple(it[2:])
    seed = 11
    Wb = q.pair_bootstrap_weights(items, cat, 5, rng=np.random.default_rng(seed))
    # the same draws, replayed: build the resampled analogies explicitly and count them
    r = np.random.default_rng(seed)
    draws = {c: [r.integers(0, k, k) for _ in range(5)] for c, k in n_pairs.items()}
    for b in range(5):
        count = np.zeros(len(items))
        for c, k in n_pairs.items():
            d = draws[c][b]
            for u, v in itertools.permutations(range(k), 2):  # positions of two distinct draws
                p, p2 = d[u], d[v]
                if p == p2:
                    continue
                m = np.nonzero((cat == c) & (idx[:, 0] == p) & (idx[:, 1] == p2))[0]
                count[m] += 1
        np.testing.assert_array_equal(Wb[b], count)


def test_crossing_times_by_hand():
    t = np.array([0.0, 1.0, 2.0, 3.0])
    A = np.array([[0.0, 0.0, 0.0], [0.2, 0.5, 0.0], [0.6, 0.5, 0.0], [0.8, 1.0, 0.0]])
    out = at.crossing_times(t, A)
    # column 0: half of 0.8 = 0.4 reached between t = 1 (0.2) and t = 2 (0.6): t = 1.5
    assert out[0] == pytest.approx(1.5)
    assert out[1] == pytest.approx(1.0)
    assert np.isnan(out[2])  # final value 0: undefined
    assert at.crossing_times(t, A[:, 0], share=1.0)[0] == pytest.approx(3.0)
    assert at.crossing_times(t, A[:, 0], final=2.0)[0] == pytest.approx(np.nan, nan_ok=True)
    with pytest.raises(ValueError):
        at.crossing_times(t[::-1], A)
    with pytest.raises(ValueError):
        at.crossing_times(t, A, share=0.0)


def test_eigen_flow_snapshots_equal_separate_runs():
    rng = np.random.default_rng(4)
    lam = np.array([2.0, 1.0, 0.5, 0.2])
    Y0 = 1e-3 * rng.standard_normal((4, 2))
    steps = np.array([0, 30, 75, 200])
    S = at.eigen_flow_snapshots(lam, Y0, lr=0.05, steps=steps)
    np.testing.assert_array_equal(S[0], Y0)
    for s, Y in zip(steps[1:], S[1:]):
        # the plain recursion, written out
        R = Y0.copy()
        for _ in range(int(s)):
            R = R - 0.05 * (R @ (R.T @ R) - lam[:, None] * R)
        np.testing.assert_allclose(Y, R, rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError):
        at.eigen_flow_snapshots(lam, Y0, lr=0.05, steps=np.array([5, 3]))


def test_word2vec_snapshots_validates_before_training():
    with pytest.raises(ValueError):
        at.word2vec_snapshots("tiny", 50, 5, np.array([0.5, 0.9]))
    with pytest.raises(ValueError):
        at.word2vec_snapshots("tiny", 50, 5, np.array([0.6, 0.3, 1.0]))
