"""Unit tests for qwem_lib.qwem.evaluation: analogy protocols on a hand-made file, similarity, counts, errors."""

from __future__ import annotations

import numpy as np
import pytest

from qwem_lib.data import DataError, fetch
from qwem_lib.maths.stats import gap_se
from qwem_lib.qwem import evaluation as ev

QUESTIONS = """: capitals
Paris France Rome Italy
Paris France Berlin Germany
Rome Italy Berlin Germany
Oslo Norway Paris France
: plural
cat cats dog dogs
"""


@pytest.fixture()
def qfile(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(QUESTIONS)
    return p


def exact_embedding(words):
    """Embeddings in which b - a + a' is exactly b' for the capitals (country = capital + offset)."""
    rng = np.random.default_rng(0)
    base = {w: rng.standard_normal(12) for w in words}
    offset = 3 * rng.standard_normal(12)
    for cap, country in (("paris", "france"), ("rome", "italy"), ("berlin", "germany")):
        base[country] = base[cap] + offset
    return np.array([base[w] for w in words])


def test_pairs_protocol_counts(qfile):
    words = ["paris", "france", "rome", "italy", "berlin", "germany", "cat", "cats", "dog"]
    items, cat = ev.analogy_items(words, qfile, "pairs")
    # capitals: 3 distinct in-vocabulary pairs (oslo missing) -> 3*2 ordered pairs; plural: 1 pair -> none
    assert len(items) == 6 and set(cat.tolist()) == {0}
    assert all(tuple(r[:2]) != tuple(r[2:]) for r in items)
    q, _ = ev.analogy_items(words, qfile, "questions")
    assert len(q) == 3  # the plural question lacks 'dogs', the Oslo one lacks 'oslo', 'norway'


def test_analogy_accuracy_exact_and_exclusion(qfile):
    words = ["paris", "france", "rome", "italy", "berlin", "germany", "cat", "cats", "dog"]
    W = exact_embedding(words)
    acc, n = ev.analogy_accuracy(words, W, qfile)
    assert (acc, n) == (1.0, 6)
    acc_q, n_q = ev.analogy_accuracy(words, W, qfile, protocol="questions")
    assert (acc_q, n_q) == (1.0, 3)
    # per-category breakdown sums to the micro average
    acc, n, per = ev.analogy_accuracy(words, W, qfile, per_category=True)
    assert per == {"capitals": (1.0, 6)}
    # the query words are excluded: even if b' is a copy of a, a is never the answer
    hits = ev._analogy_hits(ev.normalize_rows(np.eye(4) + 0.01), np.array([[0, 1, 2, 3]]))
    assert hits.shape == (1,)


def test_analogy_batches_agree_with_loop(qfile):
    rng = np.random.default_rng(5)
    V = 50
    Wn = ev.normalize_rows(rng.standard_normal((V, 8)))
    items = rng.integers(0, V, size=(300, 4))
    got = ev._analogy_hits(Wn, items, batch=7)
    want = []
    for a, b, a2, b2 in items:
        s = Wn @ (Wn[b] - Wn[a] + Wn[a2])
        s[[a, b, a2]] = -np.inf
        want.append(np.argmax(s) == b2)
    np.testing.assert_array_equal(got, want)


def test_similarity_spearman_perfect_and_reversed(monkeypatch):
    rows = [("a", "b", 1.0), ("a", "c", 2.0), ("b", "c", 3.0), ("a", "d", 4.0)]
    monkeypatch.setattr(ev, "_similarity_rows", lambda dataset: rows)
    words = ["a", "b", "c", "d"]
    ang = {"a": 0.0, "b": 1.5, "c": 1.0, "d": 0.2}  # cos(a,b)<cos(a,c)<cos(b,c)<cos(a,d)
    W = np.array([[np.cos(ang[w]), np.sin(ang[w])] for w in words])
    rho, n = ev.similarity_spearman(words, W, "men")
    assert n == 4 and rho == pytest.approx(1.0)
    with pytest.raises(ValueError, match="at least 3"):
        ev.similarity_spearman(["a", "b"], W[:2], "men")


def test_errors(qfile):
    words = ["x", "y", "z"]
    with pytest.raises(ValueError, match="no analogy"):
        ev.analogy_accuracy(words, np.ones((3, 2)), qfile)
    with pytest.raises(ValueError, match="one row per word"):
        ev.analogy_accuracy(words, np.ones((4, 2)), qfile)
    with pytest.raises(ValueError, match="W must hold finite"):
        ev.analogy_accuracy(words, np.full((3, 2), np.nan), qfile)
    with pytest.raises(ValueError):
        ev.analogy_items(words, qfile, "nonsense")
    with pytest.raises(ValueError):
        ev.similarity_spearman(words, np.ones((3, 2)), "simlex")
    bad = qfile.parent / "bad.txt"
    bad.write_text(": c\na b c\n")
    with pytest.raises(DataError):
        ev.analogy_items(words, bad)


def _have_real_data() -> bool:
    try:
        (
            fetch("google_analogy", download=False),
            fetch("men", download=False),
            fetch("ws353", download=False),
        )
        return True
    except DataError:
        return False


@pytest.mark.skipif(not _have_real_data(), reason="evaluation sets not available")
def test_real_files_parse():
    cats = ev.analogy_categories()
    assert len(cats) == 14 and sum(len(q) for _, q in cats) == 19_544
    allw = sorted({w for _, qs in cats for q in qs for w in q})
    assert len(ev.analogy_items(allw, protocol="questions")[0]) == 19_544
    assert (
        len(
            ev.similarity_pairs(
                sorted({w for r in ev._similarity_rows("men") for w in r[:2]}), "men"
            )[0]
        )
        == 3000
    )
    assert len(ev._similarity_rows("ws353")) == 353


def test_method_registry():
    assert set(ev.METHODS) == {"w2v_k1", "w2v_k5", "svd_mstar", "svd_ppmi", "svd_pmi"}
    assert ev.PAPER_FIG3B["svd_mstar"]["analogy"] == 0.663
    with pytest.raises(ValueError, match="unknown method"):
        ev.method_embeddings("glove", "enwiki2015_1m7", 100, 10)


def test_gap_se_and_competitive_rule():
    se = gap_se(0.5, 0.5, 100)
    assert se == pytest.approx(np.sqrt(0.5 / 100))
    assert gap_se(0.0, 1.0, 10) == 0.0
    ok, m = ev.is_competitive(0.45, 0.50, 100)
    assert m == pytest.approx(3 * gap_se(0.45, 0.5, 100)) and ok  # 5 points below, margin 21 points
    ok, m = ev.is_competitive(0.40, 0.50, 10_000)
    assert not ok and m == pytest.approx(3 * gap_se(0.4, 0.5, 10_000))
    assert ev.is_competitive(0.9, 0.5, 10_000)[0]  # above the reference is competitive
    ok, m = ev.is_competitive(0.40, 0.50, 10_000, rerun_spread=0.2)
    assert ok and m == 0.2  # a larger measured spread widens the margin
    with pytest.raises(ValueError):
        gap_se(1.2, 0.5, 10)
    with pytest.raises(ValueError):
        gap_se(0.2, 0.5, 0)
    with pytest.raises(ValueError):
        ev.competitive_margin(0.2, 0.5, 10, rerun_spread=-1)


def test_3cosmul_matches_loop(qfile):
    words = [
        "paris",
        "france",
        "rome",
        "italy",
        "berlin",
        "germany",
        "cat",
        "cats",
        "dog",
        "oslo",
        "norway",
    ]
    W = np.random.default_rng(3).standard_normal((len(words), 6))
    items, _ = ev.analogy_items(words, qfile)
    Wn = ev.normalize_rows(W).astype(np.float64)
    expect = []
    for a, b, a2, b2 in items:
        c = (Wn @ Wn.T + 1) / 2
        s = c[:, b] * c[:, a2] / (c[:, a] + 1e-3)
        s[[a, b, a2]] = -np.inf
        expect.append(int(np.argmax(s)) == b2)
    hits = ev._analogy_hits(ev.normalize_rows(W), items, batch=3, rule="mul")
    assert hits.tolist() == expect
    acc, n = ev.analogy_accuracy(words, W, qfile, rule="mul")
    assert n == len(items) and acc == pytest.approx(np.mean(expect))
    with pytest.raises(ValueError):
        ev.analogy_accuracy(words, W, qfile, rule="pow")


# --- hand-checked cases that fail for wrong code (issue 16) --------------------------------------------

TWO_CATS = """: first
a b c d
: second
e f g h
"""


def test_exclusion_decides_the_answer_by_hand(tmp_path):
    """b - a + a' is closest to a' itself; only excluding the query words makes b' the answer."""
    p = tmp_path / "q.txt"
    p.write_text(": cat\na b c d\n")
    words = ["a", "b", "c", "d", "e"]
    W = np.array(
        [
            [1.0, 0.0, 0.0],  # a
            [1.0, 0.05, 0.0],  # b: b - a is tiny, so the query is almost c
            [0.0, 1.0, 0.0],  # c
            [0.0, 0.9, 0.3],  # d: second closest to the query, first once a, b, c are out
            [0.0, 0.0, 1.0],
        ]
    )  # e
    items, _ = ev.analogy_items(words, p, "questions")
    assert items.tolist() == [[0, 1, 2, 3]]
    assert ev._analogy_hits(ev.normalize_rows(W), items).tolist() == [True]
    q = ev.normalize_rows(W)[1] - ev.normalize_rows(W)[0] + ev.normalize_rows(W)[2]
    assert np.argmax(ev.normalize_rows(W) @ q) == 2  # without exclusion the answer would be c
    # move d away: now e wins and the analogy is missed
    W2 = W.copy()
    W2[3] = [0.0, -1.0, 0.0]
    assert ev._analogy_hits(ev.normalize_rows(W2), items).tolist() == [False]


def test_per_category_scores_by_hand(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(TWO_CATS)
    words = list("abcdefgh")
    rng = np.random.default_rng(3)
    base = {w: rng.standard_normal(16) for w in words}
    base["b"] = base["a"] + 5 * np.eye(16)[0]  # first category: exact parallelogram a:b = c:d
    base["d"] = base["c"] + 5 * np.eye(16)[0]
    W = np.array([base[w] for w in words])  # second category: random, (e, f), (g, h) unrelated
    acc, n, per = ev.analogy_accuracy(words, W, p, per_category=True)
    # "pairs" protocol: each category has 2 ordered pairs of its 2 pairs
    assert n == 4 and set(per) == {"first", "second"}
    assert per["first"] == (1.0, 2)
    hits_second = per["second"][0] * 2
    assert acc == pytest.approx((2 + hits_second) / 4)
    # the micro average weights categories by their number of analogies
    assert per["second"][1] == 2


def test_zero_embeddings_are_refused(qfile):
    words = ["paris", "france", "rome", "italy", "berlin", "germany", "cat", "cats", "dog"]
    with pytest.raises(ValueError, match="all-zero"):
        ev.analogy_accuracy(words, np.zeros((len(words), 4)), qfile)  # used to score 0.5 by ties
    W = exact_embedding(words)
    W[6] = 0.0  # 'cat' appears in no answerable analogy here: not refused
    assert ev.analogy_accuracy(words, W, qfile)[0] == 1.0
    W[0] = 0.0
    with pytest.raises(ValueError, match="'paris'"):
        ev.analogy_accuracy(words, W, qfile)


def test_similarity_bootstrap_is_paired_and_matches_a_loop(monkeypatch):
    from scipy.stats import spearmanr

    rng0 = np.random.default_rng(2)
    words = [f"w{i}" for i in range(12)]
    rows = [
        (words[a], words[b], float(rng0.random())) for a in range(12) for b in range(a + 1, 12)
    ][:30]
    monkeypatch.setattr(ev, "_similarity_rows", lambda dataset: rows)
    A, B = rng0.standard_normal((12, 4)), rng0.standard_normal((12, 4))
    rho, draws, n = ev.similarity_bootstrap(
        words, [A, B], "men", n_boot=25, rng=np.random.default_rng(7)
    )
    assert n == 30 and draws.shape == (25, 2)
    assert rho[0] == pytest.approx(ev.similarity_spearman(words, A, "men")[0])
    # a plain loop over the same resamples, cosines computed by hand
    idx_rng = np.random.default_rng(7)
    ia = {w: i for i, w in enumerate(words)}
    for b in range(25):
        idx = idx_rng.integers(0, 30, 30)
        for j, W in enumerate((A, B)):
            cos = [
                W[ia[rows[k][0]]]
                @ W[ia[rows[k][1]]]
                / np.linalg.norm(W[ia[rows[k][0]]])
                / np.linalg.norm(W[ia[rows[k][1]]])
                for k in idx
            ]
            want = spearmanr(cos, [rows[k][2] for k in idx]).statistic
            assert draws[b, j] == pytest.approx(want, abs=1e-12)
    # the same embedding twice gives identical columns (paired draws)
    _, d2, _ = ev.similarity_bootstrap(words, [A, A], "men", n_boot=5)
    np.testing.assert_array_equal(d2[:, 0], d2[:, 1])
    with pytest.raises(ValueError, match="n_boot"):
        ev.similarity_bootstrap(words, [A], "men", n_boot=0)
    with pytest.raises(ValueError, match="at least one"):
        ev.similarity_bootstrap(words, [], "men")


def test_score_rows_formats_each_embedding_with_its_errors_and_the_papers_row():
    import qwem_lib as q

    hits = {"a": np.array([True, False, True, True]), "b": np.array([False, False, True, False])}
    draws = {"a": np.array([0.70, 0.80]), "b": np.array([0.20, 0.30])}
    sim = {
        "men": (np.array([0.5, 0.25]), np.array([[0.4, 0.2], [0.6, 0.3]]), 10),
        "ws353": (np.array([0.1, 0.2]), np.array([[0.1, 0.2], [0.1, 0.2]]), 3),
    }
    rows = q.score_rows("L", hits, draws, sim, {"a": "svd_mstar", "b": "word2vec"})
    assert rows[0] == (
        "| L | a | 75.0% ± 5.0 (n=4) | 0.500 ± 0.100 (n=10) | 0.100 ± 0.000 (n=3) | 66.3% / 0.755 / 0.683 |"
    )
    assert rows[1].startswith(
        "| L | b | 25.0% ± 5.0 (n=4) | 0.250 ± 0.050 (n=10) | 0.200 ± 0.000 (n=3) |"
    )
    assert rows[1].endswith("| 68.0% / 0.744 / 0.698 |")
    with pytest.raises(ValueError):
        q.score_rows("L", hits, {"a": draws["a"]}, sim, {"a": "svd_mstar", "b": "word2vec"})
    with pytest.raises(ValueError):
        q.score_rows("L", hits, draws, {"men": sim["men"]}, {"a": "svd_mstar", "b": "word2vec"})
