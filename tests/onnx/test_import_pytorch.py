"""PyTorch-exported ONNX models (tests/fixtures/pytorch, written once by its generate.py with
torch 2.13) imported as Cells: they reproduce torch's outputs in both modes, keep torch's parameter
names, fine-tune, have finite-difference-correct gradients and export again to onnxruntime.

torch is not needed here: its outputs are the oracle stored in ref.npz; onnxruntime is the second
oracle for the re-export.
"""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

import spore as ms
from spore import nn, ops
from spore.errors import OnnxError
from spore.onnx import OnnxCell, load

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pytorch"
REF = np.load(FIXTURES / "ref.npz", allow_pickle=False)
NETS = ["cnn", "mlp", "lstm", "gru", "attention", "decoder"]
# <net> by the legacy TorchScript exporter, <net>_dynamo by torch.export's (both with a dynamic batch)
FILES = NETS + [f"{n}_dynamo" for n in NETS]


@pytest.fixture(autouse=True)
def _pynative():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _net_of(fname: str) -> str:
    return fname.removesuffix("_dynamo")


def _float_inits(fname: str) -> dict[str, np.ndarray]:
    """The file's float initializers, less Resize's scales (an argument, kept a constant)."""
    model = onnx.load(str(FIXTURES / f"{fname}.onnx"))  # onnx itself reads cnn_dynamo.onnx.data
    arrays = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    scales = {n.input[2] for n in model.graph.node if n.op_type == "Resize" and len(n.input) > 2}
    return {k: v for k, v in arrays.items() if v.dtype.kind == "f" and v.ndim > 0 and k not in scales}


def test_fixtures_are_what_the_generator_says():
    """The files really come from PyTorch's two exporters, at opset 17, and stay small."""
    assert str(REF["torch"]).startswith("2.13")
    ops_seen = set()
    for fname in FILES:
        model = onnx.load(str(FIXTURES / f"{fname}.onnx"))
        assert model.producer_name == "pytorch", fname
        opset = {o.domain: o.version for o in model.opset_import}.get("", 0)
        # torch.export's exporter writes opset 18 and converts down; its converter leaves the CNN
        # (ReduceMean, whose axes became an input in 18) at 18
        assert opset == (18 if fname == "cnn_dynamo" else 17), (fname, opset)
        ops_seen |= {n.op_type for n in model.graph.node}
    assert {"Conv", "BatchNormalization", "Relu", "MaxPool", "GlobalAveragePool", "Flatten", "Gemm", "LSTM",
            "GRU", "ConvTranspose", "InstanceNormalization", "Resize", "DepthToSpace",
            "MatMul", "Softmax", "LayerNormalization", "Erf"} <= ops_seen
    assert sum(f.stat().st_size for f in FIXTURES.iterdir()) < 200_000


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("fname", FILES)
def test_import_reproduces_torch(fname, mode):
    net = load(FIXTURES / f"{fname}.onnx")
    assert isinstance(net, OnnxCell)
    ms.set_context(mode=mode)
    name = _net_of(fname)
    got = net(ms.Tensor(REF[f"{name}|x"])).asnumpy()
    assert got.shape == REF[f"{name}|y"].shape
    np.testing.assert_allclose(got, REF[f"{name}|y"], rtol=0, atol=1e-5)
    if mode == ms.GRAPH_MODE:  # Graph mode really compiled the imported graph
        assert net.compiled_construct.cache
    # both exporters were given a dynamic batch axis: another batch size, same weights
    got2 = net(ms.Tensor(REF[f"{name}|x2"])).asnumpy()
    np.testing.assert_allclose(got2, REF[f"{name}|y2"], rtol=0, atol=1e-5)


@pytest.mark.parametrize("fname", FILES)
def test_initializers_are_parameters_named_from_the_onnx_names(fname):
    net = load(FIXTURES / f"{fname}.onnx")
    inits = _float_inits(fname)
    params = dict(net.parameters_and_names())
    assert set(params) == set(inits)
    for n, arr in inits.items():
        np.testing.assert_array_equal(params[n].asnumpy(), arr)
    trainable = {p.name for p in net.trainable_params()}
    stats = {n for n in inits if n.endswith(("running_mean", "running_var"))}
    assert trainable == set(inits) - stats  # BatchNorm statistics are Parameters, not trained
    if fname in NETS:  # the legacy exporter keeps torch's state_dict names
        want = {"cnn": "features.0.weight", "mlp": "bn.weight", "lstm": "lstm.weight_ih_l0",
                "gru": "gru.weight_hh_l0_reverse", "attention": "attn.in_proj_weight",
                "decoder": "up1.weight"}[fname]
        assert want in trainable


def _targets(y: np.ndarray) -> ms.Tensor:
    return ms.Tensor(np.random.default_rng(5).standard_normal(y.shape).astype(np.float32))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE], ids=["pynative", "graph"])
@pytest.mark.parametrize("fname", NETS + ["cnn_dynamo"])
def test_fine_tuning_lowers_the_loss(fname, mode):
    net = load(FIXTURES / f"{fname}.onnx")
    ms.set_context(mode=mode)
    name = _net_of(fname)
    x = ms.Tensor(REF[f"{name}|x"])
    target = _targets(REF[f"{name}|y"])
    stats_before = {p.name: p.asnumpy().copy() for p in net.get_parameters() if not p.requires_grad}
    weights_before = {p.name: p.asnumpy().copy() for p in net.trainable_params()}
    loss_fn = nn.MSELoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=0.01)
    grad_fn = ms.value_and_grad(lambda x, t: loss_fn(net(x), t), None, opt.parameters)
    losses = []
    for _ in range(6):
        loss, grads = grad_fn(x, target)
        opt(grads)
        losses.append(float(loss.asnumpy()))
    if mode == ms.GRAPH_MODE:
        assert net.compiled_construct.cache
    assert losses[-1] < losses[0] * 0.95, losses
    assert all(float(np.abs(g.asnumpy()).max()) > 0 for g in grads)  # every weight is reached
    for p in net.trainable_params():
        assert not np.array_equal(p.asnumpy(), weights_before[p.name]), p.name
    for p in net.get_parameters():
        if p.name in stats_before:
            np.testing.assert_array_equal(p.asnumpy(), stats_before[p.name])


# (file, parameter, flat indices) checked against central differences
FD_CASES = [("mlp", "bn.weight", [0, 7]), ("cnn", "features.0.weight", [0, 100]),
            ("lstm", "lstm.weight_hh_l0", [3, 77]), ("gru", "gru.weight_hh_l0_reverse", [2, 60]),
            ("attention", "attn.in_proj_weight", [5, 150]), ("decoder", "conv.weight", [0, 5])]


@pytest.mark.parametrize(("fname", "pname", "flat"), FD_CASES)
def test_gradients_match_finite_differences(fname, pname, flat):
    net = load(FIXTURES / f"{fname}.onnx")
    name = _net_of(fname)
    x = ms.Tensor(REF[f"{name}|x"])
    w = np.random.default_rng(7).standard_normal(REF[f"{name}|y"].shape).astype(np.float32)
    param = next(p for p in net.get_parameters() if p.name == pname)
    grads = ms.grad(lambda x: ops.reduce_sum(net(x) * ms.Tensor(w)), None, [param])(x)
    g = (grads[0] if isinstance(grads, tuple) else grads).asnumpy().reshape(-1)
    base = param.asnumpy().astype(np.float64)
    eps = 1e-2

    def loss_at(value: np.ndarray) -> float:
        param.set_data(ms.Tensor(value.astype(np.float32)))
        return float(np.sum(net(x).asnumpy().astype(np.float64) * w))

    for i in flat:
        plus, minus = base.copy().reshape(-1), base.copy().reshape(-1)
        plus[i] += eps
        minus[i] -= eps
        fd = (loss_at(plus.reshape(base.shape)) - loss_at(minus.reshape(base.shape))) / (2 * eps)
        np.testing.assert_allclose(g[i], fd, rtol=2e-2, atol=2e-3, err_msg=f"{pname}[{i}]")
    param.set_data(ms.Tensor(base.astype(np.float32)))
    assert np.abs(g).max() > 0


@pytest.mark.parametrize("fname", FILES)
def test_reexport_runs_in_onnxruntime(fname, tmp_path):
    net = load(FIXTURES / f"{fname}.onnx")
    name = _net_of(fname)
    x = REF[f"{name}|x"]
    path = ms.export(net, ms.Tensor(x), file_name=str(tmp_path / f"{fname}_again"), file_format="ONNX")
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    source = onnx.load(str(FIXTURES / f"{fname}.onnx"))
    bn_inputs = {i for n in source.graph.node if n.op_type == "BatchNormalization" for i in n.input}
    # the weights keep their names in the new file; BatchNorm's are folded into the Conv before it
    assert {t.name for t in model.graph.initializer} >= set(_float_inits(fname)) - bn_inputs
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.testing.assert_allclose(got, REF[f"{name}|y"], rtol=0, atol=1e-5)


def test_initializers_listed_as_graph_inputs_are_still_parameters():
    """Older PyTorch exports (keep_initializers_as_inputs=True, the rule before ONNX IR 4) list every
    weight among the graph inputs too: the Cell still takes only `x`, and the weights still train."""
    model = onnx.load(str(FIXTURES / "mlp.onnx"))
    for t in model.graph.initializer:
        model.graph.input.append(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    net = load(model.SerializeToString())
    assert net.input_names == ["x"]
    assert {p.name for p in net.trainable_params()} == {"fc1.weight", "fc1.bias", "bn.weight", "bn.bias",
                                                        "fc2.weight", "fc2.bias"}
    np.testing.assert_allclose(net(ms.Tensor(REF["mlp|x"])).asnumpy(), REF["mlp|y"], rtol=0, atol=1e-5)


def test_model_train_fine_tunes_an_imported_cnn_and_eval_measures_it():
    """MindSpore's high-level loop on a PyTorch model: Model.train on a labelled set made from the
    CNN's own input distribution, then Model.eval's accuracy beats the untouched import's."""
    import spore.dataset as ds
    from spore.train.model import Model

    rng = np.random.default_rng(11)
    images = rng.standard_normal((64, 3, 16, 16)).astype(np.float32)
    labels = (images[:, 0].mean(axis=(1, 2)) > 0).astype(np.int32)  # a learnable 2-of-5 class rule
    data = lambda: ds.NumpySlicesDataset({"x": images, "y": labels}, shuffle=False).batch(16)  # noqa: E731
    net = load(FIXTURES / "cnn.onnx")
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, nn.Adam(net.trainable_params(), learning_rate=0.01), metrics={"acc", "loss"})
    before = model.eval(data())
    model.train(25, data())
    after = model.eval(data())
    assert after["loss"] < before["loss"] * 0.8, (before, after)
    assert after["acc"] > before["acc"] and after["acc"] >= 0.75, (before, after)


def _rnn_model(op: str, lens: tuple = (3, 7), ndir: int = 1, **attrs) -> bytes:
    """A one-node LSTM/GRU graph (seq 3, batch 2, input 4, hidden 5) with a sequence_lens input."""
    from onnx import TensorProto, helper

    gates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    rng = np.random.default_rng(0)
    inits = [numpy_helper.from_array(rng.standard_normal((ndir, gates * 5, 4)).astype(np.float32) / 2, "W"),
             numpy_helper.from_array(rng.standard_normal((ndir, gates * 5, 5)).astype(np.float32) / 2, "R"),
             numpy_helper.from_array(rng.standard_normal((ndir, 2 * gates * 5)).astype(np.float32) / 2, "B"),
             numpy_helper.from_array(np.array(lens, np.int32), "lens")]
    outs = ["y", "y_h"] + (["y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, ["x", "W", "R", "B", "lens"], outs, hidden_size=5, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2, 4])],
                              [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
@pytest.mark.parametrize("op", ["LSTM", "GRU", "RNN"])
def test_recurrent_import_with_ragged_sequence_lens_matches_onnxruntime(op, direction):
    """Batch rows of lengths 3 and 1 (PyTorch's packed sequences export this way): the padding steps
    give zeros in Y and leave Y_h/Y_c at the last real step, as onnxruntime computes."""
    ndir = 2 if direction == "bidirectional" else 1
    extra = {"linear_before_reset": 1} if op == "GRU" else {}
    model = _rnn_model(op, lens=(3, 1), ndir=ndir, direction=direction, **extra)
    x = np.random.default_rng(4).standard_normal((3, 2, 4)).astype(np.float32)
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    want = sess.run(None, {"x": x})
    cell = load(model)
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        got = cell(ms.Tensor(x))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)
    assert np.all(want[0][1:, :, 1] == 0)  # the oracle really padded row 1


def test_recurrent_import_names_what_it_refuses():
    x = ms.Tensor(np.zeros((3, 2, 4), np.float32))
    with pytest.raises(OnnxError, match=r"LSTM: sequence_lens \[3, 7\] do not fit batch 2 and length 3"):
        load(_rnn_model("LSTM"))(x)
    with pytest.raises(OnnxError, match=r"GRU: activations \['HardSigmoid', 'Tanh'\] are not supported"):
        load(_rnn_model("GRU", activations=["HardSigmoid", "Tanh"]))(x)
    with pytest.raises(OnnxError, match=r"GRU: direction 'sideways'"):
        load(_rnn_model("GRU", direction="sideways"))(x)


@pytest.mark.parametrize("kw", [{"stride": 2, "pad_mode": "same"}, {"stride": 2, "pad_mode": "pad", "padding": 1},
                                {"stride": 3, "pad_mode": "valid", "dilation": 2}])
def test_spore_conv2d_transpose_exports_as_conv_transpose(kw):
    """The export mapping the decoder's round trip needs, on Spore's own nn.Conv2dTranspose."""
    from spore.onnx import to_model

    ms.set_seed(3)
    net = nn.Conv2dTranspose(3, 4, 3, has_bias=True, **kw)
    x = np.random.default_rng(0).standard_normal((2, 3, 5, 5)).astype(np.float32)
    model = to_model(net, ms.Tensor(x))
    assert "ConvTranspose" in {n.op_type for n in model.graph.node}
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {sess.get_inputs()[0].name: x})
    np.testing.assert_allclose(got, net(ms.Tensor(x)).asnumpy(), rtol=0, atol=1e-5)
