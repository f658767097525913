"""xlat: the header values, the composite printing rules, signals, modes, devices, futex ops and
the API of the name tables, pinned against strace 6.1 and Linux's headers. Every flag/enum set
is pinned value by value in test_xlat_sets_files.py and test_xlat_sets_system.py, the ioctl
names in test_xlat_ioctl.py.

The expected strings were produced by strace 6.1 itself (Debian 12), by running raw syscalls with
the value under `strace -e inject=all:error=ENOSYS` so nothing really ran while strace decoded
the argument. Values are Linux x86-64 values (asm/*.h, linux/*.h), never the host's."""
import pytest

from emutrace.decode import xlat
from emutrace.decode.xlat import (SETS, Xlat, format_enum, format_flags, format_futex_op, format_mode,
                                  format_sigset, lookup, signal_name)


# ---------------------------------------------------------------------------------------------
# header values (asm-generic/fcntl.h, asm/mman.h, linux/sched.h, ...)

@pytest.mark.parametrize("set_name,name,value", [
    ("open_flags", "O_CLOEXEC", 0o2000000), ("open_flags", "O_DIRECTORY", 0o200000),
    ("open_flags", "O_NONBLOCK", 0o4000), ("open_flags", "O_CREAT", 0o100),
    ("open_flags", "O_TMPFILE", 0o20200000), ("open_flags", "O_SYNC", 0o4010000),
    ("open_flags", "O_LARGEFILE", 0o100000), ("open_flags", "O_PATH", 0o10000000),
    ("at_flags", "AT_EMPTY_PATH", 0x1000), ("at_flags", "AT_SYMLINK_NOFOLLOW", 0x100),
    ("at_flags", "AT_REMOVEDIR", 0x200), ("faccessat_flags", "AT_EACCESS", 0x200),
    ("mmap_prot", "PROT_EXEC", 4), ("mmap_flags", "MAP_ANONYMOUS", 0x20),
    ("mmap_flags", "MAP_FIXED_NOREPLACE", 0x100000), ("mmap_flags", "MAP_STACK", 0x20000),
    ("mmap_types", "MAP_PRIVATE", 2), ("mremap_flags", "MREMAP_MAYMOVE", 1),
    ("madvise_advice", "MADV_DONTNEED", 4), ("madvise_advice", "MADV_FREE", 8),
    ("clocks", "CLOCK_MONOTONIC", 1), ("clocks", "CLOCK_BOOTTIME", 7),
    ("sa_flags", "SA_RESTORER", 0x04000000), ("sa_flags", "SA_SIGINFO", 4),
    ("sa_flags", "SA_RESTART", 0x10000000), ("sigprocmask_how", "SIG_SETMASK", 2),
    ("fcntl_cmds", "F_DUPFD_CLOEXEC", 1030), ("fcntl_cmds", "F_SETFL", 4),
    ("fdflags", "FD_CLOEXEC", 1), ("whence", "SEEK_END", 2),
    ("arch_prctl_code", "ARCH_SET_FS", 0x1002), ("futex_ops", "FUTEX_WAIT_BITSET", 9),
    ("rlimit_resources", "RLIMIT_NOFILE", 7), ("rlimit_resources", "RLIMIT_STACK", 3),
    ("clone_flags", "CLONE_VM", 0x100), ("clone_flags", "CLONE_SETTLS", 0x80000),
    ("clone3_flags", "CLONE_INTO_CGROUP", 0x200000000), ("wait_options", "WNOHANG", 1),
    ("wait_options", "__WALL", 0x40000000), ("idtypes", "P_PIDFD", 3),
    ("statx_mask", "STATX_BASIC_STATS", 0x7ff), ("at_statx_sync_types", "AT_STATX_DONT_SYNC", 0x4000),
    ("getrandom_flags", "GRND_NONBLOCK", 1), ("pollflags", "POLLRDHUP", 0x2000),
    ("epollevents", "EPOLLET", 1 << 31), ("epollflags", "EPOLL_CLOEXEC", 0x80000),
    ("address_families", "AF_INET6", 10), ("address_families", "AF_NETLINK", 16),
    ("socket_types", "SOCK_SEQPACKET", 5), ("sock_type_flags", "SOCK_CLOEXEC", 0x80000),
    ("ipprotos", "IPPROTO_TCP", 6), ("sockopt_level", "SOL_SOCKET", 1),
    ("sockopt_socket", "SO_REUSEADDR", 2), ("msg_flags", "MSG_NOSIGNAL", 0x4000),
    ("prctl_options", "PR_SET_NAME", 15), ("prctl_options", "PR_SET_VMA", 0x53564d41),
    ("sched_policies", "SCHED_IDLE", 5), ("rusage_who", "RUSAGE_CHILDREN", -1),
    ("itimer_which", "ITIMER_PROF", 2), ("timer_flags", "TIMER_ABSTIME", 1),
    ("memfd_create_flags", "MFD_ALLOW_SEALING", 2), ("efd_flags", "EFD_SEMAPHORE", 1),
    ("rename_flags", "RENAME_EXCHANGE", 2), ("close_range_flags", "CLOSE_RANGE_CLOEXEC", 4),
    ("personality_types", "PER_LINUX32", 8), ("personality_flags", "ADDR_NO_RANDOMIZE", 0x40000),
    ("mlockall_flags", "MCL_FUTURE", 2), ("msync_flags", "MS_SYNC", 4),
    ("ipc_flags", "IPC_CREAT", 0o1000), ("shmctl_cmd", "IPC_RMID", 0),
    ("file_types", "S_IFSOCK", 0o140000), ("dirent_types", "DT_LNK", 10),
    ("utime_special", "UTIME_NOW", (1 << 30) - 1), ("utime_special", "UTIME_OMIT", (1 << 30) - 2),
    ("access_modes", "R_OK", 4), ("seccomp_ops", "SECCOMP_SET_MODE_FILTER", 1),
    ("siginfo_codes", "SI_TKILL", -6), ("segv_codes", "SEGV_ACCERR", 2),
    ("cld_codes", "CLD_KILLED", 2), ("scm_types", "SCM_RIGHTS", 1),
])
def test_header_values(set_name, name, value):
    assert SETS[set_name].names()[name] == value


# ---------------------------------------------------------------------------------------------
# composite printing rules, from strace 6.1's output

@pytest.mark.parametrize("set_name,value,expected", [
    ("open_flags", 0, "O_RDONLY"),
    ("open_flags", 0x80000, "O_RDONLY|O_CLOEXEC"),
    ("open_flags", 0x90800, "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY"),
    ("open_flags", 0x241, "O_WRONLY|O_CREAT|O_TRUNC"),
    ("open_flags", 3, "O_ACCMODE"),
    ("open_flags", 0x101000, "O_RDONLY|O_SYNC"),
    ("open_flags", 0x410000, "O_RDONLY|O_TMPFILE"),
    ("open_flags", 0x4, "O_RDONLY|0x4"),
    ("open_flags", 0x8002, "O_RDWR|O_LARGEFILE"),
    ("mmap_flags", 0, "MAP_FILE"),
    ("mmap_flags", 0x22, "MAP_PRIVATE|MAP_ANONYMOUS"),
    ("mmap_flags", 0x812, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE"),
    ("mmap_flags", 0x80003, "MAP_SHARED_VALIDATE|MAP_SYNC"),
    ("mmap_flags", 0x22 | 0x40000 | (21 << 26), "MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGETLB|21<<MAP_HUGE_SHIFT"),
    ("mmap_flags", 0x24, "0x4 /* MAP_??? */|MAP_ANONYMOUS"),
    ("mmap_flags", 0x10000080, "MAP_FILE|0x80|4<<MAP_HUGE_SHIFT"),
    ("mmap_prot", 0, "PROT_NONE"),
    ("mmap_prot", 3, "PROT_READ|PROT_WRITE"),
    ("mmap_prot", 0x20, "0x20 /* PROT_??? */"),
    ("socket_type", 0x80001, "SOCK_STREAM|SOCK_CLOEXEC"),
    ("socket_type", 0x80805, "SOCK_SEQPACKET|SOCK_CLOEXEC|SOCK_NONBLOCK"),
    ("socket_type", 0x80007, "SOCK_CLOEXEC|0x7"),
    ("socket_type", 0x11, "SOCK_STREAM|0x10 /* SOCK_??? */"),
    ("socket_type", 7, "0x7 /* SOCK_??? */"),
    ("ipc_flags", 0, "000"),
    ("ipc_flags", 0o1600, "IPC_CREAT|0600"),
    ("ipc_flags", 0x2000 | 0o600, "0x2000|0600"),
    ("ipc_flags", 0x800 | (21 << 26) | 0o644, "SHM_HUGETLB|21<<SHM_HUGE_SHIFT|0644"),
    ("ipc_flags", 1 << 26, "1<<SHM_HUGE_SHIFT|000"),
    ("memfd_create_flags", 0x80000010, "MFD_EXEC|32<<MFD_HUGE_SHIFT"),
    ("memfd_create_flags", 0x54000009, "MFD_CLOEXEC|MFD_NOEXEC_SEAL|21<<MFD_HUGE_SHIFT"),
    ("personality", 0, "PER_LINUX"),
    ("personality", 0x40000, "PER_LINUX|ADDR_NO_RANDOMIZE"),
    ("personality", 0x18, "0x18 /* PER_??? */"),
    ("personality", 0x40100, "PER_LINUX|ADDR_NO_RANDOMIZE|0x100"),
    ("at_statx_flags", 0, "AT_STATX_SYNC_AS_STAT"),
    ("at_statx_flags", 0x1000, "AT_STATX_SYNC_AS_STAT|AT_EMPTY_PATH"),
    ("at_statx_flags", 0x2000, "AT_STATX_FORCE_SYNC"),
    ("at_statx_flags", 1, "AT_STATX_SYNC_AS_STAT|0x1"),
    ("statx_mask", 0x7ff, "STATX_BASIC_STATS"),
    ("statx_mask", 0xfff, "STATX_ALL"),
    ("statx_mask", 0x17ff, "STATX_BASIC_STATS|STATX_MNT_ID"),
    ("statx_mask", 0x80000000, "0x80000000 /* STATX_??? */"),
    ("fan_init_flags", 0xc, "0xc /* FAN_CLASS_??? */"),
    ("fan_init_flags", 0x2004, "FAN_CLASS_CONTENT|FAN_REPORT_FD_ERROR"),
    ("kexec_load_flags", 0x3e0001, "KEXEC_ARCH_X86_64|KEXEC_ON_CRASH"),
    ("kexec_load_flags", 0xc0004, "0xc0000 /* KEXEC_ARCH_??? */|KEXEC_UPDATE_ELFCOREHDR"),   # (Linux 6.19's ABI)
    ("swap_flags", 0x8005, "SWAP_FLAG_PREFER|5"),
    ("swap_flags", 0x10000, "SWAP_FLAG_DISCARD|0"),
    ("swap_flags", 0, "0"),
    ("flock_ops", 0xe0, "LOCK_MAND|LOCK_RW"),
    ("flock_ops", 0x60, "LOCK_MAND|LOCK_READ"),
    ("access_modes", 0, "F_OK"),
    ("access_modes", 7, "R_OK|W_OK|X_OK"),
    ("access_modes", 8, "0x8 /* ?_OK */"),
    ("wait_options", 0x30, "0x30 /* W??? */"),
    ("wait_options", 0x11, "WNOHANG|0x10"),
    ("clone_flags", 0x3d0f00, "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|"
     "CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID"),
    ("clone_flags", 0x400000, "0x400000 /* CLONE_??? */"),
    ("sa_flags", 0x14000004, "SA_RESTORER|SA_RESTART|SA_SIGINFO"),
    ("sa_flags", 0x10, "0x10 /* SA_??? */"),
    ("rseq_flags", 0, "0"),
    ("rseq_flags", 1, "0x1"),
    ("membarrier_cmds", 0, "MEMBARRIER_CMD_QUERY"),
    ("membarrier_cmds", 3, "0x3 /* MEMBARRIER_CMD_??? */"),
    ("xfeature_masks", 0x2e7, "XFEATURE_MASK_FPSSE|XFEATURE_MASK_YMM|XFEATURE_MASK_AVX512|"
     "XFEATURE_MASK_PKRU"),
    ("fs_flags", 0x80000, "FS_EXTENT_FL"),
    ("fs_flags", 0x1000000, "0x1000000 /* FS_???_FL */"),
    ("term_lflags", 0x8a3b, "ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN|ECHOCTL|ECHOKE"),
    ("statfs_flags", 0x1020, "ST_VALID|ST_RELATIME"),
    ("statx_attrs", 0x20, "STATX_ATTR_APPEND"),
    ("pollflags", 0x800, "0x800 /* POLL??? */"),
    ("epollevents", 0x80000005, "EPOLLIN|EPOLLOUT|EPOLLET"),
    ("modem_flags", 6, "TIOCM_DTR|TIOCM_RTS"),
    ("semop_flags", 0x1000, "SEM_UNDO"),
    ("secbits", 0x2f, "SECBIT_NOROOT|SECBIT_NOROOT_LOCKED|SECBIT_NO_SETUID_FIXUP|"
     "SECBIT_NO_SETUID_FIXUP_LOCKED|SECBIT_KEEP_CAPS_LOCKED"),
])
def test_flag_rules(set_name, value, expected):
    assert format_flags(set_name, value) == expected


@pytest.mark.parametrize("set_name,value,expected", [
    ("whence", 2, "SEEK_END"),
    ("whence", 7, "0x7 /* SEEK_??? */"),
    ("prctl_options", 0, "0 /* PR_??? */"),
    ("prctl_options", 0x63, "0x63 /* PR_??? */"),
    ("sockopt_level", 2, "0x2 /* SOL_?? */"),
    ("sockopt_level", 40, "AF_VSOCK"),
    ("clocks", 0xffffffff, "0xffffffff /* CLOCK_??? */"),
    ("rusage_who", -1, "RUSAGE_CHILDREN"),
    ("rusage_who", -2, "RUSAGE_BOTH"),
    ("fcntl_cmds", 0x63, "0x63 /* F_??? */"),
    ("fcntl_cmds", 1030, "F_DUPFD_CLOEXEC"),
    ("arch_prctl_code", 0x3001, "0x3001 /* ARCH_??? */"),
    ("futex_ops", 14, "0xe /* FUTEX_??? */"),
    ("reboot_cmd", 0x4321fedc, "LINUX_REBOOT_CMD_POWER_OFF"),
    ("adjtimex_state", 5, "TIME_ERROR"),
    ("pr_dumpable", 1, "SUID_DUMP_USER"),
    ("cap_version", 0x20080522, "_LINUX_CAPABILITY_VERSION_3"),
])
def test_enum_rules(set_name, value, expected):
    assert format_enum(set_name, value) == expected


def test_zero_and_unknown():
    assert format_flags("mremap_flags", 0) == "0"          # no zero-valued name
    assert format_flags("mmap_prot", 0) == "PROT_NONE"     # zero-valued name
    assert format_flags("msync_flags", 9) == "MS_ASYNC|0x8"
    assert format_flags("msync_flags", 8) == "0x8 /* MS_??? */"
    assert format_enum("fadvise_advice", 6) == "0x6 /* POSIX_FADV_??? */"
    assert lookup("whence", 1) == "SEEK_CUR"
    assert lookup("whence", 9) is None


def test_ipc_cmds():
    assert xlat.format_ipc_cmd("shmctl_cmd", 0) == "IPC_RMID"
    assert xlat.format_ipc_cmd("shmctl_cmd", 0x102) == "IPC_64|IPC_STAT"
    assert xlat.format_ipc_cmd("semctl_cmd", 16) == "SETVAL"
    assert xlat.format_ipc_cmd("shmctl_cmd", 0x116) == "IPC_64|0x16 /* SHM_??? */"


# ---------------------------------------------------------------------------------------------
# signals

def test_signal_names():
    names = ["SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
             "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
             "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
             "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO",
             "SIGPWR", "SIGSYS", "SIGRTMIN"]
    for n, name in enumerate(names, 1):
        assert signal_name(n) == name
    for n in range(33, 65):
        assert signal_name(n) == f"SIGRT_{n - 32}"
    assert signal_name(0) == "0"
    assert signal_name(65) == "65"
    assert xlat.SIGNAL_NUMBERS["SIGSEGV"] == 11


@pytest.mark.parametrize("mask,expected", [
    (0, "[]"),
    (1 << 1, "[INT]"),
    ((1 << 1) | (1 << 14), "[INT TERM]"),
    ((1 << 31) | (1 << 32), "[RTMIN RT_1]"),
    ((1 << 64) - 1, "~[]"),
    (((1 << 64) - 1) & ~((1 << 31) | (1 << 32)), "~[RTMIN RT_1]"),
    (((1 << 64) - 1) & ~((1 << 8) | (1 << 18)), "~[KILL STOP]"),
    ((1 << 8) | (1 << 18), "[KILL STOP]"),
    ((1 << 31) - 1, "[HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM "
                    "STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS]"),
    ((1 << 33) - 1, "[HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM "
                    "STKFLT CHLD CONT STOP TSTP TTIN TTOU URG XCPU XFSZ VTALRM PROF WINCH IO PWR SYS "
                    "RTMIN RT_1]"),
    (((1 << 32) - 1) << 32, "[" + " ".join(f"RT_{i}" for i in range(1, 33)) + "]"),
    ((1 << 42) - 1, "~[" + " ".join(f"RT_{i}" for i in range(11, 33)) + "]"),   # 42 of 64 set
    ((1 << 41) - 1, "[" + " ".join(signal_name(i)[3:] for i in range(1, 42)) + "]"),
])
def test_sigset(mask, expected):
    assert format_sigset(mask) == expected


# ---------------------------------------------------------------------------------------------
# modes, devices, futex ops, clocks

@pytest.mark.parametrize("mode,expected", [
    (0, "000"), (0o644, "0644"), (0o100644, "S_IFREG|0644"), (0o20600, "S_IFCHR|0600"),
    (0o60600, "S_IFBLK|0600"), (0o10644, "S_IFIFO|0644"), (0o140777, "S_IFSOCK|0777"),
    (0o120777, "S_IFLNK|0777"), (0o40755, "S_IFDIR|0755"), (0o170000, "0170000"),
    (0o4755, "S_ISUID|0755"), (0o104755, "S_IFREG|S_ISUID|0755"), (0o1000, "S_ISVTX|000"),
    (0o2000, "S_ISGID|000"), (0xffffffff, "0177777"),
])
def test_mode(mode, expected):
    assert format_mode(mode) == expected


@pytest.mark.parametrize("dev,expected", [
    (0, "makedev(0, 0)"), (0x103, "makedev(0x1, 0x3)"), (0x80003, "makedev(0x800, 0x3)"),
    (0xfff00000ff, "makedev(0, 0xf00ff)"), ((1 << 32) | (2 << 8) | 3, "makedev(0x2, 0x3)"),
    ((1 << 64) - 1, "makedev(0xfff, 0xfffff)"),
])
def test_dev(dev, expected):
    assert xlat.format_dev(dev) == expected


def test_stat_dev():
    assert xlat.format_stat_dev(0x8801) == "makedev(0x88, 0x1)"
    assert xlat.format_stat_dev(0x803) == "makedev(0x8, 0x3)"


@pytest.mark.parametrize("op,expected", [
    (0, "FUTEX_WAIT"), (1, "FUTEX_WAKE"), (0x80, "FUTEX_WAIT_PRIVATE"),
    (0x81, "FUTEX_WAKE_PRIVATE"), (0x82, "FUTEX_FD|FUTEX_PRIVATE_FLAG"),
    (0x89, "FUTEX_WAIT_BITSET_PRIVATE"), (0x8d, "FUTEX_LOCK_PI2_PRIVATE"),
    (0x100, "FUTEX_WAIT|FUTEX_CLOCK_REALTIME"), (0x109, "FUTEX_WAIT_BITSET|FUTEX_CLOCK_REALTIME"),
    (0x189, "FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME"),
    (0x180, "FUTEX_WAIT_PRIVATE|FUTEX_CLOCK_REALTIME"),
    (0x400, "0x400 /* FUTEX_??? */"), (0xffff, "0xffff /* FUTEX_??? */"),
])
def test_futex_op(op, expected):
    assert format_futex_op(op) == expected


def test_futex_wake_op():
    assert xlat.format_futex_wake_op(0x4000001) == "FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1"


def test_ipc_key_and_clocks():
    assert xlat.format_ipc_key(0) == "IPC_PRIVATE"
    assert xlat.format_ipc_key(0x1234) == "0x1234"
    assert xlat.format_ipc_key(-1) == "0xffffffff"
    assert xlat.format_clockid(1) == "CLOCK_MONOTONIC"
    assert xlat.format_clockid(-1) == "0xffffffff /* CLOCK_??? */"


# ---------------------------------------------------------------------------------------------
# the API and the data itself

def test_api_types():
    assert isinstance(SETS["open_flags"], Xlat)
    assert SETS["open_flags"].flags and not SETS["whence"].flags
    for name, x in SETS.items():
        assert isinstance(x, Xlat), name
        for value, n in x.pairs:
            assert isinstance(value, int) and isinstance(n, str) and n, (name, n)
        if x.flags:
            for value, n in x.pairs:
                assert value >= 0, (name, n)


def test_sets_used_by_the_table_exist():
    from emutrace.kernel import table
    for row in table.ROWS:
        for kind in row.args:
            base, param = table.parse_kind(kind)
            if base in ("flags", "enum"):
                assert param in SETS, (row.name, kind)
        base, param = table.parse_ret(row.ret)
        if param:
            assert param in SETS, (row.name, row.ret)


def test_no_host_constants():
    import inspect
    src = inspect.getsource(xlat)
    for bad in ("import os", "import signal", "import socket", "import fcntl", "import termios"):
        assert bad not in src
