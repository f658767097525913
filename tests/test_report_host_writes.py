"""The report's host side (emutrace/report/hostwrites.py, syscalls/hostjournal.py): files the run
created, changed or removed through --rw grants are dropped files with where "host", and signals
of processes that are not traced are in `signals` too."""
from __future__ import annotations

import hashlib
import json

import pytest

from conftest import emutrace

jsonschema = pytest.importorskip("jsonschema", reason="the report schema is checked with jsonschema")

from emutrace.report.schema import load_schema  # noqa: E402

SCRIPT = """
echo new > /out/made.txt
echo more >> /out/keep.txt
cat /out/same.txt > /dev/null
exec 3>>/out/same.txt; exec 3>&-
chmod 600 /out/mode.txt
rm /out/gone.txt
echo temp > /out/tmp.txt; rm /out/tmp.txt
mv /out/old.txt /out/moved.txt
echo dropped > /tmp/overlay.txt
"""

CHILD_SIGNALS = r"""
import os, signal, sys
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGUSR1, lambda *a: None)
    os.kill(os.getpid(), signal.SIGUSR1)
    os.kill(os.getpid(), signal.SIGTERM)
os.waitpid(pid, 0)
"""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _report(tmp_path, args):
    out = tmp_path / "r.json"
    p = emutrace(["--no-trace", "--report", str(out), *args], cwd=str(tmp_path))
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, load_schema(), cls=jsonschema.Draft202012Validator)
    return p, doc


def test_rw_writes_are_dropped_files_on_the_host(tmp_path):
    grant = tmp_path / "grant"
    grant.mkdir()
    for name, text in (("keep.txt", "original\n"), ("same.txt", "untouched\n"), ("gone.txt", "doomed\n"),
                       ("mode.txt", "mode\n"), ("old.txt", "moving\n")):
        (grant / name).write_text(text)
    (tmp_path / "s.sh").write_text(SCRIPT)
    dump = tmp_path / "drops"
    p, doc = _report(tmp_path, ["--rw", f"{grant}:/out", "--dump-dropped", str(dump), "/bin/sh", str(tmp_path / "s.sh")])
    assert p.returncode == 0, p.stderr.decode()
    dropped = {d["path"]: d for d in doc["dropped"]}
    assert dropped["/tmp/overlay.txt"]["where"] == "overlay"
    host = {p: d for p, d in dropped.items() if d["where"] == "host"}
    assert sorted(host) == ["/out/gone.txt", "/out/keep.txt", "/out/made.txt", "/out/mode.txt",
                            "/out/moved.txt", "/out/old.txt", "/out/tmp.txt"]
    assert (host["/out/made.txt"]["status"], host["/out/made.txt"]["sha256"]) == ("created", sha(b"new\n"))
    assert (host["/out/keep.txt"]["status"], host["/out/keep.txt"]["sha256"]) == ("modified", sha(b"original\nmore\n"))
    assert (host["/out/mode.txt"]["status"], host["/out/mode.txt"]["mode"]) == ("modified", 0o600)
    assert host["/out/gone.txt"]["status"] == "deleted" and host["/out/gone.txt"]["sha256"] == sha(b"doomed\n")
    assert host["/out/tmp.txt"]["status"] == "deleted" and host["/out/tmp.txt"]["sha256"] == sha(b"temp\n")
    assert host["/out/old.txt"]["status"] == "deleted"
    assert (host["/out/moved.txt"]["status"], host["/out/moved.txt"]["sha256"]) == ("created", sha(b"moving\n"))
    assert host["/out/made.txt"]["host_path"] == str(grant / "made.txt")
    assert "/out/same.txt" not in host                   # opened for writing, left as it was
    index = json.loads((dump / "index.json").read_text())
    assert {d["path"] for d in index} == set(dropped)
    assert (dump / sha(b"original\nmore\n")).read_bytes() == b"original\nmore\n"
    assert (dump / sha(b"temp\n")).read_bytes() == b"temp\n"
    shown = emutrace(["report", str(tmp_path / "r.json")]).stdout.decode()
    assert f"ON THE HOST at {grant / 'made.txt'}" in shown


def test_without_rw_nothing_is_on_the_host(tmp_path):
    (tmp_path / "s.sh").write_text("echo x > /tmp/a\n")
    _, doc = _report(tmp_path, ["/bin/sh", str(tmp_path / "s.sh")])
    assert [d["where"] for d in doc["dropped"]] == ["overlay"]


@pytest.mark.parametrize("tracing", [["--no-trace"], ["--strace"]])
def test_signals_of_untraced_children_are_recorded(tmp_path, tracing):
    out = tmp_path / "r.json"
    p = emutrace([*tracing, "--report", str(out), "/usr/bin/python3", "-c", CHILD_SIGNALS])
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    doc = json.loads(out.read_text())
    child = [(s["what"], s["signal"]) for s in doc["signals"] if s["pid"] != doc["processes"][0]["pid"]]
    assert ("delivered", "SIGUSR1") in child and ("delivered", "SIGTERM") in child
    assert ("killed", "SIGTERM") in child
    if "--strace" in tracing:                              # without -f the trace still has none of the child's
        assert b"--- SIGUSR1" not in p.stderr and b"--- SIGTERM" not in p.stderr
