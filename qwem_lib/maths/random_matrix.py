"""A spiked random matrix: the Marchenko–Pastur bulk, one BBP outlier, and their fit (shared maths).

The book fits it to analogy task vectors (:mod:`qwem_lib.qwem.task_vectors`, Part III); nothing here is
specific to words.

For an analogy category with word pairs ``(a_i, b_i)``, ``i = 1..N``, the *task vectors* are the rows of
``R = W[b] - W[a]`` (``N x d``). The model of the paper's Figure 4 and Appendix A.6 is

    R = 1 μᵀ + Z,      Z_ij independent, mean 0, variance s_j² (column j),

a rank-one signal (the category's mean task vector ``μ``, the same for every pair) plus noise. The
eigenvalues of the ``N x N`` Gram matrix ``R Rᵀ`` then form a Marchenko–Pastur (MP) bulk plus at most one
outlier.

The bulk. With equal variances ``s_j² = σ²`` and ``D`` columns, the empirical distribution of the ``N``
eigenvalues of ``Z Zᵀ`` tends to the MP law of ratio ``c = N / D`` and scale ``σ² D``: a density on
``[σ²(√D - √N)², σ²(√D + √N)²]`` and, when ``D < N``, an atom of mass ``1 - D/N`` at zero. With unequal
variances the law is not exactly MP, but its first two moments,

    E (1/N) Tr ZZᵀ = Σ s_j²,      E (1/N) Tr (ZZᵀ)² = (Σ s_j²)² + (N + 1) Σ s_j⁴     (Gaussian Z, exact),

are those of an MP law with ``σ² = Σ s⁴ / Σ s²`` and ``D = d_eff = (Σ s²)² / Σ s⁴`` columns. The fit
below matches these two moments on the bulk — the method of moments, which estimates exactly these two
quantities; with ``S₁ = Σλ``, ``S₂ = Σλ²`` over ``n`` eigenvalues it solves the exact finite-``n``
expectations ``E S₁² = n²A + 2nB``, ``E S₂ = nA + n(n+1)B`` for ``A = (Σs²)²``, ``B = Σs⁴`` (to leading
order ``D = (n + 1)/excess``, ``excess = m₂/m₁² - 1``), then rescales ``D`` and ``σ²`` so that their
medians are unbiased for few eigenvalues (:func:`moment_fit_traces`) — and reports the Kolmogorov–Smirnov (KS) distance
between the bulk's empirical distribution and the fitted MP law as its goodness of fit. The moment fit
assumes rows of equal expected norm: unequal row norms add their own spread to the eigenvalues and pull
``d_eff`` down (:func:`column_deff` estimates ``d_eff`` from the column variances instead, unaffected by row
scales).

The outlier (Baik–Ben Arous–Péché, BBP; Benaych-Georges & Nadakuditi 2012). The signal ``1 μᵀ`` alone has
one non-zero eigenvalue ``ℓ = N |μ|²`` in ``R Rᵀ``. Write ``θ² = ℓ / (σ² D)``. When ``θ² > √c``, i.e.
``ℓ > ℓ_BBP = σ² √(N D)``, the top eigenvalue separates from the bulk and converges to

    λ_out = σ² D (1 + θ²)(c + θ²) / θ²,

above the bulk's edge ``λ₊ = σ² (√D + √N)²``; below the threshold it sticks to the edge. The fitter
treats the outlier explicitly: it fits the bulk without the top eigenvalue (``N - 1`` eigenvalues, the
projection of ``R`` off the top direction), and declares an outlier when the top eigenvalue is improbable under
pure noise (BBP threshold, outlier location and edge all use the same ``N``, the rows of R): by default
the null simulates independent Gaussian columns with the variances of R's centred columns (centring
removes the rank-one signal exactly); for equal variances the Tracy–Widom (TW₁) law of a finite MP
bulk's largest eigenvalue (Johnstone 2001) is available as well. Without an outlier the bulk is refitted
on all ``N`` eigenvalues.

The column null assumes independent rows with equal expected norms; it is not a test of a common mean.
:func:`mean_signflip_test` tests the paper's hypothesis — a mean task vector shared by the rows —
directly, by flipping the rows' signs, and keeps its level whatever the rows' norms.

The authors' SNR of a task family is ``λ_max(R Rᵀ) · rank(R) / Tr(R Rᵀ)``
(:func:`qwem_lib.qwem.task_vectors.task_snr`); it is at most ``rank(R) = min(N, d)``, so pure noise already
makes it rise with ``d`` up to ``d ≈ N``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..book import checks, config

__all__ = [
    "TW1_Q99",
    "mp_support",
    "mp_pdf",
    "mp_cdf",
    "bbp_threshold",
    "spike_eigenvalue",
    "spike_from_eigenvalue",
    "bbp_overlaps",
    "SpikedMPFit",
    "gram_spectrum",
    "moment_fit_traces",
    "moment_fit",
    "column_deff",
    "authors_mp_estimate",
    "mp_ks_distance",
    "fit_spiked_mp",
    "ks_critical_bootstrap",
    "mean_signflip_test",
    "spiked_matrix",
    "checked_rows",
]


TW1_Q99 = 2.0234
"""The 99% quantile of the Tracy–Widom law TW₁ (real Gaussian matrices; Tracy & Widom 1996 tables)."""


def _check_shape(sigma2: float, N: float, D: float) -> None:
    for name, v in (("sigma2", sigma2), ("N", N), ("D", D)):
        if not (
            isinstance(v, (int, float, np.integer, np.floating)) and math.isfinite(v) and v > 0
        ):
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")


def mp_support(sigma2: float, N: float, D: float) -> tuple[float, float]:
    """Edges ``(λ₋, λ₊) = σ²(√D ∓ √N)²`` of the continuous part of the MP law of ``ZZᵀ`` (Z: N x D)."""
    _check_shape(sigma2, N, D)
    return sigma2 * (math.sqrt(D) - math.sqrt(N)) ** 2, sigma2 * (math.sqrt(D) + math.sqrt(N)) ** 2


def _standard(sigma2: float, N: float, D: float) -> tuple[float, float, float]:
    """``(scale, y, weight)``: the continuous part is ``scale · X`` with X standard MP of ratio y ≤ 1,
    carrying mass ``weight = min(1, D/N)`` (the rest is the atom at zero)."""
    big, small = max(N, D), min(N, D)
    return sigma2 * big, small / big, min(1.0, D / N)


def mp_pdf(x: np.ndarray | float, sigma2: float, N: float, D: float) -> np.ndarray:
    """Density of the continuous part of the MP law of the eigenvalues of ``ZZᵀ`` (Z: N x D, variance σ²).

    It integrates to ``min(1, D/N)``; the rest, ``max(0, 1 - D/N)``, is an atom at zero (not included).
    """
    _check_shape(sigma2, N, D)
    scale, y, w = _standard(sigma2, N, D)
    t = checks.finite_array("x", x, allow_empty=True) / scale
    a, b = (1 - math.sqrt(y)) ** 2, (1 + math.sqrt(y)) ** 2
    inside = (t > a) & (t < b)
    dens = np.zeros_like(t)
    ti = t[inside]
    dens[inside] = np.sqrt((b - ti) * (ti - a)) / (2 * math.pi * y * ti)
    return w * dens / scale


def mp_cdf(x: np.ndarray | float, sigma2: float, N: float, D: float) -> np.ndarray:
    """Cumulative distribution of the MP law of the eigenvalues of ``ZZᵀ``, atom at zero included.

    Closed form: with ``t = x / scale = 1 + y + 2√y cos φ`` (``φ`` from π at the lower edge to 0 at the upper),
    the standard law's CDF is ``1 - [(1+y)φ - 2√y sin φ - 2(1-y) arctan(k tan(φ/2))] / (2π y)``,
    ``k = (1-√y)/(1+√y)`` (the integral of ``√((b-t)(t-a)) / (2π y t)`` in the variable φ).
    """
    _check_shape(sigma2, N, D)
    scale, y, w = _standard(sigma2, N, D)
    t = checks.finite_array("x", x, allow_empty=True) / scale
    sy = math.sqrt(y)
    a, b = (1 - sy) ** 2, (1 + sy) ** 2
    phi = np.arccos(np.clip((t - (1 + y)) / (2 * sy), -1.0, 1.0))
    k = (1 - sy) / (1 + sy)
    with np.errstate(over="ignore", divide="ignore"):
        at = np.where(phi >= math.pi, math.pi / 2, np.arctan(k * np.tan(phi / 2)))
    cont = 1.0 - ((1 + y) * phi - 2 * sy * np.sin(phi) - 2 * (1 - y) * at) / (2 * math.pi * y)
    cont = np.where(t <= a, 0.0, np.where(t >= b, 1.0, np.clip(cont, 0.0, 1.0)))
    atom = 1.0 - w
    return np.where(t < 0, 0.0, atom + w * cont)


def bbp_threshold(sigma2: float, N: float, D: float) -> float:
    """The BBP threshold on the signal eigenvalue ``ℓ = N|μ|²``: an outlier separates when ``ℓ > σ²√(N D)``."""
    _check_shape(sigma2, N, D)
    return sigma2 * math.sqrt(N * D)


def spike_eigenvalue(ell: float, sigma2: float, N: float, D: float) -> float:
    """Where the top eigenvalue of ``RRᵀ`` converges for a signal eigenvalue ``ℓ`` (the edge below BBP)."""
    _check_shape(sigma2, N, D)
    ell = checks.nonnegative("ell", ell)
    c, th2 = N / D, ell / (sigma2 * D)
    if th2 <= math.sqrt(c):
        return mp_support(sigma2, N, D)[1]
    return sigma2 * D * (1 + th2) * (c + th2) / th2


def spike_from_eigenvalue(lam: float, sigma2: float, N: float, D: float) -> float | None:
    """Invert :func:`spike_eigenvalue`: the signal ``ℓ`` that puts the outlier at ``lam`` (None at or below
    the edge). Solves ``θ⁴ + (1 + c - x)θ² + c = 0`` with ``x = λ/(σ²D)``, larger root."""
    _check_shape(sigma2, N, D)
    lam = checks.nonnegative("lam", lam)
    c, x = N / D, lam / (sigma2 * D)
    disc = (x - 1 - c) ** 2 - 4 * c
    if x <= (1 + math.sqrt(c)) ** 2 or disc < 0:
        return None
    th2 = 0.5 * ((x - 1 - c) + math.sqrt(disc))
    return float(th2 * sigma2 * D)


def bbp_overlaps(ell: float, sigma2: float, N: float, D: float) -> dict[str, float]:
    """Large-``N, D`` limits of the top singular vectors' overlaps in ``R = 1μᵀ + Z`` (Benaych-Georges and
    Nadakuditi 2012), with ``θ² = ℓ/(σ²D)``, ``c = N/D``; all zero at or below the BBP threshold:

    * ``"left"``: ``⟨u₁, 1/√N⟩² = (θ⁴ - c) / (θ²(θ² + c))`` (the pairs' direction, in R^N);
    * ``"right"``: ``⟨v₁, μ/|μ|⟩² = (θ⁴ - c) / (θ²(θ² + 1))`` (the signal's direction, in R^D);
    * ``"mean"``: ``cos²(v₁, r̄) = 1 - c/θ⁴ = 1 - (ℓ_BBP/ℓ)²``, the share of the *sample* mean task vector
      ``r̄`` on the top direction, which is what :func:`qwem_lib.qwem.task_vectors.mean_overlap` measures.
      (``v₁ ∝ Rᵀu₁`` and
      ``r̄ = Rᵀ1/N`` give ``cos(v₁, r̄) = s₁⟨u₁, 1/√N⟩ / |Rᵀ1/√N|`` with ``|Rᵀ1/√N|² → σ²D(1 + θ²)``.)
    """
    _check_shape(sigma2, N, D)
    ell = checks.nonnegative("ell", ell)
    c, th2 = N / D, ell / (sigma2 * D)
    if th2 * th2 <= c:
        return {"left": 0.0, "right": 0.0, "mean": 0.0}
    th4 = th2 * th2
    return {
        "left": (th4 - c) / (th2 * (th2 + c)),
        "right": (th4 - c) / (th2 * (th2 + 1)),
        "mean": 1.0 - c / th4,
    }


@dataclass(frozen=True)
class SpikedMPFit:
    """The result of :func:`fit_spiked_mp` (eigenvalues of ``R Rᵀ``, descending, in ``eigenvalues``)."""

    sigma2: float
    """Variance of one noise entry (``Σs⁴/Σs²`` for unequal column variances)."""
    d_eff: float
    """Number of independent columns of variance ``sigma2`` giving the same bulk (``(Σs²)²/Σs⁴``)."""
    outlier: float | None
    """The outlier eigenvalue of ``R Rᵀ``, or None when the top eigenvalue lies inside the fitted bulk."""
    spike: float | None
    """The signal eigenvalue ``ℓ = N|μ|²`` that explains the outlier (BBP inversion), or None."""
    ks: float
    """Kolmogorov–Smirnov distance between the bulk's empirical distribution and the fitted MP law."""
    bbp: float
    """The BBP threshold ``σ²√(N d_eff)`` on ``ℓ``."""
    edge: float
    """The fitted bulk's upper edge ``σ²(√d_eff + √N)²`` (N = all rows, the convention of ``bbp``)."""
    null_quantile: float
    """The ``1 - level`` quantile of the null's top eigenvalue (shown for scale). It is *not* the decision:
    an outlier is declared when the p-value ``(1 + #{null ≥ λ₁})/(1 + n_null)`` is at most ``level``, which
    for ``n_null = 1/level - 1`` simulations means λ₁ above every null draw. For ``null="tw"`` it is the
    Tracy–Widom threshold, and there it is the decision."""
    p_value: float
    """The top eigenvalue's p-value under the null of pure noise (NaN for ``null="tw"``)."""
    n_rows: int
    """``N``, the number of task vectors (rows of R)."""
    n_bulk: int
    """How many eigenvalues the bulk was fitted on (``N - 1`` with an outlier, else ``N``)."""
    eigenvalues: np.ndarray

    @property
    def bulk(self) -> np.ndarray:
        """The eigenvalues the bulk was fitted on."""
        return self.eigenvalues[len(self.eigenvalues) - self.n_bulk :]

    def pdf(self, x: np.ndarray | float) -> np.ndarray:
        """Fitted bulk density (continuous part), per unit eigenvalue, normalised as a law of ``n_bulk`` values."""
        return mp_pdf(x, self.sigma2, self.n_bulk, self.d_eff)

    def cdf(self, x: np.ndarray | float) -> np.ndarray:
        """Fitted bulk CDF (atom at zero included)."""
        return mp_cdf(x, self.sigma2, self.n_bulk, self.d_eff)


def gram_spectrum(R: np.ndarray) -> np.ndarray:
    """The ``N`` eigenvalues of ``R Rᵀ``, descending (from the singular values of R; zeros when d < N)."""
    R = checked_rows(R)
    s = np.linalg.svd(R, compute_uv=False)
    lam = np.zeros(R.shape[0])
    lam[: len(s)] = s**2
    return np.sort(lam)[::-1]


def checked_rows(R: np.ndarray) -> np.ndarray:
    """``R`` as a finite float64 (task vectors x dimensions) matrix with at least 3 rows, 1 column and one
    non-zero entry, else a ``ValueError`` (``TypeError`` for a non-numeric array) that names ``R``."""
    if not isinstance(R, np.ndarray):
        raise TypeError(f"R must be a numpy array, got {type(R).__name__}")
    R = checks.finite_array("R", R, ndim=2, allow_empty=True)
    if R.shape[0] < 3:
        raise ValueError(
            f"R must hold at least 3 task vectors (rows) to fit a bulk, got {R.shape[0]}"
        )
    if R.shape[1] < 1:
        raise ValueError("R has no columns")
    if not np.any(R):
        raise ValueError("R is all zeros: there is no spectrum to fit")
    return R


def moment_fit_traces(
    S1: np.ndarray | float, S2: np.ndarray | float, n: int, *, center: str = "median"
) -> tuple[np.ndarray, np.ndarray]:
    """Method of moments for the MP law of ``n`` eigenvalues from their sums ``S₁ = Σλ = Tr ZZᵀ`` and
    ``S₂ = Σλ² = Tr (ZZᵀ)²`` (arrays allowed: one fit per element): ``(σ², D)``.

    For Gaussian noise (n rows, column variances s²) ``S₁`` and ``S₂`` have the exact expectations
    ``E S₁² = n²A + 2nB`` and ``E S₂ = nA + n(n+1)B`` with ``A = (Σs²)²``, ``B = Σs⁴``. Solving for ``A`` and
    ``B`` and taking ``D = A/B``, ``σ² = B/Σs²`` (``Σs² = S₁/n``) gives

        D = ((n+1) S₁² - 2 S₂) / (n S₂ - S₁²),

    which is ``(n + 1)/excess - 2(1 + excess)/(n · excess)`` with ``excess = m₂/m₁² - 1``: to leading order
    ``(n + 1)/excess`` (the ``n/excess`` of the asymptotic moment ``σ⁴D(D + n)`` is biased by ``n/(n+1)``).
    This is ``center="mean"``: ``1/D`` is estimated without bias, and ``D`` is a ratio of two unbiased
    estimates, whose *median* is high for few eigenvalues (about 6% at n = 5); ``σ² = (S₁/n)/D``.

    ``center="median"`` (default) makes both medians unbiased under the MP model (equal variances, Gaussian):

    * ``D``: for ``D ≫ n`` the centred eigenvalues are ``σ²√D`` times a GOE-like matrix, so
      ``n · excess · D / 2`` is close to a χ² variable with ``k = (n+2)(n-1)/2`` degrees of freedom
      (``n(n+1)/2`` entries less the trace), and ``D`` is multiplied by ``median(χ²_k)/k`` (0.953 at n = 5,
      0.988 at n = 10, 0.998 at n = 30).
    * ``σ²``: with equal variances ``Z = σX``, ``|X|²`` is independent of the direction ``X/|X|``, and the
      uncorrected ``D₀`` depends on the direction only (``S₂/S₁²``). So ``(S₁/n)/D₀ = σ² · F₁F₂`` with
      independent ``F₁ = χ²_{nD}/(nD)`` (exact) and ``F₂ = D/D₀ ≈ χ²_k/k`` (the GOE
      approximation above). The median of ``log F₁F₂`` is ``κ₁ - κ₃/(6κ₂)`` to the first Cornish–Fisher
      order, with the cumulants of ``log(χ²_ν/ν)`` added over ``ν = nD, k``: ``κ₁ = ψ(ν/2) + log(2/ν)``,
      ``κ₂ = ψ'(ν/2)``, ``κ₃ = ψ''(ν/2)``; ``σ²`` is ``(S₁/n)/D₀`` divided by that median's exponential
      (``D`` taken at its corrected estimate). Correcting the two factors' medians one by one would leave 2%
      at n = 5, D = 4: the median of a product is not the product of the medians.

    With these factors ``σ² D`` is not exactly the mean eigenvalue ``S₁/n``: they differ by a few per cent
    when ``nD`` is of order 10 and by nothing visible for ``nD`` in the hundreds.
    """
    S1a = checks.positive_array("S1", S1)
    S2a = checks.positive_array("S2", S2)
    n = checks.integer("n", n, low=2)
    if center not in ("median", "mean"):
        raise ValueError(f"center must be 'median' or 'mean', got {center!r}")
    den = n * S2a - S1a * S1a
    num = (n + 1) * S1a * S1a - 2.0 * S2a
    if np.any(S1a <= 0) or np.any(den <= 1e-12 * n * S1a * S1a) or not np.all(np.isfinite(den)):
        raise ValueError(
            "the bulk eigenvalues are all equal (or zero): no Marchenko–Pastur bulk to fit"
        )
    # num >= (n - 1) S₁² > 0 since S₂ <= S₁² for non-negative eigenvalues
    D = num / den
    s2 = (S1a / n) / D
    if center == "median":
        from scipy.special import polygamma, psi
        from scipy.stats import chi2

        k = (n + 2) * (n - 1) / 2
        D = D * (float(chi2.median(k)) / k)
        cum = [0.0 * D, 0.0 * D, 0.0 * D]
        for nu in (n * D, k + 0.0 * D):  # cumulants of log(χ²_ν/ν), added over the two factors
            cum[0] = cum[0] + psi(nu / 2) + np.log(2 / nu)
            cum[1] = cum[1] + polygamma(1, nu / 2)
            cum[2] = cum[2] + polygamma(2, nu / 2)
        s2 = s2 * np.exp(-(cum[0] - cum[2] / (6 * cum[1])))
    return s2, D


def _moments(bulk: np.ndarray, center: str = "median") -> tuple[float, float]:
    """:func:`moment_fit_traces` of the eigenvalues ``bulk``: ``(σ², D)`` as floats."""
    s2, D = moment_fit_traces(float(bulk.sum()), float((bulk**2).sum()), len(bulk), center=center)
    return float(s2), float(D)


def moment_fit(eigenvalues: np.ndarray, *, center: str = "median") -> tuple[float, float]:
    """``(σ², d_eff)`` of the Marchenko–Pastur law whose first two moments match ``eigenvalues`` (the
    eigenvalues of ``ZZᵀ``, Z with as many rows as there are eigenvalues, zeros included), with the exact
    finite-``n`` expectations; ``center="median"`` (default) makes the medians of ``σ²`` and ``d_eff``
    unbiased under the MP model, ``"mean"`` the mean of ``1/d_eff`` (see :func:`moment_fit_traces`)."""
    lam = checks.finite_array("eigenvalues", eigenvalues, ndim=1)
    if len(lam) < 2 or np.any(lam < -1e-9):
        raise ValueError(
            f"eigenvalues must be a 1-d array of >= 2 non-negative numbers, got {len(lam)} with minimum "
            f"{float(lam.min()):.3g}"
        )
    if center not in ("median", "mean"):
        raise ValueError(f"center must be 'median' or 'mean', got {center!r}")
    s2, D = _moments(np.maximum(lam, 0.0), center)
    return float(s2), float(D)


def column_deff(R: np.ndarray) -> float:
    """``d_eff = (Σs²)²/Σs⁴`` from the variances of R's centred columns, corrected for their sampling
    noise (Gaussian: ``E ŝ⁴ = s⁴(N+1)/(N-1)``, ``E(Σŝ²)² = (Σs²)² + 2Σs⁴/(N-1)``).

    Centring removes a common mean exactly, and multiplying the rows by different scales multiplies every
    column's variance by the same average scale, so this estimate does not depend on the rows' norms —
    unlike the spectral moment fit.
    """
    R = checked_rows(R)
    N = R.shape[0]
    v = R.var(axis=0, ddof=1)
    B = float((v**2).sum()) * (N - 1) / (N + 1)
    A = float(v.sum()) ** 2 - 2.0 * B / (N - 1)
    if B <= 0:
        raise ValueError("R's centred columns are all constant: no noise to measure")
    return A / B


def authors_mp_estimate(R: np.ndarray) -> tuple[float, float]:
    """The authors' way of setting the MP parameters, without their per-``d`` hand factors (this book's
    reading of their protocol): ``σ²`` is the mean square of R's column-centred entries, the Gram matrix is
    normalised by the number of columns, ``RRᵀ/d``, and its MP law of ratio ``γ = N/d_eff`` is placed so that
    the second eigenvalue sits at the upper edge: ``λ₂/d = σ²(1 + √γ)²``. Returns ``(σ², d_eff = N/γ)``
    (``d_eff = inf`` when λ₂/d is at most σ²)."""
    R = checked_rows(R)
    N, d = R.shape
    Rc = R - R.mean(axis=0, keepdims=True)
    s2 = float((Rc**2).mean())
    lam2 = float(gram_spectrum(R)[1])
    root = math.sqrt(lam2 / (d * s2)) - 1.0
    return s2, (N / (root * root) if root > 0 else float("inf"))


def _ks(bulk: np.ndarray, sigma2: float, D: float) -> float:
    """Two-sided KS distance between the empirical law of ``bulk`` and the fitted MP law (atom included)."""
    x = np.sort(bulk)
    n = len(x)
    tiny = 1e-10 * max(float(x[-1]), 1e-300)
    F = mp_cdf(np.where(x <= tiny, 0.0, x), sigma2, n, D)
    # just below a point the model CDF excludes the atom at zero when the point is a (numerical) zero
    F_below = np.where(x <= tiny, 0.0, F)
    xz = np.where(x <= tiny, 0.0, x)
    emp_hi = np.searchsorted(xz, xz, side="right") / n  # ties (the zeros when d < N) jump at once
    emp_lo = np.searchsorted(xz, xz, side="left") / n
    return float(max(np.max(np.abs(emp_hi - F)), np.max(np.abs(F_below - emp_lo))))


def mp_ks_distance(eigenvalues: np.ndarray, sigma2: float, D: float) -> float:
    """Two-sided KS distance between the empirical law of ``eigenvalues`` (``n`` of them, zeros included)
    and the MP law of ``n`` rows, ``D`` columns and variance ``sigma2`` (its atom at zero included)."""
    lam = checks.finite_array("eigenvalues", eigenvalues, ndim=1)
    _check_shape(sigma2, len(lam), D)
    return _ks(np.maximum(lam, 0.0), sigma2, D)


def _tw_scale(N: int, D: float) -> tuple[float, float]:
    """Johnstone's (2001) centring and scale of the largest eigenvalue of a real N x D Wishart (σ² = 1)."""
    a, b = math.sqrt(max(N - 1, 1)), math.sqrt(D)
    return (a + b) ** 2, (a + b) * (1 / a + 1 / b) ** (1 / 3)


def _null_top_eigenvalues(
    col_var: np.ndarray, N: int, n_null: int, rng: np.random.Generator, batch: int = 32
) -> np.ndarray:
    """Top eigenvalue of ``ZZᵀ`` for ``n_null`` Gaussian ``Z`` (N x d) with column variances ``col_var``."""
    sd = np.sqrt(col_var)[None, None, :]
    out = []
    for s in range(0, n_null, batch):
        b = min(batch, n_null - s)
        Z = rng.standard_normal((b, N, len(col_var))) * sd
        out.append(np.linalg.eigvalsh(Z @ np.swapaxes(Z, 1, 2))[:, -1])
    return np.concatenate(out)


def fit_spiked_mp(
    R: np.ndarray,
    *,
    level: float = 0.01,
    null: str = "columns",
    n_null: int = 200,
    rng: np.random.Generator | None = None,
) -> SpikedMPFit:
    """Fit the spectrum of ``R Rᵀ`` (R: N x d) by a Marchenko–Pastur bulk plus at most one outlier.

    1. The bulk without the top eigenvalue (``N - 1`` values: the spectrum of R projected off its top
       direction) is fitted by the method of moments: ``σ²`` and ``d_eff`` match the mean and the mean square
       of the eigenvalues, with median factors (:func:`moment_fit_traces`).
    2. The top eigenvalue is tested against a null hypothesis of pure noise, at false-alarm rate ``level``:

       * ``null="columns"`` (default): independent Gaussian columns with the variances of R's *centred*
         columns (centring removes the signal ``1μᵀ`` exactly), ``n_null`` simulated matrices; the p-value is
         ``(1 + #{null ≥ λ₁}) / (1 + n_null)``. This null is right for unequal column variances, whose bulk
         has a longer upper tail than the MP law of the same two moments.
       * ``null="tw"``: the fitted MP bulk, whose largest eigenvalue fluctuates by the Tracy–Widom law TW₁
         (Johnstone's centring and scale); exact only for equal variances (``level`` must then be 0.01).
    3. Without an outlier the bulk is refitted on all ``N`` eigenvalues.

    Parameters
    ----------
    R : numpy.ndarray, shape (N, d)
        Task vectors (rows), finite, at least 3, not all zero.
    level : float, default 0.01
        The false-alarm rate of the outlier test, in (0, 1).
    null : {"columns", "tw"}, default "columns"
    n_null : int, default 200
        Simulated matrices of the ``"columns"`` null.
    rng : numpy.random.Generator, optional
        Seeds the simulated null (default: a fixed stream, so that a fit is reproducible).

    Returns
    -------
    SpikedMPFit
        ``sigma2``, ``d_eff``, the ``outlier`` eigenvalue (or None), the ``spike`` ``ℓ`` it implies, the
        bulk's KS distance, the BBP threshold, the bulk's upper ``edge``, the null's quantile and the
        p-value, the eigenvalues.

    Raises
    ------
    ValueError
        For fewer than 3 rows, an all-zero or non-finite R, a bulk with no spread, or an argument out of
        range.

    Examples
    --------
    >>> import numpy as np
    >>> R, mu = spiked_matrix(40, np.ones(200), ell=4000.0, rng=np.random.default_rng(0))
    >>> fit = fit_spiked_mp(R)
    >>> bool(fit.outlier > fit.null_quantile), round(fit.sigma2, 1)  # the mean is found; σ² near 1
    (True, 0.9)
    """
    R = checked_rows(R)
    if not (isinstance(level, float) and 0 < level < 1):
        raise ValueError(f"level must be a float in (0, 1), got {level!r}")
    if null not in ("columns", "tw"):
        raise ValueError(f"null must be 'columns' or 'tw', got {null!r}")
    if null == "tw" and level != 0.01:
        raise ValueError("null='tw' uses the tabulated 99% quantile of TW1: level must be 0.01")
    if not isinstance(n_null, (int, np.integer)) or n_null < 1 / level - 1:
        raise ValueError(
            f"n_null={n_null!r} simulations cannot resolve level={level} (need >= {1 / level - 1:.0f})"
        )
    lam = gram_spectrum(R)
    N = len(lam)
    s2, D = _moments(lam[1:])
    edge = s2 * (math.sqrt(D) + math.sqrt(N)) ** 2
    if null == "tw":
        mu, sc = _tw_scale(N, D)
        threshold = s2 * (mu + TW1_Q99 * sc)
        p_value = float("nan")
        is_out = lam[0] > threshold
    else:
        rng = np.random.default_rng([config.SEED, 30_001]) if rng is None else rng
        col_var = R.var(axis=0, ddof=1)
        tops = _null_top_eigenvalues(col_var, N, int(n_null), rng)
        p_value = float((1 + np.sum(tops >= lam[0])) / (1 + len(tops)))
        threshold = float(np.quantile(tops, 1 - level))
        is_out = p_value <= level
    if is_out:
        outlier: float | None = float(lam[0])
        spike = spike_from_eigenvalue(lam[0], s2, N, D)  # the outlier of the N-row matrix
        n_bulk = N - 1
    else:
        outlier, spike, n_bulk = None, None, N
        s2, D = _moments(lam)
        edge = s2 * (math.sqrt(D) + math.sqrt(N)) ** 2
    b = lam[N - n_bulk :]
    return SpikedMPFit(
        sigma2=float(s2),
        d_eff=float(D),
        outlier=outlier,
        spike=spike,
        ks=_ks(b, s2, D),
        bbp=bbp_threshold(s2, N, D),
        edge=float(edge),
        null_quantile=float(threshold),
        p_value=p_value,
        n_rows=N,
        n_bulk=n_bulk,
        eigenvalues=lam,
    )


def ks_critical_bootstrap(
    n: int,
    d_eff: float,
    *,
    level: float = 0.05,
    n_boot: int = 200,
    rng: np.random.Generator | None = None,
) -> float:
    """Parametric-bootstrap critical value of the KS distance of :func:`fit_spiked_mp`'s bulk: draw
    ``n_boot`` Gaussian ``n x round(d_eff)`` matrices (σ² = 1; the KS distance of a moment fit does not
    depend on σ²), fit each by the same method of moments, and return the ``1 - level`` quantile of their
    KS distances. With two parameters fitted on the same eigenvalues this is much smaller than the
    critical value of a fully specified law (``scipy.stats.kstwo``)."""
    n = checks.integer("n", n, low=3)
    d_eff = checks.real("d_eff", d_eff, low=1)
    level = checks.fraction("level", level, open_low=True, open_high=True)
    n_boot = checks.integer("n_boot", n_boot, low=1)
    if n_boot < 1 / level:
        raise ValueError(f"need 0 < level < 1 and n_boot >= 1/level, got {level!r}, {n_boot!r}")
    rng = np.random.default_rng([config.SEED, 30_003]) if rng is None else rng
    D = max(1, int(round(d_eff)))
    ks = np.empty(n_boot)
    for b in range(n_boot):
        lam = gram_spectrum(rng.standard_normal((n, D)))
        s2, De = _moments(lam)
        ks[b] = _ks(lam, s2, De)
    return float(np.quantile(ks, 1 - level))


def mean_signflip_test(
    R: np.ndarray, *, n_flip: int = 9_999, rng: np.random.Generator | None = None
) -> dict[str, float]:
    """Sign-flip test of a common mean task vector: ``H₀``: the rows ``r_i`` are independent and each is
    symmetric about zero (any norms, any covariance per row), against a shared mean ``μ ≠ 0``.

    The statistic is ``T = |Σ_i r_i|² = 1ᵀ(RRᵀ)1``; under ``H₀`` flipping the rows' signs leaves the law of
    R unchanged, so ``T`` is exchangeable with ``T(ε) = εᵀ(RRᵀ)ε``. With ``N <= 12`` all ``2^(N-1)`` sign
    patterns (up to a global sign) are enumerated: the p-value ``#{T(ε) ≥ T}/2^(N-1)`` is exact, and
    cannot fall below ``2^(1-N)`` (1/16 at N = 5). Otherwise ``n_flip`` random patterns give
    ``(1 + #{T(ε) ≥ T})/(1 + n_flip)``. Returns ``{"T", "p", "z", "exact", "min_p"}`` (``z``: T in standard
    deviations of the flip distribution above its mean). Flipping signs cannot test λ₁ itself: ``εμᵀ`` has
    the same spectrum as ``1μᵀ``.
    """
    R = checked_rows(R)
    n_flip = checks.integer("n_flip", n_flip, low=99)
    N = R.shape[0]
    G = R @ R.T
    T = float(G.sum())
    if N <= 12:
        m = N - 1
        codes = np.arange(2**m, dtype=np.int64)
        E = np.ones((len(codes), N))
        E[:, 1:] = 1 - 2 * ((codes[:, None] >> np.arange(m)[None, :]) & 1)
        exact = True
    else:
        rng = np.random.default_rng([config.SEED, 30_004]) if rng is None else rng
        E = rng.choice(np.array([-1.0, 1.0]), size=(int(n_flip), N))
        exact = False
    Tf = np.einsum("bi,ij,bj->b", E, G, E)
    tol = 1e-10 * max(abs(T), float(np.trace(G)))
    ge = int(np.sum(Tf >= T - tol))
    if exact:
        p, min_p = ge / len(Tf), 1.0 / len(Tf)
    else:
        p, min_p = (1 + ge) / (1 + len(Tf)), 1.0 / (1 + len(Tf))
    sd = float(Tf.std())
    z = (T - float(Tf.mean())) / sd if sd > 0 else float("nan")
    return {"T": T, "p": float(p), "z": float(z), "exact": exact, "min_p": float(min_p)}


def spiked_matrix(
    N: int, col_var: np.ndarray, ell: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic task-vector matrix ``R = 1 μᵀ + Z`` with ``Var Z_ij = col_var[j]`` and signal ``N|μ|² = ell``.

    ``μ`` points along a uniformly random unit direction; returns ``(R, mu)``.
    """
    N = checks.integer("N", N, low=1)
    col_var = checks.positive_array("col_var", col_var, strict=False, ndim=1)
    ell = checks.nonnegative("ell", ell)
    Z = rng.standard_normal((N, len(col_var))) * np.sqrt(col_var)[None, :]
    u = rng.standard_normal(len(col_var))
    u /= np.linalg.norm(u)
    mu = u * math.sqrt(ell / N)
    return Z + mu[None, :], mu
