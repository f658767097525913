"""The World: every source of nondeterminism a guest can observe, in one place.

Same World settings and same inputs → same bytes out, on any host and at any time:
- the clock is virtual and driven by the guest's work (docs/time.md): it starts at `clock_start`
  (default 2024-01-01T00:00:00Z) and advances by `ns_per_insn` per retired guest instruction
  (a nominal CPU: 1 instruction per nanosecond), by `tick_ns` at every system call (its modelled
  cost), and by exactly the time a sleep or timeout asks for when nothing can run (sleeps cost
  no real time);
- randomness (AT_RANDOM, getrandom, /dev/urandom, /dev/random) is a SHA-256 counter stream
  seeded by `seed`;
- pid, ppid, uid/gid (0 by default: the guest is root of its own sandbox), hostname and uname
  are fixed; load addresses are fixed (no ASLR);
- the environment is fixed unless the user adds to it or inherits the host's; its LANG is the
  root's UTF-8 locale (C.UTF-8 on Debian), chosen from the root's files (guestlocale.py).
"""
from __future__ import annotations

from typing import Dict

from emutrace.machine.digest import sha256
from emutrace.record import field, record

DEFAULT_CLOCK_START = 1704067200          # 2024-01-01T00:00:00Z
MONOTONIC_AT_START = 10_000_000_000       # CLOCK_MONOTONIC when the program starts
DEFAULT_ENV = {
    "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME": "/root",
    "LANG": "C",          # the fallback: a session puts the root's UTF-8 locale here (guestlocale.py)
    "TERM": "dumb",
}


@record
class World:
    seed: int = 0
    clock_start: int = DEFAULT_CLOCK_START
    tick_ns: int = 1000                   # a system call's modelled cost: 1 µs
    ns_per_insn: int = 1                  # the nominal CPU: one retired instruction per ns
    pid: int = 1000
    ppid: int = 999
    uid: int = 0                          # root of its own sandbox, as in a container: writes only
    gid: int = 0                          # ever reach the overlay, and CI runs natively as root
    hostname: str = "emutrace"
    kernel_release: str = "6.1.0-emutrace"
    kernel_version: str = "#1 SMP PREEMPT_DYNAMIC Mon Jan  1 00:00:00 UTC 2024"
    env: Dict[str, str] = field(default_factory=lambda: dict(DEFAULT_ENV))
    auto_locale: bool = True              # LANG is chosen from the root's locales (not the user's)
    extra: int = 0                        # virtual time not from work: system calls, sleeps (extra_ns)
    work_base: int = 0                    # instructions retired before the running slice
    realtime_step_ns: int = 0             # how far the wall clock stepped forward (shown())
    _rand_counter: int = 0
    _rand_pool: bytes = b""
    _next_pid: int = 0

    # -- clock -------------------------------------------------------------
    # The running slice's engine counter (emutrace/machine/workcount.py) and its total when the
    # slice started: the work of the run so far is work_base + (counter.total - mark).
    _counter = None
    _mark = 0

    @property
    def work(self) -> int:
        """Guest instructions retired in the whole run so far (every thread of every process:
        one nominal CPU runs them one after another)."""
        c = self._counter
        return self.work_base if c is None else self.work_base + c.total - self._mark

    @property
    def elapsed_ns(self) -> int:
        """Virtual time since start: work at the nominal rate, plus system calls and sleeps."""
        c = self._counter
        work = self.work_base if c is None else self.work_base + c.total - self._mark
        return self.extra_ns + work * self.ns_per_insn

    @elapsed_ns.setter
    def elapsed_ns(self, ns: int) -> None:
        # (`elapsed_ns += d`: the d is not work)
        self.extra_ns = self.extra + ns - self.elapsed_ns

    def elapsed_at(self, rip: int) -> int:
        """elapsed_ns inside a code hook at rip, exact: the running block counted up to rip, not in
        full as elapsed_ns counts it (so a function's entry and return split the work where its
        code does: docs/time.md)."""
        c = self._counter
        if c is None:
            return self.elapsed_ns
        return self.extra_ns + (self.work_base + c.exact(rip) - self._mark) * self.ns_per_insn

    @property
    def extra_ns(self) -> int:
        return self.extra

    @extra_ns.setter
    def extra_ns(self, ns: int) -> None:
        self.extra = ns
        c = self._counter
        if c is not None:           # (RDTSC, answered by the counter, follows)
            c.tsc_base = self._tsc_base(c)

    def _tsc_base(self, c) -> int:
        """What RDTSC on c's engine adds to c.total * ns_per_insn: monotonic_ns() then."""
        return MONOTONIC_AT_START + self.extra + (self.work_base - self._mark) * self.ns_per_insn

    def running(self, counter) -> None:
        """A slice starts on the engine whose counter this is (None: none runs)."""
        self.work_base = self.work
        self._counter = counter
        self._mark = counter.total if counter is not None else 0
        if counter is not None:
            counter.rate = self.ns_per_insn
            counter.tsc_base = self._tsc_base(counter)

    def stopped(self) -> int:
        """The slice ended: its work is kept; returns the instructions it retired."""
        before = self.work_base
        self.running(None)
        return self.work_base - before

    def insns_until(self, ns: int) -> int:
        """The instructions after which the clock reaches `ns` of elapsed time (>= 1)."""
        return max(1, -(-(ns - self.elapsed_ns) // self.ns_per_insn))

    def tick(self, ns: int = 0) -> None:
        self.extra_ns = self.extra + (ns or self.tick_ns)

    def shown(self, ns: int) -> None:
        """The guest is being shown the time `ns` (a host file's mtime): the wall clock never
        runs behind a time the guest has seen, so it steps forward to it, as an NTP step moves
        CLOCK_REALTIME: the monotonic and CPU clocks, and so every duration, are untouched.
        Deterministic: such times are inputs (a file's mtime travels with its copies)."""
        behind = ns - self.realtime_ns()
        if behind > 0:
            self.realtime_step_ns += behind     # (the kernel's vDSO data pages follow: kernel/vvar.py)

    def realtime_base_ns(self) -> int:
        """CLOCK_REALTIME at elapsed time 0, with every step taken so far."""
        return self.clock_start * 1_000_000_000 + self.realtime_step_ns

    def realtime_ns(self) -> int:
        return self.realtime_base_ns() + self.elapsed_ns

    def monotonic_ns(self) -> int:
        return MONOTONIC_AT_START + self.elapsed_ns     # "booted" 10 s before the program started

    def clock_ns(self, clock_id: int) -> int:
        # CLOCK_REALTIME(0) _COARSE(5) _ALARM(8) TAI(11) follow the wall clock; the rest are monotonic;
        # process/thread CPU clocks (2, 3) count virtual time since start.
        if clock_id in (0, 5, 8, 11):
            return self.realtime_ns()
        if clock_id in (2, 3):
            return self.elapsed_ns          # (the kernel answers for the calling thread: time.py)
        return self.monotonic_ns()

    # -- randomness --------------------------------------------------------
    def random_bytes(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            if not self._rand_pool:
                self._rand_pool = sha256(
                    self.seed.to_bytes(8, "little", signed=True) + self._rand_counter.to_bytes(8, "little")).digest()
                self._rand_counter += 1
            take = min(n - len(out), len(self._rand_pool))
            out += self._rand_pool[:take]
            self._rand_pool = self._rand_pool[take:]
        return bytes(out)

    # -- ids ---------------------------------------------------------------
    def new_pid(self) -> int:
        self._next_pid = max(self._next_pid, self.pid) + 1
        return self._next_pid
