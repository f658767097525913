"""Open file descriptions (what an fd points to) and the per-process fd table.

Each kind of open file is one small class: a read-only root file, a writable overlay file, a
file in a granted host directory, a directory stream, a synthesized file or device, a pipe
end, and the host's own stdin/stdout/stderr. All speak Linux errnos via VfsError.
"""
from __future__ import annotations

import os
import weakref
from typing import Dict, List, Optional

from . import errno as E
from .vfs import (DirTree, Node, S_IFCHR, S_IFIFO, S_IFREG, StatInfo, Vfs, VfsError, host_error, stat_from_host)

O_ACCMODE, O_RDONLY, O_WRONLY, O_RDWR = 3, 0, 1, 2
O_CREAT, O_EXCL, O_NOCTTY, O_TRUNC, O_APPEND, O_NONBLOCK = 0o100, 0o200, 0o400, 0o1000, 0o2000, 0o4000
O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_PATH, O_TMPFILE = 0o200000, 0o400000, 0o2000000, 0o10000000, 0o20200000
SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA, SEEK_HOLE = 0, 1, 2, 3, 4


class WouldBlock(Exception):
    """The operation would block (EAGAIN for non-blocking fds; the scheduler waits otherwise)."""


class OpenFile:
    kind = "file"
    seekable = True

    def __init__(self, path: str, flags: int, node: Optional[Node] = None):
        self.path = path
        self.flags = flags
        self.node = node
        self.pos = 0
        self.refs = 0

    @property
    def readable(self) -> bool:
        return (self.flags & O_ACCMODE) in (O_RDONLY, O_RDWR) and not self.flags & O_PATH

    @property
    def writable(self) -> bool:
        return (self.flags & O_ACCMODE) in (O_WRONLY, O_RDWR) and not self.flags & O_PATH

    # subclasses override what they support
    def size(self) -> int:
        return self.stat().size

    def pread(self, n: int, off: int) -> bytes:
        raise VfsError(E.EINVAL)

    def version(self) -> Optional[tuple]:
        """The host file's version (vfs.host_version) behind this open file, if it is one."""
        return None

    def pwrite(self, data: bytes, off: int) -> int:
        raise VfsError(E.EINVAL)

    def read(self, n: int) -> bytes:
        if not self.readable:
            raise VfsError(E.EBADF)
        data = self.pread(n, self.pos)
        self.pos += len(data)
        return data

    def write(self, data: bytes) -> int:
        if not self.writable:
            raise VfsError(E.EBADF)
        if self.flags & O_APPEND:
            self.pos = self.size()
        n = self.pwrite(data, self.pos)
        self.pos += n
        return n

    def seek(self, off: int, whence: int) -> int:
        if not self.seekable:
            raise VfsError(E.ESPIPE)
        if whence == SEEK_SET:
            new = off
        elif whence == SEEK_CUR:
            new = self.pos + off
        elif whence == SEEK_END:
            new = self.size() + off
        elif whence in (SEEK_DATA, SEEK_HOLE):
            size = self.size()
            if off >= size:
                raise VfsError(E.ENXIO)
            new = off if whence == SEEK_DATA else size
        else:
            raise VfsError(E.EINVAL)
        if new < 0:
            raise VfsError(E.EINVAL)
        self.pos = new
        return new

    def stat(self) -> StatInfo:
        return self.node.stat if self.node else StatInfo(mode=S_IFREG | 0o600)

    def truncate(self, length: int) -> None:
        raise VfsError(E.EINVAL)

    def isatty(self) -> bool:
        return False

    def ready(self) -> int:
        """poll readiness: bit 1 = readable, bit 4 = writable."""
        return 1 | 4

    def close(self) -> None:
        pass


class HostFile(OpenFile):
    """A file of the read-only root (or of a granted directory, opened read-only)."""

    def __init__(self, path, flags, node, host_path):
        super().__init__(path, flags, node)
        self.tree = node.tree if node is not None and node.tree is not None else DirTree("/")
        try:
            self.f = self.tree.open(host_path)      # a host file, or a member of a tar root
        except OSError as e:
            raise host_error(e) from None

    def pread(self, n, off):
        try:
            self.f.seek(off)
            return self.f.read(n)
        except OSError as e:
            raise host_error(e) from None

    def stat(self):
        try:
            return self.tree.fstat(self.f, self.node)
        except OSError:
            return self.node.stat

    def version(self) -> Optional[tuple]:
        if self.node is None:
            return None
        try:
            return self.tree.version(self.f, self.node.host)
        except (OSError, ValueError):
            return None

    def close(self):
        self.f.close()


class HostRwFile(HostFile):
    """A file inside a --rw grant: real reads and writes on the host."""

    def __init__(self, path, flags, node, host_path):
        OpenFile.__init__(self, path, flags, node)
        self.tree = DirTree("/")                    # grants are always host directories
        mode = "r+b" if (flags & O_ACCMODE) != O_RDONLY else "rb"
        try:
            self.f = open(host_path, mode, buffering=0)
        except OSError as e:
            raise host_error(e) from None

    def pwrite(self, data, off):
        try:
            self.f.seek(off)
            return self.f.write(data)
        except OSError as e:
            raise host_error(e) from None

    def truncate(self, length):
        self.f.truncate(length)


def shared_memory_of(ov, create: bool = False):
    """The SharedMemory behind an overlay file's MAP_SHARED mappings (tmpfs, /dev/shm, memfd):
    the file's pages while a mapping holds them, so every process that maps the file sees the
    same bytes. None when nothing maps it (and not `create`)."""
    ref = getattr(ov, "shm_ref", None)
    shm = ref() if ref is not None else None
    if shm is None and create:
        from emutrace.memory import SharedMemory
        shm = SharedMemory(fill=lambda off, n: bytes(ov.data[off:off + n]))
        ov.shm_ref = weakref.ref(shm)
        # when the last mapping goes, what was written through mappings stays in the file
        weakref.finalize(shm, _write_back, shm.extents, ov).atexit = False
    return shm


def _write_back(extents, ov) -> None:
    data = ov.data
    for o, n, buf, _ in extents:
        hi = min(o + n, len(data))
        if o < hi:
            data[o:hi] = buf[:hi - o]


class MemFile(OpenFile):
    """A file of the in-memory overlay. While the file is mapped MAP_SHARED, the mapped pages
    live in its SharedMemory: reads and writes go through them, so read() sees what a mapping
    wrote and a mapping sees what write() wrote."""

    def __init__(self, path, flags, node, now_ns):
        super().__init__(path, flags, node)
        self.ov = node.ov
        self.now_ns = now_ns

    def size(self):
        return len(self.ov.data)

    def pread(self, n, off):
        out = bytearray(self.ov.data[off:off + n])
        shm = shared_memory_of(self.ov)
        if shm is not None and out:
            shm.read_into(out, off)
        return bytes(out)

    def pwrite(self, data, off):
        buf = self.ov.data
        if off > len(buf):
            buf.extend(b"\0" * (off - len(buf)))
        buf[off:off + len(data)] = data
        shm = shared_memory_of(self.ov)
        if shm is not None:
            shm.write(off, bytes(data))
        self._touch()
        return len(data)

    def truncate(self, length):
        buf = self.ov.data
        shm = shared_memory_of(self.ov)
        if length < len(buf):
            if shm is not None:
                shm.zero(length, 1 << 62)          # cut pages read back as zeros if the file grows again
            del buf[length:]
        else:
            buf.extend(b"\0" * (length - len(buf)))
        self._touch()

    def _touch(self):
        st = self.ov.stat
        st.size = len(self.ov.data)
        st.blocks = (st.size + 511) // 512
        st.mtime_ns = st.ctime_ns = self.now_ns()

    def stat(self):
        self.ov.stat.size = len(self.ov.data)
        return self.ov.stat


class DirFile(OpenFile):
    """A directory opened for getdents64; the listing is taken at the first read."""
    kind = "dir"

    def __init__(self, path, flags, node, vfs: Vfs):
        super().__init__(path, flags, node)
        self.vfs = vfs
        self.entries: Optional[List] = None

    def listing(self):
        if self.entries is None or self.pos == 0:
            self.entries = self.vfs.listdir(self.node)
        return self.entries

    def read(self, n):
        raise VfsError(E.EISDIR)

    def write(self, data):
        raise VfsError(E.EBADF)

    def seek(self, off, whence):
        if whence == SEEK_SET and off >= 0:
            self.pos = off
            return off
        if whence == SEEK_CUR and self.pos + off >= 0:
            self.pos += off
            return self.pos
        raise VfsError(E.EINVAL)


class SynthFile(OpenFile):
    """A synthesized /proc file: its content is fixed when it is opened, as reading /proc appears."""

    def __init__(self, path, flags, node, content: bytes):
        super().__init__(path, flags, node)
        self.content = content

    def size(self):
        return len(self.content)

    def pread(self, n, off):
        return self.content[off:off + n]

    def pwrite(self, data, off):
        raise VfsError(E.EACCES)

    def stat(self):
        return self.node.stat


class DeviceFile(OpenFile):
    """/dev/null, /dev/zero, /dev/full, /dev/urandom, /dev/random."""
    seekable = True

    def __init__(self, path, flags, node, device: str, random_bytes):
        super().__init__(path, flags, node)
        self.device = device
        self.random_bytes = random_bytes

    def size(self):
        return 0

    def pread(self, n, off):
        if self.device == "null":
            return b""
        if self.device in ("zero", "full"):
            return b"\0" * n
        return self.random_bytes(n)

    def pwrite(self, data, off):
        if self.device == "full":
            raise VfsError(E.ENOSPC)
        return len(data)

    def write(self, data):
        if not self.writable:
            raise VfsError(E.EBADF)
        return self.pwrite(data, 0)

    def seek(self, off, whence):
        self.pos = 0
        return 0


class HostStream(OpenFile):
    """The host's own stdin, stdout or stderr, passed through to the guest's fd 0, 1, 2."""
    kind = "stream"
    seekable = False

    def __init__(self, path, flags, host_fd: int):
        super().__init__(path, flags, None)
        self.host_fd = host_fd
        self._seekable = None

    def read(self, n):
        try:
            return os.read(self.host_fd, n)
        except OSError as e:
            raise host_error(e) from None

    def write(self, data):
        try:
            total = 0
            view = memoryview(data)
            while total < len(data):
                total += os.write(self.host_fd, view[total:])
            return total
        except BrokenPipeError:
            raise VfsError(E.EPIPE) from None
        except OSError as e:
            raise host_error(e) from None

    def pread(self, n, off):
        raise VfsError(E.ESPIPE)

    def seek(self, off, whence):
        # a regular file redirected to stdin/stdout can seek natively too
        try:
            return os.lseek(self.host_fd, off, whence)
        except OSError as e:
            if e.errno in (29,):   # ESPIPE on Linux; other hosts differ, so map by name
                raise VfsError(E.ESPIPE) from None
            raise host_error(e) from None

    def stat(self):
        try:
            st = stat_from_host(os.fstat(self.host_fd))
        except OSError:
            return StatInfo(mode=S_IFCHR | 0o620, rdev=0x8800)
        if os.name == "nt" or st.mode == 0:
            st.mode = S_IFCHR | 0o620 if self.isatty() else S_IFIFO | 0o600
        return st

    def isatty(self):
        try:
            return os.isatty(self.host_fd)
        except OSError:
            return False


class Pipe:
    """A pipe buffer shared by its two ends (also one direction of a socket pair)."""
    CAPACITY = 65536

    def __init__(self):
        self.buf = bytearray()
        self.readers = 0
        self.writers = 0

    def take(self, n: int) -> bytes:
        """Up to n bytes; b"" at end of file (no writer left); WouldBlock when empty."""
        if not self.buf:
            if self.writers == 0:
                return b""
            raise WouldBlock()
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def put(self, data: bytes) -> int:
        """As much as fits; EPIPE when no reader is left; WouldBlock when full."""
        if self.readers == 0:
            raise VfsError(E.EPIPE)
        room = self.CAPACITY - len(self.buf)
        if room <= 0:
            raise WouldBlock()
        self.buf += data[:room]
        return min(room, len(data))


class PipeEnd(OpenFile):
    kind = "pipe"
    seekable = False

    def __init__(self, pipe: Pipe, flags: int, ino: int):
        super().__init__(f"pipe:[{ino}]", flags, None)
        self.pipe = pipe
        self.ino = ino
        if self.readable:
            pipe.readers += 1
        else:
            pipe.writers += 1

    def read(self, n):
        if not self.readable:
            raise VfsError(E.EBADF)
        return self.pipe.take(n)

    def write(self, data):
        if not self.writable:
            raise VfsError(E.EBADF)
        return self.pipe.put(data)

    def ready(self):
        p = self.pipe
        r = 1 if (p.buf or p.writers == 0) else 0
        w = 4 if (len(p.buf) < Pipe.CAPACITY or p.readers == 0) else 0
        return r | w

    def stat(self):
        return StatInfo(mode=S_IFIFO | 0o600, ino=self.ino, dev=0xC, blksize=4096)

    def close(self):
        if self.readable:
            self.pipe.readers -= 1
        else:
            self.pipe.writers -= 1


# called as hook(table, f) whenever a descriptor of f in table closes, before f itself closes
# on its last one (record locks are dropped there: locks.on_close)
CLOSE_HOOKS = []


class FdTable:
    def __init__(self, limit: int = 1024):
        self.fds: Dict[int, OpenFile] = {}
        self.cloexec: Dict[int, bool] = {}
        self.limit = limit
        self.users = 1          # processes sharing this table (clone with CLONE_FILES)

    def get(self, fd: int) -> OpenFile:
        f = self.fds.get(fd)
        if f is None:
            raise VfsError(E.EBADF)
        return f

    def install(self, f: OpenFile, cloexec: bool = False, minfd: int = 0, at: Optional[int] = None) -> int:
        if at is None:
            fd = minfd
            while fd in self.fds:
                fd += 1
            if fd >= self.limit:
                raise VfsError(E.EMFILE)
        else:
            fd = at
            if fd in self.fds:
                self.close(fd)
        f.refs += 1
        self.fds[fd] = f
        self.cloexec[fd] = cloexec
        return fd

    def close(self, fd: int) -> None:
        f = self.fds.pop(fd, None)
        if f is None:
            raise VfsError(E.EBADF)
        self.cloexec.pop(fd, None)
        f.refs -= 1
        for hook in CLOSE_HOOKS:
            hook(self, f)
        if f.refs <= 0:
            f.close()

    def close_all(self) -> None:
        for fd in list(self.fds):
            self.close(fd)

    def fork(self) -> "FdTable":
        t = FdTable(self.limit)
        for fd, f in self.fds.items():
            f.refs += 1          # a pipe end closes when its last descriptor does
            t.fds[fd] = f
            t.cloexec[fd] = self.cloexec[fd]
        return t
