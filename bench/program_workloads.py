"""bench/ workloads of real programs, traced: what a user runs emutrace on. git status in a
repository of 300 files, xz compressing 1 MiB, a perl script of hashes and regexes, a python3
script building and dumping JSON, a C++17 program (bench/progs/cxxwork.cpp) and a bash loop.
Each runs natively, traced by emutrace (library calls to a file, its default), under emutrace
--no-trace, and under qemu-x86_64; sort is its own workload above.

Target (issue 15): traced, the geometric mean of emutrace's time over qemu-user's untraced
time is <= 3."""
from __future__ import annotations

import math
import random
import subprocess
from pathlib import Path
from typing import Callable, List, Optional, Sequence

PROGS = Path(__file__).resolve().parent / "progs"
TOOLS = ("native", "emutrace", "emutrace-notrace", "qemu")
NAMES = ("git", "xz", "perl", "python3", "cxx", "bashloop")
GEOMEAN_TARGET = 3.0

PERL = ('my %h; my $n = 0; for my $i (1 .. 20000) { my $k = "key$i"; $h{$k} = $i * 2; '
        '$n++ if $k =~ /^key\\d*7\\d*$/ } my $s = 0; $s += $_ for values %h; print "$s $n\\n";')
PYTHON = ("import json; d = [{'id': i, 'name': 'item%d' % i, 'tags': ['a', 'b'][: i % 3]} "
          "for i in range(20000)]; print(len(json.dumps(d)), sum(x['id'] for x in json.loads(json.dumps(d))))")
BASH = 's=0; for i in $(seq 3000); do s=$((s + i * i % 7)); done; echo "$s"'


def _git_repo(root: Path, notes: List[str], git: str) -> Optional[Path]:
    repo = root / "repo"
    repo.mkdir()
    rnd = random.Random(300)
    for i in range(300):
        d = repo / f"dir{i % 12}"
        d.mkdir(exist_ok=True)
        (d / f"file{i:03d}.txt").write_text("".join(f"line {j} {rnd.random()}\n" for j in range(20)))
    env = {"GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.org",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.org",
           "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
           "HOME": str(root), "PATH": "/usr/bin:/bin"}
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "files"]):
        r = subprocess.run([git, *cmd], cwd=repo, env=env, capture_output=True)
        if r.returncode != 0:
            notes.append(f"git skipped: git {' '.join(cmd)} failed: {r.stderr.decode(errors='replace')[-200:]}")
            return None
    for i in range(0, 300, 25):                  # a few changed files and an untracked one
        (repo / f"dir{i % 12}" / f"file{i:03d}.txt").write_text("changed\n")
    (repo / "new.txt").write_text("untracked\n")
    return repo


def cases(only: Sequence[str], quick: bool, tmp: Path, notes: List[str], make_case: Callable,
          which: Callable[[str], Optional[str]]) -> list:
    """The Cases of the program workloads in `only`: make_case(workload, label, argv);
    which(name) -> path or None."""
    out = []

    def tool(name: str, workload: str) -> Optional[str]:
        path = which(name)
        if not path:
            notes.append(f"{workload} skipped: {name} not found")
        return path

    if "git" in only and (git := tool("git", "git")):
        repo = _git_repo(tmp, notes, git)
        if repo is not None:
            out.append(make_case("git", "git status (300 files)", [git, "-C", str(repo), "status", "--porcelain"]))
    if "xz" in only and (xz := tool("xz", "xz")):
        rnd = random.Random(1)
        words = ["alpha", "beta", "gamma", "delta", "emutrace", "trace", "call", "return"]
        (tmp / "text.txt").write_text(" ".join(rnd.choice(words) for _ in range(180000 if not quick else 20000)))
        out.append(make_case("xz", "xz -6 of 1 MiB of text", [xz, "-6", "-c", "-T1", str(tmp / "text.txt")]))
    if "perl" in only and (perl := tool("perl", "perl")):
        out.append(make_case("perl", "perl: 20,000 hash keys and regexes", [perl, "-e", PERL]))
    if "python3" in only and (py := tool("python3", "python3")):
        out.append(make_case("python3", "python3: JSON of 20,000 records", [str(Path(py).resolve()), "-c", PYTHON]))
    if "cxx" in only and (gxx := tool("g++", "cxx")):
        exe = tmp / "cxxwork"
        r = subprocess.run([gxx, "-O2", "-std=c++17", "-o", str(exe), str(PROGS / "cxxwork.cpp")],
                           capture_output=True)
        if r.returncode == 0:
            out.append(make_case("cxx", "C++17: strings, maps, sort, exceptions", [str(exe)]))
        else:
            notes.append(f"cxx skipped: g++ failed: {r.stderr.decode(errors='replace')[-200:]}")
    if "bashloop" in only and (bash := tool("bash", "bashloop")):
        out.append(make_case("bashloop", "bash: a 3,000-step arithmetic loop", [bash, "-c", BASH]))
    return out


def render(cases_: list, results) -> List[str]:
    """Markdown lines: each program traced against qemu-user untraced, and the geometric mean."""
    rows, ratios = [], []
    for c in cases_:
        if c.workload not in NAMES:
            continue
        emu, qemu = results.get((c.label, "emutrace")), results.get((c.label, "qemu"))
        bare = results.get((c.label, "emutrace-notrace"))
        if not (emu and qemu and emu.median and qemu.median):
            rows.append(f"| {c.label} | - | - | not measured (timeout or missing tool) |")
            continue
        r = emu.median / qemu.median
        ratios.append(r)
        untraced = f"×{bare.median / qemu.median:.2f}" if bare and bare.median else "-"
        rows.append(f"| {c.label} | ×{r:.2f} | {untraced} | |")
    if not rows:
        return []
    L = ["### Real programs traced, against qemu-x86_64 untraced (target: geometric mean ≤ ×3)", "",
         "| program | emutrace (traced) ÷ qemu | --no-trace ÷ qemu | |", "|---|---:|---:|---|", *rows]
    if ratios:
        g = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        L.append(f"| **geometric mean** | **×{g:.2f}** | | {'met' if g <= GEOMEAN_TARGET else '**missed**'} |")
    return L + [""]
