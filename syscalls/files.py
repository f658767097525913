"""Open file descriptions (what an fd points to) and the per-process fd table.

Each kind of open file is one small class: a read-only root file, a writable overlay file, a
file in a granted host directory, a directory stream, a synthesized file or device, a pipe
end, and the host's own stdin/stdout/stderr. All speak Linux errnos via VfsError.
"""
from __future__ import annotations

import io
import os
import weakref
from typing import Dict, List, Optional

from emutrace.machine.shm import SharedMemory

from emutrace.kernel import errno as E
from emutrace.kernel.hosttree import DirTree, host_error
from emutrace.kernel.vfs import Node, StatInfo, Vfs, VfsError
from emutrace.linux.fcntl import (O_ACCMODE, O_APPEND, O_CLOEXEC, O_CREAT, O_DIRECTORY, O_EXCL, O_NOCTTY, O_NOFOLLOW, O_NONBLOCK,
                                  O_PATH, O_RDONLY, O_RDWR, O_TMPFILE, O_TRUNC, O_WRONLY, SEEK_CUR, SEEK_DATA, SEEK_END, SEEK_HOLE,
                                  SEEK_SET, S_IFCHR, S_IFIFO, S_IFREG)

# flags & UNREADABLE: not open for reading. The access mode is readable when it is O_RDONLY (0)
# or O_RDWR (2), i.e. when its low bit is clear (O_WRONLY is 1; 3 is neither), and O_PATH is not set.
UNREADABLE = O_WRONLY | O_PATH


class WouldBlock(Exception):
    """The operation would block (EAGAIN for non-blocking fds; the scheduler waits otherwise)."""


class OpenFile:
    kind = "file"
    seekable = True
    # read() is OpenFile.read: pread at pos, then pos moves on. sys_read then does it itself,
    # without read()'s frame (every class says so by itself: see __init_subclass__)
    reads_at_pos = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.reads_at_pos = cls.read is OpenFile.read and cls.kind != "dir"

    def __init__(self, path: str, flags: int, node: Optional[Node] = None):
        self.reads_at_pos = self.reads_at_pos   # (the class's, on the instance: sys_read reads it
        # at every call, and CPython 3.11 looks a class attribute up through an instance slowly)
        self.path = path
        self.flags = flags
        self.node = node
        self.pos = 0
        self.refs = 0

    @property
    def readable(self) -> bool:
        return not self.flags & UNREADABLE

    @property
    def writable(self) -> bool:
        return (self.flags & O_ACCMODE) in (O_WRONLY, O_RDWR) and not self.flags & O_PATH

    # subclasses override what they support
    def size(self) -> int:
        return self.stat().size

    def pread(self, n: int, off: int) -> bytes:
        raise VfsError(E.EINVAL)

    def version(self) -> Optional[tuple]:
        """The host file's version (hosttree.host_version) behind this open file, if it is one."""
        return None

    def pwrite(self, data: bytes, off: int) -> int:
        raise VfsError(E.EINVAL)

    def read(self, n: int) -> bytes:
        if self.flags & UNREADABLE:         # (not self.readable: no property call at every read)
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


def pread_fd(f) -> Optional[int]:
    """The host descriptor of f when os.pread reads what f.seek and f.read would (an unbuffered
    host file, on a host with pread), else None (a member of a tar root; Windows)."""
    if not hasattr(os, "pread") or not isinstance(f, io.FileIO):
        return None
    return f.fileno()


class HostFile(OpenFile):
    """A file of the read-only root (or of a granted directory, opened read-only)."""

    def __init__(self, path, flags, node, host_path):
        super().__init__(path, flags, node)
        self.tree = node.tree if node is not None and node.tree is not None else DirTree("/")
        try:
            self.f = self.tree.open(host_path)      # a host file, or a member of a tar root
        except OSError as e:
            raise host_error(e) from None
        self.host_fd = pread_fd(self.f)

    def pread(self, n, off):
        try:
            if self.host_fd is not None:
                return os.pread(self.host_fd, n, off)     # (one host call, not seek and read)
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
    """A file inside a --rw grant: real reads and writes on the host. What the guest writes is
    stamped with the virtual clock (`now_ns`), not the host's, as every time the guest makes."""

    def __init__(self, path, flags, node, host_path, now_ns=None):
        OpenFile.__init__(self, path, flags, node)
        self.host_path = host_path
        self.now_ns = now_ns
        self.tree = node.tree if node.tree is not None else DirTree("/")   # grants: host directories
        mode = "r+b" if (flags & O_ACCMODE) != O_RDONLY else "rb"
        try:
            self.f = open(host_path, mode, buffering=0)
        except OSError as e:
            raise host_error(e) from None
        self.host_fd = pread_fd(self.f)

    def pwrite(self, data, off):
        try:
            self.f.seek(off)
            n = self.f.write(data)
        except OSError as e:
            raise host_error(e) from None
        self._stamp()
        return n

    def truncate(self, length):
        try:
            self.f.truncate(length)
        except OSError as e:
            raise host_error(e) from None
        self._stamp()

    def _stamp(self):
        if self.now_ns is not None:
            stamp_host(self.f.fileno() if os.utime in os.supports_fd else self.host_path, self.now_ns())


def stamp_host(target, ns: int) -> None:
    """Set a granted host file's times to the virtual clock's `ns` (best effort: a host that
    refuses leaves the host's time, which the clock then steps to when it is shown)."""
    try:
        os.utime(target, ns=(ns, ns))
    except (OSError, NotImplementedError):
        pass


def shared_memory_of(ov, create: bool = False):
    """The SharedMemory behind an overlay file's MAP_SHARED mappings (tmpfs, /dev/shm, memfd):
    the file's pages while a mapping holds them, so every process that maps the file sees the
    same bytes. None when nothing maps it (and not `create`)."""
    ref = getattr(ov, "shm_ref", None)
    shm = ref() if ref is not None else None
    if shm is None and create:
        shm = SharedMemory(fill=lambda off, n: bytes(ov.data[off:off + n]))
        ov.shm_ref = weakref.ref(shm)
        # when the last mapping goes, what was written through mappings stays in the file
        weakref.finalize(shm, _write_back, shm.extents, ov).atexit = False
    return shm


def _write_back(extents, ov) -> None:
    for o, n, buf, _ in extents:
        if o < len(ov.data):
            ov.store_back(o, bytes(buf[:n]))


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
        self.ov.write(off, data)            # (ENOSPC before anything is written)
        shm = shared_memory_of(self.ov)
        if shm is not None:
            shm.write(off, bytes(data))
        self._touch()
        return len(data)

    def truncate(self, length):
        shm = shared_memory_of(self.ov)
        if length < len(self.ov.data) and shm is not None:
            shm.zero(length, 1 << 62)              # cut pages read back as zeros if the file grows again
        self.ov.resize(length)
        self._touch()

    def _touch(self):
        st = self.ov.stat
        st.size = len(self.ov.data)
        st.blocks = self.ov.allocated()
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
        self.zeros = device in ("zero", "full")     # (what pread gives, decided once)

    def size(self):
        return 0

    def pread(self, n, off):
        if self.zeros:
            return b"\0" * n
        if self.device == "null":
            return b""
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


# What the guest sees of the host's stdio: never the host's inode, device or times, so a trace is
# the same whether stdout is a file, a pipe or /dev/null, today or next year. A terminal is
# /dev/pts/0; anything else is a pipe, except a regular file as stdin, which stays a (seekable)
# regular file of that size, its content being an input. Numbers as a Linux 6.1 shows them.
STDIO_PIPE_INO = 0x3F00          # + the fd: pipe:[16128], pipe:[16129], pipe:[16130]
PIPEFS_DEV, DEVPTS_DEV, PTS0_RDEV, PTS0_INO = 0xC, 0x19, 0x8800, 3
STDIN_FILE_DEV = 0x2E            # a device of its own: the file is nowhere in the guest's tree


def _stdio_shape(host_fd: int, flags: int) -> str:
    """tty, file or pipe: what the guest is shown of a host stdio descriptor."""
    try:
        if os.isatty(host_fd):
            return "tty"
        mode = os.fstat(host_fd).st_mode
    except OSError:
        return "pipe"
    if (flags & O_ACCMODE) == O_RDONLY and (mode & 0o170000) == S_IFREG:
        return "file"
    return "pipe"


class HostStream(OpenFile):
    """The host's own stdin, stdout or stderr, passed through to the guest's fd 0, 1, 2, with a
    synthetic identity (see STDIO_PIPE_INO): `born_ns` is the virtual time of its creation."""
    kind = "stream"
    seekable = False

    def __init__(self, path, flags, host_fd: int, born_ns: int = 0):
        self.shape = _stdio_shape(host_fd, flags)
        self.ino = STDIO_PIPE_INO + host_fd
        path = {"tty": "/dev/pts/0", "pipe": f"pipe:[{self.ino}]"}.get(self.shape, path)
        super().__init__(path, flags, None)
        self.host_fd = host_fd
        self.born_ns = born_ns
        self.seekable = self.shape == "file"

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
        if self.shape != "file":
            raise VfsError(E.ESPIPE)
        try:
            if hasattr(os, "pread"):
                return os.pread(self.host_fd, n, off)
            here = os.lseek(self.host_fd, 0, os.SEEK_CUR)      # (Windows: no pread; keep the offset)
            try:
                os.lseek(self.host_fd, off, os.SEEK_SET)
                return os.read(self.host_fd, n)
            finally:
                os.lseek(self.host_fd, here, os.SEEK_SET)
        except OSError as e:
            raise host_error(e) from None

    def seek(self, off, whence):
        if self.shape != "file":
            raise VfsError(E.ESPIPE)          # a pipe or a terminal, whatever the host's is
        try:
            return os.lseek(self.host_fd, off, whence)
        except OSError as e:
            raise host_error(e) from None      # ESPIPE by its name on every host

    def stat(self):
        t = self.born_ns
        if self.shape == "tty":
            return StatInfo(mode=S_IFCHR | 0o620, ino=PTS0_INO, dev=DEVPTS_DEV, rdev=PTS0_RDEV, blksize=1024,
                            uid=0, gid=5, atime_ns=t, mtime_ns=t, ctime_ns=t)      # group tty
        if self.shape == "file":
            try:
                size = os.fstat(self.host_fd).st_size
            except OSError:
                size = 0
            return StatInfo(mode=S_IFREG | 0o644, size=size, ino=self.ino, dev=STDIN_FILE_DEV,
                            blocks=(size + 4095) // 4096 * 8, atime_ns=t, mtime_ns=t, ctime_ns=t)
        return StatInfo(mode=S_IFIFO | 0o600, ino=self.ino, dev=PIPEFS_DEV, blksize=4096,
                        atime_ns=t, mtime_ns=t, ctime_ns=t)

    def isatty(self):
        try:
            return os.isatty(self.host_fd)
        except OSError:
            return False


class Pipe:
    """A pipe buffer shared by its two ends (also one direction of a socket pair). What it holds
    counts against the kernel's "buffers" bound (limits.KernelLimits): when every pipe and socket
    together hold that much, writers wait as on a full pipe."""
    CAPACITY = 65536

    def __init__(self, limits=None, capacity: int = CAPACITY):
        self.buf = bytearray()
        self.readers = 0
        self.writers = 0
        self.capacity = capacity
        self.limits = limits
        self.held = limits.hold(self, "buffers", 0) if limits is not None else None

    def room(self) -> int:
        room = self.capacity - len(self.buf)
        if self.limits is not None:
            room = min(room, self.limits.room("buffers"))
        return room

    def take(self, n: int) -> bytes:
        """Up to n bytes; b"" at end of file (no writer left); WouldBlock when empty."""
        if not self.buf:
            if self.writers == 0:
                return b""
            raise WouldBlock()
        data = bytes(self.buf[:n])
        del self.buf[:n]
        if self.held is not None:
            self.held.resize(len(self.buf))
        return data

    def put(self, data: bytes) -> int:
        """As much as fits; EPIPE when no reader is left; WouldBlock when full."""
        if self.readers == 0:
            raise VfsError(E.EPIPE)
        room = self.room()
        if room <= 0:
            raise WouldBlock()
        if self.held is not None:
            self.held.resize(len(self.buf) + min(room, len(data)))
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
        if self.flags & UNREADABLE:
            raise VfsError(E.EBADF)
        return self.pipe.take(n)

    def write(self, data):
        if not self.writable:
            raise VfsError(E.EBADF)
        return self.pipe.put(data)

    def ready(self):
        p = self.pipe
        r = 1 if (p.buf or p.writers == 0) else 0
        w = 4 if (p.room() > 0 or p.readers == 0) else 0
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
    def __init__(self, limit: int = 1024, limits=None):
        self.fds: Dict[int, OpenFile] = {}
        self.cloexec: Dict[int, bool] = {}
        self.limit = limit
        self.limits = limits    # the kernel's bounds: open file descriptions count as "files"
        self.users = 1          # processes sharing this table (clone with CLONE_FILES)
        self.free_from = 0      # no fd below this is free: the lowest-free search starts here

    def get(self, fd: int) -> OpenFile:
        f = self.fds.get(fd)
        if f is None:
            raise VfsError(E.EBADF)
        return f

    def install(self, f: OpenFile, cloexec: bool = False, minfd: int = 0, at: Optional[int] = None) -> int:
        if at is None:
            fd = max(minfd, self.free_from)
            while fd in self.fds:
                fd += 1
            if minfd <= self.free_from:
                self.free_from = fd + 1     # every fd below fd is taken (a table of 65536 stays linear)
            if fd >= self.limit:
                raise VfsError(E.EMFILE)
        else:
            fd = at
            if fd in self.fds:
                self.close(fd)
        if f.refs == 0 and self.limits is not None:
            self.limits.take("files")          # ENFILE: a new open file description
        f.refs += 1
        self.fds[fd] = f
        self.cloexec[fd] = cloexec
        return fd

    def close(self, fd: int) -> None:
        f = self.fds.pop(fd, None)
        if f is None:
            raise VfsError(E.EBADF)
        self.free_from = min(self.free_from, fd)
        self.cloexec.pop(fd, None)
        f.refs -= 1
        for hook in CLOSE_HOOKS:
            hook(self, f)
        if f.refs <= 0:
            if self.limits is not None:
                self.limits.give("files")
            f.close()

    def close_all(self) -> None:
        for fd in list(self.fds):
            self.close(fd)

    def fork(self) -> "FdTable":
        t = FdTable(self.limit, self.limits)
        for fd, f in self.fds.items():
            f.refs += 1          # a pipe end closes when its last descriptor does
            t.fds[fd] = f
            t.cloexec[fd] = self.cloexec[fd]
        return t
