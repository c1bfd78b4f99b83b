"""The `%%spore_profile` table: ops by total time, each with the notebook line that ran it.

`Profiler.table()` groups events by op, mode, source and Cell scope; here the source becomes
'In[4] line 3' plus the code on that line, because in a notebook the cell's temporary file name
tells the user nothing.
"""

from __future__ import annotations

import html
from typing import Any

from . import sources

MIME_PROFILE = "application/vnd.spore.profile+json"


def rows(shell: Any, prof: Any, top: int) -> list[dict[str, Any]]:
    out = []
    for r in prof.table(top):
        file, line = None, None
        if r["where"]:
            file, _, line_s = r["where"].rpartition(":")
            line = int(line_s) if line_s.isdigit() else None
        label = sources.cell_label(shell, file)
        out.append({**r, "cell": label, "line": line, "file": file,
                    "source": f"{label} line {line}" if label else (r["where"] or ""),
                    "code": sources.line_text(file, line).strip()})
    return out


def text_table(rs: list[dict[str, Any]], n_events: int) -> str:
    head = f"{'op':<20}{'mode':<9}{'calls':>7}{'total ms':>10}{'%':>7}  {'scope':<18}source"
    lines = [f"Spore profile: {n_events} op events", head, "-" * (len(head) + 24)]
    for r in rs:
        code = f"  {r['code']}" if r["code"] else ""
        lines.append(f"{r['op'][:19]:<20}{r['mode']:<9}{r['calls']:>7}{r['total_us'] / 1e3:>10.3f}"
                     f"{r['percent']:>7.1f}  {r['scope'][:17]:<18}{r['source']}{code}")
    return "\n".join(lines)


def html_table(rs: list[dict[str, Any]], n_events: int) -> str:
    body = "".join(
        f"<tr><td><code>{html.escape(r['op'])}</code></td><td>{r['mode']}</td>"
        f"<td style='text-align:right'>{r['calls']}</td><td style='text-align:right'>{r['total_us'] / 1e3:.3f}</td>"
        f"<td style='text-align:right'>{r['percent']:.1f}</td><td>{html.escape(r['scope'])}</td>"
        f"<td>{html.escape(r['source'])}</td><td><code>{html.escape(r['code'])}</code></td></tr>" for r in rs)
    return (f"<div class='spore-profile'><b>Spore profile</b>: {n_events} op events"
            f"<table><thead><tr><th>op</th><th>mode</th><th>calls</th><th>total ms</th><th>%</th><th>scope</th>"
            f"<th>source</th><th>code</th></tr></thead><tbody>{body}</tbody></table></div>")


def bundle(shell: Any, prof: Any, top: int = 20) -> dict[str, Any]:
    rs = rows(shell, prof, top)
    n = len(prof.events)
    return {"text/plain": text_table(rs, n), "text/html": html_table(rs, n),
            MIME_PROFILE: {"schema": "spore.profile/1", "events": n, "rows": rs}}
