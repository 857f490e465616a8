"""qwem_lib.qwem.measures against cases worked by hand and plain loops (issue 45: the survivors of mutation
testing). Each expected value below is derived in the comment beside it, not from the module's code."""

from __future__ import annotations

import numpy as np
import pytest

from qwem_lib.maths import linalg
from qwem_lib.qwem import measures as ms


def _rot(theta: float) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def test_principal_cosines_of_two_planes_at_a_known_angle():
    # span(e1, e2) and span(e1, cos θ e2 + sin θ e3): one shared direction (cos 0 = 1), one at angle θ
    th = 0.7
    A = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]) @ np.array([[2.0, 1.0], [0.0, 3.0]])
    B = np.array([[1.0, 0.0], [0.0, np.cos(th)], [0.0, np.sin(th)]]) * 5.0  # scale is irrelevant
    np.testing.assert_allclose(linalg.principal_cosines(A, B), [1.0, np.cos(th)], atol=1e-12)
    same = linalg.principal_cosines(A, A)
    assert np.all(same <= 1.0) and np.allclose(same, 1.0)  # clipped: never above 1 by rounding
    orth = linalg.principal_cosines(np.eye(3)[:, :1], np.eye(3)[:, 1:2])
    assert orth.tolist() == [0.0]  # exactly orthogonal lines: cosine 0, never negative
    assert linalg.principal_cosines([[1], [0]], [[1], [1]]) == pytest.approx(
        [np.sqrt(0.5)]
    )  # lists work


def test_eigen_overlap_of_permuted_features_is_the_permutation():
    rng = np.random.default_rng(0)
    Q = np.linalg.qr(rng.normal(size=(6, 3)))[0]
    A = Q * [3.0, 2.0, 1.0]  # singular vectors q1, q2, q3 in that order
    B = Q[:, [1, 0, 2]] * [3.0, 2.0, 1.0]  # B's first feature is A's second and vice versa
    np.testing.assert_allclose(
        ms.eigen_overlap(A, B), [[0, 1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-12
    )
    np.testing.assert_allclose(ms.eigen_overlap(A, B, k=2), [[0, 1], [1, 0]], atol=1e-12)
    assert ms.eigen_overlap(A, B, 1).shape == (1, 1)
    for bad in (0, 4):
        with pytest.raises(ValueError, match=r"k must be an integer in \[1, 3\]"):
            ms.eigen_overlap(A, B, bad)


def test_nested_subspace_sines_by_hand():
    th = 0.3
    ov = np.zeros((2, 3, 2))
    ov[0, :2, :2] = np.eye(2)  # time 0: u_k = q_k exactly
    ov[1, :2, :2] = _rot(th)  # time 1: the first two directions rotated within span(q1, q2)
    out = ms.nested_subspace_sines(ov)
    # k = 1: the angle between u1 and q1 is θ; k = 2: the planes are the same (√(1 − c²) at c = 1 − ε is
    # about √ε ≈ 1.5e-8, hence the tolerance)
    np.testing.assert_allclose(out, [[0.0, 0.0], [np.sin(th), 0.0]], atol=1e-7)
    assert ms.nested_subspace_sines(np.eye(2)[None]).shape == (1, 2)  # r == d is allowed
    with pytest.raises(ValueError, match="r >= d"):
        ms.nested_subspace_sines(np.zeros((1, 1, 2)))
    with pytest.raises(ValueError, match="shape"):
        ms.nested_subspace_sines(np.zeros((3, 2)))


def test_diagonal_dominance_matches_a_loop():
    O = np.array([[1.0, 2.0, 0.0], [0.0, 3.0, 4.0], [5.0, 0.0, 6.0]])

    def loop(band, offset):
        num = sum(O[i, j] for i in range(3) for j in range(3) if abs(i - j - offset) <= band)
        return num / O.sum()

    assert ms.diagonal_dominance(O) == pytest.approx(10 / 21)  # 1 + 3 + 6
    assert ms.diagonal_dominance(O, offset=-1) == pytest.approx(6 / 21)  # O[0,1] + O[1,2]
    assert ms.diagonal_dominance(O, offset=2) == pytest.approx(5 / 21)  # O[2,0]
    for band in (0, 1, 2):
        for offset in (-1, 0, 1):
            assert ms.diagonal_dominance(O, band, offset) == pytest.approx(loop(band, offset))
    assert ms.diagonal_dominance(O, band=2) == 1.0
    with pytest.raises(ValueError, match="square"):
        ms.diagonal_dominance(np.ones((2, 3)))
    with pytest.raises(ValueError, match="O must be 2-D"):
        ms.diagonal_dominance(np.ones(4))
    with pytest.raises(ValueError, match="non-negative"):
        ms.diagonal_dominance(np.array([[1.0, -0.5], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="band must be"):
        ms.diagonal_dominance(O, band=-1)
    with pytest.raises(ValueError, match="no mass"):
        ms.diagonal_dominance(np.zeros((2, 2)))


def test_without_constant_is_the_centring_projector():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5, 3)) + 4.0
    P = np.eye(5) - np.ones((5, 5)) / 5  # I − 11ᵀ/V
    np.testing.assert_allclose(ms.without_constant(X), P @ X, atol=1e-12)
    np.testing.assert_allclose(ms.without_constant([[1.0], [3.0]]), [[-1.0], [1.0]])  # V = 2
    with pytest.raises(ValueError, match="V >= 2"):
        ms.without_constant(np.ones((1, 3)))
    with pytest.raises(ValueError, match="X must be 2-D"):
        ms.without_constant(np.ones(4))
    with pytest.raises(ValueError, match="X must hold finite"):
        ms.without_constant(np.array([[1.0, np.inf], [0.0, 1.0]]))


def test_constant_overlap_by_hand():
    # a pure offset: u1 = 1/√V, overlap 1; a column orthogonal to 1: overlap 0
    assert linalg.constant_overlap(np.full((4, 1), 3.0)) == pytest.approx(1.0)
    assert linalg.constant_overlap(np.array([[1.0], [-1.0], [1.0], [-1.0]])) == pytest.approx(0.0)
    # u1 = (1, 0): (u1 · 1/√2)² = 1/2
    assert linalg.constant_overlap(np.array([[2.0, 0.0], [0.0, 1.0]])) == pytest.approx(0.5)
    for bad, why in (
        (np.ones((1, 2)), "V >= 2"),
        (np.ones(3), "X must be"),
        (np.array([[1.0], [np.nan]]), "X"),
    ):
        with pytest.raises(ValueError, match=why):
            linalg.constant_overlap(bad)


def test_gram_distance_edges():
    A = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    assert ms.gram_distance(A, A) == 0.0  # the clip at 0 keeps rounding from a NaN
    # ‖AAᵀ − 2·AAᵀ‖ / ‖2·AAᵀ‖ = 1/2 for B = √2 A
    assert ms.gram_distance(A, np.sqrt(2.0) * A) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="finite"):
        ms.gram_distance(A, np.full((3, 2), np.nan))
    with pytest.raises(ValueError, match="B must be 2-D"):
        ms.gram_distance(A, np.ones(3))
    with pytest.raises(ValueError, match="same number of rows"):
        ms.gram_distance(A, np.ones((4, 2)))


def test_dominance_null_shapes_and_its_one_dimensional_case():
    rng = np.random.default_rng(2)
    A, B = rng.normal(size=(8, 3)), rng.normal(size=(8, 3))
    out = ms.dominance_null(A, B, 2, np.random.default_rng(0), n=5)
    assert out.shape == (5,) and np.all((out >= 0) & (out <= 1))
    # k = 1: a 1 × 1 rotation is ±1, so the share of the only entry is always 1
    assert ms.dominance_null(A, B, 1, np.random.default_rng(0), n=3).tolist() == [1.0] * 3
    assert ms.dominance_null(A, B, 3, np.random.default_rng(0), n=1).shape == (1,)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 3\]"):
        ms.dominance_null(A, B, 0, np.random.default_rng(0))


def test_step_separation_of_logistic_steps():
    # s_k²(t) = end_k / (1 + exp(−(t − c_k)/a)): the fraction f is reached at c_k + a·logit(f), so the
    # 10–90% width is 2a·ln 9 and R_k = (c_{k+1} − c_k) / (2a·ln 9)
    a, c = 0.5, np.array([2.0, 6.0, 7.0])
    t = np.linspace(0.0, 12.0, 120_001)
    end = np.array([3.0, 2.0, 1.0])
    s_sq = end / (1.0 + np.exp(-(t[:, None] - c) / a))
    out = ms.step_separation(t, s_sq, end)
    width = 2 * a * np.log(9.0)
    np.testing.assert_allclose(out["t_mid"], c, atol=1e-3)
    np.testing.assert_allclose(out["width"], width, atol=1e-3)
    np.testing.assert_allclose(out["R"], np.diff(c) / width, rtol=1e-3)
    wider = ms.step_separation(t, s_sq, end, lo=0.25, hi=0.75)["width"]  # 2a·ln 3
    np.testing.assert_allclose(wider, 2 * a * np.log(3.0), atol=1e-3)


def test_brought_directions_by_hand():
    T, r, d = 3, 4, 2
    ov = np.zeros((T, r, d))
    times = np.array([0.0, 1.0, 2.0])
    ov[1, :, 0] = [0.8, 0.6, 0.0, 0.0]  # at t = 1, u1 = 0.8 q1 + 0.6 q2
    ov[2, :, 1] = [0.0, 0.0, 1.0, 0.0]  # at t = 2, u2 = q3
    out = ms.brought_directions(ov, times, np.array([1.1, 1.9]), band=1)
    assert out["index"].tolist() == [0, 2]
    np.testing.assert_allclose(out["share"], [0.64, 1.0])
    np.testing.assert_allclose(out["own"], [0.64, 0.0])
    np.testing.assert_allclose(
        out["near"], [1.0, 1.0]
    )  # |i − k| ≤ 1: q1, q2 for k = 0; q1..q3 for k = 1
    np.testing.assert_allclose(
        ms.brought_directions(ov, times, np.array([1.1, 1.9]), band=0)["near"], [0.64, 0.0]
    )
    nan = ms.brought_directions(ov, times, np.array([np.nan, 2.0]))
    assert nan["index"].tolist() == [-1, 2] and np.isnan(nan["share"][0])
    with pytest.raises(ValueError, match="do not match"):
        ms.brought_directions(ov, times[:2], np.array([1.0]))
    with pytest.raises(ValueError, match="do not match"):
        ms.brought_directions(ov, times, np.array([1.0, 1.0, 1.0]))


# -- overlap measures -----------------------------------------------------------------------------
def test_eigen_overlap_and_diagonal_dominance():
    rng = np.random.default_rng(0)
    Q, _ = np.linalg.qr(rng.standard_normal((30, 8)))
    A = Q * np.arange(8, 0, -1)
    O = ms.eigen_overlap(A, A @ np.diag([1, -1, 1, 1, -1, 1, 1, 1]))
    np.testing.assert_allclose(O, np.eye(8), atol=1e-10)
    assert ms.diagonal_dominance(O) == pytest.approx(1.0)
    R = ms.eigen_overlap(A, rng.standard_normal((30, 8)))
    assert ms.diagonal_dominance(R) < 0.5
    assert np.all(R.sum(1) <= 1 + 1e-10)
    with pytest.raises(ValueError):
        ms.diagonal_dominance(np.zeros((2, 3)))
    S = np.eye(4, k=1)  # row i matches column i + 1
    assert ms.diagonal_dominance(S) == 0.0 and ms.diagonal_dominance(S, offset=-1) == 1.0
    cos = linalg.principal_cosines(A, A[:, ::-1])
    np.testing.assert_allclose(cos, 1.0)


# --- edges found by mutation testing (issue 45) ------------------------------------------------
def test_eigen_overlap_is_d_by_d_and_k_is_bounded_by_d():
    A = np.array([[3.0, 0.0], [0.0, 1.0], [0.0, 0.0]])  # features e1, e2 of three words
    B = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 0.0]])  # features e2, e1
    np.testing.assert_allclose(ms.eigen_overlap(A, B), [[0.0, 1.0], [1.0, 0.0]], atol=1e-15)
    with pytest.raises(ValueError, match="^k must"):
        ms.dominance_null(A, B, 3, np.random.default_rng(0))  # k is at most d = 2, not V = 3
    assert ms.dominance_null(A, B, 2, np.random.default_rng(0)).shape == (
        200,
    )  # n = 200 by default


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ms.eigen_overlap(np.full((3, 2), np.nan), np.ones((3, 2))), "^A "),
        (lambda: ms.eigen_overlap(np.ones(3), np.ones((3, 2))), "^A must be 2-D"),
        (lambda: ms.eigen_overlap(np.ones((3, 2)), np.full((3, 2), np.nan)), "^B "),
        (lambda: ms.eigen_overlap(np.ones((3, 2)), np.ones(3)), "^B must be 2-D"),
        (lambda: ms.nested_subspace_sines(np.full((2, 2, 2), np.nan)), "^overlap "),
        (lambda: ms.nested_subspace_sines(np.ones((2, 2))), "^overlap must be 3-D"),
        (lambda: ms.diagonal_dominance(np.array([[0.0, -0.5], [0.2, 0.1]])), r"got -0\.5$"),
        (lambda: ms.diagonal_dominance(np.eye(2), offset=0.5), "^offset"),
        (lambda: ms.gram_distance(np.full((3, 2), np.nan), np.ones((3, 2))), "^A "),
        (lambda: ms.gram_distance(np.ones(3), np.ones((3, 2))), "^A must be 2-D"),
        (lambda: ms.without_constant(np.full((3, 2), np.nan)), "^X "),
        (
            lambda: ms.dominance_null(np.eye(3), np.eye(3), 2, np.random.default_rng(0), n=0),
            "^n must",
        ),
        (lambda: ms.brought_directions(np.ones((2, 2)), [0, 1], [0.5]), "^overlap must be 3-D"),
        (lambda: ms.brought_directions(np.full((2, 2, 2), np.nan), [0, 1], [0.5]), "^overlap "),
        (lambda: ms.brought_directions(np.ones((2, 2, 2)), [1, 0], [0.5]), "^times "),
        (
            lambda: ms.brought_directions(np.ones((2, 2, 2)), [0, 1], [[0.5]]),
            "^t_steps must be 1-D",
        ),
        (lambda: ms.brought_directions(np.ones((2, 2, 2)), [0, 1], [np.inf]), "got inf$"),
        (lambda: ms.brought_directions(np.ones((2, 2, 2)), [0, 1], [0.5], band=-1), "^band"),
    ],
)
def test_measures_messages_name_the_argument(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_measures_small_edges():
    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(6, 2)), rng.normal(size=(6, 2))
    assert ms.gram_distance(A, 0.1 * B) > 0  # a B of norm below 1 is fine (only B = 0 is refused)
    with pytest.raises(ValueError, match="B is zero"):
        ms.gram_distance(A, np.zeros((6, 2)))
    # fewer reference vectors (r = 1) than steps (d = 2): mode 2 has no own overlap
    out = ms.brought_directions(np.ones((2, 1, 2)) * 0.5, [0.0, 1.0], [0.2, 0.8])
    assert out["own"][0] == pytest.approx(0.25) and np.isnan(out["own"][1])
    assert out["index"].tolist() == [0, 0]
    np.testing.assert_allclose(
        ms.diagonal_dominance(np.array([[1.0, 2.0], [3.0, 4.0]]), band=2), 1.0
    )  # band 2 by default in brought_directions; here any band >= 1 covers a 2 x 2 matrix


def test_brought_directions_default_band_is_two():
    ov = np.zeros((1, 5, 1))
    ov[0, :, 0] = np.sqrt([0.1, 0.2, 0.3, 0.25, 0.15])  # squared overlaps of u_1 with q_1..q_5
    out = ms.brought_directions(ov, [0.0], [0.0])
    assert out["near"][0] == pytest.approx(0.6)  # q_1..q_3: |i − k| <= 2
    assert out["index"][0] == 2 and out["share"][0] == pytest.approx(0.3)


def test_nested_sines_of_a_full_rotation_are_zero_not_nan():
    """With every direction kept the subspaces coincide: the last sine is 0, even when rounding puts the
    smallest singular value a hair above 1 (this rotation's is 1 + 2e-16)."""
    Q = np.linalg.qr(np.random.default_rng(84).normal(size=(4, 4)))[0]
    assert np.linalg.svd(Q, compute_uv=False).min() > 1.0  # the rounding the clip guards against
    s = ms.nested_subspace_sines(Q[None])
    assert np.isfinite(s).all() and s[0, -1] == 0.0


def test_feature_match_against_its_parts():
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(30, 5)), rng.normal(size=(30, 5))
    out = ms.feature_match(A, B, 4, np.random.default_rng(1), n_null=40)
    O = ms.eigen_overlap(A, B, 4)
    np.testing.assert_allclose(out["O"], O)
    assert out["D"] == pytest.approx(ms.diagonal_dominance(O))
    assert out["mean_sq"] == pytest.approx(O.sum() / 4)
    null = ms.dominance_null(A, B, 4, np.random.default_rng(1), n=40)
    assert out["null99"] == pytest.approx(np.quantile(null, 0.99))
    # the same features, permuted: D of a feature with itself is 1, far above the null
    perm = B[:, ::-1]
    assert ms.feature_match(B, perm, 3, np.random.default_rng(0), n_null=40)["D"] == pytest.approx(
        ms.diagonal_dominance(ms.eigen_overlap(B, perm, 3))
    )


def test_dominance_difference_bootstrap_is_a_loop_over_row_resamples():
    rng = np.random.default_rng(6)
    X, A, B = (rng.normal(size=(20, 4)) for _ in range(3))
    out = ms.dominance_difference_bootstrap(X, A, B, 3, np.random.default_rng(2), 7)
    r = np.random.default_rng(2)
    for b in range(7):
        idx = r.integers(0, 20, 20)
        Xc, Ac, Bc = (M[idx] - M[idx].mean(axis=0) for M in (X, A, B))  # centred after the draw
        expect = ms.diagonal_dominance(ms.eigen_overlap(Xc, Ac, 3)) - ms.diagonal_dominance(
            ms.eigen_overlap(Xc, Bc, 3)
        )
        assert out[b] == pytest.approx(expect)
    # X against itself and against a rotation-free copy: the difference of a matrix with itself is zero
    assert np.allclose(
        ms.dominance_difference_bootstrap(X, A, A, 3, np.random.default_rng(0), 3), 0.0
    )
    with pytest.raises(ValueError, match="same words"):
        ms.dominance_difference_bootstrap(X, A[:5], B, 3, np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="n must be"):
        ms.dominance_difference_bootstrap(X, A, B, 3, np.random.default_rng(0), 0)


@pytest.mark.parametrize("bad", ["X", "A", "B"])
def test_dominance_difference_bootstrap_names_a_bad_input(bad):
    rng = np.random.default_rng(1)
    args = {n: rng.normal(size=(10, 3)) for n in ("X", "A", "B")}
    args[bad] = args[bad][:, 0]  # 1-D
    with pytest.raises(ValueError, match=rf"^{bad} must be 2-D"):
        ms.dominance_difference_bootstrap(args["X"], args["A"], args["B"], 2, rng, 2)
    args[bad] = np.full((10, 3), np.nan)
    with pytest.raises(ValueError, match=rf"^{bad} must hold finite numbers"):
        ms.dominance_difference_bootstrap(args["X"], args["A"], args["B"], 2, rng, 2)


def test_feature_match_default_null_has_200_draws():
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=(30, 5)), rng.normal(size=(30, 5))
    null = ms.dominance_null(A, B, 4, np.random.default_rng(1), n=200)
    out = ms.feature_match(A, B, 4, np.random.default_rng(1))
    assert out["null99"] == np.quantile(null, 0.99)
