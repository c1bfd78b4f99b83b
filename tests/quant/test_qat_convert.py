"""QAT fine-tuning then conversion to int8 (spore/quant/qat.py `convert`): the digits LeNet and a
small BatchNorm CNN lose less than 1 point of accuracy at int8, each int8 layer is within one
quantization step of its QAT layer on the same input, and the converted net's QDQ ONNX export runs
in onnxruntime with the same results."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import SporeError
from spore.quant import load_quantized_model, save_quantized_model
from spore.quant.bn_fold import Conv2dBnFoldQuant
from spore.quant.qat import (
    Conv2dQuant,
    DenseQuant,
    QuantizationAwareTraining,
    convert,
    convert_cell,
    create_quant_config,
)

from .. import ort_oracle
from ..nets import SimpleCNN
from .training import accuracy, blobs, train

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))


def t(a) -> ms.Tensor:
    return ms.Tensor(np.asarray(a, np.float32))


# --- QAT fine-tuning and conversion ------------------------------------------------------------------------
def _qat_then_convert(net: nn.Cell, qat: QuantizationAwareTraining, epochs: int, seed: int, traced: bool = False):
    from examples.train_digits import accuracy, load_split  # type: ignore[import-not-found]

    x_tr, x_te, y_tr, y_te = load_split(0)
    train(net, x_tr, y_tr, epochs, 0.003, seed)
    acc_float = accuracy(net, x_te, y_te)
    net = qat.quantize(net, x_tr[:4]) if traced else qat.quantize(net)
    train(net, x_tr, y_tr, 1, 0.0005, seed + 1)  # a short QAT fine-tune
    acc_qat = accuracy(net, x_te, y_te)
    layer_io = _layer_io(net, x_te[:64])
    qat_logits = net(ms.Tensor(x_te)).asnumpy()
    qnet = convert(net)
    acc_int8 = accuracy(qnet, x_te, y_te)
    return qnet, layer_io, qat_logits, (acc_float, acc_qat, acc_int8), x_te


def _layer_io(net: nn.Cell, x: np.ndarray) -> dict:
    """Each QAT cell's (input, eval output, output step) on `x`, recorded with forward hooks."""
    rec = {}
    handles = []
    for path, cell in net.cells_and_names():
        if isinstance(cell, (Conv2dQuant, DenseQuant, Conv2dBnFoldQuant)):
            def hook(c, inputs, output, path=path):
                s = (c._output_quantizer.maxq.asnumpy() - c._output_quantizer.minq.asnumpy())[0] / 255
                rec[path] = (inputs[0].asnumpy(), output.asnumpy(), s, c)
            handles.append(cell.register_forward_hook(hook))
    net(ms.Tensor(x))
    for h in handles:
        h.remove()
    return rec


def _check_int8_against_qat(qnet, layer_io, qat_logits, x_te) -> None:
    cells = dict(qnet.network.cells_and_names())
    for path, (inp, out, step, _) in layer_io.items():
        got = cells[path](ms.Tensor(inp)).asnumpy()
        # the int8 layer on the QAT layer's own input: within one output quantization step
        assert np.abs(got - out).max() <= step * 1.01, (path, np.abs(got - out).max(), step)
        assert np.mean(np.abs(got - out) < step / 2) > 0.98, path  # nearly all on the same grid point
    logits = qnet(ms.Tensor(x_te)).asnumpy()
    assert np.mean(logits.argmax(1) == qat_logits.argmax(1)) > 0.98


@pytest.mark.parametrize("traced", [False, True])
def test_qat_lenet_digits_converts_to_int8_within_one_point(traced):
    """LeNet's construct calls its ReLU separately: traced, each ReLU is fused into its layer."""
    ms.set_seed(0)
    from examples.train_digits import LeNet  # type: ignore[import-not-found]

    qnet, layer_io, qat_logits, (acc_f, acc_qat, acc_q), x_te = _qat_then_convert(
        LeNet(), QuantizationAwareTraining(), epochs=6, seed=0, traced=traced)
    assert acc_f > 0.9, acc_f
    assert acc_f - acc_q < 0.01, (acc_f, acc_qat, acc_q)
    assert abs(acc_qat - acc_q) < 0.01, (acc_qat, acc_q)
    _check_int8_against_qat(qnet, layer_io, qat_logits, x_te)
    assert type(qnet.network.conv1).__name__ == "QuantConv2d"
    assert qnet.network.conv1.relu is traced and qnet.network.fc2.relu is traced and not qnet.network.fc3.relu
    if traced:
        assert qnet.network.conv1.y_zp == 0  # a ReLU-fused output's range starts at 0


def test_qat_bn_cnn_folds_converts_and_exports_qdq_onnx(tmp_path):
    ms.set_seed(1)

    def bn_cnn() -> nn.SequentialCell:
        return nn.SequentialCell([nn.Conv2d(1, 8, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                                  nn.MaxPool2d(2, 2), nn.Conv2d(8, 16, 3, pad_mode="pad", padding=1),
                                  nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(), nn.Dense(64, 10)])

    net = bn_cnn()
    qnet, layer_io, qat_logits, (acc_f, acc_qat, acc_q), x_te = _qat_then_convert(
        net, QuantizationAwareTraining(freeze_bn=30), epochs=4, seed=1)
    assert acc_f > 0.9, acc_f
    assert acc_f - acc_q < 0.01, (acc_f, acc_qat, acc_q)
    assert [type(c).__name__ for c in qnet.network][:5] == ["QuantConv2d", "Identity", "Identity", "MaxPool2d",
                                                           "QuantConv2d"]
    _check_int8_against_qat(qnet, layer_io, qat_logits, x_te)
    assert qnet.folded == ["1", "5"] and qnet.layers["0"]["bn"] == "1"
    # saved as PTQ's int8 file, it loads into a fresh float network of the same structure
    saved = save_quantized_model(qnet, str(tmp_path / "qat_cnn_int8"))
    loaded = load_quantized_model(bn_cnn(), saved)
    np.testing.assert_array_equal(loaded(ms.Tensor(x_te[:50])).asnumpy(), qnet(ms.Tensor(x_te[:50])).asnumpy())
    path = ms.export(qnet, ms.Tensor(x_te[:200]), file_name=str(tmp_path / "qat_cnn"), file_format="ONNX")
    import onnx

    ops_used = {n.op_type for n in onnx.load(path).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear", "Conv", "Gemm"} <= ops_used, ops_used
    sess = ort_oracle.session(path)
    got = sess.run(None, {sess.get_inputs()[0].name: x_te[:200]})[0]
    ref = qnet(ms.Tensor(x_te[:200])).asnumpy()
    step = layer_io[max(layer_io)][2]
    assert np.mean(got.argmax(1) == ref.argmax(1)) > 0.99
    assert np.abs(got - ref).max() <= 2 * step + 1e-6, (np.abs(got - ref).max(), step)


def test_convert_refuses_what_the_int8_kernels_cannot_run():
    with pytest.raises(SporeError, match="no QAT cell"):
        convert(nn.SequentialCell([nn.Dense(2, 2)]))
    asym = QuantizationAwareTraining(symmetric=(False, False)).quantize(nn.SequentialCell([nn.Dense(3, 2)]))
    with pytest.raises(SporeError, match="asymmetric weight fake quantization"):
        convert(asym)
    four = QuantizationAwareTraining(quant_dtype=("INT8", "INT4")).quantize(nn.SequentialCell([nn.Dense(3, 2)]))
    with pytest.raises(SporeError, match="quantizes activations to 4 bits; only 8 converts"):
        convert(four)


def test_convert_cell_uses_the_learned_scales():
    ms.set_seed(4)
    cell = DenseQuant.from_float(nn.Dense(6, 3), create_quant_config())
    cell.set_train(True)
    x = np.random.default_rng(4).standard_normal((16, 6)).astype(np.float32)
    cell(t(x))
    q = convert_cell(cell)
    s_in, z_in = cell._input_quantizer.qparams("uint8")
    assert q.x_scale == pytest.approx(float(s_in[0])) and q.x_zp == int(z_in[0])
    assert cell._input_quantizer.qparams("int8")[1][0] == z_in[0] - 128  # the same grid, signed
    w = cell.weight.asnumpy()
    np.testing.assert_allclose(q.w_scale, np.abs(w).max(1) / 127, rtol=1e-5)  # symmetric narrow, per channel


def test_qat_quickstart_cnn_converts_to_int8_within_one_point(tmp_path):
    """The quickstart notebook's SimpleCNN on the PTQ tests' 3x32x32 blobs: float, QAT fine-tune, int8
    (and its int8 file about 4x smaller than the float checkpoint)."""

    ms.set_seed(1)
    x_tr, y_tr = blobs(800, 1)
    x_te, y_te = blobs(1000, 2)
    net = SimpleCNN()
    train(net, x_tr, y_tr, 3, 0.002, 1)
    acc_f = accuracy(net, x_te, y_te)
    assert 0.6 < acc_f < 1.0, acc_f
    ckpt = str(tmp_path / "float.ckpt")
    ms.save_checkpoint(net, ckpt)
    net = QuantizationAwareTraining().quantize(net, x_tr[:4])
    train(net, x_tr, y_tr, 1, 0.0003, 2)
    acc_qat = accuracy(net, x_te, y_te)
    qnet = convert(net)
    acc_q = accuracy(qnet, x_te, y_te)
    assert acc_f - acc_q < 0.01, (acc_f, acc_qat, acc_q)
    assert abs(acc_qat - acc_q) < 0.01, (acc_qat, acc_q)
    assert qnet.network.conv1.relu and qnet.network.fc.y_scale is not None
    ratio = os.path.getsize(ckpt) / os.path.getsize(save_quantized_model(qnet, str(tmp_path / "int8")))
    assert ratio > 3.8, ratio  # 41k weights: int8 plus int32 biases and float32 scales


def test_convert_from_a_qat_checkpoint_and_without_bn_fold(tmp_path):
    """golden-stick's convert(net_opt, ckpt_path): a QAT checkpoint (observer ranges included) loaded
    into a freshly rewritten network converts to the same int8 network; bn_fold=False trains a real
    BatchNorm after the fake-quantized conv and converts with the BN folded exactly."""
    from examples.train_digits import load_split  # type: ignore[import-not-found]

    x_tr, x_te, y_tr, y_te = load_split(0)

    def make() -> nn.SequentialCell:
        return nn.SequentialCell([nn.Conv2d(1, 6, 3, pad_mode="pad", padding=1), nn.BatchNorm2d(6), nn.ReLU(),
                                  nn.MaxPool2d(4, 4), nn.Flatten(), nn.Dense(24, 10)])

    ms.set_seed(7)
    net = make()
    train(net, x_tr, y_tr, 3, 0.003, 7)
    acc_f = accuracy(net, x_te, y_te)
    qat = QuantizationAwareTraining(bn_fold=False)
    net = qat.quantize(net)
    assert type(net[0]).__name__ == "Conv2dBnWithoutFoldQuant"
    train(net, x_tr, y_tr, 1, 0.0005, 8)
    ckpt = str(tmp_path / "qat.ckpt")
    ms.save_checkpoint(net, ckpt)
    direct = qat.convert(net)
    again = QuantizationAwareTraining(bn_fold=False).convert(QuantizationAwareTraining(bn_fold=False).quantize(make()),
                                                              ckpt_path=ckpt)
    x = ms.Tensor(x_te)
    np.testing.assert_array_equal(again(x).asnumpy(), direct(x).asnumpy())
    assert acc_f - accuracy(direct, x_te, y_te) < 0.01, (acc_f, accuracy(direct, x_te, y_te))
    with pytest.raises(SporeError, match="lacks parameters of the QAT network"):
        other = QuantizationAwareTraining().quantize(nn.SequentialCell([nn.Dense(3, 2)]))
        ms.save_checkpoint(nn.SequentialCell([nn.Dense(3, 2)]), str(tmp_path / "float.ckpt"))
        QuantizationAwareTraining().convert(other, ckpt_path=str(tmp_path / "float.ckpt"))


def test_act_quant_is_the_activation_then_fake_quant():
    from spore.quant import ActQuant
    from spore.quant.fake_quant import fake_quant_numpy

    cell = ActQuant(nn.ReLU(), ema=True, fake_before=True)
    cell.set_train(True)
    x = np.random.default_rng(8).standard_normal((5, 7)).astype(np.float32)
    out = cell(t(x)).asnumpy()
    before, after = cell.fake_quant_act_before, cell.fake_quant_act
    xq = fake_quant_numpy(x, before.minq.asnumpy(), before.maxq.asnumpy())
    np.testing.assert_allclose(out, fake_quant_numpy(np.maximum(xq, 0), after.minq.asnumpy(), after.maxq.asnumpy()),
                               atol=1e-6)
    np.testing.assert_allclose(after.minq.asnumpy(), [0.001 * -6.0], rtol=1e-5)  # EMA of the ReLU output min 0
    assert (out >= 0).all()


def test_per_layer_weights_convert_with_one_scale():
    ms.set_seed(12)
    cell = Conv2dQuant.from_float(nn.Conv2d(2, 4, 3, has_bias=True), create_quant_config(per_channel=(False, False)))
    x = t(np.random.default_rng(12).standard_normal((3, 2, 6, 6)))
    cell.set_train(True)
    cell(x)
    cell.set_train(False)
    want = cell(x).asnumpy()
    q = convert_cell(cell)
    w = cell.weight.asnumpy()
    np.testing.assert_allclose(q.w_scale, np.full(4, np.abs(w).max() / 127), rtol=1e-5)
    oq = cell._output_quantizer
    step = float(oq.maxq.asnumpy()[0] - oq.minq.asnumpy()[0]) / 255
    got = q(x).asnumpy()
    assert np.abs(got - want).max() <= step * 1.01 and np.mean(np.abs(got - want) < step / 2) > 0.98


def test_int4_weights_convert_exactly_onto_the_int8_kernels():
    """4-bit symmetric narrow weights: the int8 layer holds integers in -7..7 and computes what the
    QAT layer computes (within one output step)."""
    ms.set_seed(13)
    cfg = create_quant_config(quant_dtype=("INT4", "INT8"))
    cell = DenseQuant.from_float(nn.Dense(8, 5), cfg, relu=True)
    x = t(np.random.default_rng(13).standard_normal((20, 8)))
    cell.set_train(True)
    cell(x)
    cell.set_train(False)
    want = cell(x).asnumpy()
    q = convert_cell(cell)
    assert np.abs(q.w_q).max() == 7 and len(np.unique(q.w_q)) <= 15
    np.testing.assert_allclose(q.w_scale, np.abs(cell.weight.asnumpy()).max(1) / 7, rtol=1e-5)
    oq = cell._output_quantizer
    step = float(oq.maxq.asnumpy()[0] - oq.minq.asnumpy()[0]) / 255
    got = q(x).asnumpy()
    # the int32 bias has scale x_scale * w_scale, 18x coarser with 4-bit weights: its rounding moves
    # a few more outputs across a grid boundary than at 8 bits (never by more than one step)
    assert np.abs(got - want).max() <= step * 1.01 and np.mean(np.abs(got - want) < step / 2) > 0.9
    w4 = np.unique(np.round(cell.weight.asnumpy() / q.w_scale[:, None]))  # QAT's own 4-bit grid
    assert w4.min() >= -7.5 and w4.max() <= 7.5
