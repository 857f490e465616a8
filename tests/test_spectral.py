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
    ((pos, neg),) = sp.eigen_features(words, U, k=2)
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
    c = Corpus(
        "tiny-unregistered", ids, [f"w{i}" for i in range(12)], np.bincount(ids, minlength=12)
    )
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


# --- hard spectra: every method against a dense float64 eigh (issue 16) ---------------------------------


def _with_spectrum(lam, seed=0):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((lam.size, lam.size)))
    return (Q * lam) @ Q.T


def hard_spectra():
    rng = np.random.default_rng(11)
    V = 300
    yield "identity", np.eye(V)
    yield "two_values", _with_spectrum(np.repeat([5.0, -1.0], V // 2), 1)
    yield (
        "repeated_top",
        _with_spectrum(np.concatenate([np.full(8, 10.0), np.linspace(5, -5, V - 8)]), 2),
    )
    yield (
        "clustered_top",
        _with_spectrum(
            np.concatenate([10 + 1e-3 * rng.standard_normal(12), rng.uniform(-3, 3, V - 12)]), 3
        ),
    )
    yield "slow_decay", _with_spectrum(1.0 / np.arange(1, V + 1) ** 0.3, 4)
    yield (
        "large_negative",
        _with_spectrum(np.concatenate([np.linspace(3, 0, V - 2), [-2000.0, -400.0]]), 5),
    )


@pytest.mark.parametrize("method", ["krylov", "eigsh", "torch", "eigh"])
@pytest.mark.parametrize("name,M", list(hard_spectra()), ids=[n for n, _ in hard_spectra()])
def test_hard_spectra(method, name, M):
    d = 10
    ref = np.linalg.eigvalsh(M)[::-1][:d]
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter(
            "error", sp.EigenConvergenceWarning
        )  # a non-converged answer fails the test
        if (
            method == "eigsh" and name == "two_values"
        ):  # ARPACK cannot: it must say so, not answer wrongly
            with pytest.raises(RuntimeError, match="did not converge"):
                sp.top_eigenpairs(M, d, method=method)
            return
        lam, U = sp.top_eigenpairs(M, d, method=method)
    scale = np.abs(np.linalg.eigvalsh(M)).max()
    np.testing.assert_allclose(lam, ref, atol=1e-7 * scale)
    np.testing.assert_allclose(U.T @ U, np.eye(d), atol=1e-7)
    assert np.linalg.norm(M @ U - U * lam, axis=0).max() <= 1e-6 * scale
    # the span is right even where single eigenvectors are not unique (repeated or clustered values):
    # the top-d invariant subspace, when it is separated from the rest
    ev, EV = np.linalg.eigh(M)
    if ev[-d] - ev[-d - 1] > 1e-6 * scale:
        assert sp.subspace_overlap(U, EV[:, -d:]) > 1 - 1e-8


@pytest.mark.parametrize("name,M", list(hard_spectra()), ids=[n for n, _ in hard_spectra()])
def test_krylov_float32_hard_spectra(name, M):
    import warnings

    d = 10
    ref = np.linalg.eigvalsh(M)[::-1][:d]
    scale = np.abs(ref).max() if name != "large_negative" else 2000.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", sp.EigenConvergenceWarning)
        lam, U = sp.top_eigenpairs(M.astype(np.float32), d, method="krylov")
    assert U.dtype == np.float32
    np.testing.assert_allclose(lam, ref, atol=2e-4 * scale)
    np.testing.assert_allclose(U.T.astype(np.float64) @ U, np.eye(d), atol=1e-5)
    assert np.linalg.norm(M @ U - U * lam, axis=0).max() <= 2e-4 * scale


def test_krylov_warns_when_it_cannot_converge():
    M = _with_spectrum(np.concatenate([10 + 1e-6 * np.arange(30), np.linspace(9.9999, -5, 270)]), 7)
    with pytest.warns(sp.EigenConvergenceWarning, match="did not converge"):
        sp.top_eigenpairs(M, 10, method="krylov", depth=2, max_cycles=1, tol=1e-14)


def test_top_eigenpairs_validates_input():
    with pytest.raises(ValueError, match="not symmetric"):
        sp.top_eigenpairs(np.triu(np.ones((5, 5))), 2)
    for method in ("eigh", "krylov", "eigsh"):
        with pytest.raises(ValueError, match="not symmetric"):
            sp.top_eigenpairs(np.arange(16.0).reshape(4, 4), 1, method=method)
    bad = np.eye(4)
    bad[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sp.top_eigenpairs(bad, 1)
    with pytest.raises(TypeError):
        sp.top_eigenpairs(np.eye(3, dtype=complex), 1)
    with pytest.raises(ValueError):
        sp.top_eigenpairs(np.eye(3), True)
    # plain lists and integer arrays are converted, not refused with an AttributeError
    lam, U = sp.top_eigenpairs([[2, 0, 0], [0, 1, 0], [0, 0, 3]], 2)
    np.testing.assert_allclose(lam, [3.0, 2.0])
    lam, U = sp.top_eigenpairs(np.diag([2, 1, 3]), 1, method="krylov")
    np.testing.assert_allclose(lam, [3.0])
    assert sp.inertia([[1.0, 0.0], [0.0, -2.0]]) == (1, 0, 1)
    assert sp.inertia([[0.0]]) == (0, 1, 0)


# --- spectral_embeddings against an independent computation, through its cache (issue 16) ---------------


def _tiny_registered(tmp_path, monkeypatch):
    import hashlib
    import lzma

    from qwem_lib import data

    monkeypatch.setenv("QWEM_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("QWEM_OFFLINE", "1")
    data.files._VERIFIED.clear()
    rng = np.random.default_rng(8)
    vocab = [f"w{chr(97 + i)}" for i in range(14)]
    p = 1.0 / np.arange(1, 15)
    text = " " + " ".join(vocab[i] for i in rng.choice(14, size=4000, p=p / p.sum()))
    rel = "corpus/spec_tiny.txt.xz"
    f = tmp_path / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(lzma.compress(text.encode()))
    data.register(
        data.Dataset(
            "spec_tiny",
            "corpus",
            "test",
            (data.FileSpec(rel, hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_size),),
        )
    )
    return data.load_corpus("spec_tiny")


def _independent_W(corpus, V, d, target, window):
    """Pairs counted by a plain loop, P, the target by its formula, a dense eigh: W Wᵀ of svd(target)."""
    ids = [int(t) for t in np.asarray(corpus.ids)]
    C = np.zeros((V, V))
    for t in range(len(ids)):
        for j in range(1, window + 1):
            if t + j < len(ids) and ids[t] < V and ids[t + j] < V:
                C[ids[t], ids[t + j]] += window + 1 - j
                C[ids[t + j], ids[t]] += window + 1 - j
    P = C / C.sum()
    pu = np.asarray(corpus.counts[:V], dtype=float)
    pu /= pu.sum()
    Q = np.outer(pu, pu)
    X = {
        "mstar": 2 * (P - Q) / (P + Q),
        "pmi": np.log(P / Q + 1e-25),
        "ppmi": np.maximum(np.log(P / Q + 1e-25), 0),
    }[target]
    lam, U = np.linalg.eigh(X)
    lam, U = lam[::-1][:d], U[:, ::-1][:, :d]
    return (U * np.maximum(lam, 0)) @ U.T


@pytest.mark.parametrize("target,window", [("mstar", 3), ("mstar", 5), ("pmi", 3), ("ppmi", 4)])
def test_spectral_embeddings_match_independent_computation(tmp_path, monkeypatch, target, window):
    c = _tiny_registered(tmp_path, monkeypatch)
    V, d = 10, 3
    want = _independent_W(c, V, d, target, window)
    words, W = sp.spectral_embeddings("spec_tiny", V, d, target, window)
    assert words == c.words[:V]
    np.testing.assert_allclose(W.astype(np.float64) @ W.T, want, atol=2e-5 * np.abs(want).max())
    # the second call comes from the cache (the file exists) and is identical
    cached = list((tmp_path / "cache" / "spectral").glob(f"*{target}*"))
    assert len(cached) == 1
    np.testing.assert_array_equal(sp.spectral_embeddings("spec_tiny", V, d, target, window)[1], W)
    # a damaged cache entry is discarded with a warning and recomputed, not used
    cached[0].write_bytes(cached[0].read_bytes()[:40])
    with pytest.warns(RuntimeWarning, match="damaged"):
        W2 = sp.spectral_embeddings("spec_tiny", V, d, target, window)[1]
    np.testing.assert_array_equal(W2, W)


def test_spectral_embeddings_validates_dtype():
    with pytest.raises(TypeError, match="float32 or float64"):
        sp.spectral_embeddings("enwiki2015_1m7", 10, 3, dtype=np.int64)  # used to return all-zero W


def test_read_only_cache_folder_does_not_stop_the_book(tmp_path, monkeypatch):
    import os

    from qwem_lib import config

    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    if os.access(
        ro, os.W_OK
    ):  # running as root: permissions are not enforced, use an uncreatable path
        (tmp_path / "file").write_text("x")
        bad = tmp_path / "file" / "cache"
    else:
        bad = ro / "cache"
    monkeypatch.setenv("QWEM_CACHE_DIR", str(bad))
    config._CACHE_FALLBACK.pop(str(bad), None)
    with pytest.warns(RuntimeWarning, match="cannot be used"):
        d = config.cache_dir()
    assert d != bad and d.is_dir() and os.access(d, os.W_OK)
    (tmp_path / "data").mkdir()
    _tiny_registered(tmp_path / "data", monkeypatch)
    monkeypatch.setenv(
        "QWEM_CACHE_DIR", str(bad)
    )  # the corpus, counts and embeddings are cached in the fallback
    words, W = sp.spectral_embeddings("spec_tiny", 8, 2)
    assert W.shape == (8, 2) and (d / "spectral").is_dir()
    assert sp.spectral_embeddings("spec_tiny", 8, 2, use_cache=False)[1].shape == (8, 2)
    ro.chmod(0o700)


@pytest.mark.parametrize("V", [512, 577, 640])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compiled_symmetry_check_agrees_with_the_numpy_reference(V, dtype):
    """The one-pass compiled check (V >= 512, C-contiguous) against the NumPy row-block path (F-ordered copy)."""
    rng = np.random.default_rng(V)
    A = rng.standard_normal((V, V))
    M = (A + A.T).astype(dtype)
    sp._check_symmetric_finite(M)  # symmetric: both paths accept
    sp._check_symmetric_finite(np.asfortranarray(M))
    for i, j in (
        (0, V - 1),
        (V - 1, 3),
        (V // 2, V // 2 + 1),
    ):  # one entry off, anywhere in the tiles
        bad = M.copy()
        bad[i, j] += 1e-2
        for arr in (bad, np.asfortranarray(bad)):
            with pytest.raises(ValueError, match="not symmetric"):
                sp._check_symmetric_finite(arr)
    for i, j, v in (
        (V - 1, V - 1, np.nan),
        (5, V - 2, np.inf),
        (V - 2, 5, -np.inf),
    ):  # diagonal, both triangles
        bad = M.copy()
        bad[i, j] = v
        for arr in (bad, np.asfortranarray(bad)):
            with pytest.raises(ValueError, match="NaN or infinite"):
                sp._check_symmetric_finite(arr)
    bad = M.copy()
    bad[1, 2] += 10 * np.finfo(dtype).eps * np.abs(M).max()  # rounding-level asymmetry is accepted
    sp._check_symmetric_finite(bad)
