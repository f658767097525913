"""epoll: an interest list over the same readiness that poll uses (level-triggered; EPOLLET and
EPOLLONESHOT are honoured in their effect on what is reported)."""
from __future__ import annotations


from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import OpenFile
from emutrace.kernel.poll import _poll_once
from emutrace.kernel.layouts import EPOLL_EVENT
from emutrace.kernel.time import read_timespec
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_CLOEXEC, O_RDWR
from emutrace.linux.poll import (EPOLLERR, EPOLLHUP, EPOLLIN, EPOLLOUT, EPOLL_CTL_ADD, EPOLL_CTL_DEL, EPOLL_CTL_MOD)

EPOLLONESHOT, EPOLLET = 1 << 30, 1 << 31
EPOLL_CLOEXEC = O_CLOEXEC


class EpollFile(OpenFile):
    kind = "epoll"
    seekable = False

    def __init__(self, ino: int, limits=None):
        super().__init__("anon_inode:[eventpoll]", O_RDWR, None)
        self.ino = ino
        self.interest = {}            # fd → [events, data, disabled]
        self.limits = limits          # each watch counts as one of "epoll_watches" (ENOSPC)

    def close(self):
        if self.limits is not None:
            self.limits.give("epoll_watches", len(self.interest))
        self.interest = {}

    def stat(self):
        return StatInfo(mode=0o600, ino=self.ino, dev=0xE)

    def ready_events(self, proc):
        out = []
        for fd, (events, data, disabled) in list(self.interest.items()):
            if disabled:
                continue
            if fd not in proc.fds.fds:
                continue
            _, revs = _poll_once(proc, [(fd, events & 0xFFFF)])
            rev = revs[0] & (events | EPOLLERR | EPOLLHUP)
            if rev:
                out.append((fd, rev, data))
        return out

    def ready(self):
        return 0


def _epoll(proc, epfd) -> EpollFile:
    f = proc.fds.get(s32(epfd))
    if not isinstance(f, EpollFile):
        raise_einval()
    return f


def raise_einval():
    raise VfsError(E.EINVAL)


def sys_epoll_create(proc, size, *_):
    if s32(size) <= 0:
        return -E.EINVAL
    return proc.fds.install(EpollFile(proc.kernel.vfs.new_ino(), proc.kernel.limits))


def sys_epoll_create1(proc, flags, *_):
    if flags & ~EPOLL_CLOEXEC:
        return -E.EINVAL
    return proc.fds.install(EpollFile(proc.kernel.vfs.new_ino(), proc.kernel.limits), cloexec=bool(flags & EPOLL_CLOEXEC))


def sys_epoll_ctl(proc, epfd, op, fd, event, *_):
    ep = _epoll(proc, epfd)
    fd = s32(fd)
    target = proc.fds.get(fd)
    if target is ep:
        return -E.EINVAL
    if op == EPOLL_CTL_DEL:
        if fd not in ep.interest:
            return -E.ENOENT
        del ep.interest[fd]
        if ep.limits is not None:
            ep.limits.give("epoll_watches")
        return 0
    ev = EPOLL_EVENT.unpack(proc.aspace.read(event, EPOLL_EVENT.size))
    if op == EPOLL_CTL_ADD:
        if fd in ep.interest:
            return -E.EEXIST
        if ep.limits is not None:
            ep.limits.take("epoll_watches")          # fs.epoll.max_user_watches: ENOSPC
        ep.interest[fd] = [ev["events"], ev["data"], False]
        return 0
    if op == EPOLL_CTL_MOD:
        if fd not in ep.interest:
            return -E.ENOENT
        ep.interest[fd] = [ev["events"], ev["data"], False]
        return 0
    return -E.EINVAL


def _wait(proc, epfd, events, maxevents, timeout_ns):
    ep = _epoll(proc, epfd)
    if s32(maxevents) <= 0:
        return -E.EINVAL
    ready = ep.ready_events(proc)
    if not ready and timeout_ns != 0:
        proc.kernel.sched.wait_for_poll(proc, timeout_ns)
        ready = ep.ready_events(proc)
    ready = ready[:s32(maxevents)]
    for i, (fd, rev, data) in enumerate(ready):
        proc.aspace.write(events + EPOLL_EVENT.size * i, EPOLL_EVENT.pack(events=rev, data=data))
        if ep.interest[fd][0] & EPOLLONESHOT:
            ep.interest[fd][2] = True
    return len(ready)


def sys_epoll_wait(proc, epfd, events, maxevents, timeout, *_):
    t = s32(timeout)
    return _wait(proc, epfd, events, maxevents, -1 if t < 0 else t * 1_000_000)


def sys_epoll_pwait(proc, epfd, events, maxevents, timeout, *_):
    t = s32(timeout)
    return _wait(proc, epfd, events, maxevents, -1 if t < 0 else t * 1_000_000)


def sys_epoll_pwait2(proc, epfd, events, maxevents, tsp, *_):
    try:
        ns = read_timespec(proc, tsp) if tsp else -1
    except ValueError:
        return -E.EINVAL
    return _wait(proc, epfd, events, maxevents, ns)
