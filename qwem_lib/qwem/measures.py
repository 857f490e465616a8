"""Measurements of trained embeddings: nested subspaces, eigen-feature overlaps (Figure 5) and their diagonal
share, Gram distances, step times and the separation of successive steps (Part II). Principal angles and the
offset share :func:`~qwem_lib.maths.linalg.constant_overlap` live in :mod:`qwem_lib.maths.linalg`."""

from __future__ import annotations

import numpy as np

from ..book import checks

__all__ = [
    "eigen_overlap",
    "nested_subspace_sines",
    "diagonal_dominance",
    "without_constant",
    "dominance_null",
    "feature_match",
    "dominance_difference_bootstrap",
    "gram_distance",
    "step_separation",
    "brought_directions",
]


def eigen_overlap(A: np.ndarray, B: np.ndarray, k: int | None = None) -> np.ndarray:
    """The paper's Figure 5 matrix ``(U_aᵀ U_b)²`` of the first ``k`` left singular vectors of two embeddings.

    The left singular vectors are the embeddings' eigen-features, ordered by singular value; entry
    ``(i, j)`` is the squared overlap of feature ``i`` of ``A`` with feature ``j`` of ``B``. Rows and columns
    sum to at most 1.

    Parameters
    ----------
    A, B : array_like, shapes (V, a) and (V, b)
        Finite embeddings of the same ``V`` words.
    k : int, optional
        How many features; default ``min(a, b)``.

    Returns
    -------
    numpy.ndarray, shape (k, k)
        The squared overlaps.

    Raises
    ------
    ValueError
        If ``A`` or ``B`` is not a finite 2-D array, their rows differ, or ``k`` is not in ``1..min(a, b)``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[3.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # features e1, e2
    >>> B = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0]])  # features e2, e1
    >>> eigen_overlap(A, B)
    array([[0., 1.],
           [1., 0.]])
    """
    Ua, Ub = _left_singular_vectors(A, B)
    top = min(Ua.shape[1], Ub.shape[1])
    k = top if k is None else checks.integer("k", k, low=1, high=top)
    return (Ua[:, :k].T @ Ub[:, :k]) ** 2


def _left_singular_vectors(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The left singular vectors of two finite embeddings of the same words (``A``, ``B``: V × d)."""
    a = checks.finite_array("A", A, ndim=2)
    b = checks.finite_array("B", B, ndim=2)
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"A and B must have the same number of rows (words), got shapes {a.shape} and {b.shape}"
        )
    return (
        np.linalg.svd(a, full_matrices=False)[0],
        np.linalg.svd(b, full_matrices=False)[0],
    )


def nested_subspace_sines(overlap: np.ndarray) -> np.ndarray:
    """``sin θ_max`` between the top-``k`` left singular vectors of ``W`` and the first ``k`` reference
    vectors, for every ``k = 1..d`` and every logged time, from the signed overlaps ``(T, r, d)`` of
    :class:`TrainResult` (``r >= d``). 0 when the k-th step has brought exactly ``q_1 … q_k``."""
    ov = checks.finite_array("overlap", overlap, ndim=3)
    if ov.shape[1] < ov.shape[2]:
        raise ValueError(f"overlap must have shape (T, r, d) with r >= d, got shape {ov.shape}")
    T, _, d = ov.shape
    out = np.empty((T, d))
    for k in range(1, d + 1):
        c = np.linalg.svd(ov[:, :k, :k], compute_uv=False).min(axis=1)
        out[:, k - 1] = np.sqrt(np.clip(1.0 - c**2, 0.0, 1.0))
    return out


def diagonal_dominance(O: np.ndarray, band: int = 0, offset: int = 0) -> float:
    """The share of an overlap matrix's mass within ``band`` of a diagonal.

    ``Σ_{|i − j − offset| ≤ band} O_ij / Σ O_ij``: with ``offset = 0`` the main diagonal; with
    ``offset = −1`` row ``i`` is matched with column ``i + 1`` (when the second embedding has one extra
    leading feature). 1 for a (banded) diagonal matrix; about ``(2·band + 1)/k`` for a matrix with no
    diagonal structure.

    Parameters
    ----------
    O : array_like, shape (k, k)
        Squared overlaps (:func:`eigen_overlap`): finite and non-negative, not all zero.
    band : int, default 0
        The half-width of the band (non-negative).
    offset : int, default 0
        Which diagonal.

    Returns
    -------
    float
        The share, in [0, 1].

    Raises
    ------
    ValueError
        If ``O`` is not a finite, square, non-negative matrix with some mass, or ``band`` or ``offset`` is
        not an integer (``band >= 0``).

    Examples
    --------
    >>> import numpy as np
    >>> diagonal_dominance(np.array([[0.9, 0.1], [0.1, 0.9]]))
    0.9
    >>> diagonal_dominance(np.array([[0.0, 1.0], [1.0, 0.0]]), offset=-1)  # row i with column i + 1
    0.5
    """
    O = checks.square("O", O)
    if np.any(O < 0):
        raise ValueError(f"O must hold squared overlaps (non-negative), got {float(O[O < 0][0])!r}")
    band = checks.integer("band", band, low=0)
    offset = checks.integer("offset", offset)
    i, j = np.indices(O.shape)
    tot = O.sum()
    if tot <= 0:
        raise ValueError("O, the overlap matrix, has no mass (all entries zero)")
    return float(O[np.abs(i - j - offset) <= band].sum() / tot)


def without_constant(X: np.ndarray) -> np.ndarray:
    """``X`` with the constant direction ``1/√V`` projected out of every column: ``(I − 11ᵀ/V) X``.

    Figure 5's measure is taken on it, so that an offset shared by every word (SGNS's, PPMI's Perron vector)
    is not counted as a feature (chapters 24 and 26).

    Parameters
    ----------
    X : array_like, shape (V, d)
        A finite embedding matrix with ``V >= 2`` rows.

    Returns
    -------
    numpy.ndarray, shape (V, d)
        ``X`` with its column means removed.

    Raises
    ------
    ValueError
        Unless ``X`` is a finite V × d matrix with ``V >= 2``.

    Examples
    --------
    >>> import numpy as np
    >>> without_constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[-1., -1.],
           [ 1.,  1.]])
    """
    X = checks.finite_array("X", X, ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"X must be a V × d matrix with V >= 2, got shape {X.shape}")
    return X - X.mean(axis=0, keepdims=True)


def gram_distance(A: np.ndarray, B: np.ndarray) -> float:
    """``‖AAᵀ − BBᵀ‖_F / ‖BBᵀ‖_F``: how far two embeddings of the same words are as *Gram matrices*, the
    dot products every pair loss and every benchmark sees; zero exactly when ``A = BO`` for an orthogonal
    ``O`` (same widths). Computed from ``d × d`` products (``‖AAᵀ‖² = ‖AᵀA‖²``), never ``V × V``."""
    A = checks.finite_array("A", A, ndim=2)
    B = checks.finite_array("B", B, ndim=2)
    if A.shape[0] != B.shape[0]:
        raise ValueError(
            f"A and B must have the same number of rows, got shapes {A.shape} and {B.shape}"
        )
    aa, bb, ab = (np.sum((X.T @ Y) ** 2) for X, Y in ((A, A), (B, B), (A, B)))
    if bb <= 0:
        raise ValueError("B is zero: the distance relative to it is undefined")
    return float(np.sqrt(max(aa + bb - 2.0 * ab, 0.0) / bb))


def dominance_null(
    A: np.ndarray, B: np.ndarray, k: int, rng: np.random.Generator, n: int = 200
) -> np.ndarray:
    """The random-rotation null of :func:`diagonal_dominance`: ``n`` diagonal shares of
    ``(U_aᵀ U_b R)²`` with ``R`` Haar-random ``k × k`` rotations of ``B``'s first ``k`` eigen-features.

    ``R`` keeps ``B``'s subspace and scrambles which feature is which, so the null answers "is the
    overlap diagonal, or only the subspaces shared?". A share above the null's upper quantiles says the
    features match one to one, not only span the same space."""
    Ua, Ub = _left_singular_vectors(A, B)
    k = checks.integer("k", k, low=1, high=min(Ua.shape[1], Ub.shape[1]))
    n = checks.positive_int("n", n)
    C = Ua[:, :k].T @ Ub[:, :k]
    out = np.empty(n)
    for i in range(n):
        Qr, Rr = np.linalg.qr(rng.normal(size=(k, k)))
        out[i] = diagonal_dominance((C @ (Qr * np.sign(np.diag(Rr)))) ** 2)
    return out


def feature_match(
    A: np.ndarray, B: np.ndarray, k: int, rng: np.random.Generator, n_null: int = 200
) -> dict[str, object]:
    """How one to one ``A``'s first ``k`` eigen-features match ``B``'s, against the rotation null.

    ``D`` above ``null99`` says the features match one by one, not only the subspaces (chapters 26 and 28).

    Parameters
    ----------
    A, B : array_like, shapes (V, a) and (V, b)
        Finite embeddings of the same ``V`` words.
    k : int
        How many leading features, in ``1..min(a, b)``.
    rng : numpy.random.Generator
        Draws the null's rotations.
    n_null : int, default 200
        How many rotations.

    Returns
    -------
    dict
        ``"O"``: :func:`eigen_overlap` ``(A, B, k)``; ``"D"``: its :func:`diagonal_dominance`; ``"null99"``:
        the 99th percentile of :func:`dominance_null`; ``"mean_sq"``: ``O.sum()/k``, the share of ``A``'s
        top-``k`` subspace inside ``B``'s.

    Raises
    ------
    ValueError
        As :func:`eigen_overlap` and :func:`dominance_null` do.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.vstack([np.diag([3.0, 2.0, 1.0]), np.zeros((2, 3))])
    >>> out = feature_match(A, A, 3, np.random.default_rng(0), n_null=50)
    >>> round(out["D"], 6), round(out["mean_sq"], 6), bool(out["null99"] < 1)
    (1.0, 1.0, True)
    """
    n_null = checks.positive_int("n_null", n_null)
    O = eigen_overlap(A, B, k)
    null = dominance_null(A, B, k, rng, n=n_null)
    return dict(
        O=O,
        D=diagonal_dominance(O),
        null99=float(np.quantile(null, 0.99)),
        mean_sq=float(O.sum() / k),
    )


def dominance_difference_bootstrap(
    X: np.ndarray, A: np.ndarray, B: np.ndarray, k: int, rng: np.random.Generator, n: int
) -> np.ndarray:
    """``n`` bootstrap replicates of ``D(X, A) − D(X, B)`` over the rows (the words).

    Each replicate draws the ``V`` rows with replacement, the same rows for all three embeddings, and
    projects the constant direction out after the draw (:func:`without_constant`), then takes the two
    diagonal shares of the first ``k`` eigen-features. The spread of the replicates is the standard error
    of the difference that the words it is measured on leave (chapters 26 and 28).

    Parameters
    ----------
    X, A, B : array_like, shape (V, ·)
        Finite embeddings of the same ``V`` words; ``X`` is compared with ``A`` and with ``B``.
    k : int
        How many leading features.
    rng : numpy.random.Generator
        Draws the rows.
    n : int
        How many replicates.

    Returns
    -------
    numpy.ndarray, shape (n,)

    Raises
    ------
    ValueError
        For an embedding that is not a finite 2-D array, embeddings of different words, or ``n < 1``.

    Examples
    --------
    A comparison of ``X`` with the same matrix twice differs by exactly zero on every draw:

    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    >>> dominance_difference_bootstrap(X, Y, Y, 2, np.random.default_rng(1), 3)
    array([0., 0., 0.])
    """
    X = checks.finite_array("X", X, ndim=2)
    A = checks.finite_array("A", A, ndim=2)
    B = checks.finite_array("B", B, ndim=2)
    if not X.shape[0] == A.shape[0] == B.shape[0]:
        raise ValueError(
            f"X, A and B must embed the same words, got shapes {X.shape}, {A.shape}, {B.shape}"
        )
    n = checks.positive_int("n", n)
    out = np.empty(n)
    for i in range(n):
        idx = rng.integers(0, X.shape[0], X.shape[0])
        Xs = without_constant(X[idx])
        out[i] = diagonal_dominance(
            eigen_overlap(Xs, without_constant(A[idx]), k)
        ) - diagonal_dominance(eigen_overlap(Xs, without_constant(B[idx]), k))
    return out


def step_separation(
    t: np.ndarray, s_sq: np.ndarray, end: np.ndarray, *, lo: float = 0.1, hi: float = 0.9
) -> dict[str, np.ndarray]:
    """Whether successive steps are *separated*, not only whether each one is sharp.

    With ``t_k`` the time mode ``k`` reaches half its end value and ``w_k = t_k^{hi} − t_k^{lo}`` its
    rise width (:func:`qwem_lib.qwem.dynamics.step_sharpness`), ``R_k = (t_{k+1} − t_k) / ((w_k + w_{k+1})/2)``
    for ``k = 1..d−1``: above about 1 the two rises do not overlap (a plateau between them), near 0
    they happen together. Step sharpness ``t_k/w_k`` measures the shape of one rise and can be large
    for steps that all happen at once; ``R_k`` cannot. Returns ``dict(t_mid, width, R)`` (NaN where a
    fraction is never reached).
    """
    from .dynamics import step_sharpness

    st = step_sharpness(t, s_sq, end, lo=lo, hi=hi)
    width = st["t_hi"] - st["t_lo"]
    with np.errstate(invalid="ignore", divide="ignore"):
        R = np.diff(st["t_mid"]) / (0.5 * (width[:-1] + width[1:]))
    return dict(t_mid=st["t_mid"], width=width, R=R)


def brought_directions(
    overlap: np.ndarray, times: np.ndarray, t_steps: np.ndarray, band: int = 2
) -> dict:
    """Which eigenvector each step brings: at the logged time nearest mode ``k``'s step time
    ``t_steps[k]``, the k-th left singular vector ``u_k`` of ``W`` (the newly grown direction) against
    the reference vectors ``q_i`` (signed overlaps ``(T, r, d)`` of :class:`TrainResult`).

    Returns ``dict(index, share, own, near)`` of shape (d,): ``index`` the 0-based ``i`` maximising
    ``(q_iᵀu_k)²``, ``share`` that maximum, ``own`` ``(q_kᵀu_k)²`` (1 when step k brings exactly q_k),
    ``near`` ``Σ_{|i−k| ≤ band} (q_iᵀu_k)²`` (its share in q_k's neighbours: near-degenerate eigenvalues
    are learned as a band); NaN for a mode without a step time.
    """
    ov = checks.finite_array("overlap", overlap, ndim=3)
    times = checks.increasing("times", times)
    t_steps = checks.finite_array("t_steps", t_steps, ndim=1, allow_nonfinite=True)
    if np.any(np.isinf(t_steps)):
        raise ValueError(
            "t_steps must hold finite step times (NaN for a mode without one), got inf"
        )
    band = checks.integer("band", band, low=0)
    if ov.shape[0] != times.size or t_steps.size > ov.shape[2]:
        raise ValueError(
            f"overlap (T, r, d), times (T,) and t_steps (at most d) do not match: overlap {ov.shape}, "
            f"times {times.shape}, t_steps {t_steps.shape}"
        )
    d = t_steps.size
    index = np.full(d, -1)
    share = np.full(d, np.nan)
    own = np.full(d, np.nan)
    near = np.full(d, np.nan)
    for k in range(d):
        if not np.isfinite(t_steps[k]):
            continue
        i = int(np.argmin(np.abs(times - t_steps[k])))
        sq = ov[i, :, k] ** 2
        index[k] = int(np.argmax(sq))
        share[k] = float(sq.max())
        own[k] = float(sq[k]) if k < sq.size else np.nan
        near[k] = float(sq[max(0, k - band) : k + band + 1].sum())
    return dict(index=index, share=share, own=own, near=near)
