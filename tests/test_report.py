"""The behaviour report (--report, --dump-dropped, `emutrace report`): a dropper-like program's
every behaviour with the right values, benign programs without false findings, the schema, and
reports of runs that a limit or an error ended.

bins/dropper.c is hostile (it writes under /etc and deletes itself): it only ever runs under
emutrace here."""
from __future__ import annotations

import hashlib
import json
import os

import pytest

from conftest import built, emutrace

jsonschema = pytest.importorskip("jsonschema", reason="the report schema is checked with jsonschema "
                                 "(pip install 'emutrace[test]')")

from emutrace.report import extract, rules  # noqa: E402
from emutrace.report.schema import load_schema  # noqa: E402


def validate(doc: dict) -> None:
    jsonschema.validate(doc, load_schema(), cls=jsonschema.Draft202012Validator)


def run_report(tmp_path, args, name="r.json", extra=()):
    out = tmp_path / name
    p = emutrace(["--report", str(out), *extra, *args], cwd=str(tmp_path))
    assert out.exists(), p.stderr.decode()
    doc = json.loads(out.read_text())
    validate(doc)
    return p, doc


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def finding(doc, name):
    hits = [f for f in doc["findings"] if f["name"] == name]
    assert hits, f"no {name} finding in {[f['name'] for f in doc['findings']]}"
    return hits[0]


def event(doc, eid):
    return next(e for e in doc["events"] if e["id"] == eid)


@pytest.fixture(scope="module")
def dropper(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dropper")
    exe = built("dropper")
    drops = tmp / "dropped"
    p, doc = run_report(tmp, ["--env", "DROPPER_KEY=guess", exe], extra=("--no-trace", "--dump-dropped", str(drops)))
    assert p.returncode == 0, p.stderr.decode()
    return exe, doc, drops, p


BASHRC_LINE = b"(/tmp/.x/agent &)\n"
EXPECTED_DROPS = {
    "/var/spool/cron/crontabs/root": (b"* * * * * /tmp/.x/agent\n", 0o600),
    "/etc/systemd/system/agent.service": (b"[Unit]\nDescription=agent\n[Service]\nExecStart=/tmp/.x/agent\n"
                                          b"[Install]\nWantedBy=multi-user.target\n", 0o644),
    "/root/.ssh/authorized_keys": (b"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDropperKey attacker@c2\n", 0o644),
    "/etc/ld.so.preload": (b"/tmp/.x/libhide.so\n", 0o644),
    "/tmp/.x/agentd": (b"#!/bin/sh\nexec sleep 1000\n", 0o755),
}


def host_content(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def test_dropper_target_and_processes(dropper):
    exe, doc, _, _ = dropper
    t = doc["target"]
    assert t["path"] == os.path.realpath(exe)
    assert t["sha256"] == sha(open(exe, "rb").read())
    assert t["elf"]["type"] == "DYN" and t["elf"]["pie"] and not t["elf"]["static"]
    assert t["elf"]["needed"] == ["libc.so.6"] and t["elf"]["interpreter"] == "/lib64/ld-linux-x86-64.so.2"
    assert {"ptrace", "prctl", "mprotect", "getaddrinfo", "strcmp"} <= set(t["imports"])
    procs = {p["pid"]: p for p in doc["processes"]}
    first = doc["processes"][0]
    assert first["exit"] == {"status": 0, "signal": 0, "signal_name": None, "core": False}
    child = procs[first["children"][0]]
    assert child["ppid"] == first["pid"]
    attempts = [(a["path"], a["argv"], a["result"]) for a in child["execve"]]
    assert attempts == [("/nonexistent/payload", ["payload"], "ENOENT"), ("/bin/sh", ["sh", "-c", "id"], 0)]
    assert "HOME=/root" in child["env"] and child["cwd"] == first["cwd"]
    assert doc["run"]["exit_code"] == 0


def test_dropper_findings(dropper):
    _, doc, _, _ = dropper
    assert event(doc, finding(doc, "ptrace-traceme")["evidence"][0])["request"] == "PTRACE_TRACEME"
    paths = {d["path"] for d in finding(doc, "tracerpid-check")["details"]}
    assert paths & {"/proc/self/status", f"/proc/{doc['processes'][0]['pid']}/status"}
    timing = finding(doc, "timing-check")["details"]
    assert len(timing) == 2 and all(d["module"] == doc["target"]["path"] for d in timing)
    sleep = finding(doc, "sleep-check")
    assert [event(doc, e)["name"] for e in sleep["evidence"]] == ["sleep-after-clock-read", "clock-read-after-sleep"]
    mechanisms = {d["mechanism"]: d["path"] for d in finding(doc, "persistence")["details"]}
    assert mechanisms == {"cron": "/var/spool/cron/crontabs/root", "systemd-unit": "/etc/systemd/system/agent.service",
                          "rc-file": "/etc/rc.local", "shell-profile": "/root/.bashrc",
                          "authorized-keys": "/root/.ssh/authorized_keys", "ld-preload": "/etc/ld.so.preload"}
    dyn = finding(doc, "dynamic-code")["details"]
    assert any(d.get("call") == "mmap" and d["size"] == 8192 for d in dyn)              # RWX at once
    # the page written, then made RX and called is seen running: unpacked-code replaces the guess
    assert not any(d.get("mapping") == "[anonymous]" and d["size"] == 4096 for d in dyn)
    unpacked = finding(doc, "unpacked-code")["details"]
    assert len(unpacked) == 1 and unpacked[0]["size"] == 6            # mov eax, 42; ret (trailing zeros cut)
    assert unpacked[0]["writer_module"].endswith("libc.so.6")        # memcpy wrote it
    assert [t["id"] for t in finding(doc, "unpacked-code")["attack"]] == ["T1027.002", "T1140", "T1620"]
    assert finding(doc, "self-deletion")["details"][0]["path"] == doc["target"]["path"]
    setid = finding(doc, "setid-call")["details"][0]
    assert setid["call"] == "setuid" and setid["args"] == [0]
    assert finding(doc, "privileged-file-read")["details"][0]["path"] == "/etc/shadow"
    assert finding(doc, "process-rename")["details"][0]["name"] == "kworker/0:1"
    argv0 = finding(doc, "argv0-rewrite")["details"][0]
    assert argv0["after"] == "[kworker]" and argv0["before"].endswith("/dropper")
    for f in doc["findings"]:                         # every piece of evidence is a recorded event
        for eid in f["evidence"]:
            event(doc, eid)


def test_dropper_files_and_dropped(dropper):
    _, doc, drops, _ = dropper
    files = {f["path"]: f for f in doc["files"]}
    assert {"open-read", "read"} <= set(files["/etc/shadow"]["ops"]) and files["/etc/shadow"]["bytes_read"] > 0
    assert files["/tmp/.x/agent"]["renamed_to"] == "/tmp/.x/agentd"
    assert "delete" in files[doc["target"]["path"]]["ops"]
    assert files["/etc/ld.so.preload"]["bytes_written"] == len(EXPECTED_DROPS["/etc/ld.so.preload"][0])
    dropped = {d["path"]: d for d in doc["dropped"]}
    expected = dict(EXPECTED_DROPS)
    expected["/root/.bashrc"] = (host_content("/root/.bashrc") + BASHRC_LINE, 0o644)
    rc = host_content("/etc/rc.local")
    expected["/etc/rc.local"] = (rc + b"/tmp/.x/agent &\n", 0o644)
    for path, (data, mode) in expected.items():
        d = dropped[path]
        assert (d["size"], d["sha256"]) == (len(data), sha(data)), path
        if d["status"] == "created":
            assert d["mode"] == mode, path
        assert (drops / d["sha256"]).read_bytes() == data          # --dump-dropped
    assert dropped["/tmp/.x/agentd"]["written_as"] == "/tmp/.x/agent"
    assert dropped["/root/.bashrc"]["status"] == ("modified" if os.path.exists("/root/.bashrc") else "created")
    index = json.loads((drops / "index.json").read_text())
    assert {d["path"] for d in index} == set(dropped)
    # nothing of it reached the host
    assert not os.path.exists("/etc/systemd/system/agent.service") and not os.path.exists("/tmp/.x/agentd")


def test_dropper_network_dns_signals_strings(dropper):
    _, doc, _, _ = dropper
    socks = doc["network"]["sockets"]
    tcp = next(s for s in socks if s["type"] == "SOCK_STREAM" and s["family"] == "AF_INET")
    # the socket is the guest's own; the sandbox has no route beyond its loopback
    assert tcp["denied"] and isinstance(tcp["result"], int)
    peer = tcp["peers"][0]
    assert (peer["address"], peer["port"], peer["denied"], peer["result"]) == ("203.0.113.7", 4444, True, "ENETUNREACH")
    udp = next(s for s in socks if s["type"] == "SOCK_DGRAM" and s["family"] == "AF_INET")
    assert (udp["peers"][0]["address"], udp["peers"][0]["port"]) == ("8.8.8.8", 53)
    assert udp["denied"] and udp["peers"][0]["denied"]
    names = {(d["name"], d["source"]) for d in doc["dns"]}
    assert {("cnc.example.com", "query"), ("c2.example.net", "getaddrinfo"),
            ("update.example.org", "gethostbyname")} <= names
    sig = [(s["what"], s["signal"]) for s in doc["signals"] if s["pid"] == doc["processes"][0]["pid"]]
    assert ("handled", "SIGUSR1") in sig and ("sent", "SIGUSR1") in sig and ("delivered", "SIGUSR1") in sig
    compares = [(c["function"], c["args"]) for c in doc["strings"]["compares"]]
    assert ("strcmp", ["guess", "s3cr3t-k3y"]) in compares
    assert any(fn == "strstr" and args[1] == "TracerPid:\t0" for fn, args in compares)
    assert "http://c2.example.net:8080/gate.php" in doc["strings"]["memory"]
    assert doc["limits_hit"] == [] and doc["errors"] == []


def test_report_beside_a_trace_sees_the_same(dropper, tmp_path):
    """With a library-call trace, the report reads the calls through the trace's own tracer."""
    exe, alone, _, _ = dropper
    trace = tmp_path / "trace.txt"
    import shutil
    copy = tmp_path / "dropper"
    shutil.copy(exe, copy)          # (the same program at another path: it deletes itself only in the overlay)
    p, doc = run_report(tmp_path, ["--env", "DROPPER_KEY=guess", str(copy)], extra=("-o", str(trace)))
    assert p.returncode == 0
    assert "strcmp(\"guess\", \"s3cr3t-k3y\")" in trace.read_text()
    assert [f["name"] for f in doc["findings"]] == [f["name"] for f in alone["findings"]]
    assert doc["strings"]["compares"] == alone["strings"]["compares"]


@pytest.mark.parametrize("args", [["/usr/bin/ls", "/"], ["/usr/bin/python3", "-c", "print(1)"], "cxx", "static"],
                         ids=["ls", "python3", "cxx", "static"])
def test_benign_programs_have_no_hostile_findings(tmp_path, args):
    if args == "cxx":
        args = [built("cxx")]
    elif args == "static":
        args = [built("strings", "static")]
    p, doc = run_report(tmp_path, args, extra=("--no-trace",))
    assert p.returncode == 0, p.stderr.decode()
    categories = {f["category"] for f in doc["findings"]}
    assert not categories & {"anti-debugging", "persistence", "dynamic-code", "evasion", "privilege",
                             "masquerading"}, doc["findings"]
    assert doc["dropped"] == []


@pytest.mark.slow
def test_a_jit_makes_dynamic_code(tmp_path):
    """node's JIT writes code and runs it: the jit-code finding (the JIT pattern), never unpacked-code."""
    if not os.path.exists("/usr/bin/node"):
        pytest.skip("node is not installed")
    p, doc = run_report(tmp_path, ["/usr/bin/node", "-e", "let s=0; for (let i=0;i<1e5;i++) s+=i;"],
                        extra=("--no-trace", "--timeout", "240"))
    assert doc["run"]["exit_code"] == 0, (p.stderr.decode(), doc["errors"])
    names = {f["name"] for f in doc["findings"]}
    # V8 copies its builtins and patches the code it compiles: the JIT pattern, no false alarm
    assert "unpacked-code" not in names
    assert "jit-code" in names and doc["unpacked"] and {u["pattern"] for u in doc["unpacked"]} == {"jit"}


def test_report_when_a_limit_ends_the_run(tmp_path):
    p, doc = run_report(tmp_path, [built("spin")], extra=("--no-trace", "--timeout", "1"))
    assert p.returncode == 124
    assert [x["limit"] for x in doc["limits_hit"]] == ["timeout"]
    assert doc["run"]["exit_code"] == 124 and "time limit" in doc["run"]["message"]
    assert doc["processes"][0]["exit"] is None          # still running when the run was stopped


def test_report_of_a_program_that_cannot_start(tmp_path):
    notelf = tmp_path / "notelf"
    notelf.write_text("just text\n")
    notelf.chmod(0o755)
    p, doc = run_report(tmp_path, [str(notelf)], extra=("--no-trace",))
    assert p.returncode == 126 and doc["run"]["exit_code"] == 126
    assert doc["target"] is None and doc["errors"][0]["kind"] == "run"
    p, doc = run_report(tmp_path, [str(tmp_path / "missing")], name="m.json", extra=("--no-trace",))
    assert p.returncode == 127 and doc["run"]["exit_code"] == 127


def test_report_render(dropper, tmp_path):
    _, doc, _, _ = dropper
    f = tmp_path / "r.json"
    f.write_text(json.dumps(doc))
    p = emutrace(["report", str(f)])
    assert p.returncode == 0
    text = p.stdout.decode()
    for needle in ("Findings (", "persistence", "Dropped files (", "/etc/ld.so.preload", "203.0.113.7:4444 [denied]",
                   "c2.example.net (ANY) via getaddrinfo", 'execve /bin/sh ["sh", "-c", "id"] = 0',
                   "peer=203.0.113.7:4444", "[T1053.003, T1543.002", "[T1070.004]"):
        assert needle in text, needle
    # issue 36 item 12: no Python reprs, streams are not files, strings filtered
    assert "{'" not in text and "['" not in text
    changed = text.split("Files changed", 1)[1].split("\n\n", 1)[0]
    assert "pipe:[" not in changed and "/etc/rc.local" in changed
    memory = text.split("Strings in memory at exit", 1)[1]
    assert "UUUU" not in memory and "@@" not in memory
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    p = emutrace(["report", str(bad)])
    assert p.returncode == 2 and p.stderr.decode().startswith("emutrace: report:") and b"Traceback" not in p.stderr
    p = emutrace(["report", str(tmp_path / "none.json")])
    assert p.returncode == 2 and b"Traceback" not in p.stderr
    other = tmp_path / "other.json"
    other.write_text("{}")
    assert emutrace(["report", str(other)]).returncode == 2


def test_report_file_that_cannot_be_written(tmp_path):
    p = emutrace(["--no-trace", "--report", str(tmp_path / "no" / "such" / "r.json"), "/bin/true"])
    assert p.returncode == 125 and p.stderr.decode().startswith("emutrace:") and b"Traceback" not in p.stderr


# ---------------------------------------------------------------- units

def test_dns_question_parsing():
    q = bytes.fromhex("123401000001000000000000") + b"\x02c2\x07example\x03net\x00" + b"\x00\x1c\x00\x01"
    assert extract.dns_questions(q) == [{"name": "c2.example.net", "type": "AAAA"}]
    assert extract.dns_questions(q[:20]) == []                         # cut short
    assert extract.dns_questions(b"\x12\x34\x81\x80" + q[4:]) == []    # a response


def test_sockaddr_decoding():
    assert extract.sockaddr(bytes.fromhex("0200115c7f000001") + bytes(8)) == \
        {"family": "AF_INET", "address": "127.0.0.1", "port": 4444}
    assert extract.sockaddr(b"\x01\x00/run/x.sock\x00") == {"family": "AF_UNIX", "path": "/run/x.sock"}
    assert extract.sockaddr(b"\x01\x00\x00abstract") == {"family": "AF_UNIX", "path": "@abstract"}
    six = bytes.fromhex("0a000035") + bytes(4) + bytes(15) + b"\x01" + bytes(4)
    assert extract.sockaddr(six) == {"family": "AF_INET6", "address": "::1", "port": 53}


@pytest.mark.parametrize("path,kind", [
    ("/etc/cron.d/job", "cron"), ("/home/u/.config/systemd/user/x.service", "systemd-unit"),
    ("/etc/rc.local", "rc-file"), ("/home/u/.profile", "shell-profile"), ("/etc/profile.d/x.sh", "shell-profile"),
    ("/home/u/.ssh/authorized_keys", "authorized-keys"), ("/etc/ld.so.preload", "ld-preload"),
    ("/etc/passwd", None), ("/tmp/x", None), ("/home/u/.bashrc.bak", None)])
def test_persistence_paths(path, kind):
    assert rules.persistence_kind(path) == kind


def test_strings_extraction():
    out, seen = [], set()
    extract.printable_strings(b"\0\0short\0a longer string\0\x01http://c2.example/x\0a longer string", seen, out, 10)
    assert out == ["a longer string", "http://c2.example/x"]


def test_static_dropper_same_findings(dropper, tmp_path):
    """A static build: the same behaviours, its C-library calls caught at their entry points."""
    _, dynamic, _, _ = dropper
    p, doc = run_report(tmp_path, ["--env", "DROPPER_KEY=guess", built("dropper", "static")], extra=("--no-trace",))
    assert p.returncode == 0, p.stderr.decode()
    assert doc["target"]["elf"]["static"] and doc["target"]["elf"]["interpreter"] is None
    assert [f["name"] for f in doc["findings"]] == [f["name"] for f in dynamic["findings"]]
    assert {"name": "c2.example.net", "source": "getaddrinfo"}.items() <= doc["dns"][1].items()
    assert ("strcmp", ["guess", "s3cr3t-k3y"]) in [(c["function"], c["args"]) for c in doc["strings"]["compares"]]


def test_a_failing_observation_leaves_the_run_alone(tmp_path, monkeypatch):
    """A call the report cannot decode is noted in `errors`; the program runs as without the report."""
    from emutrace.cli import main
    from emutrace.report import collector

    def boom(c, proc, args):
        raise ValueError("no decoder foresaw this")
    monkeypatch.setitem(collector.SYSCALLS, "openat", (boom, collector.SYSCALLS["openat"][1]))
    out = tmp_path / "r.json"
    assert main(["--no-trace", "--report", str(out), "/bin/true"]) == 0
    doc = json.loads(out.read_text())
    validate(doc)
    assert {"kind": "report", "message": "openat: ValueError: no decoder foresaw this"} in doc["errors"]
