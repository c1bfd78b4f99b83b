"""Inspection (Shift+Tab, hover, `x?`) that knows Spore's objects.

IPython answers both an `inspect_request` and `x?` through its Inspector, so subclassing it gives
one answer in every place a notebook asks. Spore objects get their own sections, in IPython's
layout: a tensor its shape, dtype, statistics and where it came from; a Cell its layers and
parameters; an op its signature, docstring and the op registry's declaration. Everything else is
IPython's usual answer. Names that are not bound in the notebook yet (`ops.matmul` before the
import ran) are looked up in Spore's API, so docs show up while the user is still typing.
"""

from __future__ import annotations

import html
import logging
import sys
from typing import Any

from IPython.core.oinspect import Inspector

from . import opdocs, sources

log = logging.getLogger("spore_kernel")


def _is_tensor(obj: Any) -> bool:
    module = sys.modules.get("spore.tensor")  # not loaded yet: nothing can be a Spore tensor
    return module is not None and isinstance(obj, module.Tensor)


def _is_cell(obj: Any) -> bool:
    module = sys.modules.get("spore.nn.cell")
    return module is not None and isinstance(obj, module.Cell)


def tensor_origin(shell: Any, oname: str, t: Any) -> str:
    """Where a tensor came from: its Parameter path, the op that made it, the cell that assigned it."""
    lines = []
    from spore import ide

    origin = ide.tensor_origin(t)
    if origin["parameter"] is not None:
        lines.append(f"Parameter {origin['parameter']!r}")
    if origin["op"] is not None:
        lines.append(f"output of op {origin['op']} (recorded for gradients)")
    root = oname.split(".")[0].split("[")[0]
    if root.isidentifier():
        hit = sources.last_assignment(shell, root)
        if hit is not None:
            number, line, text = hit
            lines.append(f"Cell In[{number}], line {line}: {text}")
    return "\n".join(lines) or "not assigned in this session's cells"


def tensor_sections(shell: Any, oname: str, t: Any) -> list[tuple[str, str]]:
    from . import tensor_view

    st = tensor_view.stats_of(t)
    sections = [("Summary", tensor_view.summary(t, st)), ("Shape", str(tuple(st.shape))), ("Dtype", st.dtype)]
    if st.size and st.min is not None and st.kind != "bool":
        approx = f" (from {st.n_read:,} sampled values)" if st.sampled else ""
        sections.append(("Stats", f"min={st.min:.6g} max={st.max:.6g} mean={st.mean:.6g} std={st.std:.6g}{approx}"))
    flags = st.flags()
    if flags:
        sections.append(("Flags", " ".join(flags)))
    grad = tensor_view.grad_info(t)
    if grad:
        sections.append(("Grad", grad))
    sections.append(("Origin", tensor_origin(shell, oname, t)))
    return sections


def cell_sections(c: Any) -> list[tuple[str, str]]:
    from . import cell_view

    layers = [f"{path or '(root)'}: {type(sub).__name__}" + (f"<{sub.extend_repr()}>" if sub.extend_repr() else "")
              for path, sub in c.cells_and_names()]
    rows = cell_view.param_rows(c)
    sections = [("Type", type(c).__name__), ("Summary", cell_view.headline(c, rows)),
                ("Layers", "\n".join(layers)), ("Parameters", cell_view.param_table_text(rows))]
    sections.insert(1, ("Construct", opdocs.signature(type(c).construct)))
    doc = type(c).__doc__
    if doc:
        sections.append(("Docstring", doc.strip()))
    return sections


def to_bundle(sections: list[tuple[str, str]], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """An unformatted bundle in the shape `Inspector.format_mime` expects."""
    bundle: dict[str, Any] = {
        "text/plain": list(sections),
        "text/html": [(title, f"<pre>{html.escape(body)}</pre>") for title, body in sections],
    }
    bundle.update(extra or {})
    return bundle


class SporeInspector(Inspector):
    """IPython's Inspector, with Spore's own sections for tensors, Cells and ops."""

    shell: Any = None

    def _get_info(self, obj: Any, oname: str = "", formatter: Any = None, info: Any = None,
                  detail_level: int = 0, omit_sections: Any = ()) -> dict[str, Any]:
        try:
            sections, extra = self.spore_sections(obj, oname)
        except Exception:  # noqa: BLE001 - fall back to IPython's answer rather than none
            log.warning("spore inspection of %s failed", oname, exc_info=True)
            sections, extra = None, None
        if sections is None:
            return super()._get_info(obj, oname, formatter, info, detail_level, omit_sections)
        return self.format_mime(to_bundle(sections, extra))

    def spore_sections(self, obj: Any, oname: str) -> tuple[list[tuple[str, str]] | None, dict[str, Any] | None]:
        from . import cell_view, tensor_view

        if _is_tensor(obj):
            return tensor_sections(self.shell, oname, obj), {tensor_view.MIME_TENSOR: tensor_view.json_bundle(obj)}
        if _is_cell(obj):
            return cell_sections(obj), {cell_view.MIME_CELL: cell_view.json_bundle(obj)}
        if opdocs.is_spore_api(obj):
            return opdocs.api_sections(obj), None
        return None, None


def install(shell: Any) -> SporeInspector:
    """Replace the shell's inspector with a SporeInspector configured the same way."""
    old = shell.inspector
    new = SporeInspector(theme_name=getattr(old, "_theme_name", "nocolor"),
                         str_detail_level=getattr(old, "str_detail_level", 0), parent=shell)
    new.shell = shell
    shell.inspector = new
    return new


def inspect_unbound(shell: Any, name: str, detail_level: int = 0) -> dict[str, Any] | None:
    """A bundle for a Spore API name that the notebook has not bound (yet); None if there is none."""
    obj = opdocs.lookup(name)
    if obj is None or not opdocs.is_spore_api(obj):
        return None
    return shell.inspector._get_info(obj, name, detail_level=detail_level)
