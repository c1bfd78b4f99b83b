"""The C++ convolution and pooling kernels (spore._kernels, float32) and the NumPy kernels that run
float64, both held to naive direct-loop references written here from the definitions.

The references loop over output positions and kernel taps explicitly — no im2col, no stride tricks —
so they share no code or trick with either implementation under test.
"""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import spore
from spore import _kernels as K
from spore.ops import conv_pool as cp
from spore.ops.primitive import REGISTRY

# ----------------------------------------------------------------------------------------------
# naive references


def out_len(size, k, s, d, before, after, ceil_mode=False):
    span = size + before + after - d * (k - 1) - 1
    out = (-(-span // s) if ceil_mode else span // s) + 1
    if ceil_mode and (out - 1) * s >= size + before:
        out -= 1
    return out


def naive_conv(x, w, b, stride, pad, dil, group):
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // group
    oh = out_len(h, kh, stride[0], dil[0], pad[0], pad[1])
    ow = out_len(wd, kw, stride[1], dil[1], pad[2], pad[3])
    xp = np.zeros((n, c, h + pad[0] + pad[1], wd + pad[2] + pad[3]))
    xp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd] = x
    y = np.zeros((n, o, oh, ow))
    for oc in range(o):
        g = oc // og
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for bb in range(kw):
                        v = xp[:, g * cg:(g + 1) * cg, i * stride[0] + a * dil[0], j * stride[1] + bb * dil[1]]
                        y[:, oc, i, j] += v @ w[oc, :, a, bb]
    return y if b is None else y + b[None, :, None, None]


def naive_conv_grads(x, w, dy, stride, pad, dil, group):
    """dx and dw of <dy, conv(x, w)>, accumulated tap by tap."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    og = o // group
    xp = np.zeros((n, c, h + pad[0] + pad[1], wd + pad[2] + pad[3]))
    xp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd] = x
    dxp, dw = np.zeros_like(xp), np.zeros(w.shape)
    for oc in range(o):
        g = oc // og
        for i in range(dy.shape[2]):
            for j in range(dy.shape[3]):
                for a in range(kh):
                    for bb in range(kw):
                        r, q = i * stride[0] + a * dil[0], j * stride[1] + bb * dil[1]
                        dxp[:, g * cg:(g + 1) * cg, r, q] += np.outer(dy[:, oc, i, j], w[oc, :, a, bb])
                        dw[oc, :, a, bb] += dy[:, oc, i, j] @ xp[:, g * cg:(g + 1) * cg, r, q]
    return dxp[:, :, pad[0]:pad[0] + h, pad[2]:pad[2] + wd], dw


def naive_max_pool(x, k, s, pad, dil, ceil_mode):
    n, c, h, w = x.shape
    oh = out_len(h, k[0], s[0], dil[0], pad[0], pad[1], ceil_mode)
    ow = out_len(w, k[1], s[1], dil[1], pad[2], pad[3], ceil_mode)
    y, idx = np.full((n, c, oh, ow), -np.inf), np.full((n, c, oh, ow), -1, np.int64)
    for p in np.ndindex(n, c):
        for i in range(oh):
            for j in range(ow):
                for a in range(k[0]):
                    for b in range(k[1]):
                        r, q = i * s[0] - pad[0] + a * dil[0], j * s[1] - pad[2] + b * dil[1]
                        if 0 <= r < h and 0 <= q < w and (x[p][r, q] > y[p][i, j] or idx[p][i, j] < 0):
                            y[p][i, j], idx[p][i, j] = x[p][r, q], r * w + q
    return y, idx


def naive_avg_pool(x, k, s, pad, ceil_mode, include_pad, override):
    n, c, h, w = x.shape
    oh = out_len(h, k[0], s[0], 1, pad[0], pad[1], ceil_mode)
    ow = out_len(w, k[1], s[1], 1, pad[2], pad[3], ceil_mode)
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, q0 = i * s[0] - pad[0], j * s[1] - pad[2]
            rows = [r for r in range(r0, r0 + k[0]) if 0 <= r < h]
            cols = [q for q in range(q0, q0 + k[1]) if 0 <= q < w]
            total = x[:, :, rows][:, :, :, cols].sum(axis=(2, 3))
            if override:
                div = override
            elif include_pad:  # the window clipped to the padded input
                div = (min(r0 + k[0], h + pad[1]) - r0) * (min(q0 + k[1], w + pad[3]) - q0)
            else:
                div = len(rows) * len(cols)
            y[:, :, i, j] = total / div
    return y


# ----------------------------------------------------------------------------------------------
# convolution

CONV_CASES = {
    # name: (x shape, w shape, stride, pad (t, b, l, r), dilation, groups)
    "basic_3x3_pad1": ((2, 3, 7, 6), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "stride2": ((2, 4, 9, 8), (5, 4, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1),
    "dilation2": ((1, 3, 9, 9), (2, 3, 3, 3), (1, 1), (2, 2, 2, 2), (2, 2), 1),
    "groups2": ((2, 4, 6, 6), (6, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "depthwise": ((2, 8, 6, 7), (8, 1, 3, 3), (1, 2), (1, 1, 1, 1), (1, 1), 8),
    "asymmetric_pad": ((1, 2, 7, 8), (3, 2, 3, 2), (2, 1), (0, 2, 1, 0), (1, 1), 1),
    "one_by_one": ((2, 16, 5, 5), (32, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "one_by_one_stride2_skips_rows": ((1, 4, 6, 7), (3, 4, 1, 1), (2, 2), (0, 0, 0, 0), (1, 1), 1),
    "non_square_kernel": ((2, 3, 8, 6), (4, 3, 2, 5), (1, 1), (0, 1, 2, 2), (1, 1), 1),
    "wide_channels_blocked": ((2, 32, 8, 8), (32, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "first_layer_rgb": ((2, 3, 10, 10), (16, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "single_channel": ((4, 1, 8, 8), (6, 1, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "mixed_stride_dilation_groups": ((1, 6, 11, 9), (4, 3, 2, 3), (2, 3), (1, 2, 0, 1), (2, 1), 2),
}


@pytest.fixture(params=[0, 1, 2], ids=["plain", "blocked", "auto"])
def layout(request):
    """Each oneDNN layout policy must give the same numbers."""
    old = K.conv_get_layout()
    K.conv_set_layout(request.param)
    yield request.param
    K.conv_set_layout(old)


def _data(xs, ws, seed):
    r = np.random.default_rng(seed)
    return r.standard_normal(xs), r.standard_normal(ws), r.standard_normal(ws[0])


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_cpp_conv_forward_and_both_gradients_match_direct_loops(name, layout):
    xs, ws, s, p, d, g = CONV_CASES[name]
    x, w, b = _data(xs, ws, 1)
    ref = naive_conv(x, w, b, s, p, d, g)
    y = K.conv2d_forward(x.astype(np.float32), w.astype(np.float32), b.astype(np.float32), s, p, d, g)
    assert y.dtype == np.float32 and y.shape == ref.shape
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-4)
    y0 = K.conv2d_forward(x.astype(np.float32), w.astype(np.float32), None, s, p, d, g)
    np.testing.assert_allclose(y0, ref - b[None, :, None, None], rtol=1e-4, atol=1e-4)

    dy = np.random.default_rng(2).standard_normal(ref.shape)
    dx_ref, dw_ref = naive_conv_grads(x, w, dy, s, p, d, g)
    dx = K.conv2d_backward_data(dy.astype(np.float32), w.astype(np.float32), xs, s, p, d, g)
    dw = K.conv2d_backward_weights(dy.astype(np.float32), x.astype(np.float32), ws, s, p, d, g)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=2e-4)

    # the fused backward (one dy reorder, bias gradient from the weights primitive) agrees too
    f32 = [a.astype(np.float32) for a in (dy, x, w)]
    dx2, dw2, db2 = K.conv2d_backward(*f32, s, p, d, g, True)
    np.testing.assert_allclose(dx2, dx_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw2, dw_ref, rtol=1e-4, atol=2e-4)
    np.testing.assert_allclose(db2, dy.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)
    assert K.conv2d_backward(*f32, s, p, d, g, False)[2] is None


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_numpy_conv_kernels_match_direct_loops_in_float64(name):
    xs, ws, s, p, d, g = CONV_CASES[name]
    x, w, b = _data(xs, ws, 3)
    ref = naive_conv(x, w, b, s, p, d, g)
    np.testing.assert_allclose(cp._np_conv2d(x, w, b, s, p, d, g), ref, rtol=1e-12, atol=1e-12)
    dy = np.random.default_rng(4).standard_normal(ref.shape)
    dx_ref, dw_ref = naive_conv_grads(x, w, dy, s, p, d, g)
    np.testing.assert_allclose(cp._np_conv2d_backprop_input(dy, w, xs, s, p, d, g), dx_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cp._np_conv2d_backprop_filter(dy, x, ws, s, p, d, g), dw_ref, rtol=1e-12, atol=1e-12)


def test_strided_conv_gives_zero_input_gradient_where_no_window_reads():
    # 1x1 kernel, stride 2: odd rows and columns never reach the output
    x = np.ones((1, 2, 5, 5), np.float32)
    w = np.ones((3, 2, 1, 1), np.float32)
    dy = np.ones((1, 3, 3, 3), np.float32)
    dx = K.conv2d_backward_data(dy, w, x.shape, (2, 2), (0, 0, 0, 0), (1, 1), 1)
    assert np.all(dx[:, :, 1::2, :] == 0) and np.all(dx[:, :, :, 1::2] == 0)
    assert np.all(dx[:, :, ::2, ::2] == 3.0)


def test_conv_kernel_cache_reuses_and_separates_geometries():
    r = np.random.default_rng(5)
    x = r.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = r.standard_normal((4, 3, 3, 3)).astype(np.float32)
    first = K.conv2d_forward(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    other = K.conv2d_forward(x, w, None, (1, 1), (0, 0, 0, 0), (1, 1), 1)  # a second cached geometry
    again = K.conv2d_forward(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    assert other.shape == (2, 4, 4, 4) and first.shape == (2, 4, 6, 6)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_allclose(first[:, :, 1:-1, 1:-1], other, rtol=1e-5, atol=1e-5)


def test_conv_kernel_cache_starts_over_past_its_bound_and_stays_correct():
    w = np.ones((2, 1, 3, 3), np.float32)
    for h in range(3, 3 + 70):  # more geometries than the per-thread cache keeps
        x = np.ones((1, 1, h, 3), np.float32)
        y = K.conv2d_forward(x, w, None, (1, 1), (0, 0, 0, 0), (1, 1), 1)
        assert y.shape == (1, 2, h - 2, 1) and np.all(y == 9.0)


def test_conv_kernels_are_correct_from_concurrent_python_threads():
    # the GIL is released during compute, so two threads really run together
    r = np.random.default_rng(6)
    x = r.standard_normal((4, 16, 12, 12)).astype(np.float32)
    w = r.standard_normal((16, 16, 3, 3)).astype(np.float32)
    want = naive_conv(x.astype(np.float64), w.astype(np.float64), None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    results, errors = [], []

    def run():
        try:
            for _ in range(5):
                results.append(K.conv2d_forward(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), 1))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 10
    for y in results:
        np.testing.assert_allclose(y, want, rtol=1e-4, atol=1e-3)


def test_conv_kernel_rejects_inconsistent_geometry():
    x = np.zeros((1, 4, 5, 5), np.float32)
    with pytest.raises(ValueError, match="in-channels"):
        K.conv2d_forward(x, np.zeros((2, 3, 3, 3), np.float32), None, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    with pytest.raises(ValueError, match="larger than the padded input"):
        K.conv2d_forward(x, np.zeros((2, 4, 7, 7), np.float32), None, (1, 1), (0, 0, 0, 0), (1, 1), 1)
    with pytest.raises(ValueError, match="bias"):
        K.conv2d_forward(x, np.zeros((2, 4, 3, 3), np.float32), np.zeros(3, np.float32), (1, 1), (0, 0, 0, 0),
                         (1, 1), 1)


def test_bias_add_grad_kernel_sums_over_batch_and_space():
    g = np.random.default_rng(8).standard_normal((3, 5, 7 * 9)).astype(np.float32)
    np.testing.assert_allclose(K.bias_add_grad(g), g.astype(np.float64).sum(axis=(0, 2)), rtol=1e-5, atol=1e-5)


def test_auto_layout_keeps_the_input_gradient_of_a_first_layer_plain(layout):
    # the measured policy: blocked forward and weight gradient everywhere, blocked input gradient
    # only when it has >= 5 channels (into 3 channels oneDNN's blocked kernel is the slow one)
    first = K.conv2d_impl_info((8, 3, 16, 16), (16, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    wide = K.conv2d_impl_info((8, 16, 8, 8), (32, 16, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    want = {0: ((False,) * 3, (False,) * 3), 1: ((True,) * 3, (True,) * 3),
            2: ((True, False, True), (True, True, True))}[layout]
    assert (tuple(first["blocked"]), tuple(wide["blocked"])) == want
    if layout == 2:
        assert "jit" in wide["forward"] and "gemm" in first["backward_data"]


def test_allocator_policy_is_set_at_import_and_can_be_opted_out_of():
    code = "import spore._kernels as K; print(K.malloc_tuned)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES", "SPORE_MALLOC"))}
    default = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    opted_out = subprocess.run([sys.executable, "-c", code], env={**env, "SPORE_MALLOC_DEFAULTS": "1"},
                               capture_output=True, text=True, check=True)
    assert default.stdout.strip() == "True" and opted_out.stdout.strip() == "False"


def test_layout_policy_switch_is_validated():
    with pytest.raises(ValueError, match="plain"):
        K.conv_set_layout(3)


# ----------------------------------------------------------------------------------------------
# pooling

@pytest.fixture(params=[0, 1], ids=["loops", "onednn"])
def pool_backend(request):
    """Both pooling implementations (oneDNN where exact, the OpenMP loops) must agree with the loops here."""
    old = K.pool_get_backend()
    K.pool_set_backend(request.param)
    yield request.param
    K.pool_set_backend(old)


MAX_CASES = {
    # name: (x shape, kernel, stride, pad (t, b, l, r), dilation, ceil_mode)
    "k2s2": ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    "k3s2_pad1": ((2, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    "ceil_mode_partial_window": ((1, 2, 7, 6), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), True),
    "ceil_mode_with_pad": ((1, 2, 6, 6), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    "dilation2": ((1, 2, 9, 8), (2, 3), (1, 2), (1, 1, 2, 2), (2, 2), False),
    "asymmetric_pad_same_style": ((2, 2, 5, 6), (2, 2), (2, 2), (0, 1, 0, 0), (1, 1), False),
    "overlapping_k3s1": ((1, 3, 5, 5), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False),
    "non_square": ((2, 2, 6, 9), (2, 4), (2, 3), (1, 0, 2, 1), (1, 1), True),
}


def _pool_out(xs, k, s, p, d, ceil_mode):
    return (out_len(xs[2], k[0], s[0], d[0], p[0], p[1], ceil_mode), out_len(xs[3], k[1], s[1], d[1], p[2], p[3],
                                                                            ceil_mode))


@pytest.mark.parametrize("name", list(MAX_CASES))
def test_max_pool_kernels_match_direct_loops(name, pool_backend):
    xs, k, s, p, d, ceil_mode = MAX_CASES[name]
    x = np.random.default_rng(9).standard_normal(xs)
    out = _pool_out(xs, k, s, p, d, ceil_mode)
    y_ref, idx_ref = naive_max_pool(x, k, s, p, d, ceil_mode)
    y, idx = K.max_pool2d_forward(x.astype(np.float32), k, s, p, d, out)
    np.testing.assert_allclose(y, y_ref, rtol=1e-6)
    np.testing.assert_array_equal(idx, idx_ref)
    y64, idx64 = cp._np_max_pool(x, k, s, p, d, out)
    np.testing.assert_array_equal(y64, y_ref)
    np.testing.assert_array_equal(idx64, idx_ref)

    dy = np.random.default_rng(10).standard_normal(y_ref.shape)
    dx_ref = np.zeros(x.shape)
    for (n, c, i, j), at in np.ndenumerate(idx_ref):
        dx_ref[n, c].flat[at] += dy[n, c, i, j]  # overlapping windows accumulate
    dx = K.max_pool2d_backward(dy.astype(np.float32), idx, xs)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cp._np_max_pool_grad(dy, idx64, xs), dx_ref, rtol=1e-12, atol=1e-12)


def test_max_pool_lets_a_nan_win_its_window_like_pytorch(pool_backend):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 1] = np.nan
    y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (2, 2))
    assert np.isnan(y[0, 0, 0, 0]) and idx[0, 0, 0, 0] == 1
    assert y[0, 0, 1, 1] == 15.0


def test_max_pool_window_of_minus_infinity_still_points_at_an_element_inside_the_input(pool_backend):
    # the padding is -inf too, yet the index must name the first real element of the window
    x = np.full((1, 1, 4, 4), -np.inf, np.float32)
    x[0, 0, 3, 3] = 1.0
    y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (1, 1, 1, 1), (1, 1), (3, 3))
    y_ref, idx_ref = naive_max_pool(x.astype(np.float64), (2, 2), (2, 2), (1, 1, 1, 1), (1, 1), False)
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_array_equal(y, y_ref)
    y64, idx64 = cp._np_max_pool(x.astype(np.float64), (2, 2), (2, 2), (1, 1, 1, 1), (1, 1), (3, 3))
    np.testing.assert_array_equal(idx64, idx_ref)
    np.testing.assert_array_equal(y64, y_ref)
    assert idx[0, 0, 0, 0] == 0 and idx[0, 0, 0, 1] == 1 and idx[0, 0, 2, 2] == 15


def test_max_pool_backward_rejects_indices_outside_the_plane():
    with pytest.raises(ValueError, match="outside"):
        K.max_pool2d_backward(np.ones((1, 1, 1, 1), np.float32), np.array([[[[16]]]]), (1, 1, 4, 4))


AVG_CASES = {
    # name: (x shape, kernel, stride, pad, ceil_mode, count_include_pad, divisor_override)
    "k2s2": ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0, 0, 0), False, True, 0),
    "pad_counted": ((2, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), False, True, 0),
    "pad_not_counted": ((2, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), False, False, 0),
    "ceil_mode_counted": ((1, 2, 6, 7), (3, 3), (2, 2), (1, 1, 1, 1), True, True, 0),
    "ceil_mode_not_counted": ((1, 2, 6, 7), (3, 2), (2, 2), (1, 0, 1, 1), True, False, 0),
    "divisor_override": ((1, 2, 5, 6), (2, 3), (1, 2), (1, 1, 0, 0), False, True, 7),
    "asymmetric_same_style": ((2, 2, 5, 5), (2, 2), (2, 2), (0, 1, 0, 1), False, False, 0),
}


@pytest.mark.parametrize("name", list(AVG_CASES))
def test_avg_pool_kernels_match_direct_loops(name, pool_backend):
    xs, k, s, p, ceil_mode, include, override = AVG_CASES[name]
    x = np.random.default_rng(11).standard_normal(xs)
    out = _pool_out(xs, k, s, p, (1, 1), ceil_mode)
    ref = naive_avg_pool(x, k, s, p, ceil_mode, include, override)
    y = K.avg_pool2d_forward(x.astype(np.float32), k, s, p, out, include, override)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cp._np_avg_pool(x, k, s, p, out, include, override), ref, rtol=1e-12, atol=1e-12)

    # the backward kernel is the adjoint: <avg(x), dy> == <x, avg_grad(dy)>, checked one basis vector
    # at a time against the forward reference
    dy = np.random.default_rng(12).standard_normal(ref.shape)
    dx = K.avg_pool2d_backward(dy.astype(np.float32), xs, k, s, p, include, override)
    dx64 = cp._np_avg_pool_grad(dy, xs, k, s, p, include, override)
    dx_ref = np.zeros(xs)
    for pos in np.ndindex(*xs[2:]):
        e = np.zeros(xs)
        e[:, :, pos[0], pos[1]] = 1.0
        dx_ref[:, :, pos[0], pos[1]] = (naive_avg_pool(e, k, s, p, ceil_mode, include, override) * dy).sum(axis=(2, 3))
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dx64, dx_ref, rtol=1e-12, atol=1e-12)


def test_pool_kernels_run_on_many_planes_in_parallel_consistently(pool_backend):
    # enough planes that OpenMP splits them: results must not depend on the split
    x = np.random.default_rng(13).standard_normal((8, 33, 6, 6)).astype(np.float32)
    y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (3, 3))
    np.testing.assert_array_equal(y, x.reshape(8, 33, 3, 2, 3, 2).max(axis=(3, 5)))
    a = K.avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (3, 3), True, 0)
    np.testing.assert_allclose(a, x.reshape(8, 33, 3, 2, 3, 2).mean(axis=(3, 5)), rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# GEMM: float32 MatMul / BatchMatMul run through oneDNN's sgemm (gemm.cpp)

GEMM_CASES = [  # (a shape, b shape, transpose_a, transpose_b)
    ((64, 784), (784, 256), False, False),
    ((64, 784), (64, 256), True, False),
    ((64, 256), (784, 256), False, True),
    ((32, 4096), (10, 4096), False, True),  # Dense head: computed as (W @ x.T).T
    ((256, 64), (10, 256), True, True),
]


@pytest.mark.parametrize("sa,sb,ta,tb", GEMM_CASES)
@pytest.mark.parametrize("fortran", [False, True], ids=["c_order", "transposed_views"])
def test_float32_matmul_runs_on_sgemm_and_matches_float64(sa, sb, ta, tb, fortran, monkeypatch):
    r = np.random.default_rng(14)
    a, b = r.standard_normal(sa), r.standard_normal(sb)
    calls = []
    real = K.sgemm
    monkeypatch.setattr(spore._kernels, "sgemm", lambda *args: calls.append(args) or real(*args))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if fortran:  # F-ordered operands are handed over as their transposes, not copied
        a32, b32 = np.asfortranarray(a32), np.asfortranarray(b32)
    out = REGISTRY["MatMul"].impl(a32, b32, transpose_a=ta, transpose_b=tb)
    want = (a.T if ta else a) @ (b.T if tb else b)
    assert out.dtype == np.float32 and out.flags.c_contiguous and len(calls) == 1
    assert all(arg.flags.c_contiguous for arg in calls[0][:2])
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-3)


def test_small_and_float64_matmuls_stay_in_numpy(monkeypatch):
    monkeypatch.setattr(spore._kernels, "sgemm", lambda *a: pytest.fail("sgemm used"))
    r = np.random.default_rng(15)
    small = REGISTRY["MatMul"].impl(r.standard_normal((4, 5)).astype(np.float32),
                                    r.standard_normal((5, 3)).astype(np.float32))
    big64 = REGISTRY["MatMul"].impl(r.standard_normal((64, 300)), r.standard_normal((300, 64)))
    assert small.shape == (4, 3) and big64.dtype == np.float64


def test_batch_matmul_of_a_row_stack_and_one_matrix_is_one_sgemm(monkeypatch):
    r = np.random.default_rng(16)
    a, b = r.standard_normal((4, 16, 128)), r.standard_normal((96, 128))
    calls = []
    real = K.sgemm
    monkeypatch.setattr(spore._kernels, "sgemm", lambda *args: calls.append(args) or real(*args))
    out = REGISTRY["BatchMatMul"].impl(a.astype(np.float32), b.astype(np.float32), transpose_b=True)
    assert out.shape == (4, 16, 96) and len(calls) == 1
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-4, atol=1e-3)


def test_sgemm_with_an_empty_inner_dimension_is_zeros():
    out = K.sgemm(np.zeros((3, 0), np.float32), np.zeros((0, 4), np.float32))
    np.testing.assert_array_equal(out, np.zeros((3, 4), np.float32))
