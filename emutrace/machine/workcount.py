"""Retired guest instructions, per engine: the work that drives the virtual clock (docs/time.md).

Every Machine has one counter from its first instruction (Machine.counter): the compiled
InsnCounter (emutrace/machine/_insncount.c), or PyInsnCounter below, its reference, on the pure
path. Both have one interface:

    total            instructions counted so far (the block last entered counted in full)
    exact(rip)       the instructions retired if emulation stopped at rip (changes nothing)
    settle(rip)      exact(rip), made the count: call once emulation has stopped at rip and
                     before anything moves rip (Machine.emu_start does it)
    stop_at          stop before entering the block that would take total past it (< 0: off);
                     ran_out says the last stop was this one (setting stop_at clears it)
    overshoot        with it set, stop_at stops at the first stop check (every CHECK_PERIOD-th
                     block entered) once total >= stop_at (a run always makes progress: the
                     scheduler's slices)
    skip(lo, hi)     blocks in [lo, hi) are not counted (emutrace's own guest code)
    watch(positions) this engine counts toward the run's positions (the debugger's: PyPositions
                     below, native.Positions; Machine.watch_positions hooks it)

A block's instructions are counted when it starts; rip at a stop inside the block last entered
says how much of it ran (see _insncount.c). Each iteration of a rep-prefixed string instruction
counts as one instruction, as in QEMU's -icount and in Unicorn's count-limited emu_start.

run_to(machine, target) runs the loaded thread until exactly `target` instructions retired on the
engine: stop_at ends the run at the start of the block that would pass it, and a count-limited
emu_start of the difference finishes it inside that block.
"""
from __future__ import annotations

from typing import Callable, Dict, Tuple

_md = None
_cs_lib = None
# stop_at is tested at every CHECK_PERIOD-th block entered (at every block while an exact stop
# is asked for: overshoot off), on both paths (_insncount.c counts its blocks in batches)
CHECK_PERIOD = 1024


def capstone_functions():
    """(cs_open, cs_malloc, cs_disasm_iter, CS_ARCH_X86, CS_MODE_64, cs_close, cs_free) for the
    compiled counter (cs_close and cs_free: it frees its handle, ~90 KB, when it goes):
    the addresses of the capstone library's functions, loaded by ctypes from the capstone
    package's directory without importing the package (whose import costs ~80 ms)."""
    global _cs_lib
    import ctypes     # deferred: only the compiled counter loads capstone's library
    if _cs_lib is None:
        import importlib.util     # deferred: the same
        import os
        spec = importlib.util.find_spec("capstone")
        base = list(spec.submodule_search_locations)[0]
        try:
            names = [n for n in os.listdir(os.path.join(base, "lib")) if "capstone" in n and not n.endswith(".a")]
            _cs_lib = ctypes.CDLL(os.path.join(base, "lib", sorted(names)[0]))
        except (OSError, IndexError):       # (a capstone wheel laid out otherwise: the Python counter)
            return None
    addr = [ctypes.cast(getattr(_cs_lib, n), ctypes.c_void_p).value for n in ("cs_open", "cs_malloc", "cs_disasm_iter")]
    free = [ctypes.cast(getattr(_cs_lib, n), ctypes.c_void_p).value for n in ("cs_close", "cs_free")]
    return (*addr, 3, 8, *free)     # capstone.h: CS_ARCH_X86 = 3, CS_MODE_64 = 1 << 3


def _disassembler():
    global _md
    if _md is None:
        import capstone         # deferred: ~10 ms to import
        _md = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    return _md


def count_insns(code: bytes, address: int) -> int:
    """Instructions that start in code (decoded from its start); an undecodable one ends it and
    counts (QEMU translated it, and it raised its fault)."""
    n = end = 0
    for ins_addr, size, _m, _o in _disassembler().disasm_lite(code, address):
        n += 1
        end = ins_addr + size - address
    return n + (1 if end < len(code) else 0)


class PyInsnCounter:
    """A Python UC_HOOK_BLOCK callback (on_block): the reference for the compiled InsnCounter."""

    def __init__(self, read: Callable[[int, int], bytes], stop: Callable[[], None]):
        self.read = read
        self.stop = stop
        self.handle = None
        self.total = 0
        self.cur: Tuple[int, int, int] = (0, 0, 0)     # (start, size, n) of the block last entered
        self.sizes: Dict[Tuple[int, int], int] = {}
        self._stop_at = -1
        self.ran_out = False
        self._overshoot = False
        self.skipped = []
        self.tick = CHECK_PERIOD         # blocks until the next stop check, as _insncount.c's
        self.watching = None             # the run's PyPositions (watch)
        self.rip = None                  # watch: rip of the engine (or None once it is closed)
        self.wbase = 0
        self.k = 0                       # watch: instructions of the block last entered seen so far

    @property
    def blocks(self) -> int:
        return len(self.sizes)

    @property
    def stop_at(self) -> int:
        return self._stop_at

    @stop_at.setter
    def stop_at(self, n: int) -> None:
        self._stop_at = n if n >= 0 else -1
        self.ran_out = False
        if self._period() == 1:
            self.tick = 1

    @property
    def overshoot(self) -> bool:
        return self._overshoot

    @overshoot.setter
    def overshoot(self, v: bool) -> None:
        self._overshoot = bool(v)
        if self._period() == 1:
            self.tick = 1

    def _period(self) -> int:
        return 1 if (self._stop_at >= 0 and not self._overshoot) or self.watching is not None else CHECK_PERIOD

    def watch(self, positions: "PyPositions") -> None:
        """This engine counts toward the run's positions (the caller hooks on_insn on every
        instruction: Machine.watch_positions)."""
        self.watching = positions
        self.tick = 1

    def on_insn(self, address: int, _size: int = 0) -> None:
        p = self.watching
        start, size, n = self.cur
        before = self.total
        if size and start <= address < start + size:
            before = self.total - n + self.k
            self.k += 1
        if p.engine is not self:
            self.wbase = p.count - before
            p.engine = self
        here = self.wbase + before
        if here >= p.stop_at or p.interrupt:
            p.interrupt = False
            if here >= p.stop_at:
                p.stop_at = NEVER
            p.here, p.in_callback = here, True
            try:
                p.callback(address)
            finally:
                p.in_callback = False

    def renew(self) -> None:
        """A reused engine's counter starts over (as _insncount.c's renew), its hook kept."""
        self.total = 0
        self.cur = (0, 0, 0)
        self.sizes = {}
        self._stop_at = -1
        self.ran_out = False
        self._overshoot = False
        self.skipped = []
        self.tick = CHECK_PERIOD
        self.watching = self.rip = None
        self.wbase = self.k = 0

    def skip(self, lo: int, hi: int) -> None:
        if hi > lo and (lo, hi) not in self.skipped:
            self.skipped.append((lo, hi))

    def forget(self, lo: int, hi: int) -> None:
        """The counts of the blocks overlapping [lo, hi) are dropped (their code changed: as the
        compiled counter's forget)."""
        if hi > lo:
            for key in [k for k in self.sizes if k[0] < hi and k[0] + max(k[1], 1) > lo]:
                del self.sizes[key]

    def _insns(self, address: int, size: int) -> int:
        n = self.sizes.get((address, size))
        if n is None:
            n = self.sizes[(address, size)] = count_insns(self.read(address, size), address) if size else 0
        return n

    def on_block(self, address: int, size: int) -> None:
        self.k = 0
        self.tick -= 1
        check = self.tick == 0
        if check:
            self.tick = self._period()
        for lo, hi in self.skipped:
            if lo <= address < hi:
                self.cur = (0, 0, 0)
                return
        n = self._insns(address, size)
        if check and self._stop_at >= 0 and (self.total >= self._stop_at if self.overshoot else self.total + n > self._stop_at):
            self._stop_at = -1
            self.ran_out = True
            self.cur = (0, 0, 0)
            self.stop()
            return
        self.total += n
        self.cur = (address, size, n)

    def exact(self, rip: int) -> int:
        start, size, n = self.cur
        if not size or not start <= rip < start + size:
            return self.total
        return self.total - n + (count_insns(self.read(start, rip - start), start) if rip > start else 0)

    def settle(self, rip: int) -> int:
        self.total = self.exact(rip)
        self.cur = (0, 0, 0)
        return self.total


NEVER = (1 << 64) - 1


class PyPositions:
    """The pure path's twin of _insncount.c's Positions (read it there): the run's position for
    the debugger (emutrace/gdb/positions.py), counted by the engines' counters that watch it.
    callback(address) runs before the instruction at which the position reaches stop_at, or
    before the next one once interrupt is set."""

    def __init__(self, callback: Callable[[int], None]):
        self.callback = callback
        self.stop_at = NEVER
        self.interrupt = False
        self.engine = None          # the counter that counted last
        self.here = 0               # callback running: the position before its instruction
        self.in_callback = False

    @property
    def count(self) -> int:
        """The position after the last instruction started: in the callback, before its
        instruction; else from the engine's rip, as _positions.h's (a faulting instruction
        did not start: the position is before it)."""
        e = self.engine
        if self.in_callback:
            return self.here
        if e is None:
            return 0
        rip = e.rip() if e.rip is not None else None
        return e.wbase + (e.exact(rip) if rip is not None else e.total)


def new_positions(callback: Callable[[int], None], compiled: bool):
    """The run's positions: compiled (native.Positions) or pure (PyPositions)."""
    if compiled:
        from emutrace.machine.native import native      # (deferred: this module stays importable without it)
        return native.Positions(callback)
    return PyPositions(callback)


def run_to(machine, target: int, timeout: int = 0) -> bool:
    """Run the engine's loaded thread from its rip until exactly `target` instructions retired on
    it (counter.total == target); True when it got there, False when it stopped before (a system
    call's hook stopped it, a fault, a breakpoint, the timeout in µs): counter.total then says
    where it is. Nothing is done when total is already >= target."""
    c = machine.counter
    c.overshoot = False
    while c.total < target:
        c.stop_at = target
        machine.emu_start(machine.reg("rip"), 0, timeout=timeout)
        if not c.ran_out:
            return c.total >= target
        left = target - c.total
        if left <= 0:
            break
        rip = machine.reg("rip")
        # Unicorn counts in blocks translated with its counting hook only: the block at rip may
        # have been translated before, so it is dropped (translated again, counting)
        machine.uc.ctl_remove_cache(rip, rip + 1)
        machine.emu_start(rip, 0, timeout=timeout, count=left)
        if c.total != target:
            return False
    c.stop_at = -1
    return c.total == target
