"""Unit tests for qwem_lib.qwem.pairs: per-pair losses and gradients, the pair sampler's distribution, the
minibatch gradient's expectation, the reweightings, population losses and growth matrices."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from corpora import tiny_corpus

import qwem_lib as tr
from qwem_lib.qwem.corpus_stats import cooccurrence
from qwem_lib.qwem.theory import equal_reweighting, qwem_gradient, qwem_loss


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


# -- inputs, caches and faults ------------------------------------------------------------------


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
