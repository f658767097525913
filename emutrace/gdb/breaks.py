"""Breakpoints and watchpoints, per process, as engine hooks: nothing is written to guest memory.

- Z0/Z1 (software and hardware breakpoints are the same here): a code hook on the address. Its
  translated block is dropped so that the block is translated again with the hook.
- Z2/Z3/Z4 (write, read, access watchpoints), any length and any number: a memory hook on the
  range. Unicorn calls it before the access; the stop is reported before the next instruction,
  after the access, as x86's debug registers do.
- Stores by the emulated kernel (read(2) into a watched buffer): what each write or access
  watchpoint of the process watches is copied at a system call's entry and compared at its exit
  (the `syscall_enter`/`syscall_exit` phases); a change stops there.

A hook calls `hit(kind, proc, address)` of the debugger, which decides whether to stop.
"""
from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

from unicorn import UC_HOOK_MEM_READ, UC_HOOK_MEM_WRITE

from emutrace.gdb.memory import read_memory

WATCH_KINDS = {2: "watch", 3: "rwatch", 4: "awatch"}
MAX_WATCH = 1 << 30          # one watchpoint's length (a snapshot of it is copied per system call)


class Watch:
    __slots__ = ("kind", "addr", "length", "handles")

    def __init__(self, kind: int, addr: int, length: int):
        self.kind, self.addr, self.length, self.handles = kind, addr, length, []


class Points:
    """The breakpoints and watchpoints of every process, by process."""

    def __init__(self, hit: Callable[[str, object, int], None]):
        self.hit = hit
        self.breaks: Dict[object, Dict[int, int]] = {}           # proc -> {address: hook handle}
        self.watches: Dict[object, List[Watch]] = {}             # proc -> [Watch]
        self.snapshots: Dict[object, List[Tuple[Watch, bytes]]] = {}   # thread -> at syscall entry

    # -- breakpoints -----------------------------------------------------------------------
    def add_break(self, proc, addr: int) -> bool:
        table = self.breaks.setdefault(proc, {})
        if addr in table:
            return True
        m = proc.machine
        table[addr] = m.hook_code(lambda address, p=proc: self.hit("break", p, address), addr, addr)
        m.uc.ctl_remove_cache(addr, addr + 1)
        return True

    def remove_break(self, proc, addr: int) -> bool:
        handle = self.breaks.get(proc, {}).pop(addr, None)
        if handle is not None:
            proc.machine.hook_del(handle)
            proc.machine.uc.ctl_remove_cache(addr, addr + 1)
        return True

    def break_addresses(self, proc) -> List[int]:
        return sorted(self.breaks.get(proc, {}))

    # -- watchpoints -----------------------------------------------------------------------
    def add_watch(self, proc, kind: int, addr: int, length: int) -> bool:
        if length <= 0 or length > MAX_WATCH or addr + length > 1 << 64:
            return False
        w = Watch(kind, addr, length)
        last = addr + length - 1
        if kind in (2, 4):
            w.handles.append(proc.machine.hook_add(UC_HOOK_MEM_WRITE, self._on_access, (proc, w), addr, last))
        if kind in (3, 4):
            w.handles.append(proc.machine.hook_add(UC_HOOK_MEM_READ, self._on_access, (proc, w), addr, last))
        self.watches.setdefault(proc, []).append(w)
        return True

    def remove_watch(self, proc, kind: int, addr: int, length: int) -> bool:
        ws = self.watches.get(proc, [])
        for w in ws:
            if (w.kind, w.addr, w.length) == (kind, addr, length):
                for h in w.handles:
                    proc.machine.hook_del(h)
                ws.remove(w)
                break
        return True

    def _on_access(self, uc, access, address, size, value, data) -> None:
        proc, w = data
        self.hit(WATCH_KINDS[w.kind], proc, max(address, w.addr))

    def watching(self, proc) -> bool:
        return bool(self.watches.get(proc))

    # -- the kernel's stores ------------------------------------------------------------------
    def syscall_entered(self, proc) -> None:
        ws = [w for w in self.watches.get(proc, ()) if w.kind in (2, 4)]
        if ws:
            self.snapshots[proc.thread] = [(w, _peek(proc, w.addr, w.length)) for w in ws]

    def kernel_stored(self, proc) -> Optional[Tuple[Watch, int]]:
        """After a system call: the first watched byte the kernel changed, or None."""
        snaps = self.snapshots.pop(proc.thread, None)
        if not snaps:
            return None
        for w, before in snaps:
            after = _peek(proc, w.addr, w.length)
            if after != before:
                i = next((k for k in range(min(len(before), len(after))) if before[k] != after[k]), 0)
                return w, w.addr + i
        return None

    # -- life cycle ---------------------------------------------------------------------------
    def forget(self, proc) -> None:
        """proc's engine is gone (exec, exit) or it was detached: its hooks went with it."""
        self.breaks.pop(proc, None)
        self.watches.pop(proc, None)
        for t in list(self.snapshots):
            if t.proc is proc:
                del self.snapshots[t]

    def clear(self, proc) -> None:
        """Remove every hook of proc (detach): the engine lives on."""
        for addr in list(self.breaks.get(proc, {})):
            self.remove_break(proc, addr)
        for w in list(self.watches.get(proc, [])):
            self.remove_watch(proc, w.kind, w.addr, w.length)
        self.forget(proc)


def _peek(proc, addr: int, length: int) -> bytes:
    """What the guest's memory holds (unmapped bytes: nothing), whatever its protection."""
    return read_memory(proc, addr, length) or b""
