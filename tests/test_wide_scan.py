"""Zero-ended arrays (wide strings) are measured a chunk of guest memory at a time
(values.CallFormatter._zero_ended_length) and must show exactly what reading them element by
element showed: strings ended by L'\\0', strings running into the end of their mapping (no
terminator before unreadable memory), elements straddling that end, string limits, and a wide
string pointer into unmapped memory."""
from __future__ import annotations

import struct

import pytest

from emutrace.machine.cpu import Machine
from emutrace.machine.memory import AddressSpace
from emutrace.machine.guestaccess import MemView
from emutrace.protos import load_prototypes
from emutrace.values import CallFormatter

from test_values import FakeRegs

BASE, PAGE = 0x300000, 0x1000


class ElementWise:
    """The same memory, not a MemView: the formatter reads it element by element."""

    def __init__(self, mem):
        self.mem = mem

    def read(self, addr, size):
        return self.mem.read(addr, size)

    def cstring(self, addr, limit):
        return self.mem.cstring(addr, limit)


@pytest.fixture(scope="module")
def memory():
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    a.map(BASE, 2 * PAGE, 3)                  # two pages, then nothing
    text = "".join(chr(0x61 + i % 26) for i in range(2 * PAGE // 4))
    m.write(BASE, text.encode("utf-32-le"))   # no terminator anywhere
    m.write(BASE + 0x100, b"\0" * 4)          # ... except here
    m.write(BASE + 0x3FC, struct.pack("<I", 0x1F600))
    return MemView(a)


# where the string starts: ended at 0x100; long (cut by the limit); near the mapping's end with no
# terminator; an element straddling the end; unmapped
STARTS = [BASE, BASE + 0xC0, BASE + 0x3F0, BASE + 0x200, 2 * PAGE + BASE - 40, 2 * PAGE + BASE - 6,
          2 * PAGE + BASE - 2, 2 * PAGE + BASE, 0xdead0000]


@pytest.mark.parametrize("limit", [32, 5, 0, 1, 200])
@pytest.mark.parametrize("name", ["wcslen", "wcschr", "wcscmp", "wcsdup"])
def test_chunked_scan_shows_what_element_reads_showed(memory, limit, name):
    proto = load_prototypes().get(name)
    assert proto is not None
    for compiled in (True, False):
        f = CallFormatter(string_limit=limit, compiled=compiled)
        for start in STARTS:
            for other in (BASE + 0x3F8, 2 * PAGE + BASE - 4):
                lines = []
                for mem in (memory, ElementWise(memory)):
                    regs = FakeRegs([start, other], ret=start)
                    st = f.enter(name, proto, regs, mem)
                    f.exit(st, regs, mem)
                    lines.append(st.line())
                assert lines[0] == lines[1], (start, other)


@pytest.mark.parametrize("start", STARTS)
@pytest.mark.parametrize("cap", [0, 1, 33, 64, 1 << 16])
def test_lengths(memory, start, cap):
    f = CallFormatter()
    want = 0
    while want < cap:
        b = memory.read(start + 4 * want, 4)
        if b is None or len(b) < 4 or b == bytes(4):
            break
        want += 1
    assert f._zero_ended_length(memory, start, 4, cap) == want
