"""Training QWEM and SGNS by minibatch SGD on word pairs sampled from a real corpus (Part II).

Chapters 12–13 integrate the *population* flow of QWEM on M* itself. Here the models see only what
word2vec sees: pairs of words drawn from the corpus windows (positives) and from the unigram product
(negatives). The expectation of every minibatch gradient is the population gradient of Theorem 1's
loss, so SGD is an unbiased, noisy discretisation of the flow of chapter 12.

**Positive pairs.** The corpus is held as an id array on the device, after the out-of-vocabulary rule of
:mod:`qwem_lib.corpus_stats` (the authors' rule by default: the stream keeps the top ``stream_vocab``
words, and pairs involving a word ranked ``>= V`` are discarded). A positive pair is drawn in three
vectorised steps: an offset ``j`` in ``1..window`` with probability ∝ ``w_j (n − j)`` (``w_j = window + 1
− j``, ``n`` the stream length), a start ``t`` uniform in ``[0, n − j)``, and a fair coin for the order.
The pair ``(s_t, s_{t+j})`` then has probability ``C_ab / (2 Σ_j w_j (n − j))`` where ``C`` are exactly the
symmetric weighted counts of :func:`qwem_lib.corpus_stats.cooccurrence_counts`; so, conditioned on being
in the vocabulary, the pair is distributed as ``P_ab``. Out-of-vocabulary draws keep their slot in the
batch with weight 0, and the in-vocabulary draws are divided by the known acceptance rate
``α = Σ C / (2 Σ_j w_j (n − j))``: the minibatch mean is then an unbiased estimate of ``Σ_ab P_ab f(a, b)``.

**Negative pairs.** Two independent uniform draws from the in-vocabulary tokens of the stream: ``(a, b)``
with probability exactly ``P_a P_b`` (``P_a`` the renormalised unigram, :meth:`Corpus.unigram`).

**QWEM** (tied ``W``, Setting 3.1). Each positive pair contributes ``Ψ_ab (−x + x²/4)``, each negative
``Ψ_ab (x + x²/4)``, with ``x = w_a·w_b`` and ``Ψ_ab = 1/(P_ab + P_aP_b)`` looked up in the ``V × V``
table (``estimator="sampled"``). The expected minibatch loss is Theorem 1's
:func:`qwem_lib.theory.qwem_loss`, equal to ``¼‖WWᵀ − M*‖²`` up to a constant (``g = 1``), whose
gradient is ``(WWᵀ − M*)W``. Because Setting 3.1 makes the quadratic weights constant, the quadratic
part ``Σ_ab (P_ab + P_aP_b)Ψ_ab x²/4 = ¼‖WWᵀ‖²`` does not depend on the corpus; the default
``estimator="split"`` computes it exactly and samples only the linear, corpus-dependent part. The
weights Ψ reach ``1/(P_a P_b)`` for a pair of rare words (about 10⁸ at V = 2,000), and in the fully
sampled estimator such a pair multiplies ``x²`` by that weight: one draw can then make an unstable step.
In the split estimator a draw only adds a bounded push. A step
``W ← W − η ĝ`` therefore advances the paper's time (the flow ``dW/dt = −½∇L`` of Lemma 3.1,
:data:`qwem_lib.dynamics.FLOW_TIME_SCALE`) by ``2η``: ``t = 2 Σ η``.

**SGNS** (word2vec's choices, tied ``W`` as in the authors' runs). The positives are the same corpus
pairs, weighted by word2vec's subsampling as pair weights ``r_ab = ρ_a ρ_b`` with
``ρ_a = clip(10⁻⁵/P_a + √(10⁻⁵/P_a), 0, 1)``; each positive gets ``k`` negatives that keep its centre
word ``a`` and draw ``b'`` from ``P^0.75`` (by exact sampling, not importance weights), with the
positive's weight. Losses: ``−log σ(x)`` and ``−log σ(−x)``. The expected loss is
``Σ_ab P_ab r_ab [ℓ⁺(x_ab) + k Σ_b' Q_b' ℓ⁻(x_ab')]`` (:func:`sgns_population_loss`). Its quadratic
expansion at small ``W`` (chapter 10) makes ``W`` grow as ``dW/dt = B W`` with
``B = ½(D + Dᵀ)``, ``D = P∘r − k m Qᵀ`` (:func:`sgns_growth_matrix`), the SGNS analogue of M*.

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
import numbers
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .book import config
from .corpus_stats import STREAM_VOCAB, _offset_weights, cooccurrence, resolve_corpus
from .data import Corpus, DataError
from .data.cache import atomic_path, read_npz

__all__ = [
    "TEXT_RUNS",
    "text_run_kwargs",
    "PairSampler",
    "make_sampler",
    "TrainResult",
    "train_pairs",
    "qwem_pair_terms",
    "sgns_pair_terms",
    "subsampling_keep",
    "sgns_population_loss",
    "sgns_growth_matrix",
    "LOSSES",
    "REWEIGHTINGS",
    "resolve_model",
    "pair_weights",
    "population_loss",
    "population_gradient",
    "growth_matrix",
    "make_tables",
    "pair_loss_grad",
    "batch_loss_grad",
    "split_loss_grad",
    "logistic_split_loss_grad",
    "principal_cosines",
    "sgd_time",
    "plan_schedule",
    "PresetRun",
    "run_preset",
    "AblationRun",
    "run_ablation",
    "preset_schedule",
    "plot_steps",
    "eigen_overlap",
    "nested_subspace_sines",
    "diagonal_dominance",
]

Model = Literal["qwem", "sgns"]
Loss = Literal["quartic", "logistic"]
Reweighting = Literal["setting31", "word2vec"]
LOSSES: tuple[str, ...] = ("quartic", "logistic")
"""The per-pair losses: QWEM's quartic ``(∓x + x²/4)`` and word2vec's logistic ``−log σ(±x)``."""
REWEIGHTINGS: tuple[str, ...] = ("setting31", "word2vec")
"""The reweightings: Setting 3.1 (``Ψ⁺ = Ψ⁻ = 1/(P_ab + P_aP_b)``, negatives from ``P_aP_b``; the authors'
code calls it "omniscient") and word2vec's (subsampling ``ρ_aρ_b`` as pair weights, ``k`` negatives per
positive from ``P^0.75`` that keep the positive's centre word and weight)."""
_NAMED = {("quartic", "setting31"): "qwem", ("logistic", "word2vec"): "sgns"}


# ----------------------------------------------------------------------------------------------
# the sampler
# ----------------------------------------------------------------------------------------------
@dataclass
class PairSampler:
    """The corpus as a device id array, with everything needed to draw pairs in batches.

    ``stream`` (n,) int64 token ids after the out-of-vocabulary rule (ids ``>= V`` may remain: they keep
    their window slots); ``offset_p`` (window,) the probability of each offset ``j = 1..window``;
    ``acceptance`` the probability α that a drawn positive pair lies in the ``V × V`` block;
    ``vocab_tokens`` the in-vocabulary tokens (for exact unigram draws).
    """

    V: int
    window: int
    stream: Any
    offset_p: Any
    acceptance: float
    vocab_tokens: Any
    device: Any

    def positive(self, n: int, gen) -> tuple[Any, Any, Any]:
        """``(a, b, valid)``: ``n`` ordered pairs from the windows; ``valid`` marks both words ``< V``."""
        import torch

        j = torch.multinomial(self.offset_p, n, replacement=True, generator=gen) + 1
        L = self.stream.shape[0]
        u = torch.rand(n, generator=gen, device=self.device, dtype=torch.float64)
        t = torch.minimum((u * (L - j)).long(), L - j - 1)
        x, y = self.stream[t], self.stream[t + j]
        flip = torch.rand(n, generator=gen, device=self.device) < 0.5
        a, b = torch.where(flip, y, x), torch.where(flip, x, y)
        valid = (a < self.V) & (b < self.V)
        a = torch.where(valid, a, torch.zeros_like(a))
        b = torch.where(valid, b, torch.zeros_like(b))
        return a, b, valid

    def unigram(self, n: int, gen) -> Any:
        """``n`` independent draws from the unigram distribution ``P_a`` of the top-``V`` words."""
        import torch

        k = torch.randint(0, self.vocab_tokens.shape[0], (n,), generator=gen, device=self.device)
        return self.vocab_tokens[k]


def _stream_ids(ids: np.ndarray, V: int, oov: str, stream_vocab: int) -> np.ndarray:
    """The token stream the windows run over, by the out-of-vocabulary rule of ``corpus_stats``."""
    if oov == "authors":
        return ids[ids < max(stream_vocab, V)]
    if oov == "drop":
        return ids[ids < V]
    if oov == "skip":
        return ids
    raise ValueError(f"oov must be 'authors', 'drop' or 'skip', got {oov!r}")


def make_sampler(
    ids: np.ndarray,
    V: int,
    window: int = 16,
    *,
    oov: str = "authors",
    stream_vocab: int = STREAM_VOCAB,
    device: Any = None,
) -> PairSampler:
    """A :class:`PairSampler` for the token-id array ``ids`` (frequency ranks) and vocabulary size ``V``."""
    import torch

    ids = np.asarray(ids)
    if ids.ndim != 1:
        raise ValueError(f"ids must be a 1-D token-id array, got shape {ids.shape}")
    if not isinstance(V, (int, np.integer)) or isinstance(V, bool) or V < 2:
        raise ValueError(f"V must be an integer >= 2, got {V!r}")
    w = _offset_weights(window, "linear").astype(np.float64)
    stream = _stream_ids(ids, int(V), oov, stream_vocab).astype(np.int64)
    n = stream.size
    if n <= window or int((stream < V).sum()) < 2:
        raise DataError(
            f"the corpus is empty or too short for window {window} (stream of {n} tokens)"
        )
    jj = np.arange(1, window + 1)
    mass = w * (n - jj)
    # the weighted number of in-vocabulary ordered pairs, Σ C_ab (both directions), without building C
    inv = stream < V
    inblock = sum(float(w[j - 1]) * float(np.count_nonzero(inv[:-j] & inv[j:])) for j in jj)
    acceptance = inblock / float(mass.sum())
    if acceptance <= 0:
        raise DataError(f"no pair of in-vocabulary words (V={V}) within the window")
    dev = torch.device(device) if device is not None else config.device()
    return PairSampler(
        V=int(V),
        window=int(window),
        stream=torch.as_tensor(stream, device=dev),
        offset_p=torch.as_tensor(mass / mass.sum(), device=dev),
        acceptance=float(acceptance),
        vocab_tokens=torch.as_tensor(stream[inv], device=dev),
        device=dev,
    )


# ----------------------------------------------------------------------------------------------
# per-pair losses and their derivatives in x = w_a·w_b
# ----------------------------------------------------------------------------------------------
def qwem_pair_terms(x, positive: bool):
    """QWEM's per-pair loss and its derivative in ``x``: ``(−x + x²/4, −1 + x/2)`` for a positive pair,
    ``(x + x²/4, 1 + x/2)`` for a negative one (works on numbers, NumPy arrays and torch tensors)."""
    sgn = -1.0 if positive else 1.0
    return sgn * x + x * x / 4.0, sgn + x / 2.0


def sgns_pair_terms(x, positive: bool):
    """SGNS's per-pair loss and derivative: ``(−log σ(x), −σ(−x))`` positive, ``(−log σ(−x), σ(x))``
    negative (torch tensors)."""
    import torch
    import torch.nn.functional as F

    if positive:
        return F.softplus(-x), -torch.sigmoid(-x)
    return F.softplus(x), torch.sigmoid(x)


def subsampling_keep(P_unigram: np.ndarray, sample: float = 1e-5) -> np.ndarray:
    """word2vec's keep probability ρ_a = clip(t/P_a + √(t/P_a), 0, 1) with ``t = sample``."""
    p = np.asarray(P_unigram, dtype=np.float64)
    r = sample / p
    return np.clip(r + np.sqrt(r), 0.0, 1.0)


def _sgns_parts(P_joint, P_unigram, k: int, sample: float, power: float):
    P = np.asarray(P_joint, dtype=np.float64)
    rho = subsampling_keep(P_unigram, sample)
    Pr = P * np.outer(rho, rho)
    m = Pr.sum(axis=1)
    Q = np.asarray(P_unigram, dtype=np.float64) ** power
    Q = Q / Q.sum()
    return Pr, k * np.outer(m, Q)


def sgns_population_loss(
    W, P_joint, P_unigram, *, k: int = 1, sample: float = 1e-5, power: float = 0.75
) -> float:
    """The expected SGNS minibatch loss of :func:`train_pairs`:
    ``Σ_ab P_ab r_ab [−log σ(x_ab)] + k Σ_ab m_a Q_b [−log σ(−x_ab)]`` with ``m_a = Σ_b P_ab r_ab``."""
    Pos, Neg = _sgns_parts(P_joint, P_unigram, k, sample, power)
    X = np.asarray(W, dtype=np.float64) @ np.asarray(W, dtype=np.float64).T
    return float(np.sum(Pos * np.logaddexp(0.0, -X) + Neg * np.logaddexp(0.0, X)))


def sgns_growth_matrix(
    P_joint, P_unigram, *, k: int = 1, sample: float = 1e-5, power: float = 0.75
) -> np.ndarray:
    """``B``: at small ``W`` the SGNS gradient is ``−B W`` (``ℓ± ≈ log 2 ∓ x/2``), so ``W`` grows along the
    top eigenvectors of ``B = ½[(A + Aᵀ) − (N + Nᵀ)]``, ``A = P∘r`` the positive and ``N = k m Qᵀ`` the
    negative weights — the SGNS counterpart of M* in the early, linear phase."""
    Pos, Neg = _sgns_parts(P_joint, P_unigram, k, sample, power)
    D = Pos - Neg
    return 0.5 * (D + D.T)


# ----------------------------------------------------------------------------------------------
# loss × reweighting: the four models of the ablation (chapter 25)
# ----------------------------------------------------------------------------------------------
def resolve_model(
    model: str | None = "qwem", loss: str | None = None, reweighting: str | None = None
) -> tuple[str, str, str]:
    """``(name, loss, reweighting)`` of a run.

    ``model="qwem"`` is (quartic, setting31) and ``model="sgns"`` is (logistic, word2vec). ``loss`` and
    ``reweighting``, when given, override the corresponding half of ``model``. ``name`` is ``"qwem"`` or
    ``"sgns"`` for those two combinations and ``"<loss>-<reweighting>"`` for the two mixed ones.
    """
    if model is not None and model not in ("qwem", "sgns"):
        raise ValueError(f"model must be 'qwem' or 'sgns', got {model!r}")
    base = {"qwem": ("quartic", "setting31"), "sgns": ("logistic", "word2vec"), None: (None, None)}[
        model
    ]
    lo = loss if loss is not None else base[0]
    rw = reweighting if reweighting is not None else base[1]
    if lo not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {lo!r}")
    if rw not in REWEIGHTINGS:
        raise ValueError(f"reweighting must be one of {REWEIGHTINGS}, got {rw!r}")
    return _NAMED.get((lo, rw), f"{lo}-{rw}"), lo, rw


def pair_weights(
    P_joint,
    P_unigram,
    reweighting: Reweighting,
    *,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
) -> tuple[np.ndarray, np.ndarray]:
    """``(A, N)``: the expected weight with which the trainer's minibatch counts each ordered pair ``(a, b)``
    as a positive (``A``) and as a negative (``N``), so that its expected loss is
    ``Σ_ab A_ab ℓ⁺(x_ab) + N_ab ℓ⁻(x_ab)`` whatever the loss.

    ``"setting31"``: ``A = Ψ∘P``, ``N = Ψ∘(P_aP_b)`` with ``Ψ = 1/(P + P_aP_b)`` (so ``A + N = 1``);
    ``"word2vec"``: ``A = P∘(ρρᵀ)``, ``N = k m Qᵀ`` with ``m = A1`` and ``Q ∝ P^power``.
    """
    P = np.asarray(P_joint, dtype=np.float64)
    pu = np.asarray(P_unigram, dtype=np.float64)
    if P.ndim != 2 or P.shape[0] != P.shape[1] or pu.shape != (P.shape[0],):
        raise ValueError(f"need a V × V joint and a length-V unigram, got {P.shape} and {pu.shape}")
    if reweighting == "setting31":
        pp = np.outer(pu, pu)
        psi = 1.0 / (P + pp)
        return psi * P, psi * pp
    if reweighting == "word2vec":
        return _sgns_parts(P, pu, k, sample, power)
    raise ValueError(f"reweighting must be one of {REWEIGHTINGS}, got {reweighting!r}")


def _loss_np(loss: str, X: np.ndarray, positive: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per-pair loss and derivative in ``x`` for NumPy arrays."""
    sgn = -1.0 if positive else 1.0
    if loss == "quartic":
        return sgn * X + X * X / 4.0, sgn + X / 2.0
    if loss == "logistic":  # −log σ(−sgn·x) = softplus(sgn·x); derivative sgn·σ(sgn·x)
        return np.logaddexp(0.0, sgn * X), sgn * 0.5 * (1.0 + np.tanh(0.5 * sgn * X))
    raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")


def population_loss(
    W,
    P_joint,
    P_unigram,
    *,
    loss: Loss,
    reweighting: Reweighting,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
) -> float:
    """The expected minibatch loss of :func:`train_pairs` for ``loss`` × ``reweighting``:
    ``Σ_ab A_ab ℓ⁺(x_ab) + N_ab ℓ⁻(x_ab)`` with ``(A, N)`` from :func:`pair_weights`, ``x = WWᵀ``.
    (quartic × setting31 is Theorem 1's loss; logistic × word2vec is :func:`sgns_population_loss`.)"""
    A, N = pair_weights(P_joint, P_unigram, reweighting, k=k, sample=sample, power=power)
    W = np.asarray(W, dtype=np.float64)
    X = W @ W.T
    return float(np.sum(A * _loss_np(loss, X, True)[0] + N * _loss_np(loss, X, False)[0]))


def population_gradient(
    W,
    P_joint,
    P_unigram,
    *,
    loss: Loss,
    reweighting: Reweighting,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
) -> np.ndarray:
    """The gradient of :func:`population_loss` in ``W``: ``(C + Cᵀ) W`` with
    ``C_ab = A_ab ℓ⁺′(x_ab) + N_ab ℓ⁻′(x_ab)`` (dense, for checks on small vocabularies)."""
    A, N = pair_weights(P_joint, P_unigram, reweighting, k=k, sample=sample, power=power)
    W = np.asarray(W, dtype=np.float64)
    X = W @ W.T
    C = A * _loss_np(loss, X, True)[1] + N * _loss_np(loss, X, False)[1]
    return (C + C.T) @ W


def growth_matrix(
    P_joint,
    P_unigram,
    *,
    loss: Loss,
    reweighting: Reweighting,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
) -> np.ndarray:
    """``K``: at small ``W`` the population gradient is ``−K W``, so under the flow ``dW/dt = −½∇L``
    (time ``t = 2Ση``) each eigen-direction of ``K`` grows as ``s² ∝ e^{κ t}``, ``κ`` its eigenvalue.

    ``K = β (D + Dᵀ)`` with ``D = A − N`` (:func:`pair_weights`) and ``β = |ℓ±′(0)|``: 1 for the quartic
    loss, ½ for the logistic one. quartic × setting31 gives ``K = M*`` (Lemma 3.1's rates);
    logistic × word2vec gives :func:`sgns_growth_matrix`; logistic × setting31 gives ``M*/2``.
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    A, N = pair_weights(P_joint, P_unigram, reweighting, k=k, sample=sample, power=power)
    D = A - N
    return (1.0 if loss == "quartic" else 0.5) * (D + D.T)


# ----------------------------------------------------------------------------------------------
# subspace measurements
# ----------------------------------------------------------------------------------------------
def principal_cosines(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Cosines of the principal angles between the column spaces of ``A`` and ``B`` (descending)."""
    qa, _ = np.linalg.qr(np.asarray(A, dtype=np.float64))
    qb, _ = np.linalg.qr(np.asarray(B, dtype=np.float64))
    return np.clip(np.linalg.svd(qa.T @ qb, compute_uv=False), 0.0, 1.0)


def eigen_overlap(A: np.ndarray, B: np.ndarray, k: int | None = None) -> np.ndarray:
    """The paper's Figure 5 matrix ``(U_aᵀ U_b)²`` of the first ``k`` left singular vectors of ``A`` and
    ``B`` (the eigen-features of the two embeddings, ordered by singular value). Rows sum to ≤ 1."""
    Ua = np.linalg.svd(np.asarray(A, dtype=np.float64), full_matrices=False)[0]
    Ub = np.linalg.svd(np.asarray(B, dtype=np.float64), full_matrices=False)[0]
    k = min(Ua.shape[1], Ub.shape[1]) if k is None else int(k)
    if k < 1 or k > min(Ua.shape[1], Ub.shape[1]):
        raise ValueError(f"k must be in 1..{min(Ua.shape[1], Ub.shape[1])}, got {k}")
    return (Ua[:, :k].T @ Ub[:, :k]) ** 2


def nested_subspace_sines(overlap: np.ndarray) -> np.ndarray:
    """``sin θ_max`` between the top-``k`` left singular vectors of ``W`` and the first ``k`` reference
    vectors, for every ``k = 1..d`` and every logged time, from the signed overlaps ``(T, r, d)`` of
    :class:`TrainResult` (``r >= d``). 0 when the k-th step has brought exactly ``q_1 … q_k``."""
    ov = np.asarray(overlap, dtype=np.float64)
    if ov.ndim != 3 or ov.shape[1] < ov.shape[2]:
        raise ValueError(f"need overlaps of shape (T, r, d) with r >= d, got {ov.shape}")
    T, _, d = ov.shape
    out = np.empty((T, d))
    for k in range(1, d + 1):
        c = np.linalg.svd(ov[:, :k, :k], compute_uv=False).min(axis=1)
        out[:, k - 1] = np.sqrt(np.clip(1.0 - c**2, 0.0, 1.0))
    return out


def diagonal_dominance(O: np.ndarray, band: int = 0, offset: int = 0) -> float:
    """The share of an overlap matrix's mass within ``band`` of a diagonal:
    ``Σ_{|i − j − offset| ≤ band} O_ij / Σ O_ij`` (``offset = 0``: the main diagonal; ``offset = −1``: row i
    matched with column i + 1, e.g. when the second embedding has one extra leading feature).

    1 for a (banded) diagonal matrix; about ``(2·band + 1)/k`` for a matrix with no diagonal structure.
    """
    O = np.asarray(O, dtype=np.float64)
    if O.ndim != 2 or O.shape[0] != O.shape[1]:
        raise ValueError(f"need a square overlap matrix, got shape {O.shape}")
    i, j = np.indices(O.shape)
    tot = O.sum()
    if tot <= 0:
        raise ValueError("the overlap matrix has no mass")
    return float(O[np.abs(i - j - offset) <= band].sum() / tot)


def sgd_time(lrs: np.ndarray) -> np.ndarray:
    """The paper's time reached after each SGD step: ``t = Σ η / FLOW_TIME_SCALE`` (= 2 Σ η)."""
    from .dynamics import FLOW_TIME_SCALE

    return np.cumsum(np.asarray(lrs, dtype=np.float64)) / FLOW_TIME_SCALE


def _tables(
    model: str,
    P: np.ndarray,
    pu: np.ndarray,
    sampler: PairSampler,
    dev: Any,
    dt: Any,
    *,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    estimator: str = "split",
    loss: str | None = None,
    reweighting: str | None = None,
) -> dict:
    """The device tables a run's minibatch needs (Ψ for Setting 3.1; ρ and P^power for word2vec's)."""
    import torch

    name, lo, rw = resolve_model(model, loss, reweighting)
    if P.shape != (sampler.V, sampler.V) or pu.shape != (sampler.V,):
        raise ValueError(f"statistics of shape {P.shape}, {pu.shape} do not match V={sampler.V}")
    if estimator not in ("split", "sampled"):
        raise ValueError(f"estimator must be 'split' or 'sampled', got {estimator!r}")
    base = dict(
        model=name,
        loss=lo,
        reweighting=rw,
        dtype=dt,
        inv_acc=1.0 / sampler.acceptance,
        estimator=estimator if rw == "setting31" else "sampled",
    )
    if rw == "setting31":
        return dict(base, psi=torch.as_tensor(1.0 / (P + np.outer(pu, pu)), device=dev, dtype=dt))
    Q = pu**power
    return dict(
        base,
        k=int(k),
        rho=torch.as_tensor(subsampling_keep(pu, sample), device=dev, dtype=dt),
        Q=torch.as_tensor(Q / Q.sum(), device=dev, dtype=torch.float64),
    )


def make_tables(
    model: Model | None,
    P_joint: np.ndarray,
    P_unigram: np.ndarray,
    sampler: PairSampler,
    *,
    dtype: Any = None,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    estimator: str = "split",
    loss: Loss | None = None,
    reweighting: Reweighting | None = None,
) -> dict:
    """Public form of the per-run tables used by :func:`batch_loss_grad` (for tests and benchmarks);
    ``loss`` and ``reweighting`` override ``model`` as in :func:`resolve_model`."""
    import torch

    resolve_model(model, loss, reweighting)
    return _tables(
        model,
        np.asarray(P_joint, np.float64),
        np.asarray(P_unigram, np.float64),
        sampler,
        sampler.device,
        dtype or torch.float64,
        k=k,
        sample=sample,
        power=power,
        estimator=estimator,
        loss=loss,
        reweighting=reweighting,
    )


def pair_loss_grad(W, a, b, wp, na, nb, wn, model: str, batch: int):
    """Minibatch loss and its gradient in ``W`` (computed by hand, no autograd) for given pairs.

    ``(a, b, wp)`` positive pairs and their weights, ``(na, nb, wn)`` negative pairs and weights; the loss
    is ``Σ wp ℓ⁺(x_ab)/batch + Σ wn ℓ⁻(x_ab)/batch`` with ``x_ab = w_a·w_b``. ``model`` names the per-pair
    loss: ``"quartic"`` (or ``"qwem"``) or ``"logistic"`` (or ``"sgns"``).
    """
    import torch

    if model in ("qwem", "quartic"):
        terms = qwem_pair_terms
    elif model in ("sgns", "logistic"):
        terms = sgns_pair_terms
    else:
        raise ValueError(f"model must be 'quartic'/'qwem' or 'logistic'/'sgns', got {model!r}")
    x = (W[a] * W[b]).sum(1)
    xn = (W[na] * W[nb]).sum(1)
    lp, gp = terms(x, True)
    ln_, gn = terms(xn, False)
    loss = ((wp * lp).sum() + (wn * ln_).sum()) / batch
    cp = (wp * gp / batch)[:, None]
    cn = (wn * gn / batch)[:, None]
    G = torch.zeros_like(W)
    G.index_add_(0, a, cp * W[b])
    G.index_add_(0, b, cp * W[a])
    G.index_add_(0, na, cn * W[nb])
    G.index_add_(0, nb, cn * W[na])
    return loss, G


def batch_loss_grad(W, sampler: PairSampler, tables: dict, gen, *, batch: int):
    """Draw one minibatch (``batch`` positives and their negatives) and return ``(loss, gradient)``.

    The pairs and their weights follow the tables' reweighting, the per-pair terms their loss. The
    expectation over the draw is :func:`population_loss` and its gradient (:func:`qwem_lib.theory.qwem_loss`
    with Ψ⁺ = Ψ⁻ = 1/(P_ij + P_iP_j) for QWEM, :func:`sgns_population_loss` for SGNS).
    """
    import torch

    dt = tables["dtype"]
    a, b, valid = sampler.positive(batch, gen)
    if tables["reweighting"] == "setting31":
        wp = tables["psi"][a, b] * valid.to(dt) * tables["inv_acc"]
        na, nb = sampler.unigram(batch, gen), sampler.unigram(batch, gen)
        wn = tables["psi"][na, nb]
    else:
        k = tables["k"]
        rho = tables["rho"]
        wp = rho[a] * rho[b] * valid.to(dt) * tables["inv_acc"]
        na = a.repeat(k)
        nb = torch.multinomial(tables["Q"], batch * k, replacement=True, generator=gen)
        wn = wp.repeat(k)
    if tables["estimator"] == "split":
        if tables["loss"] == "quartic":
            return split_loss_grad(W, a, b, wp, na, nb, wn, batch)
        return logistic_split_loss_grad(W, a, b, wp, batch)
    return pair_loss_grad(W, a, b, wp, na, nb, wn, tables["loss"], batch)


def logistic_split_loss_grad(W, a, b, wp, batch: int):
    """The logistic loss under Setting 3.1 with its corpus-free part computed exactly (``"split"``).

    Setting 3.1 has ``A + N = 1`` (:func:`pair_weights`), and ``log(1 + e^{−x}) = log(1 + e^{x}) − x``,
    so the expected loss is ``Σ_ab A_ab ℓ⁺ + N_ab ℓ⁻ = Σ_ab log(1 + e^{x_ab}) − Σ_ab A_ab x_ab``. The first
    sum carries no information about the corpus and is computed exactly (gradient ``2σ(WWᵀ)W``,
    O(V² d)); only the linear second sum is estimated from the sampled positive pairs (weight
    ``wp = Ψ_ab/α``). As for QWEM's split estimator, a rare pair then adds a bounded push and never a
    curvature ``Ψ_ab σ(1 − σ)``, which in the fully sampled estimator makes steps unstable.
    """
    import torch
    import torch.nn.functional as F

    X = W @ W.T
    x = (W[a] * W[b]).sum(1)
    loss = F.softplus(X).sum() - (wp * x).sum() / batch
    G = 2.0 * torch.sigmoid(X) @ W
    cp = (-wp / batch)[:, None]
    G.index_add_(0, a, cp * W[b])
    G.index_add_(0, b, cp * W[a])
    return loss, G


def split_loss_grad(W, a, b, wp, na, nb, wn, batch: int):
    """QWEM's minibatch loss with its quadratic part computed exactly (the ``"split"`` estimator).

    Under Setting 3.1 the quadratic weights are constant, ``Σ_ab (P_abΨ_ab + P_aP_bΨ_ab) x²/4 =
    ¼‖WWᵀ‖²_F``: that part carries no information about the corpus and is computed exactly
    (gradient ``W WᵀW``, O(V d²)). Only the linear part ``Σ_ab Ψ_ab (P_a P_b − P_ab) x_ab = −½ Σ M*_ab x_ab``
    is estimated from the sampled pairs (``−x`` per positive, ``+x`` per negative, weighted). Same
    expectation as :func:`pair_loss_grad` with QWEM's terms, less variance, and no pair can make an
    unstable step: a sampled pair only adds a bounded push, never a curvature.
    """

    x = (W[a] * W[b]).sum(1)
    xn = (W[na] * W[nb]).sum(1)
    G2 = W.T @ W
    loss = 0.25 * (G2 * G2).sum() + ((wn * xn).sum() - (wp * x).sum()) / batch
    cp = (-wp / batch)[:, None]
    cn = (wn / batch)[:, None]
    G = W @ G2
    G.index_add_(0, a, cp * W[b])
    G.index_add_(0, b, cp * W[a])
    G.index_add_(0, na, cn * W[nb])
    G.index_add_(0, nb, cn * W[na])
    return loss, G


def plan_schedule(
    lam: Sequence[float],
    d: int,
    sigma_sq: float,
    *,
    lr_factor: float = 0.1,
    horizon: float = 3.0,
    capacity: Sequence[float] | None = None,
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


# ----------------------------------------------------------------------------------------------
# the trainer
# ----------------------------------------------------------------------------------------------
@dataclass
class TrainResult:
    """A trained run. ``W`` (V, d) float32 and ``W0`` its initial value; ``steps`` (T,) logged steps
    (0 = init); ``times`` (T,) the paper's time ``2 Σ η`` at those steps; ``sv`` (T, d) singular values of
    ``W``; ``overlap`` (T, r, d) the signed overlaps ``q_iᵀu_k`` of the reference vectors (columns of
    ``reference``, e.g. M*'s top eigenvectors) with the left singular vectors ``u_k`` of ``W``;
    ``cosines`` (T, min(r, d)) the principal-angle cosines between ``W``'s column space and the first
    ``min(r, d)`` reference vectors; ``loss`` (T,) the minibatch loss at those steps; ``seconds`` wall
    time; ``pairs_per_s`` sampled pairs (positive + negative) per second; ``config`` the inputs."""

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


def _check_hparams(
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
    if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
        raise ValueError(f"d must be a positive integer, got {d!r}")
    if d > V:
        raise ValueError(f"d={d} exceeds the vocabulary size V={V}: W has rank at most V")
    if not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    if not (
        isinstance(lr, numbers.Real) and not isinstance(lr, bool) and math.isfinite(lr) and lr > 0
    ):
        raise ValueError(f"the learning rate must be a positive finite number, got {lr!r}")
    if not isinstance(batch, (int, np.integer)) or batch < 1:
        raise ValueError(f"batch must be a positive integer, got {batch!r}")
    if not (math.isfinite(init_scale) and init_scale > 0):
        raise ValueError(f"init_scale must be positive, got {init_scale!r}")
    if decay_at is not None and not 0 < decay_at < 1:
        raise ValueError(f"decay_at must lie in (0, 1) (a fraction of the steps), got {decay_at!r}")
    if not 0 < decay_factor <= 1:
        raise ValueError(f"decay_factor must lie in (0, 1], got {decay_factor!r}")
    if not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k (negatives per positive) must be a positive integer, got {k!r}")


def _ref_key(reference: np.ndarray) -> str:
    """A key for a reference basis that ignores column signs and last-bit noise of the eigensolver."""
    R = np.asarray(reference, dtype=np.float64)
    R = R * np.where(R[np.argmax(np.abs(R), axis=0), np.arange(R.shape[1])] < 0, -1.0, 1.0)
    return hashlib.sha256(np.round(R, 4).astype(np.float32).tobytes()).hexdigest()[:8]


def _stats_key(stats) -> str:
    """A key for given ``stats = (P_joint, P_unigram)``: the digest of both arrays (issue 27)."""
    if not isinstance(stats, (tuple, list)) or len(stats) != 2:
        raise TypeError("stats must be a pair (P_joint, P_unigram)")
    h = hashlib.sha256()
    for a in stats:
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _checked_device(device: Any) -> Any:
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
    log_steps: Sequence[int] | None = None,
    n_logs: int = 200,
    reference: np.ndarray | None = None,
    k: int = 1,
    sample: float = 1e-5,
    power: float = 0.75,
    window: int = 16,
    oov: str = "authors",
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

    ``model="qwem"``: the Setting-3.1 QWEM loss (module docstring); ``model="sgns"``: word2vec's loss
    with ``k`` negatives from ``P^power`` and subsampling ``sample`` as pair weights. ``loss``
    (``"quartic"`` | ``"logistic"``) and ``reweighting`` (``"setting31"`` | ``"word2vec"``), when given,
    replace the corresponding half of ``model`` (:func:`resolve_model`): the four runs of the ablation
    of chapter 25; their expected loss is :func:`population_loss`. Each step draws ``batch`` positive
    pairs and ``batch`` (Setting 3.1) or ``k·batch`` (word2vec's reweighting) negative pairs.
    ``W(0) = init_scale/√d · N(0, 1)`` (the authors' init; the projection of ``W(0)`` on any unit
    vector then has squared norm ≈ ``init_scale²``). Learning rate ``lr``, multiplied by
    ``decay_factor`` from step ``decay_at·steps`` on (if given). ``reference`` (V × r, e.g. M*'s top
    eigenvectors) gives the logged principal-angle cosines. ``stats`` = ``(P_joint, P_unigram)`` of the
    same stream (computed with :func:`cooccurrence` if not given; QWEM needs them for Ψ). ``estimator``
    (QWEM only; the mixed runs sample every term): ``"split"`` computes the corpus-free quadratic
    part ¼‖WWᵀ‖² exactly and samples the
    linear part (:func:`split_loss_grad`); ``"sampled"`` samples every term (:func:`pair_loss_grad`).

    Raises ``ValueError`` for bad hyper-parameters (non-positive lr, d > V, …) and
    :class:`~qwem_lib.data.DataError` for an empty corpus.
    """
    import torch

    c = resolve_corpus(corpus)
    if c.n_tokens == 0:
        raise DataError(f"corpus {c.name!r} is empty")
    if not isinstance(V, (int, np.integer)) or isinstance(V, bool) or V < 2:
        raise ValueError(f"V must be an integer >= 2, got {V!r}")
    model, loss, reweighting = resolve_model(model, loss, reweighting)
    _check_hparams(int(V), d, steps, lr, batch, init_scale, decay_at, decay_factor, model, k)
    V, d, steps, batch = int(V), int(d), int(steps), int(batch)
    dev = _checked_device(device)
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
        model=model,
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
        ref=None if reference is None else _ref_key(reference),
        version=2,
    )
    if stats is not None:  # only then, so that the keys of every other run are unchanged
        cfg["stats"] = _stats_key(stats)
    path = _cache_file(cfg) if use_cache else None
    z = (
        read_npz(
            path,
            ("W", "W0", "steps", "times", "sv", "overlap", "cosines", "loss", "seconds", "pps"),
        )
        if path is not None
        else None
    )
    if z is not None:  # the cached run, read whole
        return TrainResult(
            W=z["W"],
            W0=z["W0"],
            steps=z["steps"],
            times=z["times"],
            sv=z["sv"],
            overlap=z["overlap"],
            cosines=z["cosines"],
            loss=z["loss"],
            seconds=float(z["seconds"]),
            pairs_per_s=float(z["pps"]),
            config=cfg,
            cached=True,
        )

    sampler = make_sampler(
        np.asarray(c.ids), V, window, oov=oov, stream_vocab=stream_vocab, device=dev
    )
    if stats is None:
        _, P, pu = cooccurrence(c, V, window, oov=oov, stream_vocab=stream_vocab)
    else:
        P, pu = stats
    gen = torch.Generator(device=dev)
    gen.manual_seed(int(config.SEED) * 1000 + int(seed))
    W = (
        torch.randn(V, d, generator=gen, device=dev, dtype=torch.float64)
        * (init_scale / math.sqrt(d))
    ).to(dt)
    ref = (
        None
        if reference is None
        else torch.as_tensor(
            np.linalg.qr(np.asarray(reference, np.float64))[0], device=dev, dtype=torch.float64
        )
    )

    tables = _tables(
        None,
        P,
        pu,
        sampler,
        dev,
        dt,
        k=k,
        sample=sample,
        power=power,
        estimator=estimator,
        loss=loss,
        reweighting=reweighting,
    )

    def step_grad(W):
        return batch_loss_grad(W, sampler, tables, gen, batch=batch)

    W0 = W.to(torch.float32).cpu().numpy()
    logs = {"steps": [], "sv": [], "ov": [], "loss": []}
    log_set = set(int(s) for s in log_steps)

    def record(s, W, loss):
        Wd = W.to(torch.float64)
        logs["steps"].append(s)
        U, sv, _ = torch.linalg.svd(Wd, full_matrices=False)
        logs["sv"].append(sv.cpu().numpy())
        if ref is not None:
            logs["ov"].append((ref.T @ U).cpu().numpy())
        logs["loss"].append(float(loss))

    lrs = np.full(steps, float(lr))
    if decay_at is not None:
        lrs[int(round(decay_at * steps)) :] *= decay_factor
    t0 = time.time()
    it = range(steps)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=f"{model} V={V} d={d}", mininterval=2.0)
    loss = float("nan")
    with torch.no_grad():
        if 0 in log_set:
            record(0, W, loss)
        for s in it:
            loss, G = step_grad(W)
            if not torch.isfinite(loss):
                raise FloatingPointError(
                    f"{model}: the loss became {float(loss)} at step {s}; lower the "
                    f"learning rate (lr={lr})"
                )
            W -= float(lrs[s]) * G
            if s + 1 in log_set:
                record(s + 1, W, loss)
    seconds = time.time() - t0
    per_step = batch * (2 if reweighting == "setting31" else 1 + k)
    steps_arr = np.asarray(logs["steps"], dtype=np.int64)
    times = np.concatenate([[0.0], sgd_time(lrs)])[steps_arr]
    ov = np.asarray(logs["ov"]) if logs["ov"] else np.zeros((len(steps_arr), 0, d))
    r = min(ov.shape[1], d)
    cos = (
        np.clip(np.linalg.svd(ov[:, :r, :], compute_uv=False), 0.0, 1.0)
        if r
        else np.zeros((len(steps_arr), 0))
    )
    res = TrainResult(
        W=W.to(torch.float32).cpu().numpy(),
        W0=W0,
        steps=steps_arr,
        times=times,
        sv=np.asarray(logs["sv"]),
        overlap=ov,
        cosines=cos,
        loss=np.asarray(logs["loss"]),
        seconds=seconds,
        pairs_per_s=per_step * steps / max(seconds, 1e-9),
        config=cfg,
    )
    if path is not None:
        with atomic_path(path, ".npz") as tmp:
            np.savez(
                tmp,
                W=res.W,
                W0=res.W0,
                steps=res.steps,
                times=res.times,
                sv=res.sv,
                overlap=res.overlap,
                cosines=res.cosines,
                loss=res.loss,
                seconds=res.seconds,
                pps=res.pairs_per_s,
            )
    return res


# ----------------------------------------------------------------------------------------------
# the chapters' runs
# ----------------------------------------------------------------------------------------------
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
    V = P_unigram.shape[0]
    lam, Q = _top_eigs(mstar_from_stats(P_joint, P_unigram), d + 2)
    if lam[d - 1] <= 0:
        raise ValueError(f"M* has fewer than d={d} positive eigenvalues at V={V}")
    sigma_sq = sigma_sq_small if init == "small" else large_ratio * lam[d - 1] * d / V
    lam_B = Q_B = None
    if model == "sgns":
        lam_B, Q_B = _top_eigs(sgns_growth_matrix(P_joint, P_unigram), d + 2)
        rates = lam_B
        plan = plan_schedule(
            lam_B,
            d,
            sigma_sq,
            lr_factor=lr_factor,
            horizon=horizon,
            capacity=np.maximum(lam[:d], sigma_sq * math.e),
        )
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
    "paper": dict(
        corpus="enwiki2015_70m",
        V=10_000,
        d=200,
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
that identical inputs give one cached run that the two chapters share."""


def text_run_kwargs(P: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :func:`run_preset` from a chapter's sizes (built on :data:`TEXT_RUNS`)."""
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
    """
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


def plot_steps(
    ax,
    t: np.ndarray,
    s_sq: np.ndarray,
    theory: np.ndarray | None = None,
    *,
    run_label: str,
    theory_label: str = "",
    t_max: float | None = None,
    faint: bool = False,
) -> np.ndarray:
    """Draw the squared singular values ``s_sq`` (T, d) against ``t`` (T,), one colour per mode, with the
    matching ``theory`` curves (T, d) dashed; returns the colours. ``faint`` draws a thin, light
    background run (for comparisons)."""
    import matplotlib.pyplot as plt

    d = s_sq.shape[1]
    colors = plt.cm.viridis(np.linspace(0, 0.9, d))
    for k in range(d):
        ax.plot(
            t,
            s_sq[:, k],
            color=colors[k],
            lw=0.8 if faint else 1.6,
            alpha=0.35 if faint else 1.0,
            label=run_label if k == 0 else None,
        )
        if theory is not None:
            ax.plot(
                t,
                theory[:, k],
                color=colors[k],
                lw=1.0,
                ls="--",
                label=theory_label if k == 0 else None,
            )
    if t_max is not None:
        ax.set_xlim(0, t_max)
    return colors
