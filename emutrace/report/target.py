"""The report's `target`: the program file as the guest sees it (path, size, sha256) and its
ELF facts (type, interpreter, needed libraries, static, stripped, imported functions)."""
from __future__ import annotations

from typing import Optional

from emutrace.kernel.vfs import VfsError

from . import extract

ET_NAMES = {1: "REL", 2: "EXEC", 3: "DYN", 4: "CORE"}
STT_FUNC, STT_GNU_IFUNC = 2, 10


def describe(session, proc) -> Optional[dict]:
    """Facts of the first program, read at its start (before it can delete itself)."""
    if not proc.modules:
        return None
    main = proc.modules[0]
    elf = main.elf
    data = _content(session, main.path)
    imports = sorted({s.name for s in elf.dynsyms
                      if not s.defined and s.name and s.type in (STT_FUNC, STT_GNU_IFUNC) and s.bind != 0})
    return {
        "path": main.path,
        "argv": list(session.argv),
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
        },
        "imports": imports,
    }


def _content(session, path: str) -> Optional[bytes]:
    vfs = session.vfs
    try:
        node = vfs.lookup(path, "/")
        if node.ov is not None:
            return bytes(node.ov.data)
        return vfs.read_host(node)
    except (VfsError, OSError):
        return None
