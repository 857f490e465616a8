"""Unit tests for qwem_lib.qwem.w2v: vocabulary alignment, the restricted corpus file, caching, errors."""

from __future__ import annotations

import numpy as np
import pytest
from corpora import unregistered_zipf

from qwem_lib import data
from qwem_lib.data import Corpus, DataError
from qwem_lib.qwem import w2v


@pytest.fixture()
def corpus(tmp_path, monkeypatch):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(0)
    p = 1.0 / np.arange(1, 41)
    raw = rng.choice(40, size=20_000, p=p / p.sum())
    counts = np.bincount(raw, minlength=40)
    order = np.lexsort((np.arange(40), -counts))
    rank = np.empty(40, dtype=np.int32)
    rank[order] = np.arange(40)
    ids = rank[raw]
    return Corpus(
        "w2v-test-unregistered",
        ids,
        [f"t{i}" for i in range(40)],
        np.bincount(ids, minlength=40).astype(np.int64),
    )


def test_corpus_file_drops_oov(corpus):
    path = w2v.w2v_corpus_file(corpus, 10)
    toks = path.read_text().split()
    ids = np.asarray(corpus.ids)
    assert toks == [corpus.words[i] for i in ids[ids < 10]]
    assert max(len(line.split()) for line in path.read_text().splitlines()) <= w2v.LINE_TOKENS


def test_train_aligned_cached(corpus):
    words, W, info = w2v.train_word2vec(corpus, 12, 8, negative=1, epochs=1, workers=1, sample=0)
    assert words == corpus.words[:12] and W.shape == (12, 8) and W.dtype == np.float32
    assert info["negative"] == 1 and info["sg"] == 1 and info["window"] == 16
    words2, W2, _ = w2v.train_word2vec(corpus, 12, 8, negative=1, epochs=1, workers=1, sample=0)
    np.testing.assert_array_equal(W, W2)  # second call is the cached model
    _, W5, info5 = w2v.train_word2vec(corpus, 12, 8, negative=5, epochs=1, workers=1, sample=0)
    assert info5["negative"] == 5 and not np.array_equal(W, W5)


def test_errors(corpus):
    with pytest.raises(ValueError):
        w2v.train_word2vec(corpus, 12, 12)
    with pytest.raises(ValueError):
        w2v.train_word2vec(corpus, 12, 4, negative=0)
    with pytest.raises(ValueError):
        w2v.train_word2vec(corpus, 1000, 4)  # V larger than the vocabulary
    empty = Corpus("empty-unregistered", np.zeros(0, dtype=np.int32), ["a", "b"], np.array([0, 0]))
    with pytest.raises(DataError):
        w2v.w2v_corpus_file(empty, 2)


def test_subsample_probability_matches_gensim():
    from gensim.models import Word2Vec

    rng = np.random.default_rng(1)
    p = 1.0 / np.arange(1, 31)
    toks = rng.choice(30, size=30_000, p=p / p.sum())
    sentences = [[f"w{t}" for t in toks[s : s + 1000]] for s in range(0, toks.size, 1000)]
    for sample in (1e-2, 1e-3):
        m = Word2Vec(vector_size=4, min_count=1, sample=sample, workers=1)
        m.build_vocab(sentences)
        words = m.wv.index_to_key
        counts = np.array([m.wv.get_vecattr(w, "count") for w in words], dtype=np.float64)
        theirs = np.array([m.wv.get_vecattr(w, "sample_int") for w in words]) / 2**32
        ours = w2v.subsample_keep_probability(counts, sample)
        assert np.allclose(ours, theirs, atol=1e-6)
        assert 0 < w2v.subsampled_fraction(counts, sample) < 1
    assert w2v.subsampled_fraction(np.array([5.0, 3.0]), 0.0) == 0.0
    with pytest.raises(ValueError):
        w2v.subsample_keep_probability(np.array([0.0, 1.0]), 1e-3)
    with pytest.raises(ValueError):
        w2v.subsample_keep_probability(np.array([1.0]), -1.0)


def test_word2vec_learns_planted_topics(tmp_path, monkeypatch):
    """A corpus of two disjoint topics (words of one topic never share a window with the other's): the
    trained embeddings must put same-topic words closer than cross-topic words, and the rows must be
    aligned with ``words`` (a permuted alignment would mix the topics)."""
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "cache"))
    rng = np.random.default_rng(2)
    n_words, doc = 16, 400
    topic_of = np.arange(n_words) % 2  # word i belongs to topic i % 2
    docs = []
    for k in range(60):  # alternating documents, each a long run of one topic's words
        pool = np.flatnonzero(topic_of == k % 2)
        docs.append(rng.choice(pool, size=doc))
        docs.append(np.full(20, n_words + k % 3))  # a separator of out-of-vocabulary filler words
    raw = np.concatenate(docs)
    counts = np.bincount(raw)
    order = np.lexsort((np.arange(counts.size), -counts))
    rank = np.empty(counts.size, dtype=np.int32)
    rank[order] = np.arange(counts.size)
    ids = rank[raw]
    c = Corpus(
        "w2v-topics-unregistered",
        ids,
        [f"t{i}" for i in range(counts.size)],
        np.bincount(ids, minlength=counts.size).astype(np.int64),
    )
    topic = {f"t{rank[i]}": topic_of[i] for i in range(n_words)}
    words, W, _ = w2v.train_word2vec(
        c, n_words, 8, negative=5, epochs=20, window=3, workers=1, sample=0
    )
    assert sorted(words, key=lambda w: int(w[1:])) == words and set(words) == set(topic)
    Wn = W / np.linalg.norm(W, axis=1, keepdims=True)
    cos = Wn @ Wn.T
    same = np.array([[topic[a] == topic[b] for b in words] for a in words])
    off = ~np.eye(n_words, dtype=bool)
    assert cos[same & off].mean() > cos[~same].mean() + 0.3


# -- inputs, caches and faults ------------------------------------------------------------------


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


@pytest.mark.parametrize(
    "kw, name",
    [
        (dict(window=0), "window"),
        (dict(window=-3), "window"),
        (dict(window=10**9), "window"),
        (dict(epochs=0), "epochs"),
        (dict(epochs=1.5), "epochs"),
        (dict(sample=-1.0), "sample"),
        (dict(sample=float("nan")), "sample"),
        (dict(sample=2.0), "sample"),
        (dict(workers=0), "workers"),
        (dict(negative=0), "negative"),
        (dict(seed=-1), "seed"),
    ],
)
def test_train_word2vec_refuses_bad_numbers_before_gensim(tmp_path, monkeypatch, kw, name):
    """Before issue 41, window=0 killed the process (SIGFPE inside gensim) and sample=-1 trained and
    cached a meaningless model."""
    from qwem_lib.qwem.w2v import train_word2vec

    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises((ValueError, TypeError), match=name):
        train_word2vec(unregistered_zipf(), 10, 4, **{"epochs": 1, "workers": 1, **kw})
    assert not (tmp_path / "cache" / "w2v").exists()  # refused before anything was written


@pytest.mark.parametrize("V, d", [(10, 0), (10, 10), (1, 1), (10, 2.5)])
def test_train_word2vec_refuses_bad_sizes(V, d):
    from qwem_lib.qwem.w2v import train_word2vec

    with pytest.raises((ValueError, TypeError), match="V|d"):
        train_word2vec(unregistered_zipf(), V, d, epochs=1, workers=1)
