"""The behaviour report (`--report FILE`, `emutrace report FILE`): what an untrusted program did,
as one JSON document (schema.json) — its processes, files, dropped files, network, DNS, signals,
the limits it hit, findings with their evidence, and strings.

    collector.py   the observer of system calls and process events (no trace is formatted)
    watched.py     what each watched system call adds (its entry and exit handlers)
    calls.py       the library calls it reads (compares, name lookups)
    rules.py       the tables that classify paths and calls
    findings.py    named behaviours from what was seen
    target.py      the program's file and ELF facts
    document.py    the JSON document and the dropped files' contents
    render.py      the readable summary of `emutrace report`
"""
from __future__ import annotations

from emutrace.report.rules import WATCHED_CALLS
from emutrace.report.schema import SCHEMA_ID, SCHEMA_VERSION

WATCHED_FILTER = "+".join(WATCHED_CALLS)


def attach(session, tracer=None) -> ReportCollector:
    """A ReportCollector on `session`, before it starts. Library calls are read through the
    trace's library-call tracer when there is one; otherwise a tracer of its own catches just the
    watched calls and formats nothing."""
    from emutrace.report.collector import ReportCollector     # deferred: `emutrace report` reads reports without the emulator
    from emutrace.tsc import TscObserver     # deferred (with the collector): the run's RDTSC observer
    c = ReportCollector(session.world, session.hooks, session.kernel, session.argv, session.processes,
                        session.illegal)
    c.install(session.add_observer, next((o for o in session.observers if isinstance(o, TscObserver)), None))
    lt = getattr(tracer, "libcalls", None) if tracer is not None else None
    if lt is None:
        lt = _own_libcall_tracer(session)
    c.watch_calls(lt)
    return c


def _own_libcall_tracer(session):
    from emutrace.filters import CallFilter     # deferred (and below): a report loads a call tracer of its own only when none traces calls
    from emutrace.libcalls import LibcallTracer
    from emutrace.protos import load_prototypes
    from emutrace.report.calls import NoFormatter
    lt = LibcallTracer(session.world, session.hooks, _discard, NoFormatter(), load_prototypes(), CallFilter([WATCHED_FILTER]))
    lt.log_in_guest = False             # the watched sites are hooked in Python anyway: nothing to log
    lt.quiet = True
    session.add_observer(_LibcallHooks(lt))
    return lt


def _discard(event) -> None:
    """The report's own library-call tracer emits its events to nobody."""


class _LibcallHooks:
    """The session hooks a LibcallTracer needs (the CLI's Tracer relays them for its own)."""

    def __init__(self, lt):
        self.lt = lt

    def attach(self, proc):
        self.lt.attach(proc)

    def started(self, proc):
        self.lt.started(proc)

    def module_loaded(self, proc, module):
        self.lt.module_loaded(proc, module)

    def forked(self, parent, child):
        self.lt.forked(parent, child)

    def exited(self, proc, result):
        self.lt.finish(proc)


def __getattr__(name):
    if name == "ReportCollector":
        from emutrace.report.collector import ReportCollector      # deferred (see attach)
        return ReportCollector
    raise AttributeError(name)


__all__ = ["ReportCollector", "attach", "SCHEMA_ID", "SCHEMA_VERSION"]
