// Shared declarations of spore._kernels: each kernel family lives in its own .cpp file and
// registers its functions into the module through one of these hooks (called from module.cpp).
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace spore {

// C-contiguous float32 array, the layout every kernel takes (callers make inputs contiguous).
using farr = py::array_t<float, py::array::c_style | py::array::forcecast>;

void register_gemm(py::module_& m);    // gemm.cpp: sgemm through oneDNN
void register_dense(py::module_& m);   // dense.cpp: Dense-layer epilogues (bias, ReLU, bias gradient)
void register_conv(py::module_& m);    // conv.cpp: conv2d forward/backward (oneDNN)
void register_pool(py::module_& m);    // pool.cpp: max/avg pooling forward/backward
void register_norm(py::module_& m);    // norm.cpp: batch/layer norm forward/backward
void register_loss(py::module_& m);    // loss.cpp: softmax cross-entropy forward/backward
void register_optim(py::module_& m);   // optim.cpp: fused optimizer updates (Adam, Momentum, SGD)
void register_fused(py::module_& m);   // fused.cpp: Graph mode's fused elementwise chains

}  // namespace spore
