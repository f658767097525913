"""The tables the behaviour report classifies by: which paths mean persistence or a privilege
probe, which system calls touch files, processes, memory or the network, and which library
calls carry strings worth keeping. Data only; collector.py and findings.py apply them."""
from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Optional
from emutrace.linux.fcntl import (AT_FDCWD, AT_REMOVEDIR, O_ACCMODE, O_APPEND, O_CREAT, O_RDWR, O_TRUNC, O_WRONLY)
from emutrace.linux.mman import MAP_ANONYMOUS, PROT_EXEC, PROT_WRITE
from emutrace.linux.net import AF_INET, AF_INET6, AF_NETLINK, AF_UNIX, SOCK_TYPE_MASK
from emutrace.linux.prctl import PR_SET_DUMPABLE, PR_SET_MM, PR_SET_NAME, PTRACE_TRACEME

# Files whose creation or change makes a program start again later (guest paths, fnmatch
# patterns; `*` crosses `/`, so "*/.bashrc" is every user's).
PERSISTENCE = (
    ("cron", ("/etc/crontab", "/etc/cron.*", "/etc/cron.d/*", "/var/spool/cron/*", "/etc/anacrontab")),
    ("systemd-unit", ("/etc/systemd/system/*", "/lib/systemd/system/*", "/usr/lib/systemd/system/*",
                      "/etc/systemd/user/*", "*/.config/systemd/user/*", "/run/systemd/system/*")),
    ("rc-file", ("/etc/rc.local", "/etc/rc.d/*", "/etc/rc[0-6S].d/*", "/etc/init.d/*", "/etc/init/*.conf",
                 "/etc/inittab")),
    ("shell-profile", ("/etc/profile", "/etc/profile.d/*", "/etc/bash.bashrc", "/etc/bashrc", "/etc/zsh/*",
                       "*/.bashrc", "*/.bash_profile", "*/.bash_login", "*/.profile", "*/.zshrc",
                       "*/.zprofile", "*/.bash_logout")),
    ("authorized-keys", ("*/.ssh/authorized_keys", "*/.ssh/authorized_keys2")),
    ("ld-preload", ("/etc/ld.so.preload",)),
    ("autostart", ("/etc/xdg/autostart/*", "*/.config/autostart/*")),
    ("udev-rule", ("/etc/udev/rules.d/*", "/lib/udev/rules.d/*")),
)

# Files only a privileged user may read: opening one is a privilege probe.
PRIVILEGED_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/sudoers",
                    "/etc/sudoers.d/*", "/etc/master.passwd")

# /proc files that say whether a debugger is attached (TracerPid:)
TRACER_FILES = ("/proc/self/status", "/proc/thread-self/status", "/proc/[0-9]*/status",
                "/proc/self/task/*/status", "/proc/[0-9]*/task/*/status")

# System calls that change the credentials, with their number of (integer) arguments
SETID_CALLS = {"setuid": 1, "setgid": 1, "setreuid": 2, "setregid": 2, "setresuid": 3, "setresgid": 3,
               "setfsuid": 1, "setfsgid": 1, "setgroups": 1, "capset": 0}

# Library calls whose string arguments are kept (index of each string argument, and the index
# of a length argument or None)
COMPARE_CALLS = {
    "strcmp": ((0, 1), None), "strncmp": ((0, 1), 2), "strcasecmp": ((0, 1), None),
    "strncasecmp": ((0, 1), 2), "memcmp": ((0, 1), 2), "bcmp": ((0, 1), 2), "strstr": ((0, 1), None),
    "strcasestr": ((0, 1), None),
}
# name resolution calls: the index of the host-name argument
RESOLVE_CALLS = {"getaddrinfo": 0, "gethostbyname": 0, "gethostbyname2": 0, "gethostbyname_r": 0,
                 "gethostbyname2_r": 0, "getnameinfo": None}
WATCHED_CALLS = tuple(COMPARE_CALLS) + tuple(n for n, i in RESOLVE_CALLS.items() if i is not None)

# Linux numbers (x86-64 ABI)
FAMILY = {AF_UNIX: "AF_UNIX", AF_INET: "AF_INET", AF_INET6: "AF_INET6", AF_NETLINK: "AF_NETLINK",
          17: "AF_PACKET"}
SOCK_TYPE = {1: "SOCK_STREAM", 2: "SOCK_DGRAM", 3: "SOCK_RAW", 5: "SOCK_SEQPACKET"}
DNS_PORT = 53

# errno names that mean a limit of the sandbox was met, by the calls that meet it
LIMIT_ERRNOS = {
    "EAGAIN": ("max-procs", frozenset({"fork", "vfork", "clone", "clone3"})),
    "ENOMEM": ("max-mem", frozenset({"mmap", "brk", "mremap", "clone", "clone3", "fork"})),
    "ENOSPC": ("max-disk", None),
    "EDQUOT": ("max-disk", None),
    "EMFILE": ("max-fds", None),
}


def matches(path: str, patterns) -> bool:
    return any(fnmatchcase(path, p) for p in patterns)


def persistence_kind(path: str) -> Optional[str]:
    """The persistence mechanism a write to `path` installs, or None."""
    for kind, patterns in PERSISTENCE:
        if matches(path, patterns):
            return kind
    return None
