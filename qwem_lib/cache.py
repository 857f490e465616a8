"""Safe writes for cached artefacts: a file appears complete or not at all, whoever else is writing it.

Every cache in the book (token ids, co-occurrence counts, spectra, trained models, gensim vectors) is
written through :func:`atomic_path`. The data goes to a temporary file with a name unique to this process
and call, in the target's folder, and is moved into place with one atomic ``os.replace``. So

* a crash never leaves a half-written file that looks complete;
* two processes (two chapters run at once, a parallel test run) may fill the same cache entry at the same
  time: each writes its own temporary file, and the last complete one wins — both are identical, since
  cache entries are keyed by their inputs.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

__all__ = ["atomic_path"]


@contextmanager
def atomic_path(target: Path | str, suffix: str = "") -> Iterator[Path]:
    """Yield a fresh temporary path beside ``target``; when the block ends without an error, move it onto
    ``target`` atomically (mode 0644). On an error the temporary file is removed and ``target`` untouched.

    ``suffix`` ends the temporary name (``".npz"`` for :func:`numpy.savez`, which would append it anyway).
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".part{suffix}", dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
