"""Linear algebra the book measures with, written once: principal angles between column spaces, symmetric
eigendecompositions in descending order, rows scaled to unit length, and the share of an embedding's first
direction that is a constant offset.

Principal angles: for ``A`` (V × a) and ``B`` (V × b) with orthonormal bases ``Q_A``, ``Q_B`` of their column
spaces, the cosines of the ``min(a, b)`` principal angles are the singular values of ``Q_Aᵀ Q_B``
(Björck & Golub 1973). Every measure of this module that compares subspaces is a function of them.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from ..book import checks

__all__ = [
    "principal_cosines",
    "subspace_overlap",
    "subspace_sine",
    "subspace_distance",
    "eig_desc",
    "unit_rows",
    "constant_overlap",
]


def _two_bases(
    A: Any, B: Any, names: tuple[str, str] = ("A", "B")
) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal bases (reduced QR) of the column spaces of two finite matrices with the same rows."""
    a = checks.finite_array(names[0], A, ndim=2)
    b = checks.finite_array(names[1], B, ndim=2)
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same number of rows, got shapes {a.shape} and {b.shape}"
        )
    return np.linalg.qr(a)[0], np.linalg.qr(b)[0]


def _cosines(A: Any, B: Any, names: tuple[str, str] = ("A", "B")) -> np.ndarray:
    """The singular values of ``Q_Aᵀ Q_B`` as LAPACK returns them (descending; not clipped to 1)."""
    qa, qb = _two_bases(A, B, names)
    return np.linalg.svd(qa.T @ qb, compute_uv=False)


def principal_cosines(A: Any, B: Any) -> np.ndarray:
    """Cosines of the principal angles between the column spaces of ``A`` and ``B``.

    Parameters
    ----------
    A : array_like, shape (V, a)
        A finite matrix; its columns need not be orthonormal.
    B : array_like, shape (V, b)
        A finite matrix with the same number of rows.

    Returns
    -------
    numpy.ndarray, shape (min(a, b),)
        The cosines, descending, clipped to [0, 1]: 1 for a shared direction, 0 for an orthogonal one.

    Raises
    ------
    ValueError
        If either is not a finite, non-empty 2-D array, or their numbers of rows differ.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # the plane of e1, e2
    >>> B = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])  # the plane of e1, e3
    >>> principal_cosines(A, B)
    array([1., 0.])
    """
    return np.clip(_cosines(A, B), 0.0, 1.0)


def subspace_overlap(A: Any, B: Any) -> float:
    """Mean squared cosine of the principal angles between the column spaces of ``A`` and ``B``.

    ``‖Q_Aᵀ Q_B‖²_F / min(a, b)``: 1 for the same space, 0 for orthogonal spaces.

    Parameters
    ----------
    A, B : array_like, shapes (V, a) and (V, b)
        Finite matrices with the same number of rows.

    Returns
    -------
    float
        The overlap, in [0, 1].

    Raises
    ------
    ValueError
        As :func:`principal_cosines`.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> B = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    >>> subspace_overlap(A, B)  # one shared direction of two
    0.5
    """
    return float(np.mean(_cosines(A, B) ** 2))


def subspace_sine(A: Any, B: Any) -> float:
    """``sin θ_max``: the sine of the largest principal angle between the column spaces of ``A`` and ``B``.

    0 when one space contains the other (the widths may differ); 1 when some direction of the narrower one
    is orthogonal to the wider.

    Parameters
    ----------
    A, B : array_like, shapes (V, a) and (V, b)
        Finite matrices with the same number of rows.

    Returns
    -------
    float
        The sine, in [0, 1].

    Raises
    ------
    ValueError
        As :func:`principal_cosines`.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> subspace_sine(A[:, :1], A)  # e1 lies in the plane of e1, e2
    0.0
    >>> subspace_sine(A, np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]))
    1.0
    """
    c = _cosines(A, B)
    return float(math.sqrt(max(0.0, 1.0 - float(np.min(c)) ** 2)))


def subspace_distance(U1: Any, U2: Any) -> float:
    """The distance ``‖P₁ − P₂‖₂`` between two subspaces of the same dimension (orthogonal projectors).

    It equals :func:`subspace_sine` for equal dimensions: 0 for equal subspaces, 1 when some direction of one
    is orthogonal to the other. For different dimensions ``‖P₁ − P₂‖₂ = 1`` whatever the angles, so the
    shapes must agree; :func:`subspace_sine` measures containment there.

    Parameters
    ----------
    U1, U2 : array_like, shape (V, d)
        Finite matrices of the same shape; their columns span the two subspaces.

    Returns
    -------
    float
        The distance, in [0, 1].

    Raises
    ------
    ValueError
        If ``U1`` and ``U2`` differ in shape or are not finite 2-D arrays.

    Examples
    --------
    >>> import numpy as np
    >>> U = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    >>> subspace_distance(U, U @ np.array([[0.0, 1.0], [1.0, 0.0]]))  # same plane, other basis
    0.0
    """
    a = checks.finite_array("U1", U1, ndim=2)
    b = checks.finite_array("U2", U2, ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"subspaces must have the same shape, got {a.shape} and {b.shape}")
    return subspace_sine(a, b)


def eig_desc(M: Any, *, check_symmetric: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) and the matching orthonormal eigenvectors (columns) of a symmetric ``M``.

    Parameters
    ----------
    M : array_like, shape (V, V)
        A finite, square, symmetric matrix.
    check_symmetric : bool, default True
        Refuse an ``M`` that is not symmetric to ``|M − Mᵀ| ≤ 1e-12·max(1, max|M|) + 1e-5·|Mᵀ|`` entrywise.
        A caller that has checked symmetry with its own tolerance (:mod:`qwem_lib.qwem.theory`) passes
        ``False``; only the lower triangle is read then.

    Returns
    -------
    lam : numpy.ndarray, shape (V,)
        The eigenvalues, largest first.
    U : numpy.ndarray, shape (V, V)
        The eigenvectors, column ``k`` for ``lam[k]``.

    Raises
    ------
    ValueError
        If ``M`` is not a finite square matrix or, with ``check_symmetric``, not symmetric.

    Examples
    --------
    >>> import numpy as np
    >>> lam, U = eig_desc(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> lam
    array([3., 1.])
    >>> np.allclose(np.abs(U[:, 0]), np.sqrt(0.5))
    True
    """
    M = checks.square("M", M)
    if check_symmetric and not np.allclose(M, M.T, atol=1e-12 * max(1.0, float(np.abs(M).max()))):
        raise ValueError("M must be symmetric")
    lam, U = np.linalg.eigh(M)
    order = np.argsort(lam)[::-1]
    return lam[order], U[:, order]


def unit_rows(
    X: Any,
    *,
    zero_rows: Literal["raise", "keep"] = "raise",
    dtype: Any = np.float64,
    name: str = "X",
) -> np.ndarray:
    """Every row of ``X`` divided by its Euclidean norm, in ``dtype``: the directions without the lengths.

    ``zero_rows="raise"`` refuses a row of norm 0 (its direction is undefined); ``"keep"`` divides by
    ``max(‖row‖, 1e-12)``, so a zero row stays zero (an out-of-vocabulary word in a scored embedding).
    ``X`` must be a finite, non-empty 2-D array; ``name`` is the argument's name in the error messages.
    """
    if zero_rows not in ("raise", "keep"):
        raise ValueError(f"zero_rows must be 'raise' or 'keep', got {zero_rows!r}")
    X = checks.finite_array(name, X, ndim=2, dtype=dtype)
    n = np.linalg.norm(X, axis=1, keepdims=True)
    if zero_rows == "keep":
        return X / np.maximum(n, 1e-12)
    if np.any(n == 0):
        raise ValueError("a row has norm 0: its direction is undefined")
    return X / n


def constant_overlap(X: Any) -> float:
    """``(u₁ · 1/√V)²``: the squared overlap of the first left singular vector of ``X`` with the constant direction.

    About ``1/V`` for a direction with no offset, 1 when every row carries the same leading component (a
    pure offset). ``X`` is not centred.

    Parameters
    ----------
    X : array_like, shape (V, d)
        A finite embedding matrix with ``V >= 2`` rows.

    Returns
    -------
    float
        The squared overlap, in [0, 1].

    Raises
    ------
    ValueError
        Unless ``X`` is a finite V × d matrix with ``V >= 2``.

    Examples
    --------
    >>> import numpy as np
    >>> constant_overlap(np.ones((4, 1)))  # a pure offset
    1.0
    >>> round(constant_overlap(np.array([[1.0], [-1.0], [1.0], [-1.0]])), 12)  # orthogonal to it
    0.0
    """
    X = checks.finite_array("X", X, ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"X must be a V × d matrix with V >= 2, got shape {X.shape}")
    u = np.linalg.svd(X, full_matrices=False)[0][:, 0]
    return float(u.sum() ** 2 / X.shape[0])
