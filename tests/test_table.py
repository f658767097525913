"""Sanity of the syscall table: every x86-64 syscall once, kinds that parse, classes strace knows."""
import pytest

from emutrace.decode import xlat
from emutrace.kernel import table
from emutrace.kernel.table import BY_NAME, BY_NR, CLASSES, ROWS, Syscall, parse_kind, parse_ret

# asm/unistd_64.h (Linux 6.1 headers go to 450; 451..471 are newer kernels', up to the 6.19 headers strace 7.2 bundles)
EXPECTED_NRS = set(range(0, 335)) | set(range(424, 472))


def test_rows_are_syscalls():
    for row in ROWS:
        assert isinstance(row, Syscall)
        assert isinstance(row.args, tuple)
        assert isinstance(row.classes, frozenset)
        assert row.name.isidentifier()


def test_numbers_unique_and_complete():
    nrs = [row.nr for row in ROWS]
    assert len(nrs) == len(set(nrs))
    assert set(nrs) == EXPECTED_NRS
    assert nrs == sorted(nrs)


def test_names_unique():
    names = [row.name for row in ROWS]
    assert len(names) == len(set(names))
    assert len(BY_NAME) == len(BY_NR) == len(ROWS)


@pytest.mark.parametrize("nr,name", [
    (0, "read"), (1, "write"), (2, "open"), (3, "close"), (9, "mmap"), (12, "brk"),
    (13, "rt_sigaction"), (15, "rt_sigreturn"), (39, "getpid"), (56, "clone"), (59, "execve"),
    (60, "exit"), (61, "wait4"), (158, "arch_prctl"), (202, "futex"), (217, "getdents64"),
    (218, "set_tid_address"), (219, "restart_syscall"), (231, "exit_group"), (257, "openat"),
    (262, "newfstatat"), (273, "set_robust_list"), (302, "prlimit64"), (318, "getrandom"),
    (332, "statx"), (334, "rseq"), (424, "pidfd_send_signal"), (435, "clone3"),
    (436, "close_range"), (439, "faccessat2"), (450, "set_mempolicy_home_node"),
    (451, "cachestat"), (452, "fchmodat2"), (453, "map_shadow_stack"), (454, "futex_wake"),
    (457, "statmount"), (462, "mseal"),
])
def test_known_numbers(nr, name):
    assert BY_NR[nr].name == name
    assert BY_NAME[name].nr == nr


def test_every_kind_parses():
    for row in ROWS:
        for kind in row.args:
            base, param = parse_kind(kind)
            assert base in table.KINDS
        parse_ret(row.ret)


def test_bad_kinds_rejected():
    for bad in ("bogus", "buf_in", "buf_in:x", "buf_in:9", "flags", "int:3", "struct_in"):
        with pytest.raises(ValueError):
            parse_kind(bad)
    with pytest.raises(ValueError):
        parse_ret("string")


def test_argument_references_are_valid():
    """buf_in:N, buf_out:N, iovec:N, sigset:N ... name another argument of the same call."""
    for row in ROWS:
        n = len(row.args)
        for i, kind in enumerate(row.args):
            base, param = parse_kind(kind)
            if table.KINDS[base] == "arg" and param is not None:
                assert 0 <= param < n, (row.name, kind)
                assert param != i, (row.name, kind)
                target, _ = parse_kind(row.args[param])
                assert target in ("int", "uint", "long", "ulong", "hex", "fd", "socklen_io"), \
                    (row.name, kind, row.args[param])


def test_buf_out_arguments_are_sizes():
    for row in ROWS:
        for kind in row.args:
            base, param = parse_kind(kind)
            if base in ("buf_in", "buf_out"):
                target, _ = parse_kind(row.args[param])
                assert target in ("int", "uint", "ulong", "long"), (row.name, kind)


def test_at_most_six_arguments():
    for row in ROWS:
        assert len(row.args) <= 6, row.name


def test_sets_exist():
    for row in ROWS:
        for kind in row.args:
            base, param = parse_kind(kind)
            if base in ("flags", "enum"):
                assert param in xlat.SETS, (row.name, kind)
        base, param = parse_ret(row.ret)
        if param:
            assert param in xlat.SETS


def test_struct_names_have_decoders_or_print_hex():
    from emutrace.decode import strace
    unknown = set()
    for row in ROWS:
        for kind in row.args:
            base, param = parse_kind(kind)
            if base in ("struct_in", "struct_out") and param not in strace.STRUCT_DECODERS:
                unknown.add(param)
    assert not unknown, unknown


def test_classes_known():
    assert CLASSES == {"%file", "%desc", "%memory", "%process", "%signal", "%network", "%ipc",
                       "%clock", "%creds", "%pure", "%stat", "%lstat", "%fstat", "%%stat",
                       "%statfs", "%fstatfs", "%%statfs"}
    for row in ROWS:
        assert row.classes <= CLASSES, (row.name, row.classes - CLASSES)


def _names(cls):
    return {row.name for row in table.by_class(cls)}


def test_classes_as_strace_reports_them():
    # strace 6.1 -e trace=%CLASS, checked with fault injection over every syscall number
    assert _names("%stat") == {"stat"}
    assert _names("%lstat") == {"lstat"}
    assert _names("%fstat") == {"fstat", "newfstatat", "statx"}
    assert _names("%%stat") == {"stat", "fstat", "lstat", "newfstatat", "statx"}
    assert _names("%statfs") == {"statfs"}
    assert _names("%fstatfs") == {"fstatfs"}
    assert _names("%%statfs") == {"ustat", "statfs", "fstatfs"}
    assert _names("%pure") == {"getpid", "getuid", "getgid", "geteuid", "getegid", "getppid",
                               "getpgrp", "gettid"}
    assert _names("%clock") == {"gettimeofday", "adjtimex", "settimeofday", "time",
                                "clock_settime", "clock_gettime", "clock_getres", "clock_adjtime"}
    assert _names("%ipc") == {"shmget", "shmat", "shmctl", "semget", "semop", "semctl", "shmdt",
                              "msgget", "msgsnd", "msgrcv", "msgctl", "semtimedop"}
    assert _names("%process") == {"clone", "fork", "vfork", "execve", "exit", "wait4", "kill",
                                  "rt_sigqueueinfo", "tkill", "exit_group", "tgkill", "waitid",
                                  "rt_tgsigqueueinfo", "execveat", "pidfd_send_signal", "clone3"}
    assert _names("%network") == {"sendfile", "socket", "connect", "accept", "sendto",
                                  "recvfrom", "sendmsg", "recvmsg", "shutdown", "bind", "listen",
                                  "getsockname", "getpeername", "socketpair", "setsockopt",
                                  "getsockopt", "getpmsg", "putpmsg", "accept4", "recvmmsg",
                                  "sendmmsg"}
    assert _names("%creds") == {"getuid", "getgid", "setuid", "setgid", "geteuid", "getegid",
                                "setreuid", "setregid", "getgroups", "setgroups", "setresuid",
                                "getresuid", "setresgid", "getresgid", "setfsuid", "setfsgid",
                                "capget", "capset", "prctl"}
    assert _names("%memory") >= {"mmap", "mprotect", "munmap", "brk", "mremap", "madvise",
                                 "shmat", "shmdt", "mlock2", "pkey_mprotect", "io_uring_register"}
    assert _names("%signal") >= {"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "kill",
                                 "tgkill", "signalfd4", "pidfd_send_signal", "io_uring_enter"}
    assert {"open", "openat", "execve", "stat", "statx", "readlinkat"} <= _names("%file")
    assert {"read", "write", "close", "openat", "mmap", "ioctl", "fcntl"} <= _names("%desc")
    assert "read" not in _names("%file")
    assert _names("file") == _names("%file")


def test_no_classes():
    for name in ("sched_yield", "uname", "getrandom", "rseq", "futex", "set_tid_address"):
        assert BY_NAME[name].classes == frozenset(), name


def test_return_kinds():
    assert BY_NAME["mmap"].ret == "ptr"
    assert BY_NAME["brk"].ret == "ptr"
    assert BY_NAME["openat"].ret == "fd"
    assert BY_NAME["exit_group"].ret == "void"
    assert BY_NAME["exit"].ret == "void"
    assert BY_NAME["umask"].ret == "octal"
    assert BY_NAME["rt_sigtimedwait"].ret == "signo"


def test_argument_counts_match_strace():
    # how many arguments strace 6.1 prints (its syscallent nargs) for a few calls
    for name, n in [("read", 3), ("mmap", 6), ("openat", 4), ("rt_sigaction", 4),
                    ("rt_sigprocmask", 4), ("clone", 5), ("execve", 3), ("wait4", 4),
                    ("getdents64", 3), ("prlimit64", 4), ("statx", 5), ("futex", 6),
                    ("exit_group", 1), ("getpid", 0), ("preadv2", 6), ("rseq", 4)]:
        assert len(BY_NAME[name].args) == n, name
