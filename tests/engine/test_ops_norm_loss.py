"""ops.batch_norm / layer_norm / cross_entropy / nll_loss / binary losses / regression losses /
dropout / embedding and their class forms: values and gradients against NumPy oracles written here
from the MindSpore (and, where MindSpore defers to it, PyTorch) definitions, plus the errors users see.
"""

import numpy as np
import pytest

import spore as ms
from spore import ops
from spore.errors import DTypeError, ShapeError

r = np.random.default_rng(5)


def t32(a):
    return ms.Tensor(np.asarray(a, np.float32))


def vjp(fn, args, sens, pos):
    """Gradients of <sens, fn(*args)> w.r.t. the inputs at `pos`."""
    return ms.grad(fn, grad_position=pos, sens_param=True)(*args, sens)


def log_softmax(x, axis=1):
    x = np.asarray(x, np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


# ----------------------------------------------------------------------------------------------
# batch norm


def bn_oracle(x, gamma, beta, eps):
    """Training batch norm over all axes but 1, and the chain-rule gradient for a cotangent dy."""
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    rs = 1 / np.sqrt(var + eps)
    y = (x - mu) * rs * gamma.reshape(shape) + beta.reshape(shape)

    def grads(dy):
        m = x.size / x.shape[1]
        dxhat = dy * gamma.reshape(shape)
        dvar = (dxhat * (x - mu)).sum(axis=axes, keepdims=True) * -0.5 * rs ** 3
        dmu = -(dxhat * rs).sum(axis=axes, keepdims=True)
        dx = dxhat * rs + dvar * 2 * (x - mu) / m + dmu / m
        return dx, (dy * (x - mu) * rs).sum(axis=axes), dy.sum(axis=axes)

    return y, mu.ravel(), var.ravel(), grads


@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5, 5), (2, 4, 7)])
def test_batch_norm_training_uses_batch_statistics_and_updates_running_stats_in_place(shape):
    x = r.standard_normal(shape) * 2 + 1
    gamma, beta = r.random(4) + 0.5, r.standard_normal(4)
    rm0, rv0 = r.standard_normal(4), r.random(4) + 0.5
    rm, rv = t32(rm0), t32(rv0)
    rm_buf = rm._data
    y = ops.batch_norm(t32(x), rm, rv, t32(gamma), t32(beta), training=True, momentum=0.2, eps=1e-4)
    ry, mu, var, _ = bn_oracle(x, gamma, beta, 1e-4)
    assert y.dtype == ms.float32 and y.shape == shape
    np.testing.assert_allclose(y.asnumpy(), ry, rtol=1e-4, atol=1e-4)
    # MindSpore's functional momentum: running = (1 - momentum) * running + momentum * batch; the
    # variance blended in is the unbiased one (n / (n - 1), n elements per channel), as MindSpore 2.10's CPU kernel
    assert rm._data is rm_buf
    n = x.size // 4
    np.testing.assert_allclose(rm.asnumpy(), 0.8 * rm0 + 0.2 * mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), 0.8 * rv0 + 0.2 * var * n / (n - 1), rtol=1e-5, atol=1e-6)


def test_batch_norm_inference_uses_running_statistics_and_leaves_them_alone():
    x = r.standard_normal((5, 3, 2, 2))
    gamma, beta, rm0, rv0 = r.random(3) + 0.5, r.standard_normal(3), r.standard_normal(3), r.random(3) + 0.5
    rm, rv = t32(rm0), t32(rv0)
    y = ops.batch_norm(t32(x), rm, rv, t32(gamma), t32(beta), training=False, eps=1e-3)
    s = (1, 3, 1, 1)
    ref = (x - rm0.reshape(s)) / np.sqrt(rv0.reshape(s) + 1e-3) * gamma.reshape(s) + beta.reshape(s)
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(rm.asnumpy(), rm0.astype(np.float32))
    np.testing.assert_allclose(rv.asnumpy(), rv0.astype(np.float32))


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 3, 3)])
def test_batch_norm_training_gradients_match_the_chain_rule(shape):
    x, dy = r.standard_normal(shape), r.standard_normal(shape)
    gamma, beta = r.random(3) + 0.5, r.standard_normal(3)
    rm, rv = t32(np.zeros(3)), t32(np.ones(3))

    def f(x, g, b):
        return ops.batch_norm(x, rm, rv, g, b, training=True, eps=1e-5)

    dx, dg, db = vjp(f, (t32(x), t32(gamma), t32(beta)), t32(dy), (0, 1, 2))
    rdx, rdg, rdb = bn_oracle(x, gamma, beta, 1e-5)[3](dy)
    np.testing.assert_allclose(dx.asnumpy(), rdx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg.asnumpy(), rdg, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db.asnumpy(), rdb, rtol=1e-4, atol=1e-4)


def test_batch_norm_training_with_a_batch_of_one_gives_beta_as_mindspore_does():
    x = t32([[1.0, -2.0, 3.0]])
    rm, rv = t32(np.zeros(3)), t32(np.ones(3))
    y = ops.batch_norm(x, rm, rv, t32([2.0, 2.0, 2.0]), t32([0.5, -1.0, 0.0]), training=True, momentum=0.1)
    np.testing.assert_allclose(y.asnumpy(), [[0.5, -1.0, 0.0]])
    np.testing.assert_allclose(rm.asnumpy(), [0.1, -0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(rv.asnumpy(), [0.9, 0.9, 0.9], rtol=1e-5)  # batch variance 0 (biased)


def test_batch_norm_errors_name_the_op_and_the_shapes():
    x = t32(np.zeros((4, 3, 2, 2)))
    with pytest.raises(ShapeError) as e:
        ops.batch_norm(x, t32(np.zeros(3)), t32(np.ones(3)), t32(np.ones(4)), t32(np.zeros(3)), training=True)
    msg = str(e.value)
    assert "BatchNorm" in msg and "(3,)" in msg and "(4,)" in msg and "(4, 3, 2, 2)" in msg
    assert e.value.loc is not None and e.value.loc.file == __file__
    with pytest.raises(ShapeError, match="at least one value per channel"):
        ops.batch_norm(t32(np.zeros((0, 3))), t32(np.zeros(3)), t32(np.ones(3)), None, None, training=True)
    with pytest.raises(ShapeError, match="rank >= 2"):
        ops.batch_norm(t32(np.zeros(3)), t32(np.zeros(3)), t32(np.ones(3)), None, None)
    with pytest.raises(DTypeError, match="BatchNorm"):
        ops.batch_norm(ms.Tensor(np.zeros((2, 3), np.int32)), t32(np.zeros(3)), t32(np.ones(3)), None, None)


def test_batch_norm_class_returns_batch_statistics_and_updates_parameters():
    x = r.standard_normal((6, 2, 3, 3))
    mean, var = ms.Parameter(np.zeros(2, np.float32), name="mean"), ms.Parameter(np.ones(2, np.float32), name="var")
    op = ops.BatchNorm(is_training=True, epsilon=1e-5, momentum=0.3)
    y, bm, bv, r1, r2 = op(t32(x), t32(np.ones(2)), t32(np.zeros(2)), mean, var)
    ry, mu, v, _ = bn_oracle(x, np.ones(2), np.zeros(2), 1e-5)
    np.testing.assert_allclose(y.asnumpy(), ry, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bm.asnumpy(), mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bv.asnumpy(), v, rtol=1e-4)
    np.testing.assert_allclose(r1.asnumpy(), bm.asnumpy())
    np.testing.assert_allclose(r2.asnumpy(), bv.asnumpy())
    np.testing.assert_allclose(mean.asnumpy(), 0.3 * mu, rtol=1e-5, atol=1e-6)
    n = x.size // 2
    np.testing.assert_allclose(var.asnumpy(), 0.7 + 0.3 * v * n / (n - 1), rtol=1e-5)  # unbiased blend
    infer = ops.BatchNorm()(t32(x), t32(np.ones(2)), t32(np.zeros(2)), mean, var)
    assert infer[1] is mean and infer[2] is var


def test_batch_norm_channels_last_equals_channels_first_transposed():
    x = r.standard_normal((3, 4, 5, 2)).astype(np.float32)
    g, b = t32(r.random(2) + 0.5), t32(r.standard_normal(2))
    m, v = t32(np.zeros(2)), t32(np.ones(2))
    y_last = ops.BatchNorm(is_training=True, data_format="NHWC")(ms.Tensor(x), g, b, m, v)[0].asnumpy()
    y_first = ops.BatchNorm(is_training=True)(ms.Tensor(x.transpose(0, 3, 1, 2).copy()), g, b, m, v)[0].asnumpy()
    np.testing.assert_allclose(y_last, y_first.transpose(0, 2, 3, 1), rtol=1e-5, atol=1e-5)


def test_batch_norm_float16_input_with_float32_parameters_keeps_dtypes():
    x = ms.Tensor(r.standard_normal((4, 3)).astype(np.float16))
    y, m, s = ops.BatchNorm(is_training=True)(x, t32(np.ones(3)), t32(np.zeros(3)), t32(np.zeros(3)),
                                              t32(np.ones(3)))[:3]
    assert y.dtype == ms.float16 and m.dtype == ms.float32
    ref = bn_oracle(x.asnumpy().astype(np.float64), np.ones(3), np.zeros(3), 1e-5)[0]
    np.testing.assert_allclose(y.asnumpy(), ref, rtol=2e-3, atol=2e-3)


# ----------------------------------------------------------------------------------------------
# layer norm


def ln_oracle(x, k, gamma, beta, eps):
    axes = tuple(range(x.ndim - k, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    rs = 1 / np.sqrt(((x - mu) ** 2).mean(axis=axes, keepdims=True) + eps)
    return (x - mu) * rs * gamma + beta, mu, rs


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_layer_norm_matches_reference_and_keeps_dtype(dtype):
    x = r.standard_normal((2, 3, 4, 5)) * 3 + 1
    g, b = r.random((4, 5)) + 0.5, r.standard_normal((4, 5))
    y = ops.layer_norm(ms.Tensor(x.astype(dtype)), (4, 5), ms.Tensor(g.astype(dtype)), ms.Tensor(b.astype(dtype)),
                       eps=1e-5)
    assert y.dtype == ms.Tensor(x.astype(dtype)).dtype
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y.asnumpy(), ln_oracle(x, 2, g, b, 1e-5)[0], rtol=tol, atol=tol)
    y_plain = ops.layer_norm(ms.Tensor(x.astype(dtype)), 5)
    np.testing.assert_allclose(y_plain.asnumpy(), ln_oracle(x, 1, 1.0, 0.0, 1e-5)[0], rtol=tol, atol=tol)


def test_layer_norm_gradients_match_the_chain_rule():
    x, dy = r.standard_normal((6, 7)), r.standard_normal((6, 7))
    g, b = r.random(7) + 0.5, r.standard_normal(7)
    dx, dg, db = vjp(lambda x, g, b: ops.layer_norm(x, (7,), g, b, 1e-5), (t32(x), t32(g), t32(b)), t32(dy),
                     (0, 1, 2))
    _, mu, rs = ln_oracle(x, 1, g, b, 1e-5)
    xhat = (x - mu) * rs
    dxhat = dy * g
    rdx = rs * (dxhat - dxhat.mean(axis=1, keepdims=True) - xhat * (dxhat * xhat).mean(axis=1, keepdims=True))
    np.testing.assert_allclose(dx.asnumpy(), rdx, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(dg.asnumpy(), (dy * xhat).sum(axis=0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db.asnumpy(), dy.sum(axis=0), rtol=1e-4, atol=1e-4)


def test_layer_norm_class_returns_mean_and_rstd_with_kept_axes():
    x = r.standard_normal((2, 3, 4))
    y, mean, rstd = ops.LayerNorm(begin_norm_axis=1, begin_params_axis=1)(t32(x), t32(np.ones((3, 4))),
                                                                         t32(np.zeros((3, 4))))
    ry, mu, rs = ln_oracle(x, 2, 1.0, 0.0, 1e-7)
    assert mean.shape == (2, 1, 1) and rstd.shape == (2, 1, 1)
    np.testing.assert_allclose(mean.asnumpy(), mu, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd.asnumpy(), rs, rtol=1e-4)
    np.testing.assert_allclose(y.asnumpy(), ry, rtol=1e-4, atol=1e-4)


def test_layer_norm_errors_name_the_op_and_the_shapes():
    with pytest.raises(ShapeError) as e:
        ops.layer_norm(t32(np.zeros((2, 3, 4))), (3,))
    assert "layer_norm" in str(e.value) and "(3,)" in str(e.value) and "(2, 3, 4)" in str(e.value)
    with pytest.raises(ShapeError, match=r"LayerNorm: expected gamma of shape \(4,\)"):
        ops.LayerNorm(-1, -1)(t32(np.zeros((2, 4))), t32(np.ones(5)), t32(np.zeros(4)))


# ----------------------------------------------------------------------------------------------
# cross entropy


def ce_oracle(x, y, w=None, ignore=-100, ls=0.0):
    """Per-row losses and the 'mean' divisor, PyTorch/MindSpore definition with (N, C) logits."""
    n, c = x.shape
    lp = log_softmax(x)
    wv = np.ones(c) if w is None else np.asarray(w, np.float64)
    loss, den = np.zeros(n), 0.0
    for i in range(n):
        if y[i] == ignore:
            continue
        loss[i] = -(1 - ls) * wv[y[i]] * lp[i, y[i]] - ls / c * (wv * lp[i]).sum()
        den += wv[y[i]]
    return loss, den


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ls", [0.0, 0.3])
def test_cross_entropy_with_class_indices_matches_reference(weighted, ls):
    x = r.standard_normal((9, 6)) * 3
    y = r.integers(0, 6, 9)
    y[[2, 5]] = -100
    w = r.random(6) + 0.5 if weighted else None
    loss, den = ce_oracle(x, y, w, -100, ls)
    args = dict(weight=t32(w) if weighted else None, label_smoothing=ls)
    out = {red: ops.cross_entropy(t32(x), ms.Tensor(y), reduction=red, **args).asnumpy()
           for red in ("none", "sum", "mean")}
    np.testing.assert_allclose(out["none"], loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out["sum"], loss.sum(), rtol=1e-5)
    np.testing.assert_allclose(out["mean"], loss.sum() / den, rtol=1e-5)


def test_cross_entropy_gradient_matches_the_analytic_form():
    x = r.standard_normal((7, 5)) * 2
    y = np.array([0, 4, -100, 2, 2, 1, 3])
    w = r.random(5) + 0.5
    (dx,) = vjp(lambda x: ops.cross_entropy(x, ms.Tensor(y), t32(w), reduction="mean", label_smoothing=0.1),
                (t32(x),), t32(2.0), (0,))
    _, den = ce_oracle(x, y, w, -100, 0.1)
    p = np.exp(log_softmax(x))
    ref = np.zeros_like(x)
    for i in range(7):
        if y[i] != -100:
            tgt = 0.1 / 5 * w
            tgt[y[i]] += 0.9 * w[y[i]]
            ref[i] = 2.0 / den * (p[i] * tgt.sum() - tgt)
    np.testing.assert_allclose(dx.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_cross_entropy_with_probability_targets_smoothing_and_weight():
    x = r.standard_normal((5, 4))
    tgt = r.random((5, 4))
    tgt /= tgt.sum(axis=1, keepdims=True)
    w = r.random(4) + 0.5
    out = ops.cross_entropy(t32(x), t32(tgt), t32(w), reduction="mean", label_smoothing=0.2).asnumpy()
    smooth = tgt * 0.8 + 0.2 / 4
    ref = -(w * smooth * log_softmax(x)).sum(axis=1).mean()  # 'mean' divides by the rows, not the weights
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    (dt,) = vjp(lambda t: ops.cross_entropy(t32(x), t, reduction="sum"), (t32(tgt),), t32(1.0), (0,))
    np.testing.assert_allclose(dt.asnumpy(), -log_softmax(x), rtol=1e-5, atol=1e-6)


def test_cross_entropy_on_spatial_and_unbatched_inputs():
    x = r.standard_normal((2, 3, 4, 5))
    y = r.integers(0, 3, (2, 4, 5))
    out = ops.cross_entropy(t32(x), ms.Tensor(y), reduction="none").asnumpy()
    rows = x.transpose(0, 2, 3, 1).reshape(-1, 3)
    ref = ce_oracle(rows, y.reshape(-1))[0].reshape(2, 4, 5)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    one = ops.cross_entropy(t32(x[0, :, 0, 0]), ms.Tensor(np.array(y[0, 0, 0])), reduction="none")
    assert one.shape == ()
    np.testing.assert_allclose(one.asnumpy(), ref[0, 0, 0], rtol=1e-5)


def test_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1e4, -1e4, 0.0], [-3e4, 3e4 - 5.0, 3e4]], np.float32)
    loss = ops.cross_entropy(ms.Tensor(x), ms.Tensor(np.array([1, 1])), reduction="none").asnumpy()
    np.testing.assert_allclose(loss, [2e4, 5.0 + np.log1p(np.exp(-5.0))], rtol=1e-6)
    (dx,) = vjp(lambda x: ops.cross_entropy(x, ms.Tensor(np.array([1, 1])), reduction="sum"), (ms.Tensor(x),),
                t32(1.0), (0,))
    assert np.isfinite(dx.asnumpy()).all()
    np.testing.assert_allclose(dx.asnumpy()[0], [1.0, -1.0, 0.0], atol=1e-6)


def test_cross_entropy_mean_over_only_ignored_rows_is_nan():
    out = ops.cross_entropy(t32(np.zeros((2, 3))), ms.Tensor(np.array([-100, -100])))
    assert np.isnan(out.asnumpy())


def test_cross_entropy_errors_name_the_op_and_the_shapes():
    with pytest.raises(ShapeError) as e:
        ops.cross_entropy(t32(np.zeros((4, 10))), ms.Tensor(np.zeros(5, np.int64)))
    msg = str(e.value)
    assert "SparseSoftmaxCrossEntropyWithLogits" in msg and "(4,)" in msg and "(5,)" in msg and "(4, 10)" in msg
    assert e.value.loc.file == __file__
    with pytest.raises(ShapeError) as e:
        ops.cross_entropy(t32(np.zeros((3, 4))), ms.Tensor(np.array([0, 4, 1])))
    assert "label 4 at position (1,)" in str(e.value) and "[0, 4)" in str(e.value)
    assert e.value.loc.file == __file__
    with pytest.raises(ShapeError, match="probability target of the shape of input"):
        ops.cross_entropy(t32(np.zeros((3, 4))), t32(np.zeros((3, 5))))
    with pytest.raises(ValueError, match="reduction must be one of"):
        ops.cross_entropy(t32(np.zeros((3, 4))), ms.Tensor(np.array([0, 1, 2])), reduction="avg")


def test_softmax_cross_entropy_class_returns_loss_and_backprop():
    x = r.standard_normal((4, 5))
    lab = np.eye(5)[[1, 0, 4, 4]]
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(t32(x), t32(lab))
    np.testing.assert_allclose(loss.asnumpy(), -(lab * log_softmax(x)).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(backprop.asnumpy(), np.exp(log_softmax(x)) - lab, rtol=1e-5, atol=1e-6)


def test_sparse_softmax_cross_entropy_class_mean_loss_and_gradient():
    x, y = r.standard_normal((4, 5)), np.array([1, 0, 4, 4])
    op = ops.SparseSoftmaxCrossEntropyWithLogits()
    np.testing.assert_allclose(op(t32(x), ms.Tensor(y)).asnumpy(), ce_oracle(x, y)[0].mean(), rtol=1e-5)
    g = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(t32(x), ms.Tensor(y)).asnumpy()
    np.testing.assert_allclose(g, (np.exp(log_softmax(x)) - np.eye(5)[y]) / 4, rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# nll


def test_nll_loss_matches_reference_with_weights_and_ignore_index():
    lp = log_softmax(r.standard_normal((6, 4)))
    y = np.array([0, 3, -100, 1, 1, 2])
    w = r.random(4) + 0.5
    out = ops.nll_loss(t32(lp), ms.Tensor(y), t32(w)).asnumpy()
    valid = y != -100
    picked = -w[y[valid]] * lp[valid, y[valid]]
    np.testing.assert_allclose(out, picked.sum() / w[y[valid]].sum(), rtol=1e-5)
    (dx,) = vjp(lambda a: ops.nll_loss(a, ms.Tensor(y), t32(w), reduction="sum"), (t32(lp),), t32(1.0), (0,))
    ref = np.zeros((6, 4))
    ref[np.flatnonzero(valid), y[valid]] = -w[y[valid]]
    np.testing.assert_allclose(dx.asnumpy(), ref, rtol=1e-6)
    loss, total = ops.NLLLoss(reduction="sum")(t32(lp), ms.Tensor(y), t32(w))
    np.testing.assert_allclose(total.asnumpy(), w[y[valid]].sum(), rtol=1e-6)
    np.testing.assert_allclose(loss.asnumpy(), picked.sum(), rtol=1e-5)


# ----------------------------------------------------------------------------------------------
# binary losses


def test_bce_with_logits_matches_reference_with_weight_and_pos_weight():
    x = r.standard_normal((4, 3)) * 3
    y = r.random((4, 3))
    w, pw = r.random(3) + 0.5, r.random(3) + 1.0
    out = ops.binary_cross_entropy_with_logits(t32(x), t32(y), t32(w), t32(pw), reduction="none").asnumpy()
    s = 1 / (1 + np.exp(-x))
    ref = -w * (pw * y * np.log(s) + (1 - y) * np.log(1 - s))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    (dx,) = vjp(lambda a: ops.binary_cross_entropy_with_logits(a, t32(y), t32(w), t32(pw), reduction="mean"),
                (t32(x),), t32(1.0), (0,))
    np.testing.assert_allclose(dx.asnumpy(), w * ((1 - y) * s - pw * y * (1 - s)) / 12, rtol=1e-5, atol=1e-6)


def test_bce_with_logits_stays_finite_for_extreme_logits():
    x = t32([[-200.0, 200.0, 90.0]])
    out = ops.binary_cross_entropy_with_logits(x, t32([[1.0, 0.0, 1.0]]), reduction="none").asnumpy()
    np.testing.assert_allclose(out, [[200.0, 200.0, 0.0]], atol=1e-6)


def test_binary_cross_entropy_matches_reference_and_clamps_logs():
    p, y, w = r.uniform(0.05, 0.95, (3, 4)), r.random((3, 4)), r.random((3, 4)) + 0.5
    out = ops.binary_cross_entropy(t32(p), t32(y), t32(w)).asnumpy()
    np.testing.assert_allclose(out, np.mean(-w * (y * np.log(p) + (1 - y) * np.log(1 - p))), rtol=1e-5)
    (dp,) = vjp(lambda a: ops.binary_cross_entropy(a, t32(y), reduction="sum"), (t32(p),), t32(1.0), (0,))
    np.testing.assert_allclose(dp.asnumpy(), (p - y) / (p * (1 - p)), rtol=1e-4)
    edge = ops.binary_cross_entropy(t32([0.0, 1.0]), t32([1.0, 0.0]), reduction="none").asnumpy()
    np.testing.assert_allclose(edge, [100.0, 100.0])


# ----------------------------------------------------------------------------------------------
# regression losses


@pytest.mark.parametrize("name", ["mse", "l1", "smooth_l1"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_regression_losses_and_gradients_match_reference(name, reduction):
    x, y = r.standard_normal((4, 5)) * 2, r.standard_normal((4, 5))
    d = x - y
    if name == "mse":
        fn, elem, grad = ops.mse_loss, d ** 2, 2 * d
    elif name == "l1":
        fn, elem, grad = ops.l1_loss, np.abs(d), np.sign(d)
    else:
        fn = lambda a, b, reduction: ops.smooth_l1_loss(a, b, beta=0.8, reduction=reduction)  # noqa: E731
        elem = np.where(np.abs(d) < 0.8, 0.5 * d * d / 0.8, np.abs(d) - 0.4)
        grad = np.where(np.abs(d) < 0.8, d / 0.8, np.sign(d))
    out = fn(t32(x), t32(y), reduction=reduction).asnumpy()
    ref = {"none": elem, "mean": elem.mean(), "sum": elem.sum()}[reduction]
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    sens = r.standard_normal(d.shape) if reduction == "none" else np.array(1.5)
    dx, dy = vjp(lambda a, b: fn(a, b, reduction=reduction), (t32(x), t32(y)), t32(sens), (0, 1))
    scale = sens if reduction == "none" else sens / (d.size if reduction == "mean" else 1)
    np.testing.assert_allclose(dx.asnumpy(), scale * grad, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dy.asnumpy(), -scale * grad, rtol=1e-5, atol=1e-6)


def test_mse_loss_broadcasts_and_reduces_the_gradient_to_each_shape():
    x, y = r.standard_normal((3, 1)), r.standard_normal(4)
    dx, dy = vjp(lambda a, b: ops.mse_loss(a, b, reduction="sum"), (t32(x), t32(y)), t32(1.0), (0, 1))
    d = x - y
    np.testing.assert_allclose(dx.asnumpy(), (2 * d).sum(axis=1, keepdims=True), rtol=1e-5)
    np.testing.assert_allclose(dy.asnumpy(), (-2 * d).sum(axis=0), rtol=1e-5)


# ----------------------------------------------------------------------------------------------
# dropout


def test_dropout_is_reproducible_under_set_seed():
    x = t32(np.ones((50, 40)))
    ms.set_seed(123)
    a, b = ops.dropout(x, 0.4).asnumpy(), ops.dropout(x, 0.4).asnumpy()
    ms.set_seed(123)
    a2, b2 = ops.dropout(x, 0.4).asnumpy(), ops.dropout(x, 0.4).asnumpy()
    np.testing.assert_array_equal(a, a2)
    np.testing.assert_array_equal(b, b2)
    assert not np.array_equal(a, b)


def test_dropout_scales_kept_values_so_the_expectation_is_the_input():
    x = np.full((400, 500), 3.0, np.float32)
    out = ops.dropout(ms.Tensor(x), p=0.3).asnumpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], np.float32(3.0) * np.float32(1 / 0.7), rtol=1e-6)
    n = x.size
    assert abs(kept.mean() - 0.7) < 4 * np.sqrt(0.7 * 0.3 / n)      # 4 sigma
    assert abs(out.mean() - 3.0) < 4 * 3.0 / 0.7 * np.sqrt(0.7 * 0.3 / n)


def test_dropout_gradient_is_the_same_mask_over_keep_prob():
    x = r.standard_normal((30, 20))
    sens = r.standard_normal((30, 20))
    ms.set_seed(9)
    y = ops.dropout(t32(x), p=0.5).asnumpy()
    ms.set_seed(9)
    (dx,) = vjp(lambda a: ops.dropout(a, p=0.5), (t32(x),), t32(sens), (0,))
    mask = (y != 0).astype(np.float64)
    assert 0 < mask.mean() < 1
    np.testing.assert_allclose(dx.asnumpy(), sens * mask * 2.0, rtol=1e-6)


def test_dropout_outside_training_or_at_the_extremes():
    x = t32(r.standard_normal((3, 4)))
    assert ops.dropout(x, 0.5, training=False) is x
    assert ops.dropout(x, 0.0) is x
    np.testing.assert_array_equal(ops.dropout(x, 1.0).asnumpy(), np.zeros((3, 4)))
    with pytest.raises(ValueError, match="p must be in"):
        ops.dropout(x, 1.5)


def test_dropout_with_an_explicit_seed_depends_on_the_seed_alone():
    x = t32(np.ones((20, 20)))
    ms.set_seed(1)
    a = ops.dropout(x, 0.5, seed=42).asnumpy()
    ms.set_seed(2)
    b = ops.dropout(x, 0.5, seed=42).asnumpy()
    c = ops.dropout(x, 0.5, seed=43).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_dropout_class_returns_the_keep_mask_and_seeded_instances_repeat():
    x = t32(r.standard_normal((10, 10)) + 5.0)
    out, mask = ops.Dropout(keep_prob=0.8)(x)
    assert mask.dtype == ms.float32 and set(np.unique(mask.asnumpy())) <= {0.0, 1.0}
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * mask.asnumpy() / 0.8, rtol=1e-6)
    other_instance_first = ops.Dropout(0.5, Seed0=3, Seed1=4)(x)[1].asnumpy()
    op = ops.Dropout(0.5, Seed0=3, Seed1=4)
    first, second = op(x)[1].asnumpy(), op(x)[1].asnumpy()
    np.testing.assert_array_equal(first, other_instance_first)   # same seeds: same sequence of masks
    assert not np.array_equal(first, second)                      # but a fresh mask on each call


# ----------------------------------------------------------------------------------------------
# embedding


def test_embedding_lookup_and_gradient_with_repeated_ids():
    table = r.standard_normal((6, 4))
    ids = np.array([[1, 5, 1], [0, 1, 5]])
    out = ops.embedding(ms.Tensor(ids), t32(table))
    np.testing.assert_allclose(out.asnumpy(), table[ids].astype(np.float32))
    sens = r.standard_normal((2, 3, 4))
    (dw,) = vjp(lambda w: ops.embedding(ms.Tensor(ids), w), (t32(table),), t32(sens), (0,))
    ref = np.zeros((6, 4))
    np.add.at(ref, ids.ravel(), sens.reshape(-1, 4))
    np.testing.assert_allclose(dw.asnumpy(), ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_embedding_padding_idx_and_scale_grad_by_freq(dtype):
    table = r.standard_normal((5, 3)).astype(dtype)
    ids = np.array([4, 2, 4, 0, 4])
    sens = r.standard_normal((5, 3)).astype(dtype)
    (dw,) = vjp(lambda w: ops.embedding(ms.Tensor(ids), w, padding_idx=-1, scale_grad_by_freq=True),
                (ms.Tensor(table),), ms.Tensor(sens), (0,))
    ref = np.zeros((5, 3))
    ref[2] = sens[1]
    ref[0] = sens[3]              # row 4 is the padding row (-1 -> 4): no gradient
    assert dw.dtype == ms.Tensor(table).dtype
    np.testing.assert_allclose(dw.asnumpy(), ref, rtol=1e-6, atol=1e-7)
    (dw2,) = vjp(lambda w: ops.embedding(ms.Tensor(ids), w, scale_grad_by_freq=True), (ms.Tensor(table),),
                 ms.Tensor(sens), (0,))
    np.testing.assert_allclose(dw2.asnumpy()[4], sens[[0, 2, 4]].sum(axis=0) / 3, rtol=1e-6)


def test_embedding_max_norm_renormalizes_looked_up_rows_in_place():
    table = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)
    w = ms.Parameter(table.copy(), name="table")
    out = ops.embedding(ms.Tensor(np.array([0, 1])), w, max_norm=1.0)
    np.testing.assert_allclose(w.asnumpy()[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy()[1], [0.3, 0.4])
    np.testing.assert_allclose(w.asnumpy()[2], [6.0, 8.0])  # not looked up: untouched
    np.testing.assert_allclose(out.asnumpy(), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


def test_embedding_errors_name_the_op_and_the_bad_index():
    with pytest.raises(ShapeError) as e:
        ops.embedding(ms.Tensor(np.array([[0, 7]])), t32(np.zeros((5, 2))))
    assert "Embedding" in str(e.value) and "[0, 5)" in str(e.value) and "index 7 at position (0, 1)" in str(e.value)
    assert e.value.loc.file == __file__
    with pytest.raises(DTypeError, match="integer indices"):
        ops.embedding(t32([0.0, 1.0]), t32(np.zeros((5, 2))))
    with pytest.raises(ValueError, match="padding_idx must be in"):
        ops.embedding(ms.Tensor(np.array([0])), t32(np.zeros((5, 2))), padding_idx=5)
