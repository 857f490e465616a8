"""Word pairs from a corpus, their reweightings, per-pair losses and minibatch estimators (Part II).

Chapters 12–13 integrate the *population* flow of QWEM on M* itself. Here the models see only what
word2vec sees: pairs of words drawn from the corpus windows (positives) and from the unigram product
(negatives). The expectation of every minibatch gradient is the population gradient of Theorem 1's
loss (:func:`population_loss`, :func:`population_gradient`), so SGD (:mod:`qwem_lib.qwem.trainers`) is an
unbiased, noisy discretisation of the flow of chapter 12, and the noiseless trainer follows that
population gradient exactly.

**Positive pairs.** The corpus is held as an id array on the device, after the out-of-vocabulary rule of
:mod:`qwem_lib.qwem.corpus_stats` (the authors' rule by default: the stream keeps the top ``stream_vocab``
words, and pairs involving a word ranked ``>= V`` are discarded). A positive pair is drawn in three
vectorised steps: an offset ``j`` in ``1..window`` with probability ∝ ``w_j (n − j)`` (``w_j = window + 1
− j``, ``n`` the stream length), a start ``t`` uniform in ``[0, n − j)``, and a fair coin for the order.
The pair ``(s_t, s_{t+j})`` then has probability ``C_ab / (2 Σ_j w_j (n − j))`` where ``C`` are exactly the
symmetric weighted counts of :func:`qwem_lib.qwem.corpus_stats.cooccurrence_counts`; so, conditioned on being
in the vocabulary, the pair is distributed as ``P_ab``. Out-of-vocabulary draws keep their slot in the
batch with weight 0, and the in-vocabulary draws are divided by the known acceptance rate
``α = Σ C / (2 Σ_j w_j (n − j))``: the minibatch mean is then an unbiased estimate of ``Σ_ab P_ab f(a, b)``.

**Negative pairs.** Two independent uniform draws from the in-vocabulary tokens of the stream: ``(a, b)``
with probability exactly ``P_a P_b`` (``P_a`` the renormalised unigram, :meth:`Corpus.unigram`).

**QWEM** (tied ``W``, Setting 3.1). Each positive pair contributes ``Ψ_ab (−x + x²/4)``, each negative
``Ψ_ab (x + x²/4)``, with ``x = w_a·w_b`` and ``Ψ_ab = 1/(P_ab + P_aP_b)`` looked up in the ``V × V``
table (``estimator="sampled"``). The expected minibatch loss is Theorem 1's
:func:`qwem_lib.qwem.theory.qwem_loss`, equal to ``¼‖WWᵀ − M*‖²`` up to a constant (``g = 1``), whose
gradient is ``(WWᵀ − M*)W``. Because Setting 3.1 makes the quadratic weights constant, the quadratic
part ``Σ_ab (P_ab + P_aP_b)Ψ_ab x²/4 = ¼‖WWᵀ‖²`` does not depend on the corpus; the default
``estimator="split"`` computes it exactly and samples only the linear, corpus-dependent part. The
weights Ψ reach ``1/(P_a P_b)`` for a pair of rare words (about 10⁸ at V = 2,000), and in the fully
sampled estimator such a pair multiplies ``x²`` by that weight: one draw can then make an unstable step.
In the split estimator a draw only adds a bounded push. A step
``W ← W − η ĝ`` therefore advances the paper's time (the flow ``dW/dt = −½∇L`` of Lemma 3.1,
:data:`qwem_lib.qwem.dynamics.FLOW_TIME_SCALE`) by ``2η``: ``t = 2 Σ η``.

**SGNS** (word2vec's choices, tied ``W`` as in the authors' runs). The positives are the same corpus
pairs, weighted by word2vec's subsampling as pair weights ``r_ab = ρ_a ρ_b`` with
``ρ_a = clip(10⁻⁵/P_a + √(10⁻⁵/P_a), 0, 1)``; each positive gets ``k`` negatives that keep its centre
word ``a`` and draw ``b'`` from ``P^0.75`` (by exact sampling, not importance weights), with the
positive's weight. Losses: ``−log σ(x)`` and ``−log σ(−x)``. The expected loss is
``Σ_ab P_ab r_ab [ℓ⁺(x_ab) + k Σ_b' Q_b' ℓ⁻(x_ab')]`` (:func:`sgns_population_loss`). Its quadratic
expansion at small ``W`` (chapter 10) makes ``W`` grow as ``dW/dt = B W`` with
``B = ½(D + Dᵀ)``, ``D = P∘r − k m Qᵀ`` (:func:`sgns_growth_matrix`), the SGNS analogue of M*.

"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np

from ..book import checks, config
from ..data import DataError
from .corpus_stats import STREAM_VOCAB, as_token_ids, offset_weights

__all__ = [
    "LOSSES",
    "REWEIGHTINGS",
    "PairSampler",
    "make_sampler",
    "qwem_pair_terms",
    "sgns_pair_terms",
    "subsampling_keep",
    "sgns_population_loss",
    "sgns_growth_matrix",
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

    ids = as_token_ids(ids)
    V = checks.integer("V", V, low=2)
    window = checks.positive_int("window", window)
    stream_vocab = checks.positive_int("stream_vocab", stream_vocab)
    stream = _stream_ids(ids, V, oov, stream_vocab).astype(np.int64)
    n = stream.size
    if n <= window or int((stream < V).sum()) < 2:
        raise DataError(
            f"the corpus is empty or too short for window {window} (stream of {n} tokens)"
        )
    w = offset_weights(window, "linear").astype(np.float64)
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
def qwem_pair_loss(x, positive: bool):
    """QWEM's per-pair loss alone: ``−x + x²/4`` for a positive pair, ``x + x²/4`` for a negative one."""
    return (-1.0 if positive else 1.0) * x + x * x / 4.0


def qwem_pair_terms(x, positive: bool):
    """QWEM's per-pair loss and its derivative in ``x``: ``(−x + x²/4, −1 + x/2)`` for a positive pair,
    ``(x + x²/4, 1 + x/2)`` for a negative one (works on numbers, NumPy arrays and torch tensors)."""
    sgn = -1.0 if positive else 1.0
    return qwem_pair_loss(x, positive), sgn + x / 2.0


def sgns_pair_loss(x, positive: bool):
    """SGNS's per-pair loss alone: ``−log σ(x)`` positive, ``−log σ(−x)`` negative (torch tensors)."""
    import torch.nn.functional as F

    return F.softplus(-x) if positive else F.softplus(x)


def sgns_pair_terms(x, positive: bool):
    """SGNS's per-pair loss and derivative: ``(−log σ(x), −σ(−x))`` positive, ``(−log σ(−x), σ(x))``
    negative (torch tensors)."""
    import torch

    return sgns_pair_loss(x, positive), (-torch.sigmoid(-x) if positive else torch.sigmoid(x))


def statistics(P_joint: Any, P_unigram: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(P, p)``: a finite, non-negative V × V joint and a finite, positive length-V unigram as float64,
    else a ``ValueError`` (``TypeError`` for a non-numeric array) that names the argument."""
    P = checks.square("P_joint", P_joint)
    pu = checks.positive_array("P_unigram", P_unigram, ndim=1)
    if np.any(P < 0):
        raise ValueError(f"P_joint must hold probabilities (>= 0), got {float(P[P < 0][0])!r}")
    if pu.shape != (P.shape[0],):
        raise ValueError(
            f"P_unigram must have length V = {P.shape[0]} (P_joint is {P.shape}), got shape {pu.shape}"
        )
    return P, pu


def word2vec_parameters(k: Any, sample: Any, power: Any) -> tuple[int, float, float]:
    """``(k, sample, power)`` checked: ``k`` negatives a positive integer, the subsampling threshold
    ``sample`` positive (word2vec's ``t``; 0 would drop every token; ``inf`` keeps every token), the
    negatives' exponent ``power`` finite."""
    return (
        checks.positive_int("k", k),
        checks.positive("sample", sample, allow_inf=True),
        checks.real("power", power),
    )


def subsampling_keep(P_unigram: np.ndarray, sample: float = 1e-5) -> np.ndarray:
    """word2vec's keep probability ρ_a = clip(t/P_a + √(t/P_a), 0, 1) with ``t = sample``."""
    p = checks.positive_array("P_unigram", P_unigram)
    sample = checks.positive("sample", sample, allow_inf=True)
    r = sample / p
    return np.clip(r + np.sqrt(r), 0.0, 1.0)


def _sgns_parts(P_joint, P_unigram, k: int, sample: float, power: float):
    P, pu = statistics(P_joint, P_unigram)
    k, sample, power = word2vec_parameters(k, sample, power)
    rho = subsampling_keep(pu, sample)
    Pr = P * np.outer(rho, rho)
    m = Pr.sum(axis=1)
    Q = pu**power
    Q = Q / Q.sum()
    return Pr, k * np.outer(m, Q)


def sgns_population_loss(
    W, P_joint, P_unigram, *, k: int = 1, sample: float = 1e-5, power: float = 0.75
) -> float:
    """The expected SGNS minibatch loss of :func:`train_pairs`:
    ``Σ_ab P_ab r_ab [−log σ(x_ab)] + k Σ_ab m_a Q_b [−log σ(−x_ab)]`` with ``m_a = Σ_b P_ab r_ab``."""
    Pos, Neg = _sgns_parts(P_joint, P_unigram, k, sample, power)
    W = checks.finite_array("W", W, ndim=2)
    if W.shape[0] != Pos.shape[0]:
        raise ValueError(f"W must have V = {Pos.shape[0]} rows, got shape {W.shape}")
    X = W @ W.T
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
) -> tuple[str, Loss, Reweighting]:
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
    # both checked just above: the casts only tell the type checker so
    return _NAMED.get((lo, rw), f"{lo}-{rw}"), cast(Loss, lo), cast(Reweighting, rw)


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
    P, pu = statistics(P_joint, P_unigram)
    k, sample, power = word2vec_parameters(
        k, sample, power
    )  # checked whichever reweighting uses them
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
    """The device tables a run's minibatch needs (:func:`batch_loss_grad`): Ψ for Setting 3.1, ρ and P^power
    for word2vec's reweighting, on ``sampler``'s device in ``dtype`` (float64 by default); ``loss`` and
    ``reweighting`` override ``model`` as in :func:`resolve_model`."""
    import torch

    dt = dtype or torch.float64
    dev = sampler.device
    P, pu = statistics(P_joint, P_unigram)
    k, sample, power = word2vec_parameters(k, sample, power)
    name, lo, rw = resolve_model(model, loss, reweighting)
    if P.shape != (sampler.V, sampler.V):
        raise ValueError(f"P_joint of shape {P.shape} does not match the sampler's V = {sampler.V}")
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
    expectation over the draw is :func:`population_loss` and its gradient (:func:`qwem_lib.qwem.theory.qwem_loss`
    with Ψ⁺ = Ψ⁻ = 1/(P_ij + P_iP_j) for QWEM, :func:`sgns_population_loss` for SGNS).
    """
    import torch

    batch = checks.positive_int("batch", batch)
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
