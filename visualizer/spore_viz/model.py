"""Turn a "spore.graph/1" document into the visualizer's item tree.

Every view (HTML, SVG, PNG) works on the same tree so they agree on what a box is: the graph is the
root container; Cell scopes ("Net.block1.conv") become nested scope containers; an op with
control-flow subgraphs is itself a container whose children are one container per branch. Leaves
are ops and small pseudo nodes for graph inputs, parameters (placed in the innermost scope that
holds all their consumers), captured outer values of a branch, and the returned values.

The loader is also the extension point for other formats: a converter that emits the same schema
(an ONNX ModelProto adapter, once ONNX export lands) plugs in at `load_graph`.
"""

from __future__ import annotations

import json
import linecache
import math
import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = "spore.graph/1"

# Sizes in px, shared with the inline JS (sent in the payload) so both place boxes identically.
NODE_H = 36
FUSED_H = 50
IO_H = 30
COLLAPSED_H = 40
MIN_W = 64
LABEL_CH = 7.6   # bold 12px sans, per char (a little generous so labels never clip)
SUB_CH = 6.4     # 10.5px monospace
FUSED_CH = 5.8   # 9.5px italic

_DT = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int32": "i32",
       "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool", "complex64": "c64"}


@dataclass
class Item:
    """A box in some view: a leaf (op or pseudo node) or a container (graph, scope, control-flow op)."""

    idx: int
    kind: str            # "graph" | "scope" | "op" | "input" | "param" | "outer" | "output"
    label: str
    parent: int          # -1 for the root
    depth: int
    sub: str = ""        # second line: output shapes
    path: str = ""       # full scope path / param name: what search and the details panel show
    node: dict | None = None
    fused: list[str] = field(default_factory=list)
    children: list[int] = field(default_factory=list)
    w: int = MIN_W       # leaf size, or the collapsed size of a container
    h: int = NODE_H
    n_ops: int = 0       # ops at or below this item

    @property
    def is_container(self) -> bool:
        return bool(self.children) or self.kind in ("graph", "scope")


@dataclass
class Edge:
    """One data dependency between two leaves (or a leaf and a control-flow op)."""

    src: int
    dst: int
    label: str
    var: str


@dataclass
class Model:
    name: str
    items: list[Item] = field(default_factory=list)
    edges: list[Edge] = field(default_factory=list)
    sources: dict[str, dict[int, str]] = field(default_factory=dict)

    def add(self, kind: str, label: str, parent: int, **kw: Any) -> Item:
        depth = self.items[parent].depth + 1 if parent >= 0 else 0
        it = Item(len(self.items), kind, label, parent, depth, **kw)
        self.items.append(it)
        if parent >= 0:
            self.items[parent].children.append(it.idx)
        return it

    @property
    def op_count(self) -> int:
        return sum(1 for it in self.items if it.kind == "op")


def load_graph(graph: Any) -> dict:
    """A spore.graph/1 dict from a dict, a JSON file path, JSON text, or a spore IR `Graph`."""
    if hasattr(graph, "eqns") and hasattr(graph, "params"):  # a compiled spore Graph: no file round-trip
        from spore.ide import graph_json
        graph = graph_json(graph)
    elif isinstance(graph, (str, os.PathLike)):
        text = str(graph)
        graph = json.loads(text) if text.lstrip().startswith("{") else json.loads(_read_json_file(Path(text)))
    if not isinstance(graph, Mapping) or graph.get("schema") != SCHEMA:
        got = graph.get("schema") if isinstance(graph, Mapping) else type(graph).__name__
        raise ValueError(f"spore_viz: expected a {SCHEMA!r} graph (see spore.ide.compile_graph), "
                         f"got {got!r}")
    return dict(graph)


MAX_GRAPH_BYTES = 1 << 30


def _read_json_file(path: Path) -> str:
    """A graph file's text; only a regular file of sane size (a FIFO or /dev/zero would hang or fill memory)."""
    try:
        st = path.stat()
    except OSError as err:
        raise ValueError(f"spore_viz: cannot open {str(path)!r}: {err.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"spore_viz: {str(path)!r} is not a regular file")
    if st.st_size > MAX_GRAPH_BYTES:
        raise ValueError(f"spore_viz: {str(path)!r} is {st.st_size} bytes; graph files over 1 GiB are refused")
    return path.read_text("utf-8")


def shape_text(shape: list | None, dtype: str | None) -> str:
    """'2×16 f32' — compact enough for an edge label, still unambiguous."""
    dims = "scalar" if not shape else "×".join(str(d) for d in shape)
    return f"{dims} {_DT.get(dtype or '', dtype or '')}".strip()


def _even(x: float) -> int:
    n = math.ceil(x)
    return n + (n & 1)


def leaf_size(label: str, sub: str, fused: list[str], kind: str) -> tuple[int, int]:
    """Width from the text it must hold (estimated, no font metrics at render time); even, so centres are integral."""
    fz = "+".join(fused)
    w = max(MIN_W, len(label) * LABEL_CH + 20, len(sub) * SUB_CH + 16, len(fz) * FUSED_CH + 16 if fz else 0)
    h = FUSED_H if fz else (IO_H if kind in ("input", "param", "outer", "output") else NODE_H)
    return _even(w), h


def collapsed_size(it: Item) -> tuple[int, int]:
    return _even(max(96, (len(it.label) + 2) * LABEL_CH + 24, len(f"{it.n_ops} ops") * SUB_CH + 40)), COLLAPSED_H


class _Builder:
    """Walks one graph document (recursing into branches) and appends items and edges to the model."""

    def __init__(self, model: Model, read_sources: bool, embedded: dict[str, dict[int, str]], root: Path | None):
        self.m = model
        self.read_sources = read_sources
        self.embedded = embedded
        self.root = root

    def graph(self, doc: Mapping, container: int, base_scope: str = "") -> dict[str, str]:
        """Add `doc` under `container`; returns the values it reads from enclosing graphs (var -> label).

        A branch graph's ops carry the scope of the Cell that holds the control-flow op (`base_scope`)
        or one of its ancestors: those sit directly in the branch rather than in a repeated scope box.
        """
        m = self.m
        unresolved: dict[str, str] = {}
        scopes: dict[str, int] = {"": container}
        parts = base_scope.split(".") if base_scope else []
        for k in range(1, len(parts) + 1):
            scopes[".".join(parts[:k])] = container
        producer: dict[str, int] = {}        # var -> item producing it
        var_text: dict[str, str] = {}
        for spec in doc.get("inputs", []):
            it = self.leaf("input", spec.get("name") or spec["id"], container, shape_text(spec["shape"], spec["dtype"]),
                           path=spec["id"])
            producer[spec["id"]] = it.idx
            var_text[spec["id"]] = it.sub
        params = {p["id"]: p for p in doc.get("params", [])}
        param_scope = self.param_scopes(doc, params)
        by_dst: dict[str, list[Mapping]] = {}
        for e in doc.get("edges", []):
            by_dst.setdefault(e["to"], []).append(e)
        outers: dict[str, int] = {}
        for node in doc.get("nodes", []):
            scope = self.scope(scopes, node.get("scope") or "")
            srcs = []
            for e in by_dst.get(node["id"], []):
                src, var = e["from"], e.get("var", "")
                label = shape_text(e.get("shape"), e.get("dtype"))
                if src == "const":
                    continue
                if src.startswith("param:") and var not in producer and var in params:
                    p = params[var]
                    it = self.leaf("param", p.get("name") or var, self.scope(scopes, param_scope.get(var, "")),
                                   shape_text(p["shape"], p["dtype"]), path=p.get("name") or var)
                    producer[var] = it.idx
                if var not in producer:   # captured from an enclosing graph ("outer") or dangling
                    if var not in outers:
                        outers[var] = self.leaf("outer", var, container, label, path=f"outer {var}").idx
                        unresolved[var] = label
                    producer[var] = outers[var]
                srcs.append((producer[var], label, var))
            op = self.op(node, scope)
            for var, shape, dtype in zip(node.get("outputs", []), node.get("shapes", []), node.get("dtypes", []),
                                         strict=False):
                producer[var] = op.idx
                var_text[var] = shape_text(shape, dtype)
            m.edges.extend(Edge(s, op.idx, label, var) for s, label, var in srcs)
            captured: dict[str, str] = {}
            for name, sub in (node.get("subgraphs") or {}).items():
                branch = m.add("graph", name, op.idx, path=f"{op.path} / {name}")
                captured.update(self.graph(sub, branch.idx, op.path))
            for var, label in captured.items():  # values the branches read from here flow into the op
                if var in producer:
                    m.edges.append(Edge(producer[var], op.idx, label, var))
                else:
                    unresolved.setdefault(var, label)
        outs = list(doc.get("outputs", []))
        for v in outs:  # a branch may return a captured value as is
            if v not in producer:
                producer[v] = outers[v] = self.leaf("outer", v, container, "", path=f"outer {v}").idx
                unresolved.setdefault(v, "")
        if outs:
            ret = self.leaf("output", "return" if container == 0 else "yield", container,
                            ", ".join(var_text.get(v, v) for v in outs[:3]) + (" …" if len(outs) > 3 else ""),
                            path="outputs")
            m.edges.extend(Edge(producer[v], ret.idx, var_text.get(v, ""), v) for v in outs)
        return unresolved

    def param_scopes(self, doc: Mapping, params: Mapping) -> dict[str, str]:
        """Innermost scope holding every consumer of each parameter: where its pseudo node sits."""
        scope_of = {n["id"]: (n.get("scope") or "") for n in doc.get("nodes", [])}
        out: dict[str, list[str]] = {}
        for e in doc.get("edges", []):
            var = e.get("var", "")
            if var in params and e["to"] in scope_of:
                parts = scope_of[e["to"]].split(".") if scope_of[e["to"]] else []
                prev = out.get(var)
                if prev is None:
                    out[var] = parts
                else:
                    k = 0
                    while k < min(len(prev), len(parts)) and prev[k] == parts[k]:
                        k += 1
                    out[var] = prev[:k]
        return {k: ".".join(v) for k, v in out.items()}

    def scope(self, scopes: dict[str, int], path: str) -> int:
        if path in scopes:
            return scopes[path]
        head, _, last = path.rpartition(".")
        parent = self.scope(scopes, head)
        it = self.m.add("scope", last, parent, path=path)
        scopes[path] = it.idx
        return it.idx

    def leaf(self, kind: str, label: str, parent: int, sub: str, path: str = "") -> Item:
        w, h = leaf_size(label, sub, [], kind)
        return self.m.add(kind, label, parent, sub=sub, path=path, w=w, h=h)

    def op(self, node: Mapping, parent: int) -> Item:
        shapes = [shape_text(s, d) for s, d in zip(node.get("shapes", []), node.get("dtypes", []), strict=False)]
        sub = ", ".join(shapes[:2]) + (" …" if len(shapes) > 2 else "")
        fused = [str(f) for f in node.get("fused") or []]
        w, h = leaf_size(node["op"], sub, fused, "op")
        if node.get("subgraphs"):  # room for the expand badge
            w = max(w, _even(len(node["op"]) * LABEL_CH + 52))
        details = {k: v for k, v in node.items() if k != "subgraphs"}
        it = self.m.add("op", node["op"], parent, sub=sub, path=node.get("scope") or "", node=details,
                        fused=fused, w=w, h=h)
        loc = node.get("loc")
        if self.read_sources and isinstance(loc, Mapping) and isinstance(loc.get("file"), str) \
                and _is_line(loc.get("line")):
            self.source_line(loc["file"], loc["line"])
        return it

    def source_line(self, file: str, line: int) -> None:
        """The text of one located line: from the document's own `sources`, else from a file under the
        user's source root. Never from a path the document names outside that root."""
        lines = self.m.sources.setdefault(file, {})
        if line in lines:
            return
        text = self.embedded.get(file, {}).get(line)
        if text is None and self.root is not None:
            text = _root_line(self.root, file, line)
        if text is not None:
            lines[line] = text


MAX_LINE = 400                  # characters of a source line kept for the details panel
MAX_SOURCE_BYTES = 8 * 2 ** 20  # a "source file" larger than this is not a source file
_FILE_CACHE: dict[str, list[str] | None] = {}


def embedded_sources(doc: Mapping) -> dict[str, dict[int, str]]:
    """The document's `sources` ({file: {"line": text}}), which its exporter wrote; a bad shape is an error."""
    raw = doc.get("sources")
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ValueError("spore_viz: 'sources' must map file names to {line: text}, "
                         f"got {type(raw).__name__}")
    out: dict[str, dict[int, str]] = {}
    for file, lines in raw.items():
        if not isinstance(file, str) or not isinstance(lines, Mapping):
            raise ValueError(f"spore_viz: 'sources' entry {str(file)[:80]!r} must be {{line: text}}")
        for k, text in lines.items():
            if not (isinstance(k, str) and k.isdigit() and int(k) > 0) or not isinstance(text, str):
                raise ValueError(f"spore_viz: 'sources' of {file[:80]!r}: line {str(k)[:20]!r} must be a "
                                 "positive number with a text")
            out.setdefault(file, {})[int(k)] = text.rstrip("\n")[:MAX_LINE]
    return out


def embed_sources(graph: Any, getline: Callable[[str, int], str] | None = None) -> dict:
    """A copy of `graph` with `sources` holding the text of every located line (exporter side).

    For graphs this process just compiled from code it ran (the kernel, `spore_viz capture`): the
    text comes from `getline` (default `linecache.getline`, which also knows notebook cells), not
    from a file a document names, so a viewer never has to read files for it.
    """
    doc = load_graph(graph)
    getline = getline or linecache.getline
    found: dict[str, dict[str, str]] = {}

    def walk(g: Mapping) -> None:
        for node in g.get("nodes", []):
            loc = node.get("loc")
            if isinstance(loc, Mapping) and isinstance(loc.get("file"), str) and _is_line(loc.get("line")):
                text = getline(loc["file"], loc["line"])
                if text:
                    found.setdefault(loc["file"], {})[str(loc["line"])] = text.rstrip("\n")[:MAX_LINE]
            for sub in (node.get("subgraphs") or {}).values():
                walk(sub)

    walk(doc)
    doc["sources"] = found
    return doc


def _is_line(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _root_line(root: Path, file: str, line: int) -> str | None:
    """Line `line` of `file` if, symlinks resolved, it is a regular file under `root` (else None)."""
    try:
        path = (root / file).resolve(strict=True) if not os.path.isabs(file) else Path(file).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None
    if not path.is_relative_to(root):
        return None
    key = str(path)
    if key not in _FILE_CACHE:
        _FILE_CACHE[key] = None
        try:
            st = path.stat()
            if stat.S_ISREG(st.st_mode) and st.st_size <= MAX_SOURCE_BYTES:
                with open(path, encoding="utf-8", errors="replace") as f:
                    _FILE_CACHE[key] = f.readlines()
        except OSError:
            pass
    text = _FILE_CACHE[key]
    if text is None or not 0 < line <= len(text):
        return None
    return text[line - 1].rstrip("\n")[:MAX_LINE]


def build_model(graph: Any, read_sources: bool = True, *, sources_root: str | os.PathLike | None = None) -> Model:
    """The item tree of `graph` (anything `load_graph` accepts), with container sizes for the collapsed state.

    With `read_sources`, the located lines' text comes from the document's own `sources` and, when
    `sources_root` is given, from files under that directory (after resolving symlinks). A path the
    document names is never opened otherwise: a graph JSON from elsewhere must not make the page
    embed a local file (`"loc": {"file": "/home/me/.ssh/id_rsa"}`).
    """
    doc = load_graph(graph)
    m = Model(str(doc.get("name", "graph")))
    m.add("graph", m.name, -1, path=m.name)
    root = None
    if sources_root is not None:
        root = Path(sources_root).resolve()
        if not root.is_dir():
            raise ValueError(f"spore_viz: sources directory {str(sources_root)!r} is not a directory")
    builder = _Builder(m, read_sources, embedded_sources(doc) if read_sources else {}, root)
    _FILE_CACHE.clear()
    builder.graph(doc, 0)
    _FILE_CACHE.clear()
    for it in reversed(m.items):  # children come after parents: one reverse pass sums op counts
        it.n_ops += it.kind == "op"
        if it.parent >= 0:
            m.items[it.parent].n_ops += it.n_ops
    for it in m.items:
        if it.is_container and it.kind != "op":
            it.w, it.h = collapsed_size(it)
    return m
