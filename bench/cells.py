"""The cells of bench/run.py's report: times, costs, ratios and sizes as the tables print them,
a result's cell beside the native one, and the machine the run was made on.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional, Tuple

if TYPE_CHECKING:
    from bench.run import Result

ROOT = Path(__file__).resolve().parent.parent


def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "-"
    if s < 0.9995e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 0.09995:
        return f"{s * 1e3:.1f} ms"
    if s < 0.9995:
        return f"{s * 1e3:.0f} ms"
    return f"{s:.2f} s" if s < 9.995 else f"{s:.1f} s"


def fmt_cost(s: Optional[float]) -> str:
    if s is None:
        return "-"
    if s < 1e-6:
        return f"{s * 1e9:.1f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs" if s < 1e-5 else f"{s * 1e6:.1f} µs"
    return f"{s * 1e3:.2f} ms"


def fmt_ratio(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"×{x:,.0f}"
    if x >= 10:
        return f"×{x:.1f}"
    if x >= 0.1:
        return f"×{x:.2f}"
    return f"×{x:.2g}"


def fmt_bytes(n: Optional[int]) -> str:
    if n is None:
        return "-"
    if n < 1024:
        return f"{n} B"
    if n < 1 << 20:
        return f"{n / 1024:.1f} KiB"
    if n < 1 << 30:
        return f"{n / (1 << 20):.1f} MiB"
    return f"{n / (1 << 30):.2f} GiB"


def time_cell(res: Optional[Result]) -> str:
    if res is None or not res.runs:
        return "-"
    if res.timed_out:
        return f">{res.runs[-1].wall:.0f} s (timeout)"
    return fmt_time(res.median)


def ratio_cell(res: Optional[Result], base: Optional[Result]) -> str:
    if res is None or base is None or not res.runs or not base.runs or base.timed_out:
        return "-"
    if res.timed_out:
        return ">" + fmt_ratio(res.runs[-1].wall / base.median)
    if base.median <= 0:
        return "-"
    return fmt_ratio(res.median / base.median)


def output_cell(res: Result, native: Optional[Result]) -> str:
    """Did the tool leave the program's stdout and exit status as they are natively?"""
    if res.tool in ("native", "py-unicorn") or native is None or not native.runs:
        return ""
    done = [r for r in res.runs if not r.timed_out]
    if not done:
        return "n/a (timeout)"
    ref = native.runs[0]
    bad = []
    if any(r.stdout_sha != ref.stdout_sha for r in done):
        bad.append("**stdout DIFFERS**")
    rcs = sorted({r.rc for r in done})
    if rcs != [ref.rc]:
        bad.append(f"**exit {','.join(map(str, rcs))}** (native {ref.rc})")
    return "; ".join(bad) if bad else "same"


def loadavg() -> str:
    try:
        return open("/proc/loadavg").read().split()[0]
    except (OSError, IndexError):
        return "?"


def machine_info() -> List[Tuple[str, str]]:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / (1 << 20):.1f} GiB"
                break
    except OSError:
        pass
    try:
        import unicorn
        uc = unicorn.__version__
    except Exception as e:          # noqa: BLE001  (report whatever went wrong)
        uc = f"not importable ({e})"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=str(ROOT),
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                timeout=10).stdout.decode().strip() or "?"
    except (OSError, subprocess.TimeoutExpired):
        commit = "?"
    return [
        ("emutrace", f"working tree at commit {commit} (plus any uncommitted changes in it)"),
        ("CPU", f"{cpu}, {os.cpu_count()} cores ({usable} usable)"),
        ("Memory", mem),
        ("Kernel", f"{platform.system()} {platform.release()} {platform.machine()}"),
        ("Python", f"{platform.python_version()} ({sys.executable})"),
        ("Unicorn", uc),
    ]
