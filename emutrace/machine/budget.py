"""--max-mem: what all the address spaces of a run may hold together, and the error when a
request does not fit (ENOMEM to the guest).
"""
from __future__ import annotations

class OutOfMemory(Exception):
    """The guest asked for more memory than --max-mem allows (ENOMEM)."""


class MemoryBudget:
    """What all the address spaces of a run may hold together: --max-mem, one bound for every
    process, as a machine's RAM and swap bound all of Linux's (its CommitLimit). Each address
    space keeps its own figures and puts the difference here whenever they change, so N
    processes cannot hold N times --max-mem. `used` counts each address space's committed
    bytes, its touched MAP_NORESERVE pages, and the host cost of the engine under it."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int):
        self.limit = limit
        self.used = 0

    def fits(self, size: int) -> bool:
        return self.used + size <= self.limit

    def refuse(self) -> OutOfMemory:
        return OutOfMemory(f"guest memory limit ({self.limit} bytes) reached")
