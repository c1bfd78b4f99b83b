"""What a notebook shows for a Tensor or Parameter: a one-line summary, an HTML card, a JSON bundle.

The one-line summary follows lovely-tensors: shape, dtype, element count, memory, range, mean,
std, warning flags and gradient state, then the values themselves only when there are few of them.
A bare NumPy-style dump of a large tensor tells the reader little and can flood the output area;
the summary tells what matters (is it NaN? all zeros? the shape I expected?) at a glance.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

import numpy as np

from . import stats as S

MIME_TENSOR = "application/vnd.spore.tensor+json"
SMALL = 64            # values printed under the text summary up to this many elements
JSON_FULL = 1024      # the JSON bundle carries every value up to this many elements
JSON_SAMPLE = 256     # ... and this many sampled values above
EDGE = 4              # rows/columns shown at each edge of a large value table
TABLE_FULL = 12       # dimensions up to this length are shown whole
HEATMAP = 64          # the JSON heatmap has at most this many rows and columns


def _np(t: Any) -> np.ndarray:
    return t.asnumpy()  # the tensor's own buffer, not a copy: views only read it


def _printable(arr: np.ndarray) -> np.ndarray:
    return arr.astype(np.float32) if arr.dtype.kind == "V" else arr


def _json_values(arr: np.ndarray) -> Any:
    """The values as JSON lists; complex numbers as their text "(1+2j)" (JSON has no complex numbers)."""
    return arr.astype(str).tolist() if arr.dtype.kind == "c" else _printable(arr).tolist()


def kind_name(t: Any) -> str:
    return type(t).__name__


def grad_info(t: Any) -> str | None:
    """'requires_grad' / 'no_grad' for a Parameter; 'grad_fn=<op>' for a tensor on the tape."""
    from spore import ide

    origin = ide.tensor_origin(t)
    if origin["parameter"] is not None:
        return "requires_grad" if origin["requires_grad"] else "no_grad"
    if origin["op"] is not None:
        return f"grad_fn={origin['op']}"
    return None


def stats_of(t: Any) -> S.TensorStats:
    return S.compute(_np(t), t.dtype.name)


def summary(t: Any, st: S.TensorStats | None = None) -> str:
    """One line: ``Tensor[2, 3] float32 n=6 24 B x∈[-1.2, 3] μ=0.5 σ=1.1 NaN!1 requires_grad``."""
    st = st or stats_of(t)
    parts = [f"{kind_name(t)}[{', '.join(str(d) for d in st.shape)}]"]
    name = getattr(t, "name", None)
    if isinstance(name, str):
        parts.append(repr(name))
    parts.append(st.dtype)
    arr = _np(t)
    if arr.ndim == 0:
        parts.append(_scalar_text(arr))
    else:
        parts.append(f"n={st.size:,}")
        parts.append(S.human_bytes(st.nbytes))
        parts.extend(_stat_parts(st))
    parts.extend(st.flags())
    g = grad_info(t)
    if g:
        parts.append(g)
    return " ".join(parts)


def _scalar_text(arr: np.ndarray) -> str:
    value = _printable(arr).item()
    return repr(value) if isinstance(value, bool) else S.num(float(value)) if arr.dtype.kind in "fV" else str(value)


def _stat_parts(st: S.TensorStats) -> list[str]:
    if st.size == 0:
        return ["empty"]
    approx = "≈" if st.sampled else ""
    if st.kind == "bool":
        return [f"true={approx}{st.n_true:,}/{st.size:,}"]
    if st.min is None:
        return []
    x, of = ("|x|", "|x|") if st.dtype.startswith("complex") else ("x", "")  # complex: stats of the magnitudes
    out = [f"{x}∈{approx}[{S.num(st.min)}, {S.num(st.max)}]", f"μ{of}={approx}{S.num(st.mean)}",
           f"σ{of}={approx}{S.num(st.std)}"]
    if st.sampled:
        out.append(f"(from {st.n_read:,} sampled values)")
    return out


def text_plain(t: Any, st: S.TensorStats | None = None) -> str:
    """The summary line, then the values when the tensor is small."""
    line = summary(t, st)
    arr = _np(t)
    if 0 < arr.ndim and 0 < arr.size <= SMALL:
        body = np.array2string(_printable(arr), separator=", ", threshold=SMALL)
        return f"{line}\n{body}"
    return line


# --- JSON bundle -----------------------------------------------------------------------------

def jsonable(x: Any) -> Any:
    """Plain JSON: NaN/Inf become strings (JSON has no such numbers)."""
    if isinstance(x, float):
        if math.isnan(x):
            return "NaN"
        if math.isinf(x):
            return "Infinity" if x > 0 else "-Infinity"
        return x
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x


def _spread(n: int, k: int) -> list[int]:
    """All of range(n) when n <= k, else k indices spread evenly from 0 to n-1 (both ends kept)."""
    if n <= k:
        return list(range(n))
    return [int(i) for i in np.linspace(0, n - 1, num=k).round().astype(np.int64)]


def heatmap(arr: np.ndarray, limit: int = HEATMAP) -> dict[str, Any] | None:
    """The last two axes of the first slice (index 0 on every leading axis), at most limit x limit.

    A larger plane is downsampled by picking evenly spread rows and columns — each cell is one real
    element, never an average — and `rows`/`cols` say which index of the plane each cell shows, so a
    renderer's hover names the true index. Only the picked elements are copied. None for fewer than
    two axes or no elements.
    """
    if arr.ndim < 2 or arr.size == 0:
        return None
    lead = (0,) * (arr.ndim - 2)
    plane = arr[lead]
    rows, cols = _spread(plane.shape[0], limit), _spread(plane.shape[1], limit)
    block = plane[np.ix_(rows, cols)]
    magnitude = block.dtype.kind == "c"  # complex: the cells are |z| (JSON has no complex numbers)
    block = block.astype(np.int8) if block.dtype.kind == "b" else np.abs(block) if magnitude else S.as_float(block)
    finite = block[np.isfinite(block)] if block.dtype.kind == "f" else block
    return {
        "slice": list(lead), "axes": [arr.ndim - 2, arr.ndim - 1],
        "shape": [int(plane.shape[0]), int(plane.shape[1])], "rows": rows, "cols": cols,
        "downsampled": len(rows) < plane.shape[0] or len(cols) < plane.shape[1],
        "min": float(finite.min()) if finite.size else None, "max": float(finite.max()) if finite.size else None,
        "data": block.tolist(), **({"magnitude": True} if magnitude else {}),
    }


def json_bundle(t: Any, st: S.TensorStats | None = None) -> dict[str, Any]:
    """Summary, statistics, a bounded set of values and a bounded heatmap, for IDE renderers.

    Schema spore.tensor/1 (keys only ever added): `stats` (see `stats.TensorStats.to_dict`; its
    `histogram` has `edges` and `counts`; `sampled` says they come from `n_read` sampled values),
    `values` (every value up to JSON_FULL elements, else JSON_SAMPLE values with their indices),
    `heatmap` (see `heatmap`; null below two axes or when empty). NaN/Inf are the strings
    "NaN"/"Infinity"/"-Infinity".
    """
    st = st or stats_of(t)
    arr = _np(t)
    if arr.size <= JSON_FULL:
        values: dict[str, Any] = {"kind": "full", "data": _json_values(arr)}
    else:
        idx = S.sample_indices(arr.shape, JSON_SAMPLE)
        values = {"kind": "sample", "count": int(idx[0].size),
                  "indices": np.stack(idx, axis=1).tolist() if arr.ndim else [],
                  "data": _json_values(arr[idx])}
    name = getattr(t, "name", None)
    return jsonable({
        "schema": "spore.tensor/1", "type": kind_name(t),
        "name": name if isinstance(name, str) else None,
        "grad": grad_info(t), "summary": summary(t, st), "stats": st.to_dict(), "values": values,
        "heatmap": heatmap(arr),
    })


def json_text(obj: Any) -> str:
    """The spore.tensor/1 bundle of a Tensor or Parameter as one JSON string (ASCII, no NaN literals).

    What "Spore: Inspect Tensor" evaluates in a debuggee through DAP, where only a string crosses:
    ``__import__('spore_kernel.tensor_view').tensor_view.json_text(x)``. This module imports NumPy,
    the engine's seam and `stats`, never IPython, so it works in any process that has Spore.
    """
    import spore

    if not isinstance(obj, spore.Tensor):
        raise TypeError(f"json_text: expected a Spore Tensor or Parameter, got {type(obj).__module__}."
                        f"{type(obj).__qualname__}")
    return json.dumps(json_bundle(obj), ensure_ascii=True, allow_nan=False, separators=(",", ":"))


# --- HTML card -------------------------------------------------------------------------------

def _edge_index(n: int) -> list[int | None]:
    """All indices of a short axis; the first and last EDGE of a long one, None for the gap."""
    if n <= TABLE_FULL:
        return list(range(n))
    return list(range(EDGE)) + [None] + list(range(n - EDGE, n))


def _cell(v: Any) -> str:
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (float, np.floating)):
        return S.num(float(v))
    return str(v)


def value_table(arr: np.ndarray) -> str:
    """HTML table of the values (of the first 2-D slice for 3-D and up), edges only when large."""
    caption = ""
    if arr.size == 0:
        return f"<code>empty: shape {html.escape(str(tuple(int(d) for d in arr.shape)))}</code>"
    if arr.ndim > 2:
        lead = (0,) * (arr.ndim - 2)
        caption = f"<caption>slice [{', '.join(map(str, lead))}, :, :]</caption>"
        arr = arr[lead]
    if arr.ndim == 0:
        return f"<code>{html.escape(_cell(_printable(arr).item()))}</code>"
    mat = arr[None, :] if arr.ndim == 1 else arr
    rows, cols = _edge_index(mat.shape[0]), _edge_index(mat.shape[1])
    ri = [r for r in rows if r is not None]
    ci = [c for c in cols if c is not None]
    block = _printable(mat[np.ix_(ri, ci)]) if ri and ci else np.zeros((len(ri), len(ci)))
    out = [f"<table class='spore-values'>{caption}"]
    r_pos = 0
    for r in rows:
        out.append("<tr>")
        if r is None:
            out.append("".join("<td>⋮</td>" if c is not None else "<td>⋱</td>" for c in cols))
        else:
            c_pos = 0
            for c in cols:
                if c is None:
                    out.append("<td>…</td>")
                else:
                    out.append(f"<td>{html.escape(_cell(block[r_pos, c_pos]))}</td>")
                    c_pos += 1
            r_pos += 1
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def histogram_svg(st: S.TensorStats, width: int = 240, height: int = 48) -> str:
    """A small inline SVG histogram (no plotting library, so it costs almost nothing)."""
    counts = st.hist_counts
    if not counts:
        return ""
    top = max(counts) or 1
    bar = width / len(counts)
    bars = "".join(
        f"<rect x='{i * bar:.1f}' y='{height - c / top * height:.1f}' width='{max(bar - 1, 1):.1f}' "
        f"height='{c / top * height:.1f}' fill='#4c72b0'/>" for i, c in enumerate(counts))
    lo, hi = html.escape(S.num(st.hist_edges[0])), html.escape(S.num(st.hist_edges[-1]))
    return (f"<svg class='spore-hist' width='{width}' height='{height + 14}' role='img' "
            f"aria-label='histogram of values'>{bars}"
            f"<text x='0' y='{height + 12}' font-size='10'>{lo}</text>"
            f"<text x='{width}' y='{height + 12}' font-size='10' text-anchor='end'>{hi}</text></svg>")


def text_html(t: Any, st: S.TensorStats | None = None) -> str:
    st = st or stats_of(t)
    rows = [("shape", str(st.shape)), ("dtype", st.dtype), ("elements", f"{st.size:,}"),
            ("memory", S.human_bytes(st.nbytes))]
    if st.size and st.kind != "bool" and st.min is not None:
        approx = " (sampled)" if st.sampled else ""
        rows += [("min / max" + approx, f"{S.num(st.min)} / {S.num(st.max)}"),
                 ("mean / std" + approx, f"{S.num(st.mean)} / {S.num(st.std)}")]
    elif st.kind == "bool":
        rows.append(("true", f"{st.n_true:,}"))
    flags = st.flags()
    if flags:
        rows.append(("flags", " ".join(flags)))
    g = grad_info(t)
    if g:
        rows.append(("grad", g))
    stat_rows = "".join(f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                        for k, v in rows)
    return (f"<div class='spore-tensor'><code>{html.escape(summary(t, st))}</code>"
            f"<div style='display:flex;gap:1.5em;align-items:flex-start'>"
            f"<table class='spore-stats'>{stat_rows}</table>{histogram_svg(st)}</div>"
            f"{value_table(_np(t))}</div>")


def bundle(t: Any) -> dict[str, Any]:
    """The full display bundle of a tensor (image/png only on request, through `t.plt`)."""
    st = stats_of(t)
    return {"text/plain": text_plain(t, st), "text/html": text_html(t, st), MIME_TENSOR: json_bundle(t, st)}
