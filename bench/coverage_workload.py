"""bench/ workload `coverage`: what --coverage costs per executed basic block, with the compiled
block counter (emutrace/machine/_cover.c) and with the pure-Python block hook (EMUTRACE_PURE=1,
its reference), against the same run with --no-trace.

sha256sum of two sizes of random data (compute-bound: nearly every block is one of a few hundred
executed again and again) gives the marginal cost per block execution:
((coverage − no-trace) at the large size − the same at the small size) / (executions at the large
size − executions at the small size), so that the fixed costs (loading, writing the file) cancel.
sort adds a real program's overall ratio. The block executions are counted by one untimed run
with `--coverage-format text` per case (its third column is each block's executions)."""
from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

NAMES = ("coverage",)
TOOLS = ("native", "emutrace-notrace", "emutrace-coverage", "emutrace-coverage-pure")
SHA_KIB = (1024, 8192)              # full run; --quick: SHA_KIB_QUICK
SHA_KIB_QUICK = (256, 1024)
SORT_LINES, SORT_LINES_QUICK = 10000, 1000


def executions(argv: List[str], cwd: Path, env: Dict[str, str]) -> Optional[int]:
    """The block executions of one run of argv under emutrace (its text coverage file's counts)."""
    out = cwd / "coverage-count.txt"
    r = subprocess.run([sys.executable, "-m", "emutrace", "--inherit-env", "--no-trace", "--coverage", str(out),
                        "--coverage-format", "text", *argv], cwd=cwd, env=env, capture_output=True, timeout=1200)
    if r.returncode != 0 or not out.exists():
        return None
    total = 0
    for line in out.read_text(errors="replace").splitlines():
        if line.startswith("  +"):
            total += int(line.split()[2])
    out.unlink()
    return total


def cases(only: Sequence[str], quick: bool, tmp: Path, notes: List[str], make_case: Callable,
          which: Callable[[str], str], env: Dict[str, str]) -> list:
    """The Cases of the coverage workload: make_case(workload, label, argv, size=None, blocks=None)."""
    if "coverage" not in only:
        return []
    out = []
    rnd = random.Random(1977)
    for kib in (SHA_KIB_QUICK if quick else SHA_KIB):
        name = f"coverage-{kib}k.bin"
        (tmp / name).write_bytes(rnd.randbytes(kib * 1024))
        argv = [which("sha256sum"), name]
        out.append(make_case("coverage", f"coverage: sha256sum {kib:,} KiB", argv, size=kib,
                             blocks=executions(argv, tmp, env)))
    n = SORT_LINES_QUICK if quick else SORT_LINES
    letters = "abcdefghijklmnopqrstuvwxyz"
    with open(tmp / "coverage-lines.txt", "w") as f:
        for _ in range(n):
            f.write("".join(rnd.choice(letters) for _ in range(rnd.randint(5, 30))) + "\n")
    argv = [which("sort"), "coverage-lines.txt"]
    out.append(make_case("coverage", f"coverage: sort {n:,} lines", argv, blocks=executions(argv, tmp, env)))
    for c in out:
        if c.blocks is None:
            notes.append(f"{c.label}: the untimed run that counts its block executions failed")
    return out


def render(cases_: list, results, fmt_cost: Callable, label: Callable) -> List[str]:
    """Markdown lines: the coverage overhead per case, and the marginal cost per block execution."""
    mine = [c for c in cases_ if c.workload == "coverage"]
    if not mine:
        return []

    def med(c, t):
        r = results.get((c.label, t))
        return r.median if r is not None else None

    L = ["### Coverage: cost per executed basic block (--coverage against --no-trace)", "",
         "| workload | block executions | " + " | ".join(label(t) for t in TOOLS[1:]) +
         " | compiled: overhead per block | pure: overhead per block |",
         "|---|---:|" + "---:|" * (len(TOOLS) - 1) + "---:|---:|"]
    for c in mine:
        times = [med(c, t) for t in TOOLS[1:]]
        cells = [f"{t:.2f} s" if t is not None else "-" for t in times]
        raw, cov, pure = times
        per = [fmt_cost((x - raw) / c.blocks) if None not in (x, raw) and c.blocks else "-" for x in (cov, pure)]
        L.append(f"| {c.label} | {c.blocks or 0:,} | " + " | ".join(cells) + " | " + " | ".join(per) + " |")
    L.append("")
    sized = [c for c in mine if c.size is not None and c.blocks]
    if len(sized) >= 2:
        lo, hi = sized[0], sized[-1]
        L += [f"Marginal cost per block execution (sha256sum {lo.size:,} → {hi.size:,} KiB, "
              f"{hi.blocks - lo.blocks:,} more executions; the fixed costs cancel):", ""]
        for t in TOOLS[2:]:
            parts = [med(lo, t), med(lo, "emutrace-notrace"), med(hi, t), med(hi, "emutrace-notrace")]
            if None in parts:
                continue
            a, ra, b, rb = parts
            L.append(f"- {label(t)}: {fmt_cost(((b - rb) - (a - ra)) / (hi.blocks - lo.blocks))}")
        L.append("")
    return L
