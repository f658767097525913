"""The behaviour report's observer: watches every system call of every process (the kernel's
intercept, which sees children whether or not they are traced), the session's process events,
RDTSC reads and a few library calls (compares, name resolution), and keeps only what the report
needs: no trace line is formatted. `build()` turns what it saw into the report's dictionary
(schema.json); the findings are derived from it by findings.py.

Every fact keeps the ids of the events it came from (`events` in the report: a time-ordered list
of the notable calls, each with pid, tid and the virtual time), so a finding points at its
evidence as Speakeasy's and CAPE's reports do.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from emutrace.loader.modules import module_at
from emutrace.kernel.vfs import VfsError
from emutrace.decode.xlat import signal_name

from emutrace.report import extract, rules
from emutrace.report.calls import CallWatch
from emutrace.report.target import describe
from emutrace.report.unpacked import Unpacked
from emutrace.report.watched import MAX_REFS, SYSCALLS, _clock_read, _errno_name

MAX_EVENTS = 20000            # notable events kept (the rest are counted in events_dropped)
MAX_STRINGS = 4000            # printable strings kept from memory at exit
MAX_SCAN = 64 << 20           # bytes of memory scanned for them
SCAN_CHUNK = 1 << 16


class ReportCollector:
    """One run's facts. `install()` hooks it to a run before start(). It is given what it reads:
    the World (virtual time, environment), the Hooks, the Kernel (its VFS, process table and
    limits), the run's argv and its lists of processes and illegal instructions (appended to as
    the run goes on) — never the session itself."""

    def __init__(self, world, hooks, kernel, argv, processes: list, illegal: list):
        self.world, self.hooks, self.kernel = world, hooks, kernel
        self.vfs = kernel.vfs
        self.argv = list(argv)
        self.processes = processes          # every process of the run, in creation order
        self.illegal = illegal              # instructions the CPU model lacks that the guest ran
        self.events: List[dict] = []
        self.events_dropped = 0
        self.files: Dict[str, dict] = {}
        self.sockets: List[dict] = []
        self.dns: List[dict] = []
        self.signals: List[dict] = []
        self.execs: Dict[int, List[dict]] = {}       # pid → execve attempts
        self.limits: List[dict] = []
        self.errors: List[dict] = []
        self.compares: Dict[tuple, dict] = {}
        self.marks: Dict[str, List[int]] = {}        # behaviour mark → event ids (findings.py reads them)
        self.mark_detail: Dict[str, List[dict]] = {}
        self.deleted_drops: Dict[str, dict] = {}     # overlay files deleted during the run
        self.renamed: Dict[str, str] = {}            # new path → the path it was written as
        self.argv0: Dict[int, tuple] = {}            # pid → (address, bytes) of argv[0] at start
        self.proc_strings: List[str] = []
        self.target: Optional[dict] = None
        self.run_status: Optional[dict] = None
        self._pending: Dict[int, tuple] = {}         # id(thread) → (handler, info) between enter and exit
        self._exec_pending: Dict[int, dict] = {}     # pid → the execve attempt in flight
        self._socks: Dict[tuple, dict] = {}          # (pid, fd) → socket entry
        hooks.on("oom_kill", self._oom_killed)
        self._interp_paths: Dict[str, str] = {}
        self.clock_steps: Dict[int, tuple] = {}      # id(thread) → the clock/sleep step it is at
        self.unpacked = Unpacked(self)                # code written, then executed (unpacked.py)
        self.yara = None                              # --yara: the compiled rules (yarascan.py)
        self.target_data: Optional[bytes] = None      # the program file's bytes, for --yara

    # -- hooking --------------------------------------------------------------------------
    def install(self, add_observer, tsc=None) -> None:
        """Chain on the kernel's intercept, observe the run's process events (`add_observer`),
        and hear the RDTSC and vDSO clock reads of `tsc` (the run's TscObserver) when given."""
        self.hooks.chain("intercept", self)
        add_observer(self)
        if tsc is not None:
            tsc.listeners.append(self._rdtsc)
            tsc.vdso_listeners.append(self._vdso_clock)
        self.unpacked.install(self.hooks)

    def watch_calls(self, libcall_tracer) -> None:
        """Read the compare and resolver calls through a library-call tracer's intercept."""
        libcall_tracer.hooks.chain("call_intercept", CallWatch(self))

    # -- events ---------------------------------------------------------------------------
    def event(self, proc, kind: str, name: str, **detail) -> int:
        eid = len(self.events) + self.events_dropped + 1
        if len(self.events) >= MAX_EVENTS:
            self.events_dropped += 1
            return eid
        ev = {"id": eid, "time_ns": self.world.elapsed_ns, "pid": proc.pid,
              "tid": proc.thread.tid if proc.thread is not None else proc.pid, "kind": kind, "name": name}
        ev.update(detail)
        self.events.append(ev)
        return eid

    def mark(self, what: str, eid: int, **detail) -> None:
        self.marks.setdefault(what, []).append(eid)
        if detail:
            self.mark_detail.setdefault(what, []).append(dict(detail, event=eid))

    def file(self, path: str, op: str, eid: Optional[int] = None) -> dict:
        f = self.files.get(path)
        if f is None:
            f = self.files[path] = {"path": path, "ops": [], "bytes_read": 0, "bytes_written": 0, "events": []}
        if op and op not in f["ops"]:
            f["ops"].append(op)
        if eid is not None and len(f["events"]) < MAX_REFS and eid not in f["events"]:
            f["events"].append(eid)
        return f

    # -- the kernel's intercept ------------------------------------------------------------
    def enter(self, proc, nr, sc, args):
        handler = SYSCALLS.get(sc.name) if sc is not None else None
        if handler is not None:
            enter, leave = handler
            try:
                info = enter(self, proc, args) if enter is not None else None
            except Exception as e:          # noqa: BLE001 (see _observer_failed)
                self._observer_failed(sc.name, e)
                info, leave = None, None
            self._pending[id(proc.thread)] = (leave, info, sc.name)
            if sc.name in ("execve", "execveat") and info is not None:
                self._exec_pending[proc.pid] = info
        return None                         # (the report never changes a call; the hooks chain it)

    def exit(self, proc, nr, sc, args, ret):
        pending = self._pending.pop(id(proc.thread), None)
        if pending is not None and isinstance(ret, int):
            leave, info, name = pending
            err = _errno_name(ret)
            try:
                if err is not None:
                    self._limit_errno(proc, name, err)
                if leave is not None:
                    leave(self, proc, args, info, ret, err)
            except Exception as e:          # noqa: BLE001 (see _observer_failed)
                self._observer_failed(name, e)
        return ret

    def _observer_failed(self, what: str, exc: Exception) -> None:
        """A fact the report could not take from a call (arguments no decoder foresaw): the
        program runs on as it would without the report, and the report says what it missed."""
        msg = f"{what}: {type(exc).__name__}: {exc}"
        if len(self.errors) < 100 and not any(e["message"] == msg for e in self.errors):
            self.errors.append({"kind": "report", "message": msg})

    def _limit_errno(self, proc, name: str, err: str) -> None:
        hit = rules.LIMIT_ERRNOS.get(err)
        if hit is None or (hit[1] is not None and name not in hit[1]):
            return
        kind = hit[0]
        if kind == "max-procs" and len(self.kernel.sched.procs) < self.kernel.max_procs:
            return                       # an EAGAIN of its own, not the process limit
        for lim in self.limits:
            if lim["limit"] == kind:
                lim["count"] += 1
                return
        eid = self.event(proc, "syscall", name, result=err)
        self.limits.append({"limit": kind, "how": f"{name} failed with {err}", "count": 1, "event": eid})

    def _oom_killed(self, proc, addr: int) -> None:
        """--max-mem ended a process as Linux's OOM killer does (SIGKILL at a first write)."""
        eid = self.event(proc, "signal", "oom-kill", signo=9, signal="SIGKILL", addr=addr)
        self.limits.append({"limit": "max-mem", "how": f"pid {proc.pid} killed by SIGKILL (out of memory) at its "
                            f"first write to MAP_NORESERVE memory at {addr:#x}", "count": 1, "event": eid})

    # -- session observer hooks ----------------------------------------------------------------
    def started(self, proc) -> None:
        self.target = describe(self.vfs, self.argv, proc)
        data = self.target.pop("_data", None) if self.target is not None else None
        self.target_data = data if self.yara is not None else None     # (read before it can delete itself)
        self._note_argv0(proc)
        self.event(proc, "process", "start", path=proc.exe, argv=list(proc.argv))

    def execed(self, proc) -> None:
        attempt = self._exec_pending.pop(proc.pid, None)
        if attempt is not None:
            attempt["result"] = 0
            self._pending.pop(id(proc.thread), None)
        self._note_argv0(proc)

    def exited(self, proc, result) -> None:
        self._check_argv0(proc)
        if proc is self.processes[0]:
            self._memory_strings(proc)
            if self.yara is not None:
                self.yara.scan_memory(proc)
        if result.signal:
            eid = self.event(proc, "signal", "killed", signo=result.signal, signal=signal_name(result.signal))
            self.signals.append({"pid": proc.pid, "what": "killed", "signo": result.signal,
                                 "signal": signal_name(result.signal), "event": eid})

    def signal(self, proc, info) -> None:
        signo = info["si_signo"]
        eid = self.event(proc, "signal", "delivered", signo=signo, signal=signal_name(signo))
        self.signals.append({"pid": proc.pid, "what": "delivered", "signo": signo, "signal": signal_name(signo),
                             "event": eid})

    def _rdtsc(self, proc, rip: int) -> None:
        """An RDTSC/RDTSCP of the program's own code (the dynamic linker reads the TSC at start)."""
        m = module_at(proc.modules, rip)
        where = m.path if m is not None else "[anonymous]"
        if m is not None and m.path == self._interpreter(proc):
            return
        if len(self.marks.get("rdtsc", ())) >= MAX_REFS:
            return
        eid = self.event(proc, "insn", "rdtsc", address=rip, module=where)
        self.mark("rdtsc", eid, address=rip, module=where)

    def _vdso_clock(self, proc, rip: int) -> None:
        """A clock read the vDSO served (clock_gettime, gettimeofday, time: no system call)."""
        _clock_read(self, proc, "call", None)

    def _interpreter(self, proc) -> Optional[str]:
        """The canonical path of the program's dynamic linker (modules carry canonical paths)."""
        interp = proc.modules[0].elf.interp if proc.modules else None
        if interp is None:
            return None
        canon = self._interp_paths.get(interp)
        if canon is None:
            try:
                canon = self.vfs.resolve(interp, "/")[0]
            except VfsError:
                canon = interp
            self._interp_paths[interp] = canon
        return canon

    # -- argv[0] rewriting -------------------------------------------------------------------------
    def _note_argv0(self, proc) -> None:
        """argv[0] as the kernel laid it out: the first pointer above argc on the initial stack."""
        aspace = proc.aspace
        try:
            rsp = proc.machine.reg("rsp")
            ptr = aspace.read_u64(rsp + 8)
        except Exception:           # noqa: BLE001 (no initial stack to read: nothing to compare)
            return
        raw = extract.guest_string(aspace, ptr, 4096)
        if raw is not None:
            self.argv0[proc.pid] = (ptr, raw)

    def _check_argv0(self, proc) -> None:
        first = self.argv0.pop(proc.pid, None)
        if first is None or proc.aspace is None:
            return
        ptr, before = first
        after = extract.guest_string(proc.aspace, ptr, 4096)
        if after is not None and after != before:
            eid = self.event(proc, "memory", "argv0-rewritten", before=extract.text(before),
                             after=extract.text(after))
            self.mark("argv0", eid, pid=proc.pid, before=extract.text(before), after=extract.text(after))

    # -- strings at exit -------------------------------------------------------------------------
    def _memory_strings(self, proc) -> None:
        """Printable strings of the program's own image, then its heap, anonymous mappings and
        stack (not the libraries': their strings are the same for every program). Pages of
        zeros, most of a stack's or an arena's reservation, are skipped unread by the regex."""
        aspace = proc.aspace
        if aspace is None:
            return
        own = proc.exe

        def rank(v):
            return 0 if v.name == own else 1 if v.name == "[heap]" else 3 if v.name == "[stack]" else 2

        def wanted(v):
            if not v.prot & 1 or v.shm is not None:
                return False
            if v.name == own:
                return True
            library = v.name and not v.name.startswith("[")
            return bool(v.prot & rules.PROT_WRITE) and not library

        seen: set = set()
        scanned = 0
        for v in sorted(filter(wanted, list(aspace.vmas)), key=lambda v: (rank(v), v.start)):
            for lo in range(v.start, v.end, SCAN_CHUNK):
                if scanned >= MAX_SCAN or len(self.proc_strings) >= MAX_STRINGS:
                    return
                data = extract.guest_bytes(aspace, lo, min(SCAN_CHUNK + 256, v.end - lo))   # (+ the next string's start)
                scanned += SCAN_CHUNK
                if data and data.count(0) != len(data):
                    extract.printable_strings(data, seen, self.proc_strings, MAX_STRINGS)

    # -- the end -------------------------------------------------------------------------------------
    def finish(self, result=None, error=None, limit: bool = False) -> None:
        """The run ended: how (an exit, or an error; `limit`: the error is a limit that ended it)."""
        if result is not None:
            self.run_status = {"status": result.status, "signal": result.signal, "exit_code": result.exit_code}
        if error is not None:
            msg = str(error)
            if limit:
                kind = ("timeout" if "time limit" in msg else "max-insns" if "instruction limit" in msg
                        else "deadlock")
                self.limits.append({"limit": kind, "how": msg, "count": 1, "event": None})
            else:
                self.errors.append({"kind": "run", "message": msg, "status": getattr(error, "status", 125)})
            self.run_status = {"status": getattr(error, "status", 125), "signal": 0,
                               "exit_code": getattr(error, "status", 125), "message": msg}
        for ill in self.illegal:
            self.errors.append({"kind": "illegal-instruction", "pid": ill["pid"],
                                "message": f"illegal instruction `{ill['instruction']}` at {ill['address']:#x} "
                                           f"({ill['module']}): the CPU model is {ill['cpu']}"})
        for name in sorted(self.kernel.unimplemented_seen):
            self.errors.append({"kind": "unimplemented-syscall", "message": f"{name} is not implemented (ENOSYS)"})


# ======================================================================= system calls
# Each handler pair: enter(collector, proc, args) -> info read before the call runs (paths,
# buffers: a successful execve or unlink leaves nothing to read after), and
# leave(collector, proc, args, info, ret, errno name or None).
