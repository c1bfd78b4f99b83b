"""`set_context(save_graphs=True, save_graphs_path=DIR)`: write each compiled graph to disk.

For every compilation, four files named after the graph and a running number:
`NN_name_before.ir` / `NN_name_after.ir` (readable IR with `# In file x.py:LINE` on each node) and
`NN_name_before.json` / `NN_name_after.json` (the graph JSON of `printer`, for the visualizer).
"""

from __future__ import annotations

import itertools
import json
import os
import re

from .ir import Graph
from .printer import format_graph, graph_to_json

_counter = itertools.count()


def save_graphs(before: Graph, after: Graph, directory: str) -> list[str]:
    """Write the graph before and after optimization; returns the paths written."""
    os.makedirs(directory, exist_ok=True)
    n = next(_counter)
    stem = f"{n:02d}_{re.sub(r'[^A-Za-z0-9_.-]', '_', before.name)}"
    paths = []
    for tag, g in (("before", before), ("after", after)):
        ir_path = os.path.join(directory, f"{stem}_{tag}.ir")
        with open(ir_path, "w", encoding="utf-8") as f:
            f.write(format_graph(g) + "\n")
        js_path = os.path.join(directory, f"{stem}_{tag}.json")
        with open(js_path, "w", encoding="utf-8") as f:
            json.dump(graph_to_json(g), f, indent=1)
        paths += [ir_path, js_path]
    return paths
