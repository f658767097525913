"""POSIX message queues: mq_open, mq_unlink, mq_timedsend, mq_timedreceive, mq_notify,
mq_getsetattr. Queues live in the run's own mqueue namespace (empty at its start), shared by
every emulated process; a queue descriptor is a file descriptor that poll, select and epoll
watch (readable: a message waits; writable: there is room). Timeouts are absolute
CLOCK_REALTIME times on the virtual clock. Messages leave highest priority first, FIFO within a
priority. mq_notify fires when a message reaches an empty queue that no receiver waits on:
SIGEV_SIGNAL queues the signal (si_code SI_MESGQ); SIGEV_THREAD sends the registration's cookie
to the netlink socket given as its sigev_signo (NOTIFY_WOKENUP), where the C library's helper
thread waits and starts the callback thread; a registration removed unfired (mq_notify(NULL),
or a close of the queue by its owner) sends NOTIFY_REMOVED instead, as Linux does.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.files import CLOSE_HOOKS, OpenFile
from emutrace.kernel.layouts import TIMESPEC
from emutrace.kernel.netlink import NetlinkSocket
from emutrace.kernel.wait import Block, Wait
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.linux.fcntl import O_ACCMODE, O_CLOEXEC, O_CREAT, O_EXCL, O_NONBLOCK, O_RDONLY, O_WRONLY
from emutrace.linux.signal import SIGEV_NONE, SIGEV_SIGNAL, SIGEV_THREAD, SIGEV_THREAD_ID, SI_MESGQ

MQ_ATTR = struct.Struct("<qqqq32x")               # struct mq_attr: flags, maxmsg, msgsize, curmsgs
SIGEVENT = struct.Struct("<Qii")                  # sigev_value, sigev_signo, sigev_notify
# the cookie a SIGEV_THREAD registration hands the kernel, and what its last byte then says
NOTIFY_COOKIE_LEN, NOTIFY_WOKENUP, NOTIFY_REMOVED = 32, 1, 2
MQ_PRIO_MAX = 32768
NAME_MAX = 255
# /proc/sys/fs/mqueue defaults and the hard ceilings a privileged process may go up to
DFLT_MAXMSG, DFLT_MSGSIZE = 10, 8192
MSG_MAX, MSGSIZE_MAX = 10, 8192
HARD_MSGMAX, HARD_MSGSIZEMAX = 65536, 16 << 20
QUEUES_MAX = 256


class Notification:
    """One mq_notify registration: who made it, and how it is delivered."""

    def __init__(self, owner, notify: int, signo: int, value: int, sock=None, cookie: bytes = b""):
        self.owner, self.notify, self.signo, self.value = owner, notify, signo, value
        self.sock, self.cookie = sock, cookie          # SIGEV_THREAD: the netlink socket and cookie

    def send_cookie(self, state: int) -> None:
        if self.sock is not None:
            self.sock.deliver(self.cookie[:NOTIFY_COOKIE_LEN - 1] + bytes((state,)))

    def fire(self, sender) -> None:
        if self.owner.exit is not None:
            return
        if self.notify == SIGEV_SIGNAL:
            self.owner.queue_signal({"si_signo": self.signo, "si_code": SI_MESGQ, "si_pid": sender.pid,
                                     "si_uid": sender.kernel.world.uid, "si_value": self.value})
        elif self.notify == SIGEV_THREAD:
            self.send_cookie(NOTIFY_WOKENUP)


class Queue:
    def __init__(self, maxmsg: int, msgsize: int, mode: int, ino: int):
        self.maxmsg, self.msgsize, self.mode, self.ino = maxmsg, msgsize, mode, ino
        self.messages: List[tuple] = []           # (priority, data), best first
        self.notify: Optional[Notification] = None
        self.sleepers = []                        # (thread, Wait) of mq_timedreceive calls asleep

    def receiver_waits(self) -> bool:
        self.sleepers = [(t, w) for t, w in self.sleepers if t.wait is w]
        return bool(self.sleepers)

    def put(self, prio: int, data: bytes) -> None:
        i = len(self.messages)
        while i > 0 and self.messages[i - 1][0] < prio:
            i -= 1
        self.messages.insert(i, (prio, data))


class MqFile(OpenFile):
    kind = "mqueue"
    seekable = False

    def __init__(self, queue: Queue, name: str, flags: int):
        super().__init__(f"/{name}", flags, None)
        self.queue = queue

    def ready(self) -> int:
        q = self.queue
        return (1 if q.messages else 0) | (4 if len(q.messages) < q.maxmsg else 0)

    def stat(self):
        return StatInfo(mode=0o100000 | self.queue.mode, ino=self.queue.ino, dev=0x13, blksize=4096)

    def read(self, n):
        raise VfsError(E.EINVAL)

    def write(self, data):
        raise VfsError(E.EINVAL)


def _names(kernel) -> Dict[str, Queue]:
    names = kernel.mqueues
    if names is None:
        names = kernel.mqueues = {}
    return names


def _name(proc, addr) -> str:
    raw = proc.aspace.read_cstr(addr, NAME_MAX + 2)
    if len(raw) > NAME_MAX:
        raise VfsError(E.ENAMETOOLONG)
    if not raw:
        raise VfsError(E.ENOENT)
    if b"/" in raw:
        raise VfsError(E.EACCES)
    return raw.decode("utf-8", "surrogateescape")


def _mqd(proc, fd) -> MqFile:
    f = proc.fds.fds.get(s32(fd))
    if not isinstance(f, MqFile):
        raise VfsError(E.EBADF)
    return f


def _abs_deadline(proc, addr) -> Optional[int]:
    """An absolute CLOCK_REALTIME timeout as a monotonic deadline on the scheduler's clock."""
    if not addr:
        return None
    ts = TIMESPEC.unpack(proc.aspace.read(addr, 16))
    if ts["tv_sec"] < 0 or not 0 <= ts["tv_nsec"] < 10**9:
        raise VfsError(E.EINVAL)
    world = proc.kernel.world
    return world.monotonic_ns() + (ts["tv_sec"] * 10**9 + ts["tv_nsec"] - world.realtime_ns())


def sys_mq_open(proc, name, oflag, mode, attr, *_):
    name, oflag = _name(proc, name), s32(oflag)
    names = _names(proc.kernel)
    if oflag & ~(O_ACCMODE | O_CREAT | O_EXCL | O_NONBLOCK | O_CLOEXEC) or oflag & O_ACCMODE == O_ACCMODE:
        return -E.EINVAL
    q = names.get(name)
    if q is not None and oflag & O_CREAT and oflag & O_EXCL:
        return -E.EEXIST
    if q is None:
        if not oflag & O_CREAT:
            return -E.ENOENT
        privileged = proc.kernel.world.uid == 0
        maxmsg, msgsize = DFLT_MAXMSG, DFLT_MSGSIZE
        if attr:
            _, maxmsg, msgsize, _ = MQ_ATTR.unpack(proc.aspace.read(attr, MQ_ATTR.size))
            if maxmsg <= 0 or msgsize <= 0:
                return -E.EINVAL
            if maxmsg > (HARD_MSGMAX if privileged else MSG_MAX) or \
                    msgsize > (HARD_MSGSIZEMAX if privileged else MSGSIZE_MAX):
                return -E.EINVAL if privileged else -E.EPERM
        if len(names) >= QUEUES_MAX:
            return -E.ENOSPC
        q = names[name] = Queue(maxmsg, msgsize, mode & 0o777 & ~proc.umask, proc.kernel.vfs.new_ino())
    f = MqFile(q, name, (oflag & (O_ACCMODE | O_NONBLOCK)))
    return proc.fds.install(f, cloexec=bool(oflag & O_CLOEXEC))


def sys_mq_unlink(proc, name, *_):
    name = _name(proc, name)
    if _names(proc.kernel).pop(name, None) is None:
        return -E.ENOENT
    return 0


def _block(proc, f: MqFile, what: str, ready, deadline):
    if deadline is not None and proc.kernel.sched.now() >= deadline:
        return -E.ETIMEDOUT
    raise Block(Wait("mqueue", f"{what} on {f.path}", proc.thread, deadline=deadline, ready=ready,
                     timeout_result=-E.ETIMEDOUT, restart="sys"))



def sys_mq_timedsend(proc, fd, msg, length, prio, timeout, *_):
    f = _mqd(proc, fd)
    if f.flags & O_ACCMODE == O_RDONLY:
        return -E.EBADF
    q = f.queue
    length, prio = s64(length), prio & 0xFFFFFFFF
    if prio >= MQ_PRIO_MAX:
        return -E.EINVAL
    if length < 0 or length > q.msgsize:
        return -E.EMSGSIZE
    deadline = _abs_deadline(proc, timeout)
    data = proc.aspace.read(msg, length)
    if len(q.messages) >= q.maxmsg:
        if f.flags & O_NONBLOCK:
            return -E.EAGAIN
        return _block(proc, f, "mq_timedsend", lambda: len(q.messages) < q.maxmsg, deadline)
    was_empty = not q.messages
    q.put(prio, data)
    if was_empty and q.notify is not None and not q.receiver_waits():
        note, q.notify = q.notify, None           # one notification per registration
        note.fire(proc)
    return 0


def sys_mq_timedreceive(proc, fd, msg, length, prio_ptr, timeout, *_):
    f = _mqd(proc, fd)
    if f.flags & O_ACCMODE == O_WRONLY:
        return -E.EBADF
    q = f.queue
    if s64(length) < q.msgsize:
        return -E.EMSGSIZE
    deadline = _abs_deadline(proc, timeout)
    if not q.messages:
        if f.flags & O_NONBLOCK:
            return -E.EAGAIN
        if deadline is not None and proc.kernel.sched.now() >= deadline:
            return -E.ETIMEDOUT
        w = Wait("mqueue", f"mq_timedreceive on {f.path}", proc.thread, deadline=deadline,
                 ready=lambda: bool(q.messages), timeout_result=-E.ETIMEDOUT, restart="sys")
        q.sleepers.append((proc.thread, w))
        raise Block(w)
    prio, data = q.messages.pop(0)
    proc.aspace.write(msg, data)
    if prio_ptr:
        proc.aspace.write_u32(prio_ptr, prio)
    return len(data)


def sys_mq_notify(proc, fd, sevp, *_):
    # Linux's order (do_mq_notify): the sigevent, then its netlink socket, then the queue
    sock = cookie = None
    if sevp:
        value, signo, notify = SIGEVENT.unpack(proc.aspace.read(sevp, SIGEVENT.size))
        if notify not in (SIGEV_SIGNAL, SIGEV_NONE, SIGEV_THREAD):
            return -E.EINVAL
        if notify == SIGEV_SIGNAL and not 1 <= signo <= 64:
            return -E.EINVAL
        if notify == SIGEV_THREAD:
            cookie = proc.aspace.read(value, NOTIFY_COOKIE_LEN)     # EFAULT when it is not there
            sock = proc.fds.get(s32(signo))                       # EBADF
            if sock.kind != "socket":
                return -E.ENOTSOCK
            if not isinstance(sock, NetlinkSocket):
                return -E.EINVAL
    q = _mqd(proc, fd).queue
    if not sevp:
        if q.notify is not None and q.notify.owner is proc:
            _remove(q)
        return 0
    if q.notify is not None and q.notify.owner.exit is None:
        return -E.EBUSY
    q.notify = Notification(proc, notify, signo, value, sock, cookie or b"")
    return 0


def _remove(q: Queue) -> None:
    note, q.notify = q.notify, None
    if note.notify == SIGEV_THREAD:
        note.send_cookie(NOTIFY_REMOVED)         # the library frees what the cookie points to


def _on_close(table, f) -> None:
    """Linux's mqueue_flush_file: the owner closing a descriptor of the queue removes its
    registration."""
    if isinstance(f, MqFile) and f.queue.notify is not None and f.queue.notify.owner.fds is table:
        _remove(f.queue)


CLOSE_HOOKS.append(_on_close)


def sys_mq_getsetattr(proc, fd, new, old, *_):
    f = _mqd(proc, fd)
    q = f.queue
    if new:
        flags = MQ_ATTR.unpack(proc.aspace.read(new, MQ_ATTR.size))[0]
        if flags & ~O_NONBLOCK:
            return -E.EINVAL
    if old:
        proc.aspace.write(old, MQ_ATTR.pack(f.flags & O_NONBLOCK, q.maxmsg, q.msgsize, len(q.messages)))
    if new:
        f.flags = (f.flags & ~O_NONBLOCK) | (flags & O_NONBLOCK)
    return 0
