"""The data layer: a registry of named, checksummed datasets, and fast cached corpus loading.

Where data lives
    ``QWEM_DATA_DIR`` (default: ``data/`` in the repository). Its layout mirrors the book's shared data
    folder (``corpus/…``, ``eval/…``), so CI simply sets ``QWEM_DATA_DIR=../shared/data``. Nothing is
    ever copied into the repository: files are read in place, or downloaded into the data directory
    (which git ignores) when they have a public address.

What is checked
    Every file is checked for size and sha256 before it is used. A missing file, a file of the wrong
    size (a truncated download) or the wrong checksum raises :class:`DataError`, whose message names
    the dataset, the path looked at, and how to get the file. Downloads go through :mod:`pooch`,
    which writes to a temporary name and moves the file into place only when it is complete.

Corpora
    :func:`load_corpus` turns a registered corpus into a :class:`Corpus`: an ``int32`` array of token
    ids in which id ``r`` is the word of frequency rank ``r`` (0 is the most frequent; ties broken
    alphabetically). Restricting to the top-``V`` words is then just ``ids < V``. The ids, the
    words and their counts are cached under ``config.cache_dir()`` keyed by the corpus checksums, so a
    second load is a memory-map, not a re-tokenisation.

Tokenising
    A token is a maximal run of bytes other than the ten that ``str.split()`` treats as whitespace in
    ASCII (9-13, 28-32). :func:`load_corpus` streams each file's decompressed bytes in chunks of
    :data:`CHUNK_BYTES` (decompression in a background thread) through the compiled tokeniser of
    :mod:`qwem_lib.data.tokenizer` (:func:`tokenize_files`); the text is never held whole, so memory is the
    ids plus the distinct words plus one chunk. The result equals, byte for byte, the reference
    :func:`tokenize_ranked` (``str.split`` and a ``Counter``) on the ASCII-decoded text
    (``errors="replace"``), non-ASCII bytes included; the tests check this.

The path, one way (each module imports only those before it)
    :mod:`~qwem_lib.data.registry` (what exists) → :mod:`~qwem_lib.data.sources` (rebuilds from the public
    source) → :mod:`~qwem_lib.data.files` (acquire and verify) → :mod:`~qwem_lib.data.tokenizer`
    (compiled tokeniser) → :mod:`~qwem_lib.data.corpus` (tokenise and cache, :func:`load_corpus`);
    the cache's atomic writes and checked reads come from :mod:`~qwem_lib.book.cache`, below.
"""

from .corpus import *  # noqa: F401,F403
from .files import *  # noqa: F401,F403
from .registry import *  # noqa: F401,F403
from .tokenizer import *  # noqa: F401,F403
