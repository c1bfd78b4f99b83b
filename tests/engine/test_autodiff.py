"""`grad` / `value_and_grad` follow MindSpore's rules for positions, weights, aux outputs and
sensitivities; the tape gives higher-order gradients and frees what it recorded."""

import inspect

import numpy as np
import pytest

import spore as ms
from spore.errors import GradError, ShapeError
from spore.ops import functional as F


def t(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def f_xy(x, y):
    return F.reduce_sum(F.mul(F.mul(x, x), y))


def test_default_position_gives_one_gradient_tensor():
    x, y = t(3), t(3, seed=1)
    g = ms.grad(f_xy)(x, y)
    assert isinstance(g, ms.Tensor)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy() * y.asnumpy(), rtol=1e-6)


def test_tuple_of_positions_gives_tuple():
    x, y = t(3), t(3, seed=1)
    gx, gy = ms.grad(f_xy, grad_position=(0, 1))(x, y)
    np.testing.assert_allclose(gy.asnumpy(), x.asnumpy() ** 2, rtol=1e-6)
    np.testing.assert_allclose(gx.asnumpy(), 2 * x.asnumpy() * y.asnumpy(), rtol=1e-6)


def test_weights_only_and_positions_with_weights():
    w = ms.Parameter(t(3, seed=2), name="w")
    b = ms.Parameter(t(3, seed=3), name="b")
    x = t(3)

    def f(x):
        return F.reduce_sum(F.add(F.mul(x, w), b))

    gw, gb = ms.grad(f, None, [w, b])(x)
    np.testing.assert_allclose(gw.asnumpy(), x.asnumpy())
    np.testing.assert_allclose(gb.asnumpy(), np.ones(3))
    gx, (gw2, gb2) = ms.grad(f, 0, ms.ParameterTuple([w, b]))(x)
    np.testing.assert_allclose(gx.asnumpy(), w.asnumpy())
    single = ms.grad(f, None, w)(x)
    assert isinstance(single, ms.Tensor)
    np.testing.assert_allclose(single.asnumpy(), x.asnumpy())


def test_has_aux_differentiates_first_output_only():
    x = t(4)

    def f(x):
        return F.reduce_sum(F.mul(x, x)), F.mul(x, 3.0)

    (value, aux), g = ms.value_and_grad(f, has_aux=True)(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(aux.asnumpy(), 3 * x.asnumpy(), rtol=1e-6)
    g2, auxes = ms.grad(f, has_aux=True)(x)
    assert isinstance(auxes, tuple) and len(auxes) == 1
    np.testing.assert_allclose(g2.asnumpy(), g.asnumpy())


def test_tuple_output_is_summed_and_sens_param_weights_it():
    x = t(3)

    def f(x):
        return F.mul(x, 2.0), F.mul(x, x)

    g = ms.grad(f)(x)
    np.testing.assert_allclose(g.asnumpy(), 2 + 2 * x.asnumpy(), rtol=1e-6)
    s1, s2 = t(3, seed=5), t(3, seed=6)
    gs = ms.grad(f, sens_param=True)(x, (s1, s2))
    np.testing.assert_allclose(gs.asnumpy(), 2 * s1.asnumpy() + 2 * x.asnumpy() * s2.asnumpy(), rtol=1e-6)


def test_return_ids_pairs_positions_and_names():
    w = ms.Parameter(t(2), name="layer.w")
    x = t(2)
    (pos,), (named,) = ms.grad(lambda x: F.reduce_sum(F.mul(x, w)), (0,), [w], return_ids=True)(x)
    assert pos[0] == 0 and named[0] == "layer.w"
    np.testing.assert_allclose(named[1].asnumpy(), x.asnumpy())


def test_unused_input_gets_zero_gradient():
    x, y = t(3), t(2)
    gx, gy = ms.grad(lambda x, y: F.reduce_sum(x), (0, 1))(x, y)
    np.testing.assert_array_equal(gy.asnumpy(), np.zeros(2, np.float32))
    np.testing.assert_array_equal(gx.asnumpy(), np.ones(3, np.float32))


def test_second_and_third_order_gradients():
    x = t(5)
    f = lambda x: F.reduce_sum(F.mul(F.mul(x, x), x))  # noqa: E731
    g2 = ms.grad(lambda x: F.reduce_sum(ms.grad(f)(x)))(x)
    np.testing.assert_allclose(g2.asnumpy(), 6 * x.asnumpy(), rtol=1e-5)
    g3 = ms.grad(lambda x: F.reduce_sum(ms.grad(lambda x: F.reduce_sum(ms.grad(f)(x)))(x)))(x)
    np.testing.assert_allclose(g3.asnumpy(), np.full(5, 6.0), rtol=1e-5)


def test_stop_gradient_blocks_the_path():
    x = t(3)
    g = ms.grad(lambda x: F.reduce_sum(F.add(F.mul(x, x), ms.ops.stop_gradient(F.mul(x, x)))))(x)
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy(), rtol=1e-6)


def test_results_are_detached_so_graph_is_freed():
    x = t(3)
    value, g = ms.value_and_grad(lambda x: F.reduce_sum(F.exp(x)))(x)
    assert value._node is None and g._node is None


def test_tensor_from_an_earlier_grad_call_acts_as_constant():
    x = t(3)
    kept = []

    def f(x):
        y = F.mul(x, x)
        kept.append(y)
        return F.reduce_sum(y)

    ms.grad(f)(x)
    old = kept[0]
    g = ms.grad(lambda x: F.reduce_sum(F.mul(old, x)))(x)
    np.testing.assert_allclose(g.asnumpy(), x.asnumpy() ** 2, rtol=1e-6)


def test_non_tensor_input_at_grad_position_is_a_clear_error():
    with pytest.raises(GradError, match="input 1 is a float"):
        ms.grad(lambda x, s: F.mul(x, s), (0, 1))(t(2), 2.0)


def test_out_of_range_position_is_a_clear_error():
    with pytest.raises(GradError, match="out of range"):
        ms.grad(f_xy, 5)(t(2), t(2))


def test_shape_error_names_op_shapes_and_the_users_line():
    x, w = t(3, 4), t(3, 4)
    line = inspect.currentframe().f_lineno + 2
    with pytest.raises(ShapeError) as info:
        F.matmul(x, w)
    err = info.value
    assert err.op == "MatMul"
    assert "(3, 4)" in str(err)
    assert err.loc.file == __file__ and err.loc.line == line
    assert "F.matmul(x, w)" in str(err)


def test_shape_error_inside_grad_still_points_at_user_code():
    def loss(x):
        return F.reduce_sum(F.add(x, t(5)))  # this line is the culprit

    with pytest.raises(ShapeError) as info:
        ms.grad(loss)(t(3))
    assert info.value.loc.file == __file__
    assert "the culprit" in str(info.value)


def test_in_place_write_after_a_read_differentiates_the_value_each_read_saw():
    def f(x):
        y = F.mul(x, 2.0)
        z = F.mul(y, y)  # reads y before the write: d/dx sum(4x^2) = 8x
        y[0] = 5.0       # after it, sum(y) = 5 + sum(2x[1:])
        return F.add(F.reduce_sum(z), F.reduce_sum(y))

    x = t(4)
    want = 8 * x.asnumpy().astype(np.float64) + np.array([0.0, 2.0, 2.0, 2.0])
    np.testing.assert_allclose(ms.grad(f)(x).asnumpy(), want, rtol=1e-6)


def test_in_place_write_into_a_watched_input_after_a_read_is_refused_not_silently_wrong():
    def f(x):
        z = F.mul(x, x)
        x[0] = 5.0
        return F.reduce_sum(z)

    with pytest.raises(GradError, match="modified in place"):
        ms.grad(f)(t(4))


def test_in_place_shift_gets_exact_gradient():
    x = ms.Tensor(np.arange(4, dtype=np.float32))

    def g(x):
        y = F.mul(x, 2.0)
        y[1:] = y[:-1]
        return F.reduce_sum(F.mul(y, y))

    np.testing.assert_allclose(ms.grad(g)(x).asnumpy(), [0.0, 8.0, 16.0, 0.0])


class _InterruptOnce(dict):
    """A leaves table whose next write raises KeyboardInterrupt: an interrupt landing inside a grad
    call's bookkeeping (a notebook's interrupt can arrive between any two bytecodes)."""

    armed = True

    def __setitem__(self, key, value) -> None:
        if self.armed:
            self.armed = False
            raise KeyboardInterrupt
        super().__setitem__(key, value)


def test_an_interrupt_while_a_grad_call_starts_or_runs_its_backward_leaves_recording_off(monkeypatch) -> None:
    """Ctrl-C during a training step used to leave `tape.STATE.depth` at 1 now and then (seen in the
    kernel's interrupt test): every later op was recorded for a gradient nobody would take. Entering
    a grad call is undone when interrupted part-way, and the depth is restored, not counted back."""
    from spore.autodiff import tape

    w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    fn = ms.value_and_grad(lambda x: F.reduce_sum(F.mul(x, w)), None, [w])
    x = ms.Tensor(np.arange(3, dtype=np.float32))
    monkeypatch.setattr(tape.STATE, "leaves", _InterruptOnce())
    with pytest.raises(KeyboardInterrupt):
        fn(x)  # interrupted inside watching.__enter__, after the depth went up
    assert tape.STATE.depth == 0 and dict(tape.STATE.leaves) == {}

    def interrupted_backward(*args, **kwargs):
        raise KeyboardInterrupt

    real_backward = tape.backward
    monkeypatch.setattr(tape, "backward", interrupted_backward)
    with pytest.raises(KeyboardInterrupt):
        fn(x)  # interrupted in the backward pass
    assert tape.STATE.depth == 0 and dict(tape.STATE.leaves) == {}
    monkeypatch.setattr(tape, "backward", real_backward)
    loss, (g,) = fn(x)  # and the next call is an ordinary one
    np.testing.assert_array_equal(g.asnumpy(), [0.0, 1.0, 2.0])
    assert float(loss.asnumpy()) == 3.0 and tape.STATE.depth == 0
