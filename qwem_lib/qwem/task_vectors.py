"""Analogy task vectors (Part III): the matrices, their signal-to-noise, margins and nulls.

For an analogy category with word pairs ``(a_i, b_i)``, ``i = 1..N``, the *task vectors* are the rows of
``R = W[b] - W[a]`` (``N x d``). The paper models them (Figure 4, Appendix A.6) as a rank-one signal, the
category's mean task vector, plus noise: a spiked random matrix, whose Marchenko–Pastur bulk, BBP outlier and
fit live in :mod:`qwem_lib.maths.random_matrix`. This module builds ``R`` from embeddings
(:func:`task_vector_matrices`), measures the authors' SNR (:func:`task_snr`: ``λ_max(R Rᵀ) · rank(R) / Tr(R Rᵀ)``,
at most ``rank(R) = min(N, d)``, so pure noise already makes it rise with ``d`` up to ``d ≈ N``), the mean
overlap of the rows, the parallelogram's cosines and margins, and the random-pair null.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..book import checks
from ..maths.random_matrix import checked_rows

__all__ = [
    "random_pair_null",
    "task_snr",
    "mean_overlap",
    "truncate",
    "task_vector_matrices",
    "random_pair_matrix",
    "parallelogram_cosines",
    "analogy_margins",
    "nearest_neighbour_cosine",
    "snr_curve",
]


def random_pair_null(
    W: np.ndarray,
    N: int,
    n_draws: int,
    stat,
    rng: np.random.Generator,
    *,
    among: np.ndarray | None = None,
) -> np.ndarray:
    """``stat(R)`` for ``n_draws`` random-pair matrices of ``N`` rows (:func:`random_pair_matrix`): the null
    distribution of any task-vector statistic at a category's own ``N``. ``stat`` returns a number or an
    array (for example a whole SNR curve); the result stacks them, one row per draw."""
    if not isinstance(N, (int, np.integer)) or N < 3:
        raise ValueError(f"N must be an integer >= 3, got {N!r}")
    n_draws = checks.positive_int("n_draws", n_draws)
    if not callable(stat):
        raise TypeError("stat must be a function of the task-vector matrix R")
    return np.array(
        [stat(random_pair_matrix(W, int(N), rng, among=among)[1]) for _ in range(int(n_draws))],
        dtype=np.float64,
    )


def task_snr(R: np.ndarray, *, rtol: float = 1e-10) -> float:
    """The authors' SNR: ``λ_max(R Rᵀ) · rank(R) / Tr(R Rᵀ)``, the top over the mean non-zero eigenvalue (1 for a
    flat spectrum, so 1 for rank one; close to the rank when one eigenvalue dominates)."""
    R = checked_rows(R)
    rtol = checks.real("rtol", rtol, low=0, high=1, low_open=True, high_open=True)
    s2 = np.linalg.svd(R, compute_uv=False) ** 2
    rank = int((s2 > rtol * s2[0]).sum())
    return float(s2[0] * rank / s2.sum())


def mean_overlap(R: np.ndarray) -> float:
    """Squared cosine between the mean task vector and the top right singular vector of ``R``.

    The mean task vector ``μ̄`` is the mean row of ``R``; the top right singular vector is the outlier's
    direction in embedding space. The result is the share of ``|μ̄|²`` along the outlier: close to 1 when
    the outlier is the common mean (the paper's reading of its Figure 6), ``1 − (ℓ_BBP/ℓ)²`` in the large-size
    limit of a spiked matrix (:func:`qwem_lib.maths.random_matrix.bbp_overlaps`).

    Parameters
    ----------
    R : numpy.ndarray, shape (N, D)
        Task vectors (rows), finite, at least 3, with a non-zero mean.

    Returns
    -------
    float
        The squared cosine, in [0, 1].

    Raises
    ------
    ValueError
        If ``R`` is not a valid task-vector matrix or its mean row is zero.

    Examples
    --------
    >>> import numpy as np
    >>> from qwem_lib.maths.random_matrix import spiked_matrix
    >>> R, mu = spiked_matrix(40, np.ones(200), ell=4000.0, rng=np.random.default_rng(0))
    >>> round(mean_overlap(R), 3)  # a strong common mean: the outlier points along it
    0.999
    """
    R = checked_rows(R)
    mu = R.mean(axis=0)
    nm = float(np.linalg.norm(mu))
    if nm <= 1e-12 * float(np.linalg.norm(R, axis=1).max()):
        raise ValueError("the mean task vector is zero: its direction is undefined")
    _, _, Vt = np.linalg.svd(R, full_matrices=False)
    return float((Vt[0] @ mu / nm) ** 2)


def truncate(R: np.ndarray, d: int) -> np.ndarray:
    """The first ``d`` embedding columns of a task-vector matrix (``R_d`` of the paper).

    Parameters
    ----------
    R : numpy.ndarray, shape (N, D)
        Task vectors (rows), finite, at least 3 of them.
    d : int
        How many columns to keep, ``1 <= d <= D``.

    Returns
    -------
    numpy.ndarray, shape (N, d)

    Raises
    ------
    ValueError
        If ``R`` is not a valid task-vector matrix or ``d`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> truncate(np.arange(12.0).reshape(3, 4), 2)
    array([[0., 1.],
           [4., 5.],
           [8., 9.]])
    """
    R = checked_rows(R)
    d = checks.integer("d", d, low=1, high=R.shape[1])
    return R[:, :d]


def task_vector_matrices(
    words: Sequence[str], W: np.ndarray, path=None, *, min_pairs: int = 3
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{category: (pairs, R)}`` for every analogy category with at least ``min_pairs`` in-vocabulary pairs.

    ``pairs`` is the ``(N, 2)`` array of word ids ``(a, b)`` (distinct pairs in order of appearance, as the
    pairs protocol of :func:`qwem_lib.qwem.evaluation.analogy_items` collects them) and ``R = W[b] - W[a]``.
    """
    from .evaluation import analogy_pairs

    W = checks.finite_array("W", W, ndim=2, dtype=None)
    min_pairs = checks.integer("min_pairs", min_pairs, low=3)
    if W.shape[0] != len(words):
        raise ValueError(f"W must have one row per word: {len(words)} words, W has shape {W.shape}")
    out = {}
    for name, P in analogy_pairs(words, path).items():
        if len(P) >= min_pairs:
            out[name] = (P, (W[P[:, 1]].astype(np.float64) - W[P[:, 0]].astype(np.float64)))
    return out


def random_pair_matrix(
    W: np.ndarray, n: int, rng: np.random.Generator, *, among: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The null model: ``(pairs, R)`` for ``n`` random pairs of distinct words (from ``among`` if given)."""
    W = checks.finite_array("W", W, ndim=2, dtype=None)
    n = checks.integer("n", n, low=1)
    pool = np.arange(W.shape[0]) if among is None else np.unique(np.asarray(among))
    if len(pool) < 2:
        raise ValueError(f"among must hold at least two words to pair, got {len(pool)}")
    a = rng.choice(pool, size=n)
    b = rng.choice(pool, size=n)
    same = a == b
    while same.any():
        b[same] = rng.choice(pool, size=int(same.sum()))
        same = a == b
    P = np.stack([a, b], axis=1)
    return P, W[b].astype(np.float64) - W[a].astype(np.float64)


def parallelogram_cosines(W: np.ndarray, items: np.ndarray) -> np.ndarray:
    """For analogy items ``(a, b, a', b')``: cosine between ``b̂ - â + â'`` and ``b̂'`` (rows normalised).

    Test oracle: no chapter calls it; ``tests/test_task_vectors.py`` checks it on a worked parallelogram."""
    from .evaluation import normalize_rows

    Wn = normalize_rows(W).astype(np.float64)
    items = np.asarray(items)
    q = Wn[items[:, 1]] - Wn[items[:, 0]] + Wn[items[:, 2]]
    q /= np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    return np.einsum("ij,ij->i", q, Wn[items[:, 3]])


def analogy_margins(
    W: np.ndarray, items: np.ndarray, batch: int = 1024
) -> tuple[np.ndarray, np.ndarray]:
    """For 3CosAdd analogies ``(a, b, a', b')``: ``(target, rival)`` where ``target`` is the cosine of the
    query ``q = b̂ - â + â'`` (normalised) with ``b̂'`` and ``rival`` the largest cosine of ``q`` with any other
    word except ``a, b, a'``. The analogy is answered correctly exactly when ``target > rival``."""
    from .evaluation import normalize_rows

    Wn = normalize_rows(W)
    items = _word_ids("items", items, len(Wn), columns=4)
    batch = checks.integer("batch", batch, low=1)
    target = np.empty(len(items))
    rival = np.empty(len(items))
    for s in range(0, len(items), batch):
        it = items[s : s + batch]
        qv = Wn[it[:, 1]] - Wn[it[:, 0]] + Wn[it[:, 2]]
        qv /= np.maximum(np.linalg.norm(qv, axis=1, keepdims=True), 1e-12)
        sc = Wn @ qv.T
        cols = np.arange(len(it))
        target[s : s + batch] = sc[it[:, 3], cols]
        for k in range(4):
            sc[it[:, k], cols] = -np.inf
        rival[s : s + batch] = sc.max(axis=0)
    return target, rival


def nearest_neighbour_cosine(W: np.ndarray, ids: np.ndarray, batch: int = 1024) -> np.ndarray:
    """For each word id in ``ids``: the largest cosine of its embedding with any *other* word's (rows of
    W normalised): ``max_{v ≠ w} cos(v, w)``, the denominator of the paper's Figure 8 ratio."""
    from .evaluation import normalize_rows

    Wn = normalize_rows(W).astype(np.float64)
    if Wn.shape[0] < 2:
        raise ValueError(f"W must have at least 2 rows (words), got shape {Wn.shape}")
    ids = _word_ids("ids", ids, len(Wn))
    batch = checks.integer("batch", batch, low=1)
    out = np.empty(len(ids))
    for s in range(0, len(ids), batch):
        it = ids[s : s + batch]
        sc = Wn @ Wn[it].T
        sc[it, np.arange(len(it))] = -np.inf
        out[s : s + batch] = sc.max(axis=0)
    return out


def _word_ids(name: str, ids: np.ndarray, V: int, columns: int | None = None) -> np.ndarray:
    """``ids`` as an integer array of word ids in ``0..V-1`` (1-d, or ``(n, columns)``), else a
    ``ValueError`` naming the argument."""
    a = np.asarray(ids)
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must hold integer word ids, got dtype {a.dtype}")
    want = 1 if columns is None else 2
    if a.ndim != want or (columns is not None and a.shape[1] != columns):
        shape = "(n,)" if columns is None else f"(n, {columns})"
        raise ValueError(
            f"{name} must be an array of word ids of shape {shape}, got shape {a.shape}"
        )
    if a.size and (a.min() < 0 or a.max() >= V):
        raise ValueError(
            f"{name} must hold word ids in 0..{V - 1}, got {int(a.min())}..{int(a.max())}"
        )
    return a.astype(np.int64, copy=False)


def snr_curve(R: np.ndarray, ds: Sequence[int]) -> np.ndarray:
    """:func:`task_snr` of ``R_d`` for each ``d`` in ``ds``.

    Parameters
    ----------
    R : (N, D) array
        The task vectors of one category (one per row), in the embedding of the largest dimension.
    ds : sequence of int
        The dimensions ``d <= D``; ``R_d`` keeps the first ``d`` columns.

    Returns
    -------
    (len(ds),) array
        The signal-to-noise ratio at each ``d``.

    Examples
    --------
    >>> import numpy as np
    >>> R = np.random.default_rng(0).normal(size=(30, 8)) + np.r_[4.0, np.zeros(7)]
    >>> snr = snr_curve(R, [1, 4, 8])
    >>> snr.shape, float(snr[0])  # one column: rank one, a flat spectrum
    ((3,), 1.0)
    >>> bool(snr[-1] > 2)  # eight columns: the common direction dominates the spectrum
    True
    """
    R = checked_rows(R)
    dims = [
        checks.integer("ds", d, low=1, high=R.shape[1])
        for d in np.atleast_1d(np.asarray(ds, dtype=object))
    ]
    if not dims:
        raise ValueError("ds must name at least one dimension d, got none")
    return np.array([task_snr(truncate(R, d)) for d in dims])
