"""Memory protection keys: pkey_alloc/pkey_free.

The emulated CPU does not offer protection keys (CPUID has no PKU, as Unicorn's x86 has
none), so, as Linux on such a CPU, there is no key to allocate: ENOSPC for a valid request
(node and V8 try one, then carry on without), EINVAL for bad flags or rights, and no key to
free. pkey_mprotect with key -1 is plain mprotect (mm.py).
"""
from __future__ import annotations

from emutrace.kernel import errno as E
from emutrace.linux.mman import PKEY_DISABLE_ACCESS, PKEY_DISABLE_WRITE


def sys_pkey_alloc(proc, flags, access_rights, *_):
    if flags or access_rights & ~(PKEY_DISABLE_ACCESS | PKEY_DISABLE_WRITE):
        return -E.EINVAL
    return -E.ENOSPC


def sys_pkey_free(proc, pkey, *_):
    return -E.EINVAL                 # no key was ever allocated
