"""strace's fast path for a traced system call: the compiled module's rows (_strace.c's StraceRow)
print what the Python rows print, byte for byte (hypothesis: every row it renders, random words,
results, guest memory and string limits, odd input too), and a line written straight to the
writer (SyscallObserver's lines) is the line StraceText.event prints from the event."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, built
from emutrace.decode.strace import SyscallFormatter, quote_string
from emutrace.decode.strace.formatter import _compile_row
from emutrace.kernel.table import BY_NAME
from emutrace.machine.cpu import Machine
from emutrace.machine.memory import AddressSpace
from emutrace.machine.native import native
from emutrace.systrace import SyscallObserver
from emutrace.traceview import CompiledTraceMem, TraceMem

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

needs_native = pytest.mark.skipif(native is None, reason="the compiled event path is not built")

BASE = 0x10000
LIMITS = [0, 1, 2, 5, 8, 32]


class Mem:
    """Guest memory at BASE; `answer` says how read answers: bytes, a bytearray, None, a short
    read, or an exception."""

    def __init__(self, data, answer="bytes"):
        self.data = data
        self.answer = answer

    def read(self, addr, size):
        if self.answer == "raise":
            raise ValueError("unreadable")
        o = addr - BASE
        if o < 0 or o + size > len(self.data):
            return None
        got = self.data[o:o + size]
        if self.answer == "bytearray":
            return bytearray(got)
        if self.answer == "short":
            return got[:-1]
        if self.answer == "long":
            return got + b"!"
        return got

    def cstring(self, addr, limit):
        return None


def _rows():
    f = SyscallFormatter()
    return sorted((r for r in BY_NAME.values() if (c := _compile_row(f, r)) is not None and c.begin is not c.py_begin),
                  key=lambda r: r.nr)


NATIVE_ROWS = _rows() if native is not None else []
BUFFER_ROWS = [r for r in NATIVE_ROWS if any(k.startswith(("buf_in", "buf_out")) for k in r.args)]

WORDS = st.one_of(st.sampled_from([0, 1, 2, 3, 7, 8, 31, 32, 33, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                   (1 << 64) - 1, (1 << 63), (1 << 64) - 4095, (1 << 64) - 4096]),
                  st.integers(BASE, BASE + 64), st.integers(BASE, BASE + 300), st.integers(0, 40),
                  st.integers(0, (1 << 64) - 1))
RESULTS = st.one_of(st.integers(-140, 64), st.integers(0, 40), st.sampled_from([-512, -516, -4095, -4096, -5000, 0x80000000, 0x7FFFFFFF]),
                    st.integers(-(1 << 63), (1 << 63) - 1), st.integers(0, (1 << 64) - 1))
DATA = st.one_of(st.binary(min_size=0, max_size=300),
                 st.lists(st.sampled_from([0, 9, 10, 34, 48, 55, 56, 92, 65, 127, 128, 255, 1, 12, 13, 11]),
                          min_size=100, max_size=300).map(bytes))


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:          # (the same exception from both)
        return ("raised", type(e).__name__, str(e))


@needs_native
def test_the_compiled_module_renders_the_common_rows():
    """Not a vacuous comparison: read, write, close and their like have a compiled row."""
    assert {"read", "write", "close", "pread64", "pwrite64", "dup2"} <= {r.name for r in NATIVE_ROWS}


@needs_native
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_compiled_rows_print_as_the_python_rows(data):
    row = data.draw(st.sampled_from(BUFFER_ROWS) if data.draw(st.booleans()) else st.sampled_from(NATIVE_ROWS))
    limit = data.draw(st.sampled_from(LIMITS))
    c = _compile_row(SyscallFormatter(string_limit=limit), row)
    words = tuple(data.draw(WORDS) for _ in range(6))
    odd = data.draw(st.sampled_from(["tuple"] * 8 + ["list", "negative", "short", "bool"]))
    args = {"tuple": words, "list": list(words), "negative": tuple(w - (1 << 64) for w in words),
            "short": words[:3], "bool": (True,) + words[1:]}[odd]
    answer = data.draw(st.sampled_from(["bytes"] * 6 + ["bytearray", "none", "short", "long", "raise"]))
    mem = Mem(data.draw(DATA), answer if answer != "none" else "bytes")
    if answer == "none":
        mem = Mem(b"")
    mem2 = Mem(data.draw(DATA), answer) if data.draw(st.booleans()) else mem
    ret = data.draw(RESULTS)
    got, want = _outcome(c.begin, args, mem), _outcome(c.py_begin, args, mem)
    assert got == want, (row.name, args, limit)
    if want[0] == "raised":
        return
    entry, kept = want
    fin = _outcome(c.py_finish, entry, kept, ret, mem2)
    assert _outcome(c.finish, entry, kept, ret, mem2) == fin, (row.name, args, ret, limit)
    # (the kept values are laid out alike: either half may follow the other's)
    assert _outcome(c.finish, *got, ret, mem2) == fin
    assert _outcome(c.py_finish, *got, ret, mem2) == fin
    # the whole written line of a plain numeric result: StraceText's line of the same head and
    # text, or None (finish's pair then makes it)
    line = _outcome(c.line, entry, kept, ret, mem2)
    if line is not None:
        assert fin[0] != "raised" and line == f"{fin[0].ljust(39)} = {fin[1]}\n", (row.name, args, ret, limit)


@needs_native
def test_a_plain_result_has_its_whole_line():
    """Not a vacuous comparison: read's row gives the line itself; a failed call's is None."""
    c = _compile_row(SyscallFormatter(), BY_NAME["read"])
    entry, kept = c.begin((3, BASE, 5, 0, 0, 0), Mem(b"hello"))
    assert c.line(entry, kept, 5, Mem(b"hello")) == 'read(3, "hello", 5)'.ljust(39) + " = 5\n"
    assert c.line(entry, kept, -2, Mem(b"hello")) is None


@needs_native
@settings(max_examples=500, deadline=None)
@given(DATA)
def test_compiled_quoting_is_strace_quoting(b):
    assert native.strace_quote(b) == quote_string(b)


def test_pure_python_has_no_compiled_rows():
    r = subprocess.run([sys.executable, "-c",
                        "from emutrace.decode.strace.formatter import _compile_row, SyscallFormatter\n"
                        "from emutrace.kernel.table import BY_NAME\n"
                        "c = _compile_row(SyscallFormatter(), BY_NAME['read'])\n"
                        "print(c.begin is c.py_begin and c.finish is c.py_finish and c.line is None)"],
                       capture_output=True, env=dict(os.environ, EMUTRACE_PURE="1"), cwd=str(ROOT))
    assert r.stdout == b"True\n", r.stderr


class _Session:
    kernel = None

    class world:
        elapsed_ns = 0


def test_the_line_path_is_off_while_something_adds_to_a_line():
    lines = []
    obs = SyscallObserver(_Session(), lambda ev: None, lines=lines.append)
    assert obs.write_line == lines.append
    for extra in ("gate", "marker", "backtracer"):
        obs.configure(**{extra: object()})
        assert obs.write_line is None
        obs.configure(**{extra: None})
        assert obs.write_line == lines.append
    assert SyscallObserver(_Session(), lambda ev: None).write_line is None
    with pytest.raises(TypeError):
        obs.configure(colour=True)          # (a misspelt setting is not silently kept)


@pytest.mark.parametrize("pure", ["0", "1"])
@pytest.mark.parametrize("prog,args", [("files", []), ("strings", []), ("bigio", [])])
def test_lines_written_straight_are_the_event_lines(prog, args, pure, tmp_path):
    """--strace -o FILE writes the lines itself; with a second sink (--folded) every call goes
    through its event and StraceText.event: the same file."""
    path = built(prog, "pie")
    out = []
    for extra in ([], ["--folded", str(tmp_path / "folded")]):
        trace = tmp_path / f"trace{len(out)}"
        subprocess.run([sys.executable, "-m", "emutrace", "--strace", "-o", str(trace), *extra, path, *args],
                       cwd=str(tmp_path), env=dict(os.environ, EMUTRACE_PURE=pure),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        out.append(trace.read_bytes())
    assert out[0].count(b"\n") > 20
    assert out[0] == out[1]


@needs_native
@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-8, 40), st.sampled_from([0, 1, 2, 3, 4, 7])), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(-3 * 4096, 12 * 4096), st.integers(-2, 5000)), min_size=1, max_size=30))
def test_the_compiled_memory_view_reads_as_the_python_one(maps, reads):
    """CompiledTraceMem.read (_strace.c's MappedReader) against TraceMem.read: random mappings
    (some not readable), random reads across and beside them."""
    m = Machine()
    a = AddressSpace(m.uc, 1 << 30)
    a.use_machine(m)
    base = 0x7F0000000000
    for page, prot in maps:
        if page >= 0 and a.find(base + page * 4096) is None:
            a.map(base + page * 4096, 4096, prot, "p")
            if prot & 2:
                a.write(base + page * 4096, bytes([page]) * 4096)
    compiled, pure = CompiledTraceMem(a, m), TraceMem(a, m)
    for off, size in reads:
        assert compiled.read(base + off, size) == pure.read(base + off, size), (off, size)
