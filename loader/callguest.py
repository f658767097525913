"""Running a guest function to completion from emutrace (IFUNC resolvers, initialisers).

The function returns to an address on emutrace's own service page, where emu_start stops; the
caller's registers are saved and restored around the call.
"""
from __future__ import annotations

import struct
from typing import List

from emutrace.machine.pages import PAGE

ARG_REGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
SERVICE_NAME = "[emutrace]"


def service_page(proc) -> int:
    """The address of emutrace's page in the guest (mapped on first use, r-x, filled with hlt)."""
    page = proc.service_page
    if page is None:
        page = proc.aspace.find_free(PAGE)
        proc.aspace.map(page, PAGE, 5, SERVICE_NAME)
        proc.machine.write(page, b"\xf4" * PAGE)
        proc.service_page = page
    return page


def call_guest(proc, fn: int, args: List[int]) -> int:
    m = proc.machine
    saved = m.save_gprs()
    stop = service_page(proc)
    rsp = ((saved["rsp"] - 512) & ~15) - 8
    m.write(rsp, struct.pack("<Q", stop))
    for reg, val in zip(ARG_REGS, args):
        m.set_reg(reg, val)
    m.set_reg("rsp", rsp)
    m.emu_start(fn, stop)
    ret = m.reg("rax")
    fs = m.reg("fs_base")
    m.load_gprs(saved)
    m.set_reg("fs_base", fs)
    return ret
