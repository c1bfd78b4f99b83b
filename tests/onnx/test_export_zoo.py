"""Export: every network of the Graph-mode zoo writes an ONNX model that passes onnx.checker
(full_check) and runs in onnxruntime within 1e-4 of Spore; names, scopes, source lines, dynamic
batch, opsets, refusals and atomic writes."""

import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import spore as ms
from spore import nn, ops
from spore.errors import OnnxError, SporeError
from spore.onnx import export, to_model

from .zoo import ZOO

MAX_ERR: dict[str, float] = {}


def _net(name):
    cls, shape = ZOO[name]
    ms.set_seed(1)
    net = cls()
    net.set_train(False)
    if name == "batchnorm_eval":  # statistics that are not the identity, so the Conv+BN fold is checked
        r = np.random.default_rng(3)
        for p in net.get_parameters():
            if "moving" in p.name or "gamma" in p.name or "beta" in p.name:
                p.set_data(ms.Tensor(r.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    return net, x


def _ort(model, feeds):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_exports_and_runs_in_onnxruntime(name):
    net, x = _net(name)
    model = to_model(net, ms.Tensor(x))
    onnx.checker.check_model(model, full_check=True)
    got = _ort(model, {"x": x})[0]
    want = net(ms.Tensor(x)).asnumpy()
    err = float(np.abs(got - want).max())
    MAX_ERR[name] = err
    assert got.shape == want.shape
    assert err <= 1e-4, f"{name}: max error {err}"


def test_control_flow_keeps_its_structure():
    ops_if = {n.op_type for n in to_model(*_args("value_if")).graph.node}
    ops_while = {n.op_type for n in to_model(*_args("value_while")).graph.node}
    assert "If" in ops_if and "Loop" in ops_while


def test_tensor_if_takes_both_branches_in_onnxruntime():
    net, x = _net("value_if")
    model = to_model(net, ms.Tensor(x))
    for sign in (1.0, -1.0):
        xs = (x * sign).astype(np.float32)
        got = _ort(model, {"x": xs})[0]
        np.testing.assert_allclose(got, net(ms.Tensor(xs)).asnumpy(), atol=1e-5)


def _args(name):
    net, x = _net(name)
    return net, ms.Tensor(x)


def test_fusions_are_exported_as_gemm_and_folded_conv():
    mlp = to_model(*_args("mlp"))
    assert [n.op_type for n in mlp.graph.node if n.op_type != "Identity"] == ["Gemm", "Relu", "Gemm", "Relu", "Gemm"]
    bn = to_model(*_args("batchnorm_eval"))
    assert [n.op_type for n in bn.graph.node if n.op_type != "Identity"] == ["Conv", "Relu"]
    assert {i.name for i in bn.graph.initializer} == {"conv.weight", "conv.bias"}


def test_parameters_are_initializers_with_spore_names_and_nodes_carry_scope_and_line():
    net, x = _args("lenet")
    model = to_model(net, x)
    names = {i.name for i in model.graph.initializer}
    assert {n for n, _ in net.parameters_and_names()} <= names
    conv = next(n for n in model.graph.node if n.op_type == "Conv")
    assert conv.name == "conv1/Conv"
    assert conv.doc_string.endswith("x = self.pool(self.relu(self.conv1(x)))")
    assert "test_zoo.py:38" in conv.doc_string
    assert any(n.name == "fc1/Gemm" for n in model.graph.node)


@pytest.mark.parametrize("name", ["mlp", "lenet", "simplecnn"])
def test_dynamic_batch_axis(name):
    net, x = _net(name)
    model = to_model(net, ms.Tensor(x), dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    big = np.concatenate([x, x[:1] * 0.5, x]).astype(np.float32)
    got = _ort(model, {"x": big})[0]
    np.testing.assert_allclose(got, net(ms.Tensor(big)).asnumpy(), atol=1e-4)


@pytest.mark.parametrize("opset", [13, 15, 18, 21])
def test_opsets_13_to_21(opset):
    net, x = _net("mlp")
    model = to_model(net, ms.Tensor(x), opset_version=opset)
    assert model.opset_import[0].version == opset
    np.testing.assert_allclose(_ort(model, {"x": x})[0], net(ms.Tensor(x)).asnumpy(), atol=1e-5)


def test_layernorm_needs_opset_17_and_says_so():
    net, x = _net("encoder")
    with pytest.raises(OnnxError, match=r"LayerNorm needs opset >= 17.*asked for 13"):
        to_model(net, ms.Tensor(x), opset_version=13)


@pytest.mark.parametrize("bad", [12, 22, "17"])
def test_opset_outside_13_21_is_refused(bad):
    net, x = _net("mlp")
    with pytest.raises(OnnxError, match="opset_version must be an int in 13..21"):
        to_model(net, ms.Tensor(x), opset_version=bad)


class Unmapped(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 3)

    def construct(self, x):
        return ops.erfc(self.fc(x))


def test_op_without_mapping_is_refused_naming_op_scope_and_line():
    with pytest.raises(OnnxError) as info:
        to_model(Unmapped(), ms.Tensor(np.ones((2, 3), np.float32)))
    msg = str(info.value)
    assert "Erfc has no ONNX mapping" in msg
    assert "Unmapped" in msg and "return ops.erfc(self.fc(x))" in msg
    assert info.value.op == "Erfc"
    assert isinstance(info.value, SporeError)


def test_ms_export_writes_atomically_and_refuses_mindir_and_air(tmp_path):
    net, x = _args("simplecnn")
    path = ms.export(net, x, file_name=str(tmp_path / "cnn"), file_format="ONNX")
    assert path.endswith("cnn.onnx") and os.path.isfile(path)
    assert sorted(os.listdir(tmp_path)) == ["cnn.onnx"]  # no temporary file left
    onnx.checker.check_model(onnx.load(path), full_check=True)
    for fmt in ("MINDIR", "AIR"):
        with pytest.raises(OnnxError, match=f'file_format="{fmt}".*MindSpore-only') as info:
            ms.export(net, x, file_name=str(tmp_path / "m"), file_format=fmt)
        assert 'file_format="ONNX"' in info.value.hint
    with pytest.raises(OnnxError, match="is no input or output"):
        export(net, x, file_name=str(tmp_path / "bad"), dynamic_axes={"nope": {0: "b"}})
    assert sorted(os.listdir(tmp_path)) == ["cnn.onnx"]


def test_ms_load_refuses_with_a_pointer_to_spore_onnx_load(tmp_path):
    with pytest.raises(OnnxError, match="MindIR") as info:
        ms.load(str(tmp_path / "x.onnx"))
    assert "spore.onnx.load" in info.value.hint


def test_zoo_max_errors_report():
    """Prints the zoo's max errors (for the README's table) once every net has run."""
    if MAX_ERR:
        print("zoo max errors:", {k: f"{v:.1e}" for k, v in sorted(MAX_ERR.items())})
    assert all(v <= 1e-4 for v in MAX_ERR.values())
