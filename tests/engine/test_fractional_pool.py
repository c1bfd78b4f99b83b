"""Fractional max/avg pooling (issue 14, vision slice): the region rules (PyTorch's fixed-kernel
starts, TensorFlow's random / pseudo-random boundaries), outputs that are the max (mean) of their
regions by a loop-based NumPy oracle, indices, and gradients that route to each region's argmax."""

from __future__ import annotations

import numpy as np
import pytest

import spore as ms
from spore import nn, ops

T = ms.Tensor


def starts_ref(u: np.float32, in_size: int, out: int, k: int) -> list[int]:
    if out == 1:
        return [in_size - k]
    alpha = np.float32(in_size - k) / np.float32(out - 1)
    return [int((np.float32(i) + u) * alpha) - int(u * alpha) for i in range(out - 1)] + [in_size - k]


def fixed_pool_ref(x: np.ndarray, k: tuple, out: tuple, samples: np.ndarray):
    n, c, *sp = x.shape
    nd = len(k)
    y = np.zeros((n, c, *out), x.dtype)
    idx = np.zeros((n, c, *out), np.int64)
    for b in range(n):
        for ch in range(c):
            s = samples[min(b, samples.shape[0] - 1), ch]
            u = s[::-1] if nd == 2 else s  # 2-D samples are (w, h)
            st = [starts_ref(u[d], sp[d], out[d], k[d]) for d in range(nd)]
            for pos in np.ndindex(*out):
                lo = [st[d][pos[d]] for d in range(nd)]
                win = x[(b, ch, *[slice(lo[d], lo[d] + k[d]) for d in range(nd)])]
                j = int(np.argmax(win))
                y[(b, ch, *pos)] = win.reshape(-1)[j]
                idx[(b, ch, *pos)] = np.ravel_multi_index(
                    tuple(lo[d] + off for d, off in enumerate(np.unravel_index(j, win.shape))), sp)
    return y, idx


def route(shape: tuple, idx: np.ndarray, probe: np.ndarray) -> np.ndarray:
    """The gradient of sum(max * probe): probe scattered to the argmax of each window."""
    n, c = shape[:2]
    g = np.zeros((n, c, int(np.prod(shape[2:]))))
    for b in range(n):
        for ch in range(c):
            np.add.at(g[b, ch], idx[b, ch].reshape(-1), probe[b, ch].reshape(-1))
    return g.reshape(shape)


def test_fractional_max_pool2d_matches_oracle_and_routes_gradient():
    r = np.random.default_rng(0)
    x = r.standard_normal((2, 3, 9, 8)).astype(np.float32)
    s = r.random((2, 3, 2)).astype(np.float32)
    y, idx = ops.fractional_max_pool2d(T(x), (2, 3), (4, 3), return_indices=True, _random_samples=T(s))
    want_y, want_idx = fixed_pool_ref(x, (2, 3), (4, 3), s)
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    assert idx.dtype == ms.int64
    probe = r.standard_normal((2, 3, 4, 3)).astype(np.float32)
    g = ms.grad(lambda a: (ops.fractional_max_pool2d(a, (2, 3), (4, 3), _random_samples=T(s)) * T(probe)).sum())(T(x))
    np.testing.assert_allclose(g.asnumpy(), route(x.shape, want_idx, probe), rtol=1e-6)


def test_fractional_max_pool_ratio_unbatched_shared_samples_and_class_forms():
    r = np.random.default_rng(1)
    x = r.standard_normal((3, 10, 7)).astype(np.float32)
    s = r.random((1, 3, 2)).astype(np.float32)
    y = ops.fractional_max_pool2d(T(x), 3, output_ratio=(0.5, 0.6), _random_samples=T(s))
    np.testing.assert_array_equal(y.asnumpy(), fixed_pool_ref(x[None], (3, 3), (5, 4), s)[0][0])
    xb = r.standard_normal((2, 3, 10, 7)).astype(np.float32)
    y2, i2 = ops.FractionalMaxPoolWithFixedKsize((3, 2), (5, 4))(T(xb), T(s))  # (1, C, 2) samples broadcast
    wy, wi = fixed_pool_ref(xb, (3, 2), (5, 4), s)
    np.testing.assert_array_equal(y2.asnumpy(), wy)
    np.testing.assert_array_equal(i2.asnumpy(), wi)
    cell = nn.FractionalMaxPool2d((3, 2), output_size=(5, 4), return_indices=True, _random_samples=T(s))
    np.testing.assert_array_equal(cell(T(xb))[1].asnumpy(), wi)


def test_fractional_max_pool3d_matches_oracle_and_routes_gradient():
    r = np.random.default_rng(2)
    x = r.standard_normal((1, 2, 6, 5, 7)).astype(np.float32)
    s = r.random((1, 2, 3)).astype(np.float32)
    want_y, want_idx = fixed_pool_ref(x, (2, 2, 3), (3, 4, 3), s)
    y, idx = ops.fractional_max_pool3d(T(x), (2, 2, 3), (3, 4, 3), return_indices=True, _random_samples=T(s))
    np.testing.assert_array_equal(y.asnumpy(), want_y)
    np.testing.assert_array_equal(idx.asnumpy(), want_idx)
    y3, i3 = ops.FractionalMaxPool3DWithFixedKsize((2, 2, 3), (3, 4, 3))(T(x), T(s))
    np.testing.assert_array_equal(i3.asnumpy(), want_idx)
    probe = r.standard_normal(want_y.shape).astype(np.float32)
    cell = nn.FractionalMaxPool3d((2, 2, 3), output_size=(3, 4, 3), _random_samples=T(s))
    g = ms.grad(lambda a: (cell(a) * T(probe)).sum())(T(x))
    np.testing.assert_allclose(g.asnumpy(), route(x.shape, want_idx, probe), rtol=1e-6)


def test_fractional_max_pool_random_windows_follow_the_rule():
    """Without samples the windows are random, but each output is still the max of some k-window
    whose start follows the rule for some u in [0, 1)."""
    ms.set_seed(5)
    x = np.random.default_rng(3).standard_normal((1, 1, 12, 12)).astype(np.float32)
    y, idx = ops.fractional_max_pool2d(T(x), 2, (6, 6), return_indices=True)
    rows, cols = np.unravel_index(idx.asnumpy()[0, 0], (12, 12))
    assert (np.diff(rows, axis=0) >= 0).all() and (np.diff(cols, axis=1) >= 0).all()
    np.testing.assert_array_equal(y.asnumpy()[0, 0], x[0, 0][rows, cols])
    for i in range(6):  # the max of its window: nothing larger among the window's rows of that column band
        assert (y.asnumpy()[0, 0, i] >= x[0, 0, rows[i, 0], cols[i]]).all()


def test_fractional_max_pool_errors():
    x = T(np.zeros((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match="fractional_max_pool2d: one of output_size"):
        ops.fractional_max_pool2d(x, 2)
    with pytest.raises(ValueError, match="fractional_max_pool2d: output_size"):
        ops.fractional_max_pool2d(x, 3, (3, 3), _random_samples=T(np.zeros((1, 1, 2), np.float32)))
    with pytest.raises(ValueError, match="fractional_max_pool2d"):
        ops.fractional_max_pool2d(x, 2, (2, 2), _random_samples=T(np.zeros((1, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="FractionalMaxPoolWithFixedKsize: data_format"):
        ops.FractionalMaxPoolWithFixedKsize(2, 2, "NHWC")


# --- TensorFlow's FractionalMaxPool / FractionalAvgPool ---------------------------------------------------
def tf_pool_ref(x: np.ndarray, rows: np.ndarray, cols: np.ndarray, overlapping: bool, avg: bool) -> np.ndarray:
    n, h, w, c = x.shape
    out = np.zeros((n, len(rows) - 1, len(cols) - 1, c))
    for i in range(len(rows) - 1):
        r1 = min(rows[i + 1] + (1 if overlapping else 0), h)
        for j in range(len(cols) - 1):
            c1 = min(cols[j + 1] + (1 if overlapping else 0), w)
            win = x[:, rows[i]:r1, cols[j]:c1]
            out[:, i, j] = win.mean((1, 2)) if avg else win.max((1, 2))
    return out


def _check_sequence(seq: np.ndarray, size: int, ratio: float) -> None:
    out = int(np.floor(size / ratio))
    k = size // out
    assert seq.dtype == np.int64 and len(seq) == out + 1 and seq[0] == 0 and seq[-1] == size
    assert set(np.diff(seq).tolist()) <= {k, k + 1}


@pytest.mark.parametrize("pseudo", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_tf_fractional_max_pool_regions_values_and_gradient(pseudo, overlapping):
    r = np.random.default_rng(4)
    x = r.standard_normal((2, 11, 9, 3)).astype(np.float32)
    op = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo, overlapping, seed=7)
    y, rows, cols = op(T(x))
    rs, cs = rows.asnumpy(), cols.asnumpy()
    _check_sequence(rs, 11, 1.6)
    _check_sequence(cs, 9, 1.4)
    np.testing.assert_array_equal(y.asnumpy(), tf_pool_ref(x, rs, cs, overlapping, False))
    probe = r.standard_normal(y.shape).astype(np.float32)
    ms.set_seed(0)
    op2 = ops.FractionalMaxPool([1.0, 1.6, 1.4, 1.0], pseudo, overlapping, seed=7)  # same seed: same regions
    g = ms.grad(lambda a: (op2(a)[0] * T(probe)).sum())(T(x))
    want = np.zeros_like(x)
    for i in range(len(rs) - 1):
        r1 = min(rs[i + 1] + overlapping, 11)
        for j in range(len(cs) - 1):
            c1 = min(cs[j + 1] + overlapping, 9)
            for b in range(2):
                for ch in range(3):
                    win = x[b, rs[i]:r1, cs[j]:c1, ch]
                    a, bb = np.unravel_index(np.argmax(win), win.shape)
                    want[b, rs[i] + a, cs[j] + bb, ch] += probe[b, i, j, ch]
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("overlapping", [False, True])
def test_tf_fractional_avg_pool_values_and_gradient(overlapping):
    r = np.random.default_rng(5)
    x = r.standard_normal((1, 10, 8, 2))
    op = ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0], overlapping=overlapping, deterministic=True)
    y, rows, cols = op(T(x))
    rs, cs = rows.asnumpy(), cols.asnumpy()
    np.testing.assert_allclose(y.asnumpy(), tf_pool_ref(x, rs, cs, overlapping, True), rtol=1e-12)
    y2, rows2, _ = op(T(x))  # deterministic: the same regions every call
    np.testing.assert_array_equal(rows2.asnumpy(), rs)
    g = ms.grad(lambda a: op(a)[0].sum())(T(x))
    want = np.zeros_like(x)
    for i in range(len(rs) - 1):
        r1 = min(rs[i + 1] + overlapping, 10)
        for j in range(len(cs) - 1):
            c1 = min(cs[j + 1] + overlapping, 8)
            want[:, rs[i]:r1, cs[j]:c1] += 1.0 / ((r1 - rs[i]) * (c1 - cs[j]))
    np.testing.assert_allclose(g.asnumpy(), want, rtol=1e-12)


def test_tf_fractional_pool_randomness_and_errors():
    x = T(np.zeros((1, 30, 30, 1), np.float32))
    ms.set_seed(11)
    first = ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])(x)[1].asnumpy()
    ms.set_seed(11)
    again = ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])(x)[1].asnumpy()
    np.testing.assert_array_equal(first, again)  # the global seed fixes the draws
    op = ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])
    draws = {tuple(op(x)[1].asnumpy().tolist()) for _ in range(4)}
    assert len(draws) > 1  # not deterministic: fresh regions per call
    with pytest.raises(ValueError, match="FractionalMaxPool: pooling_ratio"):
        ops.FractionalMaxPool([1.5, 1.5, 1.5, 1.0])
    with pytest.raises(ValueError, match="FractionalAvgPool"):
        ops.FractionalAvgPool([1.0, 1.5, 1.5, 1.0])(T(np.zeros((2, 3, 3), np.float32)))


def test_random_windows_are_fresh_on_every_run_in_both_modes():
    x = T(np.random.default_rng(6).standard_normal((1, 1, 40, 40)).astype(np.float32))  # alpha ~ 5.4: u moves windows

    def windows(a):
        return ops.fractional_max_pool2d(a, 2, (8, 8), return_indices=True)[1]

    def distinct(fn) -> int:
        return len({fn(x).asnumpy().tobytes() for _ in range(6)})

    ms.set_seed(1)
    first = windows(x).asnumpy()
    assert distinct(windows) > 1
    assert distinct(ms.jit(windows)) > 1  # the samples are drawn in the graph, not baked in at compile time
    ms.set_seed(1)
    np.testing.assert_array_equal(windows(x).asnumpy(), first)  # the global seed fixes them
