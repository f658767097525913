"""splice, tee, vmsplice: moving bytes to and from a pipe without a user buffer.

splice moves up to `len` bytes between a pipe and any fd (or two pipes), at an explicit
offset (loff_t pointer, updated) or the file position; tee copies between two pipes without
consuming; vmsplice moves between a pipe and the caller's memory. Bytes are taken from the
source only as far as the destination accepts them, so nothing is lost on a short write.
Blocking follows the pipe: SPLICE_F_NONBLOCK or O_NONBLOCK give EAGAIN, otherwise the thread
waits for the pipe that is empty (or full).
"""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.files import Pipe, PipeEnd, WouldBlock
from emutrace.kernel.rw import MAX_RW_COUNT, _cut, _iovecs, raise_sigpipe
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import (O_APPEND, O_NONBLOCK, SPLICE_F_GIFT, SPLICE_F_MORE, SPLICE_F_MOVE, SPLICE_F_NONBLOCK)

SPLICE_F_ALL = SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | SPLICE_F_GIFT


class _Blocked(Exception):
    """The transfer would block on this open file (an empty or a full pipe, a socket)."""

    def __init__(self, f):
        super().__init__(f.path)
        self.f = f


def _run(proc, flags: int, op) -> int:
    """op() or, when it would block, EAGAIN (non-blocking) or a wait for the file it blocks on."""
    try:
        return op()
    except _Blocked as b:
        if flags & SPLICE_F_NONBLOCK or b.f.flags & O_NONBLOCK:
            return -E.EAGAIN
        proc.kernel.sched.wait_for_io(proc, b.f)         # raises Block: the call runs again when ready
        raise VfsError(E.EDEADLK) from None
    except VfsError as e:
        if e.errno == E.EPIPE:
            raise_sigpipe(proc)
        raise


def _pipe_room(end: PipeEnd) -> int:
    p = end.pipe
    if p.readers == 0:
        raise VfsError(E.EPIPE)
    room = Pipe.CAPACITY - len(p.buf)
    if room <= 0:
        raise _Blocked(end)
    return room


def _pipe_data(end: PipeEnd, n: int) -> bytes:
    """Up to n bytes at the head of the pipe, not yet taken; b"" at end of file."""
    p = end.pipe
    if not p.buf:
        if p.writers == 0:
            return b""
        raise _Blocked(end)
    return bytes(p.buf[:n])


def _read_off(proc, addr: int) -> int:
    off = s64(struct.unpack("<q", proc.aspace.read(addr, 8))[0])
    if off < 0:
        raise VfsError(E.EINVAL)
    return off


def _ends(proc, fd_in, fd_out, flags):
    """The two files of a splice or tee, after the checks Linux makes first on both calls."""
    if flags & ~SPLICE_F_ALL:
        raise VfsError(E.EINVAL)
    fin, fout = proc.fds.get(s32(fd_in)), proc.fds.get(s32(fd_out))
    if not fin.readable or not fout.writable:
        raise VfsError(E.EBADF)
    return fin, fout


def sys_splice(proc, fd_in, off_in, fd_out, off_out, length, flags, *_):
    if not length:
        return 0
    fin, fout = _ends(proc, fd_in, fd_out, flags)
    pin, pout = isinstance(fin, PipeEnd), isinstance(fout, PipeEnd)
    if not pin and not pout:
        return -E.EINVAL
    if (pin and off_in) or (pout and off_out):
        return -E.ESPIPE
    if pin and pout and fin.pipe is fout.pipe:
        return -E.EINVAL
    if (off_in and not fin.seekable) or (off_out and not fout.seekable):
        return -E.EINVAL
    if pin and not pout and fout.flags & O_APPEND:
        return -E.EINVAL                         # Linux refuses to splice into an O_APPEND file
    n = min(length, MAX_RW_COUNT)
    src_off = _read_off(proc, off_in) if off_in else None
    dst_off = _read_off(proc, off_out) if off_out else None

    def move() -> int:
        if pin:
            data = _pipe_data(fin, n)
            if pout:
                data = data[:_pipe_room(fout)]
            if not data:
                return 0
            try:
                done = fout.pwrite(data, dst_off) if dst_off is not None else fout.write(data)
            except WouldBlock:
                raise _Blocked(fout) from None
            del fin.pipe.buf[:done]
        else:                                    # a file or socket into a pipe
            room = _pipe_room(fout)
            try:
                data = fin.pread(min(n, room), src_off) if src_off is not None else fin.read(min(n, room))
            except WouldBlock:
                raise _Blocked(fin) from None
            done = fout.pipe.put(data) if data else 0
        if src_off is not None:
            proc.aspace.write(off_in, struct.pack("<q", src_off + done))
        if dst_off is not None:
            proc.aspace.write(off_out, struct.pack("<q", dst_off + done))
        return done

    return _run(proc, flags, move)


def sys_tee(proc, fd_in, fd_out, length, flags, *_):
    if not length:
        return 0
    fin, fout = _ends(proc, fd_in, fd_out, flags)
    if not isinstance(fin, PipeEnd) or not isinstance(fout, PipeEnd) or fin.pipe is fout.pipe:
        return -E.EINVAL

    def copy() -> int:
        data = _pipe_data(fin, min(length, MAX_RW_COUNT))
        if not data:
            return 0
        return fout.pipe.put(data[:_pipe_room(fout)])

    return _run(proc, flags, copy)


def sys_vmsplice(proc, fd, iov, nr_segs, flags, *_):
    if flags & ~SPLICE_F_ALL:
        return -E.EINVAL
    f = proc.fds.get(s32(fd))
    if not isinstance(f, PipeEnd):
        return -E.EBADF
    segs = _iovecs(proc, iov, nr_segs)           # EINVAL past UIO_MAXIOV
    if not segs:
        return 0
    if f.writable:
        # (no more than a pipe can ever hold is read from the guest: vmsplice moves what fits)
        most = proc.kernel.limits.max["pipe_size"]
        data = b"".join(proc.aspace.read(b, n) for b, n in _cut(segs, most) if n)
        if not data:
            return 0
        return _run(proc, flags, lambda: f.pipe.put(data[:_pipe_room(f)]))

    def scatter() -> int:
        want = sum(n for _, n in segs)
        data = _pipe_data(f, want)
        done = 0
        for base, n in segs:
            if done >= len(data):
                break
            part = data[done:done + n]
            proc.aspace.write(base, part)
            done += len(part)
        del f.pipe.buf[:done]
        return done

    return _run(proc, flags, scatter)
