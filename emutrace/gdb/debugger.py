"""The debugger: runs the session under gdb's control, and turns what happens into stops.

A stop is served where it happens, inside the hook that saw it (a breakpoint's code hook, the
instruction counter, the system-call phases, the run loop's `resume` phase): the server reads
gdb's packets there until gdb resumes, and then the hook returns. The engine is never stopped
for the debugger, so the scheduler's slices, and with them the interleaving of threads, are
those of a run without gdb: a replay of the run (emutrace/gdb/timeline.py) reaches every
position in the same state.

Where a stop comes from:
- breakpoints and watchpoints: emutrace/gdb/breaks.py's hooks call hit();
- a step, a position to reach, Ctrl-C (polled every POLL instructions): the instruction counter
  (emutrace/gdb/positions.py) calls due() before an instruction;
- system-call catchpoints, fork, vfork, exec and stores of the kernel into watched memory: the
  session's phases syscall_enter, syscall_exit, fork and exec;
- signals: the run loop's `resume` phase, before a signal is delivered (QPassSignals lists those
  that are not stops); gdb's resume decides whether it is delivered;
- exits: the session's observers' `exited`.
"""
from __future__ import annotations

import os
from typing import Dict, List, Optional, Set


from emutrace.gdb.breaks import Points
from emutrace.gdb.checkpoints import Checkpoints
from emutrace.gdb.positions import NEVER, Counter
from emutrace.gdb.xfer import HostIO
from emutrace.linux.signal import SIGINT, SIGTRAP

POLL = 1 << 22                 # instructions between two looks for gdb's Ctrl-C
NR_EXECVE, NR_EXECVEAT = 59, 322


class Stop:
    """What the server reports: a thread stopped by a signal (5: SIGTRAP) for a reason, or an
    exit."""

    def __init__(self, thread, signal: int = SIGTRAP, reason: str = "", value: str = "", exit=None,
                 proc=None):
        self.thread, self.signal, self.reason, self.value = thread, signal, reason, value
        self.exit = exit            # ("W", status) or ("X", signal)
        self.proc = proc if proc is not None else (thread.proc if thread is not None else None)
        self.info = None            # a signal stop: the pending signal (gdb may drop it)


class Resume:
    """gdb's answer to a stop: run on, or step one thread, each with a signal to deliver."""

    def __init__(self, step=None, signals: Optional[Dict[object, int]] = None):
        self.step = step                      # the thread to step, or None: continue
        self.signals = signals or {}          # thread -> signal to deliver (0: none)


class Killed(Exception):
    """gdb killed the program (k, vKill) or went away: the run ends."""


class Debugger:
    def __init__(self, cfg, server, timeline):
        self.cfg = cfg
        self.server = server
        self.timeline = timeline
        # what the debugger uses of the run it serves, given by attach_run (the run owns them)
        self.kernel = None
        self.processes: List = []             # every process of the run, in creation order
        self.run_started = False              # the first program is loaded (observers' `started`)
        self.outputs: List = []
        self.counter: Optional[Counter] = None
        self.points: Optional[Points] = None
        self.hostio = HostIO()
        self.detached: Set[object] = set()    # processes gdb let go (D;pid, or no fork events)
        # pids gdb detached with D: gone for gdb in every replay too (gdb does not know the run
        # was taken up again, so a process it let go must not come back to it)
        self.let_go: Set[int] = set()
        self.known: Set[int] = set()          # pids gdb has heard of (stops, fork events): all replays
        self.stack_tops: Dict[object, int] = {}      # proc -> its initial rsp (auxv)
        self.catch: Optional[Set[int]] = None  # QCatchSyscalls: None off, empty set: all
        self.pass_signals: Set[int] = set()
        self.reported: Set[int] = set()       # id() of pending signals gdb has seen
        self.pending_fork: Dict[object, object] = {}   # parent thread -> child (fork, at its exit)
        self.vforking: Set[object] = set()    # parent threads waiting for their vfork child
        self.execed: Set[object] = set()      # processes whose execve returns
        self.orig_rax: Dict[object, int] = {}  # thread -> the system call it is stopped in
        self.step_thread = None
        self.target = NEVER                   # a position where a stop is due (step, travel)
        self.watch_hit = None                 # (kind, address, thread, position): stop there, before the next instruction
        self.in_counter = False
        self.skip_at = -1                     # the position resumed from: its breakpoint is passed
        self.last_stop: Optional[Stop] = None
        self.exited_main = None
        # what gdb has inserted, by pid: a replay's new session gets them again (gdb does not
        # know its program was started again)
        self.wanted: Dict[int, Set[tuple]] = {}
        self.checkpoints = Checkpoints([])    # (listen.serve gives it gdb's connection)

    # -- the session ----------------------------------------------------------------------------
    def attach_run(self, hooks, kernel, processes: List, outputs) -> None:
        """Serve one run: its hooks registry (the phases the debugger stops at), its kernel (the
        current process and the scheduler), its list of processes (the run keeps it up to date)
        and its outputs. The run also calls this object as one of its observers (attach,
        started, exited)."""
        self.kernel, self.processes, self.outputs = kernel, processes, outputs
        self.run_started = False
        self.engines: List[tuple] = []        # (machine, address space) of every engine of the run
        self.counter = Counter(self._due)
        self.points = Points(self._hit)
        self.detached = set()
        self.stack_tops = {}
        self.reported = set()
        self.pending_fork, self.vforking, self.execed, self.orig_rax = {}, set(), set(), {}
        self.watch_hit = None
        self.skip_at = -1
        self.target = NEVER
        hooks.on("syscall_enter", self._syscall_enter)
        hooks.on("syscall_exit", self._syscall_exit)
        hooks.on("resume", self._resume_phase)
        hooks.on("fork", self._fork)
        hooks.on("exec", self._exec)

    # observers' interface (emutrace/session.py) -------------------------------------------------
    def attach(self, proc) -> None:
        """A process got a fresh engine: it counts instructions from its first one. The old
        engine's breakpoints went with it; in a replay, gdb's are put on the new one."""
        self.counter.attach(proc.machine)
        self.engines.append((proc.machine, proc.aspace))
        if proc.pid in self.let_go:
            self.detached.add(proc)
        self.points.forget(proc)
        if self.timeline.busy():
            for kind, addr, length in self.wanted.get(proc.pid, ()):
                self._place(proc, kind, addr, length)

    def _place(self, proc, kind: int, addr: int, length: int) -> bool:
        if kind in (0, 1):
            return self.points.add_break(proc, addr)
        placed = self.points.add_watch(proc, kind, addr, length)
        self._watching_changed(proc)
        return placed

    def _watching_changed(self, proc) -> None:
        """A watchpoint's stop falls after any store: positions are checked at every
        instruction of an engine while it has one (emutrace/gdb/positions.py). Not in a replay:
        there a hit is only noted at its position, and the stop where the replay goes is a
        position known in advance."""
        self.checkpoints.watching = any(self.points.watching(p) for p in self.processes)
        if proc.machine is not None:
            self.counter.every_insn(proc, self.points.watching(proc) and not self.timeline.busy()
                                    and not self._watch_travels())

    def _watch_travels(self) -> bool:
        """Watchpoints without a hook on every instruction: a hit is noted at its store, the
        run goes on to the next block (or system call, breakpoint, signal) and then goes back
        to the instruction after the store, from the latest checkpoint (compiled path, with
        checkpoints: a replay from the start of the run would cost more than the hook)."""
        return self.counter.native and self.checkpoints is not None and self.checkpoints.on

    def _watch_travel(self, kind: str, addr: int, at: int, now: int) -> None:
        """The run went past a watchpoint's stop at `at` (now `now`): back to it."""
        self.timeline.back_to(self, at, kind, f"{addr:x}", now + 1)

    def _watch_overdue(self) -> bool:
        """From another hook of the block (a breakpoint's, a system call's, a signal's) that runs
        after a watchpoint's stop: back to it (True)."""
        hit = self.watch_hit
        if hit is None or self.timeline.busy():
            return False
        self.watch_hit = None
        kind, addr, _t, at = hit
        return self.guarded(self._watch_travel, kind, addr, at, self.counter.count)

    def replay_over(self) -> None:
        """The replay arrived: from here watchpoints stop the run again."""
        for p in self.processes:
            if p.exit is None and p.machine is not None and self.points.watching(p):
                self._watching_changed(p)

    def insert(self, proc, kind: int, addr: int, length: int) -> bool:
        """Z: a breakpoint (0, 1) or watchpoint (2, 3, 4) of gdb's in proc."""
        if kind in (0, 1):
            length = 1
        if not self._place(proc, kind, addr, length):
            return False
        self.wanted.setdefault(proc.pid, set()).add((kind, addr, length))
        return True

    def remove(self, proc, kind: int, addr: int, length: int) -> None:
        if kind in (0, 1):
            self.points.remove_break(proc, addr)
            length = 1
        else:
            self.points.remove_watch(proc, kind, addr, length)
            self._watching_changed(proc)
        self.wanted.get(proc.pid, set()).discard((kind, addr, length))

    def started(self, proc) -> None:
        self.run_started = True

    def exited(self, proc, result) -> None:
        if proc is self.processes[0]:
            self.exited_main = result
        self.points.forget(proc)
        if proc in self.detached:
            return
        self.detached.add(proc)            # (nothing more of it to report)
        exit = ("X", result.signal) if result.signal else ("W", result.status)
        self.report(Stop(None, exit=exit, proc=proc))

    # -- positions ---------------------------------------------------------------------------------
    def position(self) -> int:
        """The current position: inside a breakpoint's or watchpoint's hook the counter has
        already counted the instruction that has not run yet."""
        return self._hook_pos if self._in_hook else self.counter.count

    _in_hook = False
    _hook_pos = 0                      # in a breakpoint's or watchpoint's hook: the position

    def arm(self) -> None:
        """The counter's next stop: the target, or the next look for Ctrl-C."""
        base = self._hook_pos + 1 if self._in_hook else self.counter.count
        self.counter.stop_at(min(self.target, base + POLL, self.timeline.next_stop(base),
                                 self.checkpoints.next_at(base)))

    def current_thread(self):
        return self.kernel.sched.current

    def live_threads(self):
        out = []
        for p in self.processes:
            if p.exit is None and p not in self.detached:
                out.extend(t for t in p.threads if t.alive)
        return out

    # -- stops ---------------------------------------------------------------------------------------
    def report(self, stop: Stop) -> None:
        """Serve gdb until it resumes; then apply what it asked for."""
        pos = self.position()
        self.flush_outputs()
        self.last_stop = stop
        if stop.proc is not None:
            self.known.add(stop.proc.pid)
        if stop.reason in ("fork", "vfork"):
            self.known.add(int(stop.value.split(".")[0][1:], 16))
        self.timeline.stopped_at(self, pos)
        resume = self.server.serve(stop, pos)
        self.apply(resume, stop, pos)

    def apply(self, resume: Resume, stop: Stop, pos: int) -> None:
        self.skip_at = pos
        if stop.thread is not None:
            self.orig_rax.pop(stop.thread, None)
            self._signal_answer(stop, resume)
        if resume.step is not None:
            self.step_thread = resume.step
            self.target = pos + 1
        else:
            self.step_thread = None
            self.target = NEVER
        self.arm()

    def _signal_answer(self, stop: Stop, resume: Resume) -> None:
        """A signal stop: gdb's resume says whether the signal is delivered (C/S) or dropped."""
        info = stop.info
        if info is None:
            return
        sig = resume.signals.get(stop.thread, 0)
        t = stop.thread
        if sig == 0:
            for q in (t.pending, t.proc.pending):
                if info in q:
                    q.remove(info)
        elif sig != info["si_signo"]:
            info["si_signo"] = sig

    def flush_outputs(self) -> None:
        for out in self.outputs:
            w = getattr(out, "w", None)
            if w is not None:
                try:
                    w.flush()
                except (OSError, ValueError):
                    pass

    def guarded(self, fn, *args) -> bool:
        """Run a stop from inside an engine hook: an exception (gdb killed the program, a
        journey back in time) stops the engine and is raised by emu_start (True then)."""
        try:
            fn(*args)
        except BaseException as e:
            proc = self.kernel.current
            if proc is None or proc.machine is None:
                raise
            proc.machine._stop_with(e)
            return True
        return False

    # -- the instruction counter --------------------------------------------------------------------
    def _due(self, address: int) -> bool:
        return self.guarded(self._counter_stop, address)

    def _counter_stop(self, address: int) -> None:
        pos = self.counter.count
        t = self.current_thread()
        # (before gdb's writes of pos are made again: a checkpoint at pos holds the run as it
        # was before them; in the parked copy this returns when it becomes the worker)
        self.checkpoints.take(self, pos)
        self.timeline.passing(self, pos)
        if self.timeline.busy():
            self.timeline.arrive(self, pos, t)
        elif self.watch_hit is not None:
            kind, addr, thread, at = self.watch_hit
            self.watch_hit = None
            if pos > at:
                self._watch_travel(kind, addr, at, pos)
            self.report(Stop(thread, reason=kind, value=f"{addr:x}"))
            return
        elif pos >= self.target:
            if self.step_thread is not None and t is not self.step_thread and self.step_thread.alive:
                self.target = pos + 1            # another thread's instruction: the step goes on
            elif t.proc not in self.detached:
                self.target = NEVER
                self.report(Stop(t))
                return
        elif self.server.interrupted():
            self.report(Stop(t, signal=SIGINT))
            return
        self.arm()

    # -- breakpoints and watchpoints -------------------------------------------------------------------
    def _hit(self, kind: str, proc, address: int) -> None:
        proc = self.kernel.current
        if proc in self.detached:
            return
        m = proc.machine
        rip = m.reg("rip")
        known = set(self.points.break_addresses(proc))
        if kind == "break" and self._watch_overdue():
            return
        if self.counter.fire_due(m, rip) and m.uc._hook_exception is not None:
            return                          # (that stop ended the run, or went back in time)
        self._hook_pos = self.counter.before(m, rip)
        self._in_hook = True
        try:
            pos = self.position()
            t = self.current_thread()
            if self.timeline.busy():
                self.timeline.hit(self, kind, pos, t, address)
                return
            if kind == "break":
                if pos != self.skip_at and self.guarded(self.report, Stop(t, reason="swbreak")):
                    return
                if not known.issuperset(self.points.break_addresses(proc)):
                    # gdb set a breakpoint while stopped, maybe further in this block, whose
                    # translation Unicorn runs to its end however it was dropped: entered again
                    m.set_reg("rip", rip)
            elif self.watch_hit is None:
                # the access is under way: the stop comes before the next instruction
                self.watch_hit = (kind, address, t, pos + 1)
                if self._watch_travels():
                    self.counter.stop_soon(m, pos + 1)
                else:
                    self.counter.stop_at(pos + 1)
        finally:
            self._in_hook = False

    # -- system calls, fork, exec -----------------------------------------------------------------------
    def _syscall_enter(self, proc, nr, args) -> None:
        if proc in self.detached or self._watch_overdue():
            return
        if self.points.watching(proc):
            self.points.syscall_entered(proc)
        if self.catch is not None and (not self.catch or nr in self.catch) and not self.timeline.busy():
            t = proc.thread
            self.orig_rax[t] = nr
            self.report(Stop(t, reason="syscall_entry", value=f"{nr:x}"))

    def _syscall_exit(self, proc, nr, args, ret) -> None:
        if proc in self.detached:
            return
        t = proc.thread
        busy = self.timeline.busy()
        if self.points.watching(proc):
            changed = self.points.kernel_stored(proc)
            if changed is not None:
                w, addr = changed
                kind = {2: "watch", 4: "awatch"}[w.kind]
                if busy:
                    self.timeline.hit(self, kind, self.counter.count - 1, t, addr)
                else:
                    self.orig_rax[t] = nr
                    self.report(Stop(t, reason=kind, value=f"{addr:x}"))
        if busy:
            return
        child = self.pending_fork.pop(t, None)
        if child is not None:
            self.report(Stop(t, reason="fork", value=self.server.thread_id(child.thread)))
        if t in self.vforking and nr != NR_EXECVE:
            self.vforking.discard(t)
            if self.server.features.get("vfork-events"):
                self.report(Stop(t, reason="vforkdone"))
        if proc in self.execed:
            self.execed.discard(proc)
            if self.server.features.get("exec-events"):
                self.report(Stop(t, reason="exec", value=proc.exe.encode("utf-8", "surrogateescape").hex()))
        if self.catch is not None and (not self.catch or nr in self.catch):
            self.orig_rax[t] = nr
            self.report(Stop(t, reason="syscall_return", value=f"{nr:x}"))

    def _fork(self, parent, child) -> None:
        # (a replay from before a parent gdb let go forks a child gdb still debugs: kept)
        orphan = parent in self.detached and child.pid not in self.known
        if child.pid in self.let_go or orphan or not self.server.features.get("fork-events"):
            self.detached.add(child)
            return
        if self.timeline.busy():
            return
        if child.machine is parent.machine:          # vfork (CLONE_VM): the parent waits
            self.vforking.add(parent.thread)
            if self.server.features.get("vfork-events"):
                self.report(Stop(parent.thread, reason="vfork", value=self.server.thread_id(child.thread)))
                return
            self.detached.add(child)
            return
        self.pending_fork[parent.thread] = child

    def _exec(self, proc, image) -> None:
        self.stack_tops[proc] = proc.machine.reg("rsp")
        if self.run_started:
            self.execed.add(proc)

    # -- signals ----------------------------------------------------------------------------------------
    def _resume_phase(self, proc, t) -> None:
        if self._watch_overdue():
            return
        self.timeline.switched(self, self.counter.count, t)
        if self.timeline.busy():
            # a replay's mark may be here, between two instructions (a fault's signal, a
            # system call's end): no instruction follows that would see it
            self.timeline.arrive(self, self.counter.count, t)
            return
        if proc in self.detached:
            return
        sched = self.kernel.sched
        info = sched.signal_for(t, interruptible=True)
        if info is None or id(info) in self.reported or info["si_signo"] in self.pass_signals:
            return
        self.reported.add(id(info))
        stop = Stop(t, signal=info["si_signo"])
        stop.info = info
        self.report(stop)

    # -- a checkpoint's hand-over (emutrace/gdb/checkpoints.py) -----------------------------------
    def export(self, plan) -> dict:
        """What the debugging session is now, for the checkpoint that takes it over."""
        srv = self.server
        state = self.timeline.export()
        state.update(plan=plan.export(), features=dict(srv.features), ack=srv.ch.ack, buf=bytes(srv.ch._buf),
                     pass_signals=set(self.pass_signals), catch=self.catch, wanted=self.wanted,
                     let_go=set(self.let_go), known=set(self.known))
        return state

    def resume_from_checkpoint(self, state: dict) -> None:
        """A parked checkpoint became the worker: gdb's session as it is now is installed, and
        the replay it asked for goes on from here."""
        srv = self.server
        srv.features, srv.ch.ack, srv.ch._buf = state["features"], state["ack"], bytearray(state["buf"])
        srv.resumed, srv.stop, srv.g_thread = True, None, None
        self.pass_signals, self.catch = state["pass_signals"], state["catch"]
        self.wanted = {pid: set(v) for pid, v in state["wanted"].items()}
        self.let_go, self.known = set(state["let_go"]), set(state["known"])
        self.detached |= {p for p in self.processes if p.pid in self.let_go}
        for p in self.processes:
            if p.exit is None and p.machine is not None:
                self.points.clear(p)
                if p not in self.detached:
                    for kind, addr, length in self.wanted.get(p.pid, ()):
                        self._place(p, kind, addr, length)
        self.target, self.step_thread, self.watch_hit, self.skip_at = NEVER, None, None, -1
        self.last_stop = None
        for out in self.outputs:
            w = getattr(out, "w", None)
            if w is not None and hasattr(w, "stream"):
                w.buf, w.size = [], 0
                w.stream = open(os.devnull, "w")      # (a replay traces to nowhere: timeline.py)
        self.timeline.install(state)
        self.replay_begins(self.timeline.plan)
        for p in self.processes:
            if p.exit is None and p.machine is not None and self.points.watching(p):
                self._watching_changed(p)      # (off while the replay runs)

    def replay_begins(self, plan) -> None:
        """A replay starts here (from a checkpoint, or from the start of the run): where it goes
        decides the near checkpoint (emutrace/gdb/checkpoints.py)."""
        self.checkpoints.aim(self.counter.count, plan.to if plan.scan_to is None else None)

    # -- gdb's requests on processes ----------------------------------------------------------------
    def detach(self, proc) -> None:
        self.points.clear(proc)
        self._watching_changed(proc)
        self.wanted.pop(proc.pid, None)
        self.detached.add(proc)
        self.let_go.add(proc.pid)

    def kill(self) -> None:
        raise Killed()

    def close(self) -> None:
        """The run is over (or thrown away for a replay): its engines and memory go back."""
        for m, aspace in self.engines:
            m.dispose()
            if aspace is not None:
                aspace.dispose()
        self.engines = []
        self.hostio.close_all()
        for out in self.outputs:
            try:
                out.close()
            except (OSError, ValueError):
                pass
        self.outputs = []


def host_devnull() -> int:
    return os.open(os.devnull, os.O_RDWR)
