"""bench/ workload `gdb`: what the gdb server costs (emutrace --gdb, issue 35), beside --no-trace
and beside gdbserver on a native run, on bins/gdbprog's arithmetic loop.

Each tool is one `gdb -batch` session over `target remote | ...`:
- gdb-continue: `continue` to the end (target: <= 1.15x --no-trace);
- gdb-break: the same with two breakpoints set that are never hit (target: the same);
- gdb-watch: a write watchpoint on a stack variable of the loop's function that the loop does
  not write (every store beside it is checked; target: <= 2x);
- gdb-rstepi: run to the printf after the loop, then one reverse-stepi (a replay from the latest
  checkpoint: its cost is this row minus gdb-break's; target: <= 1 s in a 1 G-instruction run);
- gdb-rstepi-start: the same without checkpoints (EMUTRACE_GDB_CHECKPOINTS=0: a replay of the
  whole run from its start, as where the host has no fork);
- gdb-rcont: run to that printf, then reverse-continue to the breakpoint at the loop function's
  entry, the whole loop back (scanned one checkpoint interval at a time);
- gdb-rwatch: `gdbprog corrupt N`: watch the global, continue to its corrupting store, continue
  to the crash N loop iterations later, reverse-continue back to the store (target: <= 3 s for
  100 M instructions back; its cost is this row minus gdb-watch's);
- gdbserver: `continue` under gdbserver, native.
One loop iteration is ~12 instructions at -O0, so N=10 M is ~120 M instructions."""
from __future__ import annotations

import shutil
import sys
from typing import Callable, List, Sequence

NAMES = ("gdb",)
TOOLS = ("native", "emutrace-notrace", "gdb-continue", "gdb-break", "gdb-watch", "gdb-rstepi", "gdb-rstepi-start",
         "gdb-rcont", "gdb-rwatch", "gdbserver")
LABELS = {
    "gdb-continue": "emutrace --gdb, continue",
    "gdb-break": "emutrace --gdb, 2 breakpoints, continue",
    "gdb-watch": "emutrace --gdb, watch a stack variable, continue",
    "gdb-rstepi": "emutrace --gdb, to the end, reverse-stepi",
    "gdb-rstepi-start": "emutrace --gdb, to the end, reverse-stepi without checkpoints",
    "gdb-rcont": "emutrace --gdb, to the end, reverse-continue to the start of the loop",
    "gdb-rwatch": "emutrace --gdb, watch, to the crash, reverse-continue to the store (corrupt N)",
    "gdbserver": "gdbserver (native), continue",
}
N, N_QUICK = 10_000_000, 1_000_000

_SCRIPTS = {
    "gdb-continue": ["continue"],
    "gdb-break": ["break on_usr1", "break corrupt_one", "continue"],
    "gdb-watch": ["break work", "continue", "watch -l n", "continue", "continue"],
    "gdb-rstepi": ["break printf", "continue", "reverse-stepi", "kill"],
    "gdb-rstepi-start": ["break printf", "continue", "reverse-stepi", "kill"],
    "gdb-rcont": ["break printf", "continue", "break work", "reverse-continue", "kill"],
    "gdb-rwatch": ["break main", "continue", "watch guard", "continue", "continue", "reverse-continue", "kill"],
    "gdbserver": ["continue"],
}


def available(gdb_path) -> bool:
    return bool(gdb_path)


def command(tool: str, argv: List[str], clock: int) -> List[str]:
    """The gdb session that measures `tool` on argv (argv[0]: bins/gdbprog)."""
    if tool == "gdbserver":
        server = f"{shutil.which('gdbserver')} - {' '.join(argv)}"
    else:
        if tool == "gdb-rwatch":
            argv = [argv[0], "corrupt", *argv[2:]]         # (the same N between the store and the crash)
        env = "env EMUTRACE_GDB_CHECKPOINTS=0 " if tool == "gdb-rstepi-start" else ""
        server = f"{env}{sys.executable} -m emutrace --gdb - --inherit-env --clock {clock} --no-trace {' '.join(argv)}"
    script = ["set pagination off", "set confirm off", f"target remote | {server}"] + _SCRIPTS[tool]
    return [shutil.which("gdb") or "gdb", "-nx", "-batch"] + [x for s in script for x in ("-ex", s)] + [argv[0]]


def cases(only: Sequence[str], quick: bool, make_case: Callable, build: Callable) -> list:
    if "gdb" not in only:
        return []
    exe = str(build("gdbprog", "pie"))
    n = N_QUICK if quick else N
    return [make_case("gdb", f"gdb: gdbprog loop N={n:,}", [exe, "loop", str(n)])]
