"""Malformed programs and missing files: one clear line, a documented status, never a traceback."""
import os
import shutil
import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT, built, emutrace

HELLO = ROOT / "bins" / "prebuilt" / "hello-static"


def run_bad(path, status, needle):
    e = emutrace(["--no-trace", str(path)])
    err = e.stderr.decode()
    assert e.returncode == status, err
    assert err.startswith("emutrace: ") and err.count("\n") == 1, err
    assert needle in err, err
    assert "Traceback" not in err


def patched(tmp_path, name, mutate, src=HELLO):
    data = bytearray(src.read_bytes())
    mutate(data)
    p = tmp_path / name
    p.write_bytes(bytes(data))
    os.chmod(p, 0o755)
    return p


def test_missing_file(tmp_path):
    run_bad(tmp_path / "nope", 127, "No such file or directory")


def test_directory(tmp_path):
    run_bad(tmp_path, 126, "is a directory")


def test_not_executable(tmp_path):
    p = tmp_path / "x"
    shutil.copy(HELLO, p)
    os.chmod(p, 0o644)
    run_bad(p, 126, "not executable")


def test_not_elf(tmp_path):
    p = patched(tmp_path, "text", lambda d: d.__setitem__(slice(0, 4), b"junk"))
    run_bad(p, 126, "not an ELF file")


def test_truncated(tmp_path):
    p = tmp_path / "trunc"
    p.write_bytes(HELLO.read_bytes()[:40])
    os.chmod(p, 0o755)
    run_bad(p, 126, "truncated")


def test_truncated_segment(tmp_path):
    p = tmp_path / "trunc2"
    p.write_bytes(HELLO.read_bytes()[:2000])
    os.chmod(p, 0o755)
    run_bad(p, 126, "past the end of the file")


def test_32_bit(tmp_path):
    run_bad(patched(tmp_path, "elf32", lambda d: d.__setitem__(4, 1)), 126, "32-bit")


def test_wrong_machine(tmp_path):
    run_bad(patched(tmp_path, "arm", lambda d: d.__setitem__(slice(18, 20), struct.pack("<H", 183))), 126,
            "not x86-64")


def _phdr(data, i):
    phoff = struct.unpack_from("<Q", data, 32)[0]
    return phoff + 56 * i


def _first_load(data):
    phnum = struct.unpack_from("<H", data, 56)[0]
    for i in range(phnum):
        if struct.unpack_from("<I", data, _phdr(data, i))[0] == 1:
            return _phdr(data, i)
    raise AssertionError("no PT_LOAD")


def test_bogus_program_headers(tmp_path):
    run_bad(patched(tmp_path, "phoff", lambda d: d.__setitem__(slice(32, 40), struct.pack("<Q", 1 << 40))), 126,
            "bad program header table")


def test_huge_segment(tmp_path):
    def mutate(d):
        off = _first_load(d)
        struct.pack_into("<Q", d, off + 40, 1 << 46)        # p_memsz
    run_bad(patched(tmp_path, "huge", mutate), 126, "bad PT_LOAD")


def test_overlapping_segments(tmp_path):
    def mutate(d):
        phnum = struct.unpack_from("<H", d, 56)[0]
        loads = [_phdr(d, i) for i in range(phnum) if struct.unpack_from("<I", d, _phdr(d, i))[0] == 1]
        first_vaddr = struct.unpack_from("<Q", d, loads[0] + 16)[0]
        first_off = struct.unpack_from("<Q", d, loads[0] + 8)[0]
        second_off = struct.unpack_from("<Q", d, loads[1] + 8)[0]
        # keep the page congruence, move the second segment onto the first
        struct.pack_into("<Q", d, loads[1] + 16, first_vaddr + ((second_off - first_off) & 0xFFF))
    run_bad(patched(tmp_path, "overlap", mutate), 126, "overlapping")


def test_wild_entry_point(tmp_path):
    run_bad(patched(tmp_path, "wild", lambda d: struct.pack_into("<Q", d, 24, 0xDEAD0000)), 126,
            "entry point")


def test_missing_interpreter(tmp_path):
    src = built("strings", "pie")
    data = bytearray(open(src, "rb").read())
    i = data.find(b"/lib64/ld-linux-x86-64.so.2")
    data[i:i + 27] = b"/nonexistent/ld-missing.so\0"
    p = tmp_path / "nointerp"
    p.write_bytes(bytes(data))
    os.chmod(p, 0o755)
    run_bad(p, 127, "No such file or directory")


def test_looping_interpreter(tmp_path):
    """A program that names itself as its interpreter (inside a --root, so the path is short)."""
    src = built("strings", "pie")
    data = bytearray(open(src, "rb").read())
    i = data.find(b"/lib64/ld-linux-x86-64.so.2")
    data[i:i + 27] = b"/loop".ljust(27, b"\0")
    p = tmp_path / "loop"
    p.write_bytes(bytes(data))
    os.chmod(p, 0o755)
    e = emutrace(["--no-trace", "--root", str(tmp_path), "--cwd", "/", "/loop"])
    err = e.stderr.decode()
    assert e.returncode == 126 and err.startswith("emutrace: ") and "not a dynamic linker" in err, err


def test_usage_errors():
    e = emutrace([])
    assert e.returncode == 125 and e.stderr.startswith(b"emutrace: no program")
    e = emutrace(["--bogus", "x"])
    assert e.returncode == 125 and b"unknown option" in e.stderr
    e = emutrace(["-s", "abc", "x"])
    assert e.returncode == 125 and b"-s takes a number" in e.stderr


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)), min_size=1, max_size=12),
       st.integers(64, 70000))
def test_loader_fuzz_raises_only_elferror(mutations, cut):
    """Random byte flips and truncations of a real program: the ELF model either parses or
    raises ElfError; exec either maps it or raises ExecError. Nothing else escapes."""
    from emutrace.loader.elf import ElfError, parse_elf
    from emutrace.loader.exec import ExecError, check_entry
    data = bytearray(HELLO.read_bytes())
    for off, val in mutations:
        if off < len(data):
            data[off] = val
    data = bytes(data[:cut])
    try:
        elf = parse_elf("fuzz", data)
        check_entry(elf)
        elf.span()
        elf.functions()
    except (ElfError, ExecError):
        pass


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 255)), min_size=1, max_size=6))
def test_exec_fuzz_header_only_own_errors(mutations):
    """Header mutations run through a whole Session start: only EmutraceError may escape."""
    import tempfile
    from emutrace.session import EmutraceError, Options, Run
    data = bytearray(HELLO.read_bytes())
    for off, val in mutations:
        data[off] = val
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "prog")
        with open(p, "wb") as f:
            f.write(data)
        os.chmod(p, 0o755)
        s = Run([p], options=Options(cwd=d, max_insns=0))
        try:
            s.start()
        except EmutraceError:
            pass
