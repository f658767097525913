"""emutrace: ltrace + strace + ftrace for x86-64 Linux programs, run inside the Unicorn emulator.

The Python API lives in emutrace.api; its main names are importable from here (loaded on first
use, so `emutrace diff` and `--help` do not pay for the emulator's imports):

    import emutrace
    r = emutrace.Session(["./prog"], capture_output=True).run()
"""
from emutrace.version import __version__  # noqa: F401  (the package's version)

_API = ("Session", "Result", "LibraryCall", "SystemCall", "GuestMemory", "EmutraceError", "ApiError",
        "ProgramNotFound", "CannotExecute", "LimitReached", "GuestMemoryError")

__all__ = list(_API)


def __getattr__(name):
    if name in _API:
        from . import api     # deferred: `emutrace diff` and --help do not pay for the emulator
        return getattr(api, name)
    raise AttributeError(f"module 'emutrace' has no attribute {name!r}")
