"""`%spore_graph`: compile a Cell (or jitted function) for one input and show the graph.

The compile goes through `spore.ide.compile_graph` (the same path Graph mode uses), and the
compiled graph is only shown, never run: looking at a training step's graph must not take a training step.

The display bundle:

- `text/plain`: the IR text (always).
- `application/vnd.spore.graph+json` (`MIME_GRAPH`): the "spore.graph/1" document, so any front end
  that reads the schema keeps working, with three additions:
  - every node `loc` of code from a notebook cell carries `"cell": <n>` (the cell's In[n] execution
    count; IPython compiles cells to temporary files, so the file name alone means nothing to an editor);
  - `"sources"`: `{file: {"<line>": text}}` for the located lines (from IPython's linecache), so a
    viewer shows the statement without reading any file;
  - `"view"`: when `spore_viz` is importable, the viewer payload (`spore_viz.view_payload`, kind
    "spore.view/1": the layout order the interactive viewer mounts), which the VS Code renderer shows.
- `text/html`: spore_viz's page in a sandboxed `<iframe srcdoc>` with the page's strict CSP, for
  front ends without the renderer (JupyterLab, classic notebook).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

log = logging.getLogger("spore_kernel")

MIME_GRAPH = "application/vnd.spore.graph+json"


def compile_graph(target: Any, args: tuple, kwargs: dict | None = None, raw: bool = False) -> dict[str, Any]:
    """The optimized (or, with raw, the traced) graph of `target` for these inputs: its JSON and IR."""
    from spore import ide

    return ide.compile_graph(target, args, kwargs, raw=raw)


def _viz() -> Any:
    try:
        import spore_viz
    except ImportError:
        return None
    return spore_viz


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def with_cells(graph: dict[str, Any], shell: Any) -> dict[str, Any]:
    """A copy of `graph` whose locs in notebook cells carry `"cell": n` (In[n]), in branches too."""
    from .sources import cell_label

    out = copy.deepcopy(graph)
    labels: dict[str, int | None] = {}

    def cell_of(file: str) -> int | None:
        if file not in labels:
            label = cell_label(shell, file) or ""
            labels[file] = int(label[3:-1]) if label.startswith("In[") and label[3:-1].isdigit() else None
        return labels[file]

    def walk(g: dict[str, Any]) -> None:
        for node in g.get("nodes", []):
            loc = node.get("loc")
            if isinstance(loc, dict) and isinstance(loc.get("file"), str):
                n = cell_of(loc["file"])
                if n is not None:
                    loc["cell"] = n
            for sub in (node.get("subgraphs") or {}).values():
                walk(sub)

    walk(out)
    return out


def graph_bundle(compiled: dict[str, Any]) -> dict[str, Any]:
    """text/plain IR, the graph JSON (with cells, sources and, with spore_viz, the view), and the page."""
    import linecache

    data = with_cells(compiled["graph"], _shell())
    out: dict[str, Any] = {"text/plain": compiled["ir"], MIME_GRAPH: data}
    viz = _viz()
    if viz is None:
        return out
    try:
        data = viz.embed_sources(data, linecache.getline)
        data["view"] = viz.view_payload(data)
        out[MIME_GRAPH] = data
        out["text/html"] = viz.iframe(data, height=520)
    except Exception:  # noqa: BLE001 - the IR text and the graph JSON are still shown
        log.warning("spore_viz could not render the graph; showing the IR text", exc_info=True)
    return out


class _Bundle:
    """A value whose display is a ready mime bundle: what `user_expressions` hands the VS Code
    extension when it asks the kernel for a graph or a listing (`KernelSession.evaluate`)."""

    def __init__(self, bundle: dict[str, Any]) -> None:
        self.bundle = bundle

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.bundle

    def __repr__(self) -> str:
        return str(self.bundle.get("text/plain", ""))


def cell_variables(class_name: str | None = None) -> _Bundle:
    """The notebook's variables holding a Spore Cell (of class `class_name` or a subclass, if given),
    as `application/json` [{"name", "class"}]: the Show Graph command's quick pick in a notebook."""
    import json

    from spore import nn

    shell = _shell()
    names = shell.user_ns if shell is not None else {}
    found = []
    for name, value in list(names.items()):
        if name.startswith("_") or not isinstance(value, nn.Cell):
            continue
        mro = [c.__name__ for c in type(value).__mro__]
        if class_name is None or class_name in mro:
            found.append({"name": name, "class": type(value).__name__})
    return _Bundle({"application/json": found, "text/plain": json.dumps(found)})


def graph_display(target: Any, args: Any) -> _Bundle:
    """The `%spore_graph` bundle of `target` for `args` (a tuple is several arguments), as a value."""
    call_args = args if isinstance(args, tuple) else (args,)
    return _Bundle(graph_bundle(compile_graph(target, call_args)))
