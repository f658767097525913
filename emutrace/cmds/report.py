"""`emutrace report FILE`: a behaviour report (written by --report) as a readable summary."""
from __future__ import annotations

from typing import List

from emutrace.report.render import main as render


def main(args: List[str]) -> int:
    return render(list(args))
