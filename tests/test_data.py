"""The data layer: registry, checksums, clear errors on bad input, fast cached tokenisation."""

import hashlib
import lzma
import os
from pathlib import Path

import numpy as np
import pytest

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
