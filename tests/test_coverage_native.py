"""--coverage's compiled block counter (emutrace/machine/_cover.c) and its Python reference
(emutrace/machine/blockcount.py) count the same blocks and write the same bytes.

Unit level: both counters on one engine running known code (exact counts, the table growing past
its first size, drain zeroing, a first() that raises stopping emulation, the engine freed while the
counter lives on). Program level: each program runs with the compiled path and with
EMUTRACE_PURE=1, and the drcov, lcov and text files must be byte-identical: bins/ programs that
fork, vfork, exec (system, popen), run threads and JIT code, and real programs (ls, sort)."""
from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys
import weakref
from types import SimpleNamespace

import pytest
from unicorn import unicorn_const as UCC
from unicorn.unicorn_py3.unicorn import uclib

from conftest import ROOT, built, emutrace
from emutrace.coverage import BlockRecorder
from emutrace.machine.blockcount import PyBlockCounter
from emutrace.machine.cpu import Machine, _address
from emutrace.machine.native import native

needs_native = pytest.mark.skipif(native is None, reason="the compiled event path is not built")

CODE = 0x400000
JMP_NEXT = b"\xeb\x00"                  # jmp to the next instruction: a block of 2 bytes


def _engine(code: bytes) -> Machine:
    m = Machine()
    m.uc.mem_map(CODE, 1 << 20)
    m.uc.mem_write(CODE, code + b"\xf4")        # (hlt: the end)
    return m


def _loop_code(distinct: int, rounds: int) -> bytes:
    """mov ecx, rounds; `distinct` chained 2-byte jmp blocks; dec ecx; jnz back to the chain.
    Blocks: CODE (mov + the first jmp) once, CODE+5 (the first jmp, re-entered) rounds - 1
    times, each later jmp and the dec/jnz block `rounds` times."""
    head = b"\xb9" + rounds.to_bytes(4, "little")
    body = JMP_NEXT * distinct + b"\xff\xc9"
    back = -(len(body) + 2)                                     # jnz rel8 back to CODE + 5
    if back >= -128:
        return head + body + b"\x75" + (back & 0xFF).to_bytes(1, "little")
    return head + body + b"\x0f\x85" + ((back - 4) & 0xFFFFFFFF).to_bytes(4, "little")


def _counts(kind, distinct, rounds):
    code = _loop_code(distinct, rounds)
    m = _engine(code)
    firsts = []
    if kind == "native":
        counter = native.BlockCounter(*_native_args(m, lambda a, s: firsts.append((a, s))))
        m.engine_hooks.attach(counter)
    else:
        counter = PyBlockCounter(lambda a, s: firsts.append((a, s)))
        m.hook_block(counter.on_block)
    m.uc.emu_start(CODE, CODE + len(code))
    return firsts, sorted(counter.drain()), counter


def _native_args(m, first):
    return (m.engine_hooks.hook_add_address, _address(uclib.uc_emu_stop), m._hc.value, UCC.UC_HOOK_BLOCK, first)


@needs_native
@pytest.mark.parametrize("distinct", [3, 5000])
def test_native_and_python_counters_agree_exactly(distinct):
    """5000 distinct blocks make the native table grow twice past its 4096 first slots."""
    rounds = 7
    got = {kind: _counts(kind, distinct, rounds) for kind in ("native", "python")}
    (nf, nc, ncounter), (pf, pc, _) = got["native"], got["python"]
    assert nf == pf and nc == pc
    assert ncounter.blocks == len(nf) and ncounter.lost == 0
    counts = dict(nc)
    later = [CODE + 5 + 2 * i for i in range(1, distinct)]
    assert counts == {CODE: 1, CODE + 5: rounds - 1, **{a: rounds for a in later},
                      CODE + 5 + 2 * distinct: rounds}
    assert dict(nf)[CODE] == 7 and all(dict(nf)[a] == 2 for a in later)


@needs_native
def test_a_full_table_counts_what_it_lost():
    """A table bounded to 2^12 slots holds 2048 blocks (half full): the others' executions are
    counted as lost, and the blocks it holds keep exact counts."""
    code = _loop_code(3000, 2)
    m = _engine(code)
    firsts = []
    counter = native.BlockCounter(*_native_args(m, lambda a, s: firsts.append(a)), 12)
    m.engine_hooks.attach(counter)
    m.uc.emu_start(CODE, CODE + len(code))
    counts = dict(counter.drain())
    assert counter.blocks == len(firsts) == len(counts) == 2048
    # 3002 distinct blocks: CODE once, CODE+5 once (re-entered in round 2), the 2999 later jmps
    # and the dec/jnz block twice each. The table takes the first 2048 of round 1; the other 953
    # of round 1 and CODE+5 are lost.
    assert counter.lost == 953 * 2 + 1
    assert all(n == (1 if a == CODE else 2) for a, n in counts.items())
    with pytest.raises(ValueError):
        native.BlockCounter(*_native_args(_engine(code), lambda a, s: None), 40)


def test_the_recorder_says_what_was_lost():
    said = []
    session = SimpleNamespace(kernel=SimpleNamespace(notify=said.append))
    rec = BlockRecorder(session.kernel.notify)
    row = [4, 0]
    counter = SimpleNamespace(drain=lambda: [(0x1000, 3)], lost=7)
    rec._counters.append((counter, {0x1000: row}))
    rec.drain()
    assert row == [4, 3]
    assert said == ["coverage: 7 block executions not recorded (the block table is full)"]


@needs_native
def test_drain_zeroes_and_keeps_the_blocks():
    code = _loop_code(10, 3)
    m = _engine(code)
    firsts = []
    counter = m.count_blocks(lambda a, s: firsts.append(a))
    assert type(counter) is native.BlockCounter
    m.uc.emu_start(CODE, CODE + len(code))
    first_drain = dict(counter.drain())
    assert counter.drain() == []
    m.set_reg("rip", CODE)
    m.uc.emu_start(CODE, CODE + len(code))                      # the same code again
    assert dict(counter.drain()) == first_drain
    assert len(firsts) == len(set(firsts)) == counter.blocks    # first once per block


@needs_native
def test_a_raising_first_stops_emulation_and_emu_start_raises_it():
    m = _engine(_loop_code(10, 3))

    def first(addr, size):
        raise ValueError("boom")
    m.count_blocks(first)
    with pytest.raises(ValueError, match="boom"):
        m.uc.emu_start(CODE, CODE + 100)


@needs_native
def test_the_counter_outlives_its_engine():
    code = _loop_code(10, 3)
    m = _engine(code)
    counter = m.count_blocks(lambda a, s: None)
    m.uc.emu_start(CODE, CODE + len(code))
    alive = weakref.ref(m)
    del m
    gc.collect()
    assert alive() is None                          # the counter does not keep the engine
    assert len(counter.drain()) == counter.blocks > 0


@needs_native
def test_a_cycle_through_the_counter_is_collected():
    m = _engine(_loop_code(10, 3))
    m.count_blocks(lambda a, s, m=m: None)          # first refers back to the machine
    alive = weakref.ref(m)
    del m
    gc.collect()
    assert alive() is None


def test_pure_machine_counts_with_the_python_hook():
    out = subprocess.run([sys.executable, "-c",
                          "from emutrace.machine.cpu import Machine\n"
                          "print(type(Machine().count_blocks(lambda a, s: None)).__name__)"],
                         capture_output=True, text=True, env=dict(os.environ, EMUTRACE_PURE="1"), cwd=ROOT)
    assert out.stdout == "PyBlockCounter\n", out.stderr


# -- whole programs: the same files from both paths -----------------------------------------------

def _coverage_both(tmp_path, fmt, argv, cwd=None):
    files = []
    for pure in ("0", "1"):
        out = tmp_path / f"cov-{pure}.{fmt}"
        r = emutrace(["--no-trace", "--coverage", str(out), "--coverage-format", fmt, *argv], cwd=cwd,
                     env={"EMUTRACE_PURE": pure})
        assert r.returncode == 0, r.stderr
        files.append((out.read_bytes(), r.stdout, r.stderr))
    return files


@needs_native
@pytest.mark.parametrize("prog,args", [("forkwait", []), ("system", []), ("threads", ["4"]), ("jit", []),
                                       ("qsort", []), ("signal", [])])
@pytest.mark.parametrize("fmt", ["drcov", "text"])
def test_bins_programs_same_file_both_paths(tmp_path, prog, args, fmt):
    (compiled, c_out, c_err), (pure, p_out, p_err) = _coverage_both(tmp_path, fmt, [built(prog), *args])
    assert compiled == pure and c_out == p_out and c_err == p_err
    assert len(compiled) > 1000


@needs_native
@pytest.mark.parametrize("prog", ["qsort", "forkwait"])
def test_lcov_same_file_both_paths(tmp_path, prog):
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    exe = tmp_path / prog
    subprocess.run(["gcc", "-g", "-O1", "-o", str(exe), str(ROOT / "bins" / f"{prog}.c")], check=True)
    (compiled, _, _), (pure, _, _) = _coverage_both(tmp_path, "lcov", [str(exe)])
    assert compiled == pure
    record = compiled.split(f"SF:{ROOT}/bins/{prog}.c\n".encode(), 1)[1].split(b"end_of_record", 1)[0]
    assert b"LH:0\n" not in record and b"DA:" in record        # the program's own lines ran


@needs_native
@pytest.mark.parametrize("fmt", ["drcov", "text"])
def test_real_programs_same_file_both_paths(tmp_path, fmt):
    words = tmp_path / "words.txt"
    words.write_text("".join(f"w{(i * 7919) % 1000}\n" for i in range(2000)))
    for argv in (["/usr/bin/sort", str(words)], ["/bin/ls", "-l", "/usr"]):
        (compiled, c_out, _), (pure, p_out, _) = _coverage_both(tmp_path, fmt, argv)
        assert compiled == pure and c_out == p_out
        assert b"libc.so.6" in compiled
