"""Shared by the decode/strace/ tests (test_strace_*.py): memory to decode from, one line's
formatting, and the time zone the dates are checked under.

How the references were made: a static test program executed raw syscalls whose pointer arguments
point into a data blob at a fixed address, under `strace -e inject=all:retval=N` (or error=E), so
the kernel never ran them while strace decoded arguments and results from that memory exactly as
for a real call. The memory each case needs is listed with it; the formatter reads it through
FakeMem, the same interface the emulator gives it (read / cstring). The other lines of
test_strace_format.py come from real programs traced with `strace -f`, `-y`, `-s 5` and `-c`.
"""
import time

import pytest

from emutrace.decode.strace import SyscallFormatter
from emutrace.kernel import table


class FakeMem:
    """Guest memory: {address: bytes or hex string}; anything else is unmapped."""

    def __init__(self, regions=None):
        self.regions = []
        for addr, data in (regions or {}).items():
            if isinstance(data, str):
                data = bytes.fromhex(data)
            self.regions.append((addr, bytes(data)))

    def _find(self, addr, size):
        for base, data in self.regions:
            if base <= addr and addr + size <= base + len(data):
                return data[addr - base:addr - base + size]
        return None

    def read(self, addr, size):
        return self._find(addr, size)

    def cstring(self, addr, limit):
        for base, data in self.regions:
            if base <= addr < base + len(data):
                chunk = data[addr - base:addr - base + limit]
                nul = chunk.find(b"\0")
                return (chunk, False) if nul < 0 else (chunk[:nul], True)
        return None


@pytest.fixture(autouse=True)
def other_time_zone(monkeypatch):
    """strace prints dates in its local time (the references were made with TZ=UTC); emutrace
    prints UTC whatever the host's zone, so run everything under another zone."""
    monkeypatch.setenv("TZ", "America/New_York")
    if hasattr(time, "tzset"):
        time.tzset()
    yield
    monkeypatch.undo()
    if hasattr(time, "tzset"):
        time.tzset()


def fmt_line(name, args, ret, mem, **kw):
    kw.setdefault("align", 40)
    f = SyscallFormatter(**kw)
    return f.format(table.BY_NAME[name], list(args) + [0] * (6 - len(args)), ret, mem)
