"""bench/ workloads of process churn (issue 32, docs/processes.md): what CI runs, shell scripts and
builds that start thousands of short processes.

- forkexit: a shell loop of N subshells `(:)` (fork and exit);
- forkexec: a shell loop of N `/bin/true` (fork or vfork, exec, exit);
- hello: GNU hello's `./configure && make && make check` in a fresh copy of its source, printing
  the test summary and the built program's output (so the output column compares them with
  native). The source is Debian's `hello` source package, fetched once by `apt-get source hello`
  into ~/.cache/emutrace/hello/ (it needs a deb-src entry in apt's sources, see
  docs/processes.md) and unpacked afresh for each run; where that fails the row is skipped with
  the reason. No test depends on it.

Targets (issue 32): fork+exit <= 5 ms and fork+exec+exit <= 20 ms an iteration; the hello build
<= 15x native under --no-trace. The table gives the time per iteration and the peak RSS."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

TOOLS = ("native", "emutrace-notrace", "emutrace", "qemu")
HELLO_TOOLS = ("native", "emutrace-notrace", "emutrace")
NAMES = ("forkexit", "forkexec", "hello")
ITERATIONS = {"forkexit": 1000, "forkexec": 1000}
QUICK_ITERATIONS = 100
TARGET_MS = {"forkexit": 5.0, "forkexec": 20.0}
HELLO_TARGET = 15.0

LOOP = 'i=0; while [ $i -lt {n} ]; do {body}; i=$((i+1)); done; echo "$i"'
BODY = {"forkexit": "(:)", "forkexec": "/bin/true"}
# a fresh copy for each run (native runs must not find the last run's build; emutrace's writes go to
# its overlay anyway), then the test summary and the built program's output
HELLO = ('d=$(mktemp -d) && cp -r {src} "$d"/src && cd "$d"/src && ./configure >/dev/null 2>&1 && '
         'make >/dev/null 2>&1 && make check >/dev/null 2>&1; s=$?; grep -h "^# " tests/*.log 2>/dev/null; '
         './hello; ./hello -g churn; cd /; rm -rf "$d"; exit $s')


# apt-get's download of Debian's `hello` source package is kept here and used again by later runs
# (the pinned copy the issue asks for: the .dsc's version names it); delete the folder to fetch anew
HELLO_CACHE = Path.home() / ".cache" / "emutrace" / "hello"


def _hello_source(tmp: Path, notes: List[str]) -> Optional[Path]:
    """GNU hello's source tree, unpacked into tmp from the cached `apt-get source hello` download
    (fetched into HELLO_CACHE when it is not there yet), or None."""
    tarballs = sorted(HELLO_CACHE.glob("hello_*.orig.tar.gz"))
    if not tarballs:
        if shutil.which("apt-get") is None:
            notes.append("hello skipped: no apt-get to fetch the source")
            return None
        HELLO_CACHE.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["apt-get", "source", "--download-only", "hello"], cwd=HELLO_CACHE, capture_output=True,
                           timeout=600)
        tarballs = sorted(HELLO_CACHE.glob("hello_*.orig.tar.gz"))
        if r.returncode != 0 or not tarballs:
            notes.append("hello skipped: `apt-get source hello` failed (a deb-src line in apt's sources is needed): "
                         + r.stderr.decode(errors="replace").strip()[-200:])
            return None
    where = tmp / "hello-src"
    where.mkdir(exist_ok=True)
    subprocess.run(["tar", "xzf", str(tarballs[-1])], cwd=where, check=True)
    trees = [p for p in where.iterdir() if p.is_dir() and (p / "configure").exists()]
    return trees[0] if trees else None


def cases(only: Sequence[str], quick: bool, tmp: Path, notes: List[str], make_case: Callable,
          which: Callable[[str], Optional[str]]) -> list:
    """The Cases of the churn workloads in `only`: make_case(workload, label, argv, tools, size)."""
    out = []
    sh = which("sh")
    for name in ("forkexit", "forkexec"):
        if name in only and sh:
            n = QUICK_ITERATIONS if quick else ITERATIONS[name]
            what = "subshell (fork+exit)" if name == "forkexit" else "/bin/true (fork+exec+exit)"
            out.append(make_case(name, f"sh: {n:,} × {what}", [sh, "-c", LOOP.format(n=n, body=BODY[name])],
                                 TOOLS, n))
    if "hello" in only and sh and not quick:
        src = _hello_source(tmp, notes)
        if src is not None:
            out.append(make_case("hello", "GNU hello: configure, make, make check",
                                 [sh, "-c", HELLO.format(src=src)], HELLO_TOOLS, None))
    return out


def render(cases_: list, results, fmt_bytes: Callable) -> List[str]:
    """Markdown lines: time per iteration against the targets; the build against native."""
    rows = []
    for c in cases_:
        if c.workload not in NAMES:
            continue
        native = results.get((c.label, "native"))
        for tool in ("emutrace-notrace", "emutrace", "qemu"):
            res = results.get((c.label, tool))
            if res is None or not res.median:
                continue
            rss = fmt_bytes(res.maxrss_kb * 1024) if res.maxrss_kb else "-"
            if c.workload == "hello":
                ratio = res.median / native.median if native and native.median else None
                verdict = "" if tool != "emutrace-notrace" or ratio is None else (
                    "met" if ratio <= HELLO_TARGET else "**missed**")
                rows.append(f"| {c.label} | {tool} | {res.median:.1f} s | "
                            f"{'×%.1f native' % ratio if ratio else '-'} | {rss} | ≤ ×{HELLO_TARGET:g} {verdict} |")
            else:
                per = res.median / c.size * 1000
                verdict = "" if tool != "emutrace-notrace" else ("met" if per <= TARGET_MS[c.workload] else "**missed**")
                rows.append(f"| {c.label} | {tool} | {per:.1f} ms each | "
                            f"{'%.2f ms native' % (native.median / c.size * 1000) if native and native.median else '-'} "
                            f"| {rss} | ≤ {TARGET_MS[c.workload]:g} ms {verdict} |")
    if not rows:
        return []
    return ["### Process churn (docs/processes.md)", "",
            "| workload | tool | time | native | peak RSS | target |", "|---|---|---:|---:|---:|---|", *rows, ""]
