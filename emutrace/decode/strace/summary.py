"""strace -c's table."""
from __future__ import annotations

from emutrace.kernel import table as _table


def format_summary(rows) -> str:
    """strace -c's table. rows: (name, calls, errors, seconds); sorted by time (ties by syscall
    number, as strace does), usecs/call truncated, errors blank when 0, then the total line."""
    rows = [(str(n), int(c), int(e), float(s)) for n, c, e, s in rows if int(c) or int(e)]

    def nr(name):
        row = _table.BY_NAME.get(name)
        return row.nr if row is not None else 1 << 20

    rows.sort(key=lambda r: (-round(r[3] * 1e6), nr(r[0]), r[0]))
    total_s = sum(r[3] for r in rows)
    total_c = sum(r[1] for r in rows)
    total_e = sum(r[2] for r in rows)
    usec = lambda s, c: int(round(s * 1e6)) // c if c else 0
    cols = [(r[0], "%.2f" % (100.0 * r[3] / total_s if total_s else 0.0), "%.6f" % r[3],
             str(usec(r[3], r[1])), str(r[1]), str(r[2]) if r[2] else "") for r in rows]
    total = ("total", "100.00", "%.6f" % total_s,
             str(usec(total_s, total_c)), str(total_c), str(total_e) if total_e else "")
    w = [6, 11, 11, 9, 9]
    for c in cols + [total]:
        for k in range(5):
            w[k] = max(w[k], len(c[k + 1]))
    namew = max([16] + [len(c[0]) for c in cols])
    heads = ["% time", "seconds", "usecs/call", "calls", "errors"]
    lines = [" ".join(h.rjust(w[k]) if k else h.ljust(w[k]) for k, h in enumerate(heads)) + " syscall"]
    dash = " ".join("-" * x for x in w) + " " + "-" * namew
    lines.append(dash)
    for c in cols:
        lines.append(" ".join(c[k + 1].rjust(w[k]) for k in range(5)) + " " + c[0])
    lines.append(dash)
    lines.append(" ".join(total[k + 1].rjust(w[k]) for k in range(5)) + " " + total[0])
    return "\n".join(lines) + "\n"
