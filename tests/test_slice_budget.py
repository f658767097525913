"""The scheduler's slice budget (syscalls/sched.py): the engine's instruction counter's stop_at, in
C (InsnCounter, emutrace/machine/_insncount.c) and in Python (PyInsnCounter, the pure path's,
emutrace/machine/workcount.py). Both must stop at the same block, before it runs, so that both
event paths interleave threads at the same points; a budget that is off stops nothing."""
from __future__ import annotations

import pytest
from unicorn import unicorn_const as UCC
from unicorn.unicorn_py3.unicorn import uclib
from unicorn.x86_const import UC_X86_REG_RAX, UC_X86_REG_RBX, UC_X86_REG_RIP

import emutrace.machine.cpu as cpu
from emutrace.machine.cpu import Machine, _address
from emutrace.machine.native import native

CODE = 0x400000
# loop: inc rax; inc rbx; jmp loop (one block of 3 instructions), 100 times through a counter in rcx
LOOP = bytes([0x48, 0xC7, 0xC1, 0x64, 0x00, 0x00, 0x00,        # mov rcx, 100
              0x48, 0xFF, 0xC0,                                # L: inc rax
              0x48, 0xFF, 0xC3,                                #    inc rbx
              0xE2, 0xF8,                                      #    loop L
              0xF4])                                           # hlt


def _machine(pure: bool, monkeypatch) -> Machine:
    if pure:
        monkeypatch.setattr(cpu, "native", None)
    elif native is None or not hasattr(native, "InsnCounter"):
        pytest.skip("the compiled event path is not built")
    m = Machine()
    m.uc.mem_map(CODE, 1 << 20)
    m.uc.mem_write(CODE, LOOP)
    return m


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_budget_stops_before_the_block_that_would_pass_it(pure, monkeypatch):
    m = _machine(pure, monkeypatch)
    c = m.counter
    c.stop_at = 31                      # the first block (mov; inc; inc; loop: 4) + 9 loop blocks (3 each)
    m.emu_start(CODE, 0)
    assert c.ran_out and c.total == 31
    assert m.reg("rip") == CODE + 7             # stopped at the start of the 11th block, not run
    assert m.uc.reg_read(UC_X86_REG_RAX) == 10 and m.uc.reg_read(UC_X86_REG_RBX) == 10
    c.stop_at = c.total + 16                    # 5 blocks and a third of one: the 6th is not entered
    assert not c.ran_out
    m.emu_start(m.reg("rip"), 0)
    assert c.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 15 and c.total == 46


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_budget_off_stops_nothing(pure, monkeypatch):
    m = _machine(pure, monkeypatch)
    c = m.counter
    c.stop_at = -1
    m.emu_start(CODE, CODE + len(LOOP) - 1)
    assert not c.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 100 and c.total == 1 + 3 * 100
