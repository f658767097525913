"""The Linux x86-64 ABI's constants, each declared once with its value and its name (strace's xlat
shape: the name is the value's spelling everywhere, in the kernel, the decoders and the report).

One module per subject (fcntl, signal, sched, mman, net, ipc, poll, resource, futex, prctl, auxv,
elf); each holds only `NAME = value` lines. The package sits below every other layer, imports
nothing, and is imported by name (`from emutrace.linux.fcntl import O_CLOEXEC`).

`VALUES` maps every name declared here to its value: decode/xlat.py's sets list a declared name
without a value and take it from here, so a flag's value is never written twice
(tests/test_linux_constants.py holds the tree to that).
"""
from __future__ import annotations

from typing import Dict

from emutrace.linux import auxv, elf, fcntl, futex, ipc, membarrier, mman, net, poll, prctl, resource, sched, signal

SUBJECTS = (auxv, elf, fcntl, futex, ipc, membarrier, mman, net, poll, prctl, resource, sched, signal)


def _declared(module) -> Dict[str, int]:
    return {k: v for k, v in vars(module).items() if k.isupper() and isinstance(v, int)}


VALUES: Dict[str, int] = {}
for _m in SUBJECTS:
    VALUES.update(_declared(_m))
