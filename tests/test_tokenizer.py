"""The compiled streaming tokeniser against the reference ``str.split`` path (``data.tokenize_ranked``)."""

import hashlib
import lzma
import random
import zipfile
from pathlib import Path

import numpy as np
import pytest

from qwem_lib import data
from qwem_lib.data import DataError, Dataset, FileSpec
from qwem_lib.data.tokenizer import SEPARATORS, StreamTokenizer, tokenize_chunks

SEPS = [9, 10, 11, 12, 13, 28, 29, 30, 31, 32]


def reference(parts: list[bytes]):
    """What the book computed before: decode each part as ASCII, split, count, rank."""
    return data.tokenize_ranked([p.decode("ascii", errors="replace") for p in parts])


def chunked(b: bytes, size: int) -> list[bytes]:
    return [b[i : i + size] for i in range(0, len(b), size)]


def assert_same(got, want):
    ids, words, freq = got
    ids2, words2, freq2 = want
    assert words == words2
    assert freq.dtype == np.int64 and np.array_equal(freq, freq2)
    assert ids.dtype == np.int32 and np.array_equal(ids, ids2)


def random_part(rng: random.Random, alphabet: bytes, n: int) -> bytes:
    return bytes(rng.choice(alphabet) for _ in range(n))


def test_separators_are_exactly_what_str_split_splits_on():
    assert SEPARATORS == bytes(SEPS)
    for b in range(
        256
    ):  # independent: ask Python which decoded characters are whitespace to split()
        ch = bytes([b]).decode("ascii", errors="replace")
        assert (("a" + ch + "b").split() == ["a", "b"]) == (b in SEPARATORS), b


@pytest.mark.parametrize("seed", range(12))
def test_random_streams_equal_the_reference(seed):
    rng = random.Random(seed)
    letters = b"abc" if seed % 2 else b"abcdefgh"  # few letters: many repeats; more: many types
    alphabet = letters * 3 + bytes(SEPS) + b"  \n"
    parts = [random_part(rng, alphabet, rng.randint(0, 400)) for _ in range(rng.randint(1, 4))]
    parts[0] = b" \n\x1c" + parts[0] + b"\x1f\t "  # leading and trailing runs of separators
    for size in (1, 2, 3, 7, rng.randint(4, 50), 50):  # tokens straddle every kind of boundary
        got = tokenize_chunks([chunked(p, size) for p in parts], initial_types=1)
        assert_same(got, reference(parts))


def test_tokens_are_carried_across_chunks_but_not_across_parts():
    ids, words, freq = tokenize_chunks([[b"ab", b"c", b"d e", b"f"]])
    assert sorted(words) == ["abcd", "ef"]
    ids, words, freq = tokenize_chunks(
        [[b"ab"], [b"cd"]]
    )  # two files: two tokens, as [t.split() for t]
    assert words == ["ab", "cd"] and list(ids) == [0, 1]
    ids, words, freq = tokenize_chunks(
        [[b"x" * 1000], [b"x" * 999 + b" " + b"x" * 1000]], initial_types=1
    )
    assert words == ["x" * 1000, "x" * 999] and list(freq) == [2, 1] and list(ids) == [0, 1, 0]


def test_many_types_force_the_table_to_grow_and_rehash():
    rng = random.Random(7)
    words = [f"w{i}x{rng.randrange(10**6)}".encode() for i in range(5000)]
    text = b" ".join(rng.choice(words) for _ in range(20000)) + b" " + b" ".join(words)
    tok = StreamTokenizer(initial_types=2)
    for c in chunked(text, 37):
        tok.feed(c)
    got = tok.finish()
    assert tok.n_types == 5000 and tok._table.size >= 2 * 5000  # grown from 4 slots
    assert_same(got, reference([text]))


@pytest.mark.parametrize("mask", [0, 1, 3])
def test_hash_collisions_never_merge_distinct_words(mask):
    # every word of length 1-4 over "ab": same lengths, one differing byte; with hash_mask=0 all of
    # them share one hash, so only the byte comparison keeps them apart
    rng = random.Random(mask)
    vocab = [bytes(rng.choice(b"ab") for _ in range(rng.randint(1, 4))) for _ in range(60)]
    text = b" ".join(rng.choice(vocab) for _ in range(3000))
    got = tokenize_chunks([chunked(text, 11)], initial_types=1, hash_mask=mask)
    assert_same(got, reference([text]))
    assert len(got[1]) == len(set(vocab))


def test_non_ascii_bytes_give_the_reference_words_and_counts():
    # b"\xc3\xa9" and b"\xe9\xe9" are different bytes but both decode to two U+FFFD: one word
    parts = [b"caf\xc3\xa9 caf\xe9\xe9 the caf\xc3\xa9\n\xff \x85x", b"\xa0 the caf\xe9\xe9"]
    got = tokenize_chunks([chunked(p, 3) for p in parts])
    assert_same(got, reference(parts))
    assert got[1][0] == "caf\ufffd\ufffd" and got[2][0] == 4  # merged: 2 + 2 occurrences
    rng = random.Random(3)
    for _ in range(20):
        parts = [
            random_part(rng, b"ab\x80\xe9\xff\x00" + bytes(SEPS), rng.randint(0, 200))
            for _ in range(2)
        ]
        if any(p.split() for p in parts):
            assert_same(
                tokenize_chunks([chunked(p, rng.randint(1, 20)) for p in parts]), reference(parts)
            )


def test_no_tokens_gives_empty_results():
    ids, words, freq = tokenize_chunks([[bytes(SEPS) * 3], [], [b""]])
    assert ids.size == 0 and ids.dtype == np.int32 and words == [] and freq.size == 0


def test_inputs_are_validated():
    tok = StreamTokenizer()
    with pytest.raises(TypeError):
        tok.feed("a str, not bytes")
    with pytest.raises(TypeError):
        tok.feed(np.zeros(3))
    tok.feed(np.frombuffer(b"a b", dtype=np.uint8))
    tok.feed(bytearray(b" a"))
    tok.feed(np.frombuffer(b" xcxcxc", dtype=np.uint8)[::2])  # not contiguous: " ccc"
    assert tok.finish()[1] == ["a", "b", "ccc"]
    with pytest.raises(RuntimeError):
        tok.feed(b"more")
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError):
            StreamTokenizer(initial_types=bad)
    with pytest.raises(ValueError):
        StreamTokenizer(hash_mask=-1)
    with pytest.raises(TypeError, match="Dataset"):
        data.tokenize_files("enwiki2015_1m7", [])


# -- through load_corpus -------------------------------------------------------------------------
@pytest.fixture
def env(data_env):  # conftest.py: an empty offline data folder; registrations undone afterwards
    return data_env


def _write(root: Path, rel: str, raw: bytes) -> FileSpec:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if rel.endswith(".xz"):
        p.write_bytes(lzma.compress(raw))
    elif rel.endswith(".zip"):
        with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("member", raw)
    else:
        p.write_bytes(raw)
    return FileSpec(rel, None, None)


@pytest.mark.parametrize("suffix", [".txt.xz", ".zip", ".txt"])
def test_load_corpus_streams_every_format_like_the_reference(env, monkeypatch, suffix):
    rng = random.Random(11)
    parts = [random_part(rng, b"abcde" * 4 + bytes(SEPS) + b"\xe9", 3000) for _ in range(3)]
    specs = tuple(_write(env, f"corpus/tok_{k}{suffix}", p) for k, p in enumerate(parts))
    data.register(
        Dataset("tok", "corpus", "random", specs, extract="member" if suffix == ".zip" else None)
    )
    monkeypatch.setattr(data.corpus, "CHUNK_BYTES", 13)
    c = data.load_corpus("tok")
    assert_same((np.asarray(c.ids), c.words, c.counts), reference(parts))
    cached = data.load_corpus("tok")  # the cache written from the streaming path reads back equal
    assert_same((np.asarray(cached.ids), cached.words, cached.counts), reference(parts))


def test_whitespace_only_corpus_is_a_clear_error(env):
    data.register(
        Dataset("tok", "corpus", "blank", (_write(env, "corpus/blank.txt.xz", bytes(SEPS) * 50),))
    )
    with pytest.raises(DataError, match="no tokens"):
        data.load_corpus("tok", use_cache=False)


def test_archive_damaged_mid_stream_is_a_clear_error(env, monkeypatch):
    rng = random.Random(5)
    raw = random_part(
        rng, b"abcdefghijklmnopqrstuvwxyz ", 200_000
    )  # compresses to many xz blocks' worth
    spec = _write(env, "corpus/cut.txt.xz", raw)
    p = env / spec.path
    p.write_bytes(
        p.read_bytes()[: p.stat().st_size // 2]
    )  # no size or sha in the spec: found while reading
    data.register(Dataset("tok", "corpus", "truncated", (spec,)))
    monkeypatch.setattr(data.corpus, "CHUNK_BYTES", 4096)
    seen = []
    monkeypatch.setattr(
        data.corpus, "_prefetched", lambda it: (seen.append(len(b)) or b for b in it)
    )
    with pytest.raises(DataError, match="could not be decompressed"):
        data.load_corpus("tok", use_cache=False)
    assert len(seen) > 1  # the error came after some chunks had been tokenised
    p.write_bytes(p.read_bytes()[:10] + b"\0" * 50 + p.read_bytes()[60:])  # corrupt, not cut
    with pytest.raises(DataError, match="could not be decompressed"):
        data.load_corpus("tok", use_cache=False)


def test_content_checksum_is_computed_on_the_stream(env, monkeypatch):
    raw = b"one two  three\nfour two\r\n" * 100
    spec = _write(env, "corpus/c.txt.xz", raw)
    monkeypatch.setattr(data.corpus, "CHUNK_BYTES", 17)
    data.register(
        Dataset("tok", "corpus", "c", (spec,), content_sha256=hashlib.sha256(raw).hexdigest())
    )
    assert data.load_corpus("tok", use_cache=False).n_tokens == 500
    data.register(
        Dataset("tok", "corpus", "c", (spec,), content_sha256=hashlib.sha256(raw[:-1]).hexdigest())
    )
    with pytest.raises(DataError, match="decompressed text has sha256"):
        data.load_corpus("tok", use_cache=False)


def test_prefetched_keeps_order_reraises_and_stops_early():
    closed = []

    def gen(fail_at=None):
        try:
            for i in range(10):
                if i == fail_at:
                    raise ValueError("boom")
                yield bytes([i])
        finally:
            closed.append(True)

    assert list(data.corpus._prefetched(gen())) == [bytes([i]) for i in range(10)]
    got = []
    with pytest.raises(ValueError, match="boom"):
        for b in data.corpus._prefetched(gen(fail_at=4)):
            got.append(b)
    assert got == [bytes([i]) for i in range(4)]
    it = data.corpus._prefetched(gen(), depth=1)
    next(it)
    it.close()  # the consumer leaves early: the producer thread stops and closes its generator
    assert len(closed) == 3


def test_enwiki_1m7_streaming_equals_the_reference_path():
    name = "enwiki2015_1m7"
    ds = data.dataset(name)
    paths = data.fetch(name, download=False)
    c = data.load_corpus(name, use_cache=False)
    assert c.n_tokens == ds.tokens
    assert_same(
        (c.ids, c.words, c.counts),
        data.tokenize_ranked([data.corpus._read_text(ds, p) for p in paths]),
    )


# -- inputs, caches and faults ------------------------------------------------------------------


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
