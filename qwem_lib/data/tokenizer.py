"""A compiled, streaming, byte-level tokeniser: bytes in chunks -> frequency-ranked ``int32`` token ids.

What a token is
    A maximal run of bytes that are not separators. The separators are the ten bytes that Python's
    ``str.split()`` treats as whitespace in ASCII text: ``\\t \\n \\v \\f \\r`` (9-13), the information
    separators ``0x1c-0x1f`` (28-31) and the space (32). So the tokens of a byte string are exactly
    ``text.split()`` of its ASCII decoding (``errors="replace"``): every other byte, including each byte
    ``>= 128`` (which that decoding turns into U+FFFD, not whitespace), belongs to a token.

How it runs
    :class:`StreamTokenizer` takes the bytes one chunk at a time (:meth:`~StreamTokenizer.feed`), never
    as one string. One compiled pass (numba, ``nogil``) scans each chunk: each token's bytes are hashed
    (64-bit FNV-1a with a murmur finaliser) and looked up in an open-addressing table; a hash hit is only a
    candidate, the bytes are compared before a token is counted as a known type. New types get the next
    id in order of first appearance; their bytes are appended to a growing byte pool. A token cut by the
    end of a chunk is carried into the next. :meth:`~StreamTokenizer.end_part` closes a part (a file of a
    multi-part corpus): a token never spans two parts, as with ``[t.split() for t in texts]``. Memory holds
    the ids (4 bytes a token), the types, and one chunk.

    :meth:`~StreamTokenizer.finish` works on the types only (O(types), not O(tokens)): it decodes each
    type's bytes as ASCII with ``errors="replace"``, ranks the types by (-count, word), ties broken
    alphabetically, and maps first-appearance ids to ranks with ``np.take``.

Exactness
    For any input, the result equals :func:`qwem_lib.data.tokenize_ranked` (the reference, a plain
    ``str.split`` + ``Counter``) on the ASCII-decoded text: same ids, words and counts. Bytes ``>= 128``
    need no fallback to the string path: two types whose bytes differ only in non-ASCII bytes decode to
    the same word (each such byte becomes one U+FFFD), and :meth:`finish` merges them, adding their
    counts, before ranking.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ._separators import SEPARATORS

__all__ = ["SEPARATORS", "StreamTokenizer", "tokenize_chunks"]


_FULL_MASK = (1 << 64) - 1


def _kernel():
    """The compiled scan (imported on first use; numba caches the machine code on disk)."""
    from . import _tokenizer_kernel

    return _tokenizer_kernel.scan


class StreamTokenizer:
    """Tokenise a stream of byte chunks into first-appearance type ids, then rank them by frequency.

    ``initial_types`` sizes the first hash table (it grows by doubling). ``hash_mask`` is for tests
    only: every hash is and-ed with it, so ``hash_mask=3`` makes all types share four hash values and
    only the byte comparison keeps them apart.
    """

    def __init__(self, *, initial_types: int = 1 << 15, hash_mask: int = _FULL_MASK) -> None:
        if not isinstance(initial_types, (int, np.integer)) or initial_types < 1:
            raise ValueError(f"initial_types must be a positive integer, got {initial_types!r}")
        if not isinstance(hash_mask, (int, np.integer)) or not 0 <= hash_mask <= _FULL_MASK:
            raise ValueError(f"hash_mask must be an integer in [0, 2**64), got {hash_mask!r}")
        cap = 1 << max(
            2, int(initial_types - 1).bit_length() + 1
        )  # a power of two, >= 2 * initial_types
        self._table = np.full(cap, -1, dtype=np.int32)
        self._thash = np.empty(int(initial_types), dtype=np.uint64)
        self._tstart = np.empty(int(initial_types), dtype=np.int64)
        self._tlen = np.empty(int(initial_types), dtype=np.int64)
        self._tcount = np.empty(int(initial_types), dtype=np.int64)
        self._pool = np.empty(8 * int(initial_types), dtype=np.uint8)
        self._carry = np.empty(64, dtype=np.uint8)
        self._n_types = 0
        self._pool_len = 0
        self._carry_len = 0
        self._mask = np.uint64(hash_mask)
        self._parts: list[np.ndarray] = []
        self._n_tokens = 0
        self._finished = False
        self._scan = _kernel()

    @property
    def n_tokens(self) -> int:
        """Tokens emitted so far (a token still carried at a chunk boundary is not yet counted)."""
        return self._n_tokens

    @property
    def n_types(self) -> int:
        """Distinct byte strings seen so far."""
        return self._n_types

    def _run(self, chunk, final: bool) -> None:
        if self._finished:
            raise RuntimeError("this StreamTokenizer is finished; make a new one")
        if isinstance(chunk, np.ndarray):
            buf = np.ascontiguousarray(chunk).reshape(-1)
        else:
            buf = np.frombuffer(chunk, dtype=np.uint8)
        if buf.flags.writeable:
            buf = buf.view()
            buf.flags.writeable = (
                False  # one compiled signature: the kernel always sees read-only bytes
            )
        # the most ids one call can write: a carried token, then one per two bytes ("a a a"), +1 spare
        out = np.empty(buf.size // 2 + 2, dtype=np.int32)
        (
            n_out,
            self._table,
            self._thash,
            self._tstart,
            self._tlen,
            self._tcount,
            self._pool,
            self._carry,
            self._n_types,
            self._pool_len,
            self._carry_len,
        ) = self._scan(
            buf,
            final,
            out,
            self._table,
            self._thash,
            self._tstart,
            self._tlen,
            self._tcount,
            self._pool,
            self._carry,
            self._n_types,
            self._pool_len,
            self._carry_len,
            self._mask,
        )
        if n_out > out.size:  # pragma: no cover - the bound above is exact; never trust it silently
            raise RuntimeError(
                f"tokeniser: {n_out} ids written into a buffer of {out.size} (memory is corrupt)"
            )
        if n_out:
            self._parts.append(out[:n_out].copy())
            self._n_tokens += int(n_out)

    def feed(self, chunk: bytes | bytearray | memoryview | np.ndarray) -> None:
        """Tokenise one more chunk of the current part (any length; tokens may straddle chunks)."""
        if isinstance(chunk, np.ndarray) and chunk.dtype != np.uint8:
            raise TypeError(f"chunk must be bytes or a uint8 array, got an array of {chunk.dtype}")
        if not isinstance(chunk, (bytes, bytearray, memoryview, np.ndarray)):
            raise TypeError(f"chunk must be bytes-like, got {type(chunk).__name__}")
        if len(chunk):
            self._run(chunk, False)

    def end_part(self) -> None:
        """End the current part: a token carried at its end is emitted, and the next chunk starts a new
        token (no token spans two parts)."""
        self._run(b"", True)

    def finish(self) -> tuple[np.ndarray, list[str], np.ndarray]:
        """End the last part and rank: ``(ids, words, counts)`` as :func:`qwem_lib.data.tokenize_ranked`
        returns them (``int32`` ranks, words most frequent first with ties alphabetical, ``int64``
        counts). With no tokens at all, ``ids`` is empty and ``words`` is ``[]``."""
        self.end_part()
        self._finished = True
        T = self._n_types
        starts, lens, cnt = self._tstart[:T], self._tlen[:T], self._tcount[:T]
        pool = self._pool[: self._pool_len].tobytes()
        text = pool.decode(
            "ascii", errors="replace"
        )  # one character per byte: offsets are unchanged
        words_fa = [text[s : s + n] for s, n in zip(starts.tolist(), lens.tolist())]
        if pool.isascii():
            group = None
            words, counts = words_fa, cnt
        else:  # distinct byte strings that decode to the same word are one word of the reference
            index: dict[str, int] = {}
            group = np.fromiter(
                (index.setdefault(w, len(index)) for w in words_fa), dtype=np.int64, count=T
            )
            words = list(index)
            counts = np.zeros(len(words), dtype=np.int64)
            np.add.at(counts, group, cnt)
        alpha = np.array(sorted(range(len(words)), key=words.__getitem__), dtype=np.int64)
        order = alpha[np.argsort(-counts[alpha], kind="stable")]  # by count, ties alphabetical
        rank = np.empty(len(words), dtype=np.int32)
        rank[order] = np.arange(len(words), dtype=np.int32)
        if group is not None:
            rank = rank[group]
        ids = np.empty(self._n_tokens, dtype=np.int32)
        pos = 0
        parts, self._parts = self._parts[::-1], []
        while (
            parts
        ):  # free each part as soon as it is mapped: memory stays near one copy of the ids
            part = parts.pop()
            np.take(
                rank, part, out=ids[pos : pos + part.size], mode="clip"
            )  # ids < n_types by construction;
            # "clip" writes straight into ``out`` (the default mode buffers a copy of it)
            pos += part.size
        ranked_words = [words[k] for k in order.tolist()]
        return ids, ranked_words, counts[order].astype(np.int64)


def tokenize_chunks(
    parts: Iterable[Iterable[bytes]], **kwargs
) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Tokenise and rank several parts, each given as an iterable of byte chunks (see
    :class:`StreamTokenizer`; ``kwargs`` go to it). Equal to ``tokenize_ranked([part.decode("ascii",
    "replace") for part in parts])``, except that no tokens gives empty results rather than an error."""
    tok = StreamTokenizer(**kwargs)
    for part in parts:
        for chunk in part:
            tok.feed(chunk)
        tok.end_part()
    return tok.finish()
