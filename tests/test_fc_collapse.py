"""The shared collapse metric of Part IV (qwem_lib.fc.collapse) and the learnable LayerNorm of A.2."""

import numpy as np
import pytest
import torch

from qwem_lib import fc
from qwem_lib.fc.collapse import collapse_stats, direction_cosines


def _brute_ratio(X, labels):
    """Within/between ratio by explicit loops (independent of the vectorised implementation)."""
    groups = sorted(set(labels.tolist()))
    means = {
        g: sum(X[i] for i in range(len(X)) if labels[i] == g) / sum(labels == g) for g in groups
    }
    within = np.sqrt(sum(np.sum((X[i] - means[labels[i]]) ** 2) for i in range(len(X))) / len(X))
    dists = [np.linalg.norm(means[a] - means[b]) for a in groups for b in groups if a != b]
    return within / np.mean(dists)


def test_collapse_stats_matches_brute_force_and_hand_cases():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 5))
    lab = rng.integers(0, 4, 40)
    s = fc.collapse_stats(X, lab)
    assert s.ratio == pytest.approx(_brute_ratio(X, lab), rel=1e-12)
    assert s.n == 40 and s.groups == 4
    # hand case: two groups, means at +-e1 (distance 2), every vector at distance 0.1 from its mean
    X2 = np.array([[1.0, 0.1], [1.0, -0.1], [-1.0, 0.1], [-1.0, -0.1]])
    s2 = fc.collapse_stats(X2, np.array([0, 0, 1, 1]))
    assert s2.ratio == pytest.approx(0.05) and s2.collapsed
    assert s2.cos_median == pytest.approx(1 / np.sqrt(1.01))
    # a perfect collapse, and invariance of the ratio to a common rotation, translation and scaling
    M = np.eye(3)
    lab3 = np.repeat(np.arange(3), 5)
    assert fc.collapse_stats(M[lab3], lab3).ratio == 0.0
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    assert fc.collapse_ratio(3.0 * X @ Q + 7.0, lab) == pytest.approx(s.ratio, rel=1e-10)


def test_collapse_stats_directional_versus_full():
    """Frequency-dependent lengths along one direction per group: aligned but not collapsed."""
    lengths = np.array([1.0, 2.0, 5.0, 10.0])
    dirs = np.array([[1.0, 0.0], [-0.5, np.sqrt(3) / 2], [-0.5, -np.sqrt(3) / 2]])
    X = np.concatenate([np.outer(lengths, d) for d in dirs])
    lab = np.repeat(np.arange(3), 4)
    s = fc.collapse_stats(X, lab)
    assert s.cos_median == pytest.approx(1.0) and s.aligned
    assert not s.collapsed
    assert "ratio" in str(s)


def test_collapse_stats_random_vectors_are_not_collapsed():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((3000, 20))
    s = fc.collapse_stats(X, rng.integers(0, 3, 3000))
    assert s.ratio > 1.0 and not s.collapsed and abs(s.cos_median) < 0.5


@pytest.mark.parametrize(
    "bad",
    [(np.zeros(5), np.zeros(5)), (np.zeros((5, 2)), np.zeros(4)), (np.zeros((5, 2)), np.zeros(5))],
)
def test_collapse_stats_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        fc.collapse_stats(*bad)


def test_learnable_layernorm_network_and_validation():
    net = fc.FCNet(12, 4, 3, 5, layer_norm=True, ln_affine=True)
    assert torch.equal(net.ln_gain, torch.ones(4)) and torch.equal(net.ln_bias, torch.zeros(4))
    with torch.no_grad():
        net.ln_gain.fill_(2.0)
        net.ln_bias.fill_(0.5)
    ref = torch.nn.LayerNorm(4)
    with torch.no_grad():
        ref.weight.fill_(2.0)
        ref.bias.fill_(0.5)
    assert torch.allclose(
        torch.as_tensor(net.word_features()).float(), ref(net.embed.weight), atol=1e-6
    )
    with pytest.raises(ValueError, match="layer_norm"):
        fc.FCNet(12, 4, 3, 5, layer_norm=False, ln_affine=True)
    with pytest.raises(ValueError, match="layer_norm"):
        fc.FCTrainConfig(epochs=1, ln_affine=True)
    E, U = torch.zeros(12, 4), torch.zeros(5, 12)
    x, y = torch.zeros(2, 3, dtype=torch.long), torch.zeros(2, dtype=torch.long)
    with pytest.raises(ValueError, match="both"):
        fc.sgd_epoch(
            E, U, x, y, lr=0.1, wd_W=0, wd_U=0, batch=2, layer_norm=True, ln_gain=torch.ones(4)
        )


def test_sgd_epoch_with_learnable_layernorm_matches_torch_sgd():
    """Hand-written gain/bias gradients give the weights of autograd + torch.optim.SGD (no decay on them)."""
    t = fc.make_task(3, 30, 5, 20, "zipf", seed=0)
    d = fc.make_dataset(t, nspl=7, seed=1)
    torch.manual_seed(0)
    net = fc.FCNet(30, 8, 5, 20, layer_norm=True, ln_affine=True, init_scale=0.3)
    with torch.no_grad():  # start away from (1, 0) so the gain's gradient matters
        net.ln_gain.uniform_(0.5, 1.5)
        net.ln_bias.uniform_(-0.2, 0.2)
    E, U = net.embed.weight.detach().clone(), net.linear.weight.detach().clone()
    g, b = net.ln_gain.detach().clone(), net.ln_bias.detach().clone()
    g0 = g.clone()
    opt = torch.optim.SGD(
        [
            {"params": [net.embed.weight], "weight_decay": 0.0},
            {"params": [net.linear.weight], "weight_decay": 3e-2},
            {"params": [net.ln_gain, net.ln_bias], "weight_decay": 0.0},
        ],
        lr=0.5,
    )
    x, y = torch.as_tensor(d.x_train), torch.as_tensor(d.y_train)
    for _ in range(3):
        perm = torch.randperm(x.shape[0])
        fc.autograd_epoch(net, opt, x[perm], y[perm], batch=32)
        fc.sgd_epoch(
            E,
            U,
            x[perm],
            y[perm],
            lr=0.5,
            wd_W=0.0,
            wd_U=3e-2,
            batch=32,
            layer_norm=True,
            ln_gain=g,
            ln_bias=b,
        )
    for mine, ref in (
        (E, net.embed.weight),
        (U, net.linear.weight),
        (g, net.ln_gain),
        (b, net.ln_bias),
    ):
        assert torch.allclose(mine, ref, atol=1e-5, rtol=1e-4)
    assert (g - g0).abs().max() > 1e-3  # the gain did move


def test_train_fc_learnable_layernorm_caches_parameters(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    t = fc.make_task(3, 30, 5, 10, "zipf", seed=0)
    d = fc.make_dataset(t, nspl=10, seed=1)
    cfg = fc.FCTrainConfig(epochs=3, d=6, layer_norm=True, ln_affine=True, wd_W=0.0, eval_every=1)
    r1 = fc.train_fc(d, cfg, progress=False)
    r2 = fc.train_fc(d, cfg, progress=False)
    assert r2.cached and not r1.cached
    assert (
        r1.ln_gain.shape == (6,)
        and np.allclose(r1.ln_gain, r2.ln_gain)
        and np.allclose(r1.ln_bias, r2.ln_bias)
    )
    plain = fc.train_fc(
        d, fc.FCTrainConfig(epochs=3, d=6, layer_norm=True, wd_W=0.0, eval_every=1), progress=False
    )
    assert plain.ln_gain is None and not plain.cached


def test_pca_scatter_draws_the_principal_coordinates():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from qwem_lib import plotting

    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4)) * np.array([5.0, 2.0, 0.1, 0.1])
    g = np.repeat(np.arange(3), 10)
    fig, ax = plt.subplots()
    plotting.pca_scatter(ax, X, g, "t", legend=True)
    assert len(ax.collections) == 3 and ax.get_xlabel() == "PC 1" and ax.get_title() == "t"
    coords, _ = fc.pca_2d(X, center=False)
    got = np.concatenate([c.get_offsets() for c in ax.collections])
    assert np.allclose(np.abs(got), np.abs(coords))  # PCA coordinates up to the sign of each axis
    with pytest.raises(ValueError):
        plotting.pca_scatter(ax, X, g[:5], "t")
    plt.close(fig)


def _brute_plane(X, center):
    """Top-two PCA plane from the eigenvectors of the (centred) second-moment matrix."""
    Xc = X - X.mean(0) if center else X
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)
    return vecs[:, np.argsort(vals)[::-1][:2]]


def test_plane_ratio_and_visible_share_against_independent_computation():
    rng = np.random.default_rng(3)
    lab = rng.integers(0, 3, 60)
    X = rng.standard_normal((60, 6)) * np.array([5.0, 4.0, 1.0, 0.5, 0.3, 0.2])
    X += 3.0 * np.eye(6)[lab]
    for center in (False, True):
        B = _brute_plane(X, center)
        assert fc.plane_ratio(X, lab, center) == pytest.approx(_brute_ratio(X @ B, lab), rel=1e-9)
        means = {g: X[lab == g].mean(0) for g in range(3)}
        R = np.array([X[i] - means[lab[i]] for i in range(60)])
        share = sum(np.sum((r @ B) ** 2) for r in R) / sum(np.sum(r**2) for r in R)
        assert fc.visible_within_share(X, lab, center) == pytest.approx(share, rel=1e-9)


def test_plane_hides_spread_outside_it_hand_case():
    """Groups at three points of the (x, y) plane, all within-group spread along z: the picture shows
    a perfect collapse (2-D ratio 0, nothing of the spread visible) while the full ratio does not."""
    pts = np.array([[10.0, 0.0, 0.0], [-5.0, 8.66, 0.0], [-5.0, -8.66, 0.0]])
    lab = np.repeat(np.arange(3), 4)
    X = pts[lab] + np.array([0.0, 0.0, 1.0])[None, :] * np.tile([1.0, -1.0, 2.0, -2.0], 3)[:, None]
    t = fc.collapse_two_ways(X, lab, n_null=5)
    assert t.plane == pytest.approx(0.0, abs=1e-12) and t.plane_collapsed
    assert t.visible == pytest.approx(0.0, abs=1e-12)
    between = np.mean([np.linalg.norm(pts[a] - pts[b]) for a, b in ((0, 1), (0, 2), (1, 2))])
    assert t.full == pytest.approx(
        np.sqrt(2.5) / between, rel=1e-12
    )  # rms spread sqrt((1+1+4+4)/4)
    assert t.collapsed == (t.full < fc.COLLAPSED_RATIO)
    assert "2-D ratio" in str(t) and t.row("x").startswith("| x |")


def test_shuffled_null_separates_structure_from_none():
    rng = np.random.default_rng(4)
    lab = np.repeat(np.arange(3), 200)
    X = 5.0 * np.eye(8)[lab] + 0.1 * rng.standard_normal((600, 8))  # collapsed
    full, plane = fc.shuffled_ratios(X, lab, n=10, seed=0)
    assert full.shape == plane.shape == (10,)
    assert fc.collapse_ratio(X, lab) < 0.05 < 1.0 < full.min()
    # a permutation keeps the group sizes; with one permutation the null is the ratio of those labels
    r1, _ = fc.shuffled_ratios(X, lab, n=1, seed=7)
    assert r1[0] == pytest.approx(fc.collapse_ratio(X, np.random.default_rng(7).permutation(lab)))
    # random labels on random vectors: the ratio is inside the null's spread
    Z = rng.standard_normal((600, 8))
    nf, _ = fc.shuffled_ratios(Z, lab, n=30, seed=1)
    assert abs(fc.collapse_ratio(Z, lab) - nf.mean()) < 4 * nf.std()


def test_unit_rows_and_two_ways_validation():
    X = np.array([[3.0, 4.0], [0.0, 2.0]])
    np.testing.assert_allclose(fc.unit_rows(X), [[0.6, 0.8], [0.0, 1.0]])
    with pytest.raises(ValueError):
        fc.unit_rows(np.zeros((2, 2)))
    with pytest.raises(ValueError):
        fc.shuffled_ratios(X, np.array([0, 1]), n=0)
    with pytest.raises(ValueError):
        fc.visible_within_share(np.eye(3), np.arange(3))
    with pytest.raises(ValueError):
        fc.plane_ratio(np.zeros((4, 1)), np.array([0, 0, 1, 1]))


def test_claim_collapse_records_three_claims(tmp_path, monkeypatch):
    from qwem_lib import Report

    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path))
    monkeypatch.setenv("QWEM_PRESET", "smoke")
    rng = np.random.default_rng(5)
    lab = np.repeat(np.arange(3), 100)
    X = 5.0 * np.eye(6)[lab] + 0.3 * rng.standard_normal((300, 6))  # ratio ~0.1: either side
    tw = fc.collapse_two_ways(X, lab, n_null=10)
    rep = Report("99_test", quiet=True)
    fc.claim_collapse(rep, "t.x", "test vectors", tw)
    ids = {c.id: c for c in rep.claims}
    assert set(ids) == {"t.x", "t.x.plane", "t.x.null"}
    assert ids["t.x"].kind == "record" and ids["t.x"].value == pytest.approx(tw.full)
    assert ids["t.x.null"].kind == "finding" and ids["t.x.null"].value < 0.1
    assert tw.null_full_min <= tw.null_full and tw.n_null == 10
    with pytest.raises(AssertionError):  # asserted, the full ratio of unstructured vectors fails
        Z = rng.standard_normal((300, 6))
        fc.claim_collapse(
            rep, "t.z", "random", fc.collapse_two_ways(Z, lab, n_null=5), assert_full=True
        )
    assert "| a |" in fc.two_ways_table({"a": tw})


def test_decay_floor_against_a_loop_and_its_limits():
    """The floor is the ratio of delta * X0 plus the group means of the learned part, computed here by
    a plain loop over the groups; a table whose learned part is already collapsed sits at its floor;
    delta = 0 leaves nothing of the start (floor 0)."""
    rng = np.random.default_rng(3)
    labels = np.repeat(np.arange(3), 5)
    X0 = rng.normal(size=(15, 4))
    X = 0.6 * X0 + rng.normal(size=(15, 4)) + 4.0 * np.eye(3, 4)[labels]
    table = 0.6 * X0.copy()
    for g in range(3):
        table[labels == g] += (X - 0.6 * X0)[labels == g].mean(axis=0)
    assert fc.decay_floor(X, X0, 0.6, labels) == pytest.approx(
        fc.collapse_ratio(table, labels), rel=1e-12
    )
    assert fc.decay_floor(table, X0, 0.6, labels) == pytest.approx(
        fc.collapse_ratio(table, labels), rel=1e-12
    )
    assert fc.decay_floor(X, X0, 0.0, labels) == pytest.approx(0.0, abs=1e-12)
    # a larger remnant of the start holds the ratio higher
    assert fc.decay_floor(X, X0, 0.9, labels) > fc.decay_floor(X, X0, 0.3, labels)


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.ones((4, 2)), np.ones((3, 2)), 0.5), "X0"),
        ((np.ones((4, 2)), np.full((4, 2), np.nan), 0.5), "X0"),
        ((np.ones((4, 2)), np.ones((4, 2)), 1.5), "delta"),
        ((np.ones((4, 2)), np.ones((4, 2)), float("nan")), "delta"),
        ((np.ones((4, 2)), np.ones((4, 2)), "0.5"), "delta"),
    ],
)
def test_decay_floor_refuses_bad_inputs(args, match):
    with pytest.raises(ValueError, match=match):
        fc.decay_floor(*args, np.array([0, 0, 1, 1]))


# -- inputs, caches and faults ------------------------------------------------------------------


def test_collapse_metrics_refuse_undefined_inputs():
    X = np.array([[1.0, 0.0], [1.0, 0.1], [-1.0, 0.0], [-1.0, 0.1]])
    labels = np.array([0, 0, 1, 1])
    collapse_stats(X, labels)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        collapse_stats(bad, labels)
    with pytest.raises(ValueError, match="same mean"):
        collapse_stats(np.ones((4, 2)), labels)  # identical vectors: 0 / 0
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # group 0's mean is zero
    with pytest.raises(ValueError, match="zero"):
        direction_cosines(Z, labels)
