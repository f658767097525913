"""inotify: watches on files and directories, and the events guest processes cause.

What is watched is what the guest does: the calls of every guest process that create, open,
read, write, close, change, move or remove files (in the in-memory overlay, the tmpfs and --rw
grants alike) make the events Linux's fsnotify makes, with its masks, names, rename cookies,
coalescing of a repeated event, IN_IGNORED when a watch ends and IN_Q_OVERFLOW past
max_queued_events. Changes made on the host to the read-only root while the guest runs are not
watched: the sandbox does not look at the host's files for changes.

A watch names an inode (its number), so it follows its file through renames. The events come
from the system call layer: once the first inotify instance exists, the kernel's handlers for
the calls in EVENTS are wrapped to note what they did (a program that never uses inotify pays
nothing).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from emutrace.kernel import errno as E
from emutrace.kernel.anonfd import AnonInodeFile, install
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import WouldBlock
from emutrace.kernel.fs import guest_path, resolve_at
from emutrace.kernel.layouts import INOTIFY_EVENT
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import (AT_FDCWD, O_ACCMODE, O_CLOEXEC, O_CREAT, O_NONBLOCK, O_RDONLY, O_TRUNC, S_IFDIR)
from emutrace.linux.poll import (IN_ACCESS, IN_ATTRIB, IN_CLOSE_NOWRITE, IN_CLOSE_WRITE, IN_CREATE, IN_DELETE, IN_DELETE_SELF,
                                 IN_DONT_FOLLOW, IN_EXCL_UNLINK, IN_IGNORED, IN_ISDIR, IN_MASK_ADD, IN_MASK_CREATE, IN_MODIFY,
                                 IN_MOVED_FROM, IN_MOVED_TO, IN_MOVE_SELF, IN_ONESHOT, IN_ONLYDIR, IN_OPEN, IN_Q_OVERFLOW, IN_UNMOUNT,
                                 POLLIN)

IN_ALL_EVENTS = 0xFFF
IN_ADD_FLAGS = IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK | IN_MASK_CREATE | IN_MASK_ADD | IN_ONESHOT
IN_CLOEXEC, IN_NONBLOCK = O_CLOEXEC, O_NONBLOCK
# what Linux gives a user by default (/proc/sys/fs/inotify/*)
MAX_QUEUED_EVENTS, MAX_USER_INSTANCES, MAX_USER_WATCHES = 16384, 128, 8192


class Inotify(AnonInodeFile):
    kind = "inotify"
    link = "anon_inode:inotify"         # (Linux names it without brackets)

    def __init__(self, kernel, flags: int):
        super().__init__(kernel, flags & O_NONBLOCK)
        self.watches: Dict[int, Tuple[int, int]] = {}     # wd -> (inode, mask)
        self.by_inode: Dict[int, int] = {}                # inode -> wd
        self.next_wd = 1
        self.queue: List[bytes] = []
        self.hub = hub_of(kernel)
        self.hub.instances.append(self)

    # -- watches ------------------------------------------------------------------
    def add(self, ino: int, mask: int) -> int:
        wd = self.by_inode.get(ino)
        if wd is not None:
            if mask & IN_MASK_CREATE:
                raise VfsError(E.EEXIST)
            old = self.watches[wd][1]
            self.watches[wd] = (ino, (old | mask) if mask & IN_MASK_ADD else mask)
            return wd
        if self.hub.watch_count() >= MAX_USER_WATCHES:
            raise VfsError(E.ENOSPC)
        wd = self.next_wd
        self.next_wd += 1
        self.watches[wd] = (ino, mask)
        self.by_inode[ino] = wd
        return wd

    def remove(self, wd: int) -> None:
        ino, _ = self.watches.pop(wd)
        self.by_inode.pop(ino, None)
        self._queue(wd, IN_IGNORED, 0, "")

    # -- events ---------------------------------------------------------------------
    def notice(self, ino: int, mask: int, cookie: int, name: str) -> None:
        wd = self.by_inode.get(ino)
        if wd is None:
            return
        want = self.watches[wd][1]
        if not mask & want & IN_ALL_EVENTS:
            if mask & IN_DELETE_SELF:
                self.remove(wd)                  # the inode is gone: the watch ends anyway
            return
        self._queue(wd, mask & (want | IN_ISDIR), cookie, name)
        if want & IN_ONESHOT or mask & IN_DELETE_SELF:
            self.remove(wd)

    def _queue(self, wd: int, mask: int, cookie: int, name: str) -> None:
        raw = name.encode("utf-8", "surrogateescape")
        size = (len(raw) + 1 + 15) // 16 * 16 if raw else 0       # padded as Linux pads names
        rec = INOTIFY_EVENT.pack(wd=wd, mask=mask, cookie=cookie, len=size) + raw.ljust(size, b"\0")
        if self.queue and self.queue[-1] == rec:
            return                               # an event equal to the last unread one merges with it
        if len(self.queue) >= MAX_QUEUED_EVENTS:
            overflow = INOTIFY_EVENT.pack(wd=-1, mask=IN_Q_OVERFLOW, cookie=0, len=0)
            if self.queue[-1] != overflow:
                self.queue.append(overflow)
            return
        self.queue.append(rec)

    # -- the file --------------------------------------------------------------------
    def read(self, n: int) -> bytes:
        if not self.queue:
            raise WouldBlock()
        if len(self.queue[0]) > n:
            raise VfsError(E.EINVAL)             # the buffer cannot hold the next event
        out, used = [], 0
        while self.queue and used + len(self.queue[0]) <= n:
            rec = self.queue.pop(0)
            out.append(rec)
            used += len(rec)
        return b"".join(out)

    def write(self, data):
        raise VfsError(E.EINVAL)

    def ready(self) -> int:
        return POLLIN if self.queue else 0

    def pending_bytes(self) -> int:
        """FIONREAD: the bytes read would return now."""
        return sum(len(r) for r in self.queue)

    def close(self) -> None:
        if self in self.hub.instances:
            self.hub.instances.remove(self)
        super().close()


class InotifyHub:
    """Every inotify instance of the kernel, and the fan-out of events to them."""

    def __init__(self):
        self.instances: List[Inotify] = []
        self.cookie = 0
        self.hooked = False

    def watch_count(self) -> int:
        return sum(len(i.watches) for i in self.instances)

    def watched(self, ino: int) -> bool:
        return any(ino in i.by_inode for i in self.instances)

    def emit(self, ino: Optional[int], mask: int, cookie: int = 0, name: str = "") -> None:
        if ino is None:
            return
        for inst in list(self.instances):
            inst.notice(ino, mask, cookie, name)

    def emit_path(self, proc, path: str, mask: int, is_dir: bool, ino: Optional[int], cookie: int = 0) -> None:
        """An event on `path`: to a watch on its directory (with its name), then on itself."""
        if not self.instances:
            return
        extra = IN_ISDIR if is_dir else 0
        parent, _, name = path.rstrip("/").rpartition("/")
        pino = _ino(proc, parent or "/")
        if pino is not None and name:
            self.emit(pino, mask | extra, cookie, name)
        if ino is not None and ino != pino:
            self.emit(ino, mask | extra)

    def next_cookie(self) -> int:
        self.cookie = (self.cookie + 1) & 0xFFFFFFFF or 1
        return self.cookie


def hub_of(kernel) -> InotifyHub:
    if kernel.inotify is None:
        kernel.inotify = InotifyHub()
    return kernel.inotify


def _ino(proc, path: str) -> Optional[int]:
    try:
        return proc.kernel.vfs.lookup(path, "/").stat.ino
    except VfsError:
        return None


def _lookup(proc, dirfd, addr, follow=True):
    """(canonical path, inode, is a directory) of a path argument, or None when it names nothing."""
    try:
        path, node = resolve_at(proc, dirfd, addr, follow=follow, must_exist=False)
    except VfsError:
        return None
    if node is None:
        return path, None, False
    return path, node.stat.ino, node.stat.type == S_IFDIR


def _fd_file(proc, fd):
    return proc.fds.fds.get(s32(fd))


def _file_event(proc, f, mask: int) -> None:
    """An event on an open file: through its node (a pipe or socket has none: no event)."""
    if f is None or f.node is None:
        return
    hub = hub_of(proc.kernel)
    hub.emit_path(proc, f.path, mask, f.node.stat.type == S_IFDIR, f.node.stat.ino)


# -- what each call does, seen from inotify: before(proc, args) -> note; after(proc, args, note, ret)

def _before_open(dirfd_arg, path_arg, flags_arg):
    def before(proc, args):
        dirfd = args[dirfd_arg] if dirfd_arg is not None else AT_FDCWD
        return _lookup(proc, dirfd, args[path_arg])
    return before


def _after_open(flags_arg):
    def after(proc, args, note, ret):
        flags = args[flags_arg] if flags_arg is not None else (O_CREAT | O_TRUNC | 1)
        f = _fd_file(proc, ret)
        if f is None or f.node is None:
            return
        hub = hub_of(proc.kernel)
        existed = note is not None and note[1] is not None
        if not existed and flags & O_CREAT:
            hub.emit_path(proc, f.path, IN_CREATE, False, None)
        elif existed and flags & O_TRUNC and flags & O_ACCMODE != O_RDONLY:
            _file_event(proc, f, IN_MODIFY)
        _file_event(proc, f, IN_OPEN)
    return after


def _before_fd(fd_arg):
    def before(proc, args):
        return _fd_file(proc, args[fd_arg])
    return before


def _after_fd(mask, transfer=True):
    """An event on the fd's file; a read or write makes one only when it moved bytes."""
    def after(proc, args, f, ret):
        if ret > 0 or not transfer:
            _file_event(proc, f, mask)
    return after


def _before_close(proc, args):
    f = _fd_file(proc, args[0])
    return f if f is not None and f.refs == 1 else None        # only the last close is an event


def _after_close(proc, args, f, ret):
    if f is not None:
        _file_event(proc, f, IN_CLOSE_WRITE if f.writable else IN_CLOSE_NOWRITE)


def _before_path(dirfd_arg, path_arg, follow=True):
    def before(proc, args):
        dirfd = args[dirfd_arg] if dirfd_arg is not None else AT_FDCWD
        return _lookup(proc, dirfd, args[path_arg], follow=follow)
    return before


def _after_attrib(mask):
    def after(proc, args, note, ret):
        if note is not None and note[1] is not None:
            hub_of(proc.kernel).emit_path(proc, note[0], mask, note[2], note[1])
    return after


def _after_create(is_dir: bool):
    def after(proc, args, note, ret):
        if note is not None:
            hub_of(proc.kernel).emit_path(proc, note[0], IN_CREATE, is_dir, None)
    return after


def _after_remove(proc, args, note, ret):
    if note is None or note[1] is None:
        return
    path, ino, is_dir = note
    hub = hub_of(proc.kernel)
    # Linux's order: the link count changes (ATTRIB), the inode goes with its last name
    # (DELETE_SELF, the watch ends), then the directory hears of the name (DELETE)
    if not is_dir:
        hub.emit(ino, IN_ATTRIB)
    if is_dir or not (hub.watched(ino) and _other_name(proc, ino)):
        hub.emit(ino, IN_DELETE_SELF)
    hub.emit_path(proc, path, IN_DELETE, is_dir, None)


def _other_name(proc, ino: int) -> bool:
    """Does an overlay file still have this inode under another name (a hard link)?"""
    return any(ov.stat.ino == ino for ov in proc.kernel.vfs.overlay.values())


def _before_two_paths(olddir, oldpath, newdir, newpath):
    """What rename and link look at before they run: both names, not following a final link."""
    def before(proc, args):
        od = args[olddir] if olddir is not None else AT_FDCWD
        nd = args[newdir] if newdir is not None else AT_FDCWD
        return (_lookup(proc, od, args[oldpath], follow=False), _lookup(proc, nd, args[newpath], follow=False))
    return before


def _after_rename(proc, args, note, ret):
    src, dst = note
    if src is None or src[1] is None or dst is None:
        return
    hub = hub_of(proc.kernel)
    cookie = hub.next_cookie()
    hub.emit_path(proc, src[0], IN_MOVED_FROM, src[2], None, cookie)
    hub.emit_path(proc, dst[0], IN_MOVED_TO, src[2], None, cookie)
    replaced = dst[1] is not None and dst[1] != src[1]
    if replaced:
        hub.emit(dst[1], IN_ATTRIB)                      # the file the rename replaced lost its name
    hub.emit(src[1], IN_MOVE_SELF)
    if replaced:
        hub.emit(dst[1], IN_DELETE_SELF)                 # ... and is gone (Linux's fsnotify_move order)


def _after_link(proc, args, note, ret):
    src, dst = note
    if src is None or dst is None:
        return
    hub = hub_of(proc.kernel)
    hub.emit(src[1], IN_ATTRIB)
    hub.emit_path(proc, dst[0], IN_CREATE, False, None)


def _unlinkat_note(proc, args):
    return _lookup(proc, args[0], args[1], follow=False)


_FD_MODIFY = (_before_fd(0), _after_fd(IN_MODIFY))
_FD_ACCESS = (_before_fd(0), _after_fd(IN_ACCESS))

# syscall name -> (before, after): the events a successful call makes
EVENTS = {
    "open": (_before_open(None, 0, 1), _after_open(1)),
    "creat": (_before_open(None, 0, None), _after_open(None)),
    "openat": (_before_open(0, 1, 2), _after_open(2)),
    "read": _FD_ACCESS, "pread64": _FD_ACCESS, "readv": _FD_ACCESS, "preadv": _FD_ACCESS,
    "preadv2": _FD_ACCESS,
    "write": _FD_MODIFY, "pwrite64": _FD_MODIFY, "writev": _FD_MODIFY, "pwritev": _FD_MODIFY,
    "pwritev2": _FD_MODIFY, "ftruncate": (_before_fd(0), _after_fd(IN_MODIFY, transfer=False)),
    "fallocate": (_before_fd(0), _after_fd(IN_MODIFY, transfer=False)),
    "close": (_before_close, _after_close),
    # reading a directory is an access each time, even the read that finds its end
    "getdents64": (_before_fd(0), _after_fd(IN_ACCESS, transfer=False)),
    "getdents": (_before_fd(0), _after_fd(IN_ACCESS, transfer=False)),
    "truncate": (_before_path(None, 0), _after_attrib(IN_MODIFY)),
    "chmod": (_before_path(None, 0), _after_attrib(IN_ATTRIB)),
    "fchmodat": (_before_path(0, 1), _after_attrib(IN_ATTRIB)),
    "chown": (_before_path(None, 0), _after_attrib(IN_ATTRIB)),
    "lchown": (_before_path(None, 0, follow=False), _after_attrib(IN_ATTRIB)),
    "fchownat": (_before_path(0, 1), _after_attrib(IN_ATTRIB)),
    "utimensat": (_before_path(0, 1), _after_attrib(IN_ATTRIB)),
    "utime": (_before_path(None, 0), _after_attrib(IN_ATTRIB)),
    "utimes": (_before_path(None, 0), _after_attrib(IN_ATTRIB)),
    "fchmod": (_before_fd(0), _after_fd(IN_ATTRIB, transfer=False)),
    "fchown": (_before_fd(0), _after_fd(IN_ATTRIB, transfer=False)),
    "mkdir": (_before_path(None, 0, follow=False), _after_create(True)),
    "mkdirat": (_before_path(0, 1, follow=False), _after_create(True)),
    "mknod": (_before_path(None, 0, follow=False), _after_create(False)),
    "mknodat": (_before_path(0, 1, follow=False), _after_create(False)),
    "symlink": (_before_path(None, 1, follow=False), _after_create(False)),
    "symlinkat": (_before_path(1, 2, follow=False), _after_create(False)),
    "unlink": (_before_path(None, 0, follow=False), _after_remove),
    "rmdir": (_before_path(None, 0, follow=False), _after_remove),
    "unlinkat": (_unlinkat_note, _after_remove),
    "rename": (_before_two_paths(None, 0, None, 1), _after_rename),
    "renameat": (_before_two_paths(0, 1, 2, 3), _after_rename),
    "renameat2": (_before_two_paths(0, 1, 2, 3), _after_rename),
    "link": (_before_two_paths(None, 0, None, 1), _after_link),
    "linkat": (_before_two_paths(0, 1, 2, 3), _after_link),
}


def _wrap(handler, before, after):
    def observed(proc, *args):
        note = before(proc, args) if hub_of(proc.kernel).instances else None
        ret = handler(proc, *args)
        if isinstance(ret, int) and ret >= 0 and note is not None:
            after(proc, args, note, ret)
        return ret
    observed.__wrapped__ = handler
    return observed


def _hook(kernel) -> None:
    """Wrap this kernel's handlers of the calls in EVENTS (once, at the first inotify_init)."""
    hub = hub_of(kernel)
    if hub.hooked:
        return
    hub.hooked = True
    handlers = dict(kernel.handlers)          # this kernel's own table: the module's stays as it is
    for name, (before, after) in EVENTS.items():
        h = handlers.get(name)
        if h is not None:
            handlers[name] = _wrap(h, before, after)
    kernel.handlers = handlers


# ---------------------------------------------------------------------- system calls

def _init(proc, flags: int) -> int:
    if flags & ~(IN_CLOEXEC | IN_NONBLOCK):
        return -E.EINVAL
    hub = hub_of(proc.kernel)
    if len(hub.instances) >= MAX_USER_INSTANCES:
        return -E.EMFILE
    _hook(proc.kernel)
    return install(proc, Inotify(proc.kernel, flags), bool(flags & IN_CLOEXEC))


def sys_inotify_init(proc, *_):
    return _init(proc, 0)


def sys_inotify_init1(proc, flags, *_):
    return _init(proc, flags & 0xFFFFFFFF)


def _instance(proc, fd) -> Inotify:
    f = proc.fds.get(s32(fd))                  # EBADF
    if not isinstance(f, Inotify):
        raise VfsError(E.EINVAL)
    return f


def sys_inotify_add_watch(proc, fd, path, mask, *_):
    mask &= 0xFFFFFFFF
    inst = _instance(proc, fd)
    if not mask & IN_ALL_EVENTS:
        return -E.EINVAL
    if mask & IN_MASK_ADD and mask & IN_MASK_CREATE:
        return -E.EINVAL
    guest_path(proc, path)                      # EFAULT for a wild pointer
    _, node = resolve_at(proc, AT_FDCWD, path, follow=not mask & IN_DONT_FOLLOW)
    if mask & IN_ONLYDIR and node.stat.type != S_IFDIR:
        return -E.ENOTDIR
    return inst.add(node.stat.ino, mask & (IN_ALL_EVENTS | IN_ADD_FLAGS))


def sys_inotify_rm_watch(proc, fd, wd, *_):
    inst = _instance(proc, fd)
    wd = s32(wd)
    if wd not in inst.watches:
        return -E.EINVAL
    inst.remove(wd)
    return 0

