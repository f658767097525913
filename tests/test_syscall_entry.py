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

    def fn(*regs):
        seen.append(regs[0])
        return answers[regs[0]]
    m.hook_syscall(fn)
    m.uc.emu_start(0x10000, 0x10000 + len(CODE))
    assert seen == [39, 40, 41]
    assert m.reg("rbx") == (1 << 64) - 2            # -ENOENT
    assert m.reg("rcx") == 40                        # untouched
    assert m.reg("rax") == (1 << 64) - 3


def _mov64(reg: int, value: int) -> bytes:
    """mov r64, imm64 (reg: 0-15)"""
    return bytes([0x48 | (reg >> 3), 0xB8 + (reg & 7)]) + struct.pack("<Q", value)


# rax, rdi, rsi, rdx, r10, r8, r9: the syscall's registers by encoding number
SC_REGS = (0, 7, 6, 2, 10, 8, 9)


@BOTH
def test_the_hook_passes_the_seven_registers_of_each_call(compiled, monkeypatch):
    """Every call gets the registers as they are at its own syscall, whether they changed since
    the last call or not (the compiled hook passes the same int object again for a register
    that kept its value), small and full 64-bit alike; fn may be a bound method."""
    m = _machine(compiled, monkeypatch)
    calls = [
        (0, 3, 0x7FFFFFFFE000, 1, 0xFFFFFFFFFFFFFFFF, 1 << 63, 5),
        (0, 3, 0x7FFFFFFFE000, 1, 0xFFFFFFFFFFFFFFFF, 1 << 63, 5),       # all the same again
        (1, 3, 0x7FFFFFFFE008, 1, 0xFFFFFFFFFFFFFFFE, 1 << 63, 6),       # some changed
        (0, 4, 0x7FFFFFFFE000, 256, 0, 0, 0),
        (0, 4, 0x7FFFFFFFE000, 257, 0, 0, 0),
    ]
    code = b""
    for regs in calls:
        code += b"".join(_mov64(r, v) for r, v in zip(SC_REGS, regs)) + b"\x0f\x05"
    m.uc.mem_map(0x10000, 0x1000)
    m.uc.mem_write(0x10000, code)

    class Kernel:
        seen = []

        def on_syscall(self, *regs):
            self.seen.append(regs)
            return 0
    k = Kernel()
    m.hook_syscall(k.on_syscall)
    m.uc.emu_start(0x10000, 0x10000 + len(code))
    assert k.seen == calls


@BOTH
def test_an_exception_stops_emulation_at_once_and_is_raised(compiled, monkeypatch):
    """fn raising: the instructions after the syscall never run, rax is not written, and
    emu_start raises the exception itself (the first one)."""
    m = _machine(compiled, monkeypatch)
    m.uc.mem_map(0x10000, 0x1000)
    m.uc.mem_write(0x10000, CODE)
    calls = []

    def fn(*regs):
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


# -- answers the compiled hook repeats (Kernel.answer_from, PURE_NUMBERS) ------------------------

def test_the_repeated_answers_are_the_tables_pure_class():
    """The calls whose answers the compiled hook may repeat are the one table's %pure class
    (strace's: no arguments, never fail), each with a handler, and all below the hook's 512."""
    from emutrace.kernel.kernel import PURE_NUMBERS, Kernel
    from emutrace.kernel.table import BY_NR, by_class
    from emutrace.kernel.vfs import Vfs
    from emutrace.kernel.world import World
    assert PURE_NUMBERS == {row.nr for row in by_class("%pure")}
    assert {BY_NR[nr].name for nr in PURE_NUMBERS} == {"getpid", "gettid", "getppid", "getuid", "geteuid",
                                                       "getgid", "getegid", "getpgrp"}
    k = Kernel(World(), Vfs("/"))
    for nr in PURE_NUMBERS:
        assert BY_NR[nr].args == () and k.routes[nr][1] is not None and nr < 512


@pytest.mark.skipif(native is None, reason="the compiled event path is not built")
def test_the_hook_repeats_only_what_it_was_handed():
    """answer_with/remember/forget: a remembered number is answered in C with the value Python
    handed over and one tick of the owner's clock, without fn; a number not allowed reaching fn
    forgets every answer; nothing but an allowed number can be remembered."""
    m = machine.Machine()
    m.uc.mem_map(0x10000, 0x1000)
    code = (_mov(0, 39) + b"\x0f\x05" + b"\x48\x89\xc3") * 2 + _mov(0, 40) + b"\x0f\x05" + \
        _mov(0, 39) + b"\x0f\x05" + b"\x48\x89\xc1"
    m.uc.mem_write(0x10000, code)

    class Clock:
        now = 5
        step = 1000
    clock = Clock()
    seen = []

    def fn(*regs):
        seen.append(regs[0])
        clock.now += clock.step
        if regs[0] == 39:
            hook.remember(39, 1234)
        return {39: 1234, 40: 7}[regs[0]]
    m.hook_syscall(fn)
    hook = m.syscall_answers
    hook.answer_with(clock, "now", "step", [39, 110])
    with pytest.raises(ValueError):
        hook.remember(40, 1)                    # not allowed
    with pytest.raises(ValueError):
        hook.answer_with(clock, "now", "step", [512])
    m.uc.emu_start(0x10000, 0x10000 + len(code))
    # 39 in Python (remembered), 39 in C, 40 in Python (forgets), 39 in Python again
    assert seen == [39, 40, 39] and hook.answered == 1
    assert clock.now == 5 + 4 * 1000                # the C answer ticked the clock too
    assert m.reg("rbx") == 1234 and m.reg("rcx") == 1234
    assert hook.known == {39: 1234}
    hook.forget()
    assert hook.known == {}




def test_pure_calls_answered_in_c_are_pythons_answers(tmp_path):
    """bins/idcalls (getpid, gettid, getppid, getuid, ... in loops around fork, setpgid,
    threads and an interval timer) prints the same bytes, clock readings included, compiled and
    pure; the compiled run answered most of its calls in C."""
    from conftest import built
    from test_native_paths import run_both
    args = ["--no-trace", built("idcalls"), "500"]
    compiled, pure = run_both(args)
    assert compiled == pure
    assert compiled[2] == 0 and compiled[0].count(b"sum") == 10
    timer = next(line for line in compiled[0].splitlines() if line.startswith(b"main with a timer:"))
    assert not timer.endswith(b"alarms 0")         # SIGALRMs arrived at the loop's calls' returns
    if native is not None:
        import subprocess
        import sys
        probe = ("import sys; from emutrace.session import Run; s = Run(sys.argv[1:]); s.run(); "
                 "m = s.processes[0].machine; print(m.syscall_answers.answered)")
        out = subprocess.run([sys.executable, "-c", probe, built("idcalls"), "500"], capture_output=True,
                             check=True, text=True).stdout.splitlines()[-1]
        # main's four plain loops: 500 iterations of 8 calls each, the first of each call in Python
        assert int(out) == 4 * 500 * 8


def test_a_traced_call_is_never_repeated(tmp_path):
    """With --strace every call reaches Python (and the trace): the hook remembers nothing."""
    from conftest import built
    from test_native_paths import run_both
    compiled, pure = run_both(["--strace", "-f", built("idcalls"), "50"], trace_dir=str(tmp_path))
    assert compiled == pure
    assert compiled[1].count(b"getpid()") >= 10 * 50


@BOTH
def test_a_machine_is_collected(compiled, monkeypatch):
    """A Machine, whose engine refers back to it (its own hooks) and which holds the compiled
    memory functions and syscall hook, is collected: the cycles go through objects the
    collector can traverse (a Machine kept alive keeps its engine and guest memory; with the
    compiled syscall hook, every process's engine stayed until the run ended)."""
    import gc
    import weakref
    m = _machine(compiled, monkeypatch)
    m.uc.mem_map(0x10000, 0x1000)
    m.write(0x10000, b"x")
    m.hook_syscall(lambda *regs: None)
    alive = weakref.ref(m)
    del m
    gc.collect()
    assert alive() is None
