"""The jobs of a batch: from manifests (one command line per line, shell-quoted; blank lines and
`#` comments skipped) and folders (each regular file in it, in name order, run without
arguments). An input that cannot be read becomes a job of its own that records why, so the rest
of the batch still runs."""
from __future__ import annotations

import hashlib
import os
import re
import shlex
from typing import List, Optional

from emutrace.record import field, record


@record
class Job:
    id: str                         # directory name under OUT/jobs: 0007-name
    argv: List[str]
    source: str                     # "manifest.txt:12" or "folder/"
    error: Optional[str] = None     # a bad manifest line or input: the job records it and does not run
    extra: List[str] = field(default_factory=list)

    @property
    def command(self) -> str:
        return " ".join(shlex.quote(a) for a in self.argv)

    @property
    def key(self) -> str:
        """What resume compares: the same command with the same options is the same job."""
        return hashlib.sha256("\0".join(self.extra + ["--"] + self.argv).encode("utf-8", "surrogateescape")).hexdigest()


def _name(argv: List[str]) -> str:
    base = os.path.basename(argv[0]) if argv else "input"
    return re.sub(r"[^A-Za-z0-9._+-]", "_", base)[:40] or "job"


def collect(inputs: List[str], extra: List[str]) -> List[Job]:
    jobs: List[Job] = []

    def add(argv, source, error=None):
        jobs.append(Job(f"{len(jobs) + 1:04d}-{_name(argv) if argv else _name([source])}", argv, source, error,
                        list(extra)))

    for inp in inputs:
        if os.path.isdir(inp):
            try:
                names = sorted(os.listdir(inp))
            except OSError as e:
                add([], inp, f"cannot list {inp}: {e.strerror}")
                continue
            for n in names:
                path = os.path.join(inp, n)
                if os.path.isfile(path):
                    add([os.path.abspath(path)], inp)
            continue
        try:
            with open(inp, encoding="utf-8", errors="surrogateescape") as f:
                lines = f.read().splitlines()
        except OSError as e:
            add([], inp, f"cannot read manifest {inp}: {e.strerror}")
            continue
        for no, line in enumerate(lines, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                argv = shlex.split(text)
            except ValueError as e:
                add([], f"{inp}:{no}", f"{inp}:{no}: bad command line ({e})")
                continue
            add(argv, f"{inp}:{no}")
    return jobs
