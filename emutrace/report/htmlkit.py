"""What every emutrace HTML page shares: escaping of guest-controlled text, the page shell with
its inline style and script, and a Content-Security-Policy that lets only those two run.

Why a policy as well as escaping: a hostile sample controls most of the text a page shows
(paths, argv, environment, file contents, strings). Everything is escaped; the policy
(`default-src 'none'`, the style and the script allowed by their SHA-256 only) is the second
wall: even a bug in escaping could not run a script of the sample's or make the page fetch
anything. Pages are self-contained (no network, fonts or CDN) and byte-identical for the same
input: nothing here reads a clock, the host or a random source.

The core of each page is HTML and CSS; the script (page.js) only adds a filter box to long
tables, sorting of the batch index, and fold/unfold-all buttons, all created by the script
itself, so a page read with JavaScript off shows no dead controls."""
from __future__ import annotations

import base64
import hashlib
import os
import re
from typing import Iterable, List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _asset(name: str) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read()


CSS = _asset("page.css")
JS = _asset("page.js")


def _visible(m) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def esc(value) -> str:
    """Any value as HTML text: control characters (NUL included) and lone surrogates (bytes
    that were not UTF-8) shown as \\xNN / \\uNNNN, then &, <, >, " and ' as entities."""
    s = value if isinstance(value, str) else str(value)
    s = _CONTROL.sub(_visible, s)
    return (s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#x27;"))


def anchor(prefix: str, value) -> str:
    """An id or fragment made only of [a-z0-9-], whatever the value: ids never carry guest text."""
    return prefix + "-" + re.sub(r"[^a-z0-9-]", "-", str(value).lower())


def _sha(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def page(title: str, body: str) -> str:
    """The whole document: doctype, language, charset, the policy, the style, body, script."""
    csp = (f"default-src 'none'; style-src {_sha(CSS)}; script-src {_sha(JS)}; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"referrer\" content=\"no-referrer\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            "<a class=\"skip\" href=\"#main\">Skip to the report</a>\n"
            f"{body}\n<script>{JS}</script>\n</body>\n</html>\n")


def table(caption: str, head: Sequence[str], rows: Iterable[Sequence[str]], total: Optional[int] = None,
          cls: str = "", note: str = "") -> str:
    """A table with a caption and column headers; cells are HTML already (escaped by the caller).
    `total` > the rows shown adds the count of rows left out."""
    rows = list(rows)
    out: List[str] = [f"<div class=\"scroll\"><table class=\"{cls}\" data-filter>"
                      f"<caption>{esc(caption)} <span class=\"count\">({total if total is not None else len(rows)})"
                      "</span></caption><thead><tr>"]
    out += [f"<th scope=\"col\">{esc(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>")
    out.append("</tbody></table></div>")
    if total is not None and total > len(rows):
        out.append(f"<p class=\"cut\">{total - len(rows)} more not shown ({len(rows)} of {total}){note}.</p>")
    return "".join(out)


def code(value) -> str:
    return f"<code>{esc(value)}</code>"


def hexdump(data: bytes, width: int = 16) -> str:
    """`xxd`-style lines: offset, hex bytes, printable ASCII (anything else as '.')."""
    lines = []
    for off in range(0, len(data), width):
        chunk = data[off:off + width]
        hx = " ".join(f"{b:02x}" for b in chunk)
        text = "".join(chr(b) if 0x20 <= b < 0x7f else "." for b in chunk)
        lines.append(f"{off:08x}  {hx:<{width * 3 - 1}}  {text}")
    return "\n".join(lines)
