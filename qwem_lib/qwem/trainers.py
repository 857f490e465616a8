"""The trainers of Part II: minibatch SGD on sampled word pairs (:func:`train_pairs`).

Each step draws a minibatch of pairs (:mod:`qwem_lib.qwem.pairs`) and follows its gradient. A step
``W ← W − η ĝ`` advances the paper's time (the flow ``dW/dt = −½∇L`` of Lemma 3.1,
:data:`qwem_lib.qwem.dynamics.FLOW_TIME_SCALE`) by ``2η``: ``t = 2 Σ η`` (:func:`sgd_time`).

**Cost.** No Python loop per pair: one ``torch.randint``/``multinomial`` per batch, gathers, one
``index_add_`` for the gradient. The learning rate may follow a step decay (``decay_at``, ``decay_factor``;
the authors multiply it by 0.1 at 3M of 4M steps). Singular values of ``W`` and its principal-angle
cosines with a reference subspace (the top eigenvectors of M*) are logged at chosen steps.

Trained runs are cached under ``config.cache_dir()/training`` keyed by every input (corpus, sizes,
hyper-parameters, seed, device), so a later chapter reuses them.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..book import checks, config
from ..book.cache import array_key, read_npz, save_npz
from ..book.loop import Logs, run_steps
from ..data import Corpus, DataError
from .corpus_stats import STREAM_VOCAB, OOVRule, cooccurrence, resolve_corpus
from .pairs import (
    LOSSES,
    REWEIGHTINGS,
    Loss,
    Model,
    Reweighting,
    batch_loss_grad,
    make_sampler,
    make_tables,
    resolve_model,
)

__all__ = [
    "sgd_time",
    "TrainResult",
    "checked_device",
    "train_pairs",
    "initial_embeddings",
]


def sgd_time(lrs: np.ndarray) -> np.ndarray:
    """The paper's time reached after each SGD step: ``t = Σ η / FLOW_TIME_SCALE`` (= 2 Σ η)."""
    from .dynamics import FLOW_TIME_SCALE

    return np.cumsum(np.asarray(lrs, dtype=np.float64)) / FLOW_TIME_SCALE


@dataclass
class TrainResult:
    """A trained run. ``W`` (V, d) float32 and ``W0`` its initial value; ``steps`` (T,) logged steps
    (0 = init); ``times`` (T,) the paper's time ``2 Σ η`` at those steps; ``sv`` (T, d) singular values of
    ``W``; ``overlap`` (T, r, d) the signed overlaps ``q_iᵀu_k`` of the reference vectors (columns of
    ``reference``, e.g. M*'s top eigenvectors) with the left singular vectors ``u_k`` of ``W``;
    ``cosines`` (T, min(r, d)) the principal-angle cosines between ``W``'s column space and the first
    ``min(r, d)`` reference vectors; ``loss`` (T,) the minibatch loss at those steps (the exact expected loss
    for :func:`train_expected`); ``seconds`` wall time; ``pairs_per_s`` sampled pairs (positive +
    negative) per second (NaN for the noiseless trainer); ``config`` the inputs; ``seconds_per_step``
    (noiseless trainer) the wall time of one step (of one gradient for ``method="rkc"``); ``gradients``
    (noiseless trainer) the gradients it spent, logs excluded; ``observed`` (T,) the logged ``⟨O, WWᵀ⟩``
    of :func:`train_expected`'s ``observe`` (empty without it)."""

    W: np.ndarray
    W0: np.ndarray
    steps: np.ndarray
    times: np.ndarray
    sv: np.ndarray
    overlap: np.ndarray
    cosines: np.ndarray
    loss: np.ndarray
    seconds: float
    pairs_per_s: float
    config: dict = field(default_factory=dict)
    cached: bool = False
    seconds_per_step: float = float("nan")
    gradients: int = 0
    observed: np.ndarray = field(default_factory=lambda: np.zeros(0))

    #: the arrays of a cache entry (``pps``, ``sps``, ``grads``: ``pairs_per_s``, ``seconds_per_step``,
    #: ``gradients``); entries written before the last three existed lack them and read as the defaults
    FIELDS = ("W", "W0", "steps", "times", "sv", "overlap", "cosines", "loss", "seconds", "pps", "sps",
              "grads", "observed")  # fmt: skip

    def to_arrays(self) -> dict[str, Any]:
        """The run as the arrays of its cache entry (:meth:`from_arrays` reads them back)."""
        return dict(
            W=self.W, W0=self.W0, steps=self.steps, times=self.times, sv=self.sv, overlap=self.overlap,
            cosines=self.cosines, loss=self.loss, seconds=self.seconds, pps=self.pairs_per_s,
            sps=self.seconds_per_step, grads=self.gradients, observed=self.observed,
        )  # fmt: skip

    @classmethod
    def from_arrays(
        cls, z: Mapping[str, np.ndarray], config: dict, *, cached: bool = True, gradients: int = 0
    ) -> TrainResult:
        """The run a cache entry holds (``gradients``: the value when the entry has no ``grads``)."""
        return cls(
            W=z["W"], W0=z["W0"], steps=z["steps"], times=z["times"], sv=z["sv"], overlap=z["overlap"],
            cosines=z["cosines"], loss=z["loss"], seconds=float(z["seconds"]),
            pairs_per_s=float(z["pps"]) if "pps" in z else float("nan"), config=config, cached=cached,
            seconds_per_step=float(z["sps"]) if "sps" in z else float("nan"),
            gradients=int(z["grads"]) if "grads" in z else gradients,
            observed=z["observed"] if "observed" in z else np.zeros(0),
        )  # fmt: skip


def check_hparams(
    V: int,
    d: int,
    steps: int,
    lr: float,
    batch: int,
    init_scale: float,
    decay_at: float | None,
    decay_factor: float,
    model: str,
    k: int,
) -> None:
    if model not in ("qwem", "sgns") and model not in {
        f"{lo}-{rw}" for lo in LOSSES for rw in REWEIGHTINGS
    }:
        raise ValueError(f"model must be 'qwem' or 'sgns', got {model!r}")
    d = checks.integer("d", d, low=1)
    if d > V:
        raise ValueError(f"d={d} exceeds the vocabulary size V={V}: W has rank at most V")
    checks.positive_int("steps", steps)
    checks.positive("lr (the learning rate)", lr)
    checks.positive_int("batch", batch)
    checks.positive("init_scale", init_scale)
    if decay_at is not None:
        checks.real(
            "decay_at (a fraction of the steps)",
            decay_at,
            low=0,
            high=1,
            low_open=True,
            high_open=True,
        )
    checks.real("decay_factor", decay_factor, low=0, high=1, low_open=True)
    checks.positive_int("k (negatives per positive)", k)


def reference_key(reference: np.ndarray) -> str:
    """A key for a reference basis that ignores column signs and last-bit noise of the eigensolver."""
    R = np.asarray(reference, dtype=np.float64)
    R = R * np.where(R[np.argmax(np.abs(R), axis=0), np.arange(R.shape[1])] < 0, -1.0, 1.0)
    return hashlib.sha256(np.round(R, 4).astype(np.float32).tobytes()).hexdigest()[:8]


def logged_overlaps(ov_logs: list, n_logs: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The logged overlaps ``(T, r, d)`` with the reference and their principal-angle cosines ``(T, min(r, d))``
    (empty arrays when no reference was given)."""
    ov = np.asarray(ov_logs) if ov_logs else np.zeros((n_logs, 0, d))
    r = min(ov.shape[1], d)
    cos = (
        np.clip(np.linalg.svd(ov[:, :r, :], compute_uv=False), 0.0, 1.0)
        if r
        else np.zeros((n_logs, 0))
    )
    return ov, cos


def checked_device(device: Any) -> Any:
    """``device`` as a torch device (default :func:`config.device`); a CUDA device torch cannot see is
    refused with a ValueError naming the argument (torch's own error is an AssertionError)."""
    import torch

    if device is None:
        return config.device()
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"device={device!r} is not a torch device ({exc})") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} but torch sees no CUDA device (torch {torch.__version__}); "
            "pass device='cpu' or leave it unset"
        )
    return dev


def _cache_file(cfg: dict) -> Any:
    blob = json.dumps(cfg, sort_keys=True, default=str).encode()
    return (
        config.cache_dir() / "training" / f"{cfg['model']}-V{cfg['V']}-d{cfg['d']}-"
        f"{hashlib.sha256(blob).hexdigest()[:16]}.npz"
    )


def train_pairs(
    corpus: str | Corpus,
    V: int,
    d: int,
    *,
    model: Model = "qwem",
    steps: int,
    lr: float,
    batch: int = 50_000,
    init_scale: float = 1e-6,
    decay_at: float | None = None,
    decay_factor: float = 0.1,
    log_steps: Sequence[int] | np.ndarray | None = None,
    n_logs: int = 200,
    reference: np.ndarray | None = None,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    window: int = 16,
    oov: OOVRule = "authors",
    stream_vocab: int = STREAM_VOCAB,
    seed: int = 0,
    device: Any = None,
    dtype: Any = None,
    use_cache: bool = True,
    progress: bool = True,
    stats: tuple[np.ndarray, np.ndarray] | None = None,
    estimator: str = "split",
    loss: Loss | None = None,
    reweighting: Reweighting | None = None,
) -> TrainResult:
    """Train tied embeddings ``W`` (V × d) by minibatch SGD on pairs sampled from ``corpus``.

    ``model="qwem"`` is the Setting-3.1 QWEM loss (module docstring); ``model="sgns"`` word2vec's loss
    with ``k`` negatives from ``P^power`` and subsampling ``sample`` as pair weights. ``loss`` and
    ``reweighting``, when given, replace the corresponding half of ``model`` (:func:`resolve_model`):
    the four runs of chapter 25's ablation, whose expected loss is :func:`population_loss`. The run is
    cached under ``config.cache_dir()/training``, keyed by every input that changes it.

    The optional keyword arguments, by what they set:

    ====================  ==================  ================================================================
    group                 argument            meaning (default)
    ====================  ==================  ================================================================
    minibatches           ``batch``           positive pairs per step (50,000); as many negatives (Setting
                                              3.1) or ``k·batch`` (word2vec's reweighting)
    start                 ``init_scale``      ``W(0) = init_scale/√d · N(0, 1)``, the authors' start (1e-6)
    start                 ``seed``            seed of ``W(0)`` and of the sampler (0)
    schedule              ``decay_at``        fraction of ``steps`` after which the rate is multiplied by
                                              ``decay_factor`` (None: constant rate)
    schedule              ``decay_factor``    that factor (0.1)
    logs                  ``log_steps``       the steps to log (None: ``n_logs`` evenly spaced)
    logs                  ``n_logs``          number of logs when ``log_steps`` is None (200)
    logs                  ``reference``       V × r reference vectors (e.g. M*'s eigenvectors) for the
                                              logged overlaps and principal-angle cosines (None)
    word2vec's loss       ``k``               negatives per positive pair (1)
    word2vec's loss       ``sample``          subsampling threshold of the pair weights (1e-5)
    word2vec's loss       ``power``           negatives drawn from ``P^power`` (0.75)
    pair stream           ``window``          context window, each side (16)
    pair stream           ``oov``             out-of-vocabulary rule ("authors": only words beyond the
                                              top ``stream_vocab`` are removed before windowing)
    pair stream           ``stream_vocab``    that vocabulary (20,000)
    pair stream           ``stats``           ``(P_joint, P_unigram)`` of the same stream (None: computed
                                              by :func:`cooccurrence`; QWEM needs them for Ψ)
    estimator             ``estimator``       QWEM only: ``"split"`` computes the corpus-free quadratic
                                              part ¼‖WWᵀ‖² exactly and samples the linear part
                                              (:func:`split_loss_grad`); ``"sampled"`` samples every term
                                              (:func:`pair_loss_grad`)
    ablation              ``loss``            ``"quartic"`` or ``"logistic"`` (None: from ``model``)
    ablation              ``reweighting``     ``"setting31"`` or ``"word2vec"`` (None: from ``model``)
    hardware              ``device``          torch device (None: :func:`config.device`)
    hardware              ``dtype``           torch dtype (None: float64 on the CPU, float32 on CUDA)
    running               ``use_cache``       read and write the cache (True)
    running               ``progress``        a progress bar (True)
    ====================  ==================  ================================================================

    Parameters
    ----------
    corpus : str or Corpus
        A registered corpus name or a loaded :class:`~qwem_lib.data.Corpus`.
    V, d : int
        Vocabulary size (the ``V`` most frequent words, ``V >= 2``) and embedding dimension (``d <= V``).
    model : {"qwem", "sgns"}
        The loss and reweighting together (default ``"qwem"``).
    steps : int
        SGD steps (keyword only, required).
    lr : float
        Learning rate η > 0 (keyword only, required); the time axis is ``t = 2 Σ η``.

    Returns
    -------
    TrainResult
        ``W``, ``W(0)``, the logged steps, times, singular values, overlaps, cosines and minibatch
        losses, wall time and pairs per second.

    Raises
    ------
    ValueError
        For a bad hyper-parameter (non-positive ``lr``, ``d > V``, an unknown ``model`` …), named in
        the message.
    DataError
        For an empty corpus.

    Examples
    --------
    >>> import qwem_lib as q
    >>> r = q.train_pairs("enwiki2015_1m7", 100, 4, steps=20, lr=0.01, batch=2_000,
    ...                   init_scale=1e-3, n_logs=4, use_cache=False, progress=False)
    >>> r.W.shape, r.sv.shape[1]
    ((100, 4), 4)
    >>> bool(r.sv[-1, 0] > r.sv[0, 0])  # the first mode has started to grow
    True
    """
    import torch

    c = resolve_corpus(corpus)
    if c.n_tokens == 0:
        raise DataError(f"corpus {c.name!r} is empty")
    if not isinstance(V, (int, np.integer)) or isinstance(V, bool) or V < 2:
        raise ValueError(f"V must be an integer >= 2, got {V!r}")
    name, loss, reweighting = resolve_model(model, loss, reweighting)
    check_hparams(int(V), d, steps, lr, batch, init_scale, decay_at, decay_factor, name, k)
    V, d, steps, batch = int(V), int(d), int(steps), int(batch)
    dev = checked_device(device)
    dt = dtype or (torch.float32 if dev.type == "cuda" else torch.float64)
    if log_steps is None:
        log_steps = np.unique(np.round(np.linspace(0, steps, n_logs + 1)).astype(int))
    log_steps = np.unique(np.clip(np.asarray(log_steps, dtype=int), 0, steps))
    probe = c.fingerprint()  # all the ids of a corpus not loaded from registered files (issue 27)
    cfg = dict(
        corpus=c.name,
        n=c.n_tokens,
        probe=probe,
        V=V,
        d=d,
        model=name,
        steps=steps,
        lr=float(lr),
        batch=batch,
        init_scale=float(init_scale),
        decay_at=decay_at,
        decay_factor=decay_factor,
        log=hashlib.sha256(log_steps.tobytes()).hexdigest()[:8],
        k=k,
        sample=sample,
        power=power,
        window=window,
        oov=oov,
        stream_vocab=stream_vocab,
        seed=seed,
        device=dev.type,
        estimator=estimator if reweighting == "setting31" else None,
        dtype=str(dt),
        ref=None if reference is None else reference_key(reference),
        version=2,
    )
    if stats is not None:  # only then, so that the keys of every other run are unchanged (issue 27)
        if not isinstance(stats, (tuple, list)) or len(stats) != 2:
            raise TypeError("stats must be a pair (P_joint, P_unigram)")
        cfg["stats"] = array_key(*(np.asarray(a, dtype=np.float64) for a in stats))
    path = _cache_file(cfg) if use_cache else None
    hit = read_npz(path, TrainResult.FIELDS[:10]) if path is not None else None
    if hit is not None:  # the cached run, read whole
        return TrainResult.from_arrays(hit, cfg, cached=True)

    sampler = make_sampler(
        np.asarray(c.ids), V, window, oov=oov, stream_vocab=stream_vocab, device=dev
    )
    if stats is None:
        _, P, pu = cooccurrence(c, V, window, oov=oov, stream_vocab=stream_vocab)
    else:
        P, pu = stats
    gen = torch.Generator(device=dev)
    gen.manual_seed(int(config.SEED) * 1000 + int(seed))
    W = initial_embeddings(V, d, init_scale, gen).to(dt)
    ref = (
        None
        if reference is None
        else torch.as_tensor(
            np.linalg.qr(np.asarray(reference, np.float64))[0], device=dev, dtype=torch.float64
        )
    )

    tables = make_tables(
        None,
        P,
        pu,
        sampler,
        dtype=dt,
        k=k,
        sample=sample,
        power=power,
        estimator=estimator,
        loss=loss,
        reweighting=reweighting,
    )
    W0 = W.to(torch.float32).cpu().numpy()
    lrs = np.full(steps, float(lr))
    if decay_at is not None:
        lrs[int(round(decay_at * steps)) :] *= decay_factor
    logs, seconds = _sgd(
        W, lambda: batch_loss_grad(W, sampler, tables, gen, batch=batch), lrs, log_steps, ref,
        name=name, desc=f"{name} V={V} d={d}" if progress else None,
    )  # fmt: skip
    per_step = batch * (2 if reweighting == "setting31" else 1 + k)
    steps_arr = logs.arrays()["steps"]
    ov, cos = logged_overlaps(logs["ov"], len(steps_arr), d)
    res = TrainResult(
        W=W.to(torch.float32).cpu().numpy(),
        W0=W0,
        steps=steps_arr,
        times=np.concatenate([[0.0], sgd_time(lrs)])[steps_arr],
        sv=np.asarray(logs["sv"]),
        overlap=ov,
        cosines=cos,
        loss=np.asarray(logs["loss"]),
        seconds=seconds,
        pairs_per_s=per_step * steps / max(seconds, 1e-9),
        config=cfg,
    )
    if path is not None:
        save_npz(path, res.to_arrays())
    return res


def _sgd(
    W: Any,
    loss_grad: Callable[[], tuple[Any, Any]],
    lrs: np.ndarray,
    log_steps: np.ndarray,
    ref: Any,
    *,
    name: str,
    desc: str | None,
) -> tuple[Logs, float]:
    """The loop of :func:`train_pairs` (:func:`~qwem_lib.book.loop.run_steps`): ``W ← W − lrs[s]·G`` in
    place, ``(loss, G) = loss_grad()`` a minibatch's loss and gradient, for ``s < len(lrs)``; logs the
    steps, singular values, overlaps with the orthonormal ``ref`` (None: none) and the last minibatch loss
    (NaN at step 0) at ``log_steps``. Returns the logs and the seconds spent."""
    import torch

    logs = Logs("steps", "sv", "ov", "loss")
    last = {"loss": float("nan")}  # the minibatch loss of the last step (NaN before the first)

    def record(s: int) -> None:
        U, sv, _ = torch.linalg.svd(W.to(torch.float64), full_matrices=False)
        logs["steps"].append(s)
        logs["sv"].append(sv.cpu().numpy())
        if ref is not None:
            logs["ov"].append((ref.T @ U).cpu().numpy())
        logs["loss"].append(float(last["loss"]))

    def advance(s: int) -> None:
        batch_loss, G = loss_grad()
        if not torch.isfinite(batch_loss):
            raise FloatingPointError(
                f"{name}: the loss became {float(batch_loss)} at step {s}; lower the "
                f"learning rate (lr={lrs[0]})"
            )
        W.sub_(float(lrs[s]) * G)
        last["loss"] = batch_loss

    t0 = time.time()
    with torch.no_grad():
        run_steps(advance, start=0, stop=len(lrs), log_at=log_steps, record=record, desc=desc,
                  mininterval=2.0)  # fmt: skip
    return logs, time.time() - t0


def initial_embeddings(V: int, d: int, init_scale: float, gen) -> Any:
    """``W(0) = init_scale/√d · N(0, 1)`` (V × d, float64 torch tensor) drawn from the torch generator
    ``gen``: the start of :func:`train_pairs` and :func:`train_expected` for the same seed and device."""
    import torch

    V, d = checks.positive_int("V", V), checks.positive_int("d", d)
    init_scale = checks.positive("init_scale", init_scale)
    return torch.randn(V, d, generator=gen, device=gen.device, dtype=torch.float64) * (
        init_scale / math.sqrt(d)
    )
