"""The cache's safe writer and reader (qwem_lib/book/cache.py), checked from outside.

Each test states what a reader of the module's docstring may rely on — the file appears whole with mode
0644 or not at all, a writer that died leaves nothing that lingers, a damaged entry is removed with a
warning naming it, a full disk says which folder is full — and checks it on the file system itself
(``os.stat``, directory listings, numpy's own reader), not by re-deriving the module's code.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import subprocess
import sys
import warnings
from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest

from qwem_lib.book import cache
from qwem_lib.book.cache import array_key, atomic_path, discard, read_npz


def _dead_pid() -> int:
    """The id of a process that has exited (its child was reaped, so no process holds that id now)."""
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# -- atomic_path ----------------------------------------------------------------------------------------------


def test_atomic_path_moves_a_complete_file_into_place_with_mode_0644(tmp_path):
    target = tmp_path / "sub" / "entry.npz"  # its folder does not exist yet
    old_umask = os.umask(0o077)  # a strict umask must not leave the entry private either
    try:
        with atomic_path(target, ".npz") as tmp:
            assert tmp.parent == target.parent
            assert not target.exists()  # nothing at the target until the block ends
            np.savez(tmp, W=np.arange(5.0))
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert _listing(target.parent) == ["entry.npz"]  # the temporary file is gone
    with np.load(target) as z:
        assert np.array_equal(z["W"], np.arange(5.0))


def test_atomic_path_names_its_temporary_file_after_the_target_and_this_process(tmp_path):
    target = tmp_path / "t.bin"
    with atomic_path(target, ".npz") as tmp:
        name = tmp.name
        assert name.startswith(f".t.bin.{os.getpid()}.")
        assert name.endswith(".part.npz")
        tmp.write_bytes(b"x")
    with atomic_path(target) as tmp:
        assert tmp.name.endswith(".part")  # no suffix asked for: none added
        tmp.write_bytes(b"y")
    assert target.read_bytes() == b"y"  # the second writer replaced the first


def test_atomic_path_leaves_target_and_folder_unchanged_when_the_block_fails(tmp_path):
    target = tmp_path / "t.bin"
    target.write_bytes(b"old")
    with pytest.raises(KeyError):
        with atomic_path(target) as tmp:
            tmp.write_bytes(b"half-written")
            raise KeyError("stop")
    assert target.read_bytes() == b"old"
    assert _listing(tmp_path) == ["t.bin"]


def test_atomic_path_removes_the_leftovers_of_dead_writers_only(tmp_path):
    target = tmp_path / "t.npz"
    dead, alive = _dead_pid(), os.getppid()
    names = {
        "dead": f".t.npz.{dead}.abc.part.npz",  # its writer died: removed
        "alive": f".t.npz.{alive}.abc.part.npz",  # its writer still runs: kept
        "self": f".t.npz.{os.getpid()}.abc.part",  # this process's own: kept
        "not a pid": ".t.npz.xyz.abc.part",  # not a writer's name: kept
        "other target": f".t.npzz.{dead}.abc.part",  # another entry's leftover: kept
        "other target 2": f".u.npz.{dead}.abc.part",
    }
    for n in names.values():
        (tmp_path / n).write_bytes(b"")
    with atomic_path(target, ".npz") as tmp:
        tmp.write_bytes(b"done")
    kept = set(_listing(tmp_path))
    assert names["dead"] not in kept
    assert kept == {"t.npz"} | {v for k, v in names.items() if k != "dead"}


def test_atomic_path_in_a_folder_it_cannot_write_computes_but_does_not_cache(tmp_path, monkeypatch):
    target = tmp_path / "t.bin"

    def refuse(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    with pytest.warns(RuntimeWarning, match=r"cannot write the cache entry .*t\.bin.*not cached"):
        with atomic_path(target, ".npz") as tmp:
            assert tmp.parent != tmp_path
            assert tmp.name == "t.bin.part.npz"
            tmp.write_bytes(b"computed")
            assert tmp.read_bytes() == b"computed"  # the block can write and read its result
    assert not target.exists()
    assert not tmp.exists()  # the stand-in folder is removed
    assert _listing(tmp_path) == []


@pytest.mark.parametrize("code", [errno.EPERM, errno.EROFS])
def test_every_read_only_error_is_a_warning(tmp_path, monkeypatch, code):
    def refuse(*a, **k):
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    with pytest.warns(RuntimeWarning, match=os.strerror(code)):
        with atomic_path(tmp_path / "t.bin") as tmp:
            tmp.write_bytes(b"x")


def test_atomic_path_passes_other_errors_through(tmp_path, monkeypatch):
    def broken(*a, **k):
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(cache.tempfile, "mkstemp", broken)
    with pytest.raises(OSError) as info:
        with atomic_path(tmp_path / "t.bin"):
            pass
    assert info.value.errno == errno.EIO and "I/O error" in str(info.value)


Usage = namedtuple("Usage", "total used free")


@pytest.mark.parametrize("where", ["opening", "writing", "wrapped"])
def test_a_full_disk_says_which_folder_is_full_and_how_much_is_left(tmp_path, monkeypatch, where):
    target = tmp_path / "entry.npz"
    full = OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(cache.shutil, "disk_usage", lambda p: Usage(10 * 2**30, 0, 3 * 2**20))
    if where == "opening":

        def no_room(*a, **k):
            raise full

        monkeypatch.setattr(cache.tempfile, "mkstemp", no_room)
    with pytest.raises(OSError) as info:
        with atomic_path(target, ".npz"):
            if where == "writing":
                raise full
            if (
                where == "wrapped"
            ):  # e.g. zipfile's own error around the OSError, inside numpy.savez
                raise RuntimeError("zip write failed") from full
    msg = str(info.value)
    assert info.value.errno == errno.ENOSPC
    assert "entry.npz" in msg and str(tmp_path) in msg and "QWEM_CACHE_DIR" in msg
    assert "(3 MiB free)" in msg
    assert _listing(tmp_path) == []  # no partial entry


def test_a_full_disk_whose_free_space_cannot_be_read(tmp_path, monkeypatch):
    def unknown(p):
        raise OSError(errno.EIO, "cannot stat")

    monkeypatch.setattr(cache.shutil, "disk_usage", unknown)
    with pytest.raises(OSError, match="free space unknown"):
        with atomic_path(tmp_path / "e.bin"):
            raise OSError(errno.ENOSPC, "No space left on device")


def test_an_error_that_is_not_a_full_disk_is_not_relabelled(tmp_path):
    with pytest.raises(RuntimeError, match="^plain$"):
        with atomic_path(tmp_path / "e.bin"):
            raise RuntimeError("plain") from OSError(errno.EIO, "io")
    with pytest.raises(OSError) as info:
        with atomic_path(tmp_path / "e.bin"):
            raise OSError(errno.EIO, "io")
    assert info.value.errno == errno.EIO and "no space" not in str(info.value)


def test_free_space_is_reported_in_mebibytes_with_thousands_separators(tmp_path, monkeypatch):
    monkeypatch.setattr(cache.shutil, "disk_usage", lambda p: Usage(0, 0, 12_345 * 2**20))
    with pytest.raises(OSError, match=r"\(12,345 MiB free\)"):
        with atomic_path(tmp_path / "e.bin"):
            raise OSError(errno.ENOSPC, "full")


# -- read_npz and discard -----------------------------------------------------------------------------------


def _write_npz(path: Path, **arrays) -> None:
    with atomic_path(path, ".npz") as tmp:
        np.savez(tmp, **arrays)


def test_read_npz_returns_every_array_whole(tmp_path):
    p = tmp_path / "a.npz"
    _write_npz(p, W=np.arange(6.0).reshape(2, 3), lam=np.array([3, 1]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a good entry is read without any warning
        got = read_npz(p, required=("W", "lam"))
    assert got is not None and set(got) == {"W", "lam"}
    assert np.array_equal(got["W"], np.arange(6.0).reshape(2, 3))
    assert np.array_equal(got["lam"], [3, 1])
    assert isinstance(got["W"], np.ndarray)  # read out, not a lazy view of a closed file
    assert p.exists()
    assert read_npz(str(p))["lam"].tolist() == [3, 1]  # a string path works as well


def test_read_npz_of_an_absent_file_is_none_without_a_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_npz(tmp_path / "none.npz", required=("W",)) is None


def test_read_npz_discards_an_entry_missing_a_required_array(tmp_path):
    p = tmp_path / "a.npz"
    _write_npz(p, W=np.zeros(3))
    with pytest.warns(RuntimeWarning, match=r"a\.npz is damaged \(it lacks \['lam'\]\)"):
        assert read_npz(p, required=("W", "lam")) is None
    assert not p.exists()


@pytest.mark.parametrize("damage", ["truncated", "not a zip", "pickled"])
def test_read_npz_discards_a_damaged_entry(tmp_path, damage):
    p = tmp_path / "a.npz"
    if damage == "pickled":  # an object array needs pickle, which a cache never loads
        np.savez(p, X=np.array([{"a": 1}], dtype=object))
    else:
        _write_npz(p, W=np.arange(10_000.0))
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"plain text" * 10)
    with pytest.warns(RuntimeWarning, match=r"is damaged .*removed and will be recomputed"):
        assert read_npz(p) is None
    assert not p.exists()


def test_discard_removes_the_file_and_names_it_and_why(tmp_path):
    p = tmp_path / "x.npz"
    p.write_bytes(b"x")
    with pytest.warns(RuntimeWarning) as rec:
        discard(p, "a test reason")
    assert str(rec[0].message) == (
        f"cache entry {p} is damaged (a test reason); it was removed and will be recomputed"
    )
    assert not p.exists()
    with pytest.warns(RuntimeWarning):
        discard(str(p), "already gone")  # an absent file is no error


def test_warnings_point_at_the_code_that_asked_for_the_entry(tmp_path, monkeypatch):
    """``stacklevel``: a warning names the line that called read_npz or opened atomic_path, not cache.py
    or contextlib."""
    import inspect

    p = tmp_path / "a.npz"
    p.write_bytes(b"junk")
    with pytest.warns(RuntimeWarning) as rec:
        line = inspect.currentframe().f_lineno + 1
        read_npz(p)
    assert (Path(rec[0].filename).name, rec[0].lineno) == ("test_cache.py", line)

    def refuse(*a, **k):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(cache.tempfile, "mkstemp", refuse)
    with pytest.warns(RuntimeWarning) as rec:
        line = inspect.currentframe().f_lineno + 1
        with atomic_path(tmp_path / "b.bin") as tmp:
            tmp.write_bytes(b"x")
    assert (Path(rec[0].filename).name, rec[0].lineno) == ("test_cache.py", line)


def test_array_key_hashes_the_float64_values_in_turn():
    P, pu = np.eye(3), np.arange(3.0)
    # independently: one update with the joined bytes
    h = hashlib.sha256(P.tobytes() + pu.tobytes()).hexdigest()[:16]
    assert array_key(P, pu) == h
    # the key trainers.train_expected and minimise_expected wrote before issue 40 (their _stats_key): caches
    # of hours of paper-preset work stay valid
    assert array_key(P, pu) == "708c75e1c031778d"
    assert array_key(P.astype(np.float32), [0, 1, 2]) == h  # equal as float64: the same key
    R = np.arange(9.0).reshape(3, 3)
    assert array_key(np.asfortranarray(R), pu) == array_key(R, pu)  # values, not the memory layout
    assert array_key(P, pu + 1e-15) != h
    assert array_key(pu, P) != h and array_key(P) != h  # order and number of arrays count


# -- the one cache helper: digest, entry, cached, Checkpoint ----------------------------------------------------


def test_digest_is_sha256_of_sorted_json():
    want = hashlib.sha256(b'{"V": 5, "d": [1, 2]}').hexdigest()
    assert cache.digest({"d": [1, 2], "V": 5}) == want[:16]
    assert cache.digest({"d": [1, 2], "V": 5}, n=20) == want[:20]
    with pytest.raises(ValueError, match="n must be"):
        cache.digest({}, n=0)


def test_entry_lives_under_the_cache_folder_and_refuses_paths(monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    assert cache.entry("fc", "run_1.npz") == tmp_path / "fc" / "run_1.npz"
    for bad in ("../x.npz", "a/b.npz", ".hidden", "", 3):
        with pytest.raises(ValueError, match="plain file name"):
            cache.entry("fc", bad)
    with pytest.raises(ValueError, match="kind must be"):
        cache.entry("..", "x.npz")


def test_cached_computes_once_then_reads_and_checks(tmp_path):
    path = tmp_path / "k" / "e.npz"
    calls = []

    def compute():
        calls.append(1)
        return {"W": np.arange(6.0).reshape(3, 2)}

    a, hit = cache.cached(path, compute, required=("W",), shapes={"W": (3, 2)}, finite=("W",))
    assert not hit and len(calls) == 1 and path.exists()
    b, hit = cache.cached(path, compute, required=("W",), shapes={"W": (3, 2)}, finite=("W",))
    assert hit and len(calls) == 1
    np.testing.assert_array_equal(a["W"], b["W"])
    # a request for another shape does not take the entry: it is removed and recomputed
    with pytest.warns(RuntimeWarning, match="shape"):
        _, hit = cache.cached(path, compute, shapes={"W": (4, 2)})
    assert not hit and len(calls) == 2
    # no path: nothing is written
    _, hit = cache.cached(None, compute)
    assert (
        not hit and len(calls) == 3 and sorted(p.name for p in path.parent.iterdir()) == ["e.npz"]
    )


def test_checkpoint_saves_loads_and_clears_beside_its_entry(tmp_path):
    ck = cache.Checkpoint(tmp_path / "run.npz", required=("step",))
    assert ck.path == tmp_path / "run.ckpt.npz" and ck.load() is None
    ck.save({"step": np.array(3), "W": np.ones(2)})
    got = ck.load()
    assert got is not None and int(got["step"]) == 3
    cache.save_npz(ck.path, {"W": np.ones(2)})  # lacks "step": not a usable checkpoint
    with pytest.warns(RuntimeWarning, match="lacks"):
        assert ck.load() is None
    ck.save({"step": np.array(1)})
    ck.clear()
    assert not ck.path.exists()
    none = cache.Checkpoint(None)
    none.save({"step": np.array(1)})
    assert none.load() is None and none.path is None
