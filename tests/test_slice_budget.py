"""The scheduler's slice budget (syscalls/sched.py): a block hook counting basic blocks, in C
(SliceBudget, emutrace/machine/_cover.c) and in Python (PySliceBudget, the pure path's,
emutrace/machine/blockcount.py). Both must stop at the same block, before it runs, so that both
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
    elif native is None or not hasattr(native, "SliceBudget"):
        pytest.skip("the compiled event path is not built")
    m = Machine()
    m.uc.mem_map(CODE, 1 << 20)
    m.uc.mem_write(CODE, LOOP)
    return m


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_budget_stops_before_the_block_after_the_last(pure, monkeypatch):
    m = _machine(pure, monkeypatch)
    b = m.slice_budget()
    assert m.slice_budget() is b                # one hook per engine
    b.left = 10                                 # the first block (mov; inc; inc; loop) + 9 loop blocks
    m.uc.emu_start(CODE, 0)
    assert b.ran_out and b.left < 0
    assert m.reg("rip") == CODE + 7             # stopped at the start of the 11th block, not run
    assert m.uc.reg_read(UC_X86_REG_RAX) == 10 and m.uc.reg_read(UC_X86_REG_RBX) == 10
    b.left = 5
    assert not b.ran_out
    m.uc.emu_start(m.reg("rip"), 0)
    assert b.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 15


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_budget_off_stops_nothing(pure, monkeypatch):
    m = _machine(pure, monkeypatch)
    b = m.slice_budget()
    b.left = -1
    m.uc.emu_start(CODE, CODE + len(LOOP) - 1)
    assert not b.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 100


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_idle_count_stops_where_it_runs_out(pure, monkeypatch):
    """With the budget off, budget_off arms the idle count: the block that finds it spent stops
    emulation before it runs (idle_out), as a budget stops; drop_slice_budget then unhooks it, and
    the loop runs on with no hook and nothing stopping it."""
    m = _machine(pure, monkeypatch)
    monkeypatch.setattr(m, "budget_idle", 10)
    b = m.slice_budget()
    m.budget_off()
    assert b.left < 0 and b.idle == 10 and not b.idle_out
    m.uc.emu_start(CODE, 0)
    assert b.idle_out and not b.ran_out
    assert m.reg("rip") == CODE + 7 and m.uc.reg_read(UC_X86_REG_RAX) == 10
    m.drop_slice_budget()
    assert m.budget is None and m.budget_drops == 1
    m.uc.emu_start(m.reg("rip"), CODE + len(LOOP) - 1)
    assert m.uc.reg_read(UC_X86_REG_RAX) == 100      # (to the end: nothing counts blocks any more)
    b2 = m.slice_budget()                       # needed again: a new hook, and a longer idle count
    assert b2 is not b and m.budget_idle == 20
    b2.left = 3
    m.uc.reg_write(UC_X86_REG_RAX, 0)
    m.uc.emu_start(CODE, 0)
    assert b2.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 3


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_setting_left_or_idle_keeps_the_other_count(pure, monkeypatch):
    m = _machine(pure, monkeypatch)
    b = m.slice_budget()
    b.idle = 0                                  # (0 or less: never) the loop runs to its end
    b.left = -1
    m.uc.emu_start(CODE, CODE + len(LOOP) - 1)
    assert not b.idle_out and not b.ran_out and m.uc.reg_read(UC_X86_REG_RAX) == 100


def _bash_run(tmp_path, name, monkeypatch, idle=None):
    """bash forks seq for $(...), then runs a loop alone: the trace of an in-process run and the
    number of times the main process's machine dropped its budget hook."""
    from emutrace.options import parse
    from emutrace.session import Session
    from emutrace.tracer import build_observers
    if idle is not None:
        monkeypatch.setattr(Machine, "budget_idle", idle)
    out = tmp_path / name
    cfg = parse(["-o", str(out), "/bin/bash", "-c",
                 's=0; for i in $(seq 40); do s=$((s + i * i % 7)); done; echo "$s"'])
    session = Session(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
    sinks = build_observers(session, cfg)
    session.start()
    result = session.run()
    for s in sinks:
        s.close()
    assert result.status == 0
    return out.read_bytes(), session.processes[0].machine.budget_drops


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure"])
def test_a_process_alone_again_drops_the_hook_and_traces_the_same(pure, monkeypatch, tmp_path, capfd):
    """Once seq has ended, bash runs alone: with a short idle count its machine drops the budget
    hook (and hooks a new one if it forks again), and the trace is the same bytes as with a hook
    that is never dropped."""
    if pure:
        monkeypatch.setattr(cpu, "native", None)
    got, drops = _bash_run(tmp_path, "dropped.txt", monkeypatch, idle=20000)
    want, none = _bash_run(tmp_path, "kept.txt", monkeypatch, idle=1 << 62)
    assert drops >= 1 and none == 0
    assert got == want
    total = sum(i * i % 7 for i in range(1, 41))
    assert capfd.readouterr().out == f"{total}\n" * 2         # bash's own output, both runs
