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


def _sleeping_child() -> subprocess.Popen:
    """A child that sleeps with every signal's default action restored (a test run under nohup would
    otherwise pass on an ignored SIGHUP, and a probe that wrongly sent one would go unnoticed); it says
    "ready" once its handlers are set, so no signal can arrive before."""
    code = (
        "import signal, sys, time\n"
        "for s in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):\n"
        "    signal.signal(s, signal.SIG_DFL)\n"
        "print('ready', flush=True)\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def live_writer():
    """A running child process standing for a writer that is still at work (never a process this test did
    not start: a wrong probe signalling it must not hit pytest's parent)."""
    proc = _sleeping_child()
    yield proc
    proc.kill()
    proc.wait()


def test_atomic_path_removes_the_leftovers_of_dead_writers_only(tmp_path, live_writer):
    target = tmp_path / "t.npz"
    dead, alive = _dead_pid(), live_writer.pid
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
    with pytest.raises(subprocess.TimeoutExpired):  # still running: the probe sent it no signal
        live_writer.wait(timeout=0.3)
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

    def usage(p):
        assert Path(p) == tmp_path, p  # the full disk is the one of the entry's folder
        return Usage(10 * 2**30, 0, 3 * 2**20)

    monkeypatch.setattr(cache.shutil, "disk_usage", usage)
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
    assert (
        "free some space there or point QWEM_CACHE_DIR at a larger disk; no partial entry was left"
        in msg
    )
    assert _listing(tmp_path) == []  # no partial entry


def test_a_full_disk_whose_free_space_cannot_be_read(tmp_path, monkeypatch):
    def unknown(p):
        raise OSError(errno.EIO, "cannot stat")

    monkeypatch.setattr(cache.shutil, "disk_usage", unknown)
    with pytest.raises(OSError, match=r"\(free space unknown\)"):
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


UNDER_MUTMUT = any(
    "__mutmut_" in name for name in vars(cache)
)  # mutmut's copy: trampolines add frames


@pytest.mark.skipif(
    UNDER_MUTMUT, reason="mutmut's trampolines add stack frames: stacklevel cannot hold"
)
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


def test_digest_takes_1_to_64_digits_and_writes_non_json_values_as_text():
    assert len(cache.digest(0, n=1)) == 1 and len(cache.digest(0, n=64)) == 64
    for bad in (65, 1.5, True and 0):
        with pytest.raises(ValueError, match="n must be"):
            cache.digest(0, n=bad)
    # a value JSON cannot write (a NumPy dtype, a torch dtype) is keyed by its text, not refused
    want = hashlib.sha256(b'{"dtype": "float32"}').hexdigest()[:16]
    assert cache.digest({"dtype": np.dtype("float32")}) == want


def test_cached_honours_required_and_finite(tmp_path):
    path = tmp_path / "e.npz"
    cache.save_npz(path, {"W": np.array([np.nan, 1.0])})
    calls = []

    def compute():
        calls.append(1)
        return {"W": np.ones(2), "lam": np.ones(1)}

    with pytest.warns(RuntimeWarning, match="NaN"):
        got, hit = cache.cached(path, compute, finite=("W",))
    assert not hit and calls == [1] and np.isfinite(got["W"]).all()
    cache.save_npz(path, {"W": np.ones(2)})  # lacks lam
    with pytest.warns(RuntimeWarning, match="lacks"):
        _, hit = cache.cached(path, compute, required=("W", "lam"))
    assert not hit and calls == [1, 1]


def test_entry_refuses_a_backslash_and_names_the_argument(monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path))
    with pytest.raises(ValueError, match=r"^name must be a plain file name"):
        cache.entry("fc", "a\\b.npz")
    with pytest.raises(ValueError, match=r"^kind must be a plain file name"):
        cache.entry("a\\b", "x.npz")


def test_clearing_a_checkpoint_that_is_not_there_is_no_error(tmp_path):
    ck = cache.Checkpoint(tmp_path / "run.npz")
    ck.clear()  # nothing saved yet
    ck.save({"step": np.array(1)})
    ck.clear()
    ck.clear()
    assert not ck.path.exists()


# -- the cache's faults: read-only folders, a full disk --------------------------------------------
def test_atomic_path_leaves_a_readable_file(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_path(tmp_path / "x.bin") as tmp:
            tmp.write_bytes(b"1")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "x.bin").stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["x.bin"]  # no temporary file left


def test_killed_writer_leaves_no_orphan(tmp_path):
    target = tmp_path / "entry.npz"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True
    )
    pid = int(dead.stdout)
    orphan = tmp_path / f".entry.npz.{pid}.abc123.part.npz"
    orphan.write_bytes(b"half")
    # a live writer's file is kept; the writer is a child of this test (never a process the test did not
    # start), and the probe must not disturb it (os.kill with signal 0 sends nothing)
    writer = _sleeping_child()
    try:
        alive = tmp_path / f".entry.npz.{writer.pid}.abc123.part.npz"
        alive.write_bytes(b"busy")
        with atomic_path(target, ".npz") as tmp:
            np.savez(tmp, x=np.arange(3))
        assert not orphan.exists() and alive.exists() and target.exists()
        with pytest.raises(subprocess.TimeoutExpired):  # still running: the probe sent it no signal
            writer.wait(timeout=0.3)
    finally:
        writer.kill()
        writer.wait()


def test_orphans_of_dead_writers_go_whatever_comes_first_in_the_folder(tmp_path, monkeypatch):
    """Every file of a dead writer is removed, even when files of this process (or with no process id)
    come first in the listing: one is skipped, not the rest."""
    target = tmp_path / "entry.npz"
    mine = tmp_path / f".entry.npz.{os.getpid()}.a.part.npz"
    odd = tmp_path / ".entry.npz.notapid.b.part.npz"
    dead = tmp_path / f".entry.npz.{_dead_pid()}.c.part.npz"
    for f in (mine, odd, dead):
        f.write_bytes(b"x")
    listed = Path.glob
    order = {mine.name: 0, odd.name: 1, dead.name: 2}
    monkeypatch.setattr(
        Path,
        "glob",
        lambda self, pat: iter(sorted(listed(self, pat), key=lambda p: order.get(p.name, 3))),
    )
    cache._remove_orphans(target)
    assert not dead.exists() and mine.exists() and odd.exists()


def test_a_damaged_entry_s_warning_says_what_was_wrong(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.warns(RuntimeWarning, match=r"is damaged \((ValueError|BadZipFile): "):
        assert read_npz(bad) is None
    cache.save_npz(tmp_path / "w.npz", {"W": np.ones((3, 2))})
    with pytest.warns(
        RuntimeWarning, match=r"W has shape \(3, 2\), the request needs \(4, 'any'\)"
    ):
        assert read_npz(tmp_path / "w.npz", shapes={"W": (4, None)}) is None


def test_an_orphan_removed_by_another_writer_meanwhile_is_no_error(tmp_path, monkeypatch):
    """Two writers may clean the same leftovers: the file listed may be gone when it is removed."""
    gone = tmp_path / f".entry.npz.{_dead_pid()}.a.part.npz"  # listed, but already removed
    monkeypatch.setattr(Path, "glob", lambda self, pat: iter([gone]))
    cache._remove_orphans(tmp_path / "entry.npz")
    assert not gone.exists()


# -- inputs, caches and faults ------------------------------------------------------------------


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
