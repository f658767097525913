"""pidfd_open, pidfd_send_signal, pidfd_getfd: a process named by a file descriptor.

A pidfd is readable (POLLIN) once its process has exited, so an event loop can wait for a
child with poll/epoll; it keeps naming that process, never a later one with the same pid.
"""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.anonfd import AnonInodeFile, install
from emutrace.kernel.dispatch import s32
from emutrace.kernel.layouts import SIGINFO
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import O_NONBLOCK
from emutrace.linux.poll import POLLIN
from emutrace.linux.signal import NSIG, SI_TKILL, SI_USER

PIDFD_NONBLOCK = O_NONBLOCK


class PidFd(AnonInodeFile):
    kind = "pidfd"

    def __init__(self, kernel, target, flags: int):
        super().__init__(kernel, flags & O_NONBLOCK)
        self.target = target

    def ready(self) -> int:
        return POLLIN if self.target.exit is not None else 0

    def read(self, n):
        raise VfsError(E.EINVAL)

    def seek(self, off, whence):
        raise VfsError(E.ESPIPE)             # (pidfds have no llseek at all)

    def write(self, data):
        raise VfsError(E.EINVAL)


def _process(proc, pid: int):
    return next((p for p in proc.kernel.sched.procs if p.pid == pid and not p.reaped), None)


def pidfd_of(proc, fd) -> PidFd:
    """The PidFd behind fd: EBADF for no fd and for an fd that is not a pidfd."""
    f = proc.fds.get(s32(fd))
    if not isinstance(f, PidFd):
        raise VfsError(E.EBADF)
    return f


def sys_pidfd_open(proc, pid, flags, *_):
    pid, flags = s32(pid), flags & 0xFFFFFFFF
    if flags & ~PIDFD_NONBLOCK or pid <= 0:
        return -E.EINVAL
    target = _process(proc, pid)
    if target is None:
        # a thread id that is not a process's: Linux 6.1 refuses it so
        return -E.EINVAL if proc.kernel.sched.find_thread(pid) is not None else -E.ESRCH
    return install(proc, PidFd(proc.kernel, target, flags), True)      # always close-on-exec


def sys_pidfd_send_signal(proc, fd, sig, info, flags, *_):
    if flags & 0xFFFFFFFF:
        return -E.EINVAL                       # (the PIDFD_SIGNAL_* flags are Linux 6.9's; this is 6.1)
    target = pidfd_of(proc, fd).target
    sig = s32(sig)
    if not 0 <= sig <= NSIG:
        return -E.EINVAL
    if target.exit is not None:
        return 0                               # a zombie takes (and drops) signals, as kill() to it
    if info:
        si = SIGINFO.unpack(proc.aspace.read(info, SIGINFO.size))
        if si["si_signo"] != sig:
            return -E.EINVAL
        # only the kernel and the process itself may claim to be other senders (as rt_sigqueueinfo)
        if target is not proc and (si["si_code"] >= 0 or si["si_code"] == SI_TKILL):
            return -E.EPERM
        sent = {"si_signo": sig, "si_code": si["si_code"], "si_pid": si["si_pid"], "si_uid": si["si_uid"],
                "si_value": si["si_value"]}
    else:
        sent = {"si_signo": sig, "si_code": SI_USER, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid}
    if sig:
        target.queue_signal(sent)
    return 0


def sys_pidfd_getfd(proc, pidfd, targetfd, flags, *_):
    if flags & 0xFFFFFFFF:
        return -E.EINVAL
    target = pidfd_of(proc, pidfd).target
    if target.exit is not None or target.fds is None:
        return -E.ESRCH
    f = target.fds.get(s32(targetfd))                  # EBADF
    proc.fds.limit = min(proc.rlimit(7), 1 << 20)
    return proc.fds.install(f, cloexec=True)           # the new fd is always close-on-exec
