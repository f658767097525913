"""Machine.emu_start with the GIL kept while the guest runs (emutrace/machine/gil.py, what the
`emutrace` command asks for) and released (the Python API's): the same errors, and the GIL
really kept, or really released, while guest code runs without hooks."""
from __future__ import annotations

import threading
import time

import pytest
from unicorn import UcError
from unicorn import unicorn_const as UCC

from emutrace.machine import gil
from emutrace.machine.cpu import Machine

CODE = 0x10000
# mov ecx, 100_000_000; 1: dec ecx; jnz 1b (the address after jnz is `until`): ~0.4 s or more
LOOP = b"\xb9\x00\xe1\xf5\x05" + b"\xff\xc9" + b"\x75\xfc"


@pytest.fixture(params=[False, True], ids=["released", "kept"])
def kept(request):
    before = gil.kept_while_running()
    gil.keep_while_running(request.param)
    yield request.param
    gil.keep_while_running(before)


def machine_with(code: bytes) -> Machine:
    m = Machine()
    m.uc.mem_map(CODE, 0x1000)
    m.uc.mem_write(CODE, code)
    return m


def test_runs_to_the_end(kept):
    m = machine_with(LOOP)
    m.emu_start(CODE, CODE + len(LOOP))
    assert m.reg("rcx") == 0


def test_unicorn_errors_are_raised(kept):
    m = machine_with(b"\x8b\x04\x25\x00\x00\x50\x00")        # mov eax, [0x500000]: unmapped
    with pytest.raises(UcError) as e:
        m.emu_start(CODE, CODE + 7)
    assert e.value.errno == UCC.UC_ERR_READ_UNMAPPED


def test_a_hooks_exception_is_raised(kept):
    m = machine_with(b"\x0f\xa2")                             # cpuid: the machine's own hook
    m.uc.hook_add(UCC.UC_HOOK_CODE, lambda *a: m._stop_with(KeyError("from the hook")), None, CODE, CODE)
    with pytest.raises(KeyError, match="from the hook"):
        m.emu_start(CODE, CODE + 2)


def test_other_threads_run_only_when_released(kept):
    """A loop without hooks: another Python thread runs all along when the GIL is released,
    and never while the guest runs when it is kept (it notes the time every 256 turns)."""
    m = machine_with(LOOP)
    m.emu_start(CODE, CODE + len(LOOP))                      # (translated once, before timing)
    stamps = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 256 == 0:
                stamps.append(time.monotonic())

    t = threading.Thread(target=count)
    t.start()
    try:
        time.sleep(0.05)
        started = time.monotonic()
        m.emu_start(CODE, CODE + len(LOOP))
        ended = time.monotonic()
    finally:
        stop.set()
        t.join()
    assert ended - started > 0.2, "the loop must run long enough to tell"
    # (after emu_start returns, the other thread may take the GIL for a switch interval or two
    # before `ended` is read: the last 50 ms do not count)
    inside = [s for s in stamps if started + 0.01 < s < ended - 0.05]
    assert (len(inside) == 0) == kept, (len(inside), ended - started)
