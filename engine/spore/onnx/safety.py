"""Reading an ONNX file defensively: every check runs before any tensor is allocated.

`parse_model` refuses, with an `OnnxError` naming what is wrong:
- bytes that are not an ONNX protobuf (truncated, garbage), or files larger than `MAX_FILE_BYTES`;
- a model without an opset import for the default domain, or nodes of a domain Spore does not run;
- tensors whose dims are negative or whose element count exceeds `MAX_ELEMENTS` (1e12 is refused
  from the dims alone), and tensors whose stored bytes do not match their dims;
- external data whose path is absolute, escapes the model's folder (`../`), goes through a symlink
  out of it, or whose offset/length fall outside the file; external data in a model given as bytes;
- graphs whose nodes read values nothing defines, or form a cycle (nodes are put in order here).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import OnnxError

MAX_FILE_BYTES = 2 ** 31          # protobuf's own limit for one message
MAX_ELEMENTS = 2 ** 31            # per tensor (8 GiB of float32): far above any model Spore runs on CPU
KNOWN_DOMAINS = ("", "ai.onnx")


def read_bytes(src: Any) -> tuple[bytes, str | None]:
    """The model's bytes and its folder (None for bytes given directly)."""
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src), None
    if not isinstance(src, (str, os.PathLike)):
        raise OnnxError(f"spore.onnx.load takes a path or bytes, got {type(src).__name__}")
    path = os.fspath(src)
    if not os.path.isfile(path):
        raise OnnxError(f"no ONNX file at {path!r}" + (" (it is a folder)" if os.path.isdir(path) else ""))
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        raise OnnxError(f"{path}: {size} bytes is larger than an ONNX protobuf can be ({MAX_FILE_BYTES})")
    with open(path, "rb") as f:
        return f.read(), os.path.dirname(os.path.abspath(path))


def parse_model(data: bytes, folder: str | None) -> Any:
    """A checked `onnx.ModelProto` (external data loaded from inside `folder`)."""
    import onnx
    from google.protobuf.message import DecodeError

    if not data:
        raise OnnxError("the ONNX model is empty (0 bytes)")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as err:
        raise OnnxError(f"not an ONNX model (truncated or not protobuf): {err}") from None
    try:
        check_model(model, folder)
    except OnnxError:
        raise
    except Exception as err:  # a malformed field the checks read: the file's fault
        raise OnnxError(f"malformed ONNX model: {type(err).__name__}: {err}") from err
    return model


def check_model(model: Any, folder: str | None) -> None:
    """The model-level checks of `parse_model` (opsets, then the graph)."""
    import onnx

    if not model.HasField("graph"):
        raise OnnxError("not an ONNX model: it has no graph (truncated, or another protobuf)")
    opsets = {o.domain: o.version for o in model.opset_import}
    if "" not in opsets and "ai.onnx" not in opsets:
        raise OnnxError("the model has no opset import for the default ONNX domain",
                        hint="a valid model lists opset_import { domain: '' version: N }")
    version = opsets.get("", opsets.get("ai.onnx"))
    newest = onnx.defs.onnx_opset_version()
    if not 1 <= version <= newest:
        raise OnnxError(f"the model's opset {version} is outside 1..{newest} (what the installed onnx knows)")
    check_graph(model.graph, folder, set())


def check_graph(graph: Any, folder: str | None, outer: set[str]) -> None:
    """Check tensors, domains and definitions of `graph` (and its sub-graphs) and sort its nodes."""
    from onnx import AttributeProto

    defined = set(outer)
    for t in graph.initializer:
        check_tensor(t, folder)
        defined.add(t.name)
    for t in graph.sparse_initializer:
        raise OnnxError(f"sparse initializer {t.values.name!r} is not supported")
    defined.update(i.name for i in graph.input)
    for n in graph.node:
        if n.domain not in KNOWN_DOMAINS:
            raise OnnxError(f"node {n.name or n.op_type!r} is in domain {n.domain!r}, which Spore does not run",
                            op=n.op_type, node=n.name)
        for a in n.attribute:
            if a.type == AttributeProto.TENSOR:
                check_tensor(a.t, folder)
            elif a.type == AttributeProto.TENSORS:
                for t in a.tensors:
                    check_tensor(t, folder)
    _sort_nodes(graph, defined)
    seen = set(defined)
    for n in graph.node:
        for a in n.attribute:
            if a.type == AttributeProto.GRAPH:
                check_graph(a.g, folder, seen)
            elif a.type == AttributeProto.GRAPHS:
                for g in a.graphs:
                    check_graph(g, folder, seen)
        seen.update(o for o in n.output if o)
    for o in graph.output:
        if o.name not in seen:
            raise OnnxError(f"graph output {o.name!r} is produced by no node, input or initializer")


def _sort_nodes(graph: Any, defined: set[str]) -> None:
    """Put the nodes in topological order (Kahn); a cycle or an undefined input is refused."""
    nodes = list(graph.node)
    producer: dict[str, int] = {}
    for i, n in enumerate(nodes):
        for o in n.output:
            if o:
                if o in producer or o in defined and o not in {x.name for x in graph.input}:
                    raise OnnxError(f"value {o!r} is defined twice (node {n.name or n.op_type!r})", node=n.name)
                producer[o] = i
    needs = []
    for n in nodes:
        deps = set()
        for x in list(n.input) + _captured(n):
            if not x:
                continue
            if x in producer:
                deps.add(producer[x])
            elif x not in defined:
                raise OnnxError(f"node {n.name or n.op_type!r} reads {x!r}, which nothing defines", op=n.op_type,
                                node=n.name)
        needs.append(deps)
    order: list[int] = []
    users: dict[int, list[int]] = {}
    count = [len(d) for d in needs]
    for i, d in enumerate(needs):
        for j in d:
            users.setdefault(j, []).append(i)
    ready = [i for i, c in enumerate(count) if c == 0]
    while ready:
        i = ready.pop(0)
        order.append(i)
        for u in users.get(i, []):
            count[u] -= 1
            if count[u] == 0:
                ready.append(u)
    if len(order) != len(nodes):
        stuck = [nodes[i].name or nodes[i].op_type for i in range(len(nodes)) if count[i] > 0][:5]
        raise OnnxError(f"the graph has a cycle (through nodes {stuck})")
    if order != list(range(len(nodes))):
        del graph.node[:]
        graph.node.extend(nodes[i] for i in order)


def _captured(node: Any) -> list[str]:
    """Outer values a control-flow node's sub-graphs read (they order the node after their producers)."""
    from onnx import AttributeProto

    out: list[str] = []
    for a in node.attribute:
        graphs = [a.g] if a.type == AttributeProto.GRAPH else list(a.graphs) if a.type == AttributeProto.GRAPHS else []
        for g in graphs:
            local = {t.name for t in g.initializer} | {i.name for i in g.input}
            local |= {o for n in g.node for o in n.output}
            out += [x for n in g.node for x in list(n.input) + _captured(n) if x and x not in local]
    return out


def check_tensor(t: Any, folder: str | None) -> None:
    """Dims and stored size of one TensorProto, and its external data (loaded into it, checked)."""
    from onnx import TensorProto, helper

    dims = list(t.dims)
    if any(d < 0 for d in dims):
        raise OnnxError(f"tensor {t.name!r} has a negative dim {dims}")
    count = 1
    for d in dims:
        count *= d
        if count > MAX_ELEMENTS:
            raise OnnxError(f"tensor {t.name!r} has dims {dims}: more than {MAX_ELEMENTS} elements, refused "
                            "before allocating")
    if t.data_type == TensorProto.UNDEFINED or t.data_type not in TensorProto.DataType.values():
        raise OnnxError(f"tensor {t.name!r} has no valid data type ({t.data_type})")
    if t.data_location == TensorProto.EXTERNAL:
        _load_external(t, folder)
    try:
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(t.data_type)).itemsize
    except (KeyError, TypeError, ValueError):
        raise OnnxError(f"tensor {t.name!r} has a data type Spore does not read ({t.data_type})") from None
    if t.HasField("raw_data") or t.raw_data:
        if t.data_type in (TensorProto.STRING,):
            raise OnnxError(f"string tensor {t.name!r} cannot use raw_data")
        if t.data_type in (TensorProto.INT4, TensorProto.UINT4):
            want = (count + 1) // 2
        else:
            want = count * itemsize
        if len(t.raw_data) != want:
            raise OnnxError(f"tensor {t.name!r} has dims {dims} ({want} bytes) but stores {len(t.raw_data)} bytes")
    elif t.data_type != TensorProto.STRING:
        stored = max(len(t.float_data), len(t.int32_data), len(t.int64_data), len(t.double_data),
                     len(t.uint64_data))
        if stored not in (count, 0) and not (t.data_type in (TensorProto.COMPLEX64, TensorProto.COMPLEX128)
                                             and stored == 2 * count):
            raise OnnxError(f"tensor {t.name!r} has dims {dims} but stores {stored} values")
        if stored == 0 and count != 0:
            raise OnnxError(f"tensor {t.name!r} has dims {dims} but stores no data")


def _load_external(t: Any, folder: str | None) -> None:
    info = {e.key: e.value for e in t.external_data}
    loc = info.get("location", "")
    if folder is None:
        raise OnnxError(f"tensor {t.name!r} keeps its data in an external file {loc!r}; a model given as bytes "
                        "has no folder to read it from", hint="load the model from its path")
    if not loc or os.path.isabs(loc) or loc.startswith(("/", "\\")) or ":" in loc:
        raise OnnxError(f"tensor {t.name!r}: external data path {loc!r} is absolute; it must be inside the "
                        f"model's folder")
    real_folder = os.path.realpath(folder)
    full = os.path.realpath(os.path.join(folder, loc))
    if os.path.commonpath([real_folder, full]) != real_folder:
        raise OnnxError(f"tensor {t.name!r}: external data path {loc!r} leads outside the model's folder "
                        f"(to {full})")
    if not os.path.isfile(full):
        raise OnnxError(f"tensor {t.name!r}: external data file {loc!r} does not exist")
    try:
        offset = int(info.get("offset", 0))
        length = int(info["length"]) if "length" in info else os.path.getsize(full) - offset
    except ValueError:
        raise OnnxError(f"tensor {t.name!r}: external data offset/length are not integers") from None
    size = os.path.getsize(full)
    if offset < 0 or length < 0 or offset + length > size:
        raise OnnxError(f"tensor {t.name!r}: external data [{offset}, {offset + length}) is outside "
                        f"{loc!r} ({size} bytes)")
    with open(full, "rb") as f:
        f.seek(offset)
        t.raw_data = f.read(length)
    from onnx import TensorProto

    t.data_location = TensorProto.DEFAULT
    del t.external_data[:]
