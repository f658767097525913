"""Checkpoints: the whole emutrace process forked at chosen positions and parked, so that going
back in time replays from the nearest one instead of from the start (design decision 13; rr's
idea, in its own code).

The processes
- The *supervisor* (the process the user started) forks the first *worker* as the run begins and
  only waits: it reaps every process of the debugging session (it is their subreaper where Linux
  has one) and exits with the status the last worker reports on a pipe. So the user's shell, and
  gdb's `target remote |`, see one process from start to end whichever worker is serving.
- The *worker* runs the guest and speaks to gdb. At positions that are multiples of INTERVAL
  instructions it forks a *checkpoint*: the copy parks (it closes its copies of gdb's connection
  and of the other checkpoints' control sockets, and waits on its own), the worker goes on.
- Going back to position P: the worker picks the latest checkpoint at or before P and sends it,
  on its control socket, what the debugging session is now (breakpoints, gdb's writes, the
  thread switches, the replay to make: a pickled dict) with gdb's connection and the control
  sockets of the checkpoints still valid (SCM_RIGHTS); then it exits. The checkpoint forks
  again: the new copy becomes the worker, from the checkpoint's position, and replays forwards
  to P; the checkpoint stays parked for later.
- A checkpoint ends when its control socket's other end closes: when it is dropped, or when
  the last worker ends (gdb killed the program, went away, the program exited). Nothing is left
  behind: every parked process waits on a socket only a worker holds.

Spacing, a cost budget: a checkpoint costs the fork and the copy-on-write that follows it
(~7 ms here, whatever the interval), so the interval is what bounds their share of forward time.
They are taken every SPARSE units (2^25 instructions, ~0.1 s of forward time: the forks are
< 10% of it) while the run has no watchpoint, and every unit (2^23) while it has one (a
watchpoint's memory hook makes the run ~5x slower, so the same share holds, and each watchpoint
hit is a replay from the latest checkpoint: a shorter one). A replay to a position further than
2 * NEAR from where it starts also takes one checkpoint NEAR instructions before its destination,
so that what gdb does next around that moment (reverse-stepi again, reverse-next: one replay per
instruction) replays NEAR instructions, not an interval.

Which are kept (rr's thinning): checkpoint k (at k units) is kept while the furthest position m
(in units) a worker passed since satisfies m - k <= KEEP * 2^tz(k), tz the number of trailing
zeros of k: the last few intervals each have one, then every other one, every fourth... so
O(log L) are kept for a run of L instructions, and reverse-stepi replays at most one interval.
At most MAX_KEPT are parked at once.

Where the host has no fork (Windows), with EMUTRACE_GDB_CHECKPOINTS=0, on the pure event path
with its interrupt thread, or while the guest has MAP_SHARED memory (host memory that a fork
shares instead of copying), no checkpoint is taken and going back replays from the start: the
same answers, slower. EMUTRACE_GDB_CHECKPOINT_INSNS=N sets one interval of N instructions for
every case (tests use it), with no near checkpoints.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import socket
import struct
import sys
import threading
from typing import Dict, List, Optional, Tuple

INTERVAL = 1 << 23          # instructions: the unit, and the interval while a watchpoint is set
SPARSE = 4                  # units between two checkpoints while none is (docs/gdb.md: measured)
NEAR = 1 << 20              # a replay's checkpoint, this far before its destination
KEEP = 2
MAX_KEPT = 40
MAX_FDS = MAX_KEPT + 8
_HEADER = struct.Struct("<Q")
_NOTE = struct.Struct("<ii")        # (what, value) on the status pipe: STATUS or WORKER
STATUS, WORKER = 0, 1
PR_SET_CHILD_SUBREAPER = 36


def enabled() -> bool:
    return hasattr(os, "fork") and hasattr(socket, "send_fds") and \
        os.environ.get("EMUTRACE_GDB_CHECKPOINTS", "1") != "0"


def interval() -> Optional[int]:
    """The interval EMUTRACE_GDB_CHECKPOINT_INSNS sets, or None (the default spacing)."""
    try:
        n = int(os.environ.get("EMUTRACE_GDB_CHECKPOINT_INSNS", ""), 0)
    except ValueError:
        return None
    return n if n > 0 else None


def _tz(k: int) -> int:
    return (k & -k).bit_length() - 1


# -- the supervisor --------------------------------------------------------------------------------

def supervise(client_fds: List[int], close_client) -> Tuple[Optional[int], Optional[int]]:
    """Fork the first worker. In the supervisor: close its copy of gdb's connection, wait for
    every process of the session to end, and return (status, None). In the worker: (None, the
    status pipe's write end)."""
    r, w = os.pipe()
    try:
        pid = os.fork()
    except (OSError, AttributeError):            # (no fork here, or none possible now)
        os.close(r)
        os.close(w)
        return None, None
    if pid == 0:
        os.close(r)
        return None, w
    os.close(w)
    close_client()
    _subreaper()
    _set_signals(("SIGINT", "SIGQUIT"), signal.SIG_IGN)     # (Ctrl-C reaches the worker too: it decides)
    worker = [pid]

    def end_worker(sig, _frame):
        # emutrace itself is told to end (gdb's `target remote |` does so when it closes): the
        # worker goes, and with it every checkpoint (their sockets close)
        try:
            os.kill(worker[0], signal.SIGTERM)
        except OSError:
            pass
    _set_signals(("SIGTERM", "SIGHUP"), end_worker)
    status, data = 0, b""
    while True:
        try:
            ready, _, _ = select.select([r], [], [], 1.0)
        except InterruptedError:
            continue
        _reap()
        if not ready:
            continue
        chunk = os.read(r, 64)
        if not chunk:
            break                                # every worker and checkpoint has ended
        data += chunk
        while len(data) >= _NOTE.size:
            (what, value), data = _NOTE.unpack(data[:_NOTE.size]), data[_NOTE.size:]
            if what == STATUS:
                status = value
            else:
                worker[0] = value
    os.close(r)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            break
    return status, None


def _set_signals(names, handler) -> None:
    for name in names:
        sig = getattr(signal, name, None)        # (SIGHUP, SIGQUIT: not on Windows)
        if sig is not None:
            signal.signal(sig, handler)


def report_status(w: Optional[int], status: int) -> None:
    """The worker that ends the run tells the supervisor its exit status."""
    _note(w, STATUS, status)


def _note(w: Optional[int], what: int, value: int) -> None:
    if w is not None:
        try:
            os.write(w, _NOTE.pack(what, value))
        except OSError:
            pass


def _subreaper() -> None:
    """Orphaned checkpoints come back to the supervisor (Linux), which reaps them."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes     # deferred: only a supervisor on Linux asks for it
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except (ChildProcessError, AttributeError):     # (none left; no waitpid: no fork either)
            return
        if pid == 0:
            return


# -- the checkpoints of a worker --------------------------------------------------------------------

class Checkpoint:
    __slots__ = ("position", "pid", "ctl")

    def __init__(self, position: int, pid: int, ctl: socket.socket):
        self.position, self.pid, self.ctl = position, pid, ctl


class Checkpoints:
    """The parked checkpoints a worker knows (by position) and how to take and resume them."""

    def __init__(self, client_fds: List[int], status_w: Optional[int] = None):
        self.on = enabled()
        self.status_w = status_w                # (the supervisor's pipe: a new worker says its pid)
        fixed = interval()
        self.step = fixed or INTERVAL           # the unit: positions of checkpoints are counted in it
        self.sparse = 1 if fixed else SPARSE
        self.watching = False                   # the run has a watchpoint (the debugger says so)
        self.near: Optional[int] = None if fixed else 0     # a replay's near checkpoint (None: never)
        self.client_fds = list(client_fds)      # gdb's connection (fd numbers kept across workers)
        self.kept: List[Checkpoint] = []        # sorted by position
        self.furthest = 0                       # in units of step
        self.taken = 0                          # forks made by this worker (for monitor and tests)

    # -- when ------------------------------------------------------------------------------------
    def spacing(self) -> int:
        """Instructions between two checkpoints now."""
        return self.step if self.watching else self.step * self.sparse

    def aim(self, now: int, to: Optional[int]) -> None:
        """A replay from `now` to `to` (None: a scan, whose destination is not known yet) begins:
        a checkpoint NEAR before `to` if that is far enough (see the module's docstring)."""
        if self.near is not None:
            self.near = to - NEAR if to is not None and to - now > 2 * NEAR else 0

    def _due(self, pos: int) -> bool:
        return pos > 0 and (pos % self.spacing() == 0 or pos == self.near)

    def next_at(self, first: int) -> int:
        """The next position >= first where a checkpoint is due (or a huge number: off)."""
        if not self.on:
            return 1 << 64
        gap = self.spacing()
        k = max(1, -(-first // gap))
        while self._has(k * gap):
            k += 1
        if self.near and first <= self.near < k * gap and not self._has(self.near):
            return self.near
        return k * gap

    def _has(self, pos: int) -> bool:
        return any(c.position == pos for c in self.kept)

    def best(self, at: int) -> Optional[Checkpoint]:
        """The latest checkpoint at or before position `at`."""
        found = None
        for c in self.kept:
            if c.position <= at:
                found = c
        return found

    def before(self, at: int) -> int:
        """The position of the latest checkpoint strictly before `at` (0: the start)."""
        c = self.best(at - 1) if at > 0 else None
        return c.position if c is not None else 0

    def drop_after(self, pos: int) -> None:
        """gdb changed the run at pos: the checkpoints after it belong to the old future."""
        for c in [c for c in self.kept if c.position > pos]:
            self._drop(c)

    # -- taking one ---------------------------------------------------------------------------------
    def take(self, dbg, pos: int) -> bool:
        """Fork a checkpoint at pos (True). In the parked copy this returns only when it is
        resumed: then as the new worker, with the session's state installed (dbg.resumed set)."""
        if not self.on or not self._due(pos) or self._has(pos) or not self._forkable(dbg):
            return False
        dbg.flush_outputs()
        for f in (sys.stdout, sys.stderr):
            try:
                f.flush()
            except (OSError, ValueError, AttributeError):
                pass
        try:
            ctl, park = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        except (OSError, AttributeError):
            return False
        try:
            pid = os.fork()
        except (OSError, AttributeError):        # (the host cannot now: this moment has none)
            ctl.close()
            park.close()
            return False
        if pid == 0:
            ctl.close()
            self._park(dbg, park)                # returns as the new worker
            return True
        park.close()
        self.taken += 1
        self.kept.append(Checkpoint(pos, pid, ctl))
        self.kept.sort(key=lambda c: c.position)
        self._thin(pos // self.step)
        _reap()
        return True

    @staticmethod
    def _forkable(dbg) -> bool:
        if threading.active_count() > 1:
            return False                         # (a host thread would not follow the fork)
        for p in dbg.processes:
            if p.exit is None and p.aspace is not None and any(v.shm is not None for v in p.aspace.vmas):
                return False                     # MAP_SHARED guest memory: a fork would share it
        return True

    def _thin(self, m: int) -> None:
        self.furthest = m
        for c in list(self.kept):
            k = c.position // self.step
            if k < m and m - k > KEEP << _tz(k):
                self._drop(c)
        while len(self.kept) > MAX_KEPT:
            gaps = [(self.kept[i].position - self.kept[i - 1].position, i) for i in range(1, len(self.kept) - 1)]
            self._drop(self.kept[min(gaps)[1]] if gaps else self.kept[0])

    def _drop(self, c: Checkpoint) -> None:
        c.ctl.close()                            # (it sees the end of its socket and exits)
        self.kept.remove(c)

    def close_all(self) -> None:
        for c in list(self.kept):
            self._drop(c)
        _reap()

    # -- parked ---------------------------------------------------------------------------------------
    def _park(self, dbg, park: socket.socket) -> None:
        """The checkpoint's life: wait to be resumed; each resume forks the new worker."""
        null = os.open(os.devnull, os.O_RDWR)
        for fd in self.client_fds:
            os.dup2(null, fd)                   # (gdb's connection is the worker's alone)
        os.close(null)
        for c in self.kept:
            c.ctl.close()                        # (the other checkpoints are the worker's to end)
        self.kept = []
        _set_signals(("SIGINT", "SIGQUIT"), signal.SIG_IGN)
        while True:
            try:
                state, fds = _receive(park)
            except (OSError, EOFError, pickle.UnpicklingError):
                os._exit(0)
            if state is None:
                os._exit(0)
            try:
                pid = os.fork()
            except OSError:
                pid = 0                          # (no fork possible now: this checkpoint itself goes on)
            if pid == 0:
                signal.signal(signal.SIGINT, signal.default_int_handler)
                _set_signals(("SIGQUIT",), signal.SIG_DFL)
                park.close()
                self._become_worker(dbg, state, fds)
                return
            for fd in fds:
                os.close(fd)
            _reap()        # (the workers it started before; one still running is reaped by the
            #                 supervisor once this process ends: their CPU time is counted there)

    def _become_worker(self, dbg, state: dict, fds: List[int]) -> None:
        n = len(self.client_fds)
        for fd, want in zip(fds[:n], self.client_fds):
            if fd != want:
                os.dup2(fd, want)
                os.close(fd)
        self.kept = [Checkpoint(pos, pid, socket.socket(fileno=fd))
                     for (pos, pid), fd in zip(state["checkpoints"], fds[n:])]
        self.furthest = state["furthest"]
        self.taken = 0
        _note(self.status_w, WORKER, os.getpid())
        dbg.resume_from_checkpoint(state)

    # -- resuming one ------------------------------------------------------------------------------------
    def resume(self, c: Checkpoint, state: dict) -> None:
        """Hand the session to checkpoint c (it forks the new worker); this worker then ends."""
        state["checkpoints"] = [(k.position, k.pid) for k in self.kept]
        state["furthest"] = self.furthest
        fds = list(self.client_fds) + [k.ctl.fileno() for k in self.kept]
        _send(c.ctl, state, fds)


def _send(sock: socket.socket, state: dict, fds: List[int]) -> None:
    data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        socket.send_fds(sock, [_HEADER.pack(len(data))], fds)
    except AttributeError:                       # (no SCM_RIGHTS: enabled() said so already)
        raise OSError("no socket.send_fds") from None
    sock.sendall(data)


def _receive(sock: socket.socket):
    try:
        head, fds, _flags, _addr = socket.recv_fds(sock, _HEADER.size, MAX_FDS)
    except AttributeError:
        raise OSError("no socket.recv_fds") from None
    if not head:
        return None, []
    while len(head) < _HEADER.size:
        more = sock.recv(_HEADER.size - len(head))
        if not more:
            raise EOFError()
        head += more
    (n,) = _HEADER.unpack(head)
    data = bytearray()
    while len(data) < n:
        more = sock.recv(min(1 << 20, n - len(data)))
        if not more:
            raise EOFError()
        data += more
    return pickle.loads(bytes(data)), fds
