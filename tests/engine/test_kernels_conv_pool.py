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
    # shapes aimed at the direct loops' tiling (stride-1 width; see conv.cpp): LeNet's first layer
    # (rows of 28 = 16 + 12 columns, a partial last vector), rows wider than one tile with 1-3 output
    # channels (4-vector tiles: 32 + 13), a row of exactly 16 (no partial vector), rows narrower than
    # one vector, a kernel wider than the 5-column block of the weight gradient, dilated columns,
    # output channels not a multiple of the channel block, strided rows with unit-stride columns
    "lenet_conv1": ((3, 1, 28, 28), (6, 1, 5, 5), (1, 1), (2, 2, 2, 2), (1, 1), 1),
    "lenet_conv2": ((2, 6, 14, 14), (16, 6, 5, 5), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "wide_row_few_channels": ((2, 2, 5, 45), (3, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "row_of_16": ((2, 3, 6, 16), (7, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
    "rows_narrower_than_a_vector": ((2, 3, 5, 5), (9, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "kernel_7_wide": ((2, 2, 9, 20), (4, 2, 3, 7), (1, 1), (1, 1, 3, 3), (1, 1), 1),
    "dilated_columns": ((2, 2, 9, 19), (5, 2, 2, 3), (1, 1), (1, 0, 2, 4), (1, 3), 1),
    "one_by_one_many_channels": ((2, 3, 4, 11), (20, 3, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    "groups_channel_remainder": ((2, 4, 6, 9), (14, 2, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 2),
    "row_stride2_column_stride1": ((2, 3, 11, 12), (5, 3, 3, 2), (2, 1), (1, 0, 1, 1), (2, 1), 1),
}


@pytest.fixture(params=[0, 1, 2, 3], ids=["plain", "blocked", "auto", "direct"])
def layout(request):
    """Each path policy (oneDNN plain / blocked, auto = timed choice, Spore's direct loops where they
    apply) must give the same numbers: to float32 rounding of sums in different orders, held here to
    rtol 1e-4 of a float64 reference."""
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


@pytest.mark.parametrize("layout", [0, 1, 3], ids=["plain", "blocked", "direct"])
def test_forced_policies_run_the_path_they_name(layout):
    old = K.conv_get_layout()
    K.conv_set_layout(layout)
    try:
        info = K.conv2d_impl_info((8, 3, 16, 16), (16, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
        strided = K.conv2d_impl_info((8, 3, 16, 16), (16, 3, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 1)
    finally:
        K.conv_set_layout(old)
    name = {0: "plain", 1: "blocked", 3: "direct"}[layout]
    assert tuple(info["path"]) == (name,) * 3
    assert tuple(info["blocked"]) == (layout == 1,) * 3
    # the direct loops need unit-stride columns: a strided geometry falls back to plain
    assert tuple(strided["path"]) == ((name,) * 3 if layout != 3 else ("plain",) * 3)
    if layout == 3:
        assert all(impl.startswith("spore:direct") for impl in (info["forward"], info["backward_data"],
                                                              info["backward_weights"]))


def test_auto_policy_times_the_candidates_and_keeps_the_fastest():
    old = K.conv_get_layout()
    K.conv_set_layout(2)
    try:
        # stride 1: all three paths are candidates for every primitive; column stride 2: no direct loops
        for stride, cands in (((1, 1), {"plain", "blocked", "direct"}), ((1, 2), {"plain", "blocked"})):
            info = K.conv2d_impl_info((4, 2, 12, 12), (5, 2, 3, 3), stride, (1, 1, 1, 1), (1, 1), 1)
            for path, timed in zip(info["path"], info["tuned_ms"]):
                assert set(timed) == cands and all(t > 0 for t in timed.values())
                # one thread here (OMP_NUM_THREADS=1 in CI; the pick divides by the threads otherwise)
                if os.environ.get("OMP_NUM_THREADS") == "1":
                    assert timed[path] == min(timed.values())
                assert path in cands
            # the decision is recorded: asking again (a cached entry) reports the same paths and times
            again = K.conv2d_impl_info((4, 2, 12, 12), (5, 2, 3, 3), stride, (1, 1, 1, 1), (1, 1), 1)
            assert again["path"] == info["path"] and again["tuned_ms"] == info["tuned_ms"]
    finally:
        K.conv_set_layout(old)


def test_auto_policy_results_are_reproducible_within_a_process():
    # the timed choice is made once per geometry; later calls - including after the per-thread entry
    # cache starts over - run the same path, so they agree bit for bit
    old = K.conv_get_layout()
    K.conv_set_layout(2)
    try:
        r = np.random.default_rng(11)
        x = r.standard_normal((4, 1, 20, 20)).astype(np.float32)
        w = r.standard_normal((6, 1, 5, 5)).astype(np.float32)
        dy = r.standard_normal((4, 6, 20, 20)).astype(np.float32)
        args = ((1, 1), (2, 2, 2, 2), (1, 1), 1)
        first = (K.conv2d_forward(x, w, None, *args), K.conv2d_backward_weights(dy, x, w.shape, *args),
                 K.conv2d_backward_data(dy, w, x.shape, *args))
        for h in range(3, 3 + 70):  # flush the entry cache (64 geometries per kind)
            K.conv2d_forward(np.ones((1, 1, h, 3), np.float32), np.ones((2, 1, 3, 3), np.float32), None, (1, 1),
                             (0, 0, 0, 0), (1, 1), 1)
        again = (K.conv2d_forward(x, w, None, *args), K.conv2d_backward_weights(dy, x, w.shape, *args),
                 K.conv2d_backward_data(dy, w, x.shape, *args))
        for a, b in zip(first, again):
            np.testing.assert_array_equal(a, b)
    finally:
        K.conv_set_layout(old)


def test_direct_weight_gradient_ignores_pixels_a_tap_never_reads():
    # the direct loops compute whole vectors past the end of a row; an inf there (real input that only
    # other taps read) must not leak into the taps that never touch it as 0 * inf = NaN
    x = np.ones((2, 1, 3, 12), np.float32)
    x[:, :, :, 11] = np.inf  # read only by kernel column 2 (output column 9); ow = 10 of a 16-lane row
    dy = np.ones((2, 2, 1, 10), np.float32)
    old = K.conv_get_layout()
    try:
        for mode in (0, 1, 2, 3):
            K.conv_set_layout(mode)
            dw = K.conv2d_backward_weights(dy, x, (2, 1, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1)
            np.testing.assert_array_equal(dw[:, :, :, :2], np.full((2, 1, 3, 2), 20.0, np.float32))
            assert np.all(np.isinf(dw[:, :, :, 2]))
    finally:
        K.conv_set_layout(old)


def test_direct_loops_split_across_threads_and_match_the_reference():
    # tests run at one OpenMP thread; the direct weight gradient adds per-thread partial sums, so check
    # it (and the forward, and the input gradient) at two threads in a fresh process
    code = """
import numpy as np
from spore import _kernels as K
from tests.engine.test_kernels_conv_pool import naive_conv, naive_conv_grads
K.conv_set_layout(3)
r = np.random.default_rng(12)
x, w = r.standard_normal((5, 2, 9, 21)), r.standard_normal((6, 2, 3, 3))
dy = r.standard_normal((5, 6, 9, 21))
f = lambda a: a.astype(np.float32)
s, p, d = (1, 1), (1, 1, 1, 1), (1, 1)
y = K.conv2d_forward(f(x), f(w), None, s, p, d, 1)
dx, dw, db = K.conv2d_backward(f(dy), f(x), f(w), s, p, d, 1, True)
dx_ref, dw_ref = naive_conv_grads(x, w, dy, s, p, d, 1)
np.testing.assert_allclose(y, naive_conv(x, w, None, s, p, d, 1), rtol=1e-4, atol=1e-4)
np.testing.assert_allclose(dx, dx_ref, rtol=1e-4, atol=1e-4)
np.testing.assert_allclose(dw, dw_ref, rtol=1e-4, atol=2e-4)
np.testing.assert_allclose(db, dy.sum(axis=(0, 2, 3)), rtol=1e-4, atol=1e-4)
print(K.conv2d_impl_info(x.shape, w.shape, s, p, d, 1)["path"])
"""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {**os.environ, "OMP_NUM_THREADS": "2",
           "PYTHONPATH": os.pathsep.join([root, os.path.dirname(os.path.dirname(spore.__file__))])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "('direct', 'direct', 'direct')"


def test_allocator_policy_is_set_at_import_and_can_be_opted_out_of():
    code = "import spore._kernels as K; print(K.malloc_tuned)"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUNABLES", "SPORE_MALLOC"))}
    default = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    opted_out = subprocess.run([sys.executable, "-c", code], env={**env, "SPORE_MALLOC_DEFAULTS": "1"},
                               capture_output=True, text=True, check=True)
    assert default.stdout.strip() == "True" and opted_out.stdout.strip() == "False"


def test_layout_policy_switch_is_validated():
    for bad in (-1, 4):
        with pytest.raises(ValueError, match="plain"):
            K.conv_set_layout(bad)


# ----------------------------------------------------------------------------------------------
# pooling

@pytest.fixture(params=[0, 1, 2], ids=["own", "auto", "onednn"])
def pool_backend(request):
    """Every pooling policy must agree with the direct loops here: Spore's own kernels only (0), the
    measured choice (1, the default), and oneDNN wherever it is exact (2)."""
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
    # rows of 8 outputs or more: the vector steps, plain inside and masked at the padded edges
    "wide_k3s2_pad1": ((2, 3, 9, 37), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), False),
    "wide_k3s2_no_pad_ceil": ((1, 2, 7, 40), (3, 3), (2, 2), (0, 0, 0, 0), (1, 1), True),
    "wide_k3s1_pad1": ((1, 3, 5, 35), (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False),
    "wide_dilation2": ((1, 2, 9, 30), (2, 3), (1, 2), (1, 1, 2, 2), (2, 2), False),
    "wide_asymmetric_pad_stride2": ((1, 2, 6, 31), (2, 4), (2, 2), (0, 1, 2, 0), (1, 1), True),
}


def _pool_out(xs, k, s, p, d=(1, 1), ceil_mode=False):
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
    "k2s2_ceil_odd_counted": ((1, 3, 7, 9), (2, 2), (2, 2), (0, 0, 0, 0), True, True, 0),
    "k2s2_ceil_odd_not_counted": ((1, 3, 7, 9), (2, 2), (2, 2), (0, 0, 0, 0), True, False, 0),
    "wide_k3s1_pad1": ((1, 2, 5, 37), (3, 3), (1, 1), (1, 1, 1, 1), False, False, 0),
    "wide_k3s2_pad1_ceil": ((1, 2, 6, 34), (3, 3), (2, 2), (1, 1, 1, 1), True, True, 0),
    "wide_k2s2_tiles": ((1, 3, 4, 38), (2, 2), (2, 2), (0, 0, 0, 0), False, True, 0),
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


def np_tiles_max_pool(x, k, out):
    """Non-overlapping (kernel == stride, no padding before) max pooling by reshaping, an
    independent reference for the fast path: the windows padded after with -inf to whole tiles (a pad
    never wins: a window's first element is inside the input), then numpy's argmax over each window
    in row-major order, which returns the first maximum, or the first NaN."""
    n, c, h, w = x.shape
    (kh, kw), (oh, ow) = k, out
    xp = np.full((n, c, max(h, oh * kh), max(w, ow * kw)), -np.inf, x.dtype)
    xp[:, :, :h, :w] = x
    win = xp[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw).transpose(0, 1, 2, 4, 3, 5)
    win = win.reshape(n, c, oh, ow, kh * kw)
    t = win.argmax(axis=-1)
    y = np.take_along_axis(win, t[..., None], axis=-1)[..., 0]
    rows = np.arange(oh)[:, None] * kh + t // kw
    cols = np.arange(ow)[None, :] * kw + t % kw
    return y, (rows * w + cols).astype(np.int64)


TILE_SHAPES = {
    # name: (x shape, kernel, pad after (bottom, right), ceil_mode); N*C is never a multiple of 8
    "lenet_conv1_28": ((5, 3, 28, 28), (2, 2), (0, 0), False),  # 14 outputs a row: two overlapping steps
    "lenet_conv2_10": ((7, 3, 10, 10), (2, 2), (0, 0), False),  # 5 a row: narrower than a vector
    "cifar_32": ((3, 5, 32, 32), (2, 2), (0, 0), False),  # 16 a row: two whole steps
    "wide_64": ((1, 3, 6, 64), (2, 2), (0, 0), False),
    "odd_floor": ((3, 5, 9, 11), (2, 2), (0, 0), False),  # the last row and column are dropped
    "odd_ceil": ((3, 5, 27, 27), (2, 2), (0, 0), True),  # the last row and column of windows are clipped
    "odd_ceil_wide": ((1, 3, 5, 35), (2, 2), (0, 0), True),
    "pad_after": ((2, 3, 7, 17), (2, 2), (1, 1), False),
    "tiny": ((1, 1, 2, 2), (2, 2), (0, 0), False),
    "one_row": ((3, 3, 2, 40), (2, 2), (0, 0), False),
    "k3s3": ((3, 5, 12, 30), (3, 3), (0, 0), False),
    "k3s3_ceil": ((2, 3, 10, 28), (3, 3), (0, 0), True),
    "k1s1": ((3, 3, 5, 19), (1, 1), (0, 0), False),
    "k1x2": ((3, 5, 6, 36), (1, 2), (0, 0), False),
    "k2x4": ((1, 3, 8, 44), (2, 4), (0, 1), True),
}


def _tile_data(xs, kind, seed):
    r = np.random.default_rng(seed)
    if kind == "normal":
        return r.standard_normal(xs).astype(np.float32)
    if kind == "ties":  # few distinct values: most windows hold their maximum twice or more
        return r.integers(-2, 2, xs).astype(np.float32)
    if kind == "nan":  # NaN wins its window (the first one), ties elsewhere
        x = r.integers(-2, 2, xs).astype(np.float32)
        x[r.random(xs) < 0.1] = np.nan
        return x
    if kind == "neg_inf":  # many windows of -inf only: they name their first element
        x = r.standard_normal(xs).astype(np.float32)
        x[r.random(xs) < 0.8] = -np.inf
        return x
    x = np.full(xs, -np.inf, np.float32)  # "mixed": -inf everywhere, a few NaN and +inf
    x[r.random(xs) < 0.05] = np.nan
    x[r.random(xs) < 0.05] = np.inf
    return x


@pytest.mark.parametrize("kind", ["normal", "ties", "nan", "neg_inf", "mixed"])
@pytest.mark.parametrize("name", list(TILE_SHAPES))
def test_non_overlapping_max_pool_fast_path_matches_numpy_exactly(name, kind, pool_backend):
    xs, k, after, ceil_mode = TILE_SHAPES[name]
    pad = (0, after[0], 0, after[1])
    out = _pool_out(xs, k, k, pad, (1, 1), ceil_mode)
    if pool_backend != 2:  # oneDNN runs it only when asked to (policy 2)
        assert K.pool2d_impl_info("max", xs, k, k, pad, (1, 1), out) == "max_tiles"
    x = _tile_data(xs, kind, seed=sum(map(ord, name + kind)))
    y, idx = K.max_pool2d_forward(x, k, k, pad, (1, 1), out)
    y_ref, idx_ref = np_tiles_max_pool(x, k, out)
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_array_equal(y, y_ref)  # NaN where NaN, bit-exact elsewhere
    assert y.dtype == np.float32 and idx.dtype == np.int64
    if xs[2] * xs[3] <= 400 and kind not in ("nan", "mixed"):  # the naive loops agree (they know no NaN rule)
        y_naive, idx_naive = naive_max_pool(x.astype(np.float64), k, k, pad, (1, 1), ceil_mode)
        np.testing.assert_array_equal(idx, idx_naive)

    # backward: every output's gradient lands on its argmax (windows do not overlap: no sums)
    dy = np.random.default_rng(15).standard_normal(y.shape).astype(np.float32)
    dx_ref = np.zeros(xs, np.float32).reshape(xs[0] * xs[1], -1)
    np.put_along_axis(dx_ref, idx_ref.reshape(xs[0] * xs[1], -1), dy.reshape(xs[0] * xs[1], -1), axis=1)
    np.testing.assert_array_equal(K.max_pool2d_backward(dy, idx, xs), dx_ref.reshape(xs))


def test_max_pool_fast_path_names_the_first_of_tied_maxima_in_row_major_order(pool_backend):
    # each 2x2 window holds its maximum twice, in every pair of positions, and 8+ windows per row so
    # the vector step runs: the first position in row-major order must win
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    x = np.zeros((1, 1, 2, 2 * 2 * len(pairs)), np.float32)
    want = []
    for j, (a, b) in enumerate(pairs * 2):
        win = np.full(4, -1.0, np.float32)
        win[[a, b]] = 5.0 if j < len(pairs) else -np.inf  # the second half: ties of -inf (all -inf)
        if j >= len(pairs):
            win[:] = -np.inf
        x[0, 0, :, 2 * j:2 * j + 2] = win.reshape(2, 2)
        first = a if j < len(pairs) else 0
        want.append((first // 2) * x.shape[3] + 2 * j + first % 2)
    y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (1, 2 * len(pairs)))
    assert idx.ravel().tolist() == want
    assert y.ravel().tolist() == [5.0] * len(pairs) + [-np.inf] * len(pairs)


def test_max_pool_first_nan_wins_over_larger_values_and_later_nans(pool_backend):
    # NaN at tap 1 and 3 of every window, +inf at tap 2: the NaN at tap 1 wins
    x = np.zeros((1, 1, 2, 32), np.float32)
    x[0, 0, 0, 1::2] = np.nan
    x[0, 0, 1, 0::2] = np.inf
    x[0, 0, 1, 1::2] = np.nan
    y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (1, 16))
    assert np.isnan(y).all()
    np.testing.assert_array_equal(idx.ravel(), np.arange(16) * 2 + 1)


def test_max_pool_windows_entirely_in_the_padding_give_minus_inf_and_no_index(pool_backend):
    # padding wider than the window: the first / last rows and columns of windows see no input
    xs, k, s, pad = (2, 3, 6, 21), (2, 2), (1, 1), (2, 2, 2, 2)
    out = _pool_out(xs, k, s, pad)
    x = np.random.default_rng(16).standard_normal(xs).astype(np.float32)
    y, idx = K.max_pool2d_forward(x, k, s, pad, (1, 1), out)
    y_ref, idx_ref = naive_max_pool(x.astype(np.float64), k, s, pad, (1, 1), False)
    np.testing.assert_array_equal(idx, idx_ref)
    np.testing.assert_array_equal(y, y_ref)
    assert (idx[:, :, 0] == -1).all() and np.isneginf(y[:, :, 0]).all()
    dy = np.ones(y.shape, np.float32)
    dx = K.max_pool2d_backward(dy, idx, xs)  # -1 sends nowhere
    assert dx.sum() == (idx >= 0).sum()


def test_pool_policy_keeps_onednn_to_its_jit_kernels_and_off_the_fast_path():
    old = K.pool_get_backend()
    cases = [  # kind, x shape, kernel, stride, pad
        ("max", (32, 16, 32, 32), (2, 2), (2, 2), (0, 0, 0, 0)),
        ("max", (32, 64, 32, 32), (3, 3), (2, 2), (1, 1, 1, 1)),
        ("max", (32, 16, 32, 32), (3, 3), (1, 1), (1, 1, 1, 1)),
        ("avg", (32, 16, 32, 32), (2, 2), (2, 2), (0, 0, 0, 0)),
        ("avg", (32, 64, 32, 32), (3, 3), (2, 2), (1, 1, 1, 1)),
    ]
    try:
        K.pool_set_backend(1)
        assert K.pool_get_backend() == 1
        for kind, xs, k, s, p in cases:
            info = K.pool2d_impl_info(kind, xs, k, s, p, (1, 1), _pool_out(xs, k, s, p))
            # oneDNN's reference kernel (simple_nchw) is 5-10x slower than Spore's: only jit ones run
            assert info in ("loops", "max_tiles") or info.startswith("onednn:jit"), (kind, xs, info)
        assert K.pool2d_impl_info("max", *cases[0][1:], (1, 1), (16, 16)) == "max_tiles"
        K.pool_set_backend(0)
        for kind, xs, k, s, p in cases:
            assert not K.pool2d_impl_info(kind, xs, k, s, p, (1, 1), _pool_out(xs, k, s, p)).startswith("onednn")
        K.pool_set_backend(2)
        assert K.pool2d_impl_info("max", *cases[0][1:], (1, 1), (16, 16)).startswith("onednn:")
        # what oneDNN cannot compute exactly stays on the loops under every policy
        assert K.pool2d_impl_info("max", (1, 2, 9, 8), (2, 3), (1, 2), (1, 1, 2, 2), (2, 2), (4, 3)) == "loops"
        assert K.pool2d_impl_info("avg", (1, 2, 5, 6), (2, 3), (1, 2), (1, 1, 0, 0), (1, 1), (5, 3),
                                  True, 7) == "loops"
        with pytest.raises(ValueError, match="oneDNN wherever exact"):
            K.pool_set_backend(3)
    finally:
        K.pool_set_backend(old)


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
