"""Benchmark the data layer: compressed corpus -> frequency-ranked int32 ids (cold cache), stage by stage.

    python bench/bench_data.py [corpus]              # default enwiki2015_17m; needs QWEM_DATA_DIR
    python bench/bench_data.py --rss [corpus]        # peak memory of a cold tokenisation, new vs reference

The stages of the streaming path (:func:`qwem_lib.data.tokenize_files`): verify the archive's sha256,
decompress alone (bytes, in chunks), load the compiled tokeniser (numba import and its on-disk cache,
one tiny call),
decompress + tokenise streaming (decompression in a background thread, the compiled scan in the main
one), rank (O(types)); then ``load_corpus`` cold (all of it, in an empty cache) and warm (memory-mapped
cache), and the reference string path (decode the whole text, ``tokenize_ranked``) for comparison. The
ids of the two paths are checked equal. ``--rss`` runs each path in a fresh process and reports its peak
resident memory (``ru_maxrss``). Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from qwem_lib import data

_CHILD = """
import resource, sys, time
from qwem_lib import data
name, how = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if how == "stream":
    c = data.load_corpus(name, use_cache=False)
    n = c.n_tokens
else:
    ds = data.dataset(name)
    ids, words, freq = data.tokenize_ranked([data._read_text(ds, p) for p in data.fetch(name)])
    n = ids.size
print(n, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux
"""


def peak_rss(name: str = "enwiki2015_17m") -> None:
    """Peak resident memory of a cold tokenisation of ``name``, in a fresh process per path."""
    print("| corpus | path | tokens | wall time | peak RSS |")
    print("|---|---|---|---|---|")
    for how, label in (
        ("stream", "streaming: `load_corpus(use_cache=False)`"),
        ("reference", "reference: whole text + `tokenize_ranked`"),
    ):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, name, how], check=True, capture_output=True, text=True
        ).stdout.split()
        print(
            f"| {name} | {label} | {int(out[0]):,} | {float(out[1]):.1f} s | {int(out[2]) / 2**20:.2f} GiB |",
            flush=True,
        )


def main(name: str = "enwiki2015_17m") -> None:
    from qwem_lib.data.tokenizer import StreamTokenizer

    ds = data.dataset(name)
    t = time.perf_counter()
    paths = data.fetch(name)
    t_verify = time.perf_counter() - t
    t = time.perf_counter()
    n_bytes = sum(len(b) for p in paths for b in data._iter_chunks(ds, p))
    t_decomp = time.perf_counter() - t
    t = time.perf_counter()
    warm = StreamTokenizer()  # numba import, and the compiled code read from numba's on-disk cache
    warm.feed(b"a warm up b")
    warm.feed(b"c")
    warm.finish()
    t_jit = time.perf_counter() - t
    tok = StreamTokenizer()
    t = time.perf_counter()
    for p in paths:
        for block in data._prefetched(data._iter_chunks(ds, p)):
            tok.feed(block)
        tok.end_part()
    t_scan = time.perf_counter() - t
    t = time.perf_counter()
    ids, words, freq = tok.finish()
    t_rank = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["QWEM_CACHE_DIR"] = tmp
        t = time.perf_counter()
        c = data.load_corpus(name)
        t_cold = time.perf_counter() - t
        t = time.perf_counter()
        c2 = data.load_corpus(name)
        t_warm = time.perf_counter() - t
        assert (
            np.array_equal(np.asarray(c2.ids), ids)
            and c.words == words
            and np.array_equal(c.counts, freq)
        )
    t = time.perf_counter()
    ref = data.tokenize_ranked([data._read_text(ds, p) for p in paths])
    t_ref = time.perf_counter() - t
    assert np.array_equal(ref[0], ids) and ref[1] == words and np.array_equal(ref[2], freq)
    load = os.getloadavg()[0]
    print(
        "| corpus | tokens | MB | verify sha256 | decompress alone | load kernel | decompress + tokenise "
        "(streaming) | rank | `load_corpus` cold | warm | reference str path | load avg |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    print(
        f"| {name} | {ids.size:,} | {n_bytes / 1e6:.0f} | {t_verify:.2f} s | {t_decomp:.2f} s | {t_jit:.2f} s | "
        f"{t_scan:.2f} s | {t_rank:.2f} s | {t_cold:.2f} s | {t_warm:.2f} s | {t_ref:.1f} s | {load:.2f} |"
    )


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--rss"]:
        peak_rss(*args[1:])
    else:
        main(*args)
