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

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

__all__ = ["atomic_path", "read_npz", "discard"]


@contextmanager
def atomic_path(target: Path | str, suffix: str = "") -> Iterator[Path]:
    """Yield a fresh temporary path beside ``target``; when the block ends without an error, move it onto
    ``target`` atomically (mode 0644). On an error the temporary file is removed and ``target`` untouched.

    ``suffix`` ends the temporary name (``".npz"`` for :func:`numpy.savez`, which would append it anyway).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=f".part{suffix}", dir=target.parent
    )
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def discard(path: Path | str, why: str) -> None:
    """Remove a damaged cache entry, saying which file and why (the caller then recomputes it)."""
    import warnings

    warnings.warn(
        f"cache entry {path} is damaged ({why}); it was removed and will be recomputed",
        RuntimeWarning,
        stacklevel=3,
    )
    Path(path).unlink(missing_ok=True)


def read_npz(path: Path | str, required: tuple[str, ...] = ()) -> dict[str, np.ndarray] | None:
    """Every array of a cached ``.npz``, read completely; None when the file is absent or damaged.

    A file that cannot be read (truncated, not a zip, a corrupt member) or lacks one of ``required`` is
    removed with a warning (see :func:`discard`), so a cache never crashes deep inside NumPy and never hands
    back half an artefact.
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
    missing = [k for k in required if k not in out]
    if missing:
        discard(path, f"it lacks {missing}")
        return None
    return out
