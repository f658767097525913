"""`emutrace report FILE`: a behaviour report as a readable summary on a terminal.

Sections in the order an analyst reads them: verdict-like findings first, then what the program
ran, wrote, dropped and reached, then the rest. Long lists are cut at --limit entries (default
20) with a count of what was left out; --all shows everything."""
from __future__ import annotations

import json
import sys
from typing import List

from emutrace.report.extract import worth_keeping
from emutrace.report.readable import SEVERITY_ORDER, is_stream, value_text
from emutrace.report.schema import SCHEMA_ID, SCHEMA_VERSION

USAGE = "usage: emutrace report [--all] [--limit N] [--html [-o PAGE.html]] REPORT.json"
HELP = USAGE + """

Prints a behaviour report that `emutrace --report FILE` wrote as a readable summary: findings
first (with their evidence), then the process tree and every execve, files written and dropped,
network activity and DNS names, signals, limits hit and strings.

Options:
  --all        show every entry of every list (default: the first 20 of each, and a count)
  --limit N    show the first N entries of each list
  --html       write the report as one self-contained HTML page (-o PAGE.html; default stdout)
  -h, --help   this help

Examples:
  emutrace --no-trace --report r.json ./sample && emutrace report r.json
  emutrace report --all r.json | less
  emutrace report --html r.json -o r.html

Exit status: 0 printed, 2 bad input or usage. The format: docs/report.md."""
SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


def main(args: List[str]) -> int:
    limit, files, html, out = 20, [], False, None
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-h", "--help"):
            print(HELP)
            return 0
        if a == "--all":
            limit = 0
        elif a == "--limit":
            if i + 1 >= len(args) or not args[i + 1].isdigit():
                return _fail(f"report: --limit takes a number ({USAGE})")
            i += 1
            limit = int(args[i])
        elif a == "--html":
            html = True
        elif a in ("-o", "--output"):
            if i + 1 >= len(args):
                return _fail(f"report: {a} takes a file name ({USAGE})")
            i += 1
            out = args[i]
        elif a.startswith("-") and a != "-":
            return _fail(f"report: unknown option {a} ({USAGE})")
        else:
            files.append(a)
        i += 1
    if len(files) != 1:
        return _fail(f"report takes one report file ({USAGE})")
    if out is not None and not html:
        return _fail(f"report: -o goes with --html ({USAGE})")
    try:
        with (sys.stdin if files[0] == "-" else open(files[0], encoding="utf-8")) as f:
            doc = json.load(f)
    except OSError as e:
        return _fail(f"report: {files[0]}: {e.strerror}")
    except ValueError as e:
        return _fail(f"report: {files[0]}: not JSON ({e})")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA_ID:
        return _fail(f"report: {files[0]}: not an emutrace report")
    if doc.get("version") != SCHEMA_VERSION:
        return _fail(f"report: {files[0]}: report version {doc.get('version')}, this emutrace reads {SCHEMA_VERSION}")
    if html:
        return _write_html(doc, files[0], out)
    try:
        sys.stdout.write(render(doc, limit))
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    return 0


def _write_html(doc: dict, source: str, out) -> int:
    from emutrace.report.htmlpage import render as page      # deferred: only --html builds a page
    try:
        text = page(doc, source if source != "-" else "")
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        return _fail(f"report: {source}: not a well-formed report ({type(e).__name__}: {e})")
    if out is None or out == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return 0
    try:
        write_text(out, text)
    except OSError as e:
        return _fail(f"report: {out}: {e.strerror}")
    return 0


def write_text(path: str, text: str) -> None:
    """Write atomically (a reader never sees half a page)."""
    import os     # deferred: only this view of a file's path needs it
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, path)


def _fail(message: str) -> int:
    sys.stderr.write(f"emutrace: {message}\n")
    return 2


def render(doc: dict, limit: int = 20) -> str:
    out: List[str] = []
    w = out.append
    run, target = doc.get("run") or {}, doc.get("target")
    w(f"emutrace behaviour report (schema {doc['schema']} v{doc['version']})")
    w(f"  command   {' '.join(run.get('argv', []))}")
    how = f"exit status {run.get('status')}"
    if run.get("signal"):
        how = f"killed by signal {run['signal']}"
    if run.get("message"):
        how += f" ({run['message']})"
    w(f"  ended     {how}, after {run.get('virtual_time_ns', 0) / 1e6:.3f} ms of virtual time")
    if target:
        elf = target["elf"]
        kind = "static" if elf["static"] else f"dynamic ({elf['interpreter']})"
        w(f"  target    {target['path']}  sha256 {target['sha256']}  {target['size']} bytes")
        w(f"            ELF {elf['type']}{' PIE' if elf['pie'] else ''}, {kind}, "
          f"{'stripped' if elf['stripped'] else 'not stripped'}; needs {', '.join(elf['needed']) or 'nothing'}; "
          f"{len(target['imports'])} imported functions")
    findings = sorted(doc.get("findings", []), key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9), f["name"]))
    _section(w, "Findings", findings, limit, lambda f: f"[{f['severity']:<6}] {f['name']} ({f['category']})"
             f"{_attack(f)}: {f['description']}; {_detail(f)} events {_ids(f['evidence'])}")
    _section(w, "Processes", _tree(doc.get("processes", [])), 0, str)
    _section(w, "Unpacked code (written, then run)", doc.get("unpacked", []), limit,
             lambda u: f"pid {u['pid']} {u['address']:#x} {u['size']} bytes, sha256 {u['sha256']}, "
             f"written by {value_text('writer', u['writer'])} ({u['writer_module']}), first run at "
             f"{u['time_ns'] / 1e6:.3f} ms" + (" [JIT pattern]" if u.get("pattern") == "jit" else ""))
    if "yara" in doc:
        y = doc["yara"] or {}
        _section(w, f"YARA matches ({y.get('rules')}, {y.get('scanned', 0)} objects scanned)", y.get("matches", []),
                 limit, lambda m: f"{m['rule']} in {m['where']} {m['name']}: "
                 + ", ".join(f"{x['identifier']}@{x['offset']}" for x in m.get("strings", [])[:6]))
    _section(w, "Dropped files", doc.get("dropped", []), limit,
             lambda d: f"{d['status']:<8} {d['path']}  {d['size']} bytes, mode {d['mode']:04o}, sha256 {d['sha256']}"
             + (f" (written as {d['written_as']})" if d.get("written_as") else "")
             + (f" ON THE HOST at {d.get('host_path')}" if d.get("where") == "host" else ""))
    files = [f for f in doc.get("files", []) if not is_stream(f["path"])]
    written = [f for f in files if set(f["ops"]) - {"open-read", "read", "exec", "open-failed"}]
    _section(w, "Files changed", written, limit,
             lambda f: f"{f['path']}: {', '.join(f['ops'])}" + (f"; {f['bytes_written']} bytes written"
                                                              if f["bytes_written"] else ""))
    read = [f for f in files if f not in written]
    _section(w, "Files read or tried", read, limit,
             lambda f: f"{f['path']}: {', '.join(f['ops'])}" + (f"; {f['bytes_read']} bytes read"
                                                              if f["bytes_read"] else ""))
    _section(w, "Network", doc.get("network", {}).get("sockets", []), limit, _socket_line)
    _section(w, "DNS", doc.get("dns", []), limit,
             lambda d: f"{d['name']} ({d['type']}) via {d['source']}" + (f" to {d['server']}" if d["server"] else ""))
    _section(w, "Signals", doc.get("signals", []), limit,
             lambda s: f"pid {s['pid']} {s['what']} {s['signal']}" + (f" to {s['to']}" if "to" in s else ""))
    _section(w, "Limits hit", doc.get("limits_hit", []), limit, lambda x: f"{x['limit']}: {x['how']}"
             + (f" ({x['count']} times)" if x["count"] > 1 else ""))
    _section(w, "Errors", doc.get("errors", []), limit, lambda x: f"{x['kind']}: {x['message']}")
    strings = doc.get("strings", {})
    _section(w, "Strings compared", strings.get("compares", []), limit,
             lambda c: f"{c['function']}({', '.join(json.dumps(a) for a in c['args'])})"
             + (f" x{c['count']}" if c["count"] > 1 else ""))
    _section(w, "Strings in memory at exit", [x for x in strings.get("memory", []) if worth_keeping(x)], limit,
             json.dumps)
    return "\n".join(out) + "\n"


def _section(w, title: str, items, limit: int, line) -> None:
    if not items:
        return
    w("")
    w(f"{title} ({len(items)})")
    shown = items if not limit else items[:limit]
    for it in shown:
        w(f"  {line(it)}")
    if len(shown) < len(items):
        w(f"  ... {len(items) - len(shown)} more (--all shows them)")


def _ids(ids: List[int]) -> str:
    return ",".join(str(i) for i in ids[:8]) + (f",... ({len(ids)})" if len(ids) > 8 else "")


def _attack(f: dict) -> str:
    ids = [t["id"] for t in f.get("attack", [])]
    return f" [{', '.join(ids)}]" if ids else ""


def _detail(f: dict) -> str:
    parts = []
    for d in f.get("details", [])[:4]:
        parts.append(" ".join(f"{k}={value_text(k, v)}" for k, v in d.items() if k != "event"))
    more = len(f.get("details", [])) - 4
    return "; ".join(parts) + (f"; +{more} more" if more > 0 else "")


def _socket_line(s: dict) -> str:
    peers = ", ".join(_peer(p) for p in s["peers"]) or "no peer"
    state = "denied" if s["denied"] else f"fd {s['fd']}"
    sent = f"; {s['bytes_sent']} bytes sent: {s['preview']}" if s["bytes_sent"] else ""
    return f"{s['family']} {s['type']} ({state}) -> {peers}{sent}"


def _peer(p: dict) -> str:
    where = p.get("path") or f"{p.get('address', '?')}:{p.get('port', '?')}"
    return f"{where} [{'denied' if p.get('denied') else p.get('result')}]"


def _tree(procs: List[dict]) -> List[str]:
    by_pid = {p["pid"]: p for p in procs}
    lines: List[str] = []

    def show(p, depth):
        ex = p["exit"]
        end = "running" if ex is None else (f"killed by {ex['signal_name']}" if ex["signal"] else f"exit {ex['status']}")
        lines.append(f"{'  ' * depth}{p['pid']} {' '.join(p['argv'])} [{end}] cwd {p['cwd']}")
        for a in p["execve"]:
            lines.append(f"{'  ' * depth}  execve {a['path']} [{', '.join(json.dumps(x) for x in a['argv'])}]"
                         f" = {a['result']}")
        for c in p["children"]:
            if c in by_pid:
                show(by_pid[c], depth + 1)

    for p in procs:
        if p["ppid"] not in by_pid:
            show(p, 0)
    return lines
