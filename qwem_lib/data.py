"""The data layer: a registry of named, checksummed datasets, and fast cached corpus loading.

Where data lives
    ``QWEM_DATA_DIR`` (default: ``data/`` in the repository). Its layout mirrors the book's shared data
    folder (``corpus/…``, ``eval/…``), so CI simply sets ``QWEM_DATA_DIR=../shared/data``. Nothing is
    ever copied into the repository: files are read in place, or downloaded into the data directory
    (which git ignores) when they have a public address.

What is checked
    Every file is checked for size and sha256 before it is used. A missing file, a file of the wrong
    size (a truncated download) or the wrong checksum raises :class:`DataError`, whose message names
    the dataset, the path looked at, and how to get the file. Downloads go through :mod:`pooch`,
    which writes to a temporary name and moves the file into place only when it is complete.

Corpora
    :func:`load_corpus` turns a registered corpus into a :class:`Corpus`: an ``int32`` array of token
    ids in which id ``r`` is the word of frequency rank ``r`` (0 is the most frequent; ties broken
    alphabetically). Restricting to the top-``V`` words is then just ``ids < V``. The ids, the
    words and their counts are cached under ``config.cache_dir()`` keyed by the corpus checksums, so a
    second load is a memory-map, not a re-tokenisation.

Tokenising
    A token is a maximal run of bytes other than the ten that ``str.split()`` treats as whitespace in
    ASCII (9-13, 28-32). :func:`load_corpus` streams each file's decompressed bytes in chunks of
    :data:`CHUNK_BYTES` (decompression in a background thread) through the compiled tokeniser of
    :mod:`qwem_lib.tokenizer` (:func:`tokenize_files`); the text is never held whole, so memory is the
    ids plus the distinct words plus one chunk. The result equals, byte for byte, the reference
    :func:`tokenize_ranked` (``str.split`` and a ``Counter``) on the ASCII-decoded text
    (``errors="replace"``), non-ASCII bytes included; the tests check this.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import queue
import re
import shutil
import threading
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np

from . import config
from .cache import atomic_path


class DataError(RuntimeError):
    """A dataset is missing, incomplete, corrupt or unusable. The message says what to do."""


SHARED_HINT = (
    "If you have the book's shared data folder, point the book at it: "
    "export QWEM_DATA_DIR=/path/to/shared/data  (CI uses ../shared/data)."
)


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset, relative to the data directory."""

    path: str
    sha256: str | None
    size: int | None = None
    url: str | None = None
    """A public address from which :func:`fetch` may download the file."""
    gensim_file: str | None = None
    """Name of an identical copy shipped in gensim's test data (used before any download)."""
    drop_header_lines: int = 0
    """Lines to strip from the downloaded file before its checksum is checked."""
    content_sha256: str | None = None
    """For ``.xz`` files: sha256 of the decompressed bytes. A file rebuilt from the public source
    (:mod:`qwem_lib.sources`) has the same content but other compressed bytes; it is accepted by this."""


@dataclass(frozen=True)
class Dataset:
    name: str
    kind: str  # "corpus" or "eval"
    description: str
    files: tuple[FileSpec, ...]
    licence: str = ""
    how_to_get: str = ""
    """Extra instructions shown when the files are missing and cannot be downloaded."""
    tokens: int | None = None
    """Documented token count (corpora), checked in the first chapter."""
    extract: str | None = None
    """For zip downloads: the member to read."""
    content_sha256: str | None = None
    """sha256 of the decompressed bytes (checked as they stream through the tokeniser), for archives whose
    own checksum is not known."""


_ENWIKI = "Text from English Wikipedia (2015 dump), CC BY-SA 3.0"
_FROM_SOURCE = (
    "With downloads allowed (QWEM_OFFLINE unset) it is rebuilt automatically from its public "
    "source (400 files of github.com/jason-feng/wikiVisual at a pinned commit; see "
    "qwem_lib/sources.py), or by hand: python -m qwem_lib.sources {name}. QWEM_SOURCE_URL may "
    "point at a local copy of the source files (file:///…)."
)

SHIPPED_DIR = config.REPO_ROOT / "data" / "shipped"
"""Small datasets committed with the book (same layout as the data directory), so that the smoke preset
runs on a fresh clone with no data folder and no network: enwiki2015_1m7 (CC BY-SA 3.0) and MEN (CC BY 2.0)."""

REGISTRY: dict[str, Dataset] = {}


def register(ds: Dataset) -> Dataset:
    """Add (or replace) a dataset in the registry. Tests use it for tiny synthetic corpora."""
    REGISTRY[ds.name] = ds
    return ds


register(
    Dataset(
        "enwiki2015_1m7",
        "corpus",
        "English Wikipedia 2015, first 10 MB of the text8-style stream",
        (
            FileSpec(
                "corpus/enwiki2015_1m7.txt.xz",
                "8db1cf1f5fea7609917413854b07401a6d9b011e9b6a43683a4c258f20cf674a",
                2_522_120,
                content_sha256="4795d422b66cd80021df5f66cc310facac517ffdb2b6536fdaace80f19165b9f",
            ),
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_1m7"),
        tokens=1_690_808,
    )
)
register(
    Dataset(
        "enwiki2015_17m",
        "corpus",
        "English Wikipedia 2015, text8-style, 100 MB (the text8 analogue)",
        (
            FileSpec(
                "corpus/enwiki2015_17m.txt.xz",
                "552671497f0e5b512e25a654fcf7fe4ae76ac1735c18b1b8fc1bdbf0e040f7f3",
                24_505_904,
                content_sha256="a4349225df8ee8b825edec33208e3c880c30e6091e6bf7cbcc770708eb28e1f5",
            ),
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_17m"),
        tokens=16_941_169,
    )
)
register(
    Dataset(
        "enwiki2015_70m",
        "corpus",
        "English Wikipedia 2015, text8-style, all 30,539 articles (four parts)",
        tuple(
            FileSpec(f"corpus/enwiki2015_full/enwiki2015_70m_{p}.txt.xz", h, s, content_sha256=c)
            for p, h, s, c in [
                (
                    "AA",
                    "c7c4b4beb5272b11915897347b3b4e147774dc69f2c3aeb188ec2f91d5449320",
                    25_357_972,
                    "128f4696eedb38dfded10b25f6b1942b6e2b8592631a128b441229a1386e8a0f",
                ),
                (
                    "AB",
                    "67b666f7820ab78eae9094b1fc3a2e5caafab177712e39f6266a1934159a60f2",
                    25_315_388,
                    "a3146fc791d83280de2545f5cc0eb141ce5c9c2273d8d8251a5cb017e62bbb9e",
                ),
                (
                    "AC",
                    "ac9d349a497465acfd26938302094441af59985880f10b14fb9499ca162792bd",
                    25_225_040,
                    "52bd22bf029d35a19d733b2a4c8cfe238d6c6181d5a39079630ae0040360b38e",
                ),
                (
                    "AD",
                    "88ac1a59e13f370c3faf44518397fd542d906ce60126ee105039746186977113",
                    25_435_856,
                    "bc9134a41f7f96619357a6cef1507a588cb44576649e944718f19d886016281f",
                ),
            ]
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_70m"),
        tokens=70_166_442,
    )
)
register(
    Dataset(
        # The digest is that of the unzipped 100,000,000-byte file as published by others; the zip itself
        # (31,344,016 bytes) is checked by size. It could not be downloaded from the machine the book was
        # written on (no internet), so it is the one checksum here not verified by the authors of the book.
        "text8",
        "corpus",
        "Matt Mahoney's text8: the first 10^8 bytes of a 2006 English Wikipedia dump",
        (
            FileSpec(
                "corpus/text8.zip", None, 31_344_016, url="http://mattmahoney.net/dc/text8.zip"
            ),
        ),
        licence="Wikipedia text (CC BY-SA)",
        tokens=17_005_207,
        extract="text8",
        content_sha256="6e890197040d37d85beb962ae1f041ff1d9a9ca8d20c7d99c85027eebf51dca7",
    )
)
register(
    Dataset(
        "google_analogy",
        "eval",
        "Google analogy questions (Mikolov et al. 2013), 19,544 questions",
        (
            FileSpec(
                "eval/google_analogy/questions-words.txt",
                "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36",
                603_955,
                gensim_file="questions-words.txt",
            ),
        ),
        licence="Apache-2.0",
        how_to_get="`pip install gensim` ships an identical copy.",
    )
)
register(
    Dataset(
        "men",
        "eval",
        "MEN relatedness (Bruni, Tran and Baroni 2014), 3,000 pairs, scores 0-50",
        (
            FileSpec(
                "eval/MEN/MEN_dataset_natural_form_full",
                "4596e169dd237228ca7701dde33585ca93263506ce7fca9de0f951aaab1aae36",
                69_858,
                url="https://raw.githubusercontent.com/mrmechko/simcross/"
                "ffc5c7598185be00260d81fd71274db32e6bceda/MEN/MEN_dataset_natural_form_full",
                drop_header_lines=1,
            ),
        ),
        licence="CC BY 2.0",
    )
)
register(
    Dataset(
        # gensim's copy (two '#' header lines, then the same 353 pairs as EN-WS-353-ALL.txt): every machine
        # that installs the book has it, so WordSim353 needs no download and is never shipped (it states no
        # licence).
        "ws353",
        "eval",
        "WordSim353 (Finkelstein et al. 2002), 353 pairs, scores 0-10",
        (
            FileSpec(
                "eval/wordsim353/wordsim353.tsv",
                "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d",
                7_186,
                gensim_file="wordsim353.tsv",
            ),
        ),
        licence="cite Finkelstein et al. 2002",
        how_to_get="`pip install gensim` ships it.",
    )
)


BUILTIN: tuple[str, ...] = tuple(REGISTRY)
"""The datasets the book itself registers (tests may register more)."""


# -- locating and verifying files -------------------------------------------------------------
def data_dir() -> Path:
    """The data directory: ``QWEM_DATA_DIR`` or ``data/`` in the repository."""
    return Path(os.environ.get("QWEM_DATA_DIR", config.REPO_ROOT / "data")).expanduser()


def dataset(name: str) -> Dataset:
    try:
        return REGISTRY[name]
    except KeyError:
        raise DataError(
            f"unknown dataset {name!r}; registered: {', '.join(sorted(REGISTRY))}"
        ) from None


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


_VERIFIED: dict[tuple[str, int, int], bool] = {}


def verify(ds: Dataset, spec: FileSpec, path: Path) -> None:
    """Check size and checksum of one file; raise :class:`DataError` naming the problem."""
    size = path.stat().st_size
    if spec.size is not None and size != spec.size and spec.content_sha256 is None:
        raise DataError(
            f"dataset {ds.name!r}: {path} is {size:,} bytes but should be {spec.size:,} — "
            f"{'truncated or incomplete' if size < spec.size else 'not the expected file'}. "
            f"Delete it and get it again. {SHARED_HINT}"
        )
    if spec.sha256 is None:
        return
    key = (str(path), size, path.stat().st_mtime_ns)
    if _VERIFIED.get(key):
        return
    digest = sha256_of(path)
    if (
        digest != spec.sha256
        and spec.content_sha256 is not None
        and _content_sha256(path) == spec.content_sha256
    ):
        digest = spec.sha256  # rebuilt from the public source: same text, other compressed bytes
    if digest != spec.sha256:
        raise DataError(
            f"dataset {ds.name!r}: checksum mismatch for {path}\n  expected sha256 {spec.sha256}\n"
            f"  found    sha256 {digest}\nThe file is corrupt or a different version. Delete it and get it "
            f"again. {SHARED_HINT}"
        )
    _VERIFIED[key] = True


def _content_sha256(path: Path) -> str | None:
    """sha256 of an ``.xz`` file's decompressed bytes (None when it cannot be decompressed)."""
    h = hashlib.sha256()
    try:
        with lzma.open(path, "rb") as f:
            while block := f.read(1 << 22):
                h.update(block)
    except (lzma.LZMAError, EOFError, OSError):
        return None
    return h.hexdigest()


def _try_gensim_copy(spec: FileSpec, target: Path) -> bool:
    if not spec.gensim_file:
        return False
    try:
        from gensim.test.utils import datapath
    except ImportError:
        return False
    src = Path(datapath(spec.gensim_file))
    if not src.exists():
        return False
    with atomic_path(target) as tmp:
        shutil.copyfile(src, tmp)
    return True


def _download(spec: FileSpec, target: Path) -> None:
    import pooch

    target.parent.mkdir(parents=True, exist_ok=True)
    # pooch writes to a temporary file and renames it when complete: no partial file is left behind.
    # Our own checksum (after any header stripping) is checked by verify(), so pooch checks none here.
    fetched = Path(
        pooch.retrieve(
            spec.url,
            known_hash=None,
            fname=target.name + ".download",
            path=target.parent,
            progressbar=True,
        )
    )
    if spec.drop_header_lines:
        lines = fetched.read_bytes().split(b"\n")
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"\n".join(lines[spec.drop_header_lines :]))
        fetched.unlink()
    else:
        fetched.replace(target)


def _offline() -> bool:
    return os.environ.get("QWEM_OFFLINE", "").strip() not in ("", "0", "false")


def fetch(name: str, *, download: bool | None = None) -> list[Path]:
    """Paths of a dataset's files, verified; fetch missing ones when a public source exists.

    ``download`` defaults to True unless ``QWEM_OFFLINE`` is set (CI sets it, since CI has the shared
    folder and no internet).
    """
    ds = dataset(name)
    allow = (not _offline()) if download is None else download
    root = data_dir()
    paths: list[Path] = []
    for spec in ds.files:
        p = root / spec.path
        if not p.exists() and (SHIPPED_DIR / spec.path).exists():
            p = SHIPPED_DIR / spec.path  # committed with the book: read in place
        if not p.exists():
            got = _try_gensim_copy(spec, p)
            if not got and allow and ds.kind == "corpus":
                from .sources import BUILDS, build_corpus

                if name in BUILDS:
                    build_corpus(name, download=True)  # writes every part, or raises DataError
                    got = p.exists()
            if not got and spec.url and allow:
                try:
                    _download(spec, p)
                    got = True
                except Exception as exc:  # network errors come in many types
                    raise DataError(
                        f"dataset {name!r}: could not download {spec.url} to {p}: {exc}. "
                        f"{SHARED_HINT}"
                    ) from exc
            if not got:
                how = [
                    f"dataset {name!r} ({ds.description}) is missing: no file at {p}",
                    f"(data directory {root}, from QWEM_DATA_DIR={os.environ.get('QWEM_DATA_DIR', '<unset>')}).",
                    SHARED_HINT,
                ]
                if spec.url:
                    how.append(
                        f"It can also be downloaded from {spec.url}"
                        + (
                            " (downloads are off because QWEM_OFFLINE is set)."
                            if not allow
                            else "."
                        )
                    )
                elif ds.kind == "corpus" and not allow:
                    how.append("Downloads are off because QWEM_OFFLINE is set.")
                if ds.how_to_get:
                    how.append(ds.how_to_get)
                raise DataError("\n".join(how))
        verify(ds, spec, p)
        paths.append(p)
    return paths


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
                f: BinaryIO = stack.enter_context(lzma.open(path, "rb"))
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

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {w: i for i, w in enumerate(self.words)}

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


def _cache_key(ds: Dataset) -> str:
    digest = hashlib.sha256(
        "|".join(s.sha256 or f"size{s.size}" for s in ds.files).encode()
    ).hexdigest()
    return f"{ds.name}-{digest[:12]}-v1"


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
    """Stream the files of a corpus through the compiled tokeniser (:mod:`qwem_lib.tokenizer`):
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


def _read_corpus_cache(name: str, f_ids: Path, f_words: Path, f_counts: Path) -> Corpus | None:
    """The cached tokenisation, if its three files are whole and agree with each other; else None (the
    damaged files are removed with a warning naming them, and the corpus is tokenised again)."""
    from .cache import discard

    try:
        words = f_words.read_text().split("\n")
        ids = np.load(f_ids, mmap_mode="r")
        counts = np.load(f_counts)
        ok = (
            ids.ndim == 1
            and counts.ndim == 1
            and counts.size == len(words)
            and len(set(words)) == len(words)
            and int(counts.sum()) == ids.shape[0]
            and (ids.shape[0] == 0 or int(ids.max()) < len(words))
        )
        why = "its ids, words and counts disagree"
    except (ValueError, OSError, EOFError, UnicodeDecodeError) as exc:
        ok, why = False, f"{type(exc).__name__}: {exc}"
    if ok:
        return Corpus(name, ids, words, counts)
    for f in (f_ids, f_words, f_counts):
        discard(f, why)
    return None


def load_corpus(name: str, *, use_cache: bool = True) -> Corpus:
    """Load a registered corpus as frequency-ranked token ids (cached after the first call).

    A cold load streams the decompressed files through the compiled tokeniser (:func:`tokenize_files`);
    the ids, words and counts are those of :func:`tokenize_ranked`, so caches written by either agree.

    ``"<name>[:<n>]"`` loads the first ``n`` tokens of a registered corpus as a corpus of their own
    (:func:`head_corpus`): a smaller corpus for scaling experiments that needs no extra file.
    """
    m = _HEAD.fullmatch(name) if isinstance(name, str) else None
    if m:
        return head_corpus(load_corpus(m["name"], use_cache=use_cache), int(m["n"]))
    ds = dataset(name)
    if ds.kind != "corpus":
        raise DataError(f"dataset {name!r} is an evaluation set, not a corpus")
    paths = fetch(name)
    cdir = config.cache_dir() / "corpus" / _cache_key(ds)
    f_ids, f_words, f_counts = cdir / "ids.npy", cdir / "words.txt", cdir / "counts.npy"
    if use_cache and f_ids.exists() and f_words.exists() and f_counts.exists():
        cached = _read_corpus_cache(name, f_ids, f_words, f_counts)
        if cached is not None:
            return cached
    ids, words, freq = tokenize_files(ds, paths)
    if use_cache:
        for target, writer in (
            (f_ids, lambda f: np.save(f, ids)),
            (f_counts, lambda f: np.save(f, freq)),
            (f_words, lambda f: f.write("\n".join(words).encode())),
        ):
            with (
                atomic_path(target) as tmp,
                open(tmp, "wb") as fh,
            ):  # process-safe, never half-written
                writer(fh)
    return Corpus(name, ids, words, freq)


def read_lines(name: str) -> list[str]:
    """The text lines of a (single-file) evaluation dataset, verified."""
    (path,) = fetch(name)
    return path.read_text(encoding="utf-8", errors="replace").splitlines()
