"""The bench's numpy reference is right: its hand-written backward passes match finite differences.

`bench/run.py` judges Spore's outputs and gradients against this reference ("Spore vs ref"), so the
reference itself is pinned here, in float64 on small shapes, against central differences.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import numpy_ref as R  # noqa: E402


def numeric_grad(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar f() with respect to x (perturbed in place)."""
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        old = x[i]
        x[i] = old + eps
        hi = f()
        x[i] = old - eps
        lo = f()
        x[i] = old
        g[i] = (hi - lo) / (2 * eps)
    return g


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def test_conv2d_backward_matches_finite_differences(rng):
    x, w, b = rng.standard_normal((2, 3, 5, 5)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4)
    dout = rng.standard_normal((2, 4, 3, 3))  # stride 2, pad 1: 5 -> 3
    out, cache = R.conv2d_forward(x, w, b, stride=2, pad=1)
    dx, dw, db = R.conv2d_backward(dout, cache)
    loss = lambda: float((R.conv2d_forward(x, w, b, stride=2, pad=1)[0] * dout).sum())
    for analytic, var in ((dx, x), (dw, w), (db, b)):
        np.testing.assert_allclose(analytic, numeric_grad(loss, var), rtol=1e-6, atol=1e-8)


def test_conv2d_forward_matches_direct_sum(rng):
    x, w = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((3, 2, 3, 3))
    out, _ = R.conv2d_forward(x, w, None, stride=1, pad=1)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    direct = np.array([[[[(xp[0, :, i:i + 3, j:j + 3] * w[o]).sum() for j in range(4)] for i in range(4)]
                        for o in range(3)]])
    np.testing.assert_allclose(out, direct, rtol=1e-12)


def test_maxpool_routes_gradient_to_first_max_on_ties():
    x = np.zeros((1, 1, 2, 4))
    x[0, 0, 1, 3] = 5.0  # second window has a unique max; first window is all ties
    out, cache = R.maxpool2x2_forward(x)
    dx = R.maxpool2x2_backward(np.array([[[[1.0, 2.0]]]]), cache)
    assert out.tolist() == [[[[0.0, 5.0]]]]
    assert dx.tolist() == [[[[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]]]


def test_softmax_xent_and_batchnorm_backward_match_finite_differences(rng):
    logits, labels = rng.standard_normal((5, 4)), np.array([0, 3, 1, 1, 2])
    _, c = R.softmax_xent_forward(logits, labels)
    g = R.softmax_xent_backward(np.float64(1.0), c)
    np.testing.assert_allclose(g, numeric_grad(lambda: float(R.softmax_xent_forward(logits, labels)[0]), logits),
                               rtol=1e-6, atol=1e-9)
    x, gamma, beta = rng.standard_normal((3, 2, 2, 2)), rng.standard_normal(2), rng.standard_normal(2)
    dout = rng.standard_normal(x.shape)
    stats = lambda: (np.zeros(2), np.ones(2))
    _, c = R.batchnorm_train_forward(x, gamma, beta, *stats())
    dx, dgamma, dbeta = R.batchnorm_train_backward(dout, c)
    loss = lambda: float((R.batchnorm_train_forward(x, gamma, beta, *stats())[0] * dout).sum())
    for analytic, var in ((dx, x), (dgamma, gamma), (dbeta, beta)):
        np.testing.assert_allclose(analytic, numeric_grad(loss, var), rtol=1e-5, atol=1e-8)


def test_mlp_training_step_lowers_the_loss_on_a_fixed_batch():
    from bench.cases import train_batch, train_params

    step = R.TrainStep(R.MLP(train_params("mlp")))
    x, y = train_batch("mlp")
    losses = [step(x, y) for _ in range(5)]
    assert losses[-1] < losses[0] - 0.5, losses


def test_lenet5_backward_matches_finite_differences(rng):
    """LeNet-5's hand-chained backward (two convs, two pools, three Dense layers), on sampled entries."""
    from bench.cases import train_params

    p = {k: v.astype(np.float64) for k, v in train_params("lenet").items()}
    model = R.LeNet5(p)
    x, y = rng.standard_normal((2, 1, 28, 28)), np.array([3, 7])
    _, grads = model.loss_and_grads(x, y)
    loss = lambda: model.loss_and_grads(x, y)[0]
    eps = 1e-6
    for name, w in p.items():
        flat = w.reshape(-1)  # a view: perturbing it perturbs the model's parameter
        for i in rng.choice(flat.size, size=min(6, flat.size), replace=False):
            old = flat[i]
            flat[i] = old + eps
            hi = loss()
            flat[i] = old - eps
            lo = loss()
            flat[i] = old
            np.testing.assert_allclose(grads[name].reshape(-1)[i], (hi - lo) / (2 * eps), rtol=1e-5, atol=1e-8,
                                       err_msg=f"{name}[{i}]")
