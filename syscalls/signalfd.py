"""signalfd/signalfd4: pending signals of a mask, read as signalfd_siginfo records.

The signals are taken off the reading thread's queue, then its process's (as Linux's
dequeue_signal does), so a program blocks them with sigprocmask and reads them here instead of
running handlers. The fd is readable while such a signal is pending for the process that
reads (or polls) it. A signalfd passed across fork reads the child's own signals.
"""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.kernel.anonfd import AnonInodeFile, install
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import WouldBlock
from emutrace.kernel.layouts import SIGNALFD_SIGINFO
from emutrace.kernel.signals import bit
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import O_CLOEXEC, O_NONBLOCK
from emutrace.linux.poll import POLLIN
from emutrace.linux.signal import SIGKILL, SIGSTOP

SFD_CLOEXEC, SFD_NONBLOCK = O_CLOEXEC, O_NONBLOCK
UNBLOCKABLE = bit(SIGKILL) | bit(SIGSTOP)

# siginfo (the kernel's queue entries) field -> signalfd_siginfo field
_SSI_FIELDS = (("si_signo", "ssi_signo"), ("si_errno", "ssi_errno"), ("si_code", "ssi_code"),
               ("si_pid", "ssi_pid"), ("si_uid", "ssi_uid"), ("si_timerid", "ssi_tid"),
               ("si_overrun", "ssi_overrun"), ("si_status", "ssi_status"), ("si_utime", "ssi_utime"),
               ("si_stime", "ssi_stime"), ("si_addr", "ssi_addr"), ("si_value", "ssi_ptr"))


def pack_ssi(info: dict) -> bytes:
    vals = {ssi: info[si] for si, ssi in _SSI_FIELDS if si in info}
    if "si_value" in info:
        v = info["si_value"] & 0xFFFFFFFF
        vals["ssi_int"] = v - (1 << 32) if v >> 31 else v
    for k in ("ssi_utime", "ssi_stime", "ssi_addr", "ssi_ptr"):
        if k in vals:
            vals[k] &= 0xFFFFFFFFFFFFFFFF
    return SIGNALFD_SIGINFO.pack(vals)


class SignalFd(AnonInodeFile):
    kind = "signalfd"

    def __init__(self, kernel, mask: int, flags: int, proc):
        super().__init__(kernel, flags & O_NONBLOCK)
        self.mask = mask
        self.reader = proc          # the process that last read or polled it (readiness when blocked)

    def _queues(self, proc):
        return (proc.thread.pending, proc.pending)

    def ready_for(self, proc) -> int:
        self.reader = proc
        return POLLIN if any(self.mask & bit(i["si_signo"]) for q in self._queues(proc) for i in q) else 0

    def ready(self) -> int:
        return self.ready_for(self.reader)

    def read(self, n: int) -> bytes:
        if n < SIGNALFD_SIGINFO.size:
            raise VfsError(E.EINVAL)
        proc = self.kernel.current or self.reader    # the thread reading
        self.reader = proc
        out = []
        room = n // SIGNALFD_SIGINFO.size
        for q in self._queues(proc):          # the thread's own signals first, as Linux
            while len(out) < room:
                # the lowest-numbered signal of the mask first; one number's entries in order
                cands = [k for k, i in enumerate(q) if self.mask & bit(i["si_signo"])]
                if not cands:
                    break
                k = min(cands, key=lambda k: q[k]["si_signo"])
                out.append(pack_ssi(q.pop(k)))
        if not out:
            raise WouldBlock()
        return b"".join(out)

    def write(self, data: bytes) -> int:
        raise VfsError(E.EINVAL)


def _signalfd(proc, fd, mask_addr, size, flags) -> int:
    if size != 8 or flags & ~(SFD_CLOEXEC | SFD_NONBLOCK):
        return -E.EINVAL
    mask = proc.aspace.read_u64(mask_addr) & ~UNBLOCKABLE
    fd = s32(fd)
    if fd != -1:
        f = proc.fds.get(fd)                    # EBADF
        if not isinstance(f, SignalFd):
            return -E.EINVAL
        f.mask = mask                           # a new mask for the same fd; flags are ignored
        return fd
    return install(proc, SignalFd(proc.kernel, mask, flags, proc), bool(flags & SFD_CLOEXEC))


def sys_signalfd(proc, fd, mask, size, *_):
    return _signalfd(proc, fd, mask, size, 0)


def sys_signalfd4(proc, fd, mask, size, flags, *_):
    return _signalfd(proc, fd, mask, size, flags & 0xFFFFFFFF)
