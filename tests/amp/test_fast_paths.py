"""O2's fast paths (issue 18) change no bit of training.

Two independent checks of every training step's result (losses, weights, optimizer state):

- a NumPy oracle of O2 for a Dense-ReLU MLP: every cast, bias add, ReLU, bias gradient and Momentum
  update done with plain NumPy / ml_dtypes casts, and only the GEMMs and the float32 loss taken from
  Spore's kernels (the GEMM's summation order is oneDNN's, which NumPy cannot reproduce);
- the same networks trained with the fast paths and with `lowp.reference_paths()` (the plain casts
  and conversions the code had before them), for several nets, optimizers, loss scaling and both
  modes.

Both compare bits (`tobytes`), not tolerances: the fast paths are meant to compute exactly the same
thing with fewer passes over memory.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spore as ms
from spore import _kernels, amp, nn, ops
from spore.amp import lowp

BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.float32
DTYPES = {"bf16": (ms.bfloat16, BF16), "fp16": (ms.float16, np.dtype(np.float16))}


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


# ---------------------------------------------------------------------------------------------
# The NumPy oracle


def _o_matmul(a: np.ndarray, b: np.ndarray, ta: bool, tb: bool, dt: np.dtype) -> np.ndarray:
    """op(a) @ op(b) as O2 defines it: float32 accumulation of the 16-bit operands, rounded once."""
    m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    n = b.shape[0] if tb else b.shape[1]
    a32, b32 = a.astype(F32), b.astype(F32)
    if m * n * k < 4096:  # tiny products: NumPy's float32 matmul
        return np.matmul(a32.T if ta else a32, b32.T if tb else b32).astype(dt)
    if dt == BF16 and lowp.bf16_native():
        return _kernels.bf16_matmul_bf16(a.view(np.uint16), b.view(np.uint16), ta, tb).view(BF16)
    return _kernels.sgemm(a32, b32, ta, tb).astype(dt)


def _o_bias_grad(g: np.ndarray) -> np.ndarray:
    """Column sums of a 16-bit gradient: float32, rows added in order, rounded once (large ones);
    NumPy's own sum in the 16-bit dtype for small ones."""
    if g.size < 1024:
        return g.sum(axis=0, keepdims=True).reshape(g.shape[1:])
    acc = np.zeros(g.shape[1], F32)
    for row in g.astype(F32):
        acc += row
    return acc.astype(g.dtype)


def _o_loss_grad(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float32 loss and its gradient from Spore (the loss is float32 under O2, not the oracle's subject)."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    value, g = ms.value_and_grad(lambda z: loss(z, ms.Tensor(labels)))(ms.Tensor(logits))
    return value.asnumpy(), g.asnumpy()


def _oracle_steps(params: list[np.ndarray], x: np.ndarray, y: np.ndarray, dt: np.dtype, steps: int,
                  lr: float = 0.01, u: float = 0.9) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """O2 training of Dense-ReLU-...-Dense with Momentum: (losses, weights, moments)."""
    params = [p.copy() for p in params]
    moments = [np.zeros_like(p) for p in params]
    losses = []
    n_layers = len(params) // 2
    for _ in range(steps):
        h = x.astype(dt)
        acts, outs = [], []
        ws = [params[2 * i].astype(dt) for i in range(n_layers)]
        bs = [params[2 * i + 1].astype(dt) for i in range(n_layers)]
        for i in range(n_layers):
            acts.append(h)
            z = (_o_matmul(h, ws[i], False, True, dt).astype(F32) + bs[i].astype(F32)).astype(dt)
            if i < n_layers - 1:
                z = np.where(z.astype(F32) > 0, z, np.zeros_like(z))
                outs.append(z)
            h = z
        loss, g32 = _o_loss_grad(h.astype(F32), y)
        losses.append(loss)
        g = g32.astype(dt)
        grads = [None] * len(params)
        for i in reversed(range(n_layers)):
            if i < n_layers - 1:
                g = (g.astype(F32) * (outs[i].astype(F32) > 0)).astype(dt)
            grads[2 * i + 1] = _o_bias_grad(g).astype(F32)
            grads[2 * i] = _o_matmul(g, acts[i], True, False, dt).astype(F32)
            if i:
                g = _o_matmul(g, ws[i], False, False, dt)
        for p, v, gr in zip(params, moments, grads):
            v[...] = v * F32(u) + gr
            # GCC compiles the kernel's `p -= lr * v` to one fused multiply-add: the product exact in
            # float64, one rounding to float32 (a double rounding could differ once in ~2**29 values)
            p[...] = (p.astype(np.float64) - np.float64(F32(lr)) * v.astype(np.float64)).astype(F32)
    return losses, params, moments


def _mlp(sizes: tuple[int, ...]) -> nn.Cell:
    layers: list[nn.Cell] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Dense(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.SequentialCell(layers)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).tobytes()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_o2_mlp_training_equals_the_numpy_oracle_bit_for_bit(dtype: str, mode: int) -> None:
    ms_dt, np_dt = DTYPES[dtype]
    sizes = (300, 512, 96, 10)  # weights above and below the C++ cast threshold, a tiny head
    ms.set_seed(3)
    net = _mlp(sizes)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((48, sizes[0])).astype(F32)
    y = rng.integers(0, sizes[-1], 48).astype(np.int32)
    start = [p.asnumpy().copy() for p in net.trainable_params()]
    losses, weights, moments = _oracle_steps(start, x, y, np_dt, steps=4)
    ms.set_context(mode=mode)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    cell = amp.build_train_network(net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                   level="O2", cast_model_type=ms_dt, loss_scale_manager=None)
    got = [cell(ms.Tensor(x), ms.Tensor(y)).asnumpy() for _ in range(4)]
    assert [_bits(a) for a in got] == [_bits(a) for a in losses]
    for p, w, v, m in zip(net.trainable_params(), weights, opt.moments, moments):
        assert _bits(p.asnumpy()) == _bits(w), p.name
        assert _bits(v.asnumpy()) == _bits(m), p.name
    if mode == ms.GRAPH_MODE:  # what ran: each layer's forward and backward as one call each
        graph = next(iter(cell.compiled_construct.cache.values())).graph
        names = [e.prim.name for e in graph.eqns]
        assert names.count("FusedDense") == 3 and not {"MatMul", "SumTo", "ReluGrad"} & set(names), names
        backward = [e for e in graph.eqns if e.prim.name == "DenseBackward"]
        # the weight and bias gradients' casts back to float32 ran inside them
        assert [(e.attrs["has_w"], e.attrs["relu"], e.attrs["wide"]) for e in backward] == [
            (True, False, (True, True)), (True, True, (True, True)), (False, True, (True, True))]
        assert all(e.outputs[-1].aval.dtype == ms.float32 for e in backward)


# ---------------------------------------------------------------------------------------------
# Fast paths against the reference paths


def _net(name: str) -> tuple[nn.Cell, tuple[int, ...]]:
    if name == "mlp":
        return _mlp((300, 512, 96, 10)), (48, 300)
    if name == "cnn":  # bf16: oneDNN's bf16 convolutions (16 channels)
        return nn.SequentialCell(nn.Conv2d(3, 16, 3, pad_mode="pad", padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
                                 nn.Flatten(), nn.Dense(16 * 8 * 8, 10)), (16, 3, 16, 16)
    if name == "thin_cnn":  # one input channel: bf16's float32 convolution path
        return nn.SequentialCell(nn.Conv2d(1, 6, 5, pad_mode="pad", padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
                                 nn.Flatten(), nn.Dense(6 * 8 * 8, 64), nn.ReLU(), nn.Dense(64, 10)), (16, 1, 16, 16)
    # BatchNorm is kept in float32 under O2: casts in and out around it
    return nn.SequentialCell(nn.Dense(64, 600), nn.BatchNorm1d(600), nn.ReLU(), nn.Dense(600, 10)), (32, 64)


def _optimizer(name: str, params: list) -> nn.Optimizer:
    if name == "adam":
        return nn.Adam(params, learning_rate=1e-3)
    if name == "sgd":
        return nn.SGD(params, learning_rate=0.01, momentum=0.9)
    if name == "nesterov_wd":
        return nn.Momentum(params, learning_rate=0.01, momentum=0.9, weight_decay=1e-3, use_nesterov=True)
    if name == "adagrad":  # no fused kernel: the NumPy update
        return nn.Adagrad(params, learning_rate=0.01)
    return nn.Momentum(params, learning_rate=0.01, momentum=0.9)


def _run(net_name: str, dtype: str, mode: int, opt_name: str, scaled: bool, steps: int = 4) -> dict[str, bytes]:
    ms.set_context(mode=mode)
    ms.set_seed(0)
    net, shape = _net(net_name)
    rng = np.random.default_rng(1)
    x = ms.Tensor(rng.standard_normal(shape).astype(F32))
    y = ms.Tensor(rng.integers(0, 10, shape[0]).astype(np.int32))
    opt = _optimizer(opt_name, net.trainable_params())
    manager = amp.DynamicLossScaleManager(2.0 ** 10, 2, 3) if scaled else None
    cell = amp.build_train_network(net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                   level="O2", cast_model_type=DTYPES[dtype][0], loss_scale_manager=manager)
    out: dict[str, bytes] = {}
    for i in range(steps):
        r = cell(x, y)
        for j, t in enumerate(r if isinstance(r, tuple) else (r,)):
            out[f"step{i}.{j}"] = _bits(t.asnumpy())
    for name, p in opt.parameters_and_names():
        out[name] = _bits(p.asnumpy())
    out["eval"] = _bits(cell.network(x, y).asnumpy())
    return out


CASES = [(n, d, "momentum", False) for n in ("mlp", "cnn", "thin_cnn", "bn") for d in ("bf16", "fp16")] + [
    ("mlp", d, o, False) for d in ("bf16", "fp16") for o in ("adam", "sgd", "nesterov_wd", "adagrad")] + [
    ("mlp", "fp16", "momentum", True), ("cnn", "fp16", "adam", True), ("bn", "bf16", "momentum", True)]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("net_name,dtype,opt_name,scaled", CASES)
def test_fast_paths_train_bit_identically_to_the_reference_paths(net_name: str, dtype: str, opt_name: str,
                                                                 scaled: bool, mode: int,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lowp, "_TWIN_MIN", 1024)  # float32 twins on these small nets' arrays too
    with lowp.reference_paths():
        assert not lowp.fast_paths()
        ref = _run(net_name, dtype, mode, opt_name, scaled)
    assert lowp.fast_paths()
    fast = _run(net_name, dtype, mode, opt_name, scaled)
    assert fast.keys() == ref.keys()
    assert [k for k in ref if fast[k] != ref[k]] == []


# ---------------------------------------------------------------------------------------------
# AmpDense: a to_float Dense in one primitive each way (PyNative)


class _Shared(nn.Cell):
    """A Dense whose cast weight is also read outside the layer, or written in place first."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.fc = nn.Dense(300, 512)
        self.head = nn.Dense(512, 10)
        self.mode = mode

    def construct(self, x):
        w = self.fc.weight  # the 16-bit cast of the float32 Parameter
        if self.mode == "write":
            w[0] = 0.0  # no longer the Parameter's cast: the fused path must not claim its gradient
        y = ops.relu(ops.dense(x, w, self.fc.bias))
        if self.mode == "shared":
            y = y + ops.mean(w)  # the weight's gradient from two places
        return self.head(y)


def _grads(net_fn, dtype: str, order: int = 1) -> list[bytes]:
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(2)
    net = amp.auto_mixed_precision(net_fn(), "O2", DTYPES[dtype][0])
    x = ms.Tensor(np.random.default_rng(3).standard_normal((48, 300)).astype(F32))
    if order == 2:  # the gradient of |d loss / dx|^2 with respect to x
        inner = ms.grad(lambda t: ops.sum(net(t) ** 2))
        return [_bits(ms.grad(lambda t: ops.sum(inner(t) ** 2))(x).asnumpy())]
    params = net.trainable_params()
    _, grads = ms.value_and_grad(lambda t: ops.sum(net(t) ** 2), None, params)(x)
    return [_bits(g.asnumpy()) for g in grads]


def _both(net_fn, dtype: str, order: int = 1) -> tuple[list[bytes], list[bytes], int]:
    from spore.ops import linalg

    calls = []
    orig = linalg.AmpDense.impl
    linalg.AmpDense.impl = lambda *a, **k: calls.append(1) or orig(*a, **k)
    try:
        with lowp.reference_paths():
            ref = _grads(net_fn, dtype, order)
        assert not calls  # the reference paths never fuse
        fast = _grads(net_fn, dtype, order)
    finally:
        linalg.AmpDense.impl = orig
    return ref, fast, len(calls)


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_amp_dense_fuses_the_layers_and_gives_the_decompositions_gradients(dtype: str) -> None:
    ref, fast, calls = _both(lambda: _mlp((300, 512, 96, 10)), dtype)
    assert calls == 3 and fast == ref


@pytest.mark.parametrize("mode", ["shared", "write"])
def test_amp_dense_with_the_cast_weight_read_elsewhere_or_written(mode: str) -> None:
    ref, fast, calls = _both(lambda: _Shared(mode), "bf16")
    assert fast == ref
    assert calls == (2 if mode == "shared" else 1)  # a written cast is not the Parameter's any more


def test_amp_dense_is_not_used_under_a_second_order_gradient() -> None:
    ref, fast, calls = _both(lambda: _mlp((300, 64, 10)), "fp16", order=2)
    assert fast == ref and calls == 0


# ---------------------------------------------------------------------------------------------
# Nothing the fast paths keep outlives a write: float32 twins belong to 16-bit arrays Spore made
# (read-only, never a Parameter's), and AmpDense's link from a cast to its Parameter lives for one
# forward pass. Weights rewritten between steps by every route train exactly as with the reference.


def _rewritten_run(mode: int, dtype: str, tmp_path) -> dict[str, bytes]:
    ms.set_context(mode=mode)
    ms.set_seed(4)
    net = _mlp((300, 512, 96, 10))
    rng = np.random.default_rng(5)
    x = ms.Tensor(rng.standard_normal((48, 300)).astype(F32))
    y = ms.Tensor(rng.integers(0, 10, 48).astype(np.int32))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    cell = amp.build_train_network(net, opt, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                                   level="O2", cast_model_type=DTYPES[dtype][0], loss_scale_manager=None)
    w0, b0, w1 = net.trainable_params()[:3]
    out: dict[str, bytes] = {}
    ckpt = str(tmp_path / f"w{mode}{dtype}{lowp.fast_paths()}.ckpt")
    ms.save_checkpoint(net, ckpt)
    for step, rewrite in enumerate(["none", "set_data", "assign", "numpy", "load_checkpoint", "none"]):
        if rewrite == "set_data":
            w0.set_data(ms.Tensor(w0.asnumpy() * 0.5))
        elif rewrite == "assign":
            ops.assign(b0, ms.Tensor(np.full(b0.shape, 0.25, np.float32)))
        elif rewrite == "numpy":
            w1.asnumpy()[:7] = 1.0  # a raw write into the master weight's memory
        elif rewrite == "load_checkpoint":
            ms.load_param_into_net(net, ms.load_checkpoint(ckpt))
        out[f"loss{step}"] = _bits(cell(x, y).asnumpy())
    for name, p in opt.parameters_and_names():
        out[name] = _bits(p.asnumpy())
    return out


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_weights_rewritten_between_steps_train_as_with_the_reference_paths(dtype: str, mode: int, tmp_path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lowp, "_TWIN_MIN", 1024)
    with lowp.reference_paths():
        ref = _rewritten_run(mode, dtype, tmp_path)
    fast = _rewritten_run(mode, dtype, tmp_path)
    losses = [ref[f"loss{i}"] for i in range(6)]
    assert losses[4] == losses[0]  # the checkpoint brought the first step's weights back
    assert len(set(losses)) == 5  # every other rewrite changed the loss
    assert [k for k in ref if fast[k] != ref[k]] == []
