"""The records of an address space: a mapping (Vma: range, permissions, what it shows) and a
Backing (the host memory Unicorn maps a range onto).
"""
from __future__ import annotations

from typing import Optional, Tuple
from emutrace.machine.hostmem import HostBuffer
from emutrace.record import record
from emutrace.machine.shm import SharedMemory


@record
class Vma:
    start: int
    end: int
    prot: int
    name: str = ""
    offset: int = 0
    shm: Optional[SharedMemory] = None      # MAP_SHARED: the memory it shows ...
    shm_off: int = 0                        # ... from this offset of it
    noreserve: bool = False                 # MAP_NORESERVE: charged by the pages it touches
    account: bool = False                   # its size counts as committed (Linux's VM_ACCOUNT)

    def split(self, at: int) -> Tuple["Vma", "Vma"]:
        left = Vma(self.start, at, self.prot, self.name, self.offset, self.shm, self.shm_off,
                   self.noreserve, self.account)
        right = Vma(at, self.end, self.prot, self.name, self.offset + (at - self.start) if self.name else 0,
                    self.shm, self.shm_off + (at - self.start) if self.shm is not None else 0,
                    self.noreserve, self.account)
        return left, right

    def piece(self, lo: int, hi: int) -> "Vma":
        """The part [lo, hi) of this mapping, as a mapping of its own (always a new record)."""
        d = lo - self.start
        return Vma(lo, hi, self.prot, self.name, self.offset + d if self.name else 0, self.shm,
                   self.shm_off + d if self.shm is not None else 0, self.noreserve, self.account)

    def joins(self, right: "Vma") -> bool:
        """Linux would merge this mapping with `right`, which starts where it ends."""
        return (self.end == right.start and self.prot == right.prot and self.name == right.name
                and self.shm is None and right.shm is None and self.noreserve == right.noreserve
                and self.account == right.account
                and (not self.name or self.offset + (self.end - self.start) == right.offset))


@record(eq=False)
class Backing:
    """A range of guest addresses Unicorn maps onto host memory (uc_mem_map_ptr): [start, end)
    shows buf from buf_off. Unicorn sees every permission on it; the guest's come from the VMAs
    (emutrace/tlb.py). It outlives the mappings in it: unmapping a range inside returns its
    pages to the host and leaves Unicorn as it is, because Unicorn's own unmap and split walk
    every page of the whole region (its TLB flush), which costs seconds for large ones."""
    start: int
    end: int
    buf: HostBuffer
    buf_off: int = 0

    def host(self, addr: int) -> int:
        return self.buf.address + self.buf_off + (addr - self.start)
