"""The sequence of library-call names equals ltrace 0.7.3's, on bins/ programs and coreutils.

ltrace hooks .plt entries only, so it cannot see calls made through .plt.got entries or through
GOT slots without any PLT entry (crt1.o's `call *__libc_start_main@GOTPCREL(%rip)`, crtstuff's
__cxa_finalize, functions whose address the program also takes). emutrace catches them and
says so in each call's `via`; those calls are left out of the comparison."""
import os
import re
import subprocess

import pytest

from conftest import NATIVE_ENV, built, emutrace, have, ptrace_works

pytestmark = [pytest.mark.skipif(not have("ltrace") or not ptrace_works(), reason="ltrace (ptrace) not available")]

CRT = {"__libc_start_main", "__cxa_finalize"}      # start-up files' calls, which differ by layout
CALL = re.compile(r"^(?:\[pid \d+\] )?([A-Za-z_][\w.@]*)\(")


def names(text: str):
    out = []
    for line in text.splitlines():
        m = CALL.match(line)
        if m and not m.group(1).startswith("SYS_"):
            out.append(m.group(1))
    return out


def ltrace_names(argv, tmp_path, cwd=None):
    """ltrace's call names; natively on one CPU, as the guest sees one (sort sizes its threads by it)."""
    out = tmp_path / "ltrace.out"
    one_cpu = ["taskset", "-c", "0"] if have("taskset") else []
    subprocess.run([*one_cpu, "ltrace", "-o", str(out), *argv], env=NATIVE_ENV, cwd=cwd, capture_output=True,
                   timeout=300)
    return names(out.read_text(errors="replace"))


def emutrace_names(argv, tmp_path, cwd=None, all_calls=False):
    """Call names from emutrace's jsonl, without the calls ltrace cannot see (via got or plt.got)."""
    import json
    out = tmp_path / "emu.jsonl"
    e = emutrace(["--format", "jsonl", "-o", str(out), *argv], cwd=cwd)
    assert b"Traceback" not in e.stderr, e.stderr
    calls = [json.loads(l) for l in out.read_text().splitlines()]
    return [c["name"] for c in calls if c["type"] == "call" and (all_calls or c["via"] in ("plt", "static"))]


@pytest.mark.parametrize("prog", ["qsort", "strings", "protos", "jmp", "files"])
def test_bins_programs(prog, tmp_path):
    path = built(prog, "pie")
    work = tmp_path / "w"
    work.mkdir()
    expect = ltrace_names([path, str(work)], tmp_path, cwd=str(work))
    # --rw: the program's files are made on the host, so both runs list the same directory order
    got = emutrace_names(["--rw", str(work), path, str(work)], tmp_path, cwd=str(work))
    assert got == expect


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["/bin/ls", "-l", "/usr"], ["/usr/bin/sort", "/etc/passwd"],
                                  ["/usr/bin/wc", "/etc/services"]], ids=["ls", "sort", "wc"])
def test_coreutils(argv, tmp_path):
    expect = ltrace_names(argv, tmp_path)
    import time
    # the clock at the host's now: ls formats recent and old dates along different paths
    got = emutrace_names(["--clock", str(int(time.time()) + 2), *argv], tmp_path)
    assert len(expect) > 20
    assert got == expect


@pytest.mark.parametrize("variant", ["ibt", "fnoplt", "static", "musl-static", "znow", "nopie"])
def test_every_layout_shows_the_plain_builds_calls(variant, tmp_path):
    """Where ltrace shows nothing (IBT + -z now, -fno-plt, static), emutrace shows the same
    calls as for the plain build."""
    plain = [n for n in emutrace_names([built("qsort", "pie")], tmp_path, all_calls=True) if n not in CRT]
    other = [n for n in emutrace_names([built("qsort", variant)], tmp_path, all_calls=True) if n not in CRT]
    assert other == plain and len(plain) > 15
