"""The power tools: -k/-kk/-w backtraces, -e inject=/fault=, --inject-call, -P, -z/-Z/status=,
--coverage (drcov, lcov, text). Compared with strace itself where ptrace works here."""
from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess

import pytest

from conftest import built, emutrace, ptrace_works

from emutrace.inject import InjectError, When, parse_inject, parse_inject_call, parse_when
from emutrace.sysgate import StatusError, parse_status

needs_strace = pytest.mark.skipif(not ptrace_works(), reason="strace cannot ptrace here")


def _gcc(tmp_path, name: str, source: str, *flags: str) -> str:
    if not shutil.which("gcc"):
        pytest.skip("no gcc")
    src = tmp_path / f"{name}.c"
    src.write_text(source)
    exe = tmp_path / name
    subprocess.run(["gcc", *flags, "-o", str(exe), str(src)], check=True)
    return str(exe)


def _strace(args, prog_args):
    r = subprocess.run(["strace", *args, *prog_args], capture_output=True, text=True)
    return r.stderr


def _names_of_stacks(text: str):
    """[(syscall line without addresses, [frame 'module(function)' ...])]"""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith(" > "):
            if cur is not None:
                cur[1].append(re.sub(r"\+0x[0-9a-f]+\)", ")", line.split(" [")[0]))
        elif "(" in line and not line.startswith(("+++", "---")):
            cur = (re.sub(r"0x[0-9a-f]+", "X", line)[:40], [])
            out.append(cur)
    return out


# -- inject= grammar -------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "open", "openat:error=ENOENT:retval=0", "openat:error=EFOO", "openat:error=0", "openat:error=4096",
    "openat:when=0:error=EIO", "openat:when=3..2:error=EIO", "openat:error=EIO:when=65536",
    "openat:error=EIO:when=2..65535", "openat:signal=SIGFOO", "openat:error=EIO:error=EPERM",
    "openat:foo=1", "openat:delay_enter=abc", "openat:error=EIO:when=2+0", "openat:error=EIO:when=x",
    "write:syscall=getpid",
])
def test_inject_rejects_what_strace_rejects(expr):
    with pytest.raises(InjectError) as e:
        parse_inject(expr)
    assert str(e.value) == f"invalid inject argument '{expr}'"


@pytest.mark.parametrize("expr,msg", [("nosuch:error=EIO", "invalid system call 'nosuch'"),
                                      ("%foo:error=EIO", "invalid system call '%foo'"),
                                      (":error=EIO", "invalid system call ''")])
def test_inject_rejects_unknown_calls(expr, msg):
    with pytest.raises(InjectError, match=re.escape(msg)):
        parse_inject(expr)


def test_when_expressions():
    picks = lambda text: [n for n in range(1, 12) if parse_when(text).picks(n)]
    assert picks("3") == [3]
    assert picks("3+") == list(range(3, 12))
    assert picks("3+2") == [3, 5, 7, 9, 11]
    assert picks("2..4") == [2, 3, 4]
    assert picks("2..8+3") == [2, 5, 8]
    assert picks("1..2+1") == [1, 2]
    names, t = parse_inject("%file:error=ENOENT:when=3+")
    assert "openat" in names and t.error == 2 and t.when == When(3, 0xFFFF, 1)
    _, f = parse_inject("write", fault=True)
    assert f.error == 38                               # fault= injects ENOSYS by default
    for bad in ("write:retval=1", "write:signal=SIGINT"):
        with pytest.raises(InjectError, match=re.escape(f"invalid fault argument '{bad}'")):
            parse_inject(bad, fault=True)
    assert parse_inject_call("malloc:retval=0:when=3+").when.first == 3
    with pytest.raises(InjectError):
        parse_inject_call("malloc:when=3+")


def test_status_sets():
    assert parse_status("failed,successful") == {"failed", "successful"}
    assert parse_status("!successful") == {"failed", "unfinished", "unavailable", "detached"}
    assert parse_status("none") == set()
    for bad in ("foo", ""):
        with pytest.raises(StatusError):
            parse_status(bad)


@pytest.mark.parametrize("args", [["-e", "inject=openat:error=EFOO"], ["-e", "status=foo"],
                                  ["--inject-call", "malloc"], ["--coverage-format", "xml"]])
def test_bad_expressions_one_line_usage_status(args):
    r = emutrace(["--strace", *args, built("hello")])
    assert r.returncode == 125
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("emutrace: ")


# -- injection, run -------------------------------------------------------------------------

def _lines(text):
    return [l for l in text.splitlines() if not l.startswith("hello")]


def test_inject_error_when_matches_strace():
    hello = built("hello")
    args = ["-e", "trace=openat", "-e", "inject=openat:error=ENOENT:when=2"]
    ours = emutrace(["--strace", *args, hello]).stderr.decode()
    assert 'openat(AT_FDCWD, "/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY|O_CLOEXEC) = -1 ENOENT ' \
           '(No such file or directory) (INJECTED)' in ours
    assert ours.count("(INJECTED)") == 1
    if ptrace_works():
        theirs = _strace(args, [hello])
        pick = lambda t: [l for l in t.splitlines() if "INJECTED" in l]
        assert pick(ours) == pick(theirs)


def test_inject_retval_does_not_run_the_call():
    hello = built("hello")
    args = ["-e", "trace=write", "-e", "inject=write:retval=5"]
    r = emutrace(["--strace", *args, hello])
    assert r.stdout == b""                         # nothing was written: the call never ran
    ours = _lines(r.stderr.decode())
    assert ours[0] == 'write(1, "hello, world\\n", 13)          = 5 (INJECTED)'
    if ptrace_works():
        assert ours == _lines(_strace(args, [hello]))


def test_inject_signal_and_delay_on_virtual_clock():
    hello = built("hello")
    r = emutrace(["--strace", "-ttt", "-e", "trace=write",
                  "-e", "inject=write:signal=SIGWINCH:error=EIO:delay_exit=2s", hello])
    text = r.stderr.decode().splitlines()
    assert text[0].endswith("= -1 EIO (Input/output error) (INJECTED) (DELAYED)")
    assert "--- SIGWINCH {si_signo=SIGWINCH, si_code=SI_KERNEL} ---" in text[1]
    plain = emutrace(["--strace", "-ttt", "-e", "trace=write", hello]).stderr.decode().splitlines()
    delayed, undelayed = float(text[0].split()[0]), float(plain[0].split()[0])
    assert 2.0 <= delayed - undelayed < 2.01       # the delay moved the virtual clock, by 2 s


def test_inject_call_malloc_returns_null_from_the_second_call():
    prog = built("callloop")
    r = emutrace(["-e", "malloc", "--inject-call", "malloc:retval=0:when=2+", prog, "3"])
    lines = [l for l in r.stderr.decode().splitlines() if l.startswith("malloc")]
    assert lines[0].endswith("= 0x5555555592a0") or not lines[0].endswith("= 0")
    assert lines[1].endswith("= 0")
    assert r.returncode != 0                       # strcpy into NULL: SIGSEGV, as natively it would be


# -- -P and status ---------------------------------------------------------------------------

def test_trace_path_matches_strace():
    hello = built("hello")
    ours = emutrace(["--strace", "-P", "/etc/ld.so.cache", hello]).stderr.decode()
    names = [l.split("(")[0] for l in ours.splitlines() if "(" in l]
    assert names == ["openat", "newfstatat", "mmap", "close"]
    if ptrace_works():
        theirs = _strace(["-P", "/etc/ld.so.cache"], [hello])
        assert names == [l.split("(")[0] for l in theirs.splitlines() if "(" in l]


def test_trace_path_library_calls(tmp_path):
    f = tmp_path / "data.txt"
    f.write_text("x\n")
    r = emutrace(["-s", "256", "-P", str(f), "cat", "/etc/hostname", str(f)])
    lines = [l for l in r.stderr.decode().splitlines() if not l.startswith("+++")]
    assert lines == [f'open("{f}", O_RDONLY)'.ljust(48) + " = 3"]     # not /etc/hostname's


def test_trace_path_nonexistent_accepted():
    ours = emutrace(["--strace", "-P", "/no/such/file", built("hello")])
    assert ours.returncode == 0
    assert ours.stderr.decode().splitlines() == ["+++ exited with 0 +++"]


def test_failed_and_successful_only():
    hello = built("hello")
    failed = emutrace(["--strace", "-Z", hello]).stderr.decode().splitlines()
    calls = [l for l in failed if not l.startswith("+++")]
    assert calls and all(re.search(r"= -1 E[A-Z]+ ", l) for l in calls)
    ok = emutrace(["--strace", "-z", hello]).stderr.decode().splitlines()
    assert not any(re.search(r"= -1 E[A-Z]+ ", l) for l in ok)
    assert not any(l.startswith("exit_group") for l in ok)        # unfinished: not successful
    unfinished = emutrace(["--strace", "-e", "status=unfinished", hello]).stderr.decode().splitlines()
    assert unfinished[0].startswith("exit_group(0)") and unfinished[0].endswith("= ?")


# -- backtraces ------------------------------------------------------------------------------

def test_k_write_stack():
    r = emutrace(["--strace", "-k", "-e", "trace=write", built("hello")])
    lines = r.stderr.decode().splitlines()
    assert lines[0].startswith("write(1")
    frames = [l for l in lines if l.startswith(" > ")]
    assert re.match(r" > /\S+libc\.so\.6\(__write\+0x10\) \[0x[0-9a-f]+\]$", frames[0])
    assert any("(exit+" in f for f in frames) and "(_start+" in frames[-1]   # flushed at exit


@needs_strace
@pytest.mark.parametrize("prog", ["hello", "files", "fib"])
def test_k_same_function_names_as_strace(prog):
    exe = built(prog)
    ours = _names_of_stacks(emutrace(["--strace", "-k", exe], input=b"").stderr.decode())
    theirs = _names_of_stacks(_strace(["-k"], [exe]))
    j = matched = 0
    for line, stack in ours:
        for k in range(j, len(theirs)):
            if theirs[k][0] == line:
                j = k + 1
                matched += 1
                if not _rtld_page(line, stack):
                    assert stack == theirs[k][1], line
                break
    assert matched >= len(theirs) * 3 // 4


def _rtld_page(line, stack):
    """The dynamic linker's own allocator (__minimal_malloc) taking a page: which allocation runs
    out of the first page depends on what came before it, and that differs from the host's by
    design. The vDSO's link_map (setup_vdso, now that emutrace maps a vDSO) takes part of the page,
    and _dl_important_hwcaps allocates per glibc-hwcaps subdirectory the CPU supports: the host's
    x86-64-v4/v3/v2, the emulated CPU's v2 only (`ld.so --help` under each). So on the host the
    hwcaps malloc takes the page (via calloc, one frame more); under emutrace the smaller hwcaps
    array fits and _dl_init_paths' next malloc takes it. The call is the same; its caller is not."""
    return (line.startswith("mmap(NULL, 8192, PROT_READ|PROT_WRITE, M") and bool(stack)
            and all("/ld-linux" in f for f in stack))


@needs_strace
def test_k_through_a_signal_frame(tmp_path):
    exe = _gcc(tmp_path, "sig", """
#include <signal.h>
#include <unistd.h>
static void handler(int sig) { write(1, "in handler\\n", 11); }
int main(void) { signal(SIGUSR1, handler); raise(SIGUSR1); return 0; }
""", "-O1")
    text = emutrace(["--strace", "-k", "-e", "trace=write", exe]).stderr.decode()
    ours = _names_of_stacks(text)
    theirs = _names_of_stacks(_strace(["-k", "-e", "trace=write"], [exe]))
    assert ours[0][1] == theirs[-1][1]
    assert any("(handler)" in f for f in ours[0][1]) and any("(main)" in f for f in ours[0][1])
    # the signal line gets the interrupted code's stack, as strace prints it
    sig = text.splitlines()
    i = next(i for i, l in enumerate(sig) if l.startswith("--- SIGUSR1"))
    assert sig[i + 1].startswith(" > ") and any("(main+" in l for l in sig[i + 1:i + 5])


def test_k_stripped_and_kk_lines(tmp_path):
    src = """
#include <unistd.h>
__attribute__((noinline)) void say(void) { write(1, "x\\n", 2); }
int main(void) { say(); return 0; }
"""
    exe = _gcc(tmp_path, "dbg", src, "-g", "-O0", "-fomit-frame-pointer")
    kk = emutrace(["--strace", "-kk", "-e", "trace=write", exe]).stderr.decode()
    say = next(l for l in kk.splitlines() if "(say+" in l)
    assert say.endswith(f"] {tmp_path}/dbg.c:3")                  # strace -kk's format
    main = next(l for l in kk.splitlines() if "(main+" in l)
    assert main.endswith(f"] {tmp_path}/dbg.c:4")
    stripped = tmp_path / "stripped"
    subprocess.run(["strip", "-o", str(stripped), exe], check=True)
    k = emutrace(["--strace", "-k", "-e", "trace=write", str(stripped)]).stderr.decode()
    frames = [l for l in k.splitlines() if l.startswith(" > ")]
    assert "__write+" in frames[0] and len(frames) >= 5        # still unwinds to _start's caller


def test_jsonl_stack_array():
    r = emutrace(["--strace", "-k", "--format", "jsonl", "-e", "trace=write", built("hello")])
    ev = next(json.loads(l) for l in r.stderr.decode().splitlines() if '"write"' in l)
    assert ev["stack"][0]["function"] == "__write" and ev["stack"][0]["module"].endswith("libc.so.6")
    plain = emutrace(["--strace", "--format", "jsonl", "-e", "trace=write", built("hello")])
    assert '"stack"' not in plain.stderr.decode()


def test_w_library_call_backtrace():
    r = emutrace(["-w", "2", "-e", "malloc", built("callloop"), "1"])
    lines = r.stderr.decode().splitlines()
    i = next(i for i, l in enumerate(lines) if "= 0x" in l)
    assert re.match(r" > \S+/callloop\(main\+0x[0-9a-f]+\) \[0x[0-9a-f]+\]$", lines[i + 1])
    assert "__libc_" in lines[i + 2] and not lines[i + 3].startswith(" > ")


# -- coverage --------------------------------------------------------------------------------

def read_drcov(data: bytes):
    """A drcov reader written from DynamoRIO's drcov format description (as Lighthouse reads it):
    header lines, `Module Table: version V, count N`, a Columns line, N module rows,
    `BB Table: M bbs`, then M packed {uint32 start; uint16 size; uint16 id}."""
    head, _, rest = data.partition(b"BB Table: ")
    count_text, _, blob = rest.partition(b" bbs\n")
    lines = head.decode().splitlines()
    assert lines[0] == "DRCOV VERSION: 2" and lines[1].startswith("DRCOV FLAVOR: ")
    m = re.match(r"Module Table: version 2, count (\d+)", lines[2])
    columns = [c.strip() for c in lines[3][len("Columns: "):].split(",")]
    assert columns == ["id", "base", "end", "entry", "checksum", "timestamp", "path"]
    modules = []
    for row in lines[4:4 + int(m.group(1))]:
        cells = [c.strip() for c in row.split(",", len(columns) - 1)]
        modules.append({"id": int(cells[0]), "base": int(cells[1], 16), "end": int(cells[2], 16), "path": cells[6]})
    n = int(count_text)
    assert len(blob) == 8 * n
    bbs = [struct.unpack_from("<IHH", blob, 8 * i) for i in range(n)]
    return modules, bbs


COV_SRC = """
#include <stdio.h>
static int square(int x) { return x * x; }
static int unused(int x) { return x + 42; }
int main(int argc, char **argv) {
    int s = 0;
    for (int i = 0; i < 5; i++)
        s += square(i);
    if (argc > 5)
        s += unused(s);
    printf("%d\\n", s);
    return 0;
}
"""


def _symbols(exe):
    out = subprocess.run(["nm", exe], capture_output=True, text=True).stdout
    return {l.split()[2]: int(l.split()[0], 16) for l in out.splitlines() if len(l.split()) == 3}


def test_coverage_drcov(tmp_path):
    exe = _gcc(tmp_path, "cov", COV_SRC, "-g", "-O0")
    out = tmp_path / "cov.drcov"
    r = emutrace(["--no-trace", "--coverage", str(out), exe])
    assert r.returncode == 0 and r.stdout == b"30\n"
    modules, bbs = read_drcov(out.read_bytes())
    main = next(m for m in modules if m["path"] == exe)
    assert any(m["path"].endswith("libc.so.6") for m in modules)
    offs = {start for start, size, mid in bbs if mid == main["id"]}
    syms = _symbols(exe)
    assert syms["main"] in offs and syms["square"] in offs      # (the PIE's base is its offset 0)
    assert syms["unused"] not in offs
    for start, size, mid in bbs:
        m = modules[mid]
        assert m["base"] + start + size <= m["end"]


def test_coverage_lcov_and_text(tmp_path):
    exe = _gcc(tmp_path, "cov", COV_SRC, "-g", "-O0")
    info = tmp_path / "cov.info"
    emutrace(["--no-trace", "--coverage", str(info), "--coverage-format", "lcov", exe])
    text = info.read_text()
    record = text.split(f"SF:{tmp_path}/cov.c\n", 1)[1].split("end_of_record")[0]
    da = dict(tuple(map(int, l[3:].split(","))) for l in record.splitlines() if l.startswith("DA:"))
    assert da[4] == 0 and da[10] == 0                   # unused() and its call never ran
    assert da[3] == 5 and da[11] == 1                   # square() 5 times, printf once
    if shutil.which("genhtml"):
        r = subprocess.run(["genhtml", "-q", "-o", str(tmp_path / "html"), str(info)], capture_output=True)
        assert r.returncode == 0, r.stderr
    txt = tmp_path / "cov.txt"
    emutrace(["--no-trace", "--coverage", str(txt), "--coverage-format", "text", exe])
    body = txt.read_text()
    assert f"module {exe} " in body and re.search(r"\+0x[0-9a-f]+ \d+ 5 square", body)


def test_coverage_unwritable_file_fails_before_the_run(tmp_path):
    r = emutrace(["--no-trace", "--coverage", str(tmp_path / "no" / "such" / "dir"), built("hello")])
    assert r.returncode == 125 and r.stdout == b""
    assert r.stderr.decode().count("\n") == 1 and r.stderr.startswith(b"emutrace: ")


def test_coverage_names_jit_code_anonymous(tmp_path):
    exe = _gcc(tmp_path, "jit", """
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
int main(void) {
    unsigned char code[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
    void *p = mmap(0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memcpy(p, code, sizeof code);
    printf("%d\\n", ((int (*)(void))p)());
    return 0;
}
""", "-O1")
    out = tmp_path / "jit.drcov"
    r = emutrace(["--no-trace", "--coverage", str(out), exe])
    assert r.stdout == b"42\n"
    modules, bbs = read_drcov(out.read_bytes())
    anon = [m for m in modules if m["path"] == "[anonymous]"]
    assert anon and any(mid == anon[0]["id"] and start == 0 and size == 6 for start, size, mid in bbs)


def test_line_table_matches_addr2line(tmp_path):
    if not shutil.which("addr2line"):
        pytest.skip("no addr2line")
    exe = _gcc(tmp_path, "cov", COV_SRC, "-g", "-O1")
    from emutrace.loader.elf import read_elf
    from emutrace.dwarf.lines import LineTable
    data = open(exe, "rb").read()
    table = LineTable.of_elf(read_elf(exe, data))
    syms = _symbols(exe)
    addrs = [syms["main"] + d for d in (0, 4, 8, 12)]
    want = subprocess.run(["addr2line", "-e", exe, *map(hex, addrs)], capture_output=True, text=True).stdout.split()
    got = [f"{p}:{l}" for p, l in (table.lookup(a) for a in addrs)]
    assert got == [w.split(" ")[0] for w in want]
