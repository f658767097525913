#!/usr/bin/env python3
"""emutrace benchmark: emutrace against native, ltrace, strace, uftrace, qemu-x86_64 (and Qiling
when it is importable), on the same workloads, in one run, side by side.

    python3 bench/run.py [--quick] [--only NAME[,NAME...]] [--tools T[,T...]]
                         [--reps N] [--timeout S] [--out FILE.md] [--keep]

Everything printed is measured in that run: whole-process wall time (median of --reps runs), peak
RSS from wait4(), the size of the trace each tracer wrote, whether the program's stdout and exit
status were the same as the native run's, and marginal costs per traced library call (callloop)
and per traced system call (readloop).  A run that hits --timeout is reported as ">N s (timeout)"
and not repeated.  See bench/README.md for what each workload is and how to read the tables.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


ALL_TOOLS = ("native", "emutrace", "emutrace-pure", "emutrace-notrace", "ltrace", "strace", "uftrace", "qemu",
             "qiling", "py-unicorn", "emutrace-coverage", "emutrace-coverage-pure", "emutrace-report",
             "emutrace-report-nowatch", "emutrace-ftrace",
             "emutrace-ftrace-args", "emutrace-ftrace-cold", "emutrace-ftrace-args-cold", "gdb-continue", "gdb-break",
             "gdb-watch", "gdb-rstepi", "gdb-rstepi-start", "gdb-rcont", "gdb-rwatch", "gdbserver",
             "emutrace-nocounter", "emutrace-emptyhook")
TOOL_LABEL = {
    "native": "native",
    "emutrace": "emutrace",
    "emutrace-pure": "emutrace, EMUTRACE_PURE=1",
    "emutrace-notrace": "emutrace --no-trace",
    "ltrace": "ltrace",
    "strace": "strace",
    "uftrace": "uftrace",
    "qemu": "qemu-x86_64",
    "qiling": "Qiling",
    "py-unicorn": "python3 -c 'import unicorn'",
    "emutrace-coverage": "emutrace --no-trace --coverage",
    "emutrace-coverage-pure": "emutrace --no-trace --coverage, EMUTRACE_PURE=1",
    "emutrace-report": "emutrace --no-trace --report (with the unpacked-code watch)",
    "emutrace-report-nowatch": "the same without the unpacked-code watch",
}
SLOW_RUN = 60.0            # seconds: a run this slow is measured once, not --reps times
WORKLOADS = ("callloop", "sort", "ls", "sha256sum", "python", "readloop", "startup", "freshcalls", "bashread")
from bench.measure import (  # noqa: E402  (one run measured: time, CPU, RSS, output)
    BENCH_ENV, Run, STD_PATH, _clear, measure, rss_method)
from bench.cells import (  # noqa: E402  (the report's cells and the machine it ran on)
    fmt_bytes, fmt_cost, fmt_time, loadavg, machine_info, output_cell, ratio_cell, time_cell)
from bench import memory_workloads  # noqa: E402  (guest-memory workloads: java, go, ... mprotect)
WORKLOADS += memory_workloads.NAMES
from bench import program_workloads  # noqa: E402  (real programs traced: git, xz, perl, ...)
WORKLOADS += program_workloads.NAMES
from bench import coverage_workload  # noqa: E402  (--coverage's cost per block)
WORKLOADS += coverage_workload.NAMES
from bench import churn_workloads  # noqa: E402  (process churn: fork, exec, a GNU build)
WORKLOADS += churn_workloads.NAMES
from bench import report_pages  # noqa: E402  (the analyst's pages; unpacked-code tracking's cost)
WORKLOADS += report_pages.NAMES
from bench import dwarf_workload  # noqa: E402  (--ftrace -a: arguments from DWARF)
WORKLOADS += dwarf_workload.NAMES
TOOL_LABEL.update(dwarf_workload.LABELS)
from bench import gdb_workload  # noqa: E402  (the gdb server: continue, watchpoints, reverse)
WORKLOADS += gdb_workload.NAMES
TOOL_LABEL.update(gdb_workload.LABELS)
from bench import counter_workload  # noqa: E402  (the execution counter's untraced cost)
WORKLOADS += counter_workload.NAMES
TOOL_LABEL.update(counter_workload.LABELS)
from bench import xzprofile  # noqa: E402  (--ftrace -c's shares on xz against uftrace's)
WORKLOADS += xzprofile.NAMES
# the marginal-cost workloads and the events each iteration makes
MARGINAL_EVENTS = {"callloop": 4, "readloop": 1, "freshcalls": 8}
BASH_LINES = 5000


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# Tools: how each one runs a program


@dataclass
class Env:
    tmp: Path
    timeout: float
    clock: int
    notes: List[str] = field(default_factory=list)
    load: List[str] = field(default_factory=list)
    tools: Dict[str, str] = field(default_factory=dict)        # available tool -> path/version
    skipped: Dict[str, str] = field(default_factory=dict)      # tool -> why


def tool_command(tool: str, argv: List[str], kind: str, env: Env) -> Tuple[List[str], Optional[Path]]:
    """(command, trace path) for running argv under `tool`.  kind: "lib" (library calls, the
    default), "sys" (system calls) or "sysf" (system calls of every process: -f)."""
    trace = env.tmp / f"trace-{tool}"
    if tool == "native":
        return argv, None
    if tool == "emutrace":
        mode = {"sys": ["--strace"], "sysf": ["-f", "--strace"]}.get(kind, [])
        return ([sys.executable, "-m", "emutrace", "--inherit-env", "--clock", str(env.clock)]
                + mode + ["-o", str(trace)] + argv, trace)
    if tool == "emutrace-pure":         # the pure-Python event path (the compiled one's reference)
        mode = ["--strace"] if kind == "sys" else []
        return (["/usr/bin/env", "EMUTRACE_PURE=1", sys.executable, "-m", "emutrace", "--inherit-env", "--clock",
                 str(env.clock)] + mode + ["-o", str(trace)] + argv, trace)
    if tool == "emutrace-notrace":
        return ([sys.executable, "-m", "emutrace", "--inherit-env", "--clock", str(env.clock),
                 "--no-trace"] + argv, None)
    if tool in dwarf_workload.LABELS:
        return dwarf_workload.command(tool, argv, trace, env.clock), trace
    if tool in ("emutrace-coverage", "emutrace-coverage-pure"):      # (drcov, the default format)
        pure = ["/usr/bin/env", "EMUTRACE_PURE=1"] if tool == "emutrace-coverage-pure" else []
        return (pure + [sys.executable, "-m", "emutrace", "--inherit-env", "--clock", str(env.clock),
                        "--no-trace", "--coverage", str(trace)] + argv, trace)
    if tool in ("emutrace-report", "emutrace-report-nowatch"):
        # the watch is registered by the report's Unpacked.install: "nowatch" replaces it by nothing
        off = "import emutrace.report.unpacked as u; u.Unpacked.install = lambda self, hooks: None; " \
            if tool == "emutrace-report-nowatch" else ""
        code = f"import sys; {off}from emutrace.cli import entry; sys.argv[0] = 'emutrace'; entry()"
        return ([sys.executable, "-c", code, "--inherit-env", "--clock", str(env.clock), "--no-trace",
                 "--report", str(trace)] + argv, trace)
    if tool == "ltrace":
        mode = ["-L", "-S"] if kind == "sys" else []
        return [env.tools["ltrace"]] + mode + ["-o", str(trace)] + argv, trace
    if tool == "strace":
        return [env.tools["strace"], "-o", str(trace)] + argv, trace
    if tool == "uftrace":
        return [env.tools["uftrace"], "record", "--force", "-a", "-d", str(trace), "--"] + argv, trace
    if tool == "qemu":
        return [env.tools["qemu"]] + argv, None
    if tool == "qiling":
        code = ("import sys; from qiling import Qiling; from qiling.const import QL_VERBOSE; "
                "Qiling(sys.argv[1:], '/', verbose=QL_VERBOSE.DISABLED).run()")
        return [sys.executable, "-c", code] + argv, None
    if tool == "py-unicorn":
        return [sys.executable, "-c", "import unicorn"], None
    if tool in gdb_workload.LABELS:
        return gdb_workload.command(tool, argv, env.clock), None
    if tool in counter_workload.LABELS:
        return counter_workload.command(tool, argv, env.clock), None
    raise ValueError(tool)


def _first_line(cmd: List[str]) -> str:
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20,
                           env=BENCH_ENV)
        lines = p.stdout.decode("utf-8", "replace").strip().splitlines()
        return lines[0].strip() if lines else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""


def detect_tools(env: Env, wanted: Sequence[str]) -> None:
    # emutrace: must be importable by this interpreter
    if importlib.util.find_spec("emutrace") is not None:
        env.tools["emutrace"] = env.tools["emutrace-notrace"] = env.tools["emutrace-pure"] = sys.executable
        env.tools["emutrace-coverage"] = env.tools["emutrace-coverage-pure"] = sys.executable
        env.tools["emutrace-report"] = env.tools["emutrace-report-nowatch"] = sys.executable
        for tool in (*dwarf_workload.LABELS, *counter_workload.LABELS):
            env.tools[tool] = sys.executable
    else:
        env.skipped["emutrace"] = f"`import emutrace` fails in {sys.executable}"
    env.tools["native"] = ""
    env.tools["py-unicorn"] = sys.executable
    ptrace_ok = None
    for tool, exe in (("ltrace", "ltrace"), ("strace", "strace"), ("uftrace", "uftrace"),
                      ("qemu", "qemu-x86_64")):
        path = shutil.which(exe, path=STD_PATH + os.pathsep + os.environ.get("PATH", ""))
        if not path:
            env.skipped[tool] = f"`{exe}` not found on PATH"
            continue
        if tool in ("ltrace", "strace"):
            if ptrace_ok is None:
                strace = shutil.which("strace", path=STD_PATH)
                ptrace_ok = False
                if strace:
                    p = subprocess.run([strace, "-o", os.devnull, "true"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       env=BENCH_ENV)
                    ptrace_ok = p.returncode == 0
                    if not ptrace_ok:
                        env.notes.append("ptrace does not work here (`strace true` failed: "
                                         + p.stderr.decode(errors="replace").strip()[:200] + ")")
                else:
                    env.notes.append("strace missing, so ptrace could not be checked")
                    ptrace_ok = True
            if not ptrace_ok:
                env.skipped[tool] = "ptrace does not work here"
                continue
        env.tools[tool] = path
    gdb = shutil.which("gdb", path=STD_PATH)
    for tool in gdb_workload.LABELS:
        if not gdb or (tool == "gdbserver" and (not shutil.which("gdbserver", path=STD_PATH) or ptrace_ok is False)):
            env.skipped[tool] = "gdb or gdbserver (with ptrace) is not available"
        elif tool == "gdbserver" or "emutrace" in env.tools:
            env.tools[tool] = gdb
    if importlib.util.find_spec("qiling") is not None:
        env.tools["qiling"] = sys.executable
        env.notes.append("Qiling is importable: its rows run `Qiling(argv, rootfs='/').run()` "
                         "(no tracing hooks)")
    else:
        env.skipped["qiling"] = "not importable (`import qiling` fails); not installed here"
    for t in list(env.skipped):
        if t not in wanted:
            del env.skipped[t]


def tool_versions(env: Env) -> Dict[str, str]:
    v = {}
    if "ltrace" in env.tools:
        v["ltrace"] = _first_line([env.tools["ltrace"], "-V"])
    if "strace" in env.tools:
        v["strace"] = _first_line([env.tools["strace"], "-V"])
    if "uftrace" in env.tools:
        v["uftrace"] = _first_line([env.tools["uftrace"], "--version"])
    if "qemu" in env.tools:
        v["qemu-x86_64"] = _first_line([env.tools["qemu"], "--version"])
    return v


# ----------------------------------------------------------------------------------------------
# Workloads


@dataclass
class Case:
    """One row group: a program run under every tool."""
    workload: str
    label: str                      # "callloop N=2,000"
    argv: List[str]
    kind: str = "lib"               # "lib" or "sys": what emutrace/ltrace trace
    tools: Tuple[str, ...] = ()
    warmup: bool = False
    size: Optional[int] = None      # N, for the marginal-cost workloads
    blocks: Optional[int] = None    # basic blocks executed (the coverage workload)


@dataclass
class Config:
    quick: bool
    reps: int
    timeout: float
    callloop: Tuple[int, int]
    readloop: Tuple[int, int]
    sort_lines: int
    ls_files: int
    sha_mib: int
    marginal_target: float          # seconds of difference wanted for a marginal cost
    marginal_cap: int               # largest N used to reach it


def make_config(args) -> Config:
    if args.quick:
        return Config(True, args.reps or 1, args.timeout or 10.0, (200, 2000), (200, 2000),
                      1000, 50, 1, 0.15, 2_000_000)
    return Config(False, args.reps or 3, args.timeout or 120.0, (2000, 20000), (2000, 20000),
                  10000, 500, 32, 0.5, 10_000_000)


MAIN_TOOLS = ("native", "emutrace", "emutrace-pure", "emutrace-notrace", "ltrace", "strace", "uftrace", "qemu",
              "qiling")


def which_program(name: str) -> str:
    path = shutil.which(name, path=STD_PATH)
    if not path:
        raise SystemExit(f"bench: {name} not found on {STD_PATH}")
    return os.path.realpath(path) if name.startswith("python") else path


def setup_workloads(cfg: Config, env: Env, only: Sequence[str]) -> List[Case]:
    from bins.build import build       # noqa: E402  (needs the repository root on sys.path)

    cases: List[Case] = []
    tmp = env.tmp
    if "callloop" in only:
        exe = str(build("callloop", "pie"))
        for n in cfg.callloop:
            cases.append(Case("callloop", f"callloop N={n:,}", [exe, str(n)], "lib", MAIN_TOOLS,
                              size=n))
    if "sort" in only:
        rnd = random.Random(20240101)
        letters = "abcdefghijklmnopqrstuvwxyz"
        with open(tmp / "lines.txt", "w") as f:
            for _ in range(cfg.sort_lines):
                f.write("".join(rnd.choice(letters) for _ in range(rnd.randint(5, 30))) + "\n")
        cases.append(Case("sort", f"sort ({cfg.sort_lines:,} lines)",
                          [which_program("sort"), "lines.txt"], "lib", MAIN_TOOLS))
    if "ls" in only:
        d = tmp / "dir"
        d.mkdir()
        for i in range(cfg.ls_files):
            (d / f"file{i:04d}").write_text(f"{i}\n")
        cases.append(Case("ls", f"ls -l ({cfg.ls_files:,} files)",
                          [which_program("ls"), "-l", "dir"], "lib", MAIN_TOOLS))
    if "sha256sum" in only:
        rnd = random.Random(256)
        with open(tmp / "data.bin", "wb") as f:
            for _ in range(cfg.sha_mib):
                f.write(rnd.randbytes(1 << 20))
        cases.append(Case("sha256sum", f"sha256sum ({cfg.sha_mib} MiB)",
                          [which_program("sha256sum"), "data.bin"], "lib", MAIN_TOOLS))
    if "python" in only:
        cases.append(Case("python", "python3 -c pass", [which_program("python3"), "-c", "pass"],
                          "lib", MAIN_TOOLS))
    if "readloop" in only:
        exe = str(build("readloop", "pie"))
        for n in cfg.readloop:
            cases.append(Case("readloop", f"readloop N={n:,}", [exe, str(n), "/dev/zero"], "sys",
                              MAIN_TOOLS, size=n))
    if "freshcalls" in only:
        exe = str(build("freshcalls", "pie"))
        for n in cfg.callloop:
            cases.append(Case("freshcalls", f"freshcalls N={n:,}", [exe, str(n)], "lib", MAIN_TOOLS, size=n))
    if "bashread" in only:
        with open(tmp / "bash-lines.txt", "w") as f:
            for i in range(BASH_LINES):
                f.write(f"line {i} of the file read by bash\n")
        script = 'n=0; while read -r line; do n=$((n + 1)); done < bash-lines.txt; echo "$n"'
        cases.append(Case("bashread", f"bash while-read ({BASH_LINES:,} lines)",
                          [which_program("bash"), "-c", script], "lib", MAIN_TOOLS))
    if "startup" in only:
        cases.append(Case("startup", "startup: /bin/true", ["/bin/true"], "lib",
                          MAIN_TOOLS + ("py-unicorn",), warmup=True))
    cases += memory_workloads.cases(
        only, cfg.quick, tmp, env.notes,
        lambda wl, label, argv, size=None: Case(wl, label, argv, "lib", memory_workloads.TOOLS, size=size),
        lambda name: shutil.which(name, path=STD_PATH), build)
    cases += program_workloads.cases(
        only, cfg.quick, tmp, env.notes,
        lambda wl, label, argv: Case(wl, label, argv, "lib", program_workloads.TOOLS),
        lambda name: shutil.which(name, path=STD_PATH))
    cases += dwarf_workload.cases(
        only, cfg.quick, lambda wl, label, argv, size=None: Case(wl, label, argv, "lib", dwarf_workload.TOOLS,
                                                                 size=size, warmup=True), build)
    cases += counter_workload.cases(
        only, cfg.quick, tmp, env.notes, lambda wl, label, argv: Case(wl, label, argv, "lib", counter_workload.TOOLS),
        lambda name: shutil.which(name, path=STD_PATH), which_program("python3"))
    cases += gdb_workload.cases(
        only, cfg.quick,
        lambda wl, label, argv: Case(wl, label, argv, "lib", gdb_workload.TOOLS), build)
    cases += coverage_workload.cases(
        only, cfg.quick, tmp, env.notes,
        lambda wl, label, argv, size=None, blocks=None: Case(wl, label, argv, "lib", coverage_workload.TOOLS,
                                                             size=size, blocks=blocks),
        which_program, BENCH_ENV)
    cases += churn_workloads.cases(
        only, cfg.quick, tmp, env.notes,
        lambda wl, label, argv, tools, size: Case(wl, label, argv, "sysf", tools, size=size),
        lambda name: shutil.which(name, path=STD_PATH))
    cases += report_pages.cases(
        only, cfg.quick, tmp, env.notes,
        lambda wl, label, argv: Case(wl, label, argv, "lib", report_pages.TOOLS),
        lambda wl, label, argv: Case(wl, label, argv, "lib", report_pages.UNPACK_TOOLS),
        lambda name: shutil.which(name, path=STD_PATH))
    cases += xzprofile.cases(only, cfg.quick, env.notes)
    return cases


# ----------------------------------------------------------------------------------------------
# Running and summarising


@dataclass
class Result:
    case: Case
    tool: str
    cmd: List[str]
    runs: List[Run] = field(default_factory=list)

    @property
    def timed_out(self) -> bool:
        return any(r.timed_out for r in self.runs)

    @property
    def median(self) -> Optional[float]:
        if not self.runs or self.timed_out:
            return None
        return statistics.median(r.wall for r in self.runs)

    @property
    def min_cpu(self) -> Optional[float]:
        """The least host CPU time of the runs: what a loaded machine blurs least (a busy
        neighbour adds wall time, and only some CPU time through its caches)."""
        if not self.runs or self.timed_out:
            return None
        return min((r.cpu for r in self.runs if r.cpu is not None), default=None)

    @property
    def maxrss_kb(self) -> Optional[int]:
        return max((r.maxrss_kb for r in self.runs if r.maxrss_kb is not None), default=None)


def run_cases(cases: List[Case], tools: Sequence[str], cfg: Config, env: Env) -> Dict[Tuple[str, str], Result]:
    results: Dict[Tuple[str, str], Result] = {}
    scratch = env.tmp / "scratch"
    scratch.mkdir(exist_ok=True)
    for case in cases:
        active = [t for t in case.tools if t in tools and t in env.tools]
        for t in active:
            cmd, _trace = tool_command(t, case.argv, case.kind, env)
            results[(case.label, t)] = Result(case, t, cmd)
        if case.warmup:
            for t in active:
                cmd, trace = tool_command(t, case.argv, case.kind, env)
                measure(cmd, env.tmp, cfg.timeout, scratch, trace)
        for rep in range(cfg.reps):
            for t in active:
                res = results[(case.label, t)]
                if res.timed_out or (res.runs and res.runs[-1].wall > SLOW_RUN and t not in report_pages.UNPACK_TOOLS):
                    continue            # a timeout is not retried, nor a run over SLOW_RUN: one shows it
                                        # (but a cost is the least of N: the watch's rows run N times)
                cmd, trace = tool_command(t, case.argv, case.kind, env)
                r = measure(cmd, env.tmp, cfg.timeout, scratch, trace)
                res.runs.append(r)
                status = "timeout" if r.timed_out else f"exit {r.rc}"
                log(f"  {case.label:28} {TOOL_LABEL[t]:22} rep {rep + 1}/{cfg.reps}: "
                    f"{fmt_time(r.wall)} ({status})")
        for t in active:
            _clear(env.tmp / f"trace-{t}")
    return results


def extend_marginal(results, cases: List[Case], workload: str, tools: Sequence[str], cfg: Config,
                    env: Env) -> Dict[str, Tuple[int, int, float, float]]:
    """Marginal cost per iteration for each tool, from the two sizes; when the difference is too
    small to measure well (< marginal_target / 2), also run a larger N chosen from the measured
    slope so that the difference is about marginal_target seconds.
    Returns tool -> (N_low, N_high, t_low, t_high)."""
    sized = [c for c in cases if c.workload == workload]
    if len(sized) < 2:
        return {}
    lo, hi = sized[0], sized[-1]
    out = {}
    scratch = env.tmp / "scratch"
    for t in tools:
        a, b = results.get((lo.label, t)), results.get((hi.label, t))
        if a is None or b is None or not a.runs or not b.runs:
            continue
        if a.timed_out:
            continue
        if b.timed_out:
            out[t] = (lo.size, hi.size, a.median, None)
            continue
        ta, tb = a.median, b.median
        n_lo, n_hi = lo.size, hi.size
        # A difference this small is mostly noise: go to a larger N, chosen from the slope
        # measured so far (at least 10x further when that slope is noise), up to 3 times.
        for _ in range(3):
            if tb - ta >= cfg.marginal_target / 2 or n_hi >= cfg.marginal_cap:
                break
            slope = (tb - ta) / (n_hi - n_lo)
            want = n_lo + cfg.marginal_target / slope if slope > 0 else cfg.marginal_cap
            n3 = int(min(cfg.marginal_cap, max(want, 2 * n_hi) if tb - ta > 0 else 10 * n_hi))
            n3 = int(float(f"{n3:.2g}"))
            argv = list(hi.argv)
            argv[1] = str(n3)
            cmd, trace = tool_command(t, argv, hi.kind, env)
            walls = []
            for rep in range(cfg.reps):
                r = measure(cmd, env.tmp, cfg.timeout, scratch, trace)
                log(f"  {workload} N={n3:<19,} {TOOL_LABEL[t]:22} rep {rep + 1}/{cfg.reps}: "
                    f"{fmt_time(r.wall)} (exit {r.rc}; for the marginal cost)")
                if r.timed_out or r.rc != 0:
                    walls = []
                    break
                walls.append(r.wall)
            _clear(trace)
            if not walls:
                break
            n_hi, tb = n3, statistics.median(walls)
        out[t] = (n_lo, n_hi, ta, tb)
    return out


def render(cases: List[Case], results, marginals, tools: Sequence[str], cfg: Config, env: Env,
           started: datetime.datetime, elapsed: float) -> str:
    L: List[str] = []
    L.append(f"## emutrace benchmark — {started:%Y-%m-%d %H:%M} UTC"
             + (" (--quick)" if cfg.quick else ""))
    L.append("")
    for k, v in machine_info():
        L.append(f"- {k}: {v}")
    vers = tool_versions(env)
    if vers:
        L.append("- Tools: " + "; ".join(f"{v}" for v in vers.values()))
    L.append(f"- Runs: median of {cfg.reps} (wall time of the whole process tree, fork to "
             f"reaping); timeout {cfg.timeout:g} s per run; total bench time {elapsed:.0f} s")
    L.append(f"- Load average (1 min) at start {env.load[0]}, at end {loadavg()}: other work on "
             f"the machine shows up as noise")
    L.append("")

    shown = [t for t in ALL_TOOLS if t in tools and t in env.tools
             and any((c.label, t) in results for c in cases)]
    main_cols = [t for t in shown if t != "py-unicorn"]

    # 1. summary matrix
    L.append("### Wall time (median)")
    L.append("")
    L.append("| workload | " + " | ".join(TOOL_LABEL[t] for t in main_cols) + " |")
    L.append("|---|" + "---:|" * len(main_cols))
    for c in cases:
        cells = [time_cell(results.get((c.label, t))) for t in main_cols]
        L.append(f"| {c.label} | " + " | ".join(cells) + " |")
    L.append("")

    # 2. detail
    L.append("### Every tool on every workload")
    L.append("")
    L.append("| workload | tool | wall (median) | runs | × native | × emutrace | peak RSS "
             "| trace written | output vs native |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---|")
    for c in cases:
        native = results.get((c.label, "native"))
        emu = results.get((c.label, "emutrace"))
        for t in shown:
            res = results.get((c.label, t))
            if res is None:
                continue
            trace = res.runs[-1].trace_bytes if res.runs else None
            L.append(f"| {c.label} | {TOOL_LABEL[t]} | {time_cell(res)} | {len(res.runs)} "
                     f"| {ratio_cell(res, native)} | {ratio_cell(res, emu)} "
                     f"| {fmt_bytes(res.maxrss_kb * 1024 if res.maxrss_kb else None)} "
                     f"| {fmt_bytes(trace)} "
                     f"| {output_cell(res, native)} |")
    L.append("")

    # 3. tracing overhead inside emutrace, and emulation speed against qemu
    derived = []
    for c in cases:
        emu, raw = results.get((c.label, "emutrace")), results.get((c.label, "emutrace-notrace"))
        qemu = results.get((c.label, "qemu"))
        parts = []
        if emu and raw and emu.runs and raw.runs:
            parts.append(f"traced ÷ --no-trace {ratio_cell(emu, raw)}")
        if raw and qemu and raw.runs and qemu.runs:
            parts.append(f"--no-trace ÷ qemu-x86_64 {ratio_cell(raw, qemu)}")
        if parts:
            derived.append(f"- {c.label}: " + "; ".join(parts))
    if derived:
        L.append("### emutrace: cost of tracing, and emulation against qemu-x86_64")
        L.append("")
        L += derived
        L.append("")

    # 4. marginal costs
    if marginals.get("callloop") or marginals.get("readloop"):
        L.append("### Marginal cost")
        L.append("")
        L.append("(t(N_high) − t(N_low)) / (N_high − N_low) / events per iteration, from the "
                 "medians; callloop makes 4 library calls per iteration "
                 "(malloc, strcpy, strlen, free), readloop 1 read(2) per iteration, freshcalls 8 "
                 "library calls with new arguments (snprintf, strlen, memcmp, memcpy, mbstowcs, "
                 "wcschr, wcslen, wctob).")
        L.append("")
        L.append("| tool | per traced library call (callloop) | per traced system call (readloop) "
                 "| per traced library call, fresh arguments (freshcalls) |")
        L.append("|---|---:|---:|---:|")
        what = {
            "native": ("untraced call", "untraced syscall"),
            "emutrace": ("default tracing, `-o FILE`", "`--strace -o FILE`"),
            "emutrace-pure": ("the same, pure-Python event path", "the same, pure-Python event path"),
            "emutrace-notrace": ("untraced, emulated", "untraced, emulated"),
            "ltrace": ("`ltrace -o FILE`", "`ltrace -L -S -o FILE`"),
            "strace": (None, "`strace -o FILE`"),
            "uftrace": ("`uftrace record --force -a`",
                        "`uftrace record --force -a`: the read() library call; uftrace cannot "
                        "trace system calls without kernel tracing"),
            "qemu": ("untraced, emulated", "untraced, emulated"),
            "qiling": ("untraced, emulated", "untraced, emulated"),
        }
        for t in main_cols:
            cells = []
            for wl, per in MARGINAL_EVENTS.items():
                m = marginals.get(wl, {}).get(t)
                desc = what.get(t, ("", ""))[1 if wl == "readloop" else 0]
                if wl != "readloop" and t == "strace":
                    cells.append("n/a (traces no library calls)")
                    continue
                if m is None:
                    cells.append("-")
                    continue
                n_lo, n_hi, ta, tb = m
                if tb is None:
                    res = results.get((next(c.label for c in cases if c.workload == wl
                                            and c.size == n_hi), t))
                    bound = (res.runs[-1].wall - ta) / (n_hi - n_lo) / per
                    cells.append(f"> {fmt_cost(bound)} (timeout at N={n_hi:,}); {desc}")
                    continue
                cost = (tb - ta) / (n_hi - n_lo) / per
                cells.append(f"{fmt_cost(cost)} (N {n_lo:,}→{n_hi:,}); {desc}")
            L.append(f"| {TOOL_LABEL[t]} | " + " | ".join(cells) + " |")
        L.append("")

    L += memory_workloads.render(cases, results, fmt_cost, fmt_bytes, TOOL_LABEL.get)
    L += program_workloads.render(cases, results)
    L += coverage_workload.render(cases, results, fmt_cost, TOOL_LABEL.get)
    L += churn_workloads.render(cases, results, fmt_bytes)
    L += dwarf_workload.render(cases, results, fmt_time, fmt_cost)
    L += report_pages.render(cases, results, fmt_time)
    L += counter_workload.render(cases, results, fmt_time)
    L += xzprofile.render()

    # 5. notes
    notes: List[str] = []
    for t, why in env.skipped.items():
        notes.append(f"{TOOL_LABEL.get(t, t)} skipped: {why}.")
    notes += env.notes
    for c in cases:
        native = results.get((c.label, "native"))
        for t in shown:
            res = results.get((c.label, t))
            if res is None or not res.runs or t == "native":
                continue
            cell = output_cell(res, native)
            if cell not in ("", "same", "n/a (timeout)"):
                r = next((r for r in res.runs if not r.timed_out), res.runs[-1])
                msg = f"{c.label} under {TOOL_LABEL[t]}: {cell.replace('**', '')}"
                if r.stderr_tail:
                    msg += f"; last stderr line: `{r.stderr_tail[:200]}`"
                if r.stdout_sha != native.runs[0].stdout_sha:
                    msg += "; " + first_difference(native.runs[0].stdout_head, r.stdout_head)
                notes.append(msg)
            if res.timed_out:
                notes.append(f"{c.label} under {TOOL_LABEL[t]} hit the {cfg.timeout:g} s timeout "
                             f"and was killed (not repeated).")
    if notes:
        L.append("### Notes")
        L.append("")
        L += [f"- {n}" for n in notes]
        L.append("")

    # 6. commands
    L.append("### Commands (in a scratch directory; $B = bins/out/pie)")
    L.append("")
    seen = set()
    for c in cases:
        if c.workload in seen:
            continue
        seen.add(c.workload)
        L.append(f"- {c.label}:")
        for t in shown:
            res = results.get((c.label, t))
            if res is None:
                continue
            L.append(f"  - {TOOL_LABEL[t]}: `{show_cmd(res.cmd, env)}`")
    L.append("")
    L.append(rss_method())
    L.append("")
    return "\n".join(L)


def show_cmd(cmd: List[str], env: Env) -> str:
    out = []
    bdir = str(ROOT / "bins" / "out" / "pie") + "/"
    for a in cmd:
        a = a.replace(str(env.tmp) + "/", "").replace(bdir, "$B/")
        if a == sys.executable:
            a = "python3"
        if " " in a or ";" in a:
            a = "'" + a + "'"
        out.append(a)
    return " ".join(out)


def first_difference(a: bytes, b: bytes) -> str:
    la, lb = a.decode("utf-8", "replace").splitlines(), b.decode("utf-8", "replace").splitlines()
    for i in range(min(len(la), len(lb))):
        if la[i] != lb[i]:
            return f"first difference at line {i + 1}: native `{la[i][:80]}` vs `{lb[i][:80]}`"
    return (f"native printed {len(a)}+ bytes ({len(la)} lines in the first 4 KiB), "
            f"this run {len(b)}+ ({len(lb)} lines)")


# ----------------------------------------------------------------------------------------------


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, 1 run each, 10 s timeout: under a minute")
    ap.add_argument("--only", default="",
                    help=f"comma-separated workloads (default all): {','.join(WORKLOADS)}")
    ap.add_argument("--tools", default="",
                    help=f"comma-separated tools (default all found): {','.join(ALL_TOOLS)}")
    ap.add_argument("--reps", type=int, default=0, help="runs per measurement (default 3; quick 1)")
    ap.add_argument("--timeout", type=float, default=0,
                    help="seconds per run before it is killed (default 120; quick 10)")
    ap.add_argument("--out", help="also write the markdown report to this file")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    ap.add_argument("--update-readme", action="store_true",
                    help="also replace the 'Latest results' section of bench/README.md")
    args = ap.parse_args(argv)

    only = [w.strip() for w in args.only.split(",") if w.strip()] or list(WORKLOADS)
    bad = [w for w in only if w not in WORKLOADS]
    if bad:
        ap.error(f"unknown workload(s) {', '.join(bad)} (known: {', '.join(WORKLOADS)})")
    tools = [t.strip() for t in args.tools.split(",") if t.strip()] or list(ALL_TOOLS)
    bad = [t for t in tools if t not in ALL_TOOLS]
    if bad:
        ap.error(f"unknown tool(s) {', '.join(bad)} (known: {', '.join(ALL_TOOLS)})")
    if "native" not in tools:
        tools.insert(0, "native")       # every ratio needs it
    cfg = make_config(args)

    started = datetime.datetime.now(datetime.timezone.utc)
    t_start = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="emutrace-bench-"))
    env = Env(tmp=tmp, timeout=cfg.timeout, clock=0, load=[loadavg()])
    try:
        detect_tools(env, tools)
        cases = setup_workloads(cfg, env, only)
        # emutrace's virtual clock (fixed by default, for determinism) starts at the host's "now",
        # after the input files were made, so that `ls -l` prints their dates as natively
        env.clock = int(time.time()) + 1
        log(f"bench: {len(cases)} cases, tools: "
            + ", ".join(TOOL_LABEL[t] for t in tools if t in env.tools)
            + f"; scratch {tmp}")
        results = run_cases(cases, tools, cfg, env)
        marginals = {}
        for wl in MARGINAL_EVENTS:
            if wl in only:
                marginals[wl] = extend_marginal(results, cases, wl,
                                                [t for t in tools if t in env.tools], cfg, env)
        report = render(cases, results, marginals, tools, cfg, env, started,
                        time.perf_counter() - t_start)
    finally:
        if args.keep:
            log(f"bench: scratch kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n")
    if args.update_readme:
        update_readme(ROOT / "bench" / "README.md", report)
    return 0


def update_readme(path: Path, report: str) -> None:
    """Replace everything after the '## Latest results' heading with the report, its headings
    one level down."""
    text = path.read_text()
    mark = "\n## Latest results\n"
    if mark not in text:
        raise SystemExit(f"bench: no '## Latest results' heading in {path}")
    body = "\n".join("#" + l if l.startswith("##") else l for l in report.splitlines())
    head = text[:text.index(mark) + len(mark)]
    path.write_text(head + "\n" + body.rstrip() + "\n")
    log(f"bench: updated {path}")


if __name__ == "__main__":
    sys.exit(main())
