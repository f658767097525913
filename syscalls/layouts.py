"""Linux x86-64 struct layouts, written out as data (name, offset, struct format).

Layouts only: how a struct is laid out in guest memory. Names of flag values live in the
tracer's decode/xlat.py, the formatting for traces in decode/strace/. The host's own structs
are never used: on macOS `struct stat` differs in every field.
"""
from __future__ import annotations

from emutrace.machine.layout import FXSAVE, Layout     # noqa: F401  (FXSAVE: the CPU's, re-exported beside Linux's)

STAT = Layout("stat", 144, [
    ("st_dev", 0, "Q"), ("st_ino", 8, "Q"), ("st_nlink", 16, "Q"), ("st_mode", 24, "I"),
    ("st_uid", 28, "I"), ("st_gid", 32, "I"), ("st_rdev", 40, "Q"), ("st_size", 48, "q"),
    ("st_blksize", 56, "q"), ("st_blocks", 64, "q"),
    ("st_atime", 72, "q"), ("st_atime_nsec", 80, "q"),
    ("st_mtime", 88, "q"), ("st_mtime_nsec", 96, "q"),
    ("st_ctime", 104, "q"), ("st_ctime_nsec", 112, "q"),
])

STATX = Layout("statx", 256, [
    ("stx_mask", 0, "I"), ("stx_blksize", 4, "I"), ("stx_attributes", 8, "Q"),
    ("stx_nlink", 16, "I"), ("stx_uid", 20, "I"), ("stx_gid", 24, "I"), ("stx_mode", 28, "H"),
    ("stx_ino", 32, "Q"), ("stx_size", 40, "Q"), ("stx_blocks", 48, "Q"),
    ("stx_attributes_mask", 56, "Q"),
    ("stx_atime_sec", 64, "q"), ("stx_atime_nsec", 72, "I"),
    ("stx_btime_sec", 80, "q"), ("stx_btime_nsec", 88, "I"),
    ("stx_ctime_sec", 96, "q"), ("stx_ctime_nsec", 104, "I"),
    ("stx_mtime_sec", 112, "q"), ("stx_mtime_nsec", 120, "I"),
    ("stx_rdev_major", 128, "I"), ("stx_rdev_minor", 132, "I"),
    ("stx_dev_major", 136, "I"), ("stx_dev_minor", 140, "I"), ("stx_mnt_id", 144, "Q"),
])

TIMESPEC = Layout("timespec", 16, [("tv_sec", 0, "q"), ("tv_nsec", 8, "q")])
TIMEVAL = Layout("timeval", 16, [("tv_sec", 0, "q"), ("tv_usec", 8, "q")])
TIMEZONE = Layout("timezone", 8, [("tz_minuteswest", 0, "i"), ("tz_dsttime", 4, "i")])
ITIMERVAL = Layout("itimerval", 32, [
    ("it_interval_sec", 0, "q"), ("it_interval_usec", 8, "q"),
    ("it_value_sec", 16, "q"), ("it_value_usec", 24, "q")])
ITIMERSPEC = Layout("itimerspec", 32, [
    ("it_interval_sec", 0, "q"), ("it_interval_nsec", 8, "q"),
    ("it_value_sec", 16, "q"), ("it_value_nsec", 24, "q")])

UTSNAME = Layout("utsname", 390, [
    ("sysname", 0, "65s"), ("nodename", 65, "65s"), ("release", 130, "65s"),
    ("version", 195, "65s"), ("machine", 260, "65s"), ("domainname", 325, "65s")])

RLIMIT = Layout("rlimit", 16, [("rlim_cur", 0, "Q"), ("rlim_max", 8, "Q")])

SYSINFO = Layout("sysinfo", 112, [
    ("uptime", 0, "q"), ("loads", 8, "3Q"), ("totalram", 32, "Q"), ("freeram", 40, "Q"),
    ("sharedram", 48, "Q"), ("bufferram", 56, "Q"), ("totalswap", 64, "Q"),
    ("freeswap", 72, "Q"), ("procs", 80, "H"), ("totalhigh", 88, "Q"), ("freehigh", 96, "Q"),
    ("mem_unit", 104, "I")])

# struct sigaction as the kernel's rt_sigaction sees it (not glibc's)
KSIGACTION = Layout("sigaction", 32, [
    ("sa_handler", 0, "Q"), ("sa_flags", 8, "Q"), ("sa_restorer", 16, "Q"), ("sa_mask", 24, "Q")])

STACK_T = Layout("stack_t", 24, [("ss_sp", 0, "Q"), ("ss_flags", 8, "i"), ("ss_size", 16, "Q")])

IOVEC = Layout("iovec", 16, [("iov_base", 0, "Q"), ("iov_len", 8, "Q")])

WINSIZE = Layout("winsize", 8, [
    ("ws_row", 0, "H"), ("ws_col", 2, "H"), ("ws_xpixel", 4, "H"), ("ws_ypixel", 6, "H")])

TERMIOS = Layout("termios", 36, [
    ("c_iflag", 0, "I"), ("c_oflag", 4, "I"), ("c_cflag", 8, "I"), ("c_lflag", 12, "I"),
    ("c_line", 16, "B"), ("c_cc", 17, "19s")])

# siginfo_t: 128 bytes; the union at 16 is read per signal (kill, fault, child, timer)
SIGINFO = Layout("siginfo", 128, [
    ("si_signo", 0, "i"), ("si_errno", 4, "i"), ("si_code", 8, "i"),
    ("si_pid", 16, "i"), ("si_uid", 20, "I"),          # kill, tkill, sigqueue, SIGCHLD
    ("si_addr", 16, "Q"),                                # SIGSEGV, SIGBUS, SIGILL, SIGFPE
    ("si_status", 24, "i"), ("si_utime", 32, "q"), ("si_stime", 40, "q"),   # SIGCHLD
    ("si_timerid", 16, "i"), ("si_overrun", 20, "i"), ("si_value", 24, "Q"),  # timers
])

# struct linux_dirent64 header; d_name (NUL-terminated) follows at 19, record padded to 8
DIRENT64 = Layout("dirent64", 19, [
    ("d_ino", 0, "Q"), ("d_off", 8, "q"), ("d_reclen", 16, "H"), ("d_type", 18, "B")])

STATFS = Layout("statfs", 120, [
    ("f_type", 0, "q"), ("f_bsize", 8, "q"), ("f_blocks", 16, "Q"), ("f_bfree", 24, "Q"),
    ("f_bavail", 32, "Q"), ("f_files", 40, "Q"), ("f_ffree", 48, "Q"), ("f_fsid", 56, "2i"),
    ("f_namelen", 64, "q"), ("f_frsize", 72, "q"), ("f_flags", 80, "q")])

POLLFD = Layout("pollfd", 8, [("fd", 0, "i"), ("events", 4, "h"), ("revents", 6, "h")])

# epoll_event is packed on x86-64 (12 bytes)
EPOLL_EVENT = Layout("epoll_event", 12, [("events", 0, "I"), ("data", 4, "Q")])

TMS = Layout("tms", 32, [
    ("tms_utime", 0, "q"), ("tms_stime", 8, "q"), ("tms_cutime", 16, "q"), ("tms_cstime", 24, "q")])

RUSAGE = Layout("rusage", 144, [
    ("ru_utime_sec", 0, "q"), ("ru_utime_usec", 8, "q"),
    ("ru_stime_sec", 16, "q"), ("ru_stime_usec", 24, "q"), ("ru_maxrss", 32, "q")])

# struct clone_args (clone3), version 0 is 64 bytes
CLONE_ARGS = Layout("clone_args", 64, [
    ("flags", 0, "Q"), ("pidfd", 8, "Q"), ("child_tid", 16, "Q"), ("parent_tid", 24, "Q"),
    ("exit_signal", 32, "Q"), ("stack", 40, "Q"), ("stack_size", 48, "Q"), ("tls", 56, "Q")])

# struct robust_list_head
ROBUST_LIST_HEAD = Layout("robust_list_head", 24, [
    ("list_next", 0, "Q"), ("futex_offset", 8, "q"), ("list_op_pending", 16, "Q")])

# The signal frame the kernel pushes (arch/x86/include/asm/sigframe.h, uapi/asm/sigcontext.h):
#   rt_sigframe = { pretcode; struct ucontext uc; struct siginfo info; }, fpstate placed below.
UCONTEXT = Layout("ucontext", 304, [
    ("uc_flags", 0, "Q"), ("uc_link", 8, "Q"),
    ("ss_sp", 16, "Q"), ("ss_flags", 24, "i"), ("ss_size", 32, "Q"),
    # struct sigcontext at 40
    ("r8", 40, "Q"), ("r9", 48, "Q"), ("r10", 56, "Q"), ("r11", 64, "Q"),
    ("r12", 72, "Q"), ("r13", 80, "Q"), ("r14", 88, "Q"), ("r15", 96, "Q"),
    ("rdi", 104, "Q"), ("rsi", 112, "Q"), ("rbp", 120, "Q"), ("rbx", 128, "Q"),
    ("rdx", 136, "Q"), ("rax", 144, "Q"), ("rcx", 152, "Q"), ("rsp", 160, "Q"),
    ("rip", 168, "Q"), ("eflags", 176, "Q"),
    ("cs", 184, "H"), ("gs", 186, "H"), ("fs", 188, "H"), ("ss", 190, "H"),
    ("err", 192, "Q"), ("trapno", 200, "Q"), ("oldmask", 208, "Q"), ("cr2", 216, "Q"),
    ("fpstate", 224, "Q"),
    ("uc_sigmask", 296, "Q"),
])
SIGCONTEXT_GREGS = ("r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rdi", "rsi", "rbp",
                    "rbx", "rdx", "rax", "rcx", "rsp", "rip", "eflags")
RT_SIGFRAME_SIZE = 8 + UCONTEXT.size + SIGINFO.size    # pretcode + ucontext + siginfo

# struct _fpstate is the CPU's FXSAVE image: the machine layer defines it (FXSAVE above)

# struct sigevent (timer_create, mq_notify): the union at 16 holds the thread id for SIGEV_THREAD_ID
SIGEVENT = Layout("sigevent", 64, [
    ("sigev_value", 0, "Q"), ("sigev_signo", 8, "i"), ("sigev_notify", 12, "i"),
    ("sigev_notify_thread_id", 16, "i")])

# struct signalfd_siginfo: what read(2) on a signalfd returns, 128 bytes per signal
SIGNALFD_SIGINFO = Layout("signalfd_siginfo", 128, [
    ("ssi_signo", 0, "I"), ("ssi_errno", 4, "i"), ("ssi_code", 8, "i"), ("ssi_pid", 12, "I"),
    ("ssi_uid", 16, "I"), ("ssi_fd", 20, "i"), ("ssi_tid", 24, "I"), ("ssi_band", 28, "I"),
    ("ssi_overrun", 32, "I"), ("ssi_trapno", 36, "I"), ("ssi_status", 40, "i"), ("ssi_int", 44, "i"),
    ("ssi_ptr", 48, "Q"), ("ssi_utime", 56, "Q"), ("ssi_stime", 64, "Q"), ("ssi_addr", 72, "Q")])

# struct inotify_event header; the NUL-padded name (len bytes) follows at 16
INOTIFY_EVENT = Layout("inotify_event", 16, [
    ("wd", 0, "i"), ("mask", 4, "I"), ("cookie", 8, "I"), ("len", 12, "I")])
