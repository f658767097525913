"""One job: `emutrace` run in its own process with the batch's options, writing its trace, its
behaviour report, the guest's output and its status. The same function serves the local pool
and Ray's workers (which return the files' contents instead of writing them: their disk is not
the driver's)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

# emutrace's exit statuses (emutrace.cli), as batch statuses
STATUS_OF_EXIT = {124: "limit", 125: "error", 126: "not-executable", 127: "not-found"}
OUTPUTS = ("trace.txt", "report.json", "report.html", "stdout.txt", "stderr.txt")
GRACE_S = 60                    # beyond --timeout, before a job's process is killed from outside


def command(spec: dict, workdir: str) -> List[str]:
    argv = [sys.executable, "-m", "emutrace", *spec["options"]]
    if "--no-trace" not in spec["options"]:
        argv += ["-o", os.path.join(workdir, "trace.txt")]
    argv += ["--report", os.path.join(workdir, "report.json"), "--", *spec["argv"]]
    return argv


def run(spec: dict, workdir: Optional[str] = None) -> dict:
    """Run the job `spec` ({"id", "argv", "options", "timeout"}). With `workdir`, the outputs
    are written there; without, into a private directory whose files come back in "files"."""
    own = workdir is None
    if own:
        workdir = tempfile.mkdtemp(prefix="emutrace-job-")
    try:
        result = _run_in(spec, workdir)
        if own:
            result["files"] = {}
            for name in OUTPUTS:
                p = os.path.join(workdir, name)
                if os.path.exists(p):
                    with open(p, "rb") as f:
                        result["files"][name] = f.read()
        return result
    finally:
        if own:
            shutil.rmtree(workdir, ignore_errors=True)


def _run_in(spec: dict, workdir: str) -> dict:
    os.makedirs(workdir, exist_ok=True)
    argv = command(spec, workdir)
    limit = spec.get("timeout") or 0
    t0 = time.monotonic()
    with open(os.path.join(workdir, "stdout.txt"), "wb") as out, open(os.path.join(workdir, "stderr.txt"), "wb") as err:
        try:
            p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=_cwd(spec),
                                 start_new_session=True)
        except OSError as e:
            return _result(spec, "error", None, time.monotonic() - t0, f"cannot start emutrace: {e.strerror}")
        try:
            rc = p.wait(timeout=limit + GRACE_S if limit else None)
        except subprocess.TimeoutExpired:
            _kill(p)
            return _result(spec, "limit", None, time.monotonic() - t0,
                           f"still running {GRACE_S} s after its time limit: killed")
        except BaseException:
            _kill(p)                 # the batch is interrupted: the job goes with it
            raise
    elapsed = time.monotonic() - t0
    report = _load(os.path.join(workdir, "report.json"))
    if report is not None:
        _page(report, os.path.join(workdir, "report.html"))
    return _classify(spec, rc, elapsed, report, os.path.join(workdir, "stderr.txt"))


def _page(report: dict, path: str) -> None:
    """The job's report as a page beside its JSON (the batch index links to it)."""
    from emutrace.report.htmlpage import render     # deferred: only a job with a report builds a page
    try:
        text = render(report, "report.json")
    except (KeyError, TypeError, ValueError, AttributeError):
        return                  # a report this emutrace cannot read: the index says so by the missing page
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def _cwd(spec: dict):
    """The batch's working directory (relative paths in a manifest mean what they meant there),
    when this machine has it."""
    cwd = spec.get("cwd")
    return cwd if cwd and os.path.isdir(cwd) else None


def _kill(p) -> None:
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (OSError, AttributeError):
        p.kill()
    p.wait()


def _load(path: str) -> Optional[dict]:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _classify(spec: dict, rc: int, elapsed: float, report: Optional[dict], stderr_path: str) -> dict:
    if rc < 0:
        # emutrace ends by the guest's signal when the guest was killed (as strace does)
        status, exit_code = "killed", 128 - rc
        if report is None:
            status = "crashed"
    elif rc in STATUS_OF_EXIT and report is not None and (report.get("run") or {}).get("message"):
        status, exit_code = STATUS_OF_EXIT[rc], rc
    elif rc in STATUS_OF_EXIT and report is None:
        status, exit_code = STATUS_OF_EXIT[rc], rc
    else:
        status, exit_code = ("ok" if rc == 0 else "exited"), rc
    message = None
    if status not in ("ok", "exited", "killed"):
        message = _emutrace_error(stderr_path)
    res = _result(spec, status, exit_code, elapsed, message)
    if report is not None:
        res["limits_hit"] = sorted({x["limit"] for x in report.get("limits_hit", [])})
        res["findings"] = len(report.get("findings", []))
        res["finding_names"] = [f["name"] for f in report.get("findings", [])]
        res.update(digest(report))
    return res


SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}


def digest(report: dict) -> Dict:
    """What the batch index shows of a report and groups samples by: the top severity, the
    findings by severity (with their ATT&CK ids) and the hashes of the dropped files."""
    fs = sorted(report.get("findings", []), key=lambda f: (SEVERITY_RANK.get(f.get("severity"), 9), f["name"]))
    return {"severity": fs[0]["severity"] if fs else None,
            "top_findings": [{"name": f["name"], "severity": f["severity"],
                              "attack": [t["id"] for t in f.get("attack", [])]} for f in fs[:5]],
            "dropped_sha256": sorted({d["sha256"] for d in report.get("dropped", []) if d.get("sha256")})}


def _emutrace_error(path: str) -> Optional[str]:
    """The last `emutrace:` line of the job's stderr: emutrace's own reason."""
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    ours = [ln for ln in lines if ln.startswith("emutrace: ")]
    return ours[-1][len("emutrace: "):] if ours else (lines[-1] if lines else None)


def _result(spec: dict, status: str, exit_code: Optional[int], elapsed: float, message: Optional[str]) -> Dict:
    return {"id": spec["id"], "command": spec["command"], "status": status, "exit_code": exit_code,
            "time_s": round(elapsed, 3), "limits_hit": [], "findings": 0, "finding_names": [],
            "message": message}
