"""Fusions across forward and backward: the loss with its gradient, a ReLU gradient with its bias
gradient. The fused kernels must return what the separate ops return, in every case they accept."""

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore._kernels import bias_grad, dense_backward, dense_forward, relu_grad, relu_grad_bias
from spore.compiler.jit import jit

rng = np.random.default_rng(3)


def op_names(jf):
    return [e.prim.name for e in next(iter(jf.cache.values())).graph.eqns]


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(12, 16)
        self.fc2 = nn.Dense(16, 5)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def make_step(loss_fn):
    ms.set_seed(1)
    net = MLP()
    params = net.trainable_params()

    def forward(x, y):
        return loss_fn(net(x), y)

    return ms.value_and_grad(forward, None, params), params


@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.1}, {"reduction": "sum"}])
def test_loss_and_its_gradient_run_as_one_fused_call(kwargs):
    x = ms.Tensor(rng.standard_normal((8, 12)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 5, 8).astype(np.int32))
    ce = nn.CrossEntropyLoss(**kwargs)
    eager, _ = make_step(ce)
    loss_e, grads_e = eager(x, y)
    compiled = jit(make_step(ce)[0], fullgraph=True)
    loss_g, grads_g = compiled(x, y)
    names = op_names(compiled)
    assert "FusedSparseSoftmaxCE" in names
    assert not {"SparseSoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogitsGrad"} & set(names)
    np.testing.assert_allclose(loss_g.asnumpy(), loss_e.asnumpy(), rtol=1e-6)
    for a, b in zip(grads_g, grads_e):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)


def test_loss_fusion_waits_when_the_cotangent_comes_from_the_loss():
    ce = nn.CrossEntropyLoss()
    x = ms.Tensor(rng.standard_normal((8, 12)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 5, 8).astype(np.int32))

    def squared(logits, labels):
        loss = ce(logits, labels)
        return loss * loss  # d/dloss = 2 * loss: known only after the loss is computed

    eager, _ = make_step(squared)
    compiled = jit(make_step(squared)[0], fullgraph=True)
    (loss_e, grads_e), (loss_g, grads_g) = eager(x, y), compiled(x, y)
    names = op_names(compiled)
    assert "FusedSparseSoftmaxCE" not in names and "SparseSoftmaxCrossEntropyWithLogitsGrad" in names
    np.testing.assert_allclose(loss_g.asnumpy(), loss_e.asnumpy(), rtol=1e-6)
    for a, b in zip(grads_g, grads_e):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-7)


def test_bad_label_in_the_fused_loss_names_the_label():
    compiled = jit(make_step(nn.CrossEntropyLoss())[0], fullgraph=True)
    x = ms.Tensor(rng.standard_normal((4, 12)).astype(np.float32))
    with pytest.raises(ms.errors.ShapeError, match=r"label 7 at position \(2,\)"):
        compiled(x, ms.Tensor(np.array([0, 1, 7, 2], np.int32)))


def test_a_dense_layers_backward_runs_as_one_call():
    compiled = jit(make_step(nn.CrossEntropyLoss())[0], fullgraph=True)
    compiled(ms.Tensor(rng.standard_normal((8, 12)).astype(np.float32)),
             ms.Tensor(rng.integers(0, 5, 8).astype(np.int32)))
    graph = next(iter(compiled.cache.values())).graph
    backward = [e for e in graph.eqns if e.prim.name == "DenseBackward"]
    assert [(e.scope.rsplit(".", 1)[-1], e.attrs) for e in backward] == [
        ("fc2", {"has_w": True, "relu": False}),  # dx, dw, db of the head (no ReLU after it)
        ("fc1", {"has_w": False, "relu": True})]  # the first layer: no input gradient
    assert not {"MatMul", "ReluGrad", "SumTo", "FusedReluGradBias"} & {e.prim.name for e in graph.eqns}


@pytest.mark.parametrize("relu", [False, True])
@pytest.mark.parametrize("want_dx", [False, True])
def test_dense_backward_kernel_matches_numpy(relu, want_dx):
    g = rng.standard_normal((16, 7)).astype(np.float32)
    x = rng.standard_normal((16, 9)).astype(np.float32)
    w = rng.standard_normal((7, 9)).astype(np.float32)
    y = rng.standard_normal((16, 7)).astype(np.float32)
    dx, dw, db = dense_backward(g, x, w if want_dx else None, y if relu else None)
    r = (g * (y > 0)).astype(np.float64) if relu else g.astype(np.float64)
    np.testing.assert_allclose(dw, r.T @ x, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db, r.sum(axis=0), rtol=1e-5, atol=1e-5)
    if want_dx:
        np.testing.assert_allclose(dx, r @ w, rtol=1e-5, atol=1e-5)
    else:
        assert dx is None
    with pytest.raises(ValueError, match="w must be"):
        dense_backward(g, x, w.T.copy(), None)


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (64, 256), (33, 130)])
def test_relu_grad_bias_kernel_matches_numpy_bit_for_bit(shape):
    g = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    y[0, 0] = 0.0  # a zero output passes no gradient
    g[-1, -1] = np.inf  # inf * 0 is NaN where the mask is 0, as in the NumPy kernel
    y[-1, -1] = -1.0
    r, db = relu_grad_bias(g, y)
    with np.errstate(invalid="ignore"):
        want = np.multiply(g, y > 0, dtype=np.float32)
    np.testing.assert_array_equal(r, want)
    np.testing.assert_array_equal(db, want.sum(axis=0))
    np.testing.assert_array_equal(relu_grad(g, y), want)
    np.testing.assert_array_equal(bias_grad(g), g.sum(axis=0))


@pytest.mark.parametrize("m,k,n", [(64, 30, 10), (5, 8, 3), (64, 12, 40), (20, 7, 16)])
@pytest.mark.parametrize("relu", [False, True])
def test_dense_forward_kernel_matches_matmul_bias_relu(m, k, n, relu):
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    want = x.astype(np.float64) @ w.T.astype(np.float64) + b
    if relu:
        want = np.maximum(want, 0)
    np.testing.assert_allclose(dense_forward(x, w, b, False, True, relu), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dense_forward(x, w.T.copy(), b, False, False, relu), want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="one value per output column"):
        dense_forward(x, w, b[:-1], False, True, relu)


@pytest.mark.parametrize("case", ["plain", "weight", "ignore", "all_ignored", "smoothing", "spatial", "sum",
                                  "int64_labels", "float16"])
def test_fused_loss_kernel_matches_the_forward_and_gradient_ops(case):
    from spore.ops.loss_ops import SparseSoftmaxCrossEntropyWithLogits as Fwd
    from spore.ops.loss_ops import SparseSoftmaxCrossEntropyWithLogitsGrad as Bwd
    from spore.ops.loss_ops import sparse_softmax_ce_value_and_grad

    logits = rng.standard_normal((6, 5, 3) if case == "spatial" else (6, 5)).astype(
        np.float16 if case == "float16" else np.float32)
    labels = rng.integers(0, 5, logits.shape[:1] + logits.shape[2:]).astype(
        np.int64 if case == "int64_labels" else np.int32)
    kw = {"reduction": "sum" if case == "sum" else "mean", "ignore_index": -100, "label_smoothing": 0.0}
    weight = rng.uniform(0.5, 2, 5).astype(np.float32) if case == "weight" else None
    if case == "ignore":
        labels[1] = kw["ignore_index"] = 3
    if case == "all_ignored":
        labels[:] = -100
    if case == "smoothing":
        kw["label_smoothing"] = 0.2
    g = np.asarray(0.7, np.float32)
    extra = () if weight is None else (weight,)
    loss, d = sparse_softmax_ce_value_and_grad(g, logits, labels, weight, **kw)
    want_loss, want_d = Fwd.impl(logits, labels, *extra, **kw), Bwd.impl(g, logits, labels, *extra, **kw)
    assert loss.dtype == want_loss.dtype and d.dtype == want_d.dtype == logits.dtype
    np.testing.assert_allclose(loss, want_loss, rtol=1e-6)
    np.testing.assert_allclose(d, want_d, rtol=1e-6, atol=1e-7)
    if case == "all_ignored":
        assert np.isnan(loss) and not d.any()  # as PyTorch: NaN loss, no gradient from ignored rows
    labels[2] = 9
    with pytest.raises(ms.errors.ShapeError, match="label 9 at position"):
        sparse_softmax_ce_value_and_grad(g, logits, labels, weight, **kw)
