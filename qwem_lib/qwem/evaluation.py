"""Word-embedding benchmarks: Google analogies (two protocols), MEN and WordSim353.

Analogies (``protocol="pairs"``, the QWEM authors' protocol)
    The questions file is lowercased and split into its 14 categories. In each category the distinct
    word pairs ``(a, b)`` with both words in the vocabulary are collected; then *every ordered pair of
    distinct pairs* ``((a, b), (a', b'))`` is an analogy "a is to b as a' is to ?", answered by
    ``argmax_w  ŵ · (b̂ - â + â')`` over the whole vocabulary except ``a, b, a'`` (rows of ``W``
    L2-normalised: 3CosAdd). Accuracy is micro-averaged over all analogies.

Analogies (``protocol="questions"``)
    The original list: each of the 19,544 questions whose four words are all in the vocabulary, scored the
    same way.

Similarity
    Spearman's ρ between the cosine similarity of the two words and the human score, over the pairs with
    both words in the vocabulary.

Every function returns the number of items it scored, ``n``, next to the score. Scoring is batched:
one ``(V, B)`` matrix product per batch of ``B`` analogies, no Python loop over the vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..book import checks, config
from ..data import DataError, read_lines
from ..maths.linalg import unit_rows
from ..maths.stats import gap_se_named, replicate_means

__all__ = [
    "analogy_categories",
    "analogy_pairs",
    "analogy_items",
    "analogy_accuracy",
    "analogy_hits",
    "similarity_pairs",
    "METHODS",
    "PAPER_FIG3B",
    "method_embeddings",
    "similarity_spearman",
    "similarity_bootstrap",
    "score_rows",
    "pair_index",
    "pair_bootstrap_weights",
    "EmbeddingScores",
    "score_embeddings",
    "evaluate_all",
    "normalize_rows",
    "COMPETITIVE_Z",
    "competitive_margin",
    "is_competitive",
]

Protocol = Literal["pairs", "questions"]


def normalize_rows(W: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm in float32, the precision the vocabulary-wide scoring runs in; a zero row
    stays zero (an unscored word): :func:`qwem_lib.maths.linalg.unit_rows` with ``zero_rows="keep"``."""
    return unit_rows(W, zero_rows="keep", dtype=np.float32, name="W")


def _questions(path: str | None) -> tuple[tuple[str, tuple[tuple[str, str, str, str], ...]], ...]:
    """The parsed questions file, memoised by the file's identity: a file edited between two calls (other
    size, mtime, ctime or inode) is read again."""
    if path is None:
        return _parse_questions(None, None)
    try:
        st = Path(path).stat()
    except OSError as exc:
        raise DataError(f"path: the analogy file {path} cannot be read: {exc}") from exc
    return _parse_questions(path, (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))


@lru_cache(maxsize=4)
def _parse_questions(
    path: str | None, _identity: tuple | None
) -> tuple[tuple[str, tuple[tuple[str, str, str, str], ...]], ...]:
    if path:
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError as exc:
            raise DataError(
                f"analogy file {path} is not UTF-8 text ({exc}); save it as UTF-8"
            ) from None
    else:
        lines = read_lines("google_analogy")
    cats: list[tuple[str, list[tuple[str, str, str, str]]]] = []
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if line.startswith(":"):
            cats.append((line[1:].strip(), []))
            continue
        parts = line.lower().split()
        if len(parts) != 4:
            raise DataError(f"analogy file line {raw!r} does not have four words")
        if not cats:
            raise DataError("analogy file does not start with a ': category' line")
        cats[-1][1].append(tuple(parts))  # type: ignore[arg-type]
    if not cats:
        raise DataError("analogy file has no categories")
    return tuple((name, tuple(qs)) for name, qs in cats)


def analogy_categories(
    path: str | Path | None = None,
) -> list[tuple[str, list[tuple[str, str, str, str]]]]:
    """The categories of the questions file: ``[(name, [(a, b, a', b'), ...]), ...]``, lowercased."""
    return [(n, list(q)) for n, q in _questions(str(path) if path else None)]


def _check_words(words: Any) -> None:
    """``words`` must be a non-empty sequence of strings (a vocabulary), not one string."""
    if isinstance(words, (str, bytes)) or not hasattr(words, "__len__") or len(words) == 0:
        raise checks.ArgumentTypeError(
            f"words must be a non-empty sequence of words (strings), got {checks.describe(words)}"
        )
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise checks.ArgumentTypeError(f"words must hold strings, got {bad!r}")


def _index(words: Sequence[str]) -> dict[str, int]:
    return {w: i for i, w in enumerate(words)}


def _category_pairs(qs, idx: dict[str, int]) -> np.ndarray:
    """The distinct in-vocabulary word pairs ``(a, b)`` of one category, in order of first appearance."""
    pairs: dict[tuple[int, int], None] = {}  # ordered set
    for a, b, a2, b2 in qs:
        for x, y in ((a, b), (a2, b2)):
            if x in idx and y in idx:
                pairs[(idx[x], idx[y])] = None
    return np.array(list(pairs), dtype=np.int64).reshape(-1, 2)


def analogy_pairs(words: Sequence[str], path: str | Path | None = None) -> dict[str, np.ndarray]:
    """``{category: (k, 2) int array}``: each category's distinct in-vocabulary word pairs ``(a, b)``
    (the pairs the ``"pairs"`` protocol builds its analogies from; categories with none are left out)."""
    idx = _index(words)
    out = {name: _category_pairs(qs, idx) for name, qs in _questions(str(path) if path else None)}
    return {n: P for n, P in out.items() if len(P)}


def analogy_items(
    words: Sequence[str], path: str | Path | None = None, protocol: Protocol = "pairs"
) -> tuple[np.ndarray, np.ndarray]:
    """The analogy items of a questions file that a vocabulary can answer.

    Parameters
    ----------
    words : sequence of str
        The vocabulary (word ``i`` has id ``i``).
    path : str or Path, optional
        The questions file; default the Google analogy set.
    protocol : {"pairs", "questions"}, default "pairs"
        ``"pairs"``: every ordered pair of two distinct in-vocabulary word pairs of a category (the
        authors'); ``"questions"``: the file's questions whose four words are in the vocabulary.

    Returns
    -------
    items : ndarray of int, shape (n, 4)
        Word ids ``(a, b, a', b')``.
    category : ndarray of int, shape (n,)
        Each item's category number, in the file's order.

    Raises
    ------
    TypeError
        If ``words`` is not a non-empty sequence of strings.
    ValueError
        For an unknown protocol.
    DataError
        If the questions file cannot be read or parsed.
    """
    _check_words(words)
    idx = _index(words)
    items: list[np.ndarray] = []
    cat_of: list[np.ndarray] = []
    for c, (_, qs) in enumerate(_questions(str(path) if path else None)):
        if protocol == "questions":
            rows = [[idx[w] for w in q] for q in qs if all(w in idx for w in q)]
            arr = np.array(rows, dtype=np.int64).reshape(-1, 4)
        elif protocol == "pairs":
            P = _category_pairs(qs, idx)
            k = len(P)
            if k < 2:
                continue
            i, j = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
            off = i != j
            arr = np.concatenate([P[i[off]], P[j[off]]], axis=1)
        else:
            raise ValueError(f"protocol must be 'pairs' or 'questions', got {protocol!r}")
        items.append(arr)
        cat_of.append(np.full(len(arr), c, dtype=np.int64))
    if not items:
        return np.zeros((0, 4), dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(items), np.concatenate(cat_of)


def _check_embedding(words: Sequence[str], W: np.ndarray, name: str = "W") -> np.ndarray:
    W = checks.finite_array(name, W, ndim=2, dtype=None, allow_empty=True)
    if W.shape[0] != len(words):
        raise ValueError(
            f"{name} must have one row per word: {len(words)} words, {name} has shape {W.shape}"
        )
    if W.shape[0] == 0:
        raise ValueError(f"{name}: empty vocabulary")
    return W


def _check_rows_nonzero(words: Sequence[str], W: np.ndarray, rows: np.ndarray) -> None:
    """Cosines are undefined for an all-zero embedding row: refuse it instead of letting ties decide."""
    rows = np.unique(rows)
    zero = rows[~np.any(W[rows] != 0, axis=1)]
    if zero.size:
        names = ", ".join(repr(words[i]) for i in zero[:5])
        raise ValueError(
            f"{zero.size} evaluated word(s) have an all-zero embedding ({names}"
            f"{', …' if zero.size > 5 else ''}); their cosine similarity is undefined"
        )


def _analogy_hits(
    Wn: np.ndarray, items: np.ndarray, batch: int = 2048, rule: str = "add"
) -> np.ndarray:
    hits = np.zeros(len(items), dtype=bool)
    for s in range(0, len(items), batch):
        it = items[s : s + batch]
        if rule == "add":
            q = Wn[it[:, 1]] - Wn[it[:, 0]] + Wn[it[:, 2]]  # b - a + a'
            scores = Wn @ q.T  # (V, B)
        else:  # 3CosMul (Levy & Goldberg 2014): cosines shifted to [0, 1]
            cos = [(Wn @ Wn[it[:, k]].T + 1.0) / 2.0 for k in range(3)]  # a, b, a'
            scores = cos[1] * cos[2] / (cos[0] + 1e-3)
        cols = np.arange(len(it))
        for k in range(3):
            scores[it[:, k], cols] = -np.inf
        hits[s : s + batch] = scores.argmax(axis=0) == it[:, 3]
    return hits


def analogy_hits(W: np.ndarray, items: np.ndarray, *, rule: str = "add") -> np.ndarray:
    """Which analogy items ``W`` answers correctly, scored as :func:`analogy_accuracy` does.

    Parameters
    ----------
    W : array_like, shape (V, d)
        Finite embeddings; no word an item uses may have an all-zero row.
    items : array_like of int, shape (n, 4)
        Word ids ``(a, b, a', b')`` in ``0..V-1`` (as :func:`analogy_items` returns them).
    rule : {"add", "mul"}, default "add"
        3CosAdd or 3CosMul over the whole vocabulary, ``a``, ``b`` and ``a'`` excluded.

    Returns
    -------
    ndarray of bool, shape (n,)
        Whether the best-scoring word is ``b'``.

    Raises
    ------
    ValueError
        For a bad ``W``, ``items`` or ``rule``, or an item word with an all-zero embedding.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [0.0, 2.0], [-1.0, 0.0]])
    >>> analogy_hits(W, np.array([[0, 1, 2, 3], [0, 1, 2, 4]])).tolist()
    [True, False]
    """
    W = checks.finite_array("W", W, ndim=2, dtype=None)
    items = np.asarray(items)
    if items.ndim != 2 or items.shape[1] != 4 or not np.issubdtype(items.dtype, np.integer):
        raise ValueError(f"items must be an (n, 4) integer array, got {items.shape} {items.dtype}")
    if items.size and (items.min() < 0 or items.max() >= W.shape[0]):
        raise ValueError(f"items hold word ids outside 0..{W.shape[0] - 1}")
    if rule not in ("add", "mul"):
        raise ValueError(f"rule must be 'add' or 'mul', got {rule!r}")
    rows = np.unique(items.ravel())
    zero = rows[~np.any(W[rows] != 0, axis=1)]
    if zero.size:
        raise ValueError(
            f"{zero.size} evaluated word(s) have an all-zero embedding (ids {zero[:5].tolist()})"
        )
    return _analogy_hits(normalize_rows(W), items, rule=rule)


def analogy_accuracy(
    words: Sequence[str],
    W: np.ndarray,
    path: str | Path | None = None,
    *,
    protocol: Protocol = "pairs",
    per_category: bool = False,
    rule: str = "add",
):
    """3CosAdd (``rule="add"``) or 3CosMul (``rule="mul"``) analogy accuracy of ``W`` (rows aligned with ``words``).

    3CosMul answers ``argmax_w cos'(w, b) cos'(w, a') / (cos'(w, a) + 1e-3)`` with ``cos' = (cos + 1)/2``
    (Levy & Goldberg 2014). The whole vocabulary competes; ``a``, ``b`` and ``a'`` are excluded.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, in the order of ``W``'s rows.
    W : array_like, shape (V, d)
        Finite embeddings; no evaluated word may have an all-zero row.
    path : str or Path, optional
        The questions file; default the Google analogy set.
    protocol : {"pairs", "questions"}, default "pairs"
        ``"pairs"`` builds the analogies from every ordered pair of two distinct in-vocabulary word pairs
        of a category (the authors'); ``"questions"`` scores the file's questions whose four words are all
        in the vocabulary.
    per_category : bool, default False
        Also return each category's accuracy and count.
    rule : {"add", "mul"}, default "add"

    Returns
    -------
    (accuracy, n) or (accuracy, n, {category: (accuracy, n)})
        The share answered correctly and the number of analogies scored.

    Raises
    ------
    ValueError
        If ``W`` does not have one finite row per word, an evaluated word has an all-zero embedding, or no
        analogy has all its words in the vocabulary.
    DataError
        If the questions file cannot be read.
    """
    W = _check_embedding(words, W)
    if rule not in ("add", "mul"):
        raise ValueError(f"rule must be 'add' or 'mul', got {rule!r}")
    items, cat = analogy_items(words, path, protocol)
    if len(items) == 0:
        raise ValueError(
            f"no analogy of protocol {protocol!r} has all its words among the "
            f"{len(words)} vocabulary words"
        )
    _check_rows_nonzero(words, W, items.ravel())
    hits = _analogy_hits(normalize_rows(W), items, rule=rule)
    acc = float(hits.mean())
    if not per_category:
        return acc, int(len(items))
    names = [n for n, _ in _questions(str(path) if path else None)]
    per = {names[c]: (float(hits[cat == c].mean()), int((cat == c).sum())) for c in np.unique(cat)}
    return acc, int(len(items)), per


# -- similarity --------------------------------------------------------------------------------
def _similarity_rows(dataset: str) -> list[tuple[str, str, float]]:
    if dataset not in ("men", "ws353"):
        raise ValueError(f"dataset must be 'men' or 'ws353', got {dataset!r}")
    out = []
    for raw in read_lines(dataset):
        parts = raw.strip().split()
        if not parts or parts[0].startswith("#"):
            continue
        if len(parts) != 3:
            raise DataError(f"{dataset}: line {raw!r} is not 'word word score'")
        out.append((parts[0].lower(), parts[1].lower(), float(parts[2])))
    return out


def similarity_pairs(words: Sequence[str], dataset: str) -> tuple[np.ndarray, np.ndarray]:
    """``(pairs, scores)``: word ids of the in-vocabulary pairs of ``men``/``ws353`` and their human scores."""
    idx = _index(words)
    rows = [(idx[a], idx[b], s) for a, b, s in _similarity_rows(dataset) if a in idx and b in idx]
    pairs = np.array([(a, b) for a, b, _ in rows], dtype=np.int64).reshape(-1, 2)
    return pairs, np.array([s for *_, s in rows], dtype=np.float64)


def similarity_spearman(words: Sequence[str], W: np.ndarray, dataset: str) -> tuple[float, int]:
    """Spearman ρ between cosine similarity and human score over in-vocabulary pairs: ``(rho, n)``.

    Raises ``ValueError`` when fewer than three pairs are in the vocabulary (ρ is undefined).
    """
    from scipy.stats import spearmanr

    W = _check_embedding(words, W)
    pairs, human = similarity_pairs(words, dataset)
    if len(pairs) < 3:
        raise ValueError(
            f"only {len(pairs)} pairs of {dataset!r} have both words in the vocabulary of "
            f"{len(words)} words; Spearman's rho needs at least 3"
        )
    _check_rows_nonzero(words, W, pairs.ravel())
    Wn = normalize_rows(W).astype(np.float64)
    cos = np.einsum("ij,ij->i", Wn[pairs[:, 0]], Wn[pairs[:, 1]])
    rho = float(spearmanr(cos, human).statistic)
    if not np.isfinite(rho):
        raise ValueError(
            f"Spearman's rho is undefined on these {len(pairs)} pairs of {dataset!r}: the cosines (or "
            "the human scores) are all equal, e.g. for identical or constant embeddings"
        )
    return rho, int(len(pairs))


def similarity_bootstrap(
    words: Sequence[str],
    embeddings: Sequence[np.ndarray],
    dataset: str,
    n_boot: int = 1000,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Spearman ρ of several embeddings on one similarity set, with *paired* bootstrap replicates.

    Returns ``(rho (m,), draws (n_boot, m), n)``: ``rho[j]`` is :func:`similarity_spearman` of
    ``embeddings[j]``; row ``b`` of ``draws`` is every embedding's ρ on the same resample of the ``n``
    in-vocabulary pairs (``rng.integers(0, n, n)``, one draw per row), so a difference of two columns is
    a paired comparison. The standard error of ``rho[j]`` is ``draws[:, j].std()``."""
    from scipy.stats import spearmanr

    if not isinstance(n_boot, (int, np.integer)) or isinstance(n_boot, bool) or n_boot < 1:
        raise ValueError(f"n_boot must be a positive integer, got {n_boot!r}")
    Ws = [_check_embedding(words, W, "embeddings") for W in embeddings]
    if not Ws:
        raise ValueError("embeddings must hold at least one embedding, got none")
    rho = np.array([similarity_spearman(words, W, dataset)[0] for W in Ws])
    pairs, human = similarity_pairs(words, dataset)
    cos = np.stack(
        [
            np.einsum("ij,ij->i", Wn[pairs[:, 0]], Wn[pairs[:, 1]])
            for Wn in (normalize_rows(W).astype(np.float64) for W in Ws)
        ],
        axis=1,
    )
    rng = np.random.default_rng(0) if rng is None else rng
    n = len(pairs)
    draws = np.empty((int(n_boot), len(Ws)))
    for b in range(int(n_boot)):
        idx = rng.integers(0, n, n)
        for j in range(len(Ws)):
            draws[b, j] = spearmanr(cos[idx, j], human[idx]).statistic
    return rho, draws, int(n)


def evaluate_all(words: Sequence[str], W: np.ndarray) -> dict[str, tuple[float, int]]:
    """All four scores of the benchmark table for one embedding.

    Parameters
    ----------
    words : sequence of str
        The vocabulary, in the order of ``W``'s rows.
    W : array_like, shape (V, d)

    Returns
    -------
    dict
        ``{"analogy": (accuracy, n), "analogy_questions": (accuracy, n), "men": (rho, n),
        "ws353": (rho, n)}``: :func:`analogy_accuracy` with the authors' ``"pairs"`` protocol and with the
        file's questions, and :func:`similarity_spearman` on MEN and WordSim353.

    Raises
    ------
    ValueError, DataError
        As :func:`analogy_accuracy` and :func:`similarity_spearman` do.
    """
    return {
        "analogy": analogy_accuracy(words, W, protocol="pairs"),
        "analogy_questions": analogy_accuracy(words, W, protocol="questions"),
        "men": similarity_spearman(words, W, "men"),
        "ws353": similarity_spearman(words, W, "ws353"),
    }


# -- comparing two accuracies -------------------------------------------------------------------
COMPETITIVE_Z = 3.0
"""How many binomial standard errors of the gap the "competitive with word2vec" rule allows."""


def competitive_margin(
    acc: float,
    acc_ref: float,
    n: int,
    n_ref: int | None = None,
    *,
    rerun_spread: float = 0.0,
    z: float = COMPETITIVE_Z,
) -> float:
    """The margin of the rule "``acc`` is competitive with ``acc_ref``": ``max(z * gap_se, rerun_spread)``.

    ``z`` binomial standard errors of the gap (:func:`qwem_lib.maths.stats.gap_se`) cover the sampling
    noise of the analogy set; ``rerun_spread`` (a measured run-to-run spread of the reference, e.g. two gensim runs that
    differ only by thread scheduling) covers the training noise when it is larger.
    """
    rerun_spread = checks.nonnegative("rerun_spread", rerun_spread)
    z = checks.positive("z", z)
    return max(
        z * gap_se_named(acc, acc_ref, n, n_ref, ("acc", "acc_ref", "n", "n_ref")), rerun_spread
    )


def is_competitive(
    acc: float,
    acc_ref: float,
    n: int,
    n_ref: int | None = None,
    *,
    rerun_spread: float = 0.0,
    z: float = COMPETITIVE_Z,
) -> tuple[bool, float]:
    """The book's one rule for "competitive with word2vec": ``acc >= acc_ref - margin``.

    Returns ``(competitive, margin)`` with ``margin`` from :func:`competitive_margin`. Being *above* the
    reference is competitive too: the paper's point is that the closed form is a usable embedding, not
    that it wins.
    """
    m = competitive_margin(acc, acc_ref, n, n_ref, rerun_spread=rerun_spread, z=z)
    return bool(acc >= acc_ref - m), m


# -- the benchmark table -------------------------------------------------------------------------
METHODS: dict[str, str] = {
    "w2v_k1": "word2vec (gensim SGNS, k=1)",
    "w2v_k5": "word2vec (gensim SGNS, k=5)",
    "svd_mstar": "svd(M*)",
    "svd_ppmi": "svd(PPMI)",
    "svd_pmi": "svd(PMI)",
}
"""The methods of the paper's Figure 3b that this book can compute in closed form or with gensim."""

PAPER_FIG3B: dict[str, dict[str, float]] = {
    # Karkada et al. 2025, Figure 3b: V = 10,000, d = 200, 2.0B tokens of Wikipedia 2023
    "word2vec": {"analogy": 0.680, "men": 0.744, "ws353": 0.698},
    "QWEM": {"analogy": 0.651, "men": 0.755, "ws353": 0.682},
    "svd_mstar": {"analogy": 0.663, "men": 0.755, "ws353": 0.683},
    "svd_ppmi": {"analogy": 0.506, "men": 0.740, "ws353": 0.690},
    "svd_pmi": {"analogy": 0.084, "men": 0.448, "ws353": 0.221},
}
"""The paper's numbers, for the table's "paper" column (its word2vec is SGNS with k = 1)."""


def method_embeddings(method: str, corpus, V: int, d: int, **kw) -> tuple[list[str], np.ndarray]:
    """The embeddings of one method of the benchmark table.

    Parameters
    ----------
    method : str
        A key of :data:`METHODS`: ``"svd_mstar"``, ``"svd_pmi"``, ``"svd_ppmi"`` (closed forms,
        :func:`~qwem_lib.qwem.spectral.spectral_embeddings`) or ``"w2v_k1"``, ``"w2v_k5"`` (gensim's SGNS
        with that many negatives, :func:`~qwem_lib.qwem.w2v.train_word2vec`).
    corpus : str or Corpus
    V, d : int
        Vocabulary size and embedding dimension.
    **kw
        Passed on to the function that computes them.

    Returns
    -------
    (words, W)
        The ``V`` words and their ``(V, d)`` embeddings (cached by inputs where they are computed).

    Raises
    ------
    ValueError
        For an unknown method.
    """
    from .spectral import spectral_embeddings
    from .w2v import train_word2vec

    if method.startswith("svd_"):
        target = method[4:]
        if target not in ("mstar", "pmi", "ppmi"):
            raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
        return spectral_embeddings(corpus, V, d, target, **kw)  # type: ignore[arg-type]
    if method.startswith("w2v_k"):
        words, W, _ = train_word2vec(corpus, V, d, negative=int(method[5:]), **kw)
        return words, W
    raise ValueError(f"unknown method {method!r}; choose one of {sorted(METHODS)}")


def _check_items_cat(items: Any, cat: Any) -> tuple[np.ndarray, np.ndarray]:
    items = np.asarray(items)
    cat = np.asarray(cat)
    if items.ndim != 2 or items.shape[1] != 4 or not np.issubdtype(items.dtype, np.integer):
        raise ValueError(f"items must be an (n, 4) integer array, got {items.shape} {items.dtype}")
    if cat.shape != (items.shape[0],) or not np.issubdtype(cat.dtype, np.integer):
        raise ValueError(f"cat must be ({items.shape[0]},) integers, got {cat.shape} {cat.dtype}")
    if items.size and items.min() < 0:
        raise ValueError(f"items must hold word ids >= 0, got {int(items.min())}")
    return items, cat


def pair_index(items: Any, cat: Any) -> tuple[np.ndarray, dict[int, int]]:
    """For each item, the indices of its two word pairs ``(a, b)`` and ``(a', b')`` among the distinct
    pairs of its category: ``(idx (n, 2), {category: number of pairs})``."""
    items, cat = _check_items_cat(items, cat)
    idx = np.empty((len(items), 2), dtype=np.int64)
    n_pairs: dict[int, int] = {}
    for c in np.unique(cat):
        rows = np.nonzero(cat == c)[0]
        both = np.concatenate([items[rows, :2], items[rows, 2:]])
        uniq, inv = np.unique(both, axis=0, return_inverse=True)
        inv = inv.ravel()
        idx[rows, 0] = inv[: len(rows)]
        idx[rows, 1] = inv[len(rows) :]
        n_pairs[int(c)] = int(len(uniq))
    return idx, n_pairs


def pair_bootstrap_weights(
    items: Any, cat: Any, n_boot: int, rng: np.random.Generator | None = None
) -> np.ndarray:
    """``(n_boot, n)`` item weights of a bootstrap over each category's word pairs.

    A category's ``k`` distinct pairs are drawn ``k`` times with replacement; a pair drawn ``m_p`` times
    enters ``m_p`` times, and the analogies built from the draws (every ordered pair of two distinct
    draws) give item ``(p, p')`` the weight ``m_p m_{p'}`` (two draws of the same pair make no analogy, as
    in the protocol). A weighted mean of the hits is then the accuracy on the resampled category."""
    n_boot = checks.positive_int("n_boot", n_boot)
    idx, n_pairs = pair_index(items, cat)
    cat = np.asarray(cat)
    rng = config.rng(51_001) if rng is None else rng
    out = np.zeros((int(n_boot), len(cat)))
    for c, k in n_pairs.items():
        rows = np.nonzero(cat == c)[0]
        m = np.stack([np.bincount(rng.integers(0, k, k), minlength=k) for _ in range(n_boot)])
        out[:, rows] = m[:, idx[rows, 0]] * m[:, idx[rows, 1]]
    return out


@dataclass(frozen=True)
class EmbeddingScores:
    """Several embeddings of one vocabulary scored on the same questions, with paired bootstrap replicates.

    ``emb`` the embeddings by name (their order is the order of every table); ``items``, ``cat`` the
    analogy items (:func:`analogy_items`, the authors' all-pairs protocol) and their categories; ``hits``
    each embedding's answers (:func:`analogy_hits`); ``weights`` the ``(n_boot, n)`` word-pair bootstrap
    weights (:func:`pair_bootstrap_weights`) and ``draws`` each embedding's accuracy on those resamples;
    ``sim[ds]`` :func:`similarity_bootstrap`'s ``(rho, draws, n)`` on ``"men"`` and ``"ws353"``, one
    column per embedding. Every embedding sees the same resamples, so a difference of two is paired."""

    emb: dict[str, np.ndarray]
    items: np.ndarray
    cat: np.ndarray
    hits: dict[str, np.ndarray]
    weights: np.ndarray
    draws: dict[str, np.ndarray]
    sim: dict[str, tuple[np.ndarray, np.ndarray, int]]

    @property
    def names(self) -> list[str]:
        """The embeddings' names, in table order."""
        return list(self.emb)


def score_embeddings(
    words: Sequence[str],
    embeddings: Mapping[str, Any],
    n_boot: int,
    rng: np.random.Generator,
    rng_sim: np.random.Generator | None = None,
) -> EmbeddingScores:
    """Score several embeddings of ``words`` on the analogies, MEN and WS353, paired (chapters 26 and 28).

    Parameters
    ----------
    words : sequence of str
        The vocabulary, in the order of every embedding's rows.
    embeddings : mapping of str to array_like, shape (V, d)
        The embeddings by name; at least one.
    n_boot : int
        Bootstrap replicates (over each category's word pairs, and over the similarity pairs).
    rng : numpy.random.Generator
        Draws the word-pair resamples, then (unless ``rng_sim`` is given) MEN's and WS353's resamples,
        in that order.
    rng_sim : numpy.random.Generator, optional
        Draws the similarity resamples instead of ``rng``.

    Returns
    -------
    EmbeddingScores

    Raises
    ------
    ValueError
        For no embeddings, a non-positive ``n_boot``, or an embedding that does not fit ``words``.

    Examples
    --------
    The accuracy of an embedding is the mean of its hits, and its standard error the spread of its
    replicate means: ``s.hits[name].mean()`` and ``s.draws[name].std()``.
    """
    if not embeddings:
        raise ValueError("embeddings must hold at least one embedding, got none")
    n_boot = checks.positive_int("n_boot", n_boot)
    emb = {str(k): _check_embedding(words, W, f"embeddings[{k!r}]") for k, W in embeddings.items()}
    items, cat = analogy_items(words)
    hits = {name: analogy_hits(W, items) for name, W in emb.items()}
    weights = pair_bootstrap_weights(items, cat, n_boot, rng)
    draws = {name: replicate_means(weights, h) for name, h in hits.items()}
    r_sim = rng if rng_sim is None else rng_sim
    sim = {
        ds: similarity_bootstrap(words, list(emb.values()), ds, n_boot, r_sim)
        for ds in ("men", "ws353")
    }
    return EmbeddingScores(
        emb=emb, items=items, cat=cat, hits=hits, weights=weights, draws=draws, sim=sim
    )


def score_rows(
    label: str,
    hits: dict[str, np.ndarray],
    acc_draws: dict[str, np.ndarray],
    sim: dict[str, tuple[np.ndarray, np.ndarray, int]],
    paper: dict[str, str],
) -> list[str]:
    """Markdown rows of a benchmark table, one per embedding, in the order of ``hits``:
    ``| label | name | accuracy ± SE (n) | MEN ρ ± SE (n) | WS353 ρ ± SE (n) | the paper's row |``.

    ``hits[name]`` are the analogy answers (:func:`analogy_hits`), ``acc_draws[name]`` the bootstrap
    replicates of its accuracy, ``sim[ds]`` :func:`similarity_bootstrap`'s ``(rho, draws, n)`` for
    ``ds`` in ``("men", "ws353")`` with columns in the order of ``hits``, and ``paper[name]`` the key of
    :data:`PAPER_FIG3B` to print beside it (chapters 24 and 26)."""
    names = list(hits)
    if set(acc_draws) != set(names) or set(paper) < set(names):
        raise ValueError("hits, acc_draws and paper must name the same embeddings")
    for ds in ("men", "ws353"):
        if ds not in sim or len(sim[ds][0]) != len(names):
            raise ValueError(f"sim[{ds!r}] must hold one column per embedding ({len(names)})")
    rows = []
    for j, name in enumerate(names):
        h = np.asarray(hits[name])
        cells = [f"{100 * h.mean():.1f}% ± {100 * np.std(acc_draws[name]):.1f} (n={h.size:,})"]
        for ds in ("men", "ws353"):
            rho, draws, n = sim[ds]
            cells.append(f"{rho[j]:.3f} ± {np.asarray(draws)[:, j].std():.3f} (n={n:,})")
        pr = PAPER_FIG3B[paper[name]]
        rows.append(
            f"| {label} | {name} | " + " | ".join(cells)
            + f" | {100 * pr['analogy']:.1f}% / {pr['men']:.3f} / {pr['ws353']:.3f} |"
        )  # fmt: skip
    return rows
