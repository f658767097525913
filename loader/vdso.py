"""emutrace's vDSO: a small ELF shared object mapped into every process, as Linux maps its own,
and named by AT_SYSINFO_EHDR (docs/time.md).

It serves clock_gettime (REALTIME, MONOTONIC, MONOTONIC_RAW, the COARSE clocks, BOOTTIME, TAI),
gettimeofday, time, getcpu and clock_getres in guest code, with no system call: the clock is read
with RDTSC, which the engine's instruction counter answers in C with the work-driven virtual
clock's monotonic nanoseconds (emutrace/machine/_insncount.c), and the wall clock adds the
offset kept in the data page below the image ([vvar], read-only to the guest, rewritten by the
kernel when the wall clock steps: World.shown). Other clocks (the CPU-time clocks) fall back to
the system call, as Linux's vDSO does. A guest that unmaps or overwrites either page gets what
Linux gives: SIGSEGV at its next use.

The image exports __vdso_clock_gettime, __vdso_gettimeofday, __vdso_time, __vdso_getcpu and
__vdso_clock_getres with the version LINUX_2.6 (and the plain names as weak aliases), through
DT_HASH, DT_VERSYM and DT_VERDEF: what glibc's dl_vdso_vsym and musl's __vdsosym look up. It is
linked at 0 like Linux's, with its dynamic section read-only.

The code (below, assembled from this source with GNU as at 0x800, the data page at -0x1000):

    clock_gettime:  cmp edi, 11; ja 9f; mov eax, 1; mov ecx, edi; shl eax, cl
                    test eax, 0x8F3; jz 9f              # served: 0 1 4 5 6 7 11
                    mov r9d, eax; rdtsc; shl rdx, 32; or rax, rdx
                    test r9d, 0x821; jz 1f              # wall clocks: 0 5 11
                    add rax, [rip + VVAR]
                1:  xor edx, edx; mov r8, 1000000000; div r8
                    mov [rsi], rax; mov [rsi + 8], rdx; xor eax, eax; ret
                9:  mov eax, 228; syscall; ret
    gettimeofday:   test rdi, rdi; jz 1f; rdtsc; shl rdx, 32; or rax, rdx; add rax, [rip + VVAR]
                    xor edx, edx; mov r8, 1000; div r8; xor edx, edx; mov r8, 1000000; div r8
                    mov [rdi], rax; mov [rdi + 8], rdx
                1:  test rsi, rsi; jz 2f; mov qword ptr [rsi], 0
                2:  xor eax, eax; ret
    time:           rdtsc; shl rdx, 32; or rax, rdx; add rax, [rip + VVAR]
                    xor edx, edx; mov r8, 1000000000; div r8
                    test rdi, rdi; jz 1f; mov [rdi], rax
                1:  ret
    getcpu:         test rdi, rdi; jz 1f; mov dword ptr [rdi], 0
                1:  test rsi, rsi; jz 2f; mov dword ptr [rsi], 0
                2:  xor eax, eax; ret
    clock_getres:   cmp edi, 11; ja 9f; mov eax, 1; mov ecx, edi; shl eax, cl
                    test eax, 0x8F3; jz 9f; test rsi, rsi; jz 2f
                    mov qword ptr [rsi], 0; mov qword ptr [rsi + 8], 1
                    test eax, 0x60; jz 2f               # coarse: 5 6
                    mov qword ptr [rsi + 8], 4000000
                2:  xor eax, eax; ret
                9:  mov eax, 229; syscall; ret
"""
from __future__ import annotations

import struct
from typing import Dict, List, Optional, Tuple

from emutrace.kernel.vvar import VVAR_NAME, write_vvar
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import MMAP_TOP, PAGE
from emutrace.linux.elf import PT_DYNAMIC, PT_LOAD, SHN_ABS, STB_GLOBAL, STB_WEAK, STT_FUNC, STT_OBJECT

CODE_AT = 0x800
CODE = bytes.fromhex(
    "83ff0b7742b80100000089f9d3e0a9f308000074324189c10f3148c1e2204809d041f7c1210800007407480305cfe7"
    "ffff31d249c7c000ca9a3b49f7f04889064889560831c0c3b8e40000000f05c34885ff742f0f3148c1e2204809d048"
    "03059ce7ffff31d249c7c0e803000049f7f031d249c7c040420f0049f7f0488907488957084885f6740748c7060000"
    "000031c0c30f3148c1e2204809d04803055ee7ffff31d249c7c000ca9a3b49f7f04885ff7403488907c34885ff7406"
    "c707000000004885f67406c7060000000031c0c383ff0b7736b80100000089f9d3e0a9f308000074264885f6741e48"
    "c7060000000048c7460801000000a960000000740848c7460800093d0031c0c3b8e50000000f05c3")
# the functions: name -> (offset in the image, size)
FUNCS: Dict[str, Tuple[int, int]] = {
    "clock_gettime": (0x800, 0x4F), "gettimeofday": (0x84F, 0x43), "time": (0x892, 0x25),
    "getcpu": (0x8B7, 0x19), "clock_getres": (0x8D0, 0x43),
}
VERSION = "LINUX_2.6"
SONAME = "linux-vdso.so.1"
AT_SYSINFO_EHDR = 33
VVAR_PAGES = 1
VDSO_PAGES = 2                # (as Linux's: a program that unmaps "the vDSO" unmaps two pages)
# where: just above the mmap area (nothing of the program's lands there), as Linux puts its
# vDSO near the top of the address space
VVAR_AT = MMAP_TOP

DT = {"NULL": 0, "HASH": 4, "STRTAB": 5, "SYMTAB": 6, "STRSZ": 10, "SYMENT": 11, "SONAME": 14,
      "VERSYM": 0x6FFFFFF0, "VERDEF": 0x6FFFFFFC, "VERDEFNUM": 0x6FFFFFFD}
TEXT_SHNDX = 1         # (no section headers: any defined index will do)
VER_FLG_BASE = 1


def elf_hash(name: str) -> int:
    """The System V ABI's symbol hash (DT_HASH and vd_hash)."""
    h = 0
    for c in name.encode():
        h = ((h << 4) + c) & 0xFFFFFFFF
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g & 0xFFFFFFFF
    return h


def build_image() -> bytes:
    """The vDSO's ELF image (its first page), made from the tables above."""
    strtab = bytearray(b"\0")
    names: Dict[str, int] = {}

    def name(s: str) -> int:
        if s not in names:
            names[s] = len(strtab)
            strtab.extend(s.encode() + b"\0")
        return names[s]

    soname, ver = name(SONAME), name(VERSION)
    # symbols: null, the version's own (absolute, as Linux's), then each function twice
    syms: List[Tuple[int, int, int, int, int]] = [(0, 0, 0, 0, 0), (ver, (STB_GLOBAL << 4) | STT_OBJECT, SHN_ABS, 0, 0)]
    versyms = [0, 2]
    for fn, (off, size) in FUNCS.items():
        syms.append((name("__vdso_" + fn), (STB_GLOBAL << 4) | STT_FUNC, TEXT_SHNDX, off, size))
        syms.append((name(fn), (STB_WEAK << 4) | STT_FUNC, TEXT_SHNDX, off, size))
        versyms += [2, 2]
    sym_names = [""] + [VERSION] + [p + fn for fn in FUNCS for p in ("__vdso_", "")]
    nsyms = len(syms)
    nbucket = 7
    buckets, chains = [0] * nbucket, [0] * nsyms
    for i in range(1, nsyms):
        b = elf_hash(sym_names[i]) % nbucket
        chains[i], buckets[b] = buckets[b], i
    hashtab = struct.pack(f"<II{nbucket}I{nsyms}I", nbucket, nsyms, *buckets, *chains)
    symtab = b"".join(struct.pack("<IBBHQQ", n, info, 0, shndx, value, size) for n, info, shndx, value, size in syms)
    versym = struct.pack(f"<{nsyms}H", *versyms)
    # two definitions: the object's own (VER_FLG_BASE, its soname) and LINUX_2.6
    verdef = b""
    for i, (flags, ndx, nm, s) in enumerate(((VER_FLG_BASE, 1, soname, SONAME), (0, 2, ver, VERSION))):
        nxt = 28 if i == 0 else 0
        verdef += struct.pack("<HHHHIII", 1, flags, ndx, 1, elf_hash(s), 20, nxt) + struct.pack("<II", nm, 0)

    head = 64 + 2 * 56
    layout = {}
    pos = head
    blobs = []
    for key, blob, align in (("hash", hashtab, 8), ("symtab", symtab, 8), ("versym", versym, 2),
                             ("verdef", verdef, 4), ("strtab", bytes(strtab), 1)):
        pos = (pos + align - 1) & ~(align - 1)
        layout[key] = pos
        blobs.append((pos, blob))
        pos += len(blob)
    dyn_entries = [("HASH", layout["hash"]), ("STRTAB", layout["strtab"]), ("SYMTAB", layout["symtab"]),
                   ("STRSZ", len(strtab)), ("SYMENT", 24), ("SONAME", soname), ("VERSYM", layout["versym"]),
                   ("VERDEF", layout["verdef"]), ("VERDEFNUM", 2), ("NULL", 0)]
    dynamic = b"".join(struct.pack("<qQ", DT[k], v) for k, v in dyn_entries)
    dyn_at = (pos + 7) & ~7
    blobs.append((dyn_at, dynamic))
    end = dyn_at + len(dynamic)
    if end > CODE_AT:
        raise AssertionError("the vDSO's tables overlap its code")
    size = CODE_AT + len(CODE)
    ehdr = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, bytes(7), 3, 62, 1,
                       0, 64, 0, 0, 64, 56, 2, 64, 0, 0)
    phdrs = struct.pack("<IIQQQQQQ", PT_LOAD, 5, 0, 0, 0, size, size, PAGE)
    phdrs += struct.pack("<IIQQQQQQ", PT_DYNAMIC, 4, dyn_at, dyn_at, dyn_at, len(dynamic), len(dynamic), 8)
    image = bytearray(PAGE)
    image[:len(ehdr)] = ehdr
    image[64:64 + len(phdrs)] = phdrs
    for at, blob in blobs:
        image[at:at + len(blob)] = blob
    image[CODE_AT:CODE_AT + len(CODE)] = CODE
    return bytes(image)


_IMAGE: Optional[bytes] = None


def image() -> bytes:
    global _IMAGE
    if _IMAGE is None:
        _IMAGE = build_image()
    return _IMAGE


def map_vdso(proc, machine, aspace) -> Optional[int]:
    """Map [vvar] and [vdso] into a new image's address space; the vDSO's address (for
    AT_SYSINFO_EHDR), or None when the kernel maps none (--no-vdso) or there is no room."""
    if not proc.kernel.vdso:
        return None
    base = VVAR_AT
    size = (VVAR_PAGES + VDSO_PAGES) * PAGE
    if not aspace.is_free(base, base + size):
        return None
    try:
        aspace.map(base, VVAR_PAGES * PAGE, 1, VVAR_NAME)
        aspace.map(base + VVAR_PAGES * PAGE, VDSO_PAGES * PAGE, 5, "[vdso]")
    except OutOfMemory:
        return None
    machine.write(base + VVAR_PAGES * PAGE, image())
    proc.vvar = base
    write_vvar(proc)
    return base + VVAR_PAGES * PAGE
