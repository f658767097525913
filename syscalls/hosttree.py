"""The host side of the VFS: a host directory as a tree the guest reads (DirTree), the Linux stat of
a host file, and the guest's numbers for host inodes and devices (HostIds), so no host identity
reaches the guest. Every path handed in is already the tree's (Vfs resolves the guest's)."""
from __future__ import annotations

import ctypes
import errno as host_errno
import os
import stat as _st
import struct
import sys
from typing import Dict, List, Optional, Tuple

from emutrace.machine.hostmem import file_view

from emutrace.kernel import errno as E
from emutrace.kernel.errors import VfsError
from emutrace.kernel.statinfo import DT_OF_MODE, StatInfo
from emutrace.linux.fcntl import DT_UNKNOWN, S_IFDIR, S_IFMT, S_IFREG


def stat_from_host(st: os.stat_result) -> StatInfo:
    """A Linux stat of a host file. The access time is reported as the modification time: the
    host's atime changes whenever anything (this run included) reads the file, so it would make
    runs differ, and it tells the guest about host activity it has no business seeing."""
    blocks = getattr(st, "st_blocks", None)
    if blocks is None:
        blocks = (st.st_size + 511) // 512
    mode = st.st_mode
    if os.name == "nt":           # Windows only reports file vs directory
        mode = (S_IFDIR | 0o755) if _st.S_ISDIR(mode) else (S_IFREG | 0o644)
    return StatInfo(mode=mode, size=st.st_size, ino=st.st_ino & 0xFFFFFFFFFFFFFFFF,
                    dev=getattr(st, "st_dev", 0) & 0xFFFFFFFFFFFFFFFF, nlink=st.st_nlink,
                    uid=getattr(st, "st_uid", 0), gid=getattr(st, "st_gid", 0),
                    rdev=getattr(st, "st_rdev", 0) or 0, blksize=getattr(st, "st_blksize", 4096) or 4096,
                    blocks=blocks, atime_ns=st.st_mtime_ns, mtime_ns=st.st_mtime_ns, ctime_ns=st.st_ctime_ns)


# the host's stat has every field stat_from_host reads, and Linux's file types (not Windows)
_FULL_HOST_STAT = os.name != "nt" and all(hasattr(os.stat_result, a) for a in ("st_blocks", "st_rdev", "st_blksize"))


def _folds_case(top: str) -> bool:
    """Whether the host file system under `top` folds case, found by looking an entry up with
    its case swapped (no entry with letters: taken as case-sensitive, the Linux answer)."""
    try:
        with os.scandir(top) as it:
            for de in it:
                other = de.name.swapcase()
                if other != de.name:
                    try:
                        return os.path.samestat(os.lstat(os.path.join(top, other)), de.stat(follow_symlinks=False))
                    except OSError:
                        return False
    except OSError:
        pass
    return False


def host_error(exc: OSError) -> VfsError:
    return VfsError(E.from_host(exc), str(exc))


# ---------------------------------------------------------------- host identities

class HostIds:
    """What the guest sees of a host file's identity and times. The aim: a tree copied to
    another directory or host (cp -a, tar, rsync -a: contents, names, modes and mtimes kept)
    gives byte-identical traces. So nothing that a copy changes reaches the guest:
    - inode numbers are numbered in the order the guest is first shown each host (dev, ino)
      (a stat, a getdents, a copy-up), not in the order paths are walked: the same file always
      has the same number, hard links share theirs, and a copy shown in the same order (a
      deterministic program shows them in the same order), at any depth, gets the same numbers;
    - each host file system is a device numbered in the order shown: 8:1, 8:2, ...;
    - the change time is shown as the modification time (a copy's ctime is when it was made; the
      access time already is: it moves whenever anything reads the file);
    - files of the host user running emutrace belong to the guest's user, as in a rootless
      container's user namespace.
    Sizes and block counts stay the host file system's (a directory's size on ext4 is 4096 per
    block of entries), so `ls -l` prints what it prints natively."""
    FIRST_INO = 0x10000
    FIRST_DEV = 0x801

    def __init__(self, uid: int = 0, gid: int = 0):
        self.inos: Dict[Tuple[int, int], int] = {}
        self.devs: Dict[int, int] = {}
        self.host_dev_of: Dict[int, int] = {}      # guest dev → host dev (for getdents' d_ino)
        self.uid, self.gid = uid, gid
        self.host_uid = os.getuid() if hasattr(os, "getuid") else -1
        self.host_gid = os.getgid() if hasattr(os, "getgid") else -1

    def dev(self, host_dev: int) -> int:
        dev = self.devs.get(host_dev)
        if dev is None:
            dev = self.devs[host_dev] = self.FIRST_DEV + len(self.devs)
            self.host_dev_of[dev] = host_dev
        return dev

    def ino(self, host_dev: int, host_ino: int) -> int:
        key = (host_dev, host_ino)
        ino = self.inos.get(key)
        if ino is None:
            ino = self.inos[key] = self.FIRST_INO + len(self.inos)
        return ino

    def shown(self, st: StatInfo) -> StatInfo:
        """st as the guest is shown it: a host file's gets its numbers now (a copy; st is kept)."""
        if st.host_id is None:
            return st
        out = StatInfo(**{**st.__dict__})
        out.ino = self.ino(*st.host_id)
        out.dev = self.dev(st.host_id[0])
        out.host_id = None
        return out

    def from_host(self, st: os.stat_result) -> StatInfo:
        """guest_stat(stat_from_host(st)) in one step: what every host lstat on a path walk makes
        (a stat with every field given in order, no getattr)."""
        if not _FULL_HOST_STAT:
            return self.guest_stat(stat_from_host(st))
        ino, dev, mtime = st.st_ino & 0xFFFFFFFFFFFFFFFF, st.st_dev & 0xFFFFFFFFFFFFFFFF, st.st_mtime_ns
        uid, gid = st.st_uid, st.st_gid
        return StatInfo(st.st_mode, st.st_size, ino, dev, st.st_nlink,
                        self.uid if uid == self.host_uid else uid, self.gid if gid == self.host_gid else gid,
                        st.st_rdev or 0, st.st_blksize or 4096, st.st_blocks, mtime, mtime, mtime, (dev, ino))

    def guest_stat(self, st: StatInfo) -> StatInfo:
        """st (a host file's, from stat_from_host) as the guest will see it, changed in place;
        its inode and device are numbered when it is shown (shown())."""
        st.host_id = (st.dev, st.ino)
        st.ctime_ns = st.atime_ns = st.mtime_ns
        if st.uid == self.host_uid:
            st.uid = self.uid
        if st.gid == self.host_gid:
            st.gid = self.gid
        return st


# ---------------------------------------------------------------- host trees

class DirTree:
    """Files under a host directory: the default root and every --rw grant.

    A tree answers lstat/stat/readlink/listdir/open for its own `host` strings (here: host paths;
    a TarTree uses `archive!/member`). Every other module reaches root files only through the
    node's tree, so the root can be something other than a host directory. Errors are OSError."""

    def __init__(self, top: str, ids: Optional[HostIds] = None):
        self.top = os.path.abspath(top)
        # what join() puts before a resolved path's names where the host separates them with "/"
        self._slash_top = (self.top if self.top.endswith("/") else self.top + "/") if os.sep == "/" else None
        self._folds: Optional[bool] = None            # found on first use: a tree never used reads nothing
        self._names: Dict[str, frozenset] = {}        # host dir -> its exact entry names
        self.ids = ids or HostIds()        # the Vfs's: every tree of a run numbers files alike

    def join(self, path: str) -> str:
        """The host string of a guest path (absolute, already resolved) inside this tree."""
        rest = path.lstrip("/")
        if not rest:
            return self.top
        if self._slash_top is not None and "//" not in rest:
            return self._slash_top + rest            # what os.path.join gives, without its calls
        return os.path.join(self.top, *rest.split("/"))

    @property
    def case_insensitive(self) -> bool:
        """Whether the host file system under the top folds case (macOS, Windows)."""
        if self._folds is None:
            self._folds = _folds_case(self.top)
        return self._folds

    @case_insensitive.setter
    def case_insensitive(self, value: bool) -> None:
        self._folds = value

    def _exact(self, host: str) -> None:
        """On a host file system that folds case (macOS, Windows), every name below the top must
        match a directory entry exactly, as on Linux: /etc/Passwd is not /etc/passwd."""
        rel = os.path.relpath(host, self.top)
        if rel == ".":
            return
        cur = self.top
        for part in rel.split(os.sep):
            names = self._names.get(cur)
            if names is None:
                names = self._names[cur] = frozenset(os.listdir(cur))
            if part not in names:
                raise FileNotFoundError(host_errno.ENOENT, "No such file or directory", host)
            cur = os.path.join(cur, part)

    def lstat(self, host: str) -> StatInfo:
        if self.case_insensitive:
            self._exact(host)
        return self.ids.from_host(os.lstat(host))

    def stat(self, host: str) -> StatInfo:
        if self.case_insensitive:
            self._exact(host)
        return self.ids.from_host(os.stat(host))

    def readlink(self, host: str) -> str:
        if self.case_insensitive:
            self._exact(host)
        return os.readlink(host)

    def listdir(self, host: str) -> List[Tuple[str, int, int]]:
        """(name, d_type, d_ino) of each entry in the host's own order. On a Linux host the raw
        getdents64 stream is read, so '.' and '..' keep their places and d_type is the
        filesystem's, exactly as a native run sees them; elsewhere scandir (no '.' and '..')."""
        dev = os.stat(host).st_dev
        raw = _host_getdents(host)
        if raw is not None:
            return [(name, dtype, self.ids.ino(dev, ino)) for name, dtype, ino in raw]
        out = []
        with os.scandir(host) as it:
            for de in it:
                try:
                    mode = de.stat(follow_symlinks=False).st_mode
                except OSError:
                    mode = 0
                out.append((de.name, DT_OF_MODE.get(mode & S_IFMT, DT_UNKNOWN), self.ids.ino(dev, de.inode())))
        return out

    def open(self, host: str):
        """A binary file object (seek, read, close) for reading."""
        if self.case_insensitive:
            self._exact(host)
        return open(host, "rb", buffering=0)

    def fstat(self, f, node) -> StatInfo:
        return self.ids.from_host(os.fstat(f.fileno()))

    def read(self, host: str) -> bytes:
        with self.open(host) as f:
            return f.read()

    def version(self, f, host: str) -> tuple:
        """The version (host_version) of the open file f, at `host`."""
        return host_version(host, os.fstat(f.fileno()))

    def read_versioned(self, host: str):
        """(contents, version): the version is the open file's, taken before reading, so a file
        replaced meanwhile is not filed under the new one's version."""
        with self.open(host) as f:
            version = self.version(f, host)
            view = file_view(f, version[3])              # (a large file: not copied)
            return (f.read() if view is None else view), version


def host_version(host: str, st) -> tuple:
    """What names one version of a host file: where it is, which inode, its size and its
    modification and change times (the change time moves with every write, rename or chmod, and
    cannot be set back). What caches of parsed files are keyed by, so nothing hashes contents.
    (On Windows st_ctime is the creation time: a file rewritten in place at the same size with
    its modification time set back would look unchanged there.)"""
    return (host, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_GETDENTS64 = {"x86_64": 217, "amd64": 217, "aarch64": 61, "arm64": 61}


def _host_getdents(host: str):
    """The host directory's raw getdents64 records (Linux hosts only), or None to fall back."""
    if not sys.platform.startswith("linux"):
        return None
    import platform     # deferred: only Linux hosts read a directory's raw records (platform costs ~1.5 ms)
    nr = _GETDENTS64.get(platform.machine().lower())
    if nr is None:
        return None
    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None
    fd = os.open(host, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        buf = ctypes.create_string_buffer(1 << 16)
        out = []
        while True:
            n = libc.syscall(nr, fd, buf, len(buf))
            if n < 0:
                return None
            if n == 0:
                return out
            data = buf.raw[:n]
            off = 0
            while off < n:
                ino, _doff, reclen, dtype = struct.unpack_from("<QqHB", data, off)
                name = data[off + 19:off + reclen].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
                out.append((name, dtype, ino))
                off += reclen
    finally:
        os.close(fd)


def open_tree(root: str, ids: Optional[HostIds] = None):
    """The tree for --root: a host directory, or a tar archive (read in place)."""
    if os.path.isdir(root):
        return DirTree(root, ids)
    from emutrace.kernel.tarfs import TarTree      # deferred: tarfile, gzip, lzma and bz2 cost start-up time
    return TarTree(root)
