"""Unit tests for qwem_lib.qwem.trainers (minibatch SGD on sampled pairs): determinism, the learning-rate
schedule and time, convergence towards svd(M*), the cache, logging, and validation of hyper-parameters."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from corpora import register_text, tiny_corpus, zipf_text

import qwem_lib as tr
from qwem_lib import data
from qwem_lib.data import Corpus, DataError
from qwem_lib.qwem.corpus_stats import cooccurrence


# -- the trainer ---------------------------------------------------------------------------------
def _train(c, **kw):
    args = dict(
        steps=30,
        lr=0.05,
        batch=500,
        init_scale=0.1,
        window=4,
        stream_vocab=9,
        use_cache=False,
        progress=False,
        device="cpu",
        n_logs=5,
    )
    args.update(kw)
    return tr.train_pairs(c, 6, 2, **args)


def test_determinism_under_seed():
    c = tiny_corpus()
    r1, r2, r3 = _train(c, seed=4), _train(c, seed=4), _train(c, seed=5)
    np.testing.assert_array_equal(r1.W, r2.W)
    np.testing.assert_array_equal(r1.sv, r2.sv)
    assert not np.array_equal(r1.W, r3.W)
    assert r1.steps[0] == 0 and r1.steps[-1] == 30
    np.testing.assert_allclose(r1.times, 2 * 0.05 * r1.steps)  # t = 2 Σ η


def test_learning_rate_schedule_and_time():
    np.testing.assert_allclose(tr.sgd_time([0.1, 0.1, 0.01]), [0.2, 0.4, 0.42])
    c = tiny_corpus()
    r = _train(c, decay_at=0.5, decay_factor=0.1, log_steps=[0, 15, 30])
    np.testing.assert_allclose(r.times, [0.0, 1.5, 1.65])


def test_qwem_sgd_approaches_svd_mstar():
    """On the tiny corpus, SGD from small init ends near the top-d eigenspace of M* with s_k² ≈ λ_k."""
    c = tiny_corpus(n=20000)
    V, d = 6, 2
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    lam, Q = np.linalg.eigh(M)
    lam, Q = lam[::-1], Q[:, ::-1]
    assert lam[1] > lam[2] > 0 or lam[1] > 0
    r = tr.train_pairs(
        c,
        V,
        d,
        steps=1500,
        lr=0.1 / lam[0],
        batch=4000,
        init_scale=1e-3,
        decay_at=0.6,
        window=4,
        stream_vocab=9,
        use_cache=False,
        progress=False,
        device="cpu",
        reference=Q[:, :d],
        n_logs=10,
    )
    np.testing.assert_allclose(r.sv[-1] ** 2, lam[:d], rtol=0.1)
    assert r.cosines[-1].min() > 0.95


def test_cache_roundtrip(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    from qwem_lib import data

    c = tiny_corpus()
    monkeypatch.setattr(data, "dataset", lambda name: (_ for _ in ()).throw(DataError("ad hoc")))
    r1 = _train(c, use_cache=True)
    r2 = _train(c, use_cache=True)
    assert not r1.cached and r2.cached
    np.testing.assert_array_equal(r1.W, r2.W)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(lr=-0.1), "learning rate"),
        (dict(lr=float("nan")), "learning rate"),
        (dict(d=7), "exceeds the vocabulary"),
        (dict(d=0), "d must be"),
        (dict(steps=0), "steps"),
        (dict(batch=0), "batch"),
        (dict(init_scale=0.0), "init_scale"),
        (dict(decay_at=1.5), "decay_at"),
        (dict(model="glove"), "model"),
        (dict(k=0, model="sgns"), "negatives"),
    ],
)
def test_bad_hyperparameters_rejected(kw, msg):
    c = tiny_corpus()
    d = kw.pop("d", 2)
    args = dict(steps=5, lr=0.1, batch=10, use_cache=False, progress=False, device="cpu")
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        tr.train_pairs(c, 6, d, **args)


def test_empty_corpus_rejected():
    empty = Corpus("empty", np.zeros(0, dtype=np.int32), ["a", "b"], np.array([0, 0]))
    with pytest.raises(DataError, match="empty"):
        tr.train_pairs(empty, 2, 1, steps=1, lr=0.1, progress=False, use_cache=False)
    with pytest.raises(DataError):
        tr.make_sampler(np.array([0, 1], dtype=np.int32), 2, window=4)


def test_logged_overlaps_and_nested_sines():
    c = tiny_corpus()
    rng = np.random.default_rng(5)
    ref, _ = np.linalg.qr(rng.standard_normal((6, 3)))
    r = _train(c, reference=ref, init_scale=1.0)
    assert r.overlap.shape == (len(r.steps), 3, 2) and r.cosines.shape == (len(r.steps), 2)
    U = np.linalg.svd(r.W.astype(np.float64), full_matrices=False)[0]
    np.testing.assert_allclose(np.abs(r.overlap[-1]), np.abs(ref.T @ U), atol=1e-5)
    np.testing.assert_allclose(r.cosines[-1], tr.principal_cosines(r.W, ref[:, :2]), atol=1e-5)
    ns = tr.nested_subspace_sines(r.overlap)
    assert ns.shape == (len(r.steps), 2) and np.all((ns >= 0) & (ns <= 1))
    np.testing.assert_allclose(
        ns[-1, 1], np.sqrt(1 - tr.principal_cosines(r.W, ref[:, :2]).min() ** 2), atol=1e-4
    )
    np.testing.assert_allclose(r.W0, _train(c, reference=ref, init_scale=1.0).W0)


def test_mixed_runs_train_and_cache_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    c = tiny_corpus()
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    kap = np.linalg.eigvalsh(
        tr.growth_matrix(P, pu, loss="quartic", reweighting="word2vec", sample=0.05)
    )[-1]
    lr = 0.05 / kap
    r1 = _train(c, loss="quartic", reweighting="word2vec", lr=lr, sample=0.05, use_cache=True)
    assert r1.config["model"] == "quartic-word2vec" and np.all(np.isfinite(r1.W))
    r2 = _train(c, loss="quartic", reweighting="word2vec", lr=lr, sample=0.05, use_cache=True)
    assert r2.cached and np.array_equal(r1.W, r2.W)
    r3 = _train(c, loss="logistic", reweighting="word2vec", lr=lr, sample=0.05, use_cache=True)
    assert not r3.cached and r3.config["model"] == "sgns"
    np.testing.assert_array_equal(r1.W0, r3.W0)  # same seed: same W(0) whatever the loss
    with pytest.raises(ValueError, match="loss must be one of"):
        _train(c, loss="hinge")


# -- inputs, caches and faults ------------------------------------------------------------------


@pytest.fixture
def corpus(data_env):
    register_text(data_env, "hard_train", zipf_text(types=12, seed=9))
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
