"""The run under an API session: its captured standard streams (_Capture, _Input), the core Run
whose first process gets them (_Core), and the sink that hands events to the API (_Sink).
"""
from __future__ import annotations

from typing import TYPE_CHECKING
from emutrace.kernel import errno as _E
from emutrace.kernel.files import OpenFile
from emutrace.kernel.vfs import StatInfo, VfsError
from emutrace.events import Call
from emutrace.session import Run
from emutrace.linux.fcntl import O_RDONLY, O_WRONLY, S_IFIFO

if TYPE_CHECKING:
    from emutrace.api import Session


class _Capture(OpenFile):
    """The guest's stdout or stderr going to a buffer instead of the host's."""
    kind = "stream"
    seekable = False

    def __init__(self, path: str, buf: bytearray):
        super().__init__(path, O_WRONLY, None)
        self.buf = buf

    def write(self, data):
        if not self.writable:
            raise VfsError(_E.EBADF)
        self.buf += data
        return len(data)

    def pread(self, n, off):
        raise VfsError(_E.ESPIPE)

    def pwrite(self, data, off):
        raise VfsError(_E.ESPIPE)

    def seek(self, off, whence):
        raise VfsError(_E.ESPIPE)

    def stat(self):
        return StatInfo(mode=S_IFIFO | 0o600, ino=0xE0001, dev=0xC, blksize=4096)


class _Input(_Capture):
    """The guest's stdin read from bytes the caller gave."""

    def __init__(self, data: bytes):
        OpenFile.__init__(self, "pipe:[stdin]", O_RDONLY, None)
        self.data = bytes(data)
        self.off = 0

    def read(self, n):
        if not self.readable:
            raise VfsError(_E.EBADF)
        chunk = self.data[self.off:self.off + n]
        self.off += len(chunk)
        return chunk

    def write(self, data):
        raise VfsError(_E.EBADF)


class _Core(Run):
    """emutrace.session.Run whose first process gets the API's standard streams."""

    def __init__(self, argv, world, options, program, streams):
        self._api_streams = streams
        super().__init__(argv, world=world, options=options, program=program)

    def _initial_process(self):
        proc = super()._initial_process()
        for fd, f in self._api_streams.items():
            proc.fds.install(f, at=fd)
        return proc


class _Cancelled(BaseException):
    """Ends a run whose events() generator was closed early."""


class _Sink:
    """Receives every trace event (as the CLI's formatters do): counts, callbacks, formatters."""

    def __init__(self, api: "Session"):
        self.api = api

    def event(self, ev) -> None:
        api = self.api
        api._n_events += 1
        if isinstance(ev, Call):
            api._call_counts[ev.name] += 1
        for fn in api._event_fns:
            fn(ev)

    def close(self) -> None:
        pass
