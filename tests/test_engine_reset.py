"""An engine given back for another process keeps nothing of the old one (issue 32,
emutrace/machine/enginehooks.py): every hook of the old process is deleted, whoever added it
(the binding, ctypes callbacks, the compiled objects), and resetting it again and again does
not make the host hold more. Run on the compiled path and, in a subprocess, on the pure one."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from unicorn import UC_HOOK_CODE, UC_HOOK_INTR
from unicorn import x86_const as X

from emutrace.machine.cpu import Machine
from emutrace.machine.memory import AddressSpace
from emutrace.machine.native import native

CODE = 0x400000
PROT_RX, PROT_RW = 5, 3


def _program(value: int) -> bytes:
    """mov eax, value; syscall; cpuid; rdtsc; mov ebx, value; then the end (emu_start's until)."""
    return (b"\xb8" + value.to_bytes(4, "little") + b"\x0f\x05" + b"\xb8\x00\x00\x00\x00\x0f\xa2"
            + b"\x0f\x31" + b"\xbb" + value.to_bytes(4, "little"))


class Proc:
    """What a process puts on its engine: a hook of every kind, each counting its calls."""

    def __init__(self, m: Machine, a: AddressSpace, code: bytes):
        self.m, self.a, self.code = m, a, code
        self.calls = {"syscall": 0, "code": 0, "binding": 0, "block": 0, "tsc": 0}
        a.map(CODE, 0x1000, PROT_RW, "code")
        a.write(CODE, code)
        a.protect(CODE, 0x1000, PROT_RX)
        m.hook_syscall(self._on_syscall)
        m.hook_code(lambda _addr: self._count("code"), CODE, CODE)
        m.hook_add(UC_HOOK_CODE, lambda *_: self._count("binding"), None, CODE, CODE)
        m.hook_add(UC_HOOK_INTR, lambda *_: self._count("binding"), None)
        self.blocks = m.count_blocks(lambda _a, _s: self._count("block"))
        if not m.answer_tsc_natively():
            m.hook_insn_answer(X.UC_X86_INS_RDTSC, lambda: self._count("tsc"))

    def _count(self, what: str) -> None:
        self.calls[what] += 1

    def _on_syscall(self, *regs):
        self._count("syscall")
        return 0

    def run(self) -> None:
        self.m.emu_start(CODE, CODE + len(self.code))


def _space(m: Machine) -> AddressSpace:
    a = AddressSpace(m.uc, 64 << 20)
    a.use_machine(m)
    return a


def test_a_reset_engine_calls_no_hook_of_the_old_process():
    m = Machine()
    own = set(m.engine_hooks.handles())         # the engine's from birth (CPUID, the counter)
    assert own
    old = Proc(m, _space(m), _program(39))
    old.run()
    assert old.calls["syscall"] == 1 and old.calls["code"] == 1 and old.calls["binding"] == 1
    assert old.calls["block"] >= 1
    assert len(m.engine_hooks.handles()) > len(own)
    before = dict(old.calls)

    old.a.close(keep_engine=True)
    assert not m.closed and not list(m.uc.mem_regions())
    kept = m.engine_hooks.handles()
    assert len(kept) == len(own), "a hook of the old process is still on the engine"
    assert m.engine_hooks.attached() == ([m.counter] if native is not None else [])

    # the same bytes at the same address (where a stale translation would do the most harm),
    # then other bytes: the new process's hooks only, and its own code's result
    for value in (39, 40):
        new = Proc(m, _space(m), _program(value))
        new.run()
        assert old.calls == before, f"the old process's hooks ran again: {old.calls} != {before}"
        assert new.calls["syscall"] == 1 and new.calls["code"] == 1 and new.calls["binding"] == 1
        assert m.reg("rbx") == value
        new.a.close(keep_engine=True)
    m.close()


def _rss_kib() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_resets_do_not_grow_the_host():
    """300 processes on one engine, each with its hooks, block counter and TLB fill: the host's
    RSS after the 300th is within 8 MiB of after the 50th (an engine that kept each process's
    instruction counter alone, ~90 KiB of capstone state, would grow by ~22 MiB)."""
    m = Machine()
    code = _program(39)
    for i in range(300):
        if i == 50:
            start = _rss_kib()
        p = Proc(m, _space(m), code)
        p.run()
        assert p.calls["syscall"] == 1
        p.a.close(keep_engine=True)
    grown = _rss_kib() - start
    m.close()
    assert grown < 8 << 10, f"host RSS grew by {grown} KiB over 250 resets"


@pytest.mark.skipif(native is None, reason="already on the pure path")
def test_the_pure_path_too():
    env = dict(os.environ, EMUTRACE_PURE="1")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                        __file__, "-k", "not pure_path"], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_a_hook_a_compiled_object_deletes_is_unfiled():
    """The debugger's fine mode adds and deletes a code hook at every stop inside a block, in C,
    through the engine's recording uc_hook_add and uc_hook_del (_hookreg.c): a deleted hook
    leaves the registry, so the registry neither grows nor holds a freed handle that a reset
    would delete a second time."""
    if native is None or not hasattr(native, "hook_deleter"):
        pytest.skip("the compiled event path is not in use")
    import ctypes
    from unicorn import UC_HOOK_CODE as CODE_HOOK
    m = Machine()
    hooks = m.engine_hooks
    add = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_int,
                           ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64)(hooks.hook_add_address)
    delete = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)(hooks.hook_del_address)
    callback = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_void_p)(
        lambda *_: None)
    before = sorted(hooks.handles())
    handle = ctypes.c_size_t()
    for _ in range(200):
        assert add(hooks._engine, ctypes.byref(handle), CODE_HOOK, ctypes.cast(callback, ctypes.c_void_p),
                   None, CODE, CODE) == 0
        assert handle.value in hooks.handles()
        assert delete(hooks._engine, handle.value) == 0
        assert handle.value not in hooks.handles()
    assert sorted(hooks.handles()) == before
    m.close()
