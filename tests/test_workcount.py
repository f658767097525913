"""The engine's count of retired instructions (emutrace/machine/workcount.py, _insncount.c): exact at
every kind of stop, against Unicorn's own one-instruction steps as the reference, on both paths."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from unicorn import UcError

from emutrace.machine.cpu import Machine
from emutrace.machine.workcount import run_to

# /tmp/clk/t.s linked at 0x401000 (text) / 0x403000 (data): nested loops (7 × 50), a `rep movsb`
# of 13 bytes, a `syscall` on odd outer rounds, then a read of unmapped 0x10 (a fault).
#   _start: mov rcx, 50
#   outer:  mov rdx, 7
#   inner:  add rax, rdx; imul rbx, rax, 3; dec rdx; jnz inner
#           lea rsi, [src]; lea rdi, [dst]; push rcx; mov rcx, 13; rep movsb; pop rcx
#           xor r8, rax; test rcx, 1; jz even; syscall
#   even:   mov r9, [dst]; add r9, rcx; dec rcx; jnz outer
#           mov r10, [0x10]; hlt
CODE = bytes.fromhex(
    "48c7c13200000048c7c2070000004801d0486bd80348ffca75f4488d35df1f0000488d3df21f0000"
    "5148c7c10d000000f3a4594931c048f7c10100000074020f054c8b0dd21f00004901c948ffc975b7"
    "4c8b142510000000f4")
TEXT, DATA, STACK = 0x401000, 0x403000, 0x7F0000
IMUL = TEXT + 0x11           # the second instruction of the inner loop's block
FAULT = TEXT + 0x50


def machine(stop_at_syscall=False):
    m = Machine()
    m.uc.mem_map(TEXT, 0x1000, 5)
    m.uc.mem_map(DATA, 0x1000, 3)
    m.uc.mem_map(STACK, 0x10000, 3)
    m.write(TEXT, CODE)
    m.write(DATA, b"abcdefghijklmnopqrstuvwxyz")
    m.set_reg("rsp", STACK + 0x8000)
    m.set_reg("rip", TEXT)

    def on_syscall(*regs):
        if stop_at_syscall:
            m.uc.emu_stop()
        return 0
    m.hook_syscall(on_syscall)
    return m


def reference():
    """rip after each one-instruction step, from the start to the fault: ref[k] is rip when k
    instructions retired."""
    m = machine()
    ref = [TEXT]
    while True:
        try:
            m.emu_start(m.reg("rip"), 0, count=1)
        except UcError:
            break
        ref.append(m.reg("rip"))
        assert m.counter.total == len(ref) - 1, "a one-instruction step counts one"
    return ref


@pytest.fixture(scope="module")
def ref():
    r = reference()
    assert r[-1] == FAULT and len(r) > 2000
    return r


def test_a_whole_run_counts_what_single_steps_count(ref):
    m = machine()
    with pytest.raises(UcError):
        m.emu_start(TEXT, 0)
    assert m.reg("rip") == FAULT
    assert m.counter.total == len(ref) - 1          # the faulting read did not retire


def test_a_stop_in_a_system_call_hook_is_exact(ref):
    m = machine(stop_at_syscall=True)
    seen = []
    while True:
        m.emu_start(m.reg("rip"), 0)
        rip = m.reg("rip")
        if rip == FAULT or not seen or seen[-1] != m.counter.total:
            seen.append(m.counter.total)
        assert ref[m.counter.total] == rip
        if len(seen) >= 5:
            break
    assert len(set(seen)) == 5


def test_a_code_hook_that_stops_mid_block_is_exact(ref):
    m = machine()
    hits = []

    def at_imul(addr):
        hits.append(addr)
        if len(hits) in (3, 40, 41):
            m.uc.emu_stop()
    m.hook_code(at_imul, IMUL, IMUL)
    moments = [i for i, r in enumerate(ref) if r == IMUL]
    # a run resumed at the hooked instruction calls its hook again, at the same moment: hit 3 is
    # the third moment, hit 40 the 39th, and hit 41 (resumed there) the 39th again
    for occurrence in (3, 39, 39):
        m.emu_start(m.reg("rip"), 0)
        assert m.reg("rip") == IMUL
        assert m.counter.total == moments[occurrence - 1]


@pytest.mark.parametrize("step", [1, 7, 100, 997])
def test_run_to_reaches_every_count_exactly(ref, step):
    m = machine()
    for k in range(0, len(ref) - 1, step):
        assert run_to(m, k)
        assert m.counter.total == k and m.reg("rip") == ref[k], k


def test_stop_at_alone_ends_at_a_block_start_at_or_before_the_count(ref):
    m = machine()
    m.counter.stop_at = 1000
    m.emu_start(TEXT, 0)
    assert m.counter.ran_out
    k = m.counter.total
    assert k <= 1000 and ref[k] == m.reg("rip")


def test_skipped_code_is_not_counted(ref):
    m = machine()
    m.counter.skip(TEXT + 0xE, TEXT + 0x1A)          # the inner loop's block
    with pytest.raises(UcError):
        m.emu_start(TEXT, 0)
    # blocks that start in the range: the inner loop's first round runs in the block that starts
    # at `outer`, its other six in the block at `inner` (4 instructions), 50 times
    assert m.counter.total == len(ref) - 1 - 50 * 6 * 4


def test_the_pure_counter_counts_the_same():
    code = ("from tests.test_workcount import *\n"
            "r = reference(); m = machine()\n"
            "import unicorn\n"
            "try: m.emu_start(TEXT, 0)\n"
            "except unicorn.UcError: pass\n"
            "print(type(m.counter).__name__, len(r) - 1, m.counter.total)\n"
            "assert run_to(machine(), 1234)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "EMUTRACE_PURE": "1"}, cwd=root,
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[0] == "PyInsnCounter" and out[1] == out[2]


def _slice_end(pure: bool, read_between: bool = False):
    """(total, rip) where an overshoot stop_at of 1500 ends the run, in this process (compiled)
    or in a pure-path child; read_between reads the count at every syscall (a reader)."""
    code = ("from tests.test_workcount import *\n"
            f"m = machine()\n"
            f"if {read_between}:\n"
            "    seen = []\n"
            "    m.hook_syscall(lambda *r: seen.append(m.counter.total) or 0)\n"
            "m.counter.overshoot = True\n"
            "m.counter.stop_at = 1500\n"
            "m.emu_start(TEXT, 0)\n"
            "print(m.counter.ran_out, m.counter.total, m.reg('rip'))\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "EMUTRACE_PURE": "1" if pure else "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True,
                         check=True).stdout.split()
    return out[0], int(out[1]), int(out[2])


def test_a_slice_ends_at_a_stop_check_the_same_on_both_paths_and_whoever_reads(ref):
    """overshoot: stop_at is tested at every CHECK_PERIOD-th block entered (the compiled counter
    counts its blocks in batches), so a slice ends at the same block on both paths, and a
    reader of the count in between (a syscall hook here) does not move it."""
    from emutrace.machine.workcount import CHECK_PERIOD
    compiled = _slice_end(False)
    assert compiled[0] == "True" and compiled[1] >= 1500 and ref[compiled[1]] == compiled[2]
    assert _slice_end(True) == compiled
    assert _slice_end(False, read_between=True) == compiled
    assert _slice_end(True, read_between=True) == compiled
    # the check came at a multiple of CHECK_PERIOD blocks: no later than that many blocks past it
    assert compiled[1] - 1500 < CHECK_PERIOD * 20


def _positions(pure: bool):
    """[(position, rip)] where the run's Positions called back, asked for 0, 1, 2, 500 and 1999."""
    code = ("from tests.test_workcount import *\n"
            "from emutrace.machine.workcount import new_positions\n"
            "from emutrace.machine.native import native\n"
            "import unicorn\n"
            "m = machine(); got = []; wants = [1, 2, 500, 1999]\n"
            "def due(address):\n"
            "    got.append((p.count, address))\n"
            "    if wants: p.stop_at = wants.pop(0)\n"
            "p = new_positions(due, native is not None)\n"
            "p.stop_at = 0\n"
            "m.watch_positions(p)\n"
            "try: m.emu_start(TEXT, 0)\n"
            "except unicorn.UcError: pass\n"
            "print(got, p.count, m.counter.total)\n")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "EMUTRACE_PURE": "1" if pure else "0"}
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True,
                          check=True).stdout


def test_positions_are_the_counters_count_on_both_paths(ref):
    """The debugger's positions (InsnCounter.watch): the callback for position p runs before the
    instruction that p instructions retired before, which is ref[p]; count afterwards is the
    position where the run stopped: before the faulting read, which did not retire."""
    out = _positions(False)
    got, count, total = eval(out.rsplit("]", 1)[0] + "]"), *map(int, out.rsplit("]", 1)[1].split())
    assert got == [(p, ref[p]) for p in (0, 1, 2, 500, 1999)]
    assert total == len(ref) - 1 and count == total
    assert _positions(True) == out
