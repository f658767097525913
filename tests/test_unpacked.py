"""Unpacked code (memory the program wrote and then ran, machine/codewatch.py) and YARA over it
(--yara): bins/packer.c decodes an XOR-packed payload into fresh memory and calls it. The report
must name the region with the payload's sha256 and the instruction that wrote it; --dump-dropped
must write it; a YARA rule for the payload must match the region and not the packed file."""
from __future__ import annotations

import hashlib
import json
import subprocess

import importlib.util

import pytest

from conftest import built, emutrace

PIE_BIAS = 0x555555554000
RULE = """
rule packer_payload {
  strings:
    $marker = "EMUTRACE-PAYLOAD-MARKER-7f3a"
    $code = { b8 2a 00 00 00 c3 }
  condition:
    $marker and $code at 0
}
"""


def _report(tmp_path, extra=(), env=None):
    out = tmp_path / "r.json"
    p = emutrace(["--no-trace", "--report", str(out), *extra, built("packer")], cwd=str(tmp_path), env=env)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout == b"payload says 42\n"
    return json.loads(out.read_text())


def _payload() -> bytes:
    return subprocess.run([built("packer"), "--print-payload"], capture_output=True, check=True).stdout


def _main_range(exe: str):
    out = subprocess.run(["nm", "-S", exe], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == "main":
            return int(f[0], 16), int(f[0], 16) + int(f[1], 16)
    pytest.skip("no size for main in nm's output")


@pytest.mark.parametrize("pure", ["0", "1"], ids=["compiled", "pure"])
def test_packer_region_is_named(tmp_path, pure):
    doc = _report(tmp_path, ("--dump-dropped", str(tmp_path / "drops")), env={"EMUTRACE_PURE": pure})
    payload = _payload()
    assert len(doc["unpacked"]) == 1
    u = doc["unpacked"][0]
    assert u["sha256"] == hashlib.sha256(payload).hexdigest() and u["size"] == len(payload)
    assert u["pattern"] == "unpack" and u["writer_module"] == doc["target"]["path"]
    # the writer is the decode loop's store in main (a PIE, at emutrace's fixed load bias)
    lo, hi = _main_range(built("packer"))
    assert PIE_BIAS + lo <= u["writer"] < PIE_BIAS + hi, (hex(u["writer"]), hex(lo))
    assert u["entry"] == u["address"]                          # called at its first byte
    ev = next(e for e in doc["events"] if e["id"] == u["event"])
    assert ev["name"] == "code-unpacked" and ev["sha256"] == u["sha256"]
    names = [f["name"] for f in doc["findings"]]
    assert names == ["unpacked-code"]                          # the permission guess gave way
    dumped = (tmp_path / "drops" / "code" / u["sha256"]).read_bytes()
    assert dumped == payload
    index = json.loads((tmp_path / "drops" / "code" / "index.json").read_text())
    assert index[0]["sha256"] == u["sha256"]


def test_benign_program_has_no_unpacked_code(tmp_path):
    out = tmp_path / "r.json"
    p = emutrace(["--no-trace", "--report", str(out), "/usr/bin/python3", "-c", "import json; print(1)"])
    assert p.returncode == 0, p.stderr.decode()
    doc = json.loads(out.read_text())
    assert doc["unpacked"] == [] and not [f for f in doc["findings"] if f["category"] == "dynamic-code"]


def test_yara_matches_the_region_not_the_packed_file(tmp_path):
    pytest.importorskip("yara_x", reason="--yara needs yara-x (pip install 'emutrace[yara]')")
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "payload.yar").write_text(RULE)
    doc = _report(tmp_path, ("--yara", str(rules)))
    y = doc["yara"]
    assert y["rules"] == str(rules) and y["scanned"] >= 3
    where = {m["where"] for m in y["matches"] if m["rule"] == "packer_payload"}
    assert where == {"unpacked", "memory"}                     # never "sample": the file is packed
    region = next(m for m in y["matches"] if m["where"] == "unpacked")
    assert region["sha256"] == doc["unpacked"][0]["sha256"]
    assert {"identifier": "$code", "offset": 0, "length": 6} in region["strings"]
    text = emutrace(["report", str(tmp_path / "r.json")]).stdout.decode()
    assert "packer_payload in unpacked" in text
    p = emutrace(["report", "--html", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html")])
    page = (tmp_path / "r.html").read_text()
    assert p.returncode == 0 and "<code>packer_payload</code>" in page and doc["unpacked"][0]["sha256"] in page


def test_yara_bad_rules_and_missing_binding(tmp_path, monkeypatch):
    bad = tmp_path / "bad.yar"
    bad.write_text("rule x { condition: nope }")
    p = emutrace(["--no-trace", "--report", str(tmp_path / "r.json"), "--yara", str(bad), "/bin/true"])
    have_yara = importlib.util.find_spec("yara_x") is not None
    # bad rules are named as such where yara-x is installed, and its absence is named where not
    assert p.returncode == 125 and p.stderr.decode().startswith(
        "emutrace: --yara: " if have_yara else "emutrace: --yara needs the yara-x package"), p.stderr
    assert b"Traceback" not in p.stderr and len(p.stderr.splitlines()) == 1
    p = emutrace(["--no-trace", "--yara", str(bad), "/bin/true"])
    assert p.returncode == 125 and b"--report" in p.stderr
    # without yara-x: one line saying how to get it
    import sys
    from emutrace.report import yarascan
    from emutrace.errors import EmutraceError
    monkeypatch.setitem(sys.modules, "yara_x", None)
    with pytest.raises(EmutraceError) as e:
        yarascan.Yara(str(bad))
    assert "pip install 'emutrace[yara]'" in str(e.value) and e.value.status == 125


def test_the_watch_holds_its_address_space_weakly():
    """The watch refers to its address space weakly, and the hooks registry (which outlives every
    process) holds nothing of either: the watch adds no reference that could keep an address
    space's host memory alive after its process (AddressSpace.leave gives that memory back)."""
    import gc
    from emutrace.machine.cpu import Machine
    from emutrace.machine.memory import AddressSpace
    from emutrace.machine.phases import Hooks
    m = Machine()
    a = AddressSpace(m.uc, 64 << 20)
    hooks = Hooks()
    a.watch_code(hooks)
    a.map(0x10000, 0x4000, 3)
    a.write(0x10000, b"\x90\xc3")
    assert a.code_watch.written == {0x10000: None}         # a write on the guest's behalf
    w = a.code_watch
    holders = gc.get_referrers(a)
    assert not any(h is w or h is vars(w) for h in holders)
    assert not any(x is a or x is w for x in gc.get_referents(hooks)) and hooks.wants("code_unpacked") is False
