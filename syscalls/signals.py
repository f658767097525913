"""Signals: rt_sigaction and masks, kill/tgkill, sigaltstack, and delivery with a real
rt_sigframe (the layout Linux pushes), undone by rt_sigreturn."""
from __future__ import annotations

from emutrace.machine.guestaccess import GuestFault

from emutrace.kernel import errno as E
from emutrace.kernel import jobctl
from emutrace.kernel.dispatch import s32
from emutrace.kernel.layouts import FXSAVE, KSIGACTION, RT_SIGFRAME_SIZE, SIGCONTEXT_GREGS, SIGINFO, STACK_T, UCONTEXT
from emutrace.kernel.task import NORETURN, ProcessExit, SigAction
from emutrace.kernel.time import read_timespec
from emutrace.kernel.wait import Block, Wait
from emutrace.linux.signal import (NSIG, SA_NOCLDSTOP, SA_NOCLDWAIT, SA_NODEFER, SA_ONSTACK, SA_RESETHAND, SA_RESTART, SA_RESTORER,
                                   SA_SIGINFO, SIGABRT, SIGALRM, SIGBUS, SIGCHLD, SIGCONT, SIGFPE, SIGHUP, SIGILL, SIGINT, SIGKILL,
                                   SIGPIPE, SIGQUIT, SIGSEGV, SIGSTOP, SIGTERM, SIGTRAP, SIGUSR1, SIGUSR2, SIG_BLOCK, SIG_DFL, SIG_IGN,
                                   SIG_SETMASK, SIG_UNBLOCK, SIGSYS, SIGTSTP, SIGTTIN, SIGTTOU, SIGURG, SIGWINCH,
                                   SI_KERNEL, SI_TKILL, SI_USER, SS_DISABLE, SS_ONSTACK)

UNBLOCKABLE = (1 << (SIGKILL - 1)) | (1 << (SIGSTOP - 1))
MINSIGSTKSZ = 2048

CORE = {SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, 24, 25, SIGSYS}   # XCPU XFSZ
IGNORE = {SIGCHLD, SIGCONT, SIGURG, SIGWINCH}
STOP = {SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU}      # the process stops (jobctl.py)


def bit(sig: int) -> int:
    return 1 << (sig - 1)


def default_action(sig: int) -> str:
    if sig in CORE:
        return "core"
    if sig in IGNORE:
        return "ignore"
    if sig in STOP:
        return "stop"
    return "term"


def _action(proc, sig) -> SigAction:
    return proc.sigactions.get(sig) or SigAction()


# ---------------------------------------------------------------- syscalls

def sys_rt_sigaction(proc, sig, act, oact, size, *_):
    sig = s32(sig)
    if size != 8 or not 1 <= sig <= NSIG:
        return -E.EINVAL
    if act and sig in (SIGKILL, SIGSTOP):
        return -E.EINVAL
    old = _action(proc, sig)
    new = None
    if act:
        a = KSIGACTION.unpack(proc.aspace.read(act, KSIGACTION.size))
        new = SigAction(a["sa_handler"], a["sa_flags"], a["sa_restorer"], a["sa_mask"] & ~UNBLOCKABLE)
    if oact:
        proc.aspace.write(oact, KSIGACTION.pack(sa_handler=old.handler, sa_flags=old.flags,
                                             sa_restorer=old.restorer, sa_mask=old.mask))
    if new is not None:
        proc.sigactions[sig] = new
        if new.handler == SIG_IGN or (new.handler == SIG_DFL and default_action(sig) == "ignore"):
            proc.pending = [i for i in proc.pending if i["si_signo"] != sig]
    return 0


def sys_rt_sigprocmask(proc, how, set_, oset, size, *_):
    if size != 8:
        return -E.EINVAL
    t = proc.thread
    old = t.sigmask
    if set_:
        m = proc.aspace.read_u64(set_)
        if how == SIG_BLOCK:
            t.sigmask = old | m
        elif how == SIG_UNBLOCK:
            t.sigmask = old & ~m
        elif how == SIG_SETMASK:
            t.sigmask = m
        else:
            return -E.EINVAL
        t.sigmask &= ~UNBLOCKABLE
    if oset:
        proc.aspace.write_u64(oset, old)
    if proc.deliverable():
        proc.request_stop()
    return 0


def sys_rt_sigpending(proc, set_, size, *_):
    m = 0
    for i in proc.pending + proc.thread.pending:
        m |= bit(i["si_signo"])
    proc.aspace.write_u64(set_, m & proc.thread.sigmask)
    return 0


def sys_sigaltstack(proc, ss, old, *_):
    t = proc.thread
    if old:
        on = t.altstack_sp <= proc.machine.reg("rsp") < t.altstack_sp + t.altstack_size
        proc.aspace.write(old, STACK_T.pack(ss_sp=t.altstack_sp, ss_flags=SS_ONSTACK if on and not t.altstack_flags
                                         else t.altstack_flags, ss_size=t.altstack_size))
    if ss:
        s = STACK_T.unpack(proc.aspace.read(ss, 24))
        if s["ss_flags"] & ~(SS_DISABLE | 0x80000000):
            return -E.EINVAL
        if s["ss_flags"] & SS_DISABLE:
            t.altstack_sp, t.altstack_size, t.altstack_flags = 0, 0, SS_DISABLE
        else:
            if s["ss_size"] < MINSIGSTKSZ:
                return -E.ENOMEM
            t.altstack_sp, t.altstack_size, t.altstack_flags = s["ss_sp"], s["ss_size"], 0
    return 0


def _info(proc, sig, code=SI_USER):
    return {"si_signo": sig, "si_code": code, "si_pid": proc.pid, "si_uid": proc.kernel.world.uid}


def sys_kill(proc, pid, sig, *_):
    pid, sig = s32(pid), s32(sig)
    if not 0 <= sig <= NSIG:
        return -E.EINVAL
    return proc.kernel.life.kill_process(proc, pid, sig)      # every emulated process, this one included


def sys_tgkill(proc, tgid, tid, sig, *_):
    return _tkill(proc, s32(tid), s32(sig), tgid=s32(tgid))


def sys_tkill(proc, tid, sig, *_):
    return _tkill(proc, s32(tid), s32(sig))


def _tkill(proc, tid, sig, tgid=None):
    if not 0 <= sig <= NSIG or tid <= 0:
        return -E.EINVAL
    if tgid is not None and tgid != proc.pid:
        return proc.kernel.life.kill_thread(proc, tgid, tid, sig)
    target = next((t for t in proc.threads if t.tid == tid), None)
    if target is None:
        return proc.kernel.life.kill_thread(proc, tgid, tid, sig)
    if sig:
        proc.queue_signal(_info(proc, sig, SI_TKILL), thread=target)
    return 0


def sys_rt_sigqueueinfo(proc, *args):
    return -E.EPERM


def sys_rt_sigreturn(proc, *_):
    m = proc.machine
    uc_addr = m.reg("rsp")                       # the handler's `ret` popped pretcode
    uc = UCONTEXT.unpack(proc.aspace.read(uc_addr, UCONTEXT.size))
    regs = {r: uc[r] for r in SIGCONTEXT_GREGS}
    rip = regs.pop("rip")
    # only the arithmetic and control flags come back from user space
    regs["eflags"] = (m.reg("eflags") & ~0x50DD5) | (regs["eflags"] & 0x50DD5)
    for r, v in regs.items():
        m.set_reg(r, v)
    if uc["fpstate"]:
        image = proc.aspace.peek(uc["fpstate"], FXSAVE.size)
        if image:
            m.set_fp_state(image)
    proc.thread.sigmask = uc["uc_sigmask"] & ~UNBLOCKABLE
    proc.request_stop(resume_at=rip)
    return NORETURN


def sys_rt_sigsuspend(proc, mask, size, *_):
    if size != 8:
        return -E.EINVAL
    new = proc.aspace.read_u64(mask) & ~UNBLOCKABLE
    t = proc.thread
    t.saved_mask = t.sigmask          # the handler's frame restores this mask, not `new`
    t.sigmask = new
    proc.kernel.sched.wait_signal(proc)
    proc.request_stop()
    return -E.ERESTARTNOHAND            # (the handler sees EINTR: kernel.finish)


def sys_pause(proc, *_):
    proc.kernel.sched.wait_signal(proc)
    return -E.ERESTARTNOHAND


def sys_rt_sigtimedwait(proc, set_, info, timeout, size, *_):
    """sigwaitinfo/sigtimedwait: take a pending signal of `set` (usually blocked) off the queue."""
    if size != 8:
        return -E.EINVAL
    want = proc.aspace.read_u64(set_) & ~UNBLOCKABLE
    ns = -1
    if timeout:
        try:
            ns = read_timespec(proc, timeout)
        except ValueError:
            return -E.EINVAL
    t = proc.thread

    def pending():
        return any(want & bit(i["si_signo"]) for i in t.pending + proc.pending)

    for queue in (t.pending, proc.pending):
        for k, i in enumerate(queue):
            if want & bit(i["si_signo"]):
                queue.pop(k)
                if info:
                    proc.aspace.write(info, SIGINFO.pack({f: v for f, v in i.items() if not f.startswith("_")}))
                return i["si_signo"]
    sched = proc.kernel.sched
    if ns == 0:
        return -E.EAGAIN
    prev = sched.previous_wait(t)
    if prev is not None and prev.deadline is not None and sched.now() >= prev.deadline:
        return -E.EAGAIN                                   # the timeout passed
    deadline = prev.deadline if prev is not None and prev.deadline is not None else \
        (sched.now() + ns if ns > 0 else None)
    raise Block(Wait("sigwait", "a signal (sigtimedwait)", t, ready=pending, deadline=deadline,
                     restart="nohand"))


# ---------------------------------------------------------------- delivery

def next_signal(proc):
    """Pop the next deliverable (siginfo, thread-directed?) or None."""
    mask = proc.thread.sigmask
    for queue in (proc.thread.pending, proc.pending):
        for i, info in enumerate(queue):
            if not mask & bit(info["si_signo"]):
                return queue.pop(i)
    return None


def deliver_pending(proc, observer=None) -> None:
    """Deliver every pending unblocked signal: run default actions or push handler frames."""
    while True:
        info = next_signal(proc)
        if info is None:
            return
        sig = info["si_signo"]
        act = _action(proc, sig)
        if observer is not None:
            observer.signal(proc, info)
        if act.handler == SIG_IGN:
            continue
        if act.handler == SIG_DFL:
            what = default_action(sig)
            if what == "ignore":
                continue
            if what == "stop":
                jobctl.stop(proc, sig)            # the rest waits for SIGCONT
                if observer is not None:
                    observer.stopped(proc, sig)
                return
            # a core is dumped only when RLIMIT_CORE allows one (its soft limit is 0 by default)
            raise ProcessExit(0, signal=sig, core=what == "core" and proc.rlimit(4) > 0)
        push_frame(proc, sig, info, act)
        if act.flags & SA_RESETHAND:
            proc.sigactions[sig] = SigAction()
        return      # the handler runs first; further signals are delivered when it next stops


def force_signal(proc, info) -> None:
    """A synchronous fault: delivered even if blocked or ignored (then it kills), as Linux's force_sig."""
    sig = info["si_signo"]
    act = _action(proc, sig)
    if proc.thread.sigmask & bit(sig) or act.handler == SIG_IGN:
        proc.sigactions[sig] = SigAction()
        proc.thread.sigmask &= ~bit(sig)
    proc.thread.pending.insert(0, info)


def push_frame(proc, sig, info, act) -> None:
    m = proc.machine
    t = proc.thread
    regs = m.save_gprs()
    rip = proc.resume_at if proc.resume_at is not None else regs["rip"]
    regs["rip"] = rip
    sp = regs["rsp"]
    on_alt = t.altstack_size and t.altstack_sp <= sp < t.altstack_sp + t.altstack_size
    if act.flags & SA_ONSTACK and t.altstack_size and not t.altstack_flags and not on_alt:
        sp = t.altstack_sp + t.altstack_size
    else:
        sp -= 128                                         # the red zone
    fpstate = (sp - FXSAVE.size) & ~63
    frame = ((fpstate - RT_SIGFRAME_SIZE) & ~15) - 8
    uc = frame + 8
    siginfo = uc + UCONTEXT.size
    frame_mask = t.sigmask if t.saved_mask is None else t.saved_mask
    t.saved_mask = None
    gregs = {r: regs[r] for r in SIGCONTEXT_GREGS}
    gregs["eflags"] = regs["eflags"]
    ucontext = UCONTEXT.pack(
        uc_flags=0x6, uc_link=0, ss_sp=t.altstack_sp, ss_flags=t.altstack_flags, ss_size=t.altstack_size,
        cs=0x33, ss=0x2B, err=info.get("_err", 0), trapno=info.get("_trapno", 0), oldmask=frame_mask,
        cr2=info.get("si_addr", 0) if sig in (SIGSEGV, SIGBUS) else 0, fpstate=fpstate,
        uc_sigmask=frame_mask, **gregs)
    fields = {k: v for k, v in info.items() if not k.startswith("_")}
    try:
        proc.aspace.write(fpstate, m.fp_state())
        proc.aspace.write(frame, (act.restorer if act.flags & SA_RESTORER else 0).to_bytes(8, "little"))
        proc.aspace.write(uc, ucontext)
        proc.aspace.write(siginfo, SIGINFO.pack(fields))
    except GuestFault:
        # no room for the frame (stack overflow): Linux kills the process with SIGSEGV
        raise ProcessExit(0, signal=SIGSEGV, core=proc.rlimit(4) > 0) from None
    t.sigmask |= act.mask | (0 if act.flags & SA_NODEFER else bit(sig))
    t.sigmask &= ~UNBLOCKABLE
    m.set_reg("rsp", frame)
    m.set_reg("rdi", sig)
    m.set_reg("rsi", siginfo)
    m.set_reg("rdx", uc)
    m.set_reg("rax", 0)
    m.set_reg("eflags", regs["eflags"] & ~(0x100 | 0x400))   # clear TF and DF, as the kernel does
    proc.resume_at = act.handler
