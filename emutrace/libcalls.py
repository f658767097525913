"""Catching library calls where they cross modules, and their returns.

Where calls are caught (exact addresses only; nothing runs per instruction elsewhere):
- PLT entries (.plt, .plt.sec for IBT, .plt.got): each entry's `jmp *slot(%rip)` names its GOT
  slot, the slot's relocation names the function, whatever the binding (lazy or now);
- GOT slots no PLT entry uses (`-fno-plt` code does `call *slot(%rip)`): once ld.so has filled
  them (at the program's entry), they are pointed at jump stubs on emutrace's service page;
- static programs: the entries of known C-library functions (the prototype database), and
  IRELATIVE PLT entries named by their IFUNC, counted only when called from the program's code.
Returns are caught at the return address with an exact-address hook and matched by stack
pointer, so nothing foreign is ever written where an unwinder looks (C++ exceptions, longjmp);
frames abandoned by longjmp or an exception are reported as unwound.
"""
from __future__ import annotations

import struct
from functools import partial
from typing import Dict, List, Optional
from weakref import WeakKeyDictionary, WeakValueDictionary

from unicorn import UC_HOOK_CODE

from emutrace.loader.elf import R_IRELATIVE
from emutrace.loader.modules import Module
from emutrace.loader.resolve import GotResolver

from emutrace.events import Call, Return
from emutrace.frames import CallStacks, Frame, Regs, Site, UNSET
from emutrace.guestlog import (FastSite, GuestLog, HEAD, HOOKED_ONLY, LOG_TOP, OUT_MAX, RET_SIZE, RETURNS_TWICE,
                               area_size, capture_plan, free_near, patch_jmps)
from emutrace.machine.pages import page_up
from emutrace.printflog import printf_site
from emutrace.traceview import mem_view
from emutrace.values import FastCallState
from emutrace.linux.elf import STT_FUNC, STT_GNU_IFUNC

STUB_SIZE = 16


def plt_slots(module: Module) -> Dict[int, int]:
    """PLT entry address → GOT slot address, from each entry's `jmp *disp(%rip)` (the ELF
    model's plt_jumps: scanned once per file, kept in the metadata cache)."""
    base = module.base
    return {entry + base: slot + base for entry, slot in module.elf.plt_jumps}


class _ProcSites:
    """What the library-call tracer keeps about one process."""
    __slots__ = ("hooked_modules", "pending_got", "plt_entries", "resolver")

    def __init__(self, parent: Optional["_ProcSites"] = None):
        self.hooked_modules: set = set(parent.hooked_modules) if parent else set()   # module paths
        # -fno-plt GOT slots (slot, site) to redirect once ld.so has filled them
        self.pending_got: list = list(parent.pending_got) if parent else []
        # module path → [(PLT entry, GOT slot, site)]
        self.plt_entries: Dict[str, list] = dict(parent.plt_entries) if parent else {}
        self.resolver = None            # (len(modules) it was built for, GotResolver)


class _EngineSites:
    """What the library-call tracer keeps about one engine (a vfork child shares its parent's):
    its hooks, and how far the move to stubs and guest code has gone."""
    __slots__ = ("armed", "entry_done", "entry_hooks", "hook_runs", "ranges", "entry_cb")

    def __init__(self, parent: Optional["_EngineSites"] = None):
        self.armed = parent.armed if parent else False              # _arm has run
        self.entry_done = parent.entry_done if parent else False    # _redirect_got has run
        self.entry_hooks: Dict[int, int] = {}                       # PLT entry → the hook catching it
        self.hook_runs: Dict[int, List[int]] = {}                   # hook → the PLT entries it catches
        self.ranges: list = list(parent.ranges) if parent else []   # (lo, hi) of hooked stub ranges
        self.entry_cb = None                                        # the entry callback of its hooks


class LibcallTracer:
    def __init__(self, world, hooks, emit, formatter, protos, call_filter, string_limit: int = 32,
                 ftrace=None, calls: Optional[CallStacks] = None):
        self.world = world                  # the run's World: its clock stamps each call
        # the session's registry: the guest log's phases, and the call intercepts (the API's hooks,
        # --inject-call, the report's call watch) as its chained role `call_intercept`
        self.hooks = hooks
        self.running = False                # the first program reached its entry (started)
        self.emit = emit
        self.fmt = formatter
        self.protos = protos
        self.filter = call_filter
        self.calls = calls if calls is not None else CallStacks()   # shared with --ftrace
        self.stacks: Dict[tuple, List[Frame]] = self.calls.stacks
        self.sites: Dict[int, Site] = {}          # hooked address → site
        self.stubs: Dict[int, Site] = {}
        self.counts: Dict[str, list] = {}
        # calls logged by guest code from the program's entry on (emutrace.guestlog); off with
        # --hook-returns and beside --ftrace (which needs every return hooked); the sites the
        # API's hooks name keep Python hooks
        self.log_in_guest = False
        # engine (by id) → its GuestLog, which the guest-log phases reach it by (machine/phases.py);
        # weak: an engine's hooks hold its log, which ends with it
        self.guest_logs: "WeakValueDictionary[int, GuestLog]" = WeakValueDictionary()
        hooks.on("guest_log_flush", self._log_flush)
        hooks.on("thread_switch", self._log_switch)
        hooks.on("guest_code_fault", self._log_fault)
        self.fast_sites: list = [None]            # tag → guestlog.FastSite (tag 0 is never used)
        self.fast_by_site: Dict[int, object] = {}  # id(Site) → its FastSite
        self.leaf_out = None                      # the sink taking leaf_lines, when its output is plain
        self.quiet = False                        # no notes to the user (the behaviour report's own tracer)
        self.dwarf = None                         # dwarf.calls.DebugTypes, for functions no prototype names
        # per process and per engine, kept here rather than on the kernel's and machine's objects;
        # weak, so an ended process and its engine are freed with it
        self._procs: "WeakKeyDictionary[object, _ProcSites]" = WeakKeyDictionary()
        self._engines: "WeakKeyDictionary[object, _EngineSites]" = WeakKeyDictionary()

    # -- the guest log's phases (fired only for engines with code of ours: Machine.own_code) ---
    def guest_log_of(self, m) -> Optional[GuestLog]:
        """The guest log of engine m, or None."""
        gl = self.guest_logs.get(id(m))
        return gl if gl is not None and gl.m is m else None

    def _log_flush(self, proc, syscall) -> None:
        gl = self.guest_logs.get(id(proc.machine))
        if gl is not None:
            gl.flush(proc, syscall=syscall)

    def _log_switch(self, m, old, new) -> None:
        gl = self.guest_logs.get(id(m))
        if gl is not None:
            gl.switch(old, new)

    def _log_fault(self, proc, rip: int) -> bool:
        gl = self.guest_logs.get(id(proc.machine))
        return gl is not None and gl.fault_fixup(proc, rip)

    def _proc(self, proc) -> _ProcSites:
        ps = self._procs.get(proc)
        if ps is None:
            ps = self._procs[proc] = _ProcSites()
        return ps

    def _engine(self, m) -> _EngineSites:
        es = self._engines.get(m)
        if es is None:
            es = self._engines[m] = _EngineSites()
        return es

    def entry_hooks(self, m) -> Dict[int, object]:
        """PLT entry → its exact hook, on this engine: the entries still caught by a hook."""
        return self._engine(m).entry_hooks

    # -- set-up, per process and module -------------------------------------------
    def attach(self, proc) -> None:
        self.calls.attach(proc)
        self._procs[proc] = _ProcSites()

    def started(self, proc) -> None:
        for m in list(proc.modules):
            self.module_loaded(proc, m)
        self._arm(proc)
        self.running = True

    def _arm(self, proc) -> None:
        """Once ld.so has bound the program (at its entry): redirect -fno-plt GOT slots and move
        the loggable call sites to guest code. Once per engine (the first program, each exec)."""
        m = proc.machine
        es = self._engine(m)
        if es.armed:
            return
        es.armed = True
        entry = proc.modules[0].elf.entry + proc.modules[0].base
        if m.reg("rip") != entry:      # ld.so runs first: its GOT work is done at entry
            m.hook_add(UC_HOOK_CODE, self._at_entry, proc, entry, entry)
        else:
            self._redirect_got(proc)

    def forked_untraced(self, parent, child) -> None:
        """A forked child that is not traced still runs the trampolines and return stubs in its
        copy of the parent's memory: without the guest log's hooks on its engine a full ring
        or a new return stub would loop there for ever, a string copy's fault would kill it and
        an unwinder would meet replaced return addresses. It gets them; its records are dropped
        (GuestLog.flush). The entries still hooked one by one run unhooked, as untraced code."""
        self._clone_guest_log(parent, child)

    def _clone_guest_log(self, parent, child) -> None:
        """The child's engine gets the guest log's hooks (GuestLog.clone_for) and the unwinders'."""
        gl = self.guest_log_of(parent.machine)
        if gl is not None:
            gl = gl.clone_for(child)
            for module in child.modules:
                gl.hook_unwinders(child, module)

    def forked(self, parent, child) -> None:
        """A forked child's engine is a copy: patched entries, trampolines and stubs are there
        already; it gets the hooks of the sites that stay hooked, and of the stubs."""
        pm, cm = parent.machine, child.machine
        self._procs[child] = _ProcSites(self._proc(parent))
        pe = self._engine(pm)
        ce = self._engines[cm] = _EngineSites(pe)
        self._clone_guest_log(parent, child)
        # the child's hooks are the parent's: entries still hooked (alone or in runs), and stub
        # ranges
        cb = self._entry_cb(child)
        for run in pe.hook_runs.values():
            handle = cm.hook_code(cb, run[0], run[-1])
            ce.hook_runs[handle] = list(run)
            for entry in run:
                ce.entry_hooks[entry] = handle
        for lo, hi in ce.ranges:
            cm.hook_code(cb, lo, hi)
        if ce.armed and not ce.entry_done:
            entry = child.modules[0].elf.entry + child.modules[0].base
            cm.hook_add(UC_HOOK_CODE, self._at_entry, child, entry, entry)

    def module_loaded(self, proc, module: Module) -> None:
        hooked = self._proc(proc).hooked_modules
        if module.path in hooked:
            return
        is_main = module is proc.modules[0]
        if not self.filter.traces_module(module.name, is_main):
            return
        hooked.add(module.path)
        gl = self.guest_log_of(proc.machine)
        if gl is not None:
            gl.hook_unwinders(proc, module)
        if is_main and module.elf.is_static and not module.elf.needed:
            self._hook_static(proc, module)
            return
        self._hook_plt(proc, module, is_main)
        if is_main and self.running:
            self._arm(proc)                 # an exec'd program

    def _site(self, proc, module: Module, name: str, is_main: bool) -> Site:
        site = Site(name, module, None, is_main=is_main)
        site.traced = self.filter.matches(name, module.name, is_main, None)
        site.proto = self.protos.get(name)
        return site

    def _definer(self, proc, name: str) -> str:
        """The module ld.so binds `name` to (scope order, versions), from emutrace's own resolver.

        Libraries mapped later (dlopen) are not in the scope yet: the resolver is rebuilt when the
        module list grows."""
        ps = self._proc(proc)
        resolver = ps.resolver
        if resolver is None or resolver[0] != len(proc.modules):
            resolver = ps.resolver = (len(proc.modules), GotResolver(proc.modules))
        dm, _ = resolver[1].lookup(name, None, for_plt=True)
        return dm.name if dm is not None and dm is not proc.modules[0] else ""

    @staticmethod
    def _slot_relocs(module: Module) -> Dict[int, str]:
        """GOT slot (absolute) → symbol name, for function relocations (the ELF model's
        call_slots: found once per file, without reading its relocations again: git's are
        thousands)."""
        base = module.base
        return {slot + base: name for slot, name in module.elf.call_slots}

    def _hook_plt(self, proc, module: Module, is_main: bool) -> None:
        slots = self._slot_relocs(module)
        entries = plt_slots(module)
        hooked_slots = set()
        ps = self._proc(proc)
        mine = ps.plt_entries[module.path] = []
        pltgot = module.elf.section(".plt.got")
        in_pltgot = (lambda a: pltgot.addr <= a - module.base < pltgot.addr + pltgot.size) if pltgot else (lambda a: False)
        for entry, slot in entries.items():
            name = slots.get(slot)
            if name is None:
                continue
            site = self._site(proc, module, name, is_main)
            if not site.traced:
                continue
            site.via = "plt.got" if in_pltgot(entry) else "plt"
            self.sites[entry] = site
            hooked_slots.add(slot)
            mine.append((entry, slot, site))
        self._hook_entries(proc, [entry for entry, _slot, _site in mine])
        # slots reached without a PLT entry (-fno-plt): redirected once ld.so has filled them
        plt_got = set(entries.values())
        for slot, name in slots.items():
            if slot not in hooked_slots and slot not in plt_got:
                site = self._site(proc, module, name, is_main)
                if site.traced:
                    ps.pending_got.append((slot, site))

    def _hook_entries(self, proc, entries: List[int]) -> None:
        """Catch calls at these PLT entries with code hooks. Unicorn tests every code hook for
        every instruction it translates, so before the program's entry, while ld.so and the
        libraries' initialisers are translated, a run of adjacent entries shares one range hook
        (with 250 exact hooks on git's entries, translating ld.so's code cost more than the
        rest of the set-up). A range hook also fires on an entry's later instructions (endbr64;
        bnd jmp), which are no site: once the program runs (at its entry, and for libraries
        loaded later) an entry gets a hook of its own, so a call costs one callback."""
        if not entries:
            return
        m = proc.machine
        es = self._engine(m)
        cb = self._entry_cb(proc)
        runs = self._runs(sorted(entries)) if not es.entry_done else [[e] for e in entries]
        for run in runs:
            handle = m.hook_code(cb, run[0], run[-1])
            es.hook_runs[handle] = run
            for entry in run:
                es.entry_hooks[entry] = handle

    def _runs(self, entries: List[int]) -> List[List[int]]:
        """Sorted PLT entries cut into runs a range hook may cover: consecutive entries at most
        16 bytes apart (an entry's size) with no other hooked address between them (an entry
        moved to guest code or a stub must not be caught again)."""
        sites = self.sites
        runs: List[List[int]] = []
        for entry in entries:
            if runs:
                prev = runs[-1][-1]
                if entry - prev <= 16 and not any(a in sites for a in range(prev + 1, entry)):
                    runs[-1].append(entry)
                    continue
            runs.append([entry])
        return runs

    def _unhook_entries(self, proc, entries) -> None:
        """Stop catching calls at these PLT entries with hooks (they jump to guest code or to
        stubs now). Entries that shared a range hook with them and stay keep being caught, each
        by a hook of its own."""
        m = proc.machine
        es = self._engine(m)
        handles = {es.entry_hooks.pop(entry) for entry in entries}
        for handle in handles:
            m.hook_del(handle)
            rest = [entry for entry in es.hook_runs.pop(handle) if entry in es.entry_hooks]
            for entry in rest:
                del es.entry_hooks[entry]
            self._hook_entries(proc, rest)

    def _exact_entry_hooks(self, proc) -> None:
        """Once the program runs: entries still caught by a range hook (their stubs found no
        room) get hooks of their own, so that their calls cost one callback, not one per
        instruction of the entry."""
        es = self._engine(proc.machine)
        shared = [run for run in es.hook_runs.values() if len(run) > 1]
        if shared:
            self._unhook_entries(proc, [entry for run in shared for entry in run])
            self._hook_entries(proc, [entry for run in shared for entry in run])

    def _at_entry(self, uc, addr, size, proc):
        if self._redirect_got(proc):
            # The entry hooks of the moved sites are deleted, but Unicorn drops a deleted hook
            # only when emu_start returns, and until then tests it for every instruction it
            # translates (hundreds of them made python3's start-up 2x slower): end this run
            # here, before the program's first instruction; it goes on in the next one.
            proc.stop_requested = True
            uc.emu_stop()

    def _redirect_got(self, proc) -> bool:
        """Move the sites to guest code and stubs, once per engine; False when done before."""
        m = proc.machine
        es = self._engine(m)
        if es.entry_done:
            return False
        es.entry_done = True
        ps = self._proc(proc)
        pending, ps.pending_got = ps.pending_got, []
        if self.log_in_guest:
            pending = self._to_guest_log(proc, pending)
        self._stub_hooked_entries(proc)
        self._exact_entry_hooks(proc)
        if not pending:
            return True
        size = page_up(len(pending) * STUB_SIZE)
        base = proc.aspace.find_free(size, top=LOG_TOP)
        proc.aspace.map(base, size, 5, "[emutrace]")      # r-x: one jump stub per redirected slot
        m.counter.skip(base, base + size)                 # (ours: not the guest's work, docs/time.md)
        code = bytearray()
        start = base
        for i, (slot, site) in enumerate(pending):
            target = struct.unpack("<Q", m.read(slot, 8))[0]
            stub = base + i * STUB_SIZE
            # jmp *[rip+2]; ud2; .quad target
            code += b"\xff\x25\x02\x00\x00\x00\x0f\x0b" + struct.pack("<Q", target)
            m.write(slot, struct.pack("<Q", stub))
            site.via = "got"
            self.sites[stub] = site
        m.write(start, bytes(code))
        m.uc.ctl_remove_cache(start, start + len(code))
        self._hook_range(proc, start, start + len(code) - 1)
        return True

    def _hook_range(self, proc, lo: int, hi: int) -> None:
        m = proc.machine
        m.hook_code(self._entry_cb(proc), lo, hi)
        self._engine(m).ranges.append((lo, hi))

    def _stub_hooked_entries(self, proc) -> None:
        """PLT entries that keep a Python hook jump to one stub each (`jmp *slot(%rip)`), in one
        hooked range per module. Unicorn checks every code hook for every instruction it
        translates, so hundreds of exact-address hooks slow the translation of all code (python3
        starts ~40% slower with 600 of them); a range per module costs what one hook costs."""
        m = proc.machine
        hooks = self._engine(m).entry_hooks
        plt_entries = self._proc(proc).plt_entries
        for module in proc.modules:
            entries = [(entry, slot) for entry, slot, _site in plt_entries.get(module.path, ())
                       if entry in hooks]
            if not entries:
                continue
            size = page_up(8 * len(entries))
            base = free_near(proc.aspace, size, module.base + module.elf.span()[0],
                             [a for pair in entries for a in pair])
            if base is None:
                continue
            proc.aspace.map(base, size, 5, "[emutrace]")
            proc.machine.counter.skip(base, base + size)      # (ours: not the guest's work)
            code = bytearray()
            for k, (entry, slot) in enumerate(entries):
                stub = base + 8 * k
                code += b"\xff\x25" + struct.pack("<i", slot - (stub + 6)) + b"\x0f\x0b"   # jmp *slot(%rip); ud2
                self.sites[stub] = self.sites[entry]
            m.write(base, bytes(code))
            self._hook_range(proc, base, base + len(code) - 1)
            self._unhook_entries(proc, [entry for entry, _slot in entries])
            patch_jmps(m, [(entry, base + 8 * k) for k, (entry, _slot) in enumerate(entries)])

    # -- guest-code logging (emutrace.guestlog) ------------------------------------------
    def _to_guest_log(self, proc, pending: list) -> list:
        """Move every loggable PLT site and pending GOT slot to guest code; returns the GOT slots
        left for hooked stubs."""
        fmt = self.fmt
        limit = fmt.string_limit
        if not fmt.compiled or limit + 1 > 4096:
            return pending
        m = proc.machine
        gl = self.guest_log_of(m)
        if gl is None:
            area = area_size(limit + 2)             # (a C string's copy: GuestLog.ret_cap)
            wide = area_size(4 * (limit + 1))       # (a returned wide string: GuestLog.wret_cap)
            gl = GuestLog(self, proc, max(HEAD + 6 * area, RET_SIZE + max(area, wide) + OUT_MAX + 8) + 64, limit + 2)
        for module in proc.modules:
            gl.hook_unwinders(proc, module)

        def fast(site, where):
            if site.static or site.name in HOOKED_ONLY:
                return None
            intercept = self.hooks.call_intercept
            if intercept is not None and intercept.wants(proc, site):
                return None                     # the API's hooks run in Python
            if site.definer is None:
                site.definer = self._definer(proc, site.name)
                site.traced = self.filter.matches(site.name, site.caller.name, site.is_main, site.definer)
            if not site.traced:
                return None
            if site.proto is None and self._dwarf_may_type(proc, site.name):
                return None                     # typed from its library's DWARF at its first call
            plan = site.plan
            if plan is UNSET:
                plan = site.plan = self._plan(site)
            caps = capture_plan(plan, gl.wret_cap)
            if caps is not None:
                fs = FastSite(len(self.fast_sites), site, plan, caps, where)
                if site.name in RETURNS_TWICE and (fs.ret_kind or fs.out is not None):
                    return None                 # (a return stub copies nothing at the return)
            else:
                # a printf-family prototype: rendered by C hooks (None: the hooked path keeps it)
                fs = printf_site(self, proc, len(self.fast_sites), site, where, limit)
                if fs is None:
                    return None
            self.fast_sites.append(fs)
            self.fast_by_site[id(site)] = fs
            return fs

        hooks = self._engine(m).entry_hooks
        by_module: Dict[str, list] = {}
        for path, entries in self._proc(proc).plt_entries.items():
            for entry, slot, site in entries:
                if entry in gl.patched or entry not in hooks:
                    continue
                fs = fast(site, entry)
                if fs is not None:
                    by_module.setdefault(path, []).append((fs, slot, entry))
        left = []
        for slot, site in pending:
            fs = fast(site, slot)
            if fs is None:
                left.append((slot, site))
            else:
                site.via = "got"
                by_module.setdefault(site.caller.path, []).append((fs, slot, None))
        for module in proc.modules:
            group = by_module.pop(module.path, None)
            if not group:
                continue
            if gl.build(proc, module.base + module.elf.span()[0], group):
                # (build dropped the entries' translations)
                self._unhook_entries(proc, [entry for fs, slot, entry in group if entry is not None])
            else:
                left += [(slot, fs.site) for fs, slot, entry in group if entry is None]
        return left

    def _hook_static(self, proc, module: Module) -> None:
        """Static programs: hook known C-library functions and IRELATIVE PLT entries."""
        elf = module.elf
        ifunc_by_resolver = {s.value: s.name for s in elf.symtab if s.type == STT_GNU_IFUNC and s.defined}
        # IRELATIVE slots: static-pie keeps them in .rela.dyn, static in .rela.iplt
        irel = {r.offset: r.addend for r in elf.relocs + elf.plt_relocs if r.type == R_IRELATIVE}
        for sec in [elf.section(".rela.iplt"), elf.section(".rela.plt")]:
            if sec is None or elf.dynamic:
                continue
            for off in range(sec.offset, sec.offset + sec.size - 23, 24):
                r_off, info, addend = struct.unpack_from("<QQq", elf.data, off)
                if info & 0xFFFFFFFF == R_IRELATIVE:
                    irel[r_off] = addend
        names: Dict[int, str] = {}
        for entry, slot in plt_slots(module).items():
            addend = irel.get(slot - module.base)
            if addend is not None and addend in ifunc_by_resolver:
                names[entry] = ifunc_by_resolver[addend]
        for s in elf.symtab:
            if s.defined and s.type == STT_FUNC and s.value and self.protos.get(s.name) is not None:
                names.setdefault(s.value + module.base, s.name)
        if not names and not self.quiet:
            # nothing to hook: say why rather than print an empty trace
            functions = sum(1 for s in elf.symtab if s.defined and s.type == STT_FUNC)
            if elf.section(".go.buildinfo") is not None or elf.section(".note.go.buildid") is not None:
                why = ("is a statically linked Go program: it calls no C library, so there are no "
                       "library calls to show")
            elif functions:
                why = f"is statically linked and none of its {functions:,} functions is a C-library one emutrace knows"
            else:
                why = "is statically linked and has no symbols: its C-library calls cannot be named"
            proc.kernel.notify(f"{module.path} {why} (--ftrace: its functions; -S or --strace: its "
                               "system calls)")
        self.internal = _InternalCode(module, self.protos)
        for addr, name in names.items():
            site = Site(name, module, "libc", static=True, via="static")
            site.traced = self.filter.matches(name, module.name, True, "libc")
            site.proto = self.protos.get(name)
            if site.traced:
                self.sites[addr] = site
                proc.machine.hook_code(self._entry_cb(proc), addr, addr)

    # -- the hot path ---------------------------------------------------------------
    def _entry_cb(self, proc):
        """The entry callback for a process's machine (one closure, shared by all its hooks)."""
        es = self._engine(proc.machine)
        if es.entry_cb is None:
            # called straight from the hook (no wrapper frame): the process is found there
            es.entry_cb = partial(self._entry_at, proc.kernel, proc)
        return es.entry_cb

    def _entry_at(self, kernel, first, addr):
        site = self.sites.get(addr)
        if site is None:
            return
        # the process running on this engine now (a vfork child shares its parent's)
        proc = kernel.current or first
        if not proc.traced:                             # a child run without -f
            return
        m = proc.machine
        if m.own_code:
            self._log_flush(proc, None)                 # calls logged by guest code come first
        if site.definer is None:
            site.definer = self._definer(proc, site.name) if not site.static else "libc"
            site.traced = self.filter.matches(site.name, site.caller.name, site.is_main, site.definer)
        if not site.traced:
            return
        uc = m.uc
        rv = m.call_words()                             # rdi, rsi, rdx, rcx, r8, r9, rsp
        rsp = rv[6]
        ret_addr = m.read_u64(rsp)
        calls = self.calls
        key = (proc.pid, proc.thread.tid)
        stack = calls.stacks.get(key)
        if stack is None:
            stack = calls.stacks[key] = []
        if site.static:
            if self.internal.is_internal(ret_addr):
                return
            if stack and stack[-1].rsp == rsp:     # a traced function tail-calling another
                return
        gl = self.guest_log_of(m)
        logged_frame = gl is not None and gl.is_return_entry(ret_addr)   # tail-called by a logged call
        if stack:
            top = stack[-1]
            if top.rsp < rsp or (top.rsp == rsp and top.ret_addr != ret_addr and not logged_frame):
                calls.unwind_to(proc, stack, rsp, ret_addr)
        mem = self.mem_view(proc)
        plan = site.plan
        if plan is UNSET:
            if site.proto is None and self.dwarf is not None:
                site.proto = self._dwarf_proto(proc, site.name)
            plan = site.plan = self._plan(site)
        if plan is not None and plan.nwords <= 6:
            st = self.fmt.enter_words(site.name, site.display, plan, rv, mem)
            left = st._left_args[:]             # the event's own list, as below
        else:
            st = self.fmt.enter(site.name, site.proto, Regs(m, proc.aspace, rv), mem)
            left = list(st.left_args)
        fid = calls.next_id
        calls.next_id = fid + 1
        now = self.world.elapsed_at(addr)       # (the hook runs at addr: exact there)
        frame = Frame(fid, site, rsp, ret_addr, st, len(stack), now, owner=self, entry=addr)
        stack.append(frame)
        self.emit(Call(fid, proc.pid, key[1], now, frame.depth, st.display_name,
                       site.definer, site.caller.name, ret_addr, st.text, left, via=site.via))
        intercept = self.hooks.call_intercept
        if intercept is not None and intercept.enter(proc, frame, Regs(m, proc.aspace, rv)):
            # skipped: return to the caller as the function's `ret` would, with the hook's rax
            m.set_reg("rsp", rsp + 8)
            m.set_reg("rip", ret_addr)
            stack.pop()
            self._returned(proc, frame, Regs(m, proc.aspace))
            return
        if logged_frame:
            return                  # closed by the return record of the call it replaced
        calls.hook_return(proc, uc, ret_addr)           # (once per return address and engine)

    def _definition(self, proc, name: str):
        """(module, symbol) where ld.so binds `name`, or (None, None)."""
        resolver = self._proc(proc).resolver
        dm, sym = resolver[1].lookup(name, None, for_plt=True) if resolver is not None else (None, None)
        if dm is None or sym is None or not getattr(sym, "value", 0):
            return None, None
        return dm, sym

    def _dwarf_may_type(self, proc, name: str) -> bool:
        """Could the defining library's debug information type `name` (the prototype database
        does not)? Asked without reading DWARF; the call is then kept on the hooked path, whose
        first call reads it (_dwarf_proto), so a run that never calls it reads none."""
        if self.dwarf is None:
            return False
        dm, _sym = self._definition(proc, name)
        return dm is not None and self.dwarf.has_debug(dm)

    def _dwarf_proto(self, proc, name: str):
        """The prototype the defining library's DWARF gives `name` (its own sections, else its
        debug file under the root: libc6-dbg), or None."""
        dm, sym = self._definition(proc, name)
        if dm is None:
            return None
        from emutrace.dwarf.protos import prototype     # deferred: only a call no prototype names reads debug information
        sig = self.dwarf.signature(dm, sym.value + dm.base, name)
        return prototype(sig) if sig is not None else None

    def _plan(self, site: Site):
        """The site's compiled prototype, or None for the formatter's generic path."""
        fmt = self.fmt
        site.display = fmt.display_name(site.name)
        if not fmt.compiled:
            return None
        return fmt.plan(site.proto)

    def returned(self, proc, frame: Frame) -> None:
        """The frame's function returned (called by CallStacks at its return address)."""
        st = frame.state
        intercept = self.hooks.call_intercept
        if type(st) is FastCallState and (intercept is None or frame.api_call is None):
            calls = self.calls
            if calls.ret_frame is frame:
                rax, mem, rdx = calls.ret_rax, calls.ret_mem or self.mem_view(proc), calls.ret_rdx
            else:
                rax, mem, rdx = proc.machine.reg("rax"), self.mem_view(proc), None
            if st.plan.ret_pair:            # (a structure returned in rax and rdx)
                rax |= (proc.machine.reg("rdx") if rdx is None else rdx) << 64
            self.fmt.exit_word(st, rax, mem)
            now = calls.returned_at(self.world, frame)
            self.emit(Return(frame.id, proc.pid, proc.thread.tid, now, frame.depth, st.display_name, st.right,
                             st.args, st.ret, now - frame.time_ns))
            return
        regs = Regs(proc.machine, proc.aspace)
        if intercept is not None:
            intercept.leave(proc, frame, regs)
        self._returned(proc, frame, regs)

    def _returned(self, proc, frame: Frame, regs: Regs) -> None:
        self.fmt.exit(frame.state, regs, self.mem_view(proc))
        st = frame.state
        now = self.calls.returned_at(self.world, frame)
        self.emit(Return(frame.id, proc.pid, proc.thread.tid, now, frame.depth, st.display_name, st.right,
                         list(st.args), st.ret, now - frame.time_ns))

    def unwound(self, proc, frame: Frame) -> None:
        self._unwound(proc, frame)

    def _unwound(self, proc, frame: Frame) -> None:
        now = self.world.elapsed_ns
        st = frame.state
        self.emit(Return(frame.id, proc.pid, proc.thread.tid, now, frame.depth, st.display_name, "",
                         list(st.left_args), "", now - frame.time_ns, unwound=True))

    def finish(self, proc) -> None:
        """At exit: calls that never returned (exit, abort) stay unfinished, as ltrace shows them."""
        self.calls.finish(proc)

    mem_view = staticmethod(mem_view)       # (for the guest call log, which reads through its tracer)


class _InternalCode:
    """For static programs: is a return address outside the program's own code?

    The linker lays out .text in link order: start files, the program's objects, then the C
    library's archive members. The program's code is therefore the run of functions around
    `main` (in address order) that contains no C-library function — none in the prototype
    database, none with a reserved name (leading underscore)."""

    def __init__(self, module: Module, protos):
        funcs = sorted({(s.value, s.size, s.name) for s in module.elf.symtab
                        if s.defined and s.type in (STT_FUNC, STT_GNU_IFUNC) and s.value})
        libc = lambda name: name.startswith("_") or protos.get(name) is not None
        main = next((i for i, f in enumerate(funcs) if f[2] == "main"), None)
        self.lo = self.hi = 0
        if main is not None:
            lo = hi = main
            while lo > 0 and not libc(funcs[lo - 1][2]):
                lo -= 1
            while hi + 1 < len(funcs) and not libc(funcs[hi + 1][2]):
                hi += 1
            self.lo = funcs[lo][0] + module.base
            last = funcs[hi]
            self.hi = max(last[0] + last[1], funcs[hi + 1][0] if hi + 1 < len(funcs) else 0) + module.base
            if hi + 1 < len(funcs):
                self.hi = funcs[hi + 1][0] + module.base

    def is_internal(self, addr: int) -> bool:
        return not self.lo <= addr < self.hi
