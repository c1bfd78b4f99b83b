"""Loss-scale managers, their update cells, the scalers and all_finite follow MindSpore's rules."""

import numpy as np
import pytest

import spore as ms
from spore import amp, nn, ops


def _t(*values, dtype=np.float32):
    return ms.Tensor(np.array(values[0] if len(values) == 1 else values, dtype=dtype))


def test_all_finite_on_finite_nan_and_inf():
    finite = (_t(1.0, -2.0), _t(3.0, dtype=np.float16))
    assert bool(amp.all_finite(finite).asnumpy()) is True
    assert bool(amp.all_finite((_t(1.0), _t(np.nan, 2.0))).asnumpy()) is False
    assert bool(amp.all_finite([_t(1.0), _t(2.0, np.inf, dtype=np.float16)]).asnumpy()) is False
    assert bool(amp.all_finite([_t(-np.inf)]).asnumpy()) is False
    assert bool(amp.all_finite(_t(65504.0, dtype=np.float16)).asnumpy()) is True
    out = amp.all_finite(finite)
    assert out.shape == () and out.dtype == ms.bool_
    assert bool(amp.all_finite(()).asnumpy()) is True
    with pytest.raises(TypeError, match="Tensor"):
        amp.all_finite([1.0])


def test_fixed_manager():
    m = amp.FixedLossScaleManager(64.0)
    assert m.get_loss_scale() == 64.0 and m.get_drop_overflow_update() is True
    m.update_loss_scale(True)
    assert m.get_loss_scale() == 64.0
    cell = m.get_update_cell()
    assert isinstance(cell, amp.FixedLossScaleUpdateCell) and cell.get_loss_scale() == 64.0
    scale = ms.Parameter(ms.Tensor(np.array(64.0, np.float32)), name="s")
    assert bool(cell(scale, ms.Tensor(np.array(True))).asnumpy()) is True
    assert float(scale.asnumpy()) == 64.0
    assert amp.FixedLossScaleManager(drop_overflow_update=False).get_update_cell() is None
    assert amp.FixedLossScaleManager().get_loss_scale() == 128.0
    with pytest.raises(ValueError, match="loss_scale"):
        amp.FixedLossScaleManager(0.5)
    with pytest.raises(TypeError, match="drop_overflow_update"):
        amp.FixedLossScaleManager(8.0, drop_overflow_update=1)


def _python_rule(flags, init, factor, window):
    m = amp.DynamicLossScaleManager(init, factor, window)
    scales = []
    for f in flags:
        m.update_loss_scale(f)
        scales.append(m.get_loss_scale())
    return scales


def test_dynamic_manager_lowers_on_overflow_and_grows_after_a_window():
    assert amp.DynamicLossScaleManager().get_loss_scale() == 2.0 ** 24
    # three good steps grow the scale (on the third); an overflow halves it and restarts the window
    flags = [False, False, False, True, False, False, False, False]
    assert _python_rule(flags, 16.0, 2, 3) == [16, 16, 32, 16, 16, 16, 32, 32]
    # never below 1
    assert _python_rule([True] * 4, 4.0, 2, 100) == [2, 1, 1, 1]
    assert _python_rule([True, False], 9.0, 3, 1) == [3, 9]


def test_dynamic_manager_gives_up_after_bad_step_max_overflows_in_a_row():
    m = amp.DynamicLossScaleManager(4.0, 2, 10)
    m.bad_step_max = 3
    for _ in range(3):
        m.update_loss_scale(True)
    m.update_loss_scale(False)  # a good step resets the count
    for _ in range(3):
        m.update_loss_scale(True)
    with pytest.raises(RuntimeError, match="overflowing steps in a row"):
        m.update_loss_scale(True)


def test_dynamic_manager_validates_its_arguments():
    with pytest.raises(ValueError, match="init_loss_scale"):
        amp.DynamicLossScaleManager(0.5)
    with pytest.raises(ValueError, match="scale_factor"):
        amp.DynamicLossScaleManager(8.0, 1)
    with pytest.raises(ValueError, match="scale_window"):
        amp.DynamicLossScaleManager(8.0, 2, 0)


def test_dynamic_update_cell_follows_the_managers_rule():
    rng = np.random.default_rng(0)
    flags = [bool(f) for f in rng.random(40) < 0.2]
    manager = amp.DynamicLossScaleManager(2.0 ** 10, 2, 4)
    cell = manager.get_update_cell()
    assert isinstance(cell, amp.DynamicLossScaleUpdateCell) and cell.get_loss_scale() == 2.0 ** 10
    scale = ms.Parameter(ms.Tensor(np.array(2.0 ** 10, np.float32)), name="scale_sense")
    got = []
    for f in flags:
        out = cell(scale, ms.Tensor(np.array(f)))
        assert bool(out.asnumpy()) is f
        got.append(float(scale.asnumpy()))
    assert got == _python_rule(flags, 2.0 ** 10, 2, 4)
    assert any(a != b for a, b in zip(got, got[1:]))  # the scale did move both ways in this run
    names = sorted(p.name for p in cell.get_parameters())
    assert names == ["current_iterator_step", "last_overflow_iterator_step"]
    assert int(cell.cur_iter.asnumpy()) == len(flags) + 1


def test_static_loss_scaler():
    s = amp.StaticLossScaler(1024.0)
    loss = _t(0.5, dtype=np.float16)
    scaled = s.scale(loss)
    assert scaled.dtype == ms.float16 and float(scaled.asnumpy()) == 512.0
    grads = s.unscale((_t(2048.0), _t(1024.0, dtype=np.float16)))
    assert [g.dtype for g in grads] == [ms.float32, ms.float16]
    assert [float(g.asnumpy()) for g in grads] == [2.0, 1.0]
    assert s.adjust(ms.Tensor(np.array(False))) is False
    assert float(s.scale_value.asnumpy()) == 1024.0
    with pytest.raises(ValueError, match="scale_value"):
        amp.StaticLossScaler(0)


def _scaler_rule(flags, value, factor, window):
    out, counter = [], 0
    for finite in flags:
        if finite:
            if counter == window - 1:
                value, counter = value * factor, 0
            else:
                counter += 1
        else:
            value, counter = max(1.0, value / factor), 0
        out.append(value)
    return out


def test_dynamic_loss_scaler_adjusts_like_mindspore():
    rng = np.random.default_rng(1)
    flags = [bool(f) for f in rng.random(30) > 0.2]
    s = amp.DynamicLossScaler(2.0 ** 8, 2, 3)
    got = []
    for f in flags:
        assert bool(s.adjust(ms.Tensor(np.array(f))).asnumpy()) is True
        got.append(float(s.scale_value.asnumpy()))
    assert got == _scaler_rule(flags, 2.0 ** 8, 2, 3)
    assert len(set(got)) > 2


def test_dynamic_loss_scaler_step_compiles_under_jit():
    """A hand-written step with a scaler gives the same run eagerly and compiled (scale included)."""

    def make():
        ms.set_seed(7)
        net = nn.Dense(3, 1)
        opt = nn.SGD(net.trainable_params(), 0.05)
        scaler = amp.DynamicLossScaler(2.0 ** 4, 2, 2)

        def scaled_loss(x, y):
            return scaler.scale(ops.mean((net(x) - y) ** 2))

        grad_fn = ms.value_and_grad(scaled_loss, None, opt.parameters)

        def step(x, y):
            loss, grads = grad_fn(x, y)
            grads = scaler.unscale(grads)
            scaler.adjust(amp.all_finite(grads))
            opt(grads)
            return loss

        return net, scaler, step

    rng = np.random.default_rng(2)
    xs = [rng.standard_normal((6, 3)).astype(np.float32) for _ in range(5)]
    runs = []
    for compiled in (False, True):
        net, scaler, step = make()
        fn = ms.jit(step, fullgraph=True) if compiled else step
        losses = [float(fn(ms.Tensor(x), ms.Tensor(x[:, :1] * 2)).asnumpy()) for x in xs]
        runs.append((losses, float(scaler.scale_value.asnumpy()), net.weight.asnumpy().copy()))
    (le, se, we), (lc, sc, wc) = runs
    assert se == sc == 64.0  # doubled after steps 2 and 4
    np.testing.assert_allclose(lc, le, rtol=1e-6)
    np.testing.assert_allclose(wc, we, rtol=1e-6)
    assert le[-1] / 64 < le[0] / 16  # the unscaled loss went down
