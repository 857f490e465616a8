"""Small synthetic corpora for the tests (a helper module, not a test file)."""

from __future__ import annotations

import numpy as np

from qwem_lib.data import Corpus


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
