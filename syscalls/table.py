"""The one table of Linux x86-64 system calls: number, name, argument kinds, return kind, classes
and handler, one row each (blink's shape: the name is spelled here and nowhere else).

It drives dispatch (emutrace.kernel.handlers binds each row to its handler, and defers the
modules of rarely made calls), decoding (decode/strace/ reads the argument kinds), `-e
trace=%class` filters and the "not implemented" report (a row without a handler is -ENOSYS).

A row's handler is the module of the kernel that implements it: "fs" means fs.sys_<name>, and
"fs.writev" fs.sys_writev (one function serving several calls, or named otherwise).
tools/syscall_rows.py keeps the field current when handlers move between modules.

Every x86-64 syscall is listed: 0..334 and 424..471 (numbers from asm/unistd_64.h; 451..462 are
newer than strace 6.1, which prints them as syscall_0x1c3(...); we print their names). Argument
counts follow strace 6.1's syscallent.h (what strace prints), classes are the ones strace 6.1
reports for `-e trace=%class` (checked against strace itself with fault injection).

An argument kind is a short string, "base" or "base:param":
  int uint long ulong hex ptr         plain values: int/uint are the low 32 bits, signed/unsigned;
                                      long/ulong 64 bits; hex prints 0x..., 0 as 0; ptr prints NULL / 0x...
  hex32                               the low 32 bits in hex (flags arguments strace prints raw)
  fd dirfd                            file descriptors (int; dirfd prints AT_FDCWD)
  uid gid                             32-bit ids, (uid_t)-1 printed as -1
  path                                NUL-terminated input path, printed in full (strace ignores -s for paths)
  str                                 NUL-terminated input string, cut at the string limit
  path_out                            output path (getcwd): string of (return value - 1) bytes, at exit
  buf_in:N                            input buffer whose length is argument N
  buf_out:N                           output buffer, decoded at exit, length = return value (max arg N)
  flags:SET enum:SET                  symbolic values from xlat.SETS[SET] (a flag set may print
                                      permission bits too: shmget's IPC_CREAT|0600)
  mode                                permission bits in octal, 0%03o (0644, 04755, 000)
  open_mode                           mode printed only if the flags argument before it has O_CREAT
                                      or O_TMPFILE (open, openat, mq_open); otherwise not printed
  fmode                               file type and permissions (mknod): S_IFREG|0644
  octal                               plain octal number
  dev                                 device number: makedev(0x1, 0x3) (mknod: only for S_IFCHR/S_IFBLK)
  struct_in:NAME struct_out:NAME      struct read before / written by the call (decode/strace/ decoders;
                                      an unknown NAME prints the pointer in hex, as strace does)
  signo                               signal number: SIGINT
  sigset_in:N sigset_out:N            sigset_t pointer, size is argument N: [INT TERM], ~[RTMIN]
  ipc_key                             SysV IPC key: IPC_PRIVATE or 0x...
  pollfd:N                            struct pollfd array of N entries, in at entry, revents at exit
  fdset:N                             select() fd_set of argument-N descriptors: [0 3]
  iovec_in:N iovec_out:N              iovec array with N entries; contents at entry / at exit
  iovec_remote:N                      iovec array of another process: bases as addresses
  argv envp                           execve string arrays: ["ls", "-l"] / 0x7ffc... /* 20 vars */
  dirents:N dirents64:N               getdents(64) output: 0x55... /* 12 entries */, N = buffer size
  fdpair_out                          int[2] written by the call (pipe, socketpair): [3, 4]
  int_out uint_out uid_out            pointer to a 32-bit value written by the call: [7]
  long_out ulong_out ptr_out          pointer to a 64-bit value written by the call: [7] / [0x7f...]
  off_in                              loff_t pointer printed at entry (splice): [5]
  off_io                              loff_t pointer read and updated (sendfile): [0] => [10]
  socklen_io                          socklen_t pointer read and updated (accept): [16] / [128 => 16]
  addr_in:N                           struct sockaddr of argument-N bytes: {sa_family=AF_INET, ...}
  addr_out:N                          struct sockaddr written by the call, length from socklen_io arg N
  wstatus                             wait status pointer: [{WIFEXITED(s) && WEXITSTATUS(s) == 0}]
  sembuf:N                            struct sembuf array of N entries
  wait_rusage                         wait4's struct rusage, at exit, only when a child was reaped (> 0)
  msgbuf_in:N msgbuf_out:N            struct msgbuf {mtype, mtext} with N bytes of text
  gids_in:N gids_out:N                gid_t array of argument-N entries (setgroups, getgroups)
  cpuset_in:N cpuset_out:N            CPU mask of argument-N bytes: [0 1 2 3]
  epoll_events:N                      struct epoll_event array written by the call, at most arg N
  ioctl_req                           ioctl request: TCGETS, or _IOC(dir, type, nr, size) if unknown
  futex_op                            futex op: FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME
  personality                         personality(2) persona: PER_LINUX|ADDR_NO_RANDOMIZE
  quotactl_cmd                        QCMD(Q_SYNC, USRQUOTA)
  ioprio                              IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4)
  keyserial                           key serial number: KEY_SPEC_SESSION_KEYRING or decimal
  mpol_mode                           NUMA policy mode with its flags: MPOL_F_STATIC_NODES|MPOL_BIND
  fan_dirfd                           fanotify_mark's dirfd: FAN_NOFD for -1, else as dirfd
  skip                                a raw register strace does not print (the high half of
                                      preadv2's split offset): printed arguments skip it
  dep                                 meaning depends on another argument (ioctl argument, fcntl
                                      argument, futex values, prctl/ptrace/socket arguments...):
                                      printed by the syscall's own decoder in decode/strace/, else in hex
  (anything else is printed as an integer)
A return kind is one of:
  int fd hex ptr void                 decimal, decimal fd, 0x..., 0x..., none (no return: "= ?")
  octal                               umask: 022
  signo                               signal number, printed "10 (SIGUSR1)"
  personality                         hex plus the persona: 0 (PER_LINUX)
  enum:SET                            number plus the name: 0 (SCHED_OTHER), 0 (TIME_OK)
Classes are strace's: %file %desc %memory %process %signal %network %ipc %clock %creds %pure
%stat %lstat %fstat %%stat %statfs %fstatfs %%statfs (see CLASSES).
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

from emutrace.record import record


@record(frozen=True)
class Syscall:
    nr: int
    name: str
    args: Tuple[str, ...]
    ret: str = "int"
    classes: frozenset = frozenset()
    handler: str = ""           # "fs": fs.sys_<name>; "fs.writev": fs.sys_writev; "": -ENOSYS

    @property
    def handler_module(self) -> str:
        return self.handler.partition(".")[0]

    @property
    def handler_function(self) -> str:
        return "sys_" + (self.handler.partition(".")[2] or self.name)


def _row(nr, name, args="", ret="int", cls="", handler=""):
    kinds = tuple(a.strip() for a in args.split(",") if a.strip())
    return Syscall(nr, name, kinds, ret, frozenset(c for c in cls.split() if c), handler)


# The trace classes strace knows (-e trace=%NAME).
CLASSES = frozenset({
    "%file", "%desc", "%memory", "%process", "%signal", "%network", "%ipc", "%clock", "%creds",
    "%pure", "%stat", "%lstat", "%fstat", "%%stat", "%statfs", "%fstatfs", "%%statfs",
})

# base kind -> what its parameter is: None (no parameter), "arg" (an argument index, optional if
# the kind is in _OPTIONAL_PARAM), "set" (an xlat set name), "struct" (a struct decoder name)
KINDS: Dict[str, Optional[str]] = {
    "int": None, "uint": None, "long": None, "ulong": None, "hex": None, "hex32": None, "ptr": None,
    "fd": None, "dirfd": None, "uid": None, "gid": None, "path": None, "str": None,
    "path_out": None, "buf_in": "arg", "buf_out": "arg", "flags": "set", "enum": "set",
    "mode": None, "open_mode": None, "fmode": None, "octal": None, "dev": None,
    "struct_in": "struct", "struct_out": "struct", "signo": None,
    "sigset_in": "arg", "sigset_out": "arg", "ipc_key": None, "pollfd": "arg", "fdset": "arg",
    "iovec_in": "arg", "iovec_out": "arg", "iovec_remote": "arg", "argv": None, "envp": None,
    "dirents": "arg", "dirents64": "arg", "fdpair_out": None,
    "int_out": None, "uint_out": None, "uid_out": None, "long_out": None, "ulong_out": None,
    "ptr_out": None, "off_in": None, "off_io": None, "socklen_io": None, "addr_in": "arg", "addr_out": "arg",
    "wstatus": None, "sembuf": "arg", "msgbuf_in": "arg", "msgbuf_out": "arg",
    "gids_in": "arg", "gids_out": "arg", "cpuset_in": "arg", "cpuset_out": "arg",
    "epoll_events": "arg", "ioctl_req": None, "futex_op": None, "personality": None,
    "quotactl_cmd": None, "ioprio": None, "keyserial": None, "mpol_mode": None,
    "fan_dirfd": None, "skip": None, "dep": None,
    "wait_rusage": None,
}
_OPTIONAL_PARAM = frozenset({"sigset_in", "sigset_out"})

RET_KINDS = frozenset({"int", "fd", "hex", "ptr", "void", "octal", "signo", "personality"})


def parse_kind(kind: str) -> Tuple[str, Optional[object]]:
    """Split a kind into (base, param): param is an int for argument indices, a str for set and
    struct names, None when absent. Raises ValueError for a kind this module does not define."""
    base, sep, param = kind.partition(":")
    if base not in KINDS:
        raise ValueError(f"unknown argument kind {kind!r}")
    want = KINDS[base]
    if not sep:
        if want is not None and base not in _OPTIONAL_PARAM:
            raise ValueError(f"argument kind {kind!r} needs a parameter")
        return base, None
    if want is None or not param:
        raise ValueError(f"argument kind {kind!r} takes no parameter")
    if want == "arg":
        if not param.isdigit() or int(param) > 5:
            raise ValueError(f"argument kind {kind!r}: parameter must be an argument index 0..5")
        return base, int(param)
    return base, param


def parse_ret(kind: str) -> Tuple[str, Optional[str]]:
    """Split a return kind into (base, set name or None)."""
    if kind in RET_KINDS:
        return kind, None
    base, sep, param = kind.partition(":")
    if base == "enum" and param:
        return base, param
    raise ValueError(f"unknown return kind {kind!r}")


# (nr, name, "arg kinds", return kind, "classes")
ROWS = (
    _row(0, "read", "fd, buf_out:2, ulong", "int", "%desc", "rw"),
    _row(1, "write", "fd, buf_in:2, ulong", "int", "%desc", "rw"),
    _row(2, "open", "path, flags:open_flags, open_mode", "fd", "%file %desc", "fs"),
    _row(3, "close", "fd", "int", "%desc", "fs"),
    _row(4, "stat", "path, struct_out:stat", "int", "%file %stat %%stat", "fsstat"),
    _row(5, "fstat", "fd, struct_out:stat", "int", "%desc %fstat %%stat", "fsstat"),
    _row(6, "lstat", "path, struct_out:stat", "int", "%file %lstat %%stat", "fsstat"),
    _row(7, "poll", "pollfd:1, uint, int", "int", "%desc", "poll"),
    _row(8, "lseek", "fd, long, enum:whence", "int", "%desc", "rw"),
    _row(9, "mmap", "ptr, ulong, flags:mmap_prot, flags:mmap_flags, fd, hex", "ptr", "%desc %memory", "mm"),
    _row(10, "mprotect", "ptr, ulong, flags:mmap_prot", "int", "%memory", "mm"),
    _row(11, "munmap", "ptr, ulong", "int", "%memory", "mm"),
    _row(12, "brk", "ptr", "ptr", "%memory", "mm"),
    _row(13, "rt_sigaction", "signo, struct_in:sigaction, struct_out:sigaction, ulong", "int", "%signal", "signals"),
    _row(14, "rt_sigprocmask", "enum:sigprocmask_how, sigset_in:3, sigset_out:3, ulong", "int", "%signal", "signals"),
    _row(15, "rt_sigreturn", "", "int", "%signal", "signals"),
    _row(16, "ioctl", "fd, ioctl_req, dep", "int", "%desc", "ioctl"),
    _row(17, "pread64", "fd, buf_out:2, ulong, long", "int", "%desc", "rw.pread"),
    _row(18, "pwrite64", "fd, buf_in:2, ulong, long", "int", "%desc", "rw.pwrite"),
    _row(19, "readv", "fd, iovec_out:2, ulong", "int", "%desc", "rw"),
    _row(20, "writev", "fd, iovec_in:2, ulong", "int", "%desc", "rw"),
    _row(21, "access", "path, flags:access_modes", "int", "%file", "dirs"),
    _row(22, "pipe", "fdpair_out", "int", "%desc", "fs"),
    _row(23, "select", "int, fdset:0, fdset:0, fdset:0, struct_in:timeval", "int", "%desc", "poll"),
    _row(24, "sched_yield", "", "int", "", "process"),
    _row(25, "mremap", "ptr, ulong, ulong, flags:mremap_flags, ptr", "ptr", "%memory", "mm"),
    _row(26, "msync", "ptr, ulong, flags:msync_flags", "int", "%memory", "mm.mlock"),
    _row(27, "mincore", "ptr, ulong, ptr", "int", "%memory", "residency"),
    _row(28, "madvise", "ptr, ulong, enum:madvise_advice", "int", "%memory", "mm"),
    _row(29, "shmget", "ipc_key, ulong, flags:ipc_flags", "int", "%ipc", "sysvipc"),
    _row(30, "shmat", "int, ptr, flags:shmat_flags", "hex", "%memory %ipc", "sysvipc"),
    _row(31, "shmctl", "int, enum:shmctl_cmd, ptr", "int", "%ipc", "sysvipc"),
    _row(32, "dup", "fd", "fd", "%desc", "fs"),
    _row(33, "dup2", "fd, fd", "fd", "%desc", "fs"),
    _row(34, "pause", "", "int", "%signal", "signals"),
    _row(35, "nanosleep", "struct_in:timespec, struct_out:timespec", "int", "", "time"),
    _row(36, "getitimer", "enum:itimer_which, struct_out:itimerval", "int", "", "time"),
    _row(37, "alarm", "uint", "int", "", "time"),
    _row(38, "setitimer", "enum:itimer_which, struct_in:itimerval, struct_out:itimerval", "int", "", "time"),
    _row(39, "getpid", "", "int", "%pure", "process"),
    _row(40, "sendfile", "fd, fd, off_io, ulong", "int", "%desc %network", "rw"),
    _row(41, "socket", "enum:address_families, flags:socket_type, dep", "fd", "%network", "net"),
    _row(42, "connect", "fd, addr_in:2, int", "int", "%network", "net"),
    _row(43, "accept", "fd, addr_out:2, socklen_io", "fd", "%network", "net"),
    _row(44, "sendto", "fd, buf_in:2, ulong, flags:msg_flags, addr_in:5, int", "int", "%network", "net"),
    _row(45, "recvfrom", "fd, buf_out:2, ulong, flags:msg_flags, addr_out:5, socklen_io", "int", "%network", "net"),
    _row(46, "sendmsg", "fd, struct_in:msghdr, flags:msg_flags", "int", "%network", "net"),
    _row(47, "recvmsg", "fd, struct_out:msghdr, flags:msg_flags", "int", "%network", "net"),
    _row(48, "shutdown", "fd, enum:shutdown_how", "int", "%network", "net"),
    _row(49, "bind", "fd, addr_in:2, int", "int", "%network", "net"),
    _row(50, "listen", "fd, int", "int", "%network", "net"),
    _row(51, "getsockname", "fd, addr_out:2, socklen_io", "int", "%network", "net"),
    _row(52, "getpeername", "fd, addr_out:2, socklen_io", "int", "%network", "net"),
    _row(53, "socketpair", "enum:address_families, flags:socket_type, dep, fdpair_out", "int", "%network", "net"),
    _row(54, "setsockopt", "fd, enum:sockopt_level, dep, dep, int", "int", "%network", "net"),
    _row(55, "getsockopt", "fd, enum:sockopt_level, dep, dep, socklen_io", "int", "%network", "net"),
    _row(56, "clone", "flags:clone_flags, ptr, ptr, ptr, hex", "int", "%process", "clone"),
    _row(57, "fork", "", "int", "%process", "clone"),
    _row(58, "vfork", "", "int", "%process", "clone"),
    _row(59, "execve", "path, argv, envp", "int", "%file %process", "process"),
    _row(60, "exit", "int", "void", "%process", "process"),
    _row(61, "wait4", "int, wstatus, flags:wait_options, wait_rusage", "int", "%process", "process"),
    _row(62, "kill", "int, signo", "int", "%process %signal", "signals"),
    _row(63, "uname", "struct_out:utsname", "int", "", "process"),
    _row(64, "semget", "ipc_key, int, flags:ipc_resource_flags", "int", "%ipc", "sysvipc"),
    _row(65, "semop", "int, sembuf:2, uint", "int", "%ipc", "sysvipc"),
    _row(66, "semctl", "int, int, enum:semctl_cmd, ptr", "int", "%ipc", "sysvipc"),
    _row(67, "shmdt", "ptr", "int", "%memory %ipc", "sysvipc"),
    _row(68, "msgget", "ipc_key, flags:ipc_resource_flags", "int", "%ipc", "sysvipc"),
    _row(69, "msgsnd", "int, msgbuf_in:2, ulong, flags:ipc_msg_flags", "int", "%ipc", "sysvipc"),
    _row(70, "msgrcv", "int, msgbuf_out:2, ulong, long, flags:ipc_msg_flags", "int", "%ipc", "sysvipc"),
    _row(71, "msgctl", "int, enum:msgctl_cmd, ptr", "int", "%ipc", "sysvipc"),
    _row(72, "fcntl", "fd, enum:fcntl_cmds, dep", "int", "%desc", "fs"),
    _row(73, "flock", "fd, flags:flock_ops", "int", "%desc", "fs"),
    _row(74, "fsync", "fd", "int", "%desc", "rw"),
    _row(75, "fdatasync", "fd", "int", "%desc", "rw.fsync"),
    _row(76, "truncate", "path, ulong", "int", "%file", "rw"),
    _row(77, "ftruncate", "fd, ulong", "int", "%desc", "rw"),
    _row(78, "getdents", "fd, dirents:2, uint", "int", "%desc", "dirs"),
    _row(79, "getcwd", "path_out, ulong", "int", "%file", "dirs"),
    _row(80, "chdir", "path", "int", "%file", "dirs"),
    _row(81, "fchdir", "fd", "int", "%desc", "dirs"),
    _row(82, "rename", "path, path", "int", "%file", "dirs"),
    _row(83, "mkdir", "path, mode", "int", "%file", "dirs"),
    _row(84, "rmdir", "path", "int", "%file", "dirs"),
    _row(85, "creat", "path, mode", "fd", "%file %desc", "fs"),
    _row(86, "link", "path, path", "int", "%file", "dirs"),
    _row(87, "unlink", "path", "int", "%file", "dirs"),
    _row(88, "symlink", "path, path", "int", "%file", "dirs"),
    _row(89, "readlink", "path, buf_out:2, ulong", "int", "%file", "dirs"),
    _row(90, "chmod", "path, mode", "int", "%file", "dirs"),
    _row(91, "fchmod", "fd, mode", "int", "%desc", "dirs"),
    _row(92, "chown", "path, uid, gid", "int", "%file", "dirs"),
    _row(93, "fchown", "fd, uid, gid", "int", "%desc", "dirs"),
    _row(94, "lchown", "path, uid, gid", "int", "%file", "dirs.chown"),
    _row(95, "umask", "mode", "octal", "", "dirs"),
    _row(96, "gettimeofday", "struct_out:timeval, struct_out:timezone", "int", "%clock", "time"),
    _row(97, "getrlimit", "enum:rlimit_resources, struct_out:rlimit", "int", "", "process"),
    _row(98, "getrusage", "enum:rusage_who, struct_out:rusage", "int", "", "process"),
    _row(99, "sysinfo", "struct_out:sysinfo", "int", "", "process"),
    _row(100, "times", "struct_out:tms", "int", "", "time"),
    _row(101, "ptrace", "enum:ptrace_cmds, int, ptr, dep", "int", "", "process"),
    _row(102, "getuid", "", "int", "%creds %pure", "process"),
    _row(103, "syslog", "enum:syslog_action, buf_out:2, int", "int", "", "process.privileged"),
    _row(104, "getgid", "", "int", "%creds %pure", "process"),
    _row(105, "setuid", "uid", "int", "%creds", "process.setugid"),
    _row(106, "setgid", "gid", "int", "%creds", "process.setugid"),
    _row(107, "geteuid", "", "int", "%creds %pure", "process.getuid"),
    _row(108, "getegid", "", "int", "%creds %pure", "process.getgid"),
    _row(109, "setpgid", "int, int", "int", "", "process"),
    _row(110, "getppid", "", "int", "%pure", "process"),
    _row(111, "getpgrp", "", "int", "%pure", "process"),
    _row(112, "setsid", "", "int", "", "process"),
    _row(113, "setreuid", "uid, uid", "int", "%creds", "process.setid"),
    _row(114, "setregid", "gid, gid", "int", "%creds", "process.setid"),
    _row(115, "getgroups", "int, gids_out:0", "int", "%creds", "process"),
    _row(116, "setgroups", "int, gids_in:0", "int", "%creds", "process"),
    _row(117, "setresuid", "uid, uid, uid", "int", "%creds", "process.setid"),
    _row(118, "getresuid", "uid_out, uid_out, uid_out", "int", "%creds", "process"),
    _row(119, "setresgid", "gid, gid, gid", "int", "%creds", "process.setid"),
    _row(120, "getresgid", "uid_out, uid_out, uid_out", "int", "%creds", "process"),
    _row(121, "getpgid", "int", "int", "", "process"),
    _row(122, "setfsuid", "uid", "int", "%creds", "process.setid"),
    _row(123, "setfsgid", "gid", "int", "%creds", "process.setid"),
    _row(124, "getsid", "int", "int", "", "process"),
    _row(125, "capget", "struct_in:cap_user_header, struct_out:cap_user_data", "int", "%creds", "process"),
    _row(126, "capset", "struct_in:cap_user_header, struct_in:cap_user_data", "int", "%creds", "process"),
    _row(127, "rt_sigpending", "sigset_out:1, ulong", "int", "%signal", "signals"),
    _row(128, "rt_sigtimedwait", "sigset_in:3, struct_out:siginfo, struct_in:timespec, ulong", "signo", "%signal", "signals"),
    _row(129, "rt_sigqueueinfo", "int, signo, struct_in:siginfo", "int", "%process %signal", "signals"),
    _row(130, "rt_sigsuspend", "sigset_in:1, ulong", "int", "%signal", "signals"),
    _row(131, "sigaltstack", "struct_in:stack_t, struct_out:stack_t", "int", "%signal", "signals"),
    _row(132, "utime", "path, struct_in:utimbuf", "int", "%file", "dirs.utimes"),
    _row(133, "mknod", "path, fmode, dev", "int", "%file", "dirs"),
    _row(134, "uselib", "path", "int", "%file"),
    _row(135, "personality", "personality", "personality", "", "process"),
    _row(136, "ustat", "dev, ptr", "int", "%%statfs"),
    _row(137, "statfs", "path, struct_out:statfs", "int", "%file %statfs %%statfs", "fsstat"),
    _row(138, "fstatfs", "fd, struct_out:statfs", "int", "%desc %fstatfs %%statfs", "fsstat"),
    _row(139, "sysfs", "hex, hex, hex", "int", ""),
    _row(140, "getpriority", "enum:priorities, int", "int", "", "process"),
    _row(141, "setpriority", "enum:priorities, int, int", "int", "", "process"),
    _row(142, "sched_setparam", "int, struct_in:sched_param", "int", "", "schedpolicy"),
    _row(143, "sched_getparam", "int, struct_out:sched_param", "int", "", "schedpolicy"),
    _row(144, "sched_setscheduler", "int, enum:sched_policies, struct_in:sched_param", "int", "", "schedpolicy"),
    _row(145, "sched_getscheduler", "int", "enum:sched_policies", "", "schedpolicy"),
    _row(146, "sched_get_priority_max", "enum:sched_policies", "int", "", "process.prio_max"),
    _row(147, "sched_get_priority_min", "enum:sched_policies", "int", "", "process.prio_min"),
    _row(148, "sched_rr_get_interval", "int, struct_out:timespec", "int", "", "process"),
    _row(149, "mlock", "ptr, ulong", "int", "%memory", "mm"),
    _row(150, "munlock", "ptr, ulong", "int", "%memory", "mm.mlock"),
    _row(151, "mlockall", "flags:mlockall_flags", "int", "%memory", "mm.mlock"),
    _row(152, "munlockall", "", "int", "%memory", "mm.mlock"),
    _row(153, "vhangup", "", "int", "", "process.privileged"),
    _row(154, "modify_ldt", "int, ptr, ulong", "int", ""),
    _row(155, "pivot_root", "path, path", "int", "%file", "process.privileged"),
    _row(156, "_sysctl", "ptr", "int", ""),
    _row(157, "prctl", "enum:prctl_options, dep, dep, dep, dep", "int", "%creds", "process"),
    _row(158, "arch_prctl", "enum:arch_prctl_code, dep", "int", "", "process"),
    _row(159, "adjtimex", "struct_out:timex", "enum:adjtimex_state", "%clock", "process.privileged"),
    _row(160, "setrlimit", "enum:rlimit_resources, struct_in:rlimit", "int", "", "process"),
    _row(161, "chroot", "path", "int", "%file", "dirs"),
    _row(162, "sync", "", "int", "", "rw"),
    _row(163, "acct", "path", "int", "%file", "process.privileged"),
    _row(164, "settimeofday", "struct_in:timeval, struct_in:timezone", "int", "%clock", "process.privileged"),
    _row(165, "mount", "path, path, str, flags:mount_flags, str", "int", "%file", "process.privileged"),
    _row(166, "umount2", "path, flags:umount_flags", "int", "%file", "process.privileged"),
    _row(167, "swapon", "path, flags:swap_flags", "int", "%file", "process.privileged"),
    _row(168, "swapoff", "path", "int", "%file", "process.privileged"),
    _row(169, "reboot", "enum:reboot_magic, enum:reboot_magic2, enum:reboot_cmd, str", "int", "", "process.privileged"),
    _row(170, "sethostname", "buf_in:1, uint", "int", "", "process"),
    _row(171, "setdomainname", "buf_in:1, uint", "int", "", "process.sethostname"),
    _row(172, "iopl", "int", "int", "", "process.privileged"),
    _row(173, "ioperm", "hex, hex, int", "int", "", "process.privileged"),
    _row(174, "create_module", "hex, hex", "int", ""),
    _row(175, "init_module", "ptr, ulong, str", "int", "", "process.privileged"),
    _row(176, "delete_module", "str, flags:delete_module_flags", "int", "", "process.privileged"),
    _row(177, "get_kernel_syms", "hex", "int", ""),
    _row(178, "query_module", "hex, hex, hex, hex, hex", "int", ""),
    _row(179, "quotactl", "quotactl_cmd, path, int, ptr", "int", "%file", "process.privileged"),
    _row(180, "nfsservctl", "hex, hex, hex", "int", ""),
    _row(181, "getpmsg", "hex, hex, hex, hex, hex", "int", "%network"),
    _row(182, "putpmsg", "hex, hex, hex, hex, hex", "int", "%network"),
    _row(183, "afs_syscall", "hex, hex, hex, hex, hex", "int", ""),
    _row(184, "tuxcall", "hex, hex, hex", "int", ""),
    _row(185, "security", "hex, hex, hex", "int", ""),
    _row(186, "gettid", "", "int", "%pure", "process"),
    _row(187, "readahead", "fd, long, ulong", "int", "%desc", "rw.fadvise"),
    _row(188, "setxattr", "path, str, buf_in:3, ulong, flags:xattr_flags", "int", "%file", "xattr"),
    _row(189, "lsetxattr", "path, str, buf_in:3, ulong, flags:xattr_flags", "int", "%file", "xattr.setxattr"),
    _row(190, "fsetxattr", "fd, str, buf_in:3, ulong, flags:xattr_flags", "int", "%desc", "xattr"),
    _row(191, "getxattr", "path, str, buf_out:3, ulong", "int", "%file", "xattr"),
    _row(192, "lgetxattr", "path, str, buf_out:3, ulong", "int", "%file", "xattr.getxattr"),
    _row(193, "fgetxattr", "fd, str, buf_out:3, ulong", "int", "%desc", "xattr"),
    _row(194, "listxattr", "path, buf_out:2, ulong", "int", "%file", "xattr"),
    _row(195, "llistxattr", "path, buf_out:2, ulong", "int", "%file", "xattr.listxattr"),
    _row(196, "flistxattr", "fd, buf_out:2, ulong", "int", "%desc", "xattr"),
    _row(197, "removexattr", "path, str", "int", "%file", "xattr.setxattr"),
    _row(198, "lremovexattr", "path, str", "int", "%file", "xattr.setxattr"),
    _row(199, "fremovexattr", "fd, str", "int", "%desc", "xattr.fsetxattr"),
    _row(200, "tkill", "int, signo", "int", "%process %signal", "signals"),
    _row(201, "time", "long_out", "int", "%clock", "time"),
    _row(202, "futex", "ptr, futex_op, dep, dep, dep, dep", "int", "", "futex"),
    _row(203, "sched_setaffinity", "int, uint, cpuset_in:1", "int", "", "process"),
    _row(204, "sched_getaffinity", "int, uint, cpuset_out:1", "int", "", "process"),
    _row(205, "set_thread_area", "ptr", "int", ""),
    _row(206, "io_setup", "uint, ptr_out", "int", "%memory"),
    _row(207, "io_destroy", "ptr", "int", "%memory"),
    _row(208, "io_getevents", "ptr, long, long, ptr, struct_in:timespec", "int", ""),
    _row(209, "io_submit", "ptr, long, ptr", "int", ""),
    _row(210, "io_cancel", "ptr, ptr, ptr", "int", ""),
    _row(211, "get_thread_area", "ptr", "int", ""),
    _row(212, "lookup_dcookie", "ulong, buf_out:2, ulong", "int", ""),
    _row(213, "epoll_create", "int", "fd", "%desc", "epoll"),
    _row(214, "epoll_ctl_old", "hex, hex, hex, hex", "int", ""),
    _row(215, "epoll_wait_old", "hex, hex, hex, hex", "int", ""),
    _row(216, "remap_file_pages", "ptr, ulong, flags:mmap_prot, ulong, flags:mmap_flags", "int", "%memory"),
    _row(217, "getdents64", "fd, dirents64:2, uint", "int", "%desc", "dirs"),
    _row(218, "set_tid_address", "hex", "int", "", "process"),
    _row(219, "restart_syscall", "", "int", ""),
    _row(220, "semtimedop", "int, sembuf:2, uint, struct_in:timespec", "int", "%ipc", "sysvipc"),
    _row(221, "fadvise64", "fd, long, ulong, enum:fadvise_advice", "int", "%desc", "rw.fadvise"),
    _row(222, "timer_create", "enum:clocks, struct_in:sigevent, int_out", "int", "", "posix_timers"),
    _row(223, "timer_settime", "int, flags:timer_flags, struct_in:itimerspec, struct_out:itimerspec", "int", "", "posix_timers"),
    _row(224, "timer_gettime", "int, struct_out:itimerspec", "int", "", "posix_timers"),
    _row(225, "timer_getoverrun", "int", "int", "", "posix_timers"),
    _row(226, "timer_delete", "int", "int", "", "posix_timers"),
    _row(227, "clock_settime", "enum:clocks, struct_in:timespec", "int", "%clock", "process.privileged"),
    _row(228, "clock_gettime", "enum:clocks, struct_out:timespec", "int", "%clock", "time"),
    _row(229, "clock_getres", "enum:clocks, struct_out:timespec", "int", "%clock", "time"),
    _row(230, "clock_nanosleep", "enum:clocks, flags:timer_flags, struct_in:timespec, struct_out:timespec", "int", "", "time"),
    _row(231, "exit_group", "int", "void", "%process", "process"),
    _row(232, "epoll_wait", "fd, epoll_events:2, int, int", "int", "%desc", "epoll"),
    _row(233, "epoll_ctl", "fd, enum:epoll_ctl_ops, fd, struct_in:epoll_event", "int", "%desc", "epoll"),
    _row(234, "tgkill", "int, int, signo", "int", "%process %signal", "signals"),
    _row(235, "utimes", "path, struct_in:timeval_pair", "int", "%file", "dirs"),
    _row(236, "vserver", "hex, hex, hex, hex, hex", "int", ""),
    _row(237, "mbind", "ptr, ulong, mpol_mode, ptr, ulong, flags:mbind_flags", "int", "%memory"),
    _row(238, "set_mempolicy", "mpol_mode, ptr, ulong", "int", "%memory", "mempolicy"),
    _row(239, "get_mempolicy", "ptr, ptr, ulong, ptr, flags:get_mempolicy_flags", "int", "%memory"),
    _row(240, "mq_open", "path, flags:open_flags, open_mode, struct_in:mq_attr", "fd", "%desc", "mqueue"),
    _row(241, "mq_unlink", "path", "int", "", "mqueue"),
    _row(242, "mq_timedsend", "fd, buf_in:2, ulong, uint, struct_in:timespec", "int", "%desc", "mqueue"),
    _row(243, "mq_timedreceive", "fd, buf_out:2, ulong, int_out, struct_in:timespec", "int", "%desc", "mqueue"),
    _row(244, "mq_notify", "fd, struct_in:sigevent", "int", "%desc", "mqueue"),
    _row(245, "mq_getsetattr", "fd, struct_in:mq_attr, struct_out:mq_attr", "int", "%desc", "mqueue"),
    _row(246, "kexec_load", "ptr, ulong, ptr, flags:kexec_load_flags", "int", ""),
    _row(247, "waitid", "enum:idtypes, int, struct_out:siginfo, flags:wait_options, struct_out:rusage", "int", "%process", "process"),
    _row(248, "add_key", "str, str, buf_in:3, ulong, keyserial", "int", ""),
    _row(249, "request_key", "str, str, str, keyserial", "int", ""),
    _row(250, "keyctl", "enum:keyctl_commands, keyserial, hex, hex, hex", "int", ""),
    _row(251, "ioprio_set", "enum:ioprio_who, int, ioprio", "int", ""),
    _row(252, "ioprio_get", "enum:ioprio_who, int", "int", ""),
    _row(253, "inotify_init", "", "fd", "%desc", "inotify"),
    _row(254, "inotify_add_watch", "fd, path, flags:inotify_flags", "int", "%file %desc", "inotify"),
    _row(255, "inotify_rm_watch", "fd, int", "int", "%desc", "inotify"),
    _row(256, "migrate_pages", "int, ulong, ptr, ptr", "int", "%memory"),
    _row(257, "openat", "dirfd, path, flags:open_flags, open_mode", "fd", "%file %desc", "fs"),
    _row(258, "mkdirat", "dirfd, path, mode", "int", "%file %desc", "dirs"),
    _row(259, "mknodat", "dirfd, path, fmode, dev", "int", "%file %desc", "dirs.mknod"),
    _row(260, "fchownat", "dirfd, path, uid, gid, flags:at_flags", "int", "%file %desc", "dirs"),
    _row(261, "futimesat", "dirfd, path, struct_in:timeval_pair", "int", "%file %desc", "dirs.utimes"),
    _row(262, "newfstatat", "dirfd, path, struct_out:stat, flags:at_flags", "int", "%file %desc %fstat %%stat", "fsstat"),
    _row(263, "unlinkat", "dirfd, path, flags:at_flags", "int", "%file %desc", "dirs"),
    _row(264, "renameat", "dirfd, path, dirfd, path", "int", "%file %desc", "dirs"),
    _row(265, "linkat", "dirfd, path, dirfd, path, flags:at_flags", "int", "%file %desc", "dirs"),
    _row(266, "symlinkat", "path, dirfd, path", "int", "%file %desc", "dirs"),
    _row(267, "readlinkat", "dirfd, path, buf_out:3, ulong", "int", "%file %desc", "dirs"),
    _row(268, "fchmodat", "dirfd, path, mode", "int", "%file %desc", "dirs"),
    _row(269, "faccessat", "dirfd, path, flags:access_modes", "int", "%file %desc", "dirs"),
    _row(270, "pselect6", "int, fdset:0, fdset:0, fdset:0, struct_in:timespec, struct_in:pselect6_data", "int", "%desc", "poll"),
    _row(271, "ppoll", "pollfd:1, uint, struct_in:timespec, sigset_in:4, ulong", "int", "%desc", "poll"),
    _row(272, "unshare", "flags:unshare_flags", "int", "", "process.privileged"),
    _row(273, "set_robust_list", "ptr, ulong", "int", "", "process"),
    _row(274, "get_robust_list", "int, ptr_out, ulong_out", "int", "", "process"),
    _row(275, "splice", "fd, off_in, fd, off_in, ulong, flags:splice_flags", "int", "%desc", "splice"),
    _row(276, "tee", "fd, fd, ulong, flags:splice_flags", "int", "%desc", "splice"),
    _row(277, "sync_file_range", "fd, long, long, flags:sync_file_range_flags", "int", "%desc"),
    _row(278, "vmsplice", "fd, iovec_in:2, ulong, flags:splice_flags", "int", "%desc", "splice"),
    _row(279, "move_pages", "int, ulong, ptr, ptr, ptr, flags:move_pages_flags", "int", "%memory"),
    _row(280, "utimensat", "dirfd, path, struct_in:timespec_pair, flags:at_flags", "int", "%file %desc", "dirs"),
    _row(281, "epoll_pwait", "fd, epoll_events:2, int, int, sigset_out:5, ulong", "int", "%desc", "epoll"),
    _row(282, "signalfd", "fd, sigset_in:2, ulong", "fd", "%desc %signal", "signalfd"),
    _row(283, "timerfd_create", "enum:clocks, flags:timerfd_flags", "fd", "%desc", "timerfd"),
    _row(284, "eventfd", "uint", "fd", "%desc", "eventfd"),
    _row(285, "fallocate", "fd, flags:fallocate_flags, long, long", "int", "%desc", "rw"),
    _row(286, "timerfd_settime", "fd, flags:timerfd_flags, struct_in:itimerspec, struct_out:itimerspec", "int", "%desc", "timerfd"),
    _row(287, "timerfd_gettime", "fd, struct_out:itimerspec", "int", "%desc", "timerfd"),
    _row(288, "accept4", "fd, addr_out:2, socklen_io, flags:sock_type_flags", "fd", "%network", "net"),
    _row(289, "signalfd4", "fd, sigset_in:2, ulong, flags:sfd_flags", "fd", "%desc %signal", "signalfd"),
    _row(290, "eventfd2", "uint, flags:efd_flags", "fd", "%desc", "eventfd"),
    _row(291, "epoll_create1", "flags:epollflags", "fd", "%desc", "epoll"),
    _row(292, "dup3", "fd, fd, flags:dup3_flags", "fd", "%desc", "fs"),
    _row(293, "pipe2", "fdpair_out, flags:pipe_flags", "int", "%desc", "fs"),
    _row(294, "inotify_init1", "flags:inotify_init_flags", "fd", "%desc", "inotify"),
    _row(295, "preadv", "fd, iovec_out:2, ulong, long", "int", "%desc", "rw"),
    _row(296, "pwritev", "fd, iovec_in:2, ulong, long", "int", "%desc", "rw.writev"),
    _row(297, "rt_tgsigqueueinfo", "int, int, signo, struct_in:siginfo", "int", "%process %signal", "signals.rt_sigqueueinfo"),
    _row(298, "perf_event_open", "ptr, int, int, fd, flags:perf_event_open_flags", "fd", "%desc"),
    _row(299, "recvmmsg", "fd, ptr, uint, flags:msg_flags, struct_in:timespec", "int", "%network", "net"),
    _row(300, "fanotify_init", "flags:fan_init_flags, flags:open_flags", "fd", "%desc"),
    _row(301, "fanotify_mark", "fd, flags:fan_mark_flags, flags:fan_event_flags, fan_dirfd, path", "int", "%file %desc"),
    _row(302, "prlimit64", "int, enum:rlimit_resources, struct_in:rlimit, struct_out:rlimit", "int", "", "process"),
    _row(303, "name_to_handle_at", "dirfd, path, ptr, ptr, flags:name_to_handle_at_flags", "int", "%file %desc"),
    _row(304, "open_by_handle_at", "fd, ptr, flags:open_flags", "fd", "%desc"),
    _row(305, "clock_adjtime", "enum:clocks, struct_out:timex", "enum:adjtimex_state", "%clock", "process.privileged"),
    _row(306, "syncfs", "fd", "int", "%desc", "rw.fsync"),
    _row(307, "sendmmsg", "fd, ptr, uint, flags:msg_flags", "int", "%network", "net"),
    _row(308, "setns", "fd, flags:setns_types", "int", "%desc", "process.privileged"),
    _row(309, "getcpu", "uint_out, uint_out, ptr", "int", "", "process"),
    _row(310, "process_vm_readv", "int, iovec_out:2, ulong, iovec_remote:4, ulong, ulong", "int", ""),
    _row(311, "process_vm_writev", "int, iovec_in:2, ulong, iovec_remote:4, ulong, ulong", "int", ""),
    _row(312, "kcmp", "int, int, enum:kcmp_types, hex, hex", "int", "", "process"),
    _row(313, "finit_module", "fd, str, flags:module_init_flags", "int", "%desc", "process.privileged"),
    _row(314, "sched_setattr", "int, struct_in:sched_attr, uint", "int", ""),
    _row(315, "sched_getattr", "int, struct_out:sched_attr, uint, uint", "int", ""),
    _row(316, "renameat2", "dirfd, path, dirfd, path, flags:rename_flags", "int", "%file %desc", "dirs"),
    _row(317, "seccomp", "enum:seccomp_ops, flags:seccomp_filter_flags, ptr", "int", "", "seccomp"),
    _row(318, "getrandom", "buf_out:1, ulong, flags:getrandom_flags", "int", "", "misc"),
    _row(319, "memfd_create", "str, flags:memfd_create_flags", "fd", "%desc", "misc"),
    _row(320, "kexec_file_load", "fd, fd, ulong, buf_in:2, flags:kexec_file_load_flags", "int", "%desc"),
    _row(321, "bpf", "enum:bpf_commands, ptr, uint", "int", "%desc"),
    _row(322, "execveat", "dirfd, path, argv, envp, flags:execveat_flags", "int", "%file %desc %process", "process"),
    _row(323, "userfaultfd", "flags:uffd_flags", "fd", "%desc"),
    _row(324, "membarrier", "enum:membarrier_cmds, flags:membarrier_flags, int", "int", "", "membarrier"),
    _row(325, "mlock2", "ptr, ulong, flags:mlock_flags", "int", "%memory", "mm.mlock"),
    _row(326, "copy_file_range", "fd, off_in, fd, off_in, ulong, uint", "int", "%desc", "rw"),
    _row(327, "preadv2", "fd, iovec_out:2, ulong, long, skip, flags:rwf_flags", "int", "%desc", "rw.preadv"),
    _row(328, "pwritev2", "fd, iovec_in:2, ulong, long, skip, flags:rwf_flags", "int", "%desc", "rw.writev"),
    _row(329, "pkey_mprotect", "ptr, ulong, flags:mmap_prot, int", "int", "%memory", "mm.mprotect"),
    _row(330, "pkey_alloc", "hex, flags:pkey_access", "int", "", "pkeys"),
    _row(331, "pkey_free", "int", "int", "", "pkeys"),
    _row(332, "statx", "dirfd, path, flags:at_statx_flags, flags:statx_mask, struct_out:statx", "int", "%file %desc %fstat %%stat", "fsstat"),
    _row(333, "io_pgetevents", "ptr, long, long, ptr, struct_in:timespec, ptr", "int", ""),
    _row(334, "rseq", "hex, hex, hex, hex", "int", "", "process"),
    _row(424, "pidfd_send_signal", "fd, signo, struct_in:siginfo, flags:pidfd_send_signal_flags", "int", "%desc %process %signal", "pidfd"),
    _row(425, "io_uring_setup", "uint, ptr", "fd", "%desc"),
    _row(426, "io_uring_enter", "fd, uint, uint, flags:io_uring_enter_flags, sigset_in:5, ulong", "int", "%desc %signal"),
    _row(427, "io_uring_register", "fd, enum:io_uring_register_opcodes, ptr, uint", "int", "%desc %memory"),
    _row(428, "open_tree", "dirfd, path, flags:open_tree_flags", "fd", "%file %desc"),
    _row(429, "move_mount", "dirfd, path, dirfd, path, flags:move_mount_flags", "int", "%file %desc"),
    _row(430, "fsopen", "str, flags:fsopen_flags", "fd", "%desc"),
    _row(431, "fsconfig", "fd, enum:fsconfig_cmds, str, ptr, int", "int", "%file %desc"),
    _row(432, "fsmount", "fd, flags:fsmount_flags, flags:mount_attr_flags", "fd", "%desc"),
    _row(433, "fspick", "dirfd, path, flags:fspick_flags", "fd", "%file %desc"),
    _row(434, "pidfd_open", "int, flags:pidfd_open_flags", "fd", "%desc", "pidfd"),
    _row(435, "clone3", "struct_in:clone_args, ulong", "int", "%process", "clone"),
    _row(436, "close_range", "uint, uint, flags:close_range_flags", "int", "", "fs"),
    _row(437, "openat2", "dirfd, path, struct_in:open_how, ulong", "fd", "%file %desc", "fs"),
    _row(438, "pidfd_getfd", "fd, fd, hex32", "fd", "%desc", "pidfd"),
    _row(439, "faccessat2", "dirfd, path, flags:access_modes, flags:faccessat_flags", "int", "%file %desc", "dirs"),
    _row(440, "process_madvise", "fd, iovec_in:2, ulong, enum:madvise_advice, hex32", "int", "%desc"),
    _row(441, "epoll_pwait2", "fd, epoll_events:2, int, struct_out:timespec, sigset_out:5, ulong", "int", "%desc", "epoll"),
    _row(442, "mount_setattr", "dirfd, path, flags:mount_setattr_flags, ptr, ulong", "int", "%file %desc"),
    _row(443, "quotactl_fd", "fd, quotactl_cmd, int, ptr", "int", "%desc"),
    _row(444, "landlock_create_ruleset", "ptr, ulong, flags:landlock_create_ruleset_flags", "fd", "%desc"),
    _row(445, "landlock_add_rule", "fd, enum:landlock_rule_types, ptr, flags:landlock_add_rule_flags", "int", "%desc"),
    _row(446, "landlock_restrict_self", "fd, hex32", "int", "%desc"),
    _row(447, "memfd_secret", "flags:memfd_secret_flags", "fd", "%desc"),
    _row(448, "process_mrelease", "fd, hex32", "int", "%desc"),
    _row(449, "futex_waitv", "ptr, uint, hex32, struct_in:timespec, enum:clocks", "int", ""),
    _row(450, "set_mempolicy_home_node", "ptr, ulong, ulong, hex", "int", "%memory"),
    _row(451, "cachestat", "fd, struct_in:cachestat_range, struct_out:cachestat, hex32", "int", "%desc"),
    _row(452, "fchmodat2", "dirfd, path, mode, flags:at_nofollow_empty_flags", "int", "%desc %file"),
    _row(453, "map_shadow_stack", "ptr, ulong, flags:shadow_stack_flags", "ptr", "%memory"),
    _row(454, "futex_wake", "ptr, flags:futex_bitset, int, flags:futex2_flags", "int", ""),
    _row(455, "futex_wait", "ptr, ulong, flags:futex_bitset, flags:futex2_flags, struct_in:timespec, enum:clocks", "int", ""),
    _row(456, "futex_requeue", "ptr, hex32, int, int", "int", ""),
    _row(457, "statmount", "ptr, ptr, ulong, hex32", "int", ""),
    _row(458, "listmount", "ptr, ptr, ulong, hex32", "int", ""),
    _row(459, "lsm_get_self_attr", "enum:lsm_attrs, ptr, ptr, hex32", "int", ""),
    _row(460, "lsm_set_self_attr", "enum:lsm_attrs, ptr, uint, hex32", "int", ""),
    _row(461, "lsm_list_modules", "ptr, ptr, hex32", "int", ""),
    _row(462, "mseal", "ptr, ulong, hex", "int", "%memory"),
    # Linux 6.13-6.19 (the ABI of strace 7.2's suite, issue 39): known by name to -e trace=
    _row(463, "setxattrat", "dirfd, path, flags:at_nofollow_empty_flags, str, ptr, ulong", "int", "%desc %file"),
    _row(464, "getxattrat", "dirfd, path, flags:at_nofollow_empty_flags, str, ptr, ulong", "int", "%desc %file"),
    _row(465, "listxattrat", "dirfd, path, flags:at_nofollow_empty_flags, ptr, ulong", "int", "%desc %file"),
    _row(466, "removexattrat", "dirfd, path, flags:at_nofollow_empty_flags, str", "int", "%desc %file"),
    _row(467, "open_tree_attr", "dirfd, path, flags:open_tree_flags, ptr, ulong", "fd", "%desc %file"),
    _row(468, "file_getattr", "dirfd, path, ptr, ulong, flags:at_nofollow_empty_flags", "int", "%desc %file"),
    _row(469, "file_setattr", "dirfd, path, ptr, ulong, flags:at_nofollow_empty_flags", "int", "%desc %file"),
    _row(470, "listns", "ptr, ptr, ulong, hex32", "int", ""),
    _row(471, "rseq_slice_yield", "", "int", ""),
)

BY_NR: Dict[int, Syscall] = {row.nr: row for row in ROWS}
BY_NAME: Dict[str, Syscall] = {row.name: row for row in ROWS}


def by_class(cls: str) -> Tuple[Syscall, ...]:
    """The syscalls in a trace class ("%file"; "file" is accepted too)."""
    if not cls.startswith("%"):
        cls = "%" + cls
    return tuple(row for row in ROWS if cls in row.classes)
