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
exceeds ``ALIGNED_COSINE = 0.95``. :func:`collapse_stats` computes both in one call. The threshold is the
same for every set of vectors of Part IV (words, LayerNorm outputs, linear weights, transformer
embeddings, grammar levels).

**Two ways of looking, and a null** (:func:`collapse_two_ways`). The paper's only criterion in its
appendix is a picture: the vectors projected on their top two principal directions. The same ratio can
be measured *inside that plane* (:func:`plane_ratio`), and the two numbers need not agree: the plane is
chosen to show the largest variance, which in a trained table is the between-group variance, so most of
the within-group spread can lie in the directions the picture does not show. :func:`visible_within_share`
says how much of it the plane shows. Both ratios are compared with a **shuffled-label null**
(:func:`shuffled_ratios`): the same trained vectors with their group labels permuted at random, which
keeps every property of the table except the link between a vector and its group. A ratio far below
the null's says the groups are real; a ratio below ``COLLAPSED_RATIO`` says they are collapsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..maths.linalg import unit_rows

__all__ = [
    "COLLAPSED_RATIO",
    "ALIGNED_COSINE",
    "CollapseStats",
    "collapse_stats",
    "concept_means",
    "collapse_ratio",
    "decay_floor",
    "concept_mean_angles",
    "simplex_angle",
    "word_norms",
    "direction_cosines",
    "top_singular_values",
    "pca_2d",
    "pca_plane",
    "plane_ratio",
    "visible_within_share",
    "shuffled_ratios",
    "unit_rows",  # from qwem_lib.maths.linalg: chapters 41 and 44 call fc.unit_rows
    "TwoWays",
    "collapse_two_ways",
    "claim_collapse",
    "two_ways_table",
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
    """The shared collapse metric of the rows of ``X`` grouped by ``labels``.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite vectors, one per row.
    labels : array_like, shape (n,)
        The group of each row; at least two groups.

    Returns
    -------
    CollapseStats
        The within/between ratio (:func:`collapse_ratio`), the median cosine of a row to its group's
        mean direction (:func:`direction_cosines`), ``n`` and the number of groups.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D and finite, ``labels`` has not one entry per row, or there is one group.

    Examples
    --------
    >>> import numpy as np
    >>> s = collapse_stats(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0], [0.0, 2.0]]), [0, 0, 1, 1])
    >>> s.ratio, s.cos_median, s.collapsed
    (0.0, 1.0, True)
    """
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
    """Within-group spread over between-group distance: the book's collapse ratio.

    ``sqrt(mean_i ||x_i - m_{g(i)}||^2) / mean_{g != g'} ||m_g - m_{g'}||``, with ``m_g`` the mean of group
    ``g``: 0 for a perfect collapse onto the group means; of order 1 or more when the groups are not
    separated. A table counts as collapsed below :data:`COLLAPSED_RATIO`.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite vectors, one per row.
    labels : array_like, shape (n,)
        The group of each row; at least two groups.

    Returns
    -------
    float
        The ratio, ``>= 0``.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D and finite, ``labels`` has not one entry per row, there is one group, or every
        group has the same mean (the ratio is then undefined).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [-1.0, 0.0], [4.0, 0.0], [6.0, 0.0]])
    >>> collapse_ratio(X, [0, 0, 1, 1])  # spread 1 around means 0 and 5
    0.2
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


def decay_floor(X: np.ndarray, X0: np.ndarray, delta: float, labels: np.ndarray) -> float:
    """The full ratio ``X`` would keep if what training added to it were perfectly collapsed.

    Under decoupled weight decay (AdamW) an initial table ``X0`` survives in the trained ``X`` as
    ``delta * X0`` (``delta = (1 - lr * weight_decay) ** steps``); the rest, ``D = X - delta * X0``, is
    what the gradients added. Replacing every row of ``D`` by its group's mean gives the table
    ``delta * X0 + mean_g(D)``: its :func:`collapse_ratio` is the floor that the initialisation alone
    holds the ratio at. ``delta = 0`` gives 0 (nothing of the start is left).

    Examples
    --------
    >>> import numpy as np
    >>> X0 = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0]])
    >>> labels = np.array([0, 0, 1, 1])
    >>> X = 0.5 * X0 + np.array([[3.0, 0.0], [3.0, 0.0], [-3.0, 0.0], [-3.0, 0.0]])
    >>> round(decay_floor(X, X0, 0.5, labels), 4)  # within 0.5, between 6
    0.0833
    """
    X, labels = _check_labels(X, labels)
    X0 = np.asarray(X0, dtype=float)
    if X0.shape != X.shape:
        raise ValueError(
            f"X0 (the initial table) must have the shape of X {X.shape}, got {X0.shape}"
        )
    if not np.isfinite(X0).all():
        raise ValueError("X0 (the initial table) has NaN or infinite entries")
    if not (isinstance(delta, (int, float, np.floating)) and 0.0 <= float(delta) <= 1.0):
        raise ValueError(f"delta (the decay factor) must be a number in [0, 1], got {delta!r}")
    start = float(delta) * X0
    groups, inv = np.unique(labels, return_inverse=True)
    learned = X - start
    means = np.stack([learned[inv == g].mean(0) for g in range(groups.size)])
    return collapse_ratio(start + means[inv], labels)


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
    """Euclidean norm of every row.

    Parameters
    ----------
    X : array_like, shape (n, d)

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    ValueError
        If ``X`` is not 2-D.

    Examples
    --------
    >>> word_norms([[3.0, 4.0], [0.0, 1.0]]).tolist()
    [5.0, 1.0]
    """
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


def pca_plane(X: np.ndarray, center: bool = False) -> np.ndarray:
    """(d, 2) orthonormal basis of the plane the PCA pictures of Part IV show.

    The top two right singular vectors of ``X`` (after removing the row mean when ``center``), the
    plane of :func:`pca_2d` and of ``plotting.pca_scatter`` with the same ``center``.
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(
            f"need at least two vectors of dimension >= 2 in rows, got shape {X.shape}"
        )
    Xc = X - X.mean(0) if center else X
    return np.linalg.svd(Xc, full_matrices=False)[2][:2].T


def plane_ratio(X: np.ndarray, labels: np.ndarray, center: bool = False) -> float:
    """The within/between ratio of the rows of ``X`` projected on their top-two PCA plane.

    What a reader of the 2-D picture sees (see :func:`pca_plane` for ``center``). The between-group
    distances of a trained table lie mostly in that plane, the within-group spread mostly outside it,
    so this is usually much smaller than :func:`collapse_ratio` on the full vectors.
    """
    X, labels = _check_labels(X, labels)
    return collapse_ratio(X @ pca_plane(X, center), labels)


def visible_within_share(X: np.ndarray, labels: np.ndarray, center: bool = False) -> float:
    """Share of the within-group variance ``sum_i ||x_i - m_{g(i)}||^2`` that lies in the PCA plane.

    1 when the picture shows all of the spread inside the groups, ``2/d`` for spread in random
    directions, near 0 when the plane holds only the between-group structure. Raises ``ValueError``
    when the vectors are all on their group means (no spread to share).
    """
    X, labels = _check_labels(X, labels)
    _, inv = np.unique(labels, return_inverse=True)
    R = X - concept_means(X, labels)[inv]
    total = float(np.sum(R**2))
    if total == 0.0:
        raise ValueError("every vector is on its group mean: there is no within-group variance")
    return float(np.sum((R @ pca_plane(X, center)) ** 2) / total)


def shuffled_ratios(
    X: np.ndarray,
    labels: np.ndarray,
    n: int = 20,
    seed: int | np.random.Generator = 0,
    center: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """The shuffled-label null: ``(full, plane)`` ratios of ``X`` under ``n`` random permutations of ``labels``.

    The vectors (hence the PCA plane) are unchanged, only the link between a vector and its group is
    broken, so the group sizes are kept. ``full[j]`` is :func:`collapse_ratio` and ``plane[j]``
    :func:`plane_ratio` under permutation ``j``.
    """
    X, labels = _check_labels(X, labels)
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    Y = X @ pca_plane(X, center)
    full, plane = np.empty(int(n)), np.empty(int(n))
    for j in range(int(n)):
        lab = rng.permutation(labels)
        full[j] = collapse_ratio(X, lab)
        plane[j] = collapse_ratio(Y, lab)
    return full, plane


@dataclass(frozen=True)
class TwoWays:
    """Collapse of one set of vectors measured two ways, beside the shuffled-label null.

    ``full`` the within/between ratio of the vectors (:func:`collapse_ratio`), ``plane`` the same in the
    top-two PCA plane the pictures show (:func:`plane_ratio`), ``visible`` the share of the within-group
    variance that plane shows (:func:`visible_within_share`), ``null_full`` / ``null_plane`` the median
    and ``null_full_min`` / ``null_plane_min`` the smallest of the two ratios over ``n_null`` label
    permutations (:func:`shuffled_ratios`; the null is skewed, since its between-group distances are
    small and noisy, so medians and minima rather than means and standard deviations), ``cos_median``
    the median cosine to the group mean.
    """

    full: float
    plane: float
    visible: float
    null_full: float
    null_full_min: float
    null_plane: float
    null_plane_min: float
    n_null: int
    cos_median: float
    n: int
    groups: int

    @property
    def collapsed(self) -> bool:
        """The book's criterion: ``full < COLLAPSED_RATIO``."""
        return self.full < COLLAPSED_RATIO

    @property
    def plane_collapsed(self) -> bool:
        """The paper's (visual) criterion, made a number: ``plane < COLLAPSED_RATIO``."""
        return self.plane < COLLAPSED_RATIO

    def row(self, name: str = "") -> str:
        """One Markdown table row: name, 2-D ratio, full ratio, visible share, null, verdicts."""
        yes = lambda b: "yes" if b else "no"  # noqa: E731
        return (
            f"| {name} | {self.plane:.3f} | {self.full:.3f} | {self.visible:.1%} | "
            f"{self.null_plane:.2f} (min {self.null_plane_min:.2f}) | {self.null_full:.2f} "
            f"(min {self.null_full_min:.2f}) | "
            f"{yes(self.plane_collapsed)} | {yes(self.collapsed)} |"
        )

    HEADER = (
        "| vectors | 2-D ratio (the picture) | full ratio | within-group variance shown | "
        "shuffled-label null, 2-D | shuffled-label null, full | collapsed in 2-D | collapsed (full) |\n"
        "|---|---|---|---|---|---|---|---|"
    )

    def __str__(self) -> str:
        return (
            f"2-D ratio {self.plane:.4f}, full ratio {self.full:.4f} ({self.visible:.1%} of the "
            f"within-group variance in the plane); shuffled-label null {self.null_plane:.2f} (2-D), "
            f"{self.null_full:.2f} (full); median cosine {self.cos_median:.4f} ({self.n} vectors, "
            f"{self.groups} groups)"
        )


def collapse_two_ways(
    X: np.ndarray,
    labels: np.ndarray,
    center: bool = False,
    n_null: int = 20,
    seed: int = 0,
) -> TwoWays:
    """The collapse of the rows of ``X`` measured two ways: in the plane a figure shows, and in full.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Finite vectors, one per row.
    labels : array_like, shape (n,)
        The group of each row; at least two groups.
    center : bool, default False
        Remove the mean row before finding the top-two PCA plane (as the figure does); the paper's
        figures use uncentred PCA.
    n_null : int, default 20
        Shuffled-label permutations for the null (:func:`shuffled_ratios`).
    seed : int, default 0
        Seed of the permutations.

    Returns
    -------
    TwoWays
        The full ratio (:func:`collapse_ratio`), the 2-D ratio in the top-two PCA plane
        (:func:`plane_ratio`), the share of the within-group variance that plane shows, the null's median
        and minimum ratios, the median cosine to the group mean, ``n`` and the number of groups.

    Raises
    ------
    ValueError
        If ``X`` is not 2-D and finite, or ``labels`` has not one entry per row.
    """
    X, labels = _check_labels(X, labels)
    full, plane = shuffled_ratios(X, labels, n_null, seed, center)
    return TwoWays(
        collapse_ratio(X, labels),
        plane_ratio(X, labels, center),
        visible_within_share(X, labels, center),
        float(np.median(full)),
        float(full.min()),
        float(np.median(plane)),
        float(plane.min()),
        int(n_null),
        float(np.median(direction_cosines(X, labels))),
        int(X.shape[0]),
        int(np.unique(labels).size),
    )


def claim_collapse(
    rep: Any,
    cid: str,
    what: str,
    tw: TwoWays,
    *,
    assert_full: bool | None = None,
    assert_plane: bool = True,
    paper: Any = None,
) -> None:
    """Record the collapse of ``what`` the same way in every chapter of Part IV (three claims).

    * ``cid + ".plane"`` (finding): the 2-D ratio, in the plane the figure shows, is below
      ``COLLAPSED_RATIO`` — the paper's visual criterion made a number (recorded instead when
      ``assert_plane`` is false: a run the chapter knows to be too short);
    * ``cid + ".null"`` (finding): the full ratio is below every one of the ``n_null`` ratios of the
      shuffled-label null on the same trained vectors (a permutation test at level ``1/(n_null + 1)``:
      the groups are real; an unstructured table fails it). The value is the full ratio over the
      smallest null ratio, below 1. It is a weak test, passed by any learning at all: that is why the
      threshold on the full ratio is there;
    * ``cid`` (the full ratio): asserted below ``COLLAPSED_RATIO`` as a finding when ``assert_full``
      (default: at the ``paper`` preset only), else recorded with what this size reaches. A chapter
      asserts it at its own size only where it said so before the run (the uniform tasks).

    The statements carry the visible share and the null, so the record says everything a reader needs to
    judge the picture.

    Parameters
    ----------
    rep : Report
        The chapter's :class:`qwem_lib.book.report.Report`.
    cid : str
        The claim id; the three claims are ``cid + ".plane"``, ``cid + ".null"`` and ``cid``.
    what : str
        What the vectors are, for the statements (e.g. "h's word embeddings").
    tw : TwoWays
        Their collapse measured two ways (:func:`collapse_two_ways`).
    assert_full : bool, optional
        Assert the full ratio below :data:`COLLAPSED_RATIO`; default: at the ``paper`` preset only.
    assert_plane : bool, default True
        Assert the 2-D ratio (else record it).
    paper : optional
        The paper's value, recorded beside the full ratio.

    Raises
    ------
    AssertionError
        When an asserted claim fails (after it is recorded, as every ``Report`` check does).
    """
    from ..book import config

    if assert_full is None:
        assert_full = config.preset() == "paper"
    plane_statement = (
        f"{what}: within/between ratio in the top-two PCA plane the figure shows (the paper's visual "
        f"criterion; the plane shows {tw.visible:.1%} of the within-group variance; shuffled-label null "
        f"median {tw.null_plane:.2f})"
    )
    if assert_plane:
        rep.below(
            f"{cid}.plane", plane_statement, value=tw.plane, bound=COLLAPSED_RATIO, kind="finding"
        )
    else:
        rep.check(
            f"{cid}.plane",
            plane_statement,
            value=tw.plane,
            passed=True,
            kind="record",
            tolerance=(
                f"recorded at the {config.preset()} preset: {'below' if tw.plane_collapsed else 'above'} "
                f"{COLLAPSED_RATIO}"
            ),
        )
    rep.below(
        f"{cid}.null",
        f"{what}: full ratio {tw.full:.3f} over the smallest of {tw.n_null} shuffled-label ratios on "
        f"the same vectors (null median {tw.null_full:.2f}; a permutation test)",
        value=tw.full / tw.null_full_min,
        bound=1.0,
        kind="finding",
    )
    statement = f"{what}: within/between ratio of the full vectors (2-D ratio {tw.plane:.3f})"
    if assert_full:
        rep.below(cid, statement, value=tw.full, bound=COLLAPSED_RATIO, kind="finding", paper=paper)
    else:
        rep.check(
            cid,
            statement,
            value=tw.full,
            passed=True,
            kind="record",
            tolerance=(
                f"recorded at the {config.preset()} preset: {'below' if tw.collapsed else 'above'} "
                f"the collapse threshold {COLLAPSED_RATIO} (asserted at the paper preset)"
            ),
            paper=paper,
        )


def two_ways_table(rows: dict[str, TwoWays]) -> str:
    """A Markdown table of the collapse of several sets of vectors, for ``report.prose``.

    Parameters
    ----------
    rows : dict of str to TwoWays
        Each set's name and its collapse (:func:`collapse_two_ways`), in the order of the rows.

    Returns
    -------
    str
        :attr:`TwoWays.HEADER` and one row per set: the 2-D ratio, the full ratio, the within-group
        variance the plane shows, the two nulls and the two verdicts.
    """
    return "\n".join([TwoWays.HEADER] + [tw.row(name) for name, tw in rows.items()])
