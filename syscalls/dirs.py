"""Directories and names: getdents, getcwd/chdir, mkdir, unlink, rename, symlink, link, readlink,
and the attributes of a name (access, chmod, chown, umask, utimensat)."""
from __future__ import annotations

import os
import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32, s64
from emutrace.kernel.files import DirFile
from emutrace.kernel.fs import guest_path, resolve_at, permitted
from emutrace.linux.fcntl import (AT_FDCWD, AT_SYMLINK_NOFOLLOW, AT_REMOVEDIR, AT_SYMLINK_FOLLOW, AT_EMPTY_PATH, W_OK,
                                  X_OK)
from emutrace.kernel.layouts import DIRENT64, TIMESPEC
from emutrace.kernel.vfs import VfsError
from emutrace.linux.fcntl import S_IFMT


def _dirent64(raw: bytes, ino: int, off: int, dtype: int):
    """linux_dirent64: the type before the name."""
    reclen = (DIRENT64.size + len(raw) + 1 + 7) & ~7
    rec = DIRENT64.pack(d_ino=ino, d_off=off, d_reclen=reclen, d_type=dtype) + raw
    return reclen, rec + b"\0" * (reclen - len(rec))


def _dirent(raw: bytes, ino: int, off: int, dtype: int):
    """The old linux_dirent: the type in the record's last byte, after the name's NUL."""
    reclen = (18 + len(raw) + 2 + 7) & ~7
    rec = struct.pack("<QqH", ino, off, reclen) + raw + b"\0"
    return reclen, rec + b"\0" * (reclen - len(rec) - 1) + bytes([dtype])


def _getdents(proc, fd, buf, count, record):
    """Fill buf with whole records from the directory's position; EINVAL when not even one fits."""
    f = proc.fds.get(s32(fd))
    if not isinstance(f, DirFile):
        return -E.ENOTDIR
    entries = f.listing()
    out = bytearray()
    while f.pos < len(entries):
        name, dtype, ino = entries[f.pos]
        reclen, rec = record(name.encode("utf-8", "surrogateescape"), ino or 1, f.pos + 1, dtype)
        if len(out) + reclen > count:
            if not out:
                return -E.EINVAL
            break
        out += rec
        f.pos += 1
    proc.aspace.write(buf, bytes(out))
    return len(out)


def sys_getdents64(proc, fd, buf, count, *_):
    return _getdents(proc, fd, buf, count, _dirent64)


def sys_getdents(proc, fd, buf, count, *_):
    return _getdents(proc, fd, buf, count, _dirent)


def sys_getcwd(proc, buf, size, *_):
    raw = proc.cwd.encode("utf-8", "surrogateescape") + b"\0"
    if size < len(raw):
        return -E.ERANGE
    proc.aspace.write(buf, raw)
    return len(raw)


def sys_chdir(proc, path, *_):
    p, node = resolve_at(proc, AT_FDCWD, path)
    if not node.is_dir:
        return -E.ENOTDIR
    if not permitted(proc, node.stat, X_OK):
        return -E.EACCES
    proc.cwd = p
    return 0


def sys_fchdir(proc, fd, *_):
    f = proc.fds.get(s32(fd))
    if f.node is None or not f.node.is_dir:
        return -E.ENOTDIR
    proc.cwd = f.path
    return 0


def sys_chroot(proc, *_):
    return -E.EPERM


def new_path(proc, dirfd, addr) -> str:
    """The canonical path for a name about to be created (EEXIST if something is there)."""
    p, node = resolve_at(proc, dirfd, addr, follow=False, must_exist=False)
    if node is not None:
        raise VfsError(E.EEXIST)
    return p


def _mkdir(proc, dirfd, path, mode):
    proc.kernel.vfs.mkdir(new_path(proc, dirfd, path), mode & ~proc.umask)
    return 0


def sys_mkdir(proc, path, mode, *_):
    return _mkdir(proc, AT_FDCWD, path, mode)


def sys_mkdirat(proc, dirfd, path, mode, *_):
    return _mkdir(proc, dirfd, path, mode)


def sys_mknod(proc, *_):
    return -E.EPERM


def _unlink(proc, dirfd, path, flags):
    p, node = resolve_at(proc, dirfd, path, follow=False)
    proc.kernel.vfs.remove(node, is_dir=bool(flags & AT_REMOVEDIR))
    return 0


def sys_unlink(proc, path, *_):
    return _unlink(proc, AT_FDCWD, path, 0)


def sys_rmdir(proc, path, *_):
    return _unlink(proc, AT_FDCWD, path, AT_REMOVEDIR)


def sys_unlinkat(proc, dirfd, path, flags, *_):
    return _unlink(proc, dirfd, path, flags)


def _rename(proc, olddir, old, newdir, new, flags=0):
    _, src = resolve_at(proc, olddir, old, follow=False)
    dst_path, dst = resolve_at(proc, newdir, new, follow=False, must_exist=False)
    if flags & 1 and dst is not None:        # RENAME_NOREPLACE
        return -E.EEXIST
    if src.path == dst_path:
        return 0
    proc.kernel.vfs.rename(src, dst_path)
    return 0


def sys_rename(proc, old, new, *_):
    return _rename(proc, AT_FDCWD, old, AT_FDCWD, new)


def sys_renameat(proc, od, old, nd, new, *_):
    return _rename(proc, od, old, nd, new)


def sys_renameat2(proc, od, old, nd, new, flags, *_):
    return _rename(proc, od, old, nd, new, flags)


def _symlink(proc, target, dirfd, path):
    tgt = guest_path(proc, target)
    proc.kernel.vfs.symlink(tgt, new_path(proc, dirfd, path))
    return 0


def sys_symlink(proc, target, path, *_):
    return _symlink(proc, target, AT_FDCWD, path)


def sys_symlinkat(proc, target, dirfd, path, *_):
    return _symlink(proc, target, dirfd, path)


def _link(proc, od, old, nd, new, flags):
    _, src = resolve_at(proc, od, old, follow=bool(flags & AT_SYMLINK_FOLLOW), empty_ok=bool(flags & AT_EMPTY_PATH))
    proc.kernel.vfs.link(src, new_path(proc, nd, new))
    return 0


def sys_link(proc, old, new, *_):
    return _link(proc, AT_FDCWD, old, AT_FDCWD, new, 0)


def sys_linkat(proc, od, old, nd, new, flags, *_):
    return _link(proc, od, old, nd, new, flags)


def _readlink(proc, dirfd, path, buf, size):
    if s64(size) <= 0:
        return -E.EINVAL
    _, node = resolve_at(proc, dirfd, path, follow=False)
    if not node.is_link:
        return -E.EINVAL
    raw = proc.kernel.vfs.readlink_node(node).encode("utf-8", "surrogateescape")[:size]
    proc.aspace.write(buf, raw)
    return len(raw)


def sys_readlink(proc, path, buf, size, *_):
    return _readlink(proc, AT_FDCWD, path, buf, size)


def sys_readlinkat(proc, dirfd, path, buf, size, *_):
    return _readlink(proc, dirfd, path, buf, size)


def _access(proc, dirfd, path, mode, flags):
    if mode & ~7:
        return -E.EINVAL
    _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW, empty_ok=bool(flags & AT_EMPTY_PATH))
    if mode == 0:
        return 0
    if mode & W_OK and node.host is not None and not node.writable_host and node.ov is None:
        pass        # the overlay makes root files writable, as the guest's permissions allow
    return 0 if permitted(proc, node.stat, mode) else -E.EACCES


def sys_access(proc, path, mode, *_):
    return _access(proc, AT_FDCWD, path, mode, 0)


def sys_faccessat(proc, dirfd, path, mode, *_):
    return _access(proc, dirfd, path, mode, 0)


def sys_faccessat2(proc, dirfd, path, mode, flags, *_):
    return _access(proc, dirfd, path, mode, flags)


def _set_attr(proc, node, **changes):
    node = proc.kernel.vfs.writable(node)
    if node.ov is None and node.writable_host:
        proc.kernel.vfs.host_journal.changing(node.path, node.host)
        try:
            if "mode" in changes:
                os.chmod(node.host, changes["mode"] & 0o7777)
        except OSError:
            pass
        return 0
    st = node.stat
    for k, v in changes.items():
        if k == "mode":
            st.mode = (st.mode & S_IFMT) | (v & 0o7777)
        elif v is not None and v != 0xFFFFFFFF:
            setattr(st, k, v)
    st.ctime_ns = proc.kernel.world.realtime_ns()
    return 0


def sys_chmod(proc, path, mode, *_):
    return _set_attr(proc, resolve_at(proc, AT_FDCWD, path)[1], mode=mode)


def sys_fchmodat(proc, dirfd, path, mode, *_):
    return _set_attr(proc, resolve_at(proc, dirfd, path)[1], mode=mode)


def sys_fchmod(proc, fd, mode, *_):
    f = proc.fds.get(s32(fd))
    return _set_attr(proc, f.node, mode=mode) if f.node else -E.EINVAL


def _chown(proc, node, uid, gid):
    if proc.kernel.world.uid != 0:
        if (uid != 0xFFFFFFFF and uid != node.stat.uid) or node.stat.uid != proc.kernel.world.uid:
            return -E.EPERM
    return _set_attr(proc, node, uid=uid & 0xFFFFFFFF, gid=gid & 0xFFFFFFFF)


def sys_chown(proc, path, uid, gid, *_):
    return _chown(proc, resolve_at(proc, AT_FDCWD, path, follow=False)[1], uid, gid)


def sys_fchownat(proc, dirfd, path, uid, gid, flags, *_):
    return _chown(proc, resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW,
                                   empty_ok=bool(flags & AT_EMPTY_PATH))[1], uid, gid)


def sys_fchown(proc, fd, uid, gid, *_):
    f = proc.fds.get(s32(fd))
    return _chown(proc, f.node, uid, gid) if f.node else -E.EINVAL


def sys_umask(proc, mask, *_):
    old, proc.umask = proc.umask, mask & 0o777
    return old


UTIME_NOW, UTIME_OMIT = (1 << 30) - 1, (1 << 30) - 2


def sys_utimensat(proc, dirfd, path, times, flags, *_):
    if path:
        _, node = resolve_at(proc, dirfd, path, follow=not flags & AT_SYMLINK_NOFOLLOW)
    else:
        node = proc.fds.get(s32(dirfd)).node
    now = proc.kernel.world.realtime_ns()
    vals = [now, now]
    if times:
        for i in range(2):
            ts = TIMESPEC.unpack(proc.aspace.read(times + 16 * i, 16))
            if ts["tv_nsec"] == UTIME_OMIT:
                vals[i] = None
            elif ts["tv_nsec"] != UTIME_NOW:
                if not 0 <= ts["tv_nsec"] < 10**9:
                    return -E.EINVAL
                vals[i] = ts["tv_sec"] * 10**9 + ts["tv_nsec"]
    changes = {}
    if vals[0] is not None:
        changes["atime_ns"] = vals[0]
    if vals[1] is not None:
        changes["mtime_ns"] = vals[1]
    return _set_attr(proc, node, **changes)


def sys_utimes(proc, *_):
    return 0
