"""Named behaviours derived from what the collector marked, each with its evidence (event ids).

One table row per finding: the marks it rests on, its category and severity, and how it reads.
A row fires when any of its marks was seen; its evidence is every event of those marks."""
from __future__ import annotations

from typing import Dict, List

from emutrace.report.attack import techniques

# (name, category, severity, marks, description)
FINDINGS = (
    ("ptrace-traceme", "anti-debugging", "high", ("traceme",),
     "calls ptrace(PTRACE_TRACEME) to detect or block a debugger"),
    ("tracerpid-check", "anti-debugging", "medium", ("tracer-check",),
     "reads /proc/<pid>/status, where TracerPid tells whether a debugger is attached"),
    ("timing-check", "anti-debugging", "medium", ("rdtsc",),
     "reads the CPU time-stamp counter (RDTSC) from its own code, as timing checks do"),
    ("sleep-check", "anti-debugging", "low", ("sleep-check",),
     "reads a clock before and after a sleep, as checks for skipped sleeps (sandboxes) do"),
    ("not-dumpable", "anti-debugging", "low", ("not-dumpable",),
     "makes itself non-dumpable (prctl PR_SET_DUMPABLE 0), which also blocks ptrace attach"),
    ("persistence", "persistence", "high", ("persistence",),
     "writes a file that makes a program start again later (cron, systemd, rc, shell profile, "
     "authorized_keys, ld.so.preload)"),
    ("dynamic-code", "dynamic-code", "medium", ("made-executable", "rwx"),
     "makes writable memory executable, or maps memory writable and executable at once"),
    ("unpacked-code", "dynamic-code", "high", ("unpacked",),
     "runs code it wrote into memory itself, as packers and loaders run their payload"),
    ("jit-code", "dynamic-code", "low", ("jit",),
     "writes and rewrites code as it runs, as JIT compilers (node's V8) do: expected of such programs"),
    ("self-deletion", "evasion", "high", ("self-delete",), "deletes or moves its own executable"),
    ("setid-call", "privilege", "medium", ("setid",), "changes or tries to change its user or group ids"),
    ("privileged-file-read", "privilege", "high", ("privileged-read",),
     "opens a file only root may read (/etc/shadow, /etc/sudoers)"),
    ("process-rename", "masquerading", "medium", ("set-name", "set-mm"),
     "renames itself (prctl PR_SET_NAME / PR_SET_MM)"),
    ("argv0-rewrite", "masquerading", "medium", ("argv0",),
     "rewrites its argv[0] in memory, which is what ps shows"),
    ("network-denied", "network", "low", ("net-denied",),
     "tried to reach the network; the sandbox denied it"),
)

CATEGORIES = sorted({row[1] for row in FINDINGS})


def derive(collector) -> List[dict]:
    unpacked = getattr(collector, "unpacked", None)
    covers = unpacked.covers if unpacked is not None and unpacked.regions else None
    out = []
    for name, category, severity, marks, description in FINDINGS:
        evidence: List[int] = []
        details: List[Dict] = []
        for m in marks:
            evidence += collector.marks.get(m, [])
            details += collector.mark_detail.get(m, [])
        if name == "dynamic-code" and covers is not None:
            # where written-then-executed code was seen, the permission guess gives way to it
            kept = [d for d in details if not covers(d.get("address", 0), d.get("size", 0))]
            gone = {d["event"] for d in details} - {d["event"] for d in kept}
            details, evidence = kept, [e for e in evidence if e not in gone]
        if not evidence:
            continue
        out.append({"name": name, "category": category, "severity": severity, "description": description,
                    "evidence": sorted(set(evidence)), "details": details[:64],
                    "attack": techniques(name, details)})
    return out
