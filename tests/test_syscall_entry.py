"""The system-call entry (emutrace/machine/cpu.py's hook_syscall, Kernel.on_syscall) and the raw
guest-memory access under it, on the compiled path and on the pure-Python reference alike."""
from __future__ import annotations

import struct

import pytest

import emutrace.machine.cpu as machine
from emutrace.machine.native import native
from unicorn import UcError
from unicorn import unicorn_const as UCC

BOTH = pytest.mark.parametrize("compiled", [
    pytest.param(True, marks=pytest.mark.skipif(native is None, reason="the compiled event path is not built")),
    False])


def _machine(compiled, monkeypatch):
    if not compiled:
        monkeypatch.setattr(machine, "native", None)
    return machine.Machine()


def _mov(reg: int, value: int) -> bytes:
    return bytes([0x48, 0xC7, 0xC0 + reg]) + struct.pack("<i", value)        # mov r64, imm32


# mov rax, 39; syscall; mov rbx, rax; mov rax, 40; syscall; mov rcx, rax; mov rax, 41; syscall
CODE = _mov(0, 39) + b"\x0f\x05" + b"\x48\x89\xc3" + _mov(0, 40) + b"\x0f\x05" + b"\x48\x89\xc1" + \
    _mov(0, 41) + b"\x0f\x05"


@BOTH
def test_the_hooks_result_is_rax_and_none_leaves_it(compiled, monkeypatch):
    """What fn returns is written into rax (negative results and full 64-bit values as the
    guest's two's complement); None leaves rax as the guest set it."""
    m = _machine(compiled, monkeypatch)
    m.uc.mem_map(0x10000, 0x1000)
    m.uc.mem_write(0x10000, CODE)
    answers = {39: -2, 40: None, 41: (1 << 64) - 3}
    seen = []

    def fn(regs):
        seen.append(regs[0])
        return answers[regs[0]]
    m.hook_syscall(fn)
    m.uc.emu_start(0x10000, 0x10000 + len(CODE))
    assert seen == [39, 40, 41]
    assert m.reg("rbx") == (1 << 64) - 2            # -ENOENT
    assert m.reg("rcx") == 40                        # untouched
    assert m.reg("rax") == (1 << 64) - 3


@BOTH
def test_an_exception_stops_emulation_at_once_and_is_raised(compiled, monkeypatch):
    """fn raising: the instructions after the syscall never run, rax is not written, and
    emu_start raises the exception itself (the first one)."""
    m = _machine(compiled, monkeypatch)
    m.uc.mem_map(0x10000, 0x1000)
    m.uc.mem_write(0x10000, CODE)
    calls = []

    def fn(regs):
        calls.append(regs[0])
        raise KeyError("from the handler")
    m.hook_syscall(fn)
    with pytest.raises(KeyError, match="from the handler"):
        m.uc.emu_start(0x10000, 0x10000 + len(CODE))
    assert calls == [39]
    assert m.reg("rbx") == 0 and m.reg("rax") == 39


@BOTH
def test_raw_guest_memory_reads_and_writes(compiled, monkeypatch):
    """Machine.read, read_fast and write (C functions on the compiled path, ctypes calls on the
    pure one): the same bytes, any bytes-like data, and UcError with the binding's codes."""
    m = _machine(compiled, monkeypatch)
    if compiled:        # the compiled functions are the ones in use (a Python method would hide a slow path)
        assert type(m.write).__name__ == "builtin_function_or_method"
        assert type(m.read_fast).__name__ == "builtin_function_or_method"
    m.uc.mem_map(0x10000, 0x2000)
    m.write(0x10ffe, b"abcd")                        # across a page boundary
    m.write(0x10010, bytearray(b"xyz"))
    m.write(0x10020, memoryview(b"123456")[1:4])
    m.write(0x10030, b"")
    assert m.read_fast(0x10ffe, 4) == b"abcd"
    assert m.read(0x10010, 3) == b"xyz" and m.read_fast(0x10020, 3) == b"234"
    assert m.read_fast(0x10000, 0) == b""
    assert m.read_fast(0x10000, 0x2000) == bytes(m.uc.mem_read(0x10000, 0x2000))
    for bad in (lambda: m.read_fast(0x90000, 4), lambda: m.read_fast(0x11ffe, 4)):
        with pytest.raises(UcError) as e:
            bad()
        assert e.value.errno == UCC.UC_ERR_READ_UNMAPPED
    with pytest.raises(UcError) as e:
        m.write(0x90000, b"1")
    assert e.value.errno == UCC.UC_ERR_WRITE_UNMAPPED


@pytest.mark.skipif(native is None, reason="the compiled event path is not built")
def test_guest_memory_keeps_its_engine_alive():
    """The compiled read/write hold the engine (as the bound methods they replace held the Machine):
    memory.py keeps them after the Machine itself may be gone."""
    import gc
    m = machine.Machine()
    m.uc.mem_map(0x10000, 0x1000)
    m.write(0x10000, b"kept")
    read = m.read_fast
    del m
    gc.collect()
    assert read(0x10000, 4) == b"kept"


def test_routes_are_the_table_joined_with_the_handlers():
    """Dispatch by number: every row of the one table routes to the handler its name has, a
    number outside the table routes nowhere (ENOSYS), and a kernel whose handler map changes
    (inotify wraps some handlers at its first use) routes to the new handlers."""
    from emutrace.kernel.kernel import NO_ROUTE, Kernel
    from emutrace.kernel.table import BY_NR
    from emutrace.kernel.vfs import Vfs
    from emutrace.kernel.world import World
    k = Kernel(World(), Vfs("/"))
    assert set(k.routes) == set(BY_NR)
    for nr, (sc, handler) in k.routes.items():
        assert sc is BY_NR[nr] and handler is k.handlers.get(sc.name)
    assert k.routes.get(100_000, NO_ROUTE) == (None, None)
    assert k.routes[0][1] is not None                           # read
    wrapped = dict(k.handlers, read=lambda proc, *a: 7)
    k.handlers = wrapped
    assert k.routes[0][1] is wrapped["read"]
