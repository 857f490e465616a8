"""Issue 27, section 4: what testing the library as a careful user found.

Each test here fails with one of the planted bugs of issue 27 (several are semantic mutants of ``tools/mutation.py``) or
with the bad input / stale cache entry / fault the issue names, and passes with the library as it is. A
test that checks a cache changes each keyed input once and sees the result change (and equal the result
computed without the cache).
"""

from __future__ import annotations

import hashlib
import lzma
import os
import warnings
from pathlib import Path

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
    from qwem_lib.qwem.spectral import spectral_embeddings

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
        with warnings.catch_warnings():
            # an entry of another input found under this key would be caught by read_npz's shape check
            # and discarded with a warning: the key itself must tell the entries apart
            warnings.filterwarnings(
                "error", message="cache entry .* is damaged", category=RuntimeWarning
            )
            _, cached = spectral_embeddings("hard_tiny", **kw)
            assert np.array_equal(cached, fresh), f"changing {key} returned a stale cache entry"
            _, twice = spectral_embeddings("hard_tiny", **kw)  # now from the cache
            assert np.array_equal(twice, fresh), key


def test_cooccurrence_cache_key_has_every_input(tiny):
    from qwem_lib.qwem.corpus_stats import cooccurrence_table

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
    from qwem_lib.qwem.spectral import top_eigenpairs

    rng = np.random.default_rng(1)
    A = rng.standard_normal((V, V))
    M = 0.5 * (A + A.T)
    top_eigenpairs(M, 2, method="eigh")  # exactly symmetric: accepted
    M[0, 1] += 1e-9 * np.abs(M).max()  # far above float64 rounding, far below float32's
    with pytest.raises(ValueError, match="not symmetric"):
        top_eigenpairs(M, 2, method="eigh")
    top_eigenpairs(M.astype(np.float32), 2, method="eigh")  # in float32 it is rounding


def test_eigen_features_respects_top_words():
    from qwem_lib.qwem.spectral import eigen_features

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
    from qwem_lib.qwem.spectral import inertia

    rng = np.random.default_rng(3)
    B = rng.standard_normal((7, 5))
    C = rng.standard_normal((7, 1))
    M = scale * (B @ B.T - C @ C.T)  # rank 6: five positive, one negative, one zero eigenvalue
    assert inertia(M) == (5, 1, 1)


def test_count_table_never_overflows_int32():
    """The int32 accumulator is used only when the bound 2 Σw max n proves the counts fit."""
    from qwem_lib.qwem.corpus_stats import cooccurrence_counts

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
    from qwem_lib.data.corpus import corpus_cache_key

    cdir = config.cache_dir() / "corpus" / corpus_cache_key(data.dataset("hard_tiny"))
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


# -- evaluation --------------------------------------------------------------------------------
def test_gap_se_uses_each_side_s_own_count():
    from qwem_lib.maths.stats import gap_se

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


# -- the report ---------------------------------------------------------------------------------
def test_relative_tolerance_is_relative_to_the_target(monkeypatch, tmp_path):
    from qwem_lib.book.report import Report

    monkeypatch.setenv("QWEM_REPORT_DIR", str(tmp_path))
    rep = Report("99_hard", quiet=True)
    rep.close("h.ok", "s", value=1.5, target=1.0, tol=0.6, rel=True, kind="record")
    with pytest.raises(AssertionError, match="h.bad"):  # |2 - 1| = 1 > 0.6 * |1|
        rep.close("h.bad", "s", value=2.0, target=1.0, tol=0.6, rel=True, kind="record")


# -- maths.linalg ----------------------------------------------------------------------------------
def test_eig_desc_refuses_a_nonsymmetric_matrix():
    from qwem_lib.maths.linalg import eig_desc

    M = np.array([[1.0, 2.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match="symmetric"):
        eig_desc(M)
    lam, _ = eig_desc(0.5 * (M + M.T))
    assert np.allclose(lam, [2.0, 0.0])


# -- bad inputs through the public API: each a clear error naming the argument ----------------------
def test_window_must_be_a_true_integer():
    from qwem_lib.qwem.corpus_stats import cooccurrence_counts

    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.array([0, 1, 0, 1]), 2, True)
    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.array([0, 1, 0, 1]), 2, np.True_)


def test_uint64_ids():
    from qwem_lib.qwem.corpus_stats import as_token_ids, cooccurrence_counts

    ids = np.array([0, 1, 2, 0, 1], dtype=np.uint64)
    assert np.array_equal(
        cooccurrence_counts(ids, 3, 2), cooccurrence_counts(ids.astype(np.int64), 3, 2)
    )
    with pytest.raises(ValueError, match="negative id cast"):
        as_token_ids(np.array([0, 2**64 - 1], dtype=np.uint64))  # -1 cast to uint64


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, bool])
def test_integer_dtype_refused_on_every_target_path(dtype):
    """The old finding (an integer target rounds M* to zero) was fixed in spectral_embeddings only."""
    from qwem_lib.qwem import corpus_stats as cs

    P = np.full((3, 3), 1 / 9)
    pu = np.full(3, 1 / 3)
    C = np.full((3, 3), 4)
    for call in (
        lambda: cs.mstar_from_stats(P, pu, dtype=dtype),
        lambda: cs.pmi_from_stats(P, pu, dtype=dtype),
        lambda: cs.ppmi_from_stats(P, pu, dtype=dtype),
        lambda: cs.target_from_stats(P, pu, "mstar", dtype=dtype),
        lambda: cs.target_from_counts(C, pu, "mstar", dtype=dtype),
        lambda: cs.target_from_counts(C, pu, "pmi", dtype=dtype),
    ):
        with pytest.raises(TypeError, match="dtype"):
            call()


def test_float16_target_from_counts_is_refused_clearly():
    from qwem_lib.qwem.corpus_stats import target_from_counts, target_from_stats

    C, pu = np.full((3, 3), 4), np.full(3, 1 / 3)
    with pytest.raises(TypeError, match="float32 or float64"):
        target_from_counts(C, pu, "mstar", dtype=np.float16)
    M16 = target_from_stats(C / C.sum(), pu, "mstar", dtype=np.float16)  # NumPy path: fine
    assert M16.dtype == np.float16


def test_cooccurrence_integer_dtype_refused(tiny):
    from qwem_lib.qwem.corpus_stats import cooccurrence

    with pytest.raises(TypeError, match="dtype"):
        cooccurrence("hard_tiny", 5, 2, dtype=np.int64)


def test_inertia_of_nonfinite_matrices():
    from qwem_lib.qwem.spectral import inertia

    for bad in ([[np.nan]], [[np.inf]], [[1.0, np.nan], [np.nan, 1.0]], [[np.inf, 0], [0, 1.0]]):
        with pytest.raises(ValueError, match="NaN or infinite"):
            inertia(np.array(bad))


def test_zipf_fit_refuses_zero_or_negative_counts():
    from qwem_lib.qwem.corpus_stats import zipf_fit

    c = 1000.0 / np.arange(1, 50)
    slope, _ = zipf_fit(c, 1, 40)
    assert slope == pytest.approx(-1.0, abs=1e-9)
    for bad in (0.0, -3.0, np.nan):
        d = c.copy()
        d[10] = bad
        with pytest.raises(
            ValueError, match="counts must (be finite and positive|hold non-negative|hold finite)"
        ):
            zipf_fit(d, 1, 40)


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


def test_qwem_loss_refuses_nan_W():
    from qwem_lib.qwem import theory

    P = np.full((3, 3), 1 / 9)
    psi = np.ones((3, 3))
    W = np.ones((3, 2))
    assert np.isfinite(theory.qwem_loss(W, P, psi, psi))
    W[1, 1] = np.nan
    with pytest.raises(ValueError, match="W must hold finite"):
        theory.qwem_loss(W, P, psi, psi)


def test_pmi_from_mstar_domain():
    from qwem_lib.qwem.theory import mstar_from_pmi, pmi_from_mstar

    assert pmi_from_mstar(mstar_from_pmi(1.3)) == pytest.approx(1.3)
    assert pmi_from_mstar(-2.0) == -np.inf  # an unseen pair: documented
    for bad in (2.5, -3.0, np.nan, [0.0, 2.1]):
        with pytest.raises(ValueError, match=r"\[-2, 2\]"):
            pmi_from_mstar(bad)


def test_krylov_cycle_and_depth_arguments():
    from qwem_lib.qwem.spectral import top_eigenpairs

    M = np.diag(np.arange(10.0))
    lam, _ = top_eigenpairs(M, 2, method="krylov")
    assert np.allclose(lam, [9, 8])
    bad = (({"max_cycles": 0}, "max_cycles"), ({"depth": 0}, "depth"), ({"depth": 1}, "depth"))
    for kw, name in bad:
        with pytest.raises(ValueError, match=name):
            top_eigenpairs(M, 2, method="krylov", **kw)


def test_gradient_descent_record_every():
    from qwem_lib.qwem.theory import gradient_descent_qwem

    P = np.array([[0.3, 0.1], [0.1, 0.5]])
    psi = np.ones((2, 2))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="record_every"):
            gradient_descent_qwem(P, psi, psi, 1, record_every=bad, max_steps=5)


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


# -- old findings fixed on one path only --------------------------------------------------------------
def test_train_factorisation_checks_M():
    from qwem_lib.qwem.dynamics import train_factorisation

    M = np.array([[2.0, 0.5], [0.0, 1.0]])
    W0 = np.full((2, 1), 1e-3)
    kw = dict(times=[0.0, 1.0], dt=0.1, progress=False, device="cpu")
    with pytest.raises(ValueError, match="symmetric"):
        train_factorisation(M, W0, **kw)
    with pytest.raises(ValueError, match="NaN"):
        train_factorisation(np.array([[np.nan, 0], [0, 1.0]]), W0, **kw)
    tr = train_factorisation(0.5 * (M + M.T), W0, **kw)
    assert np.isfinite(tr.sv).all()


# -- stale or truncated cache entries ----------------------------------------------------------------
def test_truncated_words_file_is_not_used(data_env):
    _register_text(data_env, "hard_zebra", " zebra ant ant bee bee bee")
    good = data.load_corpus("hard_zebra")
    assert good.words[-1] == "zebra"
    from qwem_lib.book import config
    from qwem_lib.data.corpus import corpus_cache_key

    f = config.cache_dir() / "corpus" / corpus_cache_key(data.dataset("hard_zebra")) / "words.txt"
    f.write_bytes(f.read_bytes()[:-3])  # "zebra" -> "ze": same number of lines
    with pytest.warns(RuntimeWarning, match="damaged"):
        again = data.load_corpus("hard_zebra")
    assert again.words == good.words
    meta = f.parent / "meta.json"
    meta.unlink()  # a cache written before meta.json existed is upgraded, not rebuilt
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert data.load_corpus("hard_zebra").words == good.words
    assert meta.exists()


def test_corpus_cache_survives_an_ascii_locale(data_env):
    """Words with non-ASCII bytes (decoded to U+FFFD) used to make the cache unreadable under LANG=C."""
    import subprocess
    import sys

    _register_text(data_env, "hard_locale", " caf\u00e9 caf\u00e9 tea")
    code = (
        "import warnings, sys; warnings.simplefilter('error');"
        "from qwem_lib import data; from qwem_lib.data import Dataset, FileSpec;"
        f"data.register(Dataset('hard_locale', 'corpus', 't', {data.dataset('hard_locale').files!r}));"
        "c = data.load_corpus('hard_locale'); print(len(c.words))"
    )
    env = dict(
        os.environ, LC_ALL="C", LANG="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0", QWEM_OFFLINE="1"
    )
    for _ in range(2):  # the first run writes the cache, the second reads it
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
    assert "\ufffd" in data.load_corpus("hard_locale").words[0]


def test_bad_source_file_is_removed_and_refetched(data_env, monkeypatch):
    from qwem_lib.data import sources

    src = sources.SourceFile("AA/wiki_00", 5, hashlib.sha256(b"hello").hexdigest())
    origin = data_env / "origin"
    (origin / "AA").mkdir(parents=True)
    (origin / "AA" / "wiki_00").write_bytes(b"hello")
    monkeypatch.setenv("QWEM_SOURCE_URL", origin.as_uri() + "/")
    local = data.data_dir() / sources.LOCAL_FOLDER / src.path
    local.parent.mkdir(parents=True)
    local.write_bytes(b"jello")  # corrupt, same size
    with pytest.raises(DataError, match="removed"):
        sources.fetch_source(src, download=False)
    assert not local.exists()  # as the message says
    local.write_bytes(b"jello")
    assert sources.fetch_source(src, download=True).read_bytes() == b"hello"


# -- writes outside the cache and data folders --------------------------------------------------------
def test_w2v_corpus_file_stays_in_the_cache(data_env):
    from qwem_lib.book import config
    from qwem_lib.data.corpus import tokenize_ranked
    from qwem_lib.qwem.w2v import w2v_corpus_file

    ids, words, counts = tokenize_ranked([" a b a c a b"])
    p = w2v_corpus_file(data.Corpus("../../escape", ids, words, counts), 3)
    assert config.cache_dir().resolve() in p.resolve().parents
    assert p.read_text() == "a b a c a b\n"


def test_w2v_corpus_file_cut_is_rewritten_and_non_ascii_words_are_written(data_env):
    """A cut corpus file used to be trained on (and the model cached); a word holding U+FFFD (a corpus
    with non-ASCII bytes) raised UnicodeEncodeError."""
    from qwem_lib.data.corpus import tokenize_ranked
    from qwem_lib.qwem.w2v import w2v_corpus_file

    text = " caf\ufffd tea caf\ufffd milk tea caf\ufffd" * 3
    ids, words, counts = tokenize_ranked([text])
    c = data.Corpus("hard_w2v", ids, words, counts)
    p = w2v_corpus_file(c, 2)  # "milk" (3 of 18 tokens) is out of the top 2
    full = p.read_bytes()
    assert full.decode("utf-8").split() == [w for w in text.split() if w != "milk"]
    p.write_bytes(full[:-5])  # a copy cut short
    with pytest.warns(RuntimeWarning, match="damaged"):
        assert w2v_corpus_file(c, 2).read_bytes() == full


def test_empty_cache_dir_variable_is_unset(monkeypatch, tmp_path):
    from qwem_lib.book import config

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QWEM_CACHE_DIR", "")
    assert config.cache_dir() == config.REPO_ROOT / ".cache"
    monkeypatch.setenv("QWEM_DATA_DIR", "")
    assert data.data_dir() == config.REPO_ROOT / "data"


def test_text8_zip_content_checked_by_verify(data_env):
    import zipfile

    rel = "corpus/t8.zip"
    f = data_env / rel
    f.parent.mkdir(parents=True)
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("t8", " other words")
    ds = data.register(
        Dataset(
            "hard_t8",
            "corpus",
            "test",
            (FileSpec(rel, None, f.stat().st_size),),
            extract="t8",
            content_sha256=hashlib.sha256(b" the words").hexdigest(),
        )
    )
    with pytest.raises(DataError, match="other text"):
        data.files.verify(ds, ds.files[0], f)


# -- environment variables ---------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["1e9", "lots", "-5", "0", "2_000_000_000"])
def test_max_table_bytes_variable(value):
    import subprocess
    import sys

    env = dict(os.environ, QWEM_MAX_TABLE_BYTES=value)
    code = (
        "import qwem_lib\nfrom qwem_lib.qwem import corpus_stats as cs\n"
        "try:\n    cs.check_table_size(100_000, 8)\nexcept Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr  # import qwem_lib never fails on it
    if value in ("1e9", "2_000_000_000"):
        assert out.stdout.startswith("MemoryError") and "set by QWEM_MAX_TABLE_BYTES" in out.stdout
    else:
        assert out.stdout.startswith("ValueError") and "QWEM_MAX_TABLE_BYTES" in out.stdout


# -- faults ------------------------------------------------------------------------------------------
def test_read_only_data_folder_keeps_analogies_working(data_env, monkeypatch):
    """Derived files (gensim's copy of the analogy file) go to the cache: a read-only data folder is only
    read. Writes into it are refused here as a read-only file system would (the tests may run as root)."""
    from qwem_lib.book import cache
    from qwem_lib.qwem.evaluation import analogy_categories

    ro = data_env / "ro"
    ro.mkdir()
    monkeypatch.setenv("QWEM_DATA_DIR", str(ro))
    real_mkstemp = cache.tempfile.mkstemp

    def refuse(*a, dir=None, **k):
        if dir is not None and (ro == Path(dir) or ro in Path(dir).parents):
            raise OSError(30, "Read-only file system", str(dir))
        return real_mkstemp(*a, dir=dir, **k)

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    assert len(analogy_categories()) == 14
    assert not any(ro.iterdir())


def test_gensim_copy_goes_to_the_cache_not_the_data_folder(data_env):
    from qwem_lib.book import config

    (path,) = data.fetch("google_analogy")
    assert config.cache_dir() in path.parents or "gensim" in str(path)
    assert not (data_env / "eval").exists()


def test_read_only_cache_subfolder_falls_back(tiny, monkeypatch):
    """A read-only cache/cooc/ (only a read-only top folder used to fall back): computed, not cached."""
    from qwem_lib.book import cache
    from qwem_lib.qwem.corpus_stats import cooccurrence_table

    real_mkstemp = cache.tempfile.mkstemp

    def refuse(*a, dir=None, **k):
        if dir is not None and os.path.basename(str(dir)) == "cooc":
            raise PermissionError(13, "Permission denied", str(dir))
        return real_mkstemp(*a, dir=dir, **k)

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    with pytest.warns(RuntimeWarning, match="not cached"):
        _, C, _ = cooccurrence_table("hard_tiny", 6, 2)
    _, ref, _ = cooccurrence_table("hard_tiny", 6, 2, use_cache=False)
    assert np.array_equal(C, ref)


def test_full_disk_says_where_and_leaves_no_partial_entry(tiny, monkeypatch):
    import errno

    from qwem_lib.book import config
    from qwem_lib.qwem import spectral

    def full(file, **arrays):
        with open(file, "wb") as f:
            f.write(b"PK partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    from qwem_lib.qwem.corpus_stats import cooccurrence_table

    cooccurrence_table("hard_tiny", 6, 2)  # the counts are cached; the spectral entry will not fit
    monkeypatch.setattr(spectral.np, "savez", full)
    with pytest.raises(OSError, match="no space left .* in .*spectral"):
        spectral.spectral_embeddings("hard_tiny", 6, 2, window=2)
    left = list((config.cache_dir() / "spectral").iterdir())
    assert left == []  # no entry, no temporary file
