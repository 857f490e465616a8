"""Statistics several chapters share, written once: the binomial standard error of an accuracy gap, means
under bootstrap replicate weights, the paired bootstrap gap of two estimates, Spearman's ρ with an interval
from paired replicates, and a permutation null over orders.

"Paired" means that replicate ``b`` of both quantities comes from the same resample, so noise the two share
cancels in their difference (chapters 24, 26 and 51).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..book import checks, config

__all__ = [
    "partial_spearman",
    "spearman_with_uncertainty",
    "gap_se",
    "replicate_means",
    "bootstrap_gap",
    "paired_spearman",
    "permutation_null",
]


def _finite(name: str, x: Any, ndim: int) -> np.ndarray:
    return checks.finite_array(name, x, ndim=ndim)


def gap_se(acc_a: float, acc_b: float, n_a: int, n_b: int | None = None) -> float:
    """Binomial standard error of the difference of two accuracies measured on ``n_a`` and ``n_b`` items.

    ``sqrt(a(1-a)/n_a + b(1-b)/n_b)``, treating the items as independent. The analogies of the pairs
    protocol share words, so they are positively correlated and the true error is larger: use the result
    with a generous multiple (the book uses :data:`qwem_lib.qwem.evaluation.COMPETITIVE_Z` = 3) or a paired
    bootstrap (:func:`bootstrap_gap`).

    Parameters
    ----------
    acc_a, acc_b : float
        The two accuracies, in [0, 1].
    n_a : int
        The number of items of the first.
    n_b : int, optional
        The number of items of the second; default ``n_a``.

    Returns
    -------
    float
        The standard error.

    Raises
    ------
    ValueError
        If an accuracy is outside [0, 1] or a count is not a positive integer.

    Examples
    --------
    >>> round(gap_se(0.6, 0.5, 100), 4)  # sqrt(0.24/100 + 0.25/100)
    0.07
    """
    return gap_se_named(acc_a, acc_b, n_a, n_b, names=("acc_a", "acc_b", "n_a", "n_b"))


def gap_se_named(
    acc_a: float, acc_b: float, n_a: int, n_b: int | None, names: tuple[str, str, str, str]
) -> float:
    """:func:`gap_se`, its arguments checked under the caller's ``names`` (for the messages): accuracies in
    ``[0, 1]``, counts positive integers."""
    acc_a = checks.fraction(names[0], acc_a)
    acc_b = checks.fraction(names[1], acc_b)
    n_a = checks.positive_int(names[2], n_a)
    n_b = n_a if n_b is None else checks.positive_int(names[3], n_b)
    return float(np.sqrt(acc_a * (1 - acc_a) / n_a + acc_b * (1 - acc_b) / n_b))


def replicate_means(weights: Any, values: Any) -> np.ndarray:
    """Weighted means of ``values``, one per row of ``weights``: the statistic on each bootstrap resample.

    ``weights @ values / weights.sum(axis=1)``; for example the 0/1 hits of ``n`` analogy items with the
    weights of :func:`qwem_lib.qwem.evaluation.pair_bootstrap_weights`.

    Parameters
    ----------
    weights : array_like, shape (m, n)
        Non-negative, finite; every row sums to more than zero.
    values : array_like, shape (n,)
        Finite values.

    Returns
    -------
    numpy.ndarray, shape (m,)

    Raises
    ------
    ValueError
        For mismatched shapes, negative or non-finite weights, a replicate whose weights sum to zero, or
        non-finite values.

    Examples
    --------
    >>> import numpy as np
    >>> replicate_means(np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), np.array([1.0, 0.0, 1.0]))
    array([0.5, 0.5])
    """
    w = checks.positive_array("weights", weights, strict=False, ndim=2)
    v = checks.finite_array("values", values, ndim=1)
    if w.shape[1] != v.shape[0]:
        raise ValueError(f"need weights (m, n) and values (n,), got {w.shape} and {v.shape}")
    tot = w.sum(axis=1)
    if np.any(tot <= 0):
        raise ValueError("a replicate's weights sum to zero: its mean is undefined")
    return w @ v / tot


def bootstrap_gap(
    estimate_a: float,
    estimate_b: float,
    draws_a: Any,
    draws_b: Any,
    *,
    quantiles: tuple[float, float] = (0.025, 0.975),
) -> dict[str, float]:
    """The gap ``estimate_a − estimate_b`` with its *paired* bootstrap spread: ``{"gap", "se", "lo", "hi"}``.

    ``draws_a`` and ``draws_b`` (``(m,)``) are the two statistics on the same ``m`` resamples (replicate
    ``b`` of both from one draw, e.g. :func:`replicate_means` with one weight matrix). ``se`` is the standard
    deviation of the paired differences ``draws_a − draws_b`` and ``lo``, ``hi`` their ``quantiles`` (a
    95% percentile interval by default).

    Parameters
    ----------
    estimate_a, estimate_b : float
        The two statistics on the full sample.
    draws_a, draws_b : (m,) arrays
        The same statistics on the same ``m >= 2`` resamples.
    quantiles : (float, float)
        The interval's quantiles of the paired differences (95% by default).

    Returns
    -------
    dict
        ``gap`` (``estimate_a − estimate_b``), ``se``, ``lo`` and ``hi``.

    Raises
    ------
    ValueError
        For non-finite estimates or draws, draws of different shapes or fewer than two replicates, and
        quantiles outside ``0 ≤ lo < hi ≤ 1``.

    Examples
    --------
    Two statistics that move together on every resample have a small paired spread, however much each
    moves on its own:

    >>> import numpy as np
    >>> common = np.random.default_rng(0).normal(size=1000)
    >>> out = bootstrap_gap(0.60, 0.50, 0.60 + common, 0.50 + common + 0.01)
    >>> round(out["gap"], 2), round(out["se"], 6), round(out["lo"], 2)
    (0.1, 0.0, 0.09)
    """
    a, b = checks.real("estimate_a", estimate_a), checks.real("estimate_b", estimate_b)
    da, db = _finite("draws_a", draws_a, 1), _finite("draws_b", draws_b, 1)
    if da.shape != db.shape or da.size < 2:
        raise ValueError(
            f"draws_a and draws_b must be paired replicates of one shape (m >= 2), got {da.shape} and "
            f"{db.shape}"
        )
    q_lo, q_hi = (float(x) for x in quantiles)
    if not 0.0 <= q_lo < q_hi <= 1.0:
        raise ValueError(f"quantiles must satisfy 0 <= lo < hi <= 1, got {quantiles!r}")
    dd = da - db
    lo, hi = np.quantile(dd, [q_lo, q_hi])
    return dict(gap=a - b, se=float(dd.std()), lo=float(lo), hi=float(hi))


def paired_spearman(x: Any, y: Any, x_draws: Any, y_draws: Any) -> dict[str, float]:
    """Spearman's ρ of ``x`` and ``y`` (one value per unit, e.g. per category) with a 95% interval from
    *paired* replicates: row ``b`` of ``x_draws`` and of ``y_draws`` (``(m, n)``) come from the same resample
    (the same bootstrap draw of every category's word pairs), so noise the two share stays shared.
    Units (categories) are fixed, not resampled. Returns ``{"rho", "lo", "hi", "m"}``; rows with a
    non-finite entry are skipped (``m`` counts the rows used)."""
    from scipy.stats import spearmanr

    x, y = _finite("x", x, 1), _finite("y", y, 1)
    if x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must have the same length >= 3, got {x.shape} and {y.shape}")
    # rows holding NaN or inf are documented as skipped: only their kind and shape are checked here
    X = checks.finite_array("x_draws", x_draws, ndim=2, allow_nonfinite=True)
    Y = checks.finite_array("y_draws", y_draws, ndim=2, allow_nonfinite=True)
    if X.shape != Y.shape or X.shape[1] != x.size:
        raise ValueError(
            f"x_draws and y_draws must both be (m, {x.size}), got {X.shape} and {Y.shape}"
        )
    ok = np.all(np.isfinite(X), axis=1) & np.all(np.isfinite(Y), axis=1)
    rhos = np.array([spearmanr(a, b).statistic for a, b in zip(X[ok], Y[ok])], dtype=np.float64)
    rhos = rhos[np.isfinite(rhos)]
    if rhos.size == 0:
        raise ValueError("no finite paired replicate")
    lo, hi = np.quantile(rhos, [0.025, 0.975])
    return {
        "rho": float(spearmanr(x, y).statistic),
        "lo": float(lo),
        "hi": float(hi),
        "m": int(rhos.size),
    }


def permutation_null(
    stat: Callable[[np.ndarray], float],
    n: int,
    *,
    observed: float | None = None,
    n_perm: int = 10_000,
    rng: np.random.Generator | None = None,
    exhaustive_up_to: int = 8,
) -> tuple[np.ndarray, float]:
    """``(null, p)``: ``stat(perm)`` over shuffled orders ``perm`` of ``0..n−1``, and the one-sided p-value
    of ``observed`` (``stat`` of the identity when None): the share of orders scoring at least as high.

    For ``n ≤ exhaustive_up_to`` every one of the n! orders is evaluated (the identity included, so the
    p-value is exact); otherwise ``n_perm`` uniform random orders and p = (1 + #{≥})/(1 + n_perm).
    ``stat`` receives the order as an index array, e.g.
    ``lambda p: qwem_lib.beyond.symmetry.cyclic_r2(B[np.ix_(p, p)])``.
    """
    if not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"n must be an integer >= 3, got {n!r}")
    if observed is None:
        observed = float(stat(np.arange(n)))
    if n <= exhaustive_up_to:
        null = np.array([stat(np.array(p)) for p in itertools.permutations(range(n))], dtype=float)
        return null, float(np.mean(null >= observed - 1e-12))
    if n_perm < 1:
        raise ValueError("n_perm must be positive")
    rng = rng if rng is not None else np.random.default_rng(0)
    null = np.array([stat(rng.permutation(n)) for _ in range(int(n_perm))], dtype=float)
    return null, float((1 + np.sum(null >= observed - 1e-12)) / (1 + null.size))


# -- rank statistics ---------------------------------------------------------------------------------
def partial_spearman(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, z: Sequence[float]
) -> float:
    """Spearman partial correlation of ``x`` and ``y`` given ``z``: the Pearson correlation of the ranks
    of ``x`` and ``y`` after each is regressed (least squares, with intercept) on the ranks of ``z``."""
    from scipy.stats import rankdata

    a = [checks.finite_array(name, v, ndim=1) for name, v in (("x", x), ("y", y), ("z", z))]
    if any(len(v) != len(a[0]) for v in a) or len(a[0]) < 4:
        raise ValueError(
            "x, y and z must be three 1-d sequences of the same length >= 4, got lengths "
            f"{[len(v) for v in a]}"
        )
    rx, ry, rz = (rankdata(v) for v in a)
    Z = np.stack([np.ones_like(rz), rz], axis=1)
    ex = rx - Z @ np.linalg.lstsq(Z, rx, rcond=None)[0]
    ey = ry - Z @ np.linalg.lstsq(Z, ry, rcond=None)[0]
    # a residual at round-off level means x (or y) is a function of z's ranks: refuse it rather than
    # return the correlation of rounding errors
    for r, e in ((rx, ex), (ry, ey)):
        scale = np.linalg.norm(r - r.mean())  # 0 for a constant sequence: then e is rounding too
        if scale == 0 or not np.linalg.norm(e) > 1e-9 * scale:
            raise ValueError("x or y is a function of z's ranks: no partial correlation")
    return float(ex @ ey / (np.linalg.norm(ex) * np.linalg.norm(ey)))


def spearman_with_uncertainty(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    *,
    n_boot: int = 2000,
    n_perm: int = 10000,
    rng: np.random.Generator | None = None,
    x_draws: np.ndarray | None = None,
    y_draws: np.ndarray | None = None,
) -> dict[str, float]:
    """Spearman's ρ of ``x`` and ``y`` with a percentile bootstrap 95% interval and a one-sided permutation
    p-value for ρ > 0: ``{"rho", "lo", "hi", "p", "n"}``.

    The bootstrap resamples the units (categories). ``x_draws`` / ``y_draws`` (``(m, n)`` arrays: ``m``
    replicates of each unit's value, for example from resampling its pairs or from a binomial draw of its
    accuracy) add the units' own uncertainty: each bootstrap replicate then uses, for every resampled unit,
    the value of a random replicate instead of the point estimate.
    """
    from scipy.stats import spearmanr

    x, y = checks.finite_array("x", x, ndim=1), checks.finite_array("y", y, ndim=1)
    if x.shape != y.shape or len(x) < 4:
        raise ValueError(
            f"x and y must be two 1-d sequences of the same length >= 4, got {x.shape} and {y.shape}"
        )
    n_boot = checks.positive_int("n_boot", n_boot)
    n_perm = checks.positive_int("n_perm", n_perm)
    draws: list[np.ndarray | None] = []
    for name, given in (("x_draws", x_draws), ("y_draws", y_draws)):
        dr = None if given is None else np.asarray(given, dtype=float)
        if dr is not None and (
            dr.ndim != 2 or dr.shape[1] != len(x) or not np.all(np.isfinite(dr))
        ):
            raise ValueError(f"{name} must be a finite (m, {len(x)}) array")
        draws.append(dr)
    rng = np.random.default_rng([config.SEED, 30_002]) if rng is None else rng
    rho = float(spearmanr(x, y).statistic)
    boots = []
    for _ in range(n_boot):
        i = rng.integers(0, len(x), len(x))
        dx, dy = draws
        xb = x[i] if dx is None else dx[rng.integers(0, len(dx), len(x)), i]
        yb = y[i] if dy is None else dy[rng.integers(0, len(dy), len(x)), i]
        if np.ptp(xb) > 0 and np.ptp(yb) > 0:
            boots.append(spearmanr(xb, yb).statistic)
    rx = np.argsort(np.argsort(x))
    ry = np.argsort(np.argsort(y))
    perm = np.array([np.corrcoef(rx, rng.permutation(ry))[0, 1] for _ in range(n_perm)])
    rho_r = float(np.corrcoef(rx, ry)[0, 1])
    p = float((1 + np.sum(perm >= rho_r - 1e-12)) / (1 + n_perm))
    lo, hi = np.nanquantile(boots, [0.025, 0.975])
    return {"rho": rho, "lo": float(lo), "hi": float(hi), "p": p, "n": int(len(x))}
