"""`spore.quant`: post-training weight-only quantization (int8 per-channel, int4 packed), static
post-training quantization with calibration (int8 Conv/Dense on oneDNN's integer kernels), QDQ ONNX
export, and the observers and int8 cells that quantization-aware training converts into.

Status (issue 16): weight-only quantization, observers (min-max, moving average, percentile, KL),
the int8 cells `QuantDense` / `QuantConv2d`, static PTQ (`quantize_static`, `quantize_onnx`), its
save/load and QDQ ONNX export are implemented and tested; so is quantization-aware training
(`QuantizationAwareTraining(...).quantize(net)`, fine-tune, `convert_qat(net)` / `.convert(net)`
to the int8 cells): the `fake_quant` op with a straight-through gradient, the
`FakeQuantWithMinMaxObserver` cell, the QAT cells and BatchNorm folding. (`convert_qat` is not
spelled `convert`: `spore.quant.convert` is the `spore-convert` command's module.)
"""

from __future__ import annotations

from .bn_fold import Conv2dBnFoldQuant, fold_bn
from .core import (
    dequantize_per_channel,
    int8_matmul,
    pack_int4,
    quantize_per_channel,
    unpack_int4,
)
from .fake_quant import FakeQuantWithMinMaxObserver, QuantDtype, fake_quant
from .observers import (
    KLObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    Observer,
    PercentileObserver,
)
from .ptq import QuantizedNet, load_quantized_model, quantize_static, save_quantized_model
from .qat import (
    ActQuant,
    Conv2dBnWithoutFoldQuant,
    Conv2dQuant,
    DenseQuant,
    QuantConfig,
    QuantizationAwareTraining,
    SimulatedQuantizationAwareTraining,
    create_quant_config,
)
from .qat import convert as convert_qat
from .qdq_export import export_qdq, quantize_onnx
from .qmodules import DeQuantStub, QuantConv2d, QuantDense, QuantStub, float_view
from .weight import load_quantized, quantize_weights, save_quantized

__all__ = ["ActQuant", "Conv2dBnFoldQuant", "Conv2dBnWithoutFoldQuant", "Conv2dQuant", "DenseQuant",
           "FakeQuantWithMinMaxObserver", "QuantConfig", "QuantDtype", "QuantizationAwareTraining",
           "SimulatedQuantizationAwareTraining", "convert_qat", "create_quant_config", "fake_quant", "fold_bn"]
__all__ += ["DeQuantStub", "KLObserver", "MinMaxObserver", "MovingAverageMinMaxObserver", "Observer",
           "PercentileObserver", "QuantConv2d", "QuantDense", "QuantStub", "QuantizedNet", "dequantize_per_channel",
           "export_qdq", "float_view", "int8_matmul", "load_quantized", "load_quantized_model", "pack_int4",
           "quantize_onnx", "quantize_per_channel", "quantize_static", "quantize_weights", "save_quantized",
           "save_quantized_model", "unpack_int4"]
