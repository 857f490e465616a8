"""The enwiki2015 corpora rebuilt from their public source, byte for byte.

Every ``enwiki2015_*`` corpus of the book is a deterministic function of 400 public files: the
WikiExtractor output committed to the GitHub repository ``jason-feng/wikiVisual`` at commit
``1c0fac92…``, folder ``text/`` (``text/AA/wiki_00`` … ``text/AD/wiki_99``). Their sizes and sha256 are
listed in ``qwem_lib/resources/wikivisual_1c0fac92_sources.tsv`` (a copy of the shared data folder's
``SOURCES.tsv``). This module fetches the files a corpus needs, checks each one, normalises the text with
the text8 recipe (:func:`normalise`) and writes the corpus where the registry looks for it, after checking
the sha256 of the result. Nothing is written unless every check passes.

Where the source files come from
    1. ``<data dir>/sources/wikiVisual-1c0fac92/<path>`` if present (the shared data folder has the first
       ten there), else
    2. ``QWEM_SOURCE_URL`` + ``<path>``: an ``http(s)://`` address (default: GitHub's raw-file address of
       the pinned commit) or a local folder given as ``file:///…``. Downloads go through pooch (atomic:
       a half-downloaded file never looks complete) and land in the folder of step 1.

Which files each corpus needs: ``enwiki2015_1m7`` the first 10 (about 10 MB), ``enwiki2015_17m`` the 100
of ``text/AA/`` (about 100 MB), ``enwiki2015_70m`` all 400 (about 420 MB).

Run ``python -m qwem_lib.data.sources enwiki2015_17m`` to build one by hand.
"""

from __future__ import annotations

import hashlib
import html
import lzma
import os
import re
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from ..book import config
from ..book.cache import atomic_path
from .registry import DataError, data_dir

__all__ = [
    "SOURCE_REPO",
    "SOURCE_COMMIT",
    "DEFAULT_SOURCE_URL",
    "SourceFile",
    "source_files",
    "source_url",
    "normalise",
    "articles",
    "stream_from",
    "cut_at_token",
    "build_corpus",
    "BUILDS",
    "fetch_source",
]

SOURCE_REPO = "jason-feng/wikiVisual"
SOURCE_COMMIT = "1c0fac92f29f17c1603bfffbe864e0dfdff66897"
DEFAULT_SOURCE_URL = f"https://raw.githubusercontent.com/{SOURCE_REPO}/{SOURCE_COMMIT}/"
LOCAL_FOLDER = "sources/wikiVisual-1c0fac92"
"""Where source files live inside the data directory (the shared folder's own layout)."""

_TABLE = Path(__file__).resolve().parent / "resources" / "wikivisual_1c0fac92_sources.tsv"


@dataclass(frozen=True)
class SourceFile:
    """One public source file: its path in the repository, size in bytes and sha256."""

    path: str
    size: int
    sha256: str


def source_files() -> list[SourceFile]:
    """All 400 source files in corpus order (AA, AB, AC, AD; 00 … 99)."""
    rows = _TABLE.read_text().splitlines()
    if not rows or rows[0].split("\t")[:4] != ["path", "bytes", "git_blob_sha1", "sha256"]:
        raise DataError(
            f"{_TABLE} is not the source table this module expects; reinstall the package"
        )
    out = []
    for line in rows[1:]:
        path, size, _sha1, sha = line.split("\t")
        out.append(SourceFile(path, int(size), sha))
    return out


def source_url() -> str:
    """The base address of the source files: ``QWEM_SOURCE_URL`` or GitHub's raw address of the commit."""
    url = os.environ.get("QWEM_SOURCE_URL", "").strip() or DEFAULT_SOURCE_URL
    if urlparse(url).scheme not in ("http", "https", "file"):
        raise DataError(f"QWEM_SOURCE_URL={url!r} must start with http://, https:// or file:///")
    return url if url.endswith("/") else url + "/"


# -- the text8 recipe --------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"\b(?:formula|codice)_\d+\b")
_TAG = re.compile(r"<[^<>\n]{0,200}>")
_NOT_AZ = re.compile(r"[^a-z]+")
_DIGITS = str.maketrans(
    {
        str(i): f" {w} "
        for i, w in enumerate(
            ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
        )
    }
)


def normalise(body: str) -> str:
    """The text8 recipe, in this order: placeholders and tags to spaces, HTML entities unescaped,
    lowercased, each digit spelled out, every run of characters outside ``a``–``z`` to one space, stripped.

    >>> normalise("In 1998 &amp; <b>formula_3</b> Café")
    'in one nine nine eight caf'
    """
    s = _PLACEHOLDER.sub(" ", body)
    s = _TAG.sub(" ", s)
    s = html.unescape(s)
    s = s.lower()
    s = s.translate(_DIGITS)
    return _NOT_AZ.sub(" ", s).strip()


def articles(text: str) -> Iterator[str]:
    """The normalised, non-empty article bodies of one WikiExtractor file, in order.

    A line starting with ``<doc `` opens an article; the next line (the title) is dropped; the lines up to
    one starting with ``</doc>`` are the body, joined (each with its newline) by single spaces.
    """
    lines = text.splitlines(keepends=True)
    i, n = 0, len(lines)
    while i < n:
        if not lines[i].startswith("<doc "):
            i += 1
            continue
        j = i + 2  # skip the <doc> line and the title
        body: list[str] = []
        while j < n and not lines[j].startswith("</doc>"):
            body.append(lines[j])
            j += 1
        norm = normalise(" ".join(body))
        if norm:
            yield norm
        i = j + 1


def stream_from(texts: Iterable[str]) -> Iterator[str]:
    """The pieces of the single-line stream: each article preceded by one space."""
    for text in texts:
        for a in articles(text):
            yield " " + a


def cut_at_token(stream: str, limit: int) -> str:
    """The stream cut after the last whole token that ends within the first ``limit`` bytes."""
    if len(stream) <= limit:
        return stream.rstrip(" ")
    head = stream[:limit]
    if stream[limit] != " ":  # the cut falls inside a token: drop its partial head
        head = head[: head.rfind(" ")]
    return head.rstrip(" ")


# -- fetching source files -----------------------------------------------------------------------
def _check_file(path: Path, src: SourceFile) -> None:
    size = path.stat().st_size
    if size != src.size:
        raise DataError(
            f"source file {src.path}: {path} is {size:,} bytes, expected {src.size:,} "
            f"({'truncated download' if size < src.size else 'not the pinned file'}). "
            f"It was removed; try again."
        )
    h = hashlib.sha256(path.read_bytes()).hexdigest()
    if h != src.sha256:
        raise DataError(
            f"source file {src.path}: checksum mismatch for {path}\n  expected sha256 "
            f"{src.sha256}\n  found    sha256 {h}\nIt is not the file of commit "
            f"{SOURCE_COMMIT[:8]}; it was removed. Check QWEM_SOURCE_URL ({source_url()})."
        )


def fetch_source(src: SourceFile, *, download: bool = True) -> Path:
    """A verified local copy of one source file (fetched if needed); see the module docstring."""
    local = data_dir() / LOCAL_FOLDER / src.path
    if local.exists():
        try:
            _check_file(local, src)
            return local
        except DataError:
            local.unlink(missing_ok=True)  # as the message says: a bad copy never blocks a rebuild
            if not download:
                raise
    if not download:
        raise DataError(
            f"source file {src.path} is missing (looked at {local}) and downloads are off "
            f"(QWEM_OFFLINE is set). Unset QWEM_OFFLINE to download it from {source_url()}, or set "
            f"QWEM_SOURCE_URL=file:///path/to/a/folder/holding/text/ ."
        )
    url = source_url() + src.path
    with atomic_path(local) as tmp:  # a failed or wrong download never appears under the final name
        if url.startswith("file:"):
            origin = Path(unquote(urlparse(url).path))
            if not origin.exists():
                raise DataError(
                    f"source file {src.path}: no file at {origin} (from QWEM_SOURCE_URL="
                    f"{source_url()})"
                )
            shutil.copyfile(origin, tmp)
        else:
            import pooch

            try:
                got = pooch.retrieve(
                    url, known_hash=None, fname=tmp.name + ".dl", path=tmp.parent, progressbar=False
                )
            except Exception as exc:  # network errors come in many types
                raise DataError(
                    f"source file {src.path}: could not download {url}: {exc}. Check the "
                    f"network or QWEM_SOURCE_URL."
                ) from exc
            Path(got).replace(tmp)
        _check_file(tmp, src)
    return local


# -- building corpora ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Build:
    """How one registered corpus is made from the source files."""

    folders: tuple[str, ...]
    """The source folders it reads (``AA`` …); ``n_files`` limits how many files in total."""
    n_files: int | None
    limit: int | None
    """Single-line corpora: cut after the last whole token within this many bytes."""
    per_folder: bool = False
    """The 70M corpus: one output part per folder, one article per line."""


BUILDS: dict[str, Build] = {
    "enwiki2015_1m7": Build(("AA",), 10, 10**7),
    "enwiki2015_17m": Build(("AA",), None, 10**8),
    "enwiki2015_70m": Build(("AA", "AB", "AC", "AD"), None, None, per_folder=True),
}


def _needed(build: Build) -> list[SourceFile]:
    files = [f for f in source_files() if f.path.split("/")[1] in build.folders]
    return files[: build.n_files] if build.n_files else files


def _texts(files: list[SourceFile], download: bool) -> Iterator[str]:
    from tqdm.auto import tqdm

    for f in tqdm(files, desc="source files (fetch, check, normalise)", unit="file", mininterval=2):
        yield fetch_source(f, download=download).read_text(encoding="utf-8")


def _write_xz(text: str, expected_sha: str, target: Path, what: str) -> None:
    data = text.encode("ascii")
    got = hashlib.sha256(data).hexdigest()
    if got != expected_sha:
        raise DataError(
            f"{what}: the rebuilt text has sha256 {got}, expected {expected_sha}; the sources or "
            f"the normaliser differ from the recipe. Nothing was written."
        )
    with atomic_path(target, ".xz") as tmp:
        tmp.write_bytes(lzma.compress(data, preset=6))


def build_corpus(name: str, *, download: bool | None = None) -> list[Path]:
    """Rebuild a registered enwiki2015 corpus from its public source into the data directory.

    Each output's *uncompressed* sha256 is checked against the registry before it is written (its ``.xz``
    bytes depend on the compressor, so the registry accepts a rebuilt file by its content). Returns the
    paths written. ``download`` defaults to True unless ``QWEM_OFFLINE`` is set.
    """
    from .registry import dataset, offline

    if name not in BUILDS:
        raise DataError(
            f"dataset {name!r} has no public-source recipe; those that do: {sorted(BUILDS)}"
        )
    ds, build = dataset(name), BUILDS[name]
    allow = (not offline()) if download is None else download
    root = data_dir()
    files = _needed(build)
    if build.per_folder:
        written = []
        for folder, spec in zip(build.folders, ds.files):
            texts = _texts([f for f in files if f.path.split("/")[1] == folder], allow)
            text = "".join(a + "\n" for t in texts for a in articles(t))
            _write_xz(text, spec.content_sha256 or "", root / spec.path, f"{name} part {folder}")
            written.append(root / spec.path)
        return written
    (spec,) = ds.files
    pieces: list[str] = []
    n = 0
    for piece in stream_from(_texts(files, allow)):
        pieces.append(piece)
        n += len(piece)
        if build.limit is not None and n > build.limit:
            break  # enough text for the cut; later files are not needed
    text = "".join(pieces)
    if build.limit is not None:
        text = cut_at_token(text, build.limit)
    _write_xz(text, spec.content_sha256 or "", root / spec.path, name)
    return [root / spec.path]


if __name__ == "__main__":  # pragma: no cover - a reader's command line
    import sys

    for arg in sys.argv[1:] or ["enwiki2015_1m7"]:
        for p in build_corpus(arg, download=True):
            print(f"wrote {p}")
    _ = config  # the data directory follows QWEM_DATA_DIR
