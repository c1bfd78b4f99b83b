"""spore.quant: per-channel round trips vs NumPy, int4 packing, int8 GEMM vs an int32 oracle,
weight-only quantization of the digits LeNet (accuracy and file size)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import spore as ms
from spore import nn
from spore.errors import SporeError
from spore.quant import (
    dequantize_per_channel,
    int8_matmul,
    load_quantized,
    pack_int4,
    quantize_per_channel,
    quantize_weights,
    save_quantized,
    unpack_int4,
)


@pytest.mark.parametrize("bits,qmax", [(8, 127), (4, 7)])
def test_round_trip_error_bound(bits: int, qmax: int) -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(16, 3, 3, 3)).astype(np.float32) * rng.uniform(0.01, 5, size=(16, 1, 1, 1))
    q, s = quantize_per_channel(w, bits)
    amax = np.abs(w).reshape(16, -1).max(axis=1)
    np.testing.assert_allclose(s, amax / qmax, rtol=1e-6)
    assert q.dtype == np.int8 and q.min() >= -qmax and q.max() <= qmax
    err = np.abs(dequantize_per_channel(q, s) - w).reshape(16, -1).max(axis=1)
    assert np.all(err <= s / 2 * (1 + 1e-5))
    # the largest element of each channel is exact up to float rounding
    assert np.all(np.abs(q).reshape(16, -1).max(axis=1) == qmax)


def test_zero_channel_and_bad_bits() -> None:
    w = np.zeros((2, 4), np.float32)
    w[1] = 1.0
    q, s = quantize_per_channel(w)
    assert s[0] == 1.0 and np.all(q[0] == 0)
    with pytest.raises(SporeError, match="bit_num must be 8 or 4"):
        quantize_per_channel(w, 3)


def test_int4_pack_round_trip_and_size() -> None:
    rng = np.random.default_rng(1)
    q = rng.integers(-8, 8, size=(7, 5)).astype(np.int8)
    packed = pack_int4(q)
    assert packed.dtype == np.uint8 and packed.size == 18
    np.testing.assert_array_equal(unpack_int4(packed, (7, 5)), q)
    assert packed[0] == ((int(q.flat[0]) & 15) | ((int(q.flat[1]) & 15) << 4))
    with pytest.raises(SporeError, match="-8..7"):
        pack_int4(np.array([9], np.int8))


def test_int8_matmul_equals_int32_oracle() -> None:
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, size=(33, 300)).astype(np.int8)
    b = rng.integers(-128, 128, size=(300, 17)).astype(np.int8)
    out = int8_matmul(a, b)
    oracle = np.array([[sum(int(a[i, k]) * int(b[k, j]) for k in range(300)) for j in range(17)]
                       for i in range(33)], dtype=np.int64)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.astype(np.int64), oracle)
    with pytest.raises(SporeError, match="int8 inputs"):
        int8_matmul(a.astype(np.int16), b)


def _train_lenet() -> tuple[nn.Cell, np.ndarray, np.ndarray, float]:
    from examples.train_digits import LeNet, accuracy, load_split  # type: ignore[import-not-found]

    ms.set_seed(0)
    x_tr, x_te, y_tr, y_te = load_split(0)
    net = LeNet()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Adam(net.trainable_params(), learning_rate=0.003)
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    rng = np.random.default_rng(0)
    for _ in range(6):
        idx = rng.permutation(len(x_tr))
        for i in range(0, len(idx), 32):
            b = idx[i:i + 32]
            _, g = grad_fn(ms.Tensor(x_tr[b]), ms.Tensor(y_tr[b]))
            opt(g)
    return net, x_te, y_te, accuracy(net, x_te, y_te)


def test_weight_quant_digits_accuracy_and_size(tmp_path) -> None:
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
    from examples.train_digits import LeNet, accuracy  # type: ignore[import-not-found]

    net, x_te, y_te, acc_fp = _train_lenet()
    assert acc_fp > 0.85
    ckpt = str(tmp_path / "fp.ckpt")
    ms.save_checkpoint(net, ckpt)
    fp_weights = {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}
    sizes = {}
    for bits in (8, 4):
        qnet = LeNet()
        ms.load_param_into_net(qnet, {n: ms.Parameter(ms.Tensor(v), n) for n, v in fp_weights.items()})
        table = quantize_weights(qnet, bits)
        acc_q = accuracy(qnet, x_te, y_te)
        if bits == 8:
            assert acc_fp - acc_q < 0.01, (acc_fp, acc_q)
        path = save_quantized(qnet, table, str(tmp_path / f"w{bits}"))
        sizes[bits] = os.path.getsize(path)
        fresh = load_quantized(LeNet(), path)
        np.testing.assert_array_equal(fresh(ms.Tensor(x_te[:20])).asnumpy(), qnet(ms.Tensor(x_te[:20])).asnumpy())
    fp_size = os.path.getsize(ckpt)
    # small nets carry per-record overhead (names, biases, scales): int8 >= 3x, int4 >= 5x here
    assert fp_size / sizes[8] > 3.0, (fp_size, sizes)
    assert fp_size / sizes[4] > 5.0, (fp_size, sizes)


def test_load_non_model_file(tmp_path) -> None:
    from examples.train_digits import LeNet  # type: ignore[import-not-found]

    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(SporeError, match="not a Spore quantized model file"):
        load_quantized(LeNet(), str(bad))
