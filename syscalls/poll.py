"""poll, ppoll, select, pselect6: readiness of descriptors, shared with epoll and the scheduler."""
from __future__ import annotations

import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import PipeEnd
from emutrace.kernel.layouts import POLLFD, TIMESPEC
from emutrace.linux.poll import POLLERR, POLLHUP, POLLIN, POLLNVAL, POLLOUT, POLLPRI, POLLRDHUP



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
