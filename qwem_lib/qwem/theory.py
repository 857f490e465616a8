"""QWEM theory (Part I): the target matrix, the quartic loss, Theorem 1, Proposition 2, Lemma 3.1.

Notation (Karkada et al. 2025). ``P_joint`` is the symmetric co-occurrence distribution P_ij (entries
sum to 1), ``P_marginal`` the unigram distribution P_i (sums to 1). The reweightings Ψ⁺, Ψ⁻ are
non-negative scalars or symmetric V×V arrays. With x = w_iᵀw_j = (WWᵀ)_ij the book's QWEM loss is

    L(W) = Σ_ij [ P_ij Ψ⁺_ij (x²/4 − x) + P_iP_j Ψ⁻_ij (x²/4 + x) ],

summed over ordered pairs (i, j), the diagonal included.

**The factor ½ convention.** The Taylor expansion of the logistic losses at x = 0 is
log(1 + e^{∓x}) = log 2 ∓ x/2 + x²/8 + O(x⁴), that is ½(x²/4 ∓ x) + log 2. The paper (and this book)
drops the ½ and the constant: L is *twice* the quadratic approximation of the word2vec loss, minus a
constant. The minimisers are unchanged; gradient flow on L = 2·L_quad runs at twice the speed of flow on
L_quad (time t on L corresponds to time 2t on L_quad).

Completing the square (Theorem 1, Proposition 2) with G_ij = Ψ⁺_ij P_ij + Ψ⁻_ij P_iP_j and
M*_ij = (Ψ⁺_ij P_ij − Ψ⁻_ij P_iP_j) / (½ G_ij) gives

    L(W) = ¼ Σ_ij G_ij ((WWᵀ)_ij − M*_ij)² − ¼ Σ_ij G_ij M*_ij²,

and under Setting 3.1 (G_ij = g) L = (g/4)‖WWᵀ − M*‖²_F − (g/4)‖M*‖²_F.

Everything here is NumPy (float64) except :func:`gradient_descent_qwem`, which trains with torch on
:func:`qwem_lib.book.config.device`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..book import checks
from ..maths.linalg import eig_desc

__all__ = [
    "target_matrix",
    "weight_matrix",
    "equal_reweighting",
    "qwem_loss",
    "qwem_loss_constant",
    "qwem_gradient",
    "qwem_hessian",
    "weighted_factorisation_loss",
    "optimal_embeddings",
    "psd_truncation",
    "factorisation_minimum",
    "rank_one_weighted_minimizer",
    "aligned_sigmoid",
    "characteristic_time",
    "procrustes_distance",
    "procrustes_rotation",
    "pmi_from_mstar",
    "mstar_from_pmi",
    "mstar_series",
    "mstar_series_remainder_bound",
    "pmi_series_coefficients",
    "logistic_loss_taylor",
    "synthetic_joint",
    "GDResult",
    "gradient_descent_qwem",
]

PROB_TOL = 1e-8
"""Tolerance on ``sum(P) == 1`` for probability inputs."""


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------
def _as_square(name: str, A: Any) -> np.ndarray:
    return checks.square(name, A)


def _check_symmetric(name: str, A: np.ndarray, tol: float = 1e-10) -> None:
    scale = max(float(np.max(np.abs(A))), 1e-300)
    asym = float(np.max(np.abs(A - A.T)))
    if asym > tol * scale:
        raise ValueError(
            f"{name} must be symmetric; max |A - Aᵀ| = {asym:.3g} (relative {asym / scale:.3g})"
        )


def _check_joint(P_joint: Any) -> np.ndarray:
    P = _as_square("P_joint", P_joint)
    if np.any(P < 0):
        raise ValueError(
            f"P_joint has negative entries (min {P.min():.3g}); it must be a probability table"
        )
    _check_symmetric("P_joint", P)
    s = float(P.sum())
    if abs(s - 1.0) > PROB_TOL:
        raise ValueError(f"P_joint must sum to 1 (within {PROB_TOL:g}); it sums to {s!r}")
    return P


def _check_marginal(P_marginal: Any, P: np.ndarray) -> np.ndarray:
    if P_marginal is None:
        return P.sum(axis=1)
    p = checks.finite_array("P_marginal", P_marginal, ndim=1)
    if p.shape[0] != P.shape[0]:
        raise ValueError(
            f"P_marginal must be a vector of length V={P.shape[0]}, got shape {p.shape}"
        )
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError("P_marginal must be finite and non-negative")
    s = float(p.sum())
    if abs(s - 1.0) > PROB_TOL:
        raise ValueError(f"P_marginal must sum to 1 (within {PROB_TOL:g}); it sums to {s!r}")
    return p


def _check_psi(name: str, psi: Any, V: int) -> np.ndarray | np.float64:
    a = checks.finite_array(name, psi, allow_nonfinite=True)
    if a.ndim == 0:
        if not math.isfinite(float(a)) or float(a) < 0:
            raise ValueError(f"{name} must be a finite non-negative scalar, got {float(a)!r}")
        return np.float64(a)  # broadcasts; no V×V copy (matters at V = 10,000)
    if a.shape != (V, V):
        raise ValueError(f"{name} must be a scalar or a V×V array with V={V}, got shape {a.shape}")
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ValueError(f"{name} must be finite and non-negative")
    _check_symmetric(name, a)
    return a


def _check_W(W: Any, V: int) -> np.ndarray:
    W = checks.finite_array("W", W, ndim=2)
    if W.shape[0] != V:
        raise ValueError(f"W must be a V×d matrix with V={V}, got shape {W.shape}")
    if not np.isfinite(W).all():
        raise ValueError("W has NaN or infinite entries")
    return W


def _check_d(d: int, V: int) -> int:
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
        raise ValueError(f"d must be an integer, got {d!r}")
    if not 1 <= d <= V:
        raise ValueError(f"d must satisfy 1 <= d <= V={V}, got d={d}")
    return int(d)


def _coefficients(P_joint, psi_plus, psi_minus, P_marginal):
    """(A, B) = (Ψ⁺∘P, Ψ⁻∘ppᵀ): the weights of the positive and the negative terms."""
    P = _check_joint(P_joint)
    p = _check_marginal(P_marginal, P)
    V = P.shape[0]
    A = _check_psi("psi_plus", psi_plus, V) * P
    B = _check_psi("psi_minus", psi_minus, V) * np.outer(p, p)
    return A, B


# ----------------------------------------------------------------------------------------------
# the target and the loss
# ----------------------------------------------------------------------------------------------
def weight_matrix(P_joint, psi_plus, psi_minus, P_marginal=None) -> np.ndarray:
    """G_ij = Ψ⁺_ij P_ij + Ψ⁻_ij P_iP_j, the weights of the factorisation (constant = Setting 3.1)."""
    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    return A + B


def target_matrix(P_joint, psi_plus, psi_minus, P_marginal=None) -> np.ndarray:
    """The target of the factorisation: ``M*_ij = (Ψ⁺_ij P_ij − Ψ⁻_ij P_iP_j) / (½(Ψ⁺_ij P_ij + Ψ⁻_ij P_iP_j))``.

    Parameters
    ----------
    P_joint : array_like, shape (V, V)
        A symmetric joint probability table (finite, non-negative, summing to 1).
    psi_plus, psi_minus : float or array_like, shape (V, V)
        The reweightings of the positive and negative terms (finite, non-negative; symmetric arrays).
    P_marginal : array_like, shape (V,), optional
        The unigram probabilities; default the row sums of ``P_joint``.

    Returns
    -------
    numpy.ndarray, shape (V, V)
        ``M*``, with entries in ``[−2, 2]``.

    Raises
    ------
    ValueError
        If an input is invalid, or ``G_ij = 0`` somewhere (both terms vanish: ``M*_ij`` is undefined).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.3, 0.1], [0.1, 0.5]])  # marginals 0.4, 0.6
    >>> M = target_matrix(P, 1.0, 1.0)
    >>> round(float(M[0, 1]), 6)  # 2 (0.1 − 0.24) / (0.1 + 0.24)
    -0.823529
    """
    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    G = A + B
    if np.any(G <= 0):
        i, j = np.argwhere(G <= 0)[0]
        raise ValueError(
            f"G_ij = Ψ⁺P_ij + Ψ⁻P_iP_j is 0 at ({i}, {j}): M* is undefined there "
            "(a zero marginal or zero reweighting)"
        )
    return 2.0 * (A - B) / G


def equal_reweighting(P_joint, P_marginal=None) -> np.ndarray:
    """The worked reweighting of Setting 3.1: ``Ψ⁺ = Ψ⁻ = 1/(P_ij + P_iP_j)``.

    It gives ``G = 1`` and ``M* = 2(P_ij − P_iP_j)/(P_ij + P_iP_j)``.

    Parameters
    ----------
    P_joint : array_like, shape (V, V)
        A symmetric joint probability table (finite, non-negative, summing to 1).
    P_marginal : array_like, shape (V,), optional
        The unigram probabilities; default the row sums of ``P_joint``.

    Returns
    -------
    numpy.ndarray, shape (V, V)
        ``Ψ``, to pass as both ``psi_plus`` and ``psi_minus``.

    Raises
    ------
    ValueError
        If the tables are not valid probabilities, or ``P_ij + P_iP_j = 0`` somewhere (a zero marginal).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.3, 0.1], [0.1, 0.5]])
    >>> psi = equal_reweighting(P)
    >>> np.allclose(weight_matrix(P, psi, psi), 1.0)  # G = 1
    True
    """
    P = _check_joint(P_joint)
    p = _check_marginal(P_marginal, P)
    S = P + np.outer(p, p)
    if np.any(S <= 0):
        raise ValueError(
            "P_ij + P_iP_j is 0 somewhere (a zero marginal): the reweighting is undefined"
        )
    return 1.0 / S


def qwem_loss(W, P_joint, psi_plus, psi_minus, P_marginal=None) -> float:
    """The QWEM loss ``Σ_ij [P_ij Ψ⁺_ij (x²/4 − x) + P_iP_j Ψ⁻_ij (x²/4 + x)]``, ``x = (WWᵀ)_ij``.

    Ordered pairs, diagonal included, *without* the ½ of the Taylor expansion (see the module docstring:
    this is twice the quadratic approximation of the word2vec loss, minus a constant).

    Parameters
    ----------
    W : array_like, shape (V, d)
        The embeddings (finite).
    P_joint, psi_plus, psi_minus, P_marginal
        As :func:`target_matrix`.

    Returns
    -------
    float
        The loss; :func:`qwem_loss_constant` is its minimum over all symmetric ``WWᵀ``.

    Raises
    ------
    ValueError
        If an input is invalid or ``W`` does not have ``V`` rows.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.3, 0.1], [0.1, 0.5]])
    >>> qwem_loss(np.zeros((2, 1)), P, 1.0, 1.0)  # x = 0: every term vanishes
    0.0
    """
    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    W = _check_W(W, A.shape[0])
    X = W @ W.T
    Q = X * X / 4.0
    return float(np.sum(A * (Q - X) + B * (Q + X)))


def qwem_gradient(W, P_joint, psi_plus, psi_minus, P_marginal=None) -> np.ndarray:
    """∇_W of :func:`qwem_loss`: (C + Cᵀ)W with C_ij = P_ijΨ⁺_ij(x_ij/2 − 1) + P_iP_jΨ⁻_ij(x_ij/2 + 1)."""
    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    W = _check_W(W, A.shape[0])
    X = W @ W.T
    C = A * (X / 2.0 - 1.0) + B * (X / 2.0 + 1.0)
    return (C + C.T) @ W


def qwem_hessian(W, P_joint, psi_plus, psi_minus, P_marginal=None) -> np.ndarray:
    """The Hessian of :func:`qwem_loss` with respect to W, as a (V·d)×(V·d) matrix (row-major
    flattening of W). Computed by torch autograd in float64; meant for small V·d (second-order checks
    that a stationary point is a local minimum)."""
    import torch

    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    W = _check_W(W, A.shape[0])
    At, Bt = torch.as_tensor(A), torch.as_tensor(B)

    def loss(w):
        X = w @ w.T
        Q = X * X / 4.0
        return torch.sum(At * (Q - X) + Bt * (Q + X))

    H = torch.autograd.functional.hessian(loss, torch.as_tensor(W))
    n = W.size
    return H.reshape(n, n).numpy()


def qwem_loss_constant(P_joint, psi_plus, psi_minus, P_marginal=None) -> float:
    """The constant of Theorem 1 / Proposition 2: L(W) − ¼Σ G_ij((WWᵀ)_ij − M*_ij)² = −¼ Σ_ij G_ij M*_ij²
    (= −(g/4)‖M*‖²_F under Setting 3.1).

    Parameters
    ----------
    P_joint : (V, V) array
        The joint pair distribution.
    psi_plus, psi_minus : (V, V) arrays
        The reweightings of the positive and negative terms.
    P_marginal : (V,) array, optional
        The unigram distribution (default: the row sums of ``P_joint``).

    Returns
    -------
    float
        The part of the loss that does not depend on ``W``.

    Examples
    --------
    Under the equal reweighting ``G = 1``, so the constant is ``−¼‖M*‖²_F``; and the loss of any ``W``
    is the constant plus ``¼‖WWᵀ − M*‖²_F``:

    >>> import numpy as np
    >>> P = synthetic_joint(6, np.random.default_rng(0))
    >>> psi = equal_reweighting(P)
    >>> c = qwem_loss_constant(P, psi, psi)
    >>> M = target_matrix(P, psi, psi)
    >>> bool(np.isclose(c, -0.25 * np.sum(M**2)))
    True
    >>> W = np.random.default_rng(1).normal(size=(6, 2))
    >>> bool(np.isclose(qwem_loss(W, P, psi, psi), c + 0.25 * np.sum((W @ W.T - M) ** 2)))
    True
    """
    G = weight_matrix(P_joint, psi_plus, psi_minus, P_marginal)
    M = target_matrix(P_joint, psi_plus, psi_minus, P_marginal)
    return float(-0.25 * np.sum(G * M * M))


def weighted_factorisation_loss(W, M, G=1.0) -> float:
    """¼ Σ_ij G_ij ((WWᵀ)_ij − M_ij)² (G a scalar g or a V×V array)."""
    M = _as_square("M", M)
    W = _check_W(W, M.shape[0])
    G = checks.finite_array("G", G)
    if G.ndim != 0 and G.shape != M.shape:
        raise ValueError(f"G must be a scalar or have the shape of M {M.shape}, got {G.shape}")
    if np.any(G < 0):
        raise ValueError(f"G must hold non-negative weights, got {float(G[G < 0].ravel()[0])!r}")
    R = W @ W.T - M
    return float(0.25 * np.sum(G * R * R))


# ----------------------------------------------------------------------------------------------
# Theorem 1 and Proposition 2: the minimisers
# ----------------------------------------------------------------------------------------------
def optimal_embeddings(M, d: int) -> np.ndarray:
    """Theorem 1's minimiser Q_[d] Λ_[d]^{1/2} (M = QΛQᵀ, eigenvalues sorted descending).

    Unique up to right multiplication by an orthogonal d×d matrix (and up to the signs of the
    eigenvectors) when λ_d > λ_{d+1}; with λ_d = λ_{d+1} any unit vector of their eigenspace can serve.
    Its Gram matrix is :func:`psd_truncation` (the top-d *signed* eigenvalues), not the Eckart–Young
    truncation (the d eigenvalues of largest absolute value).

    Raises ``ValueError`` if M is not symmetric, if d is not in 1..V, or if one of the top-d
    eigenvalues is negative (then no V×d matrix W has the top-d truncation as its Gram matrix; see
    :func:`psd_truncation` for the true minimiser).
    """
    M = _as_square("M", M)
    _check_symmetric("M", M)
    d = _check_d(d, M.shape[0])
    lam, U = eig_desc(M, check_symmetric=False)
    tol = 1e-12 * max(float(np.max(np.abs(lam))), 1e-300)
    if lam[d - 1] < -tol:
        npos = int(np.sum(lam > tol))
        raise ValueError(
            f"the top-{d} eigenvalues of M are not all non-negative (λ_{d} = {lam[d - 1]:.4g}; "
            f"M has {npos} positive eigenvalues): Theorem 1 needs Λ[:d,:d] ⪰ 0"
        )
    return U[:, :d] * np.sqrt(np.clip(lam[:d], 0.0, None))


def psd_truncation(M, d: int) -> np.ndarray:
    """(M)_[d]: the best approximation of symmetric M in Frobenius norm by a PSD matrix of rank ≤ d,
    i.e. the top-d eigenpairs with negative eigenvalues dropped (set to 0)."""
    M = _as_square("M", M)
    _check_symmetric("M", M)
    d = _check_d(d, M.shape[0])
    lam, U = eig_desc(M, check_symmetric=False)
    keep = np.clip(lam[:d], 0.0, None)
    return (U[:, :d] * keep) @ U[:, :d].T


def factorisation_minimum(M, d: int, g: float = 1.0) -> float:
    """min over V×d W of (g/4)‖WWᵀ − M‖²_F = (g/4)(‖M‖²_F − Σ_{k≤d} max(λ_k, 0)²) (Eckart–Young)."""
    M = _as_square("M", M)
    _check_symmetric("M", M)
    d = _check_d(d, M.shape[0])
    g = checks.positive("g", g)
    lam, _ = eig_desc(M, check_symmetric=False)
    kept = np.clip(lam[:d], 0.0, None)
    return float(g / 4.0 * (np.sum(lam**2) - np.sum(kept**2)))


def rank_one_weighted_minimizer(M, g, d: int) -> np.ndarray:
    """Proposition 2 for G = ggᵀ (g > 0): the Gram matrix WWᵀ = Γ⁻¹(ΓMΓ)_[d]Γ⁻¹, Γ = diag(g)^{1/2},
    which minimises ¼Σ g_ig_j((WWᵀ)_ij − M_ij)² over V×d matrices W."""
    M = _as_square("M", M)
    _check_symmetric("M", M)
    gv = checks.finite_array("g", g, ndim=1)
    if gv.shape[0] != M.shape[0]:
        raise ValueError(f"g must be a vector of length V={M.shape[0]}, got shape {gv.shape}")
    if not np.all(np.isfinite(gv)) or np.any(gv <= 0):
        raise ValueError("g must be finite and strictly positive (G = ggᵀ with positive weights)")
    d = _check_d(d, M.shape[0])
    s = np.sqrt(gv)
    T = psd_truncation(s[:, None] * M * s[None, :], d)
    return T / s[:, None] / s[None, :]


# ----------------------------------------------------------------------------------------------
# Lemma 3.1: the aligned dynamics
# ----------------------------------------------------------------------------------------------
def aligned_sigmoid(lam, s0_sq, t):
    """Lemma 3.1's sigmoid ``s²(t) = s0² λ e^{λt} / (λ + s0²(e^{λt} − 1))``, the solution of ``ds²/dt = s²(λ − s²)``.

    Vectorised over broadcastable ``lam``, ``s0_sq``, ``t``; overflow-safe for large ``|λt|`` (it is evaluated
    as ``s0² / (e^{−λt} + s0²(1 − e^{−λt})/λ)``, with ``(1 − e^{−λt})/λ → t`` at ``λ = 0``). Valid for any real
    ``λ`` (``λ < 0`` decays to 0).

    Parameters
    ----------
    lam : float or array_like
        The eigenvalue(s) ``λ`` (finite).
    s0_sq : float or array_like
        The start(s) ``s²(0)`` (positive).
    t : float or array_like
        The time(s) (finite), in the paper's units (the flow ``dW/dt = −½∇L``).

    Returns
    -------
    float or numpy.ndarray
        ``s²(t)``, broadcast over the inputs (a float for scalar inputs).

    Raises
    ------
    ValueError
        If an input is not finite, or ``s0_sq`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> s2 = aligned_sigmoid(2.0, 1e-3, np.array([0.0, characteristic_time(2.0, 1e-3), 50.0]))
    >>> np.round(s2, 3)  # the start, about λ/2 at τ (exactly λ²/(2λ − s0²)), then λ
    array([0.001, 1.   , 2.   ])
    """
    lam, s0_sq, t = np.broadcast_arrays(
        checks.finite_array("lam", lam, allow_empty=True),
        checks.positive_array("s0_sq", s0_sq, allow_empty=True),
        checks.finite_array("t", t, allow_empty=True),
    )
    with np.errstate(all="ignore"):
        e = np.exp(-lam * t)
        safe = np.where(lam == 0, 1.0, lam)
        phi = np.where(lam == 0, t, -np.expm1(-lam * t) / safe)
        out = s0_sq / (e + s0_sq * phi)
    out = np.where(
        np.isfinite(out), out, 0.0
    )  # inf/inf only when both terms overflow: decayed to 0
    return out if out.ndim else float(out)


def characteristic_time(lam, s0_sq):
    """The characteristic time ``τ = (1/λ) ln(λ / s0²)`` of Lemma 3.1.

    ``s²(τ)`` is close to ``λ/2`` when ``s0² ≪ λ`` (exactly ``λ²/(2λ − s0²)``:
    :func:`qwem_lib.qwem.dynamics.midpoint_ratio`; the exact crossing is
    :func:`qwem_lib.qwem.dynamics.half_time`).

    Parameters
    ----------
    lam : float or array_like
        The eigenvalue(s) (positive).
    s0_sq : float or array_like
        The start(s) ``s²(0)`` (positive).

    Returns
    -------
    float or numpy.ndarray
        ``τ``, broadcast over the inputs.

    Raises
    ------
    ValueError
        If ``lam`` or ``s0_sq`` is not positive and finite.

    Examples
    --------
    >>> round(characteristic_time(2.0, 1e-3), 4)  # ln(2000)/2
    3.8005
    """
    lam = checks.positive_array("lam", lam)
    s0_sq = checks.positive_array("s0_sq", s0_sq)
    out = np.log(lam / s0_sq) / lam
    return out if out.ndim else float(out)


# ----------------------------------------------------------------------------------------------
# comparing embeddings up to rotation
# ----------------------------------------------------------------------------------------------
def procrustes_rotation(A, B) -> np.ndarray:
    """The orthogonal O minimising ‖AO − B‖_F: O = UVᵀ for the SVD AᵀB = UΣVᵀ."""
    A = checks.finite_array("A", A, ndim=2)
    B = checks.finite_array("B", B, ndim=2)
    if A.shape != B.shape:
        raise ValueError(f"A and B must be matrices of the same shape, got {A.shape} and {B.shape}")
    U, _, Vt = np.linalg.svd(A.T @ B)
    return U @ Vt


def procrustes_distance(A, B) -> float:
    """min over orthogonal O of ‖AO − B‖_F (the distance between REquiv(A) and B)."""
    O = procrustes_rotation(A, B)
    return float(np.linalg.norm(checks.finite_array("A", A) @ O - checks.finite_array("B", B)))


# ----------------------------------------------------------------------------------------------
# M* and PMI (Appendix D.1)
# ----------------------------------------------------------------------------------------------
def pmi_from_mstar(x):
    """PMI = log((2 + x)/(2 − x)) = 2 artanh(x/2) for equal reweightings (x = M*_ij ∈ [−2, 2]; the ends
    map to ∓∞: x = −2 is a pair never seen)."""
    x = checks.finite_array("x", x, allow_empty=True, allow_nonfinite=True)
    if np.isnan(x).any() or (np.abs(x) > 2).any():
        raise ValueError(
            "x must hold M* values in [-2, 2] (M* = 2 (P - Q) / (P + Q)); got NaN or |x| > 2 "
            f"(e.g. {float(x[np.isnan(x) | (np.abs(x) > 2)].ravel()[0])!r})"
        )
    with np.errstate(divide="ignore"):
        out = 2.0 * np.arctanh(x / 2.0)
    return out if out.ndim else float(out)


def mstar_from_pmi(pmi):
    """The inverse map M* = 2 tanh(PMI/2) (PMI = −∞ gives −2).

    Test oracle: no chapter calls it; the tests use it to check :func:`pmi_from_mstar` and the M* built from
    counts (``tests/test_theory.py``)."""
    pmi = np.asarray(pmi, dtype=np.float64)
    out = 2.0 * np.tanh(pmi / 2.0)
    return out if out.ndim else float(out)


def mstar_series(x, order: int = 3):
    """The Taylor polynomial of 2 artanh(x/2) up to degree ``order``: x + x³/12 + x⁵/80 + …
    (coefficient of x^{2k+1} is 1/(4^k (2k+1)))."""
    x = np.asarray(x, dtype=np.float64)
    out = np.zeros_like(x)
    for k in range(0, (order - 1) // 2 + 1):
        out = out + x ** (2 * k + 1) / (4.0**k * (2 * k + 1))
    return out if out.ndim else float(out)


def mstar_series_remainder_bound(x, order: int = 3):
    """A bound on ``|2 artanh(x/2) − mstar_series(x, order)|`` for ``|x| < 2``: the first omitted term
    ``|x|^{2K+3}/(4^{K+1}(2K+3))`` times the geometric factor ``1/(1 − x²/4)``."""
    x = np.abs(checks.finite_array("x", x, allow_empty=True))
    if np.any(x >= 2):
        raise ValueError("x must satisfy |x| < 2: the series of 2 artanh(x/2) converges only there")
    order = checks.integer("order", order, low=1)
    K = (order - 1) // 2
    first = x ** (2 * K + 3) / (4.0 ** (K + 1) * (2 * K + 3))
    out = first / (1.0 - x * x / 4.0)
    return out if out.ndim else float(out)


def pmi_series_coefficients(order: int = 7) -> dict[int, Any]:
    """The exact (sympy Rational) Taylor coefficients of log((2 + x)/(2 − x)) at x = 0 up to x^order."""
    import sympy as sp

    order = checks.integer("order", order, low=1)
    x = sp.symbols("x")
    ser = sp.series(sp.log((2 + x) / (2 - x)), x, 0, order + 1).removeO()
    poly = sp.Poly(sp.expand(ser), x)
    return {int(m[0]): sp.nsimplify(c) for m, c in zip(poly.monoms(), poly.coeffs())}


def logistic_loss_taylor(sign: int = +1, order: int = 4):
    """The sympy Taylor polynomial of log(1 + e^{−sign·x}) at x = 0 up to x^order (a sympy expression
    in the symbol ``x``): sign=+1 is the positive-pair loss log(1+e^{−x}) = log 2 − x/2 + x²/8 − x⁴/192 …"""
    import sympy as sp

    if sign not in (1, -1):
        raise ValueError("sign must be +1 (positive pairs) or -1 (negative pairs)")
    order = checks.integer("order", order, low=0)
    x = sp.symbols("x")
    return sp.series(sp.log(1 + sp.exp(-sign * x)), x, 0, order + 1).removeO()


# ----------------------------------------------------------------------------------------------
# synthetic statistics for checks
# ----------------------------------------------------------------------------------------------
def synthetic_joint(
    V: int,
    rng: np.random.Generator,
    *,
    rank: int = 4,
    strength: float = 1.0,
    noise: float = 0.2,
    zipf: float = 1.0,
    decay: float = 0.8,
) -> np.ndarray:
    """A random symmetric co-occurrence table with planted structure, for checks and exercises.

    ``P_ij ∝ p_i p_j exp(Σ_k a_k u_ik u_jk + ε_ij)`` with Zipf-like ``p_i ∝ (i+1)^{−zipf}``, ``rank`` random
    unit directions ``u_k`` with strengths ``a_k = strength·decay^k`` (entries of ``V·u_k u_kᵀ`` are O(1)), and
    symmetric Gaussian noise ``ε`` of scale ``noise``.

    Parameters
    ----------
    V : int
        The number of words, at least 2.
    rng : numpy.random.Generator
        The random stream.
    rank : int, default 4
        How many planted directions (0 to ``V``).
    strength : float, default 1.0
        The strength of the first direction.
    noise : float, default 0.2
        The scale of the noise (non-negative).
    zipf : float, default 1.0
        The Zipf exponent of the marginals (non-negative).
    decay : float, default 0.8
        The ratio of successive strengths (positive).

    Returns
    -------
    numpy.ndarray, shape (V, V)
        A symmetric table of positive entries that sums to 1.

    Raises
    ------
    ValueError
        If an argument is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> P = synthetic_joint(50, np.random.default_rng(0))
    >>> P.shape, bool(np.allclose(P, P.T)), bool((P > 0).all()), round(float(P.sum()), 12)
    ((50, 50), True, True, 1.0)
    """
    V = checks.integer("V", V, low=2)
    rank = checks.integer("rank", rank, low=0, high=V)
    strength = checks.real("strength", strength)
    noise = checks.nonnegative("noise", noise)
    zipf = checks.nonnegative("zipf", zipf)
    decay = checks.positive("decay", decay)
    p = (np.arange(1, V + 1, dtype=np.float64)) ** (-zipf)
    p /= p.sum()
    U, _ = np.linalg.qr(rng.standard_normal((V, max(rank, 1))))
    U = U[:, :rank]
    a = strength * decay ** np.arange(rank)
    S = V * (U * a) @ U.T  # entries of order ``strength``
    E = rng.standard_normal((V, V))
    E = noise * (E + E.T) / math.sqrt(2.0)
    P = np.outer(p, p) * np.exp(S + E)
    P = (P + P.T) / 2.0
    return P / P.sum()


# ----------------------------------------------------------------------------------------------
# gradient descent on the QWEM loss itself (torch)
# ----------------------------------------------------------------------------------------------
@dataclass
class GDResult:
    """Output of :func:`gradient_descent_qwem`."""

    W: np.ndarray
    """final embeddings, V×d (float64)."""
    steps: np.ndarray
    """the step numbers at which ``loss`` and ``grad_norm`` were recorded."""
    loss: np.ndarray
    grad_norm: np.ndarray
    converged: bool
    """True when the gradient norm fell below ``gtol``."""
    lr: float
    info: dict = field(default_factory=dict)
    tracked: np.ndarray | None = None
    """``track(W)`` at each recorded step (stacked), when a ``track`` function was given."""


def gradient_descent_qwem(
    P_joint,
    psi_plus,
    psi_minus,
    d: int,
    *,
    P_marginal=None,
    init_scale: float = 1e-3,
    W0=None,
    lr: float | None = None,
    max_steps: int = 200_000,
    gtol: float = 1e-12,
    record_every: int = 10,
    seed: int = 0,
    device=None,
    progress: bool = False,
    track=None,
) -> GDResult:
    """Full-batch gradient descent on :func:`qwem_loss` in its contrastive form (not the factorised one).

    The loss is evaluated term by term, Σ P_ijΨ⁺(x²/4 − x) + P_iP_jΨ⁻(x²/4 + x), in float64, and its
    exact gradient is (C + Cᵀ)W with C_ij = ∂L/∂x_ij = P_ijΨ⁺(x/2 − 1) + P_iP_jΨ⁻(x/2 + 1) (the unit
    tests compare it with torch autograd). Initialisation W_ij ~ N(0, init_scale²) (or ``W0``). ``lr`` defaults to
    ``0.25/(max G · max(|λ|(M*), 1))``, a stable step for the quartic landscape near its minima. Stops
    when ‖∇L‖_F < ``gtol`` or after ``max_steps``. ``track``, if given, is called on the (torch) W at
    every recorded step; its results (e.g. singular values) are stacked into ``GDResult.tracked``.

    Parameters
    ----------
    P_joint, psi_plus, psi_minus : (V, V) arrays
        The pair distribution and the two reweightings (as :func:`qwem_loss`).
    d : int
        The embedding dimension.
    P_marginal : (V,) array, optional
        The unigram distribution (default: the row sums of ``P_joint``).
    init_scale, W0, seed
        The start: ``W_ij ~ N(0, init_scale²)`` drawn with ``seed``, or ``W0`` itself.
    lr : float, optional
        The step (default above).
    max_steps, gtol
        When to stop.
    record_every : int
        Steps between recorded losses and gradient norms.
    device, progress, track
        Where to compute, a progress bar, and the optional function of ``W`` recorded with the loss.

    Returns
    -------
    GDResult
        The final ``W``, the recorded losses and gradient norms, whether ``gtol`` was reached, and the
        tracked values.

    Examples
    --------
    Theorem 1 on a small instance: gradient descent ends at the minimum ``−(g/4)Σ_{k≤d} λ_k²`` plus the
    constant (here ``g = 1``, and ``M*``'s top eigenvalues are positive):

    >>> import numpy as np
    >>> P = synthetic_joint(8, np.random.default_rng(0))
    >>> psi = equal_reweighting(P)
    >>> lam = np.linalg.eigvalsh(target_matrix(P, psi, psi))[::-1]
    >>> r = gradient_descent_qwem(P, psi, psi, 2, init_scale=1e-2)
    >>> minimum = qwem_loss_constant(P, psi, psi) + 0.25 * np.sum(lam[2:] ** 2)
    >>> bool(r.converged), bool(np.isclose(qwem_loss(r.W, P, psi, psi), minimum, rtol=1e-8))
    (True, True)
    """
    import torch

    from ..book import config

    A, B = _coefficients(P_joint, psi_plus, psi_minus, P_marginal)
    V = A.shape[0]
    d = _check_d(d, V)
    for name, v in (("record_every", record_every), ("max_steps", max_steps)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    init_scale = checks.positive("init_scale", init_scale)  # W = 0 is a stationary point
    if lr is not None:
        lr = checks.positive("lr", lr)
    G = A + B
    if lr is None:
        M = target_matrix(P_joint, psi_plus, psi_minus, P_marginal)
        lr = 0.25 / (float(G.max()) * max(float(np.max(np.abs(np.linalg.eigvalsh(M)))), 1.0))
    dev = device if device is not None else config.device()
    At = torch.as_tensor(A, dtype=torch.float64, device=dev)
    Bt = torch.as_tensor(B, dtype=torch.float64, device=dev)
    if W0 is not None:
        W0 = _check_W(W0, V)
        if W0.shape[1] != d:
            raise ValueError(f"W0 must have d={d} columns, got {W0.shape[1]}")
        W = torch.as_tensor(W0, dtype=torch.float64, device=dev).clone()
    else:
        gen = torch.Generator(device="cpu").manual_seed(int(seed))
        W = (init_scale * torch.randn(V, d, generator=gen, dtype=torch.float64)).to(dev)

    def loss_and_grad(W):
        # dL/dX_ij = P_ijΨ⁺(X_ij/2 − 1) + P_iP_jΨ⁻(X_ij/2 + 1); with X = WWᵀ, ∇_W L = (C + Cᵀ)W.
        X = W @ W.T
        Q = X * X / 4.0
        L = torch.sum(At * (Q - X) + Bt * (Q + X))
        C = At * (X / 2.0 - 1.0) + Bt * (X / 2.0 + 1.0)
        return L, (C + C.T) @ W

    steps, losses, gnorms, tracked = [], [], [], []
    converged = False
    it = range(max_steps + 1)
    if progress:
        from tqdm import tqdm

        it = tqdm(it, desc="gradient descent", mininterval=1.0)
    # Tiny matrices: one CPU thread is several times faster than two (thread hand-off dominates).
    n_threads = torch.get_num_threads()
    if torch.device(dev).type == "cpu" and V <= 512:
        torch.set_num_threads(1)
    try:
        with torch.no_grad():
            for step in it:
                L, grad = loss_and_grad(W)
                gn = float(torch.linalg.norm(grad))
                if step % record_every == 0 or gn < gtol or step == max_steps:
                    steps.append(step)
                    losses.append(float(L))
                    gnorms.append(gn)
                    if track is not None:
                        t = track(W)
                        tracked.append(
                            t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)
                        )
                if not math.isfinite(gn):
                    raise FloatingPointError(
                        f"gradient descent diverged at step {step} (lr={lr:g}); lower lr"
                    )
                if gn < gtol:
                    converged = True
                    break
                if step == max_steps:
                    break
                W -= lr * grad
    finally:
        torch.set_num_threads(n_threads)
    return GDResult(
        W=W.cpu().numpy(),
        steps=np.array(steps),
        loss=np.array(losses),
        grad_norm=np.array(gnorms),
        converged=converged,
        lr=float(lr),
        info={"V": V, "d": d, "init_scale": init_scale, "seed": seed},
        tracked=np.stack(tracked) if tracked else None,
    )
