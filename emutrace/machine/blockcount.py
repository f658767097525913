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


class PySliceBudget:
    """The scheduler's slice budget in Python (a UC_HOOK_BLOCK callback, on_block): the reference
    for the compiled SliceBudget (emutrace/machine/_cover.c), which stops at the same blocks.

    left < 0: no budget (the hook does nothing). left = N: the next N block entries run and the
    one after calls stop() at its start, before the block runs (Unicorn calls block hooks before
    a block's exit check), so the thread resumes at that block in its next slice. Setting left
    clears ran_out, which says the last stop was this budget's."""

    def __init__(self, stop: Callable[[], None]):
        self.stop = stop
        self.left = -1
        self.handle = None

    @property
    def left(self) -> int:
        return self._left

    @left.setter
    def left(self, n: int) -> None:
        self._left = n if n >= 0 else -1
        self.ran_out = False

    def on_block(self, address: int, size: int) -> None:
        left = self._left
        if left < 0:
            return
        if left == 0:
            self._left = -1
            self.ran_out = True
            self.stop()
            return
        self._left = left - 1
