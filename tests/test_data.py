"""The data layer: registry, checksums, clear errors on bad input, fast cached tokenisation."""

import hashlib
import lzma
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from corpora import register_text

from qwem_lib import data
from qwem_lib.data import DataError, Dataset, FileSpec

TEXT = " the cat sat on the mat the end cat"


def _register_tiny(tmp_path: Path, text: str = TEXT, name: str = "tiny", parts: int = 1) -> Dataset:
    specs = []
    chunks = [text] if parts == 1 else [text[: len(text) // 2], text[len(text) // 2 :]]
    for k, chunk in enumerate(chunks):
        rel = f"corpus/{name}_{k}.txt.xz"
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(lzma.compress(chunk.encode()))
        specs.append(FileSpec(rel, hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_size))
    return data.register(Dataset(name, "corpus", "a tiny test corpus", tuple(specs)))


@pytest.fixture
def env(data_env):
    return data_env


def test_tokenize_ranks_by_frequency_then_alphabet(env):
    _register_tiny(env)
    c = data.load_corpus("tiny")
    assert c.words[:2] == ["the", "cat"]  # 3 and 2 occurrences
    assert c.words[2:] == ["end", "mat", "on", "sat"]  # ties broken alphabetically
    assert [c.words[i] for i in c.ids] == TEXT.split()
    assert c.ids.dtype == np.int32 and c.n_tokens == 9
    assert np.allclose(c.unigram(2), [0.6, 0.4])


def test_cache_round_trip_and_multi_part(env):
    _register_tiny(env, name="tiny2", parts=2)
    fresh = data.load_corpus("tiny2", use_cache=True)
    cached = data.load_corpus("tiny2")
    assert (
        np.array_equal(np.asarray(fresh.ids), np.asarray(cached.ids))
        and fresh.words == cached.words
    )
    assert len(list((env / "cache" / "corpus").iterdir())) == 1


def test_missing_file_names_dataset_path_and_remedy(env):
    ds = _register_tiny(env)
    (env / ds.files[0].path).unlink()
    with pytest.raises(DataError) as e:
        data.fetch("tiny")
    msg = str(e.value)
    assert "'tiny'" in msg and str(env / ds.files[0].path) in msg and "QWEM_DATA_DIR" in msg


def test_truncated_file_is_reported_as_truncated(env):
    ds = _register_tiny(env)
    p = env / ds.files[0].path
    p.write_bytes(p.read_bytes()[:-5])
    with pytest.raises(DataError, match="truncated"):
        data.load_corpus("tiny")


def test_checksum_mismatch_stops(env):
    ds = _register_tiny(env)
    p = env / ds.files[0].path
    raw = bytearray(p.read_bytes())
    raw[-1] ^= 0xFF  # same size, different content
    p.write_bytes(bytes(raw))
    with pytest.raises(DataError, match="checksum mismatch"):
        data.load_corpus("tiny")


def test_empty_corpus_is_a_clear_error(env):
    _register_tiny(env, text="   \n  ", name="empty")
    with pytest.raises(DataError, match="no tokens"):
        data.load_corpus("empty")


def test_corrupt_archive_is_a_clear_error(env):
    p = env / "corpus" / "bad.txt.xz"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(b"this is not xz data at all")
    data.register(Dataset("tiny", "corpus", "bad", (FileSpec("corpus/bad.txt.xz", None, None),)))
    with pytest.raises(DataError, match="could not be decompressed"):
        data.load_corpus("tiny")


def test_unknown_dataset_and_vocab_bounds(env):
    with pytest.raises(DataError, match="unknown dataset"):
        data.fetch("nope")
    _register_tiny(env)
    c = data.load_corpus("tiny")
    with pytest.raises(ValueError, match="only 6 distinct"):
        c.vocab(7)


def _register_remote() -> None:
    data.register(
        Dataset(
            "remote",
            "eval",
            "a file with a public address",
            (FileSpec("eval/remote.txt", None, None, url="https://example.invalid/remote.txt"),),
        )
    )


def test_offline_download_refused_with_address(env):
    _register_remote()
    with pytest.raises(DataError) as e:
        data.fetch("remote")
    assert "QWEM_OFFLINE" in str(e.value) and "https://example.invalid/remote.txt" in str(e.value)


def test_google_analogy_comes_from_gensim_without_network(env):
    (path,) = data.fetch("google_analogy")
    assert path.exists() and path.stat().st_size == 603_955


def test_no_partial_file_left_by_failed_download(env, monkeypatch):
    monkeypatch.delenv("QWEM_OFFLINE")
    import pooch

    def boom(*a, **k):
        raise OSError("network unreachable")

    monkeypatch.setattr(pooch, "retrieve", boom)
    _register_remote()
    with pytest.raises(DataError, match="could not download"):
        data.fetch("remote")
    assert not (env / "eval" / "remote.txt").exists()


def _shared_folder() -> str:
    """The shared data folder: QWEM_DATA_DIR when it is one (CI sets it), else ../shared/data."""
    for cand in (
        os.environ.get("QWEM_DATA_DIR_SHARED"),
        os.environ.get("QWEM_DATA_DIR"),
        str(Path(__file__).resolve().parents[2] / "shared" / "data"),
    ):
        if cand and Path(cand, "SHA256SUMS").exists():
            return cand
    return ""


SHARED = _shared_folder()


@pytest.mark.skipif(not SHARED, reason="shared data folder not present")
def test_every_registered_shared_file_verifies(monkeypatch):
    monkeypatch.setenv("QWEM_DATA_DIR", SHARED)
    monkeypatch.setenv("QWEM_OFFLINE", "1")
    for name in data.BUILTIN:
        if name == "text8":  # not in the shared folder; downloaded by readers who ask for it
            continue
        paths = data.fetch(name)
        assert all(p.exists() for p in paths)
        assert all(Path(SHARED) in p.parents or data.SHIPPED_DIR in p.parents for p in paths), paths


def test_content_checksum_of_archive(env):
    import zipfile

    p = env / "corpus" / "t8.zip"
    p.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("t8", TEXT)
    good = hashlib.sha256(TEXT.encode()).hexdigest()
    data.register(
        Dataset(
            "tiny",
            "corpus",
            "zip",
            (FileSpec("corpus/t8.zip", None, p.stat().st_size),),
            extract="t8",
            content_sha256=good,
        )
    )
    assert data.load_corpus("tiny", use_cache=False).n_tokens == 9
    data.register(
        Dataset(
            "tiny",
            "corpus",
            "zip",
            (FileSpec("corpus/t8.zip", None, p.stat().st_size),),
            extract="t8",
            content_sha256="0" * 64,
        )
    )
    with pytest.raises(DataError, match="decompressed text"):
        data.load_corpus("tiny", use_cache=False)


def test_head_corpus_is_reranked_and_named(env):
    _register_tiny(env)
    full = data.load_corpus("tiny")
    head = data.load_corpus("tiny[:5]")
    assert head.name == "tiny[:5]" and head.n_tokens == 5
    words = [full.words[i] for i in np.asarray(full.ids[:5])]
    assert [head.words[i] for i in head.ids] == words  # same tokens
    assert (
        np.all(np.diff(head.counts) <= 0) and head.counts.sum() == 5
    )  # ids are frequency ranks again
    assert set(head.words) == set(words)
    with pytest.raises(ValueError):
        data.load_corpus("tiny[:1]")
    with pytest.raises(DataError, match="unknown dataset"):
        data.load_corpus("nope[:5]")


def test_atomic_path_is_safe_when_many_writers_race(tmp_path):
    """Several threads filling the same cache entry at once: no error, and the entry is one writer's
    complete file (with one fixed temporary name, as before, a writer found its file renamed away)."""
    from concurrent.futures import ThreadPoolExecutor

    from qwem_lib.book.cache import atomic_path

    target = tmp_path / "entry.npz"

    def write(k: int) -> None:
        for _ in range(20):
            with atomic_path(target, ".npz") as tmp:
                np.savez(tmp, x=np.full(50_000, k))

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(write, range(8)))
    with np.load(target) as z:
        x = z["x"]
    assert x.size == 50_000 and np.all(x == x[0])
    assert [p.name for p in tmp_path.iterdir()] == ["entry.npz"]  # no temporary file left behind


def test_atomic_path_leaves_target_untouched_on_error(tmp_path):
    from qwem_lib.book.cache import atomic_path

    target = tmp_path / "t.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_path(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("crash while writing")
    assert target.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


def test_corpus_cache_filled_by_concurrent_loads(env):
    from concurrent.futures import ThreadPoolExecutor

    _register_tiny(env)
    with ThreadPoolExecutor(6) as pool:
        corpora = list(pool.map(lambda _: data.load_corpus("tiny"), range(6)))
    assert all(np.array_equal(np.asarray(c.ids), np.asarray(corpora[0].ids)) for c in corpora)
    assert data.load_corpus("tiny").n_tokens == corpora[0].n_tokens


def test_damaged_corpus_cache_is_rebuilt_with_a_warning(env):
    _register_tiny(env)
    good = data.load_corpus("tiny")
    cdir = next((env / "cache" / "corpus").glob("tiny-*"))
    words = cdir / "words.txt"
    words.write_text(
        "\n".join(words.read_text().split("\n")[:3])
    )  # truncated: half the types are gone
    with pytest.warns(RuntimeWarning, match="words.txt is damaged"):
        again = data.load_corpus("tiny")
    assert again.words == good.words and np.array_equal(np.asarray(again.ids), np.asarray(good.ids))
    (cdir / "ids.npy").write_bytes((cdir / "ids.npy").read_bytes()[:40])  # a truncated array
    with pytest.warns(RuntimeWarning, match="ids.npy is damaged"):
        assert data.load_corpus("tiny").n_tokens == good.n_tokens


def test_damaged_npz_cache_is_discarded(tmp_path):
    from qwem_lib.book.cache import atomic_path, read_npz

    p = tmp_path / "x.npz"
    with atomic_path(p, ".npz") as tmp:
        np.savez(tmp, W=np.arange(10_000.0))
    assert np.array_equal(read_npz(p, ("W",))["W"], np.arange(10_000.0))
    p.write_bytes(p.read_bytes()[:500])  # truncated
    with pytest.warns(RuntimeWarning, match="x.npz is damaged"):
        assert read_npz(p, ("W",)) is None
    assert not p.exists()
    with atomic_path(p, ".npz") as tmp:
        np.savez(tmp, other=np.zeros(3))
    with pytest.warns(RuntimeWarning, match="lacks"):
        assert read_npz(p, ("W",)) is None
    assert read_npz(tmp_path / "absent.npz") is None


# -- inputs, caches and faults ------------------------------------------------------------------


def test_verify_memo_notices_a_replaced_file(data_env):
    ds = register_text(data_env, "hard_memo", " aa bb cc")
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


def test_truncated_words_file_is_not_used(data_env):
    register_text(data_env, "hard_zebra", " zebra ant ant bee bee bee")
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

    register_text(data_env, "hard_locale", " caf\u00e9 caf\u00e9 tea")
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


def test_data_dir_naming_a_file_is_an_error(data_env, monkeypatch):
    f = data_env / "not-a-folder.txt"
    f.write_text("x")
    monkeypatch.setenv("QWEM_DATA_DIR", str(f))
    with pytest.raises(DataError, match="QWEM_DATA_DIR.*not a folder"):
        data.data_dir()
    with pytest.raises(DataError, match="not a folder"):
        data.fetch("google_analogy")


def test_missing_data_dir_warns_naming_the_folder_and_the_copy_used(data_env, monkeypatch):
    missing = data_env / "no-such-folder"
    monkeypatch.setenv("QWEM_DATA_DIR", str(missing))
    with pytest.warns(
        RuntimeWarning, match=r"no-such-folder.*does not exist; using .*questions-words"
    ):
        (path,) = data.fetch("google_analogy")
    assert missing not in path.parents
    # an existing data folder that lacks the file uses the same copy without a word
    monkeypatch.setenv("QWEM_DATA_DIR", str(data_env))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        assert data.fetch("google_analogy") == [path]
