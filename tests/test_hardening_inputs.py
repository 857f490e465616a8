"""Issue 41: the crash, the hang, the data folder and the cache checks (the property-based sweep of every
public function is tests/test_inputs_property.py).

Each test fails on the library before issue 41: ``train_word2vec(window=0)`` killed the process (SIGFPE in
gensim), ``cooccurrence(window=10**9)`` allocated without end, a ``QWEM_DATA_DIR`` naming a file or a
missing folder was used silently, a cache hit of the wrong shape or of NaN was returned, FC training's
cache key had no device, spectral embeddings asked in float64 came back in float32.
"""

from __future__ import annotations

import hashlib
import lzma
import time
import warnings

import numpy as np
import pytest
from corpora import zipf_corpus

from qwem_lib import data
from qwem_lib.book import checks
from qwem_lib.data import Corpus, DataError, Dataset, FileSpec


def _corpus(n: int = 4000, types: int = 14, seed: int = 8) -> Corpus:
    return zipf_corpus("inputs-unregistered", n=n, types=types, seed=seed, prefix="w")


# -- 1. the crash and the hang -----------------------------------------------------------------------
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
        train_word2vec(_corpus(), 10, 4, **{"epochs": 1, "workers": 1, **kw})
    assert not (tmp_path / "cache" / "w2v").exists()  # refused before anything was written


@pytest.mark.parametrize("V, d", [(10, 0), (10, 10), (1, 1), (10, 2.5)])
def test_train_word2vec_refuses_bad_sizes(V, d):
    from qwem_lib.qwem.w2v import train_word2vec

    with pytest.raises((ValueError, TypeError), match="V|d"):
        train_word2vec(_corpus(), V, d, epochs=1, workers=1)


def test_cooccurrence_refuses_a_window_wider_than_the_corpus_at_once():
    """Before issue 41, window=10**9 allocated np.arange(10**9) and more, without end."""
    from qwem_lib.qwem.corpus_stats import cooccurrence, cooccurrence_counts
    from qwem_lib.qwem.pairs import make_sampler

    c = _corpus(n=500)
    t0 = time.perf_counter()
    for window in (10**9, 500, 2**62):
        with pytest.raises(ValueError, match=r"window must be an integer in \[1, 499\]"):
            cooccurrence(c, 10, window, use_cache=False)
    with pytest.raises(ValueError, match="window"):
        cooccurrence_counts(np.asarray(c.ids), 10, 10**9)
    with pytest.raises(DataError, match="window"):
        make_sampler(np.asarray(c.ids), 10, 10**9, device="cpu")
    assert time.perf_counter() - t0 < 5.0  # refused, not attempted
    # the widest window the corpus allows still counts, and equals the brute-force count of one pair
    _, P, _ = cooccurrence(_corpus(n=3), 2, 2, weighting="flat", oov="skip", use_cache=False)
    assert np.isclose(P.sum(), 1.0)


# -- 3. the data folder --------------------------------------------------------------------------------
def _register(root, name: str, text: str) -> Dataset:
    rel = f"corpus/{name}.txt.xz"
    f = root / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_bytes(lzma.compress(text.encode()))
    spec = FileSpec(rel, hashlib.sha256(f.read_bytes()).hexdigest(), f.stat().st_size)
    return data.register(Dataset(name, "corpus", "test", (spec,)))


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


# -- 3. a cache hit is checked against the request -------------------------------------------------------
def test_read_npz_checks_shape_and_finiteness(tmp_path):
    from qwem_lib.book.cache import read_npz

    f = tmp_path / "entry.npz"
    np.savez(f, W=np.ones((4, 2)))
    assert read_npz(f, ("W",), shapes={"W": (4, 2)}, finite=("W",)) is not None
    assert read_npz(f, ("W",), shapes={"W": (None, 2)}) is not None
    with pytest.warns(RuntimeWarning, match=r"W has shape \(4, 2\), the request needs \(5, 2\)"):
        assert read_npz(f, ("W",), shapes={"W": (5, 2)}) is None
    assert not f.exists()  # removed: the caller recomputes
    np.savez(f, W=np.full((4, 2), np.nan))
    with pytest.warns(RuntimeWarning, match="NaN or infinite"):
        assert read_npz(f, ("W",), finite=("W",)) is None
    assert not f.exists()


@pytest.mark.parametrize("bad", ["shape", "nan"])
def test_spectral_cache_hit_of_wrong_shape_or_nan_is_recomputed(data_env, bad):
    from qwem_lib.qwem.spectral import spectral_embeddings

    rng = np.random.default_rng(3)
    vocab = [f"w{chr(97 + i)}" for i in range(14)]
    p = 1.0 / np.arange(1, 15)
    _register(
        data_env,
        "inputs_tiny",
        " " + " ".join(vocab[i] for i in rng.choice(14, 3000, p=p / p.sum())),
    )
    _, W = spectral_embeddings("inputs_tiny", 8, 2, window=3)
    (entry,) = (data_env / "cache" / "spectral").glob("*.npz")
    np.savez(entry, W=np.zeros((8, 3)) if bad == "shape" else np.full((8, 2), np.nan))
    with pytest.warns(RuntimeWarning, match="damaged"):
        _, again = spectral_embeddings("inputs_tiny", 8, 2, window=3)
    assert np.array_equal(again, W)


def test_spectral_embeddings_in_the_dtype_asked():
    from qwem_lib.qwem.spectral import embeddings_from_matrix, spectral_embeddings

    c = _corpus()
    for dt in (np.float32, np.float64):
        _, W = spectral_embeddings(c, 8, 2, window=3, dtype=dt, use_cache=False)
        assert W.dtype == dt
    _, W64 = spectral_embeddings(c, 8, 2, window=3, dtype=np.float64, use_cache=False)
    _, W32 = spectral_embeddings(c, 8, 2, window=3, dtype=np.float32, use_cache=False)
    assert (
        np.abs(np.abs(W64) - np.abs(W32)).max() < 1e-4
    )  # the same embeddings, to float32's precision
    M = np.diag([3.0, 2.0, 1.0])
    assert embeddings_from_matrix(M, 2)[0].dtype == np.float32  # the documented default
    assert embeddings_from_matrix(M, 2, dtype=np.float64)[0].dtype == np.float64


# -- 3. FC training's cache key holds the device ----------------------------------------------------------
def test_fc_cache_key_has_the_device_and_keeps_cpu_keys():
    from qwem_lib import fc
    from qwem_lib.fc.training import _cache_path

    task = fc.make_dataset(fc.make_task(nc=2, nw=2, L=3, K=2, seed=0), nspl=2, seed=0)
    cfg = fc.FCTrainConfig(epochs=1, d=4)
    cpu = _cache_path(task, cfg, "cpu")
    assert (
        _cache_path(task, cfg) == cpu
    )  # the default is the CPU's key, as before the device was keyed
    assert _cache_path(task, cfg, "cuda") != cpu
    assert _cache_path(task, cfg, "cuda:1") == _cache_path(
        task, cfg, "cuda"
    )  # the kind, not the index


@pytest.mark.parametrize(
    "field, value",
    [
        ("wd_W", float("nan")),
        ("wd_U", -1.0),
        ("init_scale", float("nan")),
        ("init_scale", -1e-3),
        ("lr", float("inf")),
        ("d", 2.5),
        ("seed", -1),
    ],
)
def test_fc_config_refuses_nan_and_negative_settings(field, value):
    from qwem_lib import fc

    with pytest.raises((ValueError, TypeError), match=field):
        fc.FCTrainConfig(epochs=1, **{field: value})


# -- the helpers themselves --------------------------------------------------------------------------
def test_checks_messages_name_the_argument_the_value_and_what_is_expected():
    with pytest.raises(ValueError, match=r"window must be an integer >= 1, got 0"):
        checks.positive_int("window", 0)
    with pytest.raises(ValueError, match=r"d must be a whole number, got 2.5"):
        checks.positive_int("d", 2.5)
    with pytest.raises(TypeError, match=r"steps must be an integer, got True"):
        checks.positive_int("steps", True)
    with pytest.raises(ValueError, match=r"lr must be a finite number, got nan"):
        checks.positive("lr", float("nan"))
    with pytest.raises(ValueError, match=r"share must be a number >= 0 and <= 1, got 1.5"):
        checks.fraction("share", 1.5)
    with pytest.raises(ValueError, match=r"t must be strictly increasing, got 2.0 followed by 1.0"):
        checks.increasing("t", [0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=r"M must be 2-D, got shape \(3,\)"):
        checks.finite_array("M", [1, 2, 3], ndim=2)
    with pytest.raises(ValueError, match=r"M must hold finite numbers, got 1 NaN"):
        checks.finite_array("M", [[1.0, np.nan]], ndim=2)
    with pytest.raises(TypeError, match="M must be an array of real numbers"):
        checks.finite_array("M", np.array(["a"]))
    with pytest.raises(ValueError, match=r"kind must be one of 'a', 'b', got 'c'"):
        checks.one_of("kind", "c", ("a", "b"))
    # an ArgumentTypeError is both, so callers that catch either keep working
    assert issubclass(checks.ArgumentTypeError, TypeError)
    assert issubclass(checks.ArgumentTypeError, ValueError)
    assert checks.positive_int("n", 3.0) == 3 and isinstance(
        checks.positive_int("n", np.int64(3)), int
    )
    assert checks.increasing("t", [0, 1, 1], strict=False).dtype == np.float64
