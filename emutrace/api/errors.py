"""The API's errors: EmutraceError's subclasses a caller may catch one by one.
"""
from __future__ import annotations

from emutrace.session import EmutraceError


class ApiError(EmutraceError):
    """A bad argument to the API, or a method called at the wrong time."""

    def __init__(self, message: str):
        super().__init__(message, 125)


class ProgramNotFound(EmutraceError):
    """The program (or its interpreter, or a library it needs) does not exist in the root."""


class CannotExecute(EmutraceError):
    """The program exists but cannot run: not ELF, wrong machine, not executable, malformed."""


class GuestMemoryError(EmutraceError):
    """A hook read or wrote guest memory that is not mapped with the needed permission."""

    def __init__(self, addr: int, what: str = "access"):
        super().__init__(f"cannot {what} guest memory at {addr:#x}", 125)
        self.addr = addr
