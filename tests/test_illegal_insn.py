"""An instruction the CPU model lacks (AVX2 from -march=x86-64-v3): one `emutrace:` line names it,
its address and module and the CPU level modelled; the guest dies by SIGILL as it would on such
a CPU, emutrace with it; the report records it."""
from __future__ import annotations

import json
import re

import pytest

from conftest import STILL_DIR, built, emutrace


@pytest.mark.parametrize("pure", ["", "1"], ids=["compiled", "pure"])
def test_avx2_is_named(pure, tmp_path):
    prog = built("avx2")
    r = emutrace(["--no-trace", "--report", str(tmp_path / "r.json"), prog], cwd=STILL_DIR,
                 env={"EMUTRACE_PURE": pure})
    assert r.returncode == -4                       # SIGILL, as the guest
    err = r.stderr.decode()
    assert err.count("\n") == 1, err
    assert re.fullmatch(r"emutrace: illegal instruction `v\w+ [^`]*ymm[^`]*` at 0x[0-9a-f]+ "
                        rf"\({re.escape(prog)}\+0x[0-9a-f]+\): the CPU emutrace models is x86-64-v2 "
                        r"\(Unicorn 2\.1 has no AVX\); the program got SIGILL\n", err), err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["run"]["signal"] == 4
    assert [e["kind"] for e in report["errors"]] == ["illegal-instruction"]
