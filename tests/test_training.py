"""Unit tests for the SGD training of Part II (qwem_lib.qwem.pairs, trainers, runs, measures): per-pair losses,
gradients, unbiasedness of the minibatch gradient, the pair sampler's distribution, determinism, and
validation of hyper-parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import qwem_lib as tr  # the flat re-exports of pairs, trainers, runs, measures, plotting
from qwem_lib.data import Corpus, DataError
from qwem_lib.qwem.corpus_stats import cooccurrence
from qwem_lib.qwem.theory import equal_reweighting, qwem_gradient, qwem_loss


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


# -- per-pair losses ----------------------------------------------------------------------------
def test_pair_terms_hand_checked():
    # QWEM: positive −x + x²/4, negative x + x²/4; at x = 2: −1 and 3, slopes 0 and 2
    assert tr.qwem_pair_terms(2.0, True) == (-1.0, 0.0)
    assert tr.qwem_pair_terms(2.0, False) == (3.0, 2.0)
    assert tr.qwem_pair_terms(0.0, True) == (0.0, -1.0)
    lp, gp = tr.sgns_pair_terms(torch.tensor([0.0], dtype=torch.float64), True)
    ln_, gn = tr.sgns_pair_terms(torch.tensor([0.0], dtype=torch.float64), False)
    assert math.isclose(float(lp), math.log(2)) and math.isclose(float(ln_), math.log(2))
    assert math.isclose(float(gp), -0.5) and math.isclose(float(gn), 0.5)


def test_pair_loss_by_hand():
    # two words, W = [[1, 0], [1, 1]]: x_01 = 1, x_11 = 2; one positive (0, 1) weight 2, one negative (1, 1)
    W = torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    a, b = torch.tensor([0]), torch.tensor([1])
    na, nb = torch.tensor([1]), torch.tensor([1])
    loss, G = tr.pair_loss_grad(
        W,
        a,
        b,
        torch.tensor([2.0], dtype=torch.float64),
        na,
        nb,
        torch.tensor([1.0], dtype=torch.float64),
        "qwem",
        batch=1,
    )
    # 2·(−1 + 1/4) + (2 + 1) = 1.5
    assert math.isclose(float(loss), 1.5)
    # d/dW: positive slope 2·(−1 + 1/2) = −1 times ∂x_01 = (w_1 on row 0, w_0 on row 1);
    # negative slope (1 + 1) = 2 times ∂x_11 = 2 w_1 on row 1
    expect = np.array([[-1.0, -1.0], [-1.0 + 4.0, 0.0 + 4.0]])
    np.testing.assert_allclose(G.numpy(), expect)


@pytest.mark.parametrize("model", ["qwem", "sgns"])
def test_gradient_matches_autograd(model):  # noqa: D103
    g = torch.Generator().manual_seed(1)
    V, d, n = 7, 3, 50
    W = torch.randn(V, d, generator=g, dtype=torch.float64)
    a, b = torch.randint(0, V, (n,), generator=g), torch.randint(0, V, (n,), generator=g)
    na, nb = torch.randint(0, V, (n,), generator=g), torch.randint(0, V, (n,), generator=g)
    wp, wn = (
        torch.rand(n, generator=g, dtype=torch.float64),
        torch.rand(n, generator=g, dtype=torch.float64),
    )
    a[0] = b[0] = 2  # a diagonal pair: x = |w_2|², ∂x/∂w_2 = 2 w_2
    loss, G = tr.pair_loss_grad(W, a, b, wp, na, nb, wn, model, batch=n)
    Wr = W.clone().requires_grad_(True)
    loss2, _ = tr.pair_loss_grad(Wr, a, b, wp, na, nb, wn, model, batch=n)
    (G2,) = torch.autograd.grad(loss2, Wr)
    assert math.isclose(float(loss), float(loss2.detach()))
    np.testing.assert_allclose(G.numpy(), G2.numpy(), rtol=1e-12, atol=1e-12)


def test_split_gradient_matches_autograd():
    g = torch.Generator().manual_seed(2)
    V, d, n = 7, 3, 40
    W = torch.randn(V, d, generator=g, dtype=torch.float64)
    idx = [torch.randint(0, V, (n,), generator=g) for _ in range(4)]
    wp, wn = (
        torch.rand(n, generator=g, dtype=torch.float64),
        torch.rand(n, generator=g, dtype=torch.float64),
    )
    loss, G = tr.split_loss_grad(W, idx[0], idx[1], wp, idx[2], idx[3], wn, n)
    Wr = W.clone().requires_grad_(True)
    loss2, _ = tr.split_loss_grad(Wr, idx[0], idx[1], wp, idx[2], idx[3], wn, n)
    (G2,) = torch.autograd.grad(loss2, Wr)
    np.testing.assert_allclose(G.numpy(), G2.numpy(), rtol=1e-12, atol=1e-12)
    # the exact quadratic part is ¼ Σ_ab x_ab² over all ordered pairs
    X = W @ W.T
    lin = (
        (wn * (W[idx[2]] * W[idx[3]]).sum(1)).sum() - (wp * (W[idx[0]] * W[idx[1]]).sum(1)).sum()
    ) / n
    assert math.isclose(float(loss), float(0.25 * (X**2).sum() + lin), rel_tol=1e-12)


# -- the sampler ---------------------------------------------------------------------------------
@pytest.mark.parametrize("oov", ["authors", "drop", "skip"])
def test_sampler_draws_pairs_with_probability_P(oov):
    c = tiny_corpus()
    V = 6
    _, P, pu = cooccurrence(c, V, window=4, oov=oov, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, oov=oov, stream_vocab=9, device="cpu")
    g = torch.Generator().manual_seed(0)
    n = 400_000
    a, b, valid = s.positive(n, g)
    # acceptance: the fraction of draws inside the V x V block
    acc = valid.double().mean().item()
    assert abs(acc - s.acceptance) <= 5 * math.sqrt(s.acceptance * (1 - s.acceptance) / n)
    H = np.bincount((a[valid] * V + b[valid]).numpy(), minlength=V * V).reshape(V, V) / int(
        valid.sum()
    )
    se = np.sqrt(P * (1 - P) / int(valid.sum()))
    assert np.all(np.abs(H - P) < 5 * se + 1e-12)
    u = s.unigram(n, g).numpy()
    Hu = np.bincount(u, minlength=V) / n
    assert np.all(np.abs(Hu - pu) < 5 * np.sqrt(pu * (1 - pu) / n))


def _mc_gradient(model, W, s, tables, n_batches=400, batch=2_000):
    g = torch.Generator().manual_seed(3)
    Wt = torch.as_tensor(W)
    Gs, Ls = [], []
    for _ in range(n_batches):
        L, G = tr.batch_loss_grad(Wt, s, tables, g, batch=batch)
        Gs.append(G.numpy())
        Ls.append(float(L))
    Gs = np.array(Gs)
    return (
        np.mean(Ls),
        np.std(Ls) / math.sqrt(n_batches),
        Gs.mean(0),
        Gs.std(0) / math.sqrt(n_batches),
    )


@pytest.mark.parametrize("estimator", ["split", "sampled"])
def test_expected_qwem_gradient_is_population_gradient(estimator):
    """The minibatch gradient's mean over draws is ∇ of Theorem 1's loss with P and P_iP_j of the same stream."""
    c = tiny_corpus(n=4000)
    V, d = 6, 2
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, stream_vocab=9, device="cpu")
    tables = tr.make_tables("qwem", P, pu, s, estimator=estimator)
    W = np.random.default_rng(0).standard_normal((V, d)) * 0.7
    psi = equal_reweighting(P, pu)
    Lpop = qwem_loss(W, P, psi, psi, pu)
    Gpop = qwem_gradient(W, P, psi, psi, pu)
    Lmc, Lse, Gmc, Gse = _mc_gradient("qwem", W, s, tables)
    assert abs(Lmc - Lpop) < 5 * Lse
    assert np.all(np.abs(Gmc - Gpop) < 5 * Gse + 1e-9)
    # and the population gradient is (WWᵀ − M*)W (Setting 3.1, g = 1): the flow of chapter 12
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    np.testing.assert_allclose(Gpop, (W @ W.T - M) @ W, rtol=1e-10, atol=1e-10)
    # the test has power: flat window weights instead of 17 − j give a population it rejects
    _, Pf, _ = cooccurrence(c, V, window=4, stream_vocab=9, weighting="flat", use_cache=False)
    Gwrong = qwem_gradient(W, Pf, psi, psi, pu)
    assert np.any(np.abs(Gmc - Gwrong) > 5 * Gse)


def test_expected_sgns_gradient_is_population_gradient():
    c = tiny_corpus(n=4000)
    V, d = 6, 2
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, stream_vocab=9, device="cpu")
    tables = tr.make_tables("sgns", P, pu, s, sample=0.05)
    W = np.random.default_rng(1).standard_normal((V, d)) * 0.7
    Lpop = tr.sgns_population_loss(W, P, pu, sample=0.05)
    Wr = torch.tensor(W, requires_grad=True)
    rho = tr.subsampling_keep(pu, 0.05)
    Q = pu**0.75 / np.sum(pu**0.75)
    Pos = torch.tensor(P * np.outer(rho, rho))
    Neg = torch.tensor(np.outer((P * np.outer(rho, rho)).sum(1), Q))
    X = Wr @ Wr.T
    Lt = (Pos * torch.nn.functional.softplus(-X) + Neg * torch.nn.functional.softplus(X)).sum()
    (Gpop,) = torch.autograd.grad(Lt, Wr)
    assert math.isclose(float(Lt), Lpop, rel_tol=1e-10)
    Lmc, Lse, Gmc, Gse = _mc_gradient("sgns", W, s, tables)
    assert abs(Lmc - Lpop) < 5 * Lse
    assert np.all(np.abs(Gmc - Gpop.numpy()) < 5 * Gse + 1e-9)


def test_sgns_growth_matrix_is_the_small_W_gradient():
    c = tiny_corpus()
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    B = tr.sgns_growth_matrix(P, pu)
    np.testing.assert_allclose(B, B.T)
    W = np.random.default_rng(2).standard_normal((6, 2)) * 1e-6
    h = 1e-4
    # finite differences of the population loss in the direction E give −⟨BW, E⟩ at small W
    E = np.random.default_rng(3).standard_normal((6, 2))
    fd = (tr.sgns_population_loss(W + h * E, P, pu) - tr.sgns_population_loss(W - h * E, P, pu)) / (
        2 * h
    )
    lin = -np.sum((B @ W) * E)
    assert abs(fd - lin) < 1e-6 * abs(lin) + 1e-12


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


# -- overlap measures -----------------------------------------------------------------------------
def test_eigen_overlap_and_diagonal_dominance():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((30, 8)))
    A = Q * np.arange(8, 0, -1)
    O = tr.eigen_overlap(A, A @ np.diag([1, -1, 1, 1, -1, 1, 1, 1]))
    np.testing.assert_allclose(O, np.eye(8), atol=1e-10)
    assert tr.diagonal_dominance(O) == pytest.approx(1.0)
    R = tr.eigen_overlap(A, rng.standard_normal((30, 8)))
    assert tr.diagonal_dominance(R) < 0.5
    assert np.all(R.sum(1) <= 1 + 1e-10)
    with pytest.raises(ValueError):
        tr.diagonal_dominance(np.zeros((2, 3)))
    S = np.eye(4, k=1)  # row i matches column i + 1
    assert tr.diagonal_dominance(S) == 0.0 and tr.diagonal_dominance(S, offset=-1) == 1.0
    cos = tr.principal_cosines(A, A[:, ::-1])
    np.testing.assert_allclose(cos, 1.0)


def test_plan_schedule():
    plan = tr.plan_schedule([4.0, 2.0, 1.0], 2, 1e-6, lr_factor=0.1, horizon=3.0)
    assert plan["lr"] == pytest.approx(0.025)
    assert plan["t_end"] == pytest.approx(3 * math.log(2e6) / 2)
    assert plan["steps"] == math.ceil(plan["t_end"] / 0.05)
    with pytest.raises(ValueError):
        tr.plan_schedule([1.0, -1.0], 2, 1e-6)


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


def test_preset_schedule():
    c = tiny_corpus(n=20000)
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    sch = tr.preset_schedule("qwem", P, pu, 2, lr_factor=0.1, sigma_sq_small=1e-4)
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    lam = np.sort(np.linalg.eigvalsh(M))[::-1]
    np.testing.assert_allclose(sch["lam"], lam[:4], rtol=1e-10)
    assert sch["lr"] == pytest.approx(0.1 / lam[0])
    assert sch["steps"] > sch["main_steps"] > 0 and sch["sigma_sq"] == 1e-4
    large = tr.preset_schedule("qwem", P, pu, 2, init="large", large_ratio=0.1)
    assert large["sigma_sq"] == pytest.approx(0.1 * lam[1] * 2 / 6)
    sg = tr.preset_schedule("sgns", P, pu, 2)
    assert sg["lam_B"] is not None and sg["lr"] == pytest.approx(0.1 / sg["lam_B"][0])
    with pytest.raises(ValueError):
        tr.preset_schedule("qwem", P, pu, 2, init="medium")


def test_plot_steps():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    t = np.linspace(0, 1, 5)
    colors = tr.plot_steps(
        ax, t, np.ones((5, 3)), np.zeros((5, 3)), run_label="run", theory_label="th", t_max=0.5
    )
    assert len(colors) == 3 and len(ax.lines) == 6 and ax.get_xlim() == (0.0, 0.5)
    plt.close(fig)


# -- loss × reweighting (chapter 25's ablation) ---------------------------------------------------
ALL_RUNS = [(lo, rw) for lo in tr.LOSSES for rw in tr.REWEIGHTINGS]


def test_resolve_model_names_and_validation():
    assert tr.resolve_model("qwem") == ("qwem", "quartic", "setting31")
    assert tr.resolve_model("sgns") == ("sgns", "logistic", "word2vec")
    assert tr.resolve_model("qwem", reweighting="word2vec") == (
        "quartic-word2vec",
        "quartic",
        "word2vec",
    )
    assert tr.resolve_model(None, "logistic", "setting31") == (
        "logistic-setting31",
        "logistic",
        "setting31",
    )
    assert tr.resolve_model(None, "logistic", "word2vec")[0] == "sgns"
    with pytest.raises(ValueError, match="loss must be one of"):
        tr.resolve_model(None, "cubic", "setting31")
    with pytest.raises(ValueError, match="reweighting must be one of"):
        tr.resolve_model("qwem", reweighting="glove")
    with pytest.raises(ValueError, match="model must be"):
        tr.resolve_model("glove")


def test_pair_weights_by_hand():
    # two words: P = [[.1, .3], [.3, .3]], P_a = (.4, .6)
    P = np.array([[0.1, 0.3], [0.3, 0.3]])
    pu = np.array([0.4, 0.6])
    A, N = tr.pair_weights(P, pu, "setting31")
    np.testing.assert_allclose(A + N, 1.0)  # Setting 3.1: G = 1
    np.testing.assert_allclose(A[0, 1], 0.3 / (0.3 + 0.24))
    # word2vec's with no subsampling (sample large: ρ = 1), k = 2, power 1: N = 2 m Qᵀ, m = row sums of P
    A, N = tr.pair_weights(P, pu, "word2vec", k=2, sample=10.0, power=1.0)
    np.testing.assert_allclose(A, P)
    np.testing.assert_allclose(N, 2 * np.outer([0.4, 0.6], [0.4, 0.6]))
    with pytest.raises(ValueError):
        tr.pair_weights(P, pu, "omniscient")
    with pytest.raises(ValueError):
        tr.pair_weights(P, pu[:1], "setting31")


@pytest.mark.parametrize("loss, reweighting", ALL_RUNS)
def test_population_gradient_matches_autograd(loss, reweighting):
    """The dense gradient formula (C + Cᵀ)W against torch autograd of the dense population loss."""
    c = tiny_corpus()
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    W = np.random.default_rng(4).standard_normal((6, 2)) * 0.8
    A, N = (torch.tensor(x) for x in tr.pair_weights(P, pu, reweighting, sample=0.05))
    Wr = torch.tensor(W, requires_grad=True)
    X = Wr @ Wr.T
    if loss == "quartic":
        Lt = (A * (-X + X**2 / 4) + N * (X + X**2 / 4)).sum()
    else:
        Lt = (A * torch.nn.functional.softplus(-X) + N * torch.nn.functional.softplus(X)).sum()
    (Gt,) = torch.autograd.grad(Lt, Wr)
    kw = dict(loss=loss, reweighting=reweighting, sample=0.05)
    assert math.isclose(tr.population_loss(W, P, pu, **kw), float(Lt), rel_tol=1e-12)
    np.testing.assert_allclose(
        tr.population_gradient(W, P, pu, **kw), Gt.numpy(), rtol=1e-10, atol=1e-12
    )


def test_population_loss_agrees_with_the_named_models():
    c = tiny_corpus()
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    W = np.random.default_rng(5).standard_normal((6, 2)) * 0.5
    psi = equal_reweighting(P, pu)
    # quartic × setting31 is Theorem 1's loss; its gradient is (WWᵀ − M*)W
    assert math.isclose(
        tr.population_loss(W, P, pu, loss="quartic", reweighting="setting31"),
        qwem_loss(W, P, psi, psi, pu),
        rel_tol=1e-12,
    )
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    np.testing.assert_allclose(
        tr.population_gradient(W, P, pu, loss="quartic", reweighting="setting31"),
        (W @ W.T - M) @ W,
        rtol=1e-10,
        atol=1e-12,
    )
    assert math.isclose(
        tr.population_loss(W, P, pu, loss="logistic", reweighting="word2vec"),
        tr.sgns_population_loss(W, P, pu),
        rel_tol=1e-12,
    )


def test_growth_matrices():
    c = tiny_corpus()
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    np.testing.assert_allclose(
        tr.growth_matrix(P, pu, loss="quartic", reweighting="setting31"), M, atol=1e-12
    )
    np.testing.assert_allclose(
        tr.growth_matrix(P, pu, loss="logistic", reweighting="setting31"), M / 2, atol=1e-12
    )
    np.testing.assert_allclose(
        tr.growth_matrix(P, pu, loss="logistic", reweighting="word2vec"),
        tr.sgns_growth_matrix(P, pu),
        atol=1e-15,
    )
    # every K is minus the small-W gradient (the dense gradient is checked against autograd above);
    # the cubic terms are O(|W|²) relative: 1e-8 at |W| = 1e-4
    W = np.random.default_rng(2).standard_normal((6, 2)) * 1e-4
    for lo, rw in ALL_RUNS:
        K = tr.growth_matrix(P, pu, loss=lo, reweighting=rw)
        np.testing.assert_allclose(
            B := tr.population_gradient(W, P, pu, loss=lo, reweighting=rw),
            -K @ W,
            rtol=1e-6,
            atol=1e-6 * np.abs(K @ W).max(),
        )
        assert np.abs(B).max() > 0


@pytest.mark.parametrize(
    "loss, reweighting, estimator",
    [
        ("quartic", "word2vec", "sampled"),
        ("logistic", "setting31", "split"),
        ("logistic", "setting31", "sampled"),
    ],
)
def test_expected_gradient_of_the_mixed_runs(loss, reweighting, estimator):
    """The minibatch gradient of the two mixed runs has the dense population gradient as its mean, and
    the test rejects the other reweighting's population."""
    c = tiny_corpus(n=4000)
    V, d = 6, 2
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, stream_vocab=9, device="cpu")
    tables = tr.make_tables(
        None, P, pu, s, sample=0.05, loss=loss, reweighting=reweighting, estimator=estimator
    )
    assert tables["model"] == f"{loss}-{reweighting}" and tables["estimator"] == estimator
    W = np.random.default_rng(6).standard_normal((V, d)) * 0.7
    kw = dict(loss=loss, sample=0.05)
    Lpop = tr.population_loss(W, P, pu, reweighting=reweighting, **kw)
    Gpop = tr.population_gradient(W, P, pu, reweighting=reweighting, **kw)
    Lmc, Lse, Gmc, Gse = _mc_gradient(None, W, s, tables)
    assert abs(Lmc - Lpop) < 5 * Lse
    assert np.all(np.abs(Gmc - Gpop) < 5 * Gse + 1e-9)
    other = "word2vec" if reweighting == "setting31" else "setting31"
    Gother = tr.population_gradient(W, P, pu, reweighting=other, **kw)
    assert np.any(np.abs(Gmc - Gother) > 5 * Gse)


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


def test_logistic_split_gradient_matches_autograd():
    g = torch.Generator().manual_seed(7)
    V, d, n = 6, 2, 40
    W = torch.randn(V, d, generator=g, dtype=torch.float64)
    a, b = torch.randint(0, V, (n,), generator=g), torch.randint(0, V, (n,), generator=g)
    wp = torch.rand(n, generator=g, dtype=torch.float64) * 5
    loss, G = tr.logistic_split_loss_grad(W, a, b, wp, batch=n)
    Wr = W.clone().requires_grad_(True)
    X = Wr @ Wr.T
    L2 = torch.nn.functional.softplus(X).sum() - (wp * (Wr[a] * Wr[b]).sum(1)).sum() / n
    (G2,) = torch.autograd.grad(L2, Wr)
    assert math.isclose(float(loss), float(L2.detach()), rel_tol=1e-12)
    np.testing.assert_allclose(G.numpy(), G2.numpy(), rtol=1e-10, atol=1e-12)


# -- the minibatch gradient's noise -------------------------------------------------------------
def _enumerated_noise(P, pu, W, alpha, batch, Q=None):
    """E‖g_B − g‖² by a plain loop over every pair of one positive and one negative draw."""
    V = W.shape[0]
    R = np.eye(V) if Q is None else Q @ Q.T
    total = 0.0
    for prob_of, weight_of, sign in (
        (
            lambda a, b: alpha * P[a, b],
            lambda a, b: 1.0 / (alpha * (P[a, b] + pu[a] * pu[b])),
            -1.0,
        ),
        (lambda a, b: pu[a] * pu[b], lambda a, b: 1.0 / (P[a, b] + pu[a] * pu[b]), 1.0),
    ):
        mean = np.zeros_like(W)
        sq = 0.0
        for a in range(V):
            for b in range(V):
                u = np.zeros_like(W)
                u[a] += sign * weight_of(a, b) * W[b]
                u[b] += sign * weight_of(a, b) * W[a]
                u = R @ u
                mean += prob_of(a, b) * u
                sq += prob_of(a, b) * float((u * u).sum())
        total += sq - float((mean * mean).sum())
    return total / batch


def test_split_gradient_noise_formula_and_draws():
    c = tiny_corpus(n=4000)
    V, d, batch = 6, 2, 40
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, stream_vocab=9, device="cpu")
    W = np.random.default_rng(3).standard_normal((V, d)) * 0.5
    Q = np.linalg.qr(np.random.default_rng(4).standard_normal((V, 3)))[0]
    ex = tr.split_gradient_noise(P, pu, W, batch=batch, acceptance=s.acceptance, basis=Q, block=4)
    # the formula against a loop over every draw (independent algebra)
    assert math.isclose(ex.noise, _enumerated_noise(P, pu, W, s.acceptance, batch), rel_tol=1e-10)
    assert math.isclose(
        ex.noise_top, _enumerated_noise(P, pu, W, s.acceptance, batch, Q), rel_tol=1e-10
    )
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    g = (W @ W.T - M) @ W
    assert math.isclose(ex.signal, float((g * g).sum()), rel_tol=1e-10)
    assert math.isclose(ex.relative, ex.noise / ex.signal)
    # the formula against the sampler's own minibatches (the draw model: α P_ab, independence)
    tables = tr.make_tables("qwem", P, pu, s)
    mc = tr.sampled_gradient_noise(W, s, tables, g, batch=batch, n_batches=3000, basis=Q, seed=1)
    assert abs(mc.noise - ex.noise) < 5 * mc.noise_se
    assert abs(mc.noise_top - ex.noise_top) < 5 * mc.noise_top_se
    # power: the noise is ∝ 1/B, and a formula that ignored the acceptance (α = 1) is rejected
    half = tr.split_gradient_noise(P, pu, W, batch=2 * batch, acceptance=s.acceptance)
    assert math.isclose(half.noise, ex.noise / 2, rel_tol=1e-12)
    wrong = tr.split_gradient_noise(P, pu, W, batch=batch, acceptance=1.0)
    assert abs(mc.noise - wrong.noise) > 5 * mc.noise_se


def test_gradient_noise_validation():
    P, pu = np.full((3, 3), 1 / 9), np.full(3, 1 / 3)
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="batch"):
        tr.split_gradient_noise(P, pu, W, batch=0, acceptance=0.5)
    with pytest.raises(ValueError, match="acceptance"):
        tr.split_gradient_noise(P, pu, W, batch=1, acceptance=0.0)
    with pytest.raises(ValueError, match="does not match"):
        tr.split_gradient_noise(P, pu, np.ones((4, 2)), batch=1, acceptance=0.5)
    with pytest.raises(ValueError, match="orthonormal"):
        tr.split_gradient_noise(P, pu, W, batch=1, acceptance=0.5, basis=np.ones((3, 1)))
    with pytest.raises(ValueError, match="finite"):
        tr.split_gradient_noise(P, pu, W * np.nan, batch=1, acceptance=0.5)
