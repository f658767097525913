"""decode/strace/: lines of real programs traced by strace 6.1 (Debian 12) with `-f`, `-y`, `-s 5`
and `-c`, and strace's smaller rules (quoting, return values, alignment, dates). The injected
references are in test_strace_ref_*.py and test_strace_uniform.py (stracemem.py tells how they
were made).
"""
import struct
import time

import pytest

from emutrace.decode import strace
from emutrace.kernel import table
from emutrace.decode.strace import (SyscallFormatter, format_exited, format_killed, format_signal,
                                    format_summary, quote_string)
from stracemem import FakeMem, fmt_line, other_time_zone  # noqa: F401 (other_time_zone: an autouse fixture)


# ---------------------------------------------------------------------------------------------
# real programs: strace -f of a threaded program (unfinished / resumed, pid prefix columns)

def test_unfinished_and_resumed_read():
    f = SyscallFormatter(align=40)
    buf = 0x7fedd47fb000
    st = f.enter(table.BY_NAME["read"], [3, buf, 8, 0, 0, 0], FakeMem())
    assert "21587 " + f.unfinished(st) == "21587 read(3,  <unfinished ...>"
    mem = FakeMem({buf: b"abc"})
    assert "21587 " + f.resumed(st, 3, mem, col=6) == "21587 <... read resumed>\"abc\", 8)       = 3"


def test_unfinished_sigprocmask():
    f = SyscallFormatter(align=40)
    set_ = 0x7ffd00001000
    st = f.enter(table.BY_NAME["rt_sigprocmask"], [2, set_, 0, 8, 0, 0], FakeMem({set_: bytes(8)}))
    assert f.unfinished(st) == "rt_sigprocmask(SIG_SETMASK, [],  <unfinished ...>"
    assert "21586 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21586 <... rt_sigprocmask resumed>NULL, 8) = 0"


def test_unfinished_clone():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["clone"], [0x1200011, 0, 0, 0x7fedd47fda10, 0, 0], FakeMem())
    assert f.unfinished(st) == \
        "clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>"
    assert f.resumed(st, 21588, FakeMem()) == \
        "<... clone resumed>, child_tidptr=0x7fedd47fda10) = 21588"
    assert f.exit(st, 21589, FakeMem()) == ("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|"
                                            "CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7fedd47fda10) = 21589")


def test_unfinished_all_entry_arguments():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["rseq"], [0x7fedd47fcfe0, 0x20, 0, 0x53053053, 0, 0], FakeMem())
    assert f.unfinished(st) == "rseq(0x7fedd47fcfe0, 0x20, 0, 0x53053053 <unfinished ...>"
    assert "21587 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21587 <... rseq resumed>)               = 0"
    st = f.enter(table.BY_NAME["futex"], [0x7fedd47fc990, 0x109, 21587, 0, 0, 0xffffffff], FakeMem())
    assert f.unfinished(st) == ("futex(0x7fedd47fc990, FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME, 21587, "
                                "NULL, FUTEX_BITSET_MATCH_ANY <unfinished ...>")
    assert "21586 " + f.resumed(st, 0, FakeMem(), col=6) == \
        "21586 <... futex resumed>)              = 0"


def test_unfinished_exit_group_and_no_return():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["exit_group"], [3, 0, 0, 0, 0, 0], FakeMem())
    assert f.unfinished(st) == "exit_group(3 <unfinished ...>"
    assert "21588 " + f.no_return(st, col=6, resumed=True) == \
        "21588 <... exit_group resumed>)         = ?"
    assert f.no_return(st) == "exit_group(3)                           = ?"
    assert "21587 " + f.no_return(f.enter(table.BY_NAME["exit"], [0] * 6, FakeMem()), col=6) == \
        "21587 exit(0)                           = ?"
    assert SyscallFormatter().no_return(st) == "exit_group(3) = ?"


def test_unfinished_wait4():
    f = SyscallFormatter(align=40)
    status = 0x7ffd2000
    st = f.enter(table.BY_NAME["wait4"], [21588, status, 0, 0, 0, 0], FakeMem())
    assert f.unfinished(st) == "wait4(21588,  <unfinished ...>"
    mem = FakeMem({status: struct.pack("<i", 3 << 8)})
    assert f.resumed(st, 21588, mem) == \
        "<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 21588"
    mem = FakeMem({status: struct.pack("<i", 15)})
    assert f.resumed(st, 21589, mem) == \
        "<... wait4 resumed>[{WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM}], 0, NULL) = 21589"


def test_unfinished_clock_nanosleep():
    f = SyscallFormatter(align=40)
    req = 0x7ffd3000
    mem = FakeMem({req: struct.pack("<qq", 0, 100000000)})
    st = f.enter(table.BY_NAME["clock_nanosleep"], [0, 0, req, 0, 0, 0], mem)
    assert f.unfinished(st) == \
        "clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=100000000},  <unfinished ...>"
    assert "21586 " + f.resumed(st, 0, mem, col=6) == "21586 <... clock_nanosleep resumed>NULL) = 0"


def test_clone3_thread():
    f = SyscallFormatter(align=40)
    ca, tid = 0x7ffd4000, 0x7fedd47fc990
    args = struct.pack("<11Q", 0x3d0f00, 0, tid, tid, 0, 0x7fedd3ffc000, 0x7fff80, 0x7fedd47fc6c0,
                       0, 0, 0)
    st = f.enter(table.BY_NAME["clone3"], [ca, 88, 0, 0, 0, 0], FakeMem({ca: args}))
    head = ("clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|"
            "CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7fedd47fc990, "
            "parent_tid=0x7fedd47fc990, exit_signal=0, stack=0x7fedd3ffc000, stack_size=0x7fff80, "
            "tls=0x7fedd47fc6c0}")
    assert f.unfinished(st) == head + " <unfinished ...>"
    mem = FakeMem({ca: args, tid: struct.pack("<i", 21587)})
    assert f.exit(st, 21587, mem) == head + " => {parent_tid=[21587]}, 88) = 21587"


def test_signal_lines_from_real_trace():
    assert format_signal({"si_signo": 17, "si_code": 1, "si_errno": 0, "si_pid": 21588, "si_uid": 0,
                          "si_status": 3, "si_utime": 0, "si_stime": 0}) == \
        ("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=21588, si_uid=0, si_status=3, "
         "si_utime=0, si_stime=0} ---")
    assert format_signal({"si_signo": 17, "si_code": 2, "si_pid": 21589, "si_uid": 0,
                          "si_status": 15, "si_utime": 0, "si_stime": 0}) == \
        ("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=21589, si_uid=0, "
         "si_status=SIGTERM, si_utime=0, si_stime=0} ---")
    assert format_signal({"si_signo": 15, "si_code": 0, "si_pid": 21589, "si_uid": 0}) == \
        "--- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=21589, si_uid=0} ---"
    assert format_signal({"si_signo": 11, "si_code": 1, "si_addr": 0}) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---"


def test_signal_from_layout_dict_and_bytes():
    from emutrace.kernel.layouts import SIGINFO
    raw = SIGINFO.pack(si_signo=11, si_code=2, si_addr=0x401000)
    assert format_signal(SIGINFO.unpack(raw)) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x401000} ---"
    assert format_signal(raw) == \
        "--- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_ACCERR, si_addr=0x401000} ---"
    raw = SIGINFO.pack(si_signo=6, si_code=-6, si_pid=77, si_uid=1000)
    assert format_signal(SIGINFO.unpack(raw)) == \
        "--- SIGABRT {si_signo=SIGABRT, si_code=SI_TKILL, si_pid=77, si_uid=1000} ---"
    raw = SIGINFO.pack(si_signo=2, si_code=0x80)
    assert format_signal(SIGINFO.unpack(raw)) == "--- SIGINT {si_signo=SIGINT, si_code=SI_KERNEL} ---"


def test_exit_lines():
    assert format_exited(0) == "+++ exited with 0 +++"
    assert format_exited(3) == "+++ exited with 3 +++"
    assert format_killed(15) == "+++ killed by SIGTERM +++"
    assert format_killed(11, core=True) == "+++ killed by SIGSEGV (core dumped) +++"


# ---------------------------------------------------------------------------------------------
# strace -y (fd paths) and -s (string limit), from real traces of cat

def _paths(fd):
    return {3: "/etc/hostname", -100: "/tmp/ref/real", 1: "/dev/null"}.get(fd)


def test_fd_paths():
    f = SyscallFormatter(align=40, fd_paths=True, fd_path=_paths)
    path = 0x7ffd5000
    mem = FakeMem({path: b"/etc/hostname\0"})
    st = f.enter(table.BY_NAME["openat"], [-100 & (2**64 - 1), path, 0, 0, 0, 0], mem)
    assert f.exit(st, 3, mem) == 'openat(AT_FDCWD</tmp/ref/real>, "/etc/hostname", O_RDONLY) = 3</etc/hostname>'
    st = f.enter(table.BY_NAME["close"], [3, 0, 0, 0, 0, 0], mem)
    assert f.exit(st, 0, mem) == "close(3</etc/hostname>)                 = 0"
    buf = 0x7ffd6000
    st = f.enter(table.BY_NAME["read"], [3, buf, 131072, 0, 0, 0], mem)
    assert f.exit(st, 3, FakeMem({buf: b"vm\n"})) == 'read(3</etc/hostname>, "vm\\n", 131072)  = 3'
    assert f.exit(f.enter(table.BY_NAME["close"], [1, 0, 0, 0, 0, 0], mem), 0, mem) == \
        "close(1</dev/null>)                     = 0"
    assert f.exit(f.enter(table.BY_NAME["close"], [9, 0, 0, 0, 0, 0], mem), 0, mem) == \
        "close(9)                                = 0"


def test_fd_path_escaping():
    f = SyscallFormatter(align=40, fd_paths=True, fd_path=lambda fd: '/tmp/ref/real/we<i>rd/f"x')
    st_buf, path = 0x7ffd7000, 0x7ffd8000
    stat = struct.pack("<QQQIII", 0x803, 1, 1, 0o100644, 0, 0).ljust(48, b"\0") + \
        struct.pack("<q", 3).ljust(96, b"\0")
    mem = FakeMem({st_buf: stat, path: b"\0"})
    st = f.enter(table.BY_NAME["newfstatat"], [3, path, st_buf, 0x1000, 0, 0], mem)
    assert f.exit(st, 0, mem) == ('newfstatat(3</tmp/ref/real/we\\74i\\76rd/f\\"x>, "", '
                                  '{st_mode=S_IFREG|0644, st_size=3, ...}, AT_EMPTY_PATH) = 0')


def test_string_limit():
    f = SyscallFormatter(string_limit=5, align=40)
    buf = 0x7ffd9000
    st = f.enter(table.BY_NAME["read"], [3, buf, 832, 0, 0, 0], FakeMem())
    mem = FakeMem({buf: b"\x7fELF\x02\x01\x01\x00"})
    assert f.exit(st, 832, mem) == 'read(3, "\\177ELF\\2"..., 832)            = 832'
    st = f.enter(table.BY_NAME["read"], [3, buf, 4096, 0, 0, 0], FakeMem())
    mem = FakeMem({buf: b"# Locale name alias data base.\n"})
    assert f.exit(st, 2996, mem) == 'read(3, "# Loc"..., 4096)               = 2996'
    assert f.exit(st, 0, mem) == 'read(3, "", 4096)                       = 0'


def test_paths_ignore_string_limit():
    f = SyscallFormatter(string_limit=5)
    path = 0x7ffda000
    mem = FakeMem({path: b"/etc/ld.so.cache\0"})
    st = f.enter(table.BY_NAME["openat"], [-100, path, 0x80000, 0, 0, 0], mem)
    assert f.exit(st, 3, mem) == 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3'


def test_string_limit_on_arrays():
    f = SyscallFormatter(string_limit=2)
    argv, a, b, c = 0x7ffdb000, 0x7ffdc000, 0x7ffdc010, 0x7ffdc020
    mem = FakeMem({argv: struct.pack("<4Q", a, b, c, 0), a: b"ls\0", b: b"-l\0", c: b"/tmp\0",
                   0x7ffdd000: b"/bin/ls\0", 0x7ffde000: struct.pack("<Q", 0)})
    st = f.enter(table.BY_NAME["execve"], [0x7ffdd000, argv, 0x7ffde000, 0, 0, 0], mem)
    assert f.exit(st, 0, mem) == 'execve("/bin/ls", ["ls", "-l", ...], 0x7ffde000 /* 0 vars */) = 0'


# ---------------------------------------------------------------------------------------------
# lines of `strace ls -l` rebuilt from memory

def test_ls_execve():
    argv, envp = 0x7ffcdd244360, 0x7ffcdd244388
    strings = {0x7ffcdd245000 + 0x40 * i: s + b"\0" for i, s in
               enumerate([b"ls", b"-l", b"/etc/hostname", b"/nonexistent"])}
    env = {0x7ffcdd246000 + 0x20 * i: b"X=%d\0" % i for i in range(35)}
    regions = dict(strings)
    regions.update(env)
    regions[argv] = struct.pack("<5Q", *sorted(strings), 0)
    regions[envp] = struct.pack("<36Q", *sorted(env), 0)
    regions[0x55d0] = b"/usr/bin/ls\0"
    assert fmt_line("execve", [0x55d0, argv, envp], 0, FakeMem(regions)) == \
        ('execve("/usr/bin/ls", ["ls", "-l", "/etc/hostname", "/nonexistent"], '
         '0x7ffcdd244388 /* 35 vars */) = 0')


def test_ls_misc_lines():
    mem = FakeMem({0x7ffc3c2cf000: b"/sys/fs/selinux\0",
                   0x7ffc3c2ce000: bytes.fromhex("112853 9a50d1f0fb".replace(" ", "")),
                   0x7ffc3c2cd000: struct.pack("<QQ", 8192 * 1024, 2 ** 64 - 1)})
    assert fmt_line("statfs", [0x7ffc3c2cf000, 0x7ffc3c2cead0], -2, mem) == \
        'statfs("/sys/fs/selinux", 0x7ffc3c2cead0) = -1 ENOENT (No such file or directory)'
    assert fmt_line("getrandom", [0x7ffc3c2ce000, 8, 1], 8, mem) == \
        'getrandom("\\x11\\x28\\x53\\x9a\\x50\\xd1\\xf0\\xfb", 8, GRND_NONBLOCK) = 8'
    assert fmt_line("prlimit64", [0, 3, 0, 0x7ffc3c2cd000], 0, mem) == \
        "prlimit64(0, RLIMIT_STACK, NULL, {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY}) = 0"
    assert fmt_line("brk", [0], 0x55c0d6e48000, mem) == \
        "brk(NULL)                               = 0x55c0d6e48000"
    assert fmt_line("mmap", [0, 8192, 3, 0x22, -1 & (2**64 - 1), 0], 0x7ffb40382000, mem) == \
        "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7ffb40382000"
    assert fmt_line("arch_prctl", [0x1002, 0x7ffb400cc800], 0, mem) == \
        "arch_prctl(ARCH_SET_FS, 0x7ffb400cc800) = 0"
    assert fmt_line("set_tid_address", [0x7ffb400ccad0], 21751, mem) == \
        "set_tid_address(0x7ffb400ccad0)         = 21751"
    assert fmt_line("futex", [0x7ffb4033da4c, 0x81, 2147483647], 0, mem) == \
        "futex(0x7ffb4033da4c, FUTEX_WAKE_PRIVATE, 2147483647) = 0"


# ---------------------------------------------------------------------------------------------
# strace -c

SUMMARY = """\
% time     seconds  usecs/call     calls    errors syscall
------ ----------- ----------- --------- --------- ----------------
 36.61    0.000547           2       205       205 getxattr
 27.38    0.000409           2       139           statx
 25.57    0.000382           2       139       139 lgetxattr
  3.08    0.000046           1        34           close
  2.07    0.000031           0        47        19 openat
  1.61    0.000024           0        37           newfstatat
  1.27    0.000019           4         4           readlink
  0.87    0.000013           0        16           read
  0.54    0.000008           2         3           write
  0.54    0.000008           1         6           lseek
  0.27    0.000004           2         2           getdents64
  0.20    0.000003           1         2         2 ioctl
  0.00    0.000000           0        30           mmap
  0.00    0.000000           0         5           mprotect
  0.00    0.000000           0         1           munmap
  0.00    0.000000           0         3           brk
  0.00    0.000000           0         2           pread64
  0.00    0.000000           0         2         2 access
  0.00    0.000000           0         4           socket
  0.00    0.000000           0         4         4 connect
  0.00    0.000000           0         1           execve
  0.00    0.000000           0         2         2 statfs
  0.00    0.000000           0         1           arch_prctl
  0.00    0.000000           0         1           futex
  0.00    0.000000           0         1           set_tid_address
  0.00    0.000000           0         1           set_robust_list
  0.00    0.000000           0         1           prlimit64
  0.00    0.000000           0         1           getrandom
  0.00    0.000000           0         1           rseq
------ ----------- ----------- --------- --------- ----------------
100.00    0.001494           2       695       373 total
"""


def _summary_rows(text):
    rows = []
    for line in text.splitlines()[2:-2]:
        p = line.split()
        if len(p) == 6:
            rows.append((p[5], int(p[3]), int(p[4]), float(p[1])))
        else:
            rows.append((p[4], int(p[3]), 0, float(p[1])))
    return rows


def test_summary_matches_strace_c():
    rows = _summary_rows(SUMMARY)
    assert format_summary(rows) == SUMMARY
    assert format_summary(list(reversed(rows))) == SUMMARY     # sorted by time, ties by number


def test_summary_small():
    text = format_summary([("write", 1, 0, 0.000010), ("read", 2, 1, 0.000030)])
    assert text.splitlines() == [
        "% time     seconds  usecs/call     calls    errors syscall",
        "------ ----------- ----------- --------- --------- ----------------",
        " 75.00    0.000030          15         2         1 read",
        " 25.00    0.000010          10         1           write",
        "------ ----------- ----------- --------- --------- ----------------",
        "100.00    0.000040          13         3         1 total",
    ]


# ---------------------------------------------------------------------------------------------
# smaller rules

def test_quote_string():
    assert quote_string(b"hello\n") == '"hello\\n"'
    assert quote_string(b'a"b\\c') == '"a\\"b\\\\c"'
    assert quote_string(b"\x00\x01\x1b\x7f\x80\xff") == '"\\0\\1\\33\\177\\200\\377"'
    assert quote_string(b"\x001\x002\x1b[") == '"\\0001\\0002\\33["'
    assert quote_string(b"\x008") == '"\\08"'                # 8 is not an octal digit
    assert quote_string(b"\t\r\v\f\a\b") == '"\\t\\r\\v\\f\\7\\10"'
    assert quote_string(b"\x00\x0f", force_hex=True) == '"\\x00\\x0f"'
    assert quote_string(b"a<b>", quotes=False, extra_escape="<>") == "a\\74b\\76"
    assert quote_string("héllo".encode()) == '"h\\303\\251llo"'


@pytest.mark.parametrize("ret,kind,expected", [
    (-2, "int", "-1 ENOENT (No such file or directory)"),
    (-512, "int", "? ERESTARTSYS (To be restarted if SA_RESTART is set)"),
    (-513, "int", "? ERESTARTNOINTR (To be restarted)"),
    (-514, "int", "? ERESTARTNOHAND (To be restarted if no handler)"),
    (-516, "int", "? ERESTART_RESTARTBLOCK (Interrupted by signal)"),
    (-133, "int", "-1 EHWPOISON (Memory page has hardware error)"),
    (-300, "int", "-1 (errno 300)"),
    (-4095, "int", "-1 (errno 4095)"),
    (-4096, "int", "-4096"),
    (0x7f0000000000, "ptr", "0x7f0000000000"),
    (0, "hex", "0"),
    (18, "octal", "022"),
    (10, "signo", "10 (SIGUSR1)"),
    (0, "enum:sched_policies", "0 (SCHED_OTHER)"),
    (0x40000000, "enum:sched_policies", "1073741824"),
    (0x40000, "personality", "0x40000 (PER_LINUX|ADDR_NO_RANDOMIZE)"),
    (2 ** 64 - 2, "int", "-1 ENOENT (No such file or directory)"),   # unsigned register value
])
def test_return_values(ret, kind, expected):
    assert strace.format_return(ret, kind) == expected


def test_dates_are_utc_unless_asked():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["time"], [0] * 6, 1700000000, FakeMem()) == \
        "time(NULL) = 1700000000 (2023-11-14T22:13:20+0000)"
    if hasattr(time, "tzset"):
        f = SyscallFormatter(localtime=True)
        assert f.format(table.BY_NAME["time"], [0] * 6, 1700000000, FakeMem()) == \
            "time(NULL) = 1700000000 (2023-11-14T17:13:20-0500)"


def test_never_fails_calls():
    assert SyscallFormatter().format(table.BY_NAME["getpid"], [0] * 6, -5, FakeMem()) == "getpid() = -5"


def test_rt_sigreturn_reads_the_frame():
    f = SyscallFormatter()
    sp = 0x7ffde0000
    mem = FakeMem({sp: bytes(296) + struct.pack("<Q", (1 << 1) | (1 << 14))})
    st = f.enter(table.BY_NAME["rt_sigreturn"], [0] * 6, mem, sp=sp)
    assert f.exit(st, 0, mem) == "rt_sigreturn({mask=[INT TERM]}) = 0"
    st = f.enter(table.BY_NAME["rt_sigreturn"], [0] * 6, mem)
    assert f.exit(st, 0, mem) == "rt_sigreturn() = 0"


def test_restart_syscall_names_the_previous_call():
    f = SyscallFormatter(align=40)
    req = 0x7ffdf000
    mem = FakeMem({req: struct.pack("<qq", 10, 0)})
    st = f.enter(table.BY_NAME["nanosleep"], [req, req, 0, 0, 0, 0], mem, tid=7)
    assert f.exit(st, -516, mem) == ("nanosleep({tv_sec=10, tv_nsec=0}, {tv_sec=10, tv_nsec=0}) "
                                     "= ? ERESTART_RESTARTBLOCK (Interrupted by signal)")
    st = f.enter(table.BY_NAME["restart_syscall"], [0] * 6, mem, tid=7)
    assert f.exit(st, 0, mem) == \
        "restart_syscall(<... resuming interrupted nanosleep ...>) = 0"


def test_nanosleep_remaining_only_when_interrupted():
    req = 0x7ffdf000
    mem = FakeMem({req: struct.pack("<qq", 1, 500000000)})
    assert fmt_line("nanosleep", [req, req], -4, mem, align=0) == \
        "nanosleep({tv_sec=1, tv_nsec=500000000}, 0x7ffdf000) = -1 EINTR (Interrupted system call)"


def test_poll_revents_have_no_comment():
    fds = 0x7ffe0000
    mem = FakeMem({fds: struct.pack("<iHH", 3, 0x800, 0x800)})
    assert fmt_line("poll", [fds, 1, 0], 1, mem) == \
        "poll([{fd=3, events=0x800 /* POLL??? */}], 1, 0) = 1 ([{fd=3, revents=0x800}])"


def test_alignment():
    f = SyscallFormatter(align=40)
    st = f.enter(table.BY_NAME["close"], [3] + [0] * 5, FakeMem())
    assert f.exit(st, 0, FakeMem()) == "close(3)" + " " * 32 + "= 0"
    assert f.exit(st, 0, FakeMem(), col=6) == "close(3)" + " " * 26 + "= 0"
    assert f.exit(st, 0, FakeMem(), col=40) == "close(3) = 0"
    assert SyscallFormatter().exit(st, 0, FakeMem()) == "close(3) = 0"


def test_unreadable_memory_prints_addresses():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["openat"], [-100, 0x1234, 0, 0, 0, 0], -14, FakeMem()) == \
        "openat(AT_FDCWD, 0x1234, O_RDONLY) = -1 EFAULT (Bad address)"
    assert f.format(table.BY_NAME["fstat"], [3, 0x1234, 0, 0, 0, 0], 0, FakeMem()) == \
        "fstat(3, 0x1234) = 0"
    assert f.format(table.BY_NAME["write"], [1, 0x1234, 5, 0, 0, 0], 5, FakeMem()) == \
        "write(1, 0x1234, 5) = 5"


def test_newer_syscalls_have_names():
    f = SyscallFormatter()
    assert f.format(table.BY_NAME["mseal"], [0x7f0000000000, 4096, 0, 0, 0, 0], 0, FakeMem()) == \
        "mseal(0x7f0000000000, 4096, 0) = 0"
    path = 0x7ffe1000
    mem = FakeMem({path: b"/tmp/x\0"})
    assert f.format(table.BY_NAME["fchmodat2"], [-100, path, 0o644, 0x100, 0, 0], 0, mem) == \
        'fchmodat2(AT_FDCWD, "/tmp/x", 0644, AT_SYMLINK_NOFOLLOW) = 0'


def test_struct_decoders_exist():
    for name in ("stat", "statx", "statfs", "timespec", "timeval", "sigaction", "utsname",
                 "rlimit", "sysinfo", "siginfo", "rusage", "tms", "itimerval", "itimerspec",
                 "msghdr", "termios", "winsize", "epoll_event", "stack_t", "clone_args", "timex"):
        assert name in strace.STRUCT_DECODERS, name


def test_random_input_never_raises():
    import random
    rnd = random.Random(1)
    data = bytes(rnd.randrange(256) for _ in range(4096))
    mem = FakeMem({0x10000: data})
    for limit in (0, 5, 32):
        f = SyscallFormatter(string_limit=limit, fd_paths=True, fd_path=lambda fd: "/x",
                             align=40)
        for row in table.ROWS:
            for _ in range(3):
                args = [rnd.choice([0, 1, 3, 2 ** 64 - 1, 0x10000 + rnd.randrange(4096),
                                    rnd.getrandbits(64)]) for _ in range(6)]
                ret = rnd.choice([0, 3, 100, -2, -512, 2 ** 40])
                st = f.enter(row, args, mem, tid=1)
                f.unfinished(st)
                line = f.exit(st, ret, mem)
                f.resumed(st, ret, mem)
                assert line.startswith(row.name + "(")


def test_quote_string_plain_text_shortcut_matches_the_byte_loop():
    """Text with nothing to escape skips the tables; the result is strace's rule applied byte by
    byte (the loop below). An extra_escape of NUL changes nothing for any data: NUL is octal
    anyway."""
    import random
    from emutrace.decode.strace import quote_string

    def by_byte(data, extra=""):
        escapes = {ord('"'): '\\"', ord("\\"): "\\\\", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v"}
        out = []
        for i, c in enumerate(data):
            if chr(c) not in extra and c in escapes:
                out.append(escapes[c])
            elif chr(c) not in extra and 0x20 <= c < 0x7f:
                out.append(chr(c))
            elif i + 1 < len(data) and 0x30 <= data[i + 1] <= 0x37:
                out.append("\\%03o" % c)
            else:
                out.append("\\%o" % c)
        return "".join(out)

    rng = random.Random(7)
    alphabets = [bytes(range(0x20, 0x7f)), b"ab\"\\ \t\n\x7f\x80\xff01234567<>", bytes(range(1, 256))]
    for k in range(3000):
        alphabet = alphabets[k % 3]
        data = bytes(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        for quotes in (True, False):
            assert quote_string(data, quotes=quotes) == quote_string(data, quotes=quotes, extra_escape="\0"), data
        assert quote_string(data, quotes=False) == by_byte(data), data
        assert quote_string(data, quotes=False, extra_escape="<>") == by_byte(data, "<>"), data
    assert quote_string(b'say "hi"\\') == '"say \\"hi\\"\\\\"'
