"""Positions: a count of the guest instructions the run has executed, which names one moment of
a deterministic run exactly (design decision 12), and a stop at a chosen count.

The count is global to the run: only one engine runs at a time, so every engine of the run adds
to one counter. A position p means "before the instruction that finds the count at p": the first
instruction of the run is at position 0. Stepping from position p stops at p + 1; reaching p
again in a replay of the run gives the same thread, registers and memory.

This module is the one interface the rest of the debugger uses (count, stop_at, interrupt, and
inside hooks before, fire_due), so
that the mechanism can change: the positions come from the clock's one execution counter
(emutrace/machine/_insncount.c's Positions; workcount.PyPositions on the pure path), through
Machine.watch_positions.
"""
from __future__ import annotations

from typing import Callable

from emutrace.machine.native import native
from emutrace.machine.workcount import new_positions

NEVER = (1 << 64) - 1


class Counter:
    """The run's instruction counter; `due(address)` runs when a stop it was asked for is due."""

    def __init__(self, due: Callable[[int], None]):
        self.native = getattr(native, "Positions", None) is not None
        self.impl = new_positions(due, self.native)

    def attach(self, machine) -> None:
        """Count the instructions of one more engine (before it runs any: a fresh engine)."""
        machine.watch_positions(self.impl)

    @property
    def count(self) -> int:
        return self.impl.count

    def stop_at(self, position: int) -> None:
        self.impl.stop_at = position

    def stop_soon(self, machine, position: int) -> None:
        """Stop at position, or at the first block entered past it (from a memory hook: the
        instruction under way is not entered again, as stop_at's fine mode would)."""
        self.impl.stop_soon(machine.counter, position)

    def cancel(self) -> None:
        self.impl.stop_at = NEVER

    def interrupt(self) -> None:
        """Run `due` before the next instruction (gdb's Ctrl-C)."""
        self.impl.interrupt = True

    # -- inside a breakpoint's or a watchpoint's hook (the instruction at rip has not retired) --
    def before(self, machine, rip: int) -> int:
        """The position before the instruction at rip."""
        if self.native:
            return self.impl.before(machine.counter, rip)
        return self.impl.count          # (from rip, which is the hook's instruction)

    def fire_due(self, machine, rip: int) -> bool:
        """A stop due at the instruction at rip runs now, before the hook that asks: where a
        stop falls inside a block the compiled counter's per-instruction hook comes after the
        breakpoints' (the pure path's came first, and so does a stop at a block's start)."""
        return self.native and self.impl.fire_due(machine.counter, rip)

    def every_insn(self, proc, on: bool) -> None:
        """Check positions at every instruction of proc's engine (while it has watchpoints)."""
        if proc.machine.count_every_insn(self.impl, on):
            proc.aspace.drop_code()         # (translated again, with or without the hook)
