"""A batch's index page (OUT/index.html, written by `emutrace batch` beside its summary): one row
per sample (verdict, top findings with their ATT&CK ids, status, exit, time, family) linking to
each sample's own page, and the samples grouped into families: samples that behaved the same
(the same findings and the same dropped files' hashes), so a corpus of variants reads as a few
families. Sortable and filterable with script (page.js); a plain table without it.

It reads only the summary's records (summary.jsonl's fields plus the digest the worker took
from each report), never the reports themselves, so 1,000 samples index in well under a second."""
from __future__ import annotations

from typing import Dict, List, Tuple

from emutrace.report.htmlkit import anchor, code, esc, page, table

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2, None: 3}
VERDICT = {"high": "malicious", "medium": "suspicious", "low": "notable", None: "no findings"}


def family_key(r: dict) -> Tuple[tuple, tuple]:
    return (tuple(sorted(set(r.get("finding_names") or []))), tuple(r.get("dropped_sha256") or []))


def families(results: List[dict]) -> Dict[tuple, List[dict]]:
    """Samples grouped by family_key, families in the order of their first sample."""
    out: Dict[tuple, List[dict]] = {}
    for r in results:
        if r.get("status") == "bad-input":
            continue
        out.setdefault(family_key(r), []).append(r)
    return out


def render(results: List[dict], title: str = "emutrace batch") -> str:
    fams = families(results)
    names = {key: f"F{i + 1}" for i, key in enumerate(fams)}
    rows = []
    for r in results:
        sev = r.get("severity")
        fam = names.get(family_key(r)) if r.get("status") != "bad-input" else None
        top = "<br>".join(f"{esc(f['name'])} <span class=\"muted\">{esc(' '.join(f.get('attack', [])))}</span>"
                          for f in (r.get("top_findings") or [])[:3])
        more = len(r.get("finding_names") or []) - 3
        if more > 0:
            top += f"<br><span class=\"muted\">+{more} more</span>"
        link = f"jobs/{r['id']}/report.html"
        rows.append((f"<a href=\"{esc(link)}\">{esc(r['id'])}</a>",
                     f"<span class=\"sev sev-{sev or 'none'}\">{VERDICT.get(sev, esc(sev))}</span>",
                     top or "<span class=\"muted\">none</span>", esc(r.get("status")),
                     esc("" if r.get("exit_code") is None else r["exit_code"]),
                     f"{float(r.get('time_s') or 0):.2f}",
                     f"<a href=\"#{anchor('family', fam)}\">{fam}</a>" if fam else ""))
    counts: Dict[str, int] = {}
    for r in results:
        counts[r.get("status")] = counts.get(r.get("status"), 0) + 1
    verdicts: Dict[object, int] = {}
    for r in results:
        verdicts[r.get("severity")] = verdicts.get(r.get("severity"), 0) + 1
    summary = ", ".join(f"{n} {esc(VERDICT.get(s, s))}" for s, n in
                        sorted(verdicts.items(), key=lambda kv: SEVERITY_ORDER.get(kv[0], 9)))
    status = ", ".join(f"{n} {esc(s)}" for s, n in sorted(counts.items(), key=lambda kv: str(kv[0])))
    sample_table = table("Samples", ("Sample", "Verdict", "Top findings (ATT&CK)", "Status", "Exit", "Time (s)",
                                     "Family"), rows, cls="nw1").replace("data-filter>", "data-filter data-sort>", 1)
    frows = []
    for key, members in fams.items():
        fam = names[key]
        findings, drops = key
        links = ", ".join(f"<a href=\"jobs/{esc(m['id'])}/report.html\">{esc(m['id'])}</a>" for m in members[:50])
        if len(members) > 50:
            links += f" <span class=\"muted\">(+{len(members) - 50})</span>"
        frows.append((f"<span id=\"{anchor('family', fam)}\">{fam}</span>", esc(len(members)),
                      esc(", ".join(findings)) or "<span class=\"muted\">none</span>",
                      "<br>".join(f"<code class=\"hash\">{esc(h[:16])}…</code>" for h in drops[:8]) + (f"<br>+{len(drops) - 8}" if len(drops) > 8
                                                                             else "")
                      or "<span class=\"muted\">none</span>", links))
    body = (f"<header class=\"top\"><h1>{esc(title)}</h1><p>{len(results)} samples</p></header><main id=\"main\">"
            "<nav class=\"toc\" aria-label=\"Sections\"><ul><li><a href=\"#samples\">Samples</a></li>"
            "<li><a href=\"#families\">Families</a></li></ul></nav>"
            f"<section class=\"verdict\" aria-label=\"Summary\"><p><strong>{len(results)} samples</strong>: {summary}"
            f"</p><p>Status: {status}. {len(fams)} famil{'y' if len(fams) == 1 else 'ies'} of behaviour.</p></section>"
            f"<section aria-labelledby=\"samples\"><h2 id=\"samples\">Samples</h2>{sample_table}</section>"
            "<section aria-labelledby=\"families\"><h2 id=\"families\">Families</h2><p>Samples with the same "
            "findings and the same dropped files (by SHA-256).</p>"
            + table("Families", ("Family", "Samples", "Findings", "Dropped (SHA-256)", "Members"), frows, cls="nw1")
            + "</section><footer>Made by emutrace from summary.jsonl; each sample's page is "
            "jobs/NAME/report.html.</footer></main>")
    return page(title, body)
