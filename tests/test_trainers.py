"""Unit tests for qwem_lib.qwem.trainers (minibatch SGD on sampled pairs): determinism, the learning-rate
schedule and time, convergence towards svd(M*), the cache, logging, and validation of hyper-parameters."""

from __future__ import annotations

import numpy as np
import pytest
from corpora import tiny_corpus

import qwem_lib as tr
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
