"""Pages and the fixed address layout of a guest process (no ASLR: what Linux picks with
randomisation off).
"""
from __future__ import annotations

PAGE = 0x1000

# Fixed addresses (no ASLR): what Linux picks with randomisation off.
PIE_BASE = 0x555555554000
MMAP_TOP = 0x7FFFF7FFF000
STACK_TOP = 0x7FFFFFFFF000
STACK_SIZE = 8 << 20
LOW_LIMIT = 0x10000          # vm.mmap_min_addr
ADDRESS_TOP = 1 << 47        # the end of a 4-level-paging user address space
def page_up(x: int) -> int:
    return (x + PAGE - 1) & ~(PAGE - 1)


def page_down(x: int) -> int:
    return x & ~(PAGE - 1)
