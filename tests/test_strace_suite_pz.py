"""Decoding and kernel behaviour that strace's own test suite (tests p..z, issue 39) checks.

Each decoding case is a line strace 7.2's suite expects (its tests/NAME.c prints it), rendered
from the same arguments, return value and guest memory; the kernel cases compare a bins/
program's lines natively and under emutrace on both event paths."""
from __future__ import annotations

import re

import pytest

from conftest import NATIVE_ENV, built, emutrace
from test_strace_format import FakeMem

PATHS = {"compiled": {"EMUTRACE_PURE": "0"}, "pure": {"EMUTRACE_PURE": "1"}}

_DQBLK = bytes(range(1, 73))
_Q_GETQUOTA_USR = 0x80000700
_Q_QUOTAON_USR = 0x80000200

# (syscall, args, return, memory, strace options {xlat_style, verbose}, the suite's line)
CASES = [
    # tests/quotactl.c: the command's own arguments, by command
    ("quotactl", (_Q_QUOTAON_USR, 0x1000, 1, 0x2000), -1, {0x1000: b"/dev/bogus/\0", 0x2000: b"/tmp/bogus/\0"}, {},
     'quotactl(QCMD(Q_QUOTAON, USRQUOTA), "/dev/bogus/", QFMT_VFS_OLD, "/tmp/bogus/") = -1 EPERM (Operation not permitted)'),
    ("quotactl", (_Q_QUOTAON_USR, 0x1000, 1, 0x2000), -1, {0x1000: b"/dev/bogus/\0", 0x2000: b"/tmp/bogus/\0"},
     {"xlat_style": "raw"}, 'quotactl(2147484160, "/dev/bogus/", 0x1, "/tmp/bogus/") = -1 EPERM (Operation not permitted)'),
    ("quotactl", (0xbadc0ded, 0x1000, 0xcafef00d, 0x2000), -1, {}, {"xlat_style": "verbose"},
     "quotactl(3134983661 /* QCMD(0xbadc0d /* Q_??? */, 0xed /* ???QUOTA */) */, 0x1000, 3405705229, 0x2000)"
     " = -1 EPERM (Operation not permitted)"),
    ("quotactl", (0, 0, 0xffffffff, 0), -1, {}, {},
     "quotactl(QCMD(0 /* Q_??? */, USRQUOTA), NULL, -1, NULL) = -1 EPERM (Operation not permitted)"),
    ("quotactl", (_Q_GETQUOTA_USR, 0x1000, 0xffffffff, 0x3000), 0, {0x1000: b"/dev/bogus/\0", 0x3000: _DQBLK}, {},
     'quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/bogus/", -1, {dqb_bhardlimit=578437695752307201, '
     "dqb_bsoftlimit=1157159078456920585, dqb_curspace=1735880461161533969, dqb_ihardlimit=2314601843866147353, "
     "dqb_isoftlimit=2893323226570760737, dqb_curinodes=3472044609275374121, ...}) = 0"),
    ("quotactl", (_Q_GETQUOTA_USR, 0x1000, 3, 0x3000), -1, {0x1000: b"/dev/bogus/\0", 0x3000: _DQBLK}, {},
     'quotactl(QCMD(Q_GETQUOTA, USRQUOTA), "/dev/bogus/", 3, 0x3000) = -1 EPERM (Operation not permitted)'),
    ("quotactl", (0x80000800, 0x1000, 3, 0x3000), -1, {0x1000: b"/dev/bogus/\0", 0x3000: _DQBLK}, {"verbose": True},
     'quotactl(QCMD(Q_SETQUOTA, USRQUOTA), "/dev/bogus/", 3, {dqb_bhardlimit=578437695752307201, '
     "dqb_bsoftlimit=1157159078456920585, dqb_curspace=1735880461161533969, dqb_ihardlimit=2314601843866147353, "
     "dqb_isoftlimit=2893323226570760737, dqb_curinodes=3472044609275374121, dqb_btime=4050765991979987505, "
     "dqb_itime=4629487374684600889, dqb_valid=QIF_BLIMITS|0x44434240}) = -1 EPERM (Operation not permitted)"),
    # tests/quotactl-xfs.c
    ("quotactl", (0x580100, 0x1000, 0, 0x2000), -1, {0x1000: b"/dev/bogus/\0", 0x2000: "efbeadde"}, {},
     'quotactl(QCMD(Q_XQUOTAON, USRQUOTA), "/dev/bogus/", [FS_QUOTA_UDQ_ACCT|FS_QUOTA_UDQ_ENFD|FS_QUOTA_GDQ_ACCT|'
     'FS_QUOTA_GDQ_ENFD|FS_QUOTA_PDQ_ENFD|0xdeadbec0]) = -1 EPERM (Operation not permitted)'),
    # tests/quotactl_fd.c: Q_GETFMT's format at exit, its address when the call failed
    ("quotactl_fd", (0xffffffff, 0x80000401, 0xfffffffe, 0x4000), -38, {0x4000: "02000000"}, {},
     "quotactl_fd(-1, QCMD(Q_GETFMT, GRPQUOTA), 0x4000) = -1 ENOSYS (Function not implemented)"),
    ("quotactl_fd", (3, 0x80000400, 0, 0x4000), 0, {0x4000: "02000000"}, {},
     "quotactl_fd(3, QCMD(Q_GETFMT, USRQUOTA), [QFMT_VFS_V0]) = 0"),
    # tests/sockopt-sol_socket.c: an int-like SOL_SOCKET option shorter than an int is its
    # address (set) or its bytes in hex (get); one strace does not know is a plain string
    ("setsockopt", (3, 1, 1, 0x1000, 3), 0, {0x1000: "000000"}, {}, "setsockopt(3, SOL_SOCKET, SO_DEBUG, 0x1000, 3) = 0"),
    ("setsockopt", (3, 1, 1, 0x1000, 5), 0, {0x1000: "d202964900"}, {},
     "setsockopt(3, SOL_SOCKET, SO_DEBUG, [1234567890], 5) = 0"),
    ("getsockopt", (3, 1, 2, 0x1000, 0x2000), 0, {0x1000: "000000", 0x2000: "03000000"}, {},
     'getsockopt(3, SOL_SOCKET, SO_REUSEADDR, "\\x00\\x00\\x00", [3]) = 0'),
    ("getsockopt", (3, 1, 3, 0x1000, 0x2000), 0, {0x1000: "000000", 0x2000: "03000000"}, {},
     'getsockopt(3, SOL_SOCKET, SO_TYPE, "\\0\\0\\0", [3]) = 0'),
    # tests/sched_xetscheduler.c and sched_xetparam.c
    ("sched_setscheduler", (1000, 0x40000007, 0x1000), -1, {}, {},
     "sched_setscheduler(1000, SCHED_RESET_ON_FORK|SCHED_EXT, 0x1000) = -1 EPERM (Operation not permitted)"),
    ("sched_setscheduler", (1000, 0x40000007, 0x1000), -1, {}, {"xlat_style": "verbose"},
     "sched_setscheduler(1000, 0x40000007 /* SCHED_RESET_ON_FORK|SCHED_EXT */, 0x1000) = -1 EPERM (Operation not permitted)"),
    ("sched_setscheduler", (1000, 0x43218765, 0x1000), -1, {0x1000: "ffffffff"}, {},
     "sched_setscheduler(1000, SCHED_RESET_ON_FORK|0x3218765, {sched_priority=-1}) = -1 EPERM (Operation not permitted)"),
    ("sched_setscheduler", (1000, 0xfaceda7a, 0x1000), -1, {0x1000: "ffffffff"}, {"xlat_style": "raw"},
     "sched_setscheduler(1000, 0xfaceda7a, {sched_priority=-1}) = -1 EPERM (Operation not permitted)"),
    ("sched_getscheduler", (1000,), 0x40000000, {}, {},
     "sched_getscheduler(1000) = 0x40000000 (SCHED_RESET_ON_FORK|SCHED_OTHER)"),
    ("sched_getscheduler", (0xffffffff,), -22, {}, {}, "sched_getscheduler(-1) = -1 EINVAL (Invalid argument)"),
    ("sched_getparam", (1000, 0x1000), 0, {0x1000: "00000000"}, {}, "sched_getparam(1000, {sched_priority=0}) = 0"),
    # tests/setgroups.c (-s2): (gid_t)-1 as -1, an unreadable element ends the array
    ("setgroups", (2, 0x1000), 0, {0x1000: "ffffffff"}, {"string_limit": 2}, "setgroups(2, [-1, ... /* 0x1004 */]) = 0"),
    ("setgroups", (3, 0x1000), 0, {0x1000: "feffffff" "fdffffff"}, {"string_limit": 2},
     "setgroups(3, [4294967294, 4294967293, ... /* 0x1008 */]) = 0"),
    ("setgroups", (3, 0x1000), 0, {0x1000: "00000000" "01000000" "02000000"}, {"string_limit": 2},
     "setgroups(3, [0, 1, ...]) = 0"),
    ("setgroups", (65537, 0x1000), 0, {0x1000: "00000000"}, {}, "setgroups(65537, 0x1000) = 0"),
    ("setgroups", (1, 0x1000), 0, {}, {}, "setgroups(1, 0x1000) = 0"),
    # tests/printsignal.c, setrlimit.c under -X raw and -X verbose
    ("kill", (1000, 18), 0, {}, {"xlat_style": "raw"}, "kill(1000, 18) = 0"),
    ("kill", (1000, 18), 0, {}, {"xlat_style": "verbose"}, "kill(1000, 18 /* SIGCONT */) = 0"),
    ("kill", (1000, 18), 0, {}, {}, "kill(1000, SIGCONT) = 0"),
    ("setrlimit", (0, 0x1000), -22, {0x1000: "ff" * 16}, {"xlat_style": "raw"},
     "setrlimit(0, {rlim_cur=18446744073709551615, rlim_max=18446744073709551615}) = -1 EINVAL (Invalid argument)"),
    ("setrlimit", (1, 0x1000), -22, {0x1000: "0020000000000000" "ffffffffffffffff"}, {"xlat_style": "verbose"},
     "setrlimit(0x1 /* RLIMIT_FSIZE */, {rlim_cur=8192 /* 8*1024 */, rlim_max=18446744073709551615 /* RLIM64_INFINITY */})"
     " = -1 EINVAL (Invalid argument)"),
    # tests/reboot.c, syslog.c, sethostname.c, pkey_alloc.c, semop.c, timer_create.c
    ("reboot", (0x13111992, 0x5121996, 0xa1b2c3d4, 0x1000), -1, {0x1000: b"A" * 256}, {"string_limit": 256},
     'reboot(0x13111992 /* LINUX_REBOOT_MAGIC1??? */, LINUX_REBOOT_MAGIC2A, LINUX_REBOOT_CMD_RESTART2, "'
     + "A" * 255 + '"...) = -1 EPERM (Operation not permitted)'),
    ("reboot", (0x13111992, 0xffffffff, 0xa1b2c3d4, 0x1001), -1, {0x1000: b"A" * 255 + b"\0"}, {"string_limit": 256},
     'reboot(0x13111992 /* LINUX_REBOOT_MAGIC1??? */, 0xffffffff /* LINUX_REBOOT_MAGIC2??? */, LINUX_REBOOT_CMD_RESTART2, "'
     + "A" * 254 + '") = -1 EPERM (Operation not permitted)'),
    ("reboot", (0xfee1dead, 0x5121996, 0xa1b2c3d4, 0x1002), -1, {0x1000: b"A" * 256}, {"string_limit": 256},
     "reboot(LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2A, LINUX_REBOOT_CMD_RESTART2, 0x1002) = -1 EPERM (Operation not permitted)"),
    ("syslog", (8, 0xfacefeeddeadbeef, 8), -1, {}, {},
     "syslog(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, 0xfacefeeddeadbeef, 8 /* LOGLEVEL_DEBUG+1 */) = -1 EPERM (Operation not permitted)"),
    ("syslog", (0xdeadbeeffeedbeef, 0, 0xffffffff), -1, {}, {},
     "syslog(-17973521 /* SYSLOG_ACTION_??? */, NULL, -1) = -1 EPERM (Operation not permitted)"),
    ("sethostname", (0x1000, 65), -1, {0x1000: b"\xff" * 65}, {}, "sethostname(0x1000, 65) = -1 EPERM (Operation not permitted)"),
    ("sethostname", (0x1000, 4), -1, {0x1000: b"host"}, {}, 'sethostname("host", 4) = -1 EPERM (Operation not permitted)'),
    ("pkey_alloc", (0xbadc0ded00000000, 0), -22, {}, {}, "pkey_alloc(0xbadc0ded00000000, PKEY_UNRESTRICTED) = -1 EINVAL (Invalid argument)"),
    ("semop", (0, 0x1000, 0xdefaced00000001), -22, {0x1000: "000001000010"}, {},
     "semop(0, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}], 1) = -1 EINVAL (Invalid argument)"),
    ("timer_create", (0, 0x1000, 0), -22, {0x1000: "ed0ddcbaefbeadde" "edfeceda" "01000000" + "00" * 48}, {},
     "timer_create(CLOCK_REALTIME, {sigev_value={sival_int=-1159983635, sival_ptr=0xdeadbeefbadc0ded}, "
     "sigev_signo=3670998765, sigev_notify=SIGEV_NONE}, NULL) = -1 EINVAL (Invalid argument)"),
    # tests/seccomp-filter.c, seccomp_get_action_avail.c, seccomp_get_notif_sizes.c
    ("seccomp", (1, 0xffffffff, 0x1000), -22, {0x1000: "0700000000000000" "c84f000000000000"}, {},
     "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC|SECCOMP_FILTER_FLAG_LOG|SECCOMP_FILTER_FLAG_SPEC_ALLOW|"
     "SECCOMP_FILTER_FLAG_NEW_LISTENER|SECCOMP_FILTER_FLAG_TSYNC_ESRCH|SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV|0xffffffc0, "
     "{len=7, filter=0x4fc8}) = -1 EINVAL (Invalid argument)"),
    ("seccomp", (2, 0, 0x1000), -22, {0x1000: "0000fc7f"}, {},
     "seccomp(SECCOMP_GET_ACTION_AVAIL, 0, [SECCOMP_RET_LOG]) = -1 EINVAL (Invalid argument)"),
    ("seccomp", (3, 0xdeadbeef, 0), 42, {}, {}, "seccomp(SECCOMP_GET_NOTIF_SIZES, 0xdeadbeef, NULL) = 42"),
    ("seccomp", (3, 0, 0x1000), 42, {0x1000: "feca edfe efbe".replace(" ", "")}, {},
     "seccomp(SECCOMP_GET_NOTIF_SIZES, 0, {seccomp_notif=51966, seccomp_notif_resp=65261, seccomp_data=48879}) = 42"),
    # tests/wait4.c, waitid.c (-v): the rusage only once a child is reaped, in full under -v; an
    # empty siginfo as {}
    ("wait4", (1001, 0x1000, 0x40000001, 0x2000), 0, {0x1000: "00000000", 0x2000: "ff" * 144}, {},
     "wait4(1001, 0x1000, WNOHANG|__WALL, 0x2000) = 0"),
    ("wait4", (1001, 0x1000, 0, 0x2000), 1001, {0x1000: "002a0000", 0x2000: "00" * 144}, {"verbose": True},
     "wait4(1001, [{WIFEXITED(s) && WEXITSTATUS(s) == 42}], 0, {ru_utime={tv_sec=0, tv_usec=0}, "
     "ru_stime={tv_sec=0, tv_usec=0}, ru_maxrss=0, ru_ixrss=0, ru_idrss=0, ru_isrss=0, ru_minflt=0, ru_majflt=0, "
     "ru_nswap=0, ru_inblock=0, ru_oublock=0, ru_msgsnd=0, ru_msgrcv=0, ru_nsignals=0, ru_nvcsw=0, ru_nivcsw=0}) = 1001"),
    ("waitid", (1, 1001, 0x1000, 7, 0x2000), 0, {0x1000: "00" * 128, 0x2000: "00" * 144}, {},
     "waitid(P_PID, 1001, {}, WNOHANG|WEXITED|WSTOPPED, {ru_utime={tv_sec=0, tv_usec=0}, "
     "ru_stime={tv_sec=0, tv_usec=0}, ...}) = 0"),
    # tests/xattr.c: a value past XATTR_SIZE_MAX by address, its trailing NUL left out; a list
    # by address when none was asked for
    ("fsetxattr", (0xffffffff, 0x1000, 0x2000, 65537, 1), -9, {0x1000: b"user.x\0", 0x2000: b"\xff" * 64}, {},
     'fsetxattr(-1, "user.x", 0x2000, 65537, XATTR_CREATE) = -1 EBADF (Bad file descriptor)'),
    ("fsetxattr", (0xffffffff, 0x1000, 0x2000, 8, 2), -9, {0x1000: b"user.x\0", 0x2000: b"foo\0bar\0"}, {},
     'fsetxattr(-1, "user.x", "foo\\0bar", 8, XATTR_REPLACE) = -1 EBADF (Bad file descriptor)'),
    ("listxattr", (0x1000, 0x2000, 0), 0, {0x1000: b".\0"}, {}, 'listxattr(".", 0x2000, 0) = 0'),
    ("getxattr", (0x1000, 0x3000, 0x2000, 16), 4, {0x1000: b".\0", 0x3000: b"user.x\0", 0x2000: b"abc\0"}, {},
     'getxattr(".", "user.x", "abc", 16) = 4'),
    # tests/setxattrat.c: struct xattr_args, and the nonzero bytes of a bigger one
    ("setxattrat", (0xffffffff, 0x1000, 0, 0x3000, 0x2000, 24), -38,
     {0x1000: b"\0", 0x3000: b"user.x\0", 0x2000: "0000000000000000" "01000000" "04000000" "9091929394959697"}, {},
     'setxattrat(-1, "", 0, "user.x", {value=NULL, size=1, flags=0x4 /* XATTR_??? */, /* bytes 16..23 */ '
     '"\\x90\\x91\\x92\\x93\\x94\\x95\\x96\\x97"}, 24) = -1 ENOSYS (Function not implemented)'),
    ("setxattrat", (0xffffffff, 0x1000, 0, 0x3000, 0x2000, 16), -38,
     {0x1000: b"\0", 0x3000: b"user.x\0", 0x2000: "0040000000000000" "03000000" "03000000", 0x4000: b"ab\0"}, {},
     'setxattrat(-1, "", 0, "user.x", {value="ab", size=3, flags=XATTR_CREATE|XATTR_REPLACE}, 16)'
     ' = -1 ENOSYS (Function not implemented)'),
    # tests/process_vm_readv_writev.c (-s5): the local iovec by address when the call failed, an
    # array cut at -s says where it stopped when the next element is unreadable
    ("process_vm_readv", (1000, 0x1000, 0, 0x2000, 0, 0), -38, {}, {},
     "process_vm_readv(1000, [], 0, [], 0, 0) = -1 ENOSYS (Function not implemented)"),
    ("process_vm_readv", (1000, 0x1000, 1, 0x2000, 1, 0), -38,
     {0x1000: "0050000000000000" "0400000000000000", 0x2000: "0060000000000000" "0200000000000000"}, {},
     "process_vm_readv(1000, [{iov_base=0x5000, iov_len=4}], 1, [{iov_base=0x6000, iov_len=2}], 1, 0)"
     " = -1 ENOSYS (Function not implemented)"),
    ("process_vm_readv", (1000, 0x1000, 1, 0x2000, 1, 0), 3,
     {0x1000: "0050000000000000" "0400000000000000", 0x2000: "0060000000000000" "0200000000000000", 0x5000: b"abcd"}, {},
     'process_vm_readv(1000, [{iov_base="abc", iov_len=4}], 1, [{iov_base=0x6000, iov_len=2}], 1, 0) = 3'),
    ("writev", (1, 0x1000, 3), 2, {0x1000: "0050000000000000" "0100000000000000" * 1 + "0050000000000000" "0100000000000000",
                                   0x5000: b"ab"}, {"string_limit": 2},
     'writev(1, [{iov_base="a", iov_len=1}, {iov_base="a", iov_len=1}, ... /* 0x1020 */], 3) = 2'),
    ("writev", (1, 0x1000, 3), 2, {0x1000: ("0050000000000000" "0100000000000000") * 3, 0x5000: b"ab"}, {"string_limit": 2},
     'writev(1, [{iov_base="a", iov_len=1}, {iov_base="a", iov_len=1}, ...], 3) = 2'),
    # tests/pidfd_send_signal.c: si_errno unsigned, si_uid -1, the flags by name
    ("pidfd_send_signal", (3, 12, 0x1000, 0xffffffff), -22,
     {0x1000: "0a000000" "ffffffff" "ffffffff" "00000000" "e8030000" "ffffffff" "ffffffffffffffff" + "00" * 96}, {},
     "pidfd_send_signal(3, SIGUSR2, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_errno=4294967295, si_pid=1000, si_uid=-1, "
     "si_int=-1, si_ptr=0xffffffffffffffff}, PIDFD_SIGNAL_THREAD|PIDFD_SIGNAL_THREAD_GROUP|PIDFD_SIGNAL_PROCESS_GROUP|"
     "0xfffffff8) = -1 EINVAL (Invalid argument)"),
    ("pidfd_send_signal", (3, 12, 0, 8), -22, {}, {},
     "pidfd_send_signal(3, SIGUSR2, NULL, 0x8 /* PIDFD_SIGNAL_??? */) = -1 EINVAL (Invalid argument)"),
    # tests/set_mempolicy.c (-s3): the mode and its flags, the node mask in longs
    ("set_mempolicy", (0x2002, 0x1000, 129), -22, {0x1000: "01" + "00" * 7 + "00" * 8 + "00" * 8}, {"string_limit": 3},
     "set_mempolicy(MPOL_BIND|MPOL_F_NUMA_BALANCING, [0x00000000000001, 0000000000000000], 129)"
     " = -1 EINVAL (Invalid argument)"),
    ("set_mempolicy", (0xe003, 0x1000, 65), 0, {0x1000: "00" * 8}, {"xlat_style": "verbose"},
     "set_mempolicy(0xe003 /* MPOL_INTERLEAVE|MPOL_F_STATIC_NODES|MPOL_F_RELATIVE_NODES|MPOL_F_NUMA_BALANCING */, "
     "[0000000000000000], 65) = 0"),
    ("set_mempolicy", (0xffffffff, 0x1000, 65 * 64), 0, {0x1000: "00" * 16}, {"string_limit": 3},
     "set_mempolicy(MPOL_F_STATIC_NODES|MPOL_F_RELATIVE_NODES|MPOL_F_NUMA_BALANCING|0xffff1fff, "
     "[0000000000000000, 0000000000000000, ... /* 0x1010 */], 4160) = 0"),
    ("set_mempolicy", (7, 0x1000, 1), -22, {}, {}, "set_mempolicy(0x7 /* MPOL_??? */, 0x1000, 1) = -1 EINVAL (Invalid argument)"),
    ("set_mempolicy", (0, 0x1000, 0), 0, {}, {}, "set_mempolicy(MPOL_DEFAULT, [], 0) = 0"),
    # tests/strace--strings-in-hex-non-ascii-chars.c: each non-printable byte in hex, C's escapes kept
    ("chdir", (0x1000,), -2, {0x1000: b"\t\n\v\f\r\x0e hi~\0"}, {"hex_strings": 3},
     'chdir("\\t\\n\\v\\f\\r\\x0e hi~") = -1 ENOENT (No such file or directory)'),
    ("chdir", (0x1000,), -2, {0x1000: b"\\\"\x7f\xff1\0"}, {"hex_strings": 3},
     'chdir("\\\\\\"\\x7f\\xff1") = -1 ENOENT (No such file or directory)'),
    ("write", (1, 0x1000, 3), 3, {0x1000: b"\x01\x32\n"}, {"hex_strings": 3}, 'write(1, "\\x012\\n", 3) = 3'),
    ("write", (1, 0x1000, 3), 3, {0x1000: b"\x01\x32\n"}, {"hex_strings": 1}, 'write(1, "\\x01\\x32\\x0a", 3) = 3'),
    ("setxattrat", (0xffffffff, 0x1000, 0, 0x3000, 0x2000, 15), -38, {0x1000: b"\0", 0x3000: b"user.x\0"}, {},
     'setxattrat(-1, "", 0, "user.x", 0x2000, 15) = -1 ENOSYS (Function not implemented)'),
]


def _line(name, args, ret, mem, opts):
    from emutrace.decode.strace import SyscallFormatter
    from emutrace.kernel import table
    f = SyscallFormatter()
    for k, v in opts.items():
        setattr(f, k, v)
    line = f.format(table.BY_NAME[name], list(args) + [0] * (6 - len(args)), ret, FakeMem(mem))
    return re.sub(r" +=", " =", line)


@pytest.mark.parametrize("name, args, ret, mem, opts, want", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_decoded_as_the_suite_expects(name, args, ret, mem, opts, want):
    assert _line(name, args, ret, mem, opts) == want


@pytest.mark.parametrize("path", sorted(PATHS))
def test_kernel_answers_as_linux(path):
    """The calls strace's suite probes before it prints (socket(AF_UNIX, SOCK_RAW) is a datagram
    socket, sched_* and set*id check their arguments): the same lines as a native run."""
    import subprocess
    prog = built("pzprobe")
    want = subprocess.run([prog], capture_output=True, env=NATIVE_ENV, timeout=60, check=True).stdout
    assert b"SO_TYPE 2\n" in want                      # (Linux's own answer, checked natively)
    r = emutrace(["--no-trace", prog], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    assert r.stdout == want


def test_trace_path_skips_a_symlinks_target():
    """strace's pathtrace.c: -P matches symlink's link path (its second argument) and symlinkat's
    third, never the target, which is stored and not looked up (tests/symlink-P.c)."""
    from emutrace.kernel import table
    from emutrace.sysgate import PathSelection
    gate = PathSelection(["symlink.sample"])
    names = {1: "symlink.sample", 2: "../symlink-P"}
    read = lambda proc, addr: names.get(addr)
    no_fd = lambda proc, fd: None
    sym, symat = table.BY_NAME["symlink"], table.BY_NAME["symlinkat"]
    assert not gate.matches(None, sym, (1, 2, 0, 0, 0, 0), read, no_fd)
    assert gate.matches(None, sym, (2, 1, 0, 0, 0, 0), read, no_fd)
    assert not gate.matches(None, symat, (1, 0xffffff9c, 2, 0, 0, 0), read, no_fd)
    assert gate.matches(None, symat, (2, 0xffffff9c, 1, 0, 0, 0), read, no_fd)
    assert gate.matches(None, table.BY_NAME["link"], (1, 2, 0, 0, 0, 0), read, no_fd)


def test_pidfd_getfd_target_is_the_other_process_descriptor():
    """strace 7.2's tests/pidfd_getfd.c (-y): the target descriptor is decorated from the table
    of the process the pidfd refers to; a first argument that is no pidfd leaves it a number."""
    from emutrace.decode.strace import SyscallFormatter
    from emutrace.kernel import table
    tables = {None: {0: "/dev/full", 5: "anon_inode:[pidfd]"}, 1001: {5: "/dev/full"}}
    f = SyscallFormatter(fd_paths=True)
    f.fd_path = lambda fd: tables[f.fd_owner].get(fd)
    f.pidfd_pid = lambda fd: 1001 if fd == 5 else None
    sc = table.BY_NAME["pidfd_getfd"]
    line = lambda args, ret: re.sub(r" +=", " =", f.format(sc, list(args) + [0] * 3, ret, FakeMem({})))
    assert line((0, 0, 0xbadc0ded), -22) == "pidfd_getfd(0</dev/full>, 0, 0xbadc0ded) = -1 EINVAL (Invalid argument)"
    assert line((5, 5, 0), 6) == "pidfd_getfd(5<anon_inode:[pidfd]>, 5</dev/full>, 0) = 6"
    f.fd_paths = False
    assert line((5, 5, 0), 6) == "pidfd_getfd(5, 5, 0) = 6"


def test_read_write_dumps_look_into_msghdr():
    """strace's dumpiov_in_msghdr (tests/recvmsg.c, -e read=0 -e write=1): sendmsg's iovec in full
    for a write descriptor, recvmsg's as far as the result for a read descriptor."""
    from emutrace.decode.strace.iodump import IoDumper
    mem = FakeMem({0x1000: "00" * 16 + "0020000000000000" "0200000000000000",
                   0x2000: "0030000000000000" "0300000000000000" "0040000000000000" "0500000000000000",
                   0x3000: b"012", 0x4000: b"34567"})
    d = IoDumper({0}, {1})
    three = " * 3 bytes in buffer 0\n | 00000  30 31 32                                          012              |\n"
    assert d.dump("sendmsg", (1, 0x1000, 0), 8, mem) == three + (
        " * 5 bytes in buffer 1\n | 00000  33 34 35 36 37                                    34567            |\n")
    assert d.dump("recvmsg", (0, 0x1000, 0), 4, mem) == three + (
        " * 1 bytes in buffer 1\n | 00000  33                                                3                |\n")
    assert d.dump("recvmsg", (1, 0x1000, 0), 4, mem) is None


@pytest.mark.parametrize("path", sorted(PATHS))
def test_signalfd_decorated_with_its_mask(path):
    """strace -yy (tests/signalfd4-yy.c): a signalfd shows <signalfd:[SIGNALS]>, its mask."""
    prog = built("signalfd")
    r = emutrace(["--strace", "-e", "trace=signalfd4", "-yy", prog], env=PATHS[path])
    assert r.returncode == 0, r.stderr
    assert re.search(rb"signalfd4\(-1, \[USR1 USR2\], 8, SFD_CLOEXEC\|SFD_NONBLOCK\) += 4<signalfd:\[USR1 USR2\]>\n",
                     r.stderr), r.stderr[-2000:]
    assert b"anon_inode:[signalfd]" not in r.stderr
