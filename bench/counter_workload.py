"""bench/ workload `counter`: what the execution counter (the work-driven clock, issue 34) costs
an untraced run, on the real-program set (git, xz, perl, python3, C++ and bash: the programs of
program_workloads.py) and on `python3 -c pass`.

Two tools: `emutrace --no-trace` as it runs, and the same with EMUTRACE_BENCH_NO_COUNTER=1, a
knob read for bench/ only (emutrace/machine/cpu.py): the compiled counter is made but not
hooked, so no block is counted (no clock from work, no time slices: a run of one thread is
otherwise the same). Target: the counter's cost <= 5% on each program; python3 -c pass not
slower than before the counter."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from bench import program_workloads

NAMES = ("counter",)
TOOLS = ("emutrace-notrace", "emutrace-nocounter")
LABELS = {"emutrace-nocounter": "emutrace --no-trace, without the counter (EMUTRACE_BENCH_NO_COUNTER=1)"}
TARGET = 0.05


def command(tool: str, argv: List[str], clock: int) -> List[str]:
    return ["/usr/bin/env", "EMUTRACE_BENCH_NO_COUNTER=1", sys.executable, "-m", "emutrace", "--inherit-env",
            "--clock", str(clock), "--no-trace"] + argv


def cases(only: Sequence[str], quick: bool, tmp: Path, notes: List[str], make_case: Callable,
          which: Callable[[str], Optional[str]], python: str) -> list:
    """make_case(workload, label, argv); the labels start with "counter:" (the program
    workloads' own rows are other cases)."""
    if "counter" not in only:
        return []
    sub = tmp / "counter"
    sub.mkdir(exist_ok=True)
    out = program_workloads.cases(program_workloads.NAMES, quick, sub, notes,
                                  lambda wl, label, argv: make_case("counter", f"counter: {label}", argv), which)
    out.append(make_case("counter", "counter: python3 -c pass", [python, "-c", "pass"]))
    return out


def render(cases_: list, results, fmt_time) -> List[str]:
    rows = []
    for c in cases_:
        if c.workload != "counter":
            continue
        on, off = results.get((c.label, "emutrace-notrace")), results.get((c.label, "emutrace-nocounter"))
        if not (on and off and on.median and off.median):
            rows.append(f"| {c.label[9:]} | - | - | - | not measured |")
            continue
        cost = on.median / off.median - 1
        rows.append(f"| {c.label[9:]} | {fmt_time(on.median)} | {fmt_time(off.median)} | {cost * 100:+.1f}% | "
                    f"{'met' if cost <= TARGET else '**missed**'} |")
    if not rows:
        return []
    return ["### The execution counter's cost, untraced (target: <= 5%)", "",
            "| program | --no-trace | without the counter | cost | |", "|---|---:|---:|---:|---|", *rows, ""]
