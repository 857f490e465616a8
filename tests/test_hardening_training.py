"""Issue 27, section 4, for ``qwem_lib.qwem.trainers`` and ``qwem_lib.qwem.pairs``: the cache key of
``train_pairs`` (every keyed input
changes the result, ``stats=`` included), the corpus fingerprint, word2vec's subsampling, bad inputs."""

from __future__ import annotations

import hashlib
import lzma

import numpy as np
import pytest

from qwem_lib import data
from qwem_lib.data import Dataset, FileSpec


def _register(root, name, text):
    rel = f"corpus/{name}.txt.xz"
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(lzma.compress(text.encode()))
    spec = FileSpec(rel, hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_size)
    return data.register(Dataset(name, "corpus", "test", (spec,)))


def _zipf_text(n=3000, types=12, seed=9):
    rng = np.random.default_rng(seed)
    vocab = [f"w{chr(97 + i)}" for i in range(types)]
    p = 1.0 / np.arange(1, types + 1)
    return " " + " ".join(vocab[i] for i in rng.choice(types, size=n, p=p / p.sum()))


@pytest.fixture
def corpus(data_env):
    _register(data_env, "hard_train", _zipf_text())
    return data.load_corpus("hard_train")


def _run(**kw):
    from qwem_lib import train_pairs

    base = dict(
        V=6, d=2, steps=4, lr=0.05, batch=64, n_logs=2, progress=False, device="cpu", init_scale=0.1
    )
    return train_pairs("hard_train", **{**base, **kw})


def _same(a, b) -> bool:
    return a.W.shape == b.W.shape and np.array_equal(a.W, b.W) and np.array_equal(a.sv, b.sv)


def test_train_pairs_cache_key_has_every_input(corpus):
    from qwem_lib.qwem.corpus_stats import cooccurrence

    _, P, pu = cooccurrence(corpus, 6, 16)
    P2 = P.copy()
    P2[0, 1] = P2[1, 0] = P[0, 1] * 1.5  # other statistics: the QWEM run's Ψ and targets change
    P2 /= P2.sum()
    ref = np.linalg.qr(np.random.default_rng(0).standard_normal((6, 2)))[0]
    qwem = [
        ("seed", 1),
        ("V", 7),
        ("d", 3),
        ("steps", 5),
        ("lr", 0.04),
        ("batch", 65),
        ("init_scale", 0.2),
        ("window", 4),
        ("oov", "drop"),
        ("stream_vocab", 8),
        ("estimator", "sampled"),
        ("stats", (P2, pu)),
        ("dtype", "float32"),
        ("model", "sgns"),
        ("loss", "logistic"),
    ]
    sgns = [("k", 2), ("sample", 1e-2), ("power", 1.0), ("reweighting", "setting31")]
    decayed = [("decay_factor", 0.5)]
    for extra, variants in (
        ({}, qwem),
        ({"model": "sgns", "sample": 1e-3}, sgns),
        ({"decay_at": 0.5}, decayed + [("decay_at", 0.75)]),
    ):
        first = _run(**extra)
        assert _same(_run(**extra), first) and _run(**extra).cached
        for key, value in variants:
            import torch

            if key == "dtype":
                value = torch.float32
            kw = {**extra, key: value}
            fresh = _run(**kw, use_cache=False)
            assert not _same(fresh, first), key  # the test can tell
            cached = _run(**kw)
            assert not cached.cached and _same(cached, fresh), f"changing {key} hit a stale entry"
            again = _run(**kw)
            assert again.cached and _same(again, fresh), key
    # the logged steps and the reference basis are keyed too
    for kw in ({"log_steps": [0, 1, 4]}, {"reference": ref}):
        fresh = _run(**kw, use_cache=False)
        assert _same(_run(**kw), fresh) and _run(**kw).cached


def test_a_corpus_reusing_a_registered_name_is_keyed_by_all_its_ids(corpus):
    """Only ids[:4096] used to be hashed: a Corpus named like a registered one, equal to it on its first
    4,096 tokens, got the registered corpus's cached counts, embeddings and runs."""
    from qwem_lib import train_pairs
    from qwem_lib.data import Corpus
    from qwem_lib.qwem.corpus_stats import cooccurrence_table

    ids = np.asarray(corpus.ids)
    other_ids = np.concatenate([ids, ids[:1500]])  # longer: same first 4,096 ids only if n > 4096
    other_ids[-700:] = other_ids[-700:][::-1]
    other_ids = np.concatenate([np.tile(ids, 2)[:4096], other_ids[-1500:]])
    n = other_ids.size
    same_start = Corpus("hard_train", np.tile(ids, 2)[:n].copy(), corpus.words, corpus.counts)
    differ = Corpus("hard_train", other_ids.astype(np.int32), corpus.words, corpus.counts)
    assert np.array_equal(same_start.ids[:4096], differ.ids[:4096])
    assert not np.array_equal(same_start.ids, differ.ids)
    assert same_start.fingerprint() != differ.fingerprint()
    assert corpus.fingerprint() == hashlib.sha256(ids[:4096].tobytes()).hexdigest()[:8]
    _, C1, _ = cooccurrence_table(same_start, 6, 4)
    _, C2, _ = cooccurrence_table(differ, 6, 4)
    _, C2ref, _ = cooccurrence_table(differ, 6, 4, use_cache=False)
    assert np.array_equal(C2, C2ref) and not np.array_equal(C1, C2)
    kw = dict(steps=2, lr=0.05, batch=32, n_logs=1, progress=False, device="cpu")
    r1 = train_pairs(same_start, 6, 2, **kw)
    r2 = train_pairs(differ, 6, 2, **kw)
    assert not r2.cached and not np.array_equal(r1.W, r2.W)


def test_subsampling_keep_matches_gensim_formula():
    """ρ = √(t/P) + t/P (word2vec), the same as gensim's keep probability on counts."""
    from qwem_lib import subsampling_keep
    from qwem_lib.qwem.w2v import subsample_keep_probability

    counts = np.array([5000.0, 800.0, 120.0, 30.0, 7.0, 1.0])
    P = counts / counts.sum()
    for t in (1e-5, 1e-3, 2e-2):
        assert np.allclose(
            subsampling_keep(P, t), subsample_keep_probability(counts, t), rtol=1e-12
        )
    assert subsampling_keep(np.array([1e-3]), 1e-5)[0] == pytest.approx(0.11, rel=1e-12)


def test_train_pairs_bad_inputs(corpus):
    import torch

    from qwem_lib import train_pairs

    kw = dict(steps=2, batch=16, n_logs=1, progress=False, use_cache=False)
    r = train_pairs("hard_train", 6, 2, lr=np.float32(0.01), device="cpu", **kw)  # a NumPy scalar
    assert r.W.shape == (6, 2)
    with pytest.raises(ValueError, match="learning rate"):
        train_pairs("hard_train", 6, 2, lr=True, device="cpu", **kw)
    with pytest.raises(ValueError, match="window"):
        train_pairs("hard_train", 6, 2, lr=0.01, window=True, device="cpu", **kw)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="device='cuda'"):
            train_pairs("hard_train", 6, 2, lr=0.01, device="cuda", **kw)
    with pytest.raises(ValueError, match="device="):
        train_pairs("hard_train", 6, 2, lr=0.01, device="nonsense", **kw)
