"""BatchNorm folding for quantization-aware training and for conversion to int8.

An int8 convolution has no BatchNorm after it: the BN's affine map is folded into the conv's
weights and bias, per output channel c::

    w_fold[c] = w[c] * gamma[c] / sqrt(var[c] + eps)
    b_fold[c] = beta[c] + (b[c] - mean[c]) * gamma[c] / sqrt(var[c] + eps)

so quantization has to see the *folded* weights while training, or the int8 model quantizes
weights it never trained with. `Conv2dBnFoldQuant` does what MindSpore's cell of that name (and
Jacob et al., 2018) does: in training it runs the float conv once to get the batch mean/variance,
folds with those batch statistics (so the output is batch-normalised, as BatchNorm's would be) and
fake-quantizes the folded weights; after `freeze_bn` training steps, and always in eval, it folds
with the running statistics, which is exactly what `fold_bn` computes at conversion. The moving
statistics update as `nn.BatchNorm2d` updates them (momentum weights the running value, variance
blended unbiased).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from ..errors import SporeError
from ..nn import BatchNorm2d, Cell, Conv2d
from ..tensor import Parameter, Tensor


def fold_bn(weight: np.ndarray, bias: np.ndarray | None, gamma: np.ndarray, beta: np.ndarray,
            mean: np.ndarray, var: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(folded weight, folded bias) of conv(weight, bias) followed by an eval-mode BatchNorm; the
    arithmetic is float64, the results float32 (out-channel axis 0 of `weight`)."""
    w = np.asarray(weight, np.float64)
    c = w.shape[0]
    for label, v in (("gamma", gamma), ("beta", beta), ("mean", mean), ("var", var)):
        if np.asarray(v).shape != (c,):
            raise SporeError(f"fold_bn: {label} must have shape ({c},) (the conv's out channels), "
                             f"got {np.asarray(v).shape}")
    k = np.asarray(gamma, np.float64) / np.sqrt(np.asarray(var, np.float64) + float(eps))
    b = np.zeros(c) if bias is None else np.asarray(bias, np.float64)
    w_fold = w * k.reshape(-1, *([1] * (w.ndim - 1)))
    b_fold = np.asarray(beta, np.float64) + (b - np.asarray(mean, np.float64)) * k
    return w_fold.astype(np.float32), b_fold.astype(np.float32)


def fold_conv_bn(conv: Conv2d, bn: BatchNorm2d) -> Conv2d:
    """A new `nn.Conv2d` (with bias) computing conv -> bn(eval) in one convolution."""
    if not isinstance(conv, Conv2d) or not isinstance(bn, BatchNorm2d):
        raise SporeError(f"fold_conv_bn: expected nn.Conv2d and nn.BatchNorm2d, got {type(conv).__name__} "
                         f"and {type(bn).__name__}")
    if conv.format != "NCHW":
        raise SporeError("fold_conv_bn: only NCHW convolutions fold")
    params = bn.__dict__["_params"]
    w, b = fold_bn(conv.weight.asnumpy(), None if conv.bias is None else conv.bias.asnumpy(),
                   bn.gamma.asnumpy(), bn.beta.asnumpy(), params["moving_mean"].asnumpy(),
                   params["moving_variance"].asnumpy(), bn.eps)
    return _conv_like(conv, w, b)


def _conv_like(conv: Any, w: np.ndarray, b: np.ndarray) -> Conv2d:
    """An `nn.Conv2d` with `conv`'s geometry and the given weight/bias."""
    return Conv2d(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.pad_mode, conv.padding,
                  conv.dilation, conv.group, has_bias=True, weight_init=Tensor(w), bias_init=Tensor(b))


def per_channel_fake_quant_weight(observer: Cell, w: Tensor) -> Tensor:
    """Fake-quantize a weight per output channel with the range of the weight itself.

    A weight's range needs no statistics: it is computed from the weight on every call, in training
    and in eval (so the QAT network in eval and the converted int8 network use the same grid); the
    observer's `minq`/`maxq` record it in training. A per-layer observer gets the whole weight's range."""
    from .fake_quant import fake_quant

    if observer.per_channel:
        axes = tuple(range(1, w.ndim))
        mn, mx = ops.minimum(ops.amin(w, axes), 0.0), ops.maximum(ops.amax(w, axes), 0.0)
        axis = 0
    else:
        mn = ops.reshape(ops.minimum(ops.amin(w), 0.0), (1,))
        mx = ops.reshape(ops.maximum(ops.amax(w), 0.0), (1,))
        axis = None
    if observer.training:  # recorded while training (in eval the graph has no state write: it exports)
        mn = ops.assign(observer.minq, ops.stop_gradient(mn))
        mx = ops.assign(observer.maxq, ops.stop_gradient(mx))
    out = fake_quant(w, mn, mx, observer.num_bits, observer.symmetric, observer.narrow_range, axis)
    if observer.quant_delay:
        step = observer.step
        if observer.training:
            step = ops.assign(observer.step, ops.add(observer.step, 1.0))
        out = ops.where(ops.greater(step, float(observer.quant_delay)), out, w)
    return out


class Conv2dBnFoldQuant(Cell):
    """Conv2d + BatchNorm2d (+ ReLU) trained with the BN folded into fake-quantized conv weights.

    As MindSpore 1.x's ``nn.Conv2dBnFoldQuant`` (see the module docstring for the arithmetic); build
    one from float cells with `from_float(conv, bn, quant_config, relu=..., freeze_bn=...)` — which is
    what `QuantizationAwareTraining.quantize` does. The weight, BN and moving-statistic Parameters
    are the float cells' own, so a checkpoint of the float network loads into it by name."""

    def __init__(self, conv: Conv2d, bn: BatchNorm2d, quant_config: Any, relu: bool = False,
                 freeze_bn: int = 100000) -> None:
        super().__init__()
        if not isinstance(conv, Conv2d) or not isinstance(bn, BatchNorm2d):
            raise SporeError(f"Conv2dBnFoldQuant: expected nn.Conv2d and nn.BatchNorm2d, got "
                             f"{type(conv).__name__} and {type(bn).__name__}")
        if conv.format != "NCHW" or bn.format != "NCHW":
            raise SporeError("Conv2dBnFoldQuant: only NCHW layers fold")
        if bn.num_features != conv.out_channels:
            raise SporeError(f"Conv2dBnFoldQuant: BatchNorm2d({bn.num_features}) does not follow "
                             f"Conv2d(out_channels={conv.out_channels})")
        if isinstance(freeze_bn, bool) or not isinstance(freeze_bn, int) or freeze_bn < 0:
            raise SporeError(f"Conv2dBnFoldQuant: freeze_bn must be an int >= 0, got {freeze_bn!r}")
        for k in ("in_channels", "out_channels", "kernel_size", "stride", "pad_mode", "padding", "dilation",
                  "group", "has_bias"):
            setattr(self, k, getattr(conv, k))
        self.format = "NCHW"
        self.eps = float(bn.eps)
        self.momentum = float(bn.momentum)
        self.freeze_bn = freeze_bn
        self.relu = bool(relu)
        bnp = bn.__dict__["_params"]
        self.weight = conv.weight
        self.bias = conv.bias
        self.gamma = bn.gamma
        self.beta = bn.beta
        self.moving_mean = bnp["moving_mean"]
        self.moving_variance = bnp["moving_variance"]
        self.step = Parameter(np.zeros(1, np.float32), name="fold_step", requires_grad=False)
        self._input_quantizer = quant_config.activation()
        self.fake_quant_weight = quant_config.weight(channel_axis=0, num_channels=conv.out_channels)
        self._output_quantizer = quant_config.activation()

    @classmethod
    def from_float(cls, conv: Conv2d, bn: BatchNorm2d, quant_config: Any, relu: bool = False,
                   freeze_bn: int = 100000) -> Conv2dBnFoldQuant:
        """The QAT cell of `conv` -> `bn` (-> ReLU), sharing their Parameters."""
        return cls(conv, bn, quant_config, relu, freeze_bn)

    def _conv(self, x: Tensor, w: Tensor) -> Tensor:
        return ops.conv2d(x, w, None, self.stride, self.pad_mode, self.padding, self.dilation, self.group)

    def _stats(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """(mean, std) to fold with: the batch's (updating the moving ones) for the first `freeze_bn`
        training steps, then the moving ones (as this step updated them), and the moving ones in eval."""
        if not self.training:
            return self.moving_mean, ops.sqrt(ops.add(self.moving_variance, self.eps))
        y = self._conv(x, self.weight)
        if self.bias is not None:
            y = ops.add(y, ops.reshape(self.bias, (1, -1, 1, 1)))
        n = y.shape[0] * y.shape[2] * y.shape[3]
        mean_b = ops.mean(y, (0, 2, 3))
        var_b = ops.mean(ops.square(ops.sub(y, ops.reshape(mean_b, (1, -1, 1, 1)))), (0, 2, 3))
        m = self.momentum
        unbiased = ops.mul(ops.stop_gradient(var_b), n / max(n - 1, 1))
        run_mean = ops.assign(self.moving_mean, ops.add(ops.mul(self.moving_mean, m),
                                                        ops.mul(ops.stop_gradient(mean_b), 1 - m)))
        run_var = ops.assign(self.moving_variance, ops.add(ops.mul(self.moving_variance, m), ops.mul(unbiased, 1 - m)))
        step = ops.assign(self.step, ops.add(self.step, 1.0))
        batch = ops.less_equal(step, float(self.freeze_bn))
        std_b = ops.sqrt(ops.add(var_b, self.eps))
        run_std = ops.sqrt(ops.add(run_var, self.eps))
        return ops.where(batch, mean_b, run_mean), ops.where(batch, std_b, run_std)

    def folded(self, mean: Tensor, std: Tensor) -> tuple[Tensor, Tensor]:
        """(folded weight, folded bias) for the given statistics (Tensors; differentiable)."""
        k = ops.div(self.gamma, std)
        w = ops.mul(self.weight, ops.reshape(k, (-1, 1, 1, 1)))
        b = self.bias if self.bias is not None else ops.zeros_like(mean)
        return w, ops.add(self.beta, ops.mul(ops.sub(b, mean), k))

    def construct(self, x: Tensor) -> Tensor:
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise SporeError(f"Conv2dBnFoldQuant: expected an (N, {self.in_channels}, H, W) input, "
                             f"got shape {tuple(x.shape)}")
        mean, std = self._stats(x)
        w, b = self.folded(mean, std)
        xq = self._input_quantizer(x)
        y = ops.add(self._conv(xq, per_channel_fake_quant_weight(self.fake_quant_weight, w)),
                    ops.reshape(b, (1, -1, 1, 1)))
        if self.relu:
            y = ops.relu(y)
        return self._output_quantizer(y)

    def to_float_conv(self) -> Conv2d:
        """The eval-mode fold as an `nn.Conv2d` (what conversion quantizes)."""
        bias = None if self.bias is None else self.bias.asnumpy()
        w, b = fold_bn(self.weight.asnumpy(), bias, self.gamma.asnumpy(), self.beta.asnumpy(),
                       self.moving_mean.asnumpy(), self.moving_variance.asnumpy(), self.eps)
        return _conv_like(self, w, b)

    def extend_repr(self) -> str:
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, pad_mode={self.pad_mode}, freeze_bn={self.freeze_bn}, relu={self.relu}")
