"""Safe writes for cached artefacts: a file appears complete or not at all, whoever else is writing it.

Every cache in the book (token ids, co-occurrence counts, spectra, trained models, gensim vectors) is
written through :func:`atomic_path`. The data goes to a temporary file with a name unique to this process
and call, in the target's folder, and is moved into place with one atomic ``os.replace``. So

* a crash never leaves a half-written file that looks complete;
* a damaged entry (a truncated or corrupt file, from a full disk or a copy cut short) is never used: it is
  read back whole by :func:`read_npz`, and one that does not read is discarded with a warning naming it,
  so the caller recomputes it;
* two processes (two chapters run at once, a parallel test run) may fill the same cache entry at the same
  time: each writes its own temporary file, and the last complete one wins — both are identical, since
  cache entries are keyed by their inputs.
"""

from __future__ import annotations

import errno
import glob
import hashlib
import json
import os
import shutil
import tempfile
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "atomic_path",
    "read_npz",
    "discard",
    "array_key",
    "digest",
    "entry",
    "save_npz",
    "cached",
    "Checkpoint",
]


_FULL = {errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)}
_READ_ONLY = {errno.EACCES, errno.EPERM, errno.EROFS}


def _remove_orphans(target: Path) -> None:
    """Remove the temporary files of ``target`` left by writers that died (killed mid-write): their
    names carry the writer's process id, and a process that no longer exists will never finish them."""
    for p in target.parent.glob(f".{glob.escape(target.name)}.*.part*"):
        pid = p.name[len(target.name) + 2 :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            p.unlink(missing_ok=True)
        except (PermissionError, OSError):  # alive under another user, or cannot tell: keep it
            pass


@contextmanager
def atomic_path(target: Path | str, suffix: str = "") -> Iterator[Path]:
    """Yield a fresh temporary path beside ``target``; when the block ends without an error, move it onto
    ``target`` atomically (mode 0644). On an error the temporary file is removed and ``target`` untouched.

    ``suffix`` ends the temporary name (``".npz"`` for :func:`numpy.savez`, which would append it anyway).
    The temporary name holds this process's id, so that the leftovers of a process killed mid-write are
    recognised and removed by the next writer of the same target.

    A folder that cannot be written (read-only, no permission) does not stop the computation: a warning
    names it and the block writes to a temporary file elsewhere that is then dropped (nothing is cached).
    A full disk raises ``OSError`` saying which folder is full, and leaves no partial entry.
    """
    target = Path(target)
    refused: OSError | None = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_orphans(target)
        fd, name = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=f".part{suffix}", dir=target.parent
        )
    except OSError as exc:
        if exc.errno in _FULL:
            raise _disk_full(target, exc) from exc
        if exc.errno not in _READ_ONLY:
            raise
        refused = exc
    if refused is not None:
        warnings.warn(
            f"cannot write the cache entry {target} ({refused.strerror}); the result is computed but "
            "not cached. Make the folder writable or set QWEM_CACHE_DIR to a writable folder.",
            RuntimeWarning,
            stacklevel=3,
        )
        with tempfile.TemporaryDirectory(prefix="qwem-uncached-") as tmpdir:
            yield Path(tmpdir) / f"{target.name}.part{suffix}"
        return
    os.close(fd)
    tmp = Path(name)
    try:
        try:
            yield tmp
            tmp.chmod(0o644)
            os.replace(tmp, target)
        except OSError as exc:
            if exc.errno in _FULL:
                raise _disk_full(target, exc) from exc
            raise
        except Exception as exc:
            # e.g. an error of zipfile's wrapping a full disk, deep inside numpy.savez
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, OSError) and cause.errno in _FULL:
                raise _disk_full(target, cause) from exc
            raise
    finally:
        tmp.unlink(missing_ok=True)


def _disk_full(target: Path, exc: OSError) -> OSError:
    try:
        free = shutil.disk_usage(target.parent).free / 2**20
        room = f"{free:,.0f} MiB free"
    except OSError:
        room = "free space unknown"
    return OSError(
        exc.errno,
        f"no space left to write the cache entry {target.name} in {target.parent} ({room}): free some "
        "space there or point QWEM_CACHE_DIR at a larger disk; no partial entry was left",
    )


def discard(path: Path | str, why: str) -> None:
    """Remove a damaged cache entry, saying which file and why (the caller then recomputes it)."""
    warnings.warn(
        f"cache entry {path} is damaged ({why}); it was removed and will be recomputed",
        RuntimeWarning,
        stacklevel=3,
    )
    Path(path).unlink(missing_ok=True)


def read_npz(
    path: Path | str,
    required: tuple[str, ...] = (),
    *,
    shapes: dict[str, tuple[int | None, ...]] | None = None,
    finite: tuple[str, ...] = (),
) -> dict[str, np.ndarray] | None:
    """Every array of a cached ``.npz``, read completely; None when the file is absent or damaged.

    A file that cannot be read (truncated, not a zip, a corrupt member) or lacks one of ``required`` is
    removed with a warning (see :func:`discard`), so a cache never crashes deep inside NumPy and never hands
    back half an artefact.

    A hit is also checked against the request before it is returned (issue 41): ``shapes`` maps a member
    to the shape the caller asked for (``None`` for a free size), ``finite`` names members that must hold
    only finite numbers. A valid file that fails either (a stale entry of another shape, a run that
    diverged to NaN) is removed with a warning and None is returned, so the caller recomputes.
    """
    import zipfile

    path = Path(path)
    if not path.exists():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, ValueError, EOFError, OSError, KeyError) as exc:
        discard(path, f"{type(exc).__name__}: {exc}")
        return None
    missing = [k for k in (*required, *(shapes or {}), *finite) if k not in out]
    if missing:
        discard(path, f"it lacks {sorted(set(missing))}")
        return None
    for key, want in (shapes or {}).items():
        got = out[key].shape
        if len(got) != len(want) or any(w is not None and w != g for w, g in zip(want, got)):
            shown = tuple("any" if w is None else w for w in want)
            discard(path, f"{key} has shape {got}, the request needs {shown}")
            return None
    for key in finite:
        a = out[key]
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            discard(path, f"{key} holds NaN or infinite values")
            return None
    return out


def array_key(*arrays: np.ndarray) -> str:
    """A cache key for array inputs: the first 16 hex digits of the SHA-256 of each array's float64 values
    (C order), in turn. Arrays equal as float64 get the same key; any changed value, shape-preserving
    reordering or added array gives another."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def digest(inputs: Any, n: int = 16) -> str:
    """A cache key for plain inputs: the first ``n`` hex digits of the SHA-256 of ``inputs`` written as JSON
    with sorted keys (values JSON cannot write, such as a torch dtype, as their ``str``).

    Every module keys its entries this way, so that a key comes from the inputs themselves and never from
    another module's file names.

    >>> digest({"V": 500, "d": 3}) == digest({"d": 3, "V": 500})
    True
    >>> digest({"V": 500, "d": 3}) == digest({"V": 500, "d": 4})
    False
    >>> len(digest([1, 2], n=20))
    20
    """
    if not isinstance(n, int) or not 1 <= n <= 64:
        raise ValueError(f"n must be an integer in [1, 64], got {n!r}")
    blob = json.dumps(inputs, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:n]


def entry(kind: str, name: str) -> Path:
    """The path of cache entry ``name`` of ``kind`` (a folder of the cache: ``"training"``, ``"fc"``, …)
    under ``config.cache_dir()``. Both must be plain names: nothing in them may leave the cache folder."""
    from . import config

    for label, value in (("kind", kind), ("name", name)):
        if (
            not isinstance(value, str)
            or not value
            or "/" in value
            or "\\" in value
            or value.startswith(".")
        ):
            raise ValueError(
                f"{label} must be a plain file name (no '/', not hidden), got {value!r}"
            )
    return config.cache_dir() / kind / name


def save_npz(path: Path | str, arrays: Mapping[str, Any]) -> None:
    """Write ``arrays`` to the ``.npz`` file ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path, ".npz") as tmp:
        np.savez(tmp, **dict(arrays))


def cached(
    path: Path | str | None,
    compute: Callable[[], Mapping[str, Any]],
    *,
    required: tuple[str, ...] = (),
    shapes: dict[str, tuple[int | None, ...]] | None = None,
    finite: tuple[str, ...] = (),
) -> tuple[dict[str, np.ndarray], bool]:
    """The arrays of cache entry ``path``, computed by ``compute()`` and stored on a miss.

    Returns ``(arrays, hit)``. A hit is read whole and checked (:func:`read_npz` with ``required``, ``shapes``
    and ``finite``); a damaged or mismatched entry is removed with a warning and recomputed. ``path=None``
    caches nothing (an ad-hoc input, or ``use_cache=False``): ``compute()`` runs and nothing is written.
    On a miss the arrays returned are the ones computed (not read back), so a caller sees the same values
    with and without the cache.
    """
    if path is not None:
        hit = read_npz(path, required, shapes=shapes, finite=finite)
        if hit is not None:
            return hit, True
    arrays = {k: np.asarray(v) for k, v in compute().items()}
    if path is not None:
        save_npz(path, arrays)
    return arrays, False


class Checkpoint:
    """The checkpoint of a long run beside its cache entry: ``<entry>.ckpt.npz``.

    ``load()`` returns the saved arrays (None when there is none, or it is damaged, or it lacks one of
    ``required``), ``save(arrays)`` replaces it atomically, ``clear()`` removes it once the run's result is
    stored. ``Checkpoint(None)`` does nothing (an uncached run).
    """

    def __init__(self, result: Path | str | None, required: tuple[str, ...] = ()) -> None:
        self.path = None if result is None else Path(result).with_suffix(".ckpt.npz")
        self.required = tuple(required)

    def load(self) -> dict[str, np.ndarray] | None:
        return None if self.path is None else read_npz(self.path, self.required)

    def save(self, arrays: Mapping[str, Any]) -> None:
        if self.path is not None:
            save_npz(self.path, arrays)

    def clear(self) -> None:
        if self.path is not None:
            self.path.unlink(missing_ok=True)
