"""onnxruntime as an exact oracle for int8 models on any CPU.

Without VNNI (AVX2, or AVX512 without VNNI) onnxruntime's uint8 x int8 kernels multiply with
vpmaddubsw, which saturates each pair of products to int16 - onnxruntime's own documentation warns
of it - so its results there are not the exact integer products that Spore's kernels (and ONNX)
define. Its uint8 x uint8 kernels widen to int16 first and are exact. So on such CPUs the oracle
session runs the same model with every int8 weight fed to a DequantizeLinear stored as uint8 plus
128 with its zero point plus 128: DequantizeLinear gives the same real values, and the products
are computed exactly. On CPUs with VNNI the model runs as it is.
"""

from __future__ import annotations

import functools

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


@functools.cache
def cpu_has_vnni() -> bool:
    flags = open("/proc/cpuinfo").read().split()
    return "avx512_vnni" in flags or "avx_vnni" in flags


def uint8_weights(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with its int8 DequantizeLinear weight initializers (and zero points) moved to uint8."""
    inits = {i.name: i for i in model.graph.initializer}
    for node in model.graph.node:
        if node.op_type != "DequantizeLinear" or node.input[0] not in inits:
            continue
        w = numpy_helper.to_array(inits[node.input[0]])
        if w.dtype != np.int8:
            continue
        zero = (numpy_helper.to_array(inits[node.input[2]]) if len(node.input) > 2 and node.input[2] in inits
                else np.zeros((), np.int8))
        inits[node.input[0]].CopyFrom(numpy_helper.from_array((w.astype(np.int16) + 128).astype(np.uint8),
                                                              node.input[0]))
        zname = node.input[2] if len(node.input) > 2 and node.input[2] else node.input[0] + "_zero_point_u8"
        uz = numpy_helper.from_array((zero.astype(np.int16) + 128).astype(np.uint8), zname)
        if zname in inits:
            inits[zname].CopyFrom(uz)
        else:
            model.graph.initializer.append(uz)
            inits[zname] = model.graph.initializer[-1]
            while len(node.input) < 3:
                node.input.append("")
            node.input[2] = zname
    return model


def session(path: str, opts: ort.SessionOptions | None = None) -> ort.InferenceSession:
    """An onnxruntime CPU session of the model at `path` whose integer products are exact here."""
    src: str | bytes = path if cpu_has_vnni() else uint8_weights(onnx.load(path)).SerializeToString()
    return ort.InferenceSession(src, opts, providers=["CPUExecutionProvider"])
