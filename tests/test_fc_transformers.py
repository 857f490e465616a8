"""Transformers of Appendix A.3-A.4 (qwem_lib.fc.transformers): shapes, causal masking, determinism."""

import numpy as np
import pytest
import torch

from qwem_lib import config, fc
from qwem_lib.fc import transformers as tf


def test_causal_mask_is_lower_triangular():
    m = tf.causal_mask(4)
    assert m.shape == (4, 4)
    assert torch.all(m[torch.tril(torch.ones(4, 4, dtype=bool))] == 0)
    assert torch.all(torch.isinf(m[~torch.tril(torch.ones(4, 4, dtype=bool))]))
    with pytest.raises(ValueError):
        tf.causal_mask(0)


def test_classifier_shapes_uses_torch_modules_and_validates():
    torch.manual_seed(0)
    net = tf.FCTransformerClassifier(nw=12, L=5, K=7, d_model=16, n_heads=4, n_layers=2)
    assert isinstance(net.body.encoder, torch.nn.TransformerEncoder)
    x = torch.randint(0, 12, (3, 5))
    assert net(x).shape == (3, 7)
    assert net.word_embeddings().shape == (12, 16)
    assert net.body.tok.weight.shape == (13, 16)  # 12 words + the classification token
    assert abs(net.body.tok.weight.std().item() - 0.02) < 0.005  # GPT-2 initialisation
    with pytest.raises(ValueError):
        net(torch.randint(0, 12, (3, 4)))
    with pytest.raises(ValueError, match="divisible"):
        tf.FCTransformerClassifier(nw=12, L=5, K=7, d_model=10, n_heads=4)
    with pytest.raises(ValueError):
        tf.FCTransformerClassifier(nw=12, L=5, K=1, d_model=16, n_heads=4)


def test_classifier_attends_to_every_word():
    """Bidirectional: the class scores (read at the last token) depend on the first word."""
    torch.manual_seed(0)
    net = tf.FCTransformerClassifier(nw=12, L=5, K=7, d_model=16, n_heads=4).eval()
    x = torch.randint(0, 12, (1, 5))
    x2 = x.clone()
    x2[0, 0] = (x[0, 0] + 1) % 12
    assert not torch.allclose(net(x), net(x2))


def test_language_model_is_causal_and_tied():
    torch.manual_seed(0)
    lm = tf.FCTransformerLM(nw=12, L=6, d_model=16, n_heads=4, n_layers=2).eval()
    x = torch.randint(0, 12, (2, 6))
    out = lm(x)
    assert out.shape == (2, 6, 12)
    for t in range(6):  # changing token t moves no logit before t
        x2 = x.clone()
        x2[:, t] = (x[:, t] + 5) % 12
        out2 = lm(x2)
        assert torch.allclose(out[:, :t], out2[:, :t], atol=1e-5)
        assert not torch.allclose(out[:, t:], out2[:, t:], atol=1e-5)
    # tied head: the logits are the final representations times the embedding table
    h = lm.body(x, causal=True)
    assert torch.allclose(out, h @ lm.body.tok.weight.T)
    # a reference attention with an explicit lower-triangular boolean mask gives the same first layer
    assert torch.equal(tf.causal_mask(6) == 0, torch.tril(torch.ones(6, 6, dtype=bool)))


def test_train_transformer_learns_is_deterministic_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    t = fc.make_task(3, 12, 4, 5, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=40, n_test=20, seed=1)
    cfg = tf.TransformerTrainConfig(
        task="classify", epochs=8, d_model=16, n_heads=2, n_layers=1, lr=3e-3, batch=20
    )
    r1 = tf.train_transformer(d, cfg, n_evals=4, progress=False, cache=False)
    r2 = tf.train_transformer(d, cfg, n_evals=4, progress=False, cache=False)
    assert np.array_equal(r1.embeddings, r2.embeddings)  # same seed, same data: same weights
    assert r1.embeddings.shape == (12, 16)
    assert r1.history["step"][-1] == 8 * 10 and len(r1.history["step"]) == 5
    assert r1.test_acc > 0.9 > r1.history["test_acc"][0]
    r3 = tf.train_transformer(d, cfg, n_evals=4, progress=False)
    r4 = tf.train_transformer(d, cfg, n_evals=4, progress=False)
    assert r4.cached and np.array_equal(r3.embeddings, r4.embeddings)
    lm = tf.train_transformer(
        d,
        tf.TransformerTrainConfig(
            task="next_token", epochs=2, d_model=16, n_heads=2, n_layers=1, batch=20, seed=1
        ),
        n_evals=2,
        progress=False,
        cache=False,
    )
    assert lm.embeddings.shape == (12, 16) and np.isfinite(lm.history["test_loss"]).all()


def test_transformer_config_validation():
    with pytest.raises(ValueError, match="task"):
        tf.TransformerTrainConfig(task="regress", epochs=1)
    with pytest.raises(ValueError):
        tf.TransformerTrainConfig(task="classify", epochs=0)
    with pytest.raises(ValueError):
        tf.TransformerTrainConfig(task="classify", epochs=1, n_train=0)


def test_snapshots_initialisation_and_decoupled_decay(tmp_path, monkeypatch):
    """A word that never occurs gets no gradient, so AdamW's decoupled decay alone acts on its
    embedding: after training it is exactly ``decay_factor`` times its initial value (checked by a
    plain loop of the per-step factor), and its learned displacement is zero."""
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    t = fc.make_task(3, 30, 4, 5, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=2, n_test=4, seed=1)
    cfg = tf.TransformerTrainConfig(
        task="classify",
        epochs=3,
        d_model=8,
        n_heads=2,
        n_layers=1,
        lr=1e-2,
        batch=5,
        weight_decay=0.5,
    )
    r = tf.train_transformer(d, cfg, n_evals=3, progress=False)
    torch.manual_seed(config.SEED + cfg.seed)  # the trainer's seeding: the same initial model
    fresh = tf.FCTransformerClassifier(30, 4, 5, 8, 2, 1).word_embeddings()
    np.testing.assert_array_equal(r.init_embeddings, fresh)
    assert r.snapshots.shape == (4, 30, 8)
    np.testing.assert_allclose(r.snapshots[0], r.init_embeddings, rtol=1e-6)
    np.testing.assert_allclose(r.snapshots[-1], r.embeddings, rtol=1e-6)
    factor = 1.0
    for _ in range(int(r.history["step"][-1])):
        factor *= 1.0 - cfg.lr * cfg.weight_decay
    assert r.decay_factor == pytest.approx(factor, rel=1e-12)
    unseen = fc.word_counts(d) == 0
    assert unseen.any() and (~unseen).any()
    np.testing.assert_allclose(r.embeddings[unseen], factor * r.init_embeddings[unseen], rtol=1e-4)
    assert np.abs(r.displacement()[unseen]).max() < 1e-4 * np.abs(r.init_embeddings).max()
    assert np.abs(r.displacement()[~unseen]).max() > 1e-3
    # the factor at every snapshot: an unseen word's embedding is that factor times its start there too
    deltas = r.snapshot_decay_factors()
    assert (
        deltas.shape == (4,) and deltas[0] == 1.0 and deltas[-1] == pytest.approx(factor, rel=1e-12)
    )
    for S, delta in zip(r.snapshots, deltas, strict=True):
        np.testing.assert_allclose(S[unseen], delta * r.init_embeddings[unseen], rtol=1e-4)
    r2 = tf.train_transformer(d, cfg, n_evals=3, progress=False)
    assert r2.cached and np.array_equal(r2.snapshots, r.snapshots)
