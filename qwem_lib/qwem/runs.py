"""The chapters' runs of Part II: schedules planned from the spectrum, the preset runs of chapters
23–24 (:func:`run_preset`, sizes in :data:`TEXT_RUNS`) and the loss × reweighting ablation of
chapter 25 (:func:`run_ablation`), and tied SGNS's noiseless runs of chapters 26 and 28
(:func:`tied_sgns_runs`, sizes in :data:`TIED_SGNS_RUNS`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..book import checks
from ..data import Corpus
from .corpus_stats import cooccurrence, resolve_corpus
from .noiseless import train_expected
from .pairs import LOSSES, REWEIGHTINGS, Model, growth_matrix, resolve_model, sgns_growth_matrix
from .trainers import TrainResult, train_pairs

__all__ = [
    "AUTHORS_QWEM_SMALL",
    "authors_rate_scale",
    "authors_end_time",
    "plan_schedule",
    "preset_schedule",
    "TEXT_RUNS",
    "text_run_kwargs",
    "PresetRun",
    "run_preset",
    "AblationRun",
    "run_ablation",
    "mstar_eigenbasis",
    "TiedSGNSRun",
    "tied_sgns_run",
    "TIED_SGNS_RUNS",
    "tied_sgns_runs",
    "PAPER_SCALE_SGD",
]


def plan_schedule(
    lam: Sequence[float] | np.ndarray,
    d: int,
    sigma_sq: float,
    *,
    lr_factor: float = 0.1,
    horizon: float = 3.0,
    capacity: Sequence[float] | np.ndarray | None = None,
) -> dict:
    """A constant learning rate and a step count from the target's own spectrum.

    ``lr = lr_factor/λ₁`` (stable: the largest curvature of ¼‖WWᵀ − M*‖² near the end is about 2λ₁) and
    enough steps to reach ``horizon`` times the characteristic time of the d-th mode,
    ``τ_d = ln(λ_d/σ²)/λ_d``, in the paper's time ``t = 2 Σ η``. Returns ``dict(lr, steps, t_end, tau)``
    with ``tau`` the characteristic times of the first ``d`` modes.
    """
    from .theory import characteristic_time

    lam = np.asarray(lam, dtype=np.float64)
    if lam.size < d or np.any(lam[:d] <= 0):
        raise ValueError("plan_schedule needs d positive leading eigenvalues")
    if not (lr_factor > 0 and horizon > 0 and sigma_sq > 0):
        raise ValueError("lr_factor, horizon and sigma_sq must be positive")
    lr = lr_factor / lam[0]
    cap = lam[:d] if capacity is None else np.asarray(capacity, dtype=np.float64)[:d]
    tau = (
        np.log(cap / sigma_sq) / lam[:d]
        if capacity is not None
        else np.asarray(characteristic_time(lam[:d], sigma_sq))
    )
    t_end = horizon * float(tau[-1])
    steps = int(math.ceil(t_end / (2.0 * lr)))
    return dict(lr=float(lr), steps=steps, t_end=t_end, tau=tau)


@dataclass
class PresetRun:
    """A run of :func:`run_preset` with its context: ``result`` (:class:`TrainResult`); ``words``;
    ``lam``, ``Q`` the top ``d + 2`` eigenpairs of M*; ``lam_B``, ``Q_B`` those of the SGNS growth matrix
    (SGNS runs only, else None); ``sigma_sq`` the per-direction initial scale σ² = init_scale²;
    ``lr``, ``steps``, ``main_steps`` (steps before the learning-rate decay), ``tau`` the planned
    characteristic times."""

    result: TrainResult
    words: list
    lam: np.ndarray
    Q: np.ndarray
    lam_B: np.ndarray | None
    Q_B: np.ndarray | None
    sigma_sq: float
    lr: float
    steps: int
    main_steps: int
    tau: np.ndarray


def _top_eigs(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k eigenpairs, deterministic, columns with their largest-magnitude entry positive."""
    if M.shape[0] <= 4000:
        lam, Q = np.linalg.eigh(M)
        lam, Q = lam[::-1][:k], Q[:, ::-1][:, :k]
    else:
        from .spectral import top_eigenpairs

        lam, Q = top_eigenpairs(M, k)
    Q = np.asarray(Q, dtype=np.float64)
    Q = Q * np.where(Q[np.argmax(np.abs(Q), axis=0), np.arange(k)] < 0, -1.0, 1.0)
    return np.asarray(lam, dtype=np.float64), Q


def _sgns_plan(
    lam: np.ndarray, lam_B: np.ndarray, d: int, sigma_sq: float, lr_factor: float, horizon: float
) -> dict:
    """SGNS's schedule: :func:`plan_schedule` at SGNS's linear rates ``lam_B``, each mode growing from
    ``σ²`` to M*'s eigenvalue ``lam[k]`` (its capacity; at least ``eσ²``)."""
    return plan_schedule(
        lam_B,
        d,
        sigma_sq,
        lr_factor=lr_factor,
        horizon=horizon,
        capacity=np.maximum(lam[:d], sigma_sq * math.e),
    )


def _schedule_arguments(
    d: Any, lr_factor: Any, horizon: Any, polish: Any, sigma_sq_small: Any, large_ratio: Any
) -> tuple[int, float, float, float, float, float]:
    """The schedule's arguments of :func:`preset_schedule` and :func:`run_preset`, checked."""
    return (
        checks.positive_int("d", d),
        checks.positive("lr_factor", lr_factor),
        checks.positive("horizon", horizon),
        checks.nonnegative("polish", polish),
        checks.positive("sigma_sq_small", sigma_sq_small),
        checks.positive("large_ratio", large_ratio),
    )


def preset_schedule(
    model: Model,
    P_joint: np.ndarray,
    P_unigram: np.ndarray,
    d: int,
    *,
    init: Literal["small", "large"] = "small",
    lr_factor: float = 0.1,
    horizon: float = 3.0,
    polish: float = 3.0,
    sigma_sq_small: float = 1e-8,
    large_ratio: float = 0.1,
) -> dict:
    """The schedule of :func:`run_preset` from the statistics alone (also used by ``bench/``).

    Returns ``dict(lam, Q, lam_B, Q_B, sigma_sq, lr, steps, main_steps, tau)``: the top ``d + 2``
    eigenpairs of M* (and of the SGNS growth matrix for ``model="sgns"``), the initial scale, the learning
    rate, the total and constant-rate step counts and the planned characteristic times.
    """
    from .corpus_stats import mstar_from_stats

    if init not in ("small", "large"):
        raise ValueError(f"init must be 'small' or 'large', got {init!r}")
    d, lr_factor, horizon, polish, sigma_sq_small, large_ratio = _schedule_arguments(
        d, lr_factor, horizon, polish, sigma_sq_small, large_ratio
    )
    V = P_unigram.shape[0]
    if d + 2 > V:
        raise ValueError(
            f"d must be at most V - 2 = {V - 2} (d + 2 eigenpairs are logged), got {d}"
        )
    lam, Q = _top_eigs(mstar_from_stats(P_joint, P_unigram), d + 2)
    if lam[d - 1] <= 0:
        raise ValueError(f"M* has fewer than d={d} positive eigenvalues at V={V}")
    sigma_sq = sigma_sq_small if init == "small" else large_ratio * lam[d - 1] * d / V
    lam_B = Q_B = None
    if model == "sgns":
        lam_B, Q_B = _top_eigs(sgns_growth_matrix(P_joint, P_unigram), d + 2)
        rates = lam_B
        plan = _sgns_plan(lam, lam_B, d, sigma_sq, lr_factor, horizon)
    else:
        rates = lam
        plan = (
            plan_schedule(lam, d, sigma_sq, lr_factor=lr_factor, horizon=horizon)
            if init == "small"
            else plan_schedule(
                lam,
                d,
                sigma_sq,
                lr_factor=lr_factor,
                horizon=horizon,
                capacity=np.full(d, lam[0] * math.e),
            )
        )
    n_polish = int(math.ceil(polish * 10.0 / (2.0 * plan["lr"] * (rates[d - 1] - rates[d]))))
    return dict(
        lam=lam,
        Q=Q,
        lam_B=lam_B,
        Q_B=Q_B,
        sigma_sq=float(sigma_sq),
        lr=plan["lr"],
        steps=plan["steps"] + n_polish,
        main_steps=plan["steps"],
        tau=plan["tau"],
    )


TEXT_RUNS: dict[str, dict[str, Any]] = {
    "smoke": dict(
        corpus="enwiki2015_1m7",
        V=300,
        d=2,
        batch=20_000,
        sigma_sq=1e-4,
        large_ratio=0.1,
        lr_factor=0.05,
        horizon=3.0,
        polish=3.0,
        n_logs=200,
    ),
    "book": dict(
        corpus="enwiki2015_17m",
        V=500,
        d=6,
        batch=50_000,
        sigma_sq=1e-4,
        large_ratio=0.1,
        lr_factor=0.05,
        horizon=3.0,
        polish=3.0,
        n_logs=200,
    ),
    # SGD where it is practical on a CPU (V = 2,000; the noiseless runs of chapter 27 take the paper's
    # V = 10,000, d = 200). SGD at V = 10,000, d = 200 (PAPER_SCALE_SGD) is configured, not run here.
    "paper": dict(
        corpus="enwiki2015_17m",
        V=2_000,
        d=20,
        batch=50_000,
        sigma_sq=1e-4,
        large_ratio=0.1,
        lr_factor=0.05,
        horizon=3.0,
        polish=3.0,
        n_logs=200,
    ),
}
"""The sizes of the training runs of chapters 23 and 24, per preset. Both chapters read them from here, so
that identical inputs give one cached run that the two chapters share; chapter 27 measures the noise of
their minibatches."""

PAPER_SCALE_SGD: dict[str, Any] = dict(
    corpus="enwiki2015_17m",
    V=10_000,
    d=200,
    batch=50_000,
    sigma_sq=1e-4,
    large_ratio=0.1,
    lr_factor=0.05,
    horizon=3.0,
    polish=3.0,
    n_logs=200,
)
"""SGD at the paper's V = 10,000, d = 200 (QWEM and tied SGNS): about 4M steps of 0.6 s on two CPU cores
(``bench/README.md``), weeks; meant for a GPU. ``bench/bench_training.py --presets paper`` times it."""


def text_run_kwargs(P: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :func:`run_preset` from a chapter's sizes (built on :data:`TEXT_RUNS`)."""
    if not isinstance(P, dict):
        raise checks.ArgumentTypeError(
            f"P must be a chapter's dict of sizes, got {checks.describe(P)}"
        )
    need = ("batch", "lr_factor", "horizon", "polish", "n_logs", "large_ratio", "sigma_sq")
    missing = [k for k in need if k not in P]
    if missing:
        raise ValueError(f"P must hold the sizes {list(need)}; missing {missing}")
    return dict(
        batch=P["batch"],
        lr_factor=P["lr_factor"],
        horizon=P["horizon"],
        polish=P["polish"],
        n_logs=P["n_logs"],
        large_ratio=P["large_ratio"],
        sigma_sq_small=P["sigma_sq"],
    )


def run_preset(
    model: Model,
    corpus: str | Corpus,
    V: int,
    d: int,
    *,
    init: Literal["small", "large"] = "small",
    batch: int = 50_000,
    lr_factor: float = 0.1,
    horizon: float = 3.0,
    polish: float = 3.0,
    sigma_sq_small: float = 1e-8,
    large_ratio: float = 0.1,
    n_logs: int = 200,
    seed: int = 0,
    progress: bool = True,
    device: Any = None,
) -> PresetRun:
    """The runs of chapters 23–24: statistics, spectrum, schedule and training, all from the inputs.

    * statistics of the corpus by the authors' protocol (:func:`cooccurrence`), M* and its top ``d + 2``
      eigenpairs (the logged reference); for SGNS also the growth matrix ``B``;
    * initial scale: ``init="small"`` gives σ² = ``sigma_sq_small`` per direction; ``"large"`` gives
      initial singular values ``s² ≈ Vσ²/d = large_ratio·λ_d`` (all modes start within a short
      exponential phase of their end point);
    * schedule (:func:`preset_schedule`): ``lr = lr_factor/λ₁`` (λ of M* for QWEM, of B for SGNS) for
      ``horizon`` characteristic times of mode ``d``, then ``lr/10`` for ``polish`` relaxation times
      ``1/(λ_d − λ_{d+1})`` of the subspace (the minibatch noise parks energy in the directions beyond
      ``d``, which drain at that gap; the authors also divide the rate by 10 for their last quarter).

    Identical inputs give the identical cached run, so chapter 24 reuses chapter 23's models.

    Parameters
    ----------
    model : {"qwem", "sgns"}
        The loss trained (as :func:`train_pairs`).
    corpus : str or Corpus
        A registered corpus name or a loaded corpus.
    V, d : int
        Vocabulary size and embedding dimension.
    init : {"small", "large"}
        The start: σ² = ``sigma_sq_small`` per direction, or ``s² ≈ large_ratio·λ_d``.
    batch : int
        Positive pairs per SGD step (50,000).
    lr_factor, horizon, polish : float
        The schedule: ``lr = lr_factor/λ₁`` for ``horizon`` characteristic times of mode ``d``, then
        ``lr/10`` for ``polish`` relaxation times of the subspace (0.1, 3, 3).
    sigma_sq_small, large_ratio : float
        The two starts' scales (1e-8, 0.1).
    n_logs : int
        Logged steps (at least 2; 200).
    seed : int
        Seed of the start and the sampler.
    progress : bool
        A progress bar.
    device : torch device or None
        Where to train (None: :func:`config.device`).

    Returns
    -------
    PresetRun
        The trained run with M*'s eigenpairs (and the growth matrix's, for SGNS), the start's σ² and
        the schedule it followed.

    Raises
    ------
    ValueError
        For a bad size, scale or schedule argument, named in the message, before the corpus statistics
        are computed.
    """
    n_logs = checks.integer("n_logs", n_logs, low=2)
    checks.positive_int("batch", batch)
    _schedule_arguments(
        d, lr_factor, horizon, polish, sigma_sq_small, large_ratio
    )  # before the statistics
    c = resolve_corpus(corpus)
    words, P, pu = cooccurrence(c, V)
    sch = preset_schedule(
        model,
        P,
        pu,
        d,
        init=init,
        lr_factor=lr_factor,
        horizon=horizon,
        polish=polish,
        sigma_sq_small=sigma_sq_small,
        large_ratio=large_ratio,
    )
    lam, Q, lam_B, Q_B, sigma_sq = sch["lam"], sch["Q"], sch["lam_B"], sch["Q_B"], sch["sigma_sq"]
    steps, main = sch["steps"], sch["main_steps"]
    plan = dict(lr=sch["lr"], steps=main, tau=sch["tau"])
    # logs: n_logs over the constant-rate phase (where the steps happen), n_logs/4 over the polish phase
    log_steps = np.unique(
        np.concatenate(
            [np.linspace(0, main, n_logs + 1), np.linspace(main, steps, n_logs // 4 + 1)]
        )
        .round()
        .astype(int)
    )
    res = train_pairs(
        c,
        V,
        d,
        model=model,
        steps=steps,
        lr=plan["lr"],
        batch=batch,
        init_scale=math.sqrt(sigma_sq),
        decay_at=plan["steps"] / steps,
        log_steps=log_steps,
        reference=Q,
        seed=seed,
        device=device,
        progress=progress,
        stats=(P, pu),
    )
    return PresetRun(
        result=res,
        words=words,
        lam=lam,
        Q=Q,
        lam_B=lam_B,
        Q_B=Q_B,
        sigma_sq=float(sigma_sq),
        lr=plan["lr"],
        steps=steps,
        main_steps=plan["steps"],
        tau=plan["tau"],
    )


@dataclass
class AblationRun:
    """One of the four runs of :func:`run_ablation`: ``name`` (``"qwem"``, ``"sgns"`` or
    ``"<loss>-<reweighting>"``), ``loss``, ``reweighting``, ``result`` (:class:`TrainResult`), ``kappa``
    the top ``d + 1`` eigenvalues of the run's growth matrix ``K`` (:func:`growth_matrix`), ``lr`` the
    learning rate ``lr_factor/κ₁`` and ``u`` the logged times on the common axis ``u = κ₁ t``."""

    name: str
    loss: str
    reweighting: str
    result: TrainResult
    kappa: np.ndarray
    lr: float
    u: np.ndarray


def run_ablation(
    corpus: str | Corpus,
    V: int,
    d: int,
    *,
    sigma_sq: float,
    lr_factor: float,
    steps: int,
    batch: int = 50_000,
    n_logs: int = 400,
    seed: int = 0,
    k: int = 1,
    losses: Sequence[str] = LOSSES,
    reweightings: Sequence[str] = REWEIGHTINGS,
    stats: tuple[np.ndarray, np.ndarray] | None = None,
    reference: np.ndarray | None = None,
    progress: bool = True,
    device: Any = None,
) -> dict[tuple[str, str], AblationRun]:
    """The ablation of chapter 25: every ``loss × reweighting``, from the same ``W(0)`` (same seed and
    ``init_scale = √σ²``), on the same corpus stream, for the same number of ``steps`` at a constant rate.

    Each run's rate is ``lr = lr_factor/κ₁`` with ``κ₁`` the top eigenvalue of its own growth matrix
    (:func:`growth_matrix`), so that after ``s`` steps every run has reached the same ``u = κ₁ t =
    2·lr_factor·s``: the number of e-folds its fastest mode has grown in the linear phase. No run is
    shifted. ``reference`` (V × r) is passed to :func:`train_pairs` for the logged overlaps. Returns a
    dict keyed by ``(loss, reweighting)``.
    """
    d = checks.positive_int("d", d)
    sigma_sq = checks.positive("sigma_sq", sigma_sq)
    lr_factor = checks.positive("lr_factor", lr_factor)
    n_logs = checks.integer("n_logs", n_logs, low=2)
    c = resolve_corpus(corpus)
    if stats is None:
        _, P, pu = cooccurrence(c, V)
    else:
        P, pu = stats
    if not (
        math.isfinite(sigma_sq) and sigma_sq > 0 and math.isfinite(lr_factor) and lr_factor > 0
    ):
        raise ValueError(
            f"sigma_sq and lr_factor must be positive, got {sigma_sq!r}, {lr_factor!r}"
        )
    out: dict[tuple[str, str], AblationRun] = {}
    for lo in losses:
        for rw in reweightings:
            name, lo, rw = resolve_model(None, lo, rw)
            K = growth_matrix(P, pu, loss=lo, reweighting=rw, k=k)
            kappa, _ = _top_eigs(K, min(d + 1, V))
            if kappa[0] <= 0:
                raise ValueError(f"{name}: the growth matrix has no positive eigenvalue")
            lr = float(lr_factor / kappa[0])
            res = train_pairs(
                c,
                V,
                d,
                loss=lo,
                reweighting=rw,
                steps=steps,
                lr=lr,
                batch=batch,
                init_scale=math.sqrt(sigma_sq),
                n_logs=n_logs,
                reference=reference,
                k=k,
                seed=seed,
                device=device,
                progress=progress,
                stats=(P, pu),
            )
            out[(lo, rw)] = AblationRun(
                name=name,
                loss=lo,
                reweighting=rw,
                result=res,
                kappa=kappa,
                lr=lr,
                u=kappa[0] * res.times,
            )
    return out


def mstar_eigenbasis(corpus: str | Corpus, V: int, r: int) -> tuple[list, np.ndarray, np.ndarray]:
    """``(words, lam, Q)``: the top ``r`` eigenpairs of the corpus's M* (float32 eigensolve, cached with
    :func:`qwem_lib.qwem.spectral.spectral_embeddings`, whose ``W = Q√λ`` they are read back from; the
    ``r`` eigenvalues must be positive), in float64, columns with their largest entry positive."""
    from .spectral import spectral_embeddings

    r = checks.positive_int("r", r)
    words, E = spectral_embeddings(corpus, V, r, "mstar")
    E = np.asarray(E, dtype=np.float64)
    lam = (E * E).sum(axis=0)
    if np.any(lam <= 0):
        raise ValueError(f"M* has fewer than r={r} positive eigenvalues at V={V}")
    order = np.argsort(-lam, kind="stable")
    lam, Q = lam[order], E[:, order] / np.sqrt(lam[order])
    Q = Q * np.where(Q[np.argmax(np.abs(Q), axis=0), np.arange(r)] < 0, -1.0, 1.0)
    return words, lam, Q


@dataclass
class TiedSGNSRun:
    """A run of :func:`tied_sgns_run`. ``lam``, ``Q``: the top ``d + 1`` eigenpairs of M* (``Q[:, :d]`` is
    the logged reference); ``lam_B``: the top ``d + 1`` eigenvalues of SGNS's growth matrix (the linear
    rates); ``tau`` the planned characteristic times ``ln(λ_k/σ²)/λ_B,k``; ``times``, ``sv``, ``overlap``,
    ``loss`` the logs of the two segments joined (:class:`qwem_lib.qwem.trainers.TrainResult` fields);
    ``W_late`` the embeddings at the end of the first segment (``3t_end/4``), ``W`` at ``t_end``;
    ``seconds`` the training time of both segments as first computed (also when read from the cache)."""

    words: list
    lam: np.ndarray
    Q: np.ndarray
    lam_B: np.ndarray
    sigma_sq: float
    lr: float
    steps: int
    t_end: float
    tau: np.ndarray
    times: np.ndarray
    sv: np.ndarray
    overlap: np.ndarray
    loss: np.ndarray
    W_late: np.ndarray
    W: np.ndarray
    seconds: float
    cached: bool


def tied_sgns_run(
    corpus: str | Corpus,
    V: int,
    d: int,
    *,
    sigma_sq: float = 1e-8,
    lr_factor: float = 0.15,
    horizon: float = 4.0,
    n_logs: int = 100,
    seed: int = 0,
    device: Any = None,
    progress: bool = True,
) -> TiedSGNSRun:
    """Tied SGNS (the paper's word2vec baseline: logistic loss, word2vec's reweighting, ``k = 1``, one
    matrix ``W``) trained without minibatch noise (:func:`qwem_lib.qwem.noiseless.train_expected`) from a small
    start, to ``horizon`` characteristic times of mode ``d`` (chapter 26).

    The schedule is :func:`preset_schedule`'s for SGNS, from the statistics alone: rate
    ``lr = lr_factor/λ_B,1`` with ``λ_B`` the spectrum of SGNS's growth matrix
    (:func:`qwem_lib.qwem.pairs.sgns_growth_matrix`), and ``τ_k = ln(λ_k/σ²)/λ_B,k``: mode ``k`` grows at SGNS's
    linear rate from ``σ²`` until it nears M*'s eigenvalue ``λ_k``. The rate factor is lower than QWEM's:
    at ``0.3`` the run diverged as its first mode saturated (V = 1,000). The run has two segments,
    ``0 → 3t_end/4 → t_end`` (gradient descent has no state but ``W``; the second starts from the first's
    float32 end point), so that what changes over the last quarter can be measured. Both segments are
    cached and resumable (:func:`train_expected`)."""
    d = checks.positive_int("d", d)
    sigma_sq = checks.positive("sigma_sq", sigma_sq)
    lr_factor = checks.positive("lr_factor", lr_factor)
    horizon = checks.positive("horizon", horizon)
    c = resolve_corpus(corpus)
    words, P, pu = cooccurrence(c, V)
    w_e, lam, Q = mstar_eigenbasis(c, V, d + 1)
    if list(w_e) != list(words):
        raise RuntimeError("M*'s eigenbasis and the statistics disagree on the vocabulary")
    lam_B, _ = _top_eigs(sgns_growth_matrix(P, pu), d + 1)
    # eigensolvers' last digits change with the BLAS thread count; the schedule (and so the cache key of
    # the run) is planned from the spectra rounded to 8 significant digits, so it does not
    lam, lam_B = (np.array([float(f"{x:.8g}") for x in a]) for a in (lam, lam_B))
    plan = _sgns_plan(lam, lam_B, d, sigma_sq, lr_factor, horizon)
    steps = max(2, int(plan["steps"]))
    n1 = (3 * steps) // 4
    common = dict(model="sgns", lr=plan["lr"], reference=Q[:, :d], n_logs=n_logs, device=device,
                  progress=progress)  # fmt: skip
    r1 = train_expected(
        (P, pu), d, steps=n1, init_scale=math.sqrt(sigma_sq), seed=seed, label="tied SGNS, 0 to 3/4",
        **common,
    )  # fmt: skip
    r2 = train_expected(
        (P, pu), d, steps=steps - n1, W0=r1.W, label="tied SGNS, 3/4 to 1", **common
    )  # fmt: skip
    return TiedSGNSRun(
        words=list(words),
        lam=lam,
        Q=Q,
        lam_B=lam_B,
        sigma_sq=float(sigma_sq),
        lr=float(plan["lr"]),
        steps=steps,
        t_end=float(r1.times[-1] + r2.times[-1]),
        tau=np.asarray(plan["tau"], dtype=np.float64),
        times=np.r_[r1.times, r1.times[-1] + r2.times[1:]],
        sv=np.concatenate([r1.sv, r2.sv[1:]]),
        overlap=np.concatenate([r1.overlap, r2.overlap[1:]]),
        loss=np.r_[r1.loss, r2.loss[1:]],
        W_late=np.asarray(r1.W, dtype=np.float64),
        W=np.asarray(r2.W, dtype=np.float64),
        seconds=float(r1.seconds + r2.seconds),
        cached=bool(r1.cached and r2.cached),
    )


#: The tied-SGNS gradient-descent runs at each preset, shared by chapter 26 (which trains them) and
#: chapter 28 (which reads them from the cache and finds where they are heading). ``sizes`` are
#: ``(V, d, h)``: run to ``h`` characteristic times of mode ``d``; ``h`` grows with ``V`` because the steps
#: come later than the linear rates say (chapter 26, section 2). The smoke preset's sizes are small
#: stand-ins for the book's.
TIED_SGNS_RUNS: dict[str, dict[str, Any]] = {
    "smoke": dict(corpus="enwiki2015_1m7", sizes=[(800, 16, 4.0), (1000, 20, 4.0)], sigma_sq=1e-8,
                  lr_factor=0.15),
    "book": dict(corpus="enwiki2015_17m", sizes=[(2000, 50, 4.0), (5000, 100, 6.0)], sigma_sq=1e-8,
                 lr_factor=0.15),
    "paper": dict(corpus="enwiki2015_17m", sizes=[(2000, 50, 4.0), (5000, 100, 6.0), (10_000, 200, 8.0)],
                  sigma_sq=1e-8, lr_factor=0.15),
}  # fmt: skip


def tied_sgns_runs(
    P: dict[str, Any], *, progress: bool = False
) -> dict[tuple[int, int], TiedSGNSRun]:
    """One :func:`tied_sgns_run` per size of ``P["sizes"]``, keyed ``(V, d)``, in that order.

    The runs are cached by their inputs, so a second chapter with the same ``P`` reads the first one's runs
    instead of training again (chapter 28 reads chapter 26's).

    Parameters
    ----------
    P : dict
        A chapter's sizes built on :data:`TIED_SGNS_RUNS`: ``corpus``, ``sizes`` (``(V, d, h)`` each: run to
        ``h`` characteristic times of mode ``d``), ``sigma_sq`` and ``lr_factor``; other keys are ignored.
    progress : bool, default False
        Show the trainer's progress bars.

    Returns
    -------
    dict
        ``{(V, d): TiedSGNSRun}``.

    Raises
    ------
    TypeError
        If ``P`` is not a dict.
    ValueError
        For a missing key, a size that is not ``(V, d, h)``, or a ``(V, d)`` listed twice.
    """
    if not isinstance(P, dict):
        raise checks.ArgumentTypeError(
            f"P must be a chapter's dict of sizes, got {checks.describe(P)}"
        )
    missing = [k for k in ("corpus", "sizes", "sigma_sq", "lr_factor") if k not in P]
    if missing:
        raise ValueError(
            f"P must hold the sizes ['corpus', 'sizes', 'sigma_sq', 'lr_factor']; missing {missing}"
        )
    out: dict[tuple[int, int], TiedSGNSRun] = {}
    for size in P["sizes"]:
        if len(size) != 3:
            raise ValueError(f"each of P['sizes'] must be (V, d, h), got {size!r}")
        V, d = checks.positive_int("V", size[0]), checks.positive_int("d", size[1])
        if (V, d) in out:
            raise ValueError(f"P['sizes'] lists (V, d) = {(V, d)} twice")
        out[(V, d)] = tied_sgns_run(P["corpus"], V, d, sigma_sq=P["sigma_sq"], lr_factor=P["lr_factor"],
                                    horizon=float(size[2]), progress=progress)  # fmt: skip
    return out


# ----------------------------------------------------------------------------------------------
# the authors' learning rate in the book's time
# ----------------------------------------------------------------------------------------------
AUTHORS_QWEM_SMALL: dict[str, float] = dict(
    lr=5.0, steps=4_000_000, decay_at=3_000_000, decay_factor=0.1, init_scale=1e-12
)
"""The authors' QWEM run from small init at V = 10,000, d = 200 (their public code, release commit
af71335): plain SGD at rate 5, multiplied by 0.1 at step 3M of 4M, from ``N(0, (1e-12/√d)²)``."""


def authors_rate_scale(P_joint: Any, P_unigram: Any, *, block: int = 1024) -> float:
    """``c = ΣG / ‖M*‖²_F`` with ``G_ab = P_ab + P_aP_b``: the factor that turns the authors' learning rate
    into the book's ``η`` for QWEM (Setting 3.1).

    The authors' loss is the minibatch mean of ``ψ_ab(∓x + x²/4)`` with ``ψ = mean(G)/G`` (Setting 3.1's
    weights divided by their mean), divided by ``−mean(M*²)`` (their "min_loss") and subtracted from 1.
    Its expectation is ``1 + c(¼‖WWᵀ − M*‖² − ¼‖M*‖²)``, so its gradient is ``c(WWᵀ − M*)W``: one of
    their steps at rate ``lr`` is the book's step ``W ← W − η(WWᵀ − M*)W`` at ``η = c·lr`` (and advances
    the book's time by ``2η``). ``ΣG`` is 2 when both tables sum to one. ``‖M*‖²`` is summed in row
    blocks of ``block`` rows (no V × V temporary)."""
    P = np.asarray(P_joint)  # read in row blocks below: a float32 table is not copied whole
    if not np.issubdtype(P.dtype, np.floating):
        raise checks.ArgumentTypeError(f"P_joint must be floating point, got dtype {P.dtype}")
    if P.ndim != 2 or P.shape[0] != P.shape[1] or P.size == 0:
        raise ValueError(f"P_joint must be a non-empty square V × V table, got shape {P.shape}")
    pu = checks.positive_array("P_unigram", P_unigram, ndim=1)
    if pu.shape != (P.shape[0],):
        raise ValueError(f"P_unigram must have length V = {P.shape[0]}, got shape {pu.shape}")
    block = checks.positive_int("block", block)
    sum_g, m2 = 0.0, 0.0
    for r in range(0, P.shape[0], int(block)):
        Pb = np.asarray(P[r : r + block], dtype=np.float64)
        if not (np.all(np.isfinite(Pb)) and np.all(Pb >= 0)):
            raise ValueError("P_joint must be finite and non-negative")
        Qb = np.outer(pu[r : r + block], pu)
        Gb = Pb + Qb
        sum_g += float(Gb.sum())
        m2 += float(np.sum((2.0 * (Pb - Qb) / Gb) ** 2))
    if m2 <= 0:
        raise ValueError("M* is zero: the words are independent, no time scale")
    return sum_g / m2


def authors_end_time(
    P_joint: Any,
    P_unigram: Any,
    *,
    lr: float = AUTHORS_QWEM_SMALL["lr"],
    steps: int = int(AUTHORS_QWEM_SMALL["steps"]),
    decay_at: int | None = int(AUTHORS_QWEM_SMALL["decay_at"]),
    decay_factor: float = AUTHORS_QWEM_SMALL["decay_factor"],
) -> float:
    """The book's time ``t = 2 c Σ_n lr_n`` (:func:`authors_rate_scale`, :func:`sgd_time`) at the end of
    an SGD schedule of the authors' kind: ``steps`` steps at ``lr``, multiplied by ``decay_factor`` from
    step ``decay_at`` on (``None``: no decay). The defaults are :data:`AUTHORS_QWEM_SMALL`."""
    from .dynamics import FLOW_TIME_SCALE

    lr = checks.positive("lr", lr)
    decay_factor = checks.positive("decay_factor", decay_factor)
    steps = checks.positive_int("steps", steps)
    at = steps if decay_at is None else checks.integer("decay_at", decay_at, low=0, high=steps)
    lr_sum = lr * at + lr * decay_factor * (int(steps) - at)
    return authors_rate_scale(P_joint, P_unigram) * lr_sum / FLOW_TIME_SCALE
