"""The tracing command line end to end: decoded arguments, flags, summaries, faults, ENOSYS."""
import json
import re
import shutil
import subprocess

import pytest

from conftest import built, emutrace, native, status_of


def trace(args, cwd=None):
    e = emutrace(args, cwd=cwd)
    assert b"Traceback" not in e.stderr, e.stderr.decode()
    return e


def test_every_prototype_type_decoded_exactly(tmp_path):
    """bins/protos exercises strings, flags, nil, callbacks, printf varargs and out-parameters."""
    e = trace(["-s", "40", built("protos", "pie"), str(tmp_path)], cwd=str(tmp_path))
    err = e.stderr.decode()
    expect = [
        'puts("tab\\there "quoted" caf\\303\\251 byte\\377 nl\\\\n") = 35',          # escapes, as ltrace
        'puts("This string is definitely longer than fo"...) = 76',                 # cut at -s 40
        'open("/nonexistent/emutrace-missing", O_RDONLY|O_CLOEXEC) = -1',          # symbolic flags
        'strtol("456", nil, 10)',                                                     # nil
        'strtol("123abc", "abc", 10)',                                                # out-parameter at return
        'pipe([ 3, 4 ])',                                                             # array filled at return
        '__isoc99_sscanf("17 apples", "%d %15s", 17, "apples") = 2',                 # scanf out-parameters
        'qsort(0x',                                                                   # ...
        '4, by_value)',                                                               # callback by name
        '__cxa_atexit(at_exit_fn, 0, ',
        'signal(SIGUSR1, on_usr1)',
        '--- SIGUSR1 (User defined signal 1) ---',
        '<... raise resumed> )',
        "printf(\"%d %u %ld %lu %x %c %s %p %f %.3e %%\\n\", -42, 42, -1234567890123, 1234567890123, 0xbeef, 'Z', \"str\", 0, 3.500000, ",
        "toupper('a')                                     = 'A'",
        'getenv("EMUTRACE_TEST_UNSET")                    = nil',
        'labs(-1234567890123)                             = 1234567890123',
    ]
    for needle in expect:
        assert needle in err, f"{needle!r} not in trace:\n{err[:5000]}"
    assert re.search(r'open\("/\S+"\.\.\., O_WRONLY\|O_CREAT\|O_TRUNC, 0644\)\s+= 3', err)   # mode when O_CREAT
    assert e.returncode == 0


@pytest.mark.parametrize("prog", ["cxx", "jmp", "signal", "qsort"])
def test_tracing_never_changes_the_program(prog, tmp_path):
    """C++ exceptions thrown through traced calls, longjmp out of nested calls and signal handlers
    behave as natively while every call is traced."""
    path = built(prog, "pie")
    n = native([path, str(tmp_path)], cwd=str(tmp_path))
    e = trace(["-o", str(tmp_path / "t.out"), path, str(tmp_path)], cwd=str(tmp_path))
    assert e.stdout == n.stdout and status_of(e) == status_of(n)
    text = (tmp_path / "t.out").read_text()
    assert "+++ exited (status 0) +++" in text


def test_longjmp_and_exceptions_are_reported_as_unwound(tmp_path):
    out = tmp_path / "t.jsonl"
    trace(["--format", "jsonl", "-o", str(out), built("jmp", "pie")])
    events = [json.loads(l) for l in out.read_text().splitlines()]
    calls = {e["id"] for e in events if e["type"] == "call"}
    returns = {e["id"] for e in events if e["type"] == "return"}
    unwound = [e for e in events if e["type"] == "return" and e["unwound"]]
    assert unwound, "longjmp out of qsort's comparator leaves qsort unwound"
    assert any(e["name"] == "qsort" for e in unwound)
    assert calls - returns <= {e["id"] for e in events if e["type"] == "call" and e["name"] in ("__libc_start_main", "exit")}


def test_summary_counts_calls(tmp_path):
    e = trace(["-c", built("qsort", "pie")])
    err = e.stderr.decode()
    assert re.search(r"\s11 strcmp", err) and re.search(r"\s6 printf", err) and "% time" in err


def test_strace_summary_totals_equal_the_lines(tmp_path):
    prog = built("files", "pie")
    lines_out = tmp_path / "s.txt"
    trace(["--strace", "-o", str(lines_out), prog, str(tmp_path)], cwd=str(tmp_path))
    count = sum(1 for l in lines_out.read_text().splitlines() if re.match(r"^[a-z_0-9]+\(", l))
    e = trace(["--strace", "-c", prog, str(tmp_path)], cwd=str(tmp_path))
    total = re.search(r"^100\.00\s+\S+\s+\S+\s+(\d+)\s+(\d+)?\s*total$", e.stderr.decode(), re.M)
    assert total, e.stderr.decode()
    assert int(total.group(1)) == count


def test_strace_filters_and_fd_paths(tmp_path):
    e = trace(["--strace", "-e", "trace=%file", "-y", "/bin/cat", "/etc/hostname"])
    err = e.stderr.decode()
    lines = [l for l in err.splitlines() if "(" in l and not l.startswith("+++")]
    assert lines and all(re.match(r"(execve|openat|access|newfstatat|statx|readlink|stat|lstat)\(", l) for l in lines), lines
    e = trace(["--strace", "-y", "-e", "trace=read,close", "/bin/cat", "/etc/hostname"])
    assert re.search(r'^read\(3</etc/hostname>, ".*", 131072\)\s+= \d+', e.stderr.decode(), re.M)
    e = trace(["--strace", "-e", "trace=!mmap,mprotect", "/bin/true"])
    assert "mmap(" not in e.stderr.decode() and "brk(" in e.stderr.decode()


def test_ltrace_flags(tmp_path):
    prog = built("qsort", "pie")
    e = trace(["-tt", "-T", "-i", "-n", "2", "-e", "strcmp+qsort", prog])
    first = [l for l in e.stderr.decode().splitlines() if "qsort(" in l][0]
    assert re.match(r"^\d\d:\d\d:\d\d\.\d{6} \[0x[0-9a-f]+\] qsort\(", first), first
    nested = [l for l in e.stderr.decode().splitlines() if "strcmp(" in l][0]
    assert re.search(r"\]   strcmp\(", nested), nested                 # -n 2: indented one level
    assert re.search(r"= -?\d+ <\d+\.\d{6}>$", nested)                  # -T
    e = trace(["-L", "-S", prog])
    assert "SYS_write(" in e.stderr.decode() and "strcmp(" not in e.stderr.decode()
    e = trace(["-S", "-e", "printf", prog])
    err = e.stderr.decode()
    assert "printf(" in err and "strcmp(" not in err and "SYS_exit_group(0) = ?" in err


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
@pytest.mark.parametrize("body,status", [("__builtin_trap();", 132),
                                         ("volatile int z = 0; return 5 / z;", 136)])
def test_cpu_faults_are_guest_signals(tmp_path, body, status):
    src = tmp_path / "f.c"
    src.write_text("int main(void) { %s return 0; }\n" % body)
    exe = tmp_path / "f"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(src)], check=True)
    n = native([str(exe)])
    e = emutrace(["--no-trace", str(exe)])
    assert status_of(n) == status_of(e) == status


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")
def test_unimplemented_syscall_is_enosys_and_reported_once(tmp_path):
    src = tmp_path / "u.c"
    src.write_text('#include <stdio.h>\n#include <unistd.h>\n#include <errno.h>\n'
                   'int main(void){ for (int i = 0; i < 3; i++) { long r = syscall(425, 8, 0);'
                   ' printf("%ld %d\\n", r, errno); } return 0; }\n')       # io_uring_setup
    exe = tmp_path / "u"
    subprocess.run(["gcc", "-O0", "-o", str(exe), str(src)], check=True)
    e = emutrace(["--no-trace", str(exe)])
    assert e.stdout == b"-1 38\n" * 3
    assert e.stderr.decode().count("io_uring_setup") == 1
    assert e.stderr.decode().startswith("emutrace: system call io_uring_setup (425) is not implemented")


def test_stripped_static_program_says_why_no_calls():
    from conftest import ROOT
    e = emutrace([str(ROOT / "bins" / "prebuilt" / "hello-static")])
    assert e.stdout == b"hello, world\n"
    err = e.stderr.decode()
    assert "is statically linked and has no symbols" in err and "+++ exited (status 0) +++" in err
