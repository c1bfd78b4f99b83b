"""Fusion passes: fused kernels compute exactly what the unfused ops compute."""

import numpy as np
import pytest

import spore as ms
from spore.compiler.jit import jit
from spore.compiler.passes.elementwise_fusion import broadcast_pattern
from spore.ops import functional as F

rng = np.random.default_rng(0)


def compiled_graph(g):
    return next(iter(g.cache.values())).graph


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("bias_shape", [(), (6,), (4, 1, 1), (2, 4, 5, 6)])
def test_elementwise_chain_fuses_and_matches(dtype, bias_shape):
    x = ms.Tensor(rng.standard_normal((2, 4, 5, 6)).astype(dtype))
    b = ms.Tensor(np.asarray(rng.standard_normal(bias_shape)).astype(dtype))

    def f(x, b):
        return F.relu(F.exp(F.neg(x * x)) * 2.0 + b) - 0.5

    g = jit(f, fullgraph=True)
    out = g(x, b).asnumpy()
    np.testing.assert_allclose(out, f(x, b).asnumpy(), rtol=1e-5, atol=1e-6)  # exp may differ by an ulp
    fused = [e for e in compiled_graph(g).eqns if e.prim.name == "FusedElementwise"]
    assert len(fused) == 1 and len(fused[0].fused) >= 5
    assert (fused[0].attrs["cpp"] is not None) == (dtype == np.float32), "float32 runs in the C++ kernel"


def test_intermediate_read_twice_is_not_swallowed():
    def f(x):
        y = F.exp(x)
        return y * 2.0, y + 1.0

    x = ms.Tensor(rng.standard_normal(5).astype(np.float32))
    g = jit(f, fullgraph=True)
    a, b = g(x)
    e1, e2 = f(x)
    np.testing.assert_allclose(a.asnumpy(), e1.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), e2.asnumpy(), rtol=1e-6)


def test_dense_bias_relu_fuses():
    w = ms.Parameter(ms.Tensor(rng.standard_normal((8, 3)).astype(np.float32)), name="w")
    bias = ms.Parameter(ms.Tensor(rng.standard_normal(3).astype(np.float32)), name="b")

    def f(x):
        return F.relu(F.add(F.matmul(x, w), bias))

    x = ms.Tensor(rng.standard_normal((4, 8)).astype(np.float32))
    g = jit(f, fullgraph=True)
    np.testing.assert_allclose(g(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)
    names = [e.prim.name for e in compiled_graph(g).eqns]
    assert names == ["FusedDense"]


def test_broadcast_patterns():
    assert broadcast_pattern((), (2, 3)) == (1, 1)
    assert broadcast_pattern((3,), (2, 3)) == (1, 3)
    assert broadcast_pattern((4, 1, 1), (2, 4, 5, 6)) == (30, 4)
    assert broadcast_pattern((2, 1, 6), (2, 4, 6)) is None
    assert broadcast_pattern((2, 3), (2, 3)) == (1, 6)


def test_cse_and_constant_folding():
    def f(x):
        a = F.exp(x) + F.exp(x)
        c = ms.Tensor(np.ones(3, np.float32)) * 3.0 + 1.0
        return a * c

    x = ms.Tensor(rng.standard_normal(3).astype(np.float32))
    g = jit(f, fullgraph=True)
    np.testing.assert_allclose(g(x).asnumpy(), f(x).asnumpy(), rtol=1e-6)
    raw = next(iter(g.cache.values())).raw
    opt = compiled_graph(g)
    assert sum(e.prim.name == "Exp" for e in raw.eqns) == 2
    names = [n for e in opt.eqns for n in (e.fused or [e.prim.name])]
    assert names.count("Exp") == 1, "CSE keeps one Exp"
    assert len(opt.eqns) < len(raw.eqns)


def test_dying_intermediate_is_reused_in_place_without_touching_inputs():
    w = ms.Tensor(rng.standard_normal((4, 4)).astype(np.float32))
    b2 = ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32))

    def f(x):
        y = F.matmul(x, w)
        z = y + b2                      # y dies here: its buffer can take z
        kept = ms.ops.stop_gradient(z)  # same array object under two names: must not be overwritten
        return z * 2.0 + kept, F.matmul(z, w) - 1.0

    x = ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32))
    x_before, b_before = x.asnumpy().copy(), b2.asnumpy().copy()
    g = jit(f, fullgraph=True)
    got = g(x)
    exe = next(iter(g.cache.values())).executable
    assert exe.inplace_ok, "at least one equation reuses its input's buffer"
    for a, e in zip(got, f(x)):
        np.testing.assert_allclose(a.asnumpy(), e.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(x.asnumpy(), x_before)
    np.testing.assert_array_equal(b2.asnumpy(), b_before)


def test_conv_batchnorm_relu_fuse_in_inference_and_follow_weight_updates():
    from spore import nn

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3, has_bias=True)
            self.bn = nn.BatchNorm2d(8)
            self.relu = nn.ReLU()

        def construct(self, x):
            return self.relu(self.bn(self.conv(x)))

    ms.set_seed(3)
    net = Block()
    net.bn.moving_mean.set_data(ms.Tensor(rng.standard_normal(8).astype(np.float32)))
    net.bn.moving_variance.set_data(ms.Tensor(rng.uniform(0.5, 2.0, 8).astype(np.float32)))
    net.set_train(False)
    x = ms.Tensor(rng.standard_normal((2, 3, 6, 6)).astype(np.float32))
    eager = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), eager, rtol=1e-5, atol=1e-5)
    graph = compiled_graph(net.compiled_construct)
    fused = [e for e in graph.eqns if e.prim.name == "FusedConvBN"]
    assert len(fused) == 1 and fused[0].fused == ["Conv2D", "BatchNorm", "ReLU"]
    net.conv.weight.set_data(ms.Tensor(net.conv.weight.asnumpy() * 0.5))  # folded at run time, not frozen
    compiled = net(x).asnumpy()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(compiled, net(x).asnumpy(), rtol=1e-5, atol=1e-5)


def test_training_batchnorm_is_not_folded():
    from spore import nn

    net = nn.SequentialCell(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    net.set_train(True)
    ms.set_context(mode=ms.GRAPH_MODE)
    net(ms.Tensor(rng.standard_normal((2, 3, 5, 5)).astype(np.float32)))
    names = [e.prim.name for e in compiled_graph(net.compiled_construct).eqns]
    assert "FusedConvBN" not in names and "BatchNorm" in names


def _cnn_step_pair():
    from spore import nn

    from ..nets import SimpleCNN

    ms.set_seed(11)
    net_a = SimpleCNN()
    ms.set_seed(11)
    net_b = SimpleCNN()
    make = lambda net: nn.TrainOneStepCell(  # noqa: E731
        nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
        nn.Adam(net.trainable_params(), learning_rate=0.01))
    return net_a, make(net_a), net_b, make(net_b)


def test_relu_runs_after_max_pooling_in_a_compiled_training_step():
    net_e, step_e, net_g, step_g = _cnn_step_pair()
    x = ms.Tensor(rng.standard_normal((4, 3, 32, 32)).astype(np.float32))
    y = ms.Tensor(rng.integers(0, 10, 4).astype(np.int32))
    step_e.set_train()
    step_g.set_train()
    eager = [float(step_e(x, y).asnumpy()) for _ in range(3)]
    ms.set_context(mode=ms.GRAPH_MODE)
    compiled = [float(step_g(x, y).asnumpy()) for _ in range(3)]
    np.testing.assert_allclose(compiled, eager, rtol=1e-5)
    for (n, a), (_, b) in zip(net_e.parameters_and_names(), net_g.parameters_and_names()):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-4, atol=1e-6, err_msg=n)
    names = [e.prim.name for e in compiled_graph(step_g.compiled_construct).eqns]
    assert names.count("FusedMaxPoolReLU") == 1, "pooling and its ReLU run as one call"
    assert not {"ReLU", "ReluGrad", "MaxPool"} & set(names), "and the ReLU's gradient mask disappears"
    assert names.count("MaxPoolGrad") == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_relu_then_max_pooling_gradients_match_pynative(dtype):
    def f(x):
        return F.reduce_sum(ms.ops.max_pool2d(F.relu(x), 2, 2) * w)

    x = rng.standard_normal((2, 3, 6, 6)).astype(dtype)
    x[0, 0, :2, :2] = -1.0  # a window the ReLU zeroes: no gradient reaches it
    x[1, 2, 2:4, 2:4] = 0.0
    w = ms.Tensor(rng.standard_normal((2, 3, 3, 3)).astype(dtype))
    vg = ms.value_and_grad(f)
    g = jit(vg, fullgraph=True)
    (val_g, dx_g), (val_e, dx_e) = g(ms.Tensor(x)), vg(ms.Tensor(x))
    np.testing.assert_allclose(val_g.asnumpy(), val_e.asnumpy(), rtol=1e-6)
    np.testing.assert_array_equal(dx_g.asnumpy(), dx_e.asnumpy())
    graph = compiled_graph(g)
    shapes = {e.prim.name: tuple(e.outputs[0].aval.shape) for e in graph.eqns}
    if dtype == np.float32:  # the C++ pooling applies the ReLU itself
        assert "FusedMaxPoolReLU" in shapes and "ReLU" not in shapes and "ReluGrad" not in shapes
    else:  # NumPy kernels: the ReLU and its mask run on the pooled (2, 3, 3, 3) tensor
        assert shapes["ReLU"] == shapes["ReluGrad"] == (2, 3, 3, 3)


def test_relu_before_pooling_stays_when_indices_are_read():
    def f(x):
        values, idx = ms.ops.max_pool2d(F.relu(x), 2, 2, return_indices=True)
        return values, idx

    x = ms.Tensor(-np.abs(rng.standard_normal((1, 2, 4, 4))).astype(np.float32))  # every window <= 0
    g = jit(f, fullgraph=True)
    for a, e in zip(g(x), f(x)):
        np.testing.assert_array_equal(a.asnumpy(), e.asnumpy())


def test_max_pool_kernel_relu_epilogue_marks_outputs_without_gradient():
    from spore._kernels import max_pool2d_forward

    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    x[0, 0, :2, :2] = -np.inf
    x[1, 1, 2:4, :2] = np.nan
    y, idx = max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (4, 4))
    yr, idxr = max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (4, 4), relu=True)
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(yr, np.maximum(y, 0))  # NaN stays NaN, as ReLU keeps it
        passes = y > 0
    np.testing.assert_array_equal(idxr, np.where(passes, idx, -1))
    assert idxr[0, 0, 0, 0] == -1 and idxr[1, 1, 1, 0] == -1 and np.isnan(yr[1, 1, 1, 0])
