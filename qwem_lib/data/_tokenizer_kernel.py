"""The compiled scan of :mod:`qwem_lib.data.tokenizer` (numba). Imported on first use only: importing numba
costs a fraction of a second, which most users of :mod:`qwem_lib.data` never need to pay.

State of a scan, carried from call to call (arrays may be reallocated by a call and are returned):

* ``table``: open-addressing hash table (linear probing), ``int32`` type ids, ``-1`` = empty slot; its
  size is a power of two and it is doubled (every type re-inserted) when more than half full;
* per type ``t < n_types``: ``thash[t]`` (64-bit hash of its bytes), ``tstart[t]``/``tlen[t]`` (its bytes
  are ``pool[tstart[t]: tstart[t] + tlen[t]]``), ``tcount[t]`` (occurrences so far);
* ``pool``: the bytes of every type, appended in first-appearance order;
* ``carry[:carry_len]``: the bytes of a token cut by the end of the previous chunk.
"""

from __future__ import annotations

import numba
import numpy as np

from ._separators import SEPARATORS

FNV_OFFSET = np.uint64(0xCBF29CE484222325)
FNV_PRIME = np.uint64(0x100000001B3)
_M1 = np.uint64(0xFF51AFD7ED558CCD)
_M2 = np.uint64(0xC4CEB9FE1A85EC53)
_S33 = np.uint64(33)

IS_SEP = np.zeros(256, dtype=np.bool_)
IS_SEP[list(SEPARATORS)] = True
"""``IS_SEP[b]``: byte ``b`` ends a token (:data:`qwem_lib.data.tokenizer.SEPARATORS`)."""


@numba.njit(cache=True, nogil=True)
def _finish_hash(h, mask):  # pragma: no cover - compiled
    # murmur3's 64-bit finaliser: spreads FNV-1a's weak low bits over the whole word before masking
    h ^= h >> _S33
    h *= _M1
    h ^= h >> _S33
    h *= _M2
    h ^= h >> _S33
    return h & mask


@numba.njit(cache=True, nogil=True)
def _grow(a, need):  # pragma: no cover - compiled
    n = max(a.size, 1)
    while n < need:
        n *= 2
    b = np.empty(n, dtype=a.dtype)
    b[: a.size] = a
    return b


@numba.njit(cache=True, nogil=True)
def _find(src, s, e, h, table, thash, tstart, tlen, pool):  # pragma: no cover - compiled
    """The table slot of the token ``src[s:e]`` (hash ``h``): the slot holding its type, or the empty
    slot where it belongs when it is new. Scalars only in and out of the hot path."""
    L = e - s
    capm = table.size - 1
    slot = np.int64(h & np.uint64(capm))
    while True:
        t = table[slot]
        if t < 0:
            return slot
        if thash[t] == h and tlen[t] == L:
            p = tstart[t]
            same = True
            for k in range(L):  # a hash hit is only a candidate: the bytes decide
                if pool[p + k] != src[s + k]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & capm


@numba.njit(cache=True, nogil=True)
def _insert(
    src, s, e, h, slot, table, thash, tstart, tlen, tcount, pool, n_types, pool_len
):  # pragma: no cover
    """Add the new type ``src[s:e]`` at the empty ``slot``: the next id in first-appearance order."""
    L = e - s
    t = n_types
    if t >= thash.size:
        thash = _grow(thash, t + 1)
        tstart = _grow(tstart, t + 1)
        tlen = _grow(tlen, t + 1)
        tcount = _grow(tcount, t + 1)
    if pool_len + L > pool.size:
        pool = _grow(pool, pool_len + L)
    pool[pool_len : pool_len + L] = src[s:e]
    thash[t] = h
    tstart[t] = pool_len
    tlen[t] = L
    tcount[t] = 1
    table[slot] = t
    n_types += 1
    pool_len += L
    if 2 * n_types > table.size:  # load above one half: double and re-insert every type
        table = np.full(2 * table.size, -1, dtype=np.int32)
        capm = table.size - 1
        for u in range(n_types):
            j = np.int64(thash[u] & np.uint64(capm))
            while table[j] >= 0:
                j = (j + 1) & capm
            table[j] = u
    return t, table, thash, tstart, tlen, tcount, pool, n_types, pool_len


@numba.njit(cache=True, nogil=True)
def scan(
    buf,
    final,
    out,
    table,
    thash,
    tstart,
    tlen,
    tcount,
    pool,
    carry,
    n_types,
    pool_len,
    carry_len,
    mask,
):  # pragma: no cover - compiled
    """Tokenise ``buf`` (uint8) into ``out`` (int32, first-appearance ids). A token touching the end of
    ``buf`` is kept in ``carry`` unless ``final`` (the end of a part: the carried token is emitted).
    Returns the number of ids written and the new state."""
    n = buf.size
    n_out = 0
    i = 0
    if carry_len > 0:
        while i < n and not IS_SEP[buf[i]]:
            i += 1
        if carry_len + i > carry.size:
            carry = _grow(carry, carry_len + i)
        carry[carry_len : carry_len + i] = buf[:i]
        carry_len += i
        if i < n or final:
            h = FNV_OFFSET
            for k in range(carry_len):
                h = (h ^ np.uint64(carry[k])) * FNV_PRIME
            h = _finish_hash(h, mask)
            slot = _find(carry, 0, carry_len, h, table, thash, tstart, tlen, pool)
            t = table[slot]
            if t >= 0:
                tcount[t] += 1
            else:
                t, table, thash, tstart, tlen, tcount, pool, n_types, pool_len = _insert(
                    carry,
                    0,
                    carry_len,
                    h,
                    slot,
                    table,
                    thash,
                    tstart,
                    tlen,
                    tcount,
                    pool,
                    n_types,
                    pool_len,
                )
            out[n_out] = t
            n_out += 1
            carry_len = 0
    while True:
        while i < n and IS_SEP[buf[i]]:
            i += 1
        if i >= n:
            break
        s = i
        h = FNV_OFFSET
        while i < n:
            b = buf[i]
            if IS_SEP[b]:
                break
            h = (h ^ np.uint64(b)) * FNV_PRIME
            i += 1
        if i >= n and not final:  # cut by the chunk boundary: carried into the next chunk
            if n - s > carry.size:
                carry = _grow(carry, n - s)
            carry[: n - s] = buf[s:]
            carry_len = n - s
            break
        h = _finish_hash(h, mask)
        slot = _find(buf, s, i, h, table, thash, tstart, tlen, pool)
        t = table[slot]
        if t >= 0:
            tcount[t] += 1
        else:
            t, table, thash, tstart, tlen, tcount, pool, n_types, pool_len = _insert(
                buf, s, i, h, slot, table, thash, tstart, tlen, tcount, pool, n_types, pool_len
            )
        out[n_out] = t
        n_out += 1
    return n_out, table, thash, tstart, tlen, tcount, pool, carry, n_types, pool_len, carry_len
