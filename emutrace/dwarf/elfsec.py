"""The debug sections of an ELF file, and where its separate debug file is (as gdb finds it).

Sections are read from the file's own header table (SHF_COMPRESSED ones inflated: zlib, as
Debian ships them); a separate debug file is looked for by build-id
(`/usr/lib/debug/.build-id/xx/rest.debug`), then by `.gnu_debuglink` (beside the file, in its
`.debug/`, under `/usr/lib/debug` + its directory), inside the guest's root, and used only when
its build-id (or, without one, the debuglink CRC) matches."""
from __future__ import annotations

import os
import struct
import zlib
from typing import Dict, List, Optional

from emutrace.dwarf.errors import DwarfError
from emutrace.linux.elf import SHT_NOBITS

SHF_COMPRESSED = 0x800
ELFCOMPRESS_ZLIB = 1
MAX_SECTION = 1 << 30            # an inflated section larger than this is refused (a zip bomb)
WANTED = (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str", ".debug_aranges",
          ".debug_loc", ".debug_loclists", ".debug_ranges", ".debug_rnglists", ".debug_addr",
          ".debug_str_offsets", ".gnu_debuglink", ".note.gnu.build-id")


def section_table(data: bytes) -> Dict[str, tuple]:
    """name → (type, flags, offset, size) of every section (an ELF64 little-endian file)."""
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise DwarfError("not an ELF64 little-endian file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shentsize != 64 or shoff + shnum * 64 > len(data) or shstrndx >= shnum:
        raise DwarfError("bad section header table")
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + 64 * i) for i in range(shnum)]
    stroff, strsize = heads[shstrndx][4], heads[shstrndx][5]
    out = {}
    for name_off, typ, flags, _addr, off, size, *_ in heads:
        if name_off >= strsize:
            continue
        a = stroff + name_off
        end = data.find(b"\0", a, stroff + strsize)
        name = data[a:end if end >= 0 else stroff + strsize].decode("latin-1")
        if name in WANTED:
            out[name] = (typ, flags, off, size)
    return out


def read_sections(data: bytes) -> Dict[str, bytes]:
    """The debug sections' contents, inflated."""
    out = {}
    for name, (typ, flags, off, size) in section_table(data).items():
        if typ == SHT_NOBITS:
            continue
        if off + size > len(data):
            raise DwarfError(f"section {name} runs past the end of the file")
        raw = data[off:off + size]
        if flags & SHF_COMPRESSED:
            if len(raw) < 24:
                raise DwarfError(f"section {name}: truncated compression header")
            ch_type, _res, ch_size, _al = struct.unpack_from("<IIQQ", raw)
            if ch_type != ELFCOMPRESS_ZLIB:
                raise DwarfError(f"section {name}: compression {ch_type} not supported (zlib only)")
            if ch_size > MAX_SECTION:
                raise DwarfError(f"section {name}: {ch_size} bytes inflated is too large")
            try:
                d = zlib.decompressobj()
                raw = d.decompress(raw[24:], ch_size)
            except zlib.error as e:
                raise DwarfError(f"section {name}: {e}") from None
            if len(raw) != ch_size:
                raise DwarfError(f"section {name}: inflates to {len(raw)} bytes, not {ch_size}")
        out[name] = raw
    return out


def build_id(secs: Dict[str, bytes]) -> Optional[bytes]:
    note = secs.get(".note.gnu.build-id")
    if note is None or len(note) < 16:
        return None
    namesz, descsz, typ = struct.unpack_from("<III", note)
    start = 12 + (namesz + 3) // 4 * 4
    return note[start:start + descsz] if typ == 3 and start + descsz <= len(note) else None


def _debuglink(secs: Dict[str, bytes]):
    link = secs.get(".gnu_debuglink")
    if not link:
        return None, None
    end = link.find(b"\0")
    if end <= 0:
        return None, None
    at = (end + 4) // 4 * 4
    crc = struct.unpack_from("<I", link, at)[0] if at + 4 <= len(link) else None
    return link[:end].decode("latin-1"), crc


def in_root(root: str, guest_path: str, hops: int = 16) -> Optional[str]:
    """The host path of a guest path under `root`, following symbolic links inside the root
    (an absolute link target is the root's, as chroot resolves it); None if absent."""
    root = os.path.abspath(root)
    parts = [p for p in guest_path.split("/") if p and p != "."]
    done: list = []
    while parts:
        p = parts.pop(0)
        if p == "..":
            if done:
                done.pop()
            continue
        host = os.path.join(root, *done, p)
        if os.path.islink(host):
            hops -= 1
            if hops < 0:
                return None
            target = os.readlink(host)
            if target.startswith("/"):
                done = []
            parts = [q for q in target.split("/") if q and q != "."] + parts
            continue
        done.append(p)
    host = os.path.join(root, *done)
    return host if os.path.isfile(host) else None


def candidates(guest_path: str, secs: Dict[str, bytes]) -> List[str]:
    """Where gdb looks for the separate debug file of the file at guest_path, in its order:
    by build-id under /usr/lib/debug/.build-id, then by .gnu_debuglink beside the file, in its
    .debug/ and under /usr/lib/debug."""
    bid = build_id(secs)
    name, _crc = _debuglink(secs)
    cands = []
    if bid and len(bid) >= 2:
        h = bid.hex()
        cands.append(f"/usr/lib/debug/.build-id/{h[:2]}/{h[2:]}.debug")
    if name and "/" not in name:
        d = os.path.dirname(guest_path)
        cands += [f"{d}/{name}", f"{d}/.debug/{name}", f"/usr/lib/debug{d}/{name}"]
    return cands


def find_debug_file(root: str, guest_path: str, secs: Dict[str, bytes], warn):
    """(guest path, bytes) of the separate debug file of the file at guest_path (with sections secs),
    when the root has one that matches; warn(path, why) for one that does not."""
    bid = build_id(secs)
    _name, crc = _debuglink(secs)
    for guest in candidates(guest_path, secs):
        host = in_root(root, guest)
        if host is None:
            continue
        try:
            with open(host, "rb") as f:
                data = f.read()
            table = section_table(data)
            dsecs = {}
            if ".note.gnu.build-id" in table:
                typ, flags, off, size = table[".note.gnu.build-id"]
                dsecs[".note.gnu.build-id"] = data[off:off + size]
        except (OSError, DwarfError) as e:
            warn(guest, str(e))
            continue
        if bid is not None:
            ok = build_id(dsecs) == bid
        else:
            ok = crc is not None and zlib.crc32(data) == crc
        if not ok:
            warn(guest, "does not match the build-id of " + guest_path)
            continue
        if ".debug_info" in table:
            return guest, data
    return None


def may_have(root: str, guest_path: str, data: bytes) -> bool:
    """Has the ELF file (its bytes `data`) debug information of its own, or a separate debug
    file under root where gdb would look? Nothing is read but the file's section headers and
    notes, and the candidates' existence (for_file then checks the build-id)."""
    try:
        table = section_table(data)
        if ".debug_info" in table and table[".debug_info"][3]:
            return True
        secs = {n: data[t[2]:t[2] + t[3]] for n, t in table.items()
                if n in (".note.gnu.build-id", ".gnu_debuglink") and t[2] + t[3] <= len(data)}
    except DwarfError:
        return False
    return any(in_root(root, guest) is not None for guest in candidates(guest_path, secs))
