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
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from emutrace.machine.cpu import TCG_BUFFER, Machine
from emutrace.machine.memory import AddressSpace


class Engines:
    """The run's engines: made (new), given back by their processes (leave), closed (close_retired)."""

    def __init__(self, budget):
        self.budget = budget                     # the run's MemoryBudget (--max-mem)
        self.retired: List[AddressSpace] = []    # no process left on them; not closed yet
        self.made = 0                            # engines made in the run
        self.closed = 0                          # engines closed in the run

    def new(self, tcg_buffer: int = TCG_BUFFER) -> Tuple[Machine, AddressSpace]:
        """A fresh engine and an empty address space on it, adopted by one process and charged
        to the budget; OutOfMemory (ENOMEM for the guest) when the engine's cost does not fit."""
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
