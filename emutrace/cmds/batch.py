"""`emutrace batch`: many runs on a pool of workers, each with its trace, report and status
(emutrace.batch)."""
from __future__ import annotations

from typing import List

from emutrace.batch import main as run_batch


def main(args: List[str]) -> int:
    return run_batch(list(args))
