"""The sequence of library-call names equals ltrace 0.7.3's, on bins/ programs and coreutils.

ltrace hooks PLT entries only, so it cannot see calls made through the GOT without a PLT entry
(crt1.o's `call *__libc_start_main@GOTPCREL(%rip)`, crtstuff's __cxa_finalize): emutrace does;
those names are left out of the comparison."""
import os
import re
import subprocess

import pytest

from conftest import NATIVE_ENV, built, emutrace, have, ptrace_works

pytestmark = [pytest.mark.skipif(not have("ltrace") or not ptrace_works(), reason="ltrace (ptrace) not available")]

GOT_ONLY = {"__libc_start_main", "__cxa_finalize"}
CALL = re.compile(r"^(?:\[pid \d+\] )?([A-Za-z_][\w.@]*)\(")


def names(text: str):
    out = []
    for line in text.splitlines():
        m = CALL.match(line)
        if m and m.group(1) not in GOT_ONLY and not m.group(1).startswith("SYS_"):
            out.append(m.group(1))
    return out


def ltrace_names(argv, tmp_path, cwd=None):
    out = tmp_path / "ltrace.out"
    subprocess.run(["ltrace", "-o", str(out), *argv], env=NATIVE_ENV, cwd=cwd, capture_output=True, timeout=300)
    return names(out.read_text(errors="replace"))


def emutrace_names(argv, tmp_path, cwd=None):
    out = tmp_path / "emu.out"
    e = emutrace(["-o", str(out), *argv], cwd=cwd)
    assert b"Traceback" not in e.stderr, e.stderr
    return names(out.read_text(errors="replace"))


@pytest.mark.parametrize("prog", ["qsort", "strings", "protos", "jmp", "files"])
def test_bins_programs(prog, tmp_path):
    path = built(prog, "pie")
    work = tmp_path / "w"
    work.mkdir()
    expect = ltrace_names([path, str(work)], tmp_path, cwd=str(work))
    got = emutrace_names([path, str(work)], tmp_path, cwd=str(work))
    assert got == expect


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["/bin/ls", "-l", "/usr"], ["/usr/bin/sort", "/etc/passwd"],
                                  ["/usr/bin/wc", "/etc/services"]], ids=["ls", "sort", "wc"])
def test_coreutils(argv, tmp_path):
    expect = ltrace_names(argv, tmp_path)
    got = emutrace_names(["--clock", "0", *argv], tmp_path)
    assert len(expect) > 20
    assert got == expect


@pytest.mark.parametrize("variant", ["ibt", "fnoplt", "static", "musl-static", "znow", "nopie"])
def test_every_layout_shows_the_plain_builds_calls(variant, tmp_path):
    """Where ltrace shows nothing (IBT + -z now, -fno-plt, static), emutrace shows the same
    calls as for the plain build."""
    plain = emutrace_names([built("qsort", "pie")], tmp_path)
    other = emutrace_names([built("qsort", variant)], tmp_path)
    assert other == plain and len(plain) > 15
