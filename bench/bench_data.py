"""Benchmark the data layer: compressed 17M-token corpus -> frequency-ranked int32 ids (cold cache).

    python bench/bench_data.py [corpus]        # default enwiki2015_17m; needs QWEM_DATA_DIR

Prints the stages (verify, decompress, count, map) and the warm (cached) load time. Speed is measured
here, never asserted in tests.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter

import numpy as np

from qwem_lib import data


def main(name: str = "enwiki2015_17m") -> None:
    ds = data.dataset(name)
    t = time.perf_counter()
    paths = data.fetch(name)
    t_verify = time.perf_counter() - t
    t = time.perf_counter()
    texts = [data._read_text(ds, p) for p in paths]
    t_read = time.perf_counter() - t
    t = time.perf_counter()
    toks = [x.split() for x in texts]
    t_split = time.perf_counter() - t
    t = time.perf_counter()
    counts: Counter[str] = Counter()
    for tk in toks:
        counts.update(tk)
    t_count = time.perf_counter() - t
    rank = {w: i for i, (w, _) in enumerate(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))}
    t = time.perf_counter()
    n = sum(map(len, toks))
    ids = np.concatenate([np.fromiter(map(rank.__getitem__, tk), np.int32, len(tk)) for tk in toks])
    t_map = time.perf_counter() - t
    del toks, texts
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QWEM_CACHE_DIR"] = tmp
        t = time.perf_counter()
        c = data.load_corpus(name)
        t_cold = time.perf_counter() - t
        t = time.perf_counter()
        c2 = data.load_corpus(name)
        t_warm = time.perf_counter() - t
        assert np.array_equal(np.asarray(c2.ids), ids) and c.n_tokens == n
        in_v = float(np.mean(np.asarray(c2.ids) < 10_000))
    print(f"| corpus | tokens | verify sha256 | decompress | split | count | map to ids | load_corpus cold | warm |")
    print(f"|---|---|---|---|---|---|---|---|---|")
    print(f"| {name} | {n:,} | {t_verify:.1f} s | {t_read:.1f} s | {t_split:.1f} s | {t_count:.1f} s | "
          f"{t_map:.1f} s | {t_cold:.1f} s | {t_warm:.2f} s |")
    print(f"tokens inside the top 10,000 words: {in_v:.1%}")


if __name__ == "__main__":
    main(*sys.argv[1:])
