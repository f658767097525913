"""Symbolic names of Linux x86-64 flag and enum values, printed the way strace 6.1 prints them.

All values are Linux's, never the host's (emutrace runs on macOS too, so nothing is imported
from os/signal/socket). A name emutrace.linux declares is written here without its value, which
comes from there (one declaration per constant); the others are declared here, in their set.
Orders matter: flag names are printed in the order of the set, as strace does
(O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY), and supersets come before their parts (O_SYNC before O_DSYNC, STATX_ALL before STATX_TYPE).

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

from typing import Dict, Iterable, Optional, Tuple

from emutrace.linux import VALUES as LINUX


class Style:
    """How constants print (strace's -X, process-wide in strace): 'abbrev' (O_RDONLY), 'raw'
    (0) or 'verbose' (0 /* O_RDONLY */). The strace formatter sets it while it decodes a call
    (SyscallFormatter: only when its run asked for another style) and puts it back after."""
    __slots__ = ("xlat",)

    def __init__(self):
        self.xlat = "abbrev"


STYLE = Style()


class Xlat:
    """A named set of (value, name) pairs: a bit-flag set (flags=True) or an enum.

    dflt: the '/* X_??? */' comment strace prints after an unknown value (None: no comment).
    Flag sets may have composite parts printed before the flags:
      prefix (an Xlat) over the bits in prefix_mask, e.g. O_ACCMODE (O_RDONLY/O_WRONLY/O_RDWR) of
      the open flags or the map type of mmap; prefix_always: print the prefix even when its value
      has no name (personality: '0x18 /* PER_??? */|ADDR_NO_RANDOMIZE'); otherwise an unknown
      prefix value is left in the flags (socket types).
      field = (shift, mask, name): a number stored in the bits, printed after the flags as
      'N<<name' (MAP_HUGE_SHIFT, MFD_HUGE_SHIFT).
      low_octal: the low 9 bits are permission bits printed last in octal ('IPC_CREAT|0600').
      low_decimal: bits printed last as a decimal number (swapon priorities).
      rest_dflt: the comment for unknown flags after a prefix (default: dflt).
    """

    __slots__ = ("name", "pairs", "flags", "dflt", "prefix", "prefix_mask", "prefix_always",
                 "field", "low_octal", "low_decimal", "rest_dflt", "_by_value")

    def __init__(self, name: str, pairs: Iterable[Tuple[int, str]], flags: bool = False,
                 dflt: Optional[str] = None, prefix: "Xlat" = None, prefix_mask: int = 0,
                 prefix_always: bool = False, field: Tuple[int, int, str] = None,
                 low_octal: bool = False, low_decimal: int = 0, rest_dflt: Optional[str] = "same"):
        self.name = name
        self.pairs = tuple(pairs)
        self.flags = flags
        self.dflt = dflt
        self.prefix = prefix
        self.prefix_mask = prefix_mask
        self.prefix_always = prefix_always
        self.field = field
        self.low_octal = low_octal
        self.low_decimal = low_decimal
        self.rest_dflt = dflt if rest_dflt == "same" else rest_dflt
        self._by_value: Dict[int, str] = {}
        for v, n in self.pairs:
            self._by_value.setdefault(v, n)

    def __repr__(self):
        return f"Xlat({self.name!r}, {len(self.pairs)} {'flags' if self.flags else 'values'})"

    def __contains__(self, value: int) -> bool:
        return value in self._by_value

    def names(self) -> Dict[str, int]:
        return {n: v for v, n in self.pairs}

    def lookup(self, value: int) -> Optional[str]:
        return self._by_value.get(value)

    # -- enums
    def format_enum(self, value: int) -> str:
        name = self._by_value.get(value)
        style = STYLE.xlat
        if style != "abbrev":
            if style == "raw" or name is None:
                text = _hex(value)
                return f"{text} /* {self.dflt} */" if self.dflt and name is None and style != "raw" else text
            return f"{_hex(value)} /* {name} */"
        if name is not None:
            return name
        text = _hex(value)
        return f"{text} /* {self.dflt} */" if self.dflt else text

    # -- flags
    def _plain_flags(self, value: int, dflt: Optional[str]) -> str:
        if value == 0:
            zero = self._by_value.get(0)
            return zero if zero is not None else "0"
        out = []
        rest = value
        for v, n in self.pairs:
            if v and (rest & v) == v:
                out.append(n)
                rest &= ~v
                if not rest:
                    break
        if rest:
            if not out:
                return f"{_hex(rest)} /* {dflt} */" if dflt else _hex(rest)
            out.append(_hex(rest))
        return "|".join(out)

    def format_flags(self, value: int) -> str:
        if not self.flags:
            return self.format_enum(value)
        style = STYLE.xlat
        if style != "abbrev":
            # -X raw: the number alone; -X verbose: the number, then the names in a comment
            # (strace's printflags_ex), the names printed as -X abbrev would
            if style == "raw":
                return _hex(value)
            STYLE.xlat = "abbrev"
            try:
                names = self.format_flags(value)
            finally:
                STYLE.xlat = style
            if names == _hex(value) or names == "0" and value == 0:
                return names
            if " /* " in names and names.startswith(_hex(value)):
                return names                    # (only unknown bits: '0x8 /* MS_??? */' as it is)
            return f"{_hex(value)} /* {names} */"
        tail = []
        if self.field:
            shift, mask, fname = self.field
            n = (value >> shift) & mask
            value &= ~(mask << shift)
            if n:
                tail.append(f"{n}<<{fname}")
        if self.low_octal:
            tail.append(octal(value & 0o777))
            value &= ~0o777
        elif self.low_decimal:
            tail.append(str(value & self.low_decimal))
            value &= ~self.low_decimal
        parts = []
        rest = value
        if self.prefix is not None:
            pv = value & self.prefix_mask
            if self.prefix_always or pv in self.prefix:
                parts.append(self.prefix.format(pv))
                rest = value & ~self.prefix_mask
        if rest or not (parts or tail):
            parts.append(self._plain_flags(rest, self.rest_dflt if parts else self.dflt))
        return "|".join(parts + tail)

    def format(self, value: int) -> str:
        return self.format_flags(value) if self.flags else self.format_enum(value)


def _hex(v: int) -> str:
    return "0" if v == 0 else "%#x" % v


def octal(v: int) -> str:
    """C's %#03o, as strace prints modes: 000, 0644, 04755."""
    return "0%02o" % v


SETS: Dict[str, Xlat] = {}


def _parse(body: str, flags: bool):
    """A set's pairs from its text: a name emutrace.linux declares takes its value from there (it
    is never written twice); another has its value after '=', or in an enum the previous + 1."""
    pairs = []
    nxt = 0
    for tok in body.split():
        name, eq, val = tok.partition("=")
        if name in LINUX:
            if eq:
                raise ValueError(f"{name} is declared in emutrace.linux: write it without a value")
            v = LINUX[name]
        elif eq:
            v = int(val, 0)
        elif flags:
            raise ValueError(f"flag {name} needs a value")
        else:
            v = nxt
        pairs.append((v, name))
        nxt = v + 1
    return pairs


def _F(name, dflt, body, **kw) -> Xlat:
    x = Xlat(name, _parse(body, True), flags=True, dflt=dflt, **kw)
    SETS[name] = x
    return x


def _E(name, dflt, body, **kw) -> Xlat:
    x = Xlat(name, _parse(body, False), flags=False, dflt=dflt, **kw)
    SETS[name] = x
    return x


def _alias(name, other):
    SETS[name] = SETS[other]


# ---------------------------------------------------------------------------------------------
# files and descriptors

_E("open_access_modes", None, "O_RDONLY O_WRONLY O_RDWR O_ACCMODE")
_OPEN_MODE_FLAGS = """
    O_CREAT O_EXCL O_NOCTTY O_TRUNC O_APPEND O_NONBLOCK
    O_SYNC=0x101000 O_DSYNC=0x1000 __O_SYNC=0x100000 O_DIRECT=0x4000 O_LARGEFILE=0x8000
    O_NOFOLLOW O_NOATIME=0x40000 O_CLOEXEC O_PATH O_TMPFILE
    O_DIRECTORY __O_TMPFILE=0x400000 FASYNC=0x2000"""
# open flags: access mode first, then the other flags; unknown bits appended without a comment
_F("open_flags", None, _OPEN_MODE_FLAGS, prefix=SETS["open_access_modes"], prefix_mask=3,
   prefix_always=True)
_F("open_mode_flags", "O_???", _OPEN_MODE_FLAGS)            # flags without the access mode
_alias("pipe_flags", "open_mode_flags")
_alias("dup3_flags", "open_mode_flags")
_F("memfd_secret_flags", None, "O_CLOEXEC")
_F("delete_module_flags", "O_???", "O_NONBLOCK O_TRUNC")
_F("uffd_flags", "UFFD_???", "UFFD_USER_MODE_ONLY=1 O_NONBLOCK O_CLOEXEC")

_F("at_flags", "AT_???", """
    AT_SYMLINK_NOFOLLOW AT_REMOVEDIR AT_SYMLINK_FOLLOW AT_NO_AUTOMOUNT=0x800
    AT_EMPTY_PATH AT_RECURSIVE=0x8000""")
_F("faccessat_flags", "AT_???", "AT_SYMLINK_NOFOLLOW AT_EACCESS AT_EMPTY_PATH")
# the *xattrat calls, fchmodat2, file_getattr/file_setattr: only these two
_F("at_nofollow_empty_flags", "AT_???", "AT_SYMLINK_NOFOLLOW AT_EMPTY_PATH")
_F("name_to_handle_at_flags", "AT_???", "AT_SYMLINK_FOLLOW AT_EMPTY_PATH")
_F("mount_setattr_flags", "AT_???",
   "AT_SYMLINK_NOFOLLOW AT_NO_AUTOMOUNT=0x800 AT_EMPTY_PATH AT_RECURSIVE=0x8000")
_F("at_statx_sync_types", None,
   "AT_STATX_SYNC_AS_STAT=0 AT_STATX_FORCE_SYNC=0x2000 AT_STATX_DONT_SYNC=0x4000")
_F("at_statx_flags", None, """
    AT_SYMLINK_NOFOLLOW AT_REMOVEDIR AT_SYMLINK_FOLLOW AT_NO_AUTOMOUNT=0x800
    AT_EMPTY_PATH AT_RECURSIVE=0x8000""", prefix=SETS["at_statx_sync_types"],
   prefix_mask=0x6000, prefix_always=True)
_F("statx_mask", "STATX_???", """
    STATX_ALL=0xfff STATX_BASIC_STATS STATX_TYPE=1 STATX_MODE=2 STATX_NLINK=4 STATX_UID=8
    STATX_GID=0x10 STATX_ATIME=0x20 STATX_MTIME=0x40 STATX_CTIME=0x80 STATX_INO=0x100
    STATX_SIZE=0x200 STATX_BLOCKS=0x400 STATX_BTIME=0x800 STATX_MNT_ID
    STATX_DIOALIGN=0x2000""")
_F("statx_attrs", "STATX_ATTR_???", """
    STATX_ATTR_COMPRESSED=0x4 STATX_ATTR_IMMUTABLE=0x10 STATX_ATTR_APPEND=0x20
    STATX_ATTR_NODUMP=0x40 STATX_ATTR_ENCRYPTED=0x800 STATX_ATTR_AUTOMOUNT=0x1000
    STATX_ATTR_MOUNT_ROOT=0x2000 STATX_ATTR_VERITY=0x100000 STATX_ATTR_DAX=0x200000""")
_F("access_modes", "?_OK", "F_OK=0 R_OK W_OK X_OK")
_E("whence", "SEEK_???", "SEEK_SET SEEK_CUR SEEK_END SEEK_DATA SEEK_HOLE")
_F("rename_flags", "RENAME_??", "RENAME_NOREPLACE=1 RENAME_EXCHANGE=2 RENAME_WHITEOUT=4")
_F("close_range_flags", "CLOSE_RANGE_???", "CLOSE_RANGE_UNSHARE=2 CLOSE_RANGE_CLOEXEC=4")
_E("utime_special", None, "UTIME_NOW=0x3fffffff UTIME_OMIT=0x3ffffffe")
_F("xattr_flags", "XATTR_???", "XATTR_CREATE=1 XATTR_REPLACE=2")
_F("flock_ops", "LOCK_???",
   "LOCK_SH LOCK_EX LOCK_NB LOCK_UN LOCK_MAND=0x20 LOCK_RW=0xc0 LOCK_READ=0x40 LOCK_WRITE=0x80")
_E("fadvise_advice", "POSIX_FADV_???", """
    POSIX_FADV_NORMAL=0 POSIX_FADV_RANDOM POSIX_FADV_SEQUENTIAL POSIX_FADV_WILLNEED
    POSIX_FADV_DONTNEED POSIX_FADV_NOREUSE""")
_F("fallocate_flags", "FALLOC_FL_???", """
    FALLOC_FL_KEEP_SIZE=1 FALLOC_FL_PUNCH_HOLE=2 FALLOC_FL_NO_HIDE_STALE=4
    FALLOC_FL_COLLAPSE_RANGE=8 FALLOC_FL_ZERO_RANGE=0x10 FALLOC_FL_INSERT_RANGE=0x20
    FALLOC_FL_UNSHARE_RANGE=0x40""")
_F("splice_flags", "SPLICE_F_???", "SPLICE_F_MOVE SPLICE_F_NONBLOCK SPLICE_F_MORE SPLICE_F_GIFT")
_F("sync_file_range_flags", "SYNC_FILE_RANGE_???",
   "SYNC_FILE_RANGE_WAIT_BEFORE=1 SYNC_FILE_RANGE_WRITE=2 SYNC_FILE_RANGE_WAIT_AFTER=4")
_F("rwf_flags", "RWF_???", "RWF_HIPRI=1 RWF_DSYNC=2 RWF_SYNC=4 RWF_NOWAIT=8 RWF_APPEND=0x10")
_E("fcntl_cmds", "F_???", """
    F_DUPFD F_GETFD F_SETFD F_GETFL F_SETFL F_GETLK F_SETLK F_SETLKW F_SETOWN F_GETOWN
    F_SETSIG F_GETSIG F_GETLK64 F_SETLK64 F_SETLKW64 F_SETOWN_EX F_GETOWN_EX F_GETOWNER_UIDS
    F_OFD_GETLK F_OFD_SETLK F_OFD_SETLKW F_SETLEASE=1024 F_GETLEASE F_NOTIFY F_CANCELLK=1029
    F_DUPFD_CLOEXEC F_SETPIPE_SZ F_GETPIPE_SZ F_ADD_SEALS F_GET_SEALS""")
_F("fdflags", "FD_???", "FD_CLOEXEC")
_E("lockfcmds", "F_???", "F_RDLCK F_WRLCK F_UNLCK F_EXLCK=4 F_SHLCK=8")
_F("notifyflags", "DN_???", """
    DN_ACCESS=1 DN_MODIFY=2 DN_CREATE=4 DN_DELETE=8 DN_RENAME=0x10 DN_ATTRIB=0x20
    DN_MULTISHOT=0x80000000""")
_F("f_seals", "F_SEAL_???", "F_SEAL_SEAL=1 F_SEAL_SHRINK=2 F_SEAL_GROW=4 F_SEAL_WRITE=8 F_SEAL_FUTURE_WRITE=0x10")
_E("f_owner_types", "F_OWNER_???", "F_OWNER_TID=0 F_OWNER_PID F_OWNER_PGRP")
_F("inotify_flags", "IN_???", """
    IN_ACCESS IN_MODIFY IN_ATTRIB IN_CLOSE_WRITE IN_CLOSE_NOWRITE IN_OPEN
    IN_MOVED_FROM IN_MOVED_TO IN_CREATE IN_DELETE IN_DELETE_SELF
    IN_MOVE_SELF IN_UNMOUNT IN_Q_OVERFLOW IN_IGNORED
    IN_ONLYDIR IN_DONT_FOLLOW IN_EXCL_UNLINK
    IN_MASK_CREATE IN_MASK_ADD IN_ISDIR IN_ONESHOT""")
_F("inotify_init_flags", "IN_???", "IN_NONBLOCK=0x800 IN_CLOEXEC=0x80000")
_F("fan_init_class", None, "FAN_CLASS_NOTIF=0 FAN_CLASS_CONTENT=4 FAN_CLASS_PRE_CONTENT=8")
_E("fan_classes", "FAN_CLASS_???", "FAN_CLASS_NOTIF=0 FAN_CLASS_CONTENT=4 FAN_CLASS_PRE_CONTENT=8")
_F("fan_init_flags", "FAN_???", """
    FAN_CLOEXEC=1 FAN_NONBLOCK=2 FAN_UNLIMITED_QUEUE=0x10 FAN_UNLIMITED_MARKS=0x20
    FAN_ENABLE_AUDIT=0x40 FAN_REPORT_PIDFD=0x80 FAN_REPORT_TID=0x100 FAN_REPORT_FID=0x200
    FAN_REPORT_DIR_FID=0x400 FAN_REPORT_NAME=0x800 FAN_REPORT_TARGET_FID=0x1000""",
   prefix=SETS["fan_classes"], prefix_mask=0xc, prefix_always=True)
_F("fan_mark_flags", "FAN_MARK_???", """
    FAN_MARK_ADD=1 FAN_MARK_REMOVE=2 FAN_MARK_DONT_FOLLOW=4 FAN_MARK_ONLYDIR=8
    FAN_MARK_MOUNT=0x10 FAN_MARK_IGNORED_MASK=0x20 FAN_MARK_IGNORED_SURV_MODIFY=0x40
    FAN_MARK_FLUSH=0x80 FAN_MARK_FILESYSTEM=0x100 FAN_MARK_EVICTABLE=0x200 FAN_MARK_IGNORE=0x400""")
_F("fan_event_flags", "FAN_???", """
    FAN_ACCESS=1 FAN_MODIFY=2 FAN_ATTRIB=4 FAN_CLOSE_WRITE=8 FAN_CLOSE_NOWRITE=0x10
    FAN_OPEN=0x20 FAN_MOVED_FROM=0x40 FAN_MOVED_TO=0x80 FAN_CREATE=0x100 FAN_DELETE=0x200
    FAN_DELETE_SELF=0x400 FAN_MOVE_SELF=0x800 FAN_OPEN_EXEC=0x1000 FAN_Q_OVERFLOW=0x4000
    FAN_FS_ERROR=0x8000 FAN_OPEN_PERM=0x10000 FAN_ACCESS_PERM=0x20000 FAN_OPEN_EXEC_PERM=0x40000
    FAN_DIR_MODIFY=0x80000 FAN_ONDIR=0x40000000 FAN_EVENT_ON_CHILD=0x8000000
    FAN_RENAME=0x10000000""")
_F("memfd_create_flags", "MFD_???", "MFD_CLOEXEC MFD_ALLOW_SEALING=2 MFD_HUGETLB=4",
   field=(26, 0x3f, "MFD_HUGE_SHIFT"))
_F("efd_flags", "EFD_???", "EFD_SEMAPHORE EFD_CLOEXEC=0x80000 EFD_NONBLOCK=0x800")
_F("sfd_flags", "SFD_???", "SFD_CLOEXEC=0x80000 SFD_NONBLOCK=0x800")
_F("timerfd_flags", "TFD_???",
   "TFD_TIMER_ABSTIME TFD_TIMER_CANCEL_ON_SET TFD_CLOEXEC=0x80000 TFD_NONBLOCK=0x800")
_F("epollflags", "EPOLL_???", "EPOLL_CLOEXEC=0x80000")
_E("epoll_ctl_ops", "EPOLL_CTL_???", "EPOLL_CTL_ADD EPOLL_CTL_DEL EPOLL_CTL_MOD")
_F("epollevents", "EPOLL???", """
    EPOLLIN EPOLLPRI=2 EPOLLOUT EPOLLERR EPOLLHUP EPOLLNVAL=0x20 EPOLLRDNORM=0x40
    EPOLLRDBAND=0x80 EPOLLWRNORM=0x100 EPOLLWRBAND=0x200 EPOLLMSG=0x400 EPOLLRDHUP=0x2000
    EPOLLEXCLUSIVE=0x10000000 EPOLLWAKEUP=0x20000000 EPOLLONESHOT=0x40000000 EPOLLET=0x80000000""")
_F("pollflags", "POLL???", """
    POLLIN POLLPRI POLLOUT POLLERR POLLHUP POLLNVAL POLLRDNORM=0x40
    POLLRDBAND=0x80 POLLWRNORM=0x100 POLLWRBAND=0x200 POLLMSG=0x400 POLLREMOVE=0x1000
    POLLRDHUP POLL_BUSY_LOOP=0x8000""")
_F("pidfd_open_flags", "PIDFD_???", "PIDFD_NONBLOCK=0x800")
_E("dirent_types", "DT_???", "DT_UNKNOWN DT_FIFO DT_CHR DT_DIR DT_BLK DT_REG DT_LNK DT_SOCK DT_WHT=14")
_F("resolve_flags", "RESOLVE_???", """
    RESOLVE_NO_XDEV=1 RESOLVE_NO_MAGICLINKS=2 RESOLVE_NO_SYMLINKS=4 RESOLVE_BENEATH=8
    RESOLVE_IN_ROOT=0x10 RESOLVE_CACHED=0x20""")
# file types and mode bits (format_mode below); S_IFMT = 0170000
_E("file_types", None, """
    S_IFIFO S_IFCHR S_IFDIR S_IFBLK S_IFREG
    S_IFLNK S_IFSOCK""")
_F("mode_bits", None, "S_ISUID=0o4000 S_ISGID=0o2000 S_ISVTX=0o1000")

# ---------------------------------------------------------------------------------------------
# memory

_F("mmap_prot", "PROT_???", """
    PROT_NONE=0 PROT_READ PROT_WRITE PROT_EXEC PROT_SEM=8 PROT_GROWSDOWN=0x1000000
    PROT_GROWSUP=0x2000000""")
_E("mmap_types", "MAP_???", "MAP_FILE=0 MAP_SHARED MAP_PRIVATE MAP_SHARED_VALIDATE")
_F("mmap_flags", None, """
    MAP_FIXED MAP_ANONYMOUS MAP_32BIT=0x40 MAP_NORESERVE MAP_POPULATE=0x8000
    MAP_NONBLOCK=0x10000 MAP_GROWSDOWN MAP_DENYWRITE=0x800 MAP_EXECUTABLE=0x1000
    MAP_LOCKED=0x2000 MAP_STACK=0x20000 MAP_HUGETLB=0x40000 MAP_SYNC=0x80000
    MAP_FIXED_NOREPLACE""", prefix=SETS["mmap_types"], prefix_mask=0xf,
   prefix_always=True, field=(26, 0x3f, "MAP_HUGE_SHIFT"))
_F("mremap_flags", "MREMAP_???", "MREMAP_MAYMOVE MREMAP_FIXED MREMAP_DONTUNMAP")
_F("msync_flags", "MS_???", "MS_SYNC=4 MS_ASYNC=1 MS_INVALIDATE=2")
_E("madvise_advice", "MADV_???", """
    MADV_NORMAL=0 MADV_RANDOM MADV_SEQUENTIAL MADV_WILLNEED MADV_DONTNEED MADV_FREE
    MADV_REMOVE MADV_DONTFORK MADV_DOFORK MADV_MERGEABLE MADV_UNMERGEABLE MADV_HUGEPAGE
    MADV_NOHUGEPAGE MADV_DONTDUMP MADV_DODUMP MADV_WIPEONFORK MADV_KEEPONFORK MADV_COLD
    MADV_PAGEOUT MADV_POPULATE_READ MADV_POPULATE_WRITE MADV_DONTNEED_LOCKED MADV_COLLAPSE
    MADV_HWPOISON=100 MADV_SOFT_OFFLINE MADV_GUARD_INSTALL MADV_GUARD_REMOVE""")
_F("mlockall_flags", "MCL_???", "MCL_CURRENT=1 MCL_FUTURE=2 MCL_ONFAULT=4")
_F("mlock_flags", "MLOCK_???", "MLOCK_ONFAULT=1")
_F("pkey_access", "PKEY_???", "PKEY_DISABLE_ACCESS PKEY_DISABLE_WRITE PKEY_DISABLE_EXECUTE=4")
_E("mpol_modes", "MPOL_???", """
    MPOL_DEFAULT=0 MPOL_PREFERRED MPOL_BIND MPOL_INTERLEAVE MPOL_LOCAL MPOL_PREFERRED_MANY""")
_F("mbind_flags", "MPOL_???", "MPOL_MF_STRICT=1 MPOL_MF_MOVE=2 MPOL_MF_MOVE_ALL=4")
_F("move_pages_flags", "MPOL_???", "MPOL_MF_MOVE=2 MPOL_MF_MOVE_ALL=4")
_F("mpol_mode_flags", None, "MPOL_F_STATIC_NODES=0x8000 MPOL_F_RELATIVE_NODES=0x4000 MPOL_F_NUMA_BALANCING=0x2000")
_F("membarrier_flags", "MEMBARRIER_CMD_FLAG_???", "MEMBARRIER_CMD_FLAG_CPU=1")
_F("get_mempolicy_flags", "MPOL_???", "MPOL_F_NODE=1 MPOL_F_ADDR=2 MPOL_F_MEMS_ALLOWED=4")
_E("membarrier_cmds", "MEMBARRIER_CMD_???", """
    MEMBARRIER_CMD_QUERY=0 MEMBARRIER_CMD_GLOBAL=1 MEMBARRIER_CMD_GLOBAL_EXPEDITED=2
    MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED=4 MEMBARRIER_CMD_PRIVATE_EXPEDITED=8
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED=0x10
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE=0x20
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE=0x40
    MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ=0x80
    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ=0x100""")
_F("rseq_flags", None, "")                   # strace 6.1 prints rseq flags in hex

# ---------------------------------------------------------------------------------------------
# SysV IPC

_E("ipc_private", None, "IPC_PRIVATE")
_F("ipc_flags", None, "IPC_CREAT IPC_EXCL SHM_HUGETLB=0x800 SHM_NORESERVE=0x1000",
   field=(26, 0x3f, "SHM_HUGE_SHIFT"), low_octal=True)
_F("ipc_resource_flags", None, "IPC_CREAT IPC_EXCL IPC_NOWAIT")
_F("shmat_flags", "SHM_???", "SHM_RDONLY SHM_RND SHM_REMAP SHM_EXEC")
_F("ipc_msg_flags", "MSG_???", "MSG_NOERROR MSG_EXCEPT MSG_COPY IPC_NOWAIT")
_F("semop_flags", "SEM_???", "SEM_UNDO IPC_NOWAIT")
_E("shmctl_cmd", "SHM_???", """
    IPC_RMID IPC_SET IPC_STAT IPC_INFO SHM_LOCK SHM_UNLOCK SHM_STAT SHM_INFO SHM_STAT_ANY""")
_E("semctl_cmd", "SEM_???", """
    IPC_RMID IPC_SET IPC_STAT IPC_INFO GETPID=11 GETVAL GETALL GETNCNT GETZCNT SETVAL SETALL
    SEM_STAT SEM_INFO SEM_STAT_ANY""")
_E("msgctl_cmd", "MSG_???", "IPC_RMID IPC_SET IPC_STAT IPC_INFO MSG_STAT MSG_INFO MSG_STAT_ANY")

# ---------------------------------------------------------------------------------------------
# processes, signals, time

_E("sigprocmask_how", "SIG_???", "SIG_BLOCK SIG_UNBLOCK SIG_SETMASK")
_F("sa_flags", "SA_???", """
    SA_RESTORER SA_ONSTACK SA_RESTART SA_INTERRUPT=0x20000000
    SA_NODEFER SA_RESETHAND SA_SIGINFO SA_NOCLDSTOP SA_NOCLDWAIT""")
_E("sa_handler", None, "SIG_DFL SIG_IGN SIG_ERR=0xffffffffffffffff")
_F("sigaltstack_flags", "SS_???", "SS_ONSTACK SS_DISABLE SS_AUTODISARM=0x80000000")
_E("sigev_notify", "SIGEV_???", "SIGEV_SIGNAL SIGEV_NONE SIGEV_THREAD SIGEV_THREAD_ID")
_CLONE_FLAGS = """
    CLONE_VM CLONE_FS CLONE_FILES CLONE_SIGHAND CLONE_PIDFD
    CLONE_PTRACE CLONE_VFORK CLONE_PARENT CLONE_THREAD
    CLONE_NEWNS CLONE_SYSVSEM CLONE_SETTLS CLONE_PARENT_SETTID
    CLONE_CHILD_CLEARTID CLONE_UNTRACED CLONE_CHILD_SETTID
    CLONE_NEWCGROUP CLONE_NEWUTS CLONE_NEWIPC
    CLONE_NEWUSER CLONE_NEWPID CLONE_NEWNET CLONE_IO"""
_F("clone_flags", "CLONE_???", _CLONE_FLAGS)                    # clone(): the low byte is a signal
_F("clone3_flags", "CLONE_???", _CLONE_FLAGS + """
    CLONE_NEWTIME=0x80 CLONE_CLEAR_SIGHAND CLONE_INTO_CGROUP CLONE_AUTOREAP=0x400000000
    CLONE_NNP=0x800000000 CLONE_PIDFD_AUTOKILL=0x1000000000 CLONE_EMPTY_MNTNS=0x2000000000""")
_F("shadow_stack_flags", "SHADOW_STACK_???", "SHADOW_STACK_SET_TOKEN=1")
_F("unshare_flags", "CLONE_???", """
    CLONE_NEWTIME=0x80 CLONE_VM CLONE_FS CLONE_FILES CLONE_SIGHAND
    CLONE_THREAD CLONE_NEWNS CLONE_SYSVSEM CLONE_NEWCGROUP
    CLONE_NEWUTS CLONE_NEWIPC CLONE_NEWUSER
    CLONE_NEWPID CLONE_NEWNET""")
_F("setns_types", "CLONE_NEW???", """
    CLONE_NEWTIME=0x80 CLONE_NEWNS CLONE_NEWCGROUP CLONE_NEWUTS
    CLONE_NEWIPC CLONE_NEWUSER CLONE_NEWPID
    CLONE_NEWNET""")
_F("wait_options", "W???", """
    WNOHANG WEXITED WSTOPPED WCONTINUED WNOWAIT __WCLONE=0x80000000
    __WALL=0x40000000 __WNOTHREAD=0x20000000""")
_E("idtypes", "P_???", "P_ALL P_PID P_PGID P_PIDFD")
_E("ptrace_events", "PTRACE_EVENT_???", """
    PTRACE_EVENT_FORK=1 PTRACE_EVENT_VFORK PTRACE_EVENT_CLONE PTRACE_EVENT_EXEC
    PTRACE_EVENT_VFORK_DONE PTRACE_EVENT_EXIT PTRACE_EVENT_SECCOMP PTRACE_EVENT_STOP=128""")
_E("rlimit_resources", "RLIMIT_???", """
    RLIMIT_CPU RLIMIT_FSIZE RLIMIT_DATA RLIMIT_STACK RLIMIT_CORE RLIMIT_RSS RLIMIT_NPROC
    RLIMIT_NOFILE RLIMIT_MEMLOCK RLIMIT_AS RLIMIT_LOCKS RLIMIT_SIGPENDING RLIMIT_MSGQUEUE
    RLIMIT_NICE RLIMIT_RTPRIO RLIMIT_RTTIME""")
_E("rusage_who", "RUSAGE_???", "RUSAGE_BOTH=-2 RUSAGE_CHILDREN RUSAGE_SELF RUSAGE_THREAD")
_E("priorities", "PRIO_???", "PRIO_PROCESS=0 PRIO_PGRP PRIO_USER")
_E("sched_policies", "SCHED_???", """
    SCHED_OTHER=0 SCHED_FIFO SCHED_RR SCHED_BATCH SCHED_ISO SCHED_IDLE SCHED_DEADLINE""")
_F("sched_flags", "SCHED_FLAG_???", """
    SCHED_FLAG_RESET_ON_FORK=1 SCHED_FLAG_RECLAIM=2 SCHED_FLAG_DL_OVERRUN=4
    SCHED_FLAG_KEEP_POLICY=8 SCHED_FLAG_KEEP_PARAMS=0x10 SCHED_FLAG_UTIL_CLAMP_MIN=0x20
    SCHED_FLAG_UTIL_CLAMP_MAX=0x40""")
_E("itimer_which", "ITIMER_???", "ITIMER_REAL ITIMER_VIRTUAL ITIMER_PROF")
_F("timer_flags", "TIMER_???", "TIMER_ABSTIME")
_E("clocks", "CLOCK_???", """
    CLOCK_REALTIME=0 CLOCK_MONOTONIC CLOCK_PROCESS_CPUTIME_ID CLOCK_THREAD_CPUTIME_ID
    CLOCK_MONOTONIC_RAW CLOCK_REALTIME_COARSE CLOCK_MONOTONIC_COARSE CLOCK_BOOTTIME
    CLOCK_REALTIME_ALARM CLOCK_BOOTTIME_ALARM CLOCK_SGI_CYCLE CLOCK_TAI""")
_E("cpuclock_types", "CPUCLOCK_???", "CPUCLOCK_PROF=0 CPUCLOCK_VIRT CPUCLOCK_SCHED")
_E("adjtimex_state", "TIME_???", "TIME_OK=0 TIME_INS TIME_DEL TIME_OOP TIME_WAIT TIME_ERROR")
_F("adjtimex_modes", "ADJ_???", """
    ADJ_OFFSET=1 ADJ_FREQUENCY=2 ADJ_MAXERROR=4 ADJ_ESTERROR=8 ADJ_STATUS=0x10
    ADJ_TIMECONST=0x20 ADJ_TAI=0x80 ADJ_SETOFFSET=0x100 ADJ_MICRO=0x1000 ADJ_NANO=0x2000
    ADJ_TICK=0x4000""")
_F("adjtimex_status", "STA_???", """
    STA_PLL=1 STA_PPSFREQ=2 STA_PPSTIME=4 STA_FLL=8 STA_INS=0x10 STA_DEL=0x20
    STA_UNSYNC=0x40 STA_FREQHOLD=0x80 STA_PPSSIGNAL=0x100 STA_PPSJITTER=0x200
    STA_PPSWANDER=0x400 STA_PPSERROR=0x800 STA_CLOCKERR=0x1000 STA_NANO=0x2000
    STA_MODE=0x4000 STA_CLK=0x8000""")
_E("futex_ops", "FUTEX_???", """
    FUTEX_WAIT FUTEX_WAKE FUTEX_FD FUTEX_REQUEUE FUTEX_CMP_REQUEUE FUTEX_WAKE_OP FUTEX_LOCK_PI
    FUTEX_UNLOCK_PI FUTEX_TRYLOCK_PI FUTEX_WAIT_BITSET FUTEX_WAKE_BITSET FUTEX_WAIT_REQUEUE_PI
    FUTEX_CMP_REQUEUE_PI FUTEX_LOCK_PI2""")
_E("futex_wake_ops", "FUTEX_OP_???", "FUTEX_OP_SET=0 FUTEX_OP_ADD FUTEX_OP_OR FUTEX_OP_ANDN FUTEX_OP_XOR")
_E("futex_wake_cmps", "FUTEX_OP_CMP_???", """
    FUTEX_OP_CMP_EQ=0 FUTEX_OP_CMP_NE FUTEX_OP_CMP_LT FUTEX_OP_CMP_LE FUTEX_OP_CMP_GT
    FUTEX_OP_CMP_GE""")
_E("arch_prctl_code", "ARCH_???", """
    ARCH_SET_GS ARCH_SET_FS ARCH_GET_FS ARCH_GET_GS ARCH_GET_CPUID=0x1011 ARCH_SET_CPUID
    ARCH_GET_XCOMP_SUPP=0x1021 ARCH_GET_XCOMP_PERM ARCH_REQ_XCOMP_PERM ARCH_GET_XCOMP_GUEST_PERM
    ARCH_REQ_XCOMP_GUEST_PERM ARCH_MAP_VDSO_X32=0x2001 ARCH_MAP_VDSO_32 ARCH_MAP_VDSO_64""")
_F("xfeature_masks", "XFEATURE_MASK_???", """
    XFEATURE_MASK_FPSSE=3 XFEATURE_MASK_FP=1 XFEATURE_MASK_SSE=2 XFEATURE_MASK_YMM=4
    XFEATURE_MASK_BNDREGS=8 XFEATURE_MASK_BNDCSR=0x10 XFEATURE_MASK_AVX512=0xe0
    XFEATURE_MASK_OPMASK=0x20 XFEATURE_MASK_ZMM_Hi256=0x40 XFEATURE_MASK_Hi16_ZMM=0x80
    XFEATURE_MASK_PT=0x100 XFEATURE_MASK_PKRU=0x200 XFEATURE_MASK_PASID=0x400
    XFEATURE_MASK_XTILE_CFG=0x20000 XFEATURE_MASK_XTILE_DATA=0x40000""")
_E("xfeatures", "XFEATURE_???", """
    XFEATURE_FP=0 XFEATURE_SSE XFEATURE_YMM XFEATURE_BNDREGS XFEATURE_BNDCSR XFEATURE_OPMASK
    XFEATURE_ZMM_Hi256 XFEATURE_Hi16_ZMM XFEATURE_PT XFEATURE_PKRU XFEATURE_PASID
    XFEATURE_XTILE_CFG=17 XFEATURE_XTILE_DATA""")
_E("prctl_options", "PR_???", """
    PR_SET_PDEATHSIG PR_GET_PDEATHSIG PR_GET_DUMPABLE PR_SET_DUMPABLE PR_GET_UNALIGN
    PR_SET_UNALIGN PR_GET_KEEPCAPS PR_SET_KEEPCAPS PR_GET_FPEMU PR_SET_FPEMU PR_GET_FPEXC
    PR_SET_FPEXC PR_GET_TIMING PR_SET_TIMING PR_SET_NAME PR_GET_NAME PR_GET_ENDIAN=19
    PR_SET_ENDIAN PR_GET_SECCOMP PR_SET_SECCOMP PR_CAPBSET_READ PR_CAPBSET_DROP PR_GET_TSC
    PR_SET_TSC PR_GET_SECUREBITS PR_SET_SECUREBITS PR_SET_TIMERSLACK PR_GET_TIMERSLACK
    PR_TASK_PERF_EVENTS_DISABLE PR_TASK_PERF_EVENTS_ENABLE PR_MCE_KILL PR_MCE_KILL_GET PR_SET_MM
    PR_SET_CHILD_SUBREAPER PR_GET_CHILD_SUBREAPER PR_SET_NO_NEW_PRIVS PR_GET_NO_NEW_PRIVS
    PR_GET_TID_ADDRESS PR_SET_THP_DISABLE PR_GET_THP_DISABLE PR_MPX_ENABLE_MANAGEMENT
    PR_MPX_DISABLE_MANAGEMENT PR_SET_FP_MODE PR_GET_FP_MODE PR_CAP_AMBIENT PR_SVE_SET_VL=50
    PR_SVE_GET_VL PR_GET_SPECULATION_CTRL PR_SET_SPECULATION_CTRL PR_PAC_RESET_KEYS
    PR_SET_TAGGED_ADDR_CTRL PR_GET_TAGGED_ADDR_CTRL PR_SET_IO_FLUSHER PR_GET_IO_FLUSHER
    PR_SET_SYSCALL_USER_DISPATCH PR_PAC_SET_ENABLED_KEYS PR_PAC_GET_ENABLED_KEYS PR_SCHED_CORE
    PR_SME_SET_VL PR_SME_GET_VL PR_SET_VMA PR_SET_PTRACER=0x59616d61""")
_E("pr_dumpable", "SUID_DUMP_???", "SUID_DUMP_DISABLE=0 SUID_DUMP_USER SUID_DUMP_ROOT")
_E("pr_unalign", "PR_UNALIGN_???", "PR_UNALIGN_NOPRINT=1 PR_UNALIGN_SIGBUS")
_F("pr_unalign_flags", "PR_UNALIGN_???", "PR_UNALIGN_NOPRINT=1 PR_UNALIGN_SIGBUS=2")
_E("pr_set_mm", "PR_SET_MM_???", """
    PR_SET_MM_START_CODE=1 PR_SET_MM_END_CODE PR_SET_MM_START_DATA PR_SET_MM_END_DATA
    PR_SET_MM_START_STACK PR_SET_MM_START_BRK PR_SET_MM_BRK PR_SET_MM_ARG_START
    PR_SET_MM_ARG_END PR_SET_MM_ENV_START PR_SET_MM_ENV_END PR_SET_MM_AUXV PR_SET_MM_EXE_FILE
    PR_SET_MM_MAP PR_SET_MM_MAP_SIZE""")
_E("pr_cap_ambient", "PR_CAP_AMBIENT_???", """
    PR_CAP_AMBIENT_IS_SET=1 PR_CAP_AMBIENT_RAISE PR_CAP_AMBIENT_LOWER PR_CAP_AMBIENT_CLEAR_ALL""")
_E("pr_set_vma", "PR_SET_VMA_???", "PR_SET_VMA_ANON_NAME=0")
_E("seccomp_mode", "SECCOMP_MODE_???", "SECCOMP_MODE_DISABLED=0 SECCOMP_MODE_STRICT SECCOMP_MODE_FILTER")
_F("secbits", "SECBIT_???", """
    SECBIT_NOROOT=1 SECBIT_NOROOT_LOCKED=2 SECBIT_NO_SETUID_FIXUP=4
    SECBIT_NO_SETUID_FIXUP_LOCKED=8 SECBIT_KEEP_CAPS=0x10 SECBIT_KEEP_CAPS_LOCKED=0x20
    SECBIT_NO_CAP_AMBIENT_RAISE=0x40 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED=0x80""")
_E("capabilities", "CAP_???", """
    CAP_CHOWN=0 CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_FOWNER CAP_FSETID CAP_KILL CAP_SETGID
    CAP_SETUID CAP_SETPCAP CAP_LINUX_IMMUTABLE CAP_NET_BIND_SERVICE CAP_NET_BROADCAST
    CAP_NET_ADMIN CAP_NET_RAW CAP_IPC_LOCK CAP_IPC_OWNER CAP_SYS_MODULE CAP_SYS_RAWIO
    CAP_SYS_CHROOT CAP_SYS_PTRACE CAP_SYS_PACCT CAP_SYS_ADMIN CAP_SYS_BOOT CAP_SYS_NICE
    CAP_SYS_RESOURCE CAP_SYS_TIME CAP_SYS_TTY_CONFIG CAP_MKNOD CAP_LEASE CAP_AUDIT_WRITE
    CAP_AUDIT_CONTROL CAP_SETFCAP CAP_MAC_OVERRIDE CAP_MAC_ADMIN CAP_SYSLOG CAP_WAKE_ALARM
    CAP_BLOCK_SUSPEND CAP_AUDIT_READ CAP_PERFMON CAP_BPF CAP_CHECKPOINT_RESTORE""")
_E("cap_version", "_LINUX_CAPABILITY_VERSION_???", """
    _LINUX_CAPABILITY_VERSION_1=0x19980330 _LINUX_CAPABILITY_VERSION_2=0x20071026
    _LINUX_CAPABILITY_VERSION_3=0x20080522""")
_E("personality_types", "PER_???", """
    PER_LINUX=0 PER_SVR4=0x68 PER_SVR3=0x83 PER_SCOSVR3=0x3000003 PER_OSR5=0x3000003
    PER_WYSEV386=0x1000004 PER_ISCR4=0x5 PER_BSD=6 PER_SUNOS=0x6 PER_XENIX=0x1000007
    PER_LINUX32=8 PER_IRIX32=9 PER_IRIXN32=0xa PER_IRIX64=0xb PER_RISCOS=0xc PER_SOLARIS=0xd
    PER_UW7=0xe PER_OSF4=0xf PER_HPUX=0x10""")
_F("personality_flags", None, """
    UNAME26=0x20000 ADDR_NO_RANDOMIZE=0x40000 FDPIC_FUNCPTRS=0x80000
    MMAP_PAGE_ZERO=0x100000 ADDR_COMPAT_LAYOUT=0x200000 READ_IMPLIES_EXEC=0x400000
    ADDR_LIMIT_32BIT=0x800000 SHORT_INODE=0x1000000 WHOLE_SECONDS=0x2000000
    STICKY_TIMEOUTS=0x4000000 ADDR_LIMIT_3GB=0x8000000""")
_F("personality", None, """
    UNAME26=0x20000 ADDR_NO_RANDOMIZE=0x40000 FDPIC_FUNCPTRS=0x80000
    MMAP_PAGE_ZERO=0x100000 ADDR_COMPAT_LAYOUT=0x200000 READ_IMPLIES_EXEC=0x400000
    ADDR_LIMIT_32BIT=0x800000 SHORT_INODE=0x1000000 WHOLE_SECONDS=0x2000000
    STICKY_TIMEOUTS=0x4000000 ADDR_LIMIT_3GB=0x8000000""", prefix=SETS["personality_types"],
   prefix_mask=0xff, prefix_always=True)
_E("ptrace_cmds", "PTRACE_???", """
    PTRACE_TRACEME PTRACE_PEEKTEXT PTRACE_PEEKDATA PTRACE_PEEKUSER PTRACE_POKETEXT
    PTRACE_POKEDATA PTRACE_POKEUSER PTRACE_CONT PTRACE_KILL PTRACE_SINGLESTEP PTRACE_GETREGS=12
    PTRACE_SETREGS PTRACE_GETFPREGS PTRACE_SETFPREGS PTRACE_ATTACH PTRACE_DETACH
    PTRACE_GETFPXREGS PTRACE_SETFPXREGS PTRACE_OLDSETOPTIONS=21 PTRACE_SYSCALL=24
    PTRACE_GET_THREAD_AREA PTRACE_SET_THREAD_AREA PTRACE_ARCH_PRCTL=30 PTRACE_SYSEMU
    PTRACE_SYSEMU_SINGLESTEP PTRACE_SINGLEBLOCK PTRACE_SETOPTIONS=0x4200 PTRACE_GETEVENTMSG
    PTRACE_GETSIGINFO PTRACE_SETSIGINFO PTRACE_GETREGSET PTRACE_SETREGSET PTRACE_SEIZE
    PTRACE_INTERRUPT PTRACE_LISTEN PTRACE_PEEKSIGINFO PTRACE_GETSIGMASK PTRACE_SETSIGMASK
    PTRACE_SECCOMP_GET_FILTER PTRACE_SECCOMP_GET_METADATA PTRACE_GET_SYSCALL_INFO
    PTRACE_GET_RSEQ_CONFIGURATION""")
_E("syslog_action", "SYSLOG_ACTION_???", """
    SYSLOG_ACTION_CLOSE=0 SYSLOG_ACTION_OPEN SYSLOG_ACTION_READ SYSLOG_ACTION_READ_ALL
    SYSLOG_ACTION_READ_CLEAR SYSLOG_ACTION_CLEAR SYSLOG_ACTION_CONSOLE_OFF SYSLOG_ACTION_CONSOLE_ON
    SYSLOG_ACTION_CONSOLE_LEVEL SYSLOG_ACTION_SIZE_UNREAD SYSLOG_ACTION_SIZE_BUFFER""")
_E("seccomp_ops", "SECCOMP_SET_MODE_???", """
    SECCOMP_SET_MODE_STRICT=0 SECCOMP_SET_MODE_FILTER SECCOMP_GET_ACTION_AVAIL
    SECCOMP_GET_NOTIF_SIZES""")
_F("seccomp_filter_flags", "SECCOMP_FILTER_FLAG_???", """
    SECCOMP_FILTER_FLAG_TSYNC=1 SECCOMP_FILTER_FLAG_LOG=2 SECCOMP_FILTER_FLAG_SPEC_ALLOW=4
    SECCOMP_FILTER_FLAG_NEW_LISTENER=8 SECCOMP_FILTER_FLAG_TSYNC_ESRCH=0x10
    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV=0x20""")
_E("kcmp_types", "KCMP_???", """
    KCMP_FILE=0 KCMP_VM KCMP_FILES KCMP_FS KCMP_SIGHAND KCMP_IO KCMP_SYSVSEM KCMP_EPOLL_TFD""")
_E("key_spec", None, """
    KEY_SPEC_REQUESTOR_KEYRING=-8 KEY_SPEC_REQKEY_AUTH_KEY KEY_SPEC_GROUP_KEYRING
    KEY_SPEC_USER_SESSION_KEYRING KEY_SPEC_USER_KEYRING KEY_SPEC_SESSION_KEYRING
    KEY_SPEC_PROCESS_KEYRING KEY_SPEC_THREAD_KEYRING""")
_E("loglevels", "LOGLEVEL_???", """
    LOGLEVEL_EMERG=0 LOGLEVEL_ALERT LOGLEVEL_CRIT LOGLEVEL_ERR LOGLEVEL_WARNING LOGLEVEL_NOTICE
    LOGLEVEL_INFO LOGLEVEL_DEBUG""")
_E("ioprio_who", "IOPRIO_WHO_???", "IOPRIO_WHO_PROCESS=1 IOPRIO_WHO_PGRP IOPRIO_WHO_USER")
_E("ioprio_class", "IOPRIO_CLASS_???", "IOPRIO_CLASS_NONE=0 IOPRIO_CLASS_RT IOPRIO_CLASS_BE IOPRIO_CLASS_IDLE")
_F("getrandom_flags", "GRND_???", "GRND_NONBLOCK GRND_RANDOM GRND_INSECURE")

# ---------------------------------------------------------------------------------------------
# siginfo codes (si_code); which set applies depends on si_signo

_E("siginfo_codes", None, """
    SI_USER SI_KERNEL SI_QUEUE=-1 SI_TIMER SI_MESGQ SI_ASYNCIO=-4 SI_SIGIO=-5
    SI_TKILL SI_DETHREAD=-7 SI_ASYNCNL=-60""")
_E("segv_codes", None, """
    SEGV_MAPERR SEGV_ACCERR SEGV_BNDERR SEGV_PKUERR SEGV_ACCADI SEGV_ADIDERR SEGV_ADIPERR
    SEGV_MTEAERR SEGV_MTESERR""")
_E("bus_codes", None, "BUS_ADRALN=1 BUS_ADRERR BUS_OBJERR BUS_MCEERR_AR BUS_MCEERR_AO")
_E("ill_codes", None, """
    ILL_ILLOPC=1 ILL_ILLOPN ILL_ILLADR ILL_ILLTRP ILL_PRVOPC ILL_PRVREG ILL_COPROC ILL_BADSTK
    ILL_BADIADDR""")
_E("fpe_codes", None, """
    FPE_INTDIV FPE_INTOVF FPE_FLTDIV FPE_FLTOVF FPE_FLTUND FPE_FLTRES FPE_FLTINV FPE_FLTSUB
    FPE_FLTUNK=14 FPE_CONDTRAP""")
_E("trap_codes", None, "TRAP_BRKPT TRAP_TRACE TRAP_BRANCH TRAP_HWBKPT TRAP_UNK TRAP_PERF")
_E("cld_codes", None, "CLD_EXITED CLD_KILLED CLD_DUMPED CLD_TRAPPED CLD_STOPPED CLD_CONTINUED")
_E("poll_codes", None, "POLL_IN=1 POLL_OUT POLL_MSG POLL_ERR POLL_PRI POLL_HUP")
_E("sys_codes", None, "SYS_SECCOMP=1 SYS_USER_DISPATCH")
_E("audit_arch", "AUDIT_ARCH_???", "AUDIT_ARCH_I386=0x40000003 AUDIT_ARCH_X86_64=0xc000003e")

# ---------------------------------------------------------------------------------------------
# sockets

_E("address_families", "AF_???", """
    AF_UNSPEC AF_UNIX AF_INET AF_AX25 AF_IPX AF_APPLETALK AF_NETROM AF_BRIDGE AF_ATMPVC AF_X25
    AF_INET6 AF_ROSE AF_DECnet AF_NETBEUI AF_SECURITY AF_KEY AF_NETLINK AF_PACKET AF_ASH
    AF_ECONET AF_ATMSVC AF_RDS AF_SNA AF_IRDA AF_PPPOX AF_WANPIPE AF_LLC AF_IB AF_MPLS AF_CAN
    AF_TIPC AF_BLUETOOTH AF_IUCV AF_RXRPC AF_ISDN AF_PHONET AF_IEEE802154 AF_CAIF AF_ALG AF_NFC
    AF_VSOCK AF_KCM AF_QIPCRTR AF_SMC AF_XDP AF_MCTP""")
_E("socket_types", "SOCK_???", """
    SOCK_STREAM SOCK_DGRAM SOCK_RAW SOCK_RDM SOCK_SEQPACKET SOCK_DCCP SOCK_PACKET=10""")
_F("sock_type_flags", "SOCK_???", "SOCK_CLOEXEC SOCK_NONBLOCK")
# socket type: the type (low 4 bits) then SOCK_CLOEXEC|SOCK_NONBLOCK
_F("socket_type", "SOCK_???", "SOCK_CLOEXEC SOCK_NONBLOCK",
   prefix=SETS["socket_types"], prefix_mask=0xf)
_E("ipprotos", "IPPROTO_???", """
    IPPROTO_IP IPPROTO_ICMP IPPROTO_IGMP IPPROTO_IPIP=4 IPPROTO_TCP IPPROTO_EGP=8
    IPPROTO_PUP=12 IPPROTO_UDP IPPROTO_IDP=22 IPPROTO_TP=29 IPPROTO_DCCP=33 IPPROTO_IPV6
    IPPROTO_ROUTING=43 IPPROTO_FRAGMENT IPPROTO_RSVP=46 IPPROTO_GRE IPPROTO_ESP=50 IPPROTO_AH
    IPPROTO_ICMPV6=58 IPPROTO_NONE IPPROTO_DSTOPTS IPPROTO_MTP=92 IPPROTO_BEETPH=94
    IPPROTO_ENCAP=98 IPPROTO_PIM=103 IPPROTO_COMP=108 IPPROTO_L2TP=115 IPPROTO_SCTP=132
    IPPROTO_MH=135 IPPROTO_UDPLITE IPPROTO_MPLS IPPROTO_ETHERNET=143 IPPROTO_RAW=255
    IPPROTO_MPTCP=262""")
_E("netlink_protocols", "NETLINK_???", """
    NETLINK_ROUTE=0 NETLINK_UNUSED NETLINK_USERSOCK NETLINK_FIREWALL NETLINK_SOCK_DIAG
    NETLINK_NFLOG NETLINK_XFRM NETLINK_SELINUX NETLINK_ISCSI NETLINK_AUDIT NETLINK_FIB_LOOKUP
    NETLINK_CONNECTOR NETLINK_NETFILTER NETLINK_IP6_FW NETLINK_DNRTMSG NETLINK_KOBJECT_UEVENT
    NETLINK_GENERIC NETLINK_SCSITRANSPORT=18 NETLINK_ECRYPTFS NETLINK_RDMA NETLINK_CRYPTO
    NETLINK_SMC""")
_E("ethernet_protocols", "ETH_P_???", """
    ETH_P_ALL=3 ETH_P_IP=0x800 ETH_P_ARP=0x806 ETH_P_IPV6=0x86dd""")
_F("msg_flags", "MSG_???", """
    MSG_OOB=1 MSG_PEEK MSG_DONTROUTE=4 MSG_CTRUNC=8 MSG_PROBE=0x10 MSG_TRUNC
    MSG_DONTWAIT MSG_EOR=0x80 MSG_WAITALL=0x100 MSG_FIN=0x200 MSG_SYN=0x400
    MSG_CONFIRM=0x800 MSG_RST=0x1000 MSG_ERRQUEUE=0x2000 MSG_NOSIGNAL MSG_MORE=0x8000
    MSG_WAITFORONE=0x10000 MSG_SENDPAGE_NOTLAST=0x20000 MSG_BATCH=0x40000
    MSG_NO_SHARED_FRAGS=0x80000 MSG_ZEROCOPY=0x4000000 MSG_FASTOPEN=0x20000000
    MSG_CMSG_CLOEXEC=0x40000000 MSG_CMSG_COMPAT=0x80000000""")
_E("shutdown_how", "SHUT_???", "SHUT_RD SHUT_WR SHUT_RDWR")
_E("sockopt_level", "SOL_??", """
    SOL_IP=0 SOL_SOCKET SOL_TCP=6 SOL_UDP=17 AF_VSOCK=40 SOL_IPV6 SOL_ICMPV6=58 SOL_CAN_BASE=100
    SOL_CAN_RAW SOL_SCTP=132 SOL_UDPLITE=136 SOL_RAW=255 SOL_IPX SOL_AX25 SOL_ATALK SOL_NETROM
    SOL_ROSE SOL_DECNET SOL_X25 SOL_PACKET SOL_ATM SOL_AAL SOL_IRDA SOL_NETBEUI SOL_LLC SOL_DCCP
    SOL_NETLINK SOL_TIPC SOL_RXRPC SOL_PPPOL2TP SOL_BLUETOOTH SOL_PNPIPE SOL_RDS SOL_IUCV
    SOL_CAIF SOL_ALG SOL_NFC SOL_KCM SOL_TLS SOL_XDP""")
_E("sockopt_socket", "SO_???", """
    SO_DEBUG=1 SO_REUSEADDR SO_TYPE SO_ERROR SO_DONTROUTE SO_BROADCAST SO_SNDBUF SO_RCVBUF
    SO_KEEPALIVE SO_OOBINLINE SO_NO_CHECK SO_PRIORITY SO_LINGER SO_BSDCOMPAT SO_REUSEPORT
    SO_PASSCRED SO_PEERCRED SO_RCVLOWAT SO_SNDLOWAT SO_RCVTIMEO_OLD SO_SNDTIMEO_OLD
    SO_SECURITY_AUTHENTICATION SO_SECURITY_ENCRYPTION_TRANSPORT SO_SECURITY_ENCRYPTION_NETWORK
    SO_BINDTODEVICE SO_GET_FILTER SO_DETACH_FILTER SO_PEERNAME SO_TIMESTAMP_OLD SO_ACCEPTCONN
    SO_PEERSEC SO_SNDBUFFORCE SO_RCVBUFFORCE SO_PASSSEC SO_TIMESTAMPNS_OLD SO_MARK
    SO_TIMESTAMPING_OLD SO_PROTOCOL SO_DOMAIN SO_RXQ_OVFL SO_WIFI_STATUS SO_PEEK_OFF SO_NOFCS
    SO_LOCK_FILTER SO_SELECT_ERR_QUEUE SO_BUSY_POLL SO_MAX_PACING_RATE SO_BPF_EXTENSIONS
    SO_INCOMING_CPU SO_ATTACH_BPF SO_ATTACH_REUSEPORT_CBPF SO_ATTACH_REUSEPORT_EBPF
    SO_CNX_ADVICE SO_MEMINFO=55 SO_INCOMING_NAPI_ID SO_COOKIE SO_PEERGROUPS=59 SO_ZEROCOPY
    SO_TXTIME SO_BINDTOIFINDEX SO_TIMESTAMP_NEW SO_TIMESTAMPNS_NEW SO_TIMESTAMPING_NEW
    SO_RCVTIMEO_NEW SO_SNDTIMEO_NEW SO_DETACH_REUSEPORT_BPF SO_PREFER_BUSY_POLL
    SO_BUSY_POLL_BUDGET SO_NETNS_COOKIE SO_BUF_LOCK SO_RESERVE_MEM SO_TXREHASH SO_RCVMARK""")
_E("sockopt_ip", "IP_???", """
    IP_TOS=1 IP_TTL IP_HDRINCL IP_OPTIONS IP_ROUTER_ALERT IP_RECVOPTS IP_RETOPTS IP_PKTINFO
    IP_PKTOPTIONS IP_MTU_DISCOVER IP_RECVERR IP_RECVTTL IP_RECVTOS IP_MTU IP_FREEBIND
    IP_IPSEC_POLICY IP_XFRM_POLICY IP_PASSSEC IP_TRANSPARENT IP_ORIGDSTADDR IP_MINTTL
    IP_NODEFRAG IP_CHECKSUM IP_BIND_ADDRESS_NO_PORT IP_RECVFRAGSIZE IP_RECVERR_RFC4884
    IP_MULTICAST_IF=32 IP_MULTICAST_TTL IP_MULTICAST_LOOP IP_ADD_MEMBERSHIP IP_DROP_MEMBERSHIP
    IP_UNBLOCK_SOURCE IP_BLOCK_SOURCE IP_ADD_SOURCE_MEMBERSHIP IP_DROP_SOURCE_MEMBERSHIP
    IP_MSFILTER MCAST_JOIN_GROUP MCAST_BLOCK_SOURCE MCAST_UNBLOCK_SOURCE MCAST_LEAVE_GROUP
    MCAST_JOIN_SOURCE_GROUP MCAST_LEAVE_SOURCE_GROUP MCAST_MSFILTER IP_MULTICAST_ALL
    IP_UNICAST_IF IP_LOCAL_PORT_RANGE IP_PROTOCOL IPT_SO_GET_INFO=64 IPT_SO_GET_ENTRIES IPT_SO_GET_REVISION_MATCH
    IPT_SO_GET_REVISION_TARGET""")
_E("sockopt_tipc", "TIPC_???", """
    TIPC_IMPORTANCE=127 TIPC_SRC_DROPPABLE TIPC_DEST_DROPPABLE TIPC_CONN_TIMEOUT TIPC_NODE_RECVQ_DEPTH
    TIPC_SOCK_RECVQ_DEPTH TIPC_MCAST_BROADCAST TIPC_MCAST_REPLICAST TIPC_GROUP_JOIN TIPC_GROUP_LEAVE
    TIPC_SOCK_RECVQ_USED TIPC_NODELAY""")
_E("tipc_importance", "TIPC_???_IMPORTANCE",
   "TIPC_LOW_IMPORTANCE=0 TIPC_MEDIUM_IMPORTANCE TIPC_HIGH_IMPORTANCE TIPC_CRITICAL_IMPORTANCE")
_E("tipc_scopes", "TIPC_???_SCOPE", "TIPC_ZONE_SCOPE=1 TIPC_CLUSTER_SCOPE TIPC_NODE_SCOPE")
_F("tipc_group_flags", "TIPC_GROUP_???", "TIPC_GROUP_LOOPBACK=1 TIPC_GROUP_MEMBER_EVTS=2")
_E("sockopt_ipv6", "IPV6_???", """
    IPV6_ADDRFORM=1 IPV6_2292PKTINFO IPV6_2292HOPOPTS IPV6_2292DSTOPTS IPV6_2292RTHDR
    IPV6_2292PKTOPTIONS IPV6_CHECKSUM IPV6_2292HOPLIMIT IPV6_NEXTHOP IPV6_AUTHHDR IPV6_FLOWINFO
    IPV6_UNICAST_HOPS=16 IPV6_MULTICAST_IF IPV6_MULTICAST_HOPS IPV6_MULTICAST_LOOP
    IPV6_ADD_MEMBERSHIP IPV6_DROP_MEMBERSHIP IPV6_ROUTER_ALERT IPV6_MTU_DISCOVER IPV6_MTU
    IPV6_RECVERR IPV6_V6ONLY IPV6_JOIN_ANYCAST IPV6_LEAVE_ANYCAST IPV6_MULTICAST_ALL
    IPV6_ROUTER_ALERT_ISOLATE IPV6_RECVERR_RFC4884 IPV6_FLOWLABEL_MGR IPV6_FLOWINFO_SEND
    IPV6_IPSEC_POLICY IPV6_XFRM_POLICY IPV6_HDRINCL MCAST_JOIN_GROUP=42 MCAST_BLOCK_SOURCE
    MCAST_UNBLOCK_SOURCE MCAST_LEAVE_GROUP MCAST_JOIN_SOURCE_GROUP MCAST_LEAVE_SOURCE_GROUP
    MCAST_MSFILTER IPV6_RECVPKTINFO IPV6_PKTINFO IPV6_RECVHOPLIMIT IPV6_HOPLIMIT
    IPV6_RECVHOPOPTS IPV6_HOPOPTS IPV6_RTHDRDSTOPTS IPV6_RECVRTHDR IPV6_RTHDR IPV6_RECVDSTOPTS
    IPV6_DSTOPTS IPV6_RECVPATHMTU IPV6_PATHMTU IPV6_DONTFRAG IPV6_USE_MIN_MTU IP6T_SO_GET_INFO
    IP6T_SO_GET_ENTRIES IPV6_RECVTCLASS IPV6_TCLASS IP6T_SO_GET_REVISION_MATCH
    IP6T_SO_GET_REVISION_TARGET IPV6_AUTOFLOWLABEL IPV6_ADDR_PREFERENCES=72 IPV6_MINHOPCOUNT
    IPV6_ORIGDSTADDR IPV6_TRANSPARENT IPV6_UNICAST_IF IPV6_RECVFRAGSIZE IPV6_FREEBIND""")
_E("sockopt_tcp", "TCP_???", """
    TCP_NODELAY=1 TCP_MAXSEG TCP_CORK TCP_KEEPIDLE TCP_KEEPINTVL TCP_KEEPCNT TCP_SYNCNT
    TCP_LINGER2 TCP_DEFER_ACCEPT TCP_WINDOW_CLAMP TCP_INFO TCP_QUICKACK TCP_CONGESTION
    TCP_MD5SIG TCP_COOKIE_TRANSACTIONS TCP_THIN_LINEAR_TIMEOUTS TCP_THIN_DUPACK TCP_USER_TIMEOUT
    TCP_REPAIR TCP_REPAIR_QUEUE TCP_QUEUE_SEQ TCP_REPAIR_OPTIONS TCP_FASTOPEN TCP_TIMESTAMP
    TCP_NOTSENT_LOWAT TCP_CC_INFO TCP_SAVE_SYN TCP_SAVED_SYN TCP_REPAIR_WINDOW
    TCP_FASTOPEN_CONNECT TCP_ULP TCP_MD5SIG_EXT TCP_FASTOPEN_KEY TCP_FASTOPEN_NO_COOKIE
    TCP_ZEROCOPY_RECEIVE TCP_INQ TCP_TX_DELAY""")
_E("scm_types", "SCM_???", "SCM_RIGHTS=1 SCM_CREDENTIALS SCM_SECURITY SCM_PIDFD")

# ---------------------------------------------------------------------------------------------
# mounts, modules, misc

_F("mount_flags", "MS_???", """
    MS_RDONLY=1 MS_NOSUID=2 MS_NODEV=4 MS_NOEXEC=8 MS_SYNCHRONOUS=0x10 MS_REMOUNT=0x20
    MS_MANDLOCK=0x40 MS_DIRSYNC=0x80 MS_NOSYMFOLLOW=0x100 MS_NOATIME=0x400 MS_NODIRATIME=0x800
    MS_BIND=0x1000 MS_MOVE=0x2000 MS_REC=0x4000 MS_SILENT=0x8000 MS_POSIXACL=0x10000
    MS_UNBINDABLE=0x20000 MS_PRIVATE=0x40000 MS_SLAVE=0x80000 MS_SHARED=0x100000
    MS_RELATIME=0x200000 MS_KERNMOUNT=0x400000 MS_I_VERSION=0x800000 MS_STRICTATIME=0x1000000
    MS_LAZYTIME=0x2000000 MS_SUBMOUNT=0x4000000 MS_NOREMOTELOCK=0x8000000 MS_NOSEC=0x10000000
    MS_BORN=0x20000000 MS_ACTIVE=0x40000000 MS_NOUSER=0x80000000""")
_F("umount_flags", "MNT_???", "MNT_FORCE=1 MNT_DETACH=2 MNT_EXPIRE=4 UMOUNT_NOFOLLOW=8")
_F("swap_flags", "SWAP_FLAG_???", """
    SWAP_FLAG_PREFER=0x8000 SWAP_FLAG_DISCARD=0x10000 SWAP_FLAG_DISCARD_ONCE=0x20000
    SWAP_FLAG_DISCARD_PAGES=0x40000""", low_decimal=0x7fff)
_F("statfs_flags", "ST_???", """
    ST_VALID ST_RDONLY ST_NOSUID=2 ST_NODEV=4 ST_NOEXEC=8 ST_SYNCHRONOUS=0x10
    ST_MANDLOCK=0x40 ST_NOATIME=0x400 ST_NODIRATIME=0x800 ST_RELATIME
    ST_NOSYMFOLLOW=0x2000""")
_E("fs_magic", None, """
    EXT2_SUPER_MAGIC=0xef53 TMPFS_MAGIC=0x1021994 PROC_SUPER_MAGIC=0x9fa0 SYSFS_MAGIC=0x62656572
    BTRFS_SUPER_MAGIC=0x9123683e XFS_SUPER_MAGIC=0x58465342 OVERLAYFS_SUPER_MAGIC=0x794c7630
    DEVPTS_SUPER_MAGIC=0x1cd1 NFS_SUPER_MAGIC=0x6969 CGROUP2_SUPER_MAGIC=0x63677270""")
_F("module_init_flags", "MODULE_INIT_???",
   "MODULE_INIT_IGNORE_MODVERSIONS=1 MODULE_INIT_IGNORE_VERMAGIC=2 MODULE_INIT_COMPRESSED_FILE=4")
_E("kexec_arch_values", "KEXEC_ARCH_???", """
    KEXEC_ARCH_DEFAULT=0 KEXEC_ARCH_386=0x30000 KEXEC_ARCH_68K=0x40000 KEXEC_ARCH_PARISC=0xf0000
    KEXEC_ARCH_X86_64=0x3e0000 KEXEC_ARCH_PPC=0x140000 KEXEC_ARCH_PPC64=0x150000
    KEXEC_ARCH_IA_64=0x320000 KEXEC_ARCH_ARM=0x280000 KEXEC_ARCH_S390=0x160000
    KEXEC_ARCH_SH=0x2a0000 KEXEC_ARCH_MIPS_LE=0xa0000 KEXEC_ARCH_MIPS=0x80000
    KEXEC_ARCH_AARCH64=0xb70000 KEXEC_ARCH_RISCV=0xf30000 KEXEC_ARCH_LOONGARCH=0x1020000""")
_F("kexec_load_flags", "KEXEC_???", """KEXEC_ON_CRASH=1 KEXEC_PRESERVE_CONTEXT=2 KEXEC_UPDATE_ELFCOREHDR=4
    KEXEC_CRASH_HOTPLUG_SUPPORT=8""",
   prefix=SETS["kexec_arch_values"], prefix_mask=0xffff0000, prefix_always=True)
_F("kexec_file_load_flags", "KEXEC_FILE_???",
   "KEXEC_FILE_UNLOAD=1 KEXEC_FILE_ON_CRASH=2 KEXEC_FILE_NO_INITRAMFS=4 KEXEC_FILE_DEBUG=8 KEXEC_FILE_NO_CMA=0x10 "
   "KEXEC_FILE_FORCE_DTB=0x20")
_E("reboot_magic", "LINUX_REBOOT_MAGIC_???", """
    LINUX_REBOOT_MAGIC1=0xfee1dead LINUX_REBOOT_MAGIC2=0x28121969 LINUX_REBOOT_MAGIC2A=0x5121996
    LINUX_REBOOT_MAGIC2B=0x16041998 LINUX_REBOOT_MAGIC2C=0x20112000""")
_E("reboot_cmd", "LINUX_REBOOT_CMD_???", """
    LINUX_REBOOT_CMD_CAD_OFF=0 LINUX_REBOOT_CMD_CAD_ON=0x89abcdef LINUX_REBOOT_CMD_HALT=0xcdef0123
    LINUX_REBOOT_CMD_POWER_OFF=0x4321fedc LINUX_REBOOT_CMD_RESTART=0x1234567
    LINUX_REBOOT_CMD_RESTART2=0xa1b2c3d4 LINUX_REBOOT_CMD_KEXEC=0x45584543
    LINUX_REBOOT_CMD_SW_SUSPEND=0xd000fce2""")
_E("keyctl_commands", "KEYCTL_???", """
    KEYCTL_GET_KEYRING_ID=0 KEYCTL_JOIN_SESSION_KEYRING KEYCTL_UPDATE KEYCTL_REVOKE KEYCTL_CHOWN
    KEYCTL_SETPERM KEYCTL_DESCRIBE KEYCTL_CLEAR KEYCTL_LINK KEYCTL_UNLINK KEYCTL_SEARCH
    KEYCTL_READ KEYCTL_INSTANTIATE KEYCTL_NEGATE KEYCTL_SET_REQKEY_KEYRING KEYCTL_SET_TIMEOUT
    KEYCTL_ASSUME_AUTHORITY KEYCTL_GET_SECURITY KEYCTL_SESSION_TO_PARENT KEYCTL_REJECT
    KEYCTL_INSTANTIATE_IOV KEYCTL_INVALIDATE KEYCTL_GET_PERSISTENT KEYCTL_DH_COMPUTE
    KEYCTL_PKEY_QUERY KEYCTL_PKEY_ENCRYPT KEYCTL_PKEY_DECRYPT KEYCTL_PKEY_SIGN
    KEYCTL_PKEY_VERIFY KEYCTL_RESTRICT_KEYRING KEYCTL_MOVE KEYCTL_CAPABILITIES KEYCTL_WATCH_KEY""")
_F("perf_event_open_flags", "PERF_FLAG_???",
   "PERF_FLAG_FD_NO_GROUP=1 PERF_FLAG_FD_OUTPUT=2 PERF_FLAG_PID_CGROUP=4 PERF_FLAG_FD_CLOEXEC=8")
_E("bpf_commands", "BPF_???", """
    BPF_MAP_CREATE=0 BPF_MAP_LOOKUP_ELEM BPF_MAP_UPDATE_ELEM BPF_MAP_DELETE_ELEM
    BPF_MAP_GET_NEXT_KEY BPF_PROG_LOAD BPF_OBJ_PIN BPF_OBJ_GET BPF_PROG_ATTACH BPF_PROG_DETACH
    BPF_PROG_TEST_RUN BPF_PROG_GET_NEXT_ID BPF_MAP_GET_NEXT_ID BPF_PROG_GET_FD_BY_ID
    BPF_MAP_GET_FD_BY_ID BPF_OBJ_GET_INFO_BY_FD BPF_PROG_QUERY BPF_RAW_TRACEPOINT_OPEN
    BPF_BTF_LOAD BPF_BTF_GET_FD_BY_ID BPF_TASK_FD_QUERY BPF_MAP_LOOKUP_AND_DELETE_ELEM
    BPF_MAP_FREEZE BPF_BTF_GET_NEXT_ID BPF_MAP_LOOKUP_BATCH BPF_MAP_LOOKUP_AND_DELETE_BATCH
    BPF_MAP_UPDATE_BATCH BPF_MAP_DELETE_BATCH BPF_LINK_CREATE BPF_LINK_UPDATE
    BPF_LINK_GET_FD_BY_ID BPF_LINK_GET_NEXT_ID BPF_ENABLE_STATS BPF_ITER_CREATE BPF_LINK_DETACH
    BPF_PROG_BIND_MAP""")
_E("io_uring_register_opcodes", "IORING_REGISTER_???", """
    IORING_REGISTER_BUFFERS=0 IORING_UNREGISTER_BUFFERS IORING_REGISTER_FILES
    IORING_UNREGISTER_FILES IORING_REGISTER_EVENTFD IORING_UNREGISTER_EVENTFD
    IORING_REGISTER_FILES_UPDATE IORING_REGISTER_EVENTFD_ASYNC IORING_REGISTER_PROBE
    IORING_REGISTER_PERSONALITY IORING_UNREGISTER_PERSONALITY IORING_REGISTER_RESTRICTIONS
    IORING_REGISTER_ENABLE_RINGS IORING_REGISTER_FILES2 IORING_REGISTER_FILES_UPDATE2
    IORING_REGISTER_BUFFERS2 IORING_REGISTER_BUFFERS_UPDATE IORING_REGISTER_IOWQ_AFF
    IORING_UNREGISTER_IOWQ_AFF IORING_REGISTER_IOWQ_MAX_WORKERS IORING_REGISTER_RING_FDS
    IORING_UNREGISTER_RING_FDS IORING_REGISTER_PBUF_RING IORING_UNREGISTER_PBUF_RING""")
_F("io_uring_enter_flags", "IORING_ENTER_???", """
    IORING_ENTER_GETEVENTS=1 IORING_ENTER_SQ_WAKEUP=2 IORING_ENTER_SQ_WAIT=4
    IORING_ENTER_EXT_ARG=8 IORING_ENTER_REGISTERED_RING=0x10""")
_F("open_tree_flags", "OPEN_TREE_???", """
    OPEN_TREE_CLONE=1 OPEN_TREE_CLOEXEC=0x80000 AT_SYMLINK_NOFOLLOW AT_REMOVEDIR
    AT_SYMLINK_FOLLOW AT_NO_AUTOMOUNT=0x800 AT_EMPTY_PATH AT_RECURSIVE=0x8000""")
_F("move_mount_flags", "MOVE_MOUNT_???", """
    MOVE_MOUNT_F_SYMLINKS=1 MOVE_MOUNT_F_AUTOMOUNTS=2 MOVE_MOUNT_F_EMPTY_PATH=4
    MOVE_MOUNT_T_SYMLINKS=0x10 MOVE_MOUNT_T_AUTOMOUNTS=0x20 MOVE_MOUNT_T_EMPTY_PATH=0x40
    MOVE_MOUNT_SET_GROUP=0x100""")
_F("fsopen_flags", "FSOPEN_???", "FSOPEN_CLOEXEC=1")
_E("fsconfig_cmds", "FSCONFIG_???", """
    FSCONFIG_SET_FLAG=0 FSCONFIG_SET_STRING FSCONFIG_SET_BINARY FSCONFIG_SET_PATH
    FSCONFIG_SET_PATH_EMPTY FSCONFIG_SET_FD FSCONFIG_CMD_CREATE FSCONFIG_CMD_RECONFIGURE""")
_F("fsmount_flags", "FSMOUNT_???", "FSMOUNT_CLOEXEC=1")
_F("mount_attr_flags", "MOUNT_ATTR_???", """
    MOUNT_ATTR_RDONLY=1 MOUNT_ATTR_NOSUID=2 MOUNT_ATTR_NODEV=4 MOUNT_ATTR_NOEXEC=8
    MOUNT_ATTR_NOATIME=0x10 MOUNT_ATTR_STRICTATIME=0x20 MOUNT_ATTR_NODIRATIME=0x80""")
_F("fspick_flags", "FSPICK_???",
   "FSPICK_CLOEXEC=1 FSPICK_SYMLINK_NOFOLLOW=2 FSPICK_NO_AUTOMOUNT=4 FSPICK_EMPTY_PATH=8")
_F("landlock_create_ruleset_flags", "LANDLOCK_CREATE_RULESET_???",
   "LANDLOCK_CREATE_RULESET_VERSION=1 LANDLOCK_CREATE_RULESET_ERRATA=2")
_E("lsm_attrs", "LSM_ATTR_???", """LSM_ATTR_UNDEF=0 LSM_ATTR_CURRENT=100 LSM_ATTR_EXEC LSM_ATTR_FSCREATE
    LSM_ATTR_KEYCREATE LSM_ATTR_PREV LSM_ATTR_SOCKCREATE""")
_F("landlock_add_rule_flags", "LANDLOCK_ADD_RULE_???", "LANDLOCK_ADD_RULE_QUIET=1")
_E("landlock_rule_types", "LANDLOCK_RULE_???", "LANDLOCK_RULE_PATH_BENEATH=1")
_E("quotactl_cmds", "Q_???", """
    Q_SYNC=0x800001 Q_QUOTAON Q_QUOTAOFF Q_GETFMT Q_GETINFO Q_SETINFO Q_GETQUOTA Q_SETQUOTA
    Q_GETNEXTQUOTA Q_XQUOTAON=0x5801 Q_XQUOTAOFF Q_XGETQUOTA Q_XSETQLIM Q_XGETQSTAT
    Q_XQUOTARM Q_XQUOTASYNC Q_XGETQSTATV Q_XGETNEXTQUOTA""")
_E("quota_types", "???QUOTA", "USRQUOTA=0 GRPQUOTA PRJQUOTA")

# ---------------------------------------------------------------------------------------------
# terminals (struct termios; see strace/ioctl.py for how the fields are combined)

_F("term_iflags", None, """
    IGNBRK=1 BRKINT=2 IGNPAR=4 PARMRK=8 INPCK=0x10 ISTRIP=0x20 INLCR=0x40 IGNCR=0x80 ICRNL=0x100
    IUCLC=0x200 IXON=0x400 IXANY=0x800 IXOFF=0x1000 IMAXBEL=0x2000 IUTF8=0x4000""")
_F("term_oflags", None, """
    OPOST=1 OLCUC=2 ONLCR=4 OCRNL=8 ONOCR=0x10 ONLRET=0x20 OFILL=0x40 OFDEL=0x80""")
_F("term_cflags", None, """
    CSTOPB=0x40 CREAD=0x80 PARENB=0x100 PARODD=0x200 HUPCL=0x400 CLOCAL=0x800
    CMSPAR=0x40000000 CRTSCTS=0x80000000""")
_F("term_lflags", None, """
    ISIG=1 ICANON=2 XCASE=4 ECHO=8 ECHOE=0x10 ECHOK=0x20 ECHONL=0x40 NOFLSH=0x80 IEXTEN=0x8000
    ECHOCTL=0x200 ECHOPRT=0x400 ECHOKE=0x800 FLUSHO=0x1000 PENDIN=0x4000 TOSTOP=0x100
    EXTPROC=0x10000""")
_E("baud_options", None, """
    B0=0 B50 B75 B110 B134 B150 B200 B300 B600 B1200 B1800 B2400 B4800 B9600 B19200 B38400
    BOTHER=0x1000 B57600 B115200 B230400 B460800 B500000 B576000 B921600 B1000000 B1152000
    B1500000 B2000000 B2500000 B3000000 B3500000 B4000000""")
_E("term_csize", None, "CS5=0 CS6=0x10 CS7=0x20 CS8=0x30")
_F("fs_flags", "FS_???_FL", """
    FS_SECRM_FL=1 FS_UNRM_FL=2 FS_COMPR_FL=4 FS_SYNC_FL=8 FS_IMMUTABLE_FL=0x10
    FS_APPEND_FL=0x20 FS_NODUMP_FL=0x40 FS_NOATIME_FL=0x80 FS_DIRTY_FL=0x100
    FS_COMPRBLK_FL=0x200 FS_NOCOMP_FL=0x400 FS_ENCRYPT_FL=0x800 FS_INDEX_FL=0x1000
    FS_IMAGIC_FL=0x2000 FS_JOURNAL_DATA_FL=0x4000 FS_NOTAIL_FL=0x8000 FS_DIRSYNC_FL=0x10000
    FS_TOPDIR_FL=0x20000 FS_HUGE_FILE_FL=0x40000 FS_EXTENT_FL=0x80000 FS_VERITY_FL=0x100000
    FS_EA_INODE_FL=0x200000 FS_EOFBLOCKS_FL=0x400000 FS_NOCOW_FL=0x800000 FS_DAX_FL=0x2000000
    FS_INLINE_DATA_FL=0x10000000 FS_PROJINHERIT_FL=0x20000000 FS_CASEFOLD_FL=0x40000000
    FS_RESERVED_FL=0x80000000""")
_E("tcflsh_options", "TC???", "TCIFLUSH=0 TCOFLUSH TCIOFLUSH")
_E("tcxonc_options", "TC???", "TCOOFF=0 TCOON TCIOFF TCION")
_F("modem_flags", "TIOCM_???", """
    TIOCM_LE=1 TIOCM_DTR=2 TIOCM_RTS=4 TIOCM_ST=8 TIOCM_SR=0x10 TIOCM_CTS=0x20 TIOCM_CAR=0x40
    TIOCM_RNG=0x80 TIOCM_DSR=0x100 TIOCM_OUT1=0x2000 TIOCM_OUT2=0x4000 TIOCM_LOOP=0x8000""")

# ---------------------------------------------------------------------------------------------
# ioctl requests by number; strace prints colliding names as "A or B"

_IOCTLS_NOARG = frozenset({
    0x125f, 0x1261, 0x1274, 0x1275, 0x1276, 0x540c, 0x540d, 0x541d, 0x541f, 0x5422, 0x5427,
    0x5428, 0x5437, 0x5450, 0x5451, 0xc0045877, 0xc0045878})
# requests whose argument strace prints as a pointer (NULL for 0); others print it in hex
_IOCTLS_PTRARG = frozenset({
    0x125d, 0x125e, 0x1260, 0x1263, 0x1265, 0x1267, 0x1268, 0x1269, 0x1277, 0x1278, 0x1279,
    0x127a, 0x127b, 0x127c, 0x127d, 0x127e, 0x127f, 0x5401, 0x5402, 0x5403, 0x5404, 0x5405,
    0x5406, 0x5407, 0x5408, 0x540f, 0x5410, 0x5411, 0x5412, 0x5413, 0x5414, 0x5415, 0x5416,
    0x5417, 0x5418, 0x5419, 0x541a, 0x541b, 0x5420, 0x5421, 0x5423, 0x5424, 0x5429, 0x5452,
    0x5456, 0x5457, 0x40045431, 0x40081271, 0x40086602, 0x40046602, 0x402c542b, 0x402c542c,
    0x402c542d, 0x80041284, 0x80041285, 0x80045430, 0x80045432, 0x80045440, 0x80046601,
    0x80081270, 0x80081272, 0x80081280, 0x80086601, 0x802c542a, 0xc0185879, 0xc020660b,
    0xc0189436, 0x4020940d, 0x81009431, 0x41009432} | set(range(0x8901, 0x89b2)))
IOCTLS: Dict[int, str] = {
    0x1: "FIBMAP", 0x2: "FIGETBSZ",
    0x125d: "BLKROSET", 0x125e: "BLKROGET", 0x125f: "BLKRRPART", 0x1260: "BLKGETSIZE",
    0x1261: "BLKFLSBUF", 0x1262: "BLKRASET", 0x1263: "BLKRAGET", 0x1264: "BLKFRASET",
    0x1265: "BLKFRAGET", 0x1266: "BLKSECTSET", 0x1267: "BLKSECTGET", 0x1268: "BLKSSZGET",
    0x1269: "BLKPG", 0x1274: "BLKTRACESTART", 0x1275: "BLKTRACESTOP", 0x1276: "BLKTRACETEARDOWN",
    0x1277: "BLKDISCARD", 0x1278: "BLKIOMIN", 0x1279: "BLKIOOPT", 0x127a: "BLKALIGNOFF",
    0x127b: "BLKPBSZGET", 0x127c: "BLKDISCARDZEROES", 0x127d: "BLKSECDISCARD",
    0x127e: "BLKROTATIONAL", 0x127f: "BLKZEROOUT",
    0x5401: "TCGETS", 0x5402: "SNDCTL_TMR_START or TCSETS", 0x5403: "SNDCTL_TMR_STOP or TCSETSW",
    0x5404: "SNDCTL_TMR_CONTINUE or TCSETSF", 0x5405: "TCGETA", 0x5406: "TCSETA",
    0x5407: "TCSETAW", 0x5408: "TCSETAF", 0x5409: "TCSBRK", 0x540a: "TCXONC", 0x540b: "TCFLSH",
    0x540c: "TIOCEXCL", 0x540d: "TIOCNXCL", 0x540e: "TIOCSCTTY", 0x540f: "TIOCGPGRP",
    0x5410: "TIOCSPGRP", 0x5411: "TIOCOUTQ", 0x5412: "TIOCSTI", 0x5413: "TIOCGWINSZ",
    0x5414: "TIOCSWINSZ", 0x5415: "TIOCMGET", 0x5416: "TIOCMBIS", 0x5417: "TIOCMBIC",
    0x5418: "TIOCMSET", 0x5419: "TIOCGSOFTCAR", 0x541a: "TIOCSSOFTCAR", 0x541b: "FIONREAD",
    0x541c: "TIOCLINUX", 0x541d: "TIOCCONS", 0x541e: "TIOCGSERIAL", 0x541f: "TIOCSSERIAL",
    0x5420: "TIOCPKT", 0x5421: "FIONBIO", 0x5422: "TIOCNOTTY", 0x5423: "TIOCSETD",
    0x5424: "TIOCGETD", 0x5425: "TCSBRKP", 0x5427: "TIOCSBRK", 0x5428: "TIOCCBRK",
    0x5429: "TIOCGSID", 0x542e: "TIOCGRS485", 0x542f: "TIOCSRS485", 0x5432: "TCGETX",
    0x5433: "TCSETX", 0x5434: "TCSETXF", 0x5435: "TCSETXW", 0x5437: "TIOCVHANGUP",
    0x5441: "TIOCGPTPEER", 0x5450: "FIONCLEX", 0x5451: "FIOCLEX", 0x5452: "FIOASYNC",
    0x5453: "TIOCSERCONFIG", 0x5454: "TIOCSERGWILD", 0x5455: "TIOCSERSWILD",
    0x5456: "TIOCGLCKTRMIOS", 0x5457: "TIOCSLCKTRMIOS", 0x5458: "TIOCSERGSTRUCT",
    0x5459: "TIOCSERGETLSR", 0x545a: "TIOCSERGETMULTI", 0x545b: "TIOCSERSETMULTI",
    0x545c: "TIOCMIWAIT", 0x545d: "TIOCGICOUNT", 0x5460: "FIOQSIZE",
    0x40045431: "TIOCSPTLCK", 0x40045436: "TIOCSIG", 0x80045430: "TIOCGPTN",
    0x80045432: "TIOCGDEV", 0x80045438: "TIOCGPKT", 0x80045439: "TIOCGPTLCK",
    0x80045440: "TIOCGEXCL", 0x802c542a: "TCGETS2", 0x402c542b: "TCSETS2", 0x402c542c: "TCSETSW2",
    0x402c542d: "TCSETSF2", 0x80285442: "TIOCGISO7816", 0xc0285443: "TIOCSISO7816",
    0x8901: "FIOSETOWN", 0x8902: "SIOCSPGRP", 0x8903: "FIOGETOWN", 0x8904: "SIOCGPGRP",
    0x8905: "SIOCATMARK", 0x8906: "SIOCGSTAMP_OLD", 0x8907: "SIOCGSTAMPNS_OLD",
    0x890b: "SIOCADDRT", 0x890c: "SIOCDELRT", 0x890d: "SIOCRTMSG", 0x8910: "SIOCGIFNAME",
    0x8911: "SIOCSIFLINK", 0x8912: "SIOCGIFCONF", 0x8913: "SIOCGIFFLAGS", 0x8914: "SIOCSIFFLAGS",
    0x8915: "SIOCGIFADDR", 0x8916: "SIOCSIFADDR", 0x8917: "SIOCGIFDSTADDR",
    0x8918: "SIOCSIFDSTADDR", 0x8919: "SIOCGIFBRDADDR", 0x891a: "SIOCSIFBRDADDR",
    0x891b: "SIOCGIFNETMASK", 0x891c: "SIOCSIFNETMASK", 0x891d: "SIOCGIFMETRIC",
    0x891e: "SIOCSIFMETRIC", 0x891f: "SIOCGIFMEM", 0x8920: "SIOCSIFMEM", 0x8921: "SIOCGIFMTU",
    0x8922: "SIOCSIFMTU", 0x8923: "SIOCSIFNAME", 0x8924: "SIOCSIFHWADDR", 0x8925: "SIOCGIFENCAP",
    0x8926: "SIOCSIFENCAP", 0x8927: "SIOCGIFHWADDR", 0x8929: "SIOCGIFSLAVE",
    0x8930: "SIOCSIFSLAVE", 0x8931: "SIOCADDMULTI", 0x8932: "SIOCDELMULTI",
    0x8933: "SIOCGIFINDEX", 0x8934: "SIOCSIFPFLAGS", 0x8935: "SIOCGIFPFLAGS",
    0x8936: "SIOCDIFADDR", 0x8937: "SIOCSIFHWBROADCAST", 0x8938: "SIOCGIFCOUNT",
    0x8940: "SIOCGIFBR", 0x8941: "SIOCSIFBR", 0x8942: "SIOCGIFTXQLEN", 0x8943: "SIOCSIFTXQLEN",
    0x8946: "SIOCETHTOOL", 0x8947: "SIOCGMIIPHY", 0x8948: "SIOCGMIIREG", 0x8949: "SIOCSMIIREG",
    0x894a: "SIOCWANDEV", 0x894b: "SIOCOUTQNSD", 0x894c: "SIOCGSKNS", 0x8953: "SIOCDARP",
    0x8954: "SIOCGARP", 0x8955: "SIOCSARP", 0x8960: "SIOCDRARP", 0x8961: "SIOCGRARP",
    0x8962: "SIOCSRARP", 0x8970: "SIOCGIFMAP", 0x8971: "SIOCSIFMAP", 0x8980: "SIOCADDDLCI",
    0x8981: "SIOCDELDLCI", 0x8982: "SIOCGIFVLAN", 0x8983: "SIOCSIFVLAN",
    0x8990: "SIOCBONDENSLAVE", 0x8991: "SIOCBONDRELEASE", 0x8992: "SIOCBONDSETHWADDR",
    0x8993: "SIOCBONDSLAVEINFOQUERY", 0x8994: "SIOCBONDINFOQUERY",
    0x8995: "SIOCBONDCHANGEACTIVE", 0x89a0: "SIOCBRADDBR", 0x89a1: "SIOCBRDELBR",
    0x89a2: "SIOCBRADDIF", 0x89a3: "SIOCBRDELIF", 0x89b0: "SIOCSHWTSTAMP",
    0x89b1: "SIOCGHWTSTAMP", 0x89e0: "SIOCPROTOPRIVATE", 0x89f0: "SIOCDEVPRIVATE",
    0x40081271: "BLKBSZSET", 0x80081270: "BLKBSZGET", 0x80081272: "BLKGETSIZE64",
    0x80081280: "BLKGETDISKSEQ", 0x80041284: "BLKGETZONESZ", 0x80041285: "BLKGETNRZONES",
    0xc0101282: "BLKREPORTZONE", 0x40101283: "BLKRESETZONE", 0x40101286: "BLKOPENZONE",
    0x40101287: "BLKCLOSEZONE", 0x40101288: "BLKFINISHZONE", 0x8100127d: "BLKZNAME",
    0x80086601: "FS_IOC_GETFLAGS", 0x40086602: "FS_IOC_SETFLAGS", 0x80087601: "FS_IOC_GETVERSION",
    0x40087602: "FS_IOC_SETVERSION", 0x80046601: "FS_IOC32_GETFLAGS",
    0x40046602: "FS_IOC32_SETFLAGS", 0x80047601: "FS_IOC32_GETVERSION",
    0x40047602: "FS_IOC32_SETVERSION", 0xc020660b: "FS_IOC_FIEMAP",
    0x81009431: "FS_IOC_GETFSLABEL", 0x41009432: "FS_IOC_SETFSLABEL",
    0x40049409: "BTRFS_IOC_CLONE or FICLONE", 0x4020940d: "BTRFS_IOC_CLONE_RANGE or FICLONERANGE",
    0xc0189436: "BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE", 0xc0045877: "FIFREEZE",
    0xc0045878: "FITHAW", 0xc0185879: "FITRIM", 0x40806685: "FS_IOC_ENABLE_VERITY",
    0xc0046686: "FS_IOC_MEASURE_VERITY", 0x40085400: "TFD_IOC_SET_TICKS",
    0x400454ca: "TUNSETIFF", 0x800454d2: "TUNGETIFF", 0x800454cf: "TUNGETFEATURES",
    0x400454cb: "TUNSETPERSIST", 0x400454cc: "TUNSETOWNER", 0x400454d0: "TUNSETOFFLOAD",
}
_E("ioctl_dirs", None, "_IOC_NONE=0 _IOC_WRITE _IOC_READ")


def ioctl_arg_style(request: int) -> str:
    """How strace prints the third argument of a known request without its own decoder:
    'none' (not printed), 'ptr' (NULL / 0x...) or 'hex'."""
    request &= 0xffffffff
    if request in _IOCTLS_NOARG:
        return "none"
    if request in _IOCTLS_PTRARG:
        return "ptr"
    return "hex"


def format_ioctl(request: int) -> str:
    request &= 0xffffffff
    name = IOCTLS.get(request)
    if name:
        return name
    d = (request >> 30) & 3
    size = (request >> 16) & 0x3fff
    typ = (request >> 8) & 0xff
    nr = request & 0xff
    dirs = {0: "_IOC_NONE", 1: "_IOC_WRITE", 2: "_IOC_READ", 3: "_IOC_READ|_IOC_WRITE"}[d]
    return f"_IOC({dirs}, {_hex(typ)}, {_hex(nr)}, {_hex(size)})"


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
    clockid &= 0xffffffff
    name = SETS["clocks"].lookup(clockid)
    if name is not None:
        return name
    return f"{_hex(clockid)} /* CLOCK_??? */"


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
