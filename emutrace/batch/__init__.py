"""`emutrace batch`: run many commands under emutrace and keep, per job, its trace, its behaviour
report, the guest's output and its status, plus a summary of all of them.

    emutrace batch [--jobs N] --out DIR [--timeout S] [--max-mem B] [--max-insns N] [--max-disk B]
                   [--executor local|ray] [--ray-address ADDR] [--no-resume] [--quiet]
                   INPUT... [-- EMUTRACE-OPTIONS...]

INPUT is a manifest (one command line per line, shell-quoted; `#` comments) or a folder (each
file in it is a job). Options after `--` go to every run (`-- --strace -f`). Each job gets
OUT/jobs/NNNN-NAME/ with trace.txt, report.json, stdout.txt, stderr.txt and status.json;
OUT/summary.jsonl has one line per job (manifest order) and OUT/summary.txt the table printed at
the end. A job whose status.json names the same command and options is done: running the same
batch again (after an interruption) runs only what is left (--no-resume runs everything).

Options:
  -j N, --jobs N            runs at once (default: the CPUs this process may use)
  --out DIR                 where the jobs' files and the summary go
  --timeout S, --max-mem B, --max-insns N, --max-disk B
                            passed to every run (emutrace --help)
  --executor local|ray      a local pool of processes (default) or a Ray cluster
  --ray-address ADDR        the Ray cluster to join (with --executor ray)
  --no-resume               run every job, also those a previous run finished
  -q, --quiet               no progress lines, only the summary
  -h, --help                this help

Examples:
  emutrace batch --jobs 4 --out results/ samples/               # every file of samples/ is a job
  emutrace batch --out results/ --timeout 30 jobs.txt -- --strace -f   # a manifest, strace-style
  emutrace batch --executor ray --ray-address auto --out results/ jobs.txt   # on a Ray cluster

Exit status: 0 every job ran and exited 0; 1 some job did not (its status says why); 2 usage;
130 interrupted (what finished is kept).
"""
from __future__ import annotations

import os
import signal
import sys
from typing import List, Optional

from emutrace.batch import executors, jobs as jobs_mod, summary

USAGE = ("usage: emutrace batch [--jobs N] --out DIR [--timeout S] [--max-mem B] [--max-insns N] "
         "[--max-disk B] [--executor local|ray] [--ray-address ADDR] [--no-resume] [--quiet] "
         "INPUT... [-- OPTIONS...]")
# batch options passed to every emutrace run
PASSED = ("--timeout", "--max-mem", "--max-insns", "--max-disk")


def _fail(message: str, status: int = 2) -> int:
    sys.stderr.write(f"emutrace: batch: {message}\n")
    sys.stderr.flush()
    return status


def _cpus() -> int:
    n = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, n)


def _supports(option: str) -> bool:
    """Does this emutrace's command line know `option` (--max-disk is newer than the rest)?"""
    from emutrace.options import UsageError, parse     # deferred: options imports the session and the emulator, which the batch parent needs for nothing else
    try:
        parse([option, "1", "true"])
    except UsageError as e:
        return "unknown option" not in str(e)
    return True


def main(args: List[str]) -> int:
    try:
        return _main(args)
    except BrokenPipeError:          # (the table or --help into a pipe that closed: as a shell's tools)
        return 141
    except KeyboardInterrupt:
        return _fail("interrupted", 130)


def _main(args: List[str]) -> int:
    n_jobs, out, executor, address, resume, quiet = _cpus(), None, "local", None, True, False
    passed: List[str] = []
    inputs: List[str] = []
    extra: List[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        name, eq, attached = a.partition("=")

        def value():
            nonlocal i
            if eq:
                return attached
            if i + 1 >= len(args):
                raise ValueError(f"option {name} needs a value")
            i += 1
            return args[i]
        try:
            if a in ("-h", "--help"):
                print(__doc__.strip())
                return 0
            if a == "--":
                extra = args[i + 1:]
                break
            if name in ("-j", "--jobs"):
                v = value()
                if not v.isdigit() or int(v) < 1:
                    return _fail(f"--jobs takes a positive number, not {v!r}")
                n_jobs = int(v)
            elif name == "--out":
                out = value()
            elif name in PASSED:
                v = value()
                if name == "--max-disk" and not _supports("--max-disk"):
                    return _fail("--max-disk: this emutrace has no disk limit option")
                passed += [name, v]
            elif name == "--executor":
                executor = value()
                if executor not in ("local", "ray"):
                    return _fail("--executor is local or ray")
            elif name == "--ray-address":
                address = value()
            elif a == "--no-resume":
                resume = False
            elif a in ("-q", "--quiet"):
                quiet = True
            elif a.startswith("-") and a != "-":
                return _fail(f"unknown option {a} ({USAGE})")
            else:
                inputs.append(a)
        except ValueError as e:
            return _fail(str(e))
        i += 1
    if out is None or not inputs:
        return _fail(f"needs --out DIR and at least one manifest or folder ({USAGE})")
    options = passed + extra
    err = _check_options(options)
    if err:
        return _fail(err)
    for inp in inputs:           # (a typo in a path is a usage error, not one failed job)
        if not os.path.exists(inp):
            return _fail(f"{inp}: no such manifest or folder")
    timeout = float(passed[passed.index("--timeout") + 1]) if "--timeout" in passed else 0.0
    try:
        os.makedirs(os.path.join(out, "jobs"), exist_ok=True)
    except OSError as e:
        return _fail(f"--out {out}: {e.strerror}")
    all_jobs = jobs_mod.collect(inputs, options)
    return run(all_jobs, out, n_jobs, executor, address, resume, quiet, timeout)


def _check_options(options: List[str]) -> Optional[str]:
    """The options every run gets must parse (checked once here, not failed N times)."""
    from emutrace.options import UsageError, parse     # deferred: options imports the session and the emulator, which the batch parent needs for nothing else
    try:
        parse(options + ["--", "true"])
    except UsageError as e:
        return f"options for the runs: {e}"
    return None


def spec_of(job, out: str, timeout: float) -> dict:
    return {"id": job.id, "argv": job.argv, "command": job.command, "options": job.extra, "timeout": timeout,
            "key": job.key, "cwd": os.getcwd()}


def run(all_jobs, out: str, n_jobs: int, executor: str, address, resume: bool, quiet: bool,
        timeout: float) -> int:
    results = {}
    todo = []
    resumed = 0
    for job in all_jobs:
        done = summary.load_status(out, job) if resume else None
        if done is not None:
            results[job.id] = done
            resumed += 1
        elif job.error is not None:
            results[job.id] = summary.record_bad_input(out, job)
        else:
            todo.append(job)
    specs = [spec_of(j, out, timeout) for j in todo]
    progress = summary.Progress(len(all_jobs), len(results), quiet, resumed=resumed)
    status = 0
    stop = _Interrupted.install()
    try:
        if executor == "ray":
            stream = executors.ray(specs, n_jobs, address)
        else:
            stream = executors.local(specs, n_jobs, lambda s: summary.job_dir(out, s["id"]))
        for spec, res in stream:
            res["key"] = spec["key"]
            summary.save_job(out, spec["id"], res)
            results[spec["id"]] = res
            progress.done(res)
    except executors.ExecutorError as e:
        return _fail(str(e))
    except KeyboardInterrupt:
        status = 130
    finally:
        stop.restore()
        progress.close()
    ordered = [results[j.id] for j in all_jobs if j.id in results]
    summary.write(out, ordered)
    if not quiet or status:
        sys.stdout.write(summary.table(ordered))
        sys.stdout.flush()
    if status:
        sys.stderr.write(f"emutrace: batch interrupted: {len(ordered)} of {len(all_jobs)} jobs done; "
                         "run the same command again to go on\n")
        return status
    return 0 if all(r["status"] == "ok" for r in ordered) else 1


class _Interrupted:
    """SIGTERM ends a batch as ^C does: running jobs are killed, finished ones are kept."""

    def __init__(self, old):
        self.old = old

    @classmethod
    def install(cls):
        def on_term(signo, frame):
            raise KeyboardInterrupt
        try:
            return cls(signal.signal(signal.SIGTERM, on_term))
        except ValueError:           # not the main thread (a batch run from the API's thread)
            return cls(None)

    def restore(self):
        if self.old is not None:
            signal.signal(signal.SIGTERM, self.old)
