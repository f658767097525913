"""One memory-reader protocol (emutrace.machine.reader.GuestReader): every reader the tracer's
decoders, call log and unwinder take has its shape and gives the same answers, and none raises
on memory the guest cannot read."""
import pytest

from emutrace.decode.strace.common import NoMem
from emutrace.guestlog import _Captured
from emutrace.machine.cpu import Machine
from emutrace.machine.memory import AddressSpace
from emutrace.linux.mman import PROT_READ, PROT_WRITE
from emutrace.machine.guestaccess import MemView
from emutrace.machine.pages import PAGE
from emutrace.machine.reader import GuestReader, read_u64
from emutrace.machine.native import native
from emutrace.traceview import CompiledTraceMem, TraceMem
from emutrace.dwarf.unwind import RA, SP, Unwinder

BASE = 0x7F0000000000
LIMIT = 8


@pytest.fixture
def space():
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    a.use_machine(m)
    a.map(BASE, PAGE, PROT_READ | PROT_WRITE, "data")
    a.map(BASE + 2 * PAGE, PAGE, PROT_WRITE, "write-only")     # mapped, not readable
    a.write(BASE, b"hi\0" + b"a-long-string\0")
    a.write(BASE + PAGE - 3, b"end")                          # runs into the unmapped page
    a.write(BASE + 0x100, (0x1122334455667788).to_bytes(8, "little"))
    return m, a


def _captured(a):
    c = _Captured()
    c.fallback = MemView(a)
    return c


def _readers(m, a):
    readers = {"MemView": MemView(a), "TraceMem": TraceMem(a, m), "TraceMem-no-machine": TraceMem(a),
               "captured": _captured(a)}
    if getattr(native, "MappedReader", None) is not None:
        readers.update({"CompiledTraceMem": CompiledTraceMem(a, m), "CompiledTraceMem-no-machine": CompiledTraceMem(a)})
    return readers


def test_every_reader_has_the_protocol(space):
    m, a = space
    for name, r in list(_readers(m, a).items()) + [("NoMem", NoMem())]:
        assert isinstance(r, GuestReader), name
    assert not isinstance(object(), GuestReader)


CASES = [
    ("read", BASE, 3), ("read", BASE + PAGE - 2, 4), ("read", BASE + PAGE, 1), ("read", BASE + 2 * PAGE, 8),
    ("read", 0, 8), ("read", BASE + PAGE - 3, 3), ("read", BASE, 0), ("read", BASE, PAGE), ("read", BASE, PAGE + 1),
    ("read", -1, 1), ("read", 1 << 64, 1), ("read", BASE - 1, 2), ("read", BASE + 2 * PAGE - 1, 2),
    ("cstring", BASE, LIMIT), ("cstring", BASE + 3, LIMIT), ("cstring", BASE + 3, 13),
    ("cstring", BASE + PAGE - 3, LIMIT), ("cstring", BASE + PAGE, LIMIT), ("cstring", 0, LIMIT),
    ("cstring", BASE + 2 * PAGE, LIMIT),
]


def test_readers_give_the_same_answers(space):
    m, a = space
    readers = _readers(m, a)
    want = {
        ("read", BASE, 3): b"hi\0",
        ("read", BASE + PAGE - 2, 4): None,          # half of it unmapped
        ("read", BASE + PAGE, 1): None,
        ("read", BASE + 2 * PAGE, 8): None,          # not readable
        ("cstring", BASE, LIMIT): (b"hi", True),
        ("cstring", BASE + 3, LIMIT): (b"a-long-s", False),
        ("cstring", BASE + 3, 13): (b"a-long-string", True),
        ("cstring", BASE + PAGE, LIMIT): None,
        ("cstring", 0, LIMIT): None,
        ("cstring", BASE + 2 * PAGE, LIMIT): None,
    }
    for case in CASES:
        kind, addr, n = case
        got = {name: getattr(r, kind)(addr, n) for name, r in readers.items()}
        assert len(set(map(repr, got.values()))) == 1, (case, got)
        if case in want:
            assert got["MemView"] == want[case], case
        assert getattr(NoMem(), kind)(addr, n) is None


def test_read_u64(space):
    m, a = space
    for r in _readers(m, a).values():
        assert read_u64(r, BASE + 0x100) == 0x1122334455667788
        assert read_u64(r, BASE + PAGE - 4) is None
    assert read_u64(NoMem(), BASE) is None


def test_the_unwinder_reads_through_a_reader_and_stops_where_it_cannot(space):
    """No module at pc: frame-pointer steps, read through the reader; an unreadable frame ends
    the walk instead of raising."""
    m, a = space
    fp = BASE + 0x200
    a.write(fp, (BASE + 0x300).to_bytes(8, "little") + (0x401000).to_bytes(8, "little"))
    a.write(BASE + 0x300, (BASE + 3 * PAGE).to_bytes(8, "little") + (0x402000).to_bytes(8, "little"))
    regs = {RA: 0x400000, SP: fp - 0x40, 6: fp}
    frames = Unwinder().unwind(regs, lambda pc: None, MemView(a), exact=False)
    assert [f.pc for f in frames][:3] == [0x400000, 0x401000, 0x402000]
    assert len(frames) == 3                        # the next saved frame pointer is unmapped
