"""The session's one registry of hook phases.

The lower layers (the machine, the kernel, the loader) announce what happens at typed phases;
the layers above (the session, the tracer, the report, the debugger) register callbacks on them.
Nothing from above is set as an attribute on a lower object (design decision 11): the session
makes one `Hooks`, hands it to the Kernel it builds, and registers on it.

Each phase is declared once, below, with the arguments its callbacks receive. Registering on or
firing an undeclared phase is a programming error and raises at once, so a misspelt phase cannot
silently never fire.

Besides phases (any number of listeners, each told), the registry holds the kernel's *roles*:
an object that answers the kernel (the syscall observer, the loader's binary format) or a
chain of them (syscall intercepts, which may replace a call's result). The session and the
layers above fill a role with serve() or chain(); the kernel reads `hooks.observer`,
`hooks.intercept` and `hooks.binfmt` (one attribute each on its hot path), the library-call tracer
`hooks.call_intercept` (the API's call hooks, --inject-call, the report's call watch). Chaining is
the registry's job: no intercept holds the one installed before it.
"""
from __future__ import annotations

from typing import Callable, Dict, List

# phase -> what its callbacks receive (and when it fires)
PHASES: Dict[str, str] = {
    "new_machine": "(proc): a process got a fresh engine (exec, fork); its hooks are to be installed",
    "mmap": "(proc, start, size, prot, file, offset): a file was mapped (module discovery)",
    "exec": "(proc, image): execve replaced a process's image (after the loader laid it out)",
    "fork": "(parent, child): a process was cloned into a new process (fork, vfork, clone)",
    "oom_kill": "(proc, addr): a first write to MAP_NORESERVE memory found --max-mem full; proc gets SIGKILL",
    "code_unpacked": "(aspace, region): memory written and then executed (codewatch.py); registering "
                     "on it makes new address spaces watch for it",
    # the debugger's (emutrace/gdb): where a stop may happen outside an instruction hook
    "syscall_enter": "(proc, nr, args): a system call is about to run its handler (catch syscall)",
    "syscall_exit": "(proc, nr, args, ret): a system call returns to the guest; the kernel may have "
                    "stored into guest memory (watchpoints compare what they watch)",
    "resume": "(proc, thread): the run loop is about to run thread, its pending signals not yet "
              "delivered (a debugger reports and may discard them)",
    # the guest log's (emutrace/guestlog), fired only for an engine with code of emutrace's own
    # (Machine.own_code): the kernel, the scheduler and the session test that first
    "guest_log_flush": "(proc, syscall): the calls the guest logged are due: before system call "
                       "`syscall`, or at a slice's end or before a hooked event (None)",
    "thread_switch": "(machine, old, new): the scheduler loads thread new on machine (old: the thread "
                     "it held, or None); per-thread guest state of the tracer follows",
    "guest_code_fault": "(proc, rip) -> bool: a fault stopped the engine; a callback returns True when "
                        "rip is in its own guest code and it handled the fault (the others are not called)",
}


# role -> what fills it (ROLES' keys are the names serve() and chain() take)
ROLES: Dict[str, str] = {
    "observer": "one object tracing the system calls of traced processes: syscall_enter(proc, nr, "
                "sc, args) -> state, syscall_exit(proc, state, ret), syscall_noreturn(proc, state)",
    "intercept": "a chain of objects seeing every system call: enter(proc, nr, sc, args) -> a "
                 "result that replaces the call, or None; exit(proc, nr, sc, args, ret) -> the result. "
                 "The one chained last is outermost: its enter runs first (the first result stops "
                 "the others' enter), its exit last",
    "binfmt": "the loader's exec_into(proc, path, argv, envp, ...): execve reaches it (as Linux's "
              "registered binary formats)",
    "call_intercept": "a chain of objects seeing the library calls the call tracer hooks: wants(proc, "
                      "site) -> whether a site's calls must reach them; enter(proc, frame, regs) -> True "
                      "when it returned from the call itself (the others' enter is not called); "
                      "leave(proc, frame, regs) at its return. The one chained last is outermost: its "
                      "enter and its leave run first",
}
CHAINED = ("intercept", "call_intercept")


class InterceptChain:
    """The kernel's intercept when more than one is chained: the outermost first at entry, the
    innermost first at exit (as each wrapping the one before would)."""

    __slots__ = ("links",)

    def __init__(self, links) -> None:
        self.links = tuple(links)           # outermost first

    def enter(self, proc, nr, sc, args):
        for link in self.links:
            faked = link.enter(proc, nr, sc, args)
            if faked is not None:
                return faked
        return None

    def exit(self, proc, nr, sc, args, ret):
        for link in reversed(self.links):
            ret = link.exit(proc, nr, sc, args, ret)
        return ret


class CallInterceptChain:
    """The call tracer's intercept when more than one is chained: the outermost first, at entry
    (the first that returns from the call stops the others) and at the return."""

    __slots__ = ("links",)

    def __init__(self, links) -> None:
        self.links = tuple(links)           # outermost first

    def wants(self, proc, site) -> bool:
        return any(link.wants(proc, site) for link in self.links)

    def enter(self, proc, frame, regs) -> bool:
        for link in self.links:
            if link.enter(proc, frame, regs):
                return True
        return False

    def leave(self, proc, frame, regs) -> None:
        for link in self.links:
            link.leave(proc, frame, regs)


_CHAIN_OF = {"intercept": InterceptChain, "call_intercept": CallInterceptChain}


class Hooks:
    """Callbacks by phase, called in registration order, and the roles the kernel and the call
    tracer read."""

    __slots__ = ("_by_phase", "observer", "intercept", "binfmt", "call_intercept", "_links")

    def __init__(self) -> None:
        self._by_phase: Dict[str, List[Callable]] = {p: [] for p in PHASES}
        self.observer = None                # (roles: see ROLES; set through serve() and chain())
        self.intercept = None
        self.binfmt = None
        self.call_intercept = None
        self._links: Dict[str, List] = {role: [] for role in CHAINED}    # each chain, outermost first

    def serve(self, role: str, obj) -> None:
        """Fill a one-object role (observer, binfmt); None empties it."""
        if role not in ROLES or role in CHAINED:
            raise ValueError(f"no one-object role {role!r} (roles: observer, binfmt; "
                             f"{', '.join(CHAINED)} are chained)")
        setattr(self, role, obj)

    def chain(self, role: str, obj) -> None:
        """Put obj outermost in a chained role (intercept, call_intercept)."""
        if role not in CHAINED:
            raise ValueError(f"no chained role {role!r} (chained: {', '.join(CHAINED)})")
        self._links[role].insert(0, obj)
        self._relink(role)

    def unchain(self, role: str, obj) -> None:
        links = self._links.get(role, ())
        if obj in links:
            links.remove(obj)
            self._relink(role)

    def _relink(self, role: str) -> None:
        links = self._links[role]
        setattr(self, role, None if not links else links[0] if len(links) == 1 else _CHAIN_OF[role](links))

    def _list(self, phase: str) -> List[Callable]:
        try:
            return self._by_phase[phase]
        except KeyError:
            raise ValueError(f"no hook phase {phase!r} (phases: {', '.join(PHASES)})") from None

    def on(self, phase: str, fn: Callable) -> Callable:
        """Register fn on phase; returns fn (so it can be given to off())."""
        self._list(phase).append(fn)
        return fn

    def off(self, phase: str, fn: Callable) -> None:
        fns = self._list(phase)
        if fn in fns:
            fns.remove(fn)

    def listeners(self, phase: str) -> List[Callable]:
        """The live list of phase's callbacks: a hot path keeps it and tests its truth, which
        costs less than a call of wants() per event."""
        return self._list(phase)

    def wants(self, phase: str) -> bool:
        """True when some callback is registered: callers skip building arguments otherwise."""
        return bool(self._list(phase))

    def first(self, phase: str, *args) -> bool:
        """Call phase's callbacks with args until one returns true; returns whether one did."""
        for fn in tuple(self._list(phase)):
            if fn(*args):
                return True
        return False

    def fire(self, phase: str, *args) -> int:
        """Call every callback of phase with args; returns how many were called."""
        fns = self._list(phase)
        for fn in tuple(fns):
            fn(*args)
        return len(fns)
