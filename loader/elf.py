"""The ELF model: one parse of an x86-64 ELF file into the few things emutrace needs.

Parsed with `struct` rather than lief: importing lief costs ~0.35 s, several times the whole
start-up budget, and a parser of our own is easy to make total — any malformed input ends in
one `ElfError`, which the fuzz test checks. Only ELF64 little-endian x86-64 is accepted.
"""
from __future__ import annotations

import pickle
import struct
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

from emutrace.machine.cache import cached
from emutrace.machine.digest import blake2b
from emutrace.record import field, record
from emutrace.linux.elf import (PT_DYNAMIC, PT_INTERP, PT_LOAD, PT_NOTE, PT_PHDR, PT_TLS, SHN_ABS, SHN_UNDEF, SHT_DYNSYM, SHT_NOBITS,
                                SHT_SYMTAB, STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_FILE, STT_FUNC, STT_GNU_IFUNC, STT_NOTYPE, STT_OBJECT,
                                STT_SECTION, STT_TLS)


class ElfError(Exception):
    """The file is not a runnable x86-64 ELF (exit status 126)."""


ET_EXEC, ET_DYN = 2, 3
EM_X86_64 = 62
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4
STB_GNU_UNIQUE = 10

# dynamic tags
DT_NULL, DT_NEEDED, DT_PLTRELSZ, DT_PLTGOT, DT_HASH, DT_STRTAB, DT_SYMTAB = 0, 1, 2, 3, 4, 5, 6
DT_RELA, DT_RELASZ, DT_RELAENT, DT_STRSZ, DT_SYMENT, DT_INIT, DT_FINI = 7, 8, 9, 10, 11, 12, 13
DT_SONAME, DT_RPATH, DT_SYMBOLIC, DT_REL, DT_RELSZ, DT_RELENT, DT_PLTREL = 14, 15, 16, 17, 18, 19, 20
DT_DEBUG, DT_TEXTREL, DT_JMPREL, DT_BIND_NOW, DT_INIT_ARRAY, DT_FINI_ARRAY = 21, 22, 23, 24, 25, 26
DT_INIT_ARRAYSZ, DT_FINI_ARRAYSZ, DT_RUNPATH, DT_FLAGS = 27, 28, 29, 30
DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ = 32, 33
DT_RELRSZ, DT_RELR, DT_RELRENT = 35, 36, 37
DT_GNU_HASH = 0x6FFFFEF5
DT_VERSYM, DT_RELACOUNT, DT_FLAGS_1 = 0x6FFFFFF0, 0x6FFFFFF9, 0x6FFFFFFB
DT_VERDEF, DT_VERDEFNUM, DT_VERNEED, DT_VERNEEDNUM = 0x6FFFFFFC, 0x6FFFFFFD, 0x6FFFFFFE, 0x6FFFFFFF
DF_BIND_NOW, DF_1_NOW, DF_1_PIE = 0x8, 0x1, 0x08000000
# x86-64 relocation types (the builtin linker applies them, GOT resolution and the call tracer read them)
R_NONE, R_64, R_PC32, R_COPY, R_GLOB_DAT, R_JUMP_SLOT, R_RELATIVE = 0, 1, 2, 5, 6, 7, 8
R_32, R_32S, R_DTPMOD64, R_DTPOFF64, R_TPOFF64, R_IRELATIVE = 10, 11, 16, 17, 18, 37

MAX_SEGMENT = 1 << 40        # larger than any real program; bigger means a hostile header


def _loads_fast(cls):
    """The small immutable records of a model (segments, sections, symbols, relocations) are
    tuples, and unpickle through one C call (tuple.__new__) rather than a Python __new__ or a
    __dict__ each: libc's 3,000 symbols load from the cache in ~1 ms instead of ~4."""
    cls.__reduce__ = lambda self: (tuple.__new__, (cls, tuple(self)))
    return cls


@_loads_fast
class Segment(NamedTuple):
    type: int
    flags: int
    offset: int
    vaddr: int
    filesz: int
    memsz: int
    align: int


@_loads_fast
class Section(NamedTuple):
    name: str
    type: int
    addr: int
    offset: int
    size: int
    entsize: int
    link: int


@_loads_fast
class Symbol(NamedTuple):
    name: str
    value: int
    size: int
    type: int
    bind: int
    shndx: int
    version: Optional[str] = None      # "GLIBC_2.2.5" for versioned dynamic symbols
    hidden_version: bool = False       # VERSYM_HIDDEN: not a default version

    @property
    def defined(self) -> bool:
        return self.shndx != SHN_UNDEF


class PackedTable:
    """A large table of a model (symbols, relocations) as the metadata cache holds it: pickled
    on its own, inside the model's pickle, and unpickled when first used. A warm run then loads
    a model without making its tables: node's 185,000 symbols (18 MB pickled) and libjvm's
    100,000 relocations took 0.7-1.3 s and 0.37 s of every start-up, also in runs that never
    read them (--no-trace); copying their bytes takes a few milliseconds. It reads as the list
    it stands for (len, index, iteration, ==, +); only read_elf makes one."""

    __slots__ = ("_list", "_blob", "_len")

    def __init__(self, items: Optional[list] = None, blob: bytes = b"", n: int = 0):
        self._list, self._blob = items, blob
        self._len = len(items) if items is not None else n

    @property
    def items(self) -> list:
        if self._list is None:
            self._list = pickle.loads(self._blob)
            self._blob = b""
        return self._list

    def __reduce__(self):
        blob = self._blob if self._list is None else pickle.dumps(self._list, pickle.HIGHEST_PROTOCOL)
        return (PackedTable, (None, blob, self._len))

    def __len__(self) -> int:
        return self._len

    def __bool__(self) -> bool:
        return self._len > 0

    def __getitem__(self, i):
        return self.items[i]

    def __iter__(self) -> Iterator:
        return iter(self.items)

    def __reversed__(self) -> Iterator:
        return reversed(self.items)

    def __contains__(self, x) -> bool:
        return x in self.items

    def __add__(self, other) -> list:
        return self.items + list(other)

    def __radd__(self, other) -> list:
        return list(other) + self.items

    def __eq__(self, other) -> bool:
        if isinstance(other, PackedTable):
            other = other.items
        return self.items == other

    __hash__ = None                     # (as a list's)

    def __repr__(self) -> str:
        return f"PackedTable({self._len} entries)"


# Tables from this size on are packed: unpickling costs ~0.35 us an entry, so libc's 3,000 dynamic
# symbols took 1-2 ms of every dynamically linked run, a Go program's 2,600 symbols as much, and
# an untraced run reads neither; a smaller table loads in under 0.1 ms either way.
PACKED_TABLE_MIN = 256
PACKED_TABLES = ("dynsyms", "symtab", "relocs", "plt_relocs", "plt_jumps", "call_slots")
# ... and these at any size: only the call tracer reads them (git's ~250 entries each cost an
# untraced run ~0.5M instructions to unpickle)
ALWAYS_PACKED = ("plt_jumps", "call_slots")


@_loads_fast
class Reloc(NamedTuple):
    offset: int       # where (vaddr, unbiased)
    type: int
    sym: int          # index into dynsym
    addend: int


@record
class ElfFile:
    path: str
    data: bytes
    type: int
    entry: int
    phoff: int
    phentsize: int
    segments: List[Segment]
    sections: List[Section] = field(default_factory=list)
    interp: Optional[str] = None
    dynamic: List[Tuple[int, int]] = field(default_factory=list)
    needed: List[str] = field(default_factory=list)
    soname: Optional[str] = None
    runpath: List[str] = field(default_factory=list)
    rpath: List[str] = field(default_factory=list)
    dynsyms: List[Symbol] = field(default_factory=list)
    symtab: List[Symbol] = field(default_factory=list)
    relocs: List[Reloc] = field(default_factory=list)       # DT_RELA
    plt_relocs: List[Reloc] = field(default_factory=list)   # DT_JMPREL
    relr: List[int] = field(default_factory=list)           # DT_RELR addresses
    tls: Optional[Segment] = None
    # what the call tracer hooks, found once per file (kept in the metadata cache with the
    # rest): (PLT entry, its GOT slot) by scan_plt, (GOT slot, function) by call_slots; unbiased
    plt_jumps: List[Tuple[int, int]] = field(default_factory=list)
    call_slots: List[Tuple[int, str]] = field(default_factory=list)

    # ---- derived facts -------------------------------------------------
    @property
    def is_pie_or_dyn(self) -> bool:
        return self.type == ET_DYN

    @property
    def loads(self) -> List[Segment]:
        return [s for s in self.segments if s.type == PT_LOAD]

    @property
    def is_static(self) -> bool:
        return self.interp is None

    def dyn(self, tag: int) -> Optional[int]:
        for t, v in self.dynamic:
            if t == tag:
                return v
        return None

    @property
    def bind_now(self) -> bool:
        flags = self.dyn(DT_FLAGS) or 0
        flags1 = self.dyn(DT_FLAGS_1) or 0
        return self.dyn(DT_BIND_NOW) is not None or bool(flags & DF_BIND_NOW) or bool(flags1 & DF_1_NOW)

    def span(self) -> Tuple[int, int]:
        """Page-aligned [low, high) of all PT_LOAD segments, unbiased."""
        loads = self.loads
        lo = min(s.vaddr for s in loads) & ~0xFFF
        hi = max(s.vaddr + s.memsz for s in loads)
        return lo, (hi + 0xFFF) & ~0xFFF

    def section(self, name: str) -> Optional[Section]:
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def vaddr_to_offset(self, vaddr: int) -> Optional[int]:
        for s in self.loads:
            if s.vaddr <= vaddr < s.vaddr + s.filesz:
                return s.offset + (vaddr - s.vaddr)
        return None

    def read_vaddr(self, vaddr: int, size: int) -> bytes:
        off = self.vaddr_to_offset(vaddr)
        if off is None:
            raise ElfError(f"{self.path}: address {vaddr:#x} is not in the file")
        return self.data[off:off + size]

    def functions(self) -> List[Symbol]:
        """Defined function symbols, from .symtab when present, else .dynsym."""
        syms = self.symtab or self.dynsyms
        return [s for s in syms if s.defined and s.type in (STT_FUNC, STT_GNU_IFUNC) and s.value]


# ---------------------------------------------------------------- parsing

_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_RELA = struct.Struct("<QQq")
_DYN = struct.Struct("<qQ")


def _cstr(data: bytes, off: int, limit: int = 4096) -> str:
    if off < 0 or off >= len(data):
        return ""
    end = data.find(b"\0", off, off + limit)
    if end < 0:
        end = min(len(data), off + limit)
    return data[off:end].decode("utf-8", "replace")


def parse_elf(path: str, data: bytes) -> ElfFile:
    """Parse the bytes of an ELF file. Raises ElfError with a one-line reason on anything malformed."""
    try:
        return _parse(path, data)
    except ElfError:
        raise
    except (struct.error, IndexError, ValueError, OverflowError, UnicodeError, MemoryError) as e:
        raise ElfError(f"{path}: malformed ELF file ({e.__class__.__name__}: {e})") from None


def _parse(path: str, data: bytes) -> ElfFile:
    if len(data) < 4 or data[:4] != b"\x7fELF":
        raise ElfError(f"{path}: not an ELF file")
    if len(data) < _EHDR.size:
        raise ElfError(f"{path}: truncated ELF header")
    (ident, etype, machine, _ver, entry, phoff, shoff, _flags, _ehsize, phentsize, phnum,
     shentsize, shnum, shstrndx) = _EHDR.unpack_from(data, 0)
    if ident[4] != 2:
        raise ElfError(f"{path}: 32-bit ELF; only x86-64 programs are supported")
    if ident[5] != 1:
        raise ElfError(f"{path}: big-endian ELF; only x86-64 programs are supported")
    if machine != EM_X86_64:
        raise ElfError(f"{path}: ELF for machine {machine}, not x86-64")
    if etype not in (ET_EXEC, ET_DYN):
        raise ElfError(f"{path}: ELF type {etype} is not an executable or shared object")
    if phnum == 0 or phentsize != _PHDR.size or phoff + phnum * phentsize > len(data) or phnum > 512:
        raise ElfError(f"{path}: bad program header table")

    segments = []
    for i in range(phnum):
        ptype, pflags, off, vaddr, _paddr, filesz, memsz, align = _PHDR.unpack_from(data, phoff + i * phentsize)
        seg = Segment(ptype, pflags, off, vaddr, filesz, memsz, align)
        if ptype == PT_LOAD:
            if filesz > memsz or memsz > MAX_SEGMENT or vaddr + memsz > 1 << 47:
                raise ElfError(f"{path}: bad PT_LOAD segment {i} (size {memsz:#x} at {vaddr:#x})")
            if off + filesz > len(data):
                raise ElfError(f"{path}: truncated: segment {i} extends past the end of the file")
            if (off - vaddr) & 0xFFF:
                raise ElfError(f"{path}: segment {i} offset and address are not congruent modulo the page size")
        segments.append(seg)
    loads = [s for s in segments if s.type == PT_LOAD]
    if not loads:
        raise ElfError(f"{path}: no loadable segments")
    ordered = sorted(loads, key=lambda s: s.vaddr)
    for a, b in zip(ordered, ordered[1:]):
        if a.vaddr + a.memsz > b.vaddr:
            raise ElfError(f"{path}: overlapping PT_LOAD segments at {b.vaddr:#x}")

    elf = ElfFile(path=path, data=data, type=etype, entry=entry, phoff=phoff, phentsize=phentsize,
                  segments=segments)
    for s in segments:
        if s.type == PT_INTERP:
            if s.offset + s.filesz > len(data) or s.filesz > 4096:
                raise ElfError(f"{path}: bad PT_INTERP")
            elf.interp = data[s.offset:s.offset + s.filesz].split(b"\0")[0].decode("utf-8", "replace")
        elif s.type == PT_TLS:
            elf.tls = s
    _parse_sections(elf, shoff, shentsize, shnum, shstrndx)
    _parse_dynamic(elf)
    elf.plt_jumps = scan_plt(elf)
    elf.call_slots = call_slots(elf)
    return elf


ENDBR64 = b"\xf3\x0f\x1e\xfa"


def plt_sections(elf: ElfFile) -> List[Tuple[object, bytes]]:
    """(section, its bytes) of the sections whose entries jump through the GOT: .plt.sec (whose
    .plt then only holds the lazy-binding stubs) or .plt and .iplt, then .plt.got; those absent,
    empty or past the file's end left out."""
    names = (".plt.sec",) if elf.section(".plt.sec") else (".plt", ".iplt")
    out = []
    for secname in names + (".plt.got",):
        sec = elf.section(secname)
        if sec is not None and sec.size and sec.offset + sec.size <= len(elf.data):
            out.append((sec, elf.data[sec.offset:sec.offset + sec.size]))
    return out


def scan_plt(elf: ElfFile) -> List[Tuple[int, int]]:
    """(PLT entry, GOT slot) for each entry's `jmp *disp(%rip)`, unbiased, in section order.

    Entry sizes vary (16 in .plt and .plt.sec, 8 in .plt.got and in static programs' .plt), so
    every `ff 25` jump is found by scanning; an entry starts at the jump, or at the endbr64 and
    bnd prefix before it."""
    out: Dict[int, int] = {}
    for sec, data in plt_sections(elf):
        i = data.find(b"\xff\x25")
        while 0 <= i < len(data) - 5:
            disp = struct.unpack_from("<i", data, i + 2)[0]
            start = i - 1 if i >= 1 and data[i - 1] == 0xF2 else i
            if start >= 4 and data[start - 4:start] == ENDBR64:
                start -= 4
            out[sec.addr + start] = sec.addr + i + 6 + disp
            i = data.find(b"\xff\x25", i + 6)
    return list(out.items())


def call_slots(elf: ElfFile) -> List[Tuple[int, str]]:
    """(GOT slot, symbol name) of the function relocations (JUMP_SLOT, and GLOB_DAT of a
    function), unbiased; a later relocation of a slot names it."""
    out: Dict[int, str] = {}
    syms = elf.dynsyms
    for r in list(elf.plt_relocs) + list(elf.relocs):
        if r.type in (R_JUMP_SLOT, R_GLOB_DAT) and 0 < r.sym < len(syms):
            s = syms[r.sym]
            if r.type == R_JUMP_SLOT or s.type in (STT_FUNC, STT_GNU_IFUNC) or \
                    (s.shndx == SHN_UNDEF and s.type == STT_FUNC):
                out[r.offset] = s.name
    return list(out.items())


def _parse_sections(elf: ElfFile, shoff: int, shentsize: int, shnum: int, shstrndx: int) -> None:
    data = elf.data
    if shoff == 0 or shnum == 0 or shentsize != _SHDR.size or shoff + shnum * shentsize > len(data) or shnum > 65535:
        return      # sections are optional for running; a stripped or odd table is ignored
    raw = [_SHDR.unpack_from(data, shoff + i * shentsize) for i in range(shnum)]
    stroff = raw[shstrndx][4] if shstrndx < shnum else 0
    for name, stype, _fl, addr, off, size, link, _info, _al, entsize in raw:
        elf.sections.append(Section(_cstr(data, stroff + name) if stroff else "", stype, addr, off, size, entsize, link))
    for sec in elf.sections:
        if sec.type == SHT_SYMTAB and sec.link < len(elf.sections):
            strsec = elf.sections[sec.link]
            if sec.offset + sec.size <= len(data) and strsec.offset + strsec.size <= len(data):
                elf.symtab = _read_syms(data, sec.offset, sec.size // _SYM.size, strsec.offset, strsec.size)


def _read_syms(data: bytes, off: int, count: int, stroff: int, strsize: int,
               versions: Optional[List[Tuple[Optional[str], bool]]] = None) -> List[Symbol]:
    syms = []
    count = max(0, min(count, (len(data) - off) // _SYM.size))
    strtab = data[stroff:stroff + strsize]
    for i in range(count):
        name, info, other, shndx, value, size = _SYM.unpack_from(data, off + i * _SYM.size)
        ver, hidden = versions[i] if versions and i < len(versions) else (None, False)
        syms.append(Symbol(_cstr(strtab, name), value, size, info & 0xF, info >> 4, shndx, ver, hidden))
    return syms


def _parse_dynamic(elf: ElfFile) -> None:
    dyn_seg = next((s for s in elf.segments if s.type == PT_DYNAMIC), None)
    if dyn_seg is None:
        return
    data = elf.data
    if dyn_seg.offset + dyn_seg.filesz > len(data):
        raise ElfError(f"{elf.path}: PT_DYNAMIC extends past the end of the file")
    for i in range(dyn_seg.filesz // _DYN.size):
        tag, val = _DYN.unpack_from(data, dyn_seg.offset + i * _DYN.size)
        if tag == DT_NULL:
            break
        elf.dynamic.append((tag, val))

    def off_of(tag):
        v = elf.dyn(tag)
        return None if v is None else elf.vaddr_to_offset(v)

    stroff = off_of(DT_STRTAB)
    strsz = elf.dyn(DT_STRSZ) or 0
    if stroff is None:
        return
    strtab = data[stroff:stroff + strsz]
    for tag, val in elf.dynamic:
        if tag == DT_NEEDED:
            elf.needed.append(_cstr(strtab, val))
        elif tag == DT_SONAME:
            elf.soname = _cstr(strtab, val)
        elif tag == DT_RUNPATH:
            elf.runpath = [p for p in _cstr(strtab, val).split(":") if p]
        elif tag == DT_RPATH:
            elf.rpath = [p for p in _cstr(strtab, val).split(":") if p]

    symoff = off_of(DT_SYMTAB)
    if symoff is not None:
        count = _dynsym_count(elf)
        versions = _symbol_versions(elf, strtab, count)
        elf.dynsyms = _read_syms(data, symoff, count, stroff, strsz, versions)

    relaoff, relasz = off_of(DT_RELA), elf.dyn(DT_RELASZ) or 0
    if relaoff is not None:
        elf.relocs = _read_relas(data, relaoff, relasz)
    jmpoff, jmpsz = off_of(DT_JMPREL), elf.dyn(DT_PLTRELSZ) or 0
    if jmpoff is not None:
        elf.plt_relocs = _read_relas(data, jmpoff, jmpsz)
    relroff, relrsz = off_of(DT_RELR), elf.dyn(DT_RELRSZ) or 0
    if relroff is not None:
        elf.relr = _read_relr(data, relroff, relrsz)


def _read_relas(data: bytes, off: int, size: int) -> List[Reloc]:
    n = max(0, min(size, len(data) - off)) // _RELA.size
    out = []
    for i in range(n):
        r_off, info, addend = _RELA.unpack_from(data, off + i * _RELA.size)
        out.append(Reloc(r_off, info & 0xFFFFFFFF, info >> 32, addend))
    return out


def _read_relr(data: bytes, off: int, size: int) -> List[int]:
    out, where = [], 0
    for i in range(max(0, min(size, len(data) - off)) // 8):
        (entry,) = struct.unpack_from("<Q", data, off + i * 8)
        if entry & 1 == 0:
            out.append(entry)
            where = entry + 8
        else:
            bits, j = entry >> 1, 0
            while bits:
                if bits & 1:
                    out.append(where + j * 8)
                bits >>= 1
                j += 1
            where += 63 * 8
    return out


def _dynsym_count(elf: ElfFile) -> int:
    data = elf.data
    for sec in elf.sections:
        if sec.type == SHT_DYNSYM and sec.entsize == _SYM.size:
            return sec.size // _SYM.size
    hoff = elf.dyn(DT_HASH)
    if hoff is not None:
        off = elf.vaddr_to_offset(hoff)
        if off is not None:
            return struct.unpack_from("<II", data, off)[1]
    goff = elf.dyn(DT_GNU_HASH)
    if goff is not None:
        off = elf.vaddr_to_offset(goff)
        if off is None:
            return 0
        nbuckets, symoffset, bloom_size, _shift = struct.unpack_from("<IIII", data, off)
        buckets_off = off + 16 + bloom_size * 8
        chains_off = buckets_off + nbuckets * 4
        last = 0
        for i in range(nbuckets):
            last = max(last, struct.unpack_from("<I", data, buckets_off + i * 4)[0])
        if last < symoffset:
            return symoffset
        while True:
            (h,) = struct.unpack_from("<I", data, chains_off + (last - symoffset) * 4)
            if h & 1:
                return last + 1
            last += 1
    return 0


def _symbol_versions(elf: ElfFile, strtab: bytes, count: int) -> Optional[List[Tuple[Optional[str], bool]]]:
    vs = elf.dyn(DT_VERSYM)
    if vs is None:
        return None
    data = elf.data
    vsoff = elf.vaddr_to_offset(vs)
    if vsoff is None:
        return None
    names: Dict[int, str] = {}
    vd = elf.dyn(DT_VERDEF)
    if vd is not None and (off := elf.vaddr_to_offset(vd)) is not None:
        for _ in range(elf.dyn(DT_VERDEFNUM) or 0):
            _v, _flags, ndx, cnt, _hash, aux, nxt = struct.unpack_from("<HHHHIII", data, off)
            if cnt:
                names[ndx] = _cstr(strtab, struct.unpack_from("<I", data, off + aux)[0])
            if not nxt:
                break
            off += nxt
    vn = elf.dyn(DT_VERNEED)
    if vn is not None and (off := elf.vaddr_to_offset(vn)) is not None:
        for _ in range(elf.dyn(DT_VERNEEDNUM) or 0):
            _v, cnt, _file, aux, nxt = struct.unpack_from("<HHIII", data, off)
            aoff = off + aux
            for _ in range(cnt):
                _hash, _flags, other, name, anext = struct.unpack_from("<IHHII", data, aoff)
                names[other] = _cstr(strtab, name)
                if not anext:
                    break
                aoff += anext
            if not nxt:
                break
            off += nxt
    out = []
    for i in range(count):
        if vsoff + 2 * i + 2 > len(data):
            out.append((None, False))
            continue
        (v,) = struct.unpack_from("<H", data, vsoff + 2 * i)
        out.append((names.get(v & 0x7FFF), bool(v & 0x8000)))
    return out


_MEMO: Dict[Tuple[str, bytes], ElfFile] = {}
# part of every cache key: a model pickled in an older form is parsed again, not read as it was
MODEL_FORMAT = b"4:"            # 2: large tables as PackedTable; 3: from 256 entries on (was 4,096); 4: plt_jumps, call_slots


def memoized(path: str, version: Optional[tuple]) -> Optional[ElfFile]:
    """read_elf's model of this version of the host file at path when this process made it
    already, else None: the caller need not read the file (libc's 2 MB, which the loader read
    before ld.so maps it)."""
    return _MEMO.get((path, version)) if version is not None else None


def read_elf(path: str, data: bytes, version: Optional[tuple] = None) -> ElfFile:
    """parse_elf, parsed once per file version: memoized in this process (every exec of a shell
    loop maps the same ld.so and libc) and cached on disk (emutrace.machine.cache) so a warm run parses
    nothing. The cached model leaves out the file's bytes, which the caller already holds.

    `version` names the host file's exact version (hosttree.host_version: inode, size, modification
    and change times), when the caller read one: then nothing hashes the contents, which cost
    more than the rest of a warm read (libc is 2 MB, and a run reads it twice). Without one (a
    file the guest wrote, a tar root's member) the contents are hashed."""
    if version is not None:
        ident = b"v" + repr(version).encode()
        memo_key = (path, version)
    else:
        ident = b"c" + blake2b(data, digest_size=20).digest()
        memo_key = (path, ident)
    hit = _MEMO.get(memo_key)
    if hit is not None:
        return hit

    def parse_without_bytes():
        model = parse_elf(path, data)
        model.data = b""
        for name in PACKED_TABLES:
            table = getattr(model, name)
            if len(table) >= PACKED_TABLE_MIN or (table and name in ALWAYS_PACKED):
                setattr(model, name, PackedTable(table))
        return model
    # contents (or a version of a host file) alone: the same library under another guest
    # path, a test's copy, is one entry; the path is the caller's
    elf = cached("elf", blake2b(MODEL_FORMAT + ident, digest_size=20).hexdigest(), parse_without_bytes)
    elf = ElfFile(**{**elf.__dict__, "data": data, "path": path})
    if len(_MEMO) > 256:
        _MEMO.clear()
    _MEMO[memo_key] = elf
    return elf
