"""Spectra of M*, PMI and PPMI, and the closed-form "svd(X)" embeddings built from them.

``svd(X)`` in the QWEM paper means: the top-``d`` eigenvectors of the symmetric matrix ``X`` (largest
*algebraic* eigenvalues), each scaled by the square root of its eigenvalue, ``W = U_d Λ_d^{1/2}``. This is
the rank-``d`` minimiser of ``||W Wᵀ - X||_F`` over ``V x d`` matrices (Eckart–Young restricted to
positive-semidefinite approximants), i.e. the global minimum of the QWEM loss when ``X = M*``.

Solvers
    ``eigh``     dense LAPACK, all eigenpairs (exact; fine up to V ≈ 3,000 on a laptop CPU);
    ``krylov``   randomized block Krylov with Rayleigh–Ritz (BLAS-3 only, a few ``V x V x b`` products);
                 it finds the top algebraic eigenpairs even when large *negative* eigenvalues exist, as
                 they do for M* (one eigenvalue near -1.4 V from the -2 entries of unseen pairs);
    ``eigsh``    ARPACK (``scipy.sparse.linalg.eigsh``), slow at d = 200 but a trusted reference;
    ``torch``    ``torch.linalg.eigh`` on ``config.device()`` (the GPU path of the paper preset).
``auto`` picks ``eigh`` for V ≤ 3,000, ``torch`` when a GPU is present, else ``krylov``.
"""

from __future__ import annotations

from typing import Literal, Sequence

import numpy as np

from . import config
from .cache import atomic_path, read_npz
from .corpus_stats import STREAM_VOCAB, OOVRule, TargetKind, cooccurrence, resolve_corpus, target_from_stats
from .data import Corpus

__all__ = ["top_eigenpairs", "embeddings_from_matrix", "spectral_embeddings", "count_nonnegative",
           "inertia", "eigen_features", "subspace_overlap"]

Method = Literal["auto", "eigh", "krylov", "eigsh", "torch"]


def _validate(M: np.ndarray, d: int) -> int:
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"need a square symmetric matrix, got shape {M.shape}")
    V = M.shape[0]
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    if d >= V:
        raise ValueError(f"d={d} must be smaller than the vocabulary size V={V}")
    return V


def _krylov(M: np.ndarray, d: int, *, block: int | None = None, depth: int = 10,
            seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Randomized block Krylov + Rayleigh–Ritz for the top-``d`` algebraic eigenpairs of symmetric M."""
    V = M.shape[0]
    b = block or min(V, d + max(16, d // 4))
    rng = np.random.default_rng([config.SEED, 991, seed])
    Q, _ = np.linalg.qr(rng.standard_normal((V, b)).astype(M.dtype))
    basis = [Q]
    images = []
    for _ in range(depth):
        Y = M @ basis[-1]
        images.append(Y)
        if sum(x.shape[1] for x in basis) >= V:
            break
        Z = Y.copy()
        B = np.concatenate(basis, axis=1)
        for _ in range(2):  # two passes of block Gram–Schmidt: numerically orthogonal basis
            Z -= B @ (B.T @ Z)
        Qn, R = np.linalg.qr(Z)
        keep = np.abs(np.diag(R)) > 1e-6 * np.abs(np.diag(R)).max()
        basis.append(Qn[:, keep])
        if not keep.any():
            break
    if len(images) < len(basis):
        images.append(M @ basis[-1])
    B = np.concatenate(basis, axis=1)
    MB = np.concatenate(images, axis=1)
    T = B.T @ MB
    T = 0.5 * (T + T.T)
    lam, S = np.linalg.eigh(T.astype(np.float64))
    order = np.argsort(lam)[::-1][:d]
    U = B.astype(np.float64) @ S[:, order]
    return lam[order], U


def top_eigenpairs(M: np.ndarray, d: int, *, method: Method = "auto",
                   depth: int = 10, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The ``d`` largest (algebraic) eigenvalues of symmetric ``M``, descending, and their eigenvectors.

    Returns ``(lam, U)`` with ``lam`` of shape ``(d,)`` and orthonormal ``U`` of shape ``(V, d)``; computes
    in ``M``'s dtype (float32 halves the time and memory; the accuracy is checked against float64 in the
    tests and in chapter 20).
    """
    V = _validate(M, d)
    if method == "auto":
        if V <= 3000:
            method = "eigh"
        elif config.device_name() == "cuda":
            method = "torch"
        else:
            method = "krylov"
    if method == "eigh":
        lam, U = np.linalg.eigh(M)
        lam, U = lam[::-1][:d], U[:, ::-1][:, :d]
    elif method == "krylov":
        lam, U = _krylov(M, d, depth=depth, seed=seed)
    elif method == "eigsh":
        from scipy.sparse.linalg import eigsh

        v0 = np.random.default_rng([config.SEED, 992, seed]).standard_normal(V).astype(M.dtype)
        lam, U = eigsh(M, k=d, which="LA", v0=v0)
        lam, U = lam[::-1], U[:, ::-1]
    elif method == "torch":
        import torch

        t = torch.from_numpy(np.ascontiguousarray(M)).to(config.device())
        ev, vec = torch.linalg.eigh(t)
        lam, U = ev.flip(0)[:d].cpu().numpy(), vec.flip(1)[:, :d].cpu().numpy()
        del t, ev, vec
    else:
        raise ValueError(f"method must be auto, eigh, krylov, eigsh or torch; got {method!r}")
    return np.ascontiguousarray(lam, dtype=np.float64), np.ascontiguousarray(U)


def embeddings_from_matrix(M: np.ndarray, d: int, *, method: Method = "auto",
                           **kw) -> tuple[np.ndarray, np.ndarray]:
    """``(W, lam)``: ``W = U_d diag(sqrt(max(λ, 0)))`` from the top-``d`` eigenpairs of ``M``.

    An eigenvalue below zero (possible for PMI at large d) contributes a zero column, as the best
    positive-semidefinite rank-d approximation would.
    """
    lam, U = top_eigenpairs(M, d, method=method, **kw)
    W = (U * np.sqrt(np.maximum(lam, 0.0))[None, :]).astype(np.float32)
    return W, lam


def spectral_embeddings(corpus: str | Corpus, V: int, d: int, target: TargetKind = "mstar",
                        window: int = 16, *, method: Method = "auto", dtype=np.float32,
                        oov: OOVRule = "authors", stream_vocab: int = STREAM_VOCAB,
                        use_cache: bool = True) -> tuple[list[str], np.ndarray]:
    """svd(target) embeddings of the top-``V`` words of a corpus: ``(words, W)`` with ``W`` of shape (V, d).

    ``target`` is ``"mstar"``, ``"pmi"`` or ``"ppmi"``; the statistics follow the authors' protocol
    (:func:`qwem_lib.corpus_stats.cooccurrence`; ``oov`` and ``stream_vocab`` choose the out-of-vocabulary
    rule, the authors' by default). Results for registered corpora are cached by
    (corpus, V, d, target, window, oov rule, method, dtype).
    """
    c = resolve_corpus(corpus)
    if not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    if isinstance(V, (int, np.integer)) and d >= V:
        raise ValueError(f"d={d} must be smaller than the vocabulary size V={V}")
    from .corpus_stats import _cooc_cache_path

    cpath = _cooc_cache_path(c, int(V), int(window), "linear", oov, stream_vocab) if use_cache else None
    path = None
    if cpath is not None:
        path = cpath.parent.parent / "spectral" / (
            cpath.stem.replace("-v1", "") + f"-d{d}-{target}-{method}-{np.dtype(dtype).name}-v2.npz")
        cached = read_npz(path, ("W",))
        if cached is not None:
            return c.vocab(int(V)), cached["W"]
    words, P, pu = cooccurrence(c, V, window, oov=oov, stream_vocab=stream_vocab, use_cache=use_cache)
    M = target_from_stats(P, pu, target, dtype=dtype)
    del P
    W, _ = embeddings_from_matrix(M, d, method=method)
    del M
    if path is not None:
        with atomic_path(path, ".npz") as tmp:
            np.savez(tmp, W=W)
    return words, W


def inertia(M: np.ndarray) -> tuple[int, int, int]:
    """``(n_positive, n_zero, n_negative)`` eigenvalue counts of symmetric ``M``.

    Sylvester's law of inertia: the Bunch–Kaufman factorisation ``M = L D Lᵀ`` (LAPACK ``?sytrf``, about
    a quarter of the cost of the eigenvalues) has a block-diagonal ``D`` with 1x1 and 2x2 blocks whose
    eigenvalues have ``M``'s signs. ``D`` is read straight from the factor (the unit triangle ``L`` is never
    formed), in ``M``'s precision: float32 halves the time at ``V = 10,000``.
    """
    from scipy.linalg import lapack
    from scipy.linalg.lapack import _compute_lwork

    _validate(M, 1) if M.shape[0] > 1 else None
    A = np.array(M, dtype=np.float32 if M.dtype == np.float32 else np.float64, order="F", copy=True)
    sytrf, sytrf_lwork = lapack.get_lapack_funcs(("sytrf", "sytrf_lwork"), (A,))
    lwork = _compute_lwork(sytrf_lwork, A.shape[0], lower=1)
    ldu, piv, info = sytrf(A, lwork=lwork, lower=1, overwrite_a=True)
    if info < 0:  # pragma: no cover - an argument error inside LAPACK
        raise ValueError(f"LAPACK sytrf failed with info={info}")
    ev = _block_diag_eigs(np.diag(ldu), np.diag(ldu, -1), piv)
    tol = 1e-12 * max(1.0, float(np.abs(ev).max()))
    return int((ev > tol).sum()), int((np.abs(ev) <= tol).sum()), int((ev < -tol).sum())


def _block_diag_eigs(diag: np.ndarray, off: np.ndarray, piv: np.ndarray) -> np.ndarray:
    """Eigenvalues of the block-diagonal D of a lower Bunch–Kaufman factor (``piv[k] < 0``: 2x2 block)."""
    n = diag.shape[0]
    diag, off = diag.astype(np.float64), off.astype(np.float64)
    ev = np.empty(n)
    i = 0
    while i < n:  # a loop over O(n) scalars only
        if piv[i] < 0 and i + 1 < n:
            a, b, c = diag[i], off[i], diag[i + 1]
            m, r = 0.5 * (a + c), np.hypot(0.5 * (a - c), b)
            ev[i], ev[i + 1] = m + r, m - r
            i += 2
        else:
            ev[i] = diag[i]
            i += 1
    return ev


def count_nonnegative(M: np.ndarray) -> int:
    """How many eigenvalues of symmetric ``M`` are ≥ 0 (the paper: 4,795 of 10,000 for its M*)."""
    pos, zero, _ = inertia(M)
    return pos + zero


def eigen_features(words: Sequence[str], U: np.ndarray, k: int = 10, *,
                   top_words: int | None = None) -> list[tuple[list[str], list[str]]]:
    """For each column of ``U``: the ``k`` words with the largest and with the smallest entries.

    The sign of an eigenvector is arbitrary; it is fixed here so that the largest-magnitude entry is
    positive. ``top_words`` restricts the lists to the most frequent words (the paper's Figure 3 reads
    its lists among frequent words).
    """
    U = np.asarray(U)
    n = U.shape[0] if top_words is None else min(top_words, U.shape[0])
    out = []
    for col in U[:n].T:
        s = np.sign(col[np.argmax(np.abs(col))]) or 1.0
        v = s * col
        order = np.argsort(v)
        out.append(([words[i] for i in order[::-1][:k]], [words[i] for i in order[:k]]))
    return out


def subspace_overlap(A: np.ndarray, B: np.ndarray) -> float:
    """Mean squared cosine of the principal angles between the column spaces of A and B (1 = identical)."""
    qa, _ = np.linalg.qr(np.asarray(A, dtype=np.float64))
    qb, _ = np.linalg.qr(np.asarray(B, dtype=np.float64))
    s = np.linalg.svd(qa.T @ qb, compute_uv=False)
    return float(np.mean(s ** 2))
