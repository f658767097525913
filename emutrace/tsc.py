"""RDTSC and RDTSCP answered from the virtual clock.

Unicorn cannot hook these instructions and answers them from the host's counter, which would
make any program that reads the TSC nondeterministic. So every place in a module's executable
segments whose bytes spell `rdtsc` (0f 31) or `rdtscp` (0f 01 f9) gets an exact-address hook.
A hook at a place that is not the start of an instruction never fires (execution never starts
an instruction there), so false matches cost nothing at run time; one that fires is an RDTSC,
answered with the virtual clock at 1 GHz (one tick per virtual nanosecond) and skipped.
Code generated at run time (JITs) is not scanned.
"""
from __future__ import annotations

from unicorn import UC_HOOK_CODE

from loader.elf import PF_X

RDTSC, RDTSCP = b"\x0f\x31", b"\x0f\x01\xf9"


def _find_all(data: bytes, needle: bytes):
    i = data.find(needle)
    while i >= 0:
        yield i
        i = data.find(needle, i + 1)


class TscObserver:
    def __init__(self, world):
        self.world = world

    def started(self, proc) -> None:
        for m in list(proc.modules):
            self.module_loaded(proc, m)

    def module_loaded(self, proc, module) -> None:
        done = getattr(proc, "_tsc_done", None)
        if done is None or done[0] is not proc.machine:
            done = proc._tsc_done = (proc.machine, set())
        if module.path in done[1]:
            return
        done[1].add(module.path)
        elf = module.elf
        uc = proc.machine.uc
        for seg in elf.loads:
            if not seg.flags & PF_X:
                continue
            data = elf.data[seg.offset:seg.offset + seg.filesz]
            for needle, size in ((RDTSC, 2), (RDTSCP, 3)):
                for off in _find_all(data, needle):
                    addr = module.base + seg.vaddr + off
                    uc.hook_add(UC_HOOK_CODE, self._answer, (proc, size), addr, addr)

    def _answer(self, uc, addr, size, user):
        proc, length = user
        m = proc.machine
        if m.read(addr, length) != (RDTSC if length == 2 else RDTSCP):
            return                                      # the code changed since it was scanned
        tsc = self.world.monotonic_ns()
        m.set_reg("rax", tsc & 0xFFFFFFFF)
        m.set_reg("rdx", (tsc >> 32) & 0xFFFFFFFF)
        if length == 3:
            m.set_reg("rcx", 0)                         # IA32_TSC_AUX: CPU 0
        m.set_reg("rip", addr + length)
