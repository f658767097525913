"""emutrace: ltrace + strace + ftrace for x86-64 Linux programs, run inside the Unicorn emulator.

The Python API lives in emutrace.api; its main names are importable from here (loaded on first
use, so `emutrace diff` and `--help` do not pay for the emulator's imports):

    import emutrace
    r = emutrace.Session(["./prog"], capture_output=True).run()
"""
import os as _os
import sys as _sys

from emutrace.version import __version__  # noqa: F401  (the package's version)


def _source_tree_folders() -> None:
    """In a source tree used without installing it (a bare clone on sys.path), syscalls/ and
    loader/ beside this package are emutrace.kernel and emutrace.loader, as pyproject's
    package-dir installs them: a finder at the end of sys.meta_path maps the two names to the
    folders (and nothing else), so each module has its one name there too. An installed
    emutrace has emutrace/kernel/ and never asks it."""
    here = _os.path.dirname(_os.path.abspath(__file__))
    if _os.path.isdir(_os.path.join(here, "kernel")):
        return
    top = _os.path.dirname(here)
    folders = {f"{__name__}.kernel": _os.path.join(top, "syscalls"), f"{__name__}.loader": _os.path.join(top, "loader")}
    if not all(_os.path.isfile(_os.path.join(f, "__init__.py")) for f in folders.values()):
        return

    class SourceTreeFolders:
        @staticmethod
        def find_spec(name, path=None, target=None):
            folder = folders.get(name)
            if folder is None:
                return None
            from importlib.util import spec_from_file_location     # (only in a source tree)
            return spec_from_file_location(name, _os.path.join(folder, "__init__.py"),
                                           submodule_search_locations=[folder])

    if not any(getattr(f, "__name__", None) == "SourceTreeFolders" for f in _sys.meta_path):
        _sys.meta_path.append(SourceTreeFolders)       # (once, however often this runs)


_source_tree_folders()

_API = ("Session", "Result", "LibraryCall", "SystemCall", "GuestMemory", "EmutraceError", "ApiError",
        "ProgramNotFound", "CannotExecute", "LimitReached", "GuestMemoryError")

__all__ = list(_API)


def __getattr__(name):
    if name in _API:
        from emutrace import api     # deferred: `emutrace diff` and --help do not pay for the emulator
        return getattr(api, name)
    raise AttributeError(f"module 'emutrace' has no attribute {name!r}")
