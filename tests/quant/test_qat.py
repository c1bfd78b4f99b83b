"""Quantization-aware training (spore/quant/qat.py, bn_fold.py): BatchNorm folding against a NumPy
conv -> BN oracle, the folding QAT cell's batch statistics, moving statistics and freeze, the
rewrite of a network and its configuration errors (conversion: test_qat_convert.py)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import SporeError
from spore.quant.bn_fold import Conv2dBnFoldQuant, fold_bn, fold_conv_bn
from spore.quant.fake_quant import fake_quant_numpy
from spore.quant.qat import (
    Conv2dBnWithoutFoldQuant,
    Conv2dQuant,
    DenseQuant,
    QuantizationAwareTraining,
    SimulatedQuantizationAwareTraining,
    convert,
    create_quant_config,
)

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))


def t(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.float32))


def np_conv(x: np.ndarray, w: np.ndarray, b: np.ndarray | None, pad: int) -> np.ndarray:
    """Direct float64 cross-correlation (stride 1, group 1, symmetric zero padding)."""
    x = np.pad(np.asarray(x, np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    out = np.zeros((n, o, h - kh + 1, wd - kw + 1))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nchw,oc->nohw", x[:, :, i:i + out.shape[2], j:j + out.shape[3]], w[:, :, i, j])
    return out + (0 if b is None else np.asarray(b, np.float64)[None, :, None, None])


def _bn_params(r: np.random.Generator, c: int) -> dict[str, np.ndarray]:
    return {"gamma": r.uniform(0.5, 1.5, c), "beta": r.standard_normal(c) * 0.3,
            "mean": r.standard_normal(c) * 0.5, "var": r.uniform(0.3, 2.0, c)}


def _set_bn(bn: nn.BatchNorm2d, p: dict[str, np.ndarray]) -> None:
    bn.gamma.set_data(t(p["gamma"]))
    bn.beta.set_data(t(p["beta"]))
    bn.moving_mean.set_data(t(p["mean"]))
    bn.moving_variance.set_data(t(p["var"]))


# --- BatchNorm folding ----------------------------------------------------------------------------------
@pytest.mark.parametrize("has_bias", [False, True])
def test_folded_conv_equals_conv_then_batchnorm_in_eval(has_bias):
    r = np.random.default_rng(1 + has_bias)
    conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=has_bias)
    bn = nn.BatchNorm2d(4, eps=1e-3)
    p = _bn_params(r, 4)
    _set_bn(bn, p)
    x = r.standard_normal((2, 3, 6, 5)).astype(np.float32)
    w = conv.weight.asnumpy()
    b = conv.bias.asnumpy() if has_bias else None
    # the oracle: conv in float64, then the BN's eval formula
    ref = np_conv(x, w.astype(np.float64), b, 1)
    k = (p["gamma"] / np.sqrt(p["var"] + 1e-3))[None, :, None, None]
    ref = (ref - p["mean"][None, :, None, None]) * k + p["beta"][None, :, None, None]
    wf, bf = fold_bn(w, b, p["gamma"], p["beta"], p["mean"], p["var"], 1e-3)
    np.testing.assert_allclose(np_conv(x, wf.astype(np.float64), bf, 1), ref, rtol=1e-5, atol=1e-5)
    folded = fold_conv_bn(conv, bn)
    np.testing.assert_allclose(folded(t(x)).asnumpy(), ref, rtol=1e-5, atol=1e-5)
    seq = nn.SequentialCell([conv, bn])
    seq.set_train(False)
    np.testing.assert_allclose(folded(t(x)).asnumpy(), seq(t(x)).asnumpy(), rtol=1e-5, atol=1e-5)


def test_fold_refuses_mismatched_statistics():
    with pytest.raises(SporeError, match="fold_bn: gamma must have shape \\(4,\\)"):
        fold_bn(np.zeros((4, 1, 1, 1)), None, np.ones(3), np.zeros(4), np.zeros(4), np.ones(4), 1e-5)


def _fq(x, obs):
    return fake_quant_numpy(x, obs.minq.asnumpy(), obs.maxq.asnumpy(), obs.num_bits, obs.symmetric,
                            obs.narrow_range)


def _fq_weight(w):
    red = tuple(range(1, w.ndim))  # the default weight quantization: symmetric, narrow, per channel
    return fake_quant_numpy(w, np.minimum(w.min(red), 0), np.maximum(w.max(red), 0), 8, True, True, 0)


def test_bn_fold_quant_trains_with_batch_statistics_then_freezes():
    r = np.random.default_rng(3)
    ms.set_seed(3)
    conv = nn.Conv2d(2, 3, 3, pad_mode="pad", padding=1)
    bn = nn.BatchNorm2d(3, momentum=0.8)
    ref_bn = nn.BatchNorm2d(3, momentum=0.8)
    p = _bn_params(r, 3)
    _set_bn(bn, p)
    _set_bn(ref_bn, p)
    cell = Conv2dBnFoldQuant.from_float(conv, bn, create_quant_config(), relu=False, freeze_bn=1)
    cell.set_train(True)
    ref_bn.set_train(True)
    x = r.standard_normal((4, 2, 5, 5)).astype(np.float32)
    y_float = conv(t(x))
    want = ref_bn(y_float).asnumpy()  # the float conv -> BN in training (batch statistics)
    got = cell(t(x)).asnumpy()
    scale = (cell._output_quantizer.maxq.asnumpy() - cell._output_quantizer.minq.asnumpy())[0] / 255
    # step 1 folds the batch statistics: the output is batch-normalised up to the quantization error
    assert np.abs(got - want).max() < 6 * scale, (np.abs(got - want).max(), scale)
    np.testing.assert_allclose(cell.moving_mean.asnumpy(), ref_bn.moving_mean.asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cell.moving_variance.asnumpy(), ref_bn.moving_variance.asnumpy(), rtol=1e-5)
    # step 2 is past freeze_bn=1: it folds the moving statistics (the ones after this step's update)
    x2 = r.standard_normal((4, 2, 5, 5)).astype(np.float32)
    got2 = cell(t(x2)).asnumpy()
    w_f, b_f = fold_bn(conv.weight.asnumpy(), None, p["gamma"], p["beta"],
                       cell.moving_mean.asnumpy(), cell.moving_variance.asnumpy(), bn.eps)
    xq = _fq(x2, cell._input_quantizer)
    want2 = _fq(np_conv(xq, _fq_weight(w_f).astype(np.float64), b_f, 1), cell._output_quantizer)
    np.testing.assert_allclose(got2, want2, atol=2 * scale + 1e-5)
    assert np.mean(np.abs(got2 - want2) < 1e-4) > 0.97
    # eval: the same running fold, and the ranges are frozen
    cell.set_train(False)
    lo = cell._output_quantizer.minq.asnumpy().copy()
    got3 = cell(t(x2)).asnumpy()
    np.testing.assert_array_equal(cell._output_quantizer.minq.asnumpy(), lo)
    want3 = _fq(np_conv(xq, _fq_weight(w_f).astype(np.float64), b_f, 1), cell._output_quantizer)
    assert np.mean(np.abs(got3 - want3) < 1e-4) > 0.97


# --- the rewrite -----------------------------------------------------------------------------------------
def _seq_net() -> nn.SequentialCell:
    return nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                              nn.MaxPool2d(2, 2), nn.Conv2d(4, 8, 3, pad_mode="pad", padding=1), nn.ReLU(),
                              nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(32, 10)])


def test_quantize_rewrites_conv_bn_relu_and_dense_and_keeps_parameter_names():
    net = _seq_net()
    names = [n for n, _ in net.parameters_and_names() if n.endswith(("weight", "bias"))]
    w0 = net[0].weight
    net = QuantizationAwareTraining(freeze_bn=50).quantize(net)
    kinds = [type(c).__name__ for c in net]
    assert kinds == ["Conv2dBnFoldQuant", "Identity", "Identity", "MaxPool2d", "Conv2dQuant", "Identity",
                     "MaxPool2d", "Flatten", "DenseQuant"]
    assert net[0].relu and net[4].relu and not net[8].relu and net[0].freeze_bn == 50
    assert net[0].weight is w0  # the float Parameters themselves
    assert net[4].fake_quant_weight.per_channel and net[4].fake_quant_weight.symmetric
    assert not net[4]._output_quantizer.symmetric and net[4]._output_quantizer.ema
    after = [n for n, _ in net.parameters_and_names() if n.endswith(("weight", "bias"))]
    assert after == names  # a float checkpoint's conv/dense entries still load by name
    assert {"0.gamma", "0.beta", "0.moving_mean", "0.moving_variance"} <= {n for n, _ in net.parameters_and_names()}
    unfolded = QuantizationAwareTraining(bn_fold=False).quantize(_seq_net())
    assert isinstance(unfolded[0], Conv2dBnWithoutFoldQuant) and unfolded[0].relu
    gs = SimulatedQuantizationAwareTraining({"per_channel": (False, True), "bn_fold": True}).apply(_seq_net())
    assert isinstance(gs[0], Conv2dBnFoldQuant) and gs[4].fake_quant_weight.per_channel


def test_quantize_rewrites_cell_attributes_and_combined_layers():
    from examples.train_digits import LeNet  # type: ignore[import-not-found]

    net = QuantizationAwareTraining().quantize(LeNet())
    assert [type(getattr(net, n)).__name__ for n in ("conv1", "conv2", "fc1", "fc2", "fc3")] == \
        ["Conv2dQuant", "Conv2dQuant", "DenseQuant", "DenseQuant", "DenseQuant"]
    combo = QuantizationAwareTraining().quantize(nn.Conv2dBnAct(1, 2, 3, has_bn=True, activation="relu"))
    assert isinstance(combo, Conv2dBnFoldQuant) and combo.relu


class _ConvBnNet(nn.Cell):
    """Conv -> BN -> ReLU called in construct (no SequentialCell): only a trace shows the chain."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 3, 3, pad_mode="pad", padding=1)
        self.bn = nn.BatchNorm2d(3)
        self.act = nn.ReLU()
        self.flat = nn.Flatten()
        self.fc = nn.Dense(3 * 4 * 4, 2)

    def construct(self, x):
        return self.fc(self.flat(self.act(self.bn(self.conv(x)))))


class _ResidualRelu(nn.Cell):
    """The conv's output is read by the ReLU cell and, functionally, by the addition."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1)
        self.act = nn.ReLU()

    def construct(self, x):
        y = self.conv(x)
        return self.act(y) + y


def test_traced_fusion_keeps_a_value_that_is_also_read_functionally():
    ms.set_seed(11)
    x = np.random.default_rng(11).standard_normal((3, 1, 5, 5)).astype(np.float32)
    net = _ResidualRelu()
    net.set_train(False)
    want = net(t(x)).asnumpy()
    net = QuantizationAwareTraining().quantize(net, x)
    assert isinstance(net.conv, Conv2dQuant) and not net.conv.relu  # fusing would drop y's negative part
    net.set_train(True)
    net(t(x))
    net.set_train(False)
    assert np.abs(net(t(x)).asnumpy() - want).max() < 0.05 * np.abs(want).max()


def test_quantize_with_example_inputs_fuses_chains_of_any_construct():
    r = np.random.default_rng(6)
    ms.set_seed(6)
    x = r.standard_normal((4, 1, 4, 4)).astype(np.float32)
    plain = QuantizationAwareTraining().quantize(_ConvBnNet())
    assert isinstance(plain.conv, Conv2dQuant) and isinstance(plain.bn, nn.BatchNorm2d) and not plain.conv.relu
    net = _ConvBnNet()
    _set_bn(net.bn, _bn_params(r, 3))
    net.set_train(False)
    want = net(t(x)).asnumpy()
    net = QuantizationAwareTraining().quantize(net, x)
    assert isinstance(net.conv, Conv2dBnFoldQuant) and net.conv.relu and isinstance(net.bn, nn.Identity)
    assert isinstance(net.fc, DenseQuant) and not net.fc.relu
    net.set_train(True)
    net(t(x))  # one step sets the activation ranges (the fold uses the moving statistics in eval)
    net.set_train(False)
    got = net(t(x)).asnumpy()
    assert np.abs(got - want).max() < 0.05 * np.abs(want).max() + 0.05, (got, want)
    with pytest.raises(SporeError, match="does not run on the example inputs"):
        QuantizationAwareTraining().quantize(_ConvBnNet(), np.zeros((1, 2, 4, 4), np.float32))


class _ListNet(nn.Cell):
    """Layers held in a CellList and run by a loop in construct."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 3)])

    def construct(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def test_quantize_and_convert_reach_cells_in_a_cell_list():
    ms.set_seed(10)
    net = QuantizationAwareTraining().quantize(_ListNet())
    assert [type(c).__name__ for c in net.layers] == ["DenseQuant", "DenseQuant"]  # what the loop runs
    x = t(np.random.default_rng(10).standard_normal((6, 4)))
    net.set_train(True)
    net(x)
    net.set_train(False)
    want = net(x).asnumpy()
    oq = net.layers[1]._output_quantizer
    step = float(oq.maxq.asnumpy()[0] - oq.minq.asnumpy()[0]) / 255
    q = convert(net)
    assert [type(c).__name__ for c in q.network.layers] == ["QuantDense", "QuantDense"]
    assert np.abs(q(x).asnumpy() - want).max() <= 2 * step + 1e-6  # two layers, each within a step of its own


def test_bad_configurations_are_refused():
    with pytest.raises(SporeError, match="per_channel activations are not supported"):
        QuantizationAwareTraining(per_channel=(True, True))
    with pytest.raises(SporeError, match="quant_dtype must be QuantDtype"):
        QuantizationAwareTraining(quant_dtype=("INT3", "INT8"))
    with pytest.raises(SporeError, match="freeze_bn must be an int"):
        QuantizationAwareTraining(freeze_bn=-1)
    with pytest.raises(SporeError, match="no Conv2d or Dense"):
        QuantizationAwareTraining().quantize(nn.SequentialCell([nn.ReLU()]))


def test_compiled_qat_training_steps_match_pynative():
    """Four SGD steps of a QAT conv-BN-ReLU net (crossing freeze_bn=2) compiled with ms.jit in
    STRICT mode give PyNative's losses and the same parameters, observer ranges and moving statistics."""
    r = np.random.default_rng(0)
    xs = [r.standard_normal((8, 1, 8, 8)).astype(np.float32) for _ in range(4)]
    ys = [r.integers(0, 10, 8).astype(np.int32) for _ in range(4)]
    results = {}
    ms.set_context(jit_syntax_level=ms.STRICT)
    try:
        for mode in ("pynative", "graph"):
            ms.set_seed(5)
            net = nn.SequentialCell([nn.Conv2d(1, 4, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                     nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(64, 10)])
            net = QuantizationAwareTraining(freeze_bn=2).quantize(net)
            net.set_train(True)
            loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
            opt = nn.SGD(net.trainable_params(), learning_rate=0.1)

            def forward(a, b, net=net, loss_fn=loss_fn):
                return loss_fn(net(a), b)

            vg = ms.value_and_grad(forward, None, opt.parameters)

            def step(a, b, vg=vg, opt=opt):
                loss, grads = vg(a, b)
                opt(grads)
                return loss

            run = ms.jit(step) if mode == "graph" else step
            losses = [float(run(t(x), ms.Tensor(y)).asnumpy()) for x, y in zip(xs, ys)]
            results[mode] = losses, {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}
    finally:
        ms.set_context(jit_syntax_level=ms.LAX)
    np.testing.assert_allclose(results["graph"][0], results["pynative"][0], rtol=1e-5)
    assert results["pynative"][0][3] != results["pynative"][0][0]
    for name, v in results["pynative"][1].items():
        np.testing.assert_allclose(results["graph"][1][name], v, rtol=1e-5, atol=1e-6, err_msg=name)
    assert results["pynative"][1]["0.step"][0] == 4  # the fold cell counted the four training steps


def test_eval_qat_network_exports_to_onnx_and_onnxruntime_reproduces_it(tmp_path):
    """FakeQuant's ONNX mapping is its nudge-and-round as float ONNX ops: a QAT net in eval (frozen
    activation ranges as initializers, weight ranges computed in the graph, the BN fold) exports,
    passes onnx.checker, and onnxruntime and spore.lite give the QAT net's outputs."""
    import onnx
    import onnxruntime as ort

    ms.set_seed(9)
    x = np.random.default_rng(9).standard_normal((16, 1, 8, 8)).astype(np.float32)
    net = nn.SequentialCell([nn.Conv2d(1, 8, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(128, 10)])
    net = QuantizationAwareTraining(symmetric=(True, True)).quantize(net)
    net.set_train(True)
    net(t(x))
    net.set_train(False)
    ref = net(t(x)).asnumpy()
    path = ms.export(net, t(x), file_name=str(tmp_path / "qat_float"), file_format="ONNX")
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert "Floor" in {n.op_type for n in model.graph.node}
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = sess.run(None, {sess.get_inputs()[0].name: x})[0]
    np.testing.assert_allclose(got, ref, atol=1e-6)
    assert np.mean(got == ref) > 0.99
    import spore.lite as mslite

    lite = mslite.Model()
    lite.build_from_file(path, mslite.ModelType.ONNX)
    np.testing.assert_allclose(lite.predict([x])[0].get_data_to_numpy(), ref, atol=1e-6)  # spore.lite too


def test_golden_stick_setters_configure_the_rewrite():
    algo = SimulatedQuantizationAwareTraining()
    algo.set_bn_fold(True)
    algo.set_freeze_bn(7)
    algo.set_act_quant_delay(3)
    algo.set_weight_per_channel(False)
    algo.set_act_symmetric(True)
    net = algo.apply(_seq_net())
    assert isinstance(net[0], Conv2dBnFoldQuant) and net[0].freeze_bn == 7
    assert net[0]._input_quantizer.quant_delay == 3 and net[0].fake_quant_weight.quant_delay == 0
    assert not net[0].fake_quant_weight.per_channel and net[0]._output_quantizer.symmetric
    with pytest.raises(SporeError, match="per_channel activations are not supported"):
        algo.set_act_per_channel(True)
    assert not algo.apply(_seq_net())[4]._input_quantizer.per_channel  # a refused setting is not kept
    with pytest.raises(SporeError, match="quant_delay must be ints >= 0"):
        algo.set_weight_quant_delay(-2)


def test_qat_cells_refuse_what_they_cannot_fold_or_quantize():
    cfg = create_quant_config()
    with pytest.raises(SporeError, match=r"BatchNorm2d\(4\) does not follow Conv2d\(out_channels=3\)"):
        Conv2dBnFoldQuant.from_float(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(4), cfg)
    with pytest.raises(SporeError, match="only NCHW layers fold"):
        Conv2dBnFoldQuant.from_float(nn.Conv2d(1, 3, 3, data_format="NHWC"), nn.BatchNorm2d(3), cfg)
    with pytest.raises(SporeError, match="freeze_bn must be an int >= 0"):
        Conv2dBnFoldQuant.from_float(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), cfg, freeze_bn=-1)
    with pytest.raises(SporeError, match="expected nn.Conv2d and nn.BatchNorm2d"):
        fold_conv_bn(nn.Dense(2, 2), nn.BatchNorm2d(2))
    with pytest.raises(SporeError, match=r"Dense\(activation=...\) is not supported"):
        DenseQuant.from_float(nn.Dense(2, 2, activation="relu"), cfg)
    with pytest.raises(SporeError, match=r"DenseQuant: expected an input of shape \(..., 2\)"):
        DenseQuant.from_float(nn.Dense(2, 2), cfg)(t(np.zeros((1, 3))))
    with pytest.raises(SporeError, match=r"Conv2dBnFoldQuant: expected an \(N, 1, H, W\) input"):
        Conv2dBnFoldQuant.from_float(nn.Conv2d(1, 3, 3), nn.BatchNorm2d(3), cfg)(t(np.zeros((1, 2, 5, 5))))
    from spore.quant import FakeQuantWithMinMaxObserver

    with pytest.raises(SporeError, match="ema_decay must be in"):
        FakeQuantWithMinMaxObserver(ema_decay=1.5)
    with pytest.raises(SporeError, match="num_channels must be a positive int"):
        FakeQuantWithMinMaxObserver(per_channel=True, num_channels=0)
