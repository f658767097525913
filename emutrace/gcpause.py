"""Python's cyclic garbage collector, paused while the `emutrace` command starts.

Start-up (importing emutrace and Unicorn's binding, building the session, exec'ing the program)
makes some 35,000 container objects that live to the end of the run, and in cycles only a few
dozen that die; yet the collector runs after every 700 allocations and traverses the survivors
again and again: ~8 ms of a 100 ms `emutrace --no-trace /bin/true`. The command (cli.entry)
pauses it before it imports anything and resumes it once the program is exec'd (cli.run).
Resuming freezes what start-up made (gc.freeze: it moves to a generation no collection
traverses), so the run's own collections do not walk it either: a full one of it costs ~7 ms.
The price is the few dozen start-up objects that died in cycles, kept to the end of the run.
Nothing the guest can see depends on when the host collects (emutrace's files and descriptors
are closed explicitly, not by collection).
"""
from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop collecting until resume() (the command's start; not for the Python API, whose
    caller owns the collector)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Collect again, without traversing what exists now (a no-op unless pause() paused it)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
