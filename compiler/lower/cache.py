"""The slot policy of a tiled loop: which tile sits in which buffer slot, and which accesses
load. Shared by the tile choosers (to count DRAM traffic) and the backends (to place tiles)."""

from __future__ import annotations


class SlotCache:
    """`nslots` equal slots; a tile already in a slot is reused, otherwise it replaces the
    oldest-loaded tile (round robin). With every distinct key fitting, each loads once."""

    def __init__(self, nslots: int):
        if nslots < 1:
            raise ValueError(f"a slot cache needs at least 1 slot, got {nslots}")
        self.nslots = nslots
        self.keys: list = [None] * nslots
        self.next = 0
        self.loads = 0

    def get(self, key) -> tuple:
        """(slot index, True if the tile must be loaded into it)."""
        if key in self.keys:
            return self.keys.index(key), False
        slot = self.next
        self.keys[slot] = key
        self.next = (self.next + 1) % self.nslots
        self.loads += 1
        return slot, True
