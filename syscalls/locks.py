"""Advisory file locks shared by every emulated process: POSIX record locks (fcntl F_SETLK,
F_SETLKW, F_GETLK), open-file-description locks (F_OFD_*) and BSD flock().

Owners follow Linux: a POSIX lock belongs to the descriptor table (`current->files`; so a forked
child does not inherit its parent's locks but sees them, and closing any descriptor of the file
drops all of the table's locks on it); an OFD lock and a flock belong to the open file
description and go when its last descriptor closes. A blocking F_SETLKW that would close a
cycle of POSIX owners waiting on each other fails with EDEADLK; flock has no such check (Linux
has none either): its waits that can never end are the scheduler's deadlock.
"""
from __future__ import annotations

import struct
import weakref
from typing import List

from emutrace.kernel import errno as E
from emutrace.kernel.files import CLOSE_HOOKS, OpenFile
from emutrace.kernel.wait import Block, Wait
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import (F_RDLCK, F_UNLCK, F_WRLCK, LOCK_EX, LOCK_NB, LOCK_SH, LOCK_UN, SEEK_CUR, SEEK_END, SEEK_SET)

FLOCK = struct.Struct("<hh4xqqi4x")          # struct flock: l_type, l_whence, l_start, l_len, l_pid
OFFSET_MAX = (1 << 63) - 1
TYPE_NAMES = {F_RDLCK: "read", F_WRLCK: "write"}


class Lock:
    __slots__ = ("owner", "ofd", "type", "start", "end", "pid")

    def __init__(self, owner, ofd: bool, type_: int, start: int, end: int, pid: int):
        self.owner, self.ofd, self.type, self.start, self.end, self.pid = owner, ofd, type_, start, end, pid

    def overlaps(self, start: int, end: int) -> bool:
        return self.start <= end and start <= self.end


class LockBook:
    """Every lock of the emulated system, by file (dev, ino)."""

    def __init__(self):
        self.records = {}          # (dev, ino) → [Lock]  (POSIX and OFD: one space, as on Linux)
        self.flocks = {}           # (dev, ino) → {OpenFile: LOCK_SH | LOCK_EX}
        self.waiting = {}          # POSIX owner → (Wait, [owners it waits for])

    @staticmethod
    def of(kernel) -> "LockBook":
        book = kernel.lockbook
        if book is None:
            book = kernel.lockbook = LockBook()
            BOOKS.add(book)
        return book

    # -- record locks -------------------------------------------------------------------
    def conflicts(self, key, owner, type_: int, start: int, end: int) -> List[Lock]:
        return [lk for lk in self.records.get(key, ()) if lk.owner is not owner and lk.overlaps(start, end)
                and (type_ == F_WRLCK or lk.type == F_WRLCK)]

    def place(self, key, new: Lock) -> None:
        """Put new in its owner's place over [start, end]: cut what it covers and merge touching
        locks of the same type (Linux keeps one lock per owner per contiguous same-type range).
        An F_UNLCK only cuts."""
        kept = []
        for lk in self.records.get(key, []):
            if lk.owner is not new.owner:
                kept.append(lk)
                continue
            touching = lk.start <= new.end + 1 and new.start <= lk.end + 1
            if touching and lk.type == new.type:
                new.start, new.end = min(new.start, lk.start), max(new.end, lk.end)
                continue
            if not lk.overlaps(new.start, new.end):
                kept.append(lk)
                continue
            if lk.start < new.start:
                kept.append(Lock(lk.owner, lk.ofd, lk.type, lk.start, new.start - 1, lk.pid))
            if lk.end > new.end:
                kept.append(Lock(lk.owner, lk.ofd, lk.type, new.end + 1, lk.end, lk.pid))
        if new.type != F_UNLCK:
            kept.append(new)
        kept.sort(key=lambda lk: (lk.start, lk.end))
        if kept:
            self.records[key] = kept
        else:
            self.records.pop(key, None)

    def would_deadlock(self, owner, blockers) -> bool:
        seen, todo = set(), [b for b in blockers]
        while todo:
            o = todo.pop()
            if o is owner:
                return True
            if id(o) in seen:
                continue
            seen.add(id(o))
            entry = self.waiting.get(o)
            if entry is not None and entry[0].thread.wait is entry[0]:      # still asleep on it
                todo.extend(entry[1])
        return False

    def release_owner(self, key, owner) -> None:
        locks = self.records.get(key)
        if locks:
            left = [lk for lk in locks if lk.owner is not owner]
            if left:
                self.records[key] = left
            else:
                del self.records[key]


def file_key(f: OpenFile):
    st = f.stat()
    return (st.dev, st.ino)


def lock_range(proc, f: OpenFile, whence: int, start: int, length: int):
    base = {SEEK_SET: 0, SEEK_CUR: f.pos}.get(whence)
    if whence == SEEK_END:
        base = f.size()
    if base is None:
        raise VfsError(E.EINVAL)
    first = base + start
    if length > 0:
        last = first + length - 1
    elif length == 0:
        last = OFFSET_MAX
    else:
        first, last = first + length, first - 1
    if first < 0 or last < first - 1:
        raise VfsError(E.EINVAL)
    if last > OFFSET_MAX:
        raise VfsError(E.EOVERFLOW)
    return first, last


def fcntl_lock(proc, f: OpenFile, cmd_get: bool, ofd: bool, wait: bool, arg: int) -> int:
    """F_GETLK/F_SETLK/F_SETLKW and their F_OFD_ forms on the struct flock at arg."""
    fl = FLOCK.unpack(proc.aspace.read(arg, FLOCK.size))
    type_, whence, start, length, pid = fl
    if type_ not in (F_RDLCK, F_WRLCK, F_UNLCK):
        return -E.EINVAL
    if ofd and pid != 0:
        return -E.EINVAL
    first, last = lock_range(proc, f, whence, start, length)
    book = LockBook.of(proc.kernel)
    key = file_key(f)
    owner = f if ofd else proc.fds
    if cmd_get:
        if type_ == F_UNLCK:
            return -E.EINVAL
        found = book.conflicts(key, owner, type_, first, last)
        if not found:
            proc.aspace.write(arg, struct.pack("<h", F_UNLCK))
            return 0
        lk = found[0]
        length = 0 if lk.end == OFFSET_MAX else lk.end - lk.start + 1
        proc.aspace.write(arg, FLOCK.pack(lk.type, SEEK_SET, lk.start, length, -1 if lk.ofd else lk.pid))
        return 0
    if type_ == F_RDLCK and not f.readable or type_ == F_WRLCK and not f.writable:
        return -E.EBADF
    if type_ != F_UNLCK:
        found = book.conflicts(key, owner, type_, first, last)
        if found:
            if not wait:
                return -E.EAGAIN
            blockers = [lk.owner for lk in found]
            if not ofd and book.would_deadlock(owner, blockers):
                return -E.EDEADLK
            w = Wait("lock", f"a {TYPE_NAMES[type_]} lock on {f.path}", proc.thread,
                     ready=lambda: not book.conflicts(key, owner, type_, first, last), restart="sys")
            if not ofd:
                book.waiting[owner] = (w, blockers)
            raise Block(w)
    if not ofd:
        book.waiting.pop(owner, None)
    book.place(key, Lock(owner, ofd, type_, first, last, proc.pid))
    return 0


def flock(proc, f: OpenFile, op: int) -> int:
    kind = op & ~LOCK_NB
    if kind not in (LOCK_SH, LOCK_EX, LOCK_UN):
        return -E.EINVAL
    book = LockBook.of(proc.kernel)
    key = file_key(f)
    held = book.flocks.setdefault(key, {})
    if kind == LOCK_UN:
        held.pop(f, None)
        return 0

    def free() -> bool:
        return all(o is f or (kind == LOCK_SH and k == LOCK_SH) for o, k in held.items())
    if not free():
        if op & LOCK_NB:
            return -E.EWOULDBLOCK
        held.pop(f, None)                 # Linux drops the old lock before it waits to convert
        raise Block(Wait("lock", f"flock on {f.path}", proc.thread, ready=free, restart="sys"))
    held[f] = kind
    return 0


def on_close(table, f: OpenFile) -> None:
    """A descriptor of f was closed by table: the table's POSIX locks on the file go (whichever
    descriptor took them); when it was f's last descriptor, f's OFD locks and flock go too."""
    books = [b for b in BOOKS if b.records or b.flocks]
    if not books:
        return
    try:
        key = file_key(f)
    except (VfsError, OSError, ValueError):
        return
    for book in books:
        book.release_owner(key, table)
        if f.refs <= 0:
            book.release_owner(key, f)
            held = book.flocks.get(key)
            if held is not None:
                held.pop(f, None)
                if not held:
                    del book.flocks[key]


BOOKS = weakref.WeakSet()              # the lock books of the kernels alive in this process


CLOSE_HOOKS.append(on_close)
