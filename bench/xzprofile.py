"""bench/ workload `profile` (issue 34, docs/time.md): does `emutrace --ftrace -c` rank a real
program's functions as a native profiler does?

xz (Debian's xz-utils source, fetched once by `apt-get source xz-utils` into
~/.cache/emutrace/xz/: it needs a deb-src entry in apt's sources, as the hello workload does) is
built twice from the same source, -O2 both, liblzma linked in statically (so its functions are
the program's own): `-g -pg` for uftrace, `-g` for emutrace, valgrind and perf. One compression
(xz -6 of TEXT_WORDS words of text) is profiled by:

- emutrace --ftrace -c: self time per function, from the work-driven clock (1 instruction = 1 ns);
- uftrace report on the -pg build: self time per function, each function's least over UFTRACE_RUNS
  records (a run lasts ~0.1 s natively, so one preemption moves a function);
- callgrind (valgrind) on the -g build: instructions per function, the work emutrace counts,
  measured by another tool (when valgrind is installed);
- perf record on the -g build: native time per function by sampling, without -pg's calls (when
  perf can sample).

Shares are of the summed self time of every function each tool lists. The compared functions are
the fewest of uftrace's top ones that hold COVER of its time (the issue's "top functions that
hold most of the time"; the rest are each a few percent or less). The target: the same order as
uftrace and each share within TOLERANCE percentage points.

    python3 bench/xzprofile.py [--json]      # the comparison, as a table (or JSON)

The builds are kept in the cache folder (delete it to fetch and build anew)."""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

NAMES = ("profile",)
CACHE = Path.home() / ".cache" / "emutrace" / "xz"
REPO = Path(__file__).resolve().parent.parent
TEXT_WORDS = 10000              # ~60 KB: emutrace --ftrace -c takes ~13 s of CPU on it
UFTRACE_RUNS = 5
COVER = 0.90
TOLERANCE = 10.0
CONFIGURE = ["--disable-shared", "--enable-static", "--disable-threads", "--disable-nls", "--disable-doc",
             "--disable-scripts", "--disable-lzmadec", "--disable-xzdec", "--disable-lzmainfo",
             "--disable-lzma-links"]
FLAGS = {"pg": "-O2 -g -pg", "g": "-O2 -g"}
UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
ROW = re.compile(r"\s*([\d.]+)\s+(ns|us|ms|s)\s+([\d.]+)\s+(ns|us|ms|s)\s+(\d+)\s+(\S.*?)\s*$")


class Skip(Exception):
    """The comparison cannot be made here (no source, no compiler, no uftrace): the reason."""


def tarball() -> Path:
    """Debian's xz-utils orig tarball, downloaded into CACHE when not there yet."""
    found = sorted(CACHE.glob("xz-utils_*.orig.tar.xz"))
    if found:
        return found[-1]
    if shutil.which("apt-get") is None:
        raise Skip("no apt-get to fetch xz-utils' source")
    CACHE.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["apt-get", "source", "--download-only", "xz-utils"], cwd=CACHE, capture_output=True,
                       timeout=600)
    found = sorted(CACHE.glob("xz-utils_*.orig.tar.xz"))
    if r.returncode != 0 or not found:
        raise Skip("`apt-get source xz-utils` failed (a deb-src line in apt's sources is needed): "
                   + r.stderr.decode(errors="replace").strip()[-200:])
    return found[-1]


def build(variant: str) -> Path:
    """The xz program built with FLAGS[variant], kept in CACHE under the tarball's hash."""
    src = tarball()
    tag = hashlib.sha256(src.read_bytes() + FLAGS[variant].encode()).hexdigest()[:12]
    where = CACHE / f"build-{variant}-{tag}"
    program = next(where.glob("xz-*/src/xz/xz"), None) if where.exists() else None
    if program is not None:
        return program
    if shutil.which("gcc") is None or shutil.which("make") is None:
        raise Skip("no gcc or make to build xz")
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    subprocess.run(["tar", "xJf", str(src)], cwd=where, check=True)
    tree = next(p for p in where.iterdir() if p.is_dir())
    env = dict(os.environ, CFLAGS=FLAGS[variant])
    for cmd in (["./configure", "-q", *CONFIGURE], ["make", "-j2"]):
        r = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, timeout=1800)
        if r.returncode != 0:
            shutil.rmtree(where, ignore_errors=True)
            raise Skip(f"xz's {cmd[0]} failed: " + r.stderr.decode(errors="replace").strip()[-200:])
    return tree / "src" / "xz" / "xz"


def text(path: Path, words: int = TEXT_WORDS) -> Path:
    """The input: words of a small vocabulary, as bench/program_workloads.py's xz row."""
    rnd = random.Random(1)
    vocab = ["alpha", "beta", "gamma", "delta", "emutrace", "trace", "call", "return"]
    path.write_text(" ".join(rnd.choice(vocab) for _ in range(words)))
    return path


def report_rows(table: str) -> Dict[str, float]:
    """{function: self seconds} of a `uftrace report` style table (emutrace's -c prints the same);
    the kernel's rows (uftrace's `linux:schedule (pre-empted)`) are not functions of the program."""
    out = {}
    for line in table.splitlines():
        m = ROW.match(line)
        if m and not m.group(6).startswith("linux:"):
            out[m.group(6)] = out.get(m.group(6), 0.0) + float(m.group(3)) * UNIT[m.group(4)]
    return out


def args(data: Path) -> List[str]:
    return ["-6", "-c", "-T1", str(data)]


def emutrace_self(program: Path, data: Path) -> Dict[str, float]:
    r = subprocess.run([sys.executable, "-m", "emutrace", "--ftrace", "-c", str(program), *args(data)],
                       cwd=REPO, capture_output=True, timeout=1800)
    if r.returncode != 0:
        raise RuntimeError("emutrace --ftrace -c failed: " + r.stderr.decode(errors="replace")[-300:])
    return report_rows(r.stderr.decode())


def uftrace_self(program: Path, data: Path, tmp: Path, runs: int = UFTRACE_RUNS) -> Dict[str, float]:
    if shutil.which("uftrace") is None:
        raise Skip("uftrace is not installed")
    best: Dict[str, float] = {}
    for i in range(runs):
        d = tmp / f"uftrace.data.{i}"
        rec = subprocess.run(["uftrace", "record", "-d", str(d), str(program), *args(data)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=600)
        if rec.returncode != 0:
            raise Skip("uftrace record failed: " + rec.stderr.decode(errors="replace")[-200:])
        rep = subprocess.run(["uftrace", "report", "-d", str(d)], capture_output=True, text=True, timeout=600)
        for f, t in report_rows(rep.stdout).items():
            best[f] = min(t, best.get(f, t))
    return best


def callgrind_self(program: Path, data: Path, tmp: Path) -> Optional[Dict[str, float]]:
    """Instructions per function (callgrind's Ir, the parts of inlined headers added to their
    function), or None without valgrind."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        return None
    out = tmp / "callgrind.out"
    r = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(program), *args(data)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1200)
    if r.returncode != 0:
        return None
    ann = subprocess.run(["callgrind_annotate", "--auto=no", "--threshold=100", str(out)], capture_output=True,
                         text=True, timeout=600).stdout
    got: Dict[str, float] = {}
    for line in ann.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+?:)?(\S+)( \[.*\])?\s*$", line)
        if m and "PROGRAM TOTALS" not in line:
            got[m.group(3)] = got.get(m.group(3), 0.0) + int(m.group(1).replace(",", ""))
    return got or None


def perf_self(program: Path, data: Path, tmp: Path) -> Optional[Dict[str, float]]:
    """Native time per function (perf's samples of the -g build), or None where perf cannot sample."""
    if shutil.which("perf") is None:
        return None
    out = tmp / "perf.data"
    best: Dict[str, float] = {}
    for _ in range(3):
        r = subprocess.run(["perf", "record", "-q", "-F", "20000", "-o", str(out), "--", str(program), *args(data)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        if r.returncode != 0:
            return None
        rep = subprocess.run(["perf", "report", "-i", str(out), "--no-children", "--sort", "symbol", "--stdio"],
                             capture_output=True, text=True, timeout=600).stdout
        run = {}
        for line in rep.splitlines():
            m = re.match(r"\s*([\d.]+)%\s+\[\.\]\s+(\S+)", line)
            if m:
                run[m.group(2)] = float(m.group(1))
        for f, t in run.items():            # (shares: their mean over the runs)
            best[f] = best.get(f, 0.0) + t / 3
    return best or None


def shares(times: Dict[str, float]) -> Dict[str, float]:
    total = sum(times.values()) or 1.0
    return {f: 100.0 * t / total for f, t in times.items()}


def compared(ref: Dict[str, float]) -> List[str]:
    """The fewest of the reference's top functions that hold COVER of its time."""
    out, held = [], 0.0
    for f, s in sorted(ref.items(), key=lambda kv: -kv[1]):
        if held >= COVER * 100:
            break
        out.append(f)
        held += s
    return out


def measure() -> dict:
    """The comparison: {"functions": [...], "uftrace", "emutrace", "callgrind", "perf": shares (None: no
    such tool here), "raw": {tool: seconds, or instructions for callgrind}}."""
    pg, g = build("pg"), build("g")
    with tempfile.TemporaryDirectory(prefix="emutrace-xzprofile-") as d:
        tmp = Path(d)
        data = text(tmp / "text.txt")
        raw = {"uftrace": uftrace_self(pg, data, tmp), "emutrace": emutrace_self(g, data),
               "callgrind": callgrind_self(g, data, tmp)}
        got = {name: shares(t) if t else None for name, t in raw.items()}
        got["perf"] = perf_self(g, data, tmp)       # (shares already)
    got["raw"] = raw
    got["functions"] = compared(got["uftrace"])
    return got


def verdict(got: dict) -> dict:
    funcs = got["functions"]
    emu, uft = got["emutrace"], got["uftrace"]
    order = sorted(funcs, key=lambda f: -emu.get(f, 0.0)) == funcs
    worst = max(abs(emu.get(f, 0.0) - uft[f]) for f in funcs)
    return {"same_order": order, "worst_pp": worst, "met": order and worst <= TOLERANCE}


def table(got: dict) -> List[str]:
    cols = [c for c in ("uftrace", "emutrace", "callgrind", "perf") if got.get(c)]
    head = {"uftrace": "uftrace report (-pg)", "emutrace": "emutrace --ftrace -c", "callgrind": "callgrind Ir",
            "perf": "perf (native time, mean of 3)"}
    v = verdict(got)
    L = [f"### A real program's profile: xz -6 of {TEXT_WORDS:,} words (target: uftrace's order, each share "
         f"±{TOLERANCE:g} pp)", "",
         "| function | " + " | ".join(head[c] for c in cols) + " |", "|---|" + "---:|" * len(cols)]
    for f in got["functions"]:
        L.append(f"| {f} | " + " | ".join(f"{got[c].get(f, 0.0):.1f}%" for c in cols) + " |")
    held = sum(got["uftrace"][f] for f in got["functions"])
    L += ["", f"Compared: uftrace's top {len(got['functions'])} functions ({held:.0f}% of its time). Same order as "
          f"uftrace: {'yes' if v['same_order'] else '**no**'}; largest difference {v['worst_pp']:.1f} pp: "
          f"{'met' if v['met'] else '**missed**'} (docs/time.md says why).", ""]
    return L


# -- bench/run.py's interface: the comparison is made while the cases are listed, shown with the tables
_MEASURED: List[str] = []


def cases(only, quick: bool, notes: List[str]) -> list:
    if "profile" in only and not quick:
        try:
            _MEASURED[:] = table(measure())
        except Skip as e:
            notes.append(f"profile skipped: {e}")
        except (RuntimeError, subprocess.SubprocessError) as e:
            notes.append(f"profile failed: {e}")
    return []


def render() -> List[str]:
    return list(_MEASURED)


if __name__ == "__main__":
    try:
        result = measure()
    except Skip as e:
        print(f"skipped: {e}", file=sys.stderr)
        sys.exit(77)
    if "--json" in sys.argv[1:]:
        print(json.dumps({**result, **verdict(result)}, indent=1))
    else:
        print("\n".join(table(result)))
