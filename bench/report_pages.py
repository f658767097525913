"""bench/ workloads of the analyst's pages (issue 37): `emutrace report --html` on a report of
20,000 events (target: <= 0.5 s, page <= 2 MB), and the batch index of 1,000 reports (target:
<= 10 s). The inputs are made here from one real report (bins/dropper under emutrace), copied
with fresh event ids and paths so every list is long, as a busy sample's would be.

    python3 bench/report_pages.py make DIR     # DIR/big.json and DIR/batch/ (1,000 jobs)
    python3 bench/report_pages.py index DIR    # writes DIR/batch/index.html from its summary

The unpacked-code rows are measured two ways, as a loaded machine blurs wall time: the least host
CPU time of the runs with and without the watch, and the counts bench/unpack_fills.py takes (TLB
fills, fills that reached Python, flushes, and the CPU time inside the watch's own code), which
do not depend on the load.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS = 20000
JOBS = 1000
TOOLS = ("native",)             # (these workloads run emutrace's own page makers: "native" is their time)
NAMES = ("reportpage", "batchindex", "unpackcost")
# unpacked-code tracking's cost (target: <= 5%): the report with the code watch and without it
UNPACK_TOOLS = ("emutrace-report", "emutrace-report-nowatch")
UNPACK_PROGRAMS = ("git", "xz", "python3")
UNPACK_TARGET = 5.0             # percent
PAGE_TARGET_S, PAGE_TARGET_BYTES, INDEX_TARGET_S = 0.5, 2 << 20, 10.0


def _seed_report(tmp: Path) -> dict:
    sys.path.insert(0, str(ROOT))
    from bins.build import build
    out = tmp / "seed.json"
    subprocess.run([sys.executable, "-m", "emutrace", "--no-trace", "--report", str(out), "--env", "DROPPER_KEY=x",
                    str(build("dropper", "pie"))], cwd=tmp, capture_output=True, check=True)
    return json.loads(out.read_text())


def make(tmp: Path) -> None:
    tmp.mkdir(parents=True, exist_ok=True)
    doc = _seed_report(tmp)
    base = doc["events"]
    events, files = [], []
    for i in range(EVENTS):
        e = dict(base[i % len(base)], id=i + 1, time_ns=i * 1000)
        if "path" in e:
            e["path"] = f"{e['path']}.{i}"
        events.append(e)
    for i in range(3000):
        files.append({"path": f"/tmp/f{i}", "ops": ["open-write", "write"], "bytes_read": 0, "bytes_written": i,
                      "events": [i + 1]})
    doc.update(events=events, files=doc["files"] + files,
               strings={"memory": [f"string number {i} of many" for i in range(4000)],
                        "compares": doc["strings"]["compares"]})
    (tmp / "big.json").write_text(json.dumps(doc))
    batch = tmp / "batch"
    (batch / "jobs").mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from emutrace.batch.worker import digest
    d = digest(doc)
    with open(batch / "summary.jsonl", "w") as f:
        for i in range(JOBS):
            row = {"id": f"{i + 1:04d}-s{i}", "command": f"s{i}", "status": "ok", "exit_code": 0, "time_s": 1.5,
                   "limits_hit": [], "findings": len(doc["findings"]),
                   "finding_names": [x["name"] for x in doc["findings"]][: 1 + i % 5], "message": None}
            row.update(d, dropped_sha256=d["dropped_sha256"][: i % 7])
            f.write(json.dumps(row) + "\n")


def index(tmp: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from emutrace.report.htmlindex import render
    batch = tmp / "batch"
    rows = [json.loads(x) for x in (batch / "summary.jsonl").read_text().splitlines()]
    (batch / "index.html").write_text(render(rows), encoding="utf-8")


def cases(only, quick: bool, tmp: Path, notes, make_case, make_unpack_case, which) -> list:
    """The page workloads in `only` ("reportpage", "batchindex"), and "unpackcost": git, xz and
    python3 (program_workloads' commands) under --report with and without the code watch."""
    out = []
    if "unpackcost" in only:
        from bench import program_workloads
        here = tmp / "unpackcost"
        here.mkdir(exist_ok=True)
        out += program_workloads.cases(UNPACK_PROGRAMS, quick, here, notes,
                                       lambda wl, label, argv: make_unpack_case("unpackcost", f"{label}, --report",
                                                                                argv), which)
    if not {"reportpage", "batchindex"} & set(only):
        return out
    where = tmp / "pages"
    try:
        make(where)
    except (subprocess.CalledProcessError, OSError) as e:
        notes.append(f"report pages skipped: {e}")
        return out
    if "reportpage" in only:
        out.append(make_case("reportpage", f"report --html ({EVENTS:,} events; target <= 0.5 s, <= 2 MB)",
                             [sys.executable, "-m", "emutrace", "report", "--html", str(where / "big.json"), "-o",
                              str(where / "big.html")]))
    if "batchindex" in only:
        out.append(make_case("batchindex", f"batch index.html ({JOBS:,} reports; target <= 10 s)",
                             [sys.executable, os.path.abspath(__file__), "index", str(where)]))
    return out


def fill_counts(argv) -> dict:
    """bench/unpack_fills.py's counts of one run of argv, with the watch and without it."""
    import tempfile
    out = {}
    tmp = Path(tempfile.mkdtemp(prefix="emutrace-fills-"))
    for mode in ("watch", "nowatch"):
        dest = tmp / f"fills-{mode}.json"
        subprocess.run([sys.executable, str(Path(__file__).with_name("unpack_fills.py")), mode, str(dest), "--",
                        *argv], cwd=str(tmp), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out[mode] = json.loads(dest.read_text()) if dest.exists() else None
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def render(cases_: list, results, fmt_time) -> list:
    """Markdown: the pages' times and size against their targets, and the watch's cost."""
    L = []
    pages = [c for c in cases_ if c.workload in ("reportpage", "batchindex")]
    if pages:
        L += ["### The analyst's pages (issue 37)", "",
              "| page | median wall | least host CPU | size | target |", "|---|---:|---:|---:|---|"]
        for c in pages:
            r = results.get((c.label, "native"))
            if r is None or r.median is None:
                L.append(f"| {c.label} | - | - | - | not measured |")
                continue
            out = Path(c.argv[-1]) if c.workload == "reportpage" else Path(c.argv[-1]) / "batch" / "index.html"
            size = out.stat().st_size if out.exists() else None
            limit = PAGE_TARGET_S if c.workload == "reportpage" else INDEX_TARGET_S
            met = r.min_cpu is not None and r.min_cpu <= limit and (c.workload != "reportpage" or (size or 0) <= PAGE_TARGET_BYTES)
            L.append(f"| {c.label} | {fmt_time(r.median)} | {fmt_time(r.min_cpu)} | "
                     f"{size / 1e6:.2f} MB |" if size else f"| {c.label} | {fmt_time(r.median)} | {fmt_time(r.min_cpu)} | - |")
            L[-1] += f" {'met' if met else '**missed**'} (CPU) |"
        L.append("")
    unpack = [c for c in cases_ if c.workload == "unpackcost"]
    if unpack:
        L += [f"### Unpacked-code tracking's cost under --report (target: <= {UNPACK_TARGET:.0f}%)", "",
              "| program | least CPU, watch | least CPU, no watch | CPU cost | TLB fills (watch / none) "
              "| Python fills (watch / none) | flushes | CPU in the watch's code |",
              "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for c in unpack:
            w, n = results.get((c.label, "emutrace-report")), results.get((c.label, "emutrace-report-nowatch"))
            if not (w and n and w.min_cpu and n.min_cpu):
                L.append(f"| {c.label} | - | - | - | - | - | - | not measured |")
                continue
            cost = 100 * (w.min_cpu / n.min_cpu - 1)
            counts = fill_counts(c.argv)
            cw, cn = counts.get("watch"), counts.get("nowatch")
            if cw and cn:
                own = 100 * cw["watch_cpu_s"] / cw["cpu_s"] if cw["cpu_s"] else 0.0
                extra = (f"{cw['fills']:,} / {cn['fills']:,} | {cw['python_fills']:,} / {cn['python_fills']:,} | "
                         f"{cw['flushes']} | {own:.1f}% |")
            else:
                extra = "- | - | - | - |"
            L.append(f"| {c.label} | {fmt_time(w.min_cpu)} | {fmt_time(n.min_cpu)} | {cost:+.1f}% | {extra}")
        L.append("")
    return L


if __name__ == "__main__":
    {"make": make, "index": index}[sys.argv[1]](Path(sys.argv[2]))
