"""What tracing sets up before the program's first call, made cheaper without changing a byte of
the trace: PLT entries caught by range hooks until the program's entry (emutrace.libcalls)."""
from __future__ import annotations

import pytest

from conftest import built
from emutrace.libcalls import LibcallTracer


def _run_in_process(args, monkeypatch=None, one_hook_per_entry=False):
    """Trace in this process; returns (trace text, the hook runs of the first engine when the
    program reached its entry: {hook: [entries]})."""
    from emutrace.options import parse
    from emutrace.session import Session
    from emutrace.tracer import build_observers
    at_entry = {}
    redirect = LibcallTracer._redirect_got

    def spy(self, proc):
        if not at_entry:
            at_entry.update({h: list(run) for h, run in self._engine(proc.machine).hook_runs.items()})
        return redirect(self, proc)
    monkeypatch.setattr(LibcallTracer, "_redirect_got", spy)
    if one_hook_per_entry:          # what emutrace did before: one exact hook per entry
        monkeypatch.setattr(LibcallTracer, "_runs", lambda self, entries: [[e] for e in entries])
    cfg = parse(args)
    session = Session(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
    sinks = build_observers(session, cfg)
    session.start()
    session.run()
    for s in sinks:
        s.close()
    return at_entry


def test_runs_cut_where_entries_are_apart_or_another_site_lies_between():
    t = LibcallTracer.__new__(LibcallTracer)
    t.sites = {0x1000: 1, 0x1010: 1, 0x1020: 1, 0x1040: 1, 0x2000: 1, 0x2008: 1, 0x2010: 1}
    assert t._runs([0x1000, 0x1010, 0x1020, 0x1040]) == [[0x1000, 0x1010, 0x1020], [0x1040]]
    # 8-byte entries (.plt.got): one moved to guest code (still a site) splits the run
    assert t._runs([0x2000, 0x2010]) == [[0x2000], [0x2010]]
    assert t._runs([0x2000, 0x2008, 0x2010]) == [[0x2000, 0x2008, 0x2010]]


@pytest.mark.parametrize("variant", ["pie", "nopie", "ibt", "zlazy"])
@pytest.mark.parametrize("extra", [[], ["-e", "*@libc.so.6"], ["--hook-returns"]])
def test_range_hooks_print_what_one_hook_per_entry_prints(tmp_path, monkeypatch, variant, extra):
    """Before the entry (ld.so, libc's initialisers: `-e *@libc.so.6` traces libc's own calls
    then) and after it, the trace is the one exact hooks on every entry give."""
    exe = built("strings", variant)
    texts, runs = [], []
    for one in (False, True):
        out = tmp_path / f"{one}.txt"
        with monkeypatch.context() as mp:
            runs.append(_run_in_process([*extra, "-o", str(out), exe], mp, one_hook_per_entry=one))
        texts.append(out.read_text())
    assert texts[0] == texts[1]
    ranged, exact = runs
    entries = sorted(e for run in exact.values() for e in run)
    assert sorted(e for run in ranged.values() for e in run) == entries and len(entries) > 4
    assert len(ranged) < len(entries)               # shared hooks until the entry
    if not extra:
        assert len(ranged) <= 2                     # (.plt or .plt.sec, .plt.got)
    if extra == ["-e", "*@libc.so.6"]:
        assert "__tunable_get_val(" in texts[0]    # (libc calls it before the program's entry)

