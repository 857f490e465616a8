"""The collapse metric shared by every experiment of Part IV (chapters 40-46).

"Collapsed" means the same number everywhere in the book. Given vectors ``x_i`` (word embeddings,
LayerNorm outputs, linear weights ``u_{k,l}``, transformer embeddings, hidden activations) and the
group ``g(i)`` each belongs to (the concept that generated the word, the symbol of the grammar that
generated the segment...), with group means ``m_g``:

* the **within/between ratio** (:func:`collapse_ratio`)::

      rho = sqrt( mean_i ||x_i - m_{g(i)}||^2 )  /  mean_{g != g'} ||m_g - m_{g'}||

  the root-mean-square distance of a vector to its group's mean, in units of the typical distance
  between two group means. It is 0 for a perfect collapse (every vector on its group mean), of order 1 or larger for
  vectors drawn with no group structure, and it does not change when all vectors
  are rotated, translated or scaled together. Every vector counts, the rare words included;
* the **cosine to the group mean** (:func:`direction_cosines`): ``cos(x_i, m_{g(i)})``, 1 when all the
  vectors of a group point the same way whatever their lengths (the "directional" collapse of
  Theorem 2, where frequent words have longer embeddings). Its median is reported.

A configuration is called **collapsed** when ``rho < COLLAPSED_RATIO = 0.1`` (the spread inside a group
is a tenth of the distance between groups) and **directionally collapsed** when the median cosine
exceeds ``ALIGNED_COSINE = 0.95``. :func:`collapse_stats` computes both in one call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "COLLAPSED_RATIO",
    "ALIGNED_COSINE",
    "CollapseStats",
    "collapse_stats",
    "concept_means",
    "collapse_ratio",
    "concept_mean_angles",
    "simplex_angle",
    "word_norms",
    "direction_cosines",
    "top_singular_values",
    "pca_2d",
]

COLLAPSED_RATIO = 0.1
ALIGNED_COSINE = 0.95


@dataclass(frozen=True)
class CollapseStats:
    """The shared collapse metric of one set of vectors (see the module docstring).

    ``ratio`` the within/between ratio, ``cos_median`` the median cosine to the group mean, ``n`` the
    number of vectors and ``groups`` the number of groups.
    """

    ratio: float
    cos_median: float
    n: int
    groups: int

    @property
    def collapsed(self) -> bool:
        """``ratio < COLLAPSED_RATIO``."""
        return self.ratio < COLLAPSED_RATIO

    @property
    def aligned(self) -> bool:
        """``cos_median > ALIGNED_COSINE`` (directional collapse)."""
        return self.cos_median > ALIGNED_COSINE

    def __str__(self) -> str:
        return (
            f"ratio {self.ratio:.4f}{' (collapsed)' if self.collapsed else ''}, median cosine "
            f"{self.cos_median:.4f} ({self.n} vectors, {self.groups} groups)"
        )


def collapse_stats(X: np.ndarray, labels: np.ndarray) -> CollapseStats:
    """The shared collapse metric of the rows of ``X`` grouped by ``labels`` (at least two groups)."""
    X, labels = _check_labels(X, labels)
    ngroups = np.unique(labels).size
    return CollapseStats(
        collapse_ratio(X, labels),
        float(np.median(direction_cosines(X, labels))),
        int(X.shape[0]),
        int(ngroups),
    )


def _check_labels(X: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array (vectors in rows), got shape {X.shape}")
    if labels.shape != (X.shape[0],):
        raise ValueError(f"labels must have shape ({X.shape[0]},), got {labels.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X (the vectors) has NaN or infinite entries")
    return X, labels


def concept_means(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(n_groups, d) mean vector of every group (groups = sorted unique labels)."""
    X, labels = _check_labels(X, labels)
    groups = np.unique(labels)
    return np.stack([X[labels == g].mean(0) for g in groups])


def collapse_ratio(X: np.ndarray, labels: np.ndarray) -> float:
    """Within-group spread over between-group distance.

    ``sqrt(mean_i ||x_i - m_{g(i)}||^2) / mean_{g != g'} ||m_g - m_{g'}||``: 0 for a perfect collapse
    onto the group means; of order 1 or more when the groups are not separated.
    """
    X, labels = _check_labels(X, labels)
    groups, inv = np.unique(labels, return_inverse=True)
    if groups.size < 2:
        raise ValueError("collapse_ratio needs at least two groups")
    M = np.stack([X[inv == g].mean(0) for g in range(groups.size)])
    within = np.sqrt(np.mean(np.sum((X - M[inv]) ** 2, axis=1)))
    D = np.linalg.norm(M[:, None, :] - M[None, :, :], axis=2)
    between = D[~np.eye(groups.size, dtype=bool)].mean()
    if not between > 0:
        raise ValueError(
            "every group has the same mean vector: the within/between ratio is undefined (0/0 when "
            "all vectors are identical)"
        )
    return float(within / between)


def simplex_angle(nc: int) -> float:
    """Angle (degrees) between two vertices of a centred regular simplex: ``arccos(-1/(nc-1))``."""
    if nc < 2:
        raise ValueError(f"nc must be >= 2, got {nc}")
    return float(np.degrees(np.arccos(-1.0 / (nc - 1))))


def concept_mean_angles(means: np.ndarray) -> np.ndarray:
    """Pairwise angles (degrees) between the rows of ``means`` (upper triangle, flattened)."""
    M = np.asarray(means, dtype=float)
    if M.ndim != 2 or M.shape[0] < 2:
        raise ValueError(f"need at least two mean vectors in rows, got shape {M.shape}")
    nrm = np.linalg.norm(M, axis=1)
    if np.any(nrm == 0):
        raise ValueError("a mean vector is zero: its angle is undefined")
    C = (M @ M.T) / np.outer(nrm, nrm)
    iu = np.triu_indices(M.shape[0], 1)
    return np.degrees(np.arccos(np.clip(C[iu], -1.0, 1.0)))


def word_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {X.shape}")
    return np.linalg.norm(X, axis=1)


def direction_cosines(X: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Cosine between every row and the mean direction of its group (1 = directional collapse)."""
    X, labels = _check_labels(X, labels)
    groups, inv = np.unique(labels, return_inverse=True)
    M = np.stack([X[inv == g].mean(0) for g in range(groups.size)])
    norms = np.linalg.norm(M, axis=1, keepdims=True)
    if np.any(norms == 0):
        bad = groups[np.flatnonzero(norms[:, 0] == 0)[:5]]
        raise ValueError(
            f"the mean vector of group(s) {bad.tolist()} is zero: its direction, and the cosine of "
            "its vectors to it, are undefined"
        )
    M = M / norms
    nx = np.linalg.norm(X, axis=1)
    return np.sum(X * M[inv], axis=1) / np.where(nx > 0, nx, 1.0)


def top_singular_values(X: np.ndarray, k: int = 5, center: bool = False) -> np.ndarray:
    """The ``k`` largest singular values of ``X`` (optionally after removing the row mean)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {X.shape}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if center:
        X = X - X.mean(0)
    return np.linalg.svd(X, compute_uv=False)[:k]


def pca_2d(X: np.ndarray, center: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Project the rows of ``X`` on their top two principal directions.

    Returns ``(coords (n, 2), singular values (all))``. ``center=False`` uses the raw second-moment
    directions (appropriate when the configuration is centred by theory, as collapse configurations are).
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"need at least two vectors in rows, got shape {X.shape}")
    Xc = X - X.mean(0) if center else X
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    return Xc @ Vt[:2].T, s
