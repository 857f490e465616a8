"""Gradient noise of minibatch SGD (Part II): how much of a sampled gradient is noise.

:func:`split_gradient_noise` splits the minibatch gradient of a run into its expectation and the noise around
it; :func:`sampled_gradient_noise` estimates the noise's size from repeated minibatches (chapter 27).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..book import checks
from .pairs import batch_loss_grad, statistics

__all__ = [
    "GradientNoise",
    "split_gradient_noise",
    "sampled_gradient_noise",
]


@dataclass
class GradientNoise:
    """The noise of one minibatch gradient of QWEM's split estimator at a fixed ``W``
    (:func:`split_gradient_noise`, exact; :func:`sampled_gradient_noise`, measured).

    ``noise = E‖g_B − g‖²_F`` over the draw of one minibatch of ``batch`` positive and ``batch`` negative
    pairs, ``signal = ‖g‖²_F`` with ``g = (WWᵀ − M*)W`` the exact gradient, ``relative = noise/signal``;
    the ``*_top`` fields are the same after projecting the gradients on the columns of ``basis`` (NaN
    without one). ``noise_se`` / ``noise_top_se``: standard errors of a measured value (0 for the exact
    one)."""

    noise: float
    signal: float
    relative: float
    noise_top: float
    signal_top: float
    relative_top: float
    batch: int
    noise_se: float = 0.0
    noise_top_se: float = 0.0


def _check_noise_inputs(
    W: Any, batch: Any, basis: Any
) -> tuple[np.ndarray, int, np.ndarray | None]:
    W = checks.finite_array("W", W, ndim=2)
    batch = checks.positive_int("batch", batch)
    Q = None
    if basis is not None:
        Q = checks.finite_array("basis", basis, ndim=2)
        if Q.shape[0] != W.shape[0]:
            raise ValueError(f"basis must be V × r with V = {W.shape[0]}, got shape {Q.shape}")
        if not np.allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-8):
            raise ValueError("basis must have orthonormal columns")
    return W, int(batch), Q


def split_gradient_noise(
    P_joint: np.ndarray,
    P_unigram: np.ndarray,
    W: np.ndarray,
    *,
    batch: int,
    acceptance: float,
    basis: np.ndarray | None = None,
    block: int = 1024,
) -> GradientNoise:
    """The exact variance of QWEM's minibatch gradient (the split estimator of :func:`train_pairs`) at ``W``.

    One positive draw ``(a, b)`` has probability ``α P_ab`` (``α`` = ``acceptance``, the sampler's share of
    in-vocabulary pairs) and adds ``−(Ψ_ab/α)(e_a w_bᵀ + e_b w_aᵀ)/B`` to the gradient; one negative draw
    has probability ``P_aP_b`` and adds ``+Ψ_ab(e_a w_bᵀ + e_b w_aᵀ)/B``; all ``2B`` draws are independent.
    So ``E‖g_B − g‖² = (1/B)[Σ_ab C_ab ‖Rᵀ(e_a w_bᵀ + e_b w_aᵀ)‖² − ‖2AW‖² − ‖2NW‖²]`` with
    ``C = Ψ²(P/α + P_aP_b)``, ``A = ΨP``, ``N = ΨP_aP_b`` and ``R`` the projection (identity, or ``basis``):
    ``‖e_a w_bᵀ + e_b w_aᵀ‖² = ‖w_a‖² + ‖w_b‖²`` for ``a ≠ b`` and ``4‖w_a‖²`` for ``a = b``. The V × V
    tables are built ``block`` rows at a time (memory ``O(block · V)``). ``basis`` (V × r, orthonormal
    columns, e.g. M*'s top eigenvectors) gives the noise and signal inside its span as well.
    """
    W, batch, Q = _check_noise_inputs(W, batch, basis)
    P, pu = statistics(P_joint, P_unigram)
    V = W.shape[0]
    if P.shape != (V, V):
        raise ValueError(f"P_joint of shape {P.shape} does not match W of shape {W.shape}")
    alpha = checks.real("acceptance", acceptance, low=0, high=1, low_open=True)
    block = checks.positive_int("block", block)
    n = (W * W).sum(1)
    AW = np.empty_like(W)
    NW = np.empty_like(W)
    Cn = np.empty(V)
    Cdiag = np.empty(V)
    Z = None if Q is None else (Q[:, :, None] * W[:, None, :]).reshape(V, -1)
    zCz = 0.0
    for i0 in range(0, V, int(block)):
        i1 = min(V, i0 + int(block))
        Pb = P[i0:i1]
        pp = pu[i0:i1, None] * pu[None, :]
        psi = 1.0 / (Pb + pp)
        AW[i0:i1] = (Pb * psi) @ W
        NW[i0:i1] = (pp * psi) @ W
        C = (Pb / alpha + pp) * psi * psi
        Cn[i0:i1] = C @ n
        Cdiag[i0:i1] = C[np.arange(i1 - i0), np.arange(i0, i1)]
        if Z is not None:
            zCz += float((Z[i0:i1] * (C @ Z)).sum())
        del Pb, pp, psi, C
    g = W @ (W.T @ W) - 2.0 * (AW - NW)
    second = 2.0 * float(Cn.sum()) + 2.0 * float((Cdiag * n).sum())
    noise = (second - 4.0 * float((AW * AW).sum()) - 4.0 * float((NW * NW).sum())) / batch
    signal = float((g * g).sum())
    if Q is None:
        top = sig_top = float("nan")
    else:
        r = (Q * Q).sum(1)
        second_top = 2.0 * float((r * Cn).sum()) + 2.0 * zCz
        QA, QN, Qg = Q.T @ AW, Q.T @ NW, Q.T @ g
        top = (second_top - 4.0 * float((QA * QA).sum()) - 4.0 * float((QN * QN).sum())) / batch
        sig_top = float((Qg * Qg).sum())
    return GradientNoise(
        noise=noise,
        signal=signal,
        relative=noise / signal if signal > 0 else float("inf"),
        noise_top=top,
        signal_top=sig_top,
        relative_top=top / sig_top if sig_top > 0 else float("inf"),
        batch=batch,
    )


def sampled_gradient_noise(
    W: np.ndarray,
    sampler: Any,
    tables: dict,
    exact: np.ndarray,
    *,
    batch: int,
    n_batches: int,
    basis: np.ndarray | None = None,
    seed: int = 0,
) -> GradientNoise:
    """The same noise measured: ``n_batches`` minibatch gradients of :func:`qwem_lib.qwem.pairs.batch_loss_grad`
    at ``W`` (the sampler and tables of a run) against the exact gradient ``exact`` (V × d); mean of
    ``‖g_B − g‖²`` over the draws with its standard error (and inside ``basis``'s span)."""
    import torch

    W, batch, Q = _check_noise_inputs(W, batch, basis)
    g = checks.finite_array("exact", exact, shape=W.shape)
    n_batches = checks.integer("n_batches", n_batches, low=2)
    gen = torch.Generator(device=sampler.device).manual_seed(int(seed))
    Wt = torch.as_tensor(W, device=sampler.device, dtype=tables["dtype"])
    full, top = np.empty(int(n_batches)), np.full(int(n_batches), np.nan)
    with torch.no_grad():
        for i in range(int(n_batches)):
            G = batch_loss_grad(Wt, sampler, tables, gen, batch=batch)[1]
            D = G.to(torch.float64).cpu().numpy() - g
            full[i] = float((D * D).sum())
            if Q is not None:
                QD = Q.T @ D
                top[i] = float((QD * QD).sum())
    signal = float((g * g).sum())
    Qg = None if Q is None else Q.T @ g
    sig_top = float("nan") if Qg is None else float((Qg * Qg).sum())
    se = float(full.std(ddof=1) / np.sqrt(full.size))
    se_top = float(top.std(ddof=1) / np.sqrt(top.size)) if Q is not None else float("nan")
    return GradientNoise(
        noise=float(full.mean()),
        signal=signal,
        relative=float(full.mean()) / signal if signal > 0 else float("inf"),
        noise_top=float(top.mean()) if Q is not None else float("nan"),
        signal_top=sig_top,
        relative_top=float(top.mean()) / sig_top if Q is not None and sig_top > 0 else float("nan"),
        batch=batch,
        noise_se=se,
        noise_top_se=se_top,
    )
