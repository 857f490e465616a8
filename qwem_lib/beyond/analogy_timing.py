"""When is each analogy learned? Accuracy along a training run, predicted and measured (Part V, chapter 51).

Lemma 3.1 says when each eigen-direction of M* is learned; chapter 30 says where a category's task
vectors live among those directions. Together they predict, from M* alone, each analogy category's
accuracy as a function of training time. This module holds the pieces:

* :func:`lemma_embeddings` — the embeddings Lemma 3.1 predicts at time ``t``: the top eigenvectors
  ``Q`` scaled by ``s_k(t)``, from any (per-mode) start;
* :func:`hit_curves` — for a sequence of embeddings (a training run's snapshots), which analogy items
  each answers correctly (3CosAdd over the whole vocabulary, :func:`qwem_lib.qwem.evaluation.analogy_hits`);
* :func:`category_curves` — per-category accuracy curves; their bootstrap over each category's *word
  pairs* is :func:`qwem_lib.qwem.evaluation.pair_bootstrap_weights`;
* :func:`crossing_times` — when each curve first reaches a share (½ by default) of its final value;
* a rank correlation with an interval from paired bootstrap replicates is
  :func:`qwem_lib.maths.stats.paired_spearman`;
* :func:`eigen_flow_snapshots`, :func:`word2vec_snapshots` — the embeddings of two trained models at
  chosen times: QWEM's noiseless gradient descent in M*'s eigenbasis (:func:`qwem_lib.qwem.noiseless.eigen_flow`,
  which chapter 27 checks against the full-space :func:`qwem_lib.qwem.noiseless.train_expected`), and gensim's
  skip-gram trained in segments (snapshots at chosen shares of its training).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..book import checks, config
from ..book.cache import cached, digest, entry
from ..qwem.evaluation import analogy_hits
from ..qwem.theory import aligned_sigmoid

__all__ = [
    "lemma_embeddings",
    "hit_curves",
    "category_curves",
    "crossing_times",
    "eigen_flow_snapshots",
    "word2vec_snapshots",
]


def _finite_array(name: str, x: Any, ndim: int) -> np.ndarray:
    return checks.finite_array(name, x, ndim=ndim)


def lemma_embeddings(Q: Any, lam: Any, s0_sq: Any, t: float) -> np.ndarray:
    """Lemma 3.1's embeddings at time ``t``: ``W(t) = Q diag(s(t))`` with
    ``s_k²(t)`` = :func:`qwem_lib.qwem.theory.aligned_sigmoid` ``(λ_k, s_{k,0}², t)``.

    ``Q`` (V, d) the top eigenvectors of M*, ``lam`` (d,) their (positive) eigenvalues, ``s0_sq`` a scalar
    or (d,) starts (the realised ones: :func:`qwem_lib.qwem.dynamics.matched_initial_singular_values` squared).
    Analogy scores depend on ``WWᵀ`` only, so the rotation the aligned solution leaves free does not matter.
    """
    Q = _finite_array("Q", Q, 2)
    lam = _finite_array("lam", lam, 1)
    if lam.size != Q.shape[1]:
        raise ValueError(f"lam has {lam.size} entries for {Q.shape[1]} columns of Q")
    if np.any(lam <= 0):
        raise ValueError("lam must be positive (only positive modes are learned)")
    s0 = checks.positive_array("s0_sq", s0_sq, ndim=(0, 1))
    if s0.ndim == 1 and s0.shape != lam.shape:
        raise ValueError(f"s0_sq must be a scalar or have lam's shape {lam.shape}, got {s0.shape}")
    s0 = np.broadcast_to(s0, lam.shape)
    t = checks.nonnegative("t", t)
    s2 = np.asarray(aligned_sigmoid(lam, s0, t), dtype=np.float64)
    return Q * np.sqrt(s2)


def hit_curves(embeddings: Iterable[Any], items: Any, *, rule: str = "add") -> np.ndarray:
    """``(T, n)`` booleans: which of the ``n`` analogy items (rows ``(a, b, a', b')`` of word ids, as
    :func:`qwem_lib.qwem.evaluation.analogy_items`) each of the ``T`` embeddings answers correctly."""
    out = []
    for t, W in enumerate(embeddings):
        try:
            out.append(analogy_hits(W, items, rule=rule))
        except (
            ValueError
        ) as exc:  # name the argument the caller passed, and which of its embeddings
            raise type(exc)(f"embeddings[{t}]: {exc}") from exc
    if not out:
        raise ValueError("embeddings must hold at least one embedding, got none")
    return np.stack(out)


def category_curves(
    hits: Any, cat: Any, categories: Sequence[int], weights: Any = None
) -> np.ndarray:
    """The accuracy of each analogy category along a run: one curve per category.

    Parameters
    ----------
    hits : array_like, shape (T, n)
        0/1 (or booleans): which of the ``n`` items each of the ``T`` logged states answers.
    cat : array_like of int, shape (n,)
        The category number of each item.
    categories : sequence of int
        The categories to give curves for, in that order.
    weights : array_like, shape (n,), optional
        Non-negative item weights (e.g. one bootstrap replicate's counts); default 1 each.

    Returns
    -------
    ndarray, shape (T, len(categories))
        The weighted share of each category's items answered at each state; NaN for a category whose
        weights sum to zero.

    Raises
    ------
    ValueError
        For hits that are not 0/1, categories not one integer per item, or bad weights.

    Examples
    --------
    >>> hits = [[0, 0, 1], [1, 1, 1]]
    >>> category_curves(hits, [0, 0, 1], [0, 1, 2]).tolist()
    [[0.0, 1.0, nan], [1.0, 1.0, nan]]
    """
    H = checks.finite_array("hits", hits, ndim=2)
    if np.any((H < 0) | (H > 1)):
        raise ValueError("hits must hold 0/1 (or booleans): which items each row answers")
    cat = np.asarray(cat)
    if cat.shape != (H.shape[1],) or (cat.size and not np.issubdtype(cat.dtype, np.integer)):
        raise ValueError(
            f"cat must be ({H.shape[1]},) integer category numbers, got {cat.shape} {cat.dtype}"
        )
    w = (
        np.ones(H.shape[1])
        if weights is None
        else checks.positive_array("weights", weights, strict=False, ndim=1)
    )
    if w.shape != (H.shape[1],):
        raise ValueError(f"weights must have shape ({H.shape[1]},), got {w.shape}")
    out = np.full((H.shape[0], len(categories)), np.nan)
    for j, c in enumerate(categories):
        m = cat == c
        tot = w[m].sum()
        if tot > 0:
            out[:, j] = H[:, m] @ w[m] / tot
    return out


def crossing_times(t: Any, curves: Any, share: float = 0.5, final: Any = None) -> np.ndarray:
    """For each curve, the first time it reaches ``share`` of its final value.

    Linear interpolation between the grid times. NaN where the final value is not positive or is NaN, where
    the curve holds a NaN, or where it never gets there.

    Parameters
    ----------
    t : array_like, shape (T,)
        Increasing times, at least two.
    curves : array_like, shape (T,) or (T, C)
        The values at those times (finite, or NaN).
    share : float, default 0.5
        The share of the final value, in (0, 1].
    final : float or array_like, shape (C,), optional
        The values the shares refer to; default the last row of ``curves``.

    Returns
    -------
    numpy.ndarray, shape (C,)
        The crossing times.

    Raises
    ------
    ValueError
        If ``t`` is not an increasing finite grid, ``curves`` holds infinity or has the wrong shape, or
        ``share`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> crossing_times(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 0.2, 0.8, 1.0]))
    array([1.5])
    """
    t = _finite_array("t", t, 1)
    if t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError("t must be an increasing grid of at least two times")
    # NaN is documented (a column holding one gets NaN); infinity is not a value a curve takes
    A = checks.finite_array("curves", curves, ndim=(1, 2), allow_nonfinite=True)
    if np.any(np.isinf(A)):
        raise ValueError("curves must hold finite values (or NaN), got inf")
    if A.ndim == 1:
        A = A[:, None]
    if A.shape[0] != t.size:
        raise ValueError(f"curves must be ({t.size}, C), got {A.shape}")
    share = checks.real("share", share, low=0, high=1, low_open=True)
    fin = A[-1] if final is None else np.broadcast_to(np.asarray(final, np.float64), A.shape[1:])
    out = np.full(A.shape[1], np.nan)
    for j in range(A.shape[1]):
        y, target = A[:, j], share * fin[j]
        if not (np.isfinite(target) and target > 0) or np.any(np.isnan(y)):
            continue
        hit = np.nonzero(y >= target)[0]
        if hit.size == 0:
            continue
        i = int(hit[0])
        out[j] = (
            t[0]
            if i == 0
            else t[i - 1] + (target - y[i - 1]) * (t[i] - t[i - 1]) / (y[i] - y[i - 1])
        )
    return out


def _check_steps(steps: Any) -> np.ndarray:
    s = np.asarray(steps)
    if s.ndim != 1 or s.size == 0 or not np.issubdtype(s.dtype, np.integer):
        raise ValueError("snapshot steps must be a non-empty 1-d integer array")
    if s[0] < 0 or np.any(np.diff(s) <= 0):
        raise ValueError("snapshot steps must be increasing and non-negative")
    return s.astype(np.int64)


def eigen_flow_snapshots(lam: Any, Y0: Any, *, lr: float, steps: Any) -> np.ndarray:
    """``(T, r, d)``: QWEM's noiseless gradient descent in M*'s eigenbasis
    (:func:`qwem_lib.qwem.noiseless.eigen_flow`, ``W = QY``) at the given (increasing) step counts, by running
    it segment after segment from each segment's end (gradient descent has no other state, so this is
    the uninterrupted run)."""
    from ..qwem.noiseless import eigen_flow

    steps = _check_steps(steps)
    Y = _finite_array("Y0", Y0, 2).copy()
    out, done = [], 0
    for s in steps:
        if s > done:
            Y = eigen_flow(lam, Y, lr=lr, steps=int(s - done), log_steps=[int(s - done)]).Y
            done = int(s)
        out.append(Y.copy())
    return np.stack(out)


def word2vec_snapshots(
    corpus: Any,
    V: int,
    d: int,
    fractions: Any,
    *,
    negative: int = 1,
    epochs: int = 1,
    seed: int | None = None,
    use_cache: bool = True,
) -> tuple[list[str], np.ndarray, dict]:
    """gensim skip-gram (the settings of :data:`qwem_lib.qwem.w2v.W2V_DEFAULTS`, one worker) trained for
    ``epochs`` passes in segments, with the input embeddings saved after each: ``(words, W (T, V, d), info)``.

    ``fractions`` (increasing, in (0, 1], the last 1) are the shares of the training's lines (all epochs)
    after which a snapshot is taken. The learning rate falls linearly over the whole training as in one
    uninterrupted gensim run (each segment is trained from the rate where the previous one stopped); the vocabulary,
    and with it subsampling and the negative distribution, is built from the whole corpus first. One
    worker thread makes the run reproducible for a seed. Cached under ``cache_dir()/w2v``."""
    import gensim

    from ..qwem.corpus_stats import resolve_corpus
    from ..qwem.w2v import W2V_DEFAULTS, w2v_corpus_key

    f = _finite_array("fractions", fractions, 1)
    if f.size == 0 or np.any(np.diff(f) <= 0) or f[0] <= 0 or not np.isclose(f[-1], 1.0):
        raise ValueError("fractions must increase within (0, 1] and end at 1")
    V = checks.integer("V", V, low=2)
    d = checks.integer("d", d, low=1, high=V - 1)
    epochs = checks.positive_int("epochs", epochs)
    negative = checks.positive_int("negative", negative)
    seed = config.SEED if seed is None else checks.integer("seed", seed, low=0, high=2**32 - 1)
    c = resolve_corpus(corpus)
    words = list(c.vocab(V))
    settings = dict(
        W2V_DEFAULTS, epochs=int(epochs), workers=1, negative=int(negative), vector_size=int(d), seed=seed,
        min_count=1, hs=0,
    )  # fmt: skip
    key = dict(
        settings,
        corpus=w2v_corpus_key(c, int(V)),
        fractions=f.round(10).tolist(),
        gensim=gensim.__version__,
    )
    h = digest(key)
    path = (
        entry("w2v", f"snapshots-{w2v_corpus_key(c, int(V))}-d{d}-{h}.npz") if use_cache else None
    )
    out, _ = cached(
        path,
        lambda: _snapshot_run(c, int(V), words, settings, f, int(epochs), h),
        required=("W", "info"),
        shapes={"W": (f.size, V, d)},
        finite=("W",),
    )
    return words, out["W"], json.loads(str(out["info"]))


def _snapshot_run(
    c: Any, V: int, words: list[str], settings: dict, f: np.ndarray, epochs: int, h: str
) -> dict[str, np.ndarray]:
    """One gensim run over ``epochs`` passes of the corpus file, with the embeddings of ``words`` kept
    after each fraction ``f`` of it: ``{"W": (len(f), V, d), "info": JSON}``."""
    import gensim
    from gensim.models import Word2Vec

    from ..qwem.w2v import w2v_corpus_file

    cfile = w2v_corpus_file(c, int(V))
    lines = cfile.read_text().splitlines() * int(epochs)
    cuts = np.unique(np.clip(np.round(f * len(lines)).astype(int), 1, len(lines)))
    if cuts.size != f.size:
        raise ValueError(f"fractions too fine for the corpus's {len(lines)} lines")
    ctor = {k: v for k, v in settings.items() if k not in ("epochs",)}
    model = Word2Vec(**ctor)
    model.build_vocab(corpus_file=str(cfile))
    total = int(model.corpus_total_words) * int(epochs)
    missing = [w for w in words if w not in model.wv.key_to_index]
    if missing or len(model.wv.key_to_index) != len(words):
        raise ValueError(
            f"gensim vocabulary does not match the top-{V} words ({len(missing)} missing)"
        )
    order = np.fromiter((model.wv.key_to_index[w] for w in words), dtype=np.int64, count=len(words))
    a0, a1 = float(settings["alpha"]), float(settings["min_alpha"])
    snaps, start, seen = [], 0, 0
    tmp_file = config.cache_dir() / "w2v" / f"segment-{h}.txt"
    try:
        for cut in cuts:
            seg = lines[start:cut]
            n_tok = sum(len(line.split()) for line in seg)
            tmp_file.write_text("\n".join(seg) + "\n")
            al = a0 - (a0 - a1) * seen / total
            ar = a0 - (a0 - a1) * (seen + n_tok) / total
            model.train(
                corpus_file=str(tmp_file), total_words=n_tok, epochs=1, start_alpha=al, end_alpha=ar
            )
            seen += n_tok
            start = int(cut)
            snaps.append(np.asarray(model.wv.vectors[order], dtype=np.float32).copy())
    finally:
        tmp_file.unlink(missing_ok=True)
    W = np.stack(snaps)
    info = dict(
        settings,
        fractions=f.tolist(),
        tokens=seen,
        gensim=gensim.__version__,
        corpus=c.name,
        V=int(V),
    )
    return {"W": W, "info": np.array(json.dumps(info))}
