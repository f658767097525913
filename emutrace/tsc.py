"""RDTSC and RDTSCP answered from the virtual clock.

Left alone, Unicorn answers these from the host's counter, which would make any program that
reads the TSC nondeterministic. Each engine gets one instruction hook per instruction (Unicorn
≥ 2.1 can hook RDTSC and RDTSCP), so code generated at run time is answered too. The answer is
the virtual clock's monotonic time at 1 GHz (one tick per virtual nanosecond: the work-driven
clock, docs/time.md), and RDTSCP's IA32_TSC_AUX is 0 (CPU 0). With the compiled event path and
nobody listening, the engine's instruction counter answers in C (no Python per read: the vDSO
reads its clock so); the behaviour report's listeners take the Python hook, and hear of the
program's reads apart from the vDSO's (its vdso_listeners hear those: each is a clock read that
no longer makes a system call).
"""
from __future__ import annotations

from weakref import WeakSet

from unicorn import x86_const as X

VDSO_SPAN = 3 * 4096            # [vvar] and [vdso] (emutrace/loader/vdso.py)


class TscObserver:
    def __init__(self, world, kernel=None):
        self.world = world
        self.kernel = kernel
        self.listeners = []         # fn(proc, rip) per read: the behaviour report's timing checks
        self.vdso_listeners = []    # fn(proc, rip) per read of the vDSO's: a clock_gettime, gettimeofday
                                    # or time served with no system call (the report's sleep check)
        self._hooked: "WeakSet" = WeakSet()    # the engines hooked (weak: freed with their process)

    def attach(self, proc) -> None:
        """A new engine (the first program, an exec, a forked copy): hook its RDTSC/RDTSCP."""
        m = proc.machine
        if m in self._hooked:
            return
        self._hooked.add(m)
        if not self.listeners and not self.vdso_listeners and m.answer_tsc_natively():
            return
        m.hook_insn_answer(X.UC_X86_INS_RDTSC, lambda: self._answer(m, False))
        m.hook_insn_answer(X.UC_X86_INS_RDTSCP, lambda: self._answer(m, True))

    def _answer(self, m, rdtscp: bool) -> None:
        if (self.listeners or self.vdso_listeners) and self.kernel is not None and self.kernel.current is not None:
            proc = self.kernel.current
            rip = m.reg("rip")
            vvar = proc.vvar
            in_vdso = vvar is not None and vvar <= rip < vvar + VDSO_SPAN
            for fn in (self.vdso_listeners if in_vdso else self.listeners):
                fn(proc, rip)
        tsc = self.world.monotonic_ns()
        m.set_reg("rax", tsc & 0xFFFFFFFF)
        m.set_reg("rdx", (tsc >> 32) & 0xFFFFFFFF)
        if rdtscp:
            m.set_reg("rcx", 0)
