"""Symbolic names of Linux x86-64 flag and enum values, printed the way strace 6.1 prints them.

All values are Linux's, never the host's (emutrace runs on macOS too, so nothing is imported
from os/signal/socket). A name emutrace.linux declares is written here without its value, which
comes from there (one declaration per constant); the others are declared here, in their set.
Orders matter: flag names are printed in the order of the set, as strace does
(O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY), and supersets come before their parts (O_SYNC before O_DSYNC, STATX_ALL before STATX_TYPE).
The sets are declared in emutrace.decode.xlatsets, over the machinery of emutrace.decode.xlatcore.

API:
  SETS: dict[str, Xlat]                 every set by name
  format_flags(set_name, value) -> str  'O_RDONLY|O_CLOEXEC', unknown bits '|0x40000000'
  format_enum(set_name, value) -> str   'SEEK_END', unknown '0x7 /* SEEK_??? */'
  lookup(set_name, value) -> str|None   the exact name of a value, or None
  signal_name(n) -> str                 'SIGINT', 'SIGRTMIN', 'SIGRT_3', '65'
  format_sigset(mask, size=8) -> str    '[INT TERM]', '~[RTMIN RT_1]', '[]'
  format_mode(mode) -> str              'S_IFREG|0644', 'S_IFDIR|S_ISVTX|0777', '0644'
  format_ioctl(request) -> str          'TCGETS', '_IOC(_IOC_READ, 0x62, 0x1, 0x8)'
  format_futex_op(op) -> str            'FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME'
  format_clockid(id) -> str             'CLOCK_MONOTONIC', 'MAKE_PROCESS_CPUCLOCK(1234, CPUCLOCK_SCHED)'

A set is written compactly as "NAME=value NAME NAME=value ...": in an enum a name without a value
takes the previous value plus one (C enum style); in a flag set every name has its value.
"""
from __future__ import annotations

from typing import Optional

from emutrace.decode.xlatcore import SETS, STYLE, Style, Xlat, _hex, octal   # noqa: F401 (the API)
from emutrace.decode.xlatsets import format_ioctl, ioctl_arg_style           # noqa: F401 (the API)
from emutrace.decode import xlatmore                                         # noqa: F401 (its sets)

# ---------------------------------------------------------------------------------------------
# signals

_SIGNAMES = (None, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE",
             "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
             "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU",
             "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
             "SIGSYS", "SIGRTMIN")
SIGRTMIN = 32
SIGRTMAX = 64
SETS["signals"] = Xlat("signals", [(i, n) for i, n in enumerate(_SIGNAMES) if n] +
                       [(i, f"SIGRT_{i - SIGRTMIN}") for i in range(SIGRTMIN + 1, SIGRTMAX + 1)])
SIGNAL_NUMBERS = {n: v for v, n in SETS["signals"].pairs}


def signal_name(n: int) -> str:
    """'SIGINT' for 2, 'SIGRTMIN' for 32, 'SIGRT_3' for 35; other numbers in decimal."""
    if 0 < n < len(_SIGNAMES):
        return _SIGNAMES[n]
    if SIGRTMIN < n <= SIGRTMAX:
        return f"SIGRT_{n - SIGRTMIN}"
    return str(n)


def format_sigset(mask: int, size: int = 8) -> str:
    """A sigset_t of `size` bytes as strace prints it: [INT TERM]; when 2/3 or more of the bits are
    set, the complement with a ~ (~[KILL STOP]); signal numbers above 64 in decimal."""
    size = min(size, 16)
    words = (size + 3) // 4
    nbits = words * 32
    mask &= (1 << nbits) - 1
    prefix = ""
    if bin(mask).count("1") >= nbits * 2 // 3:
        mask = ~mask & ((1 << nbits) - 1)
        prefix = "~"
    names = []
    for bit in range(nbits):
        if mask >> bit & 1:
            sig = bit + 1
            name = signal_name(sig)
            names.append(name[3:] if name.startswith("SIG") else name)
    return prefix + "[" + " ".join(names) + "]"


# ---------------------------------------------------------------------------------------------
# composite formatters

def format_mode(mode: int) -> str:
    """File type and permissions as strace prints st_mode / mknod modes: S_IFREG|S_ISUID|0755.
    An unknown file type prints the whole mode in octal."""
    mode &= 0xffff
    ftype = mode & 0o170000
    parts = []
    if ftype:
        name = SETS["file_types"].lookup(ftype)
        if name is None:
            return octal(mode)
        parts.append(name)
    for v, n in SETS["mode_bits"].pairs:
        if mode & v:
            parts.append(n)
    parts.append(octal(mode & 0o777))
    return "|".join(parts)


def format_futex_op(op: int) -> str:
    op &= 0xffffffff
    cmd = op & 0x7f                     # FUTEX_CMD_MASK without the flags
    private = op & 0x80
    realtime = op & 0x100
    base = SETS["futex_ops"].lookup(cmd)
    if base is None or op & ~0x1ff:
        return f"{_hex(op)} /* FUTEX_??? */"
    if private:
        if cmd == 2:                    # FUTEX_FD has no _PRIVATE name
            base += "|FUTEX_PRIVATE_FLAG"
        else:
            base += "_PRIVATE"
    if realtime:
        base += "|FUTEX_CLOCK_REALTIME"
    return base


def format_futex_wake_op(val3: int) -> str:
    """FUTEX_OP_SET<<28|0<<12|FUTEX_OP_CMP_GT<<24|0x1, as strace prints FUTEX_WAKE_OP's val3."""
    val3 &= 0xffffffff
    op = (val3 >> 28) & 0x7
    shift = (val3 >> 31) & 1
    cmp = (val3 >> 24) & 0xf
    oparg = (val3 >> 12) & 0xfff
    cmparg = val3 & 0xfff
    opname = SETS["futex_wake_ops"].format_enum(op)
    parts = []
    if shift:
        parts.append("FUTEX_OP_OPARG_SHIFT<<28")
    parts.append(f"{opname}<<28")
    parts.append(f"{_hex(oparg)}<<12")
    parts.append(f"{SETS['futex_wake_cmps'].format_enum(cmp)}<<24")
    parts.append(_hex(cmparg))
    return "|".join(parts)


def format_clockid(clockid: int) -> str:
    """CLOCK_* names; dynamic clocks as strace prints them (FD_TO_CLOCKID(3),
    MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)); other values in hex with a comment."""
    return SETS["clocks"].format_enum(clockid & 0xffffffff)     # (-X raw/verbose as every enum)


def format_ipc_cmd(set_name: str, cmd: int) -> str:
    """shmctl/semctl/msgctl commands: IPC_STAT, IPC_64|IPC_STAT (IPC_64 is 0x100)."""
    cmd &= 0xffffffff
    if cmd & 0x100:
        return "IPC_64|" + SETS[set_name].format_enum(cmd & ~0x100)
    return SETS[set_name].format_enum(cmd)


def format_ipc_key(key: int) -> str:
    key &= 0xffffffff
    return "IPC_PRIVATE" if key == 0 else _hex(key)


def format_dev(dev: int) -> str:
    """makedev(0x8, 0x1): the kernel's 32-bit new_encode_dev layout."""
    dev &= 0xffffffff
    major = (dev & 0xfff00) >> 8
    minor = (dev & 0xff) | ((dev >> 12) & 0xfff00)
    return f"makedev({_hex(major)}, {_hex(minor)})"


def format_stat_dev(dev: int) -> str:
    """makedev() of a 64-bit dev_t as glibc splits it (st_dev, st_rdev)."""
    major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff & 0xffffffff)
    minor = (dev & 0xff) | ((dev >> 12) & ~0xff & 0xffffffff)
    return f"makedev({_hex(major)}, {_hex(minor)})"


# ---------------------------------------------------------------------------------------------
# module API

def lookup(set_name: str, value: int) -> Optional[str]:
    return SETS[set_name].lookup(value)


def format_flags(set_name: str, value: int) -> str:
    """Flags the way strace prints them: names in set order joined by |, unknown bits appended in
    hex ('O_RDONLY|0x40000000'), only unknown bits with the set's comment ('0x8 /* MS_??? */'),
    zero as the zero-valued name if the set has one, else '0'."""
    x = SETS[set_name]
    return x.format_flags(value) if x.flags else x.format_enum(value)


def format_enum(set_name: str, value: int) -> str:
    """The name of a value, or '0x7 /* SEEK_??? */' as strace prints unknown values."""
    return SETS[set_name].format_enum(value)
