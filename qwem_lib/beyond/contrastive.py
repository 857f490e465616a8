"""Contrastive learning as matrix factorisation (Part V, chapter 52; the QWEM paper's Appendix D.2).

Two *views* ``x, x'`` of one sample (augmentations) are a positive pair; two views of independent samples
are a negative pair. An encoder maps a view to an embedding ``z``; with ``s = zᵀz'`` a contrastive loss of
the form ``E₊ f⁺(s) + E₋ f⁻(s)`` pulls positives together and pushes negatives apart. For a linear encoder
``z = Wᵀx`` (``W`` of shape n×d, as the book's embeddings are V×d) ``s = xᵀ W Wᵀ x'``: with one-hot inputs it
is word2vec's ``w_iᵀ w_j``.

The moments that matter (:func:`view_moments`): ``Σ = E[x xᵀ]`` (of either view; the pair distribution is
symmetrised) and ``C = E₊[x x'ᵀ]``. The *augmentation kernel* is ``K = Σ^{-1/2} C Σ^{-1/2}``
(:func:`augmentation_kernel`). For the **spectral contrastive loss** ``−2 E₊ s + E₋ s²`` and negatives drawn
from the product of the view marginals, ``E₋ s² = tr(A Σ A Σ)`` with ``A = WWᵀ`` for *any* data, so in
whitened coordinates (Σ = I) the loss is exactly ``‖WWᵀ − K‖²_F − ‖K‖²_F``: QWEM's factorisation with
``M* = K``, and Lemma 3.1 applies with λ_k the eigenvalues of K (paper time t = 8 η × steps for gradient
descent with learning rate η). Other losses (logistic, InfoNCE) agree with it to first order in s, which
fixes the early growth rates, not the plateaus.

Contents: :class:`GaussianAugmentation` (a data model whose kernel is known in closed form), moments,
kernel and whitening, the three losses on samples (:func:`contrastive_loss`, torch), the spectral loss from
moments (:func:`spectral_loss_moments`), encoders (:func:`make_encoder`), a full-batch trainer
(:func:`train_contrastive`), the aligned reduced dynamics of the quadratic losses
(:func:`aligned_contrastive_dynamics`) and the Hermite eigenfunctions of the Gaussian augmentation
operator (:func:`hermite_eigenfunctions`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..book import checks

__all__ = [
    "GaussianAugmentation",
    "view_moments",
    "augmentation_kernel",
    "whiten_views",
    "spectral_loss_moments",
    "contrastive_loss",
    "make_encoder",
    "train_contrastive",
    "aligned_contrastive_dynamics",
    "hermite_eigenfunctions",
]

LossKind = Literal["spectral", "logistic", "infonce"]


def _as_matrix(name: str, X: Any, ncols: int | None = None) -> np.ndarray:
    X = checks.finite_array(name, X, ndim=2)
    if ncols is not None and X.shape[1] != ncols:
        raise ValueError(f"{name} must be a 2-D array with {ncols} columns, got {X.shape}")
    return X


@dataclass(frozen=True)
class GaussianAugmentation:
    """Views ``x_v = x₀ + ξ_v`` of a base sample ``x₀ ~ N(0, U diag(signal) Uᵀ)``, with independent
    augmentation noise ``ξ_v ~ N(0, U diag(noise) Uᵀ)``.

    Then ``Σ = U diag(signal + noise) Uᵀ``, ``C = U diag(signal) Uᵀ`` and the kernel
    ``K = U diag(signal / (signal + noise)) Uᵀ``: a direction is learnable in proportion to the share of its
    variance that the augmentation leaves intact. ``U`` is n×n orthogonal.
    """

    U: np.ndarray
    signal: np.ndarray
    noise: np.ndarray

    def __post_init__(self) -> None:
        U = _as_matrix("U", self.U)
        n = U.shape[0]
        if U.shape != (n, n) or not np.allclose(U.T @ U, np.eye(n), atol=1e-10):
            raise ValueError("U must be a square orthogonal matrix")
        for name in ("signal", "noise"):
            v = checks.positive_array(name, getattr(self, name), strict=False, ndim=1)
            if v.shape != (n,):
                raise ValueError(
                    f"{name} must be {n} finite non-negative variances, got shape {v.shape}"
                )
        if np.any(np.asarray(self.signal) + np.asarray(self.noise) <= 0):
            raise ValueError("every direction needs positive total variance")

    @property
    def kappa(self) -> np.ndarray:
        """Eigenvalues of K, in the order of the columns of U."""
        s, e = np.asarray(self.signal, float), np.asarray(self.noise, float)
        return s / (s + e)

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """The population ``(Σ, C)``."""
        U = np.asarray(self.U, float)
        s, e = np.asarray(self.signal, float), np.asarray(self.noise, float)
        return (U * (s + e)) @ U.T, (U * s) @ U.T

    def kernel(self) -> np.ndarray:
        """The population ``K = Σ^{-1/2} C Σ^{-1/2}``."""
        U = np.asarray(self.U, float)
        return (U * self.kappa) @ U.T

    def sample(self, N: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``N`` positive pairs ``(X1, X2)``, each N×n."""
        if not isinstance(N, (int, np.integer)) or N < 2:
            raise ValueError(f"N must be an integer >= 2, got {N!r}")
        U = np.asarray(self.U, float)
        n = U.shape[0]
        x0 = rng.standard_normal((N, n)) * np.sqrt(self.signal) @ U.T
        x1 = x0 + rng.standard_normal((N, n)) * np.sqrt(self.noise) @ U.T
        x2 = x0 + rng.standard_normal((N, n)) * np.sqrt(self.noise) @ U.T
        return x1, x2


def view_moments(X1: Any, X2: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(Σ̂, Ĉ)`` of N positive pairs, symmetrised over the two views.

    ``Σ̂ = (X1ᵀX1 + X2ᵀX2)/(2N)`` is the second moment of the pooled views (the negatives' marginal) and
    ``Ĉ = (X1ᵀX2 + X2ᵀX1)/(2N)`` the positive cross moment (pairs counted in both orders).
    """
    X1 = _as_matrix("X1", X1)
    X2 = _as_matrix("X2", X2, X1.shape[1])
    if X1.shape != X2.shape:
        raise ValueError(f"X1 and X2 must have the same shape, got {X1.shape} and {X2.shape}")
    N = X1.shape[0]
    return (X1.T @ X1 + X2.T @ X2) / (2 * N), (X1.T @ X2 + X2.T @ X1) / (2 * N)


def augmentation_kernel(Sigma: Any, C: Any) -> np.ndarray:
    """``K = Σ^{-1/2} C Σ^{-1/2}`` (symmetric); Σ must be symmetric positive definite, C symmetric."""
    Sigma = _as_matrix("Sigma", Sigma)
    C = _as_matrix("C", C, Sigma.shape[1])
    if Sigma.shape[0] != Sigma.shape[1] or C.shape != Sigma.shape:
        raise ValueError("Sigma and C must be square matrices of the same size")
    if not (np.allclose(Sigma, Sigma.T) and np.allclose(C, C.T)):
        raise ValueError("Sigma and C must be symmetric")
    ev, Ev = np.linalg.eigh(Sigma)
    if ev.min() <= 1e-12 * max(ev.max(), 1e-300):
        raise ValueError("Sigma must be positive definite")
    R = (Ev / np.sqrt(ev)) @ Ev.T
    K = R @ C @ R
    return (K + K.T) / 2


def whiten_views(X1: Any, X2: Any) -> tuple[np.ndarray, np.ndarray]:
    """Centre both views on their pooled mean and whiten them with the pooled ``Σ̂^{-1/2}`` (ZCA), so that
    the returned views have ``Σ̂ = I`` exactly and ``Ĉ`` equals the sample kernel."""
    X1 = _as_matrix("X1", X1)
    X2 = _as_matrix("X2", X2, X1.shape[1])
    mu = (X1.mean(axis=0) + X2.mean(axis=0)) / 2
    X1, X2 = X1 - mu, X2 - mu
    Sig, _ = view_moments(X1, X2)
    ev, Ev = np.linalg.eigh(Sig)
    if ev.min() <= 1e-12 * ev.max():
        raise ValueError("the views' second moment is singular; cannot whiten")
    R = (Ev / np.sqrt(ev)) @ Ev.T
    return X1 @ R, X2 @ R


def spectral_loss_moments(W: Any, Sigma: Any, C: Any) -> float:
    """The spectral contrastive loss ``−2 E₊ s + E₋ s²`` of the linear encoder ``W`` (n×d) from the moments:
    ``−2 tr(Wᵀ C W) + ‖Wᵀ Σ W‖²_F``."""
    W = _as_matrix("W", W)
    Sigma = _as_matrix("Sigma", Sigma, W.shape[0])
    C = _as_matrix("C", C, W.shape[0])
    for name, X in (("Sigma", Sigma), ("C", C)):
        if X.shape[0] != X.shape[1]:
            raise ValueError(f"{name} must be a square n × n matrix, got shape {X.shape}")
    G = W.T @ Sigma @ W
    return float(-2.0 * np.trace(W.T @ C @ W) + (G * G).sum())


def contrastive_loss(Z1, Z2, kind: LossKind):
    """A contrastive loss of the embeddings ``Z1, Z2`` (torch tensors N×d) of N positive pairs.

    Negatives are drawn from the product of the pooled marginal of the 2N embeddings, all (2N)² pairs:

    * ``"spectral"``: ``−2 mean_a z1_a·z2_a + mean_{u,v} (z_u·z_v)²``, the second term evaluated exactly as
      ``‖ZᵀZ/(2N)‖²_F``;
    * ``"logistic"``: ``mean_a softplus(−z1_a·z2_a) + mean_{u,v} softplus(z_u·z_v)`` (word2vec's loss with
      one negative per positive, in expectation);
    * ``"infonce"``: ``−mean_a [z1_a·z2_a − logsumexp_b z1_a·z2_b]``, symmetrised over the two views and
      minus log N (SimCLR's loss with the other view of the batch as candidates, temperature 1), so that it
      is 0 at Z = 0 like the others up to constants.
    """
    import torch

    if kind not in ("spectral", "logistic", "infonce"):
        raise ValueError(f"kind must be 'spectral', 'logistic' or 'infonce', got {kind!r}")
    for name, Z in (("Z1", Z1), ("Z2", Z2)):
        if not torch.is_tensor(Z) or not torch.is_floating_point(Z):
            raise checks.ArgumentTypeError(
                f"{name} must be a floating-point torch tensor, got {type(Z)}"
            )
        if not bool(torch.isfinite(Z).all()):
            raise ValueError(f"{name} must hold finite numbers, got NaN or infinite entries")
    if Z1.shape != Z2.shape or Z1.ndim != 2 or Z1.shape[0] < 2:
        raise ValueError(
            f"Z1 and Z2 must be N×d tensors of the same shape, N >= 2, got {tuple(Z1.shape)}, "
            f"{tuple(Z2.shape)}"
        )
    N = Z1.shape[0]
    pos = (Z1 * Z2).sum(dim=1)
    if kind == "spectral":
        Z = torch.cat([Z1, Z2])
        G = Z.T @ Z / (2 * N)
        return -2.0 * pos.mean() + (G * G).sum()
    if kind == "logistic":
        Z = torch.cat([Z1, Z2])
        return (
            torch.nn.functional.softplus(-pos).mean() + torch.nn.functional.softplus(Z @ Z.T).mean()
        )
    if kind == "infonce":
        S = Z1 @ Z2.T
        lse = 0.5 * (torch.logsumexp(S, dim=1) + torch.logsumexp(S, dim=0))
        return (lse - pos).mean() - math.log(N)
    raise ValueError(f"kind must be 'spectral', 'logistic' or 'infonce', got {kind!r}")


def make_encoder(n: int, d: int, *, hidden: int | None = None, init_scale: float, seed: int):
    """A torch encoder in float64: linear ``z = Wᵀx`` (``hidden=None``; ``W`` entries N(0, init_scale²)) or a
    two-layer ReLU network ``z = W₂ᵀ relu(W₁ᵀx + b₁) + b₂`` whose first layer has PyTorch's default
    initialisation and whose output layer (``W₂``, ``b₂``) starts at N(0, init_scale²): a small readout on
    random ReLU features, so that the small-initialisation regime is that of the output."""
    import torch

    n = checks.positive_int("n", n)
    d = checks.positive_int("d", d)
    if hidden is not None:
        hidden = checks.positive_int("hidden", hidden)
    init_scale = checks.positive("init_scale", init_scale)
    seed = checks.nonnegative_int("seed", seed)
    g = torch.Generator().manual_seed(int(seed))
    if hidden is None:
        lin = torch.nn.Linear(n, d, bias=False).double()
        with torch.no_grad():
            lin.weight.copy_(init_scale * torch.randn(d, n, generator=g, dtype=torch.float64))
        return lin
    torch.manual_seed(int(seed))
    first = torch.nn.Linear(n, hidden).double()
    out = torch.nn.Linear(hidden, d).double()
    with torch.no_grad():
        out.weight.copy_(init_scale * torch.randn(d, hidden, generator=g, dtype=torch.float64))
        out.bias.copy_(init_scale * torch.randn(d, generator=g, dtype=torch.float64))
    return torch.nn.Sequential(first, torch.nn.ReLU(), out)


def train_contrastive(
    X1: Any,
    X2: Any,
    encoder,
    kind: LossKind,
    *,
    lr: float,
    steps: int,
    record_every: int,
    probe: Callable[[Any], np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Full-batch gradient descent (no noise: every step uses all N pairs and all negatives) on
    :func:`contrastive_loss`. Returns ``dict(step, loss, probe)``: the step numbers recorded (0 and every
    ``record_every``), the loss there, and ``probe(encoder)`` stacked (default: the linear encoder's W, n×d).
    """
    import torch

    X1 = _as_matrix("X1", X1)
    X2 = _as_matrix("X2", X2, X1.shape[1])
    if X1.shape != X2.shape or X1.shape[0] < 2:
        raise ValueError(
            f"X1 and X2 must hold the same N >= 2 pairs, got shapes {X1.shape} and {X2.shape}"
        )
    if kind not in ("spectral", "logistic", "infonce"):
        raise ValueError(f"kind must be 'spectral', 'logistic' or 'infonce', got {kind!r}")
    lr = checks.positive("lr", lr)
    steps = checks.positive_int("steps", steps)
    record_every = checks.positive_int("record_every", record_every)
    t1 = torch.from_numpy(X1)
    t2 = torch.from_numpy(X2)
    if probe is None:

        def probe(enc):
            return enc.weight.detach().numpy().T.copy()

    opt = torch.optim.SGD(encoder.parameters(), lr=lr)
    rec_step, rec_loss, rec_probe = [], [], []
    for step in range(int(steps) + 1):
        loss = contrastive_loss(encoder(t1), encoder(t2), kind)
        if step % record_every == 0 or step == steps:
            rec_step.append(step)
            rec_loss.append(float(loss.detach()))
            with torch.no_grad():
                rec_probe.append(np.asarray(probe(encoder)))
        if step == steps:
            break
        if not torch.isfinite(loss):
            raise FloatingPointError(f"the loss diverged at step {step}; lower the learning rate")
        opt.zero_grad()
        loss.backward()
        opt.step()
    return dict(step=np.array(rec_step), loss=np.array(rec_loss), probe=np.stack(rec_probe))


def aligned_contrastive_dynamics(
    kappa: Any, a0: Any, t: Any, kind: Literal["spectral", "logistic_quartic", "infonce_quadratic"]
) -> np.ndarray:
    """``a_k(t) = s_k²(t)`` for a linear encoder aligned with K's eigenvectors, whitened Gaussian views, in
    the paper's time (gradient flow ``dW/dt = −⅛ ∇L``, i.e. t = 8 η × steps of gradient descent).

    * ``"spectral"``: ``L = Σ_k (a_k² − 2κ_k a_k)``, so ``ȧ_k = a_k(κ_k − a_k)``: Lemma 3.1 exactly.
    * ``"infonce_quadratic"``: InfoNCE to second order in s, ``−tr(AK) + ½‖A‖²``: ``ȧ_k = ½a_k(κ_k − a_k)``.
    * ``"logistic_quartic"``: the logistic loss to second order in s, with the Gaussian fourth moments
      ``E₊s² = (Σ_j κ_j a_j)² + Σ_j a_j² (1 + κ_j²)`` and ``E₋s² = Σ_j a_j²``: the modes are coupled through
      ``Σ_j κ_j a_j``; ``ȧ_k = a_k[κ_k/4 − a_k/4 − κ_k Σ_j κ_j a_j/8 − a_k κ_k²/8]``.

    Returns shape (T, d). The two quadratic-order forms are what the reduction to factorisation predicts.
    """
    from scipy.integrate import solve_ivp

    kappa = checks.finite_array("kappa", kappa, ndim=1)
    a0 = checks.positive_array("a0", a0, ndim=1)
    if a0.shape != kappa.shape:
        raise ValueError(f"a0 must have kappa's length {kappa.size}, got shape {a0.shape}")
    t = checks.increasing("t", t)
    if t.size < 2 or t[0] != 0:
        raise ValueError("t must be an increasing grid of at least two times starting at 0")
    if kind in ("spectral", "infonce_quadratic"):
        from ..qwem.theory import aligned_sigmoid

        c = 1.0 if kind == "spectral" else 0.5
        return np.asarray(aligned_sigmoid(kappa[None, :], a0[None, :], c * t[:, None]))
    if kind != "logistic_quartic":
        raise ValueError(f"unknown kind {kind!r}")

    def rhs(_, y):
        a = np.exp(y)  # integrate log a for accuracy over many decades
        return kappa / 4 - a / 4 - kappa * (kappa @ a) / 8 - a * kappa**2 / 8

    sol = solve_ivp(
        rhs, (0.0, float(t[-1])), np.log(a0), t_eval=t, rtol=1e-10, atol=1e-12, method="DOP853"
    )
    if not sol.success:
        raise RuntimeError(sol.message)
    return np.exp(sol.y.T)


def hermite_eigenfunctions(
    Y: Any, kappa: Any, max_degree: int = 2
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Eigenfunctions of the Gaussian augmentation operator ``(Tf)(y) = E[f(y') | y]`` evaluated on samples.

    In whitened coordinates ``y = Uᵀx`` along K's eigenvectors, ``y'`` given ``y`` is N(κ ⊙ y, diag(1 − κ²)),
    and T's eigenfunctions are the products of normalised probabilists' Hermite polynomials
    ``He_m(y_k)/√m!`` with eigenvalues ``Π_k κ_k^{m_k}`` (Mehler's formula). Returns ``(Phi, names, eig)`` for
    all products of total degree 1..``max_degree`` (≤ 2): columns of ``Phi`` (N × #functions) sorted by
    decreasing eigenvalue.
    """
    Y = _as_matrix("Y", Y)
    kappa = checks.finite_array("kappa", kappa, ndim=1)
    if kappa.shape != (Y.shape[1],):
        raise ValueError(
            f"kappa must have one entry per column of Y ({Y.shape[1]}), got {kappa.shape}"
        )
    if np.any(np.abs(kappa) > 1):
        raise ValueError(
            "kappa must hold correlations in [-1, 1] (the augmentation kernel's eigenvalues)"
        )
    max_degree = checks.integer("max_degree", max_degree, low=1, high=2)
    cols, names, eig = [], [], []
    n = Y.shape[1]
    for k in range(n):
        cols.append(Y[:, k])
        names.append(f"y{k + 1}")
        eig.append(kappa[k])
    if max_degree == 2:
        for k in range(n):
            cols.append((Y[:, k] ** 2 - 1) / math.sqrt(2))
            names.append(f"He2(y{k + 1})")
            eig.append(kappa[k] ** 2)
            for j in range(k + 1, n):
                cols.append(Y[:, k] * Y[:, j])
                names.append(f"y{k + 1}·y{j + 1}")
                eig.append(kappa[k] * kappa[j])
    order = np.argsort(-np.array(eig), kind="stable")
    Phi = np.stack(cols, axis=1)[:, order]
    return Phi, [names[i] for i in order], np.array(eig)[order]
