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
    """Cosines of the principal angles between the column spaces of ``A`` and ``B`` (descending, in [0, 1]).

    ``A`` (V × a) and ``B`` (V × b) need not have orthonormal columns; ``min(a, b)`` cosines are returned.
    Raises ``ValueError`` for matrices with different rows or non-finite entries.
    """
    return np.clip(_cosines(A, B), 0.0, 1.0)


def subspace_overlap(A: Any, B: Any) -> float:
    """Mean squared cosine of the principal angles between the column spaces of ``A`` and ``B``: 1 for the
    same space, 0 for orthogonal spaces (``‖Q_Aᵀ Q_B‖²_F / min(a, b)``)."""
    return float(np.mean(_cosines(A, B) ** 2))


def subspace_sine(A: Any, B: Any) -> float:
    """``sin θ_max``: the sine of the largest principal angle between the column spaces of ``A`` and ``B``.

    0 when one space contains the other (the widths may differ); 1 when some direction of the narrower one
    is orthogonal to the wider. Raises ``ValueError`` for matrices with different rows or non-finite entries.
    """
    c = _cosines(A, B)
    return float(math.sqrt(max(0.0, 1.0 - float(np.min(c)) ** 2)))


def subspace_distance(U1: Any, U2: Any) -> float:
    """:func:`subspace_sine` of two subspaces of the same dimension, where it equals ``‖P₁ − P₂‖₂`` for the
    orthogonal projectors: 0 for equal subspaces, 1 when some direction of one is orthogonal to the other.

    Raises ``ValueError`` when ``U1`` and ``U2`` differ in shape (for different dimensions ``‖P₁ − P₂‖₂ = 1``
    whatever the angles; :func:`subspace_sine` measures containment there).
    """
    a = checks.finite_array("U1", U1, ndim=2)
    b = checks.finite_array("U2", U2, ndim=2)
    if a.shape != b.shape:
        raise ValueError(f"subspaces must have the same shape, got {a.shape} and {b.shape}")
    return subspace_sine(a, b)


def eig_desc(M: Any, *, check_symmetric: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (descending) and the matching orthonormal eigenvectors (columns) of a symmetric ``M``.

    Raises ``ValueError`` if ``M`` is not square or, with ``check_symmetric`` (the default), not symmetric
    to ``|M − Mᵀ| ≤ 1e-12·max(1, max|M|) + 1e-5·|Mᵀ|`` entrywise. A caller that has checked symmetry with its
    own tolerance (:mod:`qwem_lib.qwem.theory`) passes ``check_symmetric=False``; only the lower triangle is read.
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
    """``(u₁ · 1/√V)²``: the squared overlap of the first left singular vector of ``X`` (uncentred) with the
    constant direction. About ``1/V`` for a direction with no offset, 1 when every row carries the same
    leading component (a pure offset). Raises ``ValueError`` unless ``X`` is a finite V × d matrix, V ≥ 2."""
    X = checks.finite_array("X", X, ndim=2)
    if X.shape[0] < 2:
        raise ValueError(f"X must be a V × d matrix with V >= 2, got shape {X.shape}")
    u = np.linalg.svd(X, full_matrices=False)[0][:, 0]
    return float(u.sum() ** 2 / X.shape[0])
