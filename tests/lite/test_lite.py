"""spore.lite: every zoo network exported to ONNX runs in lite equal to the full engine (1e-5) and
onnxruntime (1e-4); QDQ int8 models (onnxruntime.quantization) within one quantization step of
onnxruntime; no training stack in the lite process; the arena is shared; thread_num; refusals."""

import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

import spore as ms
from spore import lite
from spore.lite import _ops
from spore.onnx import export

from .. import ort_oracle
from ..onnx.test_export_zoo import _net
from ..onnx.zoo import ZOO

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _ort(path, x):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.log_severity_level = 3
    return ort_oracle.session(path, opts).run(None, {"x": x})[0]


def _export(name, folder):
    net, x = _net(name)
    path = export(net, ms.Tensor(x), file_name=os.path.join(folder, f"{name}.onnx"))
    return net, x, path


def _lite(path, thread_num=0):
    ctx = lite.Context()
    ctx.cpu.thread_num = thread_num
    model = lite.Model()
    model.build_from_file(path, lite.ModelType.ONNX, ctx)
    return model


@pytest.mark.parametrize("name", sorted(ZOO))
def test_zoo_in_lite_equals_engine_and_onnxruntime(name, tmp_path):
    net, x, path = _export(name, str(tmp_path))
    model = _lite(path)
    first = model.predict([x])[0].get_data_to_numpy()  # the shape-finding run
    planned = model.predict([x])[0].get_data_to_numpy()  # the arena run
    want = net(ms.Tensor(x)).asnumpy()
    assert planned.shape == want.shape
    np.testing.assert_allclose(first, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(planned, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(planned, _ort(path, x), rtol=1e-4, atol=1e-4)
    assert model.arena_stats["plans"] == 1


def test_control_flow_takes_both_branches_in_the_planned_run(tmp_path):
    net, x, path = _export("value_if", str(tmp_path))
    model = _lite(path)
    for sign in (1.0, -1.0, 1.0, -1.0):
        xs = (x * sign).astype(np.float32)
        np.testing.assert_allclose(model.predict([xs])[0].get_data_to_numpy(), net(ms.Tensor(xs)).asnumpy(),
                                   rtol=1e-5, atol=1e-5)


class _Calib(CalibrationDataReader):
    """Calibration batches for quantize_static: standard-normal inputs from fixed seeds."""

    def __init__(self, shape, n=8):
        self.batches = iter([{"x": np.random.default_rng(100 + i).standard_normal(shape).astype(np.float32)}
                             for i in range(n)])

    def get_next(self):
        return next(self.batches, None)


def _quantize(path, shape):
    qpath = path[:-5] + "_int8.onnx"
    quantize_static(path, qpath, _Calib(shape), quant_format=QuantFormat.QDQ)
    return qpath


def _output_step(qpath):
    """The scale of the QuantizeLinear feeding the model output: one quantization step."""
    g = onnx.load(qpath).graph
    inits = {i.name: onnx.numpy_helper.to_array(i) for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    n = producer[g.output[0].name]
    while n.op_type != "DequantizeLinear":
        n = producer[n.input[0]]
    return float(inits[n.input[1]])


@pytest.mark.parametrize("name", ["mlp", "lenet", "simplecnn", "encoder", "batchnorm_eval"])
def test_qdq_int8_within_one_quantization_step_of_onnxruntime(name, tmp_path):
    net, x, path = _export(name, str(tmp_path))
    qpath = _quantize(path, x.shape)
    model = _lite(qpath)
    assert model.int8_ops >= 1  # Conv/Gemm/MatMul ran through the int8 kernels
    got = model.predict([x])[0].get_data_to_numpy()
    got2 = model.predict([x])[0].get_data_to_numpy()
    want = _ort(qpath, x)
    step = _output_step(qpath)
    assert np.abs(got - want).max() <= step * 1.001
    np.testing.assert_array_equal(got, got2)
    # and int8 stays close to float (a handful of steps), so the int8 path computed the network
    assert np.abs(got - net(ms.Tensor(x)).asnumpy()).max() < 0.1 * np.abs(want).max() + 4 * step


def test_int8_gemm_kernel_equals_int32_accumulation():
    r = np.random.default_rng(0)
    xq = r.integers(-128, 128, (5, 300)).astype(np.int8)
    wq = r.integers(-127, 128, (7, 300)).astype(np.int8)
    zx, sx = 3, 0.02
    zw = np.zeros(7, np.int8)
    sw = r.uniform(0.001, 0.01, 7).astype(np.float32)
    bias = r.standard_normal(7).astype(np.float32)
    kern = _ops.make_qlinear("Gemm", {"transB": 1}, zx, sx, wq, zw, sw, bias)
    got = kern({}, [xq], None)[0]
    acc = (xq.astype(np.int64) - zx) @ wq.astype(np.int64).T  # an independent integer reference
    assert np.abs(acc).max() < 2 ** 31
    want = (acc * (np.float32(sx) * sw)).astype(np.float32) + bias
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # beyond float32's exact range the kernel switches to float64, still exact
    big = _ops.int_matmul_exact(np.full((1, 2000), 255.0, np.float32), np.full((2000, 1), 127.0, np.float32),
                                2000 * 255 * 127)
    assert int(big[0, 0]) == 2000 * 255 * 127


def test_lite_process_does_not_import_the_training_stack(tmp_path):
    _, x, path = _export("lenet", str(tmp_path))
    np.save(tmp_path / "x.npy", x)
    code = f"""
import sys, json, numpy as np
from spore import lite
m = lite.Model(); m.build_from_file({path!r}, lite.ModelType.ONNX)
y = m.predict([np.load({str(tmp_path / 'x.npy')!r})])[0].get_data_to_numpy()
heavy = sorted(k for k in sys.modules if k.split('.')[:2] in (
    ['spore', 'nn'], ['spore', 'autodiff'], ['spore', 'train'], ['spore', 'dataset'], ['spore', 'compiler'],
    ['spore', 'ops'], ['spore', 'tensor'], ['spore', 'parallel'], ['spore', 'amp'], ['spore', 'quant'],
    ['spore', 'onnx'], ['spore', 'common']))
print(json.dumps({{"heavy": heavy, "y": float(y.sum()), "lite": "spore.lite" in sys.modules,
                  "onnx": "onnx" in sys.modules}}))
"""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "engine"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["lite"] and res["heavy"] == []
    assert not res["onnx"]  # the schema alone, without onnx's helpers (ml_dtypes: ~0.6 s)
    assert abs(res["y"] - float(_lite(path).predict([x])[0].get_data_to_numpy().sum())) < 1e-4


def test_arena_is_shared_and_allocated_once(tmp_path):
    _, x, path = _export("lenet", str(tmp_path))
    model = _lite(path)
    model.predict([x])
    stats = model.arena_stats
    assert stats["arena_bytes"] < stats["intermediate_bytes"]  # buffers share bytes
    plan = next(iter(model._plans.values()))
    arena_id = id(plan.arena)
    for _ in range(3):
        model.predict([x])
    assert id(next(iter(model._plans.values())).arena) == arena_id and model.arena_stats["plans"] == 1
    assert all(np.shares_memory(v, plan.arena) for v in plan.output_views)
    # a new input shape gets its own plan (dynamic batch), the old one stays
    _, _, dpath = _export("mlp", str(tmp_path))
    net, xm = _net("mlp")
    dyn = export(net, ms.Tensor(xm), file_name=str(tmp_path / "mlp_dyn.onnx"), dynamic_axes={"x": {0: "batch"}})
    m2 = _lite(dyn)
    for b in (1, 32, 1):
        xb = np.random.default_rng(b).standard_normal((b, 20)).astype(np.float32)
        np.testing.assert_allclose(m2.predict([xb])[0].get_data_to_numpy(), net(ms.Tensor(xb)).asnumpy(),
                                   rtol=1e-5, atol=1e-5)
    assert m2.arena_stats["plans"] == 2


def test_resize_plans_the_new_shape(tmp_path):
    net, xm = _net("mlp")
    dyn = export(net, ms.Tensor(xm), file_name=str(tmp_path / "mlp_dyn.onnx"), dynamic_axes={"x": {0: "batch"}})
    model = _lite(dyn)
    inputs = model.get_inputs()
    assert inputs[0].name == "x" and inputs[0].shape[1] == 20
    model.resize(inputs, [[3, 20]])
    assert model.get_inputs()[0].shape == [3, 20] and model.arena_stats["plans"] == 1
    x = np.random.default_rng(4).standard_normal((3, 20)).astype(np.float32)
    inputs[0].set_data_from_numpy(x)
    np.testing.assert_allclose(model.predict(inputs)[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)
    assert model.arena_stats["plans"] == 1  # the resize plan served the predict


def test_thread_num_is_honoured(tmp_path):
    from spore import _kernels

    _, x, path = _export("simplecnn", str(tmp_path))
    outs = []
    for n in (1, 2, 1):
        model = _lite(path, thread_num=n)
        outs.append(model.predict([x])[0].get_data_to_numpy())
        assert _kernels.num_threads() == n
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(outs[0], outs[2])
    with pytest.raises(lite.LiteError, match="thread_num"):
        lite.Context().cpu.thread_num = -1


def test_checkpoint_and_network(tmp_path):
    net, x = _net("lenet")
    ckpt = str(tmp_path / "lenet.ckpt")
    ms.save_checkpoint(net, ckpt)
    cls, _ = ZOO["lenet"]
    model = lite.Model()
    model.build_from_checkpoint(ckpt, cls, ms.Tensor(x))  # a fresh net from the builder, weights from the file
    np.testing.assert_allclose(model.predict([x])[0].get_data_to_numpy(), net(ms.Tensor(x)).asnumpy(),
                               rtol=1e-5, atol=1e-5)


def test_bad_files_and_inputs_are_refused_clearly(tmp_path):
    model = lite.Model()
    with pytest.raises(lite.LiteError, match="does not exist"):
        model.build_from_file(str(tmp_path / "nope.onnx"), lite.ModelType.ONNX)
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07garbage\xff\xff\xff")
    with pytest.raises(lite.LiteError, match="not a valid ONNX"):
        model.build_from_file(str(bad), lite.ModelType.ONNX)
    _, x, path = _export("lenet", str(tmp_path))
    data = open(path, "rb").read()
    (tmp_path / "trunc.onnx").write_bytes(data[: len(data) // 3])
    with pytest.raises(lite.LiteError, match="not a valid ONNX"):
        model.build_from_file(str(tmp_path / "trunc.onnx"), lite.ModelType.ONNX)
    with pytest.raises(lite.LiteError, match="MINDIR.*ONNX"):
        model.build_from_file(path, lite.ModelType.MINDIR)
    with pytest.raises(lite.LiteError, match="not built"):
        model.predict([x])
    model.build_from_file(path, lite.ModelType.ONNX)
    with pytest.raises(lite.LiteError, match=r"1 input\(s\) \(x\), got 2"):
        model.predict([x, x])
    with pytest.raises(lite.LiteError, match=r"input 'x': expected shape \[4, 1, 8, 8\], got \[4, 1, 8, 9\]"):
        model.predict([np.zeros((4, 1, 8, 9), np.float32)])
    with pytest.raises(lite.LiteError, match="input 'x': expected dtype float32, got float64"):
        model.predict([x.astype(np.float64)])
    from onnx import TensorProto, helper

    vi = helper.make_tensor_value_info
    g = helper.make_graph([helper.make_node("Hardmax", ["x"], ["y"])], "g",
                          [vi("x", TensorProto.FLOAT, [2])], [vi("y", TensorProto.FLOAT, [2])])
    (tmp_path / "hm.onnx").write_bytes(helper.make_model(g).SerializeToString())
    with pytest.raises(lite.LiteError, match="no kernel for ONNX op.*Hardmax"):
        model.build_from_file(str(tmp_path / "hm.onnx"), lite.ModelType.ONNX)
    w = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 3, 3], [0.1] * 9)
    g = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], auto_pad="SAME_UPPER")], "g",
                          [vi("x", TensorProto.FLOAT, [1, 1, 4, 4])], [vi("y", TensorProto.FLOAT, [1, 1, 4, 4])], [w])
    (tmp_path / "same.onnx").write_bytes(helper.make_model(g).SerializeToString())
    with pytest.raises(ValueError, match="auto_pad=SAME_UPPER is not supported.*explicit pads"):
        same = lite.Model()
        same.build_from_file(str(tmp_path / "same.onnx"), lite.ModelType.ONNX)
        same.predict([np.zeros((1, 1, 4, 4), np.float32)])
