"""Opening files and descriptors: the path resolution every path-taking call shares (guest_path,
resolve_at, permissions), open/openat/creat, close, dup, fcntl, flock and pipes.

The other file-system calls are by subject: rw.py (read/write), fsstat.py (stat, statfs), dirs.py
(directories, links, attributes), xattr.py, ioctl.py, poll.py (poll/select)."""
from __future__ import annotations

import re
import struct

from emutrace.kernel import errno as E
from emutrace.kernel import locks
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import DeviceFile, DirFile, HostFile, HostRwFile, MemFile, OpenFile, Pipe, PipeEnd, SynthFile
from emutrace.linux.fcntl import (O_ACCMODE, O_APPEND, O_CLOEXEC, O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_NONBLOCK,
                                  O_PATH, O_RDONLY, O_TRUNC, O_WRONLY)
from emutrace.kernel.limits import PAGE
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import S_IFDIR
from emutrace.linux.fcntl import AT_EACCESS, AT_EMPTY_PATH, AT_FDCWD, AT_REMOVEDIR, AT_SYMLINK_FOLLOW, AT_SYMLINK_NOFOLLOW, FD_CLOEXEC, F_DUPFD, F_GETFD, F_GETFL, F_GETLK, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETFD, F_SETFL, F_SETLK, F_SETLKW, R_OK, W_OK, X_OK

F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG = 8, 9, 10, 11
F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS = 1030, 1031, 1032, 1033, 1034
SETTABLE_FL = O_APPEND | O_NONBLOCK | 0o40000 | 0o1000000 | 0o4010000   # APPEND NONBLOCK DIRECT NOATIME ASYNC


# ---------------------------------------------------------------- helpers

def guest_path(proc, addr: int) -> str:
    if not addr:
        raise VfsError(E.EFAULT)
    raw = proc.aspace.read_cstr(addr, 4096)
    if len(raw) >= 4096:            # (no NUL in PATH_MAX bytes: Linux reads no further, getname())
        raise VfsError(E.ENAMETOOLONG)
    return raw.decode("utf-8", "surrogateescape")


def base_dir(proc, dirfd: int) -> str:
    dirfd = s32(dirfd)
    if dirfd == AT_FDCWD:
        return proc.cwd
    f = proc.fds.get(dirfd)
    if f.node is None or not f.node.is_dir:
        raise VfsError(E.ENOTDIR)
    return f.path


def resolve_at(proc, dirfd: int, addr: int, follow=True, empty_ok=False, must_exist=True):
    """(canonical path, node) for a *at() call's (dirfd, path)."""
    path = guest_path(proc, addr)
    if not path:
        if empty_ok:
            f = proc.fds.get(s32(dirfd)) if s32(dirfd) != AT_FDCWD else None
            if f is None:
                return proc.cwd, proc.kernel.vfs.lookup(proc.cwd)
            return f.path, f.node
        raise VfsError(E.ENOENT)
    base = proc.cwd if path.startswith("/") else base_dir(proc, dirfd)
    return proc.kernel.vfs.resolve(path, base, follow=follow, must_exist=must_exist)


def permitted(proc, st: StatInfo, want: int) -> bool:
    uid, gid = proc.kernel.world.uid, proc.kernel.world.gid
    if uid == 0:
        return not (want & X_OK) or bool(st.mode & 0o111) or st.type == S_IFDIR
    if st.uid == uid:
        bits = (st.mode >> 6) & 7
    elif st.gid == gid:
        bits = (st.mode >> 3) & 7
    else:
        bits = st.mode & 7
    return (bits & want) == want


def open_node(proc, path: str, node, flags: int, mode: int) -> OpenFile:
    vfs = proc.kernel.vfs
    acc = flags & O_ACCMODE
    wants_write = acc in (O_WRONLY, 2) or (flags & O_TRUNC and acc != O_RDONLY)
    if node is None:
        if not flags & O_CREAT:
            raise VfsError(E.ENOENT)
        parent = vfs.lookup(path.rsplit("/", 1)[0] or "/")
        if not permitted(proc, parent.stat, W_OK | X_OK):
            raise VfsError(E.EACCES)
        node = vfs.create_file(path, mode & ~proc.umask & 0o7777)
    else:
        if flags & O_CREAT and flags & O_EXCL:
            raise VfsError(E.EEXIST)
        if flags & O_PATH:
            return OpenFile(path, flags, node)      # (with O_NOFOLLOW, of a symlink itself)
        if node.is_link and flags & O_NOFOLLOW:
            raise VfsError(E.ELOOP)
        if flags & O_DIRECTORY and not node.is_dir:
            raise VfsError(E.ENOTDIR)
        if node.is_dir and wants_write:
            raise VfsError(E.EISDIR)
        want = (R_OK if acc in (O_RDONLY, 2) else 0) | (W_OK if wants_write else 0)
        if not permitted(proc, node.stat, want):
            raise VfsError(E.EACCES)
    if node.opened is not None:
        return node.opened          # a pipe, socket or stream named by /proc/PID/fd/N: shared
    if node.is_dir:
        return DirFile(path, flags, node, vfs)
    if node.synth is not None:
        sn = node.synth
        if sn.device:
            return DeviceFile(path, flags, node, sn.device, proc.kernel.world.random_bytes)
        if wants_write:
            raise VfsError(E.EACCES)
        return SynthFile(path, flags, node, sn.content() if sn.content else b"")
    if wants_write:
        node = vfs.writable(node, keep_data=not flags & O_TRUNC)
    if node.ov is not None:
        f = MemFile(path, flags, node, proc.kernel.world.realtime_ns)
        if flags & O_TRUNC and wants_write:
            f.truncate(0)
        return f
    if node.writable_host and wants_write:
        vfs.host_journal.changing(node.path, node.host)
        f = HostRwFile(path, flags, node, node.host, proc.kernel.world.realtime_ns)
        if flags & O_TRUNC:
            f.truncate(0)
        return f
    vfs.reads[node.host] = None
    return HostFile(path, flags, node, node.host)


_FD_LINK = re.compile(r"^/proc/(\d+)/fd/(\d+)$")


def _fd_link_target(proc, link: str, node):
    """Opening /proc/PID/fd/N (also through /dev/fd, /dev/stdin...) opens what fd N holds, as
    Linux's magic links do — pipes and sockets included, which have no path to resolve: the open
    file the symlink `node` at `link` leads to through such links, or None."""
    try:
        for _ in range(8):                       # /dev/stdin → /proc/self/fd/0 → ...
            if node is None or not node.is_link:
                return None
            m = _FD_LINK.match(link)
            if m:
                owner = proc.kernel.process(int(m.group(1)))
                target = (owner or proc).fds.fds.get(int(m.group(2)))
                return target
            target = proc.kernel.vfs.readlink_node(node)
            base = link.rsplit("/", 1)[0] or "/"
            link, node = proc.kernel.vfs.resolve(target, base, follow=False)
    except VfsError:
        return None
    return None


def do_open(proc, dirfd: int, addr: int, flags: int, mode: int) -> int:
    # The path is resolved once without following its last name. Unless that name is a symlink
    # this is the answer whatever the flags (they only decide about a last name that is a symlink,
    # or missing), and its errors are the open's: the walk to the last name is the same.
    path, node = resolve_at(proc, dirfd, addr, follow=False, must_exist=False)
    if node is None:
        if not flags & O_CREAT:
            raise VfsError(E.ENOENT)
    elif node.is_link:
        shared = _fd_link_target(proc, path, node)
        if shared is not None and shared.node is None:       # a pipe, socket or stream: share it
            return _install(proc, shared, bool(flags & O_CLOEXEC))
        if not (flags & O_NOFOLLOW or flags & O_CREAT and flags & O_EXCL):   # (O_EXCL: EEXIST, as on Linux)
            path, node = resolve_at(proc, dirfd, addr, must_exist=not flags & O_CREAT)
    f = open_node(proc, path, node, flags, mode)
    return _install(proc, f, bool(flags & O_CLOEXEC))


def _install(proc, f: OpenFile, cloexec: bool, minfd: int = 0) -> int:
    proc.fds.limit = min(proc.rlimit(7), 1 << 20)
    return proc.fds.install(f, cloexec=cloexec, minfd=minfd)

# ---------------------------------------------------------------- open/close

def sys_open(proc, path, flags, mode, *_):
    return do_open(proc, AT_FDCWD, path, flags, mode)


def sys_creat(proc, path, mode, *_):
    return do_open(proc, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode)


def sys_openat(proc, dirfd, path, flags, mode, *_):
    return do_open(proc, dirfd, path, flags, mode)


def sys_openat2(proc, dirfd, path, how, size, *_):
    flags, mode, _resolve = struct.unpack("<QQQ", proc.aspace.read(how, 24))
    return do_open(proc, dirfd, path, flags, mode)


def sys_close(proc, fd, *_):
    proc.fds.close(s32(fd))
    return 0


def sys_close_range(proc, first, last, flags, *_):
    for fd in [fd for fd in proc.fds.fds if first <= fd <= last]:
        if flags & 4:       # CLOSE_RANGE_CLOEXEC
            proc.fds.cloexec[fd] = True
        else:
            proc.fds.close(fd)
    return 0


def sys_dup(proc, fd, *_):
    return _install(proc, proc.fds.get(s32(fd)), False)


def sys_dup2(proc, old, new, *_):
    f = proc.fds.get(s32(old))
    if s32(old) == s32(new):
        return s32(new)
    if s32(new) < 0 or s32(new) >= proc.rlimit(7):
        return -E.EBADF
    return proc.fds.install(f, cloexec=False, at=s32(new))


def sys_dup3(proc, old, new, flags, *_):
    flags &= 0xFFFFFFFF                 # (an int in Linux: the register's upper half is not seen)
    if s32(old) == s32(new) or flags & ~O_CLOEXEC:
        return -E.EINVAL
    f = proc.fds.get(s32(old))
    if s32(new) < 0 or s32(new) >= proc.rlimit(7):
        return -E.EBADF
    return proc.fds.install(f, cloexec=bool(flags & O_CLOEXEC), at=s32(new))


def sys_fcntl(proc, fd, cmd, arg, *_):
    fd = s32(fd)
    f = proc.fds.get(fd)
    if cmd in (F_DUPFD, F_DUPFD_CLOEXEC):
        return _install(proc, f, cmd == F_DUPFD_CLOEXEC, minfd=s32(arg))
    if cmd == F_GETFD:
        return FD_CLOEXEC if proc.fds.cloexec.get(fd) else 0
    if cmd == F_SETFD:
        proc.fds.cloexec[fd] = bool(arg & FD_CLOEXEC)
        return 0
    if cmd == F_GETFL:
        return f.flags & ~O_CLOEXEC
    if cmd == F_SETFL:
        f.flags = (f.flags & ~SETTABLE_FL) | (arg & SETTABLE_FL)
        return 0
    if cmd in (F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW):
        return locks.fcntl_lock(proc, f, cmd in (F_GETLK, F_OFD_GETLK), cmd >= F_OFD_GETLK,
                                cmd in (F_SETLKW, F_OFD_SETLKW), arg)
    if cmd in (F_GETOWN, F_GETSIG):
        return 0
    if cmd in (F_SETOWN, F_SETSIG):
        return 0
    if cmd == F_GETPIPE_SZ and isinstance(f, PipeEnd):
        return f.pipe.capacity
    if cmd == F_SETPIPE_SZ and isinstance(f, PipeEnd):
        return _set_pipe_size(proc, f.pipe, arg)
    if cmd in (F_ADD_SEALS, F_GET_SEALS):
        return -E.EINVAL
    return -E.EINVAL


def _set_pipe_size(proc, pipe: Pipe, want: int) -> int:
    """F_SETPIPE_SZ: a power of two of pages, at least one; above fs.pipe-max-size EPERM (the
    guest has no CAP_SYS_RESOURCE over the host's memory); below what the pipe holds EBUSY."""
    want &= 0xFFFFFFFF
    size = PAGE
    while size < want:
        size <<= 1
    if size > proc.kernel.limits.max["pipe_size"]:
        return -E.EPERM
    if size < len(pipe.buf):
        return -E.EBUSY
    pipe.capacity = size
    return size


def sys_flock(proc, fd, op, *_):
    return locks.flock(proc, proc.fds.get(s32(fd)), s32(op))


# ---------------------------------------------------------------- pipes

def sys_pipe(proc, fds, *_):
    return sys_pipe2(proc, fds, 0)


def sys_pipe2(proc, fds, flags, *_):
    flags &= 0xFFFFFFFF                 # (an int in Linux, as dup3's)
    if flags & ~(O_CLOEXEC | O_NONBLOCK | 0o40000):
        return -E.EINVAL
    pipe = Pipe(proc.kernel.limits)
    ino = proc.kernel.vfs.new_ino()
    r = PipeEnd(pipe, O_RDONLY | (flags & O_NONBLOCK), ino)
    w = PipeEnd(pipe, O_WRONLY | (flags & O_NONBLOCK), ino)
    rfd = _install(proc, r, bool(flags & O_CLOEXEC))
    try:
        wfd = _install(proc, w, bool(flags & O_CLOEXEC))
    except VfsError:
        proc.fds.close(rfd)
        raise
    proc.aspace.write(fds, struct.pack("<ii", rfd, wfd))
    return 0
