"""Tokenise and cache: a registered corpus as token ids of frequency rank, cached by its checksums.

:func:`load_corpus` streams each verified file's decompressed bytes through the compiled tokeniser
(:mod:`qwem_lib.data.tokenizer`) and caches ids, words and counts (:mod:`qwem_lib.book.cache`), so a
second load is a memory-map. :func:`tokenize_ranked` is the plain-Python reference the tests compare with.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import queue
import re
import threading
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, BinaryIO

import numpy as np

from ..book import config
from ..book.cache import atomic_path
from .files import fetch
from .registry import SHARED_HINT, DataError, Dataset, dataset

__all__ = [
    "CHUNK_BYTES",
    "Corpus",
    "tokenize_ranked",
    "tokenize_files",
    "head_corpus",
    "load_corpus",
    "corpus_cache_key",
    "corpus_key",
]


# -- corpora ----------------------------------------------------------------------------------
CHUNK_BYTES = 32 << 20
"""Decompressed bytes read and tokenised at a time by :func:`load_corpus` (memory holds one chunk)."""

_DECOMPRESS_ERRORS = (lzma.LZMAError, zipfile.BadZipFile, zlib.error, EOFError, KeyError)


def _corrupt(ds: Dataset, path: Path, exc: BaseException) -> DataError:
    return DataError(
        f"dataset {ds.name!r}: {path} could not be decompressed ({exc}); the file is "
        f"corrupt or truncated. Delete it and get it again. {SHARED_HINT}"
    )


def _iter_chunks(ds: Dataset, path: Path, chunk: int | None = None) -> Iterator[bytes]:
    """The decompressed bytes of one corpus file (``.xz``, the ``.zip`` member ``ds.extract``, or a plain
    file), ``chunk`` bytes at a time (default :data:`CHUNK_BYTES`). A corrupt or truncated archive raises
    :class:`DataError`, also when the damage is only found mid-stream."""
    size = CHUNK_BYTES if chunk is None else int(chunk)
    if size < 1:
        raise ValueError(f"chunk must be a positive number of bytes, got {chunk!r}")
    try:
        with ExitStack() as stack:
            if path.suffix == ".xz":
                f: BinaryIO | lzma.LZMAFile | IO[bytes] = stack.enter_context(lzma.open(path, "rb"))
            elif path.suffix == ".zip":
                z = stack.enter_context(zipfile.ZipFile(path))
                f = stack.enter_context(z.open(ds.extract or z.namelist()[0]))
            else:
                f = stack.enter_context(open(path, "rb"))
            while block := f.read(size):
                yield block
    except _DECOMPRESS_ERRORS as exc:
        raise _corrupt(ds, path, exc) from exc


def _prefetched(chunks: Iterator[bytes], depth: int = 2) -> Iterator[bytes]:
    """``chunks``, produced by a background thread up to ``depth`` ahead: decompression (lzma and zlib
    release the GIL) then overlaps the compiled tokeniser (which releases it too). Exceptions raised by
    ``chunks`` are re-raised here, in order; leaving early stops the thread and closes ``chunks``."""
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def produce() -> None:
        try:
            for item in chunks:
                q.put(("ok", item))
                if stop.is_set():
                    return
            q.put(("ok", end))
        except BaseException as exc:  # handed to the consumer, which re-raises it
            q.put(("err", exc))
        finally:
            if hasattr(chunks, "close"):
                chunks.close()

    worker = threading.Thread(target=produce, name="qwem-decompress", daemon=True)
    worker.start()
    try:
        while True:
            kind, item = q.get()
            if kind == "err":
                raise item
            if item is end:
                return
            yield item
    finally:
        stop.set()
        while worker.is_alive():  # unblock a producer waiting on a full queue, then let it finish
            try:
                q.get(timeout=0.05)
            except queue.Empty:
                pass
        worker.join()


def _read_text(ds: Dataset, path: Path) -> str:
    """The whole text of one corpus file, decoded as ASCII (``errors="replace"``). Used by the reference
    path (:func:`tokenize_ranked`) and the benchmark; :func:`load_corpus` streams bytes instead."""
    try:
        if path.suffix == ".xz":
            with lzma.open(path, "rt", encoding="ascii", errors="replace") as f:
                return f.read()
        if path.suffix == ".zip":
            with zipfile.ZipFile(path) as z:
                member = ds.extract or z.namelist()[0]
                return z.read(member).decode("ascii", errors="replace")
        return path.read_text(encoding="ascii", errors="replace")
    except _DECOMPRESS_ERRORS as exc:
        raise _corrupt(ds, path, exc) from exc


@dataclass
class Corpus:
    """A tokenised corpus. ``ids[t]`` is the frequency rank of token ``t`` (0 = most frequent)."""

    name: str
    ids: np.ndarray
    words: list[str]
    counts: np.ndarray
    index: dict[str, int] = field(default_factory=dict, repr=False)
    _verified_ids: int | None = field(default=None, repr=False, compare=False)
    """``id(ids)`` when :func:`load_corpus` made this object from the registered, checksummed files."""
    _digest: tuple[int, str] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}

    def fingerprint(self) -> str:
        """Eight hex digits that name this corpus's token ids in cache keys.

        For a corpus loaded by :func:`load_corpus` (its files verified by their checksums) the digest of
        its first 4,096 ids, as the cache keys always had. For any other ``Corpus`` — one built by hand,
        possibly reusing a registered name, or a head of one — the digest of *all* its ids (computed
        once per object), so that two corpora differing anywhere never share a cache entry.
        """
        ids = self.ids
        if self._verified_ids == id(ids):
            return hashlib.sha256(np.ascontiguousarray(ids[:4096]).tobytes()).hexdigest()[:8]
        if self._digest is None or self._digest[0] != id(ids):
            h = hashlib.sha256(f"{np.asarray(ids).dtype.str}|".encode())
            step = 1 << 24
            for s in range(0, ids.shape[0], step):
                h.update(np.ascontiguousarray(ids[s : s + step]).tobytes())
            self._digest = (id(ids), "a" + h.hexdigest()[:7])
        return self._digest[1]

    @property
    def n_tokens(self) -> int:
        return int(self.ids.shape[0])

    @property
    def n_types(self) -> int:
        return len(self.words)

    def vocab(self, V: int) -> list[str]:
        """The top-``V`` words, most frequent first."""
        if not 1 <= V <= self.n_types:
            raise ValueError(
                f"V={V} but corpus {self.name!r} has only {self.n_types:,} distinct words"
            )
        return self.words[:V]

    def unigram(self, V: int) -> np.ndarray:
        """Unigram frequencies of the top-``V`` words, renormalised to sum to one."""
        c = self.counts[: len(self.vocab(V))].astype(np.float64)
        return c / c.sum()


def corpus_key(ds: Dataset) -> str:
    """A registered dataset's identity in cache names: its name and a digest of its files' checksums (or
    sizes), so that new files get new names. Without the corpus cache's format version
    (:func:`corpus_cache_key`): results computed from a corpus name it by this key.

    >>> from qwem_lib.data import dataset
    >>> corpus_key(dataset("enwiki2015_1m7"))
    'enwiki2015_1m7-eca4f096c0fd'
    """
    digest = hashlib.sha256(
        "|".join(s.sha256 or f"size{s.size}" for s in ds.files).encode()
    ).hexdigest()
    return f"{ds.name}-{digest[:12]}"


def corpus_cache_key(ds: Dataset) -> str:
    """The name of a registered dataset's corpus cache folder: :func:`corpus_key` and the cache format's
    version."""
    return f"{corpus_key(ds)}-v1"


def tokenize_ranked(texts: list[str]) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Map every whitespace-separated token of ``texts`` (in order) to its frequency rank.

    The reference implementation: :func:`load_corpus` uses the compiled streaming tokeniser
    (:func:`tokenize_files`), which the tests check against this one. Two passes, both in C:
    ``Counter.update`` counts, then ``map`` over a dict lookup collected by ``np.fromiter`` assigns ids;
    there is no Python-level loop over tokens. A single text is split once and its token list reused;
    several texts (the 70M corpus) are split again in the second pass to keep memory near one part's
    token list.
    """
    counts: Counter[str] = Counter()
    n = 0
    kept: list[str] | None = None
    for text in texts:
        toks = text.split()
        counts.update(toks)
        n += len(toks)
        kept = toks if len(texts) == 1 else None
    if n == 0:
        raise DataError("the corpus contains no tokens (empty or whitespace-only text)")
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    words = [w for w, _ in ranked]
    freq = np.fromiter((c for _, c in ranked), dtype=np.int64, count=len(ranked))
    rank = {w: i for i, w in enumerate(words)}
    ids = np.empty(n, dtype=np.int32)
    pos = 0
    for text in texts:
        toks = kept if kept is not None else text.split()
        ids[pos : pos + len(toks)] = np.fromiter(
            map(rank.__getitem__, toks), dtype=np.int32, count=len(toks)
        )
        pos += len(toks)
    return ids, words, freq


def tokenize_files(
    ds: Dataset,
    paths: list[Path],
    *,
    chunk: int | None = None,
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Stream the files of a corpus through the compiled tokeniser (:mod:`qwem_lib.data.tokenizer`):
    frequency-ranked ids, words and counts, equal to :func:`tokenize_ranked` on the ASCII-decoded texts.

    The decompressed bytes are read ``chunk`` bytes at a time (default :data:`CHUNK_BYTES`) and never
    decoded as a whole, so memory holds the ids, the distinct words and one chunk. Each file is one part
    (no token spans two files). The dataset's ``content_sha256``, when set, is checked on the decompressed
    bytes as they stream by. Raises :class:`DataError` for a corrupt or truncated archive, a content
    checksum mismatch, or a corpus without tokens.
    """
    from .tokenizer import StreamTokenizer

    if not isinstance(ds, Dataset):
        raise TypeError(f"ds must be a Dataset, got {type(ds).__name__}")
    paths = [Path(p) for p in paths]
    tok = StreamTokenizer()
    h = hashlib.sha256() if ds.content_sha256 is not None else None
    for p in paths:
        for block in _prefetched(_iter_chunks(ds, p, chunk)):
            if h is not None:
                h.update(block)  # hashlib releases the GIL on large blocks
            tok.feed(block)
        tok.end_part()
    if h is not None and h.hexdigest() != ds.content_sha256:
        raise DataError(
            f"dataset {ds.name!r}: the decompressed text has sha256 {h.hexdigest()}, expected "
            f"{ds.content_sha256}; the archive is a different version or corrupt. Delete "
            f"{', '.join(map(str, paths))} and get it again."
        )
    if tok.n_tokens == 0:
        raise DataError("the corpus contains no tokens (empty or whitespace-only text)")
    return tok.finish()


def head_corpus(corpus: Corpus, n_tokens: int) -> Corpus:
    """The first ``n_tokens`` tokens of a corpus as a corpus of their own, re-ranked by their own counts
    (ties alphabetically), so that its ids are frequency ranks again. Named ``"<name>[:<n>]"``."""
    if not isinstance(n_tokens, (int, np.integer)) or not 2 <= n_tokens <= corpus.n_tokens:
        raise ValueError(
            f"n_tokens must be an integer in [2, {corpus.n_tokens:,}], got {n_tokens!r}"
        )
    sub = np.asarray(corpus.ids[:n_tokens])
    cnt = np.bincount(sub, minlength=corpus.n_types)
    present = np.flatnonzero(cnt)
    order = sorted(
        range(present.size), key=lambda k: (-int(cnt[present[k]]), corpus.words[present[k]])
    )
    ranked = present[order]
    new_rank = np.full(corpus.n_types, -1, dtype=np.int32)
    new_rank[ranked] = np.arange(ranked.size, dtype=np.int32)
    return Corpus(
        f"{corpus.name}[:{int(n_tokens)}]",
        new_rank[sub],
        [corpus.words[i] for i in ranked],
        cnt[ranked].astype(np.int64),
    )


_HEAD = re.compile(r"(?P<name>[^\[\]]+)\[:(?P<n>\d+)\]")


def _read_corpus_cache(
    name: str, f_ids: Path, f_words: Path, f_counts: Path, f_meta: Path
) -> Corpus | None:
    """The cached tokenisation, if its three files are whole and agree with each other; else None (the
    damaged files are removed with a warning naming them, and the corpus is tokenised again)."""
    from ..book.cache import discard

    try:
        raw = f_words.read_bytes()
        meta = json.loads(f_meta.read_text(encoding="utf-8")) if f_meta.exists() else {}
        words = raw.decode("utf-8").split("\n")  # written as UTF-8, whatever the locale
        ids = np.load(f_ids, mmap_mode="r")
        counts = np.load(f_counts)
        digest = hashlib.sha256(raw).hexdigest()
        legacy = not meta  # written before meta.json existed (always atomically): upgraded below
        ok = (
            (legacy or meta.get("words_sha256") == digest)  # a cut words.txt ("zebra" -> "ze")
            and (legacy or meta.get("n_tokens") == ids.shape[0])
            and ids.ndim == 1
            and counts.ndim == 1
            and counts.size == len(words)
            and len(set(words)) == len(words)
            and int(counts.sum()) == ids.shape[0]
            and (ids.shape[0] == 0 or int(ids.max()) < len(words))
        )
        why = "its ids, words, counts and checksums disagree"
    except (ValueError, OSError, EOFError, UnicodeDecodeError) as exc:
        ok, why = False, f"{type(exc).__name__}: {exc}"
    if ok:
        if legacy:
            _write_meta(f_meta, digest, int(ids.shape[0]))
        return Corpus(name, ids, words, counts)
    for f in (f_ids, f_words, f_counts, f_meta):
        if f.exists():
            discard(f, why)
    return None


def _write_meta(f_meta: Path, words_sha256: str, n_tokens: int) -> None:
    blob = json.dumps({"words_sha256": words_sha256, "n_tokens": n_tokens}).encode()
    with atomic_path(f_meta) as tmp:
        tmp.write_bytes(blob)


def load_corpus(name: str, *, use_cache: bool = True) -> Corpus:
    """Load a registered corpus as frequency-ranked token ids (cached after the first call).

    A cold load streams the decompressed files through the compiled tokeniser (:func:`tokenize_files`);
    the ids, words and counts are those of :func:`tokenize_ranked`, so caches written by either agree.

    Parameters
    ----------
    name : str
        A registered corpus (``qwem_lib.data.REGISTRY``), or ``"<name>[:<n>]"`` (literally with the
        brackets) for the first ``n`` tokens of one as a corpus of their own (:func:`head_corpus`): a smaller
        corpus for scaling experiments that needs no extra file.
    use_cache : bool, default True
        Read and fill the corpus cache (keyed by the files' checksums).

    Returns
    -------
    Corpus
        ``ids[t]`` is the frequency rank of token ``t`` (0 the most frequent, ties alphabetical); ``words``
        and ``counts`` in that order.

    Raises
    ------
    DataError
        For an unknown name, an evaluation set, or a missing or corrupt file (the message says which file,
        where it was looked for and how to get it).

    Examples
    --------
    >>> c = load_corpus("enwiki2015_1m7")  # ships with the book
    >>> c.n_tokens, c.words[:3]
    (1690808, ['the', 'of', 'and'])
    >>> load_corpus("enwiki2015_1m7[:1000]").n_tokens
    1000
    """
    m = _HEAD.fullmatch(name) if isinstance(name, str) else None
    if m:
        return head_corpus(load_corpus(m["name"], use_cache=use_cache), int(m["n"]))
    ds = dataset(name)
    if ds.kind != "corpus":
        raise DataError(f"dataset {name!r} is an evaluation set, not a corpus")
    paths = fetch(name)
    cdir = config.cache_dir() / "corpus" / corpus_cache_key(ds)
    f_ids, f_words, f_counts = cdir / "ids.npy", cdir / "words.txt", cdir / "counts.npy"
    f_meta = cdir / "meta.json"  # written last: the digest of words.txt and the token count
    if use_cache and f_ids.exists() and f_words.exists() and f_counts.exists():
        cached = _read_corpus_cache(name, f_ids, f_words, f_counts, f_meta)
        if cached is not None:
            cached._verified_ids = id(cached.ids)
            return cached
    ids, words, freq = tokenize_files(ds, paths)
    if use_cache:
        blob = "\n".join(words).encode("utf-8")
        for target, writer in (
            (f_ids, lambda f: np.save(f, ids)),
            (f_counts, lambda f: np.save(f, freq)),
            (f_words, lambda f: f.write(blob)),
        ):
            with (
                atomic_path(target) as tmp,
                open(tmp, "wb") as fh,
            ):  # process-safe, never half-written
                writer(fh)
        _write_meta(f_meta, hashlib.sha256(blob).hexdigest(), int(ids.shape[0]))
    out = Corpus(name, ids, words, freq)
    out._verified_ids = id(out.ids)
    return out
