"""The builtin linker: ld.so's job, done by emutrace, for programs whose libraries are not a
C library with its own dynamic linker (and therefore need no sysroot at all).

It maps the DT_NEEDED closure, resolves symbols in global scope order (with symbol versions),
applies relocations (one small function per relocation type, in RELOCATIONS), lays out static
TLS (x86-64 variant II: blocks below the thread pointer), runs IFUNC resolvers and the
libraries' initialisers inside the emulator, and returns the program's entry point.
"""
from __future__ import annotations

import struct
from typing import Callable, Dict, List, Optional, Tuple

from unicorn import UcError

from emutrace.kernel import errno as E
from emutrace.kernel.binfmt import ExecError
from emutrace.kernel.vfs import VfsError
from emutrace.machine.pages import page_up

from emutrace.loader.callguest import call_guest
from emutrace.loader.elf import (DT_INIT, DT_INIT_ARRAY, DT_INIT_ARRAYSZ, DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ, ET_DYN,
                                 R_32, R_32S, R_64, R_COPY, R_DTPMOD64, R_DTPOFF64, R_GLOB_DAT, R_IRELATIVE,
                                 R_JUMP_SLOT, R_NONE, R_PC32, R_RELATIVE, R_TPOFF64, ElfFile, Reloc, Symbol, read_elf)
from emutrace.loader.image import choose_bias, map_elf
from emutrace.loader.modules import Module
from emutrace.linux.elf import SHN_UNDEF, STB_LOCAL, STB_WEAK, STT_GNU_IFUNC

DEFAULT_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib")
LIBC_NAMES = ("libc.so", "ld-linux", "libc.musl", "ld-musl", "ld64.so")
MAX_MODULES = 256


class LinkError(Exception):
    def __init__(self, message: str, errno: int = E.ELIBBAD):
        super().__init__(message)
        self.errno = errno


# ---------------------------------------------------------------- finding libraries

def _expand(path: str, origin: str) -> str:
    return path.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)


def search_paths(mod_path: str, elf: ElfFile) -> List[str]:
    origin = mod_path.rsplit("/", 1)[0] or "/"
    dirs = []
    if not elf.runpath:
        dirs += [_expand(p, origin) for p in elf.rpath]
    dirs += [_expand(p, origin) for p in elf.runpath]
    return dirs + list(DEFAULT_DIRS)


def find_library(vfs, name: str, requester_path: str,
                 requester: ElfFile) -> Optional[Tuple[str, bytes, Optional[tuple]]]:
    """(canonical path, contents, host version or None) of the library `name` as ld.so finds it."""
    candidates = [name] if "/" in name else [d.rstrip("/") + "/" + name for d in search_paths(requester_path, requester)]
    for c in candidates:
        try:
            canon, node = vfs.resolve(c, "/")
        except VfsError:
            continue
        if node.host is None and node.ov is None:
            continue
        if node.ov is not None:
            return canon, bytes(node.ov.data), None
        try:
            data, version = vfs.read_host_versioned(node)
        except OSError:
            continue
        vfs.reads[node.host] = None
        return canon, data, version
    return None


def closure(vfs, path: str, elf: ElfFile) -> Optional[List[Tuple[str, ElfFile]]]:
    """The DT_NEEDED closure in breadth-first (global scope) order, or None if a library is missing."""
    out = [(path, elf)]
    seen = {path.rsplit("/", 1)[-1]}
    i = 0
    while i < len(out):
        p, e = out[i]
        for name in e.needed:
            if name in seen:
                continue
            seen.add(name)
            found = find_library(vfs, name, p, e)
            if found is None:
                return None
            try:
                lib = read_elf(*found)
            except Exception:
                return None
            if lib.soname:
                seen.add(lib.soname)
            out.append((found[0], lib))
            if len(out) > MAX_MODULES:
                return None
        i += 1
    return out


def applies(vfs, elf: ElfFile, path: str) -> bool:
    """The builtin linker runs a dynamic program when no library in its closure is a C library with
    its own rtld (glibc, musl): then ld.so is not needed, and need not exist in the root."""
    if not elf.interp or not elf.dynamic:
        return False
    mods = closure(vfs, path, elf)
    if mods is None:
        return False
    return not any(any(n in (e.soname or p.rsplit("/", 1)[-1]) for n in LIBC_NAMES) for p, e in mods[1:])


# ---------------------------------------------------------------- symbol scope

class Scope:
    """Symbol lookup in global scope order, as ld.so does it: the first module that defines the
    name (with the requested version, or the default one) wins, weak or not. The program's
    undefined function symbols with a value (canonical PLT addresses of non-PIE programs) satisfy
    non-PLT references, so every module sees one address per function."""

    def __init__(self, modules: List[Module]):
        self.modules = modules
        self.tables: List[Dict[str, List[Symbol]]] = []
        for i, m in enumerate(modules):
            t: Dict[str, List[Symbol]] = {}
            canonical = i == 0 and m.elf.type != ET_DYN
            for s in m.elf.dynsyms:             # (libc's 3,000 symbols: kept to plain tuple reads)
                if s.bind == STB_LOCAL or not s.name:
                    continue
                if s.shndx != SHN_UNDEF or (canonical and s.value):
                    t.setdefault(s.name, []).append(s)
            self.tables.append(t)

    def lookup(self, name: str, version: Optional[str], skip: Optional[Module] = None,
               for_plt: bool = False) -> Optional[Tuple[Module, Symbol]]:
        for m, t in zip(self.modules, self.tables):
            if m is skip:
                continue
            cands = t.get(name)
            if not cands:
                continue
            if for_plt:
                cands = [s for s in cands if s.defined]
            pick = None
            for s in cands:
                if version and s.version == version:
                    pick = s
                    break
                if not version and not s.hidden_version:
                    pick = pick or s
            if pick is None and cands and not version:
                pick = cands[0]
            if pick is None and version:
                pick = next((s for s in cands if s.version is None), None)
            if pick is not None:
                return m, pick
        return None


# ---------------------------------------------------------------- relocations

class Linker:
    def __init__(self, proc, modules: List[Module]):
        self.proc = proc
        self.machine = proc.machine
        self.modules = modules
        self.scope = Scope(modules)
        self.tls_offsets: Dict[int, int] = {}       # module index → offset from the thread pointer
        self.tls_size = 0
        self.bindings: List[Tuple[Module, int, str, Optional[Module]]] = []   # (module, slot address, symbol, definer)

    # -- helpers --
    def sym_value(self, mod: Module, r: Reloc) -> Tuple[int, Optional[Module], Optional[Symbol]]:
        sym = mod.elf.dynsyms[r.sym] if r.sym < len(mod.elf.dynsyms) else None
        if sym is None or r.sym == 0:
            return 0, None, None
        if sym.bind == STB_LOCAL:
            return sym.value + mod.base, mod, sym
        found = self.scope.lookup(sym.name, sym.version, for_plt=r.type == R_JUMP_SLOT)
        if found is None:
            if sym.bind == STB_WEAK:
                return 0, None, sym
            raise LinkError(f"{mod.path}: undefined symbol: {sym.name}" + (f", version {sym.version}" if sym.version else ""))
        dm, ds = found
        value = ds.value + dm.base
        if ds.type == STT_GNU_IFUNC:
            value = self.call(value, [])
        return value, dm, ds

    def write64(self, addr: int, value: int) -> None:
        self.machine.write(addr, struct.pack("<Q", value & 0xFFFFFFFFFFFFFFFF))

    def write32(self, addr: int, value: int) -> None:
        self.machine.write(addr, struct.pack("<I", value & 0xFFFFFFFF))

    def call(self, fn: int, args: List[int]) -> int:
        """Run a guest function to completion (IFUNC resolvers, initialisers) and return rax."""
        try:
            return call_guest(self.proc, fn, args)
        except UcError as e:
            raise LinkError(f"the library code at {fn:#x} faulted while being linked ({e})") from None

    # -- relocation kinds, one function each --
    def r_none(self, m, r):
        pass

    def r_relative(self, m, r):
        self.write64(m.base + r.offset, m.base + r.addend)

    def r_64(self, m, r):
        v, _, _ = self.sym_value(m, r)
        self.write64(m.base + r.offset, v + r.addend)

    def r_32(self, m, r):
        v, _, _ = self.sym_value(m, r)
        self.write32(m.base + r.offset, v + r.addend)

    def r_pc32(self, m, r):
        v, _, _ = self.sym_value(m, r)
        self.write32(m.base + r.offset, v + r.addend - (m.base + r.offset))

    def r_glob_dat(self, m, r):
        v, dm, ds = self.sym_value(m, r)
        self.write64(m.base + r.offset, v + r.addend if r.type == R_GLOB_DAT and r.addend else v)
        if ds is not None:
            self.bindings.append((m, m.base + r.offset, ds.name, dm))

    def r_copy(self, m, r):
        sym = m.elf.dynsyms[r.sym]
        found = self.scope.lookup(sym.name, sym.version, skip=m)
        if found is None:
            raise LinkError(f"{m.path}: COPY relocation of undefined symbol {sym.name}")
        dm, ds = found
        data = self.machine.read(ds.value + dm.base, min(sym.size, ds.size) or sym.size)
        self.machine.write(m.base + r.offset, data)

    def r_irelative(self, m, r):
        self.write64(m.base + r.offset, self.call(m.base + r.addend, []))

    def r_dtpmod64(self, m, r):
        # static TLS only: the "module id" is the module's index + 1 (never used for lookups here)
        _, dm, _ = self.sym_value(m, r) if r.sym else (0, m, None)
        self.write64(m.base + r.offset, self.modules.index(dm or m) + 1)

    def r_dtpoff64(self, m, r):
        v, dm, ds = self.sym_value(m, r) if r.sym else (0, m, None)
        self.write64(m.base + r.offset, (ds.value if ds else 0) + r.addend)

    def r_tpoff64(self, m, r):
        if r.sym:
            _, dm, ds = self.sym_value(m, r)
            off = self.tls_offsets[self.modules.index(dm)] + ds.value
        else:
            off = self.tls_offsets[self.modules.index(m)]
        self.write64(m.base + r.offset, off + r.addend)

    RELOCATIONS: Dict[int, Callable] = {}

    def apply(self, m: Module, relocs: List[Reloc], only=None, skip=()) -> None:
        for r in relocs:
            if r.type in skip or (only is not None and r.type not in only):
                continue
            fn = self.RELOCATIONS.get(r.type)
            if fn is None:
                raise LinkError(f"{m.path}: unsupported relocation type {r.type} at {r.offset:#x}")
            fn(self, m, r)

    # -- TLS --
    def layout_tls(self) -> None:
        offset = 0
        for i, m in enumerate(self.modules):
            t = m.elf.tls
            if t is None:
                continue
            align = max(t.align, 1)
            offset = (offset + t.memsz + align - 1) // align * align
            self.tls_offsets[i] = -offset
        self.tls_size = offset

    def setup_thread_pointer(self) -> int:
        aspace = self.proc.aspace
        tcb_size = 0x700
        total = page_up(self.tls_size + tcb_size + 64)
        area = aspace.find_free(total)
        aspace.map(area, total, 3, "[tls]")
        tp = (area + self.tls_size + 63) & ~63
        for i, off in self.tls_offsets.items():
            m = self.modules[i]
            t = m.elf.tls
            if t.filesz:
                self.machine.write(tp + off, m.elf.data[t.offset:t.offset + t.filesz])
        # a minimal tcbhead_t: self pointers at 0 and 0x10, the stack guard at 0x28
        guard = int.from_bytes(self.proc.kernel.world.random_bytes(8), "little") & ~0xFF
        self.write64(tp, tp)
        self.write64(tp + 0x10, tp)
        self.write64(tp + 0x28, guard)
        self.machine.set_reg("fs_base", tp)
        return tp

    def init_functions(self, m: Module) -> List[int]:
        out = []
        init = m.elf.dyn(DT_INIT)
        if init:
            out.append(init + m.base)
        arr, size = m.elf.dyn(DT_INIT_ARRAY), m.elf.dyn(DT_INIT_ARRAYSZ) or 0
        if arr:
            raw = self.machine.read(arr + m.base, size)
            out += [p for p in struct.unpack(f"<{size // 8}Q", raw) if p not in (0, 0xFFFFFFFFFFFFFFFF)]
        return out


Linker.RELOCATIONS = {
    R_NONE: Linker.r_none, R_64: Linker.r_64, R_PC32: Linker.r_pc32, R_32: Linker.r_32, R_32S: Linker.r_32,
    R_COPY: Linker.r_copy, R_GLOB_DAT: Linker.r_glob_dat, R_JUMP_SLOT: Linker.r_glob_dat,
    R_RELATIVE: Linker.r_relative, R_IRELATIVE: Linker.r_irelative, R_DTPMOD64: Linker.r_dtpmod64,
    R_DTPOFF64: Linker.r_dtpoff64, R_TPOFF64: Linker.r_tpoff64,
}


def link(proc, image) -> int:
    """Map and relocate the program's libraries; run their initialisers; return the entry point."""
    vfs = proc.kernel.vfs
    program = image.program
    found = closure(vfs, program.path, program.elf)
    if found is None:
        missing = [n for n in program.elf.needed]
        raise ExecError(E.ENOENT, f"{program.path}: cannot find its shared libraries ({', '.join(missing)})")
    modules = [program]
    for path, elf in found[1:]:
        if elf.type != ET_DYN:
            raise ExecError(E.ELIBBAD, f"{path}: not a shared library")
        bias = choose_bias(proc.aspace, elf, None)
        map_elf(proc.aspace, proc.machine, elf, bias, path)
        modules.append(Module(path, elf, bias))
    proc.modules = modules
    lk = Linker(proc, modules)
    lk.layout_tls()
    lk.setup_thread_pointer()
    try:
        for m in reversed(modules):          # dependencies first, the program last
            for rel in (m.elf.relr,):
                for off in rel:
                    addr = m.base + off
                    (v,) = struct.unpack("<Q", proc.machine.read(addr, 8))
                    lk.write64(addr, v + m.base)
            lk.apply(m, m.elf.relocs, skip=(R_COPY, R_IRELATIVE))
            lk.apply(m, m.elf.plt_relocs, skip=(R_IRELATIVE,))
        program_copies = [r for r in program.elf.relocs if r.type == R_COPY]
        lk.apply(program, program_copies)
        for m in reversed(modules):
            lk.apply(m, m.elf.relocs + m.elf.plt_relocs, only=(R_IRELATIVE,))
        argc_argv = _startup_args(proc, image.rsp)
        pre, size = program.elf.dyn(DT_PREINIT_ARRAY), program.elf.dyn(DT_PREINIT_ARRAYSZ) or 0
        inits = []
        if pre:
            inits += list(struct.unpack(f"<{size // 8}Q", proc.machine.read(pre + program.base, size)))
        for m in reversed(modules[1:]):
            inits += lk.init_functions(m)
        inits += lk.init_functions(program)
        for fn in inits:
            lk.call(fn, argc_argv)
    except LinkError as e:
        raise ExecError(e.errno, str(e)) from None
    proc.machine.set_reg("rdx", 0)
    return image.entry


def _startup_args(proc, rsp: int) -> List[int]:
    argc = struct.unpack("<Q", proc.machine.read(rsp, 8))[0]
    argv = rsp + 8
    envp = argv + 8 * (argc + 1)
    return [argc, argv, envp]
