"""Unit tests for qwem_lib.qwem.corpus_stats: counts against a brute-force loop, normalisation, targets, errors."""

from __future__ import annotations

import math
import os
import time

import numpy as np
import pytest
from corpora import unregistered_zipf

from qwem_lib.data import Corpus, DataError
from qwem_lib.qwem import corpus_stats as cs


def brute_counts(ids, V, window, weighting="linear", oov="drop", stream_vocab=20_000):
    ids = list(ids)
    if oov == "drop":
        ids = [t for t in ids if t < V]
    elif oov == "authors":
        ids = [t for t in ids if t < stream_vocab]
    C = np.zeros((V, V))
    for t in range(len(ids)):
        for j in range(1, window + 1):
            if t + j >= len(ids):
                break
            a, b = ids[t], ids[t + j]
            if a >= V or b >= V:
                continue
            w = (window + 1 - j) if weighting == "linear" else 1
            C[a, b] += w
            C[b, a] += w
    return C


def toy_corpus(n=600, types=12, seed=0) -> Corpus:
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, types + 1)
    raw = rng.choice(types, size=n, p=p / p.sum())
    # re-rank by frequency so that ids are frequency ranks, as the data layer guarantees
    counts = np.bincount(raw, minlength=types)
    order = np.lexsort((np.arange(types), -counts))
    rank = np.empty(types, dtype=np.int32)
    rank[order] = np.arange(types)
    ids = rank[raw].astype(np.int32)
    words = [f"w{i}" for i in range(types)]
    return Corpus(
        "toy-not-registered", ids, words, np.bincount(ids, minlength=types).astype(np.int64)
    )


@pytest.mark.parametrize("weighting", ["linear", "flat"])
@pytest.mark.parametrize("oov", ["drop", "skip", "authors"])
@pytest.mark.parametrize("window", [1, 3, 16])
def test_counts_match_brute_force(weighting, oov, window):
    ids = np.random.default_rng(1).integers(0, 9, size=300).astype(np.int32)
    got = cs.cooccurrence_counts(ids, 6, window, weighting=weighting, oov=oov)
    want = brute_counts(ids, 6, window, weighting, oov)
    np.testing.assert_array_equal(got, want)


def test_counts_small_example_by_hand():
    # stream a b a with window 2: pairs (a,b) j=1 w=2, (b,a) j=1 w=2, (a,a) j=2 w=1; both directions
    C = cs.cooccurrence_counts(np.array([0, 1, 0]), 2, 2)
    np.testing.assert_array_equal(C, [[2.0, 4.0], [4.0, 0.0]])


def test_drop_versus_skip_differ_when_oov_present():
    ids = np.array([0, 5, 1, 0, 7, 1])
    drop = cs.cooccurrence_counts(ids, 2, 1, oov="drop")
    skip = cs.cooccurrence_counts(ids, 2, 1, oov="skip")
    assert skip.sum() == 2.0 * 1  # only the adjacent pair (1, 0)
    assert drop.sum() == 2.0 * 3  # 0 1 0 1 after dropping


def test_cooccurrence_normalisation_and_unigram():
    c = toy_corpus()
    words, P, pu = cs.cooccurrence(c, 8, 4)
    assert words == c.words[:8]
    assert P.shape == (8, 8)
    np.testing.assert_allclose(P, P.T)
    assert abs(P.sum() - 1) < 1e-12 and abs(pu.sum() - 1) < 1e-12
    np.testing.assert_allclose(pu, c.counts[:8] / c.counts[:8].sum())
    # P_unigram is not the row marginal (edge effects and weighting), but close to it
    assert np.max(np.abs(P.sum(1) - pu)) < 0.05


def test_targets_formulas():
    c = toy_corpus()
    _, P, pu = cs.cooccurrence(c, 8, 4)
    Q = np.outer(pu, pu)
    np.testing.assert_allclose(cs.mstar_from_stats(P, pu), 2 * (P - Q) / (P + Q))
    pmi = cs.pmi_from_stats(P, pu)
    np.testing.assert_allclose(pmi, np.log(P / Q + 1e-25))
    np.testing.assert_allclose(cs.ppmi_from_stats(P, pu), np.maximum(pmi, 0))
    np.testing.assert_allclose(
        cs.target_from_stats(P, pu, "mstar", dtype=np.float32),
        2 * (P - Q) / (P + Q),
        rtol=1e-6,
        atol=1e-6,
    )
    # blocked evaluation gives the same matrix as one block
    np.testing.assert_allclose(cs._rowwise(P, pu, lambda a, b: a - b, np.float64, block=3), P - Q)
    # a pair that never co-occurs has M* = -2 exactly
    P0 = P.copy()
    P0[0, 1] = P0[1, 0] = 0.0
    assert cs.mstar_from_stats(P0, pu)[0, 1] == -2.0


def test_errors():
    c = toy_corpus()
    with pytest.raises(ValueError, match="only"):
        cs.cooccurrence(c, 1000)
    with pytest.raises(ValueError):
        cs.cooccurrence(c, 8, 0)
    with pytest.raises(ValueError):
        cs.cooccurrence(c, 8, 4, weighting="harmonic")
    with pytest.raises(ValueError):
        cs.target_from_stats(np.eye(2), np.array([0.5, 0.5]), "glove")
    with pytest.raises(ValueError):
        cs.mstar_from_stats(np.eye(3), np.array([0.5, 0.5]))
    empty = Corpus("empty", np.zeros(0, dtype=np.int32), ["a", "b"], np.array([0, 0]))
    with pytest.raises(DataError):
        cs.cooccurrence(empty, 2)
    with pytest.raises(DataError):
        cs.cooccurrence_counts(np.array([5, 6, 7]), 2, 2)
    with pytest.raises(TypeError):
        cs.resolve_corpus(3)


def test_zipf_fit_recovers_exponent():
    counts = 1e6 / np.arange(1, 5001) ** 1.1
    slope, _ = cs.zipf_fit(counts, 1, 5000)
    assert abs(slope + 1.1) < 1e-9


def test_authors_rule_keeps_slots_of_words_ranked_between_V_and_stream_vocab():
    # ids 0, 1 in vocabulary (V = 2); 2 is in the authors' stream (stream_vocab = 3) and keeps its slot;
    # 5 is outside the stream and is removed before windowing
    ids = np.array([0, 2, 1, 5, 0])
    got = cs.cooccurrence_counts(ids, 2, 2, weighting="flat", oov="authors", stream_vocab=3)
    # stream 0 2 1 0 -> pairs within distance 2 among ids < 2: (0,1) at distance 2, (1,0) at distance 1
    np.testing.assert_array_equal(got, [[0, 2], [2, 0]])
    np.testing.assert_array_equal(got, brute_counts(ids, 2, 2, "flat", "authors", stream_vocab=3))
    # with stream_vocab <= V the rule is "drop"
    np.testing.assert_array_equal(
        cs.cooccurrence_counts(ids, 2, 2, oov="authors", stream_vocab=2),
        cs.cooccurrence_counts(ids, 2, 2, oov="drop"),
    )


def test_authors_rule_is_the_default_and_sits_between_drop_and_skip():
    ids = toy_corpus(n=3000, types=30, seed=3).ids
    default = cs.cooccurrence_counts(ids, 8, 4)
    np.testing.assert_array_equal(
        default, cs.cooccurrence_counts(ids, 8, 4, oov="authors", stream_vocab=20_000)
    )
    # with every type inside the authors' stream, nothing is removed: the same as "skip"
    np.testing.assert_array_equal(default, cs.cooccurrence_counts(ids, 8, 4, oov="skip"))
    mid = cs.cooccurrence_counts(ids, 8, 4, oov="authors", stream_vocab=15)
    assert not np.array_equal(mid, default) and not np.array_equal(
        mid, cs.cooccurrence_counts(ids, 8, 4, oov="drop")
    )
    np.testing.assert_array_equal(mid, brute_counts(ids, 8, 4, oov="authors", stream_vocab=15))


@pytest.mark.parametrize("bad", [dict(oov="gaps"), dict(stream_vocab=0), dict(stream_vocab=2.5)])
def test_bad_oov_rules_rejected(bad):
    with pytest.raises(ValueError):
        cs.cooccurrence_counts(np.arange(10) % 3, 3, 2, **bad)


# --- inputs refused or converted at the public API, chunked counting (issue 16) ------------------------


def test_chunked_counting_equals_one_pass():
    ids = np.random.default_rng(4).integers(0, 30, size=5000)
    for oov in ("drop", "skip", "authors"):
        one = cs.cooccurrence_counts(ids, 12, 5, oov=oov, stream_vocab=20)
        for chunk in (20, 97, 1000):  # the smallest is four windows: chunk boundaries everywhere
            np.testing.assert_array_equal(
                cs.cooccurrence_counts(ids, 12, 5, oov=oov, stream_vocab=20, chunk=chunk), one
            )
        np.testing.assert_array_equal(one, brute_counts(ids, 12, 5, oov=oov, stream_vocab=20))


def test_memory_mapped_ids_are_counted_in_chunks(tmp_path):
    ids = np.random.default_rng(6).integers(0, 9, size=3000).astype(np.int32)
    np.save(tmp_path / "ids.npy", ids)
    mm = np.load(tmp_path / "ids.npy", mmap_mode="r")
    np.testing.assert_array_equal(
        cs.cooccurrence_counts(mm, 6, 3, chunk=64), brute_counts(ids, 6, 3, oov="skip")
    )


def test_token_ids_are_validated_not_truncated():
    # lists work; whole-number floats are accepted and give the integer result
    np.testing.assert_array_equal(cs.cooccurrence_counts([0, 1, 0], 2, 2), [[2.0, 4.0], [4.0, 0.0]])
    np.testing.assert_array_equal(
        cs.cooccurrence_counts(np.array([0.0, 1.0, 0.0]), 2, 2), [[2.0, 4.0], [4.0, 0.0]]
    )
    with pytest.raises(ValueError, match="non-integer"):
        cs.cooccurrence_counts(np.array([0.0, 1.7, 0.0]), 2, 2)  # used to count 1.7 as 1
    with pytest.raises(ValueError, match="NaN"):
        cs.cooccurrence_counts(
            np.array([0.0, np.nan, 1.0, 0.0]), 2, 2
        )  # used to drop the NaN silently
    with pytest.raises(TypeError):
        cs.cooccurrence_counts(np.array(["a", "b"]), 2, 2)
    with pytest.raises(ValueError, match="non-negative"):
        cs.cooccurrence_counts([0, -1, 1], 2, 2)
    with pytest.raises(ValueError):
        cs.cooccurrence_counts([0, 1, 0], True, 2)


def test_huge_vocabulary_refused_before_allocating(monkeypatch):
    ids = np.arange(10)
    with pytest.raises(MemoryError, match="GiB"):
        cs.cooccurrence_counts(
            ids, 1_000_000, 2
        )  # 7 TiB of table: refused with a message, nothing allocated
    monkeypatch.setattr(cs, "MAX_TABLE_BYTES", 1000)
    with pytest.raises(MemoryError, match="QWEM_MAX_TABLE_BYTES"):
        cs.cooccurrence_counts(ids, 20, 2)


def test_targets_by_hand():
    # two words; P and P_i chosen so that every entry can be checked on paper
    P = np.array([[0.30, 0.20], [0.20, 0.30]])
    pu = np.array([0.5, 0.5])  # P_i P_j = 0.25 everywhere
    np.testing.assert_allclose(
        cs.mstar_from_stats(P, pu),
        [[2 * 0.05 / 0.55, -2 * 0.05 / 0.45], [-2 * 0.05 / 0.45, 2 * 0.05 / 0.55]],
    )
    np.testing.assert_allclose(cs.pmi_from_stats(P, pu), np.log([[1.2, 0.8], [0.8, 1.2]]))
    np.testing.assert_allclose(cs.ppmi_from_stats(P, pu), [[np.log(1.2), 0.0], [0.0, np.log(1.2)]])


def test_target_inputs_are_validated():
    pu = np.array([0.5, 0.5])
    counts = np.array([[30.0, 20.0], [20.0, 30.0]])
    with pytest.raises(ValueError, match="raw counts"):
        cs.mstar_from_stats(
            counts, pu
        )  # counts, not probabilities: used to give a plausible-looking M*
    with pytest.raises(ValueError, match="NaN"):
        cs.mstar_from_stats(np.array([[np.nan, 0.2], [0.2, 0.3]]), pu)
    with pytest.raises(ValueError, match="negative"):
        cs.pmi_from_stats(np.array([[0.5, -0.1], [-0.1, 0.7]]), pu)
    with pytest.raises(ValueError, match="sum"):
        cs.mstar_from_stats(np.array([[0.3, 0.2], [0.2, 0.3]]), np.array([5.0, 5.0]))
    # lists are converted
    np.testing.assert_allclose(
        cs.mstar_from_stats([[0.3, 0.2], [0.2, 0.3]], [0.5, 0.5]),
        cs.mstar_from_stats(np.array([[0.3, 0.2], [0.2, 0.3]]), pu),
    )


# -- the compiled kernels: thread split, in-place symmetrisation, normalisation, fused M* -------------------
@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_count_kernel_is_independent_of_the_row_split(parts):
    rng = np.random.default_rng(5)
    V, window = 11, 4
    stream = rng.integers(-1, V, size=500).astype(np.int32)  # -1: a kept slot that is never counted
    w = cs.offset_weights(window, "linear").astype(np.int32)
    want = np.zeros((V, V), dtype=np.int64)
    for t in range(stream.size):
        for j in range(1, window + 1):
            if t + j < stream.size and stream[t] >= 0 and stream[t + j] >= 0:
                want[stream[t], stream[t + j]] += window + 1 - j
    mass = np.bincount(stream[stream >= 0], minlength=V)
    bounds = cs._row_bounds(mass, parts) if parts > 1 else np.array([0, V])
    table = np.zeros(V * V, dtype=np.int32)
    cs._kernels()["count_pairs"](stream, stream.size, V, w, table, bounds)
    np.testing.assert_array_equal(table.reshape(V, V), want)


def test_row_bounds_split_token_mass_evenly_and_cover_every_row():
    zipf = np.round(1e6 / np.arange(1, 1001)).astype(np.int64)
    for parts in (1, 2, 3, 8):
        b = cs._row_bounds(zipf, parts)
        assert b[0] == 0 and b[-1] == zipf.size and b.size == parts + 1 and np.all(np.diff(b) >= 0)
        shares = np.add.reduceat(zipf, b[:-1][np.diff(b) > 0]) / zipf.sum()
        assert (
            shares.max() <= 1 / parts + zipf[0] / zipf.sum() + 1e-12
        )  # off by at most one row's mass
    assert (
        cs._row_bounds(zipf, 2)[1] < 100
    )  # equal *rows* would give one thread almost all the work
    np.testing.assert_array_equal(
        cs._row_bounds(np.zeros(5, dtype=np.int64), 2), [0, 2, 5]
    )  # no mass: rows
    b = cs._row_bounds(
        np.array([0, 0, 7, 0]), 3
    )  # all the mass in one row: empty parts are harmless
    assert b[0] == 0 and b[-1] == 4 and np.all(np.diff(b) >= 0)


@pytest.mark.parametrize("V,B", [(1, 64), (2, 1), (63, 64), (64, 64), (65, 64), (130, 7), (17, 3)])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_in_place_symmetrisation_equals_s_plus_s_transpose(V, B, dtype):
    S = np.random.default_rng(V * B).integers(0, 1000, size=(V, V)).astype(dtype)
    want = S + S.T
    cs._kernels()["symmetrise"](S, cs.tile_pairs(V, B))
    np.testing.assert_array_equal(S, want)


def test_normalise_kernel_is_numpy_division():
    C = np.random.default_rng(2).integers(0, 50, size=(37, 37)).astype(np.int32)
    C = C + C.T
    P = np.zeros(C.shape)
    cs._kernels()["normalise"](C, int(C.sum()), P)
    assert np.array_equal(P, C / C.sum())  # bit for bit


def test_cooccurrence_table_and_normalised_statistics_agree():
    c = toy_corpus()
    words, C, pu = cs.cooccurrence_table(c, 8, 3)
    assert C.dtype.kind == "i" and np.array_equal(C, C.T)
    np.testing.assert_array_equal(C, brute_counts(c.ids, 8, 3, oov="authors"))
    _, P, pu2 = cs.cooccurrence(c, 8, 3)
    assert np.array_equal(P, C / C.sum()) and np.array_equal(pu, pu2)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["mstar", "pmi", "ppmi"])
def test_target_from_counts_is_bit_identical_to_the_statistics_path(kind, dtype):
    rng = np.random.default_rng(3)
    C = rng.integers(0, 40, size=(23, 23)).astype(np.int32)
    C = C + C.T
    C[rng.random(C.shape) < 0.3] = 0  # unseen pairs: M* = -2 exactly
    C = np.triu(C) + np.triu(C, 1).T
    pu = rng.random(23) + 0.1
    pu /= pu.sum()
    got = cs.target_from_counts(C, pu, kind, dtype=dtype)
    want = cs.target_from_stats(C / C.sum(), pu, kind, dtype=dtype)
    assert got.dtype == np.dtype(dtype) and np.array_equal(got, want)
    if kind == "mstar":  # and against the formula written out here
        P, Q = C / C.sum(), np.outer(pu, pu)
        assert np.array_equal(got, (2 * (P - Q) / (P + Q)).astype(dtype))


def test_target_from_counts_validates_its_inputs():
    pu = np.full(3, 1 / 3)
    C = np.ones((3, 3), dtype=np.int32)
    for bad, err in (
        (C[:2], ValueError),
        (-C, ValueError),
        (np.zeros((3, 3), dtype=np.int32), ValueError),
        (np.full((3, 3), np.nan), ValueError),
        (C.astype(complex), TypeError),
    ):
        with pytest.raises(err):
            cs.target_from_counts(bad, pu)
    for bad_pu in (np.array([0.5, 0.5, 0.0]), np.array([2.0, 1.0, 1.0]), np.ones((3, 1)) / 3):
        with pytest.raises(ValueError):
            cs.target_from_counts(C, bad_pu)
    with pytest.raises(ValueError):
        cs.target_from_counts(C, pu, "glove")


def test_target_from_counts_in_the_count_tables_memory():
    rng = np.random.default_rng(4)
    C = rng.integers(0, 30, size=(40, 40)).astype(np.int32)
    C = C + C.T
    pu = rng.random(40) + 0.2
    pu /= pu.sum()
    want = cs.target_from_counts(C, pu, "mstar", dtype=np.float32)
    M = cs.target_from_counts(C, pu, "mstar", dtype=np.float32, out=C.view(np.float32))
    assert np.shares_memory(M, C) and np.array_equal(M, want)
    C = rng.integers(0, 30, size=(40, 40)).astype(np.int64)  # int64 counts: float64 in place
    C = C + C.T
    want = cs.target_from_counts(C, pu, "mstar", dtype=np.float64)
    M = cs.target_from_counts(C, pu, "mstar", dtype=np.float64, out=C.view(np.float64))
    assert np.shares_memory(M, C) and np.array_equal(M, want)
    C64 = (C * 0 + 3).astype(np.int64)
    with pytest.raises(ValueError):  # a view that is not the same table entry for entry
        cs.target_from_counts(C64, pu, "mstar", dtype=np.float32, out=C64.view(np.float32)[:, :40])
    with pytest.raises(ValueError):
        cs.target_from_counts(
            C64, pu, "mstar", dtype=np.float32, out=np.zeros((40, 40))
        )  # wrong dtype


@pytest.mark.parametrize("V,B", [(1, 64), (5, 2), (64, 64), (130, 64), (131, 7)])
def test_tile_pairs_cover_the_upper_triangle_once(V, B):
    seen = np.zeros((V, V), dtype=int)
    for i0, i1, j0, j1 in cs.tile_pairs(V, B):
        assert 0 <= i0 < i1 <= V and 0 <= j0 < j1 <= V and i0 <= j0
        for i in range(i0, i1):
            for j in range(max(j0, i), j1):
                seen[i, j] += 1
    np.testing.assert_array_equal(seen, np.triu(np.ones((V, V), dtype=int)))


def test_warm_up_kernels_loads_every_compiled_kernel():
    from qwem_lib.qwem import spectral

    took = spectral.warm_up_kernels()
    assert took > 0
    assert {"count_pairs", "symmetrise", "normalise", "mstar"} <= set(cs._kernels())
    assert spectral._SYMMETRY_KERNEL is not None


def test_cache_names_are_the_ones_the_cached_work_was_stored_under():
    """The keys come from inputs (not from editing another module's file names) and give, byte for
    byte, the names that the co-occurrence, spectral, task-vector and gensim caches were filled under
    (the literals were printed by the earlier code, which derived them by editing the counts' file name)."""
    from qwem_lib.data import load_corpus
    from qwem_lib.qwem.w2v import w2v_corpus_key

    c = load_corpus("enwiki2015_1m7")  # ships with the book
    assert cs.cooc_cache_path(c, 300, 16, "linear", "authors", 20_000).name == (
        "enwiki2015_1m7-eca4f096c0fd-v1-n1690808-2a2ee0d7-V300-w16-linear-authors20000-v1.npz"
    )
    # what spectral.py and the wide embeddings name their files by (the counts' name without its "-v1"s)
    assert cs.counts_key(c, 300, 16, "linear", "authors", 20_000) == (
        "enwiki2015_1m7-eca4f096c0fd-n1690808-2a2ee0d7-V300-w16-linear-authors20000"
    )
    # what the gensim baseline names its files by (the counts' name up to the window)
    assert w2v_corpus_key(c, 300) == "enwiki2015_1m7-eca4f096c0fd-v1-n1690808-2a2ee0d7-V300"


def test_counts_key_changes_with_every_input_and_is_none_for_an_ad_hoc_corpus():
    from qwem_lib.data import load_corpus

    c = load_corpus("enwiki2015_1m7")
    base = dict(V=300, window=16, weighting="linear", oov="authors", stream_vocab=20_000)
    key = cs.counts_key(c, **base)
    for name, other in (
        ("V", 301),
        ("window", 15),
        ("weighting", "uniform"),
        ("oov", "drop"),
        ("stream_vocab", 30_000),
    ):
        assert cs.counts_key(c, **{**base, name: other}) != key, name
    shuffled = Corpus(c.name, c.ids[::-1].copy(), c.words, c.counts)
    assert (
        cs.counts_key(shuffled, **base) != key
    )  # same name, other ids: the fingerprint tells them apart
    adhoc = Corpus("not_registered", c.ids[:1000], c.words, c.counts)
    assert cs.counts_key(adhoc, **base) is None
    assert cs.vocabulary_key(adhoc, 300) is None


# -- inputs, caches and faults ------------------------------------------------------------------


def test_cooccurrence_cache_key_has_every_input(tiny):
    from qwem_lib.qwem.corpus_stats import cooccurrence_table

    base = dict(V=8, window=3, weighting="linear", oov="authors", stream_vocab=20_000)
    variants = [
        ("V", 9),
        ("window", 2),
        ("weighting", "flat"),
        ("oov", "drop"),
        ("stream_vocab", 9),
    ]
    _, C0, _ = cooccurrence_table("hard_tiny", **base)
    for key, value in variants:
        kw = {**base, key: value}
        _, fresh, _ = cooccurrence_table("hard_tiny", **kw, use_cache=False)
        assert fresh.shape != C0.shape or not np.array_equal(fresh, C0), key
        for _ in range(2):  # filled, then read back
            _, cached, _ = cooccurrence_table("hard_tiny", **kw)
            assert np.array_equal(cached, fresh), f"changing {key} returned a stale cache entry"


def test_count_table_never_overflows_int32():
    """The int32 accumulator is used only when the bound 2 Σw max n proves the counts fit."""
    from qwem_lib.qwem.corpus_stats import cooccurrence_counts

    n, W = 4000, 1000  # one word repeated: the diagonal count is 3.7e9 > 2^31
    C = cooccurrence_counts(np.zeros(n, dtype=np.int32), 1, W)
    exact = 2 * sum(sum(W + 1 - j for j in range(1, min(W, n - 1 - t) + 1)) for t in range(n))
    assert exact > 2**31
    assert int(C[0, 0]) == exact


def test_window_must_be_a_true_integer():
    from qwem_lib.qwem.corpus_stats import cooccurrence_counts

    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.array([0, 1, 0, 1]), 2, True)
    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.array([0, 1, 0, 1]), 2, np.True_)


def test_uint64_ids():
    from qwem_lib.qwem.corpus_stats import as_token_ids, cooccurrence_counts

    ids = np.array([0, 1, 2, 0, 1], dtype=np.uint64)
    assert np.array_equal(
        cooccurrence_counts(ids, 3, 2), cooccurrence_counts(ids.astype(np.int64), 3, 2)
    )
    with pytest.raises(ValueError, match="negative id cast"):
        as_token_ids(np.array([0, 2**64 - 1], dtype=np.uint64))  # -1 cast to uint64


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, bool])
def test_integer_dtype_refused_on_every_target_path(dtype):
    """The old finding (an integer target rounds M* to zero) was fixed in spectral_embeddings only."""
    from qwem_lib.qwem import corpus_stats as cs

    P = np.full((3, 3), 1 / 9)
    pu = np.full(3, 1 / 3)
    C = np.full((3, 3), 4)
    for call in (
        lambda: cs.mstar_from_stats(P, pu, dtype=dtype),
        lambda: cs.pmi_from_stats(P, pu, dtype=dtype),
        lambda: cs.ppmi_from_stats(P, pu, dtype=dtype),
        lambda: cs.target_from_stats(P, pu, "mstar", dtype=dtype),
        lambda: cs.target_from_counts(C, pu, "mstar", dtype=dtype),
        lambda: cs.target_from_counts(C, pu, "pmi", dtype=dtype),
    ):
        with pytest.raises(TypeError, match="dtype"):
            call()


def test_float16_target_from_counts_is_refused_clearly():
    from qwem_lib.qwem.corpus_stats import target_from_counts, target_from_stats

    C, pu = np.full((3, 3), 4), np.full(3, 1 / 3)
    with pytest.raises(TypeError, match="float32 or float64"):
        target_from_counts(C, pu, "mstar", dtype=np.float16)
    M16 = target_from_stats(C / C.sum(), pu, "mstar", dtype=np.float16)  # NumPy path: fine
    assert M16.dtype == np.float16


def test_cooccurrence_integer_dtype_refused(tiny):
    from qwem_lib.qwem.corpus_stats import cooccurrence

    with pytest.raises(TypeError, match="dtype"):
        cooccurrence("hard_tiny", 5, 2, dtype=np.int64)


def test_zipf_fit_refuses_zero_or_negative_counts():
    from qwem_lib.qwem.corpus_stats import zipf_fit

    c = 1000.0 / np.arange(1, 50)
    slope, _ = zipf_fit(c, 1, 40)
    assert slope == pytest.approx(-1.0, abs=1e-9)
    for bad in (0.0, -3.0, np.nan):
        d = c.copy()
        d[10] = bad
        with pytest.raises(
            ValueError, match="counts must (be finite and positive|hold non-negative|hold finite)"
        ):
            zipf_fit(d, 1, 40)


@pytest.mark.parametrize("value", ["1e9", "lots", "-5", "0", "2_000_000_000"])
def test_max_table_bytes_variable(value):
    import subprocess
    import sys

    env = dict(os.environ, QWEM_MAX_TABLE_BYTES=value)
    code = (
        "import qwem_lib\nfrom qwem_lib.qwem import corpus_stats as cs\n"
        "try:\n    cs.check_table_size(100_000, 8)\nexcept Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr  # import qwem_lib never fails on it
    if value in ("1e9", "2_000_000_000"):
        assert out.stdout.startswith("MemoryError") and "set by QWEM_MAX_TABLE_BYTES" in out.stdout
    else:
        assert out.stdout.startswith("ValueError") and "QWEM_MAX_TABLE_BYTES" in out.stdout


def test_cooccurrence_refuses_a_window_wider_than_the_corpus_at_once():
    """Before issue 41, window=10**9 allocated np.arange(10**9) and more, without end."""
    from qwem_lib.qwem.corpus_stats import cooccurrence, cooccurrence_counts
    from qwem_lib.qwem.pairs import make_sampler

    c = unregistered_zipf(n=500)
    t0 = time.perf_counter()
    for window in (10**9, 500, 2**62):
        with pytest.raises(ValueError, match=r"window must be an integer in \[1, 499\]"):
            cooccurrence(c, 10, window, use_cache=False)
    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.asarray(c.ids), 10, 10**9)
    with pytest.raises(DataError, match="window"):
        make_sampler(np.asarray(c.ids), 10, 10**9, device="cpu")
    assert time.perf_counter() - t0 < 5.0  # refused, not attempted
    # the widest window the corpus allows still counts, and equals the brute-force count of one pair
    _, P, _ = cooccurrence(
        unregistered_zipf(n=3), 2, 2, weighting="flat", oov="skip", use_cache=False
    )
    assert np.isclose(P.sum(), 1.0)


# -- edges that catch wrong code (issue 45: mutation testing) ------------------------------------------


def _stats(V=5, seed=0):
    rng = np.random.default_rng(seed)
    C = rng.integers(0, 20, (V, V))
    C = C + C.T
    pu = rng.random(V) + 0.1
    return C, pu / pu.sum()


def test_target_from_counts_equals_the_stats_path_and_checks_its_counts():
    from qwem_lib.qwem.corpus_stats import target_from_counts, target_from_stats

    C, pu = _stats()
    for kind in ("mstar", "pmi", "ppmi"):
        want = target_from_stats(C / C.sum(), pu, kind)
        got = target_from_counts(C, pu, kind)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(target_from_counts(C.astype(np.float64), pu, kind), want)
    np.testing.assert_array_equal(
        target_from_counts(C, pu), target_from_stats(C / C.sum(), pu, "mstar")
    )
    for bad, match in (
        (np.where(np.eye(5, dtype=bool), -1, C), "negative"),
        (np.zeros((5, 5), dtype=np.int64), "sum to zero"),
        (np.where(np.eye(5, dtype=bool), np.nan, C.astype(float)), "NaN or infinite"),
        (C[:4, :4], r"counts has shape \(4, 4\) but P_unigram has shape \(5,\)"),
    ):
        with pytest.raises(ValueError, match=match):
            target_from_counts(bad, pu)
    one = np.zeros((5, 5), dtype=np.int64)
    one[0, 1] = one[1, 0] = 1  # a total of 2, and a single pair: fine
    assert np.isfinite(target_from_counts(one, pu)[0, 1])
    with pytest.raises(TypeError, match="counts must be a real array"):
        target_from_counts(C.astype(complex), pu)
    with pytest.raises(ValueError, match="P_unigram"):
        target_from_counts(C, pu * 3)  # not probabilities


def test_target_from_counts_into_out_and_into_the_count_table():
    from qwem_lib.qwem.corpus_stats import target_from_counts, target_from_stats

    C, pu = _stats(6, 1)
    want32 = target_from_stats(C / C.sum(), pu, "mstar", dtype=np.float32)
    out = np.empty((6, 6), np.float32)
    assert target_from_counts(C, pu, dtype=np.float32, out=out) is out
    np.testing.assert_array_equal(out, want32)
    table = C.astype(np.int32)
    got = target_from_counts(table, pu, dtype=np.float32, out=table.view(np.float32))
    np.testing.assert_array_equal(got, want32)  # built in the table's own memory
    for bad in (
        np.empty((6, 6), np.float64),  # wrong dtype
        np.empty((5, 6), np.float32),  # wrong shape
        np.empty((6, 6), np.float32, order="F")[:, ::-1],  # not C-contiguous
        [[0.0] * 6] * 6,  # not an array
    ):
        with pytest.raises(ValueError, match="out must be a writeable C-contiguous"):
            target_from_counts(C, pu, dtype=np.float32, out=bad)
    ro = np.empty((6, 6), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writeable"):
        target_from_counts(C, pu, dtype=np.float32, out=ro)
    big = np.zeros((12, 6), np.int32)
    big[:6] = C
    overlap = big[3:9].view(np.float32)  # shares memory with the counts, but is not the same table
    with pytest.raises(ValueError, match="share memory"):
        target_from_counts(big[:6], pu, dtype=np.float32, out=overlap)


def test_probability_checks_at_their_edges():
    from qwem_lib.qwem.corpus_stats import check_stats

    C, pu = _stats()
    P = C / C.sum()
    check_stats(P * (1 + 0.9e-6), pu)  # a total of 1 + 0.9e-6 is round-off
    with pytest.raises(ValueError, match=r"P_joint sums to 1 > 1: it looks like raw counts"):
        check_stats(P * (1 + 2e-6), pu)
    check_stats(P.astype(np.float32), pu)  # summed in float64
    with pytest.raises(ValueError, match="P_unigram must be strictly positive"):
        check_stats(P, np.where(np.arange(5) == 0, 0.0, pu))
    with pytest.raises(ValueError, match=r"P_unigram must be 1-D, got shape \(1, 5\)"):
        check_stats(P, pu[None])
    with pytest.raises(TypeError, match="P_joint must be a real array"):
        check_stats(P.astype(complex), pu)
    check_stats(np.zeros((5, 5), dtype=np.int64), pu)  # integer zeros are probabilities


def test_count_totals_are_exact_integers():
    from qwem_lib.qwem.corpus_stats import _count_total

    big = np.full((3, 3), 2**30, dtype=np.int32)  # the int32 sum would overflow
    t = _count_total(big)
    assert isinstance(t, int) and t == 9 * 2**30
    f = _count_total(np.full((2, 2), 0.25))
    assert isinstance(f, float) and f == 1.0


def test_cooccurrence_table_is_cached_by_default_in_int32_and_a_damaged_entry_is_recomputed(tiny):
    import warnings

    from qwem_lib.book.cache import save_npz

    words, C, pu = cs.cooccurrence_table(tiny, 6, 3)  # use_cache defaults to True
    path = cs.cooc_cache_path(tiny, 6, 3, "linear", "authors", cs.STREAM_VOCAB)
    assert path is not None and path.exists() and C.dtype == np.int32
    _, C_again, _ = cs.cooccurrence_table(tiny, 6, 3)
    np.testing.assert_array_equal(C_again, C)
    fresh = cs.cooccurrence_table(tiny, 6, 3, use_cache=False)[1]
    np.testing.assert_array_equal(fresh, C)
    for damaged in (
        {"counts": np.ones((5, 5), np.int32)},
        {"other": C},
        {"counts": np.full((6, 6), np.nan)},
    ):
        save_npz(path, damaged)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, C2, _ = cs.cooccurrence_table(tiny, 6, 3)
        np.testing.assert_array_equal(C2, C)
        assert any(
            "damaged" in str(w.message) or "discard" in str(w.message).lower() for w in caught
        ), damaged
    # the defaults of cooccurrence: window 16 and the cache
    _, P, _ = cs.cooccurrence(tiny, 6)
    assert cs.cooc_cache_path(tiny, 6, 16, "linear", "authors", cs.STREAM_VOCAB).exists()
    np.testing.assert_allclose(P, cs.cooccurrence(tiny, 6, 16, use_cache=False)[1])


def test_zipf_fit_by_hand_and_at_its_edges():
    counts = 1000.0 / np.arange(1, 21) ** 1.1
    slope, intercept = cs.zipf_fit(counts, 1, 20)
    assert slope == pytest.approx(-1.1) and intercept == pytest.approx(np.log(1000.0))
    # the defaults: ranks 10..10,000, capped at the length; rank 10 is the first one used
    bent = counts.copy()
    bent[:9] *= 7.0  # ranks 1..9 ignored by default
    assert cs.zipf_fit(bent)[0] == pytest.approx(-1.1)
    bent[9] *= 7.0
    assert cs.zipf_fit(bent)[0] != pytest.approx(-1.1)
    assert cs.zipf_fit(counts, 19, 20)[0] == pytest.approx(-1.1)  # two ranks are enough
    with pytest.raises(ValueError, match="lo must be below hi"):
        cs.zipf_fit(counts, 20, 20)
    with pytest.raises(ValueError, match="hi"):
        cs.zipf_fit(counts, 1, 1)
    zero = counts.copy()
    zero[14] = 0.0  # allowed in the table, not in the fitted range
    assert cs.zipf_fit(zero, 1, 14)[0] == pytest.approx(-1.1)
    with pytest.raises(ValueError, match=r"found 0\.0"):
        cs.zipf_fit(zero, 1, 20)
    small = counts.copy()
    small[-1] = 0.5  # a count below 1 is positive: its log is defined
    assert np.isfinite(cs.zipf_fit(small, 1, 20)[0])
    assert cs.zipf_fit(np.array([8, 4, 2, 1]), 1, 4)[0] == pytest.approx(
        np.polyfit(np.log([1, 2, 3, 4]), np.log([8, 4, 2, 1]), 1)[0]
    )


def test_cooccurrence_counts_are_float64_with_the_default_window():
    ids = np.array([0, 1, 2, 0, 1, 2, 3, 0] * 5, dtype=np.int64)
    C = cs.cooccurrence_counts(ids, 4)
    assert C.dtype == np.float64
    np.testing.assert_array_equal(C, cs.cooccurrence_counts(ids, 4, 16))
    assert not np.array_equal(C, cs.cooccurrence_counts(ids, 4, 17))  # the window matters here


def test_the_authors_oov_rule_applies_when_the_streamed_vocabulary_fits():
    """'authors' streams only the top stream_vocab words: when stream_vocab <= V every in-vocabulary word
    is streamed and nothing else is (as 'drop'), when stream_vocab > V the words between V and
    stream_vocab stay in the stream as gaps (unlike 'drop')."""
    ids = np.array([0, 5, 1, 0, 4, 1, 2, 5, 0, 3] * 6, dtype=np.int64)
    drop = cs.cooccurrence_counts(ids, 3, 2, oov="drop")
    np.testing.assert_array_equal(
        cs.cooccurrence_counts(ids, 3, 2, oov="authors", stream_vocab=3), drop
    )
    wide = cs.cooccurrence_counts(ids, 3, 2, oov="authors", stream_vocab=6)
    assert not np.array_equal(wide, drop)


def test_cooc_cache_path_lives_in_the_cooc_folder(tiny, data_env):
    p = cs.cooc_cache_path(tiny, 6, 3, "linear", "authors", cs.STREAM_VOCAB)
    assert p.parent == data_env / "cache" / "cooc"


def test_the_authors_rule_streams_only_its_top_words_when_they_fit():
    """stream_vocab < V: the 'authors' rule drops exactly what 'drop' drops (every word beyond V), keeping
    the words between stream_vocab and V (unlike streaming only the top stream_vocab words)."""
    ids = np.array([0, 5, 1, 0, 4, 1, 2, 5, 0, 3, 2, 2] * 6, dtype=np.int64)
    drop = cs.cooccurrence_counts(ids, 3, 2, oov="drop")
    np.testing.assert_array_equal(
        cs.cooccurrence_counts(ids, 3, 2, oov="authors", stream_vocab=2), drop
    )
    assert drop[2].sum() > 0  # word 2 (beyond stream_vocab = 2, within V = 3) is counted


def test_cooccurrence_passes_its_settings_on_and_reads_a_good_entry_silently(tiny, data_env):
    import warnings

    _, P_default, _ = cs.cooccurrence(tiny, 6, 3)
    _, P_drop, _ = cs.cooccurrence(tiny, 6, 3, oov="drop")
    assert not np.allclose(P_default, P_drop)  # oov reaches the counts
    _, P32, _ = cs.cooccurrence(tiny, 6, 3, dtype=np.float32)
    assert P32.dtype == np.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a good entry is read without being discarded as damaged
        _, C1, _ = cs.cooccurrence_table(tiny, 6, 3)
        _, C2, _ = cs.cooccurrence_table(tiny, 6, 3)
    np.testing.assert_array_equal(C1, C2)
    np.testing.assert_array_equal(
        cs.cooccurrence_table(tiny, 6)[1], cs.cooccurrence_table(tiny, 6, 16)[1]
    )
    before = sorted(p.name for p in (data_env / "cache" / "cooc").glob("*"))
    cs.cooccurrence_table(tiny, 5, 2, use_cache=False)
    assert (
        sorted(p.name for p in (data_env / "cache" / "cooc").glob("*")) == before
    )  # nothing written
    with pytest.raises(ValueError, match="weighting"):
        cs.cooccurrence_table(tiny, 6, 3, weighting="quadratic")


@pytest.mark.parametrize(
    "raw, want",
    [
        ("", None),
        ("  ", None),
        ("1e9", 10**9),
        ("2_000_000", 2_000_000),
        (" 8e9 ", 8 * 10**9),
        ("1", 1),
    ],
)
def test_table_limit_variable_parsed_in_process(monkeypatch, raw, want):
    """The same parsing as test_max_table_bytes_variable, in this process (a subprocess imports the
    library from the checkout, so mutation testing could not see it)."""
    monkeypatch.setenv("QWEM_MAX_TABLE_BYTES", raw)
    assert cs._env_table_limit() == want


@pytest.mark.parametrize("raw", ["lots", "-5", "0", "0.5", "1.5e0", "nan", "inf", "1e9x"])
def test_table_limit_variable_refuses_what_is_not_a_positive_whole_number(monkeypatch, raw):
    monkeypatch.setenv("QWEM_MAX_TABLE_BYTES", raw)
    with pytest.raises(
        ValueError, match=rf"^QWEM_MAX_TABLE_BYTES={raw!r} must be a positive whole number"
    ):
        cs._env_table_limit()


def test_count_table_edges():
    """Two in-vocabulary tokens are enough to count; fewer are refused; a chunk of one token and chunks
    of any size give the same table; the table is exact in int32 or int64 alike."""
    ids = np.array([0, 1], dtype=np.int64)
    C = cs.cooccurrence_counts(ids, 2, 1, oov="skip")
    assert C[0, 1] == C[1, 0] == 1.0
    with pytest.raises(DataError, match="fewer than two in-vocabulary tokens"):
        cs.cooccurrence_counts(np.array([0, 5, 6], dtype=np.int64), 2, 1, oov="drop")
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 8, 500)
    ref = cs.cooccurrence_counts(ids, 6, 3)
    for chunk in (1, 7, 499, 10**6):
        np.testing.assert_array_equal(cs.cooccurrence_counts(ids, 6, 3, chunk=chunk), ref)
    with pytest.raises(DataError, match="has no pair"):
        cs.cooccurrence_counts(np.array([0], dtype=np.int64), 2, 1)
    assert (
        cs.cooccurrence_counts(np.array([0, 1], dtype=np.int64), 2, 1).sum() == 2.0
    )  # two tokens: a pair


def test_zipf_fit_edges():
    r = np.arange(1, 12_001, dtype=float)
    counts = (
        1e6 * r**-1.1 * (1 + 0.05 * np.sin(r))
    )  # not an exact power law: the fitted range matters
    assert cs.zipf_fit(counts) == cs.zipf_fit(counts, 10, 10_000)  # the documented defaults
    assert cs.zipf_fit(counts, 1, 2)[0] == pytest.approx(np.log(counts[1] / counts[0]) / np.log(2))
    bad = counts.copy()
    bad[9] = 0.0  # a zero count at rank lo itself is refused
    with pytest.raises(ValueError, match=r"finite and positive.*found 0\.0"):
        cs.zipf_fit(bad, 10, 100)
    bad[9], bad[10] = 0.5, 0.0  # the value reported is the offending one, not merely a small one
    with pytest.raises(ValueError, match=r"found 0\.0"):
        cs.zipf_fit(bad, 10, 100)


def test_check_table_size_limits_messages_and_fallback(monkeypatch):
    """The limit is QWEM_MAX_TABLE_BYTES when set, else 80% of the machine's memory, else 8 GiB where the
    memory cannot be read; a table exactly at the limit is allowed; the message gives both sizes in GiB."""
    monkeypatch.setattr(cs, "MAX_TABLE_BYTES", None)
    monkeypatch.setenv("QWEM_MAX_TABLE_BYTES", "1000000")
    cs.check_table_size(250, 16)  # 1,000,000 bytes: exactly the limit (one copy by default)
    with pytest.raises(MemoryError):
        cs.check_table_size(250, 16, copies=2)
    with pytest.raises(
        MemoryError,
        match=r"^a 400 x 400 co-occurrence table needs 0\.00119 GiB, more than the 0\.000931 GiB this "
        r"machine allows \(set by QWEM_MAX_TABLE_BYTES\)\. Choose a smaller V\.$",
    ):
        cs.check_table_size(400, 8)
    monkeypatch.delenv("QWEM_MAX_TABLE_BYTES")
    mem = 0.8 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    V = int(math.sqrt(mem / 8))
    cs.check_table_size(V - 1, 8)
    with pytest.raises(
        MemoryError, match=r"\(80% of its memory; override with QWEM_MAX_TABLE_BYTES\)"
    ):
        cs.check_table_size(V + 2, 8)

    def no_sysconf(name):
        raise ValueError(name)

    monkeypatch.setattr(cs.os, "sysconf", no_sysconf)
    cs.check_table_size(2**15, 8)  # 8 GiB exactly: the fallback limit
    with pytest.raises(MemoryError, match=r"more than the 8 GiB"):
        cs.check_table_size(2**15 + 1, 8)


def test_small_argument_edges_of_the_counts():
    ids = np.array([0, 1, 0, 1, 2, 0], dtype=np.int64)
    C = cs.cooccurrence_counts(
        ids, 2, 1, oov="authors", stream_vocab=1
    )  # the smallest stream vocabulary
    assert C.shape == (2, 2)
    with pytest.raises(ValueError, match="^weighting"):
        cs.cooccurrence_counts(ids, 2, 1, weighting="cubic")
    with pytest.raises(ValueError, match="^window"):
        cs.offset_weights(0, "linear")


def test_as_token_ids_types_at_their_edges():
    """An empty list or an empty object array is an empty id stream; a non-empty object array, an empty
    string array and strings are refused; integer-valued floats are converted; a uint64 id of 2⁶³ or more
    is refused, and messages name the argument and the offending value."""
    assert cs.as_token_ids([]).dtype == np.int64 and cs.as_token_ids([]).size == 0
    assert cs.as_token_ids(np.array([], dtype=object)).dtype == np.int64
    for bad in (
        np.array([1, 2], dtype=object),
        np.array([3], dtype=object),
        np.array([], dtype="U1"),
    ):
        with pytest.raises(TypeError, match="^ids must hold integer token ids"):
            cs.as_token_ids(bad)
    np.testing.assert_array_equal(cs.as_token_ids(np.array([2.0, 0.0])), [2, 0])
    with pytest.raises(ValueError, match=r"non-integer values \(e\.g\. 1\.5\)"):
        cs.as_token_ids(np.array([2.0, 1.5]))
    big = np.array([2**63], dtype=np.uint64)
    with pytest.raises(ValueError, match="beyond any token id"):
        cs.as_token_ids(big)
    ok = cs.as_token_ids(np.array([2**62, 5], dtype=np.uint64))
    assert ok.dtype == np.int64 and ok[0] == 2**62
    assert cs.as_token_ids(np.array([7, 1], dtype=np.uint32)).tolist() == [
        7,
        1,
    ]  # other unsigned kept
    with pytest.raises(ValueError, match="^ids must be a 1-D"):
        cs.as_token_ids(np.zeros((2, 2), dtype=np.int64))
