"""Unit tests for qwem_lib.fc: data model, networks, trainer, collapse metrics."""

import numpy as np
import pytest
import torch

from qwem_lib import fc


# ---------------------------------------------------------------- data model
def test_mu_vectors():
    assert np.allclose(fc.uniform_mu(4), 0.25)
    z = fc.zipf_mu(400)
    assert z.sum() == pytest.approx(1.0)
    assert np.all(np.diff(z) < 0)
    assert z[0] / z[9] == pytest.approx(10.0)
    with pytest.raises(ValueError):
        fc.zipf_mu(0)
    with pytest.raises(ValueError):
        fc.zipf_mu(5, exponent=-1)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(nc=3, nw=100, L=5, K=10), "divisible"),
        (dict(nc=3, nw=12, L=0, K=10), "L must"),
        (dict(nc=3, nw=12, L=5, K=0), "K must"),
        (dict(nc=3, nw=12, L=5, K=10, mu=[0.5, 0.5, 0.5, 0.5]), "sum to 1"),
        (dict(nc=3, nw=12, L=5, K=10, mu=[0.5, 0.5, 0.5, -0.5]), "non-negative"),
        (dict(nc=3, nw=12, L=5, K=10, mu=[0.5, 0.5]), "length"),
        (dict(nc=3, nw=12, L=5, K=10, mu="pareto"), "uniform"),
        (dict(nc=2, nw=4, L=2, K=5), "distinct"),
        (dict(nc=1, nw=4, L=2, K=1), "nc must"),
    ],
)
def test_make_task_rejects_bad_input(kw, msg):
    with pytest.raises(ValueError, match=msg):
        fc.make_task(**kw)


def test_task_layout_and_seeding():
    t = fc.make_task(3, 12, 5, 20, "zipf", seed=3)
    assert t.sc == 4 and t.latents.shape == (20, 5)
    assert t.latents.min() >= 0 and t.latents.max() <= 2
    assert len({tuple(r) for r in t.latents}) == 20  # distinct latent variables
    t2 = fc.make_task(3, 12, 5, 20, "zipf", seed=3)
    assert np.array_equal(t.latents, t2.latents) and t.fingerprint() == t2.fingerprint()
    assert t.fingerprint() != fc.make_task(3, 12, 5, 20, "uniform", seed=3).fingerprint()
    assert np.array_equal(fc.word_concepts(t), np.repeat(np.arange(3), 4))
    assert np.array_equal(fc.u_concepts(t), t.latents.reshape(-1))


def test_sentences_follow_latents_and_frequencies():
    t = fc.make_task(3, 30, 6, 40, "zipf", seed=0)
    x, y = fc.sample_sentences(t, 500, seed=1)
    assert x.shape == (40 * 500, 6) and y.shape == (40 * 500,)
    assert np.array_equal(x // t.sc, t.latents[y])  # each word belongs to its concept
    freq = np.bincount((x % t.sc).ravel(), minlength=t.sc) / x.size
    assert np.abs(freq - t.mu).max() < 0.01  # 120k draws: error ~ 1e-3
    x2, _ = fc.sample_sentences(t, 500, seed=1)
    assert np.array_equal(x, x2)
    with pytest.raises(ValueError):
        fc.sample_sentences(t, 0)


def test_dataset_train_test_independent():
    t = fc.make_task(3, 30, 6, 40, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=4, n_test=5, seed=2)
    assert d.x_train.shape == (160, 6) and d.x_test.shape == (200, 6)
    assert not np.array_equal(d.x_train[:160], d.x_test[:160])
    assert d.fingerprint() == fc.make_dataset(t, nspl=4, n_test=5, seed=2).fingerprint()
    with pytest.raises(ValueError):
        fc.make_dataset(t, nspl=4, n_test=0)


# ---------------------------------------------------------------- networks
def test_network_shapes_init_and_layernorm():
    torch.manual_seed(0)
    net = fc.FCNet(nw=12, d=8, L=5, K=7)
    x = torch.randint(0, 12, (3, 5))
    assert net(x).shape == (3, 7)
    assert net.u().shape == (7, 5, 8)
    assert net.embed.weight.std().item() < 5e-3  # default N(0,1) / 1000
    assert net.linear.weight.abs().max().item() <= 1e-3 / np.sqrt(40) + 1e-12
    # u_{k,l} is the block of U that multiplies the l-th embedding
    e = net.embed(x)
    manual = torch.einsum("kld,bld->bk", torch.as_tensor(net.u(), dtype=torch.float32), e)
    assert torch.allclose(manual, net(x), atol=1e-12)
    ln = fc.FCNet(nw=12, d=8, L=5, K=7, layer_norm=True, init_scale=1.0)
    f = ln.word_features()
    assert np.allclose(f.mean(1), 0, atol=1e-6)
    assert np.allclose(np.linalg.norm(f, axis=1), np.sqrt(8), rtol=1e-3)  # LN => norm sqrt(d)
    with pytest.raises(ValueError):
        fc.FCNet(nw=0, d=8, L=5, K=7)


def test_torch_weight_decay_is_the_papers_lambda():
    """One SGD step with weight_decay=lam equals a gradient step on CE + lam/2 ||W||^2 + lam/2 ||U||^2."""
    torch.manual_seed(1)
    net = fc.FCNet(nw=12, d=4, L=3, K=5, init_scale=1.0)
    x = torch.randint(0, 12, (10, 3))
    y = torch.randint(0, 5, (10,))
    lam_w, lam_u, lr = 0.3, 0.7, 0.1
    W0, U0 = net.embed.weight.detach().clone(), net.linear.weight.detach().clone()
    risk = (
        torch.nn.functional.cross_entropy(net(x), y)
        + lam_w / 2 * net.embed.weight.pow(2).sum()
        + lam_u / 2 * net.linear.weight.pow(2).sum()
    )
    gW, gU = torch.autograd.grad(risk, [net.embed.weight, net.linear.weight])
    opt = torch.optim.SGD(
        [
            {"params": [net.embed.weight], "weight_decay": lam_w},
            {"params": [net.linear.weight], "weight_decay": lam_u},
        ],
        lr=lr,
    )
    opt.zero_grad()
    torch.nn.functional.cross_entropy(net(x), y).backward()
    opt.step()
    assert torch.allclose(net.embed.weight, W0 - lr * gW, atol=1e-6)
    assert torch.allclose(net.linear.weight, U0 - lr * gU, atol=1e-6)


# ---------------------------------------------------------------- trainer
def test_train_learns_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    t = fc.make_task(3, 30, 6, 12, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=20, seed=1)
    cfg = fc.FCTrainConfig(
        epochs=30, d=8, layer_norm=True, wd_W=0.0, lr=0.1, batch=20, eval_every=10, seed=0
    )
    r = fc.train_fc(d, cfg, device="cpu", progress=False)
    assert not r.cached
    assert list(r.history["epoch"]) == [0, 10, 20, 30]
    assert r.history["test_acc"][0] < 0.5 and r.test_acc > 0.9  # chance is 1/12
    assert r.features.shape == (30, 8) and r.U.shape == (12, 6, 8)
    r2 = fc.train_fc(d, cfg, device="cpu", progress=False)
    assert (
        r2.cached
        and np.array_equal(r.U, r2.U)
        and np.array_equal(r.history["test_acc"], r2.history["test_acc"])
    )
    r3 = fc.train_fc(d, cfg, device="cpu", progress=False, cache=False)  # seeded: same numbers
    assert np.allclose(r.U, r3.U)


def test_train_config_validation():
    with pytest.raises(ValueError):
        fc.FCTrainConfig(epochs=0)
    with pytest.raises(ValueError):
        fc.FCTrainConfig(epochs=1, lr=0)
    with pytest.raises(ValueError):
        fc.FCTrainConfig(epochs=1, wd_U=-1)


# ---------------------------------------------------------------- metrics
def _simplex(nc, d, rng):
    Q, _ = np.linalg.qr(rng.standard_normal((d, nc)))
    E = np.eye(nc) - 1.0 / nc
    F = E @ Q.T
    return F / np.linalg.norm(F, axis=1, keepdims=True)


def test_collapse_metrics_on_exact_configurations():
    rng = np.random.default_rng(0)
    F = _simplex(4, 10, rng)
    labels = np.repeat(np.arange(4), 5)
    X = 1.7 * F[labels]
    assert fc.collapse_ratio(X, labels) == pytest.approx(0.0, abs=1e-12)
    means = fc.concept_means(X, labels)
    assert np.allclose(fc.concept_mean_angles(means), fc.simplex_angle(4))
    assert fc.simplex_angle(3) == pytest.approx(120.0)
    sv = fc.top_singular_values(X, 5)
    assert sv[2] > 1e-6 and sv[3] < 1e-10  # nc - 1 = 3 directions
    assert np.allclose(fc.word_norms(X), 1.7)
    # type-III: directions collapse, norms do not
    r = rng.uniform(0.2, 2.0, size=20)
    X3 = r[:, None] * F[labels]
    assert np.allclose(fc.direction_cosines(X3, labels), 1.0)
    assert fc.collapse_ratio(X3, labels) > 0.05
    coords, s = fc.pca_2d(X)
    assert coords.shape == (20, 2) and s.shape[0] == 10
    # noise breaks collapse
    Xn = X + rng.standard_normal(X.shape)
    assert fc.collapse_ratio(Xn, labels) > 0.2


def test_metrics_reject_bad_input():
    with pytest.raises(ValueError):
        fc.collapse_ratio(np.ones((4, 2)), np.zeros(4))  # one group
    with pytest.raises(ValueError):
        fc.collapse_ratio(np.ones((4, 2)), np.zeros(3))  # wrong label length
    with pytest.raises(ValueError):
        fc.simplex_angle(1)
    with pytest.raises(ValueError):
        fc.concept_mean_angles(np.zeros((3, 2)))
    with pytest.raises(ValueError):
        fc.top_singular_values(np.ones(3))
    with pytest.raises(ValueError):
        fc.pca_2d(np.ones((1, 3)))


def test_word_counts():
    t = fc.make_task(3, 30, 6, 40, "zipf", seed=0)
    d = fc.make_dataset(t, nspl=3, seed=1)
    c = fc.word_counts(d)
    assert c.shape == (30,) and c.sum() == d.x_train.size
    assert c[0] > c[9]  # rank 0 of concept 0 is far more frequent than rank 9


def test_train_restores_threads_and_rejects_bad_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    t = fc.make_task(3, 12, 4, 6, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=4, seed=1)
    cfg = fc.FCTrainConfig(epochs=2, d=4, batch=8, eval_every=1)
    before = torch.get_num_threads()
    fc.train_fc(d, cfg, device="cpu", progress=False, cache=False, threads=1)
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError):
        fc.train_fc(d, cfg, device="cpu", progress=False, cache=False, threads=0)
    assert torch.get_num_threads() == before


# ---------------------------------------------------------------- fused SGD epoch
@pytest.mark.parametrize("layer_norm", [False, True])
def test_sgd_epoch_matches_torch_sgd(layer_norm):
    """sgd_epoch (hand-written gradients, fused update) gives the weights of autograd + torch.optim.SGD."""
    t = fc.make_task(3, 30, 5, 20, "zipf", seed=0)
    d = fc.make_dataset(t, nspl=7, seed=1)  # 140 sentences: last batch of 32 is short
    torch.manual_seed(0)
    net = fc.FCNet(30, 8, 5, 20, layer_norm=layer_norm, init_scale=0.3)
    E, U = net.embed.weight.detach().clone(), net.linear.weight.detach().clone()
    opt = torch.optim.SGD(
        [
            {"params": [net.embed.weight], "weight_decay": 1e-2},
            {"params": [net.linear.weight], "weight_decay": 3e-2},
        ],
        lr=0.5,
    )
    x, y = torch.as_tensor(d.x_train), torch.as_tensor(d.y_train)
    for _ in range(3):
        perm = torch.randperm(x.shape[0])
        fc.autograd_epoch(net, opt, x[perm], y[perm], batch=32)
        fc.sgd_epoch(
            E, U, x[perm], y[perm], lr=0.5, wd_W=1e-2, wd_U=3e-2, batch=32, layer_norm=layer_norm
        )
    assert torch.allclose(E, net.embed.weight, atol=1e-5, rtol=1e-5)
    assert torch.allclose(U, net.linear.weight, atol=1e-5, rtol=1e-5)
    assert (E - net.embed.weight).abs().max() < 1e-3 * E.abs().max()


def test_sgd_epoch_bfloat16_tracks_float32():
    t = fc.make_task(3, 30, 5, 20, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=10, seed=1)
    x, y = torch.as_tensor(d.x_train), torch.as_tensor(d.y_train)
    torch.manual_seed(0)
    net = fc.FCNet(30, 8, 5, 20, init_scale=0.3)
    E32, U32 = net.embed.weight.detach().clone(), net.linear.weight.detach().clone()
    E16, U16 = E32.clone(), U32.clone()
    for _ in range(5):
        fc.sgd_epoch(E32, U32, x, y, lr=0.5, wd_W=1e-3, wd_U=1e-3, batch=25)
        fc.sgd_epoch(
            E16, U16, x, y, lr=0.5, wd_W=1e-3, wd_U=1e-3, batch=25, matmul_dtype=torch.bfloat16
        )
    assert E16.dtype == torch.float32 and U16.dtype == torch.float32
    assert (E16 - E32).norm() < 0.05 * E32.norm()
    assert (U16 - U32).norm() < 0.05 * U32.norm()


def test_precision_option_and_history_steps(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match="precision"):
        fc.FCTrainConfig(epochs=1, precision="float16")
    t = fc.make_task(3, 12, 4, 10, "uniform", seed=0)
    d = fc.make_dataset(t, nspl=9, seed=1)  # 90 sentences, batch 20: 5 steps an epoch
    cfg = fc.FCTrainConfig(epochs=4, d=4, batch=20, eval_every=2, precision="bfloat16")
    r = fc.train_fc(d, cfg, device="cpu", progress=False, cache=False)
    assert list(r.history["epoch"]) == [0, 2, 4]
    assert list(r.history["step"]) == [0, 10, 20]


def test_steps_per_second():
    for impl in ("fused", "autograd", "fused-bf16"):
        assert fc.steps_per_second(10, nw=30, d=4, L=3, batch=8, impl=impl, steps=3) > 0
    with pytest.raises(ValueError, match="impl"):
        fc.steps_per_second(10, impl="jax")


@pytest.mark.parametrize("layer_norm", [False, True])
def test_checkpointed_run_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch, layer_norm):
    """A run stopped after some epochs and started again from its checkpoint ends with the same weights
    and history as a run that was never interrupted (the reference is trained without a cache)."""
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    task = fc.make_task(nc=3, nw=30, L=4, K=6, mu="zipf", seed=0)
    data = fc.make_dataset(task, nspl=5, n_test=2, seed=1)
    cfg = fc.FCTrainConfig(
        epochs=7, d=8, batch=7, eval_every=2, seed=5, layer_norm=layer_norm, ln_affine=layer_norm
    )
    ref = fc.train_fc(data, cfg, cache=False, progress=False)
    with pytest.raises(InterruptedError):
        fc.train_fc(data, cfg, progress=False, checkpoint_every=2, _interrupt_after=5)
    assert len(list((tmp_path / "fc").glob("*.ckpt.npz"))) == 1  # saved after epoch 4
    res = fc.train_fc(data, cfg, progress=False, checkpoint_every=2)
    assert not res.cached and not list((tmp_path / "fc").glob("*.ckpt.npz"))
    np.testing.assert_array_equal(res.U, ref.U)
    np.testing.assert_array_equal(res.embeddings, ref.embeddings)
    for k in ref.history:
        np.testing.assert_array_equal(res.history[k], ref.history[k])
    if layer_norm:
        np.testing.assert_array_equal(res.ln_gain, ref.ln_gain)
    assert fc.train_fc(data, cfg, progress=False).cached
    with pytest.raises(ValueError, match="checkpoint_every"):
        fc.train_fc(data, cfg, progress=False, checkpoint_every=0)


# -- inputs, caches and faults ------------------------------------------------------------------


def test_fc_cache_key_has_the_device_and_keeps_cpu_keys():
    from qwem_lib import fc
    from qwem_lib.fc.training import _cache_path

    task = fc.make_dataset(fc.make_task(nc=2, nw=2, L=3, K=2, seed=0), nspl=2, seed=0)
    cfg = fc.FCTrainConfig(epochs=1, d=4)
    cpu = _cache_path(task, cfg, "cpu")
    assert (
        _cache_path(task, cfg) == cpu
    )  # the default is the CPU's key, as before the device was keyed
    assert _cache_path(task, cfg, "cuda") != cpu
    assert _cache_path(task, cfg, "cuda:1") == _cache_path(
        task, cfg, "cuda"
    )  # the kind, not the index


@pytest.mark.parametrize(
    "field, value",
    [
        ("wd_W", float("nan")),
        ("wd_U", -1.0),
        ("init_scale", float("nan")),
        ("init_scale", -1e-3),
        ("lr", float("inf")),
        ("d", 2.5),
        ("seed", -1),
    ],
)
def test_fc_config_refuses_nan_and_negative_settings(field, value):
    from qwem_lib import fc

    with pytest.raises((ValueError, TypeError), match=field):
        fc.FCTrainConfig(epochs=1, **{field: value})
