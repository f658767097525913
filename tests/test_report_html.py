"""The report as HTML (`emutrace report --html`, `--report r.html`) and the batch index, loaded in
a real browser: Debian's headless Chromium, driven over the DevTools protocol by
tests/browser_page.js (node). The DOM must hold the process tree, the findings with their ATT&CK
ids and the dropped files' hashes; no request may leave the page and no console error may occur;
a hostile sample's markup, script, javascript: URLs, NUL bytes and invalid UTF-8 must all be
escaped, and none of its script may run.

bins/dropper.c and bins/htmlhostile.c are hostile: they only ever run under emutrace."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import built, emutrace

HERE = os.path.dirname(os.path.abspath(__file__))
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
NODE = shutil.which("node")
EVIL_ARG = "</style><script>alert(4)</script>"


def _html(tmp_path, doc: dict, name="r.html") -> str:
    src = tmp_path / (name + ".json")
    src.write_text(json.dumps(doc))
    out = tmp_path / name
    p = emutrace(["report", "--html", str(src), "-o", str(out)])
    assert p.returncode == 0, p.stderr.decode()
    return str(out)


@pytest.fixture(scope="module")
def dropper_doc(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html-dropper")
    out = tmp / "r.json"
    p = emutrace(["--no-trace", "--report", str(out), "--env", "DROPPER_KEY=guess", built("dropper")], cwd=str(tmp))
    assert p.returncode == 0, p.stderr.decode()
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A headless Chromium with a DevTools endpoint; yields a function that loads a page."""
    if not os.path.exists(CHROMIUM) or NODE is None:
        pytest.skip("needs chromium and node (apt-get install chromium nodejs)")
    if subprocess.run([NODE, "--experimental-websocket", "-e", "WebSocket"], capture_output=True).returncode:
        pytest.skip("this node has no WebSocket (node >= 20.10 with --experimental-websocket)")
    prof = tmp_path_factory.mktemp("chromium-profile")
    proc = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                             "--disable-background-networking", "--disable-component-update", "--disable-sync",
                             f"--user-data-dir={prof}", "--remote-debugging-port=0", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    port_file = prof / "DevToolsActivePort"
    for _ in range(300):
        if port_file.exists() and len(port_file.read_text().splitlines()) >= 2:
            break
        time.sleep(0.1)
    else:
        proc.kill()
        pytest.skip("chromium did not open its DevTools port")
    port, path = port_file.read_text().splitlines()[:2]
    ws = f"ws://127.0.0.1:{port}{path}"

    def load(page: str, query: str = "", shot: str = "") -> dict:
        p = subprocess.run([NODE, "--experimental-websocket", "--no-warnings", os.path.join(HERE, "browser_page.js"),
                            ws, "file://" + os.path.abspath(page), query, shot], capture_output=True, timeout=120)
        assert p.returncode == 0, p.stderr.decode()
        return json.loads(p.stdout)

    yield load
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_dropper_page_in_a_browser(browser, dropper_doc, tmp_path):
    page = _html(tmp_path, dropper_doc)
    seen = browser(page, query="persistence", shot=str(tmp_path / "shot.png"))
    assert seen["requests"] == [] and seen["errors"] == [] and seen["alerts"] == []
    text = seen["text"]
    # the process tree: each pid with its argv and exit, and the execve attempts
    for p in dropper_doc["processes"]:
        assert str(p["pid"]) in text and " ".join(p["argv"]) in text
    assert "/nonexistent/payload" in text and "ENOENT" in text
    # every finding with its ATT&CK ids, and their evidence links resolve
    for f in dropper_doc["findings"]:
        assert f["name"] in text
        for t in f.get("attack", []):
            assert t["id"] in text
    assert "T1053.003" in text and "T1574.006" in text and "T1070.004" in text and "T1622" in text
    for d in dropper_doc["dropped"]:
        assert d["sha256"] in text and d["path"] in text
    ev = dropper_doc["findings"][0]["evidence"][0]
    assert f'href="#ev-{ev}"' in seen["html"] and f'id="ev-{ev}"' in seen["html"]
    assert seen["filtered"] == 1                  # the script's filter box works
    assert seen["scripts"] == 1 and seen["styles"] == 1
    assert os.path.getsize(str(tmp_path / "shot.png")) > 10000


def test_page_is_byte_identical_and_self_contained(dropper_doc, tmp_path):
    a = open(_html(tmp_path, dropper_doc, "a.html"), "rb").read()
    b = open(_html(tmp_path, dropper_doc, "b.html"), "rb").read()
    assert a.replace(b"a.html.json", b"") == b.replace(b"b.html.json", b"")
    # no resource from anywhere (the C2 URL the dropper left in memory is shown as text only);
    # the only links out are ATT&CK's technique pages, followed only when a person clicks
    for bad in (b'href="http://', b"<link", b" src=", b"@import", b"url(", b"<iframe", b"<img"):
        assert bad not in a, bad
    assert a.count(b'href="https://') == a.count(b'href="https://attack.mitre.org/techniques/')
    assert b"Content-Security-Policy" in a and b"default-src 'none'" in a


def test_report_html_straight_from_a_run(tmp_path):
    out = tmp_path / "r.html"
    p = emutrace(["--no-trace", "--report", str(out), built("hello")], cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr.decode()
    text = out.read_text()
    assert text.startswith("<!DOCTYPE html>") and "No findings" in text


def test_not_a_report_is_refused(tmp_path):
    other = tmp_path / "other.json"
    other.write_text('{"schema": "something-else"}')
    p = emutrace(["report", "--html", str(other), "-o", str(tmp_path / "x.html")])
    assert p.returncode == 2 and p.stderr.decode().startswith("emutrace: report:") and b"Traceback" not in p.stderr
    assert not (tmp_path / "x.html").exists()
    p = emutrace(["report", "-o", str(tmp_path / "x.html"), str(other)])
    assert p.returncode == 2 and p.stderr.startswith(b"emutrace: ")


def test_hostile_sample_is_escaped(browser, tmp_path):
    out = tmp_path / "h.json"
    evil_bytes = os.fsdecode(b"\xff\xfejavascript:alert(13)")
    p = emutrace(["--no-trace", "--report", str(out), "--env", "EVIL=<script>alert(12)</script>",
                  built("htmlhostile"), EVIL_ARG, evil_bytes], cwd=str(tmp_path))
    assert p.returncode == 0, p.stderr.decode()
    doc = json.loads(out.read_text(encoding="utf-8"))
    page = _html(tmp_path, doc, "h.html")
    raw = open(page, "rb").read()
    raw.decode("utf-8")                            # the page is UTF-8, whatever the sample wrote
    assert raw.count(b"<script") == 1 and b"\x00" not in raw
    seen = browser(page)
    assert seen["alerts"] == [] and seen["errors"] == [] and seen["requests"] == []
    assert seen["scripts"] == 1 and seen["styles"] == 1 and seen["jsLinks"] == 0 and seen["handlers"] == 0
    text = seen["text"]
    # the hostile strings are shown, as text, in every field
    for needle in (EVIL_ARG, "<script>alert(9)</script>", "javascript:alert(10)", "/tmp/<script>/alert(1).html",
                   "/tmp/javascript:alert(1)", "<b>x</b>", "<script>alert(5)</script>.example",
                   "X=</style><script>alert(11)</script>", "EVIL=<script>alert(12)</script>",
                   "/run/<script>alert(6)</script>", "\\xff", "leftover <script>alert(7)</script>"):
        assert needle in text, needle
    hexed = "3c 73 63 72 69 70 74 3e"                 # "<script>" in the dropped file's hex preview
    assert hexed in seen["html"]                     # (inside a closed <details>: in the DOM, not innerText)


def test_batch_index_in_a_browser(browser, tmp_path):
    samples = tmp_path / "samples"
    samples.mkdir()
    for name in ("a", "b"):
        shutil.copy(built("dropper"), samples / name)
    shutil.copy(built("hello"), samples / "c")
    out = tmp_path / "out"
    p = emutrace(["batch", "--jobs", "2", "--out", str(out), "--quiet", str(samples), "--", "--no-trace"])
    assert (out / "index.html").exists(), p.stderr.decode()
    seen = browser(str(out / "index.html"))
    assert seen["requests"] == [] and seen["errors"] == []
    text, html = seen["text"], seen["html"]
    for job in ("0001-a", "0002-b", "0003-c"):
        assert job in text and f'href="jobs/{job}/report.html"' in html
        assert (out / "jobs" / job / "report.html").exists()
    assert "malicious" in text and "T1053.003" in text
    # the two copies of the dropper are one family, hello another
    rows = [json.loads(x) for x in (out / "summary.jsonl").read_text().splitlines()]
    assert rows[0]["dropped_sha256"] == rows[1]["dropped_sha256"] and rows[0]["dropped_sha256"]
    assert "2 families of behaviour" in text
    sample_page = browser(str(out / "jobs" / "0001-a" / "report.html"))
    assert sample_page["errors"] == [] and "persistence" in sample_page["text"]


def test_long_lists_are_cut_with_counts(dropper_doc, tmp_path):
    """20,000 events, 3,000 files, 4,000 strings: the page stays under 2 MB and says what it left
    out; every finding's evidence stays linked."""
    doc = json.loads(json.dumps(dropper_doc))
    base = doc["events"]
    doc["events"] = [dict(base[i % len(base)], id=i + 1, time_ns=i) for i in range(20000)]
    doc["events_dropped"] = 5
    doc["files"] += [{"path": f"/tmp/f{i}", "ops": ["write"], "bytes_read": 0, "bytes_written": 1, "events": []}
                     for i in range(3000)]
    doc["strings"]["memory"] = [f"string number {i} here" for i in range(4000)]
    page = _html(tmp_path, doc)
    text = open(page, encoding="utf-8").read()
    assert os.path.getsize(page) <= 2 << 20
    import re
    shown = re.search(r"(\d+) more not shown \((\d+) of 20005\)", text)
    assert shown and 2000 <= int(shown.group(2)) < 2100 and int(shown.group(1)) + int(shown.group(2)) == 20005
    assert re.search(r"\d+ more not shown \(500 of 30\d\d\)", text) and "3500 more not shown" in text
    for f in doc["findings"]:
        for e in f["evidence"]:
            assert f'id="ev-{e}"' in text
