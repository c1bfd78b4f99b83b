"""The OpenMP thread policy (spore._runtime.threads, the GEMM grain size in engine/csrc/kernels.h):
defaults only where the user set nothing, and results that do not depend on the team size below the
grain nor on the wait policy at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from spore._runtime import threads

# GEMM shapes (m, k, n) below the 16M multiply-add grain (one thread whatever the team) and above it.
_SMALL = [(64, 784, 256), (64, 256, 128), (256, 400, 120)]
_LARGE = [(256, 1024, 4096)]

_CHILD = r"""
import sys
import numpy as np
import ml_dtypes
import spore
from spore import _kernels, nn, ops
import spore as ms
rng = np.random.default_rng(0)
out = {}
for m, k, n in %r:
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    out[f"sgemm{m}x{k}x{n}"] = _kernels.sgemm(a, b, False, True)
    ab, bb = a.astype(ml_dtypes.bfloat16).view(np.uint16), b.astype(ml_dtypes.bfloat16).view(np.uint16)
    out[f"bf16{m}x{k}x{n}"] = _kernels.bf16_matmul(ab, bb, False, True)
    out[f"bf16TN{m}x{k}x{n}"] = _kernels.bf16_matmul(ab.T.copy(), bb.T.copy(), True, False)
    out[f"bf16M{m}x{k}x{n}"] = _kernels.bf16_matmul_bf16(bb, ab, False, True)  # M > N: row tiles, bf16 out
    out[f"sgemmTN{m}x{k}x{n}"] = _kernels.sgemm(np.ascontiguousarray(a.T), b.T.copy(), True, False)
    bias = rng.standard_normal(n).astype(np.float32)
    y = _kernels.dense_forward(a, b, bias, False, True, True)
    g = rng.standard_normal(y.shape).astype(np.float32)
    dx, dw, db = _kernels.dense_backward(g, a, b, y)
    out[f"dense{m}x{k}x{n}"], out[f"dense_dx{m}x{k}x{n}"], out[f"dense_dw{m}x{k}x{n}"] = y, dx, dw
xc = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)  # SimpleCNN's conv: 14M MACs, below the grain
wc = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
out["conv"] = _kernels.conv2d_forward(xc, wc, None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
out["conv_dx"], out["conv_dw"], _ = _kernels.conv2d_backward(out["conv"], xc, wc, (1, 1), (1, 1, 1, 1), (1, 1), 1,
                                                             False)
for n in (32, 33):  # above the grain (151M MACs at 32): batch chunks; 33 leaves a short last chunk
    xl = rng.standard_normal((n, 32, 16, 16)).astype(np.float32)
    wl = rng.standard_normal((64, 32, 3, 3)).astype(np.float32)
    bl = rng.standard_normal(64).astype(np.float32)
    yl = _kernels.conv2d_forward(xl, wl, bl, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    gl = rng.standard_normal(yl.shape).astype(np.float32)
    out[f"convL{n}"] = yl
    out[f"convL{n}_dx"], out[f"convL{n}_dw"], out[f"convL{n}_db"] = _kernels.conv2d_backward(
        gl, xl, wl, (1, 1), (1, 1, 1, 1), (1, 1), 1, True)
    out[f"convL{n}_dx1"] = _kernels.conv2d_backward_data(gl, wl, xl.shape, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    out[f"convL{n}_dw1"] = _kernels.conv2d_backward_weights(gl, xl, wl.shape, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    if _kernels.cpu_isa() in ("avx512_core_bf16", "avx512_core_amx"):  # oneDNN's bf16 convolutions
        xb, wb, bb, gb = (v.astype(ml_dtypes.bfloat16).view(np.uint16) for v in (xl, wl, bl, gl))
        out[f"bconvL{n}"] = _kernels.conv2d_bf16_forward(xb, wb, bb, (1, 1), (1, 1, 1, 1), (1, 1), 1)
        out[f"bconvL{n}_dx"] = _kernels.conv2d_bf16_backward_data(gb, wb, xl.shape, (1, 1), (1, 1, 1, 1), (1, 1), 1)
        out[f"bconvL{n}_dw"], out[f"bconvL{n}_db"] = _kernels.conv2d_bf16_backward_weights(
            gb, xb, wl.shape, (1, 1), (1, 1, 1, 1), (1, 1), 1, True)
ms.set_seed(0)
net = nn.SequentialCell([nn.Dense(784, 256), nn.ReLU(), nn.Dense(256, 10)])
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.01, 0.9))
x = ms.Tensor(rng.standard_normal((64, 784)).astype(np.float32))
y = ms.Tensor(rng.integers(0, 10, 64).astype(np.int32))
for i in range(3):
    out[f"loss{i}"] = step(x, y).asnumpy()
out["w"] = net.trainable_params()[0].asnumpy()
np.savez(sys.argv[1], **out)
"""


def _child(tmp_path: Path, name: str, shapes: list, **env_over: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "SPORE_"))}
    env.update(env_over)
    f = tmp_path / f"{name}.npz"
    res = subprocess.run([sys.executable, "-c", _CHILD % (shapes,), str(f)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    with np.load(f) as z:
        return dict(z)


def test_below_the_grain_one_and_two_threads_agree_bit_for_bit(tmp_path: Path) -> None:
    one = _child(tmp_path, "t1", _SMALL, OMP_NUM_THREADS="1")
    two = _child(tmp_path, "t2", _SMALL, OMP_NUM_THREADS="2")
    assert one.keys() == two.keys()
    for k in one:
        np.testing.assert_array_equal(one[k], two[k], err_msg=k)


def test_above_the_grain_gemms_agree_bit_for_bit(tmp_path: Path) -> None:
    # Above the grain Spore's float32 GEMMs (MatMul, Dense forward and both gradients) run in output
    # tiles fixed by the shape, one single-threaded sgemm each (engine/csrc/team_gemm.h), and the bf16
    # matmul in the same tiles, one single-threaded oneDNN matmul each (engine/csrc/gemm.cpp): the
    # team size changes no bit.
    one = _child(tmp_path, "t1", _LARGE, OMP_NUM_THREADS="1")
    two = _child(tmp_path, "t2", _LARGE, OMP_NUM_THREADS="2")
    m, k, n = _LARGE[0]
    checked = 0
    for key in one:
        if key.startswith(("sgemm", "dense", "bf16")) and key.endswith(f"{m}x{k}x{n}"):
            np.testing.assert_array_equal(one[key], two[key], err_msg=key)
            checked += 1
    assert checked == 8
    # and against float64 (the tiles cover the whole output, each entry once)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((n, k)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    for key in (f"sgemm{m}x{k}x{n}", f"sgemmTN{m}x{k}x{n}"):
        np.testing.assert_allclose(two[key], ref, rtol=0, atol=2e-3, err_msg=key)
    # bf16: the products of the rounded operands, summed in float32 (K * 2**-24 * sum|a||b| ~ 2e-3)
    ab = a.astype(ml_dtypes.bfloat16).astype(np.float64)
    bb = b.astype(ml_dtypes.bfloat16).astype(np.float64)
    for key in (f"bf16{m}x{k}x{n}", f"bf16TN{m}x{k}x{n}"):
        np.testing.assert_allclose(two[key], ab @ bb.T, rtol=0, atol=2e-3, err_msg=key)
    # rounded once to bf16 (half an ulp: 2**-9 relative) on top of the float32 sum's error
    out16 = two[f"bf16M{m}x{k}x{n}"].view(ml_dtypes.bfloat16).astype(np.float64)
    np.testing.assert_allclose(out16, (ab @ bb.T).T, rtol=2.0**-8, atol=2e-3)


def _conv_oracle(bf16: bool = False) -> dict:
    """float64 convolution and its three gradients, for the large-conv keys of _CHILD run with no GEMM
    shapes (the draws replayed in _CHILD's order); with `bf16`, of the operands rounded to bfloat16."""
    fmt = ml_dtypes.bfloat16 if bf16 else np.float32
    rng = np.random.default_rng(0)
    rng.standard_normal((32, 3, 32, 32)), rng.standard_normal((16, 3, 3, 3))
    out = {}
    for b in (32, 33):
        x = rng.standard_normal((b, 32, 16, 16))
        w = rng.standard_normal((64, 32, 3, 3))
        bias = rng.standard_normal(64)
        x32, w32, b32 = (v.astype(np.float32).astype(fmt).astype(np.float64) for v in (x, w, bias))
        xp = np.pad(x32, ((0, 0), (0, 0), (1, 1), (1, 1)))
        cols = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # b, c, 16, 16, 3, 3
        y = np.einsum("bchwij,ocij->bohw", cols, w32) + b32[None, :, None, None]
        g = rng.standard_normal(y.shape).astype(np.float32).astype(fmt).astype(np.float64)
        dw = np.einsum("bchwij,bohw->ocij", cols, g)
        dxp = np.zeros_like(xp)
        for i in range(3):
            for j in range(3):
                dxp[:, :, i:i + 16, j:j + 16] += np.einsum("bohw,oc->bchw", g, w32[:, :, i, j])
        out[b] = {"y": y, "dx": dxp[:, :, 1:-1, 1:-1], "dw": dw, "db": g.sum(axis=(0, 2, 3))}
    return out


def test_above_the_grain_convolutions_agree_bit_for_bit(tmp_path: Path) -> None:
    # Above the grain a conv pass runs as fixed batch chunks, one single-threaded oneDNN primitive each,
    # and the chunks' weight gradients are added in chunk order (engine/csrc/conv.cpp, batch_split), so
    # 1 and 2 threads give the same bits, for the fused and the separate backward calls alike.
    one = _child(tmp_path, "t1", [], OMP_NUM_THREADS="1")
    two = _child(tmp_path, "t2", [], OMP_NUM_THREADS="2")
    oracle = _conv_oracle()
    for n in (32, 33):
        keys = [k for k in one if k.startswith(f"convL{n}")]
        assert len(keys) == 6
        for k in keys:
            np.testing.assert_array_equal(one[k], two[k], err_msg=k)
        np.testing.assert_array_equal(two[f"convL{n}_dx"], two[f"convL{n}_dx1"])
        np.testing.assert_array_equal(two[f"convL{n}_dw"], two[f"convL{n}_dw1"])
        # Against float64: each output sums 288 products of standard normals (|sum| ~ 17, rounding
        # ~ 1e-5); dw sums n*256 products (~ 90 in size), dx 576, db n*256 values.
        ref = oracle[n]
        np.testing.assert_allclose(two[f"convL{n}"], ref["y"], rtol=0, atol=2e-3)
        np.testing.assert_allclose(two[f"convL{n}_dx"], ref["dx"], rtol=0, atol=3e-3)
        np.testing.assert_allclose(two[f"convL{n}_dw"], ref["dw"], rtol=0, atol=2e-2)
        np.testing.assert_allclose(two[f"convL{n}_db"], ref["db"], rtol=0, atol=1e-2)
        if f"bconvL{n}" not in one:  # no bf16 convolutions on this CPU
            continue
        # bf16: fixed batch chunks too (the weight and bias gradients summed in float32 in chunk order,
        # rounded once), so the same bits at 1 and 2 threads; against the float64 products of the
        # rounded operands within half a bf16 ulp (2**-9 relative) plus the float32 summation error.
        for k in ("", "_dx", "_dw", "_db"):
            np.testing.assert_array_equal(one[f"bconvL{n}{k}"], two[f"bconvL{n}{k}"], err_msg=f"bconvL{n}{k}")
        bref = _conv_oracle(bf16=True)[n]
        for k, key, atol in (("", "y", 2e-3), ("_dx", "dx", 3e-3), ("_dw", "dw", 2e-2), ("_db", "db", 1e-2)):
            got = two[f"bconvL{n}{k}"].view(ml_dtypes.bfloat16).astype(np.float64)
            np.testing.assert_allclose(got, bref[key], rtol=2.0**-8, atol=atol, err_msg=f"bconvL{n}{k}")


def test_wait_policy_never_changes_results(tmp_path: Path) -> None:
    passive = _child(tmp_path, "p", _SMALL + _LARGE, OMP_NUM_THREADS="2")
    active = _child(tmp_path, "a", _SMALL + _LARGE, OMP_NUM_THREADS="2", SPORE_WAIT_POLICY="active")
    for k in passive:
        np.testing.assert_array_equal(passive[k], active[k], err_msg=k)


def test_defaults_fill_only_what_the_user_left_unset() -> None:
    env: dict[str, str] = {}
    out = threads.configure_environment(env)
    assert env == {"OMP_WAIT_POLICY": "passive", "OMP_NUM_THREADS": str(threads.affinity_cores()),
                   "OPENBLAS_NUM_THREADS": "1"}
    assert out["wait_policy"] == "passive" and out["threads"] == threads.affinity_cores()
    env = {"OMP_WAIT_POLICY": "active", "OMP_NUM_THREADS": "7", "OPENBLAS_NUM_THREADS": "4"}
    threads.configure_environment(env)
    assert env == {"OMP_WAIT_POLICY": "active", "OMP_NUM_THREADS": "7", "OPENBLAS_NUM_THREADS": "4"}
    env = {"GOMP_SPINCOUNT": "1000"}
    threads.configure_environment(env)
    assert "OMP_WAIT_POLICY" not in env
    env = {"SPORE_WAIT_POLICY": "active", "SPORE_NUM_THREADS": "3"}
    threads.configure_environment(env)
    assert "OMP_WAIT_POLICY" not in env and env["OMP_NUM_THREADS"] == "3"


def test_bad_settings_warn_and_fall_back() -> None:
    env = {"SPORE_NUM_THREADS": "zero", "SPORE_WAIT_POLICY": "sleepy"}
    with pytest.warns(RuntimeWarning) as rec:
        threads.configure_environment(env)
    text = " ".join(str(w.message) for w in rec)
    assert "SPORE_NUM_THREADS" in text and "SPORE_WAIT_POLICY" in text
    assert env["OMP_NUM_THREADS"] == str(threads.affinity_cores()) and env["OMP_WAIT_POLICY"] == "passive"


def test_import_applies_the_policy_and_follows_the_affinity_mask() -> None:
    code = ("import os\nos.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})\nimport spore\n"
            "from spore._runtime import threads\nfrom spore import _kernels\n"
            "print(os.environ['OMP_WAIT_POLICY'], os.environ['OMP_NUM_THREADS'], threads.policy()['threads'])")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "SPORE_"))}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["passive", "1", "1"]
    user = dict(env, OMP_NUM_THREADS="2", OMP_WAIT_POLICY="active")
    res = subprocess.run([sys.executable, "-c", code], env=user, capture_output=True, text=True, timeout=120)
    assert res.stdout.split()[:2] == ["active", "2"]


def test_numpy_blas_gets_one_thread_even_when_numpy_was_imported_first() -> None:
    """Spore hands NumPy's OpenBLAS only tiny products; its spinning workers would compete with Spore's."""
    code = ("import numpy\nimport spore\nfrom threadpoolctl import threadpool_info\n"
            "print(sorted({p['num_threads'] for p in threadpool_info() if p['user_api'] == 'blas'}))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "SPORE_", "OPENBLAS_"))}
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[1]"
    res = subprocess.run([sys.executable, "-c", code], env=dict(env, OPENBLAS_NUM_THREADS="2"), capture_output=True,
                         text=True, timeout=120)
    assert res.stdout.strip() == "[2]"


# Spore's own OpenMP loops (grain rule: engine/csrc/grain.h): pooling, the Dense ReLU
# gradient, the conv bias gradient, float32 <-> bf16/f16 casts, int8 (de)quantisation, Graph mode's
# fused elementwise chains, the Momentum update, batch and layer norm, softmax cross-entropy and the
# embedding scatter, at SimpleCNN's sizes (mostly below the grain: one thread) and
# at sizes above the grain (split over the team: elementwise or per-plane work, so still bit-equal).
_LOOPS_CHILD = r"""
import sys
import numpy as np
import ml_dtypes
from spore import _kernels as K
rng = np.random.default_rng(1)
rng2 = np.random.default_rng(2)  # the norm/loss draws, leaving rng's sequence as it was
out = {}
for tag, shape in (("small", (32, 16, 32, 32)), ("large", (16, 64, 64, 64))):
    x = rng.standard_normal(shape).astype(np.float32)
    hw = (shape[2] // 2, shape[3] // 2)
    xn = x.copy()
    xn.reshape(-1)[-5] = np.nan  # in the last thread's chunk: oneDNN's NaN check must see it
    for backend in (0, 2):  # Spore's loops; oneDNN wherever exact (taps -> argmax, the NaN check)
        K.pool_set_backend(backend)
        for relu in (False, True):
            y, idx = K.max_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), hw, relu)
            out[f"max{tag}{backend}{relu}"], out[f"arg{tag}{backend}{relu}"] = y, idx
        out[f"maxnan{tag}{backend}"] = K.max_pool2d_forward(xn, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), hw)[0]
        y3, i3 = K.max_pool2d_forward(x, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), shape[2:], False)
        out[f"max3{tag}{backend}"], out[f"arg3{tag}{backend}"] = y3, i3
        out[f"maxbwd{tag}{backend}"] = K.max_pool2d_backward(y, idx, shape)
        out[f"avg{tag}{backend}"] = K.avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0, 0, 0), hw, True, 0)
        out[f"avg3{tag}{backend}"] = K.avg_pool2d_forward(x, (3, 3), (1, 1), (1, 1, 1, 1), shape[2:], False, 0)
        out[f"avgbwd{tag}{backend}"] = K.avg_pool2d_backward(y, shape, (2, 2), (2, 2), (0, 0, 0, 0), True, 0)
        out[f"avgbwd3{tag}{backend}"] = K.avg_pool2d_backward(y3, shape, (3, 3), (1, 1), (1, 1, 1, 1), False, 0)
    K.pool_set_backend(1)
    bad = idx.copy()
    bad.reshape(-1)[-1] = shape[2] * shape[3]  # out of its plane, in the last thread's chunk
    try:
        K.max_pool2d_backward(y, bad, shape)
        out[f"badraised{tag}"] = np.array(False)
    except ValueError as e:
        out[f"badraised{tag}"] = np.array("argmax index outside" in str(e))
    g = rng.standard_normal(x.size).astype(np.float32)
    flat = x.reshape(-1)
    out[f"x{tag}"], out[f"g{tag}"] = flat, g
    out[f"relu_grad{tag}"] = K.relu_grad(g, flat)
    out[f"bias_grad{tag}"] = K.bias_add_grad(x.reshape(shape[0], shape[1], -1))
    out[f"bf16{tag}"] = K.f32_to_bf16(flat)
    out[f"bf16back{tag}"] = K.bf16_to_f32(out[f"bf16{tag}"])
    out[f"f16{tag}"] = K.f32_to_f16(flat)
    out[f"f16back{tag}"] = K.f16_to_f32(out[f"f16{tag}"])
    out[f"q{tag}"] = K.quantize_linear(flat, 0.05, 3, "int8")
    out[f"dq{tag}"] = K.dequantize_linear(out[f"q{tag}"], 0.05, 3)
    # fused chain: relu(x + g) (ops 0 = add over two inputs, 13 = relu of register 0)
    out[f"fused{tag}"] = K.fused_elementwise([[0, 0, 0, 0, 1], [13, 1, 0, 0, 0]], [flat, g],
                                             [(1, flat.size), (1, g.size)], [flat.size])
    p, m = flat.copy(), np.zeros_like(flat)
    for _ in range(2):
        K.momentum_update(p, g, m, 0.1, 0.9)
    out[f"mom_p{tag}"], out[f"mom_m{tag}"] = p, m
    # batch norm (N, C, S) and (rows, C), layer norm, softmax cross-entropy, the embedding scatter
    n, c = shape[:2]
    x3, g3 = x.reshape(n, c, -1), g.reshape(n, c, -1)
    ones, zc = np.ones(c, np.float32), np.zeros(c, np.float32)
    for lay, xv, gv in (("nchw", x3, g3), ("rows", x3.reshape(-1, c, 1), g3.reshape(-1, c, 1))):
        y, mu, rs = K.batch_norm_forward(xv, ones, zc, zc, ones, True, 1e-5)
        out[f"bn{lay}{tag}"] = y
        out[f"bnbwd{lay}{tag}"] = np.concatenate([a.reshape(-1) for a in K.batch_norm_backward(
            gv, xv, ones, mu, rs, zc, zc, True)])
        out[f"bninf{lay}{tag}"] = K.batch_norm_forward(xv, ones, zc, mu, rs, False, 1e-5)[0]
    x2, g2 = x.reshape(-1, shape[-1]), g.reshape(-1, shape[-1])
    d = x2.shape[1]
    y, mu, rs = K.layer_norm_forward(x2, np.ones(d, np.float32), np.zeros(d, np.float32), 1e-5)
    zr = np.zeros(x2.shape[0], np.float32)
    out[f"ln{tag}"] = y
    out[f"lnbwd{tag}"] = np.concatenate([a.reshape(-1) for a in K.layer_norm_backward(
        g2, x2, np.ones(d, np.float32), mu, rs, zr, zr)])
    labels = rng2.integers(0, c, n * x3.shape[2])
    cot = np.ones(n * x3.shape[2], np.float32)
    loss, dl, bad = K.softmax_ce_sparse(x3, labels, np.zeros(0, np.float32), -100, 0.1, cot, True)
    out[f"ce{tag}"], out[f"cegrad{tag}"] = loss, dl
    rows = x3.transpose(0, 2, 1).reshape(-1, c, 1).copy()
    loss, dl, bad = K.softmax_ce_sparse(rows, labels, np.zeros(0, np.float32), -100, 0.0, cot, True)
    out[f"cerows{tag}"], out[f"cerowsgrad{tag}"] = loss, dl
    probs = np.abs(g3) / np.abs(g3).sum(axis=1, keepdims=True)
    loss, dl = K.softmax_ce_dense(x3, probs.astype(np.float32), cot, True)
    out[f"cedense{tag}"], out[f"cedensegrad{tag}"] = loss, dl
    ge = g.reshape(-1, 256)
    out[f"emb{tag}"] = K.embedding_backward(ge, rng2.integers(0, 100, ge.shape[0]), 100, 3, False)
np.savez(sys.argv[1], **out)
"""


def _loops(tmp_path: Path, threads_: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_", "SPORE_"))}
    env["OMP_NUM_THREADS"] = threads_
    f = tmp_path / f"loops{threads_}.npz"
    res = subprocess.run([sys.executable, "-c", _LOOPS_CHILD, str(f)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    with np.load(f) as z:
        return dict(z)


def test_own_loops_agree_bit_for_bit_across_team_sizes_and_with_numpy(tmp_path: Path) -> None:
    one, two = _loops(tmp_path, "1"), _loops(tmp_path, "2")
    assert one.keys() == two.keys()
    for k in one:
        np.testing.assert_array_equal(one[k], two[k], err_msg=k)
    for tag, shape in (("small", (32, 16, 32, 32)), ("large", (16, 64, 64, 64))):
        r = two
        x, g = r[f"x{tag}"].reshape(shape), r[f"g{tag}"]
        assert bool(r[f"badraised{tag}"]), tag
        # independent oracles (NumPy / ml_dtypes) for the team-split results
        n, c, h, w = shape
        win = x.reshape(n, c, h // 2, 2, w // 2, 2)
        ref_max = win.max(axis=(3, 5))
        for backend in (0, 2):
            np.testing.assert_array_equal(r[f"max{tag}{backend}False"], ref_max)
            np.testing.assert_array_equal(r[f"max{tag}{backend}True"], np.maximum(ref_max, 0))
            assert np.isnan(r[f"maxnan{tag}{backend}"]).sum() == 1, (tag, backend)
            np.testing.assert_allclose(r[f"avg{tag}{backend}"], win.mean(axis=(3, 5)), rtol=1e-6, atol=1e-6)
            # the scatter puts each window's gradient (here: its ReLU'd maximum, argmax -1 where the
            # ReLU passed none) on its argmax, once
            dx = r[f"maxbwd{tag}{backend}"]
            np.testing.assert_array_equal(np.sort(dx[dx != 0]), np.sort(ref_max[ref_max > 0]))
        xf = x.reshape(-1)
        np.testing.assert_array_equal(r[f"relu_grad{tag}"], np.where(xf > 0, g, np.float32(0)))
        np.testing.assert_allclose(r[f"bias_grad{tag}"], x.astype(np.float64).sum(axis=(0, 2, 3)), rtol=1e-5,
                                   atol=1e-4)
        np.testing.assert_array_equal(r[f"bf16{tag}"], xf.astype(ml_dtypes.bfloat16).view(np.uint16))
        np.testing.assert_array_equal(r[f"bf16back{tag}"], xf.astype(ml_dtypes.bfloat16).astype(np.float32))
        np.testing.assert_array_equal(r[f"f16{tag}"], xf.astype(np.float16).view(np.uint16))
        np.testing.assert_array_equal(r[f"f16back{tag}"], xf.astype(np.float16).astype(np.float32))
        q = np.clip(np.rint(xf / np.float32(0.05)) + 3, -128, 127)
        np.testing.assert_array_equal(r[f"q{tag}"].astype(np.int32), q.astype(np.int32))
        np.testing.assert_allclose(r[f"dq{tag}"], (q - 3) * np.float32(0.05), rtol=1e-6, atol=1e-7)
        np.testing.assert_array_equal(r[f"fused{tag}"], np.maximum(xf + g, np.float32(0)))
        m1 = g  # ApplyMomentum: m = momentum * m + g; p -= lr * m (twice, from m = 0)
        m2 = np.float32(0.9) * m1 + g
        np.testing.assert_allclose(r[f"mom_m{tag}"], m2, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(r[f"mom_p{tag}"], xf - np.float32(0.1) * m1 - np.float32(0.1) * m2, rtol=1e-5,
                                   atol=1e-6)


def test_gemm_bits_do_not_depend_on_where_the_operand_lies() -> None:
    # team_sgemm copies an untransposed B whose rows lie a multiple of 2 KiB apart into longer rows
    # where oneDNN runs its AVX2 sgemm (which runs such a B up to 2x slower at a 32-byte-aligned
    # address), and only there: oneDNN's AVX-512 sgemm sums in an order that depends on the leading
    # dimension, so the copy made its bits depend on B's address (seen: a 1-thread and a 2-thread
    # process whose weights landed at different offsets differed in 84% of the elements). Either way
    # MatMul's sgemm and Dense's two GEMM gradients give the same bits wherever B lies; on AVX2 also
    # with and without the copy.
    from spore import _kernels

    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 1024)).astype(np.float32)
    src = rng.standard_normal((1024, 2048)).astype(np.float32)
    g = rng.standard_normal((128, 1024)).astype(np.float32)  # a Dense layer 2048 -> 1024: g (N, O), x (N, I), w (O, I)
    x = rng.standard_normal((128, 2048)).astype(np.float32)
    buf = np.empty(src.size + 64, np.float32)
    start = (-buf.ctypes.data % 64) // 4  # float offset of the first 64-byte-aligned element
    avx512 = _kernels.cpu_isa().startswith("avx512")
    default = _kernels.set_gemm_row_padding(True)
    _kernels.set_gemm_row_padding(default)
    assert default is not avx512  # on by default only for the AVX2 sgemm
    first = None
    try:
        for off in range(16):  # B at 0, 4, ..., 60 bytes past a 64-byte boundary
            b = buf[start + off:start + off + src.size].reshape(src.shape)
            b[...] = src
            got = (_kernels.sgemm(a, b, False, False), *_kernels.dense_backward(g, x, b, None)[:2])  # dx, dw
            first = first or got
            for name, here, at0 in zip(("sgemm", "dx", "dw"), got, first):
                np.testing.assert_array_equal(here, at0, err_msg=f"{name}: B at +{4 * off} bytes")
            if not avx512:
                _kernels.set_gemm_row_padding(False)
                plain = (_kernels.sgemm(a, b, False, False), *_kernels.dense_backward(g, x, b, None)[:2])
                _kernels.set_gemm_row_padding(True)
                for p, q in zip(plain, got):
                    np.testing.assert_array_equal(p, q, err_msg=f"padding off / on, B at +{4 * off} bytes")
    finally:
        _kernels.set_gemm_row_padding(default)
    np.testing.assert_allclose(first[0], a.astype(np.float64) @ src.astype(np.float64), rtol=0, atol=2e-3)
