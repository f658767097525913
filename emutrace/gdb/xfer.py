"""What gdb reads besides registers and memory: qXfer documents and vFile (host I/O).

- libraries-svr4: every module emutrace mapped into the process but the program itself, with
  its load bias (l_addr) and dynamic section (l_ld), so gdb loads their symbols;
- auxv: the process's auxiliary vector, read from its initial stack;
- exec-file: the guest path of the running program;
- threads: every thread with its name (the process's comm for the main thread);
- vFile: open/pread/close/fstat/readlink of files *in the guest's root* (the sandbox's VFS and
  its overlay), so gdb reads the libraries the guest runs, not the host's.
"""
from __future__ import annotations

import struct
from typing import Dict, Optional
from xml.sax.saxutils import quoteattr

from emutrace.kernel.fs import open_node
from emutrace.kernel.vfs import VfsError
from emutrace.linux.auxv import AT_NULL
from emutrace.linux.elf import PT_DYNAMIC
from emutrace.linux.fcntl import O_RDONLY


# gdb's File-I/O errno values (gdb/include/gdb/fileio.h): Linux's, but for these two
_FILEIO_ERRNO = {38: 88, 36: 91}
FILEIO_EBADF, FILEIO_EACCES, FILEIO_EINVAL = 9, 13, 22


def fileio_errno(linux_errno: int) -> int:
    return _FILEIO_ERRNO.get(linux_errno, linux_errno if linux_errno < 32 else 9999)


def chunk(doc: bytes, offset: int, length: int) -> bytes:
    """One qXfer reply: m + data while more follows, l + data at the end."""
    part = doc[offset:offset + length]
    return (b"l" if offset + length >= len(doc) else b"m") + part


def libraries_svr4(proc) -> str:
    """<library-list-svr4>: the modules of proc but its program (gdb has that as exec-file)."""
    out = ['<library-list-svr4 version="1.0">']
    for n, mod in enumerate(proc.modules):
        if mod.path == proc.exe or mod is proc.modules[0] and not proc.exe:
            continue
        dyn = next((s.vaddr for s in mod.elf.segments if s.type == PT_DYNAMIC), None)
        l_ld = dyn + mod.base if dyn is not None else 0
        # lm: emutrace names the module (no link_map of ld.so is read): gdb uses it as a key
        out.append(f'<library name={quoteattr(mod.path)} lm="{0x1000 + n:#x}" lmid="0x0" l_addr="{mod.base:#x}" '
                   f'l_ld="{l_ld:#x}"/>')
    out.append("</library-list-svr4>")
    return "".join(out)


def auxv(proc, stack_top: Optional[int]) -> bytes:
    """The auxiliary vector the process started with (its initial stack, at exec)."""
    if not stack_top:
        return b""
    try:
        read = proc.aspace.read
        argc = struct.unpack("<Q", read(stack_top, 8))[0]
        p = stack_top + 8 * (argc + 2)
        while struct.unpack("<Q", read(p, 8))[0]:             # envp
            p += 8
        p += 8
        start = p
        while True:
            key = struct.unpack("<Q", read(p, 8))[0]
            p += 16
            if key == AT_NULL or p - start > 8192:
                break
        return read(start, p - start)
    except Exception:           # (a stack the program rewrote: no vector to give)
        return b""


def threads_xml(threads) -> str:
    """threads: [(id text, name)]."""
    rows = "".join(f'<thread id="{tid}" core="0" name={quoteattr(name)}/>' for tid, name in threads)
    return f"<threads>{rows}</threads>"


def fileio_stat(st) -> bytes:
    """gdb's struct stat for vFile:fstat (big-endian, fixed sizes)."""
    return struct.pack(">IIIIIIIQQQIII", st.dev & 0xFFFFFFFF, st.ino & 0xFFFFFFFF, st.mode, st.nlink,
                       st.uid, st.gid, st.rdev & 0xFFFFFFFF, st.size, st.blksize, st.blocks,
                       st.atime_ns // 10**9, st.mtime_ns // 10**9, st.ctime_ns // 10**9)


class HostIO:
    """vFile's open files: read-only, resolved in the guest's root as the process sees it."""

    MAX_OPEN = 64

    def __init__(self):
        self.files: Dict[int, object] = {}
        self.next_fd = 1

    def open(self, proc, path: str, flags: int) -> int:
        """A descriptor, or -errno (gdb's numbers)."""
        if flags & 3:
            return -FILEIO_EACCES               # the sandbox's files are not gdb's to change
        if len(self.files) >= self.MAX_OPEN:
            return -24                          # EMFILE
        vfs = proc.kernel.vfs
        try:
            path, node = vfs.resolve(path, proc.cwd or "/")
            f = open_node(proc, path, node, O_RDONLY, 0)
        except VfsError as e:
            return -fileio_errno(e.errno)
        fd = self.next_fd
        self.next_fd += 1
        self.files[fd] = f
        return fd

    def pread(self, fd: int, count: int, offset: int):
        f = self.files.get(fd)
        if f is None:
            return -FILEIO_EBADF
        try:
            return f.pread(count, offset)
        except VfsError as e:
            return -fileio_errno(e.errno)

    def fstat(self, fd: int):
        f = self.files.get(fd)
        if f is None:
            return -FILEIO_EBADF
        return fileio_stat(f.stat())

    def close(self, fd: int) -> int:
        f = self.files.pop(fd, None)
        if f is None:
            return -FILEIO_EBADF
        try:
            f.close()
        except VfsError:
            pass
        return 0

    def readlink(self, proc, path: str):
        vfs = proc.kernel.vfs
        try:
            node = vfs.lookup(path, proc.cwd or "/", follow=False)
            if not node.is_link:
                return -FILEIO_EINVAL
            return vfs.readlink_node(node).encode("utf-8", "surrogateescape")
        except VfsError as e:
            return -fileio_errno(e.errno)

    def close_all(self) -> None:
        for fd in list(self.files):
            self.close(fd)
