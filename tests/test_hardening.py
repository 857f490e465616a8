"""Issue 27, section 4: what testing the library as a careful user found.

Each test here fails with one of the planted bugs listed in ``tools/mutants.py`` (the "issue 27" block) or
with the bad input / stale cache entry / fault the issue names, and passes with the library as it is. A
test that checks a cache changes each keyed input once and sees the result change (and equal the result
computed without the cache).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import stat

import numpy as np
import pytest

from qwem_lib import data
from qwem_lib.data import DataError, Dataset, FileSpec


# -- helpers -----------------------------------------------------------------------------------
def _register_text(root, name: str, text: str, *, content_sha: bool = False) -> Dataset:
    rel = f"corpus/{name}.txt.xz"
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(lzma.compress(text.encode()))
    spec = FileSpec(
        rel,
        hashlib.sha256(f.read_bytes()).hexdigest(),
        f.stat().st_size,
        content_sha256=hashlib.sha256(text.encode()).hexdigest() if content_sha else None,
    )
    return data.register(Dataset(name, "corpus", "test", (spec,)))


def _zipf_text(n: int = 3000, types: int = 14, seed: int = 8) -> str:
    rng = np.random.default_rng(seed)
    vocab = [f"w{chr(97 + i)}" for i in range(types)]
    p = 1.0 / np.arange(1, types + 1)
    return " " + " ".join(vocab[i] for i in rng.choice(types, size=n, p=p / p.sum()))


@pytest.fixture
def tiny(data_env):
    """A registered Zipfian corpus of 3,000 tokens over 14 words, in an empty data folder and cache."""
    _register_text(data_env, "hard_tiny", _zipf_text())
    return data.load_corpus("hard_tiny")


# -- cache keys: every keyed input changes the result ----------------------------------------------
def test_spectral_cache_key_has_every_input(tiny):
    from qwem_lib.spectral import spectral_embeddings

    base = dict(V=8, d=2, target="mstar", window=3, method="eigh", dtype=np.float64, oov="authors")
    variants = [
        ("V", 9),
        ("d", 3),
        ("target", "pmi"),
        ("window", 2),
        ("method", "krylov"),
        ("dtype", np.float32),
        ("oov", "drop"),
        ("stream_vocab", 9),
    ]
    _, W0 = spectral_embeddings("hard_tiny", **base)  # fills the cache
    _, again = spectral_embeddings("hard_tiny", **base)
    assert np.array_equal(again, W0)
    for key, value in variants:
        kw = {**base, key: value}
        _, fresh = spectral_embeddings("hard_tiny", **kw, use_cache=False)
        assert fresh.shape != W0.shape or not np.array_equal(fresh, W0), key  # the test can tell
        _, cached = spectral_embeddings("hard_tiny", **kw)
        assert np.array_equal(cached, fresh), f"changing {key} returned a stale cache entry"
        _, twice = spectral_embeddings("hard_tiny", **kw)  # now from the cache
        assert np.array_equal(twice, fresh), key


def test_cooccurrence_cache_key_has_every_input(tiny):
    from qwem_lib.corpus_stats import cooccurrence_table

    base = dict(V=8, window=3, weighting="linear", oov="authors", stream_vocab=20_000)
    variants = [
        ("V", 9),
        ("window", 2),
        ("weighting", "flat"),
        ("oov", "drop"),
        ("stream_vocab", 9),
    ]
    _, C0, _ = cooccurrence_table("hard_tiny", **base)
    for key, value in variants:
        kw = {**base, key: value}
        _, fresh, _ = cooccurrence_table("hard_tiny", **kw, use_cache=False)
        assert fresh.shape != C0.shape or not np.array_equal(fresh, C0), key
        for _ in range(2):  # filled, then read back
            _, cached, _ = cooccurrence_table("hard_tiny", **kw)
            assert np.array_equal(cached, fresh), f"changing {key} returned a stale cache entry"


# -- the eigensolver's input check and the inertia ---------------------------------------------------
@pytest.mark.parametrize("V", [40, 520])  # the NumPy path and the compiled one (V >= 512)
def test_symmetry_tolerance_follows_the_dtype(V):
    from qwem_lib.spectral import top_eigenpairs

    rng = np.random.default_rng(1)
    A = rng.standard_normal((V, V))
    M = 0.5 * (A + A.T)
    top_eigenpairs(M, 2, method="eigh")  # exactly symmetric: accepted
    M[0, 1] += 1e-9 * np.abs(M).max()  # far above float64 rounding, far below float32's
    with pytest.raises(ValueError, match="not symmetric"):
        top_eigenpairs(M, 2, method="eigh")
    top_eigenpairs(M.astype(np.float32), 2, method="eigh")  # in float32 it is rounding


def test_eigen_features_respects_top_words():
    from qwem_lib.spectral import eigen_features

    rng = np.random.default_rng(2)
    words = [f"w{i}" for i in range(30)]
    U = rng.standard_normal((30, 3))
    U[25:] *= 100  # rare words with huge entries: they would win every list
    feats = eigen_features(words, U, k=2, top_words=5)
    for top, bottom in feats:
        assert set(top) | set(bottom) <= set(words[:5])
    assert any(w not in words[:5] for t, b in eigen_features(words, U, k=2) for w in t + b)


@pytest.mark.parametrize("scale", [1.0, 1e8, 1e-8])
def test_inertia_zero_tolerance_is_relative(scale):
    from qwem_lib.spectral import inertia

    rng = np.random.default_rng(3)
    B = rng.standard_normal((7, 5))
    C = rng.standard_normal((7, 1))
    M = scale * (B @ B.T - C @ C.T)  # rank 6: five positive, one negative, one zero eigenvalue
    assert inertia(M) == (5, 1, 1)


def test_count_table_never_overflows_int32():
    """The int32 accumulator is used only when the bound 2 Σw max n proves the counts fit."""
    from qwem_lib.corpus_stats import cooccurrence_counts

    n, W = 4000, 1000  # one word repeated: the diagonal count is 3.7e9 > 2^31
    C = cooccurrence_counts(np.zeros(n, dtype=np.int32), 1, W)
    exact = 2 * sum(sum(W + 1 - j for j in range(1, min(W, n - 1 - t) + 1)) for t in range(n))
    assert exact > 2**31
    assert int(C[0, 0]) == exact


# -- the data layer: checksums, memo, corpus cache, head corpus, tokeniser, normaliser -------------
def test_verify_memo_notices_a_replaced_file(data_env):
    ds = _register_text(data_env, "hard_memo", " aa bb cc")
    (path,) = data.fetch("hard_memo")
    data.fetch("hard_memo")  # memoised
    st = path.stat()
    with open(path, "r+b") as f:  # same size, other bytes (corrupt the last byte)
        f.seek(st.st_size - 1)
        b = f.read(1)
        f.seek(st.st_size - 1)
        f.write(bytes([b[0] ^ 0xFF]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the old mtime, as `cp -p` would
    assert path.stat().st_size == st.st_size
    with pytest.raises(DataError, match="checksum"):
        data.files.verify(ds, ds.files[0], path)
    with pytest.raises(DataError, match="checksum"):
        data.fetch("hard_memo")


def test_content_hash_fallback_needs_the_right_content(data_env):
    rel = "corpus/hard_xz.txt.xz"
    f = data_env / rel
    f.parent.mkdir(parents=True)
    f.write_bytes(lzma.compress(b" other text"))
    ds = data.register(
        Dataset(
            "hard_xz",
            "corpus",
            "test",
            (
                FileSpec(
                    rel,
                    "0" * 64,
                    f.stat().st_size,
                    content_sha256=hashlib.sha256(b" the text").hexdigest(),
                ),
            ),
        )
    )
    with pytest.raises(DataError, match="checksum"):
        data.files.verify(ds, ds.files[0], f)


def test_corpus_cache_checks_counts_sum_to_tokens(tiny):
    from qwem_lib.book import config
    from qwem_lib.data.corpus import _cache_key

    cdir = config.cache_dir() / "corpus" / _cache_key(data.dataset("hard_tiny"))
    counts = np.load(cdir / "counts.npy")
    bad = counts.copy()
    bad[-1] += 1  # one count off: ids, words and counts still have matching sizes
    np.save(cdir / "counts.npy", bad)
    with pytest.warns(RuntimeWarning, match="damaged"):
        c = data.load_corpus("hard_tiny")
    assert np.array_equal(c.counts, counts) and int(c.counts.sum()) == c.n_tokens


def test_head_corpus_breaks_ties_alphabetically():
    from qwem_lib.data.corpus import head_corpus, tokenize_ranked

    text = "zeta alpha zeta zeta zeta zeta alpha alpha mu"
    ids, words, counts = tokenize_ranked([text])
    c = data.Corpus("t", ids, words, counts)
    assert words[:2] == ["zeta", "alpha"]  # whole-corpus ranks are not alphabetical
    for n in range(2, len(ids) + 1):
        h = head_corpus(c, n)
        ref_ids, ref_words, ref_counts = tokenize_ranked([" ".join(text.split()[:n])])
        assert h.words == ref_words and np.array_equal(h.ids, ref_ids), n
        assert np.array_equal(h.counts, ref_counts)


def test_tokenizer_id_buffer_holds_every_token():
    """The densest chunks ('a a a', a carried token then ' a a') fill the id buffer exactly."""
    from qwem_lib.data.corpus import tokenize_ranked
    from qwem_lib.data.tokenizer import tokenize_chunks

    rng = np.random.default_rng(4)
    cases = [[b"a b a"], [b"x", b" a b"], [b"x", b" a b "], [b"ab", b"c"], [b"a", b"", b"b"]]
    for _ in range(200):
        s = bytes(rng.choice([ord("a"), ord("b"), ord(" ")], size=int(rng.integers(1, 12))))
        cuts = np.sort(rng.integers(0, len(s) + 1, size=int(rng.integers(0, 4))))
        cases.append([s[i:j] for i, j in zip([0, *cuts], [*cuts, len(s)])])
    for chunks in cases:
        text = b"".join(chunks)
        if not text.split():
            continue
        ids, words, counts = tokenize_chunks([chunks])
        r_ids, r_words, r_counts = tokenize_ranked([text.decode()])
        assert words == r_words and np.array_equal(ids, r_ids), chunks
        assert np.array_equal(counts, r_counts), chunks


def test_normaliser_tags_do_not_span_lines():
    from qwem_lib.data.sources import normalise

    assert normalise("a <b\nc> d") == "a b c d"
    assert normalise("a <b c> d") == "a d"


def test_atomic_path_leaves_a_readable_file(tmp_path):
    from qwem_lib.book.cache import atomic_path

    old = os.umask(0o022)
    try:
        with atomic_path(tmp_path / "x.bin") as tmp:
            tmp.write_bytes(b"1")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.bin").stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]  # no temporary file left


# -- evaluation --------------------------------------------------------------------------------
def test_gap_se_uses_each_side_s_own_count():
    from qwem_lib.evaluation import gap_se

    assert gap_se(0.5, 0.2, 100, 400) == pytest.approx(np.sqrt(0.25 / 100 + 0.16 / 400), rel=1e-12)
    assert gap_se(0.2, 0.5, 400, 100) == pytest.approx(np.sqrt(0.16 / 400 + 0.25 / 100), rel=1e-12)


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
    from qwem_lib.evaluation import _analogy_hits, normalize_rows

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


# -- the report ---------------------------------------------------------------------------------
def test_relative_tolerance_is_relative_to_the_target(monkeypatch, tmp_path):
    from qwem_lib.book.report import Report

    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path))
    rep = Report("99_hard", quiet=True)
    rep.close("h.ok", "s", value=1.5, target=1.0, tol=0.6, rel=True, kind="record")
    with pytest.raises(AssertionError, match="h.bad"):  # |2 - 1| = 1 > 0.6 * |1|
        rep.close("h.bad", "s", value=2.0, target=1.0, tol=0.6, rel=True, kind="record")


# -- dynamics ----------------------------------------------------------------------------------
def test_eig_desc_refuses_a_nonsymmetric_matrix():
    from qwem_lib.dynamics import eig_desc

    M = np.array([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        eig_desc(M)
    lam, _ = eig_desc(0.5 * (M + M.T))
    assert np.allclose(lam, [2.0, 0.0])
