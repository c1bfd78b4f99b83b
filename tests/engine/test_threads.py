"""The OpenMP thread policy (spore._runtime.threads, the GEMM grain size in engine/csrc/kernels.h):
defaults only where the user set nothing, and results that do not depend on the team size below the
grain nor on the wait policy at all."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
xc = rng.standard_normal((32, 3, 32, 32)).astype(np.float32)  # SimpleCNN's conv: 14M MACs, below the grain
wc = rng.standard_normal((16, 3, 3, 3)).astype(np.float32)
out["conv"] = _kernels.conv2d_forward(xc, wc, None, (1, 1), (1, 1, 1, 1), (1, 1), 1)
out["conv_dx"], out["conv_dw"], _ = _kernels.conv2d_backward(out["conv"], xc, wc, (1, 1), (1, 1, 1, 1), (1, 1), 1,
                                                             False)
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


def test_above_the_grain_threads_change_only_the_summation_order(tmp_path: Path) -> None:
    # Above the grain oneDNN splits the product over the team; float32 partial sums may be added in
    # another order. Bound: K * 2**-24 * sum|a||b| per entry ~ 1024 * 6e-8 * 32 (|a||b| summed over
    # K=1024 standard normals ~ 0.64 K) ~ 2e-3, asserted within 2e-3.
    one = _child(tmp_path, "t1", _LARGE, OMP_NUM_THREADS="1")
    two = _child(tmp_path, "t2", _LARGE, OMP_NUM_THREADS="2")
    for k in one:
        if k.startswith(("sgemm", "bf16")) and "x1024x" in k:
            np.testing.assert_allclose(one[k], two[k], rtol=0, atol=2e-3, err_msg=k)


def test_wait_policy_never_changes_results(tmp_path: Path) -> None:
    passive = _child(tmp_path, "p", _SMALL + _LARGE, OMP_NUM_THREADS="2")
    active = _child(tmp_path, "a", _SMALL + _LARGE, OMP_NUM_THREADS="2", SPORE_WAIT_POLICY="active")
    for k in passive:
        np.testing.assert_array_equal(passive[k], active[k], err_msg=k)


def test_defaults_fill_only_what_the_user_left_unset() -> None:
    env: dict[str, str] = {}
    out = threads.configure_environment(env)
    assert env == {"OMP_WAIT_POLICY": "passive", "OMP_NUM_THREADS": str(threads.affinity_cores())}
    assert out["wait_policy"] == "passive" and out["threads"] == threads.affinity_cores()
    env = {"OMP_WAIT_POLICY": "active", "OMP_NUM_THREADS": "7"}
    threads.configure_environment(env)
    assert env == {"OMP_WAIT_POLICY": "active", "OMP_NUM_THREADS": "7"}
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
