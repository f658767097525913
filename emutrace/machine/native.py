"""Which event path runs: the compiled one (emutrace.machine._native) or the pure-Python reference.

Both print the same bytes (tests/test_native_paths.py proves it on programs and on random
records). The compiled module is used when it was built and imports and its ABI is the one this
code expects; EMUTRACE_PURE=1 chooses pure Python. A module that is missing or does not load
falls back with one line on stderr, once per process: a trace is never lost to it. So does one
built from other C sources than those beside it (a source checkout changed after its build:
sourcedigest.py).
"""
from __future__ import annotations

import os
import sys
from typing import Optional

from emutrace.machine.abi import ABI_VERSION    # (the compiled module's own comes from the same file: _abi.h)
from emutrace.machine.sourcedigest import digest
PURE_ENV = "EMUTRACE_PURE"


def _chosen_pure() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


def _load():
    if _chosen_pure():
        return None, "pure Python (EMUTRACE_PURE=1)"
    try:
        from emutrace.machine import _native as mod     # deferred: EMUTRACE_PURE=1 must not load the compiled module at all
    except Exception as e:          # ImportError, or a broken build failing on load
        why = str(e).splitlines()[0] if str(e) else type(e).__name__
        print(f"emutrace: the compiled event path is not available ({why}); running pure Python",
              file=sys.stderr)
        return None, "pure Python (the compiled event path is not available)"
    if getattr(mod, "ABI_VERSION", None) != ABI_VERSION:
        print(f"emutrace: the compiled event path is stale (ABI {getattr(mod, 'ABI_VERSION', '?')}, "
              f"expected {ABI_VERSION}: reinstall emutrace); running pure Python", file=sys.stderr)
        return None, "pure Python (the compiled event path is stale)"
    built, sources = getattr(mod, "SOURCE_DIGEST", ""), digest()
    if sources is not None and built != sources:
        print("emutrace: the compiled event path was built from other C sources than those beside it "
              "(rebuild: pip install -e . or python setup.py build_ext --inplace); running pure Python",
              file=sys.stderr)
        return None, "pure Python (the compiled event path is older than its sources)"
    return mod, "compiled (emutrace.machine._native)"


native: Optional[object]
native, PATH = _load()          # the module or None; PATH: what `emutrace --version` says
