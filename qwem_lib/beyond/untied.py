"""Untied embeddings ``W ≠ W′`` and word2vec's own negatives: QWEM as an asymmetric factorisation (chapter 50).

word2vec keeps two tables, input vectors ``w_a`` (rows of ``W``) and output vectors ``w′_b`` (rows of
``W′``), and scores an ordered pair by ``x_ab = w_a·w′_b``. It draws positives ``(a, b)`` from the corpus
windows and, for each, ``k`` negatives that keep the centre word ``a`` and draw the context from
``Q ∝ P^0.75``. The expected weight with which a minibatch counts ``(a, b)`` as a positive is ``A_ab`` and
as a negative ``N_ab`` (:func:`word2vec_masses`, built on :func:`qwem_lib.qwem.pairs.pair_weights`). With the
quartic per-pair terms of QWEM (:func:`qwem_lib.qwem.pairs.qwem_pair_terms`) the expected loss is

``L(W, W′) = Σ_ab A_ab (−x + x²/4) + N_ab (x + x²/4) = ¼ Σ_ab G_ab (x_ab − T_ab)² − ¼ Σ_ab G_ab T_ab²``

with weights ``G = A + N`` and target ``T = 2(A − N)/(A + N)`` (:func:`untied_target`). ``N = k m Qᵀ`` is
not symmetric, so ``T`` is not: there is no eigendecomposition to speak of, and the natural object is
the singular value decomposition ``T = Σ_k σ_k u_k v_kᵀ``.

**The unweighted case** (the untied analogue of Setting 3.1): reweight every pair by
``Ψ_ab = 1/(A⁰_ab + N⁰_ab)`` (:func:`unweighted_masses`); then ``G = 1`` and the loss is
``¼‖WW′ᵀ − T‖²_F`` + const, whose rank-``d`` minimisers are the truncated SVD (Eckart–Young):
``WW′ᵀ = U_d Σ_d V_dᵀ`` (:func:`svd_factors` gives the balanced factors ``U_dΣ_d^{1/2}``, ``V_dΣ_d^{1/2}``).
With general ``G`` the minimiser is a weighted low-rank approximation (:func:`weighted_lowrank`, by
alternating least squares); with rank-one ``G = g hᵀ`` it is ``Γ_g⁻¹(Γ_g T Γ_h)_[d]Γ_h⁻¹``
(:func:`rank_one_weighted_optimum`).

**Dynamics.** The book's time is ``t = 2ηs`` for gradient steps ``W ← W − η∇_W L``, ``W′ ← W′ − η∇_{W′}L``
(the flow ``dW/dt = −½∇_W L``). For ``G = 1`` a balanced aligned start ``W = u a``, ``W′ = v a`` stays so,
and the product ``π = a²`` along mode ``k`` follows ``dπ/dt = ½(σ_k − π)π``:
``π_k(t) = σ_k π₀ e^{σ_k t/2} / (σ_k + π₀(e^{σ_k t/2} − 1))`` (:func:`balanced_product`), half its final
value at ``t½ = (2/σ_k) ln((σ_k − π₀)/π₀)`` (:func:`balanced_half_time`) — the dynamics of a two-layer linear
network (Saxe et al.), and half the speed of the tied Lemma 3.1 with ``λ = σ``. From a small random start
``W, W′ ~ N(0, σ₀²/d)`` the growing combination ``(Wᵀu_k + W′ᵀv_k)/√2`` starts with squared norm ``≈ σ₀²``,
so the effective start is ``π₀ ≈ σ₀²/2`` (:func:`random_start_product`). The noiseless trainer
:func:`train_untied` integrates the exact expected gradient (full batch) with caching and checkpoints.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..book import checks, config
from ..book.cache import Checkpoint, array_key, read_npz, save_npz
from ..book.loop import Logs, run_steps
from ..maths.linalg import constant_overlap
from ..qwem.noiseless import log_schedule
from ..qwem.pairs import pair_weights, qwem_pair_terms, statistics
from ..qwem.trainers import checked_device, initial_embeddings

__all__ = [
    "word2vec_masses",
    "untied_target",
    "unweighted_masses",
    "untied_loss",
    "untied_gradient",
    "untied_factorisation_loss",
    "svd_factors",
    "rank_one_weighted_optimum",
    "weighted_lowrank",
    "balanced_product",
    "balanced_half_time",
    "random_start_product",
    "competing_starts",
    "untied_acquisition_times",
    "offset_overlap",
    "UntiedRun",
    "train_untied",
]


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------
def _square(name: str, M: Any) -> np.ndarray:
    """``M`` as a finite float64 square matrix, V >= 2, or an error that names it."""
    M = checks.square(name, M)
    if M.shape[0] < 2:
        raise ValueError(f"{name} must be a square V × V matrix with V >= 2, got shape {M.shape}")
    return M


def _masses(A: Any, N: Any, names: tuple[str, str] = ("A", "N")) -> tuple[np.ndarray, np.ndarray]:
    A, N = _square(names[0], A), _square(names[1], N)
    if A.shape != N.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same shape, got {A.shape} and {N.shape}"
        )
    for name, X in zip(names, (A, N)):
        if (X < 0).any():
            raise ValueError(
                f"{name}, a pair mass, must be non-negative, got {float(X[X < 0][0])!r}"
            )
    return A, N


def _rank(d: Any, V: int) -> int:
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or not 1 <= d <= V:
        raise ValueError(f"d must be an integer in 1..{V}, got {d!r}")
    return int(d)


def _factors(
    W: Any, Wp: Any, V: int | None = None, names: tuple[str, str] = ("W", "Wp")
) -> tuple[np.ndarray, np.ndarray]:
    W = checks.finite_array(names[0], W, ndim=2)
    Wp = checks.finite_array(names[1], Wp, ndim=2)
    if Wp.shape != W.shape:
        raise ValueError(
            f"{names[0]} and {names[1]} (W and W′) must be two (V, d) arrays of one shape, got "
            f"{W.shape}, {Wp.shape}"
        )
    if V is not None and W.shape[0] != V:
        raise ValueError(f"{names[0]} has {W.shape[0]} rows, the masses are {V} × {V}")
    return W, Wp


# ----------------------------------------------------------------------------------------------
# masses, weights and target
# ----------------------------------------------------------------------------------------------
def word2vec_masses(
    P_joint: Any,
    P_unigram: Any,
    *,
    k: int = 1,
    power: float = 0.75,
    sample: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(A⁰, N⁰)``: the expected weight with which word2vec's draw counts the ordered pair ``(a, b)`` as a
    positive and as a negative: ``A⁰ = P∘(ρρᵀ)`` (``ρ`` subsampling's keep rate; ``ρ = 1`` for
    ``sample=None``), ``N⁰ = k m Qᵀ`` with ``m = A⁰1`` (each positive's centre word keeps its ``k``
    negatives) and ``Q ∝ P_unigram^power``. ``N⁰`` is not symmetric unless ``power = 1`` and ``A⁰1 ∝ P``.
    (:func:`qwem_lib.qwem.pairs.pair_weights` with ``reweighting="word2vec"``.)"""
    P, pu = statistics(P_joint, P_unigram)
    k = checks.positive_int("k", k)
    power = checks.nonnegative("power", power)
    if sample is not None:
        sample = checks.positive("sample", sample)  # None, not inf, says "no subsampling" here
    # ρ = clip(t/P + √(t/P), 0, 1) is exactly 1 at t = ∞: no subsampling
    return pair_weights(
        P,
        pu,
        "word2vec",
        k=int(k),
        sample=math.inf if sample is None else float(sample),
        power=power,
    )


def untied_target(A: Any, N: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(G, T)``: the weights ``G = A + N`` and the target ``T = 2(A − N)/(A + N)`` (0 where ``G = 0``) of
    the untied quadratic loss ``Σ A ℓ⁺ + N ℓ⁻ = ¼ Σ G (WW′ᵀ − T)² + const``."""
    A, N = _masses(A, N)
    G = A + N
    T = np.zeros_like(G)
    np.divide(2.0 * (A - N), G, out=T, where=G > 0)
    return G, T


def unweighted_masses(A0: Any, N0: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(Ψ∘A⁰, Ψ∘N⁰)`` with ``Ψ = 1/(A⁰ + N⁰)``: the reweighting that makes ``G = 1`` (the untied analogue
    of Setting 3.1; every pair must have positive mass ``A⁰ + N⁰``)."""
    A0, N0 = _masses(A0, N0, ("A0", "N0"))
    S = A0 + N0
    if (S <= 0).any():
        raise ValueError("every pair needs A⁰ + N⁰ > 0 to be reweighted to G = 1")
    return A0 / S, N0 / S


def untied_loss(W: Any, Wp: Any, A: Any, N: Any) -> float:
    """``Σ_ab A_ab ℓ⁺(x_ab) + N_ab ℓ⁻(x_ab)`` with QWEM's per-pair terms and ``x = WW′ᵀ``."""
    A, N = _masses(A, N)
    W, Wp = _factors(W, Wp, A.shape[0])
    X = W @ Wp.T
    return float(np.sum(A * qwem_pair_terms(X, True)[0] + N * qwem_pair_terms(X, False)[0]))


def untied_gradient(W: Any, Wp: Any, A: Any, N: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(∇_W L, ∇_{W′} L) = (C W′, Cᵀ W)`` with ``C = A∘ℓ⁺′(X) + N∘ℓ⁻′(X) = G∘X/2 − (A − N)``.

    Test oracle: the dense reference form, checked against autograd by ``tests/test_untied.py``; no chapter
    calls it, and :func:`train_untied` steps with its own fused gradient."""
    A, N = _masses(A, N)
    W, Wp = _factors(W, Wp, A.shape[0])
    X = W @ Wp.T
    C = A * qwem_pair_terms(X, True)[1] + N * qwem_pair_terms(X, False)[1]
    return C @ Wp, C.T @ W


def untied_factorisation_loss(W: Any, Wp: Any, G: Any, T: Any) -> float:
    """``¼ Σ_ab G_ab (x_ab − T_ab)²`` with ``x = WW′ᵀ``."""
    G, T = _square("G", G), _square("T", T)
    W, Wp = _factors(W, Wp, G.shape[0])
    R = W @ Wp.T - T
    return float(0.25 * np.sum(G * R * R))


# ----------------------------------------------------------------------------------------------
# minimisers
# ----------------------------------------------------------------------------------------------
def svd_factors(T: Any, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W, W′, s)``: the balanced rank-``d`` minimiser of ``‖WW′ᵀ − T‖²_F``, ``W = U_dΣ_d^{1/2}``,
    ``W′ = V_dΣ_d^{1/2}`` (Eckart–Young), and all singular values ``s`` of ``T`` (dense SVD)."""
    T = _square("T", T)
    d = _rank(d, T.shape[0])
    U, s, Vt = np.linalg.svd(T)
    r = np.sqrt(s[:d])
    return U[:, :d] * r, Vt[:d].T * r, s


def rank_one_weighted_optimum(g: Any, h: Any, T: Any, d: int) -> np.ndarray:
    """The rank-``d`` minimiser ``X`` of ``Σ_ab g_a h_b (X_ab − T_ab)²`` (positive ``g``, ``h``):
    ``Γ_g⁻¹ (Γ_g T Γ_h)_[d] Γ_h⁻¹`` with ``Γ = diag(·)^{1/2}`` — the untied form of Proposition 2."""
    T = _square("T", T)
    d = _rank(d, T.shape[0])
    g = np.asarray(g, dtype=np.float64)
    h = np.asarray(h, dtype=np.float64)
    if g.shape != (T.shape[0],) or h.shape != (T.shape[0],) or (g <= 0).any() or (h <= 0).any():
        raise ValueError("g and h must be positive vectors of length V")
    rg, rh = np.sqrt(g), np.sqrt(h)
    U, s, Vt = np.linalg.svd(rg[:, None] * T * rh[None, :])
    return ((U[:, :d] * s[:d]) @ Vt[:d]) / rg[:, None] / rh[None, :]


def weighted_lowrank(
    G: Any,
    T: Any,
    d: int,
    *,
    iters: int = 100,
    tol: float = 1e-10,
    init: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(W, W′, history)``: a rank-``d`` minimiser of ``¼ Σ G (WW′ᵀ − T)²`` by alternating weighted least
    squares (each row ``w_a`` solves ``(Σ_b G_ab w′_b w′_bᵀ) w_a = Σ_b G_ab T_ab w′_b``, then the same for
    ``W′``), from ``init`` or from the truncated SVD of ``T``. ``history`` holds the loss after every sweep;
    it stops when the relative decrease falls below ``tol``. Weighted low-rank approximation can have
    local minima: this finds the one reached from the start."""
    G, T = _square("G", G), _square("T", T)
    if G.shape != T.shape or (G < 0).any():
        raise ValueError("G must be non-negative and of T's shape")
    d = _rank(d, T.shape[0])
    iters = checks.positive_int("iters", iters)
    tol = checks.nonnegative("tol", tol)
    if init is None:
        W, Wp, _ = svd_factors(T, d)
    else:
        W, Wp = _factors(*init, V=T.shape[0])
        if W.shape[1] != d:
            raise ValueError(f"init has {W.shape[1]} columns, d = {d}")
        W, Wp = W.copy(), Wp.copy()
    eye = np.eye(d) * 1e-12

    def solve(Gm: np.ndarray, Tm: np.ndarray, F: np.ndarray) -> np.ndarray:
        H = np.empty((Gm.shape[0], d, d))
        for lo in range(0, Gm.shape[0], 64):  # row blocks: the intermediate stays 64 × V × d
            H[lo : lo + 64] = np.einsum("ab,bi,bj->aij", Gm[lo : lo + 64], F, F, optimize=True)
        r = (Gm * Tm) @ F
        scale = np.trace(H, axis1=1, axis2=2)[:, None, None] / d + 1e-300
        return np.linalg.solve(H + eye * scale, r[:, :, None])[:, :, 0]

    hist = [untied_factorisation_loss(W, Wp, G, T)]
    for _ in range(int(iters)):
        W = solve(G, T, Wp)
        Wp = solve(G.T, T.T, W)
        hist.append(untied_factorisation_loss(W, Wp, G, T))
        if hist[-2] - hist[-1] <= tol * abs(hist[-2]):
            break
    return W, Wp, np.asarray(hist)


# ----------------------------------------------------------------------------------------------
# the balanced dynamics
# ----------------------------------------------------------------------------------------------
def balanced_product(t: Any, sigma: Any, p0: Any) -> np.ndarray:
    """``π(t) = σπ₀e^{σt/2} / (σ + π₀(e^{σt/2} − 1))``: the product ``u_kᵀWW′ᵀv_k`` of a balanced aligned
    mode under the flow of ``¼‖WW′ᵀ − T‖²`` (time ``t = 2Ση``), broadcast over ``t``, ``sigma``, ``p0``.
    It is Lemma 3.1's sigmoid (:func:`qwem_lib.qwem.theory.aligned_sigmoid`) at half the time."""
    from ..qwem.theory import aligned_sigmoid

    sigma = checks.positive_array("sigma", sigma, allow_empty=True)
    p0 = checks.positive_array("p0", p0, allow_empty=True)
    t = checks.finite_array("t", t, allow_empty=True)
    return np.asarray(aligned_sigmoid(sigma, p0, t / 2.0))


def balanced_half_time(sigma: Any, p0: Any) -> np.ndarray:
    """``t½ = (2/σ) ln((σ − π₀)/π₀)``: when :func:`balanced_product` reaches ``σ/2`` (needs ``π₀ < σ/2``);
    twice :func:`qwem_lib.qwem.dynamics.half_time` at ``λ = σ``.

    Parameters
    ----------
    sigma : float or array
        The target's singular value(s), positive.
    p0 : float or array
        The initial product(s) ``π₀``, positive and below ``sigma/2`` (broadcast with ``sigma``).

    Returns
    -------
    array
        The half-times.

    Raises
    ------
    ValueError
        For a non-positive value or ``p0 >= sigma/2``.

    Examples
    --------
    >>> import numpy as np
    >>> t = balanced_half_time(2.0, 1e-4)
    >>> bool(np.isclose(t, np.log((2.0 - 1e-4) / 1e-4)))
    True
    >>> bool(np.isclose(balanced_product(t, 2.0, 1e-4), 1.0))  # half of sigma
    True
    """
    from ..qwem.dynamics import half_time

    sigma = checks.positive_array("sigma", sigma)
    p0 = checks.positive_array("p0", p0)
    if np.any(np.broadcast_to(p0, np.broadcast_shapes(p0.shape, sigma.shape)) >= sigma / 2):
        raise ValueError("p0 must be below sigma/2 (the half-way product), got p0 >= sigma/2")
    return 2.0 * np.asarray(half_time(sigma, p0), dtype=np.float64)


def random_start_product(init_scale: float) -> float:
    """The effective start ``π₀ = σ₀²/2`` of every mode from ``W, W′`` with i.i.d. ``N(0, σ₀²/d)`` entries:
    the growing combination ``c = (Wᵀu + W′ᵀv)/√2`` has ``E‖c‖² = σ₀²`` and, once the decaying one
    ``(Wᵀu − W′ᵀv)/√2`` is gone, ``uᵀWW′ᵀv = ‖c‖²/2``."""
    init_scale = checks.positive("init_scale", init_scale)
    return 0.5 * init_scale**2


def competing_starts(W0: Any, Wp0: Any, U: Any, Vr: Any) -> np.ndarray:
    """The effective start ``π₀,k`` of each mode from a given ``(W(0), W′(0))``, modes in order of
    singular value: ``‖c_k⊥‖²/2`` where ``c_k = (W(0)ᵀu_k + W′(0)ᵀv_k)/√2 ∈ R^d`` is the growing
    combination and ``c_k⊥`` its part orthogonal to ``c_1, …, c_{k−1}`` (Gram–Schmidt in order).

    The modes share the ``d`` columns: once mode ``j < k`` has grown it occupies the direction of ``c_j``
    in ``R^d``, and mode ``k`` can only grow from what is left. For ``k = d`` of ``d`` modes that leaves
    about ``1/d`` of ``‖c_k‖²``, a delay of ``(2/σ_k) ln d`` — the untied counterpart of the silent
    alignment of Result 3."""
    W0, Wp0 = _factors(W0, Wp0, names=("W0", "Wp0"))
    U = checks.finite_array("U", U, ndim=2)
    Vr = checks.finite_array("Vr", Vr, ndim=2)
    if U.shape[0] != W0.shape[0] or Vr.shape != U.shape:
        raise ValueError(f"U and Vr must be two (V, r) arrays, got {U.shape}, {Vr.shape}")
    if U.shape[1] > W0.shape[1]:
        raise ValueError(f"at most d = {W0.shape[1]} modes can compete, got r = {U.shape[1]}")
    C = (W0.T @ U + Wp0.T @ Vr) / math.sqrt(2.0)
    basis: list[np.ndarray] = []
    out = np.empty(U.shape[1])
    for k in range(U.shape[1]):
        c = C[:, k].copy()
        for b in basis:
            c -= (b @ c) * b
        out[k] = 0.5 * float(c @ c)
        nrm = float(np.linalg.norm(c))
        if nrm > 0:
            basis.append(c / nrm)
    return out


def untied_acquisition_times(times: Any, modes: Any, sigma: Any, level: float = 0.5) -> np.ndarray:
    """The first logged time at which each mode's product ``π_k(t)`` (columns of ``modes``, shape (T, r))
    reaches ``level·σ_k``, interpolated linearly in ``t`` between logs; NaN if never reached."""
    times = checks.increasing("times", times)
    modes = checks.finite_array("modes", modes, ndim=2)
    sigma = checks.positive_array("sigma", sigma, ndim=1)
    if modes.shape[0] != times.size or sigma.shape != (modes.shape[1],):
        raise ValueError(f"need times (T,), modes (T, r), sigma (r,); got {times.shape}, "
                         f"{modes.shape}, {sigma.shape}")  # fmt: skip
    if not 0 < level < 1:
        raise ValueError(f"level must lie in (0, 1), got {level!r}")
    out = np.full(modes.shape[1], np.nan)
    for k in range(modes.shape[1]):
        y = modes[:, k] - level * sigma[k]
        hit = np.flatnonzero(y >= 0)
        if hit.size == 0:
            continue
        i = int(hit[0])
        if i == 0:
            out[k] = times[0]
            continue
        y0, y1 = y[i - 1], y[i]
        out[k] = times[i - 1] + (times[i] - times[i - 1]) * (-y0) / (y1 - y0)
    return out


offset_overlap = constant_overlap
"""Chapter 50's name for :func:`qwem_lib.maths.linalg.constant_overlap`: the squared overlap of ``W``'s first
left singular vector with the constant direction (about ``1/V`` for a random direction, 1 for an offset)."""


# ----------------------------------------------------------------------------------------------
# the noiseless untied trainer
# ----------------------------------------------------------------------------------------------
@dataclass
class UntiedRun:
    """A run of :func:`train_untied`. ``W``, ``Wp`` (V, d) the end point and ``W0``, ``Wp0`` the start;
    ``steps`` the logged steps, ``times`` the book's time ``2ηs``; ``sv`` (T, d) singular values of
    ``WW′ᵀ``; ``modes`` (T, r) the products ``u_kᵀWW′ᵀv_k`` along the reference singular pairs;
    ``loss`` (T,) the exact expected loss; ``imbalance`` (T,) ``‖WᵀW − W′ᵀW′‖_F`` (conserved by the flow);
    ``seconds`` wall time; ``config`` the inputs; ``cached`` whether it was read from the cache."""

    W: np.ndarray
    Wp: np.ndarray
    W0: np.ndarray
    Wp0: np.ndarray
    steps: np.ndarray
    times: np.ndarray
    sv: np.ndarray
    modes: np.ndarray
    loss: np.ndarray
    imbalance: np.ndarray
    seconds: float
    config: dict = field(default_factory=dict)
    cached: bool = False


_FIELDS = ("W", "Wp", "W0", "Wp0", "steps", "times", "sv", "modes", "loss", "imbalance", "seconds")


def _untied_gradient(
    A: np.ndarray, N: np.ndarray, dev: Any, dt: Any
) -> tuple[Callable[[Any, Any], tuple[Any, Any]], Callable[[Any, Any], float]]:
    """``(grads, loss)`` of the quartic untied loss with masses ``A``, ``N`` as torch functions of
    ``(W, W′)``: ``grads`` gives ``(∇_W L, ∇_{W′} L)`` with ``C = ½ G∘X − D`` (``G = A + N``, ``D = A − N``,
    ``X = WW′ᵀ``) as ``(C W′, Cᵀ W)``, and ``loss`` the value ``Σ ¼ G X² − D X``. A constant ``G`` is never
    formed as a matrix (nor is ``X`` then): the products go through the ``d × d`` Gram matrices."""
    import torch

    G = A + N
    g_const = float(G.flat[0]) if np.allclose(G, G.flat[0], rtol=1e-12, atol=0.0) else None
    D = torch.as_tensor(A - N, device=dev, dtype=dt)
    Gt = torch.as_tensor(G if g_const is None else np.zeros((1, 1)), device=dev, dtype=dt)

    def grads(W: Any, Wp: Any) -> tuple[Any, Any]:
        if g_const is not None:  # C = (g/2) X − D, never forming X
            return (0.5 * g_const) * (W @ (Wp.T @ Wp)) - D @ Wp, (0.5 * g_const) * (
                Wp @ (W.T @ W)
            ) - D.T @ W
        C = 0.5 * Gt * (W @ Wp.T) - D
        return C @ Wp, C.T @ W

    def loss_value(W: Any, Wp: Any) -> float:
        if g_const is not None:
            GW, GWp = W.T @ W, Wp.T @ Wp
            return float(0.25 * g_const * (GW * GWp).sum() - (W * (D @ Wp)).sum())
        X = W @ Wp.T
        return float((0.25 * Gt * X * X - D * X).sum())

    return grads, loss_value


def _record_untied(
    logs: Logs,
    s: int,
    W: Any,
    Wp: Any,
    ref: tuple[Any, Any] | None,
    loss: Callable[[Any, Any], float],
) -> None:
    """Log step ``s`` of :func:`train_untied`: the singular values of ``WW′ᵀ`` (from the two R factors,
    never forming the V × V product), the mode strengths ``u_kᵀW W′ᵀv_k`` of ``ref = (U, V)`` (empty
    without one), the loss and the imbalance ``‖WᵀW − W′ᵀW′‖_F``."""
    import torch

    Ra = torch.linalg.qr(W)[1]
    Rb = torch.linalg.qr(Wp)[1]
    logs["steps"].append(s)
    logs["sv"].append(torch.linalg.svdvals(Ra @ Rb.T).cpu().numpy())
    if ref is not None:
        logs["modes"].append(((ref[0].T @ W) * (ref[1].T @ Wp)).sum(1).cpu().numpy())
    else:
        logs["modes"].append(np.zeros(0))
    logs["loss"].append(loss(W, Wp))
    logs["imb"].append(float(torch.linalg.norm(W.T @ W - Wp.T @ Wp)))


def train_untied(
    A: Any,
    N: Any,
    d: int,
    *,
    steps: int,
    lr: float,
    init_scale: float = 1e-6,
    W0: np.ndarray | None = None,
    Wp0: np.ndarray | None = None,
    seed: int = 0,
    log_steps: Sequence[int] | np.ndarray | None = None,
    n_logs: int = 200,
    reference: tuple[np.ndarray, np.ndarray] | None = None,
    device: Any = None,
    use_cache: bool = True,
    checkpoint_s: float | None = 60.0,
    stop_after: int | None = None,
    progress: bool = False,
    label: str = "",
) -> UntiedRun:
    """Full-batch gradient descent on the exact expected untied loss ``Σ A ℓ⁺(x) + N ℓ⁻(x)``,
    ``x = WW′ᵀ`` (:func:`untied_loss`): the noiseless trainer of :func:`qwem_lib.qwem.noiseless.train_expected`
    with ``W′`` free. Steps ``W ← W − η∇_W L``, ``W′ ← W′ − η∇_{W′}L`` taken together, time ``t = 2ηs``.

    ``W(0)`` and ``W′(0)`` are two consecutive draws of :func:`qwem_lib.qwem.trainers.initial_embeddings` (so
    ``W(0)`` is the tied trainers' start for the same seed), or ``W0``/``Wp0``. ``reference = (U, Vr)``
    (V × r each, e.g. the top singular vectors of ``T``) gives the logged products ``u_kᵀWW′ᵀv_k``. When
    ``A + N`` is constant (the unweighted case) the gradient costs two ``V × V × d`` products; otherwise
    three. float64 throughout. Cached under ``config.cache_dir()/noiseless`` keyed by every input;
    checkpoints every ``checkpoint_s`` seconds (and on ``KeyboardInterrupt``) are resumed by the same
    call; ``stop_after`` stops after that many steps with a checkpoint (raising
    :class:`~qwem_lib.book.loop.TrainingInterrupted`).
    """
    import torch

    A, N = _masses(A, N)
    V = A.shape[0]
    d = _rank(d, V)
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a positive finite number, got {lr!r}")
    checks.positive("init_scale", init_scale)
    if W0 is not None:
        W0 = checks.finite_array("W0", W0, shape=(V, d))
    if Wp0 is not None:
        Wp0 = checks.finite_array("Wp0", Wp0, shape=(V, d))
    steps = int(steps)
    dev = checked_device(device)
    dt = torch.float64
    log_steps = log_schedule(steps, n_logs) if log_steps is None else np.asarray(log_steps, int)
    log_steps = np.unique(np.clip(log_steps, 0, steps))
    gen = torch.Generator(device=dev)
    gen.manual_seed(int(config.SEED) * 1000 + int(seed))
    W = initial_embeddings(V, d, init_scale, gen)
    Wp = initial_embeddings(V, d, init_scale, gen)
    if W0 is not None:
        W = torch.as_tensor(np.array(W0, np.float64), device=dev)
    if Wp0 is not None:
        Wp = torch.as_tensor(np.array(Wp0, np.float64), device=dev)
    if W.shape != (V, d) or Wp.shape != (V, d):
        raise ValueError(f"W0 and Wp0 must be {(V, d)}, got {tuple(W.shape)}, {tuple(Wp.shape)}")
    if reference is not None:
        Ur, Vr = (np.asarray(x, np.float64) for x in reference)
        if Ur.ndim != 2 or Ur.shape[0] != V or Vr.shape != Ur.shape:
            raise ValueError(f"reference must be two (V, r) arrays, got {Ur.shape}, {Vr.shape}")
    cfg = dict(
        masses=array_key(A, N),
        V=V,
        d=d,
        steps=steps,
        lr=float(lr),
        init=hashlib.sha256(W.cpu().numpy().tobytes() + Wp.cpu().numpy().tobytes()).hexdigest()[
            :16
        ],
        log=hashlib.sha256(log_steps.tobytes()).hexdigest()[:8],
        ref=None if reference is None else array_key(Ur, Vr),
        device=dev.type,
        version=1,
    )
    blob = json.dumps(cfg, sort_keys=True).encode()
    stem = f"untied-V{V}-d{d}-{hashlib.sha256(blob).hexdigest()[:16]}"
    root = config.cache_dir() / "noiseless"
    path = root / f"{stem}.npz"
    z = read_npz(path, _FIELDS) if use_cache else None
    if z is not None:
        return UntiedRun(**{f: z[f] for f in _FIELDS[:-1]}, seconds=float(z["seconds"]),
                         config=cfg, cached=True)  # fmt: skip
    W0_np, Wp0_np = W.cpu().numpy().copy(), Wp.cpu().numpy().copy()
    grads, loss_value = _untied_gradient(A, N, dev, dt)
    ref_t = (
        None
        if reference is None
        else (torch.as_tensor(Ur, device=dev), torch.as_tensor(Vr, device=dev))
    )

    logs = Logs("steps", "sv", "modes", "loss", "imb")
    ckpt = Checkpoint(
        path if use_cache else None, ("W", "Wp", "step", "seconds", "log_steps", "log_sv")
    )
    start, spent = 0, 0.0
    cp = ckpt.load()
    if cp is not None:
        start, spent = int(cp["step"]), float(cp["seconds"])
        W = torch.as_tensor(cp["W"], device=dev)
        Wp = torch.as_tensor(cp["Wp"], device=dev)
        logs.restore(cp, "log_")

    def record(s: int) -> None:
        _record_untied(logs, s, W, Wp, ref_t, loss_value)

    def advance(s: int) -> None:
        nonlocal W, Wp
        gW, gWp = grads(W, Wp)
        W = W - float(lr) * gW
        Wp = Wp - float(lr) * gWp
        if not bool(torch.isfinite(W).all() and torch.isfinite(Wp).all()):
            raise FloatingPointError(
                f"untied: W became non-finite at step {s + 1}; lower the learning rate (lr={lr})"
            )

    t0 = time.time()

    def save(step: int) -> None:
        ckpt.save(dict(W=W.cpu().numpy(), Wp=Wp.cpu().numpy(), step=step,
                       seconds=spent + time.time() - t0, **logs.saved("log_")))  # fmt: skip

    with torch.no_grad():
        run_steps(
            advance, start=start, stop=steps, log_at=log_steps, record=record, save=save,
            checkpoint_s=checkpoint_s, stop_after=stop_after,
            desc=f"untied {label} V={V} d={d}" if progress else None,
        )  # fmt: skip
    seconds = spent + time.time() - t0
    st = logs.arrays()["steps"]
    res = UntiedRun(
        W=W.cpu().numpy(),
        Wp=Wp.cpu().numpy(),
        W0=W0_np,
        Wp0=Wp0_np,
        steps=st,
        times=2.0 * float(lr) * st.astype(np.float64),
        sv=np.asarray(logs["sv"]),
        modes=np.asarray(logs["modes"]),
        loss=np.asarray(logs["loss"]),
        imbalance=np.asarray(logs["imb"]),
        seconds=seconds,
        config=cfg,
    )
    if use_cache:
        save_npz(path, {f: getattr(res, f) for f in _FIELDS})
        ckpt.clear()
    return res
