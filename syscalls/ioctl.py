"""ioctl: the descriptor-generic requests (FIONREAD, FIONBIO, FIOCLEX) and a terminal's."""
from __future__ import annotations

import shutil
import struct

from emutrace.kernel import errno as E
from emutrace.kernel.dispatch import s32
from emutrace.kernel.files import PipeEnd
from emutrace.linux.fcntl import O_NONBLOCK
from emutrace.kernel.layouts import TERMIOS, WINSIZE

TCGETS, TCSETS, TCSETSW, TCSETSF, TIOCGWINSZ, TIOCSWINSZ = 0x5401, 0x5402, 0x5403, 0x5404, 0x5413, 0x5414
TIOCGPGRP, TIOCSPGRP, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX, TCFLSH = 0x540F, 0x5410, 0x541B, 0x5421, 0x5451, 0x5450, 0x540B


_TERMIOS_DEFAULT = TERMIOS.pack(c_iflag=0x500, c_oflag=0x5, c_cflag=0xBF, c_lflag=0x8A3B, c_line=0,
                                c_cc=bytes([3, 28, 127, 21, 4, 0, 1, 0, 17, 19, 26, 0, 18, 15, 23, 22, 0, 0, 0]))


def sys_ioctl(proc, fd, req, arg, *_):
    f = proc.fds.get(s32(fd))
    req &= 0xFFFFFFFF
    if req == FIONREAD:
        if isinstance(f, PipeEnd):
            n = len(f.pipe.buf)
        elif hasattr(f, "pending_bytes"):           # an inotify instance: its queued events
            n = f.pending_bytes()
        elif f.seekable and f.kind == "file":
            n = max(0, f.size() - f.pos)
        else:
            n = 0
        proc.aspace.write_u32(arg, n)
        return 0
    if req == FIONBIO:
        on = struct.unpack("<i", proc.aspace.read(arg, 4))[0]
        f.flags = (f.flags | O_NONBLOCK) if on else (f.flags & ~O_NONBLOCK)
        return 0
    if req in (FIOCLEX, FIONCLEX):
        proc.fds.cloexec[s32(fd)] = req == FIOCLEX
        return 0
    if not f.isatty():
        return -E.ENOTTY
    if req == TCGETS:
        proc.aspace.write(arg, _TERMIOS_DEFAULT)
        return 0
    if req in (TCSETS, TCSETSW, TCSETSF, TCFLSH):
        return 0
    if req == TIOCGWINSZ:
        cols, rows = shutil.get_terminal_size((80, 24))
        proc.aspace.write(arg, WINSIZE.pack(ws_row=rows, ws_col=cols))
        return 0
    if req == TIOCGPGRP:
        proc.aspace.write_u32(arg, proc.pid)
        return 0
    if req in (TIOCSPGRP, TIOCSWINSZ):
        return 0
    return -E.ENOTTY
