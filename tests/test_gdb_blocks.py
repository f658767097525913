"""emutrace --gdb counts by blocks and hooks single instructions only where a stop falls
(emutrace/machine/_positions.h, docs/gdb.md "How stops work"): stops inside a block, a
breakpoint gdb sets in the block it is stopped in, and a watchpoint's store in the middle of a
block (a replay back to the instruction after it) must stop exactly where the pure path's hook on
every instruction stops, and where the hook on every instruction stops without checkpoints."""
from __future__ import annotations

import re
import shutil

import pytest

from conftest import built
from test_gdb import GDBPROG, gdb_session

pytestmark = pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")

PURE = {"EMUTRACE_PURE": "1"}
NO_CHECKPOINTS = {"EMUTRACE_GDB_CHECKPOINTS": "0"}

# a breakpoint two instructions on from where gdb stands (inside the block it is stopped in)
BREAK_AHEAD = ("python f = gdb.selected_frame(); i = f.architecture().disassemble(f.pc(), count=3); "
               "gdb.execute('break *%d' % i[2]['addr'])")


@pytest.fixture(scope="module")
def prog():
    return built(GDBPROG)


def _three(prog, args, script):
    """The session on the compiled path, the pure path, and the compiled path without
    checkpoints."""
    return [gdb_session(prog, args, script, env=env) for env in ({}, PURE, NO_CHECKPOINTS)]


def test_breakpoint_set_in_the_block_gdb_is_stopped_in(prog):
    script = ["break work", "continue", "monitor when", BREAK_AHEAD, "continue", "monitor when",
              "info registers rip", "stepi", "stepi", "monitor when", "info registers rip", "kill"]
    compiled, pure, plain = _three(prog, ["libcall"], script)
    assert compiled == pure == plain, (compiled, pure)
    at = [int(x) for x in re.findall(r"position (\d+)", compiled)]
    assert len(at) == 3 and at[1] == at[0] + 2 and at[2] == at[1] + 2, compiled
    assert "Breakpoint 2, " in compiled, compiled


def test_steps_inside_blocks(prog):
    """stepi from a breakpoint in the middle of a block, and into the blocks after it."""
    script = ["break work", "continue"] + ["stepi"] * 12 + ["monitor when", "info registers rip rax",
                                                        "reverse-stepi", "reverse-stepi", "monitor when", "kill"]
    compiled, pure, plain = _three(prog, ["libcall"], script)
    assert compiled == pure == plain, (compiled, pure)
    at = [int(x) for x in re.findall(r"position (\d+)", compiled)]
    assert len(at) == 2 and at[1] == at[0] - 2, compiled


def test_watchpoint_store_in_the_middle_of_a_block(prog):
    """`acc +=` stores in the middle of the loop's block: the stop is at the instruction after
    the store, its Old/New values those of the store, hit after hit (on the compiled path with
    checkpoints, each hit is a replay back from the next block)."""
    script = ["break work", "continue", "watch acc", "continue", "monitor when", "continue", "continue",
              "monitor when", "info registers rip", "print i", "kill"]
    compiled, pure, plain = _three(prog, ["libcall"], script)
    assert compiled == pure == plain, (compiled, pure)
    assert compiled.count("Old value = ") == 3, compiled
    at = [int(x) for x in re.findall(r"position (\d+)", compiled)]
    assert len(at) == 2 and at[1] > at[0], compiled


def test_position_at_a_fault(prog):
    """At a SIGSEGV stop the faulting instruction has not run: the position is before it, and
    reverse-stepi goes to the instruction before it, on both paths."""
    script = ["continue", "monitor when", "info registers rip", "reverse-stepi", "monitor when",
              "info registers rip", "kill"]
    compiled, pure, plain = _three(prog, ["corrupt"], script)
    assert compiled == pure == plain, (compiled, pure)
    at = [int(x) for x in re.findall(r"position (\d+)", compiled)]
    rips = re.findall(r"rip\s+(0x[0-9a-f]+)", compiled)
    assert "SIGSEGV" in compiled and len(at) == 2 and at[1] == at[0] - 1 and rips[0] != rips[1], compiled
