"""Timelines people can look at: Chrome trace-event JSON (--chrome) and folded stacks (--folded).

Both are event sinks (event(ev), close()) fed the same Call/Return/Syscall/Signal/Exit events as
the text formats, library calls and functions alike, and both use the virtual clock: time
advances by 1 µs per system call (and by what sleeps ask for), never with instructions. Code
that makes no system call between two events therefore takes no time: a compute-only function
shows with zero duration. That is the price of a trace that is the same on every run and host;
the order and nesting of events are exact whatever their timestamps.

Chrome trace (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU):
`{"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}`, one track per thread
(`pid`/`tid`, named by "M" metadata events), `ts` in microseconds of the virtual clock.
Calls are "B"/"E" duration events written in the order they happen — the format's rule for
events with equal timestamps is file order, and B/E keep the nesting even at zero duration,
where "X" events would be ambiguous. `cat` is "function", "call" (library call) or "syscall";
`args` holds the decoded arguments, the library and return value (on "E"), or `unwound: true`
for frames left by longjmp or an exception. Frames still open at exit end at the exit.
Signals are instant events. Events are written as they happen; the closing bracket comes at
the end, so a killed run leaves a file that needs `]}` appended.

Folded stacks (Brendan Gregg's flamegraph.pl input): `main;fib;fib;leaf 12`, one line per
distinct stack, weighted by the virtual nanoseconds spent with exactly that stack on top
(self time). The interval before each event is charged to the stack of the thread the event
belongs to, as it was before the event; time when nothing traced is open (the dynamic loader
before `_start`, for instance) is charged to `[untraced]`; system calls, when traced (-S), add
a `name_[k]` leaf for the interval that ends with them. The weights sum to the virtual time of
the run up to its last event. Stacks that took no time are left out (flamegraph.pl ignores
them anyway).
"""
from __future__ import annotations

import json
from typing import Dict, List, Optional, TextIO

from emutrace.events import Call, Exit, Return, Signal, Syscall

UNTRACED = "[untraced]"


def _ts(ns: int):
    """Microseconds, exact: an int when whole, else a float with nanosecond digits."""
    return ns // 1000 if ns % 1000 == 0 else round(ns / 1000, 3)


class ChromeTrace:
    def __init__(self, stream: TextIO, process_name: str = "", own: bool = True):
        self.f = stream
        self.own = own
        self.process_name = process_name
        self.first = True
        self.open: Dict[tuple, List[Call]] = {}        # (pid, tid) → open calls, outermost first
        self.threads = set()
        self.processes = set()
        self.last_ns = 0
        self.f.write('{"traceEvents":[\n')

    def _write(self, obj: dict) -> None:
        text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
        self.f.write(text if self.first else ",\n" + text)
        self.first = False

    def _track(self, pid: int, tid: int) -> None:
        if pid not in self.processes:
            self.processes.add(pid)
            name = f"{self.process_name} [{pid}]" if self.process_name else f"[{pid}]"
            self._write({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": pid,
                         "args": {"name": name}})
        if (pid, tid) not in self.threads:
            self.threads.add((pid, tid))
            self._write({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid,
                         "args": {"name": f"thread {tid}" + (" (main)" if tid == pid else "")}})

    def event(self, ev) -> None:
        self.last_ns = max(self.last_ns, ev.time_ns)
        if isinstance(ev, Call):
            self._track(ev.pid, ev.tid)
            self.open.setdefault((ev.pid, ev.tid), []).append(ev)
            args = {"module": ev.lib}
            if ev.caller:                # else no return address: `_start`, jumped to
                args.update(caller=ev.caller, return_address=f"{ev.caller_addr:#x}")
            if ev.kind == "call":
                args = {"args": list(ev.args), **args}
            elif ev.typed:                # --ftrace -a: the arguments by name, from DWARF
                args["args"] = {t["name"]: t["text"] for t in ev.typed}
            elif ev.args:
                args["args"] = list(ev.args)
            self._write({"name": ev.name, "cat": ev.kind, "ph": "B", "ts": _ts(ev.time_ns),
                         "pid": ev.pid, "tid": ev.tid, "args": args})
        elif isinstance(ev, Return):
            stack = self.open.get((ev.pid, ev.tid))
            if not stack or not any(c.id == ev.id for c in stack):
                return                   # its Call was never seen (depth limit): no E either
            while stack:
                call = stack.pop()
                if call.id == ev.id:
                    args = {"unwound": True} if ev.unwound else {"return": ev.ret, "args": list(ev.args)}
                    if ev.kind != "call" and not ev.unwound:
                        args = {"return": ev.ret} if ev.ret else {}
                    self._end(call, ev.time_ns, args)
                    break
                self._end(call, ev.time_ns, {"unwound": True})
        elif isinstance(ev, Syscall):
            self._track(ev.pid, ev.tid)
            start = ev.time_ns - ev.duration_ns
            self._write({"name": ev.name, "cat": "syscall", "ph": "B", "ts": _ts(start),
                         "pid": ev.pid, "tid": ev.tid, "args": {"call": ev.line}})
            self._write({"name": ev.name, "cat": "syscall", "ph": "E", "ts": _ts(ev.time_ns),
                         "pid": ev.pid, "tid": ev.tid, "args": {"return": ev.ret, "errno": ev.errno}})
        elif isinstance(ev, Signal):
            self._track(ev.pid, ev.tid)
            self._write({"name": ev.name, "cat": "signal", "ph": "i", "s": "t", "ts": _ts(ev.time_ns),
                         "pid": ev.pid, "tid": ev.tid, "args": {"info": _jsonable(ev.info)}})
        elif isinstance(ev, Exit):
            self._track(ev.pid, ev.tid)
            for (pid, tid), stack in self.open.items():
                if pid == ev.pid:
                    self._close_all(stack, ev.time_ns)
            what = f"killed by {ev.signal_name or ev.signal}" if ev.signal else f"exit {ev.status}"
            self._write({"name": what, "cat": "exit", "ph": "i", "s": "p", "ts": _ts(ev.time_ns),
                         "pid": ev.pid, "tid": ev.tid, "args": {"status": ev.status, "signal": ev.signal}})

    def _end(self, call: Call, ns: int, args: dict) -> None:
        self._write({"name": call.name, "cat": call.kind, "ph": "E", "ts": _ts(ns),
                     "pid": call.pid, "tid": call.tid, "args": args})

    def _close_all(self, stack: List[Call], ns: int) -> None:
        while stack:
            self._end(stack.pop(), ns, {"unfinished": True})

    def close(self) -> None:
        for stack in self.open.values():
            self._close_all(stack, self.last_ns)
        self.f.write('\n],"displayTimeUnit":"ns","otherData":{"clock":"emutrace virtual clock: '
                     '1 us per system call; compute takes no time"}}\n')
        if self.own:
            self.f.close()
        else:
            self.f.flush()


def _jsonable(v):
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    return str(v)


class FoldedStacks:
    def __init__(self, stream: TextIO, own: bool = True):
        self.f = stream
        self.own = own
        self.stacks: Dict[tuple, List[tuple]] = {}     # (pid, tid) → [(id, name)], outermost first
        self.weights: Dict[str, int] = {}
        self.last_ns = 0

    def _charge(self, key: tuple, now: int, leaf: Optional[str] = None) -> None:
        delta = now - self.last_ns
        if delta > 0:
            names = [n for _, n in self.stacks.get(key, ())]
            if leaf:
                names.append(leaf)
            line = ";".join(names) if names else UNTRACED
            self.weights[line] = self.weights.get(line, 0) + delta
            self.last_ns = now

    def event(self, ev) -> None:
        key = (ev.pid, ev.tid)
        if isinstance(ev, Syscall):
            self._charge(key, ev.time_ns, ev.name + "_[k]")
            return
        self._charge(key, ev.time_ns)
        if isinstance(ev, Call):
            self.stacks.setdefault(key, []).append((ev.id, ev.name.replace(";", ":")))
        elif isinstance(ev, Return):
            stack = self.stacks.get(key)
            if stack and any(fid == ev.id for fid, _ in stack):
                while stack and stack.pop()[0] != ev.id:
                    pass
        elif isinstance(ev, Exit):
            for k in list(self.stacks):
                if k[0] == ev.pid:
                    self.stacks[k] = []

    @property
    def total(self) -> int:
        return sum(self.weights.values())

    def close(self) -> None:
        for line in sorted(self.weights):
            self.f.write(f"{line} {self.weights[line]}\n")
        if self.own:
            self.f.close()
        else:
            self.f.flush()
