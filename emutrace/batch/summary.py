"""A batch's records: each job's status.json (written last, so a job that has one is done), the
summary (summary.jsonl, one line per job in input order, and the table of summary.txt), and the
progress line with its ETA on a terminal."""
from __future__ import annotations

import json
import os
import sys
import time
from typing import List, Optional

STATUS_FILE = "status.json"


def job_dir(out: str, job_id: str) -> str:
    return os.path.join(out, "jobs", job_id)


def _write_atomic(path: str, data: bytes) -> None:
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def load_status(out: str, job) -> Optional[dict]:
    """The job's recorded result, if it ran to its end before with the same command and options."""
    try:
        with open(os.path.join(job_dir(out, job.id), STATUS_FILE), encoding="utf-8") as f:
            res = json.load(f)
    except (OSError, ValueError):
        return None
    return res if res.get("key") == job.key else None


def save_job(out: str, job_id: str, res: dict) -> None:
    d = job_dir(out, job_id)
    os.makedirs(d, exist_ok=True)
    for name, data in (res.pop("files", None) or {}).items():      # outputs of a remote worker
        _write_atomic(os.path.join(d, name), data)
    _write_atomic(os.path.join(d, STATUS_FILE), (json.dumps(res, indent=1) + "\n").encode())


def record_bad_input(out: str, job) -> dict:
    res = {"id": job.id, "command": job.source, "status": "bad-input", "exit_code": None, "time_s": 0.0,
           "limits_hit": [], "findings": 0, "finding_names": [], "message": job.error, "key": job.key}
    save_job(out, job.id, dict(res))
    return res


def write(out: str, results: List[dict]) -> None:
    lines = "".join(json.dumps({k: v for k, v in r.items() if k != "key"}) + "\n" for r in results)
    _write_atomic(os.path.join(out, "summary.jsonl"), lines.encode())
    _write_atomic(os.path.join(out, "summary.txt"), table(results).encode())
    from emutrace.report.htmlindex import render     # deferred: a batch loads the page maker at its end
    _write_atomic(os.path.join(out, "index.html"), render(results).encode())


def table(results: List[dict]) -> str:
    head = ("job", "status", "exit", "time", "limits hit", "findings")
    rows = [(r["id"], r["status"], "" if r["exit_code"] is None else str(r["exit_code"]), f"{r['time_s']:.2f}s",
             ",".join(r.get("limits_hit") or []) or "-", str(r.get("findings", 0))) for r in results]
    widths = [max(len(h), *(len(row[i]) for row in rows)) if rows else len(h) for i, h in enumerate(head)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines = [fmt.format(*head).rstrip()] + [fmt.format(*row).rstrip() for row in rows]
    counts = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    lines.append(f"{len(results)} jobs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    for r in results:
        if r.get("message") and r["status"] not in ("ok", "exited", "killed"):
            lines.append(f"  {r['id']}: {r['message']}")
    return "\n".join(lines) + "\n"


class Progress:
    """`[done/total] ok, failed, running, elapsed, ETA` on a terminal (one line, rewritten);
    elsewhere one line per finished job, unless --quiet."""

    def __init__(self, total: int, skipped: int, quiet: bool, stream=None, resumed: int = 0):
        self.total, self.done_n, self.skipped = total, skipped, skipped
        self.failed = 0
        self.quiet = quiet
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.t0 = time.monotonic()
        if resumed and not quiet:
            self.stream.write(f"emutrace: batch: {resumed} of {total} jobs already done, skipped\n")

    def done(self, res: dict) -> None:
        self.done_n += 1
        if res["status"] != "ok":
            self.failed += 1
        if self.quiet:
            return
        elapsed = time.monotonic() - self.t0
        ran = self.done_n - self.skipped
        left = self.total - self.done_n
        eta = elapsed / ran * left if ran else 0.0
        if self.tty:
            self.stream.write(f"\r[{self.done_n}/{self.total}] {self.failed} not ok, elapsed {_hms(elapsed)}, "
                              f"ETA {_hms(eta)}  \x1b[K")
        else:
            self.stream.write(f"[{self.done_n}/{self.total}] {res['status']:<8} {res['id']} {res['time_s']:.2f}s\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def _hms(s: float) -> str:
    s = int(s + 0.5)
    return f"{s // 3600}h{s // 60 % 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"
