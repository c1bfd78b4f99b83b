"""`spore.quant`: post-training weight-only quantization (int8 per-channel, int4 packed), static
post-training quantization with calibration (int8 Conv/Dense on oneDNN's integer kernels), QDQ ONNX
export, and the observers and int8 cells that quantization-aware training converts into.

Status (issue 16): weight-only quantization, observers (min-max, moving average, percentile, KL),
the int8 cells `QuantDense` / `QuantConv2d`, static PTQ (`quantize_static`, `quantize_onnx`), its
save/load and QDQ ONNX export are implemented and tested.
"""

from __future__ import annotations

from .core import (
    dequantize_per_channel,
    int8_matmul,
    pack_int4,
    quantize_per_channel,
    unpack_int4,
)
from .observers import (
    KLObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    Observer,
    PercentileObserver,
)
from .ptq import QuantizedNet, load_quantized_model, quantize_static, save_quantized_model
from .qdq_export import export_qdq, quantize_onnx
from .qmodules import DeQuantStub, QuantConv2d, QuantDense, QuantStub, float_view
from .weight import load_quantized, quantize_weights, save_quantized

__all__ = ["DeQuantStub", "KLObserver", "MinMaxObserver", "MovingAverageMinMaxObserver", "Observer",
           "PercentileObserver", "QuantConv2d", "QuantDense", "QuantStub", "QuantizedNet", "dequantize_per_channel",
           "export_qdq", "float_view", "int8_matmul", "load_quantized", "load_quantized_model", "pack_int4",
           "quantize_onnx", "quantize_per_channel", "quantize_static", "quantize_weights", "save_quantized",
           "save_quantized_model", "unpack_int4"]
