"""The DWARF of one module, asked by function address: the signature of the function that
starts there, or None.

Only the units of functions asked for are read: the unit is found by address
(`.debug_aranges`, else each unit's own ranges), parsed once, and the signatures of all its
functions are kept in the metadata cache (emutrace.machine.cache's checked entries, in
store.py's format) under a key made of the debug file's contents, with the unit table; a warm
run reads neither, and decodes a stored function at its first call only. Malformed input of any kind
ends as DwarfError: the file is then shown without arguments and named in one warning."""
from __future__ import annotations

import gc
import struct
from typing import Callable, Dict, Optional

from emutrace.machine.cache import drop_blob, load_blob, store_blob
from emutrace.machine.digest import blake2b
from emutrace.version import __version__
from emutrace.dwarf import elfsec
from emutrace.dwarf import info as I
from emutrace.dwarf import loc as L
from emutrace.dwarf.errors import DwarfError
from emutrace.dwarf.lazy import C_LANGUAGES, LazyUnit
from emutrace.dwarf import store as S
from emutrace.dwarf.store import StoreError
from emutrace.dwarf.types import Builder, Signature

FORMAT = b"dwarf-5:"


class DebugInfo:
    def __init__(self, path: str, data: bytes, secs_of: Callable[[], Dict[str, bytes]], warn):
        self.path = path                        # the file named in warnings
        self.key = _key(data)
        self._secs_of = secs_of
        self._reader: Optional[I.Reader] = None
        self._units = None
        self._sigs: Dict[int, Dict[int, Signature]] = {}   # unit offset → entry pc → signature
        self.warn = warn
        self.broken = False

    def _read(self) -> I.Reader:
        if self._reader is None:
            self._reader = I.Reader(self._secs_of())
        return self._reader

    def signature(self, pc: int) -> Optional[Signature]:
        """The function starting at pc (an address of the file, unbiased)."""
        if self.broken:
            return None
        # the collector paused meanwhile: what a unit's DIEs or a stored function decode into
        # are containers that mostly live on, and a collection they trigger mid-run would walk
        # every object the trace holds (dwbig's 353 stored functions read in 46-61 ms of CPU
        # with it paused, 68-72 ms without, in-process under the same load)
        was = gc.isenabled()
        gc.disable()
        try:
            return self._signature(pc)
        finally:
            if was:
                gc.enable()

    def _signature(self, pc: int) -> Optional[Signature]:
        try:
            if self._units is None:
                self._units = self._unit_table()
            unit = _unit_at(self._units, pc)
            if unit is None:
                return None
            sigs = self._sigs.get(unit)
            if sigs is None:
                sigs = self._sigs[unit] = self._unit(unit, None)
            try:
                return sigs.get(pc)
            except StoreError:                  # a stored function that is not one: made again
                sigs = self._sigs[unit] = self._unit(unit, sigs)
                return sigs.get(pc)
        except (DwarfError, RecursionError, ValueError, OverflowError, MemoryError, TypeError, KeyError,
                IndexError, AttributeError, struct.error) as e:    # lying input, whatever it breaks
            self.broken = True
            self.warn(f"{self.path}: bad debug information ({e}); its functions are shown without arguments")
            return None

    def _unit_table(self):
        data = load_blob("dwarf-units", self.key)
        if data is not None:
            try:
                return S.unpack_units(data)
            except StoreError:
                drop_blob("dwarf-units", self.key)
        units = self._read().unit_ranges()
        store_blob("dwarf-units", self.key, S.pack_units(units))
        return units

    def _unit(self, unit: int, refused):
        """The signatures of a unit's functions, by entry pc: its stored entry (StoredUnit,
        decoded function by function), else made from the DWARF and stored. `refused`: the
        stored entry a function of which was not one, dropped and made again."""
        key = f"{self.key}-{unit:x}"
        data = load_blob("dwarf-unit", key) if refused is None else None
        if data is not None:
            try:
                return S.StoredUnit(data)
            except StoreError:
                pass
        if data is not None or refused is not None:
            drop_blob("dwarf-unit", key)
        sigs = self._unit_signatures(unit)
        try:
            store_blob("dwarf-unit", key, S.pack(sigs))
        except (ValueError, TypeError, RecursionError):     # (not storable: kept for this run only)
            pass
        return sigs

    def _unit_signatures(self, unit_off: int) -> Dict[int, Signature]:
        r = self._read()
        u = I.unit_header(r.info, unit_off)
        dies = LazyUnit(r, u)            # (the DIEs the functions reach, not the whole unit)
        cu = dies.get(u.die_off)
        if cu is None:
            return {}
        lo = cu.attrs.get(I.AT_low_pc)
        cu_base = lo if isinstance(lo, int) else 0
        b = Builder(r, u, dies, c_unit=cu.attrs.get(I.AT_language) in C_LANGUAGES)

        def loc_of(value, pc, base):
            return L.entry_expr(r.secs, u.version, value, pc, base)
        out: Dict[int, Signature] = {}
        for d in dies.subprograms():
            if I.AT_declaration in d.attrs:
                continue
            ranges = r.die_ranges(u, d, cu_base)
            if not ranges:
                continue
            # the entry: DW_AT_entry_pc, else the first range (a function split into hot and
            # cold parts lists its entry part first); found by the entry address only
            entry = d.attrs.get(I.AT_entry_pc)
            pc = entry if isinstance(entry, int) and entry > 0xFFFF else ranges[0][0]
            out[pc] = b.signature(d, pc, cu_base, loc_of)
        return out


SAMPLE = 1 << 16


def _key(data: bytes) -> str:
    """The cache key of a file's DWARF: with a build-id (what gdb trusts to name a build), the
    build-id, the size and 64 KiB from its start, middle and end, so a warm run does not hash
    libc's 4 MB debug file (over 10 ms); without one, the whole contents."""
    try:
        bid = elfsec.build_id({".note.gnu.build-id": _note(data)})
    except DwarfError:
        bid = None
    h = blake2b(FORMAT + __version__.encode(), digest_size=16)     # (a new reader makes its entries anew)
    if bid and len(data) > 3 * SAMPLE:
        mid = len(data) // 2
        for part in (bid, len(data).to_bytes(8, "little"), data[:SAMPLE], data[mid:mid + SAMPLE], data[-SAMPLE:]):
            h.update(part)
    else:
        h.update(data)
    return h.hexdigest()


def _note(data: bytes) -> bytes:
    t = elfsec.section_table(data).get(".note.gnu.build-id")
    return data[t[2]:t[2] + t[3]] if t else b""


def _unit_at(units, addr: int) -> Optional[int]:
    import bisect     # deferred: only a lookup by address needs it
    lo, hi, offs = units
    i = bisect.bisect_right(lo, addr) - 1
    k = 0
    while i >= 0 and k < 64:
        if lo[i] <= addr < hi[i]:
            return offs[i]
        i -= 1
        k += 1
    return None


def for_file(root: str, guest_path: str, data: bytes, warn) -> Optional[DebugInfo]:
    """The DebugInfo of an ELF file (its bytes `data`), from its own sections or its separate
    debug file under root; None when it has none."""
    said = []

    def warn_once(msg):
        if not said:
            said.append(msg)
            warn(msg)
    try:
        table = elfsec.section_table(data)
        if ".debug_info" in table and table[".debug_info"][3]:
            return DebugInfo(guest_path, data, lambda: elfsec.read_sections(data), warn_once)
        secs = elfsec.read_sections(data) if (".note.gnu.build-id" in table or ".gnu_debuglink" in table) else {}
        if not secs:
            return None
        found = elfsec.find_debug_file(root, guest_path, secs,
                                       lambda p, why: warn_once(f"{p}: {why}; not used"))
        if found is None:
            return None
        path, ddata = found
        return DebugInfo(path, ddata, lambda: elfsec.read_sections(ddata), warn_once)
    except DwarfError as e:
        warn_once(f"{guest_path}: bad ELF sections for debug information ({e})")
        return None
