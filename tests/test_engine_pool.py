"""Retired exec engines reused with their translations (syscalls/engines.py's pool,
emutrace/machine/reuse.py): invisible to the guest and to every trace."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import built, native

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOOP = "i=0; while [ $i -lt 4 ]; do /bin/true; ls / >/dev/null; cat /etc/hostname; (:); i=$((i+1)); done"


def _run(args, pool: str, pure: bool = False, count_reuse: bool = False):
    """emutrace ARGS with the pool on ("1") or off ("0"); with count_reuse, the run's number of
    reused engines is printed last on stderr (emutrace.cli.main run in a child Python)."""
    env = dict(os.environ, EMUTRACE_ENGINE_POOL=pool)
    env.pop("EMUTRACE_PURE", None)
    if pure:
        env["EMUTRACE_PURE"] = "1"
    code = ("import sys\n"
            "from emutrace.kernel import engines as E\n"
             "made = []\n"
             "orig = E.Engines._reuse\n"
             "def counted(self, r):\n"
             "    made.append(1)\n"
             "    return orig(self, r)\n"
             "E.Engines._reuse = counted\n"
             "from emutrace.cli import main\n"
             "sys.argv = ['emutrace'] + sys.argv[1:]\n"
             "try:\n"
             "    main()\n"
             "finally:\n"
             "    sys.stderr.write('\\nREUSED %d\\n' % len(made))\n")
    return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=ROOT,
                          capture_output=True, timeout=600)


def _reused(p) -> int:
    return int(p.stderr.rsplit(b"REUSED ", 1)[1].split()[0])


@pytest.mark.parametrize("variant", ["pie", "static"])
@pytest.mark.parametrize("how", ["exec", "fork"])
def test_code_rewritten_across_exec_and_fork_like_native(variant, how):
    """Each generation writes other code at the same addresses (RWX stores, W^X, a file mapping
    the kernel fills, released pages) and execs itself (or runs in the next forked child of one
    parent): every generation runs its own bytes. (Without the digest check the file-filled code
    ran the previous generation's translation.)"""
    exe = built("execjit", variant)
    extra = ["fork"] if how == "fork" else []
    n = native([exe, *extra])
    assert n.returncode == 0 and b"gen 5 same 777" in n.stdout
    on = _run(["--no-trace", exe, *extra], "1")
    assert on.stdout == n.stdout, on.stderr.decode(errors="replace")[-2000:]
    assert _reused(on) >= 3          # (generations 2.. run on engines of earlier ones)


@pytest.mark.parametrize("mode", [
    ["-f"],
    ["-f", "--strace", "-ttt", "-T"],
    ["-f", "--ftrace"],
    ["-f", "--strace", "--pure"],
], ids=["ltrace", "strace", "ftrace", "pure"])
def test_traces_identical_with_pool_on_and_off(tmp_path, mode):
    """A shell loop of fork+exec, fork and pipelines: the trace, the output and the exit status are
    the same bytes with the pool on and off (times included: the clock follows the guest's work,
    which a kept translation does not change)."""
    pure = "--pure" in mode
    args = [a for a in mode if a != "--pure"]
    outs = {}
    for pool in ("1", "0"):
        trace = tmp_path / f"t{pool}"
        p = _run([*args, "-o", str(trace), "sh", "-c", LOOP], pool, pure=pure)
        assert p.returncode == 0, p.stderr.decode(errors="replace")[-2000:]
        outs[pool] = (p.stdout, trace.read_bytes(), _reused(p))
    assert outs["1"][:2] == outs["0"][:2]
    assert outs["1"][2] > 0 and outs["0"][2] == 0
