"""Counting the basic blocks an engine executes (--coverage), in Python: the reference for the
compiled BlockCounter (emutrace/machine/_cover.c), and the path that runs without it.

Both have one interface: first(address, size) at a block's first execution on the engine, and
drain() -> [(address, executions)] for the executions since the last drain (counts zeroed,
addresses kept, so first is called once per block and engine). Machine.count_blocks picks one.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Tuple


class PyBlockCounter:
    """A Python UC_HOOK_BLOCK callback (on_block) over one dict: address → executions."""

    lost = 0                    # (the dict grows as long as Python has memory)

    def __init__(self, first: Callable[[int, int], None]):
        self.first = first
        self.counts: Dict[int, int] = {}
        self.handle = None

    def on_block(self, address: int, size: int) -> None:
        counts = self.counts
        n = counts.get(address)
        if n is None:
            counts[address] = 1
            self.first(address, size)
        else:
            counts[address] = n + 1

    @property
    def blocks(self) -> int:
        return len(self.counts)

    def drain(self) -> List[Tuple[int, int]]:
        counts = self.counts
        out = [(a, n) for a, n in counts.items() if n]
        for a, _n in out:
            counts[a] = 0
        return out

