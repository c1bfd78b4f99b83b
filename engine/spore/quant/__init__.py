"""`spore.quant`: post-training weight-only quantization (int8 per-channel, int4 packed) and an
int8 GEMM with int32 accumulation.

Status (issue 16, partial): the numeric core and weight-only quantization of a Cell's Dense/Conv2d
weights are implemented and tested; static PTQ with calibration, QAT, QDQ ONNX export and the
`spore-convert` CLI are not built yet.
"""

from __future__ import annotations

from .core import (
    dequantize_per_channel,
    int8_matmul,
    pack_int4,
    quantize_per_channel,
    unpack_int4,
)
from .weight import load_quantized, quantize_weights, save_quantized

__all__ = ["dequantize_per_channel", "int8_matmul", "load_quantized", "pack_int4", "quantize_per_channel",
           "quantize_weights", "save_quantized", "unpack_int4"]
