"""The word2vec reference: gensim's skip-gram with negative sampling, on the book's corpora.

Settings follow the QWEM paper's baseline where gensim allows: skip-gram (``sg=1``), negative sampling
with ``k`` negatives (``k = 1`` as in the paper, and gensim's usual ``k = 5``), frequent-word
subsampling ``sample = 1e-5``, a window of 16 on each side, ``d`` dimensions, 5 epochs, 2 worker threads,
a fixed seed.

Vocabulary
    The model must embed exactly the book's top-``V`` words, in the book's order. The token stream is
    therefore restricted to ids ``< V`` *before* training (out-of-vocabulary tokens are dropped, which is
    also what the co-occurrence counts do with ``oov="drop"`` and what gensim itself does with words
    below ``min_count``) and written once to a plain-text file in the cache, which gensim reads with its
    fast ``corpus_file`` path; ``min_count=1`` then keeps every one of the ``V`` words. Lines hold 10,000
    tokens (gensim's own sentence cap), so windows cross line ends only at those cuts.

Windows and subsampling
    gensim draws, for every centre word, an effective window uniformly from 1..16 ("shrink_windows"):
    a context word at distance ``j`` is used with probability ``(17 - j)/16``, the linear weighting
    ``17 - j`` of the co-occurrence statistics *on the stream gensim trains on*. That stream is not the
    one svd(M*) counts: subsampling (``sample``) deletes each occurrence of a word of frequency ``f``
    with probability ``1 - min(1, sqrt(sample/f) + sample/f)`` *before* the windows are drawn (see
    :func:`subsample_keep_probability`); at ``sample = 1e-5`` that is most of the tokens of the top
    words (:func:`subsampled_fraction`), so windows stretch over the deleted tokens and frequent words
    are down-weighted. word2vec and svd(M*) therefore do not see the same weighted pairs; chapter 21
    measures how much the choice of ``sample`` and ``epochs`` moves the baseline.

Determinism
    With more than one worker thread gensim is *not* bit-reproducible (the threads update shared
    weights without locks, "Hogwild"), so two runs with the same seed differ slightly; chapter 21 shows
    by how much. The embeddings are cached under ``config.cache_dir()/w2v`` keyed by every input, so a
    chapter re-run reuses one trained model and its numbers do not move.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from pathlib import Path

import numpy as np

from ..book import checks, config
from ..book.cache import atomic_path, cached, digest, discard, entry
from ..data import Corpus, DataError
from .corpus_stats import resolve_corpus, vocabulary_key

__all__ = [
    "w2v_corpus_file",
    "w2v_corpus_key",
    "train_word2vec",
    "W2V_DEFAULTS",
    "subsample_keep_probability",
    "subsampled_fraction",
]

W2V_DEFAULTS = dict(
    sg=1, sample=1e-5, window=16, epochs=5, workers=2, alpha=0.025, min_alpha=1e-4, ns_exponent=0.75
)
"""Fixed settings of the reference run (gensim's own defaults for the learning rate schedule)."""

LINE_TOKENS = 10_000


def subsample_keep_probability(counts: np.ndarray, sample: float) -> np.ndarray:
    """gensim's probability of keeping one occurrence of each word under frequent-word subsampling.

    With ``t = sample * sum(counts)`` (gensim's ``threshold_count``), a word of count ``v`` is kept with
    probability ``min(1, (sqrt(v / t) + 1) * t / v)``; ``sample = 0`` keeps everything.
    """
    v = checks.finite_array("counts", counts, ndim=1)
    if np.any(v <= 0):
        raise ValueError(
            f"counts must be a non-empty 1-D array of positive counts, got minimum {v.min()!r}"
        )
    sample = _check_sample(sample)
    if sample == 0:
        return np.ones_like(v)
    t = sample * v.sum()
    return np.minimum(1.0, (np.sqrt(v / t) + 1.0) * t / v)


def _check_sample(sample: float) -> float:
    """``sample`` in ``[0, 1)``: gensim reads a value of 1 or more as a count, not a frequency threshold."""
    return checks.real("sample", sample, low=0.0, high=1.0, high_open=True)


def subsampled_fraction(counts: np.ndarray, sample: float) -> float:
    """Expected share of the tokens that gensim's subsampling deletes before windowing (0 for ``sample=0``).

    ``counts`` are the counts of the words gensim keeps (here the top-``V`` words).
    """
    v = checks.positive_array("counts", counts, strict=False, ndim=1)
    if v.sum() <= 0:
        raise ValueError("counts must not all be zero")
    return float(1.0 - (subsample_keep_probability(v, sample) * v).sum() / v.sum())


def w2v_corpus_key(c: Corpus, V: int) -> str:
    """The name the gensim baseline's files of corpus ``c`` at vocabulary ``V`` share (corpus file, models,
    snapshots): the vocabulary's key for a registered corpus
    (:func:`~qwem_lib.qwem.corpus_stats.vocabulary_key`, with the corpus cache's version, as these files were
    first named), else the corpus's sanitised name with a digest of its ids."""
    key = vocabulary_key(c, V, corpus_version=True)
    if key is None:
        ids_digest = hashlib.sha256(np.ascontiguousarray(c.ids).tobytes()).hexdigest()[:16]
        # the name becomes part of a file name: nothing in it may leave the cache folder ("../../x")
        safe = re.sub(r"[^A-Za-z0-9_.\[\]:-]", "_", c.name).lstrip(".") or "corpus"
        return f"{safe[:80]}-{ids_digest}-V{V}"
    return key


def _corpus_file_bytes(words: np.ndarray, kept: np.ndarray) -> int:
    """The exact size of :func:`w2v_corpus_file`'s file: the UTF-8 words, one space between two tokens
    of a line, one newline after each line of :data:`LINE_TOKENS` tokens."""
    lengths = np.fromiter((len(w.encode("utf-8")) for w in words), dtype=np.int64, count=len(words))
    n_lines = -(-kept.size // LINE_TOKENS)
    return int(lengths[kept].sum()) + (kept.size - n_lines) + n_lines


def w2v_corpus_file(corpus: str | Corpus, V: int) -> Path:
    """The corpus restricted to its top-``V`` words as a gensim ``corpus_file`` (cached)."""
    c = resolve_corpus(corpus)
    if c.n_tokens == 0:
        raise DataError(f"corpus {c.name!r} is empty")
    words = np.array(c.vocab(int(V)), dtype=object)
    path = config.cache_dir() / "w2v" / f"{w2v_corpus_key(c, int(V))}.txt"
    ids = np.asarray(c.ids)
    kept = ids[ids < V]
    if kept.size < 2:
        raise DataError(f"corpus {c.name!r} has fewer than two tokens among its top {V} words")
    size = _corpus_file_bytes(words, kept)
    if path.exists():
        if path.stat().st_size == size:
            return path
        discard(path, f"it has {path.stat().st_size:,} bytes, not {size:,}: a cut or stale file")
    # UTF-8: a corpus with non-ASCII bytes has words holding U+FFFD (gensim reads UTF-8)
    with atomic_path(path) as tmp:
        _write_corpus_file(tmp, words, kept)
    if (
        not path.exists()
    ):  # the cache folder is read-only (atomic_path warned): a file for this process
        import tempfile

        path = Path(tempfile.mkdtemp(prefix="qwem-w2v-")) / path.name
        _write_corpus_file(path, words, kept)
    return path


def _write_corpus_file(path: Path, words: np.ndarray, kept: np.ndarray) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for s in range(0, kept.size, LINE_TOKENS):
            f.write(" ".join(words[kept[s : s + LINE_TOKENS]]))
            f.write("\n")


def train_word2vec(
    corpus: str | Corpus,
    V: int,
    d: int,
    negative: int = 1,
    *,
    epochs: int = 5,
    window: int = 16,
    sample: float = 1e-5,
    workers: int = 2,
    seed: int | None = None,
    use_cache: bool = True,
    verbose: bool = False,
) -> tuple[list[str], np.ndarray, dict]:
    """Train (or load from the cache) gensim skip-gram with ``negative`` negatives on the top-``V`` words.

    Returns ``(words, W, info)``: ``words`` are the corpus' top-``V`` words in frequency order, ``W`` the
    ``(V, d)`` input embeddings aligned with them, ``info`` the settings, wall time and gensim version.

    Every number is checked before gensim sees it (gensim divides by some of them in compiled code, where
    a zero kills the process): ``V >= 2``, ``1 <= d < V``, ``negative``, ``epochs`` and ``workers`` at
    least 1, ``1 <= window <= 10,000`` (a line of the training file holds 10,000 tokens: no window sees
    further), ``0 <= sample < 1`` (gensim reads 1 or more as a count), ``seed`` a non-negative integer.
    """
    V = checks.integer("V", V, low=2)
    d = checks.integer("d", d, low=1, high=V - 1)
    negative = checks.positive_int("negative", negative)
    epochs = checks.positive_int("epochs", epochs)
    window = checks.integer("window", window, low=1, high=LINE_TOKENS)
    sample = _check_sample(sample)
    workers = checks.positive_int("workers", workers)
    seed = config.SEED if seed is None else checks.integer("seed", seed, low=0, high=2**32 - 1)

    import gensim

    c = resolve_corpus(corpus)
    words = c.vocab(V)
    settings = dict(
        W2V_DEFAULTS,
        window=window,
        epochs=epochs,
        sample=sample,
        workers=workers,
        negative=negative,
        vector_size=d,
        seed=seed,
        min_count=1,
        hs=0,
    )
    key = digest(dict(settings, corpus=w2v_corpus_key(c, int(V)), gensim=gensim.__version__))
    path = (
        entry("w2v", f"model-{w2v_corpus_key(c, int(V))}-d{d}-k{negative}-{key}.npz")
        if use_cache
        else None
    )
    out, _ = cached(
        path,
        lambda: _train_word2vec(c, int(V), words, settings, verbose),
        required=("W", "info"),
        shapes={"W": (V, d)},
        finite=("W",),
    )
    return list(words), out["W"], json.loads(str(out["info"]))


def _train_word2vec(
    c: Corpus, V: int, words: list[str], settings: dict, verbose: bool
) -> dict[str, np.ndarray]:
    """gensim's word2vec on the corpus file of ``c``'s top ``V`` words: ``{"W", "info"}`` (rows in the
    order of ``words``; ``info`` the settings and the run's facts as JSON), checked against the corpus."""
    import gensim
    from gensim.models import Word2Vec

    cfile = w2v_corpus_file(c, int(V))
    if verbose:
        logging.basicConfig(format="%(asctime)s %(message)s", level=logging.INFO)
    t0 = time.time()
    model = Word2Vec(corpus_file=str(cfile), **settings)
    wall = time.time() - t0
    kv = model.wv
    expected = int(np.count_nonzero(np.asarray(c.ids) < V))
    if int(model.corpus_total_words) != expected:
        cfile.unlink(missing_ok=True)
        raise DataError(
            f"gensim read {int(model.corpus_total_words):,} tokens from {cfile}, but the corpus has "
            f"{expected:,} among its top {V} words; the file is damaged (it is removed: run again)"
        )
    missing = [w for w in words if w not in kv.key_to_index]
    if missing or len(kv.key_to_index) != len(words):
        raise DataError(
            f"gensim vocabulary does not match the top-{V} words ({len(missing)} missing, "
            f"{len(kv.key_to_index)} learned)"
        )
    order = np.fromiter((kv.key_to_index[w] for w in words), dtype=np.int64, count=len(words))
    W = np.ascontiguousarray(kv.vectors[order], dtype=np.float32)
    info = dict(
        settings,
        wall_s=wall,
        gensim=gensim.__version__,
        corpus=c.name,
        V=int(V),
        train_tokens=int(model.corpus_total_words),
    )
    return {"W": W, "info": np.array(json.dumps(info))}
