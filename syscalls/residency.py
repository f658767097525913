"""mincore: which pages of a range are resident.

Every page of a guest mapping lives in host memory that emutrace holds for it (there is no
swap, and a file mapping is read in when mapped), so each mapped page reads as resident (1),
the same in every run. A range with an unmapped page is ENOMEM, an unaligned start EINVAL,
as on Linux.
"""
from __future__ import annotations

from emutrace.kernel import errno as E

PAGE = 4096
TASK_SIZE = 0x7FFFFFFFF000


def sys_mincore(proc, addr, length, vec, *_):
    if addr & (PAGE - 1):
        return -E.EINVAL
    if addr + length > TASK_SIZE or addr + length < addr:
        return -E.ENOMEM
    pages = (length + PAGE - 1) // PAGE
    if not pages:
        return 0
    end = addr + pages * PAGE
    cur = addr
    while cur < end:                          # every page must be mapped
        v = proc.aspace.find(cur)
        if v is None:
            return -E.ENOMEM
        cur = v.end
    proc.aspace.write(vec, b"\x01" * pages)
    return 0
