"""One behaviour report as one self-contained HTML page (`emutrace report --html`, `--report
r.html`): the verdict and findings (with ATT&CK techniques and links to their evidence events),
the process tree, the timeline on the virtual clock, files and dropped files (hashes, hex and
strings previews), network and DNS, signals, limits and errors, unpacked code and YARA matches,
the target's ELF facts, and strings.

Every value from the report is escaped by htmlkit.esc; ids and fragments are made by
htmlkit.anchor from numbers and fixed names only. Long lists are cut (counts shown) so a page
stays under ~2 MB whatever the run did; the JSON keeps everything."""
from __future__ import annotations

import os
from typing import Dict, List

from emutrace.report import attack
from emutrace.report.htmlkit import anchor, code, esc, hexdump, page, table
from emutrace.report.readable import SEVERITY_ORDER, is_stream, value_text
from emutrace.report.extract import worth_keeping

MAX_TIMELINE = 2000             # events shown beyond those that findings and processes point at
MAX_ROWS = 500                  # rows of a file, socket, signal or string table
MAX_IMPORTS = 400
EVENT_KEYS = ("id", "time_ns", "pid", "tid", "kind", "name")
VERDICT = {"high": "Malicious behaviour", "medium": "Suspicious behaviour", "low": "Notable behaviour",
           None: "No findings"}
SECTIONS = (("findings", "Findings"), ("processes", "Processes"), ("timeline", "Timeline"),
            ("files", "Files"), ("network", "Network and DNS"), ("code", "Unpacked code"),
            ("yara", "YARA"), ("signals", "Signals, limits and errors"), ("target", "Target"),
            ("strings", "Strings"))


def render(doc: dict, source: str = "") -> str:
    run, target = doc.get("run") or {}, doc.get("target")
    events = {e["id"]: e for e in doc.get("events", [])}
    ctx = {"events": events, "shown": _shown_events(doc)}
    name = os.path.basename((target or {}).get("path") or (run.get("argv") or ["?"])[0])
    parts = [f"<header class=\"top\"><h1>emutrace report: {esc(name)}</h1>"
             f"<p>{esc(' '.join(run.get('argv', [])))}</p></header>", "<main id=\"main\">",
             _verdict(doc), _toc(doc), _findings(doc, ctx), _processes(doc, ctx), _timeline(doc, ctx),
             _files(doc, ctx), _network(doc, ctx), _code(doc, ctx), _yara(doc), _signals(doc, ctx),
             _target(target), _strings(doc, ctx),
             f"<footer>Schema {esc(doc.get('schema'))} version {esc(doc.get('version'))}"
             + (f"; from {esc(os.path.basename(source))}" if source else "")
             + ". Times are on emutrace's virtual clock. Made by emutrace: no part of this page loads "
             "anything from the network.</footer>", "</main>"]
    return page(f"emutrace report: {name}", "\n".join(p for p in parts if p))


def _shown_events(doc: dict) -> set:
    """The events the timeline lists: every one a finding, process or signal points at, then
    the first MAX_TIMELINE others."""
    wanted = set()
    for f in doc.get("findings", []):
        wanted.update(f.get("evidence", []))
    for p in doc.get("processes", []):
        wanted.update(a.get("event") for a in p.get("execve", []))
    for u in doc.get("unpacked", []):
        wanted.add(u.get("event"))
    rest = [e["id"] for e in doc.get("events", []) if e["id"] not in wanted][:MAX_TIMELINE]
    return wanted | set(rest)


def _link(ctx, eid) -> str:
    if eid in ctx["events"] and eid in ctx["shown"]:
        return f"<a href=\"#{anchor('ev', eid)}\">{int(eid)}</a>"
    return esc(eid)


def _sev(level) -> str:
    level = level if level in SEVERITY_ORDER else "none"
    return f"<span class=\"sev sev-{level}\">{esc(level)}</span>"


def _techs(ts: List[dict]) -> str:
    return " ".join(f"<a class=\"tech\" href=\"{esc(attack.url(t['id']))}\" title=\"{esc(t['name'])}\">"
                    f"{esc(t['id'])}</a>" for t in ts if _valid_tech(t.get("id")))


def _valid_tech(t) -> bool:
    return isinstance(t, str) and t in attack.TECHNIQUES


def _verdict(doc: dict) -> str:
    fs = doc.get("findings", [])
    counts: Dict[str, int] = {}
    for f in fs:
        counts[f["severity"]] = counts.get(f["severity"], 0) + 1
    top = min(counts, key=lambda s: SEVERITY_ORDER.get(s, 9)) if counts else None
    run = doc.get("run") or {}
    if run.get("signal"):
        ended = f"killed by signal {run['signal']}"
    else:
        ended = f"exit status {run.get('status')}"
    if run.get("message"):
        ended += f" ({run['message']})"
    badges = " ".join(f"{_sev(s)} {counts[s]}" for s in sorted(counts, key=lambda s: SEVERITY_ORDER.get(s, 9)))
    techs = sorted({t["id"] for f in fs for t in f.get("attack", []) if _valid_tech(t.get("id"))})
    line = (f"<section class=\"verdict v-{top or 'none'}\" aria-label=\"Verdict\"><p><strong>{VERDICT.get(top, '')}"
            f"</strong>: {len(fs)} finding{'s' if len(fs) != 1 else ''} {badges}</p>"
            f"<p>{esc(ended)} after {run.get('virtual_time_ns', 0) / 1e6:.3f} ms of virtual time"
            + (f"; {len(techs)} ATT&amp;CK technique{'s' if len(techs) != 1 else ''}" if techs else "")
            + "</p>")
    if fs:
        line += "<p>" + ", ".join(f"<a href=\"#{anchor('finding', i)}\">{esc(f['name'])}</a>"
                                  for i, f in enumerate(_sorted_findings(fs))) + "</p>"
    return line + "</section>"


def _toc(doc: dict) -> str:
    items = "".join(f"<li><a href=\"#{key}\">{title}</a></li>" for key, title in SECTIONS
                    if (key != "code" or doc.get("unpacked")) and (key != "yara" or "yara" in doc))
    return f"<nav class=\"toc\" aria-label=\"Sections\"><ul>{items}</ul></nav>"


def _sorted_findings(fs):
    return sorted(fs, key=lambda f: (SEVERITY_ORDER.get(f["severity"], 9), f["name"]))


def _details(d: dict) -> str:
    return esc(" ".join(f"{k}={value_text(k, v)}" for k, v in d.items() if k != "event"))


def _findings(doc: dict, ctx) -> str:
    fs = _sorted_findings(doc.get("findings", []))
    rows = []
    for i, f in enumerate(fs):
        details = f.get("details", [])
        det = "<br>".join(_details(d) for d in details[:6])
        if len(details) > 6:
            det += f"<br><span class=\"muted\">+{len(details) - 6} more</span>"
        ev = ", ".join(_link(ctx, e) for e in f.get("evidence", [])[:24])
        if len(f.get("evidence", [])) > 24:
            ev += f" <span class=\"muted\">(+{len(f['evidence']) - 24})</span>"
        rows.append((f"<span id=\"{anchor('finding', i)}\">{_sev(f['severity'])}</span>",
                     f"<strong class=\"fname\">{esc(f['name'])}</strong><br><span class=\"muted\">{esc(f['category'])}</span>",
                     _techs(f.get("attack", [])) or "<span class=\"muted\">none</span>",
                     esc(f["description"]), det, ev))
    body = table("Findings", ("Severity", "Finding", "ATT&CK", "What it means", "Details",
                                           "Evidence events"), rows, cls="fd") if rows else "<p>No findings.</p>"
    return f"<section aria-labelledby=\"findings\"><h2 id=\"findings\">Findings</h2>{body}</section>"


def _processes(doc: dict, ctx) -> str:
    procs = doc.get("processes", [])
    by_pid = {p["pid"]: p for p in procs}
    seen: set = set()

    def node(p) -> str:
        seen.add(p["pid"])
        ex = p.get("exit")
        if ex is None:
            end = "<span class=\"muted\">still running</span>"
        elif ex.get("signal"):
            end = f"<span class=\"exit-bad\">killed by {esc(ex.get('signal_name') or ex['signal'])}</span>"
        else:
            cls = "exit-ok" if ex.get("status") == 0 else "exit-bad"
            end = f"<span class=\"{cls}\">exit {esc(ex.get('status'))}</span>"
        out = [f"<li><span class=\"proc\"><span class=\"pid\">{esc(p['pid'])}</span> {code(_argv(p.get('argv', [])))}"
               f" &mdash; {end}<br><span class=\"muted\">exe {esc(p.get('exe'))}; cwd {esc(p.get('cwd'))}</span></span>"]
        attempts = p.get("execve", [])
        if attempts:
            out.append("<ul class=\"attempts\">")
            for a in attempts[:32]:
                res = "ok" if a.get("result") == 0 else a.get("result")
                out.append(f"<li>execve {code(a.get('path'))} {code(_argv(a.get('argv', [])))} &rarr; {esc(res)}"
                           f" (event {_link(ctx, a.get('event'))})</li>")
            out.append("</ul>")
        env = p.get("env") or []
        if env:
            out.append(f"<details><summary>environment ({len(env)})</summary><pre>"
                       + esc("\n".join(env[:200])) + "</pre></details>")
        kids = [by_pid[c] for c in p.get("children", []) if c in by_pid and c not in seen]
        if kids:
            out.append("<ul>" + "".join(node(k) for k in kids) + "</ul>")
        out.append("</li>")
        return "".join(out)

    roots = [p for p in procs if p.get("ppid") not in by_pid]
    tree = "".join(node(p) for p in roots if p["pid"] not in seen)
    tree += "".join(node(p) for p in procs if p["pid"] not in seen)
    return (f"<section aria-labelledby=\"processes\"><h2 id=\"processes\">Processes ({len(procs)})</h2>"
            f"<ul class=\"tree\">{tree}</ul></section>")


def _argv(argv) -> str:
    return " ".join(a if a and all(c.isalnum() or c in "-_./:=@%+," for c in a) else repr(a) for a in argv)


def _timeline(doc: dict, ctx) -> str:
    evs = [e for e in doc.get("events", []) if e["id"] in ctx["shown"]]
    rows = []
    for e in evs:
        det = " ".join(f"{k}={value_text(k, v)}" for k, v in e.items() if k not in EVENT_KEYS)
        rows.append((f"<span id=\"{anchor('ev', e['id'])}\">{int(e['id'])}</span>",
                     f"{e['time_ns'] / 1e6:.3f}", esc(e.get("pid")), esc(e.get("kind")),
                     f"<strong>{esc(e.get('name'))}</strong>", esc(det[:600])))
    total = len(doc.get("events", [])) + doc.get("events_dropped", 0)
    body = table("Notable events on the virtual clock", ("Event", "Time (ms)", "PID", "Kind", "Name", "Details"),
                 rows, total, cls="tl", note="; the report's JSON lists up to 20,000")
    return f"<section aria-labelledby=\"timeline\"><h2 id=\"timeline\">Timeline</h2>{body}</section>"


def _files(doc: dict, ctx) -> str:
    out = ["<section aria-labelledby=\"files\"><h2 id=\"files\">Files</h2>"]
    drops = doc.get("dropped", [])
    rows = []
    for d in drops[:MAX_ROWS]:
        where = "overlay" if d.get("where") != "host" else f"HOST: {d.get('host_path')}"
        rows.append((code(d["path"]) + (f"<br><span class=\"muted\">written as {esc(d['written_as'])}</span>"
                                        if d.get("written_as") else ""),
                     esc(d.get("status")), esc(d.get("size")), f"{d.get('mode', 0):04o}", esc(where),
                     f"<code class=\"hash\">{esc(d.get('sha256'))}</code>"))
    out.append(table("Dropped files", ("Path", "Status", "Bytes", "Mode", "Where", "SHA-256"), rows, len(drops))
               if drops else "<p>No file was dropped.</p>")
    for d in drops[:64]:
        if not d.get("head"):
            continue
        try:
            head = bytes.fromhex(d["head"])
        except ValueError:
            continue
        strings = "".join(f"<li>{code(s)}</li>" for s in d.get("strings", [])[:20])
        out.append(f"<details><summary>Content of {code(d['path'])} (first {len(head)} of {esc(d.get('size'))} bytes)"
                   f"</summary><pre>{esc(hexdump(head))}</pre>"
                   + (f"<ul class=\"strings\">{strings}</ul>" if strings else "") + "</details>")
    files = [f for f in doc.get("files", []) if not is_stream(f["path"])]
    rows = [(code(f["path"]), esc(", ".join(f.get("ops", []))), esc(f.get("bytes_read", 0)),
             esc(f.get("bytes_written", 0)), ", ".join(_link(ctx, e) for e in f.get("events", [])[:6]))
            for f in files[:MAX_ROWS]]
    out.append(table("Files opened, read, written or removed", ("Path", "Operations", "Bytes read",
                                                                "Bytes written", "Events"), rows, len(files)))
    out.append("</section>")
    return "".join(out)


def _network(doc: dict, ctx) -> str:
    socks = doc.get("network", {}).get("sockets", [])
    rows = []
    for s in socks[:MAX_ROWS]:
        peers = "<br>".join(f"{esc(value_text('peer', p))} &rarr; {'denied' if p.get('denied') else esc(p.get('result'))}"
                            for p in s.get("peers", [])[:8]) or "<span class=\"muted\">none</span>"
        rows.append((esc(s.get("pid")), esc(f"{s.get('family')} {s.get('type')}"),
                     "denied" if s.get("denied") else esc(f"fd {s.get('fd')}"), peers,
                     esc(s.get("bytes_sent", 0)), code(s.get("preview", ""))))
    out = ["<section aria-labelledby=\"network\"><h2 id=\"network\">Network and DNS</h2>",
           table("Sockets and connection attempts", ("PID", "Socket", "State", "Peers", "Bytes sent",
                                                     "First bytes"), rows, len(socks))
           if socks else "<p>No socket was made.</p>"]
    dns = doc.get("dns", [])
    rows = [(code(d.get("name")), esc(d.get("type")), esc(d.get("source")), esc(d.get("server") or ""),
             _link(ctx, d.get("event"))) for d in dns[:MAX_ROWS]]
    out.append(table("Names looked up", ("Name", "Type", "How", "Server", "Event"), rows, len(dns))
               if dns else "<p>No name was looked up.</p>")
    out.append("</section>")
    return "".join(out)


def _code(doc: dict, ctx) -> str:
    regions = doc.get("unpacked")
    if not regions:
        return ""
    rows = [(esc(hex(u["address"])), esc(u["size"]), esc(u.get("pid")),
             esc(value_text("writer", u.get("writer"))) + (f"<br><span class=\"muted\">{esc(u.get('writer_module'))}"
                                                           "</span>" if u.get("writer_module") else ""),
             f"{u.get('time_ns', 0) / 1e6:.3f}", esc(u.get("pattern", "")),
             f"<code class=\"hash\">{esc(u.get('sha256'))}</code>", _link(ctx, u.get("event")))
            for u in regions[:MAX_ROWS]]
    return ("<section aria-labelledby=\"code\"><h2 id=\"code\">Unpacked code</h2>"
            "<p>Memory the program wrote and then ran (written pages seen executing, not guessed from "
            "permissions).</p>"
            + table("Regions written, then executed", ("Address", "Bytes", "PID", "Written by", "First run (ms)",
                                                       "Pattern", "SHA-256", "Event"), rows, len(regions), cls="uc")
            + "</section>")


def _yara(doc: dict) -> str:
    if "yara" not in doc:
        return ""
    y = doc["yara"] or {}
    matches = y.get("matches", [])
    rows = [(code(m.get("rule")), esc(m.get("where")), code(m.get("name", "")),
             esc(", ".join(f"{s.get('identifier')}@{s.get('offset')}" for s in m.get("strings", [])[:8])))
            for m in matches[:MAX_ROWS]]
    scanned = y.get("scanned", 0)
    body = (table("Rule matches", ("Rule", "Where", "Object", "Strings at offsets"), rows, len(matches))
            if matches else "<p>No rule matched.</p>")
    return (f"<section aria-labelledby=\"yara\"><h2 id=\"yara\">YARA</h2><p>{esc(y.get('rules', ''))}: "
            f"{esc(scanned)} objects scanned.</p>{body}</section>")


def _signals(doc: dict, ctx) -> str:
    sig = doc.get("signals", [])
    out = ["<section aria-labelledby=\"signals\"><h2 id=\"signals\">Signals, limits and errors</h2>"]
    rows = [(esc(s.get("pid")), esc(s.get("what")), esc(s.get("signal")), esc(s.get("to", "")),
             _link(ctx, s.get("event"))) for s in sig[:MAX_ROWS]]
    out.append(table("Signals", ("PID", "What", "Signal", "To", "Event"), rows, len(sig)) if sig
               else "<p>No signal.</p>")
    lim = doc.get("limits_hit", [])
    rows = [(esc(x.get("limit")), esc(x.get("how")), esc(x.get("count")), _link(ctx, x.get("event"))) for x in lim]
    out.append(table("Limits hit", ("Limit", "How", "Times", "Event"), rows) if lim
               else "<p>No limit of the sandbox was hit.</p>")
    errs = doc.get("errors", [])
    rows = [(esc(e.get("kind")), esc(e.get("message"))) for e in errs[:MAX_ROWS]]
    out.append(table("emutrace's errors", ("Kind", "Message"), rows, len(errs)) if errs
               else "<p>emutrace reported no error.</p>")
    out.append("</section>")
    return "".join(out)


def _target(target) -> str:
    if not target:
        return ("<section aria-labelledby=\"target\"><h2 id=\"target\">Target</h2><p>The program did not start "
                "(see errors).</p></section>")
    elf = target.get("elf", {})
    kind = "static" if elf.get("static") else f"dynamic, interpreter {elf.get('interpreter')}"
    facts = (("Path", code(target.get("path"))), ("SHA-256", f"<code class=\"hash\">{esc(target.get('sha256'))}</code>"),
             ("Size", f"{esc(target.get('size'))} bytes"),
             ("ELF", esc(f"{elf.get('type')}{' (PIE)' if elf.get('pie') else ''}, {kind}")),
             ("Entry", code(hex(elf.get("entry") or 0))),
             ("Symbols", "stripped (no .symtab)" if elf.get("stripped") else "not stripped"),
             ("Needs", esc(", ".join(elf.get("needed", [])) or "nothing")))
    out = ["<section aria-labelledby=\"target\"><h2 id=\"target\">Target</h2><dl class=\"facts\">"]
    out += [f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts]
    out.append("</dl>")
    secs = elf.get("sections", [])
    rows = []
    for s in secs:
        ent = s.get("entropy")
        rows.append((code(s.get("name")), esc(s.get("type")), code(hex(s.get("address", 0))), esc(s.get("size")),
                     f"<meter min=\"0\" max=\"8\" high=\"7.2\" value=\"{float(ent):.3f}\"></meter> {float(ent):.2f}"
                     if isinstance(ent, (int, float)) else "<span class=\"muted\">no bytes</span>"))
    if secs:
        out.append(table("Sections (entropy in bits per byte: packed or encrypted data is near 8)",
                         ("Name", "Type", "Address", "Bytes", "Entropy"), rows))
    imports = target.get("imports", [])
    if imports:
        out.append(f"<details><summary>Imported functions ({len(imports)})</summary><ul class=\"strings\">"
                   + "".join(f"<li>{code(i)}</li>" for i in imports[:MAX_IMPORTS]) + "</ul>"
                   + (f"<p class=\"cut\">{len(imports) - MAX_IMPORTS} more not shown.</p>"
                      if len(imports) > MAX_IMPORTS else "") + "</details>")
    out.append("</section>")
    return "".join(out)


def _strings(doc: dict, ctx) -> str:
    st = doc.get("strings", {})
    comps = st.get("compares", [])
    rows = [(code(c.get("function")), "<br>".join(code(a[:300]) for a in c.get("args", [])), esc(c.get("count")),
             _link(ctx, c.get("event"))) for c in comps[:MAX_ROWS]]
    out = ["<section aria-labelledby=\"strings\"><h2 id=\"strings\">Strings</h2>",
           table("Strings compared by the program", ("Function", "Arguments", "Times", "Event"), rows, len(comps))
           if comps else ""]
    mem = [s for s in st.get("memory", []) if worth_keeping(s)]
    if mem:
        out.append(f"<details open><summary>Strings in memory at exit ({len(mem)}, filtered)</summary>"
                   "<ul class=\"strings\">" + "".join(f"<li>{code(s)}</li>" for s in mem[:MAX_ROWS]) + "</ul>"
                   + (f"<p class=\"cut\">{len(mem) - MAX_ROWS} more not shown.</p>" if len(mem) > MAX_ROWS else "")
                   + "</details>")
    out.append("</section>")
    return "".join(out)
