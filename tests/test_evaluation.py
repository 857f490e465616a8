"""Unit tests for qwem_lib.qwem.evaluation: analogy protocols on a hand-made file, similarity, counts, errors."""

from __future__ import annotations

import re

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


# --- edges that catch wrong code (issue 45: mutation testing) -------------------------------------------


def _brute_force_hits(W, items, rule):
    """Each analogy answered by a plain loop in float64: cosines of unit rows, a, b, a' excluded."""
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    out = []
    for a, b, a2, b2 in items:
        if rule == "add":
            s = Wn @ (Wn[b] - Wn[a] + Wn[a2])
        else:
            c = (Wn @ Wn[[a, b, a2]].T + 1.0) / 2.0
            s = c[:, 1] * c[:, 2] / (c[:, 0] + 1e-3)
        s[[a, b, a2]] = -np.inf
        out.append(int(np.argmax(s)) == b2)
    return np.array(out)


def _all_items(V, n, rng):
    """n analogy items over V words with four distinct ids each."""
    return np.array([rng.choice(V, 4, replace=False) for _ in range(n)], dtype=np.int64)


def test_analogy_hits_is_a_brute_force_loop_for_both_rules():
    rng = np.random.default_rng(11)
    W = rng.standard_normal((30, 5))
    items = _all_items(30, 200, rng)
    for rule in ("add", "mul"):
        hits = ev.analogy_hits(W, items, rule=rule)
        assert hits.dtype == bool and hits.shape == (200,)
        np.testing.assert_array_equal(hits, _brute_force_hits(W, items, rule))
    # the default rule is 3CosAdd, and the two rules disagree here (so the default is tested)
    np.testing.assert_array_equal(ev.analogy_hits(W, items), _brute_force_hits(W, items, "add"))
    assert (_brute_force_hits(W, items, "add") != _brute_force_hits(W, items, "mul")).any()
    # batches of any size give the same answers (the first batch's rows are not repeated)
    Wn = ev.normalize_rows(W)
    for batch in (1, 7, 199, 200, 5000):
        np.testing.assert_array_equal(
            ev._analogy_hits(Wn, items, batch=batch), _brute_force_hits(W, items, "add")
        )
    assert ev.analogy_hits(W, np.zeros((0, 4), np.int64)).shape == (0,)


def test_3cosmul_uses_shifted_cosines_and_its_small_constant():
    """Words almost opposite to a make 3CosMul's denominator small: there the shift (cos + 1)/2 and the
    constant 1e-3 decide the answer, and a scorer with (cos + 1)/3, or 3e-3, answers differently."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(4)
    W = np.vstack([a, rng.standard_normal((5, 4)), -a + 0.05 * rng.standard_normal((34, 4))])
    items = np.array([[0, b, a2, t] for b in range(1, 6) for a2 in range(1, 6) if a2 != b
                      for t in range(6, 40)], dtype=np.int64)  # fmt: skip

    def mul(shift, eps):
        Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
        ans = []
        for x, y, z, _ in items:
            c = (Wn @ Wn[[x, y, z]].T + 1.0) / shift
            s = c[:, 1] * c[:, 2] / (c[:, 0] + eps)
            s[[x, y, z]] = -np.inf
            ans.append(int(np.argmax(s)))
        return np.array(ans)

    right = mul(2.0, 1e-3) == items[:, 3]
    np.testing.assert_array_equal(ev.analogy_hits(W, items, rule="mul"), right)
    assert ((mul(3.0, 1e-3) == items[:, 3]) != right).any()  # the control: the test can tell
    assert ((mul(2.0, 3e-3) == items[:, 3]) != right).any()


@pytest.mark.parametrize(
    "items, match",
    [
        (np.zeros((3, 3), np.int64), r"\(n, 4\)"),
        (np.zeros(4, np.int64), r"\(n, 4\)"),
        (np.zeros((2, 4, 1), np.int64), r"\(n, 4\)"),
        (np.zeros((3, 4)), "integer"),
        (np.array([[0, 1, 2, -1]]), "outside 0..5"),
        (np.array([[0, 1, 2, 6]]), "outside 0..5"),
    ],
)
def test_analogy_hits_refuses_bad_items(items, match):
    W = np.random.default_rng(0).standard_normal((6, 3))
    with pytest.raises(ValueError, match=match):
        ev.analogy_hits(W, items)


def test_analogy_hits_edges_of_its_checks():
    rng = np.random.default_rng(1)
    W = rng.standard_normal((6, 3))
    assert ev.analogy_hits(W, np.array([[0, 1, 2, 5]])).shape == (1,)  # the last id is allowed
    assert ev.analogy_hits(W, np.array([[0, 1, 2, 3]], dtype=np.int32)).shape == (1,)
    with pytest.raises(ValueError, match="W must be 2-D"):
        ev.analogy_hits(W[None], np.array([[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="rule"):
        ev.analogy_hits(W, np.array([[0, 1, 2, 3]]), rule="ADD")
    Z = W.copy()
    Z[4] = 0.0  # a zero row no item uses is fine; one it uses is refused, by id
    assert ev.analogy_hits(Z, np.array([[0, 1, 2, 3]])).shape == (1,)
    with pytest.raises(ValueError, match=r"all-zero embedding \(ids \[4\]\)"):
        ev.analogy_hits(Z, np.array([[0, 1, 4, 3]]))
    with pytest.raises(ValueError, match="finite"):
        ev.analogy_hits(np.full((6, 3), np.inf), np.array([[0, 1, 2, 3]]))


def test_normalize_rows_is_float32_unit_rows_keeping_zero_rows():
    W = np.array([[3.0, 4.0], [0.0, 0.0], [-2.0, 0.0]])
    Wn = ev.normalize_rows(W)
    assert Wn.dtype == np.float32
    np.testing.assert_allclose(Wn, [[0.6, 0.8], [0.0, 0.0], [-1.0, 0.0]], rtol=1e-6)


def test_analogy_items_and_pairs_by_hand(qfile):
    words = ["paris", "france", "rome", "italy", "berlin", "germany", "oslo", "cat", "cats", "dog"]
    pairs = ev.analogy_pairs(words, qfile)
    # the capitals' distinct pairs in order of first appearance; 'oslo norway' is out (no 'norway');
    # the plural category has one pair (dog, dogs is out), so the pairs protocol has no analogy there
    assert pairs["capitals"].tolist() == [[0, 1], [2, 3], [4, 5]]
    assert pairs["plural"].tolist() == [[7, 8]]
    items, cat = ev.analogy_items(words, qfile, "pairs")
    assert items.tolist() == [[a, b, c, d] for (a, b) in ([0, 1], [2, 3], [4, 5])
                              for (c, d) in ([0, 1], [2, 3], [4, 5]) if (a, b) != (c, d)]  # fmt: skip
    assert cat.tolist() == [0] * 6
    items, cat = ev.analogy_items(words, qfile, "questions")
    assert items.tolist() == [[0, 1, 2, 3], [0, 1, 4, 5], [2, 3, 4, 5]] and cat.tolist() == [
        0,
        0,
        0,
    ]
    empty, ecat = ev.analogy_items(["zzz"], qfile)
    assert empty.shape == (0, 4) and empty.dtype == np.int64 and ecat.shape == (0,)
    assert ev.analogy_pairs(["zzz"], qfile) == {}
    cats = ev.analogy_categories(qfile)
    assert [n for n, _ in cats] == ["capitals", "plural"]
    assert cats[0][1][0] == ("paris", "france", "rome", "italy")  # lowercased
    for bad in ("paris", b"paris", [], ["paris", 3], 5):
        with pytest.raises(TypeError, match="words"):
            ev.analogy_items(bad, qfile)


def test_the_questions_file_is_read_again_when_it_changes(tmp_path):
    p = tmp_path / "q.txt"
    p.write_text(": one\na b c d\n")
    assert [n for n, _ in ev.analogy_categories(p)] == ["one"]
    p.write_text(": two\na b c d\n: three\ne f g h\n")
    assert [n for n, _ in ev.analogy_categories(p)] == ["two", "three"]
    for text, match in (
        ("a b c d\n", "category"),
        ("\n\n", "no categories"),
        (": c\na b c d e\n", "four"),
    ):
        p.write_text(text)
        with pytest.raises(DataError, match=match):
            ev.analogy_categories(p)
    p.write_bytes(b": c\n\xff\xfe b c d\n")
    with pytest.raises(DataError, match="UTF-8"):
        ev.analogy_categories(p)
    with pytest.raises(DataError, match="cannot be read"):
        ev.analogy_categories(tmp_path / "missing.txt")


def test_embedding_checks_name_the_argument(qfile):
    words = ["paris", "france", "rome", "italy", "berlin", "germany"]
    W = exact_embedding(words)
    with pytest.raises(
        ValueError, match=r"W must have one row per word: 6 words, W has shape \(5, 12\)"
    ):
        ev.analogy_accuracy(words, W[:5], qfile)
    with pytest.raises(ValueError, match="W must be 2-D"):
        ev.analogy_accuracy(words, W[:, :, None], qfile)
    with pytest.raises(ValueError, match="embeddings must have one row per word"):
        ev.similarity_bootstrap(words, [W[:5]], "men")
    with pytest.raises(ValueError, match="empty vocabulary"):
        ev._check_embedding([], np.zeros((0, 3)))
    W0 = W.copy()
    W0[[0, 2, 4]] = 0.0  # three zero rows are named, with no ellipsis
    with pytest.raises(
        ValueError,
        match=r"^3 evaluated word\(s\) have an all-zero embedding \('paris', 'rome', 'berlin'\);",
    ):
        ev.analogy_accuracy(words, W0, qfile)
    many = [f"w{i}" for i in range(8)]
    with pytest.raises(ValueError, match=r"^7 evaluated .*'w4', …\)"):
        ev._check_rows_nonzero(many, np.vstack([np.zeros((7, 2)), np.ones((1, 2))]), np.arange(8))


def test_similarity_rows_and_pairs_from_a_file(monkeypatch):
    lines = ["# a comment", "", "Tiger cat 7.35", "book paper 7.46", "cat Dog 8.0", "tiger zzz 1.0"]
    monkeypatch.setattr(ev, "read_lines", lambda name: lines)
    assert ev._similarity_rows("ws353") == [
        ("tiger", "cat", 7.35),
        ("book", "paper", 7.46),
        ("cat", "dog", 8.0),
        ("tiger", "zzz", 1.0),
    ]
    pairs, scores = ev.similarity_pairs(["cat", "dog", "tiger", "book"], "men")
    assert pairs.tolist() == [[2, 0], [0, 1]] and scores.tolist() == [7.35, 8.0]
    assert pairs.dtype == np.int64 and scores.dtype == np.float64
    monkeypatch.setattr(ev, "read_lines", lambda name: ["a b"])
    with pytest.raises(DataError, match="'a b' is not 'word word score'"):
        ev._similarity_rows("men")
    with pytest.raises(ValueError, match="'men' or 'ws353'"):
        ev._similarity_rows("MEN")


def test_similarity_spearman_against_scipy_and_its_refusals(monkeypatch):
    from scipy.stats import spearmanr

    rng = np.random.default_rng(4)
    words = [f"w{i}" for i in range(10)]
    rows = [(words[a], words[b], float(rng.random())) for a in range(10) for b in range(a + 1, 10)]
    monkeypatch.setattr(ev, "_similarity_rows", lambda dataset: rows)
    W = rng.standard_normal((10, 3))
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    cos = [Wn[int(a[1:])] @ Wn[int(b[1:])] for a, b, _ in rows]
    rho, n = ev.similarity_spearman(words, W, "men")
    assert n == 45 and rho == pytest.approx(
        spearmanr(cos, [s for *_, s in rows]).statistic, abs=1e-12
    )
    assert ev.similarity_spearman(words[:3], W[:3], "men")[1] == 3  # three pairs are enough
    with pytest.raises(
        ValueError, match=r"^only 1 pairs of 'men' have both words in the vocabulary of 2"
    ):
        ev.similarity_spearman(words[:2], W[:2], "men")
    Z = W.copy()
    Z[1] = 0.0
    with pytest.raises(ValueError, match="all-zero"):
        ev.similarity_spearman(words, Z, "men")
    with pytest.raises(ValueError, match="undefined on these 45 pairs"):
        ev.similarity_spearman(words, np.ones((10, 3)), "men")


def test_similarity_bootstrap_defaults(monkeypatch):
    rng0 = np.random.default_rng(2)
    words = [f"w{i}" for i in range(8)]
    rows = [(words[a], words[b], float(rng0.random())) for a in range(8) for b in range(a + 1, 8)]
    monkeypatch.setattr(ev, "_similarity_rows", lambda dataset: rows)
    A = rng0.standard_normal((8, 3))
    rho, draws, n = ev.similarity_bootstrap(words, [A], "men")
    assert draws.shape == (1000, 1) and n == 28  # the default: 1000 draws
    _, same, _ = ev.similarity_bootstrap(words, [A], "men", rng=np.random.default_rng(0))
    np.testing.assert_array_equal(draws, same)  # the default generator is seeded with 0
    for bad in (1.5, True, -3, "10"):
        with pytest.raises(ValueError, match="n_boot"):
            ev.similarity_bootstrap(words, [A], "men", n_boot=bad)
    assert ev.similarity_bootstrap(words, [A], "men", n_boot=1)[1].shape == (1, 1)
    assert ev.similarity_bootstrap(words, [A], "men", n_boot=np.int64(2))[1].shape == (2, 1)


def test_evaluate_all_is_the_four_scores(monkeypatch):
    words, W, calls = ["a", "b"], np.ones((2, 2)), []

    def fake_analogy(w, E, protocol):
        calls.append(protocol)
        assert w is words and E is W
        return 0.5, len(w)

    def fake_similarity(w, E, ds):
        calls.append(ds)
        assert w is words and E is W
        return 0.25, 3

    monkeypatch.setattr(ev, "analogy_accuracy", fake_analogy)
    monkeypatch.setattr(ev, "similarity_spearman", fake_similarity)
    out = ev.evaluate_all(words, W)
    assert out == {
        "analogy": (0.5, 2),
        "analogy_questions": (0.5, 2),
        "men": (0.25, 3),
        "ws353": (0.25, 3),
    }
    assert calls == ["pairs", "questions", "men", "ws353"]


def test_competitive_margin_by_hand():
    se = np.sqrt(0.6 * 0.4 / 400 + 0.7 * 0.3 / 100)  # two independent binomial errors
    assert ev.competitive_margin(0.6, 0.7, 400, 100) == pytest.approx(3.0 * se, rel=1e-12)
    assert ev.competitive_margin(0.6, 0.7, 400, 100, z=2.0) == pytest.approx(2.0 * se, rel=1e-12)
    assert ev.competitive_margin(0.6, 0.7, 400, 100, rerun_spread=0.5) == 0.5
    assert ev.competitive_margin(0.6, 0.7, 400, 100, rerun_spread=0.0) == pytest.approx(3.0 * se)
    assert ev.COMPETITIVE_Z == 3.0
    for bad in dict(z=0.0), dict(z=-1.0), dict(rerun_spread=-1e-9):
        with pytest.raises(ValueError):
            ev.competitive_margin(0.6, 0.7, 400, 100, **bad)
    # is_competitive: exactly at the margin is competitive, just below it is not
    m = ev.competitive_margin(0.6, 0.7, 400, 100)
    assert ev.is_competitive(0.7 - m, 0.7, 400, 100)[0] is True
    ok, m2 = ev.is_competitive(0.6, 0.7, 400, 100, z=1.0)
    assert m2 == pytest.approx(se) and ok is False  # 0.1 below with one standard error of 0.052
    assert ev.is_competitive(0.6, 0.7, 400, 100, rerun_spread=0.2) == (True, 0.2)  # 0.2 > 3 SE


def test_method_embeddings_dispatch(monkeypatch):
    import qwem_lib.qwem.spectral as sp
    import qwem_lib.qwem.w2v as w2v

    seen = []

    def fake_svd(corpus, V, d, target, **kw):
        seen.append(("svd", corpus, V, d, target, kw))
        return ["x"], np.ones((1, d))

    def fake_w2v(corpus, V, d, negative, **kw):
        seen.append(("w2v", corpus, V, d, negative, kw))
        return ["y"], np.zeros((1, d)), None

    monkeypatch.setattr(sp, "spectral_embeddings", fake_svd)
    monkeypatch.setattr(w2v, "train_word2vec", fake_w2v)
    for t in ("mstar", "pmi", "ppmi"):
        words, W = ev.method_embeddings(f"svd_{t}", "C", 10, 3, seed=2)
        assert words == ["x"] and W.shape == (1, 3)
        assert seen[-1] == ("svd", "C", 10, 3, t, {"seed": 2})
    words, W = ev.method_embeddings("w2v_k5", "C", 10, 4, workers=1)
    assert (
        words == ["y"] and W.shape == (1, 4) and seen[-1] == ("w2v", "C", 10, 4, 5, {"workers": 1})
    )
    assert ev.method_embeddings("w2v_k1", "C", 10, 4)[0] == ["y"] and seen[-1][4] == 1
    for bad in ("svd_glove", "glove", "SVD_mstar"):
        with pytest.raises(ValueError, match="unknown method"):
            ev.method_embeddings(bad, "C", 10, 3)


# -- inputs, caches and faults ------------------------------------------------------------------


def _cosmul_answers(W, items, eps):
    """3CosMul's answer to each (a, b, a') by a plain loop over the vocabulary."""
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    out = []
    for a, b, a2 in items[:, :3]:
        best, arg = -np.inf, -1
        for w in range(len(W)):
            if w in (a, b, a2):
                continue
            cs = [(float(Wn[w] @ Wn[x]) + 1.0) / 2.0 for x in (a, b, a2)]
            s = cs[1] * cs[2] / (cs[0] + eps)
            if s > best:
                best, arg = s, w
        out.append(arg)
    return np.array(out)


def test_3cosmul_uses_levy_goldberg_epsilon():
    from qwem_lib.qwem.evaluation import _analogy_hits, normalize_rows

    rng = np.random.default_rng(5)
    V = 40
    W = rng.standard_normal((V, 3))
    W[20:] = -W[:20] + 1e-4 * rng.standard_normal((20, 3))  # near-antipodes: cos'(w, a) ~ 0
    abc = np.array([rng.choice(V, 3, replace=False) for _ in range(400)])
    ans = _cosmul_answers(W, abc, 1e-3)
    assert (
        ans != _cosmul_answers(W, abc, 1e-6)
    ).any()  # the epsilon matters here: the test can tell
    items = np.concatenate([abc, ans[:, None]], axis=1)
    assert _analogy_hits(normalize_rows(W).astype(np.float64), items, rule="mul").all()


def test_similarity_spearman_on_constant_embeddings(monkeypatch):
    from qwem_lib.qwem import evaluation as ev

    words = ["a", "b", "c", "d", "e"]
    rows = [("a", "b", 1.0), ("c", "d", 2.0), ("a", "e", 3.0), ("b", "c", 4.0)]
    monkeypatch.setattr(ev, "_similarity_rows", lambda name: rows)
    W = np.random.default_rng(0).standard_normal((5, 3))
    rho, n = ev.similarity_spearman(words, W, "men")
    assert np.isfinite(rho) and n == 4
    with pytest.raises(ValueError, match="undefined"):
        ev.similarity_spearman(words, np.ones((5, 3)), "men")


def test_analogy_file_edited_or_not_utf8(tmp_path):
    from qwem_lib.qwem.evaluation import analogy_accuracy

    words = ["a", "b", "c", "d", "e", "f"]
    W = np.eye(6)[:, :5] + 0.01
    f = tmp_path / "q.txt"
    f.write_text(": one\na b c d\n")
    assert analogy_accuracy(words, W, f, protocol="questions")[1] == 1
    f.write_text(": one\na b c d\na b e f\n")  # edited between two calls
    assert analogy_accuracy(words, W, f, protocol="questions")[1] == 2
    f.write_bytes(b": one\na b c \xff\n")
    with pytest.raises(DataError, match="not UTF-8"):
        analogy_accuracy(words, W, f, protocol="questions")


def test_more_edges_of_the_protocols_and_messages(tmp_path, monkeypatch):
    p = tmp_path / "q.txt"
    p.write_text(": one\na b a b\n: two\ne f g h\ne f a b\n")
    words = list("abcdefgh")
    # the first category has one pair only (no analogy); the second still counts
    items, cat = ev.analogy_items(words, p, "pairs")
    assert len(items) == 6 and cat.tolist() == [1] * 6 and cat.dtype == np.int64
    assert ev.analogy_items(["zzz"], p)[1].dtype == np.int64
    # rule="add" is what analogy_accuracy scores by default, on a W where 3CosAdd and 3CosMul disagree
    rng = np.random.default_rng(11)
    W = rng.standard_normal((8, 3))
    qs = ev.analogy_items(words, p, "questions")[0]
    pa = tmp_path / "many.txt"
    pa.write_text(
        ": all\n"
        + "\n".join(" ".join(words[i] for i in row) for row in _all_items(8, 60, rng))
        + "\n"
    )
    its = ev.analogy_items(words, pa, "questions")[0]
    add, mul = _brute_force_hits(W, its, "add"), _brute_force_hits(W, its, "mul")
    assert (add != mul).any() and len(qs) == 3
    assert ev.analogy_accuracy(words, W, pa, protocol="questions")[0] == pytest.approx(add.mean())
    assert ev.analogy_accuracy(words, W, pa, protocol="questions", rule="mul")[0] == pytest.approx(
        mul.mean()
    )
    # six zero rows: the message names five and adds an ellipsis; five: all five, no ellipsis
    many = [f"w{i}" for i in range(8)]
    for nz, tail in ((6, ", …)"), (5, "'w4')")):
        Z = np.vstack([np.zeros((nz, 2)), np.ones((8 - nz, 2))])
        with pytest.raises(ValueError, match=re.escape(tail)):
            ev._check_rows_nonzero(many, Z, np.arange(8))
    Z = np.random.default_rng(0).standard_normal((10, 2))
    Z[:6] = 0.0
    with pytest.raises(ValueError, match=re.escape("(ids [0, 1, 2, 3, 4])")):
        ev.analogy_hits(Z, np.array([[0, 1, 2, 3], [4, 5, 6, 7]]))
    with pytest.raises(TypeError, match="got 'paris'"):
        ev.analogy_items("paris", p)
    # the competitive rule includes its boundary: a gap exactly equal to the margin is competitive
    assert ev.is_competitive(0.5, 0.75, 10**12, rerun_spread=0.25) == (True, 0.25)
    # similarity pairs: none in the vocabulary gives an empty integer array
    monkeypatch.setattr(ev, "read_lines", lambda name: ["x y 1.0"])
    pairs, scores = ev.similarity_pairs(["a"], "men")
    assert pairs.shape == (0, 2) and pairs.dtype == np.int64 and scores.dtype == np.float64


def test_the_datasets_reach_the_functions_that_read_them(monkeypatch):
    """similarity_spearman and similarity_bootstrap read the set they are asked for (a fake that answers
    only for 'ws353' would fail if another name reached it)."""
    rows = [(f"w{a}", f"w{b}", float(a * 7 % 5 + b)) for a in range(6) for b in range(a + 1, 6)]

    def only_ws353(dataset):
        assert dataset == "ws353", dataset
        return rows

    monkeypatch.setattr(ev, "_similarity_rows", only_ws353)
    words = [f"w{i}" for i in range(6)]
    W = np.random.default_rng(1).standard_normal((6, 3))
    rho, n = ev.similarity_spearman(words, W, "ws353")
    rho_b, draws, n_b = ev.similarity_bootstrap(words, [W], "ws353", n_boot=3)
    assert n == n_b == 15 and rho_b[0] == rho


@pytest.mark.skipif(not _have_real_data(), reason="the Google analogy set is not available")
def test_the_default_questions_file_is_the_google_set():
    cats = ev.analogy_categories()
    words = sorted({w for _, qs in cats[:2] for q in qs for w in q})
    pairs = ev.analogy_pairs(words)
    assert set(pairs) == {cats[0][0], cats[1][0]}
    W = np.random.default_rng(0).standard_normal((len(words), 8))
    acc, n, per = ev.analogy_accuracy(words, W, per_category=True)
    assert set(per) == {cats[0][0], cats[1][0]} and sum(m for _, m in per.values()) == n


def test_score_embeddings_replays_its_parts(monkeypatch, qfile):
    """score_embeddings is analogy_items + analogy_hits + pair_bootstrap_weights + replicate_means +
    similarity_bootstrap on one generator, in that order: replayed here call by call."""
    from qwem_lib.maths.stats import replicate_means

    parsed = ev._questions(str(qfile))
    monkeypatch.setattr(ev, "_questions", lambda path: parsed)
    words = ["paris", "france", "rome", "italy", "berlin", "germany", "oslo", "norway", "cat", "cats",
             "dog", "dogs", "tiger", "book"]  # fmt: skip
    rows = [(words[a], words[b], float(s)) for a, b, s in ((0, 2, 3.0), (8, 10, 9.0), (12, 8, 7.0),
                                                           (13, 1, 1.0), (4, 6, 5.0), (9, 11, 8.0))]  # fmt: skip
    rows_of = {"men": rows, "ws353": rows[::-1][:5]}  # two sets, so a mixed-up name is seen
    monkeypatch.setattr(ev, "_similarity_rows", lambda dataset: rows_of[dataset])
    rng0 = np.random.default_rng(5)
    emb = {"A": rng0.standard_normal((14, 3)), "B": rng0.standard_normal((14, 3))}
    s = ev.score_embeddings(words, emb, 30, np.random.default_rng(9))
    items, cat = ev.analogy_items(words)
    assert s.names == ["A", "B"] and np.array_equal(s.items, items) and np.array_equal(s.cat, cat)
    r = np.random.default_rng(9)
    Wb = ev.pair_bootstrap_weights(items, cat, 30, r)
    np.testing.assert_array_equal(s.weights, Wb)
    for name, W in emb.items():
        np.testing.assert_array_equal(s.hits[name], ev.analogy_hits(W, items))
        np.testing.assert_allclose(s.draws[name], replicate_means(Wb, ev.analogy_hits(W, items)))
    for ds in ("men", "ws353"):  # the similarity resamples continue the same generator
        rho, draws, n = ev.similarity_bootstrap(words, [emb["A"], emb["B"]], ds, 30, r)
        np.testing.assert_allclose(s.sim[ds][0], rho)
        np.testing.assert_allclose(s.sim[ds][1], draws)
        assert s.sim[ds][2] == n == len(rows_of[ds])
    # rng_sim draws the similarity resamples instead: the word-pair weights stay those of rng
    s2 = ev.score_embeddings(
        words, emb, 30, np.random.default_rng(9), rng_sim=np.random.default_rng(1)
    )
    np.testing.assert_array_equal(s2.weights, Wb)
    rho, draws, _ = ev.similarity_bootstrap(
        words, [emb["A"], emb["B"]], "men", 30, np.random.default_rng(1)
    )
    np.testing.assert_allclose(s2.sim["men"][1], draws)
    with pytest.raises(ValueError, match="at least one embedding"):
        ev.score_embeddings(words, {}, 30, np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"^embeddings\['A'\] must have one row per word"):
        ev.score_embeddings(words, {"A": emb["A"][:5]}, 30, np.random.default_rng(0))
    with pytest.raises(ValueError, match="^n_boot must"):
        ev.score_embeddings(words, emb, 0, np.random.default_rng(0))


def test_pair_bootstrap_weights_defaults_and_checks():
    from qwem_lib.book import config

    items = np.array([[0, 1, 2, 3], [2, 3, 0, 1], [4, 5, 6, 7], [6, 7, 4, 5]])
    cat = np.array([0, 0, 1, 1])
    idx, n_pairs = ev.pair_index(items, cat)
    assert idx.shape == (4, 2) and n_pairs == {0: 2, 1: 2}
    # no generator: the book's fixed one, so two calls agree
    np.testing.assert_array_equal(
        ev.pair_bootstrap_weights(items, cat, 3),
        ev.pair_bootstrap_weights(items, cat, 3, config.rng(51_001)),
    )
    six = np.concatenate(
        [items, items[:2]]
    )  # six items of four words: the message names the items' count
    with pytest.raises(ValueError, match=r"^cat must be \(6,\) integers"):
        ev.pair_index(six, cat)
