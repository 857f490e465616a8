"""The noiseless trainers of Part II: gradient descent and gradient flow on the exact expected pair loss.

:func:`expected_gradient` builds the loss's exact expectation over all pairs (no minibatch noise) and its
gradient on the device; :func:`train_expected` follows it by gradient descent (``method="gd"``) or by the
stiff-safe Runge–Kutta–Chebyshev integrator of :mod:`qwem_lib.flow` (``method="rkc"``: the gradient flow
itself); :func:`minimise_expected` finds the loss's minimum by L-BFGS; :func:`eigen_flow` and
:func:`aligned_gd` run QWEM's flow in M*'s eigenbasis. Runs are cached under ``config.cache_dir()/noiseless``
keyed by every input, with checkpoints that a repeated call resumes.
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..book import checks, config
from ..book.cache import Checkpoint, array_key, read_npz, save_npz
from ..book.loop import Logs, TrainingInterrupted, run_steps
from .corpus_stats import check_stats
from .pairs import (
    LOSSES,
    REWEIGHTINGS,
    Loss,
    Model,
    Reweighting,
    resolve_model,
)
from .trainers import (
    TrainResult,
    check_hparams,
    checked_device,
    initial_embeddings,
    logged_overlaps,
    reference_key,
)

__all__ = [
    "TrainingInterrupted",
    "log_schedule",
    "ExpectedGradient",
    "expected_gradient",
    "negative_slope_inplace",
    "train_expected",
    "MinimiseResult",
    "minimise_expected",
    "EigenFlow",
    "eigen_flow",
    "aligned_gd",
]


def _start(V: int, d: int, init_scale: float, seed: int, W0: np.ndarray | None, dev: Any) -> Any:
    """The start of a noiseless run: ``W0`` as given (float64 on ``dev``), or
    :func:`initial_embeddings` from the generator of ``seed`` (the same as :func:`train_pairs`')."""
    import torch

    if W0 is not None:
        W = torch.as_tensor(np.array(W0, np.float64), device=dev)
    else:
        gen = torch.Generator(device=dev)
        gen.manual_seed(int(config.SEED) * 1000 + int(seed))
        W = initial_embeddings(V, d, init_scale, gen)
    if W.shape != (V, d):
        raise ValueError(f"W0 must be {(V, d)}, got {tuple(W.shape)}")
    return W


def log_schedule(steps: int, n_logs: int = 200) -> np.ndarray:
    """Logged steps: 0, ``n_logs`` log-spaced steps from 1 to ``steps`` and ``n_logs/2`` evenly spaced
    ones (a step that happens late and fast is resolved on a linear axis too)."""
    steps = checks.positive_int("steps", steps)
    n_logs = checks.integer("n_logs", n_logs, low=2)
    g = np.geomspace(1, steps, n_logs)
    lin = np.linspace(0, steps, n_logs // 2 + 1)
    return np.unique(np.concatenate([[0], g, lin]).round().astype(np.int64))


@dataclass
class ExpectedGradient:
    """The exact expected pair loss of a run and its gradient, on the device (:func:`expected_gradient`).

    ``grad(W)`` and ``loss(W)`` take a float64 ``W`` and compute in ``dtype``; ``value_and_grad(W)``
    gives both from one product ``WWᵀ`` (what a line search needs); ``kappa1`` the top eigenvalue of the
    growth matrix (the fastest linear rate), ``lam_min`` its lowest (after deflation)."""

    loss_name: str
    reweighting: str
    grad: Any
    loss: Any
    kappa1: float
    lam_min: float
    value_and_grad: Any = None


def expected_gradient(
    P_joint: np.ndarray,
    P_unigram: np.ndarray,
    *,
    loss: Loss,
    reweighting: Reweighting,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    device: Any = None,
    dtype: Any = None,
    deflate: int = 0,
) -> ExpectedGradient:
    """The expectation over the draw of :func:`train_pairs`'s minibatch loss, and its gradient.

    Both come from the same pieces as the minibatch: the pair weights ``(A, N)`` of
    :func:`qwem_lib.qwem.pairs.pair_weights` and the per-pair terms :func:`qwem_lib.qwem.pairs.qwem_pair_terms` /
    :func:`qwem_lib.qwem.pairs.sgns_pair_terms`. ``L(W) = Σ_ab A_ab ℓ⁺(x_ab) + N_ab ℓ⁻(x_ab)`` with
    ``X = WWᵀ``, gradient ``[(A + Aᵀ)∘ℓ⁺′(X) + (N + Nᵀ)∘ℓ⁻′(X)] W`` (two V × V × d products and one
    elementwise pass: ``ℓ⁺′ = ℓ⁻′ − c`` for both losses).
    Quartic × Setting 3.1 (QWEM) has ``A + N = 1``: the gradient is ``W(WᵀW) − K W`` with ``K = M*``
    (:func:`qwem_lib.qwem.pairs.growth_matrix`), one ``V × V × d`` product, as the split estimator.

    ``deflate`` (QWEM only): the number of most negative eigenpairs of ``K`` set to zero. M* has one
    large negative outlier (λ_V ≈ −1.4·10⁴ at V = 10,000) that bounds the stable rate by
    ``η < 2/|λ_V|``; the direction it governs only decays from its start, so removing it changes the run
    by at most that start (``≈ σ``) and lets ``ηλ₁`` approach 0.5.
    """
    import torch

    from .pairs import (
        growth_matrix,
        pair_weights,
        qwem_pair_loss,
        qwem_pair_terms,
        sgns_pair_loss,
        sgns_pair_terms,
    )

    dev = checked_device(device)
    dt = dtype or torch.float32
    if loss not in LOSSES or reweighting not in REWEIGHTINGS:
        raise ValueError(
            f"loss in {LOSSES}, reweighting in {REWEIGHTINGS}; got {loss!r}, {reweighting!r}"
        )
    terms = qwem_pair_terms if loss == "quartic" else sgns_pair_terms
    pair_loss = qwem_pair_loss if loss == "quartic" else sgns_pair_loss
    Kn = growth_matrix(
        P_joint, P_unigram, loss=loss, reweighting=reweighting, k=k, sample=sample, power=power
    )
    lam_min = float(_extreme_eig(Kn, "SA"))
    kappa1 = float(_extreme_eig(Kn, "LA"))
    if deflate and not (loss == "quartic" and reweighting == "setting31"):
        raise ValueError("deflate applies to QWEM (quartic × setting31) only")
    if loss == "quartic" and reweighting == "setting31":
        if deflate:
            from scipy.sparse.linalg import eigsh

            mu, Z = eigsh(Kn, k=int(deflate), which="SA")
            Kn = Kn - (Z * mu) @ Z.T
            lam_min = float(_extreme_eig(Kn, "SA"))
        K = torch.as_tensor(Kn, device=dev, dtype=dt)
        del Kn

        def grad(W):
            Wt = W.to(dt)
            return (Wt @ (Wt.T @ Wt) - K @ Wt).to(torch.float64)

        def value(W):
            Wt = W.to(torch.float64)
            G2 = Wt.T @ Wt
            return float(
                0.25 * (G2 * G2).sum() - 0.5 * (Wt * (K @ W.to(dt)).to(torch.float64)).sum()
            )

        def value_and_grad(W):
            return value(W), grad(W)

        return ExpectedGradient(loss, reweighting, grad, value, kappa1, lam_min, value_and_grad)
    del Kn
    An, Nn = pair_weights(P_joint, P_unigram, reweighting, k=k, sample=sample, power=power)
    A = torch.as_tensor(An, device=dev, dtype=dt)
    N = torch.as_tensor(Nn, device=dev, dtype=dt)
    del An, Nn
    # ℓ⁺′(x) = ℓ⁻′(x) − c for both losses (c = 2 quartic, 1 logistic), so that
    # (A + Aᵀ)∘ℓ⁺′(X) + (N + Nᵀ)∘ℓ⁻′(X) = S∘ℓ⁻′(X) − c (A + Aᵀ) with S = A + Aᵀ + N + Nᵀ:
    # one elementwise pass over V × V per step and the constant product (A + Aᵀ)W
    zero = torch.zeros(1, dtype=torch.float64)
    c = float(terms(zero, False)[1] - terms(zero, True)[1])
    As = A + A.T
    S = As + N + N.T
    slope_ = negative_slope_inplace(loss)
    # one V × V buffer for X = WWᵀ and the coefficient matrix, reused by every call: a fresh V × V tensor
    # a step costs as much as the product itself (page faults on 400 MB at V = 10,000; bench/README.md)
    buf: list[Any] = []

    def product(Wt):
        if not buf:
            buf.append(torch.empty((Wt.shape[0], Wt.shape[0]), device=dev, dtype=dt))
        return torch.mm(Wt, Wt.T, out=buf[0])

    def coefficient_times(X, Wt):
        slope_(X)
        X.mul_(S)
        X.sub_(As, alpha=c)
        return (X @ Wt).to(torch.float64)

    def pair_grad(W):
        Wt = W.to(dt)
        return coefficient_times(product(Wt), Wt)

    def pair_value_of(X):
        return float(
            pair_loss(X, True).mul_(A).sum(dtype=torch.float64)
            + pair_loss(X, False).mul_(N).sum(dtype=torch.float64)
        )

    def pair_value(W):
        return pair_value_of(product(W.to(dt)))

    def pair_value_and_grad(W):
        Wt = W.to(dt)
        X = product(Wt)
        value = pair_value_of(X)  # before coefficient_times overwrites X
        return value, coefficient_times(X, Wt)

    return ExpectedGradient(
        loss, reweighting, pair_grad, pair_value, kappa1, lam_min, pair_value_and_grad
    )


def negative_slope_inplace(loss: Loss) -> Any:
    """``f(X)`` that overwrites the torch tensor ``X`` with the negative pair's slope ``ℓ⁻′(X)`` and
    returns it: ``σ(X)`` for the logistic loss, ``1 + X/2`` for the quartic one. Bit for bit the second
    value of :func:`qwem_lib.qwem.pairs.sgns_pair_terms` / :func:`qwem_lib.qwem.pairs.qwem_pair_terms` with
    ``positive=False``, without a second V × V tensor."""
    import torch

    if loss == "logistic":
        return lambda X: torch.sigmoid(X, out=X)
    if loss == "quartic":
        return lambda X: X.div_(2.0).add_(1.0)
    raise ValueError(f"loss in {LOSSES}; got {loss!r}")


def _extreme_eig(K: np.ndarray, which: str) -> float:
    """The largest (``"LA"``) or smallest (``"SA"``) eigenvalue of a symmetric matrix."""
    if K.shape[0] <= 600:
        w = np.linalg.eigvalsh(K)
        return float(w[-1] if which == "LA" else w[0])
    from scipy.sparse.linalg import eigsh

    return float(eigsh(K, k=1, which=which, return_eigenvectors=False, tol=1e-6)[0])


#: The last :class:`ExpectedGradient` that :func:`train_expected` built, with its key (one entry: a run's
#: tables can be gigabytes at V = 10,000).
_LAST_GRADIENT: dict[str, Any] = {}


def _check_expected_inputs(stats: Any, W0: Any, d: Any) -> None:
    """The inputs of :func:`train_expected` checked up front (issue 41): ``stats = (P_joint, P_unigram)``
    finite probabilities of matching shapes, ``W0`` (when given) a finite ``V x d`` matrix. A NaN in them
    used to surface as a LinAlgError seven frames deep."""
    if not isinstance(stats, (tuple, list)) or len(stats) != 2:
        raise ValueError(f"stats must be a pair (P_joint, P_unigram), got {checks.describe(stats)}")
    for i, (name, a) in enumerate(zip(("P_joint", "P_unigram"), stats)):
        checks.finite_array(f"stats[{i}] ({name})", a, ndim=2 if name == "P_joint" else 1)
    try:
        P, pu = check_stats(*stats)
    except ValueError as exc:  # say which argument holds the statistics
        raise ValueError(f"stats: {exc}") from exc
    if W0 is not None:
        checks.finite_array("W0", W0, ndim=2, shape=(pu.shape[0], checks.positive_int("d", d)))


def train_expected(
    stats: tuple[np.ndarray, np.ndarray],
    d: int,
    *,
    model: Model | None = "qwem",
    loss: Loss | None = None,
    reweighting: Reweighting | None = None,
    steps: int,
    lr: float,
    init_scale: float = 1e-6,
    W0: np.ndarray | None = None,
    seed: int = 0,
    log_steps: Sequence[int] | np.ndarray | None = None,
    n_logs: int = 200,
    reference: np.ndarray | None = None,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    deflate: int = 0,
    device: Any = None,
    dtype: Any = None,
    use_cache: bool = True,
    checkpoint_s: float = 60.0,
    stop_after: int | None = None,
    progress: bool = True,
    label: str = "",
    method: str = "gd",
    rtol: float = 1e-4,
    observe: np.ndarray | None = None,
    log_loss: bool = True,
) -> TrainResult:
    """Full-batch gradient descent on the exact expected pair loss: the infinite-batch limit of
    :func:`train_pairs` on the statistics ``stats = (P_joint, P_unigram)`` of the corpus.

    The same models (``model``/``loss``/``reweighting`` as :func:`train_pairs`), the same start (for
    equal ``seed``, ``init_scale`` and device, ``W(0)`` is :func:`train_pairs`'s, or pass ``W0``), the same
    time ``t = 2ηs`` and logs (:class:`TrainResult`; ``loss`` is the exact expected loss). The gradient
    (:func:`expected_gradient`) is computed in ``dtype`` (float32 by default: two V × V × d products) and
    accumulated into a float64 ``W``. float32 products add a rounding error of relative size ~1e-7 of
    the largest mode to every direction each step, which acts as a start of that size for modes that
    have not grown yet: for the authors' σ² = 1e-24, use ``dtype=torch.float64`` (or
    :func:`eigen_flow`). Logs on :func:`log_schedule` unless ``log_steps`` is given.

    The run is cached under ``config.cache_dir()/noiseless`` keyed by every input (a hash of the
    statistics included). Every ``checkpoint_s`` seconds, and on ``KeyboardInterrupt``, the state
    (``W``, step, logs) is saved beside it; the same call then resumes from there and gives the result
    of an uninterrupted run. ``stop_after`` stops (with a checkpoint, raising
    :class:`TrainingInterrupted`) once that many steps are done, to test resumption.

    ``method="gd"`` (the default) is gradient descent at rate ``lr``: the flow's explicit Euler method,
    first order in ``lr`` (at ``lr = 0.2/κ₁`` its step times lag the flow's by several per cent).
    ``method="rkc"`` integrates the gradient flow ``dW/dt = −½∇L`` itself, on the same time axis
    ``t = 2·lr·step`` to ``t = 2·lr·steps`` with the same logs, by the adaptive Runge–Kutta–Chebyshev method
    of :func:`qwem_lib.flow.integrate_flow` at relative tolerance ``rtol``: ``lr`` and ``steps`` then only
    name the time axis. Its products default to float64 (float32 rounding puts a floor under the error
    estimate that caps the late steps); ``stop_after`` counts its accepted steps. The result's
    ``gradients`` counts the gradients spent by either method (logs excluded).

    ``observe`` (a V × V array ``O``, optional) adds one number to every log: ``⟨O, WWᵀ⟩ = Σ_ab O_ab
    w_a·w_b``, in the result's ``observed`` — e.g. the mean score of the pairs that never co-occur, with
    ``O`` their indicator divided by their number. ``log_loss=False`` skips the loss at the logs (its
    entries are NaN): for the pair losses it costs more than a gradient.
    """
    import torch

    _check_method(method, rtol)
    _check_expected_inputs(stats, W0, d)
    P, pu = (np.asarray(a, dtype=np.float64) for a in stats)
    V = int(pu.shape[0])
    name, lo, rw = resolve_model(model, loss, reweighting)
    check_hparams(V, d, steps, lr, 1, init_scale, None, 0.1, name, k)
    d, steps = int(d), int(steps)
    dev = checked_device(device)
    dt = dtype or (torch.float64 if method == "rkc" else torch.float32)
    log_steps = log_schedule(steps, n_logs) if log_steps is None else np.asarray(log_steps, int)
    log_steps = np.unique(np.clip(log_steps, 0, steps))
    W = _start(V, d, init_scale, seed, W0, dev)
    cfg = dict(
        stats=array_key(P, pu),
        V=V,
        d=d,
        model=name,
        steps=steps,
        lr=float(lr),
        init=hashlib.sha256(W.cpu().numpy().tobytes()).hexdigest()[:16],
        log=hashlib.sha256(log_steps.tobytes()).hexdigest()[:8],
        k=k,
        sample=sample,
        power=power,
        deflate=int(deflate),
        device=dev.type,
        dtype=str(dt),
        ref=None if reference is None else reference_key(reference),
        version=1,
    )
    if method == "rkc":  # gradient descent's keys stay as they were (its cached runs stay valid)
        cfg.update(method="rkc", rtol=float(rtol))
    if observe is not None:
        observe = checks.finite_array("observe", observe, shape=(V, V))
        cfg["observe"] = hashlib.sha256(observe.tobytes()).hexdigest()[:16]
    if not log_loss:
        cfg["log_loss"] = False
    blob = json.dumps(cfg, sort_keys=True, default=str).encode()
    stem = f"{name}-V{V}-d{d}-{hashlib.sha256(blob).hexdigest()[:16]}"
    root = config.cache_dir() / "noiseless"
    path = root / f"{stem}.npz"
    hit = read_npz(path, _RESULT_FIELDS) if use_cache else None
    if hit is not None:
        return TrainResult.from_arrays(hit, cfg, gradients=steps)
    W0_np = W.to(torch.float32).cpu().numpy()
    eg = _shared_gradient(
        cfg["stats"], P, pu, loss=lo, reweighting=rw, k=k, sample=sample, power=power, device=dev,
        dtype=dt, deflate=deflate,
    )  # fmt: skip
    ref = (
        None
        if reference is None
        else torch.as_tensor(np.linalg.qr(np.asarray(reference, np.float64))[0], device=dev)
    )
    obs = None if observe is None else torch.as_tensor(observe, device=dev, dtype=dt)
    logs = Logs("steps", "sv", "ov", "loss", "obs")
    ckpt = Checkpoint(path if use_cache else None, ("W", "step", "seconds", "log_steps", "log_sv"))
    start, spent = 0, 0.0
    c = ckpt.load()
    if c is not None:
        start, spent = int(c["step"]), float(c["seconds"])
        W = torch.as_tensor(c["W"], device=dev)
        logs.restore(c, "log_")

    record = _expected_recorder(
        logs, eg, gram=method == "rkc", ref=ref, observe=obs, dtype=dt, log_loss=log_loss,
        name=name, lr=lr,
    )  # fmt: skip

    def save_checkpoint(step: int, seconds: float, Ws: Any, extra: dict[str, Any]) -> None:
        ckpt.save(
            {"W": Ws.cpu().numpy(), "step": step, "seconds": seconds, **logs.saved("log_"), **extra}
        )

    t0 = time.time()
    desc = f"{label or name} V={V} d={d}" if progress else None
    if method == "rkc":
        W, grads = _flow_rkc(
            eg, W, log_steps, lr=float(lr), rtol=float(rtol), dtype=dt, record=record, ckpt=c,
            save=save_checkpoint, spent=spent, checkpoint_s=checkpoint_s, stop_after=stop_after,
            desc=None if desc is None else "flow " + desc,
        )  # fmt: skip
        sps = (time.time() - t0) / max(grads, 1)
    else:
        W = _descend(
            eg, W, log_steps, start=start, steps=steps, lr=float(lr), name=name, record=record,
            save=lambda s, Ws: save_checkpoint(s, spent + time.time() - t0, Ws, {}),
            checkpoint_s=checkpoint_s, stop_after=stop_after,
            desc=None if desc is None else "noiseless " + desc,
        )  # fmt: skip
        grads = steps
        sps = (time.time() - t0) / max(steps - start, 1)
    seconds = spent + time.time() - t0
    steps_arr = logs.arrays()["steps"]
    ov, cos = logged_overlaps(logs["ov"], len(steps_arr), d)
    res = TrainResult(
        W=W.to(torch.float32).cpu().numpy(),
        W0=W0_np,
        steps=steps_arr,
        times=2.0 * float(lr) * steps_arr.astype(np.float64),
        sv=np.asarray(logs["sv"]),
        overlap=ov,
        cosines=cos,
        loss=np.asarray(logs["loss"]),
        seconds=seconds,
        pairs_per_s=float("nan"),
        config=cfg,
        seconds_per_step=sps,
        gradients=int(grads),
        observed=np.asarray(logs["obs"], dtype=np.float64),
    )
    if use_cache:
        save_npz(path, res.to_arrays())
        ckpt.clear()
    return res


#: the arrays a cached noiseless run must hold (``grads`` and ``observed`` may be absent in older entries)
_RESULT_FIELDS = ("W", "W0", "steps", "times", "sv", "overlap", "cosines", "loss", "seconds", "sps")


def _lower_lr(lr: float, eg: ExpectedGradient) -> str:
    """The advice of a diverged run: which learning rates are stable for this gradient."""
    return (
        f"lower the learning rate (lr={lr}, lr·κ₁ = {lr * eg.kappa1:.3g}, stable only for lr < "
        f"2/|λ_min| = {2 / max(abs(eg.lam_min), 1e-300):.3g})"
    )


def _left_singular(W: Any) -> tuple[Any, Any]:
    """``(U, s)``: the left singular vectors and values of a tall float64 ``W`` (descending), from the
    eigenpairs of ``WᵀW``. Accurate to ``ε·s₁²/s_k²`` relative in ``s_k²``, ample in float64 for the
    spreads a run logs; a zero singular value gives a zero column of ``U``."""
    import torch

    G = W.T @ W
    ev, Vr = torch.linalg.eigh(G)
    ev, Vr = ev.flip(0).clamp_min(0.0), Vr.flip(1)
    sv = ev.sqrt()
    U = (W @ Vr) / torch.where(sv > 0, sv, torch.ones_like(sv))
    return U, sv


def _check_method(method: str, rtol: float) -> None:
    """:func:`train_expected`'s ``method`` is ``"gd"`` or ``"rkc"``, and the flow's ``rtol`` in (0, 1)."""
    if method not in ("gd", "rkc"):
        raise ValueError(
            f"method must be 'gd' (gradient descent) or 'rkc' (the flow), got {method!r}"
        )
    if method == "rkc" and not (isinstance(rtol, float | int) and 0 < rtol < 1):
        raise ValueError(f"rtol must be a tolerance in (0, 1), got {rtol!r}")


def _expected_recorder(
    logs: Logs,
    eg: ExpectedGradient,
    *,
    gram: bool,
    ref: Any,
    observe: Any,
    dtype: Any,
    log_loss: bool,
    name: str,
    lr: float,
) -> Callable[[int, Any], None]:
    """:func:`train_expected`'s ``record(s, W)``: appends to ``logs`` the step, ``W``'s singular values, the
    overlaps of the orthonormal ``ref`` with its left singular vectors (None: none), ``⟨O, WWᵀ⟩`` for the
    matrix ``observe`` (None: none) and the exact expected loss (NaN unless ``log_loss``; a non-finite one
    raises). ``gram``: the singular vectors from the d × d Gram matrix (the flow's; on a GPU a tall SVD
    costs more than a gradient at V = 10,000); otherwise by SVD (gradient descent's: its cached numbers
    stay the same)."""
    import torch

    def record(s: int, Wl: Any) -> None:
        if gram:
            U, sv = _left_singular(Wl)
        else:
            U, sv, _ = torch.linalg.svd(Wl, full_matrices=False)
        logs["steps"].append(s)
        logs["sv"].append(sv.cpu().numpy())
        if ref is not None:
            logs["ov"].append((ref.T @ U).cpu().numpy())
        if observe is not None:
            Wt = Wl.to(dtype)
            logs["obs"].append(float((Wt * (observe @ Wt)).sum(dtype=torch.float64)))
        logs["loss"].append(eg.loss(Wl) if log_loss else float("nan"))
        if log_loss and not math.isfinite(logs["loss"][-1]):
            raise FloatingPointError(
                f"{name}: the expected loss became {logs['loss'][-1]} at step {s}; {_lower_lr(lr, eg)}"
            )

    return record


def _shared_gradient(stats_key: str, P: np.ndarray, pu: np.ndarray, **kw: Any) -> ExpectedGradient:
    """:func:`expected_gradient` of ``(P, pu)`` with ``kw``, built once for a series of calls: the
    gradient's V × V tables and its two extreme eigenvalues are the same for every start, so a series of
    runs of one loss (seeds, tolerances) reuses the last one built (``stats_key``: the statistics' key)."""
    key = (stats_key, *(str(kw[k]) for k in sorted(kw)))
    if _LAST_GRADIENT.get("key") != key:
        _LAST_GRADIENT.clear()
        _LAST_GRADIENT["eg"] = expected_gradient(P, pu, **kw)
        _LAST_GRADIENT["key"] = key
    return _LAST_GRADIENT["eg"]


def _descend(
    eg: ExpectedGradient,
    W: Any,
    log_steps: np.ndarray,
    *,
    start: int,
    steps: int,
    lr: float,
    name: str,
    record: Callable[[int, Any], None],
    save: Callable[[int, Any], None],
    checkpoint_s: float | None,
    stop_after: int | None,
    desc: str | None,
) -> Any:
    """The loop of :func:`train_expected`'s gradient descent (:func:`~qwem_lib.book.loop.run_steps`):
    ``W ← W − lr·∇L`` in place from step ``start`` to ``steps``, ``record(s, W)`` at the logged steps,
    ``save(s, W)`` every ``checkpoint_s`` seconds and on a stop. Returns ``W``."""
    import torch

    def advance(s: int) -> None:
        W.sub_(lr * eg.grad(W))
        if not bool(torch.isfinite(W).all()):
            raise FloatingPointError(
                f"{name}: W became non-finite at step {s + 1}; {_lower_lr(lr, eg)} in the linear phase"
            )

    run_steps(
        advance, start=start, stop=steps, log_at=log_steps, record=lambda s: record(s, W),
        save=lambda s: save(s, W), checkpoint_s=checkpoint_s, stop_after=stop_after, desc=desc,
    )  # fmt: skip
    return W


def _flow_rkc(
    eg: ExpectedGradient,
    W: Any,
    log_steps: np.ndarray,
    *,
    lr: float,
    rtol: float,
    dtype: Any,
    record: Callable[[int, Any], None],
    ckpt: dict[str, np.ndarray] | None,
    save: Callable[..., None],
    spent: float,
    checkpoint_s: float | None,
    stop_after: int | None,
    desc: str | None,
) -> tuple[Any, int]:
    """The loop of :func:`train_expected`'s ``method="rkc"``: the flow ``dW/dt = −½∇L`` to
    ``t = 2·lr·log_steps[-1]`` by :func:`qwem_lib.flow.integrate_flow`, ``record`` at the logged times,
    its whole state saved every ``checkpoint_s`` seconds (an interrupted run resumes from the last of these
    saves). Returns the end point and the gradients spent."""
    import torch

    from ..flow import FlowState, integrate_flow

    t_out = 2.0 * lr * log_steps.astype(np.float64)
    state = FlowState.from_arrays(ckpt, W.device) if ckpt is not None and "flow_t" in ckpt else None
    eps = float(torch.finfo(dtype).eps)
    t0 = time.time()
    last_save = [t0]
    bar: Any = None
    if desc is not None:
        from tqdm.auto import tqdm

        bar = tqdm(total=float(t_out[-1]), desc=desc, mininterval=5.0, unit="t")

    def rhs(Wx: Any) -> Any:
        return eg.grad(Wx).mul_(-0.5)

    def checkpoint(st: FlowState) -> None:
        if checkpoint_s is not None and time.time() - last_save[0] > checkpoint_s:
            save(st.steps, spent + time.time() - t0, st.y, st.to_arrays())
            last_save[0] = time.time()

    def progress(st: FlowState) -> None:
        if bar is not None:
            bar.update(st.t - bar.n)

    try:
        state = integrate_flow(
            rhs, W, t_out, rtol=rtol, eps=eps, output=lambda i, Wl: record(int(log_steps[i]), Wl),
            state=state, checkpoint=checkpoint, stop_after=stop_after, progress=progress,
        )  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    if state.t < t_out[-1]:
        save(state.steps, spent + time.time() - t0, state.y, state.to_arrays())
        raise TrainingInterrupted(f"stopped after {state.steps} flow steps at t = {state.t:.6g}")
    return state.y, state.evaluations


@dataclass
class MinimiseResult:
    """A run of :func:`minimise_expected`. ``W`` (V, d) float64 the end point and ``W0`` its start;
    ``evaluations`` (n,) the number of loss-and-gradient evaluations after each block of L-BFGS iterations
    (first entry 0: the start), ``loss`` (n,) the exact expected loss there, ``grad_norm`` (n,) the
    relative gradient norm ``‖∇L‖_F/(κ₁‖W‖_F)`` (the relative change one gradient step at rate ``1/κ₁``
    would make); ``converged`` whether it fell below ``tol``; ``stop`` why it stopped: ``"tol"``,
    ``"stalled"`` (a block lowered neither the loss nor the gradient: the precision of the products is
    reached) or ``"budget"`` (``max_evals`` spent); ``seconds``; ``config`` the inputs."""

    W: np.ndarray
    W0: np.ndarray
    evaluations: np.ndarray
    loss: np.ndarray
    grad_norm: np.ndarray
    converged: bool
    stop: str
    seconds: float
    config: dict = field(default_factory=dict)
    cached: bool = False

    #: the arrays of a cache entry, named as the fields
    FIELDS = ("W", "W0", "evaluations", "loss", "grad_norm", "converged", "stop", "seconds")

    @classmethod
    def from_arrays(cls, z: Mapping[str, np.ndarray], config: dict) -> MinimiseResult:
        """The run a cache entry holds."""
        return cls(
            W=z["W"], W0=z["W0"], evaluations=z["evaluations"], loss=z["loss"],
            grad_norm=z["grad_norm"], converged=bool(z["converged"]), stop=str(z["stop"]),
            seconds=float(z["seconds"]), config=config, cached=True,
        )  # fmt: skip


def minimise_expected(
    stats: tuple[np.ndarray, np.ndarray],
    d: int,
    *,
    model: Model | None = "sgns",
    loss: Loss | None = None,
    reweighting: Reweighting | None = None,
    init_scale: float = 1e-2,
    W0: np.ndarray | None = None,
    seed: int = 0,
    tol: float = 1e-6,
    max_evals: int = 5000,
    block: int = 100,
    history: int = 20,
    precondition: bool = True,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    device: Any = None,
    dtype: Any = None,
    use_cache: bool = True,
    stop_after: int | None = None,
    progress: bool = True,
    label: str = "",
) -> MinimiseResult:
    """A minimum of the exact expected pair loss (:func:`expected_gradient`) at rank ``d``, by L-BFGS:
    where gradient descent (:func:`train_expected`) would arrive after infinite time, at a cost of a few
    hundred to a few thousand gradients instead of the tens of thousands of steps that the slowest modes
    need (rate ``λ_{B,d}`` against a step bounded by ``1/κ₁``).

    The objective is ``L/κ₁`` (so that a unit step is a gradient step at the fastest stable rate); torch's
    L-BFGS with a strong-Wolfe line search and ``history`` correction pairs runs in blocks of ``block``
    iterations, each block starting with an empty memory, until the relative gradient norm
    ``‖∇L‖_F/(κ₁‖W‖_F)`` falls below ``tol`` or ``max_evals`` evaluations are spent. The products are in
    ``dtype`` (float32 by default), ``W`` in float64. The start is ``W0`` or
    :func:`initial_embeddings` (``init_scale``, ``seed``). The result is cached keyed by every input;
    after each block the state is saved, and the same call resumes from the last completed block and gives
    the result of an uninterrupted run (the blocks make the iterations independent of where a run was
    interrupted). ``stop_after`` stops after that many evaluations (raising :class:`TrainingInterrupted`),
    to test resumption.
    """
    import torch

    _check_expected_inputs(stats, W0, d)
    P, pu = (np.asarray(a, dtype=np.float64) for a in stats)
    V = int(pu.shape[0])
    name, lo, rw = resolve_model(model, loss, reweighting)
    check_hparams(V, d, 1, 1.0, 1, init_scale, None, 0.1, name, k)
    for arg, val in (("max_evals", max_evals), ("block", block), ("history", history)):
        if isinstance(val, bool) or not isinstance(val, numbers.Integral) or val < 1:
            raise ValueError(f"{arg} must be a positive integer, got {val!r}")
    if not (isinstance(tol, numbers.Real) and math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    d = int(d)
    dev = checked_device(device)
    dt = dtype or torch.float32
    W = _start(V, d, init_scale, seed, W0, dev)
    cfg = dict(
        stats=array_key(P, pu), V=V, d=d, model=name, k=k, sample=sample, power=power,
        init=hashlib.sha256(W.cpu().numpy().tobytes()).hexdigest()[:16], tol=float(tol),
        max_evals=int(max_evals), block=int(block), history=int(history), device=dev.type,
        dtype=str(dt), method="lbfgs-strong-wolfe", precondition=bool(precondition), version=1,
    )  # fmt: skip
    blob = json.dumps(cfg, sort_keys=True, default=str).encode()
    stem = f"min-{name}-V{V}-d{d}-{hashlib.sha256(blob).hexdigest()[:16]}"
    # checkpoints are named by the run without its budget: the state after e evaluations is the same for
    # every budget B with e + (one block) <= B + 1 (no earlier block was cut short by B), so a run may
    # resume from a checkpoint of the same run with another budget (_budget_checkpoint)
    fam = json.dumps(
        {k: v for k, v in cfg.items() if k != "max_evals"}, sort_keys=True, default=str
    )
    family = f"min-{name}-V{V}-d{d}-{hashlib.sha256(fam.encode()).hexdigest()[:16]}"
    root = config.cache_dir() / "noiseless"
    path, ckpt = root / f"{stem}.npz", root / f"{family}-b{int(max_evals)}.ckpt.npz"
    z = read_npz(path, MinimiseResult.FIELDS) if use_cache else None
    if z is not None:
        return MinimiseResult.from_arrays(z, cfg)
    W0_np = W.cpu().numpy().copy()
    eg = expected_gradient(
        P, pu, loss=lo, reweighting=rw, k=k, sample=sample, power=power, device=dev, dtype=dt
    )  # fmt: skip
    kappa = float(eg.kappa1)
    if not (math.isfinite(kappa) and kappa > 0):
        raise ValueError(f"the growth matrix's top eigenvalue must be positive, got {kappa}")

    # Row preconditioning: L-BFGS works on Z = r∘W (row a scaled by r_a), r_a² ∝ the total weight of
    # word a's pairs. A rare word's row has a curvature smaller by its weight, which alone would make the
    # problem as ill-conditioned as the word frequencies are spread; in Z the rows weigh alike.
    r_np = _row_scales(P, pu, rw, k=k, sample=sample, power=power) if precondition else np.ones(V)
    r = torch.as_tensor(r_np, device=dev, dtype=torch.float64)[:, None]

    def measure(X) -> tuple[float, float]:
        v, g = eg.value_and_grad(X)
        return v, float(torch.linalg.norm(g)) / (kappa * max(float(torch.linalg.norm(X)), 1e-300))

    logs: dict[str, list] = {"evals": [], "loss": [], "gn": []}
    spent = 0.0
    c = _budget_checkpoint(root, family, int(max_evals), int(block)) if use_cache else None
    if c is not None:
        W = torch.as_tensor(c["W"], device=dev)
        logs = {"evals": [int(x) for x in c["evals"]], "loss": [float(x) for x in c["loss"]],
                "gn": [float(x) for x in c["gn"]]}  # fmt: skip
        spent = float(c["seconds"])
    else:
        v0, g0 = measure(W)
        logs = {"evals": [0], "loss": [v0], "gn": [g0]}

    def save_checkpoint(seconds: float) -> None:
        if use_cache:
            save_npz(ckpt, dict(W=W.cpu().numpy(), evals=np.asarray(logs["evals"]),
                                loss=np.asarray(logs["loss"]), gn=np.asarray(logs["gn"]), seconds=seconds))  # fmt: skip

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=int(max_evals), initial=logs["evals"][-1], mininterval=5.0,
                   desc=f"L-BFGS {label or name} V={V} d={d}")  # fmt: skip
    t0 = time.time()
    stop = "tol" if logs["gn"][-1] <= tol else "budget"
    while logs["gn"][-1] > tol and logs["evals"][-1] < max_evals:
        if stop_after is not None and logs["evals"][-1] >= stop_after:
            raise TrainingInterrupted(f"stopped after {logs['evals'][-1]} evaluations")
        W, n = _lbfgs_block(
            eg, W, r, kappa, max_iter=int(block), history=int(history),
            max_eval=min(int(block) * 5 // 4, int(max_evals) - logs["evals"][-1]),
        )  # fmt: skip
        if not bool(torch.isfinite(W).all()):
            raise FloatingPointError(
                f"L-BFGS: W became non-finite in the block ending at {n} evaluations"
            )
        v, gn = measure(W)
        stalled = v >= logs["loss"][-1] and gn >= logs["gn"][-1]
        logs["evals"].append(logs["evals"][-1] + n + 1)
        logs["loss"].append(v)
        logs["gn"].append(gn)
        save_checkpoint(spent + time.time() - t0)
        if bar is not None:
            bar.update(n + 1)
            bar.set_postfix(rel_grad=f"{gn:.2e}")
        if stalled:  # no progress at the products' precision: a further block would repeat this one
            stop = "stalled"
            break
    if logs["gn"][-1] <= tol:
        stop = "tol"
    if bar is not None:
        bar.close()
    res = MinimiseResult(
        W=W.cpu().numpy(), W0=W0_np, evaluations=np.asarray(logs["evals"], np.int64),
        loss=np.asarray(logs["loss"]), grad_norm=np.asarray(logs["gn"]),
        converged=bool(logs["gn"][-1] <= tol), stop=stop, seconds=spent + time.time() - t0,
        config=cfg,
    )  # fmt: skip
    if use_cache:
        save_npz(path, {f: getattr(res, f) for f in MinimiseResult.FIELDS})
        ckpt.unlink(missing_ok=True)
    return res


def _row_scales(
    P: np.ndarray, pu: np.ndarray, reweighting: Any, *, k: int, sample: float, power: float
) -> np.ndarray:
    """:func:`minimise_expected`'s row preconditioner ``r``: ``r_a² ∝`` the total weight of word ``a``'s
    pairs (:func:`~qwem_lib.qwem.pairs.pair_weights`, row and column sums), normalised to mean 1 and floored
    at ``10⁻⁶``, so that in ``Z = r∘W`` a rare word's row has the curvature of a frequent one's."""
    from .pairs import pair_weights

    An, Nn = pair_weights(P, pu, reweighting, k=k, sample=sample, power=power)
    D = (An + Nn).sum(axis=0) + (An + Nn).sum(axis=1)
    del An, Nn
    return np.sqrt(np.maximum(D / D.mean(), 1e-12))


def _lbfgs_block(
    eg: ExpectedGradient,
    W: Any,
    r: Any,
    kappa: float,
    *,
    max_iter: int,
    max_eval: int,
    history: int,
) -> tuple[Any, int]:
    """One block of :func:`minimise_expected`: torch's L-BFGS (strong Wolfe line search) on ``L/κ₁`` in
    the preconditioned variable ``Z = r∘W``, from ``W``, for at most ``max_iter`` iterations and
    ``max_eval`` evaluations. Returns the new ``W`` and the evaluations spent."""
    import torch

    x = (W * r).requires_grad_(True)
    opt = torch.optim.LBFGS(
        [x], lr=1.0, max_iter=max_iter, max_eval=max_eval, tolerance_grad=0.0, tolerance_change=0.0,
        history_size=history, line_search_fn="strong_wolfe",
    )  # fmt: skip

    def closure() -> Any:
        v, g = eg.value_and_grad(x.detach() / r)
        x.grad = g / (kappa * r)
        return torch.tensor(v / kappa, dtype=torch.float64, device=W.device)

    opt.step(closure)
    return x.detach() / r, int(opt.state[opt._params[0]]["func_evals"])


def _budget_checkpoint(root: Any, family: str, max_evals: int, block: int) -> dict | None:
    """The most advanced checkpoint of the run ``family`` that is a state of the run with budget
    ``max_evals``: its own, or one of another budget ``b`` whose blocks were none of them cut short by
    either budget (each block may spend ``⌊5·block/4⌋`` evaluations, fewer only when the budget is
    near: so the last block must have started at least that far below ``min(b, max_evals)``), and which
    has not spent more than ``max_evals``. None when there is none."""
    best: dict | None = None
    full = (block * 5) // 4
    for f in sorted(root.glob(f"{family}-b*.ckpt.npz")) if root.is_dir() else []:
        m = re.search(r"-b(\d+)\.ckpt\.npz$", f.name)
        c = read_npz(f, ("W", "evals", "loss", "gn", "seconds")) if m else None
        if c is None or m is None:
            continue
        b, ev = int(m.group(1)), np.asarray(c["evals"], dtype=np.int64)
        ok = b == max_evals or (
            ev[-1] <= max_evals and (len(ev) < 2 or min(b, max_evals) - ev[-2] >= full)
        )
        if ok and (best is None or ev[-1] > int(np.asarray(best["evals"])[-1])):
            best = c
    return best


@dataclass
class EigenFlow:
    """A run of :func:`eigen_flow`: ``Y`` (r, d) the embeddings in the eigenbasis (``W = Q Y``),
    ``Y0`` its start, ``steps``, ``times`` (``t = 2ηs``), ``sv`` (T, d), ``overlap`` (T, r, d) the
    signed overlaps ``q_iᵀu_k`` (the left singular vectors of ``Y``), ``lam`` the r eigenvalues,
    ``seconds``."""

    Y: np.ndarray
    Y0: np.ndarray
    steps: np.ndarray
    times: np.ndarray
    sv: np.ndarray
    overlap: np.ndarray
    lam: np.ndarray
    seconds: float


def eigen_flow(
    lam: np.ndarray,
    Y0: np.ndarray,
    *,
    lr: float,
    steps: int,
    log_steps: Sequence[int] | np.ndarray | None = None,
    n_logs: int = 300,
) -> EigenFlow:
    """QWEM's noiseless gradient descent ``W ← W − η(WWᵀ − M*)W`` restricted to the span of ``r``
    eigenvectors ``Q`` of M* (eigenvalues ``lam``), in that eigenbasis: with ``W = QY``,
    ``Y ← Y − η(Y(YᵀY) − ΛY)``, r·d² work a step instead of V²·d.

    Exact when ``W(0)`` lies in ``span(Q)``. From a random ``W(0)`` it drops ``(I − QQᵀ)W(0)``: the
    directions beyond the r-th, whose eigenvalues are below ``λ_r``, take part in the dynamics only
    through that start; :func:`train_expected` keeps them (tests compare the two). ``Y0 = QᵀW(0)``.
    """
    import torch

    lam_t = torch.as_tensor(np.array(checks.finite_array("lam", lam, ndim=1)))
    Y = torch.as_tensor(np.array(checks.finite_array("Y0", Y0, ndim=2)))
    if Y.ndim != 2 or Y.shape[0] != lam_t.shape[0]:
        raise ValueError(f"Y0 must be (r, d) with r = len(lam), got {tuple(Y.shape)}")
    lr = checks.positive("lr", lr)
    steps = checks.positive_int("steps", steps)
    n_logs = checks.integer("n_logs", n_logs, low=2)
    log_steps = log_schedule(steps, n_logs) if log_steps is None else np.asarray(log_steps, int)
    log_set = set(int(s) for s in np.clip(log_steps, 0, steps))
    out_steps, svs, ovs = [], [], []

    def record(s: int) -> None:
        U, sv, _ = torch.linalg.svd(Y, full_matrices=False)
        out_steps.append(s)
        svs.append(sv.numpy())
        ovs.append(U.numpy())

    t0 = time.time()
    if 0 in log_set:
        record(0)
    lam_col = lam_t[:, None]
    for s in range(steps):
        Y -= lr * (Y @ (Y.T @ Y) - lam_col * Y)
        if s + 1 in log_set:
            record(s + 1)
    st = np.asarray(out_steps, np.int64)
    return EigenFlow(
        Y=Y.numpy(),
        Y0=np.asarray(Y0, np.float64),
        steps=st,
        times=2.0 * lr * st,
        sv=np.asarray(svs),
        overlap=np.asarray(ovs),
        lam=np.asarray(lam, np.float64),
        seconds=time.time() - t0,
    )


def aligned_gd(
    lam: np.ndarray, s0_sq: np.ndarray, *, lr: float, log_steps: Sequence[int] | np.ndarray
) -> np.ndarray:
    """Lemma 3.1 for gradient descent rather than the flow: each aligned mode follows the scalar
    recursion ``s ← s(1 + η(λ − s²))`` (one step of ``W ← W − η(WWᵀ − M*)W`` on ``W = q s``) from
    ``s0_sq``. Returns ``s²`` at ``log_steps`` (T, len(lam)); ``η → 0`` gives
    :func:`qwem_lib.qwem.theory.aligned_sigmoid` at ``t = 2ηs``."""
    lam = checks.finite_array("lam", lam, ndim=1)
    s = np.sqrt(checks.positive_array("s0_sq", s0_sq, ndim=(0, 1))) * np.ones_like(lam)
    lr = checks.positive("lr", lr)
    steps_f = checks.increasing("log_steps", log_steps, strict=False)
    if steps_f[0] < 0 or np.any(steps_f != np.floor(steps_f)):
        raise ValueError(f"log_steps must be whole numbers >= 0, got {steps_f.tolist()}")
    log_steps = steps_f.astype(int)
    out = np.empty((log_steps.size, lam.size))
    want = {int(v): i for i, v in enumerate(log_steps)}
    for n in range(int(log_steps.max()) + 1):
        if n in want:
            out[want[n]] = s * s
        s = s * (1.0 + lr * (lam - s * s))
    return out
