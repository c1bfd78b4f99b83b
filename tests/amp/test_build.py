"""build_train_network: each level gives the right precision, loss cell and training cell, and the
keyword arguments override the level as in MindSpore."""

import numpy as np
import pytest

import spore as ms
from spore import amp, nn

from .nets import MLP, Plain, blobs, record_dtypes, snapshot

F16, F32 = ms.float16, ms.float32


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _build(net, level="O0", **kwargs):
    return amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.05, 0.9), _loss(), level=level, **kwargs)


def test_o0_is_a_plain_float32_training_step():
    net = MLP()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    cell = _build(net, "O0")
    assert type(cell) is nn.TrainOneStepCell and cell.training
    loss = cell(*blobs())
    assert loss.dtype == F32 and seen["fc1"] == (F32, F32) and seen["bn"] == (F32, F32)


def test_o1_casts_white_listed_cells_only():
    net = MLP()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    cell = _build(net, "O1")
    assert type(cell) is nn.TrainOneStepCell
    cell(*blobs())
    assert seen["fc1"] == (F16, F16) and seen["bn"] == (F32, F32)


def test_o2_keeps_batchnorm_in_float32_and_scales_the_loss_dynamically():
    net = MLP()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    cell = _build(net, "O2")
    assert isinstance(cell, amp.TrainOneStepWithLossScaleCell)
    assert isinstance(cell.loss_scaling_manager, amp.DynamicLossScaleUpdateCell)
    assert float(cell.scale_sense.asnumpy()) == 2.0 ** 24
    loss, overflow, scale = cell(*blobs())
    assert seen["fc1"] == (F16, F16) and seen["bn"] == (F32, F32)
    assert loss.dtype == F32
    assert bool(overflow.asnumpy()) and float(cell.scale_sense.asnumpy()) == 2.0 ** 23  # 2**24 overflows fp16


def test_o3_runs_batchnorm_in_float16_without_loss_scaling():
    net = MLP()
    seen = record_dtypes({"bn": net.bn})
    cell = _build(net, "O3")
    assert type(cell) is nn.TrainOneStepCell
    assert cell(*blobs()).dtype == F32
    assert seen["bn"] == (F16, F16)


def test_keyword_arguments_override_the_level():
    net = MLP()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    cell = _build(net, "O2", keep_batchnorm_fp32=False, loss_scale_manager=None)
    assert type(cell) is nn.TrainOneStepCell
    cell(*blobs())
    assert seen["bn"] == (F16, F16)

    net = MLP()
    seen = record_dtypes({"fc1": net.fc1})
    cell = _build(net, "O3", cast_model_type=ms.float32)
    cell(*blobs())
    assert seen["fc1"] == (F32, F32)

    net = MLP()
    seen = record_dtypes({"fc1": net.fc1, "bn": net.bn})
    _build(net, "O0", cast_model_type=ms.float16, keep_batchnorm_fp32=True)(*blobs())
    assert seen["fc1"] == (F16, F16) and seen["bn"] == (F32, F32)


def test_a_fixed_manager_without_drop_trains_like_the_unscaled_step():
    x, y = blobs()
    ms.set_seed(4)
    ref_net = Plain()
    ref = amp.build_train_network(ref_net, nn.SGD(ref_net.trainable_params(), 0.1), _loss())
    ms.set_seed(4)
    net = Plain()
    opt = nn.SGD(net.trainable_params(), 0.1, loss_scale=1024.0)
    cell = amp.build_train_network(net, opt, _loss(), loss_scale_manager=amp.FixedLossScaleManager(1024.0, False))
    assert type(cell) is nn.TrainOneStepCell
    for _ in range(3):
        np.testing.assert_allclose(cell(x, y).asnumpy(), ref(x, y).asnumpy(), rtol=1e-6)
    for a, b in zip(snapshot(net.trainable_params()), snapshot(ref_net.trainable_params())):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_a_fixed_manager_with_drop_gives_a_loss_scale_cell():
    cell = _build(Plain(), "O0", loss_scale_manager=amp.FixedLossScaleManager(64.0))
    assert isinstance(cell, amp.TrainOneStepWithLossScaleCell)
    assert isinstance(cell.loss_scaling_manager, amp.FixedLossScaleUpdateCell)
    assert float(cell(*blobs())[2].asnumpy()) == 64.0


def test_without_loss_fn_the_network_must_return_the_loss():
    net = Plain()
    with_loss = nn.WithLossCell(net, _loss())
    cell = amp.build_train_network(with_loss, nn.SGD(net.trainable_params(), 0.1), level="O0")
    assert cell.network is with_loss
    assert cell(*blobs()).shape == ()


def test_bad_arguments_are_rejected():
    net = Plain()
    opt = nn.SGD(net.trainable_params(), 0.1)
    with pytest.raises(ValueError, match="unsupported argument 'amp_level'"):
        amp.build_train_network(net, opt, _loss(), amp_level="O2")
    with pytest.raises(ValueError, match="'auto'"):
        amp.build_train_network(net, opt, _loss(), level="auto")
    with pytest.raises(ValueError, match="level"):
        amp.build_train_network(net, opt, _loss(), level="O5")
    with pytest.raises(TypeError, match="optimizer"):
        amp.build_train_network(net, object(), _loss())
    with pytest.raises(TypeError, match="loss_scale_manager"):
        amp.build_train_network(net, opt, _loss(), loss_scale_manager=128.0)
    with pytest.raises(ValueError, match="cast_model_type"):
        amp.build_train_network(net, opt, _loss(), cast_model_type=ms.int32)
    with pytest.raises(TypeError, match="keep_batchnorm_fp32"):
        amp.build_train_network(net, opt, _loss(), keep_batchnorm_fp32="yes")
    with pytest.warns(UserWarning, match="boost_level is ignored"):
        amp.build_train_network(Plain(), opt, _loss(), boost_level="O1")
