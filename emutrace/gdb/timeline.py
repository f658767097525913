"""Reverse execution from determinism: a moment of the run is reached again by running the run
again from its start (design decision 13), with what gdb changed replayed at its position.

A position (emutrace/gdb/positions.py) names a moment exactly. Going back is a replay: a new
session of the same program, options and seed, run with gdb's stops held back until the
instruction counter reaches the position wanted, where the stop is reported. On the way:
- `bs` (reverse-stepi) goes to the previous instruction of the thread that stopped (the run's
  thread switches are recorded, so this is the previous instruction of *that* thread);
- `bc` (reverse-continue) first replays up to the current position, noting every breakpoint and
  watchpoint hit (a write is noted before the storing instruction, so gdb sees the old value as
  the new one), then replays to the last of them; with none, to the start of the run, which is
  reported as `replaylog:begin`;
- `monitor goto POS`, then `continue`, goes to any position (forwards without a replay).

Registers and memory gdb writes are part of the run's input: each is recorded with its position
and written again there in every replay; going back before one forgets it (a new timeline).
What a replay cannot give again: the host's input (stdin, --net sockets, files under --rw that
the run changed). While a replay is behind the furthest position already run, the program's
output (fds 1 and 2) is muted, so the terminal sees it once; the trace file holds the first run
(replays trace to nowhere).
"""
from __future__ import annotations

import bisect
import os
from typing import List, Optional, Tuple

from emutrace.gdb.debugger import Stop
from emutrace.gdb.memory import write_memory
from emutrace.gdb.positions import NEVER


class Travel(Exception):
    """gdb asked to go somewhere in time: mode bs | bc | goto, from a thread at a position."""

    def __init__(self, mode: str, thread, position: int, to: Optional[int] = None):
        super().__init__(mode)
        self.mode, self.position, self.to = mode, position, to
        self.tid = (thread.proc.pid, thread.tid) if thread is not None else None


class Plan:
    """One replay: run to `to` (holding every stop back), noting hits before `scan_to` first."""

    def __init__(self, to: int, reason: str = "", value: str = "", scan_to: Optional[int] = None, mode: str = "",
                 scan_from: int = 0):
        self.to, self.reason, self.value, self.scan_to, self.mode = to, reason, value, scan_to, mode
        self.scan_from = scan_from                     # a scan notes the hits in [scan_from, scan_to)
        self.hits: List[Tuple[int, str, int]] = []     # (position, kind, address)

    def start(self) -> int:
        """The earliest position this replay must run from."""
        return self.scan_from if self.scan_to is not None else self.to

    def keep(self) -> int:
        """gdb's writes after this position belonged to the old future."""
        return self.to if self.scan_to is None else self.scan_to

    def export(self) -> dict:
        return {"to": self.to, "reason": self.reason, "value": self.value, "scan_to": self.scan_to,
                "mode": self.mode, "scan_from": self.scan_from}


class Timeline:
    def __init__(self):
        self.plan: Optional[Plan] = None
        self.high = 0                                  # the furthest position a stop was at
        self.switches: List[Tuple[int, Tuple[int, int]]] = []   # (position, (pid, tid)) a thread starts running
        self.writes: List[Tuple[int, str, Tuple[int, int], int, bytes]] = []   # gdb's writes
        self.muted: Optional[List[Tuple[int, int]]] = None    # (fd, saved copy) while muted
        self.replays = 0
        self.goto: Optional[int] = None               # monitor goto's destination, for the next resume

    # -- during any run ------------------------------------------------------------------------
    def busy(self) -> bool:
        """A replay is under way: no stop is reported until it arrives."""
        return self.plan is not None

    def stopped_at(self, dbg, pos: int) -> None:
        self.high = max(self.high, pos)

    def switched(self, dbg, pos: int, t) -> None:
        key = (t.proc.pid, t.tid)
        sw = self.switches
        if sw and sw[-1][0] > pos:
            return                                     # (a replay: recorded already)
        if sw and sw[-1][0] == pos:
            sw[-1] = (pos, key)
        elif not sw or sw[-1][1] != key:
            sw.append((pos, key))

    def wrote(self, dbg, kind: str, t, where: int, data: bytes) -> None:
        if self.plan is None:
            pos = dbg.position()
            self.writes.append((pos, kind, (t.proc.pid, t.tid), where, bytes(data)))
            dbg.checkpoints.drop_after(pos)        # (their future is not this one any more)

    def next_stop(self, first: int) -> int:
        """The next position (>= first, the next one the counter will see) the timeline needs
        to see: a write of gdb's to make again, the end of muting, a replay's destination."""
        cands = [NEVER]
        if self.plan is not None:
            cands.append(self.plan.to if self.plan.scan_to is None else self.plan.scan_to)
        if self.muted is not None:
            cands.append(self.high)
        i = bisect.bisect_left(self.writes, (first,))
        if i < len(self.writes):
            cands.append(self.writes[i][0])
        return max(first, min(cands))

    def passing(self, dbg, pos: int) -> None:
        """The counter is before the instruction at pos: make gdb's writes of pos again, and
        let the program's output through once past what was already shown."""
        if self.muted is not None and pos >= self.high:
            self._unmute()
        if self.plan is None:
            return
        i = bisect.bisect_left(self.writes, (pos,))
        while i < len(self.writes) and self.writes[i][0] == pos:
            _, kind, (pid, tid), where, data = self.writes[i]
            t = next((x for x in dbg.live_threads() if x.proc.pid == pid and x.tid == tid), None)
            if t is not None:
                if kind == "mem":
                    write_memory(t.proc, where, data)
                else:
                    regs = dbg.server.registers(t)
                    regs.write_all(data) if kind == "regs" else regs.write(where, data)
            i += 1

    # -- a replay ---------------------------------------------------------------------------------------
    def hit(self, dbg, kind: str, pos: int, t, address: int) -> None:
        plan = self.plan
        if plan is not None and plan.scan_to is not None and plan.scan_from <= pos < plan.scan_to:
            if kind == "break":
                plan.hits.append((pos, "swbreak", 0))
            else:
                plan.hits.append((pos, kind, address))

    def arrive(self, dbg, pos: int, t) -> None:
        """The counter reached a replay's mark: the end of a scan (then the replay goes on to
        the last hit, or starts again for it) or the destination (then gdb hears of it)."""
        plan = self.plan
        if plan.scan_to is not None:
            if pos < plan.scan_to:
                return
            if plan.hits:
                last, kind, addr = plan.hits[-1]
                raise _Replan(Plan(last, "swbreak" if kind == "swbreak" else kind,
                                   "" if kind == "swbreak" else f"{addr:x}", mode="bc"))
            if plan.scan_from > 0:
                # nothing in this interval: the one before it, from the checkpoint before it
                start = dbg.checkpoints.before(plan.scan_from)
                raise _Replan(Plan(start, scan_to=plan.scan_from, mode="bc", scan_from=start))
            raise _Replan(Plan(0, "replaylog", "begin", mode="bc"))
        if pos < plan.to:
            return
        self.plan = None
        dbg.replay_over()
        dbg.report(Stop(t, reason=plan.reason, value=plan.value))

    def back_to(self, dbg, to: int, reason: str, value: str, shown: int) -> None:
        """The run went past a stop (a watchpoint's, which is seen only at the next block): a
        replay to it, the output before `shown` muted (the run printed it)."""
        self.stopped_at(dbg, shown)
        raise _Replan(Plan(to, reason, value, mode="watch"))

    # -- planning -------------------------------------------------------------------------------------------
    def plan_for(self, travel: Travel, checkpoints) -> Plan:
        """The replay a travel needs; reverse-continue scans back one checkpoint interval at a
        time (from the latest checkpoint before the position: rr's way), the last hit found wins."""
        pos = travel.position
        if travel.mode == "bs":
            prev = self.previous(travel.tid, pos)
            if prev is None:
                return Plan(0, "replaylog", "begin", mode="bs")
            return Plan(prev, mode="bs")
        if travel.mode == "bc":
            if pos == 0:
                return Plan(0, "replaylog", "begin", mode="bc")
            start = checkpoints.before(pos)
            return Plan(start, scan_to=pos, mode="bc", scan_from=start)
        return Plan(travel.to, mode="goto")

    def previous(self, tid, pos: int) -> Optional[int]:
        """The position of the previous instruction of thread tid before pos, or None."""
        if pos <= 0:
            return None
        sw = self.switches
        i = bisect.bisect_right(sw, (pos - 1, (1 << 62, 0))) - 1
        end = pos                                   # the segment [sw[i][0], end) runs sw[i][1]
        while i >= 0:
            start, who = sw[i]
            if (who == tid or tid is None) and start < end:
                return end - 1
            end = start
            i -= 1
        return pos - 1 if not sw else None

    def take_goto(self, dbg, thread):
        """At gdb's next resume after `monitor goto POS`: forwards, the run goes on with every
        stop held back until POS (None returned: resume as asked); backwards, a Travel."""
        to, self.goto = self.goto, None
        if to is None:
            return None
        pos = dbg.position()
        if to >= pos:
            self.plan = Plan(to, mode="goto")
            return None
        raise Travel("goto", thread, pos, to)

    def begin(self, plan: Optional[Plan]) -> None:
        """A new session starts: with a plan, it is a replay."""
        self.plan = plan
        if plan is None:
            return
        self.replays += 1
        self.forget_after(plan.keep())
        if self.high > 0:
            self._mute()

    def forget_after(self, keep: int) -> Optional[int]:
        """Drop gdb's writes after keep (they belonged to the old future); the first dropped
        one's position, or None."""
        gone = [w[0] for w in self.writes if w[0] > keep]
        self.writes = [w for w in self.writes if w[0] <= keep]
        return min(gone) if gone else None

    # -- a checkpoint's hand-over ---------------------------------------------------------------------
    def export(self) -> dict:
        return {"writes": self.writes, "switches": self.switches, "high": self.high, "replays": self.replays}

    def install(self, state: dict) -> None:
        """A checkpoint became the worker: the session's timeline as the last worker left it,
        and the replay it asked for begins."""
        self.writes, self.switches = list(state["writes"]), list(state["switches"])
        self.high, self.replays, self.goto = state["high"], state["replays"], None
        p = state["plan"]
        self.begin(Plan(p["to"], p["reason"], p["value"], p["scan_to"], p["mode"], p["scan_from"]))

    # -- output ---------------------------------------------------------------------------------------------
    def _mute(self) -> None:
        if self.muted is not None:
            return
        null = os.open(os.devnull, os.O_WRONLY)
        self.muted = []
        for fd in (1, 2):
            try:
                self.muted.append((fd, os.dup(fd)))
                os.dup2(null, fd)
            except OSError:
                pass
        os.close(null)

    def _unmute(self) -> None:
        for fd, saved in self.muted or ():
            os.dup2(saved, fd)
            os.close(saved)
        self.muted = None

    def end(self) -> None:
        if self.muted is not None:
            self._unmute()

    # -- monitor commands ---------------------------------------------------------------------------------
    def monitor(self, dbg, server, command: str) -> str:
        words = command.split()
        if not words or words[0] == "help":
            return ("monitor when: the current position (instructions executed so far)\n"
                    "monitor goto POS: go to position POS, backwards or forwards\n"
                    "monitor checkpoints: the parked checkpoints (position, host pid) and the replays made\n")
        if words[0] == "checkpoints":
            cks = dbg.checkpoints
            rows = "".join(f"  {c.position} pid {c.pid}\n" for c in cks.kept)
            state = "on" if cks.on else "off: going back replays from the start"
            return (f"checkpoints {state}, every {cks.spacing()} instructions, {len(cks.kept)} parked; "
                    f"{self.replays} replays\n{rows}")
        if words[0] == "when":
            t = server.reg_thread()
            who = f" thread {server.thread_id(t)}" if t is not None else ""
            return f"position {dbg.position()}{who}\n"
        if words[0] == "goto" and len(words) == 2:
            try:
                to = int(words[1], 0)
            except ValueError:
                return f"goto: not a position: {words[1]}\n"
            if to < 0:
                return "goto: positions start at 0\n"
            self.goto = to
            return f"position {to}: the next continue goes there (backwards too), then stops\n"
        return f"unknown monitor command: {command} (try: monitor help)\n"


class _Replan(Exception):
    """A scan ended: the replay to make next (raised through the engine like a Travel)."""

    def __init__(self, plan: Plan):
        super().__init__(plan.mode)
        self.plan = plan
