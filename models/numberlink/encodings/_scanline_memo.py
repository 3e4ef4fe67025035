"""The failed-state store of ``scanline-numba``: an exact hash set of frontier keys.

No Encoding subclass lives here (the registry's scan finds nothing in it).

A key is a row of ``int16`` values (the scan position, then one code per frontier
cell, zero-padded to a fixed width). ``slots`` is an open-addressing table (linear
probing) of entry numbers + 1 (0 = empty), ``keys`` holds the entries. A lookup
compares whole keys, never only hashes, so a hit is a state that truly failed before
(a collision costs a probe, never a wrong cut). The store starts small (most boards
store few states, and a big table costs its allocation and page faults on every run)
and grows fourfold when full, at a point of the search fixed by the search alone (so
the counters repeat); at ``capacity_limit`` it stops growing: it is only a cache of
nogoods, so that costs speed, never completeness.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from models.numberlink.encodings._scanline_rules import _bits

FULL = -32000  # key code: an undecided cell that takes no more edges
#: entries kept at most, and the memory they may take (int16 keys); slots are twice that
MAX_ENTRIES = 1 << 20
MAX_BYTES = 160 << 20
FIRST_ENTRIES = 1 << 12


def capacity_limit(key_width: int) -> int:
    return max(FIRST_ENTRIES, min(MAX_ENTRIES, MAX_BYTES // (2 * key_width)))


def allocate(key_width: int, enabled: bool, entries: int = FIRST_ENTRIES):
    """(slots, keys) for ``entries`` keys of ``key_width`` values; tiny when off."""
    if not enabled:
        return np.zeros(2, dtype=np.int32), np.zeros((1, key_width), dtype=np.int16)
    return np.zeros(2 * entries, dtype=np.int32), np.zeros((entries, key_width), dtype=np.int16)


def grow(slots: np.ndarray, keys: np.ndarray, stored: int, limit: int):
    """A store four times bigger (at most ``limit`` entries) holding the same keys."""
    new_slots, new_keys = allocate(keys.shape[1], True, min(limit, 4 * keys.shape[0]))
    _rehash(new_slots, new_keys, keys, stored)
    return new_slots, new_keys


@njit(cache=True)
def _rehash(slots, keys, old, stored):
    for e in range(stored):
        memo_add(slots, keys, old[e], e)


@njit(cache=True)
def _slot_of(slots, kbuf):
    h = np.uint64(14695981039346656037)
    prime = np.uint64(1099511628211)
    for t in range(kbuf.shape[0]):
        h ^= np.uint64(np.int64(kbuf[t]) & 0xFFFF)
        h *= prime
    return np.int64(h & np.uint64(slots.shape[0] - 1))


@njit(cache=True)
def _same(keys, e, kbuf):
    t = 0
    while t < kbuf.shape[0] and keys[e, t] == kbuf[t]:
        t += 1
    return t == kbuf.shape[0]


@njit(cache=True)
def memo_has(slots, keys, kbuf):
    """Is the key in ``kbuf`` stored?"""
    mask = slots.shape[0] - 1
    h = _slot_of(slots, kbuf)
    while slots[h] != 0:
        if _same(keys, slots[h] - 1, kbuf):
            return True
        h = (h + 1) & mask
    return False


@njit(cache=True)
def memo_add(slots, keys, kbuf, stored):
    """Store the key (not already there); returns the new count (unchanged when full)."""
    if stored >= keys.shape[0]:
        return stored
    mask = slots.shape[0] - 1
    h = _slot_of(slots, kbuf)
    while slots[h] != 0:
        h = (h + 1) & mask
    for t in range(kbuf.shape[0]):
        keys[stored, t] = kbuf[t]
    slots[h] = stored + 1
    return stored + 1


@njit(cache=True)
def frontier_key(i, order, place, colour, con, end, fw, kbuf):
    """The key of the state at scan position ``i`` (``_scanline.py``, ``failed states``):
    the position, then a code per frontier cell: 0 no edge in, FULL nothing more to add,
    k an end of pair k beyond its piece, -1 - t a piece whose far end is frontier cell t."""
    kbuf[0] = i
    f = fw[i]
    for t in range(f):
        x = order[i + t]
        c = con[x]
        code = 0
        if c != 0:
            if colour[x] > 0 or _bits(c) >= 2:
                code = FULL
            else:
                p = end[x]
                code = colour[p] if colour[p] > 0 else -1 - min(t, place[p] - i)
        kbuf[1 + t] = code
    for t in range(f + 1, kbuf.shape[0]):
        kbuf[t] = 0
