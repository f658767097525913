"""Starting a program the way the Linux kernel does (binfmt_elf + binfmt_script).

Map the program's PT_LOAD segments (PIE at 0x555555554000, as with ASLR off), map its PT_INTERP
(ld.so) below the mmap top, build the initial stack (argc, argv, envp, auxv; no vDSO, so time
goes through system calls), and start at the interpreter's entry — or at the program's own
entry when it is static, or after the builtin linker has done ld.so's job (loader/linker.py).
Files are read through the guest's VFS, so `--root` decides what runs.
"""
from __future__ import annotations

import struct
from typing import List, Optional

from emutrace.kernel import errno as E
from emutrace.kernel.binfmt import ExecError      # raised here, caught by the kernel's execve
from emutrace.kernel.task import SigAction
from emutrace.kernel.vfs import VfsError
from emutrace.machine.cpu import cpuid
from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import PAGE, PIE_BASE, STACK_SIZE, STACK_TOP

from emutrace.loader import linker
from emutrace.loader.vdso import AT_SYSINFO_EHDR, map_vdso
from emutrace.loader.elf import ET_DYN, PF_X, ElfError, ElfFile, read_elf
from emutrace.loader.image import choose_bias, map_elf
from emutrace.loader.modules import Module
from emutrace.linux.auxv import AT_BASE, AT_ENTRY, AT_FLAGS, AT_NULL, AT_PAGESZ, AT_PHDR, AT_PHENT, AT_PHNUM
from emutrace.linux.elf import PT_PHDR
from emutrace.linux.fcntl import S_IFDIR, S_IFREG

AT_UID, AT_EUID, AT_GID, AT_EGID, AT_PLATFORM, AT_HWCAP, AT_CLKTCK = 11, 12, 13, 14, 15, 16, 17
AT_SECURE, AT_RANDOM, AT_HWCAP2, AT_EXECFN, AT_MINSIGSTKSZ = 23, 25, 26, 31, 51
MAX_SCRIPT_DEPTH = 4
MAX_ARG_BYTES = 2 << 20


def read_guest_file(vfs, path: str, base: str) -> tuple:
    """(canonical guest path, bytes, host version or None) of an executable file, or ExecError."""
    try:
        canon, node = vfs.resolve(path, base)
    except VfsError as e:
        raise ExecError(e.errno, f"{path}: {E.MESSAGE.get(e.errno, 'error')}") from None
    if node.stat.type == S_IFDIR:
        raise ExecError(E.EACCES, f"{path}: is a directory")
    if node.stat.type != S_IFREG:
        raise ExecError(E.EACCES, f"{path}: not a regular file")
    if not node.stat.mode & 0o111:
        raise ExecError(E.EACCES, f"{path}: permission denied (not executable)")
    if node.ov is not None:
        return canon, bytes(node.ov.data), None
    if node.host is None:
        raise ExecError(E.EACCES, f"{path}: cannot be executed")
    try:
        data, version = vfs.read_host_versioned(node)
        vfs.reads[node.host] = None
    except OSError as e:
        raise ExecError(E.from_host(e), f"{path}: {e.strerror}") from None
    return canon, data, version


def _parse(path: str, data: bytes, version: Optional[tuple] = None) -> ElfFile:
    try:
        elf = read_elf(path, data, version)
    except ElfError as e:
        raise ExecError(E.ENOEXEC, str(e)) from None
    return elf


def check_entry(elf: ElfFile) -> None:
    for s in elf.loads:
        if s.flags & PF_X and s.vaddr <= elf.entry < s.vaddr + s.memsz:
            return
    raise ExecError(E.ENOEXEC, f"{elf.path}: entry point {elf.entry:#x} is outside the program's code")


def script_interpreter(data: bytes, path: str):
    """(interpreter, optional argument) of a `#!` script, as binfmt_script parses it."""
    line = data[2:256].split(b"\n", 1)[0].strip(b" \t")
    if not line:
        raise ExecError(E.ENOEXEC, f"{path}: empty #! line")
    parts = line.split(None, 1)
    interp = parts[0].decode("utf-8", "surrogateescape")
    arg = parts[1].strip(b" \t").decode("utf-8", "surrogateescape") if len(parts) > 1 else None
    return interp, arg


class Image:
    """What exec produced: the modules mapped and where to start."""

    def __init__(self, program: Module, interp: Optional[Module], entry: int, rsp: int):
        self.program, self.interp, self.entry, self.rsp = program, interp, entry, rsp


def load_image(proc, path: str, argv: List[str], envp: List[str], base: str, loader: str = "auto",
               depth: int = 0) -> Image:
    """Everything exec does up to building the stack; raises ExecError before touching proc."""
    vfs = proc.kernel.vfs
    canon, data, version = read_guest_file(vfs, path, base)
    if data[:2] == b"#!":
        if depth >= MAX_SCRIPT_DEPTH:
            raise ExecError(E.ELOOP, f"{path}: too many levels of #! interpreters")
        interp, arg = script_interpreter(data, path)
        new_argv = [interp] + ([arg] if arg else []) + [path] + argv[1:]
        return load_image(proc, interp, new_argv, envp, base, loader, depth + 1)
    elf = _parse(canon, data, version)
    check_entry(elf)
    proc.execfn = path                  # AT_EXECFN: the name as given to execve
    interp_elf = None
    # static and static-pie programs relocate themselves: only a program with an interpreter is
    # ever linked by emutrace, and only when no library in its closure is a C library with an rtld
    use_builtin = bool(elf.interp) and (loader == "builtin" or (loader == "auto" and linker.applies(vfs, elf, canon)))
    if loader == "builtin" and elf.interp and not linker.applies(vfs, elf, canon):
        raise ExecError(E.ENOEXEC, f"{canon}: --loader builtin cannot run it: its libraries are missing or include a "
                                   "C library that needs its own dynamic linker (use --loader interp)")
    if elf.interp and not use_builtin:
        icanon, idata, iversion = read_guest_file(vfs, elf.interp, "/")
        interp_elf = _parse(icanon, idata, iversion)
        if interp_elf.type != ET_DYN or interp_elf.interp:
            raise ExecError(E.ELIBBAD, f"{elf.interp}: the program interpreter is not a dynamic linker")
        check_entry(interp_elf)
    return _commit(proc, canon, elf, interp_elf, argv, envp, use_builtin and bool(elf.dynamic))


def _commit(proc, canon, elf, interp_elf, argv, envp, builtin) -> Image:
    total = sum(len(a) + 1 for a in argv) + sum(len(e) + 1 for e in envp)
    if total > MAX_ARG_BYTES:
        raise ExecError(E.E2BIG, "argument list too long")
    # point of no return: a fresh machine and address space
    kernel = proc.kernel
    try:
        machine, aspace = kernel.engines.new()
    except OutOfMemory:
        raise ExecError(E.ENOMEM, "the emulated CPU and its translation cache do not fit in guest memory") from None
    if kernel.hooks.wants("code_unpacked"):
        aspace.watch_code(kernel.hooks)
    old = proc.aspace
    proc.machine, proc.aspace = machine, aspace
    kernel.engines.leave(old)                # (a vfork parent, still on it, keeps it charged)
    proc.service_page = None
    proc.vvar = None
    kernel.hooks.fire("new_machine", proc)
    try:
        bias = choose_bias(aspace, elf, PIE_BASE)
        map_elf(aspace, machine, elf, bias, canon)
        lo, hi = elf.span()
        aspace.brk_start = aspace.brk = hi + bias
        program = Module(canon, elf, bias)
        interp = None
        entry = elf.entry + bias
        if interp_elf is not None:
            ibias = choose_bias(aspace, interp_elf, None)
            map_elf(aspace, machine, interp_elf, ibias, interp_elf.path)
            interp = Module(interp_elf.path, interp_elf, ibias)
            entry = interp_elf.entry + ibias
        aspace.map(STACK_TOP - STACK_SIZE, STACK_SIZE, 3, "[stack]")
        vdso = map_vdso(proc, machine, aspace)
        rsp = build_stack(proc, machine, program, interp, argv, envp, vdso)
    except OutOfMemory as e:
        raise ExecError(E.ENOMEM, f"{canon}: does not fit in guest memory ({e})") from None
    proc.exe = canon
    proc.argv = list(argv)
    proc.modules = [program] + ([interp] if interp else [])
    _reset_signals(proc)
    image = Image(program, interp, entry, rsp)
    if builtin:
            image.entry = linker.link(proc, image)
    machine.set_reg("rsp", image.rsp)
    machine.set_reg("rip", image.entry)
    return image


def _reset_signals(proc) -> None:
    kept = {s: a for s, a in proc.sigactions.items() if a.handler == 1}     # SIG_IGN survives exec
    proc.sigactions = {s: SigAction(handler=1) for s in kept}
    t = proc.thread
    t.altstack_sp, t.altstack_size, t.altstack_flags = 0, 0, 2
    for fd, cloexec in list(proc.fds.cloexec.items()):
        if cloexec:
            proc.fds.close(fd)


def exec_into(proc, path: str, argv: List[str], envp: List[str], base: str, loader: str = "auto") -> Image:
    """execve: replace proc's image; on success the caller resumes at proc.machine's rip."""
    image = load_image(proc, path, argv, envp, base, loader)
    proc.kernel.hooks.fire("exec", proc, image)
    return image


def build_stack(proc, machine, program: Module, interp: Optional[Module], argv, envp,
                vdso: Optional[int] = None) -> int:
    """Lay out strings, auxv, envp, argv and argc at the top of the stack; return rsp. `vdso`:
    the vDSO's address, AT_SYSINFO_EHDR (loader/vdso.py), first in auxv as Linux puts it."""
    world = proc.kernel.world
    sp = STACK_TOP - 8                     # the kernel leaves a NULL word at the very top
    blobs = []

    def push_bytes(b: bytes) -> int:
        nonlocal sp
        sp -= len(b)
        blobs.append((sp, b))
        return sp

    enc = lambda s: s.encode("utf-8", "surrogateescape") + b"\0"
    execfn = push_bytes(enc(proc.execfn or proc.exe))
    env_ptrs = [push_bytes(enc(e)) for e in reversed(envp)][::-1]
    arg_ptrs = [push_bytes(enc(a)) for a in reversed(argv)][::-1]
    platform = push_bytes(b"x86_64\0")
    rand = push_bytes(world.random_bytes(16))
    sp &= ~15
    elf = program.elf
    phdr = next((s.vaddr for s in elf.segments if s.type == PT_PHDR), None)
    if phdr is None:
        first = min(elf.loads, key=lambda s: s.offset)
        phdr = first.vaddr - first.offset + elf.phoff
    auxv = [
        (AT_MINSIGSTKSZ, 2048), (AT_HWCAP, cpuid(1, 0)[3]), (AT_PAGESZ, PAGE), (AT_CLKTCK, 100),
        (AT_PHDR, phdr + program.base), (AT_PHENT, 56), (AT_PHNUM, len(elf.segments)),
        (AT_BASE, interp.base if interp else 0), (AT_FLAGS, 0), (AT_ENTRY, elf.entry + program.base),
        (AT_UID, world.uid), (AT_EUID, world.uid), (AT_GID, world.gid), (AT_EGID, world.gid),
        (AT_SECURE, 0), (AT_RANDOM, rand), (AT_HWCAP2, 0), (AT_EXECFN, execfn), (AT_PLATFORM, platform),
        (AT_NULL, 0),
    ]
    if vdso is not None:
        auxv.insert(0, (AT_SYSINFO_EHDR, vdso))
    words = [len(argv)] + arg_ptrs + [0] + env_ptrs + [0]
    for k, v in auxv:
        words += [k, v]
    sp -= 8 * len(words)
    sp &= ~15
    for addr, b in blobs:
        machine.write(addr, b)
    machine.write(sp, struct.pack(f"<{len(words)}Q", *words))
    return sp
