"""Quantization-aware training: rewrite a float network into fake-quantized QAT cells, fine-tune it,
then convert it into a real int8 network.

    qat = QuantizationAwareTraining(bn_fold=True, freeze_bn=1000)
    net = qat.quantize(net, x[:4])   # Conv2d(+BatchNorm2d)(+ReLU) and Dense(+ReLU) become QAT cells
    ...train net as usual...         # the STE passes gradients through the fake quantization
    int8_net = qat.convert(net)      # QuantConv2d / QuantDense (spore.quant.qmodules) with the learned scales
    ms.export(int8_net, x, file_name="net_int8", file_format="ONNX")   # QDQ ONNX

(golden-stick's spelling works too: ``SimulatedQuantizationAwareTraining(config).apply(net)`` and
``.convert(net, ckpt_path="")``; `spore.quant.convert_qat(net)` is the function.) A QAT network in
eval exports to ONNX as well: `FakeQuant` maps to its float arithmetic, which onnxruntime reproduces.

What is rewritten: every `nn.Conv2d` becomes `Conv2dQuant` and every `nn.Dense` `DenseQuant`; inside
an `nn.SequentialCell`, a Conv2d followed by a BatchNorm2d becomes one `Conv2dBnFoldQuant` (or
`Conv2dBnWithoutFoldQuant` with ``bn_fold=False``) and a ReLU right after a conv/dense is fused into
it (the fused cells' positions hold `nn.Identity`, so the other layers keep their parameter names);
`nn.Conv2dBnAct` / `nn.DenseBnAct` fuse the same way. Given example inputs, `quantize` also runs
the network once and fuses the chains any `construct` makes (the trace `quantize_static` uses).
Unfused, a ReLU stays in float after its layer: relu(fake_quant(y)) is still on the int8 grid, so
the converted network computes the same values. Every QAT cell fake-quantizes its input
(`_input_quantizer`), its weights (`fake_quant_weight`, per output channel) and its output
(`_output_quantizer`), as golden-stick's QuantCell does; the activation quantizers track an EMA of
the min/max in training and are frozen in eval.

Where Spore differs from MindSpore 1.x's ``QuantizationAwareTraining`` (pairs are (weight,
activation) as there): ``per_channel``, ``symmetric`` and ``narrow_range`` default to (True, False)
(MindSpore's defaults are all False), because the int8 kernels take symmetric per-channel weights
on the narrow grid -127..127. Symmetric weights on the full grid nudge the zero point from 127.5,
which float32 rounds to 127 or 128 per channel, so a channel's largest weight can land one step
away from the int8 kernel's; narrow range has zero point 128 exactly. Asymmetric weights are
accepted for training and refused by `convert` with a message saying so. Weights of fewer bits
(``quant_dtype=(QuantDtype.INT4, QuantDtype.INT8)``) convert onto the same int8 kernels (their
integers are int8 values); activations must be 8-bit to convert (uint8, as onnxruntime's QDQ).
"""

from __future__ import annotations

from collections import namedtuple
from functools import partial
from typing import Any

import numpy as np

from .. import ops
from ..errors import SporeError
from ..nn import BatchNorm2d, Cell, Conv2d, Dense, Identity, ReLU, SequentialCell
from ..tensor import Tensor
from .bn_fold import Conv2dBnFoldQuant, fold_bn, per_channel_fake_quant_weight
from .fake_quant import FakeQuantWithMinMaxObserver, QuantDtype, qparams

QuantConfig = namedtuple("QuantConfig", ["weight", "activation"])
QuantConfig.__doc__ = """(weight, activation): factories of the fake-quant observer Cells a QAT cell makes
(MindSpore's `compression.quant.QuantConfig`); `weight` is called with channel_axis and num_channels."""


def create_quant_config(quant_observer: Any = (FakeQuantWithMinMaxObserver, FakeQuantWithMinMaxObserver),
                        quant_delay: Any = (0, 0), quant_dtype: Any = (QuantDtype.INT8, QuantDtype.INT8),
                        per_channel: Any = (True, False), symmetric: Any = (True, False),
                        narrow_range: Any = (True, False), mode: str = "DEFAULT") -> QuantConfig:
    """A `QuantConfig` as MindSpore 1.x's `create_quant_config` (pairs are (weight, activation));
    weight observers take their range from the weights (ema=False), activation observers an EMA."""
    obs_w, obs_a = _pair(quant_observer, "quant_observer")
    d_w, d_a = _pair(quant_delay, "quant_delay")
    t_w, t_a = _pair(quant_dtype, "quant_dtype")
    pc_w, pc_a = _pair(per_channel, "per_channel")
    s_w, s_a = _pair(symmetric, "symmetric")
    n_w, n_a = _pair(narrow_range, "narrow_range")
    if pc_a:
        raise SporeError("QuantizationAwareTraining: per_channel activations are not supported "
                         "(the second element of per_channel must be False, as in MindSpore)")
    weight = partial(obs_w, ema=False, per_channel=bool(pc_w), quant_dtype=t_w, symmetric=bool(s_w),
                     narrow_range=bool(n_w), quant_delay=int(d_w), mode=mode)
    activation = partial(obs_a, ema=True, ema_decay=0.999, per_channel=False, quant_dtype=t_a,
                         symmetric=bool(s_a), narrow_range=bool(n_a), quant_delay=int(d_a), mode=mode)
    return QuantConfig(weight=weight, activation=activation)


def _pair(v: Any, name: str) -> tuple[Any, Any]:
    if isinstance(v, (list, tuple)):
        if len(v) != 2:
            raise SporeError(f"QuantizationAwareTraining: {name} must be one value or a (weight, activation) pair, "
                             f"got {v!r}")
        return v[0], v[1]
    return v, v


class _QuantLinearCell(Cell):
    """Shared part of the QAT conv/dense cells: input, weight and output fake quantization around
    the float op, a fused ReLU, the float cell's own Parameters."""

    _kind = ""

    def __init__(self, float_cell: Cell, quant_config: QuantConfig, relu: bool = False) -> None:
        super().__init__()
        self.weight = float_cell.weight
        self.bias = float_cell.bias
        self.has_bias = float_cell.bias is not None
        self.in_channels = float_cell.in_channels
        self.out_channels = float_cell.out_channels
        self.relu = bool(relu)
        self._input_quantizer = quant_config.activation()
        self.fake_quant_weight = quant_config.weight(channel_axis=0, num_channels=self.out_channels)
        self._output_quantizer = quant_config.activation()

    def _op(self, x: Tensor, w: Tensor) -> Tensor:
        raise TypeError(f"{type(self).__name__} does not define its float op")

    def _weight(self) -> Tensor:
        return self.weight

    def _post(self, y: Tensor) -> Tensor:
        return y

    def construct(self, x: Tensor) -> Tensor:
        self._check(x)
        xq = self._input_quantizer(x)
        y = self._op(xq, per_channel_fake_quant_weight(self.fake_quant_weight, self._weight()))
        y = self._post(y)
        if self.relu:
            y = ops.relu(y)
        return self._output_quantizer(y)

    def _check(self, x: Tensor) -> None:
        pass

    def to_float(self) -> Cell:
        """The float cell the int8 layer quantizes (its weights, with any BatchNorm folded)."""
        raise TypeError(f"{type(self).__name__} has no float form")


class DenseQuant(_QuantLinearCell):
    """A Dense with fake-quantized input, weights (per output channel) and output (MindSpore's
    ``nn.DenseQuant``; built by `from_float(dense, quant_config, relu=False)`)."""

    @classmethod
    def from_float(cls, dense: Dense, quant_config: QuantConfig, relu: bool = False) -> DenseQuant:
        if not isinstance(dense, Dense):
            raise SporeError(f"DenseQuant.from_float: expected an nn.Dense, got {type(dense).__name__}")
        if dense.activation_flag:
            raise SporeError("DenseQuant.from_float: Dense(activation=...) is not supported; use a separate nn.ReLU")
        return cls(dense, quant_config, relu)

    def _check(self, x: Tensor) -> None:
        if not x.shape or x.shape[-1] != self.in_channels:
            raise SporeError(f"DenseQuant: expected an input of shape (..., {self.in_channels}), got {tuple(x.shape)}")

    def _op(self, x: Tensor, w: Tensor) -> Tensor:
        return ops.dense(x, w, self.bias)

    def to_float(self) -> Dense:
        b = self.bias.asnumpy() if self.has_bias else np.zeros(self.out_channels, np.float32)
        return Dense(self.in_channels, self.out_channels, Tensor(self.weight.asnumpy()), Tensor(b))

    def extend_repr(self) -> str:
        return f"in_channels={self.in_channels}, out_channels={self.out_channels}, relu={self.relu}"


class Conv2dQuant(_QuantLinearCell):
    """A Conv2d (NCHW) with fake-quantized input, weights (per output channel) and output
    (MindSpore's ``nn.Conv2dQuant``; built by `from_float(conv, quant_config, relu=False)`)."""

    def __init__(self, conv: Conv2d, quant_config: QuantConfig, relu: bool = False) -> None:
        super().__init__(conv, quant_config, relu)
        for k in ("kernel_size", "stride", "pad_mode", "padding", "dilation", "group"):
            setattr(self, k, getattr(conv, k))

    @classmethod
    def from_float(cls, conv: Conv2d, quant_config: QuantConfig, relu: bool = False) -> Conv2dQuant:
        if not isinstance(conv, Conv2d) or conv.format != "NCHW":
            raise SporeError(f"Conv2dQuant.from_float: expected an NCHW nn.Conv2d, got {type(conv).__name__}")
        return cls(conv, quant_config, relu)

    def _check(self, x: Tensor) -> None:
        if x.ndim != 4 or x.shape[1] != self.in_channels:
            raise SporeError(f"{type(self).__name__}: expected an (N, {self.in_channels}, H, W) input, "
                             f"got shape {tuple(x.shape)}")

    def _op(self, x: Tensor, w: Tensor) -> Tensor:
        return ops.conv2d(x, w, self.bias, self.stride, self.pad_mode, self.padding, self.dilation, self.group)

    def to_float(self) -> Conv2d:
        b = self.bias.asnumpy() if self.has_bias else np.zeros(self.out_channels, np.float32)
        return Conv2d(self.in_channels, self.out_channels, self.kernel_size, self.stride, self.pad_mode,
                      self.padding, self.dilation, self.group, has_bias=True,
                      weight_init=Tensor(self.weight.asnumpy()), bias_init=Tensor(b))

    def extend_repr(self) -> str:
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, pad_mode={self.pad_mode}, relu={self.relu}")


class Conv2dBnWithoutFoldQuant(Conv2dQuant):
    """Conv2d with fake-quantized weights, then a real BatchNorm2d (batch statistics in training),
    then the fused ReLU and the output fake quant (MindSpore's ``nn.Conv2dBnWithoutFoldQuant``,
    ``bn_fold=False``). Conversion folds the BatchNorm exactly and quantizes the folded weights."""

    def __init__(self, conv: Conv2d, bn: BatchNorm2d, quant_config: QuantConfig, relu: bool = False) -> None:
        super().__init__(conv, quant_config, relu)
        if not isinstance(bn, BatchNorm2d) or bn.num_features != conv.out_channels:
            raise SporeError(f"Conv2dBnWithoutFoldQuant: expected a BatchNorm2d({conv.out_channels}) after the conv")
        self.batchnorm = bn

    @classmethod
    def from_float(cls, conv: Conv2d, bn: BatchNorm2d, quant_config: QuantConfig,  # type: ignore[override]
                   relu: bool = False) -> Conv2dBnWithoutFoldQuant:
        return cls(conv, bn, quant_config, relu)

    def _post(self, y: Tensor) -> Tensor:
        return self.batchnorm(y)

    def to_float(self) -> Conv2d:
        conv = super().to_float()
        bnp = self.batchnorm.__dict__["_params"]
        w, b = fold_bn(conv.weight.asnumpy(), conv.bias.asnumpy(), self.batchnorm.gamma.asnumpy(),
                       self.batchnorm.beta.asnumpy(), bnp["moving_mean"].asnumpy(),
                       bnp["moving_variance"].asnumpy(), self.batchnorm.eps)
        conv.weight.set_data(Tensor(w))
        conv.bias.set_data(Tensor(b))
        return conv


class ActQuant(Cell):
    """An activation followed by a fake quant of its output (MindSpore's ``nn.ActQuant``)."""

    def __init__(self, activation: Cell, ema: bool = False, ema_decay: float = 0.999, fake_before: bool = False,
                 quant_config: QuantConfig | None = None, quant_dtype: Any = QuantDtype.INT8,
                 quant_delay: int = 0) -> None:
        super().__init__()
        cfg = quant_config or create_quant_config()
        self.act = activation
        self.fake_before = bool(fake_before)
        kw = {"ema": ema, "ema_decay": ema_decay, "quant_dtype": quant_dtype, "quant_delay": quant_delay}
        self.fake_quant_act_before = cfg.activation(**kw) if fake_before else None
        self.fake_quant_act = cfg.activation(**kw)

    def construct(self, x: Tensor) -> Tensor:
        if self.fake_quant_act_before is not None:
            x = self.fake_quant_act_before(x)
        return self.fake_quant_act(self.act(x))


_QAT_CELLS = (DenseQuant, Conv2dQuant, Conv2dBnFoldQuant)  # Conv2dBnWithoutFoldQuant is a Conv2dQuant


class QuantizationAwareTraining:
    """Rewrites a float network for quantization-aware training (MindSpore 1.x's
    ``compression.quant.QuantizationAwareTraining``; see the module docstring for what is rewritten
    and where the defaults differ). Pairs are (weight, activation)."""

    def __init__(self, bn_fold: bool = True, freeze_bn: int = 10000000, quant_delay: Any = (0, 0),
                 quant_dtype: Any = (QuantDtype.INT8, QuantDtype.INT8), per_channel: Any = (True, False),
                 symmetric: Any = (True, False), narrow_range: Any = (True, False),
                 optimize_option: Any = None, one_conv_fold: bool = True) -> None:
        if not isinstance(bn_fold, bool):
            raise SporeError(f"QuantizationAwareTraining: bn_fold must be a bool, got {bn_fold!r}")
        if isinstance(freeze_bn, bool) or not isinstance(freeze_bn, int) or freeze_bn < 0:
            raise SporeError(f"QuantizationAwareTraining: freeze_bn must be an int >= 0, got {freeze_bn!r}")
        if optimize_option not in (None, "QAT") and getattr(optimize_option, "name", None) != "QAT":
            raise SporeError(f"QuantizationAwareTraining: optimize_option must be OptimizeOption.QAT, "
                             f"got {optimize_option!r}")
        self.bn_fold = bn_fold
        self.freeze_bn = freeze_bn
        self.one_conv_fold = bool(one_conv_fold)
        self._settings = {n: list(_pair(v, n)) for n, v in (
            ("quant_delay", quant_delay), ("quant_dtype", quant_dtype), ("per_channel", per_channel),
            ("symmetric", symmetric), ("narrow_range", narrow_range))}  # (weight, activation)
        self._configure()

    def _configure(self) -> None:
        """Check the (weight, activation) settings and build the observer factories from them."""
        st = self._settings
        for n in ("quant_delay", "per_channel", "symmetric", "narrow_range"):
            for e in st[n]:
                if n == "quant_delay" and (isinstance(e, bool) or not isinstance(e, int) or e < 0):
                    raise SporeError(f"QuantizationAwareTraining: quant_delay must be ints >= 0, got {st[n]!r}")
                if n != "quant_delay" and not isinstance(e, bool):
                    raise SporeError(f"QuantizationAwareTraining: {n} must be bools, got {st[n]!r}")
        for dt in st["quant_dtype"]:
            QuantDtype.num_bits(dt)
        self.quant_config = create_quant_config(**{n: tuple(v) for n, v in st.items()})

    # --- rewriting ---------------------------------------------------------------------------------
    def _fused(self, conv: Cell, bn: Cell | None, relu: bool) -> Cell:
        cfg = self.quant_config
        if isinstance(conv, Dense):
            return DenseQuant.from_float(conv, cfg, relu)
        if bn is None:
            return Conv2dQuant.from_float(conv, cfg, relu)
        if self.bn_fold:
            cell: Cell = Conv2dBnFoldQuant.from_float(conv, bn, cfg, relu, self.freeze_bn)
        else:
            cell = Conv2dBnWithoutFoldQuant.from_float(conv, bn, cfg, relu)
        # where the BatchNorm was in the float network (its place now holds an Identity): what
        # `convert` reports as folded, so `load_quantized_model` rebuilds from the float class
        cell.bn_path = self._paths.get(id(bn), "")
        return cell

    def _rewrite_sequence(self, seq: SequentialCell) -> None:
        cells = list(seq)
        fixed = list(seq.__dict__["_fixed"])
        out, names, i = [], [], 0
        while i < len(cells):
            c = cells[i]
            plain = type(c) in (Conv2d, Dense) and (type(c) is Dense or c.format == "NCHW")
            if plain and not getattr(c, "activation_flag", False):
                j = i + 1
                bn = None
                if isinstance(c, Conv2d) and j < len(cells) and isinstance(cells[j], BatchNorm2d):
                    bn, j = cells[j], j + 1
                relu = j < len(cells) and type(cells[j]) is ReLU
                out.append(self._fused(c, bn, relu))
                names.append(fixed[i])
                end = j + (1 if relu else 0)
                for k in range(i + 1, end):  # the fused BN / ReLU: Identity keeps every position's name
                    out.append(Identity())
                    names.append(fixed[k])
                i = end
                continue
            out.append(self._rewrite(c))
            names.append(fixed[i])
            i += 1
        seq._rebuild(out, names)

    def _rewrite(self, cell: Cell) -> Cell:
        from ..nn import Conv2dBnAct, DenseBnAct

        if isinstance(cell, _QAT_CELLS):
            return cell
        if type(cell) is Conv2d and cell.format == "NCHW":
            return self._fused(cell, None, False)
        if isinstance(cell, Dense) and type(cell) is Dense and not cell.activation_flag:
            return self._fused(cell, None, False)
        if isinstance(cell, Conv2dBnAct) and (not cell.has_act or type(cell.activation) is ReLU):
            return self._fused(cell.conv, cell.batchnorm if cell.has_bn else None, cell.has_act)
        if isinstance(cell, DenseBnAct) and not cell.has_bn and (not cell.has_act or type(cell.activation) is ReLU):
            return self._fused(cell.dense, None, cell.has_act)
        if isinstance(cell, SequentialCell):
            self._rewrite_sequence(cell)
            return cell
        for name, child in list(cell.name_cells().items()):
            new = self._rewrite(child)
            if new is not child:
                _replace(cell, name, new)
        return cell

    def _rewrite_traced(self, network: Cell, example_inputs: tuple) -> None:
        """Fuse the Conv2d -> BatchNorm2d -> ReLU and Dense -> ReLU chains one PyNative run of
        `network` on `example_inputs` shows (the trace `quantize_static` uses), whatever its
        construct does; each fused BatchNorm's place holds an `nn.Identity` (a fused ReLU stays:
        applied again to the QAT cell's non-negative output it changes nothing)."""
        from .. import context
        from .ptq import _plan, _trace, _verify_fusions

        arrays = tuple(a.asnumpy() if isinstance(a, Tensor) else np.asarray(a) for a in example_inputs)
        was_training, mode = network.training, context.get_context("mode")
        network.set_train(False)
        context.set_context(mode=context.PYNATIVE_MODE)
        cells = dict(network.cells_and_names())
        try:
            try:
                events, out = _trace(network, arrays)
            except SporeError as err:
                raise SporeError(f"QuantizationAwareTraining.quantize: the network does not run on the example "
                                 f"inputs ({err})") from err
            plans = _plan(network, events, out, True, True, set())
            # a chain whose pre-fusion value is also read functionally (relu(y) + y) stays unfused
            _verify_fusions(network, cells, plans, arrays, out)
        finally:
            context.set_context(mode=mode)
            network.set_train(was_training)
        for path, plan in plans.items():
            cell = cells[path]
            bn = cells[plan["bn"]] if plan["bn"] else None
            relu = plan["relu"]
            if bn is not None and not isinstance(bn, BatchNorm2d):  # Dense -> BatchNorm1d: not folded
                bn, relu = None, False
            _replace(network, path, self._fused(cell, bn, relu))
            if bn is not None:
                _replace(network, plan["bn"], Identity())

    def quantize(self, network: Cell, *example_inputs: Any) -> Cell:
        """Rewrite `network` in place for QAT and return it (its Parameters are kept: the optimizer
        and a float checkpoint still address them by name).

        With `example_inputs` (a Spore extension: one batch the network runs on), the conv/BN/ReLU
        chains of any `construct` are found by running it once; without, only the structure of
        `SequentialCell`s and `Conv2dBnAct`/`DenseBnAct` shows them (MindSpore 1.x's rule)."""
        if not isinstance(network, Cell):
            raise SporeError(f"QuantizationAwareTraining.quantize: expected an nn.Cell, got {type(network).__name__}")
        self._paths = {id(c): p for p, c in network.cells_and_names()}
        if example_inputs:
            self._rewrite_traced(network, example_inputs)
        out = self._rewrite(network)
        if not any(isinstance(c, _QAT_CELLS) for _, c in out.cells_and_names()):
            raise SporeError("QuantizationAwareTraining.quantize: the network has no Conv2d or Dense to quantize")
        return out

    apply = quantize

    def convert(self, net_opt: Cell, ckpt_path: str = "") -> Cell:
        """The int8 network of a QAT-trained one (see `convert`); with `ckpt_path` (golden-stick's
        argument), the QAT checkpoint is loaded into `net_opt` first (strictly: every parameter,
        observer ranges and steps included, must be in it)."""
        if ckpt_path:
            from .. import load_checkpoint, load_param_into_net

            if not isinstance(ckpt_path, str):
                raise SporeError(f"convert: ckpt_path must be a str, got {type(ckpt_path).__name__}")
            missing, _ = load_param_into_net(net_opt, load_checkpoint(ckpt_path), strict_load=True)
            if missing:
                raise SporeError(f"convert: {ckpt_path} lacks parameters of the QAT network: {missing[:5]}")
        return convert(net_opt)


class SimulatedQuantizationAwareTraining(QuantizationAwareTraining):
    """golden-stick's spelling: ``SimulatedQuantizationAwareTraining(config).apply(net)`` then
    ``.convert(net)``. `config` keys as golden-stick's (pairs there are (activation, weight)):
    quant_delay, quant_dtype, per_channel, symmetric, narrow_range, freeze_bn, bn_fold."""

    def __init__(self, config: dict | None = None) -> None:
        cfg = dict(config or {})
        known = {"quant_delay", "quant_dtype", "per_channel", "symmetric", "narrow_range", "freeze_bn", "bn_fold",
                 "one_conv_fold", "enable_fusion"}
        unknown = sorted(set(cfg) - known)
        if unknown:
            raise SporeError(f"SimulatedQuantizationAwareTraining: unknown config keys {unknown}")

        def swap(key: str, default: tuple) -> tuple:
            a, w = _pair(cfg.get(key, default), key)
            return (w, a)

        super().__init__(bn_fold=cfg.get("bn_fold", False), freeze_bn=cfg.get("freeze_bn", 10000000),
                         quant_delay=swap("quant_delay", (0, 0)),
                         quant_dtype=swap("quant_dtype", (QuantDtype.INT8, QuantDtype.INT8)),
                         per_channel=swap("per_channel", (False, True)), symmetric=swap("symmetric", (False, True)),
                         narrow_range=swap("narrow_range", (False, True)),
                         one_conv_fold=cfg.get("one_conv_fold", True))
        self.enable_fusion = bool(cfg.get("enable_fusion", False))

    # golden-stick's setters: `act_*` is the activation (second) element here, `weight_*` the first
    def _set(self, key: str, index: int, value: Any) -> None:
        old = self._settings[key][index]
        self._settings[key][index] = value
        try:
            self._configure()
        except SporeError:
            self._settings[key][index] = old
            raise

    def set_bn_fold(self, bn_fold: bool) -> None:
        """Fold BatchNorm into the conv during QAT (`Conv2dBnFoldQuant`) or not."""
        if not isinstance(bn_fold, bool):
            raise SporeError(f"SimulatedQuantizationAwareTraining: bn_fold must be a bool, got {bn_fold!r}")
        self.bn_fold = bn_fold

    def set_one_conv_fold(self, one_conv_fold: bool) -> None:
        """Accepted for golden-stick's API; Spore's fold always runs the float conv once for statistics."""
        self.one_conv_fold = bool(one_conv_fold)

    def set_enable_fusion(self, enable_fusion: bool) -> None:
        """Accepted for golden-stick's API; Spore always fuses Conv2d/BatchNorm2d/ReLU where it sees them."""
        self.enable_fusion = bool(enable_fusion)

    def set_freeze_bn(self, freeze_bn: int) -> None:
        """Training steps after which the fold uses the moving statistics."""
        if isinstance(freeze_bn, bool) or not isinstance(freeze_bn, int) or freeze_bn < 0:
            raise SporeError(f"SimulatedQuantizationAwareTraining: freeze_bn must be an int >= 0, got {freeze_bn!r}")
        self.freeze_bn = freeze_bn

    def set_act_quant_delay(self, act_quant_delay: int) -> None:
        """Training steps before activations are fake-quantized."""
        self._set("quant_delay", 1, act_quant_delay)

    def set_weight_quant_delay(self, weight_quant_delay: int) -> None:
        """Training steps before weights are fake-quantized."""
        self._set("quant_delay", 0, weight_quant_delay)

    def set_act_per_channel(self, act_per_channel: bool) -> None:
        """Per-channel activations (refused: only per tensor, as golden-stick)."""
        self._set("per_channel", 1, act_per_channel)

    def set_weight_per_channel(self, weight_per_channel: bool) -> None:
        """Per-output-channel weight ranges (True) or one per layer."""
        self._set("per_channel", 0, weight_per_channel)

    def set_act_symmetric(self, act_symmetric: bool) -> None:
        """Symmetric activation ranges."""
        self._set("symmetric", 1, act_symmetric)

    def set_weight_symmetric(self, weight_symmetric: bool) -> None:
        """Symmetric weight ranges (needed to convert to int8)."""
        self._set("symmetric", 0, weight_symmetric)

    def set_act_narrow_range(self, act_narrow_range: bool) -> None:
        """Activations on [1, 255] instead of [0, 255]."""
        self._set("narrow_range", 1, act_narrow_range)

    def set_weight_narrow_range(self, weight_narrow_range: bool) -> None:
        """Weights on the narrow grid -127..127 (the int8 kernels' grid)."""
        self._set("narrow_range", 0, weight_narrow_range)

    def set_act_quant_dtype(self, act_quant_dtype: Any) -> None:
        """The activations' QuantDtype (INT8 converts)."""
        self._set("quant_dtype", 1, act_quant_dtype)

    def set_weight_quant_dtype(self, weight_quant_dtype: Any) -> None:
        """The weights' QuantDtype (INT8 converts)."""
        self._set("quant_dtype", 0, weight_quant_dtype)


# --- conversion to int8 ---------------------------------------------------------------------------
def _weight_scale(cell: Cell, w: np.ndarray) -> np.ndarray:
    obs = cell.fake_quant_weight
    if not obs.symmetric:
        raise SporeError(f"convert: {type(cell).__name__} has asymmetric weight fake quantization; the int8 kernels "
                         "take symmetric weights (QuantizationAwareTraining(symmetric=(True, ...)))")
    if obs.num_bits > 8:
        raise SporeError(f"convert: {type(cell).__name__} quantizes weights to {obs.num_bits} bits; the int8 "
                         "kernels take at most 8")
    if obs.per_channel:
        red = tuple(range(1, w.ndim))
        mn, mx = np.minimum(w.min(red), 0), np.maximum(w.max(red), 0)
    else:
        mn = np.full(w.shape[0], min(w.min(), 0), np.float32)
        mx = np.full(w.shape[0], max(w.max(), 0), np.float32)
    # fewer bits (INT4): the same symmetric grid with fewer levels; its integers (|q| <= 7 for 4
    # bits) are int8 values, so the int8 kernels run it exactly (stored unpacked, one byte each)
    scale, _ = qparams(mn.astype(np.float32), mx.astype(np.float32), obs.num_bits, True, obs.narrow_range)
    return scale


def _act_params(obs: Cell, where: str) -> tuple[float, int]:
    if obs.num_bits != 8:
        raise SporeError(f"convert: {where} quantizes activations to {obs.num_bits} bits; only 8 converts")
    scale, zp = qparams(obs.minq, obs.maxq, 8, obs.symmetric, obs.narrow_range, "uint8")
    return float(scale[0]), int(zp[0])


def convert_cell(cell: Cell) -> Cell:
    """The int8 `QuantConv2d` / `QuantDense` of one QAT cell, with its learned scales."""
    from .qmodules import QuantConv2d, QuantDense

    if isinstance(cell, Conv2dBnFoldQuant):
        flt = cell.to_float_conv()
    elif isinstance(cell, _QuantLinearCell):
        flt = cell.to_float()
    else:
        raise SporeError(f"convert_cell: {type(cell).__name__} is not a QAT cell")
    w_scale = _weight_scale(cell, flt.weight.asnumpy())
    where = type(cell).__name__
    x_scale, x_zp = _act_params(cell._input_quantizer, where)
    y_scale, y_zp = _act_params(cell._output_quantizer, where)
    q = QuantDense if isinstance(flt, Dense) else QuantConv2d
    return q.from_float(flt, w_scale, x_scale, x_zp, y_scale, y_zp, relu=cell.relu)


def convert(network: Cell) -> Cell:
    """The int8 network of a QAT-trained one: every QAT cell of `network` is replaced (in place) by
    its real int8 cell, and the network is returned wrapped in a `spore.quant.QuantizedNet` (in eval
    mode), so ``export_qdq(qnet, x, file_name=...)`` / ``ms.export(qnet, x, file_format="ONNX")``
    write it as QDQ ONNX.

    The int8 cells quantize their float input with the input quantizer's scale, run int8 x int8 ->
    int32 and requantize to the output quantizer's scale, so each layer's output is on the grid
    the QAT network's eval output is on (they differ by at most one step where the float rounding
    of the int32 sum and of the fake-quant product disagree)."""
    from .ptq import QuantizedNet

    if not isinstance(network, Cell):
        raise SporeError(f"convert: expected an nn.Cell, got {type(network).__name__}")
    layers: dict[str, dict[str, Any]] = {}
    targets = [(p, c) for p, c in network.cells_and_names() if isinstance(c, _QAT_CELLS)]
    if not targets:
        raise SporeError("convert: the network has no QAT cell (run QuantizationAwareTraining.quantize first)")
    folded = []
    for path, cell in targets:
        bn = getattr(cell, "bn_path", "") or None
        layers[path] = {"kind": "dense" if isinstance(cell, DenseQuant) else "conv2d", "relu": cell.relu, "bn": bn}
        if bn:
            folded.append(bn)
        _replace(network, path, convert_cell(cell))
    network.set_train(False)
    return QuantizedNet(network, layers, folded, "qat")


def _replace(root: Cell, path: str, new: Cell) -> None:
    """Put `new` where the cell at dotted `path` is (a SequentialCell/CellList position or an attribute)."""
    *parents, last = path.split(".")
    owner = root
    for name in parents:
        owner = owner.name_cells()[name]
    if "_seq" in owner.__dict__:  # SequentialCell / CellList: the position, so iteration sees it
        cells = list(owner)
        names = list(owner.__dict__["_fixed"])
        idx = list(owner.name_cells()).index(last)
        cells[idx] = new
        owner._rebuild(cells, names)
    else:
        owner.insert_child_to_cell(last, new)
