"""Hostile and broken ONNX files are refused with an OnnxError naming what is wrong: never a
crash, a hang, a huge allocation or a read outside the model's folder."""

import os
import subprocess
import sys

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from spore.errors import OnnxError, SporeError
from spore.onnx import load

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "mindspore-2.10")
CNN = os.path.join(FIXTURES, "cnn.onnx")


def _model(nodes, inits=(), opset=17, inputs=None, outputs=None):
    inputs = inputs if inputs is not None else [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])]
    outputs = outputs if outputs is not None else [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]
    g = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)] if opset else [])


def _raw(name, dims, raw=b""):
    """A float TensorProto with the given dims and stored bytes, consistent or not."""
    t = TensorProto()
    t.name, t.data_type = name, TensorProto.FLOAT
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def test_error_class_is_a_spore_error():
    assert issubclass(OnnxError, SporeError)


@pytest.mark.parametrize("cut", [0, 1, 10, 100, 1000, -1])
def test_truncated_files(cut, tmp_path):
    data = open(CNN, "rb").read()
    data = data[:cut] if cut >= 0 else data[:-7]
    with pytest.raises(OnnxError, match="empty|not an ONNX model|stores|malformed|nothing defines|no graph"):
        load(data)


def test_garbage_bytes_and_text():
    rng = np.random.default_rng(0)
    for _ in range(20):
        with pytest.raises(OnnxError):
            load(rng.integers(0, 256, int(rng.integers(1, 4000)), dtype=np.uint8).tobytes())
    with pytest.raises(OnnxError):
        load(b"this is not a model, it is a sentence\n" * 10)


def test_paths_that_are_no_model(tmp_path):
    with pytest.raises(OnnxError, match="no ONNX file"):
        load(str(tmp_path / "missing.onnx"))
    with pytest.raises(OnnxError, match="it is a folder"):
        load(str(tmp_path))
    with pytest.raises(OnnxError, match="takes a path or bytes"):
        load(12)


def _external_model(location, tmp_path, **info):
    w = numpy_helper.from_array(np.arange(2, dtype=np.float32), "w")
    w.ClearField("raw_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in {"location": location, **info}.items():
        e = w.external_data.add()
        e.key, e.value = k, str(v)
    path = tmp_path / "m.onnx"
    path.write_bytes(_model([helper.make_node("Add", ["x", "w"], ["y"])], [w]).SerializeToString())
    return str(path)


def test_external_data_inside_the_folder_loads(tmp_path):
    (tmp_path / "w.bin").write_bytes(np.array([5.0, 7.0], np.float32).tobytes())
    cell = load(_external_model("w.bin", tmp_path))
    import spore as ms

    np.testing.assert_array_equal(cell(ms.Tensor(np.ones(2, np.float32))).asnumpy(), [6.0, 8.0])


@pytest.mark.parametrize("location, match", [
    ("../../etc/passwd", "leads outside the model's folder"),
    ("sub/../../outside.bin", "leads outside the model's folder"),
    ("/etc/passwd", "is absolute"),
    ("C:\\\\windows\\\\x.bin", "is absolute"),
    ("", "is absolute"),
])
def test_external_data_escaping_the_folder_is_refused(location, match, tmp_path):
    (tmp_path.parent / "outside.bin").write_bytes(b"\0" * 8)
    with pytest.raises(OnnxError, match=match):
        load(_external_model(location, tmp_path))


def test_external_data_through_a_symlink_out_of_the_folder(tmp_path):
    outside = tmp_path.parent / "secret.bin"
    outside.write_bytes(b"\0" * 8)
    (tmp_path / "link.bin").symlink_to(outside)
    with pytest.raises(OnnxError, match="leads outside the model's folder"):
        load(_external_model("link.bin", tmp_path))


def test_external_data_outside_the_file_or_from_bytes(tmp_path):
    (tmp_path / "w.bin").write_bytes(b"\0" * 8)
    with pytest.raises(OnnxError, match="is outside"):
        load(_external_model("w.bin", tmp_path, offset=4, length=8))
    with pytest.raises(OnnxError, match="does not exist"):
        load(_external_model("nope.bin", tmp_path))
    path = _external_model("w.bin", tmp_path)
    with pytest.raises(OnnxError, match="given as bytes has no folder"):
        load(open(path, "rb").read())


def test_absurd_dims_are_refused_before_allocation():
    big = _raw("w", [1_000_000, 1_000_000])
    with pytest.raises(OnnxError, match="more than .* elements, refused before allocating"):
        load(_model([helper.make_node("Add", ["x", "w"], ["y"])], [big]).SerializeToString())
    const = helper.make_node("Constant", [], ["c"], value=_raw("v", [10 ** 12]))
    with pytest.raises(OnnxError, match="more than"):
        load(_model([const, helper.make_node("Add", ["x", "c"], ["y"])]).SerializeToString())
    neg = _raw("w", [-3])
    with pytest.raises(OnnxError, match="negative dim"):
        load(_model([helper.make_node("Add", ["x", "w"], ["y"])], [neg]).SerializeToString())


def test_absurd_shapes_computed_at_run_time_are_refused():
    import spore as ms

    shape = numpy_helper.from_array(np.array([10 ** 6, 10 ** 6], np.int64), "s")
    model = _model([helper.make_node("ConstantOfShape", ["s"], ["c"]), helper.make_node("Add", ["x", "c"], ["y"])],
                   [shape])
    cell = load(model.SerializeToString())
    with pytest.raises(OnnxError, match="more than"):
        cell(ms.Tensor(np.ones(2, np.float32)))


def test_stored_bytes_must_match_dims():
    short = _raw("w", [4], b"\0" * 8)
    with pytest.raises(OnnxError, match="stores 8 bytes"):
        load(_model([helper.make_node("Add", ["x", "w"], ["y"])], [short]).SerializeToString())


def test_graph_cycle_undefined_value_and_duplicates():
    cyc = [helper.make_node("Relu", ["b"], ["a"]), helper.make_node("Relu", ["a"], ["b"]),
           helper.make_node("Add", ["x", "a"], ["y"])]
    with pytest.raises(OnnxError, match="cycle"):
        load(_model(cyc).SerializeToString())
    with pytest.raises(OnnxError, match="reads 'ghost', which nothing defines"):
        load(_model([helper.make_node("Add", ["x", "ghost"], ["y"])]).SerializeToString())
    dup = [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Relu", ["x"], ["y"])]
    with pytest.raises(OnnxError, match="defined twice"):
        load(_model(dup).SerializeToString())


def test_out_of_order_nodes_are_sorted():
    import spore as ms

    nodes = [helper.make_node("Relu", ["a"], ["y"]), helper.make_node("Neg", ["x"], ["a"])]
    cell = load(_model(nodes).SerializeToString())
    np.testing.assert_array_equal(cell(ms.Tensor(np.array([1.0, -2.0], np.float32))).asnumpy(), [0.0, 2.0])


def test_unknown_domain_and_missing_opset_import():
    odd = helper.make_node("Relu", ["x"], ["y"], domain="com.example.evil")
    with pytest.raises(OnnxError, match="domain 'com.example.evil'"):
        load(_model([odd]).SerializeToString())
    with pytest.raises(OnnxError, match="no opset import for the default ONNX domain"):
        load(_model([helper.make_node("Relu", ["x"], ["y"])], opset=None).SerializeToString())
    with pytest.raises(OnnxError, match="opset 99 is outside"):
        load(_model([helper.make_node("Relu", ["x"], ["y"])], opset=99).SerializeToString())


def test_hostile_loop_trip_count_does_not_hang():
    import spore as ms

    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", TensorProto.FLOAT, [2])])
    inits = [numpy_helper.from_array(np.array(2 ** 62, np.int64), "m"), numpy_helper.from_array(np.array(True), "c")]
    cell = load(_model([helper.make_node("Loop", ["m", "c", "x"], ["y"], body=body)], inits).SerializeToString())
    with pytest.raises(OnnxError, match="iterations without stopping"):
        cell(ms.Tensor(np.ones(2, np.float32)))


FUZZ = r'''
import sys, numpy as np, onnx
import spore as ms
from spore.errors import SporeError
from spore.onnx import load, to_model
from tests.onnx.zoo import ZOO

rng = np.random.default_rng(int(sys.argv[1]))
ref = np.load(sys.argv[2] + "/ref.npz", allow_pickle=False)
seeds = {"cnn": (open(sys.argv[2] + "/cnn.onnx", "rb").read(), ref["x"])}
for name in ("mlp", "value_if", "value_while"):
    cls, shape = ZOO[name]
    ms.set_seed(1)
    net = cls(); net.set_train(False)
    x = np.ones(shape, np.float32)
    seeds[name] = (to_model(net, ms.Tensor(x)).SerializeToString(), x)

def mutate(data):
    kind = rng.integers(0, 4)
    b = bytearray(data)
    if kind == 0:                                  # bit flips
        for _ in range(int(rng.integers(1, 8))):
            i = int(rng.integers(0, len(b))); b[i] ^= 1 << int(rng.integers(0, 8))
        return bytes(b)
    if kind == 1:                                  # truncation
        return bytes(b[: int(rng.integers(0, len(b)))])
    m = onnx.ModelProto.FromString(data)           # field edits
    g = m.graph
    choice = rng.integers(0, 6)
    if choice == 0 and g.initializer:
        t = g.initializer[int(rng.integers(0, len(g.initializer)))]
        if t.dims:
            t.dims[int(rng.integers(0, len(t.dims)))] = int(rng.choice([0, -1, 7, 10 ** 12]))
    elif choice == 1 and g.node:
        g.node[int(rng.integers(0, len(g.node)))].op_type = str(rng.choice(["Conv", "Foo", "Loop", "If", "Relu"]))
    elif choice == 2 and g.node:
        n = g.node[int(rng.integers(0, len(g.node)))]
        if n.input:
            n.input[int(rng.integers(0, len(n.input)))] = str(rng.choice(["", "y", "x", "nope"]))
    elif choice == 3 and g.node:
        del g.node[int(rng.integers(0, len(g.node)))]
    elif choice == 4 and g.node:
        n = g.node[int(rng.integers(0, len(g.node)))]
        for a in n.attribute:
            if a.ints:
                a.ints[int(rng.integers(0, len(a.ints)))] = int(rng.choice([-5, 0, 99, 2 ** 40]))
            elif a.type == onnx.AttributeProto.INT:
                a.i = int(rng.choice([-5, 0, 99, 2 ** 40]))
    else:
        m.opset_import[0].version = int(rng.choice([0, 1, 9, 13, 40]))
    return m.SerializeToString()

counts = {"loaded_and_ran": 0, "refused": 0}
for k in range(int(sys.argv[3])):
    name = list(seeds)[k % len(seeds)]
    data, x = seeds[name]
    bad = mutate(data)
    try:
        cell = load(bad)
        out = cell(ms.Tensor(x))
        counts["loaded_and_ran"] += 1
    except SporeError:
        counts["refused"] += 1
    except Exception as err:
        print("UNEXPECTED", name, k, type(err).__name__, str(err)[:200])
        counts["unexpected"] = counts.get("unexpected", 0) + 1
print("FUZZ", counts)
'''


def test_fuzzed_fixture_models_give_an_error_or_a_load_never_a_crash():
    """Fixed-seed mutations of the fixture models, in a child process (a crash or a hang is caught there)."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", FUZZ, "7", FIXTURES, "400"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "UNEXPECTED" not in proc.stdout, proc.stdout[-3000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("FUZZ"))
    counts = eval(line[5:], {})  # noqa: S307 - our own child's dict literal
    print(line)
    assert counts["refused"] > 50 and counts["loaded_and_ran"] > 5
    assert sum(counts.values()) == 400
