"""Corpus statistics for QWEM on real text: windowed co-occurrences, unigrams, and M*, PMI, PPMI.

The protocol is that of the QWEM authors' public code (see ``shared/reference/authors-protocols.md``):

* the out-of-vocabulary rule (ids are frequency ranks, so "in the top ``n``" means ``id < n``):

  - ``oov="authors"`` (the default): the authors' rule. Every token outside the top
    ``stream_vocab`` = 20,000 words is removed before windowing (their corpus file keeps only those
    words), pairs are counted on that stream, and the ``V x V`` block is cut afterwards: words ranked
    between ``V`` and 20,000 keep their window slots but form no counted pair;
  - ``oov="drop"``: every token outside the top ``V`` is removed before windowing, so windows close
    over the gaps (what gensim does with words outside its vocabulary; at ``V = 2,000`` a quarter of
    the tokens go and the windows stretch accordingly);
  - ``oov="skip"``: nothing is removed; out-of-vocabulary tokens keep their slots and only the pairs
    that involve one are discarded;
* a centre word and the word ``j`` positions away (``1 <= j <= window``) form a pair of weight
  ``window + 1 - j`` (linear weights; ``weighting="flat"`` gives weight 1), counted in both directions,
  so the count matrix is symmetric;
* ``P_ij`` is the weighted count normalised to sum to one over the ``V x V`` block;
* ``P_i`` is the unigram frequency of word ``i`` among the top-``V`` words, renormalised to sum to one
  (it is *not* the row marginal of ``P_ij``).

Counting is one compiled pass (numba) over the token stream into a single ``V x V`` integer table, in
int32 when the counts provably fit, split by rows over the CPU threads (row ranges of equal token mass:
word counts follow Zipf's law); the stream is read in chunks, so memory holds the table plus one chunk,
however long the corpus (a memory-mapped id array works). The table is symmetrised in place by pairs of
tiles and normalised on all threads. Results are cached under ``config.cache_dir()/cooc`` keyed by
(corpus cache key, ``V``, window, weighting, oov rule).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Literal

import numpy as np

from ..book import checks, config
from ..book.cache import cached
from ..data import Corpus, DataError, corpus_cache_key, corpus_key, dataset, load_corpus

__all__ = [
    "cooccurrence_counts",
    "cooccurrence_table",
    "cooccurrence",
    "target_from_stats",
    "target_from_counts",
    "mstar_from_stats",
    "pmi_from_stats",
    "ppmi_from_stats",
    "zipf_fit",
    "resolve_corpus",
    "STREAM_VOCAB",
    "as_token_ids",
    "check_table_size",
    "offset_weights",
    "cooc_cache_path",
    "counts_key",
    "vocabulary_key",
    "warm_up_counting",
]

Weighting = Literal["linear", "flat"]
OOVRule = Literal["authors", "drop", "skip"]

STREAM_VOCAB = 20_000
"""The authors' corpus file keeps the top 20,000 words of enwiki (``oov="authors"``)."""
TargetKind = Literal["mstar", "pmi", "ppmi"]

PMI_EPS = 1e-25
"""The authors' guard inside the log: PMI = log(P_ij / (P_i P_j) + 1e-25)."""


def resolve_corpus(corpus: str | Corpus) -> Corpus:
    """A :class:`Corpus` from a registered name or a Corpus itself."""
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, str):
        return load_corpus(corpus)
    raise TypeError(f"corpus must be a registered name or a Corpus, got {type(corpus).__name__}")


def _check_window(window: Any, n_tokens: int) -> int:
    """``window`` as an int in ``[1, n_tokens - 1]``: a pair needs two tokens, so no wider window counts
    anything more, and an absurd one (``10**9``) is refused before its weights are allocated."""
    checks.positive_int("window", window)
    if n_tokens < 2:
        raise DataError(f"a stream of {n_tokens} token(s) has no pair to count")
    return checks.integer("window", window, low=1, high=int(n_tokens) - 1)


def offset_weights(window: int, weighting: Weighting) -> np.ndarray:
    """The weight of each offset ``j = 1..window`` of the co-occurrence window: ``window + 1 − j`` (``linear``,
    the authors') or 1 (``flat``). Raises ``ValueError`` for a window that is not a positive integer or an
    unknown weighting."""
    window = checks.positive_int("window", window)
    if weighting == "linear":
        return np.arange(
            window, 0, -1, dtype=np.int64
        )  # offset j = 1..window has weight window+1-j
    if weighting == "flat":
        return np.ones(window, dtype=np.int64)
    raise ValueError(f"weighting must be 'linear' or 'flat', got {weighting!r}")


def _check_oov(oov: str, stream_vocab: int) -> None:
    if oov not in ("authors", "drop", "skip"):
        raise ValueError(f"oov must be 'authors', 'drop' or 'skip', got {oov!r}")
    if (
        not isinstance(stream_vocab, (int, np.integer))
        or isinstance(stream_vocab, bool)
        or stream_vocab < 1
    ):
        raise ValueError(f"stream_vocab must be a positive integer, got {stream_vocab!r}")


def _oov_tag(oov: str, stream_vocab: int) -> str:
    """The part of a cache key that names the out-of-vocabulary rule."""
    return f"authors{int(stream_vocab)}" if oov == "authors" else oov


MAX_TABLE_BYTES: int | None = None
"""Refuse a count table larger than this many bytes (default: ``QWEM_MAX_TABLE_BYTES``, read when a table
is checked, else 80% of the machine's physical memory)."""


def _env_table_limit() -> int | None:
    """``QWEM_MAX_TABLE_BYTES`` as a positive whole number of bytes (``1e9`` and ``2_000_000`` are fine);
    None when unset or empty; a clear ValueError otherwise (never at import)."""
    raw = os.environ.get("QWEM_MAX_TABLE_BYTES", "").strip()
    if not raw:
        return None
    try:
        value = float(raw.replace("_", ""))
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and value == int(value) and value >= 1):
        raise ValueError(
            f"QWEM_MAX_TABLE_BYTES={raw!r} must be a positive whole number of bytes (e.g. 8e9); "
            "unset it to allow 80% of the machine's memory"
        )
    return int(value)


CHUNK_TOKENS = 8_000_000
"""Tokens per chunk of the counting pass (memory: the table plus one chunk of int32 ids)."""


def as_token_ids(ids, name: str = "ids") -> np.ndarray:
    """``ids`` as a 1-D integer array of non-negative token ids; clear errors for anything else.

    Lists and tuples are converted. Floating-point ids are accepted only when every one is a finite whole
    number (never truncated, and a NaN is never silently dropped); booleans and other types are refused.
    """
    arr = ids if isinstance(ids, np.ndarray) else np.asarray(ids)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of token ids, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.isfinite(arr).all():
            raise ValueError(
                f"{name} contains NaN or infinite values; token ids must be whole numbers"
            )
        if not np.array_equal(arr, np.floor(arr)):
            raise ValueError(
                f"{name} contains non-integer values (e.g. {float(arr[arr != np.floor(arr)][0])!r}); "
                "token ids must be whole numbers"
            )
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "iu":
        if arr.size == 0 and arr.dtype.kind in "fO":
            arr = arr.astype(np.int64)
        else:
            raise TypeError(f"{name} must hold integer token ids, got dtype {arr.dtype}")
    elif arr.dtype.kind == "u" and arr.dtype.itemsize == 8:
        if arr.size and int(arr.max()) >= 2**63:
            raise ValueError(
                f"{name} holds {int(arr.max())}, beyond any token id (a negative id cast to uint64?)"
            )
        arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:
        raise ValueError(
            f"{name}: token ids must be non-negative frequency ranks (found {int(arr.min())})"
        )
    return arr


def _table_limit() -> int:
    if MAX_TABLE_BYTES:
        return MAX_TABLE_BYTES
    env = _env_table_limit()
    if env is not None:
        return env
    try:
        return int(0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 8 << 30


def check_table_size(
    V: int, itemsize: int, copies: int = 1, what: str = "co-occurrence table"
) -> None:
    """Refuse, before allocating, ``copies`` ``V x V`` arrays of ``itemsize`` bytes that memory cannot hold."""
    need = int(V) * int(V) * int(itemsize) * int(copies)
    limit = _table_limit()
    if need > limit:
        why = (
            "set by QWEM_MAX_TABLE_BYTES"
            if MAX_TABLE_BYTES or _env_table_limit()
            else "80% of its memory; override with QWEM_MAX_TABLE_BYTES"
        )
        raise MemoryError(
            f"a {V:,} x {V:,} {what} needs {need / 2**30:,.3g} GiB, more than the "
            f"{limit / 2**30:,.3g} GiB this machine allows ({why}). Choose a smaller V."
        )


_KERNELS: dict = {}


def _kernels() -> dict:
    """The compiled kernels (built on first use; numba caches the machine code on disk)."""
    if not _KERNELS:
        import numba

        @numba.njit(parallel=True, nogil=True, cache=True)
        def count_pairs(stream, n_pos, V, w, out, bounds):  # pragma: no cover - compiled
            # out[a * V + b] += w[j-1] for t < n_pos, 1 <= j <= len(w), a = stream[t], b = stream[t + j],
            # both in [0, V) (-1 marks a slot that is kept but never counted).
            # First a counting sort of the positions by centre word (serial, two light passes); then each
            # thread takes the rows bounds[p] <= a < bounds[p+1] (ranges of equal token mass, so no two
            # threads write one cell) and adds all the windows of one word before the next, so the table
            # row being written stays in cache while the partners are read from the stream.
            n = stream.shape[0]
            W = w.shape[0]
            start = np.zeros(V + 1, dtype=np.int64)
            for t in range(n_pos):
                a = stream[t]
                if a >= 0:
                    start[a + 1] += 1
            for a in range(V):
                start[a + 1] += start[a]
            fill = start[:V].copy()
            pos = np.empty(start[V], dtype=np.int64)
            for t in range(n_pos):
                a = stream[t]
                if a >= 0:
                    pos[fill[a]] = t
                    fill[a] += 1
            for part in numba.prange(bounds.shape[0] - 1):
                for a in range(bounds[part], bounds[part + 1]):
                    row = a * V
                    for k in range(start[a], start[a + 1]):
                        t = pos[k]
                        stop = min(n, t + W + 1)
                        for u in range(t + 1, stop):
                            b = stream[u]
                            if b >= 0:
                                out[row + b] += w[u - t - 1]
            return 0

        @numba.njit(parallel=True, nogil=True, cache=True)
        def symmetrise(S, tiles):  # pragma: no cover - compiled
            # S <- S + S^T in place; each item of `tiles` (tile_pairs) is a tile on or above the diagonal,
            # handled with its mirror tile by one thread
            for item in numba.prange(tiles.shape[0]):
                i0, i1, j0, j1 = tiles[item, 0], tiles[item, 1], tiles[item, 2], tiles[item, 3]
                for i in range(i0, i1):
                    for j in range(max(j0, i), j1):
                        if i == j:
                            S[i, i] += S[i, i]
                        else:
                            s = S[i, j] + S[j, i]
                            S[i, j] = s
                            S[j, i] = s
            return 0

        @numba.njit(parallel=True, nogil=True, cache=True)
        def normalise(C, total, out):  # pragma: no cover - compiled
            # out = C / total in float64, row by row on all threads (the same IEEE division as NumPy's)
            t = np.float64(total)
            for i in numba.prange(C.shape[0]):
                for j in range(C.shape[1]):
                    out[i, j] = np.float64(C[i, j]) / t
            return 0

        @numba.njit(parallel=True, nogil=True, cache=True)
        def mstar(C, total, pu, out):  # pragma: no cover - compiled
            # out = 2 (P - Q) / (P + Q) with P = C / total and Q = pu pu^T, in float64 and in NumPy's order of
            # operations (so bit-identical to mstar_from_stats(C / total, pu)), then cast to out's dtype
            t = np.float64(total)
            for i in numba.prange(C.shape[0]):
                pi = pu[i]
                for j in range(C.shape[1]):
                    p = np.float64(C[i, j]) / t
                    q = pi * pu[j]
                    out[i, j] = 2.0 * (p - q) / (p + q)
            return 0

        _KERNELS.update(
            count_pairs=count_pairs, symmetrise=symmetrise, normalise=normalise, mstar=mstar
        )
    return _KERNELS


def tile_pairs(V: int, B: int = 64) -> np.ndarray:
    """The ``B x B`` tiles on or above the diagonal of a ``V x V`` matrix, one row ``(i0, i1, j0, j1)`` each.

    The work list of the compiled passes that visit every entry together with its mirror entry (the
    in-place symmetrisation here, the symmetry check of :mod:`qwem_lib.qwem.spectral`): a thread takes a tile and
    its mirror, so no two threads touch the same entry; off-diagonal tiles have equal work, so numba's
    static split of the list over the threads is balanced.
    """
    nb = (int(V) + B - 1) // B
    I, J = np.triu_indices(nb)
    return np.stack(
        [I * B, np.minimum((I + 1) * B, V), J * B, np.minimum((J + 1) * B, V)], axis=1
    ).astype(np.int64)


def _row_bounds(mass: np.ndarray, n_parts: int) -> np.ndarray:
    """``n_parts + 1`` row boundaries that split rows ``0..V-1`` into ranges of about equal ``mass``.

    Word frequencies follow Zipf's law, so equal *row* ranges would give the thread with the frequent words
    almost all the work; ranges of equal token mass balance the threads.
    """
    V = mass.shape[0]
    cum = np.cumsum(mass, dtype=np.float64)
    if V == 0 or cum[-1] <= 0:
        return np.linspace(0, V, n_parts + 1).astype(np.int64)
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, n_parts) / n_parts, side="left") + 1
    return np.concatenate([[0], np.minimum(cuts, V), [V]]).astype(np.int64)


def _stream_chunks(ids: np.ndarray, V: int, oov: str, stream_vocab: int, W: int, chunk: int):
    """The counted stream in chunks ``(seg, n_pos)``: ``seg`` holds the next positions plus ``W`` tokens of
    look-ahead; only the first ``n_pos`` positions start pairs. OOV tokens are removed or kept as -1."""
    remove_below = (
        V
        if (oov == "drop" or (oov == "authors" and stream_vocab <= V))
        else (stream_vocab if oov == "authors" else None)
    )
    carry = np.zeros(0, dtype=np.int32)
    for s in range(0, ids.size, chunk):
        part = np.asarray(ids[s : s + chunk])
        if remove_below is not None:
            part = part[part < remove_below]
        part = np.where(part < V, part, -1).astype(np.int32)
        buf = np.concatenate([carry, part])
        last = s + chunk >= ids.size
        n_pos = buf.size if last else max(0, buf.size - W)
        if n_pos or last:
            yield buf, n_pos
        carry = buf[n_pos:]


def _count_table(
    ids, V, window: int, weighting: Weighting, oov: str, stream_vocab: int, chunk: int
) -> np.ndarray:
    """The symmetric weighted counts as an exact ``V x V`` integer array (int32 when a bound allows)."""
    ids = as_token_ids(ids)
    if isinstance(V, bool) or not isinstance(V, (int, np.integer)) or V < 1:
        raise ValueError(f"V must be a positive integer, got {V!r}")
    V = int(V)
    checks.one_of("weighting", weighting, ("linear", "flat"))
    w = offset_weights(_check_window(window, ids.size), weighting)
    _check_oov(oov, stream_vocab)
    inv = np.zeros(
        V, dtype=np.int64
    )  # in-vocabulary counts, chunk by chunk (no copy of the whole stream)
    step = max(int(chunk), 1)
    for s in range(0, ids.size, step):
        inv += np.bincount(np.minimum(np.asarray(ids[s : s + step]), V), minlength=V + 1)[:V]
    if int(inv.sum()) < 2:
        raise DataError(f"fewer than two in-vocabulary tokens (V={V}); nothing to count")
    bound = 2 * int(w.sum()) * int(inv.max())
    itype = np.int32 if bound < 2**31 else np.int64
    check_table_size(V, np.dtype(itype).itemsize + 8)  # the integer table and the float64 result
    import numba

    k = _kernels()
    table = np.zeros(V * V, dtype=itype)  # calloc: fresh zero pages, huge pages where NumPy can
    bounds = _row_bounds(inv, max(1, numba.get_num_threads()))
    wk = w.astype(itype)
    for seg, n_pos in _stream_chunks(
        ids, V, oov, int(stream_vocab), w.size, max(int(chunk), 4 * w.size)
    ):
        k["count_pairs"](seg, n_pos, V, wk, table, bounds)
    S = table.reshape(V, V)
    k["symmetrise"](S, tile_pairs(V))
    return S


def cooccurrence_counts(
    ids: np.ndarray,
    V: int,
    window: int = 16,
    *,
    weighting: Weighting = "linear",
    oov: OOVRule = "authors",
    stream_vocab: int = STREAM_VOCAB,
    chunk: int = CHUNK_TOKENS,
) -> np.ndarray:
    """Symmetric weighted co-occurrence counts ``C`` (``V x V``, float64) of a token-id stream.

    After the out-of-vocabulary rule has made the stream (see the module docstring),
    ``C[a, b] = sum_j w_j (#{t : s[t] = a, s[t+j] = b} + #{t : s[t] = b, s[t+j] = a})`` over the stream
    ``s`` with ``w_j = window + 1 - j`` (``linear``) or 1 (``flat``), for ``a, b < V``. The counts are
    exact integers (int32 while they accumulate when ``2 · Σ_j w_j · max_a n_a < 2³¹``, else int64).
    Rows are split over the threads in ranges of equal token mass (:func:`_row_bounds`), and the table is
    symmetrised in place by pairs of tiles. Peak memory: the integer table, the float64 result and one
    chunk of ``chunk`` token ids; a table that cannot fit in memory is refused before anything is
    allocated (``MemoryError``).
    """
    chunk = checks.positive_int("chunk", chunk)
    return _count_table(ids, V, window, weighting, oov, stream_vocab, chunk).astype(np.float64)


def warm_up_counting() -> None:
    """Build (or load from numba's on-disk cache) this module's compiled kernels on a tiny stream: the count,
    the symmetrisation, the normalisation and the fused M* (float32 and float64), for int32 tables with and
    without an out-of-vocabulary slot (:func:`qwem_lib.qwem.spectral.warm_up_kernels` times the whole pipeline's)."""
    ids = np.array([0, 1, 0, 2, 1, 0, 2, 2], dtype=np.int32)
    for V in (3, 2):  # int32 tables; one V with an out-of-vocabulary slot
        C = _count_table(ids, V, 2, "linear", "skip", STREAM_VOCAB, CHUNK_TOKENS)
        pu = np.full(V, 1.0 / V)
        for dt in (np.float32, np.float64):
            target_from_counts(C, pu, "mstar", dtype=dt)
        P = np.zeros(C.shape)
        _kernels()["normalise"](C, _count_total(C), P)


def vocabulary_key(corpus: Corpus, V: int, *, corpus_version: bool = False) -> str | None:
    """The key of a registered corpus's top-``V`` vocabulary in cache names; None for an ad-hoc Corpus.

    Every input that fixes the words and their counts is in it: the dataset and its files' checksums
    (:func:`~qwem_lib.data.corpus_key`), the number of tokens, a fingerprint of the ids (a Corpus object
    that reuses a registered name with other ids gets another key) and ``V``. ``corpus_version`` adds the
    corpus cache's format version after the dataset's digest, as the co-occurrence and gensim files were
    first named (their names stay valid: hours of cached work are not recomputed).
    """
    try:
        ds = dataset(corpus.name)
    except DataError:
        return None
    head = corpus_cache_key(ds) if corpus_version else corpus_key(ds)
    return f"{head}-n{corpus.n_tokens}-{corpus.fingerprint()}-V{int(V)}"


def counts_key(
    corpus: Corpus, V: int, window: int, weighting: str, oov: str, stream_vocab: int = STREAM_VOCAB
) -> str | None:
    """The key of a registered corpus's co-occurrence counts (:func:`cooccurrence_table`) in the names of
    results computed from them (spectral embeddings, task-vector fits): the vocabulary's key, the window,
    the weighting and the out-of-vocabulary rule. None for an ad-hoc Corpus (not cached)."""
    vocab = vocabulary_key(corpus, V)
    if vocab is None:
        return None
    return f"{vocab}-w{int(window)}-{weighting}-{_oov_tag(oov, stream_vocab)}"


def cooc_cache_path(
    corpus: Corpus, V: int, window: int, weighting: str, oov: str, stream_vocab: int = STREAM_VOCAB
) -> Path | None:
    """The cache file of the counts of a registered corpus (:func:`cooccurrence_table`); None for an ad-hoc
    Corpus (not cached)."""
    vocab = vocabulary_key(corpus, V, corpus_version=True)
    if vocab is None:
        return None
    name = f"{vocab}-w{int(window)}-{weighting}-{_oov_tag(oov, stream_vocab)}-v1.npz"
    return config.cache_dir() / "cooc" / name


def cooccurrence_table(
    corpus: str | Corpus,
    V: int,
    window: int = 16,
    *,
    weighting: Weighting = "linear",
    oov: OOVRule = "authors",
    stream_vocab: int = STREAM_VOCAB,
    use_cache: bool = True,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(words, C, P_unigram)``: the exact symmetric weighted counts ``C`` (``V x V`` integers) of a corpus.

    The counts behind :func:`cooccurrence` (``P_joint = C / C.sum()``), by the authors' protocol; cached by
    inputs for registered corpora. :func:`target_from_counts` builds M* from them without forming
    ``P_joint``. Raises ``ValueError`` when ``V`` exceeds the corpus vocabulary, and :class:`DataError` for
    an empty corpus or one with no co-occurring pair among its top ``V`` words.
    """
    c = resolve_corpus(corpus)
    if c.n_tokens == 0:
        raise DataError(f"corpus {c.name!r} is empty")
    if not isinstance(V, (int, np.integer)) or V < 2:
        raise ValueError(f"V must be an integer >= 2, got {V!r}")
    checks.one_of("weighting", weighting, ("linear", "flat"))
    window = _check_window(window, c.n_tokens)
    words = c.vocab(int(V))  # raises ValueError if V > number of distinct words
    _check_oov(oov, stream_vocab)
    path = (
        cooc_cache_path(c, int(V), int(window), weighting, oov, stream_vocab) if use_cache else None
    )

    def compute() -> dict[str, np.ndarray]:
        counts = _count_table(
            np.asarray(c.ids), int(V), int(window), weighting, oov, stream_vocab, CHUNK_TOKENS
        )
        # int32 where the counts fit (half the file); the caller gets what the file holds
        return {"counts": counts.astype(np.int32, copy=False) if counts.max() < 2**31 else counts}

    out, _ = cached(
        path, compute, required=("counts",), shapes={"counts": (int(V), int(V))}, finite=("counts",)
    )
    counts = out["counts"]
    if not counts.any():
        raise DataError(f"corpus {c.name!r} has no co-occurring pair among its top {V} words")
    return list(words), counts, c.unigram(int(V))


def cooccurrence(
    corpus: str | Corpus,
    V: int,
    window: int = 16,
    *,
    weighting: Weighting = "linear",
    oov: OOVRule = "authors",
    stream_vocab: int = STREAM_VOCAB,
    use_cache: bool = True,
    dtype: Any = np.float64,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """``(words, P_joint, P_unigram)`` for the top-``V`` words of a corpus, by the authors' protocol.

    Parameters
    ----------
    corpus : str or Corpus
        A registered corpus name (e.g. ``"enwiki2015_17m"``) or a loaded :class:`~qwem_lib.data.Corpus`.
    V : int
        The vocabulary: the ``V`` most frequent words (at most the corpus's number of distinct words).
    window : int, default 16
        The context window; at most the corpus length.
    weighting : {"linear", "flat"}, default "linear"
        Offset ``j`` counts ``window + 1 − j`` times (the authors') or once.
    oov : {"authors", "drop", "skip"}, default "authors"
        The out-of-vocabulary rule (see the module docstring): the authors' removes only tokens outside the
        top ``stream_vocab`` before windowing.
    stream_vocab : int, default 20,000
        The authors' stream vocabulary.
    use_cache : bool, default True
        Read and fill the cache (registered corpora only; keyed by every input).
    dtype : numpy dtype, default float64
        A floating type for the two tables.

    Returns
    -------
    words : list of str
        ``words[i]`` is the ``i``-th most frequent word.
    P_joint : numpy.ndarray, shape (V, V)
        The weighted windowed co-occurrence probabilities: symmetric, summing to one.
    P_unigram : numpy.ndarray, shape (V,)
        The renormalised unigram frequencies of the top-``V`` words, summing to one.

    Raises
    ------
    ValueError
        When ``V`` exceeds the corpus vocabulary, or an argument is out of range.
    DataError
        For an empty corpus, or one with no co-occurring pair among its top ``V`` words.

    Examples
    --------
    >>> import numpy as np
    >>> words, P, pu = cooccurrence("enwiki2015_1m7", 100)  # the corpus that ships with the book
    >>> words[:3], P.shape, bool(np.allclose(P, P.T)), round(float(P.sum()), 9)
    (['the', 'of', 'and'], (100, 100), True, 1.0)
    """
    dtype = _float_dtype(dtype)
    words, counts, pu = cooccurrence_table(
        corpus,
        V,
        window,
        weighting=weighting,
        oov=oov,
        stream_vocab=stream_vocab,
        use_cache=use_cache,
    )
    P = np.zeros(counts.shape, dtype=np.float64)
    _kernels()["normalise"](
        np.ascontiguousarray(counts), _count_total(counts), P
    )  # P = C / ΣC, all threads
    return words, P.astype(dtype, copy=False), pu


def _count_total(counts: np.ndarray) -> int | float:
    """``ΣC`` exactly (in int64 for integer counts)."""
    return int(counts.sum(dtype=np.int64)) if counts.dtype.kind in "iu" else float(counts.sum())


# -- targets built from the statistics ---------------------------------------------------------
def _check_probabilities(name: str, A: np.ndarray) -> None:
    """Raise unless ``A`` is a real array of finite, non-negative entries that sum to at most one (a block of
    a larger table sums to less; raw counts sum to far more); ``P_unigram`` must also be 1-D and positive."""
    if A.dtype.kind not in "fiu":
        raise TypeError(f"{name} must be a real array, got dtype {A.dtype}")
    if name == "P_unigram" and A.ndim != 1:
        raise ValueError(f"P_unigram must be 1-D, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name} has NaN or infinite entries")
    if A.min() < 0:
        raise ValueError(f"{name} has negative entries; it must hold probabilities")
    total = float(A.sum(dtype=np.float64))
    if total > 1 + 1e-6:
        raise ValueError(
            f"{name} sums to {total:.4g} > 1: it looks like raw counts, not probabilities "
            "(divide by the total, as qwem_lib.cooccurrence does)"
        )
    if name == "P_unigram" and np.any(A <= 0):
        raise ValueError("P_unigram must be strictly positive")


def check_stats(P_joint, P_unigram) -> tuple[np.ndarray, np.ndarray]:
    """Both statistics as arrays, checked (:func:`_check_probabilities`); their shapes must agree."""
    P_joint, P_unigram = np.asarray(P_joint), np.asarray(P_unigram)
    for name, A in (("P_joint", P_joint), ("P_unigram", P_unigram)):
        if A.dtype.kind not in "fiu":
            raise TypeError(f"{name} must be a real array, got dtype {A.dtype}")
    if P_unigram.ndim != 1:
        raise ValueError(f"P_unigram must be 1-D, got shape {P_unigram.shape}")
    V = P_unigram.shape[0]
    if P_joint.shape != (V, V):
        raise ValueError(f"P_joint has shape {P_joint.shape} but P_unigram has {V} entries")
    _check_probabilities("P_joint", P_joint)
    _check_probabilities("P_unigram", P_unigram)
    return P_joint, P_unigram


def _float_dtype(dtype, *, fast: bool = False) -> np.dtype:
    """``dtype`` checked: a floating type (float32 or float64 where ``fast``: the compiled kernels'). An
    integer type would truncate every entry of M* (in [-2, 2]) and PMI, most to zero."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be a floating-point type, got {dtype!r}") from None
    allowed = (np.dtype(np.float32), np.dtype(np.float64)) if fast else None
    if dt.kind != "f" or (allowed is not None and dt not in allowed):
        raise TypeError(
            f"dtype must be {'float32 or float64' if fast else 'a floating-point type'}, got {dt} "
            "(an integer target would truncate M* and PMI, most entries to zero)"
        )
    return dt


def _rowwise(
    P_joint: np.ndarray, P_unigram: np.ndarray, fn, dtype, block: int = 1024
) -> np.ndarray:
    """Apply ``fn(P_block, PiPj_block)`` by row blocks to keep temporaries small at V = 10,000."""
    dtype = _float_dtype(dtype)
    P_joint, P_unigram = check_stats(P_joint, P_unigram)
    V = P_unigram.shape[0]
    out = np.empty((V, V), dtype=dtype)
    pu = P_unigram.astype(np.float64)
    for s in range(0, V, block):
        e = min(V, s + block)
        out[s:e] = fn(P_joint[s:e].astype(np.float64), np.outer(pu[s:e], pu))
    return out


def mstar_from_stats(P_joint: np.ndarray, P_unigram: np.ndarray, *, dtype=np.float64) -> np.ndarray:
    """QWEM's target with ``Ψ⁺ = Ψ⁻ = 1/(P_ij + P_i P_j)``: ``M* = 2 (P_ij − P_i P_j) / (P_ij + P_i P_j)``.

    Parameters
    ----------
    P_joint : numpy.ndarray, shape (V, V)
        The joint probabilities (:func:`cooccurrence`).
    P_unigram : numpy.ndarray, shape (V,)
        The unigram probabilities.
    dtype : numpy dtype, default float64
        The precision of ``M*`` (float32 halves the memory at ``V = 10,000``).

    Returns
    -------
    numpy.ndarray, shape (V, V)
        ``M*``; entries lie in ``[−2, 2]``, and a pair that never co-occurs gets exactly ``−2``.

    Raises
    ------
    ValueError
        If the statistics are not valid probabilities of matching shapes.
    TypeError
        If ``dtype`` is not a floating type.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.3, 0.1], [0.1, 0.5]])
    >>> np.round(mstar_from_stats(P, P.sum(axis=1)), 4)  # the same as theory.target_matrix(P, 1, 1)
    array([[ 0.6087, -0.8235],
           [-0.8235,  0.3256]])
    """
    return _rowwise(P_joint, P_unigram, lambda P, Q: 2.0 * (P - Q) / (P + Q), dtype)


def pmi_from_stats(P_joint: np.ndarray, P_unigram: np.ndarray, *, dtype=np.float64) -> np.ndarray:
    """``PMI_ij = log(P_ij / (P_i P_j) + 1e-25)`` (the authors' guard makes unseen pairs ≈ -57.6)."""
    return _rowwise(P_joint, P_unigram, lambda P, Q: np.log(P / Q + PMI_EPS), dtype)


def ppmi_from_stats(P_joint: np.ndarray, P_unigram: np.ndarray, *, dtype=np.float64) -> np.ndarray:
    """``PPMI = max(PMI, 0)``."""
    return _rowwise(
        P_joint, P_unigram, lambda P, Q: np.maximum(np.log(P / Q + PMI_EPS), 0.0), dtype
    )


def target_from_stats(
    P_joint: np.ndarray, P_unigram: np.ndarray, kind: TargetKind = "mstar", *, dtype=np.float64
) -> np.ndarray:
    """The matrix whose top eigenvectors give svd(kind) embeddings: ``mstar``, ``pmi`` or ``ppmi``."""
    fns = {"mstar": mstar_from_stats, "pmi": pmi_from_stats, "ppmi": ppmi_from_stats}
    dtype = _float_dtype(dtype)
    if kind not in fns:
        raise ValueError(f"target must be one of {sorted(fns)}, got {kind!r}")
    return fns[kind](P_joint, P_unigram, dtype=dtype)


def target_from_counts(
    counts: np.ndarray,
    P_unigram: np.ndarray,
    kind: TargetKind = "mstar",
    *,
    dtype=np.float64,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """The target matrix straight from the symmetric count table ``C`` of :func:`cooccurrence_table`.

    Equal to ``target_from_stats(C / C.sum(), P_unigram, kind)``. For ``"mstar"`` one compiled pass on all
    threads reads ``C`` and writes ``M*`` in ``dtype`` without forming the ``V x V`` float64 ``P_joint``,
    with NumPy's order of floating-point operations, so the result is bit-identical; PMI and PPMI go through
    ``P_joint``. ``C`` must be a square array of finite, non-negative counts with a positive sum, and
    ``P_unigram`` as in :func:`target_from_stats`.

    ``out`` (M* only): a C-contiguous ``V x V`` array of ``dtype`` to write into. It may be the count table
    itself reinterpreted, ``counts.view(np.float32)`` for int32 counts, which builds M* in the table's
    memory (each entry is read before it is overwritten): no second ``V x V`` array, and ``counts`` is
    destroyed.
    """
    C, pu = np.asarray(counts), np.asarray(P_unigram)
    dtype = _float_dtype(dtype, fast=kind == "mstar")
    if C.dtype.kind not in "fiu":
        raise TypeError(f"counts must be a real array, got dtype {C.dtype}")
    if pu.ndim != 1 or C.shape != (pu.shape[0], pu.shape[0]):
        raise ValueError(
            f"counts has shape {C.shape} but P_unigram has shape {pu.shape}; need V x V and V"
        )
    if C.dtype.kind == "f" and not np.isfinite(C).all():
        raise ValueError("counts has NaN or infinite entries")
    if C.size and C.min() < 0:
        raise ValueError("counts has negative entries")
    total = _count_total(C)
    if not total > 0:
        raise ValueError("counts sum to zero: no co-occurring pair")
    if kind != "mstar":
        return target_from_stats(np.divide(C, total, dtype=np.float64), pu, kind, dtype=dtype)
    _check_probabilities("P_unigram", pu)
    if out is None:
        out = np.zeros(
            C.shape, dtype=dtype
        )  # calloc: fresh zero pages (huge pages where NumPy can) fault fast
    elif (
        not isinstance(out, np.ndarray)
        or out.shape != C.shape
        or out.dtype != np.dtype(dtype)
        or not out.flags.c_contiguous
        or not out.flags.writeable
    ):
        raise ValueError(
            f"out must be a writeable C-contiguous {C.shape} array of {np.dtype(dtype)}"
        )
    elif np.shares_memory(out, C) and not (
        out.ctypes.data == C.ctypes.data and out.itemsize == C.itemsize and C.flags.c_contiguous
    ):
        raise ValueError(
            "out may share memory with counts only as the same table reinterpreted "
            "(counts.view(dtype), equal item sizes)"
        )
    _kernels()["mstar"](np.ascontiguousarray(C), total, pu.astype(np.float64), out)
    return out


def zipf_fit(counts: np.ndarray, lo: int = 10, hi: int = 10_000) -> tuple[float, float]:
    """Least-squares slope and intercept of log(count) against log(rank) over ranks ``lo..hi``.

    Zipf's law says the slope is close to -1.
    """
    counts = checks.positive_array("counts", counts, strict=False, ndim=1)
    lo = checks.integer("lo", lo, low=1)
    hi = min(checks.integer("hi", hi, low=2), counts.size)
    if not lo < hi:
        raise ValueError(
            f"lo must be below hi (ranks lo..hi, hi at most len(counts) = {counts.size}), got lo={lo}, "
            f"hi={hi}"
        )
    used = counts[lo - 1 : hi]
    if not (np.isfinite(used).all() and (used > 0).all()):
        raise ValueError(
            f"counts must be finite and positive over ranks {lo}..{hi} (log of a zero or negative "
            f"count is undefined); found {float(used[~(np.isfinite(used) & (used > 0))][0])!r}"
        )
    r = np.arange(lo, hi + 1, dtype=np.float64)
    y = np.log(counts[lo - 1 : hi])
    slope, intercept = np.polyfit(np.log(r), y, 1)
    return float(slope), float(intercept)
