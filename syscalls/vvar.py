"""The vDSO's data page ([vvar]): what the kernel keeps current for the guest code of the vDSO
(emutrace/loader/vdso.py, docs/time.md). One word: CLOCK_REALTIME - CLOCK_MONOTONIC in ns,
which changes only when the wall clock steps forward (World.shown). Monotonic time itself is
not kept here: the vDSO reads it with RDTSC, answered by the engine's instruction counter."""
from __future__ import annotations

import struct

VVAR_REAL = 0                 # offset of the wall-clock word in the page
VVAR_NAME = "[vvar]"


def wall_offset(world) -> int:
    """CLOCK_REALTIME - CLOCK_MONOTONIC: what the vDSO adds to RDTSC's monotonic time."""
    return world.realtime_ns() - world.monotonic_ns()


def write_vvar(proc) -> None:
    """proc's data page gets the World's wall-clock offset, if the page is still its [vvar] (a
    guest that unmapped it or mapped something there keeps what it has)."""
    at = proc.vvar
    if at is None or proc.machine is None or proc.aspace is None:
        return
    v = proc.aspace.find(at)
    if v is None or v.name != VVAR_NAME:
        return
    proc.machine.write(at + VVAR_REAL, struct.pack("<q", wall_offset(proc.kernel.world)))


def wall_clock_stepped(kernel) -> None:
    """The wall clock stepped (World.shown): every live process's data page follows."""
    kernel.vvar_step = kernel.world.realtime_step_ns
    for p in kernel.sched.procs:
        if p.exit is None:
            write_vvar(p)
