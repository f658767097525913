"""What tracing sets up before the program's first call, made cheaper without changing a byte of
the trace: PLT entries caught by range hooks until the program's entry (emutrace.libcalls)."""
from __future__ import annotations

import pytest

from conftest import built
from emutrace.guestlog import FIXED
from emutrace.libcalls import LibcallTracer
from emutrace.machine.native import native


def _run_in_process(args, monkeypatch=None, one_hook_per_entry=False):
    """Trace in this process; returns (trace text, the hook runs of the first engine when the
    program reached its entry: {hook: [entries]})."""
    from emutrace.options import parse
    from emutrace.session import Run
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
    session = Run(cfg.argv, world=cfg.world, options=cfg.options, program=cfg.program)
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


# -- trampolines: assembled once per shape, then copied with the site's numbers written in ------

def _placed_both_ways(monkeypatch, args):
    """Trace `args` in this process; every trampoline GuestLog.build places (by its shape's
    code with the site's numbers written in) is assembled the slow way too, at its address for
    its site. Returns [(shape, cached (code, C hook address, loads, restarts), slow (...))]."""
    from emutrace.guestlog import GuestLog, shape_of
    seen = []
    placed = GuestLog._placed

    def both(self, fs, at, through, loads, restarts):
        cached_loads, cached_restarts = {}, {}
        code, point = placed(self, fs, at, through, cached_loads, cached_restarts)
        loads.update(cached_loads)
        restarts.update(cached_restarts)
        slow_loads, slow_restarts, fields = {}, {}, {}
        slow = self._trampoline(shape_of(fs), at, fs.tag, through, slow_loads, slow_restarts, fields)
        slow_point = at + fields["np"] if "np" in fields else None
        seen.append((shape_of(fs), (code, point, cached_loads, cached_restarts),
                     (slow, slow_point, slow_loads, slow_restarts)))
        return code, point
    monkeypatch.setattr(GuestLog, "_placed", both)
    _run_in_process(args, monkeypatch)
    return seen


_TRAMPOLINE_PROGRAMS = [("calllog", "pie"), ("calllog", "fnoplt"), ("strings", "nopie"), ("strings", "fnoplt"),
                        ("files", "ibt"), ("printfs", "pie"), ("twicejmp", "pie"), ("twicejmp", "fnoplt"),
                        ("retcap", "pie"), ("protos", "zlazy"), ("freshcalls", "pie"), ("strn", "pie"),
                        ("cxx", "pie")]


@pytest.mark.parametrize("prog,variant", _TRAMPOLINE_PROGRAMS)
def test_trampolines_by_shape_are_the_ones_assembled_site_by_site(tmp_path, monkeypatch, prog, variant):
    exe = built(prog, variant)
    args = [exe, str(tmp_path)] if prog == "files" else [exe]
    seen = _placed_both_ways(monkeypatch, ["-o", str(tmp_path / "t.txt"), *args])
    assert seen
    assert all(cached[3] for _, cached, _ in seen)      # (every trampoline has a store that may fault)
    for shape, cached, slow in seen:
        assert cached == slow, shape


def test_trampoline_shapes_cover_what_the_guest_log_makes(tmp_path, monkeypatch):
    """Across the bins/ programs above, real programs' every kind of trampoline: string copies
    (C strings, buffers, fixed), returns twice, a C hook, returned strings, output arguments."""
    shapes = set()
    for prog, variant in _TRAMPOLINE_PROGRAMS:
        exe = built(prog, variant)
        args = [exe, str(tmp_path)] if prog == "files" else [exe]
        with monkeypatch.context() as mp:
            shapes |= {s for s, _, _ in _placed_both_ways(mp, ["-o", str(tmp_path / "t.txt"), *args])}
    assert any(s.twice for s in shapes)
    # (printf's C hooks are the compiled path's: with EMUTRACE_PURE=1 those calls are hooked)
    assert any(s.native_point for s in shapes) == (native is not None)
    assert any(s.out is not None for s in shapes) and any(s.in_string is not None for s in shapes)
    lengths = {j for s in shapes for _, _, _, j in s.strings}     # (a C string, fixed bytes, a buffer)
    assert None in lengths and FIXED in lengths and any(j is not None and j >= 0 for j in lengths)
    assert {s.ret_kind for s in shapes} >= {0, 1, 2, 8}


@pytest.mark.slow
@pytest.mark.parametrize("cmd", [["/usr/bin/git", "--version"], ["/usr/bin/python3", "-c", "import json; print(json.dumps([1]))"]])
def test_real_programs_trampolines_by_shape(tmp_path, monkeypatch, cmd):
    import os
    if not os.path.exists(cmd[0]):
        pytest.skip("program not installed")
    seen = _placed_both_ways(monkeypatch, ["-o", str(tmp_path / "t.txt"), *cmd])
    assert len(seen) > 100
    for shape, cached, slow in seen:
        assert cached == slow, shape
    assert len({shape for shape, _, _ in seen}) < len(seen) // 4     # (what makes them cheap)


# -- what the call tracer hooks, found once per ELF file (emutrace.loader.elf: plt_jumps, call_slots) ----

def _plt_slots_by_scan(elf):
    """The scan libcalls.plt_slots made on every run before (the reference)."""
    import struct
    from emutrace.loader.elf import plt_sections
    out = {}
    for sec, data in plt_sections(elf):        # (the sections themselves: the same then and now)
        i = 0
        while i < len(data) - 5:
            if data[i] == 0xFF and data[i + 1] == 0x25:
                disp = struct.unpack_from("<i", data, i + 2)[0]
                start = i - 1 if i >= 1 and data[i - 1] == 0xF2 else i
                if start >= 4 and data[start - 4:start] == b"\xf3\x0f\x1e\xfa":
                    start -= 4
                out[sec.addr + start] = sec.addr + i + 6 + disp
                i += 6
            else:
                i += 1
    return out


def _slot_relocs_by_walk(elf):
    """The walk over every relocation LibcallTracer._slot_relocs made on every run before."""
    from emutrace.loader.elf import R_GLOB_DAT, R_JUMP_SLOT
    from emutrace.linux.elf import SHN_UNDEF, STT_FUNC, STT_GNU_IFUNC
    out = {}
    syms = elf.dynsyms
    for r in elf.plt_relocs + elf.relocs:
        if r.type in (R_JUMP_SLOT, R_GLOB_DAT) and 0 < r.sym < len(syms):
            s = syms[r.sym]
            if r.type == R_JUMP_SLOT or s.type in (STT_FUNC, STT_GNU_IFUNC) or \
                    (s.shndx == SHN_UNDEF and s.type == STT_FUNC):
                out[r.offset] = s.name
    return out


def _elf_files():
    import glob
    import os
    files = [built("strings", v) for v in ("pie", "nopie", "znow", "zlazy", "ibt", "fnoplt", "static", "static-pie")]
    files += [built("cxx", "pie")]
    files += [f for f in ("/usr/bin/git", "/usr/bin/python3", "/bin/ls", "/bin/bash") if os.path.exists(f)]
    files += sorted(glob.glob("/lib/x86_64-linux-gnu/libc.so.6") + glob.glob("/lib64/ld-linux-x86-64.so.2")
                    + glob.glob("/lib/x86_64-linux-gnu/libstdc++.so.6"))
    return files


def test_plt_tables_found_once_are_what_each_run_found(tmp_path, monkeypatch):
    """plt_jumps and call_slots, parsed with the model and read back from the metadata cache,
    are the scan and the relocation walk libcalls made on every run before."""
    import os
    from emutrace.loader import elf as elfmod
    monkeypatch.setenv("EMUTRACE_CACHE", str(tmp_path / "cache"))
    n_jumps = n_slots = 0
    for path in _elf_files():
        data = open(path, "rb").read()
        parsed = elfmod.parse_elf(path, data)
        elfmod._MEMO.clear()
        elfmod.read_elf(path, data)                  # (parses and writes the cache entry)
        elfmod._MEMO.clear()
        cached = elfmod.read_elf(path, data)         # (read back from the cache)
        for model in (parsed, cached):
            assert dict(model.plt_jumps) == _plt_slots_by_scan(model), path
            assert list(dict(model.plt_jumps)) == list(_plt_slots_by_scan(model)), path   # (order too)
            assert list(dict(model.call_slots).items()) == list(_slot_relocs_by_walk(model).items()), path
        n_jumps += len(parsed.plt_jumps)
        n_slots += len(parsed.call_slots)
    assert n_jumps > 300 and n_slots > 300
    assert os.listdir(tmp_path / "cache")
