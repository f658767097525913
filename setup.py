"""The compiled event path (emutrace.machine._native), built where a C compiler exists.

Everything else about the package is in pyproject.toml. The extension is optional: without a
compiler, or when it fails to build, the install goes on and emutrace runs its pure-Python path
(saying so in one line on stderr; see emutrace/machine/native.py).
"""
import importlib.util
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _load(name):
    """A module of emutrace/machine loaded by its path (the package is not importable yet)."""
    path = Path(__file__).resolve().parent / "emutrace" / "machine" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_emutrace_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_abi_header():
    """emutrace/machine/_abi.h from emutrace/machine/abi.py, the one definition of what C and Python
    share."""
    _load("abi").write_header()


class optional_build_ext(build_ext):
    """build_ext that reports a missing compiler instead of failing the install (Extension's
    `optional` covers a failed compile, not a platform with no compiler at all)."""

    def run(self):
        write_abi_header()
        try:
            super().run()
        except Exception as e:          # (distutils' errors differ between setuptools versions)
            self.warn(f"emutrace.machine._native not built ({e}); emutrace will run its pure-Python path")


setup(
    ext_modules=[Extension("emutrace.machine._native",
                          ["emutrace/machine/_native.c", "emutrace/machine/_syscallhook.c", "emutrace/machine/_cover.c",
                           "emutrace/machine/_tlbfill.c", "emutrace/machine/_guestmem.c",
                           "emutrace/machine/_printfcap.c",
                           "emutrace/machine/_strace.c", "emutrace/machine/_insncount.c",
                           "emutrace/machine/_hookreg.c"],
                          depends=["emutrace/machine/_abi.h", "emutrace/machine/_module.h", "emutrace/machine/_textbuf.h", "emutrace/machine/_oprender.h", "emutrace/machine/_printftext.h", "emutrace/machine/_printfstore.h", "emutrace/machine/_printfitems.h", "emutrace/machine/abi.py", "emutrace/machine/_cover.h", "emutrace/machine/_u64table.h", "emutrace/machine/_sharedblocks.h", "emutrace/machine/_positions.h", "emutrace/machine/_uchook.h"],
                          # (the sources' digest: native.py finds a build older than its sources)
                          define_macros=[("SOURCE_DIGEST", '"%s"' % _load("sourcedigest").digest())],
                          optional=True),
                 # the interrupt: its own module, loaded on both event paths (machine/interrupt.py)
                 Extension("emutrace.machine._interrupt", ["emutrace/machine/_interrupt.c"], optional=True)],
    cmdclass={"build_ext": optional_build_ext},
)
