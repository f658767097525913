"""The life of the run's engines: each process's Unicorn engine and the address space on it,
made charged to --max-mem, retired when the last process on it exits or execs, and closed
(uc_close, host buffers unmapped) at the next point where no engine runs.

Why closing waits: a process leaves its engine inside one of that engine's own hooks (the
exit_group or execve system call), and freeing an engine while its emu_start is on the host
stack would pull the translation buffer from under it. So leave() only queues; the session's
run loop calls close_retired() between slices. Why closing is explicit: an engine's hooks hold
Python callbacks that hold the engine (reference cycles), some through compiled objects the
collector cannot traverse, and the collector is paused during start-up (emutrace/gcpause.py):
left to the collector, every fork or exec kept ~5.5 MB to the end of the run (docs/processes.md).

Charging: an engine's host cost (its translation buffer and its fixed part, Machine.host_cost)
is charged to the run's MemoryBudget with its address space from the moment it is made to the
moment its last process leaves, so N live processes cannot hold more than --max-mem between them.

Reuse: a retired exec engine is not closed but pooled (at most POOL_MAX, each charged to the
budget as a live engine is), renewed and given to the next exec with its translations where they
still hold (emutrace/machine/reuse.py): most of a short process's host time is translating ld.so's
and libc's code again. It is off unless EMUTRACE_ENGINE_POOL=1: a known defect
(docs/processes.md, tests/test_engine_pool.py's xfail) lets a page that was code, then data, then
code again in three programs keep the first program's translation.
"""
from __future__ import annotations

import os
from typing import List, Optional, Tuple

from emutrace.machine import hostmem, reuse
from emutrace.machine.cpu import ENGINE_BASE_COST, FORK_TCG_BUFFER, TCG_BUFFER, Machine
from emutrace.machine.memory import SLAB, AddressSpace

# Retired engines kept for reuse: an exec's (32 MiB translation buffer) by the next exec, a fork
# child's (8 MiB) by the next fork. Three: a shell loop alternates between few programs and
# subshells, and each pooled engine holds its translation buffer (charged: Machine.host_cost).
POOL_MAX = 3


def pooling_wanted() -> bool:
    """EMUTRACE_ENGINE_POOL=1: reuse (off by default until the known defect above is fixed)."""
    return os.environ.get("EMUTRACE_ENGINE_POOL", "0") == "1"


class Engines:
    """The run's engines: made (new), given back by their processes (leave), closed (close_retired)."""

    def __init__(self, budget):
        self.budget = budget                     # the run's MemoryBudget (--max-mem)
        self.retired: List[AddressSpace] = []    # no process left on them; not closed yet
        self.made = 0                            # engines made in the run
        self.closed = 0                          # engines closed in the run
        self.pool: List[reuse.Retired] = []      # retired engines kept for the next exec
        self.pooling = pooling_wanted()          # (off: EMUTRACE_ENGINE_POOL=0, or a debugger)
        self.reused = 0                          # execs that got a pooled engine

    def new(self, tcg_buffer: int = TCG_BUFFER) -> Tuple[Machine, AddressSpace]:
        """A fresh engine and an empty address space on it, adopted by one process and charged
        to the budget; OutOfMemory (ENOMEM for the guest) when the engine's cost does not fit.
        An exec's engine comes from the pool when one is there."""
        cost = ENGINE_BASE_COST + tcg_buffer
        for k in range(len(self.pool) - 1, -1, -1):
            if self.pool[k].host_cost == cost:
                return self._reuse(self.pool.pop(k))
        while self.pool and not self.budget.fits(ENGINE_BASE_COST + tcg_buffer):
            self._close_pooled(self.pool.pop(0))     # (pooled engines give way to live ones)
        machine = Machine(tcg_buffer)
        try:
            aspace = AddressSpace(machine.uc, self.budget, machine.host_cost)
        except BaseException:
            machine.close()
            raise
        aspace.use_machine(machine)
        aspace.adopt()
        self.made += 1
        return machine, aspace

    def _reuse(self, retired: "reuse.Retired") -> Tuple[Machine, AddressSpace]:
        machine = retired.machine
        self.budget.used -= retired.host_cost        # (charged again with the address space)
        try:
            aspace = AddressSpace(machine.uc, self.budget, machine.host_cost)
        except BaseException:
            self.budget.used += retired.host_cost
            self._close_pooled(retired)
            raise
        reuse.adopt(aspace, retired, SLAB)
        aspace.use_machine(machine)
        aspace.adopt()
        self.reused += 1
        return machine, aspace

    def _to_pool(self, aspace: AddressSpace) -> bool:
        """Keep a retired exec engine for reuse (between slices); False: close it instead."""
        machine = aspace.machine
        if (not self.pooling or machine is None or aspace.closed
                or machine.host_cost not in (ENGINE_BASE_COST + TCG_BUFFER, ENGINE_BASE_COST + FORK_TCG_BUFFER)):
            return False
        if len(self.pool) >= POOL_MAX:
            self._close_pooled(self.pool.pop(0))
        if not self.budget.fits(machine.host_cost):
            return False
        retired = reuse.retire(aspace)
        self.budget.used += retired.host_cost
        self.pool.append(retired)
        return True

    def _close_pooled(self, retired: "reuse.Retired") -> None:
        self.budget.used -= retired.host_cost
        retired.machine.close()
        for buf in {id(b.buf): b.buf for b in retired.backs}.values():
            hostmem.unreserve(buf.size)
            buf.close()
        retired.backs = []
        self.closed += 1

    def close_pool(self) -> None:
        """The run is over: the pooled engines are closed (no engine runs)."""
        while self.pool:
            self._close_pooled(self.pool.pop())

    def leave(self, aspace: Optional[AddressSpace]) -> None:
        """A process no longer runs on aspace (it ended or exec'd): with the last one, its charge
        goes back to the budget at once and its engine is closed at the next close_retired()."""
        if aspace is None or aspace.closed:
            return
        aspace.leave()
        if aspace.users <= 0 and aspace not in self.retired:
            self.retired.append(aspace)

    def discard(self, aspace: AddressSpace) -> None:
        """An engine that never ran (a fork that failed half-way): closed now."""
        self.leave(aspace)
        if aspace in self.retired:
            self.retired.remove(aspace)
        self._close(aspace)

    def close_retired(self, keep: Optional[AddressSpace] = None) -> None:
        """Close every retired engine but `keep` (the first process's, which the caller may read
        after the run). Only where no engine's emu_start is running (between slices)."""
        if not self.retired:
            return
        kept = []
        for aspace in self.retired:
            if aspace is keep or aspace.users > 0:   # (kept; or a vfork parent came back to it)
                if aspace.users <= 0:
                    kept.append(aspace)
                continue
            if not self._to_pool(aspace):
                self._close(aspace)
        self.retired = kept

    def _close(self, aspace: AddressSpace) -> None:
        if not aspace.closed:
            aspace.close()
            self.closed += 1

    @property
    def live(self) -> int:
        """Engines made and not closed."""
        return self.made - self.closed
