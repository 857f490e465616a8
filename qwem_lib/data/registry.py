"""The data layer's registry: every dataset the book reads, by name, with its files' sizes and checksums.

The first room of the data's path (registry -> acquire and verify -> tokenise -> cache): a
:class:`Dataset` names its files (:class:`FileSpec`: path inside the data directory, size, sha256, public
address), :func:`dataset` looks one up, :func:`data_dir` says where the files live, and
:class:`DataError` is the one error the layer raises, with a message that says what to do.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..book import config

__all__ = [
    "DataError",
    "SHARED_HINT",
    "FileSpec",
    "Dataset",
    "SHIPPED_DIR",
    "REGISTRY",
    "register",
    "BUILTIN",
    "data_dir",
    "dataset",
    "offline",
]


class DataError(RuntimeError):
    """A dataset is missing, incomplete, corrupt or unusable. The message says what to do."""


SHARED_HINT = (
    "If you have the book's shared data folder, point the book at it: "
    "export QWEM_DATA_DIR=/path/to/shared/data  (CI uses ../shared/data)."
)


@dataclass(frozen=True)
class FileSpec:
    """One file of a dataset, relative to the data directory."""

    path: str
    sha256: str | None
    size: int | None = None
    url: str | None = None
    """A public address from which :func:`fetch` may download the file."""
    gensim_file: str | None = None
    """Name of an identical copy shipped in gensim's test data (used before any download)."""
    drop_header_lines: int = 0
    """Lines to strip from the downloaded file before its checksum is checked."""
    content_sha256: str | None = None
    """For ``.xz`` files: sha256 of the decompressed bytes. A file rebuilt from the public source
    (:mod:`qwem_lib.data.sources`) has the same content but other compressed bytes; it is accepted by this."""


@dataclass(frozen=True)
class Dataset:
    name: str
    kind: str  # "corpus" or "eval"
    description: str
    files: tuple[FileSpec, ...]
    licence: str = ""
    how_to_get: str = ""
    """Extra instructions shown when the files are missing and cannot be downloaded."""
    tokens: int | None = None
    """Documented token count (corpora), checked in the first chapter."""
    extract: str | None = None
    """For zip downloads: the member to read."""
    content_sha256: str | None = None
    """sha256 of the decompressed bytes (checked as they stream through the tokeniser), for archives whose
    own checksum is not known."""


_ENWIKI = "Text from English Wikipedia (2015 dump), CC BY-SA 3.0"
_FROM_SOURCE = (
    "With downloads allowed (QWEM_OFFLINE unset) it is rebuilt automatically from its public "
    "source (400 files of github.com/jason-feng/wikiVisual at a pinned commit; see "
    "qwem_lib/data/sources.py), or by hand: python -m qwem_lib.data.sources {name}. QWEM_SOURCE_URL may "
    "point at a local copy of the source files (file:///…)."
)

SHIPPED_DIR = config.REPO_ROOT / "data" / "shipped"
"""Small datasets committed with the book (same layout as the data directory), so that the smoke preset
runs on a fresh clone with no data folder and no network: enwiki2015_1m7 (CC BY-SA 3.0) and MEN (CC BY 2.0)."""

REGISTRY: dict[str, Dataset] = {}


def register(ds: Dataset) -> Dataset:
    """Add (or replace) a dataset in the registry. Tests use it for tiny synthetic corpora."""
    REGISTRY[ds.name] = ds
    return ds


register(
    Dataset(
        "enwiki2015_1m7",
        "corpus",
        "English Wikipedia 2015, first 10 MB of the text8-style stream",
        (
            FileSpec(
                "corpus/enwiki2015_1m7.txt.xz",
                "8db1cf1f5fea7609917413854b07401a6d9b011e9b6a43683a4c258f20cf674a",
                2_522_120,
                content_sha256="4795d422b66cd80021df5f66cc310facac517ffdb2b6536fdaace80f19165b9f",
            ),
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_1m7"),
        tokens=1_690_808,
    )
)
register(
    Dataset(
        "enwiki2015_17m",
        "corpus",
        "English Wikipedia 2015, text8-style, 100 MB (the text8 analogue)",
        (
            FileSpec(
                "corpus/enwiki2015_17m.txt.xz",
                "552671497f0e5b512e25a654fcf7fe4ae76ac1735c18b1b8fc1bdbf0e040f7f3",
                24_505_904,
                content_sha256="a4349225df8ee8b825edec33208e3c880c30e6091e6bf7cbcc770708eb28e1f5",
            ),
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_17m"),
        tokens=16_941_169,
    )
)
register(
    Dataset(
        "enwiki2015_70m",
        "corpus",
        "English Wikipedia 2015, text8-style, all 30,539 articles (four parts)",
        tuple(
            FileSpec(f"corpus/enwiki2015_full/enwiki2015_70m_{p}.txt.xz", h, s, content_sha256=c)
            for p, h, s, c in [
                (
                    "AA",
                    "c7c4b4beb5272b11915897347b3b4e147774dc69f2c3aeb188ec2f91d5449320",
                    25_357_972,
                    "128f4696eedb38dfded10b25f6b1942b6e2b8592631a128b441229a1386e8a0f",
                ),
                (
                    "AB",
                    "67b666f7820ab78eae9094b1fc3a2e5caafab177712e39f6266a1934159a60f2",
                    25_315_388,
                    "a3146fc791d83280de2545f5cc0eb141ce5c9c2273d8d8251a5cb017e62bbb9e",
                ),
                (
                    "AC",
                    "ac9d349a497465acfd26938302094441af59985880f10b14fb9499ca162792bd",
                    25_225_040,
                    "52bd22bf029d35a19d733b2a4c8cfe238d6c6181d5a39079630ae0040360b38e",
                ),
                (
                    "AD",
                    "88ac1a59e13f370c3faf44518397fd542d906ce60126ee105039746186977113",
                    25_435_856,
                    "bc9134a41f7f96619357a6cef1507a588cb44576649e944718f19d886016281f",
                ),
            ]
        ),
        licence=_ENWIKI,
        how_to_get=_FROM_SOURCE.format(name="enwiki2015_70m"),
        tokens=70_166_442,
    )
)
register(
    Dataset(
        # The digest is that of the unzipped 100,000,000-byte file as published by others; the zip itself
        # (31,344,016 bytes) is checked by size. It could not be downloaded from the machine the book was
        # written on (no internet), so it is the one checksum here not verified by the authors of the book.
        "text8",
        "corpus",
        "Matt Mahoney's text8: the first 10^8 bytes of a 2006 English Wikipedia dump",
        (
            FileSpec(
                "corpus/text8.zip", None, 31_344_016, url="http://mattmahoney.net/dc/text8.zip"
            ),
        ),
        licence="Wikipedia text (CC BY-SA)",
        tokens=17_005_207,
        extract="text8",
        content_sha256="6e890197040d37d85beb962ae1f041ff1d9a9ca8d20c7d99c85027eebf51dca7",
    )
)
register(
    Dataset(
        "google_analogy",
        "eval",
        "Google analogy questions (Mikolov et al. 2013), 19,544 questions",
        (
            FileSpec(
                "eval/google_analogy/questions-words.txt",
                "8c29b3332afc46f3fb8be04cb5297bf96f39aa7131272dff57869b4485b22a36",
                603_955,
                gensim_file="questions-words.txt",
            ),
        ),
        licence="Apache-2.0",
        how_to_get="`pip install gensim` ships an identical copy.",
    )
)
register(
    Dataset(
        "men",
        "eval",
        "MEN relatedness (Bruni, Tran and Baroni 2014), 3,000 pairs, scores 0-50",
        (
            FileSpec(
                "eval/MEN/MEN_dataset_natural_form_full",
                "4596e169dd237228ca7701dde33585ca93263506ce7fca9de0f951aaab1aae36",
                69_858,
                url="https://raw.githubusercontent.com/mrmechko/simcross/"
                "ffc5c7598185be00260d81fd71274db32e6bceda/MEN/MEN_dataset_natural_form_full",
                drop_header_lines=1,
            ),
        ),
        licence="CC BY 2.0",
    )
)
register(
    Dataset(
        # gensim's copy (two '#' header lines, then the same 353 pairs as EN-WS-353-ALL.txt): every machine
        # that installs the book has it, so WordSim353 needs no download and is never shipped (it states no
        # licence).
        "ws353",
        "eval",
        "WordSim353 (Finkelstein et al. 2002), 353 pairs, scores 0-10",
        (
            FileSpec(
                "eval/wordsim353/wordsim353.tsv",
                "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d",
                7_186,
                gensim_file="wordsim353.tsv",
            ),
        ),
        licence="cite Finkelstein et al. 2002",
        how_to_get="`pip install gensim` ships it.",
    )
)


BUILTIN: tuple[str, ...] = tuple(REGISTRY)
"""The datasets the book itself registers (tests may register more). Test oracle: only the tests read it,
to check every built-in dataset against the shared data folder."""


def data_dir() -> Path:
    """The data directory: ``QWEM_DATA_DIR`` (empty counts as unset) or ``data/`` in the repository.

    ``QWEM_DATA_DIR`` naming something that is not a folder (a file) raises :class:`DataError`: nothing
    could ever be read from it or written into it. A folder that does not exist yet is returned (a
    download or a corpus rebuild creates it); :func:`~qwem_lib.data.files.fetch` warns when it then reads
    a committed copy instead.
    """
    raw = os.environ.get("QWEM_DATA_DIR", "").strip()
    if not raw:
        return config.REPO_ROOT / "data"
    root = Path(raw).expanduser()
    if root.exists() and not root.is_dir():
        raise DataError(
            f"QWEM_DATA_DIR={raw!r} is not a folder ({root} is a file); point it at the data folder "
            "(the book's shared data, e.g. ../shared/data) or unset it to use data/ in the repository"
        )
    return root


def dataset(name: str) -> Dataset:
    try:
        return REGISTRY[name]
    except KeyError:
        raise DataError(
            f"unknown dataset name {name!r}; registered: {', '.join(sorted(REGISTRY))}"
        ) from None


def offline() -> bool:
    """Whether downloads are switched off: the environment variable ``QWEM_OFFLINE`` is set to anything but
    empty, ``0`` or ``false``."""
    return os.environ.get("QWEM_OFFLINE", "").strip() not in ("", "0", "false")
