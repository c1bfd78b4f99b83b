"""The small nn Cells of nn/layer/misc_cells.py (issue 14) against NumPy/SciPy formulas."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

import spore as ms
from spore import nn

RNG = np.random.default_rng(7)


def T(a):  # noqa: N802
    return ms.Tensor(np.asarray(a))


def test_channel_dropout_zeroes_whole_channels_in_training_only():
    x = RNG.standard_normal((4, 6, 5, 5)).astype(np.float32) + 5.0
    cell = nn.Dropout2d(0.5)
    np.testing.assert_array_equal(cell.set_train(False)(T(x)).asnumpy(), x)
    y = cell.set_train(True)(T(x)).asnumpy()
    per_channel = y.reshape(4, 6, -1)
    zero = (per_channel == 0).all(-1)
    kept = ~zero
    assert zero.any() and kept.any()
    np.testing.assert_allclose(per_channel[kept], 2 * x.reshape(4, 6, -1)[kept], rtol=1e-6)
    with pytest.raises(ValueError, match="Dropout3d: p"):
        nn.Dropout3d(1.5)


@pytest.mark.parametrize("cls,shape", [(nn.InstanceNorm1d, (2, 3, 7)), (nn.InstanceNorm2d, (2, 3, 4, 5)),
                                       (nn.InstanceNorm3d, (1, 3, 2, 3, 4))])
def test_instance_norm(cls, shape):
    x = RNG.standard_normal(shape)
    cell = cls(3, eps=1e-3, gamma_init=T(np.array([1.0, 2.0, 0.5], np.float32)), beta_init="zeros",
               dtype=ms.float64)
    axes = tuple(range(2, len(shape)))
    ref = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-3)
    ref = ref * np.array([1.0, 2.0, 0.5]).reshape((1, 3) + (1,) * len(axes))
    np.testing.assert_allclose(cell(T(x)).asnumpy(), ref, rtol=1e-10)
    names = {p.name for p in cell.get_parameters()}
    assert {"gamma", "beta", "mean", "variance"} <= {n.split(".")[-1] for n in names}


def test_utilities():
    x = RNG.standard_normal((3, 4))
    np.testing.assert_array_equal(nn.Tril()(T(x), 1).asnumpy(), np.tril(x, 1))
    np.testing.assert_array_equal(nn.Triu()(T(x), -1).asnumpy(), np.triu(x, -1))
    np.testing.assert_array_equal(nn.Roll((1, -1), (0, 1))(T(x)).asnumpy(), np.roll(x, (1, -1), (0, 1)))
    np.testing.assert_array_equal(nn.Range(2, 11, 3)().asnumpy(), np.arange(2, 11, 3))
    assert nn.Range(2, 11, 3)().dtype == ms.int32 and nn.Range(1.5)().dtype == ms.float32
    oh = nn.OneHot(axis=0, depth=3, on_value=5.0, off_value=-1.0)(T(np.array([2, 0], np.int32))).asnumpy()
    np.testing.assert_array_equal(oh, [[-1, 5], [-1, -1], [5, -1]])
    for mode, npmode in (("CONSTANT", "constant"), ("REFLECT", "reflect"), ("SYMMETRIC", "symmetric")):
        np.testing.assert_array_equal(nn.Pad(((1, 2), (2, 1)), mode)(T(x)).asnumpy(),
                                      np.pad(x, ((1, 2), (2, 1)), mode=npmode))
    m, v = nn.Moments(1, True)(T(x))
    np.testing.assert_allclose(m.asnumpy(), x.mean(1, keepdims=True))
    np.testing.assert_allclose(v.asnumpy(), x.var(1, keepdims=True))
    np.testing.assert_allclose(nn.Norm(1)(T(x)).asnumpy(), np.linalg.norm(x, axis=1))
    c = nn.ClipByNorm()(T(x), 0.5).asnumpy()
    np.testing.assert_allclose(c, x * 0.5 / max(np.linalg.norm(x), 0.5), rtol=1e-12)
    np.testing.assert_allclose(nn.ReduceLogSumExp(0)(T(x)).asnumpy(), special.logsumexp(x, 0))
    a = RNG.standard_normal((2, 3, 4))
    b = RNG.standard_normal((4, 5, 3))
    np.testing.assert_allclose(nn.MatMul(False, True)(T(a[:1]), T(b[:, :4].transpose(0, 2, 1)[:, :, :4])).asnumpy()
                               .shape, (4, 3, 3))
    np.testing.assert_allclose(nn.MatMul(True, False)(T(a), T(a)).asnumpy(), a.transpose(0, 2, 1) @ a)


def test_matrix_cells():
    d = RNG.standard_normal((2, 3))
    np.testing.assert_array_equal(nn.MatrixDiag()(T(d)).asnumpy(), np.stack([np.diag(r) for r in d]))
    x = RNG.standard_normal((2, 3, 5))
    np.testing.assert_array_equal(nn.MatrixDiagPart()(T(x)).asnumpy(), np.stack([np.diag(m) for m in x]))
    s = nn.MatrixSetDiag()(T(x), T(d)).asnumpy()
    ref = x.copy()
    for i in range(2):
        ref[i][np.arange(3), np.arange(3)] = d[i]
    np.testing.assert_array_equal(s, ref)
    sq = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    np.testing.assert_allclose(nn.MatDet()(T(sq)).asnumpy(), np.linalg.det(sq), rtol=1e-10)
    np.testing.assert_allclose(nn.MatInverse()(T(sq)).asnumpy(), np.linalg.inv(sq), rtol=1e-10)


def test_image_cells_and_pads():
    x = RNG.standard_normal((1, 2, 3, 4, 5))
    np.testing.assert_array_equal(nn.ReflectionPad3d((1, 2, 0, 1, 2, 1))(T(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (2, 1), (0, 1), (1, 2)), mode="reflect"))
    np.testing.assert_array_equal(nn.ReplicationPad3d(1)(T(x)).asnumpy(),
                                  np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1), (1, 1)), mode="edge"))
    img = RNG.random((2, 3, 8, 10))
    np.testing.assert_array_equal(nn.CentralCrop(0.5)(T(img)).asnumpy(), img[..., 2:6, 2:8])
    dy, dx = nn.ImageGradients()(T(img))
    ref_dy = np.concatenate([np.diff(img, axis=2), np.zeros((2, 3, 1, 10))], 2)
    ref_dx = np.concatenate([np.diff(img, axis=3), np.zeros((2, 3, 8, 1))], 3)
    np.testing.assert_allclose(dy.asnumpy(), ref_dy)
    np.testing.assert_allclose(dx.asnumpy(), ref_dx)
    other = np.clip(img + RNG.normal(0, 0.05, img.shape), 0, 1)
    mse = ((img - other) ** 2).mean((1, 2, 3))
    np.testing.assert_allclose(nn.PSNR()(T(img), T(other)).asnumpy(), 10 * np.log10(1 / mse), rtol=1e-5)


def test_dense_and_losses():
    ms.set_seed(0)
    lin = nn.Linear(3, 4)
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    assert lin.weight.shape == (4, 3)
    np.testing.assert_allclose(lin(T(x)).asnumpy(), x @ lin.weight.asnumpy().T + lin.bias.asnumpy(), rtol=1e-5)
    bd = nn.BiDense(3, 2, 4)
    x2 = RNG.standard_normal((5, 2)).astype(np.float32)
    ref = np.einsum("bi,oij,bj->bo", x, bd.weight.asnumpy(), x2) + bd.bias.asnumpy()
    np.testing.assert_allclose(bd(T(x), T(x2)).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    assert np.abs(bd.weight.asnumpy()).max() <= 1 / np.sqrt(3)
    p, t = RNG.random((4, 5)), (RNG.random((4, 5)) > 0.5).astype(np.float64)
    ref = 1 - 2 * (p * t).sum() / ((p * p).sum() + (t * t).sum() + 1e-5)
    np.testing.assert_allclose(nn.DiceLoss()(T(p), T(t)).asnumpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(nn.L1Regularizer(0.3)(T(p)).asnumpy(), 0.3 * np.abs(p).sum(), rtol=1e-12)
    logits = RNG.standard_normal((3, 4))
    y = np.array([1, 0, 3])
    ref = np.mean([np.sum([max(0, 1 - logits[i, y[i]] + logits[i, j]) for j in range(4) if j != y[i]]) / 4
                   for i in range(3)])
    np.testing.assert_allclose(nn.MultiMarginLoss()(T(logits), T(y.astype(np.int32))).asnumpy(), ref, rtol=1e-12)


def test_special_function_cells():
    a, x = RNG.uniform(0.5, 3, 5), RNG.uniform(0.5, 3, 5)
    np.testing.assert_allclose(nn.LGamma()(T(a)).asnumpy(), special.gammaln(a), rtol=1e-10)
    np.testing.assert_allclose(nn.DiGamma()(T(a)).asnumpy(), special.digamma(a), rtol=1e-10)
    np.testing.assert_allclose(nn.IGamma()(T(a), T(x)).asnumpy(), special.gammainc(a, x), rtol=1e-8)
    np.testing.assert_allclose(nn.LBeta()(T(a), T(x)).asnumpy(), special.betaln(a, x), rtol=1e-10)


def test_multiclass_dice_loss():
    logits, label = RNG.standard_normal((4, 3)), (RNG.random((4, 3)) > 0.5).astype(np.float64)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    p = e / e.sum(-1, keepdims=True)

    def dice(a, b):
        return 1 - 2 * (a * b).sum() / ((a * a).sum() + (b * b).sum() + 1e-5)
    ref = np.mean([dice(p[:, i], label[:, i]) for i in range(3)])
    np.testing.assert_allclose(nn.MultiClassDiceLoss()(T(logits), T(label)).asnumpy(), ref, rtol=1e-10)
    ref2 = (dice(logits[:, 0], label[:, 0]) + dice(logits[:, 2], label[:, 2])) / 3
    got = nn.MultiClassDiceLoss(ignore_indiex=1, activation=None)(T(logits), T(label)).asnumpy()
    np.testing.assert_allclose(got, ref2, rtol=1e-10)


def test_triplet_embedding_lookup_parameter_update():
    a, p, n = (RNG.standard_normal((5, 3)) for _ in range(3))

    def d(x, y):
        return np.sqrt(((x - y + 1e-6) ** 2).sum(-1))
    ref = np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + 0.5, 0).sum()
    got = nn.TripletMarginWithDistanceLoss(swap=True, reduction="sum", margin=0.5)(T(a), T(p), T(n)).asnumpy()
    np.testing.assert_allclose(got, ref, rtol=1e-10)
    l1 = nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: (x - y).abs().sum(-1))
    np.testing.assert_allclose(l1(T(a), T(p), T(n)).asnumpy(),
                               np.maximum(np.abs(a - p).sum(-1) - np.abs(a - n).sum(-1) + 1, 0).mean(), rtol=1e-10)
    emb = nn.EmbeddingLookup(6, 4, max_norm=0.5, dtype=ms.float64)
    idx = np.array([[0, 5], [2, 2]], np.int32)
    table = emb.embedding_table.asnumpy()
    rows = table[idx]
    norms = np.linalg.norm(rows, axis=-1, keepdims=True)
    np.testing.assert_allclose(emb(T(idx)).asnumpy(), rows * np.minimum(1, 0.5 / norms), rtol=1e-10)
    param = ms.Parameter(np.zeros(3), name="p")
    out = nn.ParameterUpdate(param)(T(np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(param.asnumpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 2.0, 3.0])
