"""load_param_into_net (and load_checkpoint's selection): what is loaded, what is reported, and
that a net is never half-loaded."""

from __future__ import annotations

import numpy as np
import pytest

from spore import Parameter, Tensor, nn
from spore.train import CheckpointError, CheckpointMismatchError, load_checkpoint, load_param_into_net

from .helpers import PARAMS_CKPT, assert_exact, expected_params


def test_selection_by_prefix_and_choice_func():
    path = str(PARAMS_CKPT)
    assert list(load_checkpoint(path, specify_prefix="fc.")) == ["fc.weight", "fc.bias"]
    assert list(load_checkpoint(path, specify_prefix=["fc.", "ids"], filter_prefix="fc.b")) == ["fc.weight", "ids"]
    assert list(load_checkpoint(path, choice_func=lambda n: n.endswith("mask"))) == ["mask"]
    # prefixes take precedence over choice_func, as in MindSpore
    assert list(load_checkpoint(path, specify_prefix="ids", choice_func=lambda n: False)) == ["ids"]
    with pytest.raises(CheckpointError, match="nothing of .* is left"):
        load_checkpoint(path, filter_prefix=list(expected_params()))
    with pytest.raises(ValueError, match="cannot contain ''"):
        load_checkpoint(path, filter_prefix=["fc", ""])
    with pytest.raises(TypeError, match="specify_prefix"):
        load_checkpoint(path, specify_prefix=3)


class Small(nn.Cell):
    """Own parameters (listed first by parameters_and_names) and a child's."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.bn_mean = Parameter(np.zeros(3, np.float32), name="bn_mean", requires_grad=False)
        self.steps = Parameter(np.array([0], np.int32), name="steps", requires_grad=False)


def values(net: nn.Cell) -> dict[str, np.ndarray]:
    """A copy of every parameter's value, by name."""
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def test_missing_and_extra_names_are_returned_and_the_rest_loaded():
    net = Small()
    before = values(net)
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    not_loaded, extra = load_param_into_net(net, {"fc.weight": Parameter(w, name="fc.weight"),
                                                  "steps": Parameter(np.array([5], np.int32), name="steps"),
                                                  "epoch_num": Parameter(np.array(2), name="epoch_num")})
    assert not_loaded == ["bn_mean", "fc.bias"]  # the net's order: own parameters, then children's
    assert extra == ["epoch_num"]
    assert_exact(net.fc.weight.asnumpy(), w)
    assert_exact(net.steps.asnumpy(), np.array([5], np.int32))
    assert_exact(net.fc.bias.asnumpy(), before["fc.bias"])


def test_mismatches_are_reported_per_parameter_and_nothing_is_loaded():
    net = Small()
    before = values(net)
    bad = {"fc.weight": Parameter(np.ones((3, 5), np.float32), name="fc.weight"),   # wrong shape
           "fc.bias": Parameter(np.ones(3, np.float32), name="fc.bias"),             # fine
           "bn_mean": Parameter(np.ones(3, np.int32), name="bn_mean"),               # int into float
           "steps": "not a tensor"}
    with pytest.raises(CheckpointMismatchError) as info:
        load_param_into_net(net, bad)
    err = info.value
    assert isinstance(err, RuntimeError) and isinstance(err, ValueError)  # MindSpore raises RuntimeError
    found = {(m.name, m.what, m.expected, m.got) for m in err.mismatches}
    assert found == {("fc.weight", "shape", "(3, 4)", "(3, 5)"), ("bn_mean", "dtype", "Float32", "Int32"),
                     ("steps", "type", "a tensor Int32 (1,)", "the string 'not a tensor'")}
    assert "fc.weight: shape expected (3, 4) (net), got (3, 5) (checkpoint)" in str(err)
    for name, arr in before.items():  # fc.bias fitted, but was not assigned either
        assert_exact(net.parameters_dict()[name].asnumpy(), arr, name)


def test_strict_load_decides_whether_dtypes_are_converted():
    half = {"fc.bias": Parameter(np.array([0.5, 1.5, -2.0], np.float16), name="fc.bias"),
            "steps": Parameter(np.array([7], np.int64), name="steps")}
    net = Small()
    before = values(net)
    with pytest.raises(CheckpointMismatchError, match="strict_load=False casts") as info:
        load_param_into_net(net, half, strict_load=True)
    assert {m.name for m in info.value.mismatches} == {"fc.bias", "steps"}
    assert_exact(net.fc.bias.asnumpy(), before["fc.bias"])
    load_param_into_net(net, half)
    assert_exact(net.fc.bias.asnumpy(), np.array([0.5, 1.5, -2.0], np.float32))
    assert_exact(net.steps.asnumpy(), np.array([7], np.int32))


def test_names_with_an_extra_prefix_load_only_without_strict_load():
    src = Small()
    prefixed = {f"backbone.{p.name}": Parameter(p.asnumpy() + 1, name=f"backbone.{p.name}")
                for p in src.get_parameters()}
    strict = Small()
    not_loaded, extra = load_param_into_net(strict, prefixed, strict_load=True)
    assert not_loaded == ["bn_mean", "steps", "fc.weight", "fc.bias"] and extra == list(prefixed)
    net = Small()
    not_loaded, extra = load_param_into_net(net, prefixed)
    assert not_loaded == [] and extra == []
    for p in net.get_parameters():
        assert_exact(p.asnumpy(), prefixed[f"backbone.{p.name}"].asnumpy(), p.name)


def test_trailing_unit_axes_in_the_checkpoint_are_dropped_like_mindspore():
    net = Small()
    w = np.arange(12, dtype=np.float32).reshape(3, 4, 1, 1)
    load_param_into_net(net, {"fc.weight": Parameter(w, name="fc.weight")})
    assert_exact(net.fc.weight.asnumpy(), w.reshape(3, 4))
    with pytest.raises(CheckpointMismatchError, match=r"shape expected \(3, 4\) \(net\), got \(4, 3, 1\)"):
        load_param_into_net(net, {"fc.weight": Parameter(w.reshape(4, 3, 1), name="fc.weight")})


def test_load_param_into_net_checks_its_arguments():
    net = Small()
    with pytest.raises(TypeError, match="'net' must be a Cell"):
        load_param_into_net({}, {})
    with pytest.raises(TypeError, match="'parameter_dict' must be a dict"):
        load_param_into_net(net, [])
    with pytest.raises(TypeError, match="maps str names to Parameters"):
        load_param_into_net(net, {"fc.bias": Tensor(np.zeros(3, np.float32))})
    with pytest.raises(TypeError, match="parallel training"):
        load_param_into_net(net, {}, remove_redundancy=True)
    with pytest.raises(TypeError, match="strict_load"):
        load_param_into_net(net, {}, strict_load=1)
