"""A tar archive as the guest's root file system, read in place and never extracted to disk.

`emutrace --root rootfs.tar` runs a program on a sysroot that travels: a `docker export`, a
distribution's rootfs tarball, or what `emutrace sysroot` packs. The archive is indexed once
(member headers only); a file's bytes are read from the archive when the guest reads them.
Compressed archives (.tar.gz, .tar.xz, .tar.bz2, recognized by their magic bytes) are
decompressed into memory once, since a compressed stream has no random access.

The tree speaks the same small interface as hosttree.DirTree (lstat, stat, readlink, listdir, open,
fstat, read) over `host` strings of the form `ARCHIVE!/guest/path`, which is also what
`Vfs.reads` records: an audit can tell that nothing outside the archive was read. Everything a
guest can see comes from the archive: modes, owners, sizes, mtimes, symlink targets, hard links.
Inode numbers are the member's position, the device number is fixed, so a stat looks the same
on every host, Linux, macOS or Windows.
"""
from __future__ import annotations

import bz2
import errno as _errno
import gzip
import io
import lzma
import os
import posixpath
import tarfile
import zlib
from typing import Dict, List, Optional, Tuple

from emutrace.record import record, replace as replace_record

from emutrace.kernel.statinfo import DT_OF_MODE, StatInfo
from emutrace.linux.fcntl import DT_UNKNOWN, S_IFBLK, S_IFCHR, S_IFDIR, S_IFIFO, S_IFLNK, S_IFMT, S_IFREG

TAR_DEV = 0x7A0001              # the device number every member reports
# a member's file type, by TarInfo's test of its kind (hard links are resolved apart; other kinds
# are not part of the tree)
_MEMBER_MODES = (("isdir", S_IFDIR), ("issym", S_IFLNK), ("ischr", S_IFCHR), ("isblk", S_IFBLK),
                 ("isfifo", S_IFIFO), ("isreg", S_IFREG))
MAX_LINKS = 40

_COMPRESSED = (
    (b"\x1f\x8b", "gzip", gzip.decompress),
    (b"\xfd7zXZ\x00", "xz", lzma.decompress),
    (b"BZh", "bzip2", bz2.decompress),
)


class TarRootError(OSError):
    """The archive cannot be used as a root (not a tar archive, corrupt, unreadable)."""


def is_tar_archive(path: str) -> bool:
    """Whether `path` is a readable file that looks like a (possibly compressed) tar archive."""
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    for magic, _, _ in _COMPRESSED:
        if head.startswith(magic):
            return True
    if len(head) < 512:
        return False
    if head[257:262] == b"ustar":
        return True
    try:                        # a v7 tar has no magic: its header checksum still checks out
        return int(head[148:156].split(b"\0", 1)[0].strip() or b"-1", 8) == \
            sum(head[:148]) + 8 * 32 + sum(head[156:])
    except ValueError:
        return False


@record
class _Entry:
    stat: StatInfo
    info: Optional[tarfile.TarInfo] = None     # the member holding the data (hard links: the target)
    target: str = ""                           # symlink target


class _MemberFile:
    """A regular member's bytes: seek and read straight from the archive."""

    def __init__(self, fileobj, offset: int, size: int):
        self.fileobj, self.offset, self.size, self.pos = fileobj, offset, size, 0

    def seek(self, off: int, whence: int = 0) -> int:
        self.pos = off if whence == 0 else (self.pos + off if whence == 1 else self.size + off)
        return self.pos

    def read(self, n: int = -1) -> bytes:
        if self.pos >= self.size:
            return b""
        n = self.size - self.pos if n is None or n < 0 else min(n, self.size - self.pos)
        self.fileobj.seek(self.offset + self.pos)
        data = self.fileobj.read(n)
        self.pos += len(data)
        return data

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _linux_dev(major: int, minor: int) -> int:
    """Linux's dev_t encoding (the host's makedev differs on macOS)."""
    return ((major & 0xFFF) << 8) | (minor & 0xFF) | ((minor & ~0xFF) << 12) | ((major & ~0xFFF) << 32)


def _oserror(code: int, host: str) -> OSError:
    return OSError(code, os.strerror(code), host)


class TarTree:
    def __init__(self, archive: str):
        self.archive = os.path.abspath(archive)
        self.prefix = self.archive + "!"
        try:
            f = open(self.archive, "rb")
        except OSError as e:
            raise TarRootError(e.errno or _errno.EIO, e.strerror or str(e), archive) from None
        try:
            head = f.read(8)
            f.seek(0)
            for magic, kind, decompress in _COMPRESSED:
                if head.startswith(magic):
                    try:
                        data = decompress(f.read())
                    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as e:
                        raise TarRootError(_errno.EINVAL, f"cannot decompress ({kind}): {e}", archive) from None
                    f.close()
                    f = io.BytesIO(data)
                    break
            self.fileobj = f
            self._index()
        except TarRootError:
            f.close()
            raise
        except (tarfile.TarError, EOFError, ValueError) as e:
            f.close()
            raise TarRootError(_errno.EINVAL, f"not a usable tar archive: {e}", archive) from None

    # -- the index --------------------------------------------------------------
    def _index(self) -> None:
        self.tar = tarfile.open(fileobj=self.fileobj, mode="r:")
        self.entries: Dict[str, _Entry] = {}
        self.children: Dict[str, Dict[str, None]] = {"/": {}}
        hardlinks: List[Tuple[str, str]] = []
        n = 0
        for ti in self.tar:
            n += 1
            path = self._norm(ti.name)
            if ti.islnk():
                hardlinks.append((path, self._norm(ti.linkname)))
                self._add_parents(path)
                continue
            mode = next((m for kind, m in _MEMBER_MODES if getattr(ti, kind)()), None)
            if mode is None:
                continue            # unknown member kinds are not part of the tree
            st = StatInfo(mode=mode | (ti.mode & 0o7777), size=ti.size if mode == S_IFREG else 0,
                          ino=n + 1, dev=TAR_DEV, nlink=1, uid=ti.uid, gid=ti.gid,
                          rdev=_linux_dev(ti.devmajor, ti.devminor) if mode in (S_IFCHR, S_IFBLK) else 0,
                          blocks=(ti.size + 511) // 512 if mode == S_IFREG else 0,
                          atime_ns=int(ti.mtime) * 1_000_000_000, mtime_ns=int(ti.mtime) * 1_000_000_000,
                          ctime_ns=int(ti.mtime) * 1_000_000_000)
            if mode == S_IFLNK:
                st.size = len(ti.linkname.encode())
            if path == "/" and mode != S_IFDIR:
                continue
            self.entries[path] = _Entry(st, ti if mode == S_IFREG else None, ti.linkname if mode == S_IFLNK else "")
            self._add_parents(path)
            if mode == S_IFDIR:
                self.children.setdefault(path, {})
        for path, target in hardlinks:
            t = self.entries.get(target)
            if t is None or t.stat.type != S_IFREG:
                continue
            t.stat.nlink += 1
            self.entries[path] = t        # one inode, two names
        if "/" not in self.entries:
            self.entries["/"] = _Entry(StatInfo(mode=S_IFDIR | 0o755, ino=1, dev=TAR_DEV, nlink=2))
        for d, kids in self.children.items():
            e = self.entries.get(d)
            if e is not None and e.stat.type == S_IFDIR:
                e.stat.nlink = 2 + sum(1 for k in kids if self._is_dir(self._child(d, k)))
        for d, kids in self.children.items():   # names whose hard-link target is missing
            for k in [k for k in kids if self._child(d, k) not in self.entries]:
                del kids[k]

    def _is_dir(self, path: str) -> bool:
        e = self.entries.get(path)
        return e is not None and e.stat.type == S_IFDIR

    @staticmethod
    def _norm(name: str) -> str:
        p = posixpath.normpath("/" + name.replace("\\", "/"))
        return "/" + p.lstrip("/")

    @staticmethod
    def _child(d: str, name: str) -> str:
        return d.rstrip("/") + "/" + name

    def _add_parents(self, path: str) -> None:
        """Record `path` in its directory; directories without a member of their own are implied."""
        while path != "/":
            parent, name = posixpath.split(path)
            kids = self.children.setdefault(parent, {})
            known = name in kids
            kids[name] = None
            if parent not in self.entries and parent != "/":
                self.entries[parent] = _Entry(StatInfo(mode=S_IFDIR | 0o755, ino=0x40000000 + len(self.entries),
                                                       dev=TAR_DEV, nlink=2))
            if known:
                return
            path = parent

    # -- host strings -------------------------------------------------------------
    def join(self, path: str) -> str:
        return self.prefix + "/" + path.strip("/")

    def _entry(self, host: str) -> Tuple[str, _Entry]:
        if not host.startswith(self.prefix):
            raise _oserror(_errno.ENOENT, host)
        key = "/" + host[len(self.prefix):].strip("/")
        e = self.entries.get(key)
        if e is None:
            raise _oserror(_errno.ENOENT, host)
        return key, e

    # -- the tree interface (see hosttree.DirTree) ----------------------------------------------
    def lstat(self, host: str) -> StatInfo:
        return replace_record(self._entry(host)[1].stat)

    def stat(self, host: str) -> StatInfo:
        key, e = self._entry(host)
        for _ in range(MAX_LINKS):
            if e.stat.type != S_IFLNK:
                return replace_record(e.stat)
            key = self._norm(posixpath.join(posixpath.dirname(key), e.target))
            e = self.entries.get(key)
            if e is None:
                raise _oserror(_errno.ENOENT, host)
        raise _oserror(_errno.ELOOP, host)

    def readlink(self, host: str) -> str:
        _, e = self._entry(host)
        if e.stat.type != S_IFLNK:
            raise _oserror(_errno.EINVAL, host)
        return e.target

    def listdir(self, host: str) -> List[Tuple[str, int, int]]:
        key, e = self._entry(host)
        if e.stat.type != S_IFDIR:
            raise _oserror(_errno.ENOTDIR, host)
        out = []
        for name in self.children.get(key, {}):
            st = self.entries[self._child(key, name)].stat
            out.append((name, DT_OF_MODE.get(st.mode & S_IFMT, DT_UNKNOWN), st.ino))
        return out

    def open(self, host: str):
        _, e = self._entry(host)
        if e.stat.type == S_IFDIR:
            raise _oserror(_errno.EISDIR, host)
        if e.info is None:                  # devices and fifos of an archive hold no data
            return io.BytesIO(b"")
        ti = e.info
        if ti.sparse is not None:
            f = self.tar.extractfile(ti)
            if f is None:
                raise _oserror(_errno.EIO, host)
            return f
        return _MemberFile(self.fileobj, ti.offset_data, ti.size)

    def fstat(self, f, node) -> StatInfo:
        return node.stat

    def read(self, host: str) -> bytes:
        f = self.open(host)
        try:
            return f.read()
        finally:
            f.close()

    def version(self, f, host: str) -> None:
        """None: a member has no version of its own (caches hash its contents)."""
        return None

    def read_versioned(self, host: str):
        return self.read(host), None
