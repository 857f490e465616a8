"""Unit tests for qwem_lib.spectral: solvers against dense eigh, float32 vs float64, inertia, errors."""

from __future__ import annotations

import numpy as np
import pytest

from qwem_lib import spectral as sp
from qwem_lib.data import Corpus


def planted(V=300, seed=0):
    """A symmetric matrix with a large negative outlier (like M*'s -2 entries) and a clear top spectrum."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((V, V)))
    lam = np.concatenate([np.linspace(60, 20, 20), rng.normal(0, 2, V - 21), [-900.0]])
    return (Q * lam) @ Q.T, np.sort(lam)[::-1]


@pytest.mark.parametrize("method", ["eigh", "krylov", "eigsh", "torch"])
def test_top_eigenpairs_match_dense(method):
    M, lam_true = planted()
    lam, U = sp.top_eigenpairs(M, 10, method=method)
    np.testing.assert_allclose(lam, lam_true[:10], rtol=1e-8)
    np.testing.assert_allclose(U.T @ U, np.eye(10), atol=1e-8)
    np.testing.assert_allclose(M @ U, U * lam, atol=1e-6)


def test_krylov_float32_close_to_float64():
    M, lam_true = planted(seed=1)
    lam32, U32 = sp.top_eigenpairs(M.astype(np.float32), 15, method="krylov")
    lam64, U64 = sp.top_eigenpairs(M, 15, method="eigh")
    assert np.max(np.abs(lam32 - lam64) / lam64) < 1e-5
    assert sp.subspace_overlap(U32, U64) > 1 - 1e-6


def test_embeddings_reconstruct_psd_part():
    M, _ = planted(V=120, seed=2)
    W, lam = sp.embeddings_from_matrix(M, 20, method="eigh")
    assert W.shape == (120, 20) and W.dtype == np.float32
    lam_all, U_all = np.linalg.eigh(M)
    top = U_all[:, -20:] * lam_all[-20:]
    np.testing.assert_allclose(W @ W.T, top @ U_all[:, -20:].T, atol=1e-3)


def test_inertia_and_count():
    M, lam_true = planted(V=200, seed=3)
    pos, zero, neg = sp.inertia(M)
    assert pos == int((lam_true > 0).sum()) and neg == int((lam_true < 0).sum()) and zero == 0
    assert sp.count_nonnegative(M) == int((lam_true >= 0).sum())
    # 2x2 pivots appear for indefinite matrices with zero diagonal
    J = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert sp.inertia(J) == (1, 0, 1)
    # float32 gives the same counts, and many 2x2 pivots still give the eigenvalue counts
    assert sp.count_nonnegative(M.astype(np.float32)) == int((lam_true >= 0).sum())
    rng = np.random.default_rng(5)
    A = rng.standard_normal((300, 300))
    A = A + A.T
    np.fill_diagonal(A, 0.0)
    ev = np.linalg.eigvalsh(A)
    assert sp.inertia(A) == (int((ev > 0).sum()), 0, int((ev < 0).sum()))


def test_eigen_features_sign_and_order():
    words = [f"w{i}" for i in range(6)]
    U = np.array([[0.1], [-0.9], [0.3], [0.2], [-0.1], [0.0]])
    (pos, neg), = sp.eigen_features(words, U, k=2)
    assert pos == ["w1", "w4"]  # sign flipped so that the largest-magnitude entry is positive
    assert neg == ["w2", "w3"]


def test_subspace_overlap():
    A = np.eye(5)[:, :2]
    assert sp.subspace_overlap(A, A @ np.array([[1.0, 2.0], [3.0, 1.0]])) == pytest.approx(1.0)
    assert sp.subspace_overlap(A, np.eye(5)[:, 2:4]) == pytest.approx(0.0)


def test_spectral_embeddings_on_tiny_corpus_and_errors():
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 12, size=3000).astype(np.int32)
    counts = np.bincount(ids, minlength=12)
    order = np.lexsort((np.arange(12), -counts))
    rank = np.empty(12, dtype=np.int32)
    rank[order] = np.arange(12)
    ids = rank[ids]
    c = Corpus("tiny-unregistered", ids, [f"w{i}" for i in range(12)], np.bincount(ids, minlength=12))
    for target in ("mstar", "pmi", "ppmi"):
        words, W = sp.spectral_embeddings(c, 10, 3, target, window=4)
        assert words == c.words[:10] and W.shape == (10, 3) and np.all(np.isfinite(W))
    with pytest.raises(ValueError, match="smaller than"):
        sp.spectral_embeddings(c, 10, 10)
    with pytest.raises(ValueError):
        sp.spectral_embeddings(c, 100, 3)  # V larger than the vocabulary
    with pytest.raises(ValueError):
        sp.spectral_embeddings(c, 10, 3, "glove")
    with pytest.raises(ValueError):
        sp.top_eigenpairs(np.zeros((3, 4)), 1)
    with pytest.raises(ValueError):
        sp.top_eigenpairs(np.eye(3), 1, method="magic")
