"""bench/ workload `counter`: what the execution counter (the work-driven clock, issue 34) costs
an untraced run, on the real-program set (git, xz, perl, python3, C++ and bash: the programs of
program_workloads.py) and on `python3 -c pass`.

Three tools: `emutrace --no-trace` as it runs, and the same with EMUTRACE_BENCH_NO_COUNTER=1, a
knob read for bench/ only (emutrace/machine/cpu.py): the compiled counter is made but not
hooked, so no block is counted (no clock from work, no time slices: a run of one thread is
otherwise the same); and with EMUTRACE_BENCH_NO_COUNTER=empty: a block hook that does nothing,
Unicorn's own cost of calling one (the floor of any counter made of a block hook). Target: the
counter's cost <= 5% on each program; python3 -c pass not slower than before the counter."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

from bench import program_workloads

NAMES = ("counter",)
TOOLS = ("emutrace-notrace", "emutrace-nocounter", "emutrace-emptyhook")
LABELS = {"emutrace-nocounter": "emutrace --no-trace, without the counter (EMUTRACE_BENCH_NO_COUNTER=1)",
          "emutrace-emptyhook": "emutrace --no-trace, an empty block hook (EMUTRACE_BENCH_NO_COUNTER=empty)"}
KNOB = {"emutrace-nocounter": "1", "emutrace-emptyhook": "empty"}
TARGET = 0.05


def command(tool: str, argv: List[str], clock: int) -> List[str]:
    return ["/usr/bin/env", f"EMUTRACE_BENCH_NO_COUNTER={KNOB[tool]}", sys.executable, "-m", "emutrace", "--inherit-env",
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


def _cpu(res) -> Optional[float]:
    """A result's least host CPU time (what a loaded machine blurs least), else its median wall time."""
    if res is None:
        return None
    return res.min_cpu or res.median


def render(cases_: list, results, fmt_time) -> List[str]:
    rows = []
    for c in cases_:
        if c.workload != "counter":
            continue
        on, off = _cpu(results.get((c.label, "emutrace-notrace"))), _cpu(results.get((c.label, "emutrace-nocounter")))
        empty = _cpu(results.get((c.label, "emutrace-emptyhook")))
        if not (on and off):
            rows.append(f"| {c.label[9:]} | - | - | - | - | - | not measured |")
            continue
        cost = on / off - 1
        floor = f"{fmt_time(empty)} | {(empty / off - 1) * 100:+.1f}%" if empty else "- | -"
        rows.append(f"| {c.label[9:]} | {fmt_time(on)} | {fmt_time(off)} | {cost * 100:+.1f}% | {floor} | "
                    f"{'met' if cost <= TARGET else '**missed**'} |")
    if not rows:
        return []
    return ["### The execution counter's cost, untraced (target: <= 5%; least host CPU time of the runs)", "",
            "| program | --no-trace | without the counter | cost | an empty block hook | its cost (Unicorn's floor) | |",
            "|---|---:|---:|---:|---:|---:|---|", *rows, ""]
