"""Pure-numpy forward and backward passes: the "what plain numpy + BLAS costs" baseline of the bench.

Every op is a `*_forward` returning ``(out, cache)`` and a `*_backward` taking the upstream gradient
and that cache, the way a hand-written framework without autodiff would do it. They are written for
speed within numpy's idioms (im2col + one GEMM for convolution, reshapes instead of loops for
non-overlapping pooling), so the baseline is a fair "good numpy" rather than a straw man, and for
exactness (first-max pooling routing, MindSpore's Adam formula) so the bench can check Spore's and
PyTorch's results against it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

Cache = Any
Params = dict[str, np.ndarray]


# ---------------------------------------------------------------------------------------------- ops

def matmul_forward(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, Cache]:
    """``a @ b`` for 2-D operands."""
    return a @ b, (a, b)


def matmul_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of ``a @ b`` with respect to ``a`` and ``b``."""
    a, b = cache
    return dout @ b.T, a.T @ dout


def dense_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, Cache]:
    """MindSpore's Dense: ``x @ w.T + b`` with ``w`` laid out (out_channels, in_channels)."""
    return x @ w.T + b, (x, w)


def dense_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of Dense with respect to input, weight and bias."""
    x, w = cache
    return dout @ w, dout.T @ x, dout.sum(axis=0)


def relu_forward(x: np.ndarray) -> tuple[np.ndarray, Cache]:
    """Rectifier; the cache is the mask of positive inputs (gradient 0 at 0, as every framework)."""
    mask = x > 0
    return x * mask, mask


def relu_backward(dout: np.ndarray, mask: Cache) -> np.ndarray:
    """Gradient of ReLU."""
    return dout * mask


def _im2col(xp: np.ndarray, kh: int, kw: int, stride: int) -> tuple[np.ndarray, int, int]:
    """Patches of a padded NCHW input as (N, C*kh*kw, Ho*Wo): one batched GEMM gives NCHW output directly.

    This layout (output pixels innermost) copies with contiguous inner runs and needs no transpose
    of the result, which measured ~5x faster than the textbook (N*Ho*Wo, C*kh*kw) layout here.
    """
    n, c, hp, wp = xp.shape
    ho, wo = (hp - kh) // stride + 1, (wp - kw) // stride + 1
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::stride, ::stride]
    cols = np.ascontiguousarray(win.transpose(0, 1, 4, 5, 2, 3)).reshape(n, c * kh * kw, ho * wo)
    return cols, ho, wo


def conv2d_forward(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None, stride: int = 1,
                   pad: int = 0) -> tuple[np.ndarray, Cache]:
    """NCHW convolution (cross-correlation, as in every DL framework) by im2col + batched GEMM."""
    n = x.shape[0]
    o, c, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad))) if pad else x
    cols, ho, wo = _im2col(xp, kh, kw, stride)
    wmat = w.reshape(o, c * kh * kw)
    out = np.matmul(wmat, cols)  # (N, O, Ho*Wo)
    if b is not None:
        out += b[:, None]
    return out.reshape(n, o, ho, wo), (x.shape, xp.shape, cols, w, stride, pad, ho, wo, b is not None)


def conv2d_backward(dout: np.ndarray, cache: Cache,
                    need_dx: bool = True) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
    """Gradients of conv2d w.r.t. input, weight and (if there was one) bias; col2im by kernel offset.

    `need_dx=False` skips the input gradient (a network's first layer), as autograd engines do.
    """
    x_shape, xp_shape, cols, w, stride, pad, ho, wo, has_bias = cache
    n, c, _, _ = x_shape
    o, _, kh, kw = w.shape
    dmat = dout.reshape(n, o, ho * wo)
    dw = np.matmul(dmat, cols.transpose(0, 2, 1)).sum(axis=0).reshape(w.shape)
    db = dmat.sum(axis=(0, 2)) if has_bias else None
    if not need_dx:
        return None, dw, db
    dcols = np.matmul(w.reshape(o, -1).T, dmat).reshape(n, c, kh, kw, ho, wo)
    dxp = np.zeros(xp_shape, dtype=dout.dtype)
    for i in range(kh):
        for j in range(kw):
            dxp[:, :, i:i + stride * ho:stride, j:j + stride * wo:stride] += dcols[:, :, i, j]
    dx = dxp[:, :, pad:pad + x_shape[2], pad:pad + x_shape[3]] if pad else dxp
    return np.ascontiguousarray(dx), dw, db


def maxpool2x2_forward(x: np.ndarray) -> tuple[np.ndarray, Cache]:
    """2x2 / stride-2 max pooling (even H and W): the max of the four strided views of the input."""
    views = (x[:, :, 0::2, 0::2], x[:, :, 0::2, 1::2], x[:, :, 1::2, 0::2], x[:, :, 1::2, 1::2])
    out = np.maximum(np.maximum(views[0], views[1]), np.maximum(views[2], views[3]))
    return out, (x, out)


def maxpool2x2_backward(dout: np.ndarray, cache: Cache) -> np.ndarray:
    """Route each window's gradient to its first maximum in row-major order (PyTorch's and MindSpore's tie rule)."""
    x, out = cache
    dx = np.zeros_like(x)
    taken = np.zeros(out.shape, dtype=bool)
    for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)):
        hit = x[:, :, i::2, j::2] == out
        hit &= ~taken
        taken |= hit
        dx[:, :, i::2, j::2] = dout * hit
    return dx


def softmax_xent_forward(logits: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, Cache]:
    """Mean sparse softmax cross-entropy (MindSpore's SoftmaxCrossEntropyWithLogits(sparse=True, 'mean'))."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    logp = z - np.log(s)
    n = logits.shape[0]
    loss = -logp[np.arange(n), labels].mean()
    return np.asarray(loss, dtype=logits.dtype), (e / s, labels)


def softmax_xent_backward(dout: np.ndarray, cache: Cache) -> np.ndarray:
    """Gradient of the mean cross-entropy: (softmax - onehot) / N, scaled by the upstream scalar."""
    p, labels = cache
    n = p.shape[0]
    g = p.copy()
    g[np.arange(n), labels] -= 1.0
    return g * (np.asarray(dout, dtype=p.dtype) / n)


def batchnorm_train_forward(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, running_mean: np.ndarray,
                            running_var: np.ndarray, momentum: float = 0.1,
                            eps: float = 1e-5) -> tuple[np.ndarray, Cache]:
    """Training-mode BatchNorm2d: batch statistics over (N, H, W), running stats updated in place.

    `momentum` is PyTorch's convention (weight of the new batch), as in MindSpore's functional
    ``ops.batch_norm``; ``nn.BatchNorm2d(momentum=0.9)`` weights the old value, i.e. the same update.
    The running variance takes the unbiased batch variance, as PyTorch does; MindSpore's CPU kernel
    feeds it the biased one (a relative difference of 1/(m-1), inside the bench's check tolerance).
    """
    axes = (0, 2, 3)
    m = x.shape[0] * x.shape[2] * x.shape[3]
    mean = x.mean(axis=axes)
    xc = x - mean[None, :, None, None]
    var = (xc * xc).mean(axis=axes)
    inv = 1.0 / np.sqrt(var + eps)
    xhat = xc * inv[None, :, None, None]
    out = xhat * gamma[None, :, None, None] + beta[None, :, None, None]
    running_mean *= 1.0 - momentum
    running_mean += momentum * mean
    running_var *= 1.0 - momentum
    running_var += momentum * var * (m / max(m - 1, 1))
    return out, (xhat, inv, gamma)


def batchnorm_train_backward(dout: np.ndarray, cache: Cache) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of training-mode BatchNorm2d w.r.t. input, gamma and beta (the compact closed form)."""
    xhat, inv, gamma = cache
    axes = (0, 2, 3)
    m = dout.shape[0] * dout.shape[2] * dout.shape[3]
    dbeta = dout.sum(axis=axes)
    dgamma = (dout * xhat).sum(axis=axes)
    k = (gamma * inv / m)[None, :, None, None]
    dx = k * (m * dout - dbeta[None, :, None, None] - xhat * dgamma[None, :, None, None])
    return dx, dgamma, dbeta


# ----------------------------------------------------------------------------------------- optimizer

class Adam:
    """MindSpore's `nn.Adam` update: ``p -= lr * sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)``."""

    def __init__(self, params: Params, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999,
                 eps: float = 1e-8) -> None:
        self.params = params
        self.lr, self.b1, self.b2, self.eps = lr, beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads: Mapping[str, np.ndarray]) -> None:
        """Apply one update in place (the parameter arrays are the model's own)."""
        self.t += 1
        lr_t = self.lr * np.sqrt(1.0 - self.b2 ** self.t) / (1.0 - self.b1 ** self.t)
        for k, p in self.params.items():
            g = grads[k]
            m, v = self.m[k], self.v[k]
            m *= self.b1
            m += (1.0 - self.b1) * g
            v *= self.b2
            v += (1.0 - self.b2) * (g * g)
            p -= (lr_t * m / (np.sqrt(v) + self.eps)).astype(p.dtype)


# ------------------------------------------------------------------------------------------- models

class MLP:
    """784-256-128-10 with ReLU: the bench's dense training workload."""

    def __init__(self, params: Params) -> None:
        self.p = params

    def loss_and_grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        """Forward, mean softmax cross-entropy, and the backward pass of every parameter."""
        p = self.p
        h1, c1 = dense_forward(x, p["fc1.weight"], p["fc1.bias"])
        a1, r1 = relu_forward(h1)
        h2, c2 = dense_forward(a1, p["fc2.weight"], p["fc2.bias"])
        a2, r2 = relu_forward(h2)
        logits, c3 = dense_forward(a2, p["fc3.weight"], p["fc3.bias"])
        loss, cl = softmax_xent_forward(logits, y)
        g: dict[str, np.ndarray] = {}
        d = softmax_xent_backward(np.float32(1.0), cl)
        d, g["fc3.weight"], g["fc3.bias"] = dense_backward(d, c3)
        d, g["fc2.weight"], g["fc2.bias"] = dense_backward(relu_backward(d, r2), c2)
        _, g["fc1.weight"], g["fc1.bias"] = dense_backward(relu_backward(d, r1), c1)
        return float(loss), g

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Inference forward pass."""
        p = self.p
        h = np.maximum(x @ p["fc1.weight"].T + p["fc1.bias"], 0)
        h = np.maximum(h @ p["fc2.weight"].T + p["fc2.bias"], 0)
        return h @ p["fc3.weight"].T + p["fc3.bias"]


class SimpleCNN:
    """The seeds' SimpleCNN: Conv2d(3,16,3,pad 1, no bias) -> ReLU -> MaxPool 2x2 -> Flatten -> Dense(4096,10)."""

    def __init__(self, params: Params) -> None:
        self.p = params

    def loss_and_grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        """Forward, mean softmax cross-entropy, and the backward pass of every parameter."""
        p = self.p
        h, cc = conv2d_forward(x, p["conv1.weight"], None, stride=1, pad=1)
        a, rc = relu_forward(h)
        m, cp = maxpool2x2_forward(a)
        flat = m.reshape(m.shape[0], -1)
        logits, cf = dense_forward(flat, p["fc.weight"], p["fc.bias"])
        loss, cl = softmax_xent_forward(logits, y)
        g: dict[str, np.ndarray] = {}
        d = softmax_xent_backward(np.float32(1.0), cl)
        d, g["fc.weight"], g["fc.bias"] = dense_backward(d, cf)
        d = maxpool2x2_backward(d.reshape(m.shape), cp)
        _, g["conv1.weight"], _ = conv2d_backward(relu_backward(d, rc), cc, need_dx=False)
        return float(loss), g


class LeNet5:
    """LeNet-5 on 1x28x28: conv5x5 p2 (1->6) -> ReLU -> pool -> conv5x5 (6->16) -> ReLU -> pool -> 400-120-84-10.

    Convolutions without bias (MindSpore's ``nn.Conv2d`` default), Dense layers with bias and ReLU.
    """

    def __init__(self, params: Params) -> None:
        self.p = params

    def loss_and_grads(self, x: np.ndarray, y: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        """Forward, mean softmax cross-entropy, and the backward pass of every parameter."""
        p = self.p
        h1, cc1 = conv2d_forward(x, p["conv1.weight"], None, stride=1, pad=2)
        a1, r1 = relu_forward(h1)
        m1, cp1 = maxpool2x2_forward(a1)
        h2, cc2 = conv2d_forward(m1, p["conv2.weight"], None, stride=1, pad=0)
        a2, r2 = relu_forward(h2)
        m2, cp2 = maxpool2x2_forward(a2)
        flat = m2.reshape(m2.shape[0], -1)
        f1, cf1 = dense_forward(flat, p["fc1.weight"], p["fc1.bias"])
        g1, rf1 = relu_forward(f1)
        f2, cf2 = dense_forward(g1, p["fc2.weight"], p["fc2.bias"])
        g2, rf2 = relu_forward(f2)
        logits, cf3 = dense_forward(g2, p["fc3.weight"], p["fc3.bias"])
        loss, cl = softmax_xent_forward(logits, y)
        g: dict[str, np.ndarray] = {}
        d = softmax_xent_backward(np.asarray(1.0, dtype=logits.dtype), cl)
        d, g["fc3.weight"], g["fc3.bias"] = dense_backward(d, cf3)
        d, g["fc2.weight"], g["fc2.bias"] = dense_backward(relu_backward(d, rf2), cf2)
        d, g["fc1.weight"], g["fc1.bias"] = dense_backward(relu_backward(d, rf1), cf1)
        d = maxpool2x2_backward(d.reshape(m2.shape), cp2)
        d, g["conv2.weight"], _ = conv2d_backward(relu_backward(d, r2), cc2)
        d = maxpool2x2_backward(d, cp1)
        _, g["conv1.weight"], _ = conv2d_backward(relu_backward(d, r1), cc1, need_dx=False)
        return float(loss), g


class TrainStep:
    """One Adam training step of a model over a fixed batch, as a callable returning the loss."""

    def __init__(self, model: MLP | SimpleCNN | LeNet5, lr: float = 1e-3) -> None:
        self.model = model
        self.opt = Adam(model.p, lr=lr)

    def __call__(self, x: np.ndarray, y: np.ndarray) -> float:
        loss, grads = self.model.loss_and_grads(x, y)
        self.opt.step(grads)
        return loss
