"""Acquire and verify: the paths of a dataset's files, checked by size and sha256, fetched when missing.

:func:`fetch` reads a file in place (the data directory, or ``data/shipped/`` for what ships with the
book), or copies gensim's bundled copy, or rebuilds a corpus from its public source
(:mod:`qwem_lib.data.sources`), or downloads it; then :func:`verify` checks it. :func:`read_lines` reads
a verified evaluation file.
"""

from __future__ import annotations

import hashlib
import lzma
import os
import shutil
import warnings
from pathlib import Path

from ..book import config
from ..book.cache import atomic_path
from .registry import (
    SHARED_HINT,
    SHIPPED_DIR,
    DataError,
    Dataset,
    FileSpec,
    data_dir,
    dataset,
    offline,
)

__all__ = ["sha256_of", "verify", "fetch", "read_lines"]


def sha256_of(path: Path, chunk: int = 1 << 22) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


_VERIFIED: dict[tuple[str, int, int, int, int], bool] = {}
"""Files whose checksum matched in this process, by (path, size, mtime, ctime, inode): a file replaced or
rewritten in place (even with its old size and mtime restored, as ``cp -p`` does) changes its ctime or
inode and is hashed again."""


def verify(ds: Dataset, spec: FileSpec, path: Path) -> None:
    """Check size and checksum of one file; raise :class:`DataError` naming the problem."""
    size = path.stat().st_size
    if spec.size is not None and size != spec.size and spec.content_sha256 is None:
        raise DataError(
            f"dataset {ds.name!r}: {path} is {size:,} bytes but should be {spec.size:,} — "
            f"{'truncated or incomplete' if size < spec.size else 'not the expected file'}. "
            f"Delete it and get it again. {SHARED_HINT}"
        )
    st = path.stat()
    key = (str(path), size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    if spec.sha256 is None:
        if ds.content_sha256 is not None and path.suffix == ".zip" and not _VERIFIED.get(key):
            # an archive known by its content only (text8): check the member now, not only when
            # load_corpus streams it (the benchmark's reader would otherwise trust the size)
            found = _zip_member_sha256(path, ds.extract)
            if found != ds.content_sha256:
                raise DataError(
                    f"dataset {ds.name!r}: {path} holds other text than expected (sha256 of its "
                    f"member {ds.extract or 'the first'}: {found}, expected {ds.content_sha256}). "
                    f"The file is corrupt or a different version. Delete it and get it again."
                )
            _VERIFIED[key] = True
        return
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


def _zip_member_sha256(path: Path, member: str | None) -> str | None:
    """sha256 of one member of a zip archive (None when it cannot be read)."""
    import zipfile
    import zlib

    h = hashlib.sha256()
    try:
        with zipfile.ZipFile(path) as z, z.open(member or z.namelist()[0]) as f:
            while block := f.read(1 << 22):
                h.update(block)
    except (zipfile.BadZipFile, zlib.error, KeyError, IndexError, EOFError, OSError):
        return None
    return h.hexdigest()


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


def _try_gensim_copy(spec: FileSpec, target: Path) -> Path | None:
    """Copy gensim's bundled copy of ``spec`` to ``target`` (in the cache); the path to read, or None.
    When the copy cannot be written (a read-only cache), gensim's own file is read in place."""
    if not spec.gensim_file:
        return None
    try:
        from gensim.test.utils import datapath
    except ImportError:
        return None
    src = Path(datapath(spec.gensim_file))
    if not src.exists():
        return None
    with atomic_path(target) as tmp:
        shutil.copyfile(src, tmp)
    return target if target.exists() else src


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


def _warn_missing_root(root: Path, used: Path) -> None:
    """Say that the data folder does not exist and which file is read instead (issue 41)."""
    warnings.warn(
        f"the data folder {root} (QWEM_DATA_DIR={os.environ.get('QWEM_DATA_DIR', '<unset>')!r}) does "
        f"not exist; using {used} instead. Point QWEM_DATA_DIR at the data folder (e.g. ../shared/data).",
        RuntimeWarning,
        stacklevel=3,
    )


def fetch(name: str, *, download: bool | None = None) -> list[Path]:
    """Paths of a dataset's files, verified; fetch missing ones when a public source exists.

    ``download`` defaults to True unless ``QWEM_OFFLINE`` is set (CI sets it, since CI has the shared
    folder and no internet).

    When ``QWEM_DATA_LOG`` names a file, the dataset's name is appended to it (one line per call): the book's
    build reads it to record which data each chapter needs (``tools/build_book.py``).
    """
    ds = dataset(name)
    log = os.environ.get("QWEM_DATA_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(ds.name + "\n")
    allow = (not offline()) if download is None else download
    root = data_dir()
    paths: list[Path] = []
    for spec in ds.files:
        p = root / spec.path
        if not p.exists() and (SHIPPED_DIR / spec.path).exists():
            p = SHIPPED_DIR / spec.path  # committed with the book: read in place
        # a copy of gensim's bundled file is derived: it goes to the cache, never into the data
        # folder (which may be read-only, or shared)
        derived = config.cache_dir() / "data" / spec.path
        if not p.exists() and spec.gensim_file and derived.exists():
            p = derived
        if not p.exists():
            copied = _try_gensim_copy(spec, derived)
            got = copied is not None
            if copied is not None:
                p = copied
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
        if not root.is_dir() and root not in p.parents:
            _warn_missing_root(root, p)
        verify(ds, spec, p)
        paths.append(p)
    return paths


def read_lines(name: str) -> list[str]:
    """The text lines of a (single-file) evaluation dataset, verified."""
    (path,) = fetch(name)
    return path.read_text(encoding="utf-8", errors="replace").splitlines()
