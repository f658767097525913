"""The report document: the collector's facts laid out as schema.json describes, written as
JSON, and the dropped files' contents written out for --dump-dropped."""
from __future__ import annotations

import json
import os
from typing import Dict, List, Optional

from emutrace.decode.xlat import signal_name

from emutrace.report import extract, findings
from emutrace.report.hostwrites import host_dropped
from emutrace.report.schema import SCHEMA_ID, SCHEMA_VERSION
from emutrace.linux.fcntl import S_IFMT, S_IFREG


def build(collector) -> dict:
    c = collector
    procs = _processes(c)
    c.unpacked.finish()
    drops = dropped_files(c)
    doc = {
        "schema": SCHEMA_ID,
        "version": SCHEMA_VERSION,
        "run": dict(c.run_status or {"status": None, "signal": 0, "exit_code": None},
                    argv=list(c.argv), virtual_time_ns=c.world.elapsed_ns),
        "target": c.target,
        "processes": procs,
        "files": list(c.files.values()),
        "dropped": [_with_preview(d) for d in drops],
        "network": {"sockets": [_socket(x) for x in c.sockets]},
        "dns": c.dns,
        "signals": c.signals,
        "limits_hit": c.limits,
        "errors": c.errors,
        "findings": findings.derive(c),
        "unpacked": c.unpacked.regions,
        "strings": {"memory": c.proc_strings, "compares": list(c.compares.values())},
        "events": c.events,
        "events_dropped": c.events_dropped,
    }
    if c.yara is not None:
        doc["yara"] = _yara(c, drops)
    return doc


def _yara(c, drops: List[dict]) -> dict:
    """Scan the sample, the dropped files and the unpacked code (the memory was scanned at exit)."""
    y = c.yara
    t = c.target
    if t is not None:
        y.scan(c.target_data, "sample", t["path"], t.get("sha256"))
    for d in drops:
        y.scan(d.get("_data"), "dropped", d["path"], d.get("sha256"))
    for u, data in zip(c.unpacked.regions, c.unpacked.data):
        y.scan(data, "unpacked", f"pid {u['pid']} {u['address']:#x}+{u['size']}", u["sha256"])
    order = {"sample": 0, "dropped": 1, "unpacked": 2, "memory": 3}
    res = y.result()
    res["matches"] = sorted(res["matches"], key=lambda m: (order[m["where"]], m["name"], m["rule"]))
    return res


PREVIEW_BYTES = 256             # bytes of a dropped file shown as hex
PREVIEW_STRINGS = 20            # strings of a dropped file kept


def _with_preview(d: dict) -> dict:
    """A dropped file's entry, with `head` (its first PREVIEW_BYTES bytes as hex) and
    `strings` (its first printable strings worth keeping) when its content is kept."""
    out = {k: v for k, v in d.items() if not k.startswith("_")}
    data = d.get("_data")
    if data is not None:
        out["head"] = data[:PREVIEW_BYTES].hex()
        out["strings"] = extract.strings_of(data, PREVIEW_STRINGS)
    return out


def _socket(x: dict) -> dict:
    return {k: v for k, v in x.items()}


def _processes(c) -> List[dict]:
    procs = list(c.processes)
    by_pid: Dict[int, dict] = {}
    env_of: Dict[int, List[str]] = {}
    base_env = [f"{k}={v}" for k, v in c.world.env.items()]
    out = []
    for p in procs:
        attempts = c.execs.get(p.pid, [])
        ok = [a for a in attempts if a["result"] == 0]
        parent = p.parent.pid if getattr(p, "parent", None) is not None else p.ppid
        if ok:
            env = ok[-1]["env"]
        else:
            env = env_of.get(parent, base_env) if p is not procs[0] else base_env
        env_of[p.pid] = env
        ex = p.exit
        exit_info = None
        if ex is not None:
            exit_info = {"status": ex.status, "signal": ex.signal,
                         "signal_name": signal_name(ex.signal) if ex.signal else None, "core": bool(ex.core)}
        entry = {"pid": p.pid, "ppid": parent, "exe": p.exe, "argv": list(p.argv), "env": env, "cwd": p.cwd,
                 "exit": exit_info, "execve": [{k: v for k, v in a.items()} for a in attempts], "children": []}
        by_pid[p.pid] = entry
        out.append(entry)
    for e in out:
        if e["ppid"] in by_pid and e["pid"] != e["ppid"]:
            by_pid[e["ppid"]]["children"].append(e["pid"])
    return out


def dropped_files(c) -> List[dict]:
    """Every regular file the run created or changed in the overlay (with the ones it deleted
    again), then those it created, changed or removed on the host through --rw grants, each in
    path order; `_data` holds the contents (None for a host file whose content is not kept)."""
    vfs = c.vfs
    out: Dict[str, dict] = {}
    for path, ov in list(vfs.overlay.items()):
        if ov.stat.mode & S_IFMT != S_IFREG:
            continue
        data = ov.data.image(vfs.limits.max["disk"])
        if data is None:                 # sparse, larger than the quota: see _sparse_entry
            out[path] = _sparse_entry(path, ov, c.renamed.get(path))
            continue
        status = "created"
        host, writable = vfs.host_path(path)
        tree = vfs.tree_of(writable)
        try:
            tree.lstat(host)
            status = "modified"
            try:
                if tree.read(host) == data:
                    continue             # copied up for writing, left as it was
            except OSError:
                pass
        except OSError:
            pass
        first = c.renamed.get(path)
        entry = {"path": path, "size": len(data), "sha256": extract.sha256(data), "mode": ov.stat.mode & 0o7777,
                 "status": status, "deleted": False, "where": "overlay", "_data": data}
        if first is not None and first != path:
            entry["written_as"] = first
        out[path] = entry
    for path, d in c.deleted_drops.items():
        if path not in out and path not in vfs.overlay:
            out[path] = dict(d, status="deleted", where="overlay")
    return [out[p] for p in sorted(out)] + host_dropped(vfs)


def _sparse_entry(path: str, ov, first) -> dict:
    """A file larger than --max-disk can only be sparse (mostly holes): its bytes are not
    hashed or kept as one piece; `sha256` fingerprints its written pages instead (FileData's
    page_digest) and `sparse` says so."""
    entry = {"path": path, "size": len(ov.data), "sha256": ov.data.page_digest(),
             "mode": ov.stat.mode & 0o7777, "status": "created", "deleted": False, "where": "overlay",
             "sparse": True,
             "_data": None}
    if first is not None and first != path:
        entry["written_as"] = first
    return entry


HTML_SUFFIXES = (".html", ".htm")


def write(report: dict, path: str) -> None:
    """The report as JSON, or as one HTML page when the file's name ends in .html (.htm)."""
    if path.lower().endswith(HTML_SUFFIXES):
        from emutrace.report.htmlpage import render      # deferred: only an .html report builds a page
        text = render(report)
    else:
        text = json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    tmp = path + ".part"
    # a host argument that is not UTF-8 reaches here as lone surrogates (surrogateescape):
    # written as JSON's own \udcXX escapes, so the file stays UTF-8 and reads back the same
    with open(tmp, "w", encoding="utf-8", errors="backslashreplace") as f:
        f.write(text)
    os.replace(tmp, path)


def dump_dropped(c, directory: str) -> List[str]:
    """Write each dropped file's contents as DIR/<sha256> and an index (DIR/index.json:
    path → sha256, size, mode): guest paths never become host paths."""
    os.makedirs(directory, exist_ok=True)
    index = []
    for d in dropped_files(c):
        name = os.path.join(directory, d["sha256"] or "")
        if d["_data"] is not None and not os.path.exists(name):
            with open(name, "wb") as f:
                f.write(d["_data"])
        index.append({k: v for k, v in d.items() if not k.startswith("_")})
    with open(os.path.join(directory, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    return [d["path"] for d in index]


def dump_code(c, directory: str) -> None:
    """Each region of unpacked code as DIR/code/<sha256>, and DIR/code/index.json (the
    report's `unpacked` entries)."""
    regions = c.unpacked.regions
    if not regions:
        return
    code = os.path.join(directory, "code")
    os.makedirs(code, exist_ok=True)
    for u, data in zip(regions, c.unpacked.data):
        name = os.path.join(code, u["sha256"])
        if data is not None and not os.path.exists(name):
            with open(name, "wb") as f:
                f.write(data)
    with open(os.path.join(code, "index.json"), "w", encoding="utf-8") as f:
        json.dump(regions, f, indent=1)
        f.write("\n")


def load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def status_of(report: dict) -> Optional[int]:
    return (report.get("run") or {}).get("exit_code")
