"""File-system and descriptor system calls: open/read/write/stat/getdents/readlink/... over the VFS."""
from __future__ import annotations

import re
import os
import shutil
import struct

from emutrace.kernel import errno as E
from emutrace.kernel import locks
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.files import (UNREADABLE, DeviceFile, DirFile, HostFile, HostRwFile, MemFile, OpenFile, Pipe,
                                   PipeEnd, SynthFile, WouldBlock)
from emutrace.kernel.layouts import DIRENT64, IOVEC, POLLFD, STAT, STATFS, STATX, TERMIOS, TIMESPEC, WINSIZE
from emutrace.kernel.limits import PAGE
from emutrace.kernel.vfs import Node, StatInfo, VfsError
from emutrace.linux.fcntl import (AT_EACCESS, AT_EMPTY_PATH, AT_FDCWD, AT_REMOVEDIR, AT_SYMLINK_FOLLOW, AT_SYMLINK_NOFOLLOW, FD_CLOEXEC,
                                  F_DUPFD, F_GETFD, F_GETFL, F_GETLK, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW, F_SETFD, F_SETFL,
                                  F_SETLK, F_SETLKW, O_ACCMODE, O_APPEND, O_CLOEXEC, O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW,
                                  O_NONBLOCK, O_PATH, O_RDONLY, O_RDWR, O_TRUNC, O_WRONLY, R_OK, STATX_BASIC_STATS, STATX_MNT_ID,
                                  ST_RDONLY, ST_RELATIME, ST_VALID, S_IFDIR, S_IFMT, S_IFREG, W_OK, X_OK)
from emutrace.linux.poll import POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, POLLPRI, POLLRDHUP
from emutrace.linux.resource import RLIMIT_FSIZE, RLIM_INFINITY
from emutrace.linux.signal import SIGXFSZ

F_SETOWN, F_GETOWN, F_SETSIG, F_GETSIG = 8, 9, 10, 11
F_DUPFD_CLOEXEC, F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS = 1030, 1031, 1032, 1033, 1034
TCGETS, TCSETS, TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ = 0x5401, 0x5402, 0x5403, 0x5404, 0x5413, 0x5414
TIOCGPGRP, TIOCSPGRP, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCFLSH = 0x540F, 0x5410, 0x541B, 0x5421, 0x5451, 0x5450, 0x540B
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


def pack_stat(st: StatInfo) -> bytes:
    return STAT.pack(
        st_dev=st.dev, st_ino=st.ino, st_nlink=st.nlink, st_mode=st.mode, st_uid=st.uid, st_gid=st.gid,
        st_rdev=st.rdev, st_size=st.size, st_blksize=st.blksize, st_blocks=st.blocks,
        st_atime=st.atime_ns // 10**9, st_atime_nsec=st.atime_ns % 10**9,
        st_mtime=st.mtime_ns // 10**9, st_mtime_nsec=st.mtime_ns % 10**9,
        st_ctime=st.ctime_ns // 10**9, st_ctime_nsec=st.ctime_ns % 10**9)


def _major(dev):
    return ((dev >> 8) & 0xFFF) | ((dev >> 32) & ~0xFFF & 0xFFFFFFFF)


def _minor(dev):
    return (dev & 0xFF) | ((dev >> 12) & ~0xFF & 0xFFFFFFFF)


def pack_statx(st: StatInfo) -> bytes:
    return STATX.pack(
        stx_mask=STATX_BASIC_STATS | STATX_MNT_ID, stx_mnt_id=st.dev & 0xFFFF, stx_blksize=st.blksize, stx_nlink=st.nlink, stx_uid=st.uid, stx_gid=st.gid,
        stx_mode=st.mode & 0xFFFF, stx_ino=st.ino, stx_size=st.size, stx_blocks=st.blocks,
        stx_atime_sec=st.atime_ns // 10**9, stx_atime_nsec=st.atime_ns % 10**9,
        stx_ctime_sec=st.ctime_ns // 10**9, stx_ctime_nsec=st.ctime_ns % 10**9,
        stx_mtime_sec=st.mtime_ns // 10**9, stx_mtime_nsec=st.mtime_ns % 10**9,
        stx_rdev_major=_major(st.rdev), stx_rdev_minor=_minor(st.rdev),
        stx_dev_major=_major(st.dev), stx_dev_minor=_minor(st.dev))


def blocking(proc, f: OpenFile, op, *args):
    """Run op(*args); a would-block becomes EAGAIN on non-blocking fds, else waits for other
    processes. (op and its arguments rather than a lambda: one Python frame less per call.)"""
    while True:
        try:
            return op(*args)
        except WouldBlock:
            if f.flags & O_NONBLOCK:
                return -E.EAGAIN
            _wait_for_io(proc, f)


def _wait_for_io(proc, f: OpenFile) -> None:
    """A blocking fd would block: wait until another process or thread may have changed that."""
    if not proc.kernel.sched.wait_for_io(proc, f):
        raise VfsError(E.EDEADLK, "blocked forever: no other process can make progress") from None


def blocking_after(proc, f: OpenFile, op, *args):
    """blocking(), for a caller whose own first op(*args) would block (it tried inline, without
    blocking's frame: the common call does not block)."""
    if f.flags & O_NONBLOCK:
        return -E.EAGAIN
    _wait_for_io(proc, f)
    return blocking(proc, f, op, *args)



def fsize_room(proc, f: OpenFile, off: int, n: int) -> int:
    """How many of n bytes written at `off` a regular file may take under RLIMIT_FSIZE: a
    write crossing the limit is cut short at it; one starting at or past it fails with EFBIG
    and raises SIGXFSZ, as Linux does."""
    limit = proc.rlimit(RLIMIT_FSIZE)
    if limit >= RLIM_INFINITY or n == 0 or f.kind != "file" or f.stat().type != S_IFREG:
        return n
    if off >= limit:
        proc.queue_signal({"si_signo": SIGXFSZ, "si_code": 0x80, "si_pid": 0, "si_uid": 0})  # SI_KERNEL
        raise VfsError(E.EFBIG)
    return min(n, limit - off)


def _write_pos(f: OpenFile) -> int:
    return f.size() if f.flags & O_APPEND else f.pos


def raise_sigpipe(proc):
    proc.queue_signal({"si_signo": 13, "si_code": 0, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid})


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


# ---------------------------------------------------------------- read/write

# What one read or write moves through the host at a time. Linux moves up to MAX_RW_COUNT per
# call; here a read, pread, sendfile, copy_file_range or recvfrom returns at most TRANSFER_PIECE
# (a short read), and a bigger write or readv goes in pieces, so no call makes the host
# hold more than that beyond guest memory (a writev of 1024 views of one 1 MiB buffer would
# otherwise be 1 GiB of host memory for 1 MiB of guest memory).
MAX_RW_COUNT = 0x7FFFF000
TRANSFER_PIECE = 1 << 24


def _pieces(spans):
    """(address, size) pieces of at most TRANSFER_PIECE bytes covering `spans` in order, up to
    MAX_RW_COUNT in all."""
    left = MAX_RW_COUNT
    for addr, n in spans:
        n = min(n, left)
        left -= n
        while n > 0:
            k = min(n, TRANSFER_PIECE)
            yield addr, k
            addr += k
            n -= k


def _write_pieces(proc, f: OpenFile, spans, write) -> int:
    """write(bytes) for each piece of the guest's `spans`, until one is short: the bytes moved,
    or an error only when none moved (Linux reports what was written before the error)."""
    total = 0
    for addr, n in _pieces(spans):
        data = proc.aspace.read(addr, n)
        try:
            done = blocking(proc, f, lambda: write(data))
        except VfsError:
            if total:
                return total
            raise
        if done < 0:
            return done if total == 0 else total
        total += done
        if done < n:
            break
    return total


def sys_read(proc, fd, buf, count, _a3=0, _a4=0, _a5=0):     # (no *_: no tuple made per call)
    # (s32, FdTable.get and f.readable, written out: the hottest call. No fd the table holds
    # is 2^31 or more (RLIMIT_NOFILE stops at 2^20), so an fd negative as an s32 is not found.)
    f = proc.fds.fds.get(fd & 0xFFFFFFFF)
    if f is None:
        return -E.EBADF
    if f.flags & UNREADABLE and f.kind != "dir":
        return -E.EBADF
    if count > TRANSFER_PIECE:
        count = TRANSFER_PIECE
    mem = proc.aspace
    window = code = None
    if count:
        window = mem.windows.get(buf)        # (a window is there only where check allowed it)
        if window is None or window[0] < count:
            code = mem.check(buf, count, 2)
            window = mem.write_window(buf, count)
    try:
        if f.reads_at_pos:                   # (f.read, written out: readable, as tested above)
            data = f.pread(count, f.pos)
            f.pos += len(data)
        else:
            data = f.read(count)
    except WouldBlock:
        data = blocking_after(proc, f, f.read, count)
        if isinstance(data, int):            # (-EAGAIN: only blocking gives a number)
            return data
        window, code = None, True            # (other threads ran: their mmap may have changed it)
    n = len(data)
    if n:                                    # (inside what check allowed: n <= count)
        if window is not None:
            at = window[2]
            window[1][at:at + n] = data
        else:
            mem.raw_write(buf, data)
            if code:
                mem.drop_written_code(buf, buf + n)
    return n


def sys_write(proc, fd, buf, count, *_):
    f = proc.fds.fds.get(s32(fd))
    if f is None or not f.writable:
        return -E.EBADF
    count = fsize_room(proc, f, _write_pos(f), count)
    try:
        if count > TRANSFER_PIECE:
            return _write_pieces(proc, f, [(buf, count)], f.write)
        return blocking(proc, f, f.write, proc.aspace.read(buf, count))
    except VfsError as e:
        if e.errno == E.EPIPE:
            raise_sigpipe(proc)
        raise


def sys_pread(proc, fd, buf, count, off, *_):
    f = proc.fds.get(s32(fd))
    if not f.readable:
        return -E.EBADF
    if not f.seekable:
        return -E.ESPIPE
    if s64(off) < 0:
        return -E.EINVAL
    data = f.pread(min(count, TRANSFER_PIECE), off)
    proc.aspace.write(buf, data)
    return len(data)


MAX_LFS_FILESIZE = (1 << 63) - 1          # the largest offset a Linux regular file reaches
MAX_RW_COUNT = 0x7ffff000                 # what one read or write moves at most


def sys_pwrite(proc, fd, buf, count, off, *_):
    f = proc.fds.get(s32(fd))
    if not f.writable:
        return -E.EBADF
    if not f.seekable:
        return -E.ESPIPE
    if s64(off) < 0:
        return -E.EINVAL
    if count and off + min(count, MAX_RW_COUNT) > MAX_LFS_FILESIZE:     # (Linux's s_maxbytes)
        return -E.EFBIG
    count = fsize_room(proc, f, off, count)
    if count > TRANSFER_PIECE:
        pos = [off]

        def at(data):
            n = f.pwrite(data, pos[0])
            pos[0] += n
            return n
        return _write_pieces(proc, f, [(buf, count)], at)
    return f.pwrite(proc.aspace.read(buf, count), off)


def _iovecs(proc, iov, cnt):
    if cnt > 1024:
        raise VfsError(E.EINVAL)
    out = []
    for i in range(cnt):
        v = IOVEC.unpack(proc.aspace.read(iov + 16 * i, 16))
        out.append((v["iov_base"], v["iov_len"]))
    return out


def _readv(proc, fd, iov, cnt, off):
    f = proc.fds.get(s32(fd))
    if not f.readable:
        return -E.EBADF
    total = 0
    for base, length in _pieces(_iovecs(proc, iov, cnt)):
        data = blocking(proc, f, lambda: f.read(length) if off is None else f.pread(length, off + total))
        if isinstance(data, int):
            return data if total == 0 else total
        proc.aspace.write(base, data)
        total += len(data)
        if len(data) < length:
            break
    return total


def _cut(spans, room: int):
    """The first `room` bytes of (address, size) spans."""
    for addr, n in spans:
        if room <= 0:
            return
        yield addr, min(n, room)
        room -= n


def sys_readv(proc, fd, iov, cnt, *_):
    return _readv(proc, fd, iov, cnt, None)


def sys_preadv(proc, fd, iov, cnt, off, *_):
    if s64(off) == -1:
        return _readv(proc, fd, iov, cnt, None)
    if not proc.fds.get(s32(fd)).seekable:
        return -E.ESPIPE
    return _readv(proc, fd, iov, cnt, off)


def sys_writev(proc, fd, iov, cnt, *_):
    f = proc.fds.get(s32(fd))
    if not f.writable:
        return -E.EBADF
    spans = _iovecs(proc, iov, cnt)
    room = fsize_room(proc, f, _write_pos(f), sum(n for _, n in spans))
    spans = list(_cut(spans, room))
    try:
        if room > TRANSFER_PIECE:           # (one write below it: a datagram stays one)
            return _write_pieces(proc, f, spans, f.write)
        data = b"".join(proc.aspace.read(b, n) for b, n in spans)
        return blocking(proc, f, lambda: f.write(data))
    except VfsError as e:
        if e.errno == E.EPIPE:
            raise_sigpipe(proc)
        raise


def sys_lseek(proc, fd, off, whence, *_):
    return proc.fds.get(s32(fd)).seek(s64(off), whence)


def sys_sendfile(proc, out_fd, in_fd, offp, count, *_):
    fin, fout = proc.fds.get(s32(in_fd)), proc.fds.get(s32(out_fd))
    count = min(count, TRANSFER_PIECE)
    if offp:
        off = proc.aspace.read_u64(offp)
        data = fin.pread(count, off)
        proc.aspace.write_u64(offp, off + len(data))
    else:
        data = fin.read(count)
    data = data[:fsize_room(proc, fout, _write_pos(fout), len(data))]
    return fout.write(data) if data else 0


def sys_copy_file_range(proc, in_fd, off_in, out_fd, off_out, length, flags):
    fin, fout = proc.fds.get(s32(in_fd)), proc.fds.get(s32(out_fd))
    if not fin.seekable or not fout.seekable or isinstance(fin, HostFile) is False and fin.kind != "file":
        return -E.EXDEV
    length = min(length, TRANSFER_PIECE)
    if off_in:
        o = proc.aspace.read_u64(off_in)
        data = fin.pread(length, o)
        proc.aspace.write_u64(off_in, o + len(data))
    else:
        data = fin.read(length)
    if not data:
        return 0
    if off_out:
        o = proc.aspace.read_u64(off_out)
        n = fout.pwrite(data[:fsize_room(proc, fout, o, len(data))], o)
        proc.aspace.write_u64(off_out, o + n)
        return n
    return fout.write(data[:fsize_room(proc, fout, _write_pos(fout), len(data))])


def sys_fsync(proc, fd, *_):
    proc.fds.get(s32(fd))
    return 0


def sys_sync(proc, *_):
    return 0


def sys_fadvise(proc, fd, *_):
    f = proc.fds.get(s32(fd))
    return -E.ESPIPE if isinstance(f, PipeEnd) else 0


def sys_fallocate(proc, fd, mode, off, length, *_):
    f = proc.fds.get(s32(fd))
    if mode == 0 and off + length > f.size():
        _fsize_length(proc, f, off + length)
        f.truncate(off + length)
    return 0


def _fsize_length(proc, f: OpenFile, length: int) -> None:
    """A truncate or fallocate to `length` past RLIMIT_FSIZE: EFBIG and SIGXFSZ."""
    if length < 0:
        raise VfsError(E.EINVAL)
    if length > f.size():
        fsize_room(proc, f, length - 1, 1)


def sys_ftruncate(proc, fd, length, *_):
    f = proc.fds.get(s32(fd))
    if not f.writable:
        return -E.EINVAL
    _fsize_length(proc, f, s64(length))
    f.truncate(s64(length))
    return 0


def sys_truncate(proc, path, length, *_):
    p, node = resolve_at(proc, AT_FDCWD, path)
    if node.is_dir:
        return -E.EISDIR
    f = open_node(proc, p, node, O_WRONLY, 0)
    _fsize_length(proc, f, s64(length))
    f.truncate(s64(length))
    f.close()
    return 0


# ---------------------------------------------------------------- pipes

def sys_pipe(proc, fds, *_):
    return sys_pipe2(proc, fds, 0)


def sys_pipe2(proc, fds, flags, *_):
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


# ---------------------------------------------------------------- stat

def shown(proc, st: StatInfo) -> StatInfo:
    """A stat about to reach the guest: a host file's gets its guest inode and device numbers
    (vfs.HostIds), and its times are never later than the clock (World.shown)."""
    proc.kernel.world.shown(max(st.atime_ns, st.mtime_ns, st.ctime_ns))
    return proc.kernel.vfs.host_ids.shown(st)


def sys_stat(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path)
    proc.aspace.write(buf, pack_stat(shown(proc, node.stat)))
    return 0


def sys_lstat(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path, follow=False)
    proc.aspace.write(buf, pack_stat(shown(proc, node.stat)))
    return 0


def sys_fstat(proc, fd, buf, *_):
    proc.aspace.write(buf, pack_stat(shown(proc, proc.fds.get(s32(fd)).stat())))
    return 0


def _stat_at(proc, dirfd, path, flags) -> StatInfo:
    if flags & AT_EMPTY_PATH and proc.aspace.read(path, 1) == b"\0":
        if s32(dirfd) == AT_FDCWD:
            return proc.kernel.vfs.lookup(proc.cwd).stat
        return proc.fds.get(s32(dirfd)).stat()
    _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW)
    return node.stat


def sys_newfstatat(proc, dirfd, path, buf, flags, *_):
    proc.aspace.write(buf, pack_stat(shown(proc, _stat_at(proc, dirfd, path, flags))))
    return 0


def sys_statx(proc, dirfd, path, flags, mask, buf, *_):
    proc.aspace.write(buf, pack_statx(shown(proc, _stat_at(proc, dirfd, path, flags))))
    return 0



def _statfs_bytes(proc, node) -> bytes:
    """What the guest's writes may still use: the overlay's quota (--max-disk, the inode bound) is
    the size of every file system it writes to; /proc and /dev are pseudo file systems; a --rw
    grant's host file system is reported with fixed numbers, never the host's own."""
    if node.synth is not None:
        return STATFS.pack(f_type=0x9FA0, f_bsize=4096, f_namelen=255, f_frsize=4096, f_flags=ST_VALID)
    if node.writable_host:
        return STATFS.pack(f_type=0xEF53, f_bsize=4096, f_blocks=1 << 20, f_bfree=1 << 19, f_bavail=1 << 19,
                           f_files=1 << 16, f_ffree=1 << 15, f_namelen=255, f_frsize=4096, f_flags=ST_VALID)
    limits = proc.kernel.limits
    blocks, free = limits.max["disk"] // PAGE, limits.room("disk") // PAGE
    magic = 0x01021994 if node.ov is not None else 0xEF53      # tmpfs for overlay-only files
    return STATFS.pack(f_type=magic, f_bsize=PAGE, f_blocks=blocks, f_bfree=free, f_bavail=free,
                       f_files=limits.max["inodes"], f_ffree=limits.room("inodes"), f_namelen=255,
                       f_frsize=PAGE, f_flags=ST_VALID | ST_RELATIME)


def sys_statfs(proc, path, buf, *_):
    _, node = resolve_at(proc, AT_FDCWD, path)
    proc.aspace.write(buf, _statfs_bytes(proc, node))
    return 0


def sys_fstatfs(proc, fd, buf, *_):
    f = proc.fds.get(s32(fd))
    proc.aspace.write(buf, _statfs_bytes(proc, f.node or Node("/", f.stat())))
    return 0


# ---------------------------------------------------------------- directories

def sys_getdents64(proc, fd, buf, count, *_):
    f = proc.fds.get(s32(fd))
    if not isinstance(f, DirFile):
        return -E.ENOTDIR
    entries = f.listing()
    out = bytearray()
    while f.pos < len(entries):
        name, dtype, ino = entries[f.pos]
        raw = name.encode("utf-8", "surrogateescape")
        reclen = (DIRENT64.size + len(raw) + 1 + 7) & ~7
        if len(out) + reclen > count:
            if not out:
                return -E.EINVAL
            break
        rec = DIRENT64.pack(d_ino=ino or 1, d_off=f.pos + 1, d_reclen=reclen, d_type=dtype) + raw
        out += rec + b"\0" * (reclen - len(rec))
        f.pos += 1
    proc.aspace.write(buf, bytes(out))
    return len(out)


def sys_getdents(proc, fd, buf, count, *_):
    f = proc.fds.get(s32(fd))
    if not isinstance(f, DirFile):
        return -E.ENOTDIR
    entries = f.listing()
    out = bytearray()
    while f.pos < len(entries):
        name, dtype, ino = entries[f.pos]
        raw = name.encode("utf-8", "surrogateescape")
        reclen = (18 + len(raw) + 2 + 7) & ~7
        if len(out) + reclen > count:
            if not out:
                return -E.EINVAL
            break
        rec = struct.pack("<QqH", ino or 1, f.pos + 1, reclen) + raw + b"\0"
        out += rec + b"\0" * (reclen - len(rec) - 1) + bytes([dtype])
        f.pos += 1
    proc.aspace.write(buf, bytes(out))
    return len(out)


def sys_getcwd(proc, buf, size, *_):
    raw = proc.cwd.encode("utf-8", "surrogateescape") + b"\0"
    if size < len(raw):
        return -E.ERANGE
    proc.aspace.write(buf, raw)
    return len(raw)


def sys_chdir(proc, path, *_):
    p, node = resolve_at(proc, AT_FDCWD, path)
    if not node.is_dir:
        return -E.ENOTDIR
    if not permitted(proc, node.stat, X_OK):
        return -E.EACCES
    proc.cwd = p
    return 0


def sys_fchdir(proc, fd, *_):
    f = proc.fds.get(s32(fd))
    if f.node is None or not f.node.is_dir:
        return -E.ENOTDIR
    proc.cwd = f.path
    return 0


def sys_chroot(proc, *_):
    return -E.EPERM


def new_path(proc, dirfd, addr) -> str:
    """The canonical path for a name about to be created (EEXIST if something is there)."""
    p, node = resolve_at(proc, dirfd, addr, follow=False, must_exist=False)
    if node is not None:
        raise VfsError(E.EEXIST)
    return p


def _mkdir(proc, dirfd, path, mode):
    proc.kernel.vfs.mkdir(new_path(proc, dirfd, path), mode & ~proc.umask)
    return 0


def sys_mkdir(proc, path, mode, *_):
    return _mkdir(proc, AT_FDCWD, path, mode)


def sys_mkdirat(proc, dirfd, path, mode, *_):
    return _mkdir(proc, dirfd, path, mode)


def sys_mknod(proc, *_):
    return -E.EPERM


def _unlink(proc, dirfd, path, flags):
    p, node = resolve_at(proc, dirfd, path, follow=False)
    proc.kernel.vfs.remove(node, is_dir=bool(flags & AT_REMOVEDIR))
    return 0


def sys_unlink(proc, path, *_):
    return _unlink(proc, AT_FDCWD, path, 0)


def sys_rmdir(proc, path, *_):
    return _unlink(proc, AT_FDCWD, path, AT_REMOVEDIR)


def sys_unlinkat(proc, dirfd, path, flags, *_):
    return _unlink(proc, dirfd, path, flags)


def _rename(proc, olddir, old, newdir, new, flags=0):
    _, src = resolve_at(proc, olddir, old, follow=False)
    dst_path, dst = resolve_at(proc, newdir, new, follow=False, must_exist=False)
    if flags & 1 and dst is not None:        # RENAME_NOREPLACE
        return -E.EEXIST
    if src.path == dst_path:
        return 0
    proc.kernel.vfs.rename(src, dst_path)
    return 0


def sys_rename(proc, old, new, *_):
    return _rename(proc, AT_FDCWD, old, AT_FDCWD, new)


def sys_renameat(proc, od, old, nd, new, *_):
    return _rename(proc, od, old, nd, new)


def sys_renameat2(proc, od, old, nd, new, flags, *_):
    return _rename(proc, od, old, nd, new, flags)


def _symlink(proc, target, dirfd, path):
    tgt = guest_path(proc, target)
    proc.kernel.vfs.symlink(tgt, new_path(proc, dirfd, path))
    return 0


def sys_symlink(proc, target, path, *_):
    return _symlink(proc, target, AT_FDCWD, path)


def sys_symlinkat(proc, target, dirfd, path, *_):
    return _symlink(proc, target, dirfd, path)


def _link(proc, od, old, nd, new, flags):
    _, src = resolve_at(proc, od, old, follow=bool(flags & AT_SYMLINK_FOLLOW), empty_ok=bool(flags & AT_EMPTY_PATH))
    proc.kernel.vfs.link(src, new_path(proc, nd, new))
    return 0


def sys_link(proc, old, new, *_):
    return _link(proc, AT_FDCWD, old, AT_FDCWD, new, 0)


def sys_linkat(proc, od, old, nd, new, flags, *_):
    return _link(proc, od, old, nd, new, flags)


def _readlink(proc, dirfd, path, buf, size):
    if s64(size) <= 0:
        return -E.EINVAL
    _, node = resolve_at(proc, dirfd, path, follow=False)
    if not node.is_link:
        return -E.EINVAL
    raw = proc.kernel.vfs.readlink_node(node).encode("utf-8", "surrogateescape")[:size]
    proc.aspace.write(buf, raw)
    return len(raw)


def sys_readlink(proc, path, buf, size, *_):
    return _readlink(proc, AT_FDCWD, path, buf, size)


def sys_readlinkat(proc, dirfd, path, buf, size, *_):
    return _readlink(proc, dirfd, path, buf, size)


def _access(proc, dirfd, path, mode, flags):
    if mode & ~7:
        return -E.EINVAL
    _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW, empty_ok=bool(flags & AT_EMPTY_PATH))
    if mode == 0:
        return 0
    if mode & W_OK and node.host is not None and not node.writable_host and node.ov is None:
        pass        # the overlay makes root files writable, as the guest's permissions allow
    return 0 if permitted(proc, node.stat, mode) else -E.EACCES


def sys_access(proc, path, mode, *_):
    return _access(proc, AT_FDCWD, path, mode, 0)


def sys_faccessat(proc, dirfd, path, mode, *_):
    return _access(proc, dirfd, path, mode, 0)


def sys_faccessat2(proc, dirfd, path, mode, flags, *_):
    return _access(proc, dirfd, path, mode, flags)


def _set_attr(proc, node, **changes):
    node = proc.kernel.vfs.writable(node)
    if node.ov is None and node.writable_host:
        proc.kernel.vfs.host_journal.changing(node.path, node.host)
        try:
            if "mode" in changes:
                os.chmod(node.host, changes["mode"] & 0o7777)
        except OSError:
            pass
        return 0
    st = node.stat
    for k, v in changes.items():
        if k == "mode":
            st.mode = (st.mode & S_IFMT) | (v & 0o7777)
        elif v is not None and v != 0xFFFFFFFF:
            setattr(st, k, v)
    st.ctime_ns = proc.kernel.world.realtime_ns()
    return 0


def sys_chmod(proc, path, mode, *_):
    return _set_attr(proc, resolve_at(proc, AT_FDCWD, path)[1], mode=mode)


def sys_fchmodat(proc, dirfd, path, mode, *_):
    return _set_attr(proc, resolve_at(proc, dirfd, path)[1], mode=mode)


def sys_fchmod(proc, fd, mode, *_):
    f = proc.fds.get(s32(fd))
    return _set_attr(proc, f.node, mode=mode) if f.node else -E.EINVAL


def _chown(proc, node, uid, gid):
    if proc.kernel.world.uid != 0:
        if (uid != 0xFFFFFFFF and uid != node.stat.uid) or node.stat.uid != proc.kernel.world.uid:
            return -E.EPERM
    return _set_attr(proc, node, uid=uid & 0xFFFFFFFF, gid=gid & 0xFFFFFFFF)


def sys_chown(proc, path, uid, gid, *_):
    return _chown(proc, resolve_at(proc, AT_FDCWD, path, follow=False)[1], uid, gid)


def sys_fchownat(proc, dirfd, path, uid, gid, flags, *_):
    return _chown(proc, resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW,
                                   empty_ok=bool(flags & AT_EMPTY_PATH))[1], uid, gid)


def sys_fchown(proc, fd, uid, gid, *_):
    f = proc.fds.get(s32(fd))
    return _chown(proc, f.node, uid, gid) if f.node else -E.EINVAL


def sys_umask(proc, mask, *_):
    old, proc.umask = proc.umask, mask & 0o777
    return old


UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2


def sys_utimensat(proc, dirfd, path, times, flags, *_):
    if path:
        _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW)
    else:
        node = proc.fds.get(s32(dirfd)).node
    now = proc.kernel.world.realtime_ns()
    vals = [now, now]
    if times:
        for i in range(2):
            ts = TIMESPEC.unpack(proc.aspace.read(times + 16 * i, 16))
            if ts["tv_nsec"] == UTIME_OMIT:
                vals[i] = None
            elif ts["tv_nsec"] != UTIME_NOW:
                if not 0 <= ts["tv_nsec"] < 10**9:
                    return -E.EINVAL
                vals[i] = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    changes = {}
    if vals[0] is not None:
        changes["atime_ns"] = vals[0]
    if vals[1] is not None:
        changes["mtime_ns"] = vals[1]
    return _set_attr(proc, node, **changes)


def sys_utimes(proc, *_):
    return 0


# xattrs: the sandbox's files carry none (ENODATA), and setting them is not supported
def sys_getxattr(proc, *_):
    return -E.ENODATA


def sys_listxattr(proc, *_):
    return 0


def sys_setxattr(proc, *_):
    return -E.ENOTSUP


# ---------------------------------------------------------------- ioctl / poll

_TERMIOS_DEFAULT = TERMIOS.pack(c_iflag=0x500, c_oflag=0x5, c_cflag=0xBF, c_lflag=0x8A3B, c_line=0,
                                c_cc=bytes([3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26, 0, 18, 15, 23, 22, 0, 0, 0]))


def sys_ioctl(proc, fd, req, arg, *_):
    f = proc.fds.get(s32(fd))
    req &= 0xFFFFFFFF
    if req == FIONREAD:
        if isinstance(f, PipeEnd):
            n = len(f.pipe.buf)
        elif hasattr(f, "pending_bytes"):           # an inotify instance: its queued events
            n = f.pending_bytes()
        elif f.seekable and f.kind == "file":
            n = max(0, f.size() - f.pos)
        else:
            n = 0
        proc.aspace.write_u32(arg, n)
        return 0
    if req == FIONBIO:
        on = struct.unpack("<i", proc.aspace.read(arg, 4))[0]
        f.flags = (f.flags | O_NONBLOCK) if on else (f.flags & ~O_NONBLOCK)
        return 0
    if req in (FIOCLEX, FIONCLEX):
        proc.fds.cloexec[s32(fd)] = req == FIOCLEX
        return 0
    if not f.isatty():
        return -E.ENOTTY
    if req == TCGETS:
        proc.aspace.write(arg, _TERMIOS_DEFAULT)
        return 0
    if req in (TCSETS, TCSETSW, TCSETSF, TCFLSH):
        return 0
    if req == TIOCGWINSZ:
        cols, rows = shutil.get_terminal_size((80, 24))
        proc.aspace.write(arg, WINSIZE.pack(ws_row=rows, ws_col=cols))
        return 0
    if req == TIOCGPGRP:
        proc.aspace.write_u32(arg, proc.pid)
        return 0
    if req in (TIOCSPGRP, TIOCSWINSZ):
        return 0
    return -E.ENOTTY




def _poll_once(proc, entries):
    ready = 0
    out = []
    for fd, events in entries:
        rev = 0
        if fd >= 0:
            f = proc.fds.fds.get(fd)
            if f is None:
                rev = POLLNVAL
            else:
                # readiness that depends on who asks (a signalfd: the poller's signals)
                ready_for = getattr(f, "ready_for", None)
                r = ready_for(proc) if ready_for is not None else f.ready()
                rev = (events & (POLLIN | POLLOUT | POLLRDHUP)) & r
                rev |= r & (POLLERR | POLLHUP)          # reported whether asked for or not
                if isinstance(f, PipeEnd) and f.readable and f.pipe.writers == 0:
                    rev |= POLLHUP
                if isinstance(f, PipeEnd) and f.writable and f.pipe.readers == 0:
                    rev |= POLLERR
        if rev:
            ready += 1
        out.append(rev)
    return ready, out


def _poll(proc, fds_addr, nfds, timeout_ns):
    if nfds > 4096:
        return -E.EINVAL
    raw = proc.aspace.read(fds_addr, 8 * nfds) if nfds else b""
    entries = []
    for i in range(nfds):
        p = POLLFD.unpack(raw[8 * i:8 * i + 8])
        entries.append((p["fd"], p["events"] & 0xFFFF))
    ready, revs = _poll_once(proc, entries)
    if not ready and timeout_ns != 0:
        proc.kernel.sched.wait_for_poll(proc, timeout_ns)
        ready, revs = _poll_once(proc, entries)
    for i, rev in enumerate(revs):
        proc.aspace.write(fds_addr + 8 * i + 6, struct.pack("<h", rev - (1 << 16) if rev >= 1 << 15 else rev))
    return ready


def sys_poll(proc, fds, nfds, timeout, *_):
    t = s32(timeout)
    return _poll(proc, fds, nfds, -1 if t < 0 else t * 1_000_000)


def sys_ppoll(proc, fds, nfds, tsp, *_):
    t = -1
    if tsp:
        ts = TIMESPEC.unpack(proc.aspace.read(tsp, 16))
        t = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    return _poll(proc, fds, nfds, t)


def _select(proc, nfds, rfds, wfds, efds, timeout_ns):
    if s32(nfds) < 0 or nfds > 1024:
        return -E.EINVAL
    nbytes = ((nfds + 63) // 64) * 8
    sets = [int.from_bytes(proc.aspace.read(a, nbytes), "little") if a else 0 for a in (rfds, wfds, efds)]
    entries = []
    for fd in range(nfds):
        ev = (POLLIN if sets[0] >> fd & 1 else 0) | (POLLOUT if sets[1] >> fd & 1 else 0)
        if ev:
            if fd not in proc.fds.fds:
                return -E.EBADF
            entries.append((fd, ev))
    ready, revs = _poll_once(proc, entries)
    if not ready and timeout_ns:
        proc.kernel.sched.wait_for_poll(proc, timeout_ns)
        ready, revs = _poll_once(proc, entries)
    outs = [0, 0, 0]
    count = 0
    for (fd, ev), rev in zip(entries, revs):
        if rev & (POLLIN | POLLHUP | POLLERR) and ev & POLLIN:
            outs[0] |= 1 << fd
            count += 1
        if rev & (POLLOUT | POLLERR) and ev & POLLOUT:
            outs[1] |= 1 << fd
            count += 1
    for a, v in zip((rfds, wfds, efds), outs):
        if a:
            proc.aspace.write(a, v.to_bytes(nbytes, "little"))
    return count


def sys_select(proc, nfds, r, w, e, tv, *_):
    t = -1
    if tv:
        sec, usec = struct.unpack("<qq", proc.aspace.read(tv, 16))
        t = sec * 10**9 + usec * 1000
    return _select(proc, nfds, r, w, e, t)


def sys_pselect6(proc, nfds, r, w, e, tsp, *_):
    t = -1
    if tsp:
        ts = TIMESPEC.unpack(proc.aspace.read(tsp, 16))
        t = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    return _select(proc, nfds, r, w, e, t)
