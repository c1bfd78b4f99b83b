"""TrainOneStepWithLossScaleCell: scaled backward, unscaled update, overflowing steps skipped
(parameters and optimizer state untouched), the scale moved by its manager — identically in
PyNative and Graph mode."""

import warnings

import numpy as np
import pytest

import spore as ms
from spore import amp, nn

from .nets import MLP, Plain, SmallCNN, blobs, record_dtypes, snapshot

F32 = ms.float32


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def _cell(net, opt, scale_sense):
    cell = amp.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, _loss()), opt, scale_sense)
    cell.set_train()
    return cell


def _state(opt):
    """Every array an optimizer owns or updates: parameters, moments, beta powers, global_step."""
    return {name: p.asnumpy().copy() for name, p in opt.parameters_and_names()}


def _with_inf(x):
    bad = x.asnumpy().copy()
    bad[0, 0] = np.inf
    return ms.Tensor(bad)


def test_returns_loss_overflow_flag_and_scale():
    x, y = blobs()
    net = Plain()
    cell = _cell(net, nn.SGD(net.trainable_params(), 0.1), amp.FixedLossScaleManager(64.0).get_update_cell())
    loss, overflow, scale = cell(x, y)
    assert loss.shape == () and loss.dtype == F32 and np.isfinite(loss.asnumpy())
    assert overflow.dtype == ms.bool_ and bool(overflow.asnumpy()) is False
    assert scale.dtype == F32 and float(scale.asnumpy()) == 64.0
    assert isinstance(cell, nn.TrainOneStepCell)
    assert {"scale_sense"} <= {p.name for p in cell.get_parameters()}


def test_a_finite_step_equals_the_unscaled_step():
    x, y = blobs()
    ms.set_seed(1)
    ref_net = Plain()
    ref = nn.TrainOneStepCell(nn.WithLossCell(ref_net, _loss()), nn.Momentum(ref_net.trainable_params(), 0.1, 0.9))
    ms.set_seed(1)
    net = Plain()
    cell = _cell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), ms.Tensor(np.float32(2.0 ** 12)))
    for _ in range(3):
        expected = ref(x, y).asnumpy()
        loss, overflow, _ = cell(x, y)
        np.testing.assert_allclose(loss.asnumpy(), expected, rtol=1e-6)
        assert not bool(overflow.asnumpy())
    for a, b in zip(snapshot(net.trainable_params()), snapshot(ref_net.trainable_params())):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_overflow_skips_the_update_and_lowers_the_dynamic_scale():
    x, y = blobs()
    net = Plain()
    opt = nn.Adam(net.trainable_params(), 0.01)
    cell = _cell(net, opt, amp.DynamicLossScaleManager(2.0 ** 10, 2, 50).get_update_cell())
    cell(x, y)  # one good step: Adam's moments and beta powers are now non-trivial
    before = _state(opt)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an expected overflow is reported by the flag, not by NumPy warnings
        loss, overflow, scale = cell(_with_inf(x), y)
    assert bool(overflow.asnumpy()) is True and float(scale.asnumpy()) == 2.0 ** 10
    after = _state(opt)
    assert after.keys() == before.keys() and len(after) > len(net.trainable_params()) + 2
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)
    assert float(cell.scale_sense.asnumpy()) == 2.0 ** 9
    _, overflow, scale = cell(x, y)  # training resumes with the lowered scale
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 2.0 ** 9
    assert not np.array_equal(net.fc1.weight.asnumpy(), before["fc1.weight"])


def test_a_huge_scale_overflows_float16_gradients_until_it_is_lowered():
    x, y = blobs()
    net = amp.auto_mixed_precision(MLP(), "O2")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    cell = _cell(net, opt, amp.DynamicLossScaleManager(2.0 ** 40, 4, 1000).get_update_cell())
    start = snapshot(net.trainable_params())
    flags, scales = [], []
    for _ in range(16):
        _, overflow, scale = cell(x, y)
        flags.append(bool(overflow.asnumpy()))
        scales.append(float(scale.asnumpy()))
        if not flags[-1]:
            break
    n_bad = flags.index(False)
    assert n_bad >= 3  # 2**40 * gradient is far beyond float16's 65504
    assert scales == [2.0 ** (40 - 2 * i) for i in range(n_bad + 1)]
    moved = [not np.array_equal(a, b) for a, b in zip(start, snapshot(net.trainable_params()))]
    assert all(moved)  # only the final, finite step changed the weights
    assert all(p.dtype == F32 for p in net.trainable_params())


def test_the_scale_grows_after_scale_window_good_steps():
    x, y = blobs()
    net = Plain()
    cell = _cell(net, nn.SGD(net.trainable_params(), 0.05), amp.DynamicLossScaleManager(4.0, 2, 3).get_update_cell())
    scales = [float(cell(x, y)[2].asnumpy()) for _ in range(7)]
    assert scales == [4, 4, 4, 8, 8, 8, 16]
    manager = cell.loss_scaling_manager
    assert int(manager.cur_iter.asnumpy()) == 8 and int(manager.last_overflow_iter.asnumpy()) == 6


def test_fixed_manager_drops_overflowing_steps_and_keeps_its_scale():
    x, y = blobs()
    net = Plain()
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9)
    cell = _cell(net, opt, amp.FixedLossScaleManager(128.0, drop_overflow_update=True).get_update_cell())
    cell(x, y)
    before = _state(opt)
    _, overflow, scale = cell(_with_inf(x), y)
    assert bool(overflow.asnumpy()) and float(scale.asnumpy()) == 128.0
    after = _state(opt)
    assert all(np.array_equal(after[k], before[k]) for k in before)
    _, overflow, scale = cell(x, y)
    assert not bool(overflow.asnumpy()) and float(scale.asnumpy()) == 128.0
    assert not np.array_equal(_state(opt)["fc1.weight"], before["fc1.weight"])


def test_a_tensor_scale_sense_is_fixed_and_settable():
    x, y = blobs()
    net = Plain()
    opt = nn.SGD(net.trainable_params(), 0.1)
    cell = _cell(net, opt, ms.Tensor(np.array([256.0], np.float32)))
    assert cell.loss_scaling_manager is None and cell.scale_sense.shape == (1,)
    w = net.fc2.weight.asnumpy().copy()
    _, overflow, scale = cell(_with_inf(x), y)
    assert bool(overflow.asnumpy()) and np.array_equal(net.fc2.weight.asnumpy(), w)  # skipped without a manager too
    assert float(scale.asnumpy()[0]) == 256.0
    cell.set_sense_scale(ms.Tensor(np.array([32.0], np.float32)))
    assert float(cell(x, y)[2].asnumpy()[0]) == 32.0
    cell.set_sense_scale(8.0)
    assert float(cell.scale_sense.asnumpy()[0]) == 8.0
    with pytest.raises(TypeError, match="scale_sense"):
        _cell(net, opt, 128.0)
    with pytest.raises(ValueError, match="shape"):
        _cell(net, opt, ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="sens"):
        cell.set_sense_scale("big")


def test_float16_training_converges_with_float32_master_weights():
    x, y = blobs(n=60)
    net = amp.auto_mixed_precision(MLP(), "O2")
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    cell = _cell(net, opt, amp.DynamicLossScaleManager(2.0 ** 16, 2, 10).get_update_cell())
    start = snapshot(net.trainable_params())
    losses, flags = [], []
    for _ in range(40):
        loss, overflow, _ = cell(x, y)
        losses.append(float(loss.asnumpy()))
        flags.append(bool(overflow.asnumpy()))
    assert flags.count(False) >= 30
    assert losses[-1] < 0.25 * losses[0] and losses[-1] < 0.2
    assert all(p.dtype == F32 for p in net.trainable_params())
    assert all(not np.array_equal(a, b) for a, b in zip(start, snapshot(net.trainable_params())))
    logits = net(x).asnumpy()
    assert (logits.argmax(1) == y.asnumpy()).mean() > 0.95


def _run(mode, steps):
    ms.set_context(mode=mode)
    ms.set_seed(11)
    x, y = blobs()
    net = amp.auto_mixed_precision(MLP(), "O2")
    opt = nn.Adam(net.trainable_params(), 0.01)
    cell = _cell(net, opt, amp.DynamicLossScaleManager(2.0 ** 12, 2, 2).get_update_cell())
    out = []
    for i in range(steps):
        loss, overflow, scale = cell(_with_inf(x) if i == 3 else x, y)
        out.append((float(loss.asnumpy()), bool(overflow.asnumpy()), float(scale.asnumpy())))
    return out, _state(opt), float(cell.scale_sense.asnumpy()), cell


def test_graph_mode_gives_the_same_run_as_pynative():
    eager, eager_state, eager_scale, _ = _run(ms.PYNATIVE_MODE, 6)
    graph, graph_state, graph_scale, cell = _run(ms.GRAPH_MODE, 6)
    assert [f for _, f, _ in graph] == [f for _, f, _ in eager] == [False, False, False, True, False, False]
    expected = [2 ** 12, 2 ** 12, 2 ** 13, 2 ** 13, 2 ** 12, 2 ** 12]
    assert [s for _, _, s in graph] == [s for _, _, s in eager] == expected
    assert graph_scale == eager_scale == 2 ** 13
    finite = [i for i, (_, f, _) in enumerate(eager) if not f]
    np.testing.assert_allclose([graph[i][0] for i in finite], [eager[i][0] for i in finite], rtol=1e-5)
    assert graph_state.keys() == eager_state.keys()
    for name in eager_state:
        np.testing.assert_allclose(graph_state[name], eager_state[name], rtol=1e-4, atol=1e-6, err_msg=name)
    jit_fn = cell.compiled_construct
    assert len(jit_fn.cache) == 1  # compiled once, not run eagerly
    ops = [e.prim.name for e in next(iter(jit_fn.cache.values())).graph.eqns]
    assert ops.count("GuardedOptimizerStep") == 1 and "OptimizerStep" not in ops and "Assign" in ops


def test_a_conv_net_trains_in_float16_identically_in_both_modes():
    rng = np.random.default_rng(3)
    x = ms.Tensor(rng.standard_normal((8, 1, 6, 6)).astype(np.float32))
    y = ms.Tensor((np.arange(8) % 2).astype(np.int32))
    runs = []
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        ms.set_seed(5)
        net = SmallCNN()
        seen = record_dtypes({"conv": net.conv}) if mode == ms.PYNATIVE_MODE else {}  # hooks: PyNative only
        cell = amp.build_train_network(net, nn.Momentum(net.trainable_params(), 0.05, 0.9), _loss(), level="O2",
                                       loss_scale_manager=amp.DynamicLossScaleManager(2.0 ** 10, 2, 5))
        losses = [float(cell(x, y)[0].asnumpy()) for _ in range(4)]
        runs.append((losses, snapshot(net.trainable_params())))
        if seen:
            assert seen["conv"] == (ms.float16, ms.float16)
    (le, pe), (lg, pg) = runs
    assert le[-1] < le[0]
    np.testing.assert_allclose(lg, le, rtol=1e-4)
    for a, b in zip(pg, pe):
        np.testing.assert_allclose(a, b, rtol=1e-3, atol=1e-5)
