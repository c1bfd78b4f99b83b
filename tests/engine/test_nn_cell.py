"""nn.Cell and the containers: registration, parameter naming, listing, modes, hooks, to_float, repr."""

from collections import OrderedDict

import numpy as np
import pytest

import spore as ms
import spore.nn as nn
from spore import Parameter, Tensor


def t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype=dtype))


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.scale = Parameter(t(np.ones(3)))

    def construct(self, x):
        return self.fc(x) * self.scale


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.layers = nn.SequentialCell([nn.Dense(3, 5), nn.ReLU(), nn.Dense(5, 2)])

    def construct(self, x):
        return self.layers(self.block(x))


# --- registration and naming -------------------------------------------------------------------
def test_parameters_are_named_by_their_path_when_cells_are_attached():
    net = Net()
    names = [p.name for p in net.get_parameters()]
    assert names == ["block.scale", "block.fc.weight", "block.fc.bias",
                     "layers.0.weight", "layers.0.bias", "layers.2.weight", "layers.2.bias"]
    assert [n for n, _ in net.parameters_and_names()] == names
    assert list(net.parameters_dict()) == names


def test_nesting_a_network_prefixes_all_of_its_names():
    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.backbone = Net()

        def construct(self, x):
            return self.backbone(x)

    outer = Outer()
    assert outer.backbone.block.fc.weight.name == "backbone.block.fc.weight"
    assert outer.backbone.layers[2].bias.name == "backbone.layers.2.bias"


def test_a_standalone_layer_has_bare_parameter_names():
    d = nn.Dense(2, 3)
    assert [p.name for p in d.trainable_params()] == ["weight", "bias"]


def test_parameter_with_default_name_takes_its_attribute_name_and_a_named_one_keeps_it():
    class C(nn.Cell):
        def __init__(self):
            super().__init__()
            self.alpha = Parameter(t([1.0]))
            self.beta = Parameter(t([2.0]), name="my_beta")

    c = C()
    assert c.alpha.name == "alpha"
    assert c.beta.name == "my_beta"


def test_wrappers_without_auto_prefix_keep_the_network_names():
    net = Net()
    wrapped = nn.WithLossCell(net, nn.MSELoss())
    assert [p.name for p in wrapped.trainable_params()][:3] == ["block.scale", "block.fc.weight", "block.fc.bias"]


def test_container_edits_rename_positional_children():
    net = Net()
    net.layers.append(nn.Dense(2, 7))
    assert net.layers[3].weight.name == "layers.3.weight"
    del net.layers[1]  # the ReLU: later cells move up one place
    assert [p.name for p in net.layers.get_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias", "layers.2.weight", "layers.2.bias"]
    net.layers.insert(0, nn.Dense(3, 3))
    assert net.layers[0].weight.name == "layers.0.weight"
    assert net.layers[1].weight.name == "layers.1.weight"
    assert len(net.layers) == 4


def test_slicing_a_sequential_shares_cells_and_keeps_their_names():
    net = Net()
    tail = net.layers[1:]
    assert isinstance(tail, nn.SequentialCell) and len(tail) == 2
    assert tail[1] is net.layers[2]
    assert net.layers[2].weight.name == "layers.2.weight"
    x = t(np.random.default_rng(0).standard_normal((2, 5)))
    np.testing.assert_allclose(tail(x).asnumpy(), net.layers[2](net.layers[1](x)).asnumpy())


def test_sequential_from_ordered_dict_uses_the_given_names():
    seq = nn.SequentialCell(OrderedDict([("first", nn.Dense(2, 2)), ("act", nn.Tanh())]))
    assert [n for n, _ in seq.parameters_and_names()] == ["first.weight", "first.bias"]
    assert seq.first is seq[0]


def test_cell_list_indexes_iterates_and_names():
    class Stack(nn.Cell):
        def __init__(self):
            super().__init__()
            self.blocks = nn.CellList([nn.Dense(2, 2) for _ in range(3)])

        def construct(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    s = Stack()
    assert len(s.blocks) == 3
    assert s.blocks[-1].bias.name == "blocks.2.bias"
    s.blocks.extend([nn.Dense(2, 2)])
    s.blocks += [nn.Dense(2, 2)]
    assert [b.weight.name for b in s.blocks] == [f"blocks.{i}.weight" for i in range(5)]
    x = t(np.ones((1, 2)))
    ref = x
    for b in s.blocks:
        ref = b(ref)
    np.testing.assert_allclose(s(x).asnumpy(), ref.asnumpy())
    with pytest.raises(TypeError, match="expected a Cell"):
        s.blocks.append(3)


def test_cell_dict_holds_named_cells():
    d = nn.CellDict({"a": nn.Dense(2, 2), "b": nn.ReLU()})
    assert list(d) == ["a", "b"] and "a" in d and len(d) == 2
    assert d["a"].weight.name == "a.weight"
    d["c"] = nn.Dense(2, 1)
    assert [k for k, _ in d.items()] == ["a", "b", "c"]
    assert d.pop("b").__class__ is nn.ReLU and len(d) == 2


def test_shared_layer_is_listed_once():
    shared = nn.Dense(2, 2)

    class Twice(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.b = shared

    assert len(Twice().trainable_params()) == 2
    assert len(list(Twice().cells_and_names())) == 2


def test_assigning_a_tensor_to_a_parameter_attribute_updates_the_parameter():
    d = nn.Dense(2, 2)
    w = d.weight
    d.weight = t([[1, 2], [3, 4]])
    assert d.weight is w
    np.testing.assert_array_equal(w.asnumpy(), [[1, 2], [3, 4]])
    with pytest.raises(TypeError, match="Parameter"):
        d.weight = "not a tensor"


def test_setting_attributes_before_init_is_a_clear_error():
    class Bad(nn.Cell):
        def __init__(self):
            self.fc = nn.Dense(1, 1)
            super().__init__()

    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_missing_attribute_names_the_class():
    with pytest.raises(AttributeError, match="'Dense' object has no attribute 'wieght'"):
        nn.Dense(1, 1).wieght


def test_delattr_unregisters_parameters_and_cells():
    net = Net()
    del net.block.scale
    del net.layers
    assert [p.name for p in net.get_parameters()] == ["block.fc.weight", "block.fc.bias"]
    assert not hasattr(net, "layers")


def test_insert_child_and_param_check_names():
    c = nn.Cell()
    c.insert_child_to_cell("head", nn.Dense(2, 2))
    c.insert_param_to_cell("temp", Parameter(t([1.0])))
    assert c.head.weight.name == "head.weight" and c.temp.name == "temp"
    with pytest.raises(KeyError):
        c.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(KeyError):
        c.insert_param_to_cell("x.y", Parameter(t([1.0])))
    with pytest.raises(KeyError):
        c.insert_param_to_cell("head", Parameter(t([1.0])))
    with pytest.raises(TypeError):
        c.insert_child_to_cell("x", object())


def test_parameter_tuple_attribute_is_registered():
    class Holder(nn.Cell):
        def __init__(self):
            super().__init__()
            self.ws = ms.ParameterTuple([Parameter(t([1.0]), name="w0"), Parameter(t([2.0]), name="w1")])

    h = Holder()
    assert [p.name for p in h.get_parameters()] == ["w0", "w1"]
    assert isinstance(h.ws, ms.ParameterTuple) and h.ws[1].name == "w1"


def test_update_parameters_name_and_cells_listing():
    net = Net()
    net.update_parameters_name("model.")
    assert net.block.fc.weight.name == "model.block.fc.weight"
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.fc", "layers", "layers.0",
                                                    "layers.1", "layers.2"]
    assert list(net.name_cells()) == ["block", "layers"]
    assert list(net.cells()) == [net.block, net.layers]


# --- listing ---------------------------------------------------------------------------------
def test_trainable_and_untrainable_params_split_by_requires_grad():
    net = Net()
    net.block.scale.requires_grad = False
    assert all(p is not net.block.scale for p in net.trainable_params())
    untrainable = net.untrainable_params()
    assert len(untrainable) == 1 and untrainable[0] is net.block.scale
    assert len(net.trainable_params()) == 6
    assert [p.name for p in net.trainable_params(recurse=False)] == []
    assert [p.name for p in net.block.get_parameters(expand=False)] == ["block.scale"]


def test_apply_visits_children_then_self():
    net = Net()
    seen = []
    net.apply(lambda c: seen.append(type(c).__name__))
    assert seen == ["Dense", "Block", "Dense", "ReLU", "Dense", "SequentialCell", "Net"]


# --- modes -----------------------------------------------------------------------------------
def test_cells_start_in_inference_mode_and_set_train_recurses():
    net = Net()
    assert net.training is False and net.layers[0].training is False
    assert net.set_train() is net
    assert all(c.training for _, c in net.cells_and_names())
    assert net.phase == "train"
    net.set_train(False)
    assert not any(c.training for _, c in net.cells_and_names())
    assert net.phase == "predict"


# --- hooks -----------------------------------------------------------------------------------
def test_forward_hooks_see_and_may_replace_inputs_and_outputs():
    d = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
    calls = []

    def pre(cell, args):
        calls.append(("pre", cell, args[0].shape))
        return (args[0] * 2,)

    def post(cell, args, out):
        calls.append(("post", cell, out.shape))
        return out + 1

    h1 = d.register_forward_pre_hook(pre)
    h2 = d.register_forward_hook(post)
    out = d(t([[1.0, 2.0]]))
    np.testing.assert_allclose(out.asnumpy(), [[7.0, 7.0]])  # (1+2)*2 summed by ones, +1
    assert [c[0] for c in calls] == ["pre", "post"] and calls[0][1] is d
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(d(t([[1.0, 2.0]])).asnumpy(), [[3.0, 3.0]])
    assert len(calls) == 2


def test_forward_pre_hook_with_kwargs():
    class Add(nn.Cell):
        def construct(self, x, y=0.0):
            return x + y

    a = Add()
    a.register_forward_pre_hook(lambda cell, args, kwargs: (args, {"y": 10.0}), with_kwargs=True)
    np.testing.assert_allclose(a(t([1.0])).asnumpy(), [11.0])


def test_hooks_on_an_inner_cell_fire_inside_the_network():
    net = Net()
    shapes = []
    net.layers[1].register_forward_hook(lambda cell, args, out: shapes.append(out.shape))
    net(t(np.ones((4, 4))))
    assert shapes == [(4, 5)]


# --- to_float ----------------------------------------------------------------------------------
def test_to_float16_runs_the_cell_in_float16_and_keeps_float32_parameters():
    net = Net()
    x = t(np.random.default_rng(1).standard_normal((3, 4)))
    ref = net(x).asnumpy()
    assert net.to_float(ms.float16) is net
    out = net(x)
    assert out.dtype == ms.float16
    assert net.block.fc.weight.dtype == ms.float16          # read through the cast
    assert net.parameters_dict()["block.fc.weight"].dtype == ms.float32  # stored as float32
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), ref, rtol=2e-2, atol=2e-2)
    assert not np.array_equal(out.asnumpy().astype(np.float32), ref)  # really rounded to fp16


def test_to_float16_gradients_reach_the_float32_parameters():
    d = nn.Dense(3, 2).to_float(ms.float16)
    x = t(np.ones((2, 3)))
    params = d.trainable_params()
    _, grads = ms.value_and_grad(lambda x: d(x).sum(), None, params)(x)
    assert [g.dtype for g in grads] == [ms.float32, ms.float32]
    np.testing.assert_allclose(grads[1].asnumpy(), [2.0, 2.0])


def test_to_float_rejects_integer_types():
    with pytest.raises(ValueError, match="float16"):
        nn.Dense(1, 1).to_float(ms.int32)


# --- repr ----------------------------------------------------------------------------------
def test_repr_shows_the_layer_tree_in_mindspore_style():
    text = repr(Net())
    assert text.startswith("Net<\n  (block): Block<\n"
                           "    (fc): Dense<input_channels=4, output_channels=3, has_bias=True>")
    assert "(layers): SequentialCell<" in text
    assert "(1): ReLU<>" in text
    assert text.endswith(">")
    assert str(nn.Dense(2, 3)) == "Dense<input_channels=2, output_channels=3, has_bias=True>"


# --- gradients through a network -----------------------------------------------------------
def test_network_gradients_match_finite_differences():
    ms.set_seed(3)

    class Small(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Dense(3, 4, activation="relu", dtype=ms.float64)
            self.fc2 = nn.Dense(4, 2, dtype=ms.float64)

        def construct(self, x):
            return self.fc2(self.fc1(x))

    net = Small()
    x = Tensor(np.random.default_rng(2).standard_normal((5, 3)))
    params = net.trainable_params()

    def loss_fn(x):
        return (net(x) ** 2).sum()

    loss, grads = ms.value_and_grad(loss_fn, None, params)(x)
    eps = 1e-6
    for p, g in zip(params, grads):
        num = np.zeros_like(p.asnumpy())
        for idx in np.ndindex(p.shape):
            old = p.asnumpy()[idx]
            p.asnumpy()[idx] = old + eps
            hi = float(loss_fn(x).asnumpy())
            p.asnumpy()[idx] = old - eps
            lo = float(loss_fn(x).asnumpy())
            p.asnumpy()[idx] = old
            num[idx] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-5, atol=1e-7, err_msg=p.name)
