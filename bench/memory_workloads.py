"""bench/ workloads of guest memory: language runtimes that reserve, commit, protect and release
memory as they start (java -Xint, Go, Rust, node), an mmap/mprotect/munmap churn loop, and the
marginal cost of one mprotect of 4 KiB inside a 1 GiB reservation. They run natively, under
emutrace --no-trace and under qemu-x86_64 (ltrace, strace and uftrace add nothing to what these
measure). The programs are in bench/progs/ and bins/ (mmchurn, mprot); a runtime whose
toolchain is missing is skipped with a note.

Targets (issue 16): with --no-trace, time <= 3x qemu-user's and peak RSS <= 2x qemu-user's +
64 MiB on java, Go, Rust and node; mprotect < 20 us whatever the reservation's size."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

PROGS = Path(__file__).resolve().parent / "progs"
TOOLS = ("native", "emutrace-notrace", "qemu")
NAMES = ("java", "go", "rust", "node", "mmchurn", "mprotect")
RUNTIMES = ("java", "go", "rust", "node")
CHURN = (100, 1000)              # rounds (full); --quick: CHURN_QUICK
CHURN_QUICK = (20, 100)
MPROT = (2000, 20000)            # mprotect calls (full and --quick alike: each is cheap)
TIME_TARGET, RSS_FACTOR, RSS_SLACK_KIB = 3.0, 2.0, 64 * 1024


def _build(cmd: List[str], cwd: Path, notes: List[str], what: str) -> bool:
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        notes.append(f"{what} skipped: `{' '.join(cmd)}` failed ({e})")
        return False
    if r.returncode != 0:
        notes.append(f"{what} skipped: `{' '.join(cmd)}` failed: "
                     f"{r.stderr.decode(errors='replace').strip().splitlines()[-1:]}")
        return False
    return True


def cases(only: Sequence[str], quick: bool, tmp: Path, notes: List[str], make_case: Callable,
          which: Callable[[str], Optional[str]], build: Callable) -> list:
    """The Cases of the memory workloads in `only`. make_case(workload, label, argv, size=None);
    which(name) -> path or None; build(prog, variant) -> path of a bins/ program."""
    out = []
    work = tmp / "progs"
    work.mkdir(exist_ok=True)
    for f in PROGS.iterdir():
        shutil.copy(f, work / f.name)
    if "java" in only:
        java, javac = which("java"), which("javac")
        if java and javac and _build([javac, "-d", ".", "Hello.java"], work, notes, "java"):
            out.append(make_case("java", "java -Xint Hello",
                                 [str(Path(java).resolve()), "-Xint", "-cp", str(work), "Hello"]))
        elif not (java and javac):
            notes.append("java skipped: java or javac not found")
    if "go" in only:
        go = which("go")
        if go and _build([go, "build", "-o", "gowork", "gowork.go"], work, notes, "go"):
            out.append(make_case("go", "Go: goroutines, JSON, sha256", [str(work / "gowork")]))
        elif not go:
            notes.append("go skipped: go not found")
    if "rust" in only:
        rustc = which("rustc") or shutil.which("rustc", path=str(Path.home() / ".cargo/bin"))
        if rustc and _build([rustc, "-O", "-o", "rustwork", "rustwork.rs"], work, notes, "rust"):
            out.append(make_case("rust", "Rust: 4 threads, a caught panic", [str(work / "rustwork")]))
        elif not rustc:
            notes.append("rust skipped: rustc not found")
    if "node" in only:
        node = which("node")
        if node:
            out.append(make_case("node", "node: a loop and JSON", [node, str(work / "nodework.js")]))
        else:
            notes.append("node skipped: node not found")
    if "mmchurn" in only:
        exe = str(build("mmchurn", "pie"))
        for n in (CHURN_QUICK if quick else CHURN):
            out.append(make_case("mmchurn", f"mmchurn N={n:,}", [exe, str(n)], size=n))
    if "mprotect" in only:
        exe = str(build("mprot", "pie"))
        for n in MPROT:
            out.append(make_case("mprotect", f"mprotect in 1 GiB N={n:,}", [exe, str(n)], size=n))
    return out


def render(cases_: list, results, fmt_cost: Callable, fmt_bytes: Callable, label: Callable) -> List[str]:
    """Markdown lines: the runtime targets, and mprotect's marginal cost."""
    L: List[str] = []
    rows = []
    for c in cases_:
        if c.workload not in RUNTIMES:
            continue
        emu, qemu = results.get((c.label, "emutrace-notrace")), results.get((c.label, "qemu"))
        if not (emu and qemu and emu.median and qemu.median and emu.maxrss_kb and qemu.maxrss_kb):
            rows.append(f"| {c.label} | - | - | - | not measured (timeout or missing tool) |")
            continue
        failed = [r.rc for r in emu.runs + qemu.runs if r.rc != 0]
        if failed:
            rows.append(f"| {c.label} | - | - | - | not measured: a run failed (exit {failed[0]}; "
                        "see the notes) |")
            continue
        t = emu.median / qemu.median
        rss_limit = RSS_FACTOR * qemu.maxrss_kb + RSS_SLACK_KIB
        ok = t <= TIME_TARGET and emu.maxrss_kb <= rss_limit
        rows.append(f"| {c.label} | ×{t:.2f} | {fmt_bytes(emu.maxrss_kb * 1024)} | "
                    f"{fmt_bytes(int(rss_limit * 1024))} | {'met' if ok else '**missed**'} |")
    if rows:
        L += ["### Guest memory: runtimes against qemu-x86_64 (targets: time ≤ ×3, "
              "peak RSS ≤ 2 × qemu's + 64 MiB)", "",
              "| workload | --no-trace ÷ qemu time | emutrace peak RSS | RSS limit | targets |",
              "|---|---:|---:|---:|---|", *rows, ""]
    sized = [c for c in cases_ if c.workload == "mprotect"]
    if len(sized) >= 2:
        lo, hi = sized[0], sized[-1]
        L += ["### Marginal cost of mprotect (4 KiB inside a 1 GiB reservation; target < 20 µs)", "",
              f"(t(N={hi.size:,}) − t(N={lo.size:,})) / {hi.size - lo.size:,} calls; each call "
              "alternates read-only and read-write, and the page is written in between.", "",
              "| tool | per mprotect call |", "|---|---:|"]
        for t in TOOLS:
            a, b = results.get((lo.label, t)), results.get((hi.label, t))
            if a and b and a.median is not None and b.median is not None:
                L.append(f"| {label(t)} | {fmt_cost((b.median - a.median) / (hi.size - lo.size))} |")
        L.append("")
    return L
