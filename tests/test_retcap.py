"""Values the guest call log copies at the return (emutrace.guestlog's output copy) against the
hooked path and the pure-Python path.

Strings as long as the returned value says (read, pread, readlink, wcstombs: `+string[retval]`;
mbstowcs: `+wstring[retval]`) and the strings shown at the return beside them (mbstowcs's and
wcstombs's sources), sets of bits in and out (sigprocmask's sigset_t), and structures
returned in rax:rdx (div, ldiv, lldiv, the C++ _Prime_rehash_policy::_M_need_rehash) print, logged,
exactly what `--hook-returns` prints and what EMUTRACE_PURE=1 prints, byte for byte: with wild
pointers, huge returned lengths (-1) and buffers ending at the end of a mapping (bins/retcap.c),
and in real programs. The calls are logged in guest code, not hooked.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from conftest import built, emutrace, native, status_of, system_program
from test_guestlog import _fast_sites as fast_sites_of, _run_in_process
from emutrace.guestlog import (IN_CSTR, IN_WSTR, OUTLEN_32, OUTLEN_WIDE, RET_OUTLEN, RET_PAIR, _outlen_kind,
                               capture_plan)
from emutrace.protos import load_prototypes, parse_conf
from emutrace.values import CallFormatter


def _run(tmp_path, name, args, extra=(), env=None, cwd=None):
    out = tmp_path / name
    r = emutrace([*extra, "-o", str(out), *args], env=env, cwd=cwd)
    assert b"Traceback" not in r.stderr, r.stderr.decode(errors="replace")
    return r, out.read_text(errors="replace")


def _same_three_ways(tmp_path, exe) -> str:
    """exe's trace, the same logged, hooked and pure, its output the native run's (status 0)."""
    log, hooked, pure = _three(tmp_path, [exe])
    assert log == hooked == pure
    n = native([exe])
    e = emutrace(["-o", "/dev/null", exe])
    assert e.stdout == n.stdout and status_of(e) == status_of(n) == 0
    return log


def _three(tmp_path, args, cwd=None):
    """The trace logged (compiled renderer), hooked, and logged by the pure-Python path; the
    program's output and status must be the same in all three."""
    got = [_run(tmp_path, "log.txt", args, cwd=cwd),
           _run(tmp_path, "hooked.txt", args, ("--hook-returns",), cwd=cwd),
           _run(tmp_path, "pure.txt", args, env={"EMUTRACE_PURE": "1"}, cwd=cwd)]
    for r, _ in got[1:]:
        assert status_of(r) == status_of(got[0][0])
        assert r.stdout == got[0][0].stdout
    return [t for _, t in got]


# GLOB_DAT slots of functions handed to __cxa_atexit or __cxa_throw point at a trampoline in one
# mode and at a jump stub in the other (as in test_guestlog)
_REDIRECTED = re.compile(r"^(__cxa_atexit|__cxa_throw)\(.*$", re.M)


def _mask_redirected(text):
    return _REDIRECTED.sub(lambda mo: re.sub(r"0x[0-9a-f]+", "F", mo.group(0)), text)


@pytest.mark.parametrize("variant", ["pie", "nopie", "fnoplt"])
def test_edges_print_the_hooked_trace(tmp_path, variant):
    exe = built("retcap", variant)
    log = _same_three_ways(tmp_path, exe)
    # what the edges look like (the hooked path's rendering, kept)
    for want in (r'read\(3, "hello\\n", 6\) += 6',
                 r'read\(3, 0x[0-9a-f]+, 6\) += 6',                    # the byte after it unreadable
                 r'read\(3, "a", 256\) += 3',
                 r'read\(-1, "0123456789abcdefghijklmnopqrstuv"\.\.\., 256\) += -1',      # huge length
                 r'read\(-1, 0x10, 64\) += -1', r'read\(-1, nil, 64\) += -1',
                 r'read\(-1, 0x[0-9a-f]+, 3\) += -1', r'read\(3, "", 256\) += 0',
                 r'pread\(4, "\\177ELF", 4, 0\) += 4', r'readlink\("/proc/self/exe", "%s", 3\) += 3' % re.escape(exe[:3]),  # the executable's path
                 r'mbstowcs\(L"ab", "abc", 2\) += 2', r'mbstowcs\(nil, "counted", 0\) += 7',
                 r'mbstowcs\(L"ab", 0x[0-9a-f]+, 2\) += 2', r'wcstombs\("xy", L"xy", 2\) += 2',  # sources at the edge
                 r'sigprocmask\(SIG_BLOCK, <9,14>, <>\) += 0', r'signalfd\(-1, 0x10, 0\) += -1',
                 r'signalfd\(-1, <1,9>, 0\) += \d+', r'sigprocmask\(SIG_UNBLOCK, ~<8,31-32>, <1,9>\) += 0',
                 r'div\(47, 5\) += \{ 9, 2 \}', r'ldiv\(-1000000000000, 7\) += \{ -142857142857, -1 \}',
                 r'lldiv\(123456789012345, -1000\) += \{ -123456789012, 345 \}'):
        assert re.search("^" + want + "$", log, re.M), want


def _fast_sites(tmp_path, args):
    """The sites logged in guest code in a run of args (name -> FastSite)."""
    run = _run_in_process(["-o", str(tmp_path / "t.txt"), *args])
    assert run[1].status == 0
    return fast_sites_of(run)


def test_the_calls_are_logged_in_guest_code(tmp_path):
    fast = _fast_sites(tmp_path, [built("retcap")])
    assert fast["read"].ret_kind == RET_OUTLEN and fast["readlink"].ret_kind == RET_OUTLEN
    assert fast["sigprocmask"].out is not None and fast["sigprocmask"].strings      # the set copied at the call
    assert fast["ldiv"].ret_kind == RET_PAIR and fast["div"].ret_kind == RET_PAIR
    # mbstowcs's source and wcstombs's are shown at the return: copied there with the output
    assert fast["mbstowcs"].ret_kind == RET_OUTLEN | OUTLEN_WIDE | IN_CSTR
    assert fast["wcstombs"].ret_kind == RET_OUTLEN | IN_WSTR
    for name in ("read", "pread", "readlink", "sigprocmask", "sigemptyset", "sigaddset", "signalfd", "ldiv",
                 "lldiv", "mbstowcs", "wcstombs"):
        assert name in fast, name


def test_capture_plans_of_the_database():
    """What the database's prototypes become: the output copy's kind follows the return type
    (a 4-byte length read as 32 bits), and what the log cannot copy stays hooked."""
    fmt = CallFormatter()
    db = load_prototypes()
    for name in ("read", "pread", "readlink", "sigprocmask", "sigemptyset", "mbstowcs", "wcstombs",
                 "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm", "ldiv"):
        assert capture_plan(fmt.plan(db.get(name)), 4 * 33) is not None, name
    conf = parse_conf("int f(+string[retval], ulong);\nlong g(+wstring[retval]);\n"
                      "struct(double, long) h(int);\nstruct(long, long, long) k(int);\n"
                      "struct(string, long) q(int);\nlong r(+string[retval], string, string);\n", "t.conf")
    assert _outlen_kind(fmt.plan(conf.get("f"))) == RET_OUTLEN | OUTLEN_32
    assert _outlen_kind(fmt.plan(conf.get("g"))) == RET_OUTLEN | OUTLEN_WIDE
    assert fmt.plan(conf.get("h")) is None          # an SSE eightbyte: the generic path
    assert fmt.plan(conf.get("k")) is None          # returned in memory
    assert fmt.plan(conf.get("q")) is None          # a pointer in it: rendered from live memory
    assert capture_plan(fmt.plan(conf.get("r")), 4 * 33) is None    # two strings shown at the return
    # -s larger than the return trampoline's output copy: hooked
    big = CallFormatter(string_limit=1000)
    assert capture_plan(big.plan(db.get("read")), 4 * 1001) is None


def test_cxx_pairs_and_rdx(tmp_path):
    """bench/progs/cxxwork.cpp: _M_need_rehash returns std::pair<bool, size_t> in rax:rdx; the
    second member is rdx (the hooked path showed 0 before it read rdx)."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    exe = tmp_path / "cxxwork"
    src = os.path.join(os.path.dirname(__file__), "..", "bench", "progs", "cxxwork.cpp")
    r = subprocess.run([gxx, "-O2", "-std=c++17", "-o", str(exe), src], capture_output=True)
    if r.returncode:
        pytest.skip("g++ failed: " + r.stderr.decode(errors="replace")[-200:])
    log, hooked, pure = _three(tmp_path, [str(exe)])
    assert _mask_redirected(log) == _mask_redirected(hooked) == _mask_redirected(pure)
    pairs = re.findall(r"^_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm\(.*\) += \{ (\d+), (\d+) \}$",
                       log, re.M)
    assert len(pairs) > 1000
    assert any(grow == "1" and int(buckets) > 0 for grow, buckets in pairs)


@pytest.mark.slow
def test_bash_read_loop(tmp_path):
    bash = system_program("bash")
    lines = tmp_path / "lines.txt"
    lines.write_text("".join(f"line {i}\n" for i in range(300)) + "no newline at the end")
    work = tmp_path / "w"
    work.mkdir()
    # (it runs in a directory of its own: bash stats its working directory, whose mtime the
    # traces written beside it would change)
    script = f'while read l; do :; done < {lines}; read -r x < /dev/null'
    log, hooked, pure = _three(tmp_path, [bash, "-c", script], cwd=work)
    assert log == hooked == pure
    assert log.count("read(0, ") > 300 and re.search(r'^read\(0, "no newline at the end", \d+\) += 21$', log, re.M)
    assert re.search(r"^sigprocmask\(SIG_BLOCK, nil, <.*>\) += 0$", log, re.M)
