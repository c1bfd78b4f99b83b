"""QDQ ONNX export of quantized models: onnx.checker, onnxruntime and spore.lite against the Cell."""

from __future__ import annotations

import os
import sys

import numpy as np
import onnx
import pytest

import spore as ms
from spore import lite, nn
from spore.errors import SporeError
from spore.quant import export_qdq, quantize_onnx, quantize_static

from .. import ort_oracle

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(scope="module")
def lenet():
    from examples.train_digits import LeNet, load_split  # type: ignore[import-not-found]

    from .training import train as _train

    ms.set_seed(0)
    x_tr, x_te, y_tr, y_te = load_split(0)
    net = _train(LeNet(), x_tr, y_tr, epochs=4)
    return net, quantize_static(net, x_tr[:256]), x_tr, x_te, y_te


def _ort(path: str, x: np.ndarray) -> np.ndarray:
    s = ort_oracle.session(path)
    return s.run(None, {s.get_inputs()[0].name: x})[0]


def _lite(path: str, x: np.ndarray) -> tuple[np.ndarray, lite.Model]:
    m = lite.Model()
    m.build_from_file(path, lite.ModelType.ONNX)
    return m.predict([x])[0].get_data_to_numpy(), m


def _step(q) -> float:
    fc3 = q.network.fc3  # one input code of the last (float-output) layer, through its largest weight row
    return fc3.x_scale * float(np.max(np.abs(fc3.w_q).astype(np.float64) * fc3.w_scale[:, None]))


def test_ms_export_qdq_runs_in_onnxruntime_and_lite(lenet, tmp_path) -> None:
    net, q, _, x_te, y_te = lenet
    x = x_te[:64]
    path = ms.export(q, ms.Tensor(x[:1]), file_name=str(tmp_path / "lenet_qdq"), file_format="ONNX",
                     dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    ops = [n.op_type for n in model.graph.node]
    assert ops.count("QuantizeLinear") == 9 and ops.count("Conv") == 2 and ops.count("Gemm") == 3
    assert ops.count("Relu") == 4  # the fused ones; LeNet's own ReLU after each (an identity there) is dropped
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    assert inits["conv1.weight_quantized"].dtype == np.int8 and inits["fc1.bias_quantized"].dtype == np.int32
    np.testing.assert_array_equal(inits["fc1.weight_quantized"], q.network.fc1.w_q)
    assert "fc1.weight" not in inits  # no float copy of a quantized weight
    cell = q(ms.Tensor(x)).asnumpy()
    got_ort = _ort(path, x)
    assert np.abs(got_ort - cell).max() <= _step(q), np.abs(got_ort - cell).max()
    got_lite, m = _lite(path, x)
    np.testing.assert_array_equal(got_lite, cell)  # same integer kernels, same epilogue: bit-identical
    assert sum(1 for n in m._graph.nodes if n.op.startswith("QLinear")) == 5
    # the float model's size vs the QDQ one
    fp = sonnx_size(net, x[:1], tmp_path)
    assert fp / os.path.getsize(path) > 2.5, (fp, os.path.getsize(path))


def sonnx_size(net, x, tmp_path) -> int:
    from spore.onnx import export

    return os.path.getsize(export(net, ms.Tensor(x), file_name=str(tmp_path / "fp")))


def test_quantize_onnx_float_model(lenet, tmp_path) -> None:
    from spore.onnx import export

    net, _, x_tr, x_te, y_te = lenet
    fp = export(net, ms.Tensor(x_te[:1]), file_name=str(tmp_path / "fp"), dynamic_axes={"x": {0: "batch"},
                                                                                            "y": {0: "batch"}})
    batches = [(x_tr[i:i + 64],) for i in range(0, 256, 64)]
    model = quantize_onnx(fp, batches)
    onnx.checker.check_model(model, full_check=True)
    out = str(tmp_path / "q.onnx")
    with open(out, "wb") as f:
        f.write(model.SerializeToString())
    a, b = _ort(out, x_te), _lite(out, x_te)[0]
    ref = net(ms.Tensor(x_te)).asnumpy()
    assert np.abs(a - b).max() < 1e-3 * np.abs(ref).max()  # onnxruntime and lite agree on the integers
    acc_fp, acc_q = np.mean(ref.argmax(1) == y_te), np.mean(a.argmax(1) == y_te)
    assert acc_fp - acc_q < 0.01, (acc_fp, acc_q)
    # the same calibration through the Cell path gives the same scales
    q = quantize_static(net, x_tr[:256], batch_size=64)
    inits = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    assert np.isclose(float(inits["fc1.Gemm.x_scale"]), q.network.fc1.x_scale, rtol=1e-5)
    skipped = quantize_onnx(fp, batches[:1], skip_quant_node=["fc3/Gemm"])
    ops = [n.op_type for n in skipped.graph.node]
    assert ops.count("Gemm") == 3 and ops.count("QuantizeLinear") == 8  # fc3 stays float (its input too)
    assert "fc3.weight" in {t.name for t in skipped.graph.initializer}
    with pytest.raises(SporeError, match="does not fit the model's input"):
        quantize_onnx(fp, [(np.zeros((2, 3, 8, 8), np.float32),)])
    with pytest.raises(SporeError, match="needs 1 input"):
        quantize_onnx(fp, [(x_tr[:2], x_tr[:2])])


def test_export_qdq_conv_bn_sequential(tmp_path) -> None:
    ms.set_seed(3)
    rng = np.random.default_rng(3)
    net = nn.SequentialCell([nn.Conv2d(3, 8, 3, stride=2, has_bias=True), nn.BatchNorm2d(8), nn.ReLU(),
                             nn.Flatten(), nn.Dense(8 * 5 * 5, 4)])
    net.set_train(False)
    x = rng.normal(size=(32, 3, 9, 9)).astype(np.float32)
    q = quantize_static(net, x)
    path = export_qdq(q, ms.Tensor(x[:4]), file_name=str(tmp_path / "seq"))
    cell = q(ms.Tensor(x[:4])).asnumpy()
    assert np.abs(_ort(path, x[:4]) - cell).max() < 1e-4 * max(1.0, np.abs(cell).max()) + 0.05
    np.testing.assert_array_equal(_lite(path, x[:4])[0], cell)
    assert "BatchNormalization" not in {n.op_type for n in onnx.load(path).graph.node}


def test_export_qdq_errors(lenet) -> None:
    net, q, _, x_te, _ = lenet
    with pytest.raises(SporeError, match="expected a QuantizedNet"):
        export_qdq(net, ms.Tensor(x_te[:1]), file_name="never")
    with pytest.raises(SporeError, match="opset >= 13"):
        export_qdq(q, ms.Tensor(x_te[:1]), file_name="never", opset_version=11)


def test_export_qdq_dense_on_3d_input(tmp_path) -> None:
    ms.set_seed(4)
    rng = np.random.default_rng(4)
    net = nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 4)])
    net.set_train(False)
    x = rng.normal(size=(16, 5, 8)).astype(np.float32)
    q = quantize_static(net, x)
    assert q.network[0].relu
    path = export_qdq(q, ms.Tensor(x[:2]), file_name=str(tmp_path / "d3"))  # Reshape -> Gemm -> Reshape
    cell = q(ms.Tensor(x[:2])).asnumpy()
    assert cell.shape == (2, 5, 4)
    np.testing.assert_allclose(_ort(path, x[:2]), cell, atol=1e-5)
    np.testing.assert_allclose(_lite(path, x[:2])[0], cell, atol=1e-5)
