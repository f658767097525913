"""read, write and their vector, positioned and copying forms; the blocking of a descriptor that
would block, RLIMIT_FSIZE, SIGPIPE; fsync, fallocate, truncate."""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.files import UNREADABLE, HostFile, OpenFile, PipeEnd, WouldBlock
from emutrace.linux.fcntl import O_APPEND, O_NONBLOCK, O_WRONLY
from emutrace.kernel.fs import resolve_at, open_node
from emutrace.linux.fcntl import AT_FDCWD
from emutrace.kernel.layouts import IOVEC
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import S_IFREG
from emutrace.linux.resource import RLIMIT_FSIZE, RLIM_INFINITY
from emutrace.linux.signal import SIGXFSZ


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


def _at_offset(proc, fd, off, right: str):
    """pread's and pwrite's checks, in Linux's order: the descriptor open for `right`
    ("readable" or "writable"), seekable, and a non-negative offset. The file, or -errno."""
    f = proc.fds.get(s32(fd))
    if not getattr(f, right):
        return -E.EBADF
    if not f.seekable:
        return -E.ESPIPE
    if s64(off) < 0:
        return -E.EINVAL
    return f


def sys_pread(proc, fd, buf, count, off, *_):
    f = _at_offset(proc, fd, off, "readable")
    if isinstance(f, int):
        return f
    data = f.pread(min(count, TRANSFER_PIECE), off)
    proc.aspace.write(buf, data)
    return len(data)


MAX_LFS_FILESIZE = (1 << 63) - 1          # the largest offset a Linux regular file reaches


def sys_pwrite(proc, fd, buf, count, off, *_):
    f = _at_offset(proc, fd, off, "writable")
    if isinstance(f, int):
        return f
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


def _read_from(proc, f, count: int, offp: int) -> bytes:
    """sendfile's and copy_file_range's input: count bytes of f at the offset *offp holds (moved
    past them; the file's position stays), or at its position when offp is NULL."""
    if not offp:
        return f.read(count)
    off = proc.aspace.read_u64(offp)
    data = f.pread(count, off)
    proc.aspace.write_u64(offp, off + len(data))
    return data


def sys_sendfile(proc, out_fd, in_fd, offp, count, *_):
    fin, fout = proc.fds.get(s32(in_fd)), proc.fds.get(s32(out_fd))
    data = _read_from(proc, fin, min(count, TRANSFER_PIECE), offp)
    data = data[:fsize_room(proc, fout, _write_pos(fout), len(data))]
    return fout.write(data) if data else 0


def sys_copy_file_range(proc, in_fd, off_in, out_fd, off_out, length, flags):
    fin, fout = proc.fds.get(s32(in_fd)), proc.fds.get(s32(out_fd))
    if not fin.seekable or not fout.seekable or isinstance(fin, HostFile) is False and fin.kind != "file":
        return -E.EXDEV
    data = _read_from(proc, fin, min(length, TRANSFER_PIECE), off_in)
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
