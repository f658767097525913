"""The report's `target`: the program file as the guest sees it (path, size, sha256) and its
ELF facts (type, interpreter, needed libraries, static, stripped, imported functions)."""
from __future__ import annotations

from typing import Optional

from emutrace.kernel.vfs import VfsError

from emutrace.report import extract
from emutrace.linux.elf import SHT_NOBITS, STT_FUNC, STT_GNU_IFUNC

ET_NAMES = {1: "REL", 2: "EXEC", 3: "DYN", 4: "CORE"}
# section types by name (the ELF gABI, and GNU's)
SHT_NAMES = {0: "NULL", 1: "PROGBITS", 2: "SYMTAB", 3: "STRTAB", 4: "RELA", 5: "HASH", 6: "DYNAMIC", 7: "NOTE",
             8: "NOBITS", 9: "REL", 11: "DYNSYM", 14: "INIT_ARRAY", 15: "FINI_ARRAY", 16: "PREINIT_ARRAY",
             17: "GROUP", 18: "SYMTAB_SHNDX", 19: "RELR", 0x6FFFFFF5: "GNU_ATTRIBUTES", 0x6FFFFFF6: "GNU_HASH",
             0x6FFFFFFD: "VERDEF", 0x6FFFFFFE: "VERNEED", 0x6FFFFFFF: "VERSYM"}
MAX_SECTIONS = 64               # sections listed (a file may claim 65,535)
ENTROPY_SPAN = 4 << 20          # bytes of a section its entropy is measured over


def describe(vfs, argv, proc) -> Optional[dict]:
    """Facts of the first program (run as `argv`), read through the run's `vfs` at its start
    (before it can delete itself)."""
    if not proc.modules:
        return None
    main = proc.modules[0]
    elf = main.elf
    data = _content(vfs, main.path)
    imports = sorted({s.name for s in elf.dynsyms
                      if not s.defined and s.name and s.type in (STT_FUNC, STT_GNU_IFUNC) and s.bind != 0})
    return {
        "path": main.path,
        "argv": list(argv),
        "size": len(data) if data is not None else None,
        "sha256": extract.sha256(data) if data is not None else None,
        "elf": {
            "type": ET_NAMES.get(elf.type, str(elf.type)),
            "pie": elf.type == 3,
            "interpreter": elf.interp,
            "needed": list(elf.needed),
            "static": elf.interp is None,
            "stripped": not elf.symtab,
            "entry": elf.entry,
            "sections": _sections(elf, data),
        },
        "imports": imports,
        "_data": data,          # (the collector keeps it for --yara, and takes it out)
    }


def _sections(elf, data: Optional[bytes]) -> list:
    """Each named section: name, type, address, size, and the entropy of its bytes in the file
    (bits per byte; packed or encrypted content is near 8, code about 6, text 4-5), measured over
    its first ENTROPY_SPAN bytes. NOBITS sections (.bss) have no bytes in the file: null."""
    out = []
    for sec in elf.sections[:MAX_SECTIONS]:
        if not sec.name:
            continue
        ent = None
        if data is not None and sec.type != SHT_NOBITS and sec.size:
            ent = max(0.0, round(extract.entropy(data[sec.offset:sec.offset + min(sec.size, ENTROPY_SPAN)]), 3))
        out.append({"name": sec.name, "type": SHT_NAMES.get(sec.type, hex(sec.type)), "address": sec.addr,
                    "size": sec.size, "entropy": ent})
    return out


def _content(vfs, path: str) -> Optional[bytes]:
    try:
        node = vfs.lookup(path, "/")
        if node.ov is not None:
            return bytes(node.ov.data)
        return vfs.read_host(node)
    except (VfsError, OSError):
        return None
