"""What a notebook shows for a Cell: its structure and a table of its parameters.

The parameter table answers the questions asked of a network in a notebook — how big is it, which
parameters train, did the shapes come out as intended — which the nested repr alone does not.
Large networks list their first `MAX_ROWS` parameters; the totals always cover all of them.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from .stats import human_bytes

MIME_CELL = "application/vnd.spore.cell+json"
MAX_ROWS = 200


@dataclass
class ParamRow:
    path: str
    shape: tuple[int, ...]
    dtype: str
    count: int
    nbytes: int
    requires_grad: bool


def param_rows(cell: Any) -> list[ParamRow]:
    return [ParamRow(path, tuple(p.shape), p.dtype.name, int(p.size), int(p.nbytes), bool(p.requires_grad))
            for path, p in cell.parameters_and_names()]


def totals(rows: list[ParamRow]) -> dict[str, int]:
    return {"tensors": len(rows), "total": sum(r.count for r in rows),
            "trainable": sum(r.count for r in rows if r.requires_grad), "nbytes": sum(r.nbytes for r in rows)}


def headline(cell: Any, rows: list[ParamRow]) -> str:
    t = totals(rows)
    n_layers = sum(1 for _ in cell.cells_and_names()) - 1
    return (f"{type(cell).__name__}: {n_layers} sub-cells, {t['tensors']} parameter tensors, "
            f"{t['total']:,} parameters ({t['trainable']:,} trainable), {human_bytes(t['nbytes'])}")


def param_table_text(rows: list[ParamRow]) -> str:
    if not rows:
        return "(no parameters)"
    shown = rows[:MAX_ROWS]
    width = max(len("name"), *(len(r.path) for r in shown))
    shapes = [str(r.shape) for r in shown]
    sw = max(len("shape"), *(len(s) for s in shapes))
    lines = [f"{'name':<{width}}  {'shape':<{sw}}  {'dtype':<8}  {'count':>10}  grad"]
    lines.append("-" * len(lines[0]))
    for r, s in zip(shown, shapes):
        grad = "yes" if r.requires_grad else "no"
        lines.append(f"{r.path:<{width}}  {s:<{sw}}  {r.dtype:<8}  {r.count:>10,}  {grad}")
    if len(rows) > MAX_ROWS:
        lines.append(f"... {len(rows) - MAX_ROWS} more parameters")
    t = totals(rows)
    lines.append(f"{'total':<{width}}  {'':<{sw}}  {'':<8}  {t['total']:>10,}  ({t['trainable']:,} trainable)")
    return "\n".join(lines)


def text_plain(cell: Any) -> str:
    rows = param_rows(cell)
    return f"{cell!r}\n\n{headline(cell, rows)}\n{param_table_text(rows)}"


def text_html(cell: Any) -> str:
    rows = param_rows(cell)
    t = totals(rows)
    body = "".join(
        f"<tr><td><code>{html.escape(r.path)}</code></td><td>{html.escape(str(r.shape))}</td>"
        f"<td>{html.escape(r.dtype)}</td><td style='text-align:right'>{r.count:,}</td>"
        f"<td>{'✓' if r.requires_grad else ''}</td></tr>" for r in rows[:MAX_ROWS])
    more = (f"<tr><td colspan='5'>… {len(rows) - MAX_ROWS} more parameters</td></tr>"
            if len(rows) > MAX_ROWS else "")
    return (f"<div class='spore-cell'><b>{html.escape(headline(cell, rows))}</b>"
            f"<table class='spore-params'><thead><tr><th>name</th><th>shape</th><th>dtype</th><th>count</th>"
            f"<th>grad</th></tr></thead><tbody>{body}{more}</tbody>"
            f"<tfoot><tr><th>total</th><td></td><td></td><td style='text-align:right'>{t['total']:,}</td>"
            f"<td>{t['trainable']:,} trainable</td></tr></tfoot></table>"
            f"<details><summary>structure</summary><pre>{html.escape(repr(cell))}</pre></details></div>")


def json_bundle(cell: Any) -> dict[str, Any]:
    rows = param_rows(cell)
    return {"schema": "spore.cell/1", "type": type(cell).__name__,
            "cells": [{"path": p, "type": type(c).__name__} for p, c in cell.cells_and_names()],
            "params": [{"name": r.path, "shape": list(r.shape), "dtype": r.dtype, "count": r.count,
                        "requires_grad": r.requires_grad} for r in rows[:MAX_ROWS]],
            "totals": totals(rows)}


def bundle(cell: Any) -> dict[str, Any]:
    return {"text/plain": text_plain(cell), "text/html": text_html(cell), MIME_CELL: json_bundle(cell)}
