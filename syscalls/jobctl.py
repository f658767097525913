"""Job control: a stop signal stops a whole process, SIGCONT continues it, and its parent hears
of both, as Linux's prepare_signal and do_signal_stop have it:

- A stop signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) whose action is the default stops every
  thread of the process when it is delivered; only SIGCONT and SIGKILL move it again. Other
  signals stay pending meanwhile. A system call it interrupted is restarted on SIGCONT (no
  handler ran), as Linux restarts ERESTARTSYS/ERESTARTNOHAND calls.
- SIGCONT continues a stopped process when it is sent (blocked, ignored or handled alike) and
  throws away its pending stop signals; a stop signal sent throws away a pending SIGCONT.
- The parent gets SIGCHLD with CLD_STOPPED or CLD_CONTINUED unless its SIGCHLD action has
  SA_NOCLDSTOP, and wait4 (WUNTRACED / WCONTINUED) and waitid (WSTOPPED / WCONTINUED) report the
  change once: `job_report` holds it until then.

No terminal is emulated, so nothing sends SIGTSTP/SIGTTIN/SIGTTOU but the guest itself, and a
run whose every process is stopped ends as a deadlock ("cannot continue"), naming the signal."""
from __future__ import annotations
from emutrace.linux.signal import SA_NOCLDSTOP, SIGCHLD, SIGCONT, SIGKILL

STOP_NAMES = {19: "SIGSTOP", 20: "SIGTSTP", 21: "SIGTTIN", 22: "SIGTTOU"}
STOP_SIGNALS = frozenset(STOP_NAMES)
CLD_STOPPED, CLD_CONTINUED = 5, 6


def on_send(proc, signo: int) -> None:
    """What sending `signo` does before it is queued (Linux's prepare_signal)."""
    if signo == SIGCONT:
        _drop_pending(proc, STOP_SIGNALS)
        if proc.stopped:
            proc.stopped = 0
            proc.job_report = (CLD_CONTINUED, SIGCONT)
            _tell_parent(proc, CLD_CONTINUED, SIGCONT)
    elif signo in STOP_SIGNALS:
        _drop_pending(proc, (SIGCONT,))


def stop(proc, sig: int) -> None:
    """Deliver a stop signal's default action: the process stops where it is."""
    if proc.stopped:
        return
    proc.stopped = sig
    proc.job_report = (CLD_STOPPED, sig)
    _tell_parent(proc, CLD_STOPPED, sig)
    proc.request_stop()


def may_run(proc) -> bool:
    """False while the process is stopped and no SIGKILL waits for it."""
    if not proc.stopped:
        return True
    return any(i["si_signo"] == SIGKILL for t in proc.threads for i in t.pending) or \
        any(i["si_signo"] == SIGKILL for i in proc.pending)


def wait_status(report) -> int:
    """The wait4 status word of a job_report: stopped (sig << 8 | 0x7f) or continued (0xffff)."""
    code, sig = report
    return 0xFFFF if code == CLD_CONTINUED else (sig << 8) | 0x7F


def reportable(child, stopped: bool, continued: bool):
    """The child's job_report if the waiter asked for its kind, else None."""
    r = child.job_report
    if r is None or child.exit is not None:
        return None
    if (r[0] == CLD_STOPPED and stopped) or (r[0] == CLD_CONTINUED and continued):
        return r
    return None


def _drop_pending(proc, signos) -> None:
    keep = lambda queue: [i for i in queue if i["si_signo"] not in signos]   # noqa: E731
    proc.pending[:] = keep(proc.pending)
    for t in proc.threads:
        t.pending[:] = keep(t.pending)


def _tell_parent(proc, code: int, status: int) -> None:
    parent = proc.parent
    if parent is None or parent.exit is not None:
        return
    act = parent.sigactions.get(SIGCHLD)
    if act is not None and act.flags & SA_NOCLDSTOP:
        return
    parent.queue_signal({"si_signo": SIGCHLD, "si_code": code, "si_pid": proc.pid,
                         "si_uid": proc.kernel.world.uid, "si_status": status, "si_utime": 0,
                         "si_stime": 0})
