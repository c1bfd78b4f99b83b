"""`spore.ide.layer_output` / `op_output` / `method_output` (what the language server's shape check asks)
agree with real eager execution: same output shapes and dtypes for each layer and op, and a refusal exactly
where eager execution refuses. Symbolic dims come back as their symbol; unknown dims never make an error."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import ide, nn, ops

LAYERS = [
    ("Conv2d", [3, 8, 3], {}, [(2, 3, 17, 17)]),
    ("Conv2d", [3, 8, 3], {"pad_mode": "valid"}, [(2, 3, 17, 17)]),
    ("Conv2d", [3, 8, 3], {"pad_mode": "pad", "padding": 2, "stride": 2}, [(2, 3, 17, 17)]),
    ("Conv2d", [3, 8, 3], {"pad_mode": "pad", "padding": (1, 2, 0, 3), "dilation": 2}, [(2, 3, 17, 15)]),
    ("Conv2d", [4, 8, 3], {"group": 2, "stride": (2, 1)}, [(2, 4, 9, 9)]),
    ("Conv1d", [3, 6, 5], {"pad_mode": "valid"}, [(2, 3, 20)]),
    ("MaxPool2d", [], {"kernel_size": 2, "stride": 2}, [(2, 3, 17, 16)]),
    ("MaxPool2d", [3], {"stride": 1, "pad_mode": "same"}, [(2, 3, 9, 9)]),
    ("AvgPool2d", [], {"kernel_size": 3, "stride": 2}, [(2, 3, 16, 16)]),
    ("Dense", [12, 5], {}, [(7, 12)]),
    ("Dense", [12, 5], {"has_bias": False}, [(2, 3, 12)]),
    ("Flatten", [], {}, [(2, 3, 4, 5)]),
    ("BatchNorm2d", [6], {}, [(2, 6, 4, 4)]),
    ("LayerNorm", [(8,)], {}, [(2, 5, 8)]),
    ("Embedding", [50, 16], {}, [((3, 7), "int32")]),
    ("ReLU", [], {}, [(3, 4)]),
    ("GELU", [], {}, [(3, 4)]),
    ("Softmax", [], {}, [(3, 4)]),
    ("Dropout", [], {"p": 0.5}, [(3, 4)]),
    ("LSTM", [10, 20], {"batch_first": True}, [(4, 6, 10)]),
]


def _spec(s):
    return s if isinstance(s[0], tuple) else (s, "float32")


def _eager(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _eager(o)]
    return [(tuple(out.shape), out.dtype.name)]


@pytest.mark.parametrize("name, args, kwargs, inputs", LAYERS, ids=lambda v: str(v)[:30])
def test_layer_shapes_match_eager_execution(name, args, kwargs, inputs):
    specs = [_spec(s) for s in inputs]
    got = ide.layer_output(name, args, kwargs, [ide.Abstract(s, dt) for s, dt in specs])
    assert got["status"] == "ok", got
    layer = getattr(nn, name)(*args, **kwargs)
    layer.set_train(False)
    real = [ms.Tensor(np.ones(s, np.dtype(dt))) for s, dt in specs]
    assert [(tuple(s), dt) for s, dt in got["outputs"]] == _eager(layer(*real))


OPS = [
    ("reshape", [(2, 3, 4)], [(6, -1)], {}),
    ("flatten", [(2, 3, 4)], [], {}),
    ("concat", None, [], {}),
    ("matmul", [(2, 3), (3, 5)], [], {}),
    ("transpose", [(2, 3, 4)], [(2, 0, 1)], {}),
    ("relu", [(2, 3)], [], {}),
    ("softmax", [(2, 3)], [], {"axis": -1}),
    ("mean", [(2, 3, 4)], [1], {"keep_dims": True}),
]


@pytest.mark.parametrize("name, inputs, extra, kwargs", OPS, ids=lambda v: str(v)[:20])
def test_op_shapes_match_eager_execution(name, inputs, extra, kwargs):
    if name == "concat":  # a list of tensors and an axis
        got = ide.op_output("concat", [[ide.Abstract((2, 3)), ide.Abstract((2, 5))], 1])
        real = ops.concat([ops.ones((2, 3)), ops.ones((2, 5))], 1)
    else:
        got = ide.op_output(name, [ide.Abstract(s) for s in inputs] + extra, kwargs)
        real = getattr(ops, name)(*[ops.ones(s, ms.float32) for s in inputs], *extra, **kwargs)
    assert got["status"] == "ok", got
    assert [(tuple(s), dt) for s, dt in got["outputs"]] == _eager(real)


@pytest.mark.parametrize("name, shape, args", [("reshape", (4, 6), [-1, 3]), ("transpose", (2, 3, 4), [0, 2, 1]),
                                               ("__getitem__", (4, 6), [(slice(None), 0)]),
                                               ("__add__", (4, 6), [1.0]), ("sum", (4, 6), [1])])
def test_tensor_methods_match_eager_execution(name, shape, args):
    got = ide.method_output(name, ide.Abstract(shape), args)
    real = getattr(ms.Tensor(np.ones(shape, np.float32)), name)(*args)
    assert got["status"] == "ok" and [(tuple(s), d) for s, d in got["outputs"]] == _eager(real)


def test_a_refusal_is_the_engines_own_error():
    got = ide.layer_output("Dense", [2048, 10], {}, [ide.Abstract((4, 4096))])
    assert got["status"] == "error" and got["type"] == "ShapeError" and got["op"] == "Dense"
    with pytest.raises(ide.ShapeError) as err:
        nn.Dense(2048, 10)(ops.ones((4, 4096), ms.float32))
    assert err.value.reason == got["reason"]


def test_symbolic_dims_come_back_as_symbols_and_unknown_dims_never_make_an_error():
    b = ide.Sym("B")
    got = ide.layer_output("Conv2d", [3, 8, 3], {"pad_mode": "pad", "padding": 1, "stride": 2},
                           [ide.Abstract((b, 3, 32, 32))])
    assert got["outputs"] == [((b, 8, 16, 16), "float32")]
    assert ide.op_output("reshape", [ide.Abstract((b, 4, 4)), (b, -1)])["outputs"] == [((b, 16), "float32")]
    flat = ide.op_output("reshape", [ide.Abstract((b, 4)), (-1,)])
    assert flat["outputs"] == [((None,), "float32")], "B*4 is neither a number nor B"
    assert ide.layer_output("Dense", [3, 2], {}, [ide.Abstract((b, 4))])["status"] == "error"
    assert ide.layer_output("Dense", [3, 2], {}, [ide.Abstract((2, None))])["status"] == "unknown"


def test_what_cannot_be_answered_statically_is_unknown():
    assert ide.op_output("unique", [ide.Abstract((8,), "int32")])["status"] == "unknown"  # data-dependent
    assert ide.layer_output("Dense", [10 ** 5, 10 ** 5], {}, [ide.Abstract((2, 10 ** 5))])["status"] == "unknown"
    assert ide.layer_output("NoSuchLayer", [], {}, [])["status"] == "unknown"
    assert ide.op_output("_private", [])["status"] == "unknown"


def test_tensor_properties_match_eager_execution():
    for name, shape in (("T", (2, 3, 4)), ("mT", (2, 3, 4))):
        got = ide.method_output(name, ide.Abstract(shape), None)
        real = getattr(ms.Tensor(np.ones(shape, np.float32)), name)
        assert got["status"] == "ok" and [(tuple(s), d) for s, d in got["outputs"]] == _eager(real)
    assert ide.method_output("shape", ide.Abstract((2, 3)), None)["status"] == "unknown"  # not a tensor
    assert ide.method_output("reshape", ide.Abstract((2, 3)), None)["status"] == "unknown"  # a method, not called
