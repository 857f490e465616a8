"""The enwiki2015 corpora from their public source: the normaliser on hand-made inputs, a byte-exact rebuild
of enwiki2015_1m7 from the shared folder's ten source files, and clear errors for bad sources."""

from __future__ import annotations

import hashlib
import lzma
import os
from pathlib import Path

import pytest

from qwem_lib import data
from qwem_lib.data import DataError, sources

SHARED = Path(
    os.environ.get("QWEM_DATA_DIR_SHARED")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)
SHARED_SOURCES = SHARED / "sources" / "wikiVisual-1c0fac92"


# -- the text8 recipe ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw, want",
    [
        ("Hello, World!", "hello world"),
        ("In 1998 it rained", "in one nine nine eight it rained"),
        ("x2y", "x two y"),
        (
            "Tom &amp; Jerry &lt;3 caf&eacute;",
            "tom jerry three caf",
        ),  # entities unescaped, é dropped
        ("a <ref name=x>b</ref> c", "a b c"),  # tags removed, text kept
        ("see formula_12 and codice_3 here", "see and here"),  # placeholders removed
        ("formula_12x stays", "formula one two x stays"),  # not a whole placeholder word
        ("<" + "z" * 201 + "> tail", "z" * 201 + " tail"),  # tags longer than 200 are text
        ("&amp;lt;b&amp;gt; bold", "lt b gt bold"),  # unescaped once, after tags
        ("   \n\t  ", ""),
    ],
)
def test_normalise(raw, want):
    assert sources.normalise(raw) == want


def test_tag_removal_happens_before_unescaping():
    # "&lt;b&gt;" becomes "<b>" only after tags were removed, so its letters survive
    assert sources.normalise("&lt;b&gt;x") == "b x"


def test_articles_drop_titles_and_empty_bodies():
    text = (
        '<doc id="1" url="u" title="First">\nFirst\n\nBody one, 2 words.\n</doc>\n'
        '<doc id="2" url="u" title="Empty">\nEmpty\n\n12!\n</doc>\n'  # digits only -> not empty
        '<doc id="3" url="u" title="Blank">\nBlank\n\n&nbsp; ??\n</doc>\n'
        '<doc id="4" url="u" title="Last">\nLast\nline a\nline b\n</doc>\n'
    )
    got = list(sources.articles(text))
    assert got == ["body one two words", "one two", "line a line b"]
    assert "".join(sources.stream_from([text])) == " body one two words one two line a line b"


@pytest.mark.parametrize(
    "limit, want",
    [
        (100, " ab cd ef"),
        (9, " ab cd ef"),
        (8, " ab cd"),
        (6, " ab cd"),
        (5, " ab"),
        (4, " ab"),
        (3, " ab"),
    ],
)
def test_cut_at_token(limit, want):
    assert sources.cut_at_token(" ab cd ef", limit) == want


def test_source_table_is_the_pinned_one():
    files = sources.source_files()
    assert (
        len(files) == 400
        and files[0].path == "text/AA/wiki_00"
        and files[-1].path == "text/AD/wiki_99"
    )
    assert len({f.sha256 for f in files}) == 400


# -- rebuilding a corpus ------------------------------------------------------------------------------
@pytest.fixture
def empty_data(monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("QWEM_OFFLINE", raising=False)
    return tmp_path / "data"


def _copy_sources(dst: Path, n: int = 10) -> Path:
    (dst / "text" / "AA").mkdir(parents=True)
    for f in sources.source_files()[:n]:
        (dst / f.path).write_bytes((SHARED_SOURCES / f.path).read_bytes())
    return dst


needs_shared = pytest.mark.skipif(
    not (SHARED_SOURCES / "text" / "AA" / "wiki_09").exists(),
    reason="the shared folder's source files are not present",
)


@needs_shared
def test_rebuild_enwiki2015_1m7_byte_exact(empty_data, monkeypatch):
    monkeypatch.setenv("QWEM_SOURCE_URL", SHARED_SOURCES.as_uri())
    (path,) = sources.build_corpus("enwiki2015_1m7")
    text = lzma.decompress(path.read_bytes())
    assert len(text) == 9_999_994
    assert (
        hashlib.sha256(text).hexdigest()
        == "4795d422b66cd80021df5f66cc310facac517ffdb2b6536fdaace80f19165b9f"
    )
    assert text.startswith(b" anarchism is a political philosophy")
    # the registry accepts the rebuilt file by its content, though its .xz bytes are the book's own
    assert data.fetch("enwiki2015_1m7") == [path]
    assert data.load_corpus("enwiki2015_1m7", use_cache=False).n_tokens == 1_690_808


@needs_shared
def test_fetch_builds_a_missing_corpus_when_downloads_are_allowed(
    empty_data, monkeypatch, tmp_path
):
    monkeypatch.setenv("QWEM_SOURCE_URL", _copy_sources(tmp_path / "mirror").as_uri())
    monkeypatch.setattr(data.files, "SHIPPED_DIR", tmp_path / "nothing-shipped")
    (path,) = data.fetch("enwiki2015_1m7")
    assert path == empty_data / "corpus" / "enwiki2015_1m7.txt.xz"


@needs_shared
def test_wrong_source_checksum_names_the_file_and_writes_nothing(empty_data, monkeypatch, tmp_path):
    mirror = _copy_sources(tmp_path / "mirror")
    bad = mirror / "text" / "AA" / "wiki_03"
    b = bytearray(bad.read_bytes())
    b[1000] ^= 1  # same size, one bit flipped
    bad.write_bytes(bytes(b))
    monkeypatch.setenv("QWEM_SOURCE_URL", mirror.as_uri())
    with pytest.raises(DataError, match="text/AA/wiki_03: checksum mismatch"):
        sources.build_corpus("enwiki2015_1m7")
    assert not (empty_data / "corpus").exists() or not any((empty_data / "corpus").iterdir())
    assert not (empty_data / sources.LOCAL_FOLDER / "text" / "AA" / "wiki_03").exists()


@needs_shared
def test_truncated_source_is_refused(empty_data, monkeypatch, tmp_path):
    mirror = _copy_sources(tmp_path / "mirror")
    f = mirror / "text" / "AA" / "wiki_00"
    f.write_bytes(f.read_bytes()[:5000])
    monkeypatch.setenv("QWEM_SOURCE_URL", mirror.as_uri())
    with pytest.raises(DataError, match="truncated download"):
        sources.build_corpus("enwiki2015_1m7")


def test_unreachable_address_gives_a_clear_error(empty_data, monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_SOURCE_URL", "http://127.0.0.1:9/")  # loopback, nothing listens
    with pytest.raises(DataError, match="could not download http://127.0.0.1:9/text/AA/wiki_00"):
        sources.fetch_source(sources.source_files()[0])
    monkeypatch.setenv("QWEM_SOURCE_URL", (tmp_path / "no-such-folder").as_uri())
    with pytest.raises(DataError, match="no file at"):
        sources.fetch_source(sources.source_files()[0])
    monkeypatch.setenv("QWEM_SOURCE_URL", "ftp://example/")
    with pytest.raises(DataError, match="must start with"):
        sources.source_url()


def test_offline_missing_corpus_says_how_to_get_it(empty_data, monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_OFFLINE", "1")
    with pytest.raises(DataError) as err:
        data.fetch("enwiki2015_17m")
    msg = str(err.value)
    assert (
        "enwiki2015_17m" in msg
        and "QWEM_OFFLINE" in msg
        and "python -m qwem_lib.data.sources enwiki2015_17m" in msg
    )
    with pytest.raises(DataError, match="downloads are off"):
        sources.fetch_source(sources.source_files()[0], download=False)


def test_offline_default_uses_the_shipped_files(empty_data, monkeypatch):
    monkeypatch.setenv("QWEM_OFFLINE", "1")
    (corpus,) = data.fetch("enwiki2015_1m7")
    assert corpus == data.SHIPPED_DIR / "corpus" / "enwiki2015_1m7.txt.xz"
    (men,) = data.fetch("men")
    assert men.parent.parent.parent == data.SHIPPED_DIR
    (ws,) = data.fetch("ws353")  # from the gensim wheel, copied into the cache (issue 27: a derived
    from qwem_lib.book import (
        config,
    )  # file never goes into the data folder, which may be read-only)

    assert ws == config.cache_dir() / "data" / "eval" / "wordsim353" / "wordsim353.tsv"
    assert not (empty_data / "eval").exists()
    assert len(data.read_lines("ws353")) == 355  # two '#' header lines and 353 pairs


# -- inputs, caches and faults ------------------------------------------------------------------


def test_normaliser_tags_do_not_span_lines():
    from qwem_lib.data.sources import normalise

    assert normalise("a <b\nc> d") == "a b c d"
    assert normalise("a <b c> d") == "a d"


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
