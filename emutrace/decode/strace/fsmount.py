"""The new mount API (strace's fsconfig.c, mount_setattr.c): what fsconfig's key, value and aux
are depends on its command; struct mount_attr of mount_setattr and open_tree_attr."""
from __future__ import annotations

import struct

from emutrace.machine.words import s32
from emutrace.decode import xlat as _x
from emutrace.decode.strace.common import cstr_n, nonzero_tail, pointer, read_bytes
from emutrace.decode.strace.fields import StructText, enum, flags

# FSCONFIG_* (linux/mount.h)
SET_FLAG, SET_STRING, SET_BINARY, SET_PATH, SET_PATH_EMPTY, SET_FD = range(6)
_KEYED = frozenset((SET_FLAG, SET_STRING, SET_BINARY, SET_PATH, SET_PATH_EMPTY, SET_FD))
_BINARY_MAX = 1024 * 1024                 # strace prints a binary value up to this aux


def _c_fsconfig(f, st, mem):
    fd, cmd, key, value, aux = st.args[:5]
    cmd &= 0xffffffff
    aux = s32(aux)
    a = st.a
    a.now(f.fd(fd))
    a.now(_x.format_enum("fsconfig_cmds", cmd))
    a.now(cstr_n(f, mem, key, 256) if cmd in _KEYED else pointer(key))
    if cmd == SET_STRING:
        a.now(cstr_n(f, mem, value, 256))
    elif cmd in (SET_PATH, SET_PATH_EMPTY):
        a.now(f.path(mem, value))
    elif cmd == SET_BINARY and 0 <= aux <= _BINARY_MAX:
        a.now(f.buf(mem, value, aux, force_hex=True))
    else:
        a.now(pointer(value))
    if cmd in (SET_PATH, SET_PATH_EMPTY):
        a.now(f.dirfd(aux))
    elif cmd == SET_FD:
        a.now(f.fd(aux))
    else:
        a.now(str(aux))


MOUNT_ATTR_SIZE_VER0 = 32
MOUNT_ATTR_IDMAP = 0x100000
_INT_MAX = 0x7fffffff

MOUNT_ATTR = StructText("mount_attr", MOUNT_ATTR_SIZE_VER0, [
    ("attr_set", 0, "Q", flags("mount_attr_attr")), ("attr_clr", 8, "Q", flags("mount_attr_attr")),
    ("propagation", 16, "Q", enum("mount_attr_propagation")), ("userns_fd", 24, "Q")])


def mount_attr(f, mem, addr: int, size: int) -> str:
    """strace's print_mount_attr: the struct of `size` bytes (its address when smaller than the
    first version), userns_fd as a descriptor only when an ID mapping is asked for."""
    if size < MOUNT_ATTR_SIZE_VER0:
        return pointer(addr)
    data = read_bytes(mem, addr, MOUNT_ATTR_SIZE_VER0)
    if data is None:
        return pointer(addr)
    text = MOUNT_ATTR.text(data)
    attr_set, attr_clr, _, userns_fd = struct.unpack("<QQQQ", data)
    if userns_fd <= _INT_MAX and (attr_set | attr_clr) & MOUNT_ATTR_IDMAP:
        text = text[:text.rindex("userns_fd=")] + f"userns_fd={f.fd(userns_fd)}}}"
    if size > MOUNT_ATTR_SIZE_VER0:
        tail = nonzero_tail(f, mem, addr, MOUNT_ATTR_SIZE_VER0, size)
        if tail:
            text = text[:-1] + ", " + tail + "}"
    return text


def _c_dfd_file_flags_attr(flag_set):
    def decode(f, st, mem):
        dirfd, path, fl, attr, size = st.args[:5]
        a = st.a
        a.now(f.dirfd(dirfd))
        a.now(f.path(mem, path))
        a.now(_x.format_flags(flag_set, fl & 0xffffffff))
        a.now(mount_attr(f, mem, attr, size))
        a.now(str(size))
    return decode


CALLS = {"fsconfig": _c_fsconfig, "mount_setattr": _c_dfd_file_flags_attr("mount_setattr_flags"),
         "open_tree_attr": _c_dfd_file_flags_attr("open_tree_flags")}
