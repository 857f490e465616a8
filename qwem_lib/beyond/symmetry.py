"""Cyclic word sets in M*: circulant blocks, Fourier modes, circles (Part V, chapter 53).

Words with a cyclic order (the twelve months, the seven weekdays, the ten spelled-out digits of the
text8 normalisation) are candidates for *circulant* co-occurrence statistics: if the statistic of a pair
depends only on the cyclic distance between its two members, the block of M* over the set is a
symmetric circulant matrix, its eigenvectors are the real Fourier modes of the cycle, and embeddings
built from it put the words on circles.

This module measures that, with nothing assumed:

* :func:`set_counts` / :func:`mstar_block` / :func:`jackknife_blocks` — the co-occurrence counts and
  the M* block over any list of word ids, at a reference vocabulary size, by the authors' rule (the same numbers as
  the block of :func:`qwem_lib.qwem.corpus_stats.cooccurrence` at that size, without the V×V table);
* :func:`cyclic_r2`, :func:`linear_r2` — how much of the off-diagonal variance of a block is explained by
  the cyclic distance (circulant) or by the linear distance |i − j| (Toeplitz);
* :func:`fourier_basis`, :func:`fourier_power` — the real orthonormal Fourier basis of a cycle of
  length n and the power of vectors per frequency;
* :func:`circle_score`, :func:`adjacent_in_angle` — whether embeddings of the set lie on a circle in order;
* ``permutation_null`` — the distribution of any of these statistics under shuffled orders of the
  set (exhaustive for n ≤ 8, sampled otherwise) and its p-value; it lives in
  :func:`qwem_lib.maths.stats.permutation_null` and is re-exported here, where chapter 53 calls it;
* :func:`frequency_energy`, :func:`acquisition_ranks`, :func:`acquisition_times` — where in M*'s
  spectrum each Fourier mode of the set lives, and when Lemma 3.1 says the embedding acquires it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..data import Corpus
from ..maths.stats import permutation_null
from ..qwem.corpus_stats import PMI_EPS, STREAM_VOCAB, as_token_ids, resolve_corpus
from ..qwem.theory import aligned_sigmoid

__all__ = [
    "CYCLIC_SETS",
    "set_ids",
    "set_counts",
    "mstar_block",
    "jackknife_blocks",
    "cyclic_r2",
    "linear_r2",
    "fourier_basis",
    "fourier_power",
    "block_modes",
    "circle_score",
    "adjacent_in_angle",
    "permutation_null",  # from qwem_lib.maths.stats: chapter 53 calls sy.permutation_null
    "frequency_energy",
    "acquisition_ranks",
    "acquisition_times",
]

#: the cyclic word sets, each in its natural order
CYCLIC_SETS: dict[str, tuple[str, ...]] = {
    "months": (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ),
    "weekdays": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "digits": ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
}


def _square(name: str, B: Any) -> np.ndarray:
    B = np.asarray(B)
    if B.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real array, got dtype {B.dtype}")
    if B.ndim != 2 or B.shape[0] != B.shape[1] or B.shape[0] < 3:
        raise ValueError(f"{name} must be a square matrix of size n >= 3, got shape {B.shape}")
    if not np.isfinite(B).all():
        raise ValueError(f"{name} has NaN or infinite entries")
    return B.astype(np.float64)


def set_ids(corpus: str | Corpus, words: Sequence[str]) -> np.ndarray:
    """Frequency ranks (token ids) of ``words`` in a corpus; ``ValueError`` names any word it lacks."""
    c = resolve_corpus(corpus)
    words = list(words)
    missing = [w for w in words if w not in c.index]
    if missing:
        raise ValueError(f"corpus {c.name!r} lacks the words {missing}")
    if len(set(words)) != len(words):
        raise ValueError("the word list has repeated words")
    return np.array([c.index[w] for w in words], dtype=np.int64)


def set_counts(
    ids: Any,
    members: Any,
    V: int,
    window: int = 16,
    *,
    stream_vocab: int = STREAM_VOCAB,
) -> tuple[np.ndarray, int]:
    """``(C, total)``: weighted co-occurrence counts among ``members`` and the total of the V×V table.

    The stream is the token ids below ``stream_vocab`` (the authors' rule: rarer tokens are removed before
    windowing). A pair at distance ``j ≤ window`` gets weight ``window + 1 − j`` and is counted in both
    directions, so ``C`` is symmetric, and ``total`` is the sum of the whole table of the top-``V`` words
    (:func:`qwem_lib.qwem.corpus_stats.cooccurrence_counts` with the same arguments has
    ``table[np.ix_(members, members)] == C`` and ``table.sum() == total``). Every member must be below
    ``V``, and ``V ≤ stream_vocab``.
    """
    ids = as_token_ids(ids)
    members = np.asarray(members)
    if members.ndim != 1 or members.size < 2 or members.dtype.kind not in "iu":
        raise ValueError("members must be a 1-D array of at least two integer token ids")
    if len(np.unique(members)) != members.size:
        raise ValueError("members has repeated ids")
    if not isinstance(window, (int, np.integer)) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}")
    if not isinstance(V, (int, np.integer)) or not 2 <= V <= stream_vocab:
        raise ValueError(f"need 2 <= V <= stream_vocab = {stream_vocab}, got V={V!r}")
    if members.min() < 0 or members.max() >= V:
        raise ValueError(f"every member must be a token id in [0, V={V})")
    n = members.size
    s = ids[ids < stream_vocab]
    look = np.full(int(stream_vocab), -1, dtype=np.int64)
    look[members] = np.arange(n)
    pos = look[s]
    inV = s < V
    C = np.zeros(n * n, dtype=np.int64)
    total = 0
    for j in range(1, int(window) + 1):
        if j >= s.size:
            break
        w = int(window) + 1 - j
        total += 2 * w * int(np.count_nonzero(inV[:-j] & inV[j:]))
        a, b = pos[:-j], pos[j:]
        m = (a >= 0) & (b >= 0)
        C += w * np.bincount(a[m] * n + b[m], minlength=n * n)
    C = C.reshape(n, n)
    return C + C.T, total


def _block_from_counts(C: np.ndarray, total: float, pu: np.ndarray, target: str) -> np.ndarray:
    P = C / total
    PP = np.outer(pu, pu)
    if target == "mstar":
        return 2.0 * (P - PP) / (P + PP)
    if target == "pmi":
        return np.log(P / PP + PMI_EPS)
    raise ValueError(f"target must be 'mstar' or 'pmi', got {target!r}")


def mstar_block(
    corpus: str | Corpus,
    words: Sequence[str],
    V: int = STREAM_VOCAB,
    window: int = 16,
    *,
    target: str = "mstar",
    stream_vocab: int = STREAM_VOCAB,
) -> np.ndarray:
    """The block of M* = 2(P_ij − P_iP_j)/(P_ij + P_iP_j) over ``words``, at vocabulary size ``V``.

    ``P_ij`` is the count over the total of the top-``V`` table and ``P_i`` the unigram frequency
    renormalised over the top ``V`` words, exactly as in :func:`qwem_lib.qwem.corpus_stats.cooccurrence`, so the
    result equals ``mstar_from_stats(*cooccurrence(corpus, V)[1:])[np.ix_(ids, ids)]`` — but only the
    counts among the set are formed, so any ``V`` up to ``stream_vocab`` is cheap. Every word must rank
    below ``V``. ``target="pmi"`` gives the PMI block log(P_ij/(P_iP_j) + 1e-25) instead.
    """
    c = resolve_corpus(corpus)
    members = set_ids(c, words)
    C, total = set_counts(np.asarray(c.ids), members, V, window, stream_vocab=stream_vocab)
    return _block_from_counts(C, total, c.unigram(int(V))[members], target)


def jackknife_blocks(
    ids: Any,
    members: Any,
    V: int,
    n_chunks: int = 10,
    window: int = 16,
    *,
    target: str = "mstar",
    stream_vocab: int = STREAM_VOCAB,
) -> list[np.ndarray]:
    """Leave-one-chunk-out blocks for a jackknife: the stream is cut into ``n_chunks`` contiguous chunks and
    block ``c`` is built (as :func:`mstar_block`) from the counts and unigram frequencies of all the other
    chunks. Pairs that straddle a cut are dropped (at most ``window`` per cut, negligible).

    The jackknife standard error of a statistic T is √((n−1)/n · Σ_c (T_c − T̄)²) over the n blocks.
    """
    ids = as_token_ids(ids)
    members = np.asarray(members)
    if not isinstance(n_chunks, (int, np.integer)) or n_chunks < 2:
        raise ValueError(f"n_chunks must be an integer >= 2, got {n_chunks!r}")
    parts = np.array_split(ids, int(n_chunks))
    counts, totals, unis = [], [], []
    for part in parts:
        C, tot = set_counts(part, members, V, window, stream_vocab=stream_vocab)
        counts.append(C)
        totals.append(tot)
        unis.append(np.bincount(part[part < V], minlength=V).astype(np.float64))
    Csum, Tsum, Usum = sum(counts), sum(totals), sum(unis)
    out = []
    for c in range(len(parts)):
        u = Usum - unis[c]
        out.append(
            _block_from_counts(Csum - counts[c], Tsum - totals[c], (u / u.sum())[members], target)
        )
    return out


def _group_r2(B: np.ndarray, labels: np.ndarray) -> float:
    """1 − within-group / total sum of squares of the off-diagonal entries of ``B``, grouped by ``labels``."""
    off = ~np.eye(B.shape[0], dtype=bool)
    x, g = B[off], labels[off]
    tot = float(((x - x.mean()) ** 2).sum())
    if tot == 0.0:
        return 1.0
    sums = np.bincount(g, weights=x)
    cnt = np.bincount(g)
    means = np.divide(sums, cnt, out=np.zeros_like(sums), where=cnt > 0)
    within = float(((x - means[g]) ** 2).sum())
    return 1.0 - within / tot


def cyclic_r2(B: Any) -> float:
    """Share of the off-diagonal variance of ``B`` explained by the cyclic distance min(|i−j|, n−|i−j|).

    1 for a symmetric circulant matrix (entries depend on the cyclic distance only); for a matrix of
    independent noise about ⌊n/2⌋/(n(n−1)) on average.
    """
    B = _square("B", B)
    n = B.shape[0]
    i, j = np.indices((n, n))
    k = np.abs(i - j)
    return _group_r2(B, np.minimum(k, n - k))


def linear_r2(B: Any) -> float:
    """Share of the off-diagonal variance of ``B`` explained by the linear distance |i − j| (Toeplitz)."""
    B = _square("B", B)
    i, j = np.indices(B.shape)
    return _group_r2(B, np.abs(i - j))


def fourier_basis(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(F, freq)``: the real orthonormal Fourier basis of a cycle of length ``n`` (columns of ``F``).

    Columns: the constant (frequency 0), then cos and sin of frequency m = 1, …, ⌈n/2⌉ − 1, then for even n
    the alternating vector (frequency n/2). ``freq[c]`` is the frequency of column ``c``.
    """
    if not isinstance(n, (int, np.integer)) or n < 3:
        raise ValueError(f"n must be an integer >= 3, got {n!r}")
    t = np.arange(n)
    cols, freq = [np.full(n, 1 / math.sqrt(n))], [0]
    for m in range(1, (n + 1) // 2):
        cols += [np.cos(2 * np.pi * m * t / n), np.sin(2 * np.pi * m * t / n)]
        cols[-2] *= math.sqrt(2 / n)
        cols[-1] *= math.sqrt(2 / n)
        freq += [m, m]
    if n % 2 == 0:
        cols.append((-1.0) ** t / math.sqrt(n))
        freq.append(n // 2)
    return np.stack(cols, axis=1), np.array(freq)


def fourier_power(X: Any) -> np.ndarray:
    """Power per frequency of the columns of ``X`` (n or n×k), as shares of each column's squared norm.

    Returns shape ``(n // 2 + 1,)`` for a vector and ``(n // 2 + 1, k)`` for a matrix; row m is the share of
    frequency m. A column of zeros gets zeros.
    """
    X = np.asarray(X, dtype=np.float64)
    vec = X.ndim == 1
    X2 = X[:, None] if vec else X
    if X2.ndim != 2 or X2.shape[0] < 3 or not np.isfinite(X2).all():
        raise ValueError(
            f"X must be a finite vector or matrix with n >= 3 rows, got shape {X.shape}"
        )
    n = X2.shape[0]
    F, freq = fourier_basis(n)
    coef2 = (F.T @ X2) ** 2
    power = np.zeros((n // 2 + 1, X2.shape[1]))
    np.add.at(power, freq, coef2)
    norm = power.sum(axis=0)
    power = np.divide(power, norm, out=np.zeros_like(power), where=norm > 0)
    return power[:, 0] if vec else power


def block_modes(B: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(lam, power)``: eigenvalues of the symmetric block ``B`` (descending) and each eigenvector's
    Fourier power per frequency (``power[m, k]``: share of frequency m in the k-th eigenvector)."""
    B = _square("B", B)
    if not np.allclose(B, B.T, atol=1e-12 * max(1.0, float(np.abs(B).max()))):
        raise ValueError("B must be symmetric")
    lam, U = np.linalg.eigh((B + B.T) / 2)
    lam, U = lam[::-1], U[:, ::-1]
    return lam, fourier_power(U)


def circle_score(X: Any) -> float:
    """Share of the centred variance of the rows of ``X`` (n points in order) carried by frequency 1.

    Rows ``x_i`` centred on their mean; the score is ‖F₁ᵀ X_c‖²/‖X_c‖² with F₁ the cos/sin pair of frequency
    one. It is 1 exactly when the points lie on an ellipse (a circle up to a linear map) in their cyclic
    order, evenly spaced in angle; for points in a random order it is 2/(n − 1) on average.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 3 or not np.isfinite(X).all():
        raise ValueError(f"X must be a finite n×d matrix with n >= 3, got shape {X.shape}")
    Xc = X - X.mean(axis=0)
    tot = float((Xc**2).sum())
    if tot == 0.0:
        raise ValueError("the points coincide; the score is undefined")
    F, freq = fourier_basis(X.shape[0])
    return float(((F[:, freq == 1].T @ Xc) ** 2).sum() / tot)


def adjacent_in_angle(X: Any) -> int:
    """How many of the n cyclically adjacent pairs (i, i+1 mod n) are neighbours in angle.

    The rows of ``X`` are centred and projected on their first two principal axes (no use of the order);
    the points are sorted by angle around the centre, and the score counts the pairs of angular neighbours
    that are also neighbours in the set's cyclic order. n for points on a circle in order (either
    direction); 2n/(n − 1) on average for a random order.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 3 or X.shape[1] < 2 or not np.isfinite(X).all():
        raise ValueError(f"X must be a finite n×d matrix with n >= 3, d >= 2, got shape {X.shape}")
    n = X.shape[0]
    Xc = X - X.mean(axis=0)
    _, _, Vt = np.linalg.svd(Xc, full_matrices=False)
    Y = Xc @ Vt[:2].T
    order = np.argsort(np.arctan2(Y[:, 1], Y[:, 0]))
    nxt = np.roll(order, -1)
    gap = np.abs(order - nxt)
    return int(np.sum((gap == 1) | (gap == n - 1)))


def frequency_energy(Q_set: Any) -> np.ndarray:
    """``E[m, k]``: energy of frequency m of the set in the k-th eigenvector, ‖F_mᵀ q_k[set]‖².

    ``Q_set`` (n×d) holds the rows of M*'s eigenvectors for the set's words, in the set's order. Summed over
    all V eigenvectors, row m adds up to the number of basis vectors of frequency m (1 or 2).
    """
    Q_set = np.asarray(Q_set, dtype=np.float64)
    if Q_set.ndim != 2 or Q_set.shape[0] < 3 or not np.isfinite(Q_set).all():
        raise ValueError(f"Q_set must be a finite n×d matrix with n >= 3, got shape {Q_set.shape}")
    n = Q_set.shape[0]
    F, freq = fourier_basis(n)
    E = np.zeros((n // 2 + 1, Q_set.shape[1]))
    np.add.at(E, freq, (F.T @ Q_set) ** 2)
    return E


def _check_lam(lam: Any, d: int) -> np.ndarray:
    lam = np.asarray(lam, dtype=np.float64)
    if lam.ndim != 1 or lam.size != d or not np.isfinite(lam).all():
        raise ValueError(f"lam must be a finite vector of length {d}, got shape {lam.shape}")
    return lam


def acquisition_ranks(E: Any, lam: Any, share: float = 0.5) -> np.ndarray:
    """For each frequency m, the smallest rank r (1-based) at which the embedding Q_[r]Λ_[r]^{1/2}
    carries ``share`` of the frequency-m content of the Gram over the set at the full rank d.

    The content of frequency m at rank r is Σ_{k≤r} λ_k E[m, k] (only λ_k > 0 count); ``E`` from
    :func:`frequency_energy`, ``lam`` the d eigenvalues in descending order.
    """
    E = np.asarray(E, dtype=np.float64)
    lam = np.maximum(_check_lam(lam, E.shape[1]), 0.0)
    if not 0 < share < 1:
        raise ValueError("share must be in (0, 1)")
    cum = np.cumsum(E * lam[None, :], axis=1)
    out = np.empty(E.shape[0], dtype=np.int64)
    for m in range(E.shape[0]):
        out[m] = int(np.argmax(cum[m] >= share * cum[m, -1])) + 1
    return out


def acquisition_times(E: Any, lam: Any, s0_sq: float, t: Any, share: float = 0.5) -> np.ndarray:
    """For each frequency m, the time at which Lemma 3.1's aligned dynamics put ``share`` of the final
    frequency-m content into the embedding: the first ``t`` with Σ_k s_k²(t) E[m, k] ≥ share·Σ_k λ_k E[m, k].

    ``s_k²(t)`` is the sigmoid of :func:`qwem_lib.qwem.theory.aligned_sigmoid` from ``s0_sq`` (only λ_k > 0
    are learned; a negative eigenvalue's mode decays and contributes nothing at the end). Linear
    interpolation between grid times; NaN where the grid ends first.
    """
    E = np.asarray(E, dtype=np.float64)
    lam = _check_lam(lam, E.shape[1])
    t = np.asarray(t, dtype=np.float64)
    if t.ndim != 1 or t.size < 2 or np.any(np.diff(t) <= 0):
        raise ValueError("t must be an increasing grid of at least two times")
    if not s0_sq > 0:
        raise ValueError("s0_sq must be positive")
    pos = lam > 0
    s2 = np.asarray(aligned_sigmoid(lam[pos][None, :], s0_sq, t[:, None]))  # (T, #positive)
    content = s2 @ E[:, pos].T  # (T, m)
    final = E[:, pos] @ lam[pos]
    out = np.full(E.shape[0], np.nan)
    for m in range(E.shape[0]):
        y, target = content[:, m], share * final[m]
        hit = np.nonzero(y >= target)[0]
        if hit.size == 0 or final[m] <= 0:
            continue
        i = int(hit[0])
        if i == 0:
            out[m] = t[0]
        else:
            out[m] = t[i - 1] + (target - y[i - 1]) * (t[i] - t[i - 1]) / (y[i] - y[i - 1])
    return out
