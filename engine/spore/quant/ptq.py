"""Static post-training quantization (MindSpore Lite's converter `FULL_QUANT` with a calibration
config; MindSpore 2.10's core has no PTQ API, so the names echo the converter's config file:
`activation_quant_method` MAX_MIN / KL / REMOVAL_OUTLIER, `per_channel`, `skip_quant_node`).

    from spore.quant import quantize_static
    qnet = quantize_static(net, calib_batches, method="minmax")   # "percentile", "kl"
    qnet(x)                                      # int8 Conv/Dense on oneDNN's integer kernels

How: the network runs once in PyNative with forward hooks on its leaf cells, which records the
call order and which tensor flows from which cell to which (tensor identity). From that trace,
every `nn.Conv2d` / `nn.Dense` is fused with an eval `BatchNorm2d`/`BatchNorm1d` that reads its
output (folded into the weights) and with an `nn.ReLU` that then reads it (the ReLU goes into the
kernel's epilogue; the ReLU cell stays in place, where it is the identity on the now non-negative
output — so a ReLU cell shared by several layers, as in LeNet, is fine). The calibration batches
then run with observers on each layer's input and on its fused output; weights are quantized per
output channel (min-max, symmetric, narrow range), activations per tensor (uint8, asymmetric).
The layer whose output is the network's output keeps a float32 output (logits are not
requantized). The result is a `QuantizedNet`: a deep copy of the network with `QuantDense` /
`QuantConv2d` in place of the float layers and `nn.Identity` for folded BatchNorms.

MindSpore's golden-stick `mindspore_gs.ptq.PTQ` targets large language models on Ascend through
network helpers; the converter's FULL_QUANT is the closer model for CNNs/MLPs, so its config names
are the ones echoed here (`skip_quant_node` plays the part of golden-stick's `opname_blacklist`).

Limits (stated, checked where possible): the network must run in PyNative (the trace uses hooks);
only Conv2d (NCHW) and Dense are quantized, everything else stays float32 between them; a ReLU is
fused only when it is a `nn.ReLU` cell reading the layer's output and no other traced cell reads
the pre-ReLU value. A functional use of it elsewhere (`relu(y) + y`) is invisible to the cell
trace, so every fusion is then verified: the network runs once with the fused values handed on at
the layers, and a layer whose fusion changes the network's output is quantized unfused.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from ..common.atomic_write import atomic_write
from ..errors import SporeError
from ..nn import Cell
from .observers import MinMaxObserver, Observer, make_observer
from .qmodules import QuantConv2d, QuantDense, quantize_bias, quantize_weight

_METHODS = {"minmax": "minmax", "max_min": "minmax", "percentile": "percentile", "removal_outlier": "percentile",
            "kl": "kl"}


class QuantizedNet(Cell):
    """A network whose Conv2d/Dense layers run in int8; `network` is the converted copy.

    `layers` maps each quantized layer's path (as in `cells_and_names`) to its kind and fused ops;
    `folded` lists the BatchNorm paths folded away. `ms.export(qnet, x, file_format="ONNX")` writes
    QDQ ONNX (see `spore.quant.export_qdq`)."""

    def __init__(self, network: Cell, layers: dict[str, dict[str, Any]], folded: Sequence[str] = (),
                 method: str = "minmax") -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.layers = dict(layers)
        self.folded = list(folded)
        self.method = method

    def construct(self, *args: Any) -> Any:
        return self.network(*args)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs in PyNative whatever the context's mode: the int8 cells call the C++ kernels on
        concrete buffers, which a Graph-mode trace does not have (export traces `float_view()`)."""
        from .. import context

        mode = context.get_context("mode")
        if mode == context.PYNATIVE_MODE:
            return super().__call__(*args, **kwargs)
        context.set_context(mode=context.PYNATIVE_MODE)
        try:
            return super().__call__(*args, **kwargs)
        finally:
            context.set_context(mode=mode)

    def quant_cells(self) -> dict[str, Any]:
        """path -> the QuantDense / QuantConv2d cell."""
        cells = dict(self.network.cells_and_names())
        return {p: cells[p] for p in self.layers}

    def _to_qdq_model(self, *inputs: Any, **kwargs: Any) -> Any:
        """The QDQ ONNX model (what `spore.onnx.export` / `ms.export` write for a quantized net)."""
        from .qdq_export import to_qdq_model

        return to_qdq_model(self, *inputs, **kwargs)


def _as_batches(calibration_data: Any, batch_size: int) -> list[tuple]:
    """Calibration data as a list of argument tuples of float32 NumPy arrays."""
    from ..tensor import Tensor

    def arr(v: Any) -> np.ndarray:
        a = v.asnumpy() if isinstance(v, Tensor) else np.asarray(v)
        if a.dtype.kind != "f":
            raise SporeError(f"quantize_static: calibration inputs must be float arrays, got {a.dtype}")
        return np.ascontiguousarray(a, np.float32)

    if isinstance(calibration_data, (np.ndarray, Tensor)):
        a = arr(calibration_data)
        if a.ndim == 0:
            raise SporeError("quantize_static: calibration_data is a scalar; give a batch (N, ...) or batches")
        return [(a[i:i + batch_size],) for i in range(0, a.shape[0], batch_size)]
    if hasattr(calibration_data, "create_tuple_iterator"):  # a (batched) Dataset: its first column is the input
        rows = list(calibration_data.create_tuple_iterator(num_epochs=1, output_numpy=True))
        if not rows:
            raise SporeError("quantize_static: the calibration Dataset is empty")
        return [(arr(r[0]),) for r in rows]
    if isinstance(calibration_data, dict):
        raise SporeError("quantize_static: calibration_data is a dict; give a list of input batches "
                         "(for an .npz, its arrays in input order)")
    try:
        items = list(calibration_data)
    except TypeError:
        raise SporeError(f"quantize_static: calibration_data must be an array or an iterable of batches, "
                         f"got {type(calibration_data).__name__}") from None
    out = [tuple(arr(v) for v in b) if isinstance(b, (tuple, list)) else (arr(b),) for b in items]
    if not out:
        raise SporeError("quantize_static: calibration_data is empty; give at least one batch")
    return out


def _leaf_cells(net: Cell) -> dict[str, Cell]:
    return {name: c for name, c in net.cells_and_names() if name and not dict(c.name_cells())}


def _trace(net: Cell, batch: tuple) -> tuple[list[tuple[str, Cell, tuple, Any]], Any]:
    """Run `net` once with hooks on its leaf cells: [(path, cell, args, output)] in call order."""
    from ..tensor import Tensor

    events: list[tuple[str, Cell, tuple, Any]] = []
    handles = []
    for name, c in _leaf_cells(net).items():
        handles.append(c.register_forward_hook(lambda cell, args, out, _n=name: events.append((_n, cell, args, out))))
    try:
        out = net(*(Tensor(a) for a in batch))
    finally:
        for h in handles:
            h.remove()
    return events, out


def _flat_outputs(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [o for x in out for o in _flat_outputs(x)]
    return [out]


def _plan(net: Cell, events: list, out: Any, fold_bn: bool, fuse_relu: bool, skip: set[str]) -> dict[str, dict]:
    """Each quantizable layer's fused chain (BN, ReLU) and whether its output is a network output."""
    from ..nn import BatchNorm1d, BatchNorm2d, Conv2d, Dense, ReLU

    readers: dict[int, list[int]] = {}
    for i, (_, _, args, _) in enumerate(events):
        for a in args:
            readers.setdefault(id(a), []).append(i)
    outputs = {id(o) for o in _flat_outputs(out)}
    calls: dict[str, int] = {}
    for name, _, _, _ in events:
        calls[name] = calls.get(name, 0) + 1
    plans: dict[str, dict] = {}
    for i, (name, cell, _args, o) in enumerate(events):
        if name in skip or type(cell) not in (Conv2d, Dense):
            continue
        if isinstance(cell, Conv2d) and cell.format != "NCHW":
            continue
        if isinstance(cell, Dense) and getattr(cell, "activation_flag", False):
            continue
        if calls[name] > 1:
            continue  # a layer called several times per forward keeps float (one set of scales cannot fit)
        chain: list[str] = []
        bn: str | None = None
        cur = o
        nxt = readers.get(id(cur), [])
        bn_type = BatchNorm2d if isinstance(cell, Conv2d) else BatchNorm1d
        if fold_bn and len(nxt) == 1 and type(events[nxt[0]][1]) is bn_type and calls[events[nxt[0]][0]] == 1 \
                and id(cur) not in outputs:
            bn = events[nxt[0]][0]
            chain.append("bn")
            cur = events[nxt[0]][3]
            nxt = readers.get(id(cur), [])
        relu = False
        if fuse_relu and len(nxt) == 1 and type(events[nxt[0]][1]) is ReLU and id(cur) not in outputs:
            relu = True
            chain.append("relu")
            cur = events[nxt[0]][3]
        plans[name] = {"kind": "conv2d" if isinstance(cell, Conv2d) else "dense", "bn": bn, "relu": relu,
                       "chain": chain, "float_out": id(cur) in outputs}
    return plans


def _fused_run(net: Cell, cells: dict, plans: dict, fused: list[str], batch: tuple) -> list[np.ndarray]:
    """The network's outputs when each layer in `fused` hands on its fused value (BN and ReLU applied
    at the layer) and the BN cells pass such values through: equal to the plain run exactly when
    nothing else reads the layer's pre-fusion value."""
    from ..ops import functional as F
    from ..tensor import Tensor

    marked: dict[int, Any] = {}

    def layer_hook(plan: dict) -> Any:
        def hook(cell: Any, args: tuple, out: Any) -> Any:
            v = cells[plan["bn"]].construct(out) if plan["bn"] else out
            v = F.relu(v) if plan["relu"] else v
            marked[id(v)] = v
            return v
        return hook

    def bn_hook(cell: Any, args: tuple, out: Any) -> Any:
        return args[0] if args and marked.get(id(args[0])) is args[0] else None

    handles = [cells[p].register_forward_hook(layer_hook(plans[p])) for p in fused]
    handles += [cells[plans[p]["bn"]].register_forward_hook(bn_hook) for p in fused if plans[p]["bn"]]
    try:
        return [o.asnumpy() for o in _flat_outputs(net(*(Tensor(a) for a in batch)))]
    finally:
        for h in handles:
            h.remove()


def _verify_fusions(net: Cell, cells: dict, plans: dict, batch: tuple, out: Any) -> None:
    """Un-fuse the BN/ReLU of any layer whose pre-fusion value something else also reads (a functional
    use such as `relu(y) + y` that the cell trace cannot see): checked by running the network with the
    fusions applied at the layers and comparing its outputs with the plain run's."""
    fused = [p for p, plan in plans.items() if plan["chain"]]
    if not fused:
        return
    ref = [o.asnumpy() for o in _flat_outputs(out)]

    def same(got: list[np.ndarray]) -> bool:
        return len(got) == len(ref) and all(np.allclose(a, b, rtol=1e-5, atol=1e-6) for a, b in zip(got, ref))

    if same(_fused_run(net, cells, plans, fused, batch)):
        return
    for p in fused:
        if not same(_fused_run(net, cells, plans, [p], batch)):
            plans[p].update(bn=None, relu=False, chain=[], float_out=False, unfused=True)


def fold_batchnorm(w: np.ndarray, b: np.ndarray | None, bn: Any) -> tuple[np.ndarray, np.ndarray]:
    """Conv/Dense weights with an eval BatchNorm folded in: k = g / sqrt(v + eps); w * k, (b - m) * k + beta."""
    g = bn.gamma.asnumpy().astype(np.float64)
    beta = bn.beta.asnumpy().astype(np.float64)
    mean = bn.moving_mean.asnumpy().astype(np.float64)
    var = bn.moving_variance.asnumpy().astype(np.float64)
    k = g / np.sqrt(var + bn.eps)
    w2 = (w.astype(np.float64) * k.reshape(-1, *([1] * (w.ndim - 1)))).astype(np.float32)
    b0 = np.zeros_like(mean) if b is None else b.astype(np.float64)
    return w2, ((b0 - mean) * k + beta).astype(np.float32)


def _replace(root: Cell, path: str, new: Cell) -> None:
    parent_path, _, leaf = path.rpartition(".")
    parent = dict(root.cells_and_names())[parent_path] if parent_path else root
    seq = parent.__dict__.get("_seq")
    if seq is not None:
        old = parent.__dict__["_cells"][leaf]
        parent[[i for i, c in enumerate(seq) if c is old][0]] = new
    else:
        setattr(parent, leaf, new)


def build_layer(kind: str, cell: Any, w: np.ndarray, b: np.ndarray | None, w_scale: np.ndarray,
                x_qparams: tuple, y_qparams: tuple | None, relu: bool) -> QuantDense | QuantConv2d:
    """A QuantDense / QuantConv2d from float weights (already BN-folded) and the calibrated scales."""
    xs, xz = float(np.asarray(x_qparams[0])), int(np.asarray(x_qparams[1]))
    ys, yz = (None, 0) if y_qparams is None else (float(np.asarray(y_qparams[0])), int(np.asarray(y_qparams[1])))
    wq, bq = quantize_weight(w, w_scale), quantize_bias(b, xs, w_scale)
    if kind == "dense":
        return QuantDense(wq, w_scale, bq, xs, xz, ys, yz, relu)
    return QuantConv2d(wq, w_scale, bq, xs, xz, ys, yz, relu, cell.stride, cell.pad_mode, cell.padding,
                       cell.dilation, cell.group)


def weight_scale(w: np.ndarray, per_channel: bool = True) -> np.ndarray:
    """Symmetric narrow-range int8 scales per output channel (max|w| / 127); one shared when not per channel."""
    obs = MinMaxObserver(axis=0 if per_channel else None)
    obs.update(w)
    s, _ = obs.qparams("int8", symmetric=True, narrow_range=True)
    return np.broadcast_to(s, (w.shape[0],)).astype(np.float32).copy()


def quantize_static(net: Cell, calibration_data: Any, method: str = "minmax", *, batch_size: int = 32,
                    calibrate_size: int | None = None, per_channel: bool = True, fold_bn: bool = True,
                    fuse_relu: bool = True, skip_quant_node: Iterable[str] = ()) -> QuantizedNet:
    """Calibrate `net` on `calibration_data` and return its int8 version (`net` is not modified).

    calibration_data: a float array (N, ...) split into `batch_size` batches, an iterable of
    batches (arrays / Tensors, or tuples of them for several inputs; labels must not be included),
    or a batched `spore.dataset` Dataset, whose first column is taken as the input.
    method: activation calibration — "minmax" (MAX_MIN), "percentile" (REMOVAL_OUTLIER, 99.99th
    percentile of |x|) or "kl" (TensorRT's entropy). calibrate_size: use at most this many batches.
    skip_quant_node: layer paths (`"fc3"`, `"features.0"`) to keep in float32.
    """
    from .. import context

    if not isinstance(net, Cell):
        raise SporeError(f"quantize_static: expected an nn.Cell, got {type(net).__name__}")
    key = _METHODS.get(str(method).lower())
    if key is None:
        raise SporeError(f"quantize_static: method must be 'minmax', 'percentile' or 'kl', got {method!r}")
    if calibrate_size is not None and (not isinstance(calibrate_size, int) or calibrate_size < 1):
        raise SporeError(f"quantize_static: calibrate_size must be a positive int, got {calibrate_size!r}")
    batches = _as_batches(calibration_data, batch_size)[:calibrate_size]
    skip = set(skip_quant_node)
    known = {n for n, _ in net.cells_and_names()}
    if skip - known:
        raise SporeError(f"quantize_static: skip_quant_node names no cell: {sorted(skip - known)}")
    was_training = net.training
    mode = context.get_context("mode")
    net.set_train(False)
    context.set_context(mode=context.PYNATIVE_MODE)
    try:
        try:
            events, out = _trace(net, batches[0])
        except SporeError as err:
            raise SporeError(f"quantize_static: the network does not run on the calibration data ({err})") from err
        plans = _plan(net, events, out, fold_bn, fuse_relu, skip)
        if not plans:
            raise SporeError("quantize_static: the network has no nn.Conv2d / nn.Dense layer to quantize")
        cells = dict(net.cells_and_names())
        _verify_fusions(net, cells, plans, batches[0], out)
        obs_x = {p: make_observer(key) for p in plans}
        obs_y = {p: make_observer(key) for p in plans if not plans[p]["float_out"]}
        _calibrate(net, cells, plans, obs_x, obs_y, batches)
    finally:
        context.set_context(mode=mode)
        net.set_train(was_training)
    qnet_inner = copy.deepcopy(net)
    qnet_inner.set_train(False)
    qcells = dict(qnet_inner.cells_and_names())
    layers: dict[str, dict[str, Any]] = {}
    folded: list[str] = []
    from ..nn import Identity

    for path, plan in plans.items():
        cell = qcells[path]
        w = cell.weight.asnumpy()
        b = None if cell.bias is None else cell.bias.asnumpy()
        if plan["bn"]:
            w, b = fold_batchnorm(w, b, qcells[plan["bn"]])
            _replace(qnet_inner, plan["bn"], Identity())
            folded.append(plan["bn"])
        xq = obs_x[path].qparams("uint8", symmetric=False)
        yq = None if plan["float_out"] else obs_y[path].qparams("uint8", symmetric=False)
        layer = build_layer(plan["kind"], cell, w, b, weight_scale(w, per_channel), xq, yq, plan["relu"])
        _replace(qnet_inner, path, layer)
        layers[path] = {"kind": plan["kind"], "relu": plan["relu"], "bn": plan["bn"]}
    return QuantizedNet(qnet_inner, layers, folded, key)


def _calibrate(net: Cell, cells: dict, plans: dict, obs_x: dict[str, Observer], obs_y: dict[str, Observer],
               batches: list[tuple]) -> None:
    """Run every batch with hooks feeding each layer's input and fused output to its observers."""
    from ..nn import ReLU
    from ..tensor import Tensor

    pending: dict[int, tuple[Any, str, list[str]]] = {}  # id(tensor) -> (tensor, layer, chain left)

    def arrive(path: str, chain: list[str], out: Any) -> None:
        if not chain:
            if path in obs_y:
                obs_y[path].update(out.asnumpy())
        else:
            pending[id(out)] = (out, path, chain)

    def layer_hook(path: str) -> Any:
        def hook(cell: Any, args: tuple, out: Any) -> None:
            obs_x[path].update(args[0].asnumpy())
            arrive(path, list(plans[path]["chain"]), out)
        return hook

    def chain_hook(kind: str) -> Any:
        def hook(cell: Any, args: tuple, out: Any) -> None:
            hit = pending.get(id(args[0])) if args else None
            if hit is not None and hit[0] is args[0] and hit[2][0] == kind:
                del pending[id(args[0])]
                arrive(hit[1], hit[2][1:], out)
        return hook

    handles = [cells[p].register_forward_hook(layer_hook(p)) for p in plans]
    chained: dict[int, Any] = {}
    for p, plan in plans.items():
        if plan["bn"]:
            chained[id(cells[plan["bn"]])] = (cells[plan["bn"]], "bn")
    any_relu = any(plan["relu"] for plan in plans.values())
    relus = {id(c): c for c in cells.values() if any_relu and type(c) is ReLU}
    for c, kind in chained.values():
        handles.append(c.register_forward_hook(chain_hook(kind)))
    for c in relus.values():
        handles.append(c.register_forward_hook(chain_hook("relu")))
    try:
        for b in batches:
            pending.clear()
            net(*(Tensor(a) for a in b))
    finally:
        for h in handles:
            h.remove()


# --- save / load ---------------------------------------------------------------------------------------

_FORMAT = "spore.quant.static/1"


def save_quantized_model(qnet: QuantizedNet, file_name: str) -> str:
    """Write a `QuantizedNet` as one `.npz` (no pickle): a JSON index plus one raw byte blob holding
    int8 weights, int32 biases, float32 scales and the float parameters of the unquantized cells.
    The write is atomic (temporary file, then rename). Returns the path (".npz" added)."""
    import json
    import os

    if not isinstance(qnet, QuantizedNet):
        raise SporeError(f"save_quantized_model: expected a QuantizedNet, got {type(qnet).__name__}")
    chunks: list[bytes] = []
    off = 0

    def put(a: np.ndarray) -> list:
        nonlocal off
        raw = np.ascontiguousarray(a).tobytes()
        chunks.append(raw)
        off += len(raw)
        return [off - len(raw), len(raw), str(a.dtype), list(a.shape)]

    layers = []
    qcells = qnet.quant_cells()
    owned = set()
    for path, cell in qcells.items():
        owned.update((id(cell.weight), id(cell.bias)))
        ent = dict(qnet.layers[path], path=path, w_q=put(cell.w_q), w_scale=put(cell.w_scale), b_q=put(cell.b_q),
                   x_scale=cell.x_scale, x_zp=cell.x_zp, y_scale=cell.y_scale, y_zp=cell.y_zp)
        if isinstance(cell, QuantConv2d):
            ent["conv"] = {"stride": list(cell.stride), "pad_mode": cell.pad_mode,
                           "padding": cell.padding if isinstance(cell.padding, int) else list(cell.padding),
                           "dilation": list(cell.dilation), "group": cell.group}
        layers.append(ent)
    params = [dict(name=n, data=put(p.asnumpy())) for n, p in qnet.network.parameters_and_names()
              if id(p) not in owned]
    index = {"method": qnet.method, "folded": qnet.folded, "layers": layers, "params": params}
    path = os.fspath(file_name)
    if not path.endswith(".npz"):
        path += ".npz"
    with atomic_write(path, prefix=".spore-quant-") as f:
        # the index as UTF-8 bytes: a NumPy str array would store 4 bytes per character
        np.savez(f, format=np.frombuffer(_FORMAT.encode(), np.uint8),
                 index=np.frombuffer(json.dumps(index, separators=(",", ":")).encode(), np.uint8),
                 blob=np.frombuffer(b"".join(chunks), np.uint8))
    return path


def load_quantized_model(net: Cell, file_name: str) -> QuantizedNet:
    """Rebuild a `QuantizedNet` from `save_quantized_model`'s file into `net`, a fresh instance of
    the float network's class (its structure is used, its weights are replaced; `net` is modified)."""
    import json
    import os

    try:
        data = np.load(os.fspath(file_name), allow_pickle=False)
        fmt = data["format"].tobytes().decode("utf-8", "replace") if "format" in data.files else None
        index = json.loads(data["index"].tobytes().decode()) if fmt == _FORMAT else {}
        blob = data["blob"].tobytes() if fmt == _FORMAT else b""
    except Exception as err:
        raise SporeError(f"load_quantized_model: {file_name} is not a Spore quantized model file ({err})") from err
    if fmt != _FORMAT:
        raise SporeError(f"load_quantized_model: {file_name} is not a Spore static-quantized model (format {fmt!r})")

    def get(ref: list) -> np.ndarray:
        o, n, dt, shape = ref
        if not (isinstance(o, int) and isinstance(n, int)) or o < 0 or n < 0 or o + n > len(blob):
            raise SporeError(f"load_quantized_model: {file_name} is truncated (an array ends past the blob)")
        if np.dtype(dt).kind not in "fiu":
            raise SporeError(f"load_quantized_model: {file_name} names a non-numeric dtype {dt!r}")
        return np.frombuffer(blob[o:o + n], np.dtype(dt)).reshape(shape).copy()

    if not isinstance(net, Cell):
        raise SporeError(f"load_quantized_model: expected an nn.Cell to load into, got {type(net).__name__}")
    try:
        return _rebuild(net, index, get)
    except (KeyError, TypeError, ValueError, IndexError) as err:
        raise SporeError(f"load_quantized_model: {file_name} has a malformed index ({type(err).__name__}: {err})") \
            from err


def _rebuild(net: Cell, index: dict, get: Any) -> QuantizedNet:
    from ..nn import Identity
    from ..tensor import Tensor

    cells = dict(net.cells_and_names())
    for bn in index["folded"]:
        if bn not in cells:
            raise SporeError(f"load_quantized_model: the network has no cell {bn!r} (a different network class?)")
        _replace(net, bn, Identity())
    layers = {}
    for e in index["layers"]:
        p = e["path"]
        if p not in cells:
            raise SporeError(f"load_quantized_model: the network has no cell {p!r} (a different network class?)")
        args = (get(e["w_q"]), get(e["w_scale"]), get(e["b_q"]), e["x_scale"], e["x_zp"], e["y_scale"], e["y_zp"],
                e["relu"])
        if e["kind"] == "dense":
            layer: Cell = QuantDense(*args)
        else:
            c = e["conv"]
            pad = c["padding"] if isinstance(c["padding"], int) else tuple(c["padding"])
            layer = QuantConv2d(*args, c["stride"], c["pad_mode"], pad, c["dilation"], c["group"])
        _replace(net, p, layer)
        layers[p] = {"kind": e["kind"], "relu": e["relu"], "bn": e["bn"]}
    own = dict(net.parameters_and_names())
    for e in index["params"]:
        prm = own.get(e["name"])
        if prm is None:
            raise SporeError(f"load_quantized_model: the network has no parameter {e['name']!r}")
        v = get(e["data"])
        if tuple(prm.shape) != v.shape:
            raise SporeError(f"load_quantized_model: parameter {e['name']!r} is {tuple(prm.shape)} in the network, "
                             f"{v.shape} in the file")
        prm.set_data(Tensor(v))
    net.set_train(False)
    return QuantizedNet(net, layers, index["folded"], index["method"])
