"""Spectra of M*, PMI and PPMI, and the closed-form "svd(X)" embeddings built from them.

``svd(X)`` in the QWEM paper means: the top-``d`` eigenvectors of the symmetric matrix ``X`` (largest
*algebraic* eigenvalues), each scaled by the square root of its eigenvalue, ``W = U_d Λ_d^{1/2}``. This is
the rank-``d`` minimiser of ``||W Wᵀ - X||_F`` over ``V x d`` matrices (Eckart–Young restricted to
positive-semidefinite approximants), i.e. the global minimum of the QWEM loss when ``X = M*``.

The solvers (``method=``):

``eigh``
    dense LAPACK, all eigenpairs (exact; fine up to V ≈ 3,000 on a laptop CPU);
``krylov``
    restarted block Krylov with Rayleigh–Ritz, deflation and locking (BLAS-3 only); it finds the top
    algebraic eigenpairs even when large *negative* eigenvalues exist, as they do for M* (one eigenvalue
    near -1.4 V from the -2 entries of unseen pairs), converges every pair to a stated residual
    tolerance, and warns when it cannot;
``eigsh``
    ARPACK (``scipy.sparse.linalg.eigsh``), slow at d = 200 but a trusted reference;
``torch``
    ``torch.linalg.eigh`` on ``config.device()`` (the GPU path of the paper preset).

``auto`` picks ``eigh`` for V ≤ 3,000, ``torch`` when a GPU is present, else ``krylov``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..book import checks, config
from ..book.cache import cached, entry
from ..data import Corpus
from .corpus_stats import (
    STREAM_VOCAB,
    OOVRule,
    TargetKind,
    cooccurrence_table,
    counts_key,
    resolve_corpus,
    target_from_counts,
    tile_pairs,
)

__all__ = [
    "wide_spectral_embeddings",
    "warm_up_kernels",
    "EigenConvergenceWarning",
    "top_eigenpairs",
    "embeddings_from_matrix",
    "spectral_embeddings",
    "count_nonnegative",
    "inertia",
    "eigen_features",
]

Method = Literal["auto", "eigh", "krylov", "eigsh", "torch"]


class EigenConvergenceWarning(RuntimeWarning):
    """The iterative eigensolver stopped before every requested residual met its tolerance."""


def _validate(M, d) -> tuple[np.ndarray, int]:
    """``M`` as a finite, symmetric, floating-point square array, and its size; clear errors otherwise."""
    if not isinstance(M, np.ndarray):
        if hasattr(M, "detach"):  # a torch tensor
            M = M.detach().cpu().numpy()
        M = np.asarray(M)
    if M.dtype.kind not in "fiub":
        raise checks.ArgumentTypeError(f"M must be a real matrix, got dtype {M.dtype}")
    if M.dtype.kind != "f":
        M = M.astype(np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"M must be a square symmetric matrix, got shape {M.shape}")
    V = M.shape[0]
    checks.integer("d", d, low=1)
    if d >= V:
        raise ValueError(f"d must be smaller than the size of M, V={V}, got {d!r}")
    _check_symmetric_finite(M)
    return M, V


_SYMMETRY_KERNEL = None


def _symmetry_kernel():
    """The compiled one-pass check of :func:`_check_symmetric_finite` (built on first use, cached on disk)."""
    global _SYMMETRY_KERNEL
    if _SYMMETRY_KERNEL is None:
        import numba

        @numba.njit(parallel=True, nogil=True, cache=True)
        def symmetry_stats(M, tiles, out):  # pragma: no cover - compiled
            # out[item] = (number of non-finite entries, max |M_ij|, max |M_ij - M_ji|) over one tile on or
            # above the diagonal and its mirror (corpus_stats.tile_pairs): every entry is read once, so the
            # 0.4 GB of a V = 10,000 float32 matrix is streamed once, on all threads
            for item in numba.prange(tiles.shape[0]):
                i0, i1, j0, j1 = tiles[item, 0], tiles[item, 1], tiles[item, 2], tiles[item, 3]
                nonfinite, big, asym = 0.0, 0.0, 0.0
                for i in range(i0, i1):
                    for j in range(max(j0, i), j1):
                        x = M[i, j]
                        y = M[j, i]
                        if not (np.isfinite(x) and np.isfinite(y)):
                            nonfinite += 1.0
                            continue
                        big = max(big, abs(x), abs(y))
                        asym = max(asym, abs(x - y))
                out[item, 0] = nonfinite
                out[item, 1] = big
                out[item, 2] = asym
            return 0

        _SYMMETRY_KERNEL = symmetry_stats
    return _SYMMETRY_KERNEL


def _check_symmetric_finite(M: np.ndarray, block: int = 1024) -> None:
    """Raise if ``M`` has a non-finite entry or differs from ``Mᵀ`` beyond rounding.

    A C-contiguous float matrix is checked in one compiled pass over pairs of mirror tiles; anything else
    (and matrices below 512 x 512) in NumPy row blocks, which is the reference the tests compare against.
    """
    V = M.shape[0]
    if V >= 512 and M.flags.c_contiguous and M.dtype in (np.float32, np.float64):
        tiles = tile_pairs(V)
        stats = np.zeros((tiles.shape[0], 3))
        _symmetry_kernel()(M, tiles, stats)
        if stats[:, 0].sum() > 0:
            raise ValueError("M must hold finite numbers, got NaN or infinite entries")
        scale, worst = float(stats[:, 1].max()), float(stats[:, 2].max())
    else:
        scale, worst = 0.0, 0.0
        for i in range(0, V, block):
            rows, cols = M[i : i + block], M[:, i : i + block].T
            if not np.isfinite(rows).all():
                raise ValueError("M must hold finite numbers, got NaN or infinite entries")
            scale = max(scale, float(np.abs(rows).max()))
            worst = max(worst, float(np.abs(rows - cols).max()))
    if worst > 100 * np.finfo(M.dtype).eps * max(scale, np.finfo(M.dtype).tiny):
        raise ValueError(
            f"M must be symmetric and it is not symmetric: max |M - Mᵀ| = {worst:.3g} (max |M| = {scale:.3g}); "
            "symmetrise it, e.g. 0.5 * (M + M.T), if that is what you mean"
        )


def _orthonormal_complement(
    Z: np.ndarray, B: np.ndarray | None, drop: float, coef: np.ndarray | None = None
) -> np.ndarray:
    """An orthonormal basis of the part of span(Z) orthogonal to the orthonormal columns of ``B``.

    Two passes of block Gram–Schmidt against ``B``, then an eigen-decomposition of the Gram matrix (rank
    revealing): directions whose norm after projection is below ``drop`` are rounding noise and are
    discarded (deflation), so the basis stops growing when the Krylov space is invariant, as it is for a
    matrix with repeated eigenvalues. A third pass cures the rounding of the normalisation when some kept
    direction lost more than 90% of its length in the projection. ``coef``, when
    given, receives the first pass's coefficients ``Bᵀ Z`` (in block Krylov they are a block column of the
    projected matrix, so Rayleigh–Ritz need not compute it again).
    """
    z0 = float(np.einsum("ij,ij->j", Z, Z).max()) if Z.shape[1] else 0.0
    for p in range(2):
        if B is not None and B.shape[1]:
            c = B.T @ Z
            if p == 0 and coef is not None:
                coef[...] = c
            Z -= B @ c
    w, E = np.linalg.eigh((Z.T @ Z).astype(np.float64))
    keep = w > drop**2
    if not keep.any():
        return Z[:, :0]
    Q = Z @ (E[:, keep] / np.sqrt(w[keep])).astype(Z.dtype)
    if B is None or not B.shape[1] or w[keep].min() > 1e-2 * z0:
        # no direction lost more than 90% of its length: the normalisation amplifies the rounding left by
        # the two passes at most 10-fold, so one more pass would change nothing that matters
        return Q
    Q -= B @ (B.T @ Q)
    w, E = np.linalg.eigh((Q.T @ Q).astype(np.float64))
    keep = w > 0.25
    return Q @ (E[:, keep] / np.sqrt(w[keep])).astype(Z.dtype)


def _ritz(T: np.ndarray, n_top: int, n_low: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_top`` largest Ritz pairs of symmetric ``T`` (descending), then its ``n_low`` smallest."""
    from scipy.linalg import eigh

    n = T.shape[0]
    n_top = min(n, n_top)
    th, S = eigh(T, subset_by_index=[n - n_top, n - 1], driver="evr")
    n_low = min(n_low, n - n_top)
    if n_low > 0:
        tl, Sl = eigh(T, subset_by_index=[0, n_low - 1], driver="evr")
        return np.concatenate([th[::-1], tl[::-1]]), np.concatenate(
            [S[:, ::-1], Sl[:, ::-1]], axis=1
        )
    return th[::-1], S[:, ::-1]


def _krylov(
    M: np.ndarray,
    d: int,
    *,
    depth: int = 6,
    oversample: int | None = None,
    tol: float | None = None,
    max_cycles: int = 50,
    n_low: int = 4,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Restarted block Krylov with locking for the top-``d`` *algebraic* eigenpairs of symmetric ``M``.

    Each cycle extends the active block ``X`` to ``[L, X, MX, …, M^{depth-1}X]`` (``L``: the locked, already
    converged Ritz vectors; every block orthonormalised against all earlier ones, twice, with deflation),
    solves the projected problem (Rayleigh–Ritz) and computes every residual ``‖M u − θ u‖``. Ritz pairs
    whose residual is at most ``tol · ‖M‖₂`` are locked (no more products with ``M``); the rest, plus
    ``oversample`` spare pairs and the ``n_low`` lowest Ritz vectors, restart the next cycle (convergence is
    confirmed with fresh products ``M U``, since carried images accumulate rounding). Keeping the
    lowest ones deflates a large *negative* eigenvalue (M* has one near −1.4 V), which otherwise slows the
    convergence at the top. ``‖M‖₂`` is estimated by the largest |Ritz value| seen.

    Cost: the block products with ``M`` (BLAS-3, at the CPU's peak) dominate. The rest is kept small: the basis
    and its image are filled in place in two preallocated arrays; the projected matrix ``T = Bᵀ M B`` takes
    its block columns from the first Gram–Schmidt pass (``Bᵀ (M Q)`` is computed there anyway) and computes
    only the locked block and the last block; Rayleigh–Ritz runs in ``M``'s precision (a subset ``evr``); the
    Ritz vectors and their images are formed once per cycle.

    Returns ``(lam, U, rel_residuals)``; warns with :class:`EigenConvergenceWarning` when ``max_cycles``
    cycles do not reach the tolerance (``tol`` defaults to 1e-4 in float32, 1e-8 in float64).
    """
    V, dt = M.shape[0], M.dtype
    for name, v, least in (("depth", depth, 2), ("max_cycles", max_cycles, 1), ("n_low", n_low, 0)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {v!r}")
    eps = float(np.finfo(dt).eps)
    tol = (1e-4 if dt == np.float32 else 1e-8) if tol is None else float(tol)
    if not tol > 0:
        raise ValueError(f"tol must be positive, got {tol}")
    b = min(V, d + (max(16, d // 8) if oversample is None else int(oversample)))
    rng = np.random.default_rng([config.SEED, 991, seed])
    X = _orthonormal_complement(rng.standard_normal((V, b)).astype(dt), None, 0.0)
    AX = M @ X
    L, ML = X[:, :0], X[:, :0]
    noise = 100 * eps * np.sqrt(V) * max(float(np.abs(AX).max()), np.finfo(dt).tiny)
    norm_est = 0.0
    cap = min(
        V, d + depth * (b + n_low)
    )  # the widest basis a cycle can build: locked + depth blocks
    Bbuf, MBbuf = (
        np.empty((V, cap), dtype=dt),
        np.empty((V, cap), dtype=dt),
    )  # filled in place, never copied
    Tbuf = np.zeros((cap, cap))
    for _cycle in range(max_cycles):
        k = 0
        for blk, img in ((L, ML), (X, AX)):
            Bbuf[:, k : k + blk.shape[1]], MBbuf[:, k : k + blk.shape[1]] = blk, img
            k += blk.shape[1]
        edges = [0, L.shape[1], k]
        last = X.shape[1]
        for _ in range(depth - 1):
            if k >= cap:
                break
            # the first pass's coefficients Bᵀ(M Q_last) are the block column of T = Bᵀ M B above Q_last
            Q = _orthonormal_complement(
                MBbuf[:, k - last : k].copy(), Bbuf[:, :k], noise, Tbuf[:k, k - last : k]
            )
            Q = Q[:, : cap - k]
            if Q.shape[1] == 0:  # the space is invariant: Rayleigh–Ritz on it is exact
                break
            last = Q.shape[1]
            Bbuf[:, k : k + last] = Q
            MBbuf[:, k : k + last] = M @ Q
            k += last
            edges.append(k)
        B, MB = Bbuf[:, :k], MBbuf[:, :k]
        T = Tbuf[:k, :k]
        for j0, j1 in zip(
            edges[:-1], edges[1:]
        ):  # the upper block triangle (T is symmetric), except the
            if j1 > j0 and (j1 == k or j0 == 0):  # block columns the orthogonalisation filled in
                T[:j1, j0:j1] = B[:, :j1].T @ MB[:, j0:j1]
        iu = np.triu_indices(k, 1)
        T[iu[1], iu[0]] = T[iu]
        # in M's precision: T's entries carry float32 rounding already, and float32 halves the cost
        theta, S = _ritz(T.astype(dt), b, n_low)
        theta = theta.astype(np.float64)
        norm_est = max(norm_est, float(np.abs(theta).max()), np.finfo(dt).tiny)
        m = min(b, k)
        S32 = S.astype(dt)
        BS, MBS = B @ S32, MB @ S32  # every kept Ritz vector and its image, once
        U, MU = BS[:, :m], MBS[:, :m]
        res = np.linalg.norm((MU - U * theta[:m].astype(dt)).astype(np.float64), axis=0) / norm_est
        done = res <= tol
        if done[:d].all():  # confirm with fresh products: the carried images accumulate rounding
            MU[:, :d] = M @ U[:, :d]
            res[:d] = (
                np.linalg.norm(
                    (MU[:, :d] - U[:, :d] * theta[:d].astype(dt)).astype(np.float64), axis=0
                )
                / norm_est
            )
            done = res <= tol
            if done[:d].all():
                break
        lock = np.flatnonzero(done[:d])
        active = [j for j in range(S.shape[1]) if not (j < d and done[j])]
        L, ML = U[:, lock], MU[:, lock]
        X, AX = BS[:, active], MBS[:, active]
        c = (
            L.T @ X
        )  # keep the active block orthonormal to the locked one, carrying the images along
        X -= L @ c
        AX -= ML @ c
        w, E = np.linalg.eigh((X.T @ X).astype(np.float64))
        C = (E / np.sqrt(w)).astype(dt)
        X, AX = X @ C, AX @ C
    else:
        warnings.warn(
            f"block Krylov did not converge in {max_cycles} cycles: the largest residual is "
            f"{res[:d].max():.2e} x ||M|| > tol = {tol:.1e}; the eigenpairs may be inaccurate "
            "(raise max_cycles or depth, or use method='eigh')",
            EigenConvergenceWarning,
            stacklevel=3,
        )
    return theta[:d].copy(), U[:, :d], res[:d]


def _check_eigsh_answer(M: np.ndarray, lam: np.ndarray, U: np.ndarray, tol: float | None) -> None:
    """Raise ``RuntimeError`` unless ARPACK's pairs are orthonormal with ``‖M u − λ u‖ ≤ tol · max|λ|``.

    Whether ARPACK converges on a hard spectrum (highly repeated eigenvalues) depends on rounding, hence
    on the BLAS and its thread count; what must not depend on them is that an answer it returns is right.
    Its own test is on Ritz estimates; this one recomputes the residuals with fresh products ``M U``.
    ``max|λ|`` over the returned values is at most ``‖M‖₂``, so the test is at least as strict as
    :func:`_krylov`'s. ``tol`` defaults to 1e-4 in float32, 1e-8 in float64, as there.
    """
    eps = float(np.finfo(M.dtype).eps)
    tol = (1e-4 if M.dtype == np.float32 else 1e-8) if tol is None else float(tol)
    U64 = U.astype(np.float64)
    scale = max(float(np.abs(lam).max()), np.finfo(M.dtype).tiny)
    res = np.linalg.norm(M @ U - U * lam.astype(M.dtype), axis=0).astype(np.float64) / scale
    ortho = float(np.abs(U64.T @ U64 - np.eye(U.shape[1])).max())
    if not (np.all(np.isfinite(lam)) and res.max() <= tol and ortho <= max(tol, 1000 * eps)):
        raise RuntimeError(
            "ARPACK (method='eigsh') did not converge: it returned pairs with relative residual "
            f"{res.max():.2e} (tol {tol:.1e}) and orthonormality error {ortho:.2e}; highly repeated "
            "eigenvalues can defeat it, use method='krylov' or 'eigh'"
        )


def top_eigenpairs(
    M: np.ndarray,
    d: int,
    *,
    method: Method = "auto",
    depth: int = 6,
    tol: float | None = None,
    max_cycles: int = 50,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``d`` largest (algebraic) eigenvalues of symmetric ``M``, descending, and their eigenvectors.

    Returns ``(lam, U)`` with ``lam`` of shape ``(d,)`` and orthonormal ``U`` of shape ``(V, d)``; computes
    in ``M``'s dtype (float32 halves the time and memory). ``M`` is checked first: square, finite and
    symmetric up to rounding (a non-symmetric matrix raises ``ValueError``; lists and integer arrays are
    converted). ``method="krylov"`` converges every returned pair to ``‖M u − λ u‖ ≤ tol · ‖M‖₂`` or warns
    (:class:`EigenConvergenceWarning`); see :func:`_krylov`. ``method="eigsh"`` (ARPACK) either returns
    pairs that meet the same residual test, recomputed here, or raises ``RuntimeError`` ("did not
    converge"); which of the two happens on a hard spectrum depends on the BLAS and its threads.

    Parameters
    ----------
    M : (V, V) array
        Symmetric matrix (float32 or float64).
    d : int
        How many of the largest eigenvalues (``1 <= d <= V``).
    method : {"auto", "eigh", "krylov", "eigsh", "torch"}
        ``"auto"``: dense ``eigh`` up to V = 3,000, else torch on a GPU or the block Krylov method.
    depth, tol, max_cycles, seed
        The Krylov method's block depth, residual tolerance (None: from the dtype), restart cycles and
        start seed.

    Returns
    -------
    lam : (d,) array
        The eigenvalues, descending.
    U : (V, d) array
        Orthonormal eigenvectors, ``M @ U ≈ U * lam``.

    Raises
    ------
    ValueError
        For a non-square, non-finite or non-symmetric ``M``, or ``d`` outside ``1..V``.

    Examples
    --------
    >>> import numpy as np
    >>> M = np.diag([3.0, -5.0, 1.0, 2.0])
    >>> lam, U = top_eigenpairs(M, 2)  # largest algebraic, not largest in magnitude
    >>> lam.tolist(), np.abs(U[:, 0]).argmax().item()
    ([3.0, 2.0], 0)
    """
    M, V = _validate(M, d)
    depth = checks.positive_int("depth", depth)
    max_cycles = checks.positive_int("max_cycles", max_cycles)
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
        lam, U, _ = _krylov(M, d, depth=depth, tol=tol, max_cycles=max_cycles, seed=seed)
    elif method == "eigsh":
        from scipy.sparse.linalg import ArpackNoConvergence, eigsh

        v0 = np.random.default_rng([config.SEED, 992, seed]).standard_normal(V).astype(M.dtype)
        try:
            lam, U = eigsh(M, k=d, which="LA", v0=v0)
        except ArpackNoConvergence as err:
            raise RuntimeError(
                f"ARPACK (method='eigsh') did not converge: {err}; highly repeated eigenvalues "
                "can defeat it, use method='krylov' or 'eigh'"
            ) from err
        lam, U = lam[::-1], U[:, ::-1]
        _check_eigsh_answer(M, lam, U, tol)
    elif method == "torch":
        import torch

        t = torch.from_numpy(np.ascontiguousarray(M)).to(config.device())
        ev, vec = torch.linalg.eigh(t)
        lam, U = ev.flip(0)[:d].cpu().numpy(), vec.flip(1)[:, :d].cpu().numpy()
        del t, ev, vec
    else:
        raise ValueError(f"method must be auto, eigh, krylov, eigsh or torch; got {method!r}")
    return np.ascontiguousarray(lam, dtype=np.float64), np.ascontiguousarray(U)


def embeddings_from_matrix(
    M: np.ndarray, d: int, *, method: Method = "auto", dtype: Any = np.float32, **kw
) -> tuple[np.ndarray, np.ndarray]:
    """``(W, lam)``: ``W = U_d diag(sqrt(max(λ, 0)))`` from the top-``d`` eigenpairs of ``M``.

    An eigenvalue below zero (possible for PMI at large d) contributes a zero column, as the best
    positive-semidefinite rank-d approximation would. ``W`` is returned in ``dtype`` (float32 by default,
    the embeddings' storage type throughout the book; float64 keeps the eigenvectors' full precision when
    ``M`` is float64), ``lam`` in float64.
    """
    dt = np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"dtype must be float32 or float64, got {dt}")
    lam, U = top_eigenpairs(M, d, method=method, **kw)
    W = (U * np.sqrt(np.maximum(lam, 0.0))[None, :]).astype(dt)
    return W, lam


def spectral_embeddings(
    corpus: str | Corpus,
    V: int,
    d: int,
    target: TargetKind = "mstar",
    window: int = 16,
    *,
    method: Method = "auto",
    dtype=np.float32,
    oov: OOVRule = "authors",
    stream_vocab: int = STREAM_VOCAB,
    use_cache: bool = True,
) -> tuple[list[str], np.ndarray]:
    """svd(target) embeddings of the top-``V`` words of a corpus: ``(words, W)``, ``W = Q_[d] Λ_[d]^{1/2}``.

    The statistics follow the authors' protocol (:func:`qwem_lib.qwem.corpus_stats.cooccurrence`).

    Parameters
    ----------
    corpus : str or Corpus
        A registered corpus name or a loaded corpus.
    V : int
        The vocabulary size.
    d : int
        The embedding dimension, ``1 <= d < V``.
    target : {"mstar", "pmi", "ppmi"}, default "mstar"
        The matrix factorised: QWEM's ``M*``, PMI (unseen pairs at the guard value) or positive PMI.
    window : int, default 16
        The context window.
    method : {"auto", "eigh", "krylov", "eigsh", "torch"}, default "auto"
        The eigensolver (:func:`top_eigenpairs`).
    dtype : {numpy.float32, numpy.float64}, default float32
        The precision of the target matrix, its eigensolve and the returned ``W``.
    oov, stream_vocab
        The out-of-vocabulary rule (the authors' by default).
    use_cache : bool, default True
        Read and fill the cache (registered corpora; keyed by every input).

    Returns
    -------
    words : list of str
        The top-``V`` words, most frequent first.
    W : numpy.ndarray, shape (V, d)
        The embeddings, in ``dtype``; a negative eigenvalue among the top ``d`` gives a zero column.

    Raises
    ------
    ValueError
        If an argument is out of range (``V`` beyond the vocabulary, ``d >= V``, an unknown target).
    TypeError
        If ``dtype`` is not float32 or float64.

    Examples
    --------
    >>> words, W = spectral_embeddings("enwiki2015_1m7", 300, 20)
    >>> W.shape, W.dtype.name
    ((300, 20), 'float32')
    """
    if np.dtype(dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(
            f"dtype must be float32 or float64, got {np.dtype(dtype)} (an integer target would "
            "round M* to zero)"
        )
    V = checks.integer("V", V, low=2)
    d = checks.integer("d", d, low=1)
    if d >= V:
        raise ValueError(f"d must be smaller than the vocabulary size V={V}, got {d!r}")
    checks.one_of("target", target, ("mstar", "pmi", "ppmi"))
    c = resolve_corpus(corpus)
    ckey = counts_key(c, int(V), int(window), "linear", oov, stream_vocab) if use_cache else None
    path = None
    # float64 entries before v5 held float32 embeddings; float32 entries are unchanged (their v4 kept)
    version = "v5" if np.dtype(dtype) == np.float64 else "v4"
    if ckey is not None:
        path = entry(
            "spectral", f"{ckey}-d{d}-{target}-{method}-{np.dtype(dtype).name}-{version}.npz"
        )

    def compute() -> dict[str, np.ndarray]:
        _, C, pu = cooccurrence_table(
            c, V, window, oov=oov, stream_vocab=stream_vocab, use_cache=use_cache
        )
        in_place = (
            target == "mstar"
            and C.flags.c_contiguous
            and C.flags.writeable
            and C.itemsize == np.dtype(dtype).itemsize
        )  # M* in the count table's memory
        M = target_from_counts(C, pu, target, dtype=dtype, out=C.view(dtype) if in_place else None)
        del C
        return {"W": embeddings_from_matrix(M, d, method=method, dtype=dtype)[0]}

    out, _ = cached(path, compute, required=("W",), shapes={"W": (int(V), int(d))}, finite=("W",))
    return c.vocab(int(V)), out["W"]


def inertia(M: np.ndarray) -> tuple[int, int, int]:
    """``(n_positive, n_zero, n_negative)`` eigenvalue counts of symmetric ``M``.

    Sylvester's law of inertia: the Bunch–Kaufman factorisation ``M = L D Lᵀ`` (LAPACK ``?sytrf``, about
    a quarter of the cost of the eigenvalues) has a block-diagonal ``D`` with 1x1 and 2x2 blocks whose
    eigenvalues have ``M``'s signs. ``D`` is read straight from the factor (the unit triangle ``L`` is never
    formed), in ``M``'s precision: float32 halves the time at ``V = 10,000``.
    """
    from scipy.linalg import lapack
    from scipy.linalg.lapack import _compute_lwork

    if not isinstance(M, np.ndarray) or M.dtype.kind != "f":
        M = checks.finite_array("M", M, allow_nonfinite=True)  # refuses strings; finiteness below
    if M.ndim == 2 and M.shape == (1, 1):
        v = float(M[0, 0])
        if not np.isfinite(v):
            raise ValueError("M must hold finite numbers, got NaN or infinite entries")
        return int(v > 0), int(v == 0), int(v < 0)
    M, _ = _validate(M, 1)
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


def eigen_features(
    words: Sequence[str], U: np.ndarray, k: int = 10, *, top_words: int | None = None
) -> list[tuple[list[str], list[str]]]:
    """For each column of ``U``: the ``k`` words with the largest and with the smallest entries.

    The sign of an eigenvector is arbitrary; it is fixed here so that the largest-magnitude entry is
    positive. ``top_words`` restricts the lists to the most frequent words (the paper's Figure 3 reads
    its lists among frequent words).
    """
    U = checks.finite_array("U", U, ndim=2, dtype=None)
    if U.shape[0] > len(words):
        raise ValueError(f"U must have one row per word: {len(words)} words, U has shape {U.shape}")
    k = checks.positive_int("k", k)
    n = (
        U.shape[0]
        if top_words is None
        else min(checks.positive_int("top_words", top_words), U.shape[0])
    )
    out = []
    for col in U[:n].T:
        s = np.sign(col[np.argmax(np.abs(col))]) or 1.0
        v = s * col
        order = np.argsort(v)
        out.append(([words[i] for i in order[::-1][:k]], [words[i] for i in order[:k]]))
    return out


def warm_up_kernels() -> float:
    """Build (or load from numba's on-disk cache) the pipeline's compiled kernels on tiny inputs; seconds taken.

    The kernels: the tokeniser (:mod:`qwem_lib.data.tokenizer`), the count, the symmetrisation, the normalisation,
    the fused M* (float32 and float64) and the symmetry check of :mod:`qwem_lib.qwem.spectral`'s input.

    The first call on a machine compiles them (seconds); later processes load the cached machine code. The
    benchmark calls this before timing, as gensim's compiled extension is built before its timing too.
    """
    import time

    from ..data.tokenizer import tokenize_chunks
    from .corpus_stats import warm_up_counting

    t0 = time.perf_counter()
    tokenize_chunks([[b"a warm up", b" b"]])  # the tokeniser of qwem_lib.data
    warm_up_counting()  # the count, symmetrisation, normalisation and fused M* kernels
    # the eigensolver's input check (compiled from V = 512)
    for dt in (np.float32, np.float64):
        _check_symmetric_finite(np.eye(512, dtype=dt))
    return time.perf_counter() - t0


def wide_spectral_embeddings(
    corpus, V: int, d: int, window: int = 16, *, method: str = "auto", use_cache: bool = True
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """svd(M*) embeddings with many columns: ``(words, W, lam)``, ``W = Q_[d] Λ_[d]^{1/2}`` (negative
    eigenvalues give zero columns), from a dense solve of the top ``d`` eigenpairs in float32:
    ``method="evr"`` is LAPACK on the CPU (``scipy.linalg.eigh(subset_by_index=…)``), ``"torch"`` is
    ``torch.linalg.eigh`` on ``config.device()``; ``"auto"`` picks torch on a GPU, else evr.

    The Krylov solver of :mod:`qwem_lib.qwem.spectral` targets d ≈ 200; the task-vector chapters need up to
    thousands of columns, where a dense solve is both simpler and exact. Cached by (corpus, V, d, window,
    method).
    """
    import scipy.linalg as sl

    from .corpus_stats import cooccurrence, target_from_stats

    V = checks.integer("V", V, low=2)
    d = checks.integer("d", d, low=1, high=V - 1)
    c = resolve_corpus(corpus)
    if method == "auto":
        method = "torch" if config.device_name().startswith("cuda") else "evr"
    if method not in ("evr", "torch"):
        raise ValueError(f"method must be 'auto', 'evr' or 'torch', got {method!r}")
    ckey = counts_key(c, int(V), int(window), "linear", "authors", 20_000) if use_cache else None
    path = None
    if ckey is not None:
        path = entry("task_vectors", f"{ckey}-d{d}-mstar-{method}-v1.npz")

    def compute() -> dict[str, np.ndarray]:
        _, P, pu = cooccurrence(c, V, window, use_cache=use_cache)
        M = target_from_stats(P, pu, "mstar", dtype=np.float32)
        del P
        if method == "evr":
            lam, U = sl.eigh(
                M,
                subset_by_index=(V - d, V - 1),
                driver="evr",
                overwrite_a=True,
                check_finite=False,
            )
        else:
            import torch

            ev, vec = torch.linalg.eigh(torch.from_numpy(M).to(config.device()))
            lam, U = ev[V - d :].cpu().numpy(), vec[:, V - d :].cpu().numpy()
            del ev, vec
        del M
        lam, U = lam[::-1].astype(np.float64), U[:, ::-1]
        W = np.ascontiguousarray(U * np.sqrt(np.maximum(lam, 0.0))[None, :], dtype=np.float32)
        return {"W": W, "lam": lam}

    out, _ = cached(
        path,
        compute,
        required=("W", "lam"),
        shapes={"W": (int(V), int(d)), "lam": (int(d),)},
        finite=("W", "lam"),
    )
    return c.vocab(int(V)), out["W"], out["lam"]
