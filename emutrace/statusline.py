"""The status line: on a terminal, while a long run writes its trace to a file (or none), one
line on stderr says it is alive, a few times a second: wall time, virtual time, guest
instructions (when --max-insns counts them: counting costs a hook per block otherwise), trace
lines written and live processes. It is erased at the end, never drawn into a pipe or a file,
and -q turns it off (cli.run decides).

A thread draws it, so it moves while the guest computes without a system call; the command then
gives up the GIL while the guest runs (emutrace/machine/gil.py), as the Python API always does.
"""
from __future__ import annotations

import os
import shutil
import threading
import time


class StatusLine:
    EVERY = 0.25                    # seconds between updates

    def __init__(self, world, kernel, writers, stream):
        self.world, self.kernel = world, kernel      # (virtual time and work; the live processes)
        self.writers = [w for w in writers if w is not None]
        self.stream = stream
        self.start_time = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="emutrace-status", daemon=True)
        self.drawn = False

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.EVERY):
            try:
                self.draw()
            except Exception:       # (a racy read of the run's state: the next update redraws)
                pass

    def text(self) -> str:
        # (what matters most first: a narrow terminal cuts the line's end)
        live = sum(1 for p in list(self.kernel.sched.procs) if p.exit is None)
        parts = [f"{time.monotonic() - self.start_time:.1f} s", f"{live} process{'es' if live != 1 else ''}",
                 f"{sum(w.lines for w in self.writers):,} trace lines", f"virtual {self.world.elapsed_ns / 1e9:.3f} s",
                 f"{self.world.work:,} instructions"]      # (retired guest work: docs/time.md)
        return "emutrace: " + ", ".join(parts)

    def draw(self) -> None:
        cols = shutil.get_terminal_size((80, 24)).columns
        self.stream.write("\r" + self.text()[:max(10, cols - 1)] + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def stop(self) -> None:
        """Stop drawing and erase the line."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def wanted(cfg, stream) -> bool:
    """A status line: the trace goes to a file or nowhere, stderr is a terminal, no -q."""
    if cfg.quiet or (cfg.trace.enabled and cfg.trace.output is None):
        return False
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (AttributeError, ValueError, OSError):
        return False
