"""Feature Collapse theory: the constants of Theorems 1-3 and the exact regularised risk.

Laurent, von Brecht & Bresson (ICLR 2024) prove that, in the large-sample limit, the weights of the
two networks of their synthetic task collapse onto a simplex. The theorems reduce each problem to a
scalar (or small) equation; this module solves those equations and evaluates the *true* regularised
risk exactly (by enumerating every sentence) so that the predictions can be checked to high precision.

Notation (the paper's): ``nc`` concepts, ``sc = nw / nc`` words per concept, ``nw`` words, sentences of
length ``L``, ``K`` classes (latent variables), embedding dimension ``d``, weight decay ``lam``.
``mu`` holds the within-concept word frequencies ``mu_beta`` (the same law in every concept).

Reconstructed formulas (the seed text was flattened by PDF extraction; see chapter 42 for the derivation)

* Theorem 1 (type-I collapse, no LayerNorm, uniform ``mu``)::

      H(t) = log(1 - K/nc^L + K/nc^L (1 + (nc-1) e^{-eta t})^L) + lam t,
      eta  = nc/(nc-1) / sqrt(nw K L),
      word norm = sqrt(tau/nw),   u norm = sqrt(tau/(K L)),   tau = argmin H.

* Theorem 3 (type-II collapse, LayerNorm, any ``mu > 0``)::

      H*(t) = log(1 - K/nc^L + K/nc^L (1 + (nc-1) e^{-eta* t})^L) + lam/2 t^2,
      eta*  = nc/(nc-1) * sqrt(d/(K L)),
      u norm = tau*/sqrt(K L),   word representations have norm sqrt(d).

* Theorem 2 (type-III collapse, no LayerNorm, ``K = nc^L``): unknowns ``c, r_1..r_sc``::

      (lam r_b / (L c)) (nc - 1 + exp(nc/(nc-1) c r_b)) = mu_b      for every b     (7)
      sum_b (r_b / c)^2 = L nc^(L-1)                                                (8)

  with a unique solution when ``lam^2 < L/nc^(L+1) sum_b mu_b^2``.

Array layout of the exact-risk helpers: ``W`` is ``(nw, d)`` (row ``(a-1) sc + b`` is the embedding of
word ``b`` of concept ``a``, as in torch's ``nn.Embedding``) and ``U`` is ``(K, L, d)`` (``U[k, l]`` is
the paper's ``u_{k,l}``; reshaped to ``(K, L*d)`` it is the weight of the final ``nn.Linear``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

__all__ = [
    "H",
    "H_star",
    "dH",
    "dH_star",
    "thm1_eta",
    "thm3_eta",
    "thm1_tau",
    "thm1_norms",
    "thm3_tau",
    "thm3_u_norm",
    "thm2_lambda_bound",
    "thm2_residuals",
    "thm2_solve",
    "zero_threshold",
    "all_latents",
    "equiangular",
    "collapse_weights",
    "type3_weights",
    "layernorm",
    "ExactRisk",
    "collapse_risk_latents",
    "hamming_counts",
    "minimise_exact",
]


# ----------------------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------------------
def _check_int(name: str, v: int, lo: int) -> int:
    if isinstance(v, bool) or int(v) != v or int(v) < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {v!r}")
    return int(v)


def _check_common(nc: int, L: int, K: int, lam: float) -> tuple[int, int, int, float]:
    nc = _check_int("nc (number of concepts)", nc, 2)
    L = _check_int("L (sentence length)", L, 1)
    K = _check_int("K (number of classes)", K, 2)
    if K > nc**L:
        raise ValueError(f"K={K} distinct latent variables cannot exceed nc^L = {nc}^{L} = {nc**L}")
    lam = float(lam)
    if not (math.isfinite(lam) and lam > 0):
        raise ValueError(f"the weight decay lam must be a finite positive number, got {lam!r}")
    return nc, L, K, lam


def _check_nw(nw: int, nc: int) -> int:
    nw = _check_int("nw (number of words)", nw, 1)
    if nw % nc:
        raise ValueError(
            f"nw={nw} is not divisible by nc={nc}: every concept must hold nw/nc words"
        )
    return nw


def _check_latents(latents, nc) -> np.ndarray:
    """Latent variables as a (K, L) integer array whose concepts lie in ``0..nc-1``.

    ``nc`` is always given, never inferred: a concept that no latent variable happens to use would
    otherwise change the answer silently.
    """
    if nc is None:
        raise TypeError(
            "pass nc= (the number of concepts) explicitly: inferring it from the latents would "
            "silently change it when a concept is unused"
        )
    nc = _check_int("nc (number of concepts)", nc, 2)
    z = np.asarray(latents)
    if z.dtype.kind == "f":
        if not (np.isfinite(z).all() and np.array_equal(z, np.round(z))):
            raise ValueError("latents must be whole numbers")
    elif z.dtype.kind not in "iu":
        raise TypeError(f"latents must be an integer array, got dtype {z.dtype}")
    z = z.astype(np.int64)
    if z.ndim != 2 or z.shape[0] < 1 or z.shape[1] < 1:
        raise ValueError(f"latents must be a non-empty (K, L) array, got shape {z.shape}")
    if z.min() < 0 or z.max() >= nc:
        raise ValueError(
            f"latent concepts must lie in 0..{nc - 1} (nc={nc}); found {int(z.min())}..{int(z.max())}"
        )
    return z


def _check_mu(mu: Sequence[float] | np.ndarray) -> np.ndarray:
    m = np.asarray(mu, dtype=float)
    if m.ndim != 1 or m.size == 0:
        raise ValueError(
            f"mu must be a non-empty 1-D array of word frequencies, got shape {m.shape}"
        )
    if not np.all(np.isfinite(m)) or np.any(m <= 0):
        raise ValueError("every word frequency mu_beta must be finite and strictly positive")
    if abs(m.sum() - 1.0) > 1e-9:
        raise ValueError(f"the word frequencies mu must sum to 1 (they sum to {m.sum():.12g})")
    return m


# ----------------------------------------------------------------------------------------------
# Theorems 1 and 3: the scalar functions H and H*
# ----------------------------------------------------------------------------------------------
def _log_partition(eta_t: np.ndarray | float, nc: int, L: int, K: int) -> np.ndarray:
    """log(1 - a + a (1 + (nc-1) e^{-eta t})^L) with a = K/nc^L, computed stably for large eta t."""
    a = K / nc**L
    x = np.asarray(eta_t, dtype=float)
    s = (nc - 1) * np.exp(-x)
    return np.log1p(a * np.expm1(L * np.log1p(s)))


def _dlog_partition(eta_t: np.ndarray | float, nc: int, L: int, K: int) -> np.ndarray:
    """d/dx of _log_partition at x = eta t (a negative number)."""
    a = K / nc**L
    x = np.asarray(eta_t, dtype=float)
    s = (nc - 1) * np.exp(-x)
    g = np.exp((L - 1) * np.log1p(s))  # (1+s)^(L-1)
    return -a * L * g * s / (1.0 + a * np.expm1(L * np.log1p(s)))


def thm1_eta(nc: int, nw: int, L: int, K: int) -> float:
    """eta = nc/(nc-1) / sqrt(nw K L): the margin per unit Hamming distance per unit t (Theorem 1)."""
    return nc / (nc - 1) / math.sqrt(nw * K * L)


def thm3_eta(nc: int, L: int, K: int, d: int) -> float:
    """eta* = nc/(nc-1) sqrt(d/(K L)) (Theorem 3)."""
    return nc / (nc - 1) * math.sqrt(d / (K * L))


def H(t, nc: int, nw: int, L: int, K: int, lam: float):
    """Theorem 1's strictly convex function H(t); H(nw c^2) is the risk of a type-I collapse at scale c.

    ``t = ||W||_F^2 = ||U||_F^2``. Vectorised over ``t``.
    """
    nc, L, K, lam = _check_common(nc, L, K, lam)
    nw = _check_nw(nw, nc)
    t = np.asarray(t, dtype=float)
    return _log_partition(thm1_eta(nc, nw, L, K) * t, nc, L, K) + lam * t


def dH(t, nc: int, nw: int, L: int, K: int, lam: float):
    """H'(t)."""
    nc, L, K, lam = _check_common(nc, L, K, lam)
    nw = _check_nw(nw, nc)
    eta = thm1_eta(nc, nw, L, K)
    return eta * _dlog_partition(eta * np.asarray(t, dtype=float), nc, L, K) + lam


def H_star(t, nc: int, L: int, K: int, d: int, lam: float):
    """Theorem 3's strictly convex function H*(t); H*(c sqrt(KL)) is the risk of a type-II collapse.

    ``t = ||U||_F`` (not squared: the LayerNorm fixes the scale of the word representations).
    """
    nc, L, K, lam = _check_common(nc, L, K, lam)
    d = _check_int("d (embedding dimension)", d, 2)
    t = np.asarray(t, dtype=float)
    return _log_partition(thm3_eta(nc, L, K, d) * t, nc, L, K) + 0.5 * lam * t**2


def dH_star(t, nc: int, L: int, K: int, d: int, lam: float):
    """H*'(t)."""
    nc, L, K, lam = _check_common(nc, L, K, lam)
    d = _check_int("d (embedding dimension)", d, 2)
    eta = thm3_eta(nc, L, K, d)
    t = np.asarray(t, dtype=float)
    return eta * _dlog_partition(eta * t, nc, L, K) + lam * t


def _root_increasing(f, lo: float = 0.0, hi: float = 1.0) -> float:
    """Root of an increasing function with f(lo) < 0 < f(+inf), bracketing by doubling."""
    while f(hi) <= 0:
        lo, hi = hi, 2 * hi
        if hi > 1e300:  # pragma: no cover - would mean the derivative never turns positive
            raise RuntimeError("could not bracket the minimiser")
    return brentq(f, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)


def thm1_tau(nc: int, nw: int, L: int, K: int, lam: float) -> float:
    """tau = argmin_{t >= 0} H(t) (Theorem 1). Zero when lam is so large that H'(0) >= 0."""
    f = lambda t: float(dH(t, nc, nw, L, K, lam))  # noqa: E731
    if f(0.0) >= 0:
        return 0.0
    return _root_increasing(f)


def thm1_norms(nc: int, nw: int, L: int, K: int, lam: float) -> tuple[float, float]:
    """The predicted norms (||w_(a,b)||, ||u_(k,l)||) = (sqrt(tau/nw), sqrt(tau/(K L))) of Theorem 1."""
    tau = thm1_tau(nc, nw, L, K, lam)
    return math.sqrt(tau / nw), math.sqrt(tau / (K * L))


def thm3_tau(nc: int, L: int, K: int, d: int, lam: float) -> float:
    """tau* = argmin_{t >= 0} H*(t) (Theorem 3); always positive since H*'(0) < 0."""
    f = lambda t: float(dH_star(t, nc, L, K, d, lam))  # noqa: E731
    return _root_increasing(f)


def thm3_u_norm(nc: int, L: int, K: int, d: int, lam: float) -> float:
    """The predicted norm c = tau*/sqrt(K L) of every u_(k,l) for the LayerNorm network (Theorem 3)."""
    return thm3_tau(nc, L, K, d, lam) / math.sqrt(K * L)


# ----------------------------------------------------------------------------------------------
# Theorem 2: the system (7)-(8)
# ----------------------------------------------------------------------------------------------
def thm2_lambda_bound(mu: Sequence[float] | np.ndarray, nc: int, L: int) -> float:
    """The largest admissible weight decay: Theorem 2 needs lam < sqrt(L sum mu^2 / nc^(L+1))."""
    m = _check_mu(mu)
    nc = _check_int("nc (number of concepts)", nc, 2)
    L = _check_int("L (sentence length)", L, 1)
    return math.sqrt(L * float(np.sum(m**2)) / nc ** (L + 1))


def thm2_residuals(
    c: float, r: np.ndarray, mu: Sequence[float] | np.ndarray, nc: int, L: int, lam: float
) -> np.ndarray:
    """Residuals of (7) (one per word, relative to mu_b) and of (8) (relative), last entry."""
    m = np.asarray(mu, dtype=float)
    r = np.asarray(r, dtype=float)
    # in logs: at a tiny lam the factor exp(nc/(nc-1) c r) alone can overflow while the product is ~1
    log7 = np.log(lam * r / (L * c * m)) + np.logaddexp(math.log(nc - 1), nc / (nc - 1) * c * r)
    eq7 = np.expm1(log7)
    eq8 = np.sum((r / c) ** 2) / (L * nc ** (L - 1)) - 1.0
    return np.append(eq7, eq8)


def _phi(
    c: float, target: np.ndarray, nc: int, iters: int = 200, *, log: bool = False
) -> np.ndarray:
    """rho_b = phi_b(c): the root in x of g(c, x) = target_b, g(c,x) = x (1 + gam e^{(1+gam) c^2 x})/(1+gam).

    ``log=True`` returns log rho_b. Vectorised bisection on y = log x of
    h(y) = log g(c, e^y) - log target_b, which increases with slope >= 1. So [log t - h(log t) - 1, log t]
    brackets the root (g(c, x) >= x gives h(log t) >= 0); a bracket at most ~log t wide is used when
    log t >= 1 (see the code). The bisection in y resolves x to a *relative* precision near float64's
    rounding however small the root is against the target (a tiny weight decay makes the target 1e60
    and more while the root stays of order 1; a bisection in x itself stops at an absolute error of
    target * 2^-iters: a 6% error at lam = 1e-58).
    """
    gam = 1.0 / (nc - 1)
    log_t = np.log(np.asarray(target, dtype=np.float64))
    a = (1 + gam) * c * c

    def h(y):
        return y + np.logaddexp(0.0, math.log(gam) + a * np.exp(y)) - math.log1p(gam) - log_t

    hi = log_t.copy()
    lo = hi - h(hi) - 1.0  # always a bracket, but up to a * target wide
    # a tighter one when log t >= 1: log(1 + gam e^z) <= log(1 + gam) + z gives h(y) <= y + a e^y - log t,
    # which is <= 0 at y = min(log t / 2, log(log t / (2a)))
    with np.errstate(divide="ignore", invalid="ignore"):
        tight = np.minimum(0.5 * log_t, np.log(log_t / (2.0 * a)))
    lo = np.where((log_t >= 1.0) & np.isfinite(tight) & (tight > lo), tight, lo)
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        pos = h(mid) > 0
        hi = np.where(pos, mid, hi)
        lo = np.where(pos, lo, mid)
        if np.all(hi - lo <= 2e-16 * np.maximum(1.0, np.abs(hi))):
            break
    y = 0.5 * (lo + hi)
    return y if log else np.exp(y)


def thm2_solve(
    mu: Sequence[float] | np.ndarray, nc: int, L: int, lam: float
) -> tuple[float, np.ndarray]:
    """Solve Theorem 2's system (7)-(8) for (c, r): the norm c of every u_(k,l) and the per-frequency
    embedding norms r_b = ||w_(a,b)|| of a critical type-III collapse (``K = nc^L``, all latents).

    Raises ``ValueError`` when ``lam`` violates the theorem's bound ``lam^2 < L sum mu^2 / nc^(L+1)``
    (then only the trivial point W = U = 0 solves the critical-point equations in this family).
    """
    m = _check_mu(mu)
    nc = _check_int("nc (number of concepts)", nc, 2)
    L = _check_int("L (sentence length)", L, 1)
    lam = float(lam)
    if not (math.isfinite(lam) and lam > 0):
        raise ValueError(f"the weight decay lam must be a finite positive number, got {lam!r}")
    bound = thm2_lambda_bound(m, nc, L)
    if lam >= bound:
        raise ValueError(
            f"lam={lam:g} violates Theorem 2's bound lam < sqrt(L sum mu^2 / nc^(L+1)) = "
            f"{bound:.6g} (nc={nc}, L={L}); the system (7)-(8) has no non-trivial solution"
        )
    with np.errstate(over="ignore"):
        target = L * m / (lam * nc)
    need = L * nc ** (L - 1)

    def F(c: float) -> float:  # decreasing in c; F(0) > 0 by the bound
        return float(np.logaddexp.reduce(2.0 * _phi(c, target, nc, log=True))) - math.log(need)

    if not np.all(np.isfinite(target)):
        raise ValueError(
            f"lam={lam:g} is too small: L mu_b / (lam nc) overflows float64 (nc={nc}, L={L})"
        )
    hi = 1.0
    while F(hi) > 0:  # bracket the root; F decreases (its root grows only like sqrt(log(1/lam)))
        hi *= 2.0
        if hi > 1e150:  # pragma: no cover - unreachable for a finite target
            raise ValueError(f"lam={lam:g}: no c <= 1e150 brackets the root of Theorem 2's system")
    c = brentq(F, 0.0, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    r = c * _phi(c, target, nc)
    res = float(np.max(np.abs(thm2_residuals(c, r, m, nc, L, lam))))
    if not res < 1e-8:
        raise ArithmeticError(
            f"thm2_solve: the solution at lam={lam:g} leaves a relative residual of {res:.2g} in "
            "the system (7)-(8); it cannot be trusted"
        )
    return float(c), r


def zero_threshold(latents: np.ndarray, mu: Sequence[float] | np.ndarray, *, nc: int) -> float:
    """The exact weight decay at which W = U = 0 stops being the minimiser of the risk (5) of h.

    Write R(W, U) = g(W^T U_hat) + lam/2 (||W||^2 + ||U||^2) with g convex (appendix H). The origin is
    always critical; by the argument of appendix H (claims H and I) it is a global minimiser when
    ``lam >= ||grad g(0)||_op`` and not even a local one when ``lam < ||grad g(0)||_op``. At 0 every
    class has probability 1/K, so grad g(0) has blocks -(1/K) Q^T (Z_k - mean_j Z_j), and since
    Q Q^T = (sum mu^2) I this norm is ``sqrt(sum mu^2) sigma_max(Z_c) / K`` with Z_c the centred
    (nc x K L) concept matrix. For all latents (K = nc^L) it equals Theorem 2's bound
    sqrt(L sum mu^2 / nc^(L+1)); for K random latents it is close to sqrt(L sum mu^2 / (K nc)).
    """
    m = _check_mu(mu)
    z = _check_latents(latents, nc)
    K, L = z.shape
    onehot = np.eye(nc)[z]  # (K, L, nc)
    Zc = onehot - onehot.mean(0, keepdims=True)
    M = Zc.reshape(K * L, nc)
    smax = math.sqrt(max(np.linalg.eigvalsh(M.T @ M).max(), 0.0))
    return math.sqrt(float(np.sum(m**2))) * smax / K


# ----------------------------------------------------------------------------------------------
# collapse configurations and the exact risk
# ----------------------------------------------------------------------------------------------
def all_latents(nc: int, L: int) -> np.ndarray:
    """Every latent variable z in [nc]^L (0-based concepts), shape (nc^L, L), lexicographic order."""
    nc = _check_int("nc", nc, 2)
    L = _check_int("L", L, 1)
    return np.array(list(itertools.product(range(nc), repeat=L)), dtype=np.int64)


def hamming_counts(latents: np.ndarray) -> np.ndarray:
    """counts[k, r] = number of latents j with Hamming distance r to latent k (r = 0..L)."""
    z = np.asarray(latents)
    K, L = z.shape
    out = np.zeros((K, L + 1), dtype=np.int64)
    for k0 in range(0, K, 512):
        dist = (z[k0 : k0 + 512, None, :] != z[None, :, :]).sum(-1)
        for r in range(L + 1):
            out[k0 : k0 + 512, r] = (dist == r).sum(1)
    return out


def equiangular(
    nc: int, d: int, *, mean_zero: bool = False, rng: np.random.Generator | None = None
) -> np.ndarray:
    """A d x nc matrix F of equiangular columns: F 1 = 0, F^T F = nc/(nc-1) I - 1/(nc-1) 1 1^T.

    With ``mean_zero`` the columns are also orthogonal to 1_d (needs d >= nc). A random rotation is
    applied when ``rng`` is given.
    """
    nc = _check_int("nc", nc, 2)
    d = _check_int("d", d, 2)
    need = nc if mean_zero else nc - 1
    if d < need:
        raise ValueError(
            f"d={d} is too small for {nc} {'mean-zero ' if mean_zero else ''}equiangular vectors"
        )
    S = np.sqrt(nc / (nc - 1)) * (np.eye(nc) - 1.0 / nc)  # nc x nc, columns equiangular in R^nc
    # the columns of S span the (nc-1)-dimensional hyperplane orthogonal to 1: their coordinates C in an
    # orthonormal basis E of it, placed in nc-1 orthonormal directions of R^d (orthogonal to 1_d too if
    # mean_zero), so that F^T F = C^T C = S^T S
    E, _ = np.linalg.qr(S[:, : nc - 1])
    C = E.T @ S  # (nc-1) x nc
    G = rng.standard_normal((d, d)) if rng is not None else np.eye(d)
    if mean_zero:
        G = np.concatenate([np.ones((d, 1)), G], axis=1)
    Q, _ = np.linalg.qr(G)
    basis = Q[:, 1:nc] if mean_zero else Q[:, : nc - 1]
    return basis @ C


def layernorm(W):
    """The parameter-free LayerNorm of the paper, row-wise: (w - mean(w)) / std(w) (population std)."""
    import torch

    if isinstance(W, torch.Tensor):
        m = W.mean(-1, keepdim=True)
        c = W - m
        return c / torch.sqrt((c * c).mean(-1, keepdim=True))
    W = np.asarray(W, dtype=float)
    c = W - W.mean(-1, keepdims=True)
    return c / np.sqrt((c * c).mean(-1, keepdims=True))


def collapse_weights(
    F: np.ndarray,
    latents: np.ndarray,
    sc: int,
    *,
    word_norm: float,
    u_norm: float,
    layernorm: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Weights (W (nw, d), U (K, L, d)) in a type-I (``layernorm=False``) or type-II collapse.

    Type-I: w_(a,b) = word_norm f_a. Type-II: pass ``word_norm=sqrt(d)`` and mean-zero F, so that
    LayerNorm(w_(a,b)) = sqrt(d) f_a. In both, u_(k,l) = u_norm f_{z_k,l}.
    """
    F = np.asarray(F, dtype=float)
    z = np.asarray(latents)
    nc = F.shape[1]
    concept_of_word = np.repeat(np.arange(nc), sc)
    W = word_norm * F[:, concept_of_word].T
    U = u_norm * np.transpose(F[:, z], (1, 2, 0))
    if layernorm and np.abs(F.sum(0)).max() > 1e-10 * max(1.0, np.abs(F).max()):
        raise ValueError(
            "a type-II collapse needs mean-zero equiangular vectors (columns of F summing to 0)"
        )
    return W, U


def type3_weights(
    F: np.ndarray, latents: np.ndarray, r: np.ndarray, c: float
) -> tuple[np.ndarray, np.ndarray]:
    """Weights in a type-III collapse: w_(a,b) = r_b f_a, u_(k,l) = c f_{z_k,l}."""
    F = np.asarray(F, dtype=float)
    r = np.asarray(r, dtype=float)
    nc = F.shape[1]
    W = (F.T[:, None, :] * r[None, :, None]).reshape(nc * r.size, F.shape[0])
    U = c * np.transpose(F[:, np.asarray(latents)], (1, 2, 0))
    return W, U


@dataclass
class ExactRisk:
    """The true regularised risk (5) / (9), computed exactly by enumerating every sentence.

    For each class k and each word choice beta in [sc]^L the sentence x_{k,beta} has probability
    prod_l mu_{beta_l}; the risk averages the cross-entropy over classes (1/K) and sentences
    (probability weights), then adds lam/2 (||W||^2 + ||U||^2) (no LayerNorm) or lam/2 ||U||^2 (with
    LayerNorm). The cost is K * sc^L sentences times K logits, so keep nc, sc, L small.

    The logits use a score table S[l, j, v] = <u_(j,l), v_word> gathered along the sentence, which is
    the network's forward pass h(x) = U vec(W zeta(x)) written for all sentences at once.
    """

    latents: np.ndarray
    mu: np.ndarray
    lam: float
    layernorm: bool = False
    device: str = "cpu"
    nc: int | None = None

    def __post_init__(self) -> None:
        import torch

        z = _check_latents(self.latents, self.nc)
        self.K, self.L = z.shape
        if len({tuple(row) for row in z.tolist()}) != self.K:
            raise ValueError("the latent variables must be mutually distinct")
        self.mu = _check_mu(self.mu)
        self.lam = float(self.lam)
        if not (math.isfinite(self.lam) and self.lam > 0):
            raise ValueError(f"lam must be positive, got {self.lam!r}")
        if self.nc is None:
            raise ValueError("nc (the number of concepts) must be given")
        self.nc = int(self.nc)
        self.sc = self.mu.size
        self.nw = self.nc * self.sc
        n_sent = self.K * self.sc**self.L
        if n_sent * self.K > 6e8:
            raise ValueError(
                f"{n_sent} sentences x {self.K} classes is too many to enumerate exactly"
            )
        betas = np.array(
            list(itertools.product(range(self.sc), repeat=self.L)), dtype=np.int64
        )  # (B, L)
        logp = np.log(self.mu)[betas].sum(1)  # (B,)
        words = (z[:, None, :] * self.sc + betas[None, :, :]).reshape(-1, self.L)  # (K*B, L)
        labels = np.repeat(np.arange(self.K), betas.shape[0])
        dev = torch.device(self.device)
        self._words = torch.as_tensor(words, device=dev)
        self._labels = torch.as_tensor(labels, device=dev)
        self._weights = torch.as_tensor(
            np.tile(np.exp(logp), self.K) / self.K, device=dev, dtype=torch.float64
        )

    def data_risk(self, W, U):
        """The unregularised risk R0 (torch float64; differentiable)."""
        import torch

        V = layernorm(W) if self.layernorm else W
        S = torch.einsum("jld,vd->ljv", U, V)  # (L, K, nw)
        logits = S[0][:, self._words[:, 0]]
        for l in range(1, self.L):
            logits = logits + S[l][:, self._words[:, l]]
        logits = logits.T  # (N, K)
        ce = torch.logsumexp(logits, 1) - logits.gather(1, self._labels[:, None])[:, 0]
        return (self._weights * ce).sum()

    def __call__(self, W, U):
        """The regularised risk R (no LayerNorm) or R* (LayerNorm) at (W, U); numpy or torch inputs."""
        import torch

        to = lambda a: (
            a
            if isinstance(a, torch.Tensor)
            else torch.as_tensor(  # noqa: E731
                np.asarray(a, dtype=float), device=self._words.device
            )
        )
        W, U = to(W), to(U)
        reg = (U * U).sum() if self.layernorm else (W * W).sum() + (U * U).sum()
        return self.data_risk(W, U) + 0.5 * self.lam * reg


def collapse_risk_latents(latents: np.ndarray, t, *, nc: int, nw: int, lam: float) -> np.ndarray:
    """Exact regularised risk of a type-I collapse at scale t (||W||^2 = ||U||^2 = t) for ANY latents.

    In a type-I collapse the margin between a sentence of class k and class j is eta t dist(z_j, z_k)
    for every sentence, so the risk needs no sampling:
    R(t) = (1/K) sum_k log(1 + sum_{j != k} exp(-eta t dist(z_j, z_k))) + lam t.
    Under the symmetry assumption this is H(t); for random latents it is not exactly.
    """
    z = _check_latents(latents, nc)
    nw = _check_int("nw (number of words)", nw, 1)
    if nw % nc:
        raise ValueError(
            f"nw={nw} is not divisible by nc={nc}: every concept must hold nw/nc words"
        )
    K, L = z.shape
    counts = hamming_counts(z)[:, 1:]  # (K, L), r = 1..L
    eta = thm1_eta(nc, nw, L, K)
    t = np.atleast_1d(np.asarray(t, dtype=float))
    r = np.arange(1, L + 1)
    out = np.empty_like(t)
    for i, ti in enumerate(t):
        out[i] = np.mean(np.log1p(counts @ np.exp(-eta * ti * r))) + lam * ti
    return out


def minimise_exact(
    risk: ExactRisk,
    d: int,
    *,
    seed: int,
    init_scale: float = 0.5,
    max_iter: int = 4000,
    tol: float = 1e-13,
    polish_iter: int = 300,
    threads: int | None = None,
) -> dict:
    """Minimise the exact risk from a random start with float64 L-BFGS (strong Wolfe line search),
    then polish with up to ``polish_iter`` L-BFGS steps without line search (see the comment inside).

    Returns a dict with the final risk, the gradient norm, W (nw, d) and U (K, L, d) as numpy arrays,
    and the number of risk evaluations. On the CPU the small problems run fastest on one thread
    (``threads``, default 1 for problems under ~10^6 logits); the previous setting is restored.
    """
    import torch

    n_logits = risk._words.shape[0] * risk.K
    if threads is None:
        threads = (
            1 if (risk._words.device.type == "cpu" and n_logits < 1e6) else torch.get_num_threads()
        )
    old = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        return _minimise(risk, d, seed, init_scale, max_iter, tol, polish_iter)
    finally:
        torch.set_num_threads(old)


def _minimise(
    risk: ExactRisk,
    d: int,
    seed: int,
    init_scale: float,
    max_iter: int,
    tol: float,
    polish_iter: int,
) -> dict:
    import torch

    g = torch.Generator().manual_seed(int(seed))
    dev = risk._words.device
    W = (
        (init_scale * torch.randn(risk.nw, d, generator=g, dtype=torch.float64))
        .to(dev)
        .requires_grad_(True)
    )
    U = (
        (init_scale * torch.randn(risk.K, risk.L, d, generator=g, dtype=torch.float64))
        .to(dev)
        .requires_grad_(True)
    )
    opt = torch.optim.LBFGS(
        [W, U],
        lr=1.0,
        max_iter=max_iter,
        history_size=50,
        tolerance_grad=tol,
        tolerance_change=1e-16,
        line_search_fn="strong_wolfe",
    )
    state = {"n": 0}

    def closure_for(optimiser):
        def closure():
            optimiser.zero_grad()
            f = risk(W, U)
            f.backward()
            state["n"] += 1
            return f

        return closure

    opt.step(closure_for(opt))

    def grad_norm() -> tuple[float, float]:
        for p in (W, U):
            p.grad = None
        f = risk(W, U)
        f.backward()
        assert W.grad is not None and U.grad is not None
        return float(f.detach()), math.sqrt(float((W.grad**2).sum() + (U.grad**2).sum()))

    # Polish. Near the minimum a line search on the risk stalls at round-off (a step lowers R by about
    # |grad|^2 / curvature, ~1e-16 when |grad| ~ 1e-9 along the weak directions whose curvature is lam).
    # Fresh L-BFGS steps of unit length without a line search use the gradient only and keep converging;
    # they are kept only if they lower the gradient without raising the risk beyond round-off.
    f1, g1 = grad_norm()
    keep = (W.detach().clone(), U.detach().clone())
    if polish_iter > 0 and g1 > tol:
        opt2 = torch.optim.LBFGS(
            [W, U],
            lr=1.0,
            max_iter=polish_iter,
            history_size=50,
            tolerance_grad=tol,
            tolerance_change=0.0,
        )
        opt2.step(closure_for(opt2))
        f2, g2 = grad_norm()
        if not (math.isfinite(f2) and g2 < g1 and f2 <= f1 + 1e-13 * max(1.0, abs(f1))):
            with torch.no_grad():
                W.copy_(keep[0])
                U.copy_(keep[1])
    opt.zero_grad()
    f_t = risk(W, U)
    f_t.backward()
    f = float(f_t.detach())
    assert W.grad is not None and U.grad is not None
    gn = math.sqrt(float((W.grad**2).sum() + (U.grad**2).sum()))
    return {
        "risk": f,
        "grad_norm": gn,
        "W": W.detach().cpu().numpy(),
        "U": U.detach().cpu().numpy(),
        "evals": state["n"],
    }
