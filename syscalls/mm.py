"""Memory system calls: mmap, munmap, mprotect, mremap, brk, madvise and friends.

MAP_SHARED is real sharing: the mapping shows a SharedMemory (emutrace/machine/memory.py), which fork
maps into the child instead of copying. A shared anonymous mapping (or one of /dev/zero) gets
its own; a tmpfs/overlay file (/dev/shm, memfd, any file the guest wrote) has one per file,
so every process that maps it sees the same pages, and read()/write() see them too; a file of
the read-only root (or of a --rw grant) is shared with the processes forked after the mmap,
starting from the file's bytes, and is not written back to the host.
"""
from __future__ import annotations

import ctypes
import os

from emutrace.machine.budget import OutOfMemory
from emutrace.machine.pages import page_down, page_up, PAGE
from emutrace.machine.shm import SharedMemory

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import DeviceFile, HostFile, HostRwFile, MemFile, PipeEnd, shared_memory_of
from emutrace.linux.mman import (MADV_DONTNEED, MADV_FREE, MADV_REMOVE, MAP_ANONYMOUS, MAP_FIXED, MAP_FIXED_NOREPLACE, MAP_GROWSDOWN,
                                 MAP_NORESERVE, MREMAP_DONTUNMAP, MREMAP_FIXED, MREMAP_MAYMOVE)
from emutrace.linux.resource import RLIMIT_AS

MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE, MAP_TYPE = 1, 2, 3, 0xF


def _check_as(proc, grow: int) -> None:
    limit = proc.rlimit(RLIMIT_AS)
    if proc.aspace.mapped + grow > limit:
        raise OutOfMemory("RLIMIT_AS")


def sys_mmap(proc, addr, length, prot, flags, fd, off):
    aspace = proc.aspace
    fd = s32(fd)
    if length == 0 or off & (PAGE - 1):
        return -E.EINVAL
    if length > 1 << 47:
        return -E.ENOMEM            # more than the address space (Linux's get_unmapped_area)
    mtype = flags & MAP_TYPE
    if mtype not in (MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE):
        return -E.EINVAL
    size = page_up(length)
    f = None
    if not flags & MAP_ANONYMOUS:
        f = proc.fds.get(fd)
        if not f.readable:
            return -E.EACCES
        if isinstance(f, PipeEnd) or f.kind in ("dir", "stream"):
            return -E.ENODEV
        if mtype != MAP_PRIVATE and prot & 2 and not f.writable:
            return -E.EACCES
    _check_as(proc, size)
    if flags & (MAP_FIXED | MAP_FIXED_NOREPLACE):
        if addr & (PAGE - 1):
            return -E.EINVAL
        if flags & MAP_FIXED_NOREPLACE and not flags & MAP_FIXED and not aspace.is_free(addr, addr + size):
            return -E.EEXIST
        start = addr
    elif addr and aspace.is_free(page_down(addr), page_down(addr) + size) and page_down(addr) >= 0x10000 \
            and page_down(addr) + size <= aspace.mmap_top:
        start = page_down(addr)
    else:
        start = aspace.find_free(size, shared=mtype != MAP_PRIVATE)
    name = f.path if f is not None and not isinstance(f, DeviceFile) else ""
    noreserve = bool(flags & MAP_NORESERVE)
    if mtype != MAP_PRIVATE:
        _map_shared(proc, start, size, prot, f, off, length, name, noreserve)
    else:
        aspace.map(start, size, prot, name, off if f is not None else 0, noreserve,
                   contents=f is not None and not isinstance(f, DeviceFile))
    if f is not None and not isinstance(f, DeviceFile):
        if mtype == MAP_PRIVATE and not _read_into(proc.aspace, f, start, length, off):
            data = f.pread(length, off)
            if data:
                proc.machine.write(start, data)
        proc.kernel.hooks.fire("mmap", proc, start, size, prot, f, off)
    return start


def _read_into(aspace, f, start: int, length: int, off: int) -> bool:
    """A host file's bytes [off, off+length) read by the host kernel straight into the fresh
    private mapping at start: one copy, from the host's page cache into guest memory, where
    pread + uc_mem_write made two and a Python bytes object as large as the mapping (a C
    library: ~2 MB at every exec, ~10% of a fork+exec of /bin/true, docs/processes.md). True when
    done; False (the caller reads a copy) for anything but a host file with host memory under
    every page, or where the host has no preadv. The mapping was just made (map() unmapped what
    was there and dropped its translated code), so no translation can be stale, as for
    uc_mem_write; a short read (the file ends) leaves the rest zero, as Linux does."""
    fd = getattr(f, "host_fd", None)
    if fd is None or not isinstance(f, HostFile) or not hasattr(os, "preadv"):
        return False
    pieces = list(aspace.host_pieces(start, start + length))
    if sum(n for _, n, _ in pieces) != length:
        return False
    try:
        for addr, n, host in pieces:
            pos, done = off + (addr - start), 0
            while done < n:
                got = os.preadv(fd, [(ctypes.c_char * (n - done)).from_address(host + done)], pos + done)
                if got <= 0:
                    return True                     # (end of file: the rest stays zero)
                done += got
    except OSError:
        return False                                # (the copying path reports the error)
    return True


def _map_shared(proc, start, size, prot, f, off, length, name, noreserve) -> None:
    if f is None or isinstance(f, DeviceFile):
        # shared anonymous memory is a deleted shmem file, as Linux shows it
        proc.aspace.map_shared(start, size, prot, SharedMemory(), 0, "/dev/zero (deleted)", 0, noreserve)
    elif isinstance(f, MemFile):
        proc.aspace.map_shared(start, size, prot, shared_memory_of(f.ov, create=True), off, name, off,
                               noreserve)
    else:
        host = _host_file(f, off)
        if host is not None:
            shm = SharedMemory(host_file=host)
            proc.aspace.map_shared(start, size, prot, shm, 0, name, off, noreserve)
            return
        data = f.pread(length, off)
        shm = SharedMemory(fill=lambda o, n: data[o:o + n])
        proc.aspace.map_shared(start, size, prot, shm, 0, name, off, noreserve)
        shm.fill = None


def _host_file(f, off):
    """(fd, offset, size) of the host file behind f when pages can come from it directly: a
    plain file of the read-only root (copy-on-write, never written back)."""
    if not isinstance(f, HostFile) or isinstance(f, HostRwFile):
        return None
    try:
        fd = f.f.fileno()
        return fd, off, os.fstat(fd).st_size
    except (AttributeError, OSError, ValueError):
        return None                                 # (a member of a tar root)


def sys_munmap(proc, addr, length, *_):
    if addr & (PAGE - 1) or length == 0:
        return -E.EINVAL
    proc.aspace.unmap(addr, length)
    return 0


def sys_mprotect(proc, addr, length, prot, *_):
    if addr & (PAGE - 1):
        return -E.EINVAL
    if prot & ~(7 | 0x01000000 | 0x02000000):    # PROT_GROWSDOWN/GROWSUP
        return -E.EINVAL
    if length == 0:
        return 0
    return 0 if proc.aspace.protect(addr, length, prot & 7) else -E.ENOMEM


def sys_mremap(proc, old, old_size, new_size, flags, new_addr, *_):
    aspace = proc.aspace
    if old & (PAGE - 1) or new_size == 0 or flags & ~7:
        return -E.EINVAL
    old_size, new_size = page_up(old_size), page_up(new_size)
    # the range may span several mappings that Linux would have merged (an earlier mremap
    # grown in place leaves two): they must be contiguous, and shared memory one mapping
    vmas = aspace.overlapping(old, old + old_size)
    vma = vmas[0] if vmas else None
    if vma is None or vma.start > old or vmas[-1].end < old + old_size or \
            any(a.end != b.start for a, b in zip(vmas, vmas[1:])) or \
            (len(vmas) > 1 and any(v.shm is not None for v in vmas)):
        return -E.EFAULT
    if flags & MREMAP_FIXED:
        if not flags & MREMAP_MAYMOVE:
            return -E.EINVAL
        target = new_addr
    elif new_size <= old_size:
        if new_size < old_size:
            aspace.unmap(old + new_size, old_size - new_size)
        return old
    elif aspace.is_free(old + old_size, old + new_size):
        _check_as(proc, new_size - old_size)
        if vma.shm is not None:
            aspace.map_shared(old + old_size, new_size - old_size, vma.prot, vma.shm,
                              vma.shm_off + (old - vma.start) + old_size, vma.name, vma.offset + old_size)
        else:
            aspace.map(old + old_size, new_size - old_size, vma.prot, vma.name, vma.offset + old_size,
                       vma.noreserve)
        return old
    elif not flags & MREMAP_MAYMOVE:
        return -E.ENOMEM
    else:
        target = aspace.find_free(new_size)
    _check_as(proc, new_size)
    if vma.shm is not None:
        # the same pages at the new place (and, grown, more of the same object)
        if target < old + old_size and old < target + new_size:
            return -E.EINVAL
        shm, shm_off = vma.shm, vma.shm_off + (old - vma.start)
        offset = vma.offset + (old - vma.start) if vma.name else 0
        aspace.map_shared(target, new_size, vma.prot, shm, shm_off, vma.name, offset)
        if not flags & MREMAP_DONTUNMAP:
            aspace.unmap(old, old_size)
        return target
    if target < old + old_size and old < target + new_size:
        return -E.EINVAL
    # the pages the host holds move (copied host to host); the rest reads as zeros anyway
    aspace.map(target, new_size, vma.prot, vma.name, vma.offset + (old - vma.start) if vma.name else 0,
               vma.noreserve, contents=True)
    aspace.copy_touched(aspace, old, old + min(old_size, new_size), target)
    if not flags & MREMAP_DONTUNMAP:
        aspace.unmap(old, old_size)
    elif not vma.name or vma.name.startswith("["):
        aspace.discard(old, old + old_size)     # MREMAP_DONTUNMAP leaves empty anonymous pages
    return target


def sys_brk(proc, addr, *_):
    if addr and addr - proc.aspace.brk_start + proc.aspace.mapped > proc.rlimit(RLIMIT_AS):
        return proc.aspace.brk
    return proc.aspace.set_brk(addr) if addr else proc.aspace.brk


def sys_madvise(proc, addr, length, advice, *_):
    if addr & (PAGE - 1):
        return -E.EINVAL
    if advice in (MADV_DONTNEED, MADV_REMOVE, MADV_FREE) and length:
        # private anonymous pages read back as zeros afterwards
        end = addr + page_up(length)
        for v in proc.aspace.overlapping(addr, end):
            lo, hi = max(v.start, addr), min(v.end, end)
            if v.shm is not None:
                # shared pages keep their contents, unless a hole is punched in them
                if advice == MADV_REMOVE:
                    v.shm.zero(v.shm_off + lo - v.start, v.shm_off + hi - v.start)
                continue
            if not v.name or v.name.startswith("["):
                proc.aspace.discard(lo, hi)             # the host gets the pages back
    return 0


def sys_mlock(proc, *_):
    return 0
