"""Whether the emulator keeps Python's GIL while the guest runs (Machine.emu_start).

Unicorn's binding releases the GIL for the whole of emu_start, so every hook that runs Python or
calls the C API (the system call hook, the TLB fill's misses, ctypes callbacks) takes it back and
gives it up again: a mutex and a condition variable each way, ~360 instructions of an untraced
read(2)'s ~13,000 under callgrind. Kept, the hooks find it held. The price: other Python threads of the process run only while a hook
runs Python (at the interpreter's switch interval), never while the guest computes, so a thread
that must stop the emulator (emutrace.api's events() calls emu_stop from the consumer's thread)
would wait for the guest's next hook, forever in a loop without system calls. So it is kept only
in a process whose one Python thread is the one that emulates: the `emutrace` command asks for
it (cli.entry: a batch's jobs are processes of their own); the Python API and cli.main do not.
No imports: the command sets it before it loads the emulator.
"""
from __future__ import annotations

_kept = False


def keep_while_running(keep: bool = True) -> None:
    """From now on, Machine.emu_start holds the GIL while the guest runs (or, keep=False, not)."""
    global _kept
    _kept = keep


def kept_while_running() -> bool:
    return _kept
