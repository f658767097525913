"""strace's option set under --strace (issue 39): each option parsed as strace parses it and
doing what strace's does; ltrace's meanings of -x and -n kept outside --strace."""
import os
import subprocess
import sys

import pytest

from emutrace.options import UsageError, parse
from conftest import NATIVE_ENV, STILL_DIR, system_program

TRUE = "/bin/true"


def run(*args, stdin=subprocess.DEVNULL, pass_fds=(), **kw):
    return subprocess.run([sys.executable, "-m", "emutrace", *args], capture_output=True, text=True,
                          stdin=stdin, pass_fds=pass_fds, cwd=STILL_DIR, timeout=300, **kw)


def test_x_is_stracess_hex_flag_under_strace():
    """strace -x -a 12: -x takes no value, -a 12 is the column (the program is not '12')."""
    tc = parse(["--strace", "-x", "-a", "12", TRUE]).trace
    assert tc.hex_strings == 1 and tc.align == 12
    assert parse(["--strace", "-xx", TRUE]).trace.hex_strings == 2
    assert parse(["--strace", "-xa12", TRUE]).trace.align == 12


def test_x_keeps_its_ltrace_meaning_outside_strace():
    cfg = parse(["-x", "main", TRUE])
    assert cfg.trace.internal == ["main"] and cfg.program == TRUE
    assert parse(["-n", "2", TRUE]).trace.indent == 2


@pytest.mark.parametrize("argv, attr, want", [
    (["-X", "raw"], "xlat_style", "raw"), (["-Xverbose"], "xlat_style", "verbose"),
    (["--const-print-style=abbrev"], "xlat_style", "abbrev"), (["--columns=7"], "align", 7),
    (["-v"], "verbose", True), (["--no-abbrev"], "verbose", True), (["-e", "verbose=all"], "verbose", True),
    (["-n"], "syscall_numbers", True), (["--always-show-pid"], "always_show_pid", True),
    (["-e", "signal=none"], "signals", set()), (["--signal=SIGCHLD"], "signals", {17}),
    (["-e", "signal=!SIGCHLD"], "signals", set(range(1, 65)) - {17}),
    (["-e", "trace-fds=0,9"], "trace_fds", {0, 9}), (["-e", "read=0"], "read_fds", {0}),
    (["-ewrite=1,4"], "write_fds", {1, 4}), (["--strings-in-hex=non-ascii"], "hex_strings", 1),
    (["--strings-in-hex"], "hex_strings", 2),
    (["-qq"], "quiet", {"attach", "personality", "exit"}), (["--quiet=exit"], "quiet", {"exit"}),
    (["-yy"], "decode_fds", {"path", "socket", "dev", "pidfd", "signalfd", "eventfd"}),
    (["--decode-fds=dev"], "decode_fds", {"dev"}),
])
def test_strace_options_parse(argv, attr, want):
    assert getattr(parse(["--strace", *argv, TRUE]).trace, attr) == want


def test_trace_long_form_and_new_names():
    tc = parse(["--strace", "--trace=getxattrat,file_getattr,listns", TRUE]).trace
    assert tc.filters == ["trace=getxattrat,file_getattr,listns"]


@pytest.mark.parametrize("argv", [["-X", "fancy"], ["-e", "signal=SIGNOPE"], ["--decode-fds=colour"],
                                  ["-e", "trace-fds=x"], ["--strings-in-hex=some"],
                                  ["-Y"], ["-N"], ["-e", "decode-pids=comm"]])     # (not supported yet: refused)
def test_bad_values_are_usage_errors(argv):
    with pytest.raises(UsageError):
        parse(["--strace", *argv, TRUE])


def test_version_and_alignment_and_quiet():
    r = run("--strace", "-V")
    assert r.returncode == 0 and r.stdout.startswith("strace -- version")
    r = run("--strace", "-a12", "-qq", "-e", "trace=exit_group", TRUE)
    assert r.stderr == "exit_group(0) = ?\n", r.stderr
    r = run("--strace", "-a30", "-e", "trace=exit_group", TRUE)
    assert r.stderr == "exit_group(0)                 = ?\n+++ exited with 0 +++\n", r.stderr


def test_raw_and_verbose_constants_and_hex_strings():
    cat = system_program("cat")
    base = ["--strace", "-e", "trace=openat", "-e", "signal=none", cat, "/etc/hostname"]
    abbrev = run(*base).stderr
    assert 'O_RDONLY|O_CLOEXEC) = 3' in abbrev
    assert '"/etc/ld.so.cache", 0x80000) = 3' in run("-Xraw", *base).stderr \
        or '"/etc/ld.so.cache", 0x80000) = 3' in run("--strace", "-Xraw", *base[1:]).stderr
    assert '0x80000 /* O_RDONLY|O_CLOEXEC */) = 3' in run("--strace", "-Xverbose", *base[1:]).stderr
    assert '"\\x2f\\x65\\x74\\x63' in run("--strace", "-xx", *base[1:]).stderr


def test_shell_fds_reach_the_guest(tmp_path):
    """`3<file` and `9>>/dev/full` given by a shell: the guest reads the one and gets ENOSPC
    writing to the other; with --no-host-fds neither exists."""
    data = tmp_path / "in.txt"
    data.write_text("from fd 3\n")
    cat, sh = system_program("cat"), system_program("sh")
    emu = f"{sys.executable} -m emutrace"
    guest = f"'{cat} <&3; echo x >&9'"
    r = subprocess.run([sh, "-c", f"exec {emu} --strace -y -e trace=write {sh} -c {guest} 3<{data} 9>>/dev/full"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=STILL_DIR, timeout=300)
    assert r.stdout == "from fd 3\n", r.stderr
    assert 'write(1</dev/full>, "x\\n", 2)' in r.stderr and "ENOSPC" in r.stderr, r.stderr
    r = subprocess.run([sh, "-c", f"exec {emu} --no-host-fds {sh} -c {guest} 3<{data} 9>>/dev/full"],
                       capture_output=True, text=True, stdin=subprocess.DEVNULL, cwd=STILL_DIR, timeout=300)
    assert r.stdout == "" and r.returncode != 0, r.stderr


def test_decode_fds_dev_and_stdin_null():
    cat = system_program("cat")
    r = run("--strace", "-yy", "-e", "trace=read", cat)
    assert "read(0</dev/null<char 1:3>>, \"\", 131072)" in r.stderr, r.stderr
