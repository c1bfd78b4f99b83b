"""The lite graph: an ONNX graph read into plain Python (nodes, NumPy constants), the QDQ -> int8
rewrite, an eager interpreter (the shape-finding run, and sub-graphs of If/Loop), and the arena
plan (liveness of every intermediate, offsets assigned so buffers whose lifetimes do not overlap
share bytes, one allocation per input shape).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _ops, _proto

ALIGN = 64


class LiteError(ValueError):
    """A model or an input spore.lite refuses, with what was expected and what it got."""


@dataclass
class Node:
    op: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict[str, Any]
    name: str = ""
    kernel: Any = None
    subgraphs: dict[str, Graph] = field(default_factory=dict)


@dataclass
class Graph:
    nodes: list[Node]
    consts: dict[str, np.ndarray]
    inputs: list[tuple[str, np.dtype, list]]  # name, dtype, dims (int or symbolic str / None)
    outputs: list[str]

    def free_names(self) -> set[str]:
        """Names a (sub-)graph reads from its enclosing scope."""
        defined = set(self.consts) | {n for n, _, _ in self.inputs}
        free: set[str] = set()
        for n in self.nodes:
            for i in n.inputs:
                if i and i not in defined:
                    free.add(i)
            for g in n.subgraphs.values():
                free |= g.free_names() - defined
            defined |= set(n.outputs)
        return free | {o for o in self.outputs if o not in defined}


def from_onnx(g: Any) -> Graph:
    """Convert an `onnx.GraphProto`; refuse ops spore.lite has no kernel for, naming them."""
    consts: dict[str, np.ndarray] = {}
    for t in g.initializer:
        if t.data_location == 1:
            raise LiteError(f"initializer {t.name!r} uses external data, which spore.lite does not load")
        consts[t.name] = _proto.to_array(t)
    inputs = []
    for vi in g.input:
        if vi.name in consts:
            continue
        tt = vi.type.tensor_type
        dt = _proto.np_dtype(tt.elem_type, f"input {vi.name!r}") if tt.elem_type else np.dtype(np.float32)
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]
        inputs.append((vi.name, dt, dims))
    nodes = []
    missing = set()
    for n in g.node:
        if n.domain not in ("", "ai.onnx"):
            raise LiteError(f"node {n.name or n.op_type!r}: domain {n.domain!r} is not supported by spore.lite")
        subs: dict[str, Graph] = {}
        attrs: dict[str, Any] = {}
        for a in n.attribute:
            v = _proto.attr_value(a)
            if a.type == 5:  # GRAPH
                subs[a.name] = from_onnx(v)
            else:
                attrs[a.name] = v
        if n.op_type == "Constant":
            consts[n.output[0]] = np.asarray(next(iter(attrs.values())))
            continue
        if n.op_type not in _ops.OPS and n.op_type not in ("If", "Loop"):
            missing.add(n.op_type)
        attrs["_n_outputs"] = len(n.output)
        nodes.append(Node(n.op_type, list(n.input), list(n.output), attrs, n.name, _ops.OPS.get(n.op_type), subs))
    if missing:
        raise LiteError(f"spore.lite has no kernel for ONNX op(s) {sorted(missing)}")
    return Graph(nodes, consts, inputs, [o.name for o in g.output])


# --- QDQ -> int8 ----------------------------------------------------------------------------------

def fuse_qdq(g: Graph) -> int:
    """Rewrite DQ(xq) + DQ(Wq) [+ bias] -> Conv/Gemm/MatMul into one int8 kernel; returns how many.

    The DequantizeLinear of the weight then has no consumer and is dropped (its float weight is
    never materialised); the activation's DQ is dropped when the int8 op was its only reader."""
    producer = {o: n for n in g.nodes for o in n.outputs}
    fused = 0
    for n in g.nodes:
        if n.op not in ("Conv", "Gemm", "MatMul") or len(n.inputs) < 2:
            continue
        dx, dw = producer.get(n.inputs[0]), producer.get(n.inputs[1])
        if not (dx and dw and dx.op == dw.op == "DequantizeLinear"):
            continue
        if dw.inputs[0] not in g.consts or any(i not in g.consts for i in dx.inputs[1:]):
            continue
        x_scale = g.consts[dx.inputs[1]]
        x_zp = g.consts[dx.inputs[2]] if len(dx.inputs) > 2 and dx.inputs[2] else None
        if x_scale.size != 1 or (x_zp is not None and x_zp.dtype not in (np.int8, np.uint8)):
            continue
        wq = g.consts[dw.inputs[0]]
        if wq.dtype not in (np.int8, np.uint8):
            continue
        w_scale = g.consts[dw.inputs[1]]
        w_zp = g.consts[dw.inputs[2]] if len(dw.inputs) > 2 and dw.inputs[2] else np.zeros(1, wq.dtype)
        bias = None
        if len(n.inputs) > 2 and n.inputs[2]:
            b = n.inputs[2]
            if b in g.consts:
                bias = g.consts[b]
            else:
                db = producer.get(b)
                if not (db and db.op == "DequantizeLinear" and all(i in g.consts for i in db.inputs if i)):
                    continue
                bz = g.consts[db.inputs[2]] if len(db.inputs) > 2 and db.inputs[2] else 0
                bias = ((g.consts[db.inputs[0]].astype(np.int64) - np.asarray(bz, np.int64))
                        * g.consts[db.inputs[1]]).astype(np.float32)
        qargs = (n.op, n.attrs, int(0 if x_zp is None else x_zp.reshape(-1)[0]), float(x_scale.reshape(-1)[0]),
                 wq, w_zp, w_scale, bias, np.dtype(np.uint8) if x_zp is None else x_zp.dtype)
        kern = _ops.make_qlinear(*qargs)
        if kern is None:
            continue
        n.attrs = dict(n.attrs, _qargs=qargs)
        n.op = f"QLinear{n.op}"
        n.inputs = [dx.inputs[0]]
        n.kernel = kern
        fused += 1
    prune(g)
    fuse_passthrough(g)
    fuse_requantize(g)
    fuse_fake_quant(g)
    return fused


def _qparams(g: Graph, n: Node) -> tuple | None:
    """(scale, zero point, dtype) of a per-tensor Q/DQ node with constant parameters, else None."""
    if len(n.inputs) < 3 or not n.inputs[2] or any(i not in g.consts for i in n.inputs[1:3]):
        return None
    sc, zp = g.consts[n.inputs[1]], g.consts[n.inputs[2]]
    if sc.size != 1 or zp.size != 1 or zp.dtype not in (np.uint8, np.int8) or not float(sc.reshape(-1)[0]) > 0:
        return None
    return float(sc.reshape(-1)[0]), int(zp.reshape(-1)[0]), zp.dtype


def fuse_fake_quant(g: Graph) -> int:
    """QuantizeLinear whose every reader is a DequantizeLinear with the same parameters -> one
    QuantizeDequantize node (`_kernels.quantize_dequantize`, one pass, the identical float32
    result). Such pairs are what a QDQ model puts around each elementwise op; returns how many."""
    readers: dict[str, list[Node]] = {}
    for n in g.nodes:
        for i in n.inputs:
            readers.setdefault(i, []).append(n)
        for sg in n.subgraphs.values():
            for i in sg.free_names():
                readers.setdefault(i, []).append(n)
    drop: set[int] = set()
    rename: dict[str, str] = {}
    for n in g.nodes:
        if n.op != "QuantizeLinear" or n.outputs[0] in g.outputs:
            continue
        p = _qparams(g, n)
        rd = readers.get(n.outputs[0], [])
        if p is None or not rd or any(r.op != "DequantizeLinear" or _qparams(g, r) != p or r.inputs[0] != n.outputs[0]
                                      for r in rd):
            continue
        if any(r.outputs[0] in g.outputs or any(c.subgraphs for c in readers.get(r.outputs[0], []))
               for r in rd[1:]):
            continue  # those names are renamed below: not where a graph output or a subgraph reads them
        s, z, dt = p
        n.op = "QuantizeDequantize"
        n.outputs = [rd[0].outputs[0]]
        n.kernel = _fake_quant_kernel(s, z, dt)
        for r in rd:
            drop.add(id(r))
        for r in rd[1:]:
            rename[r.outputs[0]] = rd[0].outputs[0]
    if not drop:
        return 0
    g.nodes = [n for n in g.nodes if id(n) not in drop]
    for n in g.nodes:
        n.inputs = [rename.get(i, i) for i in n.inputs]
    prune(g)
    return len(drop)


def _fake_quant_kernel(s: float, z: int, dt: np.dtype) -> Any:
    name = np.dtype(dt).name

    def run(a: dict, ins: list, outs: list | None) -> list | None:
        x = np.ascontiguousarray(ins[0], np.float32)
        return _ops._store(outs, [_ops.K.quantize_dequantize(x, s, z, name)])

    def bind(ins: list, outs: list) -> Any:
        x, o, qdq = ins[0], outs[0], _ops.K.quantize_dequantize
        if x.dtype != np.float32 or not (x.flags.c_contiguous and o.flags.c_contiguous):
            return None
        return lambda: qdq(x, s, z, name, o)

    run.bind = bind  # type: ignore[attr-defined]
    return run


_PASSTHROUGH = _ops.ALIAS_OPS | {"MaxPool"}


def fuse_passthrough(g: Graph) -> int:
    """DQ(q; s, z) -> Reshape/Flatten/Squeeze/Unsqueeze/Identity/MaxPool -> Q(s, z) -> the op on q
    itself (as onnxruntime's QDQ transformer does): these ops only move or select values, and
    Q(DQ(q)) == q for the same scale and zero point, so the result is identical with two float
    passes fewer. MaxPool runs on the integers as exact float32 values and is cast back."""
    readers: dict[str, int] = {}
    for n in g.nodes:
        for i in n.inputs:
            readers[i] = readers.get(i, 0) + 1
        for sg in n.subgraphs.values():
            for i in sg.free_names():
                readers[i] = readers.get(i, 0) + 1
    producer = {o: n for n in g.nodes for o in n.outputs}
    by_input: dict[str, list[Node]] = {}
    for n in g.nodes:
        for i in n.inputs:
            by_input.setdefault(i, []).append(n)

    def qparams(n: Node) -> tuple | None:
        if len(n.inputs) < 3 or not n.inputs[2] or any(i not in g.consts for i in n.inputs[1:3]):
            return None
        sc, zp = g.consts[n.inputs[1]], g.consts[n.inputs[2]]
        if sc.size != 1 or zp.size != 1 or zp.dtype not in (np.uint8, np.int8):
            return None
        return float(sc.reshape(-1)[0]), int(zp.reshape(-1)[0]), zp.dtype

    drop: set[int] = set()
    for n in g.nodes:
        if n.op not in _PASSTHROUGH or not n.inputs or id(n) in drop:
            continue
        dq = producer.get(n.inputs[0])
        if dq is None or dq.op != "DequantizeLinear" or readers.get(n.inputs[0]) != 1 or n.inputs[0] in g.outputs:
            continue
        rd = by_input.get(n.outputs[0], [])
        if len(rd) != 1 or readers.get(n.outputs[0]) != 1 or n.outputs[0] in g.outputs:
            continue
        q = rd[0]
        pq, pdq = qparams(q), qparams(dq)
        if q.op != "QuantizeLinear" or pq is None or pq != pdq or id(dq) in drop:
            continue
        n.inputs = [dq.inputs[0], *n.inputs[1:]]
        n.outputs = [q.outputs[0]]
        if n.op == "MaxPool":
            n.kernel = _int_maxpool(n.kernel, pq[2])
        drop.update((id(dq), id(q)))
    g.nodes = [n for n in g.nodes if id(n) not in drop]
    prune(g)
    return len(drop) // 2


def _int_maxpool(kern: Any, dtype: np.dtype) -> Any:
    def run(a: dict, ins: list, outs: list | None) -> list | None:
        y = kern(a, ins, None)[0]
        return _ops._store(outs, [y.astype(dtype)])
    return run


def fuse_requantize(g: Graph) -> int:
    """QLinear op [-> Relu] -> QuantizeLinear (per tensor, constant scale and zero point) -> one int8
    kernel whose epilogue requantizes: the float intermediate is never written. Only where the op's
    (and the Relu's) output has no other reader and is not a graph output; returns how many."""
    readers: dict[str, list[Node]] = {}
    for n in g.nodes:
        for i in n.inputs:
            readers.setdefault(i, []).append(n)
        for sg in n.subgraphs.values():
            for i in sg.free_names():
                readers.setdefault(i, []).append(n)

    def only_reader(name: str) -> Node | None:
        r = readers.get(name, [])
        return r[0] if len(r) == 1 and name not in g.outputs else None

    drop: set[int] = set()
    for n in g.nodes:
        if not (n.op.startswith("QLinear") and "_qargs" in n.attrs and getattr(n.kernel, "int8", False)):
            continue
        chain = [only_reader(n.outputs[0])]
        relu = chain[0] is not None and chain[0].op == "Relu"
        if relu:
            chain.append(only_reader(chain[0].outputs[0]))
        q = chain[-1]
        if q is None or q.op != "QuantizeLinear" or len(q.inputs) < 3 or not q.inputs[2]:
            continue
        if any(i not in g.consts for i in q.inputs[1:3]):
            continue
        ys, yz = g.consts[q.inputs[1]], g.consts[q.inputs[2]]
        if ys.size != 1 or yz.size != 1 or yz.dtype not in (np.uint8, np.int8) or not float(ys.reshape(-1)[0]) > 0:
            continue
        kern = _ops.make_qlinear(*n.attrs["_qargs"], requant=(float(ys.reshape(-1)[0]), int(yz.reshape(-1)[0]),
                                                              yz.dtype), relu=relu)
        if kern is None:
            continue
        n.kernel = kern
        n.outputs = [q.outputs[0]]
        drop.update(id(c) for c in chain)
    g.nodes = [n for n in g.nodes if id(n) not in drop]
    prune(g)
    return len(drop)


def fuse_gemm_relu(g: Graph) -> int:
    """Gemm followed by its only reader Relu -> one Gemm with the ReLU in the GEMM's epilogue
    (`_kernels.dense_forward(relu=True)`), as Graph mode's FusedDense does."""
    readers: dict[str, int] = {}
    for n in g.nodes:
        for i in n.inputs:
            readers[i] = readers.get(i, 0) + 1
        for sg in n.subgraphs.values():
            for i in sg.free_names():
                readers[i] = readers.get(i, 0) + 1
    producer = {o: n for n in g.nodes for o in n.outputs}
    drop = set()
    for n in g.nodes:
        p = producer.get(n.inputs[0]) if n.op == "Relu" else None
        if (p is not None and p.op == "Gemm" and readers.get(p.outputs[0]) == 1 and p.outputs[0] not in g.outputs
                and not p.attrs.get("_relu")):
            p.attrs["_relu"] = True
            p.outputs = [n.outputs[0]]
            drop.add(id(n))
    g.nodes = [n for n in g.nodes if id(n) not in drop]
    return len(drop)


def _fast_step(n: Node, ins: list, outs: list) -> Any:
    """A closure with the checks done once at plan time, for the ops that dominate batch-1 time."""
    K = _ops.K
    if getattr(n.kernel, "bind", None) is not None:  # the int8 kernels and QuantizeDequantize
        return n.kernel.bind(ins, outs)
    if n.op == "Gemm" and len(ins) == 3 and all(a is not None and a.dtype == np.float32 for a in ins):
        a = n.attrs
        x, w, c = ins
        ta, tb = bool(a.get("transA", 0)), bool(a.get("transB", 0))
        if (a.get("alpha", 1.0) == 1.0 and a.get("beta", 1.0) == 1.0 and c.ndim == 1 and x.ndim == 2
                and c.shape[0] == (w.shape[0] if tb else w.shape[1])):
            o, relu, dense, copy = outs[0], bool(a.get("_relu", False)), K.dense_forward, np.copyto
            return lambda: copy(o, dense(x, w, c, ta, tb, relu))
    if n.op in ("QuantizeLinear", "DequantizeLinear") and len(ins) == 3 and ins[1].size == 1 and ins[2].size == 1:
        return _fast_qdq(n.op, ins, outs[0])
    if n.op == "Relu" and ins[0].dtype == outs[0].dtype:
        x, o, mx = ins[0], outs[0], np.maximum
        return lambda: mx(x, 0, out=o)
    return None


def _fast_qdq(op: str, ins: list, o: np.ndarray) -> Any:
    """Per-tensor QuantizeLinear / DequantizeLinear straight into the arena view through the C++
    kernels (`_kernels.quantize_linear`: saturate(rint(x / s) + z), round half to even, as ONNX;
    `_kernels.dequantize_linear`: float32(x - z) * s): one vectorised pass, no temporaries."""
    K = _ops.K
    x, scale, zp = ins
    s = float(np.float32(scale.reshape(-1)[0]))
    z = int(zp.reshape(-1)[0])
    if not (x.flags.c_contiguous and o.flags.c_contiguous):
        return None
    if op == "DequantizeLinear":
        if o.dtype != np.float32 or x.dtype not in (np.uint8, np.int8, np.int32) or not s > 0:
            return None
        dq = K.dequantize_linear
        return lambda: dq(x, s, z, o)
    if x.dtype != np.float32 or o.dtype not in (np.uint8, np.int8) or not s > 0:
        return None
    q, name = K.quantize_linear, o.dtype.name
    return lambda: q(x, s, z, name, o)


def prune(g: Graph) -> None:
    """Drop nodes whose outputs nobody reads (after the int8 rewrite)."""
    while True:
        used = set(g.outputs)
        for n in g.nodes:
            used |= set(n.inputs)
            for sg in n.subgraphs.values():
                used |= sg.free_names()
        keep = [n for n in g.nodes if any(o in used for o in n.outputs)]
        if len(keep) == len(g.nodes):
            break
        g.nodes = keep
    used = {i for n in g.nodes for i in n.inputs} | set(g.outputs)
    for n in g.nodes:
        for sg in n.subgraphs.values():
            used |= sg.free_names()
    for c in [c for c in g.consts if c not in used]:
        del g.consts[c]


# --- eager interpreter ----------------------------------------------------------------------------

def _run_if(node: Node, env: dict[str, np.ndarray]) -> list[np.ndarray]:
    branch = node.subgraphs["then_branch" if bool(np.asarray(env[node.inputs[0]]).reshape(-1)[0]) else "else_branch"]
    return run_eager(branch, {}, env)


def _run_loop(node: Node, env: dict[str, np.ndarray]) -> list[np.ndarray]:
    body = node.subgraphs["body"]
    m = node.inputs[0] if node.inputs else ""
    c = node.inputs[1] if len(node.inputs) > 1 else ""
    trip = int(env[m]) if m else None
    cond = bool(env[c]) if c else True
    carried = [env[i] for i in node.inputs[2:]]
    n_carried = len(carried)
    scans: list[list[np.ndarray]] = [[] for _ in range(len(body.outputs) - 1 - n_carried)]
    it = 0
    while cond and (trip is None or it < trip):
        feeds = {body.inputs[0][0]: np.array(it, np.int64), body.inputs[1][0]: np.array(cond)}
        for (nm, _, _), v in zip(body.inputs[2:], carried):
            feeds[nm] = v
        outs = run_eager(body, feeds, env)
        cond = bool(np.asarray(outs[0]).reshape(-1)[0])
        carried = outs[1:1 + n_carried]
        for s, v in zip(scans, outs[1 + n_carried:]):
            s.append(v)
        it += 1
    return carried + [np.stack(s) if s else np.zeros((0,), np.float32) for s in scans]


def run_node(node: Node, env: dict[str, np.ndarray]) -> list[np.ndarray]:
    if node.op == "If":
        return _run_if(node, env)
    if node.op == "Loop":
        return _run_loop(node, env)
    ins = [env[i] if i else None for i in node.inputs]
    return node.kernel(node.attrs, ins, None)


def run_eager(g: Graph, feeds: dict[str, np.ndarray], outer: dict[str, np.ndarray] | None = None,
              record: dict[str, np.ndarray] | None = None) -> list[np.ndarray]:
    env = dict(outer or {})
    env.update(g.consts)
    env.update(feeds)
    for n in g.nodes:
        res = run_node(n, env)
        for o, r in zip(n.outputs, res):
            env[o] = np.asarray(r)
    if record is not None:
        record.update(env)
    return [env[o] for o in g.outputs]


# --- arena plan -----------------------------------------------------------------------------------

@dataclass
class Plan:
    """Buffers of one input signature: offsets into one arena and the bound steps."""

    arena: np.ndarray
    arena_bytes: int
    total_bytes: int  # the sum of every intermediate's bytes, had each its own buffer
    steps: list[Any]
    input_views: list[np.ndarray]
    output_views: list[np.ndarray]
    n_buffers: int


def _align(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


def assign_offsets(sizes: dict[str, int], live: dict[str, tuple[int, int]]) -> tuple[dict[str, int], int]:
    """Greedy by size (largest first): each buffer at the lowest offset not overlapping any placed
    buffer whose lifetime intersects its own (TFLite's arena strategy)."""
    placed: list[tuple[int, int, int, int]] = []  # offset, size, first, last
    offsets: dict[str, int] = {}
    top = 0
    for name in sorted(sizes, key=lambda k: (-sizes[k], live[k][0])):
        size = _align(max(sizes[name], 1))
        first, last = live[name]
        busy = sorted((o, s) for o, s, f, la in placed if not (la < first or f > last))
        off = 0
        for o, s in busy:
            if off + size <= o:
                break
            off = max(off, o + s)
        placed.append((off, size, first, last))
        offsets[name] = off
        top = max(top, off + size)
    return offsets, top


def make_plan(g: Graph, feeds: dict[str, np.ndarray]) -> tuple[Plan, list[np.ndarray]]:
    """Run once eagerly (the shapes), then plan the arena and bind every step to its views."""
    env: dict[str, np.ndarray] = {}
    result = run_eager(g, feeds, record=env)
    in_names = [n for n, _, _ in g.inputs]
    root: dict[str, str] = {}  # alias -> the buffer it views
    live: dict[str, list[int]] = {}
    for nm in in_names:
        live[nm] = [0, 0]
    for step, n in enumerate(g.nodes):
        reads = [i for i in n.inputs if i]
        for sg in n.subgraphs.values():
            reads += sorted(sg.free_names())
        for i in reads:
            r = root.get(i, i)
            if r in live:
                live[r][1] = step
        alias = n.op in _ops.ALIAS_OPS and n.inputs[0] not in g.consts and n.inputs[0] in env
        for o in n.outputs:
            if not o:
                continue
            if alias:
                root[o] = root.get(n.inputs[0], n.inputs[0])
            else:
                live[o] = [step, step]
    end = len(g.nodes)
    for o in g.outputs:
        r = root.get(o, o)
        if r in live:
            live[r][1] = end
    sizes = {k: int(env[k].nbytes) for k in live}
    offsets, top = assign_offsets(sizes, {k: (v[0], v[1]) for k, v in live.items()})
    arena = np.zeros(max(top, ALIGN), np.uint8)
    views: dict[str, np.ndarray] = dict(g.consts)
    for k in live:
        a = env[k]
        views[k] = np.ndarray(a.shape, a.dtype, buffer=arena, offset=offsets[k])
    steps = []
    for n in g.nodes:
        for o in n.outputs:
            if o in root:
                views[o] = views[root[o]].reshape(env[o].shape)
        st = _bind(n, views, g)
        if st is not None:
            steps.append(st)
    plan = Plan(arena, top, sum(sizes[k] for k in live if k not in in_names), steps,
                [views[n] for n in in_names], [views[o] for o in g.outputs], len(live))
    return plan, result


def _bind(n: Node, views: dict[str, np.ndarray], g: Graph) -> Any:
    if n.op in _ops.ALIAS_OPS and n.outputs[0] in views and n.inputs[0] not in g.consts:
        return None  # a view made at plan time: nothing to run
    outs = [views[o] for o in n.outputs if o]
    if n.subgraphs:
        def sub() -> None:
            res = run_node(n, views)
            for o, r in zip(outs, res):
                if o.shape != np.shape(r):
                    raise _ops.ShapeChanged
                np.copyto(o, r, casting="unsafe")
        return sub
    ins = [views[i] if i else None for i in n.inputs]
    kern, attrs = n.kernel, n.attrs
    fast = _fast_step(n, ins, outs)
    if fast is not None:
        return fast
    if n.op in _ops.ALIAS_OPS:  # a reshape of a constant: its own buffer, filled each run
        return lambda: _ops._store(outs, kern(attrs, ins, None))
    return lambda: kern(attrs, ins, outs)
