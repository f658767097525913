"""emutrace's own GOT resolution equals what ld.so wrote, slot for slot (interp mode)."""
import struct

import pytest
from unicorn import UC_HOOK_CODE

from emutrace.session import Options, Run
from emutrace.kernel.world import World
from emutrace.loader.resolve import GotResolver


class CheckAtEntry:
    """At the program's entry ld.so has relocated everything: compare every function slot."""

    def __init__(self):
        self.checked = 0
        self.mismatches = []
        self.done = False

    def started(self, proc):
        entry = proc.modules[0].elf.entry + proc.modules[0].base
        proc.machine.uc.hook_add(UC_HOOK_CODE, self.at_entry, proc, entry, entry)

    def at_entry(self, uc, addr, size, proc):
        if self.done:
            return
        self.done = True
        resolver = GotResolver(proc.modules)
        for m in proc.modules:
            if m is proc.modules[1] and m.elf.interp is None and not m.elf.needed:
                continue                      # ld.so relocates itself before anything else
            for slot in resolver.slots(m):
                got = struct.unpack("<Q", proc.machine.read(slot.address, 8))[0]
                self.checked += 1
                if slot.definer is None:
                    ok = got == 0 or m.contains(got)
                elif slot.ifunc:
                    # glibc's time and gettimeofday resolvers pick the vDSO's function, as on Linux
                    ok = slot.definer.contains(got) or in_vdso(proc, got)
                else:
                    ok = got == slot.value
                if not ok:
                    self.mismatches.append((m.name, slot.name, slot.version, hex(got),
                                            slot.definer.name if slot.definer else None))


def in_vdso(proc, addr: int) -> bool:
    vma = proc.aspace.find(addr)
    return vma is not None and vma.name == "[vdso]"


@pytest.mark.parametrize("argv", [["/bin/ls", "/"], ["/usr/bin/python3", "-c", "import json"]])
def test_resolution_equals_ld_so(argv):
    world = World()
    world.env["LD_BIND_NOW"] = "1"           # make ld.so fill every slot before the entry
    s = Run(argv, world=world, options=Options(cwd="/"))
    check = CheckAtEntry()
    s.add_observer(check)
    s.start()
    r = s.run()
    assert r.status == 0
    assert len(s.processes[0].modules) >= 3
    assert check.checked > 100
    assert not check.mismatches, check.mismatches[:10]
