"""Unit tests for qwem_lib.book.cache's keys (the atomic writes and checked reads are tested in
tests/test_hardening.py)."""

from __future__ import annotations

import hashlib

import numpy as np

from qwem_lib.book.cache import array_key


def test_array_key_hashes_the_float64_values_in_turn():
    P, pu = np.eye(3), np.arange(3.0)
    # independently: one update with the joined bytes
    h = hashlib.sha256(P.tobytes() + pu.tobytes()).hexdigest()[:16]
    assert array_key(P, pu) == h
    # the key trainers.train_expected and minimise_expected wrote before issue 40 (their _stats_key): caches
    # of hours of paper-preset work stay valid
    assert array_key(P, pu) == "708c75e1c031778d"
    assert array_key(P.astype(np.float32), [0, 1, 2]) == h  # equal as float64: the same key
    R = np.arange(9.0).reshape(3, 3)
    assert array_key(np.asfortranarray(R), pu) == array_key(R, pu)  # values, not the memory layout
    assert array_key(P, pu + 1e-15) != h
    assert array_key(pu, P) != h and array_key(P) != h  # order and number of arrays count
