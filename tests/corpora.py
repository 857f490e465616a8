"""Small synthetic corpora for the tests (a helper module, not a test file)."""

from __future__ import annotations

import hashlib
import lzma

import numpy as np

from qwem_lib import data
from qwem_lib.data import Corpus, Dataset, FileSpec


def zipf_corpus(
    name: str, *, n: int = 3000, types: int = 14, seed: int = 8, prefix: str = "w"
) -> Corpus:
    """An unregistered corpus of ``n`` Zipf-distributed tokens over ``types`` words, ids ranked by
    frequency (ties by id), as :func:`qwem_lib.data.load_corpus` ranks a real one."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, types + 1)
    raw = rng.choice(types, size=n, p=p / p.sum())
    counts = np.bincount(raw, minlength=types)
    rank = np.empty(types, dtype=np.int32)
    rank[np.lexsort((np.arange(types), -counts))] = np.arange(types)
    ids = rank[raw]
    return Corpus(
        name,
        ids,
        [f"{prefix}{i}" for i in range(types)],
        np.bincount(ids, minlength=types).astype(np.int64),
    )


def tiny_corpus(n=3000, types=12, seed=0) -> Corpus:
    """A random Zipf-like stream with structure (word 2t+1 tends to follow word 2t)."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, types + 1)
    p /= p.sum()
    ids = rng.choice(types, size=n, p=p)
    follow = rng.random(n) < 0.3
    ids[1:][follow[1:] & (ids[:-1] % 2 == 0)] = np.minimum(
        ids[:-1][follow[1:] & (ids[:-1] % 2 == 0)] + 1, types - 1
    )
    # relabel to frequency ranks, as the data layer does
    counts = np.bincount(ids, minlength=types)
    order = np.argsort(-counts, kind="stable")
    rank = np.empty(types, dtype=np.int64)
    rank[order] = np.arange(types)
    ids = rank[ids].astype(np.int32)
    counts = np.bincount(ids, minlength=types)
    return Corpus("tiny-test", ids, [f"w{i}" for i in range(types)], counts)


def zipf_text(n: int = 3000, types: int = 14, seed: int = 8) -> str:
    """A Zipfian text of ``n`` tokens over ``types`` words ``wa, wb, ...`` (seeded)."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{chr(97 + i)}" for i in range(types)]
    p = 1.0 / np.arange(1, types + 1)
    return " " + " ".join(vocab[i] for i in rng.choice(types, size=n, p=p / p.sum()))


def register_text(root, name: str, text: str, *, content_sha: bool = False) -> Dataset:
    """Register ``text`` as the one-file corpus ``name`` (xz-compressed under ``root/corpus/``), with its
    checksums (and the checksum of its content when ``content_sha``)."""
    rel = f"corpus/{name}.txt.xz"
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(lzma.compress(text.encode()))
    spec = FileSpec(
        rel,
        hashlib.sha256(f.read_bytes()).hexdigest(),
        f.stat().st_size,
        content_sha256=hashlib.sha256(text.encode()).hexdigest() if content_sha else None,
    )
    return data.register(Dataset(name, "corpus", "test", (spec,)))


def unregistered_zipf(n: int = 4000, types: int = 14, seed: int = 8) -> Corpus:
    """A Zipfian corpus built in memory (registered nowhere): :func:`zipf_corpus` with words ``wa, wb, ...``."""
    return zipf_corpus("inputs-unregistered", n=n, types=types, seed=seed, prefix="w")
