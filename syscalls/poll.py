"""poll, ppoll, select, pselect6: readiness of descriptors, shared with epoll and the scheduler."""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import PipeEnd
from emutrace.kernel.layouts import POLLFD, TIMESPEC
from emutrace.linux.poll import (POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, POLLPRI, POLLRDHUP, POLLRDNORM,
                                 POLLWRNORM)



def _pipe_poll(f) -> int:
    """Linux's pipe_poll: a read end is readable with data and hung up when no writer is left;
    a write end is writable with room and in error when no reader is left; neither end reports
    what only the other end can do (a read end is never POLLOUT)."""
    p, r = f.pipe, 0
    if f.readable:
        r |= (POLLIN | POLLRDNORM if p.buf else 0) | (POLLHUP if p.writers == 0 else 0)
    if f.writable:
        r |= (POLLOUT | POLLWRNORM if p.room() > 0 else 0) | (POLLERR if p.readers == 0 else 0)
    return r


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
                r = _pipe_poll(f) if isinstance(f, PipeEnd) else \
                    ready_for(proc) if ready_for is not None else f.ready()
                rev = (events & (POLLIN | POLLOUT | POLLRDHUP | POLLRDNORM | POLLWRNORM)) & r
                rev |= r & (POLLERR | POLLHUP)          # reported whether asked for or not
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


def _timeout(sec: int, nsec: int) -> int:
    """Linux's poll_select_set_timeout: nanoseconds, or -EINVAL for a negative or denormal time
    (timespec64_valid), returned as a negative number the caller passes on."""
    if sec < 0 or not 0 <= nsec < 10**9:
        return -E.EINVAL
    return sec * 10**9 + nsec


def _sigmask_ok(sigmask: int, size: int) -> bool:
    """set_user_sigmask's check: a mask, when given, is exactly a sigset_t (8 bytes)."""
    return not sigmask or size == 8


def _left(proc, timeout_ns: int) -> int:
    """poll_select_finish: what is left of the timeout when the call returns (all of it when it
    did not wait; the virtual clock does not move inside a call)."""
    prev = proc.kernel.sched.previous_wait(proc.thread)
    if prev is not None and prev.deadline is not None:
        return max(0, prev.deadline - proc.kernel.sched.now())
    return timeout_ns


def sys_ppoll(proc, fds, nfds, tsp, sigmask=0, sigsetsize=0, *_):
    t = -1
    if tsp:
        ts = TIMESPEC.unpack(proc.aspace.read(tsp, 16))          # EFAULT first, as Linux
        t = _timeout(ts["tv_sec"], ts["tv_nsec"])
        if t < -1:
            return t
    if not _sigmask_ok(sigmask, sigsetsize):
        return -E.EINVAL
    nfds &= 0xFFFFFFFF                                           # (an unsigned int)
    if nfds > proc.rlimit(7):                                    # RLIMIT_NOFILE
        return -E.EINVAL
    ready = _poll(proc, fds, nfds, t)
    if t > 0 and ready >= 0:
        left = _left(proc, t)
        proc.aspace.write(tsp, TIMESPEC.pack(tv_sec=left // 10**9, tv_nsec=left % 10**9))
    return ready


def _max_fds(proc) -> int:
    """The size of Linux's fd table: 64 slots, grown to a power of two times 128 to hold the
    highest descriptor (expand_fdtable); select looks no further."""
    top = max(proc.fds.fds, default=0)
    if top < 64:
        return 64
    n = 1
    while n <= top // 128:
        n *= 2
    return n * 128


def _select(proc, nfds, rfds, wfds, efds, timeout_ns):
    nfds = s32(nfds)                                  # (an int: the upper half is not seen)
    if nfds < 0:
        return -E.EINVAL
    nfds = min(nfds, _max_fds(proc))
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
        # (C's division: a negative usec gives a negative nsec, which is invalid)
        q = abs(usec) // 10**6 * (1 if usec >= 0 else -1)
        t = _timeout(sec + q, (usec - q * 10**6) * 1000)
        if t < -1:
            return t
    n = _select(proc, nfds, r, w, e, t)
    if t > 0 and n >= 0:
        left = _left(proc, t)
        proc.aspace.write(tv, struct.pack("<qq", left // 10**9, left % 10**9 // 1000))
    return n


def sys_pselect6(proc, nfds, r, w, e, tsp, sig=0, *_):
    t = -1
    if tsp:
        ts = TIMESPEC.unpack(proc.aspace.read(tsp, 16))
        t = _timeout(ts["tv_sec"], ts["tv_nsec"])
        if t < -1:
            return t
    if sig:
        mask, size = struct.unpack("<QQ", proc.aspace.read(sig, 16))
        if not _sigmask_ok(mask, size):
            return -E.EINVAL
    n = _select(proc, nfds, r, w, e, t)
    if t > 0 and n >= 0:
        left = _left(proc, t)
        proc.aspace.write(tsp, TIMESPEC.pack(tv_sec=left // 10**9, tv_nsec=left % 10**9))
    return n
