"""emutrace.kernel.handlers: the handler modules loaded at the guest's first call of theirs (LAZY).

Each check runs in a fresh interpreter: in this one, other tests have imported the modules."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import built, emutrace, native, status_of


def _fresh(code: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_lazy_names_exactly_the_rows_each_module_handles():
    found = _fresh(
        "import importlib, json, sys\n"
        "from emutrace.kernel import handlers as h\n"
        "from emutrace.kernel.dispatch import HANDLERS\n"
        "out = {'loaded_early': sorted(m for m in h.LAZY if f'emutrace.kernel.{m}' in sys.modules),\n"
        "       'stand_ins': sorted(n for n, f in HANDLERS.items() if hasattr(f, 'lazy_module')), 'rows': {}}\n"
        "for m in h.LAZY:\n"
        "    before = dict(HANDLERS)\n"
        "    h._bind(m)\n"
        "    out['rows'][m] = sorted(n for n, f in HANDLERS.items() if before.get(n) is not f)\n"
        "out['left'] = sorted(n for n, f in HANDLERS.items() if hasattr(f, 'lazy_module'))\n"
        "print(json.dumps(out))\n")
    from emutrace.kernel.handlers import LAZY
    assert found["loaded_early"] == []                 # (nothing else imports them first)
    assert found["stand_ins"] == sorted(n for names in LAZY.values() for n in names)
    assert found["rows"] == {m: sorted(names) for m, names in LAZY.items()}
    assert found["left"] == []


def test_a_first_call_loads_the_module_and_routes_the_kernel_to_it():
    """A kernel made before the load: its first socketpair() imports net and the kernel's routes
    then hold net's handler; a kernel whose handlers are its own copy (inotify's) has its
    stand-ins replaced too."""
    found = _fresh(
        "import json, sys\n"
        "from emutrace.kernel import handlers as h\n"
        "from emutrace.kernel.dispatch import HANDLERS\n"
        "class K:\n"
        "    def __init__(self, table): self.handlers = table\n"
        "    @property\n"
        "    def handlers(self): return self._h\n"
        "    @handlers.setter\n"
        "    def handlers(self, t): self._h = t; self.routes = dict(t)\n"
        "shared, own = K(HANDLERS), K(dict(HANDLERS))\n"
        "stand_in = HANDLERS['mincore']\n"
        "before = 'emutrace.kernel.residency' in sys.modules\n"
        "h._load('residency', own)\n"
        "after = 'emutrace.kernel.residency' in sys.modules\n"
        "real = HANDLERS['mincore']\n"
        "print(json.dumps({'before': before, 'after': after, 'replaced': real is not stand_in,\n"
        "    'own_routed': own.routes['mincore'] is real, 'own_copy': own.handlers['mincore'] is real,\n"
        "    'shared_still_stand_in': shared.routes['mincore'] is stand_in}))\n")
    assert found == {"before": False, "after": True, "replaced": True, "own_routed": True,
                     "own_copy": True, "shared_still_stand_in": True}


def test_programs_of_lazy_calls_run_as_natively():
    """Through the command, whose kernel starts with stand-ins: epoll, eventfd, socketpair."""
    for prog in ("epoll_events", "eventfd"):
        n = native([built(prog)])
        e = emutrace(["--no-trace", built(prog)])
        assert e.stderr == b""
        assert e.stdout.decode() == n.stdout.decode()
        assert status_of(e) == status_of(n)
